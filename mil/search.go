package mil

import (
	"fmt"
	"slices"

	"github.com/neadmm/neadmm/internal/num"
)

// Criterion is how FitCV scores a setting from its test-fold bag scores.
type Criterion int

const (
	// CriterionAUC scores a setting by its mean test-fold AUC (higher is
	// better).
	CriterionAUC Criterion = iota
	// CriterionDeviance scores a setting by its mean test-fold deviance
	// (lower is better): the mean log-loss log(1 + exp(-s q)) of its bag
	// scores q (s = +1 for a positive bag, -1 for a negative one), each
	// bag weighted as Base.Weighting weighs it in the fit (Balanced: the
	// classes of the test fold weigh the same), i.e. the fits' own loss
	// on held-out bags. Every pooling's bag score is the log-odds of a
	// logistic model (an ensemble's the mean of its members'), so the
	// values are comparable across settings. The deviance moves smoothly
	// with every bag's score where the AUC of a fold of a few dozen bags
	// changes only when two bags swap ranks, and it also rewards a
	// calibrated score: it separates settings whose AUCs tie within the
	// noise.
	CriterionDeviance
)

// String returns "auc" or "deviance".
func (c Criterion) String() string {
	switch c {
	case CriterionAUC:
		return "auc"
	case CriterionDeviance:
		return "deviance"
	}
	return fmt.Sprintf("Criterion(%d)", int(c))
}

