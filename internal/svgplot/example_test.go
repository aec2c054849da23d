package svgplot_test

import (
	"fmt"
	"strings"

	"github.com/neadmm/neadmm/internal/svgplot"
)

// A two-panel figure: throughput against a log-scaled size with error bars,
// and a shaded band. Render validates everything before writing a byte.
func ExampleFigure_Render() {
	n := []float64{16, 256, 4096, 65536}
	fig := &svgplot.Figure{
		Title: "Throughput",
		Panels: []svgplot.Plot{{
			Title: "Dot",
			X:     svgplot.Axis{Label: "n", Scale: svgplot.Log10},
			Y:     svgplot.Axis{Label: "GB/s", IncludeZero: true},
			Series: []svgplot.Series{
				{Name: "accelerated", X: n, Y: []float64{20, 40, 45, 30}, Err: []float64{1, 2, 2, 3}},
				{Name: "generic", X: n, Y: []float64{8, 12, 13, 12}, Err: []float64{1, 1, 1, 1}, Band: true},
			},
		}, {
			Title: "log y rejects zero",
			Y:     svgplot.Axis{Scale: svgplot.Log10},
			Series: []svgplot.Series{
				{X: []float64{1, 2}, Y: []float64{0, 1}},
			},
		}},
	}
	_, err := fig.Render()
	fmt.Println(err)

	fig.Panels = fig.Panels[:1]
	svg, err := fig.Render()
	fmt.Println(err, strings.Count(string(svg), `<path class="series"`), strings.Count(string(svg), "legend-entry"))
	// Output:
	// svgplot: panel 1 ("log y rejects zero"): series 0 (""): log y axis needs positive values, Y[0] = 0
	// <nil> 2 2
}
