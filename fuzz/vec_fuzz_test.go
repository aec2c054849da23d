package fuzz

import (
	"fmt"
	"math"
	"math/big"
	"runtime"
	"testing"
	_ "unsafe" // for the linkname of setSweepPath

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/vec"
)

// The vec targets. Each decodes one input (layout in the target's comment),
// runs it through every implementation this CPU has (paths) inside guard
// bands, and checks every result against an exact specification.

// FuzzDot checks vec.Dot against sumSpec on every implementation.
//
// Input: length, offsets byte (x at b&7, y at b>>3&7, b&64: y is x),
// scale, then x[0], y[0], x[1], y[1], ...
//
// Seeds: generated values at every length class below; the hard cases
// (NaN, Inf, overflow, underflow, cancellation, ties) are files in
// testdata/fuzz/FuzzDot, each described by the comment after its value.
func FuzzDot(f *testing.F) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 97, 199, 200, 1099} {
		f.Add(new(enc).length(n).bytes(byte(n*5), scaleOne).b) // generated values
	}
	f.Fuzz(checkDot)
}

func checkDot(t *testing.T, data []byte) {
	s := newSource(data)
	n := s.length()
	offs := s.byte()
	s.setScale()
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = s.float(), s.float()
	}
	alias := offs&64 != 0
	if alias {
		y = x
	}
	spec := productSpec(x, y)
	var res []float64
	paths(func(path string, k vec.Kernels) {
		gx, gy := guard.Of(x, int(offs)), guard.Of(y, int(offs>>3))
		ys := gy.S()
		if alias {
			ys = gx.S()
		}
		got := k.Dot(gx.S(), ys)
		res = append(res, got)
		if err := spec.check(got); err != nil {
			t.Errorf("%s: Dot (n = %d, alias %v): %v", path, n, alias, err)
		}
		checkUntouched(t, path+": Dot", gx, x)
		checkUntouched(t, path+": Dot", gy, y)
	})
	for i := 1; i < len(res); i++ {
		if err := spec.checkPair(res[0], res[i]); err != nil {
			t.Errorf("Dot (n = %d): %v and %v: %v", n, res[0], res[i], err)
		}
	}
}

// checkUntouched reports a changed guard or a changed input vector.
func checkUntouched(t *testing.T, what string, g *guard.Vec, want []float64) {
	t.Helper()
	if err := g.Check(); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if !guard.SameBits(g.S(), want) {
		t.Errorf("%s modified its input", what)
	}
}

// Modes of FuzzAxpy: which call, and what dst is.
const (
	axpyInPlace   = iota // Axpy(alpha, x, y)
	addScaledNew         // AddScaledTo(dst, y, alpha, x), dst separate
	addScaledDstX        // AddScaledTo(x, y, alpha, x)
	addScaledDstY        // AddScaledTo(y, y, alpha, x)
	subNew               // Sub(dst, x, y)
	subDstX              // Sub(x, x, y)
	subDstY              // Sub(y, x, y)
	axpySelf             // Axpy(alpha, x, x)
	numAxpyModes
)

// FuzzAxpy checks Axpy, AddScaledTo and Sub with every aliasing the API
// allows, on every implementation: each result must be bit for bit the
// fused alpha*x+y or the unfused one (the fused one on the assembly
// implementations), and x - y exactly for Sub; NaN matches NaN.
//
// Input: length, offsets byte (x at b&7, y at b>>3&7), mode byte (mode%8,
// dst at b>>3&7), scale, alpha, then x[0], y[0], x[1], y[1], ...
//
// Seeds: every mode at several lengths below; the hard cases (0*Inf, NaN
// and -0 alpha, overflow, subnormal results, fused-only differences), each
// with four modes, are files in testdata/fuzz/FuzzAxpy.
func FuzzAxpy(f *testing.F) {
	for mode := range numAxpyModes {
		for _, n := range []int{0, 1, 3, 4, 5, 8, 9, 31, 32, 33, 35, 100} {
			f.Add(new(enc).length(n).bytes(byte(n*3), byte(mode+8*n), scaleOne).f(1.5).b)
		}
	}
	f.Fuzz(checkAxpy)
}

