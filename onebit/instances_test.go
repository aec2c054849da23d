package onebit

// The instances the internal tests run on, and the reference computations
// several of them share.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

// nan returns a NaN.
func nan() float64 { return math.NaN() }

// dotSlices returns <a, b>, summed in index order.
func dotSlices(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// problemFor generates the instance of o and returns it with its Problem.
func problemFor(t *testing.T, o GenOptions) (*Instance, *Problem) {
	t.Helper()
	in, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := in.Problem()
	if err != nil {
		t.Fatal(err)
	}
	return in, p
}

// mismatchesOf returns the number of p's signs x violates.
func mismatchesOf(p *Problem, x []float64) int {
	ax := make([]float64, p.m)
	vec.MulVec(ax, p.phi, p.m, p.n, x)
	return mismatches(ax, p.y)
}

// mismatchRange bounds the number of p's signs x violates as any
// summation order may count them: lo counts the rows violated by more
// than the rounding bound n*eps*sum_j |phi_ij x_j| of (Phi x)_i, hi adds
// the rows within it, whose sign the order of the sums decides (on a
// Rademacher Phi, (Phi x)_i is often exactly 0 in exact arithmetic).
func mismatchRange(p *Problem, x []float64) (lo, hi int) {
	for i := range p.m {
		row := p.phi[i*p.n : (i+1)*p.n]
		a, mag := 0.0, 0.0
		for j, v := range x {
			a += row[j] * v
			mag += math.Abs(row[j] * v)
		}
		switch bound := float64(p.n) * 0x1p-52 * mag; {
		case math.Abs(a) <= bound:
			hi++
		case sign(a) != p.y[i]:
			lo++
			hi++
		}
	}
	return lo, hi
}

// rademacherFor returns Generate's instance of (m, n, k) with Phi replaced
// by its signs over sqrt(m) (a Rademacher matrix, independent of the
// signal), the signal's magnitudes drawn uniformly from [0.2, 1] before
// normalization (the bench's Rademacher family), and y by the signs of
// the new Phi x, a fraction flip of them flipped at random.
func rademacherFor(t *testing.T, m, n, k int, flip float64, seed uint64) (*Instance, *Problem) {
	t.Helper()
	in, err := Generate(GenOptions{M: m, N: n, K: k, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range in.Phi {
		in.Phi[i] = math.Copysign(1/math.Sqrt(float64(m)), v)
	}
	r := rand.New(rand.NewPCG(seed, 0x666c6970))
	for j, v := range in.X {
		if v != 0 {
			in.X[j] = math.Copysign(0.2+0.8*r.Float64(), v)
		}
	}
	normalize(in.X)
	vec.MulVec(in.Y, in.Phi, m, n, in.X)
	for i, v := range in.Y {
		in.Y[i] = sign(v)
		if r.Float64() < flip {
			in.Y[i] = -in.Y[i]
		}
	}
	p, err := NewProblem(in.Phi, m, n, in.Y)
	if err != nil {
		t.Fatal(err)
	}
	return in, p
}

// randomProblem returns an m x n Gaussian Phi with random signs (not those
// of any direction: most x then violate about half of them, so the loss
// curves F in every direction).
func randomProblem(t *testing.T, m, n int, seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, 99))
	phi, y := gaussianPhi(rng, m, n), make([]float64, m)
	for i := range y {
		y[i] = float64(2*rng.IntN(2) - 1)
	}
	p, err := NewProblem(phi, m, n, y)
	require.NoError(t, err)
	return p
}

// gaussianPhi returns an m x n matrix of standard normal entries drawn
// from rng in row-major order.
func gaussianPhi(rng *rand.Rand, m, n int) []float64 {
	phi := make([]float64, m*n)
	for i := range phi {
		phi[i] = rng.NormFloat64()
	}
	return phi
}

// twoColumnSigns returns an m x n Gaussian Phi drawn from
// rand.NewPCG(seed, 99) with the signs of column j plus c times column k:
// separable on {j, k}.
func twoColumnSigns(t *testing.T, m, n int, seed uint64, j, k int, c float64) *Problem {
	phi, y := gaussianPhi(rand.New(rand.NewPCG(seed, 99)), m, n), make([]float64, m)
	for i := range y {
		y[i] = sign(phi[i*n+j] + c*phi[i*n+k])
	}
	p, err := NewProblem(phi, m, n, y)
	require.NoError(t, err)
	return p
}

// randomUnit returns a direction drawn uniformly on the sphere.
func randomUnit(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	normalize(x)
	return x
}

func nonzerosOf(x []float64) int {
	nz := 0
	for _, v := range x {
		if v != 0 {
			nz++
		}
	}
	return nz
}
