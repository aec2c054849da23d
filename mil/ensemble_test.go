package mil

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ensembleParts fits a max-pooling and a mean-pooling model on train.
func ensembleParts(t *testing.T, train *Dataset) (*Model, *Model) {
	t.Helper()
	a, err := Fit(context.Background(), train, DefaultOptions())
	require.NoError(t, err)
	opt := DefaultOptions()
	opt.Pooling, opt.Lambda, opt.Scaling = MeanPooling(), 0.003, ScaleNone
	b, err := Fit(context.Background(), train, opt)
	require.NoError(t, err)
	return a, b
}

func TestEnsemble(t *testing.T) {
	for _, density := range []float64{1, 0.1} {
		_, train, test, _ := synthSplit(t, SynthConfig{Bags: 80, Features: 12, MinInstances: 1, MaxInstances: 7, Density: density, Seed: 61}, 50)
		a, b := ensembleParts(t, train)
		e, err := Ensemble(a, b)
		require.NoError(t, err)
		assert.Equal(t, []*Model{a, b}, e.Parts())
		assert.Equal(t, []float64{0.5, 0.5}, e.Weights())
		assert.Nil(t, a.Parts())
		assert.Nil(t, a.Weights())
		assert.Equal(t, a.Options(), e.Options())
		assert.Equal(t, MaxPooling(), e.Pooling())
		assert.Equal(t, 12, e.NumFeatures())

		qa, err := a.BagScores(test)
		require.NoError(t, err)
		qb, err := b.BagScores(test)
		require.NoError(t, err)
		q, err := e.BagScores(test)
		require.NoError(t, err)
		p, err := e.BagProbabilities(test)
		require.NoError(t, err)
		y, err := e.Predict(test)
		require.NoError(t, err)
		for k := range q {
			// 0.5 qa + 0.5 qb is (qa + qb)/2 up to one rounding of the sum.
			want := (qa[k] + qb[k]) / 2
			assert.InDelta(t, want, q[k], 1e-15*(math.Abs(qa[k])+math.Abs(qb[k])), "bag %d", k)
			assert.InDelta(t, 1/(1+math.Exp(-q[k])), p[k], 1e-15)
			assert.Equal(t, map[bool]float64{true: 1, false: 0}[q[k] >= 0], y[k])
		}
		// The test is not vacuous: the mean pooling moves some bags.
		assert.NotEqual(t, qa, q)

		// Instance scores, coefficients and witnesses: the mean model's.
		ta, _ := a.InstanceScores(test)
		tb, _ := b.InstanceScores(test)
		ti, err := e.InstanceScores(test)
		require.NoError(t, err)
		for i := range ti {
			assert.InDelta(t, (ta[i]+tb[i])/2, ti[i], 1e-12*(1+math.Abs(ta[i])+math.Abs(tb[i])))
		}
		ba, ca := a.Coefficients()
		bb, cb := b.Coefficients()
		be, ce := e.Coefficients()
		for j := range be {
			assert.Equal(t, 0.5*ba[j]+0.5*bb[j], be[j])
		}
		assert.Equal(t, 0.5*ca+0.5*cb, ce)
		w, err := e.Witnesses(test)
		require.NoError(t, err)
		ptr := test.BagPtr()
		for k, j := range w {
			for i := ptr[k]; i < ptr[k+1]; i++ {
				assert.GreaterOrEqual(t, ti[j], ti[i])
			}
			assert.True(t, j >= ptr[k] && j < ptr[k+1])
		}
		// The buffers are left as documented: inst holds the instance
		// scores after a bag-score call.
		inst := make([]float64, test.NumInstances())
		dst := make([]float64, test.NumBags())
		require.NoError(t, e.BagScoresTo(dst, inst, test))
		assert.Equal(t, q, dst)
		assert.Equal(t, ti, inst)
	}
}

// TestEnsembleOfOne checks that a one-part ensemble scores as its part,
// bit for bit (weight 1).
func TestEnsembleOfOne(t *testing.T) {
	_, train, test, _ := synthSplit(t, SynthConfig{Bags: 60, Features: 6, MinInstances: 1, MaxInstances: 5, Seed: 62}, 40)
	a, _ := ensembleParts(t, train)
	e, err := Ensemble(a)
	require.NoError(t, err)
	qa, _ := a.BagScores(test)
	q, err := e.BagScores(test)
	require.NoError(t, err)
	assert.Equal(t, qa, q)
	wa, _ := a.Witnesses(test)
	w, _ := e.Witnesses(test)
	assert.Equal(t, wa, w)
}

