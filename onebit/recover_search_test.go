package onebit

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecoverNoPruneAfterSwap pins that Prune off prunes nothing, not
// even after a swap: with Swap alone (Center off, whose trim counts in
// Pruned too) on instances where swaps happen, Pruned stays 0.
func TestRecoverNoPruneAfterSwap(t *testing.T) {
	var s Solver
	n := 0
	for _, seed := range []uint64{1, 3, 5} {
		_, p := problemFor(t, GenOptions{M: 200, N: 200, K: 8, Seed: seed})
		o := DefaultRecoverOptions()
		o.Prune, o.Center, o.Polish, o.Centroid = false, false, false, false
		x := make([]float64, p.n)
		res, err := s.Recover(context.Background(), p, x, o)
		require.NoError(t, err)
		n += res.Swapped
		require.Zero(t, res.Pruned, "seed %d", seed)
	}
	require.Positive(t, n)
}

// TestRecoverCancelledSearch pins Recover's doc on a cancelled support
// search: it returns the context's error, and x holds the estimate as the
// search left it (the iterate s.x, zero outside the working set),
// normalized. The steps after the stages take ctx.Done once, the centroid
// once more after them: cancelled at the second-to-last call of Done of
// an uncancelled run (counted), the search's first major cycle of Wolfe's
// algorithm sees it.
func TestRecoverCancelledSearch(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 200, N: 200, K: 8, Seed: 1})
	var s Solver
	x := make([]float64, p.n)
	count := newDoneAt(0) // never closed: counts the calls
	res, err := s.Recover(count, p, x, DefaultRecoverOptions())
	require.NoError(t, err)
	require.True(t, res.Centroid, "the centroid takes the last call of Done")
	require.Positive(t, res.Expanded, "the search must run for the test")

	_, err = s.Recover(newDoneAt(count.calls-1), p, x, DefaultRecoverOptions())
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "support search")
	want := make([]float64, p.n)
	s.unslot(want, s.x[:s.op.k])
	require.True(t, normalize(want))
	require.Equal(t, want, x)
}

// TestSearchMaxSupport pins searchMaxSupport as inclusive ("bounds the
// supports that refit, prune and swap work on"): on 60 random signs and
// 40 Gaussian columns, a support of 32 coordinates goes through the
// refit (margin computations counted), one of 33 goes straight to the
// center (off here): none.
func TestSearchMaxSupport(t *testing.T) {
	p := randomProblem(t, 60, 40, 1)
	for _, q := range []int{32, 33} {
		var s Solver
		s.resize(p)
		s.op = &s.full
		x := make([]float64, p.n)
		for j := range q {
			x[j] = 1
		}
		normalize(x)
		var res RecoverResult
		opt := RecoverOptions{Refit: true, RefitMaxIter: 50}
		require.NoError(t, consistentStepsOf(&s, p, x, opt, math.Inf(1), &res))
		require.Equal(t, q == 32, res.Margins > 0, "support of %d: %+v", q, res)
	}
}

// TestRefitJoinsTwo checks the refit's floor of 2 on the coordinates that
// may join (RecoverOptions.Refit): the 6 signs of Phi below (all +1) are separable on all 3
// coordinates (x = (1, 1, 1): every <a_i, x> >= 4) and on no 2 (each pair
// has two rows with opposite restrictions to it). From the support {0} no
// single coordinate joining separates them, so the first candidate joins
// and the search goes on: the second joins too (at least 2 may join,
// though the support had 1).
func TestRefitJoinsTwo(t *testing.T) {
	s, p := boundSolver(t, []float64{
		1, 0, 5, -1, 0, 5,
		0, 5, 1, 0, 5, -1,
		5, 1, 0, 5, -1, 0,
	}, 6, 3, []float64{1, 0, 0})
	requireRefitJoinsTwo(t, s, p)
}

