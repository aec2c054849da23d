package vec

import "github.com/neadmm/neadmm/internal/testhook"

// Portable reference kernels: always compiled, so tests on every machine can
// compare the accelerated code against them.

func dotGeneric(x, y []float64) float64 {
	var s0, s1, s2, s3 float64
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func axpyGeneric(alpha float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

func softThresholdGeneric(dst, x []float64, t float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		// v - clamp(v, -t, t), written so NaN propagates: comparisons with
		// NaN are false, so c stays NaN.
		c := v
		if c < -t {
			c = -t
		}
		if c > t {
			c = t
		}
		dst[i] = v - c
	}
}

func init() {
	testhook.VecGeneric = func(generic bool) bool {
		accel = hasAccel && !generic
		return hasAccel
	}
}
