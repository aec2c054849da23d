package onebit_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/onebit"
	"github.com/neadmm/neadmm/vec"
)

// tight returns DefaultOptions with tolerances far below the defaults', so
// the solve ends at a stationary point to high accuracy.
func tight() onebit.Options {
	o := onebit.DefaultOptions()
	o.EpsAbs, o.EpsRel, o.InnerTol, o.InnerMaxIter, o.MaxIter = 1e-11, 1e-10, 1e-13, 2000, 5000
	return o
}

// kkt returns the violation of first-order stationarity of
// ||x||_1 + lambda*l(x) on the unit sphere at x (unit norm): with
// g = lambda*grad l(x), there must be a multiplier mu with
// sign(x_j) + g_j + 2 mu x_j = 0 on the support and |g_j| <= 1 off it.
// mu is fitted by least squares on the support.
func kkt(p *onebit.Problem, x []float64, lambda float64) float64 {
	m, n := p.Dims()
	ax, r, g := make([]float64, m), make([]float64, m), make([]float64, n)
	vec.MulVec(ax, p.Phi(), m, n, x)
	for i, a := range ax {
		if p.Y()[i]*a < 0 {
			r[i] = lambda * a
		}
	}
	vec.MulTransVec(g, p.Phi(), m, n, r)
	num, den := 0.0, 0.0
	for j, v := range x {
		if v != 0 {
			num += (math.Copysign(1, v) + g[j]) * v
			den += 2 * v * v
		}
	}
	mu := -num / den
	worst := 0.0
	for j, v := range x {
		if v != 0 {
			worst = max(worst, math.Abs(math.Copysign(1, v)+g[j]+2*mu*v))
		} else {
			worst = max(worst, math.Abs(g[j])-1)
		}
	}
	return worst
}

func nonzeros(x []float64) int {
	c := 0
	for _, v := range x {
		if v != 0 {
			c++
		}
	}
	return c
}

func startObjective(p *onebit.Problem, lambda float64) float64 {
	m, n := p.Dims()
	x := make([]float64, n)
	vec.MulTransVec(x, p.Phi(), m, n, p.Y())
	vec.Scal(1/vec.Nrm2(x), x)
	return p.Objective(x, lambda)
}

func TestSolveStationary(t *testing.T) {
	var s onebit.Solver
	for seed := uint64(0); seed < 6; seed++ {
		m := 30 + 20*int(seed)
		in := mustGenerate(t, m, 60, 4, seed)
		p := mustProblem(t, in)
		for _, lambda := range []float64{0.01, 5} {
			o := tight()
			o.Lambda = lambda
			x := make([]float64, 60)
			res, err := s.Solve(context.Background(), p, x, o)
			require.NoError(t, err)
			if res.Reason != neadmm.StopConverged {
				t.Errorf("seed %d lambda %g: %v after %d iterations (r %g, s %g)", seed, lambda, res.Reason, res.Iterations, res.Primal, res.Dual)
			}
			if nx := vec.Nrm2(x); math.Abs(nx-1) > 1e-14 {
				t.Errorf("seed %d: ||x|| = %v", seed, nx)
			}
			// The residuals are below 1e-9 here; stationarity then holds
			// to about rho*||r|| + ||s|| plus the inner solver's error,
			// far below 1e-6, while a wrong gradient, prox or w-update
			// leaves violations of order 1.
			if v := kkt(p, x, lambda); v > 1e-6 {
				t.Errorf("seed %d lambda %g: stationarity violated by %g", seed, lambda, v)
			}
			if nz := nonzeros(x); lambda == 5 && nz < 2 {
				t.Errorf("seed %d lambda 5: %d non-zeros; the test wants a non-trivial support", seed, nz)
			}
			if obj := p.Objective(x, lambda); math.Abs(obj-res.Objective) > 1e-12*obj {
				t.Errorf("Result.Objective %v, Problem.Objective %v", res.Objective, obj)
			}
		}
	}
}