func checkAxpy(t *testing.T, data []byte) {
	s := newSource(data)
	n := s.length()
	offs := s.byte()
	modeB := s.byte()
	mode := int(modeB) % numAxpyModes
	s.setScale()
	alpha := s.float()
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = s.float(), s.float()
	}
	names := [...]string{"Axpy", "AddScaledTo (new dst)", "AddScaledTo (dst = x)", "AddScaledTo (dst = y)",
		"Sub (new dst)", "Sub (dst = x)", "Sub (dst = y)", "Axpy (y = x)"}
	paths(func(path string, k vec.Kernels) {
		fusedOnly := k.Name() != "generic"
		gx, gy := guard.Of(x, int(offs)), guard.Of(y, int(offs>>3))
		gd := guard.Filled(n, int(modeB>>3), guard.Junk) // to be overwritten
		xs, ys, ds := gx.S(), gy.S(), gd.S()
		var out []float64
		var g *guard.Vec
		switch mode {
		case axpyInPlace:
			k.Axpy(alpha, xs, ys)
			out, g = ys, gy
		case addScaledNew:
			k.AddScaledTo(ds, ys, alpha, xs)
			out, g = ds, gd
		case addScaledDstX:
			k.AddScaledTo(xs, ys, alpha, xs)
			out, g = xs, gx
		case addScaledDstY:
			k.AddScaledTo(ys, ys, alpha, xs)
			out, g = ys, gy
		case subNew:
			k.Sub(ds, xs, ys)
			out, g = ds, gd
		case subDstX:
			k.Sub(xs, xs, ys)
			out, g = xs, gx
		case subDstY:
			k.Sub(ys, xs, ys)
			out, g = ys, gy
		case axpySelf:
			k.Axpy(alpha, xs, xs)
			out, g = xs, gx
		}
		what := fmt.Sprintf("%s: %s (n = %d, alpha = %v)", path, names[mode], n, alpha)
		for _, gg := range []*guard.Vec{gx, gy, gd} {
			if err := gg.Check(); err != nil {
				t.Errorf("%s: %v", what, err)
			}
		}
		// Inputs that are not the output must be unchanged.
		if !g.Same(gx) && !guard.SameBits(xs, x) {
			t.Errorf("%s modified x", what)
		}
		if !g.Same(gy) && !guard.SameBits(ys, y) {
			t.Errorf("%s modified y", what)
		}
		for i, got := range out {
			var fused, unfused float64
			switch {
			case mode >= subNew && mode <= subDstY:
				fused = x[i] - y[i]
				unfused = fused
			case mode == axpySelf:
				fused = math.FMA(alpha, x[i], x[i])
				unfused = float64(alpha*x[i]) + x[i] // the conversion forbids fusing
			default:
				fused = math.FMA(alpha, x[i], y[i])
				unfused = float64(alpha*x[i]) + y[i]
			}
			ok := sameValue(got, fused) || !fusedOnly && sameValue(got, unfused)
			if !ok {
				want := fmt.Sprintf("%v (fused)", fused)
				if !fusedOnly {
					want += fmt.Sprintf(" or %v (unfused)", unfused)
				}
				t.Errorf("%s: element %d (x %v, y %v): got %v, want %s", what, i, x[i], y[i], got, want)
				break
			}
		}
	})
}

// sameValue reports whether a and b have the same bits, or are both NaN
// (NaN payloads are not specified).
// sameValues is sameValue element by element. GradSweep's results are
// compared with it, not guard.SameBits: when both operands of a product are NaN,
// which payload survives depends on operand order, and Go may commute a
// product (the fuzzing build's instrumentation changes register allocation
// and did: FuzzMulVec/504094a9b11e04e2). An entry of x left holding the
// guard junk (never written) still fails, even where y is NaN.
func sameValues(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !sameValue(x[i], y[i]) || math.Float64bits(x[i]) == guardBits && math.Float64bits(y[i]) != guardBits {
			return false
		}
	}
	return true
}

