package neadmm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	gradCalls  int
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
	l.gradCalls++
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

// coordinateDescent solves the lasso to high accuracy (the reference) by
// the given number of passes over the coordinates.
func (l *lasso) coordinateDescent(passes int) []float64 {
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
	for range passes {
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
	require.LessOrEqual(t, l.kktViolation(ref), 1e-9, "reference not converged")
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
			res, err := fs.Solve(context.Background(), l, x, tc.opt)
			require.NoError(t, err)
			require.True(t, res.Converged, "%+v", res)
			// The solution is unique here (60 x 150 random A, sparse
			// truth): steps of 1e-12 leave a KKT violation of about
			// L*1e-12/lambda, far below 1e-6; the objective matches the
			// reference to rounding.
			assert.LessOrEqual(t, l.kktViolation(x), 1e-6, "KKT violation in units of lambda")
			assert.InDelta(t, fRef, l.objective(x), 1e-10*fRef, "objective vs the reference")
			assert.InDelta(t, l.objective(x), res.Objective, 1e-14*fRef, "reported objective")
			for j := range x {
				require.InDelta(t, ref[j], x[j], 1e-6, "x[%d]", j)
			}
			t.Logf("%d iterations, %d restarts, %d backtracks, L=%.4g", res.Iterations, res.Restarts, res.Backtracks, res.L)
			if tc.opt.Backtrack {
				assert.Greater(t, res.L, tc.opt.L, "L estimate did not grow")
				assert.Equal(t, res.L, fs.L, "the workspace keeps the estimate")
				// Each backtracking step multiplies L by Eta, exactly.
				eta := max(tc.opt.Eta, DefaultEta)
				assert.InDelta(t, math.Log(res.L/tc.opt.L)/math.Log(eta), float64(res.Backtracks), 1e-9)
			} else {
				assert.Zero(t, res.Backtracks)
			}
		})
	}
}

func TestFISTAWarmStartKeepsL(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(23, 24))
	l := newLasso(r, 40, 80, 5, 0.05)
	var fs FISTA
	x := make([]float64, l.cols)
	opt := FISTAOptions{L: 1e-3, Backtrack: true, Tol: 1e-10, MaxIter: 10000}
	res1, err := fs.Solve(ctx, l, x, opt)
	require.NoError(t, err)
	require.True(t, res1.Converged)
	// A warm restart from the solution, starting from the learnt L: it
	// stops at once and never backtracks (one Func call per iteration).
	l.funcCalls = 0
	res2, err := fs.Solve(ctx, l, x, opt)
	require.NoError(t, err)
	require.True(t, res2.Converged)
	assert.LessOrEqual(t, res2.Iterations, 3)
	assert.Equal(t, res2.Iterations, l.funcCalls, "Func calls of the warm solve")
	assert.Zero(t, res2.Backtracks)
	assert.Equal(t, res1.L, res2.L)
	// Forgetting the estimate backtracks again from opt.L.
	fs.L = 0
	l.funcCalls = 0
	res3, err := fs.Solve(ctx, l, x, opt)
	require.NoError(t, err)
	assert.Greater(t, l.funcCalls, res3.Iterations, "after reset: want backtracking")
	assert.Positive(t, res3.Backtracks)
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
		res, err := fs.Solve(context.Background(), q, x, FISTAOptions{L: 1e3, Restart: restart, Tol: 1e-13, MaxIter: 100000})
		require.NoError(t, err)
		require.True(t, res.Converged)
		// The last step is <= 1e-13; with strong convexity mu = 1 and
		// L = 1e3, the distance to x* is at most about (L/mu)*step.
		for i := range x {
			require.InDelta(t, q.c[i], x[i], 1e-9, "restart %v: x[%d]", restart, i)
		}
		assert.True(t, math.IsNaN(res.Objective), "objective %g without NonsmoothValuer, want NaN", res.Objective)
		t.Logf("restart %v: %d iterations, %d restarts", restart, res.Iterations, res.Restarts)
	}
}

