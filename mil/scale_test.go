package mil

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func fitScaler(t *testing.T, d *Dataset) *Scaler {
	t.Helper()
	s, err := FitScaler(context.Background(), d)
	require.NoError(t, err)
	return s
}

func apply(t *testing.T, s *Scaler, d *Dataset) *Dataset {
	t.Helper()
	out, err := s.Apply(context.Background(), d)
	require.NoError(t, err)
	return out
}

func TestScalerDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	d := randomDataset(t, rng, 50, 6, 8, 0.7)
	// Make column 2 constant and column 5 all zero.
	for i := range d.NumInstances() {
		d.m.dense[i*8+2] = 3.5
		d.m.dense[i*8+5] = 0
	}
	train, err := d.Subset([]int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 30, 31, 32, 40})
	require.NoError(t, err)
	test, err := d.Subset([]int{1, 3, 5, 49})
	require.NoError(t, err)
	s := fitScaler(t, train)
	mean, std := columnStats(train)
	n := train.NumInstances()
	for j := range 8 {
		if j == 2 || j == 5 {
			if s.Mean[j] != 0 || s.Scale[j] != 1 {
				t.Errorf("constant column %d: mean %v scale %v, want 0, 1", j, s.Mean[j], s.Scale[j])
			}
			continue
		}
		// The same two-pass algorithm on values scaled by a power of two
		// (exact), summed in the same order: equal up to the rounding of
		// the final sqrt and division.
		if !near(s.Mean[j], mean[j], 1e-15*math.Abs(mean[j])+1e-300) || !near(s.Scale[j], std[j], 4e-16*std[j]*float64(n)) {
			t.Errorf("column %d: mean %v scale %v, want %v %v", j, s.Mean[j], s.Scale[j], mean[j], std[j])
		}
	}
	tr := apply(t, s, train)
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
	te := apply(t, s, test)
	raw, got := make([]float64, 8), make([]float64, 8)
	for i := range test.NumInstances() {
		require.NoError(t, test.Row(raw, i))
		require.NoError(t, te.Row(got, i))
		for j := range 8 {
			if want := (raw[j] - s.Mean[j]) / s.Scale[j]; got[j] != want {
				t.Fatalf("test row %d col %d: %v want %v", i, j, got[j], want)
			}
		}
		require.Equal(t, test.InstanceID(i), te.InstanceID(i), "ids not carried")
	}
	assert.Equal(t, 4, te.NumBags())
	assert.Equal(t, test.Labels(), te.Labels())
}

func TestScalerSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	d := convert(t, randomDataset(t, rng, 40, 6, 10, 0.2), Sparse)
	s := fitScaler(t, d)
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
	sc := apply(t, s, d)
	assert.True(t, sc.IsSparse(), "sparsity lost")
	assert.Equal(t, d.NNZ(), sc.NNZ())
	_, s2 := columnStats(sc)
	for j := range 10 {
		if std[j] > 0 && !near(s2[j], 1, 1e-13) {
			t.Errorf("scaled column %d has std %v", j, s2[j])
		}
	}
	// A centering scaler refuses sparse data, and accepts it made dense.
	dense := fitScaler(t, convert(t, d, Dense))
	_, err := dense.Apply(context.Background(), d)
	requireBadInput(t, err, false, "convert it with Convert(Dense) first")
	apply(t, dense, convert(t, d, Dense))
}

// A sparse column with no implicit zero that is constant is left alone; one
// mixing stored values with implicit zeros is not constant.
func TestScalerSparseConstantColumns(t *testing.T) {
	// Column 0: 2 everywhere (stored); column 1: 2 then implicit zeros.
	d, err := NewSparse([]int{0, 2, 3, 4}, []int32{0, 1, 0, 0}, []float64{2, 2, 2, 2}, 2, []int{0, 1, 3}, []float64{1, 0})
	require.NoError(t, err)
	s := fitScaler(t, d)
	// Column 1 holds 2, 0, 0: mean 2/3, population std sqrt(8/9).
	assert.Equal(t, 1.0, s.Scale[0])
	assert.InDelta(t, math.Sqrt(8.0/9), s.Scale[1], 1e-15)
}

// scaled returns a copy of d with every value multiplied by 2^k, in d's
// storage.
func scaled(t *testing.T, d *Dataset, k int) *Dataset {
	t.Helper()
	x := naiveMatrix(d)
	for i := range x {
		x[i] = math.Ldexp(x[i], k)
	}
	out, err := NewDense(x, d.NumFeatures(), append([]int(nil), d.BagPtr()...), append([]float64(nil), d.Labels()...))
	require.NoError(t, err)
	if d.IsSparse() {
		out = convert(t, out, Sparse)
	}
	return out
}

