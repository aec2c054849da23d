package mil

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallSearch is a quick grid for the tests, scored by the AUC (the
// rules' tests compare AUCs; TestFitCVDeviance checks the deviance).
func smallSearch() Search {
	s := DefaultSearch()
	s.Lambdas = []float64{0.03, 0.003}
	s.Poolings = []Pooling{MaxPooling(), MeanPooling()}
	s.Folds = 3
	s.EnsembleSize = 0 // the tests of ensembles set it
	s.Criterion = CriterionAUC
	s.MinTestBags = 0 // the tests of repeats set it
	s.Skip, s.Anchors, s.AnchorSE = nil, nil, 0
	return s
}

func TestFitCV(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 120, Features: 8, MinInstances: 2, MaxInstances: 6, Relevant: 2, Margin: 1, Seed: 51})
	require.NoError(t, err)
	s := smallSearch()
	s.Reject = 0.02
	m, sel, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	// Every setting is reported, in grid order, each with the folds it ran.
	require.Len(t, sel.Settings, len(s.Scalings)*len(s.Poolings)*len(s.Lambdas))
	i := 0
	rejected := 0
	for _, sc := range s.Scalings {
		for _, p := range s.Poolings {
			for _, l := range []float64{0.03, 0.003} {
				st := sel.Settings[i]
				assert.Equal(t, Setting{Lambda: l, Pooling: p, Scaling: sc}.String(), st.String())
				want := s.Folds
				if st.Rejected {
					want = s.ScreenFolds
					rejected++
				}
				assert.Len(t, st.FoldAUC, want, st.String())
				mean := 0.0
				for _, a := range st.FoldAUC {
					mean += a
				}
				assert.InDelta(t, mean/float64(len(st.FoldAUC)), st.AUC, 1e-12)
				// The sample std (n - 1) of the fold values, AUC and deviance.
				sampleStd := func(x []float64, mean float64) float64 {
					ss := 0.0
					for _, v := range x {
						ss += (v - mean) * (v - mean)
					}
					return math.Sqrt(ss / float64(len(x)-1))
				}
				if len(st.FoldAUC) > 1 {
					assert.InDelta(t, sampleStd(st.FoldAUC, st.AUC), st.AUCStd, 1e-12, st.String())
					assert.InDelta(t, sampleStd(st.FoldDeviance, st.Deviance), st.DevianceStd, 1e-12, st.String())
				}
				assert.Positive(t, st.Iterations)
				if !st.Rejected {
					assert.GreaterOrEqual(t, sel.Best.AUC, st.AUC, "best is not the best")
				}
				i++
			}
		}
	}
	assert.Equal(t, rejected, sel.Rejected)
	assert.False(t, sel.Best.Rejected)
	assert.Equal(t, sel.Best.Lambda, sel.Options.Lambda)
	assert.Equal(t, sel.Best.Pooling, sel.Options.Pooling)
	assert.Equal(t, sel.Best.Scaling, sel.Options.Scaling)
	assert.Contains(t, sel.String(), "* "+sel.Best.String())
	// The model is the refit on all of d with the chosen options.
	ref, err := Fit(context.Background(), d, sel.Options)
	require.NoError(t, err)
	b1, c1 := m.Coefficients()
	b2, c2 := ref.Coefficients()
	assert.Equal(t, b2, b1)
	assert.Equal(t, c2, c1)
	assert.Equal(t, sel.Best.Pooling, m.Pooling())
}

// TestFitCVWorkers checks that the selection and the model do not depend
// on the number of workers, bit for bit: on a small grid, and on one with
// the feature-wise mean and max and repeated folds (MinTestBags).
func TestFitCVWorkers(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 90, Features: 6, MinInstances: 1, MaxInstances: 5, Seed: 52})
	require.NoError(t, err)
	for _, wide := range []bool{false, true} {
		var first Selection
		var firstBeta []float64
		for _, w := range []int{1, 2, 5} {
			s := smallSearch()
			s.Workers = w
			s.EnsembleSize = 2
			s.EnsembleSE = 1 // the rule reads only the fold values, which must not depend on Workers
			s.Criterion = CriterionDeviance
			if wide {
				s.Poolings = append(s.Poolings, FeatureMeanMaxPooling())
				s.MinTestBags = 200
			}
			m, sel, err := FitCV(context.Background(), d, s)
			require.NoError(t, err)
			beta, _ := m.Coefficients()
			sel.CVTime, sel.RefitTime = 0, 0
			if w == 1 {
				first, firstBeta = sel, beta
				continue
			}
			assert.Equal(t, first, sel, "workers %d, wide %v", w, wide)
			for j := range beta {
				require.Equal(t, math.Float64bits(firstBeta[j]), math.Float64bits(beta[j]), "workers %d, wide %v: beta[%d]", w, wide, j)
			}
		}
	}
}

