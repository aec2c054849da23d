package mil

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// LossScale says how the bag losses are summed in the objective.
type LossScale int

const (
	// MeanLoss (the zero value, the default) is
	// (1/B) sum_i w_i*loss_i + Lambda*||beta||_1: Lambda means the same on
	// data sets of any size.
	MeanLoss LossScale = iota
	// SumLoss is sum_i w_i*loss_i + Lambda*||beta||_1, the paper's
	// formulation, where a fixed Lambda regularizes small data sets more.
	SumLoss
)

// String returns "mean" or "sum".
func (s LossScale) String() string {
	switch s {
	case MeanLoss:
		return "mean"
	case SumLoss:
		return "sum"
	}
	return fmt.Sprintf("LossScale(%d)", int(s))
}

// Weighting selects the bag weights w_i of the loss.
type Weighting int

const (
	// Uniform (the zero value) weighs every bag 1.
	Uniform Weighting = iota
	// Balanced weighs a bag of class c by B/(2*B_c) (B_c bags of class c),
	// so both classes carry the same total weight; the weights still sum
	// to B. Bag probabilities are then calibrated to balanced classes, not
	// to the training prevalence.
	Balanced
)

// String returns "uniform" or "balanced".
func (w Weighting) String() string {
	switch w {
	case Uniform:
		return "uniform"
	case Balanced:
		return "balanced"
	}
	return fmt.Sprintf("Weighting(%d)", int(w))
}

// Scaling selects the feature preprocessing inside Fit.
type Scaling int

const (
	// ScaleAuto (the zero value) fits a Scaler on the training instances
	// (FitScaler) and solves on the scaled features: dense features are
	// standardized (mean 0, standard deviation 1), sparse ones divided by
	// their standard deviation without centering, so they stay sparse.
	// The model's coefficients are mapped back to the raw features
	// (Scaler.ToRaw), so prediction takes raw data.
	ScaleAuto Scaling = iota
	// ScaleNone solves on the raw features.
	ScaleNone
)

// String returns "auto" or "none".
func (s Scaling) String() string {
	switch s {
	case ScaleAuto:
		return "auto"
	case ScaleNone:
		return "none"
	}
	return fmt.Sprintf("Scaling(%d)", int(s))
}

// BetaSolver selects how FISTA evaluates the gradient of the beta-update.
type BetaSolver int

const (
	// BetaAuto (the zero value) picks BetaGram when one product with the
	// Gram matrix costs less than one product pair with the data and the
	// Gram matrix has at most 4096 rows, else BetaDirect.
	BetaAuto BetaSolver = iota
	// BetaGram computes G = [X 1]^T [X 1] once per fit ((D+1)^2 floats)
	// and runs FISTA's inner iterations on it, O(D^2) each; only
	// [X 1]^T (t + y2/rho) is computed per outer iteration.
	BetaGram
	// BetaDirect runs each inner iteration with the dataset's products
	// (dense kernels or the sparse CSR path), O(nnz + I) each.
	BetaDirect
)

// String returns "auto", "gram" or "direct".
func (b BetaSolver) String() string {
	switch b {
	case BetaAuto:
		return "auto"
	case BetaGram:
		return "gram"
	case BetaDirect:
		return "direct"
	}
	return fmt.Sprintf("BetaSolver(%d)", int(b))
}

// Default inner-solver settings (Options.InnerMaxIter, Options.InnerTol)
// and the window of the objective test (Options.ObjTol).
const (
	ObjWindow           = 10   // iterations over which ObjTol compares the objective
	DefaultInnerMaxIter = 30   // FISTA steps per beta-update (warm-started)
	DefaultInnerTol     = 1e-6 // FISTA's relative step tolerance
)

