package neadmm

import (
	"math"

	"github.com/neadmm/neadmm/vec"
)

// SphereProx sets w to a global minimizer of
//
//	||w - v||^2 + (||w||^2 - c)^2,
//
// the w-update of the spherically constrained problem (Theorem 1, eq. 5 of
// the paper, with v = x - y2/rho and c = 1 - y1/rho).
//
// For v != 0 the minimizer is unique: w = s*v/||v|| where s > 0 is the only
// positive root of the cubic 2s^3 + (1-2c)s - ||v|| = 0 (see the derivation
// below). For v = 0 every w with ||w|| = sqrt(c - 1/2) is a minimizer when
// c > 1/2; SphereProx then returns the deterministic one
// w = (sqrt(c - 1/2), 0, ..., 0). For v = 0 and c <= 1/2 it returns w = 0.
//
// The root is found by Newton's method on a rescaled cubic, started from an
// upper bound, so the result is accurate to a few ulps for every finite v and
// c: no intermediate over- or underflows, even for ||v|| above
// math.MaxFloat64 with finite entries, ||v|| far below or above |c|, or c
// within rounding of 1/2.
//
// w and v may overlap (w == v updates in place). SphereProx does not
// allocate. It panics if len(w) != len(v).
//
// Special cases:
//
//	SphereProx(w, v, c) sets every w[i] = NaN if c or any v[i] is NaN or ±Inf
//	SphereProx(w, v, c) does nothing if len(v) == 0
//
// Derivation. Write a = ||v|| > 0. For a fixed norm ||w|| = s the term
// ||w - v||^2 = s^2 - 2<w,v> + a^2 is smallest when w points along v, so
// w = s*v/a with s >= 0 and the problem is one-dimensional:
//
//	g(s) = (s - a)^2 + (s^2 - c)^2,   g'(s) = 2*p(s),   p(s) = 2s^3 + (1-2c)s - a.
//
// (Allowing s < 0, i.e. w against v, never helps: g(-s) = g(s) + 4as.) Now
// p(0) = -a < 0 and the second derivative 12s of p is positive on s > 0,
// so p is convex on [0, inf) and starts negative: it has exactly one
// positive root s*, with p < 0 on [0, s*) and p > 0 after it. Hence g decreases on [0, s*] and increases
// after: s* is the unique global minimizer. When the cubic has three real
// roots the other two are negative (their product with s* is a/2 > 0 and
// their sum with s* is 0), so s* is also the largest real root. The paper's
// eq. 6, w = v/(2||w||^2 - 1 + 2y1/rho), is this stationarity condition with
// a positive denominator; its appendix writes 4(||w||^2 - 1 + 2y1/rho), which
// double-counts y1/rho.
//
// Newton from an upper bound converges monotonically because p is convex
// and increasing right of s*; after scaling s = sigma*t with
// sigma = max(sqrt(|1/2 - c|), cbrt(a)) the scaled root is O(1) and p' at
// the root is bounded away from zero (the cubic is well conditioned there:
// the relative condition number of s* is at most 2), so a handful of steps
// reach full precision.
func SphereProx(w, v []float64, c float64) {
	if len(w) != len(v) {
		panic("neadmm.SphereProx: len(w) != len(v)")
	}
	if len(v) == 0 {
		return
	}
	copy(w, v) // from here on only w is read: w may overlap v
	if math.IsNaN(c) || math.IsInf(c, 0) {
		fillNaN(w)
		return
	}
	a := vec.Nrm2(w)
	k := 0 // w holds v*2^-k and a = ||w||
	if !(a <= math.MaxFloat64) {
		if math.IsNaN(a) || hasInf(w) {
			fillNaN(w)
			return
		}
		// Finite entries whose norm overflows: work with v*2^-sphereShift.
		k = sphereShift
		vec.Scal(math.Ldexp(1, -k), w)
		a = vec.Nrm2(w)
	} else if a > 0 && a < 0x1p-1022 {
		// A subnormal norm carries an absolute error of up to 2^-1074
		// (large relative error): work with v*2^sphereShift, where the
		// norm is accurate to rounding.
		k = -sphereShift
		vec.Scal(math.Ldexp(1, -k), w)
		a = vec.Nrm2(w)
	}
	if a == 0 {
		clear(w)
		if c > 0.5 {
			w[0] = math.Sqrt(c - 0.5)
		}
		return
	}
	s, r := sphereRoot(a, k, c)
	// r = s/||v||: scaling by r keeps the product exact to one rounding.
	// r can leave the normal range only in extreme cases (c near
	// -MaxFloat64, or ||v|| subnormal), where s*(w[i]/a) stays accurate.
	if r >= 0x1p-1022 && r <= math.MaxFloat64 {
		vec.Scal(r, w)
		return
	}
	for i, x := range w {
		w[i] = s * (x / a)
	}
}

