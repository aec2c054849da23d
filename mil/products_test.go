package mil

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neadmm/neadmm/internal/vectest"
	"github.com/neadmm/neadmm/vec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomDataset returns a dense dataset of nb bags (sizes 1..maxBag) with
// cols features, each non-zero with probability density, values of mixed
// magnitude and sign.
func randomDataset(t testing.TB, rng *rand.Rand, nb, maxBag, cols int, density float64) *Dataset {
	t.Helper()
	bagPtr := []int{0}
	labels := make([]float64, nb)
	for k := range nb {
		bagPtr = append(bagPtr, bagPtr[k]+1+rng.IntN(maxBag))
		labels[k] = float64(k % 2)
	}
	n := bagPtr[nb]
	x := make([]float64, n*cols)
	for i := range x {
		if rng.Float64() < density {
			x[i] = rng.NormFloat64() * math.Exp(2*rng.NormFloat64())
		}
	}
	d, err := NewDense(x, cols, bagPtr, labels)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// naiveRow returns the features of dataset row i and the dataset rows in a
// plain [][]float64-free form: a dense copy of the whole matrix.
func naiveMatrix(d *Dataset) []float64 {
	cols := d.NumFeatures()
	x := make([]float64, d.NumInstances()*cols)
	for i := range d.NumInstances() {
		d.Row(x[i*cols:(i+1)*cols], i)
	}
	return x
}

// gamma is the classic bound on the relative error of a sum of n rounded
// products, n*u/(1-n*u) with u = 2^-53 (Higham, Accuracy and Stability of
// Numerical Algorithms, 3.1). Two computations that each satisfy it differ
// by at most 2*gamma(n)*sum|terms|; FMA only tightens it.
func gamma(n int) float64 {
	u := math.Ldexp(1, -53)
	return float64(n) * u / (1 - float64(n)*u)
}

// guarded returns a slice of length n inside a buffer of NaN sentinels, and a
// check that the sentinels are untouched.
func guarded(n int) ([]float64, func(t *testing.T)) {
	const g = 4
	buf := make([]float64, n+2*g)
	for i := range buf {
		buf[i] = math.NaN()
	}
	return buf[g : g+n], func(t *testing.T) {
		t.Helper()
		for i := range g {
			if !math.IsNaN(buf[i]) || !math.IsNaN(buf[g+n+i]) {
				t.Fatal("write outside the output slice")
			}
		}
	}
}

// products holds MulVec, MulTransVec with bias ([X 1]^T r) and Gram of one
// dataset for fixed inputs, and for a reference also the sums of absolute
// terms that bound the rounding error of each entry.
type products struct {
	t, g, gram        []float64
	tAbs, gAbs, gAbs2 []float64
}

// computeProducts runs the methods under test on d, checking they write
// only their output slices.
func computeProducts(t *testing.T, d *Dataset, beta []float64, beta0 float64, r []float64) products {
	t.Helper()
	n, cols := d.NumInstances(), d.NumFeatures()
	var p products
	var check func(*testing.T)
	p.t, check = guarded(n)
	d.MulVec(p.t, beta, beta0)
	check(t)
	p.g, check = guarded(cols + 1)
	d.MulTransVec(p.g, r)
	check(t)
	g2, check := guarded(cols) // the length-D form must agree with the first D entries
	d.MulTransVec(g2, r)
	check(t)
	for j := range g2 {
		if g2[j] != p.g[j] {
			t.Fatalf("MulTransVec with and without bias differ at %d", j)
		}
	}
	p.gram, check = guarded((cols + 1) * (cols + 1))
	d.Gram(p.gram)
	check(t)
	for j := range cols + 1 {
		for k := range cols + 1 {
			if p.gram[j*(cols+1)+k] != p.gram[k*(cols+1)+j] {
				t.Fatalf("Gram not exactly symmetric at %d,%d", j, k)
			}
		}
	}
	return p
}

// referenceProducts computes the same products by naive loops over the
// rows of d (read through Row), with [X 1] made explicit.
func referenceProducts(d *Dataset, beta []float64, beta0 float64, r []float64) products {
	n, cols := d.NumInstances(), d.NumFeatures()
	d1 := cols + 1
	x1 := make([]float64, n*d1) // [X 1]
	for i := range n {
		d.Row(x1[i*d1:i*d1+cols], i)
		x1[i*d1+cols] = 1
	}
	b1 := append(append([]float64(nil), beta...), beta0)
	p := products{
		t: make([]float64, n), tAbs: make([]float64, n),
		g: make([]float64, d1), gAbs: make([]float64, d1),
		gram: make([]float64, d1*d1), gAbs2: make([]float64, d1*d1),
	}
	for i := range n {
		for j := range d1 {
			p.t[i] += x1[i*d1+j] * b1[j]
			p.tAbs[i] += math.Abs(x1[i*d1+j] * b1[j])
			p.g[j] += x1[i*d1+j] * r[i]
			p.gAbs[j] += math.Abs(x1[i*d1+j] * r[i])
			for k := range d1 {
				p.gram[j*d1+k] += x1[i*d1+j] * x1[i*d1+k]
				p.gAbs2[j*d1+k] += math.Abs(x1[i*d1+j] * x1[i*d1+k])
			}
		}
	}
	return p
}

// compareProducts checks got against want entry by entry within
// 2*gamma(terms)*sum|terms| from ref: both are sums of the same terms, each
// within gamma of the exact value.
func compareProducts(t *testing.T, what string, got, want, ref products, cols, n int) {
	t.Helper()
	for _, c := range []struct {
		name           string
		got, want, abs []float64
		terms          int
	}{
		{"MulVec", got.t, want.t, ref.tAbs, cols + 1},
		{"MulTransVec", got.g, want.g, ref.gAbs, n},
		{"Gram", got.gram, want.gram, ref.gAbs2, n},
	} {
		for i := range c.got {
			if bound := 2 * gamma(c.terms) * c.abs[i]; math.Abs(c.got[i]-c.want[i]) > bound {
				t.Fatalf("%s %s[%d]: got %v want %v (bound %g)", what, c.name, i, c.got[i], c.want[i], bound)
			}
		}
	}
}

// checkProducts compares the products of d with the naive loops.
func checkProducts(t *testing.T, d *Dataset, rng *rand.Rand) {
	t.Helper()
	beta, beta0, r := randVec(rng, d.NumFeatures()), rng.NormFloat64(), randVec(rng, d.NumInstances())
	ref := referenceProducts(d, beta, beta0, r)
	compareProducts(t, "vs naive", computeProducts(t, d, beta, beta0, r), ref, ref, d.NumFeatures(), d.NumInstances())
}

// forEachImpl runs f once on each vec implementation this CPU can run.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	vectest.ForEach(t, func(t *testing.T, _ vec.Kernels) { f(t) })
}

