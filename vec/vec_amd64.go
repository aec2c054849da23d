//go:build gc && !purego

package vec

import "golang.org/x/sys/cpu"

// The dispatch of the amd64 build: which implementations this CPU can run,
// decided once at start-up, and one small switch per kernel. The kernels
// are in avx512_amd64.s and avx2_amd64.s. Reading golang.org/x/sys/cpu
// (rather than assuming) makes GODEBUG=cpu.avx512f=off, cpu.avx2=off,
// cpu.fma=off and cpu.all=off step down.
//
// "avx2" needs AVX2 (256-bit float ops, VBROADCASTSD from a register) and
// FMA. "avx512" needs AVX-512F for the Z registers and opmasks, and AVX2
// and FMA too: its kernels finish their reductions with VEX instructions,
// and it reuses AVX2 kernels (x/sys/cpu also requires the OS to save the
// Z and opmask state).
var available = func() []level {
	var ls []level
	hasAVX2 := cpu.X86.HasAVX2 && cpu.X86.HasFMA
	if hasAVX2 && cpu.X86.HasAVX512F {
		ls = append(ls, avx512)
	}
	if hasAVX2 {
		ls = append(ls, avx2)
	}
	return append(ls, generic)
}()

// Which kernel each level runs. "avx512" uses the AVX-512 form of every
// kernel, except Dot on vectors in L2 (below). Measured on Zen 5 (full
// 512-bit datapaths), AVX-512 time over AVX2 time, medians of 300 rounds
// run back to back: Dot 0.55, Axpy 0.71, SoftThreshold 0.89, Nrm2 0.60,
// MulVec 0.63, MulTransVec 1.0 at n = 1024 (in L1; MulTransVec's 4-row
// passes over a 32-column dst are a latency chain at that size, 0.65 at
// 4096); 0.96-1.06 for every kernel once the data are in L3 or memory. On
// a core that splits 512-bit operations in two (Zen 4) the compute-bound
// gains shrink, the load-bound ones (Dot, Nrm2) remain.

// dotL2Min and dotL2Max bound the lengths at which the avx512 level runs
// dotAVX2: from 4096 to 24576 elements the two vectors (64 to 384 KB) live
// in L2 but not L1, and there dotAVX512 measured 5-21% slower than dotAVX2
// in the median (medians of 400 runs, n = 4096, 8192, 12288, 16384, 20480,
// 24576), though its fastest runs matched AVX2's: refilling L1 from L2, the
// 512-bit loop loses more often. Reordering its loads or prefetching did
// not help. Below 4096 dotAVX512 is up to 1.9x faster, above 24576 it
// leads by 3-5% or ties.
const (
	dotL2Min = 4096
	dotL2Max = 24576
)

func dot(l level, x, y []float64) float64 {
	switch l {
	case avx512:
		if n := len(x); n < dotL2Min || n > dotL2Max {
			return dotAVX512(x, y)
		}
		return dotAVX2(x, y)
	case avx2:
		return dotAVX2(x, y)
	}
	return dotGeneric(x, y)
}

func sumSquares(l level, x []float64) float64 {
	switch l {
	case avx512:
		return sumSquaresAVX512(x)
	case avx2:
		return sumSquaresAVX2(x)
	}
	return sumSquaresGeneric(x)
}

func axpyTo(l level, dst []float64, alpha float64, x, y []float64) {
	switch l {
	case avx512:
		axpyToAVX512(dst, alpha, x, y)
	case avx2:
		axpyToAVX2(dst, alpha, x, y)
	default:
		axpyToGeneric(dst, alpha, x, y)
	}
}

func softThreshold(l level, dst, x []float64, t float64) {
	switch l {
	case avx512:
		softThresholdAVX512(dst, x, t)
	case avx2:
		softThresholdAVX2(dst, x, t)
	default:
		softThresholdGeneric(dst, x, t)
	}
}

