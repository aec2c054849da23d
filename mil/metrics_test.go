package mil

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// tol is a few roundings of numbers of order one: the metrics below are
// sums of at most a dozen exact ratios.
const tol = 1e-15

func TestMetricsHandWorked(t *testing.T) {
	scores := []float64{0.9, 0.8, 0.7, 0.6, 0.55, 0.5}
	labels := []float64{1, 0, 1, 1, 0, 0}
	// Pairs (pos > neg): 0.9 beats 3, 0.7 beats 2, 0.6 beats 2: 7 of 9.
	if auc, err := AUC(scores, labels); err != nil || !near(auc, 7.0/9, tol) {
		t.Errorf("AUC = %v, %v; want 7/9", auc, err)
	}
	// Precision at each positive: 1, 2/3, 3/4, each weighing 1/3.
	if ap, err := AveragePrecision(scores, labels); err != nil || !near(ap, 29.0/36, tol) {
		t.Errorf("AP = %v, %v; want 29/36", ap, err)
	}
	// PR points (1/3,1) (1/3,1/2) (2/3,2/3) (1,3/4) (1,3/5) (1,1/2):
	// trapezoids 0 + 1/3*(1/2+2/3)/2 + 1/3*(2/3+3/4)/2 = 31/72.
	if a, err := PRAUCTrapezoid(scores, labels); err != nil || !near(a, 31.0/72, tol) {
		t.Errorf("trapezoid = %v, %v; want 31/72", a, err)
	}
	c, err := ConfusionAt(scores, labels, 0.6) // 0.6 counts as positive
	if err != nil || c != (Confusion{TP: 3, FP: 1, TN: 2, FN: 0}) {
		t.Fatalf("confusion %+v, %v", c, err)
	}
	if !near(c.Accuracy(), 5.0/6, tol) || !near(c.Precision(), 0.75, tol) || c.Recall() != 1 || !near(c.F1(), 6.0/7, tol) {
		t.Errorf("acc %v prec %v rec %v f1 %v", c.Accuracy(), c.Precision(), c.Recall(), c.F1())
	}
	// At 0.75 a positive is missed (FN > 0, which F1's denominator
	// counts): TP 1, FP 1, TN 2, FN 2; precision 1/2, recall 1/3, F1 =
	// 2TP/(2TP+FP+FN) = 2/5.
	c, err = ConfusionAt(scores, labels, 0.75)
	if err != nil || c != (Confusion{TP: 1, FP: 1, TN: 2, FN: 2}) {
		t.Fatalf("confusion at 0.75 %+v, %v", c, err)
	}
	if !near(c.Accuracy(), 0.5, tol) || !near(c.Precision(), 0.5, tol) || !near(c.Recall(), 1.0/3, tol) || !near(c.F1(), 0.4, tol) {
		t.Errorf("at 0.75: acc %v prec %v rec %v f1 %v", c.Accuracy(), c.Precision(), c.Recall(), c.F1())
	}
	// A negative scoring exactly the threshold is predicted positive too
	// (a false positive, not a true negative): at 0.55, TP 3, FP 2.
	c, err = ConfusionAt(scores, labels, 0.55)
	if err != nil || c != (Confusion{TP: 3, FP: 2, TN: 1, FN: 0}) {
		t.Fatalf("confusion at 0.55 %+v, %v", c, err)
	}
	roc, err := ROC(scores, labels)
	want := []ROCPoint{{0, 0, math.Inf(1)}, {0, 1. / 3, .9}, {1. / 3, 1. / 3, .8}, {1. / 3, 2. / 3, .7}, {1. / 3, 1, .6}, {2. / 3, 1, .55}, {1, 1, .5}}
	if err != nil || len(roc) != len(want) {
		t.Fatalf("ROC %v, %v", roc, err)
	}
	for i := range want {
		if !near(roc[i].FPR, want[i].FPR, tol) || !near(roc[i].TPR, want[i].TPR, tol) || roc[i].Threshold != want[i].Threshold {
			t.Errorf("ROC[%d] = %+v, want %+v", i, roc[i], want[i])
		}
	}
	pr, err := PR(scores, labels)
	wantPR := []PRPoint{{1. / 3, 1, .9}, {1. / 3, .5, .8}, {2. / 3, 2. / 3, .7}, {1, .75, .6}, {1, .6, .55}, {1, .5, .5}}
	if err != nil || len(pr) != len(wantPR) {
		t.Fatalf("PR %v, %v", pr, err)
	}
	for i := range wantPR {
		if !near(pr[i].Recall, wantPR[i].Recall, tol) || !near(pr[i].Precision, wantPR[i].Precision, tol) || pr[i].Threshold != wantPR[i].Threshold {
			t.Errorf("PR[%d] = %+v, want %+v", i, pr[i], wantPR[i])
		}
	}
	m, err := Evaluate(scores, labels, 0.6)
	if err != nil || !near(m.AUC, 7.0/9, tol) || !near(m.AUPR, 29.0/36, tol) || !near(m.AUPRTrapz, 31.0/72, tol) ||
		!near(m.Accuracy, 5.0/6, tol) || m.Precision != 0.75 || m.Recall != 1 || !near(m.F1, 6.0/7, tol) {
		t.Errorf("Evaluate = %+v, %v", m, err)
	}
}

