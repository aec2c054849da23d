package onebit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// compactOp returns a working set of k random columns of an m x n Phi.
func compactOp(t testing.TB, m, n, k int, seed uint64) *operator {
	r := rand.New(rand.NewPCG(seed, 1))
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range phi {
		phi[i] = r.NormFloat64()
	}
	for i := range y {
		y[i] = 1
	}
	p, err := NewProblem(phi, m, n, y)
	if err != nil {
		t.Fatal(err)
	}
	var o operator
	o.setCompact(p)
	js := r.Perm(n)[:k]
	slices.Sort(js)
	o.add(js)
	return &o
}

// TestMulTRowsColumnwise checks the four-column mulTRows against one
// column at a time in row order, bit for bit: the sums are the same
// sums in the same order, so the solves do not change.
func TestMulTRowsColumnwise(t *testing.T) {
	for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 40} {
		for _, nr := range []int{0, 1, 6, 37} {
			o := compactOp(t, 60, 90, k, uint64(k*100+nr))
			rr := rand.New(rand.NewPCG(uint64(nr), 2))
			res := make([]float64, 60)
			var rows []int
			for _, i := range rr.Perm(60)[:nr] {
				res[i] = rr.NormFloat64()
			}
			for i, v := range res {
				if v != 0 {
					rows = append(rows, i)
				}
			}
			got := make([]float64, k)
			o.mulTRows(got, res, rows)
			for c := range k {
				col, want := o.col(c), 0.0
				for _, i := range rows {
					want += res[i] * col[i]
				}
				if got[c] != want {
					t.Fatalf("k %d rows %d column %d: %v, want %v", k, nr, c, got[c], want)
				}
			}
		}
	}
}

// TestCenterLoadColumns checks that load asks for each column once (a
// call per entry was a tenth of Recover's time), also when col returns
// one reused buffer as the full operator's column does, and that it keeps
// the rows not skipped and not zero on the support, as y_i a_i/||a_i||.
func TestCenterLoadColumns(t *testing.T) {
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

// BenchmarkMulTRows is the working set's product with A^T over the
// violated rows, at the sizes of the rademacher family at M/N = 0.5
// (M = 500, 40 columns, 40 violated rows).
func BenchmarkMulTRows(b *testing.B) {
	o := compactOp(b, 500, 1000, 40, 1)
	r := rand.New(rand.NewPCG(5, 6))
	res, dst := make([]float64, 500), make([]float64, 40)
	var rows []int
	for i := range 500 {
		if i%12 == 0 {
			res[i] = r.NormFloat64()
			rows = append(rows, i)
		}
	}
	for b.Loop() {
		o.mulTRows(dst, res, rows)
	}
}
