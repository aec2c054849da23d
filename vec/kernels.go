package vec

import (
	"math"
	_ "unsafe" // for the linkname of setImpl
)

// level names one implementation of the kernels. The dispatch functions of
// each build set (vec_amd64.go, vec_arm64.go, vec_ref.go) switch on it.
type level uint8

const (
	generic level = iota // the portable Go code in generic.go
	avx2                 // AVX2 + FMA, avx2_amd64.s
	avx512               // AVX-512F, avx512_amd64.s (and AVX2 kernels where faster)
	neon                 // ASIMD, neon_arm64.s
	numLevels
)

var levelNames = [numLevels]string{generic: "generic", avx2: "avx2", avx512: "avx512", neon: "neon"}

// Kernels is the kernel set of one implementation (see Implementations).
// Its methods do what the package functions of the same name do, with the
// same contracts, error bounds and panics, on that implementation instead of
// the one chosen at start-up. A Kernels value is immutable and safe for
// concurrent use, so code can time or compare implementations side by side
// without switching anything process-wide. The zero Kernels is the generic
// implementation.
//
// Asum and Scal are the same Go code on every implementation and so have no
// method.
type Kernels struct{ l level }

// active is what the package functions run: the best implementation this
// CPU has, chosen once at start-up (tests switch it with setImpl).
var active = Kernels{available[0]}

// Impl returns the name of the implementation the package functions use:
// "avx512", "avx2", "neon" or "generic".
func Impl() string { return active.Name() }

// Implementations returns the kernel sets this build can run on this CPU,
// the one the package functions use first and "generic" last: on amd64
// with AVX-512F "avx512", "avx2", "generic"; with AVX2 and FMA only "avx2",
// "generic"; on arm64 "neon", "generic"; elsewhere, with the purego build
// tag, or with the CPU features turned off by GODEBUG (cpu.avx512f=off,
// cpu.avx2=off, cpu.fma=off, cpu.asimd=off, cpu.all=off) the list shrinks
// accordingly. The slice is new on each call.
func Implementations() []Kernels {
	ks := make([]Kernels, len(available))
	for i, l := range available {
		ks[i] = Kernels{l}
	}
	return ks
}

// Lookup returns the kernel set of the named implementation and true, or
// the zero Kernels and false if this build cannot run it on this CPU.
func Lookup(name string) (Kernels, bool) {
	for _, l := range available {
		if levelNames[l] == name {
			return Kernels{l}, true
		}
	}
	return Kernels{}, false
}

// Name returns the implementation's name, as Impl reports it.
func (k Kernels) Name() string { return levelNames[k.l] }

// setImpl makes the package functions use the named implementation until
// the returned function restores the previous one; ok is false, and nothing
// changes, if this CPU cannot run it. It exists for tests only (this
// package's, and other packages' through internal/vectest, which reaches it
// with linkname so that no production binary links a switch): calling it
// while kernels run on other goroutines is a data race.
//
//go:linkname setImpl
func setImpl(name string) (restore func(), ok bool) {
	k, ok := Lookup(name)
	if !ok {
		return func() {}, false
	}
	prev := active
	active = k
	return func() { active = prev }, true
}

// Dot is Dot on k's implementation.
func (k Kernels) Dot(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("vec.Dot: slices have different lengths")
	}
	return dot(x, y, k.l) // every kernel returns 0 for n = 0
}

// Axpy is Axpy on k's implementation.
func (k Kernels) Axpy(alpha float64, x, y []float64) {
	if len(x) != len(y) {
		panic("vec.Axpy: slices have different lengths")
	}
	if partialOverlap(y, x) {
		panic("vec.Axpy: y partially overlaps x")
	}
	axpyTo(y, alpha, x, y, k.l)
}

// SoftThreshold is SoftThreshold on k's implementation.
func (k Kernels) SoftThreshold(dst, x []float64, t float64) {
	if len(dst) != len(x) {
		panic("vec.SoftThreshold: slices have different lengths")
	}
	if !(t >= 0) || math.IsInf(t, 1) {
		panic("vec.SoftThreshold: threshold must be finite and non-negative")
	}
	if partialOverlap(dst, x) {
		panic("vec.SoftThreshold: dst partially overlaps x")
	}
	softThreshold(dst, x, t, k.l)
}

// AddScaledTo is AddScaledTo on k's implementation.
func (k Kernels) AddScaledTo(dst, y []float64, alpha float64, x []float64) {
	if len(x) != len(dst) || len(y) != len(dst) {
		panic("vec.AddScaledTo: slices have different lengths")
	}
	switch {
	case partialOverlap(dst, x):
		panic("vec.AddScaledTo: dst partially overlaps x")
	case partialOverlap(dst, y):
		panic("vec.AddScaledTo: dst partially overlaps y")
	}
	axpyTo(dst, alpha, x, y, k.l)
}