func TestProductsDenseSparseNaive(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, cols := range []int{1, 3, 7, 17, 64} {
			for _, density := range []float64{0, 0.05, 0.3, 1} {
				d := randomDataset(t, rng, 9, 5, cols, density)
				for _, s := range []Storage{Dense, Sparse} {
					t.Run(fmt.Sprintf("cols=%d/density=%v/%v", cols, density, s), func(t *testing.T) {
						dd := convert(t, d, s)
						if dd.IsSparse() != (s == Sparse) {
							t.Fatalf("Convert(%v) gave sparse=%v", s, dd.IsSparse())
						}
						checkProducts(t, dd, rng)
					})
				}
			}
		}
	})
}

// TestSubsetProducts checks products on subsets (shared storage, several
// runs, repeated bags) against a materialized copy and the naive loops.
func TestSubsetProducts(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		base := randomDataset(t, rng, 40, 6, 13, 0.4)
		for _, s := range []Storage{Dense, Sparse} {
			d := convert(t, base, s)
			for trial := range 5 {
				var bags []int
				for range 1 + rng.IntN(30) {
					bags = append(bags, rng.IntN(d.NumBags()))
				}
				if trial == 0 { // adjacent bags merge into one run
					bags = []int{3, 4, 5, 9, 10}
				}
				sub, err := d.Subset(bags)
				if err != nil {
					t.Fatal(err)
				}
				checkProducts(t, sub, rng)
				mat := sub.Materialize()
				if len(mat.runs) != 1 || mat.m.rows != sub.NumInstances() {
					t.Fatal("Materialize did not compact the storage")
				}
				for k, b := range bags {
					if sub.Labels()[k] != d.Labels()[b] || sub.BagID(k) != d.BagID(b) {
						t.Fatalf("bag %d: label or id not carried", k)
					}
					s0, e0 := sub.BagRange(k)
					b0, b1 := d.BagRange(b)
					if e0-s0 != b1-b0 {
						t.Fatalf("bag %d: size %d, want %d", k, e0-s0, b1-b0)
					}
					row, want := make([]float64, d.NumFeatures()), make([]float64, d.NumFeatures())
					for i := range e0 - s0 {
						sub.Row(row, s0+i)
						d.Row(want, b0+i)
						if !slices.Equal(row, want) {
							t.Fatalf("bag %d instance %d: row differs", k, i)
						}
						if sub.InstanceID(s0+i) != d.InstanceID(b0+i) || mat.InstanceID(s0+i) != d.InstanceID(b0+i) {
							t.Fatalf("bag %d instance %d: id differs", k, i)
						}
					}
				}
				if again := mat.Materialize(); again != mat {
					t.Fatal("Materialize of a compact dataset copied it")
				}
				beta, r := randVec(rng, d.NumFeatures()), randVec(rng, sub.NumInstances())
				ref := referenceProducts(sub, beta, 0.5, r)
				compareProducts(t, "subset vs copy", computeProducts(t, sub, beta, 0.5, r),
					computeProducts(t, mat, beta, 0.5, r), ref, d.NumFeatures(), sub.NumInstances())
			}
		}
	})
}

