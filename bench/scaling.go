package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/neadmm/neadmm/internal/svgplot"
	"github.com/neadmm/neadmm/mil"
)

var scalingCommand = Command{
	Name:  "scaling",
	Short: "the paper's Figure 3: multi-instance fit time vs number of bags and vs number of features, with log-log slopes",
	Flags: scalingFlags,
	// Three sizes per axis, one repetition, 30 iterations: well under
	// a second.
	TourArgs: []string{"-bags", "200,400,800", "-features", "10,20,40", "-fixed-bags", "200", "-fixed-features", "10",
		"-iters", "30", "-reps", "1"},
}

// ScalingResult is the scaling command's JSON "results".
type ScalingResult struct {
	// FixedFeatures is the number of features while the bags vary,
	// FixedBags the number of bags while the features vary.
	FixedFeatures int `json:"fixed_features"`
	FixedBags     int `json:"fixed_bags"`
	// MeanBagSize is the expected number of instances per bag.
	MeanBagSize float64 `json:"mean_bag_size"`
	Density     float64 `json:"density"`
	// Iters is the number of outer iterations of every fit (no early
	// stop), so times compare equal work per iteration.
	Iters int      `json:"iters"`
	Reps  int      `json:"reps"`
	Paths []string `json:"beta_paths"`
	// VsBags and VsFeatures hold one point per size and beta path.
	VsBags     []ScalingPoint `json:"vs_bags"`
	VsFeatures []ScalingPoint `json:"vs_features"`
	// Slopes are the least-squares slopes of log(median fit time) against
	// log(size), per axis and beta path (absent with fewer than two
	// sizes).
	Slopes []ScalingSlope `json:"slopes"`
}

// ScalingPoint is the fit time at one size.
type ScalingPoint struct {
	Path      string `json:"beta_path"`
	Bags      int    `json:"bags"`
	Features  int    `json:"features"`
	Instances int    `json:"instances"`
	// Seconds is the wall time per fit (setup included), SetupSeconds the
	// scaling and Gram part of it.
	Seconds      Stat `json:"seconds"`
	SetupSeconds Stat `json:"setup_seconds"`
	// InnerIters is the median number of FISTA steps per fit.
	InnerIters float64 `json:"inner_iters"`
}

// ScalingSlope is one fitted log-log slope.
type ScalingSlope struct {
	Sweep string  `json:"sweep"` // the size varied: "bags" or "features"
	Path  string  `json:"beta_path"`
	Slope float64 `json:"slope"`
}

// parseInts reads a comma-separated, increasing list of positive sizes.
func parseInts(s string) ([]int, error) {
	return parseIncreasing(s, "size", func(f string) (int, bool) {
		v, err := strconv.Atoi(f)
		return v, err == nil && v >= 1
	})
}

func scalingFlags(fs *FlagSet) RunFunc {
	bags := fs.String("bags", "500,1000,2000,4000,8000", "comma-separated, increasing numbers of `bags` to time (features fixed by -fixed-features)")
	features := fs.String("features", "25,50,100,200,400", "comma-separated, increasing numbers of `features` to time (bags fixed by -fixed-bags)")
	fixedBags := fs.Int("fixed-bags", 1000, "number of bags while the features vary")
	fixedFeatures := fs.Int("fixed-features", 50, "number of features while the bags vary")
	maxInst := fs.Int("max-instances", 9, "bag sizes are uniform in 1..`n`")
	density := fs.Float64("density", 1, "fraction of non-zero irrelevant features (below 0.15 the data is stored sparse)")
	iters := fs.Int("iters", 100, "outer iterations per fit (fixed: no early stop)")
	reps := fs.Int("reps", 3, "fits per point (the median is plotted)")
	paths := fs.String("beta", "gram,direct", "comma-separated beta-update `paths`: gram, direct, auto")
	var bs, fe []int
	var ps []mil.BetaSolver
	fs.Check(func() (err error) {
		if bs, err = parseInts(*bags); err != nil {
			return fmt.Errorf("-bags: %w", err)
		}
		if fe, err = parseInts(*features); err != nil {
			return fmt.Errorf("-features: %w", err)
		}
		switch {
		case len(bs) > 0 && bs[0] < 2:
			return fmt.Errorf("-bags: at least 2 bags")
		case len(bs) == 0 && len(fe) == 0:
			return fmt.Errorf("-bags and -features: both empty, nothing to run")
		case *fixedBags < 2:
			return fmt.Errorf("-fixed-bags %d: want >= 2", *fixedBags)
		case *fixedFeatures < 1:
			return fmt.Errorf("-fixed-features %d: want >= 1", *fixedFeatures)
		case *maxInst < 1:
			return fmt.Errorf("-max-instances %d: want >= 1", *maxInst)
		case *iters < 1:
			return fmt.Errorf("-iters %d: want >= 1", *iters)
		case *reps < 1:
			return fmt.Errorf("-reps %d: want >= 1", *reps)
		case !(*density > 0 && *density <= 1):
			return fmt.Errorf("-density %g: want 0 < density <= 1", *density)
		}
		if err := checkScalingSizes(bs, fe, *fixedBags, *fixedFeatures, *maxInst); err != nil {
			return err
		}
		for _, p := range splitList(*paths) {
			switch p {
			case "gram":
				ps = append(ps, mil.BetaGram)
			case "direct":
				ps = append(ps, mil.BetaDirect)
			case "auto":
				ps = append(ps, mil.BetaAuto)
			default:
				return fmt.Errorf("-beta: unknown path %q (want gram, direct or auto)", p)
			}
		}
		if len(ps) == 0 {
			return fmt.Errorf("-beta: no path")
		}
		return nil
	})
	return func(ctx context.Context, env *Env) error {
		res := &ScalingResult{FixedFeatures: *fixedFeatures, FixedBags: *fixedBags, MeanBagSize: float64(1+*maxInst) / 2,
			Density: *density, Iters: *iters, Reps: *reps}
		for _, p := range ps {
			res.Paths = append(res.Paths, p.String())
		}
		return runScaling(ctx, env, res, bs, fe, ps, *maxInst)
	}
}

