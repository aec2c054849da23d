package vec

import "unsafe"

// The aliasing rule. An elementwise output may be one of its inputs
// exactly (Axpy(alpha, x, x), Sub(x, x, y), SoftThreshold(x, x, t)): every
// implementation computes output element i from input elements i alone,
// stores it once, and never reads input element i after that store (no
// tail loop recomputes elements already stored), so the result is the
// same bits as with a separate output. Any other sharing of memory
// between an output and an input is a programmer error and panics, with
// the function's name and the two arguments in the message: an
// elementwise output shifted against its input would overwrite elements
// before they are read, and the matrix products read all of x for every
// row (MulTransVec and GradSweep also sum into their output row after
// row), so there even exact aliasing would give wrong results. Inputs may
// share memory with each other in any way: they are only read.
//
// The checks compare the slices' addresses and lengths, a few
// instructions whatever the length, and run in the Kernels methods: every
// call, through a package function or a Kernels value, passes there before
// anything is written, whichever implementation then runs it.

// overlap reports whether x and y share memory. Empty slices share none.
// (Addresses are compared as integers; none is converted back to a
// pointer.)
func overlap(x, y []float64) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	x0, y0 := addr(x), addr(y)
	return x0 < y0+uintptr(len(y))*size && y0 < x0+uintptr(len(x))*size
}

// partialOverlap reports whether x and y, of the same length, share memory
// other than element for element: whether they overlap and start at
// different addresses. With d the distance between the starts as an
// unsigned number, they overlap when d or -d (the distance the other way)
// is below their length in bytes; an empty length n = 0 admits neither.
func partialOverlap(x, y []float64) bool {
	d, n := addr(x)-addr(y), uintptr(len(x))*size
	return d != 0 && (d < n || -d < n)
}

const size = unsafe.Sizeof(float64(0))

// addr returns the address of x's first element (its backing array).
func addr(x []float64) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(x))) }
