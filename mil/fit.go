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
	// NonZero counts the non-zero coefficients of beta (for
	// FeatureMeanMaxPooling, of its two parts; see Model.BagCoefficients).
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
	// Bytes is Fit's estimate of what it allocated (see Options.MaxBytes):
	// the largest of the estimates it checked against MaxBytes, so a fit
	// of the same data and options with MaxBytes = Bytes passes every
	// check.
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

// Fit trains a model on d: it minimizes the regularized logistic loss of
// the bag scores by neADMM (Algorithm 3 of the paper) with the updates
// described in the package documentation (# The learner), from beta = 0.
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
// non-finite iterate), wrapped with ErrBadInput, and no model. A model is returned only when its
// coefficients on the raw features and its scores of d's bags are all
// finite: features so small in magnitude (around 1e-308 and below) that
// the coefficients fitting them overflow are an error wrapping
// ErrBadInput, not a model that every later call refuses. A Callback
// asking to stop returns the current model (checked the same way).
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
	if err := m.usableOn(d, "Fit"); err != nil {
		return nil, err
	}
	m.res.Iterations, m.res.Reason, m.res.Stalled = er.Iterations, er.Reason, stalled
	m.res.Primal, m.res.Dual, m.res.EpsPrimal, m.res.EpsDual, m.res.Rho = er.Primal, er.Dual, er.EpsPrimal, er.EpsDual, er.Rho
	m.res.Bytes = int64(math.Ceil(max(prep.bytes(d, &opt), prep.checked)))
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
	if err := d.checkLabeled("Fit"); err != nil {
		return opt, err
	}
	if ctx == nil {
		return opt, fmt.Errorf("%w: Fit: nil context", ErrBadInput)
	}
	if err := opt.Validate(); err != nil {
		return opt, err
	}
	opt = opt.withDefaults()
	if err := checkBytes(d, &opt, fitBytes(d, &opt)+wideBytes(d, &opt)); err != nil {
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
	// checked is the largest estimate checked against Options.MaxBytes
	// while preparing (see FitResult.Bytes).
	checked float64
}

// forceCopy makes prepare standardize a copy even when folding is
// accurate (a test hook: the copy is the reference the folded products
// are compared against).
var forceCopy = false

// prepare builds the setup of a fit of d under opt, checking ctx between
// (and inside) its phases: the bag summaries that the mean and feature-max
// poolings solve on, the views of the features, the beta-update's path
// and FISTA's step constant.
func prepare(ctx context.Context, d *Dataset, opt *Options) (*prepared, error) {
	pr := &prepared{}
	if opt.Pooling.bagLevel() {
		// Solved on the bag means or maxima or both (see bagmean.go):
		// everything below, the scaling included, applies to them.
		md, err := pr.summarize(ctx, d, opt)
		if err != nil {
			return nil, err
		}
		pr.means, d = md, md
	}
	// held is what the fit already holds besides fitBytes(d): the bag
	// means, which a copy below comes on top of.
	held := 0.0
	if pr.means != nil {
		held = copyBytes(pr.means)
	}
	nnz, err := pr.scale(ctx, d, opt, held)
	if err != nil {
		return nil, err
	}
	if err := pr.oneBlock(ctx, d, opt, held); err != nil {
		return nil, err
	}
	nf, ni := d.NumFeatures(), d.NumInstances()
	pr.path = betaPath(opt.Beta, nf, ni, nnz)
	if err := pr.stepConstant(ctx, nf, ni); err != nil {
		return nil, err
	}
	return pr, nil
}

// summarize returns the bag summaries opt's pooling is solved on (the bag
// means for PoolMean, the bag maxima for PoolFeatureMax, both for
// PoolFeatureMeanMax), after checking their memory against opt.MaxBytes.
func (pr *prepared) summarize(ctx context.Context, d *Dataset, opt *Options) (*Dataset, error) {
	if err := pr.checkBytes(d, opt, fitBytes(d, opt)+wideBytes(d, opt)+meanBytes(d, opt.Pooling)); err != nil {
		return nil, err
	}
	summary, what := bagMeans, "bag means"
	switch opt.Pooling.Kind {
	case PoolFeatureMax:
		summary, what = bagMaxes, "bag maxima"
	case PoolFeatureMeanMax:
		summary, what = bagMeanMaxes, "bag means and maxima"
	}
	md, err := summary(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("mil: Fit: %s: %w", what, err)
	}
	return md, nil
}

// scale sets pr.x and pr.back, the views of d under opt.Scaling (see
// prepared), and returns the cost of one product with pr.x as BetaAuto
// counts it: the stored entries of sparse data, NumInstances*NumFeatures
// of dense data. held is what the fit holds besides fitBytes(d), counted
// against opt.MaxBytes with a copy.
func (pr *prepared) scale(ctx context.Context, d *Dataset, opt *Options, held float64) (int, error) {
	nnz := d.NumInstances() * d.NumFeatures() // the cost of a dense product
	if d.IsSparse() {
		nnz = d.NNZ()
	}
	switch opt.Scaling {
	case ScaleAuto:
		return pr.standardize(ctx, d, opt, held, nnz)
	case ScaleNone:
		amax, err := maxAbs(ctx, d)
		if err != nil {
			return 0, err
		}
		pr.back = uniformView(d, amax)
		pr.x = pr.back
	}
	return nnz, nil
}