// sphereShift is the power of two by which SphereProx scales a v whose norm
// overflows (down) or is subnormal (up); a multiple of 3 so that its cube
// root is an integer.
const sphereShift = 600

// sphereRoot returns the positive root s of 2s^3 + (1-2c)s - A = 0 and the
// ratio r = s/a, where A = a*2^k > 0 (k a multiple of 3, so that A may
// exceed math.MaxFloat64: a is the norm of v*2^-k, and w = r*(v*2^-k)).
// c must be finite, a finite and > 0.
func sphereRoot(a float64, k int, c float64) (s, r float64) {
	// s^3 + P s - A/2 = 0 with P = 1/2 - c (exact for c in [1/4, 1]:
	// Sterbenz). Scale s = sigma*t with sigma = max(sqrt|P|, cbrt A):
	// t^3 + p t - q = 0 with |p| <= 1 and 0 < q <= 1/2.
	P := 0.5 - c
	if P > 0 {
		// Nearly linear regime (||v|| far below (1/2 - c)^(3/2)): the
		// root is s0 = A/(2P) times 1 - s0^2/P + ..., and the scaled q
		// below could underflow. Accept s0 once the correction is below
		// rounding.
		if s0 := math.Ldexp(a/P, k) * 0.5; s0*s0 <= 0x1p-60*P {
			return s0, math.Ldexp(0.5/P, k)
		}
	}
	k3 := k / 3
	cb := math.Cbrt(a) // cbrt(A) = cb*2^k3
	sigma := max(math.Sqrt(math.Abs(P)), math.Ldexp(cb, k3))
	sk := math.Ldexp(sigma, -k3) // sigma*2^-k3, so A/sigma^3 = a/sk^3
	p := (P / sigma) / sigma
	q := 0.5 * (((a / sk) / sk) / sk)
	t := cubicRoot(p, q)
	s = sigma * t
	r = math.Ldexp(sk*t/a, k3) // s/a = sigma*t/a = sk*t*2^k3/a
	return s, r
}

// cubicRoot returns the positive root of t^3 + p*t - q = 0 for q > 0 and
// moderate |p| (|p| <= 1, q <= 1/2 after scaling). Newton's method from an
// upper bound decreases monotonically to the root; it stops when rounding
// ends the decrease.
func cubicRoot(p, q float64) float64 {
	t, _ := cubicRootSteps(p, q)
	return t
}

// cubicRootSteps is cubicRoot that also returns the number of Newton steps
// (for the tests, which check that the cap of 100 is never approached).
func cubicRootSteps(p, q float64) (t float64, steps int) {
	// Upper bounds on the root t*:
	//   p > 0:  t*^3 < q and p*t* < q, so t* <= min(cbrt q, q/p);
	//   p <= 0: at t = sqrt(-p) + cbrt(q), t(t^2 + p) >= cbrt(q)^3 = q.
	if p > 0 {
		t = min(math.Cbrt(q), q/p)
	} else {
		t = math.Sqrt(-p) + math.Cbrt(q)
	}
	for ; steps < 100; steps++ { // a few steps suffice (see tests)
		f := (t*t+p)*t - q
		if !(f > 0) {
			break // at the root to within rounding
		}
		tn := t - f/(3*t*t+p)
		if !(tn < t) {
			break // the step is below rounding
		}
		t = tn
	}
	return t, steps
}

func fillNaN(x []float64) {
	nan := math.NaN()
	for i := range x {
		x[i] = nan
	}
}

func hasInf(x []float64) bool {
	for _, v := range x {
		if math.IsInf(v, 0) {
			return true
		}
	}
	return false
}
