package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
)

// sectionResults reads a -json report and decodes the results of its only
// section into v.
func sectionResults(t *testing.T, name, command string, v any) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Sections []struct {
			Command string
			Status  string
			Error   string
			Figures []string
			Results json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("JSON does not parse: %v", err)
	}
	if len(rep.Sections) != 1 || rep.Sections[0].Command != command || rep.Sections[0].Status != "ok" {
		t.Fatalf("sections: %+v", rep.Sections)
	}
	if err := json.Unmarshal(rep.Sections[0].Results, v); err != nil {
		t.Fatalf("results do not parse: %v", err)
	}
}

func inUnit(v float64) bool { return v >= 0 && v <= 1 }

func checkMILEval(t *testing.T, ds string, ev *MILEval) {
	t.Helper()
	m := ev.Mean
	for _, v := range []float64{m.ACC, m.PR, m.RE, m.F1, m.AUC, m.AUPRTrapz, m.AP} {
		if !inUnit(v) {
			t.Errorf("%s %s %s: metric outside [0,1]: %+v", ds, ev.Method, ev.Protocol, m)
			break
		}
	}
	if ev.FitSeconds.N != ev.Splits || !(ev.FitSeconds.Median > 0) || !(ev.Iterations.Median >= 1) ||
		!(ev.MsPerIteration.Median > 0) || ev.Converged > ev.Splits {
		t.Errorf("%s %s: fits %+v iterations %+v ms/iter %+v converged %d of %d", ds, ev.Method,
			ev.FitSeconds, ev.Iterations, ev.MsPerIteration, ev.Converged, ev.Splits)
	}
	sum := 0.0
	for _, k := range []string{"q", "beta", "t", "engine"} {
		if !(ev.Split[k] >= 0) {
			t.Errorf("%s %s: time split %v", ds, ev.Method, ev.Split)
		}
		sum += ev.Split[k]
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("%s %s: time split sums to %g", ds, ev.Method, sum)
	}
}

// TestMILSynthetic runs the mil command on synthetic bags only (an empty
// data directory) under both protocols and checks the JSON and the figure.
func TestMILSynthetic(t *testing.T) {
	dir := t.TempDir()
	js, svgDir := filepath.Join(dir, "out.json"), filepath.Join(dir, "svg")
	code, out, errs := runBench(context.Background(), "mil", "-data", dir, "-synth", "200", "-folds", "3", "-repeats", "1",
		"-json", js, "-svg", svgDir, "-quiet")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res MILResult
	sectionResults(t, js, "mil", &res)
	if len(res.Datasets) != 1 {
		t.Fatalf("%d data sets, want the synthetic one only", len(res.Datasets))
	}
	ds := res.Datasets[0]
	if ds.Bags != 200 || ds.Paper != nil || len(ds.Evals) != 4 {
		t.Fatalf("data set %+v", ds)
	}
	for _, ev := range ds.Evals {
		checkMILEval(t, ds.Name, ev)
		want := 1
		if strings.Contains(ev.Protocol, "CV") {
			want = 3
		}
		if ev.Splits != want {
			t.Errorf("%s %s: %d splits, want %d", ev.Method, ev.Protocol, ev.Splits, want)
		}
		// The planted rule is learnable: a working learner ranks well.
		if ev.Method == "default" && ev.Mean.AUC < 0.8 {
			t.Errorf("%s: AUC %.3f on synthetic bags", ev.Protocol, ev.Mean.AUC)
		}
	}
	if !strings.Contains(out, "| default |") || !strings.Contains(out, "time per outer iteration split") {
		t.Errorf("output:\n%s", out)
	}
	// ROC and PR panels: two methods each, plus the chance line in ROC.
	if n := checkSVG(t, filepath.Join(svgDir, "mil-synthetic-200-bags.svg")); n != 5 {
		t.Errorf("figure has %d series paths, want 5", n)
	}
}

// TestMILRealData runs the paper's split on fox with the paper's settings
// (fast: 100 iterations) and checks the paper's Table 1 row comes along.
func TestMILRealData(t *testing.T) {
	datadir.File(t, "fox.csv")
	dir, _ := datadir.Find()
	js := filepath.Join(t.TempDir(), "out.json")
	code, out, errs := runBench(context.Background(), "mil", "-data", dir, "-files", "fox.csv", "-protocols", "split",
		"-methods", "paper", "-json", js, "-quiet")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res MILResult
	sectionResults(t, js, "mil", &res)
	if len(res.Datasets) != 1 {
		t.Fatalf("%d data sets", len(res.Datasets))
	}
	ds := res.Datasets[0]
	if ds.Name != "fox.csv" || ds.Bags != 200 || ds.Paper == nil || ds.Paper.AUC != 0.5422 || len(ds.Evals) != 1 {
		t.Fatalf("%+v", ds)
	}
	ev := ds.Evals[0]
	checkMILEval(t, ds.Name, ev)
	if ev.Iterations.Median != 100 || ev.Splits != 1 {
		t.Errorf("paper settings: %v iterations, %d splits", ev.Iterations.Median, ev.Splits)
	}
	if !strings.Contains(out, "| paper, Table 1 |") {
		t.Errorf("no paper row in:\n%s", out)
	}
}

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

func TestMILScalingFlags(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"mil", "scaling"} {
		code, _, errs := runBench(ctx, name, "-h")
		if code != exitOK || !strings.Contains(errs, "usage: go run ./bench "+name) {
			t.Errorf("%s -h: exit %d:\n%s", name, code, errs)
		}
	}
	for _, args := range [][]string{
		{"mil", "-protocols", "loo", "-quiet"},
		{"mil", "-methods", "svm", "-quiet"},
		{"mil", "-folds", "1", "-quiet"},
		{"mil", "-synth", "1", "-quiet"},
		{"scaling", "-bags", "10,5", "-quiet"},
		{"scaling", "-features", "x", "-quiet"},
		{"scaling", "-beta", "qr", "-quiet"},
		{"scaling", "-iters", "0", "-quiet"},
	} {
		if code, _, _ := runBench(ctx, args...); code != exitError {
			t.Errorf("%q: exit %d, want %d", args, code, exitError)
		}
	}
}

// TestMILInterrupt cancels a cross-validation run and checks it stops
// promptly with what finished reported.
func TestMILInterrupt(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	code, _, _ := runBench(ctx, "mil", "-data", t.TempDir(), "-synth", "400", "-protocols", "cv", "-repeats", "20",
		"-json", js, "-quiet")
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v after a 200 ms deadline", el)
	}
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	b, err := os.ReadFile(js)
	if err != nil || !json.Valid(b) {
		t.Fatalf("report: %v", err)
	}
}
