package vec_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/vec"
)

// sweepShapes are the GradSweep test shapes: every shape up to 20 x 20,
// every length up to 300 against 4, 5, 7 and 9 for the other dimension,
// and shapes whose blocks of rows (4 at 1000 columns and more, 40 at 100,
// 64 at 10 and fewer) end in every way.
func sweepShapes() [][2]int {
	var s [][2]int
	for rows := 0; rows <= 20; rows++ {
		for cols := 0; cols <= 20; cols++ {
			s = append(s, [2]int{rows, cols})
		}
	}
	for n := 21; n <= 300; n++ {
		s = append(s, [2]int{4, n}, [2]int{5, n}, [2]int{n, 7}, [2]int{n, 9})
	}
	return append(s, [2]int{130, 1000}, [2]int{7, 1003}, [2]int{300, 100}, [2]int{83, 100}, [2]int{200, 10},
		[2]int{131, 3}, [2]int{67, 4097}, [2]int{9, 8192}, [2]int{8, 33}, [2]int{12, 2049}, [2]int{11, 47})
}

// lossPhi is the gradient map of 1-bit compressive sensing's one-sided
// quadratic loss min(y_i v, 0)^2/2, y_i = ±1, plus 2^-3 v so that every row
// counts, and returns the map and a pointer to the loss it accumulates.
func lossPhi(y []float64) (func(i int, v float64) float64, *float64) {
	loss := new(float64)
	return func(i int, v float64) float64 {
		m := min(y[i]*v, 0)
		*loss += m * m / 2
		return y[i]*m + 0x1p-3*v
	}, loss
}

// TestGradSweep checks GradSweep on every implementation, shape and offset
// 0..7 of each of a, x, ax and g, inside guard bands: ax and g must be the
// same bits as MulVec, the map and MulTransVec on the same implementation
// (which TestMulVec checks against exact references; g is also checked
// against refMulVec here, with MulTransVec's bound), phi must see each row
// once, in order, with the final ax[i], and a and x must be unchanged.
// On amd64 it does so on every path (vec.SweepPaths): the thresholds that
// choose them need matrices too large to test at every shape.
func TestGradSweep(t *testing.T) {
	paths := vec.SweepPaths
	if runtime.GOARCH != "amd64" {
		paths = paths[:1] // only amd64 has pipelines
	}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			defer vec.SetSweepPath(path)()
			testGradSweep(t)
		})
	}
}

func testGradSweep(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(31, 32))
		for _, sh := range sweepShapes() {
			rows, cols := sh[0], sh[1]
			y := make([]float64, rows)
			for i := range y {
				y[i] = float64(1 - 2*r.IntN(2))
			}
			for off := range guard.Offsets {
				what := fmt.Sprintf("%dx%d off=%d", rows, cols, off)
				ga, gx := guarded(r, rows*cols, off), guarded(r, cols, vecOffset(off, 1))
				a0, x0 := append([]float64(nil), ga.S()...), append([]float64(nil), gx.S()...)
				gax := guard.Filled(rows, vecOffset(off, 2), guard.Junk)
				gg := guard.Filled(cols, vecOffset(off, 3), guard.Junk)
				ax, g := gax.S(), gg.S()

				phi, loss := lossPhi(y)
				next := 0
				vec.GradSweep(ax, g, ga.S(), cols, gx.S(), func(i int, v float64) float64 {
					if i != next || math.Float64bits(v) != math.Float64bits(ax[i]) {
						t.Fatalf("%s: phi(%d, %v) after row %d, ax[%d] = %v", what, i, v, next-1, i, ax[i])
					}
					next++
					return phi(i, v)
				})
				require.Equal(t, rows, next, "%s: rows seen by phi", what)
				checkGuards(t, what+" (a, x, ax, g)", ga, gx, gax, gg)
				require.True(t, guard.SameBits(ga.S(), a0) && guard.SameBits(gx.S(), x0), "%s: a or x modified", what)

				// The same computation in three steps.
				wantAx, w, wantG := make([]float64, rows), make([]float64, rows), make([]float64, cols)
				vec.MulVec(wantAx, a0, rows, cols, x0)
				phi2, loss2 := lossPhi(y)
				for i, v := range wantAx {
					w[i] = phi2(i, v)
				}
				vec.MulTransVec(wantG, a0, rows, cols, w)
				if !guard.SameBits(ax, wantAx) || !guard.SameBits(g, wantG) || *loss != *loss2 {
					t.Fatalf("%s: GradSweep differs from MulVec, phi, MulTransVec:\nax %v\n   %v\ng %v\n  %v\nloss %v %v",
						what, ax, wantAx, g, wantG, *loss, *loss2)
				}
				if off == 0 {
					ref, abs := refMulVec(a0, rows, cols, w, true)
					for j, got := range g {
						if math.Abs(got-ref[j]) > dotTol(rows, abs[j]) {
							t.Fatalf("%s: g[%d] = %v, want %v", what, j, got, ref[j])
						}
					}
				}
			}
		}
	})
}

// TestGradSweepSpecial checks the documented edge cases: no rows, no
// columns, NaN from A and from phi.
func TestGradSweepSpecial(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		// rows == 0: g is zeroed, phi never called.
		g := []float64{guard.Junk, 1, -1}
		vec.GradSweep(nil, g, nil, 3, []float64{1, 2, 3}, func(int, float64) float64 {
			t.Fatal("phi called with no rows")
			return 0
		})
		assert.Equal(t, []float64{0, 0, 0}, g)
		// cols == 0: ax is zeroed and phi sees 0 for every row.
		ax := []float64{guard.Junk, guard.Junk}
		var seen []float64
		vec.GradSweep(ax, nil, nil, 0, nil, func(i int, v float64) float64 {
			seen = append(seen, v)
			return 1
		})
		assert.Equal(t, []float64{0, 0}, ax)
		assert.Equal(t, []float64{0, 0}, seen)
		// A NaN at A[2][7] (of 9 x 11) reaches ax[2] only, and g[7] only
		// even when phi maps row 2 to 0 (0*NaN is NaN); a NaN from phi for
		// row 5 makes every g[j] NaN (NaN*0 is NaN too).
		const rows, cols = 9, 11
		a := make([]float64, rows*cols)
		x := make([]float64, cols)
		r := rand.New(rand.NewPCG(33, 34))
		fillNormal(r, a)
		fillNormal(r, x)
		a[2*cols+7] = math.NaN()
		ax, g = make([]float64, rows), make([]float64, cols)
		vec.GradSweep(ax, g, a, cols, x, func(i int, v float64) float64 {
			if i == 2 {
				return 0
			}
			return v
		})
		for i, v := range ax {
			assert.Equal(t, i == 2, math.IsNaN(v), "ax[%d] = %v", i, v)
		}
		for j, v := range g {
			assert.Equal(t, j == 7, math.IsNaN(v), "g[%d] = %v", j, v)
		}
		a[2*cols+7] = 1
		vec.GradSweep(ax, g, a, cols, x, func(i int, v float64) float64 {
			if i == 5 {
				return math.NaN()
			}
			return v
		})
		for j, v := range g {
			assert.True(t, math.IsNaN(v), "g[%d] = %v", j, v)
		}
	})
}