func TestEnsembleBadInput(t *testing.T) {
	_, train, _, _ := synthSplit(t, SynthConfig{Bags: 60, Features: 6, MinInstances: 1, MaxInstances: 5, Seed: 63}, 40)
	a, b := ensembleParts(t, train)
	e, err := Ensemble(a, b)
	require.NoError(t, err)
	d7, _, err := Synthetic(SynthConfig{Bags: 20, Features: 7, MinInstances: 1, MaxInstances: 3, Seed: 64})
	require.NoError(t, err)
	narrow, err := Fit(context.Background(), d7, DefaultOptions())
	require.NoError(t, err)
	for name, parts := range map[string][]*Model{
		"none":   nil,
		"nil":    {a, nil},
		"nested": {a, e},
		"width":  {a, narrow},
	} {
		_, err := Ensemble(parts...)
		assert.ErrorIs(t, err, ErrBadInput, name)
	}
	// A dataset of the wrong width is refused as by a single model.
	_, err = e.BagScores(d7)
	assert.ErrorIs(t, err, ErrBadInput)
}

func TestEnsemblePredictNoAlloc(t *testing.T) {
	for _, density := range []float64{1, 0.05} {
		_, train, test, _ := synthSplit(t, SynthConfig{Bags: 60, Features: 40, MinInstances: 1, MaxInstances: 6, Density: density, Seed: 65}, 40)
		a, b := ensembleParts(t, train)
		e, err := Ensemble(a, b)
		require.NoError(t, err)
		dst := make([]float64, test.NumBags())
		wit := make([]int, test.NumBags())
		inst := make([]float64, test.NumInstances())
		allocs := testing.AllocsPerRun(20, func() {
			_ = e.InstanceScoresTo(inst, test)
			_ = e.BagScoresTo(dst, inst, test)
			_ = e.BagProbabilitiesTo(dst, inst, test)
			_ = e.PredictTo(dst, inst, test)
			_ = e.WitnessesTo(wit, inst, test)
		})
		if allocs != 0 && !raceEnabled { // the pooled scratch is dropped at random under -race
			t.Errorf("density %v: %v allocations per prediction round", density, allocs)
		}
	}
}

// twoConceptData returns bags of 3 to 8 standard normal instances in 10
// features, positive when one instance scores high on features 0-1 and
// one (possibly another) on features 2-3, with 10% of the labels flipped:
// a rule no single pooling of one linear score expresses, where
// ensembles of settings can help.
func twoConceptData(t *testing.T, bags int, seed uint64) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 99))
	const nf = 10
	var x []float64
	ptr := []int{0}
	labels := make([]float64, bags)
	for k := range labels {
		n := 3 + r.IntN(6)
		m1, m2 := math.Inf(-1), math.Inf(-1)
		for range n {
			row := make([]float64, nf)
			for j := range row {
				row[j] = r.NormFloat64()
			}
			m1, m2 = max(m1, row[0]+row[1]), max(m2, row[2]+row[3])
			x = append(x, row...)
		}
		ptr = append(ptr, ptr[len(ptr)-1]+n)
		if min(m1, m2) > 1.2 {
			labels[k] = 1
		}
		if r.Float64() < 0.1 {
			labels[k] = 1 - labels[k]
		}
	}
	d, err := NewDense(x, nf, ptr, labels)
	require.NoError(t, err)
	return d
}

// An ensemble counts its non-zero mean coefficients of either sign: parts
// (-1, 0, 2) and (-1, 0, 0) average to (-1, 0, 1), two non-zeros.
func TestEnsembleNonZeroCountsNegatives(t *testing.T) {
	e, err := Ensemble(&Model{beta: []float64{-1, 0, 2}}, &Model{beta: []float64{-1, 0, 0}})
	require.NoError(t, err)
	beta, _ := e.Coefficients()
	assert.Equal(t, []float64{-1, 0, 1}, beta)
	assert.Equal(t, 2, e.Result().NonZero)
}

// TestEnsembleRefusesEnsembleOfOne: an ensemble of one part is an
// ensemble (Parts is not nil), so it cannot be a part either.
func TestEnsembleRefusesEnsembleOfOne(t *testing.T) {
	m := &Model{beta: []float64{1, -2}, beta0: 0.5}
	e1, err := Ensemble(m)
	require.NoError(t, err)
	require.Len(t, e1.Parts(), 1)
	for _, parts := range [][]*Model{{e1}, {m, e1}, {e1, m}} {
		_, err := Ensemble(parts...)
		assert.ErrorIs(t, err, ErrBadInput)
	}
}
