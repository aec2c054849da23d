package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuantileAndCDF(t *testing.T) {
	ns := make([]float64, 1000)
	for i := range ns {
		ns[len(ns)-1-i] = float64(i + 1) // 1000 .. 1: fillPercentiles sorts
	}
	var r LatencyRow
	fillPercentiles(&r, ns)
	assert.Equal(t, []float64{500, 900, 990, 999, 1000, 500.5}, []float64{r.P50Ns, r.P90Ns, r.P99Ns, r.P999Ns, r.MaxNs, r.MeanNs})
	require.NotEmpty(t, r.CDF)
	assert.Equal(t, CDFPoint{Slower: 1, Ns: 1}, r.CDF[0], "the fastest call: all calls at least as slow")
	assert.Equal(t, CDFPoint{Slower: 0.001, Ns: 1000}, r.CDF[len(r.CDF)-1], "the slowest call")
	for i, p := range r.CDF {
		// ns[k] = k+1: exactly the fraction Slower of the calls took p.Ns or more.
		assert.InDelta(t, p.Slower, (1000-p.Ns+1)/1000, 1e-12, "point %d", i)
		if i > 0 {
			assert.Less(t, p.Slower, r.CDF[i-1].Slower)
			assert.Greater(t, p.Ns, r.CDF[i-1].Ns)
		}
	}
	assert.GreaterOrEqual(t, len(r.CDF), 20, "about eight points per decade over three decades (fewer where the ranks coincide)")

	one := []float64{42}
	fillPercentiles(&r, one)
	assert.Equal(t, []float64{42, 42, 42, 42}, []float64{r.P50Ns, r.P99Ns, r.P999Ns, r.MaxNs})
}

// latencyRows runs bench latency with args and returns the results and
// stdout; the run must end with status want.
func latencyRows(t *testing.T, ctx context.Context, want int, dir string, args ...string) (*LatencyResult, []string, string) {
	t.Helper()
	js := filepath.Join(dir, "out.json")
	code, out, errs := runBench(ctx, append([]string{"latency", "-json", js, "-svg", filepath.Join(dir, "svg"), "-quiet"}, args...)...)
	require.Equal(t, want, code, errs)
	status := map[int]string{exitOK: "ok", exitInterrupted: "interrupted"}[want]
	var res LatencyResult
	sectionResultsStatus(t, js, "latency", status, &res)
	var figs []string
	if len(res.Rows) > 0 {
		figs = []string{"latency-cdf.svg"}
	}
	return &res, figs, out
}

func TestLatency(t *testing.T) {
	dir := t.TempDir() // no vaccine.svm: synthetic bags
	res, _, out := latencyRows(t, context.Background(), exitOK, dir, "-ops", "dot,bag,witnesses,scorebag,scoresparsebag,readmodel,solve",
		"-sizes", "64", "-problems", "16x8", "-scale", "0.01", "-goroutines", "1,2", "-data", dir)
	var got []string
	for _, r := range res.Rows {
		size := r.Size
		if strings.HasPrefix(r.Op, "Score") || r.Op == "ReadModel" {
			size = "" // checked below
		}
		got = append(got, r.Op+" "+size+" ×"+itoa(r.Goroutines))
	}
	assert.Equal(t, []string{"Dot n=64 ×1", "Dot n=64 ×2", "BagScoresTo synthetic (600 bags) ×1", "BagScoresTo synthetic (600 bags) ×2",
		"Witnesses synthetic (600 bags) ×1", "Witnesses synthetic (600 bags) ×2", "ScoreBag  ×1", "ScoreBag  ×2",
		"ScoreSparseBag  ×1", "ScoreSparseBag  ×2", "ReadModel  ×1", "ReadModel  ×2", "Solve N=16 M=8 ×1", "Solve N=16 M=8 ×2"}, got)
	for _, r := range res.Rows {
		switch r.Op {
		case "ScoreBag", "ScoreSparseBag":
			assert.Regexp(t, `^7 instances x 234 features \([1-9][0-9]* bags\)$`, r.Size, "the raw bags: a few instances each")
		case "ReadModel":
			assert.Regexp(t, `^synthetic \(600 bags\), [1-9][0-9]*-byte file$`, r.Size)
		}
	}
	assert.Contains(t, out, "No vaccine.svm", "the missing data set is reported")
	assert.Greater(t, res.ClockNs, 0.0)
	for _, r := range res.Rows {
		name := r.Op + " ×" + itoa(r.Goroutines)
		wantCalls := 200 // 20000 × 0.01
		switch r.Op {
		case "Solve":
			wantCalls = 200 * 256 * 128 / (16 * 8) / 100 // scaled by the problem size
		case "ReadModel":
			wantCalls = 20 // 2000 × 0.01
		}
		assert.Equal(t, wantCalls, r.Calls, name)
		assert.True(t, 0 < r.P50Ns && r.P50Ns <= r.P90Ns && r.P90Ns <= r.P99Ns && r.P99Ns <= r.P999Ns && r.P999Ns <= r.MaxNs,
			"%s: percentiles %+v", name, r)
		assert.Equal(t, r.MaxNs, r.CDF[len(r.CDF)-1].Ns, name)
		assert.InDelta(t, 1/float64(r.Calls*r.Goroutines), r.CDF[len(r.CDF)-1].Slower, 1e-15, name)
		assert.Greater(t, r.WallS, 0.0, name)
		switch r.Op {
		case "Witnesses":
			assert.GreaterOrEqual(t, r.AllocsPerCall, 1.0, "%s returns a new slice each call", name)
		case "ReadModel":
			assert.GreaterOrEqual(t, r.AllocsPerCall, 1.0, "%s returns a new model each call", name)
		default:
			// These allocate nothing once warm (documented for BagScoresTo,
			// ScoreBag, ScoreSparseBag and a sized Solver). The count is the whole process's, and the
			// runtime or a goroutine an earlier test left behind can add a
			// few allocations to a row; a call that allocated would add one
			// per call.
			assert.Less(t, r.AllocsPerCall, 0.1, "%s: %g allocations per call", name, r.AllocsPerCall)
		}
	}
	assert.Contains(t, out, "### vec kernels, one call")
	assert.Contains(t, out, "### mil, one bag already in a Dataset")
	assert.Contains(t, out, "### mil, one raw bag (the arrays of a request, no Dataset)")
	assert.Contains(t, out, "### mil, a saved model read back")
	assert.Contains(t, out, "### onebit, one decode (reused Solver)")
	// One panel per call, one line per row.
	assert.Equal(t, len(res.Rows), checkSVG(t, filepath.Join(dir, "svg", "latency-cdf.svg")))
}

