package onebit

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/vec"
)

// m3StartOptions are options under which a solve's end depends on its
// start (PaperOptions' rho = 1 with lambda = 0.01 thresholds every x to
// 0 at the first x-update, whatever the start): lambda = 1, rho = 10, 5
// iterations on the full Phi, no coordinate check.
func m3StartOptions() Options {
	o := DefaultOptions()
	o.Lambda, o.MaxIter, o.WorkingSet, o.CoordinateCheck = 1, 5, false, false
	return o
}

// TestM3StartRandomStream pins StartRandom's start (solver.go: the Solver's
// generator reseeded, "the same stream as a new rand.NewPCG(opt.Seed,
// "random")", one NormFloat64 per coordinate, normalized: a direction
// uniform on the sphere): a solve from it is bit for bit the solve from
// StartGiven with that Gaussian vector, drawn here from a new generator.
// Another distribution or stream starts elsewhere and ends elsewhere
// (the two seeds' solves differ: checked).
func TestM3StartRandomStream(t *testing.T) {
	p := randomProblem(t, 30, 12, 3)
	o := m3StartOptions()
	var ends [][]float64
	for _, seed := range []uint64{1, 42} {
		var s Solver
		o.Start, o.Seed = StartRandom, seed
		xr := make([]float64, p.n)
		rr, err := s.Solve(context.Background(), p, xr, o)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 0x72616e646f6d)) // "random"
		xg := make([]float64, p.n)
		for j := range xg {
			xg[j] = rng.NormFloat64()
		}
		o.Start = StartGiven
		rg, err := s.Solve(context.Background(), p, xg, o)
		require.NoError(t, err)
		if !slices.Equal(xr, xg) || rr.Objective != rg.Objective {
			t.Errorf("seed %d: StartRandom ends at %v (objective %v), StartGiven from the Gaussian draw at %v (%v)",
				seed, xr, rr.Objective, xg, rg.Objective)
		}
		ends = append(ends, xr)
	}
	require.NotEqual(t, ends[0], ends[1], "the solve must depend on its start for the test")
}

// m3ZeroBackprojection returns a 4 x 3 problem with Phi^T y = 0: its
// rows sum to zero and every sign is -1.
func m3ZeroBackprojection(t *testing.T) *Problem {
	p, err := NewProblem([]float64{1, 2, 0, 0, 1, -1, -1, -2, 0, 0, -1, 1}, 4, 3, []float64{-1, -1, -1, -1})
	require.NoError(t, err)
	return p
}

// TestM3StartBackprojectionZero pins StartBackprojection's degenerate case
// ("from e_1 in the degenerate case Phi^T y = 0"): on a problem with
// Phi^T y = 0 the solve is bit for bit the one from StartGiven e_1, on the
// full Phi and on a working set; from e_3 it ends elsewhere (checked).
func TestM3StartBackprojectionZero(t *testing.T) {
	p := m3ZeroBackprojection(t)
	for _, ws := range []bool{false, true} {
		o := m3StartOptions()
		o.WorkingSet = ws
		var s Solver
		xb := make([]float64, 3)
		rb, err := s.Solve(context.Background(), p, xb, o)
		require.NoError(t, err)
		o.Start = StartGiven
		xg := []float64{1, 0, 0}
		rg, err := s.Solve(context.Background(), p, xg, o)
		require.NoError(t, err)
		if !slices.Equal(xb, xg) || rb.Objective != rg.Objective {
			t.Errorf("working set %v: backprojection ends at %v (%v), e_1 at %v (%v)", ws, xb, rb.Objective, xg, rg.Objective)
		}
		x3 := []float64{0, 0, 1}
		_, err = s.Solve(context.Background(), p, x3, o)
		require.NoError(t, err)
		require.NotEqual(t, xg, x3, "working set %v: the solve must depend on its start for the test", ws)
	}
}

// TestM3WorkingSetStart pins the first working set (Options.WorkingSet:
// "It starts from the 16 largest coordinates of the starting point";
// wsInit: min(16, N) of them, held in index order): with StartGiven and
// distinct magnitudes, the set at the first iteration is the 16 largest
// |x_j| found here by sorting, and all N columns when N < 16.
func TestM3WorkingSetStart(t *testing.T) {
	for _, n := range []int{80, 10} {
		p := randomProblem(t, 30, n, 4)
		rng := rand.New(rand.NewPCG(5, 6))
		x := randomUnit(rng, n)
		order := make([]int, n)
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(math.Abs(x[b]), math.Abs(x[a])) })
		want := slices.Clone(order[:min(16, n)])
		slices.Sort(want)
		var s Solver
		var first []int
		o := DefaultOptions()
		o.Start, o.CoordinateCheck, o.MaxIter = StartGiven, false, 3
		o.Callback = func(neadmm.Iteration) bool {
			if first == nil {
				first = slices.Clone(s.ws.idx[:s.ws.k])
			}
			return false
		}
		_, err := s.Solve(context.Background(), p, x, o)
		require.NoError(t, err)
		require.Equal(t, want, first, "N = %d", n)
	}
}

