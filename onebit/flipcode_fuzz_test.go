package onebit

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzProbitFlipCode checks probitFlipCode against a grid of flip rates
// (its function is convex in the rate; Newton must not stop above any
// grid value) and signCode on the same bytes read as projections: a code
// neither NaN nor above the count code, a flip rate in [0, 1], and the
// same code for the projections scaled by 2^-600 (the code is scale-free;
// a power of two keeps the values exact unless they become subnormal,
// which is skipped). The bytes give p_i = (b_i + 1/2)/256 (or within
// 2^-40 of 0 or 1), n0 and n1, and Newton's start.
//
// It is a test of package onebit (neither function is exported); .ci/fuzz
// fuzzes it with the targets in ./fuzz.
func FuzzProbitFlipCode(f *testing.F) {
	f.Add(uint8(0), uint8(3), uint8(128), []byte{1, 2, 200, 255, 128, 7})
	f.Add(uint8(2), uint8(0), uint8(0), []byte{255, 255, 0})
	f.Add(uint8(0), uint8(0), uint8(255), []byte{})
	f.Add(uint8(1), uint8(40), uint8(9), []byte{0x80, 0x81, 0x7f, 0x90, 0x70, 0xff, 0x00, 0x01})
	f.Fuzz(func(t *testing.T, n0b, n1b, e0b uint8, data []byte) {
		data = data[:min(len(data), 128)]
		n0, n1 := int(n0b%8), int(n1b)
		p := make([]float64, len(data))
		for i, b := range data {
			p[i] = (float64(b) + 0.5) / 256
			switch b {
			case 0:
				p[i] = 0x1p-40
			case 255:
				p[i] = 1 - 0x1p-40
			}
		}
		if len(p)+n0+n1 == 0 {
			return
		}
		code, eps := probitFlipCode(p, n0, n1, float64(e0b)/510)
		if !(eps >= 0 && eps <= 0.5) || math.IsNaN(code) {
			t.Fatalf("code %g at flip rate %g", code, eps)
		}
		for g := range 501 {
			e := 0.5 * float64(g) / 500
			if n0 > 0 && e == 0 {
				continue
			}
			if v := flipValue(p, n0, n1, e); v < code-1e-9*(1+math.Abs(code)) {
				t.Fatalf("code %g at flip rate %g, %g at %g", code, eps, v, e)
			}
		}

		// The bytes as projections (8 bytes each) and signs.
		m := len(data) / 8
		if m == 0 {
			return
		}
		ax, y, sc := make([]float64, m), make([]float64, m), make([]float64, m)
		for i := range ax {
			ax[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
			if math.IsNaN(ax[i]) || math.IsInf(ax[i], 0) || (ax[i] != 0 && math.Abs(ax[i]) < 0x1p-400) {
				ax[i] = float64(i) - 2.5
			}
			y[i] = 1 - 2*float64((data[8*i]>>3^e0b)&1)
		}
		code, flip := signCode(ax, y, sc)
		count := logChoose(m, mismatches(ax, y))
		if math.IsNaN(code) || code > count+1e-9*count || !(flip >= 0 && flip <= 1) {
			t.Fatalf("signCode: code %g (count code %g), flip rate %g", code, count, flip)
		}
		for i := range ax {
			ax[i] *= 0x1p-600
		}
		if c2, _ := signCode(ax, y, sc); math.Abs(c2-code) > 1e-9*(1+code) {
			t.Fatalf("signCode: code %g, %g with the projections scaled by 2^-600", code, c2)
		}
	})
}