func TestMetricsTies(t *testing.T) {
	// The tied pair (1, 1) counts half: (2 + 0.5 + 1) / 4.
	scores, labels := []float64{2, 1, 1, 0}, []float64{1, 1, 0, 0}
	if auc, _ := AUC(scores, labels); auc != 0.875 {
		t.Errorf("AUC = %v, want 0.875", auc)
	}
	// Thresholds 2: P=1, R=1/2; 1 (one group of a positive and a negative):
	// P=2/3, R=1.
	if ap, _ := AveragePrecision(scores, labels); !near(ap, 0.5+0.5*2.0/3, tol) {
		t.Errorf("AP = %v, want 5/6", ap)
	}
	if a, _ := PRAUCTrapezoid(scores, labels); !near(a, 0.5*(1+2.0/3)/2, tol) {
		t.Errorf("trapezoid = %v, want 5/12", a)
	}
	// All scores equal: AUC 1/2, AP the positive fraction, one PR point.
	eq, lab := []float64{3, 3, 3, 3, 3}, []float64{1, 0, 0, 1, 0}
	auc, err1 := AUC(eq, lab)
	ap, err2 := AveragePrecision(eq, lab)
	tr, err3 := PRAUCTrapezoid(eq, lab)
	if auc != 0.5 || ap != 0.4 || tr != 0 || err1 != nil || err2 != nil || err3 != nil {
		t.Errorf("all equal: AUC %v AP %v trapz %v (%v %v %v)", auc, ap, tr, err1, err2, err3)
	}
	// ±Inf scores are ordinary values.
	if auc, err := AUC([]float64{math.Inf(-1), math.Inf(1), 0}, []float64{0, 1, 1}); auc != 1 || err != nil {
		t.Errorf("Inf scores: AUC %v, %v", auc, err)
	}
}

// TestMetricsMatchPerfcurve reproduces two values MATLAB's perfcurve
// printed for a 1000-sample example (10 positives first) posted on Cross
// Validated ("outlier detection: area under precision recall curve",
// question 215751): score2 puts one positive on top and ties the rest at 0,
// score1 puts one negative on top. perfcurve gave AUC 0.55 and AUPR 0.4545
// for score2, AUPR 0.005 for score1.
func TestMetricsMatchPerfcurve(t *testing.T) {
	labels := make([]float64, 1000)
	for i := range 10 {
		labels[i] = 1
	}
	score1, score2 := make([]float64, 1000), make([]float64, 1000)
	score1[999], score2[0] = 1, 1
	if auc, _ := AUC(score2, labels); !near(auc, 0.55, 1e-15) {
		t.Errorf("AUC(score2) = %v, want 0.55", auc)
	}
	if a, _ := PRAUCTrapezoid(score2, labels); !near(a, 0.4545, 5e-5) {
		t.Errorf("trapezoid(score2) = %v, want 0.4545", a)
	}
	if a, _ := PRAUCTrapezoid(score1, labels); !near(a, 0.005, 1e-15) {
		t.Errorf("trapezoid(score1) = %v, want 0.005", a)
	}
}

