package mil

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

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
// by default); the result is the same for any number. Memory: at most one
// shared setup (a fold's training subset prepared for a fit) per worker is
// alive at a time, whatever the folds, repeats and grid; the tables of the
// scores are checked first (see below).
//
// It returns an error wrapping ErrBadInput for a nil ctx or d, an invalid
// search (an empty grid included; see Search.Validate), a class with fewer
// bags than folds (the message names the counts), or more splits than
// Protocol.Splits allows; one wrapping ErrTooLarge as well when a fit on d
// would exceed Base.MaxBytes, or the tables of the cross-validation (the
// test scores of every setting on every fold, about 8 bytes x settings x
// Repeats x bags) would; an error matching ErrOneClass when d holds one
// class; the error of a fit (a model that is not finite included); and
// ctx's error, wrapped, when it is done before the cross-validation or
// within milliseconds of its cancellation.
func FitCV(ctx context.Context, d *Dataset, s Search) (*Model, Selection, error) {
	sel := Selection{Folds: s.Folds * max(s.Repeats, 1)}
	if err := d.checkUsable("FitCV"); err != nil {
		return nil, sel, err
	}
	if err := d.checkLabeled("FitCV"); err != nil {
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
	s.Repeats = s.repeatsFor(nb)
	sel.Folds = s.Folds * s.Repeats
	np := len(s.pairs())
	if err := s.checkFits(np); err != nil { // with the repeats MinTestBags added
		return nil, sel, err
	}
	if need := cvTableBytes(&s, np, nb); need > float64(base.MaxBytes) {
		return nil, sel, fmt.Errorf("%w: %w: FitCV: the cross-validation's tables (%d settings x %d test folds, with every setting's scores of %d bags x %d repeats) need about %.3g bytes; Base.MaxBytes = %d",
			ErrBadInput, ErrTooLarge, len(s.Lambdas)*np, sel.Folds, nb, s.Repeats, need, base.MaxBytes)
	}
	if err := ctx.Err(); err != nil {
		return nil, sel, fmt.Errorf("mil: FitCV: %w", err)
	}
	splits, err := (Protocol{Folds: s.Folds, Repeats: s.Repeats, Seed: s.Seed}).Splits(d.Labels())
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
	// tests are the test sets of the folds.
	tests []*Dataset
	// pairs are the (scaling, pooling) pairs of the grid, as indices into
	// s.Scalings and s.Poolings, in grid order without s.Skip's: a pair
	// index below is an index into pairs.
	pairs [][2]int
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
	// maxSetups is the largest number of setups alive at once.
	maxSetups int
}

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
	cv.pairs = s.pairs()
	npairs := len(cv.pairs)
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
	cv.tests = make([]*Dataset, cv.nf)
	for f := range cv.nf {
		var err error
		if cv.tests[f], err = cv.d.Subset(cv.splits[f].Test); err != nil {
			return err
		}
	}
	// Each stage runs the pairs left on its folds and (but the last)
	// drops the pairs trailing by then.
	stages := cv.stages()
	for i, folds := range stages {
		if err := cv.runFolds(ctx, folds[0], folds[1]); err != nil {
			return err
		}
		if i < len(stages)-1 {
			cv.reject(folds[1])
		}
	}
	return nil
}

// stages returns the fold ranges the cross-validation runs in turn: the
// screening folds (s.ScreenFolds), the rest of the first repeat, then the
// other repeats; empty ranges are left out, and without screening
// (ScreenFolds 0, or at least every fold) there is one range.
func (cv *cvRun) stages() [][2]int {
	s := cv.s
	if s.ScreenFolds <= 0 || s.ScreenFolds >= cv.nf {
		return [][2]int{{0, cv.nf}}
	}
	var out [][2]int
	from := 0
	for _, to := range []int{s.ScreenFolds, max(s.ScreenFolds, min(s.Folds, cv.nf)), cv.nf} {
		if to > from {
			out = append(out, [2]int{from, to})
			from = to
		}
	}
	return out
}

