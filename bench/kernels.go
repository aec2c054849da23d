package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/neadmm/neadmm/internal/svgplot"
	"github.com/neadmm/neadmm/vec"
)

var kernelsCommand = Command{
	Name:  "kernels",
	Short: "vec kernel timings: ns/op, GB/s, GFLOP/s, every implementation in one run",
	Flags: kernelsFlags,
	// Three sizes (in L1, in L2, beyond the caches) and one GradSweep
	// shape, short measurements: about 5 s with three implementations
	// (avx512, avx2, generic) on a 2-core machine.
	TourArgs: []string{"-sizes", "256,16k,1m", "-time", "20ms", "-reps", "3", "-shapes", "500x500"},
}

// KernelsResult is the kernels command's JSON "results".
type KernelsResult struct {
	Sizes   []int    `json:"sizes"`
	Kernels []string `json:"kernels"`
	// Impls are the implementations timed, in the order of
	// vec.Implementations (best first, "generic" last).
	Impls    []string `json:"impls"`
	TargetNs int64    `json:"target_ns"` // duration of one sample
	Reps     int      `json:"reps"`      // samples per implementation and size
	// Points are the vector and matrix kernels at each size.
	Points []KernelPoint `json:"points"`
	// Shapes and Sweeps are GradSweep against MulVec, map, MulTransVec.
	Shapes []Shape      `json:"shapes,omitempty"`
	Sweeps []SweepPoint `json:"sweeps,omitempty"`
}

// KernelPoint is one kernel at one size.
type KernelPoint struct {
	Kernel string `json:"kernel"`
	// N is the vector length, or the number of matrix elements for MulVec
	// and MulTransVec (Rows x Cols).
	N          int   `json:"n"`
	Rows       int   `json:"rows,omitempty"`
	Cols       int   `json:"cols,omitempty"`
	BytesPerOp int64 `json:"bytes_per_op"`
	// FlopsPerOp is 0 for kernels that do no arithmetic worth counting
	// (SoftThreshold compares and subtracts).
	FlopsPerOp int64 `json:"flops_per_op"`
	// Timings has one entry per implementation, in the order of Impls.
	// (Schema 1 had fields "accel" and "generic" instead: the timings of
	// vec.Impl() and of generic; bench compare still reads them.)
	Timings []*Timing `json:"timings"`
}

// Timing is one implementation's measurements of one KernelPoint.
type Timing struct {
	Impl  string `json:"impl"`
	Iters int    `json:"iters"` // calls per sample
	Ns    Stat   `json:"ns_per_op"`
	// GBps and GFlops derive from the median time; GBpsLo and GBpsHi from
	// the slowest and fastest sample.
	GBps   float64 `json:"gb_per_s"`
	GBpsLo float64 `json:"gb_per_s_lo"`
	GBpsHi float64 `json:"gb_per_s_hi"`
	GFlops float64 `json:"gflop_per_s"`
	// Speedup is the median time of the implementation this one steps down
	// to (the next in Impls) over this one's: > 1 means this one is faster.
	// 0 for the last implementation.
	Speedup float64 `json:"speedup_over_next,omitempty"`
}

// Shape is a matrix shape, rows x cols.
type Shape struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
}

func (s Shape) String() string { return strconv.Itoa(s.Rows) + "x" + strconv.Itoa(s.Cols) }

// SweepPoint is GradSweep against MulVec, the map and MulTransVec on one
// implementation and shape, with the gradient map of 1-bit compressive
// sensing.
type SweepPoint struct {
	Shape
	Impl  string  `json:"impl"`
	Two   *Timing `json:"two_products"`
	Sweep *Timing `json:"grad_sweep"`
	// Read is one streaming read of A (Nrm2 over A, whose kernel does one
	// load per multiply-add), timed with the others: what one pass over A
	// costs from where A lives, at this implementation's vector width.
	Read *Timing `json:"read_a,omitempty"`
	// Speedup is Two's median time over Sweep's.
	Speedup float64 `json:"speedup"`
	// Ceiling is Two's median time over Read's: the speedup of a GradSweep
	// that cost no more than reading A once (about 2 when MulVec and
	// MulTransVec each run at the streaming rate).
	Ceiling float64 `json:"ceiling,omitempty"`
}

