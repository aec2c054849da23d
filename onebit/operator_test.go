package onebit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/internal/vectest"
	"github.com/neadmm/neadmm/vec"
)

// compactOp returns a working set of k random columns of an m x n Phi.
func compactOp(t testing.TB, m, n, k int, seed uint64) *operator {
	r := rand.New(rand.NewPCG(seed, 1))
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range phi {
		phi[i] = r.NormFloat64()
	}
	for i := range y {
		y[i] = 1
	}
	p, err := NewProblem(phi, m, n, y)
	if err != nil {
		t.Fatal(err)
	}
	var o operator
	o.setCompact(p)
	js := r.Perm(n)[:k]
	slices.Sort(js)
	o.add(js)
	return &o
}

// TestMulTRowsColumnwise checks the four-column mulTRows against one
// column at a time in row order, bit for bit: the sums are the same
// sums in the same order, so the solves do not change.
func TestMulTRowsColumnwise(t *testing.T) {
	for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 40} {
		for _, nr := range []int{0, 1, 6, 37} {
			o := compactOp(t, 60, 90, k, uint64(k*100+nr))
			rr := rand.New(rand.NewPCG(uint64(nr), 2))
			res := make([]float64, 60)
			var rows []int
			for _, i := range rr.Perm(60)[:nr] {
				res[i] = rr.NormFloat64()
			}
			for i, v := range res {
				if v != 0 {
					rows = append(rows, i)
				}
			}
			got := make([]float64, k)
			o.mulTRows(got, res, rows)
			for c := range k {
				col, want := o.col(c), 0.0
				for _, i := range rows {
					want += res[i] * col[i]
				}
				if got[c] != want {
					t.Fatalf("k %d rows %d column %d: %v, want %v", k, nr, c, got[c], want)
				}
			}
		}
	}
}

// BenchmarkMulTRows is the working set's product with A^T over the
// violated rows, at the sizes of the rademacher family at M/N = 0.5
// (M = 500, 40 columns, 40 violated rows).
func BenchmarkMulTRows(b *testing.B) {
	o := compactOp(b, 500, 1000, 40, 1)
	r := rand.New(rand.NewPCG(5, 6))
	res, dst := make([]float64, 500), make([]float64, 40)
	var rows []int
	for i := range 500 {
		if i%12 == 0 {
			res[i] = r.NormFloat64()
			rows = append(rows, i)
		}
	}
	for b.Loop() {
		o.mulTRows(dst, res, rows)
	}
}

// TestMulSparse checks the gathered product against the dense one within
// the rounding bound of a sum of nz terms, nz*eps*sum|phi_ij x_j|, on both
// sides of the gather threshold, and its cost accounting.
func TestMulSparse(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 300, N: 400, K: 5, Seed: 4})
	rng := rand.New(rand.NewPCG(3, 4))
	var op operator
	op.setFull(p)
	dense, got := make([]float64, p.m), make([]float64, p.m)
	for _, nz := range []int{0, 1, 5, 40, p.n/gatherCols - 1, p.n / gatherCols, p.n} {
		x := make([]float64, p.n)
		for _, j := range rng.Perm(p.n)[:nz] {
			x[j] = rng.NormFloat64()
		}
		vec.MulVec(dense, p.phi, p.m, p.n, x)
		w0 := op.work
		op.mulSparse(got, x)
		for i := range got {
			bound := 0.0
			for j, v := range x {
				bound += math.Abs(p.phi[i*p.n+j] * v)
			}
			bound *= float64(nz+1) * 0x1p-52
			if math.Abs(got[i]-dense[i]) > bound {
				t.Fatalf("nz=%d row %d: %g, dense %g (bound %g)", nz, i, got[i], dense[i], bound)
			}
		}
		wantWork := 1.0
		if nz*gatherCols < p.n {
			wantWork = float64(nz) / float64(p.n)
		}
		if w := op.work - w0; math.Abs(w-wantWork) > 1e-15 {
			t.Errorf("nz=%d: work %g, want %g", nz, w, wantWork)
		}
	}
	zero := make([]float64, p.n)
	zero[7] = 1
	if allocs := testing.AllocsPerRun(10, func() { op.mulSparse(got, zero) }); allocs != 0 {
		t.Errorf("mulSparse allocates %g times per call", allocs)
	}
}

// BenchmarkMulSparse times the gathered product beside the dense kernel at
// a few sparsities (the crossover sets gatherCols).
func BenchmarkMulSparse(b *testing.B) {
	for _, sz := range []struct{ m, n int }{{500, 1000}, {4000, 4000}} {
		p := &Problem{phiData: &phiData{m: sz.m, n: sz.n, phi: make([]float64, sz.m*sz.n)}, y: make([]float64, sz.m)}
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range p.phi {
			p.phi[i] = rng.NormFloat64()
		}
		var op operator
		op.setFull(p)
		dst := make([]float64, sz.m)
		for _, nz := range []int{10, 40, sz.n / 16, sz.n / 8, sz.n / 4} {
			x := make([]float64, sz.n)
			for _, j := range rng.Perm(sz.n)[:nz] {
				x[j] = 1
			}
			idx := appendNonzeros(nil, x)
			b.Run(fmt.Sprintf("%dx%d/nz=%d/gather", sz.m, sz.n, nz), func(b *testing.B) {
				for b.Loop() {
					op.mulCols(dst, x, idx)
				}
			})
			b.Run(fmt.Sprintf("%dx%d/nz=%d/dense", sz.m, sz.n, nz), func(b *testing.B) {
				for b.Loop() {
					op.mul(dst, x)
				}
			})
		}
	}
}

