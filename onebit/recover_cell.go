package onebit

// nonzeros counts the non-zeros of the iterate x.
func (s *Solver) nonzeros() int { return countNonzero(s.x[:s.op.k]) }

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

// support lists the slots where s.x is non-zero into s.sup.
func (s *Solver) support() []int {
	s.sup = s.sup[:0]
	for c, v := range s.x[:s.op.k] {
		if v != 0 {
			s.sup = append(s.sup, c)
		}
	}
	return s.sup
}

// column returns the column of slot c (copied, for the full operator).
func (s *Solver) column(p *Problem, c int) []float64 {
	if !s.op.full {
		return s.ws.col(c)
	}
	col := s.colBuf[:p.m]
	p.column(col, c)
	return col
}

// margin returns the hard margin of the slots sup on the measurements not
// flagged as outliers (Wolfe's algorithm from xs's values), or 0 if it
// cannot beat floor. With Wolfe's point kept in s.cw, and xc (len(sup))
// set to the center's direction when the margin is positive.
func (s *Solver) margin(p *Problem, sup []int, floor float64, res *RecoverResult) float64 {
	return s.wolfeMargin(p, sup, floor, s.skipOut, nil, nil, res)
}

// wolfeMargin is margin with the measurements skip(i) left out: Wolfe's
// algorithm on the slots sup from xs's values, its direction in xc and
// its cost counted in res and the work.
//
// With start (measurements) and lam, Wolfe's algorithm starts from that
// corral (see centerWork.warm): for a trial of refit, prune or swap, or
// the swap's margin of the current support, whose margins only decide
// (their directions are not kept); nil starts cold.
func (s *Solver) wolfeMargin(p *Problem, sup []int, floor float64, skip func(int) bool, start []int, lam []float64, res *RecoverResult) float64 {
	q := len(sup)
	xc := s.xc[:q]
	for u, c := range sup {
		xc[u] = s.x[c]
	}
	cw := &s.cw
	cw.passes = 0
	cw.load(p.m, q, func(u int) []float64 { return s.column(p, sup[u]) }, p.y, skip)
	if len(start) > 0 {
		s.startFrom(cw, nil, start, lam)
	}
	mg := cw.solve(xc, q, floor, s.wolfeCap, s.done)
	s.cancelled = s.cancelled || cw.cancelled
	if cw.bound != nil {
		cw.bound.addCorral(cw)
	}
	res.Margins++
	res.WolfeIterations += cw.passes - 1
	s.ws.work += float64(cw.passes*q) / float64(p.n)
	return mg
}
