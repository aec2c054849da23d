package onebit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

// TestWolfeOptimal checks Wolfe's algorithm (with the affine minimizer's
// Cholesky factor kept across cycles) against the optimality conditions
// of the point p of minimum norm in the hull of the rows b_i: p is a
// convex combination of the corral's rows, and <b_i, p> >= ||p||^2 for
// every row, so the direction p/||p|| has margin ||p|| and no direction
// has more. Rows drawn around a direction make the signs separable; the
// duplicated rows and the rows that are combinations of two others make
// corrals affinely dependent (the singular path).
func TestWolfeOptimal(t *testing.T) {
	for _, tc := range []struct{ m, s int }{{40, 3}, {200, 8}, {600, 20}, {1000, 30}} {
		for seed := range uint64(5) {
			r := rand.New(rand.NewPCG(seed, uint64(tc.s)))
			dir := make([]float64, tc.s)
			for c := range dir {
				dir[c] = r.NormFloat64()
			}
			cols := make([][]float64, tc.s)
			for c := range cols {
				cols[c] = make([]float64, tc.m)
			}
			y := make([]float64, tc.m)
			for i := range y {
				switch {
				case i >= 10 && i%7 == 0: // a copy of an earlier row
					for c := range cols {
						cols[c][i] = cols[c][i-5]
					}
				case i >= 10 && i%11 == 0: // the sum of two earlier rows
					for c := range cols {
						cols[c][i] = cols[c][i-3] + cols[c][i-9]
					}
				default:
					for c := range cols {
						cols[c][i] = r.NormFloat64()
					}
				}
				a := 0.0
				for c := range cols {
					a += cols[c][i] * dir[c]
				}
				y[i] = sign(a)
			}
			var cw wolfeWork
			if n := cw.load(tc.m, tc.s, func(c int) []float64 { return cols[c] }, y, nil); n != tc.m {
				t.Fatalf("loaded %d rows of %d", n, tc.m)
			}
			x := make([]float64, tc.s)
			x[0] = 1
			mg := cw.solve(x, tc.s, 0, 10000, nil)
			if !(mg > 0) {
				t.Fatalf("m %d s %d seed %d: margin %g on separable signs", tc.m, tc.s, seed, mg)
			}
			sum := 0.0
			p := make([]float64, tc.s)
			for u, i := range cw.corral {
				if cw.lam[u] < 0 {
					t.Fatalf("negative weight %g", cw.lam[u])
				}
				sum += cw.lam[u]
				vec.Axpy(cw.lam[u], cw.b[i*tc.s:(i+1)*tc.s], p)
			}
			pp := vec.Dot(p, p)
			// Rounding: the weights sum to 1 and the rows have unit norm,
			// so 1e-9 leaves room for the elimination's errors in alpha.
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("m %d s %d seed %d: weights sum to %g", tc.m, tc.s, seed, sum)
			}
			if math.Abs(math.Sqrt(pp)-mg) > 1e-9 {
				t.Errorf("m %d s %d seed %d: margin %g, ||p|| %g", tc.m, tc.s, seed, mg, math.Sqrt(pp))
			}
			worst := math.Inf(1)
			for i := range cw.rows {
				worst = min(worst, vec.Dot(cw.b[i*tc.s:(i+1)*tc.s], p)-pp)
			}
			if worst < -1e-9 {
				t.Errorf("m %d s %d seed %d: a row has <b_i, p> - ||p||^2 = %g < 0: p is not the minimum-norm point",
					tc.m, tc.s, seed, worst)
			}
		}
	}
}

// wolfeRows loads the rows (row-major, s columns, all signs +1) into a
// fresh wolfeWork.
func wolfeRows(rows []float64, s int) *wolfeWork {
	m := len(rows) / s
	cols := make([][]float64, s)
	for c := range cols {
		for i := range m {
			cols[c] = append(cols[c], rows[i*s+c])
		}
	}
	cw := new(wolfeWork)
	cw.load(m, s, func(c int) []float64 { return cols[c] }, slices.Repeat([]float64{1}, m), nil)
	return cw
}