// TestMulSigns checks that operator.mulSigns gives the signs of the dense
// product, bit for bit, on a sign matrix and iterates on BIHT's lattice
// (integer multiples of one step, where many rows sum to 0 in exact
// arithmetic and rounding decides the dense product's sign), on every
// kernel path (vectest.ForEach: AVX-512, AVX2, generic; NEON on arm64),
// that the plain gather (mulSparse) gets some of those signs wrong (so
// the check can fail: with no slack, mulSigns fails it), that its column
// cache is emptied for another problem, and its cost accounting and
// allocations.
func TestMulSigns(t *testing.T) {
	vectest.ForEach(t, func(t *testing.T, _ vec.Kernels) { testMulSigns(t) })
}

func testMulSigns(t *testing.T) {
	const m, n = 203, 1000 // m not a multiple of 4: the last rows too
	_, p := rademacherFor(t, m, n, 10, 0, 7)
	rng := rand.New(rand.NewPCG(8, 9))
	var op operator
	op.setFull(p)
	dense, got, plain := make([]float64, m), make([]float64, m), make([]float64, m)
	wrong, redone := 0, 0
	for trial := range 200 {
		nz := []int{1, 2, 5, 10, 20, n / gatherCols, 40}[trial%7]
		x := make([]float64, n)
		step := 0.5 / float64(m) / 3 // not a power of two
		for _, j := range rng.Perm(n)[:nz] {
			x[j] = step * float64(rng.IntN(7)-3)
		}
		vec.MulVec(dense, p.phi, m, n, x)
		w0 := op.work
		op.mulSigns(got, x)
		for i := range got {
			if sign(got[i]) != sign(dense[i]) {
				t.Fatalf("nz=%d row %d: sign of %g, dense %g", nz, i, got[i], dense[i])
			}
		}
		nzx := len(appendNonzeros(nil, x))
		w := op.work - w0
		switch {
		case nzx*gatherCols >= n:
			if w < 1-1e-9 || w > 1+1e-9 {
				t.Errorf("nz=%d: dense work %g, want 1", nzx, w)
			}
		case w < float64(nzx)/float64(n)-1e-9 || w > float64(nzx)/float64(n)+1+1e-9: // op.work's sums round
			t.Errorf("nz=%d: work %g", nzx, w)
		default:
			redone += int((w-float64(nzx)/float64(n))*float64(m) + 0.5)
		}
		op.mulSparse(plain, x)
		for i := range plain {
			if sign(plain[i]) != sign(dense[i]) {
				wrong++
			}
		}
	}
	// Another problem of the same size on the same operator: its
	// column cache must not serve the first one's columns.
	_, p2 := rademacherFor(t, m, n, 10, 0, 8)
	op.setFull(p2)
	for trial := range 20 {
		x := make([]float64, n)
		for _, j := range rng.Perm(n)[:10] {
			x[j] = float64(trial%3 + 1)
		}
		vec.MulVec(dense, p2.phi, m, n, x)
		op.mulSigns(got, x)
		for i := range got {
			if sign(got[i]) != sign(dense[i]) {
				t.Fatalf("second problem, trial %d row %d: sign of %g, dense %g", trial, i, got[i], dense[i])
			}
		}
	}
	t.Logf("rows recomputed densely: %d; signs the plain gather got wrong: %d (of %d)", redone, wrong, 200*m)
	if wrong == 0 || redone == 0 {
		t.Errorf("no ambiguous row (plain gather wrong %d times, %d rows recomputed): the test does not test", wrong, redone)
	}
	x := make([]float64, n)
	x[3], x[500] = 1, -1
	if allocs := testing.AllocsPerRun(10, func() { op.mulSigns(got, x) }); allocs != 0 {
		t.Errorf("mulSigns allocates %g times per call", allocs)
	}
}

