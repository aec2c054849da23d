package onebit

import (
	"math"
	"slices"
	"testing"
)

func TestHardThreshold(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		k    int
		want []float64
	}{
		{[]float64{1, -5, 3, 0.5}, 2, []float64{0, -5, 3, 0}},
		{[]float64{1, -5, 3, 0.5}, 4, []float64{1, -5, 3, 0.5}},
		{[]float64{1, -5, 3, 0.5}, 1, []float64{0, -5, 0, 0}},
		// Ties go to the lower index.
		{[]float64{2, -2, 2, 1}, 2, []float64{2, -2, 0, 0}},
		{[]float64{1, 3, -1, 1}, 2, []float64{1, 3, 0, 0}},
		{[]float64{0, 0, 0}, 2, []float64{0, 0, 0}},
	} {
		x := slices.Clone(c.x)
		hardThreshold(x, c.k, make([]float64, len(x)))
		if !slices.Equal(x, c.want) {
			t.Errorf("hardThreshold(%v, %d) = %v, want %v", c.x, c.k, x, c.want)
		}
	}
}

func TestSign(t *testing.T) {
	// A Go literal -0.0 is +0: the negative zero needs Copysign.
	negZero := math.Copysign(0, -1)
	if !math.Signbit(negZero) {
		t.Fatal("negZero is not a negative zero")
	}
	if sign(0) != 1 || sign(negZero) != 1 || sign(2) != 1 || sign(-1e-300) != -1 {
		t.Error("sign: want +1 for v >= 0 (also -0) and -1 below")
	}
	if v := sign(nan()); v == v {
		t.Error("sign(NaN) is not NaN")
	}
	if mismatches([]float64{0, -1, nan()}, []float64{1, 1, 1}) != 2 {
		t.Error("mismatches: a NaN must count as a disagreement")
	}
}

func nan() float64 { return math.NaN() }