func TestSolveNoWorseThanTruthAndStart(t *testing.T) {
	var s onebit.Solver
	for seed := uint64(0); seed < 8; seed++ {
		in := mustGenerate(t, 80, 128, 6, seed)
		p := mustProblem(t, in)
		x := make([]float64, 128)
		res, err := s.Solve(context.Background(), p, x, onebit.DefaultOptions())
		require.NoError(t, err)
		truth, start := p.Objective(in.X, 0.01), startObjective(p, 0.01)
		pass := make([]float64, 128)
		require.NoError(t, onebit.Passive(p, pass, math.Sqrt(math.Log(128)/80)))
		passive := p.Objective(pass, 0.01)
		if res.Objective > truth || res.Objective > start || res.Objective > passive {
			t.Errorf("seed %d: objective %v, truth %v, start Phi^T y %v, passive %v", seed, res.Objective, truth, start, passive)
		}
		if res.Reason != neadmm.StopConverged || res.Products < res.InnerIterations || res.TransProducts > res.Products {
			t.Errorf("seed %d: %+v", seed, res)
		}
	}
}

// TestPaperSettingsStall documents the finding that the paper's fixed
// rho = 1 does not converge on the paper's grid while the default does,
// to a lower objective.
func TestPaperSettingsStall(t *testing.T) {
	if testing.Short() {
		t.Skip("N = 512 solves")
	}
	p := mustProblem(t, mustGenerate(t, 250, 512, 32, 0))
	var s onebit.Solver
	x := make([]float64, 512)
	paper, err := s.Solve(context.Background(), p, x, onebit.PaperOptions())
	require.NoError(t, err)
	def, err := s.Solve(context.Background(), p, x, onebit.DefaultOptions())
	require.NoError(t, err)
	if paper.Reason != neadmm.StopMaxIter || paper.Primal < 0.5 {
		t.Errorf("paper settings: %v, ||r|| = %g; expected a stall", paper.Reason, paper.Primal)
	}
	if def.Reason != neadmm.StopConverged || def.Objective >= paper.Objective {
		t.Errorf("default: %v objective %g; paper objective %g", def.Reason, def.Objective, paper.Objective)
	}
}

// TestStartString checks the starts' names and the fallback outside them.
func TestStartString(t *testing.T) {
	for s, want := range map[onebit.Start]string{
		onebit.StartBackprojection: "backprojection", onebit.StartRandom: "random",
		onebit.StartGiven: "given", onebit.Start(9): "Start(9)",
	} {
		require.Equal(t, want, s.String())
	}
}

func TestSolveStarts(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 50, 40, 3, 3))
	var s onebit.Solver
	ctx := context.Background()
	solve := func(o onebit.Options, x []float64) (onebit.Result, []float64) {
		t.Helper()
		res, err := s.Solve(ctx, p, x, o)
		require.NoError(t, err)
		return res, x
	}
	def := onebit.DefaultOptions()
	r0, x0 := solve(def, make([]float64, 40))
	// StartGiven from Phi^T y (unnormalized) follows the same path.
	given := make([]float64, 40)
	vec.MulTransVec(given, p.Phi(), 50, 40, p.Y())
	o := def
	o.Start = onebit.StartGiven
	r1, x1 := solve(o, given)
	// The same path; only the start Phi^T y is counted once more.
	r1.Products, r1.TransProducts, r1.Work = r1.Products+1, r1.TransProducts+1, r1.Work+1
	if r0 != r1 || !equal(x0, x1) {
		t.Errorf("StartGiven(Phi^T y) differs from StartBackprojection: %+v vs %+v", r0, r1)
	}
	o.Start, o.Seed = onebit.StartRandom, 5
	ra, xa := solve(o, make([]float64, 40))
	rb, xb := solve(o, make([]float64, 40))
	if ra != rb || !equal(xa, xb) {
		t.Error("StartRandom with one seed is not reproducible")
	}
	o.Seed = 6
	if rc, _ := solve(o, make([]float64, 40)); rc == ra {
		t.Error("StartRandom ignores the seed")
	}
}

