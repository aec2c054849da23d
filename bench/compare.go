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
	LoadStart   []float64     `json:"load_start"`
	LoadEnd     []float64     `json:"load_end"`
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

// cmpCol is one value column of a comparison table: a file and, in a
// table with a column per implementation, one of its implementations
// ("" otherwise).
type cmpCol struct {
	file int
	impl string
}

// cmpTable is one comparison table: rows keyed by the key columns, one
// value per file, or per file and implementation.
type cmpTable struct {
	title string
	keys  []string // names of the key columns
	note  string
	// perImpl tables have a column per file and implementation (those of
	// cmpSection.impls but skip), a ratio per implementation that A and the
	// later file share and a ratio of their best implementations.
	perImpl bool
	skip    string
	rows    []*cmpRow
	index   map[string]*cmpRow
}

// cmpRow is one measured quantity: its key, its unit and a value per
// column (none where that file lacks the row).
type cmpRow struct {
	key  []string
	unit string // "ns", "ms", "s", "×" or "" (a plain number)
	vals map[cmpCol]float64
}

// cmpSection gathers the tables of one command over all files.
type cmpSection struct {
	files int
	// impls holds each file's implementations in its own order (best
	// first, generic last), for the perImpl tables' columns.
	impls  [][]string
	tables []*cmpTable
	byName map[string]*cmpTable
}

func newCmpSection(files int) *cmpSection {
	return &cmpSection{files: files, impls: make([][]string, files), byName: map[string]*cmpTable{}}
}

// table returns the named table, creating it with the key columns keyCols.
func (s *cmpSection) table(name string, keyCols []string) *cmpTable {
	t := s.byName[name]
	if t == nil {
		t = &cmpTable{title: name, keys: keyCols, index: map[string]*cmpRow{}}
		s.byName[name] = t
		s.tables = append(s.tables, t)
	}
	return t
}

// implTable returns the named table with a column per file and
// implementation, leaving out the implementation skip ("" for none).
func (s *cmpSection) implTable(name string, keyCols []string, skip string) *cmpTable {
	t := s.table(name, keyCols)
	t.perImpl, t.skip = true, skip
	return t
}

// addImpl records that file i timed the implementation impl, after those
// recorded before.
func (s *cmpSection) addImpl(i int, impl string) {
	if !slices.Contains(s.impls[i], impl) {
		s.impls[i] = append(s.impls[i], impl)
	}
}

// add records file i's value of one row of the named table (a column per
// file), creating the table and the row as needed. NaN values show as "–"
// (not measured).
func (s *cmpSection) add(i int, table string, keyCols []string, key []string, unit string, v float64) {
	s.table(table, keyCols).set(cmpCol{file: i}, key, unit, v)
}

