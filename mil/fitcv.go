package mil

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

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
	// Lambdas are the L1 weights tried (in Base.Loss's scale). Each
	// (scaling, pooling, fold) fits them as one path from the largest to
	// the smallest, each fit warm-started from the previous one.
	Lambdas []float64
	// Poolings and Scalings are the bag score rules and feature scalings
	// tried.
	Poolings []Pooling
	Scalings []Scaling
	// Folds (>= 2) is the number of stratified cross-validation folds;
	// every class needs at least Folds bags.
	Folds int
	// Repeats (0 means 1) repeats the Folds-fold cross-validation on
	// that many independent stratified splits (Protocol's, from Seed,
	// within its caps MaxSplits and MaxSplitIndices) and scores a setting
	// by its mean score (see Criterion) over all Folds*Repeats test folds.
	Repeats int
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
	// estimate, checked on d before any work and on every setup;
	// FitCV holds up to 3 x len(Scalings) x Folds x Repeats setups at
	// once, each no larger than a fit's on d.
	Base Options
	// ScreenFolds, Reject and RejectSE drop hopeless settings early: once
	// every setting has run on the first ScreenFolds folds, a (scaling,
	// pooling) pair whose best lambda's mean AUC over them trails the
	// best pair's, A, by more than max(Reject, RejectSE*se) runs no
	// further folds, where se = sqrt(A(1-A)/m/ScreenFolds) (m the smaller
	// class count of a test fold) is about the standard error of A: a
	// small test fold cannot reject on a difference its noise explains.
	// RejectSE = 0 means 1. ScreenFolds = 0 (or >= Folds*Repeats) runs
	// every setting on every fold.
	ScreenFolds int
	Reject      float64
	RejectSE    float64
	// PreferBase is the one-standard-error rule for lambda: when the best
	// setting has Base's pooling, within its (scaling, pooling) pair Base's
	// lambda is kept when it is in the grid and the best setting beats its
	// CV score by no more than one standard error of the best setting's
	// score (see Criterion), so that noise in the cross-validation does not
	// move lambda away from a default that is as good (with CriterionAUC on
	// vaccine it keeps 0.01 where the plain maximum picks 0.003 and loses
	// 0.004 AUC; CriterionDeviance favours the smaller lambda 0.003 with the
	// max pooling, and without the rule it lost 0.037 on the synthetic max
	// rule, picking 0.003 in 36 of 50 folds). Base's lambda is a default for
	// Base's pooling only: the mean pooling is solved on the bag means
	// standardized over the bags, where the same lambda penalizes less
	// (their deviations are smaller than the instances'), and there the rule
	// pulled musk1 to 0.01 against the better 0.03 (see the package
	// documentation). The pooling and scaling are chosen by the plain
	// maximum: a rule that also kept Base's pooling (max) lost 0.014 AUC on
	// musk1, where the mean pooling wins by 0.09 but an inner CV of 80 bags
	// often cannot show it within one standard error.
	PreferBase bool
	// PreferMean is a standard-error rule for the pooling, applied before
	// PreferBase: when the best setting's pooling is not the mean and the
	// best mean-pooling setting's CV score is within PreferMean standard
	// errors of the best setting's (see Criterion), the mean-pooling setting
	// is chosen. The mean pooling is the simpler model (L1 logistic
	// regression on the bag means, convex and solved to its optimum), the
	// max a nonconvex fit whose fold scores vary more, and an inner CV of 80
	// to 150 bags picks it on noise: on mutagenesis, with CriterionAUC, the
	// max won the plain maximum in 12 of 50 folds where its test AUC was
	// 0.75 against the mean's 0.78 (see the package documentation). 0 turns
	// the rule off; it must be finite and >= 0.
	PreferMean float64
	// CVRhoGrowth is the penalty growth per iteration of the
	// cross-validation fits (0: Base's); the final fit uses Base's. A
	// faster growth stops the fits in fewer iterations.
	CVRhoGrowth float64
	// Cold fits every lambda from beta = 0 instead of warm-starting it
	// from the previous lambda's iterate (slower; for comparison).
	Cold bool
	// EnsembleSize >= 2 also scores, as one more candidate each, the
	// equal-weight ensembles (see Ensemble) of every 2 to EnsembleSize
	// settings that ran on every fold (at most MaxEnsembleCandidates
	// ensembles for the grid's size; Validate refuses more): an
	// ensemble's fold values are the
	// AUC and the deviance of the mean of its members' test-fold bag
	// scores, so it costs no fit. The ensemble of the best CV score is
	// chosen over the best setting (after PreferBase) when its CV score
	// is better than that setting's and its CV AUC exceeds that
	// setting's by more than EnsembleMargin (under CriterionAUC the
	// second implies the first; under CriterionDeviance the margin stays
	// on the AUC because averaging log-odds lowers the deviance by
	// itself: the log-loss is convex, so an ensemble's deviance is at
	// most its members' mean); FitCV then refits its settings on all of
	// d and returns their ensemble. 0 and 1 score no ensemble.
	EnsembleSize   int
	EnsembleMargin float64
	// EnsembleSE > 0 also requires the best ensemble to beat the chosen
	// setting's CV AUC by more than EnsembleSE standard errors of their
	// paired fold differences (std/sqrt(folds) of ensemble minus setting,
	// fold by fold), so that an ensemble whose gain is within the inner
	// CV's noise is not chosen (as well as EnsembleMargin). 0 turns the
	// rule off; it must be finite and >= 0. DefaultSearch leaves it off:
	// measured with CriterionAUC (10-fold CV x5, paired against it), 1.5
	// gains 0.001 to 0.010 AUC on mutagenesis and musk1 (under two
	// standard errors each) but loses 0.023 on the synthetic two-witness
	// rule, whose gain is the ensembles', and 0.014 on the synthetic max
	// rule; 1 still loses 0.010 on the two-witness rule.
	EnsembleSE float64
	// WarmRho is the initial penalty of the warm-started fits along a
	// lambda path, as a fraction of the penalty the previous fit ended
	// with (0: start from Base.Rho as a cold fit does), and never below
	// Base.Rho. It must be in [0, 1].
	WarmRho float64
	// FeatureMaxSE > 0 holds FeatureMaxPooling settings to a stricter
	// test than the others: they take no part in the choice of the best
	// setting, PreferMean, PreferBase or the ensembles, and the best of
	// them replaces what those chose (a setting or an ensemble) only when
	// its CV score beats that choice's by more than FeatureMaxSE of its
	// own standard errors (see Criterion). A bag's feature maxima are a
	// different model from the poolings of instance scores, and on
	// vaccine (1572 bags) its inner deviance beat theirs in 27 of 50
	// training sets while its test AUC was lower (0.866 against 0.872):
	// with 2 (DefaultSearch's; its grid has no feature-max setting unless
	// added) it was chosen in none of them, nor on fox, musk1 and the
	// synthetic max and mean rules, and in all 50 where the labels follow
	// the features' maxima (see the README). 0 scores them as any other
	// setting. It must be finite and >= 0.
	FeatureMaxSE float64
}

