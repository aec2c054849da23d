package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/neadmm/neadmm/internal/svgplot"
)

var compareCommand = Command{
	Name:    "compare",
	Short:   "the -json files of two or more runs (e.g. x86 and ARM) side by side: every section they hold, with ratios to the first file",
	Args:    "A.json B.json [C.json ...]",
	Flags:   compareFlags,
	Offline: true,
}

// maxReportBytes caps the size of a file compare reads: a full run of
// every command writes well under a megabyte.
const maxReportBytes = 64 << 20

// errNotReport marks a file that is not a bench -json report.
var errNotReport = errors.New("not a bench -json file")

// runFile is one report read back by compare.
type runFile struct {
	path   string
	letter string   // A, B, C, ...
	Schema int      `json:"schema"`
	Args   []string `json:"args"`
	Note   string   `json:"note"`
	// Machine is a pointer so that a JSON file without one is told apart.
	Machine     *Machine      `json:"machine"`
	Started     string        `json:"started"`
	Interrupted bool          `json:"interrupted"`
	Sections    []*rawSection `json:"sections"`
}

// rawSection is a section with its results left undecoded until the
// command is known.
type rawSection struct {
	Command string          `json:"command"`
	Args    []string        `json:"args"`
	Status  string          `json:"status"`
	Results json.RawMessage `json:"results"`
}

// readRunFile reads and checks one report. Its errors name the file and
// say what is wrong with it.
func readRunFile(path string) (*runFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError: "open x.json: no such file or directory"
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxReportBytes {
		return nil, fmt.Errorf("%s: %w: larger than %d MiB", path, errNotReport, maxReportBytes>>20)
	}
	r := &runFile{path: path}
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(r); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, errNotReport, err)
	}
	switch {
	case r.Schema == 0 || r.Machine == nil:
		return nil, fmt.Errorf("%s: %w: no \"schema\" or \"machine\" field (write one with go run ./bench -json FILE)", path, errNotReport)
	case r.Schema > schemaVersion:
		return nil, fmt.Errorf("%s: schema %d is newer than this bench reads (1 to %d): compare with the bench that wrote it",
			path, r.Schema, schemaVersion)
	case r.Schema < 0:
		return nil, fmt.Errorf("%s: %w: schema %d", path, errNotReport, r.Schema)
	}
	return r, nil
}

func compareFlags(fs *FlagSet) RunFunc {
	var runs []*runFile
	fs.Check(func() error {
		paths := fs.Args()
		for _, p := range paths {
			if strings.HasPrefix(p, "-") {
				return fmt.Errorf("%s: flags go before the files (go run ./bench compare -svg DIR A.json B.json)", p)
			}
		}
		if len(paths) < 2 {
			return fmt.Errorf("need at least two -json files of bench runs to compare, got %d", len(paths))
		}
		if len(paths) > 26 {
			return fmt.Errorf("at most 26 files, got %d", len(paths))
		}
		runs = runs[:0]
		for i, p := range paths {
			r, err := readRunFile(p)
			if err != nil {
				return err
			}
			r.letter = string(rune('A' + i))
			runs = append(runs, r)
		}
		return nil
	})
	return func(ctx context.Context, env *Env) error {
		return runCompare(env, runs)
	}
}

// cmpTable is one comparison table: rows keyed by the key columns, one
// value per file.
type cmpTable struct {
	title string
	keys  []string // names of the key columns
	note  string
	rows  []*cmpRow
	index map[string]*cmpRow
}

// cmpRow is one measured quantity: its key, its unit and one value per
// file (missing where that file lacks the row).
type cmpRow struct {
	key  []string
	unit string // "ns", "ms", "s", "×" or "" (a plain number)
	vals []float64
	has  []bool
}

// cmpSection gathers the tables of one command over all files.
type cmpSection struct {
	files  int
	tables []*cmpTable
	byName map[string]*cmpTable
}

func newCmpSection(files int) *cmpSection {
	return &cmpSection{files: files, byName: map[string]*cmpTable{}}
}

