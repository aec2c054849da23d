package onebit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/vec"
)

// ErrBadInput is wrapped by every error about invalid data or options:
// mismatched dimensions, measurements other than ±1, NaN or infinite
// entries, non-positive lambda or rho, and so on.
var ErrBadInput = errors.New("onebit: bad input")

// Problem is one instance of 1-bit compressive sensing: an M x N
// measurement matrix Phi (flat, row-major) and the signs y = sign(Phi x) of
// an unknown direction x.
//
// A Problem is read-only after construction and may be shared by any
// number of goroutines and Solvers. What it derives from Phi alone (the
// checks, the scale, the estimate of ||Phi||_2^2 that the full-matrix
// solves need, computed once on first use) is shared with the Problems
// WithSigns makes from it, which may be used concurrently with it.
type Problem struct {
	*phiData           // shared with the WithSigns siblings; nil in a zero Problem
	y        []float64 // a copy of the signs
}

// phiData is what a Problem derives from Phi alone, shared by a Problem
// and its WithSigns siblings: read-only after NewProblem, but for the
// norm estimate, published once.
type phiData struct {
	phi  []float64 // the caller's matrix, not copied
	m, n int
	frob float64 // ||Phi||_F^2, summed plainly (see NewProblem)
	// shift, when not 0, is the power of two by which Recover scales Phi
	// (its own copy, 2^-shift Phi) so that the root mean square of the
	// entries comes near 1, for a Phi whose mean square is outside
	// [2^-128, 2^128] (see rmsShift); sfrob is ||2^-shift Phi||_F^2.
	shift int
	sfrob float64

	norm normCache
}

// normCache holds the estimate of ||Phi||_2^2 (see Problem.Norm2), made
// on first use by one of the goroutines that need it while the others
// wait for it (or for their context), then read without a lock.
type normCache struct {
	done atomic.Bool   // v is valid; stored after v
	v    float64       // the estimate
	lock chan struct{} // capacity 1: held by the goroutine computing v
}

// newNormCache returns an empty cache.
func newNormCache() normCache { return normCache{lock: make(chan struct{}, 1)} }

// valid returns an error wrapping ErrBadInput for a nil or zero p; fn
// names the caller.
func (p *Problem) valid(fn string) error {
	if p == nil || p.phiData == nil {
		return fmt.Errorf("%w: %s: nil or zero *Problem (make it with NewProblem)", ErrBadInput, fn)
	}
	return nil
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
// disagrees, some y[i] is not exactly -1 or +1, phi holds a NaN or ±Inf,
// or its entries are so large that ||Phi||_F^2 overflows.
//
// NewProblem keeps phi (it is not copied: the caller must not modify it
// while the Problem is in use) and copies y. Its cost is one pass over phi
// (the finiteness check; two more when the root mean square of the entries
// is below 2^-64 or above 2^64, see Solver.Recover); the power iteration
// for ||Phi||_2^2 (see Norm2) runs later, and only if a solve on the full
// matrix needs it.
func NewProblem(phi []float64, m, n int, y []float64) (*Problem, error) {
	switch {
	case m < 1 || n < 1:
		return nil, fmt.Errorf("%w: dimensions %d x %d, want both >= 1", ErrBadInput, m, n)
	case m > math.MaxInt/n || len(phi) != m*n:
		return nil, fmt.Errorf("%w: len(phi) = %d, want m*n = %d*%d", ErrBadInput, len(phi), m, n)
	}
	if err := checkSigns(y, m); err != nil {
		return nil, err
	}
	// The sum of squares is finite exactly when every entry is finite and
	// ||Phi||_F^2 (a bound on ||Phi||_2^2) does not overflow; only then
	// are the products the solvers form safe. One vectorized pass decides.
	frob := sumSquares(phi, m, n)
	if !(frob <= math.MaxFloat64) {
		for k, v := range phi {
			if !num.Finite(v) {
				return nil, fmt.Errorf("%w: phi[%d] (row %d, column %d) = %g", ErrBadInput, k, k/n, k%n, v)
			}
		}
		return nil, fmt.Errorf("%w: ||Phi||_F^2 overflows (entries too large)", ErrBadInput)
	}
	// One allocation for the Problem and what it derives from Phi.
	pd := &struct {
		p Problem
		d phiData
	}{d: phiData{phi: phi, m: m, n: n, frob: frob, norm: newNormCache()}}
	pd.p = Problem{phiData: &pd.d, y: slices.Clone(y)}
	if ms := frob / (float64(m) * float64(n)); !(ms >= rmsLimit*rmsLimit && ms <= 1/(rmsLimit*rmsLimit)) {
		pd.d.shift, pd.d.sfrob = rmsShift(phi, m, n)
	}
	return &pd.p, nil
}

// WithSigns returns a Problem with p's Phi and the signs y: the Problem
// NewProblem(p.Phi(), M, N, y) would return, without its pass over Phi.
// It shares with p everything derived from Phi alone (the checks, the
// scale, and the estimate of ||Phi||_2^2 once computed, see Norm2), so
// that Solve, Recover and BIHT on it return what they return on a fresh
// NewProblem, bit for bit, and copies y. It costs O(M) and two
// allocations (the Problem and the copy of y).
//
// p and the Problems made from it (and from them) may be used by any
// number of goroutines at once: a decoder calls NewProblem once per Phi
// and WithSigns per sign vector, each goroutine with its own Solver.
//
// It returns an error wrapping ErrBadInput, and leaves p as it was, for a
// nil or zero p, len(y) != M or some y[i] other than -1 or +1.
func (p *Problem) WithSigns(y []float64) (*Problem, error) {
	if err := p.valid("WithSigns"); err != nil {
		return nil, err
	}
	if err := checkSigns(y, p.m); err != nil {
		return nil, err
	}
	return &Problem{phiData: p.phiData, y: slices.Clone(y)}, nil
}

// checkSigns returns an error wrapping ErrBadInput unless len(y) == m and
// every y[i] is -1 or +1.
func checkSigns(y []float64, m int) error {
	if len(y) != m {
		return fmt.Errorf("%w: len(y) = %d, want m = %d", ErrBadInput, len(y), m)
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return fmt.Errorf("%w: y[%d] = %g, want -1 or +1", ErrBadInput, i, v)
		}
	}
	return nil
}