// DefaultSearch returns the measured default search (see the package
// documentation): lambdas 0.03, 0.01 and 0.003 (with DefaultOptions'
// mean loss), the max and the mean pooling (add FeatureMaxPooling to
// Poolings for labels that follow features present anywhere in a bag: it
// is then held to FeatureMaxSE 2), features standardized and
// raw, 5 stratified folds (one repeat) with seed 1; after the first fold
// the (scaling, pooling) pairs trailing the best by more than 0.02 AUC or
// 1.5 standard errors of the best one's, whichever is larger, are
// dropped; the cross-validation fits grow rho by 5% per iteration (half
// the iterations of the default 2%, at the same AUC on fox and vaccine)
// and start each lambda of a path from the previous fit's iterate with
// rho at 2% of where that fit ended. Settings are scored by their mean
// test-fold deviance (CriterionDeviance), which chose better than the
// mean test-fold AUC on the sets measured (see the package
// documentation). The pooling and scaling are those of the best CV
// score, except that the best mean-pooling setting replaces a
// max-pooling one that beats it by at most one standard error
// (PreferMean); with the max pooling, DefaultOptions' lambda 0.01 is kept
// unless another beats it by more than one standard error (PreferBase).
// The ensembles of two or three settings are candidates too: the one of
// the smallest deviance is chosen when its deviance is smaller than the
// chosen setting's and its CV AUC beats that setting's by more than 0.01
// (EnsembleSize, EnsembleMargin). The final fit uses DefaultOptions with
// the chosen lambda, pooling and scaling (one per member for an
// ensemble).
func DefaultSearch() Search {
	return Search{
		Lambdas:     []float64{0.03, 0.01, 0.003},
		Poolings:    []Pooling{MaxPooling(), MeanPooling()},
		Scalings:    []Scaling{ScaleAuto, ScaleNone},
		Folds:       5,
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

		EnsembleSize:   3,
		EnsembleMargin: 0.01,
		FeatureMaxSE:   2,
	}
}

// Validate reports the first invalid field of s (an empty grid, a bad
// lambda, pooling or scaling, Folds < 2, invalid Base options) as an error
// wrapping ErrBadInput.
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
	if n := ensembleCandidates(len(s.Lambdas)*len(s.Poolings)*len(s.Scalings), s.EnsembleSize); n > MaxEnsembleCandidates {
		return bad("EnsembleSize = %d: ensembles of 2 to %d of the grid's %d settings are %.4g candidates, above MaxEnsembleCandidates = %d",
			s.EnsembleSize, s.EnsembleSize, len(s.Lambdas)*len(s.Poolings)*len(s.Scalings), n, MaxEnsembleCandidates)
	}
	return s.Base.Validate()
}

// MaxEnsembleCandidates caps the ensembles FitCV scores (see
// Search.EnsembleSize): each costs a pass over every test fold's bag
// scores, and their number grows as settings^EnsembleSize.
// DefaultSearch's grid has 286.
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

