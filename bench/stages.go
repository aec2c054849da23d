package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/neadmm/neadmm/onebit"
)

var stagesCommand = Command{
	Name:  "stages",
	Short: "what each stage of onebit's Recover buys: the defaults against each stage switched off, paired on the same instances",
	Flags: stagesFlags,
}

// stageVariant is Recover with one stage switched off through its
// RecoverOptions.
type stageVariant struct {
	name string // the -variants name
	what string // what is switched off
	off  func(o *onebit.RecoverOptions)
	// flag names the defaults' RecoverResult report of the stage acting
	// and fired reads it; nil where no field says.
	flag  string
	fired func(r *onebit.RecoverResult) bool
}

// stageVariants lists the defaults and every stage that RecoverOptions
// can switch off, in the order the stages run. The continuation itself
// cannot be, nor the choice between the regression's fit and the
// consistent estimate apart from the regression, nor the outliers left
// out apart from the capped loss (Cap = 0 ends both).
var stageVariants = []stageVariant{
	{"defaults", "DefaultRecoverOptions", func(*onebit.RecoverOptions) {}, "", nil},
	{"regress", "Regress = false: no sign regression, so no clean-signs schedule, no choice of the fit, no pursuit",
		func(o *onebit.RecoverOptions) { o.Regress = false },
		"Regressed", func(r *onebit.RecoverResult) bool { return r.Regressed }},
	{"clean", "the clean-signs schedule: every Clean field 0 (the plain schedule whatever the signs)",
		func(o *onebit.RecoverOptions) {
			o.CleanEpsRel, o.CleanLambdaStart, o.CleanLambdaGrowth, o.CleanReweightRel = 0, 0, 0, 0
			o.CleanWarm, o.CleanMaxOutliers = false, 0
		}, "", nil},
	{"reweight", "Reweight = 0", func(o *onebit.RecoverOptions) { o.Reweight = 0 },
		"!Stopped", func(r *onebit.RecoverResult) bool { return !r.Stopped }},
	{"cap", "Cap = 0: the plain one-sided quadratic, no outliers left out", func(o *onebit.RecoverOptions) { o.Cap = 0 },
		"Outliers > 0", func(r *onebit.RecoverResult) bool { return r.Outliers > 0 }},
	{"growth", "SupportGrowth = 0: the continuation never stops early", func(o *onebit.RecoverOptions) { o.SupportGrowth = 0 },
		"Stopped", func(r *onebit.RecoverResult) bool { return r.Stopped }},
	{"refit", "Refit = false", func(o *onebit.RecoverOptions) { o.Refit = false },
		"Expanded > 0", func(r *onebit.RecoverResult) bool { return r.Expanded > 0 }},
	{"prune", "Prune = false", func(o *onebit.RecoverOptions) { o.Prune = false },
		"Pruned > 0", func(r *onebit.RecoverResult) bool { return r.Pruned > 0 }},
	{"swap", "Swap = false", func(o *onebit.RecoverOptions) { o.Swap = false },
		"Swapped > 0", func(r *onebit.RecoverResult) bool { return r.Swapped > 0 }},
	{"center", "Center = false, and with it the polish and the centroid", func(o *onebit.RecoverOptions) { o.Center = false },
		"Centered", func(r *onebit.RecoverResult) bool { return r.Centered }},
	{"polish", "Polish = false", func(o *onebit.RecoverOptions) { o.Polish = false },
		"Polished", func(r *onebit.RecoverResult) bool { return r.Polished }},
	{"centroid", "Centroid = false", func(o *onebit.RecoverOptions) { o.Centroid = false },
		"Centroid", func(r *onebit.RecoverResult) bool { return r.Centroid }},
	{"pursuit", "Pursuit = false", func(o *onebit.RecoverOptions) { o.Pursuit = false },
		"Pursued", func(r *onebit.RecoverResult) bool { return r.Pursued }},
	{"workingset", "WorkingSet = false: every neADMM solve on the whole of Φ (SupportGrowth then stops nothing)",
		func(o *onebit.RecoverOptions) { o.WorkingSet = false }, "", nil},
}

// StagesResult is the stages command's JSON "results".
type StagesResult struct {
	N     int `json:"n"`
	K     int `json:"k"`
	Seeds int `json:"seeds"`
	// Variants are the defaults and the stages switched off, in the
	// order of every row's cells.
	Variants []string `json:"variants"`
	// Rows are the (family, flip, M/N) cells in the order run; an
	// interrupted run holds the finished ones.
	Rows []*StagesRow `json:"rows"`
	// Summary holds one line per variant but the defaults over Rows.
	Summary []*StagesSummary `json:"summary"`
}

