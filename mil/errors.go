package mil

import (
	"errors"
	"fmt"
)

// Sentinel errors for classes of failure, matched with errors.Is. The
// errors this package returns wrap one of them (or one of the metric
// errors in metrics.go) together with the details: the field, the line of
// a file, the sizes involved.
var (
	// ErrBadInput is wrapped by every error that invalid data, an invalid
	// option or an inconsistent argument causes: a malformed file (see
	// ParseError), an index array that does not describe a matrix, an
	// unknown enumeration value, a nil dataset.
	ErrBadInput = errors.New("mil: bad input")
	// ErrTooLarge is wrapped (together with ErrBadInput) when an input asks
	// for more memory than a documented cap allows; the message names the
	// cap and how to raise it where it can be raised.
	ErrTooLarge = errors.New("mil: input too large")
)

// inputError is an error whose message reads as written ("mil: NewSparse:
// rowptr[2] = 7 exceeds len(values) = 3") and which matches the sentinels
// in kinds with errors.Is, without their text in the message.
type inputError struct {
	msg   string
	kinds []error
}

func (e *inputError) Error() string   { return e.msg }
func (e *inputError) Unwrap() []error { return e.kinds }

var (
	badInputKinds = []error{ErrBadInput}
	tooLargeKinds = []error{ErrBadInput, ErrTooLarge}
)

// badInput returns an error wrapping ErrBadInput with the message
// "mil: " + the formatted text.
func badInput(format string, args ...any) error {
	return &inputError{msg: "mil: " + fmt.Sprintf(format, args...), kinds: badInputKinds}
}

// tooLarge returns an error wrapping ErrBadInput and ErrTooLarge with the
// message "mil: " + the formatted text, which should name the cap.
func tooLarge(format string, args ...any) error {
	return &inputError{msg: "mil: " + fmt.Sprintf(format, args...), kinds: tooLargeKinds}
}

// oneClassError is Fit's error for training bags of a single class. It
// matches ErrOneClass and ErrBadInput under errors.Is, but says what went
// wrong for a fit rather than ErrOneClass's "metric undefined".
type oneClassError struct {
	bags  int
	label float64
}

func (e oneClassError) Error() string {
	return fmt.Sprintf("mil: Fit: all %d training bags have label %v; a fit needs bags of both classes", e.bags, e.label)
}

func (e oneClassError) Is(target error) bool { return target == ErrOneClass || target == ErrBadInput }
