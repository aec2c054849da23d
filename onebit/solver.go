package onebit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// Start selects the starting point of a solve.
type Start int

const (
	// StartBackprojection (the zero value, the default) starts from
	// Phi^T y / ||Phi^T y||, the passive estimate without thresholding
	// (from e_1 in the degenerate case Phi^T y = 0).
	StartBackprojection Start = iota
	// StartRandom starts from a direction drawn uniformly on the sphere
	// with Options.Seed.
	StartRandom
	// StartGiven starts from the x passed to Solve, normalized.
	StartGiven
)

// String returns the start's name.
func (s Start) String() string {
	switch s {
	case StartBackprojection:
		return "backprojection"
	case StartRandom:
		return "random"
	case StartGiven:
		return "given"
	}
	return fmt.Sprintf("Start(%d)", int(s))
}

// Options configures Solver.Solve. Start from DefaultOptions or
// PaperOptions and change fields; every field is checked, none has a
// hidden default except RhoGrowth.
type Options struct {
	// Lambda is the weight of the consistency loss; finite and > 0.
	Lambda float64
	// Rho is the initial penalty; finite and > 0.
	Rho float64
	// Policy is the rho schedule (see package neadmm).
	Policy neadmm.RhoPolicy
	// RhoGrowth is the factor per iteration of neadmm.RhoGeometric; 0
	// means neadmm.DefaultRhoGrowth (1.02).
	RhoGrowth float64
	// MaxIter caps the outer (neADMM) iterations; > 0.
	MaxIter int
	// EpsAbs and EpsRel are the engine's stopping tolerances (see
	// neadmm.Options.EpsAbs); finite and >= 0.
	EpsAbs, EpsRel float64
	// InnerMaxIter caps the FISTA steps of each x-update; > 0.
	InnerMaxIter int
	// InnerTol stops FISTA when a step changes x by at most InnerTol
	// relative to max(1, ||x||); finite and >= 0.
	InnerTol float64
	// Start is the starting point.
	Start Start
	// Seed seeds the random start (StartRandom only).
	Seed uint64
	// Callback, if not nil, is called after every outer iteration (see
	// neadmm.Options.Callback); with it set, every iteration also
	// evaluates the objective (one more product with Phi).
	Callback func(neadmm.Iteration) (stop bool)
}

// DefaultOptions returns the settings this package recommends for the
// paper's problem: the paper's lambda = 0.01 and 100 iterations, but a
// fixed rho = 10 instead of the paper's fixed rho = 1, which stalls (see
// PaperOptions, and the package documentation for the measurement behind
// the choice).
func DefaultOptions() Options {
	return Options{
		Lambda:       0.01,
		Rho:          10,
		Policy:       neadmm.RhoFixed,
		MaxIter:      100,
		EpsAbs:       1e-6,
		EpsRel:       1e-4,
		InnerMaxIter: 200,
		InnerTol:     1e-6,
	}
}

// PaperOptions returns the paper's settings (section 4.1): lambda = 0.01,
// a fixed rho = 1 and 100 iterations, with DefaultOptions' tolerances and
// inner solver. A fixed rho = 1 typically does not converge on this problem
// (w flips sign between iterations); it is kept to reproduce the paper.
func PaperOptions() Options {
	o := DefaultOptions()
	o.Rho = 1
	o.Policy = neadmm.RhoFixed
	return o
}

