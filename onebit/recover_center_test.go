package onebit

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

// TestCenterFalseOutliers checks that the final center takes back the
// measurements flagged as outliers when all the signs are separable on
// the support: without flipped signs, a nearly consistent estimate gives
// a cap so small that a slightly violated sign is flagged (1 instance of
// 20 at N = M = 4000), and the center of the rest need not satisfy it.
func TestCenterFalseOutliers(t *testing.T) {
	in, p := problemFor(t, GenOptions{M: 400, N: 50, K: 4, Seed: 5})
	var s Solver
	s.resize(p)
	s.fullInit(p, in.X)
	s.cell.maxIter = 200
	s.cell.out = growBools(s.cell.out, p.m)
	// Flag the signs nearest the boundary (the support vectors, which a
	// center without them would move past).
	ax := make([]float64, p.m)
	vec.MulVec(ax, p.phi, p.m, p.n, in.X)
	order := make([]int, p.m)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(math.Abs(ax[a]), math.Abs(ax[b])) })
	for _, i := range order[:3] {
		s.cell.out[i] = true
	}
	res := RecoverResult{Outliers: 3}
	partial, err := s.center(t.Context(), nil, p, s.cell.maxIter, &res)
	if err != nil || res.Outliers != 0 || !res.Centered || partial {
		t.Fatalf("%v: outliers %d, centered %v, partial %v: want 0, true, false", err, res.Outliers, res.Centered, partial)
	}
	x := make([]float64, p.n)
	s.unslot(x, s.x[:s.op.k])
	if h := p.Hamming(x); h != 0 {
		t.Errorf("the center violates %g of the signs, want none", h)
	}
	// Its margin is that of all the signs: no smaller than the truth's.
	normalize(x)
	vec.MulVec(ax, p.phi, p.m, p.n, x)
	mg := math.Inf(1)
	for i := range ax {
		row := p.phi[i*p.n : (i+1)*p.n]
		nr := 0.0
		for j, v := range in.X {
			if v != 0 {
				nr += row[j] * row[j]
			}
		}
		mg = min(mg, p.y[i]*ax[i]/math.Sqrt(nr))
	}
	if math.Abs(mg-res.Margin) > 1e-9 {
		t.Errorf("margin over all signs %g, reported %g", mg, res.Margin)
	}
}

// TestCenterTrimBoundary pins the final step's trim when the signs are
// not separable on the support: "the coordinates below 5% of the
// largest are dropped first" (noisyTrim), so one at exactly 5% stays.
// Rows (1, 1) and (-1, -1), both signs +1, are separable on no support;
// x = (1, 0.05) (0.05 x 1 is exactly 0.05) satisfies the first, whose
// center on both coordinates is (1, 1)/sqrt 2.
func TestCenterTrimBoundary(t *testing.T) {
	s, p := boundSolver(t, []float64{1, 1, -1, -1}, 2, 2, []float64{1, 0.05})
	var res RecoverResult
	_, err := s.center(context.Background(), nil, p, s.cell.maxIter, &res)
	require.NoError(t, err)
	require.Zero(t, res.Pruned)
	require.True(t, res.Centered)
	require.Equal(t, []int{0, 1}, s.support())
	require.InDelta(t, s.x[0], s.x[1], 1e-15)
}

// TestRecoverCenteredMargin checks RecoverResult's Centered and Margin
// together (Centered: the estimate was replaced by a center, whose margin
// is positive; a Margin of 0 or less left it as it was) on flipped signs
// with nothing flagged as an outlier (Cap 0) and no support search, where
// the signs are not separable on the support (the first center fails, and
// the center of the signs the estimate satisfies is taken).
func TestRecoverCenteredMargin(t *testing.T) {
	opt := DefaultRecoverOptions()
	opt.Cap, opt.Refit, opt.Prune, opt.Swap, opt.Regress = 0, false, false, false, false
	var s Solver
	x := make([]float64, 100)
	for seed := range uint64(3) {
		_, p := problemFor(t, GenOptions{M: 200, N: 100, K: 5, Flip: 0.05, Seed: seed})
		r, err := s.Recover(t.Context(), p, x, opt)
		require.NoError(t, err)
		require.Equal(t, r.Margin > 0, r.Centered, "seed %d: margin %g", seed, r.Margin)
		require.True(t, r.Centered, "seed %d", seed)
		require.Positive(t, r.Hamming, "seed %d: the signs were separable on the support", seed)
	}
}
