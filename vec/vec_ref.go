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
