package mil

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Metric errors. Functions returning one return NaN (or nil curves) with it.
var (
	ErrEmpty          = errors.New("mil: no scores")
	ErrLengthMismatch = errors.New("mil: len(scores) != len(labels)")
	ErrNaNScore       = errors.New("mil: NaN score")
	ErrBadLabel       = errors.New("mil: label not 0 or 1")
	ErrOneClass       = errors.New("mil: metric undefined: labels hold one class only")
)

// checkScores validates scores and 0/1 labels and counts the classes.
func checkScores(scores, labels []float64) (pos, neg int, err error) {
	if labels == nil && len(scores) > 0 {
		return 0, 0, noLabelsError(len(scores))
	}
	if len(scores) != len(labels) {
		return 0, 0, fmt.Errorf("%w (%d != %d)", ErrLengthMismatch, len(scores), len(labels))
	}
	if len(scores) == 0 {
		return 0, 0, ErrEmpty
	}
	for i, s := range scores {
		if math.IsNaN(s) {
			return 0, 0, fmt.Errorf("%w at index %d", ErrNaNScore, i)
		}
		switch labels[i] {
		case 1:
			pos++
		case 0:
			neg++
		default:
			return 0, 0, fmt.Errorf("%w: labels[%d] = %v", ErrBadLabel, i, labels[i])
		}
	}
	return pos, neg, nil
}

// Confusion is a confusion matrix: counts of true/false positives and
// negatives for predictions "positive iff score >= threshold".
type Confusion struct {
	TP, FP, TN, FN int
}

// ConfusionAt counts predictions against labels (0 or 1), predicting
// positive iff score >= threshold (the paper's code: bag score >= 0; the
// same convention as the ROC and PR curve points). ±Inf scores and
// thresholds are ordinary values. It returns an error for empty input, a
// length mismatch, a NaN score or threshold, or a label other than 0 or 1.
func ConfusionAt(scores, labels []float64, threshold float64) (Confusion, error) {
	if math.IsNaN(threshold) {
		return Confusion{}, badInput("ConfusionAt: NaN threshold")
	}
	if _, _, err := checkScores(scores, labels); err != nil {
		return Confusion{}, err
	}
	var c Confusion
	for i, s := range scores {
		switch {
		case s >= threshold && labels[i] == 1:
			c.TP++
		case s >= threshold:
			c.FP++
		case labels[i] == 1:
			c.FN++
		default:
			c.TN++
		}
	}
	return c, nil
}

// Accuracy returns (TP+TN)/(TP+FP+TN+FN), or NaN for an all-zero matrix.
func (c Confusion) Accuracy() float64 {
	return float64(c.TP+c.TN) / float64(c.TP+c.FP+c.TN+c.FN)
}

