package neadmm_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// sqrtProblem is min x + z s.t. sqrt(x) + sqrt(z) = 1, optimum x = z = 1/4
// with multiplier y = -1: f1(x) = sqrt(x), f2(z) = sqrt(z) - 1.
type sqrtProblem struct{}

func (sqrtProblem) Dims() (int, int, int) { return 1, 1, 1 }

// sqrtStep minimizes u^2 + y u + rho/2 (u + c)^2 over u = sqrt(x) >= 0.
func sqrtStep(y, rho, c float64) float64 {
	u := max(0, -(y+rho*c)/(2+rho))
	return u * u
}

func (sqrtProblem) UpdateX1(x1, x2, y []float64, rho float64) error {
	x1[0] = sqrtStep(y[0], rho, math.Sqrt(x2[0])-1)
	return nil
}

func (sqrtProblem) UpdateX2(x2, x1, y []float64, rho float64) error {
	x2[0] = sqrtStep(y[0], rho, math.Sqrt(x1[0])-1)
	return nil
}

func (sqrtProblem) Constraint1(dst, x1 []float64)        { dst[0] = math.Sqrt(x1[0]) }
func (sqrtProblem) Constraint2(dst, x2 []float64)        { dst[0] = math.Sqrt(x2[0]) - 1 }
func (sqrtProblem) Constraint1JacT(dst, x1, v []float64) { dst[0] = v[0] / (2 * math.Sqrt(x1[0])) }
func (sqrtProblem) Objective(x1, x2 []float64) float64   { return x1[0] + x2[0] }

// maxProblem is min (q - b)^2 + ||s - phi||^2 s.t. q = max t, t = s: one
// bag of multi-instance learning with x1 = (q, s), x2 = t, f1 = (q, -s),
// f2 = (-max t, t). The optimum is s = neadmm.MaxProx(phi, b), q = max s.
type maxProblem struct {
	phi, v []float64
	b      float64
}

func (p *maxProblem) Dims() (int, int, int) { n := len(p.phi); return 1 + n, n, 1 + n }

func (p *maxProblem) UpdateX1(x1, t, y []float64, rho float64) error {
	x1[0] = (2*p.b - y[0] + rho*slices.Max(t)) / (2 + rho)
	for j := range t {
		x1[1+j] = (2*p.phi[j] + y[1+j] + rho*t[j]) / (2 + rho)
	}
	return nil
}

func (p *maxProblem) UpdateX2(t, x1, y []float64, rho float64) error {
	vec.AddScaledTo(p.v, x1[1:], -1/rho, y[1:])
	neadmm.MaxProx(t, p.v, x1[0]+y[0]/rho)
	return nil
}

func (p *maxProblem) Constraint1(dst, x1 []float64) {
	dst[0] = x1[0]
	for j, s := range x1[1:] {
		dst[1+j] = -s
	}
}

func (p *maxProblem) Constraint2(dst, t []float64) {
	dst[0] = -slices.Max(t)
	copy(dst[1:], t)
}

func (p *maxProblem) Constraint1JacT(dst, x1, v []float64) {
	dst[0] = v[0]
	for j := range v[1:] {
		dst[1+j] = -v[1+j]
	}
}

func (p *maxProblem) Objective(x1, t []float64) float64 {
	g := (x1[0] - p.b) * (x1[0] - p.b)
	for j, s := range x1[1:] {
		g += (s - p.phi[j]) * (s - p.phi[j])
	}
	return g
}

func TestSolveSqrt(t *testing.T) {
	for _, pol := range []neadmm.RhoPolicy{neadmm.RhoGeometric, neadmm.RhoFixed, neadmm.RhoBalance} {
		x1, x2, y := []float64{1}, []float64{1}, []float64{-2}
		var sv neadmm.Solver
		res, err := sv.Solve(context.Background(), sqrtProblem{}, x1, x2, y,
			neadmm.Options{Rho: 1, Policy: pol, EpsAbs: 1e-10, EpsRel: 1e-10, MaxIter: 10000, FinalObjective: true})
		require.NoError(t, err, pol)
		require.Equal(t, neadmm.StopConverged, res.Reason, "%v: %+v", pol, res)
		// At ||r|| <= ~1e-10 and ||s|| <= ~1e-10 the iterate is within a
		// small multiple of that of the KKT point (x, z, y) = (1/4, 1/4, -1).
		assert.InDelta(t, 0.25, x1[0], 1e-8, "%v: x", pol)
		assert.InDelta(t, 0.25, x2[0], 1e-8, "%v: z", pol)
		assert.InDelta(t, -1, y[0], 1e-8, "%v: y", pol)
		assert.InDelta(t, 0.5, res.Objective, 1e-8, "%v: objective", pol)
		t.Logf("%v: %d iterations, rho %g", pol, res.Iterations, res.Rho)
	}
}

func TestSolveSphere(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for trial := range 20 {
		n := 1 + r.IntN(30)
		a := make([]float64, n)
		for i := range a {
			a[i] = r.NormFloat64() * 3
		}
		p := newProjection(a)
		for _, pol := range []neadmm.RhoPolicy{neadmm.RhoGeometric, neadmm.RhoFixed, neadmm.RhoBalance} {
			x, w, y := make([]float64, n), make([]float64, n), make([]float64, n+1)
			for i := range w {
				w[i] = r.NormFloat64()
			}
			var sv neadmm.Solver
			res, err := sv.Solve(context.Background(), p, x, w, y,
				neadmm.Options{Rho: 2, Policy: pol, EpsAbs: 1e-10, EpsRel: 1e-9, MaxIter: 20000})
			require.NoError(t, err)
			require.Equal(t, neadmm.StopConverged, res.Reason, "trial %d %v: %+v", trial, pol, res)
			na := vec.Nrm2(a)
			for i := range x {
				require.InDelta(t, a[i]/na, x[i], 1e-7, "trial %d %v: x[%d]", trial, pol, i)
				require.InDelta(t, a[i]/na, w[i], 1e-7, "trial %d %v: w[%d]", trial, pol, i)
			}
		}
	}
}

