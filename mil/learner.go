package mil

import (
	"context"
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
	// ScaleAuto (the zero value) solves on the features standardized
	// with the statistics of the training instances (FitScaler's means
	// and standard deviations; sparse features are centered too, by
	// folding, where FitScaler's Mean is 0 for them). With MeanPooling, which Fit
	// solves on the bags' mean features, it standardizes those with their
	// statistics over the training bags (each bag weighing the same). The
	// standardization is folded into the products rather than applied to
	// a copy (see the package documentation), and a column constant on the
	// training instances (with MeanPooling: on the bag means, which a
	// column varying only within the bags is too) is left out
	// (coefficient 0: the bias fits it). The model's coefficients are
	// mapped back to the raw features (as Scaler.ToRaw does), so
	// prediction takes raw data.
	ScaleAuto Scaling = iota
	// ScaleNone solves on the raw features: the L1 penalty weighs the
	// raw coefficients. (Features far from 1 in magnitude, beyond 2^±400,
	// are divided internally by a power of two, with the penalty scaled
	// to match, so that the step constant stays finite; the problem is the
	// same.)
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
	ObjWindow           = 10      // iterations over which ObjTol compares the objective
	DefaultInnerMaxIter = 30      // FISTA steps per beta-update (warm-started)
	DefaultInnerTol     = 1e-6    // FISTA's relative step tolerance
	DefaultMaxBytes     = 2 << 30 // Options.MaxBytes: 2 GiB
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
	// Pooling is the bag score rule q_i = P(t_i): the zero value is the
	// paper's max; see Pooling for the others.
	Pooling Pooling

	// Rho (>= neadmm.MinRho, 2^-1022) is the initial penalty of the
	// augmented Lagrangian of the sum-scale problem
	// sum_i w_i*loss_i + B*Lambda*||beta||_1 (MeanLoss)
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

	// MaxBytes caps what Fit may allocate (its estimate of the Gram
	// matrix and the working vectors, checked before any other work; and
	// of a copy of the features, checked before it is made, when ScaleAuto
	// cannot fold the standardization into the products or a dense subset
	// is put into one block):
	// a larger estimate fails with an error wrapping ErrBadInput and
	// ErrTooLarge. 0 means DefaultMaxBytes; it must be >= 0.
	MaxBytes int64

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

// Validate reports the first invalid field of o (its own and the engine's,
// through neadmm.Options.Validate) as an error wrapping ErrBadInput. Fit
// calls it before any work.
func (o Options) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: Options."+format, append([]any{ErrBadInput}, a...)...)
	}
	switch {
	case !(o.Lambda >= 0) || !num.Finite(o.Lambda):
		return bad("Lambda = %g, want finite and >= 0", o.Lambda)
	case o.Loss < MeanLoss || o.Loss > SumLoss:
		return bad("Loss = %d, unknown", int(o.Loss))
	case o.Weighting < Uniform || o.Weighting > Balanced:
		return bad("Weighting = %d, unknown", int(o.Weighting))
	case o.Scaling < ScaleAuto || o.Scaling > ScaleNone:
		return bad("Scaling = %d, unknown", int(o.Scaling))
	case o.Beta < BetaAuto || o.Beta > BetaDirect:
		return bad("Beta = %d, unknown", int(o.Beta))
	case o.MaxIter <= 0:
		return bad("MaxIter = %d, want > 0", o.MaxIter)
	case !(o.ObjTol >= 0) || !num.Finite(o.ObjTol):
		return bad("ObjTol = %g, want finite and >= 0", o.ObjTol)
	case o.InnerMaxIter < 0:
		return bad("InnerMaxIter = %d, want >= 0", o.InnerMaxIter)
	case !(o.InnerTol >= 0) || !num.Finite(o.InnerTol):
		return bad("InnerTol = %g, want finite and >= 0", o.InnerTol)
	case o.MaxBytes < 0:
		return bad("MaxBytes = %d, want >= 0", o.MaxBytes)
	}
	if err := o.Pooling.Validate(); err != nil {
		return err
	}
	if err := o.engine(1, nil, nil).Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return nil
}

