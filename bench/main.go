// Command bench is neadmm's benchmark and experiment driver.
//
//	go run ./bench                 quick tour: machine, kernel table, one solve per application, service latency
//	go run ./bench -data DIR       the tour with the real data sets read from DIR
//	go run ./bench <command> -h    flags of a command
//	go run ./bench kernels         kernel timings, every vec implementation side by side
//	go run ./bench compare A.json B.json   two runs (e.g. x86 and ARM) side by side
//
// Results are Markdown tables on stdout; -json FILE writes every number and
// the machine description, -svg DIR the figures. Progress goes to stderr.
// Flag values are checked before anything runs: a bad one exits with
// status 2 and the flag's name. Ctrl-C stops the running work; what
// finished is still printed and written (exit status 130). A second Ctrl-C
// kills the process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // restore default handling: a second Ctrl-C kills at once
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses of run.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130 // as a shell reports a SIGINT death
)

// tourSeconds is the measured wall time of the quick tour on the 2-core
// development machine, as the README quotes it: with vaccine.svm and fox.csv
// found, 8.3-8.8 s for the built binary in three runs at a load average of
// 3 from other jobs (kernels 5 s of it: three implementations), about a
// second more with go run's build.
const tourSeconds = "about 9 s on a 2-core machine, more when it is busy"

// common holds the flags every command accepts, before or after its name,
// and -data, which before the name is handed to the commands defining it.
type common struct {
	json  string
	svg   string
	seed  uint64
	quiet bool
	note  string
	data  string
}

// register defines the common flags on fs with the current values as
// defaults, so flags given before the command name survive the command's
// own flag parsing.
func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.json, "json", c.json, "write every number and the machine description as JSON to `file`")
	fs.StringVar(&c.svg, "svg", c.svg, "write the figures as SVG files into `dir`")
	fs.Uint64Var(&c.seed, "seed", c.seed, "seed for all random data")
	fs.BoolVar(&c.quiet, "quiet", c.quiet, "no progress or notes on stderr")
	fs.StringVar(&c.note, "note", c.note, "`text` describing the run for the report and compare (instance type, emulation, load)")
}

// check validates the common flags that name output places, so a long run
// does not end unable to write its results.
func (c *common) check() error {
	if c.json != "" {
		if st, err := os.Stat(filepath.Dir(c.json)); err != nil || !st.IsDir() {
			return fmt.Errorf("-json %s: directory %s does not exist", c.json, filepath.Dir(c.json))
		}
		if st, err := os.Stat(c.json); err == nil && st.IsDir() {
			return fmt.Errorf("-json %s: is a directory", c.json)
		}
	}
	if c.svg != "" {
		if st, err := os.Stat(c.svg); err == nil && !st.IsDir() {
			return fmt.Errorf("-svg %s: not a directory", c.svg)
		}
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// parseIncreasing reads a comma-separated, strictly increasing list of
// values that parse accepts; what names one value in error messages.
func parseIncreasing[T int | float64](s, what string, parse func(string) (T, bool)) ([]T, error) {
	var out []T
	for _, f := range splitList(s) {
		v, ok := parse(f)
		if !ok {
			return nil, fmt.Errorf("bad %s %q", what, f)
		}
		if len(out) > 0 && v <= out[len(out)-1] {
			return nil, fmt.Errorf("%ss must increase: %q", what, s)
		}
		out = append(out, v)
	}
	return out, nil
}

// Caps on what flags may ask of memory, checked with the flags (exit 2,
// naming them) rather than when the run allocates: instance counts size
// result tables, worker counts threads (a locked OS thread each; the
// runtime stops at 10000), and the sizes their products.
const (
	maxSeeds   = 100000
	maxWorkers = 1024
)

// capProduct returns an error naming flags when the product of the
// factors (in float64: it cannot overflow), a quantity named what, exceeds
// limit, a cap named capName.
func capProduct(flags, what, capName string, limit float64, factors ...float64) error {
	p := 1.0
	for _, f := range factors {
		p *= f
	}
	if p > limit {
		return fmt.Errorf("%s: %s = %.4g, above the cap of %.4g (%s)", flags, what, p, limit, capName)
	}
	return nil
}

// checkCounts returns an error for a count flag above its cap: flags maps
// "-name" to its value; workers are capped by maxWorkers, the rest by
// maxSeeds.
func checkCounts(flags map[string]int) error {
	for name, v := range flags {
		limit := maxSeeds
		if strings.HasSuffix(name, "workers") {
			limit = maxWorkers
		}
		if v > limit {
			return fmt.Errorf("%s %d: above the cap of %d", name, v, limit)
		}
	}
	return nil
}

// job is one command to run with its checked flags.
type job struct {
	cmd  *Command
	args []string
	fn   RunFunc
}

// invocation is one run of bench: its settings and where it writes.
type invocation struct {
	common
	stdout, stderr io.Writer
	top            *flag.FlagSet
	tour           bool
	args           []string // the arguments after the top-level flags
}

// exitNow is returned by a planning step that ends the run before any
// work, with this exit status; the step has printed why.
type exitNow int

func (e exitNow) Error() string { return "exit status " + itoa(int(e)) }

// run is the whole program with its inputs made explicit, so tests call it
// in-process. It returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	inv := &invocation{common: common{seed: 1}, stdout: stdout, stderr: stderr}
	jobs, err := inv.plan(args)
	if err != nil {
		var e exitNow
		if errors.As(err, &e) {
			return int(e)
		}
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return exitError
	}
	rep := inv.newReport()
	inv.printHeader(rep, jobs)
	status := inv.runJobs(ctx, rep, jobs)
	return inv.finish(ctx, rep, status)
}

// plan parses the top-level flags and then the tour's or the named
// command's, and checks every value. Nothing is printed on stdout unless
// help was asked for.
func (inv *invocation) plan(args []string) ([]job, error) {
	inv.top = flag.NewFlagSet("bench", flag.ContinueOnError)
	inv.top.SetOutput(inv.stderr)
	inv.register(inv.top)
	// -data is not a common flag: it belongs to the commands that read
	// real data, which define it themselves, and is handed to them.
	inv.top.StringVar(&inv.data, "data", "", "`dir` holding the real data sets (fox.csv, vaccine.svm) for mil and latency, in the tour too; "+
		"the same as their -data (default: ../shared/data or $"+datadir.EnvVar+" when found)")
	inv.top.Usage = func() { inv.usage(inv.stderr) }
	if err := inv.top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, exitNow(exitOK)
		}
		return nil, exitNow(exitUsage)
	}
	inv.args = inv.top.Args()
	if len(inv.args) == 0 {
		inv.tour = true
		if err := inv.usageError("", errors.Join(inv.common.check(), checkDataDir(inv.data))); err != nil {
			return nil, err
		}
		return inv.tourJobs()
	}
	j, err := inv.commandJob()
	if err != nil {
		return nil, err
	}
	return []job{j}, nil
}

