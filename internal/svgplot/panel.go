package svgplot

import (
	"errors"
	"fmt"
	"math"
)

// axisInfo is an axis after validation: its range in transformed units
// (log10 of the values on log axes) and its ticks.
type axisInfo struct {
	scale  Scale
	label  string
	lo, hi float64 // transformed
	ticks  []tick
}

// t maps a data value to transformed units; non-positive values on a log
// axis map to -Inf.
func (a *axisInfo) t(v float64) float64 {
	if a.scale == Log10 {
		if v <= 0 {
			return math.Inf(-1)
		}
		return math.Log10(v)
	}
	return v
}

// seriesInfo is a series after validation, with its resolved style.
type seriesInfo struct {
	*Series
	color  string
	marker Marker // never MarkerAuto
	lo, hi []float64
}

// panel is a validated Plot.
type panel struct {
	p      *Plot
	x, y   axisInfo
	series []seriesInfo
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

var autoMarkers = []Marker{Circle, Square, Triangle, Diamond, Cross}

// newPanel validates p and chooses its ranges and ticks.
func newPanel(p *Plot) (*panel, error) {
	if p.X.Scale > Log10 || p.Y.Scale > Log10 {
		return nil, errors.New("unknown axis scale")
	}
	if p.Legend > LegendOutside {
		return nil, errors.New("unknown legend position")
	}
	pn := &panel{p: p}
	// Data extents over the points that will be drawn.
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	ext := func(lo, hi *float64, v float64, scale Scale) {
		if !finite(v) || (scale == Log10 && v <= 0) {
			return
		}
		*lo = math.Min(*lo, v)
		*hi = math.Max(*hi, v)
	}
	for i := range p.Series {
		s := &p.Series[i]
		si := seriesInfo{Series: s, color: s.Color, marker: s.Marker}
		if si.color == "" {
			si.color = Palette[i%len(Palette)]
		}
		if err := validateSeries(s, p.X.Scale, p.Y.Scale); err != nil {
			return nil, fmt.Errorf("series %d (%q): %w", i, s.Name, err)
		}
		if si.marker == MarkerAuto {
			si.marker = MarkerNone
			if len(s.X) <= MaxAutoMarkers || s.NoLine {
				si.marker = autoMarkers[i%len(autoMarkers)]
			}
		}
		si.lo, si.hi = s.Lo, s.Hi
		if s.Err != nil {
			si.lo = make([]float64, len(s.Y))
			si.hi = make([]float64, len(s.Y))
			for j, y := range s.Y {
				si.lo[j], si.hi[j] = y-s.Err[j], y+s.Err[j]
			}
		}
		for j, x := range s.X {
			y := s.Y[j]
			if !finite(x) || !finite(y) {
				continue
			}
			ext(&xlo, &xhi, x, p.X.Scale)
			ext(&ylo, &yhi, y, p.Y.Scale)
			if si.lo != nil {
				ext(&ylo, &yhi, si.lo[j], p.Y.Scale)
				ext(&ylo, &yhi, si.hi[j], p.Y.Scale)
			}
		}
		pn.series = append(pn.series, si)
	}
	var err error
	if pn.x, err = makeAxis(&p.X, xlo, xhi); err != nil {
		return nil, fmt.Errorf("x axis: %w", err)
	}
	if pn.y, err = makeAxis(&p.Y, ylo, yhi); err != nil {
		return nil, fmt.Errorf("y axis: %w", err)
	}
	return pn, nil
}

func validateSeries(s *Series, xs, ys Scale) error {
	n := len(s.X)
	if len(s.Y) != n {
		return fmt.Errorf("len(X) = %d but len(Y) = %d", n, len(s.Y))
	}
	if s.Err != nil && (s.Lo != nil || s.Hi != nil) {
		return errors.New("both Err and Lo/Hi set")
	}
	if s.Err != nil && len(s.Err) != n {
		return fmt.Errorf("len(Err) = %d, want %d", len(s.Err), n)
	}
	if (s.Lo != nil || s.Hi != nil) && (len(s.Lo) != n || len(s.Hi) != n) {
		return fmt.Errorf("len(Lo) = %d and len(Hi) = %d, want %d", len(s.Lo), len(s.Hi), n)
	}
	if s.Marker > Cross {
		return errors.New("unknown marker")
	}
	if s.NoLine && s.Marker == MarkerNone {
		return errors.New("NoLine with MarkerNone draws nothing")
	}
	for j := 0; j < n; j++ {
		if xs == Log10 && finite(s.X[j]) && s.X[j] <= 0 {
			return fmt.Errorf("log x axis needs positive values, X[%d] = %g", j, s.X[j])
		}
		if ys == Log10 && finite(s.Y[j]) && s.Y[j] <= 0 {
			return fmt.Errorf("log y axis needs positive values, Y[%d] = %g", j, s.Y[j])
		}
		if s.Err != nil && s.Err[j] < 0 {
			return fmt.Errorf("series error bar Err[%d] = %g is negative", j, s.Err[j])
		}
		if s.Lo != nil && s.Lo[j] > s.Hi[j] {
			return fmt.Errorf("band bound Lo[%d] = %g > Hi[%d] = %g", j, s.Lo[j], j, s.Hi[j])
		}
	}
	return nil
}

// makeAxis fixes an axis range: [a.Min, a.Max] when given, otherwise the
// data extent [lo, hi] (empty when lo > hi) widened to the enclosing ticks.
func makeAxis(a *Axis, lo, hi float64) (axisInfo, error) {
	ai := axisInfo{scale: a.Scale, label: a.Label}
	fixed := a.Min < a.Max
	if fixed {
		if !finite(a.Min) || !finite(a.Max) {
			return ai, errors.New("axis Min and Max must be finite")
		}
		if a.Scale == Log10 && a.Min <= 0 {
			return ai, fmt.Errorf("log axis needs Min > 0, got %g", a.Min)
		}
		lo, hi = a.Min, a.Max
	} else {
		if lo > hi { // no drawable data
			lo, hi = 0, 1
			if a.Scale == Log10 {
				lo, hi = 1, 10
			}
		}
		if a.IncludeZero && a.Scale == Linear {
			lo, hi = math.Min(lo, 0), math.Max(hi, 0)
		}
	}
	var ticks []tick
	var err error
	if a.Scale == Log10 {
		ticks, err = logTicks(lo, hi)
	} else {
		ticks, err = linearTicks(lo, hi)
	}
	if err != nil {
		return ai, err
	}
	if fixed {
		// Keep only the ticks inside the fixed range.
		tol := snapTol * (hi - lo)
		kept := ticks[:0]
		for _, t := range ticks {
			if t.v >= lo-tol && t.v <= hi+tol {
				kept = append(kept, t)
			}
		}
		ticks = kept
	} else if len(ticks) > 0 {
		lo = math.Min(lo, ticks[0].v)
		hi = math.Max(hi, ticks[len(ticks)-1].v)
	}
	ai.ticks = ticks
	ai.lo, ai.hi = ai.t(lo), ai.t(hi)
	if !(ai.hi > ai.lo) {
		return ai, errRange
	}
	return ai, nil
}