// add records file i's value of one row of the named table, creating the
// table and the row as needed. NaN values show as "–" (not measured).
func (s *cmpSection) add(i int, table string, keyCols []string, key []string, unit string, v float64) {
	t := s.byName[table]
	if t == nil {
		t = &cmpTable{title: table, keys: keyCols, index: map[string]*cmpRow{}}
		s.byName[table] = t
		s.tables = append(s.tables, t)
	}
	k := strings.Join(key, "\x00") + "\x00" + unit
	r := t.index[k]
	if r == nil {
		r = &cmpRow{key: key, unit: unit, vals: make([]float64, s.files), has: make([]bool, s.files)}
		t.index[k] = r
		t.rows = append(t.rows, r)
	}
	r.vals[i], r.has[i] = v, true
}

// fmtUnit formats a value of a unit for a table cell.
func fmtUnit(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case unit == "ns":
		return FmtNs(v)
	case unit == "ms":
		return FmtNs(v * 1e6)
	case unit == "s":
		return FmtNs(v * 1e9)
	case unit == "×":
		return FmtSig(v, 3) + "×"
	default:
		return FmtSig(v, 4)
	}
}

// markdown turns the comparison into a Table with one column per file
// (headed by its machine) and the ratio of each later file to the first.
func (t *cmpTable) markdown(runs []*runFile) *Table {
	cols := append([]string{}, t.keys...)
	for _, r := range runs {
		cols = append(cols, r.letter+": "+r.Machine.short())
	}
	for _, r := range runs[1:] {
		cols = append(cols, r.letter+"/A")
	}
	out := &Table{Title: t.title, Columns: cols, Note: t.note}
	for _, row := range t.rows {
		cells := append([]string{}, row.key...)
		for i := range runs {
			if row.has[i] {
				cells = append(cells, fmtUnit(row.vals[i], row.unit))
			} else {
				cells = append(cells, "missing")
			}
		}
		for i := 1; i < len(runs); i++ {
			a, b := row.vals[0], row.vals[i]
			if !row.has[0] || !row.has[i] || math.IsNaN(a) || math.IsNaN(b) || a == 0 {
				cells = append(cells, "–")
			} else {
				cells = append(cells, FmtSig(b/a, 3))
			}
		}
		out.Add(cells...)
	}
	return out
}

// short describes a machine in a few words for a column head: CPU model,
// GOARCH and the vec kernels it runs.
func (m *Machine) short() string {
	cpu := m.CPU
	for _, junk := range []string{"(R)", "(TM)", "(tm)", " Processor", " CPU"} {
		cpu = strings.ReplaceAll(cpu, junk, "")
	}
	if at := strings.Index(cpu, " @ "); at > 0 {
		cpu = cpu[:at]
	}
	cpu = strings.Join(strings.Fields(cpu), " ")
	return fmt.Sprintf("%s, %s %s", cpu, m.GOARCH, m.VecImpl)
}

// cmpExtractors turn one file's results of a command into rows, in the
// order the command's own tables use. Each knows every schema up to
// schemaVersion.
var cmpExtractors = []struct {
	command string
	extract func(s *cmpSection, i int, raw json.RawMessage, m *Machine) error
}{
	{"kernels", cmpKernels},
	{"onebit", cmpOnebit},
	{"mil", cmpMIL},
	{"scaling", cmpScaling},
	{"latency", cmpLatency},
}

func runCompare(env *Env, runs []*runFile) error {
	env.Table(runsTable(runs))
	env.Note("Each table has one column per file, headed by its machine, then each file's ratio to A's (for times, above 1 means slower " +
		"than A). \"missing\": the file has no such row; \"–\": not measured or not comparable. Kernel rows \"default\" time the " +
		"kernels vec.Impl() picks on that machine (named in the column head), \"generic\" the pure-Go fallback.")
	if schemas := schemaNote(runs); schemas != "" {
		env.Note("%s", schemas)
	}
	known := map[string]bool{}
	for _, ex := range cmpExtractors {
		known[ex.command] = true
		sec := newCmpSection(len(runs))
		var in, args []string
		sameArgs := true
		for i, r := range runs {
			s := r.section(ex.command)
			if s == nil {
				continue
			}
			in = append(in, r.letter)
			args = append(args, r.letter+": "+strings.Join(s.Args, " "))
			sameArgs = sameArgs && slices.Equal(s.Args, runs[0].section(ex.command).Args)
			if len(s.Results) == 0 || string(s.Results) == "null" {
				continue
			}
			if err := ex.extract(sec, i, s.Results, r.Machine); err != nil {
				return fmt.Errorf("%s: %s results: %w", r.path, ex.command, err)
			}
		}
		if len(in) == 0 {
			continue
		}
		if len(in) < len(runs) {
			env.Note("Only in %s: the other files ran no %s command.", strings.Join(in, ", "), ex.command)
			continue
		}
		if !sameArgs {
			env.Note("The %s sections ran with different arguments (%s): rows of other sizes are missing from the other files.",
				ex.command, strings.Join(args, "; "))
		}
		for _, t := range sec.tables {
			t.title = ex.command + ": " + t.title
			env.Table(t.markdown(runs))
		}
		if ex.command == "kernels" {
			kernelFigures(env, runs)
		}
	}
	for _, r := range runs {
		for _, s := range r.Sections {
			if !known[s.Command] && s.Command != "compare" {
				env.Note("%s: section %q is unknown to this bench: skipped.", r.path, s.Command)
			}
		}
	}
	return nil
}

