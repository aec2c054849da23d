package onebit

import (
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
)

// RecoverOptions configures Solver.Recover. Its fields are grouped by the
// stage of Recover they configure, in the order the stages run, each
// group headed by the stage and its file; every stage but the
// continuation can be switched off (Regress, Reweight = 0, Refit, Prune,
// Swap, Center, Polish, Centroid, Pursuit; Cap = 0 leaves no measurement
// out). docs/onebit-options.md records the measurements behind the
// defaults.
//
// Lambdas here are in units of the mean loss: a stage with lambda solves
// the paper's problem with Options.Lambda = lambda*N/||Phi||_F^2
// (lambda/M for entries of unit variance), i.e.
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
// with the same Phi (the same Problem or a WithSigns sibling).
type RecoverOptions struct {
	// The sign regression (recover_regress.go), and the choice between
	// its fit and the consistent estimate (recover_choice.go).

	// Regress fits the signs by least squares on a greedily grown support
	// (orthogonal matching pursuit on y, stopped by the risk inflation
	// criterion, then grown further while the description below
	// shortens), and keeps that fit instead of the consistent estimate of
	// the stages below when it describes the signs more briefly: fewer
	// nats for its support, its values and the signs it violates
	// (RecoverResult.Regressed); when the fit's probit model of the signs
	// needs more than 1% of them flipped, the signs of both are coded by
	// that model, in which a violation at the edge costs less than a
	// deep one. When that model needs at most 1% of them flipped, the
	// signs look clean and the Clean options below apply. It costs one
	// pass over Phi and one product with Phi^T per 1-4 coordinates of its
	// support.
	Regress bool

	// The schedule when the signs look clean (see Regress).

	// CleanEpsRel, if > 0, replaces EpsRel in every continuation stage
	// when the signs look clean. 0 (EpsRel always) or > 0 and at most
	// 2^960 (as EpsRel).
	CleanEpsRel float64
	// CleanLambdaStart and CleanLambdaGrowth, if > 0, replace LambdaStart
	// and LambdaGrowth when the signs look clean; CleanReweightRel is then
	// the reweighting rounds' InnerRel, and CleanWarm starts the
	// continuation from the sign regression's fit (its support the first
	// working set, with WorkingSet, completed to the 16 coordinates
	// Options.WorkingSet starts from when it is smaller) instead of the
	// back-projection. CleanLambdaStart is 0 or finite with
	// 0 < CleanLambdaStart <= LambdaMax; CleanLambdaGrowth 0 or finite and
	// > 1; CleanReweightRel finite and >= 0.
	CleanLambdaStart, CleanLambdaGrowth, CleanReweightRel float64
	CleanWarm                                             bool
	// CleanMaxOutliers, if > 0, is the largest fraction of the signs that
	// the steps after the stages may leave out as outliers (see Cap) when
	// the signs look clean: a cap that would leave out more (more than
	// int(CleanMaxOutliers*M) signs) leaves out none. In [0, 1].
	CleanMaxOutliers float64

	// The continuation (recover_continuation.go).

	// LambdaStart, LambdaMax and LambdaGrowth define the continuation:
	// lambda = LambdaStart, LambdaStart*LambdaGrowth, ... while <= LambdaMax
	// (and LambdaMax itself last if the steps miss it), at most MaxStages
	// stages. 0 < LambdaStart <= LambdaMax, LambdaGrowth > 1, all finite.
	LambdaStart, LambdaMax, LambdaGrowth float64
	// RhoScale and RhoPower set each stage's fixed
	// rho = RhoScale*lambda^RhoPower, which must be a valid Options.Rho at
	// every stage (finite and >= neadmm.MinRho): Recover checks every
	// stage's before any work. RhoScale finite and > 0, RhoPower finite.
	RhoScale, RhoPower float64
	// StageIter caps the outer iterations of each stage; > 0.
	StageIter int
	// EpsAbs, EpsRel, InnerMaxIter and InnerTol are as in Options, for
	// every stage and reweighting round.
	EpsAbs, EpsRel float64
	InnerMaxIter   int
	InnerTol       float64
	// InnerRel is Options.InnerRel for the continuation stages; the
	// reweighting rounds solve their x-updates to InnerTol (with clean
	// signs, see CleanReweightRel).
	InnerRel float64
	// WorkingSet runs every stage on a working set of coordinates (see
	// Options.WorkingSet), kept from stage to stage.
	WorkingSet bool
	// SupportGrowth, if > 0, stops the continuation before a stage that
	// multiplies the number of non-zeros by more than SupportGrowth, plus
	// 8 (that is, to more than SupportGrowth*max(n, r) + 8 non-zeros, n
	// the previous stage's count and r, with Regress, the regression's
	// support at its risk-inflation stop, else 0; never the first stage)
	// or whose working set would outgrow a quarter of the columns: the
	// estimate of the stage before is kept and the reweighting is skipped
	// (RecoverResult.Stopped). It acts on a working set only
	// (WorkingSet): on the full Phi no stage is stopped. 0 (never) or
	// finite and > 1.
	SupportGrowth float64
	// Cap, if > 0, caps the loss of each measurement: the stages use
	// min(min(y_i (Phi x)_i, 0)^2, tau^2), and the steps after them leave
	// out the measurements violated deeper than tau
	// (RecoverResult.Outliers). tau is measured at the start of each
	// stage, at x of unit norm: tau = Cap*sigma*sin(min(pi*v, pi/2)),
	// with sigma = median|(Phi x)_i|/0.6745 the scale of the projections
	// and v the fraction of the signs violated within the previous
	// stage's tau. A violated sign stops pulling the estimate beyond tau.
	// Finite and >= 0; 0 is the plain one-sided quadratic.
	Cap float64

	// The reweighting (recover_reweight.go).

	// Reweight is the number of reweighted-L1 rounds after the
	// continuation (>= 0; none after a stopped one): each solves again at
	// LambdaMax with the L1 term sum_j |x_j| / (|x_j|/max|x| + ReweightEps)
	// from the current x, which removes most of the L1 shrinkage of the
	// large coefficients.
	Reweight int
	// ReweightEps is the eps of the weights; finite and > 0 when
	// Reweight > 0.
	ReweightEps float64

	// The support search (recover_search.go).

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
	// (Wolfe's algorithm, see Center) of the search, the center and the
	// polish; > 0 when Refit, Prune, Swap or Center is set.
	RefitMaxIter int
	// Prune drops, one at a time, the coordinate whose removal leaves the
	// largest margin, while the signs stay separable: backward elimination
	// to a support no coordinate of which is superfluous.
	Prune bool
	// Swap exchanges a coordinate of the support for one outside while
	// that increases the margin (candidates: the 3 along which the margin
	// grows fastest), then prunes again (with Prune) after a round that
	// swapped. The search runs on supports of at most 32 coordinates.
	Swap bool

	// The center (recover_center.go).

	// Center replaces the estimate on its support by the center of the
	// cell of directions on that support consistent with the signs (not
	// counting the outliers): the direction maximizing the smallest
	// angular margin min_i y_i <a_i, x>/||a_i|| over the support's rows
	// a_i, found exactly by Wolfe's algorithm (RecoverResult.Centered and
	// Margin). When the signs are not separable on the support, the
	// coordinates below 5% of the largest are dropped first and the
	// center is that of the measurements the estimate satisfies.
	Center bool

	// The polish (recover_polish.go).

	// Polish, when the centered estimate's margin mu is small
	// (mu*M/|S| < 0.15, |S| its support's size) or at least two of its
	// coordinates are below 3% of the largest, or the signs are not
	// separable on the support, and no measurement was left out as an
	// outlier, runs BIHT from zero on all of Phi told K = |S| (or |S|+1
	// if that finds no consistent support; up to |S|+3 while it finds
	// none, when the signs are not separable), and keeps the center of
	// the consistency cell of BIHT's support instead when that center's
	// margin is larger (RecoverResult.Polished; when the signs are not
	// separable on the support, when all the signs are separable on
	// BIHT's). It does not run when the sign regression (Regress)
	// describes the signs more briefly than any consistent estimate on
	// |S| or more coordinates could: that fit replaces the estimate
	// whatever the polish finds. Without Center it does nothing.
	Polish bool

	// The centroid (recover_centroid.go).

	// Centroid, when the centered estimate is kept (the sign regression's
	// fit does not replace it, see Regress), replaces the center by an
	// estimate of the centroid of the same cell: the mean of the
	// directions on the support consistent with the kept signs, by
	// expectation propagation on the signs near the cell (see
	// centroidWork; RecoverResult.Centroid). It keeps the center if the
	// estimate would violate a kept sign, the support holds fewer than 2
	// or more than 64 coordinates, or the center's angular margin is
	// above 0.05.
	Centroid bool

	// The outlier pursuit (recover_pursuit.go).

	// Pursuit, when the sign regression's fit replaces the consistent
	// estimate and its probit model needs more than 1% of the signs
	// flipped (see Regress), runs adaptive outlier pursuit (BIHT that
	// leaves out of each step the eps*M signs its estimate violates most
	// deeply, eps that model's flip rate; Yan, Yang and Osher 2012) told
	// each K from the regression's support size k to the larger of k and
	// the consistent estimate's support size, then each larger K, up to
	// the larger of 2k and that size, while one of the last two described
	// the signs more briefly than every K before (see Regress). It keeps
	// the estimate that describes the signs the most briefly, and returns
	// it alone if it describes them 25 nats more briefly than the
	// regression's fit, else the normalized mean of the two
	// (RecoverResult.Pursued). Without Regress it does nothing.
	Pursuit bool
}

