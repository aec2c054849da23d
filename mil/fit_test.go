package mil

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// synthSplit returns a synthetic data set's first nTrain bags and the rest.
func synthSplit(t testing.TB, cfg SynthConfig, nTrain int) (all, train, test *Dataset, truth *SynthTruth) {
	t.Helper()
	d, truth, err := Synthetic(cfg)
	require.NoError(t, err)
	train, test = splitAt(t, d, nTrain)
	return d, train, test, truth
}

// splitAt returns d's first nTrain bags and the rest.
func splitAt(t testing.TB, d *Dataset, nTrain int) (train, test *Dataset) {
	t.Helper()
	idx := make([]int, d.NumBags())
	for i := range idx {
		idx[i] = i
	}
	train, err := d.Subset(idx[:nTrain])
	require.NoError(t, err)
	test, err = d.Subset(idx[nTrain:])
	require.NoError(t, err)
	return train, test
}

// rowScore returns x_i . beta + beta0 by a plain loop over d.Row (row is
// scratch of NumFeatures), independent of the products under test.
func rowScore(d *Dataset, row []float64, i int, beta []float64, beta0 float64) float64 {
	d.Row(row, i)
	s := beta0
	for j, x := range row {
		s += x * beta[j]
	}
	return s
}

// objectiveOf evaluates the mean-scale objective of the raw coefficients
// (beta, beta0) on d independently of the solver: bag scores by explicit
// loops over Row, weights as documented for opt.Weighting, the penalty on
// the coefficients of the standardized features (|beta_j|*Scale_j).
func objectiveOf(d *Dataset, opt Options, beta []float64, beta0 float64) float64 {
	sc, err := FitScaler(context.Background(), d)
	if err != nil {
		panic(err)
	}
	nb := float64(d.NumBags())
	pos := float64(d.Positives())
	row := make([]float64, d.NumFeatures())
	loss := 0.0
	for k := range d.NumBags() {
		a, b := d.BagRange(k)
		q := math.Inf(-1)
		for i := a; i < b; i++ {
			q = max(q, rowScore(d, row, i, beta, beta0))
		}
		y := d.Labels()[k]
		w := 1.0
		if opt.Weighting == Balanced {
			w = nb / (2 * pos)
			if y == 0 {
				w = nb / (2 * (nb - pos))
			}
		}
		z := (2*y - 1) * q
		loss += w * math.Log1p(math.Exp(-z))
	}
	pen := 0.0
	for j, b := range beta {
		pen += math.Abs(b) * sc.Scale[j]
	}
	if opt.Loss == SumLoss {
		return loss + opt.Lambda*pen
	}
	return loss/nb + opt.Lambda*pen
}

// TestFitSyntheticWitnesses fits bags with a planted max rule and checks
// that the model separates the test bags and that the top-scoring instance
// of each positive test bag is a planted witness.
func TestFitSyntheticWitnesses(t *testing.T) {
	for _, density := range []float64{1, 0.05} {
		cfg := SynthConfig{Bags: 300, Features: 30, MinInstances: 2, MaxInstances: 12, Density: density, Seed: 1}
		all, train, test, truth := synthSplit(t, cfg, 200)
		m, err := Fit(context.Background(), train, DefaultOptions())
		require.NoError(t, err)
		res := m.Result()
		if res.Sparse != all.IsSparse() || res.Beta != BetaGram {
			t.Errorf("density %v: sparse %v (data %v), beta path %v", density, res.Sparse, all.IsSparse(), res.Beta)
		}
		scores, err := m.BagScores(test)
		require.NoError(t, err)
		met, err := Evaluate(scores, test.Labels(), 0)
		require.NoError(t, err)
		// The classes are separated by a margin: anything short of a
		// near-perfect ranking means the solver did not find the rule.
		if met.AUC < 0.98 || met.Accuracy < 0.9 {
			t.Errorf("density %v: test AUC %.4f, accuracy %.4f", density, met.AUC, met.Accuracy)
		}
		wit, err := m.Witnesses(test)
		require.NoError(t, err)
		off := all.BagPtr()[200] // test instance i is instance off+i of all
		hit, pos := 0, 0
		for k, y := range test.Labels() {
			if y == 1 {
				pos++
				if truth.Witness[off+wit[k]] {
					hit++
				}
			}
		}
		if hit < pos*95/100 {
			t.Errorf("density %v: the top instance is a witness in %d of %d positive bags", density, hit, pos)
		}
		// The planted rule's relevant features carry the weight.
		beta, _ := m.Coefficients()
		var in, out float64
		for j, b := range beta {
			if truth.Beta[j] != 0 {
				in += math.Abs(b)
				if b*truth.Beta[j] < 0 {
					t.Errorf("density %v: coefficient %d has the wrong sign: %g vs %g", density, j, b, truth.Beta[j])
				}
			} else {
				out += math.Abs(b)
			}
		}
		if out > 0.25*in {
			t.Errorf("density %v: |beta| on irrelevant features %.3g vs relevant %.3g", density, out, in)
		}
	}
}

