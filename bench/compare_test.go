package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	x86Fixture   = "testdata/compare/x86.json"
	arm64Fixture = "testdata/compare/arm64.json"
)

// fixtureKernel returns the median ns/op of one kernel point of a fixture:
// the accelerated timing, or the generic one.
func fixtureKernel(t *testing.T, name, kernel string, n int, generic bool) float64 {
	t.Helper()
	rep := readReport(t, name)
	for _, s := range rep.Sections {
		for _, pt := range s.Results.Points {
			if s.Command == "kernels" && pt.Kernel == kernel && pt.N == n {
				if generic {
					return pt.Generic.Ns.Median
				}
				return pt.Accel.Ns.Median
			}
		}
	}
	t.Fatalf("%s: no %s n=%d", name, kernel, n)
	return 0
}

// tableRow returns the cells of the first row of the Markdown table titled
// title (a "### " heading) in out whose leading cells are prefix.
func tableRow(t *testing.T, out, title string, prefix ...string) []string {
	t.Helper()
	_, after, ok := strings.Cut(out, "### "+title+"\n")
	require.True(t, ok, "no table %q in\n%s", title, out)
	for _, line := range strings.Split(after, "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		if len(cells) >= len(prefix) && strings.Join(cells[:len(prefix)], "|") == strings.Join(prefix, "|") {
			return cells
		}
	}
	t.Fatalf("table %q has no row %q", title, prefix)
	return nil
}

func TestCompareFixtures(t *testing.T) {
	svgDir := filepath.Join(t.TempDir(), "svg")
	code, out, errs := runBench(context.Background(), "compare", "-svg", svgDir, x86Fixture, arm64Fixture)
	require.Equal(t, exitOK, code, errs)
	assert.False(t, strings.Contains(out, "### Machine"), "compare measures nothing here: no machine table")
	assert.True(t, strings.Contains(out, "| note "), "the fixtures' notes reach the runs table")

	// Every section of the tour, each with its machines as column heads.
	heads := regexp.MustCompile(`(?m)^### (\w+): `).FindAllStringSubmatch(out, -1)
	var sections []string
	for _, h := range heads {
		if len(sections) == 0 || sections[len(sections)-1] != h[1] {
			sections = append(sections, h[1])
		}
	}
	assert.Equal(t, []string{"kernels", "onebit", "mil", "scaling", "latency"}, sections)
	assert.Regexp(t, `\| A: AMD EPYC, amd64 avx2 \| B: AMD EPYC, arm64 neon \| +B/A \|\n`, out)

	// Ratios computed from the files' own numbers.
	for _, c := range []struct {
		row     string
		generic bool
	}{{"default", false}, {"generic", true}} {
		a := fixtureKernel(t, x86Fixture, "Dot", 256, c.generic)
		b := fixtureKernel(t, arm64Fixture, "Dot", 256, c.generic)
		row := tableRow(t, out, "kernels: Dot, time per call", "256", c.row)
		assert.Equal(t, []string{FmtNs(a), FmtNs(b), FmtSig(b/a, 3)}, row[2:], "Dot n=256 %s", c.row)
	}
	// Results that do not depend on the machine agree (to the digits shown).
	row := tableRow(t, out, "onebit: objective grid, N = 512, λ = 0.01 (means over the instances)", "32", "100", "neADMM objective")
	assert.Equal(t, row[3], row[4])
	assert.Equal(t, "1.00", row[5])
	// Percentiles from too few calls are not compared.
	row = tableRow(t, out, "latency: service latency per call", "Solve", "N=256 M=128", "1", "p99")
	assert.Equal(t, []string{"–", "–", "–"}, row[4:])

	// The figures: per kernel, a line per machine and implementation, and a
	// speedup line per machine.
	assert.Equal(t, 6*4, checkSVG(t, filepath.Join(svgDir, "compare-gbps.svg")))
	assert.Equal(t, 6*2, checkSVG(t, filepath.Join(svgDir, "compare-speedup.svg")))
	assert.Equal(t, []string{"A: AMD EPYC, amd64 avx2", "B: AMD EPYC, arm64 neon"},
		svgLegend(t, filepath.Join(svgDir, "compare-speedup.svg"))[:2])
}

