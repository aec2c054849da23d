package main

import (
	"context"
	"flag"
	"fmt"
	"math"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/onebit"
)

var rhoCommand = Command{
	Name:  "rho",
	Short: "1-bit CS: rho schedules of neADMM on the paper's grid, the measurement behind onebit.DefaultOptions' rho",
	Flags: rhoFlags,
}

// RhoResult is the rho command's JSON "results": every rho schedule's
// tally over the instances of the grid. An interrupted run holds the
// finished cells.
type RhoResult struct {
	N      int     `json:"n"`
	Lambda float64 `json:"lambda"`
	Seeds  int     `json:"seeds"`
	Ks     []int   `json:"ks"`
	Ms     []int   `json:"ms"`
	// Instances counts the instances solved with every schedule.
	Instances int `json:"instances"`
	// NoneAtCoord counts the instances where no schedule reached the best
	// signed coordinate vector's objective (to 1e-6 relative).
	NoneAtCoord int            `json:"none_at_coord"`
	Schedules   []*RhoSchedule `json:"schedules"`
}

// RhoSchedule is one rho schedule and its tally over the instances.
type RhoSchedule struct {
	Name        string  `json:"name"`
	Policy      string  `json:"policy"` // neadmm.RhoPolicy's String
	Rho         float64 `json:"rho"`
	RandomStart bool    `json:"random_start"`
	// Lowest counts the instances where the schedule's objective is the
	// lowest of all schedules', AtCoord those where it is the best signed
	// coordinate vector's (both to 1e-6 relative), Converged the solves
	// that met the residual tolerances.
	Lowest    int `json:"lowest"`
	AtCoord   int `json:"at_coord"`
	Converged int `json:"converged"`
	// MeanRatio is the mean of objective / best coordinate objective,
	// MeanProducts the mean Result.Products of a solve.
	MeanRatio    float64 `json:"mean_obj_over_coord"`
	MeanProducts float64 `json:"mean_products"`

	policy              neadmm.RhoPolicy
	ratioSum, prodTotal float64
}

// rhoSchedules returns the schedules compared, the paper's and the
// default among them (named so).
func rhoSchedules() []*RhoSchedule {
	scheds := []*RhoSchedule{
		{Name: "fixed 1", policy: neadmm.RhoFixed, Rho: 1},
		{Name: "geometric from 1", policy: neadmm.RhoGeometric, Rho: 1},
		{Name: "geometric from 5", policy: neadmm.RhoGeometric, Rho: 5},
		{Name: "geometric from 10", policy: neadmm.RhoGeometric, Rho: 10},
		{Name: "fixed 5", policy: neadmm.RhoFixed, Rho: 5},
		{Name: "fixed 10", policy: neadmm.RhoFixed, Rho: 10},
		{Name: "fixed 20", policy: neadmm.RhoFixed, Rho: 20},
		{Name: "balance from 10", policy: neadmm.RhoBalance, Rho: 10},
		{Name: "fixed 10, random start", policy: neadmm.RhoFixed, Rho: 10, RandomStart: true},
	}
	def, paper := onebit.DefaultOptions(), onebit.PaperOptions()
	for _, sc := range scheds {
		sc.Policy = sc.policy.String()
		switch {
		case sc.RandomStart:
		case sc.policy == def.Policy && sc.Rho == def.Rho:
			sc.Name += " (default)"
		case sc.policy == paper.Policy && sc.Rho == paper.Rho:
			sc.Name += " (paper)"
		}
	}
	return scheds
}

// The -quick grid: a check in a few seconds rather than the half minute
// of the paper's grid.
const (
	rhoQuickM     = "100,300,500"
	rhoQuickK     = "16,64"
	rhoQuickSeeds = 2
)

func rhoFlags(fs *FlagSet) RunFunc {
	n := fs.Int("n", 512, "signal length `N` (the paper's 512)")
	mList := fs.String("m", "50,100,150,200,250,300,350,400,450,500", "comma-separated, increasing measurement counts `M`")
	kList := fs.String("k", "16,32,48,64", "comma-separated, increasing sparsities `K`")
	seeds := fs.Int("seeds", 3, "instances per (K, M) cell")
	lambda := fs.Float64("lambda", 0.01, "the problem's `lambda` (onebit.DefaultOptions' 0.01)")
	quick := fs.Bool("quick", false, "a smaller grid: -m "+rhoQuickM+" -k "+rhoQuickK+" -seeds "+itoa(rhoQuickSeeds)+
		" (those given explicitly win)")
	workers := fs.Int("workers", 1, "instances solved in parallel")
	var ms, ks []int
	fs.Check(func() (err error) {
		if *quick {
			given := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
			if !given["m"] {
				*mList = rhoQuickM
			}
			if !given["k"] {
				*kList = rhoQuickK
			}
			if !given["seeds"] {
				*seeds = rhoQuickSeeds
			}
		}
		if ms, ks, err = parseGrid("-", *n, *mList, *kList); err != nil {
			return err
		}
		if err := checkCounts(map[string]int{"-seeds": *seeds, "-workers": *workers}); err != nil {
			return err
		}
		switch {
		case *seeds < 1:
			return fmt.Errorf("-seeds %d: want >= 1", *seeds)
		case *workers < 1:
			return fmt.Errorf("-workers %d: want >= 1", *workers)
		case !(*lambda > 0) || math.IsInf(*lambda, 0):
			return fmt.Errorf("-lambda %g: want finite and > 0", *lambda)
		}
		return nil
	})
	return func(ctx context.Context, env *Env) error {
		res := &RhoResult{N: *n, Lambda: *lambda, Seeds: *seeds, Ks: ks, Ms: ms, Schedules: rhoSchedules()}
		env.Results(res)
		return runRho(ctx, env, res, *workers)
	}
}

