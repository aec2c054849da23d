package main

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

// checkTiming checks one implementation's timing for internal consistency.
func checkTiming(t *testing.T, what string, tm *Timing, bytes, flops int64) {
	t.Helper()
	st := tm.Ns
	if st.N != 3 || len(st.Samples) != 3 || !(st.Min > 0) || st.Min > st.Median || st.Median > st.Max || tm.Iters < 1 {
		t.Errorf("%s %s: bad stats %+v (iters %d)", what, tm.Impl, st, tm.Iters)
	}
	if !(tm.GBps > 0) || !relClose(tm.GBps, float64(bytes)/st.Median) || !(tm.GBpsLo <= tm.GBps && tm.GBps <= tm.GBpsHi) {
		t.Errorf("%s %s: GB/s %g [%g, %g] for %d bytes in %g ns", what, tm.Impl, tm.GBps, tm.GBpsLo, tm.GBpsHi, bytes, st.Median)
	}
	if (flops > 0) != (tm.GFlops > 0) || (tm.GFlops > 0 && !relClose(tm.GFlops, float64(flops)/st.Median)) {
		t.Errorf("%s %s: GFLOP/s %g for %d flops", what, tm.Impl, tm.GFlops, flops)
	}
}

// checkPoint checks one kernel point for internal consistency: one timing
// per implementation timed, in order, each speedup the next one's time over
// its own.
func checkPoint(t *testing.T, impls []string, pt KernelPoint) {
	t.Helper()
	wantBytes := map[string]int64{"Dot": 16, "Axpy": 24, "SoftThreshold": 16, "Nrm2": 8}
	if w, ok := wantBytes[pt.Kernel]; ok && pt.BytesPerOp != w*int64(pt.N) {
		t.Errorf("%s n=%d: %d bytes per op, want %d", pt.Kernel, pt.N, pt.BytesPerOp, w*int64(pt.N))
	}
	if pt.Kernel == "MulVec" || pt.Kernel == "MulTransVec" {
		// A nearly square matrix of at most the asked size: the matrix, one
		// input vector and one output vector, and a multiply-add per entry.
		if pt.Rows < 1 || pt.Cols < pt.Rows || pt.Cols > pt.Rows+2 || pt.Rows*pt.Cols != pt.N ||
			pt.BytesPerOp != 8*int64(pt.N+pt.Rows+pt.Cols) || pt.FlopsPerOp != 2*int64(pt.N) {
			t.Errorf("%s n=%d: %dx%d, %d bytes, %d flops", pt.Kernel, pt.N, pt.Rows, pt.Cols, pt.BytesPerOp, pt.FlopsPerOp)
		}
	}
	require.Len(t, pt.Timings, len(impls), "%s n=%d: timings", pt.Kernel, pt.N)
	for i, tm := range pt.Timings {
		what := pt.Kernel + " n=" + FmtSize(pt.N)
		assert.Equal(t, impls[i], tm.Impl, what)
		checkTiming(t, what, tm, pt.BytesPerOp, pt.FlopsPerOp)
		if i+1 < len(pt.Timings) {
			if !(tm.Speedup > 0) || !relClose(tm.Speedup, pt.Timings[i+1].Ns.Median/tm.Ns.Median) {
				t.Errorf("%s %s: speedup %g, medians %g / %g", what, tm.Impl, tm.Speedup, pt.Timings[i+1].Ns.Median, tm.Ns.Median)
			}
		} else {
			assert.Zero(t, tm.Speedup, "%s %s: the last implementation has no speedup", what, tm.Impl)
		}
	}
}

