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
	"github.com/neadmm/neadmm/vec"
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
	phi, y := gaussianPhi(rng, m, n), make([]float64, m)
	for i := range y {
		y[i] = float64(2*rng.IntN(2) - 1)
	}
	p, err := NewProblem(phi, m, n, y)
	require.NoError(t, err)
	return p
}

// gaussianPhi returns an m x n matrix of standard normal entries drawn
// from rng in row-major order.
func gaussianPhi(rng *rand.Rand, m, n int) []float64 {
	phi := make([]float64, m*n)
	for i := range phi {
		phi[i] = rng.NormFloat64()
	}
	return phi
}

// twoColumnSigns returns an m x n Gaussian Phi drawn from
// rand.NewPCG(seed, 99) with the signs of column j plus c times column k:
// separable on {j, k}.
func twoColumnSigns(t *testing.T, m, n int, seed uint64, j, k int, c float64) *Problem {
	phi, y := gaussianPhi(rand.New(rand.NewPCG(seed, 99)), m, n), make([]float64, m)
	for i := range y {
		y[i] = sign(phi[i*n+j] + c*phi[i*n+k])
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
	r, _, err := s.stage(context.Background(), p, o, solveMode{weighted: true, off: math.MaxFloat64})
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
		r, _, err := s.stage(context.Background(), p, o, solveMode{weighted: true, off: c.wOff})
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

// TestPursueReference runs pursue beside aopReference, a transcription of
// its doc: the iteration count (two products each, counted by s.full)
// and the estimate returned, the first iterate with the fewest violations
// outside the left-out rows, must agree; the estimates only by rounding
// (1e-12 on unit vectors whose entries are sums of 200 products of
// standard normals with step 1/400: rounding is near 1e-15). The cases
// cover a stop by patience whose lowest count recurs within the patience
// (no new lowest: the first is kept and the stop comes patience after it),
// one where it does not, and a run that ends on a count of 0.
func TestPursueReference(t *testing.T) {
	const l, maxIter, patience = 6, 300, 10
	for _, c := range []struct {
		seed uint64
		k    int
	}{{0, 3}, {0, 5}, {9, 8}} {
		_, p := problemFor(t, GenOptions{M: 200, N: 100, K: 8, Flip: 0.05, Seed: c.seed})
		_, best, counts := aopReference(p, c.k, l, maxIter, patience)
		var s Solver
		s.resize(p)
		require.True(t, s.pursue(t.Context(), p, c.k, l, maxIter, patience))
		require.Equal(t, 2*len(counts), s.full.products, "seed %d, k %d: counts %v", c.seed, c.k, counts)
		for j, v := range s.pw.x {
			require.InDelta(t, best[j], v, 1e-12, "seed %d, k %d: x[%d]", c.seed, c.k, j)
			require.Equal(t, best[j] == 0, v == 0, "seed %d, k %d: x[%d]", c.seed, c.k, j)
		}
	}
}

// TestPursuitGrid checks pursuit's loop over K and its outlier count
// l = round(eps*M) against pursue run directly: eps*M = 640 * 5/1024 = 3.125
// rounds to 3 and 256 * 5/512 = 2.5 to 3 (exact dyadic products; a floor
// gives 2; at K = 2 pursue told 2 outliers ends elsewhere on these
// instances, checked), and the grid from lo = 1 runs K = 1 (the clamp is
// to 1, not above). With lo = hi the estimate is pursue's (the same code
// path: equal exactly), and a finite description is kept.
func TestPursuitGrid(t *testing.T) {
	for _, c := range []struct {
		m   int
		eps float64
		k   int
	}{{640, 5.0 / 1024, 1}, {640, 5.0 / 1024, 2}, {256, 5.0 / 512, 2}} {
		_, p := problemFor(t, GenOptions{M: c.m, N: 100, K: 6, Flip: 0.05, Seed: 3})
		var s, ref Solver
		s.resize(p)
		ref.resize(p)
		desc, ok := s.pursuit(t.Context(), p, c.eps, c.k, c.k)
		require.True(t, ok)
		require.True(t, ref.pursue(t.Context(), p, c.k, 3, pursuitMaxIter, pursuitPatience))
		require.Less(t, desc, math.Inf(1))
		require.Equal(t, ref.pw.x, s.pw.bestX, "M = %d, eps = %g, K = %d", c.m, c.eps, c.k)
		require.Equal(t, c.k, countNonzero(s.pw.bestX))
		if c.k > 1 {
			require.True(t, ref.pursue(t.Context(), p, c.k, 2, pursuitMaxIter, pursuitPatience))
			require.NotEqual(t, ref.pw.x, s.pw.bestX, "M = %d, K = %d: l = 2 and 3 agree", c.m, c.k)
		}
	}
}

// TestBIHTZeroBackprojectionCounts checks BIHT's fallback to e_1 when
// Phi^T y = 0 on a 3 x 2 Phi (columns (1, 1, 2) and (2, -1, 1), y = (1, 1,
// -1)) where e_1's Hamming distance is not 1/2: sign(Phi e_1) = (1, 1, 1)
// misses 1 sign of 3. The cost: the first product with Phi^T on y (no
// zero residual: a full product, work 1), the product with the zero
// iterate (no column: work 0) and e_1's column (1/N = 1/2): 3 products,
// work 3/2 (a sum of dyadic values: exact).
func TestBIHTZeroBackprojectionCounts(t *testing.T) {
	p, err := NewProblem([]float64{1, 2, 1, -1, 2, 1}, 3, 2, []float64{1, 1, -1})
	require.NoError(t, err)
	x := []float64{5, 5}
	res, err := BIHT(t.Context(), p, x, BIHTOptions{K: 1, MaxIter: 10})
	require.NoError(t, err)
	require.Equal(t, []float64{1, 0}, x)
	require.InDelta(t, 1.0/3, res.Hamming, 1e-15) // 1/3 rounded once
	require.Equal(t, 3, res.Products)
	require.Equal(t, 1.5, res.Work)
}

// TestPursuitOutlierTies checks that outliers leaves out exactly l rows
// when violations tie at the l-th depth: y*ax = (-1, 2, -1, -1, -3) has the
// deepest -3 (row 4) and three ties at -1; l = 1 takes row 4 alone, l = 2
// row 4 and one tie, l = 3 two ties (the first rows, in row order).
func TestPursuitOutlierTies(t *testing.T) {
	y := []float64{1, 1, -1, 1, 1}
	pw := pursuitWork{ax: []float64{-1, 2, 1, -1, -3}, v: make([]float64, 5), out: make([]bool, 5)}
	for l, want := range [][]bool{
		1: {false, false, false, false, true},
		2: {true, false, false, false, true},
		3: {true, false, true, false, true},
	} {
		if l == 0 {
			continue
		}
		pw.outliers(y, l)
		require.Equal(t, want, pw.out, "l = %d", l)
	}
}

// TestPassiveMaxThreshold checks that Passive accepts the largest finite
// threshold (documented: finite and >= 0) and rejects +Inf: at
// t = MaxFloat64 every |(1/M) Phi^T y|_j is below t, so the estimate is
// sign((Phi^T y)_j) e_j at the largest magnitude; here Phi^T y = (1, -3).
func TestPassiveMaxThreshold(t *testing.T) {
	p, err := NewProblem([]float64{1, -1, 0, 2}, 2, 2, []float64{1, -1})
	require.NoError(t, err)
	x := make([]float64, 2)
	require.NoError(t, Passive(p, x, math.MaxFloat64))
	require.Equal(t, []float64{0, -1}, x)
	require.ErrorIs(t, Passive(p, x, math.Inf(1)), ErrBadInput)
}

// boundSolver returns a Solver set up as the support search sets it for
// the bound (full operator, no row left out, an empty pool) on phi (m x n,
// all signs +1) with the estimate x.
func boundSolver(t *testing.T, phi []float64, m, n int, x []float64) (*Solver, *Problem) {
	t.Helper()
	p, err := NewProblem(phi, m, n, slices.Repeat([]float64{1}, m))
	require.NoError(t, err)
	s := new(Solver)
	s.resize(p)
	s.op = &s.full
	s.cell.out = make([]bool, m)
	s.cell.maxIter = 100
	s.sw.reset(m)
	copy(s.x, x)
	return s, p
}

// TestBoundBoundary checks below on 2 x 2 cases small enough to trace by
// hand. Phi = I, y = (1, 1): the hull of the rows e_1, e_2 has its point of
// minimum norm at (1/2, 1/2), so the margin is 1/sqrt 2 (Wolfe's iterates
// are exact to a few ulps here). After the margin computation the pool
// holds both rows: a floor 1e-10 below the margin must not be claimed
// (boundSafety asks the bound to reach 1e-9 below the floor; a slack on
// the other side claims a margin below a floor it exceeds), the bound then
// ran to the pool's minimum-norm point (ran); a floor 1e-8 above it is
// claimed, and ran is false. The cost: Wolfe's algorithm on the pool from
// e_1 (the first of the equal <b_i, x>) takes the load and two major
// cycles (the second finds no better row): 3 passes over the pool's
// 2 rows x 2 columns, 3 full products' worth of the 2 x 2 Phi. Phi with
// rows e_1 and -e_1 (on a support of 2, the second column zero): the hull
// holds the origin, and floor 0 is claimed.
func TestBoundBoundary(t *testing.T) {
	s, p := boundSolver(t, []float64{1, 0, 0, 1}, 2, 2, []float64{1, 1})
	sup := []int{0, 1}
	var res RecoverResult
	mu := s.searchMargin(p, sup, 0, nil, nil, &res) // its corral joins the pool
	require.InDelta(t, math.Sqrt(0.5), mu, 1e-15)
	w0 := s.ws.work
	require.False(t, s.below(p, sup, mu*(1-1e-10)))
	require.True(t, s.sw.bound.ran)
	require.Equal(t, 3.0, s.ws.work-w0) // integers: exact
	require.True(t, s.below(p, sup, mu*(1+1e-8)))
	require.False(t, s.sw.bound.ran)

	s, p = boundSolver(t, []float64{1, 0, -1, 0}, 2, 2, []float64{1, 1})
	require.False(t, s.searchMargin(p, sup, 0, nil, nil, &res) > 0)
	require.True(t, s.below(p, sup, 0))
	require.False(t, s.below(p, sup, -1), "a negative floor is never claimed")
}

// wolfeRows loads the rows (row-major, s columns, all signs +1) into a
// fresh wolfeWork.
func wolfeRows(rows []float64, s int) *wolfeWork {
	m := len(rows) / s
	cols := make([][]float64, s)
	for c := range cols {
		for i := range m {
			cols[c] = append(cols[c], rows[i*s+c])
		}
	}
	cw := new(wolfeWork)
	cw.load(m, s, func(c int) []float64 { return cols[c] }, slices.Repeat([]float64{1}, m), nil)
	return cw
}

// TestWolfeBoundaries checks solve's documented stops on cases exact in
// floating point. One row e_1: the margin is 1, and floor 1 cannot be
// exceeded (0 returned, belowFloor), floor 1/2 can (1 returned, x = e_1).
// Rows e_1, e_2 from x = (1, 1/2) with no major cycle (maxIter 0): the
// point e_1 has margin min(1, 0) = 0, which is not positive, so x is left
// as it is. Rows e_1 and (-1, 1e-7)/norm with one major cycle: the point
// of the segment nearest the origin has norm 5e-8, below Wolfe's
// tolerance (norm 1e-6: the origin counts as in the hull) though both of
// its margins are positive; 0 is returned and x left.
func TestWolfeBoundaries(t *testing.T) {
	cw := wolfeRows([]float64{2}, 1)
	x := []float64{1}
	require.Zero(t, cw.solve(x, 1, 1, 10, nil))
	require.True(t, cw.belowFloor)
	require.Equal(t, 1.0, cw.solve(x, 1, 0.5, 10, nil))
	require.False(t, cw.belowFloor)
	require.Equal(t, []float64{1}, x)

	cw = wolfeRows([]float64{1, 0, 0, 1}, 2)
	x = []float64{1, 0.5}
	require.Zero(t, cw.solve(x, 2, 0, 0, nil))
	require.Equal(t, []float64{1, 0.5}, x)

	cw = wolfeRows([]float64{1, 0, -1, 1e-7}, 2)
	x = []float64{1, 0.5}
	require.Zero(t, cw.solve(x, 2, 0, 1, nil))
	require.True(t, cw.belowFloor)
	require.Equal(t, []float64{1, 0.5}, x)
}

// TestGenerateOverflowBoundary checks Generate's overflow test at its
// boundary: M = MaxInt/3 rows of 3 fit in an int (the cap refuses them),
// one more row overflows.
func TestGenerateOverflowBoundary(t *testing.T) {
	_, err := Generate(GenOptions{M: math.MaxInt / 3, N: 3, K: 1})
	require.ErrorIs(t, err, ErrBadInput)
	require.ErrorContains(t, err, "above the cap")
	_, err = Generate(GenOptions{M: math.MaxInt/3 + 1, N: 3, K: 1})
	require.ErrorIs(t, err, ErrBadInput)
	require.ErrorContains(t, err, "overflows")
}

// TestCentroidSiteMoments checks expectation propagation's site update and
// posterior against their definitions (centroidWork's doc) on 4 unit rows
// in 3 dimensions, over 3 sweeps. Before each update the test computes the
// cavity of the marginal s = <b_i, z> by removing the site (tau_i, nu_i)
// in natural parameters, 1/vc = 1/v - tau_i and mc/vc = m/v - nu_i, and
// the moments of the cavity times the step 1[s >= 0] from the normal
// density phi and distribution Phi: with a = mc/sqrt(vc), l = phi(a)/Phi(a),
// mh = mc + sqrt(vc) l and vh = vc (1 - l (l + a)); after it, the
// posterior's marginal along b_i must have these moments. At the end of
// each sweep the posterior recomputed from the sites (precision
// I + sum tau_i b_i b_i^T, Sigma^{-1} mu = sum nu_i b_i) must match the
// rank-one updates. The very first update (prior cavity, a = 0) is the
// half-normal: mean sqrt(2/pi), variance 1 - 2/pi. Tolerances 1e-12: the
// quantities are of order 1 and computed in a few dozen operations.
func TestCentroidSiteMoments(t *testing.T) {
	const q = 3
	rows := []float64{0.6, 0.8, 0, 0, 0.6, 0.8, 0.8, 0, 0.6, 0.48, 0.64, 0.6}
	var ew centroidWork
	ew.resize(q, 4)
	ew.act = append(ew.act, 0, 1, 2, 3)
	require.True(t, ew.posterior(rows, q))
	require.Equal(t, []float64{0, 0, 0}, ew.mu[:q])
	quad := func(sig, u, v []float64) float64 {
		s := 0.0
		for a := range q {
			for b := range q {
				s += u[a] * sig[a*q+b] * v[b]
			}
		}
		return s
	}
	dot := func(u, v []float64) float64 { return u[0]*v[0] + u[1]*v[1] + u[2]*v[2] }
	for sweep := range 3 {
		for i := range 4 {
			b := rows[i*q : (i+1)*q]
			m, v := dot(b, ew.mu), quad(ew.sig, b, b)
			vc := 1 / (1/v - ew.tau[i])
			mc := vc * (m/v - ew.nu[i])
			a := mc / math.Sqrt(vc)
			l := math.Exp(-a*a/2) / math.Sqrt(2*math.Pi) / (0.5 * math.Erfc(-a/math.Sqrt2))
			mh, vh := mc+math.Sqrt(vc)*l, vc*(1-l*(l+a))
			if sweep == 0 && i == 0 {
				require.InDelta(t, math.Sqrt(2/math.Pi), mh, 1e-15)
				require.InDelta(t, 1-2/math.Pi, vh, 1e-15)
			}
			ew.site(i, b, q)
			require.InDelta(t, mh, dot(b, ew.mu), 1e-12, "sweep %d, site %d: mean", sweep, i)
			require.InDelta(t, vh, quad(ew.sig, b, b), 1e-12, "sweep %d, site %d: variance", sweep, i)
		}
		mu, sig := slices.Clone(ew.mu[:q]), slices.Clone(ew.sig[:q*q])
		require.True(t, ew.posterior(rows, q))
		for u := range q {
			require.InDelta(t, mu[u], ew.mu[u], 1e-12, "sweep %d: mu[%d]", sweep, u)
			for w := range q {
				require.InDelta(t, sig[u*q+w], ew.sig[u*q+w], 1e-12, "sweep %d: Sigma[%d,%d]", sweep, u, w)
			}
		}
	}
	// A cavity 5 deviations on the wrong side of the wall (mu = -5 b,
	// Sigma = I, no site) still updates (only a < -millsMin = -30 is
	// skipped): Phi(-5) = 2.9e-7, and the moments from math.Erfc are good
	// to about 1e-13 here (1e-10: the cancellation in 1 - l (l + a)).
	clear(ew.tau)
	clear(ew.nu)
	b := rows[:q]
	for u := range q {
		ew.mu[u] = -5 * b[u]
		for w := range q {
			ew.sig[u*q+w] = 0
		}
		ew.sig[u*q+u] = 1
	}
	l := math.Exp(-12.5) / math.Sqrt(2*math.Pi) / (0.5 * math.Erfc(5/math.Sqrt2))
	ew.site(0, b, q)
	require.InDelta(t, -5+l, dot(b, ew.mu), 1e-10)
	require.InDelta(t, 1-l*(l-5), quad(ew.sig, b, b), 1e-10)
}

// TestCentroidStartOnWall checks that estimate reports false and leaves
// the direction when it starts on a wall of the cell (a row at margin 0
// exactly: e_2 against the start e_1), as it does outside one.
func TestCentroidStartOnWall(t *testing.T) {
	rows := []float64{0.6, 0.8, 0.8, 0.6, 0, 1}
	dir := []float64{1, 0}
	var ew centroidWork
	_, _, ok := ew.estimate(rows, 3, 2, dir, nil)
	require.False(t, ok)
	require.Equal(t, []float64{1, 0}, dir)
}

// TestWolfeDropSmallest checks dropSmallest on a corral of 3 with weights
// 0.5, 0.125, 0.375: the point of weight 0.125 leaves, the others are
// renormalized to 0.5/0.875 and 0.375/0.875, and the Gram matrix keeps
// the entries of the points that stay (its lower triangle, in corral
// order).
func TestWolfeDropSmallest(t *testing.T) {
	cw := wolfeWork{gs: 4, corral: []int{5, 7, 9}, lam: []float64{0.5, 0.125, 0.375}, kept: make([]int, 4), gram: make([]float64, 16), cholN: 3, zN: 3}
	for r := range 3 {
		for u := 0; u <= r; u++ {
			cw.gram[r*4+u] = float64(10*r + u) // 0; 10, 11; 20, 21, 22
		}
	}
	cw.dropSmallest()
	require.Equal(t, []int{5, 9}, cw.corral)
	require.InDeltaSlice(t, []float64{0.5 / 0.875, 0.375 / 0.875}, cw.lam, 1e-15)
	require.Equal(t, []float64{0, 20, 22}, []float64{cw.gram[0], cw.gram[4], cw.gram[5]})
	require.Equal(t, 1, cw.cholN, "the factor's rows from the dropped point on are stale")
	require.LessOrEqual(t, cw.zN, 1)
}

// TestCentroidJoin checks join's rule (centroidWork's doc) by brute force
// on cells of 300 rows in 3 dimensions after the first sweeps from the
// center: a row without a site joins iff its margin c = <b_i, d> at the
// posterior mean's direction d is within centroidSafe deviations of the
// posterior across it, c ||mu|| < centroidSafe sqrt(Var <b_i - c d, z>),
// with Var <u, z> = u^T Sigma u. join's cheaper bound on c (far) must not
// change that set. Some of the rows joining must have c above a third of
// that bound, or the test could not tell a bound too small.
func TestCentroidJoin(t *testing.T) {
	const n, q = 300, 3
	deep := 0
	for seed := uint64(1); seed <= 6; seed++ {
		rows, x0 := randomCell(n, q, seed)
		dir := cellCenter(t, rows, n, q, x0)
		var ew centroidWork
		ew.resize(q, n)
		copy(ew.prev, dir)
		vec.MulVec(ew.dots, rows, n, q, dir)
		mg := slices.Min(ew.dots)
		for i, v := range ew.dots {
			if v <= centroidNear*mg {
				ew.act = append(ew.act, i)
				ew.in[i] = true
			}
		}
		ew.dedupe(rows, q)
		_, ok := ew.sweeps(rows, q, centroidTol*mg, centroidMaxSweeps)
		require.True(t, ok)
		mu, d, sig := slices.Clone(ew.mu[:q]), slices.Clone(ew.prev[:q]), slices.Clone(ew.sig[:q*q])
		in := slices.Clone(ew.in)
		nm := math.Sqrt(dot3(mu, mu))
		want := make([]bool, n)
		far := 0.0
		for i := range n {
			if in[i] {
				continue
			}
			b := rows[i*q : (i+1)*q]
			c := dot3(b, d)
			u := []float64{b[0] - c*d[0], b[1] - c*d[1], b[2] - c*d[2]}
			v := 0.0
			for a := range q {
				for e := range q {
					v += u[a] * sig[a*q+e] * u[e]
				}
			}
			if want[i] = c*nm < centroidSafe*math.Sqrt(v); want[i] {
				far = max(far, c)
			}
		}
		joined := ew.join(rows, n, q)
		got := make([]bool, n)
		for i := range n {
			got[i] = ew.in[i] && !in[i]
		}
		require.Equal(t, want, got, "seed %d", seed)
		require.Equal(t, slices.Contains(want, true), joined, "seed %d", seed)
		// the bound: 3 sqrt(||P Sigma P||_F)/||mu||, P = I - d d^T
		f := 0.0
		for a := range q {
			for e := range q {
				pse := 0.0
				for g := range q {
					for h := range q {
						pa, pe := -d[a]*d[g], -d[h]*d[e]
						if a == g {
							pa++
						}
						if h == e {
							pe++
						}
						pse += pa * sig[g*q+h] * pe
					}
				}
				f += pse * pse
			}
		}
		if far > centroidSafe*math.Sqrt(math.Sqrt(f))/nm/3 {
			deep++
		}
	}
	require.Positive(t, deep, "no row joined above a third of the bound")
}

// TestCleanMaxOutliersBoundary checks RecoverOptions.CleanMaxOutliers at
// its boundary: on a clean Rademacher instance (M = 400, K = 5, seed 2)
// where the cap flags 61 signs without the limit, a limit of 61.5/400
// (61 signs) keeps them and 60.5/400 (60 signs: one short) leaves out
// none. The cap's count does not depend on the limit (both runs take the
// same path up to it).
func TestCleanMaxOutliersBoundary(t *testing.T) {
	_, p := rademacherFor(t, 400, 200, 5, 0, 2)
	var s Solver
	x := make([]float64, 200)
	opt := DefaultRecoverOptions()
	opt.CleanMaxOutliers = 0
	r, err := s.Recover(t.Context(), p, x, opt)
	require.NoError(t, err)
	require.Equal(t, 61, r.Outliers)
	opt.CleanMaxOutliers = 61.5 / 400
	r, err = s.Recover(t.Context(), p, x, opt)
	require.NoError(t, err)
	require.Equal(t, 61, r.Outliers)
	opt.CleanMaxOutliers = 60.5 / 400
	r, err = s.Recover(t.Context(), p, x, opt)
	require.NoError(t, err)
	require.Zero(t, r.Outliers)
}

// TestRecoverPursuitAloneRule checks the rule of pursuitAlone on the
// instances of TestRecoverPursuitAlone (seeds 500-502): the pursuit's
// estimate is returned alone iff it describes the signs more than
// pursuitAlone nats more briefly than the sign regression's fit (whose
// description is recomputed here from the fit's Phi x), else the
// direction of the mean of the two unit vectors. Here the margins are
// 31.8 and 26.0 nats (alone) and 16.6 (the mean), far from rounding.
func TestRecoverPursuitAloneRule(t *testing.T) {
	const m, n = 1000, 1000
	var s Solver
	x := make([]float64, n)
	alone := 0
	for seed := range uint64(3) {
		_, p := problemFor(t, GenOptions{M: m, N: n, K: 10, Flip: 0.03, Seed: 500 + seed})
		r, err := s.Recover(t.Context(), p, x, DefaultRecoverOptions())
		require.NoError(t, err)
		require.True(t, r.Pursued, "seed %d", seed)
		code, _ := signCode(s.rw.ax, p.y, make([]float64, m))
		regCode := describe(n, m, len(s.rw.sel), code)
		want := slices.Clone(s.pw.bestX)
		// The pursuit's description of the signs, as pursuit computed it
		// for the estimate it kept.
		nz, _ := s.fullMismatches(p, s.pw.bestX)
		code, _ = signCode(s.pw.ax, p.y, make([]float64, m))
		bestDesc := describe(n, m, nz, code)
		if !(bestDesc < regCode-pursuitAlone) {
			for j, v := range s.rw.x {
				want[j] += v
			}
			normalize(want)
		} else {
			alone++
		}
		require.InDeltaSlice(t, want, x, 1e-12, "seed %d: %.2f nats ahead", seed, regCode-bestDesc)
	}
	require.Equal(t, 2, alone)
}

// TestCapDepth checks tau = Cap*sigma*sin(pi*v) (RecoverOptions.Cap) on a
// 4 x 1 Phi = (1, 2, 3, 4) at x = 1: sigma = 2/0.6745 (the median |Phi x|,
// the lower of the middle two, over the normal's 0.6745), and v the
// fraction of the signs violated within the previous tau, counted at
// |Phi x|_i <= tau. With 3 of 4 violated (v = 3/4, beyond an angular
// error of pi/2) sin is held at 1, not sin(3 pi/4); with the previous tau
// at 2, the violations at depths 1 and 2 count (v = 1/2) and the one at 3
// does not, and with y = (1, 1, -1, 1) and no previous tau, v = 1/4.
// Tolerance 1e-14: a few roundings of values near 10.
func TestCapDepth(t *testing.T) {
	const sigma = 2 / 0.6745
	for _, c := range []struct {
		y         []float64
		prev, tau float64
	}{
		{[]float64{-1, -1, -1, 1}, math.Inf(1), 3 * sigma},
		{[]float64{-1, -1, -1, 1}, 2, 3 * sigma},
		{[]float64{1, 1, -1, 1}, math.Inf(1), 3 * sigma * math.Sin(math.Pi/4)},
	} {
		p, err := NewProblem([]float64{1, 2, 3, 4}, 4, 1, c.y)
		require.NoError(t, err)
		var s Solver
		s.resize(p)
		s.op = &s.full
		s.x[0] = 1
		require.InDelta(t, c.tau, capDepthOf(&s, p, 3, c.prev), 1e-14, "y %v, previous tau %g", c.y, c.prev)
	}
}

// TestRefitJoinsTwo checks the refit's floor of 2 on the coordinates that
// may join (RecoverOptions.Refit): the 6 signs of Phi below (all +1) are separable on all 3
// coordinates (x = (1, 1, 1): every <a_i, x> >= 4) and on no 2 (each pair
// has two rows with opposite restrictions to it). From the support {0} no
// single coordinate joining separates them, so the first candidate joins
// and the search goes on: the second joins too (at least 2 may join,
// though the support had 1).
func TestRefitJoinsTwo(t *testing.T) {
	s, p := boundSolver(t, []float64{
		1, 0, 5, -1, 0, 5,
		0, 5, 1, 0, 5, -1,
		5, 1, 0, 5, -1, 0,
	}, 6, 3, []float64{1, 0, 0})
	requireRefitJoinsTwo(t, s, p)
}

// requireRefitJoinsTwo runs the refit on s (support {0}) and requires
// that columns 1 and 2 join and the signs are separable on {0, 1, 2}.
func requireRefitJoinsTwo(t *testing.T, s *Solver, p *Problem) {
	t.Helper()
	var res RecoverResult
	s.refit(p, &res)
	require.Equal(t, 2, res.Expanded)
	require.Equal(t, []int{0, 1, 2}, s.support())
	require.Positive(t, s.margin(p, s.support(), 0, &res))
}

// TestCandidates checks candidates on the full operator: the coordinates
// outside the support by decreasing |g_j| (equal ones in index order),
// none with g_j = 0, none in the support.
func TestCandidates(t *testing.T) {
	s, p := boundSolver(t, make([]float64, 6), 1, 6, []float64{0, 0, 0, 0, 0, 1})
	require.Equal(t, []int{3, 1, 4}, s.candidates(p, []float64{0, 3, 0, -5, 3, 9}, 5))
	require.Equal(t, []int{3}, s.candidates(p, []float64{0, 3, 0, -5, 3, 9}, 1))
}

// TestRecoverCenteredMargin checks RecoverResult's Centered and Margin
// together (Centered: the estimate was replaced by a center, whose margin
// is positive; a Margin of 0 or less left it as it was) on flipped signs
// with nothing flagged as an outlier (Cap 0) and no support search, where
// the signs are not separable on the support (the first center fails, and
// the center of the signs the estimate satisfies is taken).
func TestRecoverCenteredMargin(t *testing.T) {
	opt := DefaultRecoverOptions()
	opt.Cap, opt.Refit, opt.Prune, opt.Swap, opt.Regress = 0, false, false, false, false
	var s Solver
	x := make([]float64, 100)
	for seed := range uint64(3) {
		_, p := problemFor(t, GenOptions{M: 200, N: 100, K: 5, Flip: 0.05, Seed: seed})
		r, err := s.Recover(t.Context(), p, x, opt)
		require.NoError(t, err)
		require.Equal(t, r.Margin > 0, r.Centered, "seed %d: margin %g", seed, r.Margin)
		require.True(t, r.Centered, "seed %d", seed)
		require.Positive(t, r.Hamming, "seed %d: the signs were separable on the support", seed)
	}
}

// TestRecoverOptionsInclusive checks the bounds RecoverOptions documents
// as inclusive: LambdaStart = LambdaMax (the continuation ends at once,
// at LambdaMax), CleanLambdaStart = LambdaMax, CleanMaxOutliers = 1.
func TestRecoverOptionsInclusive(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 60, N: 30, K: 3, Seed: 1})
	var s Solver
	x := make([]float64, 30)
	for name, set := range map[string]func(o *RecoverOptions){
		"LambdaStart = LambdaMax":      func(o *RecoverOptions) { o.LambdaStart = o.LambdaMax },
		"CleanLambdaStart = LambdaMax": func(o *RecoverOptions) { o.CleanLambdaStart = o.LambdaMax },
		"CleanMaxOutliers 1":           func(o *RecoverOptions) { o.CleanMaxOutliers = 1 },
	} {
		opt := DefaultRecoverOptions()
		set(&opt)
		_, err := s.Recover(t.Context(), p, x, opt)
		require.NoError(t, err, name)
	}
	opt := DefaultRecoverOptions()
	opt.LambdaStart, opt.Regress = opt.LambdaMax, false
	r, err := s.Recover(t.Context(), p, x, opt)
	require.NoError(t, err)
	require.Equal(t, opt.LambdaMax, r.Lambda)
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

// TestProductPathBoundaries checks the documented switches between the
// dense kernels and the sparse products through their cost (Work, in full
// products): a product with Phi^T runs over the non-zero residual rows
// when they are below sparseRows = 0.85 of M (16 of 20: work 16/20), the
// dense kernel at 17 of 20 (work 1); mulSparse gathers the columns of x's
// non-zeros when they are fewer than N/32 (1 of 64: work 1/64), and runs
// the dense kernel at 2 of 64 (work 1). The products agree with the dense
// ones to rounding (1e-12 on sums of 20 and 64 terms of order 1).
func TestProductPathBoundaries(t *testing.T) {
	p := randomProblem(t, 20, 64, 9)
	var o operator
	o.setFull(p)
	g, want := make([]float64, 64), make([]float64, 64)
	ax, wantAx := make([]float64, 20), make([]float64, 20)
	for _, c := range []struct {
		trans bool
		nz    int
		work  float64
	}{{true, 16, 16.0 / 20}, {true, 17, 1}, {false, 1, 1.0 / 64}, {false, 2, 1}} {
		o.work = 0
		if c.trans {
			r := make([]float64, 20)
			for i := range c.nz {
				r[i] = float64(i%3) - 1.5
			}
			o.mulT(g, r)
			vec.MulTransVec(want, p.phi, 20, 64, r)
			require.InDeltaSlice(t, want, g, 1e-12)
		} else {
			x := make([]float64, 64)
			for j := range c.nz {
				x[10*j+3] = float64(j) + 0.5
			}
			o.mulSparse(ax, x)
			vec.MulVec(wantAx, p.phi, 20, 64, x)
			require.InDeltaSlice(t, wantAx, ax, 1e-12)
		}
		require.InDelta(t, c.work, o.work, 1e-15, "transpose %v, %d non-zeros", c.trans, c.nz)
	}
}
