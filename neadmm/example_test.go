package neadmm_test

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

func ExampleSphereProx() {
	// The w-update of eq. 5 with x = (3, 4), y = 0, rho = 1: v = x, c = 1.
	v := []float64{3, 4}
	w := make([]float64, 2)
	neadmm.SphereProx(w, v, 1)
	s := math.Hypot(w[0], w[1]) // the positive root of 2s^3 - s - 5 = 0
	fmt.Printf("w = (%.4f, %.4f), ||w|| = %.4f, 2s^3 - s = %.4f\n", w[0], w[1], s, 2*s*s*s-s)
	// Output: w = (0.8878, 1.1838), ||w|| = 1.4797, 2s^3 - s = 5.0000
}

func ExampleMaxProx() {
	// One bag: phi = X_i beta - y2_i/rho, b = q_i + y1_i/rho.
	phi := []float64{0.5, 3, -1, 2}
	t := make([]float64, len(phi))
	neadmm.MaxProx(t, phi, 1)
	fmt.Println(t) // the level (1 + 3 + 2)/3 = 2: t_j = min(phi_j, 2)

	// With b above every phi_j the largest one is raised to (b + 3)/2.
	neadmm.MaxProx(t, phi, 7)
	fmt.Println(t)
	// Output:
	// [0.5 2 -1 2]
	// [0.5 5 -1 2]
}

func ExampleTopKProx() {
	// One bag under top-2 pooling: q_i is the mean of the bag's two largest t_j.
	phi := []float64{0.5, 3, -1, 2}
	t := make([]float64, len(phi))

	// b = 7 is above P_2(phi) = 2.5: the two largest rise by (7 - 2.5)/3.
	neadmm.TopKProx(t, phi, 7, 2)
	fmt.Println(t)

	// b = 1 is below it: the two largest come down by delta, minimizing
	// (1 - (2.5 - delta))^2 + 2 delta^2, so delta = 0.5 (still above phi_0).
	neadmm.TopKProx(t, phi, 1, 2)
	fmt.Printf("%.4f\n", t)
	// Output:
	// [0.5 4.5 -1 3.5]
	// [0.5000 2.5000 -1.0000 1.5000]
}

func ExampleMeanProx() {
	// Mean pooling: every t_j moves by the same (mean(phi) - b)/(n+1).
	phi := []float64{0.5, 3, -1, 2}
	t := make([]float64, len(phi))
	neadmm.MeanProx(t, phi, 1)
	fmt.Printf("%.3f\n", t) // mean(phi) = 1.125: t_j = phi_j - 0.025
	// Output: [0.475 2.975 -1.025 1.975]
}

// lasso is min 0.5||A x - y||^2 + lambda ||x||_1 as a FISTAProblem.
type lasso struct {
	a          []float64 // rows x cols, row-major
	rows, cols int
	y, r       []float64 // r: residual workspace
	lambda     float64
}

func (l *lasso) Func(x []float64) float64 {
	vec.MulVec(l.r, l.a, l.rows, l.cols, x)
	vec.Axpy(-1, l.y, l.r)
	return 0.5 * vec.Dot(l.r, l.r)
}

func (l *lasso) FuncGrad(grad, x []float64) float64 {
	f := l.Func(x) // leaves A x - y in l.r
	vec.MulTransVec(grad, l.a, l.rows, l.cols, l.r)
	return f
}

func (l *lasso) Prox(dst, x []float64, step float64) { vec.SoftThreshold(dst, x, step*l.lambda) }

func (l *lasso) Nonsmooth(x []float64) float64 { return l.lambda * vec.Asum(x) }

func ExampleFISTA() {
	l := &lasso{
		a: []float64{
			1, 0, 1,
			0, 1, 1,
			1, 1, 0,
			0, 0, 1,
		},
		rows: 4, cols: 3,
		y:      []float64{2, 1, 1, 1.5},
		r:      make([]float64, 4),
		lambda: 0.1,
	}
	var fs neadmm.FISTA // reuse it for every solve of this subproblem
	x := make([]float64, 3)
	res, err := fs.Solve(context.Background(), l, x, neadmm.FISTAOptions{L: 1, Backtrack: true, Tol: 1e-10, MaxIter: 1000})
	if err != nil {
		panic(err)
	}
	// +0 turns a -0 from the soft-threshold into 0 for printing.
	fmt.Printf("converged %v, x = (%.4f, %.4f, %.4f), objective %.4f\n",
		res.Converged, x[0]+0, x[1]+0, x[2]+0, res.Objective)
	// Output: converged true, x = (0.8600, 0.0000, 1.1800), objective 0.2820
}

