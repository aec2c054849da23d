package mil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/neadmm/neadmm/internal/num"
)

// The model file is one JSON object (see Model.MarshalJSON for its
// fields). Reading trusts nothing in it: the header is checked first
// (format, version), every length against the caps and the header's
// features before the array it sizes is decoded, every float for
// finiteness, the parts of an ensemble one level deep.

const (
	modelFormat  = "mil.Model"
	modelVersion = 1
	// MaxEnsembleParts caps the parts of an ensemble in a model file
	// (FitCV's ensembles have two or three).
	MaxEnsembleParts = 256
)

// modelJSON is a model file's object, and (without format, version and
// features) one part of an ensemble. The arrays stay raw until their
// lengths are checked.
type modelJSON struct {
	Format   string          `json:"format,omitempty"`
	Version  int             `json:"version,omitempty"`
	Features int             `json:"features,omitempty"`
	Pooling  *Pooling        `json:"pooling,omitempty"`
	Beta0    *float64        `json:"beta0,omitempty"`
	Weights  json.RawMessage `json:"weights,omitempty"`
	Options  *optionsJSON    `json:"options,omitempty"`
	Result   *resultJSON     `json:"result,omitempty"`
	Beta     json.RawMessage `json:"beta,omitempty"`
	Parts    json.RawMessage `json:"parts,omitempty"`
}

// MarshalJSON implements json.Marshaler (on Model and *Model; a nil *Model
// is null): it writes the model file of m, from which UnmarshalJSON and
// ReadModel rebuild a model whose every output (scores, probabilities,
// predictions, witnesses, instance scores) has the same bits, and whose
// Coefficients, Options, Result, Parts and Weights are equal (but for the
// parameter a Pooling's kind does not use, which is not kept; the
// Callback of Options is never kept). Its fields:
//
//	format    "mil.Model"
//	version   1 (the format's version; readers refuse any other)
//	features  NumFeatures
//	pooling   the bag score rule (Pooling.MarshalText: "max", "topk:3", ...)
//	beta0     the bias
//	options   the options of the fit, as Options.MarshalJSON writes them
//	result    the fit's FitResult (field names as in Go, Reason by name)
//	beta      the coefficients on the raw features, NumFeatures of them;
//	          for "meanmax", 2 x NumFeatures: the bag means' then the bag
//	          maxima's (BagCoefficients), Coefficients being their sum
//
// An ensemble has, after format, version and features, "weights" (one per
// part) and "parts": one object per part with the fields pooling to beta
// of a single model; its mean coefficients, Options and Result are rebuilt
// from the parts on reading, as Ensemble builds them. Floats are written
// in the shortest form that reads back to the same float64 (-0 as -0).
//
// It returns an error wrapping ErrBadInput for a Model with no
// coefficients (the zero Model), an invalid Pooling or enumeration value,
// or a value JSON cannot hold (a NaN or infinite float, which no fit
// returns).
func (m Model) MarshalJSON() ([]byte, error) {
	if len(m.beta) == 0 {
		return nil, badInput("Model.MarshalJSON: a Model without coefficients (the zero Model)")
	}
	j := modelJSON{Format: modelFormat, Version: modelVersion, Features: m.NumFeatures()}
	var err error
	if len(m.parts) == 0 {
		err = m.encodeSingle(&j)
	} else {
		parts := make([]modelJSON, len(m.parts))
		for i, p := range m.parts {
			if err = p.encodeSingle(&parts[i]); err != nil {
				break
			}
		}
		if err == nil {
			if j.Weights, err = json.Marshal(m.weights); err == nil {
				j.Parts, err = json.Marshal(parts)
			}
		}
	}
	var b []byte
	if err == nil {
		b, err = json.Marshal(j)
	}
	if err != nil {
		return nil, jsonError("Model.MarshalJSON", err)
	}
	return b, nil
}

// encodeSingle sets the fields of the single model m in j.
func (m *Model) encodeSingle(j *modelJSON) error {
	p, b0, opt := m.opt.Pooling, m.beta0, toOptionsJSON(m.opt)
	j.Pooling, j.Beta0, j.Options, j.Result = &p, &b0, &opt, toResultJSON(m.res)
	coef := m.beta
	if m.bag != nil {
		coef = m.bag // the instance coefficients are rebuilt from them
	}
	var err error
	j.Beta, err = json.Marshal(coef)
	return err
}

