package onebit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// TestFISTACompact checks the working set's x-update solver
// (splitting.fistaCompact: products of the trial points only, adaptive
// step) against neadmm.FISTA with the fixed step 1/L, L = lambda
// ||A||_F^2 + rho (a true Lipschitz constant), on the same subproblems:
// plain and weighted L1, with and without the loss cap, from a start with
// violated rows. The subproblem is rho-strongly convex, so both converge to
// its one minimizer; run to a step of 1e-13, both are within
// (L/rho) 1e-13 < 1e-8 of it (L/rho < 1e5 here), so they must agree to
// 1e-7. The adaptive step must also end below the fixed one (the
// violated rows are few: otherwise the cheaper path is not exercised) and
// take fewer steps, and a second solve from the minimizer must stop at
// once, one product cheaper than without the product it keeps.
func TestFISTACompact(t *testing.T) {
	in, p := problemFor(t, GenOptions{M: 300, N: 400, K: 6, Seed: 3})
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name     string
		weighted bool
		cap      float64
	}{{"plain", false, 0}, {"weighted", true, 0}, {"capped", false, 0.5}} {
		t.Run(tc.name, func(t *testing.T) {
			var s Solver
			s.resize(p)
			x := make([]float64, p.n)
			s.backprojection(x, p)
			normalize(x)
			s.wsInit(p, x, 40)
			k := s.ws.k
			sp := &s.sp
			sp.p, sp.op, sp.lambda, sp.cap, sp.rho = p, &s.ws, 3, tc.cap, 2
			sp.ctx = context.Background()
			frob := 0.0
			for c := range k {
				frob += vec.Dot(s.ws.col(c), s.ws.col(c))
			}
			sp.norm2 = frob
			sp.weight = nil
			if tc.weighted {
				sp.weight = s.wt[:k]
				for c := range k {
					sp.weight[c] = 0.5 + rng.Float64()
				}
			}
			// The center: the start pulled towards the truth's columns, so
			// that some rows stay violated at the minimizer.
			for c, j := range s.ws.idx {
				sp.c[c] = s.x[c] + 0.3*in.X[j] + 0.05*rng.NormFloat64()
			}
			ref, got := make([]float64, k), make([]float64, k)
			copy(ref, s.x[:k])
			copy(got, s.x[:k])
			var f neadmm.FISTA
			L := sp.lambda*frob + sp.rho
			rr, err := f.Solve(context.Background(), sp, ref, neadmm.FISTAOptions{L: L, Tol: 1e-13, MaxIter: 200000})
			if err != nil || !rr.Converged {
				t.Fatalf("FISTA: %v, converged %v", err, rr.Converged)
			}
			sp.fw.lastL = 0
			steps, err := sp.fistaCompact(got, 1e-13, 200000)
			if err != nil || steps >= 200000 {
				t.Fatalf("fistaCompact: %v after %d steps", err, steps)
			}
			d := 0.0
			for c := range k {
				d = max(d, math.Abs(got[c]-ref[c]))
			}
			s.ws.mul(sp.ax, got)
			_, active := sp.loss()
			t.Logf("max difference %.3g; steps %d (fixed step %d), L %.4g of %.4g; violated rows at the minimizer %d",
				d, steps, rr.Iterations, sp.fw.lastL, L, sp.nviol)
			if !(d <= 1e-7) {
				t.Errorf("max |difference| %g, want <= 1e-7", d)
			}
			if !active || !(sp.fw.lastL < L/4) || steps >= rr.Iterations {
				t.Errorf("violated rows %v, final L %g (fixed %g), steps %d (fixed %d): want violations, L below a quarter, fewer steps",
					active, sp.fw.lastL, L, steps, rr.Iterations)
			}
			// From its own result it starts from the A x it kept: one
			// product fewer than from the same x with that forgotten, and
			// the same bits.
			again := slices.Clone(got)
			p0, l0 := s.ws.products, sp.fw.lastL
			steps1, err1 := sp.fistaCompact(got, 1e-9, 100)
			p1 := s.ws.products
			sp.fw.op, sp.fw.lastL = nil, l0
			steps2, err2 := sp.fistaCompact(again, 1e-9, 100)
			p2 := s.ws.products
			if err1 != nil || err2 != nil || steps1 > 2 || steps1 != steps2 || !slices.Equal(got, again) || p2-p1 != p1-p0+1 {
				t.Errorf("from the minimizer: %d and %d steps (%v, %v), %d and %d products, same x %v; want at most 2 steps, one product more without the kept A x",
					steps1, steps2, err1, err2, p1-p0, p2-p1, slices.Equal(got, again))
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			sp.ctx = ctx
			if _, err := sp.fistaCompact(got, 1e-9, 100); err == nil {
				t.Error("cancelled context: no error")
			}
		})
	}
}

