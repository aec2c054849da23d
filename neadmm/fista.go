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

// FISTAProblem is min_x f(x) + g(x) with f differentiable (gradient
// Lipschitz with some constant L) and g convex with a computable proximal
// operator. The convex subproblems of the applications (the x-update of
// 1-bit compressive sensing, the q- and beta-updates of multi-instance
// learning) have this form.
//
// FISTA calls the methods with slices it owns; implementations must not
// retain them. All slices have the length of the x passed to Solve.
type FISTAProblem interface {
	// Func returns f(x). Backtracking calls it once per trial step.
	Func(x []float64) float64
	// FuncGrad sets grad to the gradient of f at x and returns f(x).
	FuncGrad(grad, x []float64) float64
	// Prox sets dst to prox_{step*g}(x) = argmin_z g(z) + ||z - x||^2/(2*step).
	// dst and x are distinct. For g = lambda*||.||_1 this is
	// vec.SoftThreshold(dst, x, step*lambda).
	Prox(dst, x []float64, step float64)
}

// NonsmoothValuer is implemented by FISTA problems that can evaluate g.
// FISTA then reports the objective f + g in FISTAResult and supports
// RestartFunction.
type NonsmoothValuer interface {
	// Nonsmooth returns g(x).
	Nonsmooth(x []float64) float64
}

// Restart selects the adaptive restart scheme of O'Donoghue and Candes
// (2015), which resets the momentum when it stops helping.
type Restart int

const (
	// RestartGradient (the zero value, the default) restarts when
	// <y_k - x_(k+1), x_(k+1) - x_k> > 0, i.e. when the step taken points
	// against the momentum. It costs one dot product per iteration.
	RestartGradient Restart = iota
	// RestartFunction restarts when f(x_(k+1)) + g(x_(k+1)) increases. It
	// needs a problem that implements NonsmoothValuer and, without
	// backtracking, one extra Func call per iteration.
	RestartFunction
	// RestartNone is plain FISTA (Beck and Teboulle 2009).
	RestartNone
)

// String returns the scheme's name.
func (r Restart) String() string {
	switch r {
	case RestartGradient:
		return "gradient"
	case RestartFunction:
		return "function"
	case RestartNone:
		return "none"
	}
	return fmt.Sprintf("Restart(%d)", int(r))
}

// Default values of the FISTAOptions fields whose zero value means
// "default".
const (
	DefaultEta          = 2
	DefaultMaxBacktrack = 100
)

// FISTAOptions configures one FISTA solve. The zero value is not valid:
// L and MaxIter must be set.
type FISTAOptions struct {
	// L is the Lipschitz constant of the gradient of f: FISTA takes the
	// fixed step 1/L. With Backtrack it is the initial estimate instead
	// (a lower bound works best), and the step starts from
	// max(L, FISTA.L) so that an estimate learnt in earlier solves is kept.
	// It must be finite and > 0.
	L float64
	// Backtrack enables the Beck-Teboulle line search: while
	// f(z) > f(y) + <grad f(y), z - y> + L/2 ||z - y||^2 (up to a few ulps
	// of |f(y)|), the trial step z is rejected and L is multiplied by Eta.
	// L never decreases within a solve.
	Backtrack bool
	// Eta is the backtracking factor; 0 means DefaultEta (2). It must be
	// finite and > 1.
	Eta float64
	// MaxBacktrack caps the backtracking steps (a trial step rejected, L
	// multiplied by Eta, the step retried) over the whole solve; 0 means
	// DefaultMaxBacktrack (100), which lets L grow by Eta^100 (1e30 for
	// Eta = 2). A solve therefore evaluates at most MaxIter + MaxBacktrack
	// trial steps (each one Prox and, with Backtrack, one Func) and
	// MaxIter gradients, whatever Eta is. Reaching the cap is an error
	// wrapping ErrBacktrack; raise it for an Eta close to 1 or an initial
	// L far below the true constant. It must be >= 0.
	MaxBacktrack int
	// Restart is the adaptive restart scheme; the zero value is
	// RestartGradient.
	Restart Restart
	// Tol stops the solve when ||x_k - x_(k-1)|| <= Tol*max(1, ||x_k||)
	// (Euclidean norms). Tol = 0 runs MaxIter iterations unless an
	// iteration leaves x exactly unchanged. It must be finite and >= 0.
	Tol float64
	// MaxIter caps the iterations; it must be > 0.
	MaxIter int
}