// TestFISTAOptionsValidate checks every field: Validate rejects each bad
// value with ErrBadInput and the field's name, Solve returns the same
// error before touching x, and the defaults (zero Eta, MaxBacktrack) pass.
func TestFISTAOptionsValidate(t *testing.T) {
	q := &quadratic{d: []float64{1}, c: []float64{1}}
	good := FISTAOptions{L: 1, MaxIter: 10}
	require.NoError(t, good.Validate())
	require.NoError(t, FISTAOptions{L: 1, Backtrack: true, Eta: 1.5, MaxBacktrack: 3, Restart: RestartNone, Tol: 1, MaxIter: 1}.Validate())
	for _, tc := range []struct {
		mod  func(*FISTAOptions)
		want string
	}{
		{func(o *FISTAOptions) { o.L = 0 }, "FISTAOptions.L = 0"},
		{func(o *FISTAOptions) { o.L = -1 }, "FISTAOptions.L = -1"},
		{func(o *FISTAOptions) { o.L = math.NaN() }, "FISTAOptions.L = NaN"},
		{func(o *FISTAOptions) { o.L = math.Inf(1) }, "FISTAOptions.L = +Inf"},
		{func(o *FISTAOptions) { o.Eta = 1 }, "FISTAOptions.Eta = 1"},
		{func(o *FISTAOptions) { o.Eta = -2 }, "FISTAOptions.Eta = -2"},
		{func(o *FISTAOptions) { o.Eta = math.Inf(1) }, "FISTAOptions.Eta = +Inf"},
		{func(o *FISTAOptions) { o.Eta = math.NaN() }, "FISTAOptions.Eta = NaN"},
		{func(o *FISTAOptions) { o.MaxBacktrack = -1 }, "FISTAOptions.MaxBacktrack = -1"},
		{func(o *FISTAOptions) { o.Restart = 7 }, "FISTAOptions.Restart = 7, unknown"},
		{func(o *FISTAOptions) { o.Restart = -1 }, "FISTAOptions.Restart = -1, unknown"},
		{func(o *FISTAOptions) { o.Tol = -1 }, "FISTAOptions.Tol = -1"},
		{func(o *FISTAOptions) { o.Tol = math.NaN() }, "FISTAOptions.Tol = NaN"},
		{func(o *FISTAOptions) { o.Tol = math.Inf(1) }, "FISTAOptions.Tol = +Inf"},
		{func(o *FISTAOptions) { o.MaxIter = 0 }, "FISTAOptions.MaxIter = 0"},
		{func(o *FISTAOptions) { o.MaxIter = -5 }, "FISTAOptions.MaxIter = -5"},
	} {
		opt := good
		tc.mod(&opt)
		verr := opt.Validate()
		require.ErrorIs(t, verr, ErrBadInput, tc.want)
		assert.ErrorContains(t, verr, tc.want)
		x := []float64{5}
		var fs FISTA
		res, err := fs.Solve(context.Background(), q, x, opt)
		require.ErrorIs(t, err, ErrBadInput, tc.want)
		assert.ErrorContains(t, err, verr.Error())
		assert.Equal(t, []float64{5}, x, "x modified before the error")
		assert.False(t, res.Converged)
	}
}

// TestFISTABadInput covers what Validate cannot see.
func TestFISTABadInput(t *testing.T) {
	q := &quadratic{d: []float64{1}, c: []float64{1}}
	good := FISTAOptions{L: 1, MaxIter: 10}
	ctx := context.Background()
	var fs FISTA
	_, err := fs.Solve(ctx, q, []float64{5}, FISTAOptions{L: 1, MaxIter: 10, Restart: RestartFunction})
	require.ErrorIs(t, err, ErrBadInput)
	assert.ErrorContains(t, err, "NonsmoothValuer")
	_, err = fs.Solve(ctx, q, []float64{math.NaN()}, good)
	require.ErrorIs(t, err, ErrBadInput)
	require.ErrorIs(t, err, ErrNotFinite)
	var noCtx context.Context
	_, err = fs.Solve(noCtx, q, []float64{1}, good)
	require.ErrorIs(t, err, ErrBadInput)
	_, err = fs.Solve(ctx, nil, []float64{1}, good)
	require.ErrorIs(t, err, ErrBadInput)
	var nilFISTA *FISTA
	_, err = nilFISTA.Solve(ctx, q, []float64{1}, good)
	require.ErrorIs(t, err, ErrBadInput)
	assert.ErrorContains(t, err, "nil *FISTA")
	res, err := fs.Solve(ctx, q, nil, good)
	require.NoError(t, err)
	assert.True(t, res.Converged)
	assert.Zero(t, res.Iterations)
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
	ctx := context.Background()
	p := &nanAfter{quadratic: quadratic{d: []float64{1, 2}, c: []float64{1, 1}}, k: 3}
	var fs FISTA
	x := []float64{5, 5}
	res, err := fs.Solve(ctx, p, x, FISTAOptions{L: 2, MaxIter: 100})
	require.ErrorIs(t, err, ErrNotFinite)
	assert.ErrorContains(t, err, "iteration 3")
	assert.False(t, math.IsNaN(x[0]) || math.IsNaN(x[1]), "x = %v after the error", x)
	assert.Equal(t, 2, res.Iterations)
	assert.True(t, math.IsNaN(res.Objective))

	// With Eta = 2 the default cap (L * 2^100) stops the search first; a
	// larger one lets it reach the bound L <= 1e300.
	x = []float64{5, 5}
	_, err = fs.Solve(ctx, &inconsistent{p.quadratic}, x, FISTAOptions{L: 1, Backtrack: true, MaxBacktrack: 5000, MaxIter: 1000})
	require.ErrorIs(t, err, ErrBacktrack)
	assert.ErrorContains(t, err, "f not smooth")
	assert.Zero(t, fs.L, "a failed search stored its L in the workspace")
}

