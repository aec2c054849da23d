package onebit

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// plainOpts is DefaultRecoverOptions with every Clean option off (the
// plain schedule whatever the signs look like).
func plainOpts() RecoverOptions {
	o := DefaultRecoverOptions()
	o.CleanEpsRel, o.CleanLambdaStart, o.CleanLambdaGrowth, o.CleanReweightRel, o.CleanWarm = 0, 0, 0, 0, false
	o.CleanMaxOutliers = 0
	return o
}

// TestRecoverCheckEdges pins RecoverOptions.check where the existing
// cases cannot tell: a growth of exactly 1 (LambdaGrowth, and
// CleanLambdaGrowth) is refused even when the continuation has one stage
// (its start is LambdaMax, so the MaxStages check never sees the growth);
// ReweightEps is only checked when Reweight > 0 ("> 0 when Reweight >
// 0"); and a continuation of exactly MaxStages stages is accepted, one
// more refused: 2^-999, 2^-998, ..., 2^0 = LambdaMax by x2 is 1000
// stages (exact powers of two, so no rounding decides the count),
// starting at 2^-1000 is 1001.
func TestRecoverCheckEdges(t *testing.T) {
	o := plainOpts()
	o.LambdaStart, o.LambdaGrowth = o.LambdaMax, 1
	require.ErrorIs(t, o.check(1), ErrBadInput, "LambdaGrowth 1")
	o = DefaultRecoverOptions()
	o.CleanLambdaStart, o.CleanLambdaGrowth = o.LambdaMax, 1
	require.ErrorIs(t, o.check(1), ErrBadInput, "CleanLambdaGrowth 1")
	o = DefaultRecoverOptions()
	o.Reweight, o.ReweightEps = 0, 0
	require.NoError(t, o.check(1), "ReweightEps 0 without reweighting")

	o = plainOpts()
	o.LambdaStart, o.LambdaGrowth, o.LambdaMax = 0x1p-999, 2, 1
	require.NoError(t, o.check(1), "MaxStages stages")
	o.LambdaStart = 0x1p-1000
	require.ErrorIs(t, o.check(1), ErrBadInput, "MaxStages+1 stages")
	require.ErrorContains(t, o.check(1), "MaxStages")
}

// TestRecoverCleanSchedule pins clean() against RecoverOptions' doc: each
// Clean field replaces its plain one only when set (> 0; 0 keeps EpsRel,
// LambdaStart, LambdaGrowth), CleanReweightRel is the reweighting rounds'
// InnerRel (not InnerRel, which the defaults make equal: 0.01 both) and
// CleanWarm the warm start, CleanMaxOutliers the share of the signs the
// final steps may leave out (0: any, of m signs m; 0.05 of 70, 3); the
// plain schedule has none of them (its rounds solve to InnerTol).
func TestRecoverCleanSchedule(t *testing.T) {
	o := DefaultRecoverOptions()
	o.EpsRel, o.LambdaStart, o.LambdaGrowth, o.InnerRel = 0.02, 50, 4, 0.03
	o.CleanEpsRel, o.CleanLambdaStart, o.CleanLambdaGrowth, o.CleanReweightRel, o.CleanWarm = 0.2, 500, 8, 0.05, true
	require.Equal(t, schedule{start: 50, growth: 4, epsRel: 0.02}, o.plain())
	require.Equal(t, schedule{start: 500, growth: 8, epsRel: 0.2, reweightRel: 0.05, warm: true, maxOutliers: 0.05}, o.clean())
	require.Equal(t, 70, o.plain().maxOut(70))
	require.Equal(t, 3, o.clean().maxOut(70))
	o.CleanEpsRel, o.CleanLambdaStart, o.CleanLambdaGrowth, o.CleanReweightRel, o.CleanWarm = 0, 0, 0, 0, false
	o.CleanMaxOutliers = 0
	require.Equal(t, schedule{start: 50, growth: 4, epsRel: 0.02}, o.clean())
	require.Equal(t, 70, o.clean().maxOut(70))
}

// oneColumn returns the M x 1 Problem with column a and signs y.
func oneColumn(t *testing.T, a, y []float64) *Problem {
	t.Helper()
	p, err := NewProblem(a, len(a), 1, y)
	require.NoError(t, err)
	return p
}