// Validate reports the first invalid field of o, as FISTA.Solve would
// before any work; the error wraps ErrBadInput. (Solve also rejects
// RestartFunction for a problem that does not implement NonsmoothValuer,
// which o alone cannot tell.)
func (o FISTAOptions) Validate() error {
	bad := func(name string, v float64, want string) error {
		return fmt.Errorf("%w: FISTAOptions.%s = %g, want %s", ErrBadInput, name, v, want)
	}
	switch {
	case !(o.L > 0) || !num.Finite(o.L):
		return bad("L", o.L, "finite and > 0")
	case o.Eta != 0 && !(o.Eta > 1 && num.Finite(o.Eta)):
		return bad("Eta", o.Eta, "0 (default) or finite and > 1")
	case o.MaxBacktrack < 0:
		return fmt.Errorf("%w: FISTAOptions.MaxBacktrack = %d, want >= 0", ErrBadInput, o.MaxBacktrack)
	case o.Restart < RestartGradient || o.Restart > RestartNone:
		return fmt.Errorf("%w: FISTAOptions.Restart = %d, unknown (want RestartGradient, RestartFunction or RestartNone)",
			ErrBadInput, int(o.Restart))
	case !(o.Tol >= 0) || !num.Finite(o.Tol):
		return bad("Tol", o.Tol, "finite and >= 0")
	case o.MaxIter <= 0:
		return fmt.Errorf("%w: FISTAOptions.MaxIter = %d, want > 0", ErrBadInput, o.MaxIter)
	}
	return nil
}

// FISTAResult reports a FISTA solve.
type FISTAResult struct {
	// Iterations is the number of proximal-gradient steps taken.
	Iterations int
	// Converged reports whether the Tol test passed (false: MaxIter, an
	// error or cancellation).
	Converged bool
	// Restarts counts the momentum restarts.
	Restarts int
	// Backtracks counts the backtracking steps: trial steps rejected and
	// retried with L multiplied by Eta.
	Backtracks int
	// Objective is f(x) + g(x) at the returned x, or NaN if the problem
	// does not implement NonsmoothValuer or the solve returned an error.
	Objective float64
	// L is the final Lipschitz estimate (opt.L without backtracking).
	L float64
}

// FISTA is a reusable workspace for the accelerated proximal-gradient method
// (FISTA, Beck and Teboulle 2009) with optional backtracking and adaptive
// restart. The zero value is ready to use. Solve allocates only when x is
// longer than any x seen before, so repeated solves (an ADMM x-update every
// outer iteration) do not allocate. (It keeps the last problem, if a
// pointer, with its NonsmoothValuer, as Solver does.)
//
// A FISTA must not be used by several goroutines at once (Solve panics if
// it is entered while another call runs). Use one FISTA per subproblem:
// the learnt estimate L belongs to the problem it was learnt on. Solve on
// a nil *FISTA returns an error wrapping ErrBadInput.
type FISTA struct {
	// L is the Lipschitz estimate kept between solves: Solve with
	// backtracking starts from max(opt.L, L) and, unless the search
	// failed, stores its final estimate here. Set it to 0 to forget it
	// (e.g. after rho decreased).
	L float64

	busy                inUse
	x, xn, y, grad, tmp []float64
	caps                lastCaps[FISTAProblem, NonsmoothValuer] // the last problem's NonsmoothValuer
}

const (
	// fistaMaxL bounds backtracking: beyond it f is not L-smooth (or
	// returns NaN/Inf at every trial point).
	fistaMaxL = 1e300
	// fistaSlack is the relative slack of the sufficient-decrease test, so
	// that rounding noise in f near the minimizer does not inflate L.
	fistaSlack = 64 * 0x1p-52
)

