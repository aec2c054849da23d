package onebit

import (
	"fmt"
	"math"
	"slices"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// fistaWork is the workspace of splitting.fistaCompact: the iterates x_k,
// x_(k-1), the extrapolation y, the trial z, the gradient and a scratch
// vector (k each), the products A x_k, A x_(k-1), A z, and the loss's
// residual at y (M each) with its non-zero rows.
type fistaWork struct {
	xk, xp, y, z, g, t []float64
	axk, axp, az, r    []float64
	viol               []int // the rows where r is non-zero: r[viol[:nv]]
	nv                 int
	// lastL is the step constant the previous x-update ended with; the
	// next one starts from half of it (0: from rho).
	lastL float64
	// axk = A xk for the columns of the operator op at generation gen,
	// with xk[:k] the last x-update's result: the next x-update starts
	// from it (neADMM's w- and dual updates leave x alone), and skips that
	// product when nothing changed.
	op     *operator
	gen, k int
}

func (w *fistaWork) resize(m, n int) {
	for _, b := range [...]*[]float64{&w.xk, &w.xp, &w.y, &w.z, &w.g, &w.t} {
		*b = buf.Grow(*b, n)
	}
	for _, b := range [...]*[]float64{&w.axk, &w.axp, &w.az, &w.r} {
		*b = buf.Grow(*b, m)
	}
	w.viol = growInts(w.viol, m)
	clear(w.r)
	w.nv, w.op, w.lastL = 0, nil, 0
}

// fistaCompact is FISTA (with the gradient restart of neadmm.FISTA) for
// the x-update on a working set, from x, written back into x; it returns
// the steps taken. Two differences from neadmm.FISTA make each step
// cheaper and the steps fewer, at the same stopping test:
//
//   - the products: A y is formed from A x_k and A x_(k-1) (y is their
//     affine combination), so each step multiplies only the trial point z,
//     a soft-thresholding output that is as sparse as the estimate, while
//     y mixes two supports; the pass over the rows that evaluates the loss
//     at z also forms the residual at the next y;
//   - the step: the global constant lambda ||A||^2 + rho bounds the
//     curvature of the loss over all rows, but only the violated ones
//     (often a few percent near consistency) curve it. Each x-update starts
//     from half the constant the previous one ended with (rho at first),
//     and doubles it while the trial step fails the sufficient-decrease
//     test of Beck and Teboulle (which A z, needed anyway, makes cheap),
//     up to the global constant, where the step is taken as the
//     fixed-step solver takes it.
//
// It checks s.ctx before every step.
func (s *splitting) fistaCompact(x []float64, tol float64, maxIter int) (int, error) {
	k, fw := len(x), &s.fw
	xk, xp, y, z, g, t := fw.xk[:k], fw.xp[:k], fw.y[:k], fw.z[:k], fw.g[:k], fw.t[:k]
	axk, axp, az := fw.axk, fw.axp, fw.az
	L, lmax := s.fistaStart(x)
	var done <-chan struct{}
	if s.ctx != nil {
		done = s.ctx.Done()
	}
	theta := 1.0
	it := 0
	n := len(fw.xk)
	defer func() {
		copy(x, xk)
		fw.lastL = L
		// Keep the rotated buffers, and A xk, for the next call.
		fw.xk, fw.xp, fw.z = xk[:n], xp[:n], z[:n]
		fw.axk, fw.axp, fw.az = axk, axp, az
		fw.op, fw.gen, fw.k = s.op, s.op.gen, k
	}()
	_, fyl := s.lossPass(axk, axk, 0) // the first y is x_k
	yv := xk
	for it < maxIter {
		if closed(done) {
			return it, fmt.Errorf("onebit: FISTA: cancelled before step %d: %w", it+1, s.ctx.Err())
		}
		it++
		s.lossGradient(g)
		fy := fyl + s.coupling(g, yv)
		if !(math.Abs(fy) <= math.MaxFloat64) {
			return it, fmt.Errorf("onebit: FISTA: step %d: f(y) = %g: %w", it, fy, neadmm.ErrNotFinite)
		}
		var dn, zn, thetaNext, beta float64
		for {
			vec.AddScaledTo(t, yv, -1/L, g)
			s.Prox(z, t, 1/L)
			s.op.mul(az, z)
			// The step from x_k, its norm, and the restart test, which set
			// the next y's extrapolation.
			var rs float64
			dn, zn, rs = stepSums(z, xk, yv)
			thetaNext, beta = momentum(theta, rs)
			var fzl float64
			fzl, fyl = s.lossPass(az, axk, beta)
			if L >= lmax {
				break
			}
			fz := fzl + s.coupling(nil, z)
			vec.Sub(t, z, yv)
			// An overflowed trial (fz = +Inf, as a step 1/L from a tiny
			// rho gives) is never accepted: +Inf <= +Inf would pass the
			// test; L doubles instead, up to lmax.
			if fz <= math.MaxFloat64 && fz <= fy+vec.Dot(g, t)+L/2*vec.Dot(t, t)+fistaSlack*math.Abs(fy) {
				break
			}
			L = min(2*L, lmax)
		}
		dn, zn = math.Sqrt(dn), math.Sqrt(zn)
		if !(zn <= math.MaxFloat64) || !(dn <= math.MaxFloat64) {
			return it, fmt.Errorf("onebit: FISTA: step %d: iterate: %w", it, neadmm.ErrNotFinite)
		}
		converged := dn <= tol*max(1, zn)
		yv = z // the next y, before x_k moves on
		if beta != 0 && !converged {
			yv = extrapolate(y, z, xk, beta)
		}
		xp, xk, z = xk, z, xp
		axp, axk, az = axk, az, axp
		theta = thetaNext
		if converged {
			break
		}
	}
	return it, nil
}

// fistaStart returns the step constant fistaCompact starts from (half
// the previous x-update's, at least rho, or rho at first) and its cap,
// the global lambda ||A||^2 + rho; it sets fw.xk to x[:k] and fw.axk to
// A x, unless they hold the last x-update's result for the same columns.
func (s *splitting) fistaStart(x []float64) (L, lmax float64) {
	k, fw := len(x), &s.fw
	lmax = s.lambda*s.norm2 + s.rho
	L = min(lmax, s.rho)
	if fw.lastL > 0 {
		L = min(lmax, max(s.rho, fw.lastL/2))
	}
	if xk := fw.xk[:k]; fw.op != s.op || fw.gen != s.op.gen || fw.k != k || !slices.Equal(xk, x) {
		copy(xk, x)
		s.op.mul(fw.axk, xk)
	}
	return L, lmax
}

// lossGradient sets g to A^T times the residual lossPass left in s.fw.r
// (the loss's gradient at the next y), over its non-zero rows.
func (s *splitting) lossGradient(g []float64) {
	fw := &s.fw
	if fw.nv > 0 {
		s.mulTResidualOf(g, fw.r, fw.viol[:fw.nv])
	} else {
		clear(g)
	}
}

// extrapolate sets y = z + beta (z - xk) and returns it.
func extrapolate(y, z, xk []float64, beta float64) []float64 {
	for j, zj := range z {
		y[j] = zj + beta*(zj-xk[j])
	}
	return y
}

// stepSums returns, in one pass, ||z - xk||^2, ||z||^2 and the restart
// test's <y - z, z - xk> (the step points against the momentum when it
// is positive).
func stepSums(z, xk, y []float64) (dn, zn, rs float64) {
	for j, zj := range z {
		d := zj - xk[j]
		dn += d * d
		zn += zj * zj
		rs += (y[j] - zj) * d
	}
	return dn, zn, rs
}

// momentum returns FISTA's next theta and the extrapolation weight beta
// from theta, or 1 and 0 (a restart) when the restart test rs is
// positive.
func momentum(theta, rs float64) (thetaNext, beta float64) {
	if rs > 0 {
		return 1, 0
	}
	thetaNext = (1 + math.Sqrt(1+4*theta*theta)) / 2
	return thetaNext, (theta - 1) / thetaNext
}

// lossPass returns, in one pass over the rows, the loss at az = A z
// (value only) and the loss at A y for y = z + beta (z - xk), from
// axk = A xk, whose lambda-scaled residual it leaves in s.fw.r (non-zero
// on the rows s.fw.viol[:s.fw.nv], and zero elsewhere: it clears the rows
// the last pass set). Both losses are capped as loss caps them.
func (s *splitting) lossPass(az, axk []float64, beta float64) (fz, fy float64) {
	fw := &s.fw
	r, viol, lam, cp := fw.r, fw.viol, s.lambda, s.cap
	for _, i := range viol[:fw.nv] {
		r[i] = 0
	}
	y, axk := s.p.y[:len(az)], axk[:len(az)]
	sz, sy, nv := 0.0, 0.0, 0
	for i, v := range az {
		yi := y[i]
		if yi*v < 0 {
			sq, _ := cappedSq(v, cp)
			sz += sq
		}
		a := v + beta*(v-axk[i])
		if yi*a < 0 {
			sq, in := cappedSq(a, cp)
			sy += sq
			if !in {
				continue
			}
			r[i] = lam * a
			viol[nv] = i
			nv++
		}
	}
	fw.nv = nv
	return lam * sz / 2, lam * sy / 2
}

// fistaSlack is neadmm.FISTA's relative slack of the sufficient-decrease
// test, so that rounding noise in f near the minimizer does not inflate L.
const fistaSlack = 64 * 0x1p-52
