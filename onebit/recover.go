package onebit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// RecoverOptions configures Solver.Recover. Lambdas here are in units of
// the mean loss: a stage with lambda solves the paper's problem with
// Options.Lambda = lambda*N/||Phi||_F^2 (lambda/M for entries of unit
// variance), i.e.
//
//	min ||x||_1 + (lambda/(2M)) sum_i min(y_i (Phi x)_i, 0)^2  s.t. ||x|| = 1
//
// for Phi scaled to entries of unit mean square. This makes the schedule
// independent of the number of measurements and of the scale of Phi (the
// signs do not depend on it either): Phi scaled by a power of two gives
// the same estimate, bit for bit, while its entries stay normal numbers.
// When the root mean square of Phi's entries is below 2^-64 or above
// 2^64, Recover runs on a copy of Phi scaled by a power of two to bring
// it near 1 (where no raw lambda, norm or square can overflow or
// underflow); the Solver keeps the copy (M*N floats) for its next call
// with the same Problem.
type RecoverOptions struct {
	// LambdaStart, LambdaMax and LambdaGrowth define the continuation:
	// lambda = LambdaStart, LambdaStart*LambdaGrowth, ... while <= LambdaMax
	// (and LambdaMax itself last if the steps miss it), at most MaxStages
	// stages. 0 < LambdaStart <= LambdaMax, LambdaGrowth > 1, all finite.
	LambdaStart, LambdaMax, LambdaGrowth float64
	// RhoScale and RhoPower set each stage's fixed
	// rho = RhoScale*lambda^RhoPower, which must be a valid Options.Rho at
	// every stage (finite and >= neadmm.MinRho): Recover checks every
	// stage's before any work. The default rho = sqrt(lambda) converges at
	// every stage; rho = 0.1*lambda (RhoScale 0.1, RhoPower 1) stalls at
	// large lambda.
	RhoScale, RhoPower float64
	// StageIter caps the outer iterations of each stage; > 0.
	StageIter int
	// EpsAbs, EpsRel, InnerMaxIter and InnerTol are as in Options, for
	// every stage.
	EpsAbs, EpsRel float64
	InnerMaxIter   int
	InnerTol       float64
	// CleanEpsRel, if > 0, replaces EpsRel in every stage when the sign
	// regression (Regress) finds the signs clean: its fit is a candidate
	// and its probit model needs at most 1% of the signs flipped. The
	// support search after the stages settles the support, and without
	// flips a looser stage tolerance costs it nothing; with flipped signs
	// the tight tolerance is what keeps the support near the signal's
	// sparsity. 0 (EpsRel always, the setting before this option) or
	// finite and > 0. See the package documentation for what the default
	// 0.1 bought and cost.
	CleanEpsRel float64
	// CleanLambdaStart and CleanLambdaGrowth, if > 0, replace LambdaStart
	// and LambdaGrowth when the signs look clean (the test of
	// CleanEpsRel), CleanReweightRel, if > 0, is then the reweighting
	// rounds' InnerRel, and CleanWarm starts that continuation from the
	// sign regression's fit (its support the first working set, with
	// WorkingSet, completed to the 16 coordinates Options.WorkingSet
	// starts from when it is smaller) instead of the back-projection.
	// With clean signs the regression's fit is already near the signal,
	// so the first stages, which only move the estimate towards it, can
	// go; started from the fit at lambda 100, the continuation ended
	// worse than from the back-projection (the weak L1 term lets the
	// fit's wrong coordinates settle in). The
	// support search after the stages settles the support either way.
	// CleanLambdaStart is 0 or finite with 0 < it <= LambdaMax;
	// CleanLambdaGrowth 0 or finite and > 1; CleanReweightRel finite and
	// >= 0. See the package documentation for what the defaults (1000, 10,
	// 0.01, true) bought.
	CleanLambdaStart, CleanLambdaGrowth, CleanReweightRel float64
	CleanWarm                                             bool
	// CleanMaxOutliers, if > 0, is the largest fraction of the signs the
	// support search may leave out as outliers (see Cap) when the signs
	// look clean; a cap that would leave out more leaves out none. The
	// clean signs' test found at most 1% of them flipped, so a cap that
	// flags 13-29% of them misjudges: that happened on sign matrices
	// whose signs take few distinct patterns (the rademacher family with
	// K = 5), after which the regression's fit won on description length
	// over an estimate fitted to the rest. With 3% or 10% of the signs
	// flipped the cap flagged at most 2% there. In [0, 1]; the default
	// is 0.05.
	CleanMaxOutliers float64
	// InnerRel is Options.InnerRel for the continuation stages; the
	// reweighting rounds, which settle the final support, solve their
	// x-updates to InnerTol (with clean signs, see CleanReweightRel).
	// Measured on N = 1000, M/N = 0.25-2 (K = 10
	// and 20, 20 instances each): 0.01 cut Recover's products by 22-28% at
	// the same accuracy; 0.03 cut them by about half but lost accuracy at
	// M/N = 0.5 with K = 20 (0.056 against 0.044).
	InnerRel float64
	// Reweight is the number of reweighted-L1 rounds after the
	// continuation (>= 0): each solves again at LambdaMax with the L1 term
	// sum_j |x_j| / (|x_j|/max|x| + ReweightEps) from the current x, which
	// removes most of the L1 shrinkage of the large coefficients.
	Reweight int
	// ReweightEps is the eps of the weights; > 0 when Reweight > 0.
	ReweightEps float64
	// SupportGrowth, if > 0, stops the continuation before a stage that
	// multiplies the number of non-zeros by more than SupportGrowth (plus
	// 8, for the tiny supports of the first stages; with Regress, of the
	// larger of the previous stage's count and the regression's support at
	// its risk-inflation stop (see Regress),
	// which lets a 20-sparse signal grow from the first stages' 1 to 3
	// non-zeros) or whose working set would outgrow a quarter of the
	// columns: the estimate of the stage
	// before is kept and the reweighting is skipped
	// (RecoverResult.Stopped). With flipped signs the support explodes once
	// lambda is large enough to fit them (from 8 to 46 non-zeros in one
	// stage with 3% of the signs flipped), while without flips it grows by
	// at most 1.3x per stage (x3 lambda; see the package documentation).
	// It acts on a working set only (WorkingSet): on the full Phi no
	// stage is stopped. 0 (never) or finite and > 1.
	SupportGrowth float64
	// Cap, if > 0, caps the loss of each measurement: the stages use
	// min(min(y_i (Phi x)_i, 0)^2, tau^2), and the final steps leave out
	// the measurements violated deeper than tau (RecoverResult.Outliers).
	// tau is measured at the start of each stage, at x of unit norm:
	// tau = Cap*sigma*sin(pi*v), with sigma the scale of the projections
	// (Phi x)_i and v the fraction of the signs violated within the
	// previous stage's tau. Without flipped signs, v estimates the angular
	// error theta/pi of x, and the violations it causes are at most a few
	// sigma*sin(theta) deep, so a few units keep them all (the cap never
	// acted on the instances without flips measured here); a flipped sign
	// is violated about as deep as a typical projection, and stops pulling
	// the estimate. Finite and >= 0; 0 is the plain one-sided quadratic.
	Cap float64
	// Refit completes the support found (the non-zeros of x) until the
	// signs not left out as outliers are separable on it: of the 10
	// coordinates outside with the largest BIHT gradient
	// |Phi^T (y - sign(Phi x))|_j, the one whose addition makes them
	// separable with the largest margin (see Center) joins; if none does,
	// the first joins and the others are tried again. At most 8
	// coordinates join (or as many as the support had, if fewer, but at
	// least 2).
	Refit bool
	// RefitMaxIter caps the major cycles of each margin computation
	// (Wolfe's algorithm, see Center); > 0 when Refit, Prune, Swap or
	// Center is set. Separable supports take 20 to 100 here.
	RefitMaxIter int
	// Prune drops, one at a time, the coordinate whose removal leaves the
	// largest margin, while the signs stay separable: backward elimination
	// to a support no coordinate of which is superfluous.
	Prune bool
	// Swap exchanges a coordinate of the support for one outside while
	// that increases the margin (candidates: the 3 along which the margin
	// grows fastest), then prunes again.
	Swap bool
	// Center ends by replacing the estimate on its support by the center
	// of the cell of directions on that support consistent with the signs
	// (not counting the outliers): the direction maximizing the smallest
	// angular margin min_i y_i <a_i, x>/||a_i|| over the support's rows
	// a_i, found exactly by Wolfe's algorithm. Any consistent point of the
	// cell (BIHT's, for one) may lie near its edge; the center is nearer
	// the truth on average. When the signs are not separable on the
	// support, the center is that of the measurements the estimate
	// satisfies; if the earlier steps saw flipped signs
	// (RecoverResult.Stopped or Outliers), the coordinates below 5% of the
	// largest are dropped first.
	Center bool
	// Centroid, when the centered estimate is kept (the sign
	// regression's fit does not replace it, see Regress), replaces the
	// center by an estimate of the centroid of the same cell: the mean
	// of the directions on the support consistent with the kept signs,
	// by expectation propagation on the signs near the cell (see the
	// package documentation). Nothing is known of the signal's direction
	// within the cell, and the centroid minimizes the mean squared
	// distance to a direction drawn uniformly from it; the center,
	// farthest from the cell's walls, is not its centroid when the cell is
	// not symmetric. It keeps the center if the estimate would violate a
	// kept sign, the support holds more than 64 coordinates, or the
	// center's angular margin is above 0.05 (a cell so wide that the
	// signal's distribution decides where in it the signal lies; see the
	// package documentation).
	Centroid bool
	// WorkingSet runs every stage on a working set of coordinates (see
	// Options.WorkingSet), kept from stage to stage.
	WorkingSet bool
	// Regress also fits the signs by least squares on a greedily grown
	// support (orthogonal matching pursuit on y, stopped by the risk
	// inflation criterion, then grown further while the description
	// below shortens) and keeps that fit instead of the estimate of
	// the steps above when it describes the signs more briefly: fewer
	// nats for its support, its values and the signs it violates
	// (RecoverResult.Regressed); when the fit's probit model of the
	// signs needs more than 1% of them flipped, the signs are coded by
	// that model, in which a violation at the edge costs less than a
	// deep one. A consistent estimate fits flipped signs
	// with extra coordinates; the regression does not try, and with 3% or
	// 10% of the signs flipped its errors were 1.6-6.9 times lower than the
	// consistent estimate's (N = 1000, M/N = 0.5-2; see the package
	// documentation). Without flips the consistent estimate is nearly
	// always the shorter description and is kept. It costs one pass over
	// Phi and one product with Phi^T per 1-4 coordinates of its support.
	Regress bool
	// Polish, when the centered estimate's margin mu is small
	// (mu*M/|S| < 0.15, |S| its support's size) or at least two of its
	// coordinates are below 3% of the largest (wrong coordinates that
	// stand in for a missing small one come out that small), and no
	// measurement was left out as an outlier (no flips seen), runs BIHT
	// from zero on all of Phi told K = |S| (or |S|+1 if that finds no
	// consistent support), and keeps the center of the consistency cell
	// of BIHT's support instead when that center's margin is larger. It
	// runs too when the signs are not separable on the support (a true
	// coordinate missing, seen at N = M = 4000), telling BIHT up to |S|+3
	// while it finds no consistent support, and keeps BIHT's support if
	// all the signs are separable on it. The continuation's support is of
	// about the right size but may hold a few wrong coordinates that the
	// swaps do not find; BIHT, told that size, finds another support, and
	// the larger margin mostly goes with the support nearer the truth.
	// It does not run when the sign regression (Regress) describes the
	// signs more briefly than any consistent estimate on |S| or more
	// coordinates could: that fit replaces the estimate whatever the
	// polish finds. See the package documentation for what it bought and
	// cost.
	Polish bool
	// Pursuit, when the sign regression's fit replaces the consistent
	// estimate and its probit model needs more than 1% of the signs
	// flipped (see Regress), runs adaptive outlier pursuit (BIHT that
	// leaves out of each step the eps*M signs its estimate violates most
	// deeply, eps that model's flip rate; Yan, Yang and Osher 2012) told
	// each K from the regression's support size to the larger of that and
	// the consistent estimate's, keeps the estimate that describes the
	// signs the most briefly (see Regress), and returns it alone if it
	// describes the signs 25 nats more briefly than the regression's fit,
	// else the normalized mean of the two (RecoverResult.Pursued). At low
	// M/N or with many flips neither is near the truth, and their errors
	// are nearly independent; at higher M/N the pursuit, told about the
	// right K, is the better of the two, and its description the shorter
	// by far. Without Regress it does nothing. See the package
	// documentation for what it bought and cost.
	Pursuit bool
}

