package mil

import "fmt"

// A dataset built with nil labels (NewDense, NewSparse; NaN labels for a
// Builder) is for scoring only: every Model method takes it, while what
// needs labels refuses it with this error.

// checkLabeled returns fn's error for a dataset without labels (d is
// usable).
func (d *Dataset) checkLabeled(fn string) error {
	if d.labels == nil {
		return badInput("%s: dataset has no labels (it was built without them, to score; %s needs 0/1 labels)", fn, fn)
	}
	return nil
}

// noLabelsError is the metrics' error for scores without labels: it
// matches ErrLengthMismatch, as nil labels did before datasets could be
// unlabeled, and ErrBadInput.
func noLabelsError(n int) error {
	return &inputError{msg: fmt.Sprintf("mil: %d scores and nil labels: the dataset has no labels", n), kinds: noLabelsKinds}
}

var noLabelsKinds = []error{ErrLengthMismatch, ErrBadInput}