// TestFitConvergence checks the solve itself on synthetic data: the
// constraints hold at the end (the primal residual is below its
// tolerance), the reported objective is the objective of the returned
// model evaluated independently, it is far below that of the best
// intercept-only model, and the Gram and direct beta-updates (different
// arithmetic, same mathematics) reach the same objective.
func TestFitConvergence(t *testing.T) {
	cfg := SynthConfig{Bags: 120, Features: 12, MinInstances: 1, MaxInstances: 8, Margin: 0.5, Seed: 7}
	d, _, err := Synthetic(cfg)
	require.NoError(t, err)
	var objs []float64
	for _, path := range []BetaSolver{BetaGram, BetaDirect} {
		opt := DefaultOptions()
		opt.Beta = path
		m, err := Fit(context.Background(), d, opt)
		require.NoError(t, err)
		r := m.Result()
		if r.Beta != path {
			t.Errorf("%v: ran %v", path, r.Beta)
		}
		if !r.Stalled && r.Reason != neadmm.StopConverged {
			t.Errorf("%v: stopped by %v after %d iterations", path, r.Reason, r.Iterations)
		}
		if !(r.Primal <= r.EpsPrimal) {
			t.Errorf("%v: primal residual %g above its tolerance %g", path, r.Primal, r.EpsPrimal)
		}
		beta, beta0 := m.Coefficients()
		want := objectiveOf(d, opt, beta, beta0)
		if math.Abs(r.Objective-want) > 1e-9*want {
			t.Errorf("%v: reported objective %.12g, independent evaluation %.12g", path, r.Objective, want)
		}
		// Intercept-only: the weighted loss is minimized at beta0 = 0 for
		// balanced weights, where every bag loses log 2.
		if r.Objective > 0.5*math.Ln2 {
			t.Errorf("%v: objective %g, intercept-only model %g", path, r.Objective, math.Ln2)
		}
		if r.NonZero == 0 || r.InnerIterations < r.Iterations {
			t.Errorf("%v: %d non-zeros, %d inner iterations for %d outer", path, r.NonZero, r.InnerIterations, r.Iterations)
		}
		objs = append(objs, r.Objective)
	}
	// The paths differ by rounding only, which the nonconvex iteration may
	// amplify a little; a broken path would differ by far more.
	if math.Abs(objs[0]-objs[1]) > 1e-3*objs[0] {
		t.Errorf("objectives differ: Gram %.8g, direct %.8g", objs[0], objs[1])
	}
}

