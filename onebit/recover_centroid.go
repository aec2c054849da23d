package onebit

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/vec"
)

// centroidWork estimates the centroid of a support's consistency cell (see
// RecoverOptions.Centroid) by expectation propagation.
//
// On a support of q coordinates the cell is the cone C = {z : <b_i, z> >= 0}
// of the kept signs' unit rows b_i (wolfeWork.load), and the estimate is
// the direction of the mean of the directions in C (the centroid of C cut
// by the unit sphere; the error of a direction drawn uniformly from the
// cell is smallest on average there). In polar coordinates, for any
// isotropic density g(|z|),
//
//	E[z | z in C] ∝ ∫_{S ∩ C} u du · ∫ r^q g(r) dr,
//
// so the direction of that mean is the same for the uniform distribution
// on C cut by the unit ball and for N(0, I) restricted to C, a truncated
// Gaussian. Expectation propagation (Minka 2001; for Gaussians truncated
// to polyhedra, Cunningham, Hennig and Lacoste-Julien 2011) approximates
// the latter by N(mu, Sigma) with Sigma^{-1} = I + sum_i tau_i b_i b_i^T
// and Sigma^{-1} mu = sum_i nu_i b_i: each site (tau_i, nu_i) replaces the
// step 1[<b_i, z> >= 0] by a Gaussian in <b_i, z>. A site update removes
// the site from the posterior's marginal of s = <b_i, z> (the cavity
// N(mc, vc)), matches the mean and variance of the cavity times the step,
//
//	mh = mc + sqrt(vc) l,  vh = vc (1 - l (l + a)),
//	a = mc/sqrt(vc),  l = phi(a)/Phi(a),
//
// and sets the site to the Gaussian that gives those moments, a rank-one
// change of the posterior (Sherman-Morrison, O(q^2)). Sweeps visit the
// sites in row order, and the posterior is recomputed from the sites (a
// Cholesky factorization) at the start of each, so that rounding in the
// rank-one changes does not accumulate.
//
// Only the rows near the cell have sites: those whose margin at the
// center is below centroidNear times the smallest. After the sweeps
// converge, every other row whose margin at the posterior mean's
// direction is within centroidSafe of the posterior's angular deviations
// across it joins, and the sweeps run again (see join). A row 3
// deviations out moves the mean by about phi(3)/Phi(3) = 0.0044 of a
// deviation; with 5 instead of 3, or with every row (Rademacher, K = 20,
// M/N = 1, 50 instances), the mean error moved by less than 3e-6.
type centroidWork struct {
	act      []int     // rows of wolfeWork.b that have a site, in row order
	in       []bool    // whether a row has a site or repeats one that has
	tau, nu  []float64 // the sites of the rows (zero without one)
	sig, chl []float64 // q x q: the posterior covariance, and scratch for its precision's Cholesky factor
	mu, h    []float64 // q: the posterior mean, and Sigma^{-1} mu
	sb, prev []float64 // q: Sigma b_i, and the previous sweep's direction
	dots     []float64 // rows: <b_i, direction>
	done     <-chan struct{}
	// cancelled reports that the last estimate stopped because done was
	// closed.
	cancelled bool
}