// Search is the model selection of FitCV: the settings it tries (every
// combination of a scaling, a pooling and a lambda), how it scores them
// (stratified cross-validation inside the training data) and how much work
// it may skip. Start from DefaultSearch and change fields.
type Search struct {
	// Lambdas are the L1 weights tried (each finite and >= 0, in
	// Base.Loss's scale). Each
	// (scaling, pooling, fold) fits them as one path from the largest to
	// the smallest, each fit warm-started from the previous one.
	Lambdas []float64
	// Poolings and Scalings are the bag score rules and feature scalings
	// tried: every (scaling, pooling) pair but those in Skip (only their
	// Scaling and Pooling are read; one that is not a pair of the grid
	// changes nothing, and at least one pair must be left).
	Poolings []Pooling
	Scalings []Scaling
	Skip     []Setting
	// Folds (>= 2) is the number of stratified cross-validation folds;
	// every class needs at least Folds bags.
	Folds int
	// Repeats (0 means 1; at most MaxSplits) repeats the Folds-fold
	// cross-validation on that many independent stratified splits
	// (Protocol's, from Seed, within its caps MaxSplits and
	// MaxSplitIndices) and scores a setting by its mean score (see
	// Criterion) over all Folds*Repeats test folds. The settings times
	// Folds*Repeats, the fits, are at most MaxSearchFits.
	Repeats int
	// MinTestBags (>= 0; 0 turns it off) repeats the cross-validation on
	// small data sets until its test folds hold at least MinTestBags bags
	// in all (each repeat tests every bag once): FitCV on B bags runs
	// max(Repeats, min(ceil(MinTestBags/B), MaxAutoRepeats)) repeats. A
	// small set's inner folds are so few bags that one partition's noise
	// decides among settings; averaging over partitions removes that part
	// of it, at a cost that grows with the repeats on the sets whose fits
	// are cheapest (see docs/mil-options.md).
	MinTestBags int
	// Seed makes the folds deterministic (as Protocol.Seed).
	Seed uint64
	// Criterion is the score a setting is chosen by (the zero value,
	// CriterionAUC, is the mean test-fold AUC; DefaultSearch uses
	// CriterionDeviance). A setting's CV score is its mean fold AUC or
	// its mean fold deviance, negated, so that higher is better either
	// way; its standard error is the sample std of its fold values over
	// sqrt(folds). The best setting, the best ensemble, PreferBase and
	// PreferMean compare CV scores and standard errors, in the
	// criterion's units (AUC, or nats of deviance); EnsembleMargin,
	// EnsembleSE and the early rejection (ScreenFolds) stay on the AUC.
	Criterion Criterion
	// Workers caps the goroutines that run fits at once: 0 (or less)
	// means GOMAXPROCS. The result does not depend on it.
	Workers int
	// Base holds every other option of the fits (its Lambda, Pooling and
	// Scaling are replaced by the setting's). Its Callback is ignored:
	// the fits run concurrently, and the chosen options (Selection.Options,
	// EnsembleSetting.Options) have none. Its MaxBytes caps each fit's
	// estimate, checked on d before any work and on every setup, and the
	// tables of the cross-validation (see FitCV); FitCV holds at most
	// Workers setups at once.
	Base Options
	// ScreenFolds, Reject and RejectSE drop hopeless settings early: once
	// every setting has run on the first ScreenFolds folds, a (scaling,
	// pooling) pair whose best lambda's mean AUC over them trails the
	// best pair's, A, by more than max(Reject, RejectSE*se) runs no
	// further folds, where se = sqrt(A(1-A)/m/ScreenFolds) (m the smaller
	// class count of a test fold) is about the standard error of A: a
	// small test fold cannot reject on a difference its noise explains.
	// When the cross-validation is repeated, the same test runs again
	// after the first repeat (over its Folds folds), and a pair whose
	// best setting's CV score over them trails the best setting's by more
	// than RejectSE standard errors of their paired fold differences (see
	// Setting.ScoreSE) runs no further repeat either.
	// ScreenFolds >= 0; Reject and RejectSE are finite and >= 0, and
	// RejectSE = 0 means 1. ScreenFolds = 0 (or >= Folds*Repeats) runs
	// every setting on every fold.
	ScreenFolds int
	Reject      float64
	RejectSE    float64
	// PreferBase is the one-standard-error rule for lambda: when the best
	// setting has Base's pooling, Base's lambda (if in the grid) replaces
	// the best setting's within its (scaling, pooling) pair when the best
	// setting beats its CV score by at most one standard error of the best
	// setting's score (see Criterion). It keeps cross-validation noise
	// from moving lambda away from a default that is as good. It applies
	// to Base's pooling only (the same lambda penalizes the standardized
	// bag means of the mean pooling less) and never changes the pooling
	// or the scaling, which the plain maximum chooses. See
	// docs/mil-options.md for what it was measured to keep and lose.
	PreferBase bool
	// PreferMean (finite, >= 0; 0 turns the rule off) is a standard-error
	// rule for the pooling, applied before PreferBase: when the best
	// setting's pooling is not the mean (and is not held to FeatureMaxSE)
	// and the best mean-pooling setting's CV score is within PreferMean
	// standard errors of the best setting's (see Criterion), the
	// mean-pooling setting is chosen. The mean pooling is the simpler
	// model (convex, solved to its optimum), whose fold scores vary less,
	// so a small inner CV should not prefer the max over it on noise (see
	// docs/mil-options.md).
	PreferMean float64
	// CVRhoGrowth (0, or finite and >= 1) is the penalty growth per
	// iteration of the cross-validation fits (0: Base's); the final fit
	// uses Base's. A faster growth stops the fits in fewer iterations.
	CVRhoGrowth float64
	// Cold fits every lambda from beta = 0 instead of warm-starting it
	// from the previous lambda's iterate (slower; for comparison).
	Cold bool
	// EnsembleSize (>= 0) >= 2 also scores, as one more candidate each,
	// the equal-weight ensembles (see Ensemble) of every 2 to EnsembleSize
	// settings that ran on every fold (at most MaxEnsembleCandidates
	// ensembles for the grid's size; Validate refuses more); 0 and 1 score
	// none. An ensemble's fold values are the AUC and the deviance of the
	// mean of its members' test-fold bag scores, so it costs no fit. The
	// ensemble of the best CV score is chosen over the best setting (after
	// PreferBase) when its CV score is better than that setting's and its
	// CV AUC exceeds that setting's by more than EnsembleMargin (finite,
	// >= 0); FitCV then refits its settings on all of d and returns their
	// ensemble. Under CriterionAUC the second condition implies the first;
	// under CriterionDeviance the margin stays on the AUC because
	// averaging log-odds lowers the deviance by itself (the log-loss is
	// convex, so an ensemble's deviance is at most its members' mean).
	EnsembleSize   int
	EnsembleMargin float64
	// EnsembleSE (finite, >= 0; 0 turns the rule off) also requires the
	// best ensemble to beat the chosen setting's CV AUC by more than
	// EnsembleSE standard errors of their paired fold differences
	// (std/sqrt(folds) of ensemble minus setting, fold by fold), as well
	// as by EnsembleMargin, so that a gain within the inner CV's noise
	// does not choose an ensemble. DefaultSearch leaves it off: it also
	// rejects the ensembles where their gain is real (docs/mil-options.md).
	EnsembleSE float64
	// WarmRho is the initial penalty of the warm-started fits along a
	// lambda path, as a fraction of the penalty the previous fit ended
	// with (0: start from Base.Rho as a cold fit does), and never below
	// Base.Rho. It must be in [0, 1].
	WarmRho float64
	// Anchors and AnchorSE (finite, >= 0; 0 turns the rule off) are a
	// one-standard-error rule toward reference settings, applied first:
	// the first of Anchors that ran on every fold and whose CV score the
	// best setting's (among those not held to FeatureMaxSE) beats by at
	// most AnchorSE standard errors of their paired fold differences (the
	// sample std of the per-fold differences over the square root of
	// Folds, see Setting.ScoreSE) is chosen, and neither PreferMean,
	// PreferBase, an ensemble nor FeatureMaxSE's test replaces it. Only an
	// anchor's Lambda, Pooling and Scaling are read; one that is not a
	// setting of the grid is passed over, so that a grid narrowed from
	// DefaultSearch's needs no change here. Where the cross-validation
	// cannot tell the best setting from a reference one, FitCV returns the
	// reference, known to do well, rather than the setting that won on
	// that partition's noise (see docs/mil-options.md).
	Anchors  []Setting
	AnchorSE float64
	// FeatureMaxSE (finite, >= 0; 0 scores them as any other setting)
	// holds FeatureMaxPooling settings to a stricter test than the others:
	// they take no part in the choice of the best setting, PreferMean,
	// PreferBase or the ensembles, and the best of them replaces what
	// those chose (a setting or an ensemble) only when its CV score beats
	// that choice's by more than FeatureMaxSE of its own standard errors
	// (see Criterion). A bag's feature maxima are a different model from
	// the poolings of instance scores, whose inner CV score can beat
	// theirs while its test AUC is lower (see docs/mil-options.md).
	FeatureMaxSE float64
}

