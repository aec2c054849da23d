package onebit

import (
	"context"
	"math"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/vec"
)

// continuationWork is the workspace of the continuation and of the loss
// cap's measurement.
type continuationWork struct {
	save     []float64 // 2N: x and w before a stage
	saveDual []float64 // 1+N: the dual before it
	xs       []float64 // N: the iterate normalized, for the cap
	ax, abs  []float64 // M: Phi x for the cap, and its magnitudes
}

func (ct *continuationWork) resize(m, n int) {
	ct.save = buf.Grow(ct.save, 2*n)
	ct.saveDual = buf.Grow(ct.saveDual, 1+n)
	ct.xs = buf.Grow(ct.xs, n)
	ct.ax = buf.Grow(ct.ax, m)
	ct.abs = buf.Grow(ct.abs, m)
}

// stagePlan is what every neADMM solve of Recover runs with: the options,
// the schedule the signs chose, the scale of the raw lambdas (N/||Phi||_F^2,
// see RecoverOptions) and the loss cap, measured anew before each solve.
type stagePlan struct {
	opt   *RecoverOptions
	sch   schedule
	scale float64
	cap   lossCap
}

// lossCap is the cap on the loss of each measurement (RecoverOptions.Cap):
// scale is Cap, tau the depth last measured (+Inf before the first
// measurement; see capDepth).
type lossCap struct {
	scale, tau float64
}

// supportSlack is added to the growth allowed by SupportGrowth, so that
// the tiny supports of the first stages (1 to 3 non-zeros when lambda is
// where the solution collapses) may grow freely.
const supportSlack = 8

// continuation is Recover's continuation in lambda: from the start (the
// back-projection, or the regression's fit when the schedule says warm;
// see start), neADMM solves at lambda = sch.start, sch.start*sch.growth,
// ..., LambdaMax, each warm-started from the stage before, until
// LambdaMax or until a stage's support explodes (RecoverOptions.
// SupportGrowth, scaled by fit.ricK), which restores the iterate before
// that stage and sets res.Stopped. It returns the lambda of the last
// stage kept (res.Lambda). On error x holds the failing stage's iterate,
// normalized.
func (s *Solver) continuation(ctx context.Context, p *Problem, x []float64, plan *stagePlan, fit regressFit, res *RecoverResult) (float64, error) {
	opt := plan.opt
	s.start(p, x, opt.WorkingSet, plan.sch.warm, fit)
	lambda, lastLambda, prevNZ := plan.sch.start, plan.sch.start, 0
	for {
		k0 := s.op.k
		s.ct.saveIterate(s, k0)
		overflow, err := s.solveStage(ctx, p, x, plan, lambda, false, res)
		if err != nil {
			return lastLambda, err
		}
		nz := s.nonzeros()
		if overflow || exploded(opt.SupportGrowth, nz, prevNZ, fit.ricK) && !s.op.full {
			// The support exploded: the stage fits signs that no sparse
			// direction explains. Go back to the previous stage's iterate
			// (the start, before the first; zero on the slots added since)
			// and stop there.
			s.ct.restoreIterate(s, k0)
			res.Stopped = true
			break
		}
		prevNZ, lastLambda = nz, lambda
		if lambda >= opt.LambdaMax {
			break
		}
		lambda = min(lambda*plan.sch.growth, opt.LambdaMax)
		s.shrink()
	}
	res.Lambda = lastLambda
	return lastLambda, nil
}

// start sets the continuation's start: the regression's fit when warm
// (its support the first working set, completed to wsInitial
// coordinates), else the back-projection, normalized into x and made the
// iterate (on a working set of its largest coordinates, with workingSet).
func (s *Solver) start(p *Problem, x []float64, workingSet, warm bool, fit regressFit) {
	k0 := wsInitial
	if warm {
		// A clean fit is a candidate: it has k > 0 non-zeros.
		copy(x, fit.x[:p.n])
		k0 = max(k0, countNonzero(x))
	} else {
		s.backprojection(x, p)
	}
	normalize(x)
	if workingSet {
		s.wsInit(p, x, k0)
	} else {
		s.fullInit(p, x)
	}
}