func sameValue(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// FuzzSoftThreshold checks SoftThreshold bit for bit against its definition
// (x - t, x + t, or +0 for |x| <= t, -0 included; NaN for NaN), in place and
// not, and that an invalid threshold panics on both paths without writing.
//
// Input: length, offsets byte (x at b&7, dst at b>>3&7), mode byte (b&1: in
// place; b&2: t as decoded, which may be negative, NaN or Inf, else |t|),
// scale, t, then x.
//
// Seeds: lengths below; the special values under nine thresholds, the
// invalid thresholds and the extreme scales are files in
// testdata/fuzz/FuzzSoftThreshold.
func FuzzSoftThreshold(f *testing.F) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 19, 33, 64, 150} {
		f.Add(new(enc).length(n).bytes(byte(n*7), byte(n&1), scaleOne).f(0.5).b)
	}
	f.Fuzz(checkSoftThreshold)
}

func checkSoftThreshold(t *testing.T, data []byte) {
	s := newSource(data)
	n := s.length()
	offs := s.byte()
	mode := s.byte()
	s.setScale()
	th := s.float()
	if mode&2 == 0 {
		th = math.Abs(th)
	}
	x := s.floats(n)
	inPlace := mode&1 != 0
	valid := th >= 0 && !math.IsInf(th, 1)
	want := make([]float64, n)
	for i, v := range x {
		switch {
		case math.IsNaN(v):
			want[i] = math.NaN()
		case v > th:
			want[i] = v - th
		case v < -th:
			want[i] = v + th
		default:
			want[i] = 0 // +0, also for v = -0
		}
	}
	var outs [][]float64
	var names []string
	paths(func(path string, k vec.Kernels) {
		gx := guard.Of(x, int(offs))
		gd := guard.Filled(n, int(offs>>3), guard.Junk)
		xs, ds := gx.S(), gd.S()
		if inPlace {
			ds = xs
		}
		what := fmt.Sprintf("%s: SoftThreshold (n = %d, t = %v, in place %v)", path, n, th, inPlace)
		if !valid {
			if err := expectPanic("vec.SoftThreshold", func() { k.SoftThreshold(ds, xs, th) }); err != nil {
				t.Errorf("%s: %v", what, err)
			}
			checkUntouched(t, what, gx, x)
			checkUntouched(t, what, gd, rep(guard.Junk, n))
			return
		}
		k.SoftThreshold(ds, xs, th)
		if err := gx.Check(); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		if err := gd.Check(); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		if !inPlace && !guard.SameBits(xs, x) {
			t.Errorf("%s modified x", what)
		}
		for i, got := range ds {
			if !sameValue(got, want[i]) {
				t.Errorf("%s: element %d (x = %v): got %v (bits %#x), want %v (bits %#x)",
					what, i, x[i], got, math.Float64bits(got), want[i], math.Float64bits(want[i]))
				break
			}
		}
		outs = append(outs, append([]float64(nil), ds...))
		names = append(names, path)
	})
	// "The same bits on every implementation": NaN payloads included (every
	// path returns the quieted input NaN).
	for i := 1; i < len(outs); i++ {
		if !guard.SameBits(outs[0], outs[i]) {
			t.Errorf("SoftThreshold (t = %v): %s %v and %s %v differ in bits", th, names[0], outs[0], names[i], outs[i])
		}
	}
}