// Options configures Fit. Start from DefaultOptions or PaperOptions and
// change fields: the zero Options is invalid (Rho and MaxIter must be
// positive), while the zero values of the enumerations and of the fields
// marked so select defaults.
type Options struct {
	// Lambda >= 0 weighs the L1 penalty on beta (the bias is never
	// penalized); see Loss for its scale.
	Lambda float64
	// Loss is MeanLoss (default) or SumLoss (the paper).
	Loss LossScale
	// Weighting is Uniform (default) or Balanced.
	Weighting Weighting
	// Scaling is ScaleAuto (default) or ScaleNone.
	Scaling Scaling

	// Rho (> 0) is the initial penalty of the augmented Lagrangian of the
	// sum-scale problem sum_i w_i*loss_i + B*Lambda*||beta||_1 (MeanLoss)
	// or sum_i w_i*loss_i + Lambda*||beta||_1 (SumLoss): the same rho
	// gives the same iterates under both scales.
	Rho float64
	// RhoPolicy, RhoGrowth and RhoMax are passed to the engine (see
	// neadmm.Options; zero values select the engine's defaults: rho grows
	// by 2% per iteration up to 1e6*Rho).
	RhoPolicy neadmm.RhoPolicy
	RhoGrowth float64
	RhoMax    float64
	// MaxIter (> 0) caps the outer iterations.
	MaxIter int
	// EpsAbs and EpsRel (>= 0) are the engine's stopping tolerances
	// (neadmm.Options.EpsAbs) on the residuals of the constraints
	// q = max t (B rows) and t = X beta + beta0 (I rows, in scaled units).
	EpsAbs, EpsRel float64
	// ObjTol (>= 0) adds a second stopping test: the primal residual is
	// within its tolerance and the objective (at the ADMM iterate) changed
	// by at most ObjTol*max(1, |objective|) over the last ObjWindow
	// iterations. 0 disables it. Under a growing rho the dual residual
	// does not vanish (the iterates move by O(1/rho) per iteration, so
	// rho times their change stays O(1)) and this test is what stops the
	// fit; see the package documentation.
	ObjTol float64

	// Beta selects the beta-update's gradient path (BetaAuto by default).
	Beta BetaSolver
	// InnerMaxIter caps FISTA's iterations per beta-update; 0 means
	// DefaultInnerMaxIter.
	InnerMaxIter int
	// InnerTol is FISTA's relative step tolerance; 0 means
	// DefaultInnerTol.
	InnerTol float64

	// Callback, if not nil, is called after every outer iteration (see
	// neadmm.Options.Callback); returning true stops the fit, which then
	// returns the current model with Reason neadmm.StopCallback.
	// Iteration.Objective is in Loss's scale, evaluated at the ADMM
	// iterate (loss of q, not of max t).
	Callback func(neadmm.Iteration) (stop bool)
}

// DefaultOptions returns the measured defaults (see the package
// documentation for the measurements): mean logistic loss with Lambda =
// 0.01, Balanced class weights, standardized features, rho growing from
// 0.03 by 2% per iteration, stopping when the primal residual is below
// 1e-3 per constraint row (EpsAbs; EpsRel = 0) and the objective changed
// by less than 1e-5 (relative, ObjTol) over ObjWindow iterations, or after
// 1000 iterations.
func DefaultOptions() Options {
	return Options{
		Lambda:    0.01,
		Weighting: Balanced,
		Rho:       0.03,
		MaxIter:   1000,
		EpsAbs:    1e-3,
		ObjTol:    1e-5,
	}
}

// PaperOptions returns the settings of the paper's section 4.2: summed
// logistic loss, Lambda = 1, a fixed rho = 0.1 and 100 iterations (no
// tolerance stop), with the features standardized as by DefaultOptions.
func PaperOptions() Options {
	return Options{
		Lambda:    1,
		Loss:      SumLoss,
		Rho:       0.1,
		RhoPolicy: neadmm.RhoFixed,
		MaxIter:   100,
	}
}

