package onebit

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

// TestRegress checks the sign regression on its own: without flips and
// with many measurements it finds the support exactly (the RIC stop adds
// no noise column), and its fit is the least-squares one on that support.
func TestRegress(t *testing.T) {
	in, p := problemFor(t, GenOptions{M: 2000, N: 100, K: 4, Seed: 3})
	var s Solver
	s.resize(p)
	x := make([]float64, 100)
	fit, ok := s.regress(t.Context(), p, x)
	k, v := fit.k, fit.v
	if !ok || k != 4 {
		t.Fatalf("regress: support %d (ok %v), want 4", k, ok)
	}
	for j := range x {
		if (x[j] != 0) != (in.X[j] != 0) {
			t.Errorf("coordinate %d: fit %g, truth %g", j, x[j], in.X[j])
		}
	}
	if e := AngularError(in.X, x); e > 0.05 {
		t.Errorf("error %g, want < 0.05", e)
	}
	if got := p.Hamming(x); math.Abs(got-float64(v)/2000) > 1e-15 {
		t.Errorf("violations %d, Hamming %g", v, got)
	}
	// Least squares: the residual y - Phi x*c is orthogonal to the
	// support's columns for the scale c that minimizes it.
	ax := make([]float64, 2000)
	vec.MulVec(ax, p.phi, 2000, 100, x)
	c := dotSlices(ax, p.y) / dotSlices(ax, ax)
	for j := range x {
		if x[j] == 0 {
			continue
		}
		g := 0.0
		for i := range 2000 {
			g += p.phi[i*100+j] * (p.y[i] - c*ax[i])
		}
		if math.Abs(g) > 1e-8*2000 {
			t.Errorf("column %d: residual correlation %g, want ~0", j, g)
		}
	}
	// Cancelled: no fit.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, ok := s.regress(ctx, p, x); ok {
		t.Error("regress ignored a cancelled context")
	}
}

// TestRegressExtend checks the growth of the sign regression past the RIC
// stop (Rademacher Phi, K = 20, M/N = 0.25, 3% of the signs flipped, where
// the RIC stops at 2-11 coordinates): the fit kept describes the signs no less briefly
// than the fit at the RIC stop, and it is nearer the truth on average.
// Without the growth both fits are the same and the test fails.
func TestRegressExtend(t *testing.T) {
	const m, n, seeds = 250, 1000, 40
	var s Solver
	x := make([]float64, n)
	sumExt, sumRIC, grown := 0.0, 0.0, 0
	for seed := range uint64(seeds) {
		in, p := rademacherFor(t, m, n, 20, 0.03, 100+seed)
		s.resize(p)
		fit, ok := s.regress(t.Context(), p, x)
		k, v, ricK := fit.k, fit.v, fit.ricK
		if !ok || k < ricK || ricK < 1 {
			t.Fatalf("seed %d: support %d, RIC stop %d, ok %v", seed, k, ricK, ok)
		}
		xr := lsOnSupport(p, s.rw.sel[:ricK])
		vr := mismatchesOf(p, xr)
		if d, dr := description(n, m, k, v), description(n, m, ricK, vr); d > dr+1e-9 {
			t.Errorf("seed %d: description %g nats, at the RIC stop %g", seed, d, dr)
		}
		if k > ricK {
			grown++
		}
		sumExt += AngularError(in.X, x)
		sumRIC += AngularError(in.X, xr)
	}
	t.Logf("mean error %.4f (RIC stop %.4f), grown on %d of %d", sumExt/seeds, sumRIC/seeds, grown, seeds)
	if grown == 0 || !(sumExt < 0.985*sumRIC) {
		t.Errorf("mean error %.4f, at the RIC stop %.4f (grown on %d of %d): want at least 1.5%% lower", sumExt/seeds, sumRIC/seeds, grown, seeds)
	}
}

// TestRegressOrder checks the sign regression's greedy order and its RIC
// stop by hand on 8 signs y = (1, 1, 1, 1, 1, 1, 1, -1) and 2 columns,
// a0 = (1, 1, 1, 1, 1, 1, 1, 0) and a1 = 10 (1, 1, 1, 1, 1, -1, -1, 1).
// The most correlated column joins first: <a, y>^2/||a||^2 is 49/7 = 7
// for a0 and 400/800 = 1/2 for a1 (the plain <a, y>^2 would take a1).
// a0's drop in M log(RSS), 8 log(8/1), passes 2 log N = 2 log 2; a1 then
// explains (10/||a1 - (30/7) a0||)^2 = 0.149 of the RSS of 1, and
// 8 log(1/0.851) = 1.29 is below 2 log 2 = 1.39: the RIC stops at 1. Past
// it a1 joins, and the fit on both violates no sign (on a0 alone the last
// sign, whose fitted value is 0, counts as violated), a shorter
// description: both are kept.
func TestRegressOrder(t *testing.T) {
	a0 := []float64{1, 1, 1, 1, 1, 1, 1, 0}
	a1 := []float64{10, 10, 10, 10, 10, -10, -10, 10}
	var phi []float64
	for i := range 8 {
		phi = append(phi, a0[i], a1[i])
	}
	s, fit := regressOn(t, phi, 8, 2, []float64{1, 1, 1, 1, 1, 1, 1, -1})
	require.Equal(t, []int{0, 1}, s.rw.sel)
	require.Equal(t, 1, fit.ricK)
	require.Equal(t, 2, fit.k)
	require.Zero(t, fit.v)
}

