package mil

import (
	"strconv"
	"strings"
)

// poolingKinds names each PoolKind in the text form of a Pooling. A new
// kind adds its row.
var poolingKinds = [...]struct {
	kind PoolKind
	name string
}{
	{PoolMax, "max"},
	{PoolMean, "mean"},
	{PoolTopK, "topk"},
	{PoolTopFrac, "topfrac"},
	{PoolFeatureMax, "featmax"},
	{PoolFeatureMeanMax, "meanmax"},
}

// MarshalText implements encoding.TextMarshaler: "max", "mean", "featmax",
// "meanmax", "topk:K" (TopKPooling(K)) or "topfrac:F" (TopFracPooling(F),
// F in the shortest form that reads back to the same float64). The
// parameter a kind does not use is not written. An invalid p (Validate) is an error
// wrapping ErrBadInput.
func (p Pooling) MarshalText() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var name string
	for _, k := range poolingKinds {
		if k.kind == p.Kind {
			name = k.name
		}
	}
	switch p.Kind {
	case PoolTopK:
		return strconv.AppendInt([]byte(name+":"), int64(p.K), 10), nil
	case PoolTopFrac:
		return strconv.AppendFloat([]byte(name+":"), p.Frac, 'g', -1, 64), nil
	}
	return []byte(name), nil
}

// UnmarshalText implements encoding.TextUnmarshaler, reading what
// MarshalText writes. Anything else (an unknown name, a missing, extra or
// out-of-range parameter) is an error wrapping ErrBadInput that leaves p
// unchanged.
func (p *Pooling) UnmarshalText(text []byte) error {
	s := string(text)
	name, arg, hasArg := strings.Cut(s, ":")
	var q Pooling
	found := false
	for _, k := range poolingKinds {
		if k.name == name {
			q.Kind, found = k.kind, true
		}
	}
	param := q.Kind == PoolTopK || q.Kind == PoolTopFrac
	switch {
	case !found:
		return badInput("pooling %q: unknown (want max, mean, featmax, meanmax, topk:K or topfrac:F)", s)
	case param != hasArg:
		return badInput("pooling %q: %s takes %s parameter", s, name, map[bool]string{true: "a", false: "no"}[param])
	}
	var err error
	switch q.Kind {
	case PoolTopK:
		q.K, err = strconv.Atoi(arg)
	case PoolTopFrac:
		q.Frac, err = strconv.ParseFloat(arg, 64)
	}
	if err != nil || q.Validate() != nil {
		return badInput("pooling %q: parameter %q out of range (topk:K with an integer K >= 1, topfrac:F with F in (0, 1])", s, arg)
	}
	*p = q
	return nil
}
