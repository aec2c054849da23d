package fuzz

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/internal/vectest"
	"github.com/neadmm/neadmm/vec"
)

// Exact oracles for the kernels, in math/big.

// exactPrec makes every sum of products of float64 values exact: a product
// of two finite float64 lies in 2^-2148..2^2048 and needs 106 bits, so a sum
// of n of them needs fewer than 4200 + log2(n) bits. big.Float stores only
// the words a value needs, so moderate data stays cheap.
const exactPrec = 4400

func newExact() *big.Float { return new(big.Float).SetPrec(exactPrec) }

// u is the unit roundoff of float64, 2^-53.
const u = 0x1p-53

// overflowAt is the smallest magnitude that rounds to ±Inf: the midpoint
// between MaxFloat64 and 2^1024 rounds to even, which is 2^1024.
var overflowAt = newExact().Sub(
	new(big.Float).SetMantExp(big.NewFloat(1), 1024),
	new(big.Float).SetMantExp(big.NewFloat(1), 970))

// gamma returns an exact upper bound of gamma_n = n*u/(1-n*u), the factor of
// the standard error bound of a sum evaluated with at most n roundings on
// any term's path (Higham, Accuracy and Stability, Lemma 3.1):
// n*u*(1 + 2*n*u) >= gamma_n whenever n*u <= 1/2.
func gamma(n int) *big.Float {
	nu := new(big.Float).SetMantExp(big.NewFloat(float64(n)), -53)
	g := new(big.Float).Mul(nu, new(big.Float).Add(big.NewFloat(1), new(big.Float).Mul(big.NewFloat(2), nu)))
	return g
}

// sumSpec says which results an evaluation of sum_i x[i]*y[i] may return,
// in any summation order (any tree of additions) and with or without fused
// multiply-adds, which is what vec promises for Dot, MulVec and MulTransVec.
//
// Let S+ and S- be the sums of the positive finite products and of the
// magnitudes of the negative ones, and gamma = gamma_n (every vec kernel
// rounds each term at most n times: one product or FMA rounding plus the
// additions on its path, never more than n for n terms). Then:
//
//   - a NaN input, a 0*Inf product, or infinite products of both signs give
//     NaN in every order;
//   - otherwise the computed value of any partial sum lies in
//     [-(1+gamma)S-, (1+gamma)S+] until something overflows, so a partial
//     sum can reach +Inf only if (1+gamma)S+ >= overflowAt (posOv), and
//     -Inf only if (1+gamma)S- >= overflowAt (negOv); NaN needs both (or
//     infinite products of one sign and an overflow of the other);
//   - infinite products of one sign s give s*Inf, or NaN when the finite
//     products can overflow towards -s;
//   - otherwise a finite result had no overflow on the way, so it obeys
//     |got - exact| <= gamma*(S+ + S-) + n*2^-1074, the last term for the
//     absolute error (at most 2^-1075) of each product or FMA rounded into
//     the subnormal range (additions there are exact);
//   - and ±Inf is allowed only as above.
//
// So an overflow may legitimately give +Inf on one path and a huge finite
// value on the other, or NaN on one path only, but only when the magnitudes
// involved really approach MaxFloat64.
type sumSpec struct {
	n                int
	nan              bool
	infPos, infNeg   bool
	exact, pos, neg  *big.Float // exact sum, S+ and S- of the finite products
	posOv, negOv     bool
	bound            *big.Float // bound on |got - exact| for a finite got
	firstNaNOrInfIdx int
}