// withDefaults returns o with the zero values that mean "default" filled in.
func (o Options) withDefaults() Options {
	if o.InnerMaxIter == 0 {
		o.InnerMaxIter = DefaultInnerMaxIter
	}
	if o.InnerTol == 0 {
		o.InnerTol = DefaultInnerTol
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// engine returns the neadmm options of o, capped at maxIter iterations,
// with the callback cb and the stopping test stop (either may be nil).
func (o *Options) engine(maxIter int, cb, stop func(neadmm.Iteration) bool) neadmm.Options {
	return neadmm.Options{
		Rho:       o.Rho,
		Policy:    o.RhoPolicy,
		RhoGrowth: o.RhoGrowth,
		RhoMax:    o.RhoMax,
		EpsAbs:    o.EpsAbs,
		EpsRel:    o.EpsRel,
		MaxIter:   maxIter,
		Callback:  cb,
		StopTest:  stop,
		// Both read Iteration.Objective.
		IterationObjective: cb != nil || stop != nil,
	}
}

// FitTimes splits the wall time of a fit.
type FitTimes struct {
	Total time.Duration
	// Setup is the statistics of the features (ScaleAuto; for ScaleNone
	// their largest magnitude), the Gram matrix (BetaGram) and the
	// Lipschitz estimate of the beta-update.
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
	// the fit (Reason neadmm.StopTest, the engine's second stopping test):
	// the primal residual was within its tolerance and the objective had
	// stopped changing, while the dual residual had not met its test
	// (which under a growing rho it does not; see the package
	// documentation). Converged is then false.
	Stalled bool
	// Primal and Dual are the residual norms of the last iteration, with
	// the tolerances they were compared against; Rho is its penalty.
	Primal, Dual, EpsPrimal, EpsDual, Rho float64
	// Objective is the objective of the returned model in Loss's scale,
	// with bag scores P(x_ij . beta + beta0) (P the pooling): the
	// regularized loss the fit minimizes.
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
	// matrix of the features the solver works on, with the bias column:
	// standardized for ScaleAuto, raw for ScaleNone, or raw divided by a
	// power of two for raw features beyond 2^±400).
	Lipschitz float64
	// Bytes is Fit's estimate of what it allocated (see Options.MaxBytes).
	Bytes int64
	Time  FitTimes
}

// Converged reports whether the engine's residual test passed: both the
// primal and the dual residual within their tolerances (Reason ==
// neadmm.StopConverged). A fit stopped by the objective test (Stalled) has
// not converged in this sense.
func (r FitResult) Converged() bool { return r.Reason == neadmm.StopConverged }

// Stop describes why the fit ended: "objective stalled" for the objective
// test, else Reason's name.
func (r FitResult) Stop() string {
	if r.Stalled {
		return "objective stalled"
	}
	return r.Reason.String()
}

// Model is a fitted multi-instance classifier: the bag score of a bag is
// P(x_j . beta + beta0) over its instances j, P the pooling it was fitted
// with (the max by default), its probability the logistic sigmoid of the
// score. A Model may also be an ensemble of such models (Ensemble; FitCV
// returns one when its cross-validation prefers it), whose bag score is
// the mean of its parts'. A Model is immutable and safe for concurrent use
// by multiple goroutines.
type Model struct {
	beta  []float64 // on the raw features
	beta0 float64
	res   FitResult
	opt   Options
	// parts and weights make an ensemble (see Ensemble); beta and beta0
	// are then the weighted mean of the parts' coefficients.
	parts   []*Model
	weights []float64
}

// Fit trains a model on d: it minimizes the regularized logistic loss of
// the bag scores by neADMM (Algorithm 3 of the paper) with the updates
// described in the package documentation, from beta = 0.
//
// Before any other work it returns an error wrapping ErrBadInput if d or
// ctx is nil or d is the zero Dataset, the options are invalid
// (Options.Validate), or the estimated memory exceeds Options.MaxBytes
// (then also wrapping ErrTooLarge); an error matching ErrOneClass if d
// holds one class; and ctx's error if ctx is already done. Fit does not
// copy d's features (the scaling is folded into the products; see
// Scaling), except to standardize columns whose mean dwarfs their
// spread, or of extreme magnitude, where folding would lose accuracy,
// and to put a dense subset of several runs (a cross-validation fold)
// into one block for the kernels, as Materialize does.
// The setup (column statistics, Gram matrix, power iteration) and every
// iteration check ctx, so a cancellation returns within milliseconds with
// ctx's error wrapped. During the solve it returns the engine's error (a
// non-finite iterate) and no model. A Callback asking to stop returns the
// current model.
func Fit(ctx context.Context, d *Dataset, opt Options) (*Model, error) {
	start := time.Now()
	opt, err := checkFit(ctx, d, opt)
	if err != nil {
		return nil, err
	}
	prep, err := prepare(ctx, d, &opt)
	if err != nil {
		return nil, err
	}
	p := newProblem(prep, &opt)
	setup := time.Since(start)
	st := newState(p)
	er, stalled, err := solve(ctx, p, st, &opt, opt.Rho)
	if err != nil {
		return nil, fmt.Errorf("mil: Fit: %w", err)
	}
	m := newModel(p, st.x1, st.t, &prep.back, &opt)
	m.res.Iterations, m.res.Reason, m.res.Stalled = er.Iterations, er.Reason, stalled
	m.res.Primal, m.res.Dual, m.res.EpsPrimal, m.res.EpsDual, m.res.Rho = er.Primal, er.Dual, er.EpsPrimal, er.EpsDual, er.Rho
	m.res.Bytes = int64(prep.bytes(d, &opt))
	total := time.Since(start)
	m.res.Time = FitTimes{
		Total: total, Setup: setup,
		QUpdate: p.tQ, BetaUpdate: p.tBeta, TUpdate: p.tT,
		Engine: total - setup - p.tQ - p.tBeta - p.tT,
	}
	return m, nil
}

// checkFit validates Fit's arguments before any work and returns the
// options with their defaults filled in.
func checkFit(ctx context.Context, d *Dataset, opt Options) (Options, error) {
	if err := d.checkUsable("Fit"); err != nil {
		return opt, err
	}
	if ctx == nil {
		return opt, fmt.Errorf("%w: Fit: nil context", ErrBadInput)
	}
	if err := opt.Validate(); err != nil {
		return opt, err
	}
	opt = opt.withDefaults()
	if err := checkBytes(d, &opt, fitBytes(d, &opt)); err != nil {
		return opt, err
	}
	if pos, nb := d.Positives(), d.NumBags(); pos == 0 || pos == nb {
		return opt, oneClassError{bags: nb, label: d.Labels()[0]}
	}
	if err := ctx.Err(); err != nil {
		return opt, fmt.Errorf("mil: Fit: %w", err)
	}
	return opt, nil
}

// checkBytes returns the error for an estimate need above opt.MaxBytes.
func checkBytes(d *Dataset, opt *Options, need float64) error {
	if need > float64(opt.MaxBytes) {
		return fmt.Errorf("%w: %w: Fit: %d bags, %d instances, %d features need about %.3g bytes (Gram matrix, work vectors%s); Options.MaxBytes = %d (raise it to allow this)",
			ErrBadInput, ErrTooLarge, d.NumBags(), d.NumInstances(), d.NumFeatures(), need, map[bool]string{true: ", a copy of the features"}[need > fitBytes(d, opt)], opt.MaxBytes)
	}
	return nil
}

// fitBytes estimates what Fit allocates for d (in float64, which cannot
// overflow for any dataset size), scaling folded into the products (no
// copy of the features): the Gram matrix when the beta-update may use it,
// the column statistics, the view's and FISTA's vectors over the features,
// and the vectors over the instances and bags. A fit that copies the
// features (see prepare) adds copyBytes, checked once it knows.
func fitBytes(d *Dataset, opt *Options) float64 {
	ni, nb, nf := float64(d.NumInstances()), float64(d.NumBags()), float64(d.NumFeatures())
	gram := 0.0
	if d1 := nf + 1; opt.Beta == BetaGram || (opt.Beta == BetaAuto && d1 <= gramMaxDim) {
		gram = d1 * d1 * 8
	}
	return gram + 8*(32*(nf+1)+12*ni+10*nb)
}

// copyBytes estimates a copy of d's features (standardized, or in one
// block).
func copyBytes(d *Dataset) float64 {
	if d.IsSparse() {
		return float64(d.NNZ())*12 + float64(d.NumInstances()+1)*8
	}
	return float64(d.NumInstances()) * float64(d.NumFeatures()) * 8
}

// gramMaxDim is the largest D+1 for which BetaAuto considers the Gram
// matrix.
const gramMaxDim = 4096

// prepared is the setup of a fit that does not depend on lambda, the
// pooling or the weights: the view of the features the solver works on
// (see xview), the Gram matrix and FISTA's step constant. It is
// read-only once built, so the fits of FitCV share it across settings and
// goroutines (each problem clones the view's scratch).
type prepared struct {
	// x is the solver's view; back maps its coefficients to the raw
	// features. They are the same view when the scaling is folded into
	// the products; with a standardized copy (copyData), x is the copy
	// itself and back the standardization.
	x, back xview
	path    BetaSolver
	gram    []float64 // (D+1)^2 for BetaGram
	lip     float64
	// means is the dataset of bag means (or maxima) a mean-pooling (or
	// feature-max) fit solves on (nil for the other poolings); x and back
	// are views of it.
	means *Dataset
}

// bytes returns Fit's estimate of what it allocated for pr (see fitBytes).
func (pr *prepared) bytes(d *Dataset, opt *Options) float64 {
	b := fitBytes(d, opt)
	if pr.means != nil {
		b += copyBytes(pr.means)
		d = pr.means
	}
	if pr.x.d != d {
		b += copyBytes(d)
	}
	return b
}

// meanBytes bounds the bag means' or maxima's storage (bagMeans,
// bagMaxes): one row per bag, at most d's entries when sparse.
func meanBytes(d *Dataset) float64 {
	if d.IsSparse() {
		return float64(d.NNZ())*12 + float64(d.NumBags()+1)*8
	}
	return float64(d.NumBags()) * float64(d.NumFeatures()) * 8
}

// forceCopy makes prepare standardize a copy even when folding is
// accurate (a test hook: the copy is the reference the folded products
// are compared against).
var forceCopy = false

// prepare builds the setup of a fit of d under opt, checking ctx between
// (and inside) its phases.
func prepare(ctx context.Context, d *Dataset, opt *Options) (*prepared, error) {
	pr := &prepared{}
	if k := opt.Pooling.Kind; k == PoolMean || k == PoolFeatureMax {
		// Solved on the bag means or maxima (see bagmean.go):
		// everything below, the scaling included, applies to them.
		if err := checkBytes(d, opt, fitBytes(d, opt)+meanBytes(d)); err != nil {
			return nil, err
		}
		summary, what := bagMeans, "bag means"
		if k == PoolFeatureMax {
			summary, what = bagMaxes, "bag maxima"
		}
		md, err := summary(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("mil: Fit: %s: %w", what, err)
		}
		pr.means, d = md, md
	}
	// held is what the fit already holds besides fitBytes(d): the bag
	// means, which a copy below comes on top of.
	held := 0.0
	if pr.means != nil {
		held = copyBytes(pr.means)
	}
	nnz := d.NumInstances() * d.NumFeatures() // the cost of a dense product
	if d.IsSparse() {
		nnz = d.NNZ()
	}
	switch opt.Scaling {
	case ScaleAuto:
		st, err := fitColumns(ctx, d)
		if err != nil {
			return nil, err // "mil: FitScaler: ...", ctx's error or ErrBadInput
		}
		// Centered: the bias is not penalized, so centering changes the
		// conditioning of the beta-update, not the problem. Sparse data
		// is centered by folding only (see standardView), so its
		// offsets never block folding, and its copy is scaled only.
		sparse := d.IsSparse()
		pr.back = standardView(d, st, true)
		pr.x = pr.back
		if forceCopy || !foldable(st, !sparse) {
			if err := checkBytes(d, opt, fitBytes(d, opt)+held+copyBytes(d)); err != nil {
				return nil, err
			}
			if sparse {
				pr.back = standardView(d, st, false)
			}
			data, n, err := pr.back.copyData(ctx)
			if err != nil {
				return nil, err
			}
			pr.x, nnz = newView(data), n
		}
	case ScaleNone:
		amax, err := maxAbs(ctx, d)
		if err != nil {
			return nil, err
		}
		pr.back = uniformView(d, amax)
		pr.x = pr.back
	}
	if pr.x.d == d && !d.IsSparse() && len(d.runs) > 1 {
		// A dense subset of several runs (a cross-validation fold) is
		// copied into one block, unscaled, as Materialize does: the
		// solver runs hundreds of products on it, and the dense kernels
		// need one block to run blocked (measured 1.2x per product pair,
		// see Materialize). Data already in one block, such as a whole
		// loaded dataset, is never copied.
		if err := checkBytes(d, opt, fitBytes(d, opt)+held+copyBytes(d)); err != nil {
			return nil, err
		}
		raw := newView(d)
		data, _, err := raw.copyData(ctx)
		if err != nil {
			return nil, err
		}
		pr.x.d = data
	}
	nf, ni := d.NumFeatures(), d.NumInstances()
	pr.path = opt.Beta
	if pr.path == BetaAuto {
		pr.path = BetaDirect
		d1 := nf + 1
		if d1 <= gramMaxDim && d1*d1 < 2*(nnz+ni) {
			pr.path = BetaGram
		}
	}
	d1 := nf + 1
	var mul func(dst, x []float64)
	if pr.path == BetaGram {
		pr.gram = make([]float64, d1*d1)
		if err := pr.x.gram(ctx, pr.gram); err != nil {
			return nil, fmt.Errorf("mil: Fit: Gram matrix: %w", err)
		}
		mul = func(dst, x []float64) { vec.MulVec(dst, pr.gram, d1, d1, x) }
	} else {
		r := make([]float64, ni)
		xv := pr.x.clone()
		mul = func(dst, x []float64) {
			xv.mulVec(r, x[:nf], x[nf])
			xv.mulTransVec(dst, r)
		}
	}
	var err error
	if pr.lip, err = lipschitz(ctx, d1, mul); err != nil {
		return nil, err
	}
	if !(pr.lip > 0) || math.IsInf(pr.lip, 0) {
		// Not seen on finite data (the views keep it in range); kept so
		// that it would be reported as the data's, not FISTA's, problem.
		return nil, fmt.Errorf("%w: Fit: the features' scale is out of range: the beta-update's Lipschitz constant is %g", ErrBadInput, pr.lip)
	}
	return pr, nil
}

// maxAbs returns the largest magnitude among d's feature values, checking
// ctx every ctxEvery values.
func maxAbs(ctx context.Context, d *Dataset) (float64, error) {
	tk := ticker{ctx: ctx, left: ctxEvery}
	m := 0.0
	var err error
	if d.IsSparse() {
		err = d.eachSparseRow(&tk, func(_ []int32, v []float64) {
			for _, x := range v {
				m = max(m, math.Abs(x))
			}
		})
	} else {
		err = d.eachDenseRow(&tk, func(x []float64) {
			for _, v := range x {
				m = max(m, math.Abs(v))
			}
		})
	}
	if err != nil {
		return 0, fmt.Errorf("mil: Fit: %w", err)
	}
	return m, nil
}

// copyCheckCells is how many values copyData copies between checks of its
// context: well under a millisecond of work.
const copyCheckCells = 1 << 16

// ctxErr returns ctx's error wrapped for Fit, or nil.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mil: Fit: %w", err)
	}
	return nil
}

