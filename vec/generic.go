package vec

import "math"

// Portable reference kernels: always compiled, so tests on every machine can
// compare the accelerated code against them, and the "generic"
// implementation wherever it runs (other architectures, the purego tag,
// CPUs without AVX2+FMA, and in tests on every machine).
// Loops are written so the compiler removes every bounds check: the
// "for len(x) >= 4" form lets it prove x[0..3] and x[4:] in range.

// dotGeneric returns sum x[i]*y[i] for len(y) >= len(x). Four independent
// partial sums hide the add latency (2x a single sum on amd64).
func dotGeneric(x, y []float64, _ level) float64 {
	var s0, s1, s2, s3 float64
	y = y[:len(x)]
	for len(x) >= 4 && len(y) >= 4 {
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		x, y = x[4:], y[4:]
	}
	y = y[:len(x)]
	for i := range x {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpyToGeneric sets dst[i] = alpha*x[i] + y[i]; x and y must be at least
// as long as dst. Each group of four is loaded before it is stored, so dst
// may be x or y. (The compiler fuses the multiply-add on arm64, ppc64 and
// s390x, not on amd64: both are correct, see Axpy.)
func axpyToGeneric(dst []float64, alpha float64, x, y []float64, _ level) {
	x, y = x[:len(dst)], y[:len(dst)]
	for len(dst) >= 4 && len(x) >= 4 && len(y) >= 4 {
		d0 := alpha*x[0] + y[0]
		d1 := alpha*x[1] + y[1]
		d2 := alpha*x[2] + y[2]
		d3 := alpha*x[3] + y[3]
		dst[0], dst[1], dst[2], dst[3] = d0, d1, d2, d3
		dst, x, y = dst[4:], x[4:], y[4:]
	}
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = alpha*x[i] + y[i]
	}
}

// softThresholdGeneric sets dst[i] = x[i] - c, c = min(max(x[i], -t), t),
// with the clamp done as in the assembly: c = x[i] unless x[i] < -t or
// x[i] > t, so NaN x[i] gives c = NaN and NaN out, and |x[i]| <= t gives
// x[i] - x[i] = +0 (also for -0, and for t = -0). x must be at least as
// long as dst. The two ifs on c's bits compile to conditional moves (CMOV,
// CSEL): no branch to mispredict, and 13 instructions per element on amd64
// where the built-in min and max, with their NaN and ±0 fix-ups, took 23.
// Measured on amd64 (BenchmarkSoftThreshold*, N(0,1) data, t = 0.5,
// n = 1024 and 4096, medians of 10): 1.3x the built-ins; 6x the branchy
// loop when each call gets new data, as a solver's iterates do, but only
// 1.1-1.2x when the same vector comes back every call, as the branch
// predictor then learns its pattern.
func softThresholdGeneric(dst, x []float64, t float64, _ level) {
	x = x[:len(dst)]
	tb, mtb := math.Float64bits(t), math.Float64bits(-t)
	for i, v := range x {
		c := math.Float64bits(v)
		if v < -t {
			c = mtb
		}
		if v > t {
			c = tb
		}
		dst[i] = v - math.Float64frombits(c)
	}
}

// sumSquaresGeneric returns sum x[i]^2, Nrm2's fast path.
func sumSquaresGeneric(x []float64, _ level) float64 { return dotGeneric(x, x, generic) }
