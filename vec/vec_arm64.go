//go:build gc && !purego

package vec

import "golang.org/x/sys/cpu"

// accelName is what Impl reports when the assembly kernels are in use.
const accelName = "neon"

// hasAccel is decided once, at start-up. ASIMD is architecturally required
// on arm64, but reading golang.org/x/sys/cpu lets GODEBUG=cpu.asimd=off
// (or cpu.all=off) select the generic code, as on amd64.
var hasAccel = cpu.ARM64.HasASIMD

// The blocked matrix-vector kernels exist only on amd64 for now: NEON
// computes every row with dotAsm / axpyToAsm.
func mulVecBlocked(dst, a []float64, cols int, x []float64) int      { return 0 }
func mulTransVecBlocked(dst, a []float64, cols int, x []float64) int { return 0 }