// continuationOnly is DefaultRecoverOptions (the clean schedule when the
// signs look clean) without reweighting, support search or pursuit: its
// Stages count the continuation alone, 8 for the plain schedule (100,
// 300, ..., 72900, then 1e5 by x3) and 3 for the clean one (1000, 1e4,
// 1e5 by x10).
func continuationOnly() RecoverOptions {
	o := DefaultRecoverOptions()
	o.Reweight = 0
	o.Refit, o.Prune, o.Swap, o.Center, o.Polish, o.Centroid, o.Pursuit = false, false, false, false, false, false, false
	return o
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

// doneAt is a context whose Done channel is closed by the n-th call of
// Done: the solvers take Done once per neADMM solve and per FISTA run, so
// Recover is cancelled at a chosen point, deterministically.
type doneAt struct {
	context.Context
	n, calls int
	ch       chan struct{}
}

func newDoneAt(n int) *doneAt {
	return &doneAt{Context: context.Background(), n: n, ch: make(chan struct{})}
}

func (c *doneAt) Done() <-chan struct{} {
	if c.calls++; c.calls == c.n {
		close(c.ch)
	}
	return c.ch
}

func (c *doneAt) Err() error {
	select {
	case <-c.ch:
		return context.Canceled
	default:
		return nil
	}
}

// TestRecoverCancelledStageIterate pins Recover's doc on a cancelled
// stage: "x then holds that stage's normalized iterate", the x-iterate
// (or w if that is zero, as Solve's estimate), zero outside the working
// set. Cancelled at the 40th call of Done (in a later stage), the iterate
// has moved from the start (checked: x is not Phi^T y normalized).
func TestRecoverCancelledStageIterate(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 200, N: 100, K: 4, Seed: 3})
	var s Solver
	o := plainOpts()
	o.Regress = false
	for _, ws := range []bool{false, true} {
		o.WorkingSet = ws
		x := make([]float64, p.n)
		res, err := s.Recover(newDoneAt(40), p, x, o)
		require.ErrorIs(t, err, context.Canceled)
		require.Positive(t, res.Stages)
		k := s.op.k
		want := make([]float64, p.n)
		src := s.x[:k]
		if countNonzero(src) == 0 {
			src = s.w[:k]
		}
		s.unslot(want, src)
		require.True(t, normalize(want))
		require.Equal(t, want, x, "working set %v", ws)
		start := make([]float64, p.n)
		s.backprojection(start, p)
		normalize(start)
		require.NotEqual(t, start, x, "working set %v: the stage had not moved", ws)
	}
}

// stageCounts returns the non-zeros of each continuation stage's iterate
// (from continuations ending at each stage in turn: the same stages, the
// last one's iterate left in s.x), and the guard's regression support
// guardK (0 without Regress). SupportGrowth is huge, so that the guard
// never stops the continuation but a working set that outgrows its cap
// still does, as with any SupportGrowth.
func stageCounts(t *testing.T, s *Solver, p *Problem, o RecoverOptions) (lambdas []float64, nz []int, guardK int) {
	t.Helper()
	o.SupportGrowth = 1e300
	x := make([]float64, p.n)
	for lambda := o.LambdaStart; ; lambda = min(lambda*o.LambdaGrowth, o.LambdaMax) {
		q := o
		q.LambdaMax = lambda
		res, err := s.Recover(context.Background(), p, x, q)
		require.NoError(t, err)
		require.False(t, res.Stopped, "the working set outgrew its cap at lambda %g", lambda)
		require.Equal(t, len(lambdas)+1, res.Stages)
		lambdas, nz = append(lambdas, lambda), append(nz, s.nonzeros())
		if lambda >= o.LambdaMax {
			break
		}
	}
	if o.Regress { // the regression's, as Recover runs it (on the Solver sized by Recover)
		fit, err := s.signRegression(context.Background(), p, x, true)
		require.NoError(t, err)
		guardK = fit.ricK
	}
	return lambdas, nz, guardK
}

