package mil

import (
	"fmt"
	"math"
	"slices"

	"github.com/neadmm/neadmm/internal/num"
)

// Model is a fitted multi-instance classifier: the bag score of a bag is
// P(x_j . beta + beta0) over its instances j, P the pooling it was fitted
// with (the max by default), its probability the logistic sigmoid of the
// score. A Model may also be an ensemble of such models (Ensemble; FitCV
// returns one when its cross-validation prefers it), whose bag score is
// the mean of its parts'. A Model is immutable and safe for concurrent use
// by multiple goroutines.
type Model struct {
	beta  []float64 // on the raw features
	beta0 float64
	// bag holds the coefficients (a, b) of the bag means and maxima on
	// the raw features for FeatureMeanMaxPooling (len 2D; beta is then
	// a + b), nil otherwise.
	bag []float64
	res FitResult
	opt Options
	// parts and weights make an ensemble (see Ensemble); beta and beta0
	// are then the weighted mean of the parts' coefficients.
	parts   []*Model
	weights []float64
}

// NumFeatures returns the number of features the model expects (0 for a
// nil model).
func (m *Model) NumFeatures() int {
	if m == nil {
		return 0
	}
	return len(m.beta)
}

// Coefficients returns a copy of beta and the bias beta0 on the raw
// features: the score of an instance x is x . beta + beta0. A nil model
// has none. For an ensemble they are the weighted mean of its parts'. For
// FeatureMeanMaxPooling beta is a + b (see BagCoefficients): x . beta +
// beta0 is the score of a bag holding x alone.
func (m *Model) Coefficients() (beta []float64, beta0 float64) {
	if m == nil {
		return nil, 0
	}
	return append([]float64(nil), m.beta...), m.beta0
}

// instanceCoefficients returns the instance coefficients of a model on
// nf features with the bag coefficients bag (len w*nf, one block of nf per
// bag feature: FeatureMeanMaxPooling's a, then b): their sum, the score of
// a bag holding one instance. A model file's reader rebuilds them so, with
// the bits of the fit's.
func instanceCoefficients(bag []float64, nf int) []float64 {
	beta := make([]float64, nf)
	for j, b := range bag {
		beta[j%nf] += b
	}
	return beta
}

// BagCoefficients returns copies of the coefficients of a model whose bag
// score is linear in its bag's feature means and maxima,
//
//	score = (mean_j x_j) . mean + (max_j x_j) . max + beta0,
//
// over the bag's instances x_j: mean = beta for MeanPooling (max nil),
// max = beta for FeatureMaxPooling (mean nil), both for
// FeatureMeanMaxPooling. ok is false (and the slices nil) for the other
// poolings, whose bag score is not linear in the bag's features, for an
// ensemble and for a nil model.
func (m *Model) BagCoefficients() (mean, max []float64, beta0 float64, ok bool) {
	if m == nil || len(m.parts) > 0 {
		return nil, nil, 0, false
	}
	switch m.opt.Pooling.Kind {
	case PoolMean:
		return slices.Clone(m.beta), nil, m.beta0, true
	case PoolFeatureMax:
		return nil, slices.Clone(m.beta), m.beta0, true
	case PoolFeatureMeanMax:
		nf := len(m.beta)
		return slices.Clone(m.bag[:nf]), slices.Clone(m.bag[nf:]), m.beta0, true
	}
	return nil, nil, 0, false
}

// Result returns the diagnostics of the fit (zero for a nil model); for an
// ensemble, its first part's with NonZero counted on the mean coefficients.
func (m *Model) Result() FitResult {
	if m == nil {
		return FitResult{}
	}
	return m.res
}

// Options returns the options the model was fitted with (defaults filled
// in, Callback nil), the zero Options for a nil model; for an ensemble,
// its first part's (Parts has the others).
func (m *Model) Options() Options {
	if m == nil {
		return Options{}
	}
	return m.opt
}

// Pooling returns the bag score rule of the model (of an ensemble's first
// part).
func (m *Model) Pooling() Pooling { return m.Options().Pooling }

func (m *Model) check(d *Dataset, fn string) error {
	if m == nil {
		return fmt.Errorf("%w: Model.%s: nil model", ErrBadInput, fn)
	}
	if d == nil || !d.usable() {
		// Named only on failure: building "Model."+fn on every call
		// would allocate in the zero-allocation prediction methods.
		return d.checkUsable("Model." + fn)
	}
	switch {
	case d.NumFeatures() != len(m.beta):
		return fmt.Errorf("%w: Model.%s: dataset has %d features, model %d", ErrBadInput, fn, d.NumFeatures(), len(m.beta))
	}
	return nil
}

