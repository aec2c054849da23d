package onebit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// Start selects the starting point of a solve.
type Start int

const (
	// StartBackprojection (the zero value, the default) starts from
	// Phi^T y / ||Phi^T y||, the passive estimate without thresholding
	// (from e_1 in the degenerate case Phi^T y = 0).
	StartBackprojection Start = iota
	// StartRandom starts from a direction drawn uniformly on the sphere
	// with Options.Seed.
	StartRandom
	// StartGiven starts from the x passed to Solve, normalized.
	StartGiven
)

// String returns the start's name.
func (s Start) String() string {
	switch s {
	case StartBackprojection:
		return "backprojection"
	case StartRandom:
		return "random"
	case StartGiven:
		return "given"
	}
	return fmt.Sprintf("Start(%d)", int(s))
}

// Options configures Solver.Solve. Start from DefaultOptions or
// PaperOptions and change fields; every field is checked, none has a
// hidden default except RhoGrowth.
type Options struct {
	// Lambda is the weight of the consistency loss; > 0, and small
	// enough that the x-update's Lipschitz constant stays finite:
	// 2*Lambda*||Phi||_F^2 + rho <= MaxFloat64 for the largest rho the
	// policy reaches (Rho, or neadmm.DefaultRhoMaxFactor*Rho).
	Lambda float64
	// Rho is the initial penalty; finite and >= neadmm.MinRho (2^-1022,
	// the smallest normal float64): the updates divide by rho, and for a
	// subnormal rho 1/rho overflows. (RhoBalance never lowers rho below
	// neadmm.MinRho either.)
	Rho float64
	// Policy is the rho schedule (see package neadmm).
	Policy neadmm.RhoPolicy
	// RhoGrowth is the factor per iteration of neadmm.RhoGeometric; 0
	// means neadmm.DefaultRhoGrowth (1.02).
	RhoGrowth float64
	// MaxIter caps the outer (neADMM) iterations; > 0.
	MaxIter int
	// EpsAbs and EpsRel are the engine's stopping tolerances (see
	// neadmm.Options.EpsAbs); >= 0, with sqrt(N+1)*EpsAbs and EpsRel at
	// most 2^960 (a residual that large comes only with iterates near
	// overflow, so a larger tolerance stops nothing sooner).
	EpsAbs, EpsRel float64
	// InnerMaxIter caps the FISTA steps of each x-update; > 0.
	InnerMaxIter int
	// InnerTol stops FISTA when a step changes x by at most InnerTol
	// relative to max(1, ||x||); finite and >= 0.
	InnerTol float64
	// InnerRel, if > 0, makes the x-updates inexact while the outer
	// iterations still move far: each x-update after the first stops
	// FISTA at max(InnerTol, InnerRel*d), d the distance the previous
	// x-update moved x; near convergence d, and with it the tolerance,
	// shrinks to InnerTol. Finite and >= 0; 0 is InnerTol throughout.
	InnerRel float64
	// Start is the starting point.
	Start Start
	// Seed seeds the random start (StartRandom only).
	Seed uint64
	// Callback, if not nil, is called after every outer iteration (see
	// neadmm.Options.Callback); with it set, every iteration also
	// evaluates the objective (one more product with Phi, or with the
	// working set's columns).
	Callback func(neadmm.Iteration) (stop bool)
	// WorkingSet solves on a working set of columns of Phi: neADMM runs on
	// the problem restricted to those coordinates (the others held at 0),
	// products use a compact copy of the columns, and after each
	// restricted solve one product with Phi^T over the violated rows checks
	// the stationarity conditions of the full problem, |lambda (Phi^T r)_j|
	// <= 1 for every j outside; the violators join the set and the solve
	// continues. It starts from the 16 largest coordinates of the starting
	// point. The estimate is a stationary point of the full problem like
	// that of a full solve, at a fraction of the cost when it is sparse
	// (docs/onebit.md, "Solve's cost"), but not necessarily the same one.
	WorkingSet bool
	// CoordinateCheck compares the estimate with the best signed
	// coordinate vector (Problem.BestCoordinate, one pass over Phi) and
	// returns that vector when its objective is lower (Result.Coordinate).
	// At small lambda, such as the paper's, the minimizer is often of that
	// form and neADMM's local search does not always find it.
	CoordinateCheck bool
}

