package neadmm

import (
	"context"
	"errors"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tests found by mutation testing of sphere.go, maxprox.go, pool.go and
// engine.go: each pins a behaviour that a single-line change of the source
// broke without any other test noticing.

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
// relative, and so is the direction of w. With c = 3/4 the root is sqrt(c - 1/2) = 1/2 up
// to ||v||/(4(c - 1/2)) (far below rounding), so w = (1, 1)/(2 sqrt 2):
// 8 eps allowed as in TestSphereProxSubnormalNorm.
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

// maxProxRule transcribes MaxProx's documented rule: with phi sorted
// descending, a_c = (b + phi'_1 + ... + phi'_c)/(c + 1), summed in that
// order, and m* = a_c at the first c with a_c >= phi'_(c+1) (or c = n); then
// t_j = min(phi_j, m*), the first largest phi_j raised to m* when m* is
// above it. strict stops at ">" instead (the paper), to check that a case
// tells the two apart.
func maxProxRule(phi []float64, b float64, strict bool) []float64 {
	desc := slices.Clone(phi)
	slices.Sort(desc)
	slices.Reverse(desc)
	n := len(desc)
	m, sum := 0.0, b
	for c := 1; c <= n; c++ {
		sum += desc[c-1]
		m = sum / float64(c+1)
		if c == n || m > desc[c] || (!strict && m == desc[c]) {
			break
		}
	}
	t := make([]float64, n)
	for j, x := range phi {
		t[j] = min(x, m)
	}
	if top := slices.Index(phi, desc[0]); m > phi[top] {
		t[top] = m
	}
	return t
}

// TestMaxProxStopsAtEquality pins ">=" in MaxProx's scans (the filtered
// one and maxProxScan, which the overflow path uses): the doc says a_c =
// phi'_(c+1) gives a_(c+1) = a_c, so ">=" and ">" agree in exact
// arithmetic, but MaxProx promises the bits of its own (">=") rule. These
// cases (found by a search) have a_c == phi'_(c+1) in floating point and an
// a_(c+1) that rounds differently, so ">" would return other bits.
// The second case, scaled by 2^1023, makes b + max phi overflow: the scaled
// search must give the unscaled result times 2^1023 exactly (powers of two
// scale exactly; MaxProx is homogeneous).
func TestMaxProxStopsAtEquality(t *testing.T) {
	for _, tc := range []struct {
		phi []float64
		b   float64
	}{
		// a_4 = (b + 0.2817 + 0.16 + 0.1578 + 0.129)/5 == 0.0621, filtered search.
		{[]float64{0.129, 0.28169999999999995, 0.0621, 0.16000000000000003, 0.15780000000000002}, -0.418},
		// a_1 = (1.087 + 1.623)/2 == 1.355: no search at this scale.
		{[]float64{1.0612, 1.623, 1.355}, 1.087},
	} {
		want := maxProxRule(tc.phi, tc.b, false)
		require.NotEqual(t, want, maxProxRule(tc.phi, tc.b, true), "the case must tell >= from >")
		got := make([]float64, len(tc.phi))
		MaxProx(got, tc.phi, tc.b)
		require.Equal(t, want, got, "phi=%v b=%v", tc.phi, tc.b)
		const s = 0x1p1023
		phiS := scaled(tc.phi, s)
		if slices.Max(phiS)+tc.b*s <= math.MaxFloat64 {
			continue // the scaled path needs an overflowing sum
		}
		MaxProx(got, phiS, tc.b*s)
		require.Equal(t, scaled(want, s), got, "phi=%v b=%v, times 2^1023", tc.phi, tc.b)
	}
}

// constProblem is a one-dimensional problem whose updates set x1 = 1 and
// x2 = -1 (f1 = x1, f2 = x2, J^T v = jt*v), so that from x2 = -1 every
// iteration has r = r0 and s = 0 exactly. It counts the Constraint1JacT and
// Objective calls, and its failAt-th x2-update returns err.
type constProblem struct {
	jt, r0          float64
	failAt, x2calls int
	err             error
	jacT, objective int
}

func (p *constProblem) Dims() (int, int, int) { return 1, 1, 1 }
func (p *constProblem) UpdateX1(x1, _, _ []float64, _ float64) error {
	x1[0] = 1 + p.r0
	return nil
}
func (p *constProblem) UpdateX2(x2, _, _ []float64, _ float64) error {
	if p.x2calls++; p.x2calls == p.failAt {
		return p.err
	}
	x2[0] = -1
	return nil
}
func (p *constProblem) Constraint1(dst, x1 []float64) { dst[0] = x1[0] }
func (p *constProblem) Constraint2(dst, x2 []float64) { dst[0] = x2[0] }
func (p *constProblem) Constraint1JacT(dst, _, v []float64) {
	p.jacT++
	dst[0] = p.jt * v[0]
}
func (p *constProblem) Objective(x1, x2 []float64) float64 {
	p.objective++
	return x1[0] + x2[0]
}

func solveConst(p *constProblem, y0 float64, opt Options) (Result, error) {
	var sv Solver
	return sv.Solve(context.Background(), p, []float64{1}, []float64{-1}, []float64{y0}, opt)
}

// TestResidualsMetAtEquality pins "<=" in both halves of the residual test
// (Iteration.ResidualsMet: Primal <= EpsPrimal and Dual <= EpsDual), on the
// method and through Solve: with EpsAbs = EpsRel = 0 the doc of
// Options.EpsAbs says exact feasibility (r = 0, s = 0) still stops the
// solve, in the first iteration here.
func TestResidualsMetAtEquality(t *testing.T) {
	require.True(t, Iteration{Primal: 1, EpsPrimal: 1, Dual: 0.5, EpsDual: 1}.ResidualsMet())
	require.True(t, Iteration{Primal: 0.5, EpsPrimal: 1, Dual: 1, EpsDual: 1}.ResidualsMet())
	require.False(t, Iteration{Primal: math.Nextafter(1, 2), EpsPrimal: 1, Dual: 0, EpsDual: 1}.ResidualsMet())
	require.False(t, Iteration{Primal: 0, EpsPrimal: 1, Dual: math.Nextafter(1, 2), EpsDual: 1}.ResidualsMet())
	res, err := solveConst(&constProblem{jt: 1}, 0, Options{Rho: 1, MaxIter: 5})
	require.NoError(t, err)
	require.Equal(t, StopConverged, res.Reason)
	require.Equal(t, 1, res.Iterations)
	require.Zero(t, res.Primal)
	require.Zero(t, res.Dual)
}

// TestSolveJacTCalls pins the count of Constraint1JacT calls that Problem
// documents: once per iteration, twice with Options.EpsRel > 0 (the second
// gives ||J^T y|| for the dual tolerance), so EpsRel = 0 must not pay for
// the second.
func TestSolveJacTCalls(t *testing.T) {
	for _, tc := range []struct {
		epsRel float64
		want   int
	}{{0, 3}, {1e-300, 6}} {
		p := &constProblem{jt: 1, r0: 1} // r = 1: no convergence
		res, err := solveConst(p, 0, Options{Rho: 1, MaxIter: 3, EpsRel: tc.epsRel})
		require.NoError(t, err)
		require.Equal(t, 3, res.Iterations)
		require.Equal(t, tc.want, p.jacT, "EpsRel = %g", tc.epsRel)
	}
}

// TestSolveFailedNoObjective pins Result.Objective's doc: a solve that
// ended with Reason StopError has Objective NaN even with FinalObjective,
// and the objective is not evaluated. Here the x2-update of iteration 2
// returns an error and leaves a finite iterate (x1 = 1, x2 = -1, where the
// objective would be 0), so the NaN cannot come from the iterate.
func TestSolveFailedNoObjective(t *testing.T) {
	boom := errors.New("boom")
	p := &constProblem{jt: 1, r0: 1, failAt: 2, err: boom}
	res, err := solveConst(p, 0, Options{Rho: 1, MaxIter: 5, FinalObjective: true})
	require.ErrorIs(t, err, boom)
	require.Equal(t, StopError, res.Reason)
	require.True(t, math.IsNaN(res.Objective), "Objective = %v", res.Objective)
	require.Zero(t, p.objective, "Objective calls")
}

// TestSolveInfiniteDualTolerance pins Solve's check of the dual
// tolerance: with y = 1e300 and J^T = 1e10, ||J^T y|| overflows and
// EpsDual = EpsRel*||J^T y|| is +Inf while y, r = 0 and s = 0 are finite.
// An infinite tolerance would pass the dual test whatever s is; Solve
// reports it as a non-finite step instead (StopError, ErrNotFinite).
func TestSolveInfiniteDualTolerance(t *testing.T) {
	p := &constProblem{jt: 1e10}
	res, err := solveConst(p, 1e300, Options{Rho: 1, MaxIter: 5, EpsRel: 1e-3})
	require.ErrorIs(t, err, ErrNotFinite)
	require.ErrorContains(t, err, "iteration 1: residual or y")
	require.Equal(t, StopError, res.Reason)
}

// bigProblem has m = 2 and f1(x1) = (x1, x1), f2(x2) = (x2, x2) with the
// updates putting x1 = 1.5e308 and x2 = -1.5e308 + 1e292 (where the test also
// starts, so that f2 does not change and the dual residual is 0): every
// entry and r = (1e292, 1e292) are finite, but ||f1|| = sqrt(2) 1.5e308
// overflows.
type bigProblem struct{}

func (bigProblem) Dims() (int, int, int) { return 1, 1, 2 }
func (bigProblem) UpdateX1(x1, _, _ []float64, _ float64) error {
	x1[0] = 1.5e308
	return nil
}
func (bigProblem) UpdateX2(x2, _, _ []float64, _ float64) error {
	x2[0] = -1.5e308 + 1e292
	return nil
}
func (bigProblem) Constraint1(dst, x1 []float64)       { dst[0], dst[1] = x1[0], x1[0] }
func (bigProblem) Constraint2(dst, x2 []float64)       { dst[0], dst[1] = x2[0], x2[0] }
func (bigProblem) Constraint1JacT(dst, _, v []float64) { dst[0] = v[0] + v[1] }

// TestSolveInfinitePrimalTolerance pins the primal side of that check:
// EpsPrimal = EpsRel*max(||f1||, ||f2||) is +Inf on bigProblem while the
// primal residual ||r|| = sqrt(2) 1e292 is finite; an infinite tolerance
// would call r = 1e292 converged, so Solve reports a non-finite step
// (StopError, ErrNotFinite). With EpsRel = 0 the tolerance is finite and
// the solve runs to its iteration cap.
func TestSolveInfinitePrimalTolerance(t *testing.T) {
	solve := func(epsRel float64) (Result, error) {
		var sv Solver
		return sv.Solve(context.Background(), bigProblem{}, []float64{1.5e308}, []float64{-1.5e308 + 1e292}, []float64{0, 0},
			Options{Rho: 1e-300, MaxIter: 3, EpsRel: epsRel})
	}
	res, err := solve(1e-3)
	require.ErrorIs(t, err, ErrNotFinite)
	require.ErrorContains(t, err, "iteration 1: residual or y")
	require.Equal(t, StopError, res.Reason)
	res, err = solve(0)
	require.NoError(t, err)
	require.Equal(t, StopMaxIter, res.Reason)
}