// TestRecoverSupportGrowthRule runs RecoverOptions.SupportGrowth's rule,
// transcribed from its doc, beside Recover: the continuation stops before
// the first stage (not the first one: it has no previous count) whose
// count of non-zeros is more than SupportGrowth times the larger of the
// previous stage's count and the regression's RIC support, plus 8; the
// estimate of the stage before is kept (RecoverResult.Lambda its lambda)
// and Stopped is reported. The SupportGrowth values tried are 1.5, 2, 3
// and each stage's exact boundary g = (nz_t - 8)/d, d = max(nz_{t-1},
// guardK) or nz_{t-1} (where g times d rounds back to nz_t - 8: the
// stage's count is then not more than the growth allowed), with the
// float below it. On this instance (plain schedule from lambda 1, N =
// 300, K = 30) the regression's support decides some of them (checked:
// the rule with the previous count alone would stop elsewhere), an exact
// boundary is where the stop starts (checked), and from lambda 300 the
// first stage has more than 8 non-zeros (checked), where no SupportGrowth
// may stop it.
func TestRecoverSupportGrowthRule(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 600, N: 300, K: 30, Seed: 3})
	var s Solver
	o := plainOpts()
	o.Reweight = 0
	o.Refit, o.Prune, o.Swap, o.Center, o.Polish, o.Centroid, o.Pursuit = false, false, false, false, false, false, false
	for _, c := range []struct {
		regress bool
		start   float64
	}{{true, 1}, {false, 1}, {false, 300}} {
		o.Regress, o.LambdaStart = c.regress, c.start
		lambdas, nz, guardK := stageCounts(t, &s, p, o)
		// stop returns the stage (index) the rule stops before, -1 for
		// none, with the guard's count max(previous, gk).
		stop := func(g float64, gk int) int {
			for u := 1; u < len(nz); u++ {
				if float64(nz[u]) > g*float64(max(nz[u-1], gk))+supportSlack {
					return u
				}
			}
			return -1
		}
		growths := []float64{1.5, 2, 3}
		for u := 1; u < len(nz); u++ {
			for _, d := range []float64{float64(max(nz[u-1], guardK)), float64(nz[u-1])} {
				g := float64(nz[u]-supportSlack) / d
				if g > 1 && g*d == float64(nz[u]-supportSlack) {
					growths = append(growths, g, math.Nextafter(g, 0))
				}
			}
		}
		decided, exact := false, false
		for _, g := range growths {
			if !(g > 1) {
				continue
			}
			want := stop(g, guardK)
			decided = decided || want != stop(g, 0)
			exact = exact || want != stop(math.Nextafter(g, 0), guardK)
			o.SupportGrowth = g
			x := make([]float64, p.n)
			res, err := s.Recover(context.Background(), p, x, o)
			require.NoError(t, err)
			if want < 0 {
				require.False(t, res.Stopped, "%+v: SupportGrowth %v", c, g)
				require.Equal(t, o.LambdaMax, res.Lambda, "%+v: SupportGrowth %v", c, g)
			} else {
				require.True(t, res.Stopped, "%+v: SupportGrowth %v: want a stop before stage %d", c, g, want+1)
				require.Equal(t, lambdas[want-1], res.Lambda, "%+v: SupportGrowth %v", c, g)
			}
		}
		switch {
		case c.regress:
			require.True(t, decided, "the regression's support decides no stop here: %v %v", nz, guardK)
		case c.start == 1:
			require.True(t, exact, "no stop starts at an exact boundary here: %v", nz)
		default:
			require.Greater(t, nz[0], supportSlack, "the first stage")
		}
	}
}

// TestCapDepthFromW pins capDepth's measurement "at the current iterate
// normalized": the x-iterate, or w when x is zero (the L1 term may zero
// x, while w stays on the sphere). TestCapDepth's first case (Phi = (1,
// 2, 3, 4), three signs violated: tau = 3 sigma, sigma = 2/0.6745) with x
// = 0 and w = 1/2: the same tau (w normalized is 1).
func TestCapDepthFromW(t *testing.T) {
	p, err := NewProblem([]float64{1, 2, 3, 4}, 4, 1, []float64{-1, -1, -1, 1})
	require.NoError(t, err)
	var s Solver
	s.resize(p)
	s.op = &s.full
	s.x[0], s.w[0] = 0, 0.5
	require.InDelta(t, 3*2/0.6745, capDepthOf(&s, p, 3, math.Inf(1)), 1e-14)
}

// capDepthOf is capDepth with the cap scale Cap and the previous tau
// prev, its product into a buffer of its own.
func capDepthOf(s *Solver, p *Problem, scale, prev float64) float64 {
	c := lossCap{scale: scale, tau: prev}
	tau, ok := s.capDepth(p, &c, make([]float64, p.m))
	if ok && c.tau != tau {
		panic("capDepth's tau is not the one it records")
	}
	return tau
}

