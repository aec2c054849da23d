package onebit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// subproblem is the x-update's problem written out for the tests (of the
// x-update here, of the working set's stationarity check in
// workingset_test.go), on a dense row-major m x k matrix a (the
// operator's columns):
//
//	F(x) = f(x) + sum_j wt_j |x_j|,
//	f(x) = (lambda/2) sum_i min(y_i (a x)_i, 0)^2 + (rho/2) ||x - c||^2
//
// (eq. 4 of the paper with the x-update's doc comment, splitting.UpdateX1:
// c = w + y2/rho; wt nil is plain L1).
type subproblem struct {
	a           []float64
	m, k        int
	y           []float64
	lambda, rho float64
	c, wt       []float64
}

// loss returns (1/2) sum_i min(y_i (a x)_i, 0)^2 and r, the one-sided
// residual: (a x)_i on the violated rows, 0 elsewhere.
func (q *subproblem) loss(x []float64) (l float64, r []float64) {
	r = make([]float64, q.m)
	for i := range q.m {
		ax := 0.0
		for c := range q.k {
			ax += q.a[i*q.k+c] * x[c]
		}
		if q.y[i]*ax < 0 {
			r[i] = ax
			l += ax * ax / 2
		}
	}
	return l, r
}

// weight returns wt_j (1 without weights).
func (q *subproblem) weight(j int) float64 {
	if q.wt == nil {
		return 1
	}
	return q.wt[j]
}

// l1 returns sum_j wt_j |x_j|.
func (q *subproblem) l1(x []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += q.weight(j) * math.Abs(v)
	}
	return s
}

// kkt returns the largest violation of the optimality conditions of F at
// x: with g = grad f(x) = lambda a^T r + rho (x - c), g_j + wt_j sign(x_j)
// = 0 where x_j != 0 and |g_j| <= wt_j where x_j = 0. f is rho-strongly
// convex, so a violation of at most v in every coordinate puts x within
// sqrt(k) v / rho of the minimizer.
func (q *subproblem) kkt(x []float64) float64 {
	_, r := q.loss(x)
	worst := 0.0
	for j := range q.k {
		g := q.rho * (x[j] - q.c[j])
		for i := range q.m {
			g += q.lambda * q.a[i*q.k+j] * r[i]
		}
		if x[j] != 0 {
			worst = max(worst, math.Abs(g+math.Copysign(q.weight(j), x[j])))
		} else {
			worst = max(worst, math.Abs(g)-q.weight(j))
		}
	}
	return worst
}

