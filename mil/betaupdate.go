package mil

import (
	"context"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/vec"
)

// The beta-update (eq. 8 with the bias) is the lasso
//
//	min over theta = (beta, beta0) of  1/2 ||A theta - v||^2 + mu ||beta||_1,
//
// A = [X 1], v = t + y2/rho and mu = lambda/rho (eq. 8 divided by rho, so
// the smooth part's curvature, and with it FISTA's step, does not change
// when rho does). Two neadmm.FISTAProblem forms solve it:
//
//   - lassoGram works on G = A^T A, computed once per fit: a gradient
//     G theta - A^T v costs one (D+1)^2 matrix-vector product, and A^T v is
//     computed once per outer iteration (setRHS);
//   - lassoDirect evaluates A theta and A^T r with the dataset's dense or
//     sparse products, O(nnz + I) per gradient.
//
// The bias beta0 (the last coordinate) is not penalized.
type lassoProblem interface {
	// setRHS prepares the solve for v = t + y2/rho (len NumInstances;
	// retained until the next call) and penalty mu.
	setRHS(v []float64, mu float64)
	Func(theta []float64) float64
	FuncGrad(grad, theta []float64) float64
	Prox(dst, x []float64, step float64)
}

// lassoProx is the proximal operator of step*mu*||beta||_1 on theta =
// (beta, beta0): soft-thresholding of beta, beta0 passed through. A
// threshold that overflows (a lambda near the largest float64 over a
// small rho) zeroes beta, its limit.
func lassoProx(dst, x []float64, step, mu float64) {
	d := len(x) - 1
	if th := step * mu; th <= math.MaxFloat64 {
		vec.SoftThreshold(dst[:d], x[:d], th)
	} else {
		clear(dst[:d])
	}
	dst[d] = x[d]
}

// lassoGram is the lasso on the Gram matrix. Func omits the constant
// 1/2 ||v||^2 (FISTA runs without backtracking, so only gradients steer it).
type lassoGram struct {
	g     []float64 // (D+1)^2, row-major, symmetric
	d1    int       // D+1
	x     *xview
	b, gx []float64 // A^T v; scratch for G theta
	mu    float64
}

// newLassoGram returns the lasso on x with its Gram matrix g (shared,
// read-only).
func newLassoGram(x *xview, g []float64) *lassoGram {
	d1 := x.d.NumFeatures() + 1
	return &lassoGram{g: g, d1: d1, x: x, b: make([]float64, d1), gx: make([]float64, d1)}
}

func (l *lassoGram) setRHS(v []float64, mu float64) {
	l.x.mulTransVec(l.b, v)
	l.mu = mu
}

func (l *lassoGram) Func(theta []float64) float64 {
	vec.MulVec(l.gx, l.g, l.d1, l.d1, theta)
	return vec.Dot(theta, l.gx)/2 - vec.Dot(theta, l.b)
}

func (l *lassoGram) FuncGrad(grad, theta []float64) float64 {
	vec.MulVec(l.gx, l.g, l.d1, l.d1, theta)
	vec.Sub(grad, l.gx, l.b)
	return vec.Dot(theta, l.gx)/2 - vec.Dot(theta, l.b)
}

func (l *lassoGram) Prox(dst, x []float64, step float64) { lassoProx(dst, x, step, l.mu) }

// lassoDirect is the lasso through the dataset's products.
type lassoDirect struct {
	x    *xview
	v, r []float64 // r: scratch of NumInstances
	mu   float64
}

func newLassoDirect(x *xview) *lassoDirect {
	return &lassoDirect{x: x, r: make([]float64, x.d.NumInstances())}
}

func (l *lassoDirect) setRHS(v []float64, mu float64) { l.v, l.mu = v, mu }

func (l *lassoDirect) Func(theta []float64) float64 {
	dd := len(theta) - 1
	l.x.mulVec(l.r, theta[:dd], theta[dd])
	vec.Sub(l.r, l.r, l.v)
	return vec.Dot(l.r, l.r) / 2
}

func (l *lassoDirect) FuncGrad(grad, theta []float64) float64 {
	f := l.Func(theta) // leaves A theta - v in r
	l.x.mulTransVec(grad, l.r)
	return f
}

func (l *lassoDirect) Prox(dst, x []float64, step float64) { lassoProx(dst, x, step, l.mu) }

// powerIters bounds the power iteration of lipschitz.
const powerIters = 500

// lipschitz returns an upper estimate of the largest eigenvalue of the
// symmetric positive semidefinite operator mul (dst = M x, dimension n),
// FISTA's step constant 1/L for the lasso. The power iteration from a
// fixed pseudo-random start gives a Rayleigh quotient m <= lambda_max and a
// residual res = ||M u - m u|| (u a unit vector); an eigenvalue lies
// within res of m, and once the iteration has settled on the top
// eigenvector that eigenvalue is lambda_max, so m + res bounds it. The
// iteration stops when res <= 1e-3*m; the result adds 1% on top, so a
// slightly unsettled iteration still errs on the safe (smaller step) side.
// It returns 1 for M = 0 (any step is then exact), and ctx's error
// (checked every iteration) if it is done.
func lipschitz(ctx context.Context, n int, mul func(dst, x []float64)) (float64, error) {
	u := make([]float64, n)
	mu := make([]float64, n)
	// A deterministic start with no special structure (not orthogonal to
	// any eigenvector of the Gram matrices seen in practice).
	seed := uint64(0x9E3779B97F4A7C15)
	for i := range u {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		u[i] = 0.5 + float64(seed>>11)/(1<<53)
	}
	vec.Scal(1/vec.Nrm2(u), u)
	m, res := 0.0, math.Inf(1)
	for range powerIters {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("mil: Fit: power iteration: %w", err)
		}
		mul(mu, u)
		m = vec.Dot(u, mu)
		// res = ||M u - m u||, then u = M u / ||M u||.
		nmu := vec.Nrm2(mu)
		if nmu == 0 {
			return 1, nil
		}
		vec.Axpy(-m, u, mu)
		res = vec.Nrm2(mu)
		vec.Axpy(m, u, mu)
		vec.Scal(1/nmu, mu)
		u, mu = mu, u
		if res <= 1e-3*m {
			break
		}
	}
	return 1.01 * (m + res), nil
}
