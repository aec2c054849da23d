package neadmm

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neadmm/neadmm/vec"
)

// lasso is min 0.5||A x - y||^2 + lambda ||x||_1 with a dense row-major A.
type lasso struct {
	a          []float64
	rows, cols int
	y          []float64
	lambda     float64
	r          []float64 // residual buffer, rows
	funcCalls  int
}

func newLasso(r *rand.Rand, rows, cols, k int, lambda float64) *lasso {
	l := &lasso{a: make([]float64, rows*cols), rows: rows, cols: cols,
		y: make([]float64, rows), lambda: lambda, r: make([]float64, rows)}
	for i := range l.a {
		l.a[i] = r.NormFloat64() / math.Sqrt(float64(rows))
	}
	x0 := make([]float64, cols)
	for range k {
		x0[r.IntN(cols)] = r.NormFloat64()
	}
	vec.MulVec(l.y, l.a, rows, cols, x0)
	for i := range l.y {
		l.y[i] += 0.01 * r.NormFloat64()
	}
	return l
}

func (l *lasso) resid(x []float64) {
	vec.MulVec(l.r, l.a, l.rows, l.cols, x)
	vec.Axpy(-1, l.y, l.r)
}

func (l *lasso) Func(x []float64) float64 {
	l.funcCalls++
	l.resid(x)
	return 0.5 * vec.Dot(l.r, l.r)
}

func (l *lasso) FuncGrad(g, x []float64) float64 {
	l.resid(x)
	vec.MulTransVec(g, l.a, l.rows, l.cols, l.r)
	return 0.5 * vec.Dot(l.r, l.r)
}

func (l *lasso) Prox(dst, x []float64, step float64) { vec.SoftThreshold(dst, x, step*l.lambda) }

func (l *lasso) Nonsmooth(x []float64) float64 { return l.lambda * vec.Asum(x) }

func (l *lasso) objective(x []float64) float64 {
	l.resid(x)
	return 0.5*vec.Dot(l.r, l.r) + l.lambda*vec.Asum(x)
}

// frobenius2 is ||A||_F^2 >= ||A||_2^2, a valid Lipschitz constant.
func (l *lasso) frobenius2() float64 { return vec.Dot(l.a, l.a) }

// coordinateDescent solves the lasso to high accuracy (the reference).
func (l *lasso) coordinateDescent(sweeps int) []float64 {
	x := make([]float64, l.cols)
	col := make([]float64, l.rows)
	norms := make([]float64, l.cols)
	r := make([]float64, l.rows) // r = y - A x
	copy(r, l.y)
	for j := range norms {
		for i := range col {
			norms[j] += l.a[i*l.cols+j] * l.a[i*l.cols+j]
		}
	}
	for range sweeps {
		for j := range x {
			for i := range col {
				col[i] = l.a[i*l.cols+j]
			}
			rho := vec.Dot(col, r) + norms[j]*x[j]
			nx := math.Copysign(max(math.Abs(rho)-l.lambda, 0), rho) / norms[j]
			vec.Axpy(x[j]-nx, col, r)
			x[j] = nx
		}
	}
	return x
}

// kktViolation returns max_j of the lasso optimality violation in units of
// lambda: |g_j| - lambda off the support and |g_j - lambda sign(x_j)| on
// it, g = A^T (y - A x).
func (l *lasso) kktViolation(x []float64) float64 {
	l.resid(x)
	g := make([]float64, l.cols)
	vec.MulTransVec(g, l.a, l.rows, l.cols, l.r)
	worst := 0.0
	for j, xj := range x {
		gj := -g[j] // A^T (y - A x)
		if xj == 0 {
			worst = max(worst, math.Abs(gj)-l.lambda)
		} else {
			worst = max(worst, math.Abs(gj-l.lambda*math.Copysign(1, xj)))
		}
	}
	return worst / l.lambda
}

