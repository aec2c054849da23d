package neadmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxObjective is h(t) = (b - max t)^2 + sum (t_j - phi_j)^2 and the sum of
// its terms' magnitudes before squaring, squared (for rounding bounds).
func maxObjective(t, phi []float64, b float64) (h, scale float64) {
	m := slices.Max(t)
	h = (b - m) * (b - m)
	scale = b*b + m*m
	for j := range t {
		h += (t[j] - phi[j]) * (t[j] - phi[j])
		scale += t[j]*t[j] + phi[j]*phi[j]
	}
	return h, scale
}

// maxLevelG is the convex function of the level m whose minimum is min h
// (see MaxProx).
func maxLevelG(m float64, phi []float64, b float64) float64 {
	top := slices.Max(phi)
	g := (b - m) * (b - m)
	if m > top {
		return g + (m-top)*(m-top)
	}
	for _, x := range phi {
		if x > m {
			g += (x - m) * (x - m)
		}
	}
	return g
}

// exhaustiveMax returns the smallest h over every non-empty tied set S
// (all subsets for n <= 12, the top-c sets otherwise): t_j = a_S on S with
// a_S the mean of b and phi_S, t_j = min(phi_j, a_S) elsewhere. The global
// minimizer is among these points (its tied set is some S, and given S the
// level must be a_S).
func exhaustiveMax(phi []float64, b float64) float64 {
	n := len(phi)
	best := math.Inf(1)
	t := make([]float64, n)
	try := func(in func(j int) bool) {
		sum, c := b, 0
		for j := range phi {
			if in(j) {
				sum += phi[j]
				c++
			}
		}
		a := sum / float64(c+1)
		for j, x := range phi {
			if in(j) {
				t[j] = a
			} else {
				t[j] = min(x, a)
			}
		}
		h, _ := maxObjective(t, phi, b)
		best = min(best, h)
	}
	if n <= 12 {
		for mask := 1; mask < 1<<n; mask++ {
			try(func(j int) bool { return mask>>j&1 == 1 })
		}
		return best
	}
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	slices.SortFunc(order, func(i, j int) int { return -cmpF(phi[i], phi[j]) })
	rank := make([]int, n)
	for r, j := range order {
		rank[j] = r
	}
	for c := 1; c <= n; c++ {
		try(func(j int) bool { return rank[j] < c })
	}
	return best
}

func cmpF(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// randomMaxCase draws phi and b in several regimes: continuous values, small
// integers (many ties), b far above or below phi.
func randomMaxCase(r *rand.Rand, n int) ([]float64, float64) {
	phi := make([]float64, n)
	kind := r.IntN(4)
	for j := range phi {
		switch kind {
		case 0, 3:
			phi[j] = r.NormFloat64()
		case 1:
			phi[j] = float64(r.IntN(4)) // ties
		case 2:
			phi[j] = math.Exp(3 * r.NormFloat64())
		}
	}
	b := 2 * r.NormFloat64()
	switch r.IntN(5) {
	case 0:
		b = slices.Max(phi) + math.Abs(r.NormFloat64()) // above every phi
	case 1:
		b = -float64(n) * 3 // far below: large tied set
	case 2:
		b = float64(r.IntN(4)) // ties with b
	}
	return phi, b
}

func TestMaxProxGlobal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range shortTrials(3000) {
		n := 1 + r.IntN(12)
		if trial%10 == 0 {
			n = 13 + r.IntN(200)
		}
		phi, b := randomMaxCase(r, n)
		got := make([]float64, n)
		MaxProx(got, phi, b)
		h, scale := maxObjective(got, phi, b)
		// h and the reference are sums of n+1 squares: each evaluation
		// has a relative error below (n+2)eps of the sum of the squared
		// magnitudes, and t itself is the exact formula up to a few eps.
		tol := 4 * float64(n+4) * eps * scale
		if best := exhaustiveMax(phi, b); h > best+tol {
			t.Fatalf("trial %d: phi=%v b=%g: h(MaxProx)=%.17g > exhaustive %.17g", trial, phi, b, h, best)
		}
		// The level m = max t minimizes the convex G: golden section.
		lo, hi := min(b, slices.Min(phi)), max(b, slices.Max(phi))
		const gr = 0.6180339887498949
		for range 300 {
			m1, m2 := hi-gr*(hi-lo), lo+gr*(hi-lo)
			if maxLevelG(m1, phi, b) < maxLevelG(m2, phi, b) {
				hi = m2
			} else {
				lo = m1
			}
		}
		mScan := (lo + hi) / 2
		if g := maxLevelG(mScan, phi, b); h > g+tol {
			t.Fatalf("trial %d: h(MaxProx)=%.17g > G(m=%.17g)=%.17g", trial, h, mScan, g)
		}
		// G is strongly convex (G'' >= 2), so the scan's m is within
		// sqrt(rounding/1) of m*: about sqrt(tol).
		if m := slices.Max(got); math.Abs(m-mScan) > 2*math.Sqrt(tol)+1e-12 {
			t.Fatalf("trial %d: level %.17g, scan %.17g", trial, m, mScan)
		}
		// Structure: t_j = min(phi_j, m), except one raised maximum.
		m := slices.Max(got)
		raised := 0
		for j := range got {
			if got[j] != min(phi[j], m) {
				raised++
				if got[j] != m || phi[j] != slices.Max(phi) {
					t.Fatalf("trial %d: t[%d]=%g phi=%g m=%g", trial, j, got[j], phi[j], m)
				}
			}
		}
		if raised > 1 {
			t.Fatalf("trial %d: %d elements raised", trial, raised)
		}
	}
}

