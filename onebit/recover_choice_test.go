package onebit

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

func TestDescription(t *testing.T) {
	// log C(n, 0) = log C(n, n) = 0, log C(5, 2) = log 10.
	if logChoose(7, 0) != 0 || math.Abs(logChoose(7, 7)) > 1e-12 || math.Abs(logChoose(5, 2)-math.Log(10)) > 1e-12 {
		t.Error("logChoose")
	}
	// More violations or more coordinates cost more (below half of each).
	if !(description(1000, 500, 10, 5) > description(1000, 500, 10, 0)) ||
		!(description(1000, 500, 12, 0) > description(1000, 500, 10, 0)) {
		t.Error("description is not increasing")
	}
}

// TestDescriptionMonotone checks what regressWins rests on: for supports
// up to N/2 the description length grows with the support's size and with
// the number of violated signs (up to M/2), so no estimate the polish may
// keep (at least q coordinates) is shorter than a consistent one on q.
func TestDescriptionMonotone(t *testing.T) {
	for _, nm := range [][2]int{{10, 7}, {1000, 250}, {1000, 2000}, {4000, 4000}} {
		n, m := nm[0], nm[1]
		for q := 0; 2*(q+1) <= n && q < 60; q++ {
			for v := 0; 2*(v+1) <= m && v < 60; v++ {
				d := description(n, m, q, v)
				if up := description(n, m, q+1, v); !(up > d) {
					t.Fatalf("n %d m %d: description(%d, %d) = %g, with one coordinate more %g", n, m, q, v, d, up)
				}
				if up := description(n, m, q, v+1); !(up > d) {
					t.Fatalf("n %d m %d: description(%d, %d) = %g, with one violation more %g", n, m, q, v, d, up)
				}
			}
		}
	}
}

// TestSignCode checks the probit code of the signs (see signCode) on
// projections t ~ N(0, 1): a consistent estimate costs nothing; signs
// violated at the edge of the cell (the 5% of the rows nearest the
// boundary) cost well under their count code (34 against 97 nats here),
// signs violated at random depths cost their count code (the probit model
// explains them no better), and noisy signs y = sign(t + 0.3 g) cost less
// than their count code too. The code never exceeds the count code, does
// not depend on the scale of the projections and allocates nothing.
func TestSignCode(t *testing.T) {
	const m = 500
	r := rand.New(rand.NewPCG(1, 2))
	ax, y, sc := make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range ax {
		ax[i] = r.NormFloat64()
		y[i] = sign(ax[i])
	}
	if c, e := signCode(ax, y, sc); c != 0 || e != 0 {
		t.Errorf("consistent: code %g, flip rate %g, want 0, 0", c, e)
	}
	edge := slices.Clone(y)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(ax[a]), math.Abs(ax[b])) })
	for _, i := range idx[:25] {
		edge[i] = -edge[i]
	}
	deep := slices.Clone(y)
	for _, i := range r.Perm(m)[:25] {
		deep[i] = -deep[i]
	}
	noisy := slices.Clone(y)
	for i := range noisy {
		noisy[i] = sign(ax[i] + 0.3*r.NormFloat64())
	}
	for _, c := range []struct {
		name    string
		y       []float64
		lo, hi  float64 // bounds on the code over the count code
		flipMax float64 // bound on the flip rate fitted
	}{
		{"edge", edge, 0, 0.5, 0},
		{"deep", deep, 0.999, 1, 0.05},
		{"noisy", noisy, 0, 0.8, 0.001},
	} {
		v := mismatches(ax, c.y)
		count := logChoose(m, v)
		code, flip := signCode(ax, c.y, sc)
		t.Logf("%s: %d violated, code %.1f nats, count code %.1f, flip rate %.4f", c.name, v, code, count, flip)
		if !(code >= c.lo*count && code <= c.hi*count+1e-9) {
			t.Errorf("%s: code %g, count code %g: want a ratio in [%g, %g]", c.name, code, count, c.lo, c.hi)
		}
		if !(flip >= 0 && flip <= c.flipMax) {
			t.Errorf("%s: flip rate %g, want at most %g", c.name, flip, c.flipMax)
		}
		// Scales up to near overflow and down to subnormal projections
		// (whose median once made every probit scale c/median overflow,
		// leaving only the count code); powers of two are exact except
		// for the subnormals' rounding (relative 2^-44 here).
		for _, f := range []float64{37.5, 0x1p1000, 0x1p-1000, 0x1p-1030} {
			scaled := slices.Clone(ax)
			vec.Scal(f, scaled)
			if cs, _ := signCode(scaled, c.y, sc); math.Abs(cs-code) > 1e-9*code {
				t.Errorf("%s: code %g, with the projections scaled by %g %g", c.name, code, f, cs)
			}
		}
	}
	if a := testing.AllocsPerRun(10, func() { signCode(ax, noisy, sc) }); a != 0 {
		t.Errorf("signCode allocates %g times", a)
	}
}

