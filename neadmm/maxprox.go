package neadmm

import (
	"math"
	"slices"
	"unsafe"
)

// MaxProx sets t to a global minimizer of
//
//	h(t) = (b - max_j t_j)^2 + sum_j (t_j - phi_j)^2,
//
// the per-bag t-update of the max-constrained problem (Theorem 2, eq. 10 of
// the paper, with phi = X_i beta - y2_i/rho and b = q_i + y1_i/rho).
//
// The solution has one level m = max_j t_j: t_j = min(phi_j, m) for every j,
// except that when b > max_j phi_j the level lies above every phi_j and the
// largest phi_j (the lowest index among ties) is raised to m. The minimizer
// is unique except for that choice among tied maxima.
//
// t is used as scratch space; t and phi must not overlap. MaxProx does not
// allocate. Its cost is two or three passes over phi plus a sort of the
// few phi_j above (b + max phi)/2, O(n log n) in the worst case. It panics
// if len(phi) == 0, len(t) != len(phi) or t and phi overlap.
//
// Special cases:
//
//	MaxProx(t, phi, b) sets every t[j] = NaN if b or any phi[j] is NaN or ±Inf
//
// Derivation (this corrects the statement, not the algorithm, of the
// paper's Theorem 2). For any t with max t = m, each t_j <= m gives
// (t_j - phi_j)^2 >= max(phi_j - m, 0)^2, so h(t) >= G(m) with
//
//	G(m) = (b - m)^2 + sum_j max(phi_j - m, 0)^2          for m <= max phi,
//	G(m) = (b - m)^2 + (m - max phi)^2                      for m >  max phi,
//
// and t_j = min(phi_j, m) (raising the top element when m > max phi)
// attains G(m). G is strictly convex and continuously differentiable (both
// pieces have slope 2(max phi - b) at m = max phi), so min h = min G at the
// unique root m* of G'. Sort phi descending as phi'_1 >= phi'_2 >= ...;
// where the c largest values lie above m, G'(m) = 0 gives
//
//	a_c = (b + phi'_1 + ... + phi'_c) / (c + 1),
//
// the mean of b and the tied set, and a_c = m* exactly when a_c >= phi'_(c+1)
// (phi'_(n+1) = -Inf) and a_c <= phi'_c (or c = 1). While a_c < phi'_(c+1),
// a_(c+1) = ((c+1)a_c + phi'_(c+1))/(c+2) > a_c, so the first c with
// a_c >= phi'_(c+1) satisfies both conditions (for c >= 2, a_(c-1) < phi'_c
// gives a_c < phi'_c): that c is c* and m* = a_c*. Equality a_c = phi'_(c+1)
// gives a_(c+1) = a_c, so stopping at ">=" (here) or ">" (the paper) yields
// the same m*. The paper's fill t_j = min(phi_j, a_c*) misses the case
// b > max phi, where c* = 1 and a_1 = (b + phi'_1)/2 > phi'_1.
//
// Since a_1 <= a_2 <= ... <= a_c* = m*, only phi_j > a_1 can be in the tied
// set: MaxProx sorts just those, which gives the same sums in the same
// order, hence bit-identical results to sorting all of phi.
func MaxProx(t, phi []float64, b float64) {
	n := len(phi)
	if n == 0 {
		panic("neadmm.MaxProx: empty phi")
	}
	if len(t) != n {
		panic("neadmm.MaxProx: len(t) != len(phi)")
	}
	if overlap(t, phi) {
		panic("neadmm.MaxProx: t and phi overlap")
	}
	m, top, ok := maxProxLevel(t, phi, b)
	if !ok {
		fillNaN(t)
		return
	}
	maxProxFill(t, phi, m, top)
}

// maxProxLevel returns the level m* of MaxProx and the index of the first
// largest phi_j, or ok = false for non-finite input. t is scratch.
func maxProxLevel(t, phi []float64, b float64) (m float64, top int, ok bool) {
	// Pass 1: the two largest values (max2 == max1 on a tie) and a finite
	// check folded into a sum: x - x is 0 for finite x and NaN otherwise.
	max1, max2 := phi[0], math.Inf(-1)
	bad := (b - b) + (max1 - max1)
	for j := 1; j < len(phi); j++ {
		x := phi[j]
		bad += x - x
		if x > max2 {
			if x > max1 {
				max2, max1, top = max1, x, j
			} else {
				max2 = x
			}
		}
	}
	if bad != 0 {
		return 0, 0, false
	}
	if a1 := (b + max1) / 2; a1 >= max2 {
		m = a1 // c* = 1: the common case needs no sort
	} else {
		m = maxProxLevelFiltered(t, phi, b, a1)
	}
	if math.IsInf(m, 0) { // b + a sum of phi_j overflowed
		m = maxProxLevelScaled(t, phi, b)
	}
	return m, top, true
}

// maxProxLevelFiltered finds m* given a1 = (b + max phi)/2 < second
// largest phi: it sorts only the candidates phi_j > a1 (into t).
func maxProxLevelFiltered(t, phi []float64, b, a1 float64) float64 {
	k := 0
	rest := math.Inf(-1) // largest phi_j <= a1
	for _, x := range phi {
		if x > a1 {
			t[k] = x
			k++
		} else if x > rest {
			rest = x
		}
	}
	slices.Sort(t[:k])
	sum := b
	for c := 1; c <= k; c++ {
		sum += t[k-c]
		a := sum / float64(c+1)
		next := rest
		if c < k {
			next = t[k-c-1]
		}
		if a >= next {
			return a
		}
	}
	// Only if rounding made a_k < a1 while rest == a1: fall back to the
	// full search, which decides that step on the same numbers.
	return maxProxLevelSort(t, phi, b)
}

// maxProxLevelSort is the reference search: sort all of phi (into t) and
// scan the tied-set sizes c = 1, 2, ... as in the paper.
func maxProxLevelSort(t, phi []float64, b float64) float64 {
	copy(t, phi)
	return maxProxScan(t, b)
}

// maxProxScan sorts t ascending and returns a_c* of b and t.
func maxProxScan(t []float64, b float64) float64 {
	slices.Sort(t)
	n := len(t)
	sum := b
	for c := 1; ; c++ {
		sum += t[n-c]
		a := sum / float64(c+1)
		if c == n || a >= t[n-c-1] {
			return a
		}
	}
}

// maxProxLevelScaled handles inputs so large that b + sum of the tied set
// overflows: the problem is homogeneous (solving for s*phi, s*b gives s*t),
// so it searches with everything scaled down by a power of two.
func maxProxLevelScaled(t, phi []float64, b float64) float64 {
	_, e := math.Frexp(float64(len(phi) + 1))
	scale := math.Ldexp(1, -e-1) // (n+1)*max|x|*scale < MaxFloat64
	for j, x := range phi {
		t[j] = x * scale
	}
	return maxProxScan(t, b*scale) / scale
}

// maxProxFill sets t_j = min(phi_j, m) and raises phi_top to m if m lies
// above every phi_j.
func maxProxFill(t, phi []float64, m float64, top int) {
	t = t[:len(phi)]
	for j, x := range phi {
		if x > m {
			x = m
		}
		t[j] = x
	}
	if m > phi[top] {
		t[top] = m
	}
}

// overlap reports whether x and y share memory.
func overlap(x, y []float64) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	const size = unsafe.Sizeof(float64(0))
	x0 := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	y0 := uintptr(unsafe.Pointer(unsafe.SliceData(y)))
	return x0 < y0+uintptr(len(y))*size && y0 < x0+uintptr(len(x))*size
}