// projection is min ||x - a||^2 s.t. ||x||^2 = 1 with the splitting of 1-bit
// compressive sensing: x1 = x, x2 = w, constraint (||w||^2 - 1, w - x) = 0,
// i.e. f1(x) = (0, -x) and f2(w) = (||w||^2 - 1, w). y = (y1, y2).
type projection struct {
	a, v []float64 // v: workspace of the w-update
}

func (p *projection) Dims() (n1, n2, m int) { return len(p.a), len(p.a), 1 + len(p.a) }

// UpdateX1 minimizes ||x - a||^2 + rho/2 ||w - x + y2/rho||^2 (closed form).
func (p *projection) UpdateX1(x, w, y []float64, rho float64) error {
	for i := range x {
		x[i] = (2*p.a[i] + y[1+i] + rho*w[i]) / (2 + rho)
	}
	return nil
}

// UpdateX2 is eq. 5: SphereProx with v = x - y2/rho and c = 1 - y1/rho.
func (p *projection) UpdateX2(w, x, y []float64, rho float64) error {
	vec.AddScaledTo(p.v, x, -1/rho, y[1:])
	neadmm.SphereProx(w, p.v, 1-y[0]/rho)
	return nil
}

func (p *projection) Constraint1(dst, x []float64) {
	dst[0] = 0
	for i, xi := range x {
		dst[1+i] = -xi
	}
}

func (p *projection) Constraint2(dst, w []float64) {
	dst[0] = vec.Dot(w, w) - 1
	copy(dst[1:], w)
}

// Constraint1JacT: the Jacobian of f1 is [0; -I], so J^T v = -v[1:].
func (p *projection) Constraint1JacT(dst, x, v []float64) {
	for i := range dst {
		dst[i] = -v[1+i]
	}
}

func (p *projection) Objective(x, w []float64) float64 {
	d := 0.0
	for i := range x {
		d += (x[i] - p.a[i]) * (x[i] - p.a[i])
	}
	return d
}

