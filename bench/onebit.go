package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/neadmm/neadmm/internal/svgplot"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/onebit"
)

var onebitCommand = Command{
	Name:  "onebit",
	Short: "1-bit compressive sensing: the paper's objective-vs-M grid, recovery vs BIHT and passive, solve speed",
	Flags: onebitFlags,
	// Three M values of the grid at K = 32 (N = 512, three instances
	// each) and three ratios of the recovery at N = 250 (two instances
	// each), so both figures draw curves, not lone points: about 2 s
	// here.
	TourArgs: []string{"-grid-m", "100,250,400", "-grid-k", "32", "-rec-n", "250", "-rec-ratios", "0.5,1,2",
		"-rec-seeds", "2", "-rec-families", "gauss/10", "-rec-flips", "0", "-scale-seeds", "0", "-speed-n", "0"},
}

// OnebitResult is the onebit command's JSON "results". A part not run (or
// not reached before an interruption) is absent.
type OnebitResult struct {
	Grid     *OnebitGrid     `json:"grid,omitempty"`
	Recovery *OnebitRecovery `json:"recovery,omitempty"`
	Scaling  *OnebitScaling  `json:"scaling,omitempty"`
	Speed    *OnebitSpeed    `json:"speed,omitempty"`
}

// OnebitGrid is the paper's Figure 1 experiment: objectives at the paper's
// lambda for N fixed, M and K varied.
type OnebitGrid struct {
	N      int     `json:"n"`
	Lambda float64 `json:"lambda"`
	Seeds  int     `json:"seeds"`
	Ks     []int   `json:"ks"`
	Ms     []int   `json:"ms"`
	// Cells are in the order run (K outer, M inner); an interrupted run
	// holds the finished ones.
	Cells []*OnebitCell `json:"cells"`
}

// OnebitCell holds the means over the seeds of one (K, M) cell. Objectives
// are the paper's objective at the estimate (unit norm) at Lambda.
type OnebitCell struct {
	K int `json:"k"`
	M int `json:"m"`
	// NeADMM uses onebit.DefaultOptions, Paper onebit.PaperOptions (fixed
	// rho = 1), Truth is the normalized ground truth, Passive and BIHT the
	// baselines (BIHT told K), BestCoord the best signed coordinate vector.
	NeADMM    float64 `json:"neadmm"`
	Paper     float64 `json:"paper"`
	Truth     float64 `json:"truth"`
	Passive   float64 `json:"passive"`
	BIHT      float64 `json:"biht"`
	BestCoord float64 `json:"best_coord"`
	// NeADMMConverged and PaperConverged count the seeds whose solve met
	// the residual tolerances; Iterations is neADMM's mean outer count.
	NeADMMConverged int     `json:"neadmm_converged"`
	PaperConverged  int     `json:"paper_converged"`
	Iterations      float64 `json:"neadmm_iterations"`
	// Mean wall times of one solve in milliseconds.
	NeADMMMs float64 `json:"neadmm_ms"`
	PaperMs  float64 `json:"paper_ms"`
	BIHTMs   float64 `json:"biht_ms"`
}

// OnebitRecovery is the recovery protocol: angular error against M/N,
// for each instance family and fraction of flipped signs.
type OnebitRecovery struct {
	N      int       `json:"n"`
	Seeds  int       `json:"seeds"`
	Ratios []float64 `json:"ratios"`
	// Settings are in the order run (family outer, flips inner); an
	// interrupted run holds the finished ones.
	Settings []*OnebitRecSetting `json:"settings"`
}

// OnebitRecSetting is one instance family at one flip rate.
type OnebitRecSetting struct {
	// Family is "gauss" (onebit.Generate: N(0,1) Phi, N(0,1) non-zeros)
	// or "rademacher" (an independent generator: +-1/sqrt(M) Phi, non-zeros
	// of magnitudes uniform in [0.2, 1] with random signs, ChaCha8 seeds).
	Family string  `json:"family"`
	K      int     `json:"k"`
	Flip   float64 `json:"flip"`
	// Points are in the order run.
	Points []*OnebitRecPoint `json:"points"`
}

// OnebitRecPoint is one M/N ratio over all seeds. Errors are angular
// errors arccos(<x, x_hat>)/pi in [0, 1].
type OnebitRecPoint struct {
	Ratio float64 `json:"ratio"`
	M     int     `json:"m"`
	// NeADMM is onebit.Solver.Recover with DefaultRecoverOptions (K not
	// given), BIHT is told K, Passive uses the threshold sqrt(log N / M).
	NeADMM  Stat `json:"neadmm_error"`
	BIHT    Stat `json:"biht_error"`
	Passive Stat `json:"passive_error"`
	// Wins counts the seeds where neADMM's error is at most BIHT's.
	Wins int `json:"neadmm_wins"`
	// Regressed counts the seeds where Recover kept its sign regression
	// (onebit.RecoverResult.Regressed).
	Regressed int `json:"neadmm_regressed"`
	// Support sizes and Hamming errors (fractions).
	NeADMMSupport Stat    `json:"neadmm_support"`
	NeADMMHamming float64 `json:"neadmm_hamming"`
	BIHTHamming   float64 `json:"biht_hamming"`
	// CPU times of the solving thread in milliseconds (wall times where
	// the platform has no thread clock), and per instance the ratio
	// neADMM/BIHT.
	NeADMMCPUMs Stat `json:"neadmm_cpu_ms"`
	BIHTCPUMs   Stat `json:"biht_cpu_ms"`
	CPURatio    Stat `json:"cpu_ratio"`
	// Work in units of one product with the whole of Phi (Result.Work).
	NeADMMWork Stat `json:"neadmm_work"`
	BIHTWork   Stat `json:"biht_work"`
}