// FuzzNrm2 checks Nrm2 against the exact norm with the error bound and
// overflow promise of its doc, Asum as an exact sum of |x[i]| (sumSpec with
// y = 1), and Scal bit for bit, on every implementation.
//
// Input: length, offset byte, scale, alpha (for Scal), then x.
//
// Seeds: lengths at three scales below; the hard cases (norms at the
// overflow threshold, fast-path boundaries, subnormal norms, NaN and Inf)
// are files in testdata/fuzz/FuzzNrm2.
func FuzzNrm2(f *testing.F) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 15, 16, 17, 32, 33, 100, 1099} {
		f.Add(new(enc).length(n).bytes(byte(n), scaleOne).f(2).b)
		f.Add(new(enc).length(n).bytes(byte(n), scaleHuge).f(0.5).b)
		f.Add(new(enc).length(n).bytes(byte(n), scaleTiny).f(0x1p1000).b)
	}
	f.Fuzz(checkNrm2)
}

func checkNrm2(t *testing.T, data []byte) {
	s := newSource(data)
	n := s.length()
	off := s.byte()
	s.setScale()
	alpha := s.float()
	x := s.floats(n)
	abs := make([]float64, n)
	for i, v := range x {
		abs[i] = math.Abs(v)
	}
	asum := productSpec(abs, rep(1, n))
	paths(func(path string, k vec.Kernels) {
		g := guard.Of(x, int(off))
		got := k.Nrm2(g.S())
		if err := checkNorm(x, got); err != nil {
			t.Errorf("%s: Nrm2 (n = %d): %v", path, n, err)
		}
		checkUntouched(t, path+": Nrm2", g, x)
		if err := asum.check(vec.Asum(g.S())); err != nil {
			t.Errorf("%s: Asum (n = %d): %v", path, n, err)
		}
		checkUntouched(t, path+": Asum", g, x)
		vec.Scal(alpha, g.S())
		if err := g.Check(); err != nil {
			t.Errorf("%s: Scal: %v", path, err)
		}
		for i, v := range g.S() {
			if want := alpha * x[i]; !sameValue(v, want) {
				t.Errorf("%s: Scal(%v): element %d (x = %v): got %v, want %v", path, alpha, i, x[i], v, want)
				break
			}
		}
	})
}

// checkNorm checks a computed Euclidean norm of x against vec.Nrm2's
// promise: NaN for a NaN input, +Inf for an infinite one, else relative
// error below (n+2)*2^-52 plus 2^-1074 absolute for a subnormal norm, and
// +Inf only when the norm overflows (to within that bound).
func checkNorm(x []float64, got float64) error {
	hasInf := false
	for _, v := range x {
		if math.IsNaN(v) {
			if math.IsNaN(got) {
				return nil
			}
			return fmt.Errorf("got %v, want NaN", got)
		}
		hasInf = hasInf || math.IsInf(v, 0)
	}
	if hasInf {
		if math.IsInf(got, 1) {
			return nil
		}
		return fmt.Errorf("got %v, want +Inf", got)
	}
	sq := newExact()
	var b big.Float
	for _, v := range x {
		b.SetFloat64(v)
		sq.Add(sq, new(big.Float).Mul(&b, &b))
	}
	norm := new(big.Float).SetPrec(256).Sqrt(sq) // relative error 2^-255
	rel := float64(len(x)+2)*0x1p-52 + 0x1p-250
	bound := new(big.Float).Mul(norm, big.NewFloat(rel))
	if norm.Cmp(big64(0x1p-1022)) < 0 {
		bound.Add(bound, big64(0x1p-1074))
	}
	if math.IsInf(got, 1) {
		// Inf is the rounding of a value >= overflowAt.
		if new(big.Float).Add(norm, bound).Cmp(overflowAt) >= 0 {
			return nil
		}
		return fmt.Errorf("got +Inf, want %s: the norm does not overflow", fmtBig(norm))
	}
	if math.IsNaN(got) || math.IsInf(got, -1) || got < 0 {
		return fmt.Errorf("got %v, want %s", got, fmtBig(norm))
	}
	diff := new(big.Float).Sub(big64(got), norm)
	if diff.Abs(diff).Cmp(bound) > 0 {
		r, _ := new(big.Float).Quo(diff, bound).Float64()
		return fmt.Errorf("got %v, want %s: error %s is %.3g times the bound", got, fmtBig(norm), fmtBig(diff), r)
	}
	return nil
}

