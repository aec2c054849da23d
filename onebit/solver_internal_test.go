package onebit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// startOptions are options under which a solve's end depends on its
// start (PaperOptions' rho = 1 with lambda = 0.01 thresholds every x to
// 0 at the first x-update, whatever the start): lambda = 1, rho = 10, 5
// iterations on the full Phi, no coordinate check.
func startOptions() Options {
	o := DefaultOptions()
	o.Lambda, o.MaxIter, o.WorkingSet, o.CoordinateCheck = 1, 5, false, false
	return o
}

// TestSolveStartRandomStream pins StartRandom's start (solver.go: the Solver's
// generator reseeded, "the same stream as a new rand.NewPCG(opt.Seed,
// "random")", one NormFloat64 per coordinate, normalized: a direction
// uniform on the sphere): a solve from it is bit for bit the solve from
// StartGiven with that Gaussian vector, drawn here from a new generator.
// Another distribution or stream starts elsewhere and ends elsewhere
// (the two seeds' solves differ: checked).
func TestSolveStartRandomStream(t *testing.T) {
	p := randomProblem(t, 30, 12, 3)
	o := startOptions()
	var ends [][]float64
	for _, seed := range []uint64{1, 42} {
		var s Solver
		o.Start, o.Seed = StartRandom, seed
		xr := make([]float64, p.n)
		rr, err := s.Solve(context.Background(), p, xr, o)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 0x72616e646f6d)) // "random"
		xg := make([]float64, p.n)
		for j := range xg {
			xg[j] = rng.NormFloat64()
		}
		o.Start = StartGiven
		rg, err := s.Solve(context.Background(), p, xg, o)
		require.NoError(t, err)
		if !slices.Equal(xr, xg) || rr.Objective != rg.Objective {
			t.Errorf("seed %d: StartRandom ends at %v (objective %v), StartGiven from the Gaussian draw at %v (%v)",
				seed, xr, rr.Objective, xg, rg.Objective)
		}
		ends = append(ends, xr)
	}
	require.NotEqual(t, ends[0], ends[1], "the solve must depend on its start for the test")
}

// zeroBackprojection returns a 4 x 3 problem with Phi^T y = 0: its
// rows sum to zero and every sign is -1.
func zeroBackprojection(t *testing.T) *Problem {
	p, err := NewProblem([]float64{1, 2, 0, 0, 1, -1, -1, -2, 0, 0, -1, 1}, 4, 3, []float64{-1, -1, -1, -1})
	require.NoError(t, err)
	return p
}

// TestSolveStartBackprojectionZero pins StartBackprojection's degenerate case
// ("from e_1 in the degenerate case Phi^T y = 0"): on a problem with
// Phi^T y = 0 the solve is bit for bit the one from StartGiven e_1, on the
// full Phi and on a working set; from e_3 it ends elsewhere (checked).
func TestSolveStartBackprojectionZero(t *testing.T) {
	p := zeroBackprojection(t)
	for _, ws := range []bool{false, true} {
		o := startOptions()
		o.WorkingSet = ws
		var s Solver
		xb := make([]float64, 3)
		rb, err := s.Solve(context.Background(), p, xb, o)
		require.NoError(t, err)
		o.Start = StartGiven
		xg := []float64{1, 0, 0}
		rg, err := s.Solve(context.Background(), p, xg, o)
		require.NoError(t, err)
		if !slices.Equal(xb, xg) || rb.Objective != rg.Objective {
			t.Errorf("working set %v: backprojection ends at %v (%v), e_1 at %v (%v)", ws, xb, rb.Objective, xg, rg.Objective)
		}
		x3 := []float64{0, 0, 1}
		_, err = s.Solve(context.Background(), p, x3, o)
		require.NoError(t, err)
		require.NotEqual(t, xg, x3, "working set %v: the solve must depend on its start for the test", ws)
	}
}

// TestNormalizeHuge guards normalize on a finite x whose norm overflows:
// it scaled by a fixed 2^-4, after which more than 256 entries near
// MaxFloat64 still overflowed, and 1/Inf = 0 left x zero while it
// reported success; and on a subnormal x, whose norm's reciprocal
// overflows without the rescale. Every entry must come out 1/sqrt(n) (to
// rounding: a few ulps of the scaled norm).
func TestNormalizeHuge(t *testing.T) {
	for _, c := range []struct {
		n int
		v float64
	}{{2, math.MaxFloat64}, {256, math.MaxFloat64}, {300, math.MaxFloat64}, {10000, math.MaxFloat64},
		{4, 5e-320}, {300, 5e-320}} { // subnormal: 1/||x|| overflows unless rescaled first
		n := c.n
		x := make([]float64, n)
		for j := range x {
			x[j] = c.v
		}
		if !normalize(x) {
			t.Fatalf("n = %d: normalize failed", n)
		}
		want := 1 / math.Sqrt(float64(n))
		for j, v := range x {
			if math.Abs(v-want) > 4e-16*want {
				t.Fatalf("n = %d: x[%d] = %v, want %v", n, j, v, want)
			}
		}
	}
}
