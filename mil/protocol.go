package mil

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Protocol is an evaluation protocol over bags: stratified k-fold
// cross-validation repeated with fresh shuffles, or a stratified holdout
// split. Build one with KFold or PaperSplit, or fill the fields.
type Protocol struct {
	Name string
	// Folds is k for k-fold cross-validation (>= 2); 0 selects a holdout
	// split with TestFraction of each class in the test set.
	Folds        int
	TestFraction float64
	// Repeats is the number of independent shuffles (>= 1).
	Repeats int
	// Seed makes the splits deterministic: repeat r shuffles with
	// math/rand/v2's PCG seeded (Seed, r).
	Seed uint64
	// Threshold is the decision threshold on the scores for accuracy,
	// precision, recall and F1 (positive iff score >= Threshold): 0 for raw
	// bag scores, as the paper's code did; 0.5 for probabilities.
	Threshold float64
	// Workers caps how many splits run at once: 0 (or less) means
	// GOMAXPROCS (all cores), 1 one at a time. It does not change the results (each split
	// is scored on its own and reported in split order), but with more
	// than one worker the score function must be safe for concurrent use.
	Workers int
}

// The caps of Splits (and so of Run and FitCV): a Protocol's splits are
// built in full before the first fit, and a host process must survive any
// Repeats. MaxSplitIndices, 2^27 bag indices, is 1 GiB.
const (
	MaxSplits       = 100000
	MaxSplitIndices = 1 << 27
)

// KFold returns stratified k-fold cross-validation repeated `repeats` times
// (KFold(10, 5, seed) is the 10-fold CV x 5 of the project's reports),
// threshold 0.
func KFold(k, repeats int, seed uint64) Protocol {
	return Protocol{Name: fmt.Sprintf("%d-fold CV x%d", k, repeats), Folds: k, Repeats: repeats, Seed: seed}
}

// PaperSplit returns the paper's protocol: one stratified split, 80% of the
// bags of each class for training and 20% for testing, threshold 0. (The
// published MATLAB code took fold 1 of an unstratified crossvalind 5-fold
// split, so its test set is 20% of the bags but not class-balanced.)
func PaperSplit(seed uint64) Protocol {
	return Protocol{Name: "80/20 split", TestFraction: 0.2, Repeats: 1, Seed: seed}
}

// Split is one train/test partition of the bags, as bag indices in
// increasing order.
type Split struct {
	Repeat, Fold int
	Train, Test  []int
}

// Splits returns the partitions of the bags with the given 0/1 labels:
// Repeats*Folds splits for cross-validation (repeat-major), Repeats for a
// holdout. Each class is shuffled and dealt round-robin into the folds, so
// every fold's class counts are within one of each other and fold sizes
// within one. It returns an error for a label other than 0 or 1, Folds == 1
// or < 0, Folds above the size of either class (a test fold would miss a
// class, leaving AUC undefined), Repeats < 1, a TestFraction that leaves
// a class without a training or test bag, or more than MaxSplits splits
// or MaxSplitIndices bag indices in all (Repeats x Folds x bags).
func (p Protocol) Splits(labels []float64) ([]Split, error) {
	var cls [2][]int
	for i, y := range labels {
		if y != 0 && y != 1 {
			return nil, fmt.Errorf("%w: Splits: label %d is %v, want 0 or 1", ErrBadInput, i, y)
		}
		cls[int(y)] = append(cls[int(y)], i)
	}
	ns, err := p.checkSplits(cls, len(labels))
	if err != nil {
		return nil, err
	}
	out := make([]Split, 0, int(ns))
	fold := make([]int, len(labels)) // fold (or 1 = test, 0 = train) of each bag
	for rep := range p.Repeats {
		p.deal(rand.New(rand.NewPCG(p.Seed, uint64(rep))), cls, fold)
		out = appendSplits(out, rep, p.Folds, fold)
	}
	return out, nil
}

