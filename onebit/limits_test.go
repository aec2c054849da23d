package onebit_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/onebit"
)

// The limits of the input: bad input gets a clear error (matched with
// errors.Is), never a crash or a hang; the extremes of the
// floating-point range (options, matrices and vectors that are valid but
// tiny or huge) give the same answers as moderate ones (or a clear
// ErrBadInput), never a NaN or a silently worse estimate.

func TestNilProblem(t *testing.T) {
	var s onebit.Solver
	ctx := context.Background()
	x := make([]float64, 3)
	_, err := s.Solve(ctx, nil, x, onebit.DefaultOptions())
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = s.Recover(ctx, nil, x, onebit.DefaultRecoverOptions())
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = onebit.BIHT(ctx, nil, x, onebit.BIHTOptions{K: 1, MaxIter: 1})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	assert.ErrorIs(t, onebit.Passive(nil, x, 0), onebit.ErrBadInput)
}

// TestRecoverScaleInvariant guards the documented independence of
// Recover's lambda units from the scale of Phi. ||Phi||_F^2 was a plain
// sum of squares: at Phi*2^-600 it underflowed to 0, and Recover fell back
// to the scale of a zero Phi (angular error 0.22 instead of 0.0027); at
// Phi*1e-155 the raw lambda overflowed (ErrBadInput for data NewProblem
// accepted). Scaling by a power of two is exact, and so is Recover's
// arithmetic under it (or, beyond 2^±64, Recover runs on a copy scaled
// back), so the estimates must agree bit for bit.
func TestRecoverScaleInvariant(t *testing.T) {
	in := mustGenerate(t, 200, 100, 4, 3)
	ctx := context.Background()
	scaled := func(c float64) *onebit.Problem {
		phi := make([]float64, len(in.Phi))
		for i, v := range in.Phi {
			phi[i] = v * c
		}
		p, err := onebit.NewProblem(phi, in.M, in.N, in.Y)
		require.NoError(t, err, "scale %g", c)
		return p
	}
	for _, ws := range []bool{true, false} {
		ro := onebit.DefaultRecoverOptions()
		ro.WorkingSet = ws // false: the stages need ||Phi||_2^2 (power iteration) too
		var ref []float64
		var refRes onebit.RecoverResult
		for _, k := range []int{0, -600, -500, 500, -70, 70} {
			var s onebit.Solver
			x := make([]float64, in.N)
			res, err := s.Recover(ctx, scaled(math.Ldexp(1, k)), x, ro)
			require.NoError(t, err, "WorkingSet %v, 2^%d", ws, k)
			if k == 0 {
				ref, refRes = x, res
				require.Less(t, onebit.AngularError(in.X, x), 0.01)
				continue
			}
			for j := range x {
				if x[j] != ref[j] {
					t.Fatalf("WorkingSet %v, Phi*2^%d: x[%d] = %v, want %v (Phi unscaled)", ws, k, j, x[j], ref[j])
				}
			}
			assert.Equal(t, refRes.Products, res.Products, "WorkingSet %v, 2^%d", ws, k)
			assert.Equal(t, refRes.Support, res.Support, "WorkingSet %v, 2^%d", ws, k)
			// A second call on the same Problem reuses the Solver's copy.
			res2, err := s.Recover(ctx, scaled(math.Ldexp(1, k)), x, ro)
			require.NoError(t, err)
			assert.Equal(t, res.Products, res2.Products)
		}
	}
	// Scales that are not powers of two round every entry of Phi (by at
	// most half an ulp): the estimate moves by rounding-level amounts on
	// this instance, far within 1e-9 of the unscaled angular error (the
	// failures were an error, and 0.22 against 0.0027).
	var s onebit.Solver
	x := make([]float64, in.N)
	_, err := s.Recover(ctx, scaled(1), x, onebit.DefaultRecoverOptions())
	require.NoError(t, err)
	want := onebit.AngularError(in.X, x)
	for _, c := range []float64{1e-155, 1e-200, 1e150} {
		_, err := s.Recover(ctx, scaled(c), x, onebit.DefaultRecoverOptions())
		require.NoError(t, err, "scale %g", c)
		assert.InDelta(t, want, onebit.AngularError(in.X, x), 1e-9, "scale %g", c)
	}
}

// TestRecoverZeroRowsReused guards the margin computation on a support
// whose rows are all zero (here Phi = 0) with a Solver that ran Recover on
// a larger problem before: Wolfe's algorithm kept the earlier corral, and
// the bound's pool read its measurement indices past this problem's M (an
// index-out-of-range panic). Phi = 0 keeps Recover's unit-scale fallback
// and gives a unit estimate.
func TestRecoverZeroRowsReused(t *testing.T) {
	ctx := context.Background()
	var s onebit.Solver
	x := make([]float64, 100)
	_, err := s.Recover(ctx, mustProblem(t, mustGenerate(t, 200, 100, 4, 3)), x, onebit.DefaultRecoverOptions())
	require.NoError(t, err)
	p, err := onebit.NewProblem(make([]float64, 6), 2, 3, []float64{1, -1})
	require.NoError(t, err)
	x = x[:3]
	_, err = s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
	require.NoError(t, err)
	assert.InDelta(t, 1, norm(x), 1e-15)
}

func norm(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}