// OnebitScaling is the cost of Recover and BIHT against N (M = N).
type OnebitScaling struct {
	K     int `json:"k"`
	Seeds int `json:"seeds"`
	// Points are in the order of N.
	Points []*OnebitScalePoint `json:"points"`
	// Slopes of log(median CPU time) against log N (least squares), over
	// the points run.
	NeADMMSlope float64 `json:"neadmm_slope"`
	BIHTSlope   float64 `json:"biht_slope"`
}

// OnebitScalePoint is one N = M.
type OnebitScalePoint struct {
	N           int  `json:"n"`
	NeADMMCPUMs Stat `json:"neadmm_cpu_ms"`
	BIHTCPUMs   Stat `json:"biht_cpu_ms"`
	NeADMMWork  Stat `json:"neadmm_work"`
	BIHTWork    Stat `json:"biht_work"`
	NeADMM      Stat `json:"neadmm_error"`
	BIHT        Stat `json:"biht_error"`
}

// OnebitSpeed is the cost of Solve at N = M: the defaults (working set,
// coordinate check) and the paper's settings (the full matrix).
type OnebitSpeed struct {
	N    int `json:"n"`
	M    int `json:"m"`
	Reps int `json:"reps"`
	// Rows: "default" and "paper".
	Rows []*OnebitSpeedRow `json:"rows"`
	// BIHTCPUMs is the CPU time of BIHT (told K = N/100) on the same
	// problem, and BestCoord the best signed coordinate vector's objective.
	BIHTCPUMs float64 `json:"biht_cpu_ms"`
	BestCoord float64 `json:"best_coord"`
}

// OnebitSpeedRow is one option set's solve.
type OnebitSpeedRow struct {
	Options string `json:"options"`
	// CPUMs is the CPU time of one solve (medians of Reps), Work its cost
	// in full products (Result.Work), Products the product calls of any
	// size.
	CPUMs           Stat    `json:"cpu_ms"`
	Iterations      int     `json:"iterations"`
	InnerIterations int     `json:"inner_iterations"`
	Products        int     `json:"products"`
	Work            float64 `json:"work"`
	Objective       float64 `json:"objective"`
	WorkingSet      int     `json:"working_set"`
	Coordinate      bool    `json:"coordinate"`
}

// onebitArgs holds the onebit command's flag values and what its check
// parses from them.
type onebitArgs struct {
	gridN, gridSeeds, recN, recSeeds, scaleSeeds, speedN, workers int
	gridM, gridK, recFams, recFlips, recRatios, scaleN            string
	lambda                                                        float64

	ms, ks, scaleNs []int
	ratios, flips   []float64
	fams            []recFamily
}

func onebitFlags(fs *FlagSet) RunFunc {
	a := &onebitArgs{}
	fs.IntVar(&a.gridN, "grid-n", 512, "signal length `N` of the grid (the paper's 512)")
	fs.StringVar(&a.gridM, "grid-m", "50,100,150,200,250,300,350,400,450,500", "comma-separated, increasing measurement counts `M` of the grid")
	fs.StringVar(&a.gridK, "grid-k", "16,32,48,64", "comma-separated, increasing sparsities `K` of the grid (one panel each)")
	fs.IntVar(&a.gridSeeds, "grid-seeds", 3, "instances per grid cell (objectives and times are means); 0 skips the grid")
	fs.Float64Var(&a.lambda, "lambda", 0.01, "the grid's `lambda` (the paper's 0.01)")
	fs.IntVar(&a.recN, "rec-n", 1000, "signal length `N` of the recovery protocol")
	fs.StringVar(&a.recFams, "rec-families", "gauss/10,rademacher/20", "comma-separated instance `families` of the recovery protocol, each name/K: gauss (onebit.Generate) or rademacher (an independent generator)")
	fs.StringVar(&a.recFlips, "rec-flips", "0,0.03,0.1", "comma-separated, increasing fractions of flipped signs of the recovery protocol")
	fs.StringVar(&a.recRatios, "rec-ratios", "0.25,0.5,1,1.5,2", "comma-separated, increasing `ratios` M/N of the recovery protocol")
	fs.IntVar(&a.recSeeds, "rec-seeds", 50, "instances per ratio; 0 skips the recovery protocol")
	fs.StringVar(&a.scaleN, "scale-n", "250,500,1000,2000,4000", "comma-separated, increasing `N` (= M, K = 10) of the scaling of Recover and BIHT")
	fs.IntVar(&a.scaleSeeds, "scale-seeds", 3, "instances per N of the scaling; 0 skips it")
	fs.IntVar(&a.speedN, "speed-n", 1000, "N = M of the speed measurement; 0 skips it")
	fs.IntVar(&a.workers, "workers", 1, "instances solved in parallel (times are per solve, so >1 inflates them on a busy machine)")
	fs.Check(a.check)
	return a.run
}

// check parses the lists and checks every value.
func (a *onebitArgs) check() (err error) {
	if a.fams, err = parseFamilies(a.recFams); err != nil {
		return fmt.Errorf("-rec-families: %w", err)
	}
	if a.flips, err = parseFlips(a.recFlips); err != nil {
		return fmt.Errorf("-rec-flips: %w", err)
	}
	if a.scaleNs, err = parseInts(a.scaleN); err != nil {
		return fmt.Errorf("-scale-n: %w", err)
	}
	for _, f := range a.fams {
		if f.k > a.recN {
			return fmt.Errorf("-rec-families %s: K = %d above -rec-n %d", a.recFams, f.k, a.recN)
		}
	}
	if a.ms, a.ks, err = parseGrid("-grid-", a.gridN, a.gridM, a.gridK); err != nil {
		return err
	}
	if a.ratios, err = parseRatios(a.recRatios); err != nil {
		return fmt.Errorf("-rec-ratios: %w", err)
	}
	if err := a.checkSizes(); err != nil {
		return err
	}
	switch {
	case a.recN < 1:
		return fmt.Errorf("-rec-n %d: want >= 1", a.recN)
	case len(a.scaleNs) > 0 && a.scaleNs[0] < 10:
		return fmt.Errorf("-scale-n %s: want every N >= 10 (K = 10)", a.scaleN)
	case a.gridSeeds < 0 || a.recSeeds < 0 || a.speedN < 0 || a.scaleSeeds < 0 || a.workers < 1:
		return errors.New("-grid-seeds, -rec-seeds, -scale-seeds and -speed-n must be >= 0, -workers >= 1")
	case !(a.lambda > 0) || math.IsInf(a.lambda, 0):
		return fmt.Errorf("-lambda %g: want finite and > 0", a.lambda)
	}
	return nil
}