// supportSlack is added to the growth allowed by SupportGrowth, so that
// the tiny supports of the first stages (1 to 3 non-zeros when lambda is
// where the solution collapses) may grow freely.
const supportSlack = 8

// MaxStages caps the stages of a continuation (RecoverOptions.LambdaGrowth
// close to 1 would otherwise ask for billions).
const MaxStages = 1000

// DefaultRecoverOptions returns the recovery pipeline that the package
// documentation measures against BIHT.
func DefaultRecoverOptions() RecoverOptions {
	return RecoverOptions{
		LambdaStart: 100, LambdaMax: 1e5, LambdaGrowth: 3,
		RhoScale:          1,
		RhoPower:          0.5,
		StageIter:         50,
		EpsAbs:            1e-6,
		EpsRel:            1e-2,
		CleanEpsRel:       0.1,
		CleanLambdaStart:  1000,
		CleanLambdaGrowth: 10,
		CleanReweightRel:  0.01,
		CleanWarm:         true,
		CleanMaxOutliers:  0.05,
		InnerMaxIter:      200,
		InnerTol:          1e-6,
		InnerRel:          0.01,
		Reweight:          4,
		ReweightEps:       0.01,
		SupportGrowth:     3,
		Cap:               3,
		Refit:             true,
		RefitMaxIter:      200,
		Prune:             true,
		Swap:              true,
		Center:            true,
		Centroid:          true,
		WorkingSet:        true,
		Regress:           true,
		Polish:            true,
		Pursuit:           true,
	}
}