// TestProbitFlipCode checks the minimization over the flip rate against a
// fine grid (the function is convex in it; Newton must not stop above).
func TestProbitFlipCode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 30 {
		p := make([]float64, 1+r.IntN(200))
		for i := range p {
			p[i] = r.Float64()
			if trial%3 == 0 {
				p[i] = 1 - 0.1*r.Float64()*r.Float64()
			}
		}
		n0, n1 := r.IntN(5)*(trial%2), r.IntN(300)
		code, eps := probitFlipCode(p, n0, n1, 0.5*r.Float64())
		if !(eps >= 0 && eps <= 0.5) {
			t.Fatalf("trial %d: flip rate %g", trial, eps)
		}
		for g := range 5001 {
			e := 0.5 * float64(g) / 5000
			if n0 > 0 && e == 0 {
				continue
			}
			if v := flipValue(p, n0, n1, e); v < code-1e-7*math.Abs(code) {
				t.Fatalf("trial %d: code %g at flip rate %g, %g at %g", trial, code, eps, v, e)
			}
		}
	}
}

// flipValue is probitFlipCode's function at the flip rate e, written out
// (the tests' reference).
func flipValue(p []float64, n0, n1 int, e float64) float64 {
	v := -float64(n0)*math.Log(e) - float64(n1)*math.Log(1-e)
	for _, pi := range p {
		v -= math.Log(e + (1-2*e)*pi)
	}
	return v
}

// TestRecoverFlipCode checks the choice by signCode (Rademacher Phi,
// K = 20, M/N = 0.5, 3% of the signs flipped): on these instances the
// consistent estimate (errors 0.164, 0.142 and 0.164) describes the signs
// more briefly when its violations are counted, and the sign regression
// (0.106, 0.095 and 0.089) when they are coded by the probit model with
// flips. Without flips the regression is not kept.
func TestRecoverFlipCode(t *testing.T) {
	var s Solver
	x := make([]float64, 1000)
	for _, c := range []struct {
		seed uint64
		flip float64
	}{{110, 0.03}, {127, 0.03}, {137, 0.03}, {110, 0}, {127, 0}} {
		in, p := rademacherFor(t, 500, 1000, 20, c.flip, c.seed)
		r, err := s.Recover(t.Context(), p, x, DefaultRecoverOptions())
		if err != nil {
			t.Fatal(err)
		}
		e := AngularError(in.X, x)
		t.Logf("seed %d, flip %g: error %.4f, regressed %v, support %d", c.seed, c.flip, e, r.Regressed, r.Support)
		switch {
		case c.flip > 0 && (!r.Regressed || !(e < 0.12)):
			t.Errorf("seed %d: error %.4f, regressed %v: want the regression's fit (error < 0.12)", c.seed, e, r.Regressed)
		case c.flip == 0 && (r.Regressed || !(e < 0.05)):
			t.Errorf("seed %d without flips: error %.4f, regressed %v: want the consistent estimate", c.seed, e, r.Regressed)
		}
	}
}

// TestSignCodeGrid recomputes signCode from its doc by brute force on 500
// projections t_i ~ N(0, 1) with signs y_i = sign(t_i + sd e_i), e_i ~
// N(0, 1), sd 0.3 and 2 (the second fits best near the grid's smallest
// scale): the code is the smaller of log C(M, v) and, over the grid
// s = 10^(-0.5 + 0.25 u)/median|t_i|, u = 0..18, of
// min_eps -sum_i log(eps + (1-2 eps) Phi(s y_i t_i)) + (log M)/2, eps in
// [0, 1/2] found here by golden-section search (the function is convex in
// eps) to 1e-12. Tolerance 1e-6 nats on codes near 100-300: the search's
// eps error changes the value only to second order, and signCode takes
// Phi as 0 or 1 beyond |s t| = 8 (an error below 1e-13 a term).
func TestSignCodeGrid(t *testing.T) {
	const m = 500
	r := rand.New(rand.NewPCG(3, 4))
	ax, sc := make([]float64, m), make([]float64, m)
	for i := range ax {
		ax[i] = r.NormFloat64()
	}
	abs := make([]float64, m)
	for i, v := range ax {
		abs[i] = math.Abs(v)
	}
	slices.Sort(abs)
	med := abs[(m-1)/2]
	for _, sd := range []float64{0.3, 2} {
		y := make([]float64, m)
		v := 0
		for i, a := range ax {
			if y[i] = sign(a + sd*r.NormFloat64()); y[i] != sign(a) {
				v++
			}
		}
		want, wantFlip := logChoose(m, v), float64(v)/m
		for u := range 19 {
			s := math.Pow(10, -0.5+0.25*float64(u)) / med
			f := func(e float64) float64 {
				c := 0.0
				for i, a := range ax {
					c -= math.Log(e + (1-2*e)*0.5*math.Erfc(-s*y[i]*a/math.Sqrt2))
				}
				return c
			}
			lo, hi := 0.0, 0.5
			g := (math.Sqrt(5) - 1) / 2
			for hi-lo > 1e-12 {
				a, b := hi-g*(hi-lo), lo+g*(hi-lo)
				if f(a) < f(b) {
					hi = b
				} else {
					lo = a
				}
			}
			e := (lo + hi) / 2
			for _, b := range []float64{0, 0.5} {
				if f(b) < f(e) {
					e = b
				}
			}
			if c := f(e) + 0.5*math.Log(m); c < want {
				want, wantFlip = c, e
			}
		}
		code, flip := signCode(ax, y, sc)
		require.InDelta(t, want, code, 1e-6, "sd %g", sd)
		require.InDelta(t, wantFlip, flip, 1e-4, "sd %g", sd)
	}
}

