package mil

import (
	"encoding"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	_ encoding.TextMarshaler   = Pooling{}
	_ encoding.TextUnmarshaler = (*Pooling)(nil)
)

// TestPoolingText: every kind round-trips through its text, the
// top-fraction's float bit for bit, and the parameters a kind does not
// use are dropped.
func TestPoolingText(t *testing.T) {
	for _, c := range []struct {
		p    Pooling
		text string
	}{
		{MaxPooling(), "max"},
		{MeanPooling(), "mean"},
		{FeatureMaxPooling(), "featmax"},
		{FeatureMeanMaxPooling(), "meanmax"},
		{TopKPooling(3), "topk:3"},
		{TopKPooling(math.MaxInt), "topk:" + strconv.Itoa(math.MaxInt)},
		{TopFracPooling(0.25), "topfrac:0.25"},
		{TopFracPooling(1.0 / 3), "topfrac:0.3333333333333333"},
		{TopFracPooling(5e-324), "topfrac:5e-324"},
		{TopFracPooling(1), "topfrac:1"},
		{Pooling{Kind: PoolMax, K: 4, Frac: 0.5}, "max"},
		{Pooling{Kind: PoolTopK, K: 2, Frac: 0.5}, "topk:2"},
	} {
		b, err := c.p.MarshalText()
		require.NoError(t, err, c.text)
		assert.Equal(t, c.text, string(b))
		var q Pooling
		require.NoError(t, q.UnmarshalText(b), c.text)
		want := Pooling{Kind: c.p.Kind}
		switch c.p.Kind {
		case PoolTopK:
			want.K = c.p.K
		case PoolTopFrac:
			want.Frac = c.p.Frac
		}
		assert.Equal(t, want, q, c.text)
		assert.Equal(t, math.Float64bits(want.Frac), math.Float64bits(q.Frac), c.text)
	}
}

// TestPoolingTextErrors: what MarshalText does not write, and invalid
// poolings, are errors wrapping ErrBadInput; a failed UnmarshalText leaves
// the Pooling unchanged.
func TestPoolingTextErrors(t *testing.T) {
	for _, c := range []struct{ text, msg string }{
		{"", "unknown"},
		{"Max", "unknown"},
		{"top3", "unknown"},
		{"max:1", "max takes no parameter"},
		{"featmax:", "featmax takes no parameter"},
		{"meanmax:2", "meanmax takes no parameter"},
		{"topk", "topk takes a parameter"},
		{"topk:", "parameter \"\" out of range"},
		{"topk:0", "out of range"},
		{"topk:-2", "out of range"},
		{"topk:1.5", "out of range"},
		{"topk:99999999999999999999", "out of range"},
		{"topfrac:0", "out of range"},
		{"topfrac:1.5", "out of range"},
		{"topfrac:NaN", "out of range"},
		{"topfrac:Inf", "out of range"},
		{"topfrac:x", "out of range"},
	} {
		p := TopKPooling(7)
		err := p.UnmarshalText([]byte(c.text))
		requireBadInput(t, err, false, c.msg)
		assert.Equal(t, TopKPooling(7), p, c.text)
	}
	for _, p := range []Pooling{TopKPooling(0), TopFracPooling(0), TopFracPooling(math.NaN()), {Kind: 99}} {
		_, err := p.MarshalText()
		requireBadInput(t, err, false, "Options.Pooling")
	}
}
