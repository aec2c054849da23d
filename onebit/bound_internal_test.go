package onebit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
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

// recoverOnOff runs Recover with the default options on four seeds (from
// seed0) of two families (Generate and rademacher; N = 1000, M = 500,
// K = 10 and 20), with a fresh Solver and with one that off changed,
// fails unless the two estimates are the same bit for bit (on and offName
// name the two in the message), and passes both results to check.
func recoverOnOff(t *testing.T, seed0 uint64, onName, offName string, off func(*Solver), check func(f int, seed uint64, rOn, rOff RecoverResult)) {
	t.Helper()
	const n = 1000
	for seed := range uint64(4) {
		for f, fam := range []struct{ m, k int }{{500, 10}, {500, 20}} {
			var p *Problem
			if f == 0 {
				in, err := Generate(GenOptions{M: fam.m, N: n, K: fam.k, Seed: seed0 + seed})
				if err != nil {
					t.Fatal(err)
				}
				if p, err = NewProblem(in.Phi, fam.m, n, in.Y); err != nil {
					t.Fatal(err)
				}
			} else {
				_, p = rademacherFor(t, fam.m, n, fam.k, 0, seed0+seed)
			}
			var on, offS Solver
			off(&offS)
			xOn, xOff := make([]float64, n), make([]float64, n)
			rOn, err := on.Recover(context.Background(), p, xOn, DefaultRecoverOptions())
			if err != nil {
				t.Fatal(err)
			}
			rOff, err := offS.Recover(context.Background(), p, xOff, DefaultRecoverOptions())
			if err != nil {
				t.Fatal(err)
			}
			for j := range xOn {
				if math.Float64bits(xOn[j]) != math.Float64bits(xOff[j]) {
					t.Fatalf("family %d seed %d: x[%d] = %v %s, %v %s", f, seed, j, xOn[j], onName, xOff[j], offName)
				}
			}
			check(f, seed, rOn, rOff)
		}
	}
}