// StagesRow is one family at one flip rate and one M/N, over Seeds
// instances.
type StagesRow struct {
	Family string  `json:"family"`
	Flip   float64 `json:"flip"`
	Ratio  float64 `json:"ratio"`
	M      int     `json:"m"`
	// Cells holds one per variant, in StagesResult.Variants' order.
	Cells []*StagesCell `json:"cells"`
}

// StagesCell is one variant on one row's instances. Samples are in
// instance order, so that each pairs with the defaults'.
type StagesCell struct {
	Variant string `json:"variant"`
	// Error is the angular error arccos(<x, x̂>)/π, Diff that minus the
	// defaults' on the same instance.
	Error Stat `json:"error"`
	Diff  Stat `json:"error_diff"`
	// CPUMs is the solving thread's CPU time of Recover, CPUDiff that
	// minus the defaults'; Work and Products are RecoverResult's.
	CPUMs    Stat `json:"cpu_ms"`
	CPUDiff  Stat `json:"cpu_diff_ms"`
	Work     Stat `json:"work"`
	Products Stat `json:"products"`
	// Changed counts the instances whose estimate differs from the
	// defaults' in any bit; Fired those where the defaults' result
	// reports the stage acting (-1 where no field says, see the note).
	Changed int `json:"changed"`
	Fired   int `json:"fired"`
}

// StagesSummary is one variant over every row.
type StagesSummary struct {
	Variant string `json:"variant"`
	// Worse and Better count the rows whose mean Diff is above one
	// standard error or below minus one; MaxT is the largest |Diff|/se
	// and MaxRow its row.
	Worse  int     `json:"worse"`
	Better int     `json:"better"`
	MaxT   float64 `json:"max_t"`
	MaxRow string  `json:"max_row,omitempty"`
	// Changed and Instances count the instances whose estimate changed
	// and all; ChangedDiff and ChangedSE are the mean and standard error
	// of Diff over the instances whose error changed.
	Changed     int     `json:"changed"`
	Instances   int     `json:"instances"`
	ChangedDiff float64 `json:"changed_diff"`
	ChangedSE   float64 `json:"changed_se"`
	// CPURatio and WorkRatio are the means over rows of the variant's
	// mean CPU time (work) over the defaults'.
	CPURatio  float64 `json:"cpu_ratio"`
	WorkRatio float64 `json:"work_ratio"`
}

// stagesArgs holds the stages command's flag values and what its check
// parses from them.
type stagesArgs struct {
	n, k, seeds, workers      int
	fams, flipList, ratioList string
	variantList               string
	quick                     bool
	families                  []stagesFamily
	flips, ratios             []float64
	variants                  []*stageVariant
}

func stagesFlags(fs *FlagSet) RunFunc {
	a := &stagesArgs{}
	fs.IntVar(&a.n, "n", 500, "signal length `N`")
	fs.IntVar(&a.k, "k", 10, "non-zeros `K` of the sparse families")
	names := make([]string, len(stagesFamilies))
	for i, f := range stagesFamilies {
		names[i] = f.name
	}
	fs.StringVar(&a.fams, "families", strings.Join(names, ","), "comma-separated instance `families`: "+strings.Join(names, ", "))
	fs.StringVar(&a.flipList, "flips", "0,0.03", "comma-separated, increasing fractions of flipped signs")
	fs.StringVar(&a.ratioList, "ratios", "0.5,1,2", "comma-separated, increasing `ratios` M/N")
	fs.IntVar(&a.seeds, "seeds", 20, "instances per row")
	fs.StringVar(&a.variantList, "variants", "all", "comma-separated stages to switch off one at a time (all: every one), of "+
		variantNames())
	fs.IntVar(&a.workers, "workers", 1, "instances solved in parallel (CPU times are the solving thread's)")
	fs.BoolVar(&a.quick, "quick", false, "a short run: N = 100 and 5 instances per row unless -n or -seeds is given")
	fs.Check(func() error { return a.check(fs) })
	return a.run
}

// variantNames lists the names -variants accepts.
func variantNames() string {
	var s []string
	for _, v := range stageVariants[1:] {
		s = append(s, v.name)
	}
	return strings.Join(s, ", ")
}

