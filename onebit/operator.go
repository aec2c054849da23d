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

	// colCache holds columns of a full Phi for mulSigns (see there).
	colCache colCache

	// norm2's Lanczos basis (rows of k), its tridiagonal matrix's
	// diagonal and off-diagonal, the Ritz vector's coefficients, scratch.
	lq, la, lb, ls, lt []float64

	gen int // counts the changes of the columns (setCompact, add, drop)

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
	o.colCache.reset(p.n)
}

// colCache keeps copies of some columns of a full Phi, contiguous, with
// the largest magnitude of each: mulSigns's products with BIHT's iterates,
// whose few non-zero columns change little from one iteration to the
// next, then stream them instead of gathering one entry per row and
// column (a cache line each).
type colCache struct {
	cols  []float64 // slot u is cols[u*m:(u+1)*m]
	top   []float64 // the largest magnitude in each slot's column
	owner []int     // the column in each slot
	used  []int     // the stamp of each slot's last use
	slot  []int     // N: the slot holding column j, or -1
	stamp int
}

// reset empties the cache for a Phi of n columns.
func (cc *colCache) reset(n int) {
	if len(cc.slot) != n {
		cc.slot = growInts(cc.slot, n)
		for j := range cc.slot {
			cc.slot[j] = -1
		}
	} else {
		for _, j := range cc.owner {
			cc.slot[j] = -1
		}
	}
	cc.owner, cc.used, cc.top = cc.owner[:0], cc.used[:0], cc.top[:0]
	cc.stamp = 0
}

// colCacheSlots is the number of columns the cache holds for iterates of
// nz non-zeros: twice as many, so that the columns an iterate leaves stay
// while it may come back to them.
func colCacheSlots(nz int) int { return max(2*nz, 16) }

// get returns the slot holding column j of the full phi (m x n), copying
// it in over the least recently used slot not used since the stamp
// began (at least nz slots are kept).
func (cc *colCache) get(phi []float64, m, n, j, nz int) int {
	if u := cc.slot[j]; u >= 0 {
		cc.used[u] = cc.stamp
		return u
	}
	u := len(cc.owner)
	if u < colCacheSlots(nz) {
		cc.owner = append(cc.owner, j)
		cc.used = append(cc.used, cc.stamp)
		cc.top = append(cc.top, 0)
		cc.cols = growKeep(cc.cols, (u+1)*m)
	} else {
		u = 0
		for t, s := range cc.used {
			if s < cc.used[u] {
				u = t
			}
		}
		cc.slot[cc.owner[u]] = -1
		cc.owner[u], cc.used[u] = j, cc.stamp
	}
	cc.slot[j] = u
	col := cc.cols[u*m : (u+1)*m]
	top := 0.0
	for i := range col {
		v := phi[i*n+j]
		col[i] = v
		top = max(top, math.Abs(v))
	}
	cc.top[u] = top
	return u
}

