package onebit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neadmm/neadmm/vec"
)

// TestWolfeWarm checks Wolfe's algorithm started from the corral of a
// neighbouring support (wolfeWork.warm, as the search's trials start):
// the rows of s coordinates, one column then replaced by a new one, from
// the first support's final corral and weights. The warm solve must meet
// the optimality conditions of the point of minimum norm (as in
// TestWolfeOptimal), find the cold solve's margin, stop below a floor
// above it (belowFloor) and return the margin for a floor below it, and
// take fewer major cycles than the cold solve over all cases.
func TestWolfeWarm(t *testing.T) {
	warmPasses, coldPasses := 0, 0
	for _, tc := range []struct{ m, s int }{{200, 8}, {600, 20}, {1000, 30}} {
		for seed := range uint64(5) {
			r := rand.New(rand.NewPCG(seed, 77+uint64(tc.s)))
			dir := make([]float64, tc.s+1)
			for c := range dir {
				dir[c] = r.NormFloat64()
			}
			cols := make([][]float64, tc.s+1) // the last replaces column 0
			for c := range cols {
				cols[c] = make([]float64, tc.m)
				for i := range cols[c] {
					cols[c][i] = r.NormFloat64()
				}
			}
			// Signs of columns 1 to s-1, which both supports hold.
			y := make([]float64, tc.m)
			for i := range y {
				a := 0.0
				for c := 1; c < tc.s; c++ {
					a += cols[c][i] * dir[c]
				}
				y[i] = sign(a)
			}
			first := func(c int) []float64 { return cols[c] }
			second := func(c int) []float64 {
				if c == 0 {
					return cols[tc.s]
				}
				return cols[c]
			}
			var cw wolfeWork
			x := make([]float64, tc.s)
			x[0] = 1
			cw.load(tc.m, tc.s, first, y, nil)
			if mg := cw.solve(x, tc.s, 0, 10000, nil); !(mg > 0) {
				t.Fatalf("m %d s %d seed %d: margin %g on separable signs", tc.m, tc.s, seed, mg)
			}
			start := slices.Clone(cw.corral) // all rows loaded: rows are measurements
			lam := slices.Clone(cw.lam)
			// Cold on the second support, for reference.
			cw.load(tc.m, tc.s, second, y, nil)
			cw.passes = 0
			x[0] = 1
			clear(x[1:])
			cold := cw.solve(x, tc.s, 0, 10000, nil)
			coldPasses += cw.passes
			if !(cold > 0) {
				t.Fatalf("m %d s %d seed %d: cold margin %g", tc.m, tc.s, seed, cold)
			}
			warm := func(floor float64) (float64, int) {
				cw.passes = 0
				cw.start, cw.startLam = append(cw.start[:0], start...), append(cw.startLam[:0], lam...)
				return cw.solve(x, tc.s, floor, 10000, nil), cw.passes
			}
			mg, passes := warm(0)
			warmPasses += passes
			if len(cw.start) != 0 {
				t.Fatal("solve left its start set")
			}
			// Both stop within wolfeTol = 1e-12 of the minimum squared
			// norm (about 1e-3 here), so within 1e-9 in norm.
			if math.Abs(mg-cold) > 1e-9 {
				t.Errorf("m %d s %d seed %d: warm margin %g, cold %g", tc.m, tc.s, seed, mg, cold)
			}
			p := make([]float64, tc.s)
			for u, i := range cw.corral {
				vec.Axpy(cw.lam[u], cw.b[i*tc.s:(i+1)*tc.s], p)
			}
			pp := vec.Dot(p, p)
			for i := range cw.rows {
				if d := vec.Dot(cw.b[i*tc.s:(i+1)*tc.s], p) - pp; d < -1e-9 {
					t.Fatalf("m %d s %d seed %d: row %d has <b_i, p> - ||p||^2 = %g < 0", tc.m, tc.s, seed, i, d)
				}
			}
			if got, _ := warm(cold * 1.001); got != 0 || !cw.belowFloor {
				t.Errorf("m %d s %d seed %d: floor above the margin %g: got %g, belowFloor %v", tc.m, tc.s, seed, cold, got, cw.belowFloor)
			}
			if got, _ := warm(cold * 0.999); math.Abs(got-cold) > 1e-9 || cw.belowFloor {
				t.Errorf("m %d s %d seed %d: floor below the margin %g: got %g, belowFloor %v", tc.m, tc.s, seed, cold, got, cw.belowFloor)
			}
		}
	}
	t.Logf("major cycles: %d warm, %d cold", warmPasses, coldPasses)
	if warmPasses >= coldPasses {
		t.Errorf("warm starts took %d major cycles, cold %d", warmPasses, coldPasses)
	}
}

