package mil

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPredictAPI(t *testing.T) {
	_, train, test, _ := synthSplit(t, SynthConfig{Bags: 60, Features: 4, MinInstances: 1, MaxInstances: 5, Seed: 5}, 40)
	m, err := Fit(context.Background(), train, DefaultOptions())
	require.NoError(t, err)
	inst, err := m.InstanceScores(test)
	require.NoError(t, err)
	scores, _ := m.BagScores(test)
	probs, _ := m.BagProbabilities(test)
	labels, _ := m.Predict(test)
	wit, _ := m.Witnesses(test)
	beta, beta0 := m.Coefficients()
	row := make([]float64, test.NumFeatures())
	for k := range test.NumBags() {
		a, b := test.BagRange(k)
		q := math.Inf(-1)
		for i := a; i < b; i++ {
			s := rowScore(test, row, i, beta, beta0)
			if math.Abs(s-inst[i]) > 1e-12*(1+math.Abs(s)) {
				t.Fatalf("instance %d: score %g, want %g", i, inst[i], s)
			}
			q = max(q, inst[i])
		}
		if scores[k] != q || inst[wit[k]] != q || wit[k] < a || wit[k] >= b {
			t.Fatalf("bag %d: score %g, witness %d (score %g), max %g", k, scores[k], wit[k], inst[wit[k]], q)
		}
		if p := 1 / (1 + math.Exp(-q)); math.Abs(probs[k]-p) > 1e-15 {
			t.Fatalf("bag %d: probability %g, want %g", k, probs[k], p)
		}
		if want := float64(map[bool]int{true: 1, false: 0}[q >= 0]); labels[k] != want {
			t.Fatalf("bag %d: label %v for score %g", k, labels[k], q)
		}
	}
	// The coefficients are a copy.
	beta[0] = 1e6
	if b2, _ := m.Coefficients(); b2[0] == 1e6 || m.NumFeatures() != 4 {
		t.Error("Coefficients exposes the model")
	}
}

func TestPredictErrors(t *testing.T) {
	_, train, _, _ := synthSplit(t, SynthConfig{Bags: 30, Features: 4, MinInstances: 1, MaxInstances: 3, Seed: 6}, 20)
	m, err := Fit(context.Background(), train, DefaultOptions())
	require.NoError(t, err)
	other, _, _ := Synthetic(SynthConfig{Bags: 5, Features: 3, MinInstances: 1, MaxInstances: 2})
	nb, ni := train.NumBags(), train.NumInstances()
	for name, err := range map[string]error{
		"nil":          m.InstanceScoresTo(make([]float64, ni), nil),
		"features":     m.InstanceScoresTo(make([]float64, other.NumInstances()), other),
		"features2":    first(m.BagScores(other)),
		"dst inst":     m.InstanceScoresTo(make([]float64, ni+1), train),
		"dst bags":     m.BagScoresTo(make([]float64, nb-1), make([]float64, ni), train),
		"inst":         m.BagScoresTo(make([]float64, nb), make([]float64, ni-1), train),
		"prob dst":     m.BagProbabilitiesTo(make([]float64, 0), make([]float64, ni), train),
		"predict inst": m.PredictTo(make([]float64, nb), nil, train),
		"witness dst":  m.WitnessesTo(make([]int, nb+1), make([]float64, ni), train),
		"witness nil":  first(m.Witnesses(nil)),
	} {
		require.ErrorIs(t, err, ErrBadInput, name)
		assert.Contains(t, err.Error(), ": Model.", name)
	}
}

// TestNilModelAccessors checks that a nil *Model answers its accessors
// with zero values instead of panicking (they are documented so).
func TestNilModelAccessors(t *testing.T) {
	var m *Model
	beta, beta0 := m.Coefficients()
	assert.Nil(t, beta)
	assert.Zero(t, beta0)
	assert.Equal(t, Options{}, m.Options())
	assert.Equal(t, FitResult{}, m.Result())
	assert.Zero(t, m.NumFeatures())
}

// TestNilModelScoring: the scoring methods of a nil model return an error
// wrapping ErrBadInput, not a panic.
func TestNilModelScoring(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 20, Features: 3, MinInstances: 1, MaxInstances: 3, Seed: 8})
	require.NoError(t, err)
	var m *Model
	_, err = m.BagScores(d)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.ErrorIs(t, m.PredictTo(make([]float64, d.NumBags()), make([]float64, d.NumInstances()), d), ErrBadInput)
	_, err = m.Witnesses(d)
	assert.ErrorIs(t, err, ErrBadInput)
	_, err = m.InstanceScores(d)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.Zero(t, m.NumFeatures())
	assert.Equal(t, FitResult{}, m.Result())
}

