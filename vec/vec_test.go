package vec_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/internal/vectest"
	"github.com/neadmm/neadmm/vec"
)

// eps is the spacing of float64 at 1 (2^-52, twice the unit roundoff u).
const eps = 0x1p-52

// forEachImpl runs f as a subtest on every implementation this CPU can run
// (vectest.ForEach: the package functions are switched to it).
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	vectest.ForEach(t, func(t *testing.T, _ vec.Kernels) { f(t) })
}

// testLengths is every length 0..300 and a few large ones that end in every
// tail length of the unrolled loops, on both sides of the lengths where
// the avx512 level's Dot changes kernels (4096 and 24576).
func testLengths() []int {
	var ns []int
	for n := 0; n <= 300; n++ {
		ns = append(ns, n)
	}
	return append(ns, 4096, 4097, 24577, 65537)
}

func fillNormal(r *rand.Rand, x []float64) {
	for i := range x {
		x[i] = r.NormFloat64()
	}
}

// guarded returns a guarded vector of n N(0,1) values at offset off.
func guarded(r *rand.Rand, n, off int) *guard.Vec {
	g := guard.New(n, off)
	fillNormal(r, g.S())
	return g
}

// checkGuards fails the test if a sentinel around any of gs changed.
func checkGuards(t *testing.T, what string, gs ...*guard.Vec) {
	t.Helper()
	for j, g := range gs {
		if err := g.Check(); err != nil {
			t.Fatalf("%s, vector %d: %v", what, j, err)
		}
	}
}

// vecOffset is the offset of vector j of a test case at offset off: each
// vector takes every offset 0..7 as off does, no two share one, and so their
// alignments relative to each other vary too.
func vecOffset(off, j int) int { return (off + 3*j) % guard.Offsets }

// sweep runs f on a pair of guarded N(0,1) vectors for every test length
// and offsets 0..7 (see vecOffset), on each implementation, and then checks
// both guard bands.
func sweep(t *testing.T, seed uint64, f func(t *testing.T, r *rand.Rand, x, y []float64, what string)) {
	sweepK(t, seed, 2, func(t *testing.T, r *rand.Rand, v [][]float64, what string) {
		f(t, r, v[0], v[1], what)
	})
}

// sweepK is sweep for k guarded vectors.
func sweepK(t *testing.T, seed uint64, k int, f func(t *testing.T, r *rand.Rand, v [][]float64, what string)) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(seed, seed+1))
		gs, v := make([]*guard.Vec, k), make([][]float64, k)
		for _, n := range testLengths() {
			for off := range guard.Offsets {
				for j := range gs {
					gs[j] = guarded(r, n, vecOffset(off, j))
					v[j] = gs[j].S()
				}
				what := fmt.Sprintf("n=%d off=%d", n, off)
				f(t, r, v, what)
				checkGuards(t, what, gs...)
			}
		}
	})
}

// refDot returns sum x[i]*y[i] to within about one rounding (Ogita, Rump and
// Oishi's Dot2: error-free products via FMA, compensated sum), and
// sum |x[i]*y[i]|, the scale of the error bound.
func refDot(x, y []float64) (dot, abs float64) {
	var s, c float64
	for i := range x {
		p := x[i] * y[i]
		pe := math.FMA(x[i], y[i], -p) // p + pe == x[i]*y[i] exactly
		t := s + p
		z := t - s
		se := (s - (t - z)) + (p - z) // s + p == t + se exactly
		s = t
		c += pe + se
		abs += math.Abs(p)
	}
	return s + c, abs
}

// dotTol is the error bound for a dot product evaluated in any order, with
// or without FMA: |fl(x.y) - x.y| <= gamma_n * sum|x_i*y_i| with
// gamma_n = n*u/(1-n*u), u = 2^-53 (Higham, Accuracy and Stability, 3.1).
// The reference (refDot) is off by at most u*|x.y| + gamma_n^2*sum|x_i*y_i|.
// n*eps = 2*n*u covers both: for n = 1 each side is a single rounding
// (u + u), and for n >= 2, gamma_n <= 1.0001*n*u here (n*u < 1e-10) leaves
// at least 0.99*u*sum|x_i*y_i| for the reference. The n*2^-1074 term
// allows for products that underflow (each loses at most half the smallest
// subnormal). A dropped or doubled element is off by |x_i*y_i|, far more.
func dotTol(n int, abs float64) float64 {
	return float64(n)*eps*abs + float64(n)*0x1p-1074
}