// TestFISTABacktrackBounded is issue 14's hang: Eta = nextafter(1, 2)
// multiplies L by 1 + 2^-52, so without a cap backtracking would run
// ~2^52 trial steps per decade of L. With the cap the solve returns
// after MaxIter + MaxBacktrack trial steps at most, with ErrBacktrack.
func TestFISTABacktrackBounded(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(29, 30))
	l := newLasso(r, 30, 60, 4, 0.05)
	for _, limit := range []int{0, 7} {
		opt := FISTAOptions{L: 1e-3, Backtrack: true, Eta: math.Nextafter(1, 2), MaxBacktrack: limit, MaxIter: 10}
		want := limit
		if want == 0 {
			want = 100 // the documented default
		}
		var fs FISTA
		x := make([]float64, l.cols)
		x[0] = 1
		l.funcCalls, l.gradCalls = 0, 0
		start := time.Now()
		res, err := fs.Solve(ctx, l, x, opt)
		t.Logf("MaxBacktrack %d: %v after %v", limit, err, time.Since(start))
		require.ErrorIs(t, err, ErrBacktrack)
		assert.ErrorContains(t, err, "MaxBacktrack")
		// L = 1e-3 is far too small, so the first trial step is rejected
		// and every retry (L barely changed) too: the cap stops iteration 1.
		assert.Equal(t, want, res.Backtracks)
		assert.Equal(t, want+1, l.funcCalls, "trial steps evaluated")
		assert.Equal(t, 1, l.gradCalls)
		assert.Zero(t, res.Iterations)
		assert.False(t, res.Converged)
		assert.Equal(t, 1.0, x[0], "x is the start, the last accepted iterate")
		assert.Zero(t, fs.L, "a failed search stored its L in the workspace")
	}
	// A cap that is large enough: Eta = 1.5 from L = 1e-3 needs about
	// log(L/1e-3)/log(1.5) steps, fewer than the default 100.
	var fs FISTA
	x := make([]float64, l.cols)
	res, err := fs.Solve(ctx, l, x, FISTAOptions{L: 1e-3, Backtrack: true, Eta: 1.5, Tol: 1e-10, MaxIter: 5000})
	require.NoError(t, err)
	assert.True(t, res.Converged)
	assert.Positive(t, res.Backtracks)
	assert.Less(t, res.Backtracks, DefaultMaxBacktrack)
}

// cancelAt wraps a FISTA problem and cancels a context from inside its
// grad-th FuncGrad call or its fn-th Func call (0: never), counting calls.
type cancelAt struct {
	FISTAProblem
	cancel             context.CancelFunc
	grad, fn           int
	gradCalls, fnCalls int
}

func (c *cancelAt) FuncGrad(g, x []float64) float64 {
	c.gradCalls++
	if c.gradCalls == c.grad {
		c.cancel()
	}
	return c.FISTAProblem.FuncGrad(g, x)
}

func (c *cancelAt) Func(x []float64) float64 {
	c.fnCalls++
	if c.fnCalls == c.fn {
		c.cancel()
	}
	return c.FISTAProblem.Func(x)
}