// equalNaN is equal with NaN equal to NaN.
func equalNaN(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return len(a) == len(b)
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestSolveErrors(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 20, 10, 2, 1))
	var s onebit.Solver
	ctx := context.Background()
	nan := math.NaN()
	for _, c := range []struct {
		name string
		mod  func(*onebit.Options)
		x    []float64
	}{
		{"lambda 0", func(o *onebit.Options) { o.Lambda = 0 }, nil},
		{"lambda < 0", func(o *onebit.Options) { o.Lambda = -1 }, nil},
		{"lambda NaN", func(o *onebit.Options) { o.Lambda = nan }, nil},
		{"lambda Inf", func(o *onebit.Options) { o.Lambda = math.Inf(1) }, nil},
		{"rho 0", func(o *onebit.Options) { o.Rho = 0 }, nil},
		{"rho NaN", func(o *onebit.Options) { o.Rho = nan }, nil},
		// rho >= neadmm.MinRho: a subnormal rho passed the check, and the
		// first x-update's 1/rho = +Inf made NaN (ErrNotFinite after work).
		{"rho subnormal", func(o *onebit.Options) { o.Rho = 5e-324 }, nil},
		{"rho below MinRho", func(o *onebit.Options) { o.Rho = math.Nextafter(neadmm.MinRho, 0) }, nil},
		{"rho subnormal, full", func(o *onebit.Options) { o.Rho, o.WorkingSet = 1e-310, false }, nil},
		{"MaxIter 0", func(o *onebit.Options) { o.MaxIter = 0 }, nil},
		{"InnerMaxIter 0", func(o *onebit.Options) { o.InnerMaxIter = 0 }, nil},
		{"InnerTol < 0", func(o *onebit.Options) { o.InnerTol = -1 }, nil},
		{"InnerRel < 0", func(o *onebit.Options) { o.InnerRel = -1 }, nil},
		{"InnerRel NaN", func(o *onebit.Options) { o.InnerRel = nan }, nil},
		{"Start", func(o *onebit.Options) { o.Start = 9 }, nil},
		{"EpsAbs < 0", func(o *onebit.Options) { o.EpsAbs = -1 }, nil},
		{"EpsRel Inf", func(o *onebit.Options) { o.EpsRel = math.Inf(1) }, nil},
		{"short x", func(o *onebit.Options) {}, make([]float64, 9)},
		{"given zero", func(o *onebit.Options) { o.Start = onebit.StartGiven }, make([]float64, 10)},
		{"given NaN", func(o *onebit.Options) { o.Start = onebit.StartGiven }, []float64{1, nan, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"given Inf", func(o *onebit.Options) { o.Start = onebit.StartGiven }, []float64{1, 0, math.Inf(-1), 0, 0, 0, 0, 0, 0, 0}},
		{"RhoGrowth < 1", func(o *onebit.Options) { o.Policy = neadmm.RhoGeometric; o.RhoGrowth = 0.5 }, nil},
		{"Policy", func(o *onebit.Options) { o.Policy = 7 }, nil},
	} {
		o := onebit.DefaultOptions()
		c.mod(&o)
		x := c.x
		if x == nil {
			x = make([]float64, 10)
			for j := range x {
				x[j] = float64(j + 1)
			}
		}
		before := append([]float64(nil), x...)
		res, err := s.Solve(ctx, p, x, o)
		if !errors.Is(err, onebit.ErrBadInput) {
			t.Errorf("%s: error %v, want ErrBadInput", c.name, err)
		}
		// Before any work: x untouched, no product, no iteration.
		if !equalNaN(x, before) || res.Products != 0 || res.Iterations != 0 {
			t.Errorf("%s: x %v -> %v, %d products, %d iterations; want no work", c.name, before, x, res.Products, res.Iterations)
		}
	}
	// Any finite non-zero start is valid, however small or large its norm:
	// normalizing it must not overflow into Inf or NaN.
	for _, scale := range []float64{1e-320, 0x1p-1074, math.MaxFloat64} {
		o := onebit.DefaultOptions()
		o.Start, o.MaxIter = onebit.StartGiven, 3
		x := make([]float64, 10)
		x[0], x[3] = scale, -scale
		if _, err := s.Solve(ctx, p, x, o); err != nil {
			t.Errorf("start %g: %v", scale, err)
		}
		if nx := vec.Nrm2(x); math.Abs(nx-1) > 1e-12 {
			t.Errorf("start %g: ||x|| = %v, want 1", scale, nx)
		}
	}
}

