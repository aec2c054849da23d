package vec_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/neadmm/neadmm/vec"
)

// Benchmarks: each kernel at every size on every implementation this CPU
// can run ("avx512", "avx2", "neon", "generic": vec.Kernels methods, which
// the package functions are) and as the plain one-line loop a user would
// write ("naive"), all in one run, so the speed-ups are read off directly. SetBytes counts the bytes each call must move: both inputs for
// Dot, x read plus y read and written for Axpy, x read plus dst written for
// SoftThreshold, x once for Nrm2 (the kernel reads it twice, from cache) and
// Asum, x read and written for Scal, x and y read plus dst written for
// AddScaledTo and Sub. Asum and Scal are the same Go code on every
// implementation, so they are timed once ("vec").

// benchSizes run from 8, where the call and its argument checks are most
// of the cost, to 1 Mi elements (16 MiB, beyond the caches).
var benchSizes = []int{8, 16, 64, 256, 1024, 4096, 65536, 1 << 20}

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

// variants returns the implementations to time and "naive".
func variants() []string {
	var names []string
	for _, k := range vec.Implementations() {
		names = append(names, k.Name())
	}
	return append(names, "naive")
}

// kernels returns the kernel set of a variant ("naive" gets the zero
// Kernels, which its body does not use).
func kernels(name string) vec.Kernels {
	k, _ := vec.Lookup(name)
	return k
}

func benchData(n int) (x, y []float64) {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	x, y = make([]float64, n), make([]float64, n)
	fillNormal(r, x)
	fillNormal(r, y)
	return x, y
}