// checkSizes caps the counts and the instance sizes: M*N of the largest
// recovery instance (M = ratio*N, rademacher instances included, which
// onebit.Generate does not make), of the scaling's and the speed
// measurement's (M = N), as onebit.DefaultMaxEntries caps Generate.
func (a *onebitArgs) checkSizes() error {
	if err := checkCounts(map[string]int{"-grid-seeds": a.gridSeeds, "-rec-seeds": a.recSeeds,
		"-scale-seeds": a.scaleSeeds, "-workers": a.workers}); err != nil {
		return err
	}
	const what, capName = "M x N", "onebit.DefaultMaxEntries"
	n := float64(a.recN)
	if err := capProduct(fmt.Sprintf("-rec-n %d -rec-ratios %s", a.recN, a.recRatios), what, capName,
		onebit.DefaultMaxEntries, n, math.Round(a.ratios[len(a.ratios)-1]*n)); err != nil {
		return err
	}
	if len(a.scaleNs) > 0 {
		n := float64(a.scaleNs[len(a.scaleNs)-1])
		if err := capProduct("-scale-n "+a.scaleN, what, capName, onebit.DefaultMaxEntries, n, n); err != nil {
			return err
		}
	}
	return capProduct(fmt.Sprintf("-speed-n %d", a.speedN), what, capName, onebit.DefaultMaxEntries, float64(a.speedN), float64(a.speedN))
}

// run runs the parts not skipped: the grid, the recovery protocol, the
// scaling and the speed measurement.
func (a *onebitArgs) run(ctx context.Context, env *Env) error {
	res := &OnebitResult{}
	env.Results(res)
	if a.gridSeeds > 0 {
		g := &OnebitGrid{N: a.gridN, Lambda: a.lambda, Seeds: a.gridSeeds, Ks: a.ks, Ms: a.ms}
		res.Grid = g
		err := runOnebitGrid(ctx, env, g, a.workers)
		gridSummary(env, g) // also after Ctrl-C, over the finished cells
		if len(g.Cells) > 0 {
			env.Figure("objective", gridFigure(g))
		}
		if err != nil {
			return err
		}
	}
	if a.recSeeds > 0 {
		r := &OnebitRecovery{N: a.recN, Seeds: a.recSeeds, Ratios: a.ratios}
		res.Recovery = r
		err := runOnebitRecovery(ctx, env, r, a.fams, a.flips, a.workers)
		if len(r.Settings) > 0 && len(r.Settings[0].Points) > 0 {
			env.Figure("recovery", recoveryFigure(r))
		}
		if err != nil {
			return err
		}
	}
	if a.scaleSeeds > 0 && len(a.scaleNs) > 0 {
		sc := &OnebitScaling{K: 10, Seeds: a.scaleSeeds}
		res.Scaling = sc
		if err := runOnebitScaling(ctx, env, sc, a.scaleNs, a.workers); err != nil {
			return err
		}
	}
	if a.speedN > 0 {
		sp, err := runOnebitSpeed(ctx, env, a.speedN)
		if err != nil {
			return err
		}
		res.Speed = sp
	}
	return nil
}

// parseGrid reads the M and K lists of a grid of instances of length n,
// given by the flags prefix+"m", prefix+"k" and prefix+"n" (named in the
// errors): increasing, at least one value each, every K <= N.
func parseGrid(prefix string, n int, mList, kList string) (ms, ks []int, err error) {
	if ms, err = parseInts(mList); err != nil {
		return nil, nil, fmt.Errorf("%sm: %w", prefix, err)
	}
	if ks, err = parseInts(kList); err != nil {
		return nil, nil, fmt.Errorf("%sk: %w", prefix, err)
	}
	switch {
	case len(ks) == 0 || len(ms) == 0:
		return nil, nil, fmt.Errorf("%sm and %sk: at least one value each", prefix, prefix)
	case n < 1 || ks[len(ks)-1] > n:
		return nil, nil, fmt.Errorf("%sn %d %sk %s: want N >= 1 and every K <= N", prefix, n, prefix, kList)
	}
	if err := capProduct(fmt.Sprintf("%sn %d %sm %s", prefix, n, prefix, mList), "N x M", "onebit.DefaultMaxEntries",
		onebit.DefaultMaxEntries, float64(n), float64(ms[len(ms)-1])); err != nil {
		return nil, nil, err
	}
	return ms, ks, nil
}

// parseRatios reads a comma-separated, increasing list of positive ratios.
func parseRatios(s string) ([]float64, error) {
	out, err := parseIncreasing(s, "ratio", func(f string) (float64, bool) {
		v, err := strconv.ParseFloat(f, 64)
		return v, err == nil && v > 0 && !math.IsInf(v, 0)
	})
	if err == nil && len(out) == 0 {
		return nil, errors.New("no ratio given")
	}
	return out, err
}

