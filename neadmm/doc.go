// Package neadmm is the generic engine of neADMM, the alternating direction
// method of multipliers for nonlinear equality constraints (Wang and Zhao,
// "Nonconvex generalization of ADMM for nonlinear equality constrained
// problems"), together with the solvers its subproblems need:
//
//   - Solver runs Algorithm 1 on any Problem
//     min F1(x1) + F2(x2) s.t. f1(x1) + f2(x2) = 0;
//   - FISTA is a reusable accelerated proximal-gradient solver for the
//     convex subproblems (smooth f + proximable g);
//   - SphereProx is the exact global minimizer of the nonconvex w-update
//     of spherically constrained problems (Theorem 1);
//   - MaxProx is the exact global minimizer of the nonconvex t-update of
//     max-constrained problems (Theorem 2);
//   - TopKProx and MeanProx do the same for the pooling family that
//     generalizes the max constraint: q_i equal to the mean of the k
//     largest t_ij (nonconvex for 1 <= k < n, exact by a sort-based scan)
//     and to the mean of all of them (a convex quadratic in closed form).
//
// # Conventions
//
// The caller owns the iterates: Solver.Solve reads the starting x1, x2 and y
// from the caller's slices and leaves the final iterate in them, so warm
// starts (a regularization path, a continuation in lambda) just call Solve
// again. y is always the unscaled multiplier. Solver and FISTA are
// workspaces: the zero value is ready, the first solve of a size allocates
// the buffers and every later solve and every iteration allocates nothing.
// A workspace belongs to one goroutine; independent workspaces may run in
// parallel (there is no package state). SphereProx, MaxProx, TopKProx and
// MeanProx never allocate.
//
// # Errors, panics and cancellation
//
// Solvers return errors, never panic, for anything options, sizes or data
// can cause: invalid input is rejected before any work with an error
// wrapping ErrBadInput (Options.Validate and FISTAOptions.Validate check
// options alone); a non-finite iterate wraps ErrNotFinite and names the
// iteration; a failed line search wraps ErrBacktrack; a cancelled context
// gives its error, wrapped, so errors.Is(err, context.Canceled) holds.
// Panics are reserved for programmer errors: the four proxes on
// mismatched lengths, overlapping arguments or (TopKProx) k outside
// 1..len(phi) (the message names the function), and a Solver or FISTA
// entered while another call on it runs.
//
// Solver.Solve checks its context before every iteration and between the
// two updates, and hands it to problems that implement Starter, which pass
// it on to inner solvers; FISTA.Solve checks it before every iteration and
// every retried trial step. So a cancellation returns within one FISTA
// iteration of an x-update that passes the context on.
//
// # What passes between the engine and a problem
//
// The Problem documentation lists the calls of a solve in order and what
// stays unchanged between them (x2 from UpdateX2 to Constraint2 and the
// next UpdateX1, x1 through an iteration, y outside the dual update), so a
// problem may cache values derived from its own updates; Starter marks the
// start of each solve. The engine evaluates the objective only when asked
// (Options.IterationObjective, Options.FinalObjective). Beside the
// residual test, an application adds its own convergence test with
// Options.StopTest, reported as StopTest; Options.Callback is the
// caller's hook and reports StopCallback. Only StopConverged means the
// residual test passed.
//
// # Mapping an application onto Problem
//
// 1-bit compressive sensing, min l(x) s.t. ||x|| = 1, splits as x1 = x,
// x2 = w in R^N with the constraint (||w||^2 - 1, w - x) = 0 in R^(1+N):
//
//	f1(x) = (0, -x)            J^T v = -v[1:]
//	f2(w) = (||w||^2 - 1, w)
//	UpdateX1: FISTA on l(x) + rho/2 ||w - x + y[1:]/rho||^2  (eq. 4)
//	UpdateX2: SphereProx(w, x - y[1:]/rho, 1 - y[0]/rho)    (eq. 5)
//
// Multi-instance learning (B bags, I instances, D features) takes
// x1 = (q, beta, beta0) in R^(B+D+1), x2 = t in R^I, and the constraints
// q - max_bag t = 0 (B rows) and t - X beta - beta0 = 0 (I rows):
//
//	f1(x1) = (q, -X beta - beta0)     J^T v = (v[:B], -X^T v[B:], -sum v[B:])
//	f2(t)  = (-max t per bag, t)
//	UpdateX1: the q- and beta-updates (eqs. 8-9), both from t^k
//	UpdateX2: per bag i, MaxProx(t_i, X_i beta - y2_i/rho, q_i + y1_i/rho)  (eq. 10)
//
// The example of Solver.Solve is the first mapping in full, with a closed
// form UpdateX1; the example of Starter adds an L1 term, so that UpdateX1
// runs FISTA with the solve's context; the example of Options.StopTest
// adds an application's own stopping test.
//
// # The penalty rho
//
// The paper keeps rho fixed. On these nonconvex constraints a fixed rho
// often stalls: the iterate oscillates with ||r|| and ||s|| of the same
// size. The default policy is therefore RhoGeometric, a rho growing by 2%
// per iteration; RhoFixed and RhoBalance (Boyd et al. 2011, section
// 3.4.1) are available. Because y is unscaled, a change of rho needs no
// rescaling of the dual.
//
// Stopping follows Boyd et al. (2011), section 3.3.1 (see Options.EpsAbs),
// with an iteration cap, context cancellation, an optional second
// convergence test (Options.StopTest) and an optional per-iteration
// callback that may stop the solve.
//
// Measurements (how often each rho policy stalls, cancellation latency):
// see docs/neadmm.md in the repository.
package neadmm
