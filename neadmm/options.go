package neadmm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/vec"
)

// Problem is an instance of
//
//	min F1(x1) + F2(x2)  s.t.  f1(x1) + f2(x2) = 0,   x1 in R^n1, x2 in R^n2, f1, f2 into R^m,
//
// for the neADMM engine (Algorithm 1 of the paper). The engine owns the dual
// update, the residuals, rho and the stopping rule; the problem supplies the
// two subproblem minimizers of the augmented Lagrangian
//
//	L_rho(x1, x2, y) = F1(x1) + F2(x2) + y^T (f1(x1) + f2(x2)) + rho/2 ||f1(x1) + f2(x2)||^2,
//
// the constraint maps and one Jacobian-transpose product.
//
// y is always the unscaled multiplier. A subproblem that prefers the scaled
// form u = y/rho computes it from the rho it is given, so nothing needs
// rescaling when rho changes between iterations.
//
// The engine calls the methods with the caller's x1, x2, y and its own
// buffers; implementations must not retain the slices. All methods run on
// the goroutine that called Solver.Solve, one at a time.
type Problem interface {
	// Dims returns n1 = len(x1), n2 = len(x2) and m, the dimension of the
	// constraint; all must be >= 1.
	Dims() (n1, n2, m int)
	// UpdateX1 overwrites x1 with a minimizer of L_rho(., x2, y) (eq. 2),
	// warm-started from the x1 it receives. x2 and y are read-only.
	UpdateX1(x1, x2, y []float64, rho float64) error
	// UpdateX2 overwrites x2 with a minimizer of L_rho(x1, ., y) (eq. 3),
	// with x1 already updated. x1 and y are read-only.
	UpdateX2(x2, x1, y []float64, rho float64) error
	// Constraint1 sets dst (length m) to f1(x1).
	Constraint1(dst, x1 []float64)
	// Constraint2 sets dst (length m) to f2(x2).
	Constraint2(dst, x2 []float64)
	// Constraint1JacT sets dst (length n1) to J^T v, where J is the m x n1
	// Jacobian of f1 at x1 and v has length m. It gives the dual residual
	// s = rho*J^T (f2(x2^(k+1)) - f2(x2^k)) and, when EpsRel > 0, the
	// scale ||J^T y|| of the dual tolerance.
	Constraint1JacT(dst, x1, v []float64)
}

// Objectiver is implemented by problems that can evaluate their objective.
// The engine then reports it per iteration (only when Options.Callback is
// set: it may be costly) and in Result.
type Objectiver interface {
	// Objective returns F1(x1) + F2(x2).
	Objective(x1, x2 []float64) float64
}

// RhoPolicy selects how the penalty rho changes between iterations.
type RhoPolicy int

const (
	// RhoGeometric (the zero value, the default) multiplies rho by
	// Options.RhoGrowth after every iteration, up to Options.RhoMax.
	// A fixed rho often stalls on the nonconvex applications (the iterate
	// oscillates with r and s of the same size, which residual balancing
	// does not react to); a slowly growing rho eventually makes the
	// subproblems tight enough to converge.
	RhoGeometric RhoPolicy = iota
	// RhoFixed keeps rho = Options.Rho, as in the paper.
	RhoFixed
	// RhoBalance is residual balancing (Boyd et al. 2011, section 3.4.1):
	// rho *= Tau if ||r|| > Mu*||s||, rho /= Tau if ||s|| > Mu*||r||,
	// clamped to [RhoMin, RhoMax].
	RhoBalance
)

// String returns the policy's name.
func (p RhoPolicy) String() string {
	switch p {
	case RhoGeometric:
		return "geometric"
	case RhoFixed:
		return "fixed"
	case RhoBalance:
		return "balance"
	}
	return fmt.Sprintf("RhoPolicy(%d)", int(p))
}

