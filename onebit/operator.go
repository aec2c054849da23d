package onebit

import (
	"math"

	"github.com/neadmm/neadmm/vec"
)

// operator is the matrix the solvers multiply by: Phi itself (full, row
// major) or a compact copy of some of its columns (the working set),
// stored column-major so that columns can be appended without moving the
// others. It counts its products and their cost in units of one product
// with the full Phi (M*N multiply-adds), which is what Result.Work reports.
type operator struct {
	p    *Problem
	full bool
	k    int       // columns: N when full, the working-set size otherwise
	idx  []int     // compact: the column of Phi held in each slot
	pos  []int     // compact: pos[j] = slot of column j, or -1 (N)
	cols []float64 // compact: slot c is cols[c*m:(c+1)*m]

	nzIdx []int // mulSparse: the non-zero entries of x

	products, trans int     // product calls, and of them with the transpose
	work            float64 // their cost in full products
}

// sparseRows is the fraction of non-zero residual rows below which a
// product with Phi^T runs over those rows only instead of the blocked
// kernel (which is about 1.1x faster per row at N = 1000).
const sparseRows = 0.85

// compactSparseRows is the same threshold for the compact operator, whose
// dense products run on contiguous columns at SIMD speed while the sparse
// form gathers single entries.
const compactSparseRows = 0.125

// setFull makes o the full Phi of p.
func (o *operator) setFull(p *Problem) {
	o.p, o.full, o.k = p, true, p.n
}

// setCompact makes o an empty working set of p's columns.
func (o *operator) setCompact(p *Problem) {
	o.p, o.full, o.k = p, false, 0
	o.idx = o.idx[:0]
	o.pos = growInts(o.pos, p.n)
	for j := range o.pos {
		o.pos[j] = -1
	}
}

// add appends the columns js (not yet held) to a compact operator, in one
// pass over the rows of Phi.
func (o *operator) add(js []int) {
	m, n := o.p.m, o.p.n
	k0 := o.k
	o.k += len(js)
	o.cols = growKeep(o.cols, o.k*m)
	for t, j := range js {
		o.pos[j] = k0 + t
		o.idx = append(o.idx, j)
	}
	phi := o.p.phi
	for i := 0; i < m; i++ {
		row := phi[i*n : (i+1)*n]
		for t, j := range js {
			o.cols[(k0+t)*m+i] = row[j]
		}
	}
}

// col returns the compact column in slot c.
func (o *operator) col(c int) []float64 {
	m := o.p.m
	return o.cols[c*m : (c+1)*m]
}

// mul sets dst (M) = A x (len(x) = k).
func (o *operator) mul(dst, x []float64) {
	o.products++
	if o.full {
		vec.MulVec(dst, o.p.phi, o.p.m, o.p.n, x)
		o.work++
		return
	}
	clear(dst)
	nz := 0
	for c, xc := range x {
		if xc != 0 { // estimates are sparse: skip the zero columns
			vec.Axpy(xc, o.col(c), dst)
			nz++
		}
	}
	o.work += float64(nz) / float64(o.p.n)
}

// gatherCols: a full product gathers the non-zero entries of x from each
// row of Phi when they are fewer than N/gatherCols; above that the blocked
// kernel, which streams every entry at SIMD speed, is faster. Measured
// (BenchmarkMulSparse, Zen 5): the gather is 17x faster at 10 of 1000
// columns (M = 500) and 19x at 10 of 4000 (M = 4000), but the crossover is
// near N/8 at N = 1000 and below N/16 at N = 4000, where the gathered
// cache lines are most of each row.
const gatherCols = 32

// mulSparse is mul for an x that is often sparse (BIHT's K-sparse
// iterates): a full operator reads only the columns where x is non-zero,
// M*nz entries of Phi instead of M*N, when they are few. Each entry of dst
// sums its terms in the order of the columns, so the result differs from
// mul's blocked sums by rounding only.
func (o *operator) mulSparse(dst, x []float64) {
	n := o.p.n
	if !o.full || len(x) != n {
		o.mul(dst, x)
		return
	}
	if cap(o.nzIdx) < n {
		o.nzIdx = make([]int, 0, n)
	}
	o.nzIdx = appendNonzeros(o.nzIdx[:0], x)
	if len(o.nzIdx)*gatherCols >= n {
		o.mul(dst, x)
		return
	}
	o.mulCols(dst, x, o.nzIdx)
}

// mulCols sets dst (M) = Phi x for a full operator and an x (N) that is
// zero outside the columns idx (increasing), reading only those columns;
// each entry of dst sums its terms in the order of idx.
func (o *operator) mulCols(dst, x []float64, idx []int) {
	o.products++
	n, phi := o.p.n, o.p.phi
	for i := range dst {
		row := phi[i*n : (i+1)*n]
		s := 0.0
		for _, j := range idx {
			s += row[j] * x[j]
		}
		dst[i] = s
	}
	o.work += float64(len(idx)) / float64(n)
}

// appendNonzeros appends to dst the indices of x's non-zero entries.
func appendNonzeros(dst []int, x []float64) []int {
	for j, v := range x {
		if v != 0 {
			dst = append(dst, j)
		}
	}
	return dst
}