func (o *Options) check() error {
	switch {
	case !(o.Lambda >= 0) || !num.Finite(o.Lambda):
		return fmt.Errorf("mil: Options.Lambda = %g, want finite and >= 0", o.Lambda)
	case o.Loss < MeanLoss || o.Loss > SumLoss:
		return fmt.Errorf("mil: Options.Loss = %d, unknown", int(o.Loss))
	case o.Weighting < Uniform || o.Weighting > Balanced:
		return fmt.Errorf("mil: Options.Weighting = %d, unknown", int(o.Weighting))
	case o.Scaling < ScaleAuto || o.Scaling > ScaleNone:
		return fmt.Errorf("mil: Options.Scaling = %d, unknown", int(o.Scaling))
	case o.Beta < BetaAuto || o.Beta > BetaDirect:
		return fmt.Errorf("mil: Options.Beta = %d, unknown", int(o.Beta))
	case o.MaxIter <= 0:
		return fmt.Errorf("mil: Options.MaxIter = %d, want > 0", o.MaxIter)
	case !(o.ObjTol >= 0) || !num.Finite(o.ObjTol):
		return fmt.Errorf("mil: Options.ObjTol = %g, want finite and >= 0", o.ObjTol)
	case o.InnerMaxIter < 0:
		return fmt.Errorf("mil: Options.InnerMaxIter = %d, want >= 0", o.InnerMaxIter)
	case !(o.InnerTol >= 0) || !num.Finite(o.InnerTol):
		return fmt.Errorf("mil: Options.InnerTol = %g, want finite and >= 0", o.InnerTol)
	}
	// Check the engine's own options here too, so that a bad one fails
	// before the scaling and Gram work.
	if err := o.engine(1, nil).Validate(); err != nil {
		return fmt.Errorf("mil: %w", err)
	}
	return nil
}

// engine returns the neadmm options of o, capped at maxIter iterations,
// with the callback cb.
func (o *Options) engine(maxIter int, cb func(neadmm.Iteration) bool) neadmm.Options {
	return neadmm.Options{
		Rho:       o.Rho,
		Policy:    o.RhoPolicy,
		RhoGrowth: o.RhoGrowth,
		RhoMax:    o.RhoMax,
		EpsAbs:    o.EpsAbs,
		EpsRel:    o.EpsRel,
		MaxIter:   maxIter,
		Callback:  cb,
		// cb reads Iteration.Objective.
		IterationObjective: cb != nil,
	}
}

// FitTimes splits the wall time of a fit.
type FitTimes struct {
	Total time.Duration
	// Setup is the scaling of the features, the Gram matrix (BetaGram) and
	// the Lipschitz estimate of the beta-update.
	Setup time.Duration
	// QUpdate, BetaUpdate and TUpdate are the three updates of Algorithm 3
	// summed over the iterations (BetaUpdate includes the product
	// [X 1]^T v; TUpdate the product X beta).
	QUpdate, BetaUpdate, TUpdate time.Duration
	// Engine is the rest of the solve: dual update, residuals (one
	// X^T product per iteration, two with EpsRel > 0) and stopping tests.
	Engine time.Duration
}

// FitResult describes a fit.
type FitResult struct {
	Iterations int               // outer (ADMM) iterations completed
	Reason     neadmm.StopReason // why the solve ended
	// Stalled reports that the objective test of Options.ObjTol stopped
	// the fit (Reason is then neadmm.StopCallback).
	Stalled bool
	// Primal and Dual are the residual norms of the last iteration, with
	// the tolerances they were compared against; Rho is its penalty.
	Primal, Dual, EpsPrimal, EpsDual, Rho float64
	// Objective is the objective of the returned model in Loss's scale,
	// with bag scores max_j (x_ij . beta + beta0): the regularized loss the
	// fit minimizes.
	Objective float64
	// Loss is Objective's loss part (weighted, in Loss's scale).
	Loss float64
	// NonZero counts the non-zero coefficients of beta.
	NonZero int
	// InnerIterations is the total number of FISTA iterations of the
	// beta-updates.
	InnerIterations int
	// Beta is the beta-update path used (BetaGram or BetaDirect) and
	// Sparse whether the products ran on sparse storage.
	Beta   BetaSolver
	Sparse bool
	// Lipschitz is FISTA's step constant (largest eigenvalue of the Gram
	// matrix of the scaled features with the bias column).
	Lipschitz float64
	Time      FitTimes
}

