package onebit_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/onebit"
)

// The extremes of the floating-point range: options, matrices and vectors
// that are valid but tiny or huge give the same answers as moderate ones
// (or a clear ErrBadInput), never a NaN or a silently worse estimate.

// TestSolveTinyRho guards the adaptive step of the working-set FISTA: it
// starts from L = rho, and with Rho = 1e-200 the first trial step 1/L
// overflows (f(z) = +Inf). The sufficient-decrease test read +Inf <= +Inf
// and accepted it, and the solve failed with neadmm.ErrNotFinite where the
// full-matrix solve (fixed step) succeeded; now L doubles until the step
// is finite. Recover with rho = lambda^-60 reaches the same code.
func TestSolveTinyRho(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 100, 80, 4, 3))
	ctx := context.Background()
	for _, rho := range []float64{1e-200, neadmm.MinRho} { // MinRho: the smallest valid
		for _, ws := range []bool{false, true} {
			o := onebit.DefaultOptions()
			o.Lambda, o.Rho, o.WorkingSet = 10, rho, ws
			var s onebit.Solver
			x := make([]float64, 80)
			res, err := s.Solve(ctx, p, x, o)
			require.NoError(t, err, "Rho %g, WorkingSet %v", rho, ws)
			assert.InDelta(t, 1, norm(x), 1e-14, "Rho %g, WorkingSet %v", rho, ws)
			assert.False(t, math.IsNaN(res.Objective), "Rho %g, WorkingSet %v", rho, ws)
		}
	}
	ro := onebit.DefaultRecoverOptions()
	ro.RhoPower = -60 // rho = lambda^-60: 1e-120 at the first stage
	var s onebit.Solver
	x := make([]float64, 80)
	_, err := s.Recover(ctx, p, x, ro)
	require.NoError(t, err)
	assert.InDelta(t, 1, norm(x), 1e-14)
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

// TestMetricsRange guards AngularError and SNR on finite non-zero vectors
// whose norm overflows (it gave NaN, which the docs reserve for a zero or
// non-finite input) or is subnormal (x/||x|| was not a unit vector: a
// wrong angle, 0.108 for two parallel vectors). The unit vectors are
// formed after an exact power-of-two scaling, so parallel vectors give an
// angle of 0 exactly here (both unit vectors round to the same numbers)
// and an SNR of +Inf; the tolerance of 1e-15 on the others allows the
// last bits of the normalization.
func TestMetricsRange(t *testing.T) {
	const big = math.MaxFloat64
	for _, c := range []struct {
		x, xhat []float64
		ang     float64
	}{
		{[]float64{big, big}, []float64{1, 1}, 0},
		{[]float64{5e-324, 5e-324}, []float64{1, 1}, 0},
		{[]float64{3e-320, 4e-320}, []float64{3, 4}, 0},
		{[]float64{big, -big}, []float64{1, 1}, 0.5},
		{[]float64{-big, -big}, []float64{5e-324, 5e-324}, 1},
		{[]float64{big, 0}, []float64{5e-324, 5e-324}, 0.25},
	} {
		a := onebit.AngularError(c.x, c.xhat)
		if c.ang == 0 {
			if a != 0 {
				t.Errorf("AngularError(%v, %v) = %v, want 0", c.x, c.xhat, a)
			}
			if s := onebit.SNR(c.x, c.xhat); !math.IsInf(s, 1) {
				t.Errorf("SNR(%v, %v) = %v, want +Inf", c.x, c.xhat, s)
			}
			continue
		}
		if math.Abs(a-c.ang) > 1e-15 {
			t.Errorf("AngularError(%v, %v) = %v, want %v", c.x, c.xhat, a, c.ang)
		}
		// ||a - b|| = 2 sin(pi*ang/2) for unit vectors at the angle pi*ang.
		want := -20 * math.Log10(2*math.Sin(math.Pi*c.ang/2))
		if s := onebit.SNR(c.x, c.xhat); math.Abs(s-want) > 1e-13 {
			t.Errorf("SNR(%v, %v) = %v, want %v", c.x, c.xhat, s, want)
		}
	}
	// Zero and non-finite inputs are still NaN.
	for _, bad := range [][]float64{{0, 0}, {big, math.Inf(1)}, {math.NaN(), big}} {
		assert.True(t, math.IsNaN(onebit.AngularError(bad, []float64{1, 1})), "%v", bad)
		assert.True(t, math.IsNaN(onebit.SNR([]float64{1, 1}, bad)), "%v", bad)
	}
}

// TestBIHTZeroBackprojection guards BIHT's estimate when Phi^T y = 0: its
// first iterate is zero, a fixed point, and it returned the zero vector
// with a nil error although x/||x|| is documented to be written into x.
// It now returns e_1, as Passive (and Solve's start) do in that case, with
// e_1's Hamming distance. Exact comparisons: nothing is rounded.
func TestBIHTZeroBackprojection(t *testing.T) {
	// 2 x 3, every column (1, 1): Phi^T y = 0 for y = (1, -1).
	p, err := onebit.NewProblem([]float64{1, 1, 1, 1, 1, 1}, 2, 3, []float64{1, -1})
	require.NoError(t, err)
	x := []float64{7, 7, 7}
	res, err := onebit.BIHT(context.Background(), p, x, onebit.BIHTOptions{K: 1, MaxIter: 100})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 0, 0}, x)
	assert.True(t, res.Fixed)
	assert.Equal(t, 0.5, res.Hamming) // Phi e_1 = (1, 1): the second sign disagrees
	assert.Equal(t, p.Hamming(x), res.Hamming)
	xp := make([]float64, 3)
	require.NoError(t, onebit.Passive(p, xp, 0))
	assert.Equal(t, xp, x, "Passive's estimate in the same case")

	// Column 1 of Phi = (1, -3; 1, -3) is (1, 1) but its row 1 is
	// (1, -3): the Hamming distance of e_1 is 0.5 (from the column), 0
	// if read from the row.
	p, err = onebit.NewProblem([]float64{1, -3, 1, -3}, 2, 2, []float64{1, -1})
	require.NoError(t, err)
	x = []float64{7, 7}
	res, err = onebit.BIHT(context.Background(), p, x, onebit.BIHTOptions{K: 1, MaxIter: 100})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 0}, x)
	assert.Equal(t, 0.5, res.Hamming)
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
