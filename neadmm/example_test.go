package neadmm_test

import (
	"context"
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