func (r *runFile) section(command string) *rawSection {
	for _, s := range r.Sections {
		if s.Command == command {
			return s
		}
	}
	return nil
}

// schemaNote says how files of different schemas are compared, or returns
// "" when they agree.
func schemaNote(runs []*runFile) string {
	var parts []string
	same := true
	for _, r := range runs {
		parts = append(parts, fmt.Sprintf("%s schema %d", r.letter, r.Schema))
		same = same && r.Schema == runs[0].Schema
	}
	if same {
		return ""
	}
	return "The files come from different versions of bench (" + strings.Join(parts, ", ") +
		"): rows are compared where their keys still match; rows that a version lacks are marked missing."
}

// runsTable describes each file's run and machine, one column per file.
func runsTable(runs []*runFile) *Table {
	t := &Table{Title: "Runs", Columns: []string{"property"}}
	for _, r := range runs {
		t.Columns = append(t.Columns, r.letter)
	}
	row := func(name string, f func(r *runFile) string) {
		cells := []string{name}
		for _, r := range runs {
			cells = append(cells, f(r))
		}
		t.Add(cells...)
	}
	row("file", func(r *runFile) string { return r.path })
	row("note", func(r *runFile) string { return r.Note })
	row("CPU", func(r *runFile) string { return r.Machine.CPU })
	row("features", func(r *runFile) string { return r.Machine.featureList() })
	row("GOOS/GOARCH", func(r *runFile) string { return r.Machine.GOOS + "/" + r.Machine.GOARCH })
	row("Go", func(r *runFile) string { return r.Machine.GoVersion })
	row("CPUs (GOMAXPROCS)", func(r *runFile) string {
		return itoa(r.Machine.NumCPU) + " (" + itoa(r.Machine.GOMAXPROCS) + ")"
	})
	row("vec kernels", func(r *runFile) string { return r.Machine.VecImpl })
	row("started", func(r *runFile) string { return r.Started })
	row("arguments", func(r *runFile) string {
		if len(r.Args) == 0 {
			return "(quick tour)"
		}
		return strings.Join(r.Args, " ")
	})
	row("schema", func(r *runFile) string { return itoa(r.Schema) })
	row("interrupted", func(r *runFile) string { return map[bool]string{true: "yes", false: "no"}[r.Interrupted] })
	if slices.IndexFunc(runs, func(r *runFile) bool { return r.Note != "" }) < 0 {
		t.Rows = slices.Delete(t.Rows, 1, 2) // no notes: drop the empty row
	}
	return t
}

// cmpKernels compares each kernel's median time per call in two rows per
// size: "default", the implementation ordinary code runs on that machine
// (vec.Impl() at start-up, named in the column head: avx2 on one, neon on
// another, generic where CPU features are off), and "generic", the pure-Go
// fallback everywhere.
func cmpKernels(s *cmpSection, i int, raw json.RawMessage, m *Machine) error {
	var res KernelsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	keys := []string{"n", "kernels"}
	for _, pt := range res.Points {
		title := pt.Kernel + ", time per call"
		def := pt.Accel
		if m.VecImpl == "generic" {
			def = pt.Generic
		}
		if def != nil {
			s.add(i, title, keys, []string{FmtSize(pt.N), "default"}, "ns", def.Ns.Median)
		}
		if pt.Generic != nil {
			s.add(i, title, keys, []string{FmtSize(pt.N), "generic"}, "ns", pt.Generic.Ns.Median)
		}
	}
	for _, pt := range res.Points {
		if pt.Speedup > 0 {
			s.add(i, "speedup of the accelerated kernels over generic (generic time / accelerated time, one run)", []string{"kernel", "n"},
				[]string{pt.Kernel, FmtSize(pt.N)}, "×", pt.Speedup)
		}
	}
	return nil
}

