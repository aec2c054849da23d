package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/neadmm/neadmm/internal/svgplot"
	"github.com/neadmm/neadmm/mil"
	"github.com/neadmm/neadmm/onebit"
	"github.com/neadmm/neadmm/vec"
)

var latencyCommand = Command{
	Name:  "latency",
	Short: "service-sized calls one at a time: p50 to p99.9 and max, allocations and GCs per call, alone and with 2 goroutines",
	Flags: latencyFlags,
	// Dot at one size, one bag scored and the small 1-bit decode, a tenth
	// of the default calls: about 1.5 s here (the model fit included).
	TourArgs: []string{"-ops", "dot,bag,solve", "-sizes", "256", "-problems", "256x128", "-scale", "0.1"},
}

// LatencyResult is the latency command's JSON "results".
type LatencyResult struct {
	// ClockNs is the median cost of the time.Now/time.Since pair around
	// each call, measured at the start; every latency includes it.
	ClockNs float64 `json:"clock_ns"`
	// Scale multiplies every row's default number of calls (-scale).
	Scale float64 `json:"scale"`
	// Model describes the model the bag rows score with ("" when no bag
	// row ran).
	Model string `json:"model,omitempty"`
	// Rows are in the order run; an interrupted run holds the finished
	// ones.
	Rows []*LatencyRow `json:"rows"`
}

// LatencyRow is one kind of call at one size, measured by Goroutines
// goroutines at once, each making Calls timed calls after Warmup untimed
// ones, locked to its OS thread.
type LatencyRow struct {
	// Op is the function called: Dot, Axpy, SoftThreshold, BagScoresTo,
	// Witnesses, ScoreBag, ScoreSparseBag, ReadModel, Solve, Recover,
	// WithSigns+Recover (a request on a fixed Phi: Problem.WithSigns, then
	// Recover) or Solver.BIHT.
	Op string `json:"op"`
	// Size is "n=256" for the kernels, "N=256 M=128" for onebit, the
	// data set for the bag rows, the bags' shape for the raw-bag rows and
	// the file's size for ReadModel.
	Size       string `json:"size"`
	Goroutines int    `json:"goroutines"`
	Calls      int    `json:"calls"` // per goroutine
	Warmup     int    `json:"warmup"`
	// Percentiles (nearest rank) and the maximum of the latencies of all
	// goroutines' calls, pooled, in nanoseconds.
	P50Ns  float64 `json:"p50_ns"`
	P90Ns  float64 `json:"p90_ns"`
	P99Ns  float64 `json:"p99_ns"`
	P999Ns float64 `json:"p999_ns"`
	MaxNs  float64 `json:"max_ns"`
	MeanNs float64 `json:"mean_ns"`
	// AllocsPerCall and BytesPerCall are the heap allocations of the
	// timed calls (runtime.MemStats, whole process) over all calls.
	AllocsPerCall float64 `json:"allocs_per_call"`
	BytesPerCall  float64 `json:"bytes_per_call"`
	// GCs counts the garbage collections that ran during the timed calls
	// (a GC is forced just before them); GCPauseNs is their total pause.
	GCs       uint32 `json:"gcs"`
	GCPauseNs uint64 `json:"gc_pause_ns"`
	// WallS is the wall time of the timed calls.
	WallS float64 `json:"wall_s"`
	// CDF holds the latency at fractions of calls at least as slow,
	// from 1 (the fastest call) down to 1/(Goroutines*Calls) (the slowest).
	CDF []CDFPoint `json:"cdf"`
}

// CDFPoint is one point of a latency distribution: a fraction Slower of
// the calls took Ns nanoseconds or more.
type CDFPoint struct {
	Slower float64 `json:"slower"`
	Ns     float64 `json:"ns"`
}

// minCalls are the numbers of calls below which a percentile is not
// reported in the table (it would be the maximum or close to it).
var minCalls = map[string]int{"p90": 10, "p99": 100, "p99.9": 1000}

// latencyOps are the -ops names, in the order run.
var latencyOps = []string{"dot", "axpy", "softthreshold", "bag", "witnesses", "scorebag", "scoresparsebag", "readmodel", "solve", "recover", "withsigns", "biht"}

// latencyCase is one row to measure: newCaller builds one goroutine's
// state (its own buffers, Solver) and returns the call to time.
type latencyCase struct {
	family, op, size string
	calls, warmup    int
	newCaller        func() caller
}