// TestFISTACancel checks the granularity of the context checks by counting
// calls, which no machine load can disturb: a cancellation during
// iteration k's gradient returns before iteration k+1, one during a
// rejected trial step returns before the retry.
func TestFISTACancel(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	l := newLasso(r, 30, 60, 4, 0.05)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var fs FISTA
	x := make([]float64, l.cols)
	x[3] = 2
	res, err := fs.Solve(ctx, l, x, FISTAOptions{L: l.frobenius2(), MaxIter: 100})
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, res.Iterations)
	assert.Equal(t, 2.0, x[3], "x after cancellation before any work")

	ctx, cancel = context.WithCancel(context.Background())
	c := &cancelAt{FISTAProblem: l, cancel: cancel, grad: 5}
	clear(x)
	res, err = fs.Solve(ctx, c, x, FISTAOptions{L: l.frobenius2(), MaxIter: 1000})
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "before iteration 6")
	assert.Equal(t, 5, res.Iterations)
	assert.Equal(t, 5, c.gradCalls)
	assert.False(t, res.Converged)
	assert.True(t, math.IsNaN(res.Objective))

	// Backtracking from a tiny L rejects the first trial steps; cancel in
	// the second Func call: no third.
	ctx, cancel = context.WithCancel(context.Background())
	c = &cancelAt{FISTAProblem: l, cancel: cancel, fn: 2}
	fs.L = 0
	clear(x)
	res, err = fs.Solve(ctx, c, x, FISTAOptions{L: 1e-6, Backtrack: true, MaxIter: 1000})
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "in iteration 1")
	assert.Equal(t, 2, c.fnCalls)
	assert.Equal(t, 1, res.Backtracks)
	assert.Equal(t, 2e-6, fs.L, "the estimate learnt before the cancellation is kept")

	// A deadline is a context error too.
	dctx, dcancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer dcancel()
	<-dctx.Done()
	_, err = fs.Solve(dctx, l, x, FISTAOptions{L: 1, MaxIter: 10})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestFISTAInUse: a second Solve on the same workspace while one runs
// panics with a clear message instead of corrupting the first.
func TestFISTAInUse(t *testing.T) {
	var fs FISTA
	l := newLasso(rand.New(rand.NewPCG(35, 36)), 5, 5, 1, 0.1)
	entered, release := make(chan struct{}), make(chan struct{})
	b := &blocking{FISTAProblem: l, entered: entered, release: release}
	go func() {
		_, _ = fs.Solve(context.Background(), b, make([]float64, 5), FISTAOptions{L: 100, MaxIter: 1})
	}()
	<-entered
	assert.PanicsWithValue(t, "neadmm: FISTA.Solve: workspace already in use (by another goroutine, or re-entered from a problem method)", func() {
		_, _ = fs.Solve(context.Background(), l, make([]float64, 5), FISTAOptions{L: 100, MaxIter: 1})
	})
	close(release)
}

// blocking signals entered and waits for release in its first FuncGrad.
type blocking struct {
	FISTAProblem
	entered, release chan struct{}
}

func (b *blocking) FuncGrad(g, x []float64) float64 {
	if b.entered != nil {
		close(b.entered)
		b.entered = nil
		<-b.release
	}
	return b.FISTAProblem.FuncGrad(g, x)
}

func TestFISTAAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	l := newLasso(r, 30, 60, 4, 0.05)
	var fs FISTA
	x := make([]float64, l.cols)
	ctx, cancel := context.WithCancel(context.Background()) // a non-nil Done channel
	defer cancel()
	for _, opt := range []FISTAOptions{
		{L: l.frobenius2(), Tol: 1e-8, MaxIter: 500},
		{L: 1e-3, Backtrack: true, Restart: RestartFunction, Tol: 1e-8, MaxIter: 500},
	} {
		_, err := fs.Solve(ctx, l, x, opt)
		require.NoError(t, err)
		n := testing.AllocsPerRun(20, func() {
			clear(x)
			if _, err := fs.Solve(ctx, l, x, opt); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, n, "%+v: allocations per solve", opt)
	}
}

func TestRestartString(t *testing.T) {
	assert.Equal(t, "gradient", RestartGradient.String())
	assert.Equal(t, "function", RestartFunction.String())
	assert.Equal(t, "none", RestartNone.String())
	assert.Equal(t, "Restart(9)", Restart(9).String())
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
		res, err := fs.Solve(context.Background(), l, x, opt)
		if err != nil || !res.Converged {
			b.Fatal(err, res)
		}
		iters = res.Iterations
	}
	b.ReportMetric(float64(iters), "iters/solve")
}