// TestRegressCap pins the sign regression's cap at M/4 (regressMaxSupport's
// doc: "also capped at M/4 and N"), by hand. Phi is 20 x 6: column j is
// -1 on rows 3j..3j+2 (disjoint blocks), rows 18 and 19 are zero; y is -1
// on the 18 block rows and +1 on the zero rows. Every column scores
// <a_j, y>^2/||a_j||^2 = 3 (ties join in index order), the first drop
// 20 log(20/17) = 3.25 is below the RIC's 2 log 6 = 3.58 (the RIC stops
// at 0), and past it every column lowers the residual. The fit on j
// blocks violates the 18 - 3j block rows it leaves at 0 (sign(0) = +1), so
// the descriptions fall to 0 violations at 6 columns; the cap
// min(256, N, M/4) = 5 stops at 5 columns, 3 violations.
func TestRegressCap(t *testing.T) {
	const m, n = 20, 6
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range m {
		y[i] = 1
		if i < 18 {
			phi[i*n+i/3] = -1
			y[i] = -1
		}
	}
	require.Less(t, description(n, m, 6, 0), description(n, m, 5, 3), "without the cap, 6 columns would be the shortest")
	s, fit := regressOn(t, phi, m, n, y)
	require.Equal(t, 5, fit.k)
	require.Equal(t, 3, fit.v)
	require.Equal(t, []int{0, 1, 2, 3, 4}, s.rw.sel)
	require.Zero(t, fit.ricK)
}

// TestRegressExtendWindow pins the regression's stop past the RIC (regress:
// "while the fit's description of the signs shortened within the last
// regressExtend joins"; the RIC stop sets the penalty to 0: "any column
// that lowers the residual joins"), and its cost, by hand, on dyadic
// columns where every residual is exact. Phi is 100 x 13: column 0 is -1
// on rows 0..15 (y = -1), column j = 1..12 is +1 on row 15+j (y = +1),
// the other rows are zero (y = +1). Column 0 scores 16, the others 1.
//
//   - Product 1 (residual y, 100 rows non-zero: dense, work 1): column 0
//     joins (100 log(100/84) = 17.4 > 2 log 13 = 5.13; its rows' residual
//     is then exactly 0), column 1 fails (100 log(84/83) = 1.2).
//   - Product 2 (84 rows: 0.84 < 0.85, work 0.84): column 1 fails again:
//     the RIC stop at 1 column; its fit violates no sign.
//   - Product 3 (work 0.84): columns 1..4 join (penalty 0), each a longer
//     description (no sign left to fix).
//   - Product 4 (80 rows, 0.80): columns 5..8 join; 8 joins past the best
//     (1 column), so the regression stops.
//
// The fit is e_1 on column 0 (one more pass over its column, 1/13).
func TestRegressExtendWindow(t *testing.T) {
	const m, n = 100, 13
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range m {
		y[i] = 1
		switch {
		case i < 16:
			phi[i*n] = -1
			y[i] = -1
		case i < 28:
			phi[i*n+i-15] = 1
		}
	}
	s, fit := regressOn(t, phi, m, n, y)
	require.Equal(t, 1, fit.k)
	require.Zero(t, fit.v)
	require.Equal(t, []int{0}, s.rw.sel)
	require.Equal(t, 1, fit.ricK)
	want := make([]float64, n)
	want[0] = 1
	require.Equal(t, want, fit.x)
	require.Equal(t, 4, s.full.products, "products with Phi^T")
	w := 0.0
	for _, d := range []float64{1, 1, 84.0 / 100, 84.0 / 100, 80.0 / 100, 1.0 / 13} {
		w += d
	}
	require.Equal(t, w, s.full.work)
}

// TestRegressHalfViolated pins fitDescription's rule that a fit
// violating half of the signs or more has no description (+Inf: it tells
// them no better than a coin), so that a longer prefix with a finite one
// is kept. Phi is 12 x 100
// with column 0 = -1 on rows 0..5, column 1 = -1 on row 6, the others
// zero; y = -1 throughout. The RIC stops at once (12 log 2 = 8.3 below
// 2 log 100 = 9.2); then column 0 joins (6 violations: 2v = M) and
// column 1 (5 violations). On one column the description would be the
// shorter (log 100 + log(12)/2 + log C(12, 6) = 12.6 against 17.7), but
// it does not count: the fit keeps both columns.
func TestRegressHalfViolated(t *testing.T) {
	const m, n = 12, 100
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range m {
		y[i] = -1
		if i < 6 {
			phi[i*n] = -1
		}
	}
	phi[6*n+1] = -1
	require.Less(t, description(n, m, 1, 6), description(n, m, 2, 5))
	s, fit := regressOn(t, phi, m, n, y)
	require.Equal(t, 2, fit.k)
	require.Equal(t, 5, fit.v)
	require.Equal(t, []int{0, 1}, s.rw.sel)
}

