package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/neadmm/neadmm/internal/testhook"
)

// Benchmarks: each kernel at every size, three ways in one run: the kernel
// as dispatched ("vec"), the generic Go kernel ("generic") and the plain
// one-line loop a user would write ("naive"), so the speed-up is read off
// directly. SetBytes counts the bytes each call must move: both inputs for
// Dot, x read plus y read and written for Axpy, x read plus dst written for
// SoftThreshold, x once for Nrm2 (the kernel reads it twice, from cache) and
// Asum, x read and written for Scal, x and y read plus dst written for
// AddScaledTo and Sub. Asum and Scal are the same Go code on every path, so
// they have no separate "generic" variant.

var benchSizes = []int{16, 256, 1024, 4096, 65536, 1 << 20}

var sink float64

func naiveDot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func naiveAxpy(alpha float64, x, y []float64) {
	for i := range x {
		y[i] += alpha * x[i]
	}
}

func naiveSoftThreshold(dst, x []float64, t float64) {
	for i, v := range x {
		switch {
		case v > t:
			dst[i] = v - t
		case v < -t:
			dst[i] = v + t
		default:
			dst[i] = 0
		}
	}
}

// naiveNrm2 is the plain loop, which overflows and underflows.
func naiveNrm2(x []float64) float64 {
	return math.Sqrt(naiveDot(x, x))
}

// benchImpls are the variants; generic says which kernels vec runs.
var benchImpls = []struct {
	name    string
	generic bool
}{{"vec", false}, {"generic", true}, {"naive", false}}

func benchData(n int) (x, y []float64) {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	x, y = make([]float64, n), make([]float64, n)
	fillNormal(r, x)
	fillNormal(r, y)
	return x, y
}

// runBench runs body's function for every size and variant (body returns
// nil for a variant that does not apply).
func runBench(b *testing.B, bytesPerElem int, body func(name string, x, y []float64) func()) {
	defer testhook.VecGeneric(false)
	for _, n := range benchSizes {
		x, y := benchData(n)
		for _, im := range benchImpls {
			testhook.VecGeneric(im.generic)
			f := body(im.name, x, y)
			if f == nil {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/%s", n, im.name), func(b *testing.B) {
				testhook.VecGeneric(im.generic)
				b.SetBytes(int64(bytesPerElem * n))
				b.ReportAllocs()
				for b.Loop() {
					f()
				}
			})
		}
	}
}

func BenchmarkDot(b *testing.B) {
	runBench(b, 16, func(name string, x, y []float64) func() {
		if name == "naive" {
			return func() { sink += naiveDot(x, y) }
		}
		return func() { sink += Dot(x, y) }
	})
}

func BenchmarkAxpy(b *testing.B) {
	runBench(b, 24, func(name string, x, y []float64) func() {
		// alpha is tiny so y stays bounded over billions of calls.
		if name == "naive" {
			return func() { naiveAxpy(1e-9, x, y) }
		}
		return func() { Axpy(1e-9, x, y) }
	})
}

// BenchmarkSoftThreshold calls each variant on the same N(0,1) data every
// time, t = 0.5. The branchy loop's branches then repeat with a period of n
// elements, and a modern predictor learns that period for n up to a few
// thousand: the naive timings here are a best case that real iterates, which
// change from call to call, do not get. BenchmarkSoftThresholdFresh is that
// case.
func BenchmarkSoftThreshold(b *testing.B) {
	runBench(b, 16, func(name string, x, y []float64) func() {
		if name == "naive" {
			return func() { naiveSoftThreshold(y, x, 0.5) }
		}
		return func() { SoftThreshold(y, x, 0.5) }
	})
}

// BenchmarkSoftThresholdFresh gives each call the next n elements of a
// 2 MiB pool of N(0,1) values (t = 0.5), so the branchy loop sees data it
// has not seen for at least 2^18 elements, as on a solver's iterates; the
// pool stays in L3 cache, for every variant alike.
func BenchmarkSoftThresholdFresh(b *testing.B) {
	defer testhook.VecGeneric(false)
	const pool = 1 << 18
	p, _ := benchData(pool)
	for _, n := range benchSizes {
		if n > pool/4 {
			continue
		}
		dst := make([]float64, n)
		for _, im := range benchImpls {
			b.Run(fmt.Sprintf("n=%d/%s", n, im.name), func(b *testing.B) {
				testhook.VecGeneric(im.generic)
				f := SoftThreshold
				if im.name == "naive" {
					f = naiveSoftThreshold
				}
				b.SetBytes(int64(16 * n))
				b.ReportAllocs()
				off := 0
				for b.Loop() {
					f(dst, p[off:off+n], 0.5)
					if off += n; off+n > pool {
						off = 0
					}
				}
			})
		}
	}
}