// check validates o for a problem whose raw lambdas are the mean-loss
// ones times scale, every stage of the continuation included.
func (o *RecoverOptions) check(scale float64) error {
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
	case (o.Refit || o.Prune || o.Swap || o.Center) && o.RefitMaxIter <= 0:
		return fmt.Errorf("%w: RefitMaxIter = %d, want > 0", ErrBadInput, o.RefitMaxIter)
	case o.Reweight > 0 && !(o.ReweightEps > 0 && num.Finite(o.ReweightEps)):
		return fmt.Errorf("%w: ReweightEps = %g, want finite and > 0", ErrBadInput, o.ReweightEps)
	case !(o.Cap >= 0) || !num.Finite(o.Cap):
		return fmt.Errorf("%w: Cap = %g, want finite and >= 0", ErrBadInput, o.Cap)
	case o.SupportGrowth != 0 && !(o.SupportGrowth > 1 && num.Finite(o.SupportGrowth)):
		return fmt.Errorf("%w: SupportGrowth = %g, want 0 or finite and > 1", ErrBadInput, o.SupportGrowth)
	case !(o.CleanEpsRel >= 0) || !num.Finite(o.CleanEpsRel):
		return fmt.Errorf("%w: CleanEpsRel = %g, want 0 or finite and > 0", ErrBadInput, o.CleanEpsRel)
	case o.CleanLambdaStart != 0 && !(o.CleanLambdaStart > 0 && o.CleanLambdaStart <= o.LambdaMax):
		return fmt.Errorf("%w: CleanLambdaStart = %g, want 0 or 0 < CleanLambdaStart <= LambdaMax = %g",
			ErrBadInput, o.CleanLambdaStart, o.LambdaMax)
	case o.CleanLambdaGrowth != 0 && !(o.CleanLambdaGrowth > 1 && num.Finite(o.CleanLambdaGrowth)):
		return fmt.Errorf("%w: CleanLambdaGrowth = %g, want 0 or finite and > 1", ErrBadInput, o.CleanLambdaGrowth)
	case !(o.CleanReweightRel >= 0) || !num.Finite(o.CleanReweightRel):
		return fmt.Errorf("%w: CleanReweightRel = %g, want finite and >= 0", ErrBadInput, o.CleanReweightRel)
	case !(o.CleanMaxOutliers >= 0 && o.CleanMaxOutliers <= 1):
		return fmt.Errorf("%w: CleanMaxOutliers = %g, want 0 to 1", ErrBadInput, o.CleanMaxOutliers)
	}
	if err := o.checkStages(o.LambdaStart, o.LambdaGrowth, o.EpsRel, scale, ""); err != nil {
		return err
	}
	c := o.clean()
	if c.epsRel == o.EpsRel && c.start == o.LambdaStart && c.growth == o.LambdaGrowth {
		return nil
	}
	return o.checkStages(c.start, c.growth, c.epsRel, scale, " with clean signs")
}

// checkStages validates every stage of the continuation from start by
// growth with epsRel (the reweighting rounds run at the last stage's
// lambda; their InnerRel is checked with the fields).
func (o *RecoverOptions) checkStages(start, growth, epsRel, scale float64, what string) error {
	stages := 0
	for lambda := start; ; lambda = min(lambda*growth, o.LambdaMax) {
		if stages++; stages > MaxStages {
			return fmt.Errorf("%w: the continuation%s from %g to %g by x%g has more than MaxStages = %d stages",
				ErrBadInput, what, start, o.LambdaMax, growth, MaxStages)
		}
		st := o.stage(lambda, scale)
		st.EpsRel = epsRel
		if err := st.check(); err != nil {
			return fmt.Errorf("stage %d%s (lambda %g): %w", stages, what, lambda, err)
		}
		if lambda >= o.LambdaMax {
			return nil
		}
	}
}

// schedule is what a continuation runs with: the first lambda, the
// growth, the stages' EpsRel and the reweighting rounds' InnerRel, and
// whether it starts from the regression's fit.
type schedule struct {
	start, growth, epsRel, reweightRel float64
	warm                               bool
}

// plain is the schedule whatever the signs look like.
func (o *RecoverOptions) plain() schedule {
	return schedule{start: o.LambdaStart, growth: o.LambdaGrowth, epsRel: o.EpsRel}
}