// mulVecBlocked computes the leading rows of dst = A x, four at a time,
// and returns how many it did (a multiple of 4; 0 on the generic level,
// which leaves every row to Dot).
func mulVecBlocked(l level, dst, a []float64, cols int, x []float64) int {
	r := len(dst) &^ 3
	if r == 0 || cols == 0 {
		return 0
	}
	switch l {
	case avx512:
		mulVec4AVX512(dst[:r], a, cols, x)
	case avx2:
		mulVec4AVX2(dst[:r], a, cols, x)
	default:
		return 0
	}
	return r
}

// mulTransVecBlocked adds the contribution of the leading rows of A to
// dst = A^T x, four at a time, and returns how many rows it did.
func mulTransVecBlocked(l level, dst, a []float64, cols int, x []float64) int {
	r := len(x) &^ 3
	if r == 0 || cols == 0 {
		return 0
	}
	switch l {
	case avx512:
		mulTransVec4AVX512(dst, a, cols, x[:r])
	case avx2:
		mulTransVec4AVX2(dst, a, cols, x[:r])
	default:
		return 0
	}
	return r
}

// pipelined reports whether level l has sweep1, GradSweep's row pipeline.
//
// Not on avx2: with half the register width its step needs twice the
// loads, and at 1000 x 1000 it measured slower than MulVec plus MulTransVec
// (1.07x their time), where groups of four rows are 1.1-1.2x faster.
func pipelined(l level) bool { return l == avx512 }

// sweep1 runs one step of GradSweep's row pipeline on level l (see
// sweep1AVX512); pipelined(l) must hold.
func sweep1(l level, g, a []float64, cols int, w float64, ax *float64, x []float64) {
	switch l {
	case avx512:
		sweep1AVX512(g, a, cols, w, ax, x)
	default:
		panic("vec: no GradSweep pipeline on " + levelNames[l])
	}
}

// The assembly kernels. Each takes slices that its caller has checked:
// y, x at least as long as the first (output or input) slice.

// dotAVX2 and dotAVX512 return sum x[i]*y[i] for len(y) >= len(x).
//
//go:noescape
func dotAVX2(x, y []float64) float64

//go:noescape
func dotAVX512(x, y []float64) float64

// sumSquaresAVX2 and sumSquaresAVX512 return sum x[i]^2.
//
//go:noescape
func sumSquaresAVX2(x []float64) float64

//go:noescape
func sumSquaresAVX512(x []float64) float64

// axpyToAVX2 and axpyToAVX512 set dst[i] = alpha*x[i] + y[i], fused (one
// rounding), for i < len(dst); dst may be x or y.
//
//go:noescape
func axpyToAVX2(dst []float64, alpha float64, x, y []float64)

//go:noescape
func axpyToAVX512(dst []float64, alpha float64, x, y []float64)

// softThresholdAVX2 and softThresholdAVX512 set dst[i] = x[i] -
// min(max(x[i], -t), t) for i < len(dst); dst may be x.
//
//go:noescape
func softThresholdAVX2(dst, x []float64, t float64)

//go:noescape
func softThresholdAVX512(dst, x []float64, t float64)

// mulVec4AVX2 and mulVec4AVX512 set dst[r] = a[r*cols:(r+1)*cols] . x for
// every r < len(dst), which must be a multiple of 4; len(x) = cols > 0.
//
//go:noescape
func mulVec4AVX2(dst, a []float64, cols int, x []float64)

//go:noescape
func mulVec4AVX512(dst, a []float64, cols int, x []float64)

// mulTransVec4AVX2 and mulTransVec4AVX512 add x[i]*a[i*cols:(i+1)*cols] to
// dst, fused and in row order, for every i < len(x), which must be a
// multiple of 4; len(dst) = cols > 0.
//
//go:noescape
func mulTransVec4AVX2(dst, a []float64, cols int, x []float64)

//go:noescape
func mulTransVec4AVX512(dst, a []float64, cols int, x []float64)

// sweep1AVX512 adds w*a[0:cols] to g, fused, and sets *ax = a[cols:2*cols]
// . x as mulVec4AVX512 computes each row, in one pass over the columns;
// len(a) >= 2*cols, cols = len(g) = len(x) > 0. It may prefetch (never
// load) a[2*cols:].
//
//go:noescape
func sweep1AVX512(g, a []float64, cols int, w float64, ax *float64, x []float64)
