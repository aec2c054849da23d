package onebit

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecoverCentroidGate pins the sizes and margins at which the
// centroid keeps the center (RecoverOptions.Centroid: "the support holds
// fewer than 2 or more than 64 coordinates, or the center's angular
// margin is above 0.05"): on 60 random signs and 70 Gaussian columns, a
// direction x on the first q coordinates satisfies about half of them,
// which make its cell; with q = 2 and 64 and a margin of 0.05 the
// expectation propagation sweeps (it ran), with q = 1 and 65, or a margin
// above 0.05, it does not run.
func TestRecoverCentroidGate(t *testing.T) {
	p := randomProblem(t, 60, 70, 3)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		q      int
		margin float64
		runs   bool
	}{{2, 0.05, true}, {64, 0.01, true}, {1, 0.01, false}, {65, 0.01, false}, {2, 0.0501, false}} {
		var s Solver
		s.resize(p)
		s.op = &s.full
		for j := range c.q {
			s.x[j] = rng.NormFloat64()
		}
		ax := make([]float64, p.m)
		for i := range p.m {
			for j := range c.q {
				ax[i] += p.phi[i*p.n+j] * s.x[j]
			}
		}
		res := RecoverResult{Centered: true, Margin: c.margin}
		_, err := s.centroid(t.Context(), p, ax, &res)
		require.NoError(t, err)
		require.Equal(t, c.runs, res.CentroidSweeps > 0, "q = %d, margin %g: %+v", c.q, c.margin, res)
	}
}