// FuzzMulVec checks every entry of MulVec and MulTransVec against sumSpec
// for its row (column) on both paths, with garbage in dst beforehand, and
// that mismatched dimensions and overlapping arguments panic.
//
// Input: rows byte (b%14 below 224, else 14+(b-224)*4), cols byte (b%40
// below 200, else 40+(b-200)*5; rows*cols is capped at 4096), offsets byte
// (a at b&7, x at b>>3&7), mode byte (b>>3&7: dst offset; b == 255: the
// dimension and overlap checks), scale, then a (row-major), x (cols), x
// for MulTransVec (rows).
//
// Seeds: shapes below, and the argument checks at a square shape (where an
// output can be its input exactly); the capped maximum shape, the
// dimension checks, the extreme scales and a matrix of special values are
// files in testdata/fuzz/FuzzMulVec.
func FuzzMulVec(f *testing.F) {
	for _, rc := range [][2]int{{0, 0}, {0, 3}, {3, 0}, {1, 1}, {4, 4}, {5, 7}, {8, 8}, {9, 13}, {13, 39}, {4, 33}, {12, 17}} {
		f.Add(new(enc).bytes(byte(rc[0]), byte(rc[1]), byte(rc[0]*9+rc[1]), 0, scaleOne).b)
	}
	f.Add(new(enc).bytes(6, 6, 0, 255, scaleOne).b)
	f.Fuzz(checkMulVec)
}

func checkMulVec(t *testing.T, data []byte) {
	s := newSource(data)
	rb, cb := int(s.byte()), int(s.byte())
	rows, cols := rb%14, cb%40
	if rb >= 224 {
		rows = 14 + (rb-224)*4
	}
	if cb >= 200 {
		cols = 40 + (cb-200)*5
	}
	for rows*cols > 4096 { // the exact oracle costs O(rows*cols) big.Float operations
		rows /= 2
	}
	offs := s.byte()
	mode := s.byte()
	s.setScale()
	a := s.floats(rows * cols)
	x := s.floats(cols)
	xt := s.floats(rows)
	rowSpec := make([]*sumSpec, rows)
	for i := range rowSpec {
		rowSpec[i] = productSpec(a[i*cols:(i+1)*cols], x)
	}
	colSpec := make([]*sumSpec, cols)
	col := make([]float64, rows)
	for j := range colSpec {
		for i := range col {
			col[i] = a[i*cols+j]
		}
		colSpec[j] = productSpec(col, xt)
	}
	paths(func(path string, k vec.Kernels) {
		ga, gx, gxt := guard.Of(a, int(offs)), guard.Of(x, int(offs>>3)), guard.Of(xt, int(offs>>3))
		if mode == 255 {
			dimensionPanics(t, path, k, ga.S(), rows, cols, gx.S(), gxt.S())
			overlapPanics(t, path, k, ga.S(), rows, cols, gx.S(), gxt.S())
		}
		gd := guard.Filled(rows, int(mode>>3), guard.Junk)
		k.MulVec(gd.S(), ga.S(), rows, cols, gx.S())
		what := fmt.Sprintf("%s: MulVec (%d x %d)", path, rows, cols)
		if err := gd.Check(); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		checkUntouched(t, what, ga, a)
		checkUntouched(t, what, gx, x)
		for i, got := range gd.S() {
			if err := rowSpec[i].check(got); err != nil {
				t.Errorf("%s: row %d: %v", what, i, err)
			}
		}
		ax := gd.S()
		gt := guard.Filled(cols, int(mode>>3), guard.Junk)
		k.MulTransVec(gt.S(), ga.S(), rows, cols, gxt.S())
		what = fmt.Sprintf("%s: MulTransVec (%d x %d)", path, rows, cols)
		if err := gt.Check(); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		checkUntouched(t, what, ga, a)
		checkUntouched(t, what, gxt, xt)
		for j, got := range gt.S() {
			if err := colSpec[j].check(got); err != nil {
				t.Errorf("%s: column %d: %v", what, j, err)
			}
		}
		checkGradSweep(t, path, k, ga, gx, rows, cols, xt, ax, gt.S(), int(mode))
	})
}

