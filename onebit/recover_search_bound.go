package onebit

import "github.com/neadmm/neadmm/internal/buf"

// boundWork bounds the margin of a trial support of the refit, pruning and
// swapping from above before Wolfe's algorithm runs on all of its rows.
// The margin is the norm of the point of minimum norm in the hull of the
// rows b_i (see wolfeWork); the hull of a subset of them holds no point
// nearer the origin, so the norm of any point of the subset's hull bounds
// the margin, and so does 0 when the subset's hull holds the origin. The
// subset is a pool of the rows that were support vectors (in a final
// corral) of the supports computed before: neighbouring supports share
// most of them. A trial whose bound is below the margin to beat cannot
// win and is left out, which leaves every choice of the search as it was.
// Without it, 94% of the swap's and pruning's trials lost (Rademacher,
// K = 20, N = 1000), at 85% of their major cycles.
type boundWork struct {
	rows []int  // the pool: measurement indices
	in   []bool // M: membership in the pool
	pos  []int  // M: the position in rows of a member
	cw   wolfeWork
	col  []float64 // a column of Phi on the pool's rows
	y    []float64 // the signs of the pool's rows
	x    []float64 // the start direction (len of the support)
	// ran reports that the last bound ran to the pool's minimum-norm
	// point without bounding the margin: its corral then starts the
	// computation on all rows (see Solver.trialMargin).
	ran bool
}

// boundPool caps the pool's rows (a support of 20 has up to 21 support
// vectors); a pool that would grow past it starts again from the latest
// corral.
const boundPool = 96

// boundSafety is the relative slack below the margin to beat that a bound
// must reach: the bound's point is a sum of a few dozen rounded products,
// far more accurate than that.
const boundSafety = 1e-9

// reset empties the pool for a problem with m measurements.
func (bw *boundWork) reset(m int) {
	bw.in = growBools(bw.in, m)
	bw.pos = growInts(bw.pos, m)
	clear(bw.in)
	bw.rows = bw.rows[:0]
}

// addCorral adds the rows of cw's last corral to the pool.
func (bw *boundWork) addCorral(cw *wolfeWork) {
	if len(bw.rows)+len(cw.corral) > boundPool {
		for _, i := range bw.rows {
			bw.in[i] = false
		}
		bw.rows = bw.rows[:0]
	}
	for _, r := range cw.corral {
		if i := cw.rowIdx[r]; !bw.in[i] {
			bw.in[i] = true
			bw.pos[i] = len(bw.rows)
			bw.rows = append(bw.rows, i)
		}
	}
}

// below reports that the margin of the slots sup on the measurements not
// flagged in s.cell.out is at most floor >= 0, from Wolfe's algorithm on
// the pool's rows; its passes count in the work. For floor = 0 it claims
// that the pool's hull holds the origin, to Wolfe's tolerance (a point of
// norm 1e-6 or less): the margin is then at most 1e-6, where Wolfe's
// algorithm on all rows could still report a positive margin that small;
// the smallest final margin on the protocol's 1300 instances was 2.1e-5,
// and none of their estimates changed.
func (s *Solver) below(p *Problem, sup []int, floor float64) bool {
	sw, c := &s.sw, &s.cell
	bw := sw.bound
	if bw != nil {
		bw.ran = false
	}
	if bw == nil || sw.boundOff || len(bw.rows) == 0 || floor < 0 {
		return false
	}
	nr := len(bw.rows)
	q := len(sup)
	bw.col = buf.Grow(bw.col, nr)
	bw.y = buf.Grow(bw.y, nr)
	bw.x = buf.Grow(bw.x, q)
	for t, i := range bw.rows {
		bw.y[t] = p.y[i]
	}
	for u, j := range sup {
		bw.x[u] = s.x[j]
	}
	n := p.n
	col := func(u int) []float64 {
		j := sup[u]
		if !s.op.full {
			j = s.ws.idx[j]
		}
		for t, i := range bw.rows {
			bw.col[t] = p.phi[i*n+j]
		}
		return bw.col
	}
	cw := &bw.cw
	cw.passes = 0
	if cw.load(nr, q, col, bw.y, func(t int) bool { return c.out[bw.rows[t]] }) == 0 {
		return false
	}
	if !sw.warmOff {
		cw.startFrom(sw.warmRows, sw.warmLam, bw.in, bw.pos)
	}
	cw.solve(bw.x, q, floor*(1-boundSafety), c.maxIter, c.done)
	s.ws.work += float64(cw.passes*q*nr) / float64(p.n*p.m)
	if cw.cancelled {
		c.cancelled = true
		return false
	}
	bw.ran = !cw.belowFloor
	return cw.belowFloor
}
