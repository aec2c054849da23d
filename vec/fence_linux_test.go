//go:build linux

package vec_test

import (
	"fmt"
	"runtime/debug"
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
// slices faults, and the fault is reported as the call that made it.
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
			at := func(r, n int) []float64 {
				if after {
					return regions[r][len(regions[r])-n:]
				}
				return regions[r][:n]
			}
			call := func(what string, f func()) {
				t.Helper()
				defer func() {
					if e := recover(); e != nil {
						t.Fatalf("%s on %s, fence after=%v: %v", what, k.Name(), after, e)
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
			}
			phi := func(_ int, v float64) float64 { return v / 4 }
			for rows := 0; rows <= 9; rows++ {
				for _, cols := range colsList {
					a, xc, xr, dr, dc := at(0, rows*cols), at(1, cols), at(2, rows), at(3, rows), at(4, cols)
					w := fmt.Sprintf("%d x %d", rows, cols)
					call("MulVec "+w, func() { k.MulVec(dr, a, rows, cols, xc) })
					call("MulTransVec "+w, func() { k.MulTransVec(dc, a, rows, cols, xr) })
					for _, mode := range vec.SweepPaths {
						call("GradSweep "+mode+" "+w, func() {
							defer vec.SetSweepPath(mode)()
							k.GradSweep(dr, dc, a, cols, xc, phi)
						})
					}
				}
			}
		}
	}
}
