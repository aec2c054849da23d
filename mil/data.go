package mil

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/neadmm/neadmm/internal/num"
)

// Dataset is an immutable multi-instance dataset: NumInstances instances of
// NumFeatures features grouped into NumBags bags, each with a 0/1 label.
//
// Invariants (every constructor and loader enforces them): at least one bag,
// every bag holds at least one instance, labels are exactly 0 or 1, all
// feature values are finite, NumFeatures >= 1.
//
// The feature matrix is stored dense (flat row-major) or sparse (CSR), see
// IsSparse; Subset shares the storage of its parent instead of copying it.
// A Dataset is safe for concurrent use by multiple goroutines.
type Dataset struct {
	m      *storage
	runs   []run     // dataset rows -> storage rows, in dataset order
	bagPtr []int     // len NumBags+1: dataset row offsets of the bags
	bagSrc []int     // storage row of each bag's first instance
	labels []float64 // per bag, 0 or 1
	bagIDs []string  // per bag
}

// storage is the feature matrix shared by a dataset and its subsets.
// Exactly one of dense and (rowptr, colidx, values) is set.
type storage struct {
	rows, cols int
	dense      []float64 // rows*cols, row-major
	rowptr     []int     // rows+1
	colidx     []int32   // nnz, strictly increasing within a row
	values     []float64 // nnz; non-zero except as given to NewSparse
	ids        []string  // per storage row; nil means "1".."rows"
}

// run maps n consecutive dataset rows starting at dst to the storage rows
// starting at src. A dataset built by a loader has one run; a subset has at
// most one per chosen bag (adjacent bags merge), so products on it loop over
// the same contiguous blocks as on a copy.
type run struct {
	src, dst, n int
}

// NumBags returns the number of bags.
func (d *Dataset) NumBags() int { return len(d.labels) }

// NumInstances returns the number of instances in all bags.
func (d *Dataset) NumInstances() int { return d.bagPtr[len(d.bagPtr)-1] }

// NumFeatures returns the number of features D of every instance.
func (d *Dataset) NumFeatures() int { return d.m.cols }

// IsSparse reports whether the features are stored sparse (CSR), which
// selects the sparse paths of the products.
func (d *Dataset) IsSparse() bool { return d.m.dense == nil }

// BagPtr returns the bag offsets: bag k owns instances BagPtr()[k] to
// BagPtr()[k+1]-1. len(BagPtr()) == NumBags()+1, BagPtr()[0] == 0 and
// BagPtr()[NumBags()] == NumInstances(). The slice is shared: do not modify it.
func (d *Dataset) BagPtr() []int { return d.bagPtr }

// BagRange returns the instance range [start, end) of bag k. It panics if k
// is out of range.
func (d *Dataset) BagRange(k int) (start, end int) { return d.bagPtr[k], d.bagPtr[k+1] }

// Labels returns the bag labels (0 or 1), one per bag. The slice is shared:
// do not modify it.
func (d *Dataset) Labels() []float64 { return d.labels }

// Positives returns the number of bags labelled 1.
func (d *Dataset) Positives() int {
	p := 0
	for _, y := range d.labels {
		if y == 1 {
			p++
		}
	}
	return p
}

// BagID returns the id of bag k as read from the file (or "1".."NumBags" for
// datasets built from arrays). It panics if k is out of range.
func (d *Dataset) BagID(k int) string { return d.bagIDs[k] }

// InstanceID returns the id of instance i as read from the file (or its
// 1-based row number in the arrays a dataset was built from). It costs a
// binary search over the bags. It panics if i is out of range.
func (d *Dataset) InstanceID(i int) string {
	src := d.srcRow(i)
	if d.m.ids == nil {
		return strconv.Itoa(src + 1)
	}
	return d.m.ids[src]
}

// srcRow returns the storage row of dataset row i.
func (d *Dataset) srcRow(i int) int {
	if i < 0 || i >= d.NumInstances() {
		panic(fmt.Sprintf("mil.Dataset: instance %d out of range [0,%d)", i, d.NumInstances()))
	}
	// The last bag starting at or before i (bags are never empty, so bagPtr
	// is strictly increasing).
	k, found := slices.BinarySearch(d.bagPtr, i)
	if !found {
		k--
	}
	return d.bagSrc[k] + i - d.bagPtr[k]
}

