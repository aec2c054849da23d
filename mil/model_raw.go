package mil

import (
	"math"
	"strings"
	"sync"

	"github.com/neadmm/neadmm/internal/num"
)

// Scoring one bag given as arrays, as a service receives it: no Dataset to
// build, no label, nothing allocated. Each method wraps the caller's
// arrays in a Dataset of one bag on its stack (rawBag) and scores it with
// the methods that score datasets, so a raw bag gets their bits.

// ScoreBag returns the score of one bag given by its instances' features:
// x holds its n >= 1 instances, NumFeatures() values each, row-major
// (len(x) = n*NumFeatures()). The score is the one BagScores gives the bag
// in a dataset: bit for bit in a dense dataset holding this bag alone; in
// one holding it among others, bit for bit under FeatureMaxPooling and
// FeatureMeanMaxPooling and otherwise within the rounding of vec.MulVec (whose kernels compute rows
// in groups of four from the start of the storage, so where the bag starts
// may change the last bits); in a sparse dataset within the rounding of
// the products (see ScoreSparseBag for its bits). It
// allocates nothing (a bag of more than 32 instances takes its scratch
// from a pool: nothing once warm), only reads x and is safe for concurrent
// use.
//
// It returns NaN and an error wrapping ErrBadInput for a nil model or one
// without coefficients, len(x) not a positive multiple of NumFeatures(), or
// a NaN or ±Inf feature; and, as BagScoresTo does, NaN and an error
// wrapping ErrBadInput when the score is not finite (features so large
// that the products overflow).
func (m *Model) ScoreBag(x []float64) (float64, error) {
	var rb rawBag
	var err error
	if rb.st, err = m.denseBag("ScoreBag", x); err != nil {
		return math.NaN(), err
	}
	d := rb.dataset()
	return m.scoreRaw("ScoreBag", &d)
}

// ScoreSparseBag is ScoreBag for a bag whose instances are sparse, given
// in CSR form as for NewSparse: instance i (0 <= i < n, n =
// len(rowptr)-1 >= 1) holds values[rowptr[i]:rowptr[i+1]] at the 0-based
// columns colidx[rowptr[i]:rowptr[i+1]], strictly increasing, below
// NumFeatures(); the others are 0. Its score is bit for bit the one
// BagScores gives the bag in any sparse dataset. It allocates nothing (as
// ScoreBag) and is safe for concurrent use. Its errors are ScoreBag's,
// with the arrays checked as NewSparse checks them (rowptr from 0 to
// len(values), non-decreasing; len(colidx) = len(values); columns in
// range and increasing; values finite).
func (m *Model) ScoreSparseBag(rowptr []int, colidx []int32, values []float64) (float64, error) {
	var rb rawBag
	var err error
	if rb.st, err = m.sparseBag("ScoreSparseBag", rowptr, colidx, values); err != nil {
		return math.NaN(), err
	}
	d := rb.dataset()
	return m.scoreRaw("ScoreSparseBag", &d)
}

// WitnessBag returns the witness of the bag x (given as for ScoreBag): the
// index, 0 to n-1, of its instance with the highest score, the one
// WitnessesTo names in a dataset holding the bag alone (ties to the
// first). It allocates nothing (as ScoreBag) and is safe for concurrent
// use. Its errors are ScoreBag's, with the witness -1.
func (m *Model) WitnessBag(x []float64) (int, error) {
	var rb rawBag
	var err error
	if rb.st, err = m.denseBag("WitnessBag", x); err != nil {
		return -1, err
	}
	d := rb.dataset()
	return m.witnessRaw("WitnessBag", &d)
}

// WitnessSparseBag is WitnessBag for a bag given as for ScoreSparseBag.
func (m *Model) WitnessSparseBag(rowptr []int, colidx []int32, values []float64) (int, error) {
	var rb rawBag
	var err error
	if rb.st, err = m.sparseBag("WitnessSparseBag", rowptr, colidx, values); err != nil {
		return -1, err
	}
	d := rb.dataset()
	return m.witnessRaw("WitnessSparseBag", &d)
}

// Probability returns 1/(1 + exp(-score)), the probability that a bag of
// this score is positive, with the bits BagProbabilities gives it.
// Probability(NaN) = NaN.
func Probability(score float64) float64 {
	p, _ := sigmoids(score)
	return p
}

// rawBag is the storage of a bag given as arrays and the bookkeeping of
// its Dataset (dataset), which the raw-bag methods keep on their stack.
type rawBag struct {
	st   storage
	runs [1]run
	ptr  [2]int
}

