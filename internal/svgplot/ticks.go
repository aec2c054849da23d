package svgplot

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// tick is one tick on an axis. Minor ticks get a short mark and no label or
// grid line.
type tick struct {
	v     float64 // data value (not transformed)
	label string
	major bool
}

// snapTol is the relative tolerance within which a range end counts as lying
// on a tick: it absorbs the rounding of lo/step and log10, which is a few
// ulps, so a value such as 0.3 is not pushed out to an extra tick at 0.2.
const snapTol = 1e-9

// floorSnap returns floor(q), or round(q) when q is within snapTol of an
// integer.
func floorSnap(q float64) float64 {
	if r := math.Round(q); math.Abs(q-r) <= snapTol*math.Max(1, math.Abs(q)) {
		return r
	}
	return math.Floor(q)
}

// ceilSnap is floorSnap's counterpart for upper ends.
func ceilSnap(q float64) float64 {
	if r := math.Round(q); math.Abs(q-r) <= snapTol*math.Max(1, math.Abs(q)) {
		return r
	}
	return math.Ceil(q)
}

// decimalValue returns the float64 nearest to mant*10^exp. Going through
// the decimal string makes 3*10^-1 exactly the double written "0.3".
func decimalValue(mant int64, exp int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatInt(mant, 10)+"e"+strconv.Itoa(exp), 64)
	return v
}

// niceStep returns a step m*10^e, m in {1, 2, 5}, giving about five
// intervals over span (Heckbert's "nice numbers").
func niceStep(span float64) (m int64, e int) {
	raw := span / 5
	e = int(math.Floor(math.Log10(raw)))
	f := raw / math.Pow(10, float64(e))
	switch {
	case f < 1.5:
		m = 1
	case f < 3:
		m = 2
	case f < 7:
		m = 5
	default:
		m, e = 1, e+1
	}
	return m, e
}

var errRange = errors.New("axis range is not finite")

// linearTicks returns nice ticks covering [lo, hi] (lo <= hi, both finite).
// The first tick is <= lo and the last >= hi, up to snapTol steps.
func linearTicks(lo, hi float64) ([]tick, error) {
	if lo == hi {
		if lo == 0 {
			lo, hi = -1, 1
		} else {
			d := math.Abs(lo) / 10
			lo, hi = lo-d, hi+d
		}
	}
	span := hi - lo
	if math.IsInf(span, 0) || math.IsNaN(span) || span <= 0 {
		return nil, errRange
	}
	m, e := niceStep(span)
	step := decimalValue(m, e)
	i0 := floorSnap(lo / step)
	i1 := ceilSnap(hi / step)
	if i1-i0 > 1000 || math.IsInf(step, 0) || step == 0 {
		return nil, errRange // only reachable through overflow or underflow
	}
	sci := e < -4 || math.Max(math.Abs(i0*step), math.Abs(i1*step)) >= 1e6
	ticks := make([]tick, 0, int(i1-i0)+1)
	for i := int64(i0); i <= int64(i1); i++ {
		mant := i * m
		t := tick{v: decimalValue(mant, e), major: true}
		if sci {
			t.label = formatSci(mant, e)
		} else {
			t.label = formatPlain(mant, e)
		}
		ticks = append(ticks, t)
	}
	return ticks, nil
}

