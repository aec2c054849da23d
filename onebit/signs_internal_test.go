package onebit

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neadmm/neadmm/internal/vectest"
	"github.com/neadmm/neadmm/vec"
)

// TestMulSigns checks that operator.mulSigns gives the signs of the dense
// product, bit for bit, on a sign matrix and iterates on BIHT's lattice
// (integer multiples of one step, where many rows sum to 0 in exact
// arithmetic and rounding decides the dense product's sign), on every
// kernel path (vectest.ForEach: AVX-512, AVX2, generic; NEON on arm64),
// that the plain gather (mulSparse) gets some of those signs wrong (so
// the check can fail: with no slack, mulSigns fails it), that its column
// cache is emptied for another problem, and its cost accounting and
// allocations.
func TestMulSigns(t *testing.T) {
	vectest.ForEach(t, func(t *testing.T, _ vec.Kernels) { testMulSigns(t) })
}

func testMulSigns(t *testing.T) {
	const m, n = 203, 1000 // m not a multiple of 4: the last rows too
	_, p := rademacherFor(t, m, n, 10, 0, 7)
	rng := rand.New(rand.NewPCG(8, 9))
	var op operator
	op.setFull(p)
	dense, got, plain := make([]float64, m), make([]float64, m), make([]float64, m)
	wrong, redone := 0, 0
	for trial := range 200 {
		nz := []int{1, 2, 5, 10, 20, n / gatherCols, 40}[trial%7]
		x := make([]float64, n)
		step := 0.5 / float64(m) / 3 // not a power of two
		for _, j := range rng.Perm(n)[:nz] {
			x[j] = step * float64(rng.IntN(7)-3)
		}
		vec.MulVec(dense, p.phi, m, n, x)
		w0 := op.work
		op.mulSigns(got, x)
		for i := range got {
			if sign(got[i]) != sign(dense[i]) {
				t.Fatalf("nz=%d row %d: sign of %g, dense %g", nz, i, got[i], dense[i])
			}
		}
		nzx := len(appendNonzeros(nil, x))
		w := op.work - w0
		switch {
		case nzx*gatherCols >= n:
			if w < 1-1e-9 || w > 1+1e-9 {
				t.Errorf("nz=%d: dense work %g, want 1", nzx, w)
			}
		case w < float64(nzx)/float64(n)-1e-9 || w > float64(nzx)/float64(n)+1+1e-9: // op.work's sums round
			t.Errorf("nz=%d: work %g", nzx, w)
		default:
			redone += int((w-float64(nzx)/float64(n))*float64(m) + 0.5)
		}
		op.mulSparse(plain, x)
		for i := range plain {
			if sign(plain[i]) != sign(dense[i]) {
				wrong++
			}
		}
	}
	// Another problem of the same size on the same operator: its
	// column cache must not serve the first one's columns.
	_, p2 := rademacherFor(t, m, n, 10, 0, 8)
	op.setFull(p2)
	for trial := range 20 {
		x := make([]float64, n)
		for _, j := range rng.Perm(n)[:10] {
			x[j] = float64(trial%3 + 1)
		}
		vec.MulVec(dense, p2.phi, m, n, x)
		op.mulSigns(got, x)
		for i := range got {
			if sign(got[i]) != sign(dense[i]) {
				t.Fatalf("second problem, trial %d row %d: sign of %g, dense %g", trial, i, got[i], dense[i])
			}
		}
	}
	t.Logf("rows recomputed densely: %d; signs the plain gather got wrong: %d (of %d)", redone, wrong, 200*m)
	if wrong == 0 || redone == 0 {
		t.Errorf("no ambiguous row (plain gather wrong %d times, %d rows recomputed): the test does not test", wrong, redone)
	}
	x := make([]float64, n)
	x[3], x[500] = 1, -1
	if allocs := testing.AllocsPerRun(10, func() { op.mulSigns(got, x) }); allocs != 0 {
		t.Errorf("mulSigns allocates %g times per call", allocs)
	}
}

// TestPolishSignsIdentical checks that BIHT run as the polish runs it on
// a sign matrix (gathered products keeping the dense signs) gives the
// iterates of the dense products bit for bit, with less work, on
// Rademacher instances told a K near and at the truth, on every kernel
// path.
func TestPolishSignsIdentical(t *testing.T) {
	vectest.ForEach(t, func(t *testing.T, _ vec.Kernels) { testPolishSignsIdentical(t) })
}

func testPolishSignsIdentical(t *testing.T) {
	const m, n = 250, 1000
	ctx := context.Background()
	for seed := uint64(0); seed < 6; seed++ {
		_, p := rademacherFor(t, m, n, 20, 0, 200+seed)
		for _, k := range []int{19, 20, 22} {
			var dw, sw bihtWork
			dw.op.setFull(p)
			sw.op.setFull(p)
			sw.gather, sw.signs = true, true
			xd, xs := make([]float64, n), make([]float64, n)
			rd, err := dw.run(ctx, &dw.op, p.y, xd, k, polishMaxIter, polishPatience)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := sw.run(ctx, &sw.op, p.y, xs, k, polishMaxIter, polishPatience)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(xd, xs) || rd.Iterations != rs.Iterations || rd.Hamming != rs.Hamming {
				t.Fatalf("seed %d K %d: iterates differ (%d and %d iterations, Hamming %g and %g)",
					seed, k, rd.Iterations, rs.Iterations, rd.Hamming, rs.Hamming)
			}
			if !(rs.Work < rd.Work/2) {
				t.Errorf("seed %d K %d: work %g with the gather, %g dense", seed, k, rs.Work, rd.Work)
			}
		}
	}
}
