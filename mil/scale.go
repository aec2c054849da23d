package mil

import (
	"errors"
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

// FitScaler returns the Scaler fitted on the instances of train (every
// instance weighs the same, whatever its bag): Scale[j] is the population
// standard deviation of column j, and for dense storage Mean[j] its mean.
// Sparse storage is scaled without centering (Mean all 0) so it stays
// sparse; the standard deviation is still taken around the mean, as
// scikit-learn's StandardScaler(with_mean=false) does. Columns constant on
// train (every value equal) are left alone: Mean 0, Scale 1. train's values
// are finite (a Dataset invariant), so the result is finite with Scale > 0.
func FitScaler(train *Dataset) *Scaler {
	cols, n := train.NumFeatures(), train.NumInstances()
	mean := make([]float64, cols)
	ss := make([]float64, cols)
	lo := make([]float64, cols)
	hi := make([]float64, cols)
	m := train.m
	if train.IsSparse() {
		nz := make([]int, cols) // stored entries per column; the rest are zeros
		each := func(f func(c int32, v float64)) {
			for _, r := range train.runs {
				for p := m.rowptr[r.src]; p < m.rowptr[r.src+r.n]; p++ {
					f(m.colidx[p], m.values[p])
				}
			}
		}
		for j := range lo {
			lo[j], hi[j] = math.Inf(1), math.Inf(-1)
		}
		each(func(c int32, v float64) { mean[c] += v; nz[c]++; lo[c] = min(lo[c], v); hi[c] = max(hi[c], v) })
		for j := range mean {
			mean[j] /= float64(n)
			if nz[j] < n { // the column also holds implicit zeros
				lo[j], hi[j] = min(lo[j], 0), max(hi[j], 0)
			}
		}
		each(func(c int32, v float64) { ss[c] += (v - mean[c]) * (v - mean[c]) })
		for j := range ss {
			ss[j] += float64(n-nz[j]) * mean[j] * mean[j]
		}
	} else {
		row := func(f func(x []float64)) {
			for _, r := range train.runs {
				x := m.dense[r.src*cols : (r.src+r.n)*cols]
				for i := range r.n {
					f(x[i*cols : (i+1)*cols])
				}
			}
		}
		copy(lo, m.dense[train.runs[0].src*cols:])
		copy(hi, lo)
		row(func(x []float64) {
			for j, v := range x {
				mean[j] += v
				lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
			}
		})
		for j := range mean {
			mean[j] /= float64(n)
		}
		row(func(x []float64) {
			for j, v := range x {
				ss[j] += (v - mean[j]) * (v - mean[j])
			}
		})
	}
	s := &Scaler{Mean: mean, Scale: ss}
	for j := range ss {
		sd := math.Sqrt(ss[j] / float64(n))
		if lo[j] == hi[j] || !(sd > 0) {
			mean[j], sd = 0, 1
		}
		if train.IsSparse() {
			mean[j] = 0
		}
		s.Scale[j] = sd
	}
	return s
}

func (s *Scaler) check(cols int, fn string) error {
	if len(s.Mean) != cols || len(s.Scale) != cols {
		return fmt.Errorf("mil: Scaler.%s: scaler has %d/%d columns, data %d", fn, len(s.Mean), len(s.Scale), cols)
	}
	for j := range s.Scale {
		if !num.Finite(s.Mean[j]) || !num.Finite(s.Scale[j]) || s.Scale[j] == 0 {
			return fmt.Errorf("mil: Scaler.%s: column %d has mean %v, scale %v", fn, j, s.Mean[j], s.Scale[j])
		}
	}
	return nil
}

// Apply returns a standardized copy of d (materialized, in d's storage
// kind; d is not modified). It returns an error if the scaler's length
// differs from d.NumFeatures(), a Mean or Scale is not finite or a Scale is
// 0, a scaled value overflows, or d is sparse and a Mean is non-zero
// (centering would make it dense: Convert(Dense) first).
func (s *Scaler) Apply(d *Dataset) (*Dataset, error) {
	cols := d.NumFeatures()
	if err := s.check(cols, "Apply"); err != nil {
		return nil, err
	}
	if d.IsSparse() {
		for _, mu := range s.Mean {
			if mu != 0 {
				return nil, errors.New("mil: Scaler.Apply: centering sparse data would make it dense; convert it with Convert(Dense) first")
			}
		}
	}
	out := d.copyAs(d.storageKind()) // a fresh copy: scaled in place below
	m := out.m
	if out.IsSparse() {
		for p, c := range m.colidx {
			m.values[p] /= s.Scale[c]
		}
	} else {
		for i := range m.rows {
			x := m.dense[i*cols : (i+1)*cols]
			for j := range x {
				x[j] = (x[j] - s.Mean[j]) / s.Scale[j]
			}
		}
	}
	vals := m.values
	if !out.IsSparse() {
		vals = m.dense
	}
	for _, v := range vals {
		if !num.Finite(v) {
			return nil, errors.New("mil: Scaler.Apply: a scaled value overflows")
		}
	}
	return out, nil
}

// ToRaw maps the coefficients (beta, beta0) of a linear model on
// standardized features to the same model on raw features:
// dst[j] = beta[j]/Scale[j] and the returned bias is
// beta0 - sum_j Mean[j]*dst[j], so x'.beta + beta0 == x.dst + bias. dst may
// be beta. It panics if the lengths differ from the scaler's.
func (s *Scaler) ToRaw(dst, beta []float64, beta0 float64) float64 {
	if len(dst) != len(s.Scale) || len(beta) != len(s.Scale) || len(s.Mean) != len(s.Scale) {
		panic("mil.Scaler.ToRaw: length mismatch")
	}
	for j, b := range beta {
		dst[j] = b / s.Scale[j]
		beta0 -= s.Mean[j] * dst[j]
	}
	return beta0
}

// FromRaw is the inverse of ToRaw: it maps raw-feature coefficients to
// standardized ones, dst[j] = beta[j]*Scale[j], returning the bias
// beta0 + sum_j Mean[j]*beta[j] (a warm start from a raw model). dst may be
// beta. It panics if the lengths differ from the scaler's.
func (s *Scaler) FromRaw(dst, beta []float64, beta0 float64) float64 {
	if len(dst) != len(s.Scale) || len(beta) != len(s.Scale) || len(s.Mean) != len(s.Scale) {
		panic("mil.Scaler.FromRaw: length mismatch")
	}
	for j, b := range beta {
		beta0 += s.Mean[j] * b
		dst[j] = b * s.Scale[j]
	}
	return beta0
}