// runBench runs body's function for every size and variant (body returns
// nil for a variant that does not apply).
func runBench(b *testing.B, bytesPerElem int, body func(name string, k vec.Kernels, x, y []float64) func()) {
	for _, n := range benchSizes {
		x, y := benchData(n)
		for _, name := range variants() {
			f := body(name, kernels(name), x, y)
			if f == nil {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/%s", n, name), func(b *testing.B) {
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
	runBench(b, 16, func(name string, k vec.Kernels, x, y []float64) func() {
		if name == "naive" {
			return func() { sink += naiveDot(x, y) }
		}
		return func() { sink += k.Dot(x, y) }
	})
}

func BenchmarkAxpy(b *testing.B) {
	runBench(b, 24, func(name string, k vec.Kernels, x, y []float64) func() {
		// alpha is tiny so y stays bounded over billions of calls.
		if name == "naive" {
			return func() { naiveAxpy(1e-9, x, y) }
		}
		return func() { k.Axpy(1e-9, x, y) }
	})
}

// BenchmarkSoftThreshold calls each variant on the same N(0,1) data every
// time, t = 0.5. The branchy loop's branches then repeat with a period of n
// elements, and a modern predictor learns that period for n up to a few
// thousand: the naive timings here are a best case that real iterates, which
// change from call to call, do not get. BenchmarkSoftThresholdFresh is that
// case.
func BenchmarkSoftThreshold(b *testing.B) {
	runBench(b, 16, func(name string, k vec.Kernels, x, y []float64) func() {
		if name == "naive" {
			return func() { naiveSoftThreshold(y, x, 0.5) }
		}
		return func() { k.SoftThreshold(y, x, 0.5) }
	})
}

// BenchmarkSoftThresholdFresh gives each call the next n elements of a
// 2 MiB pool of N(0,1) values (t = 0.5), so the branchy loop sees data it
// has not seen for at least 2^18 elements, as on a solver's iterates; the
// pool stays in L3 cache, for every variant alike.
func BenchmarkSoftThresholdFresh(b *testing.B) {
	const pool = 1 << 18
	p, _ := benchData(pool)
	for _, n := range benchSizes {
		if n > pool/4 {
			continue
		}
		dst := make([]float64, n)
		for _, name := range variants() {
			f := kernels(name).SoftThreshold
			if name == "naive" {
				f = naiveSoftThreshold
			}
			b.Run(fmt.Sprintf("n=%d/%s", n, name), func(b *testing.B) {
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
	runBench(b, 8, func(name string, k vec.Kernels, x, y []float64) func() {
		if name == "naive" {
			return func() { sink += naiveNrm2(x) }
		}
		return func() { sink += k.Nrm2(x) }
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
	runBench(b, 8, func(name string, k vec.Kernels, x, y []float64) func() {
		switch name {
		case "naive":
			return func() { sink += naiveAsum(x) }
		case vec.Impl():
			return func() { sink += vec.Asum(x) }
		}
		return nil // the same code on every implementation
	})
}

func BenchmarkScal(b *testing.B) {
	runBench(b, 16, func(name string, k vec.Kernels, x, y []float64) func() {
		// alpha = -1 keeps y bounded (and normal) over any number of calls.
		switch name {
		case "naive":
			return func() { naiveScal(-1, y) }
		case vec.Impl():
			return func() { vec.Scal(-1, y) }
		}
		return nil // the same code on every implementation
	})
}

func BenchmarkAddScaledTo(b *testing.B) {
	runBench(b, 24, func(name string, k vec.Kernels, x, y []float64) func() {
		dst := make([]float64, len(x))
		if name == "naive" {
			return func() { naiveAddScaledTo(dst, y, 0.5, x) }
		}
		return func() { k.AddScaledTo(dst, y, 0.5, x) }
	})
}

func BenchmarkSub(b *testing.B) {
	runBench(b, 24, func(name string, k vec.Kernels, x, y []float64) func() {
		dst := make([]float64, len(x))
		if name == "naive" {
			return func() { naiveSub(dst, x, y) }
		}
		return func() { k.Sub(dst, x, y) }
	})
}

// Matrix-vector products at the solvers' shapes: 1000 x 1000 (one 1-bit CS
// product, the unit of cost), 200 x 1000 (a FISTA lasso), 230 x 230 (the
// multi-instance Gram matrix) and 4000 x 4000 (a matrix far larger than the
// caches); and 8 x 8, 16 x 16 and 64 x 64, where the call and its argument
// checks are a visible part of the cost. SetBytes counts the matrix only.
var matShapes = []struct{ rows, cols int }{
	{8, 8}, {16, 16}, {64, 64}, {1000, 1000}, {200, 1000}, {230, 230}, {4000, 4000},
}

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

// benchMat times body's function on every shape and variant.
func benchMat(b *testing.B, body func(name string, k vec.Kernels, a []float64, rows, cols int) func()) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range matShapes {
		a := make([]float64, s.rows*s.cols)
		fillNormal(r, a)
		for _, name := range variants() {
			f := body(name, kernels(name), a, s.rows, s.cols)
			b.Run(fmt.Sprintf("%dx%d/%s", s.rows, s.cols, name), func(b *testing.B) {
				b.SetBytes(int64(8 * len(a)))
				b.ReportAllocs()
				for b.Loop() {
					f()
				}
			})
		}
	}
}

func BenchmarkMulVec(b *testing.B) {
	benchMat(b, func(name string, k vec.Kernels, a []float64, rows, cols int) func() {
		x, dst := make([]float64, cols), make([]float64, rows)
		fillNormal(rand.New(rand.NewPCG(3, 4)), x)
		if name == "naive" {
			return func() { naiveMulVec(dst, a, rows, cols, x) }
		}
		return func() { k.MulVec(dst, a, rows, cols, x) }
	})
}

func BenchmarkMulTransVec(b *testing.B) {
	benchMat(b, func(name string, k vec.Kernels, a []float64, rows, cols int) func() {
		x, dst := make([]float64, rows), make([]float64, cols)
		fillNormal(rand.New(rand.NewPCG(3, 4)), x)
		if name == "naive" {
			return func() { naiveMulTransVec(dst, a, rows, cols, x) }
		}
		return func() { k.MulTransVec(dst, a, rows, cols, x) }
	})
}

// sweepPhi is the gradient map of 1-bit CS's one-sided quadratic loss,
// min(y_i (Ax)_i, 0)^2/2 with y_i = ±1: w_i = y_i min(y_i (Ax)_i, 0).
func sweepPhi(y []float64) func(i int, v float64) float64 {
	return func(i int, v float64) float64 { return y[i] * min(y[i]*v, 0) }
}

// BenchmarkGradSweep times GradSweep ("<impl>") against what it replaces,
// MulVec, the map and MulTransVec ("<impl>-two"), with the 1-bit CS map, and
// the plain loops ("naive"); "<impl>-read" is one streaming read of A (Nrm2
// over A), the time of a GradSweep that cost no more than reading A once,
// so "<impl>-two" over it is the ceiling of the speedup. SetBytes counts
// the matrix once.
func BenchmarkGradSweep(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range matShapes {
		a := make([]float64, s.rows*s.cols)
		fillNormal(r, a)
		x, y := make([]float64, s.cols), make([]float64, s.rows)
		fillNormal(r, x)
		for i := range y {
			y[i] = float64(1 - 2*r.IntN(2))
		}
		ax, g, w := make([]float64, s.rows), make([]float64, s.cols), make([]float64, s.rows)
		phi := sweepPhi(y)
		var fs []func()
		var names []string
		for _, name := range variants() {
			k := kernels(name)
			switch name {
			case "naive":
				names = append(names, name)
				fs = append(fs, func() {
					naiveMulVec(ax, a, s.rows, s.cols, x)
					for i, v := range ax {
						w[i] = phi(i, v)
					}
					naiveMulTransVec(g, a, s.rows, s.cols, w)
				})
			default:
				names = append(names, name, name+"-two", name+"-read")
				fs = append(fs, func() { k.GradSweep(ax, g, a, s.cols, x, phi) }, func() {
					k.MulVec(ax, a, s.rows, s.cols, x)
					for i, v := range ax {
						w[i] = phi(i, v)
					}
					k.MulTransVec(g, a, s.rows, s.cols, w)
				}, func() { sink += k.Nrm2(a) })
			}
		}
		for i, f := range fs {
			b.Run(fmt.Sprintf("%dx%d/%s", s.rows, s.cols, names[i]), func(b *testing.B) {
				b.SetBytes(int64(8 * len(a)))
				b.ReportAllocs()
				for b.Loop() {
					f()
				}
			})
		}
	}
}
