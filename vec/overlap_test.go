package vec_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/internal/vectest"
	"github.com/neadmm/neadmm/vec"
)

// The aliasing rule of each kernel (see the Aliasing lines of the doc
// comments), as data: the tests below place each pair of arguments in one
// buffer at every relative position that matters and check that the call
// panics exactly when the rule says, with the message it names, and
// otherwise gives the bits of the call on separate copies.

// aliasKind is what a pair of arguments may share.
type aliasKind int

const (
	aliasFree    aliasKind = iota // two inputs: any overlap
	aliasExactOK                  // an elementwise output and input: the same slice, nothing else
	aliasNone                     // an output and a matrix product's operand: nothing
)

// aliasPair is one pair of a kernel's arguments (indices into its
// arguments; for a pair with an output, the output first).
type aliasPair struct {
	first, second int
	kind          aliasKind
}

// aliasKernel is one kernel at one size: its arguments' names and
// lengths, a call on k (returning Dot's result, 0 for the others), and its
// pairs.
type aliasKernel struct {
	fn    string
	names []string
	lens  []int
	call  func(k vec.Kernels, v [][]float64) float64
	pairs []aliasPair
}

// aliasPhi is GradSweep's map in these tests: it depends on ax.
func aliasPhi(i int, v float64) float64 { return v/2 - float64(i) }

// elementwiseKernels returns the elementwise kernels at length n.
func elementwiseKernels(n int) []aliasKernel {
	l2, l3 := []int{n, n}, []int{n, n, n}
	return []aliasKernel{
		{"Dot", []string{"x", "y"}, l2, func(k vec.Kernels, v [][]float64) float64 { return k.Dot(v[0], v[1]) },
			[]aliasPair{{0, 1, aliasFree}}},
		{"Axpy", []string{"y", "x"}, l2, func(k vec.Kernels, v [][]float64) float64 { k.Axpy(-0.75, v[1], v[0]); return 0 },
			[]aliasPair{{0, 1, aliasExactOK}}},
		{"SoftThreshold", []string{"dst", "x"}, l2, func(k vec.Kernels, v [][]float64) float64 { k.SoftThreshold(v[0], v[1], 0.5); return 0 },
			[]aliasPair{{0, 1, aliasExactOK}}},
		{"AddScaledTo", []string{"dst", "y", "x"}, l3, func(k vec.Kernels, v [][]float64) float64 { k.AddScaledTo(v[0], v[1], 1.25, v[2]); return 0 },
			[]aliasPair{{0, 1, aliasExactOK}, {0, 2, aliasExactOK}, {1, 2, aliasFree}}},
		{"Sub", []string{"dst", "x", "y"}, l3, func(k vec.Kernels, v [][]float64) float64 { k.Sub(v[0], v[1], v[2]); return 0 },
			[]aliasPair{{0, 1, aliasExactOK}, {0, 2, aliasExactOK}, {1, 2, aliasFree}}},
	}
}

// matrixKernels returns the matrix kernels at rows x cols.
func matrixKernels(rows, cols int) []aliasKernel {
	return []aliasKernel{
		{"MulVec", []string{"dst", "a", "x"}, []int{rows, rows * cols, cols},
			func(k vec.Kernels, v [][]float64) float64 { k.MulVec(v[0], v[1], rows, cols, v[2]); return 0 },
			[]aliasPair{{0, 1, aliasNone}, {0, 2, aliasNone}, {1, 2, aliasFree}}},
		{"MulTransVec", []string{"dst", "a", "x"}, []int{cols, rows * cols, rows},
			func(k vec.Kernels, v [][]float64) float64 { k.MulTransVec(v[0], v[1], rows, cols, v[2]); return 0 },
			[]aliasPair{{0, 1, aliasNone}, {0, 2, aliasNone}, {1, 2, aliasFree}}},
		{"GradSweep", []string{"ax", "g", "a", "x"}, []int{rows, cols, rows * cols, cols},
			func(k vec.Kernels, v [][]float64) float64 {
				k.GradSweep(v[0], v[1], v[2], cols, v[3], aliasPhi)
				return 0
			},
			[]aliasPair{{0, 1, aliasNone}, {0, 2, aliasNone}, {0, 3, aliasNone}, {1, 2, aliasNone}, {1, 3, aliasNone}, {2, 3, aliasFree}}},
	}
}

