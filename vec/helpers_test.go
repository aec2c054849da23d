package vec_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/vec"
)

// bigNrm2 is the exact norm rounded once: the sum of squares in 2000-bit
// big.Float arithmetic (exact here), then a correctly rounded square root.
func bigNrm2(x []float64) float64 {
	s := new(big.Float).SetPrec(2000)
	if len(x) == 0 {
		return 0
	}
	for _, v := range x {
		b := new(big.Float).SetPrec(2000).SetFloat64(v)
		s.Add(s, b.Mul(b, b))
	}
	f, _ := s.Sqrt(s).Float64()
	return f
}

// refNrm2 returns the norm of x (finite) computed apart from Nrm2: every
// x[i] is scaled by the same power of two 2^-e, e from the largest |x[i]|,
// so that the largest lands in [0.5, 1) and no square overflows (exact but
// for elements below 2^-1022 times the largest, whose squares are
// negligible), the squares are summed with refDot (error at most
// u*s + gamma_n^2*s) and the square root is scaled back: relative error
// below 1.6u, plus 2^-1075 where the result is subnormal.
func refNrm2(x []float64) float64 {
	amax := 0.0
	for _, v := range x {
		amax = math.Max(amax, math.Abs(v))
	}
	if amax == 0 {
		return 0
	}
	_, e := math.Frexp(amax)
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Ldexp(v, -e)
	}
	s, _ := refDot(y, y)
	return math.Ldexp(math.Sqrt(s), e)
}

// nrm2Tol bounds Nrm2's error plus the reference's: the sum of n
// non-negative squares has relative error at most gamma_n (products and
// sum, any order; the power-of-two scaling of the slow path is exact), the
// square root halves it and adds one rounding, the final scaling back adds
// at most 2^-1075 where the result is subnormal: (n+2)u/2 in all, to first
// order. The references add one rounding (bigNrm2) or 1.6u (refNrm2).
// (n+2)*eps = 2(n+2)u covers the sum for every n, and 2^-1074 the
// subnormal roundings. Dropping or doubling an element of N(0,1) data
// changes the norm by about 1/(2n) relative, far above the bound.
func nrm2Tol(n int, want float64) float64 {
	return float64(n+2)*eps*want + 0x1p-1074
}

func TestNrm2(t *testing.T) {
	// Scales that overflow or underflow a naive sum of squares (and so
	// take the scaled path), and ones in between; 1e-160 squares to about
	// 1e-320, subnormal; 0x1p-1074 makes most elements 0 or subnormal.
	scales := []float64{1, 1e300, 1e-300, 1e-160, 1e160, 1e154, 1e-154, 0x1p-1074, 0x1p1000}
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, n := range testLengths() {
			x := make([]float64, n)
			for _, sc := range scales {
				fillNormal(r, x)
				for i := range x {
					x[i] *= sc
				}
				want := refNrm2(x)
				for off := range guard.Offsets {
					g := guard.Of(x, off)
					got := vec.Nrm2(g.S())
					if math.Abs(got-want) > nrm2Tol(n, want) || math.IsNaN(got) {
						t.Fatalf("n=%d scale=%g off=%d: Nrm2 = %v, want %v", n, sc, off, got, want)
					}
					checkGuards(t, fmt.Sprintf("Nrm2 n=%d scale=%g off=%d", n, sc, off))
				}
			}
		}
		// One huge value among tiny ones and the reverse order, against
		// the exact norm.
		mixed := []float64{1e-300, 3e300, -2e-310, 4e300, 1e-320}
		for range 2 {
			want := bigNrm2(mixed)
			if got := vec.Nrm2(mixed); math.Abs(got-want) > nrm2Tol(len(mixed), want) {
				t.Errorf("vec.Nrm2(%v) = %v, want %v", mixed, got, want)
			}
			slices.Reverse(mixed)
		}
	})
}

func TestNrm2Special(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		nan, inf := math.NaN(), math.Inf(1)
		max := math.MaxFloat64
		for _, c := range []struct {
			x    []float64
			want float64
		}{
			{nil, 0},
			{[]float64{0, math.Copysign(0, -1)}, 0},
			{[]float64{-3, 4}, 5},
			{[]float64{5e-324}, 5e-324},
			{[]float64{-5e-324, 0, 0, 0, 0}, 5e-324},
			{[]float64{3e-320, 4e-320}, 5e-320},
			{[]float64{max}, max},
			{[]float64{-max, 0, 0, 0, 0, 0}, max},
			{[]float64{max, max}, inf}, // the norm itself overflows
			{[]float64{3e300, -4e300}, 5e300},
			{[]float64{1, -inf, 2}, inf},
			{[]float64{inf, inf}, inf},
			{[]float64{1, nan, 2}, nan},
			{[]float64{inf, nan}, nan},
			{[]float64{nan, -inf, 0, 0, 0, 0, 0, 0, 0}, nan},
			{[]float64{1e-300, nan}, nan},
		} {
			got := vec.Nrm2(c.x)
			if !sameFloat(got, c.want) {
				t.Errorf("vec.Nrm2(%v) = %v, want %v", c.x, got, c.want)
			}
		}
	})
}