// MaxStages caps the stages of a continuation (RecoverOptions.LambdaGrowth
// close to 1 would otherwise ask for billions).
const MaxStages = 1000

// DefaultRecoverOptions returns the recovery pipeline that the package
// documentation measures against BIHT (docs/onebit-options.md records
// what each default bought).
func DefaultRecoverOptions() RecoverOptions {
	return RecoverOptions{
		Regress:           true,
		CleanEpsRel:       0.1,
		CleanLambdaStart:  1000,
		CleanLambdaGrowth: 10,
		CleanReweightRel:  0.01,
		CleanWarm:         true,
		CleanMaxOutliers:  0.05,
		LambdaStart:       100,
		LambdaMax:         1e5,
		LambdaGrowth:      3,
		RhoScale:          1,
		RhoPower:          0.5,
		StageIter:         50,
		EpsAbs:            1e-6,
		EpsRel:            1e-2,
		InnerMaxIter:      200,
		InnerTol:          1e-6,
		InnerRel:          0.01,
		WorkingSet:        true,
		SupportGrowth:     3,
		Cap:               3,
		Reweight:          4,
		ReweightEps:       0.01,
		Refit:             true,
		RefitMaxIter:      200,
		Prune:             true,
		Swap:              true,
		Center:            true,
		Polish:            true,
		Centroid:          true,
		Pursuit:           true,
	}
}