// rhoRun is one instance solved with every schedule.
type rhoRun struct {
	objs      []float64 // per schedule
	converged []bool
	products  []int
	coord     float64 // the best signed coordinate vector's objective
}

// runRho solves the instances of the grid cell by cell and prints the
// table over the cells finished, also after an interruption.
func runRho(ctx context.Context, env *Env, res *RhoResult, workers int) error {
	first := env.Seed - 1
	env.Note("**ρ schedules** on the paper's grid: N = %d, λ = %g, %d instance(s) per (K, M) cell, the i-th (from 0) "+
		"onebit.Generate's with Seed = -seed − 1 + i (here %d..%d). Each instance is solved with every schedule by neADMM "+
		"alone: onebit.DefaultOptions (start Φᵀy/‖Φᵀy‖, 100 iterations) with WorkingSet and CoordinateCheck off, so on "+
		"the full matrix.", res.N, res.Lambda, res.Seeds, first, first+uint64(res.Seeds-1))
	defer func() {
		if res.Instances > 0 {
			rhoTable(env, res)
		}
	}()
	prog := env.Progress("grid", len(res.Ks)*len(res.Ms))
	defer prog.Finish()
	for _, k := range res.Ks {
		for _, m := range res.Ms {
			prog.Running(fmt.Sprintf("K=%d M=%d", k, m))
			runs := make([]rhoRun, res.Seeds)
			err := forEach(ctx, res.Seeds, workers, func(i int, s *onebit.Solver) error {
				var err error
				runs[i], err = runRhoInstance(ctx, s, res, m, k, first+uint64(i))
				return err
			})
			if err != nil {
				return err
			}
			for _, r := range runs {
				res.add(r)
			}
			prog.Done(1)
		}
	}
	return nil
}

// runRhoInstance solves one generated instance with every schedule.
func runRhoInstance(ctx context.Context, s *onebit.Solver, res *RhoResult, m, k int, seed uint64) (rhoRun, error) {
	in, err := onebit.Generate(onebit.GenOptions{M: m, N: res.N, K: k, Seed: seed})
	if err != nil {
		return rhoRun{}, err
	}
	p, err := in.Problem()
	if err != nil {
		return rhoRun{}, err
	}
	x := make([]float64, res.N)
	r := rhoRun{coord: p.BestCoordinate(x, res.Lambda)}
	for _, sc := range res.Schedules {
		o := onebit.DefaultOptions()
		o.Lambda = res.Lambda
		o.WorkingSet, o.CoordinateCheck = false, false
		o.Policy, o.Rho = sc.policy, sc.Rho
		if sc.RandomStart {
			o.Start, o.Seed = onebit.StartRandom, seed
		}
		sr, err := s.Solve(ctx, p, x, o)
		if err != nil {
			return rhoRun{}, err
		}
		r.objs = append(r.objs, sr.Objective)
		r.converged = append(r.converged, sr.Reason == neadmm.StopConverged)
		r.products = append(r.products, sr.Products)
	}
	return r, nil
}

// add tallies one instance into every schedule and updates the means.
func (res *RhoResult) add(r rhoRun) {
	best := math.Inf(1)
	for _, o := range r.objs {
		best = min(best, o)
	}
	res.Instances++
	atCoord := false
	for i, sc := range res.Schedules {
		if r.objs[i] <= best*(1+1e-6) {
			sc.Lowest++
		}
		if r.objs[i] <= r.coord*(1+1e-6) {
			sc.AtCoord++
			atCoord = true
		}
		if r.converged[i] {
			sc.Converged++
		}
		sc.ratioSum += r.objs[i] / r.coord
		sc.prodTotal += float64(r.products[i])
		sc.MeanRatio = sc.ratioSum / float64(res.Instances)
		sc.MeanProducts = sc.prodTotal / float64(res.Instances)
	}
	if !atCoord {
		res.NoneAtCoord++
	}
}

// rhoTable prints the schedules' tallies over the instances finished.
func rhoTable(env *Env, res *RhoResult) {
	tab := &Table{
		Title: fmt.Sprintf("ρ schedules, N = %d, λ = %g, M = %d..%d, K = %d..%d: %d instances", res.N, res.Lambda,
			res.Ms[0], res.Ms[len(res.Ms)-1], res.Ks[0], res.Ks[len(res.Ks)-1], res.Instances),
		Columns: []string{"schedule", "lowest", "= best ±eⱼ", "objective / best ±eⱼ", "converged", "products"},
		Note: "lowest: instances where the schedule reached the lowest objective of all schedules; = best ±eⱼ: where it " +
			"reached the best signed coordinate vector's objective (Problem.BestCoordinate), both to 1e-6 relative; " +
			"objective / best ±eⱼ: the mean ratio; converged: solves that met the residual tolerances; products: " +
			"mean product calls per solve (Result.Products).",
	}
	of := func(c int) string { return fmt.Sprintf("%d/%d", c, res.Instances) }
	for _, sc := range res.Schedules {
		tab.Add(sc.Name, of(sc.Lowest), of(sc.AtCoord), fmt.Sprintf("%.4f", sc.MeanRatio), of(sc.Converged),
			fmt.Sprintf("%.0f", sc.MeanProducts))
	}
	env.Table(tab)
	env.Note("Instances where no schedule reached the best signed coordinate vector: %d of %d.", res.NoneAtCoord, res.Instances)
}