// Setting is one point of the search grid with its cross-validated score.
type Setting struct {
	Lambda  float64
	Pooling Pooling
	Scaling Scaling
	// AUC and AUCStd are the mean and sample standard deviation of the
	// test-fold AUC over the folds it ran (FoldAUC, in fold order), and
	// Deviance, DevianceStd and FoldDeviance those of the test-fold
	// deviance (see CriterionDeviance).
	AUC, AUCStd           float64
	FoldAUC               []float64
	Deviance, DevianceStd float64
	FoldDeviance          []float64
	// Rejected reports that it stopped after the screening folds.
	Rejected bool
	// Iterations is the total of its fits' outer iterations.
	Iterations int
}

// String describes the setting, e.g. "lambda=0.01 pooling=max scaling=auto".
func (s Setting) String() string {
	return fmt.Sprintf("lambda=%g pooling=%v scaling=%v", s.Lambda, s.Pooling, s.Scaling)
}

// Selection reports what FitCV tried and chose.
type Selection struct {
	// Best is the chosen setting and Options the options of the final fit
	// on all of the data (Search.Base with Best's lambda, pooling and
	// scaling).
	Best    Setting
	Options Options
	// Settings are every setting tried, in grid order (scalings, then
	// poolings, then lambdas from the largest).
	Settings []Setting
	// Ensemble is the best ensemble of Settings when Search.EnsembleSize
	// >= 2 (nil otherwise, or when fewer than two settings ran on every
	// fold), and Ensembled reports that FitCV returned it. Best and
	// Options are then those of its first member.
	Ensemble  *EnsembleSetting
	Ensembled bool
	// Folds is the number of folds; Fits the cross-validation fits run
	// (without the final one); Rejected the settings dropped early.
	Folds, Fits, Rejected int
	// CVTime is the wall time of the cross-validation, RefitTime that of
	// the final fit.
	CVTime, RefitTime time.Duration
}

// EnsembleSetting is a set of settings scored as the ensemble of their
// fits (see Search.EnsembleSize).
type EnsembleSetting struct {
	// Members are the settings' indices in Selection.Settings, by CV
	// score from the highest, and Options their final fits' options.
	Members []int
	Options []Options
	// AUC, AUCStd, FoldAUC, Deviance, DevianceStd and FoldDeviance are
	// as a Setting's.
	AUC, AUCStd           float64
	FoldAUC               []float64
	Deviance, DevianceStd float64
	FoldDeviance          []float64
}

// String formats the selection as a table of the settings with their
// scores, the chosen one marked.
func (s Selection) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d-fold CV, %d fits, %d settings rejected early; chosen: %v (AUC %.4f ± %.4f, deviance %.4f ± %.4f)\n",
		s.Folds, s.Fits, s.Rejected, s.Best, s.Best.AUC, s.Best.AUCStd, s.Best.Deviance, s.Best.DevianceStd)
	for _, st := range s.Settings {
		mark := " "
		if st.Lambda == s.Best.Lambda && st.Pooling == s.Best.Pooling && st.Scaling == s.Best.Scaling {
			mark = "*"
		}
		rej := ""
		if st.Rejected {
			rej = " (rejected)"
		}
		fmt.Fprintf(&b, "%s %-44v AUC %.4f ± %.4f, deviance %.4f ± %.4f over %d folds%s\n",
			mark, st, st.AUC, st.AUCStd, st.Deviance, st.DevianceStd, len(st.FoldAUC), rej)
	}
	if e := s.Ensemble; e != nil {
		mark := " "
		if s.Ensembled {
			mark = "*"
		}
		names := make([]string, len(e.Members))
		for i, j := range e.Members {
			names[i] = s.Settings[j].String()
		}
		fmt.Fprintf(&b, "%s ensemble of %s: AUC %.4f ± %.4f, deviance %.4f ± %.4f over %d folds\n",
			mark, strings.Join(names, ", "), e.AUC, e.AUCStd, e.Deviance, e.DevianceStd, len(e.FoldAUC))
	}
	return b.String()
}