// TestScalerTinyAndHugeColumns: columns with |x| < 1e-162 (whose
// variance would underflow, so ScaleAuto would drop them as constant) and
// |x| > 1e154 (whose variance would overflow) are standardized as any
// other: the statistics are computed on values scaled by a power of two,
// so a dataset multiplied by 2^k gets Mean and Scale multiplied by 2^k
// and the same standardized values, bit for bit.
func TestScalerTinyAndHugeColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	base := randomDataset(t, rng, 30, 5, 6, 0.8)
	for _, s := range []Storage{Dense, Sparse} {
		d := convert(t, base, s)
		ref := fitScaler(t, d)
		refOut := naiveMatrix(apply(t, ref, d))
		// 2^-600 = 2.4e-181 and 2^600 = 4.1e180 are beyond both bounds;
		// +-1000 is near the ends of float64 (values here reach 2^12).
		for _, k := range []int{-1000, -600, -540, 540, 600, 1000} {
			dk := scaled(t, d, k)
			sk := fitScaler(t, dk)
			for j := range sk.Scale {
				require.Equal(t, math.Ldexp(ref.Mean[j], k), sk.Mean[j], "%v 2^%d: mean %d", s, k, j)
				require.Equal(t, math.Ldexp(ref.Scale[j], k), sk.Scale[j], "%v 2^%d: scale %d", s, k, j)
				require.NotEqual(t, 1.0, sk.Scale[j], "%v 2^%d: column %d dropped", s, k, j)
			}
			assert.Equal(t, refOut, naiveMatrix(apply(t, sk, dk)), "%v 2^%d: standardized values differ", s, k)
		}
	}
}

// Values near ±MaxFloat64 give finite statistics, and Apply computes
// x - Mean that overflows as x/Scale - Mean/Scale.
func TestScalerExtremeValues(t *testing.T) {
	m := math.MaxFloat64
	d, err := NewDense([]float64{m, m, m, -m}, 1, []int{0, 2, 4}, []float64{1, 0})
	require.NoError(t, err)
	s := fitScaler(t, d)
	// Mean m/2, population std m*sqrt(3)/2.
	assert.InEpsilon(t, m/2, s.Mean[0], 1e-15)
	assert.InEpsilon(t, m/2*math.Sqrt(3), s.Scale[0], 1e-15)
	x := naiveMatrix(apply(t, s, d))
	want := []float64{1 / math.Sqrt(3), 1 / math.Sqrt(3), 1 / math.Sqrt(3), -math.Sqrt(3)}
	assert.InDeltaSlice(t, want, x, 1e-15)

	// Subnormal values: standardized, coarsely (the standard deviation
	// itself is a subnormal of few bits), not dropped.
	tiny := math.SmallestNonzeroFloat64
	d, err = NewDense([]float64{tiny, 2 * tiny, 3 * tiny, 3 * tiny}, 1, []int{0, 2, 4}, []float64{1, 0})
	require.NoError(t, err)
	s = fitScaler(t, d)
	assert.NotEqual(t, 1.0, s.Scale[0])
	x = naiveMatrix(apply(t, s, d))
	assert.Less(t, x[0], 0.0)
	assert.Greater(t, x[3], 0.0)

	// One subnormal among many zeros: the standard deviation underflows
	// to 0 even scaled; an error rather than a dropped column.
	v := make([]float64, 4096)
	v[0] = tiny
	d, err = NewDense(v, 1, []int{0, 4095, 4096}, []float64{1, 0})
	require.NoError(t, err)
	_, err = FitScaler(context.Background(), d)
	requireBadInput(t, err, false, "column 0 (values 0 to 5e-324) has a standard deviation below the smallest float64")
}

// TestFitInvariantToPowerOfTwoScaling: a fit on a dataset scaled by 2^-600
// (every |x| < 1e-162) or 2^600 gives the same bag scores as on the data
// itself: the standardized problem is the same, bit for bit.
func TestFitInvariantToPowerOfTwoScaling(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 60, MinInstances: 1, MaxInstances: 4, Features: 8, Seed: 3})
	require.NoError(t, err)
	opt := DefaultOptions()
	opt.MaxIter = 40
	fit := func(d *Dataset) []float64 {
		m, err := Fit(context.Background(), d, opt)
		require.NoError(t, err)
		sc, err := m.BagScores(d)
		require.NoError(t, err)
		return sc
	}
	want := fit(d)
	for _, k := range []int{-600, 600} {
		assert.Equal(t, want, fit(scaled(t, d, k)), "2^%d", k)
	}
}

