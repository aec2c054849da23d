package mil

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZeroDatasetAccessors: a nil or zero Dataset has no bags, no
// instances and no features; every accessor answers so without a panic,
// the methods returning an error refuse it with ErrBadInput, and
// Materialize returns it.
func TestZeroDatasetAccessors(t *testing.T) {
	for name, d := range map[string]*Dataset{"nil": nil, "zero": {}} {
		noPanic(t, name, func() {
			assert.Zero(t, d.NumBags(), name)
			assert.Zero(t, d.NumInstances(), name)
			assert.Zero(t, d.NumFeatures(), name)
			assert.False(t, d.IsSparse(), name)
			assert.Nil(t, d.BagPtr(), name)
			assert.Nil(t, d.Labels(), name)
			assert.Zero(t, d.Positives(), name)
			assert.Zero(t, d.NNZ(), name)
			assert.Zero(t, d.Density(), name)
			assert.Same(t, d, d.Materialize(), name)
		})
		requireBadInput(t, d.Row(nil, 0), false, "Dataset.Row: ")
		_, err := d.Subset([]int{0})
		requireBadInput(t, err, false, "Subset: ")
		_, err = d.Convert(Dense)
		requireBadInput(t, err, false, "Convert: ")
		for fn, f := range map[string]func(){
			"MulVec":      func() { d.MulVec(nil, nil, 0) },
			"MulTransVec": func() { d.MulTransVec(nil, nil) },
			"Gram":        func() { d.Gram(make([]float64, 1)) },
		} {
			assert.PanicsWithValue(t, "mil.Dataset."+fn+": nil or zero Dataset", f, "%s %s", name, fn)
		}
	}
}

// TestZeroBuilder: the zero Builder is NewBuilder(0); a nil one refuses
// every call with ErrBadInput.
func TestZeroBuilder(t *testing.T) {
	var b Builder
	require.NoError(t, b.AddDense("x", "i", 1, []float64{1, 2}))
	require.NoError(t, b.AddSparse("y", "j", 0, []int{1}, []float64{3}))
	assert.Equal(t, 2, b.NumInstances())
	d, err := b.Build(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"x/i/1 2/1", "y/j/0 3/0"}, dump(d))

	var nb *Builder
	assert.Zero(t, nb.NumInstances())
	requireBadInput(t, nb.AddDense("x", "i", 1, []float64{1}), false, "Builder.AddDense: nil Builder")
	requireBadInput(t, nb.AddSparse("x", "i", 1, nil, nil), false, "Builder.AddSparse: nil Builder")
	_, err = nb.Build(nil)
	requireBadInput(t, err, false, "Builder.Build: nil Builder")
}

// TestZeroModelScalerReport: the zero Model and the zero Scaler have no
// features and refuse data that has some (a nil Scaler refuses all); a
// nil Report answers without a panic.
func TestZeroModelScalerReport(t *testing.T) {
	d := twoConceptData(t, 10, 1)
	var m Model
	assert.Zero(t, m.NumFeatures())
	_, err := m.BagScores(d)
	requireBadInput(t, err, false, "dataset has 10 features, model 0")
	_, err = m.Witnesses(d)
	require.ErrorIs(t, err, ErrBadInput)

	for name, s := range map[string]*Scaler{"nil": nil, "zero": {}} {
		_, err := s.Apply(context.Background(), d)
		require.ErrorIs(t, err, ErrBadInput, name)
		one := []float64{1}
		_, err = s.ToRaw(one, one, 0)
		require.ErrorIs(t, err, ErrBadInput, name)
		_, err = s.FromRaw(one, one, 0)
		require.ErrorIs(t, err, ErrBadInput, name)
	}
	b0, err := (&Scaler{}).ToRaw(nil, nil, 2)
	require.NoError(t, err)
	assert.Equal(t, 2.0, b0)

	var r *Report
	noPanic(t, "nil Report", func() {
		sc, lab := r.Pooled()
		assert.Nil(t, sc)
		assert.Nil(t, lab)
		assert.Equal(t, "<nil>", r.String())
		_, err := r.PooledROC()
		assert.ErrorIs(t, err, ErrEmpty)
		_, err = r.PooledPR()
		assert.ErrorIs(t, err, ErrEmpty)
	})
	assert.Contains(t, (&Report{}).String(), "(0 splits")
}

// TestNilContextsRefused: every call taking a context refuses a nil one
// with ErrBadInput, before any work.
func TestNilContextsRefused(t *testing.T) {
	d := twoConceptData(t, 20, 1)
	s, err := FitScaler(context.Background(), d)
	require.NoError(t, err)
	var nilCtx context.Context
	score := func(context.Context, *Dataset, *Dataset) ([]float64, error) { return nil, nil }
	for name, f := range map[string]func() error{
		"Fit":          func() error { _, err := Fit(nilCtx, d, DefaultOptions()); return err },
		"FitCV":        func() error { _, _, err := FitCV(nilCtx, d, DefaultSearch()); return err },
		"FitScaler":    func() error { _, err := FitScaler(nilCtx, d); return err },
		"Scaler.Apply": func() error { _, err := s.Apply(nilCtx, d); return err },
		"Run":          func() error { _, err := KFold(2, 1, 1).Run(nilCtx, d, score); return err },
	} {
		var err error
		noPanic(t, name, func() { err = f() })
		requireBadInput(t, err, false, "nil context")
	}
}

// TestInputErrorsMatchBadInput: errors an input causes that did not match
// ErrBadInput: a NaN threshold, and a score function returning the wrong
// number of scores.
func TestInputErrorsMatchBadInput(t *testing.T) {
	_, err := ConfusionAt([]float64{1}, []float64{1}, nanf())
	requireBadInput(t, err, false, "ConfusionAt: NaN threshold")
	d := twoConceptData(t, 20, 1)
	_, err = KFold(2, 1, 1).Run(context.Background(), d, func(context.Context, *Dataset, *Dataset) ([]float64, error) {
		return []float64{1}, nil
	})
	requireBadInput(t, err, false, "the score function returned 1 scores for 10 test bags")
}

func nanf() float64 { z := 0.0; return z / z }