// Converged reports whether a stopping test passed: the engine's residual
// test (Reason == neadmm.StopConverged) or the objective test (Stalled).
func (r FitResult) Converged() bool { return r.Reason == neadmm.StopConverged || r.Stalled }

// Stop describes why the fit ended: "objective stalled" for the objective
// test, else Reason's name.
func (r FitResult) Stop() string {
	if r.Stalled {
		return "objective stalled"
	}
	return r.Reason.String()
}

// Model is a fitted multi-instance classifier: the bag score of a bag is
// max_j (x_j . beta + beta0) over its instances, its probability the
// logistic sigmoid of the score. A Model is immutable and safe for
// concurrent use by multiple goroutines.
type Model struct {
	beta  []float64 // on the raw features
	beta0 float64
	res   FitResult
	opt   Options
}

// Fit trains a model on d: it minimizes the regularized logistic loss of
// the bag scores by neADMM (Algorithm 3 of the paper) with the updates
// described in the package documentation, from beta = 0.
//
// It returns an error, before any solving, if d is nil, holds only one
// class (an error for which errors.Is(err, ErrOneClass) is true), or the
// options are invalid; during the solve it returns the
// engine's error (a non-finite iterate, or ctx's error wrapped on
// cancellation) and no model. A Callback asking to stop returns the
// current model.
func Fit(ctx context.Context, d *Dataset, opt Options) (*Model, error) {
	start := time.Now()
	if d == nil {
		return nil, errors.New("mil: Fit: nil dataset")
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	nb, nf := d.NumBags(), d.NumFeatures()
	pos := d.Positives()
	if pos == 0 || pos == nb {
		return nil, oneClassError{bags: nb, label: d.Labels()[0]}
	}
	if opt.InnerMaxIter == 0 {
		opt.InnerMaxIter = DefaultInnerMaxIter
	}
	if opt.InnerTol == 0 {
		opt.InnerTol = DefaultInnerTol
	}

	// The solver runs many products on its data: one contiguous block
	// (Apply's copy, or Materialize) keeps the dense kernels blocked.
	var scaler *Scaler
	var data *Dataset
	if opt.Scaling == ScaleAuto {
		var err error
		if scaler, err = FitScaler(ctx, d); err != nil {
			return nil, fmt.Errorf("mil: Fit: %w", err)
		}
		if data, err = scaler.Apply(ctx, d); err != nil {
			return nil, fmt.Errorf("mil: Fit: %w", err)
		}
	} else {
		data = d.Materialize()
	}
	p := newProblem(data, &opt)
	p.fopt.L = p.lipschitz()
	setup := time.Since(start)

	ni := data.NumInstances()
	x1 := make([]float64, nb+nf+1)
	t := make([]float64, ni)
	y := make([]float64, nb+ni)
	scale := 1.0 // objective: sum scale -> opt.Loss's scale
	if opt.Loss == MeanLoss {
		scale = 1 / float64(nb)
	}
	var cb func(neadmm.Iteration) bool
	stalled := false
	if opt.Callback != nil || opt.ObjTol > 0 {
		var hist [ObjWindow]float64 // objectives of the last iterations, by K mod ObjWindow
		cb = func(it neadmm.Iteration) bool {
			it.Objective *= scale
			if opt.Callback != nil && opt.Callback(it) {
				return true
			}
			if opt.ObjTol == 0 {
				return false
			}
			old := &hist[it.K%ObjWindow]
			stalled = it.K > ObjWindow && it.Primal <= it.EpsPrimal &&
				math.Abs(it.Objective-*old) <= opt.ObjTol*max(1, math.Abs(it.Objective))
			*old = it.Objective
			return stalled
		}
	}
	var sv neadmm.Solver
	er, err := sv.Solve(ctx, p, x1, t, y, opt.engine(opt.MaxIter, cb))
	if err != nil {
		return nil, fmt.Errorf("mil: Fit: %w", err)
	}
	stalled = stalled && er.Reason == neadmm.StopCallback

	theta := x1[nb:]
	obj := p.trueObjective(theta, t) // t is free now: scratch
	pen := p.lambda * vec.Asum(theta[:nf])
	res := FitResult{
		Iterations: er.Iterations, Reason: er.Reason, Stalled: stalled,
		Primal: er.Primal, Dual: er.Dual, EpsPrimal: er.EpsPrimal, EpsDual: er.EpsDual, Rho: er.Rho,
		Objective:       obj * scale,
		Loss:            (obj - pen) * scale,
		InnerIterations: p.inner,
		Beta:            p.path,
		Sparse:          data.IsSparse(),
		Lipschitz:       p.fopt.L,
	}
	m := &Model{beta: make([]float64, nf), beta0: theta[nf], opt: opt}
	m.opt.Callback = nil
	copy(m.beta, theta[:nf])
	if scaler != nil {
		m.beta0, _ = scaler.ToRaw(m.beta, m.beta, m.beta0) // lengths match by construction
	}
	for _, b := range m.beta {
		if b != 0 {
			res.NonZero++
		}
	}
	total := time.Since(start)
	res.Time = FitTimes{
		Total: total, Setup: setup,
		QUpdate: p.tQ, BetaUpdate: p.tBeta, TUpdate: p.tT,
	}
	res.Time.Engine = total - setup - p.tQ - p.tBeta - p.tT
	m.res = res
	return m, nil
}

// oneClassError is Fit's error for training bags of a single class. It
// matches ErrOneClass under errors.Is, but says what went wrong for a fit
// rather than ErrOneClass's "metric undefined".
type oneClassError struct {
	bags  int
	label float64
}

func (e oneClassError) Error() string {
	return fmt.Sprintf("mil: Fit: all %d training bags have label %v; a fit needs bags of both classes", e.bags, e.label)
}

func (e oneClassError) Is(target error) bool { return target == ErrOneClass }

// newProblem builds the neadmm problem on the (scaled, materialized) data.
func newProblem(data *Dataset, opt *Options) *problem {
	nb, nf, ni := data.NumBags(), data.NumFeatures(), data.NumInstances()
	p := &problem{
		data: data, bagPtr: data.BagPtr(), nb: nb, nf: nf,
		sign: make([]float64, nb), weight: make([]float64, nb),
		v: make([]float64, ni), phi: make([]float64, ni),
		xb: make([]float64, ni), xbTheta: make([]float64, nf+1),
		tmax: make([]float64, nb),
	}
	pos := float64(data.Positives())
	for i, lab := range data.Labels() {
		p.sign[i] = 2*lab - 1
		p.weight[i] = 1
		if opt.Weighting == Balanced {
			nc := pos
			if lab == 0 {
				nc = float64(nb) - pos
			}
			p.weight[i] = float64(nb) / (2 * nc)
		}
	}
	p.lambda = opt.Lambda
	if opt.Loss == MeanLoss {
		p.lambda *= float64(nb)
	}
	p.path = opt.Beta
	if p.path == BetaAuto {
		p.path = BetaDirect
		d1 := nf + 1
		if d1 <= 4096 && d1*d1 < 2*(data.NNZ()+ni) {
			p.path = BetaGram
		}
	}
	if p.path == BetaGram {
		p.lasso = newLassoGram(data)
	} else {
		p.lasso = newLassoDirect(data)
	}
	p.fopt = neadmm.FISTAOptions{MaxIter: opt.InnerMaxIter, Tol: opt.InnerTol}
	return p
}

// lipschitz returns the largest eigenvalue (upper estimate) of A^T A,
// A = [X 1], by power iteration on the Gram matrix or the products.
func (p *problem) lipschitz() float64 {
	d1 := p.nf + 1
	if g, ok := p.lasso.(*lassoGram); ok {
		return lipschitz(d1, func(dst, x []float64) { vec.MulVec(dst, g.g, d1, d1, x) })
	}
	r := make([]float64, p.data.NumInstances())
	return lipschitz(d1, func(dst, x []float64) {
		p.data.MulVec(r, x[:p.nf], x[p.nf])
		p.data.MulTransVec(dst, r)
	})
}

// NumFeatures returns the number of features the model expects.
func (m *Model) NumFeatures() int { return len(m.beta) }

// Coefficients returns a copy of beta and the bias beta0 on the raw
// features: the score of an instance x is x . beta + beta0.
func (m *Model) Coefficients() (beta []float64, beta0 float64) {
	return append([]float64(nil), m.beta...), m.beta0
}

// Result returns the diagnostics of the fit.
func (m *Model) Result() FitResult { return m.res }

// Options returns the options the model was fitted with (defaults filled
// in, Callback nil).
func (m *Model) Options() Options { return m.opt }

func (m *Model) check(d *Dataset, fn string) error {
	if d == nil {
		return fmt.Errorf("mil: Model.%s: nil dataset", fn)
	}
	if d.NumFeatures() != len(m.beta) {
		return fmt.Errorf("mil: Model.%s: dataset has %d features, model %d", fn, d.NumFeatures(), len(m.beta))
	}
	return nil
}

func checkLen(fn, what string, got, want int) error {
	if got != want {
		return fmt.Errorf("mil: Model.%s: len(%s) = %d, want %d", fn, what, got, want)
	}
	return nil
}

// InstanceScoresTo sets dst[i] = x_i . beta + beta0 for every instance of d
// (dataset order): the scores whose maximum per bag is the bag score, so
// the instances scoring highest are those that make a bag positive. It
// allocates nothing. It returns an error if d is nil, has another number
// of features than the model, or len(dst) != d.NumInstances().
func (m *Model) InstanceScoresTo(dst []float64, d *Dataset) error {
	if err := m.check(d, "InstanceScoresTo"); err != nil {
		return err
	}
	if err := checkLen("InstanceScoresTo", "dst", len(dst), d.NumInstances()); err != nil {
		return err
	}
	d.MulVec(dst, m.beta, m.beta0)
	return nil
}

// InstanceScores returns the instance scores of d (see InstanceScoresTo).
func (m *Model) InstanceScores(d *Dataset) ([]float64, error) {
	if err := m.check(d, "InstanceScores"); err != nil {
		return nil, err
	}
	dst := make([]float64, d.NumInstances())
	return dst, m.InstanceScoresTo(dst, d)
}

// bagScores fills inst with the instance scores and calls f(k, start, end,
// score) for every bag k with its range and score.
func (m *Model) bagScores(fn string, inst []float64, d *Dataset, nout, want int, f func(k, start, end int, q float64)) error {
	if err := m.check(d, fn); err != nil {
		return err
	}
	if err := checkLen(fn, "dst", nout, want); err != nil {
		return err
	}
	if err := checkLen(fn, "inst", len(inst), d.NumInstances()); err != nil {
		return err
	}
	d.MulVec(inst, m.beta, m.beta0)
	ptr := d.BagPtr()
	for k := range d.NumBags() {
		a, b := ptr[k], ptr[k+1]
		q := inst[a]
		for _, v := range inst[a+1 : b] {
			q = max(q, v)
		}
		f(k, a, b, q)
	}
	return nil
}

// BagScoresTo sets dst[k] = max_j (x_kj . beta + beta0), the score of bag k
// of d, using inst (len d.NumInstances()) for the instance scores, which it
// leaves there. It allocates nothing. It returns an error if d is nil, has
// another number of features than the model, or a buffer has the wrong
// length. dst and inst must not overlap.
func (m *Model) BagScoresTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("BagScoresTo", inst, d, len(dst), bagsOf(d), func(k, _, _ int, q float64) { dst[k] = q })
}