func cmpOnebit(s *cmpSection, i int, raw json.RawMessage, _ *Machine) error {
	var res OnebitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	if g := res.Grid; g != nil {
		title := fmt.Sprintf("objective grid, N = %d, λ = %g (means over the instances)", g.N, g.Lambda)
		keys := []string{"K", "M", "quantity"}
		for _, c := range g.Cells {
			k := func(q string) []string { return []string{itoa(c.K), itoa(c.M), q} }
			s.add(i, title, keys, k("neADMM objective"), "", c.NeADMM)
			s.add(i, title, keys, k("neADMM iterations"), "", c.Iterations)
			s.add(i, title, keys, k("neADMM time"), "ms", c.NeADMMMs)
			s.add(i, title, keys, k("paper ρ=1 time"), "ms", c.PaperMs)
			s.add(i, title, keys, k("BIHT time"), "ms", c.BIHTMs)
		}
	}
	if rc := res.Recovery; rc != nil {
		title := fmt.Sprintf("recovery, N = %d, K = %d (angular errors: means; times and products: medians)", rc.N, rc.K)
		keys := []string{"M/N", "quantity"}
		for _, p := range rc.Points {
			k := func(q string) []string { return []string{FmtSig(p.Ratio, 3), q} }
			s.add(i, title, keys, k("neADMM error"), "", p.NeADMM.Mean)
			s.add(i, title, keys, k("BIHT error"), "", p.BIHT.Mean)
			s.add(i, title, keys, k("neADMM time"), "ms", p.NeADMMMs.Median)
			s.add(i, title, keys, k("BIHT time"), "ms", p.BIHTMs.Median)
			s.add(i, title, keys, k("neADMM products"), "", p.NeADMMProducts.Median)
		}
	}
	if sp := res.Speed; sp != nil {
		title := "speed of one default solve"
		keys := []string{"N = M", "quantity"}
		k := func(q string) []string { return []string{itoa(sp.N), q} }
		s.add(i, title, keys, k("solve time (median)"), "ms", sp.SolveMs.Median)
		s.add(i, title, keys, k("one MulVec"), "ns", sp.MulVecUs*1e3)
		s.add(i, title, keys, k("one MulTransVec"), "ns", sp.MulTransVecUs*1e3)
		s.add(i, title, keys, k("share in products"), "", sp.ProductShare)
		s.add(i, title, keys, k("iterations"), "", float64(sp.Iterations))
		s.add(i, title, keys, k("BIHT time"), "ms", sp.BIHTMs)
	}
	return nil
}

func cmpMIL(s *cmpSection, i int, raw json.RawMessage, _ *Machine) error {
	var res MILResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	keys := []string{"data", "method", "protocol", "quantity"}
	for _, ds := range res.Datasets {
		for _, ev := range ds.Evals {
			if ev.Interrupted {
				continue // a different set of splits: not comparable
			}
			k := func(q string) []string { return []string{ds.Name, ev.Method, ev.Protocol, q} }
			title := "multi-instance learning (means over the splits; times: medians)"
			s.add(i, title, keys, k("AUC"), "", ev.Mean.AUC)
			s.add(i, title, keys, k("F1"), "", ev.Mean.F1)
			s.add(i, title, keys, k("ACC"), "", ev.Mean.ACC)
			s.add(i, title, keys, k("iterations"), "", ev.Iterations.Median)
			s.add(i, title, keys, k("fit time"), "s", ev.FitSeconds.Median)
			s.add(i, title, keys, k("time per iteration"), "ms", ev.MsPerIteration.Median)
		}
	}
	return nil
}

func cmpScaling(s *cmpSection, i int, raw json.RawMessage, _ *Machine) error {
	var res ScalingResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	keys := []string{"sweep", "size", "beta path"}
	title := fmt.Sprintf("multi-instance fit time (%d iterations, median)", res.Iters)
	for _, p := range res.VsBags {
		s.add(i, title, keys, []string{"bags", itoa(p.Bags), p.Path}, "s", p.Seconds.Median)
	}
	for _, p := range res.VsFeatures {
		s.add(i, title, keys, []string{"features", itoa(p.Features), p.Path}, "s", p.Seconds.Median)
	}
	for _, sl := range res.Slopes {
		s.add(i, title, keys, []string{sl.Sweep, "log-log slope", sl.Path}, "", sl.Slope)
	}
	return nil
}