// TestMarkOutliersAtTau pins markOutliers' "violated deeper than the
// cap": a sign violated at depth exactly tau stays. Phi = (1, 2, 3, 4, t)
// at x = 1 with the last two signs violated: v = 2/5 and the lower median
// |Phi x| is 3 for any t >= 3, so tau = Cap (3/0.6745) sin(2 pi/5), about
// 3.38 for Cap = 0.8, whatever t; with t = tau the row at depth 4 is
// flagged and the row at depth tau is not.
func TestMarkOutliersAtTau(t *testing.T) {
	const capScale = 0.8
	y := []float64{1, 1, 1, -1, -1}
	phi := []float64{1, 2, 3, 4, 4}
	var s Solver
	setup := func() *Problem {
		p, err := NewProblem(phi, 5, 1, y)
		require.NoError(t, err)
		s.resize(p)
		s.op = &s.full
		s.x[0] = 1
		return p
	}
	tau := capDepthOf(&s, setup(), capScale, math.Inf(1))
	require.InDelta(t, capScale*3/0.6745*math.Sin(2*math.Pi/5), tau, 1e-14)
	require.Greater(t, tau, 3.0)
	require.Less(t, tau, 4.0)
	phi[4] = tau
	p := setup()
	require.Equal(t, 1, s.markOutliers(p, &lossCap{scale: capScale, tau: math.Inf(1)}, p.m))
	require.Equal(t, []bool{false, false, false, true, false}, s.cell.out)
}

// TestRegressWinsBound pins regressWins' domain "for supports up to
// N/2": the support with polishPartialExtra more coordinates, q + 3, may
// be N/2 exactly. With q = 1 and a regression description of 0 (shorter
// than any), it wins at N = 8 and not at N = 7.
func TestRegressWinsBound(t *testing.T) {
	for _, n := range []int{8, 7} {
		x := make([]float64, n)
		x[0] = 1
		s, p := boundSolver(t, slices.Repeat([]float64{1}, 3*n), 3, n, x)
		require.Equal(t, n == 8, s.regressWins(p, 0), "N = %d", n)
	}
}

// TestSmallestPositions pins smallest: the positions of the
// searchPositions = 6 coordinates of smallest magnitude, in increasing
// order of magnitude (all of them for shorter supports), equal ones in
// support order (which decides the 6 among 7 equal ones).
func TestSmallestPositions(t *testing.T) {
	var s Solver
	s.x = []float64{0, -8, 3, 0, -1, 7, 2, 6, -5, 4}
	s.sw.pos = make([]int, 0, 10)
	sup := []int{1, 2, 4, 5, 6, 7, 8, 9} // magnitudes 8 3 1 7 2 6 5 4
	require.Equal(t, []int{2, 4, 1, 7, 6, 5}, s.smallest(sup))
	require.Equal(t, []int{2, 1, 0}, s.smallest(sup[:3]))
	s.x = []float64{-2, 2, 2, -2, 1, 2, -2, 2}
	require.Equal(t, []int{4, 0, 1, 2, 3, 5}, s.smallest([]int{0, 1, 2, 3, 4, 5, 6, 7}))
}

// TestPruneSingle pins prune's stop at one coordinate: nothing is left
// to drop (an empty support separates nothing), so no margin is computed.
func TestPruneSingle(t *testing.T) {
	s, p := boundSolver(t, []float64{1, 1, 2, 1}, 2, 2, []float64{1, 0})
	var res RecoverResult
	s.prune(p, &res)
	require.Equal(t, RecoverResult{}, res)
	require.Equal(t, []int{0}, s.support())
}

// TestCenterTrimBoundary pins the final step's trim when the signs are
// not separable on the support: "the coordinates below 5% of the
// largest are dropped first" (noisyTrim), so one at exactly 5% stays.
// Rows (1, 1) and (-1, -1), both signs +1, are separable on no support;
// x = (1, 0.05) (0.05 x 1 is exactly 0.05) satisfies the first, whose
// center on both coordinates is (1, 1)/sqrt 2.
func TestCenterTrimBoundary(t *testing.T) {
	s, p := boundSolver(t, []float64{1, 1, -1, -1}, 2, 2, []float64{1, 0.05})
	var res RecoverResult
	_, err := s.center(context.Background(), nil, p, s.cell.maxIter, &res)
	require.NoError(t, err)
	require.Zero(t, res.Pruned)
	require.True(t, res.Centered)
	require.Equal(t, []int{0, 1}, s.support())
	require.InDelta(t, s.x[0], s.x[1], 1e-15)
}

