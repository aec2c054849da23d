package mil

import (
	"context"

	"github.com/neadmm/neadmm/vec"
)

// The products a learner needs, each with a dense path on the vec kernels
// and a sparse (CSR) path; the storage kind (IsSparse) selects the path.
// None of them allocates. All are safe for concurrent use on one Dataset
// (they only read it) as long as the output buffers are distinct.
//
// Special cases: with finite beta (resp. r) the two paths agree up to
// rounding. With NaN or ±Inf inputs the paths may differ in which outputs
// become NaN, because the sparse path never multiplies by a stored zero
// (Inf*0 = NaN on the dense path only).

// MulVec sets t = X beta + beta0, the scores of all instances in dataset
// order: t[i] = x_i . beta + beta0. It panics on a nil or zero Dataset, or if
// len(t) != NumInstances() or len(beta) != NumFeatures(). t must not
// overlap beta.
func (d *Dataset) MulVec(t, beta []float64, beta0 float64) {
	if !d.usable() {
		panic("mil.Dataset.MulVec: nil or zero Dataset")
	}
	if len(t) != d.NumInstances() || len(beta) != d.m.cols {
		panic("mil.Dataset.MulVec: dimension mismatch")
	}
	if d.IsSparse() {
		d.mulVecSparse(t, beta, beta0)
		return
	}
	cols := d.m.cols
	for _, r := range d.runs {
		vec.MulVec(t[r.dst:r.dst+r.n], d.m.dense[r.src*cols:(r.src+r.n)*cols], r.n, cols, beta)
	}
	if beta0 != 0 {
		for i := range t {
			t[i] += beta0
		}
	}
}

func (d *Dataset) mulVecSparse(t, beta []float64, beta0 float64) {
	rowptr, colidx, values := d.m.rowptr, d.m.colidx, d.m.values
	for _, r := range d.runs {
		tt := t[r.dst : r.dst+r.n]
		ptr := rowptr[r.src : r.src+r.n+1]
		for i := range tt {
			lo, hi := ptr[i], ptr[i+1]
			cols, vals := colidx[lo:hi], values[lo:hi]
			vals = vals[:len(cols)]
			s := beta0
			for k, c := range cols {
				s += vals[k] * beta[c]
			}
			tt[i] = s
		}
	}
}

// MulTransVec sets g = X^T r for a vector r over the instances (dataset
// order). If len(g) == NumFeatures()+1 it also sets g[NumFeatures()] = sum(r),
// so g = [X 1]^T r, the gradient of a linear model with bias. It panics on a nil or
// zero Dataset, or if len(r) != NumInstances() or len(g) is neither
// NumFeatures() nor NumFeatures()+1. g must not overlap r.
func (d *Dataset) MulTransVec(g, r []float64) {
	if !d.usable() {
		panic("mil.Dataset.MulTransVec: nil or zero Dataset")
	}
	cols := d.m.cols
	if len(r) != d.NumInstances() || (len(g) != cols && len(g) != cols+1) {
		panic("mil.Dataset.MulTransVec: dimension mismatch")
	}
	if len(g) == cols+1 {
		s := 0.0
		for _, v := range r {
			s += v
		}
		g[cols] = s
		g = g[:cols]
	}
	switch {
	case d.IsSparse():
		d.mulTransVecSparse(g, r)
	case len(d.runs) == 1:
		rn := d.runs[0]
		vec.MulTransVec(g, d.m.dense[rn.src*cols:(rn.src+rn.n)*cols], rn.n, cols, r)
	default:
		// vec.MulTransVec overwrites its output, so a subset accumulates one
		// row at a time (which is what vec.MulTransVec does internally).
		clear(g)
		for _, rn := range d.runs {
			x := d.m.dense[rn.src*cols : (rn.src+rn.n)*cols]
			for i, ri := range r[rn.dst : rn.dst+rn.n] {
				vec.Axpy(ri, x[i*cols:(i+1)*cols], g)
			}
		}
	}
}

func (d *Dataset) mulTransVecSparse(g, r []float64) {
	rowptr, colidx, values := d.m.rowptr, d.m.colidx, d.m.values
	clear(g)
	for _, rn := range d.runs {
		ptr := rowptr[rn.src : rn.src+rn.n+1]
		for i, ri := range r[rn.dst : rn.dst+rn.n] {
			lo, hi := ptr[i], ptr[i+1]
			cols, vals := colidx[lo:hi], values[lo:hi]
			vals = vals[:len(cols)]
			for k, c := range cols {
				g[c] += vals[k] * ri
			}
		}
	}
}