// setSweepPath is vec's unexported test switch of GradSweep's paths (see
// its doc there).
//
//go:linkname setSweepPath github.com/neadmm/neadmm/vec.setSweepPath
func setSweepPath(mode string) (restore func(), ok bool)

// sweepPaths are the GradSweep paths the fuzz targets run: on amd64 each
// pipeline for every matrix (the thresholds that choose them need matrices
// larger than a fuzz input), elsewhere GradSweep's own choice.
func sweepPaths() []string {
	if runtime.GOARCH == "amd64" {
		return []string{"auto", "rows", "groups"}
	}
	return []string{"auto"}
}

// checkGradSweep runs GradSweep on each of sweepPaths with phi(i, v) =
// xt[i], so that its g is A^T xt, and checks that ax and g are the same
// bits as MulVec's (ax) and MulTransVec's (g) on the same implementation,
// hence within their specs; that phi saw each row once, in order, with the
// final ax[i]; and that nothing outside ax and g changed. A second run with
// phi(i, v) = v*xt[i] (w depends on ax) must match MulVec, the map and
// MulTransVec bit for bit (NaN payloads aside: see sameValues).
func checkGradSweep(t *testing.T, path string, k vec.Kernels, ga, gx *guard.Vec, rows, cols int, xt, wantAx, wantG []float64, mode int) {
	t.Helper()
	for _, sp := range sweepPaths() {
		restore, ok := setSweepPath(sp)
		if !ok {
			t.Fatalf("vec cannot set GradSweep path %q", sp)
		}
		checkGradSweepPath(t, fmt.Sprintf("%s, path %s", path, sp), k, ga, gx, rows, cols, xt, wantAx, wantG, mode)
		restore()
	}
}

// checkGradSweepPath is checkGradSweep on the path set.
func checkGradSweepPath(t *testing.T, path string, k vec.Kernels, ga, gx *guard.Vec, rows, cols int, xt, wantAx, wantG []float64, mode int) {
	t.Helper()
	a, x := append([]float64(nil), ga.S()...), append([]float64(nil), gx.S()...)
	what := fmt.Sprintf("%s: GradSweep (%d x %d)", path, rows, cols)
	for _, mapped := range []bool{false, true} {
		gax := guard.Filled(rows, mode>>3, guard.Junk)
		gg := guard.Filled(cols, mode, guard.Junk)
		next := 0
		phi := func(i int, v float64) float64 {
			if i != next || !sameValue(v, gax.S()[i]) {
				t.Errorf("%s: phi(%d, %v) called after row %d, ax[%d] = %v", what, i, v, next-1, i, gax.S()[i])
			}
			next++
			if mapped {
				return v * xt[i]
			}
			return xt[i]
		}
		k.GradSweep(gax.S(), gg.S(), ga.S(), cols, gx.S(), phi)
		if next != rows {
			t.Errorf("%s: phi called for %d of %d rows", what, next, rows)
		}
		for _, g := range []*guard.Vec{gax, gg} {
			if err := g.Check(); err != nil {
				t.Errorf("%s: %v", what, err)
			}
		}
		checkUntouched(t, what, ga, a)
		checkUntouched(t, what, gx, x)
		wg := wantG
		if mapped {
			w := make([]float64, rows)
			for i, v := range wantAx {
				w[i] = v * xt[i]
			}
			wg = make([]float64, cols)
			k.MulTransVec(wg, a, rows, cols, w)
		}
		if !sameValues(gax.S(), wantAx) {
			t.Errorf("%s (w depends on ax: %v): ax %v, MulVec %v", what, mapped, gax.S(), wantAx)
		}
		if !sameValues(gg.S(), wg) {
			t.Errorf("%s (w depends on ax: %v): g %v, MulTransVec %v", what, mapped, gg.S(), wg)
		}
	}
}

