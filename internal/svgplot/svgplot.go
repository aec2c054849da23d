// Package svgplot draws line and scatter plots as standalone SVG files with
// no dependency beyond the standard library.
//
// A Figure holds one or more panels (Plot) laid out in a grid; each panel has
// a title, two axes (linear or log10, with "nice" ticks chosen from the data
// unless fixed), any number of Series with an optional legend, error bars or
// shaded bands, and markers. Colours come from the Okabe-Ito palette, which
// stays distinguishable under the common forms of colour blindness; markers
// vary with the colour so series also differ in greyscale.
//
// Output is deterministic: the same Figure always renders to the same bytes.
// Invalid input (mismatched lengths, non-positive values on a log axis, a
// negative error) is reported as an error and nothing is written.
//
// The structure of the output is stable so tests can check it without
// golden files: every panel is a <g class="panel">, every series that draws
// a line is exactly one <path class="series"> (gaps become extra "M"
// subpaths, never extra elements), and every legend entry is a
// <g class="legend-entry">. No other <path> elements are written.
package svgplot

import (
	"fmt"
	"math"
	"os"
)

// Scale selects how an axis maps data to the page.
type Scale uint8

const (
	// Linear maps values proportionally.
	Linear Scale = iota
	// Log10 maps log10 of the values; every plotted value on such an axis
	// must be positive.
	Log10
)

// Axis describes one axis of a panel.
type Axis struct {
	// Label is written beside the axis; it may contain any text (it is
	// escaped).
	Label string
	// Scale is Linear (the zero value) or Log10.
	Scale Scale
	// If Min < Max the axis spans exactly [Min, Max] and data outside is
	// clipped. Otherwise the range is chosen from the data (including error
	// bars and bands) and widened to the nearest ticks, so the ticks always
	// cover the data.
	Min, Max float64
	// IncludeZero widens an automatic linear range to contain 0 (useful for
	// throughputs and errors). It is ignored on log axes.
	IncludeZero bool
}

// Marker is the symbol drawn at each data point.
type Marker uint8

const (
	// MarkerAuto picks a shape from the series' position in its panel when
	// the series has at most MaxAutoMarkers points, and none otherwise (a
	// dense curve such as an ROC curve is clearer without markers).
	MarkerAuto Marker = iota
	// MarkerNone draws no markers.
	MarkerNone
	// Circle, Square, Triangle, Diamond and Cross are the explicit shapes.
	Circle
	Square
	Triangle
	Diamond
	Cross
)

// MaxAutoMarkers is the largest number of points for which MarkerAuto draws
// markers.
const MaxAutoMarkers = 40

// Series is one set of points in a panel.
//
// Points whose X or Y is NaN or ±Inf are skipped and leave a gap in the
// line. Error bars or a band come from either Err (symmetric: Y-Err to
// Y+Err, e.g. mean ± std) or Lo and Hi (absolute bounds, e.g. min and max);
// setting both is an error. A NaN bound skips that point's bar. On a log y
// axis a bar or band reaching zero or below is cut at the bottom of the
// panel.
type Series struct {
	// Name is the legend label; series with an empty Name are left out of
	// the legend.
	Name string
	X, Y []float64
	// Err, when non-nil, has len(Y) non-negative entries.
	Err []float64
	// Lo and Hi, when non-nil, both have len(Y) entries with Lo[i] <= Hi[i].
	Lo, Hi []float64
	// Band draws the interval as a shaded band instead of error bars.
	Band bool
	// NoLine draws markers only (a scatter plot); Marker must not be
	// MarkerNone then.
	NoLine bool
	// Dashed draws the line dashed.
	Dashed bool
	// Marker selects the point symbol; see MarkerAuto.
	Marker Marker
	// Color is an SVG colour such as "#0072B2"; empty picks Palette[i mod
	// len(Palette)] for the i-th series of the panel.
	Color string
}

// LegendPos says where a panel's legend goes.
type LegendPos uint8

const (
	// LegendAuto puts the legend inside the plot area in the corner that
	// covers the fewest data points (top right on ties).
	LegendAuto LegendPos = iota
	// LegendNone draws no legend.
	LegendNone
	// LegendTopRight, LegendTopLeft, LegendBottomRight and LegendBottomLeft
	// fix the corner inside the plot area.
	LegendTopRight
	LegendTopLeft
	LegendBottomRight
	LegendBottomLeft
	// LegendOutside puts the legend to the right of the plot area, which
	// narrows the plot area instead of covering data.
	LegendOutside
)

// Plot is one panel: a title, two axes and the series drawn in them.
type Plot struct {
	Title  string
	X, Y   Axis
	Series []Series
	Legend LegendPos
}

// Figure is one SVG file: an optional title over a grid of panels.
type Figure struct {
	Title string
	// Columns is the number of panels per row; 0 means 1 for a single
	// panel, 2 for up to four panels and 3 beyond.
	Columns int
	// PanelWidth and PanelHeight are the size of each panel in pixels; 0
	// means 440 by 320.
	PanelWidth, PanelHeight float64
	Panels                  []Plot
}

// Palette is the Okabe-Ito colour-blind-safe palette, ordered for white
// backgrounds (the pale yellow last).
var Palette = []string{
	"#0072B2", // blue
	"#D55E00", // vermillion
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#E69F00", // orange
	"#56B4E9", // sky blue
	"#000000", // black
	"#F0E442", // yellow
}

// Render returns the figure as a standalone SVG document. It returns an
// error, and no output, if the figure has no panels or any series is
// invalid (see Series and Axis).
func (f *Figure) Render() ([]byte, error) {
	if len(f.Panels) == 0 {
		return nil, fmt.Errorf("svgplot: figure %q has no panels", f.Title)
	}
	if f.Columns < 0 || f.PanelWidth < 0 || f.PanelHeight < 0 ||
		math.IsNaN(f.PanelWidth) || math.IsNaN(f.PanelHeight) ||
		math.IsInf(f.PanelWidth, 0) || math.IsInf(f.PanelHeight, 0) {
		return nil, fmt.Errorf("svgplot: figure %q: negative or non-finite layout size", f.Title)
	}
	panels := make([]*panel, len(f.Panels))
	for i := range f.Panels {
		p, err := newPanel(&f.Panels[i])
		if err != nil {
			return nil, fmt.Errorf("svgplot: panel %d (%q): %w", i, f.Panels[i].Title, err)
		}
		panels[i] = p
	}
	var b w
	writeFigure(&b, f, panels)
	return b.Bytes(), nil
}

// WriteFile renders the figure and writes it to the named file with
// permissions 0644. Nothing is written if rendering fails.
func (f *Figure) WriteFile(name string) error {
	b, err := f.Render()
	if err != nil {
		return err
	}
	return os.WriteFile(name, b, 0o644)
}
