package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
)

// sectionResults reads a -json report and decodes the results of its only
// section, which must have status "ok", into v.
func sectionResults(t *testing.T, name, command string, v any) {
	t.Helper()
	sectionResultsStatus(t, name, command, "ok", v)
}

// sectionResultsStatus is sectionResults for a section with the given
// status; the report's interrupted flag must match an "interrupted" one.
func sectionResultsStatus(t *testing.T, name, command, status string, v any) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Interrupted bool
		Sections    []struct {
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
	if len(rep.Sections) != 1 || rep.Sections[0].Command != command || rep.Sections[0].Status != status ||
		rep.Interrupted != (status == "interrupted") {
		t.Fatalf("interrupted %v, sections: %+v", rep.Interrupted, rep.Sections)
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
	if len(ev.Folds) != ev.Splits || ev.Splits < 1 || ev.Splits > ev.PlannedSplits || ev.Interrupted != (ev.Splits < ev.PlannedSplits) {
		t.Errorf("%s %s %s: %d folds, %d of %d splits, interrupted %v", ds, ev.Method, ev.Protocol, len(ev.Folds),
			ev.Splits, ev.PlannedSplits, ev.Interrupted)
	}
	// The mean is over the folds reported, no more, no fewer. The sums
	// run over at most a few dozen values in [0, 1]: 1e-12 is far above
	// their rounding error and far below any one fold's share.
	var aucs float64
	for _, f := range ev.Folds {
		aucs += f.AUC
	}
	if n := len(ev.Folds); n > 0 && math.Abs(aucs/float64(n)-m.AUC) > 1e-12 {
		t.Errorf("%s %s %s: mean AUC %v, but the folds' AUCs average %v", ds, ev.Method, ev.Protocol, m.AUC, aucs/float64(n))
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
	if ds.Bags != 200 || ds.Paper != nil || len(ds.Evals) != 6 {
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
		if (ev.Method == "default" || ev.Method == "fitcv") && ev.Mean.AUC < 0.8 {
			t.Errorf("%s %s: AUC %.3f on synthetic bags", ev.Method, ev.Protocol, ev.Mean.AUC)
		}
		if (ev.Method == "fitcv") != (len(ev.Picked) == ev.Splits) {
			t.Errorf("%s %s: %d picks for %d splits", ev.Method, ev.Protocol, len(ev.Picked), ev.Splits)
		}
	}
	if !strings.Contains(out, "| default |") || !strings.Contains(out, "| fitcv ") || !strings.Contains(out, "settings picked per split") ||
		!strings.Contains(out, "time per outer iteration split") {
		t.Errorf("output:\n%s", out)
	}
	// ROC and PR panels: three methods each, plus the chance line in ROC.
	if n := checkSVG(t, filepath.Join(svgDir, "mil-synthetic-200-bags.svg")); n != 7 {
		t.Errorf("figure has %d series paths, want 7", n)
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

// cancelAfterUnits returns a context that is cancelled (through
// testUnitDone) once k units of work have been marked done on a Progress.
// In mil a unit is a fit whose test bags are scored, so with one worker
// exactly k splits complete: the split being scored still completes, later
// ones do not start.
func cancelAfterUnits(t *testing.T, k int) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	testUnitDone = func() {
		if n.Add(1) == int64(k) {
			cancel()
		}
	}
	t.Cleanup(func() { testUnitDone = nil; cancel() })
	return ctx
}

// interruptedMIL runs args with -json js, cancelled after k units of work,
// and returns the one evaluation reported (checked with checkMILEval) and
// stdout.
func interruptedMIL(t *testing.T, k int, js string, args ...string) (*MILEval, string) {
	t.Helper()
	code, out, errs := runBench(cancelAfterUnits(t, k), append(args, "-json", js)...)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errs)
	}
	var res MILResult
	sectionResultsStatus(t, js, "mil", "interrupted", &res)
	if len(res.Datasets) != 1 || len(res.Datasets[0].Evals) != 1 {
		t.Fatalf("results: %+v", res)
	}
	ev := res.Datasets[0].Evals[0]
	checkMILEval(t, res.Datasets[0].Name, ev)
	return ev, out
}

// TestMILInterrupt cancels cross-validation after exactly k splits and
// checks that those splits, and only those, are reported: in the table,
// the notes, the JSON (equal to the first k folds of the full run) and the
// figure.
func TestMILInterrupt(t *testing.T) {
	const k = 3
	dir := t.TempDir()
	args := []string{"mil", "-data", dir, "-synth", "120", "-protocols", "cv", "-folds", "4", "-repeats", "2",
		"-methods", "default", "-quiet"}
	fullJS, js, svgDir := filepath.Join(dir, "full.json"), filepath.Join(dir, "out.json"), filepath.Join(dir, "svg")
	if code, _, errs := runBench(context.Background(), append(args, "-json", fullJS)...); code != exitOK {
		t.Fatalf("full run: exit %d: %s", code, errs)
	}
	var full MILResult
	sectionResults(t, fullJS, "mil", &full)

	ev, out := interruptedMIL(t, k, js, append(args, "-svg", svgDir)...)
	if ev.Splits != k || ev.PlannedSplits != 8 || !ev.Interrupted {
		t.Fatalf("%d of %d splits, interrupted %v; want %d of 8, interrupted", ev.Splits, ev.PlannedSplits, ev.Interrupted, k)
	}
	// The same data, seed and options: the completed folds are the full
	// run's first k, bit for bit.
	fullEv := full.Datasets[0].Evals[0]
	if fullEv.Splits != 8 || fullEv.Interrupted {
		t.Fatalf("full run: %d splits, interrupted %v", fullEv.Splits, fullEv.Interrupted)
	}
	for i, f := range ev.Folds {
		if f != fullEv.Folds[i] {
			t.Errorf("fold %d: %+v, the full run has %+v", i, f, fullEv.Folds[i])
		}
	}
	for _, want := range []string{"| default | 4-fold CV x2 (interrupted: 3 of 8 splits) |",
		"default (interrupted after 3 of 8 splits): time per outer iteration split", "**Interrupted**"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// ROC and PR of the completed folds, plus the chance line.
	if n := checkSVG(t, filepath.Join(svgDir, "mil-synthetic-120-bags.svg")); n != 3 {
		t.Errorf("figure has %d series paths, want 3", n)
	}
}

// TestMILInterruptFigure interrupts cross-validation after both methods
// finished the 80/20 split: the figure draws the completed CV splits of the
// one method that has them, not a mix of protocols, and says so.
func TestMILInterruptFigure(t *testing.T) {
	dir := t.TempDir()
	svgDir := filepath.Join(dir, "svg")
	code, _, errs := runBench(cancelAfterUnits(t, 3), "mil", "-data", dir, "-synth", "120", "-protocols", "split,cv",
		"-folds", "3", "-repeats", "1", "-methods", "default,paper", "-svg", svgDir, "-quiet")
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errs)
	}
	name := filepath.Join(svgDir, "mil-synthetic-120-bags.svg")
	if n := checkSVG(t, name); n != 3 {
		t.Errorf("figure has %d series paths, want 3 (default's ROC and PR, chance)", n)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if want := "pooled test scores, 3-fold CV x1 (default interrupted after 1 of 3 splits)"; !strings.Contains(string(b), want) {
		t.Errorf("figure title lacks %q", want)
	}
}

// TestMILInterruptBeforeASplit stops the second evaluation before its only
// split completes: the first is reported whole and the second named.
func TestMILInterruptBeforeASplit(t *testing.T) {
	dir := t.TempDir()
	ev, out := interruptedMIL(t, 1, filepath.Join(dir, "out.json"), "mil", "-data", dir, "-synth", "200",
		"-protocols", "split", "-methods", "default,paper", "-quiet")
	if ev.Method != "default" || ev.Interrupted || ev.Splits != 1 {
		t.Errorf("evaluation %+v", ev)
	}
	for _, want := range []string{"| default | 80/20 split |", "80/20 split, paper: interrupted before any split completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestMILInterruptPrompt cancels a long cross-validation on a timer, most
// likely inside a fit, and checks it stops promptly with a consistent
// report.
func TestMILInterruptPrompt(t *testing.T) {
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
	var res MILResult
	sectionResultsStatus(t, js, "mil", "interrupted", &res)
	for _, ds := range res.Datasets {
		for _, ev := range ds.Evals {
			checkMILEval(t, ds.Name, ev)
		}
	}
}
