package onebit

import (
	"context"
	"math"
)

// center is Recover's center (RecoverOptions.Center): it replaces the
// estimate s.x on its support by the center of the support's consistency
// cell, the direction maximizing the smallest angular margin of the signs
// not left out as outliers, and reports whether it is the center of the
// signs the estimate satisfies only (partial: the signs kept were not
// separable on the support; see centerCell). res.Margin is the center's
// margin (0 or less when there is none, the estimate then left as it
// was), res.Centered whether there is one. It looks at done every major
// cycle of Wolfe's algorithm and returns ctx's error if it was closed.
func (s *Solver) center(ctx context.Context, done <-chan struct{}, p *Problem, maxIter int, res *RecoverResult) (partial bool, err error) {
	s.cell.begin(done, maxIter)
	partial = s.centerCell(p, res)
	return partial, s.cell.end(ctx, "center")
}

// centerCell is center's work. When the signs not flagged as outliers
// are not separable on the support, it drops the coordinates below
// noisyTrim of the largest and centers on the signs the estimate
// satisfies.
func (s *Solver) centerCell(p *Problem, res *RecoverResult) (partial bool) {
	c := &s.cell
	sup := s.support()
	if len(sup) == 0 {
		return false
	}
	cleared := false
	if res.Outliers > 0 {
		// Without flipped signs, a nearly consistent estimate (error well
		// below 1/M) gives a cap so small that a sign it violates by a
		// little is flagged; signs separable with all the others on the
		// support are no outliers. Their margin is then the one below (no
		// sign left out), so it is not computed twice.
		if mg := s.wolfeMargin(p, sup, 0, nil, nil, nil, res); mg > 0 && !c.cancelled {
			clear(c.out)
			res.Outliers, res.Margin, cleared = 0, mg, true
		}
	}
	if !cleared {
		res.Margin = s.margin(p, sup, 0, res)
	}
	if res.Margin > 0 {
		for u, j := range sup {
			s.x[j] = c.xc[u]
		}
		res.Centered = true
		return false
	}
	// Not separable: the signs are inconsistent with any direction on this
	// support (flipped signs). Drop the coordinates below a tenth of the
	// largest, which fit a few flips each (the support grew to fit them),
	// and center on the measurements the estimate satisfies.
	top := 0.0
	for _, j := range sup {
		top = max(top, math.Abs(s.x[j]))
	}
	for _, j := range sup {
		if math.Abs(s.x[j]) < noisyTrim*top {
			s.x[j] = 0
			res.Pruned++
		}
	}
	res.Margin = s.centerSkip(p, res)
	res.Centered = res.Margin > 0
	return res.Centered
}

// centerSkip sets the estimate on its support to the center of the cell
// of the measurements it satisfies (and that are not outliers), if they
// are separable, and returns the margin.
func (s *Solver) centerSkip(p *Problem, res *RecoverResult) float64 {
	c := &s.cell
	sup := s.support()
	k := s.op.k
	ax := c.ax[:p.m]
	s.op.mul(ax, s.x[:k])
	mg := s.wolfeMargin(p, sup, 0, func(i int) bool { return c.out[i] || sign(ax[i]) != p.y[i] }, nil, nil, res)
	if mg > 0 && !c.cancelled {
		for u, j := range sup {
			s.x[j] = c.xc[u]
		}
	}
	return mg
}

// noisyTrim is the fraction of the largest coefficient below which the
// final step drops a coordinate when the signs are not separable on the
// support (see RecoverOptions.Center): with 3% of the signs flipped it
// took the support from 17-23 to 7-8 non-zeros (K = 10, M/N = 1 and 2)
// at an angular error still half of BIHT's.
const noisyTrim = 0.05
