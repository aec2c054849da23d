package onebit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/vec"
)

// regressMaxSupport caps the support of the sign regression (see
// RecoverOptions.Regress); it is also capped at M/4 and N. The RIC stop
// ends it near the signal's sparsity (2-20 coordinates for K = 10 and 20
// on the instances measured), well below the cap.
const regressMaxSupport = 256

// regressBatch is the number of columns the sign regression considers per
// product with Phi^T (see regress).
const regressBatch = 4

// regressWork is the workspace of the sign regression.
type regressWork struct {
	q      []float64 // M x cap: orthonormal columns, column t at q[t*M:]
	r      []float64 // cap x cap: R of the QR factors, column t at r[t*cap:]
	z, cn  []float64 // cap: coefficients; N: squared column norms
	res, g []float64 // M: residual; N: Phi^T residual
	ax     []float64 // M: Phi x of the fit
	col    []float64 // M: a column of Phi
	code   []float64 // M: signCode's scratch
	x      []float64 // N: the fit
	sel    []int     // the support chosen, in order
	top    []int     // a batch of candidates (regressBatch)
	score  [regressBatch]float64
}

// regressFit is what the sign regression hands to the rest of Recover.
type regressFit struct {
	// x is the unit-norm fit (N; the regression's buffer, nil without a
	// regression), k its support's size and v the number of signs it
	// violates.
	x    []float64
	k, v int
	// ricK is the support's size at the RIC stop, which scales the
	// continuation's guard (see RecoverOptions.SupportGrowth); 0 without
	// a regression.
	ricK int
	// desc and code are the fit's description of the signs in nats, its
	// violations counted (description) or coded by signCode, whose
	// fitted flip rate is flip. desc and code are +Inf, and flip 0, when
	// the fit is no candidate: without a regression, for k = 0 (no
	// column explains the signs), or for a fit violating half the signs
	// or more (flipping all signs is cheap to describe).
	desc, code, flip float64
}

// clean reports that the fit is a candidate whose probit model needs at
// most probitFlipFloor of the signs flipped: the signs look clean.
func (f regressFit) clean() bool { return f.desc < math.Inf(1) && f.flip <= probitFlipFloor }

// flipped reports that the fit's probit model needs more than
// probitFlipFloor of the signs flipped (only a candidate's does).
func (f regressFit) flipped() bool { return f.flip > probitFlipFloor }

// signRegression is Recover's first stage (RecoverOptions.Regress, when
// on): the sign regression (see regress) into s.rw.x, and the fit's
// descriptions of the signs when it is a candidate. On cancellation it
// writes Phi^T y normalized into x and returns the context's error.
func (s *Solver) signRegression(ctx context.Context, p *Problem, x []float64, on bool) (regressFit, error) {
	none := regressFit{desc: math.Inf(1), code: math.Inf(1)}
	if !on {
		return none, nil
	}
	rw := &s.rw
	rw.x = buf.Grow(rw.x, p.n)
	fit, ok := s.regress(ctx, p, rw.x)
	if !ok {
		s.backprojection(x, p)
		normalize(x)
		return none, fmt.Errorf("onebit: Recover cancelled in the sign regression: %w", ctx.Err())
	}
	fit.desc, fit.code = none.desc, none.code
	if fit.k > 0 && 2*fit.v < p.m {
		fit.desc = description(p.n, p.m, fit.k, fit.v)
		var c float64
		c, fit.flip = signCode(rw.ax, p.y, rw.code)
		fit.code = describe(p.n, p.m, fit.k, c)
	}
	return fit, nil
}