func TestFitCVErrors(t *testing.T) {
	ctx := context.Background()
	d, _, err := Synthetic(SynthConfig{Bags: 30, Features: 4, MinInstances: 1, MaxInstances: 3, Seed: 53})
	require.NoError(t, err)
	_, _, err = FitCV(ctx, nil, DefaultSearch())
	assert.ErrorIs(t, err, ErrBadInput)
	//lint:ignore SA1012 a nil context is the bad input tested
	_, _, err = FitCV(nil, d, DefaultSearch())
	assert.ErrorIs(t, err, ErrBadInput)
	for name, mod := range map[string]func(*Search){
		"no lambdas":     func(s *Search) { s.Lambdas = nil },
		"no poolings":    func(s *Search) { s.Poolings = []Pooling{} },
		"no scalings":    func(s *Search) { s.Scalings = nil },
		"one fold":       func(s *Search) { s.Folds = 1 },
		"NaN lambda":     func(s *Search) { s.Lambdas = []float64{0.1, math.NaN()} },
		"bad pooling":    func(s *Search) { s.Poolings = []Pooling{TopKPooling(0)} },
		"bad scaling":    func(s *Search) { s.Scalings = []Scaling{7} },
		"bad base":       func(s *Search) { s.Base.Rho = 0 },
		"bad WarmRho":    func(s *Search) { s.WarmRho = 2 },
		"bad Reject":     func(s *Search) { s.Reject = -1 },
		"bad RejectSE":   func(s *Search) { s.RejectSE = math.NaN() },
		"bad Repeats":    func(s *Search) { s.Repeats = -2 },
		"bad screening":  func(s *Search) { s.ScreenFolds = -1 },
		"bad margin":     func(s *Search) { s.EnsembleMargin = -0.1 },
		"NaN margin":     func(s *Search) { s.EnsembleMargin = math.NaN() },
		"bad size":       func(s *Search) { s.EnsembleSize = -1 },
		"bad EnsembleSE": func(s *Search) { s.EnsembleSE = -1 },
		"NaN EnsembleSE": func(s *Search) { s.EnsembleSE = math.NaN() },
		"Inf EnsembleSE": func(s *Search) { s.EnsembleSE = math.Inf(1) },
		"bad PreferMean": func(s *Search) { s.PreferMean = -1 },
		"NaN PreferMean": func(s *Search) { s.PreferMean = math.NaN() },
		"Inf PreferMean": func(s *Search) { s.PreferMean = math.Inf(1) },
		"bad Criterion":  func(s *Search) { s.Criterion = CriterionDeviance + 1 },
		"neg Criterion":  func(s *Search) { s.Criterion = -1 },
		// Caps: splits (Repeats x Folds overflows an int) and ensembles.
		"huge Repeats": func(s *Search) { s.Repeats = hugeInt },
		"many ensembles": func(s *Search) {
			s.Lambdas = []float64{1, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 3e-4, 1e-4, 3e-5}
			s.EnsembleSize = 4 // 40 settings: 102050 ensembles
		},
	} {
		s := DefaultSearch()
		mod(&s)
		m, _, err := FitCV(ctx, d, s)
		assert.Nil(t, m, name)
		assert.ErrorIs(t, err, ErrBadInput, name)
	}
	// Too few bags of a class for the folds: the counts are named.
	small, err := NewDense([]float64{1, 2, 3, 4, 5, 6}, 1, []int{0, 1, 2, 3, 4, 5, 6}, []float64{1, 0, 0, 1, 0, 0})
	require.NoError(t, err)
	_, _, err = FitCV(ctx, small, DefaultSearch())
	require.ErrorIs(t, err, ErrBadInput)
	assert.Contains(t, err.Error(), "5 folds need at least 5 bags of each class; the data has 2 positive and 4 negative bags")
	one, err := NewDense([]float64{1, 2}, 1, []int{0, 1, 2}, []float64{1, 1})
	require.NoError(t, err)
	_, _, err = FitCV(ctx, one, DefaultSearch())
	assert.ErrorIs(t, err, ErrOneClass)
}

// TestFitCVCancel cancels FitCV part-way and measures how long it takes
// to return: the fits check ctx every iteration, well under 10 ms apart
// at this size (the bound asserted is loose for busy CI machines).
func TestFitCVCancel(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 300, Features: 20, MinInstances: 2, MaxInstances: 8, Seed: 54})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _, err := FitCV(ctx, d, smallSearch())
	assert.Nil(t, m)
	assert.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithCancel(context.Background())
	at := make(chan time.Time, 1)
	go func() {
		time.Sleep(30 * time.Millisecond)
		at <- time.Now()
		cancel()
	}()
	m, _, err = FitCV(ctx, d, DefaultSearch())
	lat := time.Since(<-at)
	assert.Nil(t, m)
	require.ErrorIs(t, err, context.Canceled)
	t.Logf("cancel to return: %v", lat)
	assert.Less(t, lat, 3*time.Second) // wall time: see TestFitCancelSetup
}

// preferBaseRun runs FitCV on seed's synthetic bags with lambdas 0.03,
// 0.01 and 0.003 (and poolings, when given) with PreferBase off, then on.
func preferBaseRun(t *testing.T, seed uint64, poolings ...Pooling) (*Dataset, Search, Selection, Selection) {
	t.Helper()
	d, _, err := Synthetic(SynthConfig{Bags: 120, Features: 8, MinInstances: 2, MaxInstances: 6, Relevant: 2, Margin: 1, Seed: seed})
	require.NoError(t, err)
	s := smallSearch()
	s.Lambdas = []float64{0.03, 0.01, 0.003}
	if len(poolings) > 0 {
		s.Poolings = poolings
	}
	s.PreferBase = false
	_, free, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	s.PreferBase = true
	_, pref, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	return d, s, free, pref
}

