package fuzz

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/neadmm"
)

// FuzzSphereProx checks neadmm.SphereProx(w, v, c), the minimizer of
//
//	f(w) = ||w - v||^2 + (||w||^2 - c)^2,
//
// on both vec paths, in place and not (the same bits), against:
//
//   - its special cases: NaN everywhere for a NaN or infinite c or v[i],
//     never NaN or Inf for finite input;
//   - accuracy: ||w|| against the positive root s* of the cubic
//     2s^3 + (1-2c)s - ||v|| (bisection in math/big, independent of the
//     implementation's Newton iteration);
//   - optimality: f(w) no larger, up to the second-order effect of w's
//     rounding, than f at every other stationary point (the other real roots
//     t of the cubic, w = t*v/||v||, and their sign flips) and at probe
//     points (scaled copies of w, random directions around it, 0, v);
//   - stationarity: the gradient 2(w - v) + 4(||w||^2 - c)w is small
//     relative to the magnitudes of its terms.
//
// f and the residual are evaluated exactly in math/big, so the tolerances
// come from w's rounding alone.
//
// Input: n byte (n = b%9), flags byte (unused bits reserved), scale of v,
// v, scale of c, c.
func FuzzSphereProx(f *testing.F) {
	for n := range 9 {
		f.Add(new(enc).bytes(byte(n), 0, scaleOne).b)
		f.Add(new(enc).bytes(byte(n), 0, scaleHuge).b)
		f.Add(new(enc).bytes(byte(n), 0, scaleTiny).b)
	}
	for _, c := range []struct {
		v []float64
		c float64
	}{
		{[]float64{0, 0, 0}, 2},                         // v = 0, c > 1/2: a point on the sphere of radius sqrt(3/2)
		{[]float64{0, negZ}, 0.25},                      // v = 0, c <= 1/2: 0
		{[]float64{1e-300, 0}, 1e10},                    // tiny v, large c: root near sqrt(c - 1/2), flip nearly as good
		{[]float64{1, 2}, 0.5},                          // c = 1/2 exactly: s^3 = a/2
		{[]float64{1, 2}, 0.5 + 0x1p-53},                // c within rounding of 1/2
		{[]float64{3}, -1e300},                          // hugely negative c: w = v/(1-2c), tiny
		{[]float64{0x1p-1074}, -1e300},                  // and the result underflows
		{[]float64{maxF, maxF, -maxF}, 1},               // ||v|| overflows with finite entries
		{[]float64{maxF}, maxF},                         // c = Max
		{[]float64{1e-10, 1e-10}, 1e200},                // three real roots, far apart
		{[]float64{1, nan}, 1},                          // NaN v
		{[]float64{1, 2}, inf},                          // Inf c
		{[]float64{-inf, 2}, 1},                         // Inf v
		{[]float64{0.3, -0.4, 0.5, 1e-20}, 1 - 0x1p-30}, // generic
		{[]float64{tiny, tiny, tiny}, 0.75},             // subnormal v
	} {
		e := new(enc).bytes(byte(len(c.v)), 0, scaleOne).f(c.v...).bytes(scaleOne).f(c.c)
		f.Add(e.b)
	}
	f.Fuzz(checkSphere)
}

func checkSphere(t *testing.T, data []byte) {
	s := newSource(data)
	n := int(s.byte() % 9)
	_ = s.byte() // flags, reserved
	s.setScale()
	v := s.floats(n)
	s.setScale()
	c := s.float()
	switchedPaths(func(path string) {
		w := make([]float64, n)
		neadmm.SphereProx(w, v, c)
		in := append([]float64(nil), v...)
		neadmm.SphereProx(in, in, c)
		what := fmt.Sprintf("%s: SphereProx(v = %v, c = %v)", path, v, c)
		if !guard.SameBits(w, in) && !allNaN(w, in) {
			t.Errorf("%s: in place %v, not in place %v", what, in, w)
		}
		if err := sphereCheck(w, v, c, s); err != nil {
			t.Errorf("%s = %v: %v", what, w, err)
		}
	})
}

// allNaN reports whether every element of every slice is NaN.
func allNaN(xs ...[]float64) bool {
	for _, x := range xs {
		for _, v := range x {
			if !math.IsNaN(v) {
				return false
			}
		}
	}
	return true
}

// bigPrec is enough for f exactly: squares of float64 differences span
// fewer than 4300 bits, and (||w||^2 - c)^2 twice that.
const bigPrec = 9000

func nb() *big.Float { return new(big.Float).SetPrec(bigPrec) }

// sphereObjective returns f(w) exactly.
func sphereObjective(w, v []float64, c float64) *big.Float {
	f, sq := nb(), nb()
	for i := range w {
		d := nb().Sub(big64(w[i]), big64(v[i]))
		f.Add(f, d.Mul(d, d))
		sq.Add(sq, nb().Mul(big64(w[i]), big64(w[i])))
	}
	q := sq.Sub(sq, big64(c))
	return f.Add(f, q.Mul(q, q))
}