// TestAffineForwardCache checks that affine's kept forward substitution
// (z for the factor's rows that stay valid) gives the weights of a
// substitution from scratch, bit for bit, after a point is added and
// after one in the middle is dropped (which invalidates the rows from
// it on).
func TestAffineForwardCache(t *testing.T) {
	const m, s = 40, 8
	r := rand.New(rand.NewPCG(3, 4))
	cols := make([][]float64, s)
	for c := range cols {
		cols[c] = make([]float64, m)
		for i := range cols[c] {
			cols[c][i] = r.NormFloat64()
		}
	}
	y := make([]float64, m)
	for i := range y {
		y[i] = 1
	}
	var cw wolfeWork
	cw.load(m, s, func(c int) []float64 { return cols[c] }, y, nil)
	cw.gs = s + 3
	cw.gram, cw.chol = cw.gram[:cw.gs*cw.gs], cw.chol[:cw.gs*cw.gs]
	cw.kept = cw.kept[:cw.gs]
	cw.cholN, cw.zN = 0, 0
	cw.corral, cw.lam = cw.corral[:0], cw.lam[:0]
	add := func(i int) {
		cw.corral = append(cw.corral, i)
		cw.lam = append(cw.lam, 0)
		cw.gramRow(len(cw.corral)-1, s)
	}
	// fresh returns affine's weights from an empty factor, restoring the
	// state after.
	fresh := func() []float64 {
		chol, z := slices.Clone(cw.chol), slices.Clone(cw.z)
		cholN, zN := cw.cholN, cw.zN
		cw.cholN, cw.zN = 0, 0
		if !cw.affine() {
			t.Fatal("singular")
		}
		a := slices.Clone(cw.alpha)
		copy(cw.chol, chol)
		copy(cw.z, z)
		cw.cholN, cw.zN = cholN, zN
		return a
	}
	check := func(what string) {
		want := fresh()
		if !cw.affine() {
			t.Fatal("singular")
		}
		for u := range want {
			if math.Float64bits(cw.alpha[u]) != math.Float64bits(want[u]) {
				t.Fatalf("%s: alpha[%d] = %v kept, %v afresh", what, u, cw.alpha[u], want[u])
			}
		}
	}
	for i := range 5 {
		add(i)
	}
	check("five points")
	add(7)
	check("a point added")
	// Drop the corral's third point (position 2): rows 2 on move.
	q := 0
	for u := range cw.corral {
		if u != 2 {
			cw.corral[q], cw.lam[q], cw.kept[q] = cw.corral[u], cw.lam[u], u
			q++
		}
	}
	cw.corral, cw.lam = cw.corral[:q], cw.lam[:q]
	cw.compactGram(q)
	if cw.zN > 2 {
		t.Errorf("zN = %d after dropping position 2", cw.zN)
	}
	check("a point dropped")
	add(9)
	check("a point added after the drop")
}

// TestWarmSameEstimates checks that the warm starts of the search's
// trials (and of the swap's margin at each round) leave Recover's
// estimates and choices as they are, bit for bit, with fewer Wolfe
// cycles.
func TestWarmSameEstimates(t *testing.T) {
	warmIt, coldIt := 0, 0
	recoverOnOff(t, 700, "warm", "cold", func(s *Solver) { s.sw.warmOff = true },
		func(f int, seed uint64, rOn, rOff RecoverResult) {
			if rOn.Swapped != rOff.Swapped || rOn.Pruned != rOff.Pruned || rOn.Expanded != rOff.Expanded || rOn.Margin != rOff.Margin {
				t.Errorf("family %d seed %d: swapped %d, pruned %d, expanded %d, margin %v warm; %d, %d, %d, %v cold",
					f, seed, rOn.Swapped, rOn.Pruned, rOn.Expanded, rOn.Margin, rOff.Swapped, rOff.Pruned, rOff.Expanded, rOff.Margin)
			}
			warmIt += rOn.WolfeIterations
			coldIt += rOff.WolfeIterations
		})
	t.Logf("Wolfe major cycles on all rows: %d warm, %d cold", warmIt, coldIt)
	if warmIt >= coldIt {
		t.Errorf("warm starts took %d Wolfe cycles, cold %d", warmIt, coldIt)
	}
}
