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

	// MaxBytes caps what Fit may allocate (its estimate of the scaled
	// copy of the features, the Gram matrix and the working vectors,
	// checked before any other work): a larger estimate fails with an
	// error wrapping ErrBadInput and ErrTooLarge. 0 means DefaultMaxBytes;
	// it must be >= 0.
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
	// matrix of the scaled features with the bias column).
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
// score. A Model is immutable and safe for concurrent use by multiple
// goroutines.
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
// Before any other work it returns an error wrapping ErrBadInput if d is
// nil, the options are
// invalid (Options.Validate), or the estimated memory exceeds
// Options.MaxBytes (then also wrapping ErrTooLarge); an error matching
// ErrOneClass if d holds one class; and ctx's error if ctx is already done.
// The setup (scaling, Gram matrix, power iteration) and every iteration
// check ctx, so a cancellation returns within milliseconds with ctx's error
// wrapped. During the solve it returns the engine's error (a non-finite
// iterate) and no model. A Callback asking to stop returns the current
// model.
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
	m := newModel(p, st.x1, st.t, prep.scaler, &opt)
	m.res.Iterations, m.res.Reason, m.res.Stalled = er.Iterations, er.Reason, stalled
	m.res.Primal, m.res.Dual, m.res.EpsPrimal, m.res.EpsDual, m.res.Rho = er.Primal, er.Dual, er.EpsPrimal, er.EpsDual, er.Rho
	m.res.Bytes = int64(fitBytes(d, &opt))
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
	if d == nil {
		return opt, fmt.Errorf("%w: Fit: nil dataset", ErrBadInput)
	}
	if err := opt.Validate(); err != nil {
		return opt, err
	}
	opt = opt.withDefaults()
	if need := fitBytes(d, &opt); need > float64(opt.MaxBytes) {
		return opt, fmt.Errorf("%w: %w: Fit: %d bags, %d instances, %d features need about %.3g bytes (scaled copy, Gram matrix, work vectors); Options.MaxBytes = %d (raise it to allow this)",
			ErrBadInput, ErrTooLarge, d.NumBags(), d.NumInstances(), d.NumFeatures(), need, opt.MaxBytes)
	}
	if pos, nb := d.Positives(), d.NumBags(); pos == 0 || pos == nb {
		return opt, oneClassError{bags: nb, label: d.Labels()[0]}
	}
	if err := ctx.Err(); err != nil {
		return opt, fmt.Errorf("mil: Fit: %w", err)
	}
	return opt, nil
}

// fitBytes estimates what Fit allocates for d (in float64, which cannot
// overflow for any dataset size): the solver's copy of the features
// (scaled, or materialized), the Gram matrix when the beta-update may use
// it, the scaler and FISTA's vectors over the features, and the vectors
// over the instances and bags.
func fitBytes(d *Dataset, opt *Options) float64 {
	ni, nb, nf := float64(d.NumInstances()), float64(d.NumBags()), float64(d.NumFeatures())
	data := ni * nf * 8
	if d.IsSparse() {
		data = float64(d.NNZ())*12 + (ni+1)*8
	}
	gram := 0.0
	if d1 := nf + 1; opt.Beta == BetaGram || (opt.Beta == BetaAuto && d1 <= gramMaxDim) {
		gram = d1 * d1 * 8
	}
	return data + gram + 8*(24*(nf+1)+10*ni+10*nb)
}

// gramMaxDim is the largest D+1 for which BetaAuto considers the Gram
// matrix.
const gramMaxDim = 4096

// prepared is the setup of a fit that does not depend on lambda, the
// pooling or the weights: the data the solver runs on, its scaler, the
// Gram matrix and FISTA's step constant. It is read-only once built, so
// the fits of FitCV share it across settings and goroutines.
type prepared struct {
	data   *Dataset // scaled (ScaleAuto) or materialized
	scaler *Scaler  // nil for ScaleNone
	path   BetaSolver
	gram   []float64 // (D+1)^2 for BetaGram
	lip    float64
}

