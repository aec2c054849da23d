package mil

import (
	"math"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCriterionString(t *testing.T) {
	assert.Equal(t, "auc", CriterionAUC.String())
	assert.Equal(t, "deviance", CriterionDeviance.String())
	assert.Equal(t, "Criterion(7)", Criterion(7).String())
}

// TestEnsembleCandidates checks the count Validate caps against
// enumeration: the subsets of 2 to size of n settings.
func TestEnsembleCandidates(t *testing.T) {
	for n := 0; n <= 14; n++ {
		for size := 0; size <= 16; size++ {
			want := 0
			for mask := range 1 << n {
				if k := bits.OnesCount(uint(mask)); k >= 2 && k <= size {
					want++
				}
			}
			require.Equal(t, float64(want), ensembleCandidates(n, size), "n %d, size %d", n, size)
		}
	}
	// A size beyond the grid is the grid's size: DefaultSearch's 12
	// settings have 4083 ensembles however large EnsembleSize is.
	s := DefaultSearch()
	s.EnsembleSize = hugeInt
	require.NoError(t, s.Validate())
	assert.Equal(t, 4083.0, ensembleCandidates(12, s.EnsembleSize))
}

// TestSearchValidateBoundaries: Search.Validate at the documented
// boundaries, each accepted value against the nearest refused one: Folds
// >= 2, Repeats up to MaxSplits (on a grid of one setting, which
// MaxSearchFits allows), WarmRho in [0, 1], CVRhoGrowth 0 or >= 1,
// EnsembleMargin, FeatureMaxSE, MinTestBags, AnchorSE and the lambdas >=
// 0, and the grid's fits up to MaxSearchFits; Skip and Anchors outside the
// grid change nothing, but Skip must leave a pair.
func TestSearchValidateBoundaries(t *testing.T) {
	const eps = 0x1p-52
	for _, c := range []struct {
		name string
		mod  func(*Search)
		ok   bool
	}{
		{"Folds 2", func(s *Search) { s.Folds = 2 }, true},
		{"Folds 1", func(s *Search) { s.Folds = 1 }, false},
		{"Repeats MaxSplits", func(s *Search) { oneSetting(s); s.Repeats = MaxSplits }, true},
		{"Repeats MaxSplits+1", func(s *Search) { oneSetting(s); s.Repeats = MaxSplits + 1 }, false},
		{"fits MaxSearchFits = 16 x 2^16", func(s *Search) { oneSetting(s); s.Folds, s.Repeats = 16, 1<<16 }, true},
		{"fits MaxSearchFits+1 = 17 x 61681", func(s *Search) { oneSetting(s); s.Folds, s.Repeats = 17, 61681 }, false},
		{"WarmRho 0", func(s *Search) { s.WarmRho = 0 }, true},
		{"WarmRho 1", func(s *Search) { s.WarmRho = 1 }, true},
		{"WarmRho 1+eps", func(s *Search) { s.WarmRho = 1 + eps }, false},
		{"WarmRho -0.1", func(s *Search) { s.WarmRho = -0.1 }, false},
		{"CVRhoGrowth 1", func(s *Search) { s.CVRhoGrowth = 1 }, true},
		{"CVRhoGrowth 1-eps", func(s *Search) { s.CVRhoGrowth = 1 - eps/2 }, false},
		{"EnsembleMargin 0", func(s *Search) { s.EnsembleMargin = 0 }, true},
		{"FeatureMaxSE 0", func(s *Search) { s.FeatureMaxSE = 0 }, true},
		{"FeatureMaxSE -0.1", func(s *Search) { s.FeatureMaxSE = -0.1 }, false},
		{"FeatureMaxSE Inf", func(s *Search) { s.FeatureMaxSE = math.Inf(1) }, false},
		{"lambda 0", func(s *Search) { s.Lambdas = []float64{0.1, 0} }, true},
		{"lambda -1e-300", func(s *Search) { s.Lambdas = []float64{-1e-300} }, false},
		{"MinTestBags 0", func(s *Search) { s.MinTestBags = 0 }, true},
		{"MinTestBags -1", func(s *Search) { s.MinTestBags = -1 }, false},
		{"AnchorSE 0", func(s *Search) { s.AnchorSE = 0 }, true},
		{"AnchorSE -0.1", func(s *Search) { s.AnchorSE = -0.1 }, false},
		{"AnchorSE NaN", func(s *Search) { s.AnchorSE = math.NaN() }, false},
		{"Anchors and Skip outside the grid", func(s *Search) { s.Poolings = []Pooling{MaxPooling()} }, true},
		{"Skip every pair", func(s *Search) {
			s.Poolings, s.Scalings = []Pooling{MeanPooling()}, []Scaling{ScaleNone}
			s.Skip = append(s.Skip, Setting{Pooling: MeanPooling(), Scaling: ScaleNone})
		}, false},
	} {
		s := DefaultSearch()
		c.mod(&s)
		err := s.Validate()
		if c.ok {
			assert.NoError(t, err, c.name)
		} else {
			assert.ErrorIs(t, err, ErrBadInput, c.name)
		}
	}
}

// oneSetting makes s's grid a single setting.
func oneSetting(s *Search) {
	s.Lambdas, s.Poolings, s.Scalings = []float64{0.01}, []Pooling{MaxPooling()}, []Scaling{ScaleAuto}
}

// TestEnsembleCandidatesCap: 20 settings have sum_{k=2..6} C(20, k) =
// 190 + 1140 + 4845 + 15504 + 38760 = 60439 ensembles of 2 to 6, within
// MaxEnsembleCandidates, and 60439 + C(20, 7) = 60439 + 77520 = 137959 of
// 2 to 7, above it: the count goes on past half the cap, and Validate
// accepts size 6 and refuses size 7. (No grid has exactly the cap: C(n, 2)
// alone passes it from n = 448, and no n below gives a partial sum of
// exactly 100000.)
func TestEnsembleCandidatesCap(t *testing.T) {
	assert.Equal(t, 60439.0, ensembleCandidates(20, 6))
	assert.Greater(t, ensembleCandidates(20, 7), float64(MaxEnsembleCandidates))
	s := DefaultSearch()
	s.Lambdas = make([]float64, 20)
	for i := range s.Lambdas {
		s.Lambdas[i] = math.Ldexp(1, -i)
	}
	s.Poolings = []Pooling{MaxPooling()}
	s.Scalings = []Scaling{ScaleAuto}
	s.EnsembleSize = 6
	require.NoError(t, s.Validate())
	s.EnsembleSize = 7
	err := s.Validate()
	require.ErrorIs(t, err, ErrBadInput)
	assert.Contains(t, err.Error(), "the grid's 20 settings are 1.38e+05 candidates")
}