// Default values of the Options fields whose zero value means "default".
const (
	DefaultRhoGrowth    = 1.02
	DefaultRhoMaxFactor = 1e6 // RhoMax = DefaultRhoMaxFactor * Rho
	DefaultRhoMinFactor = 1e-6
	DefaultBalanceMu    = 10
	DefaultBalanceTau   = 2
)

// Options configures a solve. Rho and MaxIter are required; the other
// fields' zero values select the documented defaults (tolerances: zero).
type Options struct {
	// Rho is the initial penalty; it must be finite and > 0.
	Rho float64
	// Policy is the rho schedule; the zero value is RhoGeometric.
	Policy RhoPolicy
	// RhoGrowth is the factor per iteration of RhoGeometric; 0 means
	// DefaultRhoGrowth (1.02). It must be >= 1.
	RhoGrowth float64
	// RhoMax caps rho under RhoGeometric and RhoBalance; 0 means
	// DefaultRhoMaxFactor*Rho. It must be >= Rho.
	RhoMax float64
	// RhoMin is the floor of RhoBalance; 0 means DefaultRhoMinFactor*Rho.
	// It must be in (0, Rho].
	RhoMin float64
	// BalanceMu and BalanceTau are mu and tau of RhoBalance; 0 means 10
	// and 2. Both must be > 1.
	BalanceMu, BalanceTau float64
	// EpsAbs and EpsRel are the tolerances of Boyd et al. (2011), section
	// 3.3.1, with A x1 -> f1(x1), B x2 -> f2(x2) and A^T -> J^T:
	//
	//	||r|| <= sqrt(m)*EpsAbs  + EpsRel*max(||f1(x1)||, ||f2(x2)||)
	//	||s|| <= sqrt(n1)*EpsAbs + EpsRel*||J^T y||
	//
	// with Euclidean norms over the whole vectors, evaluated at the new
	// iterate and the updated y. Both must be finite and >= 0; with both
	// zero only exact feasibility stops the solve before MaxIter.
	// EpsRel > 0 costs one more Constraint1JacT call per iteration.
	EpsAbs, EpsRel float64
	// MaxIter caps the iterations; it must be > 0.
	MaxIter int
	// Callback, if not nil, is called after every iteration, on the
	// solving goroutine; returning true stops the solve with StopCallback.
	// It may read (not modify) the caller's x1, x2 and y.
	Callback func(Iteration) (stop bool)
}

// Iteration is what Options.Callback sees after iteration K.
type Iteration struct {
	K         int     // iteration number, from 1
	Objective float64 // F1 + F2 at the new iterate; NaN without Objectiver
	Primal    float64 // ||r||, r = f1(x1) + f2(x2)
	Dual      float64 // ||s||, s = rho*J^T (f2(x2^(k+1)) - f2(x2^k))
	EpsPrimal float64 // the primal tolerance the test compared against
	EpsDual   float64 // the dual tolerance
	Rho       float64 // the rho used in this iteration
}

// StopReason tells why a solve ended.
type StopReason int

const (
	// StopConverged: ||r|| <= EpsPrimal and ||s|| <= EpsDual.
	StopConverged StopReason = iota + 1
	// StopMaxIter: MaxIter iterations ran without convergence.
	StopMaxIter
	// StopCancelled: the context was done; Solve also returns its error.
	StopCancelled
	// StopCallback: Options.Callback returned true.
	StopCallback
	// StopError: a subproblem failed or an iterate was not finite; Solve
	// also returns the error.
	StopError
	// StopInvalid: the options, the dimensions or the initial point were
	// rejected before any work; Solve also returns the error.
	StopInvalid
)

// String returns a short name of the reason.
func (r StopReason) String() string {
	switch r {
	case StopConverged:
		return "converged"
	case StopMaxIter:
		return "iteration cap"
	case StopCancelled:
		return "cancelled"
	case StopCallback:
		return "stopped by callback"
	case StopError:
		return "error"
	case StopInvalid:
		return "invalid input"
	}
	return fmt.Sprintf("StopReason(%d)", int(r))
}

