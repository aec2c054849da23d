package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/neadmm/neadmm/internal/svgplot"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/onebit"
	"github.com/neadmm/neadmm/vec"
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
		"-rec-seeds", "2", "-speed-n", "0"},
}

// OnebitResult is the onebit command's JSON "results". A part not run (or
// not reached before an interruption) is absent.
type OnebitResult struct {
	Grid     *OnebitGrid     `json:"grid,omitempty"`
	Recovery *OnebitRecovery `json:"recovery,omitempty"`
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

// OnebitRecovery is the recovery protocol: angular error against M/N.
type OnebitRecovery struct {
	N      int       `json:"n"`
	K      int       `json:"k"`
	Seeds  int       `json:"seeds"`
	Ratios []float64 `json:"ratios"`
	// Points are in the order run; an interrupted run holds the finished
	// ones.
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
	// Mean SNR in dB, support size and Hamming error (fraction).
	NeADMMSNR     float64 `json:"neadmm_snr_db"`
	BIHTSNR       float64 `json:"biht_snr_db"`
	NeADMMSupport float64 `json:"neadmm_support"`
	NeADMMHamming float64 `json:"neadmm_hamming"`
	BIHTHamming   float64 `json:"biht_hamming"`
	// Wall times in milliseconds and products with Phi or Phi^T per run.
	NeADMMMs       Stat `json:"neadmm_ms"`
	BIHTMs         Stat `json:"biht_ms"`
	NeADMMProducts Stat `json:"neadmm_products"`
	BIHTProducts   Stat `json:"biht_products"`
}

// OnebitSpeed is one default solve at N = M, split between the matrix
// products and everything else.
type OnebitSpeed struct {
	N    int `json:"n"`
	M    int `json:"m"`
	Reps int `json:"reps"`
	// SolveMs is the wall time of one solve with onebit.DefaultOptions.
	SolveMs Stat `json:"solve_ms"`
	// Iterations and InnerIterations are outer and FISTA iterations;
	// MulVecs and MulTransVecs the products with Phi and Phi^T per solve.
	Iterations      int `json:"iterations"`
	InnerIterations int `json:"inner_iterations"`
	MulVecs         int `json:"mulvecs"`
	MulTransVecs    int `json:"multransvecs"`
	// MulVecUs and MulTransVecUs are the median times of one product,
	// measured apart; ProductShare = (MulVecs*MulVecUs +
	// MulTransVecs*MulTransVecUs)/SolveMs, the share of the solve spent
	// in matrix products.
	MulVecUs      float64 `json:"mulvec_us"`
	MulTransVecUs float64 `json:"multransvec_us"`
	ProductShare  float64 `json:"product_share"`
	// BIHTMs is the time of BIHT (told K = N/100) on the same problem.
	BIHTMs float64 `json:"biht_ms"`
}

func onebitFlags(fs *FlagSet) RunFunc {
	gridN := fs.Int("grid-n", 512, "signal length `N` of the grid (the paper's 512)")
	gridM := fs.String("grid-m", "50,100,150,200,250,300,350,400,450,500", "comma-separated, increasing measurement counts `M` of the grid")
	gridK := fs.String("grid-k", "16,32,48,64", "comma-separated, increasing sparsities `K` of the grid (one panel each)")
	gridSeeds := fs.Int("grid-seeds", 3, "instances per grid cell (objectives and times are means); 0 skips the grid")
	lambda := fs.Float64("lambda", 0.01, "the grid's `lambda` (the paper's 0.01)")
	recN := fs.Int("rec-n", 1000, "signal length `N` of the recovery protocol")
	recK := fs.Int("rec-k", 10, "sparsity `K` of the recovery protocol")
	recRatios := fs.String("rec-ratios", "0.25,0.5,1,1.5,2", "comma-separated, increasing `ratios` M/N of the recovery protocol")
	recSeeds := fs.Int("rec-seeds", 20, "instances per ratio; 0 skips the recovery protocol")
	speedN := fs.Int("speed-n", 1000, "N = M of the speed measurement; 0 skips it")
	workers := fs.Int("workers", 1, "instances solved in parallel (times are per solve, so >1 inflates them on a busy machine)")
	var ms, ks []int
	var ratios []float64
	fs.Check(func() (err error) {
		if ms, err = parseInts(*gridM); err != nil {
			return fmt.Errorf("-grid-m: %w", err)
		}
		if ks, err = parseInts(*gridK); err != nil {
			return fmt.Errorf("-grid-k: %w", err)
		}
		if ratios, err = parseRatios(*recRatios); err != nil {
			return fmt.Errorf("-rec-ratios: %w", err)
		}
		switch {
		case len(ks) == 0 || len(ms) == 0:
			return errors.New("-grid-m and -grid-k: at least one value each")
		case *gridN < 1 || ks[len(ks)-1] > *gridN:
			return fmt.Errorf("-grid-n %d -grid-k %s: want N >= 1 and every K <= N", *gridN, *gridK)
		case *recN < 1 || *recK < 1 || *recK > *recN:
			return fmt.Errorf("-rec-n %d -rec-k %d: want 1 <= K <= N", *recN, *recK)
		case *gridSeeds < 0 || *recSeeds < 0 || *speedN < 0 || *workers < 1:
			return errors.New("-grid-seeds, -rec-seeds and -speed-n must be >= 0, -workers >= 1")
		case !(*lambda > 0) || math.IsInf(*lambda, 0):
			return fmt.Errorf("-lambda %g: want finite and > 0", *lambda)
		}
		return nil
	})
	return func(ctx context.Context, env *Env) error {
		res := &OnebitResult{}
		env.Results(res)
		if *gridSeeds > 0 {
			g := &OnebitGrid{N: *gridN, Lambda: *lambda, Seeds: *gridSeeds, Ks: ks, Ms: ms}
			res.Grid = g
			err := runOnebitGrid(ctx, env, g, *workers)
			gridSummary(env, g) // also after Ctrl-C, over the finished cells
			if len(g.Cells) > 0 {
				env.Figure("objective", gridFigure(g))
			}
			if err != nil {
				return err
			}
		}
		if *recSeeds > 0 {
			r := &OnebitRecovery{N: *recN, K: *recK, Seeds: *recSeeds, Ratios: ratios}
			res.Recovery = r
			err := runOnebitRecovery(ctx, env, r, *workers)
			if len(r.Points) > 0 {
				env.Figure("recovery", recoveryFigure(r))
			}
			if err != nil {
				return err
			}
		}
		if *speedN > 0 {
			sp, err := runOnebitSpeed(ctx, env, *speedN)
			if err != nil {
				return err
			}
			res.Speed = sp
		}
		return nil
	}
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

// recRun is one instance of the recovery protocol.
type recRun struct {
	errADMM, errBIHT, errPassive float64
	snrADMM, snrBIHT             float64
	support                      int
	hamADMM, hamBIHT             float64
	msADMM, msBIHT               float64
	prodADMM, prodBIHT           int
}

func runRecInstance(ctx context.Context, s *onebit.Solver, n, m, k int, seed uint64) (recRun, error) {
	var r recRun
	in, err := onebit.Generate(onebit.GenOptions{M: m, N: n, K: k, Seed: seed})
	if err != nil {
		return r, err
	}
	p, err := in.Problem()
	if err != nil {
		return r, err
	}
	x := make([]float64, n)
	t0 := time.Now()
	rr, err := s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
	if err != nil {
		return r, err
	}
	r.msADMM, r.prodADMM, r.support, r.hamADMM = msSince(t0), rr.Products, rr.Support, rr.Hamming
	r.errADMM, r.snrADMM = onebit.AngularError(in.X, x), onebit.SNR(in.X, x)
	t0 = time.Now()
	br, err := onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: k, MaxIter: onebit.DefaultBIHTMaxIter})
	if err != nil {
		return r, err
	}
	r.msBIHT, r.prodBIHT, r.hamBIHT = msSince(t0), br.Products, br.Hamming
	r.errBIHT, r.snrBIHT = onebit.AngularError(in.X, x), onebit.SNR(in.X, x)
	if err := onebit.Passive(p, x, passiveThreshold(n, m)); err != nil {
		return r, err
	}
	r.errPassive = onebit.AngularError(in.X, x)
	return r, nil
}

