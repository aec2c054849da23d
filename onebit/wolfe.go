package onebit

import (
	"math"
	"slices"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/vec"
)

// wolfeWork finds the center of the consistency cell of a support: the
// unit x on the support maximizing the smallest angular margin
//
//	min_i y_i <a_i, x> / ||a_i||   (a_i: row i of Phi on the support),
//
// the center of the largest spherical cap inside the cell of directions
// consistent with the signs. It is the direction of the point of minimum
// norm in the convex hull of the unit vectors b_i = y_i a_i/||a_i|| (the
// hard-margin SVM through the origin), found by Wolfe's algorithm
// (Wolfe 1976, "Finding the nearest point in a polytope"), which is exact
// in finitely many steps and cheap for the few coordinates of a support.
// Measurements listed in skip are left out (those inconsistent with the
// estimate, when some signs are flipped).
type wolfeWork struct {
	b      []float64 // M x s rows b_i (row-major)
	rows   int       // rows of b in use
	rowIdx []int     // the measurement of each row of b
	rowNrm []float64 // ||a_i|| on the support, of each row
	corral []int     // indices of the points in the current affine set
	lam    []float64 // their convex weights
	alpha  []float64 // affine minimizer's weights
	rhs    []float64 // the affine minimizer's right-hand side, solved in place
	// chol holds the Cholesky factor (lower, row stride gs) of
	// G + 1 1^T on the corral's first cholN points (see affine).
	chol  []float64
	cholN int
	// z holds L^{-1} 1 for the factor's first zN rows (zN <= cholN):
	// the forward substitution's entries depend only on the rows above,
	// so those of the rows kept are not computed again.
	z    []float64
	zN   int
	dots []float64 // M: <b_i, point> of every row
	// gram holds <b_t, b_u> for the corral's points t, u (in corral
	// order, row stride gs), kept across minor cycles so that a point's
	// products are formed once; kept lists the positions a compaction
	// keeps.
	gram []float64
	gs   int
	kept []int
	p, d []float64 // current point (s), scratch (s)
	// capS is the support size the buffers above are sized for (see
	// reserve).
	capS int
	// capM is the most rows b has been sized for: b is kept at capM x capS,
	// so a wider support after a taller load does not shrink it and make
	// the next tall load allocate again.
	capM   int
	passes int // passes over b (load and major cycles), for the cost
	// cancelled reports that the last solve stopped because done was
	// closed (it returned 0).
	cancelled bool
	// belowFloor reports that the last solve stopped because its point's
	// norm, which bounds the margin from above, fell to floor or below
	// (or the origin is in the hull); it returned 0.
	belowFloor bool
	// start and startLam, if start is not empty, give the corral (rows
	// of b) and convex weights that the next solve starts from instead
	// of the single row nearest x (see warm and startFrom); solve
	// empties start.
	start    []int
	startLam []float64
}

// Wolfe's algorithm stops when no point improves the current one by more
// than wolfeTol (relative to the largest squared norm, 1 for unit b_i).
const wolfeTol = 1e-12

