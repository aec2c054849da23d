//go:build gc && !purego

package vec

import "golang.org/x/sys/cpu"

// The dispatch of the arm64 build: which implementations this CPU can run,
// decided once at start-up here, and the jump from a level to its kernel,
// in dispatch_arm64.s. The kernels are in neon_arm64.s. ASIMD is architecturally required on arm64, but
// reading golang.org/x/sys/cpu lets GODEBUG=cpu.asimd=off (or cpu.all=off)
// select the generic code, as on amd64.
var available = func() []level {
	if cpu.ARM64.HasASIMD {
		return []level{neon, generic}
	}
	return []level{generic}
}()

// The dispatch stubs (dispatch_arm64.s): each runs level l's kernel with
// the other arguments. Their contracts are those of the kernels below.

//go:noescape
func dot(x, y []float64, l level) float64

//go:noescape
func sumSquares(x []float64, l level) float64

//go:noescape
func axpyTo(dst []float64, alpha float64, x, y []float64, l level)

//go:noescape
func softThreshold(dst, x []float64, t float64, l level)

// The assembly kernels. Each takes slices that its caller has checked, and
// the level last (unused: it is there so that the stubs can jump to the
// kernels with their arguments in place).

// dotNEON returns sum x[i]*y[i] for len(y) >= len(x).
//
//go:noescape
func dotNEON(x, y []float64, _ level) float64

// sumSquaresNEON returns sum x[i]^2.
//
//go:noescape
func sumSquaresNEON(x []float64, _ level) float64

// axpyToNEON sets dst[i] = alpha*x[i] + y[i], fused (one rounding), for
// i < len(dst); x and y must be at least as long as dst, dst may be x or
// y.
//
//go:noescape
func axpyToNEON(dst []float64, alpha float64, x, y []float64, _ level)

// softThresholdNEON sets dst[i] = x[i] - min(max(x[i], -t), t) for
// i < len(dst); dst may be x.
//
//go:noescape
func softThresholdNEON(dst, x []float64, t float64, _ level)