// DefaultOptions returns the settings this package recommends for the
// paper's problem: the paper's lambda = 0.01 and 100 iterations, but a
// fixed rho = 10 instead of the paper's fixed rho = 1, which stalls (see
// PaperOptions, and docs/onebit.md, "The default rho", for the measurement behind
// the choice), a working set and the coordinate check.
func DefaultOptions() Options {
	return Options{
		Lambda:          0.01,
		Rho:             10,
		Policy:          neadmm.RhoFixed,
		MaxIter:         100,
		EpsAbs:          1e-6,
		EpsRel:          1e-4,
		InnerMaxIter:    200,
		InnerTol:        1e-6,
		WorkingSet:      true,
		CoordinateCheck: true,
	}
}

// PaperOptions returns the paper's settings (section 4.1): lambda = 0.01,
// a fixed rho = 1 and 100 iterations of neADMM on the full problem, with
// DefaultOptions' tolerances and inner solver (and neither the working set
// nor the coordinate check). A fixed rho = 1 typically does not converge
// on this problem (w flips sign between iterations); it is kept to
// reproduce the paper.
func PaperOptions() Options {
	o := DefaultOptions()
	o.Rho = 1
	o.Policy = neadmm.RhoFixed
	o.WorkingSet, o.CoordinateCheck = false, false
	return o
}