// m3WSStart sets s up as Solve does for a working-set stage from a fixed
// random start, with the k0 largest coordinates (L1 weights 1).
func m3WSStart(s *Solver, p *Problem, k0 int) {
	s.resize(p)
	s.wsInit(p, randomUnit(rand.New(rand.NewPCG(13, 14)), p.n), k0)
	for c := range s.ws.k {
		s.wt[c] = 1
	}
	s.sp.p = p
	s.sp.cap = 0
}

// TestM3WorkingSetGrowth pins the growth rule of a working-set stage
// (solver.go's doc of wsBatch: "each check adds at most max(wsBatch, k)
// violators (the largest first), and the set may hold at most a quarter
// of the columns"; the quarter inclusive: k + added > N/4 leaves it). N =
// 96, a quarter 24. The first restricted solve is repeated here on a twin
// Solver to count its violators (at least 13 for the test). From k = 12
// the first check adds max(8, 12) = 12 of them: exactly a quarter, so the
// set grows to 24 (a cap of 8, none, or a bound exclusive of N/4 differs).
// From k = 13 it would add 13: 26 > 24, so the stage, told not to go to
// the full Phi (Recover's noFull), stops on its first check with the
// overflow flag (a bound of N/3 = 32 lets it grow).
func TestM3WorkingSetGrowth(t *testing.T) {
	p := randomProblem(t, 40, 96, 9)
	o := Options{Lambda: 0.5, Rho: 10, Policy: neadmm.RhoFixed, MaxIter: 50, EpsAbs: 1e-8, EpsRel: 1e-6,
		InnerMaxIter: 200, InnerTol: 1e-8}
	for _, c := range []struct {
		k0       int
		next     int // the size after the first check, 0 for none
		overflow bool
	}{{12, 24, false}, {13, 0, true}} {
		var twin Solver
		m3WSStart(&twin, p, c.k0)
		_, err := twin.run(context.Background(), p, o, false)
		require.NoError(t, err)
		viol := twin.kkt(p, o.Lambda, 1)
		require.GreaterOrEqual(t, len(viol), 13, "k0 = %d: the first check must find more violators than k0 for the test", c.k0)

		var s Solver
		m3WSStart(&s, p, c.k0)
		var sizes []int
		oc := o
		oc.Callback = func(neadmm.Iteration) bool {
			if len(sizes) == 0 || sizes[len(sizes)-1] != s.ws.k {
				sizes = append(sizes, s.ws.k)
			}
			return false
		}
		r, overflow, err := s.stage(context.Background(), p, oc, solveMode{off: 1, noFull: true})
		require.NoError(t, err)
		require.Equal(t, c.k0, sizes[0])
		if c.overflow {
			if !overflow || r.KKTChecks != 1 || s.ws.k != c.k0 {
				t.Errorf("k0 = %d: overflow %v after %d checks at size %d (sizes %v), want an overflow on the first check at %d",
					c.k0, overflow, r.KKTChecks, s.ws.k, sizes, c.k0)
			}
			continue
		}
		if len(sizes) < 2 || sizes[1] != c.next {
			t.Errorf("k0 = %d: sizes %v, want %d after the first check", c.k0, sizes, c.next)
		}
		// The columns that joined are the first check's largest violators.
		joined := slices.Clone(s.ws.idx[c.k0:c.next])
		want := slices.Clone(viol[:c.next-c.k0])
		slices.Sort(want)
		require.Equal(t, want, joined)
	}
}

// TestM3Shrink pins shrink's rule and its moves: the zero slots of the
// working set are dropped when k > 2 nz + wsBatch (nz the slots where x
// is non-zero: the zero slots outnumber them by more than wsBatch), and
// the slots kept carry their x, dual, weight and column, with w
// renormalized. With nz = 2: k = 12 = 2*2 + 8 stays, k = 13 shrinks to
// the two non-zero slots.
func TestM3Shrink(t *testing.T) {
	p := randomProblem(t, 10, 20, 2)
	for _, k := range []int{12, 13} {
		var s Solver
		s.resize(p)
		s.wsInit(p, randomUnit(rand.New(rand.NewPCG(3, 4)), p.n), k)
		for c := range k {
			s.x[c], s.w[c], s.dual[1+c], s.wt[c] = 0, 0.5, float64(c+1), float64(c+10)
		}
		s.x[3], s.x[7], s.w[3], s.w[7] = 0.6, -0.8, 3, 4
		idx := slices.Clone(s.ws.idx)
		s.shrink()
		if k == 12 {
			require.Equal(t, 12, s.ws.k, "k = 12 = 2 nz + wsBatch must stay")
			require.Equal(t, idx, s.ws.idx)
			continue
		}
		require.Equal(t, 2, s.ws.k, "k = 13 > 2 nz + wsBatch must shrink")
		require.Equal(t, []int{idx[3], idx[7]}, s.ws.idx)
		w := []float64{3, 4}
		normalize(w)
		require.Equal(t, []float64{0.6, -0.8}, s.x[:2])
		require.Equal(t, w, s.w[:2])
		require.Equal(t, []float64{4, 8}, s.dual[1:3])
		require.Equal(t, []float64{13, 17}, s.wt[:2])
		for c, j := range s.ws.idx {
			require.Equal(t, c, s.ws.pos[j])
			col := make([]float64, p.m)
			p.column(col, j)
			require.Equal(t, col, s.ws.col(c))
		}
	}
}