func TestDot(t *testing.T) {
	sweep(t, 1, func(t *testing.T, r *rand.Rand, x, y []float64, what string) {
		want, abs := refDot(x, y)
		got := vec.Dot(x, y)
		if math.Abs(got-want) > dotTol(len(x), abs) || (len(x) == 0 && got != 0) {
			t.Fatalf("%s: Dot = %v, want %v (tol %g)", what, got, want, dotTol(len(x), abs))
		}
	})
}

// TestDotAlias checks vec.Dot(x, x), which Nrm2 relies on.
func TestDotAlias(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, n := range []int{1, 5, 33, 100, 1000} {
			x := make([]float64, n)
			fillNormal(r, x)
			want, abs := refDot(x, x)
			if got := vec.Dot(x, x); math.Abs(got-want) > dotTol(n, abs) {
				t.Errorf("n=%d: vec.Dot(x, x) = %v, want %v", n, got, want)
			}
		}
	})
}

// specials are the values whose handling every kernel must get right.
var specials = []float64{
	math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0,
	5e-324, -5e-324, 0x1p-1022, 1e-310, math.MaxFloat64, -math.MaxFloat64, 1e200, -1e200,
}

// class is what IEEE arithmetic pins down regardless of evaluation order.
func class(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return "finite"
}

// TestDotSpecial places one special value (or two) at every position of
// vectors long enough to reach the main loop, the remainder loop and the
// scalar tail, and checks the result's class against the plain loop. The
// other elements are small, so no overflow depends on evaluation order.
func TestDotSpecial(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, n := range []int{1, 3, 7, 39, 71} {
			x, y := make([]float64, n), make([]float64, n)
			for _, sx := range specials {
				for _, sy := range []float64{1, -2, 0, math.NaN(), math.Inf(1), 1e200} {
					for i := 0; i < n; i++ {
						fillNormal(r, x)
						fillNormal(r, y)
						x[i], y[i] = sx, sy
						// A second special elsewhere, when there is room,
						// times 0.5: its product never overflows by itself
						// (a product that overflows in one evaluation but not
						// in a fused one would make the class order-dependent).
						j := (i + n/2) % n
						if j != i {
							x[j], y[j] = sx, 0.5
						}
						var naive float64
						for k := range x {
							naive += x[k] * y[k]
						}
						got := vec.Dot(x, y)
						if class(got) != class(naive) {
							t.Fatalf("n=%d x[%d]=x[%d]=%v y[%d]=%v: Dot = %v, plain loop %v", n, i, j, sx, i, sy, got, naive)
						}
						if class(naive) == "finite" {
							want, abs := refDot(x, y)
							if math.Abs(got-want) > dotTol(n, abs) {
								t.Fatalf("n=%d x[%d]=%v y[%d]=%v: Dot = %v, want %v", n, i, sx, i, sy, got, want)
							}
						}
					}
				}
			}
		}
		if got := vec.Dot([]float64{math.Inf(1), math.Inf(1)}, []float64{1, -1}); !math.IsNaN(got) {
			t.Errorf("Dot of opposite infinite products = %v, want NaN", got)
		}
		if got := vec.Dot([]float64{1e200, 1e200}, []float64{1e200, 1e200}); !math.IsInf(got, 1) {
			t.Errorf("Dot overflowing = %v, want +Inf", got)
		}
		if got := vec.Dot([]float64{math.Inf(1)}, []float64{0}); !math.IsNaN(got) {
			t.Errorf("vec.Dot(Inf, 0) = %v, want NaN", got)
		}
	})
}

// sameFloat reports whether a and b are the same value: equal bits, or
// both NaN (the payload of a computed NaN is not specified).
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b)
}