// checkSplits checks p against the classes cls of n bags (see Splits) and
// returns the number of splits, Repeats*max(Folds, 1).
func (p Protocol) checkSplits(cls [2][]int, n int) (float64, error) {
	if p.Repeats < 1 {
		return 0, fmt.Errorf("%w: Splits: Repeats = %d, want >= 1", ErrBadInput, p.Repeats)
	}
	minClass := min(len(cls[0]), len(cls[1]))
	switch {
	case p.Folds < 0 || p.Folds == 1:
		return 0, fmt.Errorf("%w: Splits: Folds = %d, want >= 2 (or 0 for a holdout)", ErrBadInput, p.Folds)
	case p.Folds > minClass:
		return 0, fmt.Errorf("%w: Splits: %d folds but a class has only %d bags", ErrBadInput, p.Folds, minClass)
	case p.Folds == 0:
		for c := range cls {
			nt := int(math.Round(p.TestFraction * float64(len(cls[c]))))
			if !(p.TestFraction > 0 && p.TestFraction < 1) || nt < 1 || nt >= len(cls[c]) {
				return 0, fmt.Errorf("%w: Splits: TestFraction %v leaves class %d (%d bags) without a training or test bag", ErrBadInput, p.TestFraction, c, len(cls[c]))
			}
		}
	}
	// The splits are built in full, so their number and size are capped
	// before anything is allocated (float64: the product cannot overflow).
	ns := float64(p.Repeats) * float64(max(p.Folds, 1))
	if ns > MaxSplits || ns*float64(n) > MaxSplitIndices {
		return 0, fmt.Errorf("%w: Splits: %d repeats x %d folds of %d bags is %.0f splits and %.0f bag indices; the caps are MaxSplits = %d and MaxSplitIndices = %d",
			ErrBadInput, p.Repeats, max(p.Folds, 1), n, ns, ns*float64(n), MaxSplits, MaxSplitIndices)
	}
	return ns, nil
}

// deal shuffles each class with rng and sets fold[b] for every bag: its
// fold, dealt round-robin across both classes, or for a holdout 1 for
// the test bags (the first TestFraction of each shuffled class) and 0 for
// the others.
func (p Protocol) deal(rng *rand.Rand, cls [2][]int, fold []int) {
	pos := 0 // round-robin counter across both classes keeps sizes balanced
	for c := range cls {
		idx := append([]int(nil), cls[c]...)
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		if p.Folds == 0 {
			nt := int(math.Round(p.TestFraction * float64(len(idx))))
			for i, b := range idx {
				fold[b] = 0
				if i < nt {
					fold[b] = 1
				}
			}
			continue
		}
		for _, b := range idx {
			fold[b] = pos % p.Folds
			pos++
		}
	}
}

// appendSplits appends repeat rep's splits of the assignment fold (see
// deal) to out: one per fold, or for a holdout (folds = 0) one whose test
// bags are those of fold 1.
func appendSplits(out []Split, rep, folds int, fold []int) []Split {
	if folds == 0 {
		s := Split{Repeat: rep}
		for b, f := range fold {
			if f == 1 {
				s.Test = append(s.Test, b)
			} else {
				s.Train = append(s.Train, b)
			}
		}
		return append(out, s)
	}
	for f := range folds {
		s := Split{Repeat: rep, Fold: f}
		for b, fb := range fold {
			if fb == f {
				s.Test = append(s.Test, b)
			} else {
				s.Train = append(s.Train, b)
			}
		}
		out = append(out, s)
	}
	return out
}

// ScoreFunc fits a model on train and returns one score per bag of test
// (higher means more likely positive), in test's bag order. It must fit
// everything, preprocessing included, on train only (see Standardized).
type ScoreFunc func(ctx context.Context, train, test *Dataset) ([]float64, error)

// Standardized wraps score so that the features are standardized by a
// Scaler fitted on train (FitScaler) and applied to train and test before
// score sees them.
func Standardized(score ScoreFunc) ScoreFunc {
	return func(ctx context.Context, train, test *Dataset) ([]float64, error) {
		s, err := FitScaler(ctx, train)
		if err != nil {
			return nil, err
		}
		tr, err := s.Apply(ctx, train)
		if err != nil {
			return nil, err
		}
		te, err := s.Apply(ctx, test)
		if err != nil {
			return nil, err
		}
		return score(ctx, tr, te)
	}
}

// FoldResult is the outcome of one split.
type FoldResult struct {
	Split
	Scores  []float64 // the test bags' scores, aligned with Split.Test
	Labels  []float64 // the test bags' labels, aligned with Split.Test
	Metrics Metrics
	Elapsed time.Duration // wall time of the score function
}

// Report holds the results of a Protocol run: every fold and the mean and
// sample standard deviation (n-1 denominator; 0 for a single fold) of each
// metric over the folds.
type Report struct {
	Protocol  Protocol
	Folds     []FoldResult
	Mean, Std Metrics
}

