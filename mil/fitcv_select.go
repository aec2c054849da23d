package mil

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Setting is one point of the search grid with its cross-validated score.
type Setting struct {
	Lambda  float64
	Pooling Pooling
	Scaling Scaling
	// AUC and AUCStd are the mean and sample standard deviation of the
	// test-fold AUC over the folds it ran (FoldAUC, in fold order), and
	// Deviance, DevianceStd and FoldDeviance those of the test-fold
	// deviance (see CriterionDeviance).
	AUC, AUCStd           float64
	FoldAUC               []float64
	Deviance, DevianceStd float64
	FoldDeviance          []float64
	// Score is its CV score under Search.Criterion, higher is better: AUC,
	// or -Deviance; ScoreSE its standard error, the sample standard
	// deviation of the criterion's fold values over the square root of
	// the number of folds of one repeat (Search.Folds, or the folds it ran
	// if fewer), since the repeats' folds reuse the same bags. The rules
	// that compare settings within standard errors use these.
	Score, ScoreSE float64
	// Rejected reports that it stopped after the screening folds.
	Rejected bool
	// Iterations is the total of its fits' outer iterations.
	Iterations int
}

// String describes the setting, e.g. "lambda=0.01 pooling=max scaling=auto".
func (s Setting) String() string {
	return fmt.Sprintf("lambda=%g pooling=%v scaling=%v", s.Lambda, s.Pooling, s.Scaling)
}

// Selection reports what FitCV tried and chose.
type Selection struct {
	// Best is the chosen setting and Options the options of the final fit
	// on all of the data (Search.Base with Best's lambda, pooling and
	// scaling).
	Best    Setting
	Options Options
	// Settings are every setting tried, in grid order (scalings, then
	// poolings, then lambdas from the largest).
	Settings []Setting
	// Ensemble is the best ensemble of Settings when Search.EnsembleSize
	// >= 2 (nil otherwise, or when fewer than two settings ran on every
	// fold), and Ensembled reports that FitCV returned it. Best and
	// Options are then those of its first member.
	Ensemble  *EnsembleSetting
	Ensembled bool
	// Folds is the number of folds; Fits the cross-validation fits run
	// (without the final one); Rejected the settings dropped early.
	Folds, Fits, Rejected int
	// CVTime is the wall time of the cross-validation, RefitTime that of
	// the final fit.
	CVTime, RefitTime time.Duration
}

// EnsembleSetting is a set of settings scored as the ensemble of their
// fits (see Search.EnsembleSize).
type EnsembleSetting struct {
	// Members are the settings' indices in Selection.Settings, by CV
	// score from the highest, and Options their final fits' options.
	Members []int
	Options []Options
	// AUC, AUCStd, FoldAUC, Deviance, DevianceStd and FoldDeviance are
	// as a Setting's.
	AUC, AUCStd           float64
	FoldAUC               []float64
	Deviance, DevianceStd float64
	FoldDeviance          []float64
}

// String formats the selection as a table of the settings with their
// scores (mean ± std over the folds, and the criterion's score with its
// standard error), the chosen one marked.
func (s Selection) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d-fold CV, %d fits, %d settings rejected early; chosen: %v (AUC %.4f ± %.4f, deviance %.4f ± %.4f)\n",
		s.Folds, s.Fits, s.Rejected, s.Best, s.Best.AUC, s.Best.AUCStd, s.Best.Deviance, s.Best.DevianceStd)
	for _, st := range s.Settings {
		mark := " "
		if st.Lambda == s.Best.Lambda && st.Pooling == s.Best.Pooling && st.Scaling == s.Best.Scaling {
			mark = "*"
		}
		rej := ""
		if st.Rejected {
			rej = " (rejected)"
		}
		fmt.Fprintf(&b, "%s %-44v AUC %.4f ± %.4f, deviance %.4f ± %.4f over %d folds; score %.4f, se %.4f%s\n",
			mark, st, st.AUC, st.AUCStd, st.Deviance, st.DevianceStd, len(st.FoldAUC), st.Score, st.ScoreSE, rej)
	}
	if e := s.Ensemble; e != nil {
		mark := " "
		if s.Ensembled {
			mark = "*"
		}
		names := make([]string, len(e.Members))
		for i, j := range e.Members {
			names[i] = s.Settings[j].String()
		}
		fmt.Fprintf(&b, "%s ensemble of %s: AUC %.4f ± %.4f, deviance %.4f ± %.4f over %d folds\n",
			mark, strings.Join(names, ", "), e.AUC, e.AUCStd, e.Deviance, e.DevianceStd, len(e.FoldAUC))
	}
	return b.String()
}