func TestSolveCancelAndCallback(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 60, 50, 3, 2))
	var s onebit.Solver
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := make([]float64, 50)
	res, err := s.Solve(ctx, p, x, onebit.PaperOptions())
	if !errors.Is(err, context.Canceled) || res.Reason != neadmm.StopCancelled {
		t.Errorf("cancelled: %v, %v", err, res.Reason)
	}
	if math.Abs(vec.Nrm2(x)-1) > 1e-14 {
		t.Errorf("cancelled solve left ||x|| = %v, want the normalized start", vec.Nrm2(x))
	}
	o := onebit.PaperOptions()
	var seen []neadmm.Iteration
	o.Callback = func(it neadmm.Iteration) bool {
		seen = append(seen, it)
		return it.K == 3
	}
	res, err = s.Solve(context.Background(), p, x, o)
	if err != nil || res.Reason != neadmm.StopCallback || res.Iterations != 3 || len(seen) != 3 {
		t.Fatalf("callback stop: %v %+v, %d calls", err, res, len(seen))
	}
	for _, it := range seen {
		if math.IsNaN(it.Objective) || it.Rho != 1 {
			t.Errorf("iteration %+v: want an objective and rho = 1", it)
		}
	}

	// The objective costs one product per iteration when a callback asks
	// for it, and nothing otherwise (the engine evaluates none at the end:
	// Solve does, at the normalized estimate): the same solve, with
	// identical iterates, differs in products by exactly that.
	o = onebit.DefaultOptions()
	o.MaxIter = 7
	plain, err := s.Solve(context.Background(), p, x, o)
	require.NoError(t, err)
	o.Callback = func(neadmm.Iteration) bool { return false }
	logged, err := s.Solve(context.Background(), p, x, o)
	if err != nil || logged.Iterations != plain.Iterations || logged.InnerIterations != plain.InnerIterations {
		t.Fatalf("with a callback: %v, %+v; without: %+v", err, logged, plain)
	}
	if d := logged.Products - plain.Products; d != plain.Iterations {
		t.Errorf("the callback's objectives cost %d products over %d iterations, want %d", d, plain.Iterations, plain.Iterations)
	}
}

func TestSolveAllocs(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 60, 50, 3, 2))
	var s onebit.Solver
	x := make([]float64, 50)
	ctx := context.Background()
	o := onebit.DefaultOptions()
	ro := onebit.DefaultRecoverOptions()
	s.Solve(ctx, p, x, o) // size the workspace
	if a := testing.AllocsPerRun(5, func() { s.Solve(ctx, p, x, o) }); a != 0 {
		t.Errorf("Solve allocates %v times per call", a)
	}
	// StartRandom too: it made a new generator at every solve (1
	// allocation per call); the Solver's is reseeded now.
	or := o
	or.Start, or.Seed = onebit.StartRandom, 7
	s.Solve(ctx, p, x, or)
	if a := testing.AllocsPerRun(5, func() { or.Seed++; s.Solve(ctx, p, x, or) }); a != 0 {
		t.Errorf("Solve with StartRandom allocates %v times per call", a)
	}
	s.Recover(ctx, p, x, ro)
	if a := testing.AllocsPerRun(2, func() { s.Recover(ctx, p, x, ro) }); a != 0 {
		t.Errorf("Recover allocates %v times per call", a)
	}
	// A smaller problem reuses the buffers.
	small := mustProblem(t, mustGenerate(t, 30, 20, 2, 2))
	xs := make([]float64, 20)
	if a := testing.AllocsPerRun(3, func() { s.Solve(ctx, small, xs, o) }); a != 0 {
		t.Errorf("Solve of a smaller problem allocates %v times", a)
	}
}

func TestSolveConcurrent(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 80, 60, 4, 9))
	var ref onebit.Solver
	want := make([]float64, 60)
	wres, err := ref.Solve(context.Background(), p, want, onebit.DefaultOptions())
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s onebit.Solver
			x := make([]float64, 60)
			res, err := s.Solve(context.Background(), p, x, onebit.DefaultOptions())
			if err != nil || res != wres || !equal(x, want) {
				t.Errorf("concurrent solve differs: %v %+v", err, res)
			}
		}()
	}
	wg.Wait()
}

