package mil

import (
	"context"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/vec"
)

// xview is the feature matrix a fit solves on, X' = (X - 1 mu^T) S^-1
// (S = diag(scale)), without a copy of X: the scaling is folded into the
// products,
//
//	X' beta + beta0 = X w + (beta0 - mu . w),  w = S^-1 beta,
//	X'^T r          = S^-1 (X^T r - mu sum(r)),
//
// O(D) extra work per product (D = NumFeatures). The Gram matrix is
// built from each row transformed on the fly (dense) or from the raw
// sparse Gram and a rank-one correction (sparse, centered).
//
// Kinds: scale nil is X itself (ScaleNone, or the data of the copy path);
// uniform (ScaleNone with features far from 1 in magnitude) divides every
// column by one power of two c = 2^e, so that the Gram matrix and the
// step constant stay in range; otherwise (ScaleAuto) scale[j] is column
// j's standard deviation, mu[j] its mean (nil: no centering), and a
// column constant on the training data has scale +Inf: it is dropped
// (coefficient 0), since the unpenalized bias fits it exactly.
//
// Folding is exact up to rounding that grows with |mu_j|/scale_j (the
// raw products cancel where the copy subtracts first), so Fit folds
// only when that ratio is at most foldMaxOffset and the raw magnitudes
// keep the products in range (see foldable); otherwise it standardizes
// a copy, as before.
//
// An xview's scratch (w, rs) is its own: share the read-only mu and scale
// between goroutines through clone.
type xview struct {
	d     *Dataset
	mu    []float64 // nil: no centering
	scale []float64 // nil: no scaling
	// uniform: every scale is c = 2^e (mu nil); X^T r is then computed as
	// X^T (r*pre) / (c*pre) with pre = 2^-(e/2) when |e| is large, so
	// that neither the products nor the sum overflow or underflow.
	uniform bool
	c, pre  float64
	w       []float64 // scratch: S^-1 beta, len D
	rs      []float64 // scratch: r*pre, len NumInstances (pre != 1 only)
}

// foldMaxOffset bounds |mean|/sd of a column that Fit standardizes by
// folding: the folded products lose about log2(1 + |mean|/sd) bits to
// cancellation (at most 16 of 53, leaving relative errors near 1e-11,
// far below the solver's tolerances), where the copy loses none.
const foldMaxOffset = 1 << 16

// foldMaxExp bounds the binary exponent of the raw magnitudes whose
// standardization Fit folds into the products (ScaleAuto): the raw
// products X w and X^T r of values within 2^±768 with vectors of
// realistic size (below 2^100 in magnitude, above 2^-200 where it
// matters, 2^31 instances) neither overflow nor fall into the subnormals.
// Within the band the folded arithmetic is invariant to scaling a column
// by a power of two, bit for bit, as the standardized copy is.
const foldMaxExp = 768

// uniformMaxExp bounds the binary exponent of the magnitudes that
// ScaleNone solves on unscaled: its Gram matrix sums n squares, which
// stay finite (and normal) for values within 2^±400.
const uniformMaxExp = 400

// newView returns the identity view of d (no scaling).
func newView(d *Dataset) xview {
	return xview{d: d}
}

// uniformView returns the view of d divided by c = 2^e, where 2^e is the
// power of two that brings amax (> 0) into [0.5, 1), or the identity view
// when that exponent is within ±uniformMaxExp (the common case: nothing
// changes then, bit for bit).
func uniformView(d *Dataset, amax float64) xview {
	if amax == 0 {
		return newView(d)
	}
	_, e := math.Frexp(amax)
	if e >= -uniformMaxExp && e <= uniformMaxExp {
		return newView(d)
	}
	// Keep c and 1/c finite (subnormal data: the raw coefficients of a
	// useful model would overflow anyway).
	e = max(e, -1000)
	v := xview{d: d, uniform: true, c: math.Ldexp(1, e), pre: math.Ldexp(1, -e/2)}
	v.scale = make([]float64, d.NumFeatures())
	for j := range v.scale {
		v.scale[j] = v.c
	}
	return v
}

// standardView returns the standardized view of d from its column
// statistics: centered if center (else only scaled), constant columns
// dropped. Sparse data is centered only in its columns with |mean| <=
// sparseFoldMaxOffset*sd: a copy cannot center a sparse column without
// making it dense, so it is centered by folding or not at all. Any shift
// of a column is a reparametrization of the unpenalized bias: a column
// left uncentered changes the conditioning, not the problem.
func standardView(d *Dataset, st *colStats, center bool) xview {
	v := xview{d: d, scale: make([]float64, len(st.sd))}
	if center {
		v.mu = make([]float64, len(st.sd))
	}
	for j, sd := range st.sd {
		if st.constant[j] {
			v.scale[j] = math.Inf(1)
			continue
		}
		v.scale[j] = sd
		if center && (!d.IsSparse() || math.Abs(st.mean[j]) <= sparseFoldMaxOffset*sd) {
			v.mu[j] = st.mean[j]
		}
	}
	return v
}