// instanceSeed derives the seed of one generated instance from -seed and
// the instance's coordinates, so that every instance is reproducible on
// its own (whatever else runs, in whatever order).
func instanceSeed(seed uint64, part, a, b, rep int) uint64 {
	h := seed ^ 0x9e3779b97f4a7c15
	for _, v := range [...]int{part, a, b, rep} {
		h = (h ^ uint64(v)) * 0x100000001b3 // FNV-1a style mixing
		h ^= h >> 29
	}
	return h
}

// passiveThreshold is the passive estimator's threshold sqrt(log N / M),
// of the order of the noise in Phi^T y / M that Zhang, Yi and Jin's
// analysis prescribes.
func passiveThreshold(n, m int) float64 { return math.Sqrt(math.Log(float64(n)) / float64(m)) }

// forEach runs fn(i) for i in [0, n) on the given number of goroutines,
// each with its own onebit.Solver; it stops handing out work once ctx is
// done and returns the first error.
func forEach(ctx context.Context, n, workers int, fn func(i int, s *onebit.Solver) error) error {
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // the solves are timed with the thread's CPU clock
			defer runtime.UnlockOSThread()
			var s onebit.Solver
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil || i >= n || ctx.Err() != nil
				mu.Unlock()
				if stop {
					return
				}
				if err := fn(i, &s); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

// gridRun is one instance of a grid cell.
type gridRun struct {
	neadmm, paper, truth, passive, biht, best float64
	neadmmConv, paperConv                     bool
	iters                                     int
	neadmmMs, paperMs, bihtMs                 float64
}

func runGridInstance(ctx context.Context, s *onebit.Solver, n, m, k int, lambda float64, seed uint64) (gridRun, error) {
	var r gridRun
	in, err := onebit.Generate(onebit.GenOptions{M: m, N: n, K: k, Seed: seed})
	if err != nil {
		return r, err
	}
	p, err := in.Problem()
	if err != nil {
		return r, err
	}
	x := make([]float64, n)
	opt := onebit.DefaultOptions()
	opt.Lambda = lambda
	t0 := time.Now()
	res, err := s.Solve(ctx, p, x, opt)
	if err != nil {
		return r, err
	}
	r.neadmmMs, r.neadmm, r.iters = msSince(t0), res.Objective, res.Iterations
	r.neadmmConv = res.Reason == neadmm.StopConverged

	opt = onebit.PaperOptions()
	opt.Lambda = lambda
	t0 = time.Now()
	if res, err = s.Solve(ctx, p, x, opt); err != nil {
		return r, err
	}
	r.paperMs, r.paper = msSince(t0), res.Objective
	r.paperConv = res.Reason == neadmm.StopConverged

	r.truth = p.Objective(in.X, lambda)
	if err := onebit.Passive(p, x, passiveThreshold(n, m)); err != nil {
		return r, err
	}
	r.passive = p.Objective(x, lambda)
	t0 = time.Now()
	if _, err := onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: k, MaxIter: onebit.DefaultBIHTMaxIter}); err != nil {
		return r, err
	}
	r.bihtMs, r.biht = msSince(t0), p.Objective(x, lambda)
	r.best = p.BestCoordinate(x, lambda)
	return r, nil
}

func runOnebitGrid(ctx context.Context, env *Env, g *OnebitGrid, workers int) error {
	env.Note("**The paper's grid** (Figure 1): N = %d, λ = %g, i.i.d. N(0,1) Φ, K-sparse unit x with N(0,1) non-zeros, "+
		"y = sign(Φx); each cell is the mean over %d instance(s). Objective = ‖x‖₁ + (λ/2) Σ min(yᵢ(Φx)ᵢ, 0)² at the unit-norm estimate. "+
		"neADMM: onebit.DefaultOptions (fixed ρ = 10, 100 iterations, start Φᵀy/‖Φᵀy‖); paper: the paper's fixed ρ = 1; "+
		"passive: soft(Φᵀy/M, √(log N/M)); BIHT is told K; best 1-sparse: the best ±eⱼ, the minimizer's usual form at this λ.",
		g.N, g.Lambda, g.Seeds)
	prog := env.Progress("grid", len(g.Ks)*len(g.Ms))
	defer prog.Finish()
	for _, k := range g.Ks {
		tab := &Table{
			Title: fmt.Sprintf("Objective vs M, N = %d, K = %d, λ = %g", g.N, k, g.Lambda),
			Columns: []string{"M", "neADMM", "paper ρ=1", "truth", "passive", "BIHT", "best 1-sparse",
				"conv (neADMM/paper)", "iters", "neADMM ms", "paper ms", "BIHT ms"},
			Note: "Objectives are means over the instances; conv counts the solves that met the residual tolerances.",
		}
		for _, m := range g.Ms {
			if err := ctx.Err(); err != nil {
				if len(tab.Rows) > 0 {
					env.Table(tab)
				}
				return err
			}
			prog.Running(fmt.Sprintf("K=%d M=%d", k, m))
			runs := make([]gridRun, g.Seeds)
			err := forEach(ctx, g.Seeds, workers, func(i int, s *onebit.Solver) error {
				var err error
				runs[i], err = runGridInstance(ctx, s, g.N, m, k, g.Lambda, instanceSeed(env.Seed, 1, k, m, i))
				return err
			})
			if err != nil {
				if len(tab.Rows) > 0 {
					env.Table(tab)
				}
				return err
			}
			c := &OnebitCell{K: k, M: m}
			for _, r := range runs {
				c.NeADMM += r.neadmm
				c.Paper += r.paper
				c.Truth += r.truth
				c.Passive += r.passive
				c.BIHT += r.biht
				c.BestCoord += r.best
				c.Iterations += float64(r.iters)
				c.NeADMMMs += r.neadmmMs
				c.PaperMs += r.paperMs
				c.BIHTMs += r.bihtMs
				if r.neadmmConv {
					c.NeADMMConverged++
				}
				if r.paperConv {
					c.PaperConverged++
				}
			}
			for _, v := range []*float64{&c.NeADMM, &c.Paper, &c.Truth, &c.Passive, &c.BIHT, &c.BestCoord,
				&c.Iterations, &c.NeADMMMs, &c.PaperMs, &c.BIHTMs} {
				*v /= float64(g.Seeds)
			}
			g.Cells = append(g.Cells, c)
			tab.Add(itoa(m), FmtSig(c.NeADMM, 4), FmtSig(c.Paper, 4), FmtSig(c.Truth, 4), FmtSig(c.Passive, 4),
				FmtSig(c.BIHT, 4), FmtSig(c.BestCoord, 4), fmt.Sprintf("%d/%d", c.NeADMMConverged, c.PaperConverged),
				FmtSig(c.Iterations, 3), FmtSig(c.NeADMMMs, 3), FmtSig(c.PaperMs, 3), FmtSig(c.BIHTMs, 3))
			prog.Done(1)
		}
		env.Table(tab)
	}
	return nil
}

