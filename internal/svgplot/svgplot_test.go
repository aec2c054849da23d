package svgplot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// element is one start tag of a parsed document.
type element struct {
	name  string
	attrs map[string]string
	text  string // character data directly inside, for <text>
}

// parseSVG walks the whole document with encoding/xml, failing the test if
// it is not well-formed, and returns its elements in document order.
func parseSVG(t *testing.T, b []byte) []*element {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var els, stack []*element
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, b)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			els = append(els, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if len(els) == 0 || els[0].name != "svg" || els[0].attrs["xmlns"] != "http://www.w3.org/2000/svg" {
		t.Fatalf("root is not an svg element with the SVG namespace")
	}
	return els
}

func count(els []*element, name, class string) int {
	n := 0
	for _, e := range els {
		if e.name == name && (class == "" || e.attrs["class"] == class) {
			n++
		}
	}
	return n
}

func seq(n int, f func(i int) float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

func render(t *testing.T, f *Figure) []byte {
	t.Helper()
	b, err := f.Render()
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		mant int64
		exp  int
		want string
	}{
		{0, 0, "0"}, {0, 2, "0"}, {0, -1, "0.0"}, {5, -1, "0.5"}, {15, -1, "1.5"},
		{-25, -2, "−0.25"}, {2, 1, "20"}, {123, 0, "123"}, {1, -4, "0.0001"},
	} {
		if got := formatPlain(c.mant, c.exp); got != c.want {
			t.Errorf("formatPlain(%d, %d) = %q, want %q", c.mant, c.exp, got, c.want)
		}
	}
	for _, c := range []struct {
		mant int64
		exp  int
		want string
	}{
		{0, 5, "0"}, {1, 6, "10⁶"}, {10, 5, "10⁶"}, {2, 6, "2×10⁶"}, {25, 5, "2.5×10⁶"},
		{1, -5, "10⁻⁵"}, {-5, -7, "−5×10⁻⁷"},
	} {
		if got := formatSci(c.mant, c.exp); got != c.want {
			t.Errorf("formatSci(%d, %d) = %q, want %q", c.mant, c.exp, got, c.want)
		}
	}
}

// checkCover checks that the first tick is <= lo and the last >= hi, up to
// the snapping tolerance (snapTol relative to the span: the ticks may snap a
// range end that is a few ulps off a tick onto it).
func checkCover(t *testing.T, ticks []tick, lo, hi float64, log bool) {
	t.Helper()
	if len(ticks) < 2 {
		t.Fatalf("[%g, %g]: %d ticks", lo, hi, len(ticks))
	}
	first, last := ticks[0].v, ticks[len(ticks)-1].v
	tol := 10 * snapTol * math.Max(hi-lo, math.Max(math.Abs(lo), math.Abs(hi)))
	if log {
		tol = 10 * snapTol * hi
	}
	if first > lo+tol || last < hi-tol {
		t.Errorf("[%g, %g]: ticks [%g .. %g] do not cover the range", lo, hi, first, last)
	}
	for i := 1; i < len(ticks); i++ {
		if !(ticks[i].v > ticks[i-1].v) {
			t.Errorf("[%g, %g]: ticks not increasing at %d: %g, %g", lo, hi, i, ticks[i-1].v, ticks[i].v)
		}
	}
	seen := map[string]bool{}
	majors := 0
	for _, tk := range ticks {
		if tk.major {
			majors++
			if tk.label == "" || seen[tk.label] {
				t.Errorf("[%g, %g]: major tick %g has empty or duplicate label %q", lo, hi, tk.v, tk.label)
			}
			seen[tk.label] = true
		} else if tk.label != "" {
			t.Errorf("minor tick %g has label %q", tk.v, tk.label)
		}
	}
	if majors < 2 || majors > 11 {
		t.Errorf("[%g, %g]: %d labelled ticks, want 2..11", lo, hi, majors)
	}
}

