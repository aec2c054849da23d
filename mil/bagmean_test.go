package mil

import (
	"context"
	"encoding/binary"
	"math"
	"math/big"
	"testing"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/neadmm/neadmm/neadmm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handMeans returns the bag means of d as a dense dataset of one-instance
// bags, correctly rounded (summed exactly in math/big: 4096 bits hold any
// sum of these data's values), the reference bagMeans is compared against.
func handMeans(t *testing.T, d *Dataset) *Dataset {
	t.Helper()
	nf, ptr := d.NumFeatures(), d.BagPtr()
	x := make([]float64, d.NumBags()*nf)
	row := make([]float64, nf)
	bp := make([]int, d.NumBags()+1)
	sum := make([]*big.Float, nf)
	for k := range d.NumBags() {
		bp[k+1] = k + 1
		for j := range sum {
			sum[j] = new(big.Float).SetPrec(4096)
		}
		for i := ptr[k]; i < ptr[k+1]; i++ {
			require.NoError(t, d.Row(row, i))
			for j, v := range row {
				sum[j].Add(sum[j], big.NewFloat(v))
			}
		}
		for j := range sum {
			x[k*nf+j], _ = sum[j].Quo(sum[j], big.NewFloat(float64(ptr[k+1]-ptr[k]))).Float64()
		}
	}
	md, err := NewDense(x, nf, bp, append([]float64(nil), d.Labels()...))
	require.NoError(t, err)
	return md
}

// summaryRows are three bags of 4 features for summaryCases: column 2 of
// bag 0 (-5 and two zeros) has zeros a sparse copy does not store.
var summaryRows = []float64{
	-1, 1, 0, 3,
	-2, 2, -5, 0,
	-3, 4, 0, 0, // bag 0: rows 0-2
	-4, -1, -7, -2,
	-5, 3, -6, -3, // bag 1: rows 3-4
	-6, 0, 0, -1, // bag 2: row 5
}

// summaryCase is a dataset for the tests of the bag summaries, with the
// index of each of its bags in the original (order).
type summaryCase struct {
	name  string
	d     *Dataset
	order []int
}

// summaryCases returns the bags of x (4 features; bag 0 rows 0-2, bag 1
// rows 3-4, bag 2 row 5; labels 0, 1, 1) dense and sparse, and their
// subset of bags 2, 0, 1 dense and sparse.
func summaryCases(t *testing.T, x []float64) []summaryCase {
	t.Helper()
	d0, err := NewDense(x, 4, []int{0, 3, 5, 6}, []float64{0, 1, 1})
	require.NoError(t, err)
	sub, err := d0.Subset([]int{2, 0, 1})
	require.NoError(t, err)
	return []summaryCase{
		{"dense", d0, []int{0, 1, 2}},
		{"sparse", convert(t, d0, Sparse), []int{0, 1, 2}},
		{"dense subset", sub, []int{2, 0, 1}},
		{"sparse subset", convert(t, sub, Sparse), []int{2, 0, 1}},
	}
}

// TestBagMeans: bagMeans against the plain sums (to rounding), dense and
// sparse and on a subset; a column constant on the instances is exactly
// constant on the means (the plain sum of 0.1/3 three times is not 0.1,
// and the scaling would then standardize its rounding into a feature);
// values near the largest float64 give finite means; zeros count in a
// sparse bag's mean.
func TestBagMeans(t *testing.T) {
	x := []float64{
		0.1, 1, 0, 3,
		0.1, 2, 5, 0,
		0.1, 4, 0, 0, // bag 0: rows 0-2
		0.1, -1, 7, math.MaxFloat64,
		0.1, 3, 7, math.MaxFloat64, // bag 1: rows 3-4
		0.1, 0, 0, -math.MaxFloat64, // bag 2: row 5
	}
	want := [][]float64{
		{0.1, 7.0 / 3, 5.0 / 3, 1},
		{0.1, 1, 7, math.MaxFloat64},
		{0.1, 0, 0, -math.MaxFloat64},
	}
	for _, tc := range summaryCases(t, x) {
		md, err := bagMeans(context.Background(), tc.d)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.d.NumBags(), md.NumBags(), tc.name)
		require.Equal(t, tc.d.NumBags(), md.NumInstances(), tc.name)
		assert.Equal(t, tc.d.IsSparse(), md.IsSparse(), tc.name)
		assert.Equal(t, tc.d.Labels(), md.Labels(), tc.name)
		row := make([]float64, 4)
		for k, b := range tc.order {
			assert.Equal(t, tc.d.BagID(k), md.BagID(k), tc.name)
			require.NoError(t, md.Row(row, k))
			assert.Equal(t, 0.1, row[0], "%s: bag %d: a constant column stays exactly constant", tc.name, b)
			for j := 1; j < 4; j++ {
				assert.InDelta(t, want[b][j], row[j], 4e-16*math.Max(1, math.Abs(want[b][j])), "%s: bag %d column %d", tc.name, b, j)
			}
		}
		st, err := fitColumns(context.Background(), md)
		require.NoError(t, err)
		assert.True(t, st.constant[0], "%s: the constant column is left out", tc.name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big, _, err := Synthetic(SynthConfig{Bags: 400, Features: 300, MinInstances: 2, MaxInstances: 4, Seed: 3})
	require.NoError(t, err)
	_, err = bagMeans(ctx, big)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestFitMeanIsBagMeanLR: a mean-pooling fit is L1 logistic regression on
// the bag means standardized over the bags, solved to its optimum. Fit
// with the mean on the bags agrees with Fit on the hand-made dataset of
// bag means (one instance per bag, standardized by ScaleAuto over the
// bags) to the rounding of the means: measured 1e-13 on the scores; 1e-9
// leaves margin, while the fit through the instances (neadmm.MeanProx,
// before) stopped 0.3% above the optimum and moved scores by 2%. Both
// reach the optimum of a long fit with a balanced penalty (objective
// within 1e-4 relative: measured 3e-6 on fox; the fit through the
// instances was 1e-3 above it).
func TestFitMeanIsBagMeanLR(t *testing.T) {
	fox, err := LoadFile(datadir.File(t, "fox.csv"), nil)
	require.NoError(t, err)
	syn, _, err := Synthetic(SynthConfig{Bags: 120, Features: 20, MinInstances: 1, MaxInstances: 9, Margin: 0.5, Seed: 81})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		d    *Dataset
		lam  float64
	}{{"fox", fox, 0.03}, {"synthetic", syn, 0.01}, {"synthetic sparse", convert(t, syn, Sparse), 0.01}} {
		md := handMeans(t, tc.d)
		opt := DefaultOptions()
		opt.Lambda = tc.lam
		ref, err := Fit(context.Background(), md, opt)
		require.NoError(t, err, tc.name)
		opt.Pooling = MeanPooling()
		m, err := Fit(context.Background(), tc.d, opt)
		require.NoError(t, err, tc.name)
		want, err := ref.BagScores(md)
		require.NoError(t, err)
		got, err := m.BagScores(tc.d)
		require.NoError(t, err)
		for k := range want {
			require.InDelta(t, want[k], got[k], 1e-9*(1+math.Abs(want[k])), "%s: bag %d", tc.name, k)
		}
		long := opt
		long.RhoPolicy, long.EpsAbs, long.ObjTol, long.MaxIter = neadmm.RhoBalance, 1e-8, 0, 20000
		opt2, err := Fit(context.Background(), tc.d, long)
		require.NoError(t, err, tc.name)
		o, best := m.Result().Objective, opt2.Result().Objective
		t.Logf("%s: objective %.10g, long fit %.10g (%d iterations, %d)", tc.name, o, best, m.Result().Iterations, opt2.Result().Iterations)
		assert.InDelta(t, best, o, 1e-4*best, tc.name)
	}
}

// TestMeanBudgetCountsMeans: when ScaleAuto copies the standardized bag
// means (forceCopy stands for a standardization that cannot be folded),
// the fit holds the means and their copy at once, and the copy's budget
// check counts both: with MaxBytes at the Gram matrix, vectors and one
// copy (bags of one instance, where the means are as large as the
// features), the fit fails with ErrTooLarge instead of allocating a
// second copy beyond the budget. One more copy's worth of bytes admits it.
func TestMeanBudgetCountsMeans(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 60, Features: 30, MinInstances: 1, MaxInstances: 1, Seed: 5})
	require.NoError(t, err)
	opt := DefaultOptions()
	opt.Pooling = MeanPooling()
	opt.MaxIter = 5
	one := fitBytes(d, &opt) + copyBytes(d)
	require.Equal(t, copyBytes(d), meanBytes(d, MeanPooling()), "bags of one: the means are as large as the features")
	forceCopy = true
	defer func() { forceCopy = false }()
	opt.MaxBytes = int64(one)
	_, err = Fit(context.Background(), d, opt)
	assert.ErrorIs(t, err, ErrTooLarge, "the means and their copy within the budget of one copy")
	assert.ErrorIs(t, err, ErrBadInput)
	opt.MaxBytes = int64(one + copyBytes(d))
	_, err = Fit(context.Background(), d, opt)
	assert.NoError(t, err)
}