const (
	// centroidMaxSupport: larger supports keep the center (O(q^2) per site
	// and O(q^3) per sweep; Recover's supports hold 1 to 40 coordinates).
	centroidMaxSupport = 64
	// centroidMaxMargin: a center whose angular margin is larger stays.
	// Such a cell is wide because few distinct signs cut it, and what
	// decides where the signal lies in it is the signal's distribution
	// more than the signs; the centroid is the best guess for directions
	// uniform on the support's sphere. On a sign matrix with 5-sparse
	// signals of magnitudes uniform in [0.2, 1] (the rademacher family
	// with K = 5: 16 distinct walls, margins 0.09-0.33) the centroid's
	// error was 2-4% above the center's at every M/N (+0.0013 ± 0.0002
	// over 250 instances); every other family measured (Generate K = 5,
	// 10, 20, 40, rademacher K = 10 and 20, N = 1000, M/N = 0.25-2) had
	// margins below 0.025 (90th percentiles) and gained.
	centroidMaxMargin = 0.05
	// centroidNear selects the rows that start with a site: margin below
	// centroidNear times the center's.
	centroidNear = 6
	// centroidSafe is the deviation (in marginal standard deviations)
	// beyond which a row is left without a site.
	centroidSafe = 3
	// centroidMaxSweeps caps the sweeps of an estimate (3 to 20, median
	// 5, over the 3600 instances of Recover's protocol and other families
	// measured), centroidMaxRounds the rounds of joining rows (1 or 2 in
	// the cases traced).
	centroidMaxSweeps = 30
	centroidMaxRounds = 4
	// centroidTol stops the sweeps when the direction moved by less than
	// centroidTol times the center's margin (an angle) in one sweep.
	centroidTol = 0.1
)

// resize sizes the buffers for q coordinates and n rows.
func (ew *centroidWork) resize(q, n int) {
	ew.act = growInts(ew.act, n)[:0]
	ew.in = growBools(ew.in, n)
	clear(ew.in)
	ew.tau = buf.Grow(ew.tau, n)
	ew.nu = buf.Grow(ew.nu, n)
	clear(ew.tau)
	clear(ew.nu)
	ew.sig = buf.Grow(ew.sig, q*q)
	ew.chl = buf.Grow(ew.chl, q*q)
	ew.mu = buf.Grow(ew.mu, q)
	ew.h = buf.Grow(ew.h, q)
	ew.sb = buf.Grow(ew.sb, q)
	ew.prev = buf.Grow(ew.prev, q)
	ew.dots = buf.Grow(ew.dots, n)
}

// centroid is Recover's centroid (RecoverOptions.Centroid): it replaces
// the centered estimate s.x on its support by the centroid of the cell of
// the signs it satisfies and that are not outliers, and reports whether
// it did. It keeps the center when the support is too small or too large
// (centroidMaxSupport), when the center's margin res.Margin is above
// centroidMaxMargin, when an update is not finite, or when the
// centroid's direction would violate one of those signs. ax is Phi times
// the estimate normalized, which tells the signs it satisfies. It looks
// at ctx.Done() before each sweep and every centroidCheck sites, and
// returns ctx's error if it was closed (the center then kept).
func (s *Solver) centroid(ctx context.Context, p *Problem, ax []float64, res *RecoverResult) (bool, error) {
	sup := s.support()
	q := len(sup)
	if q < 2 || q > centroidMaxSupport || res.Margin > centroidMaxMargin {
		return false, nil
	}
	c := &s.cell
	cw := &c.wolfe
	n := cw.load(p.m, q, func(u int) []float64 { return s.column(p, sup[u]) }, p.y,
		func(i int) bool { return c.out[i] || !(p.y[i]*ax[i] > 0) })
	dir := c.xc[:q]
	for u, j := range sup {
		dir[u] = s.x[j]
	}
	sw, visits, ok := s.ew.estimate(cw.b[:n*q], n, q, dir, ctx.Done())
	res.CentroidSweeps += sw
	// The load, the passes over the rows (margins, joins) and the site
	// visits (O(q) each beside the O(q^2) of the posterior).
	s.ws.work += float64(q)/float64(p.n) + float64((4*n+visits*(q+2))*q)/(float64(p.m)*float64(p.n))
	if s.ew.cancelled {
		return false, fmt.Errorf("onebit: Recover cancelled in the centroid: %w", ctx.Err())
	}
	if !ok {
		return false, nil
	}
	for u, j := range sup {
		s.x[j] = dir[u]
	}
	res.Centroid = true
	return true, nil
}

