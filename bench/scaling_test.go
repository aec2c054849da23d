package main

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestScaling(t *testing.T) {
	dir := t.TempDir()
	js, svgDir := filepath.Join(dir, "out.json"), filepath.Join(dir, "svg")
	code, out, errs := runBench(context.Background(), "scaling", "-bags", "40,80,160", "-features", "4,8",
		"-fixed-bags", "40", "-fixed-features", "5", "-iters", "5", "-reps", "2", "-json", js, "-svg", svgDir, "-quiet")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res ScalingResult
	sectionResults(t, js, "scaling", &res)
	if len(res.VsBags) != 3*2 || len(res.VsFeatures) != 2*2 || len(res.Slopes) != 4 || res.Iters != 5 {
		t.Fatalf("results: %+v", res)
	}
	for i, pt := range append(res.VsBags, res.VsFeatures...) {
		if pt.Seconds.N != 2 || !(pt.Seconds.Median > 0) || pt.Instances < pt.Bags || pt.SetupSeconds.Median > pt.Seconds.Max {
			t.Errorf("point %d: %+v", i, pt)
		}
	}
	for i := 2; i < len(res.VsBags); i++ {
		if res.VsBags[i].Bags <= res.VsBags[i-2].Bags || res.VsBags[i].Features != 5 {
			t.Errorf("bag axis not increasing at %d: %+v", i, res.VsBags)
		}
	}
	for _, s := range res.Slopes {
		// Fits of a millisecond are timing noise (under -race a slope of
		// -2 was seen), so only finiteness is checked; TestLogLogSlope
		// checks the fit itself.
		if math.IsNaN(s.Slope) || math.IsInf(s.Slope, 0) {
			t.Errorf("slope %+v", s)
		}
	}
	if !strings.Contains(out, "Fitted log-log slope") {
		t.Errorf("output:\n%s", out)
	}
	// Two panels, each with two paths and the slope-1 guide.
	if n := checkSVG(t, filepath.Join(svgDir, "scaling-time.svg")); n != 6 {
		t.Errorf("figure has %d series paths, want 6", n)
	}
}

func TestLogLogSlope(t *testing.T) {
	x := []float64{10, 20, 40, 80}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 3 * math.Pow(v, 1.5)
	}
	if s, ok := logLogSlope(x, y); !ok || math.Abs(s-1.5) > 1e-12 {
		t.Errorf("slope %g, %v", s, ok)
	}
	if _, ok := logLogSlope(x[:1], y[:1]); ok {
		t.Error("one point gave a slope")
	}
	if _, ok := logLogSlope([]float64{1, 2}, []float64{0, 1}); ok {
		t.Error("a zero time gave a slope")
	}
}
