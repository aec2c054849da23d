package neadmm

import (
	"errors"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/buf"
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
	// of |f(y)|), L is multiplied by Eta. L never decreases within a solve.
	Backtrack bool
	// Eta is the backtracking factor; 0 means 2. It must be > 1.
	Eta float64
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

// FISTAResult reports a FISTA solve.
type FISTAResult struct {
	// Iterations is the number of proximal-gradient steps taken.
	Iterations int
	// Converged reports whether the Tol test passed (false: MaxIter).
	Converged bool
	// Restarts counts the momentum restarts.
	Restarts int
	// Objective is f(x) + g(x) at the returned x, or NaN if the problem
	// does not implement NonsmoothValuer.
	Objective float64
	// L is the final Lipschitz estimate (opt.L without backtracking).
	L float64
}

// FISTA is a reusable workspace for the accelerated proximal-gradient method
// (FISTA, Beck and Teboulle 2009) with optional backtracking and adaptive
// restart. The zero value is ready to use. Solve allocates only when x is
// longer than any x seen before, so repeated solves (an ADMM x-update every
// outer iteration) do not allocate.
//
// A FISTA must not be used by several goroutines at once. Use one FISTA per
// subproblem: the learnt estimate L belongs to the problem it was learnt on.
type FISTA struct {
	// L is the Lipschitz estimate kept between solves: Solve with
	// backtracking starts from max(opt.L, L) and, unless it fails, stores
	// its final estimate here. Set it to 0 to forget it (e.g. after rho
	// decreased).
	L float64

	x, xn, y, grad, tmp []float64
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
// the last iterate, which is a prox output (so, for the L1 norm, exactly
// sparse). It returns an error, before any work, for invalid options, and
// during the solve if f(y) or an iterate is NaN or infinite or backtracking
// pushes L above 1e300; x then holds the last finite iterate. For
// len(x) == 0 it returns Converged after 0 iterations.
func (s *FISTA) Solve(p FISTAProblem, x []float64, opt FISTAOptions) (FISTAResult, error) {
	res := FISTAResult{Objective: math.NaN(), L: opt.L}
	eta := opt.Eta
	if eta == 0 {
		eta = 2
	}
	ng, hasG := p.(NonsmoothValuer)
	switch {
	case !(opt.L > 0 && opt.L <= math.MaxFloat64):
		return res, fmt.Errorf("neadmm: FISTA: L = %g, want finite and > 0", opt.L)
	case !(eta > 1 && eta <= math.MaxFloat64):
		return res, fmt.Errorf("neadmm: FISTA: Eta = %g, want finite and > 1", opt.Eta)
	case !(opt.Tol >= 0 && opt.Tol <= math.MaxFloat64):
		return res, fmt.Errorf("neadmm: FISTA: Tol = %g, want finite and >= 0", opt.Tol)
	case opt.MaxIter <= 0:
		return res, fmt.Errorf("neadmm: FISTA: MaxIter = %d, want > 0", opt.MaxIter)
	case opt.Restart < RestartGradient || opt.Restart > RestartNone:
		return res, fmt.Errorf("neadmm: FISTA: unknown Restart %d", opt.Restart)
	case opt.Restart == RestartFunction && !hasG:
		return res, errors.New("neadmm: FISTA: RestartFunction needs a problem implementing NonsmoothValuer")
	}
	n := len(x)
	if n == 0 {
		res.Converged = true
		return res, nil
	}
	if !allFinite(x) {
		return res, fmt.Errorf("neadmm: FISTA: initial x: %w", ErrNotFinite)
	}
	L := opt.L
	if opt.Backtrack {
		L = max(L, s.L)
	}
	s.x = buf.Grow(s.x, n)
	s.xn = buf.Grow(s.xn, n)
	s.y = buf.Grow(s.y, n)
	s.grad = buf.Grow(s.grad, n)
	s.tmp = buf.Grow(s.tmp, n)
	xk, xn, y, grad, tmp := s.x, s.xn, s.y, s.grad, s.tmp
	copy(xk, x)
	copy(y, x)

	theta := 1.0
	fx := math.NaN() // f(xk) when known
	Fprev := math.Inf(1)
	if opt.Restart == RestartFunction {
		fx = p.Func(xk)
		Fprev = fx + ng.Nonsmooth(xk)
	}
	var err error
	for k := 1; k <= opt.MaxIter; k++ {
		fy := p.FuncGrad(grad, y)
		if math.IsNaN(fy) || math.IsInf(fy, 0) {
			err = fmt.Errorf("neadmm: FISTA: iteration %d: f(y) = %g: %w", k, fy, ErrNotFinite)
			break
		}
		// Proximal gradient step from y, backtracking on L.
		fz := math.NaN()
		for {
			vec.AddScaledTo(tmp, y, -1/L, grad)
			p.Prox(xn, tmp, 1/L)
			if !opt.Backtrack {
				break
			}
			fz = p.Func(xn)
			vec.Sub(tmp, xn, y)
			bound := fy + vec.Dot(grad, tmp) + L/2*vec.Dot(tmp, tmp)
			if fz <= bound+fistaSlack*math.Abs(fy) {
				break
			}
			L *= eta
			if !(L <= fistaMaxL) {
				err = fmt.Errorf("neadmm: FISTA: iteration %d: backtracking pushed L to %g (f not smooth, or NaN)", k, L)
				break
			}
		}
		if err != nil {
			break
		}
		res.Iterations = k

		xnn := vec.Nrm2(xn)
		if !(xnn <= math.MaxFloat64) { // xk stays the last finite iterate
			err = fmt.Errorf("neadmm: FISTA: iteration %d: iterate: %w", k, ErrNotFinite)
			break
		}
		// xk becomes the step d = x_(k+1) - x_k; xn is x_(k+1).
		vec.Sub(xk, xn, xk)
		dn := vec.Nrm2(xk)
		restart := false
		switch opt.Restart {
		case RestartGradient:
			vec.Sub(tmp, y, xn)
			restart = vec.Dot(tmp, xk) > 0
		case RestartFunction:
			if !opt.Backtrack {
				fz = p.Func(xn)
			}
			F := fz + ng.Nonsmooth(xn)
			restart = F > Fprev
			Fprev = F
		}
		fx = fz
		xk, xn = xn, xk // xk = x_(k+1); xn holds the step d
		if !(dn <= math.MaxFloat64) {
			err = fmt.Errorf("neadmm: FISTA: iteration %d: step: %w", k, ErrNotFinite)
			break
		}
		if dn <= opt.Tol*max(1, xnn) {
			res.Converged = true
			break
		}
		if restart {
			res.Restarts++
			theta = 1
			copy(y, xk)
			continue
		}
		thetaNext := (1 + math.Sqrt(1+4*theta*theta)) / 2
		vec.AddScaledTo(y, xk, (theta-1)/thetaNext, xn)
		theta = thetaNext
	}
	copy(x, xk)
	if opt.Backtrack && err == nil { // a failed search must not poison later solves
		s.L = L
	}
	res.L = L
	if err == nil && hasG {
		if math.IsNaN(fx) {
			fx = p.Func(x)
		}
		res.Objective = fx + ng.Nonsmooth(x)
	}
	return res, err
}
