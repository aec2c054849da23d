package mil

import (
	"errors"
	"fmt"
	"slices"

	"github.com/neadmm/neadmm/internal/num"
)

// Builder assembles a Dataset one instance at a time, the way the loaders
// do: instances of one bag may come in any order and interleaved with other
// bags; Build groups them by bag, keeping bags in order of first appearance
// and instances of a bag in the order they were added. Use it to build
// synthetic data. A Builder is not safe for concurrent use. The zero
// Builder is NewBuilder(0); a nil *Builder refuses every call with an
// error wrapping ErrBadInput (NumInstances: 0).
//
// Memory: rows start accumulating dense when the first instance is added
// with AddDense, sparse with AddSparse; dense accumulation switches to
// sparse once it would exceed DefaultMaxDenseCells (a loader: its
// LoadOptions.MaxDenseCells), so what a Builder holds is never more than
// the cap or about 12 bytes per non-zero the caller passed in.
type Builder struct {
	cols     int // 0 until known
	sparse   bool
	n        int
	denseCap int // cells of dense accumulation before switching to sparse
	// denseHint is a loader's estimate of the final size of dense (0:
	// none), which growDense grows it to.
	denseHint int

	dense  []float64 // dense mode: n*cols
	rowptr []int     // sparse mode: n+1
	colidx []int32
	values []float64
	nnz    int
	maxCol int // sparse mode with unknown cols: largest column seen

	bagIdx   map[string]int
	bagIDs   []string
	bagLabel []float64
	bagFirst []int // first instance of each bag, for error messages
	bagSize  []int
	instBag  []int32 // bag of each instance, in addition order
	grouped  bool    // instances so far are contiguous by bag
	idBuf    []byte  // all instance ids concatenated
	idEnd    []int   // end of each instance id in idBuf
}

// NewBuilder returns an empty Builder for instances of numFeatures
// features. numFeatures <= 0 means unknown: the first AddDense fixes it, or
// with only AddSparse calls Build sets it to the largest index + 1. A
// numFeatures above the cap Build applies is reported by Build.
func NewBuilder(numFeatures int) *Builder {
	b := &Builder{}
	b.reset(max(numFeatures, 0), DefaultMaxDenseCells)
	return b
}

func (b *Builder) reset(cols, denseCap int) {
	*b = Builder{cols: cols, denseCap: denseCap, rowptr: []int{0}, bagIdx: map[string]int{}, grouped: true, maxCol: -1}
}

// ready returns an error for a nil b, and makes the zero Builder
// NewBuilder(0).
func (b *Builder) ready(fn string) error {
	if b == nil {
		return badInput("Builder.%s: nil Builder", fn)
	}
	if b.bagIdx == nil {
		b.reset(max(b.cols, 0), DefaultMaxDenseCells)
	}
	return nil
}

// LabelConflictError reports a bag whose instances disagree on the label.
// It matches ErrBadInput with errors.Is.
type LabelConflictError struct {
	Bag           string
	Label, Prev   float64 // the new instance's label and the bag's label so far
	FirstInstance int     // 0-based index (in addition order) of the bag's first instance
	bag           int     // the bag's index, for the loaders' messages
}

// Error names the bag and both labels.
func (e *LabelConflictError) Error() string {
	return fmt.Sprintf("bag %q has label %v here but %v on its first instance", e.Bag, e.Label, e.Prev)
}

// Unwrap returns ErrBadInput.
func (e *LabelConflictError) Unwrap() error { return ErrBadInput }

// bag returns the index of bag id (a new one is registered with label y).
func (b *Builder) bag(id []byte, y float64) (int, error) {
	if len(id) == 0 {
		return 0, errors.New("empty bag id")
	}
	unlabeled := y != y // NaN: no label (see AddDense)
	if y != 0 && y != 1 && !unlabeled {
		return 0, fmt.Errorf("label %v, want 0 or 1 (or NaN: no label)", y)
	}
	k, ok := b.bagIdx[string(id)] // no allocation for the lookup
	if !ok {
		if len(b.bagLabel) > 0 && (b.bagLabel[0] != b.bagLabel[0]) != unlabeled {
			return 0, errors.New("labelled and unlabeled (NaN) instances mixed: a dataset has labels for all its bags or for none")
		}
		k = len(b.bagIDs)
		s := string(id)
		b.bagIdx[s] = k
		b.bagIDs = append(b.bagIDs, s)
		b.bagLabel = append(b.bagLabel, y)
		b.bagFirst = append(b.bagFirst, b.n)
		b.bagSize = append(b.bagSize, 0)
		return k, nil
	}
	if b.bagLabel[k] != y && !(unlabeled && b.bagLabel[k] != b.bagLabel[k]) {
		return 0, &LabelConflictError{Bag: b.bagIDs[k], Label: y, Prev: b.bagLabel[k], FirstInstance: b.bagFirst[k], bag: k}
	}
	return k, nil
}

