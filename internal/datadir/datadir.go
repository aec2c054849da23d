// Package datadir finds the real data sets (../shared/data beside the module
// root, or $NEADMM_DATA) for tests, examples and benchmarks.
package datadir

import (
	"os"
	"path/filepath"
)

// EnvVar names the environment variable that overrides the data directory.
const EnvVar = "NEADMM_DATA"

// Find returns the data directory: $NEADMM_DATA if set, else ../shared/data
// relative to the module root found by walking up from the working
// directory. ok is false when no directory holding the data exists.
func Find() (dir string, ok bool) {
	if d := os.Getenv(EnvVar); d != "" {
		return d, isDir(d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			cand := filepath.Join(d, "..", "shared", "data")
			return cand, isDir(cand)
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// TB is the part of testing.TB that File uses; *testing.T and *testing.B
// satisfy it. Taking this instead of testing.TB keeps package testing (and
// its flags) out of commands that import datadir for Find.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// File returns the path of the named data file for a test. When it is
// missing the test fails (tb.Fatalf) under CI=true, since CI must not
// silently skip real-data checks, and is skipped (tb.Skipf) otherwise; File
// then returns "" if tb's Fatalf or Skipf returns, which testing's do not.
func File(tb TB, name string) string {
	tb.Helper()
	dir, ok := Find()
	p := filepath.Join(dir, name)
	if ok {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("data file %s not found (set %s or place ../shared/data beside the module)", name, EnvVar)
		return ""
	}
	tb.Skipf("data file %s not found; set %s to run this test", name, EnvVar)
	return ""
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