// check validates o for a problem whose raw lambdas are the mean-loss
// ones times scale, every stage of the continuation included, on the Phi
// of size on (see Options.checkOn).
func (o *RecoverOptions) check(scale float64, on phiSize) error {
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
	case !(o.CleanEpsRel >= 0 && o.CleanEpsRel <= maxTol):
		return fmt.Errorf("%w: CleanEpsRel = %g, want 0 or > 0 and at most 2^960", ErrBadInput, o.CleanEpsRel)
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
	if err := o.checkStages(o.LambdaStart, o.LambdaGrowth, o.EpsRel, scale, on, ""); err != nil {
		return err
	}
	c := o.clean()
	if c.epsRel == o.EpsRel && c.start == o.LambdaStart && c.growth == o.LambdaGrowth {
		return nil
	}
	return o.checkStages(c.start, c.growth, c.epsRel, scale, on, " with clean signs")
}

// checkStages validates every stage of the continuation from start by
// growth with epsRel (the reweighting rounds run at the last stage's
// lambda; their InnerRel is checked with the fields).
func (o *RecoverOptions) checkStages(start, growth, epsRel, scale float64, on phiSize, what string) error {
	stages := 0
	for lambda := start; ; lambda = min(lambda*growth, o.LambdaMax) {
		if stages++; stages > MaxStages {
			return fmt.Errorf("%w: the continuation%s from %g to %g by x%g has more than MaxStages = %d stages",
				ErrBadInput, what, start, o.LambdaMax, growth, MaxStages)
		}
		st := o.stage(lambda, scale)
		st.EpsRel = epsRel
		err := st.check()
		if err == nil {
			err = st.checkOn(on)
		}
		if err != nil {
			return fmt.Errorf("RecoverOptions: continuation stage %d%s (lambda %g): %w", stages, what, lambda, err)
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
