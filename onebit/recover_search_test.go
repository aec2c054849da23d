package onebit

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecoverCancelledSearch pins Recover's doc on a cancelled support
// search: it returns the context's error, and x holds the estimate as the
// search left it (the iterate s.x, zero outside the working set),
// normalized. The steps after the stages take ctx.Done once, the centroid
// once more after them: cancelled at the second-to-last call of Done of
// an uncancelled run (counted), the search's first major cycle of Wolfe's
// algorithm sees it.
func TestRecoverCancelledSearch(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 200, N: 200, K: 8, Seed: 1})
	var s Solver
	x := make([]float64, p.n)
	count := newDoneAt(0) // never closed: counts the calls
	res, err := s.Recover(count, p, x, DefaultRecoverOptions())
	require.NoError(t, err)
	require.True(t, res.Centroid, "the centroid takes the last call of Done")
	require.Positive(t, res.Expanded, "the search must run for the test")

	_, err = s.Recover(newDoneAt(count.calls-1), p, x, DefaultRecoverOptions())
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "support search")
	want := make([]float64, p.n)
	s.unslot(want, s.x[:s.op.k])
	require.True(t, normalize(want))
	require.Equal(t, want, x)
}
