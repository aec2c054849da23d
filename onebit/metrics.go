package onebit

import (
	"fmt"
	"math"
)

// AngularError returns the angle between x and xhat as a fraction of pi,
//
//	arccos(<x, xhat> / (||x|| ||xhat||)) / pi,
//
// in [0, 1]: 0 for the same direction, 1/2 for orthogonal vectors, 1 for
// opposite ones. It is computed as 2 atan2(||a - b||, ||a + b||)/pi with
// the unit vectors a = x/||x||, b = xhat/||xhat|| (Kahan's formula), which
// equals the arccos of the clamped cosine but stays accurate for nearly
// parallel or opposite vectors, where arccos loses half the digits. It
// panics if the lengths differ.
//
// Special cases:
//
//	AngularError(x, xhat) = NaN if x or xhat is zero or holds a NaN or ±Inf
func AngularError(x, xhat []float64) float64 {
	d, s := diffSum("AngularError", x, xhat)
	return 2 * math.Atan2(d, s) / math.Pi
}

// SNR returns the reconstruction signal-to-noise ratio in dB of the unit
// vectors along x and xhat,
//
//	20 log10(1 / ||x/||x|| - xhat/||xhat|| ||),
//
// about -6 dB for opposite vectors and 0 dB at an angle of pi/3. It panics
// if the lengths differ.
//
// Special cases:
//
//	SNR(x, xhat) = +Inf if the unit vectors are equal
//	SNR(x, xhat) = NaN if x or xhat is zero or holds a NaN or ±Inf
func SNR(x, xhat []float64) float64 {
	d, _ := diffSum("SNR", x, xhat)
	return -20 * math.Log10(d)
}

// diffSum returns ||a - b|| and ||a + b|| for the unit vectors a, b along x
// and y, or NaNs if either is zero or not finite.
func diffSum(fn string, x, y []float64) (d, s float64) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("onebit.%s: len(x) = %d, len(xhat) = %d", fn, len(x), len(y)))
	}
	px, nx, okx := unitScale(x)
	py, ny, oky := unitScale(y)
	if !okx || !oky {
		return math.NaN(), math.NaN()
	}
	for i := range x {
		a, b := x[i]*px/nx, y[i]*py/ny
		d += (a - b) * (a - b)
		s += (a + b) * (a + b)
	}
	return math.Sqrt(d), math.Sqrt(s)
}

// unitScale returns a power of two pre and the norm nrm of pre*x such that
// the unit vector along x is (pre*x_i)/nrm, without overflow or a
// subnormal norm (normScale's scaling; x is not modified). ok is false for
// a zero x or one holding a NaN or ±Inf.
func unitScale(x []float64) (pre, nrm float64, ok bool) {
	nrm, pre, ok = normScale(x)
	if !ok || pre == 1 {
		return pre, nrm, ok
	}
	sq := 0.0
	for _, v := range x {
		t := v * pre
		sq += t * t
	}
	return pre, math.Sqrt(sq), true
}
