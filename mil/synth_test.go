package mil

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSynthetic(t *testing.T) {
	cfg := SynthConfig{Bags: 50, Features: 8, MinInstances: 3, MaxInstances: 7, Witnesses: 2, Margin: 2, Seed: 11}
	d, truth, err := Synthetic(cfg)
	require.NoError(t, err)
	if d.NumBags() != 50 || d.NumFeatures() != 8 || d.IsSparse() {
		t.Fatalf("%d bags, %d features, sparse %v", d.NumBags(), d.NumFeatures(), d.IsSparse())
	}
	nz, norm := 0, 0.0
	for _, b := range truth.Beta {
		if b != 0 {
			nz++
		}
		norm += b * b
	}
	if nz != 5 || math.Abs(norm-1) > 1e-12 || truth.Beta0 != 0 {
		t.Errorf("planted rule: %d non-zeros, norm^2 %g, bias %g", nz, norm, truth.Beta0)
	}
	// The max rule holds with the margin, and every positive bag has
	// exactly Witnesses witnesses.
	row := make([]float64, 8)
	for k, y := range d.Labels() {
		a, b := d.BagRange(k)
		if b-a < 3 || b-a > 7 {
			t.Errorf("bag %d has %d instances", k, b-a)
		}
		nw := 0
		for i := a; i < b; i++ {
			s := rowScore(d, row, i, truth.Beta, 0)
			if truth.Witness[i] {
				nw++
				if s < 1-1e-12 {
					t.Errorf("witness %d scores %g", i, s)
				}
			} else if s > -1+1e-12 {
				t.Errorf("non-witness %d scores %g", i, s)
			}
		}
		if (y == 1 && nw != 2) || (y == 0 && nw != 0) {
			t.Errorf("bag %d (label %v) has %d witnesses", k, y, nw)
		}
	}
	d2, _, _ := Synthetic(cfg)
	s1, s2 := make([]float64, d.NumInstances()), make([]float64, d.NumInstances())
	d.MulVec(s1, truth.Beta, 0)
	d2.MulVec(s2, truth.Beta, 0)
	for i := range s1 {
		if s1[i] != s2[i] {
			t.Fatal("Synthetic is not deterministic")
		}
	}
	if sp, _, err := Synthetic(SynthConfig{Bags: 20, Features: 100, MinInstances: 1, MaxInstances: 2, Density: 0.02}); err != nil || !sp.IsSparse() {
		t.Errorf("sparse config: %v", err)
	}
	for _, bad := range []SynthConfig{
		{Bags: 1, Features: 2, MinInstances: 1, MaxInstances: 1},
		{Bags: 5, Features: 0, MinInstances: 1, MaxInstances: 1},
		{Bags: 5, Features: 2, MinInstances: 0, MaxInstances: 1},
		{Bags: 5, Features: 2, MinInstances: 3, MaxInstances: 2},
		{Bags: 5, Features: 2, MinInstances: 1, MaxInstances: 2, Relevant: 3},
		{Bags: 5, Features: 2, MinInstances: 1, MaxInstances: 2, Witnesses: 2},
		{Bags: 5, Features: 2, MinInstances: 1, MaxInstances: 2, PositiveFraction: 1},
		{Bags: 5, Features: 2, MinInstances: 1, MaxInstances: 2, Margin: -1},
		{Bags: 5, Features: 2, MinInstances: 1, MaxInstances: 2, Margin: math.NaN()},
		{Bags: 5, Features: 2, MinInstances: 1, MaxInstances: 2, Margin: math.Inf(1)},
		{Bags: 5, Features: 2, MinInstances: 1, MaxInstances: 2, Margin: -math.SmallestNonzeroFloat64},
		{Bags: 5, Features: 2, MinInstances: 1, MaxInstances: 2, Density: 2},
	} {
		_, _, err := Synthetic(bad)
		assert.ErrorIs(t, err, ErrBadInput, "%+v", bad)
		assert.NotErrorIs(t, err, ErrTooLarge, "%+v", bad)
	}
}