// Solve minimizes f + g starting from x (warm start) and overwrites x with
// the last accepted iterate, which is a prox output (so, for the L1 norm,
// exactly sparse). For len(x) == 0 it returns Converged after 0
// iterations.
//
// It returns an error wrapping ErrBadInput, before any work, for invalid
// options (see FISTAOptions.Validate), a nil ctx or p, RestartFunction
// with a p that does not implement NonsmoothValuer, or a non-finite x
// (also wrapping ErrNotFinite). During the solve it returns an error
// wrapping ErrNotFinite if f(y) or an iterate is NaN or infinite, one
// wrapping ErrBacktrack if backtracking reaches opt.MaxBacktrack or pushes
// L above 1e300, and ctx's error (wrapped) on cancellation; x then holds
// the last accepted (finite) iterate.
//
// The context is checked before every iteration and before every retried
// trial step, so cancellation returns within one FuncGrad, one Func and
// one Prox call. A ctx that is never cancelled (context.Background) costs
// nothing; checking one that can be costs a few nanoseconds per check and
// no allocation.
func (s *FISTA) Solve(ctx context.Context, p FISTAProblem, x []float64, opt FISTAOptions) (FISTAResult, error) {
	if s == nil {
		return FISTAResult{Objective: math.NaN(), L: opt.L}, fmt.Errorf("%w: FISTA: Solve on a nil *FISTA", ErrBadInput)
	}
	s.busy.enter("neadmm: FISTA.Solve")
	defer s.busy.leave()
	res := FISTAResult{Objective: math.NaN(), L: opt.L}
	f, err := s.prepare(ctx, p, x, opt)
	if err != nil || len(x) == 0 {
		res.Converged = err == nil
		return res, err
	}
	err = f.run(&res)
	copy(x, f.xk)
	res.L, res.Backtracks = f.L, f.backtracks
	cancelled := err != nil && f.ctx.Err() != nil && errors.Is(err, f.ctx.Err())
	if opt.Backtrack && (err == nil || cancelled) { // a failed search must not poison later solves
		s.L = f.L
	}
	if err == nil && f.ng != nil {
		if math.IsNaN(f.fx) {
			f.fx = p.Func(x)
		}
		res.Objective = f.fx + f.ng.Nonsmooth(x)
	}
	return res, err
}

// fistaRun is the state of one FISTA.Solve call.
type fistaRun struct {
	ctx                  context.Context
	done                 <-chan struct{} // ctx.Done(): nil if never cancelled
	p                    FISTAProblem
	ng                   NonsmoothValuer // nil if p does not implement it
	opt                  FISTAOptions    // with the defaults set
	xk, xn, y, grad, tmp []float64
	L, theta             float64
	fx, Fprev            float64 // f(xk) when known (else NaN); (f+g)(xk) for RestartFunction
	backtracks           int
}

// prepare validates the input, before any work, and sizes the buffers.
func (s *FISTA) prepare(ctx context.Context, p FISTAProblem, x []float64, opt FISTAOptions) (fistaRun, error) {
	if err := opt.Validate(); err != nil {
		return fistaRun{}, err
	}
	if ctx == nil || p == nil {
		return fistaRun{}, fmt.Errorf("%w: FISTA: nil context or problem", ErrBadInput)
	}
	ng := s.caps.of(p, nonsmoothOf)
	if opt.Restart == RestartFunction && ng == nil {
		return fistaRun{}, fmt.Errorf("%w: FISTA: RestartFunction needs a problem implementing NonsmoothValuer", ErrBadInput)
	}
	if !allFinite(x) {
		return fistaRun{}, fmt.Errorf("%w: FISTA: initial x: %w", ErrBadInput, ErrNotFinite)
	}
	if opt.Eta == 0 {
		opt.Eta = DefaultEta
	}
	if opt.MaxBacktrack == 0 {
		opt.MaxBacktrack = DefaultMaxBacktrack
	}
	L := opt.L
	if opt.Backtrack {
		L = max(L, s.L)
	}
	n := len(x)
	s.x = buf.Grow(s.x, n)
	s.xn = buf.Grow(s.xn, n)
	s.y = buf.Grow(s.y, n)
	s.grad = buf.Grow(s.grad, n)
	s.tmp = buf.Grow(s.tmp, n)
	copy(s.x, x)
	copy(s.y, x)
	return fistaRun{ctx: ctx, done: ctx.Done(), p: p, ng: ng, opt: opt,
		xk: s.x, xn: s.xn, y: s.y, grad: s.grad, tmp: s.tmp,
		L: L, theta: 1, fx: math.NaN(), Fprev: math.Inf(1)}, nil
}