// TestFitRawCoefficients checks that the raw-scale model scores raw data
// as the scaled solution scores scaled data, and that ScaleNone fits raw
// features directly.
func TestFitRawCoefficients(t *testing.T) {
	cfg := SynthConfig{Bags: 80, Features: 6, MinInstances: 1, MaxInstances: 5, Seed: 3}
	d, _, err := Synthetic(cfg)
	require.NoError(t, err)
	// Make the columns badly scaled: a model that ignored the scaler's
	// mean or scale would score differently.
	x := make([]float64, d.NumInstances()*d.NumFeatures())
	row := make([]float64, d.NumFeatures())
	for i := range d.NumInstances() {
		d.Row(row, i)
		for j, v := range row {
			x[i*len(row)+j] = v*math.Pow(10, float64(j-3)) + float64(5*j)
		}
	}
	raw, err := NewDense(x, d.NumFeatures(), append([]int(nil), d.BagPtr()...), append([]float64(nil), d.Labels()...))
	require.NoError(t, err)
	opt := DefaultOptions()
	m1, err := Fit(context.Background(), raw, opt)
	require.NoError(t, err)
	m2, err := Fit(context.Background(), d, opt)
	require.NoError(t, err)
	// d and raw differ by an affine map per column, which standardization
	// removes: both fits solve the same problem (up to rounding in the
	// scaling), so they score their own data alike.
	s1, _ := m1.BagScores(raw)
	s2, _ := m2.BagScores(d)
	for k := range s1 {
		if math.Abs(s1[k]-s2[k]) > 1e-6*(1+math.Abs(s2[k])) {
			t.Fatalf("bag %d: score on raw data %.10g, on standardized-equivalent data %.10g", k, s1[k], s2[k])
		}
	}
	opt.Scaling = ScaleNone
	m3, err := Fit(context.Background(), raw, opt)
	require.NoError(t, err)
	if m3.Result().Objective == m1.Result().Objective {
		t.Error("ScaleNone gave the same objective as standardized features")
	}
}

// TestFitRealData is the floor CI holds the learner to: the mean test AUC
// of the default options over 5-fold cross-validation (KFold(5, 1, 1)), so
// that every bag is tested once and no single lucky or unlucky test set
// decides. Measured on amd64 (seed 1 also under qemu arm64; seeds 1-20
// by a throwaway loop over KFold(5, 1, seed)):
//
//	               seed 1   arm64   seeds 1-20 (mean, sd, min)   floor
//	vaccine.svm    0.872    0.873   0.870, 0.003, 0.865          0.85
//	fox.csv        0.608    0.608   0.601, 0.022, 0.569          0.55
//
// What broken solvers score on the same folds: beta = 0 (or a constant
// score, or Lambda large enough to zero beta) 0.5 exactly; a sign error
// 0.128 and 0.393; bag size alone 0.755 and 0.487; random scores 0.50 with
// sd 0.015 and 0.041 (fox's 40-bag folds leave a random scorer an 11%
// chance above 0.55, which the objective check below rules out). The
// floors sit 6.6 and 2.4 seed-to-seed standard deviations below the
// measured means, far beyond the few thousandths that rounding (FMA on
// arm64) moves the result. Unconverged iterates can rank as well (fox
// after 3 iterations: 0.611), so each fit must also pass the residual and
// objective checks; vaccine's floor still fails at 10 iterations (0.818).
func TestFitRealData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		minAUC float64
		sparse bool
	}{
		{"vaccine.svm", 0.85, true},
		{"fox.csv", 0.55, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sparse && testing.Short() {
				t.Skip("vaccine fits skipped in -short mode")
			}
			d, err := LoadFile(datadir.File(t, tc.name), nil)
			require.NoError(t, err)
			p := KFold(5, 1, 1)
			p.Workers = 2 // the folds are independent; halves the wall time under qemu
			fit := func(ctx context.Context, train, test *Dataset) ([]float64, error) {
				m, err := Fit(ctx, train, DefaultOptions())
				if err != nil {
					return nil, err
				}
				r := m.Result()
				if r.Sparse != tc.sparse || r.Beta != BetaGram {
					t.Errorf("sparse %v, beta path %v", r.Sparse, r.Beta)
				}
				if !r.Stalled && r.Reason != neadmm.StopConverged {
					t.Errorf("stopped by %v after %d iterations", r.Reason, r.Iterations)
				}
				if !(r.Primal <= r.EpsPrimal) {
					t.Errorf("primal residual %g above tolerance %g", r.Primal, r.EpsPrimal)
				}
				// Balanced weights: the best constant model loses log 2 per bag.
				if !(r.Objective < 0.8*math.Ln2) {
					t.Errorf("objective %g, intercept-only %g", r.Objective, math.Ln2)
				}
				t.Logf("%d training bags: %d iterations (%s), r %.3g, objective %.5f, %d non-zeros, %v",
					train.NumBags(), r.Iterations, r.Stop(), r.Primal, r.Objective, r.NonZero, r.Time.Total)
				return m.BagScores(test)
			}
			rep, err := p.Run(context.Background(), d, fit)
			require.NoError(t, err)
			aucs := make([]float64, len(rep.Folds))
			for i, f := range rep.Folds {
				aucs[i] = f.Metrics.AUC
			}
			t.Logf("%s: fold AUCs %.4f; mean AUC %.4f, ACC %.4f, AUPR(trapz) %.4f",
				p.Name, aucs, rep.Mean.AUC, rep.Mean.Accuracy, rep.Mean.AUPRTrapz)
			if rep.Mean.AUC < tc.minAUC {
				t.Errorf("mean test AUC %.4f below the floor %.2f", rep.Mean.AUC, tc.minAUC)
			}
		})
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

