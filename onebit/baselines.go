package onebit

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/neadmm/neadmm/internal/buf"
	"github.com/neadmm/neadmm/vec"
)

// BIHTOptions configures BIHT.
type BIHTOptions struct {
	// K is the number of non-zeros kept by the hard threshold: the
	// sparsity of the signal, which BIHT must be told. 1 <= K <= N.
	K int
	// MaxIter caps the iterations; > 0.
	MaxIter int
}

// DefaultBIHTMaxIter is a cap on BIHT's iterations that it rarely reaches
// when told the right K (docs/onebit-options.md has the counts measured).
const DefaultBIHTMaxIter = 1000

// BIHTResult reports a BIHT run.
type BIHTResult struct {
	Iterations int
	// Hamming is the fraction of measurements inconsistent with the
	// estimate; 0 means BIHT stopped on consistency.
	Hamming float64
	// Fixed reports that BIHT stopped at a fixed point that is not
	// consistent (an iteration left x unchanged).
	Fixed bool
	// Products counts the products with Phi or Phi^T, and Work their cost
	// in units of one full product (a product with Phi^T skips the rows
	// whose sign already agrees: see Result.Work).
	Products int
	Work     float64
}

// BIHT is binary iterative hard thresholding (Jacques, Laska, Boufounos and
// Baraniuk 2013, "Robust 1-bit compressive sensing via binary stable
// embeddings of sparse vectors"): from x = 0,
//
//	x <- H_K(x + (tau/2) Phi^T (y - sign(Phi x)))
//
// where H_K keeps the K largest magnitudes (ties: the lower index), until
// sign(Phi x) = y, an iteration leaves x unchanged, or MaxIter iterations.
// The estimate x/||x|| is written into x (len(x) must be N); when the last
// iterate is zero (Phi^T y = 0 makes the first one zero, a fixed point),
// x is e_1, as Passive and Solve return in that case, and
// BIHTResult.Hamming is e_1's.
//
// The step is tau = 1/M. From x = 0 any tau > 0 gives the same normalized
// iterates: sign(Phi x) ignores the scale of x and H_K commutes with
// scaling, so the iterates for tau are tau times those for tau = 1. The
// first step treats sign(Phi 0) as 0 (as MATLAB's sign does), so it is
// H_K((tau/2) Phi^T y); afterwards sign(0) = +1 as everywhere in this
// package.
//
// Its product with Phi reads only the columns where the K-sparse iterate
// is non-zero when K < N/32 (M*K multiply-adds instead of M*N), and the
// threshold selects the K-th magnitude instead of sorting all N, with the
// same iterates as dense products and a sort up to rounding
// (docs/onebit-options.md has the speed-up measured).
//
// BIHT allocates 2M + 3N floats and N ints per call and nothing per
// iteration; Solver.BIHT reuses a Solver's instead. It returns an error
// wrapping ErrBadInput for a nil context, a nil or zero p, bad options or
// len(x) != N, and ctx's error (checked every iteration) with the
// current estimate in x.
func BIHT(ctx context.Context, p *Problem, x []float64, opt BIHTOptions) (BIHTResult, error) {
	if err := checkBIHT(ctx, p, x, opt); err != nil {
		return BIHTResult{}, err
	}
	ws := bihtWork{gather: true}
	return ws.biht(ctx, p, x, opt)
}

// BIHT is the package's BIHT with the Solver's workspace: the same
// estimate and result, bit for bit, and a repeat call on a problem of
// the same size (or smaller) allocates nothing. Like Solve, it must not
// be called by several goroutines at once on one Solver.
func (s *Solver) BIHT(ctx context.Context, p *Problem, x []float64, opt BIHTOptions) (BIHTResult, error) {
	if s == nil {
		return BIHTResult{}, fmt.Errorf("%w: BIHT: nil *Solver", ErrBadInput)
	}
	if err := checkBIHT(ctx, p, x, opt); err != nil {
		return BIHTResult{}, err
	}
	s.acquire()
	defer s.release()
	s.bw.gather, s.bw.signs = true, false
	return s.bw.biht(ctx, p, x, opt)
}