// check parses the lists and checks every value.
func (a *stagesArgs) check(fs *FlagSet) (err error) {
	if a.quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["n"] {
			a.n = 100
		}
		if !set["seeds"] {
			a.seeds = 5
		}
	}
	a.families = a.families[:0]
	for _, name := range splitList(a.fams) {
		f, ok := lookupStagesFamily(name)
		if !ok {
			return fmt.Errorf("-families: unknown family %q (want some of %s)", name, strings.Join(familyNames(), ", "))
		}
		a.families = append(a.families, f)
	}
	if len(a.families) == 0 {
		return errors.New("-families: no family given")
	}
	if a.flips, err = parseFlips(a.flipList); err != nil {
		return fmt.Errorf("-flips: %w", err)
	}
	if len(a.flips) == 0 {
		return errors.New("-flips: no fraction given")
	}
	if a.ratios, err = parseRatios(a.ratioList); err != nil {
		return fmt.Errorf("-ratios: %w", err)
	}
	if a.variants, err = parseVariants(a.variantList); err != nil {
		return fmt.Errorf("-variants: %w", err)
	}
	switch {
	case a.n < 2 || a.k < 1 || a.k > a.n:
		return fmt.Errorf("-n %d -k %d: want N >= 2 and 1 <= K <= N", a.n, a.k)
	case a.seeds < 2:
		return fmt.Errorf("-seeds %d: want >= 2 (a standard error needs two)", a.seeds)
	case a.workers < 1:
		return fmt.Errorf("-workers %d: want >= 1", a.workers)
	}
	return nil
}

// familyNames lists the families' names.
func familyNames() []string {
	var s []string
	for _, f := range stagesFamilies {
		s = append(s, f.name)
	}
	return s
}

// parseVariants reads "all" or a list of stage names; the defaults come
// first whatever the list says, the rest in stageVariants' order.
func parseVariants(s string) ([]*stageVariant, error) {
	want := map[string]bool{}
	for _, name := range splitList(s) {
		if name != "all" && !slices.ContainsFunc(stageVariants, func(v stageVariant) bool { return v.name == name }) {
			return nil, fmt.Errorf("unknown stage %q (want all or some of %s)", name, variantNames())
		}
		want[name] = true
	}
	var out []*stageVariant
	for i := range stageVariants {
		v := &stageVariants[i]
		if i == 0 || want["all"] || want[v.name] {
			out = append(out, v)
		}
	}
	return out, nil
}

// stagesRun is one variant on one instance.
type stagesRun struct {
	err, cpu, work, products float64
	changed, fired           bool
}

func (a *stagesArgs) run(ctx context.Context, env *Env) error {
	res := &StagesResult{N: a.n, K: a.k, Seeds: a.seeds}
	for _, v := range a.variants {
		res.Variants = append(res.Variants, v.name)
	}
	env.Results(res)
	a.notes(env)
	prog := env.Progress("stages", len(a.families)*len(a.flips)*len(a.ratios)*a.seeds)
	defer prog.Finish()
	defer func() { // also after Ctrl-C, over the finished rows
		a.matrices(env, res)
		a.summary(env, res)
	}()
	for _, f := range a.families {
		for _, flip := range a.flips {
			if err := a.runSetting(ctx, env, res, prog, f, flip); err != nil {
				return err
			}
		}
	}
	return nil
}

// notes describes the run: the protocol, the families and the variants.
func (a *stagesArgs) notes(env *Env) {
	env.Note("**Recover's stages**: N = %d, K = %d, %d instances per row; on each instance Recover runs with "+
		"DefaultRecoverOptions and with each stage switched off, one at a time (paired: the same instance, the same "+
		"Solver). Angular error arccos(⟨x, x̂⟩)/π; Δ: the variant's minus the defaults' on the same instance, mean ± se "+
		"(standard error of the paired differences; a difference of at most %g, rounding, counts as 0); CPU: the "+
		"solving thread's CPU time, after an untimed run of the defaults on the instance.", a.n, a.k, a.seeds, roundingDiff)
	var fams []string
	for _, f := range a.families {
		fams = append(fams, f.name+" ("+f.what+")")
	}
	env.Note("Families: %s.", strings.Join(fams, "; "))
	var vs []string
	for _, v := range a.variants[1:] {
		s := labelOf(v.name) + ": " + v.what
		if v.flag != "" {
			s += " [fires: " + v.flag + "]"
		}
		vs = append(vs, s)
	}
	env.Note("Variants: %s. Not switchable through RecoverOptions: the continuation itself, the choice between the "+
		"regression's fit and the consistent estimate (it goes with Regress), the outliers left out apart from the "+
		"capped loss (Cap = 0 ends both).", strings.Join(vs, "; "))
}

