package neadmm_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

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
			neadmm.Options{Rho: 1, Policy: pol, EpsAbs: 1e-10, EpsRel: 1e-10, MaxIter: 10000})
		if err != nil || res.Reason != neadmm.StopConverged {
			t.Fatalf("%v: %+v %v", pol, res, err)
		}
		// At ||r|| <= ~1e-10 and ||s|| <= ~1e-10 the iterate is within a
		// small multiple of that of the KKT point (x, z, y) = (1/4, 1/4, -1).
		if math.Abs(x1[0]-0.25) > 1e-8 || math.Abs(x2[0]-0.25) > 1e-8 || math.Abs(y[0]+1) > 1e-8 {
			t.Errorf("%v: x=%.12g z=%.12g y=%.12g, want 1/4, 1/4, -1", pol, x1[0], x2[0], y[0])
		}
		if math.Abs(res.Objective-0.5) > 1e-8 {
			t.Errorf("%v: objective %.12g", pol, res.Objective)
		}
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
			if err != nil || res.Reason != neadmm.StopConverged {
				t.Fatalf("trial %d %v: %+v %v", trial, pol, res, err)
			}
			na := vec.Nrm2(a)
			for i := range x {
				if want := a[i] / na; math.Abs(x[i]-want) > 1e-7 || math.Abs(w[i]-want) > 1e-7 {
					t.Fatalf("trial %d %v: x[%d]=%.10g w=%.10g, want %.10g", trial, pol, i, x[i], w[i], want)
				}
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
				neadmm.Options{Rho: 1, Policy: pol, EpsAbs: 1e-10, EpsRel: 1e-9, MaxIter: 20000})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reason != neadmm.StopConverged {
				if pol == neadmm.RhoGeometric {
					t.Fatalf("trial %d %v: %+v", trial, pol, res)
				}
				stalled[pol]++
				continue
			}
			// Feasible to ~1e-9, and optimal: the objective matches
			// h(neadmm.MaxProx(phi, b)) (the minimizer itself may differ
			// when phi has tied maxima below b). The objective is
			// Lipschitz in the iterate with constant ~2*sqrt(scale).
			if math.Abs(x1[0]-slices.Max(x1[1:])) > 1e-8*math.Sqrt(scale) {
				t.Fatalf("trial %d %v: q=%g, max s=%g", trial, pol, x1[0], slices.Max(x1[1:]))
			}
			if math.Abs(res.Objective-hBest) > 1e-7*scale {
				t.Fatalf("trial %d %v: objective %.12g, optimum %.12g (phi=%v b=%g)", trial, pol, res.Objective, hBest, phi, b)
			}
		}
	}
	t.Logf("stalled out of %d: %v", trials, stalled)
}

func TestSolveStopReasons(t *testing.T) {
	ctx := context.Background()
	opt := neadmm.Options{Rho: 1, EpsAbs: 1e-300, MaxIter: 7}
	var sv neadmm.Solver
	res, err := sv.Solve(ctx, sqrtProblem{}, []float64{1}, []float64{1}, []float64{-2}, opt)
	if err != nil || res.Reason != neadmm.StopMaxIter || res.Iterations != 7 {
		t.Errorf("cap: %+v %v", res, err)
	}

	// Callback stop at iteration 4; the callback sees iterations 1..4.
	var seen []int
	opt.MaxIter = 100
	opt.Callback = func(it neadmm.Iteration) bool { seen = append(seen, it.K); return it.K == 4 }
	res, err = sv.Solve(ctx, sqrtProblem{}, []float64{1}, []float64{1}, []float64{-2}, opt)
	if err != nil || res.Reason != neadmm.StopCallback || res.Iterations != 4 || !slices.Equal(seen, []int{1, 2, 3, 4}) {
		t.Errorf("callback: %+v %v %v", res, err, seen)
	}

	// Cancelled before the first iteration.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	opt.Callback = nil
	x1 := []float64{1}
	res, err = sv.Solve(cctx, sqrtProblem{}, x1, []float64{1}, []float64{-2}, opt)
	if !errors.Is(err, context.Canceled) || res.Reason != neadmm.StopCancelled || res.Iterations != 0 || x1[0] != 1 {
		t.Errorf("cancelled: %+v %v", res, err)
	}

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
	if !errors.Is(err, context.Canceled) || res.Reason != neadmm.StopCancelled || res.Iterations != 5 ||
		!strings.Contains(err.Error(), "before iteration 6") {
		t.Errorf("cancelled at 5: %+v %v", res, err)
	}
	if math.IsNaN(res.Objective) {
		t.Errorf("cancelled result has no objective")
	}
}