// TestSolveMax runs the max-constrained problem. A fixed rho (and residual
// balancing, whose dead band |log(r/s)| < log(mu) contains the oscillation)
// stalls on some instances with r and s of the same size; the growing rho
// converges on every instance.
func TestSolveMax(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	stalled := map[neadmm.RhoPolicy]int{}
	const trials = 50
	for trial := range trials {
		n := 1 + r.IntN(20)
		phi, b := neadmm.RandomMaxCase(r, n)
		p := &maxProblem{phi: phi, b: b, v: make([]float64, n)}
		best := make([]float64, n)
		neadmm.MaxProx(best, phi, b)
		hBest, scale := neadmm.MaxObjective(best, phi, b)
		for _, pol := range []neadmm.RhoPolicy{neadmm.RhoGeometric, neadmm.RhoFixed, neadmm.RhoBalance} {
			x1, tt, y := make([]float64, n+1), make([]float64, n), make([]float64, n+1)
			var sv neadmm.Solver
			res, err := sv.Solve(context.Background(), p, x1, tt, y,
				neadmm.Options{Rho: 1, Policy: pol, EpsAbs: 1e-10, EpsRel: 1e-9, MaxIter: 20000, FinalObjective: true})
			require.NoError(t, err)
			if res.Reason != neadmm.StopConverged {
				require.NotEqual(t, neadmm.RhoGeometric, pol, "trial %d: %+v", trial, res)
				stalled[pol]++
				continue
			}
			// Feasible to ~1e-9, and optimal: the objective matches
			// h(neadmm.MaxProx(phi, b)) (the minimizer itself may differ
			// when phi has tied maxima below b). The objective is
			// Lipschitz in the iterate with constant ~2*sqrt(scale).
			require.InDelta(t, slices.Max(x1[1:]), x1[0], 1e-8*math.Sqrt(scale), "trial %d %v: q vs max s", trial, pol)
			require.InDelta(t, hBest, res.Objective, 1e-7*scale, "trial %d %v: objective (phi=%v b=%g)", trial, pol, phi, b)
		}
	}
	t.Logf("stalled out of %d: %v", trials, stalled)
}

func TestSolveStopReasons(t *testing.T) {
	ctx := context.Background()
	opt := neadmm.Options{Rho: 1, EpsAbs: 1e-300, MaxIter: 7}
	var sv neadmm.Solver
	res, err := sv.Solve(ctx, sqrtProblem{}, []float64{1}, []float64{1}, []float64{-2}, opt)
	require.NoError(t, err)
	assert.Equal(t, neadmm.StopMaxIter, res.Reason)
	assert.Equal(t, 7, res.Iterations)

	// Callback stop at iteration 4; the callback sees iterations 1..4.
	var seen []int
	opt.MaxIter = 100
	opt.Callback = func(it neadmm.Iteration) bool { seen = append(seen, it.K); return it.K == 4 }
	res, err = sv.Solve(ctx, sqrtProblem{}, []float64{1}, []float64{1}, []float64{-2}, opt)
	require.NoError(t, err)
	assert.Equal(t, neadmm.StopCallback, res.Reason)
	assert.Equal(t, 4, res.Iterations)
	assert.Equal(t, []int{1, 2, 3, 4}, seen)

	// Cancelled before the first iteration.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	opt.Callback = nil
	opt.FinalObjective = true
	x1 := []float64{1}
	res, err = sv.Solve(cctx, sqrtProblem{}, x1, []float64{1}, []float64{-2}, opt)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, neadmm.StopCancelled, res.Reason)
	assert.Zero(t, res.Iterations)
	assert.Equal(t, 1.0, x1[0])

	// Cancelled from inside iteration 5: the check before iteration 6 stops.
	cctx, cancel = context.WithCancel(ctx)
	defer cancel()
	opt.Callback = func(it neadmm.Iteration) bool {
		if it.K == 5 {
			cancel()
		}
		return false
	}
	res, err = sv.Solve(cctx, sqrtProblem{}, []float64{1}, []float64{1}, []float64{-2}, opt)
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "before iteration 6")
	assert.Equal(t, neadmm.StopCancelled, res.Reason)
	assert.Equal(t, 5, res.Iterations)
	assert.False(t, math.IsNaN(res.Objective), "a cancelled solve with FinalObjective has an objective")
}

// TestSolveStopTest checks the second convergence test and the precedence
// of the stopping rules: residual test, then StopTest, then Callback.
func TestSolveStopTest(t *testing.T) {
	ctx := context.Background()
	var sv neadmm.Solver
	run := func(opt neadmm.Options) neadmm.Result {
		t.Helper()
		res, err := sv.Solve(ctx, sqrtProblem{}, []float64{1}, []float64{1}, []float64{-2}, opt)
		require.NoError(t, err)
		return res
	}
	var tested, called []int
	opt := neadmm.Options{Rho: 1, EpsAbs: 1e-300, MaxIter: 100,
		StopTest: func(it neadmm.Iteration) bool { tested = append(tested, it.K); return it.K == 4 },
		Callback: func(it neadmm.Iteration) bool { called = append(called, it.K); return it.K >= 4 },
	}
	res := run(opt)
	assert.Equal(t, neadmm.StopTest, res.Reason, "the test wins over the callback")
	assert.Equal(t, 4, res.Iterations)
	assert.Equal(t, []int{1, 2, 3, 4}, tested)
	assert.Equal(t, []int{1, 2, 3, 4}, called)
	assert.Equal(t, "stop test", res.Reason.String())

	// The callback alone.
	opt.StopTest = func(neadmm.Iteration) bool { return false }
	res = run(opt)
	assert.Equal(t, neadmm.StopCallback, res.Reason)

	// The residual test passes at iteration 1 (loose tolerances): it wins
	// over both hooks, which still see the iteration.
	tested, called = nil, nil
	opt.EpsAbs = 1e3
	opt.StopTest = func(it neadmm.Iteration) bool { tested = append(tested, it.K); return true }
	opt.Callback = func(it neadmm.Iteration) bool { called = append(called, it.K); return true }
	res = run(opt)
	assert.Equal(t, neadmm.StopConverged, res.Reason)
	assert.Equal(t, 1, res.Iterations)
	assert.Equal(t, []int{1}, tested)
	assert.Equal(t, []int{1}, called)

	// The test sees the same iteration values as the callback, including
	// the objective when asked for.
	var fromTest, fromCallback []neadmm.Iteration
	opt = neadmm.Options{Rho: 1, EpsAbs: 1e-300, MaxIter: 5, IterationObjective: true,
		StopTest: func(it neadmm.Iteration) bool { fromTest = append(fromTest, it); return false },
		Callback: func(it neadmm.Iteration) bool { fromCallback = append(fromCallback, it); return false },
	}
	res = run(opt)
	assert.Equal(t, neadmm.StopMaxIter, res.Reason)
	require.Len(t, fromTest, 5)
	assert.Equal(t, fromCallback, fromTest)
	for _, it := range fromTest {
		assert.False(t, math.IsNaN(it.Objective))
		assert.Equal(t, it.Primal <= it.EpsPrimal && it.Dual <= it.EpsDual, it.ResidualsMet())
	}
}

// counting counts the Objective calls of sqrtProblem.
type counting struct {
	sqrtProblem
	objectives int
}

func (c *counting) Objective(x1, x2 []float64) float64 {
	c.objectives++
	return c.sqrtProblem.Objective(x1, x2)
}