// TestFISTABacktrackRule checks the sufficient-decrease test on
// f(x) = 4x^2 (d = 8) from x = 1, where f(z) - bound = (8 - L)/2 (z - 1)^2
// exactly: a trial step is accepted iff L >= 8, up to the documented slack
// of a few ulps of |f(y)| = 4.
func TestFISTABacktrackRule(t *testing.T) {
	ctx := context.Background()
	q := &quadratic{d: []float64{8}, c: []float64{0}}
	for _, tc := range []struct {
		l0, wantL  float64
		backtracks int
	}{
		{1, 8, 3},   // 1, 2, 4 rejected; at 8 z = 0 and f(z) = bound
		{8, 8, 0},   // the exact constant
		{16, 16, 0}, // an overestimate is kept (L never decreases)
		// L0 = 8(1 - 2^-40): f(z) exceeds the bound by about 2^-38, a
		// relative 2^-40 of f(y), far above rounding (2^-50 of f(y)) and
		// the slack, so it is rejected once.
		{8 - 0x1p-37, 16 - 0x1p-36, 1},
	} {
		var fs FISTA
		x := []float64{1}
		res, err := fs.Solve(ctx, q, x, FISTAOptions{L: tc.l0, Backtrack: true, MaxIter: 1})
		require.NoError(t, err, "L0 = %g", tc.l0)
		assert.Equal(t, tc.backtracks, res.Backtracks, "L0 = %g", tc.l0)
		assert.Equal(t, tc.wantL, res.L, "L0 = %g", tc.l0)
	}
	// Started at the minimizer: f(y) = 0, so the slack is 0 and the trial
	// step (z = y, f(z) = bound = 0) passes on equality alone.
	var fs FISTA
	x := []float64{0}
	res, err := fs.Solve(ctx, q, x, FISTAOptions{L: 1, Backtrack: true, MaxIter: 5})
	require.NoError(t, err)
	assert.True(t, res.Converged)
	assert.Equal(t, 1, res.Iterations)
	assert.Zero(t, res.Backtracks)

	// f(y) = 0.5e250 x^2 from x = 1: L must pass 1e250, i.e. reach 2^831
	// (log2(1e250) = 830.48), below the documented bound 1e300.
	var fb FISTA
	big := &quadratic{d: []float64{1e250}, c: []float64{0}}
	res, err = fb.Solve(ctx, big, []float64{1}, FISTAOptions{L: 1, Backtrack: true, MaxBacktrack: 1000, MaxIter: 1})
	require.NoError(t, err)
	assert.Equal(t, 831, res.Backtracks)
	assert.Equal(t, 0x1p831, res.L)
}

// TestFISTAFixedStep: without Backtrack the step is 1/opt.L even when the
// workspace holds a larger learnt L, and the workspace's L is left alone.
func TestFISTAFixedStep(t *testing.T) {
	q := &quadratic{d: []float64{8}, c: []float64{0}}
	fs := FISTA{L: 100}
	x := []float64{1}
	res, err := fs.Solve(context.Background(), q, x, FISTAOptions{L: 8, MaxIter: 1})
	require.NoError(t, err)
	assert.Equal(t, 0.0, x[0], "the step 1/8 lands on the minimizer exactly")
	assert.Equal(t, 8.0, res.L)
	assert.Equal(t, 100.0, fs.L, "the workspace's estimate")
}

// script is a one-dimensional FISTA problem with f = 0 (so the trial step
// from y is the Prox input y itself) whose Prox returns next(k, y, x): the
// iterate x_(k+1) of iteration k as a function of the extrapolation point
// y_k and the current iterate x_k. It records every y_k and x_(k+1), so a
// test can check FISTA's bookkeeping (restart tests, momentum, stopping
// test) against the documented formulas. g(x) = c*x.
type script struct {
	x0     float64
	next   func(k int, y, x float64) float64
	c      float64
	ys, xs []float64
}

func (s *script) Func([]float64) float64 { return 0 }
func (s *script) FuncGrad(g, x []float64) float64 {
	s.ys = append(s.ys, x[0])
	g[0] = 0
	return 0
}
func (s *script) Prox(dst, x []float64, _ float64) {
	cur := s.x0
	if len(s.xs) > 0 {
		cur = s.xs[len(s.xs)-1]
	}
	dst[0] = s.next(len(s.xs)+1, x[0], cur)
	s.xs = append(s.xs, dst[0])
}
func (s *script) Nonsmooth(x []float64) float64 { return s.c * x[0] }