// TestM3ToFull pins toFull: the working-set iterate (x, w, dual and the
// weights) moves to the columns its slots hold, zero elsewhere, and the
// coordinates outside the set take the L1 weight outside it (s.wsOff, the
// stage's wOff), which the reweighted stages on the full Phi then use.
func TestM3ToFull(t *testing.T) {
	p := randomProblem(t, 10, 20, 2)
	var s Solver
	s.resize(p)
	s.wsInit(p, randomUnit(rand.New(rand.NewPCG(3, 4)), p.n), 5)
	s.dual[0] = -3
	for c := range 5 {
		s.x[c], s.w[c], s.dual[1+c], s.wt[c] = float64(c+1), float64(c+11), float64(c+21), float64(c+31)
	}
	s.wsOff = 7
	idx := slices.Clone(s.ws.idx)
	s.toFull()
	require.True(t, s.op.full)
	require.Equal(t, -3.0, s.dual[0])
	for j := range p.n {
		c := slices.Index(idx, j)
		x, w, d, wt := 0.0, 0.0, 0.0, 7.0
		if c >= 0 {
			x, w, d, wt = float64(c+1), float64(c+11), float64(c+21), float64(c+31)
		}
		if s.x[j] != x || s.w[j] != w || s.dual[1+j] != d || s.wt[j] != wt {
			t.Errorf("column %d (slot %d): x, w, dual, weight = %v, %v, %v, %v, want %v, %v, %v, %v",
				j, c, s.x[j], s.w[j], s.dual[1+j], s.wt[j], x, w, d, wt)
		}
	}
}

// TestM3InnerRelTolerance pins the inexact x-updates (Options.InnerRel:
// "each x-update after the first stops FISTA at max(InnerTol, InnerRel*d),
// d the distance the previous x-update moved x"; splitting.UpdateX1 keeps
// d in lastMove): the first x-update of a solve uses InnerTol, it records
// d = ||x_after - x_before||, and the next uses max(InnerTol, InnerRel d),
// with InnerRel d above InnerTol and below it. Both on the full Phi and
// on a working set.
func TestM3InnerRelTolerance(t *testing.T) {
	p := randomProblem(t, 40, 24, 5)
	const innerTol = 1e-9
	for _, ws := range []bool{false, true} {
		for _, rel := range []float64{0.5, 1e-12} {
			var s Solver
			s.resize(p)
			x0 := randomUnit(rand.New(rand.NewPCG(11, 12)), p.n)
			k := p.n
			if ws {
				k = 6
				s.wsInit(p, x0, k)
			} else {
				s.fullInit(p, x0)
			}
			sp := &s.sp
			sp.p, sp.op, sp.lambda, sp.weight = p, s.op, 0.5, nil
			if ws {
				sp.norm2 = s.ws.norm2(s.pv[:k], s.pu)
			} else {
				sp.norm2 = p.Norm2()
			}
			sp.fopt = neadmm.FISTAOptions{L: 1, Tol: 123, MaxIter: 50}
			sp.innerTol, sp.innerRel, sp.lastMove = innerTol, rel, 0
			sp.ctx = context.Background()
			x, w, y := s.x[:k], s.w[:k], s.dual[:1+k]
			for c := range k {
				y[1+c] = float64(c%3) - 1 // a dual that moves x
			}
			for call := range 2 {
				before := slices.Clone(x)
				wantTol := innerTol
				if call > 0 {
					wantTol = max(innerTol, rel*sp.lastMove)
					for c := range k {
						w[c] = -w[c] // as the engine's w-update moves it
					}
				}
				require.NoError(t, sp.UpdateX1(x, w, y, 2))
				if sp.fopt.Tol != wantTol {
					t.Errorf("working set %v, InnerRel %g, x-update %d: tolerance %g, want %g", ws, rel, call, sp.fopt.Tol, wantTol)
				}
				d := make([]float64, k)
				vec.AddScaledTo(d, x, -1, before)
				if moved := vec.Nrm2(d); sp.lastMove != moved || !(moved > 1e-3) {
					t.Errorf("working set %v, x-update %d: lastMove %g, want the move %g (> 1e-3 for the test)", ws, call, sp.lastMove, moved)
				}
			}
		}
	}
}

// TestM3BoundPoolCap pins the pool's cap (boundPool, inclusive: "a pool
// that would grow past it starts again from the latest corral"): 90 rows
// and a corral of 6 new ones make 96, all kept; a corral of 7 would make
// 97, and the pool restarts from those 7.
func TestM3BoundPoolCap(t *testing.T) {
	corral := func(rows ...int) *wolfeWork {
		var src wolfeWork
		for t, i := range rows {
			src.corral = append(src.corral, t)
			src.rowIdx = append(src.rowIdx, i)
		}
		return &src
	}
	seq := func(lo, hi int) []int {
		var r []int
		for i := lo; i < hi; i++ {
			r = append(r, i)
		}
		return r
	}
	for _, c := range []struct {
		add  int
		want []int
	}{{6, seq(0, 96)}, {7, seq(90, 97)}} {
		var sw searchWork
		sw.reset(200)
		bw := sw.bound
		bw.addCorral(corral(seq(0, 90)...))
		require.Len(t, bw.rows, 90)
		bw.addCorral(corral(seq(90, 90+c.add)...))
		require.Equal(t, c.want, bw.rows, "90 rows and a corral of %d", c.add)
		for i := range 200 {
			require.Equal(t, slices.Contains(c.want, i), bw.in[i], "row %d", i)
		}
		for t2, i := range bw.rows {
			require.Equal(t, t2, bw.pos[i])
		}
	}
}