// TestRecoverSupportGrowthWorkingSetOnly pins that the SupportGrowth
// guard acts on working-set runs only (see its doc): on the instance of
// TestRecoverSupportGrowthRule, regression off, SupportGrowth 1.5 stops
// the continuation with a working set (where the rule above predicts it)
// and stops nothing on the full Phi.
func TestRecoverSupportGrowthWorkingSetOnly(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 600, N: 300, K: 30, Seed: 3})
	var s Solver
	o := continuationOnly()
	o.Regress, o.LambdaStart, o.SupportGrowth = false, 1, 1.5
	o.CleanEpsRel, o.CleanLambdaStart, o.CleanLambdaGrowth, o.CleanReweightRel, o.CleanWarm = 0, 0, 0, 0, false
	x := make([]float64, p.n)
	for _, ws := range []bool{true, false} {
		o.WorkingSet = ws
		res, err := s.Recover(context.Background(), p, x, o)
		require.NoError(t, err)
		require.Equal(t, ws, res.Stopped, "working set %v", ws)
	}
}

// TestRecoverWarmWorkingSet pins the clean signs' warm start (CleanWarm):
// the first working set holds the regression's fit's support, and at
// least the 16 coordinates Options.WorkingSet starts from. Recover is
// cancelled before the first stage's first iteration (the first call of
// Done), so x is the start restricted to the first working set: the fit
// itself. Fits of 4 (a working set of 16) and 24 non-zeros (of 24), on
// clean signs (checked: the fit's probit model needs no flip).
func TestRecoverWarmWorkingSet(t *testing.T) {
	var s Solver
	for _, c := range []struct{ m, n, k, nz int }{{400, 200, 5, 4}, {600, 300, 30, 24}} {
		_, p := problemFor(t, GenOptions{M: c.m, N: c.n, K: c.k, Seed: 1})
		x := make([]float64, p.n)
		res, err := s.Recover(newDoneAt(1), p, x, DefaultRecoverOptions())
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, 1, res.Stages)
		_, flip := signCode(s.rw.ax, p.y, make([]float64, p.m))
		require.Zero(t, flip)
		fit := s.rw.x[:p.n]
		require.Equal(t, c.nz, countNonzero(fit))
		require.Equal(t, max(wsInitial, c.nz), s.ws.k)
		for j, v := range fit {
			if v != 0 {
				require.GreaterOrEqual(t, s.ws.pos[j], 0, "coordinate %d of the fit", j)
			}
		}
		require.InDeltaSlice(t, fit, x, 1e-15)
	}
}

// TestRecoverCleanReweightRel pins that CleanReweightRel reaches the
// reweighting rounds, and only them, with clean signs: without rounds the
// estimate does not depend on it (bit for bit); with them, inexact
// x-updates (0.01) take other FISTA steps than exact ones (0: InnerTol)
// and end elsewhere. (The defaults' InnerRel is 0.01 too, so the stages'
// InnerRel cannot stand in for it.)
func TestRecoverCleanReweightRel(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 400, N: 200, K: 5, Seed: 1})
	var s Solver
	run := func(reweight int, rel float64) ([]float64, RecoverResult) {
		o := continuationOnly()
		o.Reweight, o.CleanReweightRel = reweight, rel
		x := make([]float64, p.n)
		res, err := s.Recover(context.Background(), p, x, o)
		require.NoError(t, err)
		require.Equal(t, 3+reweight, res.Stages, "the clean schedule")
		return x, res
	}
	x0, r0 := run(0, 0)
	x1, r1 := run(0, 0.01)
	require.Equal(t, x0, x1)
	require.Equal(t, r0.InnerIterations, r1.InnerIterations)
	_, r0 = run(4, 0)
	_, r1 = run(4, 0.01)
	require.NotEqual(t, r0.InnerIterations, r1.InnerIterations)
}

// flipped returns the instances of TestRecoverFlips (10% of the signs
// flipped, M = 400, N = 200, K = 5) for seeds 0-5.
func flipped(t *testing.T) []*Problem {
	var ps []*Problem
	for seed := uint64(0); seed < 6; seed++ {
		_, p := problemFor(t, GenOptions{M: 400, N: 200, K: 5, Flip: 0.1, Seed: seed})
		ps = append(ps, p)
	}
	return ps
}