// run solves s from x0 and checks every extrapolation point against
// O'Donoghue and Candes' restart rule (restart[k] given, or recomputed for
// the gradient scheme) and Beck and Teboulle's momentum: theta_1 = 1,
// theta_(k+1) = (1 + sqrt(1 + 4 theta_k^2))/2, y_k = x_k +
// (theta_(k-1) - 1)/theta_k (x_k - x_(k-1)), theta reset to 1 and y_k = x_k
// after a restart. It returns the restarts it counted.
func (s *script) run(t *testing.T, opt FISTAOptions, restartAt func(k int) bool) (FISTAResult, int) {
	t.Helper()
	var fs FISTA
	x := []float64{s.x0}
	res, err := fs.Solve(context.Background(), s, x, opt)
	require.NoError(t, err)
	require.Len(t, s.xs, res.Iterations)
	require.Len(t, s.ys, res.Iterations)
	theta, restarts := 1.0, 0
	prev := s.x0
	for k := 1; k < res.Iterations; k++ { // y_(k+1) from iteration k
		xk, yk := s.xs[k-1], s.ys[k-1]
		want := xk
		restart := (yk-xk)*(xk-prev) > 0
		if restartAt != nil {
			restart = restartAt(k)
		}
		if restart {
			theta = 1
			restarts++
		} else {
			next := (1 + math.Sqrt(1+4*theta*theta)) / 2
			want = xk + (theta-1)/next*(xk-prev)
			theta = next
		}
		// y is one step from values below 16 here: 1e-13 is some 50 ulps
		// (room for a fused multiply-add), far below what a different
		// theta or restart decision moves y (0.1 or more).
		require.InDelta(t, want, s.ys[k], 1e-13, "y_%d", k+1)
		prev = xk
	}
	return res, restarts
}

// TestFISTARestartGradient: the gradient scheme restarts exactly when
// <y_k - x_(k+1), x_(k+1) - x_k> > 0. From y = x + m (m the momentum),
// x_(k+1) = y + shift gives the product -shift*(m + shift): a step on
// (+1) is not a restart, a step back by m/2 is, and one back to y (shift
// 0, product 0) is not.
func TestFISTARestartGradient(t *testing.T) {
	// A "stay" needs momentum (y != x): two iterations after a restart.
	shifts := []string{"on", "on", "on", "stay", "on", "back", "on", "on", "back", "on", "on", "stay", "on"}
	s := &script{x0: 0, next: func(k int, y, x float64) float64 {
		switch shifts[k-1] {
		case "on":
			return y + 1
		case "back":
			return y - (y-x)/2
		}
		return y
	}}
	res, restarts := s.run(t, FISTAOptions{L: 1, MaxIter: len(shifts)}, nil)
	assert.Equal(t, len(shifts), res.Iterations)
	assert.False(t, res.Converged)
	assert.Equal(t, 2, restarts, "the two steps back")
	assert.Equal(t, restarts, res.Restarts)
}

// TestFISTARestartFunction: the function scheme restarts exactly when
// f + g increases (g(x) = x here: when x increases), starting from g(x0),
// and never on an equal value (c = 0: f + g is always 0).
func TestFISTARestartFunction(t *testing.T) {
	xs := []float64{5, 3, 4, 4.5, 1, 2, 0.5, 0.25}
	next := func(k int, _, _ float64) float64 { return xs[k-1] }
	s := &script{x0: 10, next: next, c: 1}
	res, restarts := s.run(t, FISTAOptions{L: 1, Restart: RestartFunction, MaxIter: len(xs)},
		func(k int) bool { return k == 3 || k == 4 || k == 6 })
	assert.Equal(t, 3, res.Restarts)
	assert.Equal(t, 3, restarts)
	assert.Equal(t, 0.25, res.Objective, "f + g at the last iterate")

	s = &script{x0: 10, next: next}
	res, _ = s.run(t, FISTAOptions{L: 1, Restart: RestartFunction, MaxIter: len(xs)}, func(int) bool { return false })
	assert.Zero(t, res.Restarts, "f + g constant")
}