// clean is the schedule when the signs look clean: the Clean fields that
// are set replace the others.
func (o *RecoverOptions) clean() schedule {
	c := o.plain()
	if o.CleanEpsRel > 0 {
		c.epsRel = o.CleanEpsRel
	}
	if o.CleanLambdaStart > 0 {
		c.start = o.CleanLambdaStart
	}
	if o.CleanLambdaGrowth > 0 {
		c.growth = o.CleanLambdaGrowth
	}
	c.reweightRel, c.warm = o.CleanReweightRel, o.CleanWarm
	return c
}

// stage returns the Options of one stage at (mean-loss) lambda: the raw
// lambda is lambda*scale with scale = N/||Phi||_F^2.
func (o *RecoverOptions) stage(lambda, scale float64) Options {
	return Options{
		Lambda: lambda * scale, Rho: o.RhoScale * math.Pow(lambda, o.RhoPower), Policy: neadmm.RhoFixed,
		MaxIter: o.StageIter, EpsAbs: o.EpsAbs, EpsRel: o.EpsRel,
		InnerMaxIter: o.InnerMaxIter, InnerTol: o.InnerTol, InnerRel: o.InnerRel, WorkingSet: o.WorkingSet,
	}
}

// RecoverResult reports Solver.Recover.
type RecoverResult struct {
	// Stages counts the neADMM solves (continuation stages and
	// reweighting rounds); Iterations and InnerIterations sum their outer
	// and FISTA iterations, KKTChecks their stationarity checks on the
	// full problem. Last is the result of the last one.
	Stages, Iterations, InnerIterations, KKTChecks int
	Last                                           Result
	// Stopped reports that the continuation stopped early (see
	// RecoverOptions.SupportGrowth), and Lambda is the last stage's
	// lambda kept (that of the reweighting).
	Stopped bool
	Lambda  float64
	// Outliers counts the measurements left out of the final steps (see
	// RecoverOptions.Cap); Expanded, Pruned and Swapped count the
	// coordinates the refit added, pruning removed and swapping exchanged;
	// Margins counts the margin computations (Wolfe's algorithm) and
	// WolfeIterations their major cycles; Bounded counts the trial
	// supports of the refit, pruning and swapping left out without one,
	// their margin bounded by that of a few rows (see boundWork).
	Outliers, Expanded, Pruned, Swapped int
	Margins, WolfeIterations, Bounded   int
	// Centered reports that the estimate was replaced by the center of its
	// consistency cell, and Margin is that center's smallest angular
	// margin (0 or less: the signs kept were not separable on the
	// support, and the estimate was left as it was).
	Centered bool
	Margin   float64
	// Centroid reports that the centroid of that cell replaced its center
	// (see RecoverOptions.Centroid), and CentroidSweeps counts the sweeps
	// of expectation propagation over the signs near the cell.
	Centroid       bool
	CentroidSweeps int
	// Products counts all products with Phi, Phi^T or some of their
	// columns, and Work their cost in units of one full product (see
	// Result.Work; the final steps count their passes over the support's
	// rows too).
	Products int
	Work     float64
	// WorkingSet is the final size of the working set (0 without).
	WorkingSet int
	// Support is the number of non-zeros of the estimate, and Hamming the
	// fraction of measurements inconsistent with it.
	Support int
	Hamming float64
	// Regressed reports that the sign regression's fit replaced the
	// consistent estimate (see RecoverOptions.Regress).
	Regressed bool
	// Polished reports that the center of BIHT's support replaced the
	// estimate (see RecoverOptions.Polish).
	Polished bool
	// Pursued reports that the estimate is the outlier pursuit's, alone
	// or averaged with the sign regression's fit (Regressed is then true
	// too; see RecoverOptions.Pursuit).
	Pursued bool
}

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

// capDepth returns the depth tau beyond which a violation is capped (see
// RecoverOptions.Cap), measured at the current iterate normalized, and
// remembers it in s.capPrev; capScale = 0 gives 0 (no cap). It leaves
// s.sp.ax = Phi x.
func (s *Solver) capDepth(p *Problem, capScale float64) float64 {
	if capScale == 0 {
		return 0
	}
	k := s.op.k
	xs := s.tmp[:k]
	copy(xs, s.x[:k])
	if vec.Nrm2(xs) == 0 {
		copy(xs, s.w[:k])
	}
	if !normalize(xs) {
		return 0
	}
	ax := s.sp.ax
	s.op.mul(ax, xs)
	a := s.pu[:p.m]
	bad := 0
	for i, v := range ax {
		a[i] = math.Abs(v)
		if sign(v) != p.y[i] && a[i] <= s.capPrev {
			bad++
		}
	}
	sigma := median(a) / 0.6745 // the standard deviation, for Gaussian rows
	v := float64(bad) / float64(p.m)
	s.capPrev = capScale * sigma * math.Sin(min(math.Pi*v, math.Pi/2))
	return s.capPrev
}

// median returns the median of a (the lower one for even lengths),
// reordering a (selectKth).
func median(a []float64) float64 {
	return selectKth(a, (len(a)-1)/2)
}

// mismatches returns the number of measurements inconsistent with x (zero
// outside the working set, if there is one), at the cost of one product
// with its columns.
func (s *Solver) mismatches(p *Problem, x []float64) int {
	s.slots(s.tmp[:s.op.k], x)
	s.op.mul(s.sp.ax, s.tmp[:s.op.k])
	return mismatches(s.sp.ax, p.y)
}

// Candidates of the refit and of a swap (see RecoverOptions); the refit
// adds at most refitMaxExpand coordinates (or as many as the support had,
// if fewer, but at least 2): without flipped signs it needed up to 7
// here, and with them each addition only fits a few flips at a growing
// cost.
const (
	refitMaxExpand  = 8
	refitCandidates = 10
	// searchMaxSupport bounds the supports that refit, prune and swap
	// work on (their cost grows with the square of the support); larger
	// ones (flipped signs fitted by many coordinates) go to the center.
	searchMaxSupport = 32
	swapCandidates   = 3
	searchPositions  = 6
	swapMaxRounds    = 16
)

