package mil

import (
	"context"
	"math"
	"slices"
	"sync"
)

// Mean pooling is solved on the bags' mean features. With q_i the mean of
// the instance scores x_ij . beta + beta0 of bag i,
//
//	q_i = (mean_j x_ij) . beta + beta0,
//
// so the problem with mean pooling is L1 logistic regression on one
// instance per bag, the bag's mean: the same objective, the same beta. Fit
// solves it on that dataset (one-instance bags, where every pooling is the
// identity and the t-update is exact) rather than on the instances through
// neadmm.MeanProx: it is as exact and far cheaper (B rows instead of N), and
// it converges. On the instances, the geometric penalty growth of
// DefaultOptions stops the solver short of the optimum (measured on musk1:
// objective 0.4119 against the optimum 0.4100, reached only with a fixed or
// balanced penalty and 1300 to 5600 iterations; the bag means reach it in
// about 55 with the defaults), and the shortfall cost AUC (0.008 at lambda
// 0.03). The model still scores bags through their instances with the mean,
// which is the same score.
//
// The scaling then applies to the bag means: ScaleAuto standardizes them
// with their statistics over the bags (each bag weighing the same), so the
// model is exactly the bag-mean L1 logistic regression with standardized
// features.

// bagMeans returns the dataset of d's bag means: one instance per bag, in
// d's bag order, with d's labels and bag ids, dense when d is dense and
// sparse when d is sparse (the columns any of the bag's instances stores,
// less those whose mean is exactly 0: sparse storage holds no zero).
//
// A column's mean over a bag is s + sum_j (v_j - s)/n with s the value of
// its first stored entry in the bag (sparse: when every instance stores
// one, else 0), so that equal values give exactly that value: a column
// constant on the instances stays constant on the bag means, bit for bit,
// and is left out by the scaling as it was (a plain sum of v/n rounds, and
// the scaling would blow the rounding up into a feature). The halves
// v/2 - s/2 cannot overflow; they are used, and the mean doubled back and
// clamped to the largest finite magnitude, when the plain differences do.
// It checks ctx as the loaders do.
func bagMeans(ctx context.Context, d *Dataset) (*Dataset, error) {
	nb, cols := d.NumBags(), d.NumFeatures()
	tk := ticker{ctx: ctx, left: ctxEvery}
	m := &storage{rows: nb, cols: cols}
	a := &meanAcc{
		acc: make([]float64, cols), half: make([]float64, cols),
		shift: make([]float64, cols), cnt: make([]int, cols),
	}
	if d.IsSparse() {
		m.rowptr = make([]int, 1, nb+1)
	} else {
		m.dense = make([]float64, nb*cols)
	}
	for k := range nb {
		var err error
		if d.IsSparse() {
			err = a.sparseBag(d, &tk, k, m)
		} else {
			err = a.denseBag(d, &tk, k, m.dense[k*cols:(k+1)*cols])
		}
		if err != nil {
			return nil, err
		}
	}
	return perBag(m, d, "Fit (bag means)")
}

// meanAcc is bagMeans' scratch over the columns: per column, the shift s
// of its mean (see bagMeans), the means of the differences from s (acc)
// and of the halved differences (half), and for sparse data the entries
// the bag stores (cnt) and the columns it touched.
type meanAcc struct {
	acc, half, shift []float64
	cnt              []int
	touched          []int32
}

// denseBag writes the mean of bag k of d (dense) to dst, ticking tk; it
// leaves acc and half cleared.
func (a *meanAcc) denseBag(d *Dataset, tk *ticker, k int, dst []float64) error {
	cols := d.NumFeatures()
	n := d.bagPtr[k+1] - d.bagPtr[k]
	nf := float64(n)
	src := d.bagSrc[k]
	copy(a.shift, d.m.dense[src*cols:(src+1)*cols])
	for r := src; r < src+n; r++ {
		if err := tk.tick(cols + 1); err != nil {
			return err
		}
		for j, v := range d.m.dense[r*cols : (r+1)*cols] {
			s := a.shift[j]
			a.acc[j] += (v - s) / nf
			a.half[j] += (v/2 - s/2) / nf
		}
	}
	for j := range dst {
		dst[j] = meanOf(a.shift[j], a.acc[j], a.half[j])
	}
	clear(a.acc)
	clear(a.half)
	return nil
}