// standardize is scale for ScaleAuto: the standardization is folded into
// the products where that is accurate (foldable), else (or with forceCopy)
// applied to a copy, which pr.x then is. nnz is the cost of a product
// with d; it returns that of a product with pr.x.
func (pr *prepared) standardize(ctx context.Context, d *Dataset, opt *Options, held float64, nnz int) (int, error) {
	st, err := fitColumns(ctx, d)
	if err != nil {
		return 0, err // "mil: FitScaler: ...", ctx's error or ErrBadInput
	}

	// Centered: the bias is not penalized, so centering changes the
	// conditioning of the beta-update, not the problem. Sparse data
	// is centered by folding only (see standardView), so its
	// offsets never block folding, and its copy is scaled only.
	sparse := d.IsSparse()
	pr.back = standardView(d, st, true)
	pr.x = pr.back
	if forceCopy || !foldable(st, !sparse) {
		if err := pr.checkBytes(d, opt, fitBytes(d, opt)+held+copyBytes(d)); err != nil {
			return 0, err
		}
		if sparse {
			pr.back = standardView(d, st, false)
		}
		data, n, err := pr.back.copyData(ctx)
		if err != nil {
			return 0, err
		}
		pr.x, nnz = newView(data), n
	}
	return nnz, nil
}

// oneBlock copies d into one block, unscaled, as Materialize does, when
// pr.x reads d itself and d is a dense subset of several runs (a
// cross-validation fold): the solver runs hundreds of products on it, and
// the dense kernels need one block to run blocked (see Materialize). Data
// already in one block, such as a whole loaded dataset, is never copied.
func (pr *prepared) oneBlock(ctx context.Context, d *Dataset, opt *Options, held float64) error {
	if pr.x.d != d || d.IsSparse() || len(d.runs) <= 1 {
		return nil
	}
	if err := pr.checkBytes(d, opt, fitBytes(d, opt)+held+copyBytes(d)); err != nil {
		return err
	}
	raw := newView(d)
	data, _, err := raw.copyData(ctx)
	if err != nil {
		return err
	}
	pr.x.d = data
	return nil
}

// betaPath resolves BetaAuto for nf features, ni instances and products
// costing nnz (see prepared.scale): BetaGram when one product with the
// Gram matrix, (nf+1)^2, costs less than one product pair with the data,
// 2(nnz+ni), and the matrix has at most gramMaxDim rows; else BetaDirect.
func betaPath(b BetaSolver, nf, ni, nnz int) BetaSolver {
	if b != BetaAuto {
		return b
	}
	if d1 := nf + 1; d1 <= gramMaxDim && d1*d1 < 2*(nnz+ni) {
		return BetaGram
	}
	return BetaDirect
}

// stepConstant sets pr.lip, FISTA's step constant: the largest eigenvalue
// of the Gram matrix of pr.x with the bias column (nf features, ni
// instances), by power iteration on pr.gram, which it builds, for
// BetaGram, or on the data's products for BetaDirect.
func (pr *prepared) stepConstant(ctx context.Context, nf, ni int) error {
	d1 := nf + 1
	var mul func(dst, x []float64)
	if pr.path == BetaGram {
		pr.gram = make([]float64, d1*d1)
		if err := pr.x.gram(ctx, pr.gram); err != nil {
			return fmt.Errorf("mil: Fit: Gram matrix: %w", err)
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
		return err
	}
	if !(pr.lip > 0) || math.IsInf(pr.lip, 0) {
		// Not seen on finite data (the views keep it in range); kept so
		// that it would be reported as the data's, not FISTA's, problem.
		return fmt.Errorf("%w: Fit: the features' scale is out of range: the beta-update's Lipschitz constant is %g", ErrBadInput, pr.lip)
	}
	return nil
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
// objective test stopped it. An engine error other than a cancellation
// (a non-finite iterate, a failed line search: data or options the fit
// cannot handle) is returned wrapping ErrBadInput as well, so that it
// matches mil's sentinel as every error input causes must.
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
	if err != nil && !isCtxErr(err) && !errors.Is(err, ErrBadInput) {
		err = fmt.Errorf("%w: the solver stopped: %w", ErrBadInput, err)
	}
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
	if w := opt.Pooling.width(); w > 1 {
		// The coefficients of the bag means and maxima (see
		// FeatureMeanMaxPooling); the instance coefficients are their sum.
		m.bag, m.beta = m.beta, instanceCoefficients(m.beta, nf/w)
	}
	m.res = FitResult{
		Objective: obj * scale, Loss: (obj - pen) * scale,
		InnerIterations: p.inner, Beta: p.path, Sparse: p.x.d.IsSparse(), Lipschitz: p.fopt.L,
	}
	coef := m.beta
	if m.bag != nil {
		coef = m.bag
	}
	for _, b := range coef {
		if b != 0 {
			m.res.NonZero++
		}
	}
	return m
}

// usableOn returns an error wrapping ErrBadInput, naming fn, when m's
// coefficients on the raw features are not all finite, or when its score
// of a bag of d, its training data, is not: features so small (or so
// spread in scale) that the coefficients that fit them in the solver's
// units overflow in the raw ones. Such a model would fail on every later
// call; a fit returns the error instead of it.
func (m *Model) usableOn(d *Dataset, fn string) error {
	if err := m.finiteCoefficients(fn); err != nil {
		return err
	}
	if _, err := m.BagScores(d); err != nil {
		return badInput("%s: the model's scores of its own training bags are not finite (the products of the features and the coefficients overflow); rescale the features", fn)
	}
	return nil
}

// finiteCoefficients is the first check of usableOn.
func (m *Model) finiteCoefficients(fn string) error {
	for j, b := range m.beta {
		if !num.Finite(b) {
			return badInput("%s: the coefficient of feature %d on the raw features is %v: the features are too small in magnitude for the model's coefficients; rescale them", fn, j, b)
		}
	}
	if !num.Finite(m.beta0) {
		return badInput("%s: the bias on the raw features is %v: the features are too small in magnitude for the model's coefficients; rescale them", fn, m.beta0)
	}
	return nil
}

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