func checkLen(fn, what string, got, want int) error {
	if got != want {
		return fmt.Errorf("%w: Model.%s: len(%s) = %d, want %d", ErrBadInput, fn, what, got, want)
	}
	return nil
}

// InstanceScoresTo sets dst[i] = x_i . beta + beta0 for every instance of d
// (dataset order): the scores the pooling turns into bag scores, so the
// instances scoring highest are those that make a bag positive. It
// allocates nothing. It returns an error wrapping ErrBadInput if m or d is
// nil, d has another number of features than the model, or
// len(dst) != d.NumInstances(). A score that overflows is left ±Inf or
// NaN in dst (see BagScoresTo).
func (m *Model) InstanceScoresTo(dst []float64, d *Dataset) error {
	if err := m.check(d, "InstanceScoresTo"); err != nil {
		return err
	}
	if err := checkLen("InstanceScoresTo", "dst", len(dst), d.NumInstances()); err != nil {
		return err
	}
	d.MulVec(dst, m.beta, m.beta0)
	return nil
}

// InstanceScores returns the instance scores of d (see InstanceScoresTo).
func (m *Model) InstanceScores(d *Dataset) ([]float64, error) {
	if err := m.check(d, "InstanceScores"); err != nil {
		return nil, err
	}
	dst := make([]float64, d.NumInstances())
	return dst, m.InstanceScoresTo(dst, d)
}

// bagScores fills inst with the instance scores and calls f(k, start, end,
// score) for every bag k with its range and score (NaN when it is not
// finite). It returns an error naming the first bag whose score is not
// finite, after calling f for every bag.
//
// For an ensemble, acc (len NumBags, may be the caller's dst: f(k) may
// overwrite acc[k]) receives the ensemble's bag scores first, and inst then
// the instance scores of the mean coefficients; with acc nil (witnesses)
// a bag's q is the max of those instance scores, only to flag overflow.
func (m *Model) bagScores(fn string, inst []float64, d *Dataset, nout, want int, acc []float64, f func(k, start, end int, q float64)) error {
	if err := m.check(d, fn); err != nil {
		return err
	}
	if err := checkLen(fn, "dst", nout, want); err != nil {
		return err
	}
	if err := checkLen(fn, "inst", len(inst), d.NumInstances()); err != nil {
		return err
	}
	ens := len(m.parts) > 0
	if ens && acc != nil {
		m.ensembleScores(acc, inst, d)
	}
	d.MulVec(inst, m.beta, m.beta0)
	var fm *featMaxScratch
	if k := m.opt.Pooling.Kind; !ens && (k == PoolFeatureMax || k == PoolFeatureMeanMax) && d.IsSparse() {
		fm = featMaxPool.Get().(*featMaxScratch)
		defer featMaxPool.Put(fm)
	}
	ptr := d.BagPtr()
	bad, nbad := -1, 0
	for k := range d.NumBags() {
		a, b := ptr[k], ptr[k+1]
		var q float64
		switch {
		case !ens:
			q = m.poolBag(inst, d, k, a, b, fm)
		case acc != nil:
			q = acc[k]
		default:
			q = poolValue(inst[a:b], 1, nil)
		}
		if !num.Finite(q) {
			q = math.NaN()
			if nbad++; bad < 0 {
				bad = k
			}
		}
		f(k, a, b, q)
	}
	if bad >= 0 {
		return fmt.Errorf("%w: Model.%s: %d bags (the first: bag %d) have a score that is not finite: their features are too large for the model's coefficients (the products overflow); their outputs are NaN (-1 for witnesses)",
			ErrBadInput, fn, nbad, bad)
	}
	return nil
}

// poolBag returns the score of bag k of d (instances a to b-1, their
// scores in inst) under m's pooling; m is not an ensemble. fm is scratch
// for FeatureMaxPooling and FeatureMeanMaxPooling on sparse data (see
// bagFeatureMax).
func (m *Model) poolBag(inst []float64, d *Dataset, k, a, b int, fm *featMaxScratch) float64 {
	switch m.opt.Pooling.Kind {
	case PoolFeatureMax:
		return d.bagFeatureMax(k, m.beta, m.beta0, fm)
	case PoolFeatureMeanMax:
		return d.bagMeanMax(k, m.bag, m.beta0, fm)
	}
	return poolValue(inst[a:b], m.opt.Pooling.k(b-a), nil)
}