// sparseBag appends the mean of bag k of d (sparse) to m as a row, its
// columns sorted and its zero means left out, ticking tk; it leaves acc,
// half, cnt and touched cleared.
func (a *meanAcc) sparseBag(d *Dataset, tk *ticker, k int, m *storage) error {
	n := d.bagPtr[k+1] - d.bagPtr[k]
	nf := float64(n)
	src := d.bagSrc[k]
	for r := src; r < src+n; r++ {
		p0, p1 := d.m.rowptr[r], d.m.rowptr[r+1]
		if err := tk.tick(p1 - p0 + 1); err != nil {
			return err
		}
		for p := p0; p < p1; p++ {
			j := d.m.colidx[p]
			if a.cnt[j] == 0 {
				a.touched = append(a.touched, j)
				a.shift[j] = d.m.values[p]
			}
			a.cnt[j]++
			v, s := d.m.values[p], a.shift[j]
			a.acc[j] += (v - s) / nf
			a.half[j] += (v/2 - s/2) / nf
		}
	}
	slices.Sort(a.touched)
	for _, j := range a.touched {
		s := a.shift[j]
		if a.cnt[j] < n {
			// Zeros among the values: the shift is 0, and the
			// entries were summed shifted by s.
			a.acc[j] += float64(a.cnt[j]) * (s / nf) // cnt < n: no overflow
			a.half[j] += float64(a.cnt[j]) * (s / 2 / nf)
			s = 0
		}
		if v := meanOf(s, a.acc[j], a.half[j]); v != 0 {
			m.colidx = append(m.colidx, j)
			m.values = append(m.values, v)
		}
		a.acc[j], a.half[j], a.cnt[j] = 0, 0, 0
	}
	a.touched = a.touched[:0]
	m.rowptr = append(m.rowptr, len(m.values))
	return nil
}

// perBag returns the dataset of m, one row per bag of d, with d's labels
// and bag ids; fn names it in the (unreachable) error.
func perBag(m *storage, d *Dataset, fn string) (*Dataset, error) {
	bagPtr := make([]int, d.NumBags()+1)
	for k := range bagPtr {
		bagPtr[k] = k
	}
	md, err := newDataset(m, bagPtr, slices.Clone(d.labels), fn)
	if err != nil {
		return nil, err // not reached: d's bags and labels are valid
	}
	md.bagIDs = d.bagIDs
	return md, nil
}

// meanOf returns s + acc (acc the mean of the differences from s), or,
// when that is not finite, 2(s/2 + half) (half the mean of the halved
// differences) clamped to the largest finite magnitude.
func meanOf(s, acc, half float64) float64 {
	if v := s + acc; !math.IsInf(v, 0) && v == v {
		return v
	}
	return math.Max(-math.MaxFloat64, math.Min(math.MaxFloat64, 2*(s/2+half)))
}

// bagMaxes returns the dataset of d's bag-wise feature maxima (see
// FeatureMaxPooling): one instance per bag, in d's bag order, with d's
// labels and bag ids, dense when d is dense and sparse when d is sparse
// (an entry a bag's instance does not store is 0 and takes part in the
// max). It checks ctx as bagMeans does.
func bagMaxes(ctx context.Context, d *Dataset) (*Dataset, error) {
	nb, cols := d.NumBags(), d.NumFeatures()
	tk := ticker{ctx: ctx, left: ctxEvery}
	m := &storage{rows: nb, cols: cols}
	var fm featMaxScratch
	if d.IsSparse() {
		m.rowptr = make([]int, 1, nb+1)
		fm.grow(cols)
	} else {
		m.dense = make([]float64, nb*cols)
	}
	for k := range nb {
		n := d.bagPtr[k+1] - d.bagPtr[k]
		src := d.bagSrc[k]
		if !d.IsSparse() {
			dst := m.dense[k*cols : (k+1)*cols]
			copy(dst, d.m.dense[src*cols:(src+1)*cols])
			for r := src + 1; r < src+n; r++ {
				if err := tk.tick(cols + 1); err != nil {
					return nil, err
				}
				for j, v := range d.m.dense[r*cols : (r+1)*cols] {
					dst[j] = max(dst[j], v)
				}
			}
			continue
		}
		if err := tk.tick(d.m.rowptr[src+n] - d.m.rowptr[src] + n); err != nil {
			return nil, err
		}
		fm.gather(d, k, nil, nil)
		slices.Sort(fm.touched)
		for _, j := range fm.touched {
			if v, _ := fm.take(j, n); v != 0 {
				m.colidx = append(m.colidx, j)
				m.values = append(m.values, v)
			}
		}
		m.rowptr = append(m.rowptr, len(m.values))
	}
	return perBag(m, d, "Fit (bag maxima)")
}

