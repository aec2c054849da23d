//go:build linux

package vec_test

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/neadmm/neadmm/vec"
)

// fenced returns n float64s next to a page that cannot be read or written:
// right after them with after, right before them otherwise. A kernel that
// touches memory past either end of a slice taken at that end faults, even
// where it would discard what it read (an unmasked load whose lanes a
// masked store drops), which the guard bands of the other tests cannot
// see. The memory is unmapped when the test ends.
func fenced(t *testing.T, n int, after bool) []float64 {
	t.Helper()
	ps := unix.Getpagesize()
	data := (8*n + ps - 1) / ps * ps
	mem, err := unix.Mmap(-1, 0, data+ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, unix.Munmap(mem)) })
	fence, start := mem[data:], data-8*n
	if !after {
		fence, start = mem[:ps], ps
	}
	require.NoError(t, unix.Mprotect(fence, unix.PROT_NONE))
	x := unsafe.Slice((*float64)(unsafe.Pointer(&mem[start])), n)
	for i := range x {
		x[i] = float64(i%7-3) * 0.375
	}
	return x
}

// TestKernelsStayInBounds runs every kernel on every implementation with
// each operand against a fence (see fenced), at every length through the
// unrolled loops' tails and on every matrix shape up to 9 x 20 (and wider
// rows), GradSweep down each of its paths: a read or write outside the
// slices faults, and the fault is reported as the call that made it. It
// does so again with the sharing each kernel allows (an elementwise output
// that is its input, inputs that overlap, a product's x that is the end of
// its matrix), and checks that the overlaps each forbids panic with its
// name, not a fault, at the fence too.
func TestKernelsStayInBounds(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	const maxN = 80
	colsList := []int{33, 47, 70}
	for c := 0; c <= 20; c++ {
		colsList = append(colsList, c)
	}
	for _, k := range vec.Implementations() {
		for _, after := range []bool{true, false} {
			// One region per operand; a slice of length n is taken at the
			// fenced end of its region.
			var regions [5][]float64
			for i := range regions {
				regions[i] = fenced(t, 9*maxN, after)
			}
			// near is n elements of region r starting s elements from
			// its fenced end; at is near with s = 0.
			near := func(r, n, s int) []float64 {
				if after {
					return regions[r][len(regions[r])-n-s : len(regions[r])-s]
				}
				return regions[r][s : s+n]
			}
			at := func(r, n int) []float64 { return near(r, n, 0) }
			call := func(what string, f func()) {
				t.Helper()
				defer func() {
					if e := recover(); e != nil {
						t.Fatalf("%s on %s, fence after=%v: %v", what, k.Name(), after, e)
					}
				}()
				f()
			}
			// callPanics is call for a call that must panic with fn's
			// name: no panic, or a fault (a runtime error), fails.
			callPanics := func(what, fn string, f func()) {
				t.Helper()
				defer func() {
					e := recover()
					_, fault := e.(runtime.Error)
					if e == nil || fault || !strings.HasPrefix(fmt.Sprint(e), "vec."+fn+": ") {
						t.Fatalf("%s on %s, fence after=%v: panic %v, want one from vec.%s", what, k.Name(), after, e, fn)
					}
				}()
				f()
			}
			for n := 0; n <= maxN; n++ {
				x, y, d := at(0, n), at(1, n), at(2, n)
				w := fmt.Sprintf("n=%d", n)
				call("Dot "+w, func() { k.Dot(x, y) })
				call("Nrm2 "+w, func() { k.Nrm2(x) })
				call("Axpy "+w, func() { k.Axpy(0.5, x, y) })
				call("AddScaledTo "+w, func() { k.AddScaledTo(d, y, 0.5, x) })
				call("Sub "+w, func() { k.Sub(d, x, y) })
				call("SoftThreshold "+w, func() { k.SoftThreshold(d, x, 0.25) })

				// Exact aliasing of an output, and inputs overlapping
				// (x1 is x one element further from the fence).
				x1 := near(0, n, 1)
				call("Axpy in place "+w, func() { k.Axpy(0.5, d, d) })
				call("SoftThreshold in place "+w, func() { k.SoftThreshold(d, d, 0.25) })
				call("AddScaledTo dst = x "+w, func() { k.AddScaledTo(d, y, 0.5, d) })
				call("AddScaledTo dst = y "+w, func() { k.AddScaledTo(d, d, 0.5, x) })
				call("Sub dst = x "+w, func() { k.Sub(d, d, y) })
				call("Sub dst = y "+w, func() { k.Sub(d, x, d) })
				call("Dot x = y "+w, func() { k.Dot(x, x) })
				call("Dot overlapping "+w, func() { k.Dot(x1, x) })
				call("AddScaledTo x, y overlapping "+w, func() { k.AddScaledTo(d, x1, 0.5, x) })
				call("Sub x, y overlapping "+w, func() { k.Sub(d, x, x1) })
				if n >= 2 { // x and x1 overlap
					callPanics("Axpy "+w, "Axpy", func() { k.Axpy(0.5, x1, x) })
					callPanics("SoftThreshold "+w, "SoftThreshold", func() { k.SoftThreshold(x, x1, 0.25) })
					callPanics("AddScaledTo "+w, "AddScaledTo", func() { k.AddScaledTo(x1, x, 0.5, y) })
					callPanics("Sub "+w, "Sub", func() { k.Sub(x, y, x1) })
				}
			}
			phi := func(_ int, v float64) float64 { return v / 4 }
			// products calls the matrix kernels, GradSweep down each path.
			products := func(w string, rows, cols int, dr, dc, a, xc, xr []float64) {
				t.Helper()
				call("MulVec "+w, func() { k.MulVec(dr, a, rows, cols, xc) })
				call("MulTransVec "+w, func() { k.MulTransVec(dc, a, rows, cols, xr) })
				for _, mode := range vec.SweepPaths {
					call("GradSweep "+mode+" "+w, func() {
						defer vec.SetSweepPath(mode)()
						k.GradSweep(dr, dc, a, cols, xc, phi)
					})
				}
			}
			for rows := 0; rows <= 9; rows++ {
				for _, cols := range colsList {
					a, xc, xr, dr, dc := at(0, rows*cols), at(1, cols), at(2, rows), at(3, rows), at(4, cols)
					w := fmt.Sprintf("%d x %d", rows, cols)
					products(w, rows, cols, dr, dc, a, xc, xr)
					// x the last elements of a, at the fence with them.
					ac, ar := at(0, cols), at(0, rows)
					products(w+", x in a", rows, cols, dr, dc, a, ac, ar)
					if rows > 0 && cols > 0 { // an output in a (or x) overlaps it
						callPanics("MulVec dst in a "+w, "MulVec", func() { k.MulVec(ar, a, rows, cols, xc) })
						callPanics("MulVec dst in x "+w, "MulVec", func() { k.MulVec(at(1, rows), a, rows, cols, xc) })
						callPanics("MulTransVec dst in a "+w, "MulTransVec", func() { k.MulTransVec(ac, a, rows, cols, xr) })
						callPanics("MulTransVec dst in x "+w, "MulTransVec", func() { k.MulTransVec(at(2, cols), a, rows, cols, xr) })
						callPanics("GradSweep ax in a "+w, "GradSweep", func() { k.GradSweep(ar, dc, a, cols, xc, phi) })
						callPanics("GradSweep g in x "+w, "GradSweep", func() { k.GradSweep(dr, at(1, cols), a, cols, xc, phi) })
						callPanics("GradSweep ax in g "+w, "GradSweep", func() { k.GradSweep(at(4, rows), dc, a, cols, xc, phi) })
					}
				}
			}
		}
	}
}