// TestM3ColCacheLRU pins colCache.get: a column not held is copied (with
// its largest magnitude) into a new slot while there are fewer than
// colCacheSlots(nz) = max(2 nz, 16), and over the least recently used
// slot after that. With nz = 1 (16 slots): columns 0..15 fill them at
// stamps 1..16, column 3 is used again at stamp 17, and columns 16 and 17
// then replace columns 0 and 1 (stamps 1 and 2), not 3. With nz = 20, 40
// columns fit without replacing any (twice nz), and the 41st replaces the
// first.
func TestM3ColCacheLRU(t *testing.T) {
	const m, n = 5, 64
	p := randomProblem(t, m, n, 8)
	check := func(cc *colCache, j int) {
		t.Helper()
		u := cc.slot[j]
		require.GreaterOrEqual(t, u, 0, "column %d not held", j)
		require.Equal(t, j, cc.owner[u])
		col := make([]float64, m)
		p.column(col, j)
		require.Equal(t, col, cc.cols[u*m:(u+1)*m], "column %d", j)
		top := 0.0
		for _, v := range col {
			top = max(top, math.Abs(v))
		}
		require.Equal(t, top, cc.top[u])
	}
	var cc colCache
	cc.reset(n)
	for j := range 16 {
		cc.stamp++
		cc.get(p.phi, m, n, j, 1)
	}
	cc.stamp++
	require.Equal(t, cc.slot[3], cc.get(p.phi, m, n, 3, 1))
	for _, j := range []int{16, 17} {
		cc.stamp++
		cc.get(p.phi, m, n, j, 1)
	}
	require.Len(t, cc.owner, 16)
	require.Equal(t, -1, cc.slot[0])
	require.Equal(t, -1, cc.slot[1])
	for j := 2; j < 18; j++ {
		check(&cc, j)
	}

	cc.reset(n)
	cc.stamp++
	for j := range 40 {
		cc.get(p.phi, m, n, j, 20)
	}
	require.Len(t, cc.owner, 40)
	for j := range 40 {
		check(&cc, j)
	}
	cc.get(p.phi, m, n, 40, 20)
	require.Len(t, cc.owner, 40)
	require.Equal(t, -1, cc.slot[0])
	check(&cc, 40)

	// A reset of the same width forgets every column (a stale slot would
	// hand out another Phi's column).
	cc.reset(n)
	require.Empty(t, cc.owner)
	for j := range n {
		require.Equal(t, -1, cc.slot[j], "column %d after reset", j)
	}
}

// TestM3PassiveAtThreshold pins Passive at t equal to the largest
// |(Phi^T y)_j|/M (documented: "When t >= max_j ..." the signed unit
// vector of the largest), where the soft threshold is zero: Phi =
// diag(1, 3), so Phi^T y / M = (y_1/2, 3 y_2/2), exact, and t = 1.5.
func TestM3PassiveAtThreshold(t *testing.T) {
	for _, y2 := range []float64{1, -1} {
		p, err := NewProblem([]float64{1, 0, 0, 3}, 2, 2, []float64{1, y2})
		require.NoError(t, err)
		x := make([]float64, 2)
		require.NoError(t, Passive(p, x, 1.5))
		require.Equal(t, []float64{0, y2}, x)
	}
}

// TestM3PursueZeroIterate pins pursue's estimate when its only iterate is
// zero: Phi's rows sum to zero and every sign is -1, so Phi^T y = 0, the
// first iterate is 0 (violating all M signs, sign(0) = +1) and a fixed
// point. The iterate with the fewest violations is that 0, and pw.x must
// be 0, not what an earlier pursue on the Solver left in its buffers.
func TestM3PursueZeroIterate(t *testing.T) {
	var s Solver
	prime := randomProblem(t, 4, 3, 6)
	s.resize(prime)
	require.True(t, s.pursue(context.Background(), prime, 2, 0, 50, 10))
	require.NotZero(t, vec.Nrm2(s.pw.x), "the first pursue must leave a non-zero estimate for the test")
	p := m3ZeroBackprojection(t)
	s.resize(p)
	require.True(t, s.pursue(context.Background(), p, 2, 0, 50, 10))
	require.Equal(t, []float64{0, 0, 0}, s.pw.x[:3])
	// One iteration: a product with Phi^T and one with the (no) columns.
	require.Equal(t, 2, s.full.products)
	require.Equal(t, 1, s.full.trans)
}

// TestM3ReserveGrowth pins wolfeWork.reserve's growth ("for at least s,
// with half as much again as before when they must grow", at least 8):
// from nothing a support of 8 sizes for 8, one of 9 for 12 = 8 + 8/2,
// supports up to 12 then keep it (no new buffers: the same b), 13 sizes
// for 18.
func TestM3ReserveGrowth(t *testing.T) {
	var cw wolfeWork
	for _, c := range []struct{ s, capS int }{{3, 8}, {8, 8}, {9, 12}, {12, 12}, {13, 18}} {
		b := cw.b
		cw.reserve(10, c.s)
		require.Equal(t, c.capS, cw.capS, "support %d", c.s)
		require.GreaterOrEqual(t, cap(cw.corral), c.capS+3, "support %d", c.s)
		if c.s == 12 {
			require.Same(t, &b[0], &cw.b[0], "a support of 12 within 12 must keep the buffers")
		}
	}
}

