package onebit

import (
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
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

// schedule is what the stages run with, as the signs look: the first
// lambda, the growth, the stages' EpsRel and the reweighting rounds'
// InnerRel, whether the continuation starts from the regression's fit,
// and the largest fraction of the signs the final steps may leave out
// as outliers (0: any).
type schedule struct {
	start, growth, epsRel, reweightRel float64
	warm                               bool
	maxOutliers                        float64
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
	c.maxOutliers = o.CleanMaxOutliers
	return c
}

// scheduleFor returns the schedule for the signs as the sign regression
// sees them: clean when its fit is a candidate whose probit model needs
// at most probitFlipFloor of them flipped (see regressFit.clean), plain
// otherwise.
func (o *RecoverOptions) scheduleFor(fit regressFit) schedule {
	if fit.clean() {
		return o.clean()
	}
	return o.plain()
}

// maxOut returns how many of m signs the final steps may leave out as
// outliers (see RecoverOptions.CleanMaxOutliers).
func (c schedule) maxOut(m int) int {
	if c.maxOutliers > 0 {
		return int(c.maxOutliers * float64(m))
	}
	return m
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