// refAsum returns sum |x[i]| with a compensated (Neumaier) sum.
func refAsum(x []float64) float64 {
	var s, c float64
	for _, v := range x {
		v = math.Abs(v)
		t := s + v
		if math.Abs(s) >= v {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
	}
	return s + c
}

// asumTol bounds Asum's error plus the reference's: a sum of n
// non-negative terms in any order is within gamma_{n-1}*s of s (Higham,
// Accuracy and Stability, 4.2), and refAsum (compensated) within
// u*s + O(n*u^2)*s; n*eps = 2nu covers both for every n >= 1 (and n = 1 is
// exact on both sides). Dropping an element of N(0,1) data changes the sum
// by about 1/n relative.
func asumTol(n int, want float64) float64 {
	return float64(n) * eps * want
}

func TestAsum(t *testing.T) {
	// Asum does not use the kernels; running it on both paths keeps it so
	// if it ever does.
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(15, 16))
		for _, n := range testLengths() {
			for off := range guard.Offsets {
				g := guarded(r, n, off)
				want := refAsum(g.S())
				if got := vec.Asum(g.S()); math.Abs(got-want) > asumTol(n, want) {
					t.Fatalf("n=%d off=%d: Asum = %v, want %v", n, off, got, want)
				}
				checkGuards(t, fmt.Sprintf("Asum n=%d off=%d", n, off))
			}
		}
		for _, c := range []struct {
			x    []float64
			want float64
		}{
			{nil, 0},
			{[]float64{math.Copysign(0, -1)}, 0},
			{[]float64{-1, 2, -3, 4, -5}, 15},
			{[]float64{1, math.Inf(-1), 0, 0, 0}, math.Inf(1)},
			{[]float64{math.Inf(1), math.NaN()}, math.NaN()},
			{[]float64{1, 2, 3, 4, 5, 6, 7, math.NaN()}, math.NaN()},
			{[]float64{math.MaxFloat64, math.MaxFloat64}, math.Inf(1)},
			{[]float64{-math.MaxFloat64, 0, 0, 0, math.MaxFloat64}, math.Inf(1)},
			{[]float64{5e-324, -5e-324, 5e-324}, 1.5e-323},
		} {
			if got := vec.Asum(c.x); !sameFloat(got, c.want) {
				t.Errorf("vec.Asum(%v) = %v, want %v", c.x, got, c.want)
			}
		}
	})
}

func TestScal(t *testing.T) {
	alphas := []float64{0, -1, 0.5, 3, 1e300, 0x1p-1000, math.Inf(1), math.NaN(), math.Copysign(0, -1)}
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(17, 18))
		for _, n := range testLengths() {
			for off := range guard.Offsets {
				alpha := alphas[(n+off)%len(alphas)]
				g := guarded(r, n, off)
				// Special values in the first, middle and last places.
				for k, i := range []int{0, n / 2, n - 1} {
					if i >= 0 && i < n {
						g.S()[i] = specials[(n+k)%len(specials)]
					}
				}
				x0 := append([]float64(nil), g.S()...)
				vec.Scal(alpha, g.S())
				for i, got := range g.S() {
					if want := x0[i] * alpha; !sameFloat(got, want) {
						t.Fatalf("n=%d off=%d alpha=%v i=%d: %v*alpha = %v, want %v", n, off, alpha, i, x0[i], got, want)
					}
				}
				checkGuards(t, fmt.Sprintf("Scal n=%d off=%d", n, off))
			}
		}
	})
}

func TestAddScaledToAndSub(t *testing.T) {
	sweepK(t, 19, 3, func(t *testing.T, r *rand.Rand, v [][]float64, what string) {
		x, y, d := v[0], v[1], v[2]
		n := len(x)
		if n > 3 {
			x[n-1], y[n-2], x[n-3], y[n-3] = math.NaN(), math.Inf(1), math.Copysign(0, -1), 0
		}
		alpha := r.NormFloat64()
		vec.AddScaledTo(d, y, alpha, x)
		for i, got := range d {
			if !axpyOK(got, alpha, x[i], y[i]) {
				t.Fatalf("AddScaledTo %s i=%d: %v + %v*%v = %v", what, i, y[i], alpha, x[i], got)
			}
		}
		vec.Sub(d, x, y)
		for i, got := range d {
			if want := x[i] - y[i]; !sameFloat(got, want) {
				t.Fatalf("Sub %s i=%d: %v - %v = %v, want %v", what, i, x[i], y[i], got, want)
			}
		}
		// dst aliasing either input.
		x0, y0 := append([]float64(nil), x...), append([]float64(nil), y...)
		vec.AddScaledTo(x, y, alpha, x)
		vec.Sub(y, x0, y)
		for i := range x0 {
			if !axpyOK(x[i], alpha, x0[i], y0[i]) {
				t.Fatalf("vec.AddScaledTo(x, y, alpha, x) %s i=%d: %v", what, i, x[i])
			}
			if want := x0[i] - y0[i]; !sameFloat(y[i], want) {
				t.Fatalf("vec.Sub(y, x, y) %s i=%d: %v, want %v", what, i, y[i], want)
			}
		}
	})
	// Signed zeros and infinities are exactly those of x - y.
	forEachImpl(t, func(t *testing.T) {
		for _, a := range specials {
			for _, b := range specials {
				d := []float64{0}
				vec.Sub(d, []float64{a}, []float64{b})
				if want := a - b; !sameFloat(d[0], want) {
					t.Errorf("vec.Sub(%v, %v) = %v, want %v", a, b, d[0], want)
				}
			}
		}
	})
}

