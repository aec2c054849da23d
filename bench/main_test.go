package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func runBench(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// reportJSON mirrors Report with the kernels results typed.
type reportJSON struct {
	Schema      int
	Seed        uint64
	Interrupted bool
	Machine     Machine
	Sections    []struct {
		Command string
		Status  string
		Error   string
		Figures []string
		Tables  []*Table
		Results KernelsResult
	}
}

func readReport(t *testing.T, name string) *reportJSON {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	rep := &reportJSON{}
	if err := json.Unmarshal(b, rep); err != nil {
		t.Fatalf("JSON does not parse: %v", err)
	}
	return rep
}

// checkSVG walks the file with encoding/xml and returns the number of
// series paths in it.
func checkSVG(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	paths := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			paths++
		}
	}
	return paths
}

func relClose(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

// checkPoint checks one kernel point for internal consistency.
func checkPoint(t *testing.T, m Machine, pt KernelPoint) {
	t.Helper()
	wantBytes := map[string]int64{"Dot": 16, "Axpy": 24, "SoftThreshold": 16, "Nrm2": 8}
	if w, ok := wantBytes[pt.Kernel]; ok && pt.BytesPerOp != w*int64(pt.N) {
		t.Errorf("%s n=%d: %d bytes per op, want %d", pt.Kernel, pt.N, pt.BytesPerOp, w*int64(pt.N))
	}
	if pt.Kernel == "MulVec" && (pt.Rows*pt.Cols != pt.N || pt.BytesPerOp != 8*int64(pt.N+pt.Rows+pt.Cols)) {
		t.Errorf("MulVec n=%d: %dx%d, %d bytes", pt.N, pt.Rows, pt.Cols, pt.BytesPerOp)
	}
	timings := []*Timing{pt.Generic}
	if m.VecAccel {
		if pt.Accel == nil {
			t.Fatalf("%s n=%d: accelerated kernels exist but were not timed", pt.Kernel, pt.N)
		}
		timings = append(timings, pt.Accel)
		if pt.Accel.Impl != m.VecImpl || pt.Accel.Impl == "generic" {
			t.Errorf("accelerated timing labelled %q, machine runs %q", pt.Accel.Impl, m.VecImpl)
		}
		if !(pt.Speedup > 0) || !relClose(pt.Speedup, pt.Generic.Ns.Median/pt.Accel.Ns.Median) {
			t.Errorf("%s n=%d: speedup %g, medians %g / %g", pt.Kernel, pt.N, pt.Speedup, pt.Generic.Ns.Median, pt.Accel.Ns.Median)
		}
	} else if pt.Accel != nil || pt.Speedup != 0 {
		t.Errorf("%s n=%d: accelerated timing reported on a machine without one", pt.Kernel, pt.N)
	}
	if pt.Generic == nil || pt.Generic.Impl != "generic" {
		t.Fatalf("%s n=%d: generic timing missing or mislabelled", pt.Kernel, pt.N)
	}
	for _, tm := range timings {
		st := tm.Ns
		if st.N != 3 || len(st.Samples) != 3 || !(st.Min > 0) || st.Min > st.Median || st.Median > st.Max || tm.Iters < 1 {
			t.Errorf("%s n=%d %s: bad stats %+v (iters %d)", pt.Kernel, pt.N, tm.Impl, st, tm.Iters)
		}
		if !(tm.GBps > 0) || !relClose(tm.GBps, float64(pt.BytesPerOp)/st.Median) ||
			!(tm.GBpsLo <= tm.GBps && tm.GBps <= tm.GBpsHi) {
			t.Errorf("%s n=%d %s: GB/s %g [%g, %g] for %d bytes in %g ns", pt.Kernel, pt.N, tm.Impl,
				tm.GBps, tm.GBpsLo, tm.GBpsHi, pt.BytesPerOp, st.Median)
		}
		if (pt.FlopsPerOp > 0) != (tm.GFlops > 0) || (tm.GFlops > 0 && !relClose(tm.GFlops, float64(pt.FlopsPerOp)/st.Median)) {
			t.Errorf("%s n=%d %s: GFLOP/s %g for %d flops", pt.Kernel, pt.N, tm.Impl, tm.GFlops, pt.FlopsPerOp)
		}
	}
}

func TestKernelsJSONAndSVG(t *testing.T) {
	dir := t.TempDir()
	js, svgDir := filepath.Join(dir, "out.json"), filepath.Join(dir, "svg")
	code, out, errs := runBench(context.Background(), "kernels", "-sizes", "16,64,256", "-time", "2ms", "-reps", "3",
		"-json", js, "-svg", svgDir, "-quiet", "-seed", "7")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	if errs != "" {
		t.Errorf("-quiet run wrote to stderr: %q", errs)
	}
	rep := readReport(t, js)
	m := rep.Machine
	if m.GOARCH != runtime.GOARCH || m.GOOS != runtime.GOOS || m.GoVersion != runtime.Version() ||
		m.NumCPU < 1 || m.VecImpl == "" || m.CPU == "" || rep.Seed != 7 || rep.Interrupted {
		t.Errorf("bad report header: %+v", rep)
	}
	if len(rep.Sections) != 1 || rep.Sections[0].Command != "kernels" || rep.Sections[0].Status != "ok" {
		t.Fatalf("sections: %+v", rep.Sections)
	}
	sec := rep.Sections[0]
	res := sec.Results
	if len(res.Points) != 5*3 || len(sec.Tables) != 5 {
		t.Fatalf("%d points and %d tables, want 15 and 5", len(res.Points), len(sec.Tables))
	}
	last := map[string]int{}
	for _, pt := range res.Points {
		if pt.N <= last[pt.Kernel] {
			t.Errorf("%s: sizes not increasing: %d after %d", pt.Kernel, pt.N, last[pt.Kernel])
		}
		last[pt.Kernel] = pt.N
		checkPoint(t, m, pt)
	}
	for _, tab := range sec.Tables {
		if len(tab.Rows) != 3 {
			t.Errorf("table %q has %d rows, want 3", tab.Title, len(tab.Rows))
		}
		if !strings.Contains(out, "### "+tab.Title) {
			t.Errorf("table %q not printed", tab.Title)
		}
	}
	wantFigs := []string{"kernels-gbps.svg"}
	if m.VecAccel {
		wantFigs = append(wantFigs, "kernels-speedup.svg")
	}
	if strings.Join(sec.Figures, ",") != strings.Join(wantFigs, ",") {
		t.Fatalf("figures %v, want %v", sec.Figures, wantFigs)
	}
	impls := 1
	if m.VecAccel {
		impls = 2
	}
	if n := checkSVG(t, filepath.Join(svgDir, "kernels-gbps.svg")); n != 5*impls {
		t.Errorf("gbps figure has %d series paths, want %d", n, 5*impls)
	}
	if m.VecAccel {
		// One line per kernel plus the 1× reference line.
		if n := checkSVG(t, filepath.Join(svgDir, "kernels-speedup.svg")); n != 6 {
			t.Errorf("speedup figure has %d series paths, want 6", n)
		}
	}
}

func TestKernelsPinnedImpl(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	code, _, errs := runBench(context.Background(), "-quiet", "-json", js, "kernels", "-impl", "generic",
		"-kernels", "dot", "-sizes", "32", "-time", "1ms", "-reps", "3")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rep := readReport(t, js) // -json given before the command name still applies
	pts := rep.Sections[0].Results.Points
	if len(pts) != 1 || pts[0].Accel != nil || pts[0].Generic == nil || pts[0].Speedup != 0 {
		t.Errorf("-impl generic: %+v", pts)
	}
	code, _, errs = runBench(context.Background(), "-quiet", "kernels", "-impl", "accel",
		"-kernels", "dot", "-sizes", "32", "-time", "1ms", "-reps", "3")
	if rep.Machine.VecAccel != (code == exitOK) {
		t.Errorf("-impl accel exit %d with accel available = %v: %s", code, rep.Machine.VecAccel, errs)
	}
}

func TestUsageAndErrors(t *testing.T) {
	ctx := context.Background()
	code, _, errs := runBench(ctx, "kernels", "-h")
	if code != exitOK || !strings.Contains(errs, "-sizes") || !strings.Contains(errs, "-json") {
		t.Errorf("kernels -h: exit %d, output:\n%s", code, errs)
	}
	code, out, _ := runBench(ctx, "help")
	if code != exitOK || !strings.Contains(out, "kernels") || !strings.Contains(out, "-svg") {
		t.Errorf("help: exit %d, output:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"nosuch"}, exitUsage},
		{[]string{"kernels", "stray"}, exitUsage},
		{[]string{"kernels", "-nosuchflag"}, exitUsage},
		{[]string{"kernels", "-impl", "bogus", "-quiet"}, exitError},
		{[]string{"kernels", "-sizes", "0", "-quiet"}, exitError},
		{[]string{"kernels", "-kernels", "gemm", "-quiet"}, exitError},
	} {
		if code, _, _ := runBench(ctx, c.args...); code != c.code {
			t.Errorf("%q: exit %d, want %d", c.args, code, c.code)
		}
	}
}

func TestInterruptKeepsFinishedWork(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	// The full run would take about 5 kernels x 8 sizes x 2 x 4 x 20 ms,
	// over 6 s, so the timeout interrupts it.
	code, out, _ := runBench(ctx, "kernels", "-sizes", "16,64,256,1k,4k,16k,64k,256k", "-time", "20ms", "-reps", "3",
		"-json", js, "-quiet")
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("run took %v after a 300 ms deadline: not a prompt stop", el)
	}
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if !strings.Contains(out, "Interrupted") {
		t.Error("stdout does not say the run was interrupted")
	}
	rep := readReport(t, js)
	if !rep.Interrupted || len(rep.Sections) != 1 || rep.Sections[0].Status != "interrupted" {
		t.Fatalf("report: interrupted=%v sections=%+v", rep.Interrupted, rep.Sections)
	}
	pts := rep.Sections[0].Results.Points
	if len(pts) >= 5*8 {
		t.Errorf("%d points: the run was not cut short", len(pts))
	}
	for _, pt := range pts {
		checkPoint(t, rep.Machine, pt) // what is reported is complete
	}
}

func TestTour(t *testing.T) {
	k := registry["kernels"]
	saved := k.TourArgs
	k.TourArgs = []string{"-sizes", "64", "-time", "1ms", "-reps", "3", "-kernels", "dot,axpy"}
	registry["kernels"] = k
	t.Cleanup(func() { k.TourArgs = saved; registry["kernels"] = k })

	js := filepath.Join(t.TempDir(), "out.json")
	code, out, errs := runBench(context.Background(), "-quiet", "-json", js)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(out, "# neadmm bench: quick tour") || !strings.Contains(out, "### Machine") ||
		!strings.Contains(out, "### Dot") {
		t.Errorf("tour output:\n%s", out)
	}
	rep := readReport(t, js)
	if len(rep.Sections) == 0 || rep.Sections[0].Command != "kernels" || len(rep.Sections[0].Results.Points) != 2 {
		t.Errorf("tour sections: %+v", rep.Sections)
	}
}
