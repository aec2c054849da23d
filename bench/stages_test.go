package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stagesReport mirrors Report with the stages results typed.
type stagesReport struct {
	Interrupted bool
	Sections    []struct {
		Command string
		Status  string
		Tables  []*Table
		Results StagesResult
	}
}

func readStages(t *testing.T, name string) *stagesReport {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	rep := &stagesReport{}
	require.NoError(t, json.Unmarshal(b, rep), "JSON does not parse")
	require.Len(t, rep.Sections, 1)
	require.Equal(t, "stages", rep.Sections[0].Command)
	return rep
}

func TestStagesJSON(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	code, out, errs := runBench(context.Background(), "stages", "-n", "30", "-k", "3", "-seeds", "2",
		"-flips", "0,0.1", "-ratios", "1", "-workers", "2", "-json", js, "-quiet", "-seed", "5")
	require.Equal(t, exitOK, code, "stderr:\n%s", errs)
	sec := readStages(t, js).Sections[0]
	// A table per family and flip rate, the matrices, the summary.
	require.Equal(t, "ok", sec.Status)
	require.Len(t, sec.Tables, len(stagesFamilies)*2+len(stagesMatrices)+1)
	for _, tab := range sec.Tables {
		assert.Contains(t, out, "### "+tab.Title)
	}
	res := sec.Results
	assert.Equal(t, 30, res.N)
	require.Len(t, res.Variants, len(stageVariants))
	assert.Equal(t, "defaults", res.Variants[0])
	require.Len(t, res.Rows, len(stagesFamilies)*2)
	for ri, row := range res.Rows {
		assert.Equal(t, stagesFamilies[ri/2].name, row.Family)
		assert.Equal(t, []float64{0, 0.1}[ri%2], row.Flip)
		assert.Equal(t, 30, row.M)
		require.Len(t, row.Cells, len(stageVariants))
		def := row.Cells[0]
		assert.Zero(t, def.Changed, "the defaults against themselves")
		assert.Equal(t, []float64{0, 0}, def.Diff.Samples)
		for vi, c := range row.Cells {
			assert.Equal(t, stageVariants[vi].name, c.Variant)
			require.Len(t, c.Error.Samples, 2)
			require.Len(t, c.Diff.Samples, 2)
			for i, e := range c.Error.Samples {
				assert.True(t, e >= 0 && e <= 1, "angular error %v outside [0, 1]", e)
				d := c.Diff.Samples[i]
				assert.InDelta(t, e-def.Error.Samples[i], d, roundingDiff, "Diff is the paired difference")
			}
			if c.Changed == 0 {
				assert.Equal(t, []float64{0, 0}, c.Diff.Samples, "%s: no estimate changed, no error may", c.Variant)
			}
			assert.Positive(t, c.CPUMs.Min)
			assert.Positive(t, c.Work.Min)
			assert.GreaterOrEqual(t, c.Products.Min, 1.0)
			if stageVariants[vi].fired == nil {
				assert.Equal(t, -1, c.Fired)
			} else {
				assert.True(t, c.Fired >= 0 && c.Fired <= 2, "fired %d", c.Fired)
			}
		}
	}
	require.Len(t, res.Summary, len(stageVariants)-1)
	for i, sm := range res.Summary {
		assert.Equal(t, stageVariants[i+1].name, sm.Variant)
		assert.Equal(t, 2*len(res.Rows), sm.Instances)
		assert.LessOrEqual(t, sm.Worse+sm.Better, len(res.Rows))
		assert.Positive(t, sm.CPURatio)
	}
}

func TestStagesVariantsAndQuick(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	code, _, errs := runBench(context.Background(), "stages", "-quick", "-n", "24", "-k", "2", "-families", "power,ar1",
		"-flips", "0.03", "-ratios", "0.5,1", "-variants", "pursuit,cap", "-json", js, "-quiet")
	require.Equal(t, exitOK, code, "stderr:\n%s", errs)
	res := readStages(t, js).Sections[0].Results
	assert.Equal(t, []string{"defaults", "cap", "pursuit"}, res.Variants, "the defaults first, then in stage order")
	assert.Equal(t, 5, res.Seeds, "-quick sets the instances")
	assert.Equal(t, 24, res.N, "-n given wins over -quick")
	require.Len(t, res.Rows, 4)
	assert.Equal(t, []int{12, 24}, []int{res.Rows[0].M, res.Rows[1].M})
	assert.Equal(t, "power", res.Rows[0].Family)
}