// commit records the instance just appended to the feature arrays.
func (b *Builder) commit(k int, instID []byte) {
	if b.n > 0 && int(b.instBag[b.n-1]) > k {
		b.grouped = false // bags get increasing indices on first appearance
	}
	b.instBag = append(b.instBag, int32(k))
	b.bagSize[k]++
	b.idBuf = append(b.idBuf, instID...)
	b.idEnd = append(b.idEnd, len(b.idBuf))
	if b.sparse {
		b.rowptr = append(b.rowptr, len(b.values))
	}
	b.n++
}

// denseRoom reports whether one more row of cols values may be
// accumulated dense; when it may not, it switches the Builder to sparse
// accumulation, converting the rows so far (the caller then appends the
// row's non-zeros to colidx and values).
func (b *Builder) denseRoom(cols int) bool {
	if b.sparse {
		return false
	}
	if !cellsOver(b.n+1, cols, b.denseCap) {
		return true
	}
	b.rowptr = make([]int, 1, b.n+1)
	b.colidx = make([]int32, 0, b.nnz)
	b.values = make([]float64, 0, b.nnz)
	for i := range b.n {
		for j, v := range b.dense[i*cols : (i+1)*cols] {
			if v != 0 {
				b.colidx = append(b.colidx, int32(j))
				b.values = append(b.values, v)
			}
		}
		b.rowptr = append(b.rowptr, len(b.values))
	}
	b.maxCol = cols - 1 // the dimension is known; Build does not infer it
	b.dense, b.sparse = nil, true
	return false
}

// AddDense adds an instance with features x (len(x) == NumFeatures) to bag
// bagID with label (0 or 1; NaN for none: a Builder given only NaN labels
// builds a dataset without labels, to score). It returns an error wrapping
// ErrBadInput, leaving the Builder unchanged, if bagID is empty, the label
// is not 0, 1 or NaN, differs from the bag's earlier instances
// (*LabelConflictError), or is NaN where other bags have labels or the
// reverse, len(x) is wrong or above MaxFeaturesLimit, or a value is NaN or
// ±Inf.
func (b *Builder) AddDense(bagID, instanceID string, label float64, x []float64) error {
	if err := b.ready("AddDense"); err != nil {
		return err
	}
	cols := b.cols
	if cols == 0 {
		if len(x) == 0 {
			return badInput("AddDense: no features")
		}
		if len(x) > MaxFeaturesLimit {
			return tooLarge("AddDense: %d features exceed MaxFeaturesLimit = %d", len(x), MaxFeaturesLimit)
		}
		if b.maxCol >= len(x) {
			return badInput("AddDense: %d features, but index %d was added", len(x), b.maxCol)
		}
		cols = len(x)
	}
	if len(x) != cols {
		return badInput("AddDense: %d features, want %d", len(x), cols)
	}
	for j, v := range x {
		if !num.Finite(v) {
			return badInput("AddDense: feature %d is %v", j, v)
		}
	}
	k, err := b.bag([]byte(bagID), label)
	if err != nil {
		return wrapAdd("AddDense", err)
	}
	b.cols = cols
	if b.denseRoom(cols) {
		b.dense = append(b.dense, x...)
		b.nnz += countNonZero(x)
	} else {
		for j, v := range x {
			if v != 0 {
				b.colidx = append(b.colidx, int32(j))
				b.values = append(b.values, v)
			}
		}
		b.maxCol = max(b.maxCol, lastNonZero(x))
	}
	b.commit(k, []byte(instanceID))
	return nil
}

// wrapAdd returns a Builder.bag error as an Add* error matching
// ErrBadInput (and *LabelConflictError with errors.As).
func wrapAdd(fn string, err error) error {
	if _, ok := err.(*LabelConflictError); ok {
		return fmt.Errorf("mil: %s: %w", fn, err)
	}
	return fmt.Errorf("mil: %s: %w", fn, &inputError{msg: err.Error(), kinds: badInputKinds})
}

