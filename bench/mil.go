package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/neadmm/neadmm/internal/svgplot"
	"github.com/neadmm/neadmm/mil"
)

var milCommand = Command{
	Name:  "mil",
	Short: "multi-instance learning: the paper's Table 1 (fox, vaccine) with mean ± std over folds, fit times, ROC/PR curves",
	Flags: milFlags,
	// One default fit on the paper's 80/20 split of synthetic bags
	// and (when the data directory is found) of vaccine and fox:
	// about 1 s here (70 s under qemu's arm64 emulation with both
	// methods, so only the default one).
	TourArgs: []string{"-protocols", "split", "-synth", "300", "-methods", "default"},
}

// paperTable1 is neADMM's row of the paper's Table 1 (80/20 split).
var paperTable1 = map[string]MILMetrics{
	"vaccine.svm": {ACC: 0.8000, PR: 0.8049, RE: 0.5841, F1: 0.6769, AUC: 0.8901, AUPRTrapz: 0.7961},
	"fox.csv":     {ACC: 0.5000, PR: 0.4483, RE: 0.7647, F1: 0.5652, AUC: 0.5422, AUPRTrapz: 0.4583},
}

// MILResult is the mil command's JSON "results".
type MILResult struct {
	DataDir string `json:"data_dir,omitempty"`
	// Datasets are in the order run; an interrupted run holds the finished
	// evaluations.
	Datasets []*MILDataset `json:"datasets"`
}

// MILDataset is one data set's evaluations.
type MILDataset struct {
	Name      string `json:"name"`
	Bags      int    `json:"bags"`
	Positives int    `json:"positives"`
	Instances int    `json:"instances"`
	Features  int    `json:"features"`
	Sparse    bool   `json:"sparse"`
	// Paper is neADMM's row of the paper's Table 1 (80/20 split), when the
	// paper reports this data set (AP is not reported: 0).
	Paper *MILMetrics `json:"paper,omitempty"`
	Evals []*MILEval  `json:"evals"`
}

// MILEval is one method under one protocol.
type MILEval struct {
	Method   string `json:"method"`
	Options  string `json:"options"`
	Protocol string `json:"protocol"`
	// Splits counts the splits that completed; PlannedSplits those of the
	// protocol. They differ only when Interrupted: the run was stopped
	// (Ctrl-C) part-way, and every number here is over the completed
	// splits.
	Splits        int  `json:"splits"`
	PlannedSplits int  `json:"planned_splits"`
	Interrupted   bool `json:"interrupted,omitempty"`
	// Mean and Std are over the splits (sample std; 0 for one split).
	Mean MILMetrics `json:"mean"`
	Std  MILMetrics `json:"std"`
	// Folds holds each completed split's metrics, in split order.
	Folds []MILFold `json:"folds"`
	// FitSeconds is the wall time of each fit (scaling and Gram included);
	// Iterations the outer iterations; MsPerIteration the solver time per
	// outer iteration (fit time minus setup, over iterations).
	FitSeconds     Stat `json:"fit_seconds"`
	Iterations     Stat `json:"iterations"`
	MsPerIteration Stat `json:"ms_per_iteration"`
	// Split is the share of the solver time spent in each update, summed
	// over all fits: "q", "beta", "t" and "engine" (dual update and
	// residuals).
	Split map[string]float64 `json:"time_split"`
	// Converged counts the fits whose stopping test passed (residuals, or
	// the primal residual and a stalled objective).
	Converged int `json:"converged"`
	// PrimalResidual is ||r|| at the end of each fit.
	PrimalResidual Stat `json:"primal_residual"`
	// Stalled counts the fits stopped by the objective test (primal
	// residual within tolerance, objective unchanged) rather than by the
	// residual test.
	Stalled int `json:"stalled"`
	// Picked is, for the FitCV methods, the setting chosen on each split's
	// training bags (split order); FitSeconds is then the whole FitCV
	// (cross-validation and refit) and the other fit statistics are those
	// of its final fit.
	Picked []string `json:"picked,omitempty"`
}