// TestXUpdateOptimal pins the x-update (splitting.UpdateX1, eq. 4) as a
// whole, through Solver.run with one outer iteration from an iterate with a
// non-zero dual: on the full Phi (neadmm.FISTA with the fixed step 1/L,
// subproblem.go: s.fopt.L = s.lambda*s.norm2 + rho, with solver.go's
// sp.norm2 = n2 from Problem.norm2Ctx) and on a working set
// (fistaCompact, whose step doubles up to lambda ||A||_2^2 + rho, with
// sp.norm2 = s.ws.norm2(...)), plain and weighted. The x it leaves must
// satisfy the optimality conditions of the subproblem (subproblem.kkt,
// derived from the objective, not from the code).
//
// Two regimes: lambda ||A||_F^2 = rho/10 (the curvature is about rho
// everywhere: a step 1/(lambda ||A||^2) without rho, or 1/(L/2), is too
// long by 10 or 2 along every direction), and lambda ||A||_F^2 = 200 rho
// (lambda ||A||_2^2 about 25 rho for the 24 columns, 70 rho for 6) with
// signs that no direction satisfies, so that about half the rows are
// violated at any x and the curvature is near lambda ||A||_2^2 / 2: a
// norm estimate four times too small gives a step twice too long. Those
// steps diverge (ErrNotFinite) or exhaust the budget far from the
// minimizer (violations above 1).
//
// Tolerance: FISTA stops when a step moves x by at most InnerTol = 1e-13
// (||x|| < 1 here); the violation at its last point is then about L times
// that step and the one before (a momentum step), L < 300 here, so about
// 1e-10 (seen: at most 6e-12), and 1e-7 leaves a margin of 1e3. The
// budget InnerMaxIter = 3000 is about 30 times what the correct steps
// take (at most 107).
func TestXUpdateOptimal(t *testing.T) {
	const inner = 3000
	for _, tc := range []struct {
		name     string
		ws       bool
		weighted bool
		ratio    float64 // lambda ||A||_F^2 / rho
	}{
		{"full/rho", false, false, 0.1},
		{"full/lambda", false, false, 200},
		{"full/weighted", false, true, 200},
		{"ws/rho", true, false, 0.1},
		{"ws/lambda", true, false, 200},
		{"ws/weighted", true, true, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := randomProblem(t, 40, 24, 5)
			var s Solver
			s.resize(p)
			rng := rand.New(rand.NewPCG(11, 12))
			x0 := randomUnit(rng, p.n)
			k := p.n
			if tc.ws {
				k = 6
				s.wsInit(p, x0, k)
			} else {
				s.fullInit(p, x0)
			}
			q := subproblem{m: p.m, k: k, y: p.y, a: make([]float64, p.m*k)}
			frob := 0.0
			for i := range p.m {
				for c := range k {
					j := c
					if tc.ws {
						j = s.ws.idx[c]
					}
					q.a[i*k+c] = p.phi[i*p.n+j]
					frob += q.a[i*k+c] * q.a[i*k+c]
				}
			}
			q.rho = 4
			q.lambda = tc.ratio * q.rho / frob
			for c := range k {
				s.dual[1+c] = rng.NormFloat64()
			}
			// c = w + y2/rho from the iterate before the update.
			q.c = make([]float64, k)
			for c := range k {
				q.c[c] = s.w[c] + s.dual[1+c]/q.rho
			}
			if tc.weighted {
				q.wt = make([]float64, k)
				for c := range k {
					q.wt[c] = 0.25 + rng.Float64()
					s.wt[c] = q.wt[c]
				}
			}
			opt := Options{Lambda: q.lambda, Rho: q.rho, Policy: neadmm.RhoFixed, MaxIter: 1,
				InnerMaxIter: inner, InnerTol: 1e-13}
			r, err := s.run(context.Background(), p, opt, tc.weighted)
			require.NoError(t, err)
			x := s.x[:k]
			v := q.kkt(x)
			t.Logf("violation %.3g after %d steps, %d non-zeros of %d", v, r.InnerIterations, countNonzero(x), k)
			if !(v <= 1e-7) || r.InnerIterations >= inner {
				t.Errorf("x-update: optimality violated by %g after %d FISTA steps (budget %d), want <= 1e-7 within the budget",
					v, r.InnerIterations, inner)
			}
			// f and F at x as the solvers and the callback evaluate them
			// (FuncGrad, Func, Objective): sums of the same non-negative
			// terms in other orders, from products of at most 24 terms
			// (relative differences near 1e-14).
			l, _ := q.loss(x)
			f := q.lambda * l
			for c := range k {
				f += q.rho / 2 * (x[c] - q.c[c]) * (x[c] - q.c[c])
			}
			got := [...]float64{s.sp.FuncGrad(make([]float64, k), x), s.sp.Func(x), s.sp.Objective(x, nil)}
			want := [...]float64{f, f, q.l1(x) + q.lambda*l}
			for i := range got {
				if !(math.Abs(got[i]-want[i]) <= 1e-10*want[i]) {
					t.Errorf("FuncGrad, Func, Objective = %.17g, want %.17g (loss part %g)", got, want, q.lambda*l)
					break
				}
			}
		})
	}
}

// TestCallbackObjective pins the objective the engine hands to
// Options.Callback (splitting.Objective, subproblem.go:
// s.l1(x) + s.lambda*consistencyLoss(s.ax, s.p.y), that is
// ||x||_1 + lambda (1/2) sum_i min(y_i (Phi x)_i, 0)^2): at every
// iteration, the paper's objective at that iteration's x-iterate (s.x,
// which the engine updates in place), recomputed here from Phi, on the
// full Phi and on a working set. The signs are random, so the loss is a
// large part of the objective (checked) and a lambda dropped from it
// changes it by that part times 1/lambda - 1 = 2.3. Both sides sum the
// same non-negative terms in other orders from products of 24 terms:
// they agree to about 1e-14 relatively, and 1e-10 is far below a wrong
// weight.
func TestCallbackObjective(t *testing.T) {
	p := randomProblem(t, 40, 24, 7)
	q := subproblem{a: p.phi, m: p.m, k: p.n, y: p.y}
	for _, ws := range []bool{false, true} {
		var s Solver
		o := PaperOptions()
		o.Lambda, o.MaxIter, o.WorkingSet = 0.3, 8, ws
		x := make([]float64, p.n)
		calls := 0
		o.Callback = func(it neadmm.Iteration) bool {
			calls++
			s.unslot(x, s.x[:s.op.k])
			l, _ := q.loss(x)
			want := q.l1(x) + o.Lambda*l
			if !(math.Abs(it.Objective-want) <= 1e-10*want) || !(o.Lambda*l >= 0.1*want) {
				t.Errorf("working set %v, iteration %d: objective %.17g, want %.17g (loss part %g)", ws, it.K, it.Objective, want, o.Lambda*l)
			}
			return false
		}
		_, err := s.Solve(context.Background(), p, make([]float64, p.n), o)
		require.NoError(t, err)
		require.Positive(t, calls)
	}
}