// mulT sets dst (k) = A^T r (len(r) = M). Rows with r_i = 0 are skipped
// when they are many (near consistency most residuals are zero).
func (o *operator) mulT(dst, r []float64) {
	o.products++
	o.trans++
	m, n := o.p.m, o.p.n
	if !o.full {
		for c := range dst {
			dst[c] = vec.Dot(o.col(c), r)
		}
		o.work += float64(o.k) / float64(n)
		return
	}
	nz := 0
	for _, v := range r {
		if v != 0 {
			nz++
		}
	}
	if float64(nz) >= sparseRows*float64(m) {
		vec.MulTransVec(dst, o.p.phi, m, n, r)
		o.work++
		return
	}
	clear(dst)
	for i, v := range r {
		if v != 0 {
			vec.Axpy(v, o.p.phi[i*n:(i+1)*n], dst)
		}
	}
	o.work += float64(nz) / float64(m)
}

// mulTRows is mulT for an r that is zero outside rows (increasing): a
// compact operator then reads only those entries of its columns.
func (o *operator) mulTRows(dst, r []float64, rows []int) {
	if o.full {
		o.mulT(dst, r)
		return
	}
	o.products++
	o.trans++
	m := o.p.m
	// Four columns per pass over the rows: four independent sums (each in
	// the order of the rows, as one column at a time) instead of one
	// chain of dependent adds, and r and the row indices read once.
	c := 0
	for ; c+4 <= len(dst); c += 4 {
		c0 := o.cols[c*m : (c+1)*m]
		c1 := o.cols[(c+1)*m : (c+2)*m]
		c2 := o.cols[(c+2)*m : (c+3)*m]
		c3 := o.cols[(c+3)*m : (c+4)*m]
		var t0, t1, t2, t3 float64
		for _, i := range rows {
			ri := r[i]
			t0 += ri * c0[i]
			t1 += ri * c1[i]
			t2 += ri * c2[i]
			t3 += ri * c3[i]
		}
		dst[c], dst[c+1], dst[c+2], dst[c+3] = t0, t1, t2, t3
	}
	for ; c < len(dst); c++ {
		col := o.cols[c*m : (c+1)*m]
		t := 0.0
		for _, i := range rows {
			t += r[i] * col[i]
		}
		dst[c] = t
	}
	o.work += float64(len(rows)*o.k) / float64(m*o.p.n)
}

// drop removes the slots c with drop(c) from a compact operator, moving
// the others down in order; move(from, to) is called for every kept slot
// so that the caller can move its per-slot data along.
func (o *operator) drop(drop func(c int) bool, move func(from, to int)) {
	m := o.p.m
	k := 0
	for c, j := range o.idx {
		if drop(c) {
			o.pos[j] = -1
			continue
		}
		if k != c {
			copy(o.cols[k*m:(k+1)*m], o.cols[c*m:(c+1)*m])
			move(c, k)
		}
		o.idx[k] = j
		o.pos[j] = k
		k++
	}
	o.idx = o.idx[:k]
	o.k = k
	o.cols = o.cols[:k*m]
}

// growInts is buf.Grow for ints.
func growInts(b []int, n int) []int {
	if cap(b) < n {
		return make([]int, n)
	}
	return b[:n]
}

// growKeep returns b resliced to length n, keeping its contents when it
// has to reallocate (the compact columns are appended to).
func growKeep(b []float64, n int) []float64 {
	if cap(b) >= n {
		return b[:n]
	}
	nb := make([]float64, n, max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}

// norm2 returns an estimate of ||A||_2^2 for the compact operator: the
// power method on A^T A warm-started from v (len k; the previous estimate's
// vector, extended with zeros for new columns, or anything non-zero), at
// most compactPowerIter steps, times compactPowerMargin. u is scratch (M).
// Warm starts make it cheap when the working set grows by a few columns.
func (o *operator) norm2(v, u []float64) float64 {
	if o.k == 0 {
		return 0
	}
	nv := vec.Nrm2(v)
	if nv == 0 {
		for i := range v {
			v[i] = 1
		}
		nv = vec.Nrm2(v)
	}
	vec.Scal(1/nv, v)
	est := 0.0
	for it := 0; it < compactPowerIter; it++ {
		o.mul(u, v)
		q := vec.Dot(u, u) // Rayleigh quotient with ||v|| = 1
		o.mulT(v, u)
		nv := vec.Nrm2(v)
		if nv == 0 || !(q <= math.MaxFloat64) {
			return q
		}
		vec.Scal(1/nv, v)
		done := math.Abs(q-est) <= compactPowerTol*q
		est = q
		if done {
			break
		}
	}
	return est * compactPowerMargin
}

// The compact power iteration stops at a relative change of 1e-4 (or 100
// steps) and inflates its lower bound by 5%: FISTA tolerates a Lipschitz
// estimate a little too low far better than the solves tolerate a slow
// estimate.
const (
	compactPowerIter   = 100
	compactPowerTol    = 1e-4
	compactPowerMargin = 1.05
)