// MILFold is one split's metrics: fold Fold of repeat Repeat (Fold is 0
// for a holdout split).
type MILFold struct {
	Repeat int `json:"repeat"`
	Fold   int `json:"fold"`
	MILMetrics
}

// MILMetrics are the bag-level metrics of Table 1 plus average precision.
// AUPRTrapz is the trapezoid PR area the paper reports as AUPR.
type MILMetrics struct {
	ACC       float64 `json:"acc"`
	PR        float64 `json:"precision"`
	RE        float64 `json:"recall"`
	F1        float64 `json:"f1"`
	AUC       float64 `json:"auc"`
	AUPRTrapz float64 `json:"aupr_trapz"`
	AP        float64 `json:"ap"`
}

func fromMetrics(m mil.Metrics) MILMetrics {
	return MILMetrics{ACC: m.Accuracy, PR: m.Precision, RE: m.Recall, F1: m.F1, AUC: m.AUC, AUPRTrapz: m.AUPRTrapz, AP: m.AUPR}
}

// milMethod is a named option set for Fit, or (search not nil) FitCV
// with a search.
type milMethod struct {
	name, desc string
	opt        func() mil.Options
	search     func() mil.Search
}

var milMethods = []milMethod{
	{"default", "mean loss, λ=0.01, balanced, ρ from 0.03 ×1.02/it, stop on residual+objective", mil.DefaultOptions, nil},
	{"paper", "sum loss, λ=1, fixed ρ=0.1, 100 iterations (the paper's settings)", mil.PaperOptions, nil},
	{"fitcv", "mil.FitCV with mil.DefaultSearch(): λ, pooling and scaling chosen by CV inside each training set", nil, mil.DefaultSearch},
	{"fitcv-2026-11", "mil.FitCV with the search DefaultSearch was before the bag-level models (max and mean poolings, one repeat, no anchor)", nil, previousSearch},
}

// previousSearch is DefaultSearch as it was before the feature-wise mean
// and max joined its grid (2026-11-28): max and mean poolings, one repeat
// of the inner folds, no anchor. It keeps that row comparable.
func previousSearch() mil.Search {
	s := mil.DefaultSearch()
	s.Poolings = []mil.Pooling{mil.MaxPooling(), mil.MeanPooling()}
	s.MinTestBags = 0
	s.AnchorSE = 0
	return s
}

