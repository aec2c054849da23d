package onebit

import (
	"context"
	"math"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// splitting is Algorithm 2 as a neadmm.Problem: x1 = x, x2 = w, both in
// R^k, constraint (||w||^2 - 1, w - x) = 0 in R^(1+k), so
//
//	f1(x) = (0, -x),  f2(w) = (||w||^2 - 1, w),  J^T v = -v[1:].
//
// k is N, or the size of the working set when the solve is restricted to
// some columns of Phi (the other coordinates of x and w are then 0, and
// the operator holds a compact copy of the columns).
//
// It is also the FISTAProblem of the x-update (eq. 4):
//
//	f(x) = lambda * (1/2) sum_i min(y_i (A x)_i, 0)^2 + rho/2 ||x - c||^2,
//	g(x) = sum_j weight_j |x_j|   (weight_j = 1 without weights),
//
// with A the operator and c = w + y2/rho. Everything lives in buffers
// sized once per problem size, so solves do not allocate.
type splitting struct {
	p      *Problem
	op     *operator
	lambda float64   // the raw lambda of the paper's objective
	weight []float64 // nil: plain L1; else per-coordinate weights in [0, +Inf]
	norm2  float64   // ||A||_2^2 estimate for the step size
	fista  neadmm.FISTA
	fopt   neadmm.FISTAOptions

	rho      float64
	c        []float64 // w + y2/rho (k)
	v        []float64 // x - y2/rho for the w-update (k)
	ax, r    []float64 // A x and the loss residual (M)
	lossSum  float64   // sum of squared violations, accumulated by residual
	nviol    int       // violated rows, counted by residual
	cap      float64   // if > 0, violations deeper than cap count cap^2 and pull no more
	viol     []int     // the violated rows, listed by loss (M)
	residual func(i int, axi float64) float64
	inner    int // FISTA steps taken in this solve
	// innerTol is the FISTA tolerance asked; with innerRel > 0 each
	// x-update uses max(innerTol, innerRel*lastMove), lastMove being how
	// far the previous x-update moved x.
	innerTol, innerRel, lastMove float64
	xPrev                        []float64 // k: x before the x-update

	ctx context.Context // the engine's, from Start
	fw  fistaWork       // fistaCompact's
}

func (s *splitting) resize(m, n int) {
	s.c = buf.Grow(s.c, n)
	s.v = buf.Grow(s.v, n)
	s.xPrev = buf.Grow(s.xPrev, n)
	s.ax = buf.Grow(s.ax, m)
	s.r = buf.Grow(s.r, m)
	s.viol = growInts(s.viol, m)
	s.fw.resize(m, n)
	if s.residual == nil {
		s.residual = s.residualAt
	}
}

func (s *splitting) Dims() (n1, n2, m int) { return s.op.k, s.op.k, 1 + s.op.k }

// UpdateX1 is eq. 4: FISTA on f + g, warm-started from x. The Lipschitz
// constant of grad f is lambda*||A||^2 + rho (the one-sided quadratic has
// Hessian lambda*A_V^T A_V on the violated rows V, never more than
// lambda*A^T A): neadmm.FISTA's fixed step on the full Phi, the upper
// bound of fistaCompact's adaptive one on a working set.
func (s *splitting) UpdateX1(x, w, y []float64, rho float64) error {
	s.rho = rho
	k := len(x)
	vec.AddScaledTo(s.c[:k], w, 1/rho, y[1:])
	s.fopt.L = s.lambda*s.norm2 + rho
	s.fopt.Tol = s.innerTol
	if s.innerRel > 0 {
		if s.lastMove > 0 {
			s.fopt.Tol = max(s.innerTol, s.innerRel*s.lastMove)
		}
		copy(s.xPrev[:k], x)
	}
	var steps int
	var err error
	if s.op.full {
		var res neadmm.FISTAResult
		res, err = s.fista.Solve(s.ctx, s, x, s.fopt)
		steps = res.Iterations
	} else {
		steps, err = s.fistaCompact(x, s.fopt.Tol, s.fopt.MaxIter)
	}
	s.inner += steps
	if s.innerRel > 0 {
		vec.AddScaledTo(s.xPrev[:k], x, -1, s.xPrev[:k])
		s.lastMove = vec.Nrm2(s.xPrev[:k])
	}
	return err
}

// Start keeps the solve's context for the FISTA solves of the x-updates
// (neadmm.Starter): they check it at every step.
func (s *splitting) Start(ctx context.Context, x1, x2, y []float64) error {
	s.ctx = ctx
	return nil
}

// UpdateX2 is eq. 5, solved exactly by neadmm.SphereProx.
func (s *splitting) UpdateX2(w, x, y []float64, rho float64) error {
	v := s.v[:len(x)]
	vec.AddScaledTo(v, x, -1/rho, y[1:])
	neadmm.SphereProx(w, v, 1-y[0]/rho)
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

// Objective is F1 + F2 = l(x) (F2 = 0), for the engine's callback
// (neadmm.Options.IterationObjective). It costs one product with A.
func (s *splitting) Objective(x, w []float64) float64 {
	s.op.mul(s.ax, x)
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

// residualAt is the w_i of the sweep: lambda*a where y_i a < 0, else 0
// (and 0 beyond the cap); it also accumulates the squared violations,
// capped, into lossSum.
func (s *splitting) residualAt(i int, a float64) float64 {
	if s.p.y[i]*a < 0 {
		sq, in := cappedSq(a, s.cap)
		s.lossSum += sq
		if !in {
			return 0
		}
		s.nviol++
		return s.lambda * a
	}
	return 0
}

// cappedSq is a violated row's term of the loss: a^2, or cap^2 beyond the
// cap (cap > 0), where the row's residual is 0 (in reports a within it).
// Small enough to inline into the loops over the rows.
func cappedSq(a, cp float64) (sq float64, in bool) {
	if cp > 0 && math.Abs(a) > cp {
		return cp * cp, false
	}
	return a * a, true
}

// loss sets s.r to lambda times the residual of the one-sided quadratic
// from s.ax = A x, lists the violated rows in s.viol[:s.nviol], and
// returns the loss and whether r has a non-zero entry.
// It runs at every FISTA step over all M rows, so it is residualAt
// written out: a clear and one predictable branch per row.
func (s *splitting) loss() (float64, bool) {
	r, y, lam, cp, viol := s.r, s.p.y, s.lambda, s.cap, s.viol
	clear(r)
	sum, nv := 0.0, 0
	for i, a := range s.ax {
		if y[i]*a < 0 {
			sq, in := cappedSq(a, cp)
			sum += sq
			if !in {
				continue
			}
			r[i] = lam * a
			viol[nv] = i
			nv++
		}
	}
	s.lossSum, s.nviol = sum, nv
	return lam * sum / 2, nv > 0
}

// mulTResidual sets grad = A^T s.r after loss, over the violated rows only
// when they are few.
func (s *splitting) mulTResidual(grad []float64) { s.mulTResidualOf(grad, s.r, s.viol[:s.nviol]) }

// mulTResidualOf sets grad = A^T r for an r that is zero outside rows.
func (s *splitting) mulTResidualOf(grad, r []float64, rows []int) {
	if !s.op.full && float64(len(rows)) < compactSparseRows*float64(s.p.m) {
		s.op.mulTRows(grad, r, rows)
		return
	}
	s.op.mulT(grad, r)
}

// Func returns f(x) (used by FISTA only with backtracking).
func (s *splitting) Func(x []float64) float64 {
	s.op.mul(s.ax, x)
	f, _ := s.loss()
	return f + s.coupling(nil, x)
}

// FuncGrad sets grad = A^T r + rho (x - c) and returns f(x): one sweep
// over the rows of Phi for the full operator (vec.GradSweep: both products
// in one pass), two compact products otherwise (none with A^T when every
// measurement is satisfied).
func (s *splitting) FuncGrad(grad, x []float64) float64 {
	var f float64
	if s.op.full {
		p := s.p
		s.lossSum, s.nviol = 0, 0
		vec.GradSweep(s.ax, grad, p.phi, p.n, x, s.residual)
		s.op.products += 2
		s.op.trans++
		s.op.work += 2
		f = s.lambda * s.lossSum / 2
	} else {
		s.op.mul(s.ax, x)
		var active bool
		f, active = s.loss()
		if active {
			s.mulTResidual(grad)
		} else {
			clear(grad)
		}
	}
	return f + s.coupling(grad, x)
}

// coupling returns rho/2 ||x - c||^2 and, if grad is not nil, adds
// rho (x - c) to it.
func (s *splitting) coupling(grad, x []float64) float64 {
	rho, q := s.rho, 0.0
	c := s.c[:len(x)]
	for j, xj := range x {
		d := xj - c[j]
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
