package mil

import "errors"

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