// Sub is Sub on k's implementation.
func (k Kernels) Sub(dst, x, y []float64) {
	if len(x) != len(dst) || len(y) != len(dst) {
		panic("vec.Sub: slices have different lengths")
	}
	switch {
	case partialOverlap(dst, x):
		panic("vec.Sub: dst partially overlaps x")
	case partialOverlap(dst, y):
		panic("vec.Sub: dst partially overlaps y")
	}
	// x + (-1)*y: the product is exact, so fused or not there is exactly
	// one rounding, that of x - y.
	axpyTo(dst, -1, y, x, k.l)
}

// Nrm2 is Nrm2 on k's implementation.
func (k Kernels) Nrm2(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	// Fast path: one pass. All terms are non-negative, so a finite sum
	// means no partial sum or product overflowed; NaN means a NaN input
	// (squares and sums of non-negative values cannot make one).
	s := sumSquares(x, k.l)
	if s >= nrm2FastMin && s <= math.MaxFloat64 {
		return math.Sqrt(s)
	}
	if s != s {
		return math.NaN()
	}
	return nrm2Scaled(x)
}

// matrixOK reports whether a holds an m x cols row-major matrix, without
// the overflow of m*cols.
func matrixOK(a []float64, m, cols int) bool {
	if m < 0 || cols < 0 {
		return false
	}
	if cols == 0 {
		return len(a) == 0
	}
	return len(a)%cols == 0 && len(a)/cols == m
}

// MulVec is MulVec on k's implementation.
func (k Kernels) MulVec(dst, a []float64, rows, cols int, x []float64) {
	if !matrixOK(a, rows, cols) || len(x) != cols || len(dst) != rows {
		panic("vec.MulVec: dimension mismatch")
	}
	switch {
	case overlap(dst, a):
		panic("vec.MulVec: dst overlaps a")
	case overlap(dst, x):
		panic("vec.MulVec: dst overlaps x")
	}
	mulVec(k.l, dst, a, cols, x)
}

// MulTransVec is MulTransVec on k's implementation.
func (k Kernels) MulTransVec(dst, a []float64, rows, cols int, x []float64) {
	if !matrixOK(a, rows, cols) || len(x) != rows || len(dst) != cols {
		panic("vec.MulTransVec: dimension mismatch")
	}
	switch {
	case overlap(dst, a):
		panic("vec.MulTransVec: dst overlaps a")
	case overlap(dst, x):
		panic("vec.MulTransVec: dst overlaps x")
	}
	clear(dst)
	mulTransVecAdd(k.l, dst, a, cols, x)
}

// mulVec sets dst = A x for the len(dst) x cols matrix a: the blocked
// kernel for the leading rows (a multiple of 4, where the implementation
// has one), Dot for the rest. With cols == 0 every dot product is empty and
// dst is set to zero.
func mulVec(l level, dst, a []float64, cols int, x []float64) {
	for i := mulVecBlocked(l, dst, a, cols, x); i < len(dst); i++ {
		dst[i] = dot(a[i*cols:(i+1)*cols], x, l)
	}
}

// mulTransVecAdd adds A^T x to dst for the len(x) x len(dst) matrix a, rows
// in order: the blocked kernel for the leading rows, Axpy for the rest.
func mulTransVecAdd(l level, dst, a []float64, cols int, x []float64) {
	if cols == 0 {
		return
	}
	for i := mulTransVecBlocked(l, dst, a, cols, x); i < len(x); i++ {
		axpyTo(dst, x[i], a[i*cols:(i+1)*cols], dst, l)
	}
}

// mulVecBlocked computes the leading rows of dst = A x, four at a time,
// and returns how many it did (a multiple of 4; 0 where the level has no
// blocked kernels, which leaves every row to Dot).
func mulVecBlocked(l level, dst, a []float64, cols int, x []float64) int {
	r := len(dst) &^ 3
	if !blocked(l) || r == 0 || cols == 0 {
		return 0
	}
	mulVec4(dst[:r], a, cols, x, l)
	return r
}

// mulTransVecBlocked adds the contribution of the leading rows of A to
// dst = A^T x, four at a time, and returns how many rows it did.
func mulTransVecBlocked(l level, dst, a []float64, cols int, x []float64) int {
	r := len(x) &^ 3
	if !blocked(l) || r == 0 || cols == 0 {
		return 0
	}
	mulTransVec4(dst, a, cols, x[:r], l)
	return r
}
