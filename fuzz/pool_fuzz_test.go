package fuzz

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/neadmm"
)

// FuzzTopKProx checks neadmm.TopKProx(t, phi, b, k) (and MeanProx, its
// k = n case), the minimizer of
//
//	h(t) = (b - P_k(t))^2 + sum_j (t_j - phi_j)^2,  P_k = mean of the k largest,
//
// against an exhaustive reference in math/big: the minimizer keeps phi's
// order, and in that order it lowers the k largest phi by some delta, pools
// one block of ranks s..e around rank k at a common level, or raises the k
// largest (see pool.go); the reference solves the linear equations of
// every such structure (all s <= k < e, no block, raise; no stopping rule,
// no search) and takes the least h. For n <= 5 it also enumerates every
// ordering and every partition of it into equal runs, which needs no
// structure at all. TopKProx's h must match the best within the rounding
// of its level, no perturbed point may beat it, phi's order must be kept,
// and MeanProx must equal TopKProx with k = n bit for bit. Non-finite input
// must give NaN everywhere; empty, mismatched, out-of-range k and
// overlapping arguments must panic.
//
// Input: n byte (as FuzzMaxProx: 1..16, or up to 79), k byte (k = 1 +
// byte % n), flags byte (b&1: a coarse grid, so that ties abound; b&2: b
// near P_k(phi); b&4: check the panics), scale, b, phi.
func FuzzTopKProx(f *testing.F) {
	for n := 1; n <= 40; n += 3 {
		for _, k := range []byte{0, 1, byte(n / 2), byte(n - 1)} {
			f.Add(new(enc).bytes(byte(n-1), k, 0, scaleOne).b)
			f.Add(new(enc).bytes(byte(n-1), k, 1, scaleOne).b)
			f.Add(new(enc).bytes(byte(n-1), k, 3, scaleHuge).b)
		}
	}
	f.Fuzz(checkTopKProx)
}

func checkTopKProx(t *testing.T, data []byte) {
	s := newSource(data)
	n := proxLen(s.byte())
	k := 1 + int(s.byte())%n
	flags := s.byte()
	s.setScale()
	b := s.float()
	phi := s.floats(n)
	if flags&1 != 0 {
		b = coarsen(phi, b, s.scale)
	}
	if flags&2 != 0 && !math.IsNaN(b) {
		desc := slices.Clone(phi)
		slices.Sort(desc)
		sum := 0.0
		for _, x := range desc[n-k:] {
			sum += x
		}
		b = sum/float64(k) + b*0x1p-30
	}
	if flags&4 != 0 {
		poolProxPanics(t, phi, b, k)
	}
	tt := make([]float64, n)
	for j := range tt {
		tt[j] = math.Float64frombits(guardBits)
	}
	in := slices.Clone(phi)
	neadmm.TopKProx(tt, phi, b, k)
	if !guard.SameBits(phi, in) {
		t.Fatalf("TopKProx modified phi")
	}
	if k == n {
		mt := make([]float64, n)
		neadmm.MeanProx(mt, phi, b)
		if !guard.SameBits(mt, tt) && !(allNaN(mt) && allNaN(tt)) {
			t.Fatalf("MeanProx(%v, %v) = %v, TopKProx with k = n %v", phi, b, mt, tt)
		}
	}
	if err := topKCheck(tt, phi, b, k); err != nil {
		t.Errorf("TopKProx(phi = %v, b = %v, k = %d) = %v: %v", phi, b, k, tt, err)
	}
	checkTopKHomogeneous(t, tt, phi, b, k)
}