func TestSubsetErrors(t *testing.T) {
	d := randomDataset(t, rand.New(rand.NewPCG(5, 6)), 4, 2, 3, 1)
	for _, bags := range [][]int{nil, {}, {4}, {-1}, {0, 7}} {
		if s, err := d.Subset(bags); err == nil || s != nil {
			t.Errorf("Subset(%v): want an error", bags)
		}
	}
}

func TestProductsPanicOnBadLengths(t *testing.T) {
	d := randomDataset(t, rand.New(rand.NewPCG(5, 6)), 4, 2, 3, 1)
	n, cols := d.NumInstances(), d.NumFeatures()
	for name, f := range map[string]func(){
		"MulVec t":         func() { d.MulVec(make([]float64, n+1), make([]float64, cols), 0) },
		"MulVec beta":      func() { d.MulVec(make([]float64, n), make([]float64, cols+1), 0) },
		"MulTransVec g":    func() { d.MulTransVec(make([]float64, cols+2), make([]float64, n)) },
		"MulTransVec r":    func() { d.MulTransVec(make([]float64, cols), make([]float64, n-1)) },
		"Gram":             func() { d.Gram(make([]float64, cols*cols)) },
		"InstanceID range": func() { d.InstanceID(n) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestProductsNoAlloc checks the products allocate nothing, on dense,
// sparse and subset data.
func TestProductsNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	base := randomDataset(t, rng, 30, 5, 20, 0.3)
	for _, s := range []Storage{Dense, Sparse} {
		full := convert(t, base, s)
		sub, _ := full.Subset([]int{5, 1, 2, 3, 20, 20})
		for _, d := range []*Dataset{full, sub} {
			n, cols := d.NumInstances(), d.NumFeatures()
			tv, beta, r := make([]float64, n), randVec(rng, cols), randVec(rng, n)
			g, gram := make([]float64, cols+1), make([]float64, (cols+1)*(cols+1))
			allocs := testing.AllocsPerRun(20, func() {
				d.MulVec(tv, beta, 1)
				d.MulTransVec(g, r)
				d.MulTransVec(g[:cols], r)
				d.Gram(gram)
			})
			if allocs != 0 {
				t.Errorf("%v (runs %d): %v allocations per run", s, len(d.runs), allocs)
			}
		}
	}
}

// TestSparsePathSkipsZeros documents the special case of the product doc:
// an infinite coefficient meets stored zeros only on the dense path.
func TestSparsePathSkipsZeros(t *testing.T) {
	d, err := NewDense([]float64{1, 0, 0, 2}, 2, []int{0, 2}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	beta := []float64{1, math.Inf(1)}
	td, ts := make([]float64, 2), make([]float64, 2)
	convert(t, d, Dense).MulVec(td, beta, 0)
	convert(t, d, Sparse).MulVec(ts, beta, 0)
	if !math.IsNaN(td[0]) || ts[0] != 1 || !math.IsInf(td[1], 1) || !math.IsInf(ts[1], 1) {
		t.Fatalf("dense %v, sparse %v", td, ts)
	}
}

// BenchmarkProductsByDensity measures one MulVec plus one MulTransVec on
// n x 234 data of varying density in both storages, for n = 1500 (fits in
// cache) and n = 20000 (37 MB dense, memory-bound); it sets
// DefaultSparseDensity (compare ns/entry of dense and sparse per density).
func BenchmarkProductsByDensity(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, nb := range []int{300, 4000} {
		for _, density := range []float64{0.005, 0.05, 0.1, 0.2, 0.3, 0.5} {
			base := randomDataset(b, rng, nb, 9, 234, density)
			for _, s := range []Storage{Dense, Sparse} {
				d := convert(b, base, s)
				b.Run(fmt.Sprintf("n=%d/density=%v/%v", d.NumInstances(), density, s), func(b *testing.B) {
					n, cols := d.NumInstances(), d.NumFeatures()
					tv, beta, g := make([]float64, n), randVec(rng, cols), make([]float64, cols+1)
					b.ReportAllocs()
					for b.Loop() {
						d.MulVec(tv, beta, 0.1)
						d.MulTransVec(g, tv)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n*cols), "ns/entry")
				})
			}
		}
	}
}

// BenchmarkSubsetProducts compares the products on a 90% subset (shared
// storage, one run per block of adjacent bags) with the same products on a
// materialized copy.
func BenchmarkSubsetProducts(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		name    string
		density float64
		s       Storage
	}{{"fox-like dense", 0.62, Dense}, {"vaccine-like sparse", 0.005, Sparse}} {
		base := convert(b, randomDataset(b, rng, 1500, 12, 234, c.density), c.s)
		var bags []int
		for k := range base.NumBags() {
			if rng.Float64() < 0.9 {
				bags = append(bags, k)
			}
		}
		sub, _ := base.Subset(bags)
		for _, v := range []struct {
			name string
			d    *Dataset
		}{{"subset", sub}, {"copy", sub.Materialize()}} {
			b.Run(c.name+"/"+v.name, func(b *testing.B) {
				d := v.d
				n, cols := d.NumInstances(), d.NumFeatures()
				tv, beta, g := make([]float64, n), randVec(rng, cols), make([]float64, cols+1)
				b.ReportAllocs()
				for b.Loop() {
					d.MulVec(tv, beta, 0.1)
					d.MulTransVec(g, tv)
				}
			})
		}
	}
}

// BenchmarkGram measures the (D+1)^2 Gram matrix on fox-sized dense and
// vaccine-sized sparse random data.
func BenchmarkGram(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		name       string
		nb, maxBag int
		cols       int
		density    float64
		storage    Storage
	}{{"fox-like", 200, 12, 230, 0.62, Dense}, {"vaccine-like", 1572, 51, 234, 0.005, Sparse}} {
		d := convert(b, randomDataset(b, rng, c.nb, c.maxBag, c.cols, c.density), c.storage)
		b.Run(c.name, func(b *testing.B) {
			gram := make([]float64, (c.cols+1)*(c.cols+1))
			b.ReportAllocs()
			for b.Loop() {
				d.Gram(gram)
			}
		})
	}
}

// TestGramChecksContext: Dataset.gram and xview.gram return ctx's error
// once gramCheckCells units of work have passed, on both storage kinds
// (200 rows of 64 values: about 2000 units a row).
func TestGramChecksContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, cols = 200, 64
	x := make([]float64, n*cols)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	ptr, y := []int{0, n / 2, n}, []float64{0, 1}
	dn, err := NewDense(x, cols, ptr, y)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := make([]float64, (cols+1)*(cols+1))
	for _, d := range []*Dataset{dn, convert(t, dn, Sparse)} {
		assert.ErrorIs(t, d.gram(ctx, dst), context.Canceled, "sparse %v", d.IsSparse())
		ones := make([]float64, cols)
		for j := range ones {
			ones[j] = 1
		}
		v := xview{d: d, scale: ones}
		assert.ErrorIs(t, v.gram(ctx, dst), context.Canceled, "view, sparse %v", d.IsSparse())
		require.NoError(t, d.gram(context.Background(), dst))
	}
}