// BagScoresTo sets dst[k] to the score of bag k of d, P(x_kj . beta +
// beta0) with the model's pooling P (with FeatureMaxPooling, (max_j x_kj)
// . beta + beta0, the max taken per feature; with FeatureMeanMaxPooling,
// (mean_j x_kj) . a + (max_j x_kj) . b + beta0, see BagCoefficients),
// using inst (len d.NumInstances()) for
// the instance scores, which it leaves there. It allocates nothing. It
// returns an error wrapping ErrBadInput if m or d is nil, d has another
// number of features than the model, or a buffer has the wrong length; and
// also, after filling every output, if a bag's score is not finite (its
// features so large that the products overflow): those bags' dst[k] are
// then NaN. dst and inst must not overlap.
func (m *Model) BagScoresTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("BagScoresTo", inst, d, len(dst), bagsOf(d), dst, func(k, _, _ int, q float64) { dst[k] = q })
}

// BagScores returns the bag scores of d (see BagScoresTo).
func (m *Model) BagScores(d *Dataset) ([]float64, error) {
	if err := m.check(d, "BagScores"); err != nil {
		return nil, err
	}
	dst := make([]float64, d.NumBags())
	return dst, m.BagScoresTo(dst, make([]float64, d.NumInstances()), d)
}

// BagProbabilitiesTo sets dst[k] = 1/(1 + exp(-score_k)), the model's
// probability that bag k of d is positive (calibrated to the training
// prevalence for Uniform weights, to balanced classes for Balanced), with
// inst as for BagScoresTo. It allocates nothing; errors and NaN outputs as
// BagScoresTo.
func (m *Model) BagProbabilitiesTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("BagProbabilitiesTo", inst, d, len(dst), bagsOf(d), dst, func(k, _, _ int, q float64) {
		dst[k], _ = sigmoids(q)
	})
}

// BagProbabilities returns the bag probabilities of d (see
// BagProbabilitiesTo).
func (m *Model) BagProbabilities(d *Dataset) ([]float64, error) {
	if err := m.check(d, "BagProbabilities"); err != nil {
		return nil, err
	}
	dst := make([]float64, d.NumBags())
	return dst, m.BagProbabilitiesTo(dst, make([]float64, d.NumInstances()), d)
}

// PredictTo sets dst[k] to the predicted label of bag k of d: 1 if its
// score is >= 0 (probability >= 1/2, the threshold of the paper's code),
// else 0, with inst as for BagScoresTo. It allocates nothing; errors as
// BagScoresTo, whose NaN scores give the label NaN (neither class).
func (m *Model) PredictTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("PredictTo", inst, d, len(dst), bagsOf(d), dst, func(k, _, _ int, q float64) {
		switch {
		case q >= 0:
			dst[k] = 1
		case q < 0:
			dst[k] = 0
		default:
			dst[k] = math.NaN()
		}
	})
}

// Predict returns the predicted bag labels of d (see PredictTo).
func (m *Model) Predict(d *Dataset) ([]float64, error) {
	if err := m.check(d, "Predict"); err != nil {
		return nil, err
	}
	dst := make([]float64, d.NumBags())
	return dst, m.PredictTo(dst, make([]float64, d.NumInstances()), d)
}

// WitnessesTo sets dst[k] to the index (in d's instance order) of the
// instance with the highest score in bag k: the witness that sets the bag
// score under max pooling and the strongest of the instances pooled
// otherwise (under FeatureMaxPooling and FeatureMeanMaxPooling, which pool
// features rather than scores, the instance the coefficients rank highest:
// the one that alone would make the most positive bag). Ties go to the
// first instance. inst is as for BagScoresTo. It
// allocates nothing; errors as BagScoresTo, whose bags without a finite
// score get the witness -1.
func (m *Model) WitnessesTo(dst []int, inst []float64, d *Dataset) error {
	return m.witnessesTo("WitnessesTo", dst, inst, d)
}

// witnessesTo is WitnessesTo naming fn in its errors.
func (m *Model) witnessesTo(fn string, dst []int, inst []float64, d *Dataset) error {
	return m.bagScores(fn, inst, d, len(dst), bagsOf(d), nil, func(k, a, b int, q float64) {
		dst[k] = -1
		if q != q {
			return
		}
		best := a
		for j := a + 1; j < b; j++ {
			if inst[j] > inst[best] {
				best = j
			}
		}
		dst[k] = best
	})
}

// Witnesses returns the witness of every bag of d (see WitnessesTo).
func (m *Model) Witnesses(d *Dataset) ([]int, error) {
	if err := m.check(d, "Witnesses"); err != nil {
		return nil, err
	}
	dst := make([]int, d.NumBags())
	return dst, m.WitnessesTo(dst, make([]float64, d.NumInstances()), d)
}

// bagsOf returns d.NumBags(), or 0 for a nil d (check reports it).
func bagsOf(d *Dataset) int {
	if d == nil {
		return 0
	}
	return d.NumBags()
}