// TestLossCap pins the loss cap of Recover's stages (cappedSq,
// subproblem.go: cp > 0 && math.Abs(a) > cp gives cp*cp and no residual,
// else a*a: a violation deeper than the cap counts cap^2 and pulls no
// more, one at or within it counts a^2) in its three users: loss (the
// working set's products), residualAt (the full Phi's sweep) and lossPass
// (fistaCompact). Rows violated within the cap, at it, between cap and
// 2 cap, beyond 2 cap, satisfied, and at y_i a_i = 0 (not violated:
// sign(0) = +1); every value is a dyadic fraction, so the sums are exact.
func TestLossCap(t *testing.T) {
	y := []float64{1, 1, 1, -1, -1, 1, -1, 1, -1}
	ax := []float64{-0.5, -1, -1.5, 3, 0.75, 2, -4, 0, 1.25}
	const lambda, cp = 2.0, 1.25
	for _, c := range []struct {
		cap, sum float64
		r        []float64
	}{
		// 0.25 + 1 + 1.5625 (capped) + 1.5625 (capped) + 0.5625 + 1.5625.
		{cp, 6.5, []float64{-1, -2, 0, 0, 1.5, 0, 0, 0, 2.5}},
		// 0.25 + 1 + 2.25 + 9 + 0.5625 + 1.5625.
		{0, 14.625, []float64{-1, -2, -3, 6, 1.5, 0, 0, 0, 2.5}},
	} {
		p := &Problem{phiData: &phiData{m: len(y), n: 1}, y: y}
		var sp splitting
		sp.resize(p.m, 1)
		sp.p, sp.lambda, sp.cap = p, lambda, c.cap
		var rows []int
		for i, v := range c.r {
			if v != 0 {
				rows = append(rows, i)
			}
		}
		copy(sp.ax, ax)
		f, active := sp.loss()
		if f != lambda*c.sum/2 || !active || !slices.Equal(sp.r, c.r) || !slices.Equal(sp.viol[:sp.nviol], rows) {
			t.Errorf("cap %g: loss %g, residual %v, rows %v; want %g, %v, %v", c.cap, f, sp.r, sp.viol[:sp.nviol], lambda*c.sum/2, c.r, rows)
		}
		sp.lossSum, sp.nviol = 0, 0
		for i, a := range ax {
			if r := sp.residualAt(i, a); r != c.r[i] {
				t.Errorf("cap %g: residualAt(%d, %g) = %g, want %g", c.cap, i, a, r, c.r[i])
			}
		}
		if sp.lossSum != c.sum || sp.nviol != len(rows) {
			t.Errorf("cap %g: residualAt's sum %g over %d rows, want %g over %d", c.cap, sp.lossSum, sp.nviol, c.sum, len(rows))
		}
		fz, fy := sp.lossPass(ax, ax, 0)
		if fz != lambda*c.sum/2 || fy != fz || !slices.Equal(sp.fw.r[:p.m], c.r) || !slices.Equal(sp.fw.viol[:sp.fw.nv], rows) {
			t.Errorf("cap %g: lossPass %g, %g, residual %v; want %g, %v", c.cap, fz, fy, sp.fw.r[:p.m], lambda*c.sum/2, c.r)
		}
	}
}

