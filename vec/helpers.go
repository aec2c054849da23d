package vec

import "math"

// Helpers built on the kernels. Each package function runs the
// implementation chosen at start-up (see Kernels for the others).

// nrm2FastMin is the smallest sum of squares for which Nrm2 trusts Dot(x, x).
// Squares that underflow lose at most 2^-1075 each, so above 2^-900 that loss
// is below n*2^-175 relative: far under the rounding error of the sum.
const nrm2FastMin = 0x1p-900

// Nrm2 returns the Euclidean norm sqrt(sum x[i]^2) of x, without overflow
// or underflow in intermediate results: the answer is +Inf only when the
// norm itself exceeds math.MaxFloat64, and its relative error is below
// (n+2)*2^-52 at every scale (plus 2^-1074 absolute when the norm is
// subnormal). It costs one pass when the sum of squares is safely in
// range (a sum-of-squares kernel: Dot(x, x) with one load per element
// instead of two, up to 1.7x faster than Dot on data in L1), and a second,
// scaled pass otherwise.
//
// Special cases:
//
//	Nrm2(nil) = 0
//	Nrm2(x) = NaN if any x[i] is NaN
//	Nrm2(x) = +Inf if any x[i] is ±Inf and none is NaN
func Nrm2(x []float64) float64 { return active.Nrm2(x) }

// nrm2Scaled computes the norm of x (NaN-free) with x scaled by a power of
// two that brings the largest |x[i]| into [0.5, 1) (or to at least 2^-74
// when it is subnormal): the scaling is exact, the squares cannot
// overflow, and whatever underflows is negligible beside the largest
// square.
func nrm2Scaled(x []float64) float64 {
	amax := 0.0
	for _, v := range x {
		amax = math.Max(amax, math.Abs(v))
	}
	if amax == 0 || math.IsInf(amax, 1) {
		return amax
	}
	_, e := math.Frexp(amax) // amax = f*2^e, f in [0.5, 1)
	// 2^-e overflows for subnormal amax (e < -1021); 2^1000 is enough to
	// bring any subnormal to >= 2^-74.
	k := min(-e, 1000)
	scale := math.Ldexp(1, k)
	var s0, s1, s2, s3 float64
	for len(x) >= 4 {
		a, b, c, d := x[0]*scale, x[1]*scale, x[2]*scale, x[3]*scale
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
		x = x[4:]
	}
	for _, v := range x {
		v *= scale
		s0 += v * v
	}
	return math.Ldexp(math.Sqrt((s0+s1)+(s2+s3)), -k)
}

// Asum returns sum |x[i]|, the L1 norm of x, with the same code on every
// implementation. The summation order is unspecified (four partial sums);
// as every term is non-negative, the relative error is at most
// (n-1)*u/(1-(n-1)*u) in any order, n = len(x), u = 2^-53.
//
// Special cases:
//
//	Asum(nil) = 0
//	Asum(x) = NaN if any x[i] is NaN
//	Asum(x) = +Inf if any x[i] is ±Inf and none is NaN
//	Asum(x) = +Inf if all x[i] are finite but their sum exceeds
//	math.MaxFloat64 (to within the error bound above; unlike Nrm2, Asum
//	does not scale)
func Asum(x []float64) float64 {
	// Four independent sums: the loop runs at the add throughput rather than
	// the add latency.
	var s0, s1, s2, s3 float64
	for len(x) >= 4 {
		s0 += math.Abs(x[0])
		s1 += math.Abs(x[1])
		s2 += math.Abs(x[2])
		s3 += math.Abs(x[3])
		x = x[4:]
	}
	for _, v := range x {
		s0 += math.Abs(v)
	}
	return (s0 + s1) + (s2 + s3)
}

// Scal sets x[i] *= alpha, with IEEE special cases (0*Inf = NaN, so
// Scal(0, x) does not clear an x holding Inf or NaN; use clear for that).
func Scal(alpha float64, x []float64) {
	for i := range x {
		x[i] *= alpha
	}
}

// AddScaledTo sets dst[i] = y[i] + alpha*x[i]. It panics unless dst, x and y
// have the same length, and if dst overlaps x or y other than as that slice
// itself. Like Axpy, the accelerated paths fuse the multiply and add (one
// rounding); the generic path may round alpha*x[i] first.
//
// Aliasing (c a copy of dst's memory before the call, bit for bit):
//
//	AddScaledTo(x, y, alpha, x) = AddScaledTo(x, y, alpha, c)
//	AddScaledTo(y, y, alpha, x) = AddScaledTo(y, c, alpha, x)
//	AddScaledTo(dst, y, alpha, x) panics if dst overlaps x or y in any
//	other way; x and y may overlap each other in any way
func AddScaledTo(dst, y []float64, alpha float64, x []float64) { active.AddScaledTo(dst, y, alpha, x) }

// Sub sets dst[i] = x[i] - y[i]. It panics unless dst, x and y have the same
// length, and if dst overlaps x or y other than as that slice itself. The
// result is exactly x[i] - y[i] on every path (IEEE special cases included).
//
// Aliasing (c a copy of dst's memory before the call, bit for bit):
//
//	Sub(x, x, y) = Sub(x, c, y)
//	Sub(y, x, y) = Sub(y, x, c)
//	Sub(dst, x, y) panics if dst overlaps x or y in any other way; x and
//	y may overlap each other in any way
func Sub(dst, x, y []float64) { active.Sub(dst, x, y) }

// MulVec sets dst = A x for the rows x cols row-major matrix a, that is
// dst[i] = Dot(a[i*cols:(i+1)*cols], x). It panics if rows or cols is
// negative, len(a) != rows*cols, len(x) != cols or len(dst) != rows, and if
// dst overlaps a or x. With cols == 0, dst is set to zero. Each entry has
// Dot's error bound and special cases. The AVX2 and AVX-512 kernels do four
// rows at a time, so each load of x serves four rows; the others run Dot on
// each row. For both product and transpose with the same A, see GradSweep.
//
// Aliasing (x is read for every row, after the first rows are written):
//
//	MulVec(x, a, n, n, x) panics, as does any overlap of dst with a or x;
//	a and x may overlap each other in any way
func MulVec(dst, a []float64, rows, cols int, x []float64) { active.MulVec(dst, a, rows, cols, x) }

// MulTransVec sets dst = A^T x for the rows x cols row-major matrix a, that
// is dst[j] = sum_i a[i*cols+j]*x[i]. It panics if rows or cols is negative,
// len(a) != rows*cols, len(x) != rows or len(dst) != cols, and if dst
// overlaps a or x. With rows == 0, dst is set to zero. Each entry has Dot's
// error bound (the sum runs over i in order, fused on the assembly
// implementations, so AVX2 and AVX-512 give the same bits). The AVX2 and
// AVX-512 kernels add four rows per pass over dst; the others run Axpy on
// each row.
//
// Aliasing (dst is cleared first, then summed into once per row):
//
//	MulTransVec(x, a, n, n, x) panics, as does any overlap of dst with a
//	or x; a and x may overlap each other in any way
func MulTransVec(dst, a []float64, rows, cols int, x []float64) {
	active.MulTransVec(dst, a, rows, cols, x)
}
