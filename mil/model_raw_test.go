package mil

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawBag* tests: ScoreBag and its kin on bags given as arrays, against the
// dataset methods on the same bags.

// poolingsUnderTest holds every pooling kind, with parameters that make
// top-k and top-fraction differ from the max and the mean on bags of a
// few instances.
var poolingsUnderTest = []Pooling{MaxPooling(), MeanPooling(), TopKPooling(2), TopFracPooling(0.3), FeatureMaxPooling(), FeatureMeanMaxPooling()}

// randomModels returns a model of nf random coefficients (a third of them
// 0; FeatureMeanMaxPooling's bag coefficients, 2nf, so) for every pooling
// of poolingsUnderTest, then their ensemble, named by pooling ("ensemble"
// last).
func randomModels(t testing.TB, rng *rand.Rand, nf int) ([]*Model, []string) {
	var ms []*Model
	var names []string
	for _, p := range poolingsUnderTest {
		coef := make([]float64, nf*p.width())
		for j := range coef {
			if rng.IntN(3) > 0 {
				coef[j] = rng.NormFloat64()
			}
		}
		ms = append(ms, modelOf(p, coef, nf, rng.NormFloat64()))
		names = append(names, p.String())
	}
	e, err := Ensemble(ms...)
	require.NoError(t, err)
	return append(ms, e), append(names, "ensemble")
}

// modelOf returns the model of pooling p on nf features with the
// coefficients coef (nf*p.width() of them, as a model file holds them)
// and the bias beta0.
func modelOf(p Pooling, coef []float64, nf int, beta0 float64) *Model {
	m := &Model{beta: coef, beta0: beta0, opt: Options{Pooling: p}}
	if p.width() > 1 {
		m.bag, m.beta = coef, instanceCoefficients(coef, nf)
	}
	return m
}

// bagArrays returns bag k of d as a dense row-major array and in CSR form
// (the non-zeros of each row).
func bagArrays(d *Dataset, k int) (x []float64, rowptr []int, colidx []int32, values []float64) {
	a, b := d.BagRange(k)
	nf := d.NumFeatures()
	x = make([]float64, (b-a)*nf)
	rowptr = []int{0}
	for i := a; i < b; i++ {
		row := x[(i-a)*nf : (i-a+1)*nf]
		_ = d.Row(row, i)
		for j, v := range row {
			if v != 0 {
				colidx, values = append(colidx, int32(j)), append(values, v)
			}
		}
		rowptr = append(rowptr, len(values))
	}
	return x, rowptr, colidx, values
}

// scoreScale returns max_i sum_j |x_ij beta_j| + |beta0| over the rows of
// the dense bag x for the largest |coefficient| of m or its parts: the
// scale of the rounding of its instance scores.
func scoreScale(m *Model, x []float64) float64 {
	ms := []*Model{m}
	if len(m.parts) > 0 {
		ms = m.parts
	}
	nf := m.NumFeatures()
	s := 0.0
	for _, p := range ms {
		for i := 0; i < len(x); i += nf {
			r := math.Abs(p.beta0)
			for j, v := range x[i : i+nf] {
				r += math.Abs(v * p.beta[j])
			}
			s = max(s, r)
		}
	}
	return s
}

// TestRawBagMatchesBagScores checks the documented agreement on every bag
// of fox (stored dense) and vaccine (stored sparse), for every pooling and
// an ensemble: ScoreBag and ScoreSparseBag give the bits BagScores gives
// the bag in a dataset of its own (built without labels), ScoreSparseBag
// those of the whole sparse dataset, ScoreBag those of the whole dense
// dataset under the poolings of bag features (FeatureMaxPooling,
// FeatureMeanMaxPooling) and within rounding otherwise; the
// witnesses are WitnessesTo's.
func TestRawBagMatchesBagScores(t *testing.T) {
	for _, file := range []string{"fox.csv", "vaccine.svm"} {
		d, err := LoadFile(datadir.File(t, file), nil)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(7, uint64(len(file))))
		models, names := randomModels(t, rng, d.NumFeatures())
		for mi, m := range models {
			full, err := m.BagScores(d)
			require.NoError(t, err)
			wit, err := m.Witnesses(d)
			require.NoError(t, err)
			for k := range d.NumBags() {
				x, rowptr, colidx, values := bagArrays(d, k)
				n := len(rowptr) - 1
				where := func(what string) string { return file + " " + names[mi] + " bag " + strconv.Itoa(k) + ": " + what }

				sd, err := m.ScoreBag(x)
				require.NoError(t, err, where("ScoreBag"))
				ss, err := m.ScoreSparseBag(rowptr, colidx, values)
				require.NoError(t, err, where("ScoreSparseBag"))
				wd, err := m.WitnessBag(x)
				require.NoError(t, err, where("WitnessBag"))
				ws, err := m.WitnessSparseBag(rowptr, colidx, values)
				require.NoError(t, err, where("WitnessSparseBag"))

				oneDense, err := NewDense(append([]float64(nil), x...), d.NumFeatures(), []int{0, n}, nil)
				require.NoError(t, err)
				oneSparse, err := NewSparse(rowptr, colidx, values, d.NumFeatures(), []int{0, n}, nil)
				require.NoError(t, err)
				for _, c := range []struct {
					one      *Dataset
					sc       float64
					wi       int
					kind     string
					sameBits bool // as the whole dataset's score
				}{
					{oneDense, sd, wd, "dense", !d.IsSparse() && (m.Pooling().Kind == PoolFeatureMax || m.Pooling().Kind == PoolFeatureMeanMax) && len(m.parts) == 0},
					{oneSparse, ss, ws, "sparse", d.IsSparse()},
				} {
					s1, err := m.BagScores(c.one)
					require.NoError(t, err)
					w1, err := m.Witnesses(c.one)
					require.NoError(t, err)
					if math.Float64bits(s1[0]) != math.Float64bits(c.sc) || w1[0] != c.wi {
						t.Fatalf("%s: score %v witness %d, one-bag dataset %v %d", where(c.kind), c.sc, c.wi, s1[0], w1[0])
					}
					if c.sameBits && math.Float64bits(c.sc) != math.Float64bits(full[k]) {
						t.Fatalf("%s: score %v, BagScores %v", where(c.kind), c.sc, full[k])
					}
					if tol := 1e-12 * (1 + scoreScale(m, x)); math.Abs(c.sc-full[k]) > tol {
						t.Fatalf("%s: score %v, BagScores %v (tolerance %g)", where(c.kind), c.sc, full[k], tol)
					}
				}
				if a, _ := d.BagRange(k); d.IsSparse() && ws != wit[k]-a {
					t.Fatalf("%s: witness %d, Witnesses %d", where("sparse"), ws, wit[k]-a)
				}
			}
		}
	}
}