// caller makes call i (i counts from 0 over the warm-up and the timed
// calls, so callers cycle through their inputs).
type caller func(ctx context.Context, i int) error

// latencyConfig is the checked flags of one run.
type latencyConfig struct {
	ops        []string
	sizes      []int
	problems   [][2]int // (N, M)
	goroutines []int
	scale      float64
	data       string
}

func latencyFlags(fs *FlagSet) RunFunc {
	ops := fs.String("ops", strings.Join(latencyOps, ","), "comma-separated `calls` to time: "+strings.Join(latencyOps, ", "))
	sizes := fs.String("sizes", "64,256,1024", "comma-separated, increasing vector `lengths` for dot, axpy and softthreshold")
	problems := fs.String("problems", "256x128,1000x500,2000x1000",
		"comma-separated 1-bit problem sizes `NxM` (signal length x measurements) for solve, recover, withsigns and biht")
	goroutines := fs.String("goroutines", "1,2", "comma-separated, increasing numbers of `goroutines` calling at once (each with its own buffers and Solver)")
	scale := fs.Float64("scale", 1, "multiply every row's number of calls by `f` (10 for tighter tails; 0.1 for a quick look)")
	data := fs.String("data", "", "`dir` holding vaccine.svm, which the bag rows' model is fitted to (default: ../shared/data or $NEADMM_DATA when found; else synthetic bags)")
	var cfg latencyConfig
	fs.Check(func() (err error) {
		cfg = latencyConfig{scale: *scale, data: *data}
		for _, op := range splitList(*ops) {
			if !slices.Contains(latencyOps, op) {
				return fmt.Errorf("-ops: unknown call %q (want %s)", op, strings.Join(latencyOps, ", "))
			}
			cfg.ops = append(cfg.ops, op)
		}
		if len(cfg.ops) == 0 {
			return errors.New("-ops: no call selected")
		}
		if cfg.sizes, err = parseIntList(*sizes, 1<<24); err != nil {
			return fmt.Errorf("-sizes: %w", err)
		}
		if cfg.problems, err = parseProblems(*problems); err != nil {
			return fmt.Errorf("-problems: %w", err)
		}
		if cfg.goroutines, err = parseIntList(*goroutines, 64); err != nil {
			return fmt.Errorf("-goroutines: %w", err)
		}
		switch {
		case len(cfg.goroutines) == 0:
			return errors.New("-goroutines: no value")
		case !(*scale > 0 && *scale <= 1000):
			return fmt.Errorf("-scale %g: want 0 < f <= 1000", *scale)
		}
		return cfg.checkMemory(*data)
	})
	return func(ctx context.Context, env *Env) error {
		return runLatency(ctx, env, cfg)
	}
}

// latencyMaxValues caps what a row's goroutines hold at once, in
// float64 values: each goroutine has its own vectors (three of the
// largest -sizes) and its samples (the calls at -scale, at most 20000 at
// scale 1): 2^27 values, 1 GiB.
const latencyMaxValues = 1 << 27

// checkMemory caps the vectors and the samples of the most goroutines,
// then checks the data directory.
func (cfg *latencyConfig) checkMemory(data string) error {
	g := float64(cfg.goroutines[len(cfg.goroutines)-1])
	if len(cfg.sizes) > 0 {
		flags := fmt.Sprintf("-sizes %d -goroutines %d", cfg.sizes[len(cfg.sizes)-1], int(g))
		if err := capProduct(flags, "3 vectors x size x goroutines", "2^27 values", latencyMaxValues, 3, float64(cfg.sizes[len(cfg.sizes)-1]), g); err != nil {
			return err
		}
	}
	flags := fmt.Sprintf("-scale %g -goroutines %d", cfg.scale, int(g))
	if err := capProduct(flags, "timing samples, 20000 x scale x goroutines", "2^27 values", latencyMaxValues, 20000, cfg.scale, g); err != nil {
		return err
	}
	return checkDataDir(data)
}

// parseIntList reads a comma-separated, increasing list of integers in
// [1, limit].
func parseIntList(s string, limit int) ([]int, error) {
	return parseIncreasing(s, "value", func(f string) (int, bool) {
		v, err := strconv.Atoi(f)
		return v, err == nil && v >= 1 && v <= limit
	})
}