// BagScores returns the bag scores of d (see BagScoresTo).
func (m *Model) BagScores(d *Dataset) ([]float64, error) {
	if err := m.check(d, "BagScores"); err != nil {
		return nil, err
	}
	dst := make([]float64, d.NumBags())
	return dst, m.BagScoresTo(dst, make([]float64, d.NumInstances()), d)
}

// BagProbabilitiesTo sets dst[k] = 1/(1 + exp(-score_k)), the model's
// probability that bag k of d is positive (calibrated to the training
// prevalence for Uniform weights, to balanced classes for Balanced), with
// inst as for BagScoresTo. It allocates nothing; errors as BagScoresTo.
func (m *Model) BagProbabilitiesTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("BagProbabilitiesTo", inst, d, len(dst), bagsOf(d), func(k, _, _ int, q float64) {
		dst[k], _ = sigmoids(q)
	})
}

// BagProbabilities returns the bag probabilities of d (see
// BagProbabilitiesTo).
func (m *Model) BagProbabilities(d *Dataset) ([]float64, error) {
	if err := m.check(d, "BagProbabilities"); err != nil {
		return nil, err
	}
	dst := make([]float64, d.NumBags())
	return dst, m.BagProbabilitiesTo(dst, make([]float64, d.NumInstances()), d)
}

