package neadmm

import (
	"math"
	"slices"
)

// Pooling proxes: the t-update of the max-constrained problem (MaxProx)
// generalized to a pooling function P in place of the max,
//
//	h(t) = (b - P(t))^2 + sum_j (t_j - phi_j)^2,
//
// for P = the mean of the k largest t_j (TopKProx; k = 1 is the max, k = n
// the mean) and P = the mean (MeanProx).
//
// Why these stay exactly solvable. P is symmetric and, on the cone of
// vectors sorted in decreasing order, linear: with phi sorted decreasingly
// (phi'_1 >= ... >= phi'_n), P(t) = w . t for t in that cone, with
// w = (1/k, ..., 1/k, 0, ..., 0). For any t, sorting it in the order of phi
// keeps P(t) and does not increase ||t - phi|| (rearrangement inequality),
// so a global minimizer lies in the cone, where
//
//	min (b - w.t)^2 + ||t - phi'||^2   s.t.  t_1 >= t_2 >= ... >= t_n
//
// is a strictly convex quadratic program. Its KKT conditions say that t is
// the decreasing isotonic regression of phi' + lambda*w with
// lambda = b - w.t. Write lambda = -k*delta: t is the isotonic
// regression of x = phi' with delta subtracted from the k largest.
//
//   - delta <= 0 (b >= P(phi)): x is still decreasing, so t = x: the k
//     largest phi_j are raised by -delta, and w.t = b + k*delta gives
//     delta = (P(phi) - b)/(k+1).
//   - delta > 0 (b < P(phi)): x is decreasing except for one rise from
//     rank k to rank k+1, so the isotonic regression pools one block of
//     ranks s..e (s <= k < e) into a common value tau (or none, when
//     phi'_k - delta >= phi'_(k+1)); ranks above the block keep
//     phi' - delta, ranks below keep phi'. With a = s-1 ranks above the
//     block (sum A of their phi'), p = k-s+1 top ranks in the block (sum
//     U), q = e-k lower ranks in it (sum L), m = p+q:
//
//     tau = (U + L - p*delta)/m,
//     k*(b + k*delta) = A - a*delta + p*tau     (w.t = b + k*delta)
//
//     so delta = (m*(A - k*b) + p*(U + L)) / (m*(k^2 + a) + p^2).
//
// As delta grows the block only grows (the rise it pools grows), and the
// fixed point equation has exactly one root (the QP is strictly convex), so
// a scan from the block {k, k+1} that grows it towards whichever neighbour
// the block value reaches first (phi'_(s-1) - delta from above, phi'_(e+1)
// from below), solving the two linear equations at each step and stopping
// at the first block whose solution keeps both neighbours outside, finds
// the minimizer in O(n) steps after a sort. For k = 1 the block is MaxProx's
// tied set and tau its level; for k = n there is no lower part and
// t = phi - delta in closed form (MeanProx).
//
// The problem is homogeneous (phi, b scaled by s give t scaled by s), so
// inputs large enough for the scan's sums to overflow are solved scaled
// down by a power of two.

// TopKProx sets t to a global minimizer of
//
//	h(t) = (b - P_k(t))^2 + sum_j (t_j - phi_j)^2,
//
// where P_k(t) is the mean of the k largest t_j: the t-update of one bag
// under top-k pooling (see the derivation above). k = 1 is the max
// (MaxProx's problem; MaxProx is faster) and k = len(phi) the mean.
//
// With delta = the amount the solution lowers the k largest phi_j, the
// solution is: for b >= P_k(phi), the k largest phi_j (the lowest indices
// among ties at the k-th value) raised by (b - P_k(phi))/(k+1), the rest
// unchanged; for b < P_k(phi), t_j = max(phi_j - delta, tau) for the phi_j
// at or above the k-th largest value and t_j = min(phi_j, tau) below it,
// with delta > 0 and the pooled level tau found by the scan. The minimizer
// is unique except for the choice among ties when raising.
//
// For k >= 2 the minimizer can lie outside the range of phi and b (phi =
// (10, 0, -5), b = 10, k = 2 gives t = (11.67, 1.67, -5): the two largest
// are raised together until their mean meets the level), so t can
// overflow to ±Inf for finite input near MaxFloat64, where the exact
// minimizer exceeds it; for k = 1 it stays within that range.
//
// t is used as scratch space (it receives a sorted copy of phi); t and phi
// must not overlap. TopKProx does not allocate. Its cost is a sort of phi
// and two linear passes. It panics if len(phi) == 0, len(t) != len(phi),
// k < 1, k > len(phi), or t and phi overlap.
//
// Special cases:
//
//	TopKProx(t, phi, b, k) sets every t[j] = NaN if b or any phi[j] is NaN or ±Inf
func TopKProx(t, phi []float64, b float64, k int) {
	n := len(phi)
	switch {
	case n == 0:
		panic("neadmm.TopKProx: empty phi")
	case len(t) != n:
		panic("neadmm.TopKProx: len(t) != len(phi)")
	case k < 1 || k > n:
		panic("neadmm.TopKProx: k out of [1, len(phi)]")
	case overlap(t, phi):
		panic("neadmm.TopKProx: t and phi overlap")
	}
	if !finiteSum(phi, b) {
		fillNaN(t)
		return
	}
	if k == n {
		meanProxFill(t, phi, b)
		return
	}
	copy(t, phi)
	slices.Sort(t)
	vk := t[n-k] // the k-th largest value
	// Every value of the scan is bounded by about 4nk max(|phi_j|, |b|):
	// m*(A - k*b) + p*(U + L) sums at most 3nk terms, and delta <= 3 max/k.
	// Where that could overflow, the problem is solved scaled down by a
	// power of two (it is homogeneous: phi, b scaled by s give t scaled
	// by s). The scale is chosen before the scan, not after a non-finite
	// result: an overflow inside the scan can send it to a wrong block
	// whose delta and tau are finite again.
	scale := 1.0
	if s := downScale(4*n*k + 4); max(-t[0], t[n-1], math.Abs(b)) > math.MaxFloat64*s {
		scale = s
		for j := range t {
			t[j] *= scale
		}
	}
	delta, tau := topKLevel(t, b*scale, k)
	delta, tau = delta/scale, tau/scale
	if delta <= 0 {
		topKRaise(t, phi, vk, -delta, k)
		return
	}
	for j, x := range phi {
		if x >= vk {
			t[j] = max(x-delta, tau)
		} else {
			t[j] = min(x, tau)
		}
	}
}