// TestRawBagErrors: arguments that do not make a bag, non-finite
// features (for every pooling: each kind's path must look at them) and
// overflowing scores are errors wrapping ErrBadInput, with NaN scores and
// witnesses -1.
func TestRawBagErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	models, names := randomModels(t, rng, 3)
	var nilModel *Model
	x := []float64{1, 2, 3, 4, 5, 6}
	for _, c := range []struct {
		name string
		m    *Model
		x    []float64
		csr  [3]any // rowptr, colidx, values
		msg  string
	}{
		{"nil model", nilModel, x, [3]any{[]int{0, 1}, []int32{0}, []float64{1}}, "nil model"},
		{"zero model", &Model{}, x, [3]any{[]int{0, 1}, []int32{0}, []float64{1}}, "a Model without coefficients"},
		{"empty", models[0], nil, [3]any{[]int{0}, []int32{}, []float64{}}, "len("},
		{"length", models[0], x[:4], [3]any{[]int{0, 2}, []int32{0}, []float64{1}}, ""},
		{"column", models[0], x[:5], [3]any{[]int{0, 1}, []int32{3}, []float64{1}}, ""},
		{"order", models[0], x[:1], [3]any{[]int{0, 2}, []int32{1, 1}, []float64{1, 2}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.m.ScoreBag(c.x)
			requireBadInput(t, err, false, "Model.ScoreBag: "+c.msg)
			assert.True(t, math.IsNaN(s))
			w, err := c.m.WitnessBag(c.x)
			requireBadInput(t, err, false, "Model.WitnessBag: "+c.msg)
			assert.Equal(t, -1, w)
			rowptr, colidx, values := c.csr[0].([]int), c.csr[1].([]int32), c.csr[2].([]float64)
			s, err = c.m.ScoreSparseBag(rowptr, colidx, values)
			requireBadInput(t, err, false, "Model.ScoreSparseBag: "+c.msg)
			assert.True(t, math.IsNaN(s))
			w, err = c.m.WitnessSparseBag(rowptr, colidx, values)
			requireBadInput(t, err, false, "Model.WitnessSparseBag: "+c.msg)
			assert.Equal(t, -1, w)
		})
	}
	for mi, m := range models {
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			for pos := range x {
				bad := append([]float64(nil), x...)
				bad[pos] = v
				want := "instance " + strconv.Itoa(pos/3) + " feature " + strconv.Itoa(pos%3) + " is "
				s, err := m.ScoreBag(bad)
				requireBadInput(t, err, false, want)
				assert.True(t, math.IsNaN(s), names[mi])
				w, err := m.WitnessBag(bad)
				requireBadInput(t, err, false, want)
				assert.Equal(t, -1, w, names[mi])
			}
			s, err := m.ScoreSparseBag([]int{0, 1, 2}, []int32{0, 2}, []float64{1, v})
			requireBadInput(t, err, false, "row 1 column 2 is ")
			assert.True(t, math.IsNaN(s), names[mi])
		}
	}
	// Finite features whose products overflow: the error of BagScoresTo,
	// a NaN score.
	var big []*Model
	for _, p := range poolingsUnderTest {
		big = append(big, modelOf(p, []float64{2, 2, 2, 2, 2, 2}[:3*p.width()], 3, 0))
	}
	e, err := Ensemble(big...)
	require.NoError(t, err)
	for _, m := range append(big, e) {
		s, err := m.ScoreBag([]float64{1e308, 1e308, 1e308})
		requireBadInput(t, err, false, "not finite")
		assert.True(t, math.IsNaN(s), m.Pooling().String())
		s, err = m.ScoreSparseBag([]int{0, 1}, []int32{2}, []float64{1e308})
		requireBadInput(t, err, false, "not finite")
		assert.True(t, math.IsNaN(s), m.Pooling().String())
	}
}