func TestFISTALasso(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	l := newLasso(r, 60, 150, 8, 0.05)
	ref := l.coordinateDescent(5000)
	fRef := l.objective(ref)
	if v := l.kktViolation(ref); v > 1e-9 {
		t.Fatalf("reference not converged: KKT %g", v)
	}
	for _, tc := range []struct {
		name string
		opt  FISTAOptions
	}{
		{"fixed", FISTAOptions{L: l.frobenius2(), Tol: 1e-12, MaxIter: 100000}},
		{"fixed/function-restart", FISTAOptions{L: l.frobenius2(), Restart: RestartFunction, Tol: 1e-12, MaxIter: 100000}},
		{"fixed/no-restart", FISTAOptions{L: l.frobenius2(), Restart: RestartNone, Tol: 1e-12, MaxIter: 100000}},
		{"backtrack", FISTAOptions{L: 1e-3, Backtrack: true, Tol: 1e-12, MaxIter: 100000}},
		{"backtrack/eta3/function", FISTAOptions{L: 1e-3, Backtrack: true, Eta: 3, Restart: RestartFunction, Tol: 1e-12, MaxIter: 100000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fs FISTA
			x := make([]float64, l.cols)
			res, err := fs.Solve(l, x, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("not converged: %+v", res)
			}
			// The solution is unique here (60 x 150 random A, sparse
			// truth): steps of 1e-12 leave a KKT violation of about
			// L*1e-12/lambda, far below 1e-6; the objective matches the
			// reference to rounding.
			if v := l.kktViolation(x); v > 1e-6 {
				t.Errorf("KKT violation %g lambda", v)
			}
			if f := l.objective(x); math.Abs(f-fRef) > 1e-10*fRef {
				t.Errorf("objective %.15g, reference %.15g", f, fRef)
			}
			if math.Abs(res.Objective-l.objective(x)) > 1e-14*fRef {
				t.Errorf("reported objective %.15g, actual %.15g", res.Objective, l.objective(x))
			}
			for j := range x {
				if math.Abs(x[j]-ref[j]) > 1e-6 {
					t.Fatalf("x[%d] = %g, reference %g", j, x[j], ref[j])
				}
			}
			t.Logf("%d iterations, %d restarts, L=%.4g", res.Iterations, res.Restarts, res.L)
			if tc.opt.Backtrack && (res.L <= tc.opt.L || fs.L != res.L) {
				t.Errorf("L estimate %g (workspace %g) did not grow from %g", res.L, fs.L, tc.opt.L)
			}
		})
	}
}

func TestFISTAWarmStartKeepsL(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	l := newLasso(r, 40, 80, 5, 0.05)
	var fs FISTA
	x := make([]float64, l.cols)
	opt := FISTAOptions{L: 1e-3, Backtrack: true, Tol: 1e-10, MaxIter: 10000}
	res1, err := fs.Solve(l, x, opt)
	if err != nil || !res1.Converged {
		t.Fatal(err, res1)
	}
	// A warm restart from the solution, starting from the learnt L: it
	// stops at once and never backtracks (one Func call per iteration).
	l.funcCalls = 0
	res2, err := fs.Solve(l, x, opt)
	if err != nil || !res2.Converged {
		t.Fatal(err, res2)
	}
	if res2.Iterations > 3 || l.funcCalls != res2.Iterations || res2.L != res1.L {
		t.Errorf("warm solve: %d iterations, %d Func calls, L %g -> %g", res2.Iterations, l.funcCalls, res1.L, res2.L)
	}
	// Forgetting the estimate backtracks again from opt.L.
	fs.L = 0
	l.funcCalls = 0
	res3, _ := fs.Solve(l, x, opt)
	if l.funcCalls <= res3.Iterations {
		t.Errorf("after reset: %d Func calls in %d iterations, want backtracking", l.funcCalls, res3.Iterations)
	}
}

// quadratic is f(x) = 0.5 sum d_i (x_i - c_i)^2, g = 0.
type quadratic struct{ d, c []float64 }

func (q *quadratic) Func(x []float64) float64 {
	f := 0.0
	for i := range x {
		f += 0.5 * q.d[i] * (x[i] - q.c[i]) * (x[i] - q.c[i])
	}
	return f
}

func (q *quadratic) FuncGrad(g, x []float64) float64 {
	for i := range x {
		g[i] = q.d[i] * (x[i] - q.c[i])
	}
	return q.Func(x)
}

func (q *quadratic) Prox(dst, x []float64, step float64) { copy(dst, x) }

func TestFISTAQuadratic(t *testing.T) {
	n := 50
	q := &quadratic{d: make([]float64, n), c: make([]float64, n)}
	for i := range n {
		q.d[i] = math.Pow(1e3, float64(i)/float64(n-1)) // condition number 1e3
		q.c[i] = math.Sin(float64(i))
	}
	for _, restart := range []Restart{RestartGradient, RestartNone} {
		var fs FISTA
		x := make([]float64, n)
		res, err := fs.Solve(q, x, FISTAOptions{L: 1e3, Restart: restart, Tol: 1e-13, MaxIter: 100000})
		if err != nil || !res.Converged {
			t.Fatal(err, res)
		}
		// The last step is <= 1e-13; with strong convexity mu = 1 and
		// L = 1e3, the distance to x* is at most about (L/mu)*step.
		for i := range x {
			if math.Abs(x[i]-q.c[i]) > 1e-9 {
				t.Fatalf("restart %d: x[%d] = %.15g, want %.15g", restart, i, x[i], q.c[i])
			}
		}
		if !math.IsNaN(res.Objective) {
			t.Errorf("objective %g without NonsmoothValuer, want NaN", res.Objective)
		}
		t.Logf("restart %d: %d iterations, %d restarts", restart, res.Iterations, res.Restarts)
	}
}

