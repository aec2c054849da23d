package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/neadmm/neadmm/internal/svgplot"
	"github.com/neadmm/neadmm/internal/testhook"
	"github.com/neadmm/neadmm/vec"
)

var kernelsCommand = Command{
	Name:  "kernels",
	Short: "vec kernel timings: ns/op, GB/s, GFLOP/s, accelerated vs generic in one run",
	Flags: kernelsFlags,
	// Three sizes (in L1, in L2, beyond the caches), short
	// measurements: about 3 s on a 2-core machine.
	TourArgs: []string{"-sizes", "256,16k,1m", "-time", "20ms", "-reps", "3"},
}

// KernelsResult is the kernels command's JSON "results".
type KernelsResult struct {
	Sizes   []int    `json:"sizes"`
	Kernels []string `json:"kernels"`
	// Impl is the -impl flag: accel, generic or both.
	Impl     string `json:"impl"`
	TargetNs int64  `json:"target_ns"` // duration of one sample
	Reps     int    `json:"reps"`      // samples per implementation and size
	// AccelImpl names the accelerated implementation ("avx2", "neon"), or
	// is empty when the build has none.
	AccelImpl string        `json:"accel_impl,omitempty"`
	Points    []KernelPoint `json:"points"`
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
	FlopsPerOp int64   `json:"flops_per_op"`
	Accel      *Timing `json:"accel,omitempty"`
	Generic    *Timing `json:"generic,omitempty"`
	// Speedup is generic time / accelerated time (medians); > 1 means the
	// accelerated kernel is faster. 0 when only one was measured.
	Speedup float64 `json:"speedup,omitempty"`
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
}

// kernelSpec describes one measured kernel. Bytes count every element read
// and written once (Dot reads 16n bytes, Axpy reads 16n and writes 8n),
// not cache traffic: at large n this is the memory bandwidth achieved.
type kernelSpec struct {
	name string
	desc string
	// setup allocates the operands for about n elements and returns the
	// loop to time, the actual sizes and the bytes and flops per call.
	setup func(n int, r *rand.Rand) kernelCase
}

type kernelCase struct {
	loop       func(iters int)
	n          int
	rows, cols int // MulVec and MulTransVec only
	bytes      int64
	flops      int64
}

// sink keeps results of pure kernels alive so the compiler cannot drop
// the calls.
var sink float64

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*r.Float64() - 1
	}
	return v
}

var kernelSpecs = []kernelSpec{
	{"Dot", "reads 16n B, 2n flop", func(n int, r *rand.Rand) kernelCase {
		x, y := randVec(r, n), randVec(r, n)
		return kernelCase{n: n, bytes: 16 * int64(n), flops: 2 * int64(n), loop: func(iters int) {
			s := 0.0
			for i := 0; i < iters; i++ {
				s += vec.Dot(x, y)
			}
			sink += s
		}}
	}},
	{"Axpy", "reads 16n B, writes 8n B, 2n flop", func(n int, r *rand.Rand) kernelCase {
		x, y := randVec(r, n), randVec(r, n)
		// alpha is small so y stays O(1) over ~1e9 calls: no overflow or
		// subnormals to distort the timing.
		return kernelCase{n: n, bytes: 24 * int64(n), flops: 2 * int64(n), loop: func(iters int) {
			for i := 0; i < iters; i++ {
				vec.Axpy(1e-9, x, y)
			}
		}}
	}},
	{"SoftThreshold", "reads 8n B, writes 8n B", func(n int, r *rand.Rand) kernelCase {
		x, dst := randVec(r, n), make([]float64, n)
		// t = 0.5 on uniform [-1, 1] data zeroes half the entries in a
		// random pattern, as in a solver, not a predictable one.
		return kernelCase{n: n, bytes: 16 * int64(n), loop: func(iters int) {
			for i := 0; i < iters; i++ {
				vec.SoftThreshold(dst, x, 0.5)
			}
		}}
	}},
	{"Nrm2", "reads 8n B, 2n flop nominal", func(n int, r *rand.Rand) kernelCase {
		x := randVec(r, n)
		// 2n is the textbook count (a multiply-add per element); the
		// overflow-safe algorithm does more work than that.
		return kernelCase{n: n, bytes: 8 * int64(n), flops: 2 * int64(n), loop: func(iters int) {
			s := 0.0
			for i := 0; i < iters; i++ {
				s += vec.Nrm2(x)
			}
			sink += s
		}}
	}},
	{"MulVec", "square A, n = rows·cols: reads 8(n+cols) B, writes 8·rows B, 2n flop", func(n int, r *rand.Rand) kernelCase {
		return matVecCase(n, r, false)
	}},
	{"MulTransVec", "square A, n = rows·cols: reads 8(n+rows) B, writes 8·cols B, 2n flop", func(n int, r *rand.Rand) kernelCase {
		return matVecCase(n, r, true)
	}},
}

