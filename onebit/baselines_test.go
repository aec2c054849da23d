package onebit_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/onebit"
	"github.com/neadmm/neadmm/vec"
)

func TestBIHT(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(0); seed < 5; seed++ {
		// Many measurements for a 3-sparse signal: BIHT reaches a
		// consistent estimate on the true support, within a small angle.
		in := mustGenerate(t, 600, 100, 3, seed)
		p := mustProblem(t, in)
		x := make([]float64, 100)
		res, err := onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: 3, MaxIter: onebit.DefaultBIHTMaxIter})
		require.NoError(t, err)
		if res.Hamming != 0 || res.Fixed || res.Products != 2*res.Iterations || p.Hamming(x) != 0 {
			t.Errorf("seed %d: %+v, Hamming %g", seed, res, p.Hamming(x))
		}
		if nz := nonzeros(x); nz != 3 || math.Abs(vec.Nrm2(x)-1) > 1e-14 {
			t.Errorf("seed %d: %d non-zeros, norm %v", seed, nz, vec.Nrm2(x))
		}
		for _, j := range in.Support {
			if x[j] == 0 && math.Abs(in.X[j]) > 0.1 {
				t.Errorf("seed %d: support %v missed %d (x_j = %g)", seed, in.Support, j, in.X[j])
			}
		}
		// A consistent 3-sparse estimate on the right support from 600
		// measurements of a 3-dimensional direction: the consistent cell
		// has an angular width of order K/M = 0.005.
		if e := onebit.AngularError(in.X, x); e > 0.02 {
			t.Errorf("seed %d: angular error %g", seed, e)
		}
	}
}

