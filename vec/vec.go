// Package vec holds the dense float64 kernels every solver in this module is
// built on: Dot, Axpy and SoftThreshold in hand-written assembly (AVX2+FMA on
// amd64, NEON on arm64) with pure-Go fallbacks, and helpers built on them.
//
// The implementation is chosen once at start-up from golang.org/x/sys/cpu, so
// GODEBUG=cpu.avx2=off (or cpu.all=off) and the purego build tag select the
// generic code. Impl reports which one runs.
//
// Vectors are plain []float64; matrices are flat row-major slices with
// explicit rows and cols. Mismatched lengths are programmer errors and panic
// with the function's name in the message.
package vec

import "math"

// Dot returns sum x[i]*y[i]. It panics if len(x) != len(y).
//
// Special cases are those of IEEE arithmetic:
//
//	Dot(nil, nil) = 0
//	Dot(x, y) = NaN if any x[i] or y[i] is NaN, or a product is 0*Inf
//	Dot(x, y) = NaN if products of opposite infinite sign are summed
func Dot(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("vec.Dot: slices have different lengths")
	}
	if len(x) == 0 {
		return 0
	}
	return dot(x, y)
}

// Axpy sets y[i] += alpha*x[i]. It panics if len(x) != len(y).
// The accelerated paths use a fused multiply-add, so results may differ from
// the generic path by one rounding of alpha*x[i].
func Axpy(alpha float64, x, y []float64) {
	if len(x) != len(y) {
		panic("vec.Axpy: slices have different lengths")
	}
	if len(x) == 0 {
		return
	}
	axpy(alpha, x, y)
}

// SoftThreshold sets dst[i] = sign(x[i])*max(|x[i]|-t, 0), the proximal
// operator of t*||.||_1. dst may be x. It panics if len(dst) != len(x) or if
// t is negative, NaN or infinite.
//
// Special cases:
//
//	SoftThreshold(NaN) = NaN
//	SoftThreshold(±Inf) = ±Inf
//	SoftThreshold(x) = 0 for |x| <= t (the sign of the zero is unspecified)
func SoftThreshold(dst, x []float64, t float64) {
	if len(dst) != len(x) {
		panic("vec.SoftThreshold: slices have different lengths")
	}
	if !(t >= 0) || math.IsInf(t, 1) {
		panic("vec.SoftThreshold: threshold must be finite and non-negative")
	}
	if len(x) == 0 {
		return
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