// aliasShifts returns the offsets s of the first slice's start from the
// second's (lengths n1, n2) at which to place them: adjacent on either
// side (s = -n1, s = n2: no overlap), overlapping by one element from
// either side (s = -n1+1, s = n2-1), the same start, the first centred on
// the second, and for an empty slice every position inside the other.
func aliasShifts(n1, n2 int) []int {
	if n1 == 0 || n2 == 0 {
		var ss []int
		for s := -n1; s <= n2; s++ {
			ss = append(ss, s)
		}
		return ss
	}
	ss := []int{-n1, -n1 + 1, 0, (n2 - n1) / 2, n2 - 1, n2}
	slices.Sort(ss)
	return slices.Compact(ss)
}

// wantAliasPanic returns the panic message the kernel must give with its
// pair p placed at shift s, or "" if the call is valid.
func wantAliasPanic(kr aliasKernel, p aliasPair, s int) string {
	n1, n2 := kr.lens[p.first], kr.lens[p.second]
	overlaps := n1 > 0 && n2 > 0 && s < n2 && -s < n1
	switch {
	case !overlaps || p.kind == aliasFree:
		return ""
	case p.kind == aliasExactOK && s == 0 && n1 == n2:
		return ""
	case p.kind == aliasExactOK:
		return fmt.Sprintf("vec.%s: %s partially overlaps %s", kr.fn, kr.names[p.first], kr.names[p.second])
	}
	return fmt.Sprintf("vec.%s: %s overlaps %s", kr.fn, kr.names[p.first], kr.names[p.second])
}

// panicMessage runs f and returns what it panicked with, "" if nothing.
func panicMessage(f func()) (msg string) {
	defer func() {
		if e := recover(); e != nil {
			msg = fmt.Sprint(e)
			if msg == "" {
				msg = "(empty panic)"
			}
		}
	}()
	f()
	return ""
}

// checkAliasing places pair p of kernel kr at shift s in one guarded
// buffer (at offset off), every other argument in its own, and calls the
// kernel on k: a forbidden overlap must panic with its message and leave
// every buffer as it was; any other placement must give the bits of the
// call on separate copies of the arguments, and write nothing outside the
// outputs.
func checkAliasing(t *testing.T, r *rand.Rand, k vec.Kernels, kr aliasKernel, p aliasPair, s, off int) {
	t.Helper()
	n1, n2 := kr.lens[p.first], kr.lens[p.second]
	start2 := max(0, -s)
	start1 := start2 + s
	shared := guarded(r, max(start1+n1, start2+n2), off)
	v := make([][]float64, len(kr.lens))
	gs := []*guard.Vec{shared}
	for i, n := range kr.lens {
		switch i {
		case p.first:
			v[i] = shared.S()[start1 : start1+n : start1+n]
		case p.second:
			v[i] = shared.S()[start2 : start2+n : start2+n]
		default:
			g := guarded(r, n, vecOffset(off, i))
			gs = append(gs, g)
			v[i] = g.S()
		}
	}
	// A signed zero, a subnormal and a large value among the normal ones
	// (finite, so that no result is NaN or infinite whatever it depends
	// on, and the bits compared stay informative).
	if sv := shared.S(); len(sv) > 2 {
		sv[1], sv[len(sv)/2], sv[len(sv)-1] = math.Copysign(0, -1), 5e-324, -0x1p100
	}
	before := make([][]float64, len(gs))
	for i, g := range gs {
		before[i] = append([]float64(nil), g.S()...)
	}
	// The reference: the same values in separate memory.
	ref := make([][]float64, len(v))
	for i := range v {
		ref[i] = append([]float64(nil), v[i]...)
	}
	what := fmt.Sprintf("%s on %s, %s (len %d) at %+d from %s (len %d), offset %d",
		kr.fn, k.Name(), kr.names[p.first], n1, s, kr.names[p.second], n2, off)
	want := wantAliasPanic(kr, p, s)
	var res float64
	got := panicMessage(func() { res = kr.call(k, v) })
	checkGuards(t, what, gs...)
	if want != "" {
		if got != want {
			t.Fatalf("%s: panic %q, want %q", what, got, want)
		}
		for i, g := range gs {
			if !guard.SameBits(g.S(), before[i]) {
				t.Fatalf("%s: panicked after writing", what)
			}
		}
		return
	}
	if got != "" {
		t.Fatalf("%s: panic %q, want none", what, got)
	}
	if want := kr.call(k, ref); math.Float64bits(res) != math.Float64bits(want) {
		t.Fatalf("%s: result %v, on separate copies %v", what, res, want)
	}
	exact := s == 0 && n1 == n2 && p.kind == aliasExactOK
	for i := range v {
		// An input that is an output's memory holds the output.
		if exact && i == p.second {
			continue
		}
		if !guard.SameBits(v[i], ref[i]) {
			t.Fatalf("%s: %s = %v, on separate copies %v", what, kr.names[i], v[i], ref[i])
		}
	}
}

