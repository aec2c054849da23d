package mil

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setEveryField sets every field of the struct v points to (but Callback)
// to a non-zero value, the n-th of its kind, so that a field the JSON
// forms drop or mix up shows as a difference.
func setEveryField(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v).Elem()
	for i := range rv.NumField() {
		f, name := rv.Field(i), rv.Type().Field(i).Name
		switch {
		case name == "Callback":
		case f.Type() == reflect.TypeFor[Pooling]():
			f.Set(reflect.ValueOf(TopFracPooling(0.3)))
		case f.Type() == reflect.TypeFor[FitTimes]():
			f.Set(reflect.ValueOf(FitTimes{Total: 7 * time.Second, Setup: 1, QUpdate: 2, BetaUpdate: 3, TUpdate: 4, Engine: 5}))
		case f.Kind() == reflect.Int && f.Type().Name() != "int":
			f.SetInt(1) // a named value of every enumeration, not the zero value
		case f.Kind() == reflect.Int || f.Kind() == reflect.Int64:
			f.SetInt(int64(10 + i))
		case f.Kind() == reflect.Float64:
			f.SetFloat(0.5 + float64(i))
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("field %s of kind %v: extend setEveryField", name, f.Kind())
		}
	}
}

// TestOptionsJSON: every field of Options but Callback round-trips, the
// enumerations by name; Callback is neither written nor touched.
func TestOptionsJSON(t *testing.T) {
	var o Options
	setEveryField(t, &o)
	called := false
	o.Callback = func(neadmm.Iteration) bool { called = true; return false }
	b, err := json.Marshal(o)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "Callback")
	for _, name := range []string{`"Loss":"sum"`, `"Weighting":"balanced"`, `"Scaling":"none"`, `"Pooling":"topfrac:0.3"`,
		`"RhoPolicy":"fixed"`, `"Beta":"gram"`} {
		assert.Contains(t, string(b), name)
	}
	var got Options
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Nil(t, got.Callback)
	o2 := o
	o2.Callback = nil
	assert.Equal(t, o2, got)

	// Into options that have a callback: it stays; absent fields stay.
	got = DefaultOptions()
	got.Callback = o.Callback
	require.NoError(t, json.Unmarshal([]byte(`{"Lambda":2}`), &got))
	assert.Equal(t, 2.0, got.Lambda)
	assert.Equal(t, DefaultOptions().Rho, got.Rho)
	got.Callback(neadmm.Iteration{})
	assert.True(t, called)

	for _, bad := range []string{`{"Loss":"median"}`, `{"RhoPolicy":"fast"}`, `{"Pooling":"best"}`, `{"Lambda":"x"}`, `[1]`} {
		keep := DefaultOptions()
		requireBadInput(t, keep.UnmarshalJSON([]byte(bad)), false, "Options.UnmarshalJSON")
	}
	_, err = json.Marshal(Options{Loss: 9})
	requireBadInput(t, err, false, "Options.MarshalJSON")
}

// TestResultJSON: every field of FitResult round-trips through a model
// file's "result".
func TestResultJSON(t *testing.T) {
	var r FitResult
	setEveryField(t, &r)
	r.Reason = neadmm.StopTest
	b, err := json.Marshal(toResultJSON(r))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"Reason":"stop test"`)
	var j resultJSON
	require.NoError(t, json.Unmarshal(b, &j))
	assert.Equal(t, r, j.result())
}

// enumRoundTrip checks that the n values of an enumeration T round-trip
// through their names.
func enumRoundTrip[T interface {
	named
	MarshalText() ([]byte, error)
}, P interface {
	*T
	UnmarshalText([]byte) error
}](t *testing.T, n T) {
	t.Helper()
	for v := range n {
		b, err := v.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, v.String(), string(b))
		var got T
		require.NoError(t, P(&got).UnmarshalText(b))
		assert.Equal(t, v, got)
	}
}

// TestEnumText: the enumerations' names round-trip; values without a
// name are errors.
func TestEnumText(t *testing.T) {
	enumRoundTrip[LossScale, *LossScale](t, 2)
	enumRoundTrip[Weighting, *Weighting](t, 2)
	enumRoundTrip[Scaling, *Scaling](t, 2)
	enumRoundTrip[BetaSolver, *BetaSolver](t, 3)
	_, err := Scaling(-1).MarshalText()
	requireBadInput(t, err, false, "Scaling(-1) has no name")
	_, err = BetaSolver(3).MarshalText()
	requireBadInput(t, err, false, "BetaSolver(3) has no name")
	var s Scaling
	requireBadInput(t, s.UnmarshalText([]byte("Scaling(7)")), false, `mil.Scaling "Scaling(7)" unknown`)
}
