package onebit

import (
	"math"
	"testing"
)

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

// TestOneMagnitude checks the sign-matrix test that keeps the polish's
// dense product (see Solver.polish): zeros do not count, one other
// magnitude (of either sign) anywhere in the prefix read does.
func TestOneMagnitude(t *testing.T) {
	for _, c := range []struct {
		a    []float64
		want bool
	}{
		{nil, true},
		{[]float64{0, 0}, true},
		{[]float64{0.5, -0.5, 0, 0.5}, true},
		{[]float64{0, -0.25, 0.25}, true},
		{[]float64{0.5, -0.5, 0.5, 0.5000000000000001}, false},
		{[]float64{-1, 0, 2}, false},
	} {
		if got := oneMagnitude(c.a); got != c.want {
			t.Errorf("oneMagnitude(%v) = %v, want %v", c.a, got, c.want)
		}
	}
	in, p := rademacherFor(t, 40, 30, 3, 0, 1)
	if !p.signMatrix() {
		t.Error("a Rademacher matrix has one magnitude")
	}
	g, err := Generate(GenOptions{M: 40, N: 30, K: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewProblem(g.Phi, 40, 30, in.Y)
	if err != nil {
		t.Fatal(err)
	}
	if q.signMatrix() {
		t.Error("a Gaussian matrix has more than one magnitude")
	}
	// Only the prefix counts: a sign matrix with other magnitudes past it
	// passes (the polish then keeps its dense product, costing time only).
	big := make([]float64, signMatrixPrefix+10)
	for i := range big {
		big[i] = 0.5
	}
	big[signMatrixPrefix] = 3
	r, err := NewProblem(big, 1, len(big), []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if !r.signMatrix() {
		t.Error("the entries past the prefix must not count")
	}
	big[signMatrixPrefix-1] = 3
	if r.signMatrix() {
		t.Error("an entry of another magnitude in the prefix must count")
	}
}