// TestBagMeansOverflowPath checks the halved fallback of bagMeans where the
// differences from the first value overflow: the bag {Max, -Max, Max, 0}
// has mean Max/4 (dense, and sparse with the 0 not stored, where the shift
// is taken back out of the halves as cnt*(s/2)/n). The halves are sums of
// exact power-of-two fractions of Max and one rounded 3*(Max/8), so the
// result is within a few ulps.
func TestBagMeansOverflowPath(t *testing.T) {
	m := math.MaxFloat64
	// Bag 0: rows 0-3, one column; bag 1: row 4.
	dense, err := NewDense([]float64{m, -m, m, 0, 1}, 1, []int{0, 4, 5}, []float64{1, 0})
	require.NoError(t, err)
	for _, d := range []*Dataset{dense, convert(t, dense, Sparse)} {
		md, err := bagMeans(context.Background(), d)
		require.NoError(t, err)
		got := naiveMatrix(md)
		assert.InEpsilon(t, m/4, got[0], 1e-15, "sparse %v", d.IsSparse())
		assert.Equal(t, 1.0, got[1], "sparse %v", d.IsSparse())
	}
}

// TestMeanOfClampsBothSigns: meanOf's fallback 2(s/2 + half) is clamped
// to the largest finite magnitude on either side: 2(0 - MaxFloat64) is
// -Inf before the clamp.
func TestMeanOfClampsBothSigns(t *testing.T) {
	assert.Equal(t, math.MaxFloat64, meanOf(0, math.Inf(1), math.MaxFloat64))
	assert.Equal(t, -math.MaxFloat64, meanOf(0, math.Inf(-1), -math.MaxFloat64))
}