// TestM3RegressCap pins the sign regression's cap at M/4 (regressMaxSupport's
// doc: "also capped at M/4 and N"), by hand. Phi is 20 x 6: column j is
// -1 on rows 3j..3j+2 (disjoint blocks), rows 18 and 19 are zero; y is -1
// on the 18 block rows and +1 on the zero rows. Every column scores
// <a_j, y>^2/||a_j||^2 = 3 (ties join in index order), the first drop
// 20 log(20/17) = 3.25 is below the RIC's 2 log 6 = 3.58 (the RIC stops
// at 0), and past it every column lowers the residual. The fit on j
// blocks violates the 18 - 3j block rows it leaves at 0 (sign(0) = +1), so
// the descriptions fall to 0 violations at 6 columns; the cap
// min(256, N, M/4) = 5 stops at 5 columns, 3 violations.
func TestM3RegressCap(t *testing.T) {
	const m, n = 20, 6
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range m {
		y[i] = 1
		if i < 18 {
			phi[i*n+i/3] = -1
			y[i] = -1
		}
	}
	require.Less(t, description(n, m, 6, 0), description(n, m, 5, 3), "without the cap, 6 columns would be the shortest")
	s, fit := regressOn(t, phi, m, n, y)
	require.Equal(t, 5, fit.k)
	require.Equal(t, 3, fit.v)
	require.Equal(t, []int{0, 1, 2, 3, 4}, s.rw.sel)
	require.Zero(t, fit.ricK)
}

// TestM3RegressExtendWindow pins the regression's stop past the RIC (regress:
// "while the fit's description of the signs shortened within the last
// regressExtend joins"; the RIC stop sets the penalty to 0: "any column
// that lowers the residual joins"), and its cost, by hand, on dyadic
// columns where every residual is exact. Phi is 100 x 13: column 0 is -1
// on rows 0..15 (y = -1), column j = 1..12 is +1 on row 15+j (y = +1),
// the other rows are zero (y = +1). Column 0 scores 16, the others 1.
//
//   - Product 1 (residual y, 100 rows non-zero: dense, work 1): column 0
//     joins (100 log(100/84) = 17.4 > 2 log 13 = 5.13; its rows' residual
//     is then exactly 0), column 1 fails (100 log(84/83) = 1.2).
//   - Product 2 (84 rows: 0.84 < 0.85, work 0.84): column 1 fails again:
//     the RIC stop at 1 column; its fit violates no sign.
//   - Product 3 (work 0.84): columns 1..4 join (penalty 0), each a longer
//     description (no sign left to fix).
//   - Product 4 (80 rows, 0.80): columns 5..8 join; 8 joins past the best
//     (1 column), so the regression stops.
//
// The fit is e_1 on column 0 (one more pass over its column, 1/13).
func TestM3RegressExtendWindow(t *testing.T) {
	const m, n = 100, 13
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range m {
		y[i] = 1
		switch {
		case i < 16:
			phi[i*n] = -1
			y[i] = -1
		case i < 28:
			phi[i*n+i-15] = 1
		}
	}
	s, fit := regressOn(t, phi, m, n, y)
	require.Equal(t, 1, fit.k)
	require.Zero(t, fit.v)
	require.Equal(t, []int{0}, s.rw.sel)
	require.Equal(t, 1, fit.ricK)
	want := make([]float64, n)
	want[0] = 1
	require.Equal(t, want, fit.x)
	require.Equal(t, 4, s.full.products, "products with Phi^T")
	w := 0.0
	for _, d := range []float64{1, 1, 84.0 / 100, 84.0 / 100, 80.0 / 100, 1.0 / 13} {
		w += d
	}
	require.Equal(t, w, s.full.work)
}

