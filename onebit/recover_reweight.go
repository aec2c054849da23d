package onebit

import (
	"context"
	"math"
)

// reweight runs Recover's RecoverOptions.Reweight rounds of reweighted
// L1 at lambda (the continuation's last), none after a stopped
// continuation (res.Stopped): each sets the L1 weights to
// 1/(|x_j|/max|x| + ReweightEps) from the current iterate and solves
// again from it (see solveStage). It then writes the estimate, the
// x-iterate (or w if that is zero) normalized, into x; on error, the
// failing round's.
func (s *Solver) reweight(ctx context.Context, p *Problem, x []float64, plan *stagePlan, lambda float64, res *RecoverResult) error {
	eps := plan.opt.ReweightEps
	for r := 0; r < plan.opt.Reweight && !res.Stopped; r++ {
		s.shrink()
		k := s.op.k
		top := 0.0
		for _, v := range s.x[:k] {
			top = max(top, math.Abs(v))
		}
		for c, v := range s.x[:k] {
			s.wt[c] = 1 / (math.Abs(v)/top + eps)
		}
		if _, err := s.solveStage(ctx, p, x, plan, lambda, true, res); err != nil {
			return err
		}
	}
	s.sp.cap = 0
	s.export(x)
	normalize(x)
	return nil
}
