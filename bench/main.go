// Command bench is neadmm's benchmark and experiment driver.
//
//	go run ./bench                 quick tour: machine, kernel table, one solve per application
//	go run ./bench -data DIR       the tour with the real data sets read from DIR
//	go run ./bench <command> -h    flags of a command
//	go run ./bench kernels         kernel timings, accelerated vs generic
//
// Results are Markdown tables on stdout; -json FILE writes every number and
// the machine description, -svg DIR the figures. Progress goes to stderr.
// Ctrl-C stops the running work; what finished is still printed and
// written (exit status 130). A second Ctrl-C kills the process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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

// common holds the flags every command accepts, before or after its name,
// and -data, which before the name is handed to the commands defining it.
type common struct {
	json  string
	svg   string
	seed  uint64
	quiet bool
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

// job is one command to run with its parsed flags.
type job struct {
	cmd  Command
	args []string
	fn   RunFunc
}

// run is the whole program with its inputs made explicit, so tests call it
// in-process. It returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := &common{seed: 1}
	top := flag.NewFlagSet("bench", flag.ContinueOnError)
	top.SetOutput(stderr)
	c.register(top)
	// -data is not a common flag: it belongs to the commands that read
	// real data (mil), which define it themselves, and is handed to them.
	top.StringVar(&c.data, "data", "", "`dir` holding the real data sets (fox.csv, vaccine.svm) for mil, in the tour too; "+
		"the same as mil's -data (default: ../shared/data or $"+datadir.EnvVar+" when found)")
	top.Usage = func() { usage(top, stderr) }
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	rest := top.Args()

	var jobs []job
	tour := len(rest) == 0
	if tour {
		// The quick tour runs every command registered with TourArgs, in
		// Order (kernels, onebit, mil, scaling); a command joins it by
		// registering with TourArgs, nothing here changes. -data goes to
		// those that define it.
		for _, cmd := range commands() {
			if cmd.TourArgs == nil {
				continue
			}
			fs := flag.NewFlagSet("bench "+cmd.Name, flag.ContinueOnError)
			fs.SetOutput(stderr)
			fn := cmd.Flags(fs)
			args := append([]string{}, cmd.TourArgs...)
			if c.data != "" && fs.Lookup("data") != nil {
				args = append(args, "-data", c.data)
			}
			if err := fs.Parse(args); err != nil {
				fmt.Fprintf(stderr, "bench: bad tour arguments for %s: %v\n", cmd.Name, err)
				return exitError
			}
			jobs = append(jobs, job{cmd, args, fn})
		}
	} else {
		name := rest[0]
		if name == "help" {
			if len(rest) > 1 {
				name, rest = rest[1], []string{rest[1], "-h"}
			} else {
				usage(top, stdout)
				return exitOK
			}
		}
		cmd, ok := registry[name]
		if !ok {
			fmt.Fprintf(stderr, "bench: unknown command %q\n\n", name)
			usage(top, stderr)
			return exitUsage
		}
		fs := flag.NewFlagSet("bench "+name, flag.ContinueOnError)
		fs.SetOutput(stderr)
		fn := cmd.Flags(fs)
		c.register(fs)
		fs.Usage = func() {
			fmt.Fprintf(fs.Output(), "usage: go run ./bench %s [flags]\n\n%s\n\nflags:\n", name, cmd.Short)
			fs.PrintDefaults()
		}
		args := rest[1:]
		if c.data != "" {
			if fs.Lookup("data") == nil {
				fmt.Fprintf(stderr, "bench: -data: the %s command reads no data sets\n", name)
				return exitUsage
			}
			// First, so that a -data after the name wins.
			args = append([]string{"-data", c.data}, args...)
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return exitOK
			}
			return exitUsage
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "bench %s: unexpected arguments %q\n", name, fs.Args())
			return exitUsage
		}
		jobs = append(jobs, job{cmd, args, fn})
	}

	start := time.Now()
	rep := &Report{
		Schema:  1,
		Args:    append([]string{}, args...),
		Seed:    c.seed,
		Started: start.UTC().Format(time.RFC3339),
		Machine: describeMachine(),
	}
	if tour {
		fmt.Fprintf(stdout, "# neadmm bench: quick tour\n\n")
	} else {
		fmt.Fprintf(stdout, "# neadmm bench %s\n\n", strings.Join(args, " "))
	}
	rep.Machine.table().Markdown(stdout)

	status := exitOK
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		sec := &Section{Command: j.cmd.Name, Args: append([]string{}, j.args...), Status: "ok"}
		rep.Sections = append(rep.Sections, sec)
		env := &Env{Out: stdout, Seed: c.seed, Quiet: c.quiet, Tour: tour, Section: sec, log: stderr, start: time.Now()}
		fmt.Fprintf(stdout, "## %s\n\n%s\n\n", j.cmd.Name, j.cmd.Short)
		err := j.fn(ctx, env)
		sec.ElapsedS = time.Since(env.start).Seconds()
		switch {
		case err == nil:
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			sec.Status = "interrupted"
		default:
			sec.Status, sec.Error = "error", err.Error()
			fmt.Fprintf(stderr, "bench %s: %v\n", j.cmd.Name, err)
			status = exitError
		}
	}
	if ctx.Err() != nil {
		rep.Interrupted = true
		fmt.Fprintf(stdout, "**Interrupted**: the tables above hold what finished.\n\n")
		if !c.quiet {
			fmt.Fprintf(stderr, "bench: interrupted; writing what finished\n")
		}
	}
	if c.svg != "" {
		if err := writeFigures(rep, c.svg); err != nil {
			fmt.Fprintf(stderr, "bench: -svg: %v\n", err)
			status = exitError
		}
	}
	rep.ElapsedS = time.Since(start).Seconds()
	if c.json != "" {
		if err := writeJSON(rep, c.json); err != nil {
			fmt.Fprintf(stderr, "bench: -json: %v\n", err)
			status = exitError
		}
	}
	if rep.Interrupted && status == exitOK {
		status = exitInterrupted
	}
	return status
}

func usage(top *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `usage: go run ./bench [flags] [command [command flags]]

Without a command, bench runs a quick tour (under a minute): the machine,
a short kernel table and a small run of each application. Its mil part also
fits fox.csv and vaccine.svm from -data DIR (default: ../shared/data or
$%s when found).

commands:
`, datadir.EnvVar)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Short)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "help", "help CMD shows the flags of CMD (as does CMD -h)")
	fmt.Fprintf(w, "\nflags (before the command name; all but -data also after it):\n")
	top.SetOutput(w)
	top.PrintDefaults()
}
