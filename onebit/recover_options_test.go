package onebit

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

func TestRecoverOptions(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 60, N: 40, K: 3, Seed: 1})
	var s Solver
	ctx := context.Background()
	x := make([]float64, 40)
	for name, mod := range map[string]func(*RecoverOptions){
		"LambdaStart 0":                func(o *RecoverOptions) { o.LambdaStart = 0 },
		"LambdaStart > Max":            func(o *RecoverOptions) { o.LambdaStart = 2e6 },
		"LambdaMax Inf":                func(o *RecoverOptions) { o.LambdaMax = math.Inf(1) },
		"LambdaGrowth 1":               func(o *RecoverOptions) { o.LambdaGrowth = 1 },
		"RhoScale 0":                   func(o *RecoverOptions) { o.RhoScale = 0 },
		"RhoPower NaN":                 func(o *RecoverOptions) { o.RhoPower = math.NaN() },
		"StageIter 0":                  func(o *RecoverOptions) { o.StageIter = 0 },
		"Reweight < 0":                 func(o *RecoverOptions) { o.Reweight = -1 },
		"ReweightEps 0":                func(o *RecoverOptions) { o.ReweightEps = 0 },
		"RefitMaxIter 0":               func(o *RecoverOptions) { o.RefitMaxIter = 0 },
		"InnerMaxIter 0":               func(o *RecoverOptions) { o.InnerMaxIter = 0 },
		"InnerTol NaN":                 func(o *RecoverOptions) { o.InnerTol = math.NaN() },
		"InnerRel < 0":                 func(o *RecoverOptions) { o.InnerRel = -1 },
		"InnerRel Inf":                 func(o *RecoverOptions) { o.InnerRel = math.Inf(1) },
		"EpsAbs < 0":                   func(o *RecoverOptions) { o.EpsAbs = -1 },
		"Cap NaN":                      func(o *RecoverOptions) { o.Cap = math.NaN() },
		"Cap < 0":                      func(o *RecoverOptions) { o.Cap = -1 },
		"SupportGrowth 1":              func(o *RecoverOptions) { o.SupportGrowth = 1 },
		"SupportGrowth Inf":            func(o *RecoverOptions) { o.SupportGrowth = math.Inf(1) },
		"CleanEpsRel < 0":              func(o *RecoverOptions) { o.CleanEpsRel = -0.1 },
		"CleanEpsRel NaN":              func(o *RecoverOptions) { o.CleanEpsRel = math.NaN() },
		"CleanEpsRel Inf":              func(o *RecoverOptions) { o.CleanEpsRel = math.Inf(1) },
		"CleanLambdaStart < 0":         func(o *RecoverOptions) { o.CleanLambdaStart = -1 },
		"CleanLambdaStart > LambdaMax": func(o *RecoverOptions) { o.CleanLambdaStart = 2 * o.LambdaMax },
		"CleanLambdaStart NaN":         func(o *RecoverOptions) { o.CleanLambdaStart = math.NaN() },
		"CleanLambdaGrowth 1":          func(o *RecoverOptions) { o.CleanLambdaGrowth = 1 },
		"CleanLambdaGrowth Inf":        func(o *RecoverOptions) { o.CleanLambdaGrowth = math.Inf(1) },
		"CleanReweightRel < 0":         func(o *RecoverOptions) { o.CleanReweightRel = -1 },
		"CleanReweightRel NaN":         func(o *RecoverOptions) { o.CleanReweightRel = math.NaN() },
		"CleanMaxOutliers < 0":         func(o *RecoverOptions) { o.CleanMaxOutliers = -0.1 },
		"CleanMaxOutliers > 1":         func(o *RecoverOptions) { o.CleanMaxOutliers = 1.5 },
		"CleanMaxOutliers NaN":         func(o *RecoverOptions) { o.CleanMaxOutliers = math.NaN() },
		// The clean signs' schedule is checked stage by stage too.
		"CleanLambdaGrowth 1+ulp": func(o *RecoverOptions) { o.CleanLambdaGrowth = math.Nextafter(1, 2) },
		"CleanLambdaStart 1e-300": func(o *RecoverOptions) { o.RhoPower, o.CleanLambdaStart = -2, 1e-300 },
		// issue 14: an overflow within a stage and a runaway number of
		// stages are rejected before any work, naming the stage.
		"RhoPower 70":        func(o *RecoverOptions) { o.RhoPower = 70 },
		"RhoPower 60 to 1e6": func(o *RecoverOptions) { o.RhoPower, o.LambdaMax = 60, 1e6 },
		"LambdaGrowth 1+ulp": func(o *RecoverOptions) { o.LambdaGrowth = math.Nextafter(1, 2) },
		// A stage's rho whose reciprocal overflows (see Options.Rho): it
		// passed, and the first x-update made NaN (ErrNotFinite after work).
		"RhoScale 1e-320":             func(o *RecoverOptions) { o.RhoScale = 1e-320 },
		"RhoScale 1e-310, RhoPower 0": func(o *RecoverOptions) { o.RhoScale, o.RhoPower = 1e-310, 0 },
	} {
		o := DefaultRecoverOptions()
		mod(&o)
		res, err := s.Recover(ctx, p, x, o)
		assert.ErrorIs(t, err, ErrBadInput, name)
		assert.Zero(t, res.Iterations, "%s: want no work", name)
		assert.Zero(t, res.Products, "%s: want no work", name)
	}
	o := DefaultRecoverOptions()
	o.RhoPower, o.LambdaMax = 60, 1e6
	_, err := s.Recover(ctx, p, x, o)
	assert.ErrorContains(t, err, "stage 8 (lambda 218700)")
	o = DefaultRecoverOptions()
	o.LambdaGrowth = math.Nextafter(1, 2)
	_, err = s.Recover(ctx, p, x, o)
	assert.ErrorContains(t, err, "MaxStages")

	_, err = s.Recover(ctx, p, x[:5], DefaultRecoverOptions())
	assert.ErrorIs(t, err, ErrBadInput)
	_, err = s.Recover(ctx, nil, x, DefaultRecoverOptions())
	assert.ErrorIs(t, err, ErrBadInput)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	res, err := s.Recover(cctx, p, x, DefaultRecoverOptions())
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, res.Stages, "the sign regression, first, sees the cancellation")
	assert.InDelta(t, 1, vec.Nrm2(x), 1e-14, "a cancelled Recover leaves a unit estimate")
	o = DefaultRecoverOptions()
	o.Regress = false
	res, err = s.Recover(cctx, p, x, o)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, res.Stages)
	assert.InDelta(t, 1, vec.Nrm2(x), 1e-14, "a cancelled Recover leaves a unit estimate")
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
	require.ErrorIs(t, o.check(1, phiSize{}), ErrBadInput, "LambdaGrowth 1")
	o = DefaultRecoverOptions()
	o.CleanLambdaStart, o.CleanLambdaGrowth = o.LambdaMax, 1
	require.ErrorIs(t, o.check(1, phiSize{}), ErrBadInput, "CleanLambdaGrowth 1")
	o = DefaultRecoverOptions()
	o.Reweight, o.ReweightEps = 0, 0
	require.NoError(t, o.check(1, phiSize{}), "ReweightEps 0 without reweighting")

	o = plainOpts()
	o.LambdaStart, o.LambdaGrowth, o.LambdaMax = 0x1p-999, 2, 1
	require.NoError(t, o.check(1, phiSize{}), "MaxStages stages")
	o.LambdaStart = 0x1p-1000
	require.ErrorIs(t, o.check(1, phiSize{}), ErrBadInput, "MaxStages+1 stages")
	require.ErrorContains(t, o.check(1, phiSize{}), "MaxStages")
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