func TestFISTAOptionsErrors(t *testing.T) {
	q := &quadratic{d: []float64{1}, c: []float64{1}}
	good := FISTAOptions{L: 1, MaxIter: 10}
	for _, tc := range []struct {
		mod  func(*FISTAOptions)
		want string
	}{
		{func(o *FISTAOptions) { o.L = 0 }, "L = 0"},
		{func(o *FISTAOptions) { o.L = math.NaN() }, "L = NaN"},
		{func(o *FISTAOptions) { o.L = math.Inf(1) }, "L = +Inf"},
		{func(o *FISTAOptions) { o.Eta = 1 }, "Eta = 1"},
		{func(o *FISTAOptions) { o.Tol = -1 }, "Tol = -1"},
		{func(o *FISTAOptions) { o.Tol = math.NaN() }, "Tol = NaN"},
		{func(o *FISTAOptions) { o.MaxIter = 0 }, "MaxIter = 0"},
		{func(o *FISTAOptions) { o.Restart = 7 }, "unknown Restart"},
		{func(o *FISTAOptions) { o.Restart = RestartFunction }, "NonsmoothValuer"},
	} {
		opt := good
		tc.mod(&opt)
		x := []float64{5}
		var fs FISTA
		_, err := fs.Solve(q, x, opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", opt, err, tc.want)
		}
		if x[0] != 5 {
			t.Errorf("x modified before the error")
		}
	}
	var fs FISTA
	if _, err := fs.Solve(q, []float64{math.NaN()}, good); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN start: %v", err)
	}
	if res, err := fs.Solve(q, nil, good); err != nil || !res.Converged || res.Iterations != 0 {
		t.Errorf("empty x: %+v %v", res, err)
	}
}

// nanAfter returns NaN from FuncGrad from its k-th call on.
type nanAfter struct {
	quadratic
	k, calls int
}

func (p *nanAfter) FuncGrad(g, x []float64) float64 {
	p.calls++
	f := p.quadratic.FuncGrad(g, x)
	if p.calls >= p.k {
		g[0] = math.NaN()
		return math.NaN()
	}
	return f
}

// inconsistent's Func disagrees with FuncGrad by 1, so no L satisfies the
// sufficient-decrease test once steps are small.
type inconsistent struct{ quadratic }

func (p *inconsistent) Func(x []float64) float64 { return p.quadratic.Func(x) + 1 }

func TestFISTAFailures(t *testing.T) {
	p := &nanAfter{quadratic: quadratic{d: []float64{1, 2}, c: []float64{1, 1}}, k: 3}
	var fs FISTA
	x := []float64{5, 5}
	res, err := fs.Solve(p, x, FISTAOptions{L: 2, MaxIter: 100})
	if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), "iteration 3") {
		t.Errorf("NaN gradient: %v", err)
	}
	if math.IsNaN(x[0]) || math.IsNaN(x[1]) || res.Iterations != 2 {
		t.Errorf("after the error: x = %v, %d iterations", x, res.Iterations)
	}
	x = []float64{5, 5}
	_, err = fs.Solve(&inconsistent{p.quadratic}, x, FISTAOptions{L: 1, Backtrack: true, MaxIter: 1000})
	if err == nil || !strings.Contains(err.Error(), "backtracking pushed L") {
		t.Errorf("inconsistent f: %v", err)
	}
	if fs.L != 0 {
		t.Errorf("failed search stored L = %g in the workspace", fs.L)
	}
}

func TestFISTAAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	l := newLasso(r, 30, 60, 4, 0.05)
	var fs FISTA
	x := make([]float64, l.cols)
	for _, opt := range []FISTAOptions{
		{L: l.frobenius2(), Tol: 1e-8, MaxIter: 500},
		{L: 1e-3, Backtrack: true, Restart: RestartFunction, Tol: 1e-8, MaxIter: 500},
	} {
		if _, err := fs.Solve(l, x, opt); err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(20, func() {
			clear(x)
			if _, err := fs.Solve(l, x, opt); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%+v: %v allocations per solve", opt, n)
		}
	}
}

// BenchmarkFISTALasso solves a 200 x 1000 dense lasso from zero (fixed
// step, gradient restart, to a relative step of 1e-6); the cost is two
// matrix-vector products per iteration.
func BenchmarkFISTALasso(b *testing.B) {
	r := rand.New(rand.NewPCG(27, 28))
	l := newLasso(r, 200, 1000, 20, 0.02)
	// Power iteration for ||A||_2^2, padded: a fixed step needs an upper bound.
	v, av := make([]float64, l.cols), make([]float64, l.rows)
	for i := range v {
		v[i] = 1
	}
	L := 0.0
	for range 100 {
		vec.MulVec(av, l.a, l.rows, l.cols, v)
		vec.MulTransVec(v, l.a, l.rows, l.cols, av)
		L = vec.Nrm2(v)
		vec.Scal(1/L, v)
	}
	opt := FISTAOptions{L: 1.01 * L, Tol: 1e-6, MaxIter: 10000}
	var fs FISTA
	x := make([]float64, l.cols)
	iters := 0
	b.ReportAllocs()
	for b.Loop() {
		clear(x)
		res, err := fs.Solve(l, x, opt)
		if err != nil || !res.Converged {
			b.Fatal(err, res)
		}
		iters = res.Iterations
	}
	b.ReportMetric(float64(iters), "iters/solve")
}
