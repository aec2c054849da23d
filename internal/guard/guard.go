// Package guard builds guarded vectors for kernel tests: a float64 vector
// stored inside a buffer of sentinel values, so that a kernel that reads or
// writes outside its slice is caught. The tests of vec and the fuzz targets
// share it; only tests import it.
//
// The sentinels are signalling NaNs with a payload unique to each buffer,
// compared bit for bit: arithmetic on one quiets it (sets bit 51), so a
// kernel that reads a sentinel and writes the result back is caught, and a
// stray copy brings another buffer's payload. A kernel that reads a
// sentinel into a result also makes that result NaN.
package guard

import (
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"
)

// Len is the number of sentinels on each side of a vector: 64 bytes, so
// that the offset alone sets the vector's alignment modulo 64 bytes.
const Len = 8

// Offsets is the number of distinct offsets: a vector at offset off
// (0..Offsets-1) starts 8*off bytes past a 64-byte boundary (a cache line,
// and the width of an AVX-512 register), so the offsets give every
// alignment a float64 slice can have.
const Offsets = 8

// Junk is a quiet NaN no kernel produces and no sentinel equals: fill an
// output with it to check that every element is written.
var Junk = math.Float64frombits(0x7ffb0bad0bad0bad)

var seq atomic.Uint64

// Vec is a vector in a buffer whose other elements are sentinels: at least
// Len before it and Len after it.
type Vec struct {
	buf  []float64
	lo   int // index of the vector's first element in buf
	n    int
	bits uint64 // the sentinel
}

// New returns a guarded vector of n zeros at offset off%Offsets.
func New(n, off int) *Vec {
	bits := 0x7ff0_0000_0000_0000 | (seq.Add(1)&0xffff_ffff)<<8 | 1 // bit 51 clear: signalling
	off %= Offsets
	buf := make([]float64, Len+Offsets-1+n+Len)
	// The allocator aligns buf to 8 or 16 bytes only: place the vector
	// where its address is 8*off modulo 64.
	lo := Len
	for (uintptr(unsafe.Pointer(&buf[lo]))-uintptr(8*off))%64 != 0 {
		lo++
	}
	g := &Vec{buf: buf, lo: lo, n: n, bits: bits}
	for i := range g.buf {
		if i < g.lo || i >= g.lo+n {
			g.buf[i] = math.Float64frombits(bits)
		}
	}
	return g
}

// Of returns a guarded copy of x at offset off%Offsets.
func Of(x []float64, off int) *Vec {
	g := New(len(x), off)
	copy(g.S(), x)
	return g
}

// Filled returns a guarded vector of n copies of v at offset off%Offsets.
func Filled(n, off int, v float64) *Vec {
	g := New(n, off)
	s := g.S()
	for i := range s {
		s[i] = v
	}
	return g
}

// S returns the vector, its capacity cut at its length so that no append
// or reslice reaches the sentinels.
func (g *Vec) S() []float64 { return g.buf[g.lo : g.lo+g.n : g.lo+g.n] }

// Overrun returns the vector with its capacity extended over the trailing
// sentinels: for tests of the tests, which simulate a kernel reading past
// its end.
func (g *Vec) Overrun() []float64 { return g.buf[g.lo : g.lo+g.n] }

// Same reports whether g and h share their buffer.
func (g *Vec) Same(h *Vec) bool { return &g.buf[0] == &h.buf[0] }

// Check returns an error naming the first sentinel that changed, or nil.
func (g *Vec) Check() error {
	for i, v := range g.buf {
		if i >= g.lo && i < g.lo+g.n {
			continue
		}
		if math.Float64bits(v) != g.bits {
			return fmt.Errorf("guard element %d (vector at %d..%d) overwritten with %v (bits %#x, sentinel %#x)",
				i, g.lo, g.lo+g.n, v, math.Float64bits(v), g.bits)
		}
	}
	return nil
}

// SameBits reports whether x and y hold the same bits element by element
// (NaN payloads and signed zeros included).
func SameBits(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}
