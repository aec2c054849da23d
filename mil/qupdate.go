package mil

import "math"

// logLoss returns log(1 + exp(-z)), the logistic loss of a margin z = s*q
// (s = +1 for a positive bag, -1 for a negative one), without overflow or
// cancellation: for large z it is exp(-z) to full relative precision, for
// very negative z it is -z.
//
// Special cases:
//
//	logLoss(+Inf) = 0
//	logLoss(-Inf) = +Inf
//	logLoss(NaN) = NaN
func logLoss(z float64) float64 {
	if z > 0 {
		return math.Log1p(math.Exp(-z))
	}
	return -z + math.Log1p(math.Exp(z))
}

// sigmoids returns sigma(z) = 1/(1+exp(-z)) and sigma(-z) = 1 - sigma(z),
// each computed from exp(-|z|) so that neither loses relative precision to
// cancellation and neither overflows.
func sigmoids(z float64) (pos, neg float64) {
	if z >= 0 {
		e := math.Exp(-z)
		return 1 / (1 + e), e / (1 + e)
	}
	e := math.Exp(z)
	return e / (1 + e), 1 / (1 + e)
}

// qMaxIter bounds the safeguarded Newton iteration of logisticProx. Newton
// converges quadratically from the bracket in a handful of steps; the bound
// only guarantees termination (bisection alone halves the bracket every
// step).
const qMaxIter = 200

// logisticProx returns the minimizer over q of
//
//	w*log(1 + exp(-s*q)) + rho/2*(q - c)^2,
//
// the q-update of one bag (eq. 7 of the paper with the logistic loss): s is
// +1 for a positive bag and -1 for a negative one, w > 0 the bag's loss
// weight, c = max_j t_ij - y1_i/rho. The problem is strictly convex; with
// z = s*q and c' = s*c its stationarity condition
//
//	g(z) = rho*(z - c') - w*sigma(-z) = 0
//
// has g increasing (g' = rho + w*sigma(z)*sigma(-z) > 0) with g(c') < 0 and
// g(c' + w/rho) > 0, so the root lies in the bracket (c', c' + w/rho).
// Newton steps from c' that leave the current bracket are replaced by
// bisection; the iteration stops when a step no longer changes z beyond
// rounding, so the result is the root to machine precision. Large |c|
// cannot overflow: the sigmoids are computed from exp(-|z|).
//
// Newton starts from q0 (the previous iterate, a warm start) when s*q0 lies
// inside the bracket, else from c'. The caller guarantees w > 0, rho > 0
// and finite c.
func logisticProx(s, w, rho, c, q0 float64) float64 {
	cp := s * c
	lo, hi := cp, cp+w/rho
	if !(hi > lo) { // w/rho below the spacing of floats at c': q = c
		return c
	}
	z := cp
	if z0 := s * q0; z0 > lo && z0 < hi {
		z = z0
	}
	// z - c' is only known to a few ulps of |c'|: steps below 4 ulps of
	// |z| + |c'| are rounding noise.
	tol := 4 * epsilon * math.Abs(cp)
	for range qMaxIter {
		sp, sn := sigmoids(z)
		g := rho*(z-cp) - w*sn
		if g == 0 {
			break
		}
		if g < 0 {
			lo = max(lo, z)
		} else {
			hi = min(hi, z)
		}
		zn := z - g/(rho+w*sp*sn)
		if math.Abs(zn-z) <= tol+4*epsilon*math.Abs(zn) {
			// Converged quadratically: zn is the root, up to rounding that
			// may put it an ulp outside the bracket (which holds the root).
			z = min(max(zn, cp), cp+w/rho)
			break
		}
		if !(zn > lo && zn < hi) {
			zn = lo + (hi-lo)/2
			if zn <= lo || zn >= hi { // the bracket is two adjacent floats
				z = zn
				break
			}
		}
		z = zn
	}
	return s * z
}

// epsilon is the machine epsilon of float64, 2^-52.
const epsilon = 0x1p-52