func TestLinearTicksAreNiceAndCover(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := [][2]float64{{0, 1}, {0.3, 0.5}, {-7, 3}, {50, 500}, {1e6, 1e6 + 10}, {-1e-7, 3e-7}, {5, 5}, {0, 0}, {-2, -2}}
	for i := 0; i < 2000; i++ {
		scale := math.Pow(10, float64(r.IntN(24)-12))
		a, b := (r.Float64()*2-1)*scale, (r.Float64()*2-1)*scale
		cases = append(cases, [2]float64{math.Min(a, b), math.Max(a, b)})
	}
	for _, c := range cases {
		ticks, err := linearTicks(c[0], c[1])
		if err != nil {
			t.Fatalf("linearTicks(%g, %g): %v", c[0], c[1], err)
		}
		checkCover(t, ticks, c[0], c[1], false)
		// Equal steps of 1, 2 or 5 times a power of ten.
		step := ticks[1].v - ticks[0].v
		mant := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if !(math.Abs(mant-1) < 1e-6 || math.Abs(mant-2) < 1e-6 || math.Abs(mant-5) < 1e-6 || math.Abs(mant-10) < 1e-6) {
			t.Errorf("[%g, %g]: step %g is not 1, 2 or 5 times a power of ten", c[0], c[1], step)
		}
		for i := 2; i < len(ticks); i++ {
			if d := ticks[i].v - ticks[i-1].v; math.Abs(d-step) > 1e-9*step {
				t.Errorf("[%g, %g]: uneven step %g vs %g", c[0], c[1], d, step)
			}
		}
	}
}