// FuzzProbitFlipCode checks probitFlipCode against a grid of flip rates
// (its function is convex in the rate; Newton must not stop above any
// grid value) and signCode on the same bytes read as projections: a code
// neither NaN nor above the count code, a flip rate in [0, 1], and the
// same code for the projections scaled by 2^-600 (the code is scale-free;
// a power of two keeps the values exact unless they become subnormal,
// which is skipped). The bytes give p_i = (b_i + 1/2)/256 (or within
// 2^-40 of 0 or 1), n0 and n1, and Newton's start.
//
// It is a test of package onebit (neither function is exported); .ci/fuzz
// fuzzes it with the targets in ./fuzz.
func FuzzProbitFlipCode(f *testing.F) {
	f.Add(uint8(0), uint8(3), uint8(128), []byte{1, 2, 200, 255, 128, 7})
	f.Add(uint8(2), uint8(0), uint8(0), []byte{255, 255, 0})
	f.Add(uint8(0), uint8(0), uint8(255), []byte{})
	f.Add(uint8(1), uint8(40), uint8(9), []byte{0x80, 0x81, 0x7f, 0x90, 0x70, 0xff, 0x00, 0x01})
	f.Fuzz(func(t *testing.T, n0b, n1b, e0b uint8, data []byte) {
		data = data[:min(len(data), 128)]
		n0, n1 := int(n0b%8), int(n1b)
		p := make([]float64, len(data))
		for i, b := range data {
			p[i] = (float64(b) + 0.5) / 256
			switch b {
			case 0:
				p[i] = 0x1p-40
			case 255:
				p[i] = 1 - 0x1p-40
			}
		}
		if len(p)+n0+n1 == 0 {
			return
		}
		code, eps := probitFlipCode(p, n0, n1, float64(e0b)/510)
		if !(eps >= 0 && eps <= 0.5) || math.IsNaN(code) {
			t.Fatalf("code %g at flip rate %g", code, eps)
		}
		for g := range 501 {
			e := 0.5 * float64(g) / 500
			if n0 > 0 && e == 0 {
				continue
			}
			if v := flipValue(p, n0, n1, e); v < code-1e-9*(1+math.Abs(code)) {
				t.Fatalf("code %g at flip rate %g, %g at %g", code, eps, v, e)
			}
		}

		// The bytes as projections (8 bytes each) and signs.
		m := len(data) / 8
		if m == 0 {
			return
		}
		ax, y, sc := make([]float64, m), make([]float64, m), make([]float64, m)
		for i := range ax {
			ax[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
			if math.IsNaN(ax[i]) || math.IsInf(ax[i], 0) || (ax[i] != 0 && math.Abs(ax[i]) < 0x1p-400) {
				ax[i] = float64(i) - 2.5
			}
			y[i] = 1 - 2*float64((data[8*i]>>3^e0b)&1)
		}
		code, flip := signCode(ax, y, sc)
		count := logChoose(m, mismatches(ax, y))
		if math.IsNaN(code) || code > count+1e-9*count || !(flip >= 0 && flip <= 1) {
			t.Fatalf("signCode: code %g (count code %g), flip rate %g", code, count, flip)
		}
		for i := range ax {
			ax[i] *= 0x1p-600
		}
		if c2, _ := signCode(ax, y, sc); math.Abs(c2-code) > 1e-9*(1+code) {
			t.Fatalf("signCode: code %g, %g with the projections scaled by 2^-600", code, c2)
		}
	})
}
