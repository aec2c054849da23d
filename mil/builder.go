package mil

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/neadmm/neadmm/internal/num"
)

// Storage selects how a dataset's feature matrix is stored, and so which
// path the products take.
type Storage int

const (
	// Auto stores sparse when the density (fraction of non-zero values) is
	// below the threshold (DefaultSparseDensity unless overridden), dense
	// otherwise.
	Auto Storage = iota
	// Dense stores a flat row-major matrix; products run on the vec kernels.
	Dense
	// Sparse stores CSR; products touch only the non-zeros.
	Sparse
)

// String returns "auto", "dense" or "sparse".
func (s Storage) String() string {
	switch s {
	case Auto:
		return "auto"
	case Dense:
		return "dense"
	case Sparse:
		return "sparse"
	}
	return "Storage(" + strconv.Itoa(int(s)) + ")"
}

// DefaultSparseDensity is the density below which Auto chooses sparse
// storage. Measured with BenchmarkProductsByDensity (one MulVec plus one
// MulTransVec, 234 features, AVX2): the CSR path costs about 1.2 ns per
// non-zero, the dense path about 0.12 ns per entry while the matrix fits in
// cache (1500 rows) and 0.3-0.5 ns once it does not (20000 rows, 37 MB), so
// the break-even density is about 0.1 in cache and 0.3-0.4 beyond; 0.15
// loses at most 1.5x in the first case and wins 2x in the second.
// vaccine.svm (density 0.005) is stored sparse, fox.csv (0.62) dense.
const DefaultSparseDensity = 0.15

// LoadOptions tunes how loaders and Builder.Build store the features. The
// zero value (or a nil *LoadOptions) means Auto with DefaultSparseDensity.
type LoadOptions struct {
	Storage Storage
	// SparseDensity overrides DefaultSparseDensity for Auto when > 0.
	SparseDensity float64
}

// MaxDenseCells caps rows*cols of dense storage (2^28 float64 = 2 GiB): Auto
// stores anything larger sparse, and an explicit Dense request for it is an
// error, so a tiny file declaring a huge dimension cannot exhaust memory.
const MaxDenseCells = 1 << 28

func chooseStorage(nnz, rows, cols int, opt *LoadOptions) (Storage, error) {
	tooBig := float64(rows)*float64(cols) > MaxDenseCells
	thr := DefaultSparseDensity
	if opt != nil {
		if opt.Storage == Dense && tooBig {
			return 0, fmt.Errorf("mil: dense storage of %d x %d values exceeds MaxDenseCells (%d); use sparse storage", rows, cols, MaxDenseCells)
		}
		if opt.Storage != Auto {
			return opt.Storage, nil
		}
		if opt.SparseDensity > 0 {
			thr = opt.SparseDensity
		}
	}
	if tooBig || float64(nnz) < thr*float64(rows)*float64(cols) {
		return Sparse, nil
	}
	return Dense, nil
}

