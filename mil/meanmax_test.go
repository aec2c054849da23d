package mil

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBagMeanMaxes: the rows of bagMeanMaxes are each bag's means (as
// bagMeans computes them, bit for bit) followed by its maxima, dense and
// sparse and on a subset; a sparse bag's unstored entries are zeros in
// both; the build checks ctx.
func TestBagMeanMaxes(t *testing.T) {
	x := summaryRows
	want := [][]float64{
		{-2, 7.0 / 3, -5.0 / 3, 1, -1, 4, 0, 3},
		{-4.5, 1, -6.5, -2.5, -4, 3, -6, -2},
		{-6, 0, 0, -1, -6, 0, 0, -1},
	}
	row, mrow := make([]float64, 8), make([]float64, 4)
	for _, tc := range summaryCases(t, x) {
		md, err := bagMeanMaxes(context.Background(), tc.d)
		require.NoError(t, err, tc.name)
		means, err := bagMeans(context.Background(), tc.d)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.d.NumBags(), md.NumInstances(), tc.name)
		require.Equal(t, 8, md.NumFeatures(), tc.name)
		assert.Equal(t, tc.d.IsSparse(), md.IsSparse(), tc.name)
		assert.Equal(t, tc.d.Labels(), md.Labels(), tc.name)
		for k, b := range tc.order {
			require.NoError(t, md.Row(row, k))
			require.NoError(t, means.Row(mrow, k))
			assert.Equal(t, mrow, row[:4], "%s: bag %d: the means are bagMeans'", tc.name, k)
			assert.InDeltaSlice(t, want[b], row, 1e-15, "%s: bag %d", tc.name, k)
			assert.Equal(t, want[b][4:], row[4:], "%s: bag %d: maxima", tc.name, k)
		}
	}
	summaryCancels(t, bagMeanMaxes)
}

// meanMaxData returns bags whose labels follow the sum of the means of
// features 0-2 and the maxima of features 3-5 over each bag (cut at the
// median, 5% of the labels flipped): a rule neither the mean pooling nor
// the feature-wise max expresses alone.
func meanMaxData(t *testing.T, bags int, seed uint64) *Dataset {
	t.Helper()
	return bagRuleData(t, bags, rand.NewPCG(seed, 4), func(mean, mx [6]float64) float64 {
		return 2*(mean[0]+mean[1]+mean[2]) + mx[3] + mx[4] + mx[5]
	})
}

// medianLabels returns the dataset of x with label 1 for the bags whose
// score is above the median, 5% of the labels flipped with r.
func medianLabels(t *testing.T, x []float64, nf int, bp []int, score []float64, r *rand.Rand) *Dataset {
	t.Helper()
	med := slices.Clone(score)
	slices.Sort(med)
	lab := make([]float64, len(score))
	for k := range lab {
		if score[k] > med[len(med)/2] {
			lab[k] = 1
		}
		if r.Float64() < 0.05 {
			lab[k] = 1 - lab[k]
		}
	}
	d, err := NewDense(x, nf, bp, lab)
	require.NoError(t, err)
	return d
}