// load fills b from the columns cols(c) of the support (s of them) and
// the signs y, leaving out the rows i with skip(i), and returns the number
// of rows kept.
func (cw *wolfeWork) load(m, s int, col func(c int) []float64, y []float64, skip func(i int) bool) int {
	cw.reserve(m, s)
	cw.b = cw.b[:m*s]
	cw.rowIdx = growInts(cw.rowIdx, m)
	cw.rowNrm = buf.Grow(cw.rowNrm, m)
	// The rows kept, then each column once into them (col may reuse one
	// buffer between calls; a call per entry cost more than the copy),
	// then the norms, leaving out the rows that are zero on the support.
	r := 0
	for i := 0; i < m; i++ {
		if skip == nil || !skip(i) {
			cw.rowIdx[r] = i
			r++
		}
	}
	for c := range s {
		v := col(c)
		for t, i := range cw.rowIdx[:r] {
			cw.b[t*s+c] = v[i]
		}
	}
	kept := 0
	for t, i := range cw.rowIdx[:r] {
		// Plain loops: s is a support's size, too short for the kernels'
		// call overhead to pay.
		row := cw.b[t*s : (t+1)*s]
		ss := 0.0
		for _, v := range row {
			ss += v * v
		}
		if ss == 0 { // a row that says nothing about the support
			continue
		}
		nr := math.Sqrt(ss)
		if !(nr > 0 && nr <= math.MaxFloat64) { // under- or overflow: scale first
			nr = vec.Nrm2(row)
		}
		f := y[i] / nr
		dst := cw.b[kept*s : (kept+1)*s]
		for c, v := range row {
			dst[c] = v * f
		}
		cw.rowIdx[kept], cw.rowNrm[kept] = i, nr
		kept++
	}
	r = kept
	cw.rows = r
	cw.passes++
	return r
}

// reserve sizes the buffers that depend on the support size s for at
// least s, with half as much again as before when they must grow: sized
// exactly, every support larger than any before allocated them anew (the
// corral's at every new corral size: 142 allocations in one Recover on a
// new instance), so a reused Solver kept allocating on new instances.
func (cw *wolfeWork) reserve(m, s int) {
	if s <= cw.capS {
		// More rows than before at the same width (a bound's pool, or a
		// problem with more measurements): growing the width too made it
		// grow by half at every call.
		if m > cw.capM {
			cw.capM = m
			cw.b = make([]float64, m*cw.capS)
		}
		return
	}
	c := max(s, cw.capS+cw.capS/2, 8)
	gs := c + 3 // the corral never holds more than s+2 points
	cw.capS = c
	cw.capM = max(cw.capM, m)
	cw.b = make([]float64, cw.capM*c)
	cw.p, cw.d = make([]float64, c), make([]float64, c)
	cw.corral, cw.kept = make([]int, 0, gs), make([]int, gs)
	cw.lam, cw.rhs, cw.alpha = make([]float64, 0, gs), make([]float64, 0, gs), make([]float64, 0, gs)
	cw.gram, cw.chol = make([]float64, gs*gs), make([]float64, gs*gs)
	cw.z = make([]float64, gs)
}

// solve runs Wolfe's algorithm (at most maxIter major cycles, each after a
// look at done, which may be nil) on the loaded rows and writes the unit
// direction of the minimum-norm point into x (len s). It returns the
// smallest margin min_i <b_i, x> (the norm of that point), which is 0 or
// less when the origin lies in the hull: the signs are then not separable
// on this support, and x is left unchanged. The norm of Wolfe's point
// only decreases, so it stops as soon as the margin cannot exceed floor
// (returning 0; floor = 0 asks for the exact answer). It starts from the
// row nearest x, or from cw.start if set (see warm).
func (cw *wolfeWork) solve(x []float64, s int, floor float64, maxIter int, done <-chan struct{}) float64 {
	n := cw.rows
	cw.cancelled, cw.belowFloor = false, false
	if n == 0 {
		cw.start = cw.start[:0] // a start is for this load only
		// No corral from an earlier solve (the bound's pool reads the
		// corral's rows, of another problem maybe).
		cw.corral, cw.lam = cw.corral[:0], cw.lam[:0]
		return 0
	}
	cw.prepare(s, n)
	if !cw.warm(s) {
		cw.coldStart(x, s, n)
	}
	bm, dots := cw.b[:n*s], cw.dots
	for it := 0; it < maxIter; it++ {
		if closed(done) {
			cw.cancelled = true
			return 0
		}
		pp := vec.Dot(cw.p, cw.p)
		if pp <= wolfeTol || pp <= floor*floor {
			cw.belowFloor = true
			return 0 // the origin is in the hull, or the margin will not beat floor
		}
		// Major cycle: the point minimizing <p, b_j>.
		cw.passes++
		j, mj := -1, math.Inf(1)
		vec.MulVec(dots, bm, n, s, cw.p)
		for i, v := range dots {
			if v < mj {
				j, mj = i, v
			}
		}
		if pp-mj <= wolfeTol || inCorral(cw.corral, j) {
			break
		}
		cw.corral = append(cw.corral, j)
		cw.lam = append(cw.lam, 0)
		cw.gramRow(len(cw.corral)-1, s)
		cw.minor(s)
		if len(cw.corral) > s+1 { // cannot happen in exact arithmetic
			break
		}
	}
	return cw.direction(x, s, n)
}

