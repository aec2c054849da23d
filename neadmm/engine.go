package neadmm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/vec"
)

// Solver is a reusable workspace for neADMM solves. The zero value is ready
// to use; it allocates on the first solve of each (larger) size only, so
// repeated solves and every iteration are allocation-free. (It keeps the
// last problem, if a pointer, and its optional interfaces: asserting them
// at every solve could allocate at a random call, see lastCaps.) A Solver must
// not be used by several goroutines at once (Solve panics if it is entered
// while another call runs); solvers on different goroutines are
// independent (the engine has no global state). Solve on a nil *Solver
// returns an error wrapping ErrBadInput.
type Solver struct {
	busy              inUse
	f1, f2, f2old, jt []float64
	caps              lastCaps[Problem, problemCaps] // the last problem's optional interfaces
}

// Solve runs neADMM (Algorithm 1) on p from the caller's x1, x2 and y and
// leaves the final iterate in them. Each iteration k:
//
//  1. rho is updated from the previous residuals (k > 1) by the policy;
//  2. x1 = UpdateX1(x1, x2, y, rho), then x2 = UpdateX2(x2, x1, y, rho);
//  3. r = f1(x1) + f2(x2) and y += rho*r;
//  4. s = rho*J^T (f2(x2) - f2(x2 before step 2)), J the Jacobian of f1 at x1;
//  5. the callback and the stop test see the iteration; then the solve
//     stops with StopConverged if ||r|| <= EpsPrimal and ||s|| <= EpsDual
//     (see Options.EpsAbs), else with StopTest if Options.StopTest
//     returned true, else with StopCallback if Options.Callback did.
//
// The calls p receives, and what stays unchanged between them, are listed
// at Problem.
//
// The context is checked before every iteration and between the two
// updates; a problem that implements Starter receives it and may check it
// inside its updates too. Solve returns an error wrapping ErrBadInput
// without doing any work (Reason StopInvalid) for invalid options (see
// Options.Validate), a nil ctx or p, dimensions that disagree with p.Dims,
// x1, x2 and y sharing memory, a non-finite initial x1, x2 or y (also
// wrapping ErrNotFinite), or an objective asked of a p that does not
// implement Objectiver. During the solve it returns an error (with Reason
// StopError) naming the iteration when a subproblem fails or x1, x2, y, a
// residual or a tolerance becomes NaN or infinite (EpsRel*max(||f1||,
// ||f2||) and EpsRel*||J^T y|| can overflow while the iterates and r are
// finite; an infinite tolerance would pass any residual), with the
// iterates left as they are, and ctx's error (wrapped, with Reason
// StopCancelled) on cancellation, also when a subproblem returns it. The
// Result is meaningful in every case.
func (sv *Solver) Solve(ctx context.Context, p Problem, x1, x2, y []float64, opt Options) (Result, error) {
	if sv == nil {
		return Result{Rho: opt.Rho, Objective: math.NaN(), Reason: StopInvalid}, fmt.Errorf("%w: Solve on a nil *Solver", ErrBadInput)
	}
	sv.busy.enter("neadmm: Solver.Solve")
	defer sv.busy.leave()
	res := Result{Rho: opt.Rho, Objective: math.NaN(), Reason: StopInvalid}
	s, err := sv.prepare(ctx, p, x1, x2, y, opt)
	if err != nil {
		return res, err
	}
	res.Reason, err = s.run(&res)
	if res.Reason != StopError && s.opt.FinalObjective {
		res.Objective = s.obj.Objective(x1, x2)
	}
	return res, err
}

// solve is the state of one Solve call.
type solve struct {
	ctx               context.Context
	done              <-chan struct{} // ctx.Done(): nil if never cancelled
	p                 Problem
	obj               Objectiver // nil unless p implements it
	starter           Starter    // nil unless p implements it
	x1, x2, y         []float64
	f1, f2, f2old, jt []float64
	opt               Options // with the defaults set
	sqrtM, sqrtN1     float64
}

