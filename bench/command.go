package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/neadmm/neadmm/internal/svgplot"
)

// Command is one subcommand of bench. Each lives in its own file as a
// package-level variable (kernelsCommand in kernels.go, ...), listed once in
// commandTable.
type Command struct {
	// Name is the word typed after "go run ./bench".
	Name string
	// Short is the one-line help shown in the command list and under the
	// command's heading in the report.
	Short string
	// Args, when not empty, describes the positional arguments the command
	// takes (e.g. "A.json B.json [C.json ...]"), read with FlagSet.Args in a
	// check. A command without Args takes none: extra words are a usage
	// error.
	Args string
	// Flags defines the command's own flags on fs and returns the function
	// that runs the command with their values. It is called once per
	// invocation, so flag variables may be locals of Flags. Every value is
	// checked before the command runs: a check registered with fs.Check
	// that fails ends bench with exit status 2, its message naming the
	// flag, before anything is printed on stdout. Flags must not define the
	// common flags (json, svg, seed, quiet). A command that reads the real
	// data sets defines "data" (a directory): a -data given before the
	// command name, or to the tour, is handed to it.
	Flags func(fs *FlagSet) RunFunc
	// Offline commands measure nothing on this machine (compare reads
	// other runs' files): bench prints no machine table before them.
	Offline bool
	// TourArgs, when non-nil, makes the quick tour (no arguments) run the
	// command with these arguments, in commandTable's order. The whole
	// tour should stay near 10 s on a 2-core machine, so keep each
	// command's share to a few seconds.
	TourArgs []string
}

// commandTable lists every subcommand, in the order of the command list
// and of the quick tour.
var commandTable = []*Command{&kernelsCommand, &onebitCommand, &stagesCommand, &rhoCommand, &milCommand, &scalingCommand, &latencyCommand, &compareCommand}

// lookupCommand returns the named command, or nil.
func lookupCommand(name string) *Command {
	for _, c := range commandTable {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// FlagSet is what a command defines its flags on: a flag.FlagSet plus
// checks that run right after parsing, before any work or output, so that
// a bad value ends the run with exit status 2 and the flag's name, as the
// flag package does for values it cannot parse at all.
type FlagSet struct {
	*flag.FlagSet
	checks []func() error
}

func newFlagSet(name string, output io.Writer) *FlagSet {
	fs := &FlagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
	fs.SetOutput(output)
	return fs
}

// Check registers fn to validate the parsed flags (in the order
// registered). fn may also convert values for the run function to use. Its
// error must name the flag, e.g. `-grid-m: sizes must increase: "50,40"`.
func (fs *FlagSet) Check(fn func() error) { fs.checks = append(fs.checks, fn) }

// check runs the registered checks and returns the first error.
func (fs *FlagSet) check() error {
	for _, fn := range fs.checks {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

// RunFunc runs a subcommand. It writes its tables, numbers and figures
// through env and returns nil on success. It checks ctx between units of
// work and, once ctx is done, returns ctx.Err() promptly after recording
// what finished (the framework then reports the section as interrupted and
// still writes everything recorded).
type RunFunc func(ctx context.Context, env *Env) error

// findData returns the data directory for a command's -data flag value
// flagDir: flagDir itself when given, else what datadir.Find finds. When
// none is found, dir is "" and note says where bench looked and how to
// point it elsewhere, for the command to print.
func findData(flagDir string) (dir, note string) {
	if flagDir != "" {
		return flagDir, ""
	}
	found, ok := datadir.Find()
	if ok {
		return found, ""
	}
	where := "no go.mod above the working directory, so no ../shared/data beside the module root to look in"
	switch {
	case os.Getenv(datadir.EnvVar) != "":
		where = fmt.Sprintf("$%s = %s is not a directory", datadir.EnvVar, os.Getenv(datadir.EnvVar))
	case found != "":
		where = fmt.Sprintf("looked in %s; $%s is not set", found, datadir.EnvVar)
	}
	return "", fmt.Sprintf("No data directory found: %s. Give -data DIR or set %s to the directory holding fox.csv and vaccine.svm.",
		where, datadir.EnvVar)
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

// checkDataDir checks a -data flag value: empty (look for the data) or an
// existing directory.
func checkDataDir(dir string) error {
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("-data %s: not a directory", dir)
	}
	return nil
}
