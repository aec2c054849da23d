package svgplot

import (
	"bytes"
	"encoding/xml"
	"math"
	"strconv"
	"unicode/utf8"
)

// Layout constants in pixels. Text widths are estimated (there is no font
// metrics table here): charWidth is the mean advance of DejaVu Sans, Arial
// and Helvetica digits and lowercase letters in em, slightly generous so
// margins computed from it leave room.
const (
	fontFamily    = "DejaVu Sans, Helvetica, Arial, sans-serif"
	tickFont      = 11.0
	labelFont     = 12.0
	titleFont     = 13.0
	figTitleFont  = 15.0
	legendFont    = 11.0
	charWidth     = 0.62
	tickLen       = 5.0
	minorTickLen  = 3.0
	markerSize    = 3.5 // circle radius; other shapes scale to similar area
	legendPad     = 6.0
	legendRow     = 16.0
	legendSwatch  = 24.0
	legendInset   = 6.0
	clipSlack     = 6.0 // markers on the frame are not cut in half
	figTitleH     = 34.0
	defaultPanelW = 440.0
	defaultPanelH = 320.0
	maxCoord      = 1e6 // far-off points are clamped to keep coordinates short
)

func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * charWidth * size
}

// num formats a coordinate with at most two decimals and no trailing zeros.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// w is a small SVG writer over a buffer; bytes.Buffer writes cannot fail.
type w struct{ bytes.Buffer }

func (b *w) s(strs ...string) {
	for _, s := range strs {
		b.WriteString(s)
	}
}

func (b *w) esc(s string) { _ = xml.EscapeText(b, []byte(s)) }

func (b *w) text(x, y, size float64, anchor, extra, s string) {
	b.s(`<text x="`, num(x), `" y="`, num(y), `" font-size="`, num(size), `"`)
	if anchor != "" {
		b.s(` text-anchor="`, anchor, `"`)
	}
	b.s(extra, `>`)
	b.esc(s)
	b.s("</text>\n")
}

func (b *w) line(x1, y1, x2, y2 float64, attrs string) {
	b.s(`<line x1="`, num(x1), `" y1="`, num(y1), `" x2="`, num(x2), `" y2="`, num(y2), `" `, attrs, "/>\n")
}

func writeFigure(b *w, f *Figure, panels []*panel) {
	cols := f.Columns
	if cols == 0 {
		switch n := len(panels); {
		case n == 1:
			cols = 1
		case n <= 4:
			cols = 2
		default:
			cols = 3
		}
	}
	cols = min(cols, len(panels))
	rows := (len(panels) + cols - 1) / cols
	pw, ph := f.PanelWidth, f.PanelHeight
	if pw == 0 {
		pw = defaultPanelW
	}
	if ph == 0 {
		ph = defaultPanelH
	}
	th := 0.0
	if f.Title != "" {
		th = figTitleH
	}
	width, height := float64(cols)*pw, th+float64(rows)*ph

	b.s(`<?xml version="1.0" encoding="UTF-8"?>`, "\n")
	b.s(`<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="`, num(width), `" height="`, num(height),
		`" viewBox="0 0 `, num(width), " ", num(height), `" font-family="`, fontFamily, `">`, "\n")
	if f.Title != "" {
		b.s("<title>")
		b.esc(f.Title)
		b.s("</title>\n")
	}
	b.s(`<rect x="0" y="0" width="`, num(width), `" height="`, num(height), `" fill="white"/>`, "\n")
	if f.Title != "" {
		b.text(width/2, 24, figTitleFont, "middle", ` font-weight="bold"`, f.Title)
	}
	for i, pn := range panels {
		ox := float64(i%cols) * pw
		oy := th + float64(i/cols)*ph
		drawPanel(b, i, pn, ox, oy, pw, ph)
	}
	b.s("</svg>\n")
}

// frame is a panel's plot area and its data-to-pixel mapping.
type frame struct {
	left, right, top, bottom float64
	x, y                     *axisInfo
}

func clampCoord(v float64) float64 { return math.Max(-maxCoord, math.Min(maxCoord, v)) }

func (fr *frame) px(v float64) float64 {
	t := fr.x.t(v)
	if math.IsInf(t, -1) {
		return fr.left
	}
	return clampCoord(fr.left + (t-fr.x.lo)/(fr.x.hi-fr.x.lo)*(fr.right-fr.left))
}

// py maps y; a non-positive value on a log axis maps to the bottom edge,
// which is where bars and bands reaching it are cut.
func (fr *frame) py(v float64) float64 {
	t := fr.y.t(v)
	if math.IsInf(t, -1) {
		return fr.bottom
	}
	return clampCoord(fr.bottom - (t-fr.y.lo)/(fr.y.hi-fr.y.lo)*(fr.bottom-fr.top))
}