// gridSummary notes how neADMM's objective compares over the finished
// cells.
func gridSummary(env *Env, g *OnebitGrid) {
	if len(g.Cells) == 0 {
		return
	}
	var below, atBest, lowest int
	for _, c := range g.Cells {
		if c.NeADMM <= c.Truth && c.NeADMM <= c.Passive && c.NeADMM <= c.BIHT {
			below++
		}
		if c.NeADMM <= c.BestCoord*(1+1e-9) {
			atBest++
		}
		if c.NeADMM <= c.Paper {
			lowest++
		}
	}
	env.Note("neADMM's mean objective is at or below those of the truth, passive and BIHT in %d of %d cells, "+
		"at or below the paper settings' in %d, and at or below the best 1-sparse vector's in %d.", below, len(g.Cells), lowest, atBest)
}

// gridFigure draws the objective against M, one panel per K.
func gridFigure(g *OnebitGrid) *svgplot.Figure {
	// The curves fill the panels, so the legends go beside them.
	f := &svgplot.Figure{Title: fmt.Sprintf("1-bit CS: objective vs measurements (N = %d, λ = %g)", g.N, g.Lambda),
		Columns: 2, PanelWidth: 600}
	methods := []struct {
		name   string
		get    func(*OnebitCell) float64
		dashed bool
	}{
		{"neADMM (ρ = 10)", func(c *OnebitCell) float64 { return c.NeADMM }, false},
		{"neADMM, paper ρ = 1", func(c *OnebitCell) float64 { return c.Paper }, false},
		{"BIHT (K known)", func(c *OnebitCell) float64 { return c.BIHT }, false},
		{"passive", func(c *OnebitCell) float64 { return c.Passive }, false},
		{"truth", func(c *OnebitCell) float64 { return c.Truth }, false},
		{"best 1-sparse", func(c *OnebitCell) float64 { return c.BestCoord }, true},
	}
	for _, k := range g.Ks {
		p := svgplot.Plot{Title: fmt.Sprintf("K = %d", k), Legend: svgplot.LegendOutside,
			X: svgplot.Axis{Label: "measurements M"}, Y: svgplot.Axis{Label: "objective", Scale: svgplot.Log10}}
		for _, m := range methods {
			s := svgplot.Series{Name: m.name, Dashed: m.dashed}
			for _, c := range g.Cells {
				if c.K == k {
					s.X = append(s.X, float64(c.M))
					s.Y = append(s.Y, m.get(c))
				}
			}
			if len(s.X) > 0 {
				p.Series = append(p.Series, s)
			}
		}
		if len(p.Series) > 0 && len(p.Series[0].X) > 0 {
			f.Panels = append(f.Panels, p)
		}
	}
	return f
}

// recFamily is an instance family of the recovery protocol.
type recFamily struct {
	name string // "gauss" or "rademacher"
	k    int
}

// parseFamilies reads "name/K,..." with names gauss and rademacher.
func parseFamilies(s string) ([]recFamily, error) {
	var out []recFamily
	for _, f := range strings.Split(s, ",") {
		name, ks, ok := strings.Cut(strings.TrimSpace(f), "/")
		k, err := strconv.Atoi(ks)
		if !ok || err != nil || k < 1 || (name != "gauss" && name != "rademacher") {
			return nil, fmt.Errorf("%q: want gauss/K or rademacher/K with K >= 1", f)
		}
		out = append(out, recFamily{name, k})
	}
	return out, nil
}

// parseFlips reads a comma-separated, increasing list of fractions in
// [0, 0.5).
func parseFlips(s string) ([]float64, error) {
	return parseIncreasing(s, "flip fraction", func(f string) (float64, bool) {
		v, err := strconv.ParseFloat(f, 64)
		return v, err == nil && v >= 0 && v < 0.5
	})
}

// recInstance is a generated instance with its truth.
type recInstance struct {
	phi, x, y []float64
}

