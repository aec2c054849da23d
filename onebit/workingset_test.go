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

// TestKKTThreshold pins the stationarity check that ends a working-set
// stage (Solver.kkt, workingset.go: thr := wOff * (1 + kktSlack)): a
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

// TestWorkingSetStart pins the first working set (Options.WorkingSet:
// "It starts from the 16 largest coordinates of the starting point";
// wsInit: min(16, N) of them, held in index order): with StartGiven and
// distinct magnitudes, the set at the first iteration is the 16 largest
// |x_j| found here by sorting, and all N columns when N < 16.
func TestWorkingSetStart(t *testing.T) {
	for _, n := range []int{80, 10} {
		p := randomProblem(t, 30, n, 4)
		rng := rand.New(rand.NewPCG(5, 6))
		x := randomUnit(rng, n)
		order := make([]int, n)
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(math.Abs(x[b]), math.Abs(x[a])) })
		want := slices.Clone(order[:min(16, n)])
		slices.Sort(want)
		var s Solver
		var first []int
		o := DefaultOptions()
		o.Start, o.CoordinateCheck, o.MaxIter = StartGiven, false, 3
		o.Callback = func(neadmm.Iteration) bool {
			if first == nil {
				first = slices.Clone(s.ws.idx[:s.ws.k])
			}
			return false
		}
		_, err := s.Solve(context.Background(), p, x, o)
		require.NoError(t, err)
		require.Equal(t, want, first, "N = %d", n)
	}
}

// wsStart sets s up as Solve does for a working-set stage from a fixed
// random start, with the k0 largest coordinates (L1 weights 1).
func wsStart(s *Solver, p *Problem, k0 int) {
	s.resize(p)
	s.wsInit(p, randomUnit(rand.New(rand.NewPCG(13, 14)), p.n), k0)
	for c := range s.ws.k {
		s.wt[c] = 1
	}
	s.sp.p = p
	s.sp.cap = 0
}

// TestWorkingSetGrowth pins the growth rule of a working-set stage
// (workingset.go's doc of wsBatch: "each check adds at most max(wsBatch, k)
// violators (the largest first), and the set may hold at most a quarter
// of the columns"; the quarter inclusive: k + added > N/4 leaves it). N =
// 96, a quarter 24. The first restricted solve is repeated here on a twin
// Solver to count its violators (at least 13 for the test). From k = 12
// the first check adds max(8, 12) = 12 of them: exactly a quarter, so the
// set grows to 24 (a cap of 8, none, or a bound exclusive of N/4 differs).
// From k = 13 it would add 13: 26 > 24, so the stage, told not to go to
// the full Phi (Recover's noFull), stops on its first check with the
// overflow flag (a bound of N/3 = 32 lets it grow).
func TestWorkingSetGrowth(t *testing.T) {
	p := randomProblem(t, 40, 96, 9)
	o := Options{Lambda: 0.5, Rho: 10, Policy: neadmm.RhoFixed, MaxIter: 50, EpsAbs: 1e-8, EpsRel: 1e-6,
		InnerMaxIter: 200, InnerTol: 1e-8}
	for _, c := range []struct {
		k0       int
		next     int // the size after the first check, 0 for none
		overflow bool
	}{{12, 24, false}, {13, 0, true}} {
		var twin Solver
		wsStart(&twin, p, c.k0)
		_, err := twin.run(context.Background(), p, o, false)
		require.NoError(t, err)
		viol := twin.kkt(p, o.Lambda, 1)
		require.GreaterOrEqual(t, len(viol), 13, "k0 = %d: the first check must find more violators than k0 for the test", c.k0)

		var s Solver
		wsStart(&s, p, c.k0)
		var sizes []int
		oc := o
		oc.Callback = func(neadmm.Iteration) bool {
			if len(sizes) == 0 || sizes[len(sizes)-1] != s.ws.k {
				sizes = append(sizes, s.ws.k)
			}
			return false
		}
		r, overflow, err := s.stage(context.Background(), p, oc, solveMode{off: 1, noFull: true})
		require.NoError(t, err)
		require.Equal(t, c.k0, sizes[0])
		if c.overflow {
			if !overflow || r.KKTChecks != 1 || s.ws.k != c.k0 {
				t.Errorf("k0 = %d: overflow %v after %d checks at size %d (sizes %v), want an overflow on the first check at %d",
					c.k0, overflow, r.KKTChecks, s.ws.k, sizes, c.k0)
			}
			continue
		}
		if len(sizes) < 2 || sizes[1] != c.next {
			t.Errorf("k0 = %d: sizes %v, want %d after the first check", c.k0, sizes, c.next)
		}
		// The columns that joined are the first check's largest violators.
		joined := slices.Clone(s.ws.idx[c.k0:c.next])
		want := slices.Clone(viol[:c.next-c.k0])
		slices.Sort(want)
		require.Equal(t, want, joined)
	}
}