func milFlags(fs *FlagSet) RunFunc {
	data := fs.String("data", "", "`dir` holding fox.csv and vaccine.svm (default: ../shared/data or $"+datadir.EnvVar+" when found)")
	files := fs.String("files", "vaccine.svm,fox.csv", "comma-separated data `files` to evaluate in the data directory (or absolute paths)")
	protocols := fs.String("protocols", "split,cv", "comma-separated `protocols`: split (the paper's stratified 80/20) and cv (k-fold CV, repeated)")
	folds := fs.Int("folds", 10, "folds of the cross-validation")
	repeats := fs.Int("repeats", 5, "repetitions of the cross-validation with fresh shuffles")
	methods := fs.String("methods", "default,paper,fitcv", "comma-separated option `sets`: default (mil.DefaultOptions), paper (mil.PaperOptions), fitcv (mil.FitCV with mil.DefaultSearch), fitcv-2026-11 (mil.FitCV with the search DefaultSearch was before the bag-level models)")
	synth := fs.Int("synth", 0, "also evaluate `n` synthetic bags with a planted max rule (always done when no data directory is found)")
	workers := fs.Int("workers", 1, "folds fitted in parallel (fit times are per fit, so >1 inflates them on a busy machine)")
	foldRule := fs.String("fold-rule", "pcg", "`rule` of the cv folds: pcg (mil.KFold's, from -seed) or peer (the rule of ../shared/peers/mil/run: Python's random.Random(r) for repeat r = 0, 1, ..., so both print results over identical splits)")
	cfg := milConfig{}
	fs.Check(func() error {
		cfg = milConfig{folds: *folds, repeats: *repeats, synth: *synth, workers: *workers, peerFolds: *foldRule == "peer"}
		if *foldRule != "pcg" && *foldRule != "peer" {
			return fmt.Errorf("-fold-rule: unknown rule %q (want pcg or peer)", *foldRule)
		}
		for _, p := range splitList(*protocols) {
			if p != "split" && p != "cv" {
				return fmt.Errorf("-protocols: unknown protocol %q (want split or cv)", p)
			}
			cfg.protocols = append(cfg.protocols, p)
		}
		for _, name := range splitList(*methods) {
			found := false
			for _, m := range milMethods {
				if m.name == name {
					cfg.methods, found = append(cfg.methods, m), true
				}
			}
			if !found {
				return fmt.Errorf("-methods: unknown method %q (want default, paper, fitcv or fitcv-2026-11)", name)
			}
		}
		switch {
		case len(cfg.protocols) == 0:
			return errors.New("-protocols: no protocol selected")
		case len(cfg.methods) == 0:
			return errors.New("-methods: no method selected")
		case cfg.folds < 2 || cfg.repeats < 1:
			return fmt.Errorf("-folds %d -repeats %d: want folds >= 2 and repeats >= 1", cfg.folds, cfg.repeats)
		case cfg.synth < 0 || cfg.synth == 1:
			return fmt.Errorf("-synth %d: want 0 or >= 2 bags", cfg.synth)
		case cfg.workers < 1:
			return fmt.Errorf("-workers %d: want >= 1", cfg.workers)
		}
		if err := checkCounts(map[string]int{"-workers": cfg.workers}); err != nil {
			return err
		}
		// The synthetic bags (50 features, up to 15 instances a bag)
		// within mil.Synthetic's cap, the splits within Protocol's.
		if err := capProduct(fmt.Sprintf("-synth %d", cfg.synth), "bags x 15 instances x 50 features", "mil.DefaultMaxDenseCells",
			mil.DefaultMaxDenseCells, float64(cfg.synth), 15, 50); err != nil {
			return err
		}
		if err := capProduct(fmt.Sprintf("-folds %d -repeats %d", cfg.folds, cfg.repeats), "splits", "mil.MaxSplits",
			mil.MaxSplits, float64(cfg.folds), float64(cfg.repeats)); err != nil {
			return err
		}
		return checkDataDir(*data)
	})
	return func(ctx context.Context, env *Env) error {
		dir, note := findData(*data)
		cfg.dir = dir
		if cfg.dir != "" {
			cfg.files = splitList(*files)
		}
		if len(cfg.files) == 0 && cfg.synth == 0 {
			cfg.synth = 300
		}
		if note != "" {
			env.Note("%s Table 1 needs them: evaluating %d synthetic bags only.", note, cfg.synth)
		}
		return runMIL(ctx, env, cfg)
	}
}

type milConfig struct {
	dir            string
	files          []string
	protocols      []string
	folds, repeats int
	synth, workers int
	methods        []milMethod
	// peerFolds selects the peers' fold rule for cv (see peerfolds.go).
	peerFolds bool
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// runMIL evaluates the data sets of cfg one after the other.
func runMIL(ctx context.Context, env *Env, cfg milConfig) error {
	res := &MILResult{DataDir: cfg.dir}
	env.Results(res)
	srcs := milSources(cfg, env.Seed)
	prog := env.Progress("fits", milFits(cfg, len(srcs)))
	defer prog.Finish()
	for _, src := range srcs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := runMILSource(ctx, env, cfg, res, src, prog); err != nil {
			return err
		}
	}
	return nil
}

// milSource is a data set to evaluate: its name and how to load it.
type milSource struct {
	name string
	load func() (*mil.Dataset, error)
}

// milSources returns the data sets of cfg: the synthetic one first, then
// the files.
func milSources(cfg milConfig, seed uint64) []milSource {
	var srcs []milSource
	if cfg.synth > 0 {
		n := cfg.synth
		srcs = append(srcs, milSource{fmt.Sprintf("synthetic (%d bags)", n), func() (*mil.Dataset, error) {
			d, _, err := mil.Synthetic(mil.SynthConfig{Bags: n, Features: 50, MinInstances: 1, MaxInstances: 15,
				Relevant: 5, Margin: 0.5, Seed: seed})
			return d, err
		}})
	}
	for _, f := range cfg.files {
		path := f
		if !filepath.IsAbs(f) {
			path = filepath.Join(cfg.dir, f)
		}
		srcs = append(srcs, milSource{f, func() (*mil.Dataset, error) { return mil.LoadFile(path, nil) }})
	}
	return srcs
}