// state is the iterate of a solve: x1 = (q, beta, beta0), t and the
// multipliers y. A fresh state is beta = 0 (and everything else 0); a
// state left by one solve warm-starts the next (FitCV's lambda path).
type state struct {
	x1, t, y []float64
	sv       neadmm.Solver
}

func newState(p *problem) *state {
	nb, ni := p.nb, p.x.d.NumInstances()
	return &state{x1: make([]float64, nb+p.nf+1), t: make([]float64, ni), y: make([]float64, nb+ni)}
}

// solve runs the engine on p from st (left holding the final iterate) with
// the initial penalty rho and returns the engine's result and whether the
// objective test stopped it.
func solve(ctx context.Context, p *problem, st *state, opt *Options, rho float64) (er neadmm.Result, stalled bool, err error) {
	scale := p.objScale()
	var cb func(neadmm.Iteration) bool
	if opt.Callback != nil {
		cb = func(it neadmm.Iteration) bool {
			it.Objective *= scale
			return opt.Callback(it)
		}
	}
	eo := opt.engine(opt.MaxIter, cb, objectiveStop(opt.ObjTol, scale))
	eo.Rho = rho
	if eo.RhoMax != 0 {
		eo.RhoMax = max(eo.RhoMax, rho)
	}
	er, err = st.sv.Solve(ctx, p, st.x1, st.t, st.y, eo)
	return er, er.Reason == neadmm.StopTest, err
}