// checkTopKHomogeneous solves the problem again with phi and b scaled by
// the power of two that puts their largest magnitude in [2^1022, 2^1023),
// where the scan's sums would overflow: the problem is homogeneous and a
// power-of-two scaling is exact, so the result must be tt scaled, bit for
// bit. (An overflow inside the scan once sent it to a wrong block with a
// finite result.) Inputs with a nonzero magnitude below 2^-900 are skipped:
// subnormal intermediates round differently from their scaled images.
func checkTopKHomogeneous(t *testing.T, tt, phi []float64, b float64, k int) {
	amax, amin := math.Abs(b), math.Inf(1) // amin: the smallest nonzero magnitude
	if b != 0 {
		amin = math.Abs(b)
	}
	for _, x := range phi {
		amax = max(amax, math.Abs(x))
		if x != 0 {
			amin = min(amin, math.Abs(x))
		}
	}
	if !(amax > 0) || math.IsInf(amax, 0) || amin < 0x1p-900 {
		return
	}
	_, e := math.Frexp(amax) // amax in [2^(e-1), 2^e)
	up := 1023 - e           // 2^up itself may overflow: Ldexp each value
	big := make([]float64, len(phi))
	for j, x := range phi {
		big[j] = math.Ldexp(x, up)
	}
	got := make([]float64, len(phi))
	neadmm.TopKProx(got, big, math.Ldexp(b, up), k)
	for j := range got {
		if got[j] != math.Ldexp(tt[j], up) {
			t.Fatalf("TopKProx(phi x 2^%d, b x 2^%d, k = %d) = %v, want TopKProx(phi, b, k) x 2^%d = %v x 2^%d (phi = %v, b = %v)",
				up, up, k, got, up, tt, up, phi, b)
		}
	}
}

func poolProxPanics(t *testing.T, phi []float64, b float64, k int) {
	t.Helper()
	bad := func(fn, what string, f func()) {
		if err := expectPanic(fn, f); err != nil {
			t.Errorf("%s with %s: %v", fn, what, err)
		}
	}
	n := len(phi)
	bad("neadmm.TopKProx", "empty phi", func() { neadmm.TopKProx(nil, nil, b, 1) })
	bad("neadmm.TopKProx", "a short t", func() { neadmm.TopKProx(make([]float64, n-1), phi, b, k) })
	bad("neadmm.TopKProx", "k = 0", func() { neadmm.TopKProx(make([]float64, n), phi, b, 0) })
	bad("neadmm.TopKProx", "k = n+1", func() { neadmm.TopKProx(make([]float64, n), phi, b, n+1) })
	bad("neadmm.TopKProx", "t = phi", func() { neadmm.TopKProx(phi, phi, b, k) })
	bad("neadmm.MeanProx", "empty phi", func() { neadmm.MeanProx(nil, nil, b) })
	bad("neadmm.MeanProx", "t = phi", func() { neadmm.MeanProx(phi, phi, b) })
	buf := make([]float64, 2*n)
	copy(buf[n/2:], phi)
	bad("neadmm.TopKProx", "t overlapping phi", func() { neadmm.TopKProx(buf[:n], buf[n/2:n/2+n], b, k) })
}

// topKObjectiveBig returns h(t) exactly (t finite).
func topKObjectiveBig(t, phi []float64, b float64, k int) *big.Float {
	desc := slices.Clone(t)
	slices.Sort(desc)
	p := nb()
	for _, x := range desc[len(t)-k:] {
		p.Add(p, big64(x))
	}
	p.Quo(p, big.NewFloat(float64(k)))
	d := nb().Sub(big64(b), p)
	h := nb().Mul(d, d)
	for j := range t {
		e := nb().Sub(big64(t[j]), big64(phi[j]))
		h.Add(h, e.Mul(e, e))
	}
	return h
}

