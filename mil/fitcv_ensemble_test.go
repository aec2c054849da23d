package mil

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBestEnsembleTies: of two ensembles with the same score the earlier
// in lexicographic order of the members wins. Settings 0 and 1 score the
// four test bags (labels 0, 0, 1, 1) alike, (0, 2, 1, 3), AUC 3/4, and
// setting 2 as (2, 0, 3, 1), AUC 3/4; {0, 2} and {1, 2} average to (1, 1,
// 2, 2), AUC 1, and {0, 1} keeps AUC 3/4. A cancelled ctx is returned
// wrapped as FitCV's.
func TestBestEnsembleTies(t *testing.T) {
	test, err := NewDense([]float64{0, 0, 0, 0}, 1, []int{0, 1, 2, 3, 4}, []float64{0, 0, 1, 1})
	require.NoError(t, err)
	s := smallSearch()
	cv := &cvRun{s: s, nf: 1, lams: []float64{3, 2, 1}, tests: []*Dataset{test},
		scores: [][][][]float64{{{{0, 2, 1, 3}, {0, 2, 1, 3}, {2, 0, 3, 1}}}}}
	settings := make([]Setting, 3)
	for i := range settings {
		settings[i] = Setting{Lambda: cv.lams[i], Pooling: MaxPooling(), AUC: 0.75, FoldAUC: []float64{0.75}}
	}
	e, err := cv.bestEnsemble(context.Background(), settings, 2)
	require.NoError(t, err)
	require.NotNil(t, e)
	assert.Equal(t, []int{0, 2}, e.Members)
	assert.Equal(t, 1.0, e.AUC)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = cv.bestEnsemble(ctx, settings, 2)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "mil: FitCV: context canceled", err.Error())
}
