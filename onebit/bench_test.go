package onebit_test

import (
	"context"
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

// BenchmarkBIHT is BIHT told K = 10 at N = M = 1000, for scale.
func BenchmarkBIHT(b *testing.B) {
	const n = 1000
	in := mustGenerate(b, n, n, 10, 1)
	p := mustProblem(b, in)
	x := make([]float64, n)
	b.ReportAllocs()
	var res onebit.BIHTResult
	for b.Loop() {
		res, _ = onebit.BIHT(context.Background(), p, x, onebit.BIHTOptions{K: 10, MaxIter: onebit.DefaultBIHTMaxIter})
	}
	b.ReportMetric(float64(res.Products), "products/op")
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

// BenchmarkNewProblem is the setup cost (the power iteration) at
// N = M = 1000.
func BenchmarkNewProblem(b *testing.B) {
	in := mustGenerate(b, 1000, 1000, 10, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Problem(); err != nil {
			b.Fatal(err)
		}
	}
}