func cmpLatency(s *cmpSection, i int, raw json.RawMessage, _ *Machine) error {
	var res LatencyResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	keys := []string{"call", "size", "goroutines", "quantity"}
	for _, r := range res.Rows {
		n := r.Calls * r.Goroutines
		k := func(q string) []string { return []string{r.Op, r.Size, itoa(r.Goroutines), q} }
		orNaN := func(v float64, p string) float64 {
			if n < minCalls[p] {
				return math.NaN()
			}
			return v
		}
		title := "service latency per call"
		s.add(i, title, keys, k("p50"), "ns", r.P50Ns)
		s.add(i, title, keys, k("p90"), "ns", orNaN(r.P90Ns, "p90"))
		s.add(i, title, keys, k("p99"), "ns", orNaN(r.P99Ns, "p99"))
		s.add(i, title, keys, k("p99.9"), "ns", orNaN(r.P999Ns, "p99.9"))
		s.add(i, title, keys, k("max"), "ns", r.MaxNs)
		s.add(i, title, keys, k("allocs/call"), "", r.AllocsPerCall)
	}
	return nil
}

// kernelFigures records the comparison figures: each kernel's GB/s against
// n, one line per file and implementation, and each file's speedup over
// generic.
func kernelFigures(env *Env, runs []*runFile) {
	type fileRes struct {
		r   *runFile
		res KernelsResult
	}
	var rs []fileRes
	var kernels []string
	for _, r := range runs {
		var res KernelsResult
		if s := r.section("kernels"); s == nil || json.Unmarshal(s.Results, &res) != nil {
			continue // checked before: cannot happen
		}
		rs = append(rs, fileRes{r, res})
		for _, pt := range res.Points {
			if !slices.Contains(kernels, pt.Kernel) {
				kernels = append(kernels, pt.Kernel)
			}
		}
	}
	gbps := &svgplot.Figure{Title: "vec kernels per machine: throughput (bytes touched / time); generic dashed", Columns: min(3, len(kernels))}
	speed := &svgplot.Figure{Title: "speedup of the accelerated kernels over generic, per machine", Columns: min(3, len(kernels))}
	for _, k := range kernels {
		gp := svgplot.Plot{Title: k, X: svgplot.Axis{Label: "n", Scale: svgplot.Log10}, Y: svgplot.Axis{Label: "GB/s", IncludeZero: true}}
		sp := svgplot.Plot{Title: k, X: svgplot.Axis{Label: "n", Scale: svgplot.Log10}, Y: svgplot.Axis{Label: "speedup (×)", IncludeZero: true}}
		for fi, f := range rs {
			color := svgplot.Palette[fi%len(svgplot.Palette)]
			acc := svgplot.Series{Name: f.r.letter + " " + f.r.Machine.VecImpl, Color: color}
			gen := svgplot.Series{Name: f.r.letter + " generic", Color: color, Dashed: true}
			spd := svgplot.Series{Name: f.r.letter + ": " + f.r.Machine.short(), Color: color}
			for _, pt := range f.res.Points {
				if pt.Kernel != k {
					continue
				}
				if pt.Accel != nil {
					acc.X, acc.Y = append(acc.X, float64(pt.N)), append(acc.Y, pt.Accel.GBps)
				}
				if pt.Generic != nil {
					gen.X, gen.Y = append(gen.X, float64(pt.N)), append(gen.Y, pt.Generic.GBps)
				}
				if pt.Speedup > 0 {
					spd.X, spd.Y = append(spd.X, float64(pt.N)), append(spd.Y, pt.Speedup)
				}
			}
			for _, s := range []svgplot.Series{acc, gen} {
				if len(s.X) > 0 {
					gp.Series = append(gp.Series, s)
				}
			}
			if len(spd.X) > 0 {
				sp.Series = append(sp.Series, spd)
			}
		}
		gbps.Panels = append(gbps.Panels, gp)
		if len(sp.Series) > 0 {
			speed.Panels = append(speed.Panels, sp)
		}
	}
	if len(gbps.Panels) > 0 {
		env.Figure("gbps", gbps)
	}
	if len(speed.Panels) > 0 {
		env.Figure("speedup", speed)
	}
}
