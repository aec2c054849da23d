package neadmm

import (
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/num"
)

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

// MinRho is the smallest penalty Options accept (Rho, RhoMin), the
// smallest normal float64, 2^-1022: subproblems divide by rho (the scaled
// multiplier y/rho, a prox step 1/rho), and for a subnormal rho that
// overflows.
const MinRho = 0x1p-1022

// Options configures a solve. Rho and MaxIter are required; the other
// fields' zero values select the documented defaults (tolerances: zero).
type Options struct {
	// Rho is the initial penalty; it must be finite and >= MinRho.
	Rho float64
	// Policy is the rho schedule; the zero value is RhoGeometric.
	Policy RhoPolicy
	// RhoGrowth is the factor per iteration of RhoGeometric; 0 means
	// DefaultRhoGrowth (1.02). It must be >= 1.
	RhoGrowth float64
	// RhoMax caps rho under RhoGeometric and RhoBalance; 0 means
	// DefaultRhoMaxFactor*Rho. It must be >= Rho.
	RhoMax float64
	// RhoMin is the floor of RhoBalance; 0 means DefaultRhoMinFactor*Rho
	// (at least MinRho). It must be in [MinRho, Rho].
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
	// solving goroutine; returning true stops the solve with StopCallback
	// (unless a convergence test passed in the same iteration). It is the
	// caller's hook for logging, time budgets and the like; a stop it
	// requests is not convergence. It may read (not modify) the caller's
	// x1, x2 and y.
	Callback func(Iteration) (stop bool)
	// StopTest, if not nil, is a second convergence test beside the
	// residual test: it is called after every iteration, after Callback,
	// on the solving goroutine, and returning true stops the solve with
	// StopTest (unless the residual test passed in the same iteration,
	// which gives StopConverged). Applications put their own criteria
	// here, such as a stalled objective; the Result then says which test
	// ended the run. It may read (not modify) the caller's x1, x2 and y.
	StopTest func(Iteration) (stop bool)
	// IterationObjective asks for F1 + F2 after every iteration, in
	// Iteration.Objective (else NaN): one Objectiver.Objective call per
	// iteration. Solve rejects it for a problem that does not implement
	// Objectiver.
	IterationObjective bool
	// FinalObjective asks for F1 + F2 at the returned iterate, in
	// Result.Objective (else NaN): one Objectiver.Objective call at the
	// end. Solve rejects it for a problem that does not implement
	// Objectiver.
	FinalObjective bool
}

// Validate reports the first invalid field of o, as Solve would before
// any work; the error wraps ErrBadInput. Packages that build Options for
// the engine call it to reject bad settings before their own setup work.
func (o Options) Validate() error {
	bad := func(name string, v float64, want string) error {
		return fmt.Errorf("%w: Options.%s = %g, want %s", ErrBadInput, name, v, want)
	}
	switch {
	case !(o.Rho >= MinRho) || !num.Finite(o.Rho):
		return bad("Rho", o.Rho, "finite and >= MinRho (2^-1022)")
	case o.MaxIter <= 0:
		return fmt.Errorf("%w: Options.MaxIter = %d, want > 0", ErrBadInput, o.MaxIter)
	case !(o.EpsAbs >= 0) || !num.Finite(o.EpsAbs):
		return bad("EpsAbs", o.EpsAbs, "finite and >= 0")
	case !(o.EpsRel >= 0) || !num.Finite(o.EpsRel):
		return bad("EpsRel", o.EpsRel, "finite and >= 0")
	case o.Policy < RhoGeometric || o.Policy > RhoBalance:
		return fmt.Errorf("%w: Options.Policy = %d, unknown (want RhoGeometric, RhoFixed or RhoBalance)", ErrBadInput, int(o.Policy))
	case o.RhoGrowth != 0 && !(o.RhoGrowth >= 1 && num.Finite(o.RhoGrowth)):
		return bad("RhoGrowth", o.RhoGrowth, "0 (default) or finite and >= 1")
	case o.RhoMax != 0 && !(o.RhoMax >= o.Rho && num.Finite(o.RhoMax)):
		return bad("RhoMax", o.RhoMax, "0 (default) or finite and >= Rho")
	case o.RhoMin != 0 && !(o.RhoMin >= MinRho && o.RhoMin <= o.Rho):
		return bad("RhoMin", o.RhoMin, "0 (default) or in [MinRho, Rho]")
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
		// At least MinRho: for a Rho near it the product is subnormal
		// (or 0), and balancing would pass a rho whose reciprocal
		// overflows (or rho = 0).
		o.RhoMin = max(DefaultRhoMinFactor*o.Rho, MinRho)
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