// objectiveStop returns the engine's second stopping test for ObjTol (nil
// for objTol = 0): the primal residual within its tolerance and the
// objective (times scale, to the options' Loss scale) changed by at most
// objTol*max(1, |objective|) over the last ObjWindow iterations.
func objectiveStop(objTol, scale float64) func(neadmm.Iteration) bool {
	if objTol == 0 {
		return nil
	}
	var hist [ObjWindow]float64 // objectives of the last iterations, by K mod ObjWindow
	return func(it neadmm.Iteration) bool {
		obj := it.Objective * scale
		old := &hist[it.K%ObjWindow]
		stalled := it.K > ObjWindow && it.Primal <= it.EpsPrimal &&
			math.Abs(obj-*old) <= objTol*max(1, math.Abs(obj))
		*old = obj
		return stalled
	}
}

// newModel builds the model of the solution x1 (t is scratch), with the
// objective and the coefficients on the raw features (mapped by back).
func newModel(p *problem, x1, t []float64, back *xview, opt *Options) *Model {
	nf := p.nf
	theta := x1[p.nb:]
	obj := p.trueObjective(theta, t)
	pen := p.lambda * vec.Asum(theta[:nf])
	scale := p.objScale()
	m := &Model{beta: make([]float64, nf), beta0: theta[nf], opt: *opt}
	m.opt.Callback = nil
	m.beta0 = back.toRaw(m.beta, theta[:nf], m.beta0)
	m.res = FitResult{
		Objective: obj * scale, Loss: (obj - pen) * scale,
		InnerIterations: p.inner, Beta: p.path, Sparse: p.x.d.IsSparse(), Lipschitz: p.fopt.L,
	}
	for _, b := range m.beta {
		if b != 0 {
			m.res.NonZero++
		}
	}
	return m
}