// FitCV chooses lambda, the pooling and the scaling by stratified
// cross-validation inside d (s.Folds folds from s.Seed; the score of a
// setting is its mean test-fold AUC or deviance, s.Criterion; ties go to
// the earlier setting in grid order; see PreferMean and PreferBase for
// the preferences within a standard error) and
// returns the model refitted with the chosen options on all of d, with
// the Selection; when an ensemble of settings wins (Search.EnsembleSize,
// Selection.Ensembled), the Ensemble of its settings' refits.
//
// The cost is held down three ways: the setup of a fit that does not
// depend on the setting (scaling, Gram matrix, step constant) is done
// once per fold and scaling and shared by every pooling and lambda; the
// lambdas of one (scaling, pooling, fold) run as a path from the largest,
// each fit warm-started from the previous one's iterate; and after
// s.ScreenFolds folds the (scaling, pooling) pairs trailing by more than
// s.Reject are dropped. The fits run on s.Workers goroutines (GOMAXPROCS
// by default); the result is the same for any number.
//
// It returns an error wrapping ErrBadInput for a nil ctx or d, an invalid
// search (an empty grid included; see Search.Validate), a class with fewer
// bags than folds (the message names the counts), or more splits than
// Protocol.Splits allows; one wrapping ErrTooLarge as well when a fit on d
// would exceed Base.MaxBytes; an error matching ErrOneClass when d holds
// one class; the error of a fit; and ctx's error, wrapped, within
// milliseconds of its cancellation.
func FitCV(ctx context.Context, d *Dataset, s Search) (*Model, Selection, error) {
	sel := Selection{Folds: s.Folds * max(s.Repeats, 1)}
	if err := d.checkUsable("FitCV"); err != nil {
		return nil, sel, err
	}
	if ctx == nil {
		return nil, sel, fmt.Errorf("%w: FitCV: nil context", ErrBadInput)
	}
	if err := s.Validate(); err != nil {
		return nil, sel, err
	}
	pos, nb := d.Positives(), d.NumBags()
	if pos == 0 || pos == nb {
		return nil, sel, oneClassError{bags: nb, label: d.Labels()[0]}
	}
	if minc := min(pos, nb-pos); minc < s.Folds {
		return nil, sel, fmt.Errorf("%w: FitCV: %d folds need at least %d bags of each class; the data has %d positive and %d negative bags",
			ErrBadInput, s.Folds, s.Folds, pos, nb-pos)
	}
	// The final fit's memory check, before the cross-validation rather
	// than after it (every CV fit is on a subset of d, checked again in
	// its setup).
	base := s.Base.withDefaults()
	if err := checkBytes(d, &base, fitBytes(d, &base)); err != nil {
		return nil, sel, err
	}
	splits, err := (Protocol{Folds: s.Folds, Repeats: max(s.Repeats, 1), Seed: s.Seed}).Splits(d.Labels())
	if err != nil {
		return nil, sel, err
	}
	start := time.Now()
	cv := newCVRun(d, s, splits)
	if err := cv.run(ctx); err != nil {
		return nil, sel, err
	}
	if sel, err = cv.selection(ctx); err != nil {
		return nil, sel, err
	}
	sel.CVTime = time.Since(start)
	t0 := time.Now()
	if sel.Ensembled {
		m, err := refitEnsemble(ctx, d, s, &sel)
		sel.RefitTime = time.Since(t0)
		return m, sel, err
	}
	m, err := Fit(ctx, d, sel.Options)
	sel.RefitTime = time.Since(t0)
	if err != nil {
		return nil, sel, fmt.Errorf("mil: FitCV: final fit (%v): %w", sel.Best, err)
	}
	return m, sel, nil
}

// refitEnsemble fits the chosen ensemble's settings on all of d (in
// parallel) and returns their equal-weight ensemble.
func refitEnsemble(ctx context.Context, d *Dataset, s Search, sel *Selection) (*Model, error) {
	e := sel.Ensemble
	n := len(e.Members)
	parts := make([]*Model, n)
	errs := make([]error, n)
	parallel(n, workers(s.Workers, n), func(i int) {
		parts[i], errs[i] = Fit(ctx, d, e.Options[i])
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("mil: FitCV: final fit (%v): %w", sel.Settings[e.Members[i]], err)
		}
	}
	return Ensemble(parts...)
}

// cvRun is the state of one FitCV cross-validation.
type cvRun struct {
	d      *Dataset
	s      Search
	splits []Split
	lams   []float64 // s.Lambdas, largest first (stable for equal values)
	lamIdx []int     // lams[i] = s.Lambdas[lamIdx[i]]
	// preps[(fold*len(Scalings)+scaling)*prepKinds+kind]: the shared
	// setup (see prepKind), and the test set.
	preps []*prepared
	kinds []bool // which kinds the grid's poolings need
	tests []*Dataset
	// auc[pair][fold][lambda] (NaN: not run), the test-fold deviance and
	// the fit's iterations: each task writes only its own (pair, fold)
	// cells.
	auc   [][][]float64
	dev   [][][]float64
	iters [][][]int
	// scores[pair][fold][lambda]: the test-fold bag scores of each fit
	// (nil: not run), for the ensembles.
	scores [][][][]float64
	fits   int
	alive  []bool // per pair
	nf     int    // test folds: Folds * Repeats
}

// pair index = scaling*len(Poolings) + pooling.
func newCVRun(d *Dataset, s Search, splits []Split) *cvRun {
	cv := &cvRun{d: d, s: s, splits: splits, nf: len(splits)}
	cv.lamIdx = make([]int, len(s.Lambdas))
	for i := range cv.lamIdx {
		cv.lamIdx[i] = i
	}
	slices.SortStableFunc(cv.lamIdx, func(a, b int) int { return cmp.Compare(s.Lambdas[b], s.Lambdas[a]) })
	for _, i := range cv.lamIdx {
		cv.lams = append(cv.lams, s.Lambdas[i])
	}
	npairs := len(s.Scalings) * len(s.Poolings)
	cv.auc = make([][][]float64, npairs)
	cv.dev = make([][][]float64, npairs)
	cv.iters = make([][][]int, npairs)
	cv.scores = make([][][][]float64, npairs)
	cv.alive = make([]bool, npairs)
	for p := range npairs {
		cv.alive[p] = true
		cv.iters[p] = make([][]int, cv.nf)
		cv.auc[p] = make([][]float64, cv.nf)
		cv.dev[p] = make([][]float64, cv.nf)
		cv.scores[p] = make([][][]float64, cv.nf)
		for f := range cv.nf {
			cv.scores[p][f] = make([][]float64, len(cv.lams))
			cv.iters[p][f] = make([]int, len(cv.lams))
			cv.auc[p][f] = make([]float64, len(cv.lams))
			cv.dev[p][f] = make([]float64, len(cv.lams))
			for l := range cv.lams {
				cv.auc[p][f][l] = math.NaN()
				cv.dev[p][f][l] = math.NaN()
			}
		}
	}
	return cv
}

