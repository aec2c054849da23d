package mil

import (
	"math"
	"math/rand/v2"
)

// SynthConfig describes a synthetic multi-instance data set with a planted
// max rule (see Synthetic). Zero values of the fields marked so select
// defaults.
type SynthConfig struct {
	Bags     int // number of bags, >= 2
	Features int // features per instance, >= 1
	// MinInstances and MaxInstances bound the bag sizes, drawn uniformly
	// from [MinInstances, MaxInstances]; 1 <= MinInstances <= MaxInstances.
	MinInstances, MaxInstances int
	// Relevant is the number of non-zero coefficients of the planted rule,
	// 1 <= Relevant <= Features; 0 means min(5, Features).
	Relevant int
	// Witnesses is the number of witness instances in each positive bag,
	// 1 <= Witnesses <= MinInstances; 0 means 1.
	Witnesses int
	// PositiveFraction is the probability that a bag is positive, in
	// (0, 1); 0 means 0.5. At least one bag of each class is guaranteed.
	PositiveFraction float64
	// Margin is the gap between witness and non-witness scores, finite
	// and > 0; 0 means the default 1 (for a near-zero gap, pass a tiny
	// positive Margin).
	Margin float64
	// Density is the fraction of non-zero values among the irrelevant
	// features, in (0, 1]; 0 means 1 (dense storage). Below
	// DefaultSparseDensity the data set is stored sparse.
	Density float64
	// Seed makes the data set deterministic.
	Seed uint64
}

// SynthTruth is the planted rule of a synthetic data set.
type SynthTruth struct {
	// Beta (unit norm, Relevant non-zeros) and Beta0 = 0 are the planted
	// coefficients: a bag is positive iff max_j x_j . Beta + Beta0 > 0.
	Beta  []float64
	Beta0 float64
	// Witness[i] reports whether instance i (dataset order) is a witness:
	// the instances with positive planted score, all in positive bags.
	Witness []bool
}

// Synthetic returns a data set whose bag labels follow a planted max rule:
// instance features are standard normal (irrelevant features non-zero with
// probability Density), then each instance's component along the unit
// vector Beta is moved so that its score s = x . Beta becomes
// |s| + Margin/2 for the Witnesses chosen instances of each positive bag
// and -(|s| + Margin/2) for every other instance. A bag is thus positive
// exactly when one of its instances scores above 0, with a gap of Margin
// between witnesses and the rest. It returns an error wrapping ErrBadInput
// for a configuration outside the documented ranges, and one also wrapping
// ErrTooLarge, before allocating, when Features exceeds DefaultMaxFeatures
// or Bags*MaxInstances*Features exceeds DefaultMaxDenseCells (the
// instances are drawn dense).
func Synthetic(cfg SynthConfig) (*Dataset, *SynthTruth, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	truth := &SynthTruth{}
	support := truth.plant(rng, &cfg)
	labels, bagPtr := synthBags(rng, &cfg)
	truth.Witness = synthWitnesses(rng, &cfg, labels, bagPtr)
	x := truth.instances(rng, &cfg, support)
	d, err := NewDense(x, cfg.Features, bagPtr, labels)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Density < DefaultSparseDensity {
		d, err = d.Convert(Sparse)
	}
	return d, truth, err
}

// withDefaults returns cfg with the zero values that mean "default"
// filled in.
func (cfg SynthConfig) withDefaults() SynthConfig {
	if cfg.Relevant == 0 {
		cfg.Relevant = min(5, cfg.Features)
	}
	if cfg.Witnesses == 0 {
		cfg.Witnesses = 1
	}
	if cfg.PositiveFraction == 0 {
		cfg.PositiveFraction = 0.5
	}
	if cfg.Margin == 0 {
		cfg.Margin = 1
	}
	if cfg.Density == 0 {
		cfg.Density = 1
	}
	return cfg
}

