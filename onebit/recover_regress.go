package onebit

import (
	"context"
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
	x      []float64 // N: the fit
	sel    []int     // the support chosen, in order
	ricK   int       // the support's size at the RIC stop
	top    []int     // a batch of candidates (regressBatch)
	score  [regressBatch]float64
}

// regress fits the signs y by least squares on a support grown greedily
// (orthogonal matching pursuit on the signs: the column most correlated
// with the residual joins while the drop in M log(RSS) exceeds the risk
// inflation criterion's 2 log N, then, past that stop, while the fit's
// description of the signs shortened within the last regressExtend joins;
// the prefix with the shortest description is kept), and writes the
// unit-norm fit into x. It
// returns the support's size and the number of measurements the fit
// violates, or ok = false if the context was cancelled. For Gaussian rows
// E[y_i a_i] is proportional to the signal whatever the flips (Plan and
// Vershynin's observation), so the fit degrades gracefully with flipped
// signs, where a consistent estimate fits them.
func (s *Solver) regress(ctx context.Context, p *Problem, x []float64) (support, violated int, ok bool) {
	m, n := p.m, p.n
	capS := min(regressMaxSupport, n, max(1, m/4))
	rw := &s.rw
	rw.q = buf.Grow(rw.q, m*capS)
	rw.r = buf.Grow(rw.r, capS*capS)
	rw.z = buf.Grow(rw.z, capS)
	rw.cn = buf.Grow(rw.cn, n)
	rw.res = buf.Grow(rw.res, m)
	rw.g = buf.Grow(rw.g, n)
	rw.ax = buf.Grow(rw.ax, m)
	if cap(rw.sel) < capS {
		rw.sel = make([]int, 0, capS)
	}
	if rw.top == nil {
		rw.top = make([]int, 0, regressBatch)
	}
	sel := rw.sel[:0]
	cn := rw.cn
	clear(cn)
	for i := range m {
		// A pass over all of Phi in scalar code: look at ctx on the way
		// (under emulation a 2000 x 2000 pass takes a tenth of a second).
		if i%64 == 63 && ctx.Err() != nil {
			return 0, 0, false
		}
		for j, v := range p.phi[i*n : (i+1)*n] {
			cn[j] += v * v
		}
	}
	s.full.work++ // one pass over Phi
	res := rw.res
	copy(res, p.y)
	rss := vec.Dot(res, res)
	penalty := 2 * math.Log(float64(n))
	// Past the RIC stop (ricK), the fit keeps growing while its
	// description of the signs (see description) shortened within the
	// last regressExtend joins; the shortest prefix wins.
	ricK, bestK, bestD := -1, 0, math.Inf(1)
	for len(sel) < capS {
		if ctx.Err() != nil {
			return 0, 0, false
		}
		s.full.mulT(rw.g, res)
		// The regressBatch columns most correlated with the residual, best
		// first; each joins in turn if it still passes the test against
		// the residual left by the ones before it (the columns of a random
		// Phi are nearly orthogonal, so one product serves several). The
		// fresh best failing ends the regression.
		top := rw.top[:0]
		for j, v := range rw.g {
			if cn[j] == 0 || slices.Contains(sel, j) {
				continue
			}
			sc := v * v / cn[j]
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
			if ricK >= 0 {
				if d := s.fitDescription(p, len(sel)); d < bestD {
					bestK, bestD = len(sel), d
				}
			}
		}
		if joined == 0 {
			if ricK >= 0 {
				break
			}
			// The RIC stop: from here on, any column that lowers the
			// residual joins, and the description decides.
			ricK, bestK, bestD = len(sel), len(sel), s.fitDescription(p, len(sel))
			penalty = 0
			continue
		}
		if ricK >= 0 && len(sel) >= bestK+regressExtend {
			break
		}
	}
	rw.ricK = len(sel)
	if ricK >= 0 {
		sel = sel[:bestK]
		rw.ricK = ricK
	}
	rw.sel = sel
	// z = R^{-1} Q^T y by back substitution.
	k := len(sel)
	z := rw.z[:k]
	for t := range k {
		z[t] = vec.Dot(rw.q[t*m:(t+1)*m], p.y)
	}
	for t := k - 1; t >= 0; t-- {
		v := z[t]
		for u := t + 1; u < k; u++ {
			v -= rw.r[u*capS+t] * z[u]
		}
		z[t] = v / rw.r[t*capS+t]
	}
	clear(x)
	for t, j := range sel {
		x[j] = z[t]
	}
	if !normalize(x) {
		return 0, m, true
	}
	// The fit's violations: Phi x = Q R z, on the support's columns.
	ax := rw.ax
	clear(ax)
	for _, j := range sel {
		col := s.colBuf[:m]
		p.column(col, j)
		vec.Axpy(x[j], col, ax)
	}
	s.full.work += float64(k) / float64(n)
	return k, mismatches(ax, p.y), true
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