// TestFitCVPreferBase: PreferBase moves lambda to Base's inside the best
// setting's (scaling, pooling) pair when the best beats it by no more than
// a standard error, never the pooling or the scaling, and the selection
// says so.
func TestFitCVPreferBase(t *testing.T) {
	for _, seed := range []uint64{55, 56, 57} {
		_, s, free, pref := preferBaseRun(t, seed)
		var base Setting
		for _, st := range free.Settings {
			if st.Lambda == s.Base.Lambda && st.Pooling == free.Best.Pooling && st.Scaling == free.Best.Scaling {
				base = st
			}
		}
		require.NotZero(t, base.Lambda)
		assert.Equal(t, free.Best.Pooling, pref.Best.Pooling)
		assert.Equal(t, free.Best.Scaling, pref.Best.Scaling)
		se := free.Best.AUCStd / math.Sqrt(float64(len(free.Best.FoldAUC)))
		if free.Best.Pooling == s.Base.Pooling && free.Best.AUC-base.AUC <= se {
			assert.Equal(t, base.String(), pref.Best.String())
			assert.Equal(t, s.Base.Lambda, pref.Options.Lambda)
		} else {
			assert.Equal(t, free.Best.String(), pref.Best.String())
		}
	}
}

// TestFitCVPreferBasePooling: PreferBase moves lambda only when the best
// setting has Base's pooling: with the mean pooling alone in the grid it
// changes nothing when Base has the max, and keeps Base's lambda (where
// within one standard error) when Base has the mean. The seeds are ones
// where the plain maximum is not at 0.01 but within a standard error of
// it, so that the rule would move it.
func TestFitCVPreferBasePooling(t *testing.T) {
	moved := 0
	for _, seed := range []uint64{55, 56, 57, 58, 59} {
		d, s, free, pref := preferBaseRun(t, seed, MeanPooling())
		assert.Equal(t, free.Best.String(), pref.Best.String(), "seed %d: Base's pooling is the max", seed)
		s.Base.Pooling = MeanPooling()
		_, prefMean, err := FitCV(context.Background(), d, s)
		require.NoError(t, err)
		var base Setting
		for _, st := range free.Settings {
			if st.Lambda == s.Base.Lambda && st.Scaling == free.Best.Scaling {
				base = st
			}
		}
		se := free.Best.AUCStd / math.Sqrt(float64(len(free.Best.FoldAUC)))
		if free.Best.AUC-base.AUC <= se {
			assert.Equal(t, base.String(), prefMean.Best.String(), "seed %d", seed)
			if base.String() != free.Best.String() {
				moved++
			}
		} else {
			assert.Equal(t, free.Best.String(), prefMean.Best.String(), "seed %d", seed)
		}
	}
	assert.Positive(t, moved, "no seed where the rule moves lambda: the test checks nothing")
}

// TestFitCVPreferMean: with PreferMean the best mean-pooling setting
// replaces a better max-pooling one when within that many standard errors
// of it, and only then; off (0), the plain maximum. The seeds include ones
// where the max wins by less than a standard error (the rule moves it)
// and ones where it wins by more.
func TestFitCVPreferMean(t *testing.T) {
	moved, kept := 0, 0
	for _, seed := range []uint64{60, 61, 62, 63, 64, 65} {
		d := noisy(t, SynthConfig{Bags: 120, Features: 8, MinInstances: 2, MaxInstances: 6, Relevant: 2, Margin: 0.5, Seed: seed}, 4)
		s := smallSearch()
		s.ScreenFolds = 0
		s.PreferBase = false
		s.PreferMean = 0
		_, free, err := FitCV(context.Background(), d, s)
		require.NoError(t, err)
		s.PreferMean = 1
		_, pref, err := FitCV(context.Background(), d, s)
		require.NoError(t, err)
		var mean Setting
		for _, st := range free.Settings {
			if st.Pooling.Kind == PoolMean && (mean.FoldAUC == nil || st.AUC > mean.AUC) {
				mean = st
			}
		}
		se := free.Best.AUCStd / math.Sqrt(float64(len(free.Best.FoldAUC)))
		switch {
		case free.Best.Pooling.Kind == PoolMean:
			assert.Equal(t, free.Best.String(), pref.Best.String(), "seed %d", seed)
		case free.Best.AUC-mean.AUC <= se:
			assert.Equal(t, mean.String(), pref.Best.String(), "seed %d", seed)
			moved++
		default:
			assert.Equal(t, free.Best.String(), pref.Best.String(), "seed %d", seed)
			kept++
		}
		s.PreferMean = 1e9 // the mean whatever the max scores
		_, all, err := FitCV(context.Background(), d, s)
		require.NoError(t, err)
		assert.Equal(t, mean.String(), all.Best.String(), "seed %d", seed)
	}
	t.Logf("moved %d, kept the max %d", moved, kept)
	assert.Positive(t, moved, "no seed where the rule moves the pooling")
	assert.Positive(t, kept, "no seed where the max wins by more than a standard error")
}