// checkScalingSizes caps the synthetic data sets of the sweeps as
// mil.Synthetic does (drawn dense: bags x max instances x features values
// within mil.DefaultMaxDenseCells, features within mil.DefaultMaxFeatures),
// and the repeated fits.
func checkScalingSizes(bags, features []int, fixedBags, fixedFeatures, maxInst int) error {
	const what, capName = "bags x max instances x features", "mil.DefaultMaxDenseCells"
	if len(bags) > 0 {
		flags := fmt.Sprintf("-bags %d -max-instances %d -fixed-features %d", bags[len(bags)-1], maxInst, fixedFeatures)
		if err := capProduct(flags, what, capName, mil.DefaultMaxDenseCells, float64(bags[len(bags)-1]), float64(maxInst), float64(fixedFeatures)); err != nil {
			return err
		}
	}
	if len(features) > 0 {
		nf := features[len(features)-1]
		if nf > mil.DefaultMaxFeatures {
			return fmt.Errorf("-features %d: above mil.DefaultMaxFeatures = %d", nf, mil.DefaultMaxFeatures)
		}
		flags := fmt.Sprintf("-fixed-bags %d -max-instances %d -features %d", fixedBags, maxInst, nf)
		if err := capProduct(flags, what, capName, mil.DefaultMaxDenseCells, float64(fixedBags), float64(maxInst), float64(nf)); err != nil {
			return err
		}
	}
	return nil
}

// scalingAxis is one of the figure's two panels: the fit time as one size
// varies (name: "bags" or "features") with the other fixed.
type scalingAxis struct {
	name  string
	sizes []int
	cfg   func(n int) mil.SynthConfig
	pts   *[]ScalingPoint
}

func runScaling(ctx context.Context, env *Env, res *ScalingResult, bags, features []int, paths []mil.BetaSolver, maxInst int) error {
	env.Results(res)
	env.Note("Synthetic bags with a planted max rule (mil.Synthetic), 1 to %d instances per bag, density %g; every fit runs %d outer iterations "+
		"with the default options otherwise (no early stop, so each point does the same number of iterations); median of %d fits.",
		maxInst, res.Density, res.Iters, res.Reps)
	// The figure is recorded with its first panel and filled as axes
	// end, so an interrupted run still draws the sizes that finished.
	fig := &svgplot.Figure{Title: "neADMM multi-instance fit time (the paper's Figure 3)"}
	prog := env.Progress("fits", (len(bags)+len(features))*len(paths)*res.Reps)
	defer prog.Finish()
	opt := mil.DefaultOptions()
	opt.MaxIter, opt.EpsAbs, opt.EpsRel, opt.ObjTol = res.Iters, 0, 0, 0

	axes := []scalingAxis{
		{"bags", bags, func(n int) mil.SynthConfig {
			return mil.SynthConfig{Bags: n, Features: res.FixedFeatures, MinInstances: 1, MaxInstances: maxInst, Density: res.Density}
		}, &res.VsBags},
		{"features", features, func(n int) mil.SynthConfig {
			return mil.SynthConfig{Bags: res.FixedBags, Features: n, MinInstances: 1, MaxInstances: maxInst, Density: res.Density}
		}, &res.VsFeatures},
	}
	for _, ax := range axes {
		if len(ax.sizes) == 0 {
			continue
		}
		tab := &Table{Title: "fit time vs number of " + ax.name,
			Columns: []string{ax.name, "instances", "beta path", "fit time", "±", "setup", "FISTA steps", "time/size"}}
		series := make([]svgplot.Series, len(paths))
		for i, p := range paths {
			series[i] = svgplot.Series{Name: p.String()}
		}
		// An error or Ctrl-C ends the axis; the points it finished still
		// get their slopes, table rows and panel.
		runErr := runScalingAxis(ctx, env, ax, paths, opt, res.Reps, prog, tab, series)
		scalingSlopes(res, ax.name, paths, tab, series)
		if len(tab.Rows) > 0 {
			fig.Panels = append(fig.Panels, scalingPanel(ax.name, series))
			if len(fig.Panels) == 1 {
				env.Figure("time", fig)
			}
			env.Table(tab)
		}
		if runErr != nil {
			return runErr
		}
	}
	return nil
}

