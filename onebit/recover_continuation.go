package onebit

import (
	"math"

	"github.com/neadmm/neadmm/vec"
)

// supportSlack is added to the growth allowed by SupportGrowth, so that
// the tiny supports of the first stages (1 to 3 non-zeros when lambda is
// where the solution collapses) may grow freely.
const supportSlack = 8

// capDepth returns the depth tau beyond which a violation is capped (see
// RecoverOptions.Cap), measured at the current iterate normalized, and
// remembers it in s.capPrev; capScale = 0 gives 0 (no cap). It leaves
// s.sp.ax = Phi x.
func (s *Solver) capDepth(p *Problem, capScale float64) float64 {
	if capScale == 0 {
		return 0
	}
	k := s.op.k
	xs := s.tmp[:k]
	copy(xs, s.x[:k])
	if vec.Nrm2(xs) == 0 {
		copy(xs, s.w[:k])
	}
	if !normalize(xs) {
		return 0
	}
	ax := s.sp.ax
	s.op.mul(ax, xs)
	a := s.pu[:p.m]
	bad := 0
	for i, v := range ax {
		a[i] = math.Abs(v)
		if sign(v) != p.y[i] && a[i] <= s.capPrev {
			bad++
		}
	}
	sigma := median(a) / 0.6745 // the standard deviation, for Gaussian rows
	v := float64(bad) / float64(p.m)
	s.capPrev = capScale * sigma * math.Sin(min(math.Pi*v, math.Pi/2))
	return s.capPrev
}

// median returns the median of a (the lower one for even lengths),
// reordering a (selectKth).
func median(a []float64) float64 {
	return selectKth(a, (len(a)-1)/2)
}