// TestRecoverNoCentroidWhenRegressed pins the centroid's gate "when the
// centered estimate is kept (the sign regression's fit does not replace
// it)": with flipped signs the fit replaces a centered estimate, and the
// centroid does not run (RecoverResult.Centroid false, no sweeps).
func TestRecoverNoCentroidWhenRegressed(t *testing.T) {
	var s Solver
	n := 0
	for _, p := range flipped(t) {
		x := make([]float64, p.n)
		res, err := s.Recover(context.Background(), p, x, DefaultRecoverOptions())
		require.NoError(t, err)
		if res.Regressed && res.Centered {
			n++
			require.False(t, res.Centroid)
			require.Zero(t, res.CentroidSweeps)
		}
	}
	require.Positive(t, n)
}

// TestRecoverNoPolishWithOutliers pins the polish's gate "and no
// measurement was left out as an outlier": with flipped signs and no
// regression (so that regressWins cannot skip it), an estimate with
// outliers comes out as with Polish off, bit for bit, with the same
// products.
func TestRecoverNoPolishWithOutliers(t *testing.T) {
	var s Solver
	n := 0
	for _, p := range flipped(t) {
		o := DefaultRecoverOptions()
		o.Regress = false
		x1, x0 := make([]float64, p.n), make([]float64, p.n)
		r1, err := s.Recover(context.Background(), p, x1, o)
		require.NoError(t, err)
		o.Polish = false
		r0, err := s.Recover(context.Background(), p, x0, o)
		require.NoError(t, err)
		if r1.Outliers > 0 {
			n++
			require.Equal(t, x0, x1)
			require.Equal(t, r0, r1)
		}
	}
	require.Positive(t, n)
}

// TestRecoverNoPruneAfterSwap pins that Prune off prunes nothing, not
// even after a swap: with Swap alone (Center off, whose trim counts in
// Pruned too) on instances where swaps happen, Pruned stays 0.
func TestRecoverNoPruneAfterSwap(t *testing.T) {
	var s Solver
	n := 0
	for _, seed := range []uint64{1, 3, 5} {
		_, p := problemFor(t, GenOptions{M: 200, N: 200, K: 8, Seed: seed})
		o := DefaultRecoverOptions()
		o.Prune, o.Center, o.Polish, o.Centroid = false, false, false, false
		x := make([]float64, p.n)
		res, err := s.Recover(context.Background(), p, x, o)
		require.NoError(t, err)
		n += res.Swapped
		require.Zero(t, res.Pruned, "seed %d", seed)
	}
	require.Positive(t, n)
}

// TestTinyBoundary pins tiny's "below polishTinyShare times the
// largest": 0.03 x 1 is exactly 0.03, which is not below.
func TestTinyBoundary(t *testing.T) {
	var s Solver
	s.full.k = 5
	s.op = &s.full
	s.x = []float64{1, 0.03, -0.02, 0, 0.5}
	require.Equal(t, 1, s.tiny())
}

// TestSearchMaxSupport pins searchMaxSupport as inclusive ("bounds the
// supports that refit, prune and swap work on"): on 60 random signs and
// 40 Gaussian columns, a support of 32 coordinates goes through the
// refit (margin computations counted), one of 33 goes straight to the
// center (off here): none.
func TestSearchMaxSupport(t *testing.T) {
	p := randomProblem(t, 60, 40, 1)
	for _, q := range []int{32, 33} {
		var s Solver
		s.resize(p)
		s.op = &s.full
		x := make([]float64, p.n)
		for j := range q {
			x[j] = 1
		}
		normalize(x)
		var res RecoverResult
		opt := RecoverOptions{Refit: true, RefitMaxIter: 50}
		require.NoError(t, consistentStepsOf(&s, p, x, opt, math.Inf(1), &res))
		require.Equal(t, q == 32, res.Margins > 0, "support of %d: %+v", q, res)
	}
}

