package onebit

import (
	"math"

	"github.com/neadmm/neadmm/internal/buf"
)

// choiceWork is the workspace of the choice between the consistent
// estimate and the sign regression's fit.
type choiceWork struct {
	xs   []float64 // N: the estimate in the operator's slots
	ax   []float64 // M: Phi times it
	code []float64 // M: signCode's scratch
}

func (cw *choiceWork) resize(m, n int) {
	cw.xs = buf.Grow(cw.xs, n)
	cw.ax = buf.Grow(cw.ax, m)
	cw.code = buf.Grow(cw.code, m)
}

// fitWins is Recover's choice (RecoverOptions.Regress): it reports
// whether the sign regression's fit describes the signs more briefly
// than the consistent estimate, with support non-zeros, violating bad
// signs, whose projections are ax = Phi x. Both are described by their
// violations counted (description), or, when the fit's probit model
// needs more than probitFlipFloor of the signs flipped (signs flipped
// beyond what the fit's error explains), both coded by signCode.
func (s *Solver) fitWins(p *Problem, fit regressFit, support, bad int, ax []float64) bool {
	if fit.flipped() {
		c, _ := signCode(ax, p.y, s.ch.code)
		return fit.code < describe(p.n, p.m, support, c)
	}
	return fit.desc < description(p.n, p.m, support, bad)
}

// mismatches returns the number of measurements inconsistent with x (zero
// outside the working set, if there is one) and Phi x (s.ch.ax, valid
// until the next call), at the cost of one product with its columns.
func (s *Solver) mismatches(p *Problem, x []float64) (bad int, ax []float64) {
	k := s.op.k
	s.slots(s.ch.xs[:k], x)
	ax = s.ch.ax[:p.m]
	s.op.mul(ax, s.ch.xs[:k])
	return mismatches(ax, p.y), ax
}

// description returns the length in nats of a two-part code of the signs
// y by an estimate with support s that violates v of the M signs: which
// s of the N coordinates, their values to the precision M measurements
// resolve (log M / 2 each), and which v signs to flip. Recover keeps the
// estimate with the shorter description (minimum description length),
// which knows neither K nor the fraction of flipped signs.
func description(n, m, s, v int) float64 {
	return describe(n, m, s, logChoose(m, v))
}

// describe is description with the signs coded in code nats (see
// signCode) rather than by the count of those violated.
func describe(n, m, s int, code float64) float64 {
	return logChoose(n, s) + 0.5*float64(s)*math.Log(float64(m)) + code
}

// logChoose returns log(n choose k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Grid of the probit code's scale (see signCode): s = c/median|t_i| for
// c = 10^(probitLo + probitStep*u), u = 0..probitSteps.
const (
	probitLo    = -0.5
	probitStep  = 0.25
	probitSteps = 18 // up to c = 10^4
	// probitFar is |s t_i| beyond which Phi(s t_i) is taken as 0 or 1
	// (Phi(-8) = 6e-16).
	probitFar = 8
)

// signCode returns the length in nats of the signs y coded by the
// projections ax = Phi x of an estimate: the smaller of the count code
// log C(M, v) (which v of the M signs ax violates) and a probit code with
// flips, -sum_i log(eps + (1-2 eps) Phi(s y_i ax_i)) with s and eps
// fitted, plus (log M)/2 for s. The count code spends as much on a sign
// violated at the edge of the cell as on one violated deep inside; the
// sign regression's violations are mostly at the edge (it does not fit
// the signs), so the count code overstates what it leaves unexplained.
// scratch (len >= M) is overwritten. A consistent x costs 0. flip is the
// flip rate of the shorter code: the fitted eps of the probit code, or
// v/M when the count code is the shorter (or no scale can be fitted:
// projections of median 0 or infinite, or NaN ones, which count as
// violated and make the probit code NaN, never the shorter).
func signCode(ax, y, scratch []float64) (code, flip float64) {
	m := len(y)
	v := mismatches(ax, y)
	best, flip := logChoose(m, v), float64(v)/float64(m)
	if v == 0 {
		return 0, 0
	}
	a := scratch[:m]
	for i, t := range ax {
		a[i] = math.Abs(t)
	}
	med := median(a)
	if !(med > 0) || math.IsInf(med, 1) {
		return best, flip // no scale to fit (+Inf: the scales would be 0)
	}
	pen := 0.5 * math.Log(float64(m))
	e0 := 0.0 // the flip rate at the previous scale, Newton's start
	for u := 0; u <= probitSteps; u++ {
		pw := math.Pow(10, probitLo+probitStep*float64(u))
		sc := pw / med
		// sc overflows when med is subnormal: then z = pw (y t / med)
		// (sc t would be NaN at t = 0 and infinite elsewhere, which
		// discarded every scale; the code is scale-free).
		over := math.IsInf(sc, 1)
		// The rows far from the boundary have p = 0 or 1: counted in n0
		// and n1; the others' p_i go to scratch.
		p := scratch[:0]
		n0, n1 := 0, 0
		for i, t := range ax {
			z := sc * y[i] * t
			if over {
				z = pw * (y[i] * t / med)
			}
			switch {
			case z >= probitFar:
				n1++
			case z <= -probitFar:
				n0++
			default:
				p = append(p, 0.5*math.Erfc(-z/math.Sqrt2))
			}
		}
		c, e := probitFlipCode(p, n0, n1, e0)
		if c+pen < best {
			best, flip = c+pen, e
		}
		e0 = e
	}
	return best, flip
}

