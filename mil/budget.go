package mil

import "fmt"

// Fit's memory accounting: estimates of what a fit allocates, in bytes,
// checked against Options.MaxBytes before the allocation they bound (see
// checkFit, summarize, prepared.standardize and prepared.oneBlock) and
// reported as FitResult.Bytes.

// checkBytes returns the error for an estimate need above opt.MaxBytes.
func checkBytes(d *Dataset, opt *Options, need float64) error {
	if need > float64(opt.MaxBytes) {
		return fmt.Errorf("%w: %w: Fit: %d bags, %d instances, %d features need about %.3g bytes (Gram matrix, work vectors%s); Options.MaxBytes = %d (raise it to allow this)",
			ErrBadInput, ErrTooLarge, d.NumBags(), d.NumInstances(), d.NumFeatures(), need, map[bool]string{true: ", a copy of the features"}[need > fitBytes(d, opt)], opt.MaxBytes)
	}
	return nil
}

// checkBytes is checkBytes recording need in pr.checked.
func (pr *prepared) checkBytes(d *Dataset, opt *Options, need float64) error {
	pr.checked = max(pr.checked, need)
	return checkBytes(d, opt, need)
}

// fitBytes estimates what Fit allocates for d (in float64, which cannot
// overflow for any dataset size), scaling folded into the products (no
// copy of the features): the Gram matrix when the beta-update may use it,
// the column statistics, the view's and FISTA's vectors over the features,
// and the vectors over the instances and bags. A fit that copies the
// features (see prepare) adds copyBytes, checked once it knows.
func fitBytes(d *Dataset, opt *Options) float64 {
	return solverBytes(d, opt, d.NumFeatures())
}

// wideBytes is what a fit of d under opt needs beyond fitBytes(d) when
// its pooling solves on rows wider than d's (FeatureMeanMaxPooling: 2D
// columns, with their Gram matrix and vectors), 0 otherwise.
func wideBytes(d *Dataset, opt *Options) float64 {
	nf := d.NumFeatures()
	if w := opt.Pooling.width(); w > 1 {
		return solverBytes(d, opt, w*nf) - solverBytes(d, opt, nf)
	}
	return 0
}

// solverBytes is fitBytes with nf features.
func solverBytes(d *Dataset, opt *Options, features int) float64 {
	ni, nb, nf := float64(d.NumInstances()), float64(d.NumBags()), float64(features)
	gram := 0.0
	if d1 := nf + 1; opt.Beta == BetaGram || (opt.Beta == BetaAuto && d1 <= gramMaxDim) {
		gram = d1 * d1 * 8
	}
	return gram + 8*(32*(nf+1)+12*ni+10*nb)
}

// copyBytes estimates a copy of d's features (standardized, or in one
// block).
func copyBytes(d *Dataset) float64 {
	if d.IsSparse() {
		return float64(d.NNZ())*12 + float64(d.NumInstances()+1)*8
	}
	return float64(d.NumInstances()) * float64(d.NumFeatures()) * 8
}

// bytes returns Fit's estimate of what it allocated for pr (see fitBytes).
func (pr *prepared) bytes(d *Dataset, opt *Options) float64 {
	b := fitBytes(d, opt) + wideBytes(d, opt)
	if pr.means != nil {
		b += copyBytes(pr.means)
		d = pr.means
	}
	if pr.x.d != d {
		b += copyBytes(d)
	}
	return b
}

// cvTableBytes estimates FitCV's tables for a search s of np (scaling,
// pooling) pairs on nb bags: per fit (setting and test fold), its AUC,
// deviance, iterations and the header of its scores, and in the Selection
// its fold AUC and deviance; per setting and repeat the test scores of
// every bag; per repeat the test subsets' bookkeeping (about 48 bytes a
// bag).
func cvTableBytes(s *Search, np, nb int) float64 {
	settings := float64(len(s.Lambdas)) * float64(np)
	reps := float64(max(s.Repeats, 1))
	return settings*reps*float64(s.Folds)*(3*8+24+2*8) + settings*reps*float64(nb)*8 + reps*float64(nb)*48
}

// meanBytes bounds the storage of the bag summaries pooling p is solved
// on (bagMeans, bagMaxes, bagMeanMaxes, which holds both and, while it
// builds them, their two parts): one row per bag of D (2D) columns, at
// most d's entries (twice) when sparse.
func meanBytes(d *Dataset, p Pooling) float64 {
	w := float64(p.width())
	if w > 1 {
		w = 2 * w
	}
	if d.IsSparse() {
		return w * (float64(d.NNZ())*12 + float64(d.NumBags()+1)*8)
	}
	return w * float64(d.NumBags()) * float64(d.NumFeatures()) * 8
}