// regress fits the signs y by least squares on a support grown greedily
// (orthogonal matching pursuit on the signs: the column most correlated
// with the residual joins while the drop in M log(RSS) exceeds the risk
// inflation criterion's 2 log N, then, past that stop, while the fit's
// description of the signs shortened within the last regressExtend joins;
// the prefix with the shortest description is kept), and writes the
// unit-norm fit into x. It returns the fit (x, its support's size k, the
// number of measurements it violates v, the support's size at the RIC
// stop; k = 0 and v = M for a zero fit; not the descriptions), or ok =
// false if the context was cancelled. For Gaussian rows E[y_i a_i] is
// proportional to the signal whatever the flips (Plan and Vershynin's
// observation), so the fit degrades gracefully with flipped signs, where
// a consistent estimate fits them.
func (s *Solver) regress(ctx context.Context, p *Problem, x []float64) (fit regressFit, ok bool) {
	m, n := p.m, p.n
	capS := min(regressMaxSupport, n, max(1, m/4))
	rw := &s.rw
	rw.resize(m, n, capS)
	if !rw.columnNorms(ctx, p) {
		return fit, false
	}
	s.full.work++ // one pass over Phi
	sel, ricK, ok := s.regressSupport(ctx, p, capS)
	if !ok {
		return fit, false
	}
	k := len(sel)
	z := rw.coefficients(p.y, k, capS)
	clear(x)
	for t, j := range sel {
		x[j] = z[t]
	}
	if !normalize(x) {
		return regressFit{x: x, v: m, ricK: ricK}, true
	}
	// The fit's violations: Phi x on the support's columns.
	ax := rw.ax
	clear(ax)
	for _, j := range sel {
		col := rw.col[:m]
		p.column(col, j)
		vec.Axpy(x[j], col, ax)
	}
	s.full.work += float64(k) / float64(n)
	return regressFit{x: x, k: k, v: mismatches(ax, p.y), ricK: ricK}, true
}

// resize sizes the workspace for m x n and a support of at most capS.
func (rw *regressWork) resize(m, n, capS int) {
	rw.q = buf.Grow(rw.q, m*capS)
	rw.r = buf.Grow(rw.r, capS*capS)
	rw.z = buf.Grow(rw.z, capS)
	rw.cn = buf.Grow(rw.cn, n)
	rw.res = buf.Grow(rw.res, m)
	rw.g = buf.Grow(rw.g, n)
	rw.ax = buf.Grow(rw.ax, m)
	rw.col = buf.Grow(rw.col, m)
	rw.code = buf.Grow(rw.code, m)
	if cap(rw.sel) < capS {
		rw.sel = make([]int, 0, capS)
	}
	if rw.top == nil {
		rw.top = make([]int, 0, regressBatch)
	}
}

// columnNorms sets rw.cn to the squared norms of Phi's columns, and
// reports false if ctx was cancelled.
func (rw *regressWork) columnNorms(ctx context.Context, p *Problem) bool {
	n := p.n
	cn := rw.cn
	clear(cn)
	for i := range p.m {
		// A pass over all of Phi in scalar code: look at ctx on the way
		// (under emulation a 2000 x 2000 pass takes a tenth of a second).
		if i%64 == 63 && ctx.Err() != nil {
			return false
		}
		for j, v := range p.phi[i*n : (i+1)*n] {
			cn[j] += v * v
		}
	}
	return true
}

// regressSupport grows the regression's support (see regress) of at most
// capS columns, leaving the residual of the fit in rw.res, and returns
// it (rw.sel) with its size at the RIC stop; ok is false if ctx was
// cancelled.
func (s *Solver) regressSupport(ctx context.Context, p *Problem, capS int) (sel []int, ricK int, ok bool) {
	rw := &s.rw
	sel = rw.sel[:0]
	res := rw.res
	copy(res, p.y)
	rss := vec.Dot(res, res)
	penalty := 2 * math.Log(float64(p.n))
	// Past the RIC stop (ric), the fit keeps growing while its
	// description of the signs (see description) shortened within the
	// last regressExtend joins; the shortest prefix wins.
	ric, bestK, bestD := -1, 0, math.Inf(1)
	for len(sel) < capS {
		if ctx.Err() != nil {
			return nil, 0, false
		}
		s.full.mulT(rw.g, res)
		// Each column of the batch joins in turn if it still passes the
		// test against the residual left by the ones before it (the
		// columns of a random Phi are nearly orthogonal, so one product
		// serves several). The fresh best failing ends the regression.
		top := rw.batch(sel)
		if len(top) == 0 {
			break
		}
		joined := 0
		for _, jb := range top {
			if len(sel) == capS || !s.join(p, jb, len(sel), capS, &rss, penalty) {
				break
			}
			sel = append(sel, jb)
			joined++
			if ric >= 0 {
				if d := s.fitDescription(p, len(sel)); d < bestD {
					bestK, bestD = len(sel), d
				}
			}
		}
		if joined == 0 {
			if ric >= 0 {
				break
			}
			// The RIC stop: from here on, any column that lowers the
			// residual joins, and the description decides.
			ric, bestK, bestD = len(sel), len(sel), s.fitDescription(p, len(sel))
			penalty = 0
			continue
		}
		if ric >= 0 && len(sel) >= bestK+regressExtend {
			break
		}
	}
	ricK = len(sel)
	if ric >= 0 {
		sel = sel[:bestK]
		ricK = ric
	}
	rw.sel = sel
	return sel, ricK, true
}