// runScalingAxis times reps fits per size of ax and beta path, adding a
// point to ax.pts, a row to tab and to series[i] for paths[i] each; it
// stops at the first error or at Ctrl-C.
func runScalingAxis(ctx context.Context, env *Env, ax scalingAxis, paths []mil.BetaSolver, opt mil.Options, reps int,
	prog *Progress, tab *Table, series []svgplot.Series) error {
	for _, n := range ax.sizes {
		cfg := ax.cfg(n)
		cfg.Seed = env.Seed
		d, _, err := mil.Synthetic(cfg)
		if err != nil {
			return err
		}
		for i, path := range paths {
			opt.Beta = path
			var secs, setup, inner []float64
			for range reps {
				if err := ctx.Err(); err != nil {
					return err
				}
				prog.Running(fmt.Sprintf("%s=%d %v", ax.name, n, path))
				m, err := mil.Fit(ctx, d, opt)
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return fmt.Errorf("%s=%d, %v: %w", ax.name, n, path, err)
				}
				r := m.Result()
				secs = append(secs, r.Time.Total.Seconds())
				setup = append(setup, r.Time.Setup.Seconds())
				inner = append(inner, float64(r.InnerIterations))
				prog.Done(1)
			}
			pt := ScalingPoint{Path: path.String(), Bags: cfg.Bags, Features: cfg.Features, Instances: d.NumInstances(),
				Seconds: Summarize(secs), SetupSeconds: Summarize(setup), InnerIters: Summarize(inner).Median}
			*ax.pts = append(*ax.pts, pt)
			series[i].X = append(series[i].X, float64(n))
			series[i].Y = append(series[i].Y, pt.Seconds.Median)
			series[i].Lo = append(series[i].Lo, pt.Seconds.Min)
			series[i].Hi = append(series[i].Hi, pt.Seconds.Max)
			tab.Add(strconv.Itoa(n), strconv.Itoa(pt.Instances), pt.Path, FmtNs(pt.Seconds.Median*1e9),
				fmt.Sprintf("%.0f%%", pt.Seconds.Spread()), FmtNs(pt.SetupSeconds.Median*1e9), FmtSig(pt.InnerIters, 3),
				FmtNs(pt.Seconds.Median*1e9/float64(n)))
		}
	}
	return nil
}

// scalingSlopes fits the log-log slope of each path's series over the
// named axis, recording it in res, in tab's note and in the series' name.
func scalingSlopes(res *ScalingResult, name string, paths []mil.BetaSolver, tab *Table, series []svgplot.Series) {
	var notes []string
	for i, p := range paths {
		if s, ok := logLogSlope(series[i].X, series[i].Y); ok {
			res.Slopes = append(res.Slopes, ScalingSlope{Sweep: name, Path: p.String(), Slope: s})
			notes = append(notes, fmt.Sprintf("%s %.2f", p, s))
			series[i].Name = fmt.Sprintf("%s (slope %.2f)", p, s)
		}
	}
	if len(notes) > 0 {
		tab.Note = "Fitted log-log slope of the median fit time against the number of " + name + ": " + strings.Join(notes, ", ") +
			" (1 = linear)."
	}
}

// scalingPanel is the figure's panel of the named axis: the series and a
// slope-1 guide, on log-log axes.
func scalingPanel(name string, series []svgplot.Series) svgplot.Plot {
	panel := svgplot.Plot{Title: "time vs " + name, Legend: svgplot.LegendTopLeft,
		X: svgplot.Axis{Label: "number of " + name, Scale: svgplot.Log10},
		Y: svgplot.Axis{Label: "fit time (s)", Scale: svgplot.Log10}}
	panel.Series = append(panel.Series, series...)
	if ref := slopeOneGuide(series); ref != nil {
		panel.Series = append(panel.Series, *ref)
	}
	return panel
}

// logLogSlope returns the least-squares slope of log y against log x, or
// ok = false with fewer than two points or a non-positive value.
func logLogSlope(x, y []float64) (slope float64, ok bool) {
	if len(x) < 2 || len(x) != len(y) {
		return 0, false
	}
	var sx, sy, sxx, sxy float64
	n := float64(len(x))
	for i := range x {
		if !(x[i] > 0 && y[i] > 0) {
			return 0, false
		}
		lx, ly := math.Log(x[i]), math.Log(y[i])
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, false
	}
	return (n*sxy - sx*sy) / den, true
}

// slopeOneGuide returns a dashed line of slope 1 through the first point of
// the first series, for reading the slopes off the figure.
func slopeOneGuide(series []svgplot.Series) *svgplot.Series {
	if len(series) == 0 || len(series[0].X) < 2 {
		return nil
	}
	s := series[0]
	x0, x1 := s.X[0], s.X[len(s.X)-1]
	return &svgplot.Series{Name: "slope 1", X: []float64{x0, x1}, Y: []float64{s.Y[0], s.Y[0] * x1 / x0},
		Dashed: true, Color: "#999999", Marker: svgplot.MarkerNone}
}
