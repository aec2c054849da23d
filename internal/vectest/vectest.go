// Package vectest runs tests on every implementation of package vec that
// this CPU can run. Only tests import it: it holds the one process-wide
// switch of vec's package functions, which production code (the bench
// command included) neither needs nor links. Code that only calls vec can
// compare implementations race-free with vec.Implementations and the
// methods of vec.Kernels instead.
package vectest

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	_ "unsafe" // for go:linkname

	"github.com/neadmm/neadmm/vec"
)

// setImpl is vec's unexported test switch (see its doc there).
//
//go:linkname setImpl github.com/neadmm/neadmm/vec.setImpl
func setImpl(name string) (restore func(), ok bool)

// ForEach runs f as a subtest, named after the implementation, once for
// each implementation this CPU can run (vec.Implementations), with vec's
// package functions switched to it, and restores the start-up choice
// afterwards. f also gets the implementation's kernel set. The subtests
// must not run in parallel with anything that calls vec.
func ForEach(t *testing.T, f func(t *testing.T, k vec.Kernels)) {
	t.Helper()
	for _, k := range vec.Implementations() {
		t.Run(k.Name(), func(t *testing.T) {
			restore, ok := setImpl(k.Name())
			if !ok {
				t.Fatalf("vec.Implementations lists %s, but the switch cannot select it", k.Name())
			}
			defer restore()
			if got := vec.Impl(); got != k.Name() {
				t.Fatalf("switched to %s, vec.Impl() = %s", k.Name(), got)
			}
			f(t, k)
		})
	}
}

// Each calls f once for each implementation this CPU can run, with vec's
// package functions switched to it, and restores the start-up choice
// afterwards: ForEach without subtests, for fuzz targets. f must not run
// in parallel with anything that calls vec.
func Each(f func(k vec.Kernels)) {
	for _, k := range vec.Implementations() {
		restore, ok := setImpl(k.Name())
		if !ok {
			panic("vectest: vec.Implementations lists " + k.Name() + ", but the switch cannot select it")
		}
		func() {
			defer restore()
			f(k)
		}()
	}
}

// All returns the names of vec's implementations for this GOARCH, best
// first, whether or not this CPU and build can run them.
func All() []string {
	switch runtime.GOARCH {
	case "amd64":
		return []string{"avx512", "avx2", "generic"}
	case "arm64":
		return []string{"neon", "generic"}
	}
	return []string{"generic"}
}

// Tested returns the names of the implementations ForEach runs, best
// first.
func Tested() []string {
	var names []string
	for _, k := range vec.Implementations() {
		names = append(names, k.Name())
	}
	return names
}

// Untested returns one line for each implementation of this GOARCH that
// ForEach cannot run here, e.g. "vec: avx512 not available on this CPU:
// not tested".
func Untested() []string {
	var lines []string
	tested := Tested()
	for _, name := range All() {
		if !slices.Contains(tested, name) {
			why := "on this CPU"
			if !hasAssembly {
				why = "in this build (purego tag or not gc)"
			}
			lines = append(lines, "vec: "+name+" not available "+why+": not tested")
		}
	}
	return lines
}

// Report logs which implementations the tests of this package run on, and
// one line for each that they cannot (visible with go test -v).
func Report(t testing.TB) {
	t.Helper()
	t.Logf("vec: implementations tested: %s", strings.Join(Tested(), " "))
	for _, line := range Untested() {
		t.Log(line)
	}
}