// noObjective hides sqrtProblem's Objective method.
type noObjective struct{ neadmm.Problem }

// TestSolveObjectiveOptIn: the engine evaluates the objective only when an
// option asks for it, exactly as often as documented.
func TestSolveObjectiveOptIn(t *testing.T) {
	ctx := context.Background()
	var sv neadmm.Solver
	var objs []float64
	cb := func(it neadmm.Iteration) bool { objs = append(objs, it.Objective); return false }
	for _, tc := range []struct {
		iter, final bool
		calls       int
	}{{false, false, 0}, {true, false, 6}, {false, true, 1}, {true, true, 7}} {
		p := &counting{}
		objs = nil
		x1, x2 := []float64{1}, []float64{1}
		res, err := sv.Solve(ctx, p, x1, x2, []float64{-2}, neadmm.Options{Rho: 1, EpsAbs: 1e-300, MaxIter: 6,
			Callback: cb, IterationObjective: tc.iter, FinalObjective: tc.final})
		require.NoError(t, err)
		assert.Equal(t, tc.calls, p.objectives, "%+v", tc)
		require.Len(t, objs, 6)
		assert.Equal(t, !tc.iter, math.IsNaN(objs[5]), "%+v: Iteration.Objective %g", tc, objs[5])
		if tc.final {
			assert.Equal(t, x1[0]+x2[0], res.Objective) // bit-exact: the same expression
		} else {
			assert.True(t, math.IsNaN(res.Objective), "%+v: Result.Objective %g", tc, res.Objective)
		}
	}
	// A failed solve has no objective even when asked for.
	res, err := sv.Solve(ctx, failingWithObjective{&failing{Problem: sqrtProblem{}, at: 2}}, []float64{1}, []float64{1}, []float64{-2},
		neadmm.Options{Rho: 1, MaxIter: 6, FinalObjective: true})
	require.ErrorIs(t, err, neadmm.ErrNotFinite)
	assert.True(t, math.IsNaN(res.Objective))
	// Asking a problem without Objectiver is bad input.
	for _, opt := range []neadmm.Options{{Rho: 1, MaxIter: 3, IterationObjective: true}, {Rho: 1, MaxIter: 3, FinalObjective: true}} {
		res, err := sv.Solve(ctx, noObjective{sqrtProblem{}}, []float64{1}, []float64{1}, []float64{-2}, opt)
		require.ErrorIs(t, err, neadmm.ErrBadInput)
		assert.ErrorContains(t, err, "Objectiver")
		assert.Equal(t, neadmm.StopInvalid, res.Reason)
	}
}

// TestSolveCallbackValues recomputes the residuals the callback reports
// from the iterates it can see. Two cases so that the primal tolerance's
// max(||f1||, ||f2||) takes each side: with a = (3, -1, 2) ||f1|| = ||x||
// stays the larger; with a short a and w started far out ||f2|| is (a
// formula without ||f2|| passed the first case alone).
func TestSolveCallbackValues(t *testing.T) {
	var f1Larger, f2Larger int
	for _, c := range []struct{ a, w0 []float64 }{
		{[]float64{3, -1, 2}, []float64{1, 0, 0}},
		{[]float64{0.1, 0.05, 0}, []float64{3, 0, 0}},
	} {
		p := newProjection(c.a)
		x, w, y := make([]float64, 3), slices.Clone(c.w0), make([]float64, 4)
		prevW := slices.Clone(w)
		k := 0
		opt := neadmm.Options{Rho: 0.5, Policy: neadmm.RhoGeometric, RhoGrowth: 1.1, RhoMax: 2, EpsAbs: 1e-9, EpsRel: 1e-6,
			MaxIter: 200, IterationObjective: true}
		opt.Callback = func(it neadmm.Iteration) bool {
			k++
			require.Equal(t, k, it.K)
			want := min(0.5*math.Pow(1.1, float64(k-1)), 2)
			require.InDelta(t, want, it.Rho, 1e-12*want, "iteration %d: rho", k)
			// r = (||w||^2 - 1, w - x); s = rho*J^T(f2 - f2old) = -rho*(w - wold).
			r0 := vec.Dot(w, w) - 1
			rr := r0 * r0
			ss := 0.0
			for i := range w {
				rr += (w[i] - x[i]) * (w[i] - x[i])
				ss += (w[i] - prevW[i]) * (w[i] - prevW[i])
			}
			require.InDelta(t, math.Sqrt(rr), it.Primal, 1e-12*(1+it.Primal), "iteration %d: ||r||", k)
			require.InDelta(t, it.Rho*math.Sqrt(ss), it.Dual, 1e-12*(1+it.Dual), "iteration %d: ||s||", k)
			// eps_pri = sqrt(m) EpsAbs + EpsRel max(||f1||, ||f2||) and
			// eps_dual = sqrt(n1) EpsAbs + EpsRel ||J^T y|| = ... ||y[1:]||.
			nf1, nf2 := vec.Nrm2(x), math.Sqrt(r0*r0+vec.Dot(w, w))
			if nf2 > nf1 {
				f2Larger++
			} else {
				f1Larger++
			}
			wantPri := 2*opt.EpsAbs + opt.EpsRel*max(nf1, nf2)
			wantDual := math.Sqrt(3)*opt.EpsAbs + opt.EpsRel*vec.Nrm2(y[1:])
			require.InDelta(t, wantPri, it.EpsPrimal, 1e-12*wantPri, "iteration %d: eps_pri", k)
			require.InDelta(t, wantDual, it.EpsDual, 1e-12*wantDual, "iteration %d: eps_dual", k)
			if want := p.Objective(x, w); it.Objective != want { // bit-exact: the same call
				t.Fatalf("iteration %d: objective %g, want %g", k, it.Objective, want)
			}
			copy(prevW, w)
			return false
		}
		var sv neadmm.Solver
		res, err := sv.Solve(context.Background(), p, x, w, y, opt)
		require.NoError(t, err)
		assert.Equal(t, neadmm.StopConverged, res.Reason)
		assert.Equal(t, k, res.Iterations)
	}
	assert.Positive(t, f1Larger, "no iteration with ||f1|| the larger")
	assert.Positive(t, f2Larger, "no iteration with ||f2|| the larger")
}