// TestRawBagAllocatesNothing: once warm, scoring a raw bag allocates
// nothing, for every pooling and an ensemble, dense and sparse.
func TestRawBagAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops pooled scratch")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	models, names := randomModels(t, rng, 5)
	// 7 instances (scratch on the stack) and 40 (pooled scratch).
	for _, n := range []int{7, 40} {
		x := make([]float64, 5*n)
		for i := range x {
			x[i] = float64(i%4) - 1
		}
		rowptr, colidx, values := []int{0}, []int32{}, []float64{}
		for i := range n {
			for j := range int32(i % 3) {
				colidx, values = append(colidx, 2*j), append(values, float64(i)-3)
			}
			rowptr = append(rowptr, len(values))
		}
		for mi, m := range models {
			for op, f := range map[string]func(){
				"ScoreBag":         func() { _, _ = m.ScoreBag(x) },
				"ScoreSparseBag":   func() { _, _ = m.ScoreSparseBag(rowptr, colidx, values) },
				"WitnessBag":       func() { _, _ = m.WitnessBag(x) },
				"WitnessSparseBag": func() { _, _ = m.WitnessSparseBag(rowptr, colidx, values) },
			} {
				f()
				assert.Zero(t, testing.AllocsPerRun(50, f), "%d instances: %s %s", n, names[mi], op)
			}
		}
	}
}

// TestRawBagConcurrent: goroutines scoring raw bags of different sizes
// with one model get the scores of a sequential run.
func TestRawBagConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	models, _ := randomModels(t, rng, 4)
	m := models[len(models)-1] // the ensemble: every pooling
	bags := make([][]float64, 40)
	want := make([]float64, len(bags))
	for k := range bags {
		bags[k] = make([]float64, 4*(1+k%9))
		for i := range bags[k] {
			bags[k][i] = rng.NormFloat64()
		}
		var err error
		want[k], err = m.ScoreBag(bags[k])
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	errs := make([]int, 8)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 200 {
				k := (g*31 + r) % len(bags)
				if s, err := m.ScoreBag(bags[k]); err != nil || s != want[k] {
					errs[g]++
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, make([]int, 8), errs, "mismatches per goroutine")
}

// Probability has the bits of BagProbabilities.
func TestProbability(t *testing.T) {
	d, err := NewDense([]float64{-40, -1, -1e-9, 0, 2, 30, 800}, 1, []int{0, 1, 2, 3, 4, 5, 6, 7}, nil)
	require.NoError(t, err)
	m := &Model{beta: []float64{1}}
	scores, err := m.BagScores(d)
	require.NoError(t, err)
	probs, err := m.BagProbabilities(d)
	require.NoError(t, err)
	for k, s := range scores {
		assert.Equal(t, math.Float64bits(probs[k]), math.Float64bits(Probability(s)), "score %v", s)
	}
	assert.True(t, math.IsNaN(Probability(math.NaN())))
}

// vaccineBag returns a model fitted to vaccine.svm with DefaultOptions
// and pooling p, and the first bag of seven instances.
func vaccineBag(b *testing.B, p Pooling) (*Model, *Dataset, int) {
	d, err := LoadFile(datadir.File(b, "vaccine.svm"), nil)
	require.NoError(b, err)
	o := DefaultOptions()
	o.Pooling = p
	m, err := Fit(context.Background(), d, o)
	require.NoError(b, err)
	for k := range d.NumBags() {
		if a, e := d.BagRange(k); e-a == 7 {
			return m, d, k
		}
	}
	b.Fatal("no bag of 7 instances")
	return nil, nil, 0
}

// benchPoolings are the models the raw-bag benchmarks score with: the
// default max pooling and the bag-level mean and max.
var benchPoolings = []Pooling{MaxPooling(), FeatureMeanMaxPooling()}

// BenchmarkScoreBagDense scores a raw vaccine bag of 7 instances given
// dense (7 x 234 values).
func BenchmarkScoreBagDense(b *testing.B) {
	for _, p := range benchPoolings {
		b.Run(p.String(), func(b *testing.B) {
			m, d, k := vaccineBag(b, p)
			x, _, _, _ := bagArrays(d, k)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.ScoreBag(x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScoreBagSparse scores the same bag given in CSR form.
func BenchmarkScoreBagSparse(b *testing.B) {
	for _, p := range benchPoolings {
		b.Run(p.String(), func(b *testing.B) {
			m, d, k := vaccineBag(b, p)
			_, rowptr, colidx, values := bagArrays(d, k)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.ScoreSparseBag(rowptr, colidx, values); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