// setCompact makes o an empty working set of p's columns.
func (o *operator) setCompact(p *Problem) {
	o.p, o.full, o.k = p, false, 0
	o.gen++
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
	o.gen++
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

// mulSigns sets dst (M) for a full operator to values with the signs
// (sign: 0 counts as positive) of the dense product mul's, bit for bit on
// every kernel, reading only the non-zero columns of x when they are few
// (as mulSparse; from o.colCache, a column at a time). Only the signs of
// dst are meaningful where rows were gathered.
//
// Why the signs agree: let S be row i's exact sum of the products t_j =
// phi_ij x_j over the nz non-zero entries of x, and A = sum_j |t_j|. The
// dense kernel sums all N products in some tree of additions (several
// accumulators, fused or not, then a reduction), but a product with
// x_j = 0 is exactly 0, and adding an exact 0 is exact: only the at most
// nz-1 additions that join two partial sums of non-zero terms, and the
// products themselves, round. So the dense value d, like the gathered
// value s, is within gamma(nz) A of S (gamma(n) = n u/(1-n u), u = 2^-53,
// Higham's bound for any summation order), plus nz 2^-1075 for products
// that underflow. If |s| > 2 gamma(nz) A (and that absolute term), then
// |S| > gamma(nz) A: S, s and d share one sign, and d is not 0. mulSigns
// tests |s| > signSlack(nz) c + signFloor with c the computed sum of
// |x_j| max_i |phi_ij| over the non-zero columns, at least A on every row
// (A itself on a sign matrix, the only Phi it serves; a column with a few
// large entries would only send more groups to the dense kernel), which
// covers that with a wide margin (signSlack). Elsewhere (a
// sum that is 0 in exact arithmetic, as on the lattice of BIHT's iterates
// on a sign matrix, or non-finite values, which fail the comparison) the
// row's group of four is recomputed by the dense kernel: vec.MulVec does
// rows in aligned groups of four and the last M mod 4 one by one, each
// group's values depending on its rows and x only, so a call on the group
// alone gives the full product's bits.
func (o *operator) mulSigns(dst, x []float64) {
	m, n := o.p.m, o.p.n
	if !o.full || len(x) != n {
		o.mul(dst, x)
		return
	}
	if cap(o.nzIdx) < n {
		o.nzIdx = make([]int, 0, n)
	}
	idx := appendNonzeros(o.nzIdx[:0], x)
	o.nzIdx = idx
	if len(idx)*gatherCols >= n {
		o.mul(dst, x)
		return
	}
	o.products++
	phi := o.p.phi
	// The gathered sums, a column at a time from the cache: each entry
	// of dst sums its terms in the order of idx (with fused or plain
	// multiply-adds, as the kernel does), so it is within gamma(nz) A of
	// the exact sum, A <= c = sum_j |x_j| max_i |phi_ij|, one bound for
	// every row (the exact A on a sign matrix).
	cc := &o.colCache
	cc.stamp++
	clear(dst)
	c := 0.0
	for _, j := range idx {
		u := cc.get(phi, m, n, j, len(idx))
		vec.Axpy(x[j], cc.cols[u*m:(u+1)*m], dst)
		c += math.Abs(x[j]) * cc.top[u]
	}
	thr := signSlack(len(idx))*c + signFloor
	blocks := m &^ 3
	redone := 0
	for g0 := 0; g0 < m; {
		g1 := g0 + 4
		if g0 >= blocks {
			g1 = m // the last rows, which the dense kernel sums one by one
		}
		sure := true
		for _, v := range dst[g0:g1] {
			sure = sure && math.Abs(v) > thr
		}
		if !sure { // the dense kernel's own values for the group
			vec.MulVec(dst[g0:g1], phi[g0*n:g1*n], g1-g0, n, x)
			redone += g1 - g0
		}
		g0 = g1
	}
	o.work += float64(len(idx))/float64(n) + float64(redone)/float64(m)
}

// signSlack is mulSigns's relative threshold for nz non-zero terms:
// 16 (nz+32) u, 8 times 2 gamma(nz) and more, so that the rounding of c
// (its computed sum of nz products, at least (1-gamma(nz+1)) times the
// exact one) and of the product with it cannot bring it below
// 2 gamma(nz) A. The
// cost of the margin is a few more groups recomputed densely; it is not
// tight (mulSigns's test checks that it is not loose enough to let a
// wrong sign through on lattice sums, where rounding decides).
func signSlack(nz int) float64 { return float64(nz+32) * 0x1p-49 }

// signFloor is the absolute term under mulSigns's threshold, for products
// that underflow (whose rounding is absolute, at most 2^-1075 each): far
// above 2 nz 2^-1075 for any nz.
const signFloor = 0x1p-1000

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
	o.gen++
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
// largest Ritz value of the Lanczos process on A^T A (with full
// reorthogonalization) started from v (len k; the previous estimate's
// vector, extended with zeros for new columns, or anything non-zero),
// at most compactLanczosIter steps, times compactPowerMargin; v is left
// holding the Ritz vector (the next call's start). u is scratch (M).
// A Ritz value never exceeds ||A||^2, and it converges much faster than
// the power method (whose Rayleigh quotient, warm-started, took about 40
// steps per call here, 14% of Recover's CPU time at M/N = 2).
func (o *operator) norm2(v, u []float64) float64 {
	k := o.k
	if k == 0 {
		return 0
	}
	steps := min(compactLanczosIter, k)
	o.lq = growKeep(o.lq[:0], (steps+1)*k)
	o.la, o.lb = growKeep(o.la[:0], steps), growKeep(o.lb[:0], steps)
	o.ls, o.lt = growKeep(o.ls[:0], steps), growKeep(o.lt[:0], 2*steps)
	q := func(i int) []float64 { return o.lq[i*k : (i+1)*k] }
	copy(q(0), v)
	if !normalize(q(0)) { // zero, or not finite: any start will do
		for i := range k {
			q(0)[i] = 1
		}
		normalize(q(0))
	}
	theta, j := 0.0, 0
	s := o.ls[:0]
	for j < steps {
		w := q(j + 1)
		o.mul(u, q(j))
		o.mulT(w, u)
		alpha := vec.Dot(q(j), w)
		if !(alpha <= math.MaxFloat64) {
			copy(v, q(0))
			return alpha
		}
		// Full reorthogonalization, twice (the basis is short).
		for range 2 {
			for i := 0; i <= j; i++ {
				vec.Axpy(-vec.Dot(q(i), w), q(i), w)
			}
		}
		beta := vec.Nrm2(w)
		o.la[j], o.lb[j] = alpha, beta
		j++
		theta = tridiagMax(o.la[:j], o.lb[:j-1])
		// The residual of the Ritz pair bounds its distance to an
		// eigenvalue of A^T A: beta times the last component of the
		// Ritz vector of the tridiagonal matrix. A beta of 0 (or too
		// small to divide by) means the Krylov space is invariant: theta
		// is an eigenvalue.
		s = o.ls[:j]
		tridiagVec(s, o.la[:j], o.lb[:j-1], theta, o.lt)
		if !(beta > 0x1p-1000) || beta*math.Abs(s[j-1]) <= compactLanczosTol*theta {
			break
		}
		vec.Scal(1/beta, w)
	}
	clear(v)
	for i := range j {
		vec.Axpy(s[i], q(i), v)
	}
	return theta * compactPowerMargin
}

// tridiagMax returns the largest eigenvalue of the symmetric tridiagonal
// matrix with diagonal a and off-diagonal b (len(a)-1), by bisection on
// Sturm counts within Gershgorin's bound, to a relative 1e-12. The pivots
// are formed as b (b/d) (no under- or overflow of b^2 at any scale), and
// one smaller than 2^-60 of the bound in magnitude is replaced by minus
// that (as LAPACK's dstebz does), a perturbation within the rounding.
func tridiagMax(a, b []float64) float64 {
	n := len(a)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		r := 0.0
		if i > 0 {
			r += math.Abs(b[i-1])
		}
		if i < n-1 {
			r += math.Abs(b[i])
		}
		lo, hi = min(lo, a[i]-r), max(hi, a[i]+r)
	}
	pivmin := max(max(math.Abs(lo), math.Abs(hi))*0x1p-60, 0x1p-1074)
	// above(x) reports whether some eigenvalue is at least x: the count
	// of negative pivots of T - xI is the number of eigenvalues below x.
	above := func(x float64) bool {
		below, d := 0, 1.0
		for i := range n {
			bb := 0.0
			if i > 0 {
				bb = b[i-1] * (b[i-1] / d)
			}
			d = a[i] - x - bb
			if math.Abs(d) < pivmin {
				d = -pivmin
			}
			if d < 0 {
				below++
			}
		}
		return below < n
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if hi-lo <= 1e-12*math.Abs(hi) || mid <= lo || mid >= hi {
			break
		}
		if above(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// tridiagVec sets s to a unit eigenvector of the symmetric tridiagonal
// matrix (a, b) for its eigenvalue theta (the largest): two steps of
// inverse iteration with the shift just above theta, where T - sigma I is
// negative definite and the Thomas algorithm needs no pivoting. The start
// has the signs of the top eigenvector's (all one sign where b > 0, as in
// Lanczos: flipping the signs of the entries after each negative b makes
// the off-diagonal non-negative, where Perron-Frobenius applies), so it
// is not orthogonal to it, as ones can be (tridiag(-1, 2, -1) of even
// order). t is scratch (2 len(a)).
func tridiagVec(s, a, b []float64, theta float64, t []float64) {
	n := len(a)
	if n == 1 {
		s[0] = 1
		return
	}
	sigma := theta + 1e-10*math.Abs(theta) + 0x1p-1000
	c, d := t[:n], t[n:2*n]
	s[0] = 1
	for i := 1; i < n; i++ {
		s[i] = s[i-1]
		if b[i-1] < 0 {
			s[i] = -s[i]
		}
	}
	for range 2 {
		// Solve (T - sigma I) z = s in place: forward elimination, then
		// back substitution.
		d[0] = a[0] - sigma
		for i := 1; i < n; i++ {
			c[i] = b[i-1] / d[i-1]
			d[i] = a[i] - sigma - c[i]*b[i-1]
			s[i] -= c[i] * s[i-1]
		}
		s[n-1] /= d[n-1]
		for i := n - 2; i >= 0; i-- {
			s[i] = (s[i] - b[i]*s[i+1]) / d[i]
		}
		if !normalize(s) {
			clear(s)
			s[n-1] = 1
			return
		}
	}
}

// The compact norm's Lanczos process stops when its Ritz pair's residual
// is below 1e-3 of the Ritz value (or after 30 steps), and the estimate,
// a lower bound of the norm, is inflated by 5%: FISTA tolerates a
// Lipschitz estimate a little too low far better than the solves
// tolerate a slow estimate.
const (
	compactLanczosIter = 30
	compactLanczosTol  = 1e-3
	compactPowerMargin = 1.05
)

func growBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	return b[:n]
}
