//go:build !(amd64 || arm64) || purego || !gc

package vec

// No assembly in this build (another architecture, the purego tag or a
// compiler other than gc): every kernel is the generic one and the test
// hook has nothing to switch.

const accelName = "generic"

const hasAccel = false

var accel = hasAccel

func dot(x, y []float64) float64                          { return dotGeneric(x, y) }
func axpyTo(dst []float64, alpha float64, x, y []float64) { axpyToGeneric(dst, alpha, x, y) }
func softThreshold(dst, x []float64, t float64)           { softThresholdGeneric(dst, x, t) }

func mulVecBlocked(dst, a []float64, cols int, x []float64) int      { return 0 }
func mulTransVecBlocked(dst, a []float64, cols int, x []float64) int { return 0 }
