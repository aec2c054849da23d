package onebit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/neadmm/neadmm/vec"
)

// ErrBadInput is wrapped by every error about invalid data or options:
// mismatched dimensions, measurements other than ±1, NaN or infinite
// entries, non-positive lambda or rho, and so on.
var ErrBadInput = errors.New("onebit: bad input")

// Problem is one instance of 1-bit compressive sensing: an M x N
// measurement matrix Phi (flat, row-major) and the signs y = sign(Phi x) of
// an unknown direction x. It also holds an estimate of ||Phi||_2^2 (see
// Norm2), computed once by NewProblem and reused by every solve.
//
// A Problem is read-only after construction and may be shared by any
// number of goroutines and Solvers.
type Problem struct {
	phi   []float64 // the caller's matrix, not copied
	y     []float64 // a copy of the signs
	m, n  int
	norm2 float64
}

// Power iteration for ||Phi||_2^2: stop when the Rayleigh quotient changes
// by less than powerTol relatively, after at most powerMaxIter steps.
// powerMargin inflates the estimate (a lower bound) into a safe Lipschitz
// constant; see Norm2.
const (
	powerTol     = 1e-6
	powerMaxIter = 300
	powerMargin  = 1.02
)

// NewProblem checks the data and returns the problem
//
//	min_x ||x||_1 + (lambda/2) sum_i min(y_i (Phi x)_i, 0)^2  s.t. ||x||_2 = 1
//
// for Phi, an m x n row-major matrix (len(phi) == m*n), and y, the m signs.
// It returns an error wrapping ErrBadInput if m or n is < 1, a length
// disagrees, some y[i] is not exactly -1 or +1, or phi holds a NaN or ±Inf.
//
// NewProblem keeps phi (it is not copied: the caller must not modify it
// while the Problem is in use) and copies y. It runs the power iteration of
// Norm2, which costs up to 2*powerMaxIter (600) products with Phi or Phi^T
// and typically a few dozen.
func NewProblem(phi []float64, m, n int, y []float64) (*Problem, error) {
	switch {
	case m < 1 || n < 1:
		return nil, fmt.Errorf("%w: dimensions %d x %d, want both >= 1", ErrBadInput, m, n)
	case m > math.MaxInt/n || len(phi) != m*n:
		return nil, fmt.Errorf("%w: len(phi) = %d, want m*n = %d*%d", ErrBadInput, len(phi), m, n)
	case len(y) != m:
		return nil, fmt.Errorf("%w: len(y) = %d, want m = %d", ErrBadInput, len(y), m)
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return nil, fmt.Errorf("%w: y[%d] = %g, want -1 or +1", ErrBadInput, i, v)
		}
	}
	for k, v := range phi {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: phi[%d] (row %d, column %d) = %g", ErrBadInput, k, k/n, k%n, v)
		}
	}
	p := &Problem{phi: phi, y: append([]float64(nil), y...), m: m, n: n}
	p.norm2 = powerNorm2(phi, m, n)
	if math.IsInf(p.norm2, 0) { // finite entries whose products overflow
		return nil, fmt.Errorf("%w: ||Phi||_2^2 overflows (entries too large)", ErrBadInput)
	}
	return p, nil
}

// powerNorm2 estimates the largest eigenvalue of Phi^T Phi by the power
// method from a fixed pseudo-random start, returning the last Rayleigh
// quotient times powerMargin.
func powerNorm2(phi []float64, m, n int) float64 {
	r := rand.New(rand.NewPCG(0x6f6e65626974, 0x706f776572)) // fixed: NewProblem is deterministic
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	vec.Scal(1/vec.Nrm2(v), v)
	u := make([]float64, m)
	est := 0.0
	for k := 0; k < powerMaxIter; k++ {
		vec.MulVec(u, phi, m, n, v)
		nu := vec.Nrm2(u)
		q := nu * nu // Rayleigh quotient v^T Phi^T Phi v with ||v|| = 1
		if nu == 0 || math.IsInf(q, 0) {
			return q
		}
		vec.MulTransVec(v, phi, m, n, u)
		nv := vec.Nrm2(v)
		if nv == 0 {
			return q
		}
		vec.Scal(1/nv, v)
		done := math.Abs(q-est) <= powerTol*q
		est = q
		if done {
			break
		}
	}
	return est * powerMargin
}

// Dims returns M, the number of measurements, and N, the signal length.
func (p *Problem) Dims() (m, n int) { return p.m, p.n }

