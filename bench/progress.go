package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Progress reports a phase of work on stderr: what is running, done/total
// and the elapsed time. On a terminal it rewrites one line; otherwise (a
// log file, CI) it prints a line at most every progressEvery, so logs stay
// short. It is safe for concurrent use.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	quiet   bool
	tty     bool
	phase   string
	total   int
	done    int
	running string
	start   time.Time
	last    time.Time
}

const progressEvery = 2 * time.Second

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newProgress(w io.Writer, quiet bool, phase string, total int) *Progress {
	now := time.Now()
	return &Progress{w: w, quiet: quiet, tty: isTerminal(w), phase: phase, total: total, start: now}
}

// Running says which unit of work starts now, e.g. "Dot n=4 Ki".
func (p *Progress) Running(what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = what
	p.print(false)
}

// Done marks n more units as finished. Call it once a unit's results are
// recorded (or certain to be), so that testUnitDone sees finished work.
func (p *Progress) Done(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.print(false)
	if testUnitDone != nil {
		testUnitDone()
	}
}

// testUnitDone, when set, is called on every Progress.Done. Tests use it to
// cancel a run after an exact number of units of work, where a timer would
// make the number depend on the machine's speed.
var testUnitDone func()

// Finish ends the progress display with a final line.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = ""
	p.print(true)
	if p.tty && !p.quiet {
		fmt.Fprintln(p.w)
	}
}

func (p *Progress) print(final bool) {
	if p.quiet {
		return
	}
	now := time.Now()
	if !final && !p.tty && !p.last.IsZero() && now.Sub(p.last) < progressEvery {
		return
	}
	if !final && p.tty && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	s := fmt.Sprintf("bench: %s %d/%d, %.1fs", p.phase, p.done, p.total, now.Sub(p.start).Seconds())
	if p.running != "" {
		s += ", running " + p.running
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", s)
	} else {
		fmt.Fprintln(p.w, s)
	}
}