// NNZ returns the number of non-zero feature values over all instances
// (for sparse storage, the stored entries: NewSparse may store zeros).
func (d *Dataset) NNZ() int {
	nnz := 0
	for _, r := range d.runs {
		if d.IsSparse() {
			nnz += d.m.rowptr[r.src+r.n] - d.m.rowptr[r.src]
			continue
		}
		for _, v := range d.m.dense[r.src*d.m.cols : (r.src+r.n)*d.m.cols] {
			if v != 0 {
				nnz++
			}
		}
	}
	return nnz
}

// Density returns NNZ()/(NumInstances()*NumFeatures()), the fraction of
// non-zero feature values.
func (d *Dataset) Density() float64 {
	return float64(d.NNZ()) / (float64(d.NumInstances()) * float64(d.NumFeatures()))
}

// Row writes the features of instance i into dst (zeros included). It
// panics if len(dst) != NumFeatures() or i is out of range.
func (d *Dataset) Row(dst []float64, i int) {
	if len(dst) != d.m.cols {
		panic("mil.Dataset.Row: len(dst) != NumFeatures()")
	}
	d.m.row(dst, d.srcRow(i))
}

func (m *storage) row(dst []float64, src int) {
	if m.dense != nil {
		copy(dst, m.dense[src*m.cols:(src+1)*m.cols])
		return
	}
	clear(dst)
	for p := m.rowptr[src]; p < m.rowptr[src+1]; p++ {
		dst[m.colidx[p]] = m.values[p]
	}
}

// Subset returns the dataset made of the given bags of d, in the given order
// (a bag may repeat, as in a bootstrap sample). The feature data is shared
// with d, not copied: only O(len(bags)) bookkeeping is allocated, and the
// products cost the same as on a copy (one contiguous block per run of
// adjacent bags). Indices out of range or an empty list return an error.
func (d *Dataset) Subset(bags []int) (*Dataset, error) {
	if len(bags) == 0 {
		return nil, errors.New("mil: Subset: no bags")
	}
	s := &Dataset{
		m:      d.m,
		bagPtr: make([]int, len(bags)+1),
		bagSrc: make([]int, len(bags)),
		labels: make([]float64, len(bags)),
		bagIDs: make([]string, len(bags)),
	}
	off := 0
	for i, k := range bags {
		if k < 0 || k >= d.NumBags() {
			return nil, fmt.Errorf("mil: Subset: bag index %d out of range [0,%d)", k, d.NumBags())
		}
		n := d.bagPtr[k+1] - d.bagPtr[k]
		src := d.bagSrc[k]
		s.bagSrc[i], s.labels[i], s.bagIDs[i] = src, d.labels[k], d.bagIDs[k]
		if last := len(s.runs) - 1; last >= 0 && s.runs[last].src+s.runs[last].n == src {
			s.runs[last].n += n
		} else {
			s.runs = append(s.runs, run{src: src, dst: off, n: n})
		}
		off += n
		s.bagPtr[i+1] = off
	}
	return s, nil
}

// Materialize returns a dataset with d's bags and instances whose storage
// holds exactly those instances in order, so every product runs over one
// contiguous block: d itself when that is already so (loaded datasets),
// else a copy of d's rows (a subset's storage is its parent's). Products
// on the result equal d's up to rounding (the vec kernels block rows, so
// the grouping of rows may change the last bit).
//
// Why call it: on dense data vec.MulTransVec needs the rows in one block;
// a subset made of many runs accumulates row by row instead, measured about
// 1.2x slower per MulVec+MulTransVec pair on a fox-sized 90% subset (0.60
// vs 0.51 ms, BenchmarkSubsetProducts; sparse subsets cost the same as a
// copy). A learner running hundreds of products on a dense
// cross-validation fold should Materialize it first: the copy costs about
// one product pair.
func (d *Dataset) Materialize() *Dataset {
	if len(d.runs) == 1 && d.runs[0].src == 0 && d.runs[0].n == d.m.rows {
		return d
	}
	return d.copyAs(d.storageKind())
}