// DefaultSearch returns the default search, chosen by measurement (see
// docs/mil-options.md): lambdas 0.03, 0.01 and 0.003 (with DefaultOptions'
// mean loss); the max and the mean pooling with features standardized and
// raw, and the feature-wise mean and max (FeatureMeanMaxPooling) with
// standardized bag features only (Skip); 5 stratified folds with seed 1,
// repeated on small sets until the test folds hold 300 bags in all
// (MinTestBags: 2 repeats from 150 bags, 4 at 83). After the first fold,
// and again after the first repeat, the (scaling, pooling) pairs trailing
// the best by more than 0.02 AUC or 1.5 standard errors of the best one's,
// whichever is larger, are dropped, and after the first repeat also those
// whose best score trails the best setting's by more than 1.5 paired
// standard errors (RejectSE); the cross-validation fits grow rho by
// 5% per iteration (CVRhoGrowth) and start each lambda of a path from the
// previous fit's iterate with rho at 2% of where that fit ended (WarmRho).
// Settings are scored by their mean test-fold deviance (CriterionDeviance).
// The feature-wise mean and max at lambda 0.01, standardized, is chosen
// whenever the best setting beats it by at most 1.5 paired standard
// errors (Anchors, AnchorSE: that is L1 logistic regression on the bags'
// mean and max features, the model of the simple baselines). Otherwise the
// pooling and scaling are those of the best CV score, except that the best
// mean-pooling setting replaces another that beats it by at most one
// standard error (PreferMean); with the max pooling, DefaultOptions'
// lambda 0.01 is kept unless another beats it by more than one standard
// error (PreferBase); and the ensembles of two or three settings are
// candidates too: the one of the smallest deviance is chosen when its
// deviance is smaller than the chosen setting's and its CV AUC beats that
// setting's by more than 0.01 (EnsembleSize, EnsembleMargin). Add
// FeatureMaxPooling to Poolings for labels that follow features present
// anywhere in a bag: it is then held to FeatureMaxSE 2. The final fit uses
// DefaultOptions with the chosen lambda, pooling and scaling (one per
// member for an ensemble).
func DefaultSearch() Search {
	return Search{
		Lambdas:     []float64{0.03, 0.01, 0.003},
		Poolings:    []Pooling{MaxPooling(), MeanPooling(), FeatureMeanMaxPooling()},
		Scalings:    []Scaling{ScaleAuto, ScaleNone},
		Skip:        []Setting{{Pooling: FeatureMeanMaxPooling(), Scaling: ScaleNone}},
		Folds:       5,
		MinTestBags: 300,
		Seed:        1,
		Criterion:   CriterionDeviance,
		Base:        DefaultOptions(),
		ScreenFolds: 1,
		Reject:      0.02,
		RejectSE:    1.5,
		PreferBase:  true,
		PreferMean:  1,
		WarmRho:     0.02,
		CVRhoGrowth: 1.05,
		Anchors:     []Setting{{Lambda: 0.01, Pooling: FeatureMeanMaxPooling(), Scaling: ScaleAuto}},
		AnchorSE:    1.5,

		EnsembleSize:   3,
		EnsembleMargin: 0.01,
		FeatureMaxSE:   2,
	}
}