// TestObjectiveStop checks the ObjTol test on scripted iterations with
// exact dyadic objectives: it needs ObjWindow earlier iterations (a zero
// objective from the start is no stall before iteration ObjWindow+1), a
// primal residual within its tolerance, and a change over the window of at
// most ObjTol*max(1, |objective|) in the Loss scale (so 0.75 ObjTol at an
// objective of 1/2 stalls, and 2^-40 ObjTol more than the bound does not).
func TestObjectiveStop(t *testing.T) {
	const tol = 0x1p-10
	run := func(scale float64, objs func(k int) float64, primal float64) int {
		stop := objectiveStop(tol, scale)
		for k := 1; k <= 3*ObjWindow; k++ {
			if stop(neadmm.Iteration{K: k, Objective: objs(k), Primal: primal, EpsPrimal: 1}) {
				return k
			}
		}
		return 0
	}
	assert.Nil(t, objectiveStop(0, 1))
	assert.Equal(t, ObjWindow+1, run(1, func(int) float64 { return 0 }, 1))
	assert.Equal(t, 0, run(1, func(int) float64 { return 0 }, 1+0x1p-40), "primal residual above its tolerance")
	// Objective 1/2 + 0.75 tol at iteration 1, 1/2 after: stalls at
	// ObjWindow+1 (the change 0.75 tol is within tol*max(1, 1/2)). In the
	// sum scale the objective is 4 times that (scale 1/4).
	first := func(d float64) func(k int) float64 {
		return func(k int) float64 {
			if k == 1 {
				return 4 * (0.5 + d)
			}
			return 4 * 0.5
		}
	}
	assert.Equal(t, ObjWindow+1, run(0.25, first(0.75*tol), 1))
	assert.Equal(t, ObjWindow+1, run(0.25, first(tol), 1), "a change of exactly the bound")
	assert.Equal(t, ObjWindow+2, run(0.25, first(tol*(1+0x1p-40)), 1), "a change beyond the bound")
	// At objective 4 the bound is 4 tol: 3 tol stalls, 5 tol does not.
	big := func(d float64) func(k int) float64 {
		return func(k int) float64 {
			if k == 1 {
				return 4 + d
			}
			return 4
		}
	}
	assert.Equal(t, ObjWindow+1, run(1, big(3*tol), 1))
	assert.Equal(t, ObjWindow+2, run(1, big(5*tol), 1))
}