// estimate replaces the direction dir, strictly inside the cone of the n
// unit rows b (q columns, row-major), by the centroid's (see
// centroidWork), and returns the sweeps run, the site visits and whether
// it did; dir is left as it was when not. It looks at done (which may be
// nil) before each sweep and every centroidCheck site visits, and stops
// with ew.cancelled set when it is closed.
func (ew *centroidWork) estimate(b []float64, n, q int, dir []float64, done <-chan struct{}) (sweeps, visits int, ok bool) {
	ew.cancelled = false
	if n == 0 {
		return 0, 0, false
	}
	ew.resize(q, n)
	ew.done = done
	defer func() { ew.done = nil }()
	copy(ew.prev, dir)
	if !normalize(ew.prev) {
		return 0, 0, false
	}
	vec.MulVec(ew.dots, b, n, q, ew.prev)
	mg := math.Inf(1)
	for _, v := range ew.dots {
		mg = min(mg, v)
	}
	if !(mg > 0) {
		return 0, 0, false
	}
	for i, v := range ew.dots {
		if v <= centroidNear*mg {
			ew.act = append(ew.act, i)
			ew.in[i] = true
		}
	}
	ew.dedupe(b, q)
	for round := 0; ; round++ {
		sw, ok := ew.sweeps(b, q, centroidTol*mg, centroidMaxSweeps-sweeps)
		sweeps += sw
		visits += sw * len(ew.act)
		if !ok {
			return sweeps, visits, false
		}
		if round == centroidMaxRounds || sweeps == centroidMaxSweeps || !ew.join(b, n, q) {
			break
		}
	}
	// The centroid of a convex cell lies in it; keep the center if
	// rounding or the approximation put it outside.
	c := ew.sb[:q]
	copy(c, ew.mu)
	if !normalize(c) {
		return sweeps, visits, false
	}
	vec.MulVec(ew.dots, b, n, q, c)
	for _, v := range ew.dots {
		if !(v > 0) {
			return sweeps, visits, false
		}
	}
	copy(dir, c)
	return sweeps, visits, true
}

// sweeps runs expectation propagation on the rows ew.act of b (q columns)
// until the posterior mean's direction moves by less than tol in a sweep
// (or maxSweeps sweeps), starting from the sites in ew.tau and ew.nu (rows
// that joined since the last call start at zero), and leaves the
// posterior in ew.sig and ew.mu. It returns the sweeps run and false if
// the posterior stopped being finite and positive definite or done was
// closed.
func (ew *centroidWork) sweeps(b []float64, q int, tol float64, maxSweeps int) (int, bool) {
	for sw := 0; ; sw++ {
		if !ew.posterior(b, q) || ew.stop() {
			return sw, false
		}
		// The direction's change since the last sweep.
		nm := math.Sqrt(vec.Dot(ew.mu, ew.mu))
		if !(nm <= math.MaxFloat64) {
			return sw, false
		}
		if nm > 0 { // 0 before the first sweep from the prior
			moved := 0.0
			for u, v := range ew.mu {
				d := v/nm - ew.prev[u]
				moved += d * d
				ew.prev[u] = v / nm
			}
			if sw > 0 && math.Sqrt(moved) < tol || sw == maxSweeps {
				return sw, true
			}
		} else if sw > 0 {
			return sw, false
		}
		for t, i := range ew.act {
			if t%centroidCheck == centroidCheck-1 && ew.stop() {
				return sw, false
			}
			ew.site(i, b[i*q:(i+1)*q], q)
		}
	}
}

// centroidCheck is how many site visits run between looks at done: about
// 0.1 ms at q = 64.
const centroidCheck = 64

// stop reports whether ew.done is closed, and sets ew.cancelled if so.
func (ew *centroidWork) stop() bool {
	if closed(ew.done) {
		ew.cancelled = true
		return true
	}
	return false
}

