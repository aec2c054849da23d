// Package vec holds the dense float64 kernels every solver in this module is
// built on: Dot, Axpy and SoftThreshold in hand-written assembly (AVX2+FMA on
// amd64, NEON on arm64) with pure-Go fallbacks, and helpers built on them
// (Nrm2, Asum, Scal, AddScaledTo, Sub, MulVec, MulTransVec).
//
// The implementation is chosen once at start-up from golang.org/x/sys/cpu:
// "avx2" needs AVX2 and FMA, "neon" needs ASIMD, and everything else, the
// purego build tag, other compilers and GODEBUG=cpu.avx2=off, cpu.fma=off,
// cpu.asimd=off or cpu.all=off select "generic". Impl reports which one runs.
//
// Results agree across implementations to the rounding error bounds stated
// on each function, not bit for bit: the accelerated code fuses multiplies
// with adds and sums in a different order. NaN in gives NaN out on every
// path. SoftThreshold and Sub are exact and identical everywhere.
//
// Vectors are plain []float64; matrices are flat row-major slices with
// explicit rows and cols. Mismatched lengths are programmer errors and panic
// with the function's name in the message. No function allocates, and all
// are safe for concurrent use on slices that are not written concurrently.
package vec

import "math"

// Dot returns sum x[i]*y[i]. It panics if len(x) != len(y).
//
// The summation order is unspecified (the kernels keep several partial
// sums) and the accelerated paths fuse each multiply with its add, so the
// result may differ from a plain loop by the usual rounding error bound,
// n*u*sum|x[i]*y[i]| with u = 2^-53. Special cases are those of IEEE
// arithmetic:
//
//	Dot(nil, nil) = 0
//	Dot(x, y) = NaN if any x[i] or y[i] is NaN, or some x[i]*y[i] is 0*Inf
//	Dot(x, y) = NaN if it sums x[i]*y[i] = +Inf and x[j]*y[j] = -Inf
//	Dot(x, y) = ±Inf or NaN if finite products overflow; which one can
//	depend on the evaluation order
func Dot(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("vec.Dot: slices have different lengths")
	}
	return dot(x, y) // every kernel returns 0 for n = 0
}

// Axpy sets y[i] += alpha*x[i]. It panics if len(x) != len(y).
// y may be x. Each y[i] is either the fused result (alpha*x[i] + y[i]
// rounded once, as the accelerated paths compute it) or the unfused one
// (alpha*x[i] rounded first), so paths can differ by one rounding of
// alpha*x[i]. Special cases are those of IEEE arithmetic, e.g. y[i] = NaN
// if alpha*x[i] is 0*Inf.
func Axpy(alpha float64, x, y []float64) {
	if len(x) != len(y) {
		panic("vec.Axpy: slices have different lengths")
	}
	axpyTo(y, alpha, x, y)
}

// SoftThreshold sets dst[i] = sign(x[i])*max(|x[i]|-t, 0), the proximal
// operator of t*||.||_1: x[i] - t, x[i] + t (each rounded once) or 0, the
// same bits on every implementation.
// dst may be x; partial overlap gives unspecified results. It panics if
// len(dst) != len(x) or if t is negative, NaN or infinite.
//
// Special cases:
//
//	SoftThreshold(NaN) = NaN
//	SoftThreshold(±Inf) = ±Inf
//	SoftThreshold(x) = +0 for |x| <= t (also for x = -0)
func SoftThreshold(dst, x []float64, t float64) {
	if len(dst) != len(x) {
		panic("vec.SoftThreshold: slices have different lengths")
	}
	if !(t >= 0) || math.IsInf(t, 1) {
		panic("vec.SoftThreshold: threshold must be finite and non-negative")
	}
	softThreshold(dst, x, t)
}

// Impl returns the name of the kernel implementation in use: "avx2", "neon"
// or "generic".
func Impl() string {
	if accel {
		return accelName
	}
	return "generic"
}