// sphereCheck returns an error if w is not an acceptable SphereProx(v, c).
// s supplies the random probe directions.
func sphereCheck(w, v []float64, c float64, s *source) error {
	n := len(v)
	if n == 0 {
		return nil
	}
	bad := math.IsNaN(c) || math.IsInf(c, 0)
	for _, x := range v {
		bad = bad || math.IsNaN(x) || math.IsInf(x, 0)
	}
	if bad {
		if !allNaN(w) {
			return fmt.Errorf("want NaN everywhere for non-finite input")
		}
		return nil
	}
	for _, x := range w {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("non-finite result for finite input")
		}
	}
	// a = ||v||, W = ||w|| and sw = ||w||^2.
	const p = 256
	va, sw := nb(), nb()
	for i := range v {
		va.Add(va, nb().Mul(big64(v[i]), big64(v[i])))
		sw.Add(sw, nb().Mul(big64(w[i]), big64(w[i])))
	}
	a := new(big.Float).SetPrec(p).Sqrt(va)
	W := new(big.Float).SetPrec(p)
	if sw.Sign() > 0 {
		W.Sqrt(sw)
	}
	// Relative accuracy of w: Nrm2's error in ||v|| ((n+2)*2^-52, which
	// moves the root by at most as much: s*p'(s) = a + 4s^3 >= a), a few
	// ulps for the root and the scaling, one rounding per element.
	k := float64(2*(n+2) + 16)
	errW := nb().Mul(W, big64(k*u))
	errW.Add(errW, big64(math.Sqrt(float64(n))*0x1p-1074*4)) // w[i] subnormal or underflowed
	// Accuracy of ||w||.
	var roots []*big.Float
	if a.Sign() > 0 {
		roots = cubicRoots(a, c)
		sStar := roots[0]
		d := nb().Sub(W, sStar)
		if d.Abs(d).Cmp(errW) > 0 {
			return fmt.Errorf("||w|| = %s, want the root %s ± %s", fmtBig(W), fmtBig(sStar), fmtBig(errW))
		}
	} else {
		want := 0.0
		if c > 0.5 {
			want = math.Sqrt(c - 0.5)
		}
		wantW := append([]float64{want}, make([]float64, n-1)...)
		if d := nb().Sub(W, big64(want)); d.Abs(d).Cmp(errW) > 0 || !sameValueNonNeg(w, wantW) {
			return fmt.Errorf("v = 0: want %v", wantW)
		}
	}
	// Stationarity: R = w(1 + 2(sw - c)) - v, against the magnitudes of its
	// terms T = ||v|| + ||w||(1 + 2sw + 2|c|). w = r*v*(1+e_i) with r within
	// k ulps of the exact ratio: |R| <= |p(||w||)| + u|rho|*||w|| <= (3k+1)*u*T,
	// plus rho times the absolute error of underflowed elements.
	rho := nb().Sub(sw, big64(c))
	rho.Mul(rho, big64(2))
	rho.Add(rho, big64(1))
	r2 := nb()
	for i := range w {
		ri := nb().Mul(big64(w[i]), rho)
		ri.Sub(ri, big64(v[i]))
		r2.Add(r2, ri.Mul(ri, ri))
	}
	res := new(big.Float).SetPrec(p).Sqrt(r2)
	mag := nb().Add(big64(1), nb().Mul(big64(2), sw))
	mag.Add(mag, nb().Mul(big64(2), big64(math.Abs(c)))) // 2|c| may exceed MaxFloat64
	T := nb().Add(a, nb().Mul(W, mag))
	tolR := nb().Mul(T, big64((3*k+2)*u))
	tolR.Add(tolR, nb().Mul(mag, big64(math.Sqrt(float64(n))*0x1p-1074*4)))
	if res.Cmp(tolR) > 0 {
		ratio, _ := nb().Quo(res, tolR).Float64()
		return fmt.Errorf("stationarity residual %s is %.3g times the tolerance %s", fmtBig(res), ratio, fmtBig(tolR))
	}
	// Optimality. f(w) - f(w*) is second order in e = w - w*:
	// |e|^2 (1 + 2|q*|) + (2 w*.e + |e|^2)^2 with q* = ||w*||^2 - c; bound
	// |q*| by |sw - c| + 2W|e| + |e|^2, twice over for safety.
	e := errW
	q := nb().Sub(sw, big64(c))
	q.Abs(q)
	q.Add(q, nb().Mul(big64(2), nb().Mul(W, e)))
	q.Add(q, nb().Mul(e, e))
	two := nb().Add(nb().Mul(big64(2), W), e)
	tolF := nb().Add(big64(1), nb().Mul(big64(2), q))
	tolF.Add(tolF, nb().Mul(two, two))
	tolF.Mul(tolF, nb().Mul(e, e))
	tolF.Mul(tolF, big64(2))
	fw := sphereObjective(w, v, c)
	limit := nb().Sub(fw, tolF)
	check := func(name string, z []float64) error {
		for _, x := range z {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil
			}
		}
		if fz := sphereObjective(z, v, c); fz.Cmp(limit) < 0 {
			return fmt.Errorf("f(w) = %s, but f = %s at %s %v (tolerance %s)", fmtBig(fw), fmtBig(fz), name, z, fmtBig(tolF))
		}
		return nil
	}
	// Other stationary points and their sign flips.
	for i, r := range roots {
		for _, sign := range []float64{1, -1} {
			z := make([]float64, n)
			for j := range z {
				zj := nb().Mul(r, big64(v[j]))
				zj.Quo(zj, a)
				z[j], _ = zj.Float64()
				z[j] *= sign
			}
			if err := check(fmt.Sprintf("stationary point %d (sign %v)", i, sign), z); err != nil {
				return err
			}
		}
	}
	// Probes: scaled copies of w, random directions around it, 0 and v.
	probes := [][]float64{make([]float64, n), v}
	for _, l := range []float64{-1, 0.5, 2, 1 - 0x1p-10, 1 + 0x1p-10, 1 - 0x1p-30, 1 + 0x1p-30} {
		z := make([]float64, n)
		for j := range z {
			z[j] = w[j] * l
		}
		probes = append(probes, z)
	}
	wn, _ := W.Float64()
	for _, eps := range []float64{wn, wn * 0x1p-20, wn * 0x1p-40, 1, 0x1p-30} {
		z := make([]float64, n)
		for j := range z {
			z[j] = w[j] + eps*(float64(s.next()>>11)*0x1p-53*2-1)
		}
		probes = append(probes, z)
	}
	for i, z := range probes {
		if err := check(fmt.Sprintf("probe %d", i), z); err != nil {
			return err
		}
	}
	return nil
}

