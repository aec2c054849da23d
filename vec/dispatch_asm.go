//go:build (amd64 || arm64) && gc && !purego

package vec

// Dispatch for the architectures with assembly. The kernels are in
// vec_amd64.s (AVX2+FMA) and vec_arm64.s (NEON); vec_amd64.go and
// vec_arm64.go decide hasAccel from the CPU features, once. Each kernel
// starts by testing accel and, when it is false, tail-jumps to the generic
// Go kernel: so dot, axpyTo and softThreshold below are one call, inlined
// into their callers. Tests flip accel through internal/testhook to run the
// accelerated and the generic path in one process.
var accel = hasAccel

// dotAsm returns sum x[i]*y[i] for len(y) >= len(x).
//
//go:noescape
func dotAsm(x, y []float64) float64

// axpyToAsm sets dst[i] = alpha*x[i] + y[i], fused (one rounding), for
// i < len(dst); x and y must be at least as long as dst. dst may be x or y.
//
//go:noescape
func axpyToAsm(dst []float64, alpha float64, x, y []float64)

// softThresholdAsm sets dst[i] = x[i] - min(max(x[i], -t), t) for
// i < len(dst); x must be at least as long as dst. dst may be x.
//
//go:noescape
func softThresholdAsm(dst, x []float64, t float64)

func dot(x, y []float64) float64                          { return dotAsm(x, y) }
func axpyTo(dst []float64, alpha float64, x, y []float64) { axpyToAsm(dst, alpha, x, y) }
func softThreshold(dst, x []float64, t float64)           { softThresholdAsm(dst, x, t) }