// TestFitIterationsDoNotAllocate checks that the outer iterations allocate
// nothing: a fit's allocations (setup, buffers, the model) do not depend on
// the number of iterations.
func TestFitIterationsDoNotAllocate(t *testing.T) {
	for _, c := range []struct {
		density float64
		pool    Pooling
	}{{1, MaxPooling()}, {0.05, MaxPooling()}, {1, MeanPooling()}, {0.05, MeanPooling()}} {
		density := c.density
		d, _, err := Synthetic(SynthConfig{Bags: 40, Features: 30, MinInstances: 1, MaxInstances: 6, Density: density, Seed: 12})
		require.NoError(t, err)
		allocs := func(iters int) float64 {
			opt := DefaultOptions()
			opt.Pooling = c.pool
			opt.MaxIter, opt.ObjTol, opt.EpsAbs = iters, 0, 0
			return testing.AllocsPerRun(3, func() {
				if _, err := Fit(context.Background(), d, opt); err != nil {
					t.Fatal(err)
				}
			})
		}
		if a5, a50 := allocs(5), allocs(50); a5 != a50 {
			t.Errorf("density %v, %v pooling: %v allocations for 5 iterations, %v for 50", density, c.pool, a5, a50)
		}
	}
}

func TestFitErrors(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 10, Features: 3, MinInstances: 1, MaxInstances: 3, Seed: 1})
	require.NoError(t, err)
	ctx := context.Background()
	_, err = Fit(ctx, nil, DefaultOptions())
	require.ErrorIs(t, err, ErrBadInput, "nil dataset")
	for _, y := range []float64{0, 1} {
		one, err := NewDense([]float64{1, 2, 3}, 1, []int{0, 1, 3}, []float64{y, y})
		require.NoError(t, err)
		m, err := Fit(ctx, one, DefaultOptions())
		assert.Nil(t, m)
		assert.EqualError(t, err, fmt.Sprintf("mil: Fit: all 2 training bags have label %v; a fit needs bags of both classes", y))
		assert.ErrorIs(t, err, ErrOneClass)
		assert.ErrorIs(t, err, ErrBadInput)
	}
	bad := []struct {
		name string
		mod  func(*Options)
	}{
		{"zero options", func(o *Options) { *o = Options{} }},
		{"negative lambda", func(o *Options) { o.Lambda = -1 }},
		{"NaN lambda", func(o *Options) { o.Lambda = math.NaN() }},
		{"zero rho", func(o *Options) { o.Rho = 0 }},
		{"Inf rho", func(o *Options) { o.Rho = math.Inf(1) }},
		{"subnormal rho", func(o *Options) { o.Rho = 1e-320 }}, // 1/rho overflows: Fit failed with FISTA's NaN, not ErrBadInput
		{"zero MaxIter", func(o *Options) { o.MaxIter = 0 }},
		{"negative EpsAbs", func(o *Options) { o.EpsAbs = -1 }},
		{"NaN ObjTol", func(o *Options) { o.ObjTol = math.NaN() }},
		{"negative InnerMaxIter", func(o *Options) { o.InnerMaxIter = -1 }},
		{"negative InnerTol", func(o *Options) { o.InnerTol = -1 }},
		{"RhoGrowth below 1", func(o *Options) { o.RhoGrowth = 0.5 }},
		{"RhoMax below Rho", func(o *Options) { o.RhoMax = o.Rho / 2 }},
		{"unknown policy", func(o *Options) { o.RhoPolicy = 99 }},
		{"unknown loss", func(o *Options) { o.Loss = 9 }},
		{"unknown weighting", func(o *Options) { o.Weighting = -1 }},
		{"unknown scaling", func(o *Options) { o.Scaling = 5 }},
		{"unknown beta path", func(o *Options) { o.Beta = 7 }},
		{"unknown pooling", func(o *Options) { o.Pooling.Kind = 9 }},
		{"top-0 pooling", func(o *Options) { o.Pooling = TopKPooling(0) }},
		{"top-0% pooling", func(o *Options) { o.Pooling = TopFracPooling(0) }},
		{"top-150% pooling", func(o *Options) { o.Pooling = TopFracPooling(1.5) }},
		{"negative MaxBytes", func(o *Options) { o.MaxBytes = -1 }},
	}
	for _, b := range bad {
		opt := DefaultOptions()
		b.mod(&opt)
		m, err := Fit(ctx, d, opt)
		assert.Nil(t, m, b.name)
		assert.ErrorIs(t, err, ErrBadInput, b.name)
		assert.ErrorIs(t, opt.Validate(), ErrBadInput, b.name)
	}
}