// prepare builds the setup of a fit of d under opt, checking ctx between
// (and inside) its phases.
func prepare(ctx context.Context, d *Dataset, opt *Options) (*prepared, error) {
	pr := &prepared{}
	if opt.Scaling == ScaleAuto {
		var err error
		if pr.scaler, err = FitScaler(ctx, d); err != nil {
			return nil, err // "mil: FitScaler: ...", ctx's error or ErrBadInput
		}
	}
	data, nnz, err := solverCopy(ctx, d, pr.scaler)
	if err != nil {
		return nil, err
	}
	pr.data = data
	nf, ni := data.NumFeatures(), data.NumInstances()
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
		if err := data.gram(ctx, pr.gram); err != nil {
			return nil, fmt.Errorf("mil: Fit: Gram matrix: %w", err)
		}
		mul = func(dst, x []float64) { vec.MulVec(dst, pr.gram, d1, d1, x) }
	} else {
		r := make([]float64, ni)
		mul = func(dst, x []float64) {
			data.MulVec(r, x[:nf], x[nf])
			data.MulTransVec(dst, r)
		}
	}
	pr.lip, err = lipschitz(ctx, d1, mul)
	return pr, err
}

// copyCheckCells is how many values solverCopy copies between checks of
// its context: well under a millisecond of work.
const copyCheckCells = 1 << 16

