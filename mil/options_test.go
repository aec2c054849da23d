package mil

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/neadmm/neadmm/neadmm"
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

// TestPaperOptions runs the paper's settings: a fixed rho for exactly 100
// iterations, the summed loss.
func TestPaperOptions(t *testing.T) {
	_, train, test, _ := synthSplit(t, SynthConfig{Bags: 150, Features: 10, MinInstances: 2, MaxInstances: 6, Seed: 4}, 100)
	opt := PaperOptions()
	m, err := Fit(context.Background(), train, opt)
	require.NoError(t, err)
	r := m.Result()
	if r.Iterations != 100 || r.Reason != neadmm.StopMaxIter || r.Rho != opt.Rho {
		t.Errorf("paper options: %d iterations, %v, rho %g", r.Iterations, r.Reason, r.Rho)
	}
	beta, beta0 := m.Coefficients()
	if want := objectiveOf(train, opt, beta, beta0); math.Abs(r.Objective-want) > 1e-9*want {
		t.Errorf("SumLoss objective %g, independent %g", r.Objective, want)
	}
	scores, _ := m.BagScores(test)
	if met, _ := Evaluate(scores, test.Labels(), 0); met.AUC < 0.9 {
		t.Errorf("paper options: test AUC %.3f", met.AUC)
	}
}