// TestM3FuncGradCost pins the x-update's product counts (Result.Work: "a
// full FISTA step (Phi x and Phi^T r in one sweep over Phi) 2";
// splitting.FuncGrad: "none with A^T when every measurement is
// satisfied", and Solver.kkt likewise), on signs consistent with x: on
// the full Phi one FuncGrad is 2 products, 1 transposed, work 2; on a
// working set of 4 of 8 columns it is 1 product (A x, work 4/8) and the
// gradient is rho (x - c) alone; the stationarity check there makes no
// product with Phi^T.
func TestM3FuncGradCost(t *testing.T) {
	const m, n = 20, 8
	rng := rand.New(rand.NewPCG(21, 22))
	phi := gaussianPhi(rng, m, n)
	x0 := randomUnit(rng, n)
	ax := make([]float64, m)
	vec.MulVec(ax, phi, m, n, x0)
	y := make([]float64, m)
	for i, a := range ax {
		y[i] = sign(a)
	}
	p, err := NewProblem(phi, m, n, y)
	require.NoError(t, err)
	var s Solver
	s.resize(p)
	s.fullInit(p, x0)
	sp := &s.sp
	sp.p, sp.op, sp.lambda, sp.rho = p, s.op, 3, 2
	clear(sp.c)
	grad := make([]float64, n)
	sp.FuncGrad(grad, x0)
	require.Equal(t, 2, s.full.products)
	require.Equal(t, 1, s.full.trans)
	require.Equal(t, 2.0, s.full.work)

	// A working set holding x0's 4 largest coordinates, with x the
	// restriction of x0 (y consistent with it too).
	s.wsInit(p, x0, 4)
	xs := s.x[:4]
	vec.MulVec(ax, phi, m, n, xsFull(&s, n))
	for i, a := range ax {
		p.y[i] = sign(a)
	}
	sp.op = s.op
	p0, t0, w0 := s.ws.products, s.ws.trans, s.ws.work
	g := make([]float64, 4)
	sp.FuncGrad(g, xs)
	require.Equal(t, 1, s.ws.products-p0)
	require.Equal(t, 0, s.ws.trans-t0)
	require.Equal(t, 0.5, s.ws.work-w0)
	for c := range 4 {
		require.Equal(t, sp.rho*(xs[c]-sp.c[c]), g[c])
	}
	ft := s.full.trans
	require.Nil(t, s.kkt(p, 3, 1))
	require.Equal(t, ft, s.full.trans, "the check at a consistent x must not multiply by Phi^T")
}

// xsFull returns the working-set iterate of s as a vector of n.
func xsFull(s *Solver, n int) []float64 {
	x := make([]float64, n)
	s.unslot(x, s.x[:s.ws.k])
	return x
}

// TestM3CompactSparseRows pins the compact product with A^T over the
// residual's rows (compactSparseRows = 1/8: "the fraction of non-zero
// residual rows below which" it runs over those rows only), through its
// cost: on 16 rows, 1 row is below 16/8 = 2 and costs 1 row's worth of
// the k = 4 columns (work 4/(16 N)), 2 rows are not and cost the dense
// product over the 4 columns (work 4/N). Both give A^T r.
func TestM3CompactSparseRows(t *testing.T) {
	p := randomProblem(t, 16, 10, 3)
	var s Solver
	s.resize(p)
	s.wsInit(p, randomUnit(rand.New(rand.NewPCG(1, 2)), p.n), 4)
	s.sp.p, s.sp.op = p, s.op
	for _, c := range []struct {
		rows []int
		work float64
	}{{[]int{5}, 4.0 / (16 * 10)}, {[]int{5, 9}, 4.0 / 10}} {
		r := make([]float64, 16)
		for _, i := range c.rows {
			r[i] = float64(i) - 7.5
		}
		grad := make([]float64, 4)
		w0 := s.ws.work
		s.sp.mulTResidualOf(grad, r, c.rows)
		require.Equal(t, c.work, s.ws.work-w0, "%d rows", len(c.rows))
		for u := range 4 {
			want := 0.0
			for _, i := range c.rows {
				want += s.ws.col(u)[i] * r[i]
			}
			require.InDelta(t, want, grad[u], 1e-12)
		}
	}
}

// TestM3WeightedL1 pins splitting.l1 with weights: sum_j weight_j |x_j|,
// where a zero x_j counts 0 even at an infinite weight (0*Inf would be
// NaN; the reweighted stages pin coordinates off the support so).
func TestM3WeightedL1(t *testing.T) {
	sp := splitting{weight: []float64{math.Inf(1), 2, 0}}
	require.Equal(t, 3.0, sp.l1([]float64{0, -1.5, 4}))
}

// TestM3BestCoordinateTies pins BestCoordinate's tie rule ("lowest j and
// then +e_j on ties"): Phi all ones (2 x 3) with y = (1, -1) gives every
// signed coordinate vector the loss 1/2 (one violated row of magnitude
// 1), so the answer is +e_1, with objective 1 + lambda/2.
func TestM3BestCoordinateTies(t *testing.T) {
	p, err := NewProblem([]float64{1, 1, 1, 1, 1, 1}, 2, 3, []float64{1, -1})
	require.NoError(t, err)
	x := make([]float64, 3)
	require.Equal(t, 1.5, p.BestCoordinate(x, 1))
	require.Equal(t, []float64{1, 0, 0}, x)
}

// TestM3WarmStart pins wolfeWork.warm: from a start of more than s+1
// rows it keeps the s+1 of largest weight, largest first, renormalized,
// and runs the minor cycles. Rows (s = 2) b_0 = (1, 0),
// b_1 = (-1, 1)/sqrt 2, b_2 = (-1, -1)/sqrt 2, b_3 = (0, 1), weights 0.5,
// 0.2, 0.25, 0.05: b_3 leaves, the corral is (b_0, b_2, b_1), and their
// affine hull is the plane, whose point of minimum norm is the origin, in
// the triangle: the minor cycle keeps all three with its barycentric
// weights sqrt 2 - 1 for b_0 and (2 - sqrt 2)/2 for the others (by
// symmetry and sum_t lam_t b_t = 0). No major cycle (maxIter 0): the
// point is the origin, so solve reports it below the floor.
func TestM3WarmStart(t *testing.T) {
	cols := [][]float64{{1, -1, -1, 0}, {0, 1, -1, 1}}
	var cw wolfeWork
	require.Equal(t, 4, cw.load(4, 2, func(c int) []float64 { return cols[c] }, []float64{1, 1, 1, 1}, nil))
	cw.start = append(cw.start[:0], 0, 1, 2, 3)
	cw.startLam = append(cw.startLam[:0], 0.5, 0.2, 0.25, 0.05)
	x := []float64{1, 0}
	require.Zero(t, cw.solve(x, 2, 0, 0, nil))
	require.True(t, cw.belowFloor)
	require.Equal(t, []int{0, 2, 1}, cw.corral)
	want := []float64{math.Sqrt2 - 1, (2 - math.Sqrt2) / 2, (2 - math.Sqrt2) / 2}
	require.InDeltaSlice(t, want, cw.lam, 1e-12)
}