// milFits returns the number of fits of cfg on n data sets, the units of
// the progress line.
func milFits(cfg milConfig, n int) int {
	total := 0
	for range n {
		for _, p := range cfg.protocols {
			splits := 1
			if p == "cv" {
				splits = cfg.folds * cfg.repeats
			}
			total += splits * len(cfg.methods)
		}
	}
	return total
}

// runMILSource evaluates every protocol and method on one data set and
// reports them: the table, the notes and the figure. A missing file is
// skipped with a note. An error ends the data set's evaluations; what
// completed before it, and on Ctrl-C the completed splits of the
// interrupted evaluation, is still reported.
func runMILSource(ctx context.Context, env *Env, cfg milConfig, res *MILResult, src milSource, prog *Progress) error {
	d, err := src.load()
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			env.Note("Skipping %s: %v (give -data DIR or set %s to the directory holding fox.csv and vaccine.svm)", src.name, err, datadir.EnvVar)
			return nil
		}
		return fmt.Errorf("%s: %w", src.name, err)
	}
	ds := &MILDataset{Name: src.name, Bags: d.NumBags(), Positives: d.Positives(), Instances: d.NumInstances(),
		Features: d.NumFeatures(), Sparse: d.IsSparse()}
	if p, ok := paperTable1[src.name]; ok {
		ds.Paper = &p
	}
	res.Datasets = append(res.Datasets, ds)
	tab := &Table{
		Title: fmt.Sprintf("%s: %d bags (%d positive), %d instances, %d features, %s", src.name, ds.Bags, ds.Positives,
			ds.Instances, ds.Features, map[bool]string{true: "sparse", false: "dense"}[ds.Sparse]),
		Columns: []string{"method", "protocol", "ACC", "PR", "RE", "F1", "AUC", "AUPR (trapz)", "AP", "fit time", "iterations", "ms/iter"},
		Note: "Mean ± std over the splits; AUPR (trapz) is the trapezoid PR area the paper reports as AUPR, AP the average precision. " +
			"Fit time is the median wall time of one fit (scaling and Gram matrix included; for the fitcv methods the whole mil.FitCV: cross-validation and refit); ms/iter the median solver time per outer iteration (for fitcv, of the final fit).",
	}
	run := evaluateMILSource(ctx, cfg, d, ds, tab, prog, env.Seed)
	if len(ds.Evals) > 0 {
		if ds.Paper != nil {
			pp := ds.Paper
			f4 := func(v float64) string { return fmt.Sprintf("%.4f", v) }
			tab.Add("paper, Table 1", "80/20 split", f4(pp.ACC), f4(pp.PR), f4(pp.RE), f4(pp.F1), f4(pp.AUC), f4(pp.AUPRTrapz), "–", "–", "–", "–")
		}
		env.Table(tab)
	}
	milNotes(env, ds)
	if run.lost != "" {
		env.Note("%s, %s: interrupted before any split completed.", src.name, run.lost)
	}
	if fig := milCurves(src.name, cfg.methods, run.curves, run.partial); fig != nil {
		env.Figure(figName(src.name), fig)
	}
	return run.err
}

// milSourceRun is what the evaluations of one data set leave besides
// their MILEvals.
type milSourceRun struct {
	// curves holds the reports of the last protocol evaluated (method ->
	// report), so the figure's curves never mix protocols, even after
	// Ctrl-C; partial names the evaluation interrupted part-way, lost the
	// one interrupted before any split completed.
	curves        map[string]*mil.Report
	partial, lost string
	// err ended the evaluations: ctx's error, or a fit's.
	err error
}