func TestTinySizes(t *testing.T) {
	ctx := context.Background()
	for _, d := range [][2]int{{3, 1}, {1, 3}, {1, 1}} {
		in := mustGenerate(t, d[0], d[1], 1, 5)
		p := mustProblem(t, in)
		var s onebit.Solver
		x := make([]float64, d[1])
		if _, err := s.Solve(ctx, p, x, onebit.DefaultOptions()); err != nil || math.Abs(vec.Nrm2(x)-1) > 1e-14 {
			t.Errorf("%v Solve: %v, x = %v", d, err, x)
		}
		if _, err := s.Recover(ctx, p, x, onebit.DefaultRecoverOptions()); err != nil || math.Abs(vec.Nrm2(x)-1) > 1e-14 {
			t.Errorf("%v Recover: %v, x = %v", d, err, x)
		}
		if _, err := onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: 1, MaxIter: 10}); err != nil || math.Abs(vec.Nrm2(x)-1) > 1e-14 {
			t.Errorf("%v BIHT: %v, x = %v", d, err, x)
		}
	}
}

// TestSolveTinyRho guards the adaptive step of the working-set FISTA: it
// starts from L = rho, and with Rho = 1e-200 the first trial step 1/L
// overflows (f(z) = +Inf). The sufficient-decrease test read +Inf <= +Inf
// and accepted it, and the solve failed with neadmm.ErrNotFinite where the
// full-matrix solve (fixed step) succeeded; now L doubles until the step
// is finite. Recover with rho = lambda^-60 reaches the same code.
func TestSolveTinyRho(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 100, 80, 4, 3))
	ctx := context.Background()
	for _, rho := range []float64{1e-200, neadmm.MinRho} { // MinRho: the smallest valid
		for _, ws := range []bool{false, true} {
			o := onebit.DefaultOptions()
			o.Lambda, o.Rho, o.WorkingSet = 10, rho, ws
			var s onebit.Solver
			x := make([]float64, 80)
			res, err := s.Solve(ctx, p, x, o)
			require.NoError(t, err, "Rho %g, WorkingSet %v", rho, ws)
			assert.InDelta(t, 1, norm(x), 1e-14, "Rho %g, WorkingSet %v", rho, ws)
			assert.False(t, math.IsNaN(res.Objective), "Rho %g, WorkingSet %v", rho, ws)
		}
	}
	ro := onebit.DefaultRecoverOptions()
	ro.RhoPower = -60 // rho = lambda^-60: 1e-120 at the first stage
	var s onebit.Solver
	x := make([]float64, 80)
	_, err := s.Recover(ctx, p, x, ro)
	require.NoError(t, err)
	assert.InDelta(t, 1, norm(x), 1e-14)
}

// TestSolverGuard: a Solver entered from a second goroutine while a solve
// runs panics with a clear message instead of corrupting the first solve.
// The callback of the first solve makes the overlap certain.
func TestSolverGuard(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 60, 40, 3, 2))
	var s onebit.Solver
	x, x2 := make([]float64, 40), make([]float64, 40)
	var msg string
	o := onebit.DefaultOptions()
	o.MaxIter = 3
	calls := 0
	o.Callback = func(neadmm.Iteration) bool {
		calls++
		if calls > 1 {
			return false
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { msg, _ = recover().(string) }()
			s.Recover(context.Background(), p, x2, onebit.DefaultRecoverOptions())
		}()
		wg.Wait()
		return false
	}
	_, err := s.Solve(context.Background(), p, x, o)
	require.NoError(t, err)
	assert.True(t, strings.Contains(msg, "two goroutines"), "panic message %q", msg)
	// Afterwards the Solver is free again, and its result unaffected.
	want := make([]float64, 40)
	var ref onebit.Solver
	o.Callback = nil
	_, err = ref.Solve(context.Background(), p, want, o)
	require.NoError(t, err)
	_, err = s.Solve(context.Background(), p, x, o)
	require.NoError(t, err)
	assert.Equal(t, want, x)
}

// TestSolverGuardRace runs solves from several goroutines, each with its
// own Solver, on one shared Problem (the race detector checks that nothing
// is shared but the read-only Problem), and the same solve again and again
// on one Solver from two goroutines in turn, serialized by a mutex: the
// guard must not fire when the use is sequential.
func TestSolverGuardRace(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 80, 60, 4, 9))
	var shared onebit.Solver
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var own onebit.Solver
			x := make([]float64, 60)
			for range 3 {
				_, err := own.Solve(context.Background(), p, x, onebit.DefaultOptions())
				assert.NoError(t, err)
				mu.Lock()
				_, err = shared.Solve(context.Background(), p, x, onebit.PaperOptions())
				mu.Unlock()
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
}