func TestScalerRawCoefficients(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	d := randomDataset(t, rng, 20, 4, 6, 1)
	s := fitScaler(t, d)
	sc := apply(t, s, d)
	beta, beta0 := randVec(rng, 6), 0.3
	raw := make([]float64, 6)
	bias, err := s.ToRaw(raw, beta, beta0)
	require.NoError(t, err)
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
	b0, err := s.FromRaw(back, raw, bias)
	require.NoError(t, err)
	for j := range beta {
		if !near(back[j], beta[j], 1e-15*math.Abs(beta[j])) {
			t.Errorf("FromRaw(ToRaw) coefficient %d: %v, want %v", j, back[j], beta[j])
		}
	}
	assert.InDelta(t, beta0, b0, 1e-12, "FromRaw(ToRaw) bias")
	// In place.
	cp := append([]float64(nil), beta...)
	b1, err := s.ToRaw(cp, cp, beta0)
	require.NoError(t, err)
	assert.Equal(t, bias, b1)
	assert.Equal(t, raw[3], cp[3])
	// Length mismatches and a nil scaler are errors, dst untouched.
	short := []float64{9, 9}
	_, err = s.ToRaw(short, beta, 0)
	requireBadInput(t, err, false, "Scaler.ToRaw: len(dst) = 2, len(beta) = 6, scaler 6/6 columns")
	_, err = s.FromRaw(raw, short, 0)
	requireBadInput(t, err, false, "Scaler.FromRaw: len(dst) = 6, len(beta) = 2")
	assert.Equal(t, []float64{9, 9}, short)
	_, err = (*Scaler)(nil).ToRaw(raw, beta, 0)
	requireBadInput(t, err, false, "nil scaler")
}

func TestScalerErrors(t *testing.T) {
	ctx := context.Background()
	d := randomDataset(t, rand.New(rand.NewPCG(1, 1)), 3, 2, 4, 1)
	for _, s := range []*Scaler{
		nil,
		{},
		{Mean: make([]float64, 3), Scale: []float64{1, 1, 1}},
		{Mean: make([]float64, 4), Scale: []float64{1, 0, 1, 1}},
		{Mean: []float64{0, math.NaN(), 0, 0}, Scale: []float64{1, 1, 1, 1}},
		{Mean: make([]float64, 4), Scale: []float64{1, 1, math.Inf(1), 1}},
		{Mean: make([]float64, 4), Scale: []float64{1, 1, 1e-320, 1}}, // overflows
	} {
		var out *Dataset
		var err error
		noPanic(t, "Apply", func() { out, err = s.Apply(ctx, d) })
		assert.Nil(t, out)
		requireBadInput(t, err, false, "mil: Scaler.Apply: ")
	}
	s := fitScaler(t, d)
	_, err := s.Apply(ctx, nil)
	requireBadInput(t, err, false, "nil dataset")
	//lint:ignore SA1012 a nil context is the case tested
	_, err = s.Apply(nil, d)
	requireBadInput(t, err, false, "nil context")

	// FitScaler(nil) is an error, not a nil dereference.
	var sc *Scaler
	noPanic(t, "FitScaler(nil)", func() { sc, err = FitScaler(ctx, nil) })
	assert.Nil(t, sc)
	requireBadInput(t, err, false, "FitScaler: nil dataset")
	//lint:ignore SA1012 a nil context is the case tested
	_, err = FitScaler(nil, d)
	requireBadInput(t, err, false, "nil context")
}

// countdownCtx is a context whose Err turns to Canceled on its n-th call,
// to see that a pass checks it while it runs, not just on entry.
type countdownCtx struct {
	context.Context
	calls, n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.calls.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

func TestScalerContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 40))
	// 2000 x 100 = 200k values: three passes of FitScaler, one of Apply,
	// each about three ctx checks.
	for _, s := range []Storage{Dense, Sparse} {
		d := convert(t, randomDataset(t, rng, 400, 9, 100, 0.9), s)
		for n := int64(1); n <= 4; n++ {
			ctx := &countdownCtx{Context: context.Background()}
			ctx.n.Store(n)
			_, err := FitScaler(ctx, d)
			require.ErrorIs(t, err, context.Canceled, "%v: FitScaler, Canceled on check %d", s, n)
			assert.Equal(t, n, ctx.calls.Load())
		}
		sc := fitScaler(t, d)
		for n := int64(1); n <= 2; n++ {
			ctx := &countdownCtx{Context: context.Background()}
			ctx.n.Store(n)
			_, err := sc.Apply(ctx, d)
			require.ErrorIs(t, err, context.Canceled, "%v: Apply, Canceled on check %d", s, n)
		}
	}
	// An already-cancelled context returns at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := randomDataset(t, rng, 10, 3, 4, 1)
	start := time.Now()
	_, err := FitScaler(ctx, d)
	require.ErrorIs(t, err, context.Canceled)
	_, err = fitScaler(t, d).Apply(ctx, d)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), time.Second)
}