func TestRhoPolicies(t *testing.T) {
	record := func(opt neadmm.Options) []float64 {
		var rhos []float64
		opt.Callback = func(it neadmm.Iteration) bool { rhos = append(rhos, it.Rho); return false }
		opt.MaxIter = 30
		var sv neadmm.Solver
		a := []float64{3, -1, 2}
		_, err := sv.Solve(context.Background(), newProjection(a), make([]float64, 3), []float64{1, 0, 0}, make([]float64, 4), opt)
		require.NoError(t, err)
		return rhos
	}
	for _, r := range record(neadmm.Options{Rho: 3, Policy: neadmm.RhoFixed}) {
		require.Equal(t, 3.0, r, "fixed")
	}
	rh := record(neadmm.Options{Rho: 1})
	assert.Equal(t, 1.0, rh[0])
	assert.InDelta(t, math.Pow(neadmm.DefaultRhoGrowth, 29), rh[29], 1e-12, "geometric default")
	rh = record(neadmm.Options{Rho: 1, RhoGrowth: 2, RhoMax: 100})
	assert.Equal(t, []float64{64, 100, 100}, []float64{rh[6], rh[7], rh[29]}, "geometric capped")
	// Balancing: every change is a factor tau, within [RhoMin, RhoMax].
	var iters []neadmm.Iteration
	opt := neadmm.Options{Rho: 1e-3, Policy: neadmm.RhoBalance, BalanceMu: 2, BalanceTau: 3, RhoMax: 1, MaxIter: 40}
	opt.Callback = func(it neadmm.Iteration) bool { iters = append(iters, it); return false }
	var sv neadmm.Solver
	_, err := sv.Solve(context.Background(), newProjection([]float64{3, -1, 2}), make([]float64, 3), []float64{1, 0, 0}, make([]float64, 4), opt)
	require.NoError(t, err)
	changes := 0
	for k := 1; k < len(iters); k++ {
		prev, rho := iters[k-1], iters[k].Rho
		want := prev.Rho
		if prev.Primal > 2*prev.Dual {
			want = min(prev.Rho*3, 1)
		} else if prev.Dual > 2*prev.Primal {
			want = max(prev.Rho/3, 1e-9)
		}
		require.InDelta(t, want, rho, 1e-12*want, "balance iteration %d (r=%g s=%g)", k+1, prev.Primal, prev.Dual)
		if rho != prev.Rho {
			changes++
		}
	}
	assert.Positive(t, changes, "balancing never changed rho from 1e-3")
}

// countUp returns a scripted problem of n iterations whose primal
// residual is 0 and whose dual residual is not (x1 counts up, x2 = -x1
// follows it): RhoBalance lowers rho every iteration.
func countUp(n int) *scripted {
	p := &scripted{a: make([]float64, n), b: make([]float64, n)}
	for k := range n {
		p.a[k], p.b[k] = float64(k+1), -float64(k+1)
	}
	return p
}

// TestRhoBalanceFloor: balancing lowers rho down to RhoMin and never below
// MinRho, even from the smallest Rho Validate accepts (whose default
// RhoMin, 1e-6 x Rho, was subnormal; for a subnormal Rho, which Validate
// now refuses, it rounded to 0 and rho reached 0).
func TestRhoBalanceFloor(t *testing.T) {
	for _, bad := range []float64{math.SmallestNonzeroFloat64, neadmm.MinRho / 2} {
		err := neadmm.Options{Rho: bad, MaxIter: 1}.Validate()
		require.ErrorIs(t, err, neadmm.ErrBadInput, "Rho %g", bad)
		err = neadmm.Options{Rho: 1, RhoMin: bad, MaxIter: 1}.Validate()
		require.ErrorIs(t, err, neadmm.ErrBadInput, "RhoMin %g", bad)
	}
	for _, rho := range []float64{1, neadmm.MinRho} {
		p := countUp(30)
		var sv neadmm.Solver
		_, err := sv.Solve(context.Background(), p, []float64{0}, []float64{0}, []float64{0},
			neadmm.Options{Rho: rho, Policy: neadmm.RhoBalance, MaxIter: 30})
		require.NoError(t, err)
		require.Len(t, p.rhos, 30)
		floor := max(rho*neadmm.DefaultRhoMinFactor, neadmm.MinRho)
		for k, r := range p.rhos {
			require.Positive(t, r, "Rho %g, iteration %d", rho, k+1)
			require.GreaterOrEqual(t, r, floor)
		}
		assert.Equal(t, floor, p.rhos[29], "Rho %g: rho did not reach the floor", rho)
	}
}

// failing wraps a problem and corrupts x2 (or returns an error) at one
// iteration.
type failing struct {
	neadmm.Problem
	at, calls int
	err       error
}

func (f *failing) UpdateX2(x2, x1, y []float64, rho float64) error {
	f.calls++
	if err := f.Problem.UpdateX2(x2, x1, y, rho); err != nil {
		return err
	}
	if f.calls == f.at {
		if f.err != nil {
			return f.err
		}
		x2[0] = math.NaN()
	}
	return nil
}

// failingWithObjective is failing with sqrtProblem's objective.
type failingWithObjective struct{ *failing }

func (f failingWithObjective) Objective(x1, x2 []float64) float64 { return x1[0] + x2[0] }

func TestSolveFailures(t *testing.T) {
	var sv neadmm.Solver
	opt := neadmm.Options{Rho: 1, MaxIter: 100}
	p := &failing{Problem: sqrtProblem{}, at: 3}
	res, err := sv.Solve(context.Background(), p, []float64{1}, []float64{1}, []float64{-2}, opt)
	require.ErrorIs(t, err, neadmm.ErrNotFinite)
	assert.ErrorContains(t, err, "iteration 3: x2")
	assert.Equal(t, neadmm.StopError, res.Reason)
	assert.Equal(t, 2, res.Iterations)

	sentinel := errors.New("inner solver failed")
	p = &failing{Problem: sqrtProblem{}, at: 2, err: sentinel}
	res, err = sv.Solve(context.Background(), p, []float64{1}, []float64{1}, []float64{-2}, opt)
	require.ErrorIs(t, err, sentinel)
	assert.ErrorContains(t, err, "iteration 2: x2-update")
	assert.Equal(t, neadmm.StopError, res.Reason)

	// x1 = 0 makes the Jacobian of sqrt infinite: a non-finite residual.
	_, err = sv.Solve(context.Background(), sqrtProblem{}, []float64{1}, []float64{1}, []float64{0}, opt)
	require.ErrorIs(t, err, neadmm.ErrNotFinite)
	assert.ErrorContains(t, err, "iteration 1: residual")
}

// badDims reports dimensions the engine must reject.
type badDims struct {
	sqrtProblem
	n1, n2, m int
}

func (d badDims) Dims() (int, int, int) { return d.n1, d.n2, d.m }

