package mil

import (
	"context"
	"fmt"
	"testing"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/neadmm/neadmm/internal/num"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scaledBy returns d's features times f (dense).
func scaledBy(t *testing.T, d *Dataset, f float64) *Dataset {
	t.Helper()
	x := make([]float64, d.NumInstances()*d.NumFeatures())
	row := make([]float64, d.NumFeatures())
	for i := range d.NumInstances() {
		require.NoError(t, d.Row(row, i))
		for j, v := range row {
			x[i*len(row)+j] = v * f
		}
	}
	out, err := NewDense(x, d.NumFeatures(), d.BagPtr(), d.Labels())
	require.NoError(t, err)
	return out
}

// TestFitNeverReturnsNonFiniteModel: a data set times 1e-308, 1e-309
// (subnormal features) or 1e-320 either fits a model whose coefficients
// and scores of its training bags are finite, or returns an error wrapping
// ErrBadInput and no model, for every scaling and kind of pooling; with
// ScaleAuto and the max pooling at 1e-309, where the standardized
// coefficients map back to infinite raw ones, it is the error. FitCV
// does the same.
func TestFitNeverReturnsNonFiniteModel(t *testing.T) {
	base := twoConceptData(t, 40, 3)
	for _, f := range []float64{1e-308, 1e-309, 1e-320} {
		d := scaledBy(t, base, f)
		for _, sc := range []Scaling{ScaleAuto, ScaleNone} {
			for _, pl := range []Pooling{MaxPooling(), MeanPooling(), TopKPooling(2), FeatureMaxPooling(), FeatureMeanMaxPooling()} {
				name := fmt.Sprintf("x%g %v %v", f, sc, pl)
				o := DefaultOptions()
				o.Scaling, o.Pooling, o.MaxIter = sc, pl, 100
				m, err := Fit(context.Background(), d, o)
				if err != nil {
					assert.Nil(t, m, name)
					requireBadInput(t, err, false, "rescale")
					continue
				}
				requireFiniteModel(t, m, d, name)
			}
		}
		s := smallSearch()
		s.Base.MaxIter = 100
		m, _, err := FitCV(context.Background(), d, s)
		if err != nil {
			assert.Nil(t, m)
			requireBadInput(t, err, false, "rescale")
		} else {
			requireFiniteModel(t, m, d, fmt.Sprintf("FitCV x%g", f))
		}
	}
	m, err := Fit(context.Background(), scaledBy(t, base, 1e-309), DefaultOptions())
	assert.Nil(t, m)
	requireBadInput(t, err, false, "mil: Fit: the coefficient of feature 1 on the raw features is -Inf: the features are too small in magnitude for the model's coefficients; rescale them")
}

func requireFiniteModel(t *testing.T, m *Model, d *Dataset, name string) {
	t.Helper()
	beta, beta0 := m.Coefficients()
	for j, b := range append(beta, beta0) {
		require.True(t, num.Finite(b), "%s: coefficient %d is %v", name, j, b)
	}
	_, err := m.BagScores(d)
	require.NoError(t, err, name)
}

// TestFitBytesRefit: a fit with Options.MaxBytes set to the Bytes that a
// fit of the same data and options reported passes every check, for every
// kind of pooling and scaling, on dense and sparse data, a dense subset
// (which a fit copies into one block) and a column that cannot be
// standardized by folding (a copy); half of it is refused.
func TestFitBytesRefit(t *testing.T) {
	dense := twoConceptData(t, 60, 5)
	sparse, err := dense.Convert(Sparse)
	require.NoError(t, err)
	sub, err := dense.Subset([]int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 21, 23, 25, 27, 29})
	require.NoError(t, err)
	shifted := shiftedColumn(t, dense)
	sets := map[string]*Dataset{"dense": dense, "sparse": sparse, "subset": sub, "shifted column": shifted}
	for name, d := range sets {
		for _, sc := range []Scaling{ScaleAuto, ScaleNone} {
			for _, pl := range []Pooling{MaxPooling(), MeanPooling(), TopKPooling(2), FeatureMaxPooling(), FeatureMeanMaxPooling()} {
				o := DefaultOptions()
				o.Scaling, o.Pooling, o.MaxIter = sc, pl, 1
				m, err := Fit(context.Background(), d, o)
				require.NoError(t, err, "%s %v %v", name, sc, pl)
				o.MaxBytes = m.Result().Bytes
				_, err = Fit(context.Background(), d, o)
				assert.NoError(t, err, "%s %v %v: refit with MaxBytes = Bytes = %d", name, sc, pl, o.MaxBytes)
				o.MaxBytes = m.Result().Bytes / 2
				_, err = Fit(context.Background(), d, o)
				assert.ErrorIs(t, err, ErrTooLarge, "%s %v %v: MaxBytes = Bytes/2", name, sc, pl)
			}
		}
	}
}

// TestFitBytesRefitVaccine: on vaccine with the mean pooling, Bytes is the
// estimate checked before the bag means are built, 5.23e6 bytes, not the
// 4,861,040 that a refit with MaxBytes set to it was refused for.
func TestFitBytesRefitVaccine(t *testing.T) {
	d, err := LoadFile(datadir.File(t, "vaccine.svm"), nil)
	require.NoError(t, err)
	o := DefaultOptions()
	o.Pooling, o.MaxIter = MeanPooling(), 1
	m, err := Fit(context.Background(), d, o)
	require.NoError(t, err)
	assert.Equal(t, int64(fitBytes(d, &o)+meanBytes(d, o.Pooling)), m.Result().Bytes)
	o.MaxBytes = m.Result().Bytes
	_, err = Fit(context.Background(), d, o)
	require.NoError(t, err)
}

// shiftedColumn returns d with a constant 1e6 added to feature 0: its mean
// dwarfs its spread, so ScaleAuto standardizes a copy.
func shiftedColumn(t *testing.T, d *Dataset) *Dataset {
	t.Helper()
	x := make([]float64, 0, d.NumInstances()*d.NumFeatures())
	row := make([]float64, d.NumFeatures())
	for i := range d.NumInstances() {
		require.NoError(t, d.Row(row, i))
		row[0] += 1e6
		x = append(x, row...)
	}
	out, err := NewDense(x, d.NumFeatures(), d.BagPtr(), d.Labels())
	require.NoError(t, err)
	return out
}