// sumSquares returns ||Phi||_F^2 as a plain sum (one vectorized pass):
// finite exactly when every entry is and the sum does not overflow, and
// accurate unless it is tiny, when squares underflow.
func sumSquares(phi []float64, m, n int) float64 {
	frob := 0.0
	for i := 0; i < m; i++ {
		row := phi[i*n : (i+1)*n]
		frob += vec.Dot(row, row)
	}
	return frob
}

// rmsLimit bounds the root mean square of Phi's entries that Recover uses
// as it is: within [2^-64, 2^64], ||Phi||_F^2, the raw lambdas (lambda
// times N/||Phi||_F^2) and every product and square of its steps are far
// from overflow and underflow, and its results do not depend on the scale
// (the arithmetic commutes with the exact scaling by a power of two).
const rmsLimit = 0x1p-64

// rmsShift returns, for a Phi whose sum of squares over- or underflows
// the range of rmsLimit, the power of two 2^shift nearest (in log scale)
// the root mean square of its entries, computed with the entries scaled
// exactly by a power of two so that no square overflows or underflows
// (beside the largest), and ||2^-shift Phi||_F^2 summed as sumSquares
// sums it on the scaled copy; shift is 0 for Phi = 0. Phi scaled by 2^k
// (entries normal both ways) gives shift + k and the same sum: Recover
// then runs on the same copy. Two passes over Phi, for these rare scales
// only.
func rmsShift(phi []float64, m, n int) (shift int, sfrob float64) {
	amax := 0.0
	for _, v := range phi {
		amax = max(amax, math.Abs(v))
	}
	if amax == 0 {
		return 0, 0
	}
	_, e := math.Frexp(amax) // amax in [2^(e-1), 2^e)
	sq := 0.0
	for _, v := range phi {
		t := math.Ldexp(v, -e)
		sq += t * t
	}
	// rms = 2^e sqrt(sq/(m n)), sq in [1/4, m n].
	shift = e + int(math.Round(math.Log2(sq/(float64(m)*float64(n)))/2))
	row := make([]float64, n)
	for i := 0; i < m; i++ {
		for j, v := range phi[i*n : (i+1)*n] {
			row[j] = math.Ldexp(v, -shift)
		}
		sfrob += vec.Dot(row, row)
	}
	return shift, sfrob
}