// Validate reports the first invalid field of s (an empty grid, a bad
// lambda, pooling or scaling, Folds < 2, invalid Base options) as an error
// wrapping ErrBadInput; one also wrapping ErrTooLarge for a grid of more
// than MaxSearchFits fits or MaxEnsembleCandidates ensembles.
func (s Search) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: Search."+format, append([]any{ErrBadInput}, a...)...)
	}
	switch {
	case len(s.Lambdas) == 0 || len(s.Poolings) == 0 || len(s.Scalings) == 0:
		return bad("Lambdas, Poolings, Scalings: %d, %d, %d values; the grid needs at least one of each",
			len(s.Lambdas), len(s.Poolings), len(s.Scalings))
	case s.Folds < 2:
		return bad("Folds = %d, want >= 2", s.Folds)
	case s.Repeats < 0:
		return bad("Repeats = %d, want >= 0", s.Repeats)
	case s.ScreenFolds < 0:
		return bad("ScreenFolds = %d, want >= 0", s.ScreenFolds)
	case !(s.Reject >= 0) || !num.Finite(s.Reject):
		return bad("Reject = %g, want finite and >= 0", s.Reject)
	case !(s.RejectSE >= 0) || !num.Finite(s.RejectSE):
		return bad("RejectSE = %g, want finite and >= 0", s.RejectSE)
	case !(s.WarmRho >= 0 && s.WarmRho <= 1):
		return bad("WarmRho = %g, want in [0, 1]", s.WarmRho)
	case s.EnsembleSize < 0:
		return bad("EnsembleSize = %d, want >= 0", s.EnsembleSize)
	case s.MinTestBags < 0:
		return bad("MinTestBags = %d, want >= 0", s.MinTestBags)
	case s.Repeats > MaxSplits:
		return bad("Repeats = %d, above MaxSplits = %d", s.Repeats, MaxSplits)
	case !(s.EnsembleMargin >= 0) || !num.Finite(s.EnsembleMargin):
		return bad("EnsembleMargin = %g, want finite and >= 0", s.EnsembleMargin)
	case !(s.EnsembleSE >= 0) || !num.Finite(s.EnsembleSE):
		return bad("EnsembleSE = %g, want finite and >= 0", s.EnsembleSE)
	case s.Criterion < CriterionAUC || s.Criterion > CriterionDeviance:
		return bad("Criterion = %d, unknown", int(s.Criterion))
	case !(s.PreferMean >= 0) || !num.Finite(s.PreferMean):
		return bad("PreferMean = %g, want finite and >= 0", s.PreferMean)
	case !(s.AnchorSE >= 0) || !num.Finite(s.AnchorSE):
		return bad("AnchorSE = %g, want finite and >= 0", s.AnchorSE)
	case !(s.FeatureMaxSE >= 0) || !num.Finite(s.FeatureMaxSE):
		return bad("FeatureMaxSE = %g, want finite and >= 0", s.FeatureMaxSE)
	case s.CVRhoGrowth != 0 && !(s.CVRhoGrowth >= 1 && num.Finite(s.CVRhoGrowth)):
		return bad("CVRhoGrowth = %g, want 0 or finite and >= 1", s.CVRhoGrowth)
	}
	for _, l := range s.Lambdas {
		if !(l >= 0) || !num.Finite(l) {
			return bad("Lambdas: %g, want finite and >= 0", l)
		}
	}
	for _, p := range s.Poolings {
		if err := p.Validate(); err != nil {
			return err
		}
	}
	for _, sc := range s.Scalings {
		if sc < ScaleAuto || sc > ScaleNone {
			return bad("Scalings: %d, unknown", int(sc))
		}
	}
	pairs := s.pairs()
	if len(pairs) == 0 {
		return bad("Skip leaves no (scaling, pooling) pair of the grid")
	}
	if err := s.checkFits(len(pairs)); err != nil {
		return err
	}
	if n := ensembleCandidates(len(s.Lambdas)*len(pairs), s.EnsembleSize); n > MaxEnsembleCandidates {
		return fmt.Errorf("%w: %w: Search.EnsembleSize = %d: ensembles of 2 to %d of the grid's %d settings are %.4g candidates, above MaxEnsembleCandidates = %d",
			ErrBadInput, ErrTooLarge, s.EnsembleSize, s.EnsembleSize, len(s.Lambdas)*len(pairs), n, MaxEnsembleCandidates)
	}
	return s.Base.Validate()
}

