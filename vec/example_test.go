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
	fmt.Println("kernels:", vec.Impl()) // "avx2", "neon" or "generic"
}
