package mil

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLassoFuncGrad checks both forms of the beta-update's smooth part
// against its definition computed by hand on a small problem: with
// A = [X 1] and r = A theta - v, lassoDirect's f is ||r||^2/2, lassoGram's
// is ||r||^2/2 - ||v||^2/2 (it omits the constant), and both gradients are
// A^T r. FISTA runs here without backtracking or function restarts, so a
// wrong value of f would not show in a fit; any caller that used it would.
func TestLassoFuncGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const cols = 4
	bagPtr := []int{0, 2, 3, 6, 7}
	n := bagPtr[len(bagPtr)-1]
	x := make([]float64, n*cols)
	for i := range x {
		if rng.IntN(4) > 0 { // a quarter zeros, so the sparse path skips some
			x[i] = rng.NormFloat64()
		}
	}
	dense, err := NewDense(x, cols, bagPtr, []float64{0, 1, 0, 1})
	require.NoError(t, err)
	theta, v := randVec(rng, cols+1), randVec(rng, n)
	r := make([]float64, n)
	f, vv, mag := 0.0, 0.0, 0.0
	for i := range n {
		r[i] = theta[cols] - v[i]
		for j := range cols {
			r[i] += x[i*cols+j] * theta[j]
		}
		f += r[i] * r[i] / 2
		vv += v[i] * v[i] / 2
		mag += (math.Abs(theta[cols]) + math.Abs(v[i]) + 4) * (math.Abs(theta[cols]) + math.Abs(v[i]) + 4)
	}
	grad := make([]float64, cols+1)
	for i := range n {
		for j := range cols {
			grad[j] += x[i*cols+j] * r[i]
		}
		grad[cols] += r[i]
	}
	// Sums of at most 7 x 5 products of values of size ~1: 1e-12 is
	// thousands of roundings, while a missing 1/2 or a sign is of order 1.
	const tol = 1e-12
	for _, d := range []*Dataset{dense, convert(t, dense, Sparse)} {
		xv := newView(d)
		g := make([]float64, (cols+1)*(cols+1))
		require.NoError(t, xv.gram(context.Background(), g))
		for _, tc := range []struct {
			name string
			l    lassoProblem
			want float64
		}{
			{"direct", newLassoDirect(&xv), f},
			{"gram", newLassoGram(&xv, g), f - vv},
		} {
			tc.l.setRHS(v, 0.5)
			assert.InDelta(t, tc.want, tc.l.Func(theta), tol*mag, "%s sparse=%v: Func", tc.name, d.IsSparse())
			gr := make([]float64, cols+1)
			assert.InDelta(t, tc.want, tc.l.FuncGrad(gr, theta), tol*mag, "%s sparse=%v: FuncGrad's value", tc.name, d.IsSparse())
			assert.InDeltaSlice(t, grad, gr, tol*mag, "%s sparse=%v: gradient", tc.name, d.IsSparse())
		}
	}
}

// TestLipschitz checks the power iteration's bound on operators of known
// spectrum: the zero operator gives 1 (as documented: any step is exact),
// and diag(4, 1, 1/4) gives 1.01 (m + res) with m + res at or above its
// largest eigenvalue 4 (the Rayleigh quotient m alone is below it: the
// start is not an eigenvector, and the iterate is ~1e-3 away from e1 when
// res <= 1e-3 m stops it, so m + res exceeds 4 by ~3e-3, far above
// rounding) and at most 4 (1 + 1e-3) (the stopping residual).
func TestLipschitz(t *testing.T) {
	ctx := context.Background()
	l, err := lipschitz(ctx, 3, func(dst, _ []float64) { clear(dst) })
	require.NoError(t, err)
	assert.Equal(t, 1.0, l)
	diag := []float64{4, 1, 0.25}
	l, err = lipschitz(ctx, 3, func(dst, x []float64) {
		for i := range dst {
			dst[i] = diag[i] * x[i]
		}
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, l, 1.01*4)
	assert.LessOrEqual(t, l, 1.01*4*(1+1e-3))
}