// TestSolveCallbackValues recomputes the residuals the callback reports
// from the iterates it can see.
func TestSolveCallbackValues(t *testing.T) {
	a := []float64{3, -1, 2}
	p := newProjection(a)
	x, w, y := make([]float64, 3), []float64{1, 0, 0}, make([]float64, 4)
	prevW := slices.Clone(w)
	k := 0
	opt := neadmm.Options{Rho: 0.5, Policy: neadmm.RhoGeometric, RhoGrowth: 1.1, RhoMax: 2, EpsAbs: 1e-9, EpsRel: 1e-6, MaxIter: 200}
	opt.Callback = func(it neadmm.Iteration) bool {
		k++
		if it.K != k {
			t.Fatalf("K = %d, want %d", it.K, k)
		}
		if want := min(0.5*math.Pow(1.1, float64(k-1)), 2); math.Abs(it.Rho-want) > 1e-12*want {
			t.Fatalf("iteration %d: rho %g, want %g", k, it.Rho, want)
		}
		// r = (||w||^2 - 1, w - x); s = rho*J^T(f2 - f2old) = -rho*(w - wold).
		r0 := vec.Dot(w, w) - 1
		rr := r0 * r0
		ss := 0.0
		for i := range w {
			rr += (w[i] - x[i]) * (w[i] - x[i])
			ss += (w[i] - prevW[i]) * (w[i] - prevW[i])
		}
		if math.Abs(it.Primal-math.Sqrt(rr)) > 1e-12*(1+it.Primal) ||
			math.Abs(it.Dual-it.Rho*math.Sqrt(ss)) > 1e-12*(1+it.Dual) {
			t.Fatalf("iteration %d: r=%g s=%g, recomputed %g %g", k, it.Primal, it.Dual, math.Sqrt(rr), it.Rho*math.Sqrt(ss))
		}
		// eps_pri = sqrt(m) EpsAbs + EpsRel max(||f1||, ||f2||) and
		// eps_dual = sqrt(n1) EpsAbs + EpsRel ||J^T y|| = ... ||y[1:]||.
		nf2 := math.Sqrt(r0*r0 + vec.Dot(w, w))
		wantPri := 2*opt.EpsAbs + opt.EpsRel*max(vec.Nrm2(x), nf2)
		wantDual := math.Sqrt(3)*opt.EpsAbs + opt.EpsRel*vec.Nrm2(y[1:])
		if math.Abs(it.EpsPrimal-wantPri) > 1e-12*wantPri || math.Abs(it.EpsDual-wantDual) > 1e-12*wantDual {
			t.Fatalf("iteration %d: eps %g %g, want %g %g", k, it.EpsPrimal, it.EpsDual, wantPri, wantDual)
		}
		if want := p.Objective(x, w); it.Objective != want {
			t.Fatalf("iteration %d: objective %g, want %g", k, it.Objective, want)
		}
		copy(prevW, w)
		return false
	}
	var sv neadmm.Solver
	res, err := sv.Solve(context.Background(), p, x, w, y, opt)
	if err != nil || res.Reason != neadmm.StopConverged || res.Iterations != k {
		t.Fatalf("%+v %v", res, err)
	}
}

// noObjective hides sqrtProblem's Objective method.
type noObjective struct{ neadmm.Problem }

func TestSolveNoObjective(t *testing.T) {
	var sv neadmm.Solver
	var objs []float64
	opt := neadmm.Options{Rho: 1, MaxIter: 3, Callback: func(it neadmm.Iteration) bool { objs = append(objs, it.Objective); return false }}
	res, err := sv.Solve(context.Background(), noObjective{sqrtProblem{}}, []float64{1}, []float64{1}, []float64{-2}, opt)
	if err != nil || !math.IsNaN(res.Objective) || len(objs) != 3 || !math.IsNaN(objs[0]) {
		t.Errorf("%+v %v %v", res, err, objs)
	}
}

