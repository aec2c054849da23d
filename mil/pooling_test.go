package mil

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPoolingK(t *testing.T) {
	for _, tc := range []struct {
		p    Pooling
		n, k int
	}{
		{MaxPooling(), 7, 1}, {MeanPooling(), 7, 7}, {TopKPooling(3), 7, 3}, {TopKPooling(3), 2, 2},
		{TopFracPooling(0.25), 1, 1}, {TopFracPooling(0.25), 4, 1}, {TopFracPooling(0.25), 5, 2},
		{TopFracPooling(0.3), 10, 3},  // 0.3*10 is exactly 3.0 in float64
		{TopFracPooling(0.28), 25, 7}, // 0.28*25 = 7.000000000000001 is 7, not 8
		{TopFracPooling(0.56), 25, 14}, {TopFracPooling(0.07), 100, 7},
		{TopFracPooling(0.29), 100, 29}, // 28.999999999999996 is 29
		{TopFracPooling(1), 9, 9}, {TopFracPooling(0.001), 9, 1},
	} {
		assert.Equal(t, tc.k, tc.p.k(tc.n), "%v of %d", tc.p, tc.n)
	}
	for _, p := range []Pooling{MaxPooling(), MeanPooling(), TopKPooling(2), TopFracPooling(0.25)} {
		require.NoError(t, p.Validate())
	}
	assert.Equal(t, "max mean top2 top25%", MaxPooling().String()+" "+MeanPooling().String()+" "+
		TopKPooling(2).String()+" "+TopFracPooling(0.25).String())
}

// TestPoolValue checks both ways of finding the k-th largest value against
// a sort, bit for bit, with ties, signed zeros and extremes.
func TestPoolValue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	scratch := make([]float64, 64)
	for trial := range 2000 {
		n := 1 + r.IntN(40)
		x := make([]float64, n)
		for j := range x {
			switch r.IntN(5) {
			case 0:
				x[j] = float64(r.IntN(3)) - 1 // ties
			case 1:
				x[j] = math.Copysign(0, -1)
			case 2:
				x[j] = r.NormFloat64() * 1e300
			default:
				x[j] = r.NormFloat64()
			}
		}
		for k := 1; k <= n; k++ {
			a, b := poolValue(x, k, scratch), poolValue(x, k, nil)
			require.Equal(t, math.Float64bits(a), math.Float64bits(b), "trial %d k %d: %v vs %v", trial, k, a, b)
			desc := slices.Clone(x)
			slices.Sort(desc)
			slices.Reverse(desc)
			want := 0.0
			for _, v := range desc[:k] {
				want += v
			}
			want /= float64(k)
			mag := 0.0
			for _, v := range x {
				mag += math.Abs(v)
			}
			if math.Abs(a-want) > 4*float64(n)*0x1p-52*mag/float64(k) && !(math.IsInf(want, 0) || math.IsInf(a, 0)) {
				t.Fatalf("trial %d k %d: %v, want %v", trial, k, a, want)
			}
		}
	}
	assert.True(t, math.IsNaN(poolValue([]float64{1, math.NaN(), 3}, 2, scratch)))
	assert.True(t, math.IsNaN(poolValue([]float64{1, math.NaN(), 3}, 2, nil)))
	assert.True(t, math.IsNaN(poolValue([]float64{1, math.NaN(), 3}, 1, nil)))
}

// TestFitPoolings fits every pooling on bags with a planted max rule: the
// objective the fit reports must be the loss of the model's own bag scores
// (so training and scoring use the same pooling), the fit must stop on a
// small primal residual, and the test AUC must be well above chance.
func TestFitPoolings(t *testing.T) {
	_, train, test, _ := synthSplit(t, SynthConfig{Bags: 240, Features: 12, MinInstances: 2, MaxInstances: 9, Relevant: 3, Margin: 1, Seed: 41}, 160)
	for _, pool := range []Pooling{MaxPooling(), TopKPooling(2), TopFracPooling(0.5), MeanPooling()} {
		opt := DefaultOptions()
		opt.Pooling = pool
		m, err := Fit(context.Background(), train, opt)
		require.NoError(t, err, pool.String())
		r := m.Result()
		assert.LessOrEqual(t, r.Primal, r.EpsPrimal, pool.String())
		assert.Equal(t, pool, m.Pooling())
		scores, err := m.BagScores(train)
		require.NoError(t, err)
		loss := 0.0
		pos := float64(train.Positives())
		nb := float64(train.NumBags())
		for i, q := range scores {
			s, w := 2*train.Labels()[i]-1, nb/(2*pos)
			if s < 0 {
				w = nb / (2 * (nb - pos))
			}
			loss += w * logLoss(s*q)
		}
		loss /= nb
		// The fit's loss is computed on the scaled data, the scores on the
		// raw data: the same sums of 160 terms of size ~1 up to rounding
		// (the penalty is on the scaled coefficients, so not compared).
		assert.InDelta(t, r.Loss, loss, 1e-10, pool.String())
		ts, err := m.BagScores(test)
		require.NoError(t, err)
		met, err := Evaluate(ts, test.Labels(), 0)
		require.NoError(t, err)
		assert.Greater(t, met.AUC, 0.75, pool.String())
	}
}

// TestPoolValueTiesAtKth pins poolValue's documented sum: the values above
// the k-th largest v, plus v times the rest, so that ties at v are not
// summed one by one. On x = (1, v, v, v), k = 2, v = 3*2^-55, the mean of
// the top two is 0.5 + 3*2^-56, which rounds to 0.5 (half an ulp of 0.5 is
// 2^-54); the documented sum gets it: 1 + v rounds to 1 (v is below half
// an ulp of 1, 2^-53), halved exactly. Summing the three ties and then
// subtracting 2v leaves 1 - 1.5*2^-53, which rounds to 1 - 2^-52, not 1.
func TestPoolValueTiesAtKth(t *testing.T) {
	v := 0x3p-55
	for _, x := range [][]float64{{1, v, v, v}, {v, v, 1, v}} {
		assert.Equal(t, 0.5, poolValue(x, 2, make([]float64, 4)), "%v, sorted", x)
		assert.Equal(t, 0.5, poolValue(x, 2, nil), "%v, bisection", x)
	}
}

// TestTopFracValidateOne: Frac in (0, 1]: 1 (every instance, the mean) is
// valid, 0 and anything above 1 are not.
func TestTopFracValidateOne(t *testing.T) {
	require.NoError(t, TopFracPooling(1).Validate())
	for _, f := range []float64{0, math.Nextafter(1, 2)} {
		assert.ErrorIs(t, TopFracPooling(f).Validate(), ErrBadInput, "%v", f)
	}
}