func TestSolveBadInput(t *testing.T) {
	good := neadmm.Options{Rho: 1, MaxIter: 10}
	for _, tc := range []struct {
		mod       func(*neadmm.Options)
		x1, x2, y []float64
		want      string
	}{
		{func(o *neadmm.Options) { o.Rho = 0 }, nil, nil, nil, "Options.Rho = 0"},
		{func(o *neadmm.Options) { o.Rho = -1 }, nil, nil, nil, "Options.Rho = -1"},
		{func(o *neadmm.Options) { o.Rho = math.Inf(1) }, nil, nil, nil, "Options.Rho = +Inf"},
		{func(o *neadmm.Options) { o.Rho = math.NaN() }, nil, nil, nil, "Options.Rho = NaN"},
		{func(o *neadmm.Options) { o.MaxIter = 0 }, nil, nil, nil, "Options.MaxIter = 0"},
		{func(o *neadmm.Options) { o.MaxIter = -1 }, nil, nil, nil, "Options.MaxIter = -1"},
		{func(o *neadmm.Options) { o.EpsAbs = math.NaN() }, nil, nil, nil, "Options.EpsAbs = NaN"},
		{func(o *neadmm.Options) { o.EpsAbs = math.Inf(1) }, nil, nil, nil, "Options.EpsAbs = +Inf"},
		{func(o *neadmm.Options) { o.EpsRel = -1 }, nil, nil, nil, "Options.EpsRel = -1"},
		{func(o *neadmm.Options) { o.Policy = 9 }, nil, nil, nil, "Options.Policy = 9, unknown"},
		{func(o *neadmm.Options) { o.Policy = -1 }, nil, nil, nil, "Options.Policy = -1, unknown"},
		{func(o *neadmm.Options) { o.RhoGrowth = 0.5 }, nil, nil, nil, "Options.RhoGrowth = 0.5"},
		{func(o *neadmm.Options) { o.RhoGrowth = math.Inf(1) }, nil, nil, nil, "Options.RhoGrowth = +Inf"},
		{func(o *neadmm.Options) { o.RhoMax = 0.5 }, nil, nil, nil, "Options.RhoMax = 0.5"},
		{func(o *neadmm.Options) { o.RhoMax = math.NaN() }, nil, nil, nil, "Options.RhoMax = NaN"},
		{func(o *neadmm.Options) { o.RhoMin = 2 }, nil, nil, nil, "Options.RhoMin = 2"},
		{func(o *neadmm.Options) { o.RhoMin = -1 }, nil, nil, nil, "Options.RhoMin = -1"},
		{func(o *neadmm.Options) { o.BalanceMu = 1 }, nil, nil, nil, "Options.BalanceMu = 1"},
		{func(o *neadmm.Options) { o.BalanceTau = math.NaN() }, nil, nil, nil, "Options.BalanceTau = NaN"},
		{func(o *neadmm.Options) {}, []float64{1, 2}, nil, nil, "len(x1), len(x2), len(y) = 2, 1, 1"},
		{func(o *neadmm.Options) {}, nil, nil, []float64{}, "len(x1), len(x2), len(y) = 1, 1, 0"},
		{func(o *neadmm.Options) {}, []float64{math.NaN()}, nil, nil, "initial x1"},
		{func(o *neadmm.Options) {}, nil, []float64{math.Inf(-1)}, nil, "initial x2"},
		{func(o *neadmm.Options) {}, nil, nil, []float64{math.NaN()}, "initial y"},
	} {
		opt := good
		tc.mod(&opt)
		def := func(x []float64) []float64 {
			if x == nil {
				return []float64{1}
			}
			return x
		}
		calls := 0
		opt.Callback = func(neadmm.Iteration) bool { calls++; return false }
		var sv neadmm.Solver
		res, err := sv.Solve(context.Background(), sqrtProblem{}, def(tc.x1), def(tc.x2), def(tc.y), opt)
		require.ErrorIs(t, err, neadmm.ErrBadInput, tc.want)
		assert.ErrorContains(t, err, tc.want)
		assert.Zero(t, calls, "%q: iterations ran", tc.want)
		assert.Equal(t, neadmm.StopInvalid, res.Reason, tc.want)
		assert.Zero(t, res.Iterations, tc.want)
		if strings.HasPrefix(tc.want, "initial") {
			assert.ErrorIs(t, err, neadmm.ErrNotFinite, tc.want)
		}
		// Validate gives Solve's error for bad options and nil otherwise.
		if tc.x1 == nil && tc.x2 == nil && tc.y == nil {
			assert.EqualError(t, opt.Validate(), err.Error(), tc.want)
		} else {
			assert.NoError(t, opt.Validate(), tc.want)
		}
	}
	// What Validate cannot see: the context, the problem and its Dims.
	var sv neadmm.Solver
	var noCtx context.Context
	for _, tc := range []struct {
		ctx  context.Context
		p    neadmm.Problem
		want string
	}{
		{noCtx, sqrtProblem{}, "nil context"},
		{context.Background(), nil, "nil context or problem"},
		{context.Background(), badDims{n1: 1, n2: 0, m: 1}, "Dims() = (1, 0, 1)"},
		{context.Background(), badDims{n1: 0, n2: 1, m: 1}, "Dims() = (0, 1, 1)"},
		{context.Background(), badDims{n1: 1, n2: 1, m: 0}, "Dims() = (1, 1, 0)"},
	} {
		res, err := sv.Solve(tc.ctx, tc.p, []float64{1}, []float64{1}, []float64{1}, good)
		require.ErrorIs(t, err, neadmm.ErrBadInput, tc.want)
		assert.ErrorContains(t, err, tc.want)
		assert.Equal(t, neadmm.StopInvalid, res.Reason)
	}
	// The iterates must be distinct memory: the contract of Problem says
	// x2 changes only inside UpdateX2.
	buf := []float64{1, 1, -2, 1}
	for _, tc := range []struct {
		x1, x2, y []float64
	}{{buf[0:1], buf[0:1], buf[1:2]}, {buf[0:1], buf[1:2], buf[1:2]}, {buf[2:3], buf[1:2], buf[2:3]}} {
		res, err := sv.Solve(context.Background(), sqrtProblem{}, tc.x1, tc.x2, tc.y, good)
		require.ErrorIs(t, err, neadmm.ErrBadInput)
		assert.ErrorContains(t, err, "share memory")
		assert.Equal(t, neadmm.StopInvalid, res.Reason)
	}
	_, err := sv.Solve(context.Background(), sqrtProblem{}, buf[0:1], buf[1:2], buf[2:3], good)
	require.NoError(t, err, "adjacent, not overlapping")
	// A nil *Solver is refused, not dereferenced.
	var nilSolver *neadmm.Solver
	res, err := nilSolver.Solve(context.Background(), sqrtProblem{}, []float64{1}, []float64{1}, []float64{1}, good)
	require.ErrorIs(t, err, neadmm.ErrBadInput)
	assert.ErrorContains(t, err, "nil *Solver")
	assert.Equal(t, neadmm.StopInvalid, res.Reason)
}

