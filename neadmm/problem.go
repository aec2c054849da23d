package neadmm

import "context"

// Problem is an instance of
//
//	min F1(x1) + F2(x2)  s.t.  f1(x1) + f2(x2) = 0,   x1 in R^n1, x2 in R^n2, f1, f2 into R^m,
//
// for the neADMM engine (Algorithm 1 of the paper). The engine owns the dual
// update, the residuals, rho and the stopping rules; the problem supplies
// the two subproblem minimizers of the augmented Lagrangian
//
//	L_rho(x1, x2, y) = F1(x1) + F2(x2) + y^T (f1(x1) + f2(x2)) + rho/2 ||f1(x1) + f2(x2)||^2,
//
// the constraint maps and one Jacobian-transpose product.
//
// y is always the unscaled multiplier. A subproblem that prefers the scaled
// form u = y/rho computes it from the rho it is given, so nothing needs
// rescaling when rho changes between iterations.
//
// # What the engine promises between calls
//
// One Solver.Solve calls the methods on the goroutine that called Solve,
// one at a time, in this order:
//
//	Dims()                               before anything else
//	Start(ctx, x1, x2, y)                once, if the problem is a Starter
//	Constraint2(f2, x2)                  once, at the starting x2
//	for each iteration:
//	    UpdateX1(x1, x2, y, rho)
//	    UpdateX2(x2, x1, y, rho)
//	    Constraint1(f1, x1), Constraint2(f2, x2)
//	    (the dual update y += rho*(f1 + f2): the only change of y)
//	    Constraint1JacT(dst, x1, v)      once, twice with Options.EpsRel > 0
//	    Objective(x1, x2)                with Options.IterationObjective
//	    Options.Callback, Options.StopTest
//	Objective(x1, x2)                    at the end, with Options.FinalObjective
//
// A solve may end after any of these calls (cancellation, an error, a
// stopping test); nothing is called after Solve returns.
//
// x1, x2 and y are the caller's slices, the same ones on every call of a
// solve. The engine never writes x1 or x2: x1 changes only inside UpdateX1
// and x2 only inside UpdateX2. Hence, within one solve,
//
//   - the x2 that UpdateX2 leaves is passed unchanged to Constraint2 and
//     Objective of that iteration and to the next UpdateX1;
//   - the x1 that UpdateX1 leaves is passed unchanged to UpdateX2,
//     Constraint1, Constraint1JacT and Objective of that iteration;
//   - UpdateX1 and UpdateX2 of one iteration see the same y.
//
// So a value an update derives from its own output (the maxima of t per
// bag, X*beta) may be kept in the problem and used by those later calls as
// it is: no recomputation, no comparison of slices or pointers. Between
// solves the caller may change anything; a problem that keeps such values
// implements Starter, whose Start marks the beginning of each solve.
//
// The other slices (dst, f1, f2, v) are the engine's buffers, valid during
// the call only. Implementations must not retain any slice after the call
// returns.
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
// The engine evaluates it only when asked to (it may be costly): after
// every iteration with Options.IterationObjective, for Iteration.Objective,
// and once at the returned iterate with Options.FinalObjective, for
// Result.Objective.
type Objectiver interface {
	// Objective returns F1(x1) + F2(x2). x1 and x2 are read-only.
	Objective(x1, x2 []float64) float64
}

// Starter is implemented by problems that need to know where a solve
// begins: to drop values cached from an earlier solve (see "What the engine
// promises between calls" at Problem), or to hand the solve's context to
// an inner iterative solver.
type Starter interface {
	// Start is called once per Solver.Solve, after the input passed
	// validation and before any other method but Dims. x1, x2 and y hold
	// the starting point and are read-only here.
	//
	// ctx is Solve's context. A problem whose updates run long (an inner
	// FISTA) may keep it until Solve returns and pass it on, so that
	// cancellation reaches the inner loop: an update that returns an error
	// wrapping ctx.Err() ends the solve with StopCancelled.
	//
	// An error ends the solve before the first iteration, with Reason
	// StopError (StopCancelled if it wraps ctx.Err()).
	Start(ctx context.Context, x1, x2, y []float64) error
}