// Builder assembles a Dataset one instance at a time, the way the loaders
// do: instances of one bag may come in any order and interleaved with other
// bags; Build groups them by bag, keeping bags in order of first appearance
// and instances of a bag in the order they were added. Use it to build
// synthetic data. A Builder is not safe for concurrent use.
type Builder struct {
	cols   int // 0 until known
	sparse bool
	n      int

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
// with only AddSparse calls Build sets it to the largest index + 1.
func NewBuilder(numFeatures int) *Builder {
	b := &Builder{}
	b.reset(max(numFeatures, 0))
	return b
}

func (b *Builder) reset(cols int) {
	*b = Builder{cols: cols, rowptr: []int{0}, bagIdx: map[string]int{}, grouped: true, maxCol: -1}
}

// LabelConflictError reports a bag whose instances disagree on the label.
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

// bag returns the index of bag id (a new one is registered with label y).
func (b *Builder) bag(id []byte, y float64) (int, error) {
	if len(id) == 0 {
		return 0, errors.New("empty bag id")
	}
	if y != 0 && y != 1 {
		return 0, fmt.Errorf("label %v, want 0 or 1", y)
	}
	k, ok := b.bagIdx[string(id)] // no allocation for the lookup
	if !ok {
		k = len(b.bagIDs)
		s := string(id)
		b.bagIdx[s] = k
		b.bagIDs = append(b.bagIDs, s)
		b.bagLabel = append(b.bagLabel, y)
		b.bagFirst = append(b.bagFirst, b.n)
		b.bagSize = append(b.bagSize, 0)
		return k, nil
	}
	if b.bagLabel[k] != y {
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

// AddDense adds an instance with features x (len(x) == NumFeatures) to bag
// bagID with label (0 or 1). It returns an error, leaving the Builder
// unchanged, if bagID is empty, the label is not 0 or 1 or differs from the
// bag's earlier instances (*LabelConflictError), len(x) is wrong, or a value
// is NaN or ±Inf.
func (b *Builder) AddDense(bagID, instanceID string, label float64, x []float64) error {
	cols := b.cols
	if cols == 0 {
		if len(x) == 0 {
			return errors.New("mil: AddDense: no features")
		}
		if b.maxCol >= len(x) {
			return fmt.Errorf("mil: AddDense: %d features, but index %d was added", len(x), b.maxCol)
		}
		cols = len(x)
	}
	if len(x) != cols {
		return fmt.Errorf("mil: AddDense: %d features, want %d", len(x), cols)
	}
	for j, v := range x {
		if !num.Finite(v) {
			return fmt.Errorf("mil: AddDense: feature %d is %v", j, v)
		}
	}
	k, err := b.bag([]byte(bagID), label)
	if err != nil {
		return fmt.Errorf("mil: AddDense: %w", err)
	}
	b.cols = cols
	if b.sparse {
		for j, v := range x {
			if v != 0 {
				b.colidx = append(b.colidx, int32(j))
				b.values = append(b.values, v)
			}
		}
		b.maxCol = max(b.maxCol, lastNonZero(x))
	} else {
		b.dense = append(b.dense, x...)
		b.nnz += countNonZero(x)
	}
	b.commit(k, []byte(instanceID))
	return nil
}

// AddSparse adds an instance whose non-zero features are value[p] at the
// 0-based columns index[p] (strictly increasing) to bag bagID with label
// (0 or 1); explicit zero values are dropped. It returns an error, leaving
// the Builder unchanged, if bagID is empty, the label is not 0 or 1 or
// differs from the bag's earlier instances (*LabelConflictError),
// len(index) != len(value), an index is negative, >= NumFeatures (when
// known) or not increasing, or a value is NaN or ±Inf.
func (b *Builder) AddSparse(bagID, instanceID string, label float64, index []int, value []float64) error {
	if len(index) != len(value) {
		return errors.New("mil: AddSparse: len(index) != len(value)")
	}
	prev := -1
	for p, j := range index {
		if j < 0 || b.cols > 0 && j >= b.cols || j >= math.MaxInt32 {
			return fmt.Errorf("mil: AddSparse: index %d out of range", j)
		}
		if j <= prev {
			return fmt.Errorf("mil: AddSparse: index %d not greater than previous index %d", j, prev)
		}
		if !num.Finite(value[p]) {
			return fmt.Errorf("mil: AddSparse: feature %d is %v", j, value[p])
		}
		prev = j
	}
	k, err := b.bag([]byte(bagID), label)
	if err != nil {
		return fmt.Errorf("mil: AddSparse: %w", err)
	}
	if b.n == 0 {
		b.sparse = true // the first instance decides the accumulation mode
	}
	if b.sparse {
		for p, j := range index {
			if value[p] != 0 {
				b.colidx = append(b.colidx, int32(j))
				b.values = append(b.values, value[p])
				b.maxCol = max(b.maxCol, j)
			}
		}
	} else {
		off := len(b.dense)
		b.dense = append(b.dense, make([]float64, b.cols)...)
		for p, j := range index {
			b.dense[off+j] = value[p]
			if value[p] != 0 {
				b.nnz++
			}
		}
	}
	b.commit(k, []byte(instanceID))
	return nil
}

// NumInstances returns the number of instances added so far.
func (b *Builder) NumInstances() int { return b.n }

// Build returns the dataset of the instances added so far, stored as opt
// says (nil: Auto), and resets the Builder to empty (keeping NumFeatures). It
// returns an error if no instance was added or the number of features is
// still unknown (no features anywhere).
func (b *Builder) Build(opt *LoadOptions) (*Dataset, error) {
	if b.n == 0 {
		return nil, ErrNoInstances
	}
	cols := b.cols
	if cols == 0 {
		cols = b.maxCol + 1
	}
	if cols == 0 {
		return nil, errors.New("mil: number of features unknown: no instance has a non-zero feature")
	}
	if b.sparse {
		b.nnz = len(b.values)
	}
	kind, err := chooseStorage(b.nnz, b.n, cols, opt)
	if err != nil {
		b.reset(b.cols)
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
	b.reset(b.cols)
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