// sparseFoldMaxOffset bounds |mean|/sd of a sparse column that Fit
// centers by folding, losing up to 26 bits of the products to
// cancellation: a sparse column is centered by folding or not at all (see
// standardView). On fox stored sparse with one column shifted by 1e6
// standard deviations the folded fit's training AUC (max pooling) moved
// by 0.0001 from the dense copy's (by 0.0005 centered at 1e8), where
// without centering it fell from 0.907 to 0.61 at 1e3 and to 0.49 beyond
// (the objective of the zero model). Centered at 1e10 the folded Gram
// matrix lost its definiteness (a negative largest eigenvalue), so a
// column past the bound, nearly constant, is left uncentered.
const sparseFoldMaxOffset = 1 << 26

// foldable reports whether folding the standardization of st into the
// products is accurate (see xview): for every non-constant column,
// |mean| <= foldMaxOffset*sd (when centered) and its largest magnitude
// within 2^±foldMaxExp.
func foldable(st *colStats, center bool) bool {
	lo, hi := math.Ldexp(1, -foldMaxExp), math.Ldexp(1, foldMaxExp)
	for j, sd := range st.sd {
		if st.constant[j] {
			continue
		}
		if a := st.amax[j]; a < lo || a > hi {
			return false
		}
		if center && math.Abs(st.mean[j]) > foldMaxOffset*sd {
			return false
		}
	}
	return true
}

// clone returns v with its own scratch (mu and scale shared).
func (v xview) clone() xview {
	if v.scale == nil {
		return v
	}
	v.w = make([]float64, len(v.scale))
	if v.uniform && v.pre != 1 {
		v.rs = make([]float64, v.d.NumInstances())
	}
	return v
}

// folded reports whether the view scales (or centers) anything.
func (v *xview) folded() bool { return v.scale != nil }

// mulVec sets t = X' beta + beta0 (see Dataset.MulVec).
func (v *xview) mulVec(t, beta []float64, beta0 float64) {
	if v.scale == nil {
		v.d.MulVec(t, beta, beta0)
		return
	}
	for j, b := range beta {
		v.w[j] = b / v.scale[j] // 0 for a dropped column (scale +Inf)
	}
	if v.mu != nil {
		beta0 -= vec.Dot(v.mu, v.w)
	}
	v.d.MulVec(t, v.w, beta0)
}

// mulTransVec sets g = X'^T r, and g[D] = sum(r) when len(g) == D+1 (see
// Dataset.MulTransVec).
func (v *xview) mulTransVec(g, r []float64) {
	if v.scale == nil {
		v.d.MulTransVec(g, r)
		return
	}
	nf := len(v.scale)
	if v.uniform {
		post := v.c
		if v.pre != 1 {
			for i, x := range r {
				v.rs[i] = x * v.pre
			}
			r, post = v.rs, v.c*v.pre
		}
		v.d.MulTransVec(g, r)
		for j := range nf {
			g[j] /= post
		}
		if len(g) == nf+1 && v.pre != 1 {
			g[nf] /= v.pre // sum(r), unscaled
		}
		return
	}
	v.d.MulTransVec(g, r)
	sum := 0.0
	if v.mu != nil {
		if len(g) == nf+1 {
			sum = g[nf]
		} else {
			for _, x := range r {
				sum += x
			}
		}
	}
	for j, s := range v.scale {
		if math.IsInf(s, 1) {
			g[j] = 0 // dropped (X^T r may even overflow there)
			continue
		}
		x := g[j]
		if v.mu != nil {
			x -= v.mu[j] * sum
		}
		g[j] = x / s
	}
}

// transformRow sets dst to the row x transformed: (x - mu)/scale.
func (v *xview) transformRow(dst, x []float64) {
	switch {
	case v.scale == nil:
		copy(dst, x)
	case v.mu == nil:
		for j, s := range v.scale {
			dst[j] = x[j] / s
		}
	default:
		for j, s := range v.scale {
			dst[j] = (x[j] - v.mu[j]) / s
		}
	}
}