// lambdaScale returns N/||Phi||_F^2 for the Phi that Recover uses (p's,
// or its copy scaled by a power of two, see rescaled): a mean-loss lambda
// times it is the raw lambda of Options (see RecoverOptions). It is 1 for
// Phi = 0 only.
func (p *Problem) lambdaScale() float64 {
	if frob := p.recoverFrob(); frob > 0 {
		return float64(p.n) / frob
	}
	return 1
}

// recoverFrob returns ||Phi||_F^2 for the Phi that Recover uses (p's, or
// its copy scaled by a power of two, see rescaled).
func (p *Problem) recoverFrob() float64 {
	if p.shift != 0 {
		return p.sfrob
	}
	return p.frob
}

// rescaled returns Phi as Recover uses it: p itself, or for a p with
// shift != 0 a Problem with p's signs on the Solver's copy of Phi scaled
// by 2^-shift, made on the first call with p's Phi (p or a WithSigns
// sibling) and kept, with its norm estimate, for the next.
func (s *Solver) rescaled(p *Problem) *Problem {
	if p.shift == 0 {
		return p
	}
	if s.sc == nil {
		s.sc = &Problem{phiData: &phiData{norm: newNormCache()}}
	}
	sc := s.sc
	sc.y = p.y
	if s.scSrc == p.phiData {
		return sc
	}
	sc.phi = buf.Grow(sc.phi, len(p.phi))
	for k, v := range p.phi {
		sc.phi[k] = math.Ldexp(v, -p.shift)
	}
	sc.m, sc.n, sc.frob = p.m, p.n, p.sfrob
	sc.norm.done.Store(false)
	s.scSrc = p.phiData
	return sc
}

// norm2Ctx returns the estimate of Norm2, computing it on first use; ctx
// is checked while waiting for another goroutine's computation and before
// each product of the power iteration, and a cancelled computation is not
// cached.
func (d *phiData) norm2Ctx(ctx context.Context) (float64, error) {
	c := &d.norm
	if c.done.Load() {
		return c.v, nil
	}
	select {
	case c.lock <- struct{}{}:
	case <-ctx.Done():
		return 0, fmt.Errorf("onebit: waiting for the estimate of ||Phi||^2: %w", ctx.Err())
	}
	defer func() { <-c.lock }()
	if c.done.Load() { // computed while this goroutine waited
		return c.v, nil
	}
	v, err := powerNorm2(ctx, d.phi, d.m, d.n)
	if err != nil {
		return 0, err
	}
	c.v = v
	c.done.Store(true)
	return v, nil
}

// powerNorm2 estimates the largest eigenvalue of Phi^T Phi by the power
// method from a fixed pseudo-random start, returning the last Rayleigh
// quotient times powerMargin.
func powerNorm2(ctx context.Context, phi []float64, m, n int) (float64, error) {
	r := rand.New(rand.NewPCG(0x6f6e65626974, 0x706f776572)) // fixed: the estimate is deterministic
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	vec.Scal(1/vec.Nrm2(v), v)
	u := make([]float64, m)
	est := 0.0
	for k := 0; k < powerMaxIter; k++ {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("onebit: power iteration for ||Phi||^2 cancelled: %w", err)
		}
		vec.MulVec(u, phi, m, n, v)
		nu := vec.Nrm2(u)
		q := nu * nu // Rayleigh quotient v^T Phi^T Phi v with ||v|| = 1
		if nu == 0 {
			return 0, nil
		}
		// Checked again between the two products: one step is two passes
		// over Phi (about 10 ms of CPU at N = M = 4000).
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("onebit: power iteration for ||Phi||^2 cancelled: %w", err)
		}
		vec.MulTransVec(v, phi, m, n, u)
		nv := vec.Nrm2(v)
		if nv == 0 {
			return q, nil
		}
		vec.Scal(1/nv, v)
		done := math.Abs(q-est) <= powerTol*q
		est = q
		if done {
			break
		}
	}
	return est * powerMargin, nil
}

// Dims returns M, the number of measurements, and N, the signal length
// (0, 0 for a nil or zero Problem).
func (p *Problem) Dims() (m, n int) {
	if p == nil || p.phiData == nil {
		return 0, 0
	}
	return p.m, p.n
}

