package onebit_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/neadmm/neadmm/onebit"
)

func TestMetrics(t *testing.T) {
	x := []float64{3, 4, 0}
	for _, c := range []struct {
		xhat     []float64
		ang, snr float64
	}{
		{[]float64{6, 8, 0}, 0, math.Inf(1)},            // same direction
		{[]float64{-3, -4, 0}, 1, -20 * math.Log10(2)},  // opposite: ||a - b|| = 2
		{[]float64{0, 0, 7}, 0.5, -10 * math.Log10(2)},  // orthogonal: ||a - b|| = sqrt 2
		{[]float64{4, -3, 0}, 0.5, -10 * math.Log10(2)}, // orthogonal in the plane
	} {
		if a := onebit.AngularError(x, c.xhat); math.Abs(a-c.ang) > 1e-15 {
			t.Errorf("AngularError(%v) = %v, want %v", c.xhat, a, c.ang)
		}
		if s := onebit.SNR(x, c.xhat); s != c.snr && math.Abs(s-c.snr) > 1e-13 {
			t.Errorf("SNR(%v) = %v, want %v", c.xhat, s, c.snr)
		}
	}
	// Nearly parallel: the angle between (1, d) and (1, 0) is atan(d), far
	// below what arccos of the cosine can resolve (about 1e-8).
	d := 1e-12
	if a := onebit.AngularError([]float64{1, d}, []float64{1, 0}); math.Abs(a-math.Atan(d)/math.Pi) > 1e-6*a {
		t.Errorf("tiny angle: %v, want %v", a, math.Atan(d)/math.Pi)
	}
	// SNR of a small angle theta: -20 log10(2 sin(theta/2)).
	th := 0.01
	if s := onebit.SNR([]float64{1, 0}, []float64{math.Cos(th), math.Sin(th)}); math.Abs(s+20*math.Log10(2*math.Sin(th/2))) > 1e-9 {
		t.Errorf("SNR at angle 0.01: %v", s)
	}
	for _, bad := range [][]float64{{0, 0, 0}, {math.NaN(), 1, 0}, {math.Inf(1), 0, 0}} {
		if a, s := onebit.AngularError(x, bad), onebit.SNR(bad, x); !math.IsNaN(a) || !math.IsNaN(s) {
			t.Errorf("%v: AngularError %v, SNR %v, want NaN", bad, a, s)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("AngularError with different lengths did not panic")
		}
	}()
	onebit.AngularError(x, x[:2])
}

// TestMetricsRange guards AngularError and SNR on finite non-zero vectors
// whose norm overflows (it gave NaN, which the docs reserve for a zero or
// non-finite input) or is subnormal (x/||x|| was not a unit vector: a
// wrong angle, 0.108 for two parallel vectors). The unit vectors are
// formed after an exact power-of-two scaling, so parallel vectors give an
// angle of 0 exactly here (both unit vectors round to the same numbers)
// and an SNR of +Inf; the tolerance of 1e-15 on the others allows the
// last bits of the normalization.
func TestMetricsRange(t *testing.T) {
	const big = math.MaxFloat64
	for _, c := range []struct {
		x, xhat []float64
		ang     float64
	}{
		{[]float64{big, big}, []float64{1, 1}, 0},
		{[]float64{5e-324, 5e-324}, []float64{1, 1}, 0},
		{[]float64{3e-320, 4e-320}, []float64{3, 4}, 0},
		{[]float64{big, -big}, []float64{1, 1}, 0.5},
		{[]float64{-big, -big}, []float64{5e-324, 5e-324}, 1},
		{[]float64{big, 0}, []float64{5e-324, 5e-324}, 0.25},
	} {
		a := onebit.AngularError(c.x, c.xhat)
		if c.ang == 0 {
			if a != 0 {
				t.Errorf("AngularError(%v, %v) = %v, want 0", c.x, c.xhat, a)
			}
			if s := onebit.SNR(c.x, c.xhat); !math.IsInf(s, 1) {
				t.Errorf("SNR(%v, %v) = %v, want +Inf", c.x, c.xhat, s)
			}
			continue
		}
		if math.Abs(a-c.ang) > 1e-15 {
			t.Errorf("AngularError(%v, %v) = %v, want %v", c.x, c.xhat, a, c.ang)
		}
		// ||a - b|| = 2 sin(pi*ang/2) for unit vectors at the angle pi*ang.
		want := -20 * math.Log10(2*math.Sin(math.Pi*c.ang/2))
		if s := onebit.SNR(c.x, c.xhat); math.Abs(s-want) > 1e-13 {
			t.Errorf("SNR(%v, %v) = %v, want %v", c.x, c.xhat, s, want)
		}
	}
	// Zero and non-finite inputs are still NaN.
	for _, bad := range [][]float64{{0, 0}, {big, math.Inf(1)}, {math.NaN(), big}} {
		assert.True(t, math.IsNaN(onebit.AngularError(bad, []float64{1, 1})), "%v", bad)
		assert.True(t, math.IsNaN(onebit.SNR([]float64{1, 1}, bad)), "%v", bad)
	}
}
