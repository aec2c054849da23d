package onebit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

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