// TestFISTATol: the stopping test ||x_k - x_(k-1)|| <= Tol*max(1, ||x_k||)
// at its boundary, with the new iterate's norm, and the 1 for small
// iterates.
func TestFISTATol(t *testing.T) {
	for _, tc := range []struct {
		name     string
		xs       []float64
		tol      float64
		wantIter int // 0: not converged
	}{
		{"equal", []float64{0.5, 0.75}, 0.5, 1},           // 0.5 <= 0.5*max(1, 0.5)
		{"above", []float64{0.5 + 0x1p-40, -0.5}, 0.5, 0}, // just above
		{"new norm", []float64{100, 150}, 1, 1},           // 100 <= 1*100, not 1*max(1, 0)
		{"relative", []float64{100, 101}, 0.01, 2},        // 1 <= 0.01*101
		{"small iterate", []float64{0.5, 0.508}, 0.01, 2}, // 0.008 <= 0.01*1
		{"unchanged, Tol 0", []float64{3, 4, 4}, 0, 3},
	} {
		s := &script{next: func(k int, _, _ float64) float64 { return tc.xs[k-1] }}
		var fs FISTA
		x := []float64{0}
		res, err := fs.Solve(context.Background(), s, x, FISTAOptions{L: 1, Restart: RestartNone, Tol: tc.tol, MaxIter: len(tc.xs)})
		require.NoError(t, err, tc.name)
		if tc.wantIter == 0 {
			assert.False(t, res.Converged, tc.name)
			assert.Equal(t, len(tc.xs), res.Iterations, tc.name)
			continue
		}
		assert.True(t, res.Converged, tc.name)
		assert.Equal(t, tc.wantIter, res.Iterations, tc.name)
		assert.Equal(t, tc.xs[tc.wantIter-1], x[0], tc.name)
	}
}

// constF is quadratic with f(y) replaced by a constant in FuncGrad.
type constF struct {
	quadratic
	f float64
}

func (c *constF) FuncGrad(g, x []float64) float64 {
	c.quadratic.FuncGrad(g, x)
	return c.f
}

// TestFISTANotFinite: an infinite f(y), and an iterate or a step that is
// not finite, are errors that leave x at the last accepted finite iterate
// and do not report convergence.
func TestFISTANotFinite(t *testing.T) {
	ctx := context.Background()
	for _, f := range []float64{math.Inf(1), math.Inf(-1)} {
		var fs FISTA
		x := []float64{2}
		res, err := fs.Solve(ctx, &constF{quadratic{d: []float64{1}, c: []float64{0}}, f}, x, FISTAOptions{L: 1, MaxIter: 3})
		require.ErrorIs(t, err, ErrNotFinite, "f(y) = %g", f)
		assert.ErrorContains(t, err, "iteration 1: f(y)")
		assert.Equal(t, []float64{2}, x)
		assert.False(t, res.Converged)
	}
	// A failure while the context happens to be cancelled is still a
	// failure: the workspace does not keep that solve's L.
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	var fs FISTA
	c := &cancelAt{FISTAProblem: &constF{quadratic{d: []float64{1}, c: []float64{0}}, math.Inf(1)}, cancel: cancel, grad: 1}
	_, err := fs.Solve(ctx2, c, []float64{2}, FISTAOptions{L: 3, Backtrack: true, MaxIter: 3})
	require.ErrorIs(t, err, ErrNotFinite)
	assert.Zero(t, fs.L, "a failed solve stored its L in the workspace")

	for _, tc := range []struct {
		name string
		xs   []float64
		want string
	}{
		{"iterate", []float64{1, math.Inf(1), 3}, "iteration 2: iterate"},
		{"iterate", []float64{1, math.NaN(), 3}, "iteration 2: iterate"},
		// Finite iterates whose difference overflows.
		{"step", []float64{1e308, -1e308, 3}, "iteration 2: step"},
	} {
		s := &script{next: func(k int, _, _ float64) float64 { return tc.xs[k-1] }}
		var fs FISTA
		x := []float64{0}
		res, err := fs.Solve(ctx, s, x, FISTAOptions{L: 1, Restart: RestartNone, MaxIter: 3})
		require.ErrorIs(t, err, ErrNotFinite, tc.name)
		assert.ErrorContains(t, err, tc.want)
		last := tc.xs[0]
		if tc.name == "step" {
			last = tc.xs[1] // finite: it is accepted
		}
		assert.Equal(t, last, x[0], tc.name)
		assert.False(t, res.Converged, tc.name)
	}
}