func runOnebitRecovery(ctx context.Context, env *Env, rc *OnebitRecovery, workers int) error {
	env.Note("**Recovery protocol**: N = %d, K = %d, %d instance(s) per ratio M/N. Angular error arccos(⟨x, x̂⟩)/π, "+
		"mean ± std over instances. neADMM: onebit.Solver.Recover (not told K: λ continuation 100 → 10⁶ ×3 with ρ = √λ, "+
		"4 rounds of reweighted L1, consistency refit on the support found with expansion and pruning); "+
		"BIHT is told K; passive: soft(Φᵀy/M, √(log N/M)).", rc.N, rc.K, rc.Seeds)
	tab := &Table{
		Title: fmt.Sprintf("Angular error vs M/N, N = %d, K = %d", rc.N, rc.K),
		Columns: []string{"M/N", "M", "neADMM", "BIHT (K known)", "passive", "neADMM ≤ BIHT", "SNR dB neADMM/BIHT",
			"support", "neADMM ms", "BIHT ms", "products neADMM/BIHT"},
		Note: "Errors: mean ± std; times: medians per instance; products: medians of the products with Φ or Φᵀ, the unit of cost.",
	}
	defer func() {
		if len(tab.Rows) > 0 {
			env.Table(tab)
		}
	}()
	prog := env.Progress("recovery", len(rc.Ratios)*rc.Seeds)
	defer prog.Finish()
	for ri, ratio := range rc.Ratios {
		m := max(1, int(math.Round(ratio*float64(rc.N))))
		prog.Running(fmt.Sprintf("M/N=%g", ratio))
		runs := make([]recRun, rc.Seeds)
		err := forEach(ctx, rc.Seeds, workers, func(i int, s *onebit.Solver) error {
			var err error
			runs[i], err = runRecInstance(ctx, s, rc.N, m, rc.K, instanceSeed(env.Seed, 2, ri, m, i))
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
		pt.NeADMMMs = col(func(r *recRun) float64 { return r.msADMM })
		pt.BIHTMs = col(func(r *recRun) float64 { return r.msBIHT })
		pt.NeADMMProducts = col(func(r *recRun) float64 { return float64(r.prodADMM) })
		pt.BIHTProducts = col(func(r *recRun) float64 { return float64(r.prodBIHT) })
		pt.NeADMMSNR = finiteMean(col(func(r *recRun) float64 { return r.snrADMM }))
		pt.BIHTSNR = finiteMean(col(func(r *recRun) float64 { return r.snrBIHT }))
		pt.NeADMMSupport = col(func(r *recRun) float64 { return float64(r.support) }).Mean
		pt.NeADMMHamming = col(func(r *recRun) float64 { return r.hamADMM }).Mean
		pt.BIHTHamming = col(func(r *recRun) float64 { return r.hamBIHT }).Mean
		for _, r := range runs {
			if r.errADMM <= r.errBIHT {
				pt.Wins++
			}
		}
		rc.Points = append(rc.Points, pt)
		pm := func(s Stat) string { return FmtSig(s.Mean, 3) + " ± " + FmtSig(s.Std, 2) }
		tab.Add(FmtSig(ratio, 3), itoa(m), pm(pt.NeADMM), pm(pt.BIHT), pm(pt.Passive),
			fmt.Sprintf("%d/%d", pt.Wins, rc.Seeds), FmtSig(pt.NeADMMSNR, 3)+" / "+FmtSig(pt.BIHTSNR, 3),
			FmtSig(pt.NeADMMSupport, 3), FmtSig(pt.NeADMMMs.Median, 3), FmtSig(pt.BIHTMs.Median, 3),
			FmtSig(pt.NeADMMProducts.Median, 3)+" / "+FmtSig(pt.BIHTProducts.Median, 3))
	}
	return nil
}

// finiteMean is the mean of the finite samples (an exact recovery has
// SNR +Inf), or 0 if there are none, so the JSON stays valid.
func finiteMean(s Stat) float64 {
	sum, n := 0.0, 0
	for _, v := range s.Samples {
		if !math.IsInf(v, 0) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// recoveryFigure draws the angular error against M/N for the three methods,
// with bars of ± one standard deviation over the instances.
func recoveryFigure(rc *OnebitRecovery) *svgplot.Figure {
	p := svgplot.Plot{Title: fmt.Sprintf("angular error vs M/N (N = %d, K = %d, %d instances, mean ± std)", rc.N, rc.K, rc.Seeds),
		X: svgplot.Axis{Label: "M/N"}, Y: svgplot.Axis{Label: "angular error arccos(⟨x, x̂⟩)/π", Scale: svgplot.Log10},
		Legend: svgplot.LegendTopRight}
	// The three series are shifted apart by 1% of the x range so their
	// error bars do not hide each other.
	span := rc.Points[len(rc.Points)-1].Ratio - rc.Points[0].Ratio
	for i, m := range []struct {
		name string
		get  func(*OnebitRecPoint) Stat
	}{
		{"neADMM (K unknown)", func(p *OnebitRecPoint) Stat { return p.NeADMM }},
		{"BIHT (K known)", func(p *OnebitRecPoint) Stat { return p.BIHT }},
		{"passive", func(p *OnebitRecPoint) Stat { return p.Passive }},
	} {
		s := svgplot.Series{Name: m.name}
		for _, pt := range rc.Points {
			st := m.get(pt)
			s.X = append(s.X, pt.Ratio+float64(i-1)*0.01*span)
			s.Y = append(s.Y, st.Mean)
			s.Err = append(s.Err, st.Std)
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
	var s onebit.Solver
	x := make([]float64, n)
	var times []float64
	var res onebit.Result
	for range reps {
		t0 := time.Now()
		if res, err = s.Solve(ctx, p, x, onebit.DefaultOptions()); err != nil {
			return nil, err
		}
		times = append(times, msSince(t0))
	}
	sp.SolveMs = Summarize(times)
	sp.Iterations, sp.InnerIterations = res.Iterations, res.InnerIterations
	sp.MulVecs, sp.MulTransVecs = res.Products-res.TransProducts, res.TransProducts
	// Time the two products apart, on the same data, medians of reps.
	u, v := make([]float64, n), make([]float64, n)
	copy(v, x)
	mv := func(iters int) {
		for range iters {
			vec.MulVec(u, p.Phi(), n, n, v)
		}
	}
	mtv := func(iters int) {
		for range iters {
			vec.MulTransVec(v, p.Phi(), n, n, u)
		}
	}
	per := func(fn func(int)) float64 {
		iters := calibrate(ctx, fn, 20*time.Millisecond)
		var ts []float64
		for range reps {
			ts = append(ts, float64(timeIt(fn, iters).Nanoseconds())/float64(iters)/1e3)
		}
		return Summarize(ts).Median
	}
	sp.MulVecUs, sp.MulTransVecUs = per(mv), per(mtv)
	prodMs := (float64(sp.MulVecs)*sp.MulVecUs + float64(sp.MulTransVecs)*sp.MulTransVecUs) / 1e3
	sp.ProductShare = prodMs / sp.SolveMs.Median
	t0 := time.Now()
	if _, err := onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: k, MaxIter: onebit.DefaultBIHTMaxIter}); err != nil {
		return nil, err
	}
	sp.BIHTMs = msSince(t0)
	// The products are timed apart, so their estimated share can exceed the
	// whole solve by timing noise; say so instead of printing a negative rest.
	inProducts, other := FmtSig(100*sp.ProductShare, 3)+"%", FmtSig(100*(1-sp.ProductShare), 3)+"%"
	if sp.ProductShare >= 1 {
		inProducts, other = "≈100%", "below timing noise"
	}
	tab := &Table{
		Title: fmt.Sprintf("Speed: one solve with onebit.DefaultOptions at N = M = %d (K = %d)", n, k),
		Columns: []string{"solve", "spread", "iterations", "FISTA steps", "Φx / Φᵀr products", "µs per Φx / Φᵀr",
			"in products", "other", "BIHT"},
		Note: fmt.Sprintf("Median of %d solves; the product times are measured apart on the same matrix, so "+
			"'in products' = count × time per product and 'other' is the rest of the solve (FISTA vector work, "+
			"soft-thresholding, the sphere prox, residuals).", reps),
	}
	tab.Add(FmtNs(sp.SolveMs.Median*1e6), "±"+FmtSig(sp.SolveMs.Spread(), 2)+"%", itoa(sp.Iterations), itoa(sp.InnerIterations),
		fmt.Sprintf("%d / %d", sp.MulVecs, sp.MulTransVecs), FmtSig(sp.MulVecUs, 3)+" / "+FmtSig(sp.MulTransVecUs, 3),
		inProducts, other, FmtNs(sp.BIHTMs*1e6))
	env.Table(tab)
	return sp, nil
}