// Phi returns the measurement matrix (the caller's slice, not a copy; do
// not modify it).
func (p *Problem) Phi() []float64 { return p.phi }

// Y returns the measured signs (the Problem's own copy; do not modify it).
func (p *Problem) Y() []float64 { return p.y }

// Norm2 returns the estimate of ||Phi||_2^2, the largest eigenvalue of
// Phi^T Phi, that the solvers use for their step sizes: the power method's
// last Rayleigh quotient (a lower bound, stopped at a relative change
// below 1e-6) times 1.02, so that the step 1/L derived from it stays
// within FISTA's convergence condition L >= the Lipschitz constant even
// when the power method has not quite converged; the tests check the
// estimate against a long power iteration. Norm2 is 0 for Phi = 0.
func (p *Problem) Norm2() float64 { return p.norm2 }

// Objective returns the objective of the paper's problem,
//
//	||x||_1 + (lambda/2) sum_i min(y_i (Phi x)_i, 0)^2,
//
// at x as given (it does not normalize x: the problem's constraint is
// ||x|| = 1, which the solvers' estimates satisfy). It allocates M floats.
// It panics if len(x) != N.
//
// Special cases:
//
//	Objective(x, lambda) = NaN if x holds a NaN or lambda is NaN
func (p *Problem) Objective(x []float64, lambda float64) float64 {
	p.checkLen("Objective", x)
	ax := make([]float64, p.m)
	vec.MulVec(ax, p.phi, p.m, p.n, x)
	return vec.Asum(x) + lambda*consistencyLoss(ax, p.y)
}

// BestCoordinate sets x to the signed coordinate vector ±e_j with the
// lowest objective at lambda (lowest j and then +e_j on ties) and returns
// that objective, 1 + (lambda/2) sum_i min(±y_i Phi_ij, 0)^2. At small
// lambda, such as the paper's 0.01, the minimizer of the paper's problem is
// often 1-sparse and this is the best objective known; it makes a cheap
// reference for what a solver reaches. It costs one pass over Phi and
// allocates 2N floats. It panics if len(x) != N.
func (p *Problem) BestCoordinate(x []float64, lambda float64) float64 {
	p.checkLen("BestCoordinate", x)
	pos, neg := make([]float64, p.n), make([]float64, p.n) // losses of +e_j, -e_j
	for i := 0; i < p.m; i++ {
		yi := p.y[i]
		for j, a := range p.phi[i*p.n : (i+1)*p.n] {
			if t := yi * a; t < 0 {
				pos[j] += t * t
			} else {
				neg[j] += t * t
			}
		}
	}
	best, bj, bs := math.Inf(1), 0, 1.0
	for j := range pos {
		if pos[j] < best {
			best, bj, bs = pos[j], j, 1
		}
		if neg[j] < best {
			best, bj, bs = neg[j], j, -1
		}
	}
	clear(x)
	x[bj] = bs
	return 1 + lambda*best/2
}

// consistencyLoss returns (1/2) sum_i min(y_i a_i, 0)^2.
func consistencyLoss(a, y []float64) float64 {
	s := 0.0
	for i, ai := range a {
		if t := y[i] * ai; t < 0 || t != t {
			s += t * t
		}
	}
	return s / 2
}

// Hamming returns the fraction of measurements whose sign disagrees with
// sign(Phi x), with sign(0) = +1 as in Generate: a number in [0, 1], 0 for
// an estimate consistent with every measurement. It allocates M floats and
// panics if len(x) != N. A NaN in Phi x counts as a disagreement.
func (p *Problem) Hamming(x []float64) float64 {
	p.checkLen("Hamming", x)
	ax := make([]float64, p.m)
	vec.MulVec(ax, p.phi, p.m, p.n, x)
	return float64(mismatches(ax, p.y)) / float64(p.m)
}

// mismatches counts i with sign(a_i) != y_i, sign(0) = +1.
func mismatches(a, y []float64) int {
	c := 0
	for i, ai := range a {
		if !(sign(ai) == y[i]) {
			c++
		}
	}
	return c
}

// sign returns +1 for v >= 0, -1 for v < 0 and NaN for NaN.
func sign(v float64) float64 {
	switch {
	case v >= 0:
		return 1
	case v < 0:
		return -1
	}
	return v
}

func (p *Problem) checkLen(fn string, x []float64) {
	if len(x) != p.n {
		panic(fmt.Sprintf("onebit.Problem.%s: len(x) = %d, want N = %d", fn, len(x), p.n))
	}
}
