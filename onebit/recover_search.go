package onebit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/neadmm/neadmm/vec"
)

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