// editFixture writes a copy of a fixture changed by edit into dir.
func editFixture(t *testing.T, src, dir, name string, edit func(rep map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	var rep map[string]any
	require.NoError(t, json.Unmarshal(b, &rep))
	edit(rep)
	b, err = json.Marshal(rep)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// TestCompareMissingRows compares a file with a copy of an older or
// smaller run: a kernels point and the whole latency section missing, an
// unknown section added, and a third file.
func TestCompareMissingRows(t *testing.T) {
	dir := t.TempDir()
	older := editFixture(t, x86Fixture, dir, "older.json", func(rep map[string]any) {
		var kept []any
		for _, s := range rep["sections"].([]any) {
			sec := s.(map[string]any)
			switch sec["command"] {
			case "latency": // written before bench had it
				continue
			case "kernels":
				res := sec["results"].(map[string]any)
				pts := res["points"].([]any)
				res["points"] = pts[1:] // no Dot n=256
			}
			kept = append(kept, sec)
		}
		kept = append(kept, map[string]any{"command": "gemm", "status": "ok", "results": map[string]any{}})
		rep["sections"] = kept
	})
	code, out, errs := runBench(context.Background(), "compare", x86Fixture, older, arm64Fixture)
	require.Equal(t, exitOK, code, errs)
	row := tableRow(t, out, "kernels: Dot, time per call", "256", "default")
	assert.Equal(t, "missing", row[3], "the missing point is marked")
	assert.Equal(t, "–", row[5], "no ratio for a missing row")
	assert.NotEqual(t, "–", row[6], "C/A is still computed")
	assert.Contains(t, row[6], ".")
	assert.Regexp(t, `\| +B/A \| +C/A \|\n`, out, "a ratio column per later file")
	for _, want := range []string{"Only in A, C: the other files ran no latency command.", `section "gemm" is unknown to this bench: skipped`} {
		assert.True(t, strings.Contains(out, want), "output lacks %q", want)
	}
	assert.False(t, strings.Contains(out, "### latency:"), "a section missing from a file is not tabulated")
}

func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notJSON, []byte("Dot 24.6 ns\n"), 0o644))
	otherJSON := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(otherJSON, []byte(`{"name": "not a bench report"}`), 0o644))
	newer := editFixture(t, x86Fixture, dir, "newer.json", func(rep map[string]any) { rep["schema"] = 99 })
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"one file", []string{x86Fixture}, "need at least two -json files of bench runs to compare, got 1"},
		{"no file", nil, "got 0"},
		{"missing file", []string{x86Fixture, filepath.Join(dir, "nosuch.json")}, "nosuch.json: no such file or directory"},
		{"not JSON", []string{notJSON, x86Fixture}, "notes.txt: not a bench -json file: invalid character"},
		{"other JSON", []string{x86Fixture, otherJSON}, `other.json: not a bench -json file: no "schema" or "machine" field`},
		{"newer schema", []string{x86Fixture, newer}, "newer.json: schema 99 is newer than this bench reads (1 to 1)"},
		{"a directory", []string{x86Fixture, dir}, "is a directory"},
		{"flags after files", []string{x86Fixture, arm64Fixture, "-svg", dir}, "-svg: flags go before the files"},
	} {
		code, out, errs := runBench(context.Background(), append([]string{"compare"}, c.args...)...)
		assert.Equal(t, exitUsage, code, c.name)
		assert.Empty(t, out, c.name)
		assert.True(t, strings.HasPrefix(errs, "bench compare: "), "%s: %q", c.name, errs)
		assert.Contains(t, errs, c.msg, c.name)
	}
}