// probitFlipCode returns min over eps in [0, 1/2] of
// -sum_i log(eps + (1-2 eps) p_i) - n0 log(eps) - n1 log(1-eps), convex
// in eps, and the minimizer: safeguarded Newton on its derivative from e0
// (the logarithms only for the value at the end).
func probitFlipCode(p []float64, n0, n1 int, e0 float64) (code, eps float64) {
	deriv := func(e float64) (d1, d2 float64) {
		for _, pi := range p {
			g := (1 - 2*pi) / (e + (1-2*e)*pi)
			d1 -= g
			d2 += g * g
		}
		if n0 > 0 {
			d1 -= float64(n0) / e
			d2 += float64(n0) / (e * e)
		}
		if n1 > 0 {
			d1 += float64(n1) / (1 - e)
			d2 += float64(n1) / ((1 - e) * (1 - e))
		}
		return
	}
	value := func(e float64) float64 {
		v := 0.0
		for _, pi := range p {
			v -= math.Log(e + (1-2*e)*pi)
		}
		if n0 > 0 {
			v -= float64(n0) * math.Log(e)
		}
		if n1 > 0 {
			v -= float64(n1) * math.Log(1-e)
		}
		return v
	}
	lo, hi := 0.0, 0.5
	if n0 == 0 {
		// eps = 0 is the minimum if the derivative there is >= 0 (all
		// p_i > 0 then, or they would be in n0).
		if d0, _ := deriv(0); d0 >= 0 {
			return value(0), 0
		}
	}
	if dh, _ := deriv(hi); dh <= 0 {
		return value(hi), hi
	}
	e := e0
	if !(e > lo && e < hi) {
		e = 0.01
	}
	// Newton bisects when its step leaves the bracket or is not half the
	// step before last (as rtsafe does), so a step that lands near 0,
	// where -n0 log(eps) lets Newton only double eps per step, cannot
	// stall it. It stops on a step relative to eps: an absolute one
	// stopped it at 6e-14 from such a landing (the optimum was 0.074).
	older, last := hi-lo, hi-lo
	for range 100 {
		d1, d2 := deriv(e)
		if d1 > 0 {
			hi = e
		} else {
			lo = e
		}
		next := e - d1/d2
		if !(next > lo && next < hi) || 2*math.Abs(next-e) > older {
			next = 0.5 * (lo + hi)
		}
		older, last = last, math.Abs(next-e)
		e = next
		if last <= 1e-12*e || hi-lo <= 1e-12*hi {
			break
		}
	}
	return value(e), e
}

// probitFlipFloor is the flip rate of the sign regression's probit fit
// (see signCode) above which Recover codes the signs by signCode rather
// than by counting the violations. Without flipped signs the fit's
// violations lie at the edge of the cell, and the fitted rate exceeded
// 0.01 on none of 50 instances (Gaussian K = 10, M/N = 0.25 and 0.5;
// Rademacher K = 20, M/N = 0.5) and on 11 of 50 (Rademacher, M/N = 0.25);
// with 3% of the signs flipped it did on 27-50 of 50 (medians 0.014-0.030).
// Coding the signs by signCode whatever the rate moved 1-3 estimates
// without flips for the worse at M/N = 0.5 (N = 1000).
const probitFlipFloor = 0.01
