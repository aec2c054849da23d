package neadmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// topK returns the mean of the k largest x_j.
func topK(x []float64, k int) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	sum := 0.0
	for _, v := range s[len(s)-k:] {
		sum += v
	}
	return sum / float64(k)
}

// poolObjective is h(t) = (b - P_k(t))^2 + sum (t_j - phi_j)^2 and the sum
// of its terms' squared magnitudes (for rounding bounds).
func poolObjective(t, phi []float64, b float64, k int) (h, scale float64) {
	p := topK(t, k)
	h = (b - p) * (b - p)
	scale = b*b + p*p
	for j := range t {
		h += (t[j] - phi[j]) * (t[j] - phi[j])
		scale += t[j]*t[j] + phi[j]*phi[j]
	}
	return h, scale
}

// bruteTopK returns min h over R^n by enumeration, independently of the
// derivation in pool.go: R^n is the union of the cones {t_pi(1) >= ... >=
// t_pi(n)} over the orderings pi; on each, P_k is linear and h a strictly
// convex quadratic, whose minimizer over the cone lies on some face: some
// consecutive entries (in pi's order) equal. For every ordering and every
// partition into consecutive blocks the minimizer of h on that face's
// affine hull is closed-form; the global minimizer is one of these points,
// and every point is feasible (h is unconstrained), so the least true h
// over all of them is min h. Exponential: n <= 6.
func bruteTopK(phi []float64, b float64, k int) float64 {
	n := len(phi)
	perm := make([]int, n)
	for j := range perm {
		perm[j] = j
	}
	t := make([]float64, n)
	best := math.Inf(1)
	var permute func(i int)
	permute = func(i int) {
		if i < n {
			for j := i; j < n; j++ {
				perm[i], perm[j] = perm[j], perm[i]
				permute(i + 1)
				perm[i], perm[j] = perm[j], perm[i]
			}
			return
		}
		for cuts := 0; cuts < 1<<(n-1); cuts++ {
			// Blocks of positions; c_i = positions of block i among the
			// first k, S_i = sum of phi over it.
			var size, c, sum []float64
			start := 0
			for pos := range n {
				if pos == n-1 || cuts>>pos&1 == 1 {
					sz, ci, si := 0.0, 0.0, 0.0
					for q := start; q <= pos; q++ {
						sz++
						si += phi[perm[q]]
						if q < k {
							ci++
						}
					}
					size, c, sum = append(size, sz), append(c, ci), append(sum, si)
					start = pos + 1
				}
			}
			// v_i = (S_i + lambda c_i/k)/|B_i|, lambda = b - w.v.
			fk := float64(k)
			alpha, beta := 0.0, 0.0
			for i := range size {
				alpha += c[i] / fk * sum[i] / size[i]
				beta += c[i] * c[i] / (fk * fk * size[i])
			}
			lambda := (b - alpha) / (1 + beta)
			start = 0
			for i := range size {
				v := (sum[i] + lambda*c[i]/fk) / size[i]
				for q := start; q < start+int(size[i]); q++ {
					t[perm[q]] = v
				}
				start += int(size[i])
			}
			h, _ := poolObjective(t, phi, b, k)
			best = min(best, h)
		}
	}
	permute(0)
	return best
}