// MaxSearchFits caps the cross-validation fits of a Search, settings
// (lambdas x the (scaling, pooling) pairs not skipped) x Folds x Repeats,
// the repeats MinTestBags adds included: FitCV keeps a few numbers per
// fit (its test-fold AUC, deviance, iterations and bag scores), so the
// cap bounds those tables (about 64 MB of them without the scores) before
// anything is allocated; at a millisecond per fit it is already 17
// minutes of fits. DefaultSearch runs 75 per repeat, at most 750.
const MaxSearchFits = 1 << 20

// checkFits returns an error wrapping ErrTooLarge when the grid's fits,
// settings (lambdas x np pairs) x Folds x Repeats, exceed MaxSearchFits.
func (s Search) checkFits(np int) error {
	// The grid's sizes multiply: float64 cannot overflow.
	if fits := float64(len(s.Lambdas)) * float64(np) * float64(s.Folds) * float64(max(s.Repeats, 1)); fits > MaxSearchFits {
		return fmt.Errorf("%w: %w: Search: %d lambdas x %d (scaling, pooling) pairs x %d folds x %d repeats are %.4g fits, above MaxSearchFits = %d",
			ErrBadInput, ErrTooLarge, len(s.Lambdas), np, s.Folds, max(s.Repeats, 1), fits, MaxSearchFits)
	}
	return nil
}

// pairs returns the (scaling, pooling) pairs of the grid as indices into
// s.Scalings and s.Poolings, scalings first, without those in s.Skip.
func (s Search) pairs() [][2]int {
	var out [][2]int
	for sc := range s.Scalings {
		for pl := range s.Poolings {
			if !s.skipped(Setting{Scaling: s.Scalings[sc], Pooling: s.Poolings[pl]}) {
				out = append(out, [2]int{sc, pl})
			}
		}
	}
	return out
}

// skipped reports whether st's (scaling, pooling) pair is in s.Skip.
func (s Search) skipped(st Setting) bool {
	return slices.ContainsFunc(s.Skip, func(sk Setting) bool { return sk.Scaling == st.Scaling && sk.Pooling == st.Pooling })
}

// MaxAutoRepeats caps the repeats Search.MinTestBags asks for.
const MaxAutoRepeats = 10

// repeatsFor returns the number of repeats of the cross-validation on nb
// bags (see Repeats and MinTestBags).
func (s Search) repeatsFor(nb int) int {
	r := max(s.Repeats, 1)
	if s.MinTestBags > 0 && nb > 0 {
		r = max(r, min((s.MinTestBags+nb-1)/nb, MaxAutoRepeats))
	}
	return r
}

// MaxEnsembleCandidates caps the ensembles FitCV scores (see
// Search.EnsembleSize): each costs a pass over every test fold's bag
// scores, and their number grows as settings^EnsembleSize.
// DefaultSearch's grid of 15 settings has 560.
const MaxEnsembleCandidates = 100000

// ensembleCandidates returns the number of ensembles of 2 to size of n
// settings, sum over k of C(n, k), in float64 (it cannot overflow; the
// sum stops once it passes the cap).
func ensembleCandidates(n, size int) float64 {
	total, c := 0.0, float64(n) // c = C(n, k-1)
	for k := 2; k <= min(size, n); k++ {
		c = c * float64(n-k+1) / float64(k)
		total += c
		if total > MaxEnsembleCandidates {
			break
		}
	}
	return total
}