func TestLinearTickLabels(t *testing.T) {
	ticks, err := linearTicks(0.3, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range ticks {
		got = append(got, tk.label)
	}
	// 0.3/0.05 rounds to 5.999..., which must snap onto the tick 0.30 and
	// not push the axis out to 0.25.
	if want := "0.30 0.35 0.40 0.45 0.50"; strings.Join(got, " ") != want {
		t.Errorf("labels for [0.3, 0.5] = %q, want %q", strings.Join(got, " "), want)
	}
}

func TestLogTicksCover(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := [][2]float64{{16, 1 << 22}, {0.3, 0.5}, {1, 10}, {2, 2}, {1e-300, 1e300}, {3, 30}, {0.02, 1.1}}
	for i := 0; i < 2000; i++ {
		a := math.Pow(10, r.Float64()*40-20)
		b := a * math.Pow(10, r.Float64()*float64(r.IntN(12)))
		cases = append(cases, [2]float64{a, b})
	}
	for _, c := range cases {
		ticks, err := logTicks(c[0], c[1])
		if err != nil {
			t.Fatalf("logTicks(%g, %g): %v", c[0], c[1], err)
		}
		checkCover(t, ticks, c[0], c[1], true)
	}
	ticks, _ := logTicks(16, 1<<22)
	var labels []string
	for _, tk := range ticks {
		if tk.major {
			labels = append(labels, tk.label)
		}
	}
	if want := "10¹ 10² 10³ 10⁴ 10⁵ 10⁶ 10⁷"; strings.Join(labels, " ") != want {
		t.Errorf("labels for [16, 2^22] = %q, want %q", strings.Join(labels, " "), want)
	}
}

func fullFigure() *Figure {
	x := seq(12, func(i int) float64 { return float64(int(16) << (2 * i)) })
	y := seq(12, func(i int) float64 { return 1 + float64(i) })
	sd := seq(12, func(i int) float64 { return 0.2 * float64(i) })
	roc := seq(200, func(i int) float64 { return float64(i) / 199 })
	return &Figure{
		Title: `Title with <markup> & "quotes"`,
		Panels: []Plot{
			{Title: "log-x with bars", X: Axis{Label: "n", Scale: Log10}, Y: Axis{Label: "GB/s", IncludeZero: true},
				Series: []Series{{Name: "a & b", X: x, Y: y, Err: sd}, {Name: "c", X: x, Y: y, Err: sd, Band: true, Dashed: true}}},
			{Title: "scatter", X: Axis{Label: "x"}, Y: Axis{Label: "y", Scale: Log10},
				Series: []Series{{Name: "pts", X: y, Y: y, NoLine: true}, {X: y, Y: y, Marker: MarkerNone}}, Legend: LegendOutside},
			{Title: "dense", X: Axis{Min: 0, Max: 1}, Y: Axis{Min: 0, Max: 1},
				Series: []Series{{Name: "roc", X: roc, Y: seq(200, func(i int) float64 { return math.Sqrt(roc[i]) })}}, Legend: LegendBottomRight},
			{Title: "no legend", Series: []Series{{Name: "hidden", X: y, Y: y, Lo: y, Hi: y, Marker: Cross}}, Legend: LegendNone},
		},
	}
}

func TestRenderStructure(t *testing.T) {
	f := fullFigure()
	els := parseSVG(t, render(t, f))
	if n := count(els, "g", "panel"); n != len(f.Panels) {
		t.Errorf("%d panels, want %d", n, len(f.Panels))
	}
	// One path per series drawing a line: 2 + 1 (the other is NoLine) + 1 + 1.
	if n := count(els, "path", ""); n != 5 {
		t.Errorf("%d path elements, want 5", n)
	}
	if n := count(els, "path", "series"); n != 5 {
		t.Errorf("%d series paths, want 5", n)
	}
	// Legend entries: named series in panels with a legend: 2 + 1 + 1.
	if n := count(els, "g", "legend-entry"); n != 4 {
		t.Errorf("%d legend entries, want 4", n)
	}
	if n := count(els, "polygon", "band"); n != 1 {
		t.Errorf("%d bands, want 1", n)
	}
	// Bars of the first series: 12 points, 3 lines each (stem and caps);
	// the Lo/Hi series of the last panel adds 12 more.
	if n := count(els, "line", "errorbar"); n != 2*3*12 {
		t.Errorf("%d error bar lines, want %d", n, 2*3*12)
	}
	// Auto markers: circles for the first series of the first two panels
	// (12 points and a legend swatch each); the 200-point dense series gets
	// none and MarkerNone none.
	if n := count(els, "circle", ""); n != 26 {
		t.Errorf("%d circles, want 26", n)
	}
	var sawTitle bool
	for _, e := range els {
		if e.name == "text" && e.text == `Title with <markup> & "quotes"` {
			sawTitle = true
		}
	}
	if !sawTitle {
		t.Error("escaped title does not read back as the original text")
	}
}

func TestDeterministic(t *testing.T) {
	a, b := render(t, fullFigure()), render(t, fullFigure())
	if !bytes.Equal(a, b) {
		t.Error("two renders of the same figure differ")
	}
}

func TestNaNAndInfLeaveGaps(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	f := &Figure{Panels: []Plot{{X: Axis{Scale: Log10}, Series: []Series{
		{Name: "gappy", X: []float64{1, 2, 3, 4, 5, 6, 7}, Y: []float64{1, 2, nan, 4, 5, inf, 7}},
		{Name: "all nan", X: []float64{1, 2}, Y: []float64{nan, nan}},
		{Name: "nan x", X: []float64{1, nan, 3}, Y: []float64{1, 2, 3}},
	}}}}
	els := parseSVG(t, render(t, f))
	var ds []string
	for _, e := range els {
		if e.name == "path" {
			ds = append(ds, e.attrs["d"])
		}
	}
	if len(ds) != 3 {
		t.Fatalf("%d paths, want 3", len(ds))
	}
	for i, want := range []struct{ m, l int }{{3, 2}, {0, 0}, {2, 0}} {
		if m, l := strings.Count(ds[i], "M"), strings.Count(ds[i], "L"); m != want.m || l != want.l {
			t.Errorf("path %d %q: %d M and %d L, want %d and %d", i, ds[i], m, l, want.m, want.l)
		}
	}
	if strings.Contains(string(render(t, f)), "NaN") || strings.Contains(string(render(t, f)), "Inf") {
		t.Error("output contains NaN or Inf coordinates")
	}
}

func TestInvalidInput(t *testing.T) {
	ok := []float64{1, 2}
	cases := map[string]Figure{
		"no panels":       {},
		"length":          {Panels: []Plot{{Series: []Series{{X: ok, Y: []float64{1}}}}}},
		"log y zero":      {Panels: []Plot{{Y: Axis{Scale: Log10}, Series: []Series{{X: ok, Y: []float64{0, 1}}}}}},
		"log y negative":  {Panels: []Plot{{Y: Axis{Scale: Log10}, Series: []Series{{X: ok, Y: []float64{1, -1}}}}}},
		"log x negative":  {Panels: []Plot{{X: Axis{Scale: Log10}, Series: []Series{{X: []float64{-1, 1}, Y: ok}}}}},
		"log fixed min 0": {Panels: []Plot{{X: Axis{Scale: Log10, Min: 0, Max: 10}, Series: []Series{{X: ok, Y: ok}}}}},
		"err and lo":      {Panels: []Plot{{Series: []Series{{X: ok, Y: ok, Err: ok, Lo: ok, Hi: ok}}}}},
		"err length":      {Panels: []Plot{{Series: []Series{{X: ok, Y: ok, Err: []float64{1}}}}}},
		"negative err":    {Panels: []Plot{{Series: []Series{{X: ok, Y: ok, Err: []float64{1, -1}}}}}},
		"lo above hi":     {Panels: []Plot{{Series: []Series{{X: ok, Y: ok, Lo: []float64{3, 1}, Hi: ok}}}}},
		"hi missing":      {Panels: []Plot{{Series: []Series{{X: ok, Y: ok, Lo: ok}}}}},
		"invisible":       {Panels: []Plot{{Series: []Series{{X: ok, Y: ok, NoLine: true, Marker: MarkerNone}}}}},
		"fixed inf":       {Panels: []Plot{{X: Axis{Min: 0, Max: math.Inf(1)}, Series: []Series{{X: ok, Y: ok}}}}},
		"huge range":      {Panels: []Plot{{Series: []Series{{X: []float64{-math.MaxFloat64, math.MaxFloat64}, Y: ok}}}}},
		"bad scale":       {Panels: []Plot{{X: Axis{Scale: 7}}}},
		"negative size":   {PanelWidth: -1, Panels: []Plot{{}}},
	}
	for name, f := range cases {
		b, err := f.Render()
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if b != nil {
			t.Errorf("%s: output returned with the error", name)
		}
	}
	// Non-positive bounds of bars and bands are fine on a log axis: cut.
	f := Figure{Panels: []Plot{{Y: Axis{Scale: Log10}, Series: []Series{{X: ok, Y: ok, Err: []float64{5, 5}, Band: true}}}}}
	parseSVG(t, render(t, &f))
}

func TestFixedRangeTicksInside(t *testing.T) {
	f := &Figure{Panels: []Plot{{X: Axis{Min: 0.05, Max: 0.95}, Series: []Series{{X: []float64{-3, 0.5, 9}, Y: []float64{1, 2, 3}}}}}}
	p, err := newPanel(&f.Panels[0])
	if err != nil {
		t.Fatal(err)
	}
	if p.x.lo != 0.05 || p.x.hi != 0.95 {
		t.Errorf("fixed range became [%g, %g]", p.x.lo, p.x.hi)
	}
	for _, tk := range p.x.ticks {
		if tk.v < 0.05 || tk.v > 0.95 {
			t.Errorf("tick %g outside the fixed range", tk.v)
		}
	}
	parseSVG(t, render(t, f))
}

func TestLegendAvoidsData(t *testing.T) {
	// Data fills the top-right corner; the legend must go elsewhere.
	x := seq(50, func(i int) float64 { return float64(i) })
	f := &Figure{Panels: []Plot{{Series: []Series{{Name: "rising", X: x, Y: x}}}}}
	p, _ := newPanel(&f.Panels[0])
	fr := &frame{left: 50, right: 400, top: 20, bottom: 280, x: &p.x, y: &p.y}
	lg := &legendBox{w: 100, h: 30}
	placeLegend(lg, LegendAuto, fr, p)
	if (lg.x < 200) != (lg.y < 150) { // top-left or bottom-right are both clear
		t.Errorf("legend at (%g, %g) sits on the diagonal data", lg.x, lg.y)
	}
}

func TestWriteFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f.svg")
	if err := fullFigure().WriteFile(name); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	parseSVG(t, b)
	bad := filepath.Join(t.TempDir(), "bad.svg")
	if err := (&Figure{}).WriteFile(bad); err == nil {
		t.Error("no error for an empty figure")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Error("a file was written for an invalid figure")
	}
}

func BenchmarkRender(b *testing.B) {
	f := fullFigure()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Render(); err != nil {
			b.Fatal(err)
		}
	}
}