// site updates the site of row t, bi, and the posterior with it.
func (ew *centroidWork) site(t int, bi []float64, q int) {
	sb := ew.sb
	vec.MulVec(sb, ew.sig, q, q, bi)
	s2 := vec.Dot(bi, sb)
	m := vec.Dot(bi, ew.mu)
	ic := 1/s2 - ew.tau[t] // the cavity's precision
	if !(ic > 0) || !(s2 > 0) {
		return
	}
	vc := 1 / ic
	mc := vc * (m/s2 - ew.nu[t])
	sc := math.Sqrt(vc)
	a := mc / sc
	if !(a > -millsMin) {
		// The cavity puts the row's step beyond 30 deviations: no
		// moments to match in floating point (not seen inside a cell).
		return
	}
	l := mills(a)
	mh := mc + sc*l
	vh := vc * (1 - l*(l+a))
	if !(vh > 0) {
		return
	}
	tn := max(1/vh-ic, 0) // truncation only narrows: >= 0 but for rounding
	nn := mh/vh - mc*ic
	dt, dn := tn-ew.tau[t], nn-ew.nu[t]
	ew.tau[t], ew.nu[t] = tn, nn
	den := 1 + dt*s2
	c := dt / den
	f := (dn - dt*m) / den
	vec.Axpy(f, sb, ew.mu[:q])
	for u := range q {
		vec.Axpy(-c*sb[u], sb, ew.sig[u*q:(u+1)*q])
	}
}

// millsMin bounds the cavities' standardized means from below: phi(a)/Phi(a)
// is computed from math.Erfc, which is accurate in relative terms down to
// a = -30 and underflows near -38.
const millsMin = 30

// mills returns phi(a)/Phi(a) for a > -millsMin.
func mills(a float64) float64 {
	return math.Exp(-a*a/2) / (math.Sqrt(math.Pi/2) * math.Erfc(-a/math.Sqrt2))
}

// posterior sets ew.sig and ew.mu from the sites: Sigma = (I + sum_t
// tau_t b_t b_t^T)^{-1} by a Cholesky factorization, mu = Sigma sum_t nu_t
// b_t. It returns false if the precision is not positive definite or not
// finite.
func (ew *centroidWork) posterior(b []float64, q int) bool {
	l, h := ew.chl[:q*q], ew.h[:q]
	clear(l)
	clear(h)
	for u := range q {
		l[u*q+u] = 1
	}
	for _, i := range ew.act {
		bi := b[i*q : (i+1)*q]
		if tt := ew.tau[i]; tt != 0 {
			for u := range q { // the lower triangle only
				vec.Axpy(tt*bi[u], bi[:u+1], l[u*q:u*q+u+1])
			}
		}
		vec.Axpy(ew.nu[i], bi, h)
	}
	if !cholesky(l, q) {
		return false
	}
	// W = L^{-1} row by row (row i is (e_i - sum_{k<i} L_ik W_k)/L_ii,
	// nonzero up to i), in place of L: L_ik is read before W's row i
	// overwrites it, and the rows k < i are W's already.
	for i := range q {
		li := l[i*q : i*q+i+1]
		d := li[i]
		copy(ew.sb[:i], li[:i]) // L_ik, k < i
		clear(li)
		li[i] = 1
		for k, v := range ew.sb[:i] {
			vec.Axpy(-v, l[k*q:k*q+k+1], li[:k+1])
		}
		vec.Scal(1/d, li)
	}
	// Sigma = W^T W: the sum of the outer products of W's rows, row k
	// nonzero up to k.
	sig := ew.sig[:q*q]
	clear(sig)
	for k := range q {
		wk := l[k*q : k*q+k+1]
		for u, v := range wk {
			vec.Axpy(v, wk, sig[u*q:u*q+k+1])
		}
	}
	vec.MulVec(ew.mu[:q], sig, q, q, h)
	return true
}