func ExampleSolver_Solve() {
	p := &projection{a: []float64{3, 4}, v: make([]float64, 2)}
	x, w, y := make([]float64, 2), []float64{1, 0}, make([]float64, 3)
	var sv neadmm.Solver
	res, err := sv.Solve(context.Background(), p, x, w, y, neadmm.Options{
		Rho:     1, // grows by 2% per iteration (RhoGeometric, the default)
		EpsAbs:  1e-9,
		EpsRel:  1e-9,
		MaxIter: 1000,
		// Result.Objective costs one Objective call: ask for it.
		FinalObjective: true,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: x = (%.4f, %.4f), objective %.4f, ||r|| < 1e-8: %v\n",
		res.Reason, x[0], x[1], res.Objective, res.Primal < 1e-8)
	// Output: converged: x = (0.6000, 0.8000), objective 16.0000, ||r|| < 1e-8: true
}

func newProjection(a []float64) *projection { return &projection{a: a, v: make([]float64, len(a))} }

// ExampleOptions_stopTest stops on a stalled objective, an application's
// own convergence test, and the Result says so: StopTest, not
// StopConverged (the residual test, far stricter here, did not pass).
func ExampleOptions_stopTest() {
	p := newProjection([]float64{3, 4})
	x, w, y := make([]float64, 2), []float64{1, 0}, make([]float64, 3)
	prev := math.Inf(1)
	var sv neadmm.Solver
	res, err := sv.Solve(context.Background(), p, x, w, y, neadmm.Options{
		Rho:     1,
		EpsAbs:  1e-15,
		MaxIter: 1000,
		// The test reads Iteration.Objective: ask the engine for it.
		IterationObjective: true,
		StopTest: func(it neadmm.Iteration) bool {
			stalled := it.Primal <= 1e-6 && math.Abs(it.Objective-prev) <= 1e-9*math.Abs(it.Objective)
			prev = it.Objective
			return stalled
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v (residual test met: %v): x = (%.4f, %.4f)\n", res.Reason, res.Primal <= res.EpsPrimal, x[0], x[1])
	// Output: stop test (residual test met: false): x = (0.6000, 0.8000)
}

// sparseSphere is min ||x - a||^2 + lambda ||x||_1 s.t. ||x|| = 1 with the
// splitting of projection. Its x-update has no closed form: FISTA solves
// it, with the solve's context, which Start hands over.
type sparseSphere struct {
	*projection // Dims, UpdateX2 (SphereProx), the constraints
	lambda      float64
	fs          neadmm.FISTA // one workspace for every x-update
	ctx         context.Context
	c           []float64 // w + y2/rho
	rho         float64
}

// Start keeps the solve's context for the x-updates of this solve.
func (p *sparseSphere) Start(ctx context.Context, x, w, y []float64) error {
	p.ctx = ctx
	return nil
}

// UpdateX1 minimizes ||x - a||^2 + rho/2 ||x - c||^2 + lambda ||x||_1.
func (p *sparseSphere) UpdateX1(x, w, y []float64, rho float64) error {
	p.rho = rho
	vec.AddScaledTo(p.c, w, 1/rho, y[1:])
	_, err := p.fs.Solve(p.ctx, p, x, neadmm.FISTAOptions{L: 2 + rho, Tol: 1e-13, MaxIter: 1000})
	return err // wraps ctx.Err() if cancelled: the engine reports StopCancelled
}

// Func, FuncGrad and Prox make sparseSphere the FISTAProblem of UpdateX1.
func (p *sparseSphere) Func(x []float64) float64 {
	f := 0.0
	for i, xi := range x {
		f += (xi-p.a[i])*(xi-p.a[i]) + p.rho/2*(xi-p.c[i])*(xi-p.c[i])
	}
	return f
}

func (p *sparseSphere) FuncGrad(grad, x []float64) float64 {
	for i, xi := range x {
		grad[i] = 2*(xi-p.a[i]) + p.rho*(xi-p.c[i])
	}
	return p.Func(x)
}

func (p *sparseSphere) Prox(dst, x []float64, step float64) { vec.SoftThreshold(dst, x, step*p.lambda) }

// Objective is F1 + F2 = ||x - a||^2 + lambda ||x||_1.
func (p *sparseSphere) Objective(x, w []float64) float64 {
	return p.projection.Objective(x, w) + p.lambda*vec.Asum(x)
}

// ExampleStarter runs a problem whose x-update is an inner FISTA: Start
// passes the solve's context on, so a cancellation reaches the inner loop.
// The solution is x = (2a - 1)/||2a - 1|| on the first two coordinates
// and 0 on the third (lambda = 1 outweighs 2*a_3 = 0.4).
func ExampleStarter() {
	p := &sparseSphere{projection: newProjection([]float64{3, 4, 0.2}), lambda: 1, c: make([]float64, 3)}
	x, w, y := make([]float64, 3), []float64{1, 0, 0}, make([]float64, 4)
	opt := neadmm.Options{Rho: 1, EpsAbs: 1e-10, EpsRel: 1e-10, MaxIter: 2000, FinalObjective: true}
	var sv neadmm.Solver
	res, err := sv.Solve(context.Background(), p, x, w, y, opt)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: x = (%.4f, %.4f, %.4f), objective %.4f\n", res.Reason, x[0], x[1], x[2]+0, res.Objective)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = sv.Solve(ctx, p, x, w, y, opt)
	fmt.Println(res.Reason, errors.Is(err, context.Canceled))
	// Output:
	// converged: x = (0.5812, 0.8137, 0.0000), objective 17.4377
	// cancelled true
}

// ExampleFISTAOptions_Validate: invalid options are errors matching
// ErrBadInput, which name the field.
func ExampleFISTAOptions_Validate() {
	err := neadmm.FISTAOptions{L: 1, Backtrack: true, Eta: 1, MaxIter: 10}.Validate()
	fmt.Println(errors.Is(err, neadmm.ErrBadInput))
	fmt.Println(err)
	// Output:
	// true
	// neadmm: bad input: FISTAOptions.Eta = 1, want 0 (default) or finite and > 1
}