// TestRecoverRegressCandidate pins which sign regression fits Recover
// takes as candidates, through the schedule they choose (the clean one
// when the fit is a candidate and its probit model needs at most
// probitFlipFloor of the signs flipped, the plain one otherwise). On one
// column (N = 1: the RIC's 2 log N is 0, so the column joins and the fit
// is its positive multiple), with a = 10 on 10 signs +1 and tiny values
// on 10 signs -1, the fit violates exactly half the signs: no candidate
// (a fit violating half or more of them is none), though its probit
// model needs no flip (the violations sit at the median's scale or far
// below it, where Phi is near 1/2): the plain schedule. With the last
// sign +1 it violates 9 of 20 and is a candidate: the clean schedule.
// And on 100 signs, 99 of value 1 and one violated 50 deep (the
// probit model cannot beat the count code log 100 there: one flip
// costs at least -log(1/100) + its penalty (log 100)/2), the fitted flip
// rate is the count's 1/100, exactly probitFlipFloor: the clean schedule
// ("at most 1%").
func TestRecoverRegressCandidate(t *testing.T) {
	var s Solver
	for _, c := range []struct {
		name   string
		a, y   []float64
		v      int
		flip   float64
		stages int
	}{
		{name: "half violated", v: 10, stages: 8},
		{name: "9 of 20 violated", v: 9, stages: 3},
		{name: "flip rate 1/100", v: 1, flip: probitFlipFloor, stages: 3},
	} {
		switch c.name {
		case "flip rate 1/100":
			c.a, c.y = make([]float64, 100), make([]float64, 100)
			for i := range 99 {
				c.a[i], c.y[i] = 1, 1
			}
			c.a[99], c.y[99] = 50, -1
		default:
			c.a, c.y = make([]float64, 20), make([]float64, 20)
			for i := range 10 {
				c.a[i], c.y[i] = 10, 1
				c.a[10+i], c.y[10+i] = 1e-12, -1
			}
			c.a[19] = 1e-9
			if c.v == 9 {
				c.y[19] = 1
			}
		}
		p := oneColumn(t, c.a, c.y)
		// The fit, and its probit flip rate, as Recover computes them.
		s.resize(p)
		s.rw.x = make([]float64, 1)
		fit, ok := s.regress(context.Background(), p, s.rw.x)
		require.True(t, ok)
		require.Equal(t, 1, fit.k, c.name)
		require.Equal(t, c.v, fit.v, c.name)
		require.Equal(t, 1.0, s.rw.x[0], c.name)
		_, flip := signCode(s.rw.ax, p.y, make([]float64, p.m))
		require.Equal(t, c.flip, flip, c.name)

		x := make([]float64, 1)
		res, err := s.Recover(context.Background(), p, x, continuationOnly())
		require.NoError(t, err, c.name)
		require.Equal(t, c.stages, res.Stages, c.name)
	}
}

// oneColumn returns the M x 1 Problem with column a and signs y.
func oneColumn(t *testing.T, a, y []float64) *Problem {
	t.Helper()
	p, err := NewProblem(a, len(a), 1, y)
	require.NoError(t, err)
	return p
}

// regressOn runs the sign regression on an m x n problem from a fresh
// Solver and requires it to return a fit; it returns the solver (for its
// selection and counters), the fit x, its support size k and its
// violations v.
func regressOn(t *testing.T, phi []float64, m, n int, y []float64) (*Solver, regressFit) {
	t.Helper()
	p, err := NewProblem(phi, m, n, y)
	require.NoError(t, err)
	s := new(Solver)
	s.resize(p)
	fit, ok := s.regress(t.Context(), p, make([]float64, n))
	require.True(t, ok)
	return s, fit
}

// lsOnSupport returns the unit-norm least-squares fit of p's signs on the
// columns sup (normal equations, solved by Gaussian elimination: the few
// columns of a random Phi are well conditioned).
func lsOnSupport(p *Problem, sup []int) []float64 {
	q := len(sup)
	a := make([]float64, q*(q+1))
	for i := range p.m {
		r := p.phi[i*p.n : (i+1)*p.n]
		for u, j := range sup {
			a[u*(q+1)+q] += r[j] * p.y[i]
			for w, l := range sup {
				a[u*(q+1)+w] += r[j] * r[l]
			}
		}
	}
	for c := range q {
		for u := c + 1; u < q; u++ {
			f := a[u*(q+1)+c] / a[c*(q+1)+c]
			for w := c; w <= q; w++ {
				a[u*(q+1)+w] -= f * a[c*(q+1)+w]
			}
		}
	}
	z := make([]float64, q)
	for u := q - 1; u >= 0; u-- {
		v := a[u*(q+1)+q]
		for w := u + 1; w < q; w++ {
			v -= a[u*(q+1)+w] * z[w]
		}
		z[u] = v / a[u*(q+1)+u]
	}
	x := make([]float64, p.n)
	for u, j := range sup {
		x[j] = z[u]
	}
	normalize(x)
	return x
}