// set records the value of column c in the row key, creating the row.
func (t *cmpTable) set(c cmpCol, key []string, unit string, v float64) {
	k := strings.Join(key, "\x00") + "\x00" + unit
	r := t.index[k]
	if r == nil {
		r = &cmpRow{key: key, unit: unit, vals: map[cmpCol]float64{}}
		t.index[k] = r
		t.rows = append(t.rows, r)
	}
	r.vals[c] = v
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

// ratioCol is a ratio column: b's value over a's.
type ratioCol struct {
	a, b cmpCol
	best bool // a and b are files: each one's best implementation
}

// columns returns the table's value columns and ratio columns with their
// heads.
func (t *cmpTable) columns(runs []*runFile, impls [][]string) (vals []cmpCol, ratios []ratioCol, heads []string) {
	heads = append(heads, t.keys...)
	for i, r := range runs {
		if !t.perImpl {
			vals, heads = append(vals, cmpCol{file: i}), append(heads, r.letter+": "+r.Machine.short())
			continue
		}
		n := len(vals)
		for _, impl := range impls[i] {
			if impl != t.skip {
				vals, heads = append(vals, cmpCol{i, impl}), append(heads, r.letter+" "+impl)
			}
		}
		if len(vals) == n { // no timings at all: say so in a column of its own
			vals, heads = append(vals, cmpCol{file: i}), append(heads, r.letter+" (none)")
		}
	}
	for j, r := range runs[1:] {
		j++
		for _, c := range vals {
			if c.file == j && slices.Contains(vals, cmpCol{0, c.impl}) {
				ratios = append(ratios, ratioCol{a: cmpCol{0, c.impl}, b: c})
				heads = append(heads, strings.TrimSpace(c.impl+" "+r.letter+"/A"))
			}
		}
		if t.perImpl {
			ratios = append(ratios, ratioCol{a: cmpCol{file: 0}, b: cmpCol{file: j}, best: true})
			heads = append(heads, "best "+r.letter+"/A")
		}
	}
	return vals, ratios, heads
}

// best returns file i's best value in row r among the columns vals (the
// least time, the greatest speedup) and its implementation; ok is false
// for other units or when the file has no value.
func (r *cmpRow) best(i int, vals []cmpCol) (v float64, impl string, ok bool) {
	lower := r.unit == "ns" || r.unit == "ms" || r.unit == "s"
	if !lower && r.unit != "×" {
		return 0, "", false
	}
	for _, c := range vals {
		x, has := r.vals[c]
		if c.file != i || !has || math.IsNaN(x) {
			continue
		}
		if !ok || (lower && x < v) || (!lower && x > v) {
			v, impl, ok = x, c.impl, true
		}
	}
	return v, impl, ok
}

// markdown turns the comparison into a Table: a column per file (headed by
// its machine) or per file and implementation, then the ratios of each
// later file to the first.
func (t *cmpTable) markdown(runs []*runFile, impls [][]string) *Table {
	vals, ratios, heads := t.columns(runs, impls)
	out := &Table{Title: t.title, Columns: heads, Note: t.note}
	for _, row := range t.rows {
		cells := append([]string{}, row.key...)
		for _, c := range vals {
			if v, ok := row.vals[c]; ok {
				cells = append(cells, fmtUnit(v, row.unit))
			} else {
				cells = append(cells, "missing")
			}
		}
		for _, rc := range ratios {
			a, okA := row.vals[rc.a]
			b, okB := row.vals[rc.b]
			var implA, implB string
			if rc.best {
				a, implA, okA = row.best(rc.a.file, vals)
				b, implB, okB = row.best(rc.b.file, vals)
			}
			switch {
			case !okA || !okB || math.IsNaN(a) || math.IsNaN(b) || a == 0:
				cells = append(cells, "–")
			case rc.best:
				cells = append(cells, FmtSig(b/a, 3)+" ("+implB+"/"+implA+")")
			default:
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
	extract func(s *cmpSection, i int, raw json.RawMessage) error
}{
	{"kernels", cmpKernels},
	{"onebit", cmpOnebit},
	{"mil", cmpMIL},
	{"scaling", cmpScaling},
	{"latency", cmpLatency},
}

func runCompare(env *Env, runs []*runFile) error {
	env.Table(runsTable(runs))
	env.Note("Each table has one column per file, headed by its machine, then each later file's ratio to A (for times, above 1 " +
		"means slower than A). \"missing\": the file has no such row; \"–\": not measured or not comparable.")
	if schemas := schemaNote(runs); schemas != "" {
		env.Note("%s", schemas)
	}
	known := map[string]bool{}
	for _, ex := range cmpExtractors {
		known[ex.command] = true
		sec := newCmpSection(len(runs))
		var in, args []string
		var first *rawSection // the first file's that has one: A may lack it
		sameArgs := true
		for i, r := range runs {
			s := r.section(ex.command)
			if s == nil {
				continue
			}
			if first == nil {
				first = s
			}
			in = append(in, r.letter)
			args = append(args, r.letter+": "+strings.Join(s.Args, " "))
			sameArgs = sameArgs && slices.Equal(s.Args, first.Args)
			if len(s.Results) == 0 || string(s.Results) == "null" {
				continue
			}
			if err := ex.extract(sec, i, s.Results); err != nil {
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
		if ex.command == "kernels" {
			env.Note("%s", kernelsCompareNote(runs))
		}
		for _, t := range sec.tables {
			t.title = ex.command + ": " + t.title
			env.Table(t.markdown(runs, sec.impls))
		}
		if ex.command == "kernels" {
			kernelFigures(env, runs, sec.impls)
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
	var parts, old []string
	same := true
	for _, r := range runs {
		parts = append(parts, fmt.Sprintf("%s schema %d", r.letter, r.Schema))
		same = same && r.Schema == runs[0].Schema
		if r.Schema == 1 && r.section("kernels") != nil {
			old = append(old, r.letter)
		}
	}
	note := ""
	if !same {
		note = "The files come from different versions of bench (" + strings.Join(parts, ", ") +
			"): rows are compared where their keys still match; rows that a version lacks are marked missing."
	}
	if len(old) > 0 {
		note = strings.TrimSpace(note + " Schema 1 (" + strings.Join(old, ", ") + ") may hold only two kernel timings per " +
			"point, vec.Impl()'s and generic's, so those files show only those implementations; an implementation of the " +
			"same name may have been rewritten since, so read its ratio as old kernels against new.")
	}
	return note
}

// kernelsCompareNote explains the kernels tables' columns and names each
// file's default implementation.
func kernelsCompareNote(runs []*runFile) string {
	var defs []string
	for _, r := range runs {
		defs = append(defs, r.letter+" "+r.Machine.VecImpl)
	}
	return "Kernels: a column per file and implementation (vec.Impl(), what the package functions run: " + strings.Join(defs, ", ") +
		"; generic is the pure-Go fallback), median time per call. \"avx2 B/A\" sets the same implementation on two machines " +
		"side by side; \"best B/A\" each file's fastest implementation at that size (named, B's first), for speedups the largest."
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
	row(featuresLabel, func(r *runFile) string { return r.Machine.featureList() })
	row("GOOS/GOARCH", func(r *runFile) string { return r.Machine.GOOS + "/" + r.Machine.GOARCH })
	row("Go", func(r *runFile) string { return r.Machine.GoVersion })
	row("CPUs (GOMAXPROCS)", func(r *runFile) string {
		return itoa(r.Machine.NumCPU) + " (" + itoa(r.Machine.GOMAXPROCS) + ")"
	})
	row("vec kernels (vec.Impl)", func(r *runFile) string { return r.Machine.VecImpl })
	row("vec implementations", func(r *runFile) string {
		if len(r.Machine.VecImpls) == 0 {
			return "not recorded (schema 1)"
		}
		return strings.Join(r.Machine.VecImpls, " ")
	})
	row("started", func(r *runFile) string { return r.Started })
	row(loadLabel+", start → end", func(r *runFile) string {
		if r.LoadStart == nil {
			return "not recorded"
		}
		return fmtLoad(r.LoadStart) + " → " + fmtLoad(r.LoadEnd)
	})
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

// kernelsAnySchema reads the kernels results of every schema: a schema-1
// point may hold "accel" and "generic" instead of "timings".
type kernelsAnySchema struct {
	KernelsResult
	Points []kernelPointAnySchema `json:"points"`
}

// kernelPointAnySchema is a KernelPoint with schema 1's fields.
type kernelPointAnySchema struct {
	KernelPoint
	Accel   *Timing `json:"accel"`
	Generic *Timing `json:"generic"`
}

// timings returns the point's timings: Timings, or in a schema-1 file
// without them its accel and generic timings.
func (p *kernelPointAnySchema) timings() []*Timing {
	if len(p.Timings) > 0 {
		return p.Timings
	}
	var ts []*Timing
	for _, t := range []*Timing{p.Accel, p.Generic} {
		if t != nil && !slices.ContainsFunc(ts, func(u *Timing) bool { return u.Impl == t.Impl }) {
			ts = append(ts, t)
		}
	}
	return ts
}

// cmpKernels compares each kernel's median time per call with a column
// per file and implementation, the speedups over generic, and GradSweep
// against the two products it replaces.
func cmpKernels(s *cmpSection, i int, raw json.RawMessage) error {
	var res kernelsAnySchema
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	for _, impl := range res.Impls {
		s.addImpl(i, impl)
	}
	for _, pt := range res.Points {
		t := s.implTable(pt.Kernel+", time per call", []string{"n"}, "")
		for _, tm := range pt.timings() {
			s.addImpl(i, tm.Impl)
			t.set(cmpCol{i, tm.Impl}, []string{FmtSize(pt.N)}, "ns", tm.Ns.Median)
		}
	}
	for _, pt := range res.Points {
		tms := pt.timings()
		g := slices.IndexFunc(tms, func(t *Timing) bool { return t.Impl == "generic" })
		if g < 0 {
			continue
		}
		t := s.implTable("speedup over generic (generic's time / the implementation's, one run)", []string{"kernel", "n"}, "generic")
		for _, tm := range tms {
			if tm.Impl != "generic" {
				t.set(cmpCol{i, tm.Impl}, []string{pt.Kernel, FmtSize(pt.N)}, "×", tms[g].Ns.Median/tm.Ns.Median)
			}
		}
	}
	for _, p := range res.Sweeps {
		t := s.implTable("GradSweep (one pass) vs MulVec, φ, MulTransVec (two products), time per gradient", []string{"rows x cols", "quantity"}, "")
		s.addImpl(i, p.Impl)
		k := func(q string) []string { return []string{p.Shape.String(), q} }
		t.set(cmpCol{i, p.Impl}, k("two products"), "ns", p.Two.Ns.Median)
		t.set(cmpCol{i, p.Impl}, k("GradSweep"), "ns", p.Sweep.Ns.Median)
		t.set(cmpCol{i, p.Impl}, k("speedup"), "×", p.Speedup)
	}
	return nil
}

func cmpOnebit(s *cmpSection, i int, raw json.RawMessage) error {
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

func cmpMIL(s *cmpSection, i int, raw json.RawMessage) error {
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

func cmpScaling(s *cmpSection, i int, raw json.RawMessage) error {
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

func cmpLatency(s *cmpSection, i int, raw json.RawMessage) error {
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

// implMarkers gives each implementation the same marker in every
// comparison figure (colour tells the files apart).
var implMarkers = map[string]svgplot.Marker{"avx512": svgplot.Circle, "avx2": svgplot.Square, "neon": svgplot.Triangle, "generic": svgplot.Cross}

func implMarker(impl string) svgplot.Marker {
	if m, ok := implMarkers[impl]; ok {
		return m
	}
	return svgplot.Diamond
}

// kernelFigures records the comparison figures: each kernel's GB/s against
// n, one line per file (colour) and implementation (marker; generic
// dashed), and each file's speedup of every implementation over generic.
func kernelFigures(env *Env, runs []*runFile, impls [][]string) {
	rs := make([]*kernelsAnySchema, len(runs))
	var kernels []string
	for i, r := range runs {
		s := r.section("kernels")
		if s == nil || json.Unmarshal(s.Results, &rs[i]) != nil || rs[i] == nil {
			rs[i] = &kernelsAnySchema{} // checked before: cannot happen
		}
		for _, pt := range rs[i].Points {
			if !slices.Contains(kernels, pt.Kernel) {
				kernels = append(kernels, pt.Kernel)
			}
		}
	}
	cols := min(3, len(kernels))
	gbps := &svgplot.Figure{Title: "vec kernels per machine and implementation: throughput (bytes touched / time); generic dashed", Columns: cols}
	speed := &svgplot.Figure{Title: "speedup over generic per machine and implementation (generic's time / its time, one run)", Columns: cols}
	for _, k := range kernels {
		x := svgplot.Axis{Label: "n", Scale: svgplot.Log10}
		gp := svgplot.Plot{Title: k, X: x, Y: svgplot.Axis{Label: "GB/s", IncludeZero: true}}
		sp := svgplot.Plot{Title: k, X: x, Y: svgplot.Axis{Label: "speedup (×)", IncludeZero: true}}
		lo, hi := math.Inf(1), math.Inf(-1)
		for fi, r := range runs {
			color := svgplot.Palette[fi%len(svgplot.Palette)]
			for _, impl := range impls[fi] {
				g := svgplot.Series{Name: r.letter + " " + impl, Color: color, Marker: implMarker(impl), Dashed: impl == "generic"}
				sd := svgplot.Series{Name: r.letter + " " + impl, Color: color, Marker: implMarker(impl)}
				for _, pt := range rs[fi].Points {
					if pt.Kernel != k {
						continue
					}
					var tm, gen *Timing
					for _, t := range pt.timings() {
						switch t.Impl {
						case impl:
							tm = t
						case "generic":
							gen = t
						}
					}
					if tm == nil {
						continue
					}
					n := float64(pt.N)
					g.X, g.Y = append(g.X, n), append(g.Y, tm.GBps)
					if gen != nil && impl != "generic" {
						sd.X, sd.Y = append(sd.X, n), append(sd.Y, gen.Ns.Median/tm.Ns.Median)
						lo, hi = math.Min(lo, n), math.Max(hi, n)
					}
				}
				if len(g.X) > 0 {
					gp.Series = append(gp.Series, g)
				}
				if len(sd.X) > 0 {
					sp.Series = append(sp.Series, sd)
				}
			}
		}
		gbps.Panels = append(gbps.Panels, gp)
		if len(sp.Series) > 0 {
			sp.Series = append(sp.Series, svgplot.Series{Name: speedupRefName, X: []float64{lo, hi}, Y: []float64{1, 1},
				Color: "#999999", Dashed: true, Marker: svgplot.MarkerNone})
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