func (cv *cvRun) run(ctx context.Context) error {
	s := cv.s
	ns := len(s.Scalings)
	cv.preps = make([]*prepared, cv.nf*ns*prepKinds)
	cv.tests = make([]*Dataset, cv.nf)
	cv.kinds = make([]bool, prepKinds)
	for _, pl := range s.Poolings {
		cv.kinds[prepKind(pl)] = true
	}
	screen := cv.nf
	if s.ScreenFolds > 0 && s.ScreenFolds < cv.nf {
		screen = s.ScreenFolds
	}
	// Stage 1: every pair on the screening folds; stage 2: the pairs left
	// on the other folds. Each stage prepares its folds' setups first.
	for _, folds := range [][2]int{{0, screen}, {screen, cv.nf}} {
		if folds[0] == folds[1] {
			continue
		}
		if err := cv.prepareFolds(ctx, folds[0], folds[1]); err != nil {
			return err
		}
		if err := cv.runFolds(ctx, folds[0], folds[1]); err != nil {
			return err
		}
		if folds[1] == screen {
			cv.reject(screen)
		}
		clear(cv.preps[folds[0]*ns*prepKinds : folds[1]*ns*prepKinds]) // free the setups
	}
	return nil
}

// prepareFolds builds the train/test subsets and the shared setups of
// folds [f0, f1) for every scaling and kind the grid needs, in parallel.
func (cv *cvRun) prepareFolds(ctx context.Context, f0, f1 int) error {
	s := cv.s
	ns := len(s.Scalings)
	for f := f0; f < f1; f++ {
		var err error
		if cv.tests[f], err = cv.d.Subset(cv.splits[f].Test); err != nil {
			return err
		}
	}
	var jobs []int // indices into preps
	for i := f0 * ns * prepKinds; i < f1*ns*prepKinds; i++ {
		if cv.kinds[i%prepKinds] {
			jobs = append(jobs, i)
		}
	}
	errs := make([]error, len(jobs))
	parallel(len(jobs), workers(s.Workers, len(jobs)), func(j int) {
		i := jobs[j]
		f, sc, kind := i/(prepKinds*ns), i/prepKinds%ns, i%prepKinds
		if err := ctx.Err(); err != nil {
			errs[j] = err
			return
		}
		train, err := cv.d.Subset(cv.splits[f].Train)
		if err != nil {
			errs[j] = err
			return
		}
		opt := cv.s.Base.withDefaults()
		opt.Scaling = s.Scalings[sc]
		opt.Pooling = [prepKinds]Pooling{MaxPooling(), MeanPooling(), FeatureMaxPooling()}[kind]
		cv.preps[i], errs[j] = prepare(ctx, train, &opt)
	})
	return firstErr(ctx, errs)
}

// prepKind is the kind of setup a pooling's fits share: 1 (the bag means)
// for the mean, 2 (the bag maxima) for the feature-wise max, 0 (the
// instances) for the others.
func prepKind(p Pooling) int {
	switch p.Kind {
	case PoolMean:
		return 1
	case PoolFeatureMax:
		return 2
	}
	return 0
}

// prepKinds is the number of kinds prepKind returns.
const prepKinds = 3

// runFolds runs the lambda path of every live pair on folds [f0, f1).
func (cv *cvRun) runFolds(ctx context.Context, f0, f1 int) error {
	s := cv.s
	type task struct{ pair, fold int }
	var tasks []task
	for f := f0; f < f1; f++ {
		for p, ok := range cv.alive {
			if ok {
				tasks = append(tasks, task{p, f})
			}
		}
	}
	// Long tasks first (the max-type poolings) balance the workers better;
	// the order does not change any result.
	errs := make([]error, len(tasks))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	parallel(len(tasks), workers(s.Workers, len(tasks)), func(i int) {
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			return
		}
		if errs[i] = cv.path(ctx, tasks[i].pair, tasks[i].fold); errs[i] != nil {
			cancel()
		}
	})
	cv.fits += len(tasks) * len(cv.lams)
	return firstErr(ctx, errs)
}