// TestMetricsBruteForce compares AUC with the O(n^2) pairwise count and
// average precision with its definition (mean over positives of the
// precision at that positive's score) on random data with many ties.
func TestMetricsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 300 {
		n := 2 + rng.IntN(60)
		levels := 1 + rng.IntN(8) // few distinct scores: many ties
		scores, labels := make([]float64, n), make([]float64, n)
		for i := range n {
			scores[i] = float64(rng.IntN(levels)) * 0.37
			labels[i] = float64(rng.IntN(2))
		}
		labels[0], labels[1] = 0, 1
		twice, pos, neg := 0, 0, 0
		for i := range n {
			if labels[i] == 1 {
				pos++
			} else {
				neg++
			}
			for j := range n {
				if labels[i] == 1 && labels[j] == 0 {
					switch {
					case scores[i] > scores[j]:
						twice += 2
					case scores[i] == scores[j]:
						twice++
					}
				}
			}
		}
		want := float64(twice) / (2 * float64(pos) * float64(neg))
		got, err := AUC(scores, labels)
		if err != nil || got != want { // both are one exact count over one product
			t.Fatalf("trial %d: AUC %v, brute force %v (%v)", trial, got, want, err)
		}
		apWant := 0.0
		for i := range n {
			if labels[i] != 1 {
				continue
			}
			tp, all := 0, 0
			for j := range n {
				if scores[j] >= scores[i] {
					all++
					tp += int(labels[j])
				}
			}
			apWant += float64(tp) / float64(all) / float64(pos)
		}
		ap, err := AveragePrecision(scores, labels)
		// n terms of size <= 1, summed in different orders: n*eps.
		if err != nil || !near(ap, apWant, float64(n)*0x1p-52) {
			t.Fatalf("trial %d: AP %v, definition %v", trial, ap, apWant)
		}
		// The trapezoid under the ROC points is the AUC.
		roc, _ := ROC(scores, labels)
		area := 0.0
		for k := 1; k < len(roc); k++ {
			area += (roc[k].FPR - roc[k-1].FPR) * (roc[k].TPR + roc[k-1].TPR) / 2
		}
		if !near(area, got, float64(n)*0x1p-52) {
			t.Fatalf("trial %d: ROC trapezoid %v, AUC %v", trial, area, got)
		}
		if last := roc[len(roc)-1]; last.FPR != 1 || last.TPR != 1 {
			t.Fatalf("trial %d: ROC ends at %+v", trial, last)
		}
		// Thresholds strictly decrease along both curves.
		pr, _ := PR(scores, labels)
		for k := 1; k < len(pr); k++ {
			if !(pr[k].Threshold < pr[k-1].Threshold) || pr[k].Recall < pr[k-1].Recall {
				t.Fatalf("trial %d: PR not ordered at %d: %+v", trial, k, pr)
			}
		}
	}
}