// PredictTo sets dst[k] to the predicted label of bag k of d: 1 if its
// score is >= 0 (probability >= 1/2, the threshold of the paper's code),
// else 0, with inst as for BagScoresTo. It allocates nothing; errors as
// BagScoresTo.
func (m *Model) PredictTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("PredictTo", inst, d, len(dst), bagsOf(d), func(k, _, _ int, q float64) {
		dst[k] = 0
		if q >= 0 {
			dst[k] = 1
		}
	})
}

// Predict returns the predicted bag labels of d (see PredictTo).
func (m *Model) Predict(d *Dataset) ([]float64, error) {
	if err := m.check(d, "Predict"); err != nil {
		return nil, err
	}
	dst := make([]float64, d.NumBags())
	return dst, m.PredictTo(dst, make([]float64, d.NumInstances()), d)
}

// WitnessesTo sets dst[k] to the index (in d's instance order) of the
// instance with the highest score in bag k: the witness that sets the bag
// score, the instance that makes a positive bag positive. Ties go to the
// first instance. inst is as for BagScoresTo. It allocates nothing; errors
// as BagScoresTo.
func (m *Model) WitnessesTo(dst []int, inst []float64, d *Dataset) error {
	return m.bagScores("WitnessesTo", inst, d, len(dst), bagsOf(d), func(k, a, b int, q float64) {
		for j := a; j < b; j++ {
			if inst[j] == q {
				dst[k] = j
				return
			}
		}
	})
}

// Witnesses returns the witness of every bag of d (see WitnessesTo).
func (m *Model) Witnesses(d *Dataset) ([]int, error) {
	if err := m.check(d, "Witnesses"); err != nil {
		return nil, err
	}
	dst := make([]int, d.NumBags())
	return dst, m.WitnessesTo(dst, make([]float64, d.NumInstances()), d)
}

// bagsOf returns d.NumBags(), or 0 for a nil d (check reports it).
func bagsOf(d *Dataset) int {
	if d == nil {
		return 0
	}
	return d.NumBags()
}
