package onebit

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// TestRecoverClean checks the gate of the clean signs' schedule
// (RecoverOptions.CleanEpsRel, CleanLambdaStart, CleanLambdaGrowth,
// CleanReweightRel, CleanWarm): with clean signs the continuation runs
// 1000, 10000, 1e5 (3 stages and 4 reweighting rounds, against 8 and 4),
// with fewer outer iterations, and the estimate stays as near the truth;
// with 10% of the signs flipped the regression sees them and the plain
// schedule applies, so the options change nothing there, bit for bit.
func TestRecoverClean(t *testing.T) {
	var s Solver
	ctx := context.Background()
	plain := plainOpts()
	run := func(p *Problem, o RecoverOptions) ([]float64, RecoverResult) {
		x := make([]float64, 200)
		res, err := s.Recover(ctx, p, x, o)
		require.NoError(t, err)
		return x, res
	}
	def := DefaultRecoverOptions()
	seeds := testSeeds(4, 2)
	for seed := uint64(0); seed < seeds; seed++ {
		in, p := problemFor(t, GenOptions{M: 400, N: 200, K: 5, Seed: seed})
		x0, r0 := run(p, plain)
		x1, r1 := run(p, def)
		assert.Equal(t, 8+def.Reweight, r0.Stages, "seed %d: 100, 300, ..., 1e5", seed)
		assert.Equal(t, 3+def.Reweight, r1.Stages, "seed %d: clean signs, 1000, 10000, 1e5", seed)
		assert.Less(t, r1.Iterations, r0.Iterations, "seed %d", seed)
		assert.Less(t, r1.InnerIterations, r0.InnerIterations, "seed %d", seed)
		// Both are centers of consistency cells; 0.03 is TestRecover's
		// bound.
		assert.Less(t, AngularError(in.X, x1), 0.03, "seed %d", seed)
		assert.Less(t, AngularError(x0, x1), 0.03, "seed %d", seed)

		_, p = problemFor(t, GenOptions{M: 400, N: 200, K: 5, Flip: 0.1, Seed: seed})
		x0, r0 = run(p, plain)
		x1, r1 = run(p, def)
		assert.Equal(t, r0.Stages, r1.Stages, "seed %d: flipped signs, the plain schedule must apply", seed)
		assert.Equal(t, r0.Iterations, r1.Iterations, "seed %d", seed)
		assert.Equal(t, x0, x1, "seed %d", seed)
	}
}

// TestRecoverLambdaMax: the last stage runs at LambdaMax itself when the
// growth steps past it (100 x 3^k skips 5e4: 24300, then 5e4, not 72900),
// and Result.Lambda reports it.
func TestRecoverLambdaMax(t *testing.T) {
	var s Solver
	_, p := problemFor(t, GenOptions{M: 400, N: 200, K: 5, Seed: 1})
	x := make([]float64, 200)
	o := plainOpts()
	o.LambdaMax = 5e4
	res, err := s.Recover(context.Background(), p, x, o)
	require.NoError(t, err)
	assert.Equal(t, 5e4, res.Lambda, "%+v", res)
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
