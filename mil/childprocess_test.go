package mil

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Tests of failures that would take the test process down (an allocation
// the runtime cannot satisfy, a panic in a goroutine the caller cannot
// recover) run their body in a child process: the test binary re-executes
// itself for that one test, under a cap on its address space, and the
// parent asserts that the child passed. A failure then shows as the
// child's output ("fatal error: out of memory", a goroutine's panic) in
// the parent's failure, instead of ending the test run.

// childEnv names the test a re-executed test binary runs as a child.
const childEnv = "MIL_TEST_CHILD"

// childBudget is the address space a child may add to what it has when
// its test starts: an allocation the fixed code would not make (gigabytes)
// fails at once, without touching memory.
const childBudget = 1 << 30

// inChild reports whether the calling test runs as the child; then its
// address space is capped at its current size plus budget bytes. In the
// parent it runs the test in a child and fails t unless the child passed,
// then returns false; the caller returns. Where the cap cannot be set (not
// Linux, or the race detector, whose shadow memory the cap would count) or
// the binary cannot start itself (an emulated architecture), it skips t.
func inChild(t *testing.T, budget uint64) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		if err := capAddressSpace(budget); err != nil {
			t.Fatalf("capping the address space: %v", err)
		}
		return true
	}
	if !addressSpaceCap || raceEnabled {
		t.Skip("needs a cap on the address space: Linux, without the race detector")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	text := out.String()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		t.Fatalf("the child failed (%v after %v):\n%s", err, time.Since(start).Round(time.Millisecond), clip(text))
	case err != nil:
		// The binary cannot run itself: an emulated architecture (go test
		// -exec qemu-aarch64) whose binaries the host cannot execute.
		t.Skipf("cannot run the test binary as a child: %v", err)
	case strings.Contains(text, "--- SKIP: "+t.Name()):
		t.Skipf("the child skipped:\n%s", clip(text))
	case !strings.Contains(text, "--- PASS: "+t.Name()):
		t.Fatalf("the child did not pass:\n%s", clip(text))
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, ".go:") { // the child's t.Log lines
			t.Log(strings.TrimSpace(line))
		}
	}
	return false
}

// clip returns the first 4 kB of a child's output: a crash prints every
// goroutine.
func clip(s string) string {
	if len(s) > 4096 {
		return s[:4096] + "\n[...]"
	}
	return s
}

// logPeak logs the child's peak resident memory, when known.
func logPeak(t *testing.T) {
	t.Helper()
	if peak, ok := peakRSS(); ok {
		t.Logf("peak RSS %.1f MiB (GOMAXPROCS %d)", float64(peak)/(1<<20), runtime.GOMAXPROCS(0))
	}
}
