package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRho runs the rho command on a tiny grid and checks the tallies
// against each other and against the table printed.
func TestRho(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	code, out, errs := runBench(context.Background(), "rho", "-n", "64", "-m", "20,40", "-k", "2,4", "-seeds", "2",
		"-workers", "2", "-json", js, "-quiet")
	require.Equal(t, exitOK, code, errs)
	var res RhoResult
	sectionResults(t, js, "rho", &res)
	assert.Equal(t, 2*2*2, res.Instances)
	assert.Equal(t, []int{20, 40}, res.Ms)
	assert.Equal(t, []int{2, 4}, res.Ks)
	assert.Equal(t, 0.01, res.Lambda)
	require.Len(t, res.Schedules, 9)
	names := make([]string, len(res.Schedules))
	lowest := 0
	for i, sc := range res.Schedules {
		names[i] = sc.Name
		lowest += sc.Lowest
		for _, c := range []int{sc.Lowest, sc.AtCoord, sc.Converged} {
			assert.True(t, c >= 0 && c <= res.Instances, "%s: count %d of %d", sc.Name, c, res.Instances)
		}
		assert.Positive(t, sc.MeanRatio, sc.Name)
		assert.Positive(t, sc.MeanProducts, sc.Name)
		row := tableRow(t, out, "ρ schedules, N = 64, λ = 0.01, M = 20..40, K = 2..4: 8 instances", sc.Name)
		assert.Equal(t, []string{fmt.Sprintf("%d/8", sc.Lowest), fmt.Sprintf("%d/8", sc.AtCoord),
			fmt.Sprintf("%.4f", sc.MeanRatio), fmt.Sprintf("%d/8", sc.Converged), fmt.Sprintf("%.0f", sc.MeanProducts)}, row[1:])
	}
	// Some schedule is the lowest on every instance.
	assert.GreaterOrEqual(t, lowest, res.Instances)
	assert.Contains(t, names, "fixed 10 (default)")
	assert.Contains(t, names, "fixed 1 (paper)")
	assert.Equal(t, "geometric", res.Schedules[1].Policy)
	assert.True(t, res.NoneAtCoord >= 0 && res.NoneAtCoord <= res.Instances)
	assert.Contains(t, out, fmt.Sprintf("no schedule reached the best signed coordinate vector: %d of 8.", res.NoneAtCoord))
	assert.Contains(t, out, "Seed = -seed − 1 + i (here 0..1)")
}

// TestRhoQuick checks that -quick sets the grid flags not given.
func TestRhoQuick(t *testing.T) {
	for _, c := range []struct {
		args           []string
		m, k, seeds    string
		wantCheckError bool
	}{
		{[]string{"-quick"}, rhoQuickM, rhoQuickK, itoa(rhoQuickSeeds), false},
		{[]string{"-quick", "-k", "8", "-seeds", "1"}, rhoQuickM, "8", "1", false},
		{[]string{"-m", "30"}, "30", "16,32,48,64", "3", false},
		{[]string{"-quick", "-n", "32"}, rhoQuickM, rhoQuickK, itoa(rhoQuickSeeds), true}, // K = 64 > N
	} {
		fs := newFlagSet("rho", io.Discard)
		rhoCommand.Flags(fs)
		require.NoError(t, fs.Parse(c.args))
		err := fs.check()
		assert.Equal(t, c.wantCheckError, err != nil, "%q: %v", c.args, err)
		get := func(name string) string { return fs.Lookup(name).Value.String() }
		assert.Equal(t, []string{c.m, c.k, c.seeds}, []string{get("m"), get("k"), get("seeds")}, "%q", c.args)
	}
}