// logTicks returns ticks for a log10 axis covering [lo, hi] (0 < lo <= hi,
// both finite): mantissas 1..9 within one decade, 1-2-5 within two, whole
// decades (every s-th for wide ranges, with unlabelled 2..9 minor ticks when
// there is room) beyond.
func logTicks(lo, hi float64) ([]tick, error) {
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	a, b := math.Log10(lo), math.Log10(hi)
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return nil, errRange
	}
	k0, k1 := int(floorSnap(a)), int(ceilSnap(b))
	if k1 == k0 {
		k1++ // only when lo and hi are the same power of ten
	}
	var cand []tick
	switch dec := k1 - k0; {
	case dec == 1:
		// lo and hi lie in [10^k0, 10^(k0+1)]: mantissa ticks.
		p := math.Pow(10, float64(k0))
		m0 := int64(floorSnap(lo / p))
		m1 := int64(ceilSnap(hi / p))
		m0 = max(m0, 1)
		m1 = min(max(m1, m0+1), 10)
		labelAll := m1-m0+1 <= 7
		sci := useSci(k0, k1)
		for m := m0; m <= m1; m++ {
			major := labelAll || m == 1 || m == 2 || m == 5 || m == 10
			cand = append(cand, tick{v: decimalValue(m, k0), major: major, label: logLabel(m, k0, sci, major)})
		}
		return cand, nil
	case dec == 2:
		sci := useSci(k0, k1)
		for k := k0; k <= k1; k++ {
			for _, m := range []int64{1, 2, 5} {
				if k == k1 && m > 1 {
					break
				}
				cand = append(cand, tick{v: decimalValue(m, k), major: true, label: logLabel(m, k, sci, true)})
			}
		}
		// Keep the largest tick <= lo through the smallest >= hi.
		first, last := 0, len(cand)-1
		for i, t := range cand {
			if t.v <= lo*(1+snapTol) {
				first = i
			}
		}
		for i := len(cand) - 1; i >= 0; i-- {
			if cand[i].v >= hi*(1-snapTol) {
				last = i
			}
		}
		return cand[first : last+1], nil
	default:
		s := (dec + 7) / 8 // at most about eight labelled decades
		kk0 := floorDiv(k0, s) * s
		kk1 := -floorDiv(-k1, s) * s
		sci := useSci(kk0, kk1)
		for k := kk0; k <= kk1; k += s {
			cand = append(cand, tick{v: decimalValue(1, k), major: true, label: logLabel(1, k, sci, true)})
			if s == 1 && dec <= 8 && k < kk1 {
				for m := int64(2); m <= 9; m++ {
					cand = append(cand, tick{v: decimalValue(m, k)})
				}
			}
		}
		return cand, nil
	}
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// useSci reports whether a log axis from 10^k0 to 10^k1 labels in "m×10ᵏ"
// form: beyond 0.0001 .. 100000 plain labels get too long. One decision per
// axis, so an axis never mixes the two forms.
func useSci(k0, k1 int) bool { return k0 < -4 || k1 > 5 }

// logLabel labels a major tick m*10^k ("" for minor ticks).
func logLabel(m int64, k int, sci, major bool) string {
	switch {
	case !major:
		return ""
	case sci:
		return formatSci(m, k)
	default:
		return formatPlain(m, k)
	}
}

// formatPlain writes mant*10^exp in positional notation with max(0, -exp)
// decimals, so all ticks of one step show the same number of decimals.
// Negative numbers use the minus sign U+2212.
func formatPlain(mant int64, exp int) string {
	neg := mant < 0
	if neg {
		mant = -mant
	}
	s := strconv.FormatInt(mant, 10)
	if exp >= 0 {
		if mant != 0 {
			s += strings.Repeat("0", exp)
		}
	} else {
		d := -exp
		if len(s) <= d {
			s = strings.Repeat("0", d-len(s)+1) + s
		}
		s = s[:len(s)-d] + "." + s[len(s)-d:]
	}
	if neg && mant != 0 {
		s = "−" + s
	}
	return s
}

// formatSci writes mant*10^exp as "d.dd×10ⁿ" with superscript digits, or
// "10ⁿ" when the mantissa is 1.
func formatSci(mant int64, exp int) string {
	if mant == 0 {
		return "0"
	}
	neg := mant < 0
	if neg {
		mant = -mant
	}
	for mant%10 == 0 {
		mant /= 10
		exp++
	}
	s := strconv.FormatInt(mant, 10)
	p := exp + len(s) - 1
	var b strings.Builder
	if neg {
		b.WriteString("−")
	}
	if s != "1" {
		b.WriteString(s[:1])
		if len(s) > 1 {
			b.WriteString(".")
			b.WriteString(s[1:])
		}
		b.WriteString("×")
	}
	b.WriteString("10")
	b.WriteString(superscript(p))
	return b.String()
}

var supDigits = []string{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"}

func superscript(n int) string {
	var b strings.Builder
	if n < 0 {
		b.WriteString("⁻")
		n = -n
	}
	for _, c := range strconv.Itoa(n) {
		b.WriteString(supDigits[c-'0'])
	}
	return b.String()
}