// AddSparse adds an instance whose non-zero features are value[p] at the
// 0-based columns index[p] (strictly increasing) to bag bagID with label
// (0 or 1; NaN for none, as for AddDense); explicit zero values are
// dropped. It returns an error wrapping ErrBadInput, leaving the Builder
// unchanged, if bagID is empty, the label is refused as by AddDense,
// len(index) != len(value), an index is negative,
// >= NumFeatures (when known) or >= MaxFeaturesLimit, or not increasing,
// or a value is NaN or ±Inf.
func (b *Builder) AddSparse(bagID, instanceID string, label float64, index []int, value []float64) error {
	if err := b.ready("AddSparse"); err != nil {
		return err
	}
	if len(index) != len(value) {
		return badInput("AddSparse: len(index) = %d != len(value) = %d", len(index), len(value))
	}
	prev := -1
	for p, j := range index {
		if j < 0 || b.cols > 0 && j >= b.cols || j >= MaxFeaturesLimit {
			return badInput("AddSparse: index %d out of range", j)
		}
		if j <= prev {
			return badInput("AddSparse: index %d not greater than previous index %d", j, prev)
		}
		if !num.Finite(value[p]) {
			return badInput("AddSparse: feature %d is %v", j, value[p])
		}
		prev = j
	}
	k, err := b.bag([]byte(bagID), label)
	if err != nil {
		return wrapAdd("AddSparse", err)
	}
	if b.n == 0 {
		b.sparse = true // the first instance decides the accumulation mode
	}
	if b.denseRoom(b.cols) {
		off := len(b.dense)
		b.dense = append(b.dense, make([]float64, b.cols)...)
		for p, j := range index {
			b.dense[off+j] = value[p]
			if value[p] != 0 {
				b.nnz++
			}
		}
	} else {
		for p, j := range index {
			if value[p] != 0 {
				b.colidx = append(b.colidx, int32(j))
				b.values = append(b.values, value[p])
				b.maxCol = max(b.maxCol, j)
			}
		}
	}
	b.commit(k, []byte(instanceID))
	return nil
}

// NumInstances returns the number of instances added so far.
func (b *Builder) NumInstances() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Build returns the dataset of the instances added so far, stored as opt
// says (nil: Auto, default caps), and resets the Builder to empty (keeping
// NumFeatures). It returns an error, leaving the Builder unchanged, if no
// instance was added (ErrNoInstances), the number of features is still
// unknown (no features anywhere), opt is invalid (LoadOptions.Validate),
// or the dataset exceeds opt's caps (MaxFeatures; MaxDenseCells for Dense
// storage); all but ErrNoInstances wrap ErrBadInput, the caps also
// ErrTooLarge.
func (b *Builder) Build(opt *LoadOptions) (*Dataset, error) {
	if err := b.ready("Build"); err != nil {
		return nil, err
	}
	lim, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	return b.build(lim)
}

func (b *Builder) build(lim limits) (*Dataset, error) {
	if b.n == 0 {
		return nil, ErrNoInstances
	}
	cols := b.cols
	if cols == 0 {
		cols = b.maxCol + 1
	}
	if cols == 0 {
		return nil, badInput("number of features unknown: no instance has a non-zero feature")
	}
	if err := lim.checkFeatures(cols); err != nil {
		return nil, err
	}
	if b.sparse {
		b.nnz = len(b.values)
	}
	kind, err := chooseStorage(b.nnz, b.n, cols, lim)
	if err != nil {
		return nil, err
	}
	nb := len(b.bagIDs)

	// The accumulated rows, in addition order, as storage. Build views them
	// bag by bag (one run per stretch of consecutive rows of one bag) and
	// copies the view unless it is already grouped in the wanted storage.
	acc := &storage{rows: b.n, cols: cols, ids: make([]string, b.n)}
	if b.sparse {
		acc.rowptr, acc.colidx, acc.values = b.rowptr, b.colidx, b.values
	} else {
		acc.dense = b.dense
	}
	all := string(b.idBuf) // one allocation; the ids are substrings of it
	lo := 0
	for i, end := range b.idEnd {
		acc.ids[i] = all[lo:end]
		lo = end
	}

	bagPtr := make([]int, nb+1)
	for k, s := range b.bagSize {
		bagPtr[k+1] = bagPtr[k] + s
	}
	view := &Dataset{m: acc, bagPtr: bagPtr, bagSrc: bagPtr[:nb], labels: b.bagLabel, bagIDs: b.bagIDs}
	if b.bagLabel[0] != b.bagLabel[0] {
		view.labels = nil // unlabeled (NaN labels)
	}
	if b.grouped {
		view.runs = []run{{src: 0, dst: 0, n: b.n}}
	} else {
		// A stable counting sort by bag: row i goes to position next[bag].
		order := make([]int, b.n)
		next := slices.Clone(bagPtr[:nb])
		for i, k := range b.instBag {
			order[next[k]] = i
			next[k]++
		}
		for pos, i := range order {
			if r := len(view.runs) - 1; r >= 0 && view.runs[r].src+view.runs[r].n == i {
				view.runs[r].n++
			} else {
				view.runs = append(view.runs, run{src: i, dst: pos, n: 1})
			}
		}
	}
	d := view
	if !b.grouped || (kind == Sparse) != b.sparse {
		d = view.copyAs(kind)
	}
	b.reset(b.cols, b.denseCap)
	return d, nil
}

func countNonZero(x []float64) int {
	n := 0
	for _, v := range x {
		if v != 0 {
			n++
		}
	}
	return n
}

func lastNonZero(x []float64) int {
	for j := len(x) - 1; j >= 0; j-- {
		if x[j] != 0 {
			return j
		}
	}
	return -1
}