// TestColCacheLRU pins colCache.get: a column not held is copied (with
// its largest magnitude) into a new slot while there are fewer than
// colCacheSlots(nz) = max(2 nz, 16), and over the least recently used
// slot after that. With nz = 1 (16 slots): columns 0..15 fill them at
// stamps 1..16, column 3 is used again at stamp 17, and columns 16 and 17
// then replace columns 0 and 1 (stamps 1 and 2), not 3. With nz = 20, 40
// columns fit without replacing any (twice nz), and the 41st replaces the
// first.
func TestColCacheLRU(t *testing.T) {
	const m, n = 5, 64
	p := randomProblem(t, m, n, 8)
	check := func(cc *colCache, j int) {
		t.Helper()
		u := cc.slot[j]
		require.GreaterOrEqual(t, u, 0, "column %d not held", j)
		require.Equal(t, j, cc.owner[u])
		col := make([]float64, m)
		p.column(col, j)
		require.Equal(t, col, cc.cols[u*m:(u+1)*m], "column %d", j)
		top := 0.0
		for _, v := range col {
			top = max(top, math.Abs(v))
		}
		require.Equal(t, top, cc.top[u])
	}
	var cc colCache
	cc.reset(n)
	for j := range 16 {
		cc.stamp++
		cc.get(p.phi, m, n, j, 1)
	}
	cc.stamp++
	require.Equal(t, cc.slot[3], cc.get(p.phi, m, n, 3, 1))
	for _, j := range []int{16, 17} {
		cc.stamp++
		cc.get(p.phi, m, n, j, 1)
	}
	require.Len(t, cc.owner, 16)
	require.Equal(t, -1, cc.slot[0])
	require.Equal(t, -1, cc.slot[1])
	for j := 2; j < 18; j++ {
		check(&cc, j)
	}

	cc.reset(n)
	cc.stamp++
	for j := range 40 {
		cc.get(p.phi, m, n, j, 20)
	}
	require.Len(t, cc.owner, 40)
	for j := range 40 {
		check(&cc, j)
	}
	cc.get(p.phi, m, n, 40, 20)
	require.Len(t, cc.owner, 40)
	require.Equal(t, -1, cc.slot[0])
	check(&cc, 40)

	// A reset of the same width forgets every column (a stale slot would
	// hand out another Phi's column).
	cc.reset(n)
	require.Empty(t, cc.owner)
	for j := range n {
		require.Equal(t, -1, cc.slot[j], "column %d after reset", j)
	}
}

// TestCompactSparseRows pins the compact product with A^T over the
// residual's rows (compactSparseRows = 1/8: "the fraction of non-zero
// residual rows below which" it runs over those rows only), through its
// cost: on 16 rows, 1 row is below 16/8 = 2 and costs 1 row's worth of
// the k = 4 columns (work 4/(16 N)), 2 rows are not and cost the dense
// product over the 4 columns (work 4/N). Both give A^T r.
func TestCompactSparseRows(t *testing.T) {
	p := randomProblem(t, 16, 10, 3)
	var s Solver
	s.resize(p)
	s.wsInit(p, randomUnit(rand.New(rand.NewPCG(1, 2)), p.n), 4)
	s.sp.p, s.sp.op = p, s.op
	for _, c := range []struct {
		rows []int
		work float64
	}{{[]int{5}, 4.0 / (16 * 10)}, {[]int{5, 9}, 4.0 / 10}} {
		r := make([]float64, 16)
		for _, i := range c.rows {
			r[i] = float64(i) - 7.5
		}
		grad := make([]float64, 4)
		w0 := s.ws.work
		s.sp.mulTResidualOf(grad, r, c.rows)
		require.Equal(t, c.work, s.ws.work-w0, "%d rows", len(c.rows))
		for u := range 4 {
			want := 0.0
			for _, i := range c.rows {
				want += s.ws.col(u)[i] * r[i]
			}
			require.InDelta(t, want, grad[u], 1e-12)
		}
	}
}

// TestProductPathBoundaries checks the documented switches between the
// dense kernels and the sparse products through their cost (Work, in full
// products): a product with Phi^T runs over the non-zero residual rows
// when they are below sparseRows = 0.85 of M (16 of 20: work 16/20), the
// dense kernel at 17 of 20 (work 1); mulSparse gathers the columns of x's
// non-zeros when they are fewer than N/32 (1 of 64: work 1/64), and runs
// the dense kernel at 2 of 64 (work 1). The products agree with the dense
// ones to rounding (1e-12 on sums of 20 and 64 terms of order 1).
func TestProductPathBoundaries(t *testing.T) {
	p := randomProblem(t, 20, 64, 9)
	var o operator
	o.setFull(p)
	g, want := make([]float64, 64), make([]float64, 64)
	ax, wantAx := make([]float64, 20), make([]float64, 20)
	for _, c := range []struct {
		trans bool
		nz    int
		work  float64
	}{{true, 16, 16.0 / 20}, {true, 17, 1}, {false, 1, 1.0 / 64}, {false, 2, 1}} {
		o.work = 0
		if c.trans {
			r := make([]float64, 20)
			for i := range c.nz {
				r[i] = float64(i%3) - 1.5
			}
			o.mulT(g, r)
			vec.MulTransVec(want, p.phi, 20, 64, r)
			require.InDeltaSlice(t, want, g, 1e-12)
		} else {
			x := make([]float64, 64)
			for j := range c.nz {
				x[10*j+3] = float64(j) + 0.5
			}
			o.mulSparse(ax, x)
			vec.MulVec(wantAx, p.phi, 20, 64, x)
			require.InDeltaSlice(t, wantAx, ax, 1e-12)
		}
		require.InDelta(t, c.work, o.work, 1e-15, "transpose %v, %d non-zeros", c.trans, c.nz)
	}
}

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