// dimensionPanics checks that MulVec, MulTransVec and GradSweep panic,
// naming themselves, on every kind of dimension mismatch.
func dimensionPanics(t *testing.T, path string, k vec.Kernels, a []float64, rows, cols int, x, xt []float64) {
	t.Helper()
	bad := func(what, name string, f func()) {
		if err := expectPanic(name, f); err != nil {
			t.Errorf("%s: %s: %v", path, what, err)
		}
	}
	dst := make([]float64, rows+cols+1)
	g := make([]float64, cols+1)
	phi := func(int, float64) float64 { return 0 }
	bad("MulVec with a long dst", "vec.MulVec", func() { k.MulVec(dst[:rows+1], a, rows, cols, x) })
	bad("MulVec with a long x", "vec.MulVec", func() { k.MulVec(dst[:rows], a, rows, cols, append(x[:cols:cols], 1)) })
	bad("MulVec with negative rows", "vec.MulVec", func() { k.MulVec(dst[:0], a, -1, cols, x) })
	bad("MulVec with a long a", "vec.MulVec", func() { k.MulVec(dst[:rows], append(a[:len(a):len(a)], 0), rows, cols, x) })
	bad("MulTransVec with a long dst", "vec.MulTransVec", func() { k.MulTransVec(dst[:cols+1], a, rows, cols, xt) })
	bad("MulTransVec with a long x", "vec.MulTransVec", func() { k.MulTransVec(dst[:cols], a, rows, cols, append(xt[:rows:rows], 1)) })
	bad("MulTransVec with negative cols", "vec.MulTransVec", func() { k.MulTransVec(dst[:0], a, rows, -1, xt) })
	if cols > 0 { // with no columns, a (empty) is a matrix of any number of rows
		bad("GradSweep with a long ax", "vec.GradSweep", func() { k.GradSweep(dst[:rows+1], g[:cols], a, cols, x, phi) })
	}
	bad("GradSweep with a long g", "vec.GradSweep", func() { k.GradSweep(dst[:rows], g, a, cols, x, phi) })
	bad("GradSweep with a long x", "vec.GradSweep", func() { k.GradSweep(dst[:rows], g[:cols], a, cols, append(x[:cols:cols], 1), phi) })
	bad("GradSweep with a long a", "vec.GradSweep", func() { k.GradSweep(dst[:rows], g[:cols], append(a[:len(a):len(a)], 0), cols, x, phi) })
	bad("GradSweep with negative cols", "vec.GradSweep", func() { k.GradSweep(dst[:rows], g[:0], a, -1, x, phi) })
	bad("GradSweep with nil phi", "vec.GradSweep", func() { k.GradSweep(dst[:rows], g[:cols], a, cols, x, nil) })
}

// joined returns copies of u and v in one new array, v's starting shift
// elements after u's: shift = len(u) places them side by side, a smaller
// one makes them overlap (v's values win there).
func joined(u, v []float64, shift int) (uj, vj []float64) {
	buf := make([]float64, max(len(u), shift+len(v)))
	copy(buf, u)
	copy(buf[shift:], v)
	return buf[:len(u):len(u)], buf[shift : shift+len(v) : shift+len(v)]
}