// TestFitAndModelOnZeroDataset: Fit, FitCV, Protocol.Run and every
// scoring method of Model return an error wrapping ErrBadInput for the
// zero Dataset, without panicking (TestZeroDataset covers the data
// layer).
func TestFitAndModelOnZeroDataset(t *testing.T) {
	ctx := context.Background()
	zero := &Dataset{}
	d, _, err := Synthetic(SynthConfig{Bags: 20, MinInstances: 1, MaxInstances: 3, Features: 4, Seed: 3})
	require.NoError(t, err)
	m, err := Fit(ctx, d, DefaultOptions())
	require.NoError(t, err)
	score := func(ctx context.Context, tr, te *Dataset) ([]float64, error) { return nil, nil }
	calls := map[string]func() error{
		"Fit": func() error { _, err := Fit(ctx, zero, DefaultOptions()); return err },
		"FitCV": func() error {
			_, _, err := FitCV(ctx, zero, DefaultSearch())
			return err
		},
		"Protocol.Run":     func() error { _, err := KFold(2, 1, 1).Run(ctx, zero, score); return err },
		"InstanceScores":   func() error { _, err := m.InstanceScores(zero); return err },
		"InstanceScoresTo": func() error { return m.InstanceScoresTo(nil, zero) },
		"BagScores":        func() error { _, err := m.BagScores(zero); return err },
		"BagScoresTo":      func() error { return m.BagScoresTo(nil, nil, zero) },
		"BagProbabilities": func() error { _, err := m.BagProbabilities(zero); return err },
		"Predict":          func() error { _, err := m.Predict(zero); return err },
		"PredictTo":        func() error { return m.PredictTo(nil, nil, zero) },
		"Witnesses":        func() error { _, err := m.Witnesses(zero); return err },
		"WitnessesTo":      func() error { return m.WitnessesTo(nil, nil, zero) },
	}
	for name, call := range calls {
		var err error
		noPanic(t, name, func() { err = call() })
		requireBadInput(t, err, false, "zero Dataset")
	}
}

// TestFitHugeLambda: a lambda so large that lambda/rho overflows zeroes
// beta (its limit) without a panic in the soft-thresholding kernel; lambda
// times the 20 bags (MeanLoss) overflows too, and the objective is still
// the zero model's, finite (not Inf x 0 = NaN), in Fit and in FitCV.
func TestFitHugeLambda(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 20, MinInstances: 1, MaxInstances: 3, Features: 4, Seed: 3})
	require.NoError(t, err)
	opt := DefaultOptions()
	opt.Lambda, opt.MaxIter = 1e307, 20
	var m *Model
	noPanic(t, "Lambda 1e307", func() { m, err = Fit(context.Background(), d, opt) })
	require.NoError(t, err)
	assert.Zero(t, m.Result().NonZero)
	assert.False(t, math.IsNaN(m.Result().Objective) || math.IsInf(m.Result().Objective, 0), "objective %v", m.Result().Objective)

	s := DefaultSearch()
	s.Lambdas, s.Folds, s.EnsembleSize = []float64{1e307}, 2, 0
	_, sel, err := FitCV(context.Background(), d, s)
	require.NoError(t, err)
	for _, st := range sel.Settings {
		assert.False(t, math.IsNaN(st.Deviance), "%v", st)
	}
}