// dataset returns the Dataset of the one bag of r.st.
func (r *rawBag) dataset() Dataset {
	r.runs[0] = run{n: r.st.rows}
	r.ptr = [2]int{0, r.st.rows}
	return Dataset{m: &r.st, runs: r.runs[:], bagPtr: r.ptr[:], bagSrc: r.ptr[:1]}
}

// width returns m's number of features, or an error for a model that has
// none (nil or zero).
func (m *Model) width(fn string) (int, error) {
	if m == nil {
		return 0, badInput("Model.%s: nil model", fn)
	}
	if len(m.beta) == 0 {
		return 0, badInput("Model.%s: a Model without coefficients (the zero Model)", fn)
	}
	return m.NumFeatures(), nil
}

// denseBag returns the storage of the dense bag x.
func (m *Model) denseBag(fn string, x []float64) (storage, error) {
	nf, err := m.width(fn)
	if err != nil {
		return storage{}, err
	}
	if len(x) == 0 || len(x)%nf != 0 {
		return storage{}, badInput("Model.%s: len(x) = %d is not a positive multiple of NumFeatures() = %d", fn, len(x), nf)
	}
	return storage{rows: len(x) / nf, cols: nf, dense: x}, nil
}

// sparseBag returns the storage of the sparse bag (rowptr, colidx,
// values).
func (m *Model) sparseBag(fn string, rowptr []int, colidx []int32, values []float64) (storage, error) {
	nf, err := m.width(fn)
	if err != nil {
		return storage{}, err
	}
	if len(rowptr) < 2 {
		return storage{}, badInput("Model.%s: len(rowptr) = %d: a bag needs an instance", fn, len(rowptr))
	}
	if err := checkCSR("bag", rowptr, colidx, values, nf); err != nil {
		return storage{}, badInput("Model.%s: %s", fn, strings.TrimPrefix(err.Error(), "mil: "))
	}
	return storage{rows: len(rowptr) - 1, cols: nf, rowptr: rowptr, colidx: colidx, values: values}, nil
}

// rawStackInstances is the largest bag whose instance scores the raw-bag
// methods keep on their stack (256 bytes); larger bags take pooled
// scratch.
const rawStackInstances = 32

// instPool holds the instance-score scratch of larger raw bags.
var instPool = sync.Pool{New: func() any { return new([]float64) }}

// scoreRaw returns the score of the raw bag d.
func (m *Model) scoreRaw(fn string, d *Dataset) (float64, error) {
	var small [rawStackInstances]float64
	inst, sp := instScratch(small[:], d.NumInstances())
	if sp != nil {
		defer instPool.Put(sp)
	}
	var q [1]float64 // also an ensemble's accumulator
	err := m.bagScores(fn, inst, d, 1, 1, q[:], func(_, _, _ int, s float64) { q[0] = s })
	if err := nonFiniteFeature(fn, d, inst); err != nil {
		return math.NaN(), err
	}
	return q[0], err
}

// witnessRaw returns the witness of the raw bag d.
func (m *Model) witnessRaw(fn string, d *Dataset) (int, error) {
	var small [rawStackInstances]float64
	inst, sp := instScratch(small[:], d.NumInstances())
	if sp != nil {
		defer instPool.Put(sp)
	}
	var w [1]int
	err := m.witnessesTo(fn, w[:], inst, d)
	if err := nonFiniteFeature(fn, d, inst); err != nil {
		return -1, err
	}
	return w[0], err
}

// instScratch returns n values of scratch: small[:n] if it is long
// enough, else pooled scratch with the pool's entry sp to put back.
func instScratch(small []float64, n int) (inst []float64, sp *[]float64) {
	if n <= len(small) {
		return small[:n], nil
	}
	sp = instPool.Get().(*[]float64)
	if cap(*sp) < n {
		*sp = make([]float64, n)
	}
	return (*sp)[:n], sp
}

// nonFiniteFeature returns the error for the first NaN or ±Inf feature of
// the dense raw bag d, given its instance scores inst (left by bagScores,
// which multiplies every value: a non-finite feature makes its instance's
// score NaN or ±Inf, so finite scores need no look at the features). The
// values of a sparse bag were checked by checkCSR.
func nonFiniteFeature(fn string, d *Dataset, inst []float64) error {
	if d.IsSparse() || num.AllFinite(inst) {
		return nil
	}
	cols := d.m.cols
	for i, v := range d.m.dense {
		if !num.Finite(v) {
			return badInput("Model.%s: instance %d feature %d is %v", fn, i/cols, i%cols, v)
		}
	}
	return nil
}
