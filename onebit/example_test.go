package onebit_test

import (
	"context"
	"fmt"

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