// prepare validates the input, before any work, and sizes the buffers.
func (sv *Solver) prepare(ctx context.Context, p Problem, x1, x2, y []float64, opt Options) (solve, error) {
	if err := opt.Validate(); err != nil {
		return solve{}, err
	}
	if ctx == nil || p == nil {
		return solve{}, fmt.Errorf("%w: nil context or problem", ErrBadInput)
	}
	opt.setDefaults()
	n1, n2, m := p.Dims()
	if n1 < 1 || n2 < 1 || m < 1 {
		return solve{}, fmt.Errorf("%w: Dims() = (%d, %d, %d), want all >= 1", ErrBadInput, n1, n2, m)
	}
	if len(x1) != n1 || len(x2) != n2 || len(y) != m {
		return solve{}, fmt.Errorf("%w: len(x1), len(x2), len(y) = %d, %d, %d; Dims() = %d, %d, %d",
			ErrBadInput, len(x1), len(x2), len(y), n1, n2, m)
	}
	if overlap(x1, x2) || overlap(x1, y) || overlap(x2, y) {
		return solve{}, fmt.Errorf("%w: x1, x2 and y share memory", ErrBadInput)
	}
	for _, v := range [...]struct {
		name string
		x    []float64
	}{{"x1", x1}, {"x2", x2}, {"y", y}} {
		if !allFinite(v.x) {
			return solve{}, fmt.Errorf("%w: initial %s: %w", ErrBadInput, v.name, ErrNotFinite)
		}
	}
	c := sv.caps.of(p, problemCapsOf)
	obj, starter := c.obj, c.starter
	if (opt.IterationObjective || opt.FinalObjective) && obj == nil {
		return solve{}, fmt.Errorf("%w: Options.IterationObjective or FinalObjective set, but %T does not implement Objectiver", ErrBadInput, p)
	}
	sv.f1 = buf.Grow(sv.f1, m)
	sv.f2 = buf.Grow(sv.f2, m)
	sv.f2old = buf.Grow(sv.f2old, m)
	sv.jt = buf.Grow(sv.jt, n1)
	return solve{
		ctx: ctx, done: ctx.Done(), p: p, obj: obj, starter: starter, x1: x1, x2: x2, y: y,
		f1: sv.f1, f2: sv.f2, f2old: sv.f2old, jt: sv.jt, opt: opt,
		sqrtM: math.Sqrt(float64(m)), sqrtN1: math.Sqrt(float64(n1)),
	}, nil
}

// run starts the solve and runs the iterations, recording each completed
// one in res, and returns why it stopped.
func (s *solve) run(res *Result) (StopReason, error) {
	if s.starter != nil {
		if err := s.starter.Start(s.ctx, s.x1, s.x2, s.y); err != nil {
			return s.failure(err), fmt.Errorf("neadmm: Start: %w", err)
		}
	}
	s.p.Constraint2(s.f2old, s.x2)
	rho := s.opt.Rho
	for k := 1; k <= s.opt.MaxIter; k++ {
		if cancelled(s.done) {
			return StopCancelled, fmt.Errorf("neadmm: cancelled before iteration %d: %w", k, s.ctx.Err())
		}
		if k > 1 {
			rho = s.opt.nextRho(rho, res.Primal, res.Dual)
		}
		if err := s.update(k, rho); err != nil {
			return s.failure(err), err
		}
		it, err := s.residuals(k, rho)
		if err != nil {
			return StopError, err
		}
		res.Iterations, res.Rho = k, rho
		res.Primal, res.Dual, res.EpsPrimal, res.EpsDual = it.Primal, it.Dual, it.EpsPrimal, it.EpsDual
		if reason := s.tests(it); reason != 0 {
			return reason, nil
		}
	}
	return StopMaxIter, nil
}

// update is step 2: the two subproblems, with a cancellation check
// between them.
func (s *solve) update(k int, rho float64) error {
	if err := s.p.UpdateX1(s.x1, s.x2, s.y, rho); err != nil {
		return fmt.Errorf("neadmm: iteration %d: x1-update: %w", k, err)
	}
	if !allFinite(s.x1) {
		return fmt.Errorf("neadmm: iteration %d: x1: %w", k, ErrNotFinite)
	}
	if cancelled(s.done) {
		return fmt.Errorf("neadmm: iteration %d: cancelled after the x1-update: %w", k, s.ctx.Err())
	}
	if err := s.p.UpdateX2(s.x2, s.x1, s.y, rho); err != nil {
		return fmt.Errorf("neadmm: iteration %d: x2-update: %w", k, err)
	}
	if !allFinite(s.x2) {
		return fmt.Errorf("neadmm: iteration %d: x2: %w", k, ErrNotFinite)
	}
	return nil
}