func (o *Options) check() error {
	switch {
	case !(o.Lambda > 0) || !num.Finite(o.Lambda):
		return fmt.Errorf("%w: Lambda = %g, want finite and > 0", ErrBadInput, o.Lambda)
	case !(o.Rho > 0) || !num.Finite(o.Rho):
		return fmt.Errorf("%w: Rho = %g, want finite and > 0", ErrBadInput, o.Rho)
	case o.MaxIter <= 0 || o.InnerMaxIter <= 0:
		return fmt.Errorf("%w: MaxIter = %d, InnerMaxIter = %d, want both > 0", ErrBadInput, o.MaxIter, o.InnerMaxIter)
	case !(o.InnerTol >= 0) || !num.Finite(o.InnerTol):
		return fmt.Errorf("%w: InnerTol = %g, want finite and >= 0", ErrBadInput, o.InnerTol)
	case !(o.EpsAbs >= 0 && o.EpsRel >= 0) || !num.Finite(o.EpsAbs) || !num.Finite(o.EpsRel):
		return fmt.Errorf("%w: EpsAbs, EpsRel = %g, %g, want finite and >= 0", ErrBadInput, o.EpsAbs, o.EpsRel)
	case o.Start < StartBackprojection || o.Start > StartGiven:
		return fmt.Errorf("%w: unknown Start %d", ErrBadInput, int(o.Start))
	}
	if err := o.engine().Validate(); err != nil { // Policy, RhoGrowth
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return nil
}

func (o *Options) engine() neadmm.Options {
	return neadmm.Options{
		Rho: o.Rho, Policy: o.Policy, RhoGrowth: o.RhoGrowth,
		EpsAbs: o.EpsAbs, EpsRel: o.EpsRel, MaxIter: o.MaxIter, Callback: o.Callback,
		// As before the objective became opt-in in the engine.
		IterationObjective: o.Callback != nil, FinalObjective: o.Callback != nil,
	}
}

// Result reports a solve.
type Result struct {
	// Iterations is the number of outer (neADMM) iterations.
	Iterations int
	// Reason tells why the solve ended.
	Reason neadmm.StopReason
	// Primal and Dual are ||r|| and ||s|| of the last iteration; Rho is
	// the rho it used.
	Primal, Dual, Rho float64
	// Objective is the paper's objective at the returned (unit-norm) x
	// with the solve's lambda.
	Objective float64
	// InnerIterations counts the FISTA steps of all x-updates.
	InnerIterations int
	// Products counts the matrix-vector products with Phi or Phi^T, the
	// unit of cost (2MN flops each), and TransProducts those of them with
	// Phi^T. Each FISTA step costs one Phi x and, unless every
	// measurement is satisfied, one Phi^T r; the objectives at the end
	// (the engine's and Objective above) one Phi x each. The start
	// Phi^T y is not counted.
	Products, TransProducts int
}

// Solver holds the workspace of Solve and Recover. The zero value is
// ready; the first solve of a problem size allocates its buffers, later
// solves of that size or smaller allocate nothing. A Solver must not be
// used by several goroutines at once; Solvers are independent.
type Solver struct {
	admm neadmm.Solver
	sp   splitting
	w    []float64 // x2 of the engine (N)
	dual []float64 // y of the engine (1+N)
	tmp  []float64 // N: weights
	keep []float64 // N: the estimate before a refit
	biht bihtWork
}

func (s *Solver) resize(p *Problem) {
	s.sp.resize(p.m, p.n)
	s.w = buf.Grow(s.w, p.n)
	s.dual = buf.Grow(s.dual, 1+p.n)
	s.tmp = buf.Grow(s.tmp, p.n)
	s.keep = buf.Grow(s.keep, p.n)
}

// Solve runs neADMM (Algorithm 2 of the paper) on
//
//	min_x ||x||_1 + (opt.Lambda/2) sum_i min(y_i (Phi x)_i, 0)^2  s.t. ||x||_2 = 1
//
// and writes the unit-norm estimate into x (len(x) must be N). The estimate
// is the x-iterate of the last iteration (sparse: a soft-thresholding
// output) normalized, or the w-iterate if x is zero; at convergence the two
// agree. With opt.Start == StartGiven, x also holds the starting point.
//
// Solve returns an error wrapping ErrBadInput, before any work, for invalid
// options (the engine's included), len(x) != N, or a StartGiven x that is
// zero or not finite (any finite non-zero x, however small or large, is a
// valid start). It
// returns the engine's errors (wrapping context.Canceled and the like on
// cancellation, or neadmm.ErrNotFinite) during the solve; x then holds the
// normalized last iterate when it is finite. The Result is meaningful in
// every case.
func (s *Solver) Solve(ctx context.Context, p *Problem, x []float64, opt Options) (Result, error) {
	res := Result{Objective: math.NaN(), Rho: opt.Rho}
	if err := opt.check(); err != nil {
		return res, err
	}
	if len(x) != p.n {
		return res, fmt.Errorf("%w: len(x) = %d, want N = %d", ErrBadInput, len(x), p.n)
	}
	if opt.Start == StartGiven {
		for j, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return res, fmt.Errorf("%w: StartGiven: x[%d] = %g, want finite", ErrBadInput, j, v)
			}
		}
		if vec.Nrm2(x) == 0 {
			return res, fmt.Errorf("%w: StartGiven: x = 0, want a non-zero start", ErrBadInput)
		}
	}
	s.resize(p)
	switch opt.Start {
	case StartBackprojection:
		backprojection(x, p)
	case StartRandom:
		r := rand.New(rand.NewPCG(opt.Seed, 0x72616e646f6d)) // "random"
		for j := range x {
			x[j] = r.NormFloat64()
		}
	}
	normalize(x)
	copy(s.w, x)
	clear(s.dual)
	return s.run(ctx, p, x, opt, nil)
}

