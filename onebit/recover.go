package onebit

import (
	"context"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// RecoverOptions configures Solver.Recover. Lambdas here are in units of
// the mean loss: a stage with lambda solves the paper's problem with
// Options.Lambda = lambda/M, i.e.
//
//	min ||x||_1 + (lambda/(2M)) sum_i min(y_i (Phi x)_i, 0)^2  s.t. ||x|| = 1,
//
// which is the paper's objective for Phi scaled by 1/sqrt(M). This makes
// the schedule independent of the number of measurements.
type RecoverOptions struct {
	// LambdaStart, LambdaMax and LambdaGrowth define the continuation:
	// lambda = LambdaStart, LambdaStart*LambdaGrowth, ... while <= LambdaMax
	// (and LambdaMax itself last if the steps miss it). 0 < LambdaStart <=
	// LambdaMax, LambdaGrowth > 1, all finite.
	LambdaStart, LambdaMax, LambdaGrowth float64
	// RhoScale and RhoPower set each stage's fixed
	// rho = RhoScale*lambda^RhoPower; RhoScale > 0, RhoPower finite. The
	// default rho = sqrt(lambda) converges at every stage; rho = 0.1*lambda
	// (RhoScale 0.1, RhoPower 1) stalls at large lambda.
	RhoScale, RhoPower float64
	// StageIter caps the outer iterations of each stage; > 0.
	StageIter int
	// EpsAbs, EpsRel, InnerMaxIter and InnerTol are as in Options.
	EpsAbs, EpsRel float64
	InnerMaxIter   int
	InnerTol       float64
	// Reweight is the number of reweighted-L1 rounds after the
	// continuation (>= 0): each solves again at LambdaMax with the L1 term
	// sum_j |x_j| / (|x_j|/max|x| + ReweightEps) from the current x, which
	// removes most of the L1 shrinkage of the large coefficients.
	Reweight int
	// ReweightEps is the eps of the weights; > 0 when Reweight > 0.
	ReweightEps float64
	// Refit ends with a consistency refit on the support found (the
	// non-zeros of x): BIHT's iteration from zero with every coordinate
	// off the support pinned to 0 and no hard threshold (so no K), until
	// sign(Phi x) = y or RefitMaxIter iterations. While the fit is
	// inconsistent, the coordinate off the support with the largest BIHT
	// gradient |Phi^T (y - sign(Phi x))|_j joins the support and the fit
	// is redone (at most as many times as the support had coordinates).
	// The refit replaces the neADMM estimate unless it is less consistent.
	Refit bool
	// RefitMaxIter caps the iterations of each fit; > 0 when Refit. An
	// inconsistent support runs to the cap, so the cap is also the price of
	// a failed expansion or pruning step.
	RefitMaxIter int
	// Prune, after a consistent refit, repeatedly drops the smallest
	// coefficient and fits again, as long as the fit stays consistent.
	Prune bool
}

// DefaultRecoverOptions returns the recovery pipeline that the package
// documentation measures against BIHT.
func DefaultRecoverOptions() RecoverOptions {
	return RecoverOptions{
		LambdaStart: 100, LambdaMax: 1e6, LambdaGrowth: 3,
		RhoScale:     1,
		RhoPower:     0.5,
		StageIter:    50,
		EpsAbs:       1e-6,
		EpsRel:       1e-4,
		InnerMaxIter: 200,
		InnerTol:     1e-6,
		Reweight:     4,
		ReweightEps:  0.01,
		Refit:        true,
		RefitMaxIter: DefaultBIHTMaxIter,
		Prune:        true,
	}
}

func (o *RecoverOptions) check() error {
	switch {
	case !(o.LambdaStart > 0 && o.LambdaStart <= o.LambdaMax) || !num.Finite(o.LambdaMax):
		return fmt.Errorf("%w: LambdaStart, LambdaMax = %g, %g, want 0 < LambdaStart <= LambdaMax, finite",
			ErrBadInput, o.LambdaStart, o.LambdaMax)
	case !(o.LambdaGrowth > 1) || !num.Finite(o.LambdaGrowth):
		return fmt.Errorf("%w: LambdaGrowth = %g, want finite and > 1", ErrBadInput, o.LambdaGrowth)
	case !(o.RhoScale > 0) || !num.Finite(o.RhoScale) || !num.Finite(o.RhoPower):
		return fmt.Errorf("%w: RhoScale, RhoPower = %g, %g, want finite, RhoScale > 0", ErrBadInput, o.RhoScale, o.RhoPower)
	case o.StageIter <= 0 || o.Reweight < 0:
		return fmt.Errorf("%w: StageIter = %d, Reweight = %d, want > 0 and >= 0", ErrBadInput, o.StageIter, o.Reweight)
	case o.Refit && o.RefitMaxIter <= 0:
		return fmt.Errorf("%w: RefitMaxIter = %d, want > 0", ErrBadInput, o.RefitMaxIter)
	case o.Reweight > 0 && !(o.ReweightEps > 0 && num.Finite(o.ReweightEps)):
		return fmt.Errorf("%w: ReweightEps = %g, want finite and > 0", ErrBadInput, o.ReweightEps)
	}
	st := o.stage(o.LambdaStart, 1)
	return st.check()
}

// stage returns the Options of one stage at (mean-loss) lambda.
func (o *RecoverOptions) stage(lambda float64, m int) Options {
	return Options{
		Lambda: lambda / float64(m), Rho: o.RhoScale * math.Pow(lambda, o.RhoPower), Policy: neadmm.RhoFixed,
		MaxIter: o.StageIter, EpsAbs: o.EpsAbs, EpsRel: o.EpsRel,
		InnerMaxIter: o.InnerMaxIter, InnerTol: o.InnerTol,
	}
}

// RecoverResult reports Solver.Recover.
type RecoverResult struct {
	// Stages counts the neADMM solves (continuation stages and
	// reweighting rounds); Iterations and InnerIterations sum their outer
	// and FISTA iterations. Last is the result of the last one.
	Stages, Iterations, InnerIterations int
	Last                                Result
	// Refits counts the consistency refits (the first fit, expansion and
	// pruning steps) and RefitIterations their BIHT iterations. Expanded
	// and Pruned count the coordinates they added to and removed from the
	// support.
	Refits, RefitIterations, Expanded, Pruned int
	// Products counts all products with Phi or Phi^T, the unit of cost.
	Products int
	// Support is the number of non-zeros of the estimate, and Hamming the
	// fraction of measurements inconsistent with it.
	Support int
	Hamming float64
}

// Recover estimates a sparse direction from p's signs without knowing its
// sparsity, and writes the unit-norm estimate into x (len(x) must be N):
//
//  1. a continuation: neADMM solves at lambda = LambdaStart,
//     LambdaStart*LambdaGrowth, ..., LambdaMax (see RecoverOptions for the
//     units), from Phi^T y/||Phi^T y||, each warm-started from the previous
//     stage's x, w and multipliers, with a fixed rho per stage;
//  2. opt.Reweight rounds of reweighted L1 (Candes, Wakin and Boyd 2008) at
//     LambdaMax, which remove the L1 bias of the large coefficients and
//     prune the tiny ones;
//  3. with opt.Refit, a consistency refit on the support found, with
//     expansion and, with opt.Prune, pruning (see RecoverOptions.Refit).
//
// Small lambdas favour very sparse solutions (at the paper's lambda = 0.01
// the minimizer is often 1-sparse), so the continuation starts where the
// consistency term already dominates and grows lambda until the estimate
// is consistent with the measurements up to tiny violations. The package
// documentation measures the pipeline against BIHT, which is told K.
//
// Recover returns an error wrapping ErrBadInput, before any work, for
// invalid options or len(x) != N, and otherwise the first error of a stage
// (cancellation included; x then holds that stage's normalized iterate).
// With a sized Solver it allocates nothing.
func (s *Solver) Recover(ctx context.Context, p *Problem, x []float64, opt RecoverOptions) (RecoverResult, error) {
	var res RecoverResult
	if err := opt.check(); err != nil {
		return res, err
	}
	if len(x) != p.n {
		return res, fmt.Errorf("%w: len(x) = %d, want N = %d", ErrBadInput, len(x), p.n)
	}
	s.resize(p)
	backprojection(x, p)
	normalize(x)
	copy(s.w, x)
	clear(s.dual)

	stage := func(lambda float64, weight []float64) error {
		r, err := s.run(ctx, p, x, opt.stage(lambda, p.m), weight)
		res.Stages++
		res.Iterations += r.Iterations
		res.InnerIterations += r.InnerIterations
		res.Products += r.Products
		res.Last = r
		return err
	}
	lambda := opt.LambdaStart
	for {
		if err := stage(lambda, nil); err != nil {
			return res, err
		}
		if lambda >= opt.LambdaMax {
			break
		}
		lambda = min(lambda*opt.LambdaGrowth, opt.LambdaMax)
	}
	weight := s.tmp
	for range opt.Reweight {
		top := 0.0
		for _, v := range x {
			top = max(top, math.Abs(v))
		}
		for j, v := range x {
			weight[j] = 1 / (math.Abs(v)/top + opt.ReweightEps)
		}
		if err := stage(opt.LambdaMax, weight); err != nil {
			return res, err
		}
	}
	s.sp.mulPhi(x)
	res.Products++
	bad := mismatches(s.sp.ax, p.y)
	if opt.Refit {
		var err error
		if bad, err = s.refit(ctx, p, x, bad, &opt, &res); err != nil {
			return res, err
		}
	}
	res.Hamming = float64(bad) / float64(p.m)
	for _, v := range x {
		if v != 0 {
			res.Support++
		}
	}
	return res, nil
}

// refit replaces x (with bad inconsistent measurements) by BIHT's
// iteration restricted to x's support, from zero: a consistency fit on the
// support that is not biased towards small L1 norms. While the fit is
// inconsistent it adds the coordinate off the support with the largest
// BIHT gradient |Phi^T (y - sign(Phi x))|_j (at most as many times as the
// support has coordinates); with prune it then drops the smallest
// coefficient while the fit stays consistent. The result replaces x only if
// it is at least as consistent; refit returns the mismatches of what x
// holds in the end.
func (s *Solver) refit(ctx context.Context, p *Problem, x []float64, bad int, opt *RecoverOptions, res *RecoverResult) (int, error) {
	keep, best := s.tmp, s.keep
	support := 0
	for j, v := range x {
		keep[j] = 0
		if v != 0 {
			keep[j] = 1
			support++
		}
	}
	if support == 0 {
		return bad, nil
	}
	copy(best, x)
	fit := func() (int, error) {
		br, err := s.biht.run(ctx, p, x, 0, keep, opt.RefitMaxIter)
		res.Refits++
		res.RefitIterations += br.Iterations
		res.Products += br.Products
		return int(math.Round(br.Hamming * float64(p.m))), err
	}
	nb, err := fit()
	for added := 0; err == nil && nb > 0 && added < support; added++ {
		g := s.biht.g // BIHT's gradient at its last iterate
		vec.MulTransVec(g, p.phi, p.m, p.n, s.biht.r)
		res.Products++
		jmax, gmax := -1, 0.0
		for j, gj := range g {
			if a := math.Abs(gj); keep[j] == 0 && a > gmax {
				jmax, gmax = j, a
			}
		}
		if jmax < 0 {
			break
		}
		keep[jmax] = 1
		res.Expanded++
		nb, err = fit()
	}
	if err != nil {
		copy(x, best)
		return bad, err
	}
	if nb > bad { // the refit made things worse: keep the estimate
		copy(x, best)
		return bad, nil
	}
	bad = nb
	for opt.Prune && bad == 0 {
		jmin, amin, count := -1, math.Inf(1), 0
		for j, v := range x {
			if a := math.Abs(v); v != 0 {
				count++
				if a < amin {
					jmin, amin = j, a
				}
			}
			keep[j] = 0
			if v != 0 {
				keep[j] = 1
			}
		}
		if count <= 1 {
			break
		}
		keep[jmin] = 0
		copy(best, x)
		if nb, err = fit(); err != nil || nb > 0 {
			copy(x, best)
			return bad, err
		}
		res.Pruned++
	}
	return bad, nil
}
