//go:build gc && !purego

package vec

import "golang.org/x/sys/cpu"

// The dispatch of the amd64 build: which implementations this CPU can run,
// decided once at start-up here, and the jump from a level to its kernel,
// in dispatch_amd64.s (with the table of which kernel each level runs).
// The kernels are in avx512_amd64.s and avx2_amd64.s. Reading
// golang.org/x/sys/cpu (rather than assuming) makes GODEBUG=cpu.avx512f=off,
// cpu.avx2=off, cpu.fma=off and cpu.all=off step down.
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

// Why the avx512 level runs the AVX-512 form of every kernel (with one
// exception, below): measured on Zen 5 (full 512-bit datapaths), AVX-512
// time over AVX2 time, medians of 300 rounds run back to back, two runs:
// at n = 1024 (in L1) Dot 0.53-0.55, Axpy 0.70-0.71, SoftThreshold
// 0.77-0.89, Nrm2 0.60-0.65, MulVec 0.63-0.87, MulTransVec 0.92-1.0 (its
// 4-row passes over a 32-column dst are a latency chain at that size; 0.63
// at 4096); 0.9-1.05 for every kernel once the data are in L3 or memory;
// in L2 (16 Ki) 0.95-1.1, varying from run to run; at n = 16 within 10%
// either way, the call's cost. On a core that splits 512-bit operations in
// two (Zen 4) the compute-bound gains shrink, the load-bound ones (Dot,
// Nrm2) remain.

// dotL2Min and dotL2Max bound the lengths at which the avx512 level runs
// dotAVX2 (the jump is in dispatch_amd64.s): from 4096 to 24576 elements
// the two vectors (64 to 384 KB) live in L2 but not L1, and there
// dotAVX512 measured 5-21% slower than dotAVX2 in the median (medians of
// 400 runs, n = 4096, 8192, 12288, 16384, 20480, 24576), though its
// fastest runs matched AVX2's: refilling L1 from L2, the 512-bit loop
// loses more often. Reordering its loads or prefetching did not help.
// Below 4096 dotAVX512 is up to 1.9x faster, above 24576 it leads by 3-5%
// or ties.
const (
	dotL2Min = 4096
	dotL2Max = 24576
)

// blocked reports whether level l has the 4-row matrix kernels mulVec4 and
// mulTransVec4.
func blocked(l level) bool { return l == avx512 || l == avx2 }

// pipelined reports whether level l has sweep1, GradSweep's row pipeline.
//
// Not on avx2: with half the register width its step needs twice the
// loads, and at 1000 x 1000 it measured slower than MulVec plus MulTransVec
// (1.07x their time), where groups of four rows are 1.1-1.2x faster.
func pipelined(l level) bool { return l == avx512 }

// sweep1 runs one step of GradSweep's row pipeline on level l (see
// sweep1AVX512); pipelined(l) must hold.
func sweep1(l level, g, a []float64, cols int, w float64, ax *float64, x []float64) {
	sweep1AVX512(g, a, cols, w, ax, x)
}

// grouped reports whether level l has sweep4, GradSweep's group pipeline.
//
// Not on avx2: there the plain groups of four already measured 1.3-2.0x
// (p10-p90; median 1.68-1.74) faster than MulVec plus MulTransVec at
// 4000 x 4000, whose AVX2 kernels run 5-15% below the streaming rate of
// A, while avx512's run at it; an AVX2 port of sweep4 measured 3-21%
// slower than the plain groups and was not kept.
func grouped(l level) bool { return l == avx512 }

// sweep4 runs one step of GradSweep's group pipeline on level l (see
// sweep4AVX512); grouped(l) must hold.
func sweep4(l level, g, a []float64, cols int, w, ax *[4]float64, x []float64) {
	sweep4AVX512(g, a, cols, w, ax, x)
}

// The dispatch stubs (dispatch_amd64.s): each runs level l's kernel with
// the other arguments. Their contracts are those of the kernels below.

//go:noescape
func dot(x, y []float64, l level) float64

//go:noescape
func sumSquares(x []float64, l level) float64

//go:noescape
func axpyTo(dst []float64, alpha float64, x, y []float64, l level)

//go:noescape
func softThreshold(dst, x []float64, t float64, l level)

//go:noescape
func mulVec4(dst, a []float64, cols int, x []float64, l level)

//go:noescape
func mulTransVec4(dst, a []float64, cols int, x []float64, l level)

// The assembly kernels. Each takes slices that its caller has checked, and
// the level last (unused: it is there so that the stubs can jump to the
// kernels with their arguments in place).

// dotAVX2 and dotAVX512 return sum x[i]*y[i] for len(y) >= len(x).
//
//go:noescape
func dotAVX2(x, y []float64, _ level) float64

//go:noescape
func dotAVX512(x, y []float64, _ level) float64

// sumSquaresAVX2 and sumSquaresAVX512 return sum x[i]^2.
//
//go:noescape
func sumSquaresAVX2(x []float64, _ level) float64

//go:noescape
func sumSquaresAVX512(x []float64, _ level) float64

// axpyToAVX2 and axpyToAVX512 set dst[i] = alpha*x[i] + y[i], fused (one
// rounding), for i < len(dst); x and y must be at least as long as dst,
// dst may be x or y.
//
//go:noescape
func axpyToAVX2(dst []float64, alpha float64, x, y []float64, _ level)

//go:noescape
func axpyToAVX512(dst []float64, alpha float64, x, y []float64, _ level)

// softThresholdAVX2 and softThresholdAVX512 set dst[i] = x[i] -
// min(max(x[i], -t), t) for i < len(dst); dst may be x.
//
//go:noescape
func softThresholdAVX2(dst, x []float64, t float64, _ level)

//go:noescape
func softThresholdAVX512(dst, x []float64, t float64, _ level)

// mulVec4AVX2 and mulVec4AVX512 set dst[r] = a[r*cols:(r+1)*cols] . x for
// every r < len(dst), which must be a multiple of 4; len(x) = cols > 0.
//
//go:noescape
func mulVec4AVX2(dst, a []float64, cols int, x []float64, _ level)

//go:noescape
func mulVec4AVX512(dst, a []float64, cols int, x []float64, _ level)

// mulTransVec4AVX2 and mulTransVec4AVX512 add x[i]*a[i*cols:(i+1)*cols] to
// dst, fused and in row order, for every i < len(x), which must be a
// multiple of 4; len(dst) = cols > 0.
//
//go:noescape
func mulTransVec4AVX2(dst, a []float64, cols int, x []float64, _ level)

//go:noescape
func mulTransVec4AVX512(dst, a []float64, cols int, x []float64, _ level)

// sweep1AVX512 adds w*a[0:cols] to g, fused, and sets *ax = a[cols:2*cols]
// . x as mulVec4AVX512 computes each row, in one pass over the columns;
// len(a) >= 2*cols, cols = len(g) = len(x) > 0. It may prefetch (never
// load) a[2*cols:].
//
//go:noescape
func sweep1AVX512(g, a []float64, cols int, w float64, ax *float64, x []float64)

// sweep4AVX512 adds w[r]*a[r*cols:(r+1)*cols] to g for r = 0..3 in that
// order, fused, as mulTransVec4AVX512 does one group, and sets ax[r] to
// a[(4+r)*cols:(5+r)*cols] . x as mulVec4AVX512 computes each row, in one
// pass over the columns; len(a) >= 8*cols, cols = len(g) = len(x) > 0.
//
//go:noescape
func sweep4AVX512(g, a []float64, cols int, w, ax *[4]float64, x []float64)
