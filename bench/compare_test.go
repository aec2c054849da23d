package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	x86Fixture   = "testdata/compare/x86.json"
	arm64Fixture = "testdata/compare/arm64.json"
	// schema1Fixture is the x86 fixture of the first bench round (schema
	// 1: accel and generic timings only), cut to its kernels section.
	schema1Fixture = "testdata/compare/x86-schema1.json"
)

// fixtureKernels returns the kernels results of a schema-2 fixture.
func fixtureKernels(t *testing.T, name string) *KernelsResult {
	t.Helper()
	for _, s := range readReport(t, name).Sections {
		if s.Command == "kernels" {
			return &s.Results
		}
	}
	t.Fatalf("%s: no kernels section", name)
	return nil
}

// timingOf returns the timing of the named implementation in ts, or nil.
func timingOf(ts []*Timing, impl string) *Timing {
	for _, t := range ts {
		if t.Impl == impl {
			return t
		}
	}
	return nil
}

// bestCell is what a "best B/A" cell should read for the two files'
// timings of one point: the fastest of each, their ratio and names.
func bestCell(a, b []*Timing) string {
	fastest := func(ts []*Timing) *Timing {
		best := ts[0]
		for _, t := range ts[1:] {
			if t.Ns.Median < best.Ns.Median {
				best = t
			}
		}
		return best
	}
	fa, fb := fastest(a), fastest(b)
	return FmtSig(fb.Ns.Median/fa.Ns.Median, 3) + " (" + fb.Impl + "/" + fa.Impl + ")"
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

// tableHead returns the column heads of the Markdown table titled title.
func tableHead(t *testing.T, out, title string) []string {
	t.Helper()
	_, after, ok := strings.Cut(out, "### "+title+"\n\n")
	require.True(t, ok, "no table %q", title)
	line, _, _ := strings.Cut(after, "\n")
	var cells []string
	for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
		cells = append(cells, strings.TrimSpace(c))
	}
	return cells
}