// search is steps 3 and 4 of Recover on the estimate x (unit norm),
// working in the operator's coordinates (s.x[:k]) and adding columns to
// the working set when a coordinate outside joins. regDesc is the sign
// regression's description length (+Inf if it is no candidate).
func (s *Solver) search(ctx context.Context, p *Problem, x []float64, opt *RecoverOptions, res *RecoverResult, regDesc float64) error {
	s.slots(s.x[:s.op.k], x)
	res.Outliers = s.markOutliers(p, opt.Cap, s.maxOut)
	s.wolfeCap = opt.RefitMaxIter
	s.done, s.cancelled = ctx.Done(), false
	defer func() { s.done = nil }()
	s.cw.resetBound(p.m)
	s.warmRows = s.warmRows[:0]
	if len(s.support()) <= searchMaxSupport {
		if opt.Refit {
			s.refit(p, res)
		}
		if opt.Prune {
			s.prune(p, res)
		}
		if opt.Swap {
			swapped := res.Swapped
			s.swap(p, res)
			// Without a swap the support and its values are those the
			// pruning above left, and pruning again would repeat its last
			// round, whose trials all lost.
			if opt.Prune && res.Swapped > swapped {
				s.prune(p, res)
			}
		}
	}
	if opt.Center {
		s.center(p, res)
		if opt.Polish && res.Centered && res.Outliers == 0 && !s.cancelled && !s.regressWins(p, regDesc) &&
			(s.partial || res.Margin*float64(p.m) < polishBelow*float64(len(s.support())) || s.tiny() >= polishTinyCount) {
			if err := s.polish(ctx, p, res); err != nil {
				s.unslot(x, s.x[:s.op.k])
				normalize(x)
				return err
			}
		}
	}
	s.unslot(x, s.x[:s.op.k])
	normalize(x)
	if s.cancelled {
		return fmt.Errorf("onebit: Recover cancelled in the support search: %w", ctx.Err())
	}
	return nil
}

// regressWins reports that the sign regression, of description length
// regDesc, replaces the estimate whatever the polish does: every estimate
// the polish may keep has at least the current support's size q and
// violates no fewer than none of the signs, and the description grows
// with both (for supports up to N/2), so none is shorter than a
// consistent one on q coordinates. With flipped signs the polish's BIHT
// never reaches consistency and runs to its patience, up to
// polishPartialExtra+1 times, for an estimate the regression replaces.
func (s *Solver) regressWins(p *Problem, regDesc float64) bool {
	q := len(s.support())
	return 2*(q+polishPartialExtra) <= p.n && regDesc < description(p.n, p.m, q, 0)
}

// markOutliers flags in s.out the measurements that the estimate s.x
// violates deeper than the cap (see RecoverOptions.Cap; none for
// capScale = 0, or when they would be more than maxOut, see
// CleanMaxOutliers) and returns their number.
func (s *Solver) markOutliers(p *Problem, capScale float64, maxOut int) int {
	s.out = growBools(s.out, p.m)
	clear(s.out)
	if capScale == 0 {
		return 0
	}
	tau := s.capDepth(p, capScale) // leaves s.sp.ax = Phi x for x normalized
	n := 0
	for i, a := range s.sp.ax {
		if p.y[i]*a < -tau {
			s.out[i] = true
			n++
		}
	}
	if n > maxOut {
		clear(s.out)
		return 0
	}
	return n
}

// nonzeros counts the non-zeros of the iterate x.
func (s *Solver) nonzeros() int { return countNonzero(s.x[:s.op.k]) }

// countNonzero counts the non-zeros of x.
func countNonzero(x []float64) int {
	nz := 0
	for _, v := range x {
		if v != 0 {
			nz++
		}
	}
	return nz
}

// support lists the slots where s.x is non-zero into s.sup.
func (s *Solver) support() []int {
	s.sup = s.sup[:0]
	for c, v := range s.x[:s.op.k] {
		if v != 0 {
			s.sup = append(s.sup, c)
		}
	}
	return s.sup
}

// column returns the column of slot c (copied, for the full operator).
func (s *Solver) column(p *Problem, c int) []float64 {
	if !s.op.full {
		return s.ws.col(c)
	}
	col := s.colBuf[:p.m]
	p.column(col, c)
	return col
}

// margin returns the hard margin of the slots sup on the measurements not
// flagged as outliers (Wolfe's algorithm from xs's values), or 0 if it
// cannot beat floor. With Wolfe's point kept in s.cw, and xc (len(sup))
// set to the center's direction when the margin is positive.
func (s *Solver) margin(p *Problem, sup []int, floor float64, res *RecoverResult) float64 {
	return s.wolfeMargin(p, sup, floor, s.skipOut, nil, nil, res)
}

// trialMargin is margin for a trial support of refit, prune or swap that
// must beat floor >= 0: 0 without Wolfe's algorithm on all rows when the
// pool of earlier support vectors bounds its margin by floor (see
// boundWork), which leaves the search's choices as they were. Both start
// from the final corral of the current support's margin (s.warmRows; see
// centerWork.warm), and the computation on all rows from the pool's when
// the bound ran to its end without deciding; a trial that beats floor
// leaves its corral in s.bestRows. Only the search's choices use a
// trial's margin (not its direction), and the point of minimum norm does
// not depend on the start: on the protocol's instances the estimates
// stayed the same bit for bit (see the package documentation).
func (s *Solver) trialMargin(p *Problem, sup []int, floor float64, res *RecoverResult) float64 {
	if s.below(p, sup, floor) {
		res.Bounded++
		return 0
	}
	rows, lam := s.warmRows, s.warmLam
	if bw := s.cw.bound; bw != nil && bw.ran {
		// The pool's point of minimum norm is nearer the trial's than
		// the current support's corral.
		s.poolRows, s.poolLam = corralOf(s.poolRows, s.poolLam, &bw.cw, bw)
		rows, lam = s.poolRows, s.poolLam
	}
	mg := s.wolfeMargin(p, sup, floor, s.skipOut, rows, lam, res)
	if mg > floor && !s.cancelled {
		s.bestRows, s.bestLam = corralOf(s.bestRows, s.bestLam, &s.cw, nil)
	}
	return mg
}

// corralOf returns rows and lam set to the measurements and weights of
// cw's final corral: a warm start for the trials of a neighbouring
// support (see centerWork.warm). cw is s.cw, loaded on all measurements
// but the skipped ones, or, with pool, the bound's, loaded on the pool's
// rows.
func corralOf(rows []int, lam []float64, cw *centerWork, pool *boundWork) ([]int, []float64) {
	rows, lam = rows[:0], lam[:0]
	for u, r := range cw.corral {
		i := cw.rowIdx[r]
		if pool != nil {
			i = pool.rows[i]
		}
		rows = append(rows, i)
		lam = append(lam, cw.lam[u])
	}
	return rows, lam
}

