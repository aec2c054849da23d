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
// SoftThreshold, x once for Nrm2 (the kernel reads it twice, from cache).

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

func runBench(b *testing.B, bytesPerElem int, body func(name string, x, y []float64) func()) {
	defer testhook.VecGeneric(false)
	for _, n := range benchSizes {
		x, y := benchData(n)
		for _, im := range benchImpls {
			b.Run(fmt.Sprintf("n=%d/%s", n, im.name), func(b *testing.B) {
				testhook.VecGeneric(im.generic)
				f := body(im.name, x, y)
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

func BenchmarkSoftThreshold(b *testing.B) {
	runBench(b, 16, func(name string, x, y []float64) func() {
		// x is N(0,1) and t = 0.5: the branchy loop mispredicts often,
		// as it would on real iterates.
		if name == "naive" {
			return func() { naiveSoftThreshold(y, x, 0.5) }
		}
		return func() { SoftThreshold(y, x, 0.5) }
	})
}

func BenchmarkNrm2(b *testing.B) {
	runBench(b, 8, func(name string, x, y []float64) func() {
		if name == "naive" {
			return func() { sink += naiveNrm2(x) }
		}
		return func() { sink += Nrm2(x) }
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