// failure classifies an error of a problem method: the context's error
// (directly or from a subproblem that passed it on) is a cancellation.
func (s *solve) failure(err error) StopReason {
	if cerr := s.ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return StopCancelled
	}
	return StopError
}

// residuals is steps 3 and 4: the dual update, the residual norms and
// their tolerances.
func (s *solve) residuals(k int, rho float64) (Iteration, error) {
	p, x1, x2, y := s.p, s.x1, s.x2, s.y
	f1, f2, f2old, jt := s.f1, s.f2, s.f2old, s.jt
	p.Constraint1(f1, x1)
	p.Constraint2(f2, x2)
	nf1, nf2 := vec.Nrm2(f1), vec.Nrm2(f2)
	vec.Axpy(1, f2, f1) // f1 = r
	nr := vec.Nrm2(f1)
	vec.Axpy(rho, f1, y)
	vec.Sub(f2old, f2, f2old) // the change of f2
	p.Constraint1JacT(jt, x1, f2old)
	ns := rho * vec.Nrm2(jt)
	s.f2, s.f2old = f2old, f2 // f2old = f2(x2^(k+1)) for the next iteration
	it := Iteration{K: k, Objective: math.NaN(), Primal: nr, Dual: ns, Rho: rho,
		EpsPrimal: s.sqrtM * s.opt.EpsAbs,
		EpsDual:   s.sqrtN1 * s.opt.EpsAbs,
	}
	// The relative terms only when asked for: 0*Inf would make a tolerance
	// NaN where ||f1|| or ||J^T y|| overflows and EpsRel = 0.
	if s.opt.EpsRel > 0 {
		it.EpsPrimal += s.opt.EpsRel * max(nf1, nf2)
		p.Constraint1JacT(jt, x1, y)
		it.EpsDual += s.opt.EpsRel * vec.Nrm2(jt)
	}
	if !(nr <= math.MaxFloat64 && ns <= math.MaxFloat64 && it.EpsPrimal <= math.MaxFloat64 && it.EpsDual <= math.MaxFloat64) || !allFinite(y) {
		return it, fmt.Errorf("neadmm: iteration %d: residual or y: %w", k, ErrNotFinite)
	}
	return it, nil
}

// tests is step 5: the objective, the hooks and the stopping rules, in
// their order of precedence. It returns 0 to go on.
func (s *solve) tests(it Iteration) StopReason {
	if s.opt.IterationObjective {
		it.Objective = s.obj.Objective(s.x1, s.x2)
	}
	byCallback := s.opt.Callback != nil && s.opt.Callback(it)
	byTest := s.opt.StopTest != nil && s.opt.StopTest(it)
	switch {
	case it.ResidualsMet():
		return StopConverged
	case byTest:
		return StopTest
	case byCallback:
		return StopCallback
	}
	return 0
}

// cancelled reports whether done is closed, without blocking or
// allocating; a nil done (a context that is never cancelled) costs one
// comparison.
func cancelled(done <-chan struct{}) bool {
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// allFinite reports whether no x[i] is NaN or ±Inf. The fast path is one
// vectorized Dot (finite sum of squares); only if that overflows or is NaN
// does it scan.
func allFinite(x []float64) bool {
	return vec.Dot(x, x) <= math.MaxFloat64 || num.AllFinite(x)
}

// inUse guards a workspace against concurrent use: a cheap atomic flag
// instead of silently wrong answers from shared buffers.
type inUse struct{ n int32 }

func (u *inUse) enter(name string) {
	if !atomic.CompareAndSwapInt32(&u.n, 0, 1) {
		panic(name + ": workspace already in use (by another goroutine, or re-entered from a problem method)")
	}
}

func (u *inUse) leave() { atomic.StoreInt32(&u.n, 0) }
