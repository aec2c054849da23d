package mil

import (
	"fmt"

	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
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
	// folding, where FitScaler's Mean is 0 for them). With MeanPooling,
	// which Fit solves on the bags' mean features (FeatureMaxPooling: on
	// their maxima; FeatureMeanMaxPooling: on both), it standardizes those
	// with their statistics over the training bags (each bag weighing the
	// same). The
	// standardization is folded into the products rather than applied to
	// a copy (see docs/mil.md), and a column constant on the
	// training instances (with the poolings solved on bag features: on
	// those, which a column varying only within the bags is too) is left out
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
	// Lambda (finite, >= 0) weighs the L1 penalty on beta (the bias is never
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
	// ObjTol (finite, >= 0) adds a second stopping test: the primal residual is
	// within its tolerance and the objective (at the ADMM iterate) changed
	// by at most ObjTol*max(1, |objective|) over the last ObjWindow
	// iterations. 0 disables it. Under a growing rho the dual residual
	// does not vanish (the iterates move by O(1/rho) per iteration, so
	// rho times their change stays O(1)) and this test is what stops the
	// fit; see docs/mil.md.
	ObjTol float64

	// Beta selects the beta-update's gradient path (BetaAuto by default).
	Beta BetaSolver
	// InnerMaxIter (>= 0) caps FISTA's iterations per beta-update; 0
	// means DefaultInnerMaxIter.
	InnerMaxIter int
	// InnerTol (finite, >= 0) is FISTA's relative step tolerance; 0
	// means DefaultInnerTol.
	InnerTol float64

	// MaxBytes (>= 0; 0 means DefaultMaxBytes) caps what Fit may
	// allocate: its estimate of the Gram matrix and the working vectors,
	// checked before any other work, and of a copy of the features,
	// checked before it is made (when ScaleAuto cannot fold the
	// standardization into the products or a dense subset is put into one
	// block). A larger estimate fails with an error wrapping ErrBadInput
	// and ErrTooLarge.
	MaxBytes int64

	// Callback, if not nil, is called after every outer iteration (see
	// neadmm.Options.Callback); returning true stops the fit, which then
	// returns the current model with Reason neadmm.StopCallback.
	// Iteration.Objective is in Loss's scale, evaluated at the ADMM
	// iterate (loss of q, not of max t).
	Callback func(neadmm.Iteration) (stop bool)
}

// DefaultOptions returns the defaults, chosen by measurement on fox and
// vaccine (see docs/mil-options.md and docs/defaults.md): mean logistic loss with Lambda =
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