// TestMarginCost pins the cost counts of a margin computation traced by
// hand: on the support {0} of a 3 x 2 Phi whose first column is (1, 2,
// 3), all signs +1, every normalized row is 1; Wolfe's algorithm loads
// them (a pass), starts from one and its one major cycle (a second pass)
// finds no row below it: margin 1, one major cycle (WolfeIterations),
// and 2 passes over 3 rows x 1 column, the cost of one product with the
// 3 x 2 Phi (Work in full products).
func TestMarginCost(t *testing.T) {
	s, p := boundSolver(t, []float64{1, 0, 2, 5, 3, -1}, 3, 2, []float64{1, 0})
	var res RecoverResult
	require.Equal(t, 1.0, s.margin(p, []int{0}, 0, &res))
	require.Equal(t, 1, res.Margins)
	require.Equal(t, 1, res.WolfeIterations)
	require.Equal(t, 1.0, s.ws.work)
}

// TestRefitGradientSkipsOutliers pins the refit's gradient "on the
// measurements that are not outliers": TestRefitJoinsTwo's 6 signs with
// a fourth column, zero on them, and a seventh sign flagged as an
// outlier, violated by x = e_0 and large on the fourth column (-1, 0, 0,
// 100). Left out, it adds nothing to the gradient, the fourth column
// (g_3 = 0) is no candidate, and the refit ends as in TestRefitJoinsTwo:
// the second and third columns join and the 6 signs are separable.
func TestRefitGradientSkipsOutliers(t *testing.T) {
	s, p := boundSolver(t, []float64{
		1, 0, 5, 0, -1, 0, 5, 0,
		0, 5, 1, 0, 0, 5, -1, 0,
		5, 1, 0, 0, 5, -1, 0, 0,
		-1, 0, 0, 100,
	}, 7, 4, []float64{1, 0, 0, 0})
	s.cell.out[6] = true
	requireRefitJoinsTwo(t, s, p)
}

// TestPolishTellsOneMore pins the polish's K (RecoverOptions.Polish):
// "BIHT from zero on all of Phi told K = |S| (or |S|+1 if that finds no
// consistent support)", and no more when the signs are separable on the
// support (not partial), nor more than N. On random signs BIHT never
// reaches consistency: for a support of 3 of 20 columns the polish runs
// BIHT told 3 and 4, of 3 columns told 3 only, and its products are those
// of the runs made here directly (another run would add its own).
func TestPolishTellsOneMore(t *testing.T) {
	for _, c := range []struct {
		n  int
		ks []int
	}{{20, []int{3, 4}}, {3, []int{3}}} {
		p := randomProblem(t, 60, c.n, 2)
		var s Solver
		s.resize(p)
		s.op = &s.full
		s.cell.out = make([]bool, p.m)
		s.cell.maxIter = 50
		s.x[0], s.x[1], s.x[2] = 0.6, 0.64, 0.48
		res := RecoverResult{Centered: true, Margin: 0.01}
		require.NoError(t, s.polish(context.Background(), nil, p, false, s.cell.maxIter, &res))
		require.False(t, res.Polished)

		var ref Solver
		ref.resize(p)
		sm := p.signMatrix()
		ref.pol.biht.gather, ref.pol.biht.signs = !sm, sm
		for _, k := range c.ks {
			br, err := ref.pol.biht.run(context.Background(), &ref.full, p.y, ref.pol.x, k, polishMaxIter, polishPatience)
			require.NoError(t, err)
			require.Positive(t, br.Hamming, "N = %d, K = %d", c.n, k)
		}
		require.Positive(t, ref.full.products)
		require.Equal(t, ref.full.products, s.full.products, "N = %d", c.n)
	}
}

// TestPolishPartialTakesSeparable pins the polish after a partial center
// (the signs not separable on the support): it "keeps BIHT's support if
// all the signs are separable on it", whatever the margin of the center
// of the satisfied signs (res.Margin, here an impossible 10). Signs of a
// 2-sparse direction on 60 Gaussian rows, a wrong support {0, 1, 2}:
// BIHT told 3 finds a consistent support, whose center is taken.
func TestPolishPartialTakesSeparable(t *testing.T) {
	const m, n = 60, 20
	p := twoColumnSigns(t, m, n, 7, 5, 6, 0.5)
	var s Solver
	s.resize(p)
	s.op = &s.full
	s.cell.out = make([]bool, m)
	s.cell.maxIter = 200
	s.x[0], s.x[1], s.x[2] = 0.6, 0.64, 0.48
	res := RecoverResult{Centered: true, Margin: 10}
	require.NoError(t, s.polish(context.Background(), nil, p, true, s.cell.maxIter, &res))
	require.True(t, res.Polished)
	require.Positive(t, res.Margin)
	require.Less(t, res.Margin, 1.0)
	// No longer the center of the satisfied signs only: all the signs
	// are separable on the support taken.
	require.Positive(t, s.margin(p, s.support(), 0, &RecoverResult{}))
	require.Zero(t, mismatchesOf(p, s.x[:n]))
}