// keepCurrent makes the last margin computation's corral (s.cw's) the
// start of the trials of the current support's neighbours.
func (s *Solver) keepCurrent() {
	s.warmRows, s.warmLam = corralOf(s.warmRows, s.warmLam, &s.cw, nil)
}

// keepBest makes the best trial's corral the start of the next trials:
// that trial became the current support.
func (s *Solver) keepBest() {
	s.warmRows, s.warmLam = append(s.warmRows[:0], s.bestRows...), append(s.warmLam[:0], s.bestLam...)
}

// startFrom sets cw's start (see centerWork.warm) to the loaded rows of
// the measurements rows, with their weights lam: cw is s.cw, loaded on
// all measurements but the skipped ones, or, with pool, the bound's,
// loaded on the pool's rows.
func (s *Solver) startFrom(cw *centerWork, pool *boundWork, rows []int, lam []float64) {
	cw.start, cw.startLam = cw.start[:0], cw.startLam[:0]
	if s.cw.warmOff {
		return
	}
	for u, i := range rows {
		t := i
		if pool != nil {
			if !pool.in[i] {
				continue
			}
			t = pool.pos[i]
		}
		if r, ok := slices.BinarySearch(cw.rowIdx[:cw.rows], t); ok {
			cw.start = append(cw.start, r)
			cw.startLam = append(cw.startLam, lam[u])
		}
	}
}

// wolfeMargin is margin with the measurements skip(i) left out: Wolfe's
// algorithm on the slots sup from xs's values, its direction in xc and
// its cost counted in res and the work.
//
// With start (measurements) and lam, Wolfe's algorithm starts from that
// corral (see centerWork.warm): for a trial of refit, prune or swap, or
// the swap's margin of the current support, whose margins only decide
// (their directions are not kept); nil starts cold.
func (s *Solver) wolfeMargin(p *Problem, sup []int, floor float64, skip func(int) bool, start []int, lam []float64, res *RecoverResult) float64 {
	q := len(sup)
	xc := s.xc[:q]
	for u, c := range sup {
		xc[u] = s.x[c]
	}
	cw := &s.cw
	cw.passes = 0
	cw.load(p.m, q, func(u int) []float64 { return s.column(p, sup[u]) }, p.y, skip)
	if len(start) > 0 {
		s.startFrom(cw, nil, start, lam)
	}
	mg := cw.solve(xc, q, floor, s.wolfeCap, s.done)
	s.cancelled = s.cancelled || cw.cancelled
	if cw.bound != nil {
		cw.bound.addCorral(cw)
	}
	res.Margins++
	res.WolfeIterations += cw.passes - 1
	s.ws.work += float64(cw.passes*q) / float64(p.n)
	return mg
}

// candidates returns the n coordinates outside the support (slots, with
// their columns added to a working set) with the largest |g_j|, g over
// all N coordinates.
func (s *Solver) candidates(p *Problem, g []float64, n int) []int {
	cands := s.cands[:0]
	for range n {
		jm, gm := -1, 0.0
		for j, v := range g {
			if a := math.Abs(v); a > gm && !slices.Contains(cands, j) && !s.inSupport(j) {
				jm, gm = j, a
			}
		}
		if jm < 0 {
			break
		}
		cands = append(cands, jm)
	}
	if !s.op.full {
		add := s.cand[:0]
		for _, j := range cands {
			if s.ws.pos[j] < 0 {
				add = append(add, j)
			}
		}
		if len(add) > 0 && s.ws.k+len(add) <= p.n/wsMaxShare {
			slices.Sort(add)
			s.grow(add, 0)
		}
		q := 0
		for _, j := range cands {
			if c := s.ws.pos[j]; c >= 0 {
				cands[q] = c
				q++
			}
		}
		cands = cands[:q]
	}
	s.cands = cands
	return cands
}

// inSupport reports whether coordinate j (of Phi) is non-zero in s.x.
func (s *Solver) inSupport(j int) bool {
	if s.op.full {
		return s.x[j] != 0
	}
	c := s.ws.pos[j]
	return c >= 0 && s.x[c] != 0
}

// refit completes the support until the signs not flagged as outliers are
// separable on it (see RecoverOptions.Refit), refitting the direction on
// each new support by its center (on the measurements it satisfies).
func (s *Solver) refit(p *Problem, res *RecoverResult) {
	limit := max(2, min(len(s.support()), refitMaxExpand))
	added := 0
	for added < limit && !s.cancelled {
		mg := s.margin(p, s.support(), 0, res)
		s.keepCurrent()
		if mg > 0 {
			return
		}
		// BIHT's gradient at the current estimate, over all coordinates,
		// on the measurements that are not outliers.
		k := s.op.k
		s.op.mul(s.sp.ax, s.x[:k])
		r := s.sp.r
		for i, a := range s.sp.ax {
			r[i] = 0
			if !s.out[i] {
				r[i] = p.y[i] - sign(a)
			}
		}
		s.full.mulT(s.g, r)
		cands := s.candidates(p, s.g, refitCandidates)
		if len(cands) == 0 {
			return
		}
		// Greedy along this list: the candidate that makes the signs
		// separable with the largest margin, else the first (largest
		// gradient) and try the rest again with it.
		for len(cands) > 0 && added < limit && !s.cancelled {
			sup := s.support()
			best, bestM := 0, 0.0
			for t, c := range cands {
				if mg := s.trialMargin(p, append(sup, c), bestM, res); mg > bestM {
					best, bestM = t, mg
				}
				s.sup = sup
			}
			s.x[cands[best]] = 1e-3 // joins the support; a center sets its value
			cands = slices.Delete(cands, best, best+1)
			added++
			res.Expanded++
			if bestM > 0 {
				s.keepBest()
				return
			}
		}
		s.centerSkip(p, res) // a direction for the next gradient
	}
}