func TestFitCancelAndCallback(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 40, Features: 5, MinInstances: 1, MaxInstances: 4, Seed: 2})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := Fit(ctx, d, DefaultOptions())
	assert.Nil(t, m)
	assert.ErrorIs(t, err, context.Canceled)

	// Cancel from the callback: the engine checks ctx before iteration 6.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	opt := DefaultOptions()
	opt.Callback = func(it neadmm.Iteration) bool {
		if it.K == 5 {
			cancel()
		}
		return false
	}
	if _, err := Fit(ctx, d, opt); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the fit: %v", err)
	}

	var seen []neadmm.Iteration
	opt.Callback = func(it neadmm.Iteration) bool {
		seen = append(seen, it)
		return it.K == 3
	}
	m, err = Fit(context.Background(), d, opt)
	require.NoError(t, err)
	r := m.Result()
	if r.Reason != neadmm.StopCallback || r.Stalled || r.Iterations != 3 || len(seen) != 3 {
		t.Fatalf("callback stop: %v, stalled %v, %d iterations, %d callbacks", r.Reason, r.Stalled, r.Iterations, len(seen))
	}
	for _, it := range seen {
		// MeanLoss: the objective the callback sees is per bag, so it is at
		// most the loss of the worst bag plus the penalty; finite and > 0.
		if !(it.Objective > 0 && it.Objective < 10) || !(it.Primal >= 0) || it.Rho < opt.Rho {
			t.Errorf("callback saw %+v", it)
		}
	}
	if m.Options().Callback != nil {
		t.Error("the model keeps the callback")
	}
}

// cancelData is a dense 4000 x 1500 dataset (1000 x 600 if short),
// standard normal features in bags of 4.
func cancelData(t *testing.T, short bool) *Dataset {
	rows, cols := 4000, 1500
	if short {
		rows, cols = 1000, 600
	}
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, rows*cols)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	ptr := make([]int, rows/4+1)
	labels := make([]float64, rows/4)
	for k := range labels {
		ptr[k+1] = 4 * (k + 1)
		labels[k] = float64(k % 2)
	}
	d, err := NewDense(x, cols, ptr, labels)
	require.NoError(t, err)
	return d
}

// TestFitCancelSetup cancels a fit of the dense 4000 x 1500 dataset
// (cancelData) at 20 times spread over its setup (column statistics,
// Gram matrix, power iteration) and first iterations, plus once before
// it starts, and checks that each returns with ctx's error. The measured
// distribution of cancel-to-return is logged; the bound asserted is
// loose for busy CI machines.
func TestFitCancelSetup(t *testing.T) {
	d := cancelData(t, testing.Short())
	n, span := 20, 2*time.Second
	if testing.Short() {
		n, span = 8, 300*time.Millisecond
	}
	lats := cancelLatencies(t, n, span, func(ctx context.Context) error {
		m, err := Fit(ctx, d, DefaultOptions())
		assert.Nil(t, m)
		return err
	})
	t.Logf("%d x %d dense, %d cancels: median %v, p90 %v, max %v", d.NumInstances(), d.NumFeatures(), len(lats),
		lats[len(lats)/2], lats[len(lats)*9/10], lats[len(lats)-1])
}

// cancelLatencies runs run (a call that takes longer than span
// uncancelled) with a context cancelled before the call and then n times
// after a random delay of up to span, requires context.Canceled from
// each, and returns the latencies from cancel to return, sorted.
func cancelLatencies(t *testing.T, n int, span time.Duration, run func(ctx context.Context) error) []time.Duration {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	var lats []time.Duration
	for i := range n + 1 {
		delay := time.Duration(rng.Float64() * float64(span))
		ctx, cancel := context.WithCancel(context.Background())
		at := make(chan time.Time, 1)
		if i == 0 {
			delay = 0
			at <- time.Now()
			cancel()
		} else {
			go func() {
				time.Sleep(delay)
				at <- time.Now()
				cancel()
			}()
		}
		err := run(ctx)
		lat := time.Since(<-at)
		cancel()
		require.ErrorIs(t, err, context.Canceled, "cancel after %v", delay)
		// Latency is wall time: on a loaded machine or under -race it is
		// many times the few milliseconds measured on a quiet one, so the
		// test asserts only that the call does not run on (it takes seconds
		// uncancelled) and logs what it measured.
		assert.Less(t, lat, 3*time.Second, "cancel after %v", delay)
		lats = append(lats, lat)
	}
	slices.Sort(lats)
	return lats
}

