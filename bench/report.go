package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/neadmm/neadmm/internal/svgplot"
)

// schemaVersion is the Report.Schema this bench writes. Bump it when a
// field changes meaning or goes away, so that an older bench refuses the
// file with a clear message instead of showing its rows as missing; adding
// a field or a section needs no bump. bench compare reads every schema
// from 1 up:
//
//  1. the first bench: a kernels point holds the timings of vec.Impl()
//     and of generic as "accel" and "generic" (and, once vec had more
//     implementations, all of them as "timings" too).
//  2. a kernels point holds "timings" only, one per implementation.
const schemaVersion = 2

// Report is everything one run of bench produced; -json writes it.
type Report struct {
	// Schema is bumped when a field changes meaning (see schemaVersion).
	Schema int      `json:"schema"`
	Args   []string `json:"args"`
	Seed   uint64   `json:"seed"`
	// Note is the -note flag: what the machine table cannot tell (cloud
	// instance type, emulation, load).
	Note    string `json:"note,omitempty"`
	Started string `json:"started"` // RFC 3339, UTC
	// ElapsedS is the wall time of the whole run in seconds.
	ElapsedS float64 `json:"elapsed_s"`
	// LoadStart and LoadEnd are the 1-, 5- and 15-minute load averages
	// when the run started and ended (Linux; absent elsewhere): on shared
	// cores they say how much the timings were disturbed.
	LoadStart   []float64  `json:"load_start,omitempty"`
	LoadEnd     []float64  `json:"load_end,omitempty"`
	Interrupted bool       `json:"interrupted"`
	Machine     Machine    `json:"machine"`
	Sections    []*Section `json:"sections"`

	start time.Time
}

// Section is one subcommand's part of the report.
type Section struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Status is "ok", "interrupted" (Ctrl-C; what finished is kept) or
	// "error" (see Error).
	Status   string   `json:"status"`
	Error    string   `json:"error,omitempty"`
	ElapsedS float64  `json:"elapsed_s"`
	Notes    []string `json:"notes,omitempty"`
	Tables   []*Table `json:"tables,omitempty"`
	// Results holds the command's own numbers (see Env.Results).
	Results any `json:"results,omitempty"`
	// Figures lists the SVG files written under -svg DIR.
	Figures []string `json:"figures,omitempty"`

	figures []namedFigure
}

type namedFigure struct {
	file string
	fig  *svgplot.Figure
}

// Table is a Markdown table: a title, column headers and rows of
// already formatted cells.
type Table struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	// Note is printed under the table (units, how numbers were obtained).
	Note string `json:"note,omitempty"`
}

// Add appends a row; it panics if the number of cells differs from the
// number of columns (a programming error).
func (t *Table) Add(cells ...string) {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("bench.Table.Add: %d cells for %d columns in %q", len(cells), len(t.Columns), t.Title))
	}
	t.Rows = append(t.Rows, cells)
}

// numericCell reports whether a cell reads as a number, so its column is
// right-aligned.
func numericCell(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s == "" || s == "–" || s == "n/a" || s == "missing" || (r >= '0' && r <= '9') || strings.ContainsRune("+-−±.", r)
}

// cellWidth is the width of a cell as printed: its runes, and a backslash
// before each "|" (escaped so that it does not end the cell).
func cellWidth(s string) int {
	return utf8.RuneCountInString(s) + strings.Count(s, "|")
}

