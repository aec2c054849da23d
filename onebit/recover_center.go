package onebit

import "math"

// center replaces the estimate on its support by the center of the
// consistency cell (see RecoverOptions.Center); when the signs not
// flagged as outliers are not separable on the support, by that of those
// the estimate satisfies.
func (s *Solver) center(p *Problem, res *RecoverResult) {
	sup := s.support()
	if len(sup) == 0 || s.cancelled {
		return
	}
	s.partial = false
	cleared := false
	if res.Outliers > 0 {
		// Without flipped signs, a nearly consistent estimate (error well
		// below 1/M) gives a cap so small that a sign it violates by a
		// little is flagged; signs separable with all the others on the
		// support are no outliers. Their margin is then the one below (no
		// sign left out), so it is not computed twice.
		if mg := s.wolfeMargin(p, sup, 0, nil, nil, nil, res); mg > 0 && !s.cancelled {
			clear(s.out)
			res.Outliers, res.Margin, cleared = 0, mg, true
		}
	}
	if !cleared {
		res.Margin = s.margin(p, sup, 0, res)
	}
	if res.Margin > 0 {
		for u, c := range sup {
			s.x[c] = s.xc[u]
		}
		res.Centered = true
		return
	}
	// Not separable: the signs are inconsistent with any direction on this
	// support (flipped signs). Drop the coordinates below a tenth of the
	// largest, which fit a few flips each (the support grew to fit them),
	// and center on the measurements the estimate satisfies.
	{
		top := 0.0
		for _, c := range sup {
			top = max(top, math.Abs(s.x[c]))
		}
		for _, c := range sup {
			if math.Abs(s.x[c]) < noisyTrim*top {
				s.x[c] = 0
				res.Pruned++
			}
		}
	}
	res.Margin = s.centerSkip(p, res)
	res.Centered = res.Margin > 0
	s.partial = res.Centered
}

// centerSkip sets the estimate on its support to the center of the cell
// of the measurements it satisfies (and that are not outliers), if they
// are separable, and returns the margin.
func (s *Solver) centerSkip(p *Problem, res *RecoverResult) float64 {
	sup := s.support()
	k := s.op.k
	ax := s.sp.ax
	s.op.mul(ax, s.x[:k])
	mg := s.wolfeMargin(p, sup, 0, func(i int) bool { return s.out[i] || sign(ax[i]) != p.y[i] }, nil, nil, res)
	if mg > 0 && !s.cancelled {
		for u, c := range sup {
			s.x[c] = s.xc[u]
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