// deviance returns the weighted mean log-loss of bag scores q against
// 0/1 labels, sum_i w_i log(1 + exp(-s_i q_i)) / B with the fit's weights
// (Balanced: B/(2 B_c) for a bag of class c, over these B bags), or NaN
// when a weighted class is empty or a score is NaN.
func deviance(q, labels []float64, w Weighting) float64 {
	var sum [2]float64
	var n [2]int
	for i, y := range labels {
		c := 0
		if y == 1 {
			c = 1
		}
		sum[c] += logLoss((2*y - 1) * q[i])
		n[c]++
	}
	nb := float64(len(labels))
	if w == Balanced {
		if n[0] == 0 || n[1] == 0 {
			return math.NaN()
		}
		return sum[0]/(2*float64(n[0])) + sum[1]/(2*float64(n[1]))
	}
	return (sum[0] + sum[1]) / nb
}

// meanStdAUC returns the mean and sample std of the non-NaN values.
func meanStdAUC(x []float64) (mean, std float64, n int) {
	for _, v := range x {
		if v == v {
			mean += v
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0, 0
	}
	mean /= float64(n)
	if n > 1 {
		for _, v := range x {
			if v == v {
				std += (v - mean) * (v - mean)
			}
		}
		std = math.Sqrt(std / float64(n-1))
	}
	return mean, std, n
}

// foldAUCs returns the AUCs of (pair, lambda l) over the folds, in order.
func (cv *cvRun) foldAUCs(pair, l int) []float64 {
	return cv.foldValues(cv.auc, pair, l)
}

// foldValues returns v[pair][f][l] over the folds f that ran, in order.
func (cv *cvRun) foldValues(v [][][]float64, pair, l int) []float64 {
	var out []float64
	for f := range cv.nf {
		if a := cv.auc[pair][f][l]; a == a { // run
			out = append(out, v[pair][f][l])
		}
	}
	return out
}

// score returns a CV score under s.Criterion (higher is better) from the
// mean AUC and deviance.
func (s Search) score(auc, dev float64) float64 {
	if s.Criterion == CriterionDeviance {
		return -dev
	}
	return auc
}

// scoreSE returns the standard error of a setting's CV score (see
// Setting.ScoreSE).
func (s Search) scoreSE(st Setting) float64 {
	sd := st.AUCStd
	if s.Criterion == CriterionDeviance {
		sd = st.DevianceStd
	}
	return sd / math.Sqrt(float64(min(len(st.FoldAUC), s.Folds)))
}

// reject drops the pairs still alive whose best lambda trails the best
// pair by more than Reject over the first `folds` folds, and at the end of
// the first of several repeats those that rejectByScore drops. A pair
// held to FeatureMaxSE can be dropped but sets the best only when every
// pair is held to it, so that it cannot win by the others' rejection what
// its test would deny.
func (cv *cvRun) reject(folds int) {
	if folds >= cv.nf {
		return
	}
	best, bestGated := math.Inf(-1), math.Inf(-1)
	pairBest := make([]float64, len(cv.alive))
	for p, alive := range cv.alive {
		pairBest[p] = math.Inf(-1)
		if !alive { // dropped at an earlier stage, over fewer folds
			continue
		}
		for l := range cv.lams {
			m, _, _ := meanStdAUC(cv.foldAUCs(p, l))
			pairBest[p] = max(pairBest[p], m)
		}
		if cv.s.gated(cv.s.Poolings[cv.pairs[p][1]]) {
			bestGated = max(bestGated, pairBest[p])
		} else {
			best = max(best, pairBest[p])
		}
	}
	ungated := !math.IsInf(best, -1)
	if !ungated {
		best = bestGated
	}
	// The smaller class of a test fold (the folds are stratified: each
	// holds about 1/Folds of each class).
	pos := cv.d.Positives()
	m := float64(min(pos, cv.d.NumBags()-pos)) / float64(cv.s.Folds)
	se := math.Sqrt(max(best*(1-best), 0) / max(m, 1) / float64(folds))
	z := cv.s.RejectSE
	if z == 0 {
		z = 1
	}
	margin := max(cv.s.Reject, z*se)
	for p := range cv.alive {
		gated := cv.s.gated(cv.s.Poolings[cv.pairs[p][1]])
		// A gated pair must beat the others at the end by FeatureMaxSE
		// standard errors; one that trails them on the screening folds
		// is not run further (on vaccine and fox, where it never wins,
		// this saves most of its fits).
		if pairBest[p] < best-margin || gated && ungated && pairBest[p] < best {
			cv.alive[p] = false
		}
	}
	if folds == cv.s.Folds {
		cv.rejectByScore(z)
	}
}

// rejectByScore is reject's second test at the end of the first repeat of
// a repeated cross-validation: a pair whose best setting's CV score over
// the folds run trails the best setting's (among the pairs not held to
// FeatureMaxSE, if any) by more than z standard errors of their paired
// fold differences (see Search.pairedScoreSE) runs no further repeat.
func (cv *cvRun) rejectByScore(z float64) {
	type best struct {
		pair, lam int
		score     float64
	}
	scoreOf := func(p, l int) (float64, []float64) {
		v := cv.foldValues(cv.auc, p, l)
		if cv.s.Criterion == CriterionDeviance {
			v = cv.foldValues(cv.dev, p, l)
		}
		m, _, _ := meanStdAUC(v)
		return cv.s.score(m, m), v
	}
	pairBest := make([]best, len(cv.alive))
	top := best{pair: -1}
	for p, alive := range cv.alive {
		pairBest[p] = best{pair: -1}
		if !alive {
			continue
		}
		for l := range cv.lams {
			if sc, _ := scoreOf(p, l); pairBest[p].pair < 0 || sc > pairBest[p].score {
				pairBest[p] = best{p, l, sc}
			}
		}
		if gated := cv.s.gated(cv.s.Poolings[cv.pairs[p][1]]); !gated && (top.pair < 0 || pairBest[p].score > top.score) {
			top = pairBest[p]
		}
	}
	if top.pair < 0 {
		return // every pair left is held to FeatureMaxSE
	}
	_, tv := scoreOf(top.pair, top.lam)
	for p, b := range pairBest {
		if b.pair < 0 || p == top.pair {
			continue
		}
		_, v := scoreOf(p, b.lam)
		d := make([]float64, len(v))
		for f := range d {
			d[f] = v[f] - tv[f]
		}
		_, sd, n := meanStdAUC(d)
		if top.score-b.score > z*sd/math.Sqrt(float64(n)) {
			cv.alive[p] = false
		}
	}
}

// selection summarizes the run and picks the best setting. Its only error
// is ctx's, from the ensembles' search.
func (cv *cvRun) selection(ctx context.Context) (Selection, error) {
	s := cv.s
	sel := Selection{Folds: cv.nf, Fits: cv.fits}
	sel.Settings, sel.Rejected = cv.settings()
	bestIdx := s.chooseSetting(sel.Settings)
	anchor := s.anchorWins(sel.Settings)
	if anchor >= 0 {
		bestIdx = anchor
	}
	if s.EnsembleSize >= 2 {
		var err error
		if sel.Ensemble, err = cv.bestEnsemble(ctx, sel.Settings, s.EnsembleSize); err != nil {
			return sel, err
		}
		if e := sel.Ensemble; e != nil && anchor < 0 && s.ensembleWins(e, sel.Settings[bestIdx]) {
			sel.Ensembled = true
			bestIdx = e.Members[0]
		}
	}
	if chosen := sel.Settings[bestIdx]; anchor < 0 && !s.gated(chosen.Pooling) {
		if fm := s.bestSetting(sel.Settings, func(st Setting) bool { return s.gated(st.Pooling) }); fm >= 0 {
			c := s.settingScore(chosen)
			if sel.Ensembled {
				c = s.score(sel.Ensemble.AUC, sel.Ensemble.Deviance)
			}
			if st := sel.Settings[fm]; s.settingScore(st)-c > s.FeatureMaxSE*s.scoreSE(st) {
				bestIdx, sel.Ensembled = fm, false
			}
		}
	}
	sel.Best = sel.Settings[bestIdx]
	sel.Options = s.options(sel.Best)
	if e := sel.Ensemble; e != nil {
		for _, i := range e.Members {
			e.Options = append(e.Options, s.options(sel.Settings[i]))
		}
	}
	return sel, nil
}

// settings returns every setting of the grid with its fold values, in
// grid order, and how many were rejected.
func (cv *cvRun) settings() (settings []Setting, rejected int) {
	s := cv.s
	for p := range cv.alive {
		sc, pl := cv.pairs[p][0], cv.pairs[p][1]
		for l, lam := range cv.lams {
			iters := 0
			for f := range cv.nf {
				iters += cv.iters[p][f][l]
			}
			aucs, devs := cv.foldAUCs(p, l), cv.foldValues(cv.dev, p, l)
			m, sd, _ := meanStdAUC(aucs)
			dm, dsd, _ := meanStdAUC(devs)
			st := Setting{Lambda: lam, Pooling: s.Poolings[pl], Scaling: s.Scalings[sc], AUC: m, AUCStd: sd,
				FoldAUC: aucs, Deviance: dm, DevianceStd: dsd, FoldDeviance: devs,
				Rejected: !cv.alive[p], Iterations: iters}
			st.Score, st.ScoreSE = s.settingScore(st), s.scoreSE(st)
			if st.Rejected {
				rejected++
			}
			settings = append(settings, st)
		}
	}
	return settings, rejected
}

// settingScore is st's CV score under s.Criterion (higher is better).
func (s Search) settingScore(st Setting) float64 { return s.score(st.AUC, st.Deviance) }

// bestSetting returns the index of the setting of the best CV score among
// those that ran to the end and that keep admits (the first on ties), -1
// if none.
func (s Search) bestSetting(settings []Setting, keep func(Setting) bool) int {
	b := -1
	for i, st := range settings {
		if !st.Rejected && keep(st) && (b < 0 || s.settingScore(st) > s.settingScore(settings[b])) {
			b = i
		}
	}
	return b
}

// chooseSetting returns the index of the chosen setting before the
// ensembles and FeatureMaxSE's test: the best CV score among the settings
// not held to FeatureMaxSE (among all when every setting that ran is),
// then PreferMean's and PreferBase's rules.
func (s Search) chooseSetting(settings []Setting) int {
	bestIdx := s.bestSetting(settings, func(st Setting) bool { return !s.gated(st.Pooling) })
	if bestIdx < 0 { // every setting that ran is gated
		bestIdx = s.bestSetting(settings, func(Setting) bool { return true })
	}
	if best := settings[bestIdx]; s.PreferMean > 0 && best.Pooling.Kind != PoolMean && !s.gated(best.Pooling) {
		bm := s.bestSetting(settings, func(st Setting) bool { return st.Pooling.Kind == PoolMean })
		if bm >= 0 && s.settingScore(best)-s.settingScore(settings[bm]) <= s.PreferMean*s.scoreSE(best) {
			bestIdx = bm
		}
	}
	if best := settings[bestIdx]; s.PreferBase && best.Pooling == s.Base.Pooling {
		// Within the best setting's (scaling, pooling) pair only: the
		// pooling and scaling are chosen by the plain maximum.
		se := s.scoreSE(best)
		for i, st := range settings {
			if st.Lambda == s.Base.Lambda && st.Pooling == best.Pooling &&
				st.Scaling == best.Scaling && s.settingScore(best)-s.settingScore(st) <= se {
				bestIdx = i
				break
			}
		}
	}
	return bestIdx
}

// anchorWins returns the index of the setting of the first of s.Anchors
// that the anchor rule chooses (see Search.AnchorSE), else -1: it ran on
// every fold, and the best setting not held to FeatureMaxSE beats its CV
// score by at most AnchorSE standard errors of their paired fold
// differences.
func (s Search) anchorWins(settings []Setting) int {
	if s.AnchorSE == 0 {
		return -1
	}
	best := s.bestSetting(settings, func(st Setting) bool { return !s.gated(st.Pooling) })
	if best < 0 {
		return -1
	}
	for _, an := range s.Anchors {
		for i, st := range settings {
			if st.Lambda != an.Lambda || st.Pooling != an.Pooling || st.Scaling != an.Scaling || st.Rejected {
				continue
			}
			if s.settingScore(settings[best])-s.settingScore(st) <= s.AnchorSE*s.pairedScoreSE(settings[best], st) {
				return i
			}
			break
		}
	}
	return -1
}

// pairedScoreSE returns the standard error of the difference of two
// settings' CV scores from their paired fold values under s.Criterion:
// the sample std of the fold differences over the square root of the
// folds of one repeat (see Setting.ScoreSE).
func (s Search) pairedScoreSE(a, b Setting) float64 {
	fa, fb := a.FoldAUC, b.FoldAUC
	if s.Criterion == CriterionDeviance {
		fa, fb = a.FoldDeviance, b.FoldDeviance
	}
	if len(fa) < 2 || len(fa) != len(fb) {
		return 0
	}
	d := make([]float64, len(fa))
	for f := range d {
		d[f] = fa[f] - fb[f]
	}
	_, sd, n := meanStdAUC(d)
	return sd / math.Sqrt(float64(min(n, s.Folds)))
}

// ensembleWins reports whether ensemble e replaces the chosen setting
// best: a better CV score, and a CV AUC above best's by more than
// EnsembleMargin and by more than EnsembleSE standard errors of their
// paired fold differences.
func (s Search) ensembleWins(e *EnsembleSetting, best Setting) bool {
	// Under CriterionAUC the first condition follows from the second.
	return s.score(e.AUC, e.Deviance) > s.settingScore(best) &&
		e.AUC > best.AUC+s.EnsembleMargin && e.AUC-best.AUC > s.EnsembleSE*pairedSE(e.FoldAUC, best.FoldAUC)
}

// gated reports whether settings with pooling p are held to FeatureMaxSE.
func (s Search) gated(p Pooling) bool {
	return s.FeatureMaxSE > 0 && p.Kind == PoolFeatureMax
}

// pairedSE returns the standard error of the mean of a[f]-b[f]
// (meanStdAUC's std over sqrt(folds)), 0 for one fold.
func pairedSE(a, b []float64) float64 {
	if len(a) < 2 {
		return 0
	}
	d := make([]float64, len(a))
	for f := range d {
		d[f] = a[f] - b[f]
	}
	_, sd, n := meanStdAUC(d)
	return sd / math.Sqrt(float64(n))
}

// options returns Base with st's lambda, pooling and scaling, and no
// Callback (see Search.Base).
func (s Search) options(st Setting) Options {
	o := s.Base
	o.Lambda, o.Pooling, o.Scaling = st.Lambda, st.Pooling, st.Scaling
	o.Callback = nil
	return o
}