// overlapPanics checks that MulVec, MulTransVec and GradSweep panic with
// their names and the pair when an output overlaps an input, or
// GradSweep's other output, by one element from either side or (where the
// lengths agree) exactly; and that outputs side by side with their inputs
// in one array give the bits of separate slices.
func overlapPanics(t *testing.T, path string, k vec.Kernels, a []float64, rows, cols int, x, xt []float64) {
	t.Helper()
	bad := func(what, msg string, f func()) {
		if err := expectPanic(msg, f); err != nil {
			t.Errorf("%s: %s: %v", path, what, err)
		}
	}
	phi := func(_ int, v float64) float64 { return v / 2 }
	dr, dc := rep(guard.Junk, rows), rep(guard.Junk, cols)
	if rows > 0 && cols > 0 {
		mulVec := func(dst, x []float64) func() { return func() { k.MulVec(dst, a, rows, cols, x) } }
		mulTransVec := func(dst, x []float64) func() { return func() { k.MulTransVec(dst, a, rows, cols, x) } }
		sweep := func(ax, g, x []float64) func() { return func() { k.GradSweep(ax, g, a, cols, x, phi) } }
		d, xj := joined(dr, x, rows-1)
		bad("MulVec, dst's last element x's first", "vec.MulVec: dst overlaps x", mulVec(d, xj))
		xj, d = joined(x, dr, cols-1)
		bad("MulVec, x's last element dst's first", "vec.MulVec: dst overlaps x", mulVec(d, xj))
		aj, d := joined(a, dr, len(a)-1)
		bad("MulVec, dst's first element a's last", "vec.MulVec: dst overlaps a", func() { k.MulVec(d, aj, rows, cols, x) })
		d, xj = joined(dc, xt, cols-1)
		bad("MulTransVec, dst's last element x's first", "vec.MulTransVec: dst overlaps x", mulTransVec(d, xj))
		d, aj = joined(dc, a, cols-1)
		bad("MulTransVec, dst's last element a's first", "vec.MulTransVec: dst overlaps a", func() { k.MulTransVec(d, aj, rows, cols, xt) })
		ax, g := joined(dr, dc, rows-1)
		bad("GradSweep, ax's last element g's first", "vec.GradSweep: ax overlaps g", sweep(ax, g, x))
		g, xj = joined(dc, x, cols-1)
		bad("GradSweep, g's last element x's first", "vec.GradSweep: g overlaps x", sweep(dr, g, xj))
		xj, ax = joined(x, dr, cols-1)
		bad("GradSweep, x's last element ax's first", "vec.GradSweep: ax overlaps x", sweep(ax, dc, xj))
		if rows == cols {
			v := append([]float64(nil), x...)
			bad("MulVec(x, a, n, n, x)", "vec.MulVec: dst overlaps x", mulVec(v, v))
			bad("MulTransVec(x, a, n, n, x)", "vec.MulTransVec: dst overlaps x", mulTransVec(v, v))
			bad("GradSweep(v, v, a, n, x)", "vec.GradSweep: ax overlaps g", sweep(v, v, x))
		}
	}
	// Side by side: no overlap, the bits of separate slices.
	wantAx, wantG := rep(guard.Junk, rows), rep(guard.Junk, cols)
	k.GradSweep(wantAx, wantG, a, cols, x, phi)
	v := sideBySide(dr, dc, x, a)
	k.GradSweep(v[0], v[1], v[3], cols, v[2], phi)
	if !sameValues(v[0], wantAx) || !sameValues(v[1], wantG) {
		t.Errorf("%s: GradSweep with ax, g, x and a side by side: ax %v g %v, on separate slices %v %v", path, v[0], v[1], wantAx, wantG)
	}
	k.MulVec(wantAx, a, rows, cols, x)
	v = sideBySide(x, dr, a)
	k.MulVec(v[1], v[2], rows, cols, v[0])
	if !sameValues(v[1], wantAx) {
		t.Errorf("%s: MulVec with x, dst and a side by side: %v, on separate slices %v", path, v[1], wantAx)
	}
}

// sideBySide returns copies of vs one after another in one new array.
func sideBySide(vs ...[]float64) [][]float64 {
	n := 0
	for _, v := range vs {
		n += len(v)
	}
	buf := make([]float64, 0, n)
	out := make([][]float64, len(vs))
	for i, v := range vs {
		buf = append(buf, v...)
		out[i] = buf[len(buf)-len(v) : len(buf) : len(buf)]
	}
	return out
}
