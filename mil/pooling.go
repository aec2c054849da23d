package mil

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/neadmm/neadmm/internal/num"
	"github.com/neadmm/neadmm/neadmm"
)

// PoolKind selects how a bag's score is pooled from its instances' scores.
type PoolKind int

const (
	// PoolMax (the zero value, the paper's max rule) scores a bag by its
	// highest-scoring instance.
	PoolMax PoolKind = iota
	// PoolMean scores a bag by the mean of its instance scores.
	PoolMean
	// PoolTopK scores a bag by the mean of its Pooling.K highest instance
	// scores (all of them in bags of fewer instances).
	PoolTopK
	// PoolTopFrac scores a bag of n instances by the mean of its
	// ceil(Pooling.Frac*n) highest instance scores.
	PoolTopFrac
	// PoolFeatureMax scores a bag by its features' maxima over its
	// instances, (max_j x_ij1, ..., max_j x_ijD) . beta + beta0: a bag is
	// as positive as the features present somewhere in it, each from
	// whichever instance holds it. It is not a pooling of instance
	// scores (see FeatureMaxPooling).
	PoolFeatureMax
	// PoolFeatureMeanMax scores a bag by its features' means and maxima
	// over its instances, (mean_j x_ij) . a + (max_j x_ij) . b + beta0:
	// the mean pooling and the feature-wise max in one linear model (see
	// FeatureMeanMaxPooling). It is not a pooling of instance scores.
	PoolFeatureMeanMax
)

// Pooling is the rule q_i = P(t_i) that turns the instance scores t_i of bag
// i into its score: the max (the paper), the mean of the k largest, the
// mean of the largest fraction, or the mean. Every one keeps the t-update
// of neADMM exact and globally optimal (neadmm.MaxProx, neadmm.TopKProx,
// neadmm.MeanProx), and the fitted Model scores bags with the same rule.
// The zero value is the max.
type Pooling struct {
	Kind PoolKind
	// K >= 1 is the number of instances PoolTopK averages.
	K int
	// Frac in (0, 1] is the share of a bag's instances PoolTopFrac
	// averages (at least one).
	Frac float64
}

// MaxPooling returns the paper's max rule (the zero Pooling).
func MaxPooling() Pooling { return Pooling{} }

// MeanPooling returns the mean of a bag's instance scores. Fit solves it
// on the bags' mean features, where it is L1 logistic regression (see
// docs/mil.md; ScaleAuto then standardizes the bag means).
func MeanPooling() Pooling { return Pooling{Kind: PoolMean} }

// FeatureMaxPooling returns the feature-wise max: a bag is represented by
// the maximum of each feature over its instances and scored linearly, as
// L1 logistic regression on those bag vectors, which is how Fit solves it
// (one row per bag, as for MeanPooling; ScaleAuto standardizes the rows
// over the bags). It fits labels that depend on several features present
// in different instances of a bag, which no pooling of instance scores can
// express (see docs/mil-options.md for a measured case). Its bag score is not a function of the instance scores
// x_ij . beta + beta0: the model's instance scores and witnesses keep
// their definitions (the linear scores and the highest of them) but do not
// explain the bag score.
func FeatureMaxPooling() Pooling { return Pooling{Kind: PoolFeatureMax} }

// FeatureMeanMaxPooling returns the feature-wise mean and max together: a
// bag is represented by the mean and the maximum of each feature over its
// instances, 2D values, and scored linearly, as L1 logistic regression on
// those bag vectors, which is how Fit solves it (one row per bag, as for
// MeanPooling; ScaleAuto standardizes the 2D columns over the bags). It
// holds MeanPooling's and FeatureMaxPooling's models as special cases (b
// = 0, a = 0), so it fits labels that follow a bag's average, the
// features present somewhere in it, or both. The model keeps one
// coefficient vector per part (Model.BagCoefficients); its instance
// scores are x . (a + b) + beta0, the score of a bag holding that
// instance alone, and its witnesses the instances scoring highest so:
// they rank the instances but do not make up the bag score.
func FeatureMeanMaxPooling() Pooling { return Pooling{Kind: PoolFeatureMeanMax} }

// TopKPooling returns the mean of a bag's k highest instance scores.
func TopKPooling(k int) Pooling { return Pooling{Kind: PoolTopK, K: k} }

// TopFracPooling returns the mean of the highest ceil(frac*n) of a bag's n
// instance scores.
func TopFracPooling(frac float64) Pooling { return Pooling{Kind: PoolTopFrac, Frac: frac} }

// String returns "max", "mean", "top3", "top25%", "featmax" or "meanmax".
func (p Pooling) String() string {
	switch p.Kind {
	case PoolMax:
		return "max"
	case PoolMean:
		return "mean"
	case PoolTopK:
		return "top" + strconv.Itoa(p.K)
	case PoolTopFrac:
		return "top" + strconv.FormatFloat(100*p.Frac, 'g', 4, 64) + "%"
	case PoolFeatureMax:
		return "featmax"
	case PoolFeatureMeanMax:
		return "meanmax"
	}
	return fmt.Sprintf("Pooling(%d)", int(p.Kind))
}