// m3FISTASetup returns a Solver whose x-update runs fistaCompact on a
// working set of all 3 columns of a 4 x 3 Phi with positive entries and
// signs y (all +1: every non-negative non-zero x satisfies them all, and
// the loss is 0 there), with rho = 1, lambda = 1/2 and c.
func m3FISTASetup(t *testing.T, y float64, c []float64) *Solver {
	phi := make([]float64, 12)
	for k := range phi {
		phi[k] = float64(k%5+1) / 4
	}
	p, err := NewProblem(phi, 4, 3, []float64{y, y, y, y})
	require.NoError(t, err)
	var s Solver
	s.resize(p)
	s.wsInit(p, []float64{1, 1, 1}, 3)
	sp := &s.sp
	sp.p, sp.op, sp.lambda, sp.rho, sp.cap = p, s.op, 0.5, 1, 0
	sp.norm2 = s.ws.norm2(s.pv[:3], s.pu)
	copy(sp.c, c)
	return &s
}

// TestM3FISTACompactSteps pins fistaCompact's step constant and stop on a
// quadratic (no violated sign along the way, so f = rho/2 ||x - c||^2,
// curvature rho = 1), where one proximal step with constant L from x is
// soft(x - (x - c)/L, 1/L), exact in dyadic arithmetic:
//
//   - "Each x-update starts from half the constant the previous one ended
//     with (rho at first)": from lastL = 0, L = rho and the step lands on
//     the minimizer soft(c, 1) = (2, 1, 0.5) for c = (3, 2, 1.5); from
//     lastL = 4, L = 2 (the test of sufficient decrease passes: 2 is above
//     the curvature) and the step lands on soft((2, 1.5, 1.25), 0.5) =
//     (1.5, 1, 0.75), and L stays 2.
//   - The stop ("a step changes x by at most Tol relative to max(1,
//     ||x||)"): from (0.75, 0, 0) to the minimizer (0.5, 0, 0) of
//     c = (1.5, 0, 0) the step is 0.25, within 0.3 max(1, 0.5): one step
//     (relative to ||x|| = 0.5 alone it would take a second).
func TestM3FISTACompactSteps(t *testing.T) {
	for _, c := range []struct {
		lastL, wantL float64
		x, want      []float64
	}{{0, 1, []float64{1, 1, 1}, []float64{2, 1, 0.5}}, {4, 2, []float64{1, 1, 1}, []float64{1.5, 1, 0.75}}} {
		s := m3FISTASetup(t, 1, []float64{3, 2, 1.5})
		require.Greater(t, s.sp.lambda*s.sp.norm2+s.sp.rho, 4.0, "the global constant must not cap L for the test")
		s.sp.fw.lastL = c.lastL
		x := slices.Clone(c.x)
		steps, err := s.sp.fistaCompact(x, 0, 1)
		require.NoError(t, err)
		require.Equal(t, 1, steps)
		require.Equal(t, c.want, x, "previous L %g", c.lastL)
		require.Equal(t, c.wantL, s.sp.fw.lastL)
	}
	s := m3FISTASetup(t, 1, []float64{1.5, 0, 0})
	x := []float64{0.75, 0, 0}
	steps, err := s.sp.fistaCompact(x, 0.3, 10)
	require.NoError(t, err)
	require.Equal(t, 1, steps)
	require.Equal(t, []float64{0.5, 0, 0}, x)
}

// TestM3FISTACompactGlobalStep pins fistaCompact at the global constant
// ("doubles it while the trial step fails the sufficient-decrease test
// ..., up to the global constant, where the step is taken as the
// fixed-step solver takes it"): with a norm estimate of 0 the global
// constant is rho, the first step's, and the step soft(x - g, 1) is taken
// though it fails the test (checked here: the signs are all -1, every
// row violated at x, lambda = 1/2 makes the curvature far above rho).
// g = lambda A^T (A x) + rho (x - c) is computed here from Phi.
func TestM3FISTACompactGlobalStep(t *testing.T) {
	s := m3FISTASetup(t, -1, []float64{0, 0, 0})
	s.sp.norm2 = 0
	x := []float64{1, 1, 1}
	q := subproblem{a: s.sp.p.phi, m: 4, k: 3, y: s.sp.p.y, lambda: 0.5, rho: 1, c: []float64{0, 0, 0}}
	fq := func(z []float64) float64 {
		l, _ := q.loss(z)
		d := 0.0
		for _, v := range z {
			d += v * v
		}
		return q.lambda*l + d/2
	}
	_, r := q.loss(x)
	g, tt := make([]float64, 3), make([]float64, 3)
	for j := range 3 {
		g[j] = x[j]
		for i := range 4 {
			g[j] += q.lambda * q.a[i*3+j] * r[i]
		}
		tt[j] = x[j] - g[j]
	}
	want := make([]float64, 3)
	vec.SoftThreshold(want, tt, 1)
	model := fq(x)
	for j := range 3 {
		model += g[j]*(want[j]-x[j]) + (want[j]-x[j])*(want[j]-x[j])/2
	}
	require.Greater(t, fq(want), model*(1+1e-6), "the step must fail the sufficient-decrease test for the test")
	type out struct {
		steps int
		err   error
	}
	ch := make(chan out, 1)
	go func() {
		steps, err := s.sp.fistaCompact(x, 0, 1)
		ch <- out{steps, err}
	}()
	select {
	case o := <-ch:
		require.NoError(t, o.err)
		require.Equal(t, 1, o.steps)
		require.InDeltaSlice(t, want, x, 1e-12)
	case <-time.After(20 * time.Second):
		t.Fatal("fistaCompact did not take the step at the global constant (still running after 20 s)")
	}
}