// checkBIHT returns BIHT's errors for bad input.
func checkBIHT(ctx context.Context, p *Problem, x []float64, opt BIHTOptions) error {
	if ctx == nil {
		return fmt.Errorf("%w: BIHT: nil context (use context.Background())", ErrBadInput)
	}
	if err := p.valid("BIHT"); err != nil {
		return err
	}
	switch {
	case opt.K < 1 || opt.K > p.n:
		return fmt.Errorf("%w: BIHT K = %d, want 1 <= K <= N = %d", ErrBadInput, opt.K, p.n)
	case opt.MaxIter <= 0:
		return fmt.Errorf("%w: BIHT MaxIter = %d, want > 0", ErrBadInput, opt.MaxIter)
	case len(x) != p.n:
		return fmt.Errorf("%w: BIHT: len(x) = %d, want N = %d", ErrBadInput, len(x), p.n)
	}
	return nil
}

// biht is BIHT on checked input with the workspace ws.
func (ws *bihtWork) biht(ctx context.Context, p *Problem, x []float64, opt BIHTOptions) (BIHTResult, error) {
	ws.op.setFull(p)
	ws.op.products, ws.op.trans, ws.op.work = 0, 0, 0 // Work's sum, as from a new workspace
	res, err := ws.run(ctx, &ws.op, p.y, x, opt.K, opt.MaxIter, 0)
	if vec.Nrm2(x) == 0 {
		// Every iterate was zero (Phi^T y = 0 makes the first one zero, a
		// fixed point): e_1, as Passive and Solve return then, with its
		// Hamming distance (one column of Phi).
		clear(x)
		x[0] = 1
		bad := 0
		for i, yi := range p.y {
			if sign(p.phi[i*p.n]) != yi {
				bad++
			}
		}
		res.Hamming = float64(bad) / float64(p.m)
		res.Products++
		res.Work += 1 / float64(p.n)
	}
	return res, err
}

// bihtWork is BIHT's workspace.
type bihtWork struct {
	ax, r, g, old []float64
	op            operator // the full Phi, for BIHT itself
	// gather multiplies the K-sparse iterates by Phi through their
	// non-zero columns only (operator.mulSparse): BIHT itself does, 2 to 6
	// times faster at N = 1000 to 2000, and so does Recover's polish
	// except on sign matrices (see Solver.polish).
	gather bool
	// signs gathers them too but keeps the signs of the dense products
	// (operator.mulSigns; the iterates are those of the dense products, bit
	// for bit): Recover's polish on sign matrices. It overrides gather.
	signs bool
}

// run is BIHT from x = 0 with the operator op (len(x) = op.k) and the
// measurements y, keeping the k largest magnitudes per iteration. With
// patience > 0 it also stops after patience iterations without a new
// lowest count of violated signs (cycling, when told a wrong k).
func (ws *bihtWork) run(ctx context.Context, op *operator, y, x []float64, k int, maxIter, patience int) (BIHTResult, error) {
	var res BIHTResult
	m, n := len(y), op.k
	ws.ax, ws.r = buf.Grow(ws.ax, m), buf.Grow(ws.r, m)
	ws.g, ws.old = buf.Grow(ws.g, n), buf.Grow(ws.old, n)
	ax, r, g, old := ws.ax, ws.r, ws.g, ws.old
	half := 0.5 / float64(m) // tau/2
	copy(r, y)               // first step: y - sign(Phi 0) with sign(0) = 0
	clear(x)
	p0, w0 := op.products, op.work
	var err error
	fewest, fewestIt := m+1, 0
	for it := 1; it <= maxIter; it++ {
		if cerr := ctx.Err(); cerr != nil {
			err = fmt.Errorf("onebit: BIHT cancelled before iteration %d: %w", it, cerr)
			break
		}
		op.mulT(g, r)
		copy(old, x)
		vec.Axpy(half, g, x)
		hardThreshold(x, k, g) // g is free now
		res.Iterations = it
		switch {
		case ws.signs:
			op.mulSigns(ax, x)
		case ws.gather:
			op.mulSparse(ax, x)
		default:
			op.mul(ax, x)
		}
		bad := 0
		for i, a := range ax {
			r[i] = y[i] - sign(a)
			if r[i] != 0 {
				bad++
			}
		}
		res.Hamming = float64(bad) / float64(m)
		if bad == 0 {
			break
		}
		if slices.Equal(old, x) {
			res.Fixed = true
			break
		}
		if bad < fewest {
			fewest, fewestIt = bad, it
		} else if patience > 0 && it-fewestIt >= patience {
			break
		}
	}
	res.Products, res.Work = op.products-p0, op.work-w0
	normalize(x)
	return res, err
}