// Validate reports an unknown Kind or a K or Frac out of range, as an
// error wrapping ErrBadInput.
func (p Pooling) Validate() error {
	switch p.Kind {
	case PoolMax, PoolMean, PoolFeatureMax, PoolFeatureMeanMax:
		return nil
	case PoolTopK:
		if p.K < 1 {
			return fmt.Errorf("%w: Options.Pooling.K = %d, want >= 1", ErrBadInput, p.K)
		}
		return nil
	case PoolTopFrac:
		if !(p.Frac > 0 && p.Frac <= 1) || !num.Finite(p.Frac) {
			return fmt.Errorf("%w: Options.Pooling.Frac = %g, want in (0, 1]", ErrBadInput, p.Frac)
		}
		return nil
	}
	return fmt.Errorf("%w: Options.Pooling.Kind = %d, unknown", ErrBadInput, int(p.Kind))
}

// bagLevel reports whether Fit solves p on one row of bag features per bag
// (the bag means, maxima, or both) rather than on the instances.
func (p Pooling) bagLevel() bool {
	return p.Kind == PoolMean || p.Kind == PoolFeatureMax || p.Kind == PoolFeatureMeanMax
}

// width returns how many columns per feature the rows Fit solves p on
// have: 2 for the feature-wise mean and max, else 1.
func (p Pooling) width() int {
	if p.Kind == PoolFeatureMeanMax {
		return 2
	}
	return 1
}

// k returns how many of a bag's n >= 1 instances the pooling averages.
func (p Pooling) k(n int) int {
	switch p.Kind {
	case PoolMean:
		return n
	case PoolTopK:
		return min(p.K, n)
	case PoolTopFrac:
		// ceil(Frac*n), with products a rounding above an integer (0.28*25
		// = 7.000000000000001) taken as that integer.
		f := p.Frac * float64(n)
		k := int(math.Ceil(f * (1 - 0x1p-50)))
		return min(max(k, 1), n)
	}
	return 1
}

// prox runs the t-update of one bag: t = argmin (b - P(t))^2 + ||t - phi||^2.
func (p Pooling) prox(t, phi []float64, b float64) {
	switch k := p.k(len(phi)); {
	case k == 1:
		neadmm.MaxProx(t, phi, b)
	case k == len(phi):
		neadmm.MeanProx(t, phi, b)
	default:
		neadmm.TopKProx(t, phi, b, k)
	}
}

// poolValue returns P(x) for a bag's scores x (non-empty): the mean of the
// k largest, summed in index order as sum of the x_j above the k-th
// largest value v plus v times the rest, so that every caller gets the
// same bits whether it finds v by sorting (scratch, len >= len(x)) or, with
// scratch == nil, by a bisection that needs no memory. A NaN in x gives NaN.
func poolValue(x []float64, k int, scratch []float64) float64 {
	n := len(x)
	if k == 1 {
		m := x[0]
		for _, v := range x[1:] {
			if v > m || v != v {
				m = v
			}
		}
		return m
	}
	if k == n {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(n)
	}
	var v float64
	if scratch != nil {
		s := scratch[:n]
		copy(s, x)
		slices.Sort(s) // NaNs first
		if s[0] != s[0] {
			return math.NaN()
		}
		v = s[n-k]
	} else {
		var ok bool
		if v, ok = kthLargest(x, k); !ok {
			return math.NaN()
		}
	}
	sum, above := 0.0, 0
	for _, y := range x {
		if y > v {
			sum += y
			above++
		}
	}
	sum += float64(k-above) * v
	return sum / float64(k)
}

// kthLargest returns the k-th largest of x (1 <= k <= len(x)) without
// scratch memory: a bisection over the 64-bit keys that order float64
// values (64 counting passes), or ok = false if x holds a NaN.
func kthLargest(x []float64, k int) (v float64, ok bool) {
	key := func(f float64) uint64 {
		b := math.Float64bits(f)
		if b>>63 == 1 {
			return ^b
		}
		return b | 1<<63
	}
	for _, y := range x {
		if y != y {
			return 0, false
		}
	}
	// Largest K with #{key(x_j) >= K} >= k: that K is key(v).
	var lo, hi uint64 = 0, math.MaxUint64 // invariant: count(lo) >= k
	for lo < hi {
		mid := lo + (hi-lo)/2 + 1
		c := 0
		for _, y := range x {
			if key(y) >= mid {
				c++
			}
		}
		if c >= k {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for _, y := range x {
		if key(y) == lo {
			return y, true
		}
	}
	return 0, false // unreachable: lo is the key of an element
}