// TestBagMeansSparseStoresNoZero: sparse storage holds no zero value
// (storage.values), so a column stored by a bag's instances whose mean is
// exactly 0 (1 and -1) is left out of the bag means; the others stay.
func TestBagMeansSparseStoresNoZero(t *testing.T) {
	d, err := NewSparse([]int{0, 2, 4}, []int32{0, 1, 0, 1}, []float64{1, 2, -1, 2}, 2, []int{0, 2}, []float64{1})
	require.NoError(t, err)
	md, err := bagMeans(context.Background(), d)
	require.NoError(t, err)
	require.True(t, md.IsSparse())
	assert.Equal(t, 1, md.NNZ())
	assert.Equal(t, []int32{1}, md.m.colidx)
	assert.Equal(t, []float64{2}, md.m.values)
}

// FuzzBagMeans checks bagMeans against the correctly rounded means of
// handMeans (exact sums in math/big) on small datasets decoded from the
// fuzzer's bytes: any finite values (each a float64's bits, so the
// extremes and the subnormals come up), repeated values, views of
// repeated bags, sparse storage (zeros left out). Each mean is within
// 4 n ulps of the bag's largest magnitude of its exact value (the shifted
// sum's rounding; the halves' when the differences overflow), and a
// column equal on a bag's instances gives exactly that value.
//
// It is a test of package mil (bagMeans is not exported); .ci/fuzz fuzzes
// it with the targets in ./fuzz.
func FuzzBagMeans(f *testing.F) {
	le := func(vs ...float64) []byte {
		b := make([]byte, 0, 8*len(vs))
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	f.Add(uint8(0x21), uint8(0x12), le(0.1, 1, 0.1, 2, 0.1, 4, math.MaxFloat64, -1))
	f.Add(uint8(0x32), uint8(0x05), le(math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64, 5e-324, -5e-324, 0, 3))
	// One column, bags of 1, 2, 1, 2 instances: {-Max, Max} overflows
	// the differences from the first value.
	f.Add(uint8(0x04), uint8(0), le(1, -math.MaxFloat64, math.MaxFloat64, 2, math.MaxFloat64, math.MaxFloat64/2))
	f.Add(uint8(0x04), uint8(2), le(1, -math.MaxFloat64, math.MaxFloat64, 2, math.MaxFloat64, math.MaxFloat64/2))
	f.Add(uint8(0x13), uint8(0x3f), le(1e-310, 0, 0, 1e-310, 2, 2, 2, 0, -7, 1e308, 1e308, 1e308))
	f.Fuzz(func(t *testing.T, shape, opt uint8, data []byte) {
		nf := 1 + int(shape&3)
		nv := min(len(data)/8, 64)
		n := nv / nf
		if n == 0 {
			return
		}
		x := make([]float64, n*nf)
		for i := range x {
			x[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
			if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
				x[i] = float64(i)
			}
		}
		// Bags of 1 to 1+(shape>>2 & 7) instances.
		bs := 1 + int(shape>>2&7)
		bp := []int{0}
		for k := 0; bp[len(bp)-1] < n; k++ {
			bp = append(bp, min(n, bp[len(bp)-1]+1+(k*7+int(shape))%bs))
		}
		nb := len(bp) - 1
		lab := make([]float64, nb)
		for k := range lab {
			lab[k] = float64(k & 1)
		}
		d, err := NewDense(x, nf, bp, lab)
		require.NoError(t, err)
		if opt&1 != 0 { // a view, bags repeated and reordered
			idx := make([]int, 1+int(opt>>2&7))
			for i := range idx {
				idx[i] = (i*int(opt>>5) + i*i) % nb
			}
			d, err = d.Subset(idx)
			require.NoError(t, err)
		}
		if opt&2 != 0 {
			d = convert(t, d, Sparse)
		}
		md, err := bagMeans(context.Background(), d)
		require.NoError(t, err)
		require.Equal(t, d.NumBags(), md.NumInstances())
		require.Equal(t, d.IsSparse(), md.IsSparse())
		ref := handMeans(t, d)
		got, want, row := make([]float64, nf), make([]float64, nf), make([]float64, nf)
		first := make([]float64, nf)
		ptr := d.BagPtr()
		for k := range d.NumBags() {
			require.NoError(t, md.Row(got, k))
			require.NoError(t, ref.Row(want, k))
			require.NoError(t, d.Row(first, ptr[k]))
			cnt := ptr[k+1] - ptr[k]
			for j := range nf {
				top, equal := 0.0, true
				for i := ptr[k]; i < ptr[k+1]; i++ {
					require.NoError(t, d.Row(row, i))
					top = max(top, math.Abs(row[j]))
					equal = equal && row[j] == first[j]
				}
				tol := 4 * float64(cnt) * (0x1p-53*top + 0x1p-1074)
				if !(math.Abs(got[j]-want[j]) <= tol) {
					t.Errorf("bag %d column %d (%d instances, sparse %v): mean %g, exact %g (tolerance %g)", k, j, cnt, d.IsSparse(), got[j], want[j], tol)
				}
				if equal && got[j] != first[j] {
					t.Errorf("bag %d column %d: equal values %g, mean %g", k, j, first[j], got[j])
				}
			}
		}
	})
}

// summaryCancels checks that summary (bagMaxes, bagMeanMaxes) returns the
// context's error on a cancelled context, dense and sparse.
func summaryCancels(t *testing.T, summary func(context.Context, *Dataset) (*Dataset, error)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big, _, err := Synthetic(SynthConfig{Bags: 400, Features: 300, MinInstances: 2, MaxInstances: 4, Seed: 3})
	require.NoError(t, err)
	for _, b := range []*Dataset{big, convert(t, big, Sparse)} {
		_, err = summary(ctx, b)
		assert.ErrorIs(t, err, context.Canceled)
	}
}