// hardThreshold keeps the k largest |x_j| (ties broken towards the lower
// index) and zeroes the rest; scratch (len(x)) is overwritten.
func hardThreshold(x []float64, k int, scratch []float64) {
	if k >= len(x) {
		return
	}
	for j, v := range x {
		scratch[j] = -math.Abs(v)
	}
	t := -selectKth(scratch, k-1) // the k-th largest magnitude
	above := 0                    // entries strictly above t are all kept
	for _, v := range x {
		if math.Abs(v) > t {
			above++
		}
	}
	ties := k - above
	for j, v := range x {
		switch a := math.Abs(v); {
		case a > t:
		case a == t && ties > 0:
			ties--
		default:
			x[j] = 0
		}
	}
}

// selectKth returns the k-th smallest element of a (from 0; no NaN),
// reordering a: a quickselect (linear time on average, where sorting all
// of a took a quarter of BIHT's time at N = 1000) that sorts what is left
// after 2 log2(len(a)) partitions, so that no input makes it quadratic.
// Its value does not depend on how it is found, so BIHT's iterates are
// those of a full sort.
func selectKth(a []float64, k int) float64 {
	return selectKthBudget(a, k, 2*bits.Len(uint(len(a))))
}

// median returns the median of a (the lower one for even lengths),
// reordering a (selectKth).
func median(a []float64) float64 {
	return selectKth(a, (len(a)-1)/2)
}

// selectKthBudget is selectKth with at most budget partitions before the
// sort (a parameter so that tests reach the sort).
func selectKthBudget(a []float64, k, budget int) float64 {
	lo, hi := 0, len(a)-1 // a[lo..hi] holds the k-th
	for ; lo < hi; budget-- {
		if budget <= 0 {
			slices.Sort(a[lo : hi+1])
			return a[k]
		}
		// Median of three as the pivot; Hoare partition into a[lo..j] <= piv
		// and a[i..hi] >= piv.
		piv := median3(a[lo], a[lo+(hi-lo)/2], a[hi])
		i, j := lo, hi
		for i <= j {
			for a[i] < piv {
				i++
			}
			for a[j] > piv {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default: // j < k < i: a[k] == piv
			return a[k]
		}
	}
	return a[k]
}

// median3 returns the median of u, v and w.
func median3(u, v, w float64) float64 {
	if u > v {
		u, v = v, u
	}
	if v > w {
		v = w
	}
	return max(u, v)
}

// Passive sets x to the passive estimate of Zhang, Yi and Jin (2014,
// "Efficient algorithms for robust one-bit compressive sensing"),
//
//	x = soft(Phi^T y / M, t) / ||soft(Phi^T y / M, t)||,
//
// the closed-form minimizer of the (negated) average correlation
// -<y, Phi x>/M + t ||x||_1 on the unit ball. When t >= max_j |(Phi^T y)_j|/M
// the soft threshold is zero and Passive returns the limit of the estimate
// as t approaches that value from below: the signed unit vector of the
// largest |(Phi^T y)_j| (lowest index on ties; e_1 if Phi^T y = 0).
//
// It costs one product with Phi^T and allocates nothing. It returns an
// error wrapping ErrBadInput for a nil or zero p, len(x) != N, or a t
// that is negative or not finite.
func Passive(p *Problem, x []float64, t float64) error {
	if err := p.valid("Passive"); err != nil {
		return err
	}
	if len(x) != p.n {
		return fmt.Errorf("%w: Passive: len(x) = %d, want N = %d", ErrBadInput, len(x), p.n)
	}
	if !(t >= 0 && t <= math.MaxFloat64) {
		return fmt.Errorf("%w: Passive threshold %g, want finite and >= 0", ErrBadInput, t)
	}
	vec.MulTransVec(x, p.phi, p.m, p.n, p.y)
	vec.Scal(1/float64(p.m), x)
	best, bj := 0.0, 0
	for j, v := range x {
		if a := math.Abs(v); a > best {
			best, bj = a, j
		}
	}
	if t >= best {
		s := 1.0
		if x[bj] < 0 {
			s = -1
		}
		clear(x)
		x[bj] = s
		return nil
	}
	vec.SoftThreshold(x, x, t)
	normalize(x) // not zero: t < max |x_j|
	return nil
}
