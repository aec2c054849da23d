package fuzz

import (
	"encoding/binary"
	"hash/fnv"
	"math"

	"github.com/neadmm/neadmm/internal/guard"
)

// source turns the fuzzer's bytes into the sizes, flags and float64 values of
// one test case. Values are read one at a time; the first byte of each is a
// tag choosing how the value is encoded:
//
//	tag&3 == 0  the next 8 bytes are the bits (little endian): every float64
//	            bit pattern, payload NaNs included, is reachable
//	tag&3 == 1  specials[tag>>2 % len(specials)]
//	tag&3 == 2  a 16-bit integer times 2^(scale + (tag>>2)%16 - 23): exactly
//	            representable values, so sums cancel exactly and ties repeat
//	tag&3 == 3  ±(1 + a 47-bit fraction) times 2^(scale + (tag>>2)%16 - 8),
//	            sign and fraction from the next 6 bytes
//
// Raw bit patterns alone would make moderate values rare (a random exponent
// is huge or tiny) and exact cancellation rarer still; the tags make both
// cheap while keeping every pattern reachable.
//
// Past the end of the data, bytes read as 0 and values come from a
// generator seeded with a hash of the data (a 48-bit mantissa, a random sign
// and an exponent within 8 of scale), so a short input can still describe a
// long vector and different inputs give different tails.
type source struct {
	data  []byte
	rng   uint64 // splitmix64 state for values past the end of data
	scale int    // exponent around which moderate and generated values lie
}

func newSource(data []byte) *source {
	h := fnv.New64a()
	h.Write(data)
	return &source{data: data, rng: h.Sum64()}
}

// exhausted reports whether every byte of the data has been read.
func (s *source) exhausted() bool { return len(s.data) == 0 }

// byte returns the next byte, 0 past the end.
func (s *source) byte() byte {
	if len(s.data) == 0 {
		return 0
	}
	b := s.data[0]
	s.data = s.data[1:]
	return b
}

// uint returns the next n bytes (zero-padded past the end) as a
// little-endian integer; n <= 8.
func (s *source) uint(n int) uint64 {
	var buf [8]byte
	k := copy(buf[:n], s.data)
	s.data = s.data[k:]
	return binary.LittleEndian.Uint64(buf[:])
}

// length returns a vector length: 0..199 from one byte (every remainder and
// tail of the unrolled kernels, which work in blocks of at most 32), or
// 200..1099 when the byte is 200 or more (long vectors, where the summation
// orders differ most).
func (s *source) length() int {
	b := int(s.byte())
	if b < 200 {
		return b
	}
	return 200 + int(s.uint(2)%900)
}

// setScale reads the exponent scale: 0 for bytes below 128 (values near 1,
// the common case), else (b-192)*17, -1088..1071, so that overflow,
// underflow and subnormal ranges are as easy to reach as moderate ones.
func (s *source) setScale() {
	b := int(s.byte())
	if b < 128 {
		s.scale = 0
		return
	}
	s.scale = (b - 192) * 17
}

// specials are the values tag&3 == 1 selects.
var specials = [...]float64{
	math.NaN(),
	math.Inf(1),
	math.Inf(-1),
	0,
	math.Copysign(0, -1),
	math.MaxFloat64,
	-math.MaxFloat64,
	math.SmallestNonzeroFloat64,
	-math.SmallestNonzeroFloat64,
	0x1p-1022,             // smallest normal
	0x1p-1022 - 0x1p-1074, // largest subnormal
	1,
	-1,
	0.5,
	0x1p1023,
	0x1p512,                                  // its square overflows
	0x1p-537,                                 // its square is subnormal
	0x1p-538,                                 // its square underflows to 0 (round to even)
	1.3407807929942596e154,                   // sqrt(MaxFloat64), rounded
	1 + 0x1p-52,                              // 1 + ulp
	1 - 0x1p-53,                              // 1 - ulp/2
	math.Float64frombits(0x7ff0000000000001), // signaling NaN
	math.Float64frombits(0xfff8000000000000), // negative quiet NaN
	math.Float64frombits(0x7ff8dead0000beef), // NaN with a payload
	3,
	-2.5,
	1e-300,
	1e300,
}

// float returns the next value (see source).
func (s *source) float() float64 {
	if s.exhausted() {
		return s.generated()
	}
	tag := s.byte()
	k := int(tag >> 2)
	switch tag & 3 {
	case 0:
		return math.Float64frombits(s.uint(8))
	case 1:
		return specials[k%len(specials)]
	case 2:
		m := int16(s.uint(2))
		return math.Ldexp(float64(m), s.scale+k%16-23)
	default:
		b := s.uint(6)
		f := 1 + float64(b>>1)*0x1p-47 // [1, 2)
		if b&1 != 0 {
			f = -f
		}
		return math.Ldexp(f, s.scale+k%16-8)
	}
}

// generated returns a value from the generator: a 52-bit mantissa, random
// sign, exponent scale-8..scale+7.
func (s *source) generated() float64 {
	r := s.next()
	f := 1 + float64(r>>12)*0x1p-52 // [1, 2)
	if r&1 != 0 {
		f = -f
	}
	return math.Ldexp(f, s.scale+int(r>>1&15)-8)
}

// next is splitmix64.
func (s *source) next() uint64 {
	s.rng += 0x9e3779b97f4a7c15
	z := s.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// floats returns n values.
func (s *source) floats(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = s.float()
	}
	return x
}

// guardBits are the bits of guard.Junk, a NaN no computation produces:
// targets fill scratch space that must be overwritten with it. (Guarded
// vectors themselves come from internal/guard, shared with vec's tests.)
var guardBits = math.Float64bits(guard.Junk)

// proxLen decodes the length byte of the prox targets: 1..16 from b%16
// below 224, else 17, 19, ..., 79.
func proxLen(b byte) int {
	if b >= 224 {
		return 17 + (int(b)-224)*2
	}
	return 1 + int(b)%16
}

// coarsen rounds phi (in place) and b to multiples of 2^(scale+3), so
// that ties abound, and returns the rounded b.
func coarsen(phi []float64, b float64, scale int) float64 {
	q := math.Ldexp(1, scale+3)
	for j, x := range phi {
		phi[j] = math.Round(x/q) * q
	}
	return math.Round(b/q) * q
}