// TestMaxProxMatchesSort checks that the filtered search gives the same bits
// as the paper's full sort.
func TestMaxProxMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 5000 {
		n := 1 + r.IntN(300)
		phi, b := randomMaxCase(r, n)
		got := make([]float64, n)
		MaxProx(got, phi, b)
		want := make([]float64, n)
		m := maxProxLevelSort(want, phi, b)
		maxProxFill(want, phi, m, slices.Index(phi, slices.Max(phi)))
		for j := range got {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("trial %d: t[%d] = %v, full sort gives %v", trial, j, got[j], want[j])
			}
		}
	}
}

func TestMaxProxCases(t *testing.T) {
	for _, tc := range []struct {
		phi  []float64
		b    float64
		want []float64
	}{
		{[]float64{0}, 2, []float64{1}},               // b above: raise the single element
		{[]float64{3}, 1, []float64{2}},               // lower it
		{[]float64{1, 1}, 3, []float64{2, 1}},         // tie at the top, b above: raise the first only
		{[]float64{0, 5, 5}, 8, []float64{0, 6.5, 5}}, // first of the tied maxima
		{[]float64{4, 0, 2}, 0, []float64{2, 0, 2}},   // c* = 2: (0+4+2)/3 = 2
		{[]float64{3, 3, 3}, 3, []float64{3, 3, 3}},   // already optimal
		{[]float64{2, 1, 0}, -3, []float64{0, 0, 0}},  // (−3+2+1+0)/4 = 0
		{[]float64{-1, -2}, -1, []float64{-1, -2}},    // b equals the max
		{[]float64{1e308, 1e308}, 1e308, []float64{1e308, 1e308}},
		{[]float64{1.5e308, 1.5e308}, -1.5e308, []float64{5e307, 5e307}}, // sums overflow
	} {
		got := make([]float64, len(tc.phi))
		MaxProx(got, tc.phi, tc.b)
		for j := range got {
			if math.Abs(got[j]-tc.want[j]) > 4*eps*math.Abs(tc.want[j]) {
				t.Errorf("MaxProx(%v, %g) = %v, want %v", tc.phi, tc.b, got, tc.want)
				break
			}
		}
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		phi []float64
		b   float64
	}{
		{[]float64{1, 2}, nan}, {[]float64{1, 2}, inf}, {[]float64{1, 2}, -inf},
		{[]float64{nan, 2}, 0}, {[]float64{1, inf}, 0}, {[]float64{-inf}, 0},
	} {
		got := []float64{7, 7}[:len(tc.phi)]
		MaxProx(got, tc.phi, tc.b)
		for _, x := range got {
			if !math.IsNaN(x) {
				t.Errorf("MaxProx(%v, %g) = %v, want all NaN", tc.phi, tc.b, got)
				break
			}
		}
	}
}

func TestMaxProxPanics(t *testing.T) {
	buf := make([]float64, 10)
	for _, tc := range []struct {
		t, phi []float64
		msg    string
	}{
		{nil, nil, "neadmm.MaxProx: empty phi"},
		{buf[:2], make([]float64, 3), "neadmm.MaxProx: len(t) != len(phi)"},
		{buf[:4], buf[:4], "neadmm.MaxProx: t and phi overlap"},
		{buf[:4], buf[3:7], "neadmm.MaxProx: t and phi overlap"},
	} {
		assert.PanicsWithValue(t, tc.msg, func() { MaxProx(tc.t, tc.phi, 0) })
	}
	assert.NotPanics(t, func() { MaxProx(buf[:4], buf[4:8], 0) }, "adjacent, not overlapping")
}

func TestMaxProxAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	phi := make([]float64, 4096)
	for j := range phi {
		phi[j] = r.NormFloat64()
	}
	tt := make([]float64, len(phi))
	for _, b := range []float64{0.5, -1000, 10} {
		if n := testing.AllocsPerRun(20, func() { MaxProx(tt, phi, b) }); n != 0 {
			t.Errorf("b=%g: MaxProx allocates %v times", b, n)
		}
	}
}