// axpyOK reports whether got is a correct y + alpha*x: Axpy promises one of
// the two standard evaluations, the fused one (a single rounding, FMA) and
// the unfused one (alpha*x rounded first). That is an exact check, tighter
// than any tolerance: a fused kernel differs from the unfused reference by
// exactly the one rounding of alpha*x, and must be correctly rounded itself.
func axpyOK(got, alpha, x, y float64) bool {
	return sameFloat(got, math.FMA(alpha, x, y)) || sameFloat(got, float64(alpha*x)+y)
}

func TestAxpy(t *testing.T) {
	sweep(t, 7, func(t *testing.T, r *rand.Rand, x, y []float64, what string) {
		y0 := append([]float64(nil), y...)
		alpha := r.NormFloat64()
		vec.Axpy(alpha, x, y)
		for i, got := range y {
			if !axpyOK(got, alpha, x[i], y0[i]) {
				t.Fatalf("%s i=%d: y = %v, want %v + %v*%v", what, i, got, y0[i], alpha, x[i])
			}
		}
	})
}

func TestAxpySpecial(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		vals := append([]float64{1, -1.5, 0x1p-1000}, specials...)
		for _, n := range []int{1, 3, 7, 21} {
			for _, alpha := range vals {
				for _, sx := range vals {
					for _, sy := range vals {
						x, y := make([]float64, n), make([]float64, n)
						for i := range x {
							x[i], y[i] = sx, sy
						}
						vec.Axpy(alpha, x, y)
						for i, got := range y {
							if !axpyOK(got, alpha, sx, sy) {
								t.Fatalf("n=%d i=%d: %v + %v*%v = %v", n, i, sy, alpha, sx, got)
							}
						}
					}
				}
			}
		}
	})
}

func TestAxpyAlias(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, n := range []int{1, 4, 17, 63, 300} {
			x := make([]float64, n)
			fillNormal(r, x)
			x0 := append([]float64(nil), x...)
			vec.Axpy(0.75, x, x) // y += alpha*y
			for i := range x {
				if !axpyOK(x[i], 0.75, x0[i], x0[i]) {
					t.Fatalf("n=%d i=%d: vec.Axpy(0.75, x, x) gave %v from %v", n, i, x[i], x0[i])
				}
			}
		}
	})
}