// usageError prints err, when not nil, as a usage error of the named
// command ("" for bench itself) and returns exitNow(exitUsage).
func (inv *invocation) usageError(name string, err error) error {
	if err == nil {
		return nil
	}
	if name == "" {
		fmt.Fprintf(inv.stderr, "bench: %v\nRun 'go run ./bench -h' for the flags.\n", err)
	} else {
		fmt.Fprintf(inv.stderr, "bench %s: %v\nRun 'go run ./bench %s -h' for its flags.\n", name, err, name)
	}
	return exitNow(exitUsage)
}

// tourJobs returns the quick tour: every command with TourArgs, in table
// order, with -data handed to those that define it. Tour arguments that do
// not parse are a bug of bench, not a usage error.
func (inv *invocation) tourJobs() ([]job, error) {
	var jobs []job
	for _, cmd := range commandTable {
		if cmd.TourArgs == nil {
			continue
		}
		fs := newFlagSet("bench "+cmd.Name, inv.stderr)
		fn := cmd.Flags(fs)
		args := append([]string{}, cmd.TourArgs...)
		if inv.data != "" && fs.Lookup("data") != nil {
			args = append(args, "-data", inv.data)
		}
		err := fs.Parse(args)
		if err == nil {
			err = fs.check()
		}
		if err != nil {
			return nil, fmt.Errorf("bad tour arguments for %s: %w", cmd.Name, err)
		}
		jobs = append(jobs, job{cmd, args, fn})
	}
	return jobs, nil
}