// prune drops, one at a time, the coordinate whose removal leaves the
// largest positive margin (see RecoverOptions.Prune), trying the
// searchPositions smallest coordinates.
func (s *Solver) prune(p *Problem, res *RecoverResult) {
	for !s.cancelled {
		sup := s.support()
		q := len(sup)
		if q <= 1 {
			return
		}
		trial := s.trial[:q-1]
		bestT, bestM := -1, 0.0
		for _, t := range s.smallest(sup) {
			copy(trial, sup[:t])
			copy(trial[t:], sup[t+1:])
			if mg := s.trialMargin(p, trial, bestM, res); mg > bestM {
				bestT, bestM = t, mg
			}
		}
		if bestT < 0 || s.cancelled {
			return
		}
		s.x[sup[bestT]] = 0
		res.Pruned++
		s.keepBest()
	}
}

// smallest returns the positions in sup of its searchPositions
// coordinates of smallest magnitude (all of them for short supports), in
// increasing order of magnitude (equal ones in support order): the ones
// that prune and swap try. A large coordinate carries much of the
// direction; removing it leaves the signs inseparable, and proving that
// costs a margin computation that runs to its cap.
func (s *Solver) smallest(sup []int) []int {
	pos := s.pos[:0]
	for t := range sup { // insertion sort: supports are short here
		v := math.Abs(s.x[sup[t]])
		u := len(pos)
		pos = append(pos, t)
		for ; u > 0 && math.Abs(s.x[sup[pos[u-1]]]) > v; u-- {
			pos[u] = pos[u-1]
		}
		pos[u] = t
	}
	s.pos = pos
	return pos[:min(len(pos), searchPositions)]
}

// swap exchanges a support coordinate for one outside while the margin
// grows (see RecoverOptions.Swap). The candidates are the coordinates j
// with the largest |q_j|, q = sum over the support vectors i of Wolfe's
// weight lambda_i times y_i a_i/||a_i|| (the rate at which the margin
// grows along e_j).
func (s *Solver) swap(p *Problem, res *RecoverResult) {
	cw := &s.cw
	for range swapMaxRounds {
		sup := s.support()
		q := len(sup)
		if q == 0 || s.cancelled {
			return
		}
		mu := s.wolfeMargin(p, sup, 0, s.skipOut, s.warmRows, s.warmLam, res)
		if mu <= 0 {
			return
		}
		s.keepCurrent()
		qv := s.g
		clear(qv)
		for u, r := range cw.corral {
			i := cw.rowIdx[r]
			vec.Axpy(cw.lam[u]*p.y[i]/cw.rowNrm[r], p.phi[i*p.n:(i+1)*p.n], qv)
		}
		s.full.work += float64(len(cw.corral)) / float64(p.m)
		cands := s.candidates(p, qv, swapCandidates)
		sup = s.support()
		trial := s.trial[:q]
		best, bc, bt := mu, -1, -1
		for _, c := range cands {
			for _, t := range s.smallest(sup) {
				copy(trial, sup)
				trial[t] = c
				s.x[c] = s.x[sup[t]] // Wolfe's start
				if mg := s.trialMargin(p, trial, best, res); mg > best {
					best, bc, bt = mg, c, t
				}
				s.x[c] = 0
			}
		}
		if bc < 0 || s.cancelled {
			return
		}
		s.x[bc], s.x[sup[bt]] = s.x[sup[bt]], 0
		res.Swapped++
		s.keepBest()
	}
}

// center replaces the estimate on its support by the center of the
// consistency cell (see RecoverOptions.Center); when the signs not
// flagged as outliers are not separable on the support, by that of those
// the estimate satisfies.
func (s *Solver) center(p *Problem, res *RecoverResult) {
	sup := s.support()
	if len(sup) == 0 || s.cancelled {
		return
	}
	s.partial = false
	cleared := false
	if res.Outliers > 0 {
		// Without flipped signs, a nearly consistent estimate (error well
		// below 1/M) gives a cap so small that a sign it violates by a
		// little is flagged; signs separable with all the others on the
		// support are no outliers. Their margin is then the one below (no
		// sign left out), so it is not computed twice.
		if mg := s.wolfeMargin(p, sup, 0, nil, nil, nil, res); mg > 0 && !s.cancelled {
			clear(s.out)
			res.Outliers, res.Margin, cleared = 0, mg, true
		}
	}
	if !cleared {
		res.Margin = s.margin(p, sup, 0, res)
	}
	if res.Margin > 0 {
		for u, c := range sup {
			s.x[c] = s.xc[u]
		}
		res.Centered = true
		return
	}
	// Not separable: the signs are inconsistent with any direction on this
	// support (flipped signs). Drop the coordinates below a tenth of the
	// largest, which fit a few flips each (the support grew to fit them),
	// and center on the measurements the estimate satisfies.
	{
		top := 0.0
		for _, c := range sup {
			top = max(top, math.Abs(s.x[c]))
		}
		for _, c := range sup {
			if math.Abs(s.x[c]) < noisyTrim*top {
				s.x[c] = 0
				res.Pruned++
			}
		}
	}
	res.Margin = s.centerSkip(p, res)
	res.Centered = res.Margin > 0
	s.partial = res.Centered
}

// polish is RecoverOptions.Polish on the centered estimate s.x, whose
// margin is res.Margin.
func (s *Solver) polish(ctx context.Context, p *Problem, res *RecoverResult) error {
	q := len(s.support())
	// BIHT's products are counted by s.full, with the rest of Recover's.
	// If told |S| it finds no consistent support, |S| may be one short
	// (the continuation missed a coordinate, leaving a thin cell): its fit
	// told |S|+1 is the candidate then. When the signs are not separable
	// on S, up to polishPartialExtra more, each fit a candidate.
	extra := 1
	if s.partial {
		extra = polishPartialExtra
	}
	last := min(q+extra, p.n)
	// Its products gather the iterates' non-zero columns (see
	// bihtWork.gather; 9-24% of Recover's mean CPU time on Generate's
	// instances, the same estimates). With a sign matrix the summation
	// order decides the sign of products that are 0 in exact arithmetic
	// (a plain gather moved the mean error by +0.0022 ± 0.0009,
	// rademacher M/N = 0.25; see the package documentation), so there
	// they gather keeping the dense product's signs (operator.mulSigns):
	// the dense iterates, bit for bit.
	sm := p.signMatrix()
	s.bw.gather, s.bw.signs = !sm, sm
	for kb := q; kb <= last; kb++ {
		br, err := s.bw.run(ctx, &s.full, p.y, s.bx, kb, polishMaxIter, polishPatience)
		if err != nil {
			return fmt.Errorf("onebit: Recover cancelled in the polish: %w", err)
		}
		if br.Hamming == 0 || kb == last || s.partial {
			if s.polishTake(p, res) || br.Hamming == 0 || s.cancelled {
				return nil
			}
		}
	}
	return nil
}

