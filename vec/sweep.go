package vec

import (
	"math"
	_ "unsafe" // for the linkname of setSweepPath
)

// GradSweep sets ax = A x and g = A^T w with w[i] = phi(i, ax[i]), where A is
// len(ax) x cols row-major in a, in one pass over the rows of A: each block
// of rows is multiplied by x, mapped through phi, and added into g while it
// is still in the L1 or L2 cache, so A comes from memory once instead of
// twice. With phi the derivative of a loss that sees row i only through
// (Ax)_i (the one-sided quadratic of 1-bit compressive sensing, logistic,
// squared), g is the gradient of sum_i loss_i((Ax)_i).
//
// phi is called exactly once per row, in increasing i, on the calling
// goroutine, after ax[i] is final and before g is complete: a closure may
// accumulate the loss as it goes. It must not modify ax, g, a or x. g is
// overwritten, not accumulated into. GradSweep panics, naming itself, if
// cols < 0, len(x) != cols, len(g) != cols, len(a) != len(ax)*cols or phi
// is nil, and if ax or g overlaps another of ax, g, a and x. It does not
// allocate (a closure passed as phi does not escape).
//
// Aliasing (g is summed into while ax is still being computed):
//
//	GradSweep(v, v, a, n, x, phi) panics, as does any overlap of ax or g
//	with each other, a or x; a and x may overlap each other in any way
//
// ax and g are bit for bit what MulVec, then w[i] = phi(i, ax[i]), then
// MulTransVec compute on the same implementation, so they have those
// functions' error bounds and special cases. With rows == 0, g is set to
// zero and phi is not called; with cols == 0, ax is set to zero and phi is
// called with 0 for every row.
//
// When it pays: each of MulVec and MulTransVec streams A from wherever it
// lives, and GradSweep does so once, the second use of each row costing a
// pass over data in L1 or L2 instead; the saving is large when A comes
// from memory or L3 and small when it comes from a cache that streams
// about as fast as L2. The ceiling is 2x: on Zen 5 MulVec and MulTransVec
// each take about as long as one streaming read of A (Nrm2 over A; within
// 16% at 1000 x 1000 and 4000 x 4000, on avx512 and avx2), so a GradSweep
// that cost no more than one read would halve their time. Measured there
// (six runs of 21-31 interleaved rounds, two of them go run ./bench
// kernels, which times the read too, four the same loops in a scratch
// test, on a shared 2-core machine at loads of 1 to 9; the
// range of the runs' medians, then in brackets the 10th to 90th
// percentile of the per-round ratios at a load of 1), time of MulVec, the
// map and MulTransVec over GradSweep's: at 1000 x 1000 (A in L3)
// 1.42-1.53x (1.45-1.70) on avx512, whose row pipeline does about as much
// work in L1 as one read of A from L3 takes and so overlaps the two only
// in part, and 1.13-1.35x (1.27-1.40) on avx2 (groups of four rows); at
// 4000 x 4000 (A in memory) 1.37-1.62x on avx512 (the group pipeline,
// 7-10% faster than plain groups in paired rounds; plain groups measured
// 1.46x (1.34-1.57) at load 1) and 1.49-1.74x (1.33-1.74) on avx2, whose
// MulVec and MulTransVec run below the streaming rate; and 0.9-1.2x on
// generic, whose scalar loops are bound by arithmetic, not memory. Under
// load the rounds spread more widely (the other core competes for L3 and
// memory). For a matrix that stays in L2 between calls (below about
// 100k elements) both read A from cache and GradSweep gains 1.1-1.3x at
// most; for one in L3 with rows wider than 1024 columns, 1.0-1.3x.
func GradSweep(ax, g, a []float64, cols int, x []float64, phi func(i int, axi float64) float64) {
	active.GradSweep(ax, g, a, cols, x, phi)
}

// GradSweep is GradSweep on k's implementation.
func (k Kernels) GradSweep(ax, g, a []float64, cols int, x []float64, phi func(i int, axi float64) float64) {
	if !matrixOK(a, len(ax), cols) || len(x) != cols || len(g) != cols {
		panic("vec.GradSweep: dimension mismatch")
	}
	if phi == nil {
		panic("vec.GradSweep: nil phi")
	}
	switch {
	case overlap(ax, g):
		panic("vec.GradSweep: ax overlaps g")
	case overlap(ax, a):
		panic("vec.GradSweep: ax overlaps a")
	case overlap(ax, x):
		panic("vec.GradSweep: ax overlaps x")
	case overlap(g, a):
		panic("vec.GradSweep: g overlaps a")
	case overlap(g, x):
		panic("vec.GradSweep: g overlaps x")
	}
	gradSweep(k.l, ax, g, a, cols, x, phi)
}

// sweepPipelineMaxCols is the widest matrix GradSweep runs as a row
// pipeline (see gradSweep): one step touches four rows' worth of data (the
// near and far rows, x and g), 32 KB at 1024 columns, which must stay in
// the 48 KB L1 cache of Zen 4 and 5 (Intel's since Ice Lake) for the near
// row to be found there. Wider rows go through groups of four rows, the
// second read from L2.
//
// GradSweep runs the group pipeline (sweep4) where rows have more than
// sweepGroupMinCols columns and A has at least sweepGroupMinElems
// elements, and plain groups of four elsewhere.
//
// The three are variables, not constants, so that the tests can send any
// matrix down any path (setSweepPath).
//
// Measured on Zen 5, group pipeline time over plain groups' (medians of
// 15-41 interleaved pairs, one to two runs per shape, load 1.4-7): 0.91-0.94
// at 4000 x 4000, 0.92 at 2000 x 4000, 0.96 at 8000 x 3000 (A in memory);
// at 2000 columns 0.93 (8000 rows) and 1.08 (12000 rows), at 1500 columns
// (16000 rows) 1.06-1.08, and 1.06 at 500 x 8000 (32 MB, in L3). Where it
// wins, the diagnostic of reading the near rows from L1 instead (the same
// kernel with near = far; one run, load 8) came within 5% of one streaming
// read of A: the L2 re-read of the near rows is what the pipeline still
// pays for.
var (
	sweepPipelineMaxCols = 1024
	sweepGroupMinCols    = 2048
	sweepGroupMinElems   = 8 << 20 // 64 MB, beyond the L3 of one Zen 5 CCD
)