// parseProblems reads "NxM,NxM" 1-bit problem sizes, each with N >= 4
// (instances have K = min(10, N/4) non-zeros) and M >= 1, and N*M at most
// 1<<24.
func parseProblems(s string) ([][2]int, error) {
	var out [][2]int
	for _, f := range splitList(s) {
		a, b, ok := strings.Cut(strings.ToLower(f), "x")
		n, err1 := strconv.Atoi(a)
		m, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 4 || m < 1 || n > 1<<24/m {
			return nil, fmt.Errorf("bad size %q: want NxM with N >= 4, M >= 1, N*M <= 16m", f)
		}
		out = append(out, [2]int{n, m})
	}
	return out, nil
}

// callsFor returns the default number of timed calls of a row at scale 1:
// 20000 for the calls of a microsecond or less, 2000 for ReadModel (tens
// of microseconds), and for the 1-bit solvers
// about 0.5 s of solving per row here (200 solves at 256x128, fewer as the
// problem grows; Recover, with or without WithSigns, costs about 100
// solves, BIHT about 2), but never fewer than 3.
func callsFor(op string, n, m int, scale float64) int {
	base := 20000.0
	switch op {
	case "solve":
		base = 200 * 256 * 128 / float64(n*m)
	case "recover", "withsigns":
		base = 20 * 256 * 128 / float64(n*m)
	case "readmodel":
		base = 2000
	case "biht":
		base = 100 * 256 * 128 / float64(n*m)
	}
	return max(3, int(math.Round(base*scale)))
}

// warmupFor returns the untimed calls before a row of cheap calls: a tenth
// of the timed ones, and at least one per input the callers cycle through,
// so every buffer is sized and every input in cache before timing. (The
// solver rows warm up with one call per input, which sizes the Solver
// for each: a Recover on an input not seen yet can grow its buffers.)
func warmupFor(calls, inputs int) int { return max(calls/10, inputs) }

func runLatency(ctx context.Context, env *Env, cfg latencyConfig) error {
	res := &LatencyResult{Scale: cfg.scale, ClockNs: clockCost()}
	env.Results(res)
	env.Note("Each row: every goroutine (locked to its OS thread, with its own buffers and Solver) makes its warm-up calls, then a GC "+
		"is forced and all make their timed calls at once. Latencies are pooled over the goroutines; p90, p99 and p99.9 (nearest rank) are "+
		"shown from 10, 100 and 1000 calls on (\"–\" below). Each includes the %s of reading the clock twice. Allocations and GCs are the "+
		"whole process's during the timed calls, per call (the runtime's odd allocation can land in a row: a value far below 1 is that, not the call). Timings on a shared machine are noisy: rerun with -scale 10 for tighter tails.",
		FmtNs(res.ClockNs))
	cases, err := latencyCases(ctx, env, cfg, res)
	if err != nil {
		return err
	}
	defer func() {
		if len(res.Rows) > 0 {
			env.Figure("cdf", latencyFigure(res.Rows))
		}
	}()
	primeThreads(ctx, cfg.goroutines)
	prog := env.Progress("rows", len(cases)*len(cfg.goroutines))
	defer prog.Finish()
	var tab *Table
	flush := func() {
		if tab != nil && len(tab.Rows) > 0 {
			env.Table(tab)
		}
		tab = nil
	}
	defer flush() // an interrupted family's finished rows
	for _, c := range cases {
		if tab != nil && tab.Title != c.family {
			flush()
		}
		if tab == nil {
			tab = latencyTable(c.family)
		}
		for _, g := range cfg.goroutines {
			prog.Running(fmt.Sprintf("%s %s ×%d", c.op, c.size, g))
			row, err := measureLatency(ctx, c, g)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("%s %s, %d goroutines: %w", c.op, c.size, g, err)
			}
			res.Rows = append(res.Rows, row)
			addLatencyRow(tab, row)
			prog.Done(1)
		}
	}
	return nil
}

// primeThreads runs a row of empty calls with each number of goroutines
// first: the runtime's first LockOSThread rows start OS threads, whose
// bookkeeping would otherwise count as allocations of the first real rows.
func primeThreads(ctx context.Context, goroutines []int) {
	nop := latencyCase{calls: 100, warmup: 10, newCaller: func() caller {
		return func(context.Context, int) error { return nil }
	}}
	for _, g := range goroutines {
		_, _ = measureLatency(ctx, nop, g) // only an interruption can fail; the first row then reports it
	}
}

