package fuzz

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestTargetsOnRandomInputs runs every target's check on pseudo-random
// inputs (a fixed seed), so that plain go test, and in particular the
// arm64 run under qemu where go test -fuzz is not available, exercises each
// target on far more inputs than its seed corpus. Inputs are random bytes
// of random length, and the same bytes with the scale byte set to the huge
// and tiny exponents.
func TestTargetsOnRandomInputs(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 30
	}
	for _, c := range []struct {
		name  string
		check func(*testing.T, []byte)
		scale int // index of the scale byte in the input, -1: none
	}{
		{"Dot", checkDot, 2},
		{"Axpy", checkAxpy, 3},
		{"SoftThreshold", checkSoftThreshold, 3},
		{"Nrm2", checkNrm2, 2},
		{"MulVec", checkMulVec, 4},
		{"SphereProx", checkSphere, 2},
		{"MaxProx", checkMaxProx, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			slowest, slowIn := time.Duration(0), []byte(nil)
			for i := range n {
				data := make([]byte, rng.IntN(120))
				for j := range data {
					data[j] = byte(rng.Uint32())
				}
				if c.scale >= 0 && c.scale < len(data) {
					data[c.scale] = [...]byte{scaleOne, scaleHuge, scaleTiny, scaleHalf, data[c.scale]}[i%5]
				}
				start := time.Now()
				c.check(t, data)
				if d := time.Since(start); d > slowest {
					slowest, slowIn = d, data
				}
				if t.Failed() {
					t.Fatalf("input %q", data)
				}
			}
			t.Logf("%d inputs, slowest %v (%d bytes)", n, slowest, len(slowIn))
		})
	}
}