// Result reports a solve. The residual fields describe the last completed
// iteration (all zero if none completed).
type Result struct {
	Iterations int        // completed iterations
	Reason     StopReason // why the solve ended
	Primal     float64    // ||r|| of the last iteration
	Dual       float64    // ||s|| of the last iteration
	EpsPrimal  float64    // primal tolerance of the last iteration
	EpsDual    float64    // dual tolerance of the last iteration
	Rho        float64    // rho used in the last iteration (Options.Rho if none)
	Objective  float64    // F1 + F2 at the returned iterate; NaN without Objectiver
}

// ErrNotFinite is wrapped by the errors Solve and FISTA.Solve return when
// an iterate or a residual is NaN or infinite.
var ErrNotFinite = errors.New("NaN or infinite value")

// Solver is a reusable workspace for neADMM solves. The zero value is ready
// to use; it allocates on the first solve of each (larger) size only, so
// repeated solves and every iteration are allocation-free. A Solver must
// not be used by several goroutines at once; solvers on different
// goroutines are independent (the engine has no global state).
type Solver struct {
	f1, f2, f2old, jt []float64
}

// Solve runs neADMM (Algorithm 1) on p from the caller's x1, x2 and y and
// leaves the final iterate in them. Each iteration k:
//
//  1. rho is updated from the previous residuals (k > 1) by the policy;
//  2. x1 = UpdateX1(x1, x2, y, rho), then x2 = UpdateX2(x2, x1, y, rho);
//  3. r = f1(x1) + f2(x2) and y += rho*r;
//  4. s = rho*J^T (f2(x2) - f2(x2 before step 2)), J the Jacobian of f1 at x1;
//  5. the callback; then stop if ||r|| <= EpsPrimal and ||s|| <= EpsDual
//     (see Options.EpsAbs; this wins over a stop request of the callback
//     in the same iteration) or if the callback asked to.
//
// The context is checked before every iteration. Solve returns an error
// without doing any work (Reason StopInvalid) for invalid options (see
// Options.Validate), dimensions that disagree with p.Dims, or a non-finite
// initial x1, x2 or y. During the solve it returns
// an error (with Reason StopError) naming the iteration when a subproblem
// fails or x1, x2, y or a residual becomes NaN or infinite (the iterates
// are then left as they are), and ctx's error (wrapped, with Reason
// StopCancelled) on cancellation. The Result is meaningful in every case.
func (sv *Solver) Solve(ctx context.Context, p Problem, x1, x2, y []float64, opt Options) (Result, error) {
	res := Result{Rho: opt.Rho, Objective: math.NaN(), Reason: StopInvalid}
	if err := opt.Validate(); err != nil {
		return res, err
	}
	opt.setDefaults()
	n1, n2, m := p.Dims()
	if n1 < 1 || n2 < 1 || m < 1 {
		return res, fmt.Errorf("neadmm: Dims() = (%d, %d, %d), want all >= 1", n1, n2, m)
	}
	if len(x1) != n1 || len(x2) != n2 || len(y) != m {
		return res, fmt.Errorf("neadmm: len(x1), len(x2), len(y) = %d, %d, %d; Dims() = %d, %d, %d",
			len(x1), len(x2), len(y), n1, n2, m)
	}
	for _, v := range [...]struct {
		name string
		x    []float64
	}{{"x1", x1}, {"x2", x2}, {"y", y}} {
		if !allFinite(v.x) {
			return res, fmt.Errorf("neadmm: initial %s: %w", v.name, ErrNotFinite)
		}
	}
	res.Reason = 0 // the input is valid: the loop below decides
	sv.f1 = buf.Grow(sv.f1, m)
	sv.f2 = buf.Grow(sv.f2, m)
	sv.f2old = buf.Grow(sv.f2old, m)
	sv.jt = buf.Grow(sv.jt, n1)
	f1, f2, f2old, jt := sv.f1, sv.f2, sv.f2old, sv.jt
	obj, hasObj := p.(Objectiver)
	sqrtM, sqrtN1 := math.Sqrt(float64(m)), math.Sqrt(float64(n1))

	p.Constraint2(f2old, x2)
	done := ctx.Done() // nil for contexts that are never cancelled
	rho := opt.Rho
	var err error
	for k := 1; k <= opt.MaxIter; k++ {
		if done != nil {
			select {
			case <-done:
				res.Reason = StopCancelled
				return withObjective(res, obj, hasObj, x1, x2),
					fmt.Errorf("neadmm: cancelled before iteration %d: %w", k, ctx.Err())
			default:
			}
		}
		if k > 1 {
			rho = opt.nextRho(rho, res.Primal, res.Dual)
		}
		if err = p.UpdateX1(x1, x2, y, rho); err != nil {
			err = fmt.Errorf("neadmm: iteration %d: x1-update: %w", k, err)
			break
		}
		if err = p.UpdateX2(x2, x1, y, rho); err != nil {
			err = fmt.Errorf("neadmm: iteration %d: x2-update: %w", k, err)
			break
		}
		if err = finiteIterates(k, x1, x2); err != nil {
			break
		}
		p.Constraint1(f1, x1)
		p.Constraint2(f2, x2)
		nf1, nf2 := vec.Nrm2(f1), vec.Nrm2(f2)
		vec.Axpy(1, f2, f1) // f1 = r
		nr := vec.Nrm2(f1)
		vec.Axpy(rho, f1, y)
		vec.Sub(f2old, f2, f2old) // the change of f2
		p.Constraint1JacT(jt, x1, f2old)
		ns := rho * vec.Nrm2(jt)
		f2, f2old = f2old, f2 // f2old = f2(x2^(k+1)) for the next iteration
		epsPri := sqrtM*opt.EpsAbs + opt.EpsRel*max(nf1, nf2)
		epsDual := sqrtN1 * opt.EpsAbs
		if opt.EpsRel > 0 {
			p.Constraint1JacT(jt, x1, y)
			epsDual += opt.EpsRel * vec.Nrm2(jt)
		}
		if !(nr <= math.MaxFloat64 && ns <= math.MaxFloat64 && epsDual <= math.MaxFloat64) || !allFinite(y) {
			err = fmt.Errorf("neadmm: iteration %d: residual or y: %w", k, ErrNotFinite)
			break
		}
		res.Iterations, res.Rho = k, rho
		res.Primal, res.Dual, res.EpsPrimal, res.EpsDual = nr, ns, epsPri, epsDual
		stop := false
		if opt.Callback != nil {
			it := Iteration{K: k, Objective: math.NaN(), Primal: nr, Dual: ns,
				EpsPrimal: epsPri, EpsDual: epsDual, Rho: rho}
			if hasObj {
				it.Objective = obj.Objective(x1, x2)
			}
			stop = opt.Callback(it)
		}
		if nr <= epsPri && ns <= epsDual {
			res.Reason = StopConverged
			break
		}
		if stop {
			res.Reason = StopCallback
			break
		}
	}
	// Keep the buffers' roles for the next solve (only lengths matter).
	sv.f2, sv.f2old = f2, f2old
	if err != nil {
		res.Reason = StopError
		return res, err
	}
	if res.Reason == 0 {
		res.Reason = StopMaxIter
	}
	return withObjective(res, obj, hasObj, x1, x2), nil
}

