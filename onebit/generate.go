package onebit

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
)

// GenOptions describes a random instance of the standard protocol.
type GenOptions struct {
	// M measurements, signal length N, K non-zeros: 1 <= K <= N, M >= 1.
	M, N, K int
	// Flip is the probability that a measurement's sign is flipped
	// (noise); in [0, 1].
	Flip float64
	// MaxEntries caps M*N, checked before anything is allocated; 0 means
	// DefaultMaxEntries. Raise it to generate larger instances.
	MaxEntries int
	// Seed makes the instance reproducible: equal options give equal
	// instances on every machine of one architecture, whatever its CPU
	// features. Across architectures an entry of Phi can differ by 1 ulp
	// (math/rand/v2's NormFloat64 calls math.Log in its rare tail branch,
	// assembly on amd64 and Go with fused multiply-adds on arm64), which
	// changes y only for a measurement within rounding of zero.
	Seed uint64
}

// DefaultMaxEntries is the default cap on M*N in Generate: 2^27 entries,
// a 1 GiB matrix (N = M = 11585). A request above it is more likely a
// mistake than an experiment, and would otherwise exhaust the memory of
// the process.
const DefaultMaxEntries = 1 << 27

// Instance is a generated problem with its ground truth.
type Instance struct {
	M, N, K int
	// Phi is the M x N row-major matrix with i.i.d. N(0, 1) entries.
	Phi []float64
	// X is the unit-norm K-sparse signal.
	X []float64
	// Support lists the indices of X's non-zeros, in the order drawn.
	Support []int
	// Y holds the measurements sign(Phi X) (sign(0) = +1), some flipped.
	Y []float64
	// Flipped counts the flipped measurements.
	Flipped int
}

// Generate draws an instance with math/rand/v2's PCG seeded by
// (opt.Seed, a fixed stream constant), in this order: Phi row by row, the
// support (a partial Fisher-Yates shuffle of 0..N-1, i.e. K indices without
// replacement), the K values N(0, 1), and one uniform per measurement for
// the flips when Flip > 0. X is normalized; a draw whose non-zeros are all
// zero (probability 0) is redrawn. y_i = sign((Phi X)_i) with sign(0) = +1,
// then negated where the uniform is below Flip.
//
// It returns an error wrapping ErrBadInput, before allocating anything, for
// out-of-range options, including M*N above opt.MaxEntries (default
// DefaultMaxEntries) or overflowing an int.
func Generate(opt GenOptions) (*Instance, error) {
	m, n, k := opt.M, opt.N, opt.K
	switch {
	case m < 1 || n < 1 || k < 1 || k > n:
		return nil, fmt.Errorf("%w: Generate M, N, K = %d, %d, %d, want M, N >= 1 and 1 <= K <= N", ErrBadInput, m, n, k)
	case opt.MaxEntries < 0:
		return nil, fmt.Errorf("%w: Generate MaxEntries = %d, want >= 0", ErrBadInput, opt.MaxEntries)
	case m > math.MaxInt/n:
		return nil, fmt.Errorf("%w: Generate M*N = %d*%d overflows", ErrBadInput, m, n)
	case m*n > cmp.Or(opt.MaxEntries, DefaultMaxEntries):
		return nil, fmt.Errorf("%w: Generate M*N = %d*%d = %d entries, above the cap of %d (GenOptions.MaxEntries)",
			ErrBadInput, m, n, m*n, cmp.Or(opt.MaxEntries, DefaultMaxEntries))
	case !(opt.Flip >= 0 && opt.Flip <= 1):
		return nil, fmt.Errorf("%w: Generate Flip = %g, want in [0, 1]", ErrBadInput, opt.Flip)
	}
	r := rand.New(rand.NewPCG(opt.Seed, 0x31626974)) // "1bit"
	in := &Instance{M: m, N: n, K: k, Phi: make([]float64, m*n), X: make([]float64, n), Y: make([]float64, m)}
	for i := range in.Phi {
		in.Phi[i] = r.NormFloat64()
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + r.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	in.Support = perm[:k:k]
	// X and y are computed with plain loops over the support in draw order,
	// each product rounded on its own (the float64 conversions forbid FMA
	// contraction), not with the vec kernels: their rounding depends on the
	// CPU, and the instance must not.
	for {
		ss := 0.0
		for _, j := range in.Support {
			v := r.NormFloat64()
			in.X[j] = v
			ss += float64(v * v)
		}
		if ss > 0 {
			nx := math.Sqrt(ss)
			for _, j := range in.Support {
				in.X[j] /= nx
			}
			break
		}
	}
	for i := range in.Y {
		row := in.Phi[i*n : (i+1)*n]
		a := 0.0
		for _, j := range in.Support {
			a += float64(row[j] * in.X[j])
		}
		in.Y[i] = sign(a)
	}
	if opt.Flip > 0 {
		for i := range in.Y {
			if r.Float64() < opt.Flip {
				in.Y[i] = -in.Y[i]
				in.Flipped++
			}
		}
	}
	return in, nil
}

// Problem returns the instance's Problem (sharing Phi; see NewProblem):
// an error wrapping ErrBadInput for a nil Instance or one NewProblem
// refuses (the zero Instance, say).
func (in *Instance) Problem() (*Problem, error) {
	if in == nil {
		return nil, fmt.Errorf("%w: nil *Instance", ErrBadInput)
	}
	return NewProblem(in.Phi, in.M, in.N, in.Y)
}