type legendBox struct {
	x, y, w, h float64
	entries    []*seriesInfo
}

// drawPanel draws one panel in the cell of size pw x ph at (ox, oy): grid
// lines, the series (clipped to the plot area), frame, ticks, labels,
// title and legend, in that order.
func drawPanel(b *w, idx int, pn *panel, ox, oy, pw, ph float64) {
	fr, lg := layoutPanel(pn, ox, oy, pw, ph)
	b.s(`<g class="panel">`, "\n")
	drawGrid(b, fr, pn)
	drawSeries(b, fr, pn, "clip"+strconv.Itoa(idx))
	drawAxes(b, fr, pn, ox, oy, ph)
	if len(lg.entries) > 0 {
		placeLegend(lg, pn.p.Legend, fr, pn)
		drawLegend(b, lg)
	}
	b.s("</g>\n")
}

// layoutPanel returns the panel's plot area, with margins sized from the
// text they hold, and its legend's entries and size (not yet placed).
func layoutPanel(pn *panel, ox, oy, pw, ph float64) (*frame, *legendBox) {
	p := pn.p
	yTickW := 0.0
	for _, t := range pn.y.ticks {
		yTickW = math.Max(yTickW, textWidth(t.label, tickFont))
	}
	left := ox + 10 + yTickW + tickLen + 4
	if pn.y.label != "" {
		left += labelFont + 6
	}
	top := oy + 12
	if p.Title != "" {
		top = oy + 30
	}
	bottom := oy + ph - 10 - tickFont - tickLen - 6
	if pn.x.label != "" {
		bottom -= labelFont + 6
	}
	rightPad := 14.0
	for i := len(pn.x.ticks) - 1; i >= 0; i-- {
		if t := pn.x.ticks[i]; t.label != "" {
			rightPad = math.Max(rightPad, textWidth(t.label, tickFont)/2+4)
			break
		}
	}
	lg := &legendBox{}
	if p.Legend != LegendNone {
		maxW := 0.0
		for i := range pn.series {
			if s := &pn.series[i]; s.Name != "" {
				lg.entries = append(lg.entries, s)
				maxW = math.Max(maxW, textWidth(s.Name, legendFont))
			}
		}
		lg.w = 2*legendPad + legendSwatch + 6 + maxW
		lg.h = 2*legendPad + legendRow*float64(len(lg.entries))
	}
	right := ox + pw - rightPad
	if p.Legend == LegendOutside && len(lg.entries) > 0 {
		right = ox + pw - lg.w - 10 - 8
	}
	right = math.Max(right, left+40)
	bottom = math.Max(bottom, top+40)
	return &frame{left: left, right: right, top: top, bottom: bottom, x: &pn.x, y: &pn.y}, lg
}

// drawGrid draws grid lines at the major ticks, under everything else.
func drawGrid(b *w, fr *frame, pn *panel) {
	for _, t := range pn.x.ticks {
		if t.major {
			x := fr.px(t.v)
			b.line(x, fr.top, x, fr.bottom, `stroke="#e6e6e6" stroke-width="1"`)
		}
	}
	for _, t := range pn.y.ticks {
		if t.major {
			y := fr.py(t.v)
			b.line(fr.left, y, fr.right, y, `stroke="#e6e6e6" stroke-width="1"`)
		}
	}
}

// drawSeries draws the series clipped to the plot area (clip path
// clipID): every band first, then each series' bars, line and markers.
func drawSeries(b *w, fr *frame, pn *panel, clipID string) {
	b.s(`<clipPath id="`, clipID, `"><rect x="`, num(fr.left-clipSlack), `" y="`, num(fr.top-clipSlack),
		`" width="`, num(fr.right-fr.left+2*clipSlack), `" height="`, num(fr.bottom-fr.top+2*clipSlack), `"/></clipPath>`, "\n")
	b.s(`<g clip-path="url(#`, clipID, `)">`, "\n")
	for i := range pn.series {
		if s := &pn.series[i]; s.Band && s.lo != nil {
			drawBand(b, fr, s)
		}
	}
	for i := range pn.series {
		s := &pn.series[i]
		if !s.Band && s.lo != nil {
			drawBars(b, fr, s)
		}
		if !s.NoLine {
			drawLine(b, fr, s)
		}
		for j, x := range s.X {
			if y := s.Y[j]; finite(x) && finite(y) {
				drawMarker(b, s.marker, fr.px(x), fr.py(y), s.color)
			}
		}
	}
	b.s("</g>\n")
}

