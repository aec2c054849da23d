//go:build !amd64 || purego || !gc

package vec

// Only the amd64 assembly has blocked matrix kernels and GradSweep
// pipelines. Elsewhere (NEON, and the generic build) MulVec, MulTransVec
// and GradSweep run Dot and Axpy on each row, and these are never called.
func blocked(level) bool   { return false }
func pipelined(level) bool { return false }
func grouped(level) bool   { return false }

func mulVec4(dst, a []float64, cols int, x []float64, l level) {
	panic("vec: no 4-row kernels on " + levelNames[l])
}

func mulTransVec4(dst, a []float64, cols int, x []float64, l level) {
	panic("vec: no 4-row kernels on " + levelNames[l])
}

func sweep1(l level, g, a []float64, cols int, w float64, ax *float64, x []float64) {
	panic("vec: no GradSweep pipeline on " + levelNames[l])
}

func sweep4(l level, g, a []float64, cols int, w, ax *[4]float64, x []float64) {
	panic("vec: no GradSweep group pipeline on " + levelNames[l])
}
