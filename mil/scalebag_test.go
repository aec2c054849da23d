package mil

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBagDeviations checks ScaleBag's statistics against a hand count,
// dense and sparse: column 0 has bag means 2 and 5 (sd 1.5), column 1
// bag means 1 and 1 with varying instances (keeps the instances' sd),
// column 2 is constant.
func TestBagDeviations(t *testing.T) {
	x := []float64{
		1, 0, 7,
		3, 2, 7, // bag 0: means 2, 1, 7
		5, 1, 7, // bag 1: means 5, 1, 7
	}
	for _, sparse := range []bool{false, true} {
		d, err := NewDense(append([]float64(nil), x...), 3, []int{0, 2, 3}, []float64{0, 1})
		require.NoError(t, err)
		if sparse {
			d, err = d.Convert(Sparse)
			require.NoError(t, err)
		}
		st, err := fitColumns(context.Background(), d)
		require.NoError(t, err)
		inst := append([]float64(nil), st.sd...)
		require.NoError(t, bagDeviations(context.Background(), d, st))
		assert.InDelta(t, 1.5, st.sd[0], 1e-15, "sparse %v", sparse)
		assert.Equal(t, inst[1], st.sd[1], "sparse %v", sparse)
		assert.True(t, st.constant[2])
		assert.Equal(t, sparse, d.IsSparse())
		assert.Equal(t, inst[2], st.sd[2])
	}
}

// TestScaleBagMeanIsBagMeanLR: with mean pooling and ScaleBag, Fit solves
// L1 logistic regression on the bags' mean features standardized over the
// bags, so it reaches the objective of ScaleAuto on the dataset of bag
// means (one instance per bag) and about the same bag scores, to the
// solvers' tolerance: measured 1e-4 relative on the objective and 2% on
// the scores (the neADMM fit of the bags stops on a flat objective; the
// tolerances below are 2x and 2.5x that). With ScaleAuto instead the
// penalty weighs the features differently: 10% off the objective.
func TestScaleBagMeanIsBagMeanLR(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 80, Features: 6, MinInstances: 1, MaxInstances: 8, Margin: 0.5, Seed: 81})
	require.NoError(t, err)
	nf := d.NumFeatures()
	ptr := d.BagPtr()
	means := make([]float64, d.NumBags()*nf)
	row := make([]float64, nf)
	one := make([]int, d.NumBags()+1)
	for k := range d.NumBags() {
		one[k+1] = k + 1
		for i := ptr[k]; i < ptr[k+1]; i++ {
			require.NoError(t, d.Row(row, i))
			for j, v := range row {
				means[k*nf+j] += v / float64(ptr[k+1]-ptr[k])
			}
		}
	}
	md, err := NewDense(means, nf, one, append([]float64(nil), d.Labels()...))
	require.NoError(t, err)
	opt := DefaultOptions()
	opt.Pooling = MeanPooling()
	opt.EpsAbs, opt.ObjTol, opt.MaxIter = 1e-7, 1e-10, 20000
	opt.Scaling = ScaleAuto
	ref, err := Fit(context.Background(), md, opt)
	require.NoError(t, err)
	opt.Scaling = ScaleBag
	bag, err := Fit(context.Background(), d, opt)
	require.NoError(t, err)
	opt.Scaling = ScaleAuto
	inst, err := Fit(context.Background(), d, opt)
	require.NoError(t, err)
	ro, bo, io := ref.Result().Objective, bag.Result().Objective, inst.Result().Objective
	t.Logf("objectives: bag-mean LR %.10g, ScaleBag %.10g, ScaleAuto %.10g", ro, bo, io)
	assert.InDelta(t, ro, bo, 2e-4*ro)
	assert.Greater(t, math.Abs(io-ro), 2e-2*ro, "ScaleAuto should be another problem")
	qr, err := ref.BagScores(md)
	require.NoError(t, err)
	qb, err := bag.BagScores(d)
	require.NoError(t, err)
	for k := range qr {
		assert.InDelta(t, qr[k], qb[k], 0.05*(1+math.Abs(qr[k])), "bag %d", k)
	}
}