// drawAxes draws the frame, the ticks and their labels, the axis labels
// and the title of the panel whose cell starts at (ox, oy), ph high.
func drawAxes(b *w, fr *frame, pn *panel, ox, oy, ph float64) {
	left, right, top, bottom := fr.left, fr.right, fr.top, fr.bottom
	b.s(`<rect x="`, num(left), `" y="`, num(top), `" width="`, num(right-left), `" height="`, num(bottom-top),
		`" fill="none" stroke="#444444" stroke-width="1"/>`, "\n")
	for _, t := range pn.x.ticks {
		x := fr.px(t.v)
		l := minorTickLen
		if t.major {
			l = tickLen
		}
		b.line(x, bottom, x, bottom+l, `stroke="#444444" stroke-width="1"`)
		if t.label != "" {
			b.text(x, bottom+tickLen+3+tickFont*0.8, tickFont, "middle", "", t.label)
		}
	}
	for _, t := range pn.y.ticks {
		y := fr.py(t.v)
		l := minorTickLen
		if t.major {
			l = tickLen
		}
		b.line(left-l, y, left, y, `stroke="#444444" stroke-width="1"`)
		if t.label != "" {
			b.text(left-tickLen-3, y+tickFont*0.35, tickFont, "end", "", t.label)
		}
	}
	if pn.x.label != "" {
		b.text((left+right)/2, oy+ph-10, labelFont, "middle", "", pn.x.label)
	}
	if pn.y.label != "" {
		cx, cy := ox+10+labelFont*0.8, (top+bottom)/2
		b.s(`<text transform="translate(`, num(cx), " ", num(cy), `) rotate(-90)" font-size="`, num(labelFont),
			`" text-anchor="middle">`)
		b.esc(pn.y.label)
		b.s("</text>\n")
	}
	if pn.p.Title != "" {
		b.text((left+right)/2, oy+20, titleFont, "middle", ` font-weight="bold"`, pn.p.Title)
	}
}

// segments calls fn for each maximal run [i, j) of indices where ok holds.
func segments(n int, ok func(int) bool, fn func(i, j int)) {
	for i := 0; i < n; {
		if !ok(i) {
			i++
			continue
		}
		j := i
		for j < n && ok(j) {
			j++
		}
		fn(i, j)
		i = j
	}
}

func drawLine(b *w, fr *frame, s *seriesInfo) {
	b.s(`<path class="series" d="`)
	first := true
	segments(len(s.X), func(j int) bool { return finite(s.X[j]) && finite(s.Y[j]) }, func(i, j int) {
		for k := i; k < j; k++ {
			if !first {
				b.s(" ")
			}
			first = false
			if k == i {
				b.s("M")
			} else {
				b.s("L")
			}
			b.s(num(fr.px(s.X[k])), " ", num(fr.py(s.Y[k])))
		}
	})
	b.s(`" fill="none" stroke="`, s.color, `" stroke-width="1.8" stroke-linejoin="round"`)
	if s.Dashed {
		b.s(` stroke-dasharray="6 4"`)
	}
	b.s("/>\n")
}

// intervalOK reports whether point j has a drawable interval. A bound that
// is non-positive on a log axis is drawable (it is cut at the bottom).
func intervalOK(s *seriesInfo, j int) bool {
	lo, hi := s.lo[j], s.hi[j]
	return finite(s.X[j]) && !math.IsNaN(lo) && !math.IsNaN(hi) && !math.IsInf(lo, 0) && !math.IsInf(hi, 0)
}

func drawBand(b *w, fr *frame, s *seriesInfo) {
	segments(len(s.X), func(j int) bool { return intervalOK(s, j) }, func(i, j int) {
		if j-i < 2 {
			return // a single point has no band; its marker still shows
		}
		b.s(`<polygon class="band" points="`)
		for k := i; k < j; k++ {
			b.s(num(fr.px(s.X[k])), ",", num(fr.py(s.hi[k])), " ")
		}
		for k := j - 1; k >= i; k-- {
			b.s(num(fr.px(s.X[k])), ",", num(fr.py(s.lo[k])))
			if k > i {
				b.s(" ")
			}
		}
		b.s(`" fill="`, s.color, `" fill-opacity="0.2" stroke="none"/>`, "\n")
	})
}

func drawBars(b *w, fr *frame, s *seriesInfo) {
	attrs := `class="errorbar" stroke="` + s.color + `" stroke-width="1.2"`
	for j := range s.X {
		if !intervalOK(s, j) {
			continue
		}
		x, ylo, yhi := fr.px(s.X[j]), fr.py(s.lo[j]), fr.py(s.hi[j])
		b.line(x, ylo, x, yhi, attrs)
		b.line(x-3, ylo, x+3, ylo, attrs)
		b.line(x-3, yhi, x+3, yhi, attrs)
	}
}