// sameValueNonNeg reports whether w equals want element by element, where
// a zero in want matches either zero.
func sameValueNonNeg(w, want []float64) bool {
	for i := range w {
		if w[i] != want[i] {
			return false
		}
	}
	return true
}

// cubicRoots returns the real roots of p(s) = 2s^3 + (1-2c)s - a (a > 0),
// the positive one first, by bisection in math/big: every root has
// magnitude in [L, H] with L = min(1, a/(2+|1-2c|))/2 and H = 1 + a + |1-2c|,
// the positive one lies in [L, H], and negative ones exist only when the
// local maximum of p at -sqrt((2c-1)/6) is positive, one on each side.
func cubicRoots(a *big.Float, c float64) []*big.Float {
	const prec = 200
	k := nb().Sub(big64(1), nb().Mul(big64(2), big64(c))) // 1 - 2c, exact
	pp := func(s *big.Float) int {
		x := nb().Mul(s, s)
		x.Mul(x, s)
		x.Mul(x, big64(2))
		x.Add(x, nb().Mul(k, s))
		return x.Sub(x, a).Sign()
	}
	absK := nb().Abs(k)
	H := nb().Add(nb().Add(big64(1), a), absK)
	L := nb().Quo(a, nb().Add(big64(2), absK))
	if L.Cmp(big64(1)) > 0 {
		L.SetFloat64(1)
	}
	L.Quo(L, big64(2))
	roots := []*big.Float{bisect(pp, L, H, prec)}
	if c > 0.5 {
		sm := nb().Quo(nb().Neg(k), big64(6))
		sm.Sqrt(sm)
		sm.Neg(sm)
		negH, negL := nb().Neg(H), nb().Neg(L)
		if pp(sm) > 0 && sm.Cmp(negH) > 0 && sm.Cmp(negL) < 0 {
			roots = append(roots, bisect(pp, negH, sm, prec), bisect(pp, sm, negL, prec))
		}
	}
	return roots
}

// bisect returns a root of p in [lo, hi], where p(lo) and p(hi) differ in
// sign and lo, hi have the same sign: it halves the binary exponent range
// first (the root may lie anywhere in 2^-1100..2^1100), then the interval,
// to prec bits.
func bisect(p func(*big.Float) int, lo, hi *big.Float, prec uint) *big.Float {
	lo, hi = new(big.Float).Copy(lo), new(big.Float).Copy(hi)
	sLo := p(lo)
	for range 4 * prec * 8 {
		mid := new(big.Float).SetPrec(prec).Add(lo, hi)
		mid.Quo(mid, big64(2))
		if el, eh := lo.MantExp(nil), hi.MantExp(nil); el-eh > 2 || eh-el > 2 {
			mid.SetMantExp(big.NewFloat(float64(lo.Sign())), (el+eh)>>1) // strictly inside
		}
		if mid.Cmp(lo) == 0 || mid.Cmp(hi) == 0 {
			break
		}
		if p(mid) == sLo {
			lo = mid
		} else {
			hi = mid
		}
		d := new(big.Float).Sub(hi, lo)
		if d.Sign() == 0 || d.MantExp(nil) < hi.MantExp(nil)-int(prec) && d.MantExp(nil) < lo.MantExp(nil)-int(prec) {
			break
		}
	}
	mid := new(big.Float).SetPrec(prec).Add(lo, hi)
	return mid.Quo(mid, big64(2))
}
