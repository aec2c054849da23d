//go:build gc && !purego

package vec

import "golang.org/x/sys/cpu"

// accelName is what Impl reports when the assembly kernels are in use.
const accelName = "avx2"

// hasAccel is decided once, at start-up: the kernels in vec_amd64.s need
// AVX2 (256-bit float ops, VBROADCASTSD from a register) and FMA. Reading
// golang.org/x/sys/cpu (rather than assuming) makes GODEBUG=cpu.avx2=off,
// cpu.fma=off and cpu.all=off select the generic code.
var hasAccel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// mulVec4AVX2 sets dst[r] = a[r*cols:(r+1)*cols] . x for every r <
// len(dst), which must be a multiple of 4; len(x) = cols > 0.
//
//go:noescape
func mulVec4AVX2(dst, a []float64, cols int, x []float64)

// mulTransVec4AVX2 adds x[i]*a[i*cols:(i+1)*cols] to dst for every i <
// len(x), which must be a multiple of 4; len(dst) = cols > 0.
//
//go:noescape
func mulTransVec4AVX2(dst, a []float64, cols int, x []float64)

// The blocked matrix-vector kernels, dispatched here because only amd64 has
// them so far (NEON computes every row with dotAsm / axpyToAsm).

// mulVecBlocked computes the leading rows of dst = A x, four at a time,
// and returns how many it did (a multiple of 4; 0 on the generic path).
func mulVecBlocked(dst, a []float64, cols int, x []float64) int {
	r := len(dst) &^ 3
	if !accel || r == 0 {
		return 0
	}
	mulVec4AVX2(dst[:r], a, cols, x)
	return r
}

// mulTransVecBlocked adds the contribution of the leading rows of A to
// dst = A^T x, four at a time, and returns how many it did.
func mulTransVecBlocked(dst, a []float64, cols int, x []float64) int {
	r := len(x) &^ 3
	if !accel || r == 0 {
		return 0
	}
	mulTransVec4AVX2(dst, a, cols, x[:r])
	return r
}