// kernelSpec describes one measured kernel. Bytes count every element read
// and written once (Dot reads 16n bytes, Axpy reads 16n and writes 8n),
// not cache traffic: at large n this is the memory bandwidth achieved.
type kernelSpec struct {
	name string
	desc string
	// setup allocates the operands for about n elements and returns the
	// loop to time (for each implementation), the actual sizes and the
	// bytes and flops per call.
	setup func(n int, r *rand.Rand) kernelCase
}

type kernelCase struct {
	loop       func(k vec.Kernels, iters int)
	n          int
	rows, cols int // MulVec and MulTransVec only
	bytes      int64
	flops      int64
}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*r.Float64() - 1
	}
	return v
}

// The loops call the kernels as methods of the vec.Kernels of each
// implementation: the same code the package functions run, without a
// process-wide switch.
var kernelSpecs = []kernelSpec{
	{"Dot", "reads 16n B, 2n flop", func(n int, r *rand.Rand) kernelCase {
		x, y := randVec(r, n), randVec(r, n)
		return kernelCase{n: n, bytes: 16 * int64(n), flops: 2 * int64(n), loop: func(k vec.Kernels, iters int) {
			s := 0.0
			for i := 0; i < iters; i++ {
				s += k.Dot(x, y)
			}
			runtime.KeepAlive(s)
		}}
	}},
	{"Axpy", "reads 16n B, writes 8n B, 2n flop", func(n int, r *rand.Rand) kernelCase {
		x, y := randVec(r, n), randVec(r, n)
		// alpha is small so y stays O(1) over ~1e9 calls: no overflow or
		// subnormals to distort the timing.
		return kernelCase{n: n, bytes: 24 * int64(n), flops: 2 * int64(n), loop: func(k vec.Kernels, iters int) {
			for i := 0; i < iters; i++ {
				k.Axpy(1e-9, x, y)
			}
		}}
	}},
	{"SoftThreshold", "reads 8n B, writes 8n B", func(n int, r *rand.Rand) kernelCase {
		x, dst := randVec(r, n), make([]float64, n)
		// t = 0.5 on uniform [-1, 1] data zeroes half the entries in a
		// random pattern, as in a solver, not a predictable one.
		return kernelCase{n: n, bytes: 16 * int64(n), loop: func(k vec.Kernels, iters int) {
			for i := 0; i < iters; i++ {
				k.SoftThreshold(dst, x, 0.5)
			}
		}}
	}},
	{"Nrm2", "reads 8n B, 2n flop nominal", func(n int, r *rand.Rand) kernelCase {
		x := randVec(r, n)
		// 2n is the textbook count (a multiply-add per element); the
		// overflow-safe algorithm does more work than that.
		return kernelCase{n: n, bytes: 8 * int64(n), flops: 2 * int64(n), loop: func(k vec.Kernels, iters int) {
			s := 0.0
			for i := 0; i < iters; i++ {
				s += k.Nrm2(x)
			}
			runtime.KeepAlive(s)
		}}
	}},
	{"MulVec", "square A, n = rows·cols: reads 8(n+cols) B, writes 8·rows B, 2n flop", func(n int, r *rand.Rand) kernelCase {
		return matVecCase(n, r, false)
	}},
	{"MulTransVec", "square A, n = rows·cols: reads 8(n+rows) B, writes 8·cols B, 2n flop", func(n int, r *rand.Rand) kernelCase {
		return matVecCase(n, r, true)
	}},
}

// gradSweepName is the name of GradSweep in -kernels; it is timed on
// -shapes, not -sizes.
const gradSweepName = "GradSweep"

// matVecCase times MulVec (y = Ax) or, with trans, MulTransVec (y = Aᵀx)
// on a nearly square A of about n elements. Both read A and x once and
// write y once: 8(rows·cols + rows + cols) bytes, a multiply-add per
// element of A. MulTransVec walks A by rows and accumulates into y, so y
// is read and written once per pass (per row generically, per four rows
// with AVX2 and AVX-512); like every count here, the bytes are the
// operands touched once, not that cache traffic.
func matVecCase(n int, r *rand.Rand, trans bool) kernelCase {
	rows, cols := squareShape(n)
	m := int64(rows * cols)
	c := kernelCase{n: rows * cols, rows: rows, cols: cols, bytes: 8 * (m + int64(rows) + int64(cols)), flops: 2 * m}
	a := randVec(r, rows*cols)
	if trans {
		x, y := randVec(r, rows), make([]float64, cols)
		c.loop = func(k vec.Kernels, iters int) {
			for i := 0; i < iters; i++ {
				k.MulTransVec(y, a, rows, cols, x)
			}
		}
	} else {
		x, y := randVec(r, cols), make([]float64, rows)
		c.loop = func(k vec.Kernels, iters int) {
			for i := 0; i < iters; i++ {
				k.MulVec(y, a, rows, cols, x)
			}
		}
	}
	return c
}

