package mil

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBagMaxes: bagMaxes against the per-feature maxima, dense and sparse
// and on a subset; in a sparse bag an entry one instance does not store is
// a 0 that takes part in the max (column 2 of bag 0: -5 and two zeros).
func TestBagMaxes(t *testing.T) {
	x := summaryRows
	want := [][]float64{
		{-1, 4, 0, 3},
		{-4, 3, -6, -2},
		{-6, 0, 0, -1},
	}
	cases := summaryCases(t, x)
	d0 := cases[0].d
	row := make([]float64, 4)
	for _, tc := range cases {
		md, err := bagMaxes(context.Background(), tc.d)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.d.NumBags(), md.NumInstances(), tc.name)
		assert.Equal(t, tc.d.IsSparse(), md.IsSparse(), tc.name)
		assert.Equal(t, tc.d.Labels(), md.Labels(), tc.name)
		for k, b := range tc.order {
			require.NoError(t, md.Row(row, k))
			assert.Equal(t, want[b], row, "%s: bag %d", tc.name, k)
		}
	}
	// The bag scores of a feature-max model are those rows times beta,
	// the zeros a sparse row does not store included.
	m := &Model{beta: []float64{1, -2, 3, 0.5}, beta0: 0.25, opt: Options{Pooling: FeatureMaxPooling()}}
	for _, dd := range []*Dataset{d0, convert(t, d0, Sparse)} {
		got, err := m.BagScores(dd)
		require.NoError(t, err)
		for k, w := range want {
			assert.Equal(t, 0.25+w[0]-2*w[1]+3*w[2]+0.5*w[3], got[k], "sparse %v, bag %d", dd.IsSparse(), k)
		}
	}
	summaryCancels(t, bagMaxes)
}

// featMaxData returns bags whose labels follow the sum of the maxima of
// features 0-4 over each bag (cut at the median, 5% of the labels
// flipped): a rule no pooling of instance scores expresses.
func featMaxData(t *testing.T, bags int, seed uint64) *Dataset {
	t.Helper()
	return bagRuleData(t, bags, rand.NewPCG(seed, 3), func(_, mx [6]float64) float64 {
		return mx[0] + mx[1] + mx[2] + mx[3] + mx[4]
	})
}

// bagRuleData returns bags of 3 to 10 instances of 12 standard normal
// features drawn from src, labelled 1 when score(mean, max), of the means
// and maxima of features 0-5 over the bag, is above its median, with 5%
// of the labels flipped.
func bagRuleData(t *testing.T, bags int, src rand.Source, score func(mean, mx [6]float64) float64) *Dataset {
	t.Helper()
	r := rand.New(src)
	const nf = 12
	var x []float64
	bp := []int{0}
	scores := make([]float64, bags)
	for k := range bags {
		n := 3 + r.IntN(8)
		var mean, mx [6]float64
		for i := range mx {
			mx[i] = math.Inf(-1)
		}
		for range n {
			for j := range nf {
				v := r.NormFloat64()
				x = append(x, v)
				if j < len(mx) {
					mean[j] += v / float64(n)
					mx[j] = max(mx[j], v)
				}
			}
		}
		scores[k] = score(mean, mx)
		bp = append(bp, bp[k]+n)
	}
	return medianLabels(t, x, nf, bp, scores, r)
}

// TestFeatureMaxFit: a FeatureMaxPooling fit scores bags by their feature
// maxima times its coefficients, dense and sparse alike, without
// allocating; it is the fit on the bag maxima (the same coefficients); it
// ranks held-out bags of the feature-max rule well where the max pooling
// cannot.
func TestFeatureMaxFit(t *testing.T) {
	ctx := context.Background()
	train, test := splitAt(t, featMaxData(t, 240, 1), 160)
	opt := DefaultOptions()
	opt.Pooling = FeatureMaxPooling()
	m, err := Fit(ctx, train, opt)
	require.NoError(t, err)
	assert.Equal(t, FeatureMaxPooling(), m.Pooling())
	beta, beta0 := m.Coefficients()

	// The bag score, by hand from the instances.
	scores, err := m.BagScores(test)
	require.NoError(t, err)
	row := make([]float64, test.NumFeatures())
	for k := range test.NumBags() {
		a, b := test.BagRange(k)
		mx := make([]float64, test.NumFeatures())
		for j := range mx {
			mx[j] = math.Inf(-1)
		}
		for i := a; i < b; i++ {
			require.NoError(t, test.Row(row, i))
			for j, v := range row {
				mx[j] = max(mx[j], v)
			}
		}
		want, scale := beta0, math.Abs(beta0)
		for j, v := range mx {
			want += beta[j] * v
			scale += math.Abs(beta[j] * v)
		}
		// 13 terms summed in two orders: a few ulps of the terms' sum.
		assert.InDelta(t, want, scores[k], 32*0x1p-52*scale, "bag %d", k)
	}
	checkSparseScores(t, m, test, scores)

	// The same fit as on the bag maxima, one row per bag.
	bm, err := bagMaxes(ctx, train)
	require.NoError(t, err)
	o2 := opt
	o2.Pooling = MaxPooling() // one instance per bag: any pooling is the identity
	m2, err := Fit(ctx, bm, o2)
	require.NoError(t, err)
	beta2, beta02 := m2.Coefficients()
	assert.InDelta(t, beta02, beta0, 1e-9)
	for j := range beta {
		assert.InDelta(t, beta2[j], beta[j], 1e-9, "beta[%d]", j)
	}

	met, err := Evaluate(scores, test.Labels(), 0)
	require.NoError(t, err)
	mm, err := Fit(ctx, train, DefaultOptions())
	require.NoError(t, err)
	ms, err := mm.BagScores(test)
	require.NoError(t, err)
	mmet, err := Evaluate(ms, test.Labels(), 0)
	require.NoError(t, err)
	t.Logf("held-out AUC: feature max %.3f, max pooling %.3f", met.AUC, mmet.AUC)
	assert.Greater(t, met.AUC, 0.8)
	assert.Greater(t, met.AUC, mmet.AUC+0.05)
}

