package vec_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/cpu"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/internal/vectest"
	"github.com/neadmm/neadmm/vec"
)

// TestImplementations logs the implementations the tests run on and the
// ones of this GOARCH they cannot (go test -v -run TestImplementations
// prints "vec: implementations tested: avx512 avx2 generic", or e.g.
// "vec: avx512 not available on this CPU: not tested"), and checks the
// list against golang.org/x/sys/cpu, so that an implementation this CPU
// can run is never left out of the tests.
func TestImplementations(t *testing.T) {
	vectest.Report(t)
	var want []string
	if hasAssembly {
		switch runtime.GOARCH {
		case "amd64":
			avx2 := cpu.X86.HasAVX2 && cpu.X86.HasFMA
			if avx2 && cpu.X86.HasAVX512F {
				want = append(want, "avx512")
			}
			if avx2 {
				want = append(want, "avx2")
			}
		case "arm64":
			if cpu.ARM64.HasASIMD {
				want = append(want, "neon")
			}
		}
	}
	want = append(want, "generic")
	require.Equal(t, want, vectest.Tested())
	assert.Equal(t, want[0], vec.Impl(), "the package functions do not run the best implementation")
	assert.Len(t, vectest.Untested(), len(vectest.All())-len(want))
	for _, name := range want {
		k, ok := vec.Lookup(name)
		assert.True(t, ok, name)
		assert.Equal(t, name, k.Name())
	}
	for _, name := range []string{"", "bogus", "AVX2", "sse2"} {
		_, ok := vec.Lookup(name)
		assert.False(t, ok, "Lookup(%q)", name)
	}
	assert.Equal(t, "generic", vec.Kernels{}.Name(), "the zero Kernels")
	// The slice is the caller's.
	ks := vec.Implementations()
	ks[0] = vec.Kernels{}
	assert.Equal(t, want[0], vec.Implementations()[0].Name())
}

// TestKernelsMatchPackage checks that each implementation's methods give
// the same bits as the package functions switched to it.
func TestKernelsMatchPackage(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	const rows, cols = 13, 37
	x, y, a := make([]float64, cols), make([]float64, cols), make([]float64, rows*cols)
	xr := make([]float64, rows)
	fillNormal(r, x)
	fillNormal(r, y)
	fillNormal(r, a)
	fillNormal(r, xr)
	phi := func(i int, v float64) float64 { return v * float64(i) }
	vectest.ForEach(t, func(t *testing.T, k vec.Kernels) {
		assert.Equal(t, vec.Dot(x, y), k.Dot(x, y))
		assert.Equal(t, vec.Nrm2(x), k.Nrm2(x))
		d1, d2 := make([]float64, cols), make([]float64, cols)
		vec.AddScaledTo(d1, y, 0.3, x)
		k.AddScaledTo(d2, y, 0.3, x)
		assert.Equal(t, d1, d2, "AddScaledTo")
		vec.Sub(d1, x, y)
		k.Sub(d2, x, y)
		assert.Equal(t, d1, d2, "Sub")
		vec.SoftThreshold(d1, x, 0.4)
		k.SoftThreshold(d2, x, 0.4)
		assert.Equal(t, d1, d2, "SoftThreshold")
		copy(d1, y)
		copy(d2, y)
		vec.Axpy(0.7, x, d1)
		k.Axpy(0.7, x, d2)
		assert.Equal(t, d1, d2, "Axpy")
		r1, r2 := make([]float64, rows), make([]float64, rows)
		vec.MulVec(r1, a, rows, cols, x)
		k.MulVec(r2, a, rows, cols, x)
		assert.Equal(t, r1, r2, "MulVec")
		vec.MulTransVec(d1, a, rows, cols, xr)
		k.MulTransVec(d2, a, rows, cols, xr)
		assert.Equal(t, d1, d2, "MulTransVec")
		vec.GradSweep(r1, d1, a, cols, x, phi)
		k.GradSweep(r2, d2, a, cols, x, phi)
		assert.Equal(t, r1, r2, "GradSweep ax")
		assert.Equal(t, d1, d2, "GradSweep g")
	})
}

// TestMulTransVecSameBitsOnAssembly checks what MulTransVec's doc promises:
// the assembly implementations (fused, rows in order) give the same bits.
func TestMulTransVecSameBitsOnAssembly(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, sh := range [][2]int{{1, 1}, {7, 3}, {13, 37}, {64, 100}, {9, 1003}} {
		rows, cols := sh[0], sh[1]
		a, x := make([]float64, rows*cols), make([]float64, rows)
		fillNormal(r, a)
		fillNormal(r, x)
		var first []float64
		for _, k := range vec.Implementations() {
			if k.Name() == "generic" {
				continue
			}
			g := make([]float64, cols)
			k.MulTransVec(g, a, rows, cols, x)
			if first == nil {
				first = g
				continue
			}
			if !guard.SameBits(g, first) {
				t.Errorf("%dx%d: %s differs from %s", rows, cols, k.Name(), vec.Implementations()[0].Name())
			}
		}
	}
}
