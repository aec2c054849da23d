package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onebitReport mirrors Report with the onebit results typed.
type onebitReport struct {
	Interrupted bool
	Sections    []struct {
		Command string
		Status  string
		Figures []string
		Tables  []*Table
		Results OnebitResult
	}
}

func readOnebit(t *testing.T, name string) *onebitReport {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	rep := &onebitReport{}
	if err := json.Unmarshal(b, rep); err != nil {
		t.Fatalf("JSON does not parse: %v", err)
	}
	if len(rep.Sections) != 1 || rep.Sections[0].Command != "onebit" {
		t.Fatalf("sections: %+v", rep.Sections)
	}
	return rep
}

func TestOnebitJSONAndSVG(t *testing.T) {
	dir := t.TempDir()
	js, svgDir := filepath.Join(dir, "out.json"), filepath.Join(dir, "svg")
	code, out, errs := runBench(context.Background(), "onebit", "-grid-n", "64", "-grid-m", "20,40,60", "-grid-k", "2,4",
		"-grid-seeds", "2", "-rec-n", "60", "-rec-families", "gauss/3,rademacher/4", "-rec-flips", "0,0.1",
		"-rec-ratios", "0.5,1,2", "-rec-seeds", "2", "-scale-n", "20,40", "-scale-seeds", "2", "-speed-n", "50",
		"-json", js, "-svg", svgDir, "-quiet", "-seed", "3")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	sec := readOnebit(t, js).Sections[0]
	// Two grid panels, 2 families x 2 flip rates, the scaling, the speed.
	if sec.Status != "ok" || len(sec.Tables) != 2+4+1+1 {
		t.Fatalf("status %q, %d tables", sec.Status, len(sec.Tables))
	}
	for _, tab := range sec.Tables {
		if !strings.Contains(out, "### "+tab.Title) {
			t.Errorf("table %q not printed", tab.Title)
		}
	}
	res := sec.Results
	g := res.Grid
	if g == nil || len(g.Cells) != 2*3 || g.N != 64 || g.Lambda != 0.01 {
		t.Fatalf("grid: %+v", g)
	}
	lastM := map[int]int{}
	for _, c := range g.Cells {
		if c.M <= lastM[c.K] {
			t.Errorf("K = %d: M not increasing: %d after %d", c.K, c.M, lastM[c.K])
		}
		lastM[c.K] = c.M
		objs := []float64{c.NeADMM, c.Paper, c.Truth, c.Passive, c.BIHT, c.BestCoord}
		for _, o := range objs {
			// Unit-norm estimates: ||x||_1 >= 1, and the loss is finite.
			if !(o >= 1-1e-12) || math.IsInf(o, 0) {
				t.Errorf("cell %+v: objective %v", c, o)
			}
		}
		if c.NeADMM > c.Truth*(1+1e-12) || c.NeADMMConverged > 2 || !(c.NeADMMMs > 0) || !(c.Iterations >= 1) {
			t.Errorf("cell %+v", c)
		}
	}
	rc := res.Recovery
	require.NotNil(t, rc)
	require.Len(t, rc.Settings, 4)
	require.Equal(t, 2, rc.Seeds)
	for si, st := range rc.Settings {
		assert.Equal(t, []string{"gauss", "gauss", "rademacher", "rademacher"}[si], st.Family)
		assert.Equal(t, []float64{0, 0.1, 0, 0.1}[si], st.Flip)
		require.Len(t, st.Points, 3)
		for i, pt := range st.Points {
			if i > 0 {
				assert.Greater(t, pt.Ratio, st.Points[i-1].Ratio)
				assert.Greater(t, pt.M, st.Points[i-1].M)
			}
			assert.Equal(t, int(math.Round(pt.Ratio*60)), pt.M)
			for _, sv := range []Stat{pt.NeADMM, pt.BIHT, pt.Passive} {
				require.Len(t, sv.Samples, 2)
				for _, e := range sv.Samples {
					assert.True(t, e >= 0 && e <= 1, "angular error %v outside [0, 1]", e)
				}
			}
			assert.True(t, pt.Wins >= 0 && pt.Wins <= 2)
			assert.Positive(t, pt.NeADMMWork.Min)
			assert.Positive(t, pt.BIHTWork.Min)
			assert.Positive(t, pt.NeADMMCPUMs.Min)
			assert.Positive(t, pt.CPURatio.Min)
			assert.GreaterOrEqual(t, pt.NeADMMSupport.Min, 1.0)
		}
	}
	sc := res.Scaling
	require.NotNil(t, sc)
	require.Len(t, sc.Points, 2)
	assert.Equal(t, []int{20, 40}, []int{sc.Points[0].N, sc.Points[1].N})
	assert.False(t, math.IsNaN(sc.NeADMMSlope) || math.IsNaN(sc.BIHTSlope))
	sp := res.Speed
	require.NotNil(t, sp)
	require.Len(t, sp.Rows, 2)
	assert.Equal(t, 50, sp.N)
	def, paper := sp.Rows[0], sp.Rows[1]
	assert.Equal(t, "default", def.Options)
	assert.Positive(t, def.WorkingSet)
	assert.Zero(t, paper.WorkingSet)
	assert.Less(t, def.Work, paper.Work, "the working set must cost less than the full matrix")
	assert.LessOrEqual(t, def.Objective, sp.BestCoord*(1+1e-12), "the coordinate check")
	assert.Positive(t, def.CPUMs.Median)
	if strings.Join(sec.Figures, ",") != "onebit-objective.svg,onebit-recovery.svg" {
		t.Fatalf("figures %v", sec.Figures)
	}
	// 2 panels of 6 series, and 3 series.
	if n := checkSVG(t, filepath.Join(svgDir, "onebit-objective.svg")); n != 2*6 {
		t.Errorf("objective figure has %d series paths, want 12", n)
	}
	if n := checkSVG(t, filepath.Join(svgDir, "onebit-recovery.svg")); n != 3 {
		t.Errorf("recovery figure has %d series paths, want 3", n)
	}
}

func TestOnebitFlagsAndInterrupt(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"-grid-m", "50,40"}, {"-grid-k", "600"}, {"-rec-ratios", "1,0.5"}, {"-rec-ratios", "x"},
		{"-rec-families", "gauss/0"}, {"-rec-families", "other/3"}, {"-rec-families", "gauss/2000"}, {"-rec-flips", "0.1,0"},
		{"-rec-flips", "0.5"}, {"-scale-n", "5"}, {"-scale-seeds", "-1"},
		{"-workers", "0"}, {"-lambda", "0"}, {"-grid-seeds", "-1"},
	} {
		if code, _, _ := runBench(ctx, append([]string{"onebit", "-quiet"}, args...)...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	// An interrupted run keeps the finished cells and still writes JSON.
	js := filepath.Join(t.TempDir(), "out.json")
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	code, _, _ := runBench(cctx, "onebit", "-grid-n", "128", "-grid-seeds", "1", "-rec-n", "100", "-workers", "2",
		"-json", js, "-quiet")
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	rep := readOnebit(t, js)
	if !rep.Interrupted || rep.Sections[0].Status != "interrupted" {
		t.Errorf("report: %+v", rep)
	}
	if g := rep.Sections[0].Results.Grid; g != nil && len(g.Cells) >= len(g.Ks)*len(g.Ms) {
		t.Errorf("%d cells: the run was not cut short", len(g.Cells))
	}
}
