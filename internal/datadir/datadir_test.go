package datadir

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fakeTB records what File asks of its test. Unlike testing's, its Fatalf
// and Skipf return, so File's own control flow is what is checked.
type fakeTB struct {
	helper       bool
	fatal, skips []string
}

func (f *fakeTB) Helper() { f.helper = true }
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.fatal = append(f.fatal, fmt.Sprintf(format, a...))
}
func (f *fakeTB) Skipf(format string, a ...any) { f.skips = append(f.skips, fmt.Sprintf(format, a...)) }

// testing's types must keep satisfying TB, or every call site breaks.
var _, _ TB = (*testing.T)(nil), (*testing.B)(nil)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "present.csv"), []byte("1,1,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, dir)
	for _, c := range []struct {
		name, ci      string
		path          string
		fatals, skips int
	}{
		{"present.csv", "", filepath.Join(dir, "present.csv"), 0, 0},
		{"present.csv", "true", filepath.Join(dir, "present.csv"), 0, 0},
		{"missing.csv", "", "", 0, 1},
		{"missing.csv", "false", "", 0, 1},
		{"missing.csv", "true", "", 1, 0},
	} {
		t.Setenv("CI", c.ci)
		tb := &fakeTB{}
		got := File(tb, c.name)
		if got != c.path || len(tb.fatal) != c.fatals || len(tb.skips) != c.skips || !tb.helper {
			t.Errorf("File(%q) with CI=%q: path %q, Fatalf %q, Skipf %q, Helper called %v; want path %q, %d Fatalf, %d Skipf",
				c.name, c.ci, got, tb.fatal, tb.skips, tb.helper, c.path, c.fatals, c.skips)
		}
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	if d, ok := Find(); d != dir || !ok {
		t.Errorf("Find() with %s=%s: %q, %v", EnvVar, dir, d, ok)
	}
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, notDir)
	if d, ok := Find(); d != notDir || ok {
		t.Errorf("Find() with %s naming a file: %q, %v; want ok false", EnvVar, d, ok)
	}
}

// TestFindWalksUp checks Find without $NEADMM_DATA: from a directory below
// the module root it takes ../shared/data beside the root (the nearest
// go.mod up the tree), ok only when that is a directory, and gives up at the
// file system's root when no go.mod is found.
func TestFindWalksUp(t *testing.T) {
	t.Setenv(EnvVar, "")
	root := t.TempDir()
	mod := filepath.Join(root, "mod")
	deep := filepath.Join(mod, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// No go.mod yet: the walk reaches "/" (the temporary directory is not
	// inside a module on any machine this runs on; checked below).
	t.Chdir(deep)
	for d := deep; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			t.Skipf("the temporary directory %s is inside a module (%s)", root, d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if d, ok := Find(); d != "" || ok {
		t.Errorf("Find() outside a module: %q, %v; want \"\", false", d, ok)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(mod, "..", "shared", "data")
	if d, ok := Find(); d != want || ok {
		t.Errorf("Find() with no shared/data: %q, %v; want %q, false", d, ok, want)
	}
	if err := os.MkdirAll(filepath.Join(root, "shared", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if d, ok := Find(); d != want || !ok {
		t.Errorf("Find() below the module root: %q, %v; want %q, true", d, ok, want)
	}
	// A nearer go.mod wins: from inside a nested module the data are looked
	// for beside that one.
	if err := os.WriteFile(filepath.Join(deep, "go.mod"), []byte("module n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, ok := Find(); d != filepath.Join(deep, "..", "shared", "data") || ok {
		t.Errorf("Find() in a nested module: %q, %v; want its own ../shared/data, false", d, ok)
	}
}
