package mil

import (
	"context"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/internal/num"
)

// Scaler standardizes features: x'_j = (x_j - Mean[j]) / Scale[j]. Fit it on
// the training bags only (FitScaler) and Apply it to every dataset the model
// sees, so test data never informs the scaling.
type Scaler struct {
	Mean  []float64 // subtracted; all 0 for sparse data (no centering)
	Scale []float64 // divided by; 1 for columns constant on the training data
}

// ctxEvery is the work (values visited) between two checks of a context
// in the scaler's passes: about 50 microseconds, so cancel-to-return stays
// far below a millisecond while the check costs nothing measurable.
const ctxEvery = 1 << 16

// ticker checks a context after every ctxEvery units of work.
type ticker struct {
	ctx  context.Context
	left int
}

func (t *ticker) tick(work int) error {
	if t.left -= work; t.left > 0 {
		return nil
	}
	t.left = ctxEvery
	return t.ctx.Err()
}

// FitScaler returns the Scaler fitted on the instances of train (every
// instance weighs the same, whatever its bag): Scale[j] is the population
// standard deviation of column j, and for dense storage Mean[j] its mean.
// Sparse storage is scaled without centering (Mean all 0) so it stays
// sparse; the standard deviation is still taken around the mean, as
// scikit-learn's StandardScaler(with_mean=false) does. Columns constant on
// train (every value equal) are left alone: Mean 0, Scale 1.
//
// The statistics of each column are computed on its values scaled by the
// power of two that brings its largest magnitude into [0.5, 1) (as
// vec.Nrm2 does), so no square overflows or underflows: a column of values
// near 1e-300 or 1e300 gets the same standardized values as the same
// column near 1, bit for bit. train's values are finite (a Dataset
// invariant), so the result is finite with Scale > 0.
//
// It returns an error wrapping ErrBadInput for a nil ctx or train, or for
// a non-constant column whose standard deviation underflows to 0 (only
// possible when all its values are below about 1e-298 in magnitude), and ctx's error (wrapped)
// when ctx ends first; it checks ctx every 65536 values. Its vectors over
// the features (57 bytes per feature) are checked
// against DefaultMaxBytes, as Fit checks its own, before they are
// allocated: more features than that (only possible for a dataset built
// with LoadOptions.MaxFeatures raised) is an error also wrapping
// ErrTooLarge.
func FitScaler(ctx context.Context, train *Dataset) (*Scaler, error) {
	if ctx == nil {
		return nil, badInput("FitScaler: nil context")
	}
	if err := train.checkUsable("FitScaler"); err != nil {
		return nil, err
	}
	if need := scalerBytes * float64(train.NumFeatures()); need > DefaultMaxBytes {
		return nil, tooLarge("FitScaler: %d features need about %.3g bytes of column statistics, above DefaultMaxBytes = %d",
			train.NumFeatures(), need, int64(DefaultMaxBytes))
	}
	st, err := fitColumns(ctx, train)
	if err != nil {
		return nil, err
	}
	s := &Scaler{Mean: st.mean, Scale: st.sd}
	for j := range s.Scale {
		if st.constant[j] {
			s.Mean[j], s.Scale[j] = 0, 1
		}
		if train.IsSparse() {
			s.Mean[j] = 0
		}
	}
	return s, nil
}

// scalerBytes bounds what fitColumns allocates per feature: seven vectors
// of 8 bytes (the ranges, the counts, the factors, the moments) and a
// flag.
const scalerBytes = 7*8 + 1

// colStats are the statistics of the columns of a training set: the
// mean and population standard deviation of each (both unscaled; sd > 0
// unless constant), and whether it is constant (every value equal; its
// mean is then the value and its sd 0).
type colStats struct {
	mean, sd []float64
	constant []bool
	// amax is the largest magnitude of each column (0 for a column of
	// zeros).
	amax []float64
}