// clockCost returns the median cost in ns of one time.Now/time.Since pair.
func clockCost() float64 {
	const n = 10001
	ds := make([]float64, n)
	for i := range ds {
		t0 := time.Now()
		ds[i] = float64(time.Since(t0))
	}
	slices.Sort(ds)
	return ds[n/2]
}

// latencyCases builds the rows to measure, in the order of latencyOps:
// vectors, the model for the bag rows (fitted here, cancellable) and the
// 1-bit instances.
func latencyCases(ctx context.Context, env *Env, cfg latencyConfig, res *LatencyResult) ([]latencyCase, error) {
	var cases []latencyCase
	var bags []*mil.Dataset // single-bag data sets, built once for both bag rows
	var model *mil.Model
	for _, op := range cfg.ops {
		switch op {
		case "dot", "axpy", "softthreshold":
			for _, n := range cfg.sizes {
				calls := callsFor(op, n, 1, cfg.scale)
				cases = append(cases, latencyCase{family: "vec kernels, one call", op: kernelOpName(op), size: "n=" + itoa(n),
					calls: calls, warmup: warmupFor(calls, 1), newCaller: kernelCaller(op, n, env.Seed)})
			}
		case "bag", "witnesses", "scorebag", "scoresparsebag", "readmodel":
			if model == nil {
				var err error
				if model, bags, err = latencyModel(ctx, env, cfg.data, res); err != nil {
					return nil, err
				}
			}
			c, err := milCase(op, model, bags, res.Model, cfg.scale)
			if err != nil {
				return nil, err
			}
			cases = append(cases, c)
		case "solve", "recover":
			for _, p := range cfg.problems {
				probs, err := onebitProblems(ctx, p[0], p[1], env.Seed)
				if err != nil {
					return nil, err
				}
				calls := callsFor(op, p[0], p[1], cfg.scale)
				c := latencyCase{family: "onebit, one decode (reused Solver)", size: fmt.Sprintf("N=%d M=%d", p[0], p[1]),
					calls: calls, warmup: len(probs), newCaller: solverCaller(op, probs)}
				c.op = map[string]string{"solve": "Solve", "recover": "Recover"}[op]
				cases = append(cases, c)
			}
		case "withsigns", "biht":
			cs, err := decodeCases(ctx, op, cfg, env.Seed)
			if err != nil {
				return nil, err
			}
			cases = append(cases, cs...)
		}
	}
	return cases, nil
}

// milCase returns the row of a mil op: a bag already in a Dataset (one
// Subset per bag of the loaded data), the arrays of a raw bag as a request
// brings them, or the saved model read back.
func milCase(op string, model *mil.Model, bags []*mil.Dataset, data string, scale float64) (latencyCase, error) {
	calls := callsFor(op, 1, 1, scale)
	c := latencyCase{family: "mil, one bag already in a Dataset (a Subset of the loaded data per bag)", size: data,
		calls: calls, warmup: warmupFor(calls, len(bags))}
	switch op {
	case "bag":
		c.op, c.newCaller = "BagScoresTo", bagCaller(model, bags)
	case "witnesses":
		c.op, c.newCaller = "Witnesses", witnessCaller(model, bags)
	case "scorebag", "scoresparsebag":
		raw, shape := rawBags(bags, rawBagInstances)
		c.family, c.size, c.warmup = "mil, one raw bag (the arrays of a request, no Dataset)", shape, warmupFor(calls, len(raw))
		c.op, c.newCaller = "ScoreBag", rawCaller(model, raw, false)
		if op == "scoresparsebag" {
			c.op, c.newCaller = "ScoreSparseBag", rawCaller(model, raw, true)
		}
	case "readmodel":
		var file bytes.Buffer
		if _, err := model.WriteTo(&file); err != nil {
			return c, err
		}
		c.family, c.op, c.size, c.warmup = "mil, a saved model read back", "ReadModel", fmt.Sprintf("%s, %d-byte file", data, file.Len()), warmupFor(calls, 1)
		c.newCaller = readModelCaller(file.Bytes())
	}
	return c, nil
}

func kernelOpName(op string) string {
	return map[string]string{"dot": "Dot", "axpy": "Axpy", "softthreshold": "SoftThreshold"}[op]
}

