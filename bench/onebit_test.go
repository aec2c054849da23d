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
		"-grid-seeds", "2", "-rec-n", "60", "-rec-k", "3", "-rec-ratios", "0.5,1,2", "-rec-seeds", "2", "-speed-n", "50",
		"-json", js, "-svg", svgDir, "-quiet", "-seed", "3")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	sec := readOnebit(t, js).Sections[0]
	if sec.Status != "ok" || len(sec.Tables) != 2+1+1 {
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
	if rc == nil || len(rc.Points) != 3 || rc.Seeds != 2 {
		t.Fatalf("recovery: %+v", rc)
	}
	for i, pt := range rc.Points {
		if i > 0 && !(pt.Ratio > rc.Points[i-1].Ratio && pt.M > rc.Points[i-1].M) {
			t.Errorf("ratios or M not increasing at %d", i)
		}
		if pt.M != int(math.Round(pt.Ratio*60)) {
			t.Errorf("ratio %g: M = %d", pt.Ratio, pt.M)
		}
		for _, st := range []Stat{pt.NeADMM, pt.BIHT, pt.Passive} {
			if st.N != 2 || len(st.Samples) != 2 {
				t.Errorf("ratio %g: %d samples", pt.Ratio, st.N)
			}
			for _, e := range st.Samples {
				if !(e >= 0 && e <= 1) {
					t.Errorf("ratio %g: angular error %v outside [0, 1]", pt.Ratio, e)
				}
			}
		}
		if pt.Wins < 0 || pt.Wins > 2 || !(pt.NeADMMProducts.Min > pt.BIHTProducts.Max) || pt.NeADMMSupport < 1 {
			t.Errorf("ratio %g: %+v", pt.Ratio, pt)
		}
	}
	sp := res.Speed
	if sp == nil || sp.N != 50 || !(sp.SolveMs.Median > 0) || sp.MulVecs < sp.InnerIterations || sp.MulTransVecs > sp.MulVecs ||
		!(sp.MulVecUs > 0 && sp.MulTransVecUs > 0) || math.IsNaN(sp.ProductShare) {
		t.Errorf("speed: %+v", sp)
	}
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
		{"-rec-k", "0"}, {"-workers", "0"}, {"-lambda", "0"}, {"-grid-seeds", "-1"},
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
