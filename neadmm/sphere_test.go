package neadmm

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const eps = 0x1p-52

// sphereCases returns (a, c) pairs, a = ||v|| > 0: random over 300 orders of
// magnitude plus adversarial ones (c at and next to 1/2, near-double roots
// of the cubic, a far below and above |c|).
func sphereCases() [][2]float64 {
	var cs [][2]float64
	add := func(a, c float64) { cs = append(cs, [2]float64{a, c}) }
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		a := math.Pow(10, -150+300*r.Float64())
		c := math.Pow(10, -150+300*r.Float64())
		if r.IntN(2) == 0 {
			c = -c
		}
		add(a, c)
	}
	for range 2000 { // ordinary scales, where the ADMM lives
		add(math.Exp(8*r.NormFloat64()), 5*r.NormFloat64())
	}
	for _, c := range []float64{0.5, math.Nextafter(0.5, 1), math.Nextafter(0.5, 0), 0.5 + 1e-9, 0.5 - 1e-9} {
		for _, a := range []float64{1e-300, 1e-150, 1e-20, 1e-8, 1, 1e8, 1e150, 1e300} {
			add(a, c)
		}
	}
	// Double root of s^3 + P s - a/2 (two negative roots merge) at
	// a = 4(-P/3)^(3/2), P = 1/2 - c < 0, and next to it.
	for _, c := range []float64{0.6, 1, 2, 10, 1e6, 1e100, 1e200} {
		P := 0.5 - c
		a0 := 4 * math.Pow(-P/3, 1.5)
		for _, f := range []float64{1, 1 + 1e-15, 1 - 1e-15, 1 + 1e-8, 1 - 1e-8, 1.5, 0.5} {
			add(a0*f, c)
		}
	}
	for _, a := range []float64{5e-324, 1e-310, math.SmallestNonzeroFloat64 * 3, 1e-200, 1e200, math.MaxFloat64} {
		for _, c := range []float64{0, 1, -1, 1e300, -1e300, math.MaxFloat64, -math.MaxFloat64, 1e-300} {
			add(a, c)
		}
	}
	return cs
}

// cubicRelResidual returns |2s^3 + (1-2c)s - a| divided by the sum of the
// terms' magnitudes, computed exactly with big.Float (no overflow).
func cubicRelResidual(s, a, c float64) float64 {
	const prec = 4000
	f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	s3 := f(2)
	s3.Mul(s3, f(s)).Mul(s3, f(s)).Mul(s3, f(s))
	ks := f(-2)
	ks.Mul(ks, f(c)).Add(ks, f(1)).Mul(ks, f(s))
	sum := f(0)
	sum.Add(s3, ks).Sub(sum, f(a)).Abs(sum)
	scale := f(0)
	scale.Abs(s3).Add(scale, new(big.Float).Abs(ks)).Add(scale, f(a))
	rel, _ := sum.Quo(sum, scale).Float64()
	return rel
}

// TestSphereRootStationary checks that the root satisfies the cubic to
// within rounding: if s is within u ulps of the exact root s*, the residual
// is about p'(s*)*(s - s*) and s*p'(s*) <= 3*(sum of the terms), so
// |p(s)| <= 3*u*eps*scale. Newton stopping at rounding gives u <= 2.
func TestSphereRootStationary(t *testing.T) {
	maxSteps, worst := 0, 0.0
	for _, ac := range sphereCases() {
		a, c := ac[0], ac[1]
		s, r := sphereRoot(a, 0, c)
		if !(s >= 0) || math.IsInf(s, 0) || math.IsNaN(r) {
			t.Fatalf("a=%g c=%g: s=%g r=%g", a, c, s, r)
		}
		if s < 0x1p-1022 {
			// The root underflows; then s^3 is negligible and s is
			// a/(1-2c) rounded to the subnormal grid.
			if want := a / (1 - 2*c); math.Abs(s-want) > 0x1p-1074 {
				t.Errorf("a=%g c=%g: subnormal s=%g, want %g", a, c, s, want)
			}
			continue
		}
		rel := cubicRelResidual(s, a, c) / eps
		worst = max(worst, rel)
		if rel > 6 {
			t.Errorf("a=%g c=%g: s=%g: residual %.3g eps * scale, want <= 6", a, c, s, rel)
		}
		if want := s / a; r != want && math.Abs(r-want) > 4*eps*want && want >= 0x1p-1022 {
			t.Errorf("a=%g c=%g: ratio %g, want s/a = %g", a, c, r, want)
		}
		P := 0.5 - c
		sigma := max(math.Sqrt(math.Abs(P)), math.Cbrt(a))
		_, steps := cubicRootSteps((P/sigma)/sigma, 0.5*(((a/sigma)/sigma)/sigma))
		maxSteps = max(maxSteps, steps)
	}
	t.Logf("most Newton steps: %d; largest residual: %.2f eps*scale", maxSteps, worst)
	if maxSteps > 12 {
		t.Errorf("Newton took %d steps; the bound analysis says far fewer", maxSteps)
	}
}

