//go:build !(amd64 || arm64) || purego || !gc

package vec

const accelName = "generic"

const hasAccel = false

var accel = hasAccel

func dot(x, y []float64) float64                { return dotGeneric(x, y) }
func axpy(alpha float64, x, y []float64)        { axpyGeneric(alpha, x, y) }
func softThreshold(dst, x []float64, t float64) { softThresholdGeneric(dst, x, t) }