// TestFitCVFeatureMax: the max and mean poolings with the feature-wise
// max added (DefaultSearch's grid before the feature-wise mean and max
// joined it, without its anchor) choose the feature-wise max where the
// labels follow the features' maxima, and not on a planted max rule;
// FeatureMaxSE gates it (a huge one never chooses it) and must be finite
// and >= 0. DefaultSearch with it added chooses a model of the bags'
// feature maxima there too (the feature-wise max, or its mean and max).
func TestFitCVFeatureMax(t *testing.T) {
	ctx := context.Background()
	d := featMaxData(t, 200, 2)
	withFM := func() Search {
		s := DefaultSearch()
		s.Poolings = []Pooling{MaxPooling(), MeanPooling(), FeatureMaxPooling()}
		s.MinTestBags, s.AnchorSE = 0, 0
		return s
	}
	s0 := DefaultSearch()
	s0.Poolings = append(s0.Poolings, FeatureMaxPooling())
	_, sel0, err := FitCV(ctx, d, s0)
	require.NoError(t, err)
	assert.Contains(t, []PoolKind{PoolFeatureMax, PoolFeatureMeanMax}, sel0.Best.Pooling.Kind, "%v", sel0.Best)

	s := withFM()
	m, sel, err := FitCV(ctx, d, s)
	require.NoError(t, err)
	assert.Equal(t, PoolFeatureMax, sel.Best.Pooling.Kind, "%v", sel.Best)
	assert.False(t, sel.Ensembled)
	assert.Equal(t, FeatureMaxPooling(), m.Pooling())

	s.FeatureMaxSE = 1e9
	_, sel, err = FitCV(ctx, d, s)
	require.NoError(t, err)
	assert.NotEqual(t, PoolFeatureMax, sel.Best.Pooling.Kind, "%v", sel.Best)
	if sel.Ensemble != nil {
		for _, i := range sel.Ensemble.Members {
			assert.NotEqual(t, PoolFeatureMax, sel.Settings[i].Pooling.Kind, "ensemble member %v", sel.Settings[i])
		}
	}

	planted, _, err := Synthetic(SynthConfig{Bags: 200, Features: 10, MinInstances: 2, MaxInstances: 6, Relevant: 3, Margin: 1, Seed: 5})
	require.NoError(t, err)
	_, sel, err = FitCV(ctx, planted, withFM())
	require.NoError(t, err)
	assert.NotEqual(t, PoolFeatureMax, sel.Best.Pooling.Kind, "%v", sel.Best)

	for _, v := range []float64{-1, math.NaN(), math.Inf(1)} {
		s := withFM()
		s.FeatureMaxSE = v
		_, _, err := FitCV(ctx, d, s)
		assert.ErrorIs(t, err, ErrBadInput, "FeatureMaxSE = %g", v)
		assert.ErrorContains(t, err, "FeatureMaxSE")
	}
	assert.Equal(t, "featmax", FeatureMaxPooling().String())
	assert.NoError(t, FeatureMaxPooling().Validate())
}

// checkSparseScores checks that m scores test stored sparse as it scored
// it dense (scores), and without allocating, both ways (the sparse path
// gathers the bags' columns in a pooled scratch).
func checkSparseScores(t *testing.T, m *Model, test *Dataset, scores []float64) {
	t.Helper()
	sparse := convert(t, test, Sparse)
	ss, err := m.BagScores(sparse)
	require.NoError(t, err)
	for k := range ss {
		assert.InDelta(t, scores[k], ss[k], 1e-12*(1+math.Abs(scores[k])), "sparse bag %d", k)
	}
	dst, inst := make([]float64, test.NumBags()), make([]float64, test.NumInstances())
	if !raceEnabled { // the pooled scratch is dropped at random under -race
		assert.Zero(t, testing.AllocsPerRun(10, func() { _ = m.BagScoresTo(dst, inst, sparse) }))
		assert.Zero(t, testing.AllocsPerRun(10, func() { _ = m.BagScoresTo(dst, inst, test) }))
	}
}