// productSpec returns the spec of sum_i x[i]*y[i]; len(y) >= len(x).
func productSpec(x, y []float64) *sumSpec {
	s := &sumSpec{n: len(x), exact: newExact(), pos: newExact(), neg: newExact(), firstNaNOrInfIdx: -1}
	p := newExact()
	var bx, by big.Float
	for i, a := range x {
		b := y[i]
		switch {
		case math.IsNaN(a) || math.IsNaN(b):
			s.nan = true
		case math.IsInf(a, 0) || math.IsInf(b, 0):
			if a == 0 || b == 0 {
				s.nan = true
			} else if (a < 0) != (b < 0) {
				s.infNeg = true
			} else {
				s.infPos = true
			}
		default:
			p.Mul(bx.SetFloat64(a), by.SetFloat64(b))
			s.exact.Add(s.exact, p)
			if p.Sign() > 0 {
				s.pos.Add(s.pos, p)
			} else {
				s.neg.Sub(s.neg, p)
			}
			continue
		}
		if s.firstNaNOrInfIdx < 0 {
			s.firstNaNOrInfIdx = i
		}
	}
	if s.infPos && s.infNeg {
		s.nan = true
	}
	g := gamma(s.n)
	onePlus := new(big.Float).Add(big.NewFloat(1), g)
	s.posOv = new(big.Float).Mul(onePlus, s.pos).Cmp(overflowAt) >= 0
	s.negOv = new(big.Float).Mul(onePlus, s.neg).Cmp(overflowAt) >= 0
	abs := newExact().Add(s.pos, s.neg)
	s.bound = newExact().Mul(g, abs)
	s.bound.Add(s.bound, new(big.Float).SetMantExp(big.NewFloat(float64(s.n)), -1074))
	return s
}

// check returns an error if got is not a result the spec allows.
func (s *sumSpec) check(got float64) error {
	switch {
	case s.nan:
		if !math.IsNaN(got) {
			return fmt.Errorf("got %v, want NaN (NaN input, 0*Inf or +Inf and -Inf products; first at %d)", got, s.firstNaNOrInfIdx)
		}
		return nil
	case s.infPos || s.infNeg:
		sign := 1
		canNaN := s.negOv
		if s.infNeg {
			sign, canNaN = -1, s.posOv
		}
		if math.IsInf(got, sign) || math.IsNaN(got) && canNaN {
			return nil
		}
		return fmt.Errorf("got %v, want %v (infinite product at %d; NaN allowed: %v)", got, math.Inf(sign), s.firstNaNOrInfIdx, canNaN)
	case math.IsNaN(got):
		if s.posOv && s.negOv {
			return nil
		}
		return fmt.Errorf("got NaN, want %s (no NaN or Inf input, and the finite products cannot overflow both ways: S+ %s, S- %s)",
			s.describeExact(), fmtBig(s.pos), fmtBig(s.neg))
	case math.IsInf(got, 1) && s.posOv, math.IsInf(got, -1) && s.negOv:
		return nil
	case math.IsInf(got, 0):
		return fmt.Errorf("got %v, want %s (the products cannot overflow that way: S+ %s, S- %s)",
			got, s.describeExact(), fmtBig(s.pos), fmtBig(s.neg))
	}
	diff := newExact().Sub(new(big.Float).SetFloat64(got), s.exact)
	diff.Abs(diff)
	if diff.Cmp(s.bound) > 0 {
		ratio, _ := new(big.Float).Quo(diff, s.bound).Float64()
		return fmt.Errorf("got %v, want %s: error %s is %.3g times the bound %s (n = %d)",
			got, s.describeExact(), fmtBig(diff), ratio, fmtBig(s.bound), s.n)
	}
	return nil
}

// checkPair checks the difference of two finite results of the same sum
// directly: |a - b| <= 2*(gamma_n*(S+ + S-) + n*2^-1074), that is about
// n*eps*sum|x[i]*y[i]| with eps = 2^-52, the sum of the two paths' bounds
// (both lie within the bound of the exact sum). It is implied by check on
// both, and stated for the reader of a failure report.
func (s *sumSpec) checkPair(a, b float64) error {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return nil // the special cases are decided by check
	}
	diff := newExact().Sub(new(big.Float).SetFloat64(a), new(big.Float).SetFloat64(b))
	diff.Abs(diff)
	if diff.Cmp(newExact().Mul(big.NewFloat(2), s.bound)) > 0 {
		return fmt.Errorf("paths differ by %s, more than twice the bound %s", fmtBig(diff), fmtBig(s.bound))
	}
	return nil
}

func (s *sumSpec) describeExact() string {
	return fmt.Sprintf("exact %s ± %s", fmtBig(s.exact), fmtBig(s.bound))
}

// fmtBig formats x with 17 significant digits (exponents beyond float64's
// range included).
func fmtBig(x *big.Float) string { return x.Text('g', 17) }

// big64 returns x as a big.Float (x finite).
func big64(x float64) *big.Float { return new(big.Float).SetFloat64(x) }

