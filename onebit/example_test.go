package onebit_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/neadmm/neadmm/onebit"
)

// Solve the paper's problem at its lambda = 0.01 on a generated instance
// and compare with the objective of the ground truth.
func ExampleSolver_Solve() {
	in, err := onebit.Generate(onebit.GenOptions{M: 250, N: 512, K: 32, Seed: 1})
	if err != nil {
		panic(err)
	}
	p, err := onebit.NewProblem(in.Phi, in.M, in.N, in.Y)
	if err != nil {
		panic(err)
	}
	var s onebit.Solver // reuse it: later solves of this size allocate nothing
	x := make([]float64, in.N)
	res, err := s.Solve(context.Background(), p, x, onebit.DefaultOptions())
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v, objective %.3f (truth %.3f, best 1-sparse %.3f)\n", res.Reason,
		res.Objective, p.Objective(in.X, 0.01), p.BestCoordinate(make([]float64, in.N), 0.01))
	// Output: converged, objective 1.375 (truth 4.851, best 1-sparse 1.375)
}

// Recover a sparse direction without being told its sparsity, beside BIHT,
// which is told K.
func ExampleSolver_Recover() {
	in, err := onebit.Generate(onebit.GenOptions{M: 500, N: 250, K: 5, Seed: 2})
	if err != nil {
		panic(err)
	}
	p, err := in.Problem()
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	var s onebit.Solver
	x := make([]float64, in.N)
	res, err := s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
	if err != nil {
		panic(err)
	}
	b := make([]float64, in.N)
	if _, err := onebit.BIHT(ctx, p, b, onebit.BIHTOptions{K: in.K, MaxIter: onebit.DefaultBIHTMaxIter}); err != nil {
		panic(err)
	}
	e, eb := onebit.AngularError(in.X, x), onebit.AngularError(in.X, b)
	fmt.Printf("neADMM: support %d, Hamming error %g, angular error below 0.005: %v\n", res.Support, res.Hamming, e < 0.005)
	fmt.Printf("BIHT:   angular error below 0.005: %v\n", eb < 0.005)
	// Output:
	// neADMM: support 5, Hamming error 0, angular error below 0.005: true
	// BIHT:   angular error below 0.005: true
}

// Decode sign vectors on a fixed Phi, as a service does: NewProblem once
// (its pass over Phi), then per request WithSigns (a copy of the signs)
// and Recover, from several goroutines, each with its own Solver.
func ExampleProblem_WithSigns() {
	const m, n, k = 500, 250, 5
	in, err := onebit.Generate(onebit.GenOptions{M: m, N: n, K: k, Seed: 3})
	if err != nil {
		panic(err)
	}
	base, err := in.Problem() // once per Phi
	if err != nil {
		panic(err)
	}
	// The requests: the signs of three other signals on the same Phi.
	signals := make([][]float64, 3)
	requests := make([][]float64, 3)
	for r := range requests {
		sig, err := onebit.Generate(onebit.GenOptions{M: 1, N: n, K: k, Seed: uint64(10 + r)})
		if err != nil {
			panic(err)
		}
		signals[r], requests[r] = sig.X, make([]float64, m)
		for i := range requests[r] {
			a := 0.0
			for j, v := range sig.X {
				a += in.Phi[i*n+j] * v
			}
			requests[r][i] = 1
			if a < 0 {
				requests[r][i] = -1
			}
		}
	}
	errs := make([]float64, len(requests))
	var wg sync.WaitGroup
	for r, y := range requests {
		wg.Add(1)
		go func() { // in a service: one Solver per worker goroutine, reused
			defer wg.Done()
			p, err := base.WithSigns(y)
			if err != nil {
				panic(err)
			}
			var s onebit.Solver
			x := make([]float64, n)
			if _, err := s.Recover(context.Background(), p, x, onebit.DefaultRecoverOptions()); err != nil {
				panic(err)
			}
			errs[r] = onebit.AngularError(signals[r], x)
		}()
	}
	wg.Wait()
	for r, e := range errs {
		fmt.Printf("request %d: angular error below 0.05: %v\n", r, e < 0.05)
	}
	// Output:
	// request 0: angular error below 0.05: true
	// request 1: angular error below 0.05: true
	// request 2: angular error below 0.05: true
}