// TestRefitGradientSkipsOutliers pins the refit's gradient "on the
// measurements that are not outliers": TestRefitJoinsTwo's 6 signs with
// a fourth column, zero on them, and a seventh sign flagged as an
// outlier, violated by x = e_0 and large on the fourth column (-1, 0, 0,
// 100). Left out, it adds nothing to the gradient, the fourth column
// (g_3 = 0) is no candidate, and the refit ends as in TestRefitJoinsTwo:
// the second and third columns join and the 6 signs are separable.
func TestRefitGradientSkipsOutliers(t *testing.T) {
	s, p := boundSolver(t, []float64{
		1, 0, 5, 0, -1, 0, 5, 0,
		0, 5, 1, 0, 0, 5, -1, 0,
		5, 1, 0, 0, 5, -1, 0, 0,
		-1, 0, 0, 100,
	}, 7, 4, []float64{1, 0, 0, 0})
	s.cell.out[6] = true
	requireRefitJoinsTwo(t, s, p)
}

// requireRefitJoinsTwo runs the refit on s (support {0}) and requires
// that columns 1 and 2 join and the signs are separable on {0, 1, 2}.
func requireRefitJoinsTwo(t *testing.T, s *Solver, p *Problem) {
	t.Helper()
	var res RecoverResult
	s.refit(p, &res)
	require.Equal(t, 2, res.Expanded)
	require.Equal(t, []int{0, 1, 2}, s.support())
	require.Positive(t, s.margin(p, s.support(), 0, &res))
}

// TestCandidates checks candidates on the full operator: the coordinates
// outside the support by decreasing |g_j| (equal ones in index order),
// none with g_j = 0, none in the support.
func TestCandidates(t *testing.T) {
	s, p := boundSolver(t, make([]float64, 6), 1, 6, []float64{0, 0, 0, 0, 0, 1})
	require.Equal(t, []int{3, 1, 4}, s.candidates(p, []float64{0, 3, 0, -5, 3, 9}, 5))
	require.Equal(t, []int{3}, s.candidates(p, []float64{0, 3, 0, -5, 3, 9}, 1))
}

// TestSmallestPositions pins smallest: the positions of the
// searchPositions = 6 coordinates of smallest magnitude, in increasing
// order of magnitude (all of them for shorter supports), equal ones in
// support order (which decides the 6 among 7 equal ones).
func TestSmallestPositions(t *testing.T) {
	var s Solver
	s.x = []float64{0, -8, 3, 0, -1, 7, 2, 6, -5, 4}
	s.sw.pos = make([]int, 0, 10)
	sup := []int{1, 2, 4, 5, 6, 7, 8, 9} // magnitudes 8 3 1 7 2 6 5 4
	require.Equal(t, []int{2, 4, 1, 7, 6, 5}, s.smallest(sup))
	require.Equal(t, []int{2, 1, 0}, s.smallest(sup[:3]))
	s.x = []float64{-2, 2, 2, -2, 1, 2, -2, 2}
	require.Equal(t, []int{4, 0, 1, 2, 3, 5}, s.smallest([]int{0, 1, 2, 3, 4, 5, 6, 7}))
}

// TestPruneSingle pins prune's stop at one coordinate: nothing is left
// to drop (an empty support separates nothing), so no margin is computed.
func TestPruneSingle(t *testing.T) {
	s, p := boundSolver(t, []float64{1, 1, 2, 1}, 2, 2, []float64{1, 0})
	var res RecoverResult
	s.prune(p, &res)
	require.Equal(t, RecoverResult{}, res)
	require.Equal(t, []int{0}, s.support())
}

// TestWorkingSetQuarter pins the working set's cap of a quarter of the
// columns as inclusive where the support search grows it: a working set
// of 2 of 16 columns takes 2 candidates (4 = 16/4 columns) and returns
// their slots, but not 3 (5 columns: only candidates already in the set
// are returned, none here); the polish takes BIHT's support {5, 7},
// separable with a margin above the current one, into a working set of
// 2 (4 columns).
func TestWorkingSetQuarter(t *testing.T) {
	g := make([]float64, 16)
	g[5], g[7], g[9] = 3, 2, 1
	s, p := wsSolver(t)
	require.Equal(t, []int{2, 3}, s.candidates(p, g, 2))
	require.Equal(t, 4, s.ws.k)
	s, p = wsSolver(t)
	require.Empty(t, s.candidates(p, g, 3))
	require.Equal(t, 2, s.ws.k)

	s, p = wsSolver(t)
	s.pol.x[5], s.pol.x[7] = 0.6, 0.8
	res := RecoverResult{Centered: true, Margin: 1e-9}
	require.True(t, s.polishTake(p, false, &res))
	require.True(t, res.Polished)
	require.Equal(t, 4, s.ws.k)
}

