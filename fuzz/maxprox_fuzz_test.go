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

// FuzzMaxProx checks neadmm.MaxProx(t, phi, b), the minimizer of
//
//	h(t) = (b - max_j t_j)^2 + sum_j (t_j - phi_j)^2,
//
// against an exhaustive reference written here from the problem alone:
// whatever the solution's level m = max t is, t_j = min(phi_j, m) (the top
// phi_j raised to m if m > max phi) is best for it, with cost
// G(m) = (b - m)^2 + sum_j max(phi_j - m, 0)^2 (m <= max phi) or
// (b - m)^2 + (m - max phi)^2 (m > max phi); G is convex and its stationary
// point is a_c = (b + sum of the c largest phi)/(c+1) for c = the number of
// phi_j above it, so the reference evaluates G exactly at a_c for every
// tied-set size c = 1..n and takes the best (no stopping rule, no search).
// Each t[j] must then equal the reference to within the rounding of the
// level (bit for bit where phi_j lies clearly below it), the lowest index
// among tied maxima is the one raised, and h(t) must be no larger than h at
// perturbed points, up to that rounding. Non-finite input must give NaN
// everywhere; empty, mismatched and overlapping arguments must panic.
//
// Input: n byte (1 + b%16 below 224, else 17 + (b-224)*2, up to 79), flags
// byte (b&1: round phi and b to a coarse grid, so that ties abound; b&2: b
// near max phi; b&4: check the panics), scale, b, phi.
//
// Seeds: sizes below; the hard cases (ties, b at or above the maximum,
// overflow, subnormal levels, NaN and Inf) are files in
// testdata/fuzz/FuzzMaxProx.
func FuzzMaxProx(f *testing.F) {
	for n := 1; n <= 40; n += 3 {
		f.Add(new(enc).bytes(byte(n-1), 0, scaleOne).b)
		f.Add(new(enc).bytes(byte(n-1), 1, scaleOne).b)
		f.Add(new(enc).bytes(byte(n-1), 3, scaleHuge).b)
	}
	f.Fuzz(checkMaxProx)
}

func checkMaxProx(t *testing.T, data []byte) {
	s := newSource(data)
	n := proxLen(s.byte())
	flags := s.byte()
	s.setScale()
	b := s.float()
	phi := s.floats(n)
	if flags&1 != 0 {
		b = coarsen(phi, b, s.scale)
	}
	if flags&2 != 0 && !math.IsNaN(b) {
		b = slices.Max(phi) + b*0x1p-30
	}
	if flags&4 != 0 {
		maxProxPanics(t, phi, b)
	}
	tt := make([]float64, n)
	for j := range tt {
		tt[j] = math.Float64frombits(guardBits) // scratch: must be overwritten
	}
	in := append([]float64(nil), phi...)
	neadmm.MaxProx(tt, phi, b)
	if !guard.SameBits(phi, in) {
		t.Fatalf("MaxProx modified phi")
	}
	if err := maxProxCheck(tt, phi, b); err != nil {
		t.Errorf("MaxProx(phi = %v, b = %v) = %v: %v", phi, b, tt, err)
	}
}

// maxProxPanics checks the documented panics.
func maxProxPanics(t *testing.T, phi []float64, b float64) {
	t.Helper()
	bad := func(what string, f func()) {
		if err := expectPanic("neadmm.MaxProx", f); err != nil {
			t.Errorf("MaxProx with %s: %v", what, err)
		}
	}
	n := len(phi)
	bad("empty phi", func() { neadmm.MaxProx(nil, nil, b) })
	bad("a short t", func() { neadmm.MaxProx(make([]float64, n-1), phi, b) })
	bad("t = phi", func() { neadmm.MaxProx(phi, phi, b) })
	buf := make([]float64, 2*n)
	copy(buf[n/2:], phi)
	bad("t overlapping phi", func() { neadmm.MaxProx(buf[:n], buf[n/2:n/2+n], b) })
}

