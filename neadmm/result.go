package neadmm

import "fmt"

// Iteration is what Options.Callback and Options.StopTest see after
// iteration K.
type Iteration struct {
	K int // iteration number, from 1
	// Objective is F1 + F2 at the new iterate with
	// Options.IterationObjective, else NaN.
	Objective float64
	Primal    float64 // ||r||, r = f1(x1) + f2(x2)
	Dual      float64 // ||s||, s = rho*J^T (f2(x2^(k+1)) - f2(x2^k))
	EpsPrimal float64 // the primal tolerance the residual test compared against
	EpsDual   float64 // the dual tolerance
	Rho       float64 // the rho used in this iteration
}

// ResidualsMet reports whether the iteration passed the engine's residual
// test: Primal <= EpsPrimal and Dual <= EpsDual.
func (it Iteration) ResidualsMet() bool { return it.Primal <= it.EpsPrimal && it.Dual <= it.EpsDual }

// StopReason tells why a solve ended. Exactly one reason describes a
// solve; when several stopping rules fire in the same iteration, the
// residual test wins over Options.StopTest, which wins over
// Options.Callback.
type StopReason int

const (
	// StopConverged: the residual test passed, ||r|| <= EpsPrimal and
	// ||s|| <= EpsDual (see Options.EpsAbs). Only this reason means that
	// the iterate is feasible and stationary to the tolerances.
	StopConverged StopReason = iota + 1
	// StopMaxIter: MaxIter iterations ran and no stopping rule fired.
	StopMaxIter
	// StopCancelled: the context was done; Solve also returns its error.
	StopCancelled
	// StopCallback: Options.Callback returned true (a request of the
	// caller, not a convergence test).
	StopCallback
	// StopError: a subproblem (or Starter.Start) failed, or an iterate was
	// not finite; Solve also returns the error.
	StopError
	// StopInvalid: the options, the dimensions or the initial point were
	// rejected before any work; Solve also returns the error.
	StopInvalid
	// StopTest: Options.StopTest, the caller's second convergence test,
	// returned true while the residual test had not passed.
	StopTest
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
	case StopTest:
		return "stop test"
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
	// Objective is F1 + F2 at the returned iterate with
	// Options.FinalObjective, else NaN. It is NaN too when the solve failed
	// (Reason StopError: the iterate may not be finite); a cancelled solve
	// (StopCancelled) has it at the iterate it leaves.
	Objective float64
}