// TestRecoverStagesSwitchOff pins RecoverOptions' "every stage but the
// continuation can be switched off": with its switch off a stage leaves
// no trace in RecoverResult, on instances where, with the defaults, it
// acts (checked). The instances: Generate 200 x 200, K = 8, seeds 11 (the
// polish, pruning, swaps and the centroid act) and 1 (the refit), and
// 400 x 200, K = 5, 10% of the signs flipped, seed 0 (the regression,
// the pursuit and the outliers). Reweight = 0 drops the 4 rounds from
// the stages of a continuation that was not stopped; Prune is checked
// with Center off, whose trim counts in Pruned too; the polish and the
// centroid work on the center, and the pursuit on the regression's fit.
func TestRecoverStagesSwitchOff(t *testing.T) {
	var s Solver
	acted := map[string]bool{}
	for _, g := range []GenOptions{
		{M: 200, N: 200, K: 8, Seed: 11},
		{M: 200, N: 200, K: 8, Seed: 1},
		{M: 400, N: 200, K: 5, Flip: 0.1, Seed: 0},
	} {
		_, p := problemFor(t, g)
		x := make([]float64, p.n)
		run := func(off func(*RecoverOptions)) RecoverResult {
			o := DefaultRecoverOptions()
			off(&o)
			r, err := s.Recover(t.Context(), p, x, o)
			require.NoError(t, err)
			return r
		}
		def := run(func(*RecoverOptions) {})
		acted["regress"] = acted["regress"] || def.Regressed
		acted["pursuit"] = acted["pursuit"] || def.Pursued
		acted["cap"] = acted["cap"] || def.Outliers > 0
		acted["refit"] = acted["refit"] || def.Expanded > 0
		acted["swap"] = acted["swap"] || def.Swapped > 0
		acted["center"] = acted["center"] || def.Centered
		acted["polish"] = acted["polish"] || def.Polished
		acted["centroid"] = acted["centroid"] || def.Centroid
		acted["reweight"] = acted["reweight"] || !def.Stopped

		for i, c := range []struct {
			off   func(*RecoverOptions)
			trace func(RecoverResult) bool // a trace of the stage switched off
		}{
			{func(o *RecoverOptions) { o.Regress = false }, func(r RecoverResult) bool { return r.Regressed || r.Pursued }},
			{func(o *RecoverOptions) { o.Pursuit = false }, func(r RecoverResult) bool { return r.Pursued }},
			{func(o *RecoverOptions) { o.Cap = 0 }, func(r RecoverResult) bool { return r.Outliers > 0 }},
			{func(o *RecoverOptions) { o.Refit = false }, func(r RecoverResult) bool { return r.Expanded > 0 }},
			{func(o *RecoverOptions) { o.Prune, o.Center = false, false }, func(r RecoverResult) bool { return r.Pruned > 0 }},
			{func(o *RecoverOptions) { o.Swap = false }, func(r RecoverResult) bool { return r.Swapped > 0 }},
			{func(o *RecoverOptions) { o.Center = false }, func(r RecoverResult) bool { return r.Centered || r.Polished || r.Centroid }},
			{func(o *RecoverOptions) { o.Polish = false }, func(r RecoverResult) bool { return r.Polished }},
			{func(o *RecoverOptions) { o.Centroid = false }, func(r RecoverResult) bool { return r.Centroid || r.CentroidSweeps > 0 }},
			{func(o *RecoverOptions) { o.Reweight = 0 }, func(r RecoverResult) bool { return !def.Stopped && r.Stages != def.Stages-4 }},
		} {
			r := run(c.off)
			require.False(t, c.trace(r), "%+v: switch %d off: %+v", g, i, r)
		}
	}
	for _, stage := range []string{"regress", "pursuit", "cap", "refit", "swap", "center", "polish", "centroid", "reweight"} {
		require.True(t, acted[stage], "%s never acted with the defaults: pick other instances", stage)
	}
}

