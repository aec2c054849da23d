package onebit

import (
	"context"
	"fmt"

	"github.com/neadmm/neadmm/internal/buf"
)

// cellWork is the workspace that Recover's steps after the neADMM stages
// share (the support search, the center, the polish and the centroid):
// the consistency cell of a support, the directions on it consistent
// with the signs not left out as outliers, and its margins by Wolfe's
// algorithm (see wolfeWork).
type cellWork struct {
	wolfe wolfeWork
	out   []bool // M: the measurements left out as outliers (markOutliers)
	// skipOut reports out[i]; made once (a closure made per call would
	// allocate).
	skipOut func(i int) bool
	sup     []int     // the support's slots (support)
	xc      []float64 // N: the direction of the last positive margin
	col     []float64 // M: a column of the full Phi
	ax      []float64 // M: Phi times the estimate
	// maxIter caps the major cycles of each margin computation
	// (RecoverOptions.RefitMaxIter). done is the running step's
	// ctx.Done(), cancelled whether one of its margin computations saw it
	// closed (the step then returns the context's error, see end).
	maxIter   int
	done      <-chan struct{}
	cancelled bool
}

func (c *cellWork) resize(m, n int) {
	c.out = growBools(c.out, m)
	c.xc = buf.Grow(c.xc, n)
	c.col = buf.Grow(c.col, m)
	c.ax = buf.Grow(c.ax, m)
	if c.skipOut == nil {
		c.skipOut = func(i int) bool { return c.out[i] }
	}
}

// begin readies the cell for a step that looks at done, with margins of
// at most maxIter major cycles.
func (c *cellWork) begin(done <-chan struct{}, maxIter int) {
	c.done, c.cancelled, c.maxIter = done, false, maxIter
}

// end ends the step: it forgets done and returns an error wrapping
// ctx's, naming the step, if a margin computation saw done closed.
func (c *cellWork) end(ctx context.Context, step string) error {
	c.done = nil
	if c.cancelled {
		return fmt.Errorf("onebit: Recover cancelled in the %s: %w", step, ctx.Err())
	}
	return nil
}

// markOutliers flags in s.cell.out the measurements that the estimate s.x
// violates deeper than the cap c.tau, measured anew (see capDepth and
// RecoverOptions.Cap; none for c.scale = 0 or an estimate that cannot be
// normalized, or when they would be more than maxOut, see
// CleanMaxOutliers), and returns their number.
func (s *Solver) markOutliers(p *Problem, c *lossCap, maxOut int) int {
	out := s.cell.out[:p.m]
	clear(out)
	if c.scale == 0 {
		return 0
	}
	ax := s.cell.ax[:p.m]
	tau, ok := s.capDepth(p, c, ax)
	if !ok {
		return 0
	}
	n := 0
	for i, a := range ax {
		if p.y[i]*a < -tau {
			out[i] = true
			n++
		}
	}
	if n > maxOut {
		clear(out)
		return 0
	}
	return n
}

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

// support lists the slots where s.x is non-zero into s.cell.sup.
func (s *Solver) support() []int {
	sup := s.cell.sup[:0]
	for c, v := range s.x[:s.op.k] {
		if v != 0 {
			sup = append(sup, c)
		}
	}
	s.cell.sup = sup
	return sup
}

// column returns the column of slot c (copied, for the full operator).
func (s *Solver) column(p *Problem, c int) []float64 {
	if !s.op.full {
		return s.ws.col(c)
	}
	col := s.cell.col[:p.m]
	p.column(col, c)
	return col
}

// margin returns the hard margin of the slots sup on the measurements not
// flagged as outliers (Wolfe's algorithm from their values in s.x), or 0
// if it cannot beat floor. Wolfe's point is kept in s.cell.wolfe, and
// s.cell.xc (len(sup)) is set to the center's direction when the margin
// is positive.
func (s *Solver) margin(p *Problem, sup []int, floor float64, res *RecoverResult) float64 {
	return s.wolfeMargin(p, sup, floor, s.cell.skipOut, nil, nil, res)
}

// wolfeMargin is margin with the measurements skip(i) left out (nil:
// none), its cost counted in res and the work.
//
// With start (measurements) and lam, Wolfe's algorithm starts from that
// corral (see wolfeWork.warm): for a trial of refit, prune or swap, or
// the swap's margin of the current support, whose margins only decide
// (their directions are not kept); nil starts cold.
func (s *Solver) wolfeMargin(p *Problem, sup []int, floor float64, skip func(int) bool, start []int, lam []float64, res *RecoverResult) float64 {
	q := len(sup)
	c := &s.cell
	xc := c.xc[:q]
	for u, j := range sup {
		xc[u] = s.x[j]
	}
	cw := &c.wolfe
	cw.passes = 0
	cw.load(p.m, q, func(u int) []float64 { return s.column(p, sup[u]) }, p.y, skip)
	if len(start) > 0 {
		cw.startFrom(start, lam, nil, nil)
	}
	mg := cw.solve(xc, q, floor, c.maxIter, c.done)
	c.cancelled = c.cancelled || cw.cancelled
	res.Margins++
	res.WolfeIterations += cw.passes - 1
	s.ws.work += float64(cw.passes*q) / float64(p.n)
	return mg
}