// TestWolfeBoundaries checks solve's documented stops on cases exact in
// floating point. One row e_1: the margin is 1, and floor 1 cannot be
// exceeded (0 returned, belowFloor), floor 1/2 can (1 returned, x = e_1).
// Rows e_1, e_2 from x = (1, 1/2) with no major cycle (maxIter 0): the
// point e_1 has margin min(1, 0) = 0, which is not positive, so x is left
// as it is. Rows e_1 and (-1, 1e-7)/norm with one major cycle: the point
// of the segment nearest the origin has norm 5e-8, below Wolfe's
// tolerance (norm 1e-6: the origin counts as in the hull) though both of
// its margins are positive; 0 is returned and x left.
func TestWolfeBoundaries(t *testing.T) {
	cw := wolfeRows([]float64{2}, 1)
	x := []float64{1}
	require.Zero(t, cw.solve(x, 1, 1, 10, nil))
	require.True(t, cw.belowFloor)
	require.Equal(t, 1.0, cw.solve(x, 1, 0.5, 10, nil))
	require.False(t, cw.belowFloor)
	require.Equal(t, []float64{1}, x)

	cw = wolfeRows([]float64{1, 0, 0, 1}, 2)
	x = []float64{1, 0.5}
	require.Zero(t, cw.solve(x, 2, 0, 0, nil))
	require.Equal(t, []float64{1, 0.5}, x)

	cw = wolfeRows([]float64{1, 0, -1, 1e-7}, 2)
	x = []float64{1, 0.5}
	require.Zero(t, cw.solve(x, 2, 0, 1, nil))
	require.True(t, cw.belowFloor)
	require.Equal(t, []float64{1, 0.5}, x)
}

// TestWolfeDropSmallest checks dropSmallest on a corral of 3 with weights
// 0.5, 0.125, 0.375: the point of weight 0.125 leaves, the others are
// renormalized to 0.5/0.875 and 0.375/0.875, and the Gram matrix keeps
// the entries of the points that stay (its lower triangle, in corral
// order).
func TestWolfeDropSmallest(t *testing.T) {
	cw := wolfeWork{gs: 4, corral: []int{5, 7, 9}, lam: []float64{0.5, 0.125, 0.375}, kept: make([]int, 4), gram: make([]float64, 16), cholN: 3, zN: 3}
	for r := range 3 {
		for u := 0; u <= r; u++ {
			cw.gram[r*4+u] = float64(10*r + u) // 0; 10, 11; 20, 21, 22
		}
	}
	cw.dropSmallest()
	require.Equal(t, []int{5, 9}, cw.corral)
	require.InDeltaSlice(t, []float64{0.5 / 0.875, 0.375 / 0.875}, cw.lam, 1e-15)
	require.Equal(t, []float64{0, 20, 22}, []float64{cw.gram[0], cw.gram[4], cw.gram[5]})
	require.Equal(t, 1, cw.cholN, "the factor's rows from the dropped point on are stale")
	require.LessOrEqual(t, cw.zN, 1)
}

// TestWolfeReserveGrowth pins wolfeWork.reserve's growth ("for at least s,
// with half as much again as before when they must grow", at least 8):
// from nothing a support of 8 sizes for 8, one of 9 for 12 = 8 + 8/2,
// supports up to 12 then keep it (no new buffers: the same b), 13 sizes
// for 18.
func TestWolfeReserveGrowth(t *testing.T) {
	var cw wolfeWork
	for _, c := range []struct{ s, capS int }{{3, 8}, {8, 8}, {9, 12}, {12, 12}, {13, 18}} {
		b := cw.b
		cw.reserve(10, c.s)
		require.Equal(t, c.capS, cw.capS, "support %d", c.s)
		require.GreaterOrEqual(t, cap(cw.corral), c.capS+3, "support %d", c.s)
		if c.s == 12 {
			require.Same(t, &b[0], &cw.b[0], "a support of 12 within 12 must keep the buffers")
		}
	}
}