// TestRecoverRefitMaxIterCaps pins RecoverOptions.RefitMaxIter: it caps
// the major cycles of each margin computation of the search, the center
// and the polish, so they sum to at most RefitMaxIter per margin
// (WolfeIterations against Margins), with the search on and with the
// center alone; with the default cap they take more than 1 on this
// instance (checked), so a cap of 1 binds.
func TestRecoverRefitMaxIterCaps(t *testing.T) {
	var s Solver
	_, p := problemFor(t, GenOptions{M: 200, N: 200, K: 8, Seed: 1})
	x := make([]float64, p.n)
	for _, centerOnly := range []bool{false, true} {
		o := DefaultRecoverOptions()
		if centerOnly {
			o.Refit, o.Prune, o.Swap = false, false, false
		}
		r, err := s.Recover(t.Context(), p, x, o)
		require.NoError(t, err)
		require.Greater(t, r.WolfeIterations, r.Margins, "center only %v: the default cap does not bind", centerOnly)
		o.RefitMaxIter = 1
		r, err = s.Recover(t.Context(), p, x, o)
		require.NoError(t, err)
		require.Positive(t, r.Margins)
		require.LessOrEqual(t, r.WolfeIterations, r.Margins, "center only %v", centerOnly)
	}
}

// plainOpts is DefaultRecoverOptions with every Clean option off (the
// plain schedule whatever the signs look like).
func plainOpts() RecoverOptions {
	o := DefaultRecoverOptions()
	o.CleanEpsRel, o.CleanLambdaStart, o.CleanLambdaGrowth, o.CleanReweightRel, o.CleanWarm = 0, 0, 0, 0, false
	o.CleanMaxOutliers = 0
	return o
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