// gradSweep is GradSweep on level l, arguments checked. It reads each row
// of A twice, the second time from cache, in one of four ways, all with
// the groups, sums and roundings of MulVec and MulTransVec, so the same
// bits:
//
//   - a row pipeline, where the level has the sweep1 kernel and rows have
//     at most sweepPipelineMaxCols columns: each step adds row i (read by
//     the step before, in L1) into g while it computes ax[i+1] from memory,
//     so the arithmetic overlaps the loads;
//   - a group pipeline, where the level has the sweep4 kernel and A is
//     wide and large (see sweepGroupMinCols): each step adds group k (read
//     by the step before, in L2) into g while it computes group k+1's ax
//     from memory, so that the memory stream does not pause for the L2
//     pass;
//   - groups of four rows through the blocked kernels, where the level has
//     them: ax for the group, phi, then the group into g from L1 or L2;
//   - elsewhere Dot and then Axpy on each row, the second read from L1.
func gradSweep(l level, ax, g, a []float64, cols int, x []float64, phi func(int, float64) float64) {
	clear(g)
	if cols == 0 {
		for i := range ax {
			ax[i] = 0
			phi(i, 0)
		}
		return
	}
	i := 0
	n4 := len(ax) &^ 3 // the rows MulVec and MulTransVec do in blocks of 4
	switch {
	case pipelined(l) && cols <= sweepPipelineMaxCols && n4 >= 4:
		// ax[0:4] as MulVec computes it; rows 0..2 into g (one rounding
		// each, as in mulTransVec4: Axpy's fused kernels do the same); then
		// the pipeline from row 3 to the last row of the last group.
		mulVecBlocked(l, ax[:4], a[:4*cols], cols, x)
		for ; i < 3; i++ {
			axpyTo(g, phi(i, ax[i]), a[i*cols:(i+1)*cols], g, l)
		}
		for ; i+1 < n4; i++ {
			sweep1(l, g, a[i*cols:], cols, phi(i, ax[i]), &ax[i+1], x)
		}
		axpyTo(g, phi(i, ax[i]), a[i*cols:(i+1)*cols], g, l)
		i++
	case grouped(l) && cols > sweepGroupMinCols && len(a) >= sweepGroupMinElems && n4 >= 8:
		// Group 0's ax; then each step adds group k into g and computes
		// group k+1's ax; the last group into g alone.
		var w [4]float64
		mulVecBlocked(l, ax[:4], a[:4*cols], cols, x)
		for k := range w {
			w[k] = phi(k, ax[k])
		}
		for ; i+8 <= n4; i += 4 {
			sweep4(l, g, a[i*cols:(i+8)*cols], cols, &w, (*[4]float64)(ax[i+4:i+8]), x)
			for k := range w {
				w[k] = phi(i+4+k, ax[i+4+k])
			}
		}
		mulTransVecBlocked(l, g, a[i*cols:(i+4)*cols], cols, w[:])
		i += 4
	}
	var w [4]float64
	for i < len(ax) {
		// A group of four rows through the blocked kernels, where the level
		// has them and the group is one of MulVec's, else one row.
		if i+4 <= n4 && mulVecBlocked(l, ax[i:i+4], a[i*cols:(i+4)*cols], cols, x) == 4 {
			for k := range w {
				w[k] = phi(i+k, ax[i+k])
			}
			mulTransVecBlocked(l, g, a[i*cols:(i+4)*cols], cols, w[:])
			i += 4
			continue
		}
		row := a[i*cols : (i+1)*cols]
		ax[i] = dot(row, x, l)
		axpyTo(g, phi(i, ax[i]), row, g, l)
		i++
	}
}

// sweepPaths are the modes of setSweepPath: "auto" is GradSweep's own
// choice; "rows" sends every matrix the level can pipeline down the row
// pipeline, "groups" every one down the group pipeline (see gradSweep).
var sweepPaths = [...]string{"auto", "rows", "groups"}

// setSweepPath makes GradSweep choose its path as mode (one of sweepPaths)
// says until the returned function restores the thresholds; ok is false,
// and nothing changes, for an unknown mode. Like setImpl it exists for
// tests only (this package's, and the fuzz targets' through linkname), and
// calling it while GradSweep runs on other goroutines is a data race.
//
//go:linkname setSweepPath
func setSweepPath(mode string) (restore func(), ok bool) {
	p, c, e := sweepPipelineMaxCols, sweepGroupMinCols, sweepGroupMinElems
	switch mode {
	case "auto":
	case "rows":
		sweepPipelineMaxCols = math.MaxInt
	case "groups":
		sweepPipelineMaxCols, sweepGroupMinCols, sweepGroupMinElems = 0, 0, 0
	default:
		return func() {}, false
	}
	return func() { sweepPipelineMaxCols, sweepGroupMinCols, sweepGroupMinElems = p, c, e }, true
}
