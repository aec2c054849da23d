package onebit

import (
	"testing"

	"github.com/stretchr/testify/require"
)

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