// fitColumns computes the column statistics of train (checked usable by
// the caller) for FitScaler and Fit's scaling, as FitScaler documents:
// on the values scaled by a power of two per column, checking ctx every
// ctxEvery values. Its errors are FitScaler's (the sparse means included:
// the caller decides whether to center).
func fitColumns(ctx context.Context, train *Dataset) (*colStats, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mil: FitScaler: %w", err)
	}
	cols, n := train.NumFeatures(), train.NumInstances()
	tk := ticker{ctx: ctx, left: ctxEvery}

	// Pass 1: the range of each column.
	lo, hi, nz, err := columnRanges(train, &tk)
	if err != nil {
		return nil, fmt.Errorf("mil: FitScaler: %w", err)
	}
	f := make([]float64, cols) // per column: the power of two scaling it
	for j := range f {
		f[j] = scaleFactor(max(-lo[j], hi[j]))
	}

	// Passes 2 and 3: mean, then the sum of squared deviations, of the
	// scaled values.
	mean, ss, err := scaledMoments(train, &tk, f, nz)
	if err != nil {
		return nil, fmt.Errorf("mil: FitScaler: %w", err)
	}

	st := &colStats{mean: mean, sd: ss, constant: make([]bool, cols), amax: lo}
	for j := range ss {
		sd := unscale(math.Sqrt(ss[j]/float64(n)), f[j])
		mu := unscale(mean[j], f[j])
		amax := max(-lo[j], hi[j])
		switch {
		case lo[j] == hi[j]:
			st.constant[j] = true
			mu, sd = lo[j], 0
		case !(sd > 0):
			// Two distinct values differ by at least 2^-54 of the largest
			// magnitude once scaled, so the scaled deviation is at least
			// 2^-86 for any n below 2^64: only a column whose values are
			// all below about 2^-989 (1e-298) can underflow here.
			return nil, badInput("FitScaler: column %d (values %g to %g) has a standard deviation below the smallest float64", j, lo[j], hi[j])
		}
		st.mean[j], st.sd[j], st.amax[j] = mu, sd, amax
	}
	return st, nil
}

