package onebit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/vec"
)

// pursuitWork is the workspace of adaptive outlier pursuit (see pursue).
type pursuitWork struct {
	x, best, old, g, mag []float64 // N
	ax, r, v             []float64 // M
	code                 []float64 // M: signCode's scratch
	sup                  []int     // the support of x
	out                  []bool    // M: the measurements left out
	bestX                []float64 // N: the best estimate over the K grid
}

// outlierPursuit is Recover's outlier pursuit (RecoverOptions.Pursuit),
// run when the sign regression's fit, whose probit model needs more than
// probitFlipFloor of the signs flipped, replaced the consistent estimate
// (of consK non-zeros): adaptive outlier pursuit told that model's flip
// rate and each K from the fit's support size k to the larger of k and
// consK, then each larger K, up to the larger of consK and
// pursuitSpan*k, while one of the last pursuitStall shortened the
// description (see pursuit). It writes into x the pursuit's estimate
// alone if it describes the signs pursuitAlone nats more briefly than
// the fit, else the normalized mean of the two (the fit if they are
// opposite), and returns the support size of x and the number of signs
// it violates. On cancellation (checked every iteration) x holds the fit
// and it returns ctx's error.
func (s *Solver) outlierPursuit(ctx context.Context, p *Problem, x []float64, fit regressFit, consK int) (support, violated int, err error) {
	pw := &s.pw
	desc, ok := s.pursuit(ctx, p, fit.flip, fit.k, max(fit.k, consK), max(consK, pursuitSpan*fit.k))
	if !ok {
		return 0, 0, fmt.Errorf("onebit: Recover cancelled in the outlier pursuit: %w", ctx.Err())
	}
	if desc < fit.code-pursuitAlone {
		copy(x, pw.bestX)
	} else {
		for j, v := range fit.x {
			x[j] = v + pw.bestX[j]
		}
		if !normalize(x) { // opposite estimates: keep the fit
			copy(x, fit.x)
		}
	}
	support, violated = s.fullMismatches(p, x)
	return support, violated, nil
}

// pursue is adaptive outlier pursuit (Yan, Yang and Osher 2012, "Robust
// 1-bit compressive sensing using adaptive outlier pursuit"): BIHT from
// x = 0 told k non-zeros, where each iteration leaves out of the
// residual the l measurements its estimate violates most deeply,
//
//	x <- H_k(x + (tau/2) Phi^T (Lambda o (y - sign(Phi x)))),
//
// Lambda zero on those l. It stops when the estimate violates no sign
// outside them, at a fixed point, after patience iterations without fewer
// such violations, or after maxIter, and writes the iterate with the
// fewest (normalized) into pw.x. It returns false if ctx was cancelled.
// Its products run on the estimate's k columns and the violated rows;
// they are counted by s.full, with their cost.
func (s *Solver) pursue(ctx context.Context, p *Problem, k, l, maxIter, patience int) bool {
	m, n := p.m, p.n
	pw := &s.pw
	pw.x, pw.best, pw.old = buf.Grow(pw.x, n), buf.Grow(pw.best, n), buf.Grow(pw.old, n)
	pw.g, pw.mag = buf.Grow(pw.g, n), buf.Grow(pw.mag, n)
	pw.ax, pw.r, pw.v = buf.Grow(pw.ax, m), buf.Grow(pw.r, m), buf.Grow(pw.v, m)
	pw.out = growBools(pw.out, m)
	if cap(pw.sup) < n {
		pw.sup = make([]int, 0, n)
	}
	x, g, r, ax := pw.x, pw.g, pw.r, pw.ax
	clear(x)
	copy(r, p.y) // the first step: y - sign(Phi 0) with sign(0) = 0
	half := 0.5 / float64(m)
	fewest, fewestIt := m+1, 0
	for it := 1; it <= maxIter; it++ {
		if ctx.Err() != nil {
			return false
		}
		// g = Phi^T r over the rows where r is non-zero.
		clear(g)
		rows := 0
		for i, ri := range r {
			if ri != 0 {
				vec.Axpy(ri, p.phi[i*n:(i+1)*n], g)
				rows++
			}
		}
		s.full.work += float64(rows) / float64(m)
		s.full.products++
		s.full.trans++
		copy(pw.old, x)
		vec.Axpy(half, g, x)
		pw.threshold(x, k)
		s.full.mulCols(ax, x, pw.sup)
		pw.outliers(p.y, l)
		bad := 0
		for i, a := range ax {
			r[i] = 0
			if !pw.out[i] {
				if r[i] = p.y[i] - sign(a); r[i] != 0 {
					bad++
				}
			}
		}
		if bad < fewest {
			fewest, fewestIt = bad, it
			copy(pw.best, x)
		}
		if bad == 0 || slices.Equal(pw.old, x) || it-fewestIt >= patience {
			break
		}
	}
	copy(x, pw.best)
	normalize(x)
	return true
}

