package mil

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// columnStats returns the mean and population std of each column of d by
// plain two-pass loops over Row.
func columnStats(d *Dataset) (mean, std []float64) {
	cols, n := d.NumFeatures(), d.NumInstances()
	x := naiveMatrix(d)
	mean, std = make([]float64, cols), make([]float64, cols)
	for j := range cols {
		for i := range n {
			mean[j] += x[i*cols+j]
		}
		mean[j] /= float64(n)
		for i := range n {
			std[j] += (x[i*cols+j] - mean[j]) * (x[i*cols+j] - mean[j])
		}
		std[j] = math.Sqrt(std[j] / float64(n))
	}
	return mean, std
}

func TestScalerDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	d := randomDataset(t, rng, 50, 6, 8, 0.7)
	// Make column 2 constant and column 5 all zero.
	for i := range d.NumInstances() {
		d.m.dense[i*8+2] = 3.5
		d.m.dense[i*8+5] = 0
	}
	train, _ := d.Subset([]int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 30, 31, 32, 40})
	test, _ := d.Subset([]int{1, 3, 5, 49})
	s := FitScaler(train)
	mean, std := columnStats(train)
	n := train.NumInstances()
	for j := range 8 {
		if j == 2 || j == 5 {
			if s.Mean[j] != 0 || s.Scale[j] != 1 {
				t.Errorf("constant column %d: mean %v scale %v, want 0, 1", j, s.Mean[j], s.Scale[j])
			}
			continue
		}
		// Same two-pass algorithm, summed in the same order: equal up to
		// the rounding of the final sqrt and division.
		if !near(s.Mean[j], mean[j], 1e-15*math.Abs(mean[j])+1e-300) || !near(s.Scale[j], std[j], 4e-16*std[j]*float64(n)) {
			t.Errorf("column %d: mean %v scale %v, want %v %v", j, s.Mean[j], s.Scale[j], mean[j], std[j])
		}
	}
	tr, err := s.Apply(train)
	if err != nil {
		t.Fatal(err)
	}
	m2, s2 := columnStats(tr)
	for j := range 8 {
		if j == 2 {
			if m2[j] != 3.5 || s2[j] != 0 {
				t.Errorf("constant column changed: %v %v", m2[j], s2[j])
			}
			continue
		}
		if j == 5 {
			continue
		}
		// Mean of n values of size ~1: n*eps; std likewise.
		if !near(m2[j], 0, float64(n)*1e-15) || !near(s2[j], 1, float64(n)*1e-15) {
			t.Errorf("scaled column %d: mean %v std %v", j, m2[j], s2[j])
		}
	}
	// The test set is scaled with the training statistics, elementwise.
	te, err := s.Apply(test)
	if err != nil {
		t.Fatal(err)
	}
	raw, got := make([]float64, 8), make([]float64, 8)
	for i := range test.NumInstances() {
		test.Row(raw, i)
		te.Row(got, i)
		for j := range 8 {
			if want := (raw[j] - s.Mean[j]) / s.Scale[j]; got[j] != want {
				t.Fatalf("test row %d col %d: %v want %v", i, j, got[j], want)
			}
		}
		if te.InstanceID(i) != test.InstanceID(i) {
			t.Fatal("ids not carried")
		}
	}
	if te.NumBags() != 4 || te.Labels()[3] != test.Labels()[3] {
		t.Error("bags not carried")
	}
}

func TestScalerSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	d := randomDataset(t, rng, 40, 6, 10, 0.2).Convert(Sparse)
	s := FitScaler(d)
	_, std := columnStats(d)
	for j := range 10 {
		if s.Mean[j] != 0 {
			t.Errorf("sparse data centered: mean[%d] = %v", j, s.Mean[j])
		}
		want := std[j]
		if want == 0 {
			want = 1
		}
		if !near(s.Scale[j], want, 1e-13*want) {
			t.Errorf("column %d: scale %v want %v", j, s.Scale[j], want)
		}
	}
	sc, err := s.Apply(d)
	if err != nil {
		t.Fatal(err)
	}
	if !sc.IsSparse() || sc.NNZ() != d.NNZ() {
		t.Errorf("sparsity lost: sparse %v nnz %d vs %d", sc.IsSparse(), sc.NNZ(), d.NNZ())
	}
	_, s2 := columnStats(sc)
	for j := range 10 {
		if std[j] > 0 && !near(s2[j], 1, 1e-13) {
			t.Errorf("scaled column %d has std %v", j, s2[j])
		}
	}
	// A centering scaler refuses sparse data, and accepts it made dense.
	dense := FitScaler(d.Convert(Dense))
	if _, err := dense.Apply(d); err == nil || !strings.Contains(err.Error(), "dense") {
		t.Errorf("centering sparse data: %v", err)
	}
	if _, err := dense.Apply(d.Convert(Dense)); err != nil {
		t.Error(err)
	}
}

// A sparse column with no implicit zero that is constant is left alone; one
// mixing stored values with implicit zeros is not constant.
func TestScalerSparseConstantColumns(t *testing.T) {
	// Column 0: 2 everywhere (stored); column 1: 2 then implicit zeros.
	d, err := NewSparse([]int{0, 2, 3, 4}, []int32{0, 1, 0, 0}, []float64{2, 2, 2, 2}, 2, []int{0, 1, 3}, []float64{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	s := FitScaler(d)
	// Column 1 holds 2, 0, 0: mean 2/3, population std sqrt(8/9).
	if s.Scale[0] != 1 || !near(s.Scale[1], math.Sqrt(8.0/9), 1e-15) {
		t.Errorf("scales %v", s.Scale)
	}
}

func TestScalerRawCoefficients(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	d := randomDataset(t, rng, 20, 4, 6, 1)
	s := FitScaler(d)
	sc, _ := s.Apply(d)
	beta, beta0 := randVec(rng, 6), 0.3
	raw := make([]float64, 6)
	bias := s.ToRaw(raw, beta, beta0)
	t1, t2 := make([]float64, d.NumInstances()), make([]float64, d.NumInstances())
	sc.MulVec(t1, beta, beta0)
	d.MulVec(t2, raw, bias)
	for i := range t1 {
		// Both sides are sums of ~7 terms whose size is bounded by the
		// magnitude of the raw products; allow a few hundred roundings of
		// the largest term (features reach e^±6 in randomDataset).
		if !near(t1[i], t2[i], 1e-10*(1+math.Abs(t1[i]))) {
			t.Fatalf("instance %d: scaled model %v, raw model %v", i, t1[i], t2[i])
		}
	}
	back := make([]float64, 6)
	b0 := s.FromRaw(back, raw, bias)
	for j := range beta {
		if !near(back[j], beta[j], 1e-15*math.Abs(beta[j])) {
			t.Errorf("FromRaw(ToRaw) coefficient %d: %v, want %v", j, back[j], beta[j])
		}
	}
	if !near(b0, beta0, 1e-12) {
		t.Errorf("FromRaw(ToRaw) bias %v, want %v", b0, beta0)
	}
	// In place.
	cp := append([]float64(nil), beta...)
	if s.ToRaw(cp, cp, beta0) != bias || cp[3] != raw[3] {
		t.Error("ToRaw in place differs")
	}
}

func TestScalerErrors(t *testing.T) {
	d := randomDataset(t, rand.New(rand.NewPCG(1, 1)), 3, 2, 4, 1)
	for _, s := range []*Scaler{
		{Mean: make([]float64, 3), Scale: []float64{1, 1, 1}},
		{Mean: make([]float64, 4), Scale: []float64{1, 0, 1, 1}},
		{Mean: []float64{0, math.NaN(), 0, 0}, Scale: []float64{1, 1, 1, 1}},
		{Mean: make([]float64, 4), Scale: []float64{1, 1, math.Inf(1), 1}},
		{Mean: make([]float64, 4), Scale: []float64{1, 1, 1e-320, 1}}, // overflows
	} {
		if out, err := s.Apply(d); err == nil || out != nil {
			t.Errorf("%+v: no error", s)
		}
	}
}
