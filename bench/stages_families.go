package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// stagesFamily is an instance family of the stages command: the
// protocol's two (gauss, rademacher, as in the onebit command) and three
// on which Recover's defaults were not tuned, each drawn by its own
// ChaCha8 stream keyed by its name and the instance's seed.
type stagesFamily struct {
	name, what string
	// code makes the family part of every instance's seed, so that an
	// instance is the same whatever other families run.
	code int
}

var stagesFamilies = []stagesFamily{
	{"gauss", "onebit.Generate: N(0,1) Φ and non-zeros", 1},
	{"rademacher", "the onebit command's independent generator: ±1/√M Φ, magnitudes uniform in [0.2, 1]", 2},
	{"student", "heavy-tailed Φ: i.i.d. Student-t entries with 3 degrees of freedom; N(0,1) non-zeros", 3},
	{"ar1", "column-correlated Φ: each row an AR(1) sequence across the columns, ρ = 0.5, N(0,1) marginals; N(0,1) non-zeros", 4},
	{"power", "compressible signal: N(0,1) Φ, every coordinate non-zero, the r-th largest of magnitude r^-1.5 (K unused; " +
		"the error is measured against the whole signal)", 5},
}

// ar1Rho is the correlation of neighbouring columns in the ar1 family.
const ar1Rho = 0.5

// powerDecay is the exponent of the power family's magnitudes r^-powerDecay:
// the 10 largest hold 99.6% of the energy, so the best 10-sparse
// approximation is 0.02 (arccos/π) from the signal.
const powerDecay = 1.5

// lookupStagesFamily returns the named family.
func lookupStagesFamily(name string) (stagesFamily, bool) {
	i := slices.IndexFunc(stagesFamilies, func(f stagesFamily) bool { return f.name == name })
	if i < 0 {
		return stagesFamily{}, false
	}
	return stagesFamilies[i], true
}

// genStagesInstance draws one instance of the named family with k
// non-zeros (but for power), the signs of Φx flipped with probability
// flip by a separate stream.
func genStagesInstance(fam string, m, n, k int, flip float64, seed uint64) (*recInstance, error) {
	switch fam {
	case "gauss", "rademacher":
		return genInstance(recFamily{fam, k}, m, n, flip, seed)
	case "student", "ar1", "power":
	default:
		return nil, fmt.Errorf("unknown family %q", fam)
	}
	var key [32]byte
	copy(key[:], "onebit-bench-stages-"+fam)
	binary.LittleEndian.PutUint64(key[24:], seed)
	r := rand.New(rand.NewChaCha8(key))
	in := &recInstance{phi: make([]float64, m*n), x: make([]float64, n), y: make([]float64, m)}
	switch fam {
	case "student":
		for i := range in.phi {
			in.phi[i] = studentT3(r)
		}
		sparseSignal(r, in.x, k)
	case "ar1":
		c := math.Sqrt(1 - ar1Rho*ar1Rho)
		for i := range m {
			row := in.phi[i*n : (i+1)*n]
			row[0] = r.NormFloat64()
			for j := 1; j < n; j++ {
				row[j] = ar1Rho*row[j-1] + c*r.NormFloat64()
			}
		}
		sparseSignal(r, in.x, k)
	case "power":
		for i := range in.phi {
			in.phi[i] = r.NormFloat64()
		}
		for rank, j := range r.Perm(n) {
			v := math.Pow(float64(rank+1), -powerDecay)
			if r.Uint64()&1 == 1 {
				v = -v
			}
			in.x[j] = v
		}
	}
	ss := 0.0
	for _, v := range in.x {
		ss += v * v
	}
	for j := range in.x {
		in.x[j] /= math.Sqrt(ss)
	}
	fr := rand.New(rand.NewPCG(seed, 0x666c6970)) // "flip"
	for i := range in.y {
		a := 0.0
		for j, v := range in.x {
			if v != 0 {
				a += in.phi[i*n+j] * v
			}
		}
		in.y[i] = 1
		if a < 0 {
			in.y[i] = -1
		}
		if flip > 0 && fr.Float64() < flip {
			in.y[i] = -in.y[i]
		}
	}
	return in, nil
}

// studentT3 draws a Student-t variate with 3 degrees of freedom:
// Z/sqrt(V/3), V chi-squared with 3 degrees of freedom.
func studentT3(r *rand.Rand) float64 {
	z := r.NormFloat64()
	v := 0.0
	for range 3 {
		g := r.NormFloat64()
		v += g * g
	}
	return z / math.Sqrt(v/3)
}

// sparseSignal writes k N(0,1) values at k distinct random coordinates of
// x (zero elsewhere; a draw of all zeros, probability 0, is redrawn).
func sparseSignal(r *rand.Rand, x []float64, k int) {
	for {
		clear(x)
		nz := false
		for _, j := range r.Perm(len(x))[:k] {
			x[j] = r.NormFloat64()
			nz = nz || x[j] != 0
		}
		if nz {
			return
		}
	}
}
