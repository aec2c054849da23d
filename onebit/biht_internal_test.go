package onebit

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neadmm/neadmm/vec"
)

// TestSelectKth checks the selection against a full sort on inputs that
// stress a quickselect: ties, runs, sorted and reversed orders, organ
// pipes, signed zeros, and with partition budgets down to 0 (the sort
// fallback).
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func(n int) []float64{
		"random": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			return a
		},
		"few values": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(rng.IntN(3))
			}
			return a
		},
		"ascending": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(i)
			}
			return a
		},
		"descending": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(n - i)
			}
			return a
		},
		"organ pipe": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(min(i, n-1-i))
			}
			return a
		},
		"zeros": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				if rng.IntN(2) == 0 {
					a[i] = math.Copysign(0, -1)
				}
			}
			return a
		},
	}
	for name, gen := range gens {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 16, 33, 100, 1000} {
			a := gen(n)
			want := slices.Clone(a)
			slices.Sort(want)
			for _, k := range []int{0, 1, n / 2, n - 2, n - 1} {
				if k < 0 || k >= n {
					continue
				}
				for _, budget := range []int{-1, 0, 1, 3} {
					b := slices.Clone(a)
					var got float64
					if budget < 0 {
						got = selectKth(b, k)
					} else {
						got = selectKthBudget(b, k, budget)
					}
					if got != want[k] {
						t.Fatalf("%s n=%d k=%d budget=%d: got %g, want %g", name, n, k, budget, got, want[k])
					}
					slices.Sort(b)
					w := slices.Clone(a)
					slices.Sort(w)
					if !slices.Equal(b, w) {
						t.Fatalf("%s n=%d k=%d: not a permutation of the input", name, n, k)
					}
				}
			}
		}
	}
}

// TestMulSparse checks the gathered product against the dense one within
// the rounding bound of a sum of nz terms, nz*eps*sum|phi_ij x_j|, on both
// sides of the gather threshold, and its cost accounting.
func TestMulSparse(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 300, N: 400, K: 5, Seed: 4})
	rng := rand.New(rand.NewPCG(3, 4))
	var op operator
	op.setFull(p)
	dense, got := make([]float64, p.m), make([]float64, p.m)
	for _, nz := range []int{0, 1, 5, 40, p.n/gatherCols - 1, p.n / gatherCols, p.n} {
		x := make([]float64, p.n)
		for _, j := range rng.Perm(p.n)[:nz] {
			x[j] = rng.NormFloat64()
		}
		vec.MulVec(dense, p.phi, p.m, p.n, x)
		w0 := op.work
		op.mulSparse(got, x)
		for i := range got {
			bound := 0.0
			for j, v := range x {
				bound += math.Abs(p.phi[i*p.n+j] * v)
			}
			bound *= float64(nz+1) * 0x1p-52
			if math.Abs(got[i]-dense[i]) > bound {
				t.Fatalf("nz=%d row %d: %g, dense %g (bound %g)", nz, i, got[i], dense[i], bound)
			}
		}
		wantWork := 1.0
		if nz*gatherCols < p.n {
			wantWork = float64(nz) / float64(p.n)
		}
		if w := op.work - w0; math.Abs(w-wantWork) > 1e-15 {
			t.Errorf("nz=%d: work %g, want %g", nz, w, wantWork)
		}
	}
	zero := make([]float64, p.n)
	zero[7] = 1
	if allocs := testing.AllocsPerRun(10, func() { op.mulSparse(got, zero) }); allocs != 0 {
		t.Errorf("mulSparse allocates %g times per call", allocs)
	}
}

// TestBIHTReference runs BIHT beside a direct transcription of its
// definition (dense products, a full sort for the threshold): the supports
// must agree and the estimates only by rounding, at several sparsities and
// with flipped signs (where BIHT runs to its cap and cycles).
func TestBIHTReference(t *testing.T) {
	for _, c := range []GenOptions{
		{M: 250, N: 500, K: 10, Seed: 1},
		{M: 500, N: 500, K: 20, Seed: 2},
		{M: 400, N: 300, K: 60, Seed: 3},
		{M: 300, N: 500, K: 10, Seed: 4, Flip: 0.03},
	} {
		_, p := problemFor(t, c)
		x := make([]float64, p.n)
		res, err := BIHT(context.Background(), p, x, BIHTOptions{K: c.K, MaxIter: 60})
		if err != nil {
			t.Fatal(err)
		}
		ref, counts := bihtReference(p, c.K, 60, 0)
		if it := len(counts); it != res.Iterations {
			t.Errorf("%+v: %d iterations, reference %d", c, res.Iterations, it)
		}
		for j := range x {
			if (x[j] == 0) != (ref[j] == 0) || math.Abs(x[j]-ref[j]) > 1e-12 {
				t.Fatalf("%+v: x[%d] = %g, reference %g", c, j, x[j], ref[j])
			}
		}
	}
}