func TestKernelsJSONAndSVG(t *testing.T) {
	dir := t.TempDir()
	js, svgDir := filepath.Join(dir, "out.json"), filepath.Join(dir, "svg")
	code, out, errs := runBench(context.Background(), "kernels", "-sizes", "16,64,256", "-time", "2ms", "-reps", "3",
		"-shapes", "9x13,20x20", "-json", js, "-svg", svgDir, "-quiet", "-seed", "7")
	require.Equal(t, exitOK, code, "stderr:\n%s", errs)
	assert.Empty(t, errs, "-quiet run wrote to stderr")
	rep := readReport(t, js)
	assert.Equal(t, schemaVersion, rep.Schema)
	raw, err := os.ReadFile(js)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), `"accel"`, "schema 2 has the timings once, per implementation")
	m := rep.Machine
	if m.GOARCH != goruntime.GOARCH || m.NumCPU < 1 || m.VecImpl == "" || m.CPU == "" || rep.Seed != 7 || rep.Interrupted {
		t.Errorf("bad report header: %+v", rep)
	}
	// Every implementation this CPU can run is in the machine description
	// and timed, best first.
	var all []string
	for _, k := range vec.Implementations() {
		all = append(all, k.Name())
	}
	assert.Equal(t, all, m.VecImpls)
	assert.Equal(t, vec.Impl(), m.VecImpl)
	require.Len(t, rep.Sections, 1)
	sec := rep.Sections[0]
	require.Equal(t, "kernels", sec.Command)
	require.Equal(t, "ok", sec.Status)
	res := sec.Results
	assert.Equal(t, all, res.Impls)
	// The default -kernels: every kernel with an accelerated form, and
	// GradSweep on the shapes.
	wantKernels := []string{"Dot", "Axpy", "SoftThreshold", "Nrm2", "MulVec", "MulTransVec"}
	nk := len(wantKernels)
	require.Equal(t, append(slices.Clone(wantKernels), "GradSweep"), res.Kernels)
	require.Len(t, res.Points, nk*3)
	require.Len(t, sec.Tables, nk+1)
	last := map[string]int{}
	for _, pt := range res.Points {
		if pt.N <= last[pt.Kernel] {
			t.Errorf("%s: sizes not increasing: %d after %d", pt.Kernel, pt.N, last[pt.Kernel])
		}
		last[pt.Kernel] = pt.N
		checkPoint(t, all, pt)
	}
	require.Len(t, res.Sweeps, 2*len(all))
	for i, p := range res.Sweeps {
		sh := []Shape{{9, 13}, {20, 20}}[i/len(all)]
		assert.Equal(t, sh, p.Shape)
		assert.Equal(t, all[i%len(all)], p.Impl)
		bytes, flops := 8*int64(sh.Rows*sh.Cols), 4*int64(sh.Rows*sh.Cols)
		checkTiming(t, "GradSweep two products", p.Two, bytes, flops)
		checkTiming(t, "GradSweep", p.Sweep, bytes, flops)
		assert.True(t, relClose(p.Speedup, p.Two.Ns.Median/p.Sweep.Ns.Median), "sweep speedup %g", p.Speedup)
		require.NotNil(t, p.Read, "GradSweep point without the read of A")
		checkTiming(t, "GradSweep read of A", p.Read, bytes, 2*int64(sh.Rows*sh.Cols))
		assert.True(t, relClose(p.Ceiling, p.Two.Ns.Median/p.Read.Ns.Median), "sweep ceiling %g", p.Ceiling)
	}
	for i, tab := range sec.Tables {
		rows := 3
		if i == nk {
			rows = len(res.Sweeps)
		}
		assert.Len(t, tab.Rows, rows, "table %q", tab.Title)
		assert.Contains(t, out, "### "+tab.Title)
		if i < nk && len(all) > 1 {
			// One column per pair of neighbours: "avx512 vs avx2", ...
			assert.Contains(t, tab.Columns, all[0]+" vs "+all[1])
		}
	}
	wantFigs := []string{"kernels-gbps.svg"}
	if len(all) > 1 {
		wantFigs = append(wantFigs, "kernels-speedup.svg")
	}
	require.Equal(t, wantFigs, sec.Figures)
	assert.Equal(t, nk*len(all), checkSVG(t, filepath.Join(svgDir, "kernels-gbps.svg")), "gbps figure series")
	if len(all) > 1 {
		// One line per kernel plus the 1× reference line, each in the legend.
		name := filepath.Join(svgDir, "kernels-speedup.svg")
		assert.Equal(t, nk+1, checkSVG(t, name), "speedup figure series")
		assert.Equal(t, append(wantKernels, speedupRefName), svgLegend(t, name))
	}
}

