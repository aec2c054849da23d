// Package vec holds the dense float64 kernels every solver in this module is
// built on: Dot, Axpy, SoftThreshold, Nrm2, MulVec, MulTransVec and
// GradSweep in hand-written assembly (AVX-512 and AVX2+FMA on amd64, NEON
// on arm64) with pure-Go fallbacks, and helpers built on them (Asum, Scal,
// AddScaledTo, Sub).
//
// # Implementations
//
// The package functions run the best implementation the CPU has, chosen
// once at start-up from golang.org/x/sys/cpu:
//
//	"avx512"   amd64 with AVX-512F, AVX2 and FMA
//	"avx2"     amd64 with AVX2 and FMA
//	"neon"     arm64 (ASIMD)
//	"generic"  everything else, the purego build tag and compilers other than gc
//
// GODEBUG steps down: cpu.avx512f=off selects "avx2"; cpu.avx2=off,
// cpu.fma=off, cpu.asimd=off or cpu.all=off select "generic". Impl reports
// the choice. Implementations lists every implementation this CPU can run
// and Lookup returns one by name, as a Kernels value whose methods are the
// package functions on that implementation: benchmarks and differential
// tests use them side by side, without a process-wide switch.
//
// Results agree across implementations to the rounding error bounds stated
// on each function, not bit for bit: the accelerated code fuses multiplies
// with adds and sums in a different order. NaN in gives NaN out on every
// path. SoftThreshold and Sub are exact and identical everywhere.
//
// Vectors are plain []float64; matrices are flat row-major slices with
// explicit rows and cols. Mismatched lengths are programmer errors and panic
// with the function's name in the message, as do overlapping arguments: an
// elementwise output may be one of its inputs exactly (Axpy(alpha, x, x),
// Sub(x, x, y)), and inputs may share memory with each other, but any other
// sharing between an output and an input panics before anything is written,
// on every implementation (each function's doc lists its cases; the check
// compares addresses, whatever the length). No function allocates, and all
// are safe for concurrent use on slices that are not written concurrently.
package vec

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
//
// Aliasing (x and y are only read):
//
//	Dot(x, x) = sum x[i]^2, and x and y may overlap in any way
func Dot(x, y []float64) float64 { return active.Dot(x, y) }

// Axpy sets y[i] += alpha*x[i]. It panics if len(x) != len(y), or if y
// overlaps x other than as x itself. Each y[i] is either the fused result
// (alpha*x[i] + y[i] rounded once, as the accelerated paths compute it) or
// the unfused one (alpha*x[i] rounded first), so paths can differ by one
// rounding of alpha*x[i]. Special cases are those of IEEE arithmetic, e.g.
// y[i] = NaN if alpha*x[i] is 0*Inf.
//
// Aliasing:
//
//	Axpy(alpha, x, x) = Axpy(alpha, c, x) with c a copy of x, bit for bit
//	Axpy(alpha, x, y) panics if y overlaps x in any other way
func Axpy(alpha float64, x, y []float64) { active.Axpy(alpha, x, y) }

// SoftThreshold sets dst[i] = sign(x[i])*max(|x[i]|-t, 0), the proximal
// operator of t*||.||_1: x[i] - t, x[i] + t (each rounded once) or 0, the
// same bits on every implementation. It panics if len(dst) != len(x), if
// t is negative, NaN or infinite, or if dst overlaps x other than as x
// itself.
//
// Special cases:
//
//	SoftThreshold(NaN) = NaN
//	SoftThreshold(±Inf) = ±Inf
//	SoftThreshold(x) = +0 for |x| <= t (also for x = -0)
//
// Aliasing:
//
//	SoftThreshold(x, x, t) = SoftThreshold(x, c, t) with c a copy of x
//	SoftThreshold(dst, x, t) panics if dst overlaps x in any other way
func SoftThreshold(dst, x []float64, t float64) { active.SoftThreshold(dst, x, t) }