// TestXUpdateInnerRelTolerance pins the inexact x-updates (Options.InnerRel:
// "each x-update after the first stops FISTA at max(InnerTol, InnerRel*d),
// d the distance the previous x-update moved x"; splitting.UpdateX1 keeps
// d in lastMove): the first x-update of a solve uses InnerTol, it records
// d = ||x_after - x_before||, and the next uses max(InnerTol, InnerRel d),
// with InnerRel d above InnerTol and below it. Both on the full Phi and
// on a working set.
func TestXUpdateInnerRelTolerance(t *testing.T) {
	p := randomProblem(t, 40, 24, 5)
	const innerTol = 1e-9
	for _, ws := range []bool{false, true} {
		for _, rel := range []float64{0.5, 1e-12} {
			var s Solver
			s.resize(p)
			x0 := randomUnit(rand.New(rand.NewPCG(11, 12)), p.n)
			k := p.n
			if ws {
				k = 6
				s.wsInit(p, x0, k)
			} else {
				s.fullInit(p, x0)
			}
			sp := &s.sp
			sp.p, sp.op, sp.lambda, sp.weight = p, s.op, 0.5, nil
			if ws {
				sp.norm2 = s.ws.norm2(s.pv[:k], s.pu)
			} else {
				sp.norm2 = p.Norm2()
			}
			sp.fopt = neadmm.FISTAOptions{L: 1, Tol: 123, MaxIter: 50}
			sp.innerTol, sp.innerRel, sp.lastMove = innerTol, rel, 0
			sp.ctx = context.Background()
			x, w, y := s.x[:k], s.w[:k], s.dual[:1+k]
			for c := range k {
				y[1+c] = float64(c%3) - 1 // a dual that moves x
			}
			for call := range 2 {
				before := slices.Clone(x)
				wantTol := innerTol
				if call > 0 {
					wantTol = max(innerTol, rel*sp.lastMove)
					for c := range k {
						w[c] = -w[c] // as the engine's w-update moves it
					}
				}
				require.NoError(t, sp.UpdateX1(x, w, y, 2))
				if sp.fopt.Tol != wantTol {
					t.Errorf("working set %v, InnerRel %g, x-update %d: tolerance %g, want %g", ws, rel, call, sp.fopt.Tol, wantTol)
				}
				d := make([]float64, k)
				vec.AddScaledTo(d, x, -1, before)
				if moved := vec.Nrm2(d); sp.lastMove != moved || !(moved > 1e-3) {
					t.Errorf("working set %v, x-update %d: lastMove %g, want the move %g (> 1e-3 for the test)", ws, call, sp.lastMove, moved)
				}
			}
		}
	}
}

// TestFuncGradCost pins the x-update's product counts (Result.Work: "a
// full FISTA step (Phi x and Phi^T r in one sweep over Phi) 2";
// splitting.FuncGrad: "none with A^T when every measurement is
// satisfied", and Solver.kkt likewise), on signs consistent with x: on
// the full Phi one FuncGrad is 2 products, 1 transposed, work 2; on a
// working set of 4 of 8 columns it is 1 product (A x, work 4/8) and the
// gradient is rho (x - c) alone; the stationarity check there makes no
// product with Phi^T.
func TestFuncGradCost(t *testing.T) {
	const m, n = 20, 8
	rng := rand.New(rand.NewPCG(21, 22))
	phi := gaussianPhi(rng, m, n)
	x0 := randomUnit(rng, n)
	ax := make([]float64, m)
	vec.MulVec(ax, phi, m, n, x0)
	y := make([]float64, m)
	for i, a := range ax {
		y[i] = sign(a)
	}
	p, err := NewProblem(phi, m, n, y)
	require.NoError(t, err)
	var s Solver
	s.resize(p)
	s.fullInit(p, x0)
	sp := &s.sp
	sp.p, sp.op, sp.lambda, sp.rho = p, s.op, 3, 2
	clear(sp.c)
	grad := make([]float64, n)
	sp.FuncGrad(grad, x0)
	require.Equal(t, 2, s.full.products)
	require.Equal(t, 1, s.full.trans)
	require.Equal(t, 2.0, s.full.work)

	// A working set holding x0's 4 largest coordinates, with x the
	// restriction of x0 (y consistent with it too).
	s.wsInit(p, x0, 4)
	xs := s.x[:4]
	vec.MulVec(ax, phi, m, n, xsFull(&s, n))
	for i, a := range ax {
		p.y[i] = sign(a)
	}
	sp.op = s.op
	p0, t0, w0 := s.ws.products, s.ws.trans, s.ws.work
	g := make([]float64, 4)
	sp.FuncGrad(g, xs)
	require.Equal(t, 1, s.ws.products-p0)
	require.Equal(t, 0, s.ws.trans-t0)
	require.Equal(t, 0.5, s.ws.work-w0)
	for c := range 4 {
		require.Equal(t, sp.rho*(xs[c]-sp.c[c]), g[c])
	}
	ft := s.full.trans
	require.Nil(t, s.kkt(p, 3, 1))
	require.Equal(t, ft, s.full.trans, "the check at a consistent x must not multiply by Phi^T")
}

// xsFull returns the working-set iterate of s as a vector of n.
func xsFull(s *Solver, n int) []float64 {
	x := make([]float64, n)
	s.unslot(x, s.x[:s.ws.k])
	return x
}

// TestWeightedL1 pins splitting.l1 with weights: sum_j weight_j |x_j|,
// where a zero x_j counts 0 even at an infinite weight (0*Inf would be
// NaN; the reweighted stages pin coordinates off the support so).
func TestWeightedL1(t *testing.T) {
	sp := splitting{weight: []float64{math.Inf(1), 2, 0}}
	require.Equal(t, 3.0, sp.l1([]float64{0, -1.5, 4}))
}