// Precision returns TP/(TP+FP), or 0 when nothing is predicted positive
// (scikit-learn's zero_division=0; the paper's MATLAB code gave NaN).
func (c Confusion) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall returns TP/(TP+FN), or 0 when there are no positives.
func (c Confusion) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 returns the harmonic mean of precision and recall, 2TP/(2TP+FP+FN), or
// 0 when TP+FP+FN == 0.
func (c Confusion) F1() float64 { return ratio(2*c.TP, 2*c.TP+c.FP+c.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// tieGroup is a run of equal scores: how many positives and negatives.
type tieGroup struct {
	score    float64
	pos, neg int
}

// rank sorts the scores in decreasing order and groups ties. It has
// checked the input; pos and neg are the class totals.
func rank(scores, labels []float64) (groups []tieGroup, pos, neg int, err error) {
	pos, neg, err = checkScores(scores, labels)
	if err != nil {
		return nil, 0, 0, err
	}
	type pair struct {
		s float64
		y bool
	}
	ps := make([]pair, len(scores))
	for i, s := range scores {
		ps[i] = pair{s, labels[i] == 1}
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(b.s, a.s) })
	for _, p := range ps {
		if n := len(groups); n == 0 || groups[n-1].score != p.s {
			groups = append(groups, tieGroup{score: p.s})
		}
		g := &groups[len(groups)-1]
		if p.y {
			g.pos++
		} else {
			g.neg++
		}
	}
	return groups, pos, neg, nil
}

// AUC returns the area under the ROC curve: the probability that a random
// positive scores above a random negative, ties counting half (the
// Mann-Whitney rank statistic, exact in integer arithmetic up to the final
// division). It equals the trapezoid area under the points of ROC.
//
// Special cases:
//
//	AUC = 0.5 if all scores are equal (and both classes are present)
//	AUC = NaN, ErrOneClass if labels hold only one class
//	AUC = NaN, error for empty input, length mismatch, a NaN score or a bad label
func AUC(scores, labels []float64) (float64, error) {
	groups, pos, neg, err := rank(scores, labels)
	if err != nil {
		return math.NaN(), err
	}
	return aucGroups(groups, pos, neg)
}

func aucGroups(groups []tieGroup, pos, neg int) (float64, error) {
	if pos == 0 || neg == 0 {
		return math.NaN(), ErrOneClass
	}
	// Twice the number of (positive, negative) pairs ordered correctly,
	// ties counting one; negBelow counts negatives under the current group.
	var twice int64
	negBelow := int64(neg)
	for _, g := range groups {
		negBelow -= int64(g.neg)
		twice += int64(g.pos) * (2*negBelow + int64(g.neg))
	}
	return float64(twice) / (2 * float64(pos) * float64(neg)), nil
}

// AveragePrecision returns the area under the precision-recall curve as
// scikit-learn's average_precision_score defines it: sum over thresholds
// (each distinct score, decreasing) of (R_k - R_{k-1}) P_k with R_0 = 0, a
// step function that never interpolates optimistically. Tied scores form
// one threshold. This is the AUPR the Report uses (Metrics.AUPR).
//
// Special cases:
//
//	AveragePrecision = 1 if labels hold only positives
//	AveragePrecision = positive fraction if all scores are equal
//	AveragePrecision = NaN, ErrOneClass if labels hold no positive
//	AveragePrecision = NaN, error for empty input, length mismatch, a NaN score or a bad label
func AveragePrecision(scores, labels []float64) (float64, error) {
	groups, pos, _, err := rank(scores, labels)
	if err != nil {
		return math.NaN(), err
	}
	return apGroups(groups, pos)
}

func apGroups(groups []tieGroup, pos int) (float64, error) {
	if pos == 0 {
		return math.NaN(), ErrOneClass
	}
	ap := 0.0
	tp, fp := 0, 0
	for _, g := range groups {
		tp += g.pos
		fp += g.neg
		if g.pos > 0 {
			// Summing g.pos*precision and dividing once keeps AP <= 1:
			// each term is at most the integer g.pos and rounding is
			// monotone, so the sum never exceeds pos.
			ap += float64(g.pos) * float64(tp) / float64(tp+fp)
		}
	}
	return ap / float64(pos), nil
}

// PRAUCTrapezoid returns the area under the precision-recall curve by the
// trapezoid rule over the points of PR (one per distinct score), with no
// point at recall 0: the definition of MATLAB's
// perfcurve(labels, scores, 1, 'xCrit', 'reca', 'yCrit', 'prec'), which
// produced the AUPR of the paper's Table 1. Linear interpolation between PR
// points is optimistic and the area left of the first point is dropped, so it
// differs from AveragePrecision; it is reported beside it (Metrics.AUPRTrapz)
// for comparison with the paper.
//
// Special cases:
//
//	PRAUCTrapezoid = 0 if all scores are equal (a single point)
//	PRAUCTrapezoid = NaN, ErrOneClass if labels hold no positive
//	PRAUCTrapezoid = NaN, error for empty input, length mismatch, a NaN score or a bad label
func PRAUCTrapezoid(scores, labels []float64) (float64, error) {
	groups, pos, _, err := rank(scores, labels)
	if err != nil {
		return math.NaN(), err
	}
	return trapzGroups(groups, pos)
}

func trapzGroups(groups []tieGroup, pos int) (float64, error) {
	if pos == 0 {
		return math.NaN(), ErrOneClass
	}
	area := 0.0
	tp, fp := 0, 0
	var r0, p0 float64
	for k, g := range groups {
		tp += g.pos
		fp += g.neg
		r, p := float64(tp)/float64(pos), float64(tp)/float64(tp+fp)
		if k > 0 {
			area += (r - r0) * (p + p0) / 2
		}
		r0, p0 = r, p
	}
	return area, nil
}

// ROCPoint is one point of a ROC curve: the false and true positive rates
// when predicting positive iff score >= Threshold.
type ROCPoint struct {
	FPR, TPR, Threshold float64
}

// ROC returns the ROC curve for plotting: (0, 0) at threshold +Inf, then
// one point per distinct score in decreasing order, ending at (1, 1). The
// trapezoid area under it equals AUC. It returns nil and ErrOneClass if
// labels hold one class only, and nil and an error for empty input, length
// mismatch, a NaN score or a bad label.
func ROC(scores, labels []float64) ([]ROCPoint, error) {
	groups, pos, neg, err := rank(scores, labels)
	if err != nil {
		return nil, err
	}
	return rocGroups(groups, pos, neg)
}

func rocGroups(groups []tieGroup, pos, neg int) ([]ROCPoint, error) {
	if pos == 0 || neg == 0 {
		return nil, ErrOneClass
	}
	pts := make([]ROCPoint, 0, len(groups)+1)
	pts = append(pts, ROCPoint{0, 0, math.Inf(1)})
	tp, fp := 0, 0
	for _, g := range groups {
		tp += g.pos
		fp += g.neg
		pts = append(pts, ROCPoint{float64(fp) / float64(neg), float64(tp) / float64(pos), g.score})
	}
	return pts, nil
}

// PRPoint is one point of a precision-recall curve when predicting
// positive iff score >= Threshold.
type PRPoint struct {
	Recall, Precision, Threshold float64
}

// PR returns the precision-recall curve for plotting: one point per
// distinct score in decreasing order (recall non-decreasing, ending at 1).
// It adds no point at recall 0 (scikit-learn appends (0, 1); MATLAB's
// perfcurve has precision NaN there). It returns nil and ErrOneClass if
// labels hold no positive, and nil and an error for empty input, length
// mismatch, a NaN score or a bad label.
func PR(scores, labels []float64) ([]PRPoint, error) {
	groups, pos, _, err := rank(scores, labels)
	if err != nil {
		return nil, err
	}
	return prGroups(groups, pos)
}

func prGroups(groups []tieGroup, pos int) ([]PRPoint, error) {
	if pos == 0 {
		return nil, ErrOneClass
	}
	pts := make([]PRPoint, 0, len(groups))
	tp, fp := 0, 0
	for _, g := range groups {
		tp += g.pos
		fp += g.neg
		pts = append(pts, PRPoint{float64(tp) / float64(pos), float64(tp) / float64(tp+fp), g.score})
	}
	return pts, nil
}

// Metrics holds the bag-level metrics of the paper's Table 1 (ACC, PR, RE,
// FS, AUC, AUPR) plus the trapezoid PR area. AUPR is average precision
// (AveragePrecision); the paper's MATLAB code reported the trapezoid
// (PRAUCTrapezoid, here AUPRTrapz), so compare Table 1's AUPR with AUPRTrapz.
type Metrics struct {
	Accuracy, Precision, Recall, F1 float64 // at the threshold
	AUC                             float64 // ROC AUC
	AUPR                            float64 // average precision
	AUPRTrapz                       float64 // trapezoid PR area (MATLAB perfcurve)
}

// Evaluate computes all Metrics of scores against labels (0 or 1),
// predicting positive iff score >= threshold, with one sort. It returns an
// error for empty input, a length mismatch, a NaN score or threshold, a bad
// label, or one class only (ErrOneClass, with the threshold metrics filled
// and the others NaN).
func Evaluate(scores, labels []float64, threshold float64) (Metrics, error) {
	nan := math.NaN()
	m := Metrics{nan, nan, nan, nan, nan, nan, nan}
	c, err := ConfusionAt(scores, labels, threshold)
	if err != nil {
		return m, err
	}
	m.Accuracy, m.Precision, m.Recall, m.F1 = c.Accuracy(), c.Precision(), c.Recall(), c.F1()
	groups, pos, neg, err := rank(scores, labels)
	if err != nil {
		return m, err
	}
	if pos == 0 || neg == 0 {
		return m, ErrOneClass
	}
	m.AUC, _ = aucGroups(groups, pos, neg)
	m.AUPR, _ = apGroups(groups, pos)
	m.AUPRTrapz, _ = trapzGroups(groups, pos)
	return m, nil
}