func TestMetricsDegenerate(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name           string
		scores, labels []float64
		want           error
	}{
		{"empty", nil, nil, ErrEmpty},
		{"length mismatch", []float64{1, 2}, []float64{1}, ErrLengthMismatch},
		{"NaN score", []float64{1, nan}, []float64{1, 0}, ErrNaNScore},
		{"label 2", []float64{1, 2}, []float64{2, 0}, ErrBadLabel},
		{"label -1", []float64{1, 2}, []float64{-1, 1}, ErrBadLabel},
		{"NaN label", []float64{1, 2}, []float64{nan, 1}, ErrBadLabel},
	} {
		for name, f := range map[string]func() (float64, error){
			"AUC":            func() (float64, error) { return AUC(c.scores, c.labels) },
			"AP":             func() (float64, error) { return AveragePrecision(c.scores, c.labels) },
			"PRAUCTrapezoid": func() (float64, error) { return PRAUCTrapezoid(c.scores, c.labels) },
			"Evaluate":       func() (float64, error) { m, err := Evaluate(c.scores, c.labels, 0); return m.AUC, err },
		} {
			if v, err := f(); !errors.Is(err, c.want) || !math.IsNaN(v) {
				t.Errorf("%s %s: got %v, %v; want NaN, %v", c.name, name, v, err, c.want)
			}
		}
		if _, err := ConfusionAt(c.scores, c.labels, 0); !errors.Is(err, c.want) {
			t.Errorf("%s ConfusionAt: got %v", c.name, err)
		}
		if r, err := ROC(c.scores, c.labels); r != nil || !errors.Is(err, c.want) {
			t.Errorf("%s ROC: got %v", c.name, err)
		}
		if r, err := PR(c.scores, c.labels); r != nil || !errors.Is(err, c.want) {
			t.Errorf("%s PR: got %v", c.name, err)
		}
	}
	if _, err := ConfusionAt([]float64{1}, []float64{1}, nan); err == nil {
		t.Error("NaN threshold accepted")
	}

	// One class only.
	s := []float64{0.1, 0.5, 0.3}
	pos, neg := []float64{1, 1, 1}, []float64{0, 0, 0}
	if v, err := AUC(s, pos); !math.IsNaN(v) || !errors.Is(err, ErrOneClass) {
		t.Errorf("AUC all positive: %v, %v", v, err)
	}
	if r, err := ROC(s, neg); r != nil || !errors.Is(err, ErrOneClass) {
		t.Errorf("ROC all negative: %v", err)
	}
	if v, err := AveragePrecision(s, pos); v != 1 || err != nil {
		t.Errorf("AP all positive: %v, %v; want 1", v, err)
	}
	for name, f := range map[string]func() (float64, error){
		"AP":    func() (float64, error) { return AveragePrecision(s, neg) },
		"trapz": func() (float64, error) { return PRAUCTrapezoid(s, neg) },
	} {
		if v, err := f(); !math.IsNaN(v) || !errors.Is(err, ErrOneClass) {
			t.Errorf("%s all negative: %v, %v", name, v, err)
		}
	}
	if r, err := PR(s, neg); r != nil || !errors.Is(err, ErrOneClass) {
		t.Errorf("PR all negative: %v", err)
	}
	m, err := Evaluate(s, pos, 0.2)
	if !errors.Is(err, ErrOneClass) || !near(m.Accuracy, 2.0/3, tol) || m.Recall != 2.0/3 || !math.IsNaN(m.AUC) {
		t.Errorf("Evaluate one class: %+v, %v", m, err)
	}

	// Zero denominators of the threshold metrics.
	c, _ := ConfusionAt([]float64{0.1, 0.2}, []float64{1, 0}, 1) // nothing predicted positive
	if c.Precision() != 0 || c.Recall() != 0 || c.F1() != 0 || c.Accuracy() != 0.5 {
		t.Errorf("nothing predicted positive: %+v -> %v %v %v", c, c.Precision(), c.Recall(), c.F1())
	}
	c, _ = ConfusionAt([]float64{0.1, 0.2}, []float64{0, 0}, 1) // no positives at all
	if c.Precision() != 0 || c.Recall() != 0 || c.F1() != 0 || c.Accuracy() != 1 {
		t.Errorf("no positives: %+v", c)
	}
	if a := (Confusion{}).Accuracy(); !math.IsNaN(a) {
		t.Errorf("empty confusion accuracy %v, want NaN", a)
	}
}