// squareShape returns the nearly square rows x cols with rows·cols <= n
// that the matrix kernels are timed on (n itself when n is a square).
func squareShape(n int) (rows, cols int) {
	rows = max(1, int(math.Sqrt(float64(n))))
	return rows, max(1, n/rows)
}

func defaultSizes() string {
	var s []string
	for n := 16; n <= 1<<22; n *= 4 {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

// parseSizes reads a comma-separated list of sizes; a k or m suffix
// multiplies by 1024 or 1024². Sizes must be positive and at most 1<<26.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		mul := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mul, f = 1<<10, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "m"):
			mul, f = 1<<20, strings.TrimSuffix(f, "m")
		}
		v, err := strconv.Atoi(f)
		if err != nil || v <= 0 || v > (1<<26)/mul {
			return nil, fmt.Errorf("bad size %q: want a positive integer up to 64m, optionally with k or m", f)
		}
		out = append(out, v*mul)
	}
	return out, nil
}

// parseShapes reads a comma-separated list of ROWSxCOLS shapes, each side
// positive and the product at most 1<<26 elements (512 MB).
func parseShapes(s string) ([]Shape, error) {
	var out []Shape
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		rs, cs, ok := strings.Cut(strings.ToLower(f), "x")
		r, err1 := strconv.Atoi(rs)
		c, err2 := strconv.Atoi(cs)
		if !ok || err1 != nil || err2 != nil || r <= 0 || c <= 0 || r > (1<<26)/c {
			return nil, fmt.Errorf("bad shape %q: want ROWSxCOLS, positive, at most 64m elements", f)
		}
		out = append(out, Shape{r, c})
	}
	return out, nil
}

// parseImpls reads the -impl flag: "all", or a comma-separated list of
// implementations this CPU has, returned in the order of
// vec.Implementations.
func parseImpls(s string) ([]vec.Kernels, error) {
	all := vec.Implementations()
	if s == "all" {
		return all, nil
	}
	want := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		name := strings.TrimSpace(f)
		if _, ok := vec.Lookup(name); !ok {
			return nil, fmt.Errorf("-impl %q: %q is not an implementation this build can run on this CPU (%s)", s, name, implNames(all))
		}
		want[name] = true
	}
	var ks []vec.Kernels
	for _, k := range all {
		if want[k.Name()] {
			ks = append(ks, k)
		}
	}
	return ks, nil
}

// implNames returns the names of ks, space-separated.
func implNames(ks []vec.Kernels) string {
	var s []string
	for _, k := range ks {
		s = append(s, k.Name())
	}
	return strings.Join(s, " ")
}

func kernelsFlags(fs *FlagSet) RunFunc {
	sizes := fs.String("sizes", defaultSizes(), "comma-separated vector lengths (k, m suffixes: 1024, 1024²)")
	names := fs.String("kernels", "dot,axpy,softthreshold,nrm2,mulvec,multransvec,gradsweep", "comma-separated kernels to time")
	impl := fs.String("impl", "all", "implementations to time: all, or a comma-separated list of those this CPU has (avx512, avx2, neon, generic)")
	shapes := fs.String("shapes", "1000x1000,4000x4000", "comma-separated ROWSxCOLS matrices for GradSweep against MulVec+MulTransVec")
	target := fs.Duration("time", 50*time.Millisecond, "duration of one timing sample")
	reps := fs.Int("reps", 5, "samples per implementation and size (median and min/max reported)")
	var ns []int
	var shs []Shape
	var ks []vec.Kernels
	var specs []kernelSpec
	fs.Check(func() (err error) {
		if ns, err = parseSizes(*sizes); err != nil {
			return fmt.Errorf("-sizes: %w", err)
		}
		if shs, err = parseShapes(*shapes); err != nil {
			return fmt.Errorf("-shapes: %w", err)
		}
		if ks, err = parseImpls(*impl); err != nil {
			return err
		}
		sweep := false
		for _, name := range strings.Split(*names, ",") {
			name = strings.TrimSpace(name)
			found := strings.EqualFold(name, gradSweepName)
			sweep = sweep || found
			for _, k := range kernelSpecs {
				if strings.EqualFold(k.name, name) {
					specs, found = append(specs, k), true
				}
			}
			if !found {
				return fmt.Errorf("-kernels: unknown kernel %q", name)
			}
		}
		if !sweep {
			shs = nil
		}
		switch {
		case *reps < 1:
			return fmt.Errorf("-reps %d: want >= 1", *reps)
		case *target <= 0:
			return fmt.Errorf("-time %v: want > 0", *target)
		}
		return nil
	})
	return func(ctx context.Context, env *Env) error {
		return runKernels(ctx, env, specs, ns, shs, ks, *target, *reps)
	}
}