// polishTake replaces the estimate by the center of the cell of BIHT's
// support (s.bx) if that center's margin is larger (see
// RecoverOptions.Polish), and reports whether it did.
func (s *Solver) polishTake(p *Problem, res *RecoverResult) bool {
	xb := s.bx
	if !s.op.full { // BIHT's support into the working set
		add := s.cand[:0]
		for j, v := range xb {
			if v != 0 && s.ws.pos[j] < 0 {
				add = append(add, j)
			}
		}
		if len(add) > 0 {
			if s.ws.k+len(add) > p.n/wsMaxShare {
				return false
			}
			s.grow(add, 0)
		}
	}
	k := s.op.k
	xs := s.tmp[:k]
	s.slots(xs, xb)
	same := true
	for c, v := range xs {
		if (v != 0) != (s.x[c] != 0) {
			same = false
			break
		}
	}
	if same {
		return false
	}
	keep := s.keep[:k]
	copy(keep, s.x[:k])
	copy(s.x[:k], xs)
	sup := s.support()
	// A center of the satisfied signs only loses to any support on which
	// all of them are separable.
	floor := res.Margin
	if s.partial {
		floor = 0
	}
	if mg := s.margin(p, sup, floor, res); mg > floor && !s.cancelled {
		clear(s.x[:k])
		for u, c := range sup {
			s.x[c] = s.xc[u]
		}
		res.Margin, res.Polished = mg, true
		s.partial = false
		return true
	}
	copy(s.x[:k], keep)
	return false
}

// centerSkip sets the estimate on its support to the center of the cell
// of the measurements it satisfies (and that are not outliers), if they
// are separable, and returns the margin.
func (s *Solver) centerSkip(p *Problem, res *RecoverResult) float64 {
	sup := s.support()
	k := s.op.k
	ax := s.sp.ax
	s.op.mul(ax, s.x[:k])
	mg := s.wolfeMargin(p, sup, 0, func(i int) bool { return s.out[i] || sign(ax[i]) != p.y[i] }, nil, nil, res)
	if mg > 0 && !s.cancelled {
		for u, c := range sup {
			s.x[c] = s.xc[u]
		}
	}
	return mg
}

// slots sets xs (the operator's coordinates) from the full-length x.
func (s *Solver) slots(xs, x []float64) {
	if s.op.full {
		copy(xs, x)
		return
	}
	for c, j := range s.ws.idx {
		xs[c] = x[j]
	}
}

// unslot sets the full-length x from xs (zero outside the working set).
func (s *Solver) unslot(x, xs []float64) {
	if s.op.full {
		copy(x, xs)
		return
	}
	clear(x)
	for c, j := range s.ws.idx {
		x[j] = xs[c]
	}
}

func growBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	return b[:n]
}

// noisyTrim is the fraction of the largest coefficient below which the
// final step drops a coordinate when the signs are not separable on the
// support (see RecoverOptions.Center): with 3% of the signs flipped it
// took the support from 17-23 to 7-8 non-zeros (K = 10, M/N = 1 and 2)
// at an angular error still half of BIHT's.
const noisyTrim = 0.05

// polishBelow gates the polish: it runs when the center's margin is below
// polishBelow*|S|/M. The cell of a support of |S| coordinates cut by M
// signs is about |S|/M wide; on the right support the normalized margin
// mu*M/|S| was 0.08-0.74 (N = 1000, Gaussian and Rademacher Phi, K = 10
// and 20, M/N = 0.25-2), and the polish helped mostly below 0.15: above,
// it changed 7 of 60 instances, by -0.016 to +0.005 in angle.
const polishBelow = 0.15

// polishTinyShare and polishTinyCount also start the polish when at
// least polishTinyCount coordinates of the centered estimate are below
// polishTinyShare times the largest. A support that misses a small true
// coordinate is completed by wrong ones that explain its few signs, and
// they come out tiny: 0.7-1.8% of the largest on the 3 instances of 50 at
// N = M = 2000 (K = 10) where Recover's error was 2-4 times BIHT's with a
// comfortable margin (mu*M/|S| of 0.17-0.29) and 11-13 coordinates. On
// the protocol at N = 1000 (both families, K = 10 and 20, with and
// without flips) it started no polish that changed an estimate.
const (
	polishTinyShare = 0.03
	polishTinyCount = 2
)

// tiny counts the non-zeros of the estimate below polishTinyShare times
// its largest magnitude.
func (s *Solver) tiny() int {
	top := 0.0
	for _, v := range s.x[:s.op.k] {
		top = max(top, math.Abs(v))
	}
	n := 0
	for _, v := range s.x[:s.op.k] {
		if v != 0 && math.Abs(v) < polishTinyShare*top {
			n++
		}
	}
	return n
}

// polishMaxIter caps the iterations of the polish's BIHT (that of
// DefaultBIHTMaxIter). Told the right K, BIHT reached consistency within
// 18-62 iterations at N = 1000, but at N = M = 2000 it wandered for more
// than 30 iterations without fewer violations on 2 of 50 instances before
// it found the true support; told one too few it never does, and the
// patience below stops it.
const polishMaxIter = 1000

// polishPatience stops the polish's BIHT after this many iterations without
// fewer violated signs than before. 30 stopped it short of the true
// support on 2 of 50 instances at N = M = 2000 (60 on 1 of them), leaving
// Recover at 1.11 times BIHT's error there; 100 took it to 1.03 times, at
// the same median products and 0-8% more at N = 1000.
const polishPatience = 100

// polishPartialExtra is how many coordinates more than the support's
// size the polish tells BIHT, one more at a time while BIHT finds no
// consistent support, when the signs are not separable on the support
// (it misses true coordinates: 2 of 10 on 2 of 20 instances at
// N = M = 4000).
const polishPartialExtra = 3