// TestLatencyInterrupt stops the run after exactly three rows and checks
// they, and only they, reach the JSON, the table and the figure.
func TestLatencyInterrupt(t *testing.T) {
	dir := t.TempDir()
	res, figs, out := latencyRows(t, cancelAfterUnits(t, 3), exitInterrupted, dir, "-ops", "dot,axpy", "-sizes", "64,256",
		"-scale", "0.01")
	require.Len(t, res.Rows, 3)
	assert.Equal(t, "Dot n=256 ×1", res.Rows[2].Op+" "+res.Rows[2].Size+" ×"+itoa(res.Rows[2].Goroutines))
	assert.Equal(t, 3, strings.Count(out, "| Dot "), "three rows printed")
	assert.NotContains(t, out, "| Axpy ")
	require.Equal(t, []string{"latency-cdf.svg"}, figs)
	assert.Equal(t, 3, checkSVG(t, filepath.Join(dir, "svg", "latency-cdf.svg")))
}

// TestLatencyCancelDuringSolve checks that Ctrl-C during the Recover
// calls (N = 1000, M = 500: about 20 ms each, many of them) ends the run
// promptly.
func TestLatencyCancelDuringSolve(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1000 x 500 problems")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	// -scale 100: hundreds of calls, so the run cannot finish before the
	// cancel however fast Recover gets (at scale 1 it took 6 calls of 9 ms).
	res, _, _ := latencyRows(t, ctx, exitInterrupted, t.TempDir(), "-ops", "recover", "-problems", "1000x500", "-goroutines", "2", "-scale", "100")
	assert.Less(t, time.Since(start), 3*time.Second, "not a prompt stop")
	assert.Empty(t, res.Rows)
}

func TestLatencyTourArgs(t *testing.T) {
	fs := newFlagSet("latency", nil)
	latencyCommand.Flags(fs)
	require.NoError(t, fs.Parse(latencyCommand.TourArgs))
	require.NoError(t, fs.check())
	ops := splitList(fs.Lookup("ops").Value.String())
	assert.True(t, slices.Contains(ops, "bag") && slices.Contains(ops, "solve"), "the tour shows a bag scored and a decode: %v", ops)
}

// TestLatencyDecodeRows runs the rows of a decoder on a fixed Phi:
// WithSigns+Recover (two allocations per request, the Problem and its
// copy of the signs) and Solver.BIHT (none), each at every -problems
// size, in the onebit table.
func TestLatencyDecodeRows(t *testing.T) {
	res, _, out := latencyRows(t, context.Background(), exitOK, t.TempDir(), "-ops", "withsigns,biht",
		"-problems", "16x8,32x16", "-scale", "0.1", "-goroutines", "1,2")
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.Op+" "+r.Size+" ×"+itoa(r.Goroutines))
		name := r.Op + " " + r.Size + " ×" + itoa(r.Goroutines)
		assert.Equal(t, 4, r.Warmup, "%s: one warm-up call per input", name)
		// The count is the whole process's: under load the runtime adds a
		// few allocations of its own to a row (a new thread for a locked
		// goroutine costs several), which over a row of at least 128 calls
		// stays well under 0.3 per call, while one more allocation in the
		// request would add a whole one per call.
		want := 2.0
		if r.Op == "Solver.BIHT" {
			want = 0
		}
		assert.GreaterOrEqual(t, r.AllocsPerCall, want, "%s: %g allocations per call", name, r.AllocsPerCall)
		assert.Less(t, r.AllocsPerCall, want+0.3, "%s: %g allocations per call", name, r.AllocsPerCall)
	}
	assert.Equal(t, []string{
		"WithSigns+Recover N=16 M=8 ×1", "WithSigns+Recover N=16 M=8 ×2", "WithSigns+Recover N=32 M=16 ×1", "WithSigns+Recover N=32 M=16 ×2",
		"Solver.BIHT N=16 M=8 ×1", "Solver.BIHT N=16 M=8 ×2", "Solver.BIHT N=32 M=16 ×1", "Solver.BIHT N=32 M=16 ×2",
	}, got)
	assert.Equal(t, 1, strings.Count(out, "### onebit, one decode (reused Solver)"), "one table")
}