func runKernels(ctx context.Context, env *Env, specs []kernelSpec, sizes []int, shapes []Shape, ks []vec.Kernels,
	target time.Duration, reps int) error {
	res := &KernelsResult{Sizes: sizes, TargetNs: target.Nanoseconds(), Reps: reps, Shapes: shapes}
	for _, k := range ks {
		res.Impls = append(res.Impls, k.Name())
	}
	for _, k := range specs {
		res.Kernels = append(res.Kernels, k.name)
	}
	if len(shapes) > 0 {
		res.Kernels = append(res.Kernels, gradSweepName)
	}
	env.Results(res)
	// Figures are recorded up front and filled as points finish, so an
	// interrupted run still draws what it measured.
	defer func() {
		if len(res.Points) > 0 {
			env.Figure("gbps", kernelsFigure(res, specs))
			if len(ks) > 1 {
				env.Figure("speedup", speedupFigure(res, specs))
			}
		}
	}()

	env.Note("Implementations this CPU can run: %s (vec.Impl() = %s); timed: %s.",
		implNames(vec.Implementations()), vec.Impl(), implNames(ks))
	env.Note("Each cell: %d samples of about %v each after calibration, implementations interleaved. "+
		"time/op is the median; spread is ± half the min–max range relative to the median; "+
		"GB/s counts each element read or written once. A speedup column \"A vs B\" is B's median time over A's: "+
		"what A gains over the implementation it steps down to.", reps, target)
	r := rand.New(rand.NewPCG(env.Seed, 0x6b65726e656c73)) // "kernels"
	prog := env.Progress("timing", len(specs)*len(sizes)+len(shapes))
	defer prog.Finish()
	for _, k := range specs {
		tab := kernelTable(k, ks)
		for _, n := range sizes {
			if err := ctx.Err(); err != nil {
				if len(tab.Rows) > 0 {
					env.Table(tab)
				}
				return err
			}
			c := k.setup(n, r)
			prog.Running(fmt.Sprintf("%s n=%s", k.name, FmtSize(c.n)))
			pt := KernelPoint{Kernel: k.name, N: c.n, Rows: c.rows, Cols: c.cols, BytesPerOp: c.bytes, FlopsPerOp: c.flops}
			loops := make([]func(int), len(ks))
			for i, kk := range ks {
				loops[i] = func(iters int) { c.loop(kk, iters) }
			}
			ts, err := measure(ctx, loops, target, reps)
			if err != nil { // interrupted inside: this point is incomplete
				if len(tab.Rows) > 0 {
					env.Table(tab)
				}
				return err
			}
			for i, st := range ts {
				pt.Timings = append(pt.Timings, newTiming(ks[i].Name(), st, c.bytes, c.flops))
			}
			setSpeedups(pt.Timings)
			res.Points = append(res.Points, pt)
			addKernelRow(tab, pt)
			prog.Done(1)
		}
		env.Table(tab)
	}
	if len(shapes) > 0 {
		return runSweeps(ctx, env, res, shapes, ks, r, target, reps, prog)
	}
	return nil
}

// sample is one implementation's calibrated calls per sample and its
// samples (ns per call).
type sample struct {
	iters int
	ns    []float64
}

