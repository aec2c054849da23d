package onebit

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecoverCleanReweightRel pins that CleanReweightRel reaches the
// reweighting rounds, and only them, with clean signs: without rounds the
// estimate does not depend on it (bit for bit); with them, inexact
// x-updates (0.01) take other FISTA steps than exact ones (0: InnerTol)
// and end elsewhere. (The defaults' InnerRel is 0.01 too, so the stages'
// InnerRel cannot stand in for it.)
func TestRecoverCleanReweightRel(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 400, N: 200, K: 5, Seed: 1})
	var s Solver
	run := func(reweight int, rel float64) ([]float64, RecoverResult) {
		o := continuationOnly()
		o.Reweight, o.CleanReweightRel = reweight, rel
		x := make([]float64, p.n)
		res, err := s.Recover(context.Background(), p, x, o)
		require.NoError(t, err)
		require.Equal(t, 3+reweight, res.Stages, "the clean schedule")
		return x, res
	}
	x0, r0 := run(0, 0)
	x1, r1 := run(0, 0.01)
	require.Equal(t, x0, x1)
	require.Equal(t, r0.InnerIterations, r1.InnerIterations)
	_, r0 = run(4, 0)
	_, r1 = run(4, 0.01)
	require.NotEqual(t, r0.InnerIterations, r1.InnerIterations)
}
