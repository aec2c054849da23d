package mil

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// bestEnsemble scores the equal-weight ensemble of every 2 to size
// settings that ran on every fold (settings[i] is pair i/len(lams), lambda
// i%len(lams)) and returns the best by the criterion (ties to the earlier in lexicographic
// order of the members' indices, smaller ensembles first), nil if fewer
// than two settings ran on every fold. The weighted sum of the fits' bag
// scores is the ensemble's score, accumulated as Ensemble's model does, so
// no fit is needed. It checks ctx before each candidate and returns its
// error, wrapped.
func (cv *cvRun) bestEnsemble(ctx context.Context, settings []Setting, size int) (*EnsembleSetting, error) {
	nl := len(cv.lams)
	var full []int
	for i, st := range settings {
		if len(st.FoldAUC) == cv.nf && !cv.s.gated(st.Pooling) {
			full = append(full, i)
		}
	}
	var best *EnsembleSetting
	var mix []float64
	aucs := make([]float64, cv.nf)
	devs := make([]float64, cv.nf)
	size = min(size, len(full))
	idx := make([]int, 0, size)
	w8 := cv.s.Base.Weighting
	var err error
	score := func() {
		w := 1 / float64(len(idx))
		for f := range cv.nf {
			mix = slices.Grow(mix[:0], cv.tests[f].NumBags())[:cv.tests[f].NumBags()]
			clear(mix)
			for _, a := range idx {
				i := full[a]
				for k, v := range cv.scores[i/nl][f][i%nl] {
					mix[k] += w * v
				}
			}
			a, err := AUC(mix, cv.tests[f].Labels())
			if err != nil { // a NaN score: not a candidate
				return
			}
			aucs[f] = a
			devs[f] = deviance(mix, cv.tests[f].Labels(), w8)
		}
		m, sd, _ := meanStdAUC(aucs)
		dm, dsd, _ := meanStdAUC(devs)
		if best != nil && !(cv.s.score(m, dm) > cv.s.score(best.AUC, best.Deviance)) {
			return
		}
		mem := make([]int, len(idx))
		for j, a := range idx {
			mem[j] = full[a]
		}
		// The members by CV score, best first (stable: grid order on ties).
		sc := func(i int) float64 { return cv.s.score(settings[i].AUC, settings[i].Deviance) }
		slices.SortStableFunc(mem, func(a, b int) int { return cmp.Compare(sc(b), sc(a)) })
		best = &EnsembleSetting{Members: mem, AUC: m, AUCStd: sd, FoldAUC: slices.Clone(aucs),
			Deviance: dm, DevianceStd: dsd, FoldDeviance: slices.Clone(devs)}
	}
	for n := 2; n <= size && err == nil; n++ { // smaller ensembles first
		want := n
		var rec func(from int)
		rec = func(from int) {
			if len(idx) == want {
				if err = ctx.Err(); err == nil {
					score()
				}
				return
			}
			// Stop where too few settings are left to fill the ensemble.
			for a := from; a <= len(full)-(want-len(idx)) && err == nil; a++ {
				idx = append(idx, a)
				rec(a + 1)
				idx = idx[:len(idx)-1]
			}
		}
		rec(0)
	}
	if err != nil {
		return nil, fmt.Errorf("mil: FitCV: %w", err)
	}
	return best, nil
}