// consistentStepsOf runs Recover's steps after the neADMM stages
// (consistentSteps) with opt on the unit estimate x, outliers left out by
// the cap opt.Cap measured afresh, and a sign regression whose
// descriptions of the signs are fitDesc.
func consistentStepsOf(s *Solver, p *Problem, x []float64, opt RecoverOptions, fitDesc float64, res *RecoverResult) error {
	plan := stagePlan{opt: &opt, sch: opt.plain(), cap: lossCap{scale: opt.Cap, tau: math.Inf(1)}}
	return s.consistentSteps(context.Background(), p, x, &plan, regressFit{desc: fitDesc, code: fitDesc}, res)
}

// TestPolishTinyCount pins the polish's gate on tiny coordinates: "at
// least two of its coordinates are below 3% of the largest". Two equal
// rows a, all signs +1: the cell's center on a's support is a/||a||
// (margin 1, mu*M/|S| = 1 x 2/4, above 0.15, so only the tiny ones may
// start the polish). With a = (1, 0.02, 0.01, 0.5, 0, 0) two
// coordinates are tiny and the polish runs (its BIHT's products are the
// only ones of the search: no outlier cap, no refit); with 0.05 for 0.01
// one is, and it does not.
func TestPolishTinyCount(t *testing.T) {
	for _, c := range []struct {
		third float64
		runs  bool
	}{{0.01, true}, {0.05, false}} {
		a := []float64{1, 0.02, c.third, 0.5, 0, 0}
		s, p := boundSolver(t, append(slices.Clone(a), a...), 2, 6, a)
		x := slices.Clone(a)
		normalize(x)
		var res RecoverResult
		opt := RecoverOptions{Center: true, Polish: true, RefitMaxIter: 50}
		require.NoError(t, consistentStepsOf(s, p, x, opt, math.Inf(1), &res))
		require.True(t, res.Centered)
		require.InDelta(t, 1, res.Margin, 1e-12)
		require.Equal(t, c.runs, s.full.products > 0, "third coordinate %g: %+v", c.third, res)
	}
}

// wsSolver returns a Solver on a working set of the columns 0 and 1 of a
// 40 x 16 Gaussian Phi whose signs are those of column 5 plus column 7
// (separable on {5, 7}): the working set may grow to 16/4 = 4 columns.
func wsSolver(t *testing.T) (*Solver, *Problem) {
	const m, n = 40, 16
	p := twoColumnSigns(t, m, n, 3, 5, 7, 1)
	s := new(Solver)
	s.resize(p)
	s.cell.out = make([]bool, m)
	s.cell.maxIter = 200
	x := make([]float64, n)
	x[0], x[1] = 1, 1
	s.wsInit(p, x, 2)
	require.Equal(t, 2, s.ws.k)
	return s, p
}

// TestWorkingSetQuarter pins the working set's cap of a quarter of the
// columns as inclusive where the support search grows it: a working set
// of 2 of 16 columns takes 2 candidates (4 = 16/4 columns) and returns
// their slots, but not 3 (5 columns: only candidates already in the set
// are returned, none here); the polish takes BIHT's support {5, 7},
// separable with a margin above the current one, into a working set of
// 2 (4 columns).
func TestWorkingSetQuarter(t *testing.T) {
	g := make([]float64, 16)
	g[5], g[7], g[9] = 3, 2, 1
	s, p := wsSolver(t)
	require.Equal(t, []int{2, 3}, s.candidates(p, g, 2))
	require.Equal(t, 4, s.ws.k)
	s, p = wsSolver(t)
	require.Empty(t, s.candidates(p, g, 3))
	require.Equal(t, 2, s.ws.k)

	s, p = wsSolver(t)
	s.pol.x[5], s.pol.x[7] = 0.6, 0.8
	res := RecoverResult{Centered: true, Margin: 1e-9}
	require.True(t, s.polishTake(p, false, &res))
	require.True(t, res.Polished)
	require.Equal(t, 4, s.ws.k)
}
