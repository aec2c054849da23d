package fuzz

import (
	"encoding/binary"
	"math"
)

// enc builds seed inputs in the layout source decodes, so that the seeds
// in the targets read as what they test. (The hard cases of the vec and
// MaxProx targets are files in testdata/fuzz, each with a comment after its
// value saying what it holds.)
type enc struct{ b []byte }

// bytes appends raw bytes (header fields).
func (e *enc) bytes(v ...byte) *enc {
	e.b = append(e.b, v...)
	return e
}

// length appends a length as source.length reads it.
func (e *enc) length(n int) *enc {
	if n < 200 {
		return e.bytes(byte(n))
	}
	return e.bytes(200, byte(n-200), byte((n-200)>>8))
}

// f appends values with their exact bits (tag 0).
func (e *enc) f(v ...float64) *enc {
	for _, x := range v {
		e.b = append(e.b, 0)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
	}
	return e
}

// rep returns n copies of v.
func rep(v float64, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// Scale bytes for source.setScale.
const (
	scaleOne  = 0   // values near 1
	scaleHuge = 252 // 2^1020: products and sums overflow
	scaleTiny = 130 // 2^-1054: subnormals, products underflow
	scaleHalf = 222 // 2^510: products near the overflow threshold
)

var (
	inf  = math.Inf(1)
	nan  = math.NaN()
	negZ = math.Copysign(0, -1)
	maxF = math.MaxFloat64
	tiny = math.SmallestNonzeroFloat64
)
