package onebit

import (
	"context"
	"math"
	"slices"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/vec"
)

// searchWork is the workspace of the support search (RecoverOptions.Refit,
// Prune and Swap).
type searchWork struct {
	trial []int     // N: a trial support
	pos   []int     // N: positions in a support (smallest)
	cands []int     // the candidates to join
	add   []int     // N: columns to add to the working set
	g     []float64 // N: BIHT's gradient (refit), or the margin's rates (swap)
	ax, r []float64 // M: Phi x and y - sign(Phi x) (refit)
	// warmRows and warmLam are the final corral (measurements, weights)
	// of the current support's margin, from which the trials of prune
	// and swap start (see wolfeWork.warm); bestRows and bestLam that of
	// the best trial so far.
	warmRows, bestRows []int
	warmLam, bestLam   []float64
	// poolRows and poolLam are the last bound's final corral, which
	// starts the trial on all rows when the bound did not decide.
	poolRows []int
	poolLam  []float64
	// bound is the pool bounding trial margins (see boundWork), made on
	// first use. boundOff turns it off and warmOff makes the trials start
	// cold (tests compare).
	bound             *boundWork
	boundOff, warmOff bool
}

func (sw *searchWork) resize(m, n int) {
	sw.trial = growInts(sw.trial, n)
	sw.pos = growInts(sw.pos, n)
	sw.add = growInts(sw.add, n)
	sw.g = buf.Grow(sw.g, n)
	sw.ax = buf.Grow(sw.ax, m)
	sw.r = buf.Grow(sw.r, m)
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

// search is Recover's support search on the estimate s.x, for a support
// of at most searchMaxSupport coordinates: with opt.Refit, opt.Prune and
// opt.Swap, the refit, pruning and swapping, on the measurements not
// left out as outliers (s.cell.out). It adds columns to the working set
// when a coordinate outside joins. It looks at done (ctx.Done()) every
// major cycle of Wolfe's algorithm and returns ctx's error if it was
// closed.
func (s *Solver) search(ctx context.Context, done <-chan struct{}, p *Problem, opt *RecoverOptions, res *RecoverResult) error {
	if !(opt.Refit || opt.Prune || opt.Swap) || len(s.support()) > searchMaxSupport {
		return nil
	}
	s.cell.begin(done, opt.RefitMaxIter)
	s.sw.reset(p.m)
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
	return s.cell.end(ctx, "support search")
}

// reset empties the corrals and the bound's pool (made on first use) for
// a problem with m measurements.
func (sw *searchWork) reset(m int) {
	if sw.bound == nil {
		sw.bound = &boundWork{rows: make([]int, 0, boundPool)}
	}
	sw.bound.reset(m)
	sw.warmRows = sw.warmRows[:0]
}

// refit completes the support until the signs not flagged as outliers are
// separable on it (see RecoverOptions.Refit), refitting the direction on
// each new support by its center (on the measurements it satisfies).
func (s *Solver) refit(p *Problem, res *RecoverResult) {
	c, sw := &s.cell, &s.sw
	limit := max(2, min(len(s.support()), refitMaxExpand))
	added := 0
	for added < limit && !c.cancelled {
		mg := s.searchMargin(p, s.support(), 0, nil, nil, res)
		s.keepCurrent()
		if mg > 0 {
			return
		}
		cands := s.candidates(p, s.bihtGradient(p), refitCandidates)
		if len(cands) == 0 {
			return
		}
		// Greedy along this list: the candidate that makes the signs
		// separable with the largest margin, else the first (largest
		// gradient) and try the rest again with it.
		for len(cands) > 0 && added < limit && !c.cancelled {
			sup := s.support()
			best, bestM := 0, 0.0
			for t, j := range cands {
				if mg := s.trialMargin(p, append(sup, j), bestM, res); mg > bestM {
					best, bestM = t, mg
				}
				c.sup = sup
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
		if bw := sw.bound; bw != nil {
			bw.addCorral(&c.wolfe)
		}
	}
}

// bihtGradient returns BIHT's gradient Phi^T (y - sign(Phi x)) at the
// estimate s.x, over all coordinates, on the measurements that are not
// outliers (s.sw.g).
func (s *Solver) bihtGradient(p *Problem) []float64 {
	sw := &s.sw
	k := s.op.k
	s.op.mul(sw.ax, s.x[:k])
	r := sw.r[:p.m]
	for i, a := range sw.ax[:p.m] {
		r[i] = 0
		if !s.cell.out[i] {
			r[i] = p.y[i] - sign(a)
		}
	}
	s.full.mulT(sw.g, r)
	return sw.g
}

// prune drops, one at a time, the coordinate whose removal leaves the
// largest positive margin (see RecoverOptions.Prune), trying the
// searchPositions smallest coordinates.
func (s *Solver) prune(p *Problem, res *RecoverResult) {
	c := &s.cell
	for !c.cancelled {
		sup := s.support()
		q := len(sup)
		if q <= 1 {
			return
		}
		trial := s.sw.trial[:q-1]
		bestT, bestM := -1, 0.0
		for _, t := range s.smallest(sup) {
			copy(trial, sup[:t])
			copy(trial[t:], sup[t+1:])
			if mg := s.trialMargin(p, trial, bestM, res); mg > bestM {
				bestT, bestM = t, mg
			}
		}
		if bestT < 0 || c.cancelled {
			return
		}
		s.x[sup[bestT]] = 0
		res.Pruned++
		s.keepBest()
	}
}

// swap exchanges a support coordinate for one outside while the margin
// grows (see RecoverOptions.Swap). The candidates are the coordinates j
// with the largest |q_j|, q = sum over the support vectors i of Wolfe's
// weight lambda_i times y_i a_i/||a_i|| (the rate at which the margin
// grows along e_j).
func (s *Solver) swap(p *Problem, res *RecoverResult) {
	c, sw := &s.cell, &s.sw
	for range swapMaxRounds {
		sup := s.support()
		q := len(sup)
		if q == 0 || c.cancelled {
			return
		}
		mu := s.searchMargin(p, sup, 0, sw.warmRows, sw.warmLam, res)
		if mu <= 0 {
			return
		}
		s.keepCurrent()
		cands := s.candidates(p, s.marginRates(p), swapCandidates)
		sup = s.support()
		trial := sw.trial[:q]
		best, bc, bt := mu, -1, -1
		for _, j := range cands {
			for _, t := range s.smallest(sup) {
				copy(trial, sup)
				trial[t] = j
				s.x[j] = s.x[sup[t]] // Wolfe's start
				if mg := s.trialMargin(p, trial, best, res); mg > best {
					best, bc, bt = mg, j, t
				}
				s.x[j] = 0
			}
		}
		if bc < 0 || c.cancelled {
			return
		}
		s.x[bc], s.x[sup[bt]] = s.x[sup[bt]], 0
		res.Swapped++
		s.keepBest()
	}
}

// marginRates returns q = sum over the support vectors i of the last
// margin's corral of Wolfe's weight lambda_i times y_i a_i/||a_i||, over
// all N coordinates (s.sw.g): the rates at which that margin grows along
// each e_j.
func (s *Solver) marginRates(p *Problem) []float64 {
	cw := &s.cell.wolfe
	qv := s.sw.g
	clear(qv)
	for u, r := range cw.corral {
		i := cw.rowIdx[r]
		vec.Axpy(cw.lam[u]*p.y[i]/cw.rowNrm[r], p.phi[i*p.n:(i+1)*p.n], qv)
	}
	s.full.work += float64(len(cw.corral)) / float64(p.m)
	return qv
}

// candidates returns the n coordinates outside the support (slots, with
// their columns added to a working set) with the largest |g_j|, g over
// all N coordinates.
func (s *Solver) candidates(p *Problem, g []float64, n int) []int {
	sw := &s.sw
	cands := sw.cands[:0]
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
		add := sw.add[:0]
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
	sw.cands = cands
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

// smallest returns the positions in sup of its searchPositions
// coordinates of smallest magnitude (all of them for short supports), in
// increasing order of magnitude (equal ones in support order): the ones
// that prune and swap try. A large coordinate carries much of the
// direction; removing it leaves the signs inseparable, and proving that
// costs a margin computation that runs to its cap.
func (s *Solver) smallest(sup []int) []int {
	pos := s.sw.pos[:0]
	for t := range sup { // insertion sort: supports are short here
		v := math.Abs(s.x[sup[t]])
		u := len(pos)
		pos = append(pos, t)
		for ; u > 0 && math.Abs(s.x[sup[pos[u-1]]]) > v; u-- {
			pos[u] = pos[u-1]
		}
		pos[u] = t
	}
	s.sw.pos = pos
	return pos[:min(len(pos), searchPositions)]
}

// searchMargin is wolfeMargin on the measurements not left out as
// outliers, started from the corral start, lam (nil: cold, and always
// with warmOff), with its final corral added to the bound's pool.
func (s *Solver) searchMargin(p *Problem, sup []int, floor float64, start []int, lam []float64, res *RecoverResult) float64 {
	sw := &s.sw
	if sw.warmOff {
		start, lam = nil, nil
	}
	mg := s.wolfeMargin(p, sup, floor, s.cell.skipOut, start, lam, res)
	if sw.bound != nil {
		sw.bound.addCorral(&s.cell.wolfe)
	}
	return mg
}

// trialMargin is margin for a trial support of refit, prune or swap that
// must beat floor >= 0: 0 without Wolfe's algorithm on all rows when the
// pool of earlier support vectors bounds its margin by floor (see
// boundWork), which leaves the search's choices as they were. Both start
// from the final corral of the current support's margin (warmRows; see
// wolfeWork.warm), and the computation on all rows from the pool's when
// the bound ran to its end without deciding; a trial that beats floor
// leaves its corral in bestRows. Only the search's choices use a
// trial's margin (not its direction), and the point of minimum norm does
// not depend on the start: on the protocol's instances the estimates
// stayed the same bit for bit (docs/onebit.md).
func (s *Solver) trialMargin(p *Problem, sup []int, floor float64, res *RecoverResult) float64 {
	sw := &s.sw
	if s.below(p, sup, floor) {
		res.Bounded++
		return 0
	}
	rows, lam := sw.warmRows, sw.warmLam
	if bw := sw.bound; bw != nil && bw.ran {
		// The pool's point of minimum norm is nearer the trial's than
		// the current support's corral.
		sw.poolRows, sw.poolLam = corralOf(sw.poolRows, sw.poolLam, &bw.cw, bw.rows)
		rows, lam = sw.poolRows, sw.poolLam
	}
	mg := s.searchMargin(p, sup, floor, rows, lam, res)
	if mg > floor && !s.cell.cancelled {
		sw.bestRows, sw.bestLam = corralOf(sw.bestRows, sw.bestLam, &s.cell.wolfe, nil)
	}
	return mg
}

// corralOf returns rows and lam set to the measurements and weights of
// cw's final corral: a warm start for the trials of a neighbouring
// support (see wolfeWork.warm). cw is loaded on all measurements but the
// skipped ones, or, with pool (the bound's rows), on the pool's rows.
func corralOf(rows []int, lam []float64, cw *wolfeWork, pool []int) ([]int, []float64) {
	rows, lam = rows[:0], lam[:0]
	for u, r := range cw.corral {
		i := cw.rowIdx[r]
		if pool != nil {
			i = pool[i]
		}
		rows = append(rows, i)
		lam = append(lam, cw.lam[u])
	}
	return rows, lam
}

// keepCurrent makes the last margin computation's corral the start of
// the trials of the current support's neighbours.
func (s *Solver) keepCurrent() {
	sw := &s.sw
	sw.warmRows, sw.warmLam = corralOf(sw.warmRows, sw.warmLam, &s.cell.wolfe, nil)
}

// keepBest makes the best trial's corral the start of the next trials:
// that trial became the current support.
func (s *Solver) keepBest() {
	sw := &s.sw
	sw.warmRows, sw.warmLam = append(sw.warmRows[:0], sw.bestRows...), append(sw.warmLam[:0], sw.bestLam...)
}
