package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// svgLegend returns the labels of the legend entries of an SVG file, in
// order (svgplot writes each as a <g class="legend-entry"> holding a
// <text>).
func svgLegend(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	d := xml.NewDecoder(bytes.NewReader(b))
	depth, entry, inText := 0, -1, false // entry: depth of the open legend entry
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return labels
		}
		if err != nil {
			t.Fatalf("%s is not well-formed: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			for _, a := range tok.Attr {
				if tok.Name.Local == "g" && a.Name.Local == "class" && a.Value == "legend-entry" {
					entry = depth
					labels = append(labels, "")
				}
			}
			inText = entry >= 0 && tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				labels[len(labels)-1] += string(tok)
			}
		case xml.EndElement:
			if depth == entry {
				entry = -1
			}
			depth--
			inText = false
		}
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
	// The full run would take about 6 kernels x 8 sizes x 2 x 4 x 20 ms,
	// over 7 s, so the timeout interrupts it.
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
	if len(pts) >= 6*8 {
		t.Errorf("%d points: the run was not cut short", len(pts))
	}
	for _, pt := range pts {
		checkPoint(t, rep.Sections[0].Results.Impls, pt) // what is reported is complete
	}
}

// writeTinyFox writes a fox.csv-format file of 20 bags (10 positive) with
// two instances of three features each into dir.
func writeTinyFox(t *testing.T, dir string) {
	t.Helper()
	var b strings.Builder
	id := 0
	for bag := range 20 {
		label := bag % 2
		for inst := range 2 {
			id++
			// A positive bag's first instance stands out in feature 1;
			// the rest is a fixed pattern.
			f1 := 0.1 * float64((bag+inst)%5)
			if label == 1 && inst == 0 {
				f1 += 2
			}
			fmt.Fprintf(&b, "%d,%d,%d,%g,%g,%g\n", id, bag+1, label, f1, 0.3*float64(bag%3), 0.2*float64(inst))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "fox.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// setTourArgs replaces a command's tour arguments for the test.
func setTourArgs(t *testing.T, name string, args ...string) {
	c := registry[name]
	saved := c.TourArgs
	c.TourArgs = args
	registry[name] = c
	t.Cleanup(func() { c.TourArgs = saved; registry[name] = c })
}

// TestTourArgs checks the real tour arguments parse and give the onebit
// figures curves: at least 3 values of M and of M/N.
func TestTourArgs(t *testing.T) {
	for _, c := range commands() {
		if c.TourArgs == nil {
			continue
		}
		fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.Flags(fs)
		if err := fs.Parse(c.TourArgs); err != nil || fs.NArg() > 0 {
			t.Errorf("%s: tour arguments %q: %v", c.Name, c.TourArgs, err)
			continue
		}
		if c.Name != "onebit" {
			continue
		}
		get := func(name string) string { return fs.Lookup(name).Value.String() }
		ms, err1 := parseInts(get("grid-m"))
		ratios, err2 := parseRatios(get("rec-ratios"))
		if err1 != nil || err2 != nil || len(ms) < 3 || len(ratios) < 3 || get("grid-seeds") == "0" || get("rec-seeds") == "0" {
			t.Errorf("onebit tour: grid M %v, ratios %v, seeds %s and %s: want both figures with >= 3 x values",
				ms, ratios, get("grid-seeds"), get("rec-seeds"))
		}
	}
}

// TestTour runs the quick tour (kernels and onebit cut down, for -race and
// qemu) with -data naming a directory that holds a small fox.csv, and
// checks every part ran, the data directory reached mil and the onebit
// figures draw curves.
func TestTour(t *testing.T) {
	setTourArgs(t, "kernels", "-sizes", "64", "-time", "1ms", "-reps", "3", "-kernels", "dot,axpy")
	setTourArgs(t, "onebit", "-grid-n", "64", "-grid-m", "20,40,60", "-grid-k", "4", "-grid-seeds", "1",
		"-rec-n", "60", "-rec-k", "3", "-rec-ratios", "0.5,1,2", "-rec-seeds", "1", "-speed-n", "0")

	dir := t.TempDir()
	writeTinyFox(t, dir)
	js, svgDir := filepath.Join(dir, "out.json"), filepath.Join(dir, "svg")
	code, out, errs := runBench(context.Background(), "-quiet", "-json", js, "-svg", svgDir, "-data", dir)
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
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Sections []struct {
			Command string
			Args    []string
			Status  string
			Figures []string
			Results json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, sec := range raw.Sections {
		cmds = append(cmds, sec.Command)
		if sec.Status != "ok" {
			t.Errorf("%s: status %s", sec.Command, sec.Status)
		}
		switch sec.Command {
		case "onebit":
			// Curves, not lone points, when the arguments ask for them.
			var res OnebitResult
			if err := json.Unmarshal(sec.Results, &res); err != nil {
				t.Fatal(err)
			}
			if res.Grid == nil || len(res.Grid.Cells) < 3 || res.Recovery == nil || len(res.Recovery.Points) < 3 {
				t.Errorf("onebit tour: %+v", res)
			}
			if strings.Join(sec.Figures, ",") != "onebit-objective.svg,onebit-recovery.svg" {
				t.Errorf("onebit figures %v", sec.Figures)
			}
		case "mil":
			var res MILResult
			if err := json.Unmarshal(sec.Results, &res); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, ds := range res.Datasets {
				names = append(names, fmt.Sprintf("%s/%d", ds.Name, ds.Bags))
			}
			if res.DataDir != dir || !slices.Contains(sec.Args, dir) ||
				strings.Join(names, ",") != "synthetic (300 bags)/300,fox.csv/20" {
				t.Errorf("mil tour with -data %s: args %q, data dir %q, data sets %v", dir, sec.Args, res.DataDir, names)
			}
			if !strings.Contains(out, "Skipping vaccine.svm") {
				t.Error("the missing vaccine.svm was not reported")
			}
		}
	}
	if strings.Join(cmds, ",") != "kernels,onebit,mil,scaling" {
		t.Errorf("tour ran %v", cmds)
	}
}

// TestDataFlag checks -data before the command name: handed to mil, a
// usage error for a command that reads no data.
func TestDataFlag(t *testing.T) {
	dir := t.TempDir()
	writeTinyFox(t, dir)
	js := filepath.Join(dir, "out.json")
	code, _, errs := runBench(context.Background(), "-data", dir, "mil", "-files", "fox.csv", "-protocols", "split",
		"-methods", "paper", "-json", js, "-quiet")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res MILResult
	sectionResults(t, js, "mil", &res)
	if res.DataDir != dir || len(res.Datasets) != 1 || res.Datasets[0].Name != "fox.csv" || res.Datasets[0].Bags != 20 {
		t.Errorf("results %+v", res)
	}
	if code, _, errs := runBench(context.Background(), "-data", dir, "kernels", "-quiet"); code != exitUsage ||
		!strings.Contains(errs, "reads no data") {
		t.Errorf("-data with kernels: exit %d, %q", code, errs)
	}
}

// TestInterruptAfterUnits stops each long command after exactly k units of
// work (cancelAfterUnits) and checks that the k finished units, and only
// those, reach the JSON, the tables and the figures.
func TestInterruptAfterUnits(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		k       int
		rows    []int    // rows of each table printed
		figures []string // written with -svg
		check   func(t *testing.T, results json.RawMessage, notes []string)
	}{
		{"kernels", []string{"-kernels", "dot,axpy", "-sizes", "16,64,256", "-time", "1ms", "-reps", "3"}, 4,
			[]int{3, 1}, []string{"kernels-gbps.svg"}, func(t *testing.T, raw json.RawMessage, _ []string) {
				var res KernelsResult
				if err := json.Unmarshal(raw, &res); err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, pt := range res.Points {
					got = append(got, fmt.Sprintf("%s/%d", pt.Kernel, pt.N))
				}
				if want := "Dot/16,Dot/64,Dot/256,Axpy/16"; strings.Join(got, ",") != want {
					t.Errorf("points %v, want %s", got, want)
				}
			}},
		{"onebit", []string{"-grid-n", "64", "-grid-m", "20,40,60", "-grid-k", "2,4", "-grid-seeds", "1", "-rec-n", "60",
			"-rec-k", "3", "-rec-seeds", "1", "-speed-n", "0"}, 4,
			[]int{3, 1}, []string{"onebit-objective.svg"}, func(t *testing.T, raw json.RawMessage, notes []string) {
				var res OnebitResult
				if err := json.Unmarshal(raw, &res); err != nil {
					t.Fatal(err)
				}
				if res.Grid == nil || len(res.Grid.Cells) != 4 || res.Recovery != nil || res.Speed != nil {
					t.Fatalf("results %+v", res)
				}
				if c := res.Grid.Cells[3]; c.K != 4 || c.M != 20 {
					t.Errorf("last cell K = %d, M = %d; want K = 4, M = 20", c.K, c.M)
				}
				if !strings.Contains(strings.Join(notes, "\n"), " of 4 cells") {
					t.Errorf("no summary over the 4 finished cells in %q", notes)
				}
			}},
		{"scaling", []string{"-bags", "40,80,160", "-features", "4,8", "-fixed-bags", "40", "-fixed-features", "5",
			"-iters", "5", "-reps", "1", "-beta", "gram"}, 2,
			[]int{2}, []string{"scaling-time.svg"}, func(t *testing.T, raw json.RawMessage, _ []string) {
				var res ScalingResult
				if err := json.Unmarshal(raw, &res); err != nil {
					t.Fatal(err)
				}
				if len(res.VsBags) != 2 || len(res.VsFeatures) != 0 || len(res.Slopes) != 1 || res.Slopes[0].Sweep != "bags" {
					t.Errorf("results %+v", res)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			js, svgDir := filepath.Join(dir, "out.json"), filepath.Join(dir, "svg")
			args := append([]string{c.name, "-json", js, "-svg", svgDir, "-quiet"}, c.args...)
			code, out, errs := runBench(cancelAfterUnits(t, c.k), args...)
			if code != exitInterrupted {
				t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errs)
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Interrupted bool
				Sections    []struct {
					Status  string
					Notes   []string
					Tables  []*Table
					Figures []string
					Results json.RawMessage
				}
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			if !rep.Interrupted || len(rep.Sections) != 1 || rep.Sections[0].Status != "interrupted" {
				t.Fatalf("report: interrupted %v, %d sections", rep.Interrupted, len(rep.Sections))
			}
			sec := rep.Sections[0]
			var rows []int
			for _, tab := range sec.Tables {
				if !strings.Contains(out, "### "+tab.Title) {
					t.Errorf("table %q not printed", tab.Title)
				}
				rows = append(rows, len(tab.Rows))
			}
			if fmt.Sprint(rows) != fmt.Sprint(c.rows) {
				t.Errorf("table rows %v, want %v", rows, c.rows)
			}
			for _, f := range c.figures {
				if !slices.Contains(sec.Figures, f) {
					t.Errorf("figure %s not written: %v", f, sec.Figures)
				} else {
					checkSVG(t, filepath.Join(svgDir, f))
				}
			}
			c.check(t, sec.Results, sec.Notes)
		})
	}
}

// TestNoTestingInBinary checks that package testing, with its flags and
// init work, stays out of the bench command (internal/datadir once pulled
// it in).
func TestNoTestingInBinary(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/neadmm/neadmm/internal/datadir") {
		t.Fatalf("go list -deps lacks internal/datadir, so it did not list bench: %v", deps)
	}
	if slices.Contains(deps, "testing") {
		t.Error("the bench command links package testing")
	}
}