// bagFeatureMax returns beta0 + sum_j beta_j max_i x_ij over the instances
// i of bag k: the bag's score under FeatureMaxPooling, from the instances.
// Dense: features with beta_j = 0 are skipped. Sparse: one pass over the
// bag's entries gathers each column's max in fm (a pooled scratch, so
// that scoring allocates nothing once warm); an entry an instance does
// not store is 0 and takes part in the max.
func (d *Dataset) bagFeatureMax(k int, beta []float64, beta0 float64, fm *featMaxScratch) float64 {
	n := d.bagPtr[k+1] - d.bagPtr[k]
	src := d.bagSrc[k]
	s := beta0
	if !d.IsSparse() {
		cols := d.m.cols
		for j, b := range beta {
			if b == 0 {
				continue
			}
			mx := d.m.dense[src*cols+j]
			for r := src + 1; r < src+n; r++ {
				mx = max(mx, d.m.dense[r*cols+j])
			}
			s += b * mx
		}
		return s
	}
	fm.grow(len(beta))
	fm.gather(d, k, beta, nil)
	for _, j := range fm.touched { // in first-seen order: the sum is deterministic
		mx, _ := fm.take(j, n)
		s += beta[j] * mx
	}
	return s
}

// featMaxScratch gathers the column maxima and sums of a sparse bag for
// bagMaxes, bagFeatureMax and bagMeanMax.
type featMaxScratch struct {
	acc, sum []float64
	cnt      []int32
	touched  []int32
}

func (fm *featMaxScratch) grow(cols int) {
	if len(fm.acc) < cols {
		fm.acc = make([]float64, cols)
		fm.sum = make([]float64, cols)
		fm.cnt = make([]int32, cols)
		fm.touched = make([]int32, 0, cols)
	}
}

// gather sets touched to the columns bag k of sparse d stores (those with
// a[j] != 0 or b[j] != 0 unless a is nil; b may be nil), in first-seen
// order, with acc[j] their largest stored value, sum[j] the sum of those
// values and cnt[j] how many instances store them.
func (fm *featMaxScratch) gather(d *Dataset, k int, a, b []float64) {
	fm.touched = fm.touched[:0]
	src := d.bagSrc[k]
	for r := src; r < src+d.bagPtr[k+1]-d.bagPtr[k]; r++ {
		for p := d.m.rowptr[r]; p < d.m.rowptr[r+1]; p++ {
			j, v := d.m.colidx[p], d.m.values[p]
			if a != nil && a[j] == 0 && (b == nil || b[j] == 0) {
				continue
			}
			if fm.cnt[j] == 0 {
				fm.touched = append(fm.touched, j)
				fm.acc[j], fm.sum[j] = v, 0
			}
			fm.cnt[j]++
			fm.acc[j] = max(fm.acc[j], v)
			fm.sum[j] += v
		}
	}
}

// take returns column j's max and sum over the bag's n instances, where
// one that does not store the column holds a 0, and clears j for the next
// bag.
func (fm *featMaxScratch) take(j int32, n int) (mx, sum float64) {
	mx = fm.acc[j]
	if int(fm.cnt[j]) < n {
		mx = max(mx, 0)
	}
	fm.cnt[j] = 0
	return mx, fm.sum[j]
}