func (d *Dataset) storageKind() Storage {
	if d.IsSparse() {
		return Sparse
	}
	return Dense
}

// Convert returns d with its features stored as s: Dense, Sparse, or Auto
// (sparse when Density() < DefaultSparseDensity). It returns d itself when
// the storage already matches, else a materialized copy. Convert(Auto)
// never chooses Dense beyond MaxDenseCells; an explicit Convert(Dense) of a
// larger dataset panics (loaders return an error for that case instead).
func (d *Dataset) Convert(s Storage) *Dataset {
	var err error
	if s == Auto {
		s, err = chooseStorage(d.NNZ(), d.NumInstances(), d.NumFeatures(), nil)
	} else {
		_, err = chooseStorage(d.NNZ(), d.NumInstances(), d.NumFeatures(), &LoadOptions{Storage: s})
	}
	if err != nil {
		panic("mil.Convert: " + err.Error())
	}
	if s == d.storageKind() {
		return d
	}
	return d.copyAs(s)
}

// copyAs copies d into fresh storage of kind s (Dense or Sparse).
func (d *Dataset) copyAs(s Storage) *Dataset {
	n, cols := d.NumInstances(), d.NumFeatures()
	m := &storage{rows: n, cols: cols, ids: make([]string, n)}
	if s == Sparse {
		nnz := d.NNZ()
		m.rowptr = make([]int, n+1)
		m.colidx = make([]int32, 0, nnz)
		m.values = make([]float64, 0, nnz)
	} else {
		m.dense = make([]float64, n*cols)
	}
	var row []float64 // scratch for dense -> sparse only: cols may be huge for sparse data
	if s == Sparse && !d.IsSparse() {
		row = make([]float64, cols)
	}
	for _, r := range d.runs {
		for i := range r.n {
			src, dst := r.src+i, r.dst+i
			if d.m.ids == nil {
				m.ids[dst] = strconv.Itoa(src + 1)
			} else {
				m.ids[dst] = d.m.ids[src]
			}
			if s == Dense {
				d.m.row(m.dense[dst*cols:(dst+1)*cols], src)
				continue
			}
			if d.IsSparse() {
				lo, hi := d.m.rowptr[src], d.m.rowptr[src+1]
				m.colidx = append(m.colidx, d.m.colidx[lo:hi]...)
				m.values = append(m.values, d.m.values[lo:hi]...)
			} else {
				d.m.row(row, src)
				for j, v := range row {
					if v != 0 {
						m.colidx = append(m.colidx, int32(j))
						m.values = append(m.values, v)
					}
				}
			}
			m.rowptr[dst+1] = len(m.values)
		}
	}
	out := &Dataset{
		m:      m,
		runs:   []run{{src: 0, dst: 0, n: n}},
		bagPtr: d.bagPtr, // immutable, so shared
		bagSrc: d.bagPtr[:len(d.bagPtr)-1],
		labels: d.labels,
		bagIDs: d.bagIDs,
	}
	return out
}

// NewDense returns a dataset over the n x numFeatures row-major matrix x
// (n = len(x)/numFeatures instances), grouped into bags by bagPtr (bag k owns
// rows bagPtr[k] to bagPtr[k+1]-1; bagPtr[0] == 0, bagPtr[len-1] == n) with
// one 0/1 label per bag. Bag ids are "1".."NumBags" and instance ids
// "1".."n". The dataset takes ownership of x, bagPtr and labels: do not
// modify them afterwards.
//
// It returns an error if numFeatures < 1, len(x) is not a multiple of it, a
// value is NaN or ±Inf, bagPtr is not strictly increasing from 0 to n (so
// empty bags are errors), there are no bags, or a label is not 0 or 1.
func NewDense(x []float64, numFeatures int, bagPtr []int, labels []float64) (*Dataset, error) {
	if numFeatures < 1 {
		return nil, fmt.Errorf("mil: NewDense: numFeatures = %d, want >= 1", numFeatures)
	}
	if len(x)%numFeatures != 0 {
		return nil, fmt.Errorf("mil: NewDense: len(x) = %d is not a multiple of numFeatures = %d", len(x), numFeatures)
	}
	for i, v := range x {
		if !num.Finite(v) {
			return nil, fmt.Errorf("mil: NewDense: instance %d feature %d is %v", i/numFeatures, i%numFeatures, v)
		}
	}
	m := &storage{rows: len(x) / numFeatures, cols: numFeatures, dense: x}
	return newDataset(m, bagPtr, labels, "NewDense")
}