// cholesky factors the symmetric positive definite a (q x q, lower
// triangle read) in place into L (lower triangle) with a = L L^T, and
// returns false if a pivot is not positive and finite.
func cholesky(a []float64, q int) bool {
	for j := range q {
		rj := a[j*q : j*q+j]
		d := a[j*q+j] - vec.Dot(rj, rj)
		if !(d > 0 && d <= math.MaxFloat64) {
			return false
		}
		d = math.Sqrt(d)
		a[j*q+j] = d
		for i := j + 1; i < q; i++ {
			a[i*q+j] = (a[i*q+j] - vec.Dot(a[i*q:i*q+j], rj)) / d
		}
	}
	return true
}

// join gives a site to every row without one whose angular margin at the
// posterior mean's direction d is within centroidSafe angular deviations: with
// b_perp = b - <b, d> d, the part of a unit row b across d, the margin
// <b, d> against sqrt(b_perp^T Sigma b_perp)/|mu|. (The deviation along
// d, the radial one, does not move a direction across a wall of the
// cone.) It reports whether any row joined.
func (ew *centroidWork) join(bm []float64, n, q int) bool {
	mu := ew.mu[:q]
	nm := math.Sqrt(vec.Dot(mu, mu))
	d := ew.prev[:q] // the direction of mu (sweeps)
	sig := ew.sig[:q*q]
	sd := ew.h[:q] // Sigma d (h is free until the next posterior)
	vec.MulVec(sd, sig, q, q, d)
	vd := vec.Dot(d, sd)
	// The Frobenius norm of P Sigma P (P = I - d d^T) bounds
	// b_perp^T Sigma b_perp for every unit b: rows with a margin beyond
	// centroidSafe times its root need no product.
	f := 0.0
	for u := range q {
		for w := range q {
			e := sig[u*q+w] - d[u]*sd[w] - sd[u]*d[w] + vd*d[u]*d[w]
			f += e * e
		}
	}
	far := centroidSafe * math.Sqrt(math.Sqrt(f)) / nm
	vec.MulVec(ew.dots, bm, n, q, d)
	sb := ew.sb[:q]
	joined := false
	for i, c := range ew.dots {
		if ew.in[i] || c >= far {
			continue
		}
		bi := bm[i*q : (i+1)*q]
		vec.MulVec(sb, sig, q, q, bi)
		v := vec.Dot(bi, sb) - 2*c*vec.Dot(bi, sd) + c*c*vd
		if c*nm < centroidSafe*math.Sqrt(max(v, 0)) {
			ew.act = append(ew.act, i)
			ew.in[i] = true
			joined = true
		}
	}
	if joined {
		// Equal rows join together (the test reads only the row), so a
		// row that joins repeats no row that had a site before.
		ew.dedupe(bm, q)
	}
	return joined
}

// dedupe keeps one site per distinct row of ew.act and leaves act in row
// order, the sweeps' order. A sign repeated is the same wall of the cell,
// but expectation propagation counts each copy as a factor of its own, and
// k copies pull the mean away from that wall like one k times steeper.
// With a sign matrix whose support holds 5 columns (at most 16 distinct
// walls among 250-2000 rows) the copies' sites cost 10-16% of Recover's
// CPU time before this (0-5% after). Equal rows have equal products with
// any direction, so ew.dots groups them.
func (ew *centroidWork) dedupe(b []float64, q int) {
	act, dots := ew.act, ew.dots
	slices.SortFunc(act, func(i, j int) int {
		if c := cmp.Compare(dots[i], dots[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	kept := 0
	for t, i := range act {
		dup := false
		// The rows kept before with the same product (the earliest of
		// equal rows is kept).
		for u := kept - 1; u >= 0 && dots[act[u]] == dots[i]; u-- {
			if slices.Equal(b[act[u]*q:(act[u]+1)*q], b[i*q:(i+1)*q]) {
				dup = true
				break
			}
		}
		if !dup {
			act[kept] = act[t]
			kept++
		}
	}
	ew.act = act[:kept]
	slices.Sort(ew.act)
}
