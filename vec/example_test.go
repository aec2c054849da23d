package vec_test

import (
	"fmt"
	"math"

	"github.com/neadmm/neadmm/vec"
)

// The values in these examples are exact in binary and every intermediate
// result is exact, so the output is the same with and without FMA and in
// any summation order.

func ExampleDot() {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{0.5, -1, 0.25, 2, 1}
	fmt.Println(vec.Dot(x, y))
	fmt.Println(vec.Dot(nil, nil))
	fmt.Println(vec.Dot([]float64{1, math.NaN()}, []float64{1, 0}))
	// Output:
	// 12.25
	// 0
	// NaN
}

func ExampleAxpy() {
	x := []float64{2, 4, -6}
	y := []float64{1, 1, 1}
	vec.Axpy(0.5, x, y) // y += 0.5*x
	fmt.Println(y)
	// Output: [2 3 -2]
}

func ExampleSoftThreshold() {
	x := []float64{-3, -0.5, 0, 0.25, 1.5, math.Inf(1), math.NaN()}
	vec.SoftThreshold(x, x, 1) // in place
	fmt.Println(x)
	// Output: [-2 0 0 0 0.5 +Inf NaN]
}

func ExampleNrm2() {
	x := []float64{3e300, 4e300}
	fmt.Println(vec.Nrm2(x))
	fmt.Println(math.Sqrt(vec.Dot(x, x))) // the squares overflow
	fmt.Println(vec.Nrm2([]float64{3e-320, 4e-320}))
	// Output:
	// 5e+300
	// +Inf
	// 5e-320
}

func ExampleMulVec() {
	a := []float64{ // 2 x 3, row-major
		1, 2, 3,
		4, 5, 6,
	}
	y := make([]float64, 2)
	vec.MulVec(y, a, 2, 3, []float64{1, 0.5, -1})
	fmt.Println(y)
	z := make([]float64, 3)
	vec.MulTransVec(z, a, 2, 3, []float64{1, 2})
	fmt.Println(z)
	// Output:
	// [-1 0.5]
	// [9 12 15]
}

func ExampleAddScaledTo() {
	x := []float64{1, 2, 3}
	prev := []float64{1, 1, 1}
	step := make([]float64, 3)
	vec.Sub(step, x, prev)              // step = x - prev
	vec.AddScaledTo(step, x, 0.5, step) // step = x + 0.5*step (a momentum step)
	fmt.Println(step)
	// Output: [1 2.5 4]
}

func ExampleAsum() {
	fmt.Println(vec.Asum([]float64{3, -4, 0.5, math.Copysign(0, -1)}))
	fmt.Println(vec.Asum([]float64{math.MaxFloat64, -math.MaxFloat64})) // no scaling
	fmt.Println(vec.Asum([]float64{1, math.Inf(-1)}))
	// Output:
	// 7.5
	// +Inf
	// +Inf
}

func ExampleScal() {
	x := []float64{1, -2, 0.5}
	vec.Scal(-2, x)
	fmt.Println(x)
	y := []float64{1, math.Inf(1), math.NaN()}
	vec.Scal(0, y) // 0*Inf is NaN: Scal(0, y) does not clear y
	fmt.Println(y)
	clear(y)
	fmt.Println(y)
	// Output:
	// [-2 4 -1]
	// [0 NaN NaN]
	// [0 0 0]
}

// Impl depends on the CPU (and on GODEBUG and the purego build tag), so
// this example has no fixed output and is compiled but not run by go test.
func ExampleImpl() {
	fmt.Println("kernels:", vec.Impl()) // "avx512", "avx2", "neon" or "generic"
}

// Every implementation this CPU can run is a Kernels value, whose methods
// are the package functions on that implementation: here each one's Dot
// side by side (the list depends on the CPU; "generic" is always last and
// always there), without switching what the package functions run.
func ExampleImplementations() {
	x, y := []float64{1, 2, 3, 4}, []float64{0.5, 0.25, -1, 2}
	ks := vec.Implementations()
	for _, k := range ks {
		_ = k.Dot(x, y) // 6 on each: exact values, no rounding
	}
	last := ks[len(ks)-1]
	fmt.Println(last.Name(), last.Dot(x, y))
	k, ok := vec.Lookup("generic")
	fmt.Println(k.Name(), ok)
	_, ok = vec.Lookup("sse2")
	fmt.Println(ok)
	// Output:
	// generic 6
	// generic true
	// false
}

// GradSweep computes A x and the gradient A^T w of a loss that sees row i
// only through (Ax)_i, in one pass over A: here the one-sided quadratic of
// 1-bit compressive sensing, loss_i = min(y_i (Ax)_i, 0)^2 / 2, whose
// derivative is w_i = y_i min(y_i (Ax)_i, 0). The closure accumulates the
// loss as GradSweep calls it, once per row, in order.
func ExampleGradSweep() {
	a := []float64{ // 3 x 2, row-major
		1, 2,
		-1, 0.5,
		0.5, -1,
	}
	x := []float64{1, 1}
	y := []float64{1, 1, -1} // the measured signs
	ax, g := make([]float64, 3), make([]float64, 2)
	loss := 0.0
	vec.GradSweep(ax, g, a, 2, x, func(i int, v float64) float64 {
		m := min(y[i]*v, 0) // negative where the sign of (Ax)_i is wrong
		loss += m * m / 2
		return y[i] * m
	})
	fmt.Println(ax, g, loss)
	// Output: [3 -0.5 -0.5] [0.5 -0.25] 0.125
}