// validate reports the first field of cfg (defaults filled in) outside
// its documented range.
func (cfg *SynthConfig) validate() error {
	switch {
	case cfg.Bags < 2:
		return badInput("Synthetic: Bags = %d, want >= 2", cfg.Bags)
	case cfg.Features < 1:
		return badInput("Synthetic: Features = %d, want >= 1", cfg.Features)
	case cfg.MinInstances < 1 || cfg.MaxInstances < cfg.MinInstances:
		return badInput("Synthetic: bag sizes [%d, %d], want 1 <= min <= max", cfg.MinInstances, cfg.MaxInstances)
	case cfg.Relevant < 1 || cfg.Relevant > cfg.Features:
		return badInput("Synthetic: Relevant = %d, want in [1, %d]", cfg.Relevant, cfg.Features)
	case cfg.Witnesses < 1 || cfg.Witnesses > cfg.MinInstances:
		return badInput("Synthetic: Witnesses = %d, want in [1, MinInstances = %d]", cfg.Witnesses, cfg.MinInstances)
	case !(cfg.PositiveFraction > 0 && cfg.PositiveFraction < 1):
		return badInput("Synthetic: PositiveFraction = %g, want in (0, 1)", cfg.PositiveFraction)
	case !(cfg.Margin > 0) || math.IsInf(cfg.Margin, 0):
		return badInput("Synthetic: Margin = %g, want finite and > 0 (0 selects 1)", cfg.Margin)
	case !(cfg.Density > 0 && cfg.Density <= 1):
		return badInput("Synthetic: Density = %g, want in (0, 1]", cfg.Density)
	case cfg.Features > DefaultMaxFeatures:
		return tooLarge("Synthetic: Features = %d exceeds DefaultMaxFeatures = %d", cfg.Features, DefaultMaxFeatures)
	case float64(cfg.Bags)*float64(cfg.MaxInstances)*float64(cfg.Features) > DefaultMaxDenseCells:
		// The instances are drawn dense (then converted when sparse):
		// Bags*MaxInstances rows bound them before the sizes are drawn.
		return tooLarge("Synthetic: %d bags of up to %d instances of %d features are up to %.4g values, above DefaultMaxDenseCells = %d",
			cfg.Bags, cfg.MaxInstances, cfg.Features, float64(cfg.Bags)*float64(cfg.MaxInstances)*float64(cfg.Features), DefaultMaxDenseCells)
	}
	return nil
}

// plant draws the planted rule into t.Beta: Relevant random features with
// random signs and magnitudes in [0.5, 1.5), normalized. It returns the
// features drawn (the support of Beta).
func (t *SynthTruth) plant(rng *rand.Rand, cfg *SynthConfig) (support []int) {
	t.Beta = make([]float64, cfg.Features)
	support = rng.Perm(cfg.Features)[:cfg.Relevant]
	for _, j := range support {
		v := 0.5 + rng.Float64()
		if rng.IntN(2) == 0 {
			v = -v
		}
		t.Beta[j] = v
	}
	norm := 0.0
	for _, j := range support {
		norm += t.Beta[j] * t.Beta[j]
	}
	norm = math.Sqrt(norm)
	for _, j := range support {
		t.Beta[j] /= norm
	}
	return support
}

// synthBags draws the bag labels (the first bag positive, the second
// negative) and the bag sizes, as bag pointers.
func synthBags(rng *rand.Rand, cfg *SynthConfig) (labels []float64, bagPtr []int) {
	labels = make([]float64, cfg.Bags)
	for k := range labels {
		if rng.Float64() < cfg.PositiveFraction {
			labels[k] = 1
		}
	}
	labels[0], labels[1] = 1, 0 // both classes present

	bagPtr = make([]int, cfg.Bags+1)
	for k := range cfg.Bags {
		bagPtr[k+1] = bagPtr[k] + cfg.MinInstances + rng.IntN(cfg.MaxInstances-cfg.MinInstances+1)
	}
	return labels, bagPtr
}

// synthWitnesses draws the Witnesses witness instances of every positive
// bag.
func synthWitnesses(rng *rand.Rand, cfg *SynthConfig, labels []float64, bagPtr []int) []bool {
	witness := make([]bool, bagPtr[cfg.Bags])
	for k := range cfg.Bags {
		if labels[k] == 1 {
			n := bagPtr[k+1] - bagPtr[k]
			for _, j := range rng.Perm(n)[:cfg.Witnesses] {
				witness[bagPtr[k]+j] = true
			}
		}
	}
	return witness
}

// instances draws the features of every instance (row-major, len(t.Witness)
// rows) and moves each along Beta to its planted score (see Synthetic).
func (t *SynthTruth) instances(rng *rand.Rand, cfg *SynthConfig, support []int) []float64 {
	ni, nf := len(t.Witness), cfg.Features
	x := make([]float64, ni*nf)
	for i := range ni {
		row := x[i*nf : (i+1)*nf]
		for j := range row {
			if cfg.Density == 1 || t.Beta[j] != 0 || rng.Float64() < cfg.Density {
				row[j] = rng.NormFloat64()
			}
		}
		s := 0.0
		for _, j := range support {
			s += row[j] * t.Beta[j]
		}
		target := -(math.Abs(s) + cfg.Margin/2)
		if t.Witness[i] {
			target = -target
		}
		for _, j := range support { // x += (target - s)*Beta, Beta unit norm
			row[j] += (target - s) * t.Beta[j]
		}
	}
	return x
}