// firstErr returns the first error that is not a cancellation caused by
// another task's failure, else the first error.
func firstErr(ctx context.Context, errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if first == nil {
			first = err
		}
		if ctx.Err() == nil || !isCtxErr(err) {
			return err
		}
	}
	if first != nil && isCtxErr(first) {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mil: FitCV: %w", err)
		}
	}
	return first
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// path fits the lambdas of pair on fold, largest first, each warm-started
// from the previous iterate, and records each test-fold AUC and deviance.
func (cv *cvRun) path(ctx context.Context, pair, fold int) error {
	s := cv.s
	np := len(s.Poolings)
	sc, pl := pair/np, pair%np
	pr := cv.preps[(fold*len(s.Scalings)+sc)*prepKinds+prepKind(s.Poolings[pl])]
	test := cv.tests[fold]
	opt := s.Base.withDefaults()
	opt.Callback = nil
	opt.Scaling, opt.Pooling = s.Scalings[sc], s.Poolings[pl]
	if s.CVRhoGrowth != 0 {
		opt.RhoGrowth = s.CVRhoGrowth
	}
	var st *state
	rho := opt.Rho
	inst := make([]float64, test.NumInstances())
	scores := make([]float64, test.NumBags())
	for l, lam := range cv.lams {
		opt.Lambda = lam
		p := newProblem(pr, &opt)
		if st == nil || s.Cold {
			st = newState(p)
			rho = opt.Rho
		}
		er, _, err := solve(ctx, p, st, &opt, rho)
		if err != nil {
			return fmt.Errorf("mil: FitCV: fold %d, %v: %w", fold, Setting{Lambda: lam, Pooling: opt.Pooling, Scaling: opt.Scaling}, err)
		}
		cv.iters[pair][fold][l] = er.Iterations
		if s.WarmRho > 0 {
			rho = max(opt.Rho, s.WarmRho*er.Rho)
		}
		// Score the test fold with the fit's coefficients in the units of
		// its data (the test set through the same scaler).
		m := newModel(p, st.x1, make([]float64, p.x.d.NumInstances()), &pr.back, &opt)
		if err := m.BagScoresTo(scores, inst, test); err != nil {
			return fmt.Errorf("mil: FitCV: fold %d: %w", fold, err)
		}
		a, err := AUC(scores, test.Labels())
		if err != nil {
			return fmt.Errorf("mil: FitCV: fold %d: %w", fold, err)
		}
		cv.auc[pair][fold][l] = a
		cv.dev[pair][fold][l] = deviance(scores, test.Labels(), opt.Weighting)
		cv.scores[pair][fold][l] = slices.Clone(scores)
	}
	return nil
}

// deviance returns the weighted mean log-loss of bag scores q against
// 0/1 labels, sum_i w_i log(1 + exp(-s_i q_i)) / B with the fit's weights
// (Balanced: B/(2 B_c) for a bag of class c, over these B bags), or NaN
// when a weighted class is empty or a score is NaN.
func deviance(q, labels []float64, w Weighting) float64 {
	var sum [2]float64
	var n [2]int
	for i, y := range labels {
		c := 0
		if y == 1 {
			c = 1
		}
		sum[c] += logLoss((2*y - 1) * q[i])
		n[c]++
	}
	nb := float64(len(labels))
	if w == Balanced {
		if n[0] == 0 || n[1] == 0 {
			return math.NaN()
		}
		return sum[0]/(2*float64(n[0])) + sum[1]/(2*float64(n[1]))
	}
	return (sum[0] + sum[1]) / nb
}