// prepare readies the buffers of a solve on n rows of s columns (sized by
// load's reserve) with an empty corral and Cholesky factor.
func (cw *wolfeWork) prepare(s, n int) {
	cw.p, cw.d = cw.p[:s], cw.d[:s]
	cw.gs = s + 3 // the corral never holds more than s+2 points
	cw.corral, cw.lam = cw.corral[:0], cw.lam[:0]
	cw.dots = buf.Grow(cw.dots, n)
	cw.gram, cw.chol = cw.gram[:cw.gs*cw.gs], cw.chol[:cw.gs*cw.gs]
	cw.cholN, cw.zN = 0, 0
	cw.kept = cw.kept[:cw.gs]
}

// coldStart starts the corral from the row closest to x's direction. The
// products with all rows are one call to the row kernels (MulVec), which
// serve four rows per load of the point.
func (cw *wolfeWork) coldStart(x []float64, s, n int) {
	vec.MulVec(cw.dots, cw.b[:n*s], n, s, x)
	i0, best := 0, math.Inf(-1)
	for i, v := range cw.dots {
		if v > best {
			i0, best = i, v
		}
	}
	cw.corral = append(cw.corral, i0)
	cw.lam = append(cw.lam, 1)
	cw.gramRow(0, s)
	copy(cw.p, cw.b[i0*s:(i0+1)*s])
}

// direction ends a solve: it returns the smallest margin min_i <b_i, x>
// of the point's direction x (written into x when positive), or 0 with
// belowFloor set when the point is too near the origin for a direction.
func (cw *wolfeWork) direction(x []float64, s, n int) float64 {
	np := vec.Nrm2(cw.p)
	if !(np > math.Sqrt(wolfeTol)) {
		cw.belowFloor = true
		return 0
	}
	margin := math.Inf(1)
	vec.MulVec(cw.dots, cw.b[:n*s], n, s, cw.p)
	for _, v := range cw.dots {
		margin = min(margin, v/np)
	}
	if margin <= 0 {
		return margin
	}
	for c := range x {
		x[c] = cw.p[c] / np
	}
	return margin
}

// startFrom sets the start of the next solve (see warm) to the loaded
// rows of the measurements rows, with their weights lam: those of a load
// on all measurements but the skipped ones, or, with in and pos, of a
// load on a pool of measurements (in[i] tells whether measurement i is
// in it, pos[i] its index there; the others are left out). A measurement
// not loaded (skipped, or zero on the support) is left out.
func (cw *wolfeWork) startFrom(rows []int, lam []float64, in []bool, pos []int) {
	cw.start, cw.startLam = cw.start[:0], cw.startLam[:0]
	for u, i := range rows {
		t := i
		if in != nil {
			if !in[i] {
				continue
			}
			t = pos[i]
		}
		if r, ok := slices.BinarySearch(cw.rowIdx[:cw.rows], t); ok {
			cw.start = append(cw.start, r)
			cw.startLam = append(cw.startLam, lam[u])
		}
	}
}

