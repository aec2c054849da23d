package mil

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProblemStartForgetsPools: Start begins a solve whose t is new, so
// the per-bag pools cached from an earlier solve's t are recomputed (Fit
// and FitCV build a fresh problem per solve; the Starter contract holds
// for a problem solved twice).
func TestProblemStartForgetsPools(t *testing.T) {
	p := &problem{bagPtr: []int{0, 2, 3}, nb: 2, tpool: make([]float64, 2), scratch: make([]float64, 2)}
	require.NoError(t, p.Start(context.Background(), nil, []float64{1, 2, -1}, nil))
	assert.Equal(t, []float64{2, -1}, p.bagPools([]float64{1, 2, -1}))
	t2 := []float64{5, 3, 4}
	require.NoError(t, p.Start(context.Background(), nil, t2, nil))
	assert.Equal(t, []float64{5, 4}, p.bagPools(t2))
}

// TestProblemObjectiveBiasUnpenalized: the ADMM objective is
// sum_i w_i log(1 + exp(-s_i q_i)) + lambda ||beta||_1 with the bias
// beta0 unpenalized: at q = (0, 0), beta = (2, -3), beta0 = 5, weights
// (1, 3) and lambda 0.5 it is log 2 + 3 log 2 + 0.5 x 5.
func TestProblemObjectiveBiasUnpenalized(t *testing.T) {
	p := &problem{nb: 2, nf: 2, sign: []float64{1, -1}, weight: []float64{1, 3}, lambda: 0.5}
	x1 := []float64{0, 0, 2, -3, 5}
	assert.InDelta(t, 4*math.Ln2+2.5, p.Objective(x1, nil), 1e-15)
}

// TestProblemConstraint1FollowsTheta: Constraint1 is f1(x1) = (q, -X beta
// - beta0) at the x1 it is given: the cached X beta + beta0 is reused
// only for the theta it was computed at, not for a new one (instances 1,
// 2, 3 of one feature: -(x beta + beta0) by hand).
func TestProblemConstraint1FollowsTheta(t *testing.T) {
	d, err := NewDense([]float64{1, 2, 3}, 1, []int{0, 2, 3}, []float64{1, 0})
	require.NoError(t, err)
	p := &problem{x: newView(d), bagPtr: d.BagPtr(), nb: 2, nf: 1, xb: make([]float64, 3), xbTheta: make([]float64, 2)}
	dst := make([]float64, 5)
	p.Constraint1(dst, []float64{7, 8, 1, 0})
	assert.Equal(t, []float64{7, 8, -1, -2, -3}, dst)
	p.Constraint1(dst, []float64{7, 8, 2, 1})
	assert.Equal(t, []float64{7, 8, -3, -5, -7}, dst)
}