// TestWorkingSetShrink pins shrink's rule and its moves: the zero slots of the
// working set are dropped when k > 2 nz + wsBatch (nz the slots where x
// is non-zero: the zero slots outnumber them by more than wsBatch), and
// the slots kept carry their x, dual, weight and column, with w
// renormalized. With nz = 2: k = 12 = 2*2 + 8 stays, k = 13 shrinks to
// the two non-zero slots.
func TestWorkingSetShrink(t *testing.T) {
	p := randomProblem(t, 10, 20, 2)
	for _, k := range []int{12, 13} {
		var s Solver
		s.resize(p)
		s.wsInit(p, randomUnit(rand.New(rand.NewPCG(3, 4)), p.n), k)
		for c := range k {
			s.x[c], s.w[c], s.dual[1+c], s.wt[c] = 0, 0.5, float64(c+1), float64(c+10)
		}
		s.x[3], s.x[7], s.w[3], s.w[7] = 0.6, -0.8, 3, 4
		idx := slices.Clone(s.ws.idx)
		s.shrink()
		if k == 12 {
			require.Equal(t, 12, s.ws.k, "k = 12 = 2 nz + wsBatch must stay")
			require.Equal(t, idx, s.ws.idx)
			continue
		}
		require.Equal(t, 2, s.ws.k, "k = 13 > 2 nz + wsBatch must shrink")
		require.Equal(t, []int{idx[3], idx[7]}, s.ws.idx)
		w := []float64{3, 4}
		normalize(w)
		require.Equal(t, []float64{0.6, -0.8}, s.x[:2])
		require.Equal(t, w, s.w[:2])
		require.Equal(t, []float64{4, 8}, s.dual[1:3])
		require.Equal(t, []float64{13, 17}, s.wt[:2])
		for c, j := range s.ws.idx {
			require.Equal(t, c, s.ws.pos[j])
			col := make([]float64, p.m)
			p.column(col, j)
			require.Equal(t, col, s.ws.col(c))
		}
	}
}

// TestWorkingSetToFull pins toFull: the working-set iterate (x, w, dual and the
// weights) moves to the columns its slots hold, zero elsewhere, and the
// coordinates outside the set take the L1 weight outside it (s.wsOff, the
// stage's wOff), which the reweighted stages on the full Phi then use.
func TestWorkingSetToFull(t *testing.T) {
	p := randomProblem(t, 10, 20, 2)
	var s Solver
	s.resize(p)
	s.wsInit(p, randomUnit(rand.New(rand.NewPCG(3, 4)), p.n), 5)
	s.dual[0] = -3
	for c := range 5 {
		s.x[c], s.w[c], s.dual[1+c], s.wt[c] = float64(c+1), float64(c+11), float64(c+21), float64(c+31)
	}
	s.wsOff = 7
	idx := slices.Clone(s.ws.idx)
	s.toFull()
	require.True(t, s.op.full)
	require.Equal(t, -3.0, s.dual[0])
	for j := range p.n {
		c := slices.Index(idx, j)
		x, w, d, wt := 0.0, 0.0, 0.0, 7.0
		if c >= 0 {
			x, w, d, wt = float64(c+1), float64(c+11), float64(c+21), float64(c+31)
		}
		if s.x[j] != x || s.w[j] != w || s.dual[1+j] != d || s.wt[j] != wt {
			t.Errorf("column %d (slot %d): x, w, dual, weight = %v, %v, %v, %v, want %v, %v, %v, %v",
				j, c, s.x[j], s.w[j], s.dual[1+j], s.wt[j], x, w, d, wt)
		}
	}
}