// noisy returns Synthetic(cfg) with the label of every every-th bag
// flipped, so that no setting separates the classes perfectly.
func noisy(t *testing.T, cfg SynthConfig, every int) *Dataset {
	t.Helper()
	d, _, err := Synthetic(cfg)
	require.NoError(t, err)
	x := make([]float64, d.NumInstances()*d.NumFeatures())
	for i := range d.NumInstances() {
		require.NoError(t, d.Row(x[i*d.NumFeatures():(i+1)*d.NumFeatures()], i))
	}
	labels := append([]float64(nil), d.Labels()...)
	for k := 0; k < len(labels); k += every {
		labels[k] = 1 - labels[k]
	}
	nd, err := NewDense(x, d.NumFeatures(), append([]int(nil), d.BagPtr()...), labels)
	require.NoError(t, err)
	return nd
}

// TestFitCVRepeats: Repeats runs the folds of that many independent splits,
// the first of which are the splits of one repeat, and scores each setting
// over all of them.
func TestFitCVRepeats(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 90, Features: 6, MinInstances: 1, MaxInstances: 5, Seed: 58})
	require.NoError(t, err)
	s := smallSearch()
	s.ScreenFolds = 0
	_, one, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	s.Repeats = 2
	_, two, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	assert.Equal(t, 2*s.Folds, two.Folds)
	assert.Equal(t, 2*one.Fits, two.Fits)
	require.Len(t, two.Settings, len(one.Settings))
	differ := false
	for i, st := range two.Settings {
		require.Len(t, st.FoldAUC, 2*s.Folds)
		assert.Equal(t, one.Settings[i].FoldAUC, st.FoldAUC[:s.Folds], st.String())
		differ = differ || !slices.Equal(st.FoldAUC[:s.Folds], st.FoldAUC[s.Folds:])
		mean, _, _ := meanStdAUC(st.FoldAUC)
		assert.InDelta(t, mean, st.AUC, 1e-12)
	}
	assert.True(t, differ, "the second repeat's folds repeat the first's")
	s.Repeats = -1
	_, _, err = FitCV(context.Background(), d, s)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.ErrorContains(t, err, "Repeats = -1")
}

// TestFitCVMinTestBags: MinTestBags raises the repeats to
// ceil(MinTestBags/B) on B bags, capped at MaxAutoRepeats and never below
// Repeats, and runs exactly the search with those repeats; the settings
// report their score and its standard error over one repeat's folds.
func TestFitCVMinTestBags(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 90, Features: 6, MinInstances: 1, MaxInstances: 5, Seed: 58})
	require.NoError(t, err)
	s := smallSearch()
	s.MinTestBags = 200 // ceil(200/90) = 3 repeats
	_, auto, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	assert.Equal(t, 3*s.Folds, auto.Folds)
	s.MinTestBags, s.Repeats = 0, 3
	_, three, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	auto.CVTime, auto.RefitTime, three.CVTime, three.RefitTime = 0, 0, 0, 0
	assert.Equal(t, three, auto)
	for _, st := range auto.Settings {
		assert.Equal(t, st.AUC, st.Score, st.String()) // CriterionAUC
		n := min(len(st.FoldAUC), s.Folds)
		assert.InDelta(t, st.AUCStd/math.Sqrt(float64(n)), st.ScoreSE, 1e-15, st.String())
		assert.Contains(t, auto.String(), fmt.Sprintf("score %.4f, se %.4f", st.Score, st.ScoreSE), st.String())
	}
	for _, tc := range []struct{ repeats, minBags, bags, want int }{
		{0, 0, 90, 1}, {2, 0, 90, 2}, {0, 90, 90, 1}, {0, 91, 90, 2}, {4, 200, 90, 4},
		{0, 400, 83, 5}, {0, 400, 180, 3}, {0, 400, 1415, 1}, {0, 400, 20, MaxAutoRepeats},
	} {
		s := Search{Repeats: tc.repeats, MinTestBags: tc.minBags}
		assert.Equal(t, tc.want, s.repeatsFor(tc.bags), "%+v", tc)
	}
	s = smallSearch()
	s.MinTestBags = -1
	_, _, err = FitCV(context.Background(), d, s)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.ErrorContains(t, err, "MinTestBags = -1")
}

// TestFitCVSkip: the pairs in Skip are not run and not reported; every
// other setting runs exactly as in the full grid.
func TestFitCVSkip(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 60, Features: 5, MinInstances: 1, MaxInstances: 4, Seed: 59})
	require.NoError(t, err)
	s := smallSearch()
	s.Poolings = append(s.Poolings, FeatureMeanMaxPooling())
	s.ScreenFolds = 0
	_, full, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	s.Skip = []Setting{{Pooling: FeatureMeanMaxPooling(), Scaling: ScaleNone}, {Pooling: MeanPooling(), Scaling: ScaleAuto}}
	_, skip, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	require.Len(t, skip.Settings, len(full.Settings)-2*len(s.Lambdas))
	i := 0
	for _, st := range full.Settings {
		if s.skipped(st) {
			continue
		}
		assert.Equal(t, st, skip.Settings[i], "setting %d", i)
		i++
	}
}

