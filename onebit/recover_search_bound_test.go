package onebit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBoundSound checks the pool's bound on trial supports that swap one
// coordinate of the true support: when it claims a margin of at most f,
// Wolfe's algorithm on all rows finds no more; and once the pool holds a
// trial's support vectors it certifies that trial just above its margin.
func TestBoundSound(t *testing.T) {
	const m, n, k = 300, 200, 8
	claims, certified := 0, 0
	for seed := range uint64(4) {
		in, err := Generate(GenOptions{M: m, N: n, K: k, Seed: 300 + seed})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewProblem(in.Phi, m, n, in.Y)
		if err != nil {
			t.Fatal(err)
		}
		var s Solver
		s.resize(p)
		s.op = &s.full
		s.cell.out = make([]bool, m)
		s.cell.maxIter = 1000
		s.sw.reset(m)
		copy(s.x, in.X)
		var sup []int
		for j, v := range in.X {
			if v != 0 {
				sup = append(sup, j)
			}
		}
		var res RecoverResult
		mu := s.searchMargin(p, sup, 0, nil, nil, &res) // its corral joins the pool
		if !(mu > 0) {
			t.Fatalf("seed %d: margin %g on the true support", seed, mu)
		}
		r := rand.New(rand.NewPCG(seed, 7))
		for range 30 {
			tr := slices.Clone(sup)
			u := r.IntN(k)
			c := r.IntN(n)
			for slices.Contains(sup, c) {
				c = r.IntN(n)
			}
			tr[u] = c
			slices.Sort(tr)
			s.x[c] = s.x[sup[u]]
			floors := []float64{0, mu / 4, mu / 2, mu, 2 * mu}
			var below [5]bool
			for f, fl := range floors {
				below[f] = s.below(p, tr, fl)
			}
			mg := s.searchMargin(p, tr, 0, nil, nil, &res)
			for f, fl := range floors {
				if below[f] {
					claims++
					if mg > fl {
						t.Errorf("seed %d: bound claims margin <= %g, Wolfe finds %g", seed, fl, mg)
					}
				}
			}
			if mg > 0 {
				if s.below(p, tr, mg*(1+1e-6)) {
					certified++
				} else {
					t.Errorf("seed %d: the pool holds the trial's support vectors but does not bound its margin %g", seed, mg)
				}
			}
			s.x[c] = 0
		}
	}
	t.Logf("%d claims checked, %d trials certified", claims, certified)
	if claims == 0 {
		t.Error("the bound claimed nothing")
	}
}

// TestBoundSameEstimates checks that the bound leaves Recover's estimates
// as they are, bit for bit, while it leaves out margin computations.
func TestBoundSameEstimates(t *testing.T) {
	bounded := 0
	recoverOnOff(t, 500, "with the bound", "without", func(s *Solver) { s.sw.boundOff = true },
		func(f int, seed uint64, rOn, rOff RecoverResult) {
			if rOff.Bounded != 0 {
				t.Errorf("family %d seed %d: %d trials bounded with the bound off", f, seed, rOff.Bounded)
			}
			if rOn.Margins+rOn.Bounded != rOff.Margins || rOn.Swapped != rOff.Swapped || rOn.Pruned != rOff.Pruned || rOn.Margin != rOff.Margin {
				t.Errorf("family %d seed %d: margins %d + %d bounded, swapped %d, pruned %d, margin %v; without the bound %d, %d, %d, %v",
					f, seed, rOn.Margins, rOn.Bounded, rOn.Swapped, rOn.Pruned, rOn.Margin, rOff.Margins, rOff.Swapped, rOff.Pruned, rOff.Margin)
			}
			bounded += rOn.Bounded
		})
	if bounded == 0 {
		t.Error("the bound left out no trial")
	}
}

// TestBoundBoundary checks below on 2 x 2 cases small enough to trace by
// hand. Phi = I, y = (1, 1): the hull of the rows e_1, e_2 has its point of
// minimum norm at (1/2, 1/2), so the margin is 1/sqrt 2 (Wolfe's iterates
// are exact to a few ulps here). After the margin computation the pool
// holds both rows: a floor 1e-10 below the margin must not be claimed
// (boundSafety asks the bound to reach 1e-9 below the floor; a slack on
// the other side claims a margin below a floor it exceeds), the bound then
// ran to the pool's minimum-norm point (ran); a floor 1e-8 above it is
// claimed, and ran is false. The cost: Wolfe's algorithm on the pool from
// e_1 (the first of the equal <b_i, x>) takes the load and two major
// cycles (the second finds no better row): 3 passes over the pool's
// 2 rows x 2 columns, 3 full products' worth of the 2 x 2 Phi. Phi with
// rows e_1 and -e_1 (on a support of 2, the second column zero): the hull
// holds the origin, and floor 0 is claimed.
func TestBoundBoundary(t *testing.T) {
	s, p := boundSolver(t, []float64{1, 0, 0, 1}, 2, 2, []float64{1, 1})
	sup := []int{0, 1}
	var res RecoverResult
	mu := s.searchMargin(p, sup, 0, nil, nil, &res) // its corral joins the pool
	require.InDelta(t, math.Sqrt(0.5), mu, 1e-15)
	w0 := s.ws.work
	require.False(t, s.below(p, sup, mu*(1-1e-10)))
	require.True(t, s.sw.bound.ran)
	require.Equal(t, 3.0, s.ws.work-w0) // integers: exact
	require.True(t, s.below(p, sup, mu*(1+1e-8)))
	require.False(t, s.sw.bound.ran)

	s, p = boundSolver(t, []float64{1, 0, -1, 0}, 2, 2, []float64{1, 1})
	require.False(t, s.searchMargin(p, sup, 0, nil, nil, &res) > 0)
	require.True(t, s.below(p, sup, 0))
	require.False(t, s.below(p, sup, -1), "a negative floor is never claimed")
}

// TestBoundPoolCap pins the pool's cap (boundPool, inclusive: "a pool
// that would grow past it starts again from the latest corral"): 90 rows
// and a corral of 6 new ones make 96, all kept; a corral of 7 would make
// 97, and the pool restarts from those 7.
func TestBoundPoolCap(t *testing.T) {
	corral := func(rows ...int) *wolfeWork {
		var src wolfeWork
		for t, i := range rows {
			src.corral = append(src.corral, t)
			src.rowIdx = append(src.rowIdx, i)
		}
		return &src
	}
	seq := func(lo, hi int) []int {
		var r []int
		for i := lo; i < hi; i++ {
			r = append(r, i)
		}
		return r
	}
	for _, c := range []struct {
		add  int
		want []int
	}{{6, seq(0, 96)}, {7, seq(90, 97)}} {
		var sw searchWork
		sw.reset(200)
		bw := sw.bound
		bw.addCorral(corral(seq(0, 90)...))
		require.Len(t, bw.rows, 90)
		bw.addCorral(corral(seq(90, 90+c.add)...))
		require.Equal(t, c.want, bw.rows, "90 rows and a corral of %d", c.add)
		for i := range 200 {
			require.Equal(t, slices.Contains(c.want, i), bw.in[i], "row %d", i)
		}
		for t2, i := range bw.rows {
			require.Equal(t, t2, bw.pos[i])
		}
	}
}