// TestM3RegressHalfViolated pins fitDescription's rule that a fit
// violating half of the signs or more has no description (+Inf: it tells
// them no better than a coin), so that a longer prefix with a finite one
// is kept. Phi is 12 x 100
// with column 0 = -1 on rows 0..5, column 1 = -1 on row 6, the others
// zero; y = -1 throughout. The RIC stops at once (12 log 2 = 8.3 below
// 2 log 100 = 9.2); then column 0 joins (6 violations: 2v = M) and
// column 1 (5 violations). On one column the description would be the
// shorter (log 100 + log(12)/2 + log C(12, 6) = 12.6 against 17.7), but
// it does not count: the fit keeps both columns.
func TestM3RegressHalfViolated(t *testing.T) {
	const m, n = 12, 100
	phi, y := make([]float64, m*n), make([]float64, m)
	for i := range m {
		y[i] = -1
		if i < 6 {
			phi[i*n] = -1
		}
	}
	phi[6*n+1] = -1
	require.Less(t, description(n, m, 1, 6), description(n, m, 2, 5))
	s, fit := regressOn(t, phi, m, n, y)
	require.Equal(t, 2, fit.k)
	require.Equal(t, 5, fit.v)
	require.Equal(t, []int{0, 1}, s.rw.sel)
}

// TestM3CentroidNearRows pins which rows start with a site in
// centroidWork.estimate ("those whose margin at the center is below
// centroidNear = 6 times the smallest"): on random cells of 300 rows in 3
// dimensions, every row whose margin at the center is at most 6 times the
// smallest has a site (or repeats one that has) when the estimate ends
// (joins only add rows). Some of them lie more than 3 deviations from the
// final posterior (checked: they would not have joined later).
func TestM3CentroidNearRows(t *testing.T) {
	const n, q = 300, 3
	far := 0
	for seed := uint64(1); seed <= 6; seed++ {
		rows, x0 := randomCell(n, q, seed)
		dir := cellCenter(t, rows, n, q, x0)
		dots := make([]float64, n)
		vec.MulVec(dots, rows, n, q, dir)
		mg := slices.Min(dots)
		var ew centroidWork
		d := slices.Clone(dir)
		_, _, ok := ew.estimate(rows, n, q, d, nil)
		require.True(t, ok)
		mu, sig := ew.mu[:q], ew.sig[:q*q]
		nm := math.Sqrt(dot3(mu, mu))
		for i, v := range dots {
			if v > 6*mg { // centroidNear's documented 6
				continue
			}
			require.True(t, ew.in[i], "seed %d: row %d, margin %g <= 6 x %g, has no site", seed, i, v, mg)
			// Its margin at the final direction against 3 deviations.
			b := rows[i*q : (i+1)*q]
			c := dot3(b, ew.prev[:q])
			perp := make([]float64, q)
			for u := range q {
				perp[u] = b[u] - c*ew.prev[u]
			}
			sp := make([]float64, q)
			vec.MulVec(sp, sig, q, q, perp)
			if c*nm >= centroidSafe*math.Sqrt(dot3(perp, sp)) {
				far++
			}
		}
	}
	t.Logf("%d rows near the center lie beyond %d deviations at the end", far, centroidSafe)
	require.Positive(t, far)
}

// TestM3CentroidDedupe pins dedupe ("keeps one site per distinct row of
// ew.act and leaves act in row order"; the earliest of equal rows is
// kept): rows (1, 0), (0.6, 0.8), (0.8, 0.6), (0.6, 0.8) listed out of
// order; rows 1 and 3 are equal and row 2 has the same product with the
// direction (1, 1) (1.4) but is another row: act becomes (0, 1, 2).
func TestM3CentroidDedupe(t *testing.T) {
	b := []float64{1, 0, 0.6, 0.8, 0.8, 0.6, 0.6, 0.8}
	var ew centroidWork
	ew.resize(2, 4)
	vec.MulVec(ew.dots, b, 4, 2, []float64{1, 1})
	require.Equal(t, ew.dots[1], ew.dots[2])
	ew.act = append(ew.act[:0], 3, 2, 0, 1)
	ew.dedupe(b, 2)
	require.Equal(t, []int{0, 1, 2}, ew.act)
}