// kernelCaller returns callers of one kernel on fresh random vectors of
// length n.
func kernelCaller(op string, n int, seed uint64) func() caller {
	return func() caller {
		r := rand.New(rand.NewPCG(seed, 0x6c6174656e6379)) // "latency"
		x, y := randVec(r, n), randVec(r, n)
		switch op {
		case "dot":
			var s float64
			return func(context.Context, int) error {
				s += vec.Dot(x, y)
				if math.IsNaN(s) { // never true: keeps the sum, and so the call, alive
					return errors.New("vec.Dot returned NaN")
				}
				return nil
			}
		case "axpy":
			// A tiny alpha keeps y bounded over millions of calls.
			return func(context.Context, int) error { vec.Axpy(1e-9, x, y); return nil }
		default:
			return func(context.Context, int) error { vec.SoftThreshold(y, x, 0.5); return nil }
		}
	}
}

// latencyModel fits the default model to vaccine.svm, or to synthetic bags
// shaped like it when the file is missing, and returns it with every bag as
// its own data set (what a service scores per request).
func latencyModel(ctx context.Context, env *Env, flagDir string, res *LatencyResult) (*mil.Model, []*mil.Dataset, error) {
	dir, note := findData(flagDir)
	var d *mil.Dataset
	var err error
	if dir != "" {
		d, err = mil.LoadFile(filepath.Join(dir, "vaccine.svm"), nil)
		if err == nil {
			res.Model = fmt.Sprintf("vaccine.svm (%d bags)", d.NumBags())
		} else {
			note = fmt.Sprintf("No vaccine.svm (%v).", err)
		}
	}
	if d == nil {
		// Like vaccine: a few hundred sparse features, bags of up to 50
		// instances.
		d, _, err = mil.Synthetic(mil.SynthConfig{Bags: 600, Features: 234, MinInstances: 1, MaxInstances: 50,
			Density: 0.05, Seed: env.Seed})
		if err != nil {
			return nil, nil, err
		}
		res.Model = fmt.Sprintf("synthetic (%d bags)", d.NumBags())
		env.Note("%s The bag rows score a model fitted to %d synthetic bags of 1 to 50 instances with %d sparse features instead.",
			note, d.NumBags(), d.NumFeatures())
	}
	m, err := mil.Fit(ctx, d, mil.DefaultOptions())
	if err != nil {
		return nil, nil, fmt.Errorf("fitting the model for the bag rows: %w", err)
	}
	bags := make([]*mil.Dataset, d.NumBags())
	for k := range bags {
		if bags[k], err = d.Subset([]int{k}); err != nil {
			return nil, nil, err
		}
	}
	return m, bags, nil
}

// maxBag returns the largest number of instances of the bags.
func maxBag(bags []*mil.Dataset) int {
	n := 0
	for _, b := range bags {
		n = max(n, b.NumInstances())
	}
	return n
}

// bagCaller scores bag i mod len(bags) with BagScoresTo. The model is
// shared by the goroutines (it is immutable and documented safe for
// concurrent use, as a service would share it); the buffers are not.
func bagCaller(m *mil.Model, bags []*mil.Dataset) func() caller {
	return func() caller {
		dst, inst := make([]float64, 1), make([]float64, maxBag(bags))
		return func(_ context.Context, i int) error {
			b := bags[i%len(bags)]
			return m.BagScoresTo(dst, inst[:b.NumInstances()], b)
		}
	}
}

// witnessCaller finds the witness of bag i mod len(bags) with Witnesses,
// which allocates its result.
func witnessCaller(m *mil.Model, bags []*mil.Dataset) func() caller {
	return func() caller {
		return func(_ context.Context, i int) error {
			_, err := m.Witnesses(bags[i%len(bags)])
			return err
		}
	}
}

// rawBagInstances is the size of the bags the raw-bag rows score: a few
// instances, as a request brings them (vaccine has 57 bags of 7).
const rawBagInstances = 7

// rawBag is a bag as arrays: dense row-major and CSR.
type rawBag struct {
	x      []float64
	rowptr []int
	colidx []int32
	values []float64
}

// rawBags returns the bags of n instances as arrays (every bag if none has
// n instances), and their shape for the rows' size column.
func rawBags(bags []*mil.Dataset, n int) ([]rawBag, string) {
	var picked []*mil.Dataset
	for _, b := range bags {
		if b.NumInstances() == n {
			picked = append(picked, b)
		}
	}
	nf := bags[0].NumFeatures()
	shape := fmt.Sprintf("%d instances x %d features (%d bags)", n, nf, len(picked))
	if len(picked) == 0 {
		picked = bags
		shape = fmt.Sprintf("1 to %d instances x %d features (%d bags)", maxBag(bags), nf, len(bags))
	}
	out := make([]rawBag, len(picked))
	for k, b := range picked {
		r := &out[k]
		r.x, r.rowptr = make([]float64, b.NumInstances()*nf), []int{0}
		for i := range b.NumInstances() {
			row := r.x[i*nf : (i+1)*nf]
			_ = b.Row(row, i)
			for j, v := range row {
				if v != 0 {
					r.colidx, r.values = append(r.colidx, int32(j)), append(r.values, v)
				}
			}
			r.rowptr = append(r.rowptr, len(r.values))
		}
	}
	return out, shape
}