// Markdown writes the table with padded columns so the raw text reads as a
// table too. Columns whose cells all look numeric are right-aligned.
func (t *Table) Markdown(w io.Writer) {
	if t.Title != "" {
		fmt.Fprintf(w, "### %s\n\n", t.Title)
	}
	n := len(t.Columns)
	width := make([]int, n)
	right := make([]bool, n)
	for j, c := range t.Columns {
		width[j] = max(3, cellWidth(c))
		right[j] = len(t.Rows) > 0
		for _, r := range t.Rows {
			width[j] = max(width[j], cellWidth(r[j]))
			right[j] = right[j] && numericCell(r[j])
		}
	}
	pad := func(s string, j int) string {
		p := strings.Repeat(" ", width[j]-cellWidth(s))
		s = strings.ReplaceAll(s, "|", `\|`)
		if right[j] {
			return p + s
		}
		return s + p
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for j, c := range cells {
			b.WriteString(" " + pad(c, j) + " |")
		}
		b.WriteString("\n")
	}
	line(t.Columns)
	b.WriteString("|")
	for j := range t.Columns {
		if right[j] {
			b.WriteString(" " + strings.Repeat("-", width[j]-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", width[j]) + " |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		line(r)
	}
	if t.Note != "" {
		b.WriteString("\n" + t.Note + "\n")
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}

// writeFigures renders every recorded figure into dir and lists the files in
// their sections. It goes on after a failure and returns the first error.
func writeFigures(rep *Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var first error
	for _, s := range rep.Sections {
		for _, f := range s.figures {
			if err := f.fig.WriteFile(filepath.Join(dir, f.file)); err != nil {
				if first == nil {
					first = fmt.Errorf("figure %s: %w", f.file, err)
				}
				continue
			}
			s.Figures = append(s.Figures, f.file)
		}
	}
	return first
}

// writeJSON writes the report, indented, to the named file.
func writeJSON(rep *Report, name string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

// Stat summarises repeated measurements.
type Stat struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	// Std is the sample standard deviation (0 for one sample).
	Std     float64   `json:"std"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Samples []float64 `json:"samples,omitempty"`
}

// Summarize returns the statistics of xs, keeping a copy of the samples.
// NaN samples are dropped (N counts the rest); an empty input gives N = 0
// and zero statistics.
func Summarize(xs []float64) Stat {
	v := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	st := Stat{N: len(v), Samples: append([]float64(nil), v...)}
	if len(v) == 0 {
		return st
	}
	sort.Float64s(v)
	st.Min, st.Max = v[0], v[len(v)-1]
	if h := len(v) / 2; len(v)%2 == 1 {
		st.Median = v[h]
	} else {
		st.Median = (v[h-1] + v[h]) / 2
	}
	for _, x := range v {
		st.Mean += x
	}
	st.Mean /= float64(len(v))
	if len(v) > 1 {
		for _, x := range v {
			st.Std += (x - st.Mean) * (x - st.Mean)
		}
		st.Std = math.Sqrt(st.Std / float64(len(v)-1))
	}
	return st
}

// Spread returns half the range relative to the median, in percent: "±x%"
// in tables.
func (s Stat) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return 100 * (s.Max - s.Min) / (2 * s.Median)
}

// FmtSig formats v with sig significant digits in plain notation for
// magnitudes from 1e-3 to 1e7 and in e-notation outside.
func FmtSig(v float64, sig int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	a := math.Abs(v)
	if a < 1e-3 || a >= 1e7 {
		return strconv.FormatFloat(v, 'e', sig-1, 64)
	}
	dec := max(0, sig-1-int(math.Floor(math.Log10(a))))
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// FmtNs formats a duration given in nanoseconds with a unit chosen for
// three significant digits: "12.3 ns", "4.56 µs", "1.23 ms", "2.00 s".
func FmtNs(ns float64) string {
	switch a := math.Abs(ns); {
	case a < 1e3:
		return FmtSig(ns, 3) + " ns"
	case a < 1e6:
		return FmtSig(ns/1e3, 3) + " µs"
	case a < 1e9:
		return FmtSig(ns/1e6, 3) + " ms"
	default:
		return FmtSig(ns/1e9, 3) + " s"
	}
}

// FmtSize formats a count with binary suffixes when exact: 4096 -> "4 Ki",
// 4194304 -> "4 Mi", 1000 -> "1000".
func FmtSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " Mi"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " Ki"
	default:
		return strconv.Itoa(n)
	}
}