// levelG returns G(p) = (b - p)^2 + D(p), D(p) = min ||t - phi||^2 over
// P_k(t) = p, computed without the isotonic argument of pool.go: for
// p >= P_k(phi) the nearest such t raises the k largest phi_j (D = k(p -
// P_k(phi))^2); for p below, it is the projection onto the convex set
// {P_k(t) <= p}, t = prox of mu*S_k = phi - mu*g with g the projection of
// phi/mu onto the capped simplex {0 <= g <= 1, sum g = k} (Moreau), and mu
// found by bisection so that P_k(t) = p (P_k(t) falls as mu grows).
func levelG(p float64, phi []float64, b float64, k int) float64 {
	n := len(phi)
	pk := topK(phi, k)
	if p >= pk {
		return (b-p)*(b-p) + float64(k)*(p-pk)*(p-pk)
	}
	t := make([]float64, n)
	prox := func(mu float64) {
		// nu with sum clip((phi - nu)/mu, 0, 1) = k, by bisection.
		lo, hi := slices.Min(phi)-mu, slices.Max(phi)
		for range 200 {
			nu := (lo + hi) / 2
			s := 0.0
			for _, x := range phi {
				s += min(max((x-nu)/mu, 0), 1)
			}
			if s > float64(k) {
				lo = nu
			} else {
				hi = nu
			}
		}
		nu := (lo + hi) / 2
		for j, x := range phi {
			t[j] = x - mu*min(max((x-nu)/mu, 0), 1)
		}
	}
	lo, hi := 0.0, 1.0
	for prox(hi); topK(t, k) > p; prox(hi) {
		hi *= 2
	}
	for range 200 {
		mu := (lo + hi) / 2
		if prox(mu); topK(t, k) > p {
			lo = mu
		} else {
			hi = mu
		}
	}
	prox((lo + hi) / 2)
	d := 0.0
	for j := range t {
		d += (t[j] - phi[j]) * (t[j] - phi[j])
	}
	return (b-p)*(b-p) + d
}

func TestTopKProxBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for trial := range shortTrials(400) {
		n := 1 + r.IntN(5)
		if trial%20 == 0 {
			n = 6
		}
		phi, b := randomMaxCase(r, n)
		for k := 1; k <= n; k++ {
			got := make([]float64, n)
			TopKProx(got, phi, b, k)
			h, scale := poolObjective(got, phi, b, k)
			tol := 8 * float64(n+4) * eps * scale
			if best := bruteTopK(phi, b, k); h > best+tol || best > h+tol {
				t.Fatalf("trial %d: phi=%v b=%g k=%d: h(TopKProx)=%.17g, brute force %.17g (t=%v)", trial, phi, b, k, h, best, got)
			}
		}
	}
}

func TestTopKProxGlobal(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for trial := range shortTrials(300) {
		n := 2 + r.IntN(40)
		if trial%10 == 0 {
			n = 41 + r.IntN(160)
		}
		phi, b := randomMaxCase(r, n)
		k := 1 + r.IntN(n)
		got := make([]float64, n)
		TopKProx(got, phi, b, k)
		h, scale := poolObjective(got, phi, b, k)
		tol := 8 * float64(n+4) * eps * scale
		// G is strictly convex with minimum min h at p* = P_k(t*): h must
		// equal G(p*) (t* is the nearest point of level p*) and no nearby
		// level may do better.
		p := topK(got, k)
		g := levelG(p, phi, b, k)
		gtol := tol + 1e-9*scale // the bisections are good to ~1e-12 relative
		if math.Abs(h-g) > gtol {
			t.Fatalf("trial %d (n=%d k=%d): h=%.17g but G(P(t))=%.17g", trial, n, k, h, g)
		}
		for _, d := range []float64{1e-2, 1e-4} {
			step := d * (1 + math.Abs(p))
			for _, q := range []float64{p - step, p + step} {
				if gq := levelG(q, phi, b, k); gq < h-gtol {
					t.Fatalf("trial %d (n=%d k=%d): G(%g)=%.17g < h=%.17g at p=%g", trial, n, k, q, gq, h, p)
				}
			}
		}
	}
}