// evaluateMILSource runs every protocol and method on d, appending each
// evaluation to ds.Evals and its row to tab, until all are done or one
// fails.
func evaluateMILSource(ctx context.Context, cfg milConfig, d *mil.Dataset, ds *MILDataset, tab *Table, prog *Progress, seed uint64) milSourceRun {
	var run milSourceRun
	for _, p := range cfg.protocols {
		proto := mil.PaperSplit(seed)
		var folds [][]int // nil: proto's own
		if p == "cv" {
			proto = mil.KFold(cfg.folds, cfg.repeats, seed)
			if cfg.peerFolds {
				proto.Name += " (peer folds)"
				folds = peerFoldsOf(d.Labels(), cfg.folds, cfg.repeats)
			}
		}
		proto.Workers = cfg.workers
		protoCurves := map[string]*mil.Report{}
		for _, m := range cfg.methods {
			ev, rep, err := milEvaluate(ctx, d, proto, folds, m, prog, ds.Name)
			if ev != nil {
				ds.Evals = append(ds.Evals, ev)
				protoCurves[m.name], run.curves = rep, protoCurves
				protoCell := proto.Name
				if ev.Interrupted {
					protoCell += fmt.Sprintf(" (interrupted: %d of %d splits)", ev.Splits, ev.PlannedSplits)
					run.partial = fmt.Sprintf("%s interrupted after %d of %d splits", m.name, ev.Splits, ev.PlannedSplits)
				}
				tab.Add(m.name, protoCell, pm(ev.Mean.ACC, ev.Std.ACC), pm(ev.Mean.PR, ev.Std.PR), pm(ev.Mean.RE, ev.Std.RE),
					pm(ev.Mean.F1, ev.Std.F1), pm(ev.Mean.AUC, ev.Std.AUC), pm(ev.Mean.AUPRTrapz, ev.Std.AUPRTrapz),
					pm(ev.Mean.AP, ev.Std.AP), FmtNs(ev.FitSeconds.Median*1e9), FmtSig(ev.Iterations.Median, 3),
					FmtSig(ev.MsPerIteration.Median, 3))
			}
			if err != nil {
				if ctx.Err() != nil {
					run.err = ctx.Err()
					if ev == nil {
						run.lost = proto.Name + ", " + m.name
					}
				} else {
					run.err = fmt.Errorf("%s, %s, %s: %w", ds.Name, proto.Name, m.name, err)
				}
				return run
			}
		}
	}
	return run
}

// milNotes notes, per evaluation of ds, FitCV's picks and the default
// method's time split and stopping.
func milNotes(env *Env, ds *MILDataset) {
	for _, ev := range ds.Evals {
		if len(ev.Picked) > 0 {
			env.Note("%s, %s, %s: settings picked per split: %s.", ds.Name, ev.Protocol, ev.Method, countPicks(ev.Picked))
		}
		if ev.Method == "default" {
			stopped := ""
			if ev.Interrupted {
				stopped = fmt.Sprintf(" (interrupted after %d of %d splits)", ev.Splits, ev.PlannedSplits)
			}
			env.Note("%s, %s, default%s: time per outer iteration split q %.0f%%, beta %.0f%%, t %.0f%%, engine %.0f%%; of %d fits %d met the residual test and %d stopped on a stalled objective, final primal residual median %s.",
				ds.Name, ev.Protocol, stopped, 100*ev.Split["q"], 100*ev.Split["beta"], 100*ev.Split["t"], 100*ev.Split["engine"],
				ev.Splits, ev.Converged, ev.Stalled, FmtSig(ev.PrimalResidual.Median, 3))
		}
	}
}