// measure times each loop: calibrate each, then take reps samples going
// round the loops, so drift in machine load (the cores are shared) hits
// them alike.
func measure(ctx context.Context, loops []func(int), target time.Duration, reps int) ([]sample, error) {
	ss := make([]sample, len(loops))
	for i, loop := range loops {
		loop(1) // warm caches and page in the operands
		ss[i].iters = calibrate(ctx, loop, target)
	}
	for range reps {
		for i, loop := range loops {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d := timeIt(loop, ss[i].iters)
			ss[i].ns = append(ss[i].ns, float64(d.Nanoseconds())/float64(ss[i].iters))
		}
	}
	return ss, nil
}

func newTiming(impl string, s sample, bytes, flops int64) *Timing {
	st := Summarize(s.ns)
	t := &Timing{Impl: impl, Iters: s.iters, Ns: st,
		GBps: float64(bytes) / st.Median, GBpsLo: float64(bytes) / st.Max, GBpsHi: float64(bytes) / st.Min}
	if flops > 0 {
		t.GFlops = float64(flops) / st.Median
	}
	return t
}

// setSpeedups sets each timing's speedup over the next one.
func setSpeedups(ts []*Timing) {
	for i := 0; i+1 < len(ts); i++ {
		ts[i].Speedup = ts[i+1].Ns.Median / ts[i].Ns.Median
	}
}

func kernelTable(k kernelSpec, ks []vec.Kernels) *Table {
	t := &Table{Title: k.name + " (" + k.desc + ")", Columns: []string{"n"}}
	for _, kk := range ks {
		t.Columns = append(t.Columns, kk.Name()+" time/op", "spread", "GB/s", "GFLOP/s")
	}
	for i := 0; i+1 < len(ks); i++ {
		t.Columns = append(t.Columns, ks[i].Name()+" vs "+ks[i+1].Name())
	}
	return t
}

func addKernelRow(t *Table, pt KernelPoint) {
	row := []string{FmtSize(pt.N)}
	for _, tm := range pt.Timings {
		gf := "–"
		if tm.GFlops > 0 {
			gf = FmtSig(tm.GFlops, 3)
		}
		row = append(row, FmtNs(tm.Ns.Median), "±"+FmtSig(tm.Ns.Spread(), 2)+"%", FmtSig(tm.GBps, 3), gf)
	}
	for _, tm := range pt.Timings[:len(pt.Timings)-1] {
		row = append(row, FmtSig(tm.Speedup, 3)+"×")
	}
	t.Add(row...)
}

// runSweeps times GradSweep against MulVec, the map and MulTransVec on each
// shape and implementation, all interleaved, and adds their table.
func runSweeps(ctx context.Context, env *Env, res *KernelsResult, shapes []Shape, ks []vec.Kernels, r *rand.Rand,
	target time.Duration, reps int, prog *Progress) error {
	tab := &Table{Title: "GradSweep (ax = Ax, g = Aᵀφ(ax) in one pass) vs MulVec, φ, MulTransVec; 1-bit CS φ",
		Columns: []string{"rows x cols", "impl", "two products", "spread", "GradSweep", "spread", "speedup", "read A once", "ceiling"}}
	defer func() {
		if len(tab.Rows) > 0 {
			env.Table(tab)
		}
	}()
	for _, sh := range shapes {
		if err := ctx.Err(); err != nil {
			return err
		}
		prog.Running("GradSweep " + sh.String())
		a := randVec(r, sh.Rows*sh.Cols)
		x, y := randVec(r, sh.Cols), make([]float64, sh.Rows)
		for i := range y {
			y[i] = float64(1 - 2*r.IntN(2))
		}
		ax, g, w := make([]float64, sh.Rows), make([]float64, sh.Cols), make([]float64, sh.Rows)
		// The gradient map of the one-sided quadratic loss of 1-bit CS,
		// min(y_i (Ax)_i, 0)²/2.
		phi := func(i int, v float64) float64 { return y[i] * min(y[i]*v, 0) }
		var loops []func(int)
		for _, k := range ks {
			loops = append(loops, func(iters int) {
				for range iters {
					k.MulVec(ax, a, sh.Rows, sh.Cols, x)
					for i, v := range ax {
						w[i] = phi(i, v)
					}
					k.MulTransVec(g, a, sh.Rows, sh.Cols, w)
				}
			}, func(iters int) {
				for range iters {
					k.GradSweep(ax, g, a, sh.Cols, x, phi)
				}
			}, func(iters int) {
				s := 0.0
				for range iters {
					s += k.Nrm2(a)
				}
				runtime.KeepAlive(s)
			})
		}
		ss, err := measure(ctx, loops, target, reps)
		if err != nil {
			return err
		}
		bytes, flops := 8*int64(sh.Rows*sh.Cols), 4*int64(sh.Rows*sh.Cols) // A once, two multiply-adds per element
		for i, k := range ks {
			p := SweepPoint{Shape: sh, Impl: k.Name(),
				Two: newTiming(k.Name(), ss[3*i], bytes, flops), Sweep: newTiming(k.Name(), ss[3*i+1], bytes, flops),
				Read: newTiming(k.Name(), ss[3*i+2], bytes, 2*int64(sh.Rows*sh.Cols))}
			p.Speedup = p.Two.Ns.Median / p.Sweep.Ns.Median
			p.Ceiling = p.Two.Ns.Median / p.Read.Ns.Median
			res.Sweeps = append(res.Sweeps, p)
			tab.Add(sh.String(), k.Name(), FmtNs(p.Two.Ns.Median), "±"+FmtSig(p.Two.Ns.Spread(), 2)+"%",
				FmtNs(p.Sweep.Ns.Median), "±"+FmtSig(p.Sweep.Ns.Spread(), 2)+"%", FmtSig(p.Speedup, 3)+"×",
				FmtNs(p.Read.Ns.Median), FmtSig(p.Ceiling, 3)+"×")
		}
		prog.Done(1)
	}
	return nil
}