// TestFitCVRejectSE: the screening margin is max(Reject, RejectSE*se);
// RejectSE = 0 is 1, and a huge one rejects nothing.
func TestFitCVRejectSE(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 120, Features: 20, MinInstances: 2, MaxInstances: 6, Relevant: 5, Margin: 1e-3, Seed: 59})
	require.NoError(t, err)
	s := smallSearch()
	s.Reject = 0
	s.RejectSE = 1
	_, one, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	s.RejectSE = 0
	_, zero, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	assert.Equal(t, one.String(), zero.String())
	s.RejectSE = 1e9
	_, none, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	assert.Zero(t, none.Rejected, none.String())
	assert.Positive(t, one.Rejected, "the test needs a grid where the screening rejects")
}

// TestFitCVEnsemble: with Ensembles the best pair of fully run settings is
// found (checked against a brute-force search over the stored test-fold
// scores, whose AUCs must be the settings' own), reported, and returned
// as the ensemble of the two settings' refits exactly when it beats the
// best setting by more than EnsembleMargin.
func TestFitCVEnsemble(t *testing.T) {
	ensembled := 0
	// Seeds 1 and 3 keep the single setting, 2 and 4 choose an ensemble
	// of two; with triples allowed, 2, 4 and 5 choose one of three.
	for _, c := range []struct {
		seed uint64
		size int
	}{{1, 2}, {2, 2}, {3, 2}, {4, 2}, {2, 3}, {4, 3}, {5, 3}} {
		d := twoConceptData(t, 120, c.seed)
		s := smallSearch()
		s.EnsembleSize = c.size
		cv := testCVRun(t, d, s)
		require.NoError(t, cv.run(context.Background()))
		sel := testSelection(t, cv)
		// Brute force over the stored scores: every subset of the fully
		// run settings, by bit mask.
		nl := len(cv.lams)
		var full []int
		for i, si := range sel.Settings {
			if len(si.FoldAUC) == cv.nf {
				full = append(full, i)
				for f := range cv.nf { // the stored scores give the stored AUC
					met, err := Evaluate(cv.scores[i/nl][f][i%nl], cv.tests[f].Labels(), 0)
					require.NoError(t, err)
					assert.Equal(t, si.FoldAUC[f], met.AUC)
				}
			}
		}
		cvAUC := func(members []int) float64 {
			sum := 0.0
			for f := range cv.nf {
				mix := make([]float64, cv.tests[f].NumBags())
				for _, i := range members {
					for k, v := range cv.scores[i/nl][f][i%nl] {
						mix[k] += v / float64(len(members))
					}
				}
				met, err := Evaluate(mix, cv.tests[f].Labels(), 0)
				require.NoError(t, err)
				sum += met.AUC
			}
			return sum / float64(cv.nf)
		}
		best := math.Inf(-1)
		forEnsembles(full, s.EnsembleSize, func(members []int) { best = max(best, cvAUC(members)) })
		require.NotNil(t, sel.Ensemble)
		e := sel.Ensemble
		assert.GreaterOrEqual(t, len(e.Members), 2)
		assert.LessOrEqual(t, len(e.Members), s.EnsembleSize)
		assert.InDelta(t, best, e.AUC, 1e-12)
		assert.InDelta(t, cvAUC(e.Members), e.AUC, 1e-12)
		for j := 1; j < len(e.Members); j++ {
			assert.GreaterOrEqual(t, sel.Settings[e.Members[j-1]].AUC, sel.Settings[e.Members[j]].AUC)
		}

		m, fsel, err := FitCV(context.Background(), d, s)
		require.NoError(t, err)
		fsel.CVTime, fsel.RefitTime, sel.CVTime, sel.RefitTime = 0, 0, 0, 0
		sel.Fits = cv.fits
		assert.Equal(t, sel, fsel)
		// The chosen single setting without the ensemble.
		s0 := s
		s0.EnsembleSize = 0
		_, single, err := FitCV(context.Background(), d, s0)
		require.NoError(t, err)
		assert.Nil(t, single.Ensemble)
		assert.Equal(t, single.Best.AUC+s.EnsembleMargin < e.AUC, fsel.Ensembled)
		if !fsel.Ensembled {
			assert.Nil(t, m.Parts())
			assert.Equal(t, single.Best, fsel.Best)
			continue
		}
		ensembled++
		t.Logf("seed %d size %d: ensemble of %d", c.seed, c.size, len(e.Members))
		assert.Contains(t, fsel.String(), "* ensemble of ")
		assert.Equal(t, fsel.Settings[e.Members[0]], fsel.Best)
		assert.Equal(t, e.Options[0], fsel.Options)
		parts := m.Parts()
		require.Len(t, parts, len(e.Members))
		require.Len(t, e.Options, len(e.Members))
		for _, w := range m.Weights() {
			assert.Equal(t, 1/float64(len(parts)), w)
		}
		for i, p := range parts {
			st := fsel.Settings[e.Members[i]]
			assert.Equal(t, st.Pooling, p.Pooling())
			ref, err := Fit(context.Background(), d, e.Options[i])
			require.NoError(t, err)
			b1, c1 := ref.Coefficients()
			b2, c2 := p.Coefficients()
			assert.Equal(t, b1, b2)
			assert.Equal(t, c1, c2)
		}
		// A margin no AUC gain can pass keeps the single setting.
		s.EnsembleMargin = 1
		m1, sel1, err := FitCV(context.Background(), d, s)
		require.NoError(t, err)
		assert.False(t, sel1.Ensembled)
		assert.NotNil(t, sel1.Ensemble)
		assert.Nil(t, m1.Parts())
		assert.Equal(t, single.Best, sel1.Best)
		// EnsembleSE: the ensemble is kept below its gain in paired
		// standard errors and dropped above it (the ratio's 1% either side
		// is far from rounding).
		s.EnsembleMargin = 0.01
		z := (e.AUC - single.Best.AUC) / pairedSE(e.FoldAUC, single.Best.FoldAUC)
		require.True(t, z > 0 && !math.IsInf(z, 0), "z = %g", z)
		s.EnsembleSE = 0.99 * z
		_, sel2, err := FitCV(context.Background(), d, s)
		require.NoError(t, err)
		assert.True(t, sel2.Ensembled, "EnsembleSE %g below the gain's %g se", s.EnsembleSE, z)
		s.EnsembleSE = 1.01 * z
		m3, sel3, err := FitCV(context.Background(), d, s)
		require.NoError(t, err)
		assert.False(t, sel3.Ensembled, "EnsembleSE %g above the gain's %g se", s.EnsembleSE, z)
		assert.Nil(t, m3.Parts())
		assert.Equal(t, single.Best, sel3.Best)
		s.EnsembleSE = 0
	}
	assert.Positive(t, ensembled, "no seed chose an ensemble: the test checks nothing of the refit")
}

