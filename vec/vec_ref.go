//go:build !(amd64 || arm64) || purego || !gc

package vec

// The dispatch of the build sets without assembly (other architectures, the
// purego tag, compilers other than gc): the generic kernels only.

var available = []level{generic}

func dot(x, y []float64, l level) float64     { return dotGeneric(x, y, l) }
func sumSquares(x []float64, l level) float64 { return sumSquaresGeneric(x, l) }
func axpyTo(dst []float64, alpha float64, x, y []float64, l level) {
	axpyToGeneric(dst, alpha, x, y, l)
}
func softThreshold(dst, x []float64, t float64, l level) { softThresholdGeneric(dst, x, t, l) }

// No blocked matrix kernels and no GradSweep pipeline: MulVec,
// MulTransVec and GradSweep run Dot and Axpy on each row.
func blocked(level) bool   { return false }
func pipelined(level) bool { return false }

func mulVec4(dst, a []float64, cols int, x []float64, l level) {
	panic("vec: no 4-row kernels on " + levelNames[l])
}

func mulTransVec4(dst, a []float64, cols int, x []float64, l level) {
	panic("vec: no 4-row kernels on " + levelNames[l])
}

func sweep1(l level, g, a []float64, cols int, w float64, ax *float64, x []float64) {
	panic("vec: no GradSweep pipeline on " + levelNames[l])
}