// topKLevel returns delta and tau of TopKProx for phi sorted ascending in
// sorted (k < len(sorted)). For delta <= 0 (raise) tau is meaningless (0).
func topKLevel(sorted []float64, b float64, k int) (delta, tau float64) {
	n := len(sorted)
	r := func(i int) float64 { return sorted[n-i] } // rank i, from 1
	sk := 0.0
	for i := 1; i <= k; i++ {
		sk += r(i)
	}
	fk := float64(k)
	delta = (sk/fk - b) / (fk + 1)
	if delta <= 0 {
		return delta, 0
	}
	if r(k)-delta >= r(k+1) {
		// No block: the lowered top stays above the rest; any tau in
		// [phi'_(k+1), phi'_k - delta] fills the same t.
		return delta, r(k + 1)
	}
	s, e := k, k+1
	a := sk - r(k) // A: sum of the ranks above the block
	u, l := r(k), r(k+1)
	for {
		p, q := float64(k-s+1), float64(e-k)
		m := p + q
		delta = (m*(a-fk*b) + p*(u+l)) / (m*(fk*fk+float64(s-1)) + p*p)
		tau = (u + l - p*delta) / m
		topOK := s == 1 || r(s-1)-delta >= tau
		botOK := e == n || tau >= r(e+1)
		if topOK && botOK {
			return delta, tau
		}
		growTop := !topOK
		if !topOK && !botOK {
			// Both neighbours are inside at this delta: take the one the
			// block value reached first as delta grew.
			dTop := (m*r(s-1) - u - l) / q
			dBot := (u + l - m*r(e+1)) / p
			growTop = dTop <= dBot
		}
		if growTop {
			s--
			a -= r(s)
			u += r(s)
		} else {
			e++
			l += r(e)
		}
	}
}

// topKRaise sets t = phi with the k largest phi_j (lowest indices first
// among those equal to the k-th largest value vk) raised by up.
func topKRaise(t, phi []float64, vk, up float64, k int) {
	above := 0
	for _, x := range phi {
		if x > vk {
			above++
		}
	}
	ties := k - above // elements equal to vk that are raised
	for j, x := range phi {
		switch {
		case x > vk:
			x += up
		case x == vk && ties > 0:
			x += up
			ties--
		}
		t[j] = x
	}
}

// MeanProx sets t to the minimizer of
//
//	h(t) = (b - mean_j t_j)^2 + sum_j (t_j - phi_j)^2,
//
// the t-update of one bag under mean pooling: t_j = phi_j - delta with
// delta = (mean(phi) - b)/(n+1) (h is a strictly convex quadratic; its
// gradient vanishes where t - phi is the constant (b - mean t)/n, which
// gives delta). It is TopKProx with k = len(phi).
//
// t and phi must not overlap. MeanProx does not allocate; its cost is two
// passes over phi. (As for top-k pooling with k >= 2, and unlike the max,
// the minimizer can lie outside the range of phi and b, so t can overflow
// to ±Inf for finite input within a factor n+1 of MaxFloat64.) It panics
// if len(phi) == 0, len(t) != len(phi) or t and phi overlap.
//
// Special cases:
//
//	MeanProx(t, phi, b) sets every t[j] = NaN if b or any phi[j] is NaN or ±Inf
func MeanProx(t, phi []float64, b float64) {
	n := len(phi)
	switch {
	case n == 0:
		panic("neadmm.MeanProx: empty phi")
	case len(t) != n:
		panic("neadmm.MeanProx: len(t) != len(phi)")
	case overlap(t, phi):
		panic("neadmm.MeanProx: t and phi overlap")
	}
	if !finiteSum(phi, b) {
		fillNaN(t)
		return
	}
	meanProxFill(t, phi, b)
}

// meanProxFill is MeanProx for finite input.
func meanProxFill(t, phi []float64, b float64) {
	n := float64(len(phi))
	sum := 0.0
	for _, x := range phi {
		sum += x
	}
	delta := (sum/n - b) / (n + 1)
	if !finite2(sum, delta) {
		// The sum overflowed: redo it scaled down by a power of two.
		scale := downScale(len(phi) + 2)
		sum = 0
		for _, x := range phi {
			sum += x * scale
		}
		delta = (sum/n - b*scale) / (n + 1) / scale
	}
	for j, x := range phi {
		t[j] = x - delta
	}
}

// downScale returns a power of two s with c*s <= 1/2, so that a sum of c
// terms each below MaxFloat64 in magnitude, times s, cannot overflow.
func downScale(c int) float64 {
	_, e := math.Frexp(float64(c))
	return math.Ldexp(1, -e-1)
}

// finite2 reports whether x and y are both finite.
func finite2(x, y float64) bool { return x-x == 0 && y-y == 0 }

// finiteSum reports whether b and every phi_j are finite (x - x is 0 for
// finite x and NaN otherwise).
func finiteSum(phi []float64, b float64) bool {
	bad := b - b
	for _, x := range phi {
		bad += x - x
	}
	return bad == 0
}