// minor runs Wolfe's minor cycles from the corral's weights lam: move to
// the affine minimizer of the corral, or as far towards it as the weights
// stay >= 0, dropping the points whose weight reaches 0; then sets p to
// the corral's point.
func (cw *wolfeWork) minor(s int) {
	for len(cw.corral) > 0 {
		if !cw.affine() {
			// Singular: the corral is affinely dependent; drop the
			// newest point's predecessor with the smallest weight.
			cw.dropSmallest()
			continue
		}
		allPos := true
		for _, a := range cw.alpha {
			if a <= 0 {
				allPos = false
				break
			}
		}
		if allPos {
			copy(cw.lam, cw.alpha)
			break
		}
		theta := 1.0
		for t, a := range cw.alpha {
			if a <= 0 {
				if d := cw.lam[t] - a; d > 0 {
					theta = min(theta, cw.lam[t]/d)
				}
			}
		}
		q := 0
		for t := range cw.corral {
			l := (1-theta)*cw.lam[t] + theta*cw.alpha[t]
			if l > 1e-15 {
				cw.corral[q], cw.lam[q], cw.kept[q] = cw.corral[t], l, t
				q++
			}
		}
		cw.corral, cw.lam = cw.corral[:q], cw.lam[:q]
		cw.compactGram(q)
	}
	clear(cw.p)
	for t, i := range cw.corral {
		vec.Axpy(cw.lam[t], cw.b[i*s:(i+1)*s], cw.p)
	}
}

// warm starts the corral from cw.start (rows of b) and cw.startLam, if
// start is not empty: the s+1 of largest weight at most (more are
// affinely dependent in s dimensions), their weights renormalized, then
// the minor cycles to a point of their hull. It empties start and
// reports whether it started so. The minimum-norm point of the hull does
// not depend on the start; Wolfe's algorithm from a neighbouring
// support's corral reaches it (or proves it below a floor) in a few
// major cycles instead of one per corral point.
func (cw *wolfeWork) warm(s int) bool {
	st, sl := cw.start, cw.startLam
	cw.start, cw.startLam = cw.start[:0], cw.startLam[:0]
	if len(st) == 0 {
		return false
	}
	for len(st) > s+1 { // drop the smallest weight
		t0 := 0
		for t := range sl {
			if sl[t] < sl[t0] {
				t0 = t
			}
		}
		st = append(st[:t0], st[t0+1:]...)
		sl = append(sl[:t0], sl[t0+1:]...)
	}
	// Largest weights first: a point dropped by the minor cycles
	// invalidates the Cholesky rows from its position on, and the light
	// ones are the likely drops.
	for t := 1; t < len(st); t++ {
		for u := t; u > 0 && sl[u] > sl[u-1]; u-- {
			sl[u], sl[u-1] = sl[u-1], sl[u]
			st[u], st[u-1] = st[u-1], st[u]
		}
	}
	sum := 0.0
	for _, l := range sl {
		sum += l
	}
	if !(sum > 0) {
		return false
	}
	for t, i := range st {
		cw.corral = append(cw.corral, i)
		cw.lam = append(cw.lam, sl[t]/sum)
		cw.gramRow(t, s)
	}
	cw.minor(s)
	return true
}

