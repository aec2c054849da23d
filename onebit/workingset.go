package onebit

import (
	"cmp"
	"math"
	"slices"

	"github.com/neadmm/neadmm/vec"
)

// wsInitial is the size of the first working set: the largest coordinates
// of the start. The stationarity checks add what is missing; a start much
// larger than the supports found (1 to 30 here) only costs work.
const wsInitial = 16

// Working-set growth: each check adds at most max(wsBatch, k) violators
// (the largest first), and the set may hold at most a quarter of the
// columns (beyond that the compact copy stops paying, and the solve
// continues on the full Phi). kktSlack is the relative tolerance of the
// check, so that coordinates at the boundary do not join one by one.
const (
	wsBatch    = 8
	wsMaxShare = 4
	wsMaxRound = 64
	kktSlack   = 1e-3
)

// fullInit makes the iterate x (normalized), w = x and a zero dual on the
// full problem.
func (s *Solver) fullInit(p *Problem, x []float64) {
	s.op = &s.full
	copy(s.x, x)
	copy(s.w, x)
	clear(s.dual)
}

// wsInit starts a working set with the k0 largest |x_j| and the iterate x
// restricted to it and normalized (w = x, dual 0).
func (s *Solver) wsInit(p *Problem, x []float64, k0 int) {
	s.op = &s.ws
	s.ws.setCompact(p)
	k0 = min(k0, p.n)
	cand := s.cand[:0]
	for j := range x {
		cand = append(cand, j)
	}
	slices.SortStableFunc(cand, func(a, b int) int { return cmp.Compare(math.Abs(x[b]), math.Abs(x[a])) })
	cand = cand[:k0]
	slices.Sort(cand) // columns in index order: a pass over each row in order
	s.ws.add(cand)
	for c, j := range s.ws.idx {
		s.x[c] = x[j]
	}
	if !normalize(s.x[:k0]) {
		clear(s.x[:k0])
		s.x[0] = 1
	}
	copy(s.w, s.x[:k0])
	clear(s.dual[:1+k0])
	s.wsNormK, s.pvk = 0, 0
}

// grow adds the columns js to the working set with zero iterate, dual and
// weight wOff.
func (s *Solver) grow(js []int, wOff float64) {
	k := s.ws.k
	s.ws.add(js)
	for c := k; c < s.ws.k; c++ {
		s.x[c], s.w[c], s.dual[1+c], s.wt[c] = 0, 0, 0, wOff
	}
}

// shrink drops the working-set slots where x is zero when they are most
// of the set, outnumbering the nz others by more than wsBatch (k > 2 nz +
// wsBatch; after a stage whose support shrank, as reweighting does):
// every compact product with A^T pays for every slot. w is renormalized;
// the stationarity checks bring back any coordinate that is needed.
func (s *Solver) shrink() {
	if s.op.full {
		return
	}
	k, nz := s.ws.k, 0
	for _, v := range s.x[:k] {
		if v != 0 {
			nz++
		}
	}
	if nz == 0 || k <= 2*nz+wsBatch {
		return
	}
	s.ws.drop(func(c int) bool { return s.x[c] == 0 }, func(from, to int) {
		s.x[to], s.w[to], s.dual[1+to], s.wt[to], s.pv[to] = s.x[from], s.w[from], s.dual[1+from], s.wt[from], s.pv[from]
	})
	k = s.ws.k
	s.wsNormK, s.pvk = 0, k
	if !normalize(s.w[:k]) {
		copy(s.w[:k], s.x[:k])
		normalize(s.w[:k])
	}
}

// toFull moves a working-set iterate to the full problem.
func (s *Solver) toFull() {
	k, n := s.ws.k, s.ws.p.n
	for _, v := range [...][]float64{s.x, s.w, s.dual[1:], s.wt} {
		copy(s.tmp, v[:k])
		clear(v[:n])
		for c, j := range s.ws.idx {
			v[j] = s.tmp[c]
		}
	}
	for j := range s.wt[:n] {
		if s.ws.pos[j] < 0 {
			s.wt[j] = s.wsOff
		}
	}
	s.op = &s.full
}

// export writes the estimate into the full-length x (not normalized): the
// x-iterate, or w if that is zero.
func (s *Solver) export(x []float64) {
	k := s.op.k
	src := s.x[:k]
	if vec.Nrm2(src) == 0 {
		src = s.w[:k]
	}
	s.unslot(x, src)
}

// kkt checks the stationarity of the full problem at the working-set
// iterate x: with g = lambda Phi^T r (r the one-sided residual of Phi x),
// every j outside the set needs |g_j| <= wOff (the subgradient of its L1
// term). It returns the violators, the largest |g_j| first.
func (s *Solver) kkt(p *Problem, lambda, wOff float64) []int {
	k := s.ws.k
	s.sp.lambda = lambda
	s.ws.mul(s.sp.ax, s.x[:k])
	if _, any := s.sp.loss(); !any {
		return nil
	}
	s.full.mulT(s.g, s.sp.r)
	thr := wOff * (1 + kktSlack)
	cand := s.cand[:0]
	for j, gj := range s.g {
		if s.ws.pos[j] < 0 && math.Abs(gj) > thr {
			cand = append(cand, j)
		}
	}
	g := s.g
	slices.SortFunc(cand, func(a, b int) int { return cmp.Compare(math.Abs(g[b]), math.Abs(g[a])) })
	return cand
}

// slots sets xs (the operator's coordinates) from the full-length x.
func (s *Solver) slots(xs, x []float64) {
	if s.op.full {
		copy(xs, x)
		return
	}
	for c, j := range s.ws.idx {
		xs[c] = x[j]
	}
}

// unslot sets the full-length x from xs (zero outside the working set).
func (s *Solver) unslot(x, xs []float64) {
	if s.op.full {
		copy(x, xs)
		return
	}
	clear(x)
	for c, j := range s.ws.idx {
		x[j] = xs[c]
	}
}

// nonzeros counts the non-zeros of the iterate x.
func (s *Solver) nonzeros() int { return countNonzero(s.x[:s.op.k]) }