// solverCopy returns the data the solver runs on: d's features in one
// contiguous block of d's storage kind (the solver runs many products on
// it, and one block keeps the dense kernels blocked), standardized by
// scaler when it is not nil (as Scaler.Apply would), checking ctx every
// copyCheckCells values. The copy has no ids: the solver needs none. It
// returns an error if a scaled value overflows.
func solverCopy(ctx context.Context, d *Dataset, scaler *Scaler) (*Dataset, int, error) {
	n, cols := d.NumInstances(), d.NumFeatures()
	if scaler != nil && d.IsSparse() {
		for _, mu := range scaler.Mean {
			if mu != 0 { // FitScaler never centers sparse data
				return nil, 0, fmt.Errorf("%w: Fit: a sparse dataset with a centering scaler", ErrBadInput)
			}
		}
	}
	m := &storage{rows: n, cols: cols}
	if d.IsSparse() {
		m.rowptr = make([]int, n+1)
		nnz := d.NNZ()
		m.colidx, m.values = make([]int32, 0, nnz), make([]float64, 0, nnz)
	} else {
		m.dense = make([]float64, n*cols)
	}
	work, nnz := 0, 0
	finite := true
	for _, r := range d.runs {
		for i := range r.n {
			src, dst := r.src+i, r.dst+i
			if d.IsSparse() {
				lo, hi := d.m.rowptr[src], d.m.rowptr[src+1]
				m.colidx = append(m.colidx, d.m.colidx[lo:hi]...)
				start := len(m.values)
				m.values = append(m.values, d.m.values[lo:hi]...)
				if scaler != nil {
					for p := start; p < len(m.values); p++ {
						m.values[p] /= scaler.Scale[m.colidx[p]]
					}
					finite = finite && num.AllFinite(m.values[start:])
				}
				m.rowptr[dst+1] = len(m.values)
				work += hi - lo + 1
			} else {
				x := m.dense[dst*cols : (dst+1)*cols]
				copy(x, d.m.dense[src*cols:(src+1)*cols])
				if scaler != nil {
					for j := range x {
						x[j] = (x[j] - scaler.Mean[j]) / scaler.Scale[j]
					}
					finite = finite && num.AllFinite(x)
				}
				for _, v := range x {
					if v != 0 {
						nnz++
					}
				}
				work += cols
			}
			if work >= copyCheckCells {
				work = 0
				if err := ctxErr(ctx); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	if d.IsSparse() {
		nnz = len(m.values)
	}
	if !finite {
		return nil, 0, fmt.Errorf("%w: Fit: a standardized feature value overflows", ErrBadInput)
	}
	out := &Dataset{
		m: m, runs: []run{{src: 0, dst: 0, n: n}},
		bagPtr: d.bagPtr, bagSrc: d.bagPtr[:len(d.bagPtr)-1],
		labels: d.labels, bagIDs: d.bagIDs,
	}
	return out, nnz, ctxErr(ctx)
}

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
	nb, ni := p.nb, p.data.NumInstances()
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
// objective and the coefficients on the raw features.
func newModel(p *problem, x1, t []float64, scaler *Scaler, opt *Options) *Model {
	nf := p.nf
	theta := x1[p.nb:]
	obj := p.trueObjective(theta, t)
	pen := p.lambda * vec.Asum(theta[:nf])
	scale := p.objScale()
	m := &Model{beta: make([]float64, nf), beta0: theta[nf], opt: *opt}
	m.opt.Callback = nil
	copy(m.beta, theta[:nf])
	if scaler != nil {
		m.beta0, _ = scaler.ToRaw(m.beta, m.beta, m.beta0) // lengths match by construction
	}
	m.res = FitResult{
		Objective: obj * scale, Loss: (obj - pen) * scale,
		InnerIterations: p.inner, Beta: p.path, Sparse: p.data.IsSparse(), Lipschitz: p.fopt.L,
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
	data := pr.data
	nb, nf, ni := data.NumBags(), data.NumFeatures(), data.NumInstances()
	p := &problem{
		data: data, bagPtr: data.BagPtr(), nb: nb, nf: nf,
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
	p.lambda = opt.Lambda
	if p.lambdaMean = opt.Loss == MeanLoss; p.lambdaMean {
		p.lambda *= float64(nb)
	}
	if pr.path == BetaGram {
		p.lasso = newLassoGram(data, pr.gram)
	} else {
		p.lasso = newLassoDirect(data)
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
// has none.
func (m *Model) Coefficients() (beta []float64, beta0 float64) {
	if m == nil {
		return nil, 0
	}
	return append([]float64(nil), m.beta...), m.beta0
}

// Result returns the diagnostics of the fit (zero for a nil model).
func (m *Model) Result() FitResult {
	if m == nil {
		return FitResult{}
	}
	return m.res
}

// Options returns the options the model was fitted with (defaults filled
// in, Callback nil), the zero Options for a nil model.
func (m *Model) Options() Options {
	if m == nil {
		return Options{}
	}
	return m.opt
}

// Pooling returns the bag score rule of the model.
func (m *Model) Pooling() Pooling { return m.Options().Pooling }

func (m *Model) check(d *Dataset, fn string) error {
	switch {
	case m == nil:
		return fmt.Errorf("%w: Model.%s: nil model", ErrBadInput, fn)
	case d == nil:
		return fmt.Errorf("%w: Model.%s: nil dataset", ErrBadInput, fn)
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
	bad, nbad := -1, 0
	for k := range d.NumBags() {
		a, b := ptr[k], ptr[k+1]
		q := poolValue(inst[a:b], m.opt.Pooling.k(b-a), nil)
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

// BagScoresTo sets dst[k] to the score of bag k of d, P(x_kj . beta +
// beta0) with the model's pooling P, using inst (len d.NumInstances()) for
// the instance scores, which it leaves there. It allocates nothing. It
// returns an error wrapping ErrBadInput if m or d is nil, d has another
// number of features than the model, or a buffer has the wrong length; and
// also, after filling every output, if a bag's score is not finite (its
// features so large that the products overflow): those bags' dst[k] are
// then NaN. dst and inst must not overlap.
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
// inst as for BagScoresTo. It allocates nothing; errors and NaN outputs as
// BagScoresTo.
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
// BagScoresTo, whose NaN scores give the label NaN (neither class).
func (m *Model) PredictTo(dst, inst []float64, d *Dataset) error {
	return m.bagScores("PredictTo", inst, d, len(dst), bagsOf(d), func(k, _, _ int, q float64) {
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
// otherwise. Ties go to the first instance. inst is as for BagScoresTo. It
// allocates nothing; errors as BagScoresTo, whose bags without a finite
// score get the witness -1.
func (m *Model) WitnessesTo(dst []int, inst []float64, d *Dataset) error {
	return m.bagScores("WitnessesTo", inst, d, len(dst), bagsOf(d), func(k, a, b int, q float64) {
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
