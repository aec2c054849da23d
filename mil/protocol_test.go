package mil

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func classLabels(pos, neg int) []float64 {
	y := make([]float64, pos+neg)
	for i := range pos {
		y[i] = 1
	}
	// Interleave a little so classes are not sorted by index.
	rand.New(rand.NewPCG(0, 0)).Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
	return y
}

// checkPartition checks that each repeat's test sets partition the bags,
// train is the complement, both are sorted, and class counts per fold are
// balanced to within one.
func checkPartition(t *testing.T, splits []Split, labels []float64, folds, repeats int) {
	t.Helper()
	if len(splits) != folds*repeats {
		t.Fatalf("%d splits, want %d", len(splits), folds*repeats)
	}
	for rep := range repeats {
		seen := make([]int, len(labels))
		var posCounts, sizes []int
		for f := range folds {
			s := splits[rep*folds+f]
			if s.Repeat != rep || s.Fold != f {
				t.Fatalf("split %d labelled repeat %d fold %d", rep*folds+f, s.Repeat, s.Fold)
			}
			if !slices.IsSorted(s.Test) || !slices.IsSorted(s.Train) || len(s.Test)+len(s.Train) != len(labels) {
				t.Fatalf("split %d: unsorted or sizes %d+%d", f, len(s.Test), len(s.Train))
			}
			inTest := map[int]bool{}
			p := 0
			for _, b := range s.Test {
				seen[b]++
				inTest[b] = true
				p += int(labels[b])
			}
			for _, b := range s.Train {
				if inTest[b] {
					t.Fatalf("bag %d in train and test", b)
				}
			}
			posCounts = append(posCounts, p)
			sizes = append(sizes, len(s.Test))
		}
		for b, c := range seen {
			if c != 1 {
				t.Fatalf("repeat %d: bag %d tested %d times", rep, b, c)
			}
		}
		if slices.Max(posCounts)-slices.Min(posCounts) > 1 || slices.Max(sizes)-slices.Min(sizes) > 1 {
			t.Fatalf("repeat %d: positives per fold %v, sizes %v", rep, posCounts, sizes)
		}
	}
}

func TestKFoldSplits(t *testing.T) {
	labels := classLabels(566, 1006) // vaccine's class sizes
	p := KFold(10, 5, 42)
	splits, err := p.Splits(labels)
	require.NoError(t, err)
	checkPartition(t, splits, labels, 10, 5)
	again, _ := p.Splits(labels)
	if !reflect.DeepEqual(splits, again) {
		t.Error("same seed, different splits")
	}
	if reflect.DeepEqual(splits[0].Test, splits[10].Test) {
		t.Error("repeats 0 and 1 have the same first fold")
	}
	p.Seed = 43
	other, _ := p.Splits(labels)
	if reflect.DeepEqual(splits[0].Test, other[0].Test) {
		t.Error("seeds 42 and 43 give the same first fold")
	}
	// Small classes: k equal to the minority size still works.
	small := classLabels(3, 7)
	s, err := KFold(3, 2, 1).Splits(small)
	require.NoError(t, err)
	checkPartition(t, s, small, 3, 2)
}

func TestPaperSplit(t *testing.T) {
	for _, c := range []struct{ pos, neg, testPos, testNeg int }{
		{566, 1006, 113, 201}, // vaccine: round(0.2*566), round(0.2*1006)
		{100, 100, 20, 20},    // fox
	} {
		labels := classLabels(c.pos, c.neg)
		splits, err := PaperSplit(7).Splits(labels)
		if err != nil || len(splits) != 1 {
			t.Fatal(err, len(splits))
		}
		s := splits[0]
		p := 0
		for _, b := range s.Test {
			p += int(labels[b])
		}
		if p != c.testPos || len(s.Test)-p != c.testNeg || len(s.Train) != c.pos+c.neg-len(s.Test) {
			t.Errorf("%d/%d: test has %d positives, %d negatives", c.pos, c.neg, p, len(s.Test)-p)
		}
	}
}

