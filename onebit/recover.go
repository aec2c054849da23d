package onebit

import (
	"context"
	"math"
)

// Recover estimates a sparse direction from p's signs without knowing its
// sparsity, and writes the unit-norm estimate into x (len(x) must be N).
// Its stages, in order, each in the file named after it:
//
//  1. recover_regress.go, with opt.Regress: a least-squares fit of the
//     signs on a greedily grown support, a candidate estimate; when its
//     probit model needs at most 1% of the signs flipped (clean signs),
//     the Clean options replace the schedule of the stages below;
//  2. recover_continuation.go: neADMM solves at lambda = LambdaStart,
//     LambdaStart*LambdaGrowth, ..., LambdaMax (see RecoverOptions for the
//     units), from Phi^T y/||Phi^T y|| (or the fit, with CleanWarm), each
//     warm-started from the previous stage's x, w and multipliers, with a
//     fixed rho per stage and, with opt.Cap, a capped loss;
//  3. recover_reweight.go: opt.Reweight rounds of reweighted L1 (Candes,
//     Wakin and Boyd 2008) at the last lambda, which remove the L1 bias of
//     the large coefficients and prune the tiny ones;
//  4. recover_search.go: a search for the support that the margin of the
//     signs favours (the signs violated deeper than the cap left out):
//     with opt.Refit completion to separability, with opt.Prune backward
//     elimination, with opt.Swap exchanges;
//  5. recover_center.go, with opt.Center: the center of the support's
//     consistency cell;
//  6. recover_polish.go, with opt.Polish, when that center's margin is
//     small (or it has two coordinates below 3% of its largest): BIHT
//     told the support's size (or one more), and the center of BIHT's
//     support instead if its margin is larger;
//  7. recover_choice.go, with opt.Regress: the fit instead when it
//     describes the signs in fewer nats (the violations counted, or coded
//     by a probit model with flips when that model of the fit needs more
//     than 1% of flipped signs);
//  8. recover_centroid.go, with opt.Centroid, when the consistent
//     estimate is kept: the centroid of its cell instead of the center;
//  9. recover_pursuit.go, with opt.Pursuit, when the fit is kept and its
//     model needs more than 1% of flipped signs: adaptive outlier pursuit
//     over a range of K, and its estimate (alone when it describes the
//     signs far more briefly than the fit, else the mean of the two)
//     instead.
//
// Small lambdas favour very sparse solutions (at the paper's lambda = 0.01
// the minimizer is often 1-sparse), so the continuation starts where the
// consistency term already dominates and grows lambda until the estimate
// is consistent with the measurements up to small violations. The package
// documentation measures the pipeline against BIHT, which is told K.
//
// Recover returns an error wrapping ErrBadInput, before any work, for a nil
// Solver or context, a nil or zero p, invalid options (every stage of the
// continuation is checked, as Solve checks its options) or len(x) != N,
// and otherwise the first error of the sign regression
// (cancellation, checked before each product; x then holds Phi^T y
// normalized), of a neADMM stage (as Solve's, cancellation included,
// checked at every FISTA step; x then holds that stage's normalized
// iterate), of the
// support search, center or polish (checked every major cycle of Wolfe's
// algorithm and every BIHT iteration; x then holds the estimate as they
// left it, normalized), of the centroid (checked every 64 signs; x then
// holds the center) or of the outlier pursuit (checked every iteration;
// x then holds the regression's fit).
//
// A Solver that already ran Recover on p with the same options allocates
// nothing (with or without flipped signs); on another problem of p's size
// it allocates only to grow buffers for a larger support (the cell
// centers keep M x |S| floats, grown by half at a time) or working set
// than any earlier call needed, or for the copy of a Phi of extreme scale
// (see RecoverOptions) the first time one is needed.
func (s *Solver) Recover(ctx context.Context, p *Problem, x []float64, opt RecoverOptions) (res RecoverResult, err error) {
	if err := checkCall("Recover", s, ctx, p, x); err != nil {
		return res, err
	}
	scale := p.lambdaScale()
	if err := opt.check(scale, phiSize{p.recoverFrob(), p.n}); err != nil {
		return res, err
	}
	s.acquire()
	defer s.release()
	p = s.rescaled(p)
	s.resize(p)
	defer s.countRecover(&res)

	// The stages, each in the file named after it (see above).
	fit, err := s.signRegression(ctx, p, x, opt.Regress)
	if err != nil {
		return res, err
	}
	plan := stagePlan{opt: &opt, sch: opt.scheduleFor(fit), scale: scale, cap: lossCap{scale: opt.Cap, tau: math.Inf(1)}}
	lambda, err := s.continuation(ctx, p, x, &plan, fit, &res)
	if err != nil {
		return res, err
	}
	if err := s.reweight(ctx, p, x, &plan, lambda, &res); err != nil {
		return res, err
	}
	if opt.Refit || opt.Prune || opt.Swap || opt.Center {
		if err := s.consistentSteps(ctx, p, x, &plan, fit, &res); err != nil {
			return res, err
		}
	}
	bad, ax := s.mismatches(p, x) // the consistent estimate against the fit
	res.Support = countNonzero(x)
	regWins := s.fitWins(p, fit, res.Support, bad, ax)
	if opt.Centroid && res.Centered && !regWins {
		moved, err := s.centroid(ctx, p, ax, &res)
		if err != nil {
			return res, err
		}
		if moved {
			s.unslot(x, s.x[:s.op.k])
			normalize(x)
			bad, _ = s.mismatches(p, x)
		}
	}
	consK := res.Support
	if regWins {
		copy(x, fit.x)
		res.Support, bad, res.Regressed = fit.k, fit.v, true
	}
	if opt.Pursuit && regWins && fit.flipped() {
		support, violated, err := s.outlierPursuit(ctx, p, x, fit, consK)
		if err != nil {
			return res, err
		}
		res.Support, bad, res.Pursued = support, violated, true
	}
	res.Hamming = float64(bad) / float64(p.m)
	if s.op == &s.ws {
		res.WorkingSet = s.ws.k
	}
	return res, nil
}

// consistentSteps are the steps of Recover on the consistent estimate x
// (unit norm) after the neADMM stages: the outliers left out (see
// RecoverOptions.Cap), the support search, the center of the support's
// consistency cell and the polish. They work on the iterate s.x in the
// operator's coordinates (a coordinate outside a working set that joins
// adds its column), and x then holds their estimate, normalized, on
// success and on cancellation. Their cancellation is seen through one
// call of ctx.Done.
func (s *Solver) consistentSteps(ctx context.Context, p *Problem, x []float64, plan *stagePlan, fit regressFit, res *RecoverResult) error {
	opt := plan.opt
	s.slots(s.x[:s.op.k], x)
	res.Outliers = s.markOutliers(p, &plan.cap, plan.sch.maxOut(p.m))
	done := ctx.Done()
	err := s.search(ctx, done, p, opt, res)
	partial := false
	if err == nil && opt.Center {
		partial, err = s.center(ctx, done, p, opt.RefitMaxIter, res)
		if err == nil && opt.Polish && s.polishes(p, partial, fit.desc, res) {
			err = s.polish(ctx, done, p, partial, opt.RefitMaxIter, res)
		}
	}
	s.unslot(x, s.x[:s.op.k])
	normalize(x)
	return err
}

// countRecover sets the product counts of res from both operators.
func (s *Solver) countRecover(res *RecoverResult) {
	var r Result
	s.count(&r)
	res.Products, res.Work = r.Products, r.Work
}