// commandJob parses and checks the named command's flags (inv.args is the
// name and its arguments); "help CMD" is CMD -h.
func (inv *invocation) commandJob() (job, error) {
	name, rest := inv.args[0], inv.args[1:]
	if name == "help" {
		if len(rest) == 0 {
			inv.usage(inv.stdout)
			return job{}, exitNow(exitOK)
		}
		name, rest = rest[0], []string{"-h"}
	}
	cmd := lookupCommand(name)
	if cmd == nil {
		fmt.Fprintf(inv.stderr, "bench: unknown command %q\n\n", name)
		inv.usage(inv.stderr)
		return job{}, exitNow(exitUsage)
	}
	fs := newFlagSet("bench "+name, inv.stderr)
	fn := cmd.Flags(fs)
	inv.register(fs.FlagSet)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n%s\n\nflags:\n", strings.TrimSpace("go run ./bench "+name+" [flags] "+cmd.Args), cmd.Short)
		fs.PrintDefaults()
	}
	args := rest
	if inv.data != "" {
		if fs.Lookup("data") == nil {
			return job{}, inv.usageError(name, fmt.Errorf("-data: the %s command reads no data sets", name))
		}
		// First, so that a -data after the name wins.
		args = append([]string{"-data", inv.data}, args...)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return job{}, exitNow(exitOK)
		}
		return job{}, exitNow(exitUsage) // the flag package said why
	}
	if fs.NArg() > 0 && cmd.Args == "" {
		return job{}, inv.usageError(name, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if err := inv.usageError(name, errors.Join(inv.common.check(), fs.check())); err != nil {
		return job{}, err
	}
	return job{cmd, args, fn}, nil
}

// newReport starts the report of this run.
func (inv *invocation) newReport() *Report {
	rep := &Report{
		Schema:    schemaVersion,
		Args:      append([]string{}, inv.args...),
		Seed:      inv.seed,
		Note:      inv.note,
		Started:   time.Now().UTC().Format(time.RFC3339),
		Machine:   describeMachine(),
		LoadStart: loadAvg(),
		start:     time.Now(),
	}
	return rep
}

// printHeader prints the report's title and, unless every job is offline,
// the machine table.
func (inv *invocation) printHeader(rep *Report, jobs []job) {
	if inv.tour {
		fmt.Fprintf(inv.stdout, "# neadmm bench: quick tour\n\n")
	} else {
		fmt.Fprintf(inv.stdout, "# neadmm bench %s\n\n", strings.Join(inv.args, " "))
	}
	for _, j := range jobs {
		if !j.cmd.Offline {
			t := rep.Machine.table()
			if rep.LoadStart != nil {
				t.Add(loadLabel, fmtLoad(rep.LoadStart))
			}
			if rep.Note != "" {
				t.Add("note", rep.Note)
			}
			t.Markdown(inv.stdout)
			return
		}
	}
}

// runJobs runs the jobs in order until one is interrupted, recording each
// as a section of rep. It returns exitError if a job failed, else exitOK.
func (inv *invocation) runJobs(ctx context.Context, rep *Report, jobs []job) int {
	status := exitOK
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		sec := &Section{Command: j.cmd.Name, Args: append([]string{}, j.args...), Status: "ok"}
		rep.Sections = append(rep.Sections, sec)
		env := &Env{Out: inv.stdout, Seed: inv.seed, Quiet: inv.quiet, Tour: inv.tour, Section: sec, log: inv.stderr, start: time.Now()}
		fmt.Fprintf(inv.stdout, "## %s\n\n%s\n\n", j.cmd.Name, j.cmd.Short)
		err := j.fn(ctx, env)
		sec.ElapsedS = time.Since(env.start).Seconds()
		switch {
		case err == nil:
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			sec.Status = "interrupted"
		default:
			sec.Status, sec.Error = "error", err.Error()
			fmt.Fprintf(inv.stderr, "bench %s: %v\n", j.cmd.Name, err)
			status = exitError
		}
	}
	return status
}

// finish reports an interruption, writes the figures and the JSON, and
// returns the exit status: status, or exitError if writing failed, or
// exitInterrupted after Ctrl-C.
func (inv *invocation) finish(ctx context.Context, rep *Report, status int) int {
	if ctx.Err() != nil {
		rep.Interrupted = true
		fmt.Fprintf(inv.stdout, "**Interrupted**: the tables above hold what finished.\n\n")
		if !inv.quiet {
			fmt.Fprintf(inv.stderr, "bench: interrupted; writing what finished\n")
		}
	}
	if inv.svg != "" {
		if err := writeFigures(rep, inv.svg); err != nil {
			fmt.Fprintf(inv.stderr, "bench: -svg: %v\n", err)
			status = exitError
		}
	}
	rep.ElapsedS = time.Since(rep.start).Seconds()
	rep.LoadEnd = loadAvg()
	if inv.json != "" {
		if err := writeJSON(rep, inv.json); err != nil {
			fmt.Fprintf(inv.stderr, "bench: -json: %v\n", err)
			status = exitError
		}
	}
	if rep.Interrupted && status == exitOK {
		status = exitInterrupted
	}
	return status
}

func (inv *invocation) usage(w io.Writer) {
	fmt.Fprintf(w, `usage: go run ./bench [flags] [command [command flags]]

Without a command, bench runs a quick tour (%s):
the machine, a short kernel table, a small run of each application and a
few service-latency rows. Its mil part also fits fox.csv and vaccine.svm from
-data DIR (default: ../shared/data or $%s when found).

commands:
`, tourSeconds, datadir.EnvVar)
	for _, c := range commandTable {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Short)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "help", "help CMD shows the flags of CMD (as does CMD -h)")
	fmt.Fprintf(w, "\nflags (before the command name; all but -data also after it):\n")
	inv.top.SetOutput(w)
	inv.top.PrintDefaults()
}