// genRademacher is the second instance family, independent of
// onebit.Generate (another generator, another seeding scheme, another
// matrix and signal distribution): Phi with entries +-1/sqrt(M) (so that
// units assuming N(0,1) entries are off by M), a support from rand.Perm,
// non-zeros of magnitude uniform in [0.2, 1] with random signs (a flatter
// signal than Gaussian), then the signs, each flipped with probability
// flip by a separate stream.
func genRademacher(m, n, k int, flip float64, seed uint64) *recInstance {
	var key [32]byte
	copy(key[:], "onebit-bench-rademacher")
	binary.LittleEndian.PutUint64(key[24:], seed)
	r := rand.New(rand.NewChaCha8(key))
	sc := 1 / math.Sqrt(float64(m))
	in := &recInstance{phi: make([]float64, m*n), x: make([]float64, n), y: make([]float64, m)}
	for i := range in.phi {
		in.phi[i] = sc
		if r.Uint64()&1 == 1 {
			in.phi[i] = -sc
		}
	}
	supp := r.Perm(n)[:k]
	ss := 0.0
	for _, j := range supp {
		v := 0.2 + 0.8*r.Float64()
		if r.Uint64()&1 == 1 {
			v = -v
		}
		in.x[j] = v
		ss += v * v
	}
	for _, j := range supp {
		in.x[j] /= math.Sqrt(ss)
	}
	fr := rand.New(rand.NewPCG(seed, 0x666c6970)) // "flip"
	for i := range in.y {
		a := 0.0
		for _, j := range supp {
			a += in.phi[i*n+j] * in.x[j]
		}
		in.y[i] = 1
		if a < 0 {
			in.y[i] = -1
		}
		if flip > 0 && fr.Float64() < flip {
			in.y[i] = -in.y[i]
		}
	}
	return in
}

// genInstance draws one instance of a family.
func genInstance(f recFamily, m, n int, flip float64, seed uint64) (*recInstance, error) {
	if f.name == "rademacher" {
		return genRademacher(m, n, f.k, flip, seed), nil
	}
	in, err := onebit.Generate(onebit.GenOptions{M: m, N: n, K: f.k, Flip: flip, Seed: seed})
	if err != nil {
		return nil, err
	}
	return &recInstance{phi: in.Phi, x: in.X, y: in.Y}, nil
}

// recRun is one instance of the recovery protocol.
type recRun struct {
	errADMM, errBIHT, errPassive float64
	support                      int
	regressed                    bool
	hamADMM, hamBIHT             float64
	cpuADMM, cpuBIHT             float64
	workADMM, workBIHT           float64
}

// runRecInstance runs Recover, BIHT (told k) and the passive estimator on
// one instance, timing the first two with the thread's CPU clock.
func runRecInstance(ctx context.Context, s *onebit.Solver, in *recInstance, m, n, k int) (recRun, error) {
	var r recRun
	p, err := onebit.NewProblem(in.phi, m, n, in.y)
	if err != nil {
		return r, err
	}
	x := make([]float64, n)
	t0 := threadCPU()
	rr, err := s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
	r.cpuADMM = cpuMs(t0)
	if err != nil {
		return r, err
	}
	r.workADMM, r.support, r.hamADMM, r.regressed = rr.Work, rr.Support, rr.Hamming, rr.Regressed
	r.errADMM = onebit.AngularError(in.x, x)
	t0 = threadCPU()
	br, err := onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: k, MaxIter: onebit.DefaultBIHTMaxIter})
	r.cpuBIHT = cpuMs(t0)
	if err != nil {
		return r, err
	}
	r.workBIHT, r.hamBIHT = br.Work, br.Hamming
	r.errBIHT = onebit.AngularError(in.x, x)
	if err := onebit.Passive(p, x, passiveThreshold(n, m)); err != nil {
		return r, err
	}
	r.errPassive = onebit.AngularError(in.x, x)
	return r, nil
}

func runOnebitRecovery(ctx context.Context, env *Env, rc *OnebitRecovery, fams []recFamily, flips []float64, workers int) error {
	env.Note("**Recovery protocol**: N = %d, %d instance(s) per ratio M/N, per instance family and fraction of flipped signs. "+
		"Angular error arccos(⟨x, x̂⟩)/π, mean ± std over instances; wins: instances where Recover's error ≤ BIHT's. "+
		"neADMM: onebit.Solver.Recover with DefaultRecoverOptions, not told K; BIHT is told K; passive: soft(Φᵀy/M, √(log N/M)). "+
		"Families: gauss = onebit.Generate (N(0,1) Φ and non-zeros); rademacher = an independent generator (±1/√M Φ, "+
		"magnitudes uniform in [0.2, 1], ChaCha8 seeds), on which the defaults were not tuned.", rc.N, rc.Seeds)
	prog := env.Progress("recovery", len(fams)*len(flips)*len(rc.Ratios)*rc.Seeds)
	defer prog.Finish()
	for fi, f := range fams {
		for li, flip := range flips {
			st := &OnebitRecSetting{Family: f.name, K: f.k, Flip: flip}
			rc.Settings = append(rc.Settings, st)
			if err := runRecSetting(ctx, env, rc, st, prog, fi*len(flips)+li, workers); err != nil {
				return err
			}
		}
	}
	return nil
}