func TestKernelsPinnedImpl(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	code, _, errs := runBench(context.Background(), "-quiet", "-json", js, "kernels", "-impl", "generic",
		"-kernels", "dot", "-sizes", "32", "-time", "1ms", "-reps", "3")
	require.Equal(t, exitOK, code, errs)
	rep := readReport(t, js) // -json given before the command name still applies
	pts := rep.Sections[0].Results.Points
	require.Len(t, pts, 1)
	require.Len(t, pts[0].Timings, 1)
	assert.Equal(t, "generic", pts[0].Timings[0].Impl)
	assert.Zero(t, pts[0].Timings[0].Speedup)
	assert.Empty(t, rep.Sections[0].Results.Sweeps, "GradSweep timed without being asked for")

	// Every implementation this CPU has can be timed alone, or two together
	// in the order of vec.Implementations whatever the order asked.
	all := vec.Implementations()
	for _, k := range all {
		code, _, errs := runBench(context.Background(), "-quiet", "kernels", "-impl", k.Name(),
			"-kernels", "dot", "-sizes", "32", "-time", "1ms", "-reps", "3")
		assert.Equal(t, exitOK, code, "-impl %s: %s", k.Name(), errs)
	}
	if len(all) > 1 {
		code, _, errs := runBench(context.Background(), "-quiet", "-json", js, "kernels", "-impl", "generic,"+all[0].Name(),
			"-kernels", "dot", "-sizes", "32", "-time", "1ms", "-reps", "3")
		require.Equal(t, exitOK, code, errs)
		tms := readReport(t, js).Sections[0].Results.Points[0].Timings
		require.Len(t, tms, 2)
		assert.Equal(t, []string{all[0].Name(), "generic"}, []string{tms[0].Impl, tms[1].Impl})
	}
	// One this CPU cannot run, or that does not exist: an error naming
	// the ones it can.
	for _, bad := range []string{"neon", "avx512", "sse", "avx2,bogus", ""} {
		if _, ok := vec.Lookup(bad); ok {
			continue
		}
		code, _, errs := runBench(context.Background(), "kernels", "-impl", bad, "-sizes", "32")
		assert.Equal(t, exitUsage, code, "-impl %q", bad)
		assert.Contains(t, errs, all[0].Name(), "-impl %q: the error does not list what this CPU has", bad)
	}
	for _, bad := range []string{"10", "0x5", "5x", "x", "100000x100000"} {
		code, _, errs := runBench(context.Background(), "kernels", "-shapes", bad, "-kernels", "gradsweep")
		assert.Equal(t, exitUsage, code, "-shapes %q", bad)
		assert.Contains(t, errs, "-shapes")
	}
}

// TestMachineTable checks that the machine table says what its feature
// marks mean and lists the implementations.
func TestMachineTable(t *testing.T) {
	m := &Machine{GOARCH: "amd64", Features: map[string]bool{"avx2": true, "fma": true, "avx512f": false},
		VecImpl: "avx2", VecImpls: []string{"avx2", "generic"}}
	assert.Equal(t, "avx2 fma -avx512f", m.featureList())
	var b strings.Builder
	m.table().Markdown(&b)
	out := b.String()
	assert.Contains(t, out, "-x: x absent or turned off by GODEBUG")
	assert.Contains(t, out, "avx2 generic")
	d := describeMachine()
	if d.GOARCH == "amd64" {
		assert.Contains(t, d.Features, "avx512f")
	}
	assert.Equal(t, vec.Impl(), d.VecImpl)
}

// TestNoTestHookInBinary checks that the bench command times the
// implementations through vec.Kernels and does not link the test switch
// (internal/vectest).
func TestNoTestHookInBinary(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/neadmm/neadmm/vec", "go list -deps did not list bench")
	assert.NotContains(t, deps, "github.com/neadmm/neadmm/internal/vectest")
	assert.NotContains(t, deps, "github.com/neadmm/neadmm/internal/guard")
}

// The timed loops must not allocate, or the timings would include the
// allocator and the garbage collector.
func TestKernelLoopsDoNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, k := range kernelSpecs {
		// 72 makes the matrices 8 x 9, so operands of the wrong length
		// panic instead of passing as square.
		for _, n := range []int{64, 72} {
			c := k.setup(n, r)
			for _, impl := range vec.Implementations() {
				if a := testing.AllocsPerRun(10, func() { c.loop(impl, 3) }); a != 0 {
					t.Errorf("%s n=%d %s: loop allocates %g times per run", k.name, n, impl.Name(), a)
				}
			}
		}
	}
}
