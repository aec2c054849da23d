package mil

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unlabeledPair returns the same two bags (three instances of two
// features) as a labelled and an unlabeled dataset.
func unlabeledPair(t *testing.T) (labelled, unlabeled *Dataset) {
	x := []float64{1, 0, 0, 2, 3, 0}
	labelled, err := NewDense(append([]float64(nil), x...), 2, []int{0, 2, 3}, []float64{1, 0})
	require.NoError(t, err)
	unlabeled, err = NewDense(x, 2, []int{0, 2, 3}, nil)
	require.NoError(t, err)
	return labelled, unlabeled
}

// TestUnlabeledDatasets: NewDense, NewSparse and a Builder given no labels
// make datasets without labels that score as the labelled ones do; their
// subsets and copies stay unlabeled.
func TestUnlabeledDatasets(t *testing.T) {
	labelled, d := unlabeledPair(t)
	assert.Nil(t, d.Labels())
	assert.Equal(t, 2, d.NumBags())
	assert.Equal(t, 0, d.Positives())
	sp, err := NewSparse([]int{0, 1, 2, 3}, []int32{0, 1, 0}, []float64{1, 2, 3}, 2, []int{0, 2, 3}, nil)
	require.NoError(t, err)
	b := NewBuilder(2)
	nan := math.NaN()
	require.NoError(t, b.AddDense("a", "1", nan, []float64{1, 0}))
	require.NoError(t, b.AddSparse("a", "2", nan, []int{1}, []float64{2}))
	require.NoError(t, b.AddDense("b", "3", nan, []float64{3, 0}))
	built, err := b.Build(nil)
	require.NoError(t, err)
	sub, err := d.Subset([]int{1, 0, 1})
	require.NoError(t, err)

	m := &Model{beta: []float64{0.5, -1}, beta0: 0.25}
	want, err := m.BagScores(labelled)
	require.NoError(t, err)
	for name, u := range map[string]*Dataset{
		"NewDense": d, "NewSparse": sp, "Builder": built, "sparse copy": convert(t, d, Sparse), "materialized": d.Materialize(),
	} {
		assert.Nil(t, u.Labels(), name)
		assert.Equal(t, 2, u.NumBags(), name)
		got, err := m.BagScores(u)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	assert.Nil(t, sub.Labels())
	assert.Equal(t, 3, sub.NumBags())
	got, err := m.BagScores(sub)
	require.NoError(t, err)
	assert.Equal(t, []float64{want[1], want[0], want[1]}, got)
	// Empty labels are still labels: none for bags that exist.
	_, err = NewDense([]float64{1}, 1, []int{0, 1}, []float64{})
	requireBadInput(t, err, false, "no bags")
}

// TestUnlabeledRefused: what needs labels refuses a dataset without them,
// saying so, with an error wrapping ErrBadInput.
func TestUnlabeledRefused(t *testing.T) {
	_, d := unlabeledPair(t)
	ctx := context.Background()
	_, err := Fit(ctx, d, DefaultOptions())
	requireBadInput(t, err, false, "Fit: dataset has no labels")
	_, _, err = FitCV(ctx, d, DefaultSearch())
	requireBadInput(t, err, false, "FitCV: dataset has no labels")
	_, err = KFold(2, 1, 1).Run(ctx, d, func(context.Context, *Dataset, *Dataset) ([]float64, error) { return nil, nil })
	requireBadInput(t, err, false, "Run: dataset has no labels")
	for name, f := range map[string]func([]float64, []float64) (float64, error){"AUC": AUC, "AveragePrecision": AveragePrecision} {
		v, err := f([]float64{1, 2}, d.Labels())
		requireBadInput(t, err, false, "2 scores and nil labels: the dataset has no labels")
		assert.ErrorIs(t, err, ErrLengthMismatch, name)
		assert.True(t, math.IsNaN(v), name)
	}
	_, err = Evaluate([]float64{1, 2}, d.Labels(), 0)
	requireBadInput(t, err, false, "the dataset has no labels")
}

// TestBuilderUnlabeledMixing: a Builder's bags have labels or none, not
// both; a refused instance leaves the Builder unchanged.
func TestBuilderUnlabeledMixing(t *testing.T) {
	nan := math.NaN()
	b := NewBuilder(1)
	require.NoError(t, b.AddDense("a", "1", 1, []float64{1}))
	requireBadInput(t, b.AddDense("b", "2", nan, []float64{2}), false, "labelled and unlabeled (NaN) instances mixed")
	var lc *LabelConflictError
	require.ErrorAs(t, b.AddSparse("a", "2", nan, nil, nil), &lc)
	assert.True(t, math.IsNaN(lc.Label))
	assert.Equal(t, 1, b.NumInstances())
	d, err := b.Build(nil)
	require.NoError(t, err)
	assert.Equal(t, []float64{1}, d.Labels())

	require.NoError(t, b.AddDense("a", "1", nan, []float64{1}))
	requireBadInput(t, b.AddDense("b", "2", 0, []float64{2}), false, "labelled and unlabeled (NaN) instances mixed")
	require.ErrorAs(t, b.AddDense("a", "2", 1, []float64{2}), &lc)
	require.NoError(t, b.AddDense("a", "2", nan, []float64{2}))
	d, err = b.Build(nil)
	require.NoError(t, err)
	assert.Nil(t, d.Labels())
	assert.Equal(t, 1, d.NumBags())
	assert.Equal(t, 2, d.NumInstances())
}