// Phi returns the measurement matrix (the caller's slice, not a copy; do
// not modify it), nil for a nil or zero Problem.
func (p *Problem) Phi() []float64 {
	if p == nil || p.phiData == nil {
		return nil
	}
	return p.phi
}

// Y returns the measured signs (the Problem's own copy; do not modify
// it), nil for a nil or zero Problem.
func (p *Problem) Y() []float64 {
	if p == nil {
		return nil
	}
	return p.y
}

// Norm2 returns the estimate of ||Phi||_2^2, the largest eigenvalue of
// Phi^T Phi, that the full-matrix solves use for their step sizes (the
// working-set solves estimate the norm of their few columns instead). It
// is computed on the first call (by Norm2 or a solve that needs it) and
// cached; that costs up to 600 products with Phi or Phi^T, typically a
// few dozen (about 570 at N = M = 4000, where the top eigenvalues of
// Phi^T Phi crowd together). The estimate is the power method's
// last Rayleigh quotient (a lower bound, stopped at a relative change
// below 1e-6) times 1.02, so that the step 1/L derived from it stays
// within FISTA's convergence condition L >= the Lipschitz constant even
// when the power method has not quite converged; the tests check the
// estimate against a long power iteration. Norm2 is 0 for Phi = 0 and
// for a nil or zero Problem. A Problem and its WithSigns siblings share
// the estimate: it is computed once for all of them, by one goroutine
// while the others that need it wait.
func (p *Problem) Norm2() float64 {
	if p == nil || p.phiData == nil {
		return 0
	}
	v, _ := p.norm2Ctx(context.Background()) // cannot fail without cancellation
	return v
}

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
	return p.bestCoordinate(x, lambda, make([]float64, p.n), make([]float64, p.n))
}

// bestCoordinate is BestCoordinate with the caller's scratch (N each).
func (p *Problem) bestCoordinate(x []float64, lambda float64, pos, neg []float64) float64 {
	clear(pos) // losses of +e_j
	clear(neg) // and of -e_j
	for i := 0; i < p.m; i++ {
		yi := p.y[i]
		for j, a := range p.phi[i*p.n : (i+1)*p.n] {
			// Branch-free (the sign is random): adding 0*t^2 is exact,
			// and t^2 is finite (NewProblem bounds ||Phi||_F^2).
			t := yi * a
			t2 := t * t
			b := float64(math.Float64bits(t) >> 63) // 1 for t < 0 (and -0, whose square is 0)
			pos[j] += b * t2
			neg[j] += (1 - b) * t2
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

// column copies column j of Phi into col (len M): a strided read, for
// the few columns the search and the sign regression touch outside a
// working set.
func (p *Problem) column(col []float64, j int) {
	for i := range col {
		col[i] = p.phi[i*p.n+j]
	}
}

func (p *Problem) checkLen(fn string, x []float64) {
	if p == nil || p.phiData == nil {
		panic(fmt.Sprintf("onebit.Problem.%s: nil or zero Problem (make it with NewProblem)", fn))
	}
	if len(x) != p.n {
		panic(fmt.Sprintf("onebit.Problem.%s: len(x) = %d, want N = %d", fn, len(x), p.n))
	}
}

// signMatrix reports whether Phi looks like a sign matrix (such as
// +-1/sqrt(M)): whether the non-zero entries among its first
// signMatrixPrefix all have one magnitude. BIHT's iterates then lie on a
// lattice, where (Phi x)_i is often 0 in exact arithmetic and the
// summation order decides its sign: Recover's polish keeps the dense
// product's signs there (see Solver.polish). Only a prefix is read (a
// full pass cost 3-12% of Recover's CPU time at N = 1000); a wrong answer
// costs time or rounding, never correctness.
func (p *Problem) signMatrix() bool {
	return oneMagnitude(p.phi[:min(len(p.phi), signMatrixPrefix)])
}

// signMatrixPrefix is how many entries of Phi signMatrix reads (a few
// rows at N = 1000; about 10 microseconds).
const signMatrixPrefix = 4096

// oneMagnitude reports whether the non-zero entries of a all have the
// same magnitude; it stops at the first that differs.
func oneMagnitude(a []float64) bool {
	c := 0.0
	for _, v := range a {
		v = math.Abs(v)
		if v == 0 || v == c {
			continue
		}
		if c != 0 {
			return false
		}
		c = v
	}
	return true
}