// maxProxCheck returns an error if t is not MaxProx(phi, b).
func maxProxCheck(t, phi []float64, b float64) error {
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
	// Reference level: the best a_c over every tied-set size.
	desc := slices.Clone(phi)
	slices.Sort(desc)
	slices.Reverse(desc)
	top := desc[0]
	const p = 300 // a_c to 2^-300; G exactly from there
	sum := nb().Add(nb(), big64(b))
	var m, bestG *big.Float
	bestC := 0
	for c := 1; c <= n; c++ {
		sum.Add(sum, big64(desc[c-1]))
		a := new(big.Float).SetPrec(p).Quo(sum, big.NewFloat(float64(c+1)))
		g := levelCost(a, phi, b, top)
		if bestG == nil || g.Cmp(bestG) < 0 {
			m, bestG, bestC = a, g, c
		}
	}
	// Tolerance on the level: the implementation sums b and the c largest
	// phi (c additions, any order after sorting) and divides: at most c+1
	// roundings of terms bounded by |b| + sum |phi'_k|, over c+1. Rounding
	// may also move the stopping point by one, which changes the level by
	// (phi'_(c+1) - a_c)/(c+2), itself within rounding; so take the terms up
	// to c+1 and twice the bound. The last term covers subnormal results
	// and the scaled path for overflowing sums (scaling by at most 2^-8 for
	// n < 128 costs 2^-1075 per element, times 2^8 back).
	absSum := math.Abs(b)
	for k := 0; k < min(bestC+1, n); k++ {
		absSum += math.Abs(desc[k])
	}
	mf, _ := m.Float64()
	tolM := 2*float64(n+2)*u*(absSum/float64(bestC+1)) + float64(n+1)*0x1p-1066
	if math.IsInf(absSum, 0) { // absSum itself overflows: bound it in math/big
		tolM = 2 * float64(n+2) * u * math.MaxFloat64
	}
	first := slices.Index(phi, top)
	for j, x := range phi {
		want := math.Min(x, mf)
		if j == first && mf > top {
			want = mf
		}
		got := t[j]
		if math.IsNaN(got) || math.Abs(got-want) > tolM {
			return fmt.Errorf("t[%d] = %v, want %v ± %v (level %s, tied set %d)", j, got, want, tolM, fmtBig(m), bestC)
		}
		if x < mf-tolM && (j != first || mf <= top+tolM) && got != x {
			return fmt.Errorf("t[%d] = %v, want phi[%d] = %v exactly: it lies below the level %v", j, got, j, x, mf)
		}
	}
	// Raised index: with the level clearly above max phi, exactly the first
	// maximum is raised.
	if mf > top+tolM {
		for j := range phi {
			if raised := t[j] > top; raised != (j == first) {
				return fmt.Errorf("t[%d] = %v: only the first maximum, index %d, may be raised to the level %v", j, t[j], first, mf)
			}
		}
	}
	// Objective: h(t) <= h(z) + tolH for perturbed z, where tolH bounds
	// h(t) - h(t*) for |t_j - t*_j| <= tolM (h is not smooth: first order).
	ht := maxObjectiveBig(t, phi, b)
	dev := nb().Sub(big64(b), m) // |b - m| + sum |min(phi_j, m) - phi_j|
	dev.Abs(dev)
	for _, x := range phi {
		if x > mf {
			dev.Add(dev, nb().Sub(big64(x), m))
		}
	}
	// tolH = 2*(2*dev*tolM + (n+1)*tolM^2), in math/big: it may exceed
	// MaxFloat64 when the data do.
	tm := big64(tolM)
	tolH := nb().Mul(nb().Mul(big64(2), dev), tm)
	tolH.Add(tolH, nb().Mul(big64(float64(n+1)), nb().Mul(tm, tm)))
	tolH.Mul(tolH, big64(2))
	limit := nb().Sub(ht, tolH)
	check := func(name string, z []float64) error {
		for _, x := range z {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil
			}
		}
		if hz := maxObjectiveBig(z, phi, b); hz.Cmp(limit) < 0 {
			return fmt.Errorf("h(t) = %s, but h = %s at %s %v (tolerance %s)", fmtBig(ht), fmtBig(hz), name, z, fmtBig(tolH))
		}
		return nil
	}
	if err := check("phi", phi); err != nil {
		return err
	}
	scale := math.Max(math.Abs(mf), 1)
	for _, eps := range []float64{tolM * 4, scale * 0x1p-20, scale * 0x1p-40, 1, scale} {
		for _, sign := range []float64{1, -1} {
			d := sign * eps
			for j := range min(n, 8) { // one element moved
				z := slices.Clone(t)
				z[j] += d
				if err := check(fmt.Sprintf("t with t[%d] moved by %v", j, d), z); err != nil {
					return err
				}
			}
			lvl := mf + d // another level, filled the same way
			z := make([]float64, n)
			for j, x := range phi {
				z[j] = math.Min(x, lvl)
			}
			if lvl > top {
				z[first] = lvl
			}
			if err := check(fmt.Sprintf("the fill at level %v", lvl), z); err != nil {
				return err
			}
		}
	}
	return nil
}

// levelCost returns G(m) exactly (m is a big.Float of modest precision).
func levelCost(m *big.Float, phi []float64, b, top float64) *big.Float {
	d := nb().Sub(big64(b), m)
	g := nb().Mul(d, d)
	if m.Cmp(big64(top)) > 0 {
		e := nb().Sub(m, big64(top))
		return g.Add(g, e.Mul(e, e))
	}
	for _, x := range phi {
		if e := nb().Sub(big64(x), m); e.Sign() > 0 {
			g.Add(g, e.Mul(e, e))
		}
	}
	return g
}

// maxObjectiveBig returns h(t) exactly.
func maxObjectiveBig(t, phi []float64, b float64) *big.Float {
	d := nb().Sub(big64(b), big64(slices.Max(t)))
	h := nb().Mul(d, d)
	for j := range t {
		e := nb().Sub(big64(t[j]), big64(phi[j]))
		h.Add(h, e.Mul(e, e))
	}
	return h
}