// TestModelOverflow: features around 1e200 make the products overflow;
// every scoring call must say so (ErrBadInput) and fill its outputs with
// the documented sentinels, never a silent NaN, a 0 label or an untouched
// witness.
func TestModelOverflow(t *testing.T) {
	_, train, _, _ := synthSplit(t, SynthConfig{Bags: 60, Features: 4, MinInstances: 1, MaxInstances: 4, Seed: 7}, 40)
	m, err := Fit(context.Background(), train, DefaultOptions())
	require.NoError(t, err)
	beta, _ := m.Coefficients()
	require.NotZero(t, beta[0]+beta[1]+beta[2]+beta[3])
	x := []float64{1e200, -1e200, 1e200, 1e200, 1, 2, 3, 4, 1e308, 1e308, 1e308, 1e308}
	huge, err := NewDense(x, 4, []int{0, 1, 2, 3}, []float64{1, 0, 1})
	require.NoError(t, err)
	for _, pool := range []Pooling{MaxPooling(), MeanPooling()} {
		mm := *m
		mm.opt.Pooling = pool
		sc, err := mm.BagScores(huge)
		require.ErrorIs(t, err, ErrBadInput)
		assert.True(t, math.IsNaN(sc[0]) || math.IsNaN(sc[2]), "scores %v", sc)
		assert.False(t, math.IsNaN(sc[1]), "the finite bag keeps its score")
		pred, err := mm.Predict(huge)
		require.ErrorIs(t, err, ErrBadInput)
		prob, err := mm.BagProbabilities(huge)
		require.ErrorIs(t, err, ErrBadInput)
		wit := []int{7, 7, 7}
		err = mm.WitnessesTo(wit, make([]float64, 3), huge)
		require.ErrorIs(t, err, ErrBadInput)
		for k := range sc {
			if math.IsNaN(sc[k]) {
				assert.True(t, math.IsNaN(pred[k]) && math.IsNaN(prob[k]) && wit[k] == -1, "bag %d: %v %v %v", k, pred[k], prob[k], wit[k])
			} else {
				assert.Equal(t, k, wit[k])
			}
		}
	}
}

func first[T any](_ T, err error) error { return err }

func TestPredictNoAlloc(t *testing.T) {
	for _, density := range []float64{1, 0.05} {
		_, train, test, _ := synthSplit(t, SynthConfig{Bags: 60, Features: 40, MinInstances: 1, MaxInstances: 6, Density: density, Seed: 8}, 40)
		m, err := Fit(context.Background(), train, DefaultOptions())
		require.NoError(t, err)
		dst := make([]float64, test.NumBags())
		wit := make([]int, test.NumBags())
		inst := make([]float64, test.NumInstances())
		allocs := testing.AllocsPerRun(20, func() {
			_ = m.InstanceScoresTo(inst, test)
			_ = m.BagScoresTo(dst, inst, test)
			_ = m.BagProbabilitiesTo(dst, inst, test)
			_ = m.PredictTo(dst, inst, test)
			_ = m.WitnessesTo(wit, inst, test)
		})
		if allocs != 0 {
			t.Errorf("density %v: %v allocations per prediction round", density, allocs)
		}
	}
}

// TestConcurrentPredict shares one fitted model among 8 goroutines (run
// with -race), under max and top-k pooling.
func TestConcurrentPredict(t *testing.T) {
	_, train, test, _ := synthSplit(t, SynthConfig{Bags: 60, Features: 5, MinInstances: 1, MaxInstances: 6, Seed: 9}, 40)
	for _, pool := range []Pooling{MaxPooling(), TopKPooling(2)} {
		opt := DefaultOptions()
		opt.Pooling = pool
		m, err := Fit(context.Background(), train, opt)
		require.NoError(t, err)
		concurrentScores(t, m, test)
	}
}

func concurrentScores(t *testing.T, m *Model, test *Dataset) {
	want, _ := m.BagScores(test)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]float64, test.NumBags())
			inst := make([]float64, test.NumInstances())
			for range 50 {
				if err := m.BagScoresTo(dst, inst, test); err != nil {
					t.Error(err)
					return
				}
			}
			for k := range dst {
				if dst[k] != want[k] {
					t.Errorf("bag %d: %g, want %g", k, dst[k], want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestPredictAndWitnessTies checks the documented tie rules on a model of
// exact scores x - 2: a bag scoring exactly 0 is predicted positive (score
// >= 0), and of two instances tied for the highest score the first is the
// witness.
func TestPredictAndWitnessTies(t *testing.T) {
	m := &Model{beta: []float64{1}, beta0: -2}
	// Bags {2}, {1}, {3}, {1, 2, 2}: scores 0, -1, 1, 0 (witness 4, not 5).
	d, err := NewDense([]float64{2, 1, 3, 1, 2, 2}, 1, []int{0, 1, 2, 3, 6}, []float64{1, 0, 1, 0})
	require.NoError(t, err)
	labels, err := m.Predict(d)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 0, 1, 1}, labels)
	wit, err := m.Witnesses(d)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 4}, wit)
}