func TestRhoPolicies(t *testing.T) {
	record := func(opt neadmm.Options) []float64 {
		var rhos []float64
		opt.Callback = func(it neadmm.Iteration) bool { rhos = append(rhos, it.Rho); return false }
		opt.MaxIter = 30
		var sv neadmm.Solver
		a := []float64{3, -1, 2}
		if _, err := sv.Solve(context.Background(), newProjection(a), make([]float64, 3), []float64{1, 0, 0}, make([]float64, 4), opt); err != nil {
			t.Fatal(err)
		}
		return rhos
	}
	for _, r := range record(neadmm.Options{Rho: 3, Policy: neadmm.RhoFixed}) {
		if r != 3 {
			t.Fatalf("fixed: rho %g", r)
		}
	}
	rh := record(neadmm.Options{Rho: 1})
	if rh[0] != 1 || math.Abs(rh[29]-math.Pow(neadmm.DefaultRhoGrowth, 29)) > 1e-12 {
		t.Errorf("geometric default: %v", rh)
	}
	rh = record(neadmm.Options{Rho: 1, RhoGrowth: 2, RhoMax: 100})
	if rh[6] != 64 || rh[7] != 100 || rh[29] != 100 {
		t.Errorf("geometric capped: %v", rh)
	}
	// Balancing: every change is a factor tau, within [RhoMin, RhoMax].
	var iters []neadmm.Iteration
	opt := neadmm.Options{Rho: 1e-3, Policy: neadmm.RhoBalance, BalanceMu: 2, BalanceTau: 3, RhoMax: 1, MaxIter: 40}
	opt.Callback = func(it neadmm.Iteration) bool { iters = append(iters, it); return false }
	var sv neadmm.Solver
	if _, err := sv.Solve(context.Background(), newProjection([]float64{3, -1, 2}), make([]float64, 3), []float64{1, 0, 0}, make([]float64, 4), opt); err != nil {
		t.Fatal(err)
	}
	changes := 0
	for k := 1; k < len(iters); k++ {
		prev, rho := iters[k-1], iters[k].Rho
		want := prev.Rho
		if prev.Primal > 2*prev.Dual {
			want = min(prev.Rho*3, 1)
		} else if prev.Dual > 2*prev.Primal {
			want = max(prev.Rho/3, 1e-9)
		}
		if math.Abs(rho-want) > 1e-12*want {
			t.Fatalf("balance iteration %d: rho %g, want %g (r=%g s=%g)", k+1, rho, want, prev.Primal, prev.Dual)
		}
		if rho != prev.Rho {
			changes++
		}
	}
	if changes == 0 {
		t.Errorf("balancing never changed rho from 1e-3")
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

func TestSolveFailures(t *testing.T) {
	var sv neadmm.Solver
	opt := neadmm.Options{Rho: 1, MaxIter: 100}
	p := &failing{Problem: sqrtProblem{}, at: 3}
	res, err := sv.Solve(context.Background(), p, []float64{1}, []float64{1}, []float64{-2}, opt)
	if !errors.Is(err, neadmm.ErrNotFinite) || !strings.Contains(err.Error(), "iteration 3: x2") || res.Reason != neadmm.StopError || res.Iterations != 2 {
		t.Errorf("NaN x2: %+v %v", res, err)
	}
	sentinel := errors.New("inner solver failed")
	p = &failing{Problem: sqrtProblem{}, at: 2, err: sentinel}
	res, err = sv.Solve(context.Background(), p, []float64{1}, []float64{1}, []float64{-2}, opt)
	if !errors.Is(err, sentinel) || !strings.Contains(err.Error(), "iteration 2: x2-update") || res.Reason != neadmm.StopError {
		t.Errorf("subproblem error: %+v %v", res, err)
	}
	// x1 = 0 makes the Jacobian of sqrt infinite: a non-finite residual.
	res, err = sv.Solve(context.Background(), sqrtProblem{}, []float64{1}, []float64{1}, []float64{0}, opt)
	if !errors.Is(err, neadmm.ErrNotFinite) || !strings.Contains(err.Error(), "iteration 1: residual") {
		t.Errorf("infinite dual residual: %+v %v", res, err)
	}
}

func TestSolveBadInput(t *testing.T) {
	good := neadmm.Options{Rho: 1, MaxIter: 10}
	for _, tc := range []struct {
		mod       func(*neadmm.Options)
		x1, x2, y []float64
		want      string
	}{
		{func(o *neadmm.Options) { o.Rho = 0 }, nil, nil, nil, "Rho = 0"},
		{func(o *neadmm.Options) { o.Rho = -1 }, nil, nil, nil, "Rho = -1"},
		{func(o *neadmm.Options) { o.Rho = math.Inf(1) }, nil, nil, nil, "Rho = +Inf"},
		{func(o *neadmm.Options) { o.MaxIter = 0 }, nil, nil, nil, "MaxIter = 0"},
		{func(o *neadmm.Options) { o.EpsAbs = math.NaN() }, nil, nil, nil, "EpsAbs = NaN"},
		{func(o *neadmm.Options) { o.EpsRel = -1 }, nil, nil, nil, "EpsRel = -1"},
		{func(o *neadmm.Options) { o.Policy = 9 }, nil, nil, nil, "Policy = 9"},
		{func(o *neadmm.Options) { o.RhoGrowth = 0.5 }, nil, nil, nil, "RhoGrowth = 0.5"},
		{func(o *neadmm.Options) { o.RhoMax = 0.5 }, nil, nil, nil, "RhoMax = 0.5"},
		{func(o *neadmm.Options) { o.RhoMin = 2 }, nil, nil, nil, "RhoMin = 2"},
		{func(o *neadmm.Options) { o.BalanceMu = 1 }, nil, nil, nil, "BalanceMu = 1"},
		{func(o *neadmm.Options) { o.BalanceTau = math.NaN() }, nil, nil, nil, "BalanceTau = NaN"},
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
		if err == nil || !strings.Contains(err.Error(), tc.want) || calls != 0 {
			t.Errorf("want error %q, got %v (%d iterations)", tc.want, err, calls)
		}
		if res.Reason != neadmm.StopInvalid || res.Iterations != 0 {
			t.Errorf("%q: Reason %v after %d iterations, want %v after 0", tc.want, res.Reason, res.Iterations, neadmm.StopInvalid)
		}
		// Validate gives Solve's error for bad options and nil otherwise.
		optionCase := tc.x1 == nil && tc.x2 == nil && tc.y == nil
		if verr := opt.Validate(); optionCase && (verr == nil || verr.Error() != err.Error()) || !optionCase && verr != nil {
			t.Errorf("%q: Validate() = %v, Solve: %v", tc.want, verr, err)
		}
	}
}

func TestSolveAllocs(t *testing.T) {
	a := make([]float64, 50)
	for i := range a {
		a[i] = float64(i%5) - 2
	}
	p := newProjection(a)
	x, w, y := make([]float64, 50), make([]float64, 50), make([]float64, 51)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	opt := neadmm.Options{Rho: 1, Policy: neadmm.RhoBalance, EpsAbs: 1e-300, EpsRel: 1e-300, MaxIter: 50,
		Callback: func(neadmm.Iteration) bool { calls++; return false }}
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
	if n := testing.AllocsPerRun(10, run); n != 0 {
		t.Errorf("%v allocations per 50-iteration solve", n)
	}
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
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("worker %d differs from the sequential run", i)
		}
	}
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{neadmm.RhoGeometric.String(), "geometric"}, {neadmm.RhoFixed.String(), "fixed"}, {neadmm.RhoBalance.String(), "balance"},
		{neadmm.RhoPolicy(7).String(), "RhoPolicy(7)"},
		{neadmm.StopConverged.String(), "converged"}, {neadmm.StopMaxIter.String(), "iteration cap"},
		{neadmm.StopCancelled.String(), "cancelled"}, {neadmm.StopCallback.String(), "stopped by callback"},
		{neadmm.StopError.String(), "error"}, {neadmm.StopReason(0).String(), "StopReason(0)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
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
	_ = fmt.Sprint()
}