// wsSolver returns a Solver on a working set of the columns 0 and 1 of a
// 40 x 16 Gaussian Phi whose signs are those of column 5 plus column 7
// (separable on {5, 7}): the working set may grow to 16/4 = 4 columns.
func wsSolver(t *testing.T) (*Solver, *Problem) {
	const m, n = 40, 16
	p := twoColumnSigns(t, m, n, 3, 5, 7, 1)
	s := new(Solver)
	s.resize(p)
	s.cell.out = make([]bool, m)
	s.cell.maxIter = 200
	x := make([]float64, n)
	x[0], x[1] = 1, 1
	s.wsInit(p, x, 2)
	require.Equal(t, 2, s.ws.k)
	return s, p
}

// TestSearchWarmStartSameEstimates checks that the warm starts of the search's
// trials (and of the swap's margin at each round) leave Recover's
// estimates and choices as they are, bit for bit, with fewer Wolfe
// cycles.
func TestSearchWarmStartSameEstimates(t *testing.T) {
	warmIt, coldIt := 0, 0
	recoverOnOff(t, 700, "warm", "cold", func(s *Solver) { s.sw.warmOff = true },
		func(f int, seed uint64, rOn, rOff RecoverResult) {
			if rOn.Swapped != rOff.Swapped || rOn.Pruned != rOff.Pruned || rOn.Expanded != rOff.Expanded || rOn.Margin != rOff.Margin {
				t.Errorf("family %d seed %d: swapped %d, pruned %d, expanded %d, margin %v warm; %d, %d, %d, %v cold",
					f, seed, rOn.Swapped, rOn.Pruned, rOn.Expanded, rOn.Margin, rOff.Swapped, rOff.Pruned, rOff.Expanded, rOff.Margin)
			}
			warmIt += rOn.WolfeIterations
			coldIt += rOff.WolfeIterations
		})
	t.Logf("Wolfe major cycles on all rows: %d warm, %d cold", warmIt, coldIt)
	if warmIt >= coldIt {
		t.Errorf("warm starts took %d Wolfe cycles, cold %d", warmIt, coldIt)
	}
}

// recoverOnOff runs Recover with the default options on four seeds (from
// seed0) of two families (Generate and rademacher; N = 1000, M = 500,
// K = 10 and 20), with a fresh Solver and with one that off changed,
// fails unless the two estimates are the same bit for bit (on and offName
// name the two in the message), and passes both results to check.
func recoverOnOff(t *testing.T, seed0 uint64, onName, offName string, off func(*Solver), check func(f int, seed uint64, rOn, rOff RecoverResult)) {
	t.Helper()
	const n = 1000
	for seed := range uint64(4) {
		for f, fam := range []struct{ m, k int }{{500, 10}, {500, 20}} {
			var p *Problem
			if f == 0 {
				in, err := Generate(GenOptions{M: fam.m, N: n, K: fam.k, Seed: seed0 + seed})
				if err != nil {
					t.Fatal(err)
				}
				if p, err = NewProblem(in.Phi, fam.m, n, in.Y); err != nil {
					t.Fatal(err)
				}
			} else {
				_, p = rademacherFor(t, fam.m, n, fam.k, 0, seed0+seed)
			}
			var on, offS Solver
			off(&offS)
			xOn, xOff := make([]float64, n), make([]float64, n)
			rOn, err := on.Recover(context.Background(), p, xOn, DefaultRecoverOptions())
			if err != nil {
				t.Fatal(err)
			}
			rOff, err := offS.Recover(context.Background(), p, xOff, DefaultRecoverOptions())
			if err != nil {
				t.Fatal(err)
			}
			for j := range xOn {
				if math.Float64bits(xOn[j]) != math.Float64bits(xOff[j]) {
					t.Fatalf("family %d seed %d: x[%d] = %v %s, %v %s", f, seed, j, xOn[j], onName, xOff[j], offName)
				}
			}
			check(f, seed, rOn, rOff)
		}
	}
}