// normalize scales x to unit norm and reports whether it could: it leaves
// a zero or non-finite x as it is and returns false. A norm that overflows
// (finite entries near MaxFloat64) or whose reciprocal does (subnormal
// entries) is first brought into range by an exact power-of-two scaling.
func normalize(x []float64) bool {
	nx := vec.Nrm2(x)
	switch {
	case nx == 0 || math.IsNaN(nx):
		return false
	case math.IsInf(nx, 1):
		for _, v := range x {
			if math.IsInf(v, 0) {
				return false
			}
		}
		vec.Scal(0x1p-4, x)
		nx = vec.Nrm2(x)
	case nx < 0x1p-1000:
		vec.Scal(0x1p1000, x)
		nx = vec.Nrm2(x)
	}
	vec.Scal(1/nx, x)
	return true
}

// backprojection sets x = Phi^T y (e_1 if that is zero), not normalized.
func backprojection(x []float64, p *Problem) {
	vec.MulTransVec(x, p.phi, p.m, p.n, p.y)
	if vec.Nrm2(x) == 0 {
		clear(x)
		x[0] = 1
	}
}

// run solves from the x, s.w and s.dual in place (a warm start when they
// hold a previous solve's iterate), with L1 weights weight (nil: plain),
// and normalizes the estimate into x.
func (s *Solver) run(ctx context.Context, p *Problem, x []float64, opt Options, weight []float64) (Result, error) {
	sp := &s.sp
	sp.p, sp.lambda, sp.weight = p, opt.Lambda, weight
	sp.fopt = neadmm.FISTAOptions{L: 1, Tol: opt.InnerTol, MaxIter: opt.InnerMaxIter}
	sp.inner, sp.products, sp.trans = 0, 0, 0
	var prob neadmm.Problem = sp
	if opt.Callback != nil {
		prob = withObjective{sp}
	}
	er, err := s.admm.Solve(ctx, prob, x, s.w, s.dual, opt.engine())
	res := Result{
		Iterations: er.Iterations, Reason: er.Reason, Primal: er.Primal, Dual: er.Dual, Rho: er.Rho,
		Objective: math.NaN(),
	}
	if vec.Nrm2(x) == 0 {
		copy(x, s.w)
	}
	if normalize(x) {
		res.Objective = s.objective(p, x, opt.Lambda)
	}
	res.InnerIterations, res.Products, res.TransProducts = sp.inner, sp.products, sp.trans
	return res, err
}

// objective is Problem.Objective without allocating (it uses sp.ax and
// counts the product).
func (s *Solver) objective(p *Problem, x []float64, lambda float64) float64 {
	s.sp.mulPhi(x)
	return vec.Asum(x) + lambda*consistencyLoss(s.sp.ax, p.y)
}