// TestAliasing checks every kernel's aliasing rule on every
// implementation: for each pair of arguments, at lengths through the
// kernels' loops and tails and matrix shapes through their blocks, the
// exact aliasing an elementwise kernel allows and any overlap of inputs
// give the same bits as separate slices; every other overlap (exact where
// forbidden, by one element from either side, one slice inside the other)
// panics naming the function and the pair, before anything is written;
// adjacent slices in one array and empty slices inside another do not
// panic.
func TestAliasing(t *testing.T) {
	var kernels []aliasKernel
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 71} {
		kernels = append(kernels, elementwiseKernels(n)...)
	}
	for _, sh := range [][2]int{{0, 0}, {0, 3}, {3, 0}, {1, 1}, {2, 2}, {4, 4}, {5, 5}, {8, 8}, {9, 9}, {5, 7}, {7, 5}, {12, 3}, {3, 12}, {13, 13}} {
		kernels = append(kernels, matrixKernels(sh[0], sh[1])...)
	}
	vectest.ForEach(t, func(t *testing.T, k vec.Kernels) {
		r := rand.New(rand.NewPCG(51, 52))
		for _, kr := range kernels {
			for _, p := range kr.pairs {
				for _, s := range aliasShifts(kr.lens[p.first], kr.lens[p.second]) {
					checkAliasing(t, r, k, kr, p, s, (s+len(kr.lens))&7)
				}
			}
		}
	})
}

// TestAliasingIssueCalls checks the calls that gave silently wrong results
// before the kernels checked for overlap: a product written over its own
// x, and GradSweep with ax and g the same slice.
func TestAliasingIssueCalls(t *testing.T) {
	const n = 6
	a := make([]float64, n*n)
	fillNormal(rand.New(rand.NewPCG(53, 54)), a)
	phi := func(_ int, v float64) float64 { return v }
	y0 := []float64{1, 2, 3, 4, 5, 6}
	y := make([]float64, n)
	for _, k := range vec.Implementations() {
		call := func(fn, pair string, f func()) {
			t.Helper()
			copy(y, y0)
			want := "vec." + fn + ": " + pair
			if got := panicMessage(f); got != want {
				t.Errorf("%s: panic %q, want %q", k.Name(), got, want)
			}
			if !guard.SameBits(y, y0) {
				t.Errorf("%s: %s wrote before panicking", k.Name(), fn)
			}
		}
		call("MulVec", "dst overlaps x", func() { k.MulVec(y, a, n, n, y) })
		call("MulTransVec", "dst overlaps x", func() { k.MulTransVec(y, a, n, n, y) })
		call("GradSweep", "ax overlaps g", func() { k.GradSweep(y, y, a, n, make([]float64, n), phi) })
		call("MulVec", "dst overlaps a", func() { k.MulVec(a[:n], a, n, n, y) })
	}
	// The package functions are the methods of the active implementation.
	if got := panicMessage(func() { vec.MulVec(y, a, n, n, y) }); !strings.HasPrefix(got, "vec.MulVec: ") {
		t.Errorf("vec.MulVec(y, a, n, n, y): panic %q", got)
	}
}