// refMulVec returns A x (trans false) or A^T x and, per entry, the scale
// sum_j |a_ij x_j| of its error bound.
func refMulVec(a []float64, rows, cols int, x []float64, trans bool) (y, abs []float64) {
	m, k := rows, cols
	at := func(i, j int) float64 { return a[i*cols+j] }
	if trans {
		m, k = cols, rows
		at = func(i, j int) float64 { return a[j*cols+i] }
	}
	y, abs = make([]float64, m), make([]float64, m)
	row := make([]float64, k)
	for i := range y {
		for j := range row {
			row[j] = at(i, j)
		}
		y[i], abs[i] = refDot(row, x)
	}
	return y, abs
}

// TestMulVec checks MulVec and MulTransVec for every shape up to 40 x 40,
// every length up to 300 with 4, 5, 7 and 9 for the other dimension, and
// some large and odd shapes, with the matrix, x and dst each at every
// offset 0..7 inside guard bands, against refMulVec. Each entry is a dot
// product of length k (MulTransVec accumulates it one row, fused or not, at
// a time), so it gets Dot's bound, dotTol(k, sum_j |a_ij x_j|): any order,
// fused or not, is within gamma_k of the exact sum, and refDot within about
// one rounding. A dropped, doubled or misplaced term is off by a whole
// |a_ij x_j|, far more.
func TestMulVec(t *testing.T) {
	type dims struct{ rows, cols int }
	var cases []dims
	for rows := 0; rows <= 40; rows++ {
		for cols := 0; cols <= 40; cols++ {
			cases = append(cases, dims{rows, cols})
		}
	}
	for n := 41; n <= 300; n++ {
		cases = append(cases, dims{4, n}, dims{5, n}, dims{n, 7}, dims{n, 9})
	}
	cases = append(cases, dims{33, 65}, dims{100, 37}, dims{257, 130}, dims{5, 1031},
		dims{1031, 5}, dims{1, 4097}, dims{4097, 1}, dims{67, 129})
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 22))
		for _, c := range cases {
			for _, trans := range []bool{false, true} {
				n, k := c.rows, c.cols // len(dst), len(x)
				if trans {
					n, k = k, n
				}
				for off := range guard.Offsets {
					ga := guarded(r, c.rows*c.cols, off)
					gx := guarded(r, k, vecOffset(off, 1))
					gd := guarded(r, n, vecOffset(off, 2)) // must be overwritten
					a := ga.S()
					name := "MulVec"
					if trans {
						name = "MulTransVec"
						vec.MulTransVec(gd.S(), a, c.rows, c.cols, gx.S())
					} else {
						vec.MulVec(gd.S(), a, c.rows, c.cols, gx.S())
					}
					what := fmt.Sprintf("%s %dx%d off=%d", name, c.rows, c.cols, off)
					want, abs := refMulVec(a, c.rows, c.cols, gx.S(), trans)
					for i, got := range gd.S() {
						if math.Abs(got-want[i]) > dotTol(k, abs[i]) || (k == 0 && got != 0) {
							t.Fatalf("%s entry %d: %v, want %v", what, i, got, want[i])
						}
					}
					checkGuards(t, what+" (a, x, dst)", ga, gx, gd)
				}
			}
		}
	})
}

// TestMulVecNaN puts a NaN at every position of A in turn: exactly the
// entries of the product that depend on it must be NaN, whatever block or
// tail of the kernels it falls in.
func TestMulVecNaN(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(23, 24))
		const rows, cols = 9, 11
		a := make([]float64, rows*cols)
		x, xt := make([]float64, cols), make([]float64, rows)
		y, yt := make([]float64, rows), make([]float64, cols)
		fillNormal(r, x)
		fillNormal(r, xt)
		for k := range a {
			fillNormal(r, a)
			a[k] = math.NaN()
			vec.MulVec(y, a, rows, cols, x)
			vec.MulTransVec(yt, a, rows, cols, xt)
			for i, v := range y {
				if math.IsNaN(v) != (i == k/cols) {
					t.Fatalf("NaN at A[%d][%d]: MulVec entry %d = %v", k/cols, k%cols, i, v)
				}
			}
			for j, v := range yt {
				if math.IsNaN(v) != (j == k%cols) {
					t.Fatalf("NaN at A[%d][%d]: MulTransVec entry %d = %v", k/cols, k%cols, j, v)
				}
			}
		}
	})
}
