package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/neadmm/neadmm/internal/svgplot"
)

// Command is one subcommand of bench. A subcommand lives in one file that
// calls Register from an init function:
//
//	func init() {
//		Register(Command{
//			Name:  "onebit",
//			Short: "1-bit compressive sensing: objective vs M, recovery vs BIHT",
//			Order: 20,
//			Flags: func(fs *flag.FlagSet) RunFunc {
//				n := fs.Int("n", 512, "signal length")
//				return func(ctx context.Context, env *Env) error { ... }
//			},
//			TourArgs: []string{"-n", "128"},
//		})
//	}
//
// The common flags (-json, -svg, -seed, -quiet) are handled by the
// framework and reach the command through Env.
type Command struct {
	// Name is the word typed after "go run ./bench".
	Name string
	// Short is the one-line help shown in the command list.
	Short string
	// Order sorts the command list and the quick tour (smaller first; ties
	// by name). kernels is 10; leave gaps.
	Order int
	// Flags defines the command's own flags on fs and returns the function
	// that runs the command with their parsed values. It is called once per
	// invocation, so flag variables may be locals of Flags. It must not
	// define the common flags (json, svg, seed, quiet). A command that
	// reads the real data sets defines "data" (a directory): a -data given
	// before the command name, or to the tour, is handed to it.
	Flags func(fs *flag.FlagSet) RunFunc
	// TourArgs, when non-nil, makes the quick tour (no arguments) run the
	// command with these arguments. The whole tour must finish within a
	// minute on a 2-core machine, so keep each command's share to seconds.
	TourArgs []string
}

// RunFunc runs a subcommand. It writes its tables, numbers and figures
// through env and returns nil on success. It checks ctx between units of
// work and, once ctx is done, returns ctx.Err() promptly after recording
// what finished (the framework then reports the section as interrupted and
// still writes everything recorded).
type RunFunc func(ctx context.Context, env *Env) error

var registry = map[string]Command{}

// Register adds a subcommand. It panics on an empty or duplicate name or a
// nil Flags, which are programming errors found at start-up.
func Register(c Command) {
	if c.Name == "" || c.Flags == nil || strings.HasPrefix(c.Name, "-") {
		panic("bench.Register: command needs a name and Flags")
	}
	if _, dup := registry[c.Name]; dup || c.Name == "help" {
		panic("bench.Register: duplicate command " + c.Name)
	}
	registry[c.Name] = c
}

// commands returns the registered commands in Order.
func commands() []Command {
	cs := make([]Command, 0, len(registry))
	for _, c := range registry {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Order != cs[j].Order {
			return cs[i].Order < cs[j].Order
		}
		return cs[i].Name < cs[j].Name
	})
	return cs
}

// Env is what a running subcommand sees of the framework: where to write,
// the common settings, and its section of the report.
type Env struct {
	// Out receives the Markdown report (stdout).
	Out io.Writer
	// Seed is the -seed flag; every random choice derives from it.
	Seed uint64
	// Quiet is the -quiet flag: no progress or notes on stderr.
	Quiet bool
	// Tour is true when the command runs as part of the quick tour.
	Tour bool
	// Section is this command's part of the report; Table, Note, Results
	// and Figure fill it.
	Section *Section

	log   io.Writer // stderr
	start time.Time
}

// Table prints t as Markdown on Out and records it in the report. Print
// each table as soon as it is complete, so an interrupted run still shows it.
func (e *Env) Table(t *Table) {
	e.Section.Tables = append(e.Section.Tables, t)
	t.Markdown(e.Out)
}

// Note prints a line of Markdown prose on Out and records it in the report.
func (e *Env) Note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	e.Section.Notes = append(e.Section.Notes, s)
	fmt.Fprintf(e.Out, "%s\n\n", s)
}

// Results records the command's numbers for -json. Pass a pointer to a
// struct the command keeps filling in: what it holds when the run ends,
// interrupted or not, is what the JSON gets. JSON-encoding must succeed
// (no NaN or Inf in float fields; use pointers or omitempty for "absent").
func (e *Env) Results(v any) { e.Section.Results = v }

// Figure records a figure to write as <command>-<name>.svg under -svg DIR.
// Figures are rendered when the run ends; a figure that fails to render is
// reported as an error of the run. Without -svg figures are not rendered.
func (e *Env) Figure(name string, f *svgplot.Figure) {
	e.Section.figures = append(e.Section.figures, namedFigure{e.Section.Command + "-" + name + ".svg", f})
}

// Logf writes an informational line on stderr unless -quiet.
func (e *Env) Logf(format string, args ...any) {
	if !e.Quiet {
		fmt.Fprintf(e.log, "bench: "+format+"\n", args...)
	}
}

// Progress starts a progress line on stderr for a phase of total units of
// work (silent under -quiet). Call Running before and Done after each unit.
func (e *Env) Progress(phase string, total int) *Progress {
	return newProgress(e.log, e.Quiet, e.Section.Command+": "+phase, total)
}
