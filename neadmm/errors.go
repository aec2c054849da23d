package neadmm

import "errors"

// Sentinel errors for classes of failure, matched with errors.Is. Every
// error this package returns wraps one of them, or a context's error, or
// the error of a Problem method, together with the details (the field, the
// iteration, the sizes involved).
//
// What panics instead: only programmer errors in the low-level prox
// functions (SphereProx, MaxProx: mismatched lengths, overlapping
// arguments, each message naming the function) and a workspace (Solver,
// FISTA) entered by two goroutines at once. Everything options, sizes or
// data can cause is an error.
var (
	// ErrBadInput is wrapped by every error for invalid input, returned
	// before any work: an invalid option (see Options.Validate and
	// FISTAOptions.Validate), a nil problem or context, slices whose
	// lengths disagree with the problem's dimensions, a non-finite
	// starting point, or an option the problem cannot serve (an objective
	// from a problem that does not implement Objectiver).
	ErrBadInput = errors.New("neadmm: bad input")
	// ErrNotFinite is wrapped by the errors Solve and FISTA.Solve return
	// when an iterate or a residual is NaN or infinite, and (together with
	// ErrBadInput) when the starting point is.
	ErrNotFinite = errors.New("NaN or infinite value")
	// ErrBacktrack is wrapped by the error FISTA.Solve returns when its
	// backtracking line search finds no acceptable step: it reached the
	// cap FISTAOptions.MaxBacktrack, or pushed the Lipschitz estimate
	// above 1e300 (f not smooth, or Func and FuncGrad disagree).
	ErrBacktrack = errors.New("FISTA backtracking found no step")
)