func runRecSetting(ctx context.Context, env *Env, rc *OnebitRecovery, st *OnebitRecSetting, prog *Progress, part, workers int) error {
	fam := recFamily{st.Family, st.K}
	tab := &Table{
		Title: fmt.Sprintf("Recovery vs M/N, %s, N = %d, K = %d, %g%% of the signs flipped", st.Family, rc.N, st.K, 100*st.Flip),
		Columns: []string{"M/N", "M", "Recover (K unknown)", "BIHT (K known)", "passive", "Recover ≤ BIHT",
			"regression kept", "support", "Recover CPU ms", "BIHT CPU ms", "CPU ratio", "products Recover/BIHT"},
		Note: "Errors: mean ± std; support: mean ± std; CPU times: medians per instance (the solving thread's CPU clock); " +
			"CPU ratio: median of the per-instance ratios (and the ratio of the means); products: medians of Result.Work, " +
			"the cost in products with the whole of Φ.",
	}
	defer func() {
		if len(tab.Rows) > 0 {
			env.Table(tab)
		}
	}()
	for ri, ratio := range rc.Ratios {
		m := max(1, int(math.Round(ratio*float64(rc.N))))
		prog.Running(fmt.Sprintf("%s/%d flip %g M/N=%g", st.Family, st.K, st.Flip, ratio))
		runs := make([]recRun, rc.Seeds)
		err := forEach(ctx, rc.Seeds, workers, func(i int, s *onebit.Solver) error {
			in, err := genInstance(fam, m, rc.N, st.Flip, instanceSeed(env.Seed, 2+part, ri, m, i))
			if err == nil {
				runs[i], err = runRecInstance(ctx, s, in, m, rc.N, st.K)
			}
			prog.Done(1)
			return err
		})
		if err != nil {
			return err
		}
		pt := &OnebitRecPoint{Ratio: ratio, M: m}
		col := func(get func(r *recRun) float64) Stat {
			v := make([]float64, len(runs))
			for i := range runs {
				v[i] = get(&runs[i])
			}
			return Summarize(v)
		}
		pt.NeADMM = col(func(r *recRun) float64 { return r.errADMM })
		pt.BIHT = col(func(r *recRun) float64 { return r.errBIHT })
		pt.Passive = col(func(r *recRun) float64 { return r.errPassive })
		pt.NeADMMCPUMs = col(func(r *recRun) float64 { return r.cpuADMM })
		pt.BIHTCPUMs = col(func(r *recRun) float64 { return r.cpuBIHT })
		pt.CPURatio = col(func(r *recRun) float64 { return r.cpuADMM / r.cpuBIHT })
		pt.NeADMMWork = col(func(r *recRun) float64 { return r.workADMM })
		pt.BIHTWork = col(func(r *recRun) float64 { return r.workBIHT })
		pt.NeADMMSupport = col(func(r *recRun) float64 { return float64(r.support) })
		pt.NeADMMHamming = col(func(r *recRun) float64 { return r.hamADMM }).Mean
		pt.BIHTHamming = col(func(r *recRun) float64 { return r.hamBIHT }).Mean
		for _, r := range runs {
			if r.errADMM <= r.errBIHT {
				pt.Wins++
			}
			if r.regressed {
				pt.Regressed++
			}
		}
		st.Points = append(st.Points, pt)
		pm := func(s Stat) string { return FmtSig(s.Mean, 3) + " ± " + FmtSig(s.Std, 2) }
		tab.Add(FmtSig(ratio, 3), itoa(m), pm(pt.NeADMM), pm(pt.BIHT), pm(pt.Passive),
			fmt.Sprintf("%d/%d", pt.Wins, rc.Seeds), fmt.Sprintf("%d/%d", pt.Regressed, rc.Seeds), pm(pt.NeADMMSupport),
			FmtSig(pt.NeADMMCPUMs.Median, 3), FmtSig(pt.BIHTCPUMs.Median, 3),
			FmtSig(pt.CPURatio.Median, 3)+" ("+FmtSig(pt.NeADMMCPUMs.Mean/pt.BIHTCPUMs.Mean, 3)+")",
			FmtSig(pt.NeADMMWork.Median, 3)+" / "+FmtSig(pt.BIHTWork.Median, 3))
	}
	return nil
}

// runOnebitScaling times Recover and BIHT against N (M = N, K = 10) and
// fits log-log slopes to the median CPU times.
func runOnebitScaling(ctx context.Context, env *Env, sc *OnebitScaling, ns []int, workers int) error {
	tab := &Table{
		Title: fmt.Sprintf("Cost vs N, M = N, K = %d (gauss), %d instance(s) each", sc.K, sc.Seeds),
		Columns: []string{"N", "Recover CPU ms", "BIHT CPU ms", "ratio", "products Recover/BIHT",
			"error Recover/BIHT"},
		Note: "Medians per instance of the solving thread's CPU time and of Result.Work; errors are means.",
	}
	defer func() {
		if len(tab.Rows) > 0 {
			env.Table(tab)
		}
	}()
	prog := env.Progress("scaling", len(ns)*sc.Seeds)
	defer prog.Finish()
	var xs, ya, yb []float64
	for _, n := range ns {
		prog.Running(fmt.Sprintf("N=%d", n))
		runs := make([]recRun, sc.Seeds)
		err := forEach(ctx, sc.Seeds, workers, func(i int, s *onebit.Solver) error {
			in, err := genInstance(recFamily{"gauss", sc.K}, n, n, 0, instanceSeed(env.Seed, 40, n, n, i))
			if err == nil {
				runs[i], err = runRecInstance(ctx, s, in, n, n, sc.K)
			}
			prog.Done(1)
			return err
		})
		if err != nil {
			return err
		}
		col := func(get func(r *recRun) float64) Stat {
			v := make([]float64, len(runs))
			for i := range runs {
				v[i] = get(&runs[i])
			}
			return Summarize(v)
		}
		pt := &OnebitScalePoint{N: n,
			NeADMMCPUMs: col(func(r *recRun) float64 { return r.cpuADMM }),
			BIHTCPUMs:   col(func(r *recRun) float64 { return r.cpuBIHT }),
			NeADMMWork:  col(func(r *recRun) float64 { return r.workADMM }),
			BIHTWork:    col(func(r *recRun) float64 { return r.workBIHT }),
			NeADMM:      col(func(r *recRun) float64 { return r.errADMM }),
			BIHT:        col(func(r *recRun) float64 { return r.errBIHT }),
		}
		sc.Points = append(sc.Points, pt)
		xs = append(xs, float64(n))
		ya = append(ya, pt.NeADMMCPUMs.Median)
		yb = append(yb, pt.BIHTCPUMs.Median)
		tab.Add(itoa(n), FmtSig(pt.NeADMMCPUMs.Median, 3), FmtSig(pt.BIHTCPUMs.Median, 3),
			FmtSig(pt.NeADMMCPUMs.Median/pt.BIHTCPUMs.Median, 3),
			FmtSig(pt.NeADMMWork.Median, 3)+" / "+FmtSig(pt.BIHTWork.Median, 3),
			FmtSig(pt.NeADMM.Mean, 3)+" / "+FmtSig(pt.BIHT.Mean, 3))
	}
	if a, ok := logLogSlope(xs, ya); ok {
		sc.NeADMMSlope = a
		b, _ := logLogSlope(xs, yb)
		sc.BIHTSlope = b
		env.Note("Log-log slope of the median CPU time against N: Recover %.2f, BIHT %.2f (N = %d..%d).", a, b, ns[0], ns[len(ns)-1])
	}
	return nil
}