// NewSparse returns a dataset over the CSR matrix (rowptr, colidx, values)
// with numFeatures columns: row i holds values[rowptr[i]:rowptr[i+1]] at the
// 0-based columns colidx[rowptr[i]:rowptr[i+1]]. Bags, labels, ids and
// ownership are as for NewDense.
//
// It returns an error if numFeatures < 1, rowptr does not start at 0 and
// never decrease up to len(values), len(colidx) != len(values), a column is
// out of [0,numFeatures) or not strictly increasing within its row, a value
// is NaN or ±Inf, or bagPtr or labels are invalid as for NewDense. Explicit
// zero values are allowed (they cost time, not correctness).
func NewSparse(rowptr []int, colidx []int32, values []float64, numFeatures int, bagPtr []int, labels []float64) (*Dataset, error) {
	if numFeatures < 1 {
		return nil, fmt.Errorf("mil: NewSparse: numFeatures = %d, want >= 1", numFeatures)
	}
	if len(rowptr) < 1 || rowptr[0] != 0 || rowptr[len(rowptr)-1] != len(values) || len(colidx) != len(values) {
		return nil, errors.New("mil: NewSparse: rowptr must run from 0 to len(values) == len(colidx)")
	}
	for i := range len(rowptr) - 1 {
		lo, hi := rowptr[i], rowptr[i+1]
		if hi < lo {
			return nil, fmt.Errorf("mil: NewSparse: rowptr decreases at row %d", i)
		}
		prev := int32(-1)
		for p := lo; p < hi; p++ {
			c := colidx[p]
			if c <= prev || int(c) >= numFeatures {
				return nil, fmt.Errorf("mil: NewSparse: row %d: column %d out of range or not increasing", i, c)
			}
			if !num.Finite(values[p]) {
				return nil, fmt.Errorf("mil: NewSparse: row %d column %d is %v", i, c, values[p])
			}
			prev = c
		}
	}
	m := &storage{rows: len(rowptr) - 1, cols: numFeatures, rowptr: rowptr, colidx: colidx, values: values}
	return newDataset(m, bagPtr, labels, "NewSparse")
}

// newDataset checks bagPtr and labels against m and wraps them.
func newDataset(m *storage, bagPtr []int, labels []float64, fn string) (*Dataset, error) {
	if len(labels) == 0 {
		return nil, fmt.Errorf("mil: %s: no bags", fn)
	}
	if len(bagPtr) != len(labels)+1 {
		return nil, fmt.Errorf("mil: %s: len(bagPtr) = %d, want len(labels)+1 = %d", fn, len(bagPtr), len(labels)+1)
	}
	if bagPtr[0] != 0 || bagPtr[len(labels)] != m.rows {
		return nil, fmt.Errorf("mil: %s: bagPtr must run from 0 to the number of instances %d", fn, m.rows)
	}
	for k, y := range labels {
		if bagPtr[k+1] <= bagPtr[k] {
			return nil, fmt.Errorf("mil: %s: bag %d has no instances", fn, k)
		}
		if y != 0 && y != 1 {
			return nil, fmt.Errorf("mil: %s: bag %d has label %v, want 0 or 1", fn, k, y)
		}
	}
	ids := make([]string, len(labels))
	for k := range ids {
		ids[k] = strconv.Itoa(k + 1)
	}
	return &Dataset{
		m:      m,
		runs:   []run{{src: 0, dst: 0, n: m.rows}},
		bagPtr: bagPtr,
		bagSrc: bagPtr[:len(labels)],
		labels: labels,
		bagIDs: ids,
	}, nil
}