// threshold keeps the k largest magnitudes of x (hardThreshold) and lists
// the non-zero ones in pw.sup.
func (pw *pursuitWork) threshold(x []float64, k int) {
	hardThreshold(x, k, pw.mag[:len(x)])
	pw.sup = appendNonzeros(pw.sup[:0], x)
}

// outliers flags in pw.out the l measurements that pw.ax violates most
// deeply (all the violated ones if fewer).
func (pw *pursuitWork) outliers(y []float64, l int) {
	clear(pw.out)
	if l <= 0 {
		return
	}
	v := pw.v[:0]
	for i, a := range pw.ax {
		if sign(a) != y[i] {
			v = append(v, y[i]*a)
		}
	}
	if len(v) <= l {
		for i, a := range pw.ax {
			pw.out[i] = sign(a) != y[i]
		}
		return
	}
	t := selectKth(v, l-1) // the l-th deepest violation
	below := 0
	for _, w := range v {
		if w < t {
			below++
		}
	}
	ties := l - below
	for i, a := range pw.ax {
		if sign(a) == y[i] {
			continue
		}
		switch w := y[i] * a; {
		case w < t:
			pw.out[i] = true
		case w == t && ties > 0:
			pw.out[i] = true
			ties--
		}
	}
}

// pursuit runs adaptive outlier pursuit (see pursue) told l = round(eps*M)
// outliers and each K from lo to mid, then each K above mid, up to hi,
// while one of the last pursuitStall K shortened the description of the
// signs (see describe and signCode); it keeps in pw.bestX the estimate
// whose description is the shortest (the first at the lowest K on ties)
// and returns that description. Each bound is clamped to [1, N]. It
// returns ok = false if ctx was cancelled.
func (s *Solver) pursuit(ctx context.Context, p *Problem, eps float64, lo, mid, hi int) (desc float64, ok bool) {
	pw := &s.pw
	pw.bestX = buf.Grow(pw.bestX, p.n)
	pw.code = buf.Grow(pw.code, p.m)
	l := int(math.Round(eps * float64(p.m)))
	clamp := func(k int) int { return max(1, min(k, p.n)) }
	lo, mid, hi = clamp(lo), clamp(mid), clamp(hi)
	best, bestK := math.Inf(1), lo
	for k := lo; k <= hi && (k <= mid || k-bestK <= pursuitStall); k++ {
		if !s.pursue(ctx, p, k, l, pursuitMaxIter, pursuitPatience) {
			return 0, false
		}
		nz, _ := s.fullMismatches(p, pw.x) // pw.ax = Phi x
		c, _ := signCode(pw.ax, p.y, pw.code)
		if d := describe(p.n, p.m, nz, c); d < best {
			best, bestK = d, k
			copy(pw.bestX, pw.x)
		}
	}
	return best, true
}

// pursuitSpan and pursuitStall set the pursuit's range of K beyond the
// consistent estimate's support size (see outlierPursuit). With flipped
// signs the sign regression stops early, on half to all of the signal's
// support, and the consistent estimate, kept sparse by the loss cap and
// SupportGrowth, is often no larger, so a range up to the larger of the
// two sizes often misses the signal's K; up to pursuitSpan times the
// regression's size it covers a regression stopped at half the support,
// and it bounds the pursuit's cost. Past the K of the shortest
// description each coordinate adds about log(N/K) + log(M)/2 nats (7 at
// N = 500, M = 1000) while the sign code moves by a few, so two K in a
// row without a shorter description mark its minimum passed. A stop
// within the consistent estimate's range cost accuracy, so that range is
// always run (docs/onebit-stages.md, 2026-12-07, has the measurements).
const (
	pursuitSpan  = 2
	pursuitStall = 2
)

// pursuitAlone is how many nats more briefly than the sign regression's
// fit the outlier pursuit's estimate must describe the signs to be
// returned alone instead of the mean of the two. The mean hedges where
// neither is clearly the better model (at low M/N, or with many flips,
// their errors are large and nearly independent); far ahead, the pursuit's
// estimate is the nearer to the truth and the fit only pulls it away.
const pursuitAlone = 25

// pursuitMaxIter and pursuitPatience bound each outlier pursuit, as
// polishMaxIter and polishPatience bound the polish's BIHT: told too few
// coordinates, or with more flipped signs than it leaves out, it never
// reaches consistency, and the patience ends it.
const (
	pursuitMaxIter  = 1000
	pursuitPatience = 100
)

// fullMismatches returns the support size of x (len N) and the number of
// measurements it violates, by a product with its columns.
func (s *Solver) fullMismatches(p *Problem, x []float64) (support, violated int) {
	pw := &s.pw
	pw.sup = appendNonzeros(pw.sup[:0], x)
	s.full.mulCols(pw.ax, x, pw.sup)
	return len(pw.sup), mismatches(pw.ax, p.y)
}