// bihtReference is BIHT as its documentation states it, with plain loops,
// and with patience > 0 the early stop of bihtWork.run as its doc states
// it: after patience iterations without a new lowest count of violated
// signs. It returns the estimate and the count of each iteration run.
func bihtReference(p *Problem, k, maxIter, patience int) ([]float64, []int) {
	x, _, counts := aopReference(p, k, 0, maxIter, patience)
	return x, counts
}

// aopReference is adaptive outlier pursuit as pursue's doc states it, with
// plain loops: BIHT whose residual leaves out, at each iteration, the l
// violated signs of least y_i (Phi x)_i (ties: the lower row), with the
// same stops (a count of 0 outside them, a fixed point, or patience > 0
// iterations without a new lowest count). It returns the last estimate,
// the first with the lowest count (both normalized) and the count of each
// iteration run. With l = 0 it is BIHT.
func aopReference(p *Problem, k, l, maxIter, patience int) (last, best []float64, counts []int) {
	m, n := p.m, p.n
	x, r := make([]float64, n), slices.Clone(p.y)
	for it := 1; it <= maxIter; it++ {
		old := slices.Clone(x)
		for j := range n {
			g := 0.0
			for i := range m {
				g += p.phi[i*n+j] * r[i]
			}
			x[j] += 0.5 / float64(m) * g
		}
		order := make([]int, n)
		for j := range order {
			order[j] = j
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(math.Abs(x[b]), math.Abs(x[a])) })
		for _, j := range order[k:] {
			x[j] = 0
		}
		ax := make([]float64, m)
		var violated []int
		for i := range m {
			for j := range n {
				ax[i] += p.phi[i*n+j] * x[j]
			}
			if sign(ax[i]) != p.y[i] {
				violated = append(violated, i)
			}
		}
		slices.SortStableFunc(violated, func(a, b int) int { return cmp.Compare(p.y[a]*ax[a], p.y[b]*ax[b]) })
		out := make([]bool, m)
		for _, i := range violated[:min(l, len(violated))] {
			out[i] = true
		}
		bad := 0
		for i := range m {
			r[i] = 0
			if !out[i] {
				r[i] = p.y[i] - sign(ax[i])
			}
			if r[i] != 0 {
				bad++
			}
		}
		if len(counts) == 0 || bad < slices.Min(counts) {
			best = slices.Clone(x)
		}
		counts = append(counts, bad)
		if bad == 0 || slices.Equal(old, x) {
			break
		}
		if patience > 0 && it > patience && slices.Min(counts[:it-patience]) <= slices.Min(counts[it-patience:]) {
			break // none of the last patience counts is below all before it
		}
	}
	normalize(x)
	normalize(best)
	return x, best, counts
}

// BenchmarkMulSparse times the gathered product beside the dense kernel at
// a few sparsities (the crossover sets gatherCols).
func BenchmarkMulSparse(b *testing.B) {
	for _, sz := range []struct{ m, n int }{{500, 1000}, {4000, 4000}} {
		p := &Problem{m: sz.m, n: sz.n, phi: make([]float64, sz.m*sz.n), y: make([]float64, sz.m)}
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range p.phi {
			p.phi[i] = rng.NormFloat64()
		}
		var op operator
		op.setFull(p)
		dst := make([]float64, sz.m)
		for _, nz := range []int{10, 40, sz.n / 16, sz.n / 8, sz.n / 4} {
			x := make([]float64, sz.n)
			for _, j := range rng.Perm(sz.n)[:nz] {
				x[j] = 1
			}
			idx := appendNonzeros(nil, x)
			b.Run(fmt.Sprintf("%dx%d/nz=%d/gather", sz.m, sz.n, nz), func(b *testing.B) {
				for b.Loop() {
					op.mulCols(dst, x, idx)
				}
			})
			b.Run(fmt.Sprintf("%dx%d/nz=%d/dense", sz.m, sz.n, nz), func(b *testing.B) {
				for b.Loop() {
					op.mul(dst, x)
				}
			})
		}
	}
}