// featMaxPool holds featMaxScratch values between scoring calls.
var featMaxPool = sync.Pool{New: func() any { return new(featMaxScratch) }}

// bagMeanMaxes returns the dataset of d's bag means and maxima side by
// side (see FeatureMeanMaxPooling): one instance per bag of 2D features,
// columns 0 to D-1 the bag means (as bagMeans computes them) and D to
// 2D-1 the bag maxima (as bagMaxes), in d's bag order and storage kind,
// with d's labels and bag ids. It checks ctx as bagMeans does.
func bagMeanMaxes(ctx context.Context, d *Dataset) (*Dataset, error) {
	means, err := bagMeans(ctx, d)
	if err != nil {
		return nil, err
	}
	maxes, err := bagMaxes(ctx, d)
	if err != nil {
		return nil, err
	}
	nb, cols := d.NumBags(), d.NumFeatures()
	tk := ticker{ctx: ctx, left: ctxEvery}
	m := &storage{rows: nb, cols: 2 * cols}
	a, b := means.m, maxes.m
	if !d.IsSparse() {
		m.dense = make([]float64, 2*nb*cols)
		for k := range nb {
			if err := tk.tick(2 * cols); err != nil {
				return nil, err
			}
			copy(m.dense[2*k*cols:], a.dense[k*cols:(k+1)*cols])
			copy(m.dense[(2*k+1)*cols:], b.dense[k*cols:(k+1)*cols])
		}
		return perBag(m, d, "Fit (bag means and maxima)")
	}
	m.rowptr = make([]int, 1, nb+1)
	m.colidx = make([]int32, 0, len(a.values)+len(b.values))
	m.values = make([]float64, 0, len(a.values)+len(b.values))
	for k := range nb {
		if err := tk.tick(a.rowptr[k+1] - a.rowptr[k] + b.rowptr[k+1] - b.rowptr[k] + 1); err != nil {
			return nil, err
		}
		m.colidx = append(m.colidx, a.colidx[a.rowptr[k]:a.rowptr[k+1]]...)
		m.values = append(m.values, a.values[a.rowptr[k]:a.rowptr[k+1]]...)
		for p := b.rowptr[k]; p < b.rowptr[k+1]; p++ {
			m.colidx = append(m.colidx, b.colidx[p]+int32(cols))
		}
		m.values = append(m.values, b.values[b.rowptr[k]:b.rowptr[k+1]]...)
		m.rowptr = append(m.rowptr, len(m.values))
	}
	return perBag(m, d, "Fit (bag means and maxima)")
}

// bagMeanMax returns beta0 + sum_j (a_j mean_i x_ij + b_j max_i x_ij) over
// the instances i of bag k, with ab = (a, b) of length 2D: the bag's
// score under FeatureMeanMaxPooling, from the instances. Dense: features
// with a_j = b_j = 0 are skipped. Sparse: one pass over the bag's entries
// gathers each column's max and sum in fm (see bagFeatureMax); an entry
// an instance does not store is 0 and takes part in both.
func (d *Dataset) bagMeanMax(k int, ab []float64, beta0 float64, fm *featMaxScratch) float64 {
	n := d.bagPtr[k+1] - d.bagPtr[k]
	nf := float64(n)
	src := d.bagSrc[k]
	cols := len(ab) / 2
	a, b := ab[:cols], ab[cols:]
	s := beta0
	if !d.IsSparse() {
		for j := range cols {
			if a[j] == 0 && b[j] == 0 {
				continue
			}
			x := d.m.dense[src*cols+j]
			mx, sum := x, x
			for r := src + 1; r < src+n; r++ {
				x = d.m.dense[r*cols+j]
				mx = max(mx, x)
				sum += x
			}
			s += a[j]*(sum/nf) + b[j]*mx
		}
		return s
	}
	fm.grow(cols)
	fm.gather(d, k, a, b)
	for _, j := range fm.touched { // in first-seen order: the sum is deterministic
		mx, sum := fm.take(j, n)
		s += a[j]*(sum/nf) + b[j]*mx
	}
	return s
}