// exploded reports that a stage with nz non-zeros after one with prevNZ
// grew its support by more than growth (RecoverOptions.SupportGrowth; 0
// never) times the larger of prevNZ and guardK, plus supportSlack; the
// first stage (prevNZ = 0) never does.
func exploded(growth float64, nz, prevNZ, guardK int) bool {
	return growth > 0 && prevNZ > 0 && float64(nz) > growth*float64(max(prevNZ, guardK))+supportSlack
}

// saveIterate keeps the iterate's first k0 slots (x, w, dual) before a
// stage.
func (ct *continuationWork) saveIterate(s *Solver, k0 int) {
	copy(ct.save, s.x[:k0])
	copy(ct.save[k0:], s.w[:k0])
	copy(ct.saveDual, s.dual[:1+k0])
}

// restoreIterate brings back the iterate saved before the stage on its k0
// slots, and zeroes the slots added since.
func (ct *continuationWork) restoreIterate(s *Solver, k0 int) {
	k := s.op.k
	copy(s.x[:k0], ct.save[:k0])
	copy(s.w[:k0], ct.save[k0:2*k0])
	copy(s.dual[:1+k0], ct.saveDual[:1+k0])
	clear(s.x[k0:k])
	clear(s.w[k0:k])
	clear(s.dual[1+k0 : 1+k])
}

// solveStage is one neADMM solve of Recover at (mean-loss) lambda, from
// the current iterate, with the loss capped at a depth measured first
// (capDepth), weighted with the reweighting rounds' L1 weights s.wt (the
// coordinates outside a working set weighted 1/ReweightEps); counted in
// res. With SupportGrowth a working set that would outgrow its cap ends
// the solve (overflow) instead of moving it to the full Phi. On error x
// holds the solve's iterate, normalized.
func (s *Solver) solveStage(ctx context.Context, p *Problem, x []float64, plan *stagePlan, lambda float64, weighted bool, res *RecoverResult) (overflow bool, err error) {
	opt := plan.opt
	s.sp.cap, _ = s.capDepth(p, &plan.cap, s.ct.ax)
	so := opt.stage(lambda, plan.scale)
	so.EpsRel = plan.sch.epsRel
	mode := solveMode{off: 1, noFull: opt.SupportGrowth > 0}
	if weighted {
		so.InnerRel = plan.sch.reweightRel
		mode.weighted, mode.off = true, 1/opt.ReweightEps
	}
	r, overflow, err := s.stage(ctx, p, so, mode)
	res.Stages++
	res.Iterations += r.Iterations
	res.InnerIterations += r.InnerIterations
	res.KKTChecks += r.KKTChecks
	res.Last = r
	if err != nil {
		s.export(x)
		normalize(x)
	}
	return overflow, err
}

// capDepth measures the depth tau beyond which a violation is capped (see
// RecoverOptions.Cap) at the current iterate normalized (x, or w when x
// is zero), writing Phi times it into ax (M), records it in c.tau and
// returns it: tau = c.scale*sigma*sin(pi*v), sigma estimated from the
// median |(Phi x)_i| and v the fraction of the signs violated within the
// previous tau. For c.scale = 0 or an iterate that cannot be normalized
// it returns 0 (no cap) and ok = false, and leaves c.tau and ax as they
// were.
func (s *Solver) capDepth(p *Problem, c *lossCap, ax []float64) (tau float64, ok bool) {
	if c.scale == 0 {
		return 0, false
	}
	k := s.op.k
	xs := s.ct.xs[:k]
	copy(xs, s.x[:k])
	if vec.Nrm2(xs) == 0 {
		copy(xs, s.w[:k])
	}
	if !normalize(xs) {
		return 0, false
	}
	s.op.mul(ax, xs)
	a := s.ct.abs[:p.m]
	bad := 0
	for i, v := range ax {
		a[i] = math.Abs(v)
		if sign(v) != p.y[i] && a[i] <= c.tau {
			bad++
		}
	}
	sigma := median(a) / 0.6745 // the standard deviation, for Gaussian rows
	v := float64(bad) / float64(p.m)
	c.tau = c.scale * sigma * math.Sin(min(math.Pi*v, math.Pi/2))
	return c.tau, true
}
