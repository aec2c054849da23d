package mil

import (
	"context"
	"slices"
	"time"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// problem is the multi-instance learning problem (the paper's problem 3)
// as a neadmm.Problem, with B bags, I instances and D features:
//
//	min sum_i w_i*log(1 + exp(-s_i*q_i)) + lambda*||beta||_1
//	s.t. q_i = P(t_i),  t = X beta + beta0,
//
// with P the pooling (the max in the paper), x1 = (q, beta, beta0) in
// R^(B+D+1), x2 = t in R^I, y = (y1, y2) in R^(B+I) unscaled,
// f1(x1) = (q, -X beta - beta0), f2(t) = (-P(t), t). UpdateX1 is the
// q-update (eq. 7) and the beta-update (eq. 8), both from t^k; UpdateX2 is
// the t-update (eqs. 9-10, with the pooling's prox).
type problem struct {
	x      xview // the features the solver works on (its own clone)
	bagPtr []int
	nb, nf int       // B, D
	sign   []float64 // s_i = 2*label - 1
	weight []float64 // w_i
	lambda float64   // on the sum-scale objective above
	// lambdaMean: the options' Loss is MeanLoss (objectives reported /B).
	lambdaMean bool

	ctx   context.Context // the solve's, from Start: for the inner FISTA
	path  BetaSolver      // BetaGram or BetaDirect
	lasso lassoProblem
	fista neadmm.FISTA
	fopt  neadmm.FISTAOptions

	v, phi []float64 // NumInstances: v = t + y2/rho; phi of the t-update
	// xb = X beta + beta0 at xbTheta, computed by the t-update and reused
	// by Constraint1 when x1's theta has not changed since.
	xb, xbTheta []float64
	xbValid     bool
	pool        Pooling
	scratch     []float64 // the largest bag: poolValue's sort
	// tpool = P(t) per bag for the t of the solve: the engine passes x2
	// unchanged from UpdateX2 to Constraint2 and the next UpdateX1 (see
	// neadmm.Problem), so the t-update computes it once for both; before
	// the first t-update of a solve (tpoolValid false, reset by Start) it
	// is computed from the initial t.
	tpool      []float64
	tpoolValid bool

	// Diagnostics, accumulated over the solve.
	inner         int
	tQ, tBeta, tT time.Duration
}

func (p *problem) Dims() (n1, n2, m int) {
	ni := p.x.d.NumInstances()
	return p.nb + p.nf + 1, ni, p.nb + ni
}

// bagPool returns P(t_i) of bag i.
func (p *problem) bagPool(t []float64, i int) float64 {
	x := t[p.bagPtr[i]:p.bagPtr[i+1]]
	return poolValue(x, p.pool.k(len(x)), p.scratch)
}

// bagPools returns P(t) per bag for the solve's current t (see tpool).
func (p *problem) bagPools(t []float64) []float64 {
	if !p.tpoolValid {
		for i := range p.nb {
			p.tpool[i] = p.bagPool(t, i)
		}
		p.tpoolValid = true
	}
	return p.tpool
}

// Start (neadmm.Starter) begins a solve: it forgets what an earlier solve
// left (the next t is new) and keeps ctx for the inner FISTA solves.
func (p *problem) Start(ctx context.Context, x1, t, y []float64) error {
	p.ctx = ctx
	p.tpoolValid = false
	return nil
}

func (p *problem) UpdateX1(x1, t, y []float64, rho float64) error {
	t0 := time.Now()
	q, theta := x1[:p.nb], x1[p.nb:]
	y1, y2 := y[:p.nb], y[p.nb:]
	tpool := p.bagPools(t)
	for i := range q {
		c := tpool[i] - y1[i]/rho
		q[i] = logisticProx(p.sign[i], p.weight[i], rho, c, q[i])
	}
	t1 := time.Now()
	vec.AddScaledTo(p.v, t, 1/rho, y2)
	p.lasso.setRHS(p.v, p.lambda/rho)
	res, err := p.fista.Solve(p.ctx, p.lasso, theta, p.fopt)
	p.inner += res.Iterations
	p.xbValid = false
	t2 := time.Now()
	p.tQ += t1.Sub(t0)
	p.tBeta += t2.Sub(t1)
	return err
}

func (p *problem) UpdateX2(t, x1, y []float64, rho float64) error {
	t0 := time.Now()
	q, theta := x1[:p.nb], x1[p.nb:]
	y1, y2 := y[:p.nb], y[p.nb:]
	p.setXB(theta)
	vec.AddScaledTo(p.phi, p.xb, -1/rho, y2)
	for i := range q {
		a, b := p.bagPtr[i], p.bagPtr[i+1]
		p.pool.prox(t[a:b], p.phi[a:b], q[i]+y1[i]/rho)
		p.tpool[i] = p.bagPool(t, i)
	}
	p.tpoolValid = true
	p.tT += time.Since(t0)
	return nil
}

// setXB makes p.xb = X beta + beta0 for theta = (beta, beta0).
func (p *problem) setXB(theta []float64) {
	if p.xbValid && slices.Equal(theta, p.xbTheta) {
		return
	}
	p.x.mulVec(p.xb, theta[:p.nf], theta[p.nf])
	copy(p.xbTheta, theta)
	p.xbValid = true
}

func (p *problem) Constraint1(dst, x1 []float64) {
	copy(dst, x1[:p.nb])
	p.setXB(x1[p.nb:])
	neg := dst[p.nb:]
	for k, v := range p.xb {
		neg[k] = -v
	}
}

func (p *problem) Constraint2(dst, t []float64) {
	for i, m := range p.bagPools(t) {
		dst[i] = -m
	}
	copy(dst[p.nb:], t)
}

// Constraint1JacT sets dst = (v[:B], -X^T v[B:], -sum v[B:]).
func (p *problem) Constraint1JacT(dst, x1, v []float64) {
	copy(dst, v[:p.nb])
	g := dst[p.nb:]
	p.x.mulTransVec(g, v[p.nb:])
	vec.Scal(-1, g)
}

// Objective returns the sum-scale objective at the ADMM iterate (with q,
// not max t, in the loss).
func (p *problem) Objective(x1, t []float64) float64 {
	return p.loss(x1[:p.nb]) + p.lambda*vec.Asum(x1[p.nb:p.nb+p.nf])
}

// loss returns sum_i w_i*log(1 + exp(-s_i*q_i)).
func (p *problem) loss(q []float64) float64 {
	l := 0.0
	for i, qi := range q {
		l += p.weight[i] * logLoss(p.sign[i]*qi)
	}
	return l
}

// trueObjective returns the sum-scale objective of the model theta itself,
// with bag scores P(x_ij . beta + beta0); xb is scratch.
func (p *problem) trueObjective(theta, xb []float64) float64 {
	p.x.mulVec(xb, theta[:p.nf], theta[p.nf])
	l := 0.0
	for i := range p.nb {
		l += p.weight[i] * logLoss(p.sign[i]*p.bagPool(xb, i))
	}
	return l + p.lambda*vec.Asum(theta[:p.nf])
}