func BenchmarkNrm2(b *testing.B) {
	runBench(b, 8, func(name string, x, y []float64) func() {
		if name == "naive" {
			return func() { sink += naiveNrm2(x) }
		}
		return func() { sink += Nrm2(x) }
	})
}

func naiveAsum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += math.Abs(v)
	}
	return s
}

func naiveScal(alpha float64, x []float64) {
	for i := range x {
		x[i] *= alpha
	}
}

func naiveAddScaledTo(dst, y []float64, alpha float64, x []float64) {
	for i := range dst {
		dst[i] = y[i] + alpha*x[i]
	}
}

func naiveSub(dst, x, y []float64) {
	for i := range dst {
		dst[i] = x[i] - y[i]
	}
}

func BenchmarkAsum(b *testing.B) {
	runBench(b, 8, func(name string, x, y []float64) func() {
		switch name {
		case "naive":
			return func() { sink += naiveAsum(x) }
		case "generic":
			return nil // Asum does not use the kernels
		}
		return func() { sink += Asum(x) }
	})
}

func BenchmarkScal(b *testing.B) {
	runBench(b, 16, func(name string, x, y []float64) func() {
		// alpha = -1 keeps y bounded (and normal) over any number of calls.
		switch name {
		case "naive":
			return func() { naiveScal(-1, y) }
		case "generic":
			return nil // Scal does not use the kernels
		}
		return func() { Scal(-1, y) }
	})
}

func BenchmarkAddScaledTo(b *testing.B) {
	runBench(b, 24, func(name string, x, y []float64) func() {
		dst := make([]float64, len(x))
		if name == "naive" {
			return func() { naiveAddScaledTo(dst, y, 0.5, x) }
		}
		return func() { AddScaledTo(dst, y, 0.5, x) }
	})
}

func BenchmarkSub(b *testing.B) {
	runBench(b, 24, func(name string, x, y []float64) func() {
		dst := make([]float64, len(x))
		if name == "naive" {
			return func() { naiveSub(dst, x, y) }
		}
		return func() { Sub(dst, x, y) }
	})
}

// Matrix-vector products at the solvers' shapes: 1000 x 1000 (one 1-bit CS
// product, the unit of cost), 200 x 1000 (a FISTA lasso) and 230 x 230 (the
// multi-instance Gram matrix). SetBytes counts the matrix only.
var matShapes = []struct{ rows, cols int }{{1000, 1000}, {200, 1000}, {230, 230}}

func naiveMulVec(dst, a []float64, rows, cols int, x []float64) {
	for i := range dst {
		s := 0.0
		for j, v := range a[i*cols : (i+1)*cols] {
			s += v * x[j]
		}
		dst[i] = s
	}
}

func naiveMulTransVec(dst, a []float64, rows, cols int, x []float64) {
	clear(dst)
	for i, xi := range x {
		for j, v := range a[i*cols : (i+1)*cols] {
			dst[j] += v * xi
		}
	}
}

func benchMat(b *testing.B, trans bool) {
	defer testhook.VecGeneric(false)
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range matShapes {
		a := make([]float64, s.rows*s.cols)
		fillNormal(r, a)
		n, k := s.rows, s.cols
		if trans {
			n, k = k, n
		}
		x, dst := make([]float64, k), make([]float64, n)
		fillNormal(r, x)
		for _, im := range benchImpls {
			b.Run(fmt.Sprintf("%dx%d/%s", s.rows, s.cols, im.name), func(b *testing.B) {
				testhook.VecGeneric(im.generic)
				f := func() { MulVec(dst, a, s.rows, s.cols, x) }
				switch {
				case trans && im.name == "naive":
					f = func() { naiveMulTransVec(dst, a, s.rows, s.cols, x) }
				case trans:
					f = func() { MulTransVec(dst, a, s.rows, s.cols, x) }
				case im.name == "naive":
					f = func() { naiveMulVec(dst, a, s.rows, s.cols, x) }
				}
				b.SetBytes(int64(8 * len(a)))
				b.ReportAllocs()
				for b.Loop() {
					f()
				}
			})
		}
	}
}

func BenchmarkMulVec(b *testing.B)      { benchMat(b, false) }
func BenchmarkMulTransVec(b *testing.B) { benchMat(b, true) }
