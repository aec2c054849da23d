package mil

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The model-selection rules of FitCV on injected fold values: a cvRun built
// by newCVRun whose cells are filled by hand, so that each rule is checked
// just on either side of its boundary with no fit. The values are dyadic
// (k/2^n) so that the boundaries are exact in floating point.

// injectedRun returns the cross-validation state of s over nf folds (the
// splits themselves are not used by reject or selection), with no cell
// run.
func injectedRun(d *Dataset, s Search, nf int) *cvRun {
	return newCVRun(d, s, make([]Split, nf))
}

// inject records fold values for (pair, lambda) as if its fits had run on
// folds 0 to len(aucs)-1; devs may be nil (reject reads only the AUC).
func inject(t *testing.T, cv *cvRun, pair int, lam float64, aucs, devs []float64) {
	t.Helper()
	l := -1
	for i, v := range cv.lams {
		if v == lam {
			l = i
		}
	}
	require.GreaterOrEqual(t, l, 0, "lambda %g not in the grid", lam)
	for f, a := range aucs {
		cv.auc[pair][f][l] = a
		if devs != nil {
			cv.dev[pair][f][l] = devs[f]
		}
	}
}

// rep returns n copies of v.
func rep(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

// bestDevs are 4 fold deviances of mean 0.5 whose deviations (3, -1, -1,
// -1)/32 have sample std sqrt((9+1+1+1)/32^2/3) = 2/32, so that the
// standard error of the mean is 2/32/sqrt(4) = 1/32 exactly.
var bestDevs = []float64{0.59375, 0.46875, 0.46875, 0.46875}

const bestDevSE = 1.0 / 32

// devianceSearch is a grid of one scaling under CriterionDeviance with
// every rule off; the tests turn on the one they check.
func devianceSearch(lambdas []float64, poolings ...Pooling) Search {
	s := DefaultSearch()
	s.Lambdas = lambdas
	s.Poolings = poolings
	s.Scalings = []Scaling{ScaleAuto}
	s.Criterion = CriterionDeviance
	s.PreferBase, s.PreferMean, s.EnsembleSize = false, 0, 0
	s.Anchors, s.AnchorSE, s.Skip, s.MinTestBags = nil, 0, nil, 0
	return s
}

// TestSelectionPreferMeanDeviance: under CriterionDeviance PreferMean
// compares deviances (not AUCs) against PreferMean standard errors of the
// best setting's deviance (not of its AUC). The best, max-pooling setting
// has deviance 0.5 with SE 1/32 and a constant AUC (AUC SE 0); the best
// mean-pooling one has the lower AUC 0.6 and deviance 0.5 + 2 SE = 0.5625
// (within PreferMean = 2 SEs, the boundary included: the mean is chosen)
// or 2^-10 more (the max is kept). An AUC SE of 0, an AUC difference of
// 0.3, a bound of 1 SE or of PreferMean = 2 nats each flips one of them.
func TestSelectionPreferMeanDeviance(t *testing.T) {
	for _, c := range []struct {
		meanDev  float64
		wantMean bool
	}{{0.5625, true}, {0.5625 + 1.0/1024, false}} {
		s := devianceSearch([]float64{0.03, 0.01}, MaxPooling(), MeanPooling())
		s.PreferMean = 2
		cv := injectedRun(nil, s, 4)
		inject(t, cv, 0, 0.03, rep(0.9, 4), bestDevs)
		// A better AUC, a worse deviance: not the best by the criterion.
		inject(t, cv, 0, 0.01, rep(0.95, 4), rep(0.75, 4))
		inject(t, cv, 1, 0.03, rep(0.6, 4), rep(c.meanDev, 4))
		// The mean setting of the better AUC has the worse deviance: the
		// rule takes the other.
		inject(t, cv, 1, 0.01, rep(0.7, 4), rep(0.625, 4))
		sel := testSelection(t, cv)
		require.Equal(t, bestDevSE, s.scoreSE(sel.Settings[0]))
		want := Setting{Lambda: 0.03, Pooling: MaxPooling(), Scaling: ScaleAuto}
		if c.wantMean {
			want.Pooling = MeanPooling()
		}
		assert.Equal(t, want.String(), sel.Best.String(), "mean-pooling deviance %g", c.meanDev)
	}
}

// TestSelectionPreferBaseDeviance: under CriterionDeviance PreferBase keeps
// Base's lambda 0.01 when its deviance is within one standard error of the
// best's deviance (boundary included), whatever the AUCs say. The best
// (lambda 0.003) has deviance 0.5, SE 1/32, AUC 0.9 with AUC SE 0; Base's
// lambda has AUC 0.6 and deviance 0.5 + 1/32 (kept) or 2^-10 more (not).
func TestSelectionPreferBaseDeviance(t *testing.T) {
	for _, c := range []struct {
		baseDev  float64
		wantBase bool
	}{{0.5 + bestDevSE, true}, {0.5 + bestDevSE + 1.0/1024, false}} {
		s := devianceSearch([]float64{0.03, 0.01, 0.003}, MaxPooling())
		s.PreferBase = true
		require.Equal(t, 0.01, s.Base.Lambda)
		cv := injectedRun(nil, s, 4)
		inject(t, cv, 0, 0.003, rep(0.9, 4), bestDevs)
		inject(t, cv, 0, 0.01, rep(0.6, 4), rep(c.baseDev, 4))
		inject(t, cv, 0, 0.03, rep(0.95, 4), rep(0.75, 4))
		sel := testSelection(t, cv)
		want := 0.003
		if c.wantBase {
			want = 0.01
		}
		assert.Equal(t, want, sel.Best.Lambda, "Base's deviance %g", c.baseDev)
	}
}

// logLoss4 is the Balanced deviance of scores q of the bags labelled 1, 1,
// 0, 0: each class's mean log(1 + exp(-s q)) weighted 1/2.
func logLoss4(q []float64) float64 {
	l := func(x float64) float64 { return math.Log1p(math.Exp(-x)) }
	return (l(q[0])+l(q[1]))/4 + (l(-q[2])+l(-q[3]))/4
}

// TestSelectionEnsembleDeviance: under CriterionDeviance the ensemble must
// beat the chosen setting's deviance as well as its AUC by EnsembleMargin.
// Two settings on two identical test folds of bags labelled 1, 1, 0, 0:
// A (scores 6, 0, -6, 0.1; AUC 3/4, deviance about 0.36, the best) and B.
// With B = (-16, 0, -30, -20) the mean (-5, 0, -18, -9.95) ranks every
// pair (AUC 1) but its first positive costs log(1 + e^5), deviance about
// 1.42: not chosen. With B = (0, 1, 0, 0) the mean (3, 0.5, -3, 0.05) has
// AUC 1 and deviance about 0.32: chosen.
func TestSelectionEnsembleDeviance(t *testing.T) {
	labels := []float64{1, 1, 0, 0}
	test, err := NewDense(make([]float64, 4), 1, []int{0, 1, 2, 3, 4}, labels)
	require.NoError(t, err)
	a := []float64{6, 0, -6, 0.1}
	for _, c := range []struct {
		b         []float64
		bAUC      float64
		ensembled bool
	}{
		{[]float64{-16, 0, -30, -20}, 1, false},
		// B's AUC: the positive 0 ties both negatives (1/2 each), the
		// positive 1 beats both: 3/4.
		{[]float64{0, 1, 0, 0}, 0.75, true},
	} {
		s := devianceSearch([]float64{0.03, 0.003}, MaxPooling())
		s.EnsembleSize, s.EnsembleMargin = 2, 0.01
		cv := injectedRun(nil, s, 2)
		cv.tests = []*Dataset{test, test}
		mix := make([]float64, 4)
		for i := range mix {
			mix[i] = (a[i] + c.b[i]) / 2
		}
		// The premise, from the scores: the ensemble's AUC beats A's by
		// 1/4 in both cases, its deviance A's only in the second.
		require.Equal(t, c.ensembled, logLoss4(mix) < logLoss4(a))
		for f := range 2 {
			cv.scores[0][f] = [][]float64{a, c.b} // lambdas 0.03, 0.003
		}
		inject(t, cv, 0, 0.03, rep(0.75, 2), rep(logLoss4(a), 2))
		inject(t, cv, 0, 0.003, rep(c.bAUC, 2), rep(logLoss4(c.b), 2))
		sel := testSelection(t, cv)
		require.NotNil(t, sel.Ensemble)
		assert.Equal(t, 1.0, sel.Ensemble.AUC)
		assert.InDelta(t, logLoss4(mix), sel.Ensemble.Deviance, 1e-12)
		assert.Equal(t, c.ensembled, sel.Ensembled, "B %v", c.b)
		assert.Equal(t, 0.03, sel.Best.Lambda) // A, alone or as the first member
	}
}

// TestRejectMargin: after ScreenFolds = 4 folds of a 4-fold CV repeated
// twice, on 36 bags of one class and 12 of the other (3 of the smaller
// class per test fold), the best pair's mean AUC A = 3/4 has se =
// sqrt(A(1-A)/3/4) = 1/8; a pair is dropped when its best lambda's mean
// AUC over the screening folds is below A - max(Reject, RejectSE*se)
// (RejectSE 0 meaning 1). Each case puts one pair exactly at the boundary
// (kept) and one 2^-10 below it (dropped). Without the /ScreenFolds se
// would be 1/4; with the larger class (9 a fold) or all bags (12 a fold),
// about 0.072 or 1/16: each flips a pair. The positives are the larger
// class, then the smaller.
func TestRejectMargin(t *testing.T) {
	for _, pos := range []int{36, 12} {
		t.Run(fmt.Sprintf("%d positives", pos), func(t *testing.T) { testRejectMargin(t, pos) })
	}
}

// testRejectMargin runs TestRejectMargin's cases on pos positive bags of
// 48.
func testRejectMargin(t *testing.T, pos int) {
	labels := append(rep(1, pos), rep(0, 48-pos)...)
	bagPtr := make([]int, len(labels)+1)
	for i := range bagPtr {
		bagPtr[i] = i
	}
	d, err := NewDense(make([]float64, len(labels)), 1, bagPtr, labels)
	require.NoError(t, err)
	for _, c := range []struct {
		reject, rejectSE, margin float64
	}{
		{0.02, 0, 1.0 / 8},    // RejectSE 0 is 1: se binds
		{0.02, 1, 1.0 / 8},    // the same, explicit
		{0.02, 1.5, 3.0 / 16}, // 1.5 se
		{0.25, 1, 1.0 / 4},    // Reject binds
	} {
		s := devianceSearch([]float64{0.03, 0.003}, MaxPooling(), MeanPooling(), TopKPooling(2))
		s.Folds, s.Repeats, s.ScreenFolds = 4, 2, 4
		s.Reject, s.RejectSE = c.reject, c.rejectSE
		cv := injectedRun(d, s, 8)
		// A pair's fold AUCs vary around their mean v (the mean is what
		// counts); its other lambda is worse.
		put := func(pair int, v float64) {
			inject(t, cv, pair, 0.03, []float64{v + 0.0625, v - 0.0625, v, v}, nil)
			inject(t, cv, pair, 0.003, rep(v-0.125, 4), nil)
		}
		put(0, 0.75)
		put(1, 0.75-c.margin)
		put(2, 0.75-c.margin-1.0/1024)
		cv.reject(s.ScreenFolds)
		assert.Equal(t, []bool{true, true, false}, cv.alive, "Reject %g, RejectSE %g", c.reject, c.rejectSE)
	}
}

// TestPairedSE checks the standard error of the mean paired difference by
// hand: differences (0.1, 0.3, 0.2) have mean 0.2, sample std 0.1, so
// 0.1/sqrt(3); one fold gives 0.
func TestPairedSE(t *testing.T) {
	a := []float64{0.9, 0.8, 0.75}
	b := []float64{0.8, 0.5, 0.55}
	assert.InDelta(t, 0.1/math.Sqrt(3), pairedSE(a, b), 1e-15)
	assert.InDelta(t, pairedSE(a, b), pairedSE(b, a), 1e-15)
	assert.Zero(t, pairedSE(a[:1], b[:1]))
}

// TestDevianceEmptyClass: Balanced weighs a class by 1/(2 B_c), undefined
// (NaN) when either class is missing from the bags; Uniform is the plain
// mean, log(1 + e^{-(2y-1) q}) = log(1 + e^{0.5}) for y = 0, q = 0.5.
func TestDevianceEmptyClass(t *testing.T) {
	for _, y := range []float64{0, 1} {
		assert.True(t, math.IsNaN(deviance([]float64{0.5, -1}, []float64{y, y}, Balanced)), "only class %v", y)
	}
	assert.InDelta(t, math.Log1p(math.Exp(0.5)), deviance([]float64{0.5}, []float64{0}, Uniform), 1e-15)
}

// TestMeanStdAUCByHand: the mean and sample std of the non-NaN values:
// (0.5, 0.7) have mean 0.6 and std sqrt((0.01 + 0.01)/1) = sqrt(0.02), a
// NaN among them changes nothing, no value gives a NaN mean; pairedSE
// over two folds with differences (0.1, 0.3) is sqrt(0.02)/sqrt(2) = 0.1.
func TestMeanStdAUCByHand(t *testing.T) {
	for _, x := range [][]float64{{0.5, 0.7}, {0.5, math.NaN(), 0.7}} {
		m, sd, n := meanStdAUC(x)
		assert.InDelta(t, 0.6, m, 1e-15)
		assert.InDelta(t, math.Sqrt(0.02), sd, 1e-15)
		assert.Equal(t, 2, n)
	}
	m, sd, n := meanStdAUC([]float64{math.NaN()})
	assert.True(t, math.IsNaN(m))
	assert.Zero(t, sd)
	assert.Zero(t, n)
	assert.InDelta(t, 0.1, pairedSE([]float64{0.9, 0.8}, []float64{0.8, 0.5}), 1e-15)
}

// TestSelectionAnchor: the anchor is chosen when the best setting beats
// its deviance by at most AnchorSE standard errors of their paired fold
// differences (boundary included), over any other rule and any ensemble;
// else the other rules run as without it. The best (max pooling, lambda
// 0.03) has deviances bestDevs (mean 0.5); the anchor's are bestDevs + c
// + (3, -1, -1, -1)/32, whose differences from the best's have mean c and
// sample std 2/32, so a standard error of 1/32 over the 4 folds, where
// the anchor's own standard error is 2/32: c = 1/32 anchors, 2^-10 more
// does not (nor would it with the unpaired errors). PreferBase would move
// the best to lambda 0.01, and an ensemble of the two would win on AUC.
func TestSelectionAnchor(t *testing.T) {
	anchor := Setting{Lambda: 0.01, Pooling: FeatureMeanMaxPooling(), Scaling: ScaleAuto}
	for _, c := range []struct {
		shift      float64
		wantAnchor bool
	}{{1.0 / 32, true}, {1.0/32 + 1.0/1024, false}, {-0.25, true}} {
		s := devianceSearch([]float64{0.03, 0.01}, MaxPooling(), FeatureMeanMaxPooling())
		s.Anchors, s.AnchorSE = []Setting{anchor}, 1
		s.PreferBase = true
		cv := injectedRun(nil, s, 4)
		inject(t, cv, 0, 0.03, rep(0.75, 4), bestDevs)
		inject(t, cv, 0, 0.01, rep(0.75, 4), rep(0.5+1.0/64, 4))
		dev := make([]float64, 4)
		for f, v := range []float64{3, -1, -1, -1} {
			dev[f] = bestDevs[f] + c.shift + v/32
		}
		inject(t, cv, 1, 0.01, rep(0.75, 4), dev)
		inject(t, cv, 1, 0.03, rep(0.5, 4), rep(2, 4))
		sel := testSelection(t, cv)
		got := sel.Best
		if c.wantAnchor {
			assert.Equal(t, anchor.String(), got.String(), "shift %g", c.shift)
		} else {
			// PreferBase moves lambda within the max pooling.
			assert.Equal(t, Setting{Lambda: 0.01, Pooling: MaxPooling(), Scaling: ScaleAuto}.String(), got.String(), "shift %g", c.shift)
		}
		assert.Equal(t, bestDevSE, s.pairedScoreSE(sel.Settings[0], sel.Settings[3]))
	}
	// An ensemble that would replace the best setting (here the anchor
	// itself: A = (6, 0, -6, 0.1) on both folds, deviance about 0.36; the
	// anchor B = (0, 1, 0, 0), then (2, 3, -2, -2), mean deviance about
	// 0.35, AUC 7/8; their mean ranks every pair on both folds, with a
	// deviance of about 0.26) is taken only when the anchor rule is off.
	for _, anchored := range []bool{true, false} {
		s := devianceSearch([]float64{0.01}, MaxPooling(), FeatureMeanMaxPooling())
		s.Anchors, s.AnchorSE = []Setting{anchor}, 1
		if !anchored {
			s.AnchorSE = 0
		}
		s.EnsembleSize, s.EnsembleMargin = 2, 0.01
		labels := []float64{1, 1, 0, 0}
		cv := injectedRun(nil, s, 2)
		cv.tests = []*Dataset{perBagData(t, labels), perBagData(t, labels)}
		for f := range 2 {
			put := func(pair int, q []float64) {
				a, err := AUC(q, labels)
				require.NoError(t, err)
				cv.auc[pair][f][0], cv.dev[pair][f][0], cv.scores[pair][f][0] = a, deviance(q, labels, Balanced), q
			}
			put(0, []float64{6, 0, -6, 0.1})
			put(1, [][]float64{{0, 1, 0, 0}, {2, 3, -2, -2}}[f])
		}
		sel := testSelection(t, cv)
		require.NotNil(t, sel.Ensemble)
		assert.Equal(t, !anchored, sel.Ensembled, "anchor rule on: %v", anchored)
		if anchored {
			assert.Equal(t, anchor.String(), sel.Best.String())
		}
	}
}

// perBagData returns a dataset of one instance (feature 0) per bag with
// the given labels, for the test folds of injected runs.
func perBagData(t *testing.T, labels []float64) *Dataset {
	t.Helper()
	ptr := make([]int, len(labels)+1)
	for i := range ptr {
		ptr[i] = i
	}
	d, err := NewDense(make([]float64, len(labels)), 1, ptr, slices.Clone(labels))
	require.NoError(t, err)
	return d
}

// TestPairedScoreSE: the paired standard error divides by the folds of one
// repeat (Folds), not by all the folds of the repeats.
func TestPairedScoreSE(t *testing.T) {
	s := Search{Folds: 4, Criterion: CriterionDeviance}
	a := Setting{FoldDeviance: []float64{1, 2, 3, 4, 1, 2, 3, 4}, FoldAUC: make([]float64, 8)}
	b := Setting{FoldDeviance: make([]float64, 8), FoldAUC: make([]float64, 8)}
	_, sd, _ := meanStdAUC(a.FoldDeviance)
	assert.InDelta(t, sd/2, s.pairedScoreSE(a, b), 1e-15)
	s.Criterion = CriterionAUC
	assert.Zero(t, s.pairedScoreSE(a, b))
	assert.Zero(t, s.pairedScoreSE(Setting{FoldAUC: []float64{1}}, Setting{FoldAUC: []float64{0}}))
}

// TestRejectAfterFirstRepeat: with repeats, the pairs are screened after
// ScreenFolds folds and again after the first repeat, by the AUC margin
// and by their scores' paired standard errors; a pair dropped at the first
// stage (over fewer folds) neither sets the best at the second nor is
// revived.
func TestRejectAfterFirstRepeat(t *testing.T) {
	labels := append(rep(1, 24), rep(0, 24)...)
	d := perBagData(t, labels)
	s := devianceSearch([]float64{0.01}, MaxPooling(), MeanPooling(), TopKPooling(2))
	s.Folds, s.Repeats, s.ScreenFolds = 4, 2, 1
	s.Reject, s.RejectSE = 0.05, 1e-9
	cv := injectedRun(d, s, 8)
	assert.Equal(t, [][2]int{{0, 1}, {1, 4}, {4, 8}}, cv.stages())
	inject(t, cv, 0, 0.01, rep(0.75, 1), nil)
	inject(t, cv, 1, 0.01, rep(0.75, 1), nil)
	inject(t, cv, 2, 0.01, rep(0.5, 1), nil)
	cv.reject(1)
	require.Equal(t, []bool{true, true, false}, cv.alive)
	cv.auc[2][0][0] = 1 // as if it had been far ahead: it is out all the same
	inject(t, cv, 0, 0.01, rep(0.75, 4), nil)
	inject(t, cv, 1, 0.01, []float64{0.75, 0.5, 0.5, 0.5}, nil)
	cv.reject(4)
	assert.Equal(t, []bool{true, false, false}, cv.alive)

	// At the end of the first repeat a pair also goes when its best
	// setting's score trails the best setting's by more than RejectSE
	// paired standard errors, whatever the AUCs: deviances bestDevs + c +
	// (3, -1, -1, -1)/32 against bestDevs differ by c with a standard
	// error of 1/32 over the 4 folds; the bound 1.5/32 is kept.
	for _, c := range []struct {
		shift float64
		keep  bool
	}{{1.5 / 32, true}, {1.5/32 + 1.0/1024, false}} {
		s := devianceSearch([]float64{0.01}, MaxPooling(), MeanPooling())
		s.Folds, s.Repeats, s.ScreenFolds = 4, 2, 1
		s.Reject, s.RejectSE = 0.5, 1.5
		cv := injectedRun(d, s, 8)
		dev := make([]float64, 4)
		for f, v := range []float64{3, -1, -1, -1} {
			dev[f] = bestDevs[f] + c.shift + v/32
		}
		inject(t, cv, 0, 0.01, rep(0.75, 4), bestDevs)
		inject(t, cv, 1, 0.01, rep(0.75, 4), dev)
		cv.reject(4)
		assert.Equal(t, []bool{true, c.keep}, cv.alive, "shift %g", c.shift)
	}

	for _, c := range []struct {
		screen, folds, nf int
		want              [][2]int
	}{
		{0, 5, 10, [][2]int{{0, 10}}},
		{10, 5, 10, [][2]int{{0, 10}}},
		{1, 5, 5, [][2]int{{0, 1}, {1, 5}}},
		{5, 5, 10, [][2]int{{0, 5}, {5, 10}}},
		{7, 5, 10, [][2]int{{0, 7}, {7, 10}}},
	} {
		s := Search{ScreenFolds: c.screen, Folds: c.folds, Lambdas: []float64{1}, Poolings: []Pooling{{}}, Scalings: []Scaling{0}}
		assert.Equal(t, c.want, injectedRun(nil, s, c.nf).stages(), "%+v", c)
	}
}
