package vec

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
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

// nrm2Tol bounds Nrm2's error: the sum of n non-negative squares has
// relative error at most gamma_{n+1} (products and sum, any order; the
// power-of-two scaling of the slow path is exact), the square root halves
// it and adds one rounding, the final scaling back adds at most one more
// where the result is subnormal. (n+2)*eps = 2(n+2)u covers all of that
// and the one rounding of the reference.
func nrm2Tol(n int, want float64) float64 {
	return float64(n+2)*eps*want + 0x1p-1074
}

func TestNrm2(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 14))
		// Scales that overflow or underflow a naive sum of squares, and
		// ones in between; 1e-160 squares to about 1e-320, subnormal.
		scales := []float64{1, 1e300, 1e-300, 1e-160, 1e160, 1e154, 1e-154, 0x1p-1074, 0x1p1000}
		for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 31, 100, 257, 4097} {
			for _, sc := range scales {
				for off := 0; off < 4; off++ {
					g := newGuarded(n, off)
					fillNormal(r, g.data)
					for i := range g.data {
						g.data[i] *= sc
					}
					want := bigNrm2(g.data)
					got := Nrm2(g.data)
					if math.Abs(got-want) > nrm2Tol(n, want) || math.IsNaN(got) {
						t.Fatalf("n=%d scale=%g off=%d: Nrm2 = %v, want %v", n, sc, off, got, want)
					}
					g.check(t, fmt.Sprintf("Nrm2 n=%d", n))
				}
			}
		}
		// One huge value among tiny ones and the reverse order.
		mixed := []float64{1e-300, 3e300, -2e-310, 4e300, 1e-320}
		for range 2 {
			want := bigNrm2(mixed)
			if got := Nrm2(mixed); math.Abs(got-want) > nrm2Tol(len(mixed), want) {
				t.Errorf("Nrm2(%v) = %v, want %v", mixed, got, want)
			}
			for i, j := 0, len(mixed)-1; i < j; i, j = i+1, j-1 {
				mixed[i], mixed[j] = mixed[j], mixed[i]
			}
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
			got := Nrm2(c.x)
			if !sameFloat(got, c.want) {
				t.Errorf("Nrm2(%v) = %v, want %v", c.x, got, c.want)
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

func TestAsum(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, n := range testLengths() {
		for off := 0; off < 4; off++ {
			g := newGuarded(n, off)
			fillNormal(r, g.data)
			want := refAsum(g.data)
			got := Asum(g.data)
			// Sum of n non-negative terms, any order: gamma_{n-1} relative.
			if math.Abs(got-want) > float64(n)*eps*want {
				t.Fatalf("n=%d off=%d: Asum = %v, want %v", n, off, got, want)
			}
			g.check(t, "Asum")
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
	} {
		if got := Asum(c.x); !sameFloat(got, c.want) {
			t.Errorf("Asum(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

func TestScal(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{0, 1, 3, 4, 5, 17, 300} {
		for _, alpha := range []float64{0, -1, 0.5, 3, math.Inf(1), math.NaN()} {
			g := newGuarded(n, n%4)
			fillNormal(r, g.data)
			if n > 2 {
				g.data[0], g.data[1], g.data[2] = math.NaN(), math.Inf(-1), math.Copysign(0, -1)
			}
			x0 := append([]float64(nil), g.data...)
			Scal(alpha, g.data)
			for i, got := range g.data {
				if want := x0[i] * alpha; !sameFloat(got, want) {
					t.Fatalf("n=%d alpha=%v i=%d: %v*alpha = %v, want %v", n, alpha, i, x0[i], got, want)
				}
			}
			g.check(t, "Scal")
		}
	}
}

func TestAddScaledToAndSub(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(19, 20))
		for _, n := range testLengths() {
			off := n % 4
			gx, gy, gd := newGuarded(n, off), newGuarded(n, (off+1)%4), newGuarded(n, (off+2)%4)
			fillNormal(r, gx.data)
			fillNormal(r, gy.data)
			if n > 3 {
				gx.data[n-1], gy.data[n-2], gx.data[n-3] = math.NaN(), math.Inf(1), math.Copysign(0, -1)
				gy.data[n-3] = 0
			}
			alpha := r.NormFloat64()
			AddScaledTo(gd.data, gy.data, alpha, gx.data)
			for i, got := range gd.data {
				if !axpyOK(got, alpha, gx.data[i], gy.data[i]) {
					t.Fatalf("AddScaledTo n=%d i=%d: %v + %v*%v = %v", n, i, gy.data[i], alpha, gx.data[i], got)
				}
			}
			Sub(gd.data, gx.data, gy.data)
			for i, got := range gd.data {
				if want := gx.data[i] - gy.data[i]; !sameFloat(got, want) {
					t.Fatalf("Sub n=%d i=%d: %v - %v = %v, want %v", n, i, gx.data[i], gy.data[i], got, want)
				}
			}
			for _, g := range []guarded{gx, gy, gd} {
				g.check(t, fmt.Sprintf("AddScaledTo/Sub n=%d", n))
			}
			// dst aliasing either input.
			x0, y0 := append([]float64(nil), gx.data...), append([]float64(nil), gy.data...)
			AddScaledTo(gx.data, gy.data, alpha, gx.data)
			Sub(gy.data, x0, gy.data)
			for i := range x0 {
				if !axpyOK(gx.data[i], alpha, x0[i], y0[i]) {
					t.Fatalf("AddScaledTo(x, y, alpha, x) n=%d i=%d: %v", n, i, gx.data[i])
				}
				if want := x0[i] - y0[i]; !sameFloat(gy.data[i], want) {
					t.Fatalf("Sub(y, x, y) n=%d i=%d: %v, want %v", n, i, gy.data[i], want)
				}
			}
		}
		// Signed zeros and infinities are exactly those of x - y.
		z := math.Copysign(0, -1)
		for _, a := range specials {
			for _, b := range specials {
				d := []float64{0}
				Sub(d, []float64{a}, []float64{b})
				if want := a - b; !sameFloat(d[0], want) {
					t.Errorf("Sub(%v, %v) = %v, want %v", a, b, d[0], want)
				}
			}
		}
		_ = z
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

func TestMulVec(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 22))
		type dims struct{ rows, cols int }
		var cases []dims
		for rows := 0; rows <= 9; rows++ {
			for cols := 0; cols <= 9; cols++ {
				cases = append(cases, dims{rows, cols})
			}
		}
		cases = append(cases, dims{33, 65}, dims{100, 37}, dims{257, 130}, dims{5, 1031})
		for _, c := range cases {
			for _, trans := range []bool{false, true} {
				n, k := c.rows, c.cols // len(dst), len(x)
				if trans {
					n, k = k, n
				}
				ga := newGuarded(c.rows*c.cols, c.cols%4)
				a := ga.data
				fillNormal(r, a)
				gx, gd := newGuarded(k, n%4), newGuarded(n, k%4)
				fillNormal(r, gx.data)
				fillNormal(r, gd.data) // must be overwritten
				name := "MulVec"
				if trans {
					name = "MulTransVec"
					MulTransVec(gd.data, a, c.rows, c.cols, gx.data)
				} else {
					MulVec(gd.data, a, c.rows, c.cols, gx.data)
				}
				want, abs := refMulVec(a, c.rows, c.cols, gx.data, trans)
				for i, got := range gd.data {
					// Each entry is a dot product of length k (MulTransVec
					// accumulates it with one Axpy, fused or not, per row).
					if math.Abs(got-want[i]) > dotTol(k, abs[i]) || (k == 0 && got != 0) {
						t.Fatalf("%s %dx%d entry %d: %v, want %v", name, c.rows, c.cols, i, got, want[i])
					}
				}
				ga.check(t, name+" a")
				gx.check(t, name+" x")
				gd.check(t, name+" dst")
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
			MulVec(y, a, rows, cols, x)
			MulTransVec(yt, a, rows, cols, xt)
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