// rawCaller scores raw bag i mod len(raw) with ScoreBag, or ScoreSparseBag
// (sparse): the request path of a service, which holds no Dataset.
func rawCaller(m *mil.Model, raw []rawBag, sparse bool) func() caller {
	return func() caller {
		return func(_ context.Context, i int) error {
			r := &raw[i%len(raw)]
			var err error
			if sparse {
				_, err = m.ScoreSparseBag(r.rowptr, r.colidx, r.values)
			} else {
				_, err = m.ScoreBag(r.x)
			}
			return err
		}
	}
}

// readModelCaller reads the model file with ReadModel.
func readModelCaller(file []byte) func() caller {
	return func() caller {
		return func(context.Context, int) error {
			_, err := mil.ReadModel(bytes.NewReader(file), nil)
			return err
		}
	}
}

// onebitProblems returns four instances of size N x M with K = min(10,
// N/4) non-zeros, which the callers cycle through. Building a
// Problem runs its power iteration, so none is left for the timed calls.
// ctx is checked before each build (one takes a second at 1000 x 500
// under qemu).
func onebitProblems(ctx context.Context, n, m int, seed uint64) ([]*onebit.Problem, error) {
	probs := make([]*onebit.Problem, 4)
	for i := range probs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		in, err := onebit.Generate(onebit.GenOptions{N: n, M: m, K: min(10, n/4), Seed: instanceSeed(seed, 7, n, m, i)})
		if err != nil {
			return nil, err
		}
		if probs[i], err = in.Problem(); err != nil {
			return nil, err
		}
	}
	return probs, nil
}

// solverCaller returns callers that Solve (DefaultOptions) or Recover
// (DefaultRecoverOptions) problem i mod 4 with one reused Solver each.
func solverCaller(op string, probs []*onebit.Problem) func() caller {
	return func() caller {
		var s onebit.Solver
		_, n := probs[0].Dims()
		x := make([]float64, n)
		if op == "solve" {
			opt := onebit.DefaultOptions()
			return func(ctx context.Context, i int) error {
				_, err := s.Solve(ctx, probs[i%len(probs)], x, opt)
				return err
			}
		}
		opt := onebit.DefaultRecoverOptions()
		return func(ctx context.Context, i int) error {
			_, err := s.Recover(ctx, probs[i%len(probs)], x, opt)
			return err
		}
	}
}