// Gram sets dst to the (D+1) x (D+1) row-major Gram matrix [X 1]^T [X 1] of
// the instances with a column of ones appended (D = NumFeatures()): dst[j*(D+1)+k]
// = sum_i x_ij x_ik, row and column D hold the column sums, and the corner
// holds NumInstances(). Both triangles are filled (the matrix is exactly
// symmetric). It is the quadratic term of the lasso in (beta, beta0) that a
// learner can precompute once per fit. Cost: O(NumInstances*D^2) dense,
// O(sum of squared row non-zeros) sparse. It panics on a nil or
// zero Dataset, or if len(dst) != (D+1)*(D+1).
func (d *Dataset) Gram(dst []float64) {
	if !d.usable() {
		panic("mil.Dataset.Gram: nil or zero Dataset")
	}
	if len(dst) != (d.m.cols+1)*(d.m.cols+1) {
		panic("mil.Dataset.Gram: len(dst) != (NumFeatures()+1)^2")
	}
	_ = d.gram(context.Background(), dst)
}

// gramCheckCells is how many multiply-adds gram does between checks of its
// context: about 0.1 ms of work.
const gramCheckCells = 1 << 18

// gram is Gram with a check of ctx every gramCheckCells multiply-adds or
// so; it returns ctx's error (dst then holds a partial sum).
func (d *Dataset) gram(ctx context.Context, dst []float64) error {
	cols := d.m.cols
	d1 := cols + 1
	clear(dst)
	gc := gramChecker{ctx: ctx}
	// Accumulate the upper triangle, then mirror it.
	for _, rn := range d.runs {
		if d.IsSparse() {
			m := d.m
			for i := rn.src; i < rn.src+rn.n; i++ {
				lo, hi := m.rowptr[i], m.rowptr[i+1]
				gramAddSparseRow(dst, d1, m.colidx[lo:hi], m.values[lo:hi])
				if err := gc.check((hi-lo)*(hi-lo)/2 + 1); err != nil {
					return err
				}
			}
			continue
		}
		x := d.m.dense[rn.src*cols : (rn.src+rn.n)*cols]
		for i := range rn.n {
			gramAddDenseRow(dst, d1, x[i*cols:(i+1)*cols])
			if err := gc.check(cols*cols/2 + 1); err != nil {
				return err
			}
		}
	}
	dst[d1*d1-1] = float64(d.NumInstances())
	mirrorUpper(dst, d1)
	return nil
}

// gramChecker checks a context every gramCheckCells units of work.
type gramChecker struct {
	ctx  context.Context
	work int
}

func (c *gramChecker) check(n int) error {
	if c.work += n; c.work < gramCheckCells {
		return nil
	}
	c.work = 0
	return c.ctx.Err()
}

// gramAddDenseRow adds the upper triangle of [x 1]^T [x 1] (without the
// corner) to the d1 x d1 matrix dst, x of length d1-1.
func gramAddDenseRow(dst []float64, d1 int, row []float64) {
	cols := d1 - 1
	for j, xj := range row {
		if xj == 0 { // an exact skip: features are finite
			continue
		}
		g := dst[j*d1 : j*d1+d1]
		vec.Axpy(xj, row[j:], g[j:cols])
		g[cols] += xj
	}
}

// gramAddSparseRow is gramAddDenseRow for a sparse row (columns cols,
// strictly increasing, and values vals).
func gramAddSparseRow(dst []float64, d1 int, cols []int32, vals []float64) {
	vals = vals[:len(cols)]
	for p, cp := range cols {
		vp := vals[p]
		g := dst[int(cp)*d1 : int(cp)*d1+d1]
		for q := p; q < len(cols); q++ {
			g[cols[q]] += vp * vals[q]
		}
		g[d1-1] += vp
	}
}

// mirrorUpper copies the upper triangle of the d1 x d1 matrix dst to its
// lower triangle.
func mirrorUpper(dst []float64, d1 int) {
	for j := range d1 {
		for k := j + 1; k < d1; k++ {
			dst[k*d1+j] = dst[j*d1+k]
		}
	}
}