// topKReference returns min h over every structure of the solution, in
// math/big, and the point that attains it (rounded to float64).
func topKReference(phi []float64, b float64, k int) (*big.Float, []float64) {
	n := len(phi)
	order := make([]int, n) // indices by decreasing phi (stable)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case phi[i] > phi[j]:
			return -1
		case phi[i] < phi[j]:
			return 1
		}
		return 0
	})
	r := func(i int) *big.Float { return big64(phi[order[i-1]]) } // rank i from 1
	fk := big.NewFloat(float64(k))
	var best *big.Float
	var bestT []float64
	try := func(delta, tau *big.Float, s, e int) {
		t := make([]float64, n)
		for i := 1; i <= n; i++ {
			var v *big.Float
			switch {
			case i < s:
				v = nb().Sub(r(i), delta)
			case i <= e:
				v = tau
			default:
				v = r(i)
			}
			t[order[i-1]], _ = v.Float64()
		}
		for _, x := range t {
			if math.IsInf(x, 0) {
				return
			}
		}
		if h := topKObjectiveBig(t, phi, b, k); best == nil || h.Cmp(best) < 0 {
			best, bestT = h, t
		}
	}
	// No block (or the mean): the k largest lowered (or raised) by delta0.
	sk := nb()
	for i := 1; i <= k; i++ {
		sk.Add(sk, r(i))
	}
	delta0 := nb().Quo(nb().Sub(nb().Quo(sk, fk), big64(b)), big.NewFloat(float64(k+1)))
	try(delta0, nb(), k+1, k)
	// Blocks s..e around rank k.
	for s := 1; s <= k; s++ {
		for e := k + 1; e <= n; e++ {
			a, u, l := nb(), nb(), nb()
			for i := 1; i < s; i++ {
				a.Add(a, r(i))
			}
			for i := s; i <= k; i++ {
				u.Add(u, r(i))
			}
			for i := k + 1; i <= e; i++ {
				l.Add(l, r(i))
			}
			p := big.NewFloat(float64(k - s + 1))
			m := big.NewFloat(float64(e - s + 1))
			ul := nb().Add(u, l)
			num := nb().Mul(m, nb().Sub(a, nb().Mul(fk, big64(b))))
			num.Add(num, nb().Mul(p, ul))
			den := nb().Mul(m, nb().Add(nb().Mul(fk, fk), big.NewFloat(float64(s-1))))
			den.Add(den, nb().Mul(p, p))
			delta := nb().Quo(num, den)
			tau := nb().Quo(nb().Sub(ul, nb().Mul(p, delta)), m)
			try(delta, tau, s, e)
		}
	}
	if n <= 5 {
		// best is nil when every structure's point overflowed.
		if h := bruteOrderings(phi, b, k); h != nil && (best == nil || h.Cmp(best) < 0) {
			best = h
		}
	}
	return best, bestT
}

// bruteOrderings returns min h over every ordering of the indices and
// every partition of it into runs of equal values (the faces of the cones
// on which P_k is linear), each point the closed-form minimizer of h on
// that face; nil if every point overflowed.
func bruteOrderings(phi []float64, b float64, k int) *big.Float {
	n := len(phi)
	perm := make([]int, n)
	for j := range perm {
		perm[j] = j
	}
	var best *big.Float
	t := make([]float64, n)
	var rec func(i int)
	rec = func(i int) {
		if i < n {
			for j := i; j < n; j++ {
				perm[i], perm[j] = perm[j], perm[i]
				rec(i + 1)
				perm[i], perm[j] = perm[j], perm[i]
			}
			return
		}
		for cuts := 0; cuts < 1<<(n-1); cuts++ {
			// v_i = (S_i + lambda c_i/k)/|B_i|, lambda = (b - alpha)/(1 + beta).
			type block struct{ lo, hi, c int }
			var blocks []block
			lo := 0
			for pos := range n {
				if pos == n-1 || cuts>>pos&1 == 1 {
					blocks = append(blocks, block{lo, pos + 1, max(0, min(pos+1, k)-lo)})
					lo = pos + 1
				}
			}
			fk := float64(k)
			alpha, beta := nb(), nb()
			sums := make([]*big.Float, len(blocks))
			for i, bl := range blocks {
				sums[i] = nb()
				for q := bl.lo; q < bl.hi; q++ {
					sums[i].Add(sums[i], big64(phi[perm[q]]))
				}
				sz := float64(bl.hi - bl.lo)
				alpha.Add(alpha, nb().Quo(nb().Mul(big.NewFloat(float64(bl.c)/fk), sums[i]), big.NewFloat(sz)))
				beta.Add(beta, big.NewFloat(float64(bl.c*bl.c)/(fk*fk*sz)))
			}
			lambda := nb().Quo(nb().Sub(big64(b), alpha), nb().Add(big.NewFloat(1), beta))
			ok := true
			for i, bl := range blocks {
				v := nb().Add(sums[i], nb().Mul(lambda, big.NewFloat(float64(bl.c)/fk)))
				v.Quo(v, big.NewFloat(float64(bl.hi-bl.lo)))
				f, _ := v.Float64()
				ok = ok && !math.IsInf(f, 0)
				for q := bl.lo; q < bl.hi; q++ {
					t[perm[q]] = f
				}
			}
			if ok {
				if h := topKObjectiveBig(t, phi, b, k); best == nil || h.Cmp(best) < 0 {
					best = h
				}
			}
		}
	}
	rec(0)
	return best
}