// decodeCases returns the rows of a decoder on a fixed Phi, one per
// problem size: "withsigns" times a request, Problem.WithSigns of a
// Problem made once (shared by the goroutines) and Recover with the
// goroutine's Solver, cycling through 4 sign vectors; "biht" times
// Solver.BIHT told K on the 4 instances of the solve rows.
func decodeCases(ctx context.Context, op string, cfg latencyConfig, seed uint64) ([]latencyCase, error) {
	var cases []latencyCase
	for _, sz := range cfg.problems {
		n, m := sz[0], sz[1]
		c := latencyCase{family: "onebit, one decode (reused Solver)", size: fmt.Sprintf("N=%d M=%d", n, m),
			calls: callsFor(op, n, m, cfg.scale), warmup: 4} // one per input
		if op == "withsigns" {
			base, ys, err := decodeSigns(ctx, n, m, seed)
			if err != nil {
				return nil, err
			}
			c.op, c.newCaller = "WithSigns+Recover", withSignsCaller(base, ys)
		} else {
			probs, err := onebitProblems(ctx, n, m, seed)
			if err != nil {
				return nil, err
			}
			c.op, c.newCaller = "Solver.BIHT", bihtCaller(probs, min(10, n/4))
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// decodeSigns returns the Problem of one instance of size N x M (K =
// min(10, N/4)), made once, and 4 sign vectors on its Phi: its own and
// sign(Phi x) for the signals of 3 other instances.
func decodeSigns(ctx context.Context, n, m int, seed uint64) (*onebit.Problem, [][]float64, error) {
	k := min(10, n/4)
	in, err := onebit.Generate(onebit.GenOptions{N: n, M: m, K: k, Seed: instanceSeed(seed, 70, n, m, 0)})
	if err != nil {
		return nil, nil, err
	}
	base, err := in.Problem()
	if err != nil {
		return nil, nil, err
	}
	ys := [][]float64{in.Y}
	for i := 1; i < 4; i++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		sig, err := onebit.Generate(onebit.GenOptions{N: n, M: 1, K: k, Seed: instanceSeed(seed, 70, n, m, i)}) // its X only
		if err != nil {
			return nil, nil, err
		}
		y := make([]float64, m)
		vec.MulVec(y, in.Phi, m, n, sig.X)
		for r, v := range y {
			y[r] = 1
			if v < 0 {
				y[r] = -1
			}
		}
		ys = append(ys, y)
	}
	return base, ys, nil
}

// withSignsCaller returns callers that decode sign vector i mod 4 on
// base's Phi: WithSigns, then Recover (DefaultRecoverOptions) with one
// reused Solver each.
func withSignsCaller(base *onebit.Problem, ys [][]float64) func() caller {
	return func() caller {
		var s onebit.Solver
		_, n := base.Dims()
		x := make([]float64, n)
		opt := onebit.DefaultRecoverOptions()
		return func(ctx context.Context, i int) error {
			p, err := base.WithSigns(ys[i%len(ys)])
			if err != nil {
				return err
			}
			_, err = s.Recover(ctx, p, x, opt)
			return err
		}
	}
}

// bihtCaller returns callers that run Solver.BIHT told k (at most
// onebit.DefaultBIHTMaxIter iterations) on problem i mod 4 with one
// reused Solver each.
func bihtCaller(probs []*onebit.Problem, k int) func() caller {
	return func() caller {
		var s onebit.Solver
		_, n := probs[0].Dims()
		x := make([]float64, n)
		opt := onebit.BIHTOptions{K: k, MaxIter: onebit.DefaultBIHTMaxIter}
		return func(ctx context.Context, i int) error {
			_, err := s.BIHT(ctx, probs[i%len(probs)], x, opt)
			return err
		}
	}
}

// measureLatency measures one row with g goroutines.
func measureLatency(ctx context.Context, c latencyCase, g int) (*LatencyRow, error) {
	callers := make([]caller, g)
	samples := make([][]time.Duration, g)
	for k := range callers {
		callers[k] = c.newCaller()
		samples[k] = make([]time.Duration, c.calls)
	}
	errs := make([]error, g)
	warmed := make(chan struct{}, g)
	begin := make(chan struct{})
	var abort bool // written before close(begin), read after it
	var wg sync.WaitGroup
	for k := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for i := range c.warmup {
				if errs[k] = callers[k](ctx, i); errs[k] != nil {
					break
				}
			}
			warmed <- struct{}{}
			<-begin
			if errs[k] == nil && !abort {
				errs[k] = timeCalls(ctx, callers[k], samples[k], c.warmup)
			}
		}()
	}
	for range g {
		<-warmed
	}
	abort = errors.Join(errs...) != nil || ctx.Err() != nil
	var before, after runtime.MemStats
	if !abort {
		runtime.GC() // start every row from a collected heap
		runtime.ReadMemStats(&before)
	}
	t0 := time.Now()
	close(begin)
	wg.Wait()
	wall := time.Since(t0)
	runtime.ReadMemStats(&after)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	all := make([]float64, 0, g*c.calls)
	for _, s := range samples {
		for _, d := range s {
			all = append(all, float64(d))
		}
	}
	total := float64(len(all))
	row := &LatencyRow{Op: c.op, Size: c.size, Goroutines: g, Calls: c.calls, Warmup: c.warmup,
		AllocsPerCall: float64(after.Mallocs-before.Mallocs) / total, BytesPerCall: float64(after.TotalAlloc-before.TotalAlloc) / total,
		GCs: after.NumGC - before.NumGC, GCPauseNs: after.PauseTotalNs - before.PauseTotalNs, WallS: wall.Seconds()}
	fillPercentiles(row, all)
	return row, nil
}

