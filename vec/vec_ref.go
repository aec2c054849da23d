//go:build !(amd64 || arm64) || purego || !gc

package vec

// The dispatch of the build sets without assembly (other architectures, the
// purego tag, compilers other than gc): the generic kernels only.

var available = []level{generic}

func dot(_ level, x, y []float64) float64                          { return dotGeneric(x, y) }
func sumSquares(_ level, x []float64) float64                      { return sumSquaresGeneric(x) }
func axpyTo(_ level, dst []float64, alpha float64, x, y []float64) { axpyToGeneric(dst, alpha, x, y) }
func softThreshold(_ level, dst, x []float64, t float64)           { softThresholdGeneric(dst, x, t) }

func mulVecBlocked(level, []float64, []float64, int, []float64) int      { return 0 }
func mulTransVecBlocked(level, []float64, []float64, int, []float64) int { return 0 }

// No GradSweep pipeline in this build: it runs Dot and Axpy on each row.
func pipelined(level) bool { return false }

func sweep1(l level, g, a []float64, cols int, w float64, ax *float64, x []float64) {
	panic("vec: no GradSweep pipeline on " + levelNames[l])
}