func (o *Options) check() error {
	switch {
	case !(o.Lambda > 0) || !num.Finite(o.Lambda):
		return fmt.Errorf("%w: Lambda = %g, want finite and > 0", ErrBadInput, o.Lambda)
	case !(o.Rho >= neadmm.MinRho) || !num.Finite(o.Rho):
		return fmt.Errorf("%w: Rho = %g, want finite and >= neadmm.MinRho (2^-1022)", ErrBadInput, o.Rho)
	case o.MaxIter <= 0 || o.InnerMaxIter <= 0:
		return fmt.Errorf("%w: MaxIter = %d, InnerMaxIter = %d, want both > 0", ErrBadInput, o.MaxIter, o.InnerMaxIter)
	case !(o.InnerTol >= 0) || !num.Finite(o.InnerTol):
		return fmt.Errorf("%w: InnerTol = %g, want finite and >= 0", ErrBadInput, o.InnerTol)
	case !(o.InnerRel >= 0) || !num.Finite(o.InnerRel):
		return fmt.Errorf("%w: InnerRel = %g, want finite and >= 0", ErrBadInput, o.InnerRel)
	case !(o.EpsAbs >= 0 && o.EpsRel >= 0) || !num.Finite(o.EpsAbs) || !num.Finite(o.EpsRel):
		return fmt.Errorf("%w: EpsAbs, EpsRel = %g, %g, want finite and >= 0", ErrBadInput, o.EpsAbs, o.EpsRel)
	case !(o.EpsRel <= maxTol):
		return fmt.Errorf("%w: EpsRel = %g, want at most 2^960 (a larger tolerance stops nothing sooner, and its products overflow)",
			ErrBadInput, o.EpsRel)
	case o.Start < StartBackprojection || o.Start > StartGiven:
		return fmt.Errorf("%w: unknown Start %d", ErrBadInput, int(o.Start))
	}
	if err := o.engine().Validate(); err != nil { // Policy, RhoGrowth
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return nil
}

// maxTol bounds the engine's tolerances, sqrt(N+1)*EpsAbs and EpsRel
// (see neadmm.Options.EpsAbs): a residual that large comes only with
// iterates near overflow, so a larger tolerance stops no solve sooner,
// and the engine's sums and products with it overflow (an error after
// work that named no option).
const maxTol = 0x1p960

// phiSize is what the checks of options need to know of the Phi a solve
// runs on; the zero value checks the options alone.
type phiSize struct {
	frob float64 // ||Phi||_F^2, which bounds ||Phi||_2^2
	n    int     // N
}

// checkOn validates what o asks of the Phi of size on: that the Lipschitz
// constant of the x-update, Lambda*||Phi||_2^2 + rho (see
// splitting.UpdateX1), stays finite for every rho the policy can reach,
// with room for the estimate's margin and rounding, and that the
// engine's absolute tolerance sqrt(N+1)*EpsAbs stays below maxTol.
func (o *Options) checkOn(on phiSize) error {
	rhoMax := o.Rho
	if o.Policy != neadmm.RhoFixed {
		rhoMax = min(neadmm.DefaultRhoMaxFactor*o.Rho, math.MaxFloat64)
	}
	switch {
	case !(2*o.Lambda*on.frob+rhoMax <= math.MaxFloat64):
		return fmt.Errorf("%w: Lambda = %g, Rho = %g: the x-update's Lipschitz constant Lambda*||Phi||_2^2 + rho overflows "+
			"(||Phi||_F^2 = %g); want 2*Lambda*||Phi||_F^2 + %g <= MaxFloat64", ErrBadInput, o.Lambda, o.Rho, on.frob, rhoMax)
	case !(math.Sqrt(float64(on.n)+1)*o.EpsAbs <= maxTol):
		return fmt.Errorf("%w: EpsAbs = %g, want at most 2^960/sqrt(N+1) = %g (a larger tolerance stops nothing sooner, and its products overflow)",
			ErrBadInput, o.EpsAbs, maxTol/math.Sqrt(float64(on.n)+1))
	}
	return nil
}

func (o *Options) engine() neadmm.Options {
	return neadmm.Options{
		Rho: o.Rho, Policy: o.Policy, RhoGrowth: o.RhoGrowth,
		EpsAbs: o.EpsAbs, EpsRel: o.EpsRel, MaxIter: o.MaxIter, Callback: o.Callback,
		// The objective per iteration only for a callback, none at the end
		// (the solver evaluates it at the normalized estimate).
		IterationObjective: o.Callback != nil,
	}
}

// Result reports a solve.
type Result struct {
	// Iterations is the number of outer (neADMM) iterations, over all
	// restricted solves of a working-set solve.
	Iterations int
	// Reason tells why the (last restricted) solve ended.
	Reason neadmm.StopReason
	// Primal and Dual are ||r|| and ||s|| of the last iteration; Rho is
	// the rho it used.
	Primal, Dual, Rho float64
	// Objective is the paper's objective at the returned (unit-norm) x
	// with the solve's lambda.
	Objective float64
	// InnerIterations counts the FISTA steps of all x-updates.
	InnerIterations int
	// Products counts the matrix-vector products with Phi, Phi^T or the
	// working set's columns (and their transpose), TransProducts those of
	// them with a transpose; Work is their cost in units of one product
	// with the whole of Phi (M*N multiply-adds): a product with k columns
	// counts k/N, one with Phi^T over the violated rows only their
	// fraction of M, a full FISTA step (Phi x and Phi^T r in one sweep
	// over Phi) 2. The start Phi^T y, the final
	// objective and the coordinate check (one pass each) are included.
	Products, TransProducts int
	Work                    float64
	// WorkingSet is the final size of the working set (0 for a solve on
	// the full problem), and KKTChecks the number of stationarity checks
	// on the full problem it took.
	WorkingSet, KKTChecks int
	// Coordinate reports that the coordinate check replaced neADMM's
	// estimate by a signed coordinate vector with a lower objective.
	Coordinate bool
}

// Solver holds the workspace of Solve, Recover and BIHT. The zero value
// is ready; the first solve of a problem size allocates its buffers, later
// solves of that size or smaller allocate nothing unless their working
// set or (Recover) support outgrows every earlier one's (see Recover). A
// Solver must not be used by several goroutines at once: it panics if it
// is (a cheap guard, not a lock); Solvers are independent.
type Solver struct {
	busy atomic.Bool
	admm neadmm.Solver
	sp   splitting
	full operator // all of Phi
	ws   operator // the working set's columns
	op   *operator
	// The iterate: x and w (k), dual (1+k), with k the working-set size
	// or N.
	x, w, dual []float64
	wt         []float64 // per-coordinate L1 weights (k) of reweighted solves
	g          []float64 // N: gradient of the KKT check; scratch
	cand       []int     // N: violators of the KKT check
	pv, pu     []float64 // power iteration of the compact norm: N, M
	pvk        int       // entries of pv that belong to the last estimate
	wsNorm2    float64   // estimate for the working set of size wsNormK
	wsNormK    int
	wsOff      float64   // the L1 weight outside the working set
	tmp, keep  []float64 // N
	// pcg and rng draw StartRandom's start (rng reads pcg, reseeded per
	// solve), kept so that later solves allocate nothing.
	pcg rand.PCG
	rng *rand.Rand
	// sc is Recover's copy of scSrc's Phi scaled by a power of two (see
	// Solver.rescaled), with the signs of the last call.
	sc    *Problem
	scSrc *phiData
	// The workspaces of Recover's stages (see Recover), in their order:
	// the sign regression, the continuation (and the reweighting), the
	// consistency cell that the support search, center, polish and
	// centroid share, the search, the polish, the choice, the centroid
	// and the outlier pursuit.
	rw   regressWork
	ct   continuationWork
	cell cellWork
	sw   searchWork
	pol  polishWork
	ch   choiceWork
	ew   centroidWork
	pw   pursuitWork
	// bw is Solver.BIHT's workspace.
	bw bihtWork
}

// acquire marks s busy and panics if it already is.
func (s *Solver) acquire() {
	if !s.busy.CompareAndSwap(false, true) {
		panic("onebit: Solver used by two goroutines at once (use one Solver per goroutine)")
	}
}

func (s *Solver) release() { s.busy.Store(false) }

func (s *Solver) resize(p *Problem) {
	m, n := p.m, p.n
	s.sp.resize(m, n)
	s.x = buf.Grow(s.x, n)
	s.w = buf.Grow(s.w, n)
	s.dual = buf.Grow(s.dual, 1+n)
	s.wt = buf.Grow(s.wt, n)
	s.g = buf.Grow(s.g, n)
	s.cand = growInts(s.cand, n)
	s.pv = buf.Grow(s.pv, n)
	s.pu = buf.Grow(s.pu, m)
	s.tmp = buf.Grow(s.tmp, n)
	s.keep = buf.Grow(s.keep, n)
	s.ct.resize(m, n)
	s.cell.resize(m, n)
	s.sw.resize(m, n)
	s.pol.resize(n)
	s.ch.resize(m, n)
	s.full.setFull(p)
	s.full.products, s.full.trans, s.full.work = 0, 0, 0
	s.ws.products, s.ws.trans, s.ws.work = 0, 0, 0
}

// Solve runs neADMM (Algorithm 2 of the paper) on
//
//	min_x ||x||_1 + (opt.Lambda/2) sum_i min(y_i (Phi x)_i, 0)^2  s.t. ||x||_2 = 1
//
// and writes the unit-norm estimate into x (len(x) must be N). The estimate
// is the x-iterate of the last iteration (sparse: a soft-thresholding
// output) normalized, or the w-iterate if x is zero; at convergence the two
// agree. With opt.Start == StartGiven, x also holds the starting point.
// With opt.WorkingSet the solve runs on a growing set of coordinates (see
// Options.WorkingSet); with opt.CoordinateCheck the best signed coordinate
// vector replaces the estimate when its objective is lower.
//
// Solve returns an error wrapping ErrBadInput, before any work, for a nil
// Solver or context, a nil or zero p, invalid options (the engine's
// included, and those too large for this Phi), len(x) != N, or a
// StartGiven x that is zero or not finite (any finite non-zero x, however
// small or large, is a valid start). During the solve it returns the
// engine's errors: on cancellation (checked at every FISTA step) wrapping
// context.Canceled and the like; for a value that leaves the
// floating-point range, which options extreme for this Phi can still
// cause, wrapping both ErrBadInput and neadmm.ErrNotFinite and naming the
// options. x then holds the normalized last iterate when it is finite.
// The Result is meaningful in every case.
func (s *Solver) Solve(ctx context.Context, p *Problem, x []float64, opt Options) (Result, error) {
	res := Result{Objective: math.NaN(), Rho: opt.Rho}
	if err := checkCall("Solve", s, ctx, p, x); err != nil {
		return res, err
	}
	if err := opt.check(); err != nil {
		return res, err
	}
	if err := opt.checkOn(phiSize{p.frob, p.n}); err != nil {
		return res, err
	}
	if opt.Start == StartGiven {
		for j, v := range x {
			if !num.Finite(v) {
				return res, fmt.Errorf("%w: StartGiven: x[%d] = %g, want finite", ErrBadInput, j, v)
			}
		}
		if vec.Nrm2(x) == 0 {
			return res, fmt.Errorf("%w: StartGiven: x = 0, want a non-zero start", ErrBadInput)
		}
	}
	s.acquire()
	defer s.release()
	s.resize(p)
	switch opt.Start {
	case StartBackprojection:
		s.backprojection(x, p)
	case StartRandom:
		// The Solver's generator, reseeded: the same stream as a new
		// rand.NewPCG(opt.Seed, "random"), without allocating one per solve.
		if s.rng == nil {
			s.rng = rand.New(&s.pcg)
		}
		s.pcg.Seed(opt.Seed, 0x72616e646f6d) // "random"
		for j := range x {
			x[j] = s.rng.NormFloat64()
		}
	}
	normalize(x)
	if opt.WorkingSet {
		s.wsInit(p, x, wsInitial)
	} else {
		s.fullInit(p, x)
	}
	s.sp.cap = 0
	res, _, err := s.stage(ctx, p, opt, solveMode{off: 1})
	s.export(x)
	if normalize(x) {
		res.Objective = s.objective(p, x, opt.Lambda)
	}
	if err == nil && opt.CoordinateCheck {
		c := p.bestCoordinate(s.tmp, opt.Lambda, s.g, s.keep)
		s.full.products++
		s.full.work++
		if c < res.Objective || math.IsNaN(res.Objective) {
			copy(x, s.tmp)
			res.Objective, res.Coordinate = c, true
		}
	}
	s.count(&res)
	return res, err
}

// checkCall returns an error wrapping ErrBadInput, naming fn, for a nil
// Solver, context or Problem, a zero Problem or len(x) != N.
func checkCall(fn string, s *Solver, ctx context.Context, p *Problem, x []float64) error {
	switch {
	case s == nil:
		return fmt.Errorf("%w: %s: nil *Solver", ErrBadInput, fn)
	case ctx == nil:
		return fmt.Errorf("%w: %s: nil context (use context.Background())", ErrBadInput, fn)
	}
	if err := p.valid(fn); err != nil {
		return err
	}
	if len(x) != p.n {
		return fmt.Errorf("%w: %s: len(x) = %d, want N = %d", ErrBadInput, fn, len(x), p.n)
	}
	return nil
}

// count fills the product counts of res from both operators.
func (s *Solver) count(res *Result) {
	res.Products = s.full.products + s.ws.products
	res.TransProducts = s.full.trans + s.ws.trans
	res.Work = s.full.work + s.ws.work
}

// normalize scales x to unit norm and reports whether it could: it leaves
// a zero or non-finite x as it is and returns false. A norm that overflows
// (finite entries near MaxFloat64) or whose reciprocal does (subnormal
// entries) is first brought into range by an exact power-of-two scaling.
func normalize(x []float64) bool {
	nx, pre, ok := normScale(x)
	if !ok {
		return false
	}
	if pre != 1 {
		vec.Scal(pre, x) // exact
		nx = vec.Nrm2(x)
	}
	vec.Scal(1/nx, x)
	return true
}

// normScale returns ||x|| (vec.Nrm2) and the power of two pre to scale x
// by before dividing by its norm: 1 when the norm is in [2^-1000,
// MaxFloat64] (nrm is then the one to divide by); when it overflows
// (finite entries near MaxFloat64), the one that brings the largest |x_j|
// to [0.5, 1), so that the norm is at most sqrt(len(x)) whatever the
// length (a fixed 2^-4 overflowed again for more than 256 entries near
// MaxFloat64); when it is below 2^-1000 (its reciprocal overflows, or it
// is subnormal, hence inexact), 2^1000. ok is false for a zero x or one
// holding a NaN or ±Inf.
func normScale(x []float64) (nrm, pre float64, ok bool) {
	nrm = vec.Nrm2(x)
	switch {
	case nrm == 0 || math.IsNaN(nrm):
		return nrm, 0, false
	case nrm >= 0x1p-1000 && nrm <= math.MaxFloat64:
		return nrm, 1, true
	case nrm < 0x1p-1000:
		return nrm, 0x1p1000, true
	}
	amax := 0.0
	for _, v := range x {
		if math.IsInf(v, 0) {
			return nrm, 0, false
		}
		amax = max(amax, math.Abs(v))
	}
	_, e := math.Frexp(amax)
	return nrm, math.Ldexp(1, -e), true
}

// backprojection sets x = Phi^T y (e_1 if that is zero), not normalized.
func (s *Solver) backprojection(x []float64, p *Problem) {
	s.full.mulT(x, p.y)
	if vec.Nrm2(x) == 0 {
		clear(x)
		x[0] = 1
	}
}

// solveMode is what Recover's solves add to Options.
type solveMode struct {
	// weighted solves with the per-coordinate L1 weights s.wt, off is the
	// weight of the coordinates outside a working set (1 for plain L1).
	weighted bool
	off      float64
	// noFull ends a working-set solve whose set would outgrow its cap
	// (overflow) instead of moving it to the full Phi.
	noFull bool
}

// stage solves at opt from the current iterate (a warm start when it holds
// a previous solve's), in mode. On a working set it alternates restricted
// solves and stationarity checks until the check passes. It reports
// whether it ended on an overflow (see solveMode.noFull).
func (s *Solver) stage(ctx context.Context, p *Problem, opt Options, mode solveMode) (res Result, overflow bool, err error) {
	s.wsOff = mode.off
	for round := 0; ; round++ {
		r, err := s.run(ctx, p, opt, mode.weighted)
		res.Iterations += r.Iterations
		res.InnerIterations += r.InnerIterations
		res.Reason, res.Primal, res.Dual, res.Rho = r.Reason, r.Primal, r.Dual, r.Rho
		if err != nil || s.op.full {
			return res, false, err
		}
		res.WorkingSet = s.ws.k
		res.KKTChecks++
		viol := s.kkt(p, opt.Lambda, mode.off)
		if len(viol) == 0 || round >= wsMaxRound {
			return res, false, nil
		}
		if err := ctx.Err(); err != nil {
			return res, false, fmt.Errorf("onebit: cancelled after a stationarity check: %w", err)
		}
		add := viol[:min(len(viol), max(wsBatch, s.ws.k))]
		if s.ws.k+len(add) > p.n/wsMaxShare {
			if mode.noFull { // Recover: a support this large is an explosion
				return res, true, nil
			}
			s.toFull()
			res.WorkingSet = 0
			continue
		}
		slices.Sort(add)
		s.grow(add, mode.off)
	}
}

// run is one neADMM solve from the current iterate on the current
// operator.
func (s *Solver) run(ctx context.Context, p *Problem, opt Options, weighted bool) (Result, error) {
	k := s.op.k
	sp := &s.sp
	sp.p, sp.op, sp.lambda, sp.weight = p, s.op, opt.Lambda, nil
	if weighted {
		sp.weight = s.wt[:k]
	}
	if s.op.full {
		n2, err := p.norm2Ctx(ctx)
		if err != nil {
			return Result{Reason: neadmm.StopCancelled, Rho: opt.Rho}, err
		}
		sp.norm2 = n2
	} else if s.wsNormK != k {
		for c := s.pvk; c < k; c++ {
			s.pv[c] = 0
		}
		if s.pvk == 0 {
			clear(s.pv[:k])
		}
		sp.norm2 = s.ws.norm2(s.pv[:k], s.pu)
		s.wsNorm2, s.wsNormK, s.pvk = sp.norm2, k, k
	} else {
		sp.norm2 = s.wsNorm2
	}
	sp.fopt = neadmm.FISTAOptions{L: 1, Tol: opt.InnerTol, MaxIter: opt.InnerMaxIter}
	sp.innerTol, sp.innerRel, sp.lastMove = opt.InnerTol, opt.InnerRel, 0
	sp.inner = 0
	var prob neadmm.Problem = sp
	er, err := s.admm.Solve(ctx, prob, s.x[:k], s.w[:k], s.dual[:1+k], opt.engine())
	if err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		// Not a cancellation: on data NewProblem accepted and options
		// checkOn accepted, only options extreme for this Phi make a value
		// leave the floating-point range (a multiplier or a tolerance the
		// engine scales by it, say).
		err = fmt.Errorf("%w: a value left the floating-point range at Lambda = %g, Rho = %g, EpsAbs = %g, EpsRel = %g "+
			"(options too extreme for this Phi): %w", ErrBadInput, opt.Lambda, opt.Rho, opt.EpsAbs, opt.EpsRel, err)
	}
	return Result{
		Iterations: er.Iterations, Reason: er.Reason, Primal: er.Primal, Dual: er.Dual, Rho: er.Rho,
		Objective: math.NaN(), InnerIterations: sp.inner,
	}, err
}

// objective is Problem.Objective without allocating, for a unit-norm x
// that is the exported iterate (so zero outside a working set): it uses
// the current operator and counts the product.
func (s *Solver) objective(p *Problem, x []float64, lambda float64) float64 {
	k := s.op.k
	if s.op.full {
		s.op.mul(s.sp.ax, x)
	} else {
		for c, j := range s.ws.idx {
			s.tmp[c] = x[j]
		}
		s.op.mul(s.sp.ax, s.tmp[:k])
	}
	return vec.Asum(x) + lambda*consistencyLoss(s.sp.ax, p.y)
}

// closed reports whether done (nil: never) is closed.
func closed(done <-chan struct{}) bool {
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
