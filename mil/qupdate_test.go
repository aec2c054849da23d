package mil

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// qGrad is the derivative of w*log(1 + exp(-s*q)) + rho/2*(q - c)^2 in q,
// and a bound on its rounding error at q.
func qGrad(s, w, rho, c, q float64) (g, errBound float64) {
	_, sn := sigmoids(s * q)
	g = rho*(q-c) - s*w*sn
	return g, 8 * epsilon * (rho*(math.Abs(q)+math.Abs(c)) + w*sn)
}

// TestLogisticProxRoot checks that logisticProx returns the root of the
// stationarity condition to machine precision: the derivative at q is zero
// within its own rounding error, and it changes sign (beyond rounding)
// within a few ulps on either side.
func TestLogisticProxRoot(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 20000 {
		s := 1.0
		if n%2 == 0 {
			s = -1
		}
		w := math.Exp(4 * r.NormFloat64())
		rho := math.Exp(6 * r.NormFloat64())
		// float64() rounds the product: without it the compiler may fuse
		// it into later expressions (q - c as an FMA on arm64).
		c := float64(r.NormFloat64() * math.Exp(3*r.NormFloat64()))
		q0 := c + r.NormFloat64()*w/rho // a warm start, inside or outside the bracket
		q := logisticProx(s, w, rho, c, q0)
		g, eb := qGrad(s, w, rho, c, q)
		if math.IsNaN(q) || math.Abs(g) > eb+4*epsilon*rho*math.Abs(q) {
			t.Fatalf("s=%v w=%g rho=%g c=%g: q=%g, derivative %g (rounding bound %g)", s, w, rho, c, q, g, eb)
		}
		// The minimizer moves c towards the label: q-c has the sign of s,
		// by at most w/rho.
		if d := s * (q - c); d < 0 || d > w/rho*(1+4*epsilon)+4*epsilon*math.Abs(c) {
			t.Fatalf("s=%v w=%g rho=%g c=%g q0=%v: q=%v outside the bracket (s*(q-c) = %g)", s, w, rho, c, q0, q, s*(q-c))
		}
		step := 16 * epsilon * max(math.Abs(q), w/rho)
		lo, elo := qGrad(s, w, rho, c, q-step)
		hi, ehi := qGrad(s, w, rho, c, q+step)
		if lo > elo || hi < -ehi {
			t.Fatalf("s=%v w=%g rho=%g c=%g: q=%g is not the root: g(q-) = %g, g(q+) = %g", s, w, rho, c, q, lo, hi)
		}
	}
}

// TestLogisticProxExtremes checks inputs where a naive exp(-s*q) would
// overflow or the Newton step would leave the bracket.
func TestLogisticProxExtremes(t *testing.T) {
	cases := []struct{ s, w, rho, c float64 }{
		{1, 1, 1e-8, -1e6},  // far on the wrong side, tiny rho: q ~ c + w/rho
		{-1, 1, 1e-8, 1e6},  // the same for a negative bag
		{1, 1, 1e8, -800},   // exp(800) overflows
		{-1, 1, 1e8, 800},   // exp(800) overflows
		{1, 1e6, 1, 0},      // weight dominates: q large
		{1, 1, 1, 1e300},    // huge c: q = c to working precision
		{-1, 1e-300, 1, 0},  // w/rho below the float spacing: q = c
		{1, 1, 0.1, 0},      // the paper's rho
		{-1, 3, 1e-3, -4e2}, // wide bracket
	}
	for _, tc := range cases {
		q := logisticProx(tc.s, tc.w, tc.rho, tc.c, tc.c)
		if math.IsNaN(q) || math.IsInf(q, 0) {
			t.Errorf("%+v: q = %g", tc, q)
			continue
		}
		g, eb := qGrad(tc.s, tc.w, tc.rho, tc.c, q)
		if math.Abs(g) > eb+4*epsilon*tc.rho*math.Abs(q) {
			t.Errorf("%+v: q = %g, derivative %g (bound %g)", tc, q, g, eb)
		}
	}
}

func TestLogLoss(t *testing.T) {
	for _, z := range []float64{-800, -40, -1, -1e-10, 0, 1e-10, 1, 40, 800} {
		want := math.Log1p(math.Exp(-z))
		if z < -30 {
			want = -z + math.Exp(z) // log(1+e^-z) = -z + log(1+e^z)
		}
		if got := logLoss(z); math.Abs(got-want) > 4*epsilon*want {
			t.Errorf("logLoss(%g) = %g, want %g", z, got, want)
		}
	}
	if v := logLoss(1000); v != 0 { // exp(-1000) underflows
		t.Errorf("logLoss(1000) = %g, want 0", v)
	}
	if !math.IsNaN(logLoss(math.NaN())) || logLoss(math.Inf(1)) != 0 || !math.IsInf(logLoss(math.Inf(-1)), 1) {
		t.Error("logLoss special cases")
	}
	for _, z := range []float64{-800, -3, 0, 3, 800} {
		p, n := sigmoids(z)
		if math.IsNaN(p) || math.IsNaN(n) || math.Abs(p+n-1) > 2*epsilon {
			t.Errorf("sigmoids(%g) = %g, %g", z, p, n)
		}
	}
}

// TestLogisticProxStaysInBracket: the root lies in the bracket (c', c' +
// w/rho) with c' = s*c, and the result is clamped into it where the last
// Newton step rounds an ulp past its upper end. These inputs put the
// unclamped step just above c' + w/rho.
func TestLogisticProxStaysInBracket(t *testing.T) {
	for _, c := range []struct{ s, w, rho, c float64 }{
		{1, 0.16327438120049617, 0.0018259227428513286, -129.23137809904185},
		{-1, 1.48861368139033, 0.0034483997816015747, 573.3309025569522},
		{1, 12.549934073895875, 3.2142082415804842, -126.21217365964442},
		{1, 310.7985729573215, 2.3916035546984817, -178.92967188059907},
	} {
		q := logisticProx(c.s, c.w, c.rho, c.c, c.c)
		lo, hi := c.s*c.c, c.s*c.c+c.w/c.rho
		z := c.s * q
		assert.True(t, z >= lo && z <= hi, "%+v: s*q = %v outside [%v, %v]", c, z, lo, hi)
	}
}
