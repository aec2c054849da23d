package mil

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFitMemoryCap: a tiny sparse dataset that declares 2^31-2 features
// (what a 43-byte file can say) must be refused before any allocation
// sized by it, even with a cancelled context or without scaling; raising
// MaxBytes is how a caller allows a large fit.
func TestFitMemoryCap(t *testing.T) {
	// The loaders and NewSparse refuse it by default (MaxFeatures, see
	// TestLoaderHugeDimension); a caller who raised that cap meets Fit's.
	d, err := ReadSparse(strings.NewReader("a:1:0 1:1\nb:2:1 2147483646:2\n"), &LoadOptions{MaxFeatures: MaxFeaturesLimit})
	require.NoError(t, err)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, ctx := range []context.Context{context.Background(), cancelled} {
		for _, sc := range []Scaling{ScaleAuto, ScaleNone} {
			opt := DefaultOptions()
			opt.Scaling = sc
			start := time.Now()
			m, err := Fit(ctx, d, opt)
			assert.Nil(t, m)
			assert.ErrorIs(t, err, ErrTooLarge)
			assert.ErrorIs(t, err, ErrBadInput)
			assert.Contains(t, err.Error(), "Options.MaxBytes")
			assert.Less(t, time.Since(start), time.Second)
		}
	}
	// A small fit under a cap it exceeds, and the same fit allowed.
	small, _, err := Synthetic(SynthConfig{Bags: 40, Features: 30, MinInstances: 2, MaxInstances: 4, Seed: 3})
	require.NoError(t, err)
	opt := DefaultOptions()
	opt.MaxBytes = 1000
	_, err = Fit(context.Background(), small, opt)
	assert.ErrorIs(t, err, ErrTooLarge)
	opt.MaxBytes = 0
	m, err := Fit(context.Background(), small, opt)
	require.NoError(t, err)
	assert.Positive(t, m.Result().Bytes)
	assert.LessOrEqual(t, m.Result().Bytes, int64(DefaultMaxBytes))
}

// TestFitDenseNoCopy: Fit on dense data standardizes by folding, so what
// it allocates through its setup and first iteration is its estimate
// without the standardized copy of the features (at 1000 x 600 a copy
// would be 4.8 MB beside the 2.9 MB Gram; at 4000 x 1500, 48 MB beside
// 18 MB).
func TestFitDenseNoCopy(t *testing.T) {
	d := cancelData(t, true)
	opt := DefaultOptions()
	opt.Callback = func(neadmm.Iteration) bool { return true } // stop after one
	withDef := opt.withDefaults()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Fit(context.Background(), d, opt)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	alloc := float64(after.TotalAlloc - before.TotalAlloc)
	est := fitBytes(d, &withDef)
	assert.Equal(t, int64(est), m.Result().Bytes, "the estimate counts no copy")
	t.Logf("allocated %.3g bytes, estimate %.3g, a copy %.3g", alloc, est, copyBytes(d))
	assert.Less(t, alloc, 1.1*est, "Fit allocated more than its estimate")
	assert.Less(t, alloc, copyBytes(d), "Fit allocated as much as a copy of the features")
}