// runSetting runs one family at one flip rate, a table row per M/N and
// variant, printed when the setting ends or is interrupted.
func (a *stagesArgs) runSetting(ctx context.Context, env *Env, res *StagesResult, prog *Progress, f stagesFamily, flip float64) error {
	tab := &Table{
		Title: fmt.Sprintf("Stages, %s, N = %d, K = %d, %g%% of the signs flipped", f.name, a.n, a.k, 100*flip),
		Columns: []string{"M/N", "variant", "error", "Δ error", "Δ/se", "changed", "fires", "CPU ms", "Δ CPU ms",
			"work", "products"},
		Note: "error: mean ± se; CPU ms, work (Result.Work, in products with the whole of Φ), products: means; Δ: " +
			"paired, the variant minus the defaults, mean ± se; changed: instances " +
			"whose estimate differs from the defaults'; fires: instances where the defaults' result reports the stage " +
			"acting (see the variants' note; – where no field says).",
	}
	defer func() {
		if len(tab.Rows) > 0 {
			env.Table(tab)
		}
	}()
	for _, ratio := range a.ratios {
		m := max(1, int(math.Round(ratio*float64(a.n))))
		prog.Running(fmt.Sprintf("%s flip %g M/N=%g", f.name, flip, ratio))
		runs := make([][]stagesRun, a.seeds)
		err := forEach(ctx, a.seeds, a.workers, func(i int, s *onebit.Solver) error {
			seed := instanceSeed(env.Seed, 100+f.code, int(math.Round(flip*1e4)), m, i)
			in, err := genStagesInstance(f.name, m, a.n, a.k, flip, seed)
			if err == nil {
				runs[i], err = a.runInstance(ctx, s, in, m)
			}
			prog.Done(1)
			return err
		})
		if err != nil {
			return err
		}
		row := a.row(f.name, flip, ratio, m, runs)
		res.Rows = append(res.Rows, row)
		for _, c := range row.Cells {
			fires := "–"
			if c.Fired >= 0 {
				fires = fmt.Sprintf("%d/%d", c.Fired, a.seeds)
			}
			tab.Add(FmtSig(ratio, 3), labelOf(c.Variant), pmSE(c.Error, 3), pmSE(c.Diff, 2), tStat(c.Diff),
				fmt.Sprintf("%d/%d", c.Changed, a.seeds), fires, FmtSig(c.CPUMs.Mean, 3), pmSE(c.CPUDiff, 2),
				FmtSig(c.Work.Mean, 3), FmtSig(c.Products.Mean, 4))
		}
	}
	return nil
}

// runInstance runs every variant on one instance, the defaults first.
func (a *stagesArgs) runInstance(ctx context.Context, s *onebit.Solver, in *recInstance, m int) ([]stagesRun, error) {
	p, err := onebit.NewProblem(in.phi, m, a.n, in.y)
	if err != nil {
		return nil, err
	}
	runs := make([]stagesRun, len(a.variants))
	def := make([]float64, a.n)
	x := make([]float64, a.n)
	var defRes onebit.RecoverResult
	// An untimed run first sizes the Solver's buffers for this problem
	// and brings Φ into the caches, which the first timed run would pay
	// for alone (5-15% of the defaults' time at N = 500 without flips).
	if _, err := s.Recover(ctx, p, x, onebit.DefaultRecoverOptions()); err != nil {
		return nil, err
	}
	for vi, v := range a.variants {
		opt := onebit.DefaultRecoverOptions()
		v.off(&opt)
		t0 := threadCPU()
		rr, err := s.Recover(ctx, p, x, opt)
		r := &runs[vi]
		r.cpu = cpuMs(t0)
		if err != nil {
			return nil, err
		}
		r.err, r.work, r.products = onebit.AngularError(in.x, x), rr.Work, float64(rr.Products)
		if vi == 0 {
			copy(def, x)
			defRes = rr
		}
		r.changed = !slices.Equal(x, def)
		r.fired = v.fired != nil && v.fired(&defRes)
	}
	return runs, nil
}

