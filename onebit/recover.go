package onebit

import (
	"context"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/buf"
)

// Recover estimates a sparse direction from p's signs without knowing its
// sparsity, and writes the unit-norm estimate into x (len(x) must be N):
//
//  1. a continuation: neADMM solves at lambda = LambdaStart,
//     LambdaStart*LambdaGrowth, ..., LambdaMax (see RecoverOptions for the
//     units), from Phi^T y/||Phi^T y||, each warm-started from the previous
//     stage's x, w and multipliers, with a fixed rho per stage and, with
//     opt.Cap, a capped loss;
//  2. opt.Reweight rounds of reweighted L1 (Candes, Wakin and Boyd 2008) at
//     LambdaMax, which remove the L1 bias of the large coefficients and
//     prune the tiny ones;
//  3. a search for the support that the margin of the signs favours:
//     with opt.Refit completion to separability, with opt.Prune backward
//     elimination, with opt.Swap exchanges;
//  4. with opt.Center, the center of the support's consistency cell;
//     with opt.Polish, when that center's margin is small (or it has
//     two coordinates below 3% of its largest), BIHT told the
//     support's size (or one more) and the center of BIHT's support
//     instead if its margin is larger;
//  5. with opt.Regress, a least-squares fit of the signs on a greedily
//     grown support, kept instead when it describes the signs in fewer
//     nats (with flipped signs; see RecoverOptions.Regress): the
//     violations counted, or coded by a probit model with flips when
//     that model of the fit needs more than 1% of flipped signs;
//  6. with opt.Centroid, when the consistent estimate is kept, the
//     centroid of its cell instead of the center;
//  7. with opt.Pursuit, when that fit is kept and its model needs more
//     than 1% of flipped signs, adaptive outlier pursuit over a range of
//     K, and its estimate (alone when it describes the signs far more
//     briefly than the fit, else the mean of the two) instead.
//
// Small lambdas favour very sparse solutions (at the paper's lambda = 0.01
// the minimizer is often 1-sparse), so the continuation starts where the
// consistency term already dominates and grows lambda until the estimate
// is consistent with the measurements up to small violations. The package
// documentation measures the pipeline against BIHT, which is told K.
//
// Recover returns an error wrapping ErrBadInput, before any work, for a nil
// p, invalid options (every stage of the continuation is checked) or
// len(x) != N, and otherwise the first error of the sign regression
// (cancellation, checked before each product; x then holds Phi^T y
// normalized), of the outlier pursuit (checked every iteration; x then
// holds the regression's fit), of the centroid (checked every 64 signs;
// x then holds the center) or of a stage (cancellation included,
// checked at every FISTA step; x then holds that stage's normalized
// iterate). A Solver that
// already ran Recover on p with the same options allocates nothing (with
// or without flipped signs); on another problem of p's size it allocates
// only to grow buffers for a larger support (the cell centers keep
// M x |S| floats, grown by half at a time) or working set than any
// earlier call needed (or for the copy of a Phi of extreme scale, see
// RecoverOptions, the first time one is needed): 4-75 allocations on 3 of
// 22 Rademacher instances (M = 500, N = 1000, K = 20, half with 3% of the
// signs flipped) after 2
// had sized it, none on the last 10.
func (s *Solver) Recover(ctx context.Context, p *Problem, x []float64, opt RecoverOptions) (res RecoverResult, err error) {
	if p == nil {
		return res, fmt.Errorf("%w: nil *Problem", ErrBadInput)
	}
	// The raw lambdas of the Phi the stages use: p's, or its copy scaled
	// by a power of two (see rescaled). scale stays 1 for Phi = 0 only.
	frob := p.frob
	if p.shift != 0 {
		frob = p.sfrob
	}
	scale := 1.0
	if frob > 0 {
		scale = float64(p.n) / frob
	}
	if err := opt.check(scale); err != nil {
		return res, err
	}
	if len(x) != p.n {
		return res, fmt.Errorf("%w: len(x) = %d, want N = %d", ErrBadInput, len(x), p.n)
	}
	s.acquire()
	defer s.release()
	p = s.rescaled(p)
	s.resize(p)
	defer func() {
		var r Result
		s.count(&r)
		res.Products, res.Work = r.Products, r.Work
	}()
	// The regression first: its support's size also scales the
	// continuation's guard (see RecoverOptions.SupportGrowth).
	regK, regV := 0, 0
	if opt.Regress {
		s.rw.x = buf.Grow(s.rw.x, p.n)
		var ok bool
		if regK, regV, ok = s.regress(ctx, p, s.rw.x); !ok {
			s.backprojection(x, p)
			normalize(x)
			return res, fmt.Errorf("onebit: Recover cancelled in the sign regression: %w", ctx.Err())
		}
	}
	// The continuation's guard scales with the regression's support at
	// its RIC stop, as it was measured with (the growth past that stop,
	// see regress, serves the regression's own fit).
	guardK := 0
	if opt.Regress {
		guardK = s.rw.ricK
	}
	// The regression's description length, if it is a candidate: k = 0
	// (no column explains the signs) or a fit violating half the signs or
	// more is none (flipping all signs is cheap to describe). regDesc
	// counts the violations (the polish's skip, regressWins, bounds with
	// it: the probit code is never longer), regCode codes them by
	// signCode, whose fitted flip rate regFlip decides which one the
	// final choice uses.
	regDesc, regCode, regFlip := math.Inf(1), math.Inf(1), 0.0
	if opt.Regress && regK > 0 && 2*regV < p.m {
		regDesc = description(p.n, p.m, regK, regV)
		var c float64
		c, regFlip = signCode(s.rw.ax, p.y, s.pu)
		regCode = describe(p.n, p.m, regK, c)
	}
	sch := opt.plain()
	s.maxOut = p.m
	if regDesc < math.Inf(1) && regFlip <= probitFlipFloor {
		sch = opt.clean()
		if opt.CleanMaxOutliers > 0 {
			s.maxOut = int(opt.CleanMaxOutliers * float64(p.m))
		}
	}
	k0 := wsInitial
	if sch.warm {
		// A candidate fit has regK > 0 non-zeros.
		copy(x, s.rw.x[:p.n])
		k0 = max(k0, countNonzero(x))
	} else {
		s.backprojection(x, p)
	}
	normalize(x)
	if opt.WorkingSet {
		s.wsInit(p, x, k0)
	} else {
		s.fullInit(p, x)
	}
	s.capPrev = math.Inf(1)
	s.noFull, s.overflow = opt.SupportGrowth > 0, false
	stage := func(lambda float64, weighted bool, wOff float64) error {
		s.sp.cap = s.capDepth(p, opt.Cap)
		so := opt.stage(lambda, scale)
		so.EpsRel = sch.epsRel
		if weighted {
			so.InnerRel = sch.reweightRel
		}
		r, err := s.stage(ctx, p, so, weighted, wOff)
		res.Stages++
		res.Iterations += r.Iterations
		res.InnerIterations += r.InnerIterations
		res.KKTChecks += r.KKTChecks
		res.Last = r
		if err != nil {
			s.export(x)
			normalize(x)
		}
		return err
	}
	lambda, lastLambda, prevNZ := sch.start, sch.start, 0
	for {
		k0 := s.op.k
		copy(s.save, s.x[:k0])
		copy(s.save[k0:], s.w[:k0])
		copy(s.saveDual, s.dual[:1+k0])
		if err := stage(lambda, false, 1); err != nil {
			return res, err
		}
		nz := s.nonzeros()
		if s.overflow || opt.SupportGrowth > 0 && prevNZ > 0 && float64(nz) > opt.SupportGrowth*float64(max(prevNZ, guardK))+supportSlack && !s.op.full {
			// The support exploded: the stage fits signs that no sparse
			// direction explains. Go back to the previous stage's iterate
			// (zero on the slots added since) and stop there.
			k := s.op.k
			copy(s.x[:k0], s.save[:k0])
			copy(s.w[:k0], s.save[k0:2*k0])
			copy(s.dual[:1+k0], s.saveDual[:1+k0])
			clear(s.x[k0:k])
			clear(s.w[k0:k])
			clear(s.dual[1+k0 : 1+k])
			res.Stopped, s.overflow = true, false
			if prevNZ == 0 { // the first stage: nothing to go back to
				copy(s.x[:k0], s.save[:k0])
			}
			break
		}
		prevNZ, lastLambda = nz, lambda
		if lambda >= opt.LambdaMax {
			break
		}
		lambda = min(lambda*sch.growth, opt.LambdaMax)
		s.shrink()
	}
	res.Lambda = lastLambda
	for r := 0; r < opt.Reweight && !res.Stopped; r++ {
		s.shrink()
		k := s.op.k
		top := 0.0
		for _, v := range s.x[:k] {
			top = max(top, math.Abs(v))
		}
		for c, v := range s.x[:k] {
			s.wt[c] = 1 / (math.Abs(v)/top + opt.ReweightEps)
		}
		if err := stage(lastLambda, true, 1/opt.ReweightEps); err != nil {
			return res, err
		}
	}
	s.sp.cap = 0
	s.export(x)
	normalize(x)
	if opt.Refit || opt.Prune || opt.Swap || opt.Center {
		if err := s.search(ctx, p, x, &opt, &res, regDesc); err != nil {
			return res, err
		}
	}
	bad := s.mismatches(p, x)
	res.Support = countNonzero(x)
	regWins := regDesc < description(p.n, p.m, res.Support, bad)
	if regFlip > probitFlipFloor {
		// Signs flipped beyond what the fit's error explains: both coded
		// by signCode (s.sp.ax is Phi x, from mismatches).
		c, _ := signCode(s.sp.ax, p.y, s.pu)
		regWins = regCode < describe(p.n, p.m, res.Support, c)
	}
	if opt.Centroid && res.Centered && !regWins {
		// After the choice, which the center's violations decide: the
		// centroid moves the estimate within its cell, but may violate
		// more or fewer of the signs left out of it (before it, with 3%
		// of the signs flipped, 3 of 750 choices changed, all three for
		// the worse, by 0.003 to 0.043).
		s.done = ctx.Done()
		ok := s.centroid(p, s.sp.ax, &res) // Phi x, from mismatches above
		s.done = nil
		if s.cancelled {
			return res, fmt.Errorf("onebit: Recover cancelled in the centroid: %w", ctx.Err())
		}
		if ok {
			s.unslot(x, s.x[:s.op.k])
			normalize(x)
			bad = s.mismatches(p, x)
		}
	}
	consK := res.Support
	if regWins {
		copy(x, s.rw.x)
		res.Support, bad, res.Regressed = regK, regV, true
	}
	if opt.Pursuit && regWins && regFlip > probitFlipFloor {
		if !s.pursuit(ctx, p, regFlip, regK, max(regK, consK)) {
			return res, fmt.Errorf("onebit: Recover cancelled in the outlier pursuit: %w", ctx.Err())
		}
		if s.pw.bestDesc < regCode-pursuitAlone {
			copy(x, s.pw.bestX)
		} else {
			for j, v := range s.rw.x {
				x[j] = v + s.pw.bestX[j]
			}
			if !normalize(x) { // opposite estimates: keep the fit
				copy(x, s.rw.x)
			}
		}
		res.Support, bad = s.fullMismatches(p, x)
		res.Pursued = true
	}
	res.Hamming = float64(bad) / float64(p.m)
	if s.op == &s.ws {
		res.WorkingSet = s.ws.k
	}
	return res, nil
}