// TestWolfeWarmKeepsHeaviest pins wolfeWork.warm: from a start of more than s+1
// rows it keeps the s+1 of largest weight, largest first, renormalized,
// and runs the minor cycles. Rows (s = 2) b_0 = (1, 0),
// b_1 = (-1, 1)/sqrt 2, b_2 = (-1, -1)/sqrt 2, b_3 = (0, 1), weights 0.5,
// 0.2, 0.25, 0.05: b_3 leaves, the corral is (b_0, b_2, b_1), and their
// affine hull is the plane, whose point of minimum norm is the origin, in
// the triangle: the minor cycle keeps all three with its barycentric
// weights sqrt 2 - 1 for b_0 and (2 - sqrt 2)/2 for the others (by
// symmetry and sum_t lam_t b_t = 0). No major cycle (maxIter 0): the
// point is the origin, so solve reports it below the floor.
func TestWolfeWarmKeepsHeaviest(t *testing.T) {
	cols := [][]float64{{1, -1, -1, 0}, {0, 1, -1, 1}}
	var cw wolfeWork
	require.Equal(t, 4, cw.load(4, 2, func(c int) []float64 { return cols[c] }, []float64{1, 1, 1, 1}, nil))
	cw.start = append(cw.start[:0], 0, 1, 2, 3)
	cw.startLam = append(cw.startLam[:0], 0.5, 0.2, 0.25, 0.05)
	x := []float64{1, 0}
	require.Zero(t, cw.solve(x, 2, 0, 0, nil))
	require.True(t, cw.belowFloor)
	require.Equal(t, []int{0, 2, 1}, cw.corral)
	want := []float64{math.Sqrt2 - 1, (2 - math.Sqrt2) / 2, (2 - math.Sqrt2) / 2}
	require.InDeltaSlice(t, want, cw.lam, 1e-12)
}

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

// TestWolfeLoadColumns checks that load asks for each column once (a
// call per entry was a tenth of Recover's time), also when col returns
// one reused buffer as the full operator's column does, and that it keeps
// the rows not skipped and not zero on the support, as y_i a_i/||a_i||.
func TestWolfeLoadColumns(t *testing.T) {
	const m, s = 50, 6
	r := rand.New(rand.NewPCG(3, 4))
	cols := make([][]float64, s)
	for c := range cols {
		cols[c] = make([]float64, m)
		for i := range m {
			if i != 17 { // row 17 is zero on the support
				cols[c][i] = r.NormFloat64()
			}
		}
	}
	y := make([]float64, m)
	for i := range y {
		y[i] = float64(1 - 2*(i%2))
	}
	shared, calls := make([]float64, m), 0
	col := func(c int) []float64 {
		calls++
		copy(shared, cols[c])
		return shared
	}
	skip := func(i int) bool { return i%5 == 3 }
	var cw wolfeWork
	n := cw.load(m, s, col, y, skip)
	if calls != s {
		t.Errorf("load called col %d times, want %d", calls, s)
	}
	want := 0
	for i := range m {
		if skip(i) || i == 17 {
			continue
		}
		if want >= n || cw.rowIdx[want] != i {
			t.Fatalf("row %d of b: measurement %v, want %d", want, cw.rowIdx[:n], i)
		}
		nr := 0.0
		for c := range s {
			nr += cols[c][i] * cols[c][i]
		}
		nr = math.Sqrt(nr)
		for c := range s {
			// One rounding in the norm and one in the scaling.
			if v := y[i] * cols[c][i] / nr; math.Abs(cw.b[want*s+c]-v) > 1e-15 {
				t.Errorf("b[%d][%d] = %v, want %v", want, c, cw.b[want*s+c], v)
			}
		}
		want++
	}
	if n != want || cw.rows != want {
		t.Errorf("load kept %d rows (rows %d), want %d", n, cw.rows, want)
	}
}
