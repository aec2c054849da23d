package mil

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnumStrings checks every named value of the option enums and the
// fallback for a value outside them (what a caller printing a corrupted
// or future Options sees), so that logs and Selection reports stay
// readable.
func TestEnumStrings(t *testing.T) {
	for _, c := range []struct {
		v    fmt.Stringer
		want string
	}{
		{MeanLoss, "mean"}, {SumLoss, "sum"}, {LossScale(7), "LossScale(7)"},
		{Uniform, "uniform"}, {Balanced, "balanced"}, {Weighting(-1), "Weighting(-1)"},
		{ScaleAuto, "auto"}, {ScaleNone, "none"}, {Scaling(9), "Scaling(9)"},
		{BetaAuto, "auto"}, {BetaGram, "gram"}, {BetaDirect, "direct"}, {BetaSolver(5), "BetaSolver(5)"},
		{Auto, "auto"}, {Dense, "dense"}, {Sparse, "sparse"}, {Storage(4), "Storage(4)"},
		{CriterionAUC, "auc"}, {CriterionDeviance, "deviance"}, {Criterion(3), "Criterion(3)"},
	} {
		assert.Equal(t, c.want, c.v.String(), "%T %d", c.v, c.v)
	}
}

// TestFitResultStop checks Converged and Stop on real fits: a fit that
// meets the residual test (ObjTol 0, so the objective test cannot end it)
// has converged at EpsAbs 1e-2 (at the default 1e-3 this set's dual
// residual stays above its tolerance, which is why Fit keeps the objective
// test); one capped at 3 iterations has not ("iteration cap"); one
// ended by the objective test has not either, and says so.
func TestFitResultStop(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 40, Features: 5, MinInstances: 1, MaxInstances: 4, Seed: 11})
	require.NoError(t, err)
	fit := func(o Options) FitResult {
		m, err := Fit(t.Context(), d, o)
		require.NoError(t, err)
		return m.Result()
	}
	o := DefaultOptions()
	o.ObjTol, o.EpsAbs, o.MaxIter = 0, 1e-2, 100000
	r := fit(o)
	require.True(t, r.Converged(), "stop %q after %d iterations", r.Stop(), r.Iterations)
	require.Equal(t, "converged", r.Stop())
	require.LessOrEqual(t, r.Primal, r.EpsPrimal)

	o.MaxIter = 3
	r = fit(o)
	require.False(t, r.Converged())
	require.Equal(t, "iteration cap", r.Stop())
	require.Equal(t, 3, r.Iterations)

	// The defaults: the primal residual falls within EpsAbs 1e-3, the dual
	// does not, and the objective test ends the fit.
	o = DefaultOptions()
	o.MaxIter = 100000
	r = fit(o)
	require.True(t, r.Stalled, "stop %q", r.Stop())
	require.False(t, r.Converged())
	require.Equal(t, "objective stalled", r.Stop())
}

// TestNilModelAccessors checks that a nil *Model answers its accessors
// with zero values instead of panicking (they are documented so).
func TestNilModelAccessors(t *testing.T) {
	var m *Model
	beta, beta0 := m.Coefficients()
	assert.Nil(t, beta)
	assert.Zero(t, beta0)
	assert.Equal(t, Options{}, m.Options())
	assert.Equal(t, FitResult{}, m.Result())
	assert.Zero(t, m.NumFeatures())
}

// TestStandardizedErrors checks that Standardized passes on the errors of
// its preprocessing instead of scoring: a cancelled context (FitScaler),
// and a test set the scaler cannot apply to (another feature count).
func TestStandardizedErrors(t *testing.T) {
	train, _, err := Synthetic(SynthConfig{Bags: 10, Features: 3, MinInstances: 1, MaxInstances: 2, Seed: 1})
	require.NoError(t, err)
	other, _, err := Synthetic(SynthConfig{Bags: 10, Features: 4, MinInstances: 1, MaxInstances: 2, Seed: 2})
	require.NoError(t, err)
	called := false
	score := Standardized(func(context.Context, *Dataset, *Dataset) ([]float64, error) {
		called = true
		return nil, nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = score(ctx, train, train)
	require.ErrorIs(t, err, context.Canceled)
	_, err = score(t.Context(), train, other)
	require.Error(t, err)
	require.True(t, errors.Is(err, ErrBadInput), "%v", err)
	require.False(t, called, "score ran on data that failed preprocessing")
	_, err = score(t.Context(), train, train)
	require.NoError(t, err)
	require.True(t, called)
}
