// Package onebit is 1-bit compressive sensing with neADMM: it recovers the
// direction of a sparse signal x in R^N from the signs y = sign(Phi x) of M
// random measurements (section 3.1, Algorithm 2 and section 4.1 of Wang and
// Zhao, "Nonconvex generalization of ADMM for nonlinear equality constrained
// problems"), with the standard baselines, a generator for the standard
// protocol and its metrics.
//
// A Problem holds Phi (M x N, flat row-major) and the signs; a Solver,
// reusable, writes a unit-norm estimate into the caller's x:
//
//	p, err := onebit.NewProblem(phi, m, n, y) // or Generate(opt) and Instance.Problem
//	var s onebit.Solver                       // one per goroutine; reuse it
//	x := make([]float64, n)
//	rec, err := s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
//	res, err := s.Solve(ctx, p, x, onebit.DefaultOptions())
//	q, err := p.WithSigns(y2) // other signs on the same Phi: O(M), no pass over Phi
//
// Solver.Recover estimates a sparse direction without being told its
// sparsity K: use it to recover signals. Solver.Solve minimizes the paper's
// problem at a given lambda,
//
//	min_x ||x||_1 + (lambda/2) sum_i min(y_i (Phi x)_i, 0)^2  s.t. ||x||_2 = 1,
//
// which at the paper's lambda = 0.01 has a (nearly) 1-sparse minimizer
// whatever the signal: use it to minimize that objective. BIHT (told K;
// Solver.BIHT in a Solver's workspace) and Passive are the baselines;
// Generate draws instances of the standard protocol (Gaussian Phi and
// K-sparse x, each sign flipped with probability GenOptions.Flip);
// AngularError, SNR, Problem.Hamming and Problem.Objective are the metrics.
//
// # Contract
//
// Units: Result.Work, RecoverResult.Work and BIHTResult.Work count products
// with the whole of Phi (M*N multiply-adds each; a product with k of its
// columns counts k/N, one with Phi^T over a fraction of the rows that
// fraction). Unlike CPU time, they do not depend on the machine's speed
// or load.
//
// Errors: everything that data, options or sizes can cause returns an error
// wrapping ErrBadInput, matched with errors.Is, before any work (NewProblem
// and WithSigns: lengths, signs other than ±1, non-finite or overflowing
// entries; the solvers: a nil Solver, context or Problem, a zero Problem,
// len(x) != N, invalid options, every stage of a continuation included,
// and options too large for this Phi; Generate: sizes above
// GenOptions.MaxEntries, before allocating). A value that still leaves
// the floating-point range during a solve (options at the edge of their
// checks) wraps both ErrBadInput and neadmm.ErrNotFinite and names the
// options. A cancelled context returns its error, wrapped
// (errors.Is(err, context.Canceled)), with an estimate in x (each
// function's doc says which).
//
// Panics are for programmer errors only, naming the function or type in
// the message: Problem.Objective, Hamming and BestCoordinate on a zero
// Problem or, with AngularError and SNR, for an x of the wrong length, and
// a Solver entered by two goroutines at once (a cheap guard, not a lock).
//
// Concurrency and ownership: a Problem is read-only after NewProblem and may
// be shared by any number of goroutines and Solvers; NewProblem keeps phi
// without copying it (do not modify it while the Problem is in use) and
// copies y. WithSigns's Problems share Phi and what is derived from it
// with their origin, the estimate of ||Phi||_2^2 included (computed once,
// by one goroutine while the others wait), and may be used concurrently
// with it. A Solver is a workspace for one goroutine at a time; Solvers
// are independent.
//
// Allocation: a Solver's first solve of a problem size allocates its
// buffers; a repeat Solve, Recover or Solver.BIHT on the same problem with
// the same options allocates nothing, and a reused Solver allocates on
// another problem only to grow its buffers for a larger working set or
// support than any earlier call needed. WithSigns allocates the Problem
// and its copy of y; BIHT allocates its vectors per call and nothing per
// iteration; Passive allocates nothing.
//
// # Solve
//
// Solve runs Algorithm 2: neADMM (package neadmm) on the split w = x,
// ||w||^2 = 1, with the x-update (eq. 4) solved by FISTA warm-started from
// the previous iterate and the w-update (eq. 5) solved exactly by
// neadmm.SphereProx. With Options.WorkingSet (the default) neADMM runs on a
// working set of columns of Phi, and after each restricted solve one
// product with Phi^T over the violated rows checks the stationarity of the
// full problem, |lambda (Phi^T r)_j| <= 1 for every j outside; the
// violators join and the solve continues. With Options.CoordinateCheck (the
// default) the best signed coordinate vector (Problem.BestCoordinate)
// replaces the estimate when its objective is lower, so Solve is never
// worse than that vector. DefaultOptions keeps the paper's lambda = 0.01
// and 100 iterations with a fixed rho = 10; PaperOptions is the paper's
// setting (the full matrix and a fixed rho = 1, which typically does not
// converge on this problem).
//
// # Recover
//
// Recover runs a continuation in lambda over warm-started working-set
// solves, reweighted L1, a search for the support that the margin of the
// signs favours (refit, prune, swap), and the center, or centroid, of that
// support's consistency cell. For signs that no sparse direction explains
// (flipped signs) a least-squares fit of the signs replaces that estimate
// when it describes the signs more briefly, averaged with, or replaced by,
// the estimate of an outlier pursuit (BIHT that leaves out the signs it
// violates most deeply). Neither K nor the truth is used. Solver.Recover
// lists the stages and RecoverOptions each one's switch and setting;
// RecoverResult reports what each stage did.
//
// This package differs from the authors' MATLAB code in three places, all
// deliberate: the sphere update is the exact global minimizer (theirs uses
// a wrong stationarity formula), the FISTA step is 1/L with a real
// Lipschitz constant (theirs a fixed 1e-9), and the measurements are
// y = sign(Phi x) (theirs Phi x without the sign).
//
// Measurements (the default rho, Solve's cost, Recover against BIHT on
// two instance families, with flipped signs and against N, and the history
// of each stage): see docs/onebit.md in the repository, and docs/results.md
// for the latest protocol table.
package onebit
