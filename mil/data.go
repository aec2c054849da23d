package mil

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/neadmm/neadmm/internal/num"
)

// Dataset is an immutable multi-instance dataset: NumInstances instances of
// NumFeatures features grouped into NumBags bags, each with a 0/1 label
// (or none: a dataset built without labels, for scoring only).
//
// Invariants (every constructor and loader enforces them): at least one bag,
// every bag holds at least one instance, labels are exactly 0 or 1 (or
// absent for every bag), all feature values are finite, NumFeatures >= 1.
//
// The feature matrix is stored dense (flat row-major) or sparse (CSR), see
// IsSparse; Subset shares the storage of its parent instead of copying it.
// A Dataset is safe for concurrent use by multiple goroutines.
type Dataset struct {
	m      *storage
	runs   []run     // dataset rows -> storage rows, in dataset order
	bagPtr []int     // len NumBags+1: dataset row offsets of the bags
	bagSrc []int     // storage row of each bag's first instance
	labels []float64 // per bag, 0 or 1; nil: unlabeled
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

// checkUsable returns an error wrapping ErrBadInput, naming fn, for a nil
// d or the zero Dataset (which no constructor returns: every Dataset
// method that returns an error checks this first, and so should callers
// such as Fit).
func (d *Dataset) checkUsable(fn string) error {
	if d == nil {
		return badInput("%s: nil dataset", fn)
	}
	if !d.usable() {
		return badInput("%s: zero Dataset (build one with a loader, NewDense, NewSparse or a Builder)", fn)
	}
	return nil
}

// usable reports whether d was built by a constructor (not nil, not the
// zero Dataset): the check of checkUsable without its error, for callers
// that must not allocate when d is fine (the Model's prediction methods).
func (d *Dataset) usable() bool { return d != nil && d.m != nil && len(d.bagPtr) > 0 }

// The accessors below work on a nil or zero Dataset, which has no bags,
// no instances and no features (0, nil or false); the methods returning
// an error refuse it with ErrBadInput, and the products panic on it.

// NumBags returns the number of bags.
func (d *Dataset) NumBags() int {
	if d == nil {
		return 0
	}
	return len(d.bagSrc)
}

// NumInstances returns the number of instances in all bags.
func (d *Dataset) NumInstances() int {
	if d == nil || len(d.bagPtr) == 0 {
		return 0
	}
	return d.bagPtr[len(d.bagPtr)-1]
}

// NumFeatures returns the number of features D of every instance.
func (d *Dataset) NumFeatures() int {
	if d == nil || d.m == nil {
		return 0
	}
	return d.m.cols
}

// IsSparse reports whether the features are stored sparse (CSR), which
// selects the sparse paths of the products.
func (d *Dataset) IsSparse() bool { return d != nil && d.m != nil && d.m.dense == nil }

// BagPtr returns the bag offsets: bag k owns instances BagPtr()[k] to
// BagPtr()[k+1]-1. len(BagPtr()) == NumBags()+1, BagPtr()[0] == 0 and
// BagPtr()[NumBags()] == NumInstances(). The slice is shared: do not modify it.
func (d *Dataset) BagPtr() []int {
	if d == nil {
		return nil
	}
	return d.bagPtr
}

// BagRange returns the instance range [start, end) of bag k. It panics if k
// is out of range.
func (d *Dataset) BagRange(k int) (start, end int) { return d.bagPtr[k], d.bagPtr[k+1] }

// Labels returns the bag labels (0 or 1), one per bag, or nil for a
// dataset built without labels (or a nil Dataset). The slice is shared: do
// not modify it.
func (d *Dataset) Labels() []float64 {
	if d == nil {
		return nil
	}
	return d.labels
}

// Positives returns the number of bags labelled 1.
func (d *Dataset) Positives() int {
	if d == nil {
		return 0
	}
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
	if !d.usable() {
		return 0
	}
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
// non-zero feature values: 0 for a nil or zero Dataset.
func (d *Dataset) Density() float64 {
	if !d.usable() {
		return 0
	}
	return float64(d.NNZ()) / (float64(d.NumInstances()) * float64(d.NumFeatures()))
}

// Row writes the features of instance i into dst (zeros included). It
// returns an error wrapping ErrBadInput if len(dst) != NumFeatures() or i
// is out of range, leaving dst unchanged.
func (d *Dataset) Row(dst []float64, i int) error {
	if err := d.checkUsable("Dataset.Row"); err != nil {
		return err
	}
	if len(dst) != d.m.cols {
		return badInput("Dataset.Row: len(dst) = %d, want NumFeatures() = %d", len(dst), d.m.cols)
	}
	if i < 0 || i >= d.NumInstances() {
		return badInput("Dataset.Row: instance %d out of range [0,%d)", i, d.NumInstances())
	}
	d.m.row(dst, d.srcRow(i))
	return nil
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
// adjacent bags).
//
// It returns an error wrapping ErrBadInput for a nil d, an empty list or
// an index out of range, and one also wrapping ErrTooLarge when repeats
// make the subset larger than twice d and than DefaultMaxDenseCells values
// (its instances times NumFeatures for dense storage, its stored entries
// plus instances for sparse): a copy of it (Materialize, Scaler.Apply)
// and the per-instance vectors of a fit would be sized by it.
func (d *Dataset) Subset(bags []int) (*Dataset, error) {
	if err := d.checkUsable("Subset"); err != nil {
		return nil, err
	}
	if len(bags) == 0 {
		return nil, badInput("Subset: no bags")
	}
	var size float64 // values a copy of the subset stores (see storedValues)
	for _, k := range bags {
		if k < 0 || k >= d.NumBags() {
			return nil, badInput("Subset: bag index %d out of range [0,%d)", k, d.NumBags())
		}
		size += d.bagValues(k)
	}
	if limit := max(2*d.storedValues(), DefaultMaxDenseCells); size > limit {
		return nil, tooLarge("Subset: %d bags holding %.0f stored values exceed the cap of %.0f (twice the dataset, at least DefaultMaxDenseCells)", len(bags), size, limit)
	}
	s := &Dataset{
		m:      d.m,
		bagPtr: make([]int, len(bags)+1),
		bagSrc: make([]int, len(bags)),
		bagIDs: make([]string, len(bags)),
	}
	if d.labels != nil { // an unlabeled dataset's subsets are unlabeled
		s.labels = make([]float64, len(bags))
	}
	off := 0
	for i, k := range bags {
		n := d.bagPtr[k+1] - d.bagPtr[k]
		src := d.bagSrc[k]
		s.bagSrc[i], s.bagIDs[i] = src, d.bagIDs[k]
		if s.labels != nil {
			s.labels[i] = d.labels[k]
		}
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

// Sizes, for the caps. They are float64 so that products of dimensions
// never overflow (exact below 2^53, far above any cap).

// storedValues returns the values a copy of d in its own storage kind
// holds (what Materialize and Scaler.Apply allocate): NumInstances*
// NumFeatures for dense storage, stored entries plus instances (a row
// pointer each) for sparse.
func (d *Dataset) storedValues() float64 {
	var v float64
	for k := range d.NumBags() {
		v += d.bagValues(k)
	}
	return v
}

// bagValues is storedValues for bag k alone.
func (d *Dataset) bagValues(k int) float64 {
	n := d.bagPtr[k+1] - d.bagPtr[k]
	if !d.IsSparse() {
		return float64(n) * float64(d.m.cols)
	}
	src := d.bagSrc[k]
	return float64(d.m.rowptr[src+n]-d.m.rowptr[src]) + float64(n)
}

// Materialize returns a dataset with d's bags and instances whose storage
// holds exactly those instances in order, so every product runs over one
// contiguous block: d itself when that is already so (loaded datasets),
// else a copy of d's rows (a subset's storage is its parent's). Products
// on the result equal d's up to rounding (the vec kernels block rows, so
// the grouping of rows may change the last bit).
//
// Why call it: on dense data vec.MulTransVec needs the rows in one block;
// a subset made of many runs accumulates row by row instead, which is
// slower (docs/mil-options.md; sparse subsets cost the same as a copy). A
// learner running hundreds of products on a dense cross-validation fold
// should Materialize it first: the copy costs about one product pair.
func (d *Dataset) Materialize() *Dataset {
	if !d.usable() || len(d.runs) == 1 && d.runs[0].src == 0 && d.runs[0].n == d.m.rows {
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
// the storage already matches, else a materialized copy. It is
// ConvertWith(&LoadOptions{Storage: s}): Auto never chooses Dense beyond
// DefaultMaxDenseCells, and an explicit Dense beyond it is an error (use
// ConvertWith to raise the cap).
func (d *Dataset) Convert(s Storage) (*Dataset, error) {
	if !s.valid() {
		return nil, badInput("Convert: storage %v, want Auto, Dense or Sparse", s)
	}
	return d.ConvertWith(&LoadOptions{Storage: s})
}

// ConvertWith is Convert with the storage, the Auto threshold and the
// dense cap taken from opt (nil: Auto with the defaults); its other fields
// do not apply. It returns an error wrapping ErrBadInput for a nil d or
// invalid options (LoadOptions.Validate), and one also wrapping
// ErrTooLarge for dense storage beyond the cap, before allocating.
func (d *Dataset) ConvertWith(opt *LoadOptions) (*Dataset, error) {
	if err := d.checkUsable("Convert"); err != nil {
		return nil, err
	}
	lim, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	s, err := chooseStorage(d.NNZ(), d.NumInstances(), d.NumFeatures(), lim)
	if err != nil {
		return nil, fmt.Errorf("mil: Convert: %w", err)
	}
	if s == d.storageKind() {
		return d, nil
	}
	return d.copyAs(s), nil
}

// copyAs copies d into fresh storage of kind s (Dense or Sparse).
func (d *Dataset) copyAs(s Storage) *Dataset {
	out, _ := d.copyAsTicking(s, nil) // no ticker, no error
	return out
}

// copyAsTicking is copyAs ticking tk (if not nil) after every row: the
// first writes to a fresh block fault its pages in, measured at up to 170
// ms for 48 MB on a busy machine, so a long copy must look at its context.
func (d *Dataset) copyAsTicking(s Storage, tk *ticker) (*Dataset, error) {
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
			if tk != nil {
				work := cols // values written or read
				if s == Sparse && d.IsSparse() {
					work = d.m.rowptr[src+1] - d.m.rowptr[src]
				}
				if err := tk.tick(work + 1); err != nil {
					return nil, err
				}
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
	return out, nil
}

// NewDense returns a dataset over the n x numFeatures row-major matrix x
// (n = len(x)/numFeatures instances), grouped into bags by bagPtr (bag k owns
// rows bagPtr[k] to bagPtr[k+1]-1; bagPtr[0] == 0, bagPtr[len-1] == n) with
// one 0/1 label per bag, or labels nil for a dataset to score only (see
// Labels; Fit, FitCV and Protocol.Run refuse it). Bag ids are
// "1".."NumBags" and instance ids "1".."n". The dataset takes ownership of
// x, bagPtr and labels: do not modify them afterwards.
//
// It returns an error wrapping ErrBadInput if numFeatures is < 1 or above
// MaxFeaturesLimit, len(x) is not a multiple of it, a value is NaN or ±Inf,
// bagPtr is not strictly increasing from 0 to n (so empty bags are
// errors), there are no bags, or a label is not 0 or 1. (No other cap
// applies: every size it implies is at most len(x).)
func NewDense(x []float64, numFeatures int, bagPtr []int, labels []float64) (*Dataset, error) {
	if numFeatures < 1 || numFeatures > MaxFeaturesLimit {
		return nil, badInput("NewDense: numFeatures = %d, want 1 to MaxFeaturesLimit = %d", numFeatures, MaxFeaturesLimit)
	}
	if len(x)%numFeatures != 0 {
		return nil, badInput("NewDense: len(x) = %d is not a multiple of numFeatures = %d", len(x), numFeatures)
	}
	for i, v := range x {
		if !num.Finite(v) {
			return nil, badInput("NewDense: instance %d feature %d is %v", i/numFeatures, i%numFeatures, v)
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
// It returns an error wrapping ErrBadInput if numFeatures < 1, rowptr is
// empty, does not start at 0, decreases, or does not end at len(values),
// len(colidx) != len(values), a column is out of [0,numFeatures) or not
// strictly increasing within its row, a value is NaN or ±Inf, or bagPtr or
// labels are invalid as for NewDense; it also wraps ErrTooLarge if
// numFeatures exceeds DefaultMaxFeatures (a fit allocates vectors of
// numFeatures values, however few the entries: to go beyond, add the rows
// to a Builder and Build with LoadOptions.MaxFeatures). Explicit zero
// values are allowed (they cost time, not correctness).
func NewSparse(rowptr []int, colidx []int32, values []float64, numFeatures int, bagPtr []int, labels []float64) (*Dataset, error) {
	if numFeatures < 1 {
		return nil, badInput("NewSparse: numFeatures = %d, want >= 1", numFeatures)
	}
	if numFeatures > DefaultMaxFeatures {
		return nil, tooLarge("NewSparse: numFeatures = %d exceeds DefaultMaxFeatures = %d (a Builder with LoadOptions.MaxFeatures goes beyond)", numFeatures, DefaultMaxFeatures)
	}
	if err := checkCSR("NewSparse", rowptr, colidx, values, numFeatures); err != nil {
		return nil, err
	}
	m := &storage{rows: len(rowptr) - 1, cols: numFeatures, rowptr: rowptr, colidx: colidx, values: values}
	return newDataset(m, bagPtr, labels, "NewSparse")
}

// checkCSR applies NewSparse's rules to the CSR arrays of a matrix with
// numFeatures >= 1 columns, naming fn in its error.
func checkCSR(fn string, rowptr []int, colidx []int32, values []float64, numFeatures int) error {
	if len(colidx) != len(values) {
		return badInput("%s: len(colidx) = %d != len(values) = %d", fn, len(colidx), len(values))
	}
	if len(rowptr) == 0 || rowptr[0] != 0 {
		return badInput("%s: rowptr must start with 0", fn)
	}
	// The whole of rowptr first, so the loop below indexes colidx safely.
	for i := range len(rowptr) - 1 {
		if rowptr[i+1] < rowptr[i] {
			return badInput("%s: rowptr decreases at row %d (%d to %d)", fn, i, rowptr[i], rowptr[i+1])
		}
		if rowptr[i+1] > len(values) {
			return badInput("%s: rowptr[%d] = %d exceeds len(values) = %d", fn, i+1, rowptr[i+1], len(values))
		}
	}
	if last := rowptr[len(rowptr)-1]; last != len(values) {
		return badInput("%s: rowptr ends at %d, want len(values) = %d", fn, last, len(values))
	}
	for i := range len(rowptr) - 1 {
		prev := int32(-1)
		for p := rowptr[i]; p < rowptr[i+1]; p++ {
			c := colidx[p]
			if c < 0 || int(c) >= numFeatures {
				return badInput("%s: row %d: column %d out of range [0,%d)", fn, i, c, numFeatures)
			}
			if c <= prev {
				return badInput("%s: row %d: column %d not greater than previous column %d", fn, i, c, prev)
			}
			if !num.Finite(values[p]) {
				return badInput("%s: row %d column %d is %v", fn, i, c, values[p])
			}
			prev = c
		}
	}
	return nil
}

// newDataset checks bagPtr and labels against m and wraps them; nil
// labels make an unlabeled dataset of len(bagPtr)-1 bags.
func newDataset(m *storage, bagPtr []int, labels []float64, fn string) (*Dataset, error) {
	nb := len(labels)
	if labels == nil {
		nb = len(bagPtr) - 1
	}
	if nb <= 0 {
		return nil, badInput("%s: no bags", fn)
	}
	if len(bagPtr) != nb+1 {
		return nil, badInput("%s: len(bagPtr) = %d, want len(labels)+1 = %d", fn, len(bagPtr), len(labels)+1)
	}
	if bagPtr[0] != 0 || bagPtr[nb] != m.rows {
		return nil, badInput("%s: bagPtr must run from 0 to the number of instances %d", fn, m.rows)
	}
	for k := range nb {
		if bagPtr[k+1] <= bagPtr[k] {
			return nil, badInput("%s: bag %d has no instances (bagPtr %d to %d)", fn, k, bagPtr[k], bagPtr[k+1])
		}
		if labels != nil && labels[k] != 0 && labels[k] != 1 {
			return nil, badInput("%s: bag %d has label %v, want 0 or 1", fn, k, labels[k])
		}
	}
	ids := make([]string, nb)
	for k := range ids {
		ids[k] = strconv.Itoa(k + 1)
	}
	return &Dataset{
		m:      m,
		runs:   []run{{src: 0, dst: 0, n: m.rows}},
		bagPtr: bagPtr,
		bagSrc: bagPtr[:nb],
		labels: labels,
		bagIDs: ids,
	}, nil
}
