package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	rep := &reportJSON{}
	require.NoError(t, json.Unmarshal(b, rep), "JSON does not parse")
	return rep
}

// checkSVG walks the file with encoding/xml and returns the number of
// series paths in it.
func checkSVG(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
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
	require.NoError(t, err)
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
	assert.Equal(t, exitOK, code)
	assert.Contains(t, errs, "-sizes")
	assert.Contains(t, errs, "-json")
	code, out, _ := runBench(ctx, "help")
	assert.Equal(t, exitOK, code)
	for _, c := range commandTable {
		assert.Contains(t, out, "\n  "+c.Name+" ", "help lists every command")
		code, _, errs := runBench(ctx, c.Name, "-h")
		assert.Equal(t, exitOK, code, "%s -h", c.Name)
		assert.Contains(t, errs, "usage: go run ./bench "+c.Name, "%s -h", c.Name)
	}
	assert.Contains(t, out, "-svg")
	code, _, errs = runBench(ctx, "help", "compare")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, errs, "usage: go run ./bench compare [flags] A.json B.json [C.json ...]")
	for _, args := range [][]string{{"nosuch"}, {"kernels", "stray"}, {"kernels", "-nosuchflag"}, {"-data", "/", "kernels"}} {
		code, out, _ := runBench(ctx, args...)
		assert.Equal(t, exitUsage, code, "%q", args)
		assert.Empty(t, out, "%q printed on stdout", args)
	}
}