// TestFitCVDeviance: with CriterionDeviance every setting's fold deviances
// are the weighted log-loss of its stored test-fold scores (recomputed
// here from the definition, with the weights written out), the chosen
// setting is the one of the smallest mean deviance and the ensemble the
// subset of the smallest mean deviance (brute force), for both weightings,
// and it is chosen when it beats the setting in deviance and in AUC by
// the margin; on some seeds the choice differs from the AUC's, so the
// criterion is not the AUC under another name.
func TestFitCVDeviance(t *testing.T) {
	differ, ensembled, kept := 0, 0, 0
	for _, c := range []struct {
		seed uint64
		w    Weighting
	}{{1, Balanced}, {2, Balanced}, {3, Balanced}, {4, Uniform}} {
		d := twoConceptData(t, 120, c.seed)
		s := smallSearch()
		s.Criterion = CriterionDeviance
		s.ScreenFolds = 0
		s.PreferBase, s.PreferMean = false, 0
		s.EnsembleSize = 3
		s.EnsembleMargin = 1e9 // score the ensembles, choose none
		s.Base.Weighting = c.w
		cv := testCVRun(t, d, s)
		require.NoError(t, cv.run(context.Background()))
		sel := testSelection(t, cv)
		nl := len(cv.lams)
		// dev is the definition: sum_i w_i log(1 + exp(-s_i q_i)) / B,
		// w_i = B/(2 B_c) for Balanced, 1 for Uniform. The scores here are
		// moderate (|q| < 30 checked), so the naive formula is accurate.
		dev := func(q, y []float64) float64 {
			pos := 0.0
			for _, v := range y {
				pos += v
			}
			b := float64(len(y))
			sum := 0.0
			for i, v := range y {
				require.Less(t, math.Abs(q[i]), 30.0)
				w := 1.0
				if c.w == Balanced {
					w = b / (2 * pos)
					if v == 0 {
						w = b / (2 * (b - pos))
					}
				}
				sum += w * math.Log(1+math.Exp(-(2*v-1)*q[i]))
			}
			return sum / b
		}
		mix := func(members []int, f int) []float64 {
			out := make([]float64, cv.tests[f].NumBags())
			for _, i := range members {
				for k, v := range cv.scores[i/nl][f][i%nl] {
					out[k] += v / float64(len(members))
				}
			}
			return out
		}
		cvDev := func(members []int) float64 {
			sum := 0.0
			for f := range cv.nf {
				sum += dev(mix(members, f), cv.tests[f].Labels())
			}
			return sum / float64(cv.nf)
		}
		best, bestAUC := -1, -1
		for i, st := range sel.Settings {
			require.Len(t, st.FoldDeviance, cv.nf)
			for f := range cv.nf {
				assert.InDelta(t, dev(mix([]int{i}, f), cv.tests[f].Labels()), st.FoldDeviance[f], 1e-12)
			}
			m, sd, _ := meanStdAUC(st.FoldDeviance)
			assert.Equal(t, m, st.Deviance)
			assert.Equal(t, sd, st.DevianceStd)
			assert.InDelta(t, cvDev([]int{i}), st.Deviance, 1e-12)
			if best < 0 || st.Deviance < sel.Settings[best].Deviance {
				best = i
			}
			if bestAUC < 0 || st.AUC > sel.Settings[bestAUC].AUC {
				bestAUC = i
			}
		}
		assert.Equal(t, sel.Settings[best].String(), sel.Best.String(), "seed %d", c.seed)
		if best != bestAUC {
			differ++
		}
		bestEns := math.Inf(1)
		all := make([]int, len(sel.Settings))
		for i := range all {
			all[i] = i
		}
		forEnsembles(all, s.EnsembleSize, func(members []int) { bestEns = min(bestEns, cvDev(members)) })
		require.NotNil(t, sel.Ensemble)
		e := sel.Ensemble
		assert.False(t, sel.Ensembled)
		assert.InDelta(t, bestEns, e.Deviance, 1e-12)
		assert.InDelta(t, cvDev(e.Members), e.Deviance, 1e-12)
		for f := range cv.nf {
			met, err := Evaluate(mix(e.Members, f), cv.tests[f].Labels(), 0)
			require.NoError(t, err)
			assert.InDelta(t, met.AUC, e.FoldAUC[f], 1e-12)
		}
		for j := 1; j < len(e.Members); j++ {
			assert.LessOrEqual(t, sel.Settings[e.Members[j-1]].Deviance, sel.Settings[e.Members[j]].Deviance)
		}
		// The ensemble is chosen when its deviance is smaller than the
		// chosen setting's and its AUC larger by more than the margin.
		for _, margin := range []float64{0, 0.01} {
			cv.s.EnsembleMargin = margin
			got := testSelection(t, cv)
			b := sel.Settings[best]
			want := e.Deviance < b.Deviance && e.AUC > b.AUC+margin
			assert.Equal(t, want, got.Ensembled, "seed %d, margin %g", c.seed, margin)
			if want {
				ensembled++
				assert.Equal(t, sel.Settings[e.Members[0]].String(), got.Best.String())
			} else {
				kept++
				assert.Equal(t, b.String(), got.Best.String())
			}
		}
		// The same run under CriterionAUC picks the largest AUC.
		cv.s.Criterion = CriterionAUC
		cv.s.EnsembleMargin = 1e9
		assert.Equal(t, sel.Settings[bestAUC].String(), testSelection(t, cv).Best.String(), "seed %d", c.seed)
	}
	t.Logf("the deviance and the AUC choose differently on %d of 4 seeds; ensembled %d, kept %d", differ, ensembled, kept)
	assert.Positive(t, differ, "no seed where the deviance and the AUC choose differently")
	assert.Positive(t, ensembled, "no case where the ensemble is chosen")
	assert.Positive(t, kept, "no case where the ensemble is not chosen")
}