// affine sets alpha to the weights (summing to 1) of the point of minimum
// norm in the affine hull of the corral: minimizing lam^T G lam subject to
// sum lam = 1 (G_tu = <b_t, b_u>) gives G lam = mu 1, so with
// H = G + 1 1^T, H lam = (mu + 1) 1 and alpha is H^{-1} 1 normalized to
// sum 1. H is positive definite exactly when the corral's points are
// affinely independent. Its Cholesky factor is kept across minor and
// major cycles (cholN rows valid): a new point costs one row, O(q^2),
// where eliminating the bordered system afresh cost O(q^3) per minor
// cycle (a quarter of Recover's time at rademacher M/N = 0.5, K = 20). It
// reports false if the newest rows make H singular.
func (cw *wolfeWork) affine() bool {
	q, gs := len(cw.corral), cw.gs
	l := cw.chol
	for t := cw.cholN; t < q; t++ {
		row := l[t*gs : t*gs+t+1]
		for u := range t {
			v := 1 + cw.gram[t*gs+u]
			ru := l[u*gs : u*gs+u]
			for w, x := range ru {
				v -= row[w] * x
			}
			row[u] = v / l[u*gs+u]
		}
		d := 1 + cw.gram[t*gs+t]
		for _, x := range row[:t] {
			d -= x * x
		}
		if !(d > cholTol) {
			cw.cholN = t
			cw.zN = min(cw.zN, t)
			return false
		}
		row[t] = math.Sqrt(d)
		cw.cholN = t + 1
	}
	cw.rhs, cw.alpha = cw.rhs[:q], cw.alpha[:q] // within reserve's cap
	z := cw.z[:q]
	for t := cw.zN; t < q; t++ { // L z = 1
		x := 1.0
		for w, lw := range l[t*gs : t*gs+t] {
			x -= lw * z[w]
		}
		z[t] = x / l[t*gs+t]
	}
	cw.zN = q
	v := cw.rhs[:q]
	copy(v, z)
	for t := q - 1; t >= 0; t-- { // L^T v = z
		x := v[t]
		for w := t + 1; w < q; w++ {
			x -= l[w*gs+t] * v[w]
		}
		v[t] = x / l[t*gs+t]
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	if !(sum > 0) {
		return false
	}
	for t, x := range v {
		cw.alpha[t] = x / sum
	}
	return true
}

// cholTol is the smallest pivot of the Cholesky factor of G + 1 1^T (see
// affine) taken as non-singular: its entries are at most 2 for unit rows
// b_i, and the bordered elimination it replaces stopped at pivots below
// 1e-13 too.
const cholTol = 1e-13

// dropSmallest removes the corral point with the smallest weight and
// renormalizes the weights.
func (cw *wolfeWork) dropSmallest() {
	t0 := 0
	for t := range cw.lam {
		if cw.lam[t] < cw.lam[t0] {
			t0 = t
		}
	}
	q := 0
	for t := range cw.corral {
		if t != t0 {
			cw.kept[q] = t
			q++
		}
	}
	cw.corral = append(cw.corral[:t0], cw.corral[t0+1:]...)
	cw.lam = append(cw.lam[:t0], cw.lam[t0+1:]...)
	cw.compactGram(q)
	sum := 0.0
	for _, l := range cw.lam {
		sum += l
	}
	for t := range cw.lam {
		cw.lam[t] /= sum
	}
}

// gramRow fills row t of the corral's Gram matrix: <b_t, b_u> for u <= t
// (the lower triangle; affine reads only that).
func (cw *wolfeWork) gramRow(t, s int) {
	i := cw.corral[t]
	bi := cw.b[i*s : (i+1)*s]
	for u := 0; u <= t; u++ {
		j := cw.corral[u]
		cw.gram[t*cw.gs+u] = dotShort(bi, cw.b[j*s:(j+1)*s])
	}
}

// compactGram keeps the rows and columns kept[:q] of the Gram matrix, in
// order (in place: kept is increasing, so every read is at or after the
// write).
func (cw *wolfeWork) compactGram(q int) {
	// The Cholesky rows stay valid up to the first point moved.
	k := 0
	for k < q && k < cw.cholN && cw.kept[k] == k {
		k++
	}
	cw.cholN = k
	cw.zN = min(cw.zN, k)
	g, gs := cw.gram, cw.gs
	for t := range q {
		rt := cw.kept[t] * gs
		for u := 0; u <= t; u++ {
			g[t*gs+u] = g[rt+cw.kept[u]]
		}
	}
}

func inCorral(c []int, j int) bool {
	for _, i := range c {
		if i == j {
			return true
		}
	}
	return false
}

// dotShort is a plain dot product for the short rows of a support (a call
// into the SIMD kernels costs more than it saves at these lengths). It
// sums in index order, like the generic kernel.
func dotShort(a, b []float64) float64 {
	b = b[:len(a)]
	t := 0.0
	for i, v := range a {
		t += v * b[i]
	}
	return t
}