// columnRanges returns the smallest and largest value of each column of d,
// the implicit zeros of sparse storage included, and for sparse storage
// how many entries each column stores (nz, nil for dense), ticking tk; it
// returns tk's error.
func columnRanges(d *Dataset, tk *ticker) (lo, hi []float64, nz []int, err error) {
	cols, n := d.NumFeatures(), d.NumInstances()
	lo, hi = make([]float64, cols), make([]float64, cols)
	if d.IsSparse() {
		nz = make([]int, cols)
		for j := range lo {
			lo[j], hi[j] = math.Inf(1), math.Inf(-1)
		}
		err = d.eachSparseRow(tk, func(c []int32, v []float64) {
			for p, j := range c {
				nz[j]++
				lo[j], hi[j] = min(lo[j], v[p]), max(hi[j], v[p])
			}
		})
		for j := range lo {
			if nz[j] < n { // the column also holds implicit zeros
				lo[j], hi[j] = min(lo[j], 0), max(hi[j], 0)
			}
		}
		return lo, hi, nz, err
	}
	src := d.runs[0].src
	copy(lo, d.m.dense[src*cols:(src+1)*cols])
	copy(hi, lo)
	err = d.eachDenseRow(tk, func(x []float64) {
		for j, v := range x {
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	})
	return lo, hi, nil, err
}

// scaledMoments returns the mean of each column of d with its values
// multiplied by f[j], and the sum of the squared deviations from it (over
// every row: the nz[j] stored entries of a sparse column and its implicit
// zeros), in two passes ticking tk; it returns tk's error.
func scaledMoments(d *Dataset, tk *ticker, f []float64, nz []int) (mean, ss []float64, err error) {
	cols, n := d.NumFeatures(), d.NumInstances()
	mean, ss = make([]float64, cols), make([]float64, cols)
	if d.IsSparse() {
		err = d.eachSparseRow(tk, func(c []int32, v []float64) {
			for p, j := range c {
				mean[j] += v[p] * f[j]
			}
		})
		for j := range mean {
			mean[j] /= float64(n)
		}
		if err == nil {
			err = d.eachSparseRow(tk, func(c []int32, v []float64) {
				for p, j := range c {
					dv := v[p]*f[j] - mean[j]
					ss[j] += dv * dv
				}
			})
		}
		for j := range ss {
			ss[j] += float64(n-nz[j]) * mean[j] * mean[j]
		}
		return mean, ss, err
	}
	err = d.eachDenseRow(tk, func(x []float64) {
		for j, v := range x {
			mean[j] += v * f[j]
		}
	})
	for j := range mean {
		mean[j] /= float64(n)
	}
	if err == nil {
		err = d.eachDenseRow(tk, func(x []float64) {
			for j, v := range x {
				dv := v*f[j] - mean[j]
				ss[j] += dv * dv
			}
		})
	}
	return mean, ss, err
}

// scaleFactor returns the power of two 2^k that brings amax (finite,
// >= 0) into [0.5, 1), or to at least 2^-74 when amax is subnormal (2^1074
// overflows), and 1 for amax = 0. Multiplying by it is exact wherever the
// product is normal.
func scaleFactor(amax float64) float64 {
	if amax == 0 {
		return 1
	}
	_, e := math.Frexp(amax) // amax = m*2^e, m in [0.5, 1)
	return math.Ldexp(1, min(-e, 1000))
}

// unscale returns v/f, a statistic of values scaled by f brought back,
// clamped to ±MaxFloat64: a mean or standard deviation of values below
// 2^1024 in magnitude can round up to it only by the last ulp.
func unscale(v, f float64) float64 {
	u := v / f
	if math.IsInf(u, 0) {
		return math.Copysign(math.MaxFloat64, u)
	}
	return u
}

// eachDenseRow calls visit with every row of d (dense storage) in order,
// ticking tk; it returns tk's error.
func (d *Dataset) eachDenseRow(tk *ticker, visit func(x []float64)) error {
	cols := d.m.cols
	for _, r := range d.runs {
		for i := r.src; i < r.src+r.n; i++ {
			visit(d.m.dense[i*cols : (i+1)*cols])
			if err := tk.tick(cols + 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// eachSparseRow calls visit with the stored columns and values of every
// row of d (sparse storage) in order, ticking tk; it returns tk's error.
func (d *Dataset) eachSparseRow(tk *ticker, visit func(c []int32, v []float64)) error {
	m := d.m
	for _, r := range d.runs {
		for i := r.src; i < r.src+r.n; i++ {
			lo, hi := m.rowptr[i], m.rowptr[i+1]
			visit(m.colidx[lo:hi], m.values[lo:hi])
			if err := tk.tick(hi - lo + 1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Scaler) check(cols int, fn string) error {
	if s == nil {
		return badInput("Scaler.%s: nil scaler", fn)
	}
	if len(s.Mean) != cols || len(s.Scale) != cols {
		return badInput("Scaler.%s: scaler has %d/%d columns, data %d", fn, len(s.Mean), len(s.Scale), cols)
	}
	for j := range s.Scale {
		if !num.Finite(s.Mean[j]) || !num.Finite(s.Scale[j]) || s.Scale[j] == 0 {
			return badInput("Scaler.%s: column %d has mean %v, scale %v", fn, j, s.Mean[j], s.Scale[j])
		}
	}
	return nil
}

// Apply returns a standardized copy of d (materialized, in d's storage
// kind; d is not modified). A value whose difference from the mean
// overflows (both near ±MaxFloat64) is computed as x/Scale - Mean/Scale.
//
// It returns an error wrapping ErrBadInput if s, d or ctx is nil, the
// scaler's length differs from d.NumFeatures(), a Mean or Scale is not
// finite or a Scale is 0, a scaled value overflows (a value far outside
// the training range), or d is sparse and a Mean is non-zero (centering
// would make it dense: Convert(Dense) first); and ctx's error (wrapped)
// when ctx ends first.
func (s *Scaler) Apply(ctx context.Context, d *Dataset) (*Dataset, error) {
	if ctx == nil {
		return nil, badInput("Scaler.Apply: nil context")
	}
	if err := d.checkUsable("Scaler.Apply"); err != nil {
		return nil, err
	}
	cols := d.NumFeatures()
	if err := s.check(cols, "Apply"); err != nil {
		return nil, err
	}
	if d.IsSparse() {
		for _, mu := range s.Mean {
			if mu != 0 {
				return nil, badInput("Scaler.Apply: centering sparse data would make it dense; convert it with Convert(Dense) first")
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mil: Scaler.Apply: %w", err)
	}
	tk := ticker{ctx: ctx, left: ctxEvery}
	out, err := d.copyAsTicking(d.storageKind(), &tk) // a fresh copy: scaled in place below
	if err != nil {
		return nil, fmt.Errorf("mil: Scaler.Apply: %w", err)
	}
	if out.IsSparse() {
		err = out.eachSparseRow(&tk, func(c []int32, v []float64) {
			for p, j := range c {
				v[p] /= s.Scale[j]
			}
		})
	} else {
		err = out.eachDenseRow(&tk, func(x []float64) {
			for j, v := range x {
				y := (v - s.Mean[j]) / s.Scale[j]
				if math.IsInf(y, 0) {
					y = v/s.Scale[j] - s.Mean[j]/s.Scale[j]
				}
				x[j] = y
			}
		})
	}
	if err != nil {
		return nil, fmt.Errorf("mil: Scaler.Apply: %w", err)
	}
	vals := out.m.values
	if !out.IsSparse() {
		vals = out.m.dense
	}
	for p, v := range vals {
		if !num.Finite(v) {
			i, j := p/cols, p%cols
			if out.IsSparse() {
				i, j = rowOf(out.m.rowptr, p), int(out.m.colidx[p])
			}
			return nil, badInput("Scaler.Apply: instance %d feature %d scaled by %g overflows", i, j, s.Scale[j])
		}
	}
	return out, nil
}

// rowOf returns the row of CSR entry p.
func rowOf(rowptr []int, p int) int {
	i := 0
	for rowptr[i+1] <= p {
		i++
	}
	return i
}

// ToRaw maps the coefficients (beta, beta0) of a linear model on
// standardized features to the same model on raw features:
// dst[j] = beta[j]/Scale[j] and the returned bias is
// beta0 - sum_j Mean[j]*dst[j], so x'.beta + beta0 == x.dst + bias. dst may
// be beta. It returns an error wrapping ErrBadInput, leaving dst
// unchanged, if s is nil or a length differs from the scaler's.
func (s *Scaler) ToRaw(dst, beta []float64, beta0 float64) (float64, error) {
	if err := s.checkLengths(dst, beta, "ToRaw"); err != nil {
		return 0, err
	}
	for j, b := range beta {
		dst[j] = b / s.Scale[j]
		beta0 -= s.Mean[j] * dst[j]
	}
	return beta0, nil
}

// FromRaw is the inverse of ToRaw: it maps raw-feature coefficients to
// standardized ones, dst[j] = beta[j]*Scale[j], returning the bias
// beta0 + sum_j Mean[j]*beta[j] (a warm start from a raw model). dst may be
// beta. Its errors are ToRaw's.
func (s *Scaler) FromRaw(dst, beta []float64, beta0 float64) (float64, error) {
	if err := s.checkLengths(dst, beta, "FromRaw"); err != nil {
		return 0, err
	}
	for j, b := range beta {
		beta0 += s.Mean[j] * b
		dst[j] = b * s.Scale[j]
	}
	return beta0, nil
}

func (s *Scaler) checkLengths(dst, beta []float64, fn string) error {
	if s == nil {
		return badInput("Scaler.%s: nil scaler", fn)
	}
	if len(dst) != len(s.Scale) || len(beta) != len(s.Scale) || len(s.Mean) != len(s.Scale) {
		return badInput("Scaler.%s: len(dst) = %d, len(beta) = %d, scaler %d/%d columns", fn, len(dst), len(beta), len(s.Mean), len(s.Scale))
	}
	return nil
}
