package onebit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neadmm/neadmm/vec"
)

// TestCompactNorm2 checks the Lanczos estimate of a working set's
// ||A||^2 against the largest eigenvalue of its Gram matrix (Jacobi's
// method, exact to rounding): a Ritz value is a lower bound (up to the
// bisection's relative 1e-12), and the residual stop puts it within 1e-3
// of an eigenvalue (far closer in practice), so the estimate is 1.05 times
// the norm within that. Besides Generate's columns (k = 1 to 100, more
// than the 30 steps) it runs on columns with rank deficiency (repeated
// and proportional columns), one singular value repeated (orthogonal
// columns of one norm: A^T A = c I, where the process breaks down after
// one step), two repeated at the top, and zero columns (the estimate 0,
// no NaN). A warm start from the vector it leaves converges at once, and
// repeated calls allocate nothing. k = 0 gives 0.
func TestCompactNorm2(t *testing.T) {
	_, gp := problemFor(t, GenOptions{M: 300, N: 400, K: 5, Seed: 9})
	rng := rand.New(rand.NewPCG(5, 6))
	var op operator
	op.setCompact(gp)
	if got := op.norm2(nil, make([]float64, gp.m)); got != 0 {
		t.Errorf("k=0: %g, want 0", got)
	}
	type tc struct {
		name string
		p    *Problem
		js   []int
	}
	var cases []tc
	for _, k := range []int{1, 2, 7, 40, 100} {
		js := rng.Perm(gp.n)[:k]
		slices.Sort(js) // add wants increasing indices
		cases = append(cases, tc{fmt.Sprintf("generate k=%d", k), gp, js})
	}
	// special builds a 64 x n problem from columns col(j) (len 64).
	special := func(n int, col func(j int, c []float64)) *Problem {
		const m = 64
		phi, c := make([]float64, m*n), make([]float64, m)
		for j := range n {
			clear(c)
			col(j, c)
			for i, v := range c {
				phi[i*n+j] = v
			}
		}
		y := make([]float64, m)
		for i := range y {
			y[i] = 1
		}
		p, err := NewProblem(phi, m, n, y)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := func(n int) []int {
		js := make([]int, n)
		for j := range js {
			js[j] = j
		}
		return js
	}
	base := make([]float64, 5*64)
	for i := range base {
		base[i] = rng.NormFloat64()
	}
	// rank 5 from 12 columns: copies and multiples of 5 random ones.
	cases = append(cases, tc{"rank 5 of 12", special(12, func(j int, c []float64) {
		copy(c, base[(j%5)*64:(j%5+1)*64])
		vec.Scal(float64(1+j/5), c)
	}), all(12)})
	// 10 orthogonal columns of norm 3 (scaled unit vectors): A^T A = 9 I.
	cases = append(cases, tc{"repeated 10", special(10, func(j int, c []float64) { c[3*j] = 3 }), all(10)})
	// Top singular value twice (norm 2, two columns), below it 1 and 0.5.
	cases = append(cases, tc{"top twice", special(4, func(j int, c []float64) {
		c[5*j], c[5*j+1] = []float64{2, 1, 0.5, 2}[j], 0
	}), all(4)})
	cases = append(cases, tc{"one column", special(1, func(j int, c []float64) { c[7] = -0.5 }), all(1)})
	cases = append(cases, tc{"zero columns", special(3, func(int, []float64) {}), all(3)})
	cases = append(cases, tc{"zero and one", special(3, func(j int, c []float64) {
		if j == 2 {
			c[0] = 1e-3
		}
	}), all(3)})
	for _, c := range cases {
		var op operator
		op.setCompact(c.p)
		op.add(c.js)
		k := op.k
		want := gramMax(&op)
		v, u := make([]float64, k), make([]float64, c.p.m)
		got := op.norm2(v, u) / compactPowerMargin
		if !(got <= want*(1+1e-12)+1e-300) || got < want*(1-1e-3) {
			t.Errorf("%s: Ritz value %.12g, largest eigenvalue %.12g", c.name, got, want)
		}
		for _, vi := range v {
			if vi != vi {
				t.Fatalf("%s: NaN in the vector %v", c.name, v)
			}
		}
		p0 := op.products
		again := op.norm2(v, u) / compactPowerMargin
		if n := op.products - p0; n > 4 {
			t.Errorf("%s: the warm start took %d products", c.name, n)
		}
		if !(math.Abs(again-got) <= 1e-3*want) {
			t.Errorf("%s: warm start gave %g, then %g", c.name, got, again)
		}
		if allocs := testing.AllocsPerRun(5, func() { op.norm2(v, u) }); allocs != 0 {
			t.Errorf("%s: norm2 allocates %g times per call", c.name, allocs)
		}
	}
}

// TestTridiag checks tridiagMax and tridiagVec on matrices with known
// spectra: the path graph's Laplacian-like T = tridiag(-1, 2, -1) of
// order n, largest eigenvalue 2 + 2 cos(pi/(n+1)), eigenvector
// sin(i pi/(n+1)) up to signs alternating; a split matrix (a zero
// off-diagonal) whose largest eigenvalue is in its second block; the
// zero matrix; and 1 x 1.
func TestTridiag(t *testing.T) {
	check := func(name string, a, b []float64, want float64) {
		t.Helper()
		n := len(a)
		got := tridiagMax(a, b)
		if math.Abs(got-want) > 1e-11*max(math.Abs(want), 1e-300) {
			t.Errorf("%s: largest eigenvalue %.15g, want %.15g", name, got, want)
		}
		s, tt := make([]float64, n), make([]float64, 2*n)
		tridiagVec(s, a, b, got, tt)
		// the residual ||T s - got s||, relative to ||T|| (at most
		// 4 |want| here; scaled first, against overflow)
		sc := max(math.Abs(want), 1e-300)
		r, ns := 0.0, 0.0
		for i := range n {
			v := (a[i]/sc - got/sc) * s[i]
			if i > 0 {
				v += b[i-1] / sc * s[i-1]
			}
			if i < n-1 {
				v += b[i] / sc * s[i+1]
			}
			r += v * v
			ns += s[i] * s[i]
		}
		if math.Abs(ns-1) > 1e-12 || math.Sqrt(r) > 1e-8 {
			t.Errorf("%s: ||s||^2 = %g, residual %g", name, ns, math.Sqrt(r))
		}
	}
	for _, n := range []int{2, 3, 10, 30} {
		a, b := make([]float64, n), make([]float64, n-1)
		for i := range a {
			a[i] = 2
		}
		for i := range b {
			b[i] = -1
		}
		check(fmt.Sprintf("laplacian %d", n), a, b, 2+2*math.Cos(math.Pi/float64(n+1)))
		// scaled far down and up: the bisection's tolerance is relative
		for _, sc := range []float64{1e-200, 1e200} {
			as, bs := slices.Clone(a), slices.Clone(b)
			vec.Scal(sc, as)
			vec.Scal(sc, bs)
			check(fmt.Sprintf("laplacian %d x %g", n, sc), as, bs, sc*(2+2*math.Cos(math.Pi/float64(n+1))))
		}
	}
	// random ones (mixed signs) against Jacobi's method
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{2, 5, 17, 30} {
		a, b, g := make([]float64, n), make([]float64, n-1), make([]float64, n*n)
		for i := range a {
			a[i] = rng.NormFloat64()
			g[i*n+i] = a[i]
		}
		for i := range b {
			b[i] = rng.NormFloat64()
			g[i*n+i+1], g[(i+1)*n+i] = b[i], b[i]
		}
		check(fmt.Sprintf("random %d", n), a, b, jacobiMax(g, n))
	}
	// blocks [[1, 0.5], [0.5, 1]] (eigenvalues 0.5, 1.5) and [[3, 1], [1, 3]] (2, 4)
	check("split", []float64{1, 1, 3, 3}, []float64{0.5, 0, 1}, 4)
	check("zero", []float64{0, 0, 0}, []float64{0, 0}, 0)
	check("one", []float64{2.5}, nil, 2.5)
}

// gramMax returns the largest eigenvalue of A^T A for the compact
// operator, by Jacobi's method on the Gram matrix.
func gramMax(op *operator) float64 {
	k := op.k
	g := make([]float64, k*k)
	for a := range k {
		for b := range k {
			s := 0.0
			for i, v := range op.col(a) {
				s += v * op.col(b)[i]
			}
			g[a*k+b] = s
		}
	}
	return jacobiMax(g, k)
}

// jacobiMax returns the largest eigenvalue of the symmetric k x k matrix
// g (overwritten), by cyclic Jacobi rotations.
func jacobiMax(g []float64, k int) float64 {
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for a := range k {
			for b := a + 1; b < k; b++ {
				off += g[a*k+b] * g[a*k+b]
			}
		}
		if off < 1e-26 {
			break
		}
		for a := range k {
			for b := a + 1; b < k; b++ {
				if g[a*k+b] == 0 {
					continue
				}
				th := (g[b*k+b] - g[a*k+a]) / (2 * g[a*k+b])
				tn := math.Copysign(1, th) / (math.Abs(th) + math.Sqrt(th*th+1))
				c := 1 / math.Sqrt(tn*tn+1)
				s := tn * c
				for r := range k {
					x, y := g[r*k+a], g[r*k+b]
					g[r*k+a], g[r*k+b] = c*x-s*y, s*x+c*y
				}
				for r := range k {
					x, y := g[a*k+r], g[b*k+r]
					g[a*k+r], g[b*k+r] = c*x-s*y, s*x+c*y
				}
			}
		}
	}
	mx := math.Inf(-1)
	for a := range k {
		mx = max(mx, g[a*k+a])
	}
	return mx
}
