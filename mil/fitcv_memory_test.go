package mil

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FitCV's memory is bounded by the work in flight: at most one shared
// setup per worker is alive, whatever the folds, repeats and grid (see
// setupQueue); the sizes a Search sets are capped (MaxSearchFits, and its
// tables against Base.MaxBytes) before anything is allocated.

// TestFitCVSetupsBoundedByWorkers: over 2 x 12 folds of two scalings and
// two kinds of setup (96 setups), no more than Workers setups are alive at
// once, and the selection is the same for 1, 2 and 3 workers.
func TestFitCVSetupsBoundedByWorkers(t *testing.T) {
	d := twoConceptData(t, 60, 3)
	s := smallSearch()
	s.Folds, s.Repeats, s.ScreenFolds = 2, 12, 0
	s.Base.MaxIter = 20
	var want string
	for _, w := range []int{1, 2, 3} {
		s.Workers = w
		cv := testCVRun(t, d, s)
		require.NoError(t, cv.run(context.Background()))
		assert.Positive(t, cv.maxSetups, "workers %d", w)
		assert.LessOrEqual(t, cv.maxSetups, w, "setups alive at once with %d workers", w)
		got := testSelection(t, cv).String()
		if w == 1 {
			want = got
		}
		assert.Equal(t, want, got, "workers %d", w)
	}
}

// denseBags returns bags of n instances of nf standard normal features,
// the first half positive.
func denseBags(bags, n, nf int) (*Dataset, error) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, bags*n*nf)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	ptr := make([]int, bags+1)
	labels := make([]float64, bags)
	for k := range labels {
		ptr[k+1] = ptr[k] + n
		if k < bags/2 {
			labels[k] = 1
		}
	}
	return NewDense(x, nf, ptr, labels)
}

// The two tests below run 160 setups of bags of 5 instances of 500
// features in a child: a setup is mostly its 2 MB Gram matrix, which costs
// a few milliseconds, so all of them at once (as before) take over 320 MB,
// while one per worker peaks near 33 MiB of resident memory, the test
// binary included. The child fails above gramSearchPeak. (A cap on the
// address space of 256 MiB was flaky: under load the runtime's own
// reservations ran out of it with 16 MB of heap in use. The case,
// 300 repeats on 20 bags of 5000 instances of 20 features, took 2.9 GB.)

// gramSearchPeak is the peak resident memory the child of the two tests
// below may reach: four times what it needs, under half what holding every
// setup at once takes.
const gramSearchPeak = 128 << 20

// TestFitCVMemoryRepeats: 80 repeats of a 2-fold cross-validation of one
// setting.
func TestFitCVMemoryRepeats(t *testing.T) {
	if !inChild(t, childBudget) {
		return
	}
	s := gramSearch()
	s.Repeats = 80
	runGramSearch(t, s)
}

// TestFitCVMemoryScalings: a grid of 80 scalings, one fold pair.
func TestFitCVMemoryScalings(t *testing.T) {
	if !inChild(t, childBudget) {
		return
	}
	s := gramSearch()
	s.Scalings = make([]Scaling, 80)
	for i := range s.Scalings {
		s.Scalings[i] = Scaling(i % 2)
	}
	runGramSearch(t, s)
}

// gramSearch is one setting on 2 folds, screening, ensembles and the
// repeats of small sets off, each fit one iteration on the Gram matrix.
func gramSearch() Search {
	s := DefaultSearch()
	oneSetting(&s)
	s.Folds, s.ScreenFolds, s.EnsembleSize, s.MinTestBags = 2, 0, 0, 0
	s.Base.MaxIter, s.Base.Beta = 1, BetaGram
	return s
}

// runGramSearch runs s on 20 bags of 5 instances of 500 features: 160
// fits, each on its own setup.
func runGramSearch(t *testing.T, s Search) {
	t.Helper()
	d, err := denseBags(20, 5, 500)
	require.NoError(t, err)
	_, sel, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	assert.Equal(t, 160, sel.Fits)
	logPeak(t)
	peak, ok := peakRSS()
	require.True(t, ok, "no peak RSS in /proc/self/status")
	assert.Less(t, peak, uint64(gramSearchPeak), "peak resident memory")
}

// TestFitCVGridCapped: 4 million lambdas are refused by the cap on the
// grid's fits before anything is allocated for them, even with a context
// already done, and so is Repeats = MaxSplits on DefaultSearch's grid.
func TestFitCVGridCapped(t *testing.T) {
	if !inChild(t, childBudget) {
		return
	}
	d := twoConceptData(t, 40, 1)
	s := DefaultSearch()
	s.Lambdas = make([]float64, 4e6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := FitCV(ctx, d, s)
	requireBadInput(t, err, true, "are 1e+08 fits, above MaxSearchFits = 1048576")

	s = DefaultSearch()
	s.Repeats = MaxSplits
	_, _, err = FitCV(context.Background(), d, s)
	requireBadInput(t, err, true, "above MaxSearchFits")
	logPeak(t)
}

// TestFitCVTablesCapped: the tables of the cross-validation (every
// setting's test scores over the repeats) are checked against
// Base.MaxBytes before the first fit: 2000 bags x 1000 repeats need about
// 112 MB, refused under a budget of 50 MB that the fits themselves pass.
func TestFitCVTablesCapped(t *testing.T) {
	d, err := denseBags(2000, 1, 1)
	require.NoError(t, err)
	s := DefaultSearch()
	oneSetting(&s)
	s.Folds, s.Repeats = 2, 1000
	s.Base.MaxBytes = 50 << 20
	start := time.Now()
	_, sel, err := FitCV(context.Background(), d, s)
	requireBadInput(t, err, true, "FitCV: the cross-validation's tables (1 settings x 2000 test folds, with every setting's scores of 2000 bags x 1000 repeats) need about 1.12e+08 bytes; Base.MaxBytes = 52428800")
	assert.Zero(t, sel.Fits)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// TestFitCVExpiredContext: a context already done is reported before
// the cross-validation starts, with no fit run.
func TestFitCVExpiredContext(t *testing.T) {
	d := twoConceptData(t, 40, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, sel, err := FitCV(ctx, d, DefaultSearch())
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, sel.Fits)
}

// benchmarkFitCV times FitCV with DefaultSearch on a real data set and
// reports the heap the runtime held afterwards (HeapSys, which does not
// shrink: about the peak).
func benchmarkFitCV(b *testing.B, file string) {
	d, err := LoadFile(datadir.File(b, file), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := FitCV(context.Background(), d, DefaultSearch()); err != nil {
			b.Fatal(err)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heapsys-MiB")
}

func BenchmarkFitCVFox(b *testing.B)     { benchmarkFitCV(b, "fox.csv") }
func BenchmarkFitCVVaccine(b *testing.B) { benchmarkFitCV(b, "vaccine.svm") }
