//go:build gc && !purego

package vec

import (
	"math"
	"testing"
)

// distinguishing returns x (and y = 1) of length n for which Dot's kernels
// give different bits (see TestSwitchChangesPath): x[0] = 1 and small at
// every i = 0 or 4 modulo 32, and 2^-53 at 8 modulo 16 for MulVec's.
func distinguishing(n int, small float64) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		y[i] = 1
		if i%32 == 0 || i%32 == 4 || i%16 == 8 {
			x[i] = small
		}
	}
	x[0] = 1
	return x, y
}

// TestDispatchTable checks that each stub in dispatch_amd64.s jumps to the
// kernel its table names for every level this CPU has, comparing bits with
// a direct call of that kernel, on inputs where the kernels of different
// levels give different bits where they can (Dot, sumSquares, MulVec;
// Axpy, SoftThreshold and MulTransVec give the same bits on both assembly
// levels, so there the check is only that the stub runs a correct kernel).
func TestDispatchTable(t *testing.T) {
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for _, l := range available {
		name := levelNames[l]
		for _, n := range []int{16, 1024, dotL2Min - 1, dotL2Min, dotL2Max, dotL2Max + 1} {
			x, y := distinguishing(n, 0x1p-53)
			want := dotGeneric(x, y, l)
			switch {
			case l == avx512 && (n < dotL2Min || n > dotL2Max):
				want = dotAVX512(x, y, l)
			case l == avx512 || l == avx2:
				want = dotAVX2(x, y, l)
			}
			if got := dot(x, y, l); !same(got, want) {
				t.Errorf("%s: dot(n=%d) = 1%+g ulp, want 1%+g ulp", name, n, (got-1)/0x1p-52, (want-1)/0x1p-52)
			}
			xs, _ := distinguishing(n, 0x1p-27)
			wantSS := map[level]float64{generic: sumSquaresGeneric(xs, l)}
			if l != generic {
				wantSS[avx2] = sumSquaresAVX2(xs, l)
				if l == avx512 {
					wantSS[avx512] = sumSquaresAVX512(xs, l)
				}
			}
			if got := sumSquares(xs, l); !same(got, wantSS[l]) {
				t.Errorf("%s: sumSquares(n=%d) = %v, want %v", name, n, got, wantSS[l])
			}
		}
		x, y := distinguishing(100, 0.5)
		d1, d2 := make([]float64, 100), make([]float64, 100)
		axpyTo(d1, 0.75, x, y, l)
		softThreshold(d2, x, 0.25, l)
		w1, w2 := make([]float64, 100), make([]float64, 100)
		switch l {
		case avx512:
			axpyToAVX512(w1, 0.75, x, y, l)
			softThresholdAVX512(w2, x, 0.25, l)
		case avx2:
			axpyToAVX2(w1, 0.75, x, y, l)
			softThresholdAVX2(w2, x, 0.25, l)
		default:
			axpyToGeneric(w1, 0.75, x, y, l)
			softThresholdGeneric(w2, x, 0.25, l)
		}
		for i := range d1 {
			if !same(d1[i], w1[i]) || !same(d2[i], w2[i]) {
				t.Fatalf("%s: axpyTo or softThreshold element %d: %v %v, want %v %v", name, i, d1[i], d2[i], w1[i], w2[i])
			}
		}
		if l == generic {
			continue // the 4-row kernels are avx512's and avx2's
		}
		const cols = 1024
		a, xv := make([]float64, 4*cols), make([]float64, cols)
		row, ones := distinguishing(cols, 0x1p-53)
		for r := range 4 {
			copy(a[r*cols:], row)
		}
		copy(xv, ones)
		got, want := make([]float64, 4), make([]float64, 4)
		mulVec4(got, a, cols, xv, l)
		g2, w2t := make([]float64, cols), make([]float64, cols)
		mulTransVec4(g2, a, cols, []float64{1, 0.5, 0.25, 0.125}, l)
		if l == avx512 {
			mulVec4AVX512(want, a, cols, xv, l)
			mulTransVec4AVX512(w2t, a, cols, []float64{1, 0.5, 0.25, 0.125}, l)
		} else {
			mulVec4AVX2(want, a, cols, xv, l)
			mulTransVec4AVX2(w2t, a, cols, []float64{1, 0.5, 0.25, 0.125}, l)
		}
		// MulVec runs the 4-row kernel (not Dot on each row, whose bits
		// differ on this input) on both levels.
		viaMulVec := make([]float64, 4)
		mulVec(l, viaMulVec, a, cols, xv)
		if same(want[0], dot(row, ones, l)) {
			t.Errorf("%s: the MulVec input does not tell the 4-row kernel from Dot", name)
		}
		for r := range got {
			if !same(got[r], want[r]) || !same(viaMulVec[r], want[r]) {
				t.Errorf("%s: mulVec4 row %d = %v, mulVec %v, want %v", name, r, got[r], viaMulVec[r], want[r])
			}
		}
		for j := range g2 {
			if !same(g2[j], w2t[j]) {
				t.Fatalf("%s: mulTransVec4 column %d = %v, want %v", name, j, g2[j], w2t[j])
			}
		}
	}
	// The inputs do tell the levels apart where the table says so.
	if len(available) == 3 {
		x, y := distinguishing(1024, 0x1p-53)
		if same(dotAVX512(x, y, avx512), dotAVX2(x, y, avx2)) || same(dotAVX2(x, y, avx2), dotGeneric(x, y, generic)) {
			t.Error("the Dot input does not tell the kernels apart")
		}
	}
}
