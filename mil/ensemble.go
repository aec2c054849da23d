package mil

import (
	"fmt"
	"slices"
)

// Ensemble returns the model whose bag score is the mean of the parts' bag
// scores (each P_p(x_j . beta_p + beta0_p) with its own pooling P_p): an
// average of log-odds, so its probability is the normalized geometric mean
// of the parts' odds and its threshold 0 keeps its meaning. FitCV returns
// one when an ensemble of two or three settings scores best in its
// cross-validation.
//
// The parts must be non-nil, expect the same number of features, and not
// be ensembles themselves. The ensemble shares them (a Model is immutable).
// Its methods behave as a single model's with these differences: the
// instance scores, Coefficients and witnesses are those of the mean of the
// parts' coefficients (the mean of the parts' instance scores, since those
// are linear); Options, Pooling and Result are those of the first part;
// Parts lists the parts. Scoring costs one product per part plus one for
// the instance scores, and still allocates nothing.
//
// It returns an error wrapping ErrBadInput for no parts, a nil part, a
// part that is itself an ensemble, or parts of different widths.
func Ensemble(parts ...*Model) (*Model, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: Ensemble: no parts", ErrBadInput)
	}
	nf := -1
	for i, p := range parts {
		switch {
		case p == nil:
			return nil, fmt.Errorf("%w: Ensemble: part %d is nil", ErrBadInput, i)
		case len(p.parts) > 0:
			return nil, fmt.Errorf("%w: Ensemble: part %d is an ensemble", ErrBadInput, i)
		case nf >= 0 && len(p.beta) != nf:
			return nil, fmt.Errorf("%w: Ensemble: part %d has %d features, part 0 %d", ErrBadInput, i, len(p.beta), nf)
		}
		nf = len(p.beta)
	}
	w := slices.Repeat([]float64{1 / float64(len(parts))}, len(parts))
	return newEnsemble(append([]*Model(nil), parts...), w), nil
}

// newEnsemble returns the ensemble of the checked parts (of the same
// width, none an ensemble) with the weights w (len(parts)), which it
// keeps: its coefficients are the weighted mean of the parts', its
// Options and Result the first part's, NonZero counted on the mean.
// Ensemble and the model reader both build ensembles here, so a loaded
// ensemble's derived state has the same bits as the saved one's.
func newEnsemble(parts []*Model, w []float64) *Model {
	m := &Model{beta: make([]float64, len(parts[0].beta)), res: parts[0].res, opt: parts[0].opt,
		parts: parts, weights: w}
	m.res.NonZero = 0
	for i, p := range parts {
		for j, b := range p.beta {
			m.beta[j] += w[i] * b
		}
		m.beta0 += w[i] * p.beta0
	}
	for _, b := range m.beta {
		if b != 0 {
			m.res.NonZero++
		}
	}
	return m
}

// Parts returns the parts of an ensemble (see Ensemble), nil for a single
// model.
func (m *Model) Parts() []*Model {
	if m == nil || len(m.parts) == 0 {
		return nil
	}
	return append([]*Model(nil), m.parts...)
}

// Weights returns the weight of each part in an ensemble's bag score (the
// score is sum_p Weights()[p] q_p), nil for a single model.
func (m *Model) Weights() []float64 {
	if m == nil || len(m.parts) == 0 {
		return nil
	}
	return append([]float64(nil), m.weights...)
}

// ensembleScores sets acc[k] (len NumBags) to the ensemble's score of bag
// k, using inst for each part's instance scores.
func (m *Model) ensembleScores(acc, inst []float64, d *Dataset) {
	clear(acc)
	ptr := d.BagPtr()
	var fm *featMaxScratch
	if d.IsSparse() {
		fm = featMaxPool.Get().(*featMaxScratch)
		defer featMaxPool.Put(fm)
	}
	for i, p := range m.parts {
		d.MulVec(inst, p.beta, p.beta0)
		for k := range acc {
			a, b := ptr[k], ptr[k+1]
			acc[k] += m.weights[i] * p.poolBag(inst, d, k, a, b, fm)
		}
	}
}