// matVecCase times MulVec (y = Ax) or, with trans, MulTransVec (y = Aᵀx)
// on a nearly square A of about n elements. Both read A and x once and
// write y once: 8(rows·cols + rows + cols) bytes, a multiply-add per
// element of A. MulTransVec walks A by rows and accumulates into y, so y
// is read and written once per pass (per row generically, per four rows
// with AVX2); like every count here, the bytes are the operands touched
// once, not that cache traffic.
func matVecCase(n int, r *rand.Rand, trans bool) kernelCase {
	rows, cols := squareShape(n)
	m := int64(rows * cols)
	c := kernelCase{n: rows * cols, rows: rows, cols: cols, bytes: 8 * (m + int64(rows) + int64(cols)), flops: 2 * m}
	a := randVec(r, rows*cols)
	// Direct calls in each loop: an indirect one would add its own cost
	// to the small sizes.
	if trans {
		x, y := randVec(r, rows), make([]float64, cols)
		c.loop = func(iters int) {
			for i := 0; i < iters; i++ {
				vec.MulTransVec(y, a, rows, cols, x)
			}
		}
	} else {
		x, y := randVec(r, cols), make([]float64, rows)
		c.loop = func(iters int) {
			for i := 0; i < iters; i++ {
				vec.MulVec(y, a, rows, cols, x)
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

func kernelsFlags(fs *FlagSet) RunFunc {
	sizes := fs.String("sizes", defaultSizes(), "comma-separated vector lengths (k, m suffixes: 1024, 1024²)")
	names := fs.String("kernels", "dot,axpy,softthreshold,nrm2,mulvec,multransvec", "comma-separated kernels to time")
	impl := fs.String("impl", "both", "implementation to time: accel, generic or both")
	target := fs.Duration("time", 50*time.Millisecond, "duration of one timing sample")
	reps := fs.Int("reps", 5, "samples per implementation and size (median and min/max reported)")
	var ns []int
	var specs []kernelSpec
	fs.Check(func() (err error) {
		if ns, err = parseSizes(*sizes); err != nil {
			return fmt.Errorf("-sizes: %w", err)
		}
		for _, name := range strings.Split(*names, ",") {
			found := false
			for _, k := range kernelSpecs {
				if strings.EqualFold(k.name, strings.TrimSpace(name)) {
					specs, found = append(specs, k), true
				}
			}
			if !found {
				return fmt.Errorf("-kernels: unknown kernel %q", name)
			}
		}
		switch {
		case *impl != "accel" && *impl != "generic" && *impl != "both":
			return fmt.Errorf("-impl %q: want accel, generic or both", *impl)
		case *reps < 1:
			return fmt.Errorf("-reps %d: want >= 1", *reps)
		case *target <= 0:
			return fmt.Errorf("-time %v: want > 0", *target)
		}
		return nil
	})
	return func(ctx context.Context, env *Env) error {
		return runKernels(ctx, env, specs, ns, *impl, *target, *reps)
	}
}

func runKernels(ctx context.Context, env *Env, specs []kernelSpec, sizes []int, impl string, target time.Duration, reps int) error {
	hasAccel := testhook.VecGeneric(false)
	accelName := ""
	if hasAccel {
		accelName = vec.Impl()
	}
	defer testhook.VecGeneric(false) // restore the start-up choice
	var modes []bool                 // values for testhook.VecGeneric
	switch impl {
	case "both":
		if hasAccel {
			modes = []bool{false, true}
		} else {
			modes = []bool{true}
			env.Note("No accelerated kernels in this build or on this CPU (vec.Impl() = %s): only the generic ones are timed.", vec.Impl())
		}
	case "accel":
		if !hasAccel {
			return fmt.Errorf("-impl accel: no accelerated kernels in this build or on this CPU (vec.Impl() = %s)", vec.Impl())
		}
		modes = []bool{false}
	case "generic":
		modes = []bool{true}
	default:
		return fmt.Errorf("-impl %q: want accel, generic or both", impl)
	}

	res := &KernelsResult{Sizes: sizes, Impl: impl, TargetNs: target.Nanoseconds(), Reps: reps, AccelImpl: accelName}
	for _, k := range specs {
		res.Kernels = append(res.Kernels, k.name)
	}
	env.Results(res)
	// Figures are recorded up front and filled as points finish, so an
	// interrupted run still draws what it measured.
	defer func() {
		if len(res.Points) > 0 {
			env.Figure("gbps", kernelsFigure(res, specs))
			if hasAccel && len(modes) == 2 {
				env.Figure("speedup", speedupFigure(res, specs))
			}
		}
	}()

	env.Note("Each cell: %d samples of about %v each after calibration, implementations interleaved. "+
		"time/op is the median; spread is ± half the min–max range relative to the median; "+
		"GB/s counts each element read or written once; GB/s and GFLOP/s use the median.", reps, target)
	r := rand.New(rand.NewPCG(env.Seed, 0x6b65726e656c73)) // "kernels"
	prog := env.Progress("timing", len(specs)*len(sizes))
	defer prog.Finish()
	for _, k := range specs {
		tab := kernelTable(k, modes, accelName)
		for _, n := range sizes {
			if err := ctx.Err(); err != nil {
				if len(tab.Rows) > 0 {
					env.Table(tab)
				}
				return err
			}
			c := k.setup(n, r)
			prog.Running(fmt.Sprintf("%s n=%s", k.name, FmtSize(c.n)))
			pt, err := measure(ctx, k, c, modes, target, reps)
			if err != nil { // interrupted inside: this point is incomplete
				if len(tab.Rows) > 0 {
					env.Table(tab)
				}
				return err
			}
			res.Points = append(res.Points, pt)
			addKernelRow(tab, pt, modes)
			prog.Done(1)
		}
		env.Table(tab)
	}
	return nil
}

// measure times one kernel case with each implementation in modes:
// calibrate each, then take reps samples alternating between them, so
// drift in machine load (the cores are shared) hits both alike.
func measure(ctx context.Context, k kernelSpec, c kernelCase, modes []bool, target time.Duration, reps int) (KernelPoint, error) {
	pt := KernelPoint{Kernel: k.name, N: c.n, Rows: c.rows, Cols: c.cols, BytesPerOp: c.bytes, FlopsPerOp: c.flops}
	iters := make([]int, len(modes))
	samples := make([][]float64, len(modes))
	for i, generic := range modes {
		testhook.VecGeneric(generic)
		c.loop(1) // warm caches and page in the operands
		iters[i] = calibrate(ctx, c.loop, target)
	}
	for rep := 0; rep < reps; rep++ {
		for i, generic := range modes {
			if err := ctx.Err(); err != nil {
				return pt, err
			}
			testhook.VecGeneric(generic)
			d := timeIt(c.loop, iters[i])
			samples[i] = append(samples[i], float64(d.Nanoseconds())/float64(iters[i]))
		}
	}
	for i, generic := range modes {
		testhook.VecGeneric(generic)
		st := Summarize(samples[i])
		t := &Timing{Impl: vec.Impl(), Iters: iters[i], Ns: st,
			GBps: float64(c.bytes) / st.Median, GBpsLo: float64(c.bytes) / st.Max, GBpsHi: float64(c.bytes) / st.Min}
		if c.flops > 0 {
			t.GFlops = float64(c.flops) / st.Median
		}
		if generic {
			pt.Generic = t
		} else {
			pt.Accel = t
		}
	}
	testhook.VecGeneric(false)
	if pt.Accel != nil && pt.Generic != nil {
		pt.Speedup = pt.Generic.Ns.Median / pt.Accel.Ns.Median
	}
	return pt, nil
}

func kernelTable(k kernelSpec, modes []bool, accelName string) *Table {
	t := &Table{Title: k.name + " (" + k.desc + ")", Columns: []string{"n"}}
	for _, generic := range modes {
		name := accelName
		if generic {
			name = "generic"
		}
		t.Columns = append(t.Columns, name+" time/op", "spread", "GB/s", "GFLOP/s")
	}
	if len(modes) == 2 {
		t.Columns = append(t.Columns, "speedup")
	}
	return t
}

func addKernelRow(t *Table, pt KernelPoint, modes []bool) {
	row := []string{FmtSize(pt.N)}
	for _, generic := range modes {
		tm := pt.Accel
		if generic {
			tm = pt.Generic
		}
		gf := "–"
		if tm.GFlops > 0 {
			gf = FmtSig(tm.GFlops, 3)
		}
		row = append(row, FmtNs(tm.Ns.Median), "±"+FmtSig(tm.Ns.Spread(), 2)+"%", FmtSig(tm.GBps, 3), gf)
	}
	if len(modes) == 2 {
		row = append(row, FmtSig(pt.Speedup, 3)+"×")
	}
	t.Add(row...)
}

// kernelsFigure draws GB/s against n, one panel per kernel, one series per
// implementation, with bars from the slowest to the fastest sample.
func kernelsFigure(res *KernelsResult, specs []kernelSpec) *svgplot.Figure {
	f := &svgplot.Figure{Title: "vec kernels: throughput (bytes touched / time)", Columns: min(3, len(specs))}
	for _, k := range specs {
		p := svgplot.Plot{Title: k.name, X: svgplot.Axis{Label: "n", Scale: svgplot.Log10},
			Y: svgplot.Axis{Label: "GB/s", IncludeZero: true}}
		for _, generic := range []bool{false, true} {
			var s svgplot.Series
			for _, pt := range res.Points {
				tm := pt.Accel
				if generic {
					tm = pt.Generic
				}
				if pt.Kernel != k.name || tm == nil {
					continue
				}
				s.Name = tm.Impl
				s.X = append(s.X, float64(pt.N))
				s.Y = append(s.Y, tm.GBps)
				s.Lo = append(s.Lo, tm.GBpsLo)
				s.Hi = append(s.Hi, tm.GBpsHi)
			}
			if len(s.X) > 0 {
				s.Dashed = generic
				p.Series = append(p.Series, s)
			}
		}
		f.Panels = append(f.Panels, p)
	}
	return f
}

// speedupRefName is the legend entry of the speedup figure's 1× line.
const speedupRefName = "1× (no speedup)"

// speedupFigure draws generic/accelerated time against n for all kernels.
func speedupFigure(res *KernelsResult, specs []kernelSpec) *svgplot.Figure {
	p := svgplot.Plot{Title: "speedup of " + res.AccelImpl + " over generic", Legend: svgplot.LegendOutside,
		X: svgplot.Axis{Label: "n", Scale: svgplot.Log10}, Y: svgplot.Axis{Label: "speedup (×)", IncludeZero: true}}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, k := range specs {
		s := svgplot.Series{Name: k.name}
		for _, pt := range res.Points {
			if pt.Kernel == k.name && pt.Speedup > 0 {
				s.X = append(s.X, float64(pt.N))
				s.Y = append(s.Y, pt.Speedup)
				lo, hi = math.Min(lo, float64(pt.N)), math.Max(hi, float64(pt.N))
			}
		}
		p.Series = append(p.Series, s)
	}
	if lo <= hi { // a grey line at 1×: above it the accelerated kernel wins
		p.Series = append(p.Series, svgplot.Series{Name: speedupRefName, X: []float64{lo, hi}, Y: []float64{1, 1},
			Color: "#999999", Dashed: true, Marker: svgplot.MarkerNone})
	}
	return &svgplot.Figure{Panels: []svgplot.Plot{p}, PanelWidth: 560}
}