// TestSwitchChangesPath checks that the switch really changes the code that
// runs, not just what Impl reports, with inputs whose results tell the
// kernels apart bit for bit: every implementation must give a different
// signature, and the generic one the value its order implies.
//
// Dot and Nrm2: x[0] = 1 and x[i] = 2^-53 (Dot, y = 1) or x[i]^2 = 2^-54
// (Nrm2) at every i = 0 or 4 modulo 32, n = 1024, so all products are
// exact. Each small term is at most half an ulp of 1: added to the 1 alone
// it rounds back to 1, but summed apart first it shows. dotGeneric adds
// every multiple of 4 into the partial sum that holds the 1: exactly 1.
// AVX2 (lanes of 4, eight 4-lane sums over 32 elements) keeps the i = 4
// terms apart, AVX-512 (lanes of 8 over 64 elements) the i = 32 and the
// i = 4 terms, NEON (lanes of 2, eight sums over 16) the i = 4 terms: three
// different results above 1.
//
// MulVec: four equal rows like Dot's x with the small terms at columns
// 4 modulo 8 (A) or 8 modulo 16 (B). The generic code sums both into the
// 1's partial sum; the AVX2 kernel keeps A apart only, the AVX-512 kernel
// both, NEON (Dot per row) both.
//
// Axpy, amd64 only: the generic Go code rounds alpha*x before adding (the
// compiler does not fuse there) and the AVX2 and AVX-512 kernels do not.
// (On arm64 the compiler fuses the generic code too, so Axpy cannot tell.)
func TestSwitchChangesPath(t *testing.T) {
	const n = 1024
	pattern := func(small float64, at func(i int) bool) []float64 {
		x := make([]float64, n)
		for i := range x {
			if at(i) {
				x[i] = small
			}
		}
		x[0] = 1
		return x
	}
	dotX := pattern(0x1p-53, func(i int) bool { return i%32 == 0 || i%32 == 4 })
	nrmX := pattern(0x1p-27, func(i int) bool { return i%32 == 0 || i%32 == 4 })
	rowA := pattern(0x1p-53, func(i int) bool { return i%8 == 4 })
	rowB := pattern(0x1p-53, func(i int) bool { return i%16 == 8 })
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	matrix := func(row []float64) []float64 {
		var a []float64
		for range 4 {
			a = append(a, row...)
		}
		return a
	}
	ma, mb := matrix(rowA), matrix(rowB)
	signatures := map[string]string{}
	forEachImpl(t, func(t *testing.T) {
		ya, yb := make([]float64, 4), make([]float64, 4)
		vec.MulVec(ya, ma, 4, n, ones)
		vec.MulVec(yb, mb, 4, n, ones)
		res := []float64{vec.Dot(dotX, ones), vec.Nrm2(nrmX), ya[0], yb[0]}
		ulps := make([]string, len(res))
		for i, v := range res {
			ulps[i] = fmt.Sprintf("1%+g ulp", (v-1)/eps)
			if vec.Impl() == "generic" && v != 1 {
				t.Errorf("generic: result %d = %s, want 1 (dotGeneric's order)", i, ulps[i])
			}
		}
		sig := strings.Join(ulps, ", ")
		for other, s := range signatures {
			if s == sig {
				t.Errorf("%s and %s give the same results (Dot, Nrm2, MulVec A, B): %s", vec.Impl(), other, sig)
			}
		}
		signatures[vec.Impl()] = sig
		t.Logf("Dot, Nrm2, MulVec A, B: %s", sig)
		if runtime.GOARCH != "amd64" {
			return
		}
		alpha, x := 1+0x1p-30, 1+0x1p-30 // alpha*x = 1 + 2^-29 + 2^-60
		fused, unfused := 0x1p-29+0x1p-60, 0x1p-29
		want := fused
		if vec.Impl() == "generic" {
			want = unfused
		}
		for _, n := range []int{1, 4, 8, 32, 33, 64, 71} { // every loop and tail
			xs, ys := make([]float64, n), make([]float64, n)
			for i := range xs {
				xs[i], ys[i] = x, -1
			}
			vec.Axpy(alpha, xs, ys)
			for i, got := range ys {
				if got != want {
					t.Fatalf("%s n=%d i=%d: %v*%v - 1 = %g, want %g", vec.Impl(), n, i, alpha, x, got, want)
				}
			}
		}
	})
}

// refSoft is the plain branchy soft-threshold, the definition the kernels
// must match bit for bit: v - t and v + t are single roundings on every
// path, and |v| <= t gives +0.
func refSoft(v, t float64) float64 {
	switch {
	case v != v:
		return v
	case v > t:
		return v - t
	case v < -t:
		return v + t
	}
	return 0
}

func checkSoft(t *testing.T, got, x []float64, thr float64, what string) {
	t.Helper()
	for i := range got {
		if want := refSoft(x[i], thr); !sameFloat(got[i], want) {
			t.Fatalf("%s i=%d: vec.SoftThreshold(%v, t=%v) = %v, want %v", what, i, x[i], thr, got[i], want)
		}
	}
}

func TestSoftThreshold(t *testing.T) {
	sweep(t, 11, func(t *testing.T, r *rand.Rand, x, dst []float64, what string) {
		x0 := append([]float64(nil), x...)
		thr := []float64{0, 0.5, math.Abs(r.NormFloat64())}[len(x)%3]
		vec.SoftThreshold(dst, x, thr)
		checkSoft(t, dst, x0, thr, what)
		for i := range x0 {
			if math.Float64bits(x[i]) != math.Float64bits(x0[i]) {
				t.Fatalf("%s: x[%d] modified", what, i)
			}
		}
		vec.SoftThreshold(x, x, thr) // in place
		checkSoft(t, x, x0, thr, what+" in place")
	})
}