// TestTopKProxStructure checks the documented form of the solution and
// the two limits k = 1 (MaxProx) and k = n (MeanProx).
func TestTopKProxStructure(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for trial := range 3000 {
		n := 1 + r.IntN(60)
		phi, b := randomMaxCase(r, n)
		k := 1 + r.IntN(n)
		got := make([]float64, n)
		TopKProx(got, phi, b, k)
		desc := slices.Clone(phi)
		slices.Sort(desc)
		slices.Reverse(desc)
		vk := desc[k-1]
		// Order is kept: phi_i > phi_j implies t_i >= t_j.
		for i := range phi {
			for j := range phi {
				if phi[i] > phi[j] && got[i] < got[j] {
					t.Fatalf("trial %d: order broken: phi %g > %g but t %g < %g", trial, phi[i], phi[j], got[i], got[j])
				}
			}
		}
		if b >= topK(phi, k) && k < n {
			// Raise: exactly k elements move, all by the same amount.
			up := (b - topK(phi, k)) / float64(k+1)
			moved := 0
			for j := range phi {
				if got[j] != phi[j] {
					moved++
					if math.Abs(got[j]-phi[j]-up) > 4*eps*(math.Abs(phi[j])+math.Abs(up)+math.Abs(b)) || phi[j] < vk {
						t.Fatalf("trial %d: raise t[%d]=%g phi=%g up=%g", trial, j, got[j], phi[j], up)
					}
				}
			}
			if up > 4*eps*(math.Abs(vk)+math.Abs(b)) && moved != k {
				t.Fatalf("trial %d: %d elements raised, want %d", trial, moved, k)
			}
		}
		switch k {
		case 1:
			want := make([]float64, n)
			MaxProx(want, phi, b)
			_, scale := poolObjective(want, phi, b, 1)
			for j := range got {
				if math.Abs(got[j]-want[j]) > 8*float64(n+2)*eps*math.Sqrt(scale) {
					t.Fatalf("trial %d: k=1: t[%d]=%.17g, MaxProx %.17g", trial, j, got[j], want[j])
				}
			}
		case n:
			want := make([]float64, n)
			MeanProx(want, phi, b)
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("trial %d: k=n: t[%d]=%v, MeanProx %v", trial, j, got[j], want[j])
				}
			}
		}
	}
}

func TestMeanProx(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for trial := range 1000 {
		n := 1 + r.IntN(100)
		phi, b := randomMaxCase(r, n)
		got := make([]float64, n)
		MeanProx(got, phi, b)
		// The gradient of h vanishes: t_j - phi_j = (b - mean t)/n for all j.
		mt := 0.0
		for _, x := range got {
			mt += x
		}
		mt /= float64(n)
		_, scale := poolObjective(got, phi, b, n)
		for j := range got {
			if g := got[j] - phi[j] - (b-mt)/float64(n); math.Abs(g) > 8*float64(n+2)*eps*math.Sqrt(scale) {
				t.Fatalf("trial %d: gradient %g at %d", trial, g, j)
			}
		}
	}
}