// TestBadFlagValues checks that a bad value of any command's flag ends the
// run before it starts: exit status 2, nothing on stdout, the flag's name
// on stderr.
func TestBadFlagValues(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nosuch")
	for _, c := range []struct {
		args []string
		flag string // named in the message
	}{
		{[]string{"kernels", "-impl", "bogus"}, "-impl"},
		{[]string{"kernels", "-sizes", "0"}, "-sizes"},
		{[]string{"kernels", "-kernels", "gemm"}, "-kernels"},
		{[]string{"kernels", "-reps", "0"}, "-reps"},
		{[]string{"kernels", "-time", "0s"}, "-time"},
		{[]string{"kernels", "-json", filepath.Join(missing, "out.json")}, "-json"},
		{[]string{"-json", filepath.Join(missing, "out.json"), "kernels"}, "-json"},
		{[]string{"-svg", "main.go"}, "-svg"}, // the tour's flags too
		{[]string{"onebit", "-grid-m", "50,40"}, "-grid-m"},
		{[]string{"onebit", "-grid-k", "600"}, "-grid-n"},
		{[]string{"onebit", "-rec-ratios", "x"}, "-rec-ratios"},
		{[]string{"onebit", "-lambda", "0"}, "-lambda"},
		{[]string{"onebit", "-workers", "0"}, "-workers"},
		{[]string{"rho", "-m", "50,40"}, "-m"},
		{[]string{"rho", "-k", "600"}, "-n"},
		{[]string{"rho", "-seeds", "0"}, "-seeds"},
		{[]string{"rho", "-lambda", "0"}, "-lambda"},
		{[]string{"rho", "-workers", "0"}, "-workers"},
		{[]string{"mil", "-protocols", "loo"}, "-protocols"},
		{[]string{"mil", "-methods", "svm"}, "-methods"},
		{[]string{"mil", "-folds", "1"}, "-folds"},
		{[]string{"mil", "-synth", "1"}, "-synth"},
		{[]string{"mil", "-workers", "0"}, "-workers"},
		{[]string{"mil", "-fold-rule", "sklearn"}, "-fold-rule"},
		{[]string{"mil", "-data", missing}, "-data"},
		{[]string{"-data", missing, "mil"}, "-data"},
		{[]string{"-data", missing}, "-data"}, // the tour
		{[]string{"scaling", "-bags", "10,5"}, "-bags"},
		{[]string{"scaling", "-features", "x"}, "-features"},
		{[]string{"scaling", "-beta", "qr"}, "-beta"},
		{[]string{"scaling", "-iters", "0"}, "-iters"},
		{[]string{"scaling", "-density", "2"}, "-density"},
		{[]string{"latency", "-ops", "gemm"}, "-ops"},
		{[]string{"latency", "-ops", ","}, "-ops"},
		{[]string{"latency", "-sizes", "64,32"}, "-sizes"},
		{[]string{"latency", "-problems", "256"}, "-problems"},
		{[]string{"latency", "-problems", "2x128"}, "-problems"},
		{[]string{"latency", "-goroutines", "0"}, "-goroutines"},
		{[]string{"latency", "-scale", "0"}, "-scale"},
		{[]string{"latency", "-scale", "NaN"}, "-scale"},
		{[]string{"latency", "-data", missing}, "-data"},
		{[]string{"compare", "a.json", "-svg", "x"}, "-svg"},
		// Sizes and counts that would allocate beyond a cap (1 << 40; on
		// 32-bit platforms the flag package refuses the value itself).
		{[]string{"rho", "-n", "1099511627776"}, map[int]string{64: "-n 1099511627776 -m", 32: "for flag -n: value out of range"}[strconv.IntSize]},
		{[]string{"rho", "-seeds", "1099511627776"}, "-seeds"},
		{[]string{"rho", "-workers", "1099511627776"}, "-workers"},
		{[]string{"onebit", "-grid-n", "1099511627776"}, "-grid-n"},
		{[]string{"onebit", "-rec-n", "1000000", "-rec-families", "rademacher/20"}, "-rec-n"},
		{[]string{"onebit", "-scale-n", "100000"}, "-scale-n"},
		{[]string{"onebit", "-speed-n", "1099511627776"}, "-speed-n"},
		{[]string{"onebit", "-rec-seeds", "1099511627776"}, "-rec-seeds"},
		{[]string{"onebit", "-workers", "1099511627776"}, "-workers"},
		{[]string{"mil", "-synth", "1099511627776"}, "-synth"},
		{[]string{"mil", "-folds", "1000", "-repeats", "1000"}, "-repeats"},
		{[]string{"mil", "-workers", "1099511627776"}, "-workers"},
		{[]string{"scaling", "-bags", "1099511627776"}, "-bags"},
		{[]string{"scaling", "-features", "1099511627776"}, "-features"},
		{[]string{"scaling", "-max-instances", "1099511627776"}, "-max-instances"},
		{[]string{"latency", "-sizes", "16777216", "-goroutines", "64"}, "-goroutines"},
		{[]string{"latency", "-scale", "1000", "-goroutines", "64"}, "-scale"},
	} {
		code, out, errs := runBench(context.Background(), c.args...)
		assert.Equal(t, exitUsage, code, "%q", c.args)
		assert.Empty(t, out, "%q: output before the flags were checked", c.args)
		assert.Contains(t, errs, c.flag, "%q: the message does not name the flag", c.args)
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
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fox.csv"), []byte(b.String()), 0o644))
}

// setTourArgs replaces a command's tour arguments for the test.
func setTourArgs(t *testing.T, name string, args ...string) {
	c := lookupCommand(name)
	saved := c.TourArgs
	c.TourArgs = args
	t.Cleanup(func() { c.TourArgs = saved })
}

// TestTourArgs checks the real tour arguments parse and give the onebit
// figures curves: at least 3 values of M and of M/N.
func TestTourArgs(t *testing.T) {
	for _, c := range commandTable {
		if c.TourArgs == nil {
			continue
		}
		fs := newFlagSet(c.Name, io.Discard)
		c.Flags(fs)
		if err := fs.Parse(c.TourArgs); err != nil || fs.NArg() > 0 || fs.check() != nil {
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
		"-rec-n", "60", "-rec-families", "gauss/3", "-rec-flips", "0", "-rec-ratios", "0.5,1,2", "-rec-seeds", "1",
		"-scale-seeds", "0", "-speed-n", "0")
	setTourArgs(t, "latency", "-ops", "dot,bag", "-sizes", "64", "-scale", "0.01", "-goroutines", "1")

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
	require.NoError(t, err)
	var raw struct {
		Sections []struct {
			Command string
			Args    []string
			Status  string
			Figures []string
			Results json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal(b, &raw))
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
			require.NoError(t, json.Unmarshal(sec.Results, &res))
			if res.Grid == nil || len(res.Grid.Cells) < 3 || res.Recovery == nil || len(res.Recovery.Settings) == 0 || len(res.Recovery.Settings[0].Points) < 3 {
				t.Errorf("onebit tour: %+v", res)
			}
			if strings.Join(sec.Figures, ",") != "onebit-objective.svg,onebit-recovery.svg" {
				t.Errorf("onebit figures %v", sec.Figures)
			}
		case "mil":
			var res MILResult
			require.NoError(t, json.Unmarshal(sec.Results, &res))
			var names []string
			for _, ds := range res.Datasets {
				names = append(names, fmt.Sprintf("%s/%d", ds.Name, ds.Bags))
			}
			if res.DataDir != dir || !slices.Contains(sec.Args, dir) ||
				strings.Join(names, ",") != "synthetic (300 bags)/300,fox.csv/20" {
				t.Errorf("mil tour with -data %s: args %q, data dir %q, data sets %v", dir, sec.Args, res.DataDir, names)
			}
			if !strings.Contains(out, "Skipping vaccine.svm") || !strings.Contains(out, "give -data DIR or set NEADMM_DATA to the directory holding") {
				t.Error("the missing vaccine.svm was not reported with where to point the bench instead")
			}
		}
	}
	if strings.Join(cmds, ",") != "kernels,onebit,mil,scaling,latency" {
		t.Errorf("tour ran %v", cmds)
	}
}

// TestTourWithoutData checks that the tour says where it looked for the
// data sets and how to point it at them when they are not found.
func TestTourWithoutData(t *testing.T) {
	for _, c := range commandTable {
		if c.Name != "mil" && c.TourArgs != nil {
			setTourArgs(t, c.Name) // only mil
		}
	}
	missing := filepath.Join(t.TempDir(), "nosuch")
	t.Setenv(datadir.EnvVar, missing)
	code, out, errs := runBench(context.Background(), "-quiet")
	require.Equal(t, exitOK, code, errs)
	_, mil, _ := strings.Cut(out, "## mil\n")
	assert.True(t, strings.HasPrefix(strings.SplitN(mil, "\n\n", 3)[1], "No data directory found: $"+datadir.EnvVar+" = "+missing+
		" is not a directory. Give -data DIR or set "+datadir.EnvVar+" to the directory holding fox.csv and vaccine.svm."),
		"the mil part of the tour starts with where it looked:\n%s", mil)
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
				require.NoError(t, json.Unmarshal(raw, &res))
				var got []string
				for _, pt := range res.Points {
					got = append(got, fmt.Sprintf("%s/%d", pt.Kernel, pt.N))
				}
				if want := "Dot/16,Dot/64,Dot/256,Axpy/16"; strings.Join(got, ",") != want {
					t.Errorf("points %v, want %s", got, want)
				}
			}},
		{"onebit", []string{"-grid-n", "64", "-grid-m", "20,40,60", "-grid-k", "2,4", "-grid-seeds", "1", "-rec-n", "60",
			"-rec-families", "gauss/3", "-rec-seeds", "1", "-scale-seeds", "0", "-speed-n", "0"}, 4,
			[]int{3, 1}, []string{"onebit-objective.svg"}, func(t *testing.T, raw json.RawMessage, notes []string) {
				var res OnebitResult
				require.NoError(t, json.Unmarshal(raw, &res))
				if res.Grid == nil || len(res.Grid.Cells) != 4 || res.Recovery != nil || res.Scaling != nil || res.Speed != nil {
					t.Fatalf("results %+v", res)
				}
				if c := res.Grid.Cells[3]; c.K != 4 || c.M != 20 {
					t.Errorf("last cell K = %d, M = %d; want K = 4, M = 20", c.K, c.M)
				}
				if !strings.Contains(strings.Join(notes, "\n"), " of 4 cells") {
					t.Errorf("no summary over the 4 finished cells in %q", notes)
				}
			}},
		{"rho", []string{"-n", "64", "-m", "20,40,60", "-k", "2,4", "-seeds", "2"}, 4,
			[]int{9}, nil, func(t *testing.T, raw json.RawMessage, notes []string) {
				var res RhoResult
				require.NoError(t, json.Unmarshal(raw, &res))
				if res.Instances != 4*2 || len(res.Schedules) != 9 {
					t.Errorf("results %+v", res)
				}
				if !strings.Contains(strings.Join(notes, "\n"), " of 8.") {
					t.Errorf("no summary over the 8 finished instances in %q", notes)
				}
			}},
		{"scaling", []string{"-bags", "40,80,160", "-features", "4,8", "-fixed-bags", "40", "-fixed-features", "5",
			"-iters", "5", "-reps", "1", "-beta", "gram"}, 2,
			[]int{2}, []string{"scaling-time.svg"}, func(t *testing.T, raw json.RawMessage, _ []string) {
				var res ScalingResult
				require.NoError(t, json.Unmarshal(raw, &res))
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
			require.NoError(t, err)
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
			require.NoError(t, json.Unmarshal(b, &rep))
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

// TestTourTimeInREADME checks that bench -h and the README quote the same
// measured tour time.
func TestTourTimeInREADME(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	about := regexp.MustCompile(`^about [0-9.]+ s`).FindString(tourSeconds)
	require.NotEmpty(t, about, "tourSeconds %q does not start with \"about N s\"", tourSeconds)
	assert.Regexp(t, "(?m)^go run ./bench +# .*\\("+regexp.QuoteMeta(about)+"\\)$", string(b),
		"the README's first command quotes another tour time than bench -h (%q)", about)
	assert.Contains(t, string(b), "# every section, short: "+about)
}