// fistaSetup returns a Solver whose x-update runs fistaCompact on a
// working set of all 3 columns of a 4 x 3 Phi with positive entries and
// signs y (all +1: every non-negative non-zero x satisfies them all, and
// the loss is 0 there), with rho = 1, lambda = 1/2 and c.
func fistaSetup(t *testing.T, y float64, c []float64) *Solver {
	phi := make([]float64, 12)
	for k := range phi {
		phi[k] = float64(k%5+1) / 4
	}
	p, err := NewProblem(phi, 4, 3, []float64{y, y, y, y})
	require.NoError(t, err)
	var s Solver
	s.resize(p)
	s.wsInit(p, []float64{1, 1, 1}, 3)
	sp := &s.sp
	sp.p, sp.op, sp.lambda, sp.rho, sp.cap = p, s.op, 0.5, 1, 0
	sp.norm2 = s.ws.norm2(s.pv[:3], s.pu)
	copy(sp.c, c)
	return &s
}

// TestFISTACompactSteps pins fistaCompact's step constant and stop on a
// quadratic (no violated sign along the way, so f = rho/2 ||x - c||^2,
// curvature rho = 1), where one proximal step with constant L from x is
// soft(x - (x - c)/L, 1/L), exact in dyadic arithmetic:
//
//   - "Each x-update starts from half the constant the previous one ended
//     with (rho at first)": from lastL = 0, L = rho and the step lands on
//     the minimizer soft(c, 1) = (2, 1, 0.5) for c = (3, 2, 1.5); from
//     lastL = 4, L = 2 (the test of sufficient decrease passes: 2 is above
//     the curvature) and the step lands on soft((2, 1.5, 1.25), 0.5) =
//     (1.5, 1, 0.75), and L stays 2.
//   - The stop ("a step changes x by at most Tol relative to max(1,
//     ||x||)"): from (0.75, 0, 0) to the minimizer (0.5, 0, 0) of
//     c = (1.5, 0, 0) the step is 0.25, within 0.3 max(1, 0.5): one step
//     (relative to ||x|| = 0.5 alone it would take a second).
func TestFISTACompactSteps(t *testing.T) {
	for _, c := range []struct {
		lastL, wantL float64
		x, want      []float64
	}{{0, 1, []float64{1, 1, 1}, []float64{2, 1, 0.5}}, {4, 2, []float64{1, 1, 1}, []float64{1.5, 1, 0.75}}} {
		s := fistaSetup(t, 1, []float64{3, 2, 1.5})
		require.Greater(t, s.sp.lambda*s.sp.norm2+s.sp.rho, 4.0, "the global constant must not cap L for the test")
		s.sp.fw.lastL = c.lastL
		x := slices.Clone(c.x)
		steps, err := s.sp.fistaCompact(x, 0, 1)
		require.NoError(t, err)
		require.Equal(t, 1, steps)
		require.Equal(t, c.want, x, "previous L %g", c.lastL)
		require.Equal(t, c.wantL, s.sp.fw.lastL)
	}
	s := fistaSetup(t, 1, []float64{1.5, 0, 0})
	x := []float64{0.75, 0, 0}
	steps, err := s.sp.fistaCompact(x, 0.3, 10)
	require.NoError(t, err)
	require.Equal(t, 1, steps)
	require.Equal(t, []float64{0.5, 0, 0}, x)
}

// TestFISTACompactGlobalStep pins fistaCompact at the global constant
// ("doubles it while the trial step fails the sufficient-decrease test
// ..., up to the global constant, where the step is taken as the
// fixed-step solver takes it"): with a norm estimate of 0 the global
// constant is rho, the first step's, and the step soft(x - g, 1) is taken
// though it fails the test (checked here: the signs are all -1, every
// row violated at x, lambda = 1/2 makes the curvature far above rho).
// g = lambda A^T (A x) + rho (x - c) is computed here from Phi.
func TestFISTACompactGlobalStep(t *testing.T) {
	s := fistaSetup(t, -1, []float64{0, 0, 0})
	s.sp.norm2 = 0
	x := []float64{1, 1, 1}
	q := subproblem{a: s.sp.p.phi, m: 4, k: 3, y: s.sp.p.y, lambda: 0.5, rho: 1, c: []float64{0, 0, 0}}
	fq := func(z []float64) float64 {
		l, _ := q.loss(z)
		d := 0.0
		for _, v := range z {
			d += v * v
		}
		return q.lambda*l + d/2
	}
	_, r := q.loss(x)
	g, tt := make([]float64, 3), make([]float64, 3)
	for j := range 3 {
		g[j] = x[j]
		for i := range 4 {
			g[j] += q.lambda * q.a[i*3+j] * r[i]
		}
		tt[j] = x[j] - g[j]
	}
	want := make([]float64, 3)
	vec.SoftThreshold(want, tt, 1)
	model := fq(x)
	for j := range 3 {
		model += g[j]*(want[j]-x[j]) + (want[j]-x[j])*(want[j]-x[j])/2
	}
	require.Greater(t, fq(want), model*(1+1e-6), "the step must fail the sufficient-decrease test for the test")
	type out struct {
		steps int
		err   error
	}
	ch := make(chan out, 1)
	go func() {
		steps, err := s.sp.fistaCompact(x, 0, 1)
		ch <- out{steps, err}
	}()
	select {
	case o := <-ch:
		require.NoError(t, o.err)
		require.Equal(t, 1, o.steps)
		require.InDeltaSlice(t, want, x, 1e-12)
	case <-time.After(20 * time.Second):
		t.Fatal("fistaCompact did not take the step at the global constant (still running after 20 s)")
	}
}