// forEnsembles calls f with every subset of 2 to maxSize of idx (in idx's
// order): the ensembles FitCV scores, by brute force.
func forEnsembles(idx []int, maxSize int, f func(members []int)) {
	for mask := 1; mask < 1<<len(idx); mask++ {
		var members []int
		for b, i := range idx {
			if mask&(1<<b) != 0 {
				members = append(members, i)
			}
		}
		if len(members) >= 2 && len(members) <= maxSize {
			f(members)
		}
	}
}

// testCVRun returns FitCV's cross-validation state for d under s, not run.
func testCVRun(t *testing.T, d *Dataset, s Search) *cvRun {
	t.Helper()
	splits, err := (Protocol{Folds: s.Folds, Repeats: max(s.Repeats, 1), Seed: s.Seed}).Splits(d.Labels())
	require.NoError(t, err)
	return newCVRun(d, s, splits)
}

// testSelection returns cv's selection, failing t on an error.
func testSelection(t *testing.T, cv *cvRun) Selection {
	t.Helper()
	sel, err := cv.selection(context.Background())
	require.NoError(t, err)
	return sel
}

// TestFitCVEnsembleLimits: an EnsembleSize above the number of settings
// chooses as the number itself does, and the ensembles' search stops on
// ctx.
func TestFitCVEnsembleLimits(t *testing.T) {
	d := twoConceptData(t, 120, 2)
	s := smallSearch() // 8 settings
	s.EnsembleSize = 8
	_, want, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	s.EnsembleSize = hugeInt
	_, got, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	require.NotNil(t, got.Ensemble)
	assert.Equal(t, want.Ensemble.Members, got.Ensemble.Members)
	assert.Equal(t, want.String(), got.String())

	cv := testCVRun(t, d, s)
	require.NoError(t, cv.run(context.Background()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = cv.selection(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestFitCVCallbackAndMemory: Base's Callback is not called and is not
// in the chosen options; Base.MaxBytes is checked on d before any fit,
// sparse or dense.
func TestFitCVCallbackAndMemory(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 60, Features: 4, MinInstances: 1, MaxInstances: 4, Seed: 7})
	require.NoError(t, err)
	s := smallSearch()
	s.EnsembleSize = 3
	calls := 0
	s.Base.Callback = func(neadmm.Iteration) bool { calls++; return true }
	m, sel, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	assert.Zero(t, calls)
	assert.Nil(t, sel.Options.Callback)
	if sel.Ensemble != nil {
		for _, o := range sel.Ensemble.Options {
			assert.Nil(t, o.Callback)
		}
	}
	assert.NotEqual(t, neadmm.StopCallback, m.Result().Reason)

	sp, err := d.Convert(Sparse)
	require.NoError(t, err)
	for _, data := range []*Dataset{d, sp} {
		s := smallSearch()
		s.Poolings = []Pooling{MaxPooling()} // no bag means: no copy checked in the setup
		s.Base.MaxBytes = 1000
		m, sel, err := FitCV(context.Background(), data, s)
		assert.Nil(t, m)
		assert.ErrorIs(t, err, ErrTooLarge)
		assert.Zero(t, sel.Fits, "sparse %v", data.IsSparse())
	}
}

// TestFitCVErrorSelectionFolds: the Selection returned with an error
// before any fit counts the test folds as a completed one does, Folds x
// Repeats (2 x 3), and no fits.
func TestFitCVErrorSelectionFolds(t *testing.T) {
	one, err := NewDense([]float64{1, 2, 3, 4}, 1, []int{0, 1, 2, 3, 4}, []float64{1, 1, 1, 1})
	require.NoError(t, err)
	s := DefaultSearch()
	s.Folds, s.Repeats = 2, 3
	_, sel, err := FitCV(context.Background(), one, s)
	require.ErrorIs(t, err, ErrOneClass)
	assert.Equal(t, 6, sel.Folds)
	assert.Zero(t, sel.Fits)
}

// TestFitCVPathAgainstFit: with Cold every CV fit is Fit on the training
// fold with the setting's lambda, pooling and scaling and CVRhoGrowth as
// its RhoGrowth, from beta = 0 and Base.Rho whatever WarmRho says: the same
// iterations and test-fold AUC, for each pooling and scaling (the setups
// are shared per fold, scaling and kind of pooling). Without Cold a repeated lambda starts from the
// previous fit's solution and takes fewer iterations than Fit from
// scratch. Selection.Fits counts the fits: 2 scalings x 2 poolings x 3
// folds x 2 lambdas.
func TestFitCVPathAgainstFit(t *testing.T) {
	ctx := context.Background()
	d, _, err := Synthetic(SynthConfig{Bags: 60, Features: 5, MinInstances: 2, MaxInstances: 4, Relevant: 2, Margin: 1, Seed: 17})
	require.NoError(t, err)
	s := smallSearch()
	s.Lambdas = []float64{0.01, 0.01}
	s.Poolings = []Pooling{MaxPooling(), MeanPooling()}
	s.Scalings = []Scaling{ScaleAuto, ScaleNone}
	s.ScreenFolds = 0
	s.WarmRho = 0.5
	s.CVRhoGrowth = 1.5 // Base's is another
	require.NotEqual(t, s.CVRhoGrowth, s.Base.withDefaults().RhoGrowth)

	splits, err := (Protocol{Folds: s.Folds, Repeats: 1, Seed: s.Seed}).Splits(d.Labels())
	require.NoError(t, err)
	fit := func(f, sc, pl int) (iters int, auc float64) {
		train, err := d.Subset(splits[f].Train)
		require.NoError(t, err)
		test, err := d.Subset(splits[f].Test)
		require.NoError(t, err)
		o := s.Base
		o.Lambda, o.Pooling, o.Scaling, o.RhoGrowth = 0.01, s.Poolings[pl], s.Scalings[sc], s.CVRhoGrowth
		m, err := Fit(ctx, train, o)
		require.NoError(t, err)
		q, err := m.BagScores(test)
		require.NoError(t, err)
		a, err := AUC(q, test.Labels())
		require.NoError(t, err)
		return m.Result().Iterations, a
	}
	for _, cold := range []bool{true, false} {
		s.Cold = cold
		cv := testCVRun(t, d, s)
		require.NoError(t, cv.run(ctx))
		assert.Equal(t, 24, cv.fits)
		for pair := range 4 {
			sc, pl := pair/2, pair%2 // pair = scaling x len(Poolings) + pooling
			for f := range cv.nf {
				iters, auc := fit(f, sc, pl)
				if cold {
					for l := range 2 {
						assert.Equal(t, iters, cv.iters[pair][f][l], "scaling %d pooling %d fold %d lambda %d", sc, pl, f, l)
						assert.InDelta(t, auc, cv.auc[pair][f][l], 1e-12)
					}
				} else {
					assert.Equal(t, iters, cv.iters[pair][f][0], "the first lambda starts cold")
					assert.Less(t, cv.iters[pair][f][1], iters, "warm start on the same lambda")
				}
			}
		}
	}
	// The warm fits' initial penalty is never below Base.Rho: a fraction
	// too small to matter starts each lambda at Base.Rho, as WarmRho = 0.
	var iters [2][][][]int
	for i, w := range []float64{0, 1e-300} {
		s.WarmRho = w
		cv := testCVRun(t, d, s)
		require.NoError(t, cv.run(ctx))
		iters[i] = cv.iters
	}
	assert.Equal(t, iters[0], iters[1])
}

// TestFitCVFoldsNeedClassBags: a class of Folds - 1 bags is too small for
// Folds folds, named with the counts.
func TestFitCVFoldsNeedClassBags(t *testing.T) {
	d, err := NewDense([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 1, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		[]float64{1, 1, 1, 1, 0, 0, 0, 0, 0, 0})
	require.NoError(t, err)
	s := DefaultSearch()
	s.Folds = 5
	_, _, err = FitCV(context.Background(), d, s)
	require.ErrorIs(t, err, ErrBadInput)
	assert.Contains(t, err.Error(), "5 folds need at least 5 bags of each class; the data has 4 positive and 6 negative bags")
}