// A column whose largest magnitude is negative is scaled by that
// magnitude, not by its largest value: {-2^1000, 1, -1} has mean
// -2^1000/3 and population standard deviation 2^1000*sqrt(2)/3
// (deviations -2/3 and twice 1/3 of 2^1000, up to the 1s), whose squares
// overflow unless the column is scaled by 2^-1001. Its largest magnitude,
// which decides whether Fit may fold the scaling into the products, is
// 2^1000, beyond 2^foldMaxExp: Fit copies, as for {2^1000, 1, -1}.
func TestScalerNegativeDominatedColumn(t *testing.T) {
	big := math.Ldexp(1, 1000)
	for _, sign := range []float64{1, -1} {
		x := []float64{-big * sign, 0.5, 1, 0.25, -1, 2} // column 0: -big*sign, 1, -1
		d, err := NewDense(x, 2, []int{0, 2, 3}, []float64{1, 0})
		require.NoError(t, err)
		for _, dd := range []*Dataset{d, convert(t, d, Sparse)} {
			s := fitScaler(t, dd)
			if !dd.IsSparse() {
				assert.InEpsilon(t, -sign*big/3, s.Mean[0], 1e-15, "sign %v", sign)
			}
			// A few roundings of a sum of three terms and a square root.
			assert.InEpsilon(t, big*math.Sqrt2/3, s.Scale[0], 1e-15, "sign %v sparse %v", sign, dd.IsSparse())
			st, err := fitColumns(context.Background(), dd)
			require.NoError(t, err)
			assert.Equal(t, big, st.amax[0], "sign %v sparse %v", sign, dd.IsSparse())
			assert.False(t, foldable(st, !dd.IsSparse()), "sign %v sparse %v", sign, dd.IsSparse())
		}
	}
}

// Apply's overflow error names the instance and feature of the value, on
// sparse storage too, where the row is found from the entry's position:
// here the first entry of row 1 (rowptr [0 1 3]).
func TestScalerApplyOverflowNamesEntry(t *testing.T) {
	s := &Scaler{Mean: []float64{0, 0}, Scale: []float64{1e-10, 1}}
	d, err := NewSparse([]int{0, 1, 3}, []int32{1, 0, 1}, []float64{1, 1e300, 2}, 2, []int{0, 1, 2}, []float64{0, 1})
	require.NoError(t, err)
	_, err = s.Apply(context.Background(), d)
	requireBadInput(t, err, false, "instance 1 feature 0 scaled by 1e-10 overflows")
	_, err = s.Apply(context.Background(), convert(t, d, Dense))
	requireBadInput(t, err, false, "instance 1 feature 0 scaled by 1e-10 overflows")
}

// TestFitScalerFeaturesCapped: FitScaler on a dataset of MaxFeaturesLimit
// features (sparse, built with LoadOptions.MaxFeatures raised) is refused
// before its vectors over the features (about 120 GB) are allocated, as
// Fit refuses it; a child with 1 GiB of address space runs it.
func TestFitScalerFeaturesCapped(t *testing.T) {
	if !inChild(t, childBudget) {
		return
	}
	d, err := ReadSparse(strings.NewReader("a:1:1 2147483646:1\nb:2:0 1:1\n"), &LoadOptions{Storage: Sparse, MaxFeatures: MaxFeaturesLimit})
	require.NoError(t, err)
	s, err := FitScaler(context.Background(), d)
	assert.Nil(t, s)
	requireBadInput(t, err, true, "FitScaler: 2147483646 features need about 1.22e+11 bytes of column statistics, above DefaultMaxBytes = 2147483648")
	_, err = Fit(context.Background(), d, DefaultOptions())
	requireBadInput(t, err, true, "Options.MaxBytes")
	logPeak(t)
}