// Run evaluates score under p on data: for each split it builds the train
// and test subsets (sharing data's features), calls score and computes the
// Metrics of the test scores at p.Threshold. It returns an error wrapping
// ErrBadInput for a nil ctx, data or score, a NaN threshold or splits
// Splits refuses; else the first error in split order from score (wrapped
// with the split), scores of the wrong length or with NaN, or a metric
// that is undefined, the same for any Workers (a failing split stops the
// others, and the cancellation that causes is not reported in its place);
// or ctx's error when it is cancelled (splits not yet started are
// skipped). With an error from a split or from ctx, the Report is still
// returned (nil only when the arguments are refused): it holds the splits
// that completed, in split order, with Mean and Std over them, so that an
// interrupted run keeps what it did.
func (p Protocol) Run(ctx context.Context, data *Dataset, score ScoreFunc) (*Report, error) {
	if err := p.checkRun(ctx, data, score, "Run"); err != nil {
		return nil, err
	}
	splits, err := p.Splits(data.Labels())
	if err != nil {
		return nil, err
	}
	return p.runSplits(ctx, data, splits, score)
}

// RunFolds is Run on the k-fold splits (k = p.Folds) of the given fold
// assignments in place of p.Splits' shuffles: folds[r][b] is the fold of
// bag b in repeat r, so that another library's fold rule can be scored on
// the same partitions as its own results (TestFraction, Repeats and Seed
// are not used). It returns an error wrapping ErrBadInput for p.Folds < 2,
// no repeat, an assignment whose length is not data.NumBags() or a fold
// outside [0, p.Folds); a fold without bags fails as Subset does, in its
// split. Its other errors and its Report are Run's.
func (p Protocol) RunFolds(ctx context.Context, data *Dataset, folds [][]int, score ScoreFunc) (*Report, error) {
	if err := p.checkRun(ctx, data, score, "RunFolds"); err != nil {
		return nil, err
	}
	if p.Folds < 2 || len(folds) == 0 {
		return nil, fmt.Errorf("%w: RunFolds: Folds = %d and %d repeats, want Folds >= 2 and a repeat", ErrBadInput, p.Folds, len(folds))
	}
	var splits []Split
	for r, f := range folds {
		if len(f) != data.NumBags() {
			return nil, fmt.Errorf("%w: RunFolds: repeat %d assigns %d bags, the data has %d", ErrBadInput, r, len(f), data.NumBags())
		}
		for b, k := range f {
			if k < 0 || k >= p.Folds {
				return nil, fmt.Errorf("%w: RunFolds: repeat %d puts bag %d in fold %d, want 0 to %d", ErrBadInput, r, b, k, p.Folds-1)
			}
		}
		splits = appendSplits(splits, r, p.Folds, f)
	}
	return p.runSplits(ctx, data, splits, score)
}

// checkRun checks the arguments of Run and RunFolds (fn).
func (p Protocol) checkRun(ctx context.Context, data *Dataset, score ScoreFunc, fn string) error {
	if err := data.checkUsable(fn); err != nil {
		return err
	}
	if err := data.checkLabeled(fn); err != nil {
		return err
	}
	switch {
	case ctx == nil:
		return fmt.Errorf("%w: %s: nil context", ErrBadInput, fn)
	case score == nil:
		return fmt.Errorf("%w: %s: nil score function", ErrBadInput, fn)
	case math.IsNaN(p.Threshold):
		return fmt.Errorf("%w: %s: NaN threshold", ErrBadInput, fn)
	}
	return nil
}