func TestPoolProxCases(t *testing.T) {
	for _, tc := range []struct {
		phi  []float64
		b    float64
		k    int
		want []float64
	}{
		{[]float64{0}, 2, 1, []float64{1}},
		{[]float64{1, 1, 0}, 4, 2, []float64{2, 2, 0}},                // raise both: up = (4-1)/3
		{[]float64{1, 1, 1}, 4, 2, []float64{2, 2, 1}},                // ties at the k-th value: lowest indices raised
		{[]float64{0, 3, 3, 3}, 6, 2, []float64{0, 4, 4, 3}},          // the first two of the tied maxima
		{[]float64{4, 2, 0}, 0, 2, []float64{3, 1, 0}},                // no block: top two lowered by (3-0)/3 = 1
		{[]float64{2, 1, 0}, -3, 3, []float64{1, 0, -1}},              // mean: δ = (1+3)/4 = 1
		{[]float64{5, 5}, 5, 2, []float64{5, 5}},                      // already optimal
		{[]float64{10, 0, -5}, 10, 2, []float64{35. / 3, 5. / 3, -5}}, // up = (10-5)/3: beyond max(phi, b) (the doc's example)
		{[]float64{1.5e308, 1.5e308, 0}, -1.5e308, 2, []float64{5e307, 5e307, 0}},
	} {
		got := make([]float64, len(tc.phi))
		TopKProx(got, tc.phi, tc.b, tc.k)
		for j := range got {
			if math.Abs(got[j]-tc.want[j]) > 8*eps*(math.Abs(tc.want[j])+1e-300) {
				t.Errorf("TopKProx(%v, %g, %d) = %v, want %v", tc.phi, tc.b, tc.k, got, tc.want)
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
		{[]float64{nan, 2}, 0}, {[]float64{1, inf}, 0}, {[]float64{-inf, 0}, 0},
	} {
		for _, f := range []func(t []float64){
			func(t []float64) { TopKProx(t, tc.phi, tc.b, 1) },
			func(t []float64) { TopKProx(t, tc.phi, tc.b, 2) },
			func(t []float64) { MeanProx(t, tc.phi, tc.b) },
		} {
			got := []float64{7, 7}
			f(got)
			if !math.IsNaN(got[0]) || !math.IsNaN(got[1]) {
				t.Errorf("phi=%v b=%g: %v, want all NaN", tc.phi, tc.b, got)
			}
		}
	}
}

// TestPoolProxHomogeneous: the problems are homogeneous, and a scaling
// by a power of two is exact in floating point (no result here is
// subnormal), so scaling phi and b by 2^p must scale the result by 2^p
// bit for bit, up to p = 1023 where the scans' sums would overflow. Once
// an overflow inside the scan sent it to a wrong block with a finite
// result (phi = (1.5, -1, -1) x 2^1023, b = 0, k = 2).
func TestPoolProxHomogeneous(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	ref, got, big := make([]float64, 15), make([]float64, 15), make([]float64, 15)
	for trial := range 3000 {
		n := 1 + r.IntN(9)
		phi := make([]float64, n)
		for j := range phi {
			phi[j] = float64(r.IntN(7)-3) / 2 // ties are frequent
			if trial%2 == 1 {
				phi[j] = max(-1.9, min(1.9, r.NormFloat64())) // below 2: x 2^1023 stays finite
			}
		}
		if trial == 0 {
			phi, n = []float64{1.5, -1, -1}, 3
		}
		b := float64(r.IntN(7)-3) / 2
		k := 1 + r.IntN(n)
		if trial == 0 {
			b, k = 0, 2
		}
		// Many equal phi_j far above b: every phi_j joins the tied set
		// (the pooled block), so the sums reach n times the largest
		// magnitude: scaled down too little they overflow at x 2^1023.
		if trial >= 1 && trial <= 4 {
			n, b, k = 13+trial%2, -1.9, []int{0, 1, 7, 13}[trial%4]
			phi = phi[:0]
			for range n {
				phi = append(phi, 1.9)
			}
			if k == 0 {
				k = n - 1
			}
		}
		// Up to 2^1021 for MeanProx: its result can exceed the range of
		// phi and b by (n+1)/n, and 2^1023 x 2 overflows.
		for _, p := range []int{-900, 500, 1000, 1021, 1023} {
			s := math.Ldexp(1, p)
			for j, x := range phi {
				big[j] = x * s
			}
			big := big[:n]
			for _, f := range []struct {
				name  string
				solve func(t, phi []float64, b float64)
			}{
				{"TopKProx", func(t, phi []float64, b float64) { TopKProx(t, phi, b, k) }},
				{"MaxProx", func(t, phi []float64, b float64) { MaxProx(t, phi, b) }},
				{"MeanProx", func(t, phi []float64, b float64) { MeanProx(t, phi, b) }},
			} {
				if f.name == "MeanProx" && p > 1021 {
					continue
				}
				f.solve(ref[:n], phi, b)
				f.solve(got[:n], big, b*s)
				for j := range n {
					if got[j] != ref[j]*s {
						t.Fatalf("%s(phi x 2^%d, b x 2^%d, k=%d) / 2^%d = %v, want %v (phi = %v, b = %g)",
							f.name, p, p, k, p, scaled(got[:n], 1/s), ref[:n], phi, b)
					}
				}
			}
		}
	}
}

func scaled(x []float64, s float64) []float64 {
	out := make([]float64, len(x))
	for j, v := range x {
		out[j] = v * s
	}
	return out
}

// TestPoolProxCaseDerivation follows the scan by hand on phi = (4, 3, 2.9),
// b = 0, k = 2: without a block delta = (3.5 - 0)/3 would put 3 - delta
// below 2.9, so ranks 2 and 3 pool (s = 2, e = 3: a = 1, A = 4, p = q = 1,
// m = 2, U = 3, L = 2.9): delta = (2*(4 - 0) + 5.9)/(2*(4 + 1) + 1) =
// 13.9/11, tau = (5.9 - delta)/2, and 4 - delta >= tau keeps rank 1 out.
func TestPoolProxCaseDerivation(t *testing.T) {
	delta := 13.9 / 11
	tau := (5.9 - delta) / 2
	want := []float64{4 - delta, tau, tau}
	// The fixed point: P(t) = (t_1 + t_2)/2 = b + k*delta.
	if math.Abs((want[0]+want[1])/2-2*delta) > 1e-14 {
		t.Fatal("hand derivation inconsistent")
	}
	got := make([]float64, 3)
	TopKProx(got, []float64{4, 3, 2.9}, 0, 2)
	for j := range got {
		if math.Abs(got[j]-want[j]) > 1e-14 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestPoolProxPanics(t *testing.T) {
	buf := make([]float64, 10)
	for _, tc := range []struct {
		f   func()
		msg string
	}{
		{func() { TopKProx(nil, nil, 0, 1) }, "neadmm.TopKProx: empty phi"},
		{func() { TopKProx(buf[:2], make([]float64, 3), 0, 1) }, "neadmm.TopKProx: len(t) != len(phi)"},
		{func() { TopKProx(buf[:2], buf[2:4], 0, 0) }, "neadmm.TopKProx: k out of [1, len(phi)]"},
		{func() { TopKProx(buf[:2], buf[2:4], 0, 3) }, "neadmm.TopKProx: k out of [1, len(phi)]"},
		{func() { TopKProx(buf[:4], buf[3:7], 0, 2) }, "neadmm.TopKProx: t and phi overlap"},
		{func() { MeanProx(nil, nil, 0) }, "neadmm.MeanProx: empty phi"},
		{func() { MeanProx(buf[:2], make([]float64, 3), 0) }, "neadmm.MeanProx: len(t) != len(phi)"},
		{func() { MeanProx(buf[:4], buf[:4], 0) }, "neadmm.MeanProx: t and phi overlap"},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.msg {
					t.Errorf("panic %v, want %q", r, tc.msg)
				}
			}()
			tc.f()
		}()
	}
	TopKProx(buf[:4], buf[4:8], 0, 2) // adjacent, not overlapping: no panic
	MeanProx(buf[:4], buf[4:8], 0)
}

func TestPoolProxAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	phi := make([]float64, 4096)
	for j := range phi {
		phi[j] = r.NormFloat64()
	}
	tt := make([]float64, len(phi))
	for _, b := range []float64{0.5, -1000, 10} {
		for _, k := range []int{1, 3, 100, 4096} {
			if n := testing.AllocsPerRun(10, func() { TopKProx(tt, phi, b, k) }); n != 0 {
				t.Errorf("b=%g k=%d: TopKProx allocates %v times", b, k, n)
			}
		}
		if n := testing.AllocsPerRun(10, func() { MeanProx(tt, phi, b) }); n != 0 {
			t.Errorf("b=%g: MeanProx allocates %v times", b, n)
		}
	}
}

// BenchmarkTopKProx runs random N(0,1) phi with b = 0.5 and b = -n (a
// large block), beside MaxProx (k = 1) and MeanProx (k = n).
func BenchmarkTopKProx(b *testing.B) {
	for _, n := range []int{8, 64, 4096} {
		for _, bb := range []float64{0.5, -float64(n)} {
			t, phi, bv := benchMaxCase(n, bb)
			for _, k := range []int{1, 2, max(1, n/4)} {
				b.Run(fmt.Sprintf("n=%d/b=%g/k=%d", n, bv, k), func(b *testing.B) {
					for b.Loop() {
						TopKProx(t, phi, bv, k)
					}
				})
			}
			b.Run(fmt.Sprintf("n=%d/b=%g/max", n, bv), func(b *testing.B) {
				for b.Loop() {
					MaxProx(t, phi, bv)
				}
			})
			b.Run(fmt.Sprintf("n=%d/b=%g/mean", n, bv), func(b *testing.B) {
				for b.Loop() {
					MeanProx(t, phi, bv)
				}
			})
		}
	}
}