// milEvaluate runs one method under one protocol (on the fold
// assignments folds when not nil, else on the protocol's own splits) and
// summarizes it. When ctx is cancelled
// part-way it returns ctx's error beside the summary of the splits that
// completed (Interrupted set), or a nil summary if none did; any other
// error comes alone.
func milEvaluate(ctx context.Context, d *mil.Dataset, proto mil.Protocol, folds [][]int, m milMethod, prog *Progress, name string) (*MILEval, *mil.Report, error) {
	// Records by the split's test bags (Run builds the subsets itself), so
	// that they can be reported in split order.
	var mu sync.Mutex
	fits := map[string]milFit{}
	score := func(ctx context.Context, train, test *mil.Dataset) ([]float64, error) {
		prog.Running(fmt.Sprintf("%s %s %s", name, proto.Name, m.name))
		t0 := time.Now()
		model, picked, err := fitMethod(ctx, train, m)
		if err != nil {
			return nil, err
		}
		rec := milFit{res: model.Result(), secs: time.Since(t0).Seconds(), picked: picked}
		sc, err := model.BagScores(test)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		fits[milTestKey(test.BagID, test.NumBags())] = rec
		mu.Unlock()
		prog.Done(1) // the split completes: nothing below checks ctx
		return sc, nil
	}
	var rep *mil.Report
	var err error
	if folds != nil {
		rep, err = proto.RunFolds(ctx, d, folds, score)
	} else {
		rep, err = proto.Run(ctx, d, score)
	}
	// On Ctrl-C, Run still reports the splits that completed.
	if err != nil && (ctx.Err() == nil || rep == nil || len(rep.Folds) == 0) {
		return nil, nil, err
	}
	var recs []milFit
	for _, f := range rep.Folds {
		rec, ok := fits[milTestKey(func(k int) string { return d.BagID(f.Test[k]) }, len(f.Test))]
		if !ok { // a fold fails only with the error above
			return nil, nil, fmt.Errorf("no fit recorded for %s repeat %d fold %d", proto.Name, f.Repeat, f.Fold)
		}
		recs = append(recs, rec)
	}
	ev := &MILEval{Method: m.name, Options: m.desc, Protocol: proto.Name, Splits: len(rep.Folds),
		PlannedSplits: proto.Repeats * max(1, proto.Folds), Interrupted: err != nil,
		Mean: fromMetrics(rep.Mean), Std: fromMetrics(rep.Std), Split: map[string]float64{}}
	for _, f := range rep.Folds {
		ev.Folds = append(ev.Folds, MILFold{Repeat: f.Repeat, Fold: f.Fold, MILMetrics: fromMetrics(f.Metrics)})
	}
	ev.addFits(recs, m.search != nil)
	return ev, rep, err
}

// milFit is what one split's fit leaves for the summary.
type milFit struct {
	res    mil.FitResult
	secs   float64
	picked string // the FitCV methods only
}

// milTestKey identifies a split by the IDs of its n test bags.
func milTestKey(ids func(k int) string, n int) string {
	var b strings.Builder
	for k := range n {
		b.WriteString(ids(k))
		b.WriteByte(0)
	}
	return b.String()
}

// fitMethod fits m on train: mil.FitCV with m's search for the FitCV
// methods, where picked says which setting (or ensemble) it chose, else
// mil.Fit with m's options.
func fitMethod(ctx context.Context, train *mil.Dataset, m milMethod) (model *mil.Model, picked string, err error) {
	if m.search == nil {
		model, err = mil.Fit(ctx, train, m.opt())
		return model, "", err
	}
	model, sel, err := mil.FitCV(ctx, train, m.search())
	picked = sel.Best.String()
	if sel.Ensembled {
		names := make([]string, len(sel.Ensemble.Members))
		for i, j := range sel.Ensemble.Members {
			names[i] = sel.Settings[j].String()
		}
		picked = "ensemble of " + strings.Join(names, " + ")
	}
	return model, picked, err
}