// UnmarshalJSON implements json.Unmarshaler: it sets m to the model of a
// model file (see MarshalJSON), with the caps of a nil *LoadOptions (see
// ReadModel, which reads a file with the caller's caps). JSON null leaves
// m unchanged. Any other input that is not a valid model file is an error
// wrapping ErrBadInput (see ReadModel) that leaves m unchanged. Like any
// decoding, it must not run while other goroutines use m.
func (m *Model) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	lim, _ := (*LoadOptions)(nil).resolve() // the defaults: no error
	nm, err := decodeModel("Model.UnmarshalJSON", data, lim)
	if err != nil {
		return err
	}
	*m = *nm
	return nil
}

// WriteTo implements io.WriterTo: it writes m's model file (MarshalJSON,
// indented, one value per line, ending in a newline) to w and returns the
// bytes written. A nil m is an error wrapping ErrBadInput, as are
// MarshalJSON's errors; w's error is returned as is.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	if m == nil {
		return 0, badInput("Model.WriteTo: nil model")
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return 0, err
	}
	n, err := w.Write(append(b, '\n'))
	return int64(n), err
}

// ReadModel reads a model file (see Model.MarshalJSON) from r, to its
// end, with the caps of opt (nil: the defaults): the file at most
// MaxModelBytes (DefaultMaxModelBytes), read through an io.LimitReader of
// that size, so nothing past the cap is buffered; NumFeatures at most
// MaxFeatures (DefaultMaxFeatures); an ensemble of at most
// MaxEnsembleParts parts. The other fields of opt do not apply.
//
// It returns an error wrapping ErrBadInput for invalid options
// (LoadOptions.Validate) and for anything but a valid model file: another
// format or version, invalid JSON (a truncated file), an unknown field or
// pooling, a missing field, a coefficient count other than features (2 x
// features for "meanmax"), a
// number that is not a finite float64, an ensemble whose part is itself
// an ensemble or whose weights do not match its parts, options whose
// pooling differs from the model's; one wrapping ErrTooLarge as well for
// a file or size beyond a cap, checked before the data it sizes is
// decoded. An error of r is returned wrapped, not as ErrBadInput.
func ReadModel(r io.Reader, opt *LoadOptions) (*Model, error) {
	lim, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, badInput("ReadModel: nil reader")
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(lim.maxModel)+1))
	if err != nil {
		return nil, fmt.Errorf("mil: ReadModel: %w", err)
	}
	return decodeModel("ReadModel", data, lim)
}

// decodeModel returns the model of the file data, naming fn in errors.
func decodeModel(fn string, data []byte, lim limits) (*Model, error) {
	if len(data) > lim.maxModel {
		return nil, tooLarge("%s: the model file exceeds the cap of %d bytes (LoadOptions.MaxModelBytes, default DefaultMaxModelBytes)", fn, lim.maxModel)
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(fn+": not a model file", err)
	}
	if head.Format != modelFormat {
		return nil, badInput("%s: format %q, want %q", fn, head.Format, modelFormat)
	}
	if head.Version != modelVersion {
		return nil, badInput("%s: model file version %d, this reader reads version %d", fn, head.Version, modelVersion)
	}
	var j modelJSON
	if err := strictDecode(data, &j); err != nil {
		return nil, jsonError(fn, err)
	}
	if j.Features < 1 {
		return nil, badInput("%s: features = %d, want >= 1", fn, j.Features)
	}
	if j.Features > lim.maxFeatures {
		return nil, tooLarge("%s: %d features exceed the cap of %d (LoadOptions.MaxFeatures, default DefaultMaxFeatures)", fn, j.Features, lim.maxFeatures)
	}
	switch {
	case j.Parts != nil:
		return j.ensemble(fn)
	case j.Weights != nil:
		return nil, badInput("%s: weights without parts", fn)
	}
	return j.single(fn, j.Features)
}

// strictDecode decodes the JSON value data into v, refusing unknown fields
// and anything after the value.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the model's object")
	}
	return nil
}