func TestSplitsErrors(t *testing.T) {
	labels := classLabels(5, 20)
	for _, c := range []struct {
		p      Protocol
		labels []float64
		msg    string
	}{
		{KFold(5, 1, 0), []float64{1, 0, 2}, "label 2 is 2"},
		{KFold(1, 1, 0), labels, "Folds = 1"},
		{Protocol{Folds: -3, Repeats: 1}, labels, "Folds = -3"},
		{KFold(6, 1, 0), labels, "6 folds but a class has only 5 bags"},
		{KFold(2, 1, 0), classLabels(0, 10), "only 0 bags"},
		{KFold(5, 0, 0), labels, "Repeats = 0"},
		{Protocol{TestFraction: 0.05, Repeats: 1}, labels, "leaves class 1 (5 bags) without a training or test bag"},
		{Protocol{TestFraction: 1, Repeats: 1}, labels, "without a training or test bag"},
		// round(0.95 x 5) = 5 test bags: none left to train on (rounded as
		// the split rounds, not truncated to 4).
		{Protocol{TestFraction: 0.95, Repeats: 1}, labels, "leaves class 1 (5 bags) without a training or test bag"},
		{Protocol{TestFraction: math.NaN(), Repeats: 1}, labels, "without a training or test bag"},
		// The caps, checked before anything is allocated (Repeats x Folds
		// overflows an int at hugeInt x 4).
		{KFold(4, hugeInt, 0), labels, "MaxSplits = 100000"},
		{KFold(2, MaxSplits/2+1, 0), labels, "100002 splits"},
		{KFold(5, MaxSplitIndices/(5*25)+1, 0), labels, "MaxSplitIndices"},
		{Protocol{TestFraction: 0.5, Repeats: math.MaxInt}, labels, "MaxSplits"},
	} {
		if s, err := c.p.Splits(c.labels); err == nil || s != nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: got %v, want an error containing %q", c.p, err, c.msg)
		}
	}
	// round(0.15 x 5) = 1 and round(0.15 x 20) = 3 test bags: valid,
	// though 0.75 truncates to none.
	s, err := Protocol{TestFraction: 0.15, Repeats: 1}.Splits(labels)
	require.NoError(t, err)
	require.Len(t, s, 1)
	pos := 0
	for _, b := range s[0].Test {
		pos += int(labels[b])
	}
	assert.Equal(t, 1, pos)
	assert.Len(t, s[0].Test, 4)
	// Exactly MaxSplits splits is within the cap (more than it is not).
	s, err = KFold(2, MaxSplits/2, 0).Splits([]float64{0, 1, 1, 0})
	require.NoError(t, err)
	assert.Len(t, s, MaxSplits)
}