// paths runs f once for each implementation of vec this CPU can run
// (vec.Implementations: on amd64 with AVX-512 "avx512", "avx2" and
// "generic"), passing its kernel set: the targets call the kernels through
// it, so nothing is switched process-wide. With one implementation only
// (purego, GODEBUG=cpu.all=off, other architectures) f runs once.
func paths(f func(path string, k vec.Kernels)) {
	for _, k := range vec.Implementations() {
		f(k.Name(), k)
	}
}

// switchedPaths is paths for code outside vec that calls vec's package
// functions (neadmm's prox functions): it switches them to each
// implementation in turn (internal/vectest) and restores the start-up
// choice.
func switchedPaths(f func(path string)) {
	vectest.Each(func(k vec.Kernels) { f(k.Name()) })
}

// TestImplementations logs which implementations the targets run every
// input on, and one line for each implementation of this GOARCH they
// cannot (go test -v).
func TestImplementations(t *testing.T) {
	vectest.Report(t)
}

// expectPanic runs f and returns an error unless it panics with a message
// containing want.
func expectPanic(want string, f func()) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			err = fmt.Errorf("no panic, want one mentioning %q", want)
			return
		}
		if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
			err = fmt.Errorf("panic %q does not mention %q", msg, want)
		}
	}()
	f()
	return nil
}

// TestOracleSelfCheck makes sure the oracles reject what they must: a
// spec that accepted everything would make every target pass.
func TestOracleSelfCheck(t *testing.T) {
	x := []float64{1, 2, 3}
	s := productSpec(x, x) // 14
	for _, bad := range []float64{14 + 0x1p-40, math.NaN(), math.Inf(1), 13} {
		if s.check(bad) == nil {
			t.Errorf("spec of 1+4+9 accepts %v", bad)
		}
	}
	if err := s.check(14); err != nil {
		t.Error(err)
	}
	// 2^1023 + 2^1023 - 2^1023: may overflow to +Inf, never to -Inf or NaN.
	h := []float64{0x1p1023, 0x1p1023, -0x1p1023}
	s = productSpec(h, []float64{1, 1, 1})
	if s.check(math.Inf(1)) != nil || s.check(0x1p1023) != nil {
		t.Error("overflow spec rejects a legitimate result")
	}
	if s.check(math.Inf(-1)) == nil || s.check(math.NaN()) == nil {
		t.Error("overflow spec accepts -Inf or NaN")
	}
	// Inf with finite products that cannot overflow: exactly +Inf.
	s = productSpec([]float64{math.Inf(1), -1}, []float64{2, 3})
	if s.check(math.Inf(1)) != nil || s.check(math.NaN()) == nil {
		t.Error("Inf spec wrong")
	}
}

// TestOracleCatchesBrokenKernels feeds the oracles kernels with typical
// bugs on random inputs: each must be caught on most inputs, or the targets
// would pass a broken implementation.
func TestOracleCatchesBrokenKernels(t *testing.T) {
	broken := []struct {
		name string
		dot  func(x, y []float64) float64
	}{
		{"drops the last element", func(x, y []float64) float64 {
			s := 0.0
			for i := 0; i < len(x)-1; i++ {
				s += x[i] * y[i]
			}
			return s
		}},
		{"reads one element too many", func(x, y []float64) float64 {
			s := 0.0
			for i := range x {
				s += x[i] * y[i]
			}
			return s + x[:len(x)+1][len(x)]*1 // the guard: NaN
		}},
		{"relative error 4n ulps", func(x, y []float64) float64 {
			s := 0.0
			for i := range x {
				s += x[i] * y[i]
			}
			return s * (1 + float64(4*len(x))*0x1p-52)
		}},
		{"skips NaN products", func(x, y []float64) float64 {
			s := 0.0
			for i := range x {
				if p := x[i] * y[i]; p == p {
					s += p
				}
			}
			return s
		}},
	}
	for _, b := range broken {
		src := newSource(nil)
		caught, tried := 0, 0
		for range 200 {
			n := 1 + int(src.next()%60)
			x, y := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i], y[i] = src.generated(), src.generated()
			}
			if b.name == "skips NaN products" {
				x[src.next()%uint64(n)] = math.NaN()
			}
			gx := guard.Of(x, 0)
			tried++
			if productSpec(x, y).check(b.dot(gx.Overrun(), y)) != nil {
				caught++
			}
		}
		if caught < tried*9/10 {
			t.Errorf("broken Dot that %s caught on %d of %d inputs", b.name, caught, tried)
		}
	}
}
