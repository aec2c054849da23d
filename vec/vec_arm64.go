//go:build gc && !purego

package vec

import "golang.org/x/sys/cpu"

// The dispatch of the arm64 build: which implementations this CPU can run,
// decided once at start-up, and one small switch per kernel. The kernels
// are in neon_arm64.s. ASIMD is architecturally required on arm64, but
// reading golang.org/x/sys/cpu lets GODEBUG=cpu.asimd=off (or cpu.all=off)
// select the generic code, as on amd64.
var available = func() []level {
	if cpu.ARM64.HasASIMD {
		return []level{neon, generic}
	}
	return []level{generic}
}()

func dot(l level, x, y []float64) float64 {
	if l == neon {
		return dotNEON(x, y)
	}
	return dotGeneric(x, y)
}

func sumSquares(l level, x []float64) float64 {
	if l == neon {
		return sumSquaresNEON(x)
	}
	return sumSquaresGeneric(x)
}

func axpyTo(l level, dst []float64, alpha float64, x, y []float64) {
	if l == neon {
		axpyToNEON(dst, alpha, x, y)
		return
	}
	axpyToGeneric(dst, alpha, x, y)
}

func softThreshold(l level, dst, x []float64, t float64) {
	if l == neon {
		softThresholdNEON(dst, x, t)
		return
	}
	softThresholdGeneric(dst, x, t)
}

// There are no blocked matrix-vector kernels for NEON: MulVec, MulTransVec
// and GradSweep run Dot and Axpy on each row.
func mulVecBlocked(level, []float64, []float64, int, []float64) int      { return 0 }
func mulTransVecBlocked(level, []float64, []float64, int, []float64) int { return 0 }

// The assembly kernels. Each takes slices that its caller has checked:
// y, x at least as long as the first (output or input) slice.

// dotNEON returns sum x[i]*y[i] for len(y) >= len(x).
//
//go:noescape
func dotNEON(x, y []float64) float64

// sumSquaresNEON returns sum x[i]^2.
//
//go:noescape
func sumSquaresNEON(x []float64) float64

// axpyToNEON sets dst[i] = alpha*x[i] + y[i], fused (one rounding), for
// i < len(dst); dst may be x or y.
//
//go:noescape
func axpyToNEON(dst []float64, alpha float64, x, y []float64)

// softThresholdNEON sets dst[i] = x[i] - min(max(x[i], -t), t) for
// i < len(dst); dst may be x.
//
//go:noescape
func softThresholdNEON(dst, x []float64, t float64)

// No GradSweep pipeline in this build: it runs Dot and Axpy on each row.
func pipelined(level) bool { return false }

func sweep1(l level, g, a []float64, cols int, w float64, ax *float64, x []float64) {
	panic("vec: no GradSweep pipeline on " + levelNames[l])
}