// oneClassError is Fit's error for training bags of a single class. It
// matches ErrOneClass and ErrBadInput under errors.Is, but says what went
// wrong for a fit rather than ErrOneClass's "metric undefined".
type oneClassError struct {
	bags  int
	label float64
}

func (e oneClassError) Error() string {
	return fmt.Sprintf("mil: Fit: all %d training bags have label %v; a fit needs bags of both classes", e.bags, e.label)
}

func (e oneClassError) Is(target error) bool { return target == ErrOneClass || target == ErrBadInput }

// newProblem builds the neadmm problem of opt (its lambda, pooling,
// weights and inner solver settings) on prepared data.
func newProblem(pr *prepared, opt *Options) *problem {
	data := pr.x.d
	nb, nf, ni := data.NumBags(), data.NumFeatures(), data.NumInstances()
	p := &problem{
		x: pr.x.clone(), bagPtr: data.BagPtr(), nb: nb, nf: nf,
		sign: make([]float64, nb), weight: make([]float64, nb),
		v: make([]float64, ni), phi: make([]float64, ni),
		xb: make([]float64, ni), xbTheta: make([]float64, nf+1),
		tpool: make([]float64, nb), pool: opt.Pooling, path: pr.path,
	}
	if opt.Pooling.Kind != PoolMax {
		largest := 0
		for k := range nb {
			largest = max(largest, p.bagPtr[k+1]-p.bagPtr[k])
		}
		p.scratch = make([]float64, largest)
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
	p.lambda = opt.Lambda * pr.back.penaltyScale()
	if p.lambdaMean = opt.Loss == MeanLoss; p.lambdaMean {
		p.lambda *= float64(nb)
	}
	// A lambda that overflows here fits beta = 0 (its limit), where the
	// penalty is lambda x 0: kept finite, that is 0, not NaN.
	p.lambda = min(p.lambda, math.MaxFloat64)
	if pr.path == BetaGram {
		p.lasso = newLassoGram(&p.x, pr.gram)
	} else {
		p.lasso = newLassoDirect(&p.x)
	}
	p.fopt = neadmm.FISTAOptions{MaxIter: opt.InnerMaxIter, Tol: opt.InnerTol, L: pr.lip}
	return p
}

// objScale maps the sum-scale objective to the options' Loss scale.
func (p *problem) objScale() float64 {
	if p.lambdaMean {
		return 1 / float64(p.nb)
	}
	return 1
}

// NumFeatures returns the number of features the model expects (0 for a
// nil model).
func (m *Model) NumFeatures() int {
	if m == nil {
		return 0
	}
	return len(m.beta)
}

// Coefficients returns a copy of beta and the bias beta0 on the raw
// features: the score of an instance x is x . beta + beta0. A nil model
// has none. For an ensemble they are the weighted mean of its parts'.
func (m *Model) Coefficients() (beta []float64, beta0 float64) {
	if m == nil {
		return nil, 0
	}
	return append([]float64(nil), m.beta...), m.beta0
}

// Result returns the diagnostics of the fit (zero for a nil model); for an
// ensemble, its first part's with NonZero counted on the mean coefficients.
func (m *Model) Result() FitResult {
	if m == nil {
		return FitResult{}
	}
	return m.res
}

// Options returns the options the model was fitted with (defaults filled
// in, Callback nil), the zero Options for a nil model; for an ensemble,
// its first part's (Parts has the others).
func (m *Model) Options() Options {
	if m == nil {
		return Options{}
	}
	return m.opt
}

// Pooling returns the bag score rule of the model (of an ensemble's first
// part).
func (m *Model) Pooling() Pooling { return m.Options().Pooling }

func (m *Model) check(d *Dataset, fn string) error {
	if m == nil {
		return fmt.Errorf("%w: Model.%s: nil model", ErrBadInput, fn)
	}
	if d == nil || !d.usable() {
		// Named only on failure: building "Model."+fn on every call
		// would allocate in the zero-allocation prediction methods.
		return d.checkUsable("Model." + fn)
	}
	switch {
	case d.NumFeatures() != len(m.beta):
		return fmt.Errorf("%w: Model.%s: dataset has %d features, model %d", ErrBadInput, fn, d.NumFeatures(), len(m.beta))
	}
	return nil
}

func checkLen(fn, what string, got, want int) error {
	if got != want {
		return fmt.Errorf("%w: Model.%s: len(%s) = %d, want %d", ErrBadInput, fn, what, got, want)
	}
	return nil
}

// InstanceScoresTo sets dst[i] = x_i . beta + beta0 for every instance of d
// (dataset order): the scores the pooling turns into bag scores, so the
// instances scoring highest are those that make a bag positive. It
// allocates nothing. It returns an error wrapping ErrBadInput if m or d is
// nil, d has another number of features than the model, or
// len(dst) != d.NumInstances(). A score that overflows is left ±Inf or
// NaN in dst (see BagScoresTo).
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
// score) for every bag k with its range and score (NaN when it is not
// finite). It returns an error naming the first bag whose score is not
// finite, after calling f for every bag.
//
// For an ensemble, acc (len NumBags, may be the caller's dst: f(k) may
// overwrite acc[k]) receives the ensemble's bag scores first, and inst then
// the instance scores of the mean coefficients; with acc nil (witnesses)
// a bag's q is the max of those instance scores, only to flag overflow.
func (m *Model) bagScores(fn string, inst []float64, d *Dataset, nout, want int, acc []float64, f func(k, start, end int, q float64)) error {
	if err := m.check(d, fn); err != nil {
		return err
	}
	if err := checkLen(fn, "dst", nout, want); err != nil {
		return err
	}
	if err := checkLen(fn, "inst", len(inst), d.NumInstances()); err != nil {
		return err
	}
	ens := len(m.parts) > 0
	if ens && acc != nil {
		m.ensembleScores(acc, inst, d)
	}
	d.MulVec(inst, m.beta, m.beta0)
	var fm *featMaxScratch
	if !ens && m.opt.Pooling.Kind == PoolFeatureMax && d.IsSparse() {
		fm = featMaxPool.Get().(*featMaxScratch)
		defer featMaxPool.Put(fm)
	}
	ptr := d.BagPtr()
	bad, nbad := -1, 0
	for k := range d.NumBags() {
		a, b := ptr[k], ptr[k+1]
		var q float64
		switch {
		case !ens:
			q = m.poolBag(inst, d, k, a, b, fm)
		case acc != nil:
			q = acc[k]
		default:
			q = poolValue(inst[a:b], 1, nil)
		}
		if !num.Finite(q) {
			q = math.NaN()
			if nbad++; bad < 0 {
				bad = k
			}
		}
		f(k, a, b, q)
	}
	if bad >= 0 {
		return fmt.Errorf("%w: Model.%s: %d bags (the first: bag %d) have a score that is not finite: their features are too large for the model's coefficients (the products overflow); their outputs are NaN (-1 for witnesses)",
			ErrBadInput, fn, nbad, bad)
	}
	return nil
}

// poolBag returns the score of bag k of d (instances a to b-1, their
// scores in inst) under m's pooling; m is not an ensemble. fm is scratch
// for FeatureMaxPooling on sparse data (see bagFeatureMax).
func (m *Model) poolBag(inst []float64, d *Dataset, k, a, b int, fm *featMaxScratch) float64 {
	if m.opt.Pooling.Kind == PoolFeatureMax {
		return d.bagFeatureMax(k, m.beta, m.beta0, fm)
	}
	return poolValue(inst[a:b], m.opt.Pooling.k(b-a), nil)
}

// BagScoresTo sets dst[k] to the score of bag k of d, P(x_kj . beta +
// beta0) with the model's pooling P (with FeatureMaxPooling, (max_j x_kj)
// . beta + beta0, the max taken per feature), using inst (len d.NumInstances()) for
// the instance scores, which it leaves there. It allocates nothing. It
// returns an error wrapping ErrBadInput if m or d is nil, d has another
// number of features than the model, or a buffer has the wrong length; and
// also, after filling every output, if a bag's score is not finite (its
// features so large that the products overflow): those bags' dst[k] are
// then NaN. dst and inst must not overlap.
func (m *Model) BagScoresTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("BagScoresTo", inst, d, len(dst), bagsOf(d), dst, func(k, _, _ int, q float64) { dst[k] = q })
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
// inst as for BagScoresTo. It allocates nothing; errors and NaN outputs as
// BagScoresTo.
func (m *Model) BagProbabilitiesTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("BagProbabilitiesTo", inst, d, len(dst), bagsOf(d), dst, func(k, _, _ int, q float64) {
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
// BagScoresTo, whose NaN scores give the label NaN (neither class).
func (m *Model) PredictTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("PredictTo", inst, d, len(dst), bagsOf(d), dst, func(k, _, _ int, q float64) {
		switch {
		case q >= 0:
			dst[k] = 1
		case q < 0:
			dst[k] = 0
		default:
			dst[k] = math.NaN()
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
// score under max pooling and the strongest of the instances pooled
// otherwise (under FeatureMaxPooling, which pools features rather than
// scores, the instance the coefficients rank highest). Ties go to the
// first instance. inst is as for BagScoresTo. It
// allocates nothing; errors as BagScoresTo, whose bags without a finite
// score get the witness -1.
func (m *Model) WitnessesTo(dst []int, inst []float64, d *Dataset) error {
	return m.bagScores("WitnessesTo", inst, d, len(dst), bagsOf(d), nil, func(k, a, b int, q float64) {
		dst[k] = -1
		if q != q {
			return
		}
		best := a
		for j := a + 1; j < b; j++ {
			if inst[j] > inst[best] {
				best = j
			}
		}
		dst[k] = best
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