// topKCheck returns an error if t is not TopKProx(phi, b, k).
func topKCheck(t, phi []float64, b float64, k int) error {
	n := len(phi)
	bad := math.IsNaN(b) || math.IsInf(b, 0)
	for _, x := range phi {
		bad = bad || math.IsNaN(x) || math.IsInf(x, 0)
	}
	if bad {
		if !allNaN(t) {
			return fmt.Errorf("want NaN everywhere for non-finite input")
		}
		return nil
	}
	for j := range phi {
		for i := range phi {
			if phi[i] > phi[j] && t[i] < t[j] {
				return fmt.Errorf("order broken: phi[%d] > phi[%d] but t %v < %v", i, j, t[i], t[j])
			}
		}
	}
	ref, refT := topKReference(phi, b, k)
	if ref == nil {
		return nil // the exact minimizer lies beyond the float range
	}
	// Tolerance: t's entries come from sums of at most n+k^2+2 terms of
	// magnitude <= M = max(|b|, |phi|) (times k for the numerator), over a
	// denominator >= 1: each entry is within c*u*M with c = 4(n+2)(k+2) of
	// the exact structure's value, plus subnormal rounding (and the scaled
	// path for overflowing sums, which loses at most 2^-1074 * 2^(e+1)).
	mag := math.Abs(b)
	for _, x := range phi {
		mag = math.Max(mag, math.Abs(x))
	}
	tolT := 4*float64(n+2)*float64(k+2)*u*mag + float64(4*n*k+8)*0x1p-1060
	if math.IsInf(tolT, 0) {
		tolT = math.MaxFloat64
	}
	for _, x := range t {
		if math.IsNaN(x) {
			return fmt.Errorf("NaN for finite input")
		}
		if math.IsInf(x, 0) {
			if refT == nil {
				return nil
			}
			return fmt.Errorf("overflow, but the reference %v is finite", refT)
		}
	}
	ht := topKObjectiveBig(t, phi, b, k)
	// h(t) - h(t*) <= 2*dev*tolT*(n+1) + (n+1)^2*tolT^2 for |t - t*| <= tolT
	// entrywise, dev = sqrt(h*) bounding the residuals.
	dev := new(big.Float).Sqrt(ref)
	tm := big64(tolT)
	n1 := big.NewFloat(float64(n + 1))
	tolH := nb().Mul(nb().Mul(nb().Mul(big64(2), dev), tm), n1)
	tolH.Add(tolH, nb().Mul(nb().Mul(n1, n1), nb().Mul(tm, tm)))
	if nb().Sub(ht, tolH).Cmp(ref) > 0 {
		return fmt.Errorf("h(t) = %s, reference min %s at %v (tolerance %s)", fmtBig(ht), fmtBig(ref), refT, fmtBig(tolH))
	}
	if nb().Add(ht, tolH).Cmp(ref) < 0 {
		return fmt.Errorf("h(t) = %s below the reference min %s: the reference misses a structure", fmtBig(ht), fmtBig(ref))
	}
	// No perturbation of t does better.
	limit := nb().Sub(ht, tolH)
	scale := math.Max(mag, 1)
	for _, eps := range []float64{tolT * 4, scale * 0x1p-20, scale * 0x1p-40, 1} {
		for _, sign := range []float64{1, -1} {
			for j := range min(n, 8) {
				z := slices.Clone(t)
				z[j] += sign * eps
				if math.IsInf(z[j], 0) {
					continue
				}
				if hz := topKObjectiveBig(z, phi, b, k); hz.Cmp(limit) < 0 {
					return fmt.Errorf("h(t) = %s, but h = %s with t[%d] moved by %v", fmtBig(ht), fmtBig(hz), j, sign*eps)
				}
			}
		}
	}
	return nil
}