func drawMarker(b *w, m Marker, x, y float64, color string) {
	const r = markerSize
	fill := `" fill="` + color + `" stroke="white" stroke-width="0.8"/>` + "\n"
	switch m {
	case Circle:
		b.s(`<circle cx="`, num(x), `" cy="`, num(y), `" r="`, num(r), fill)
	case Square:
		a := r * 0.9
		b.s(`<rect x="`, num(x-a), `" y="`, num(y-a), `" width="`, num(2*a), `" height="`, num(2*a), fill)
	case Triangle:
		a := r * 1.25
		b.s(`<polygon points="`, num(x), ",", num(y-a), " ", num(x+a*0.866), ",", num(y+a*0.5), " ",
			num(x-a*0.866), ",", num(y+a*0.5), fill)
	case Diamond:
		a := r * 1.25
		b.s(`<polygon points="`, num(x), ",", num(y-a), " ", num(x+a), ",", num(y), " ",
			num(x), ",", num(y+a), " ", num(x-a), ",", num(y), fill)
	case Cross:
		a := r * 0.95
		attrs := `stroke="` + color + `" stroke-width="1.6"`
		b.line(x-a, y-a, x+a, y+a, attrs)
		b.line(x-a, y+a, x+a, y-a, attrs)
	}
}

// placeLegend sets the legend's position. LegendAuto tries the four inner
// corners and takes the one covering the fewest sampled data pixels.
func placeLegend(lg *legendBox, pos LegendPos, fr *frame, pn *panel) {
	corner := func(c LegendPos) (float64, float64) {
		switch c {
		case LegendTopLeft:
			return fr.left + legendInset, fr.top + legendInset
		case LegendBottomRight:
			return fr.right - legendInset - lg.w, fr.bottom - legendInset - lg.h
		case LegendBottomLeft:
			return fr.left + legendInset, fr.bottom - legendInset - lg.h
		case LegendOutside:
			return fr.right + 10, fr.top
		default:
			return fr.right - legendInset - lg.w, fr.top + legendInset
		}
	}
	if pos != LegendAuto {
		lg.x, lg.y = corner(pos)
		return
	}
	pts := samplePoints(fr, pn)
	best, bestN := LegendTopRight, -1
	for _, c := range []LegendPos{LegendTopRight, LegendTopLeft, LegendBottomRight, LegendBottomLeft} {
		x, y := corner(c)
		n := 0
		for _, q := range pts {
			if q[0] >= x-2 && q[0] <= x+lg.w+2 && q[1] >= y-2 && q[1] <= y+lg.h+2 {
				n++
			}
		}
		if bestN < 0 || n < bestN {
			best, bestN = c, n
		}
	}
	lg.x, lg.y = corner(best)
}

// samplePoints returns pixel positions covering what the series draw:
// points, line segments (interpolated) and interval ends.
func samplePoints(fr *frame, pn *panel) [][2]float64 {
	var pts [][2]float64
	for i := range pn.series {
		s := &pn.series[i]
		prevOK := false
		var px0, py0 float64
		for j, x := range s.X {
			ok := finite(x) && finite(s.Y[j])
			if ok {
				px, py := fr.px(x), fr.py(s.Y[j])
				pts = append(pts, [2]float64{px, py})
				if prevOK && !s.NoLine {
					for k := 1; k < 8; k++ {
						t := float64(k) / 8
						pts = append(pts, [2]float64{px0 + t*(px-px0), py0 + t*(py-py0)})
					}
				}
				px0, py0 = px, py
			}
			prevOK = ok
			if s.lo != nil && intervalOK(s, j) {
				pts = append(pts, [2]float64{fr.px(x), fr.py(s.lo[j])}, [2]float64{fr.px(x), fr.py(s.hi[j])})
			}
		}
	}
	return pts
}

func drawLegend(b *w, lg *legendBox) {
	b.s(`<g class="legend">`, "\n")
	b.s(`<rect x="`, num(lg.x), `" y="`, num(lg.y), `" width="`, num(lg.w), `" height="`, num(lg.h),
		`" fill="white" fill-opacity="0.9" stroke="#bbbbbb" stroke-width="0.8"/>`, "\n")
	for i, s := range lg.entries {
		cy := lg.y + legendPad + legendRow*(float64(i)+0.5)
		x0 := lg.x + legendPad
		b.s(`<g class="legend-entry">`, "\n")
		if s.Band && s.lo != nil {
			b.s(`<rect x="`, num(x0), `" y="`, num(cy-5), `" width="`, num(legendSwatch), `" height="10" fill="`,
				s.color, `" fill-opacity="0.2" stroke="none"/>`, "\n")
		}
		if !s.NoLine {
			attrs := `stroke="` + s.color + `" stroke-width="1.8"`
			if s.Dashed {
				attrs += ` stroke-dasharray="6 4"`
			}
			b.line(x0, cy, x0+legendSwatch, cy, attrs)
		}
		drawMarker(b, s.marker, x0+legendSwatch/2, cy, s.color)
		b.text(x0+legendSwatch+6, cy+legendFont*0.35, legendFont, "", "", s.Name)
		b.s("</g>\n")
	}
	b.s("</g>\n")
}