// kernelsFigure draws GB/s against n, one panel per kernel, one series per
// implementation, with bars from the slowest to the fastest sample.
func kernelsFigure(res *KernelsResult, specs []kernelSpec) *svgplot.Figure {
	f := &svgplot.Figure{Title: "vec kernels: throughput (bytes touched / time)", Columns: min(3, len(specs))}
	for _, k := range specs {
		p := svgplot.Plot{Title: k.name, X: svgplot.Axis{Label: "n", Scale: svgplot.Log10},
			Y: svgplot.Axis{Label: "GB/s", IncludeZero: true}}
		for i, impl := range res.Impls {
			s := svgplot.Series{Name: impl, Dashed: impl == "generic"}
			for _, pt := range res.Points {
				if pt.Kernel != k.name || i >= len(pt.Timings) {
					continue
				}
				tm := pt.Timings[i]
				s.X = append(s.X, float64(pt.N))
				s.Y = append(s.Y, tm.GBps)
				s.Lo = append(s.Lo, tm.GBpsLo)
				s.Hi = append(s.Hi, tm.GBpsHi)
			}
			if len(s.X) > 0 {
				p.Series = append(p.Series, s)
			}
		}
		f.Panels = append(f.Panels, p)
	}
	return f
}

// speedupRefName is the legend entry of the speedup figure's 1× line.
const speedupRefName = "1× (no speedup)"

// speedupFigure draws, for each kernel, the best implementation's speedup
// over the last one timed (generic, normally) against n.
func speedupFigure(res *KernelsResult, specs []kernelSpec) *svgplot.Figure {
	best, last := res.Impls[0], res.Impls[len(res.Impls)-1]
	p := svgplot.Plot{Title: "speedup of " + best + " over " + last, Legend: svgplot.LegendOutside,
		X: svgplot.Axis{Label: "n", Scale: svgplot.Log10}, Y: svgplot.Axis{Label: "speedup (×)", IncludeZero: true}}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, k := range specs {
		s := svgplot.Series{Name: k.name}
		for _, pt := range res.Points {
			if pt.Kernel == k.name && len(pt.Timings) == len(res.Impls) {
				s.X = append(s.X, float64(pt.N))
				s.Y = append(s.Y, pt.Timings[len(pt.Timings)-1].Ns.Median/pt.Timings[0].Ns.Median)
				lo, hi = math.Min(lo, float64(pt.N)), math.Max(hi, float64(pt.N))
			}
		}
		p.Series = append(p.Series, s)
	}
	if lo <= hi { // a grey line at 1×: above it the faster implementation wins
		p.Series = append(p.Series, svgplot.Series{Name: speedupRefName, X: []float64{lo, hi}, Y: []float64{1, 1},
			Color: "#999999", Dashed: true, Marker: svgplot.MarkerNone})
	}
	return &svgplot.Figure{Panels: []svgplot.Plot{p}, PanelWidth: 560}
}