// TestSyntheticSizesCapped: a configuration asking for more than the
// caps (2^33 features: 64 GiB; more dense values than
// DefaultMaxDenseCells) is refused before anything is allocated, in a
// child whose address space is 1 GiB; at the caps it is not refused.
func TestSyntheticSizesCapped(t *testing.T) {
	if !inChild(t, childBudget) {
		return
	}
	for _, c := range []struct {
		cfg SynthConfig
		msg string
	}{
		{SynthConfig{Bags: 2, Features: math.MaxInt, MinInstances: 1, MaxInstances: 1}, "Features = " + strconv.Itoa(math.MaxInt) + " exceeds DefaultMaxFeatures = 1048576"},
		{SynthConfig{Bags: 1 << 30, Features: 1, MinInstances: 1, MaxInstances: 1}, "1073741824 bags of up to 1 instances of 1 features are up to 1.074e+09 values, above DefaultMaxDenseCells"},
		{SynthConfig{Bags: 2, Features: 1 << 10, MinInstances: 1, MaxInstances: hugeInt}, "above DefaultMaxDenseCells"},
		{SynthConfig{Bags: 1 << 9, Features: 1 << 10, MinInstances: 1, MaxInstances: 1<<9 + 1}, "above DefaultMaxDenseCells = 268435456"},
	} {
		d, truth, err := Synthetic(c.cfg)
		assert.Nil(t, d)
		assert.Nil(t, truth)
		requireBadInput(t, err, true, c.msg)
	}
	// Bags x MaxInstances x Features = 2^28 exactly: allowed (checked on
	// the bounds only, not drawn: 2 GiB).
	assert.NoError(t, (&SynthConfig{Bags: 1 << 9, Features: 1 << 10, MinInstances: 1, MaxInstances: 1 << 9, Relevant: 1, Witnesses: 1, PositiveFraction: 0.5, Margin: 1, Density: 1}).validate())
	logPeak(t)
}

// TestSyntheticMargin checks Margin's documented values: 0 selects the
// default 1, and any positive margin, however small, is used as given.
// The margin does not touch the random stream, so data sets of one seed
// differ only in the planted scores, each by (m1 - m2)/2 toward its side.
func TestSyntheticMargin(t *testing.T) {
	const tiny = 1e-9
	scores := func(margin float64) ([]float64, *SynthTruth) {
		cfg := SynthConfig{Bags: 40, Features: 6, MinInstances: 1, MaxInstances: 5, Margin: margin, Seed: 13}
		d, truth, err := Synthetic(cfg)
		if err != nil {
			t.Fatalf("Margin %g: %v", margin, err)
		}
		s := make([]float64, d.NumInstances())
		row := make([]float64, d.NumFeatures())
		for i := range s {
			s[i] = rowScore(d, row, i, truth.Beta, 0)
		}
		return s, truth
	}
	zero, truth := scores(0)
	one, _ := scores(1)
	small, _ := scores(tiny)
	// The scores are rebuilt from features of size O(1..10) after the
	// shift: 1e-13 bounds their rounding, far below tiny/2.
	const tol = 1e-13
	for i, w := range truth.Witness {
		side := -1.0
		if w {
			side = 1
		}
		if zero[i] != one[i] {
			t.Fatalf("instance %d: Margin 0 scores %g, Margin 1 %g", i, zero[i], one[i])
		}
		if side*small[i] < tiny/2-tol {
			t.Errorf("instance %d (witness %v): score %g with Margin %g", i, w, small[i], tiny)
		}
		if d := side * (one[i] - small[i]); math.Abs(d-(1-tiny)/2) > tol {
			t.Errorf("instance %d: Margin 1 moves the score by %g from Margin %g, want %g", i, d, tiny, (1-tiny)/2)
		}
	}
}

// TestSyntheticSparseBelowDensityOnly: "Below DefaultSparseDensity the
// data set is stored sparse": exactly at it, dense; one ulp below, sparse.
func TestSyntheticSparseBelowDensityOnly(t *testing.T) {
	cfg := SynthConfig{Bags: 6, Features: 8, MinInstances: 1, MaxInstances: 2, Density: DefaultSparseDensity, Seed: 3}
	d, _, err := Synthetic(cfg)
	require.NoError(t, err)
	assert.False(t, d.IsSparse())
	cfg.Density = math.Nextafter(DefaultSparseDensity, 0)
	d, _, err = Synthetic(cfg)
	require.NoError(t, err)
	assert.True(t, d.IsSparse())
}

// TestSyntheticBetaMagnitudes: the planted coefficients are drawn with
// magnitudes in [0.5, 1.5) and then normalized by one common factor, so
// the largest non-zero |Beta_j| is less than 3 times the smallest; Beta
// has unit norm and Relevant non-zeros.
func TestSyntheticBetaMagnitudes(t *testing.T) {
	for seed := range uint64(20) {
		_, truth, err := Synthetic(SynthConfig{Bags: 2, Features: 12, Relevant: 6, MinInstances: 1, MaxInstances: 1, Seed: seed})
		require.NoError(t, err)
		lo, hi, norm, nz := math.Inf(1), 0.0, 0.0, 0
		for _, b := range truth.Beta {
			if b != 0 {
				lo, hi, nz = min(lo, math.Abs(b)), max(hi, math.Abs(b)), nz+1
				norm += b * b
			}
		}
		assert.Equal(t, 6, nz, "seed %d", seed)
		assert.InDelta(t, 1, norm, 1e-14, "seed %d", seed)
		assert.Less(t, hi, 3*lo, "seed %d", seed)
	}
}
