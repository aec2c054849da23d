package onebit_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/neadmm/neadmm/onebit"
	"github.com/neadmm/neadmm/vec"
)

// productTimes returns the median time of one Phi x and of one Phi^T r for
// an m x n matrix, each over 7 batches of 20 calls.
func productTimes(phi []float64, m, n int) (mul, trans time.Duration) {
	x, r := make([]float64, n), make([]float64, m)
	for i := range x {
		x[i] = 1 / float64(i+1)
	}
	med := func(f func()) time.Duration {
		var ts []time.Duration
		for range 7 {
			t0 := time.Now()
			for range 20 {
				f()
			}
			ts = append(ts, time.Since(t0)/20)
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		return ts[3]
	}
	mul = med(func() { vec.MulVec(r, phi, m, n, x) })
	trans = med(func() { vec.MulTransVec(x, phi, m, n, r) })
	return mul, trans
}

// BenchmarkSolve is one solve with DefaultOptions at N = M = 1000 (K = 10).
// Besides ns/op it reports the products per solve and splits the time
// between the products (their count times their time measured apart) and
// everything else.
func BenchmarkSolve(b *testing.B) {
	const n = 1000
	in := mustGenerate(b, n, n, 10, 1)
	p := mustProblem(b, in)
	var s onebit.Solver
	x := make([]float64, n)
	ctx := context.Background()
	opt := onebit.DefaultOptions()
	res, _ := s.Solve(ctx, p, x, opt) // size the workspace
	mul, trans := productTimes(in.Phi, n, n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, _ = s.Solve(ctx, p, x, opt)
	}
	b.StopTimer()
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	prod := float64(res.Products-res.TransProducts)*float64(mul.Nanoseconds()) + float64(res.TransProducts)*float64(trans.Nanoseconds())
	b.ReportMetric(float64(res.Products), "products/op")
	b.ReportMetric(float64(res.InnerIterations), "fista-steps/op")
	b.ReportMetric(prod/1e6, "product-ms/op")
	b.ReportMetric((perOp-prod)/1e6, "other-ms/op")
	b.ReportMetric(float64(mul.Nanoseconds())/1e3, "µs/Phi·x")
	b.ReportMetric(float64(trans.Nanoseconds())/1e3, "µs/PhiT·r")
}

// BenchmarkBIHT is BIHT told K = 10 at N = M = 1000, for scale: the
// package function, which allocates its vectors per call, and
// Solver.BIHT, which reuses the Solver's (0 allocs/op).
func BenchmarkBIHT(b *testing.B) {
	const n = 1000
	in := mustGenerate(b, n, n, 10, 1)
	p := mustProblem(b, in)
	x := make([]float64, n)
	ctx := context.Background()
	o := onebit.BIHTOptions{K: 10, MaxIter: onebit.DefaultBIHTMaxIter}
	b.Run("func", func(b *testing.B) {
		b.ReportAllocs()
		var res onebit.BIHTResult
		for b.Loop() {
			res, _ = onebit.BIHT(ctx, p, x, o)
		}
		b.ReportMetric(float64(res.Products), "products/op")
	})
	b.Run("Solver", func(b *testing.B) {
		var s onebit.Solver
		_, _ = s.BIHT(ctx, p, x, o) // size the workspace
		b.ReportAllocs()
		var res onebit.BIHTResult
		for b.Loop() {
			res, _ = s.BIHT(ctx, p, x, o)
		}
		b.ReportMetric(float64(res.Products), "products/op")
	})
}

// BenchmarkRecover is the recovery pipeline at N = 1000, M = 500, K = 10.
func BenchmarkRecover(b *testing.B) {
	in := mustGenerate(b, 500, 1000, 10, 1)
	p := mustProblem(b, in)
	var s onebit.Solver
	x := make([]float64, 1000)
	b.ReportAllocs()
	var res onebit.RecoverResult
	for b.Loop() {
		res, _ = s.Recover(context.Background(), p, x, onebit.DefaultRecoverOptions())
	}
	b.ReportMetric(float64(res.Products), "products/op")
}

// decodeSizes are the (M, N) of the decode benchmarks.
var decodeSizes = [][2]int{{500, 1000}, {1000, 2000}}

// decodeSigns returns the problem of Generate's instance (m, n, K = 10)
// and 4 sign vectors on its Phi: its own and those of 3 other
// instances' signals.
func decodeSigns(b *testing.B, m, n int) (*onebit.Problem, [][]float64) {
	in := mustGenerate(b, m, n, 10, 1)
	ys := [][]float64{in.Y}
	for seed := uint64(2); seed <= 4; seed++ {
		y := make([]float64, m)
		vec.MulVec(y, in.Phi, m, n, mustGenerate(b, 1, n, 10, seed).X)
		for i, v := range y {
			y[i] = 1
			if v < 0 {
				y[i] = -1
			}
		}
		ys = append(ys, y)
	}
	return mustProblem(b, in), ys
}

// BenchmarkProblem is NewProblem's cost (one pass over Phi, its
// finiteness check) beside WithSigns's (a copy of the signs) at the
// decode sizes.
func BenchmarkProblem(b *testing.B) {
	for _, sz := range decodeSizes {
		m, n := sz[0], sz[1]
		p, ys := decodeSigns(b, m, n)
		phi := p.Phi()
		b.Run(fmt.Sprintf("NewProblem/M=%d_N=%d", m, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := onebit.NewProblem(phi, m, n, ys[1]); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("WithSigns/M=%d_N=%d", m, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.WithSigns(ys[1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode is one request of a decoder on a fixed Phi: a Problem
// for the request's signs (WithSigns of the Problem made once, or a new
// NewProblem) and Recover with a reused Solver, cycling through 4 sign
// vectors (after one untimed pass over them, which sizes the Solver:
// allocs/op is then the Problem's).
func BenchmarkDecode(b *testing.B) {
	ctx := context.Background()
	for _, sz := range decodeSizes {
		m, n := sz[0], sz[1]
		base, ys := decodeSigns(b, m, n)
		for _, how := range []string{"WithSigns", "NewProblem"} {
			b.Run(fmt.Sprintf("%s+Recover/M=%d_N=%d", how, m, n), func(b *testing.B) {
				var s onebit.Solver
				x := make([]float64, n)
				opt := onebit.DefaultRecoverOptions()
				decode := func(y []float64) {
					var p *onebit.Problem
					var err error
					if how == "WithSigns" {
						p, err = base.WithSigns(y)
					} else {
						p, err = onebit.NewProblem(base.Phi(), m, n, y)
					}
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.Recover(ctx, p, x, opt); err != nil {
						b.Fatal(err)
					}
				}
				for _, y := range ys { // size the Solver for every input
					decode(y)
				}
				i := 0
				b.ReportAllocs()
				for b.Loop() {
					decode(ys[i%len(ys)])
					i++
				}
			})
		}
	}
}