func TestSolveAllocs(t *testing.T) {
	a := make([]float64, 50)
	for i := range a {
		a[i] = float64(i%5) - 2
	}
	p := newProjection(a)
	x, w, y := make([]float64, 50), make([]float64, 50), make([]float64, 51)
	ctx, cancel := context.WithCancel(context.Background()) // a non-nil Done channel
	defer cancel()
	calls, tests := 0, 0
	opt := neadmm.Options{Rho: 1, Policy: neadmm.RhoBalance, EpsAbs: 1e-300, EpsRel: 1e-300, MaxIter: 50,
		Callback:           func(neadmm.Iteration) bool { calls++; return false },
		StopTest:           func(neadmm.Iteration) bool { tests++; return false },
		IterationObjective: true, FinalObjective: true}
	var sv neadmm.Solver
	run := func() {
		clear(x)
		clear(y)
		for i := range w {
			w[i] = 1
		}
		if _, err := sv.Solve(ctx, p, x, w, y, opt); err != nil {
			t.Fatal(err)
		}
	}
	run()
	assert.Zero(t, testing.AllocsPerRun(10, run), "allocations per 50-iteration solve")
	assert.Equal(t, calls, tests)
}

// TestSolveConcurrent runs independent solvers on several goroutines (run
// with -race) and checks they reproduce the sequential results bit for bit.
func TestSolveConcurrent(t *testing.T) {
	const workers = 6
	solve := func(seed uint64) []float64 {
		r := rand.New(rand.NewPCG(seed, 99))
		n := 20
		a := make([]float64, n)
		for i := range a {
			a[i] = r.NormFloat64()
		}
		x, w, y := make([]float64, n), make([]float64, n), make([]float64, n+1)
		for i := range w {
			w[i] = r.NormFloat64()
		}
		var sv neadmm.Solver
		if _, err := sv.Solve(context.Background(), newProjection(a), x, w, y,
			neadmm.Options{Rho: 1, EpsAbs: 1e-12, MaxIter: 300}); err != nil {
			t.Error(err)
		}
		return append(x, w...)
	}
	want := make([][]float64, workers)
	for i := range want {
		want[i] = solve(uint64(i))
	}
	got := make([][]float64, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = solve(uint64(i))
		}()
	}
	wg.Wait()
	for i := range got {
		if !slices.Equal(got[i], want[i]) { // bit for bit
			t.Errorf("worker %d differs from the sequential run", i)
		}
	}
}

// blockingProblem signals entered and waits for release in its first
// UpdateX1.
type blockingProblem struct {
	sqrtProblem
	entered, release chan struct{}
}

func (b *blockingProblem) UpdateX1(x1, x2, y []float64, rho float64) error {
	if b.entered != nil {
		close(b.entered)
		b.entered = nil
		<-b.release
	}
	return b.sqrtProblem.UpdateX1(x1, x2, y, rho)
}