func TestSoftThresholdSpecial(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		vals := append([]float64{1, -1, 0.5, -0.5, 0.25, math.Nextafter(0.5, 1), 1e-300}, specials...)
		thrs := []float64{0, math.Copysign(0, -1), 5e-324, 0x1p-1022, 0.5, 1, 1e300, math.MaxFloat64}
		for _, n := range []int{1, 2, 5, 19, 37} {
			x := make([]float64, n)
			dst := make([]float64, n)
			for _, thr := range thrs {
				for k := range vals {
					// Every value at every position: rotate the list.
					for i := range x {
						x[i] = vals[(i+k)%len(vals)]
					}
					vec.SoftThreshold(dst, x, thr)
					checkSoft(t, dst, x, thr, fmt.Sprintf("n=%d k=%d", n, k))
				}
			}
		}
		// The documented cases.
		x := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0.25, -0.25, math.Copysign(0, -1)}
		vec.SoftThreshold(x, x, 0.5)
		if !math.IsNaN(x[0]) || !math.IsInf(x[1], 1) || !math.IsInf(x[2], -1) || x[3] != 0 || x[4] != 0 || x[5] != 0 {
			t.Errorf("vec.SoftThreshold(NaN, Inf, -Inf, .25, -.25, -0; .5) = %v", x)
		}
	})
}

// mustPanic checks that f panics with a message naming fn.
func mustPanic(t *testing.T, fn string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		e := recover()
		if e == nil {
			t.Errorf("%s: no panic", fn)
			return
		}
		if msg := fmt.Sprint(e); !strings.Contains(msg, "vec."+fn+":") {
			t.Errorf("%s: panic message %q does not name the function", fn, msg)
		}
	}()
	f()
}

func TestPanics(t *testing.T) {
	a, b := make([]float64, 3), make([]float64, 4)
	mustPanic(t, "Dot", func() { vec.Dot(a, b) })
	mustPanic(t, "Dot", func() { vec.Dot(nil, b) })
	mustPanic(t, "Axpy", func() { vec.Axpy(1, a, b) })
	mustPanic(t, "Axpy", func() { vec.Axpy(1, b, a) })
	mustPanic(t, "SoftThreshold", func() { vec.SoftThreshold(a, b, 1) })
	for _, thr := range []float64{-1, -5e-324, math.NaN(), math.Inf(1), math.Inf(-1)} {
		mustPanic(t, "SoftThreshold", func() { vec.SoftThreshold(a, a, thr) })
		mustPanic(t, "SoftThreshold", func() { vec.SoftThreshold(nil, nil, thr) })
	}
	mustPanic(t, "AddScaledTo", func() { vec.AddScaledTo(a, a, 1, b) })
	mustPanic(t, "AddScaledTo", func() { vec.AddScaledTo(a, b, 1, a) })
	mustPanic(t, "AddScaledTo", func() { vec.AddScaledTo(b, a, 1, a) })
	mustPanic(t, "Sub", func() { vec.Sub(a, a, b) })
	mustPanic(t, "Sub", func() { vec.Sub(a, b, a) })
	mustPanic(t, "Sub", func() { vec.Sub(b, a, a) })
	m := make([]float64, 12)
	mustPanic(t, "MulVec", func() { vec.MulVec(a, m, 3, 3, a) }) // len(a) != rows*cols
	mustPanic(t, "MulVec", func() { vec.MulVec(a, m, 3, 4, a) }) // len(x) != cols
	mustPanic(t, "MulVec", func() { vec.MulVec(b, m, 3, 4, b) }) // len(dst) != rows
	mustPanic(t, "MulVec", func() { vec.MulVec(nil, nil, -1, 0, nil) })
	mustPanic(t, "MulTransVec", func() { vec.MulTransVec(b, m, 3, 4, b) }) // len(x) != rows
	mustPanic(t, "MulTransVec", func() { vec.MulTransVec(a, m, 3, 4, a) }) // len(dst) != cols
	mustPanic(t, "MulTransVec", func() { vec.MulTransVec(b, m, 4, 4, a) })
	mustPanic(t, "MulTransVec", func() { vec.MulTransVec(nil, nil, 0, -1, nil) })
	// rows*cols overflows to len(a) = 0; the check must not be fooled.
	mustPanic(t, "MulVec", func() { vec.MulVec(make([]float64, 4), nil, 4, math.MaxInt/2+1, nil) })
	phi := func(int, float64) float64 { return 0 }
	g3, g4 := make([]float64, 3), make([]float64, 4)
	mustPanic(t, "GradSweep", func() { vec.GradSweep(a, g4, m, 4, b, nil) })               // nil phi
	mustPanic(t, "GradSweep", func() { vec.GradSweep(a, g4, m, 3, a, phi) })               // len(a) != rows*cols
	mustPanic(t, "GradSweep", func() { vec.GradSweep(a, g4, m, 4, a, phi) })               // len(x) != cols
	mustPanic(t, "GradSweep", func() { vec.GradSweep(a, g3, m, 4, b, phi) })               // len(g) != cols
	mustPanic(t, "GradSweep", func() { vec.GradSweep(b, g4, m, 4, b, phi) })               // len(ax) != rows
	mustPanic(t, "GradSweep", func() { vec.GradSweep(nil, nil, nil, -1, nil, phi) })       // cols < 0
	mustPanic(t, "GradSweep", func() { vec.GradSweep(a[:0], g3[:0], m[:1], 0, nil, phi) }) // cols 0, a not empty
	// Every implementation's methods check the same way.
	for _, k := range vec.Implementations() {
		mustPanic(t, "Dot", func() { k.Dot(a, b) })
		mustPanic(t, "Axpy", func() { k.Axpy(1, a, b) })
		mustPanic(t, "SoftThreshold", func() { k.SoftThreshold(a, a, -1) })
		mustPanic(t, "AddScaledTo", func() { k.AddScaledTo(a, a, 1, b) })
		mustPanic(t, "Sub", func() { k.Sub(b, a, a) })
		mustPanic(t, "MulVec", func() { k.MulVec(a, m, 3, 3, a) })
		mustPanic(t, "MulTransVec", func() { k.MulTransVec(a, m, 3, 4, a) })
		mustPanic(t, "GradSweep", func() { k.GradSweep(a, g3, m, 4, b, phi) })
	}
	// Valid calls on empty slices do nothing and do not panic.
	if vec.Dot(nil, nil) != 0 || vec.Dot(a[:0], b[:0]) != 0 {
		t.Error("Dot of empty slices is not 0")
	}
	vec.Axpy(1, nil, nil)
	vec.SoftThreshold(nil, nil, 0)
	vec.AddScaledTo(nil, nil, 1, nil)
	vec.Sub(nil, nil, nil)
}

func TestAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		x, y, d := make([]float64, 1000), make([]float64, 1000), make([]float64, 1000)
		m := make([]float64, 50*20)
		tiny := []float64{1e-300, 1e-310, 0, 3e-301, 1e-300}
		fillNormal(rand.New(rand.NewPCG(1, 1)), x)
		checks := map[string]func(){
			"Dot":           func() { vec.Dot(x, y) },
			"Axpy":          func() { vec.Axpy(0.5, x, y) },
			"SoftThreshold": func() { vec.SoftThreshold(d, x, 0.5) },
			"Nrm2":          func() { vec.Nrm2(x) },
			"Nrm2 scaled":   func() { vec.Nrm2(tiny) },
			"Asum":          func() { vec.Asum(x) },
			"Scal":          func() { vec.Scal(1, y) },
			"AddScaledTo":   func() { vec.AddScaledTo(d, x, 0.5, y) },
			"Sub":           func() { vec.Sub(d, x, y) },
			"MulVec":        func() { vec.MulVec(d[:50], m, 50, 20, x[:20]) },
			"MulTransVec":   func() { vec.MulTransVec(d[:20], m, 50, 20, x[:50]) },
			// A closure that captures and updates a variable: it must not
			// escape to the heap through GradSweep.
			"GradSweep": func() {
				loss := 0.0
				vec.GradSweep(d[:50], y[:20], m, 20, x[:20], func(i int, v float64) float64 {
					loss += v * v
					return v
				})
				sink += loss
			},
		}
		for name, f := range checks {
			if a := testing.AllocsPerRun(10, f); a != 0 {
				t.Errorf("%s: %v allocations per run, want 0", name, a)
			}
		}
	})
}