// batch returns the regressBatch columns outside sel (with a non-zero
// norm) most correlated with the residual, whose product with Phi^T is
// rw.g, best first.
func (rw *regressWork) batch(sel []int) []int {
	top := rw.top[:0]
	for j, v := range rw.g {
		if rw.cn[j] == 0 || slices.Contains(sel, j) {
			continue
		}
		sc := v * v / rw.cn[j]
		u := len(top)
		if u == regressBatch {
			if sc <= rw.score[u-1] {
				continue
			}
			u--
		} else {
			top = append(top, 0)
		}
		for ; u > 0 && rw.score[u-1] < sc; u-- {
			top[u], rw.score[u] = top[u-1], rw.score[u-1]
		}
		top[u], rw.score[u] = j, sc
	}
	rw.top = top
	return top
}

// coefficients returns z = R^{-1} Q^T y for the first k columns of the
// QR factors (rw.z), by back substitution.
func (rw *regressWork) coefficients(y []float64, k, capS int) []float64 {
	m := len(y)
	z := rw.z[:k]
	for t := range k {
		z[t] = vec.Dot(rw.q[t*m:(t+1)*m], y)
	}
	for t := k - 1; t >= 0; t-- {
		v := z[t]
		for u := t + 1; u < k; u++ {
			v -= rw.r[u*capS+t] * z[u]
		}
		z[t] = v / rw.r[t*capS+t]
	}
	return z
}

// regressExtend is how many joins past the best description the
// regression tries before it stops (see regress). The RIC alone stopped
// at 2-11 coordinates for K = 20 at M/N = 0.25 with 3% of the signs
// flipped; the description, which counts the violated signs, takes the
// fit further (0.254 to 0.241 mean error on 50 rademacher instances). A
// window of 32 chose the same supports there as 8.
const regressExtend = 8

// fitDescription returns the description length (see description) of
// the signs by the least-squares fit on the first k columns chosen, whose
// fitted values are y minus the current residual: +Inf for k = 0, or for
// a fit that violates half of the signs or more (it tells them no better
// than a coin; any longer prefix with a finite description is preferred).
func (s *Solver) fitDescription(p *Problem, k int) float64 {
	v := 0
	for i, yi := range p.y {
		if !(sign(yi-s.rw.res[i]) == yi) {
			v++
		}
	}
	if k == 0 || 2*v >= p.m {
		return math.Inf(1)
	}
	return description(p.n, p.m, k, v)
}

// join orthogonalizes column j of Phi against the t columns chosen (into
// slot t of the QR factors) and, if the drop it brings to the residual's
// squared norm *rss passes the risk inflation criterion, takes it out of
// the residual, updates *rss and reports true.
func (s *Solver) join(p *Problem, j, t, capS int, rss *float64, penalty float64) bool {
	m := p.m
	rw := &s.rw
	q := rw.q[t*m : (t+1)*m]
	rc := rw.r[t*capS : (t+1)*capS]
	p.column(q, j)
	// Modified Gram-Schmidt twice (the columns may be nearly dependent);
	// R accumulates both passes.
	clear(rc[:t+1])
	for range 2 {
		for u := range t {
			qu := rw.q[u*m : (u+1)*m]
			c := vec.Dot(qu, q)
			rc[u] += c
			vec.Axpy(-c, qu, q)
		}
	}
	nq := vec.Nrm2(q)
	if !(nq > 1e-10*math.Sqrt(rw.cn[j])) {
		return false // dependent on the columns chosen
	}
	vec.Scal(1/nq, q)
	rc[t] = nq
	c := vec.Dot(q, rw.res)
	next := *rss - c*c
	if !(next > 0) || float64(m)*math.Log(*rss/next) < penalty {
		return false
	}
	vec.Axpy(-c, q, rw.res)
	*rss = next
	return true
}