func TestBIHTStops(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 200, 50, 5, 1))
	x := make([]float64, 50)
	ctx := context.Background()
	// K = 1 cannot be consistent with a 5-sparse signal's 200 signs.
	res, err := onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: 1, MaxIter: 7})
	if err != nil || res.Hamming == 0 || (res.Iterations != 7 && !res.Fixed) {
		t.Errorf("K = 1: %v %+v", err, res)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := onebit.BIHT(cctx, p, x, onebit.BIHTOptions{K: 5, MaxIter: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	for _, o := range []onebit.BIHTOptions{{K: 0, MaxIter: 1}, {K: 51, MaxIter: 1}, {K: 3, MaxIter: 0}} {
		if _, err := onebit.BIHT(ctx, p, x, o); !errors.Is(err, onebit.ErrBadInput) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	if _, err := onebit.BIHT(ctx, p, x[:3], onebit.BIHTOptions{K: 1, MaxIter: 1}); !errors.Is(err, onebit.ErrBadInput) {
		t.Errorf("short x: %v", err)
	}
}

func TestPassive(t *testing.T) {
	in := mustGenerate(t, 100, 30, 3, 4)
	p := mustProblem(t, in)
	a := make([]float64, 30)
	vec.MulTransVec(a, in.Phi, 100, 30, in.Y)
	vec.Scal(1.0/100, a) // Phi^T y / M
	x := make([]float64, 30)
	for _, th := range []float64{0, 0.05, 0.1} {
		require.NoError(t, onebit.Passive(p, x, th))
		want := make([]float64, 30)
		for j, v := range a {
			want[j] = math.Copysign(max(math.Abs(v)-th, 0), v)
		}
		vec.Scal(1/vec.Nrm2(want), want)
		for j := range x {
			if math.Abs(x[j]-want[j]) > 1e-14 {
				t.Fatalf("t = %g: x[%d] = %v, want %v", th, j, x[j], want[j])
			}
		}
	}
	// At and above max|a| the limit: the signed unit vector of the largest.
	jmax := 0
	for j, v := range a {
		if math.Abs(v) > math.Abs(a[jmax]) {
			jmax = j
		}
	}
	for _, th := range []float64{math.Abs(a[jmax]), 10} {
		require.NoError(t, onebit.Passive(p, x, th))
		if x[jmax] != math.Copysign(1, a[jmax]) || nonzeros(x) != 1 {
			t.Errorf("t = %g: %v, want ±e_%d", th, x, jmax)
		}
	}
	for _, th := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := onebit.Passive(p, x, th); !errors.Is(err, onebit.ErrBadInput) {
			t.Errorf("t = %g: %v", th, err)
		}
	}
}

func TestPassiveErrors(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 20, 10, 2, 1))
	require.ErrorIs(t, onebit.Passive(p, make([]float64, 3), 0), onebit.ErrBadInput)
	require.ErrorIs(t, onebit.Passive(nil, make([]float64, 10), 0), onebit.ErrBadInput)
	_, err := onebit.BIHT(context.Background(), nil, make([]float64, 10), onebit.BIHTOptions{K: 1, MaxIter: 1})
	require.ErrorIs(t, err, onebit.ErrBadInput)
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

// TestBIHTZeroBackprojectionCounts checks onebit.BIHT's fallback to e_1 when
// Phi^T y = 0 on a 3 x 2 Phi (columns (1, 1, 2) and (2, -1, 1), y = (1, 1,
// -1)) where e_1's Hamming distance is not 1/2: sign(Phi e_1) = (1, 1, 1)
// misses 1 sign of 3. The cost: the first product with Phi^T on y (no
// zero residual: a full product, work 1), the product with the zero
// iterate (no column: work 0) and e_1's column (1/N = 1/2): 3 products,
// work 3/2 (a sum of dyadic values: exact).
func TestBIHTZeroBackprojectionCounts(t *testing.T) {
	p, err := onebit.NewProblem([]float64{1, 2, 1, -1, 2, 1}, 3, 2, []float64{1, 1, -1})
	require.NoError(t, err)
	x := []float64{5, 5}
	res, err := onebit.BIHT(t.Context(), p, x, onebit.BIHTOptions{K: 1, MaxIter: 10})
	require.NoError(t, err)
	require.Equal(t, []float64{1, 0}, x)
	require.InDelta(t, 1.0/3, res.Hamming, 1e-15) // 1/3 rounded once
	require.Equal(t, 3, res.Products)
	require.Equal(t, 1.5, res.Work)
}

// TestPassiveMaxThreshold checks that onebit.Passive accepts the largest finite
// threshold (documented: finite and >= 0) and rejects +Inf: at
// t = MaxFloat64 every |(1/M) Phi^T y|_j is below t, so the estimate is
// sign((Phi^T y)_j) e_j at the largest magnitude; here Phi^T y = (1, -3).
func TestPassiveMaxThreshold(t *testing.T) {
	p, err := onebit.NewProblem([]float64{1, -1, 0, 2}, 2, 2, []float64{1, -1})
	require.NoError(t, err)
	x := make([]float64, 2)
	require.NoError(t, onebit.Passive(p, x, math.MaxFloat64))
	require.Equal(t, []float64{0, -1}, x)
	require.ErrorIs(t, onebit.Passive(p, x, math.Inf(1)), onebit.ErrBadInput)
}

// TestPassiveAtThreshold pins onebit.Passive at t equal to the largest
// |(Phi^T y)_j|/M (documented: "When t >= max_j ..." the signed unit
// vector of the largest), where the soft threshold is zero: Phi =
// diag(1, 3), so Phi^T y / M = (y_1/2, 3 y_2/2), exact, and t = 1.5.
func TestPassiveAtThreshold(t *testing.T) {
	for _, y2 := range []float64{1, -1} {
		p, err := onebit.NewProblem([]float64{1, 0, 0, 3}, 2, 2, []float64{1, y2})
		require.NoError(t, err)
		x := make([]float64, 2)
		require.NoError(t, onebit.Passive(p, x, 1.5))
		require.Equal(t, []float64{0, y2}, x)
	}
}