// roundingDiff is the largest difference of angular errors taken as
// rounding: an estimate that changes only in its last bits (a sum in
// another order) moves the error by 1e-16, which would otherwise count as
// a move beyond its standard error of 1e-16.
const roundingDiff = 1e-12

// roundOff returns d, or 0 when |d| <= roundingDiff.
func roundOff(d float64) float64 {
	if math.Abs(d) <= roundingDiff {
		return 0
	}
	return d
}

// row summarizes one row's runs (runs[instance][variant]).
func (a *stagesArgs) row(fam string, flip, ratio float64, m int, runs [][]stagesRun) *StagesRow {
	row := &StagesRow{Family: fam, Flip: flip, Ratio: ratio, M: m}
	for vi, v := range a.variants {
		col := func(get func(r, d *stagesRun) float64) Stat {
			xs := make([]float64, len(runs))
			for i := range runs {
				xs[i] = get(&runs[i][vi], &runs[i][0])
			}
			return Summarize(xs)
		}
		c := &StagesCell{Variant: v.name,
			Error:    col(func(r, _ *stagesRun) float64 { return r.err }),
			Diff:     col(func(r, d *stagesRun) float64 { return roundOff(r.err - d.err) }),
			CPUMs:    col(func(r, _ *stagesRun) float64 { return r.cpu }),
			CPUDiff:  col(func(r, d *stagesRun) float64 { return r.cpu - d.cpu }),
			Work:     col(func(r, _ *stagesRun) float64 { return r.work }),
			Products: col(func(r, _ *stagesRun) float64 { return r.products }),
			Fired:    -1,
		}
		if v.fired != nil {
			c.Fired = 0
		}
		for i := range runs {
			if runs[i][vi].changed {
				c.Changed++
			}
			if runs[i][vi].fired {
				c.Fired++
			}
		}
		row.Cells = append(row.Cells, c)
	}
	return row
}

// stagesMatrix is one of the tables with a row per finished row and a
// column per stage switched off: a title, a note and the cell of a
// variant's c against the defaults' d.
type stagesMatrix struct {
	title, note string
	cell        func(c, d *StagesCell) string
}

var stagesMatrices = []stagesMatrix{
	{"Stages: Δ error / se per row",
		"per stage switched off, the mean paired Δ error over its standard error (positive: the error grows without " +
			"the stage); · where no error changed; * marks a row moved beyond one se.",
		func(c, _ *StagesCell) string {
			t := tStat(c.Diff)
			switch {
			case t == "–":
				return "·"
			case moved(c.Diff) != 0:
				return t + "*"
			}
			return t
		}},
	{"Stages: Δ error × 1000 per row",
		"per stage switched off, the mean paired Δ error times 1000 (0.001 is 0.18°); · where no error changed; * " +
			"marks a row moved beyond one se.",
		func(c, _ *StagesCell) string {
			if c.Diff.Mean == 0 && se(c.Diff) == 0 {
				return "·"
			}
			v := strconv.FormatFloat(1000*c.Diff.Mean, 'f', 1, 64)
			if moved(c.Diff) != 0 {
				v += "*"
			}
			return v
		}},
	{"Stages: instances where the stage fires / where the estimate changes, per row",
		"per stage switched off, the instances (of each row's) on which the defaults' result reports the stage acting " +
			"(– where no field says, see the variants' note), then those on which its removal changes the estimate.",
		func(c, _ *StagesCell) string {
			f := "–"
			if c.Fired >= 0 {
				f = itoa(c.Fired)
			}
			return f + "/" + itoa(c.Changed)
		}},
	{"Stages: CPU time / the defaults' per row",
		"per stage switched off, its mean CPU time over the defaults' (below 1: the stage costs time).",
		func(c, d *StagesCell) string { return FmtSig(c.CPUMs.Mean/d.CPUMs.Mean, 2) }},
}

// matrices prints the stagesMatrices over the finished rows.
func (a *stagesArgs) matrices(env *Env, res *StagesResult) {
	if len(res.Rows) == 0 {
		return
	}
	for _, mx := range stagesMatrices {
		tab := &Table{
			Title:   mx.title,
			Columns: append([]string{"family", "flip", "M/N", "error", "CPU ms"}, res.Variants[1:]...),
			Note:    "error and CPU ms: the defaults' means; then " + mx.note,
		}
		for _, row := range res.Rows {
			d := row.Cells[0]
			cells := []string{row.Family, FmtSig(100*row.Flip, 2) + "%", FmtSig(row.Ratio, 3), FmtSig(d.Error.Mean, 3),
				FmtSig(d.CPUMs.Mean, 3)}
			for _, c := range row.Cells[1:] {
				cells = append(cells, mx.cell(c, d))
			}
			tab.Add(cells...)
		}
		env.Table(tab)
	}
}