// meanStdAUC returns the mean and sample std of the non-NaN values.
func meanStdAUC(x []float64) (mean, std float64, n int) {
	for _, v := range x {
		if v == v {
			mean += v
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0, 0
	}
	mean /= float64(n)
	if n > 1 {
		for _, v := range x {
			if v == v {
				std += (v - mean) * (v - mean)
			}
		}
		std = math.Sqrt(std / float64(n-1))
	}
	return mean, std, n
}

// foldAUCs returns the AUCs of (pair, lambda l) over the folds, in order.
func (cv *cvRun) foldAUCs(pair, l int) []float64 {
	return cv.foldValues(cv.auc, pair, l)
}

// foldValues returns v[pair][f][l] over the folds f that ran, in order.
func (cv *cvRun) foldValues(v [][][]float64, pair, l int) []float64 {
	var out []float64
	for f := range cv.nf {
		if a := cv.auc[pair][f][l]; a == a { // run
			out = append(out, v[pair][f][l])
		}
	}
	return out
}

// score returns a CV score under s.Criterion (higher is better) from the
// mean AUC and deviance.
func (s Search) score(auc, dev float64) float64 {
	if s.Criterion == CriterionDeviance {
		return -dev
	}
	return auc
}

// scoreSE returns the standard error of a setting's CV score:
// std/sqrt(folds) of the criterion's fold values.
func (s Search) scoreSE(st Setting) float64 {
	sd := st.AUCStd
	if s.Criterion == CriterionDeviance {
		sd = st.DevianceStd
	}
	return sd / math.Sqrt(float64(len(st.FoldAUC)))
}

// reject drops the pairs whose best lambda trails the best pair by more
// than Reject over the first `folds` folds. A pair held to FeatureMaxSE
// can be dropped but sets the best only when every pair is held to it, so
// that it cannot win by the others' rejection what its test would deny.
func (cv *cvRun) reject(folds int) {
	if folds >= cv.nf {
		return
	}
	best, bestGated := math.Inf(-1), math.Inf(-1)
	pairBest := make([]float64, len(cv.alive))
	for p := range cv.alive {
		pairBest[p] = math.Inf(-1)
		for l := range cv.lams {
			m, _, _ := meanStdAUC(cv.foldAUCs(p, l))
			pairBest[p] = max(pairBest[p], m)
		}
		if cv.s.gated(cv.s.Poolings[p%len(cv.s.Poolings)]) {
			bestGated = max(bestGated, pairBest[p])
		} else {
			best = max(best, pairBest[p])
		}
	}
	ungated := !math.IsInf(best, -1)
	if !ungated {
		best = bestGated
	}
	// The smaller class of a test fold (the folds are stratified: each
	// holds about 1/Folds of each class).
	pos := cv.d.Positives()
	m := float64(min(pos, cv.d.NumBags()-pos)) / float64(cv.s.Folds)
	se := math.Sqrt(max(best*(1-best), 0) / max(m, 1) / float64(folds))
	z := cv.s.RejectSE
	if z == 0 {
		z = 1
	}
	margin := max(cv.s.Reject, z*se)
	for p := range cv.alive {
		gated := cv.s.gated(cv.s.Poolings[p%len(cv.s.Poolings)])
		// A gated pair must beat the others at the end by FeatureMaxSE
		// standard errors; one that trails them on the screening folds
		// is not run further (on vaccine and fox, where it never wins,
		// this saves most of its fits).
		if pairBest[p] < best-margin || gated && ungated && pairBest[p] < best {
			cv.alive[p] = false
		}
	}
}

// selection summarizes the run and picks the best setting. Its only error
// is ctx's, from the ensembles' search.
func (cv *cvRun) selection(ctx context.Context) (Selection, error) {
	s := cv.s
	sel := Selection{Folds: cv.nf, Fits: cv.fits}
	for p := range cv.alive {
		sc, pl := p/len(s.Poolings), p%len(s.Poolings)
		for l, lam := range cv.lams {
			iters := 0
			for f := range cv.nf {
				iters += cv.iters[p][f][l]
			}
			aucs, devs := cv.foldAUCs(p, l), cv.foldValues(cv.dev, p, l)
			m, sd, _ := meanStdAUC(aucs)
			dm, dsd, _ := meanStdAUC(devs)
			st := Setting{Lambda: lam, Pooling: s.Poolings[pl], Scaling: s.Scalings[sc], AUC: m, AUCStd: sd,
				FoldAUC: aucs, Deviance: dm, DevianceStd: dsd, FoldDeviance: devs,
				Rejected: !cv.alive[p], Iterations: iters}
			if st.Rejected {
				sel.Rejected++
			}
			sel.Settings = append(sel.Settings, st)
		}
	}
	score := func(st Setting) float64 { return s.score(st.AUC, st.Deviance) }
	// best returns the index of the best setting that ran to the end and
	// that keep admits, -1 if none.
	best := func(keep func(Setting) bool) int {
		b := -1
		for i, st := range sel.Settings {
			if !st.Rejected && keep(st) && (b < 0 || score(st) > score(sel.Settings[b])) {
				b = i
			}
		}
		return b
	}
	bestIdx := best(func(st Setting) bool { return !s.gated(st.Pooling) })
	if bestIdx < 0 { // every setting that ran is gated
		bestIdx = best(func(Setting) bool { return true })
	}
	if best := sel.Settings[bestIdx]; s.PreferMean > 0 && best.Pooling.Kind != PoolMean && !s.gated(best.Pooling) {
		bm := -1
		for i, st := range sel.Settings {
			if !st.Rejected && st.Pooling.Kind == PoolMean && (bm < 0 || score(st) > score(sel.Settings[bm])) {
				bm = i
			}
		}
		if bm >= 0 && score(best)-score(sel.Settings[bm]) <= s.PreferMean*s.scoreSE(best) {
			bestIdx = bm
		}
	}
	if best := sel.Settings[bestIdx]; s.PreferBase && best.Pooling == s.Base.Pooling {
		// Within the best setting's (scaling, pooling) pair only: the
		// pooling and scaling are chosen by the plain maximum.
		se := s.scoreSE(best)
		for i, st := range sel.Settings {
			if st.Lambda == s.Base.Lambda && st.Pooling == best.Pooling &&
				st.Scaling == best.Scaling && score(best)-score(st) <= se {
				bestIdx = i
				break
			}
		}
	}
	if s.EnsembleSize >= 2 {
		var err error
		if sel.Ensemble, err = cv.bestEnsemble(ctx, sel.Settings, s.EnsembleSize); err != nil {
			return sel, err
		}
		best := sel.Settings[bestIdx]
		// Under CriterionAUC the first condition follows from the second.
		if e := sel.Ensemble; e != nil && s.score(e.AUC, e.Deviance) > score(best) &&
			e.AUC > best.AUC+s.EnsembleMargin && e.AUC-best.AUC > s.EnsembleSE*pairedSE(e.FoldAUC, best.FoldAUC) {
			sel.Ensembled = true
			bestIdx = e.Members[0]
		}
	}
	if chosen := sel.Settings[bestIdx]; !s.gated(chosen.Pooling) {
		if fm := best(func(st Setting) bool { return s.gated(st.Pooling) }); fm >= 0 {
			c := score(chosen)
			if sel.Ensembled {
				c = s.score(sel.Ensemble.AUC, sel.Ensemble.Deviance)
			}
			if st := sel.Settings[fm]; score(st)-c > s.FeatureMaxSE*s.scoreSE(st) {
				bestIdx, sel.Ensembled = fm, false
			}
		}
	}
	sel.Best = sel.Settings[bestIdx]
	sel.Options = s.options(sel.Best)
	if e := sel.Ensemble; e != nil {
		for _, i := range e.Members {
			e.Options = append(e.Options, s.options(sel.Settings[i]))
		}
	}
	return sel, nil
}

// gated reports whether settings with pooling p are held to FeatureMaxSE.
func (s Search) gated(p Pooling) bool {
	return s.FeatureMaxSE > 0 && p.Kind == PoolFeatureMax
}

// pairedSE returns the standard error of the mean of a[f]-b[f]
// (meanStdAUC's std over sqrt(folds)), 0 for one fold.
func pairedSE(a, b []float64) float64 {
	if len(a) < 2 {
		return 0
	}
	d := make([]float64, len(a))
	for f := range d {
		d[f] = a[f] - b[f]
	}
	_, sd, n := meanStdAUC(d)
	return sd / math.Sqrt(float64(n))
}

// options returns Base with st's lambda, pooling and scaling, and no
// Callback (see Search.Base).
func (s Search) options(st Setting) Options {
	o := s.Base
	o.Lambda, o.Pooling, o.Scaling = st.Lambda, st.Pooling, st.Scaling
	o.Callback = nil
	return o
}

// bestEnsemble scores the equal-weight ensemble of every 2 to size
// settings that ran on every fold (settings[i] is pair i/len(lams), lambda
// i%len(lams)) and returns the best by the criterion (ties to the earlier in lexicographic
// order of the members' indices, smaller ensembles first), nil if fewer
// than two settings ran on every fold. The weighted sum of the fits' bag
// scores is the ensemble's score, accumulated as Ensemble's model does, so
// no fit is needed. It checks ctx before each candidate and returns its
// error, wrapped.
func (cv *cvRun) bestEnsemble(ctx context.Context, settings []Setting, size int) (*EnsembleSetting, error) {
	nl := len(cv.lams)
	var full []int
	for i, st := range settings {
		if len(st.FoldAUC) == cv.nf && !cv.s.gated(st.Pooling) {
			full = append(full, i)
		}
	}
	var best *EnsembleSetting
	var mix []float64
	aucs := make([]float64, cv.nf)
	devs := make([]float64, cv.nf)
	size = min(size, len(full))
	idx := make([]int, 0, size)
	w8 := cv.s.Base.Weighting
	var err error
	score := func() {
		w := 1 / float64(len(idx))
		for f := range cv.nf {
			mix = slices.Grow(mix[:0], cv.tests[f].NumBags())[:cv.tests[f].NumBags()]
			clear(mix)
			for _, a := range idx {
				i := full[a]
				for k, v := range cv.scores[i/nl][f][i%nl] {
					mix[k] += w * v
				}
			}
			a, err := AUC(mix, cv.tests[f].Labels())
			if err != nil { // a NaN score: not a candidate
				return
			}
			aucs[f] = a
			devs[f] = deviance(mix, cv.tests[f].Labels(), w8)
		}
		m, sd, _ := meanStdAUC(aucs)
		dm, dsd, _ := meanStdAUC(devs)
		if best != nil && !(cv.s.score(m, dm) > cv.s.score(best.AUC, best.Deviance)) {
			return
		}
		mem := make([]int, len(idx))
		for j, a := range idx {
			mem[j] = full[a]
		}
		// The members by CV score, best first (stable: grid order on ties).
		sc := func(i int) float64 { return cv.s.score(settings[i].AUC, settings[i].Deviance) }
		slices.SortStableFunc(mem, func(a, b int) int { return cmp.Compare(sc(b), sc(a)) })
		best = &EnsembleSetting{Members: mem, AUC: m, AUCStd: sd, FoldAUC: slices.Clone(aucs),
			Deviance: dm, DevianceStd: dsd, FoldDeviance: slices.Clone(devs)}
	}
	for n := 2; n <= size && err == nil; n++ { // smaller ensembles first
		want := n
		var rec func(from int)
		rec = func(from int) {
			if len(idx) == want {
				if err = ctx.Err(); err == nil {
					score()
				}
				return
			}
			// Stop where too few settings are left to fill the ensemble.
			for a := from; a <= len(full)-(want-len(idx)) && err == nil; a++ {
				idx = append(idx, a)
				rec(a + 1)
				idx = idx[:len(idx)-1]
			}
		}
		rec(0)
	}
	if err != nil {
		return nil, fmt.Errorf("mil: FitCV: %w", err)
	}
	return best, nil
}