// TestSolveInUse: a second Solve on a Solver that is running panics with
// a clear message; after the first returns the Solver is usable again.
func TestSolveInUse(t *testing.T) {
	var sv neadmm.Solver
	opt := neadmm.Options{Rho: 1, MaxIter: 3}
	b := &blockingProblem{entered: make(chan struct{}), release: make(chan struct{})}
	entered := b.entered
	done := make(chan error)
	go func() {
		_, err := sv.Solve(context.Background(), b, []float64{1}, []float64{1}, []float64{-2}, opt)
		done <- err
	}()
	<-entered
	assert.PanicsWithValue(t, "neadmm: Solver.Solve: workspace already in use (by another goroutine, or re-entered from a problem method)", func() {
		_, _ = sv.Solve(context.Background(), sqrtProblem{}, []float64{1}, []float64{1}, []float64{-2}, opt)
	})
	close(b.release)
	require.NoError(t, <-done)
	_, err := sv.Solve(context.Background(), sqrtProblem{}, []float64{1}, []float64{1}, []float64{-2}, opt)
	require.NoError(t, err)
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{neadmm.RhoGeometric.String(), "geometric"}, {neadmm.RhoFixed.String(), "fixed"}, {neadmm.RhoBalance.String(), "balance"},
		{neadmm.RhoPolicy(7).String(), "RhoPolicy(7)"},
		{neadmm.StopConverged.String(), "converged"}, {neadmm.StopMaxIter.String(), "iteration cap"},
		{neadmm.StopCancelled.String(), "cancelled"}, {neadmm.StopCallback.String(), "stopped by callback"},
		{neadmm.StopError.String(), "error"}, {neadmm.StopInvalid.String(), "invalid input"},
		{neadmm.StopTest.String(), "stop test"}, {neadmm.StopReason(0).String(), "StopReason(0)"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}

func BenchmarkSolveSphere(b *testing.B) {
	r := rand.New(rand.NewPCG(41, 42))
	n := 1000
	a := make([]float64, n)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	p := newProjection(a)
	x, w, y := make([]float64, n), make([]float64, n), make([]float64, n+1)
	var sv neadmm.Solver
	opt := neadmm.Options{Rho: 1, EpsAbs: 1e-300, MaxIter: 100}
	b.ReportAllocs()
	for b.Loop() {
		clear(x)
		clear(y)
		copy(w, a)
		if _, err := sv.Solve(context.Background(), p, x, w, y, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/iter")
}

// sliced is sqrtProblem held by value with a slice field: interfaces
// holding it cannot be compared (== panics).
type sliced struct {
	sqrtProblem
	pad []int
}

// TestSolveProblemSwitch: a Solver that alternates between problems asks
// each for its own optional interfaces (it keeps only the last pointer
// problem's), also for problem types that cannot be compared, and many
// solves of one problem allocate nothing at all (a type assertion to an
// interface at every solve allocated at a random call).
func TestSolveProblemSwitch(t *testing.T) {
	ctx := context.Background()
	x, w, y := make([]float64, 1), make([]float64, 1), make([]float64, 1)
	withObj := &counting{}
	opt := neadmm.Options{Rho: 1, EpsAbs: 1e-10, MaxIter: 50, FinalObjective: true}
	var sv neadmm.Solver
	for range 3 {
		for _, c := range []struct {
			p  neadmm.Problem
			ok bool
		}{{withObj, true}, {noObjective{withObj}, false}, {sliced{pad: []int{1}}, true}, {&noObjective{sqrtProblem{}}, false}} {
			x[0], w[0], y[0] = 1, 1, -2
			_, err := sv.Solve(ctx, c.p, x, w, y, opt)
			if c.ok {
				require.NoError(t, err, "%T", c.p)
			} else {
				require.ErrorIs(t, err, neadmm.ErrBadInput, "%T", c.p)
			}
		}
	}
	opt.FinalObjective = false
	opt.MaxIter = 1
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range 5000 { // about 5 cache fills expected before the fix
		x[0], w[0], y[0] = 1, 1, -2
		sv.Solve(ctx, withObj, x, w, y, opt)
	}
	runtime.ReadMemStats(&m1)
	assert.Zero(t, m1.Mallocs-m0.Mallocs, "allocations in 5000 solves of one problem")
}

// scripted is a 1 x 1 x 1 problem with f1(x1) = x1, f2(x2) = x2 and J = 1
// whose updates set x1 = a[k-1] and x2 = b[k-1] in iteration k, so that
// r = a + b and s = rho*|b[k-1] - b[k-2]| (b[-1] the initial x2) are exact.
// It records the rho of every iteration and counts the x2-updates.
type scripted struct {
	a, b    []float64
	rhos    []float64
	x2calls int
}

func (p *scripted) Dims() (int, int, int) { return 1, 1, 1 }
func (p *scripted) UpdateX1(x1, _, _ []float64, rho float64) error {
	x1[0] = p.a[len(p.rhos)]
	p.rhos = append(p.rhos, rho)
	return nil
}
func (p *scripted) UpdateX2(x2, _, _ []float64, _ float64) error {
	p.x2calls++
	x2[0] = p.b[len(p.rhos)-1]
	return nil
}
func (p *scripted) Constraint1(dst, x1 []float64)       { dst[0] = x1[0] }
func (p *scripted) Constraint2(dst, x2 []float64)       { dst[0] = x2[0] }
func (p *scripted) Constraint1JacT(dst, _, v []float64) { dst[0] = v[0] }

// solveScripted runs p from x1 = x2 = 0 and y = y0 for len(p.a) iterations.
func solveScripted(p *scripted, y0 float64, opt neadmm.Options) (neadmm.Result, error) {
	opt.MaxIter = len(p.a)
	var sv neadmm.Solver
	return sv.Solve(context.Background(), p, []float64{0}, []float64{0}, []float64{y0}, opt)
}

// TestRhoBalanceBoundaries: residual balancing with the documented
// defaults mu = 10 and tau = 2 changes rho only when one residual is
// strictly more than 10 times the other, on exact dyadic residuals at, just
// past and well inside the boundary; the Result reports the rho of the last
// iteration.
func TestRhoBalanceBoundaries(t *testing.T) {
	for _, tc := range []struct {
		a, b, want float64 // r = |a + b|, s = |b| in iteration 1
	}{
		{9, 1, 1},               // r = 10 s
		{9 + 0x1p-40, 1, 2},     // r > 10 s
		{4, 1, 1},               // r = 5 s
		{-9, 10, 1},             // s = 10 r
		{-9 - 0x1p-40, 10, 0.5}, // s > 10 r
		{-4, 5, 1},              // s = 5 r
		{-10, 10, 0.5},          // r = 0 < s
		{0x1p-40, 0, 2},         // s = 0 < r
	} {
		p := &scripted{a: []float64{tc.a, tc.a}, b: []float64{tc.b, tc.b}}
		res, err := solveScripted(p, 0, neadmm.Options{Rho: 1, Policy: neadmm.RhoBalance})
		require.NoError(t, err)
		assert.Equal(t, []float64{1, tc.want}, p.rhos, "a = %g, b = %g", tc.a, tc.b)
		assert.Equal(t, tc.want, res.Rho, "a = %g, b = %g: Result.Rho", tc.a, tc.b)
	}
}

// TestOptionsDefaults checks the zero fields against the values the
// documentation states (1.02, 1e6*Rho, 1e-6*Rho), written out here rather
// than taken from the exported constants; rho is recorded by scripted
// problems (a = 2^-100, b = 0: r small but not 0, so that the residual test
// never passes, and y stays finite; a = -b growing: r = 0 < s).
func TestOptionsDefaults(t *testing.T) {
	zeros := func(n int) *scripted {
		p := &scripted{a: make([]float64, n), b: make([]float64, n)}
		for k := range p.a {
			p.a[k] = 0x1p-100
		}
		return p
	}
	p := zeros(30)
	_, err := solveScripted(p, 0, neadmm.Options{Rho: 1})
	require.NoError(t, err)
	assert.Equal(t, 1.02, p.rhos[1], "default growth")
	assert.InDelta(t, math.Pow(1.02, 29), p.rhos[29], 1e-13, "default growth, 29 steps")

	// Growth by 10 from 3 is exact up to 3e6 = 1e6*Rho, the default cap.
	p = zeros(9)
	res, err := solveScripted(p, 0, neadmm.Options{Rho: 3, RhoGrowth: 10})
	require.NoError(t, err)
	assert.Equal(t, []float64{3e5, 3e6, 3e6, 3e6}, p.rhos[5:], "default RhoMax")
	assert.Equal(t, 3e6, res.Rho)
	// The default cap never exceeds MaxFloat64 (1e6*Rho overflows here).
	p = zeros(3)
	_, err = solveScripted(p, 0, neadmm.Options{Rho: math.MaxFloat64 / 2, RhoGrowth: 4})
	require.NoError(t, err)
	assert.Equal(t, []float64{math.MaxFloat64 / 2, math.MaxFloat64, math.MaxFloat64}, p.rhos)

	// Balancing halves rho from 1 while s > 0 = r: 2^-19, then the default
	// floor 1e-6 (2^-20 is below it).
	p = &scripted{}
	for k := range 22 {
		p.a, p.b = append(p.a, -float64(k+1)), append(p.b, float64(k+1))
	}
	_, err = solveScripted(p, 0, neadmm.Options{Rho: 1, Policy: neadmm.RhoBalance})
	require.NoError(t, err)
	assert.Equal(t, []float64{0x1p-19, 1e-6, 1e-6}, p.rhos[19:], "default RhoMin")
}

// TestOptionsValidateBoundaries: the bounds Validate documents are
// inclusive or exclusive as stated; each accepted value is paired with its
// neighbouring float on the rejected side.
func TestOptionsValidateBoundaries(t *testing.T) {
	down := func(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }
	up := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	for _, o := range []neadmm.Options{
		{Rho: 0x1p-1022}, {Rho: math.MaxFloat64},
		{Rho: 1, RhoGrowth: 1},
		{Rho: 2, RhoMax: 2},
		{Rho: 2, RhoMin: 2}, {Rho: 2, RhoMin: 0x1p-1022},
		{Rho: 1, BalanceMu: up(1), BalanceTau: up(1)},
	} {
		o.MaxIter = 1
		assert.NoError(t, o.Validate(), "%+v", o)
	}
	for _, tc := range []struct {
		o    neadmm.Options
		want string
	}{
		{neadmm.Options{Rho: down(0x1p-1022)}, "Options.Rho"},
		{neadmm.Options{Rho: 1, RhoGrowth: down(1)}, "Options.RhoGrowth"},
		{neadmm.Options{Rho: 2, RhoMax: down(2)}, "Options.RhoMax"},
		{neadmm.Options{Rho: 2, RhoMax: math.Inf(1)}, "Options.RhoMax"},
		{neadmm.Options{Rho: 2, RhoMin: up(2)}, "Options.RhoMin"},
		{neadmm.Options{Rho: 2, RhoMin: down(0x1p-1022)}, "Options.RhoMin"},
		{neadmm.Options{Rho: 1, BalanceMu: math.Inf(1)}, "Options.BalanceMu"},
		{neadmm.Options{Rho: 1, BalanceTau: 1}, "Options.BalanceTau"},
	} {
		tc.o.MaxIter = 1
		err := tc.o.Validate()
		require.ErrorIs(t, err, neadmm.ErrBadInput, tc.want)
		assert.ErrorContains(t, err, tc.want+" = ")
	}
}

// TestSolveNotFiniteSteps: a non-finite x1 stops the solve before the
// x2-update, named as such; a y that overflows while the residuals stay
// finite is an error of the iteration too.
func TestSolveNotFiniteSteps(t *testing.T) {
	p := &scripted{a: []float64{1, math.NaN()}, b: []float64{0, 0}}
	res, err := solveScripted(p, 0, neadmm.Options{Rho: 1})
	require.ErrorIs(t, err, neadmm.ErrNotFinite)
	assert.ErrorContains(t, err, "iteration 2: x1")
	assert.Equal(t, 1, p.x2calls, "x2-updates")
	assert.Equal(t, neadmm.StopError, res.Reason)
	assert.Equal(t, 1, res.Iterations)

	// Finite iterates whose sum of squares overflows are finite.
	p = &scripted{a: []float64{1e200}, b: []float64{-1e200}}
	res, err = solveScripted(p, 0, neadmm.Options{Rho: 1})
	require.NoError(t, err)
	assert.Equal(t, neadmm.StopMaxIter, res.Reason)

	// r = 1e308 and s = 0 are finite; y = 1e308 + 1*r is not.
	p = &scripted{a: []float64{1e308}, b: []float64{0}}
	res, err = solveScripted(p, 1e308, neadmm.Options{Rho: 1})
	require.ErrorIs(t, err, neadmm.ErrNotFinite)
	assert.ErrorContains(t, err, "iteration 1: residual or y")
	assert.Equal(t, neadmm.StopError, res.Reason)
}

// cancelThenFail cancels the solve's context inside UpdateX2 and returns
// an error of its own.
type cancelThenFail struct {
	sqrtProblem
	cancel context.CancelFunc
	err    error
}

func (p *cancelThenFail) UpdateX2(x2, x1, y []float64, rho float64) error {
	p.cancel()
	return p.err
}

// TestSolveFailureNotCancellation: a subproblem error is a cancellation
// only if it is the context's error; an unrelated one returned while the
// context happens to be cancelled is StopError.
func TestSolveFailureNotCancellation(t *testing.T) {
	sentinel := errors.New("inner solver failed")
	for _, tc := range []struct {
		err  error
		want neadmm.StopReason
	}{{sentinel, neadmm.StopError}, {context.Canceled, neadmm.StopCancelled}} {
		ctx, cancel := context.WithCancel(context.Background())
		var sv neadmm.Solver
		res, err := sv.Solve(ctx, &cancelThenFail{cancel: cancel, err: tc.err}, []float64{1}, []float64{1}, []float64{-2},
			neadmm.Options{Rho: 1, MaxIter: 5})
		cancel()
		require.ErrorIs(t, err, tc.err)
		assert.Equal(t, tc.want, res.Reason, "%v", tc.err)
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

func solveConst(p *constProblem, y0 float64, opt neadmm.Options) (neadmm.Result, error) {
	var sv neadmm.Solver
	return sv.Solve(context.Background(), p, []float64{1}, []float64{-1}, []float64{y0}, opt)
}

// TestResidualsMetAtEquality pins "<=" in both halves of the residual test
// (Iteration.ResidualsMet: Primal <= EpsPrimal and Dual <= EpsDual), on the
// method and through Solve: with EpsAbs = EpsRel = 0 the doc of
// Options.EpsAbs says exact feasibility (r = 0, s = 0) still stops the
// solve, in the first iteration here.
func TestResidualsMetAtEquality(t *testing.T) {
	require.True(t, neadmm.Iteration{Primal: 1, EpsPrimal: 1, Dual: 0.5, EpsDual: 1}.ResidualsMet())
	require.True(t, neadmm.Iteration{Primal: 0.5, EpsPrimal: 1, Dual: 1, EpsDual: 1}.ResidualsMet())
	require.False(t, neadmm.Iteration{Primal: math.Nextafter(1, 2), EpsPrimal: 1, Dual: 0, EpsDual: 1}.ResidualsMet())
	require.False(t, neadmm.Iteration{Primal: 0, EpsPrimal: 1, Dual: math.Nextafter(1, 2), EpsDual: 1}.ResidualsMet())
	res, err := solveConst(&constProblem{jt: 1}, 0, neadmm.Options{Rho: 1, MaxIter: 5})
	require.NoError(t, err)
	require.Equal(t, neadmm.StopConverged, res.Reason)
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
		res, err := solveConst(p, 0, neadmm.Options{Rho: 1, MaxIter: 3, EpsRel: tc.epsRel})
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
	res, err := solveConst(p, 0, neadmm.Options{Rho: 1, MaxIter: 5, FinalObjective: true})
	require.ErrorIs(t, err, boom)
	require.Equal(t, neadmm.StopError, res.Reason)
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
	res, err := solveConst(p, 1e300, neadmm.Options{Rho: 1, MaxIter: 5, EpsRel: 1e-3})
	require.ErrorIs(t, err, neadmm.ErrNotFinite)
	require.ErrorContains(t, err, "iteration 1: residual or y")
	require.Equal(t, neadmm.StopError, res.Reason)
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
	solve := func(epsRel float64) (neadmm.Result, error) {
		var sv neadmm.Solver
		return sv.Solve(context.Background(), bigProblem{}, []float64{1.5e308}, []float64{-1.5e308 + 1e292}, []float64{0, 0},
			neadmm.Options{Rho: 1e-300, MaxIter: 3, EpsRel: epsRel})
	}
	res, err := solve(1e-3)
	require.ErrorIs(t, err, neadmm.ErrNotFinite)
	require.ErrorContains(t, err, "iteration 1: residual or y")
	require.Equal(t, neadmm.StopError, res.Reason)
	res, err = solve(0)
	require.NoError(t, err)
	require.Equal(t, neadmm.StopMaxIter, res.Reason)
}
