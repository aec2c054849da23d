package vec

import "math"

// Helpers built on the kernels. (Initial versions; the vec issue refines and
// tests them.)

// Nrm2 returns the Euclidean norm of x without overflow or underflow in
// intermediate results.
func Nrm2(x []float64) float64 {
	var scale, ssq float64 = 0, 1
	for _, v := range x {
		if v == 0 {
			continue
		}
		a := math.Abs(v)
		if math.IsNaN(a) {
			return math.NaN()
		}
		if scale < a {
			ssq = 1 + ssq*(scale/a)*(scale/a)
			scale = a
		} else {
			ssq += (a / scale) * (a / scale)
		}
	}
	if math.IsInf(scale, 1) {
		return scale
	}
	return scale * math.Sqrt(ssq)
}

// Asum returns sum |x[i]|, the L1 norm.
func Asum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += math.Abs(v)
	}
	return s
}

// Scal sets x[i] *= alpha.
func Scal(alpha float64, x []float64) {
	for i := range x {
		x[i] *= alpha
	}
}

// MulVec sets dst = A x for the rows x cols row-major matrix a.
// It panics if len(a) != rows*cols, len(x) != cols or len(dst) != rows.
func MulVec(dst, a []float64, rows, cols int, x []float64) {
	if rows < 0 || cols < 0 || len(a) != rows*cols || len(x) != cols || len(dst) != rows {
		panic("vec.MulVec: dimension mismatch")
	}
	for i := range dst {
		dst[i] = Dot(a[i*cols:(i+1)*cols], x)
	}
}

// MulTransVec sets dst = A^T x for the rows x cols row-major matrix a.
// It panics if len(a) != rows*cols, len(x) != rows or len(dst) != cols.
func MulTransVec(dst, a []float64, rows, cols int, x []float64) {
	if rows < 0 || cols < 0 || len(a) != rows*cols || len(x) != rows || len(dst) != cols {
		panic("vec.MulTransVec: dimension mismatch")
	}
	clear(dst)
	for i, xi := range x {
		Axpy(xi, a[i*cols:(i+1)*cols], dst)
	}
}