// summary prints and records one line per variant over the finished rows.
func (a *stagesArgs) summary(env *Env, res *StagesResult) {
	if len(res.Rows) == 0 {
		return
	}
	tab := &Table{
		Title: fmt.Sprintf("Stages: summary over %d rows (N = %d, K = %d, %d instances each)", len(res.Rows), a.n, a.k, a.seeds),
		Columns: []string{"variant", "rows worse > 1 se", "rows better > 1 se", "largest |Δ|/se", "at", "changed",
			"Δ where changed", "CPU / defaults", "work / defaults"},
		Note: "A row moves when its mean paired Δ error is beyond one standard error (one changed instance alone is " +
			"exactly one se from 0 and does not count); changed: instances whose estimate " +
			"differs from the defaults'; Δ where changed: mean ± se of Δ over the instances whose error differs, pooled " +
			"over the rows; CPU and work: the mean over rows of the " +
			"variant's mean over the defaults'.",
	}
	res.Summary = res.Summary[:0]
	for vi, name := range res.Variants[1:] {
		vi++
		sm := &StagesSummary{Variant: name}
		var changed []float64
		for _, row := range res.Rows {
			c, d := row.Cells[vi], row.Cells[0]
			switch moved(c.Diff) {
			case 1:
				sm.Worse++
			case -1:
				sm.Better++
			}
			if t := c.Diff.Mean / se(c.Diff); se(c.Diff) > 0 {
				if math.Abs(t) > sm.MaxT {
					sm.MaxT, sm.MaxRow = math.Abs(t), fmt.Sprintf("%s %g%% M/N %g", row.Family, 100*row.Flip, row.Ratio)
				}
			}
			for _, e := range c.Diff.Samples {
				if e != 0 {
					changed = append(changed, e)
				}
			}
			sm.Changed += c.Changed
			sm.Instances += c.Error.N
			sm.CPURatio += c.CPUMs.Mean / d.CPUMs.Mean / float64(len(res.Rows))
			sm.WorkRatio += c.Work.Mean / d.Work.Mean / float64(len(res.Rows))
		}
		ch := Summarize(changed)
		sm.ChangedDiff, sm.ChangedSE = ch.Mean, se(ch)
		res.Summary = append(res.Summary, sm)
		tab.Add(labelOf(name), itoa(sm.Worse), itoa(sm.Better), FmtSig(sm.MaxT, 2), sm.MaxRow,
			fmt.Sprintf("%d/%d", sm.Changed, sm.Instances), pmSE(ch, 2), FmtSig(sm.CPURatio, 3), FmtSig(sm.WorkRatio, 3))
	}
	env.Table(tab)
}

// labelOf is the table label of the named variant.
func labelOf(name string) string {
	if name == "defaults" {
		return name
	}
	return "no " + name
}

// moved returns 1 when the mean of the paired differences d is above one
// standard error, -1 when below minus one, else 0. One non-zero
// difference among n is exactly one standard error from 0 (mean d/n, se
// |d|/n), which rounding may put on either side: the bound has a relative
// slack of 1e-9, so that it does not count.
func moved(d Stat) int {
	e := se(d) * (1 + 1e-9)
	switch {
	case e > 0 && d.Mean > e:
		return 1
	case e > 0 && d.Mean < -e:
		return -1
	}
	return 0
}

// se is the standard error of s's mean (0 for fewer than two samples).
func se(s Stat) float64 {
	if s.N < 2 {
		return 0
	}
	return s.Std / math.Sqrt(float64(s.N))
}

// pmSE formats a mean ± its standard error, the mean to sig digits.
func pmSE(s Stat, sig int) string {
	if s.N == 0 {
		return "–"
	}
	return FmtSig(s.Mean, sig) + " ± " + FmtSig(se(s), 2)
}

// tStat formats mean/se ("–" when se is 0).
func tStat(s Stat) string {
	if e := se(s); e > 0 {
		return strconv.FormatFloat(s.Mean/e, 'f', 1, 64)
	}
	return "–"
}