func TestCompareFixtures(t *testing.T) {
	svgDir := filepath.Join(t.TempDir(), "svg")
	code, out, errs := runBench(context.Background(), "compare", "-svg", svgDir, x86Fixture, arm64Fixture)
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, out, "### Machine", "compare measures nothing here: no machine table")
	assert.Contains(t, out, "| note ", "the fixtures' notes reach the runs table")
	assert.Regexp(t, `\| vec implementations +\| avx512 avx2 generic +\| neon generic +\|`, out)
	assert.Regexp(t, `\| load average \(1, 5, 15 min\), start → end +\| [0-9.]+ [0-9.]+ [0-9.]+ → [0-9.]+ [0-9.]+ [0-9.]+ +\|`, out)
	assert.NotContains(t, out, "different versions of bench", "both fixtures are schema 2")

	// Every section of the tour, each with its machines as column heads.
	heads := regexp.MustCompile(`(?m)^### (\w+): `).FindAllStringSubmatch(out, -1)
	var sections []string
	for _, h := range heads {
		if len(sections) == 0 || sections[len(sections)-1] != h[1] {
			sections = append(sections, h[1])
		}
	}
	assert.Equal(t, []string{"kernels", "onebit", "mil", "scaling", "latency"}, sections)
	assert.Regexp(t, `\| A: AMD EPYC, amd64 avx512 \| B: AMD EPYC, arm64 neon \| +B/A \|\n`, out)

	// The kernels by implementation and size: a column per machine and
	// implementation, the ratio of the one implementation both have and of
	// each machine's fastest, every cell from the files' own numbers.
	a, b := fixtureKernels(t, x86Fixture), fixtureKernels(t, arm64Fixture)
	require.Equal(t, []string{"avx512", "avx2", "generic"}, a.Impls, "the x86 fixture was written on a CPU with AVX-512")
	require.Equal(t, []string{"neon", "generic"}, b.Impls)
	assert.Equal(t, []string{"n", "A avx512", "A avx2", "A generic", "B neon", "B generic", "generic B/A", "best B/A"},
		tableHead(t, out, "kernels: Dot, time per call"))
	rows := 0
	for _, pa := range a.Points {
		i := slices.IndexFunc(b.Points, func(p KernelPoint) bool { return p.Kernel == pa.Kernel && p.N == pa.N })
		require.GreaterOrEqual(t, i, 0, "%s n=%d only in the x86 fixture", pa.Kernel, pa.N)
		pb := b.Points[i]
		var want []string
		for _, tm := range append(slices.Clone(pa.Timings), pb.Timings...) {
			want = append(want, FmtNs(tm.Ns.Median))
		}
		ga, gb := timingOf(pa.Timings, "generic"), timingOf(pb.Timings, "generic")
		want = append(want, FmtSig(gb.Ns.Median/ga.Ns.Median, 3), bestCell(pa.Timings, pb.Timings))
		row := tableRow(t, out, "kernels: "+pa.Kernel+", time per call", FmtSize(pa.N))
		assert.Equal(t, want, row[1:], "%s n=%d", pa.Kernel, pa.N)
		rows++
	}
	assert.Equal(t, 6*3, rows)
	// Speedups over generic: no common implementation but the best one.
	pa, pb := a.Points[0], b.Points[0]
	speedup := func(ts []*Timing, impl string) float64 {
		return timingOf(ts, "generic").Ns.Median / timingOf(ts, impl).Ns.Median
	}
	bestA := max(speedup(pa.Timings, "avx512"), speedup(pa.Timings, "avx2"))
	bestAImpl := map[bool]string{true: "avx512", false: "avx2"}[bestA == speedup(pa.Timings, "avx512")]
	row := tableRow(t, out, "kernels: speedup over generic (generic's time / the implementation's, one run)", pa.Kernel, FmtSize(pa.N))
	assert.Equal(t, []string{FmtSig(speedup(pa.Timings, "avx512"), 3) + "×", FmtSig(speedup(pa.Timings, "avx2"), 3) + "×",
		FmtSig(speedup(pb.Timings, "neon"), 3) + "×", FmtSig(speedup(pb.Timings, "neon")/bestA, 3) + " (neon/" + bestAImpl + ")"}, row[2:])
	// GradSweep against the two products, per machine and implementation.
	require.Len(t, a.Sweeps, 3)
	require.Len(t, b.Sweeps, 2)
	sweeps := "kernels: GradSweep (one pass) vs MulVec, φ, MulTransVec (two products), time per gradient"
	row = tableRow(t, out, sweeps, "500x500", "GradSweep")
	assert.Equal(t, []string{FmtNs(a.Sweeps[0].Sweep.Ns.Median), FmtNs(a.Sweeps[1].Sweep.Ns.Median), FmtNs(a.Sweeps[2].Sweep.Ns.Median),
		FmtNs(b.Sweeps[0].Sweep.Ns.Median), FmtNs(b.Sweeps[1].Sweep.Ns.Median),
		FmtSig(b.Sweeps[1].Sweep.Ns.Median/a.Sweeps[2].Sweep.Ns.Median, 3)}, row[2:8])
	row = tableRow(t, out, sweeps, "500x500", "speedup")
	assert.Equal(t, FmtSig(a.Sweeps[0].Speedup, 3)+"×", row[2])

	// Results that do not depend on the machine agree (to the digits shown).
	row = tableRow(t, out, "onebit: objective grid, N = 512, λ = 0.01 (means over the instances)", "32", "100", "neADMM objective")
	assert.Equal(t, row[3], row[4])
	assert.Equal(t, "1.00", row[5])
	// Percentiles from too few calls are not compared.
	row = tableRow(t, out, "latency: service latency per call", "Solve", "N=256 M=128", "1", "p99")
	assert.Equal(t, []string{"–", "–", "–"}, row[4:])

	// The figures: per kernel, a line per machine and implementation, and
	// per machine a speedup line per implementation but generic, with a 1×
	// line.
	assert.Equal(t, 6*5, checkSVG(t, filepath.Join(svgDir, "compare-gbps.svg")))
	assert.Equal(t, []string{"A avx512", "A avx2", "A generic", "B neon", "B generic"},
		svgLegend(t, filepath.Join(svgDir, "compare-gbps.svg"))[:5])
	assert.Equal(t, 6*4, checkSVG(t, filepath.Join(svgDir, "compare-speedup.svg")))
	assert.Equal(t, []string{"A avx512", "A avx2", "B neon", speedupRefName},
		svgLegend(t, filepath.Join(svgDir, "compare-speedup.svg"))[:4])
}

