package onebit

import (
	"context"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/buf"
)

// polishWork is the workspace of the polish (RecoverOptions.Polish).
type polishWork struct {
	biht     bihtWork  // its BIHT
	x        []float64 // N: BIHT's estimate
	xs, keep []float64 // N: that estimate in the operator's slots; the estimate before
	add      []int     // N: columns to add to the working set
}

func (pw *polishWork) resize(n int) {
	pw.x = buf.Grow(pw.x, n)
	pw.xs = buf.Grow(pw.xs, n)
	pw.keep = buf.Grow(pw.keep, n)
	pw.add = growInts(pw.add, n)
}

// polishes reports whether the polish runs on the centered estimate s.x
// (see RecoverOptions.Polish): it has a center (res.Centered), no
// measurement was left out as an outlier, the sign regression's fit, of
// description length fitDesc, does not replace it whatever the polish
// finds (see regressWins), and the center is that of the satisfied signs
// only (partial), or its margin is small, or it has polishTinyCount tiny
// coordinates.
func (s *Solver) polishes(p *Problem, partial bool, fitDesc float64, res *RecoverResult) bool {
	return res.Centered && res.Outliers == 0 && !s.regressWins(p, fitDesc) &&
		(partial || res.Margin*float64(p.m) < polishBelow*float64(len(s.support())) || s.tiny() >= polishTinyCount)
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

// polish is Recover's polish (RecoverOptions.Polish) on the centered
// estimate s.x, whose margin is res.Margin, the center of the satisfied
// signs only when partial. It looks at done every major cycle of Wolfe's
// algorithm and ctx every BIHT iteration, and returns ctx's error if it
// was cancelled.
func (s *Solver) polish(ctx context.Context, done <-chan struct{}, p *Problem, partial bool, maxIter int, res *RecoverResult) error {
	s.cell.begin(done, maxIter)
	err := s.polishRuns(ctx, p, partial, res)
	if cerr := s.cell.end(ctx, "polish"); err == nil {
		err = cerr
	}
	return err
}

// polishRuns runs the polish's BIHT told |S|, |S|+1, ... and takes the
// center of the cell of its support when it is larger (see polishTake).
func (s *Solver) polishRuns(ctx context.Context, p *Problem, partial bool, res *RecoverResult) error {
	pw := &s.pol
	q := len(s.support())
	// BIHT's products are counted by s.full, with the rest of Recover's.
	// If told |S| it finds no consistent support, |S| may be one short
	// (the continuation missed a coordinate, leaving a thin cell): its fit
	// told |S|+1 is the candidate then. When the signs are not separable
	// on S, up to polishPartialExtra more, each fit a candidate.
	extra := 1
	if partial {
		extra = polishPartialExtra
	}
	last := min(q+extra, p.n)
	// Its products gather the iterates' non-zero columns (see
	// bihtWork.gather; 9-24% of Recover's mean CPU time on Generate's
	// instances, the same estimates). With a sign matrix the summation
	// order decides the sign of products that are 0 in exact arithmetic
	// (a plain gather moved the mean error by +0.0022 ± 0.0009,
	// rademacher M/N = 0.25; docs/onebit.md, "The polish"), so there
	// they gather keeping the dense product's signs (operator.mulSigns):
	// the dense iterates, bit for bit.
	sm := p.signMatrix()
	pw.biht.gather, pw.biht.signs = !sm, sm
	for kb := q; kb <= last; kb++ {
		br, err := pw.biht.run(ctx, &s.full, p.y, pw.x, kb, polishMaxIter, polishPatience)
		if err != nil {
			return fmt.Errorf("onebit: Recover cancelled in the polish: %w", err)
		}
		if br.Hamming == 0 || kb == last || partial {
			if s.polishTake(p, partial, res) || br.Hamming == 0 || s.cell.cancelled {
				return nil
			}
		}
	}
	return nil
}

// polishTake replaces the estimate by the center of the cell of BIHT's
// support (s.pol.x) if that center's margin is larger than res.Margin
// (than 0 when partial: a center of the satisfied signs only loses to any
// support on which all of them are separable), and reports whether it
// did (see RecoverOptions.Polish).
func (s *Solver) polishTake(p *Problem, partial bool, res *RecoverResult) bool {
	pw := &s.pol
	xb := pw.x
	if !s.op.full { // BIHT's support into the working set
		add := pw.add[:0]
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
	xs := pw.xs[:k]
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
	keep := pw.keep[:k]
	copy(keep, s.x[:k])
	copy(s.x[:k], xs)
	sup := s.support()
	floor := res.Margin
	if partial {
		floor = 0
	}
	if mg := s.margin(p, sup, floor, res); mg > floor && !s.cell.cancelled {
		clear(s.x[:k])
		for u, c := range sup {
			s.x[c] = s.cell.xc[u]
		}
		res.Margin, res.Polished = mg, true
		return true
	}
	copy(s.x[:k], keep)
	return false
}

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