// timeCalls makes len(dst) timed calls, numbered from offset, and stores
// their latencies in dst. It checks ctx every 64 calls (outside the timed
// part).
func timeCalls(ctx context.Context, call caller, dst []time.Duration, offset int) error {
	for i := range dst {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		t0 := time.Now()
		err := call(ctx, offset+i)
		dst[i] = time.Since(t0)
		if err != nil {
			return err
		}
	}
	return nil
}

// quantile returns the nearest-rank q-quantile of sorted (q in (0, 1]):
// the smallest value at least a fraction q of the samples do not exceed.
func quantile(sorted []float64, q float64) float64 {
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}

// fillPercentiles sets the row's percentiles, mean and CDF from the
// latencies (sorted in place).
func fillPercentiles(row *LatencyRow, ns []float64) {
	slices.Sort(ns)
	row.P50Ns, row.P90Ns, row.P99Ns, row.P999Ns = quantile(ns, 0.5), quantile(ns, 0.9), quantile(ns, 0.99), quantile(ns, 0.999)
	row.MaxNs = ns[len(ns)-1]
	for _, v := range ns {
		row.MeanNs += v
	}
	row.MeanNs /= float64(len(ns))
	// Fractions slower 10^(-j/8), from 1 down to the slowest call: eight
	// points per decade of the tail.
	n := float64(len(ns))
	row.CDF = row.CDF[:0]
	prev := -1
	for j := 0; ; j++ {
		f := math.Pow(10, -float64(j)/8)
		// The fraction f of calls at least as slow as ns[k]: k = n(1-f),
		// the last call at most.
		k := min(int(math.Round(n*(1-f))), len(ns)-1)
		if k > prev {
			row.CDF = append(row.CDF, CDFPoint{Slower: (n - float64(k)) / n, Ns: ns[k]})
			prev = k
		}
		if k == len(ns)-1 {
			return
		}
	}
}

func latencyTable(family string) *Table {
	return &Table{Title: family, Columns: []string{"call", "size", "goroutines", "calls", "p50", "p90", "p99", "p99.9", "max",
		"allocs/call", "B/call", "GCs"}}
}

// pctCell formats a percentile, or "–" when there are too few calls for it.
func pctCell(ns float64, calls int, name string) string {
	if calls < minCalls[name] {
		return "–"
	}
	return FmtNs(ns)
}

func addLatencyRow(t *Table, r *LatencyRow) {
	n := r.Calls * r.Goroutines
	t.Add(r.Op, r.Size, itoa(r.Goroutines), itoa(n), FmtNs(r.P50Ns), pctCell(r.P90Ns, n, "p90"), pctCell(r.P99Ns, n, "p99"),
		pctCell(r.P999Ns, n, "p99.9"), FmtNs(r.MaxNs), FmtSig(r.AllocsPerCall, 3), FmtSig(r.BytesPerCall, 3), strconv.FormatUint(uint64(r.GCs), 10))
}

// latencyFigure draws each call's latency distribution, one panel per
// call, one line per size (solid alone, dashed with more goroutines):
// the fraction of calls at least as slow as x, on log-log axes, so the
// tail reads off directly (0.01 is p99).
func latencyFigure(rows []*LatencyRow) *svgplot.Figure {
	f := &svgplot.Figure{Title: "latency per call: fraction of calls at least as slow as x"}
	var ops, sizes []string
	for _, r := range rows {
		if !slices.Contains(ops, r.Op) {
			ops = append(ops, r.Op)
		}
		if !slices.Contains(sizes, r.Size) {
			sizes = append(sizes, r.Size)
		}
	}
	for _, op := range ops {
		p := svgplot.Plot{Title: op, X: svgplot.Axis{Label: "latency (ns)", Scale: svgplot.Log10},
			Y: svgplot.Axis{Label: "fraction of calls at least as slow", Scale: svgplot.Log10}, Legend: svgplot.LegendBottomLeft}
		for _, r := range rows {
			if r.Op != op {
				continue
			}
			s := svgplot.Series{Name: r.Size, Marker: svgplot.MarkerNone, Dashed: r.Goroutines > 1,
				Color: svgplot.Palette[slices.Index(sizes, r.Size)%len(svgplot.Palette)]}
			if r.Goroutines > 1 {
				s.Name += fmt.Sprintf(", %d goroutines", r.Goroutines)
			}
			for _, pt := range r.CDF {
				s.X = append(s.X, math.Max(pt.Ns, 1))
				s.Y = append(s.Y, pt.Slower)
			}
			p.Series = append(p.Series, s)
		}
		f.Panels = append(f.Panels, p)
	}
	return f
}