// TestFeatureMeanMaxFit: a FeatureMeanMaxPooling fit scores bags by their
// feature means and maxima times its two coefficient vectors, dense and
// sparse alike, without allocating; it is the fit on the rows of
// bagMeanMaxes (the same coefficients); its instance scores are the
// scores of one-instance bags, its witnesses the instances scoring highest
// so; it ranks held-out bags of the mean-and-max rule better than either
// the mean pooling or the feature-wise max.
func TestFeatureMeanMaxFit(t *testing.T) {
	ctx := context.Background()
	train, test := splitAt(t, meanMaxData(t, 360, 1), 240)
	opt := DefaultOptions()
	opt.Pooling = FeatureMeanMaxPooling()
	m, err := Fit(ctx, train, opt)
	require.NoError(t, err)
	assert.Equal(t, FeatureMeanMaxPooling(), m.Pooling())
	assert.Equal(t, train.NumFeatures(), m.NumFeatures())
	a, b, beta0, ok := m.BagCoefficients()
	require.True(t, ok)
	require.Len(t, a, train.NumFeatures())
	require.Len(t, b, train.NumFeatures())
	nz := 0
	for j := range a {
		nz += btoi(a[j] != 0) + btoi(b[j] != 0)
	}
	assert.Equal(t, nz, m.Result().NonZero, "NonZero counts both parts")
	beta, beta0c := m.Coefficients()
	assert.Equal(t, beta0, beta0c)
	for j := range beta {
		assert.Equal(t, a[j]+b[j], beta[j], "instance coefficient %d", j)
	}

	// The bag score, by hand from the instances.
	scores, err := m.BagScores(test)
	require.NoError(t, err)
	row := make([]float64, test.NumFeatures())
	for k := range test.NumBags() {
		lo, hi := test.BagRange(k)
		mean, mx := make([]float64, len(row)), make([]float64, len(row))
		for j := range mx {
			mx[j] = math.Inf(-1)
		}
		for i := lo; i < hi; i++ {
			require.NoError(t, test.Row(row, i))
			for j, v := range row {
				mean[j] += v / float64(hi-lo)
				mx[j] = max(mx[j], v)
			}
		}
		want, scale := beta0, math.Abs(beta0)
		for j := range mx {
			want += a[j]*mean[j] + b[j]*mx[j]
			scale += math.Abs(a[j]*mean[j]) + math.Abs(b[j]*mx[j])
		}
		assert.InDelta(t, want, scores[k], 64*0x1p-52*scale, "bag %d", k)
	}
	checkSparseScores(t, m, test, scores)
	pred, err := m.Predict(test)
	require.NoError(t, err)
	for k, q := range scores {
		assert.Equal(t, float64(btoi(q >= 0)), pred[k], "bag %d", k)
	}

	// Instance scores are one-instance bags' scores; witnesses the best.
	is, err := m.InstanceScores(test)
	require.NoError(t, err)
	wit, err := m.Witnesses(test)
	require.NoError(t, err)
	for k := range test.NumBags() {
		lo, hi := test.BagRange(k)
		best := lo
		for i := lo; i < hi; i++ {
			if is[i] > is[best] {
				best = i
			}
		}
		assert.Equal(t, best, wit[k], "bag %d", k)
	}
	single, err := NewDense(firstRow(t, test), test.NumFeatures(), []int{0, 1}, []float64{1})
	require.NoError(t, err)
	sq, err := m.BagScores(single)
	require.NoError(t, err)
	assert.InDelta(t, is[0], sq[0], 1e-12*(1+math.Abs(sq[0])), "instance score = score of its one-instance bag")

	// The same fit as on the rows of bagMeanMaxes, one row per bag.
	bm, err := bagMeanMaxes(ctx, train)
	require.NoError(t, err)
	o2 := opt
	o2.Pooling = MaxPooling() // one instance per bag: any pooling is the identity
	m2, err := Fit(ctx, bm, o2)
	require.NoError(t, err)
	beta2, beta02 := m2.Coefficients()
	assert.InDelta(t, beta02, beta0, 1e-9)
	for j := range a {
		assert.InDelta(t, beta2[j], a[j], 1e-9, "a[%d]", j)
		assert.InDelta(t, beta2[len(a)+j], b[j], 1e-9, "b[%d]", j)
	}

	auc := func(p Pooling) float64 {
		o := DefaultOptions()
		o.Pooling = p
		mp, err := Fit(ctx, train, o)
		require.NoError(t, err)
		sc, err := mp.BagScores(test)
		require.NoError(t, err)
		v, err := AUC(sc, test.Labels())
		require.NoError(t, err)
		return v
	}
	mm, mean, fm := auc(FeatureMeanMaxPooling()), auc(MeanPooling()), auc(FeatureMaxPooling())
	t.Logf("held-out AUC: mean and max %.3f, mean %.3f, feature max %.3f", mm, mean, fm)
	assert.Greater(t, mm, mean+0.02)
	assert.Greater(t, mm, fm+0.02)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func firstRow(t *testing.T, d *Dataset) []float64 {
	t.Helper()
	row := make([]float64, d.NumFeatures())
	require.NoError(t, d.Row(row, 0))
	return row
}

// TestFitMeanMaxKKT checks that a FeatureMeanMaxPooling fit solves L1
// logistic regression on the (standardized over the bags, for ScaleAuto)
// rows of bag means and maxima by its optimality conditions, as
// TestFitMeanKKT does for the mean pooling, with its bounds: fox and
// synthetic bags dense and sparse, both scalings, lambda 0.03 and 0.01.
func TestFitMeanMaxKKT(t *testing.T) {
	fox, err := LoadFile(datadir.File(t, "fox.csv"), nil)
	require.NoError(t, err)
	syn := meanMaxData(t, 200, 5)
	data := map[string]*Dataset{"fox": fox, "synthetic": syn, "synthetic sparse": convert(t, syn, Sparse)}
	checkKKT(t, FeatureMeanMaxPooling(), data, func(d *Dataset) *Dataset {
		md, err := bagMeanMaxes(context.Background(), d)
		require.NoError(t, err)
		return md
	}, func(m *Model) ([]float64, float64) {
		a, b, beta0, ok := m.BagCoefficients()
		require.True(t, ok)
		return append(a, b...), beta0
	})
}

// TestFitMeanMaxCancel: a FeatureMeanMaxPooling fit, and FitCV with it in
// the grid and repeated folds, return ctx's error soon after it is
// cancelled at any point (building the bag rows, the setup, the solve).
func TestFitMeanMaxCancel(t *testing.T) {
	d := cancelData(t, true)
	n := 12
	if testing.Short() {
		n = 6
	}
	opt := DefaultOptions()
	opt.Pooling = FeatureMeanMaxPooling()
	// Tolerances that are never met and no iteration cap that matters:
	// the fits run until cancelled.
	opt.EpsAbs, opt.ObjTol, opt.MaxIter = 1e-300, 0, 1<<30
	lats := cancelLatencies(t, n, 500*time.Millisecond, func(ctx context.Context) error {
		m, err := Fit(ctx, d, opt)
		assert.Nil(t, m)
		return err
	})
	t.Logf("Fit, %d x %d dense, %d cancels: median %v, p90 %v, max %v", d.NumInstances(), d.NumFeatures(), len(lats),
		lats[len(lats)/2], lats[len(lats)*9/10], lats[len(lats)-1])
	s := DefaultSearch()
	s.Poolings = []Pooling{MeanPooling(), FeatureMeanMaxPooling()}
	s.Repeats = 3
	s.Base.EpsAbs, s.Base.ObjTol, s.Base.MaxIter = 1e-300, 0, 1<<30
	lats = cancelLatencies(t, n, 500*time.Millisecond, func(ctx context.Context) error {
		m, _, err := FitCV(ctx, d, s)
		assert.Nil(t, m)
		return err
	})
	t.Logf("FitCV: median %v, p90 %v, max %v", lats[len(lats)/2], lats[len(lats)*9/10], lats[len(lats)-1])
}
