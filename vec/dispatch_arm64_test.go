//go:build gc && !purego

package vec

import (
	"math"
	"testing"
)

// TestDispatchTable checks that each stub in dispatch_arm64.s jumps to the
// kernel its table names for every level this CPU has, comparing bits with
// a direct call of that kernel, on an input where NEON's Dot and the
// generic one give different bits (x[0] = 1 and 2^-53 at every i = 0 or 4
// modulo 32, y = 1: see TestSwitchChangesPath).
func TestDispatchTable(t *testing.T) {
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	const n = 1024
	x, y, xs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		y[i] = 1
		if i%32 == 0 || i%32 == 4 {
			x[i], xs[i] = 0x1p-53, 0x1p-27
		}
	}
	x[0], xs[0] = 1, 1
	if same(dotNEON(x, y, neon), dotGeneric(x, y, generic)) {
		t.Error("the Dot input does not tell the kernels apart")
	}
	for _, l := range available {
		wantDot, wantSS := dotGeneric(x, y, l), sumSquaresGeneric(xs, l)
		w1, w2 := make([]float64, n), make([]float64, n)
		if l == neon {
			wantDot, wantSS = dotNEON(x, y, l), sumSquaresNEON(xs, l)
			axpyToNEON(w1, 0.75, x, y, l)
			softThresholdNEON(w2, y, 0.25, l)
		} else {
			axpyToGeneric(w1, 0.75, x, y, l)
			softThresholdGeneric(w2, y, 0.25, l)
		}
		if got := dot(x, y, l); !same(got, wantDot) {
			t.Errorf("%s: dot = %v, want %v", levelNames[l], got, wantDot)
		}
		if got := sumSquares(xs, l); !same(got, wantSS) {
			t.Errorf("%s: sumSquares = %v, want %v", levelNames[l], got, wantSS)
		}
		d1, d2 := make([]float64, n), make([]float64, n)
		axpyTo(d1, 0.75, x, y, l)
		softThreshold(d2, y, 0.25, l)
		for i := range d1 {
			if !same(d1[i], w1[i]) || !same(d2[i], w2[i]) {
				t.Fatalf("%s: axpyTo or softThreshold element %d differs", levelNames[l], i)
			}
		}
	}
}