// plantedDataset has bags whose label is 1 when some instance has
// feature 0 above 1; feature 1 is noise.
func plantedDataset(t testing.TB, nb int, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := NewBuilder(2)
	for k := range nb {
		y := float64(k % 2)
		size := 1 + rng.IntN(5)
		for i := range size {
			x0 := rng.Float64()
			if y == 1 && i == size-1 {
				x0 += 1 + rng.Float64()*0.5
			}
			if err := b.AddDense(fmt.Sprint("bag", k), fmt.Sprint(k, ".", i), y, []float64{x0, rng.NormFloat64()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	d, err := b.Build(nil)
	require.NoError(t, err)
	return d
}

// maxFeature scores a bag by the largest value of feature j minus 1: a
// fixed rule, no fitting.
func maxFeature(j int) ScoreFunc {
	return func(_ context.Context, _, test *Dataset) ([]float64, error) {
		out := make([]float64, test.NumBags())
		row := make([]float64, test.NumFeatures())
		for k := range out {
			s, e := test.BagRange(k)
			out[k] = math.Inf(-1)
			for i := s; i < e; i++ {
				test.Row(row, i)
				out[k] = max(out[k], row[j]-1)
			}
		}
		return out, nil
	}
}

func TestRun(t *testing.T) {
	d := plantedDataset(t, 60, 1)
	p := KFold(5, 3, 9)
	rep, err := p.Run(context.Background(), d, maxFeature(0))
	require.NoError(t, err)
	if len(rep.Folds) != 15 || rep.Mean.AUC != 1 || rep.Std.AUC != 0 || rep.Mean.Accuracy != 1 {
		t.Errorf("planted rule: %d folds, %v", len(rep.Folds), rep)
	}
	// Noise feature: mean and std recomputed from the folds.
	rep, err = p.Run(context.Background(), d, maxFeature(1))
	require.NoError(t, err)
	var aucs []float64
	for _, f := range rep.Folds {
		want, _ := Evaluate(f.Scores, f.Labels, 0)
		if f.Metrics != want || len(f.Scores) != len(f.Test) {
			t.Fatalf("fold metrics %+v, want %+v", f.Metrics, want)
		}
		for i, b := range f.Test {
			if f.Labels[i] != d.Labels()[b] {
				t.Fatal("fold labels not aligned with Test")
			}
		}
		aucs = append(aucs, f.Metrics.AUC)
	}
	mean, ss := 0.0, 0.0
	for _, a := range aucs {
		mean += a
	}
	mean /= float64(len(aucs))
	for _, a := range aucs {
		ss += (a - mean) * (a - mean)
	}
	if !near(rep.Mean.AUC, mean, 1e-15) || !near(rep.Std.AUC, math.Sqrt(ss/float64(len(aucs)-1)), 1e-15) {
		t.Errorf("mean/std AUC %v %v, want %v %v", rep.Mean.AUC, rep.Std.AUC, mean, math.Sqrt(ss/14))
	}
	// Pooled curves hold every bag once per repeat.
	sc, lab := rep.Pooled()
	if len(sc) != 3*d.NumBags() || len(lab) != len(sc) {
		t.Errorf("pooled %d scores", len(sc))
	}
	if roc, err := rep.PooledROC(); err != nil || roc[len(roc)-1] != (ROCPoint{1, 1, roc[len(roc)-1].Threshold}) {
		t.Errorf("pooled ROC: %v", err)
	}
	if _, err := rep.PooledPR(); err != nil {
		t.Error(err)
	}
	if s := rep.String(); !strings.Contains(s, "5-fold CV x3 (15 splits, threshold 0)") || !strings.Contains(s, "AUC ") {
		t.Errorf("String:\n%s", s)
	}

	// Concurrent workers give the same report.
	p.Workers = 3
	rep2, err := p.Run(context.Background(), d, maxFeature(1))
	require.NoError(t, err)
	for i := range rep.Folds {
		rep.Folds[i].Elapsed, rep2.Folds[i].Elapsed = 0, 0
	}
	rep2.Protocol.Workers = rep.Protocol.Workers
	if !reflect.DeepEqual(rep, rep2) {
		t.Error("Workers = 3 changed the report")
	}

	// The 80/20 split: one fold, std 0.
	rep, err = PaperSplit(1).Run(context.Background(), d, maxFeature(0))
	if err != nil || len(rep.Folds) != 1 || rep.Std != (Metrics{}) || len(rep.Folds[0].Test) != 12 {
		t.Errorf("paper split: %v %v", rep, err)
	}
}

func TestRunErrors(t *testing.T) {
	d := plantedDataset(t, 40, 2)
	p := KFold(4, 2, 3)
	p.Workers = 1 // the failing score function counts calls in order
	boom := errors.New("boom")
	calls := 0
	failing := func(ctx context.Context, train, test *Dataset) ([]float64, error) {
		calls++
		if calls == 3 {
			return nil, boom
		}
		return maxFeature(0)(ctx, train, test)
	}
	rep, err := p.Run(context.Background(), d, failing)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "repeat 0, fold 2") {
		t.Errorf("got %v", err)
	}
	if calls != 3 {
		t.Errorf("%d calls after the failure, want it to stop at 3", calls)
	}
	// The two splits done before the failure are kept, with their summary.
	if rep == nil || len(rep.Folds) != 2 || rep.Folds[0].Fold != 0 || rep.Folds[1].Fold != 1 {
		t.Fatalf("partial report %+v, want folds 0 and 1", rep)
	}
	if want := (rep.Folds[0].Metrics.AUC + rep.Folds[1].Metrics.AUC) / 2; math.Abs(rep.Mean.AUC-want) > 1e-15 {
		t.Errorf("partial mean AUC %v, want %v", rep.Mean.AUC, want)
	}
	short := func(_ context.Context, _, test *Dataset) ([]float64, error) {
		return make([]float64, test.NumBags()-1), nil
	}
	if _, err := p.Run(context.Background(), d, short); err == nil || !strings.Contains(err.Error(), "scores for") {
		t.Errorf("short scores: %v", err)
	}
	nan := func(_ context.Context, _, test *Dataset) ([]float64, error) {
		s := make([]float64, test.NumBags())
		s[0] = math.NaN()
		return s, nil
	}
	if _, err := p.Run(context.Background(), d, nan); !errors.Is(err, ErrNaNScore) {
		t.Errorf("NaN scores: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := p.Run(ctx, d, maxFeature(0)); !errors.Is(err, context.Canceled) || rep == nil || len(rep.Folds) != 0 {
		t.Errorf("cancelled: %v, %+v", err, rep)
	}
	//lint:ignore SA1012 a nil context is the bad input tested
	if rep, err := p.Run(nil, d, maxFeature(0)); !errors.Is(err, ErrBadInput) || rep != nil {
		t.Errorf("nil context: %v, %+v", err, rep)
	}
	p.Threshold = math.NaN()
	if _, err := p.Run(context.Background(), d, maxFeature(0)); err == nil {
		t.Error("NaN threshold accepted")
	}
	// The score function sees only its own bags: train and test disjoint.
	p.Threshold = 0
	check := func(_ context.Context, train, test *Dataset) ([]float64, error) {
		ids := map[string]bool{}
		for k := range train.NumBags() {
			ids[train.BagID(k)] = true
		}
		for k := range test.NumBags() {
			if ids[test.BagID(k)] {
				return nil, fmt.Errorf("bag %s in train and test", test.BagID(k))
			}
		}
		if train.NumBags()+test.NumBags() != d.NumBags() {
			return nil, errors.New("bags lost")
		}
		return maxFeature(0)(context.Background(), train, test)
	}
	if _, err := p.Run(context.Background(), d, check); err != nil {
		t.Error(err)
	}
}

func TestStandardized(t *testing.T) {
	d := plantedDataset(t, 30, 4)
	var trainMean, trainStd []float64
	inner := func(ctx context.Context, train, test *Dataset) ([]float64, error) {
		trainMean, trainStd = columnStats(train)
		return maxFeature(0)(ctx, train, test)
	}
	rep, err := PaperSplit(5).Run(context.Background(), d, Standardized(inner))
	require.NoError(t, err)
	for j := range trainMean {
		if !near(trainMean[j], 0, 1e-14) || !near(trainStd[j], 1, 1e-14) {
			t.Errorf("column %d of the standardized train set: mean %v std %v", j, trainMean[j], trainStd[j])
		}
	}
	// Standardizing is monotone per feature, so the max rule still ranks
	// the bags perfectly.
	if rep.Mean.AUC != 1 {
		t.Errorf("AUC %v after standardizing", rep.Mean.AUC)
	}
}

// TestProtocolsOnRealData runs both protocols on fox and vaccine with a
// fixed rule (no learning): the number of instances in the bag. It checks
// the plumbing at real sizes, not a score; the log shows the baseline a
// learner must beat (bag size alone is informative on vaccine).
func TestProtocolsOnRealData(t *testing.T) {
	for _, name := range []string{"fox.csv", "vaccine.svm"} {
		d, err := LoadFile(datadir.File(t, name), nil)
		require.NoError(t, err)
		size := func(_ context.Context, _, test *Dataset) ([]float64, error) {
			s := make([]float64, test.NumBags())
			for k := range s {
				a, b := test.BagRange(k)
				s[k] = float64(b - a)
			}
			return s, nil
		}
		for _, p := range []Protocol{KFold(10, 5, 1), PaperSplit(1)} {
			rep, err := p.Run(context.Background(), d, size)
			require.NoError(t, err)
			if n := len(rep.Folds); n != p.Repeats*max(p.Folds, 1) {
				t.Errorf("%s %s: %d folds", name, p.Name, n)
			}
			for _, v := range []float64{rep.Mean.AUC, rep.Mean.AUPR, rep.Mean.Accuracy} {
				if !(v >= 0 && v <= 1) {
					t.Errorf("%s %s: metric %v out of [0,1]", name, p.Name, v)
				}
			}
			t.Logf("%s, bag size as score: %s", name, rep)
		}
	}
}

// TestRunWorkersFit runs real fits under 1, GOMAXPROCS (0) and 4 workers:
// every fold's scores must be the same bits.
func TestRunWorkersFit(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 80, Features: 6, MinInstances: 1, MaxInstances: 5, Seed: 61})
	require.NoError(t, err)
	fit := func(ctx context.Context, train, test *Dataset) ([]float64, error) {
		opt := DefaultOptions()
		opt.Pooling = TopKPooling(2)
		m, err := Fit(ctx, train, opt)
		if err != nil {
			return nil, err
		}
		return m.BagScores(test)
	}
	var ref *Report
	for _, w := range []int{1, 0, 4} {
		p := KFold(4, 2, 3)
		p.Workers = w
		rep, err := p.Run(context.Background(), d, fit)
		require.NoError(t, err)
		if ref == nil {
			ref = rep
			continue
		}
		for i, f := range rep.Folds {
			for k, s := range f.Scores {
				if math.Float64bits(s) != math.Float64bits(ref.Folds[i].Scores[k]) {
					t.Fatalf("workers %d: fold %d bag %d: %v, one worker %v", w, i, k, s, ref.Folds[i].Scores[k])
				}
			}
		}
	}
}

// TestRunErrorWorkers: a failing split stops the splits still running,
// in parallel those before it in split order too; Run reports the failure,
// not the cancellation it caused. The caller's own cancellation is still
// reported as such.
func TestRunErrorWorkers(t *testing.T) {
	d := plantedDataset(t, 40, 2)
	p := KFold(2, 1, 1)
	p.Workers = 2
	splits, err := p.Splits(d.Labels())
	require.NoError(t, err)
	first := d.BagID(splits[0].Test[0])
	boom := errors.New("boom")
	// Split 0 waits until it is cancelled (at most 5 s), split 1 fails.
	score := func(ctx context.Context, _, test *Dataset) ([]float64, error) {
		if test.BagID(0) != first {
			return nil, boom
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return nil, errors.New("split 0 was not cancelled")
		}
	}
	rep, err := p.Run(context.Background(), d, score)
	assert.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "fold 1")
	require.NotNil(t, rep)
	assert.Empty(t, rep.Folds)

	ctx, cancel := context.WithCancel(context.Background())
	wait := func(ctx context.Context, _, _ *Dataset) ([]float64, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	_, err = p.Run(ctx, d, wait)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "fold 0")
}

// TestRunRefusesNaNThresholdFirst: Run's doc lists a NaN threshold among
// the refused arguments (ErrBadInput, nil Report), checked before any
// split is scored, not left to Evaluate's error inside the first split.
func TestRunRefusesNaNThresholdFirst(t *testing.T) {
	d := plantedDataset(t, 20, 3)
	p := KFold(2, 1, 1)
	p.Threshold = math.NaN()
	calls := 0
	score := func(ctx context.Context, train, test *Dataset) ([]float64, error) {
		calls++
		return maxFeature(0)(ctx, train, test)
	}
	rep, err := p.Run(context.Background(), d, score)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.Nil(t, rep)
	assert.Zero(t, calls)
}

// TestRunRefusesTooManyScores: scores of the wrong length are an error
// both ways, one score too many as well as one too few.
func TestRunRefusesTooManyScores(t *testing.T) {
	d := plantedDataset(t, 20, 3)
	p := KFold(2, 1, 1)
	p.Workers = 1
	long := func(_ context.Context, _, test *Dataset) ([]float64, error) {
		return make([]float64, test.NumBags()+1), nil
	}
	rep, err := p.Run(context.Background(), d, long)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scores for")
	require.NotNil(t, rep)
	assert.Empty(t, rep.Folds)
}

// TestStandardizedErrors checks that Standardized passes on the errors of
// its preprocessing instead of scoring: a cancelled context (FitScaler),
// and a test set the scaler cannot apply to (another feature count).
func TestStandardizedErrors(t *testing.T) {
	train, _, err := Synthetic(SynthConfig{Bags: 10, Features: 3, MinInstances: 1, MaxInstances: 2, Seed: 1})
	require.NoError(t, err)
	other, _, err := Synthetic(SynthConfig{Bags: 10, Features: 4, MinInstances: 1, MaxInstances: 2, Seed: 2})
	require.NoError(t, err)
	called := false
	score := Standardized(func(context.Context, *Dataset, *Dataset) ([]float64, error) {
		called = true
		return nil, nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = score(ctx, train, train)
	require.ErrorIs(t, err, context.Canceled)
	_, err = score(t.Context(), train, other)
	require.Error(t, err)
	require.True(t, errors.Is(err, ErrBadInput), "%v", err)
	require.False(t, called, "score ran on data that failed preprocessing")
	_, err = score(t.Context(), train, train)
	require.NoError(t, err)
	require.True(t, called)
}

// TestRunNilArguments: nil data and a nil score function are errors
// wrapping ErrBadInput, not panics.
func TestRunNilArguments(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 20, Features: 3, MinInstances: 1, MaxInstances: 3, Seed: 8})
	require.NoError(t, err)
	p := KFold(2, 1, 1)
	_, err = p.Run(context.Background(), nil, maxFeature(0))
	assert.ErrorIs(t, err, ErrBadInput)
	_, err = p.Run(context.Background(), d, nil)
	assert.ErrorIs(t, err, ErrBadInput)
}

// TestRunFolds: RunFolds on the fold assignments behind p.Splits' splits
// is Run; on another assignment it scores its folds, repeat-major; it
// refuses bad folds, lengths, no repeat, a nil argument or a NaN
// threshold.
func TestRunFolds(t *testing.T) {
	ctx := context.Background()
	d := plantedDataset(t, 60, 1)
	p := KFold(5, 2, 9)
	splits, err := p.Splits(d.Labels())
	require.NoError(t, err)
	folds := make([][]int, 2)
	for r := range folds {
		folds[r] = make([]int, d.NumBags())
		for _, s := range splits[5*r : 5*r+5] {
			for _, b := range s.Test {
				folds[r][b] = s.Fold
			}
		}
	}
	want, err := p.Run(ctx, d, maxFeature(1))
	require.NoError(t, err)
	got, err := p.RunFolds(ctx, d, folds, maxFeature(1))
	require.NoError(t, err)
	for i := range want.Folds {
		want.Folds[i].Elapsed, got.Folds[i].Elapsed = 0, 0
	}
	assert.Equal(t, want, got)

	// Bag b in fold b mod 3 of one repeat: three splits, each testing its fold.
	q := KFold(3, 1, 0)
	mod := make([]int, d.NumBags())
	for b := range mod {
		mod[b] = b % 3
	}
	rep, err := q.RunFolds(ctx, d, [][]int{mod}, maxFeature(1))
	require.NoError(t, err)
	require.Len(t, rep.Folds, 3)
	for f, fr := range rep.Folds {
		assert.Equal(t, f, fr.Fold)
		for _, b := range fr.Test {
			assert.Equal(t, f, b%3)
		}
		assert.Len(t, fr.Test, d.NumBags()/3)
	}

	bad := slices.Clone(mod)
	bad[7] = 3
	for name, call := range map[string]func() error{
		"fold out of range": func() error { _, err := q.RunFolds(ctx, d, [][]int{bad}, maxFeature(1)); return err },
		"short assignment":  func() error { _, err := q.RunFolds(ctx, d, [][]int{mod[1:]}, maxFeature(1)); return err },
		"no repeat":         func() error { _, err := q.RunFolds(ctx, d, nil, maxFeature(1)); return err },
		"one fold": func() error {
			_, err := KFold(1, 1, 0).RunFolds(ctx, d, [][]int{make([]int, 60)}, maxFeature(1))
			return err
		},
		"nil data":  func() error { _, err := q.RunFolds(ctx, nil, [][]int{mod}, maxFeature(1)); return err },
		"nil score": func() error { _, err := q.RunFolds(ctx, d, [][]int{mod}, nil); return err },
		"nil ctx": func() error {
			//lint:ignore SA1012 a nil context is the bad input tested
			_, err := q.RunFolds(nil, d, [][]int{mod}, maxFeature(1))
			return err
		},
		"NaN threshold": func() error {
			r := q
			r.Threshold = math.NaN()
			_, err := r.RunFolds(ctx, d, [][]int{mod}, maxFeature(1))
			return err
		},
	} {
		err := call()
		assert.ErrorIs(t, err, ErrBadInput, name)
		assert.ErrorContains(t, err, "RunFolds", name)
	}
}
