package onebit

import (
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// fistaWork is the workspace of splitting.fistaCompact: the iterates x_k,
// x_(k-1), the extrapolation y, the trial z, the gradient and a scratch
// vector (k each), and the products A x_k, A x_(k-1), A z (M each).
type fistaWork struct {
	xk, xp, y, z, g, t []float64
	axk, axp, az       []float64
	// lastL is the step constant the previous x-update ended with; the
	// next one starts from half of it (0: from rho).
	lastL float64
}

func (w *fistaWork) resize(m, n int) {
	for _, b := range [...]*[]float64{&w.xk, &w.xp, &w.y, &w.z, &w.g, &w.t} {
		*b = buf.Grow(*b, n)
	}
	for _, b := range [...]*[]float64{&w.axk, &w.axp, &w.az} {
		*b = buf.Grow(*b, m)
	}
}

// fistaCompact is FISTA (with the gradient restart of neadmm.FISTA) for
// the x-update on a working set, from x, written back into x; it returns
// the steps taken. Two differences from neadmm.FISTA make each step
// cheaper and the steps fewer, at the same stopping test:
//
//   - the products: A y is formed from A x_k and A x_(k-1) (y is their
//     affine combination), so each step multiplies only the trial point z,
//     a soft-thresholding output that is as sparse as the estimate, while
//     y mixes two supports;
//   - the step: the global constant lambda ||A||^2 + rho bounds the
//     curvature of the loss over all rows, but only the violated ones
//     (often a few percent near consistency) curve it. Each x-update starts
//     from half the constant the previous one ended with (rho at first),
//     and doubles it while the trial step fails the sufficient-decrease
//     test of Beck and Teboulle (which A z, needed anyway, makes cheap: one
//     pass over the rows), up to the global constant, where the step is
//     taken as the fixed-step solver takes it.
//
// It checks s.ctx before every step.
func (s *splitting) fistaCompact(x []float64, tol float64, maxIter int) (int, error) {
	k, fw := len(x), &s.fw
	xk, xp, y, z, g, t := fw.xk[:k], fw.xp[:k], fw.y[:k], fw.z[:k], fw.g[:k], fw.t[:k]
	axk, axp, az := fw.axk, fw.axp, fw.az
	lmax := s.lambda*s.norm2 + s.rho
	L := lmax
	if fw.lastL > 0 {
		L = min(lmax, max(s.rho, fw.lastL/2))
	} else {
		L = min(lmax, s.rho)
	}
	copy(xk, x)
	s.op.mul(axk, xk)
	var done <-chan struct{}
	if s.ctx != nil {
		done = s.ctx.Done()
	}
	theta, beta := 1.0, 0.0
	it := 0
	n := len(fw.xk)
	defer func() {
		copy(x, xk)
		fw.lastL = L
		// Keep the rotated buffers for the next call.
		fw.xk, fw.xp, fw.z = xk[:n], xp[:n], z[:n]
		fw.axk, fw.axp, fw.az = axk, axp, az
	}()
	for it < maxIter {
		if done != nil {
			select {
			case <-done:
				return it, fmt.Errorf("onebit: FISTA: cancelled before step %d: %w", it+1, s.ctx.Err())
			default:
			}
		}
		it++
		yv := xk
		var fy float64
		var active bool
		if beta != 0 {
			yv = y
			for j, v := range xk {
				y[j] = v + beta*(v-xp[j])
			}
			fy, active = s.lossExtrapolated(axk, axp, beta)
		} else {
			fy, active = s.lossFrom(axk)
		}
		if active {
			s.mulTResidual(g)
		} else {
			clear(g)
		}
		fy += s.coupling(g, yv)
		if !(math.Abs(fy) <= math.MaxFloat64) {
			return it, fmt.Errorf("onebit: FISTA: step %d: f(y) = %g: %w", it, fy, neadmm.ErrNotFinite)
		}
		for {
			vec.AddScaledTo(t, yv, -1/L, g)
			s.Prox(z, t, 1/L)
			if L >= lmax {
				s.op.mul(az, z)
				break
			}
			s.op.mul(az, z)
			fz := s.lossValue(az) + s.coupling(nil, z)
			vec.Sub(t, z, yv)
			if fz <= fy+vec.Dot(g, t)+L/2*vec.Dot(t, t)+fistaSlack*math.Abs(fy) {
				break
			}
			L = min(2*L, lmax)
		}
		// Accept z: the step, its norm, and the restart test
		// <y - z, z - x_k> > 0 (the step points against the momentum).
		dn, zn, rs := 0.0, 0.0, 0.0
		for j, zj := range z {
			d := zj - xk[j]
			dn += d * d
			zn += zj * zj
			rs += (yv[j] - zj) * d
		}
		dn, zn = math.Sqrt(dn), math.Sqrt(zn)
		if !(zn <= math.MaxFloat64) || !(dn <= math.MaxFloat64) {
			return it, fmt.Errorf("onebit: FISTA: step %d: iterate: %w", it, neadmm.ErrNotFinite)
		}
		xp, xk, z = xk, z, xp
		axp, axk, az = axk, az, axp
		if dn <= tol*max(1, zn) {
			break
		}
		if rs > 0 {
			theta, beta = 1, 0
			continue
		}
		thetaNext := (1 + math.Sqrt(1+4*theta*theta)) / 2
		beta = (theta - 1) / thetaNext
		theta = thetaNext
	}
	return it, nil
}

// fistaSlack is neadmm.FISTA's relative slack of the sufficient-decrease
// test, so that rounding noise in f near the minimizer does not inflate L.
const fistaSlack = 64 * 0x1p-52