// sphere1D is the 1-D objective on the line through v, g(s) = (s - a)^2 +
// (s^2 - c)^2 = s^4 + 2Ps^2 - 2as + const with P = 1/2 - c, in the scaled
// variable s = sigma*t and without the constant: g/sigma^4 - const =
// t^4 + 2p t^2 - 4q t, p = P/sigma^2, q = a/(2 sigma^3). All terms are O(1),
// so neither overflow nor cancellation against a huge constant hides the
// minimum. It also returns the sum of the terms' magnitudes.
func sphere1D(t, p, q float64) (g, scale float64) {
	t2 := t * t
	return t2*t2 + 2*p*t2 - 4*q*t, t2*t2 + 2*math.Abs(p)*t2 + 4*q*math.Abs(t)
}

// bruteSphere minimizes sphere1D over t in [tmin, tmax] by a dense grid and
// golden-section refinement around the best grid point.
func bruteSphere(p, q, tmax, tmin float64) float64 {
	f := func(t float64) float64 { g, _ := sphere1D(t, p, q); return g }
	const grid = 20000
	best, bi := math.Inf(1), 0
	h := (tmax - tmin) / grid
	for i := 0; i <= grid; i++ {
		if v := f(tmin + float64(i)*h); v < best {
			best, bi = v, i
		}
	}
	lo, hi := tmin+float64(bi-1)*h, tmin+float64(bi+1)*h
	const gr = 0.6180339887498949
	for range 200 {
		m1, m2 := hi-gr*(hi-lo), lo+gr*(hi-lo)
		if f(m1) < f(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	return (lo + hi) / 2
}

// TestSphereRootGlobal checks the proof's claim (the positive root is the
// global minimizer over the whole line, negative s included) against brute
// force, over scales 1e-150..1e150.
func TestSphereRootGlobal(t *testing.T) {
	for i, ac := range sphereCases() {
		a, c := ac[0], ac[1]
		if a < 1e-150 || a > 1e150 || math.Abs(c) > 1e150 || (c != 0 && math.Abs(c) < 1e-150) {
			continue
		}
		if testing.Short() && i%10 != 0 {
			continue
		}
		P := 0.5 - c
		sigma := max(math.Sqrt(math.Abs(P)), math.Cbrt(a))
		p, q := P/(sigma*sigma), a/(2*sigma*sigma*sigma)
		s, _ := sphereRoot(a, 0, c)
		tOurs := s / sigma
		// |p| <= 1 and q <= 1/2: every minimizer has |t| < 2.
		tb := bruteSphere(p, q, 2, -2)
		gOurs, _ := sphere1D(tOurs, p, q)
		gb, scale := sphere1D(tb, p, q)
		// Each value has a rounding error of a few eps times the sum of
		// the terms' magnitudes.
		if gOurs > gb+8*eps*scale {
			t.Errorf("a=%g c=%g: g(ours t=%.17g) = %.17g > brute g(t=%.17g) = %.17g", a, c, tOurs, gOurs, tb, gb)
		}
		// Location: over t >= 0 only, since the mirror minimum at t < 0
		// is worse by 8q|t|, which rounding hides when q < eps. A flat
		// minimum locates the brute-force minimizer only to about
		// sqrt(eps/g'') absolute; g'' = 12t^2 + 4p >= 8|p| + ... is
		// bounded below at the root after scaling (see SphereProx).
		tb = bruteSphere(p, q, 2, 0)
		if math.Abs(tOurs-tb) > 1e-6 {
			t.Errorf("a=%g c=%g: t=%.10g, brute force on t >= 0: %.10g", a, c, tOurs, tb)
		}
	}
}

func sphereObjective(w, v []float64, c float64) float64 {
	var d, n float64
	for i := range w {
		d += (w[i] - v[i]) * (w[i] - v[i])
		n += w[i] * w[i]
	}
	return d + (n-c)*(n-c)
}

func TestSphereProxVector(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 500 {
		n := 1 + r.IntN(50)
		v := make([]float64, n)
		scale := math.Exp(3 * r.NormFloat64())
		for i := range v {
			v[i] = scale * r.NormFloat64()
		}
		c := 3 * r.NormFloat64()
		w := make([]float64, n)
		SphereProx(w, v, c)
		// Parallel to v with the norm of the root.
		a := 0.0
		for _, x := range v {
			a += x * x
		}
		a = math.Sqrt(a)
		s, _ := sphereRoot(a, 0, c)
		for i := range w {
			if want := s * v[i] / a; math.Abs(w[i]-want) > 8*eps*math.Abs(want)+1e-300 {
				t.Fatalf("trial %d: w[%d] = %g, want %g", trial, i, w[i], want)
			}
		}
		// No random perturbation does better.
		f := sphereObjective(w, v, c)
		u := make([]float64, n)
		for range 20 {
			h := math.Pow(10, -1-4*r.Float64()) * max(s, 1)
			for i := range u {
				u[i] = w[i] + h*r.NormFloat64()
			}
			if fu := sphereObjective(u, v, c); fu < f-1e-12*max(1, f) {
				t.Fatalf("trial %d: perturbation lowers the objective %g -> %g", trial, f, fu)
			}
		}
		// In place gives the same bits.
		SphereProx(v, v, c)
		for i := range v {
			if v[i] != w[i] {
				t.Fatalf("trial %d: in-place result differs at %d", trial, i)
			}
		}
	}
}

func TestSphereProxSpecial(t *testing.T) {
	nan := math.NaN()
	inf := math.Inf(1)
	allNaN := func(w []float64) bool {
		for _, x := range w {
			if !math.IsNaN(x) {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		v []float64
		c float64
	}{
		{[]float64{1, 2}, nan},
		{[]float64{1, 2}, inf},
		{[]float64{1, 2}, -inf},
		{[]float64{nan, 2}, 1},
		{[]float64{inf, 2}, 1},
		{[]float64{-inf, 2}, 1},
		{[]float64{math.MaxFloat64, inf}, 1},
	} {
		w := make([]float64, len(tc.v))
		SphereProx(w, tc.v, tc.c)
		if !allNaN(w) {
			t.Errorf("SphereProx(%v, %g) = %v, want all NaN", tc.v, tc.c, w)
		}
	}
	// v = 0: the documented deterministic minimizer.
	w := []float64{7, 7, 7}
	SphereProx(w, []float64{0, 0, 0}, 2)
	if w[0] != math.Sqrt(1.5) || w[1] != 0 || w[2] != 0 {
		t.Errorf("v=0, c=2: w = %v, want (sqrt(1.5), 0, 0)", w)
	}
	w = []float64{7, 7}
	SphereProx(w, []float64{0, 0}, 0.5)
	if w[0] != 0 || w[1] != 0 {
		t.Errorf("v=0, c=0.5: w = %v, want 0", w)
	}
	SphereProx(nil, nil, 1) // no panic
	// Finite entries whose norm overflows, and subnormal ones.
	for _, v := range [][]float64{
		{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64},
		{1e308, 1e308},
		{5e-324, -5e-324},
		{1e-320, 0, 1e-321},
	} {
		for _, c := range []float64{-1e300, -1, 0, 1, 1e300, math.MaxFloat64} {
			w := make([]float64, len(v))
			SphereProx(w, v, c)
			for i, x := range w {
				if math.IsNaN(x) || math.IsInf(x, 0) || (x != 0 && (x > 0) != (v[i] > 0)) {
					t.Fatalf("SphereProx(%v, %g) = %v", v, c, w)
				}
			}
		}
	}
	// Overflowing norm: ||v|| = 2e308 > MaxFloat64. With c = 1 the cubic
	// is 2s^3 - s = ||v||; evaluate it divided by ||v|| to stay finite.
	v := []float64{1e308, 1e308, 1e308, 1e308}
	got := make([]float64, 4)
	SphereProx(got, v, 1)
	s, nv := 2*got[0], 1e308 // s = ||w||; ||v|| = 2*nv
	if lhs := s*s*(s/nv) - s/nv/2; got[0] != got[3] || math.Abs(lhs-1) > 8*eps {
		t.Errorf("overflowing norm: w = %v, (2s^3 - s)/||v|| = %.17g, want 1", got, lhs)
	}
}

func TestSphereProxPanics(t *testing.T) {
	assert.PanicsWithValue(t, "neadmm.SphereProx: len(w) != len(v)", func() {
		SphereProx(make([]float64, 2), make([]float64, 3), 1)
	})
}

func TestSphereProxAllocs(t *testing.T) {
	v := make([]float64, 1000)
	for i := range v {
		v[i] = float64(i%7) - 3
	}
	w := make([]float64, 1000)
	if n := testing.AllocsPerRun(100, func() { SphereProx(w, v, 0.7) }); n != 0 {
		t.Errorf("SphereProx allocates %v times", n)
	}
}

func BenchmarkSphereProx(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	v := make([]float64, 1000)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	w := make([]float64, 1000)
	b.ReportAllocs()
	for b.Loop() {
		SphereProx(w, v, 0.7)
	}
}

// TestSphereProxSubnormalNorm pins SphereProx on a subnormal ||v||: its
// computed value has almost no relative accuracy, so the direction v/||v||
// (and for c > 1/2 the result, of norm ~sqrt(c - 1/2)) is right only if v
// is scaled up first.
func TestSphereProxSubnormalNorm(t *testing.T) {
	tiny := math.SmallestNonzeroFloat64
	for _, c := range []float64{0.75, 0.5000001, 1e10, 0.25, -3} {
		v := []float64{tiny, tiny, tiny}
		w := make([]float64, 3)
		SphereProx(w, v, c)
		// Direction: equal entries. Norm: the positive root s of
		// 2s^3 + (1-2c)s - ||v|| = 0, which is sqrt(c - 1/2) to within
		// rounding for c > 1/2 (||v|| ~ 1e-323 moves it by less than
		// ||v||/(4(c-1/2)) << ulp) and ||v||/(1-2c) for c < 1/2.
		for i := range w {
			if w[i] != w[0] {
				t.Fatalf("c=%v: w = %v, want equal entries", c, w)
			}
		}
		got := math.Sqrt(3) * w[0]
		var want float64
		if c > 0.5 {
			want = math.Sqrt(c - 0.5)
		} else {
			want = math.Sqrt(3) * tiny / (1 - 2*c)
		}
		if want > 0x1p-1022 && math.Abs(got-want) > 8*0x1p-52*want {
			t.Errorf("c=%v: ||w|| = %v, want %v", c, got, want)
		}
		if want <= 0x1p-1022 && math.Abs(got-want) > 4*tiny {
			t.Errorf("c=%v: ||w|| = %v, want %v (subnormal)", c, got, want)
		}
	}
}

// linearSphere returns v/(1 - 2c) correctly rounded (big.Float: 1 - 2c may
// overflow a float64). In the nearly linear regime, ||v|| tiny against
// 1/2 - c, the root s* of 2s^3 + (1-2c)s - ||v|| = 0 is ||v||/(1 - 2c) times
// 1 - O(s*^2/(1/2 - c)), so w = s* v/||v|| is this to far below rounding.
func linearSphere(v, c float64) float64 {
	d := new(big.Float).SetPrec(200).SetFloat64(c)
	d.Mul(d, big.NewFloat(-2)).Add(d, big.NewFloat(1))
	q := new(big.Float).SetPrec(200).SetFloat64(v)
	f, _ := q.Quo(q, d).Float64()
	return f
}

// ulp returns the spacing of float64s at |x|.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

// TestSphereProxRatioOutOfRange pins SphereProx's fallback for a ratio
// r = s/||v|| outside the normal range (c near -MaxFloat64, where
// r ~ 1/(1 - 2c) is subnormal): w[i] = s*(v[i]/||v||), not r*v[i] (r has
// lost bits to gradual underflow) and not (s*v[i])/||v|| (s*v[i] underflows
// when the result is subnormal).
//
// With n = 1, v/||v|| = ±1 exactly and s = (||v||/P)/2, P = 1/2 - c (its
// rounding is far below an ulp here), so a normal w is within one rounding
// of v/(1 - 2c): 1 ulp allowed; r*v was 4 ulps off for v = 3e300,
// c = -1.1e308. For v = (1e-10, -1e-10) and c = -MaxFloat64 the result is
// subnormal, ~2.8e-319: s has an absolute error of at most 2^-1074 (two
// roundings in the subnormal range), the product one more half unit, so 2
// units of 2^-1074 are allowed; s*v[i] underflows to 0.
func TestSphereProxRatioOutOfRange(t *testing.T) {
	for _, c := range []float64{-1.1e308, -1.5e308, -9e307, -math.MaxFloat64} {
		for _, x := range []float64{3e300, -1e300, 1.2345678901234567e300} {
			w := make([]float64, 1)
			SphereProx(w, []float64{x}, c)
			want := linearSphere(x, c)
			require.LessOrEqual(t, math.Abs(w[0]-want), ulp(want), "v=%g c=%g: w=%v, want %v", x, c, w[0], want)
		}
	}
	tiny := math.SmallestNonzeroFloat64
	v := []float64{1e-10, -1e-10}
	w := make([]float64, 2)
	SphereProx(w, v, -math.MaxFloat64)
	for i := range w {
		want := linearSphere(v[i], -math.MaxFloat64)
		require.Greater(t, math.Abs(want), 1000*tiny) // far from underflowing to 0
		require.LessOrEqual(t, math.Abs(w[i]-want), 2*tiny, "w=%v, want %v at %d", w, want, i)
	}
}

// TestSphereProxSubnormalNormRange pins the threshold of SphereProx's
// rescaling of a subnormal ||v||: every norm below 2^-1022 is rescaled, not
// just the tiniest (TestSphereProxSubnormalNorm has ||v|| ~ 3e-324). A
// subnormal norm carries an absolute error up to 2^-1075, so an unscaled
// ||v|| = sqrt(2)*2^e with e = -1040 is off by up to about 2^-35
// relative, and so is the direction of w. With c = 3/4 the root is
// sqrt(c - 1/2) = 1/2 up to ||v||/(4(c - 1/2)) (far below rounding), so
// w = (1, 1)/(2 sqrt 2): 8 eps allowed as in TestSphereProxSubnormalNorm.
func TestSphereProxSubnormalNormRange(t *testing.T) {
	want := math.Sqrt(0.125)
	for e := -1070; e <= -1023; e++ {
		x := math.Ldexp(1, e)
		v := []float64{x, x}
		w := make([]float64, 2)
		SphereProx(w, v, 0.75)
		for i := range w {
			require.LessOrEqual(t, math.Abs(w[i]-want), 8*eps*want, "v = 2^%d (1, 1): w = %v, want %v each", e, w, want)
		}
	}
}