func TestStagesFlagsAndInterrupt(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"-families", "nosuch"}, {"-families", ","}, {"-flips", "0.5"}, {"-flips", ","}, {"-ratios", "0"},
		{"-ratios", "2,1"}, {"-variants", "nosuch"}, {"-seeds", "1"}, {"-k", "0"}, {"-n", "1"}, {"-k", "40", "-n", "30"},
		{"-workers", "0"},
	} {
		code, out, _ := runBench(ctx, append([]string{"stages", "-quiet"}, args...)...)
		assert.Equal(t, exitUsage, code, "%q", args)
		assert.Empty(t, out, "%q printed on stdout", args)
	}
	// Cancelled once the third instance is done: the first row (two
	// instances) is kept, the second is not.
	js := filepath.Join(t.TempDir(), "out.json")
	code, out, _ := runBench(cancelAfterUnits(t, 3), "stages", "-n", "30", "-k", "3", "-seeds", "2", "-families", "gauss",
		"-ratios", "0.5,1,2", "-flips", "0", "-json", js, "-quiet")
	require.Equal(t, exitInterrupted, code)
	rep := readStages(t, js)
	assert.True(t, rep.Interrupted)
	sec := rep.Sections[0]
	assert.Equal(t, "interrupted", sec.Status)
	require.Len(t, sec.Results.Rows, 1)
	assert.Len(t, sec.Results.Summary, len(stageVariants)-1, "the summary covers the finished rows")
	assert.Contains(t, out, "Stages: summary over 1 rows")
}

func TestStagesFamilies(t *testing.T) {
	const m, n, k = 400, 60, 4
	for _, f := range stagesFamilies {
		a, err := genStagesInstance(f.name, m, n, k, 0, 7)
		require.NoError(t, err)
		b, err := genStagesInstance(f.name, m, n, k, 0, 7)
		require.NoError(t, err)
		assert.Equal(t, a, b, "%s: a seed gives one instance", f.name)
		c, err := genStagesInstance(f.name, m, n, k, 0, 8)
		require.NoError(t, err)
		assert.NotEqual(t, a.phi, c.phi, "%s: another seed, another instance", f.name)
		ss, nz := 0.0, 0
		for _, v := range a.x {
			ss += v * v
			if v != 0 {
				nz++
			}
		}
		assert.InDelta(t, 1, ss, 1e-12, "%s: unit-norm signal", f.name)
		if f.name == "power" {
			assert.Equal(t, n, nz, "power: every coordinate non-zero")
		} else {
			assert.Equal(t, k, nz, "%s: K non-zeros", f.name)
		}
		for i := range m {
			dot := 0.0
			for j, v := range a.x {
				dot += a.phi[i*n+j] * v
			}
			assert.Equal(t, math.Copysign(1, dot), a.y[i], "%s: y = sign(Phi x) without flips", f.name)
		}
		// With flips, about that fraction of the signs is flipped.
		fl, err := genStagesInstance(f.name, m, n, k, 0.25, 7)
		require.NoError(t, err)
		flipped := 0
		for i := range m {
			if fl.y[i] != a.y[i] {
				flipped++
			}
		}
		assert.InDelta(t, 0.25*m, flipped, 40, "%s: flipped signs", f.name)
	}
	_, err := genStagesInstance("nosuch", m, n, k, 0, 1)
	assert.Error(t, err)
	// The ar1 columns: neighbours correlated by ar1Rho, far ones not.
	in, err := genStagesInstance("ar1", 4000, 10, 2, 0, 3)
	require.NoError(t, err)
	corr := func(j, l int) float64 {
		var sjl, sjj, sll float64
		for i := range 4000 {
			a, b := in.phi[i*10+j], in.phi[i*10+l]
			sjl, sjj, sll = sjl+a*b, sjj+a*a, sll+b*b
		}
		return sjl / math.Sqrt(sjj*sll)
	}
	assert.InDelta(t, ar1Rho, corr(3, 4), 0.05)
	assert.InDelta(t, 0, corr(0, 9), 0.05)
	// The student entries: heavy tails (the t3 kurtosis is infinite; a
	// Gaussian's 3).
	st, err := genStagesInstance("student", 2000, 20, 2, 0, 4)
	require.NoError(t, err)
	var m2, m4 float64
	for _, v := range st.phi {
		m2 += v * v
		m4 += v * v * v * v
	}
	nn := float64(len(st.phi))
	assert.Greater(t, (m4/nn)/((m2/nn)*(m2/nn)), 5.0, "student: kurtosis")
}

func TestStagesMoved(t *testing.T) {
	for _, c := range []struct {
		d    []float64
		want int
	}{
		{[]float64{0, 0, 0}, 0},
		{[]float64{0.3, 0, 0, 0, 0}, 0}, // one change: exactly one se
		{[]float64{-0.3, 0, 0, 0, 0, 0, 0}, 0},
		{[]float64{0.1, 0.1, 0}, 1},
		{[]float64{-0.1, -0.2, 0, 0.01}, -1},
		{[]float64{0.1, -0.1, 0.05, -0.05}, 0},
	} {
		assert.Equal(t, c.want, moved(Summarize(c.d)), "%v", c.d)
	}
	assert.Zero(t, roundOff(3e-16))
	assert.Equal(t, -2e-12, roundOff(-2e-12))
}