func benchMaxCase(n int, b float64) ([]float64, []float64, float64) {
	r := rand.New(rand.NewPCG(13, uint64(n)))
	phi := make([]float64, n)
	for j := range phi {
		phi[j] = r.NormFloat64()
	}
	return make([]float64, n), phi, b
}

// BenchmarkMaxProx runs random N(0,1) phi with b = 0.5 (typical: a small
// tied set) and b = -n (a tied set of about half the bag: the worst case of
// the filter, which then sorts many candidates); "sort" is the paper's full
// sort for comparison.
func BenchmarkMaxProx(b *testing.B) {
	for _, n := range []int{8, 64, 4096} {
		for _, bb := range []float64{0.5, -float64(n)} {
			t, phi, bv := benchMaxCase(n, bb)
			top := 0 // the index of max phi, which the sort variant's fill needs
			for j, x := range phi {
				if x > phi[top] {
					top = j
				}
			}
			b.Run(fmt.Sprintf("n=%d/b=%g/filter", n, bv), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					MaxProx(t, phi, bv)
				}
			})
			b.Run(fmt.Sprintf("n=%d/b=%g/sort", n, bv), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					m := maxProxLevelSort(t, phi, bv)
					maxProxFill(t, phi, m, top)
				}
			})
		}
	}
}

// shortTrials returns n, or a fifth of it under -short (the qemu and race
// stages of CI): the first trials are the same either way, and the full
// count runs in the plain and purego stages.
func shortTrials(n int) int {
	if testing.Short() {
		return n / 5
	}
	return n
}

// maxProxRule transcribes MaxProx's documented rule: with phi sorted
// descending, a_c = (b + phi'_1 + ... + phi'_c)/(c + 1), summed in that
// order, and m* = a_c at the first c with a_c >= phi'_(c+1) (or c = n); then
// t_j = min(phi_j, m*), the first largest phi_j raised to m* when m* is
// above it. strict stops at ">" instead (the paper), to check that a case
// tells the two apart.
func maxProxRule(phi []float64, b float64, strict bool) []float64 {
	desc := slices.Clone(phi)
	slices.Sort(desc)
	slices.Reverse(desc)
	n := len(desc)
	m, sum := 0.0, b
	for c := 1; c <= n; c++ {
		sum += desc[c-1]
		m = sum / float64(c+1)
		if c == n || m > desc[c] || (!strict && m == desc[c]) {
			break
		}
	}
	t := make([]float64, n)
	for j, x := range phi {
		t[j] = min(x, m)
	}
	if top := slices.Index(phi, desc[0]); m > phi[top] {
		t[top] = m
	}
	return t
}

// TestMaxProxStopsAtEquality pins ">=" in MaxProx's scans (the filtered
// one and maxProxScan, which the overflow path uses): the doc says a_c =
// phi'_(c+1) gives a_(c+1) = a_c, so ">=" and ">" agree in exact
// arithmetic, but MaxProx promises the bits of its own (">=") rule. These
// cases have a_c == phi'_(c+1) in floating point and an a_(c+1) that
// rounds differently, so ">" would return other bits. The second case,
// scaled by 2^1023, makes b + max phi overflow: the scaled search must give
// the unscaled result times 2^1023 exactly (powers of two scale exactly;
// MaxProx is homogeneous).
func TestMaxProxStopsAtEquality(t *testing.T) {
	for _, tc := range []struct {
		phi []float64
		b   float64
	}{
		// a_4 = (b + 0.2817 + 0.16 + 0.1578 + 0.129)/5 == 0.0621, filtered search.
		{[]float64{0.129, 0.28169999999999995, 0.0621, 0.16000000000000003, 0.15780000000000002}, -0.418},
		// a_1 = (1.087 + 1.623)/2 == 1.355: no search at this scale.
		{[]float64{1.0612, 1.623, 1.355}, 1.087},
	} {
		want := maxProxRule(tc.phi, tc.b, false)
		require.NotEqual(t, want, maxProxRule(tc.phi, tc.b, true), "the case must tell >= from >")
		got := make([]float64, len(tc.phi))
		MaxProx(got, tc.phi, tc.b)
		require.Equal(t, want, got, "phi=%v b=%v", tc.phi, tc.b)
		const s = 0x1p1023
		phiS := scaled(tc.phi, s)
		if slices.Max(phiS)+tc.b*s <= math.MaxFloat64 {
			continue // the scaled path needs an overflowing sum
		}
		MaxProx(got, phiS, tc.b*s)
		require.Equal(t, scaled(want, s), got, "phi=%v b=%v, times 2^1023", tc.phi, tc.b)
	}
}
