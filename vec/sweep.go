package vec

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
// overwritten, not accumulated into. ax and g must not overlap each other,
// a or x. GradSweep panics, naming itself, if cols < 0, len(x) != cols,
// len(g) != cols, len(a) != len(ax)*cols or phi is nil. It does not
// allocate (a closure passed as phi does not escape).
//
// ax and g are bit for bit what MulVec, then w[i] = phi(i, ax[i]), then
// MulTransVec compute on the same implementation, so they have those
// functions' error bounds and special cases. With rows == 0, g is set to
// zero and phi is not called; with cols == 0, ax is set to zero and phi is
// called with 0 for every row.
//
// When it pays: once A no longer fits in the L2 cache, each of MulVec and
// MulTransVec streams A from L3 or memory, and GradSweep does so once; the
// second use of each row costs a pass over data in L1 or L2 instead. It is
// then up to twice as fast as the three steps (measured on Zen 5 with
// AVX-512, 1000 x 1000: see BenchmarkGradSweep and the README). For a
// matrix that stays in L2 between calls (below about 100k elements) both
// read A from cache and they take about the same time.
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
	gradSweep(k.l, ax, g, a, cols, x, phi)
}

// Blocking: a block of rows is read from memory by the A x kernel and read
// again, from cache, by the A^T w kernel. sweepBlockBytes is the size of
// one block: rows are grouped so that a block fits in it (a multiple of 4
// rows, the blocked kernels' unit, at least 4 and at most maxSweepRows,
// the size of the stack buffer for w).
const (
	sweepBlockBytes = 32 << 10
	maxSweepRows    = 64
)

// sweepRows returns the number of rows per block for rows of cols
// elements.
func sweepRows(cols int) int {
	r := sweepBlockBytes / (8 * max(cols, 1)) &^ 3
	return min(max(r, 4), maxSweepRows)
}

// gradSweep is GradSweep on level l, arguments checked. The blocks start at
// multiples of 4 rows, so the blocked kernels see the same groups of four
// rows as in MulVec and MulTransVec, and the results are the same bits.
func gradSweep(l level, ax, g, a []float64, cols int, x []float64, phi func(int, float64) float64) {
	clear(g)
	var w [maxSweepRows]float64
	block := sweepRows(cols)
	for i0 := 0; i0 < len(ax); i0 += block {
		i1 := min(i0+block, len(ax))
		ab, axb, wb := a[i0*cols:i1*cols], ax[i0:i1], w[:i1-i0]
		mulVec(l, axb, ab, cols, x)
		for i, v := range axb {
			wb[i] = phi(i0+i, v)
		}
		mulTransVecAdd(l, g, ab, cols, wb)
	}
}