// run iterates from xk = y = x, recording progress in res.
func (f *fistaRun) run(res *FISTAResult) error {
	if f.opt.Restart == RestartFunction {
		f.fx = f.p.Func(f.xk)
		f.Fprev = f.fx + f.ng.Nonsmooth(f.xk)
	}
	for k := 1; k <= f.opt.MaxIter; k++ {
		if cancelled(f.done) {
			return fmt.Errorf("neadmm: FISTA: cancelled before iteration %d: %w", k, f.ctx.Err())
		}
		fz, err := f.step(k)
		if err != nil {
			return err
		}
		res.Iterations = k
		converged, restart, err := f.accept(k, fz)
		if err != nil || converged {
			res.Converged = converged
			return err
		}
		if restart {
			res.Restarts++
		}
		f.momentum(restart)
	}
	return nil
}

// step sets xn to the proximal-gradient step from y, backtracking on L,
// and returns f(xn) if it evaluated it (with Backtrack), else NaN.
func (f *fistaRun) step(k int) (float64, error) {
	fy := f.p.FuncGrad(f.grad, f.y)
	if !num.Finite(fy) {
		return 0, fmt.Errorf("neadmm: FISTA: iteration %d: f(y) = %g: %w", k, fy, ErrNotFinite)
	}
	for {
		vec.AddScaledTo(f.tmp, f.y, -1/f.L, f.grad)
		f.p.Prox(f.xn, f.tmp, 1/f.L)
		if !f.opt.Backtrack {
			return math.NaN(), nil
		}
		fz := f.p.Func(f.xn)
		vec.Sub(f.tmp, f.xn, f.y)
		bound := fy + vec.Dot(f.grad, f.tmp) + f.L/2*vec.Dot(f.tmp, f.tmp)
		if fz <= bound+fistaSlack*math.Abs(fy) {
			return fz, nil
		}
		if f.backtracks == f.opt.MaxBacktrack {
			return 0, fmt.Errorf("neadmm: FISTA: iteration %d: trial step rejected after FISTAOptions.MaxBacktrack = %d backtracking steps, L = %g: %w",
				k, f.backtracks, f.L, ErrBacktrack)
		}
		if cancelled(f.done) {
			return 0, fmt.Errorf("neadmm: FISTA: cancelled in iteration %d: %w", k, f.ctx.Err())
		}
		f.backtracks++
		f.L *= f.opt.Eta
		if !(f.L <= fistaMaxL) {
			return 0, fmt.Errorf("neadmm: FISTA: iteration %d: L = %g (f not smooth, or NaN): %w", k, f.L, ErrBacktrack)
		}
	}
}

// accept makes xn, the new iterate, the current one (xk), keeping the step
// xk - xk_old in xn for the momentum, and reports whether the Tol test
// passed and whether the restart scheme asks for a restart.
func (f *fistaRun) accept(k int, fz float64) (converged, restart bool, err error) {
	xnn := vec.Nrm2(f.xn)
	if !(xnn <= math.MaxFloat64) { // xk stays the last finite iterate
		return false, false, fmt.Errorf("neadmm: FISTA: iteration %d: iterate: %w", k, ErrNotFinite)
	}
	vec.Sub(f.xk, f.xn, f.xk) // xk becomes the step d = x_(k+1) - x_k
	dn := vec.Nrm2(f.xk)
	switch f.opt.Restart {
	case RestartGradient:
		vec.Sub(f.tmp, f.y, f.xn)
		restart = vec.Dot(f.tmp, f.xk) > 0
	case RestartFunction:
		if !f.opt.Backtrack {
			fz = f.p.Func(f.xn)
		}
		F := fz + f.ng.Nonsmooth(f.xn)
		restart = F > f.Fprev
		f.Fprev = F
	}
	f.fx = fz
	f.xk, f.xn = f.xn, f.xk // xk = x_(k+1); xn holds the step d
	if !(dn <= math.MaxFloat64) {
		return false, false, fmt.Errorf("neadmm: FISTA: iteration %d: step: %w", k, ErrNotFinite)
	}
	return dn <= f.opt.Tol*max(1, xnn), restart, nil
}

// momentum sets the next extrapolation point y, or restarts from xk.
func (f *fistaRun) momentum(restart bool) {
	if restart {
		f.theta = 1
		copy(f.y, f.xk)
		return
	}
	thetaNext := (1 + math.Sqrt(1+4*f.theta*f.theta)) / 2
	vec.AddScaledTo(f.y, f.xk, (f.theta-1)/thetaNext, f.xn)
	f.theta = thetaNext
}