// prepKind is the kind of setup a pooling's fits share: 1 (the bag means)
// for the mean, 2 (the bag maxima) for the feature-wise max, 3 (both) for
// the feature-wise mean and max, 0 (the instances) for the others.
func prepKind(p Pooling) int {
	switch p.Kind {
	case PoolMean:
		return 1
	case PoolFeatureMax:
		return 2
	case PoolFeatureMeanMax:
		return 3
	}
	return 0
}

// prepKinds is the number of kinds prepKind returns.
const prepKinds = 4

// runFolds runs the lambda path of every live pair on folds [f0, f1):
// each (fold, scaling, kind) group's setup is built, shared by its pairs'
// paths and dropped once they are done, with at most one setup per worker
// alive at a time (see setupQueue), so that memory does not grow with the
// folds, the repeats or the grid.
func (cv *cvRun) runFolds(ctx context.Context, f0, f1 int) error {
	groups := cv.groups(f0, f1)
	tasks := 0
	for _, g := range groups {
		tasks += len(g.pairs)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := workers(cv.s.Workers, tasks)
	q := newSetupQueue(groups, w)
	q.run(w,
		func(g *cvGroup) (err error) {
			if g.pr, err = cv.prepareGroup(ctx, g); err != nil {
				cancel()
			}
			return err
		},
		func(g *cvGroup, i int) (err error) {
			if err = ctx.Err(); err == nil {
				err = cv.path(ctx, g.pr, g.pairs[i], g.fold)
			}
			if err != nil {
				cancel()
			}
			return err
		})
	cv.maxSetups = max(cv.maxSetups, q.maxLive)
	cv.fits += tasks * len(cv.lams)
	var errs []error
	for _, g := range groups {
		errs = append(errs, g.errs...)
	}
	return firstErr(ctx, errs)
}

// groups returns the groups of folds [f0, f1): per fold, scaling and kind
// of setup, the live pairs that share it, in grid order.
func (cv *cvRun) groups(f0, f1 int) []*cvGroup {
	s := cv.s
	var groups []*cvGroup
	for f := f0; f < f1; f++ {
		for sc := range s.Scalings {
			for kind := range prepKinds {
				g := &cvGroup{fold: f, scaling: sc, kind: kind}
				for pair, sp := range cv.pairs {
					if sp[0] == sc && cv.alive[pair] && prepKind(s.Poolings[sp[1]]) == kind {
						g.pairs = append(g.pairs, pair)
					}
				}
				if len(g.pairs) > 0 {
					g.errs = make([]error, 1+len(g.pairs))
					groups = append(groups, g)
				}
			}
		}
	}
	return groups
}

// prepareGroup builds the shared setup of g: the fold's training subset
// prepared under g's scaling for its kind of pooling.
func (cv *cvRun) prepareGroup(ctx context.Context, g *cvGroup) (*prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	train, err := cv.d.Subset(cv.splits[g.fold].Train)
	if err != nil {
		return nil, err
	}
	opt := cv.s.Base.withDefaults()
	opt.Scaling = cv.s.Scalings[g.scaling]
	opt.Pooling = [prepKinds]Pooling{MaxPooling(), MeanPooling(), FeatureMaxPooling(), FeatureMeanMaxPooling()}[g.kind]
	return prepare(ctx, train, &opt)
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

// path fits the lambdas of pair on fold from the shared setup pr, largest
// first, each warm-started from the previous iterate, and records each
// test-fold AUC and deviance.
func (cv *cvRun) path(ctx context.Context, pr *prepared, pair, fold int) error {
	s := cv.s
	sc, pl := cv.pairs[pair][0], cv.pairs[pair][1]
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
		if err := m.finiteCoefficients("FitCV"); err != nil {
			return fmt.Errorf("mil: FitCV: fold %d, %v: %w", fold, Setting{Lambda: lam, Pooling: opt.Pooling, Scaling: opt.Scaling}, err)
		}
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
