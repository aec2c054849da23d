package onebit

import (
	"context"
	"math"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// splitting is Algorithm 2 as a neadmm.Problem: x1 = x, x2 = w, both in
// R^N, constraint (||w||^2 - 1, w - x) = 0 in R^(1+N), so
//
//	f1(x) = (0, -x),  f2(w) = (||w||^2 - 1, w),  J^T v = -v[1:].
//
// It is also the FISTAProblem of the x-update (eq. 4):
//
//	f(x) = lambda * (1/2) sum_i min(y_i (Phi x)_i, 0)^2 + rho/2 ||x - c||^2,
//	g(x) = sum_j weight_j |x_j|   (weight_j = 1 without weights),
//
// with c = w + y2/rho. Everything lives in buffers sized once per problem
// size, so solves do not allocate.
type splitting struct {
	p      *Problem
	lambda float64   // the raw lambda of the paper's objective
	weight []float64 // nil: plain L1; else per-coordinate weights in [0, +Inf]
	fista  neadmm.FISTA
	fopt   neadmm.FISTAOptions

	rho      float64
	c        []float64 // w + y2/rho (N)
	v        []float64 // x - y2/rho for the w-update (N)
	ax, r    []float64 // Phi x and the loss residual (M)
	inner    int       // FISTA steps taken in this solve
	products int       // products with Phi or Phi^T in this solve
	trans    int       // of which with Phi^T
}

func (s *splitting) resize(m, n int) {
	s.c = buf.Grow(s.c, n)
	s.v = buf.Grow(s.v, n)
	s.ax = buf.Grow(s.ax, m)
	s.r = buf.Grow(s.r, m)
}

func (s *splitting) Dims() (n1, n2, m int) { return s.p.n, s.p.n, 1 + s.p.n }

// UpdateX1 is eq. 4: FISTA on f + g, warm-started from x. The Lipschitz
// constant of grad f is lambda*||Phi||^2 + rho, with ||Phi||^2 from the
// problem's power iteration (the one-sided quadratic has Hessian
// lambda*Phi_A^T Phi_A on the active rows A, never more than
// lambda*Phi^T Phi).
func (s *splitting) UpdateX1(x, w, y []float64, rho float64) error {
	s.rho = rho
	vec.AddScaledTo(s.c, w, 1/rho, y[1:])
	s.fopt.L = s.lambda*s.p.norm2 + rho
	res, err := s.fista.Solve(context.TODO(), s, x, s.fopt)
	s.inner += res.Iterations
	return err
}

// UpdateX2 is eq. 5, solved exactly by neadmm.SphereProx.
func (s *splitting) UpdateX2(w, x, y []float64, rho float64) error {
	vec.AddScaledTo(s.v, x, -1/rho, y[1:])
	neadmm.SphereProx(w, s.v, 1-y[0]/rho)
	return nil
}

func (s *splitting) Constraint1(dst, x []float64) {
	dst[0] = 0
	for i, xi := range x {
		dst[1+i] = -xi
	}
}

func (s *splitting) Constraint2(dst, w []float64) {
	dst[0] = vec.Dot(w, w) - 1
	copy(dst[1:], w)
}

func (s *splitting) Constraint1JacT(dst, x, v []float64) {
	for i := range dst {
		dst[i] = -v[1+i]
	}
}

// withObjective is the splitting with neadmm.Objectiver, handed to the
// engine only when a callback wants the objective: the engine would
// otherwise also evaluate it after the last iteration, one product with Phi
// at the unnormalized x that run then repeats at the normalized estimate.
type withObjective struct{ *splitting }

// Objective is F1 + F2 = l(x) (F2 = 0), for the engine's callback. It
// costs one product with Phi.
func (s withObjective) Objective(x, w []float64) float64 {
	s.mulPhi(x)
	return s.l1(x) + s.lambda*consistencyLoss(s.ax, s.p.y)
}

// l1 returns g(x).
func (s *splitting) l1(x []float64) float64 {
	if s.weight == nil {
		return vec.Asum(x)
	}
	t := 0.0
	for j, v := range x {
		if v != 0 { // 0*Inf weights count as 0: x_j = 0 off the support
			t += s.weight[j] * math.Abs(v)
		}
	}
	return t
}

func (s *splitting) mulPhi(x []float64) {
	vec.MulVec(s.ax, s.p.phi, s.p.m, s.p.n, x)
	s.products++
}

// loss sets s.r to lambda times the residual of the one-sided quadratic,
// r_i = lambda*(Phi x)_i where y_i (Phi x)_i < 0 and 0 elsewhere (its
// gradient is Phi^T r), from s.ax = Phi x. It returns the loss and whether
// r has a non-zero entry.
func (s *splitting) loss() (float64, bool) {
	sum, any := 0.0, false
	for i, a := range s.ax {
		if s.p.y[i]*a < 0 {
			s.r[i] = s.lambda * a
			sum += a * a
			any = true
		} else {
			s.r[i] = 0
		}
	}
	return s.lambda * sum / 2, any
}

// Func returns f(x) (used by FISTA only with backtracking).
func (s *splitting) Func(x []float64) float64 {
	s.mulPhi(x)
	f, _ := s.loss()
	return f + s.coupling(nil, x)
}

// FuncGrad sets grad = Phi^T r + rho (x - c) and returns f(x). When every
// measurement is satisfied r = 0 and the product with Phi^T is skipped.
func (s *splitting) FuncGrad(grad, x []float64) float64 {
	s.mulPhi(x)
	f, active := s.loss()
	if active {
		vec.MulTransVec(grad, s.p.phi, s.p.m, s.p.n, s.r)
		s.products++
		s.trans++
	} else {
		clear(grad)
	}
	return f + s.coupling(grad, x)
}

// coupling returns rho/2 ||x - c||^2 and, if grad is not nil, adds
// rho (x - c) to it.
func (s *splitting) coupling(grad, x []float64) float64 {
	rho, q := s.rho, 0.0
	for j, xj := range x {
		d := xj - s.c[j]
		q += d * d
		if grad != nil {
			grad[j] += rho * d
		}
	}
	return rho * q / 2
}

// Prox is soft-thresholding, per coordinate with weights.
func (s *splitting) Prox(dst, x []float64, step float64) {
	if s.weight == nil {
		vec.SoftThreshold(dst, x, step)
		return
	}
	for j, v := range x {
		t := step * s.weight[j] // +Inf pins x_j to 0, 0 leaves it free
		switch {
		case v > t:
			dst[j] = v - t
		case v < -t:
			dst[j] = v + t
		default:
			dst[j] = 0
		}
	}
}
