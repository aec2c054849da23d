package onebit

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
)

// subproblem is the x-update's problem written out for the tests of this
// file, on a dense row-major m x k matrix a (the operator's columns):
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

// randomProblem returns an m x n Gaussian Phi with random signs (not those
// of any direction: most x then violate about half of them, so the loss
// curves F in every direction).
func randomProblem(t *testing.T, m, n int, seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, 99))
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range phi {
		phi[i] = rng.NormFloat64()
	}
	for i := range y {
		y[i] = float64(2*rng.IntN(2) - 1)
	}
	p, err := NewProblem(phi, m, n, y)
	require.NoError(t, err)
	return p
}

// randomUnit returns a direction drawn uniformly on the sphere.
func randomUnit(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	normalize(x)
	return x
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
		p := &Problem{m: len(y), n: 1, y: y}
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

// TestKKTThreshold pins the stationarity check that ends a working-set
// stage (Solver.kkt, solver.go: thr := wOff * (1 + kktSlack)): a
// coordinate j outside the set violates exactly when |g_j| > wOff
// (1 + kktSlack), g = lambda Phi^T r computed here, wOff the L1 weight of
// the coordinates outside (1/ReweightEps in Recover's reweighted stages;
// with wOff = 1 a threshold without it is the same, so wOff is far from
// 1 here), and Solver.stage stops after the check exactly when there is
// none.
func TestKKTThreshold(t *testing.T) {
	p := randomProblem(t, 40, 200, 9) // N/wsMaxShare = 50: room to grow
	q := subproblem{a: p.phi, m: p.m, k: p.n, y: p.y}
	start := func(s *Solver) {
		s.resize(p)
		s.wsInit(p, randomUnit(rand.New(rand.NewPCG(13, 14)), p.n), 6)
		for c := range s.ws.k {
			s.wt[c] = 1
		}
		s.sp.p = p // as Solver.run sets it before the check
	}
	// outside returns the coordinates outside the working set by
	// decreasing |g_j| and g, at the iterate.
	outside := func(s *Solver, lambda float64) ([]int, []float64) {
		x := make([]float64, p.n)
		s.unslot(x, s.x[:s.ws.k])
		_, r := q.loss(x)
		g := make([]float64, p.n)
		var js []int
		for j := range g {
			for i := range p.m {
				g[j] += lambda * p.phi[i*p.n+j] * r[i]
			}
			if s.ws.pos[j] < 0 {
				js = append(js, j)
			}
		}
		slices.SortFunc(js, func(a, b int) int { return cmp.Compare(math.Abs(g[b]), math.Abs(g[a])) })
		return js, g
	}

	// The check itself, at the start: lambda puts the fourth largest |g_j|
	// at 50, and wOff puts the threshold between it and the third, just
	// above the fourth with wOff itself below it, or just below the third
	// with wOff (1 + 2 kktSlack) above it (the slack decides both).
	var s Solver
	start(&s)
	js, g := outside(&s, 1)
	lambda := 50 / math.Abs(g[js[3]])
	js, g = outside(&s, lambda)
	g2, g3 := math.Abs(g[js[2]]), math.Abs(g[js[3]])
	require.Greater(t, g2, 1.01*g3, "the third and fourth |g_j| must differ for the test")
	for _, wOff := range []float64{math.Sqrt(g2*g3) / (1 + kktSlack), g3 / (1 + kktSlack/2), g2 / (1 + 2*kktSlack)} {
		got := s.kkt(p, lambda, wOff)
		if !slices.Equal(got, js[:3]) {
			t.Errorf("wOff %g (|g| %g, %g, %g, %g, ...): violators %v, want %v", wOff,
				math.Abs(g[js[0]]), math.Abs(g[js[1]]), g2, g3, got, js[:3])
		}
	}

	// The stage: a weighted solve restricted to the set, then the check.
	// With wOff above every |g_j| outside at the restricted solution it
	// stops after one check; with wOff between the largest and the second
	// largest, exactly one violates (a stage that stopped on one violator
	// instead of none would end there); with wOff below the third largest,
	// at least three join. The last two check again, until none is left. Both solve the
	// same restricted problem first (wOff only weighs the coordinates
	// outside).
	o := Options{Lambda: 1, Rho: 10, Policy: neadmm.RhoFixed, MaxIter: 300, EpsAbs: 1e-8, EpsRel: 1e-6,
		InnerMaxIter: 500, InnerTol: 1e-10}
	start(&s)
	r, err := s.stage(context.Background(), p, o, true, math.MaxFloat64)
	require.NoError(t, err)
	js, g = outside(&s, o.Lambda)
	top := math.Abs(g[js[0]])
	require.Equal(t, 1, r.KKTChecks)
	require.Greater(t, top, 2.0, "the largest |g_j| outside must be far above 1 for the test")
	second := math.Abs(g[js[1]])
	require.Greater(t, top, 1.01*second, "the two largest |g_j| outside must differ for the test")
	for _, c := range []struct {
		wOff   float64
		checks bool // more than one
	}{{2 * top, false}, {math.Sqrt(top*second) / (1 + kktSlack), true}, {math.Abs(g[js[2]]) / 2, true}} {
		var s Solver
		start(&s)
		r, err := s.stage(context.Background(), p, o, true, c.wOff)
		require.NoError(t, err)
		if (r.KKTChecks > 1) != c.checks || (s.ws.k > 6) != c.checks {
			t.Errorf("wOff %g, largest |g_j| outside %g: %d checks, working set %d; want more than one: %v",
				c.wOff, top, r.KKTChecks, s.ws.k, c.checks)
		}
		// It ends on the full Phi or with no violator left, and the
		// coordinates that joined carry the weight wOff.
		for c2 := 6; c2 < s.ws.k; c2++ {
			if s.wt[c2] != c.wOff {
				t.Errorf("wOff %g: slot %d joined with weight %g", c.wOff, c2, s.wt[c2])
			}
		}
		if !s.op.full {
			js, g := outside(&s, o.Lambda)
			if a := math.Abs(g[js[0]]); a > c.wOff*(1+kktSlack) {
				t.Errorf("wOff %g: the stage ended with |g_%d| = %g outside the working set", c.wOff, js[0], a)
			}
		}
	}
}