func withObjective(res Result, obj Objectiver, hasObj bool, x1, x2 []float64) Result {
	if hasObj {
		res.Objective = obj.Objective(x1, x2)
	}
	return res
}

func finiteIterates(k int, x1, x2 []float64) error {
	if !allFinite(x1) {
		return fmt.Errorf("neadmm: iteration %d: x1: %w", k, ErrNotFinite)
	}
	if !allFinite(x2) {
		return fmt.Errorf("neadmm: iteration %d: x2: %w", k, ErrNotFinite)
	}
	return nil
}

// allFinite reports whether no x[i] is NaN or ±Inf. The fast path is one
// vectorized Dot (finite sum of squares); only if that overflows or is NaN
// does it scan.
func allFinite(x []float64) bool {
	if vec.Dot(x, x) <= math.MaxFloat64 {
		return true
	}
	for _, v := range x {
		if v-v != 0 { // NaN for NaN and ±Inf
			return false
		}
	}
	return true
}

// Validate reports the first invalid field of o, as Solve would before
// any work. Packages that build Options for the engine call it to reject
// bad settings before their own setup work.
func (o Options) Validate() error {
	bad := func(name string, v float64, want string) error {
		return fmt.Errorf("neadmm: Options.%s = %g, want %s", name, v, want)
	}
	switch {
	case !(o.Rho > 0) || !num.Finite(o.Rho):
		return bad("Rho", o.Rho, "finite and > 0")
	case o.MaxIter <= 0:
		return fmt.Errorf("neadmm: Options.MaxIter = %d, want > 0", o.MaxIter)
	case !(o.EpsAbs >= 0) || !num.Finite(o.EpsAbs):
		return bad("EpsAbs", o.EpsAbs, "finite and >= 0")
	case !(o.EpsRel >= 0) || !num.Finite(o.EpsRel):
		return bad("EpsRel", o.EpsRel, "finite and >= 0")
	case o.Policy < RhoGeometric || o.Policy > RhoBalance:
		return fmt.Errorf("neadmm: Options.Policy = %d, unknown", int(o.Policy))
	case o.RhoGrowth != 0 && !(o.RhoGrowth >= 1 && num.Finite(o.RhoGrowth)):
		return bad("RhoGrowth", o.RhoGrowth, "0 (default) or finite and >= 1")
	case o.RhoMax != 0 && !(o.RhoMax >= o.Rho && num.Finite(o.RhoMax)):
		return bad("RhoMax", o.RhoMax, "0 (default) or finite and >= Rho")
	case o.RhoMin != 0 && !(o.RhoMin > 0 && o.RhoMin <= o.Rho):
		return bad("RhoMin", o.RhoMin, "0 (default) or in (0, Rho]")
	case o.BalanceMu != 0 && !(o.BalanceMu > 1 && num.Finite(o.BalanceMu)):
		return bad("BalanceMu", o.BalanceMu, "0 (default) or finite and > 1")
	case o.BalanceTau != 0 && !(o.BalanceTau > 1 && num.Finite(o.BalanceTau)):
		return bad("BalanceTau", o.BalanceTau, "0 (default) or finite and > 1")
	}
	return nil
}

func (o *Options) setDefaults() {
	if o.RhoGrowth == 0 {
		o.RhoGrowth = DefaultRhoGrowth
	}
	if o.RhoMax == 0 {
		o.RhoMax = min(DefaultRhoMaxFactor*o.Rho, math.MaxFloat64)
	}
	if o.RhoMin == 0 {
		o.RhoMin = DefaultRhoMinFactor * o.Rho
	}
	if o.BalanceMu == 0 {
		o.BalanceMu = DefaultBalanceMu
	}
	if o.BalanceTau == 0 {
		o.BalanceTau = DefaultBalanceTau
	}
}

// nextRho applies the policy after an iteration with residuals r and s.
func (o *Options) nextRho(rho, r, s float64) float64 {
	switch o.Policy {
	case RhoGeometric:
		return min(rho*o.RhoGrowth, o.RhoMax)
	case RhoBalance:
		switch {
		case r > o.BalanceMu*s:
			return min(rho*o.BalanceTau, o.RhoMax)
		case s > o.BalanceMu*r:
			return max(rho/o.BalanceTau, o.RhoMin)
		}
	}
	return rho
}