// single returns the single model of j (the file's object or a part,
// named by where in errors) with features features.
func (j *modelJSON) single(where string, features int) (*Model, error) {
	switch {
	case j.Pooling == nil:
		return nil, badInput("%s: no pooling", where)
	case j.Beta0 == nil:
		return nil, badInput("%s: no beta0", where)
	case !num.Finite(*j.Beta0):
		return nil, badInput("%s: beta0 = %v, want finite", where, *j.Beta0)
	}
	p := *j.Pooling
	beta, err := decodeFloats(where, "beta", j.Beta, features*p.width())
	if err != nil {
		return nil, err
	}
	m := &Model{beta: beta, beta0: *j.Beta0, opt: Options{Pooling: p}}
	if p.width() > 1 {
		m.bag, m.beta = beta, instanceCoefficients(beta, features)
		if !num.AllFinite(m.beta) {
			return nil, badInput("%s: beta: a bag mean's and maximum's coefficients add up to more than a float64 holds", where)
		}
	}
	if j.Options != nil {
		if m.opt = j.Options.options(); m.opt.Pooling != p {
			return nil, badInput("%s: options.Pooling %v differs from the model's pooling %v", where, m.opt.Pooling, p)
		}
	}
	if j.Result != nil {
		m.res = j.Result.result()
	}
	return m, nil
}

// ensemble returns the ensemble of the file's object j.
func (j *modelJSON) ensemble(fn string) (*Model, error) {
	if j.Pooling != nil || j.Beta0 != nil || j.Beta != nil || j.Options != nil || j.Result != nil {
		return nil, badInput("%s: an ensemble has pooling, beta0, beta, options and result in its parts only", fn)
	}
	np := countElements(j.Parts)
	switch {
	case np < 1:
		return nil, badInput("%s: parts: want an array of one or more models", fn)
	case np > MaxEnsembleParts:
		return nil, tooLarge("%s: %d ensemble parts exceed the cap of MaxEnsembleParts = %d", fn, np, MaxEnsembleParts)
	}
	w, err := decodeFloats(fn, "weights", j.Weights, np)
	if err != nil {
		return nil, err
	}
	raws := make([]json.RawMessage, 0, np)
	if err := json.Unmarshal(j.Parts, &raws); err != nil || len(raws) != np {
		return nil, badInput("%s: parts: want an array of %d objects (%v)", fn, np, err)
	}
	parts := make([]*Model, len(raws))
	for i, raw := range raws {
		where := fmt.Sprintf("%s: part %d", fn, i)
		var pj modelJSON
		if err := strictDecode(raw, &pj); err != nil {
			return nil, jsonError(where, err)
		}
		switch {
		case pj.Parts != nil || pj.Weights != nil:
			return nil, badInput("%s is an ensemble: the parts of an ensemble are single models (nesting depth 1)", where)
		case pj.Format != "" || pj.Version != 0 || pj.Features != 0:
			return nil, badInput("%s: format, version and features belong to the file's object", where)
		}
		if parts[i], err = pj.single(where, j.Features); err != nil {
			return nil, err
		}
		if len(parts[i].beta) != len(parts[0].beta) {
			return nil, badInput("%s has %d coefficients, part 0 %d", where, len(parts[i].beta), len(parts[0].beta))
		}
	}
	return newEnsemble(parts, w), nil
}

// decodeFloats decodes the JSON array raw (the field name of where) of
// want finite numbers, counting its elements before it allocates.
func decodeFloats(where, name string, raw json.RawMessage, want int) ([]float64, error) {
	if n := countElements(raw); n != want {
		if n < 0 {
			return nil, badInput("%s: %s: want an array of %d numbers", where, name, want)
		}
		return nil, badInput("%s: %s has %d values, want %d", where, name, n, want)
	}
	v := make([]float64, 0, want)
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, jsonError(where+": "+name, err)
	}
	for i, x := range v {
		if !num.Finite(x) {
			return nil, badInput("%s: %s[%d] = %v, want finite", where, name, i, x)
		}
	}
	return v, nil
}

// countElements returns the number of elements of raw, a valid JSON
// value, or -1 if it is not an array.
func countElements(raw []byte) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return -1
	}
	inner := bytes.TrimSpace(raw[1 : len(raw)-1])
	if len(inner) == 0 {
		return 0
	}
	n, depth, inString, escaped := 1, 0, false, false
	for _, c := range inner {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			n++
		}
	}
	return n
}
