package mil

import (
	"encoding/json"
	"strings"

	"github.com/neadmm/neadmm/neadmm"
)

// The JSON forms of Options and FitResult: their fields under their Go
// names, the enumerations by the names their String methods give.

// named is an enumeration with a name per value.
type named interface {
	~int
	String() string
}

// jsonError returns err, from encoding/json or passed through it from a
// method of this package, as where's error: it wraps ErrBadInput and err,
// and its message names where and err without a second "mil: ".
func jsonError(where string, err error) error {
	msg := "mil: " + where + ": " + strings.TrimPrefix(err.Error(), "mil: ")
	return &inputError{msg: msg, kinds: []error{ErrBadInput, err}}
}

// enumLen returns the number of values of an enumeration, named or not
// (the zero StopReason has no name but is a FitResult's zero value).
func enumLen[T named]() T {
	switch any(T(0)).(type) {
	case LossScale:
		return T(SumLoss + 1)
	case Weighting:
		return T(Balanced + 1)
	case Scaling:
		return T(ScaleNone + 1)
	case BetaSolver:
		return T(BetaDirect + 1)
	case neadmm.RhoPolicy:
		return T(neadmm.RhoBalance + 1)
	case neadmm.StopReason:
		return T(neadmm.StopTest + 1)
	}
	return 0
}

// enumText returns v's name, or an error wrapping ErrBadInput for a value
// outside the enumeration.
func enumText[T named](v T) ([]byte, error) {
	if v < 0 || v >= enumLen[T]() {
		return nil, badInput("%T(%d) has no name", v, int(v))
	}
	return []byte(v.String()), nil
}

// parseEnum returns the value named text, or an error wrapping
// ErrBadInput.
func parseEnum[T named](text []byte) (T, error) {
	for v := range enumLen[T]() {
		if v.String() == string(text) {
			return v, nil
		}
	}
	var zero T
	return 0, badInput("%T %q unknown", zero, text)
}

// MarshalText implements encoding.TextMarshaler: "mean" or "sum".
func (s LossScale) MarshalText() ([]byte, error) { return enumText(s) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *LossScale) UnmarshalText(text []byte) (err error) {
	*s, err = parseEnum[LossScale](text)
	return err
}

// MarshalText implements encoding.TextMarshaler: "uniform" or "balanced".
func (w Weighting) MarshalText() ([]byte, error) { return enumText(w) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (w *Weighting) UnmarshalText(text []byte) (err error) {
	*w, err = parseEnum[Weighting](text)
	return err
}

// MarshalText implements encoding.TextMarshaler: "auto" or "none".
func (s Scaling) MarshalText() ([]byte, error) { return enumText(s) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Scaling) UnmarshalText(text []byte) (err error) {
	*s, err = parseEnum[Scaling](text)
	return err
}

// MarshalText implements encoding.TextMarshaler: "auto", "gram" or
// "direct".
func (b BetaSolver) MarshalText() ([]byte, error) { return enumText(b) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (b *BetaSolver) UnmarshalText(text []byte) (err error) {
	*b, err = parseEnum[BetaSolver](text)
	return err
}

// enumName carries an enumeration of another package (neadmm.RhoPolicy,
// neadmm.StopReason) through JSON by name.
type enumName[T named] struct{ v T }

func (e enumName[T]) MarshalText() ([]byte, error) { return enumText(e.v) }

func (e *enumName[T]) UnmarshalText(text []byte) (err error) {
	e.v, err = parseEnum[T](text)
	return err
}

// optionsFields is Options without its methods, and optionsJSON its JSON
// form: the fields of Options by their names, RhoPolicy by name, and
// Callback hidden by a field of the same name at a shallower depth, which
// encoding/json prefers (a func cannot be encoded).
type optionsFields Options

type optionsJSON struct {
	optionsFields
	RhoPolicy enumName[neadmm.RhoPolicy]
	Callback  *struct{} `json:",omitempty"`
}

func toOptionsJSON(o Options) optionsJSON {
	return optionsJSON{optionsFields: optionsFields(o), RhoPolicy: enumName[neadmm.RhoPolicy]{o.RhoPolicy}}
}

// options returns the Options of j, Callback nil.
func (j *optionsJSON) options() Options {
	o := Options(j.optionsFields)
	o.RhoPolicy, o.Callback = j.RhoPolicy.v, nil
	return o
}

// MarshalJSON implements json.Marshaler: an object of the fields of o by
// their Go names, the enumerations (Pooling included, see
// Pooling.MarshalText) by name, without Callback. It fails, with an error
// wrapping ErrBadInput, only for an enumeration value without a name or a
// NaN or infinite float (which Validate refuses too).
func (o Options) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(toOptionsJSON(o))
	if err != nil {
		return nil, jsonError("Options.MarshalJSON", err)
	}
	return b, nil
}

// UnmarshalJSON implements json.Unmarshaler, reading what MarshalJSON
// writes into o: a field absent from the object keeps its value, Callback
// is kept, and an unknown field is ignored (as for any struct). A value
// of the wrong type or an unknown enumeration name is an error wrapping
// ErrBadInput. The options are not validated (see Validate).
func (o *Options) UnmarshalJSON(data []byte) error {
	j := toOptionsJSON(*o)
	if err := json.Unmarshal(data, &j); err != nil {
		return jsonError("Options.UnmarshalJSON", err)
	}
	cb := o.Callback
	*o = j.options()
	o.Callback = cb
	return nil
}

// resultFields is FitResult without its methods, and resultJSON its JSON
// form in a model file: the fields by their Go names, Reason by name.
type resultFields FitResult

type resultJSON struct {
	resultFields
	Reason enumName[neadmm.StopReason]
}

func toResultJSON(r FitResult) *resultJSON {
	return &resultJSON{resultFields: resultFields(r), Reason: enumName[neadmm.StopReason]{r.Reason}}
}

func (j *resultJSON) result() FitResult {
	r := FitResult(j.resultFields)
	r.Reason = j.Reason.v
	return r
}