// TestFitCopyPathBetaAuto: BetaAuto picks the Gram matrix when one
// product with it, (D+1)^2, costs less than a product pair with the data,
// 2(N D + N) for dense data whatever its zeros. A dense copy (a column
// whose mean is 10^9 standard deviations) of 15 instances and 20 features,
// 18 of them constant (zeros in the standardized copy), costs the same as
// the data it copies: 441 < 2(300 + 15), so Gram, as without the copy.
func TestFitCopyPathBetaAuto(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, nf = 15, 20
	for _, offset := range []float64{0, 1e9} {
		x := make([]float64, n*nf)
		for i := range n {
			row := x[i*nf : (i+1)*nf]
			row[0], row[1] = offset+rng.NormFloat64(), rng.NormFloat64()
			for j := 2; j < nf; j++ {
				row[j] = 7
			}
		}
		d, err := NewDense(x, nf, []int{0, 3, 6, 9, 12, 15}, []float64{1, 0, 1, 0, 1})
		require.NoError(t, err)
		opt := DefaultOptions()
		opt.MaxIter = 3
		m, err := Fit(context.Background(), d, opt)
		require.NoError(t, err)
		assert.Equal(t, BetaGram, m.Result().Beta, "offset %g", offset)
	}
}

// benchmarkFit fits the default model on the training bags of the paper's
// 80/20 split of a real data set and reports the time per outer iteration
// and its split between the updates.
func benchmarkFit(b *testing.B, name string, opt Options) {
	d, err := LoadFile(datadir.File(b, name), nil)
	if err != nil {
		b.Fatal(err)
	}
	sp, err := PaperSplit(1).Splits(d.Labels())
	if err != nil {
		b.Fatal(err)
	}
	train, err := d.Subset(sp[0].Train)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var its int
	var tm FitTimes
	for b.Loop() {
		m, err := Fit(context.Background(), train, opt)
		if err != nil {
			b.Fatal(err)
		}
		r := m.Result()
		its += r.Iterations
		tm.Setup += r.Time.Setup
		tm.QUpdate += r.Time.QUpdate
		tm.BetaUpdate += r.Time.BetaUpdate
		tm.TUpdate += r.Time.TUpdate
		tm.Engine += r.Time.Engine
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(its) }
	b.ReportMetric(float64(its)/float64(b.N), "iters/fit")
	b.ReportMetric(per(tm.QUpdate+tm.BetaUpdate+tm.TUpdate+tm.Engine), "ns/iter")
	b.ReportMetric(per(tm.QUpdate), "q-ns/iter")
	b.ReportMetric(per(tm.BetaUpdate), "beta-ns/iter")
	b.ReportMetric(per(tm.TUpdate), "t-ns/iter")
	b.ReportMetric(per(tm.Engine), "engine-ns/iter")
	b.ReportMetric(float64(tm.Setup.Nanoseconds())/float64(b.N), "setup-ns/fit")
}

func BenchmarkFitVaccine(b *testing.B) { benchmarkFit(b, "vaccine.svm", DefaultOptions()) }
func BenchmarkFitFox(b *testing.B)     { benchmarkFit(b, "fox.csv", DefaultOptions()) }

// TestSolveEngineErrorsMatchBadInput: an error of the engine that is not
// a cancellation (here a non-finite start, which no fit of valid data
// reaches) matches ErrBadInput as well as the engine's own sentinel; a
// cancellation stays the context's error alone.
func TestSolveEngineErrorsMatchBadInput(t *testing.T) {
	d := twoConceptData(t, 40, 1)
	opt := DefaultOptions()
	prep, err := prepare(context.Background(), d, &opt)
	require.NoError(t, err)
	p := newProblem(prep, &opt)
	st := newState(p)
	st.x1[0] = math.NaN()
	_, _, err = solve(context.Background(), p, st, &opt, opt.Rho)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.True(t, errors.Is(err, neadmm.ErrNotFinite) || errors.Is(err, neadmm.ErrBadInput), "the engine's error is kept: %v", err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = solve(ctx, p, newState(p), &opt, opt.Rho)
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, ErrBadInput)
}