// TestCompareSchema1 compares a file of the first bench (schema 1: per
// point the timings of the default implementation and of generic only)
// with a current one: the rows that still match are compared, with a note.
func TestCompareSchema1(t *testing.T) {
	code, out, errs := runBench(context.Background(), "compare", schema1Fixture, x86Fixture)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "different versions of bench (A schema 1, B schema 2)")
	assert.Contains(t, out, "Schema 1 (A) may hold only two kernel timings per point")
	assert.Regexp(t, `\| vec implementations +\| not recorded \(schema 1\) +\| avx512 avx2 generic +\|`, out)
	assert.Contains(t, out, "Only in B: the other files ran no onebit command.")

	b, err := os.ReadFile(schema1Fixture)
	require.NoError(t, err)
	var old struct {
		Machine struct {
			VecImpl string `json:"vec_impl"`
		}
		Sections []struct {
			Results struct {
				Points []struct {
					Kernel         string
					N              int
					Accel, Generic *Timing
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(b, &old))
	require.Equal(t, "avx2", old.Machine.VecImpl)
	assert.Equal(t, []string{"n", "A avx2", "A generic", "B avx512", "B avx2", "B generic", "avx2 B/A", "generic B/A", "best B/A"},
		tableHead(t, out, "kernels: Dot, time per call"))
	cur := fixtureKernels(t, x86Fixture)
	for _, po := range old.Sections[0].Results.Points {
		i := slices.IndexFunc(cur.Points, func(p KernelPoint) bool { return p.Kernel == po.Kernel && p.N == po.N })
		require.GreaterOrEqual(t, i, 0)
		pc := cur.Points[i]
		row := tableRow(t, out, "kernels: "+po.Kernel+", time per call", FmtSize(po.N))
		avx2, gen := timingOf(pc.Timings, "avx2"), timingOf(pc.Timings, "generic")
		assert.Equal(t, []string{FmtNs(po.Accel.Ns.Median), FmtNs(po.Generic.Ns.Median),
			FmtSig(avx2.Ns.Median/po.Accel.Ns.Median, 3), FmtSig(gen.Ns.Median/po.Generic.Ns.Median, 3),
			bestCell([]*Timing{po.Accel, po.Generic}, pc.Timings)},
			[]string{row[1], row[2], row[6], row[7], row[8]}, "%s n=%d", po.Kernel, po.N)
	}
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
	assert.Equal(t, []string{"avx512 B/A", "avx2 B/A", "generic B/A", "best B/A", "generic C/A", "best C/A"},
		tableHead(t, out, "kernels: Dot, time per call")[9:], "a ratio per implementation two files share, and of the best, per later file")
	row := tableRow(t, out, "kernels: Dot, time per call", "256")
	require.Len(t, row, 15)
	assert.Equal(t, []string{"missing", "missing", "missing"}, row[4:7], "the missing point is marked")
	assert.Equal(t, []string{"–", "–", "–", "–"}, row[9:13], "no ratio for a missing row")
	assert.Contains(t, row[13], ".", "C/A is still computed")
	assert.Regexp(t, `^[0-9.]+ \((neon|generic)/(avx512|avx2|generic)\)$`, row[14])
	assert.Regexp(t, `\| +B/A \| +C/A \|\n`, out, "a ratio column per later file in the other sections")
	for _, want := range []string{"Only in A, C: the other files ran no latency command.", `section "gemm" is unknown to this bench: skipped`} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "### latency:", "a section missing from a file is not tabulated")
}

// TestCompareImplSubsets compares files that timed different sets of
// implementations: one with -impl generic, one interrupted before its
// first kernel finished.
func TestCompareImplSubsets(t *testing.T) {
	dir := t.TempDir()
	kernels := func(rep map[string]any) map[string]any {
		for _, s := range rep["sections"].([]any) {
			if sec := s.(map[string]any); sec["command"] == "kernels" {
				return sec["results"].(map[string]any)
			}
		}
		t.Fatal("no kernels section")
		return nil
	}
	generic := editFixture(t, x86Fixture, dir, "generic.json", func(rep map[string]any) {
		res := kernels(rep)
		res["impls"] = []string{"generic"}
		for _, p := range res["points"].([]any) {
			pt := p.(map[string]any)
			pt["timings"] = pt["timings"].([]any)[2:]
		}
		res["sweeps"] = res["sweeps"].([]any)[2:]
	})
	none := editFixture(t, x86Fixture, dir, "none.json", func(rep map[string]any) {
		res := kernels(rep)
		res["impls"], res["points"], res["sweeps"] = []string{}, nil, nil
	})
	code, out, errs := runBench(context.Background(), "compare", x86Fixture, generic, none)
	require.Equal(t, exitOK, code, errs)
	a := fixtureKernels(t, x86Fixture)
	pt := a.Points[1]
	assert.Equal(t, []string{"n", "A avx512", "A avx2", "A generic", "B generic", "C (none)", "generic B/A", "best B/A", "best C/A"},
		tableHead(t, out, "kernels: "+pt.Kernel+", time per call"))
	row := tableRow(t, out, "kernels: "+pt.Kernel+", time per call", FmtSize(pt.N))
	gen := pt.Timings[2].Ns.Median
	assert.Equal(t, []string{FmtNs(gen), "missing", "1.00", bestCell(pt.Timings, pt.Timings[2:]), "–"}, row[4:])
	row = tableRow(t, out, "kernels: speedup over generic (generic's time / the implementation's, one run)", pt.Kernel, FmtSize(pt.N))
	assert.Equal(t, []string{"kernel", "n", "A avx512", "A avx2", "B (none)", "C (none)", "best B/A", "best C/A"},
		tableHead(t, out, "kernels: speedup over generic (generic's time / the implementation's, one run)"))
	assert.Equal(t, []string{"missing", "missing", "–", "–"}, row[4:], "no speedups without a second implementation")
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
		{"newer schema", []string{x86Fixture, newer}, "newer.json: schema 99 is newer than this bench reads (1 to 2)"},
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