// gram sets dst to the (D+1)^2 Gram matrix [X' 1]^T [X' 1] (see
// Dataset.Gram), checking ctx as Dataset.gram does.
func (v *xview) gram(ctx context.Context, dst []float64) error {
	if v.scale == nil {
		return v.d.gram(ctx, dst)
	}
	d := v.d
	cols := d.m.cols
	d1 := cols + 1
	clear(dst)
	gc := gramChecker{ctx: ctx}
	if d.IsSparse() {
		// The rows scaled on the fly; centering below by a rank-one
		// correction (centered rows would be dense).
		m := d.m
		buf := make([]float64, 0, cols)
		for _, rn := range d.runs {
			for i := rn.src; i < rn.src+rn.n; i++ {
				lo, hi := m.rowptr[i], m.rowptr[i+1]
				c := m.colidx[lo:hi]
				buf = buf[:0]
				for p, j := range c {
					buf = append(buf, m.values[lo+p]/v.scale[j])
				}
				gramAddSparseRow(dst, d1, c, buf)
				if err := gc.check(len(c)*len(c)/2 + 1); err != nil {
					return err
				}
			}
		}
	} else {
		row := make([]float64, cols)
		for _, rn := range d.runs {
			x := d.m.dense[rn.src*cols : (rn.src+rn.n)*cols]
			for i := range rn.n {
				v.transformRow(row, x[i*cols:(i+1)*cols])
				gramAddDenseRow(dst, d1, row)
				if err := gc.check(cols*cols/2 + 1); err != nil {
					return err
				}
			}
		}
	}
	n := float64(d.NumInstances())
	dst[d1*d1-1] = n
	if d.IsSparse() && v.mu != nil {
		// sum_i (x_ij - m_j)(x_ik - m_k) = G_jk - m_k c_j - m_j c_k + n m_j m_k
		// with m = mu/scale and c_j = G_jD, the scaled column sums; then
		// the centered column sums c_j - n m_j.
		mj := make([]float64, cols)
		for j := range mj {
			mj[j] = v.mu[j] / v.scale[j]
		}
		for j := range cols {
			g := dst[j*d1 : j*d1+d1]
			cj := g[cols]
			for k := j; k < cols; k++ {
				g[k] += -mj[k]*cj - mj[j]*dst[k*d1+cols] + n*mj[j]*mj[k]
			}
		}
		for j := range cols {
			dst[j*d1+cols] -= n * mj[j]
		}
	}
	mirrorUpper(dst, d1)
	return nil
}

// toRaw maps solver coefficients (beta on X', beta0) to the raw features
// (dst may be beta): dst = S^-1 beta, bias beta0 - mu . dst.
func (v *xview) toRaw(dst, beta []float64, beta0 float64) float64 {
	if v.scale == nil {
		copy(dst, beta)
		return beta0
	}
	for j, b := range beta {
		dst[j] = b / v.scale[j]
		if v.mu != nil {
			beta0 -= v.mu[j] * dst[j]
		}
	}
	return beta0
}

// penaltyScale is the factor from the options' lambda (on raw
// coefficients for ScaleNone) to the solver's: 1/c for a uniform view
// (the solver's coefficients are c times the raw ones), else 1 (ScaleAuto
// penalizes the standardized coefficients).
func (v *xview) penaltyScale() float64 {
	if v.uniform {
		return 1 / v.c
	}
	return 1
}

// copyCheckCells is how many values copyData copies between checks of its
// context: well under a millisecond of work.
const copyCheckCells = 1 << 16

// ctxErr returns ctx's error wrapped for Fit, or nil.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mil: Fit: %w", err)
	}
	return nil
}

// copyData returns d's features transformed by v in one contiguous block
// of d's storage kind (the copy path of Fit), checking ctx every
// copyCheckCells values, with the cost of a product with it as BetaAuto
// counts it: its stored entries when sparse, NumInstances*NumFeatures
// when dense (a dense product multiplies the zeros too); an error
// wrapping ErrBadInput if a transformed value overflows.
func (v *xview) copyData(ctx context.Context) (*Dataset, int, error) {
	d := v.d
	n, cols := d.NumInstances(), d.NumFeatures()
	m := &storage{rows: n, cols: cols}
	if d.IsSparse() {
		if v.mu != nil {
			return nil, 0, fmt.Errorf("%w: Fit: centering sparse data in a copy", ErrBadInput)
		}
		m.rowptr = make([]int, n+1)
		nnz := d.NNZ()
		m.colidx, m.values = make([]int32, 0, nnz), make([]float64, 0, nnz)
	} else {
		m.dense = make([]float64, n*cols)
	}
	work := 0
	for _, r := range d.runs {
		for i := range r.n {
			src, dst := r.src+i, r.dst+i
			if d.IsSparse() {
				lo, hi := d.m.rowptr[src], d.m.rowptr[src+1]
				start := len(m.values)
				for p := lo; p < hi; p++ {
					j := d.m.colidx[p]
					x := d.m.values[p]
					if v.scale != nil {
						x /= v.scale[j]
					}
					m.colidx, m.values = append(m.colidx, j), append(m.values, x)
				}
				if !num.AllFinite(m.values[start:]) {
					return nil, 0, fmt.Errorf("%w: Fit: a standardized feature value overflows", ErrBadInput)
				}
				m.rowptr[dst+1] = len(m.values)
				work += hi - lo + 1
			} else {
				x := m.dense[dst*cols : (dst+1)*cols]
				v.transformRow(x, d.m.dense[src*cols:(src+1)*cols])
				if !num.AllFinite(x) {
					return nil, 0, fmt.Errorf("%w: Fit: a standardized feature value overflows", ErrBadInput)
				}
				work += cols
			}
			if work >= copyCheckCells {
				work = 0
				if err := ctxErr(ctx); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	nnz := n * cols
	if d.IsSparse() {
		nnz = len(m.values)
	}
	out := &Dataset{
		m: m, runs: []run{{src: 0, dst: 0, n: n}},
		bagPtr: d.bagPtr, bagSrc: d.bagPtr[:len(d.bagPtr)-1],
		labels: d.labels, bagIDs: d.bagIDs,
	}
	return out, nnz, ctxErr(ctx)
}