// addFits sets ev's fit statistics from the fits of its splits, in split
// order (with FitCV's picks when cv).
func (ev *MILEval) addFits(recs []milFit, cv bool) {
	var secs, its, msIt, prim []float64
	var tq, tb, tt, te time.Duration
	for _, rec := range recs {
		r := rec.res
		if cv {
			ev.Picked = append(ev.Picked, rec.picked)
		}
		secs = append(secs, rec.secs)
		its = append(its, float64(r.Iterations))
		prim = append(prim, r.Primal)
		solve := r.Time.Total - r.Time.Setup
		if r.Iterations > 0 {
			msIt = append(msIt, solve.Seconds()*1e3/float64(r.Iterations))
		}
		tq += r.Time.QUpdate
		tb += r.Time.BetaUpdate
		tt += r.Time.TUpdate
		te += r.Time.Engine
		if r.Converged() {
			ev.Converged++
		}
		if r.Stalled {
			ev.Stalled++
		}
	}
	if sum := tq + tb + tt + te; sum > 0 {
		ev.Split["q"], ev.Split["beta"] = float64(tq)/float64(sum), float64(tb)/float64(sum)
		ev.Split["t"], ev.Split["engine"] = float64(tt)/float64(sum), float64(te)/float64(sum)
	}
	ev.FitSeconds, ev.Iterations, ev.MsPerIteration, ev.PrimalResidual = Summarize(secs), Summarize(its), Summarize(msIt), Summarize(prim)
}

// countPicks summarizes FitCV's picks: "lambda=0.01 pooling=max
// scaling=auto ×7, ...", most frequent first.
func countPicks(picks []string) string {
	n := map[string]int{}
	for _, p := range picks {
		n[p]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if n[keys[i]] != n[keys[j]] {
			return n[keys[i]] > n[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, n[k])
	}
	return strings.Join(parts, ", ")
}

// pm formats mean ± std with 4 decimals (std omitted for a single split).
func pm(mean, std float64) string {
	if std == 0 {
		return fmt.Sprintf("%.4f", mean)
	}
	return fmt.Sprintf("%.4f ± %.4f", mean, std)
}

// figName turns a data set name into a file-name part.
func figName(name string) string {
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".csv"), ".svm")
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// milCurves draws the pooled ROC and PR curves of each method's report
// under one protocol: two panels, one series per method. A non-empty
// partial (say, "default interrupted after 3 of 50 splits") goes in the
// title.
func milCurves(name string, methods []milMethod, reps map[string]*mil.Report, partial string) *svgplot.Figure {
	roc := svgplot.Plot{Title: "ROC", Legend: svgplot.LegendBottomRight,
		X: svgplot.Axis{Label: "false positive rate", Min: 0, Max: 1}, Y: svgplot.Axis{Label: "true positive rate", Min: 0, Max: 1}}
	pr := svgplot.Plot{Title: "precision-recall", Legend: svgplot.LegendBottomLeft,
		X: svgplot.Axis{Label: "recall", Min: 0, Max: 1}, Y: svgplot.Axis{Label: "precision", Min: 0, Max: 1}}
	protocol := ""
	for _, m := range methods {
		rep := reps[m.name]
		if rep == nil {
			continue
		}
		protocol = rep.Protocol.Name
		rc, err1 := rep.PooledROC()
		pc, err2 := rep.PooledPR()
		if err1 != nil || err2 != nil {
			continue
		}
		rs := svgplot.Series{Name: fmt.Sprintf("neADMM %s (mean AUC %.3f)", m.name, rep.Mean.AUC), Marker: svgplot.MarkerNone}
		for _, p := range rc {
			rs.X, rs.Y = append(rs.X, p.FPR), append(rs.Y, p.TPR)
		}
		ps := svgplot.Series{Name: fmt.Sprintf("neADMM %s (mean AUPR %.3f)", m.name, rep.Mean.AUPRTrapz), Marker: svgplot.MarkerNone}
		for _, p := range pc {
			ps.X, ps.Y = append(ps.X, p.Recall), append(ps.Y, p.Precision)
		}
		roc.Series = append(roc.Series, rs)
		pr.Series = append(pr.Series, ps)
	}
	if len(roc.Series) == 0 {
		return nil
	}
	roc.Series = append(roc.Series, svgplot.Series{Name: "chance", X: []float64{0, 1}, Y: []float64{0, 1},
		Dashed: true, Color: "#999999", Marker: svgplot.MarkerNone})
	title := fmt.Sprintf("%s: pooled test scores, %s", name, protocol)
	if partial != "" {
		title += " (" + partial + ")"
	}
	return &svgplot.Figure{Title: title, Panels: []svgplot.Plot{roc, pr}}
}