// runSplits is Run after its checks, on splits.
func (p Protocol) runSplits(ctx context.Context, data *Dataset, splits []Split, score ScoreFunc) (*Report, error) {
	res := make([]FoldResult, len(splits))
	errs := make([]error, len(splits))
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// stopped[i]: split i failed with a ctx error once ctx was cancelled
	// (by the caller or by another split's failure), not with its own.
	stopped := make([]bool, len(splits))
	one := func(i int) {
		if err := ctx.Err(); err != nil {
			errs[i], stopped[i] = err, true
			return
		}
		errs[i] = p.runSplit(ctx, data, splits[i], score, &res[i])
		if errs[i] != nil {
			stopped[i] = isCtxErr(errs[i]) && ctx.Err() != nil
			cancel() // later splits would be thrown away anyway
		}
	}
	parallel(len(splits), workers(p.Workers, len(splits)), one)
	// Report the error of the earliest failing split beside the splits that
	// completed. The cancellation a failure causes can reach splits before
	// it that were still running (Workers > 1): unless the caller's ctx is
	// done, such a split's ctx error is passed over for the failure itself,
	// so that the error does not depend on Workers.
	var first, firstAny error
	done := res[:0]
	for i, err := range errs {
		switch {
		case err == nil:
			done = append(done, res[i])
			continue
		case first == nil && (parent.Err() != nil || !stopped[i]):
			first = err
		}
		if firstAny == nil {
			firstAny = err
		}
	}
	if first == nil {
		first = firstAny
	}
	r := &Report{Protocol: p, Folds: done}
	if len(done) > 0 {
		r.Mean, r.Std = meanStd(done)
	}
	return r, first
}

func (p Protocol) runSplit(ctx context.Context, data *Dataset, s Split, score ScoreFunc, out *FoldResult) error {
	where := fmt.Sprintf("%s, repeat %d, fold %d", p.Name, s.Repeat, s.Fold)
	train, err := data.Subset(s.Train)
	if err != nil {
		return err
	}
	test, err := data.Subset(s.Test)
	if err != nil {
		return err
	}
	t0 := time.Now()
	sc, err := score(ctx, train, test)
	elapsed := time.Since(t0)
	if err != nil {
		return fmt.Errorf("mil: %s: %w", where, err)
	}
	if len(sc) != test.NumBags() {
		return badInput("%s: the score function returned %d scores for %d test bags", where, len(sc), test.NumBags())
	}
	m, err := Evaluate(sc, test.Labels(), p.Threshold)
	if err != nil {
		return fmt.Errorf("mil: %s: %w", where, err)
	}
	*out = FoldResult{Split: s, Scores: sc, Labels: test.Labels(), Metrics: m, Elapsed: elapsed}
	return nil
}

// fields lists the Metrics fields for aggregation and printing.
func (m *Metrics) fields() [7]*float64 {
	return [7]*float64{&m.Accuracy, &m.Precision, &m.Recall, &m.F1, &m.AUC, &m.AUPR, &m.AUPRTrapz}
}

var metricNames = [7]string{"ACC", "PR", "RE", "F1", "AUC", "AUPR", "AUPR(trapz)"}

func meanStd(res []FoldResult) (mean, std Metrics) {
	n := float64(len(res))
	mf, sf := mean.fields(), std.fields()
	for k := range mf {
		for i := range res {
			*mf[k] += *res[i].Metrics.fields()[k]
		}
		*mf[k] /= n
		if len(res) > 1 {
			for i := range res {
				d := *res[i].Metrics.fields()[k] - *mf[k]
				*sf[k] += d * d
			}
			*sf[k] = math.Sqrt(*sf[k] / (n - 1))
		}
	}
	return mean, std
}

// Pooled returns the test scores and labels of all folds concatenated (each
// bag once per repeat for cross-validation), the input of pooled curves.
// Scores from different folds come from different models, so pooled curves
// mix their calibrations; the per-fold Metrics do not. A nil Report has
// none.
func (r *Report) Pooled() (scores, labels []float64) {
	if r == nil {
		return nil, nil
	}
	for _, f := range r.Folds {
		scores = append(scores, f.Scores...)
		labels = append(labels, f.Labels...)
	}
	return scores, labels
}

// PooledROC returns the ROC curve of the pooled test scores (see Pooled).
func (r *Report) PooledROC() ([]ROCPoint, error) { return ROC(r.Pooled()) }

// PooledPR returns the precision-recall curve of the pooled test scores.
func (r *Report) PooledPR() ([]PRPoint, error) { return PR(r.Pooled()) }

// String formats the report as a table of mean ± std per metric ("<nil>"
// for a nil Report).
func (r *Report) String() string {
	if r == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d splits, threshold %g)\n", r.Protocol.Name, len(r.Folds), r.Protocol.Threshold)
	mf, sf := r.Mean.fields(), r.Std.fields()
	for k, name := range metricNames {
		fmt.Fprintf(&b, "%-12s %.4f ± %.4f\n", name, *mf[k], *sf[k])
	}
	return b.String()
}