// recoveryFigure draws the angular error against M/N for the three methods
// in the first setting run (the first family without flips by default),
// with bars of ± one standard deviation over the instances.
func recoveryFigure(rc *OnebitRecovery) *svgplot.Figure {
	st := rc.Settings[0]
	p := svgplot.Plot{Title: fmt.Sprintf("angular error vs M/N (%s, N = %d, K = %d, %g%% flipped, %d instances, mean ± std)",
		st.Family, rc.N, st.K, 100*st.Flip, rc.Seeds),
		X: svgplot.Axis{Label: "M/N"}, Y: svgplot.Axis{Label: "angular error arccos(⟨x, x̂⟩)/π", Scale: svgplot.Log10},
		Legend: svgplot.LegendTopRight}
	// The three series are shifted apart by 1% of the x range so their
	// error bars do not hide each other.
	span := st.Points[len(st.Points)-1].Ratio - st.Points[0].Ratio
	for i, m := range []struct {
		name string
		get  func(*OnebitRecPoint) Stat
	}{
		{"neADMM (K unknown)", func(p *OnebitRecPoint) Stat { return p.NeADMM }},
		{"BIHT (K known)", func(p *OnebitRecPoint) Stat { return p.BIHT }},
		{"passive", func(p *OnebitRecPoint) Stat { return p.Passive }},
	} {
		s := svgplot.Series{Name: m.name}
		for _, pt := range st.Points {
			sv := m.get(pt)
			s.X = append(s.X, pt.Ratio+float64(i-1)*0.01*span)
			s.Y = append(s.Y, sv.Mean)
			s.Err = append(s.Err, sv.Std)
		}
		p.Series = append(p.Series, s)
	}
	return &svgplot.Figure{Panels: []svgplot.Plot{p}, PanelWidth: 560, PanelHeight: 380}
}

func runOnebitSpeed(ctx context.Context, env *Env, n int) (*OnebitSpeed, error) {
	const reps = 5
	sp := &OnebitSpeed{N: n, M: n, Reps: reps}
	k := max(1, n/100)
	in, err := onebit.Generate(onebit.GenOptions{M: n, N: n, K: k, Seed: instanceSeed(env.Seed, 3, n, n, 0)})
	if err != nil {
		return nil, err
	}
	p, err := in.Problem()
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread() // for the thread's CPU clock
	defer runtime.UnlockOSThread()
	var s onebit.Solver
	x := make([]float64, n)
	tab := &Table{
		Title: fmt.Sprintf("Speed: one Solve at N = M = %d (K = %d, λ = 0.01)", n, k),
		Columns: []string{"options", "CPU time", "spread", "iterations", "FISTA steps", "products",
			"cost (full products)", "working set", "objective", "best ±eⱼ used"},
		Note: fmt.Sprintf("Median of %d solves (CPU time of the solving thread). products counts the product calls of "+
			"any size; cost is Result.Work, in products with the whole of Φ (a product with k columns of the working "+
			"set counts k/N). default: onebit.DefaultOptions (working set, coordinate check); paper: onebit.PaperOptions "+
			"(the full matrix; its first solve also pays the power iteration for ‖Φ‖², not counted here).", reps),
	}
	for _, c := range []struct {
		name string
		opt  onebit.Options
	}{{"default", onebit.DefaultOptions()}, {"paper", onebit.PaperOptions()}} {
		if _, err := s.Solve(ctx, p, x, c.opt); err != nil { // sizes the workspace, caches ||Phi||^2
			return nil, err
		}
		var times []float64
		var res onebit.Result
		for range reps {
			t0 := threadCPU()
			if res, err = s.Solve(ctx, p, x, c.opt); err != nil {
				return nil, err
			}
			times = append(times, cpuMs(t0))
		}
		row := &OnebitSpeedRow{Options: c.name, CPUMs: Summarize(times), Iterations: res.Iterations,
			InnerIterations: res.InnerIterations, Products: res.Products, Work: res.Work, Objective: res.Objective,
			WorkingSet: res.WorkingSet, Coordinate: res.Coordinate}
		sp.Rows = append(sp.Rows, row)
		tab.Add(c.name, FmtNs(row.CPUMs.Median*1e6), "±"+FmtSig(row.CPUMs.Spread(), 2)+"%", itoa(row.Iterations),
			itoa(row.InnerIterations), itoa(row.Products), FmtSig(row.Work, 3), itoa(row.WorkingSet),
			FmtSig(row.Objective, 7), fmt.Sprint(row.Coordinate))
	}
	t0 := threadCPU()
	if _, err := onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: k, MaxIter: onebit.DefaultBIHTMaxIter}); err != nil {
		return nil, err
	}
	sp.BIHTCPUMs = cpuMs(t0)
	sp.BestCoord = p.BestCoordinate(x, 0.01)
	env.Table(tab)
	env.Note("BIHT (told K) on the same instance: %s; best signed coordinate vector's objective: %s.",
		FmtNs(sp.BIHTCPUMs*1e6), FmtSig(sp.BestCoord, 7))
	return sp, nil
}

// cpuMs returns the thread CPU time since t0 in milliseconds.
func cpuMs(t0 time.Duration) float64 { return float64((threadCPU() - t0).Nanoseconds()) / 1e6 }
