package mil

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests found by mutation testing of protocol.go, view.go, products.go,
// bagmean.go, ensemble.go, qupdate.go, problem.go, synth.go, data.go and
// pooling.go: each kills a mutant the other tests let live, by pinning a
// documented rule at its boundary on tiny inputs whose expected values
// are derived by hand.

// TestRunRefusesNaNThresholdFirst: Run's doc lists a NaN threshold among
// the refused arguments (ErrBadInput, nil Report), checked before any
// split is scored, not left to Evaluate's error inside the first split.
func TestRunRefusesNaNThresholdFirst(t *testing.T) {
	d := plantedDataset(t, 20, 3)
	p := KFold(2, 1, 1)
	p.Threshold = math.NaN()
	calls := 0
	score := func(ctx context.Context, train, test *Dataset) ([]float64, error) {
		calls++
		return maxFeature(0)(ctx, train, test)
	}
	rep, err := p.Run(context.Background(), d, score)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.Nil(t, rep)
	assert.Zero(t, calls)
}

// TestRunRefusesTooManyScores: scores of the wrong length are an error
// both ways, one score too many as well as one too few.
func TestRunRefusesTooManyScores(t *testing.T) {
	d := plantedDataset(t, 20, 3)
	p := KFold(2, 1, 1)
	p.Workers = 1
	long := func(_ context.Context, _, test *Dataset) ([]float64, error) {
		return make([]float64, test.NumBags()+1), nil
	}
	rep, err := p.Run(context.Background(), d, long)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scores for")
	require.NotNil(t, rep)
	assert.Empty(t, rep.Folds)
}

// tinyDense returns n one-feature instances of value x in n bags
// (labels alternating from 1).
func tinyDense(t *testing.T, x float64, n int) *Dataset {
	t.Helper()
	xs, ptr, y := make([]float64, n), make([]int, n+1), make([]float64, n)
	for i := range xs {
		xs[i], ptr[i+1], y[i] = x, i+1, float64((i+1)%2)
	}
	d, err := NewDense(xs, 1, ptr, y)
	require.NoError(t, err)
	return d
}

// TestUniformViewBand: uniformView is the identity while the exponent e
// of amax = f 2^e (f in [0.5, 1)) is within ±uniformMaxExp, both ends
// included, and beyond it divides by c = 2^e; for subnormal data c and
// 1/c stay finite (e clamped at -1000).
func TestUniformViewBand(t *testing.T) {
	d := tinyDense(t, 1, 2)
	for _, c := range []struct {
		amax float64
		e    int // 0: identity
	}{
		{0x1p399, 0},     // 0.5 x 2^400: e = 400, inside
		{0x1p400, 401},   // e = 401: scaled by 2^401
		{0x1p-401, 0},    // 0.5 x 2^-400: e = -400, inside
		{0x1p-402, -401}, // e = -401
		{0x1p-1050, -1000},
	} {
		v := uniformView(d, c.amax)
		if c.e == 0 {
			assert.False(t, v.folded(), "amax %g", c.amax)
			continue
		}
		require.True(t, v.uniform, "amax %g", c.amax)
		assert.Equal(t, math.Ldexp(1, c.e), v.c, "amax %g", c.amax)
		assert.Equal(t, []float64{v.c}, v.scale)
		assert.False(t, math.IsInf(1/v.c, 0), "1/c finite")
		assert.Equal(t, math.Ldexp(1, c.e), 1/v.penaltyScale(), "the solver's coefficients are c times the raw ones")
	}
}

// TestUniformViewTransposeNoUnderflow: on features of 2^1000 (c = 2^1001)
// with a small residual r = 2^-100, X'^T r = sum x r / c = 3 x 2^-101 and
// sum(r) = 3 x 2^-100, exactly: the pre-scaling by 2^-(e/2) keeps r*pre
// normal (2^-600), where a pre-scaling by 2^-e would flush it to zero.
func TestUniformViewTransposeNoUnderflow(t *testing.T) {
	d := tinyDense(t, 0x1p1000, 3)
	v := uniformView(d, 0x1p1000).clone()
	require.True(t, v.uniform)
	g := make([]float64, 2)
	v.mulTransVec(g, []float64{0x1p-100, 0x1p-100, 0x1p-100})
	assert.Equal(t, []float64{3 * 0x1p-101, 3 * 0x1p-100}, g)
}

// TestStandardViewSparseCenteringBound: a sparse column is centered when
// |mean| <= sparseFoldMaxOffset*sd, the bound included, and not beyond;
// a dense one always.
func TestStandardViewSparseCenteringBound(t *testing.T) {
	sp, err := NewSparse([]int{0, 2}, []int32{0, 1}, []float64{1, 1}, 2, []int{0, 1}, []float64{1})
	require.NoError(t, err)
	st := &colStats{
		mean:     []float64{sparseFoldMaxOffset, sparseFoldMaxOffset + 1},
		sd:       []float64{1, 1},
		constant: []bool{false, false},
		amax:     []float64{1, 1},
	}
	assert.Equal(t, []float64{sparseFoldMaxOffset, 0}, standardView(sp, st, true).mu)
	dn := convert(t, sp, Dense)
	assert.Equal(t, st.mean, standardView(dn, st, true).mu)
}

// TestFoldableBandInclusive: foldable accepts magnitudes within
// 2^±foldMaxExp, both ends included.
func TestFoldableBandInclusive(t *testing.T) {
	st := &colStats{mean: []float64{0}, sd: []float64{1}, constant: []bool{false}}
	for _, a := range []float64{math.Ldexp(1, foldMaxExp), math.Ldexp(1, -foldMaxExp)} {
		st.amax = []float64{a}
		assert.True(t, foldable(st, true), "amax %g", a)
	}
}

// TestFitScaleNonePenaltyScale: with ScaleNone the penalty is on the raw
// coefficients, so a fit on the features times 2^k with lambda times 2^k
// is the same problem (beta/2^k for beta). Beyond 2^±uniformMaxExp the
// solver divides the features by c = 2^e; starting from features whose
// largest magnitude is in [0.5, 1) (e = 0, solved unscaled) it then sees
// the same matrix and penalty bit for bit, so the bag scores are the
// same bits.
func TestFitScaleNonePenaltyScale(t *testing.T) {
	d0, _, err := Synthetic(SynthConfig{Bags: 30, MinInstances: 1, MaxInstances: 4, Features: 5, Seed: 8})
	require.NoError(t, err)
	amax, err := maxAbs(context.Background(), d0)
	require.NoError(t, err)
	_, e := math.Frexp(amax)
	d := scaled(t, d0, -e)
	opt := DefaultOptions()
	opt.Scaling, opt.MaxIter = ScaleNone, 40
	m, err := Fit(context.Background(), d, opt)
	require.NoError(t, err)
	want, err := m.BagScores(d)
	require.NoError(t, err)
	require.NotZero(t, m.Result().NonZero, "lambda %g leaves some coefficient", opt.Lambda)
	for _, k := range []int{900, -900} {
		dk := scaled(t, d, k)
		ok := opt
		ok.Lambda = math.Ldexp(opt.Lambda, k)
		mk, err := Fit(context.Background(), dk, ok)
		require.NoError(t, err)
		got, err := mk.BagScores(dk)
		require.NoError(t, err)
		assert.Equal(t, want, got, "2^%d", k)
	}
}

// TestGramChecksContext: Dataset.gram and xview.gram return ctx's error
// once gramCheckCells units of work have passed, on both storage kinds
// (200 rows of 64 values: about 2000 units a row).
func TestGramChecksContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, cols = 200, 64
	x := make([]float64, n*cols)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	ptr, y := []int{0, n / 2, n}, []float64{0, 1}
	dn, err := NewDense(x, cols, ptr, y)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := make([]float64, (cols+1)*(cols+1))
	for _, d := range []*Dataset{dn, convert(t, dn, Sparse)} {
		assert.ErrorIs(t, d.gram(ctx, dst), context.Canceled, "sparse %v", d.IsSparse())
		ones := make([]float64, cols)
		for j := range ones {
			ones[j] = 1
		}
		v := xview{d: d, scale: ones}
		assert.ErrorIs(t, v.gram(ctx, dst), context.Canceled, "view, sparse %v", d.IsSparse())
		require.NoError(t, d.gram(context.Background(), dst))
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

// TestEnsembleRefusesEnsembleOfOne: an ensemble of one part is an
// ensemble (Parts is not nil), so it cannot be a part either.
func TestEnsembleRefusesEnsembleOfOne(t *testing.T) {
	m := &Model{beta: []float64{1, -2}, beta0: 0.5}
	e1, err := Ensemble(m)
	require.NoError(t, err)
	require.Len(t, e1.Parts(), 1)
	for _, parts := range [][]*Model{{e1}, {m, e1}, {e1, m}} {
		_, err := Ensemble(parts...)
		assert.ErrorIs(t, err, ErrBadInput)
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

// TestProblemStartForgetsPools: Start begins a solve whose t is new, so
// the per-bag pools cached from an earlier solve's t are recomputed (Fit
// and FitCV build a fresh problem per solve; the Starter contract holds
// for a problem solved twice).
func TestProblemStartForgetsPools(t *testing.T) {
	p := &problem{bagPtr: []int{0, 2, 3}, nb: 2, tpool: make([]float64, 2), scratch: make([]float64, 2)}
	require.NoError(t, p.Start(context.Background(), nil, []float64{1, 2, -1}, nil))
	assert.Equal(t, []float64{2, -1}, p.bagPools([]float64{1, 2, -1}))
	t2 := []float64{5, 3, 4}
	require.NoError(t, p.Start(context.Background(), nil, t2, nil))
	assert.Equal(t, []float64{5, 4}, p.bagPools(t2))
}

// TestProblemObjectiveBiasUnpenalized: the ADMM objective is
// sum_i w_i log(1 + exp(-s_i q_i)) + lambda ||beta||_1 with the bias
// beta0 unpenalized: at q = (0, 0), beta = (2, -3), beta0 = 5, weights
// (1, 3) and lambda 0.5 it is log 2 + 3 log 2 + 0.5 x 5.
func TestProblemObjectiveBiasUnpenalized(t *testing.T) {
	p := &problem{nb: 2, nf: 2, sign: []float64{1, -1}, weight: []float64{1, 3}, lambda: 0.5}
	x1 := []float64{0, 0, 2, -3, 5}
	assert.InDelta(t, 4*math.Ln2+2.5, p.Objective(x1, nil), 1e-15)
}

// TestMaterializePrefixSubset: a subset of the first bags is one run from
// storage row 0 but its storage holds more rows than its instances, so
// Materialize copies it (its storage then holds exactly its instances);
// the whole dataset is returned as is.
func TestMaterializePrefixSubset(t *testing.T) {
	d := tinyDense(t, 1, 3)
	assert.Same(t, d, d.Materialize())
	sub, err := d.Subset([]int{0, 1})
	require.NoError(t, err)
	m := sub.Materialize()
	assert.NotSame(t, sub, m)
	assert.Equal(t, 2, m.m.rows)
	assert.Equal(t, sub.NumInstances(), m.NumInstances())
}

// TestProblemConstraint1FollowsTheta: Constraint1 is f1(x1) = (q, -X beta
// - beta0) at the x1 it is given: the cached X beta + beta0 is reused
// only for the theta it was computed at, not for a new one (instances 1,
// 2, 3 of one feature: -(x beta + beta0) by hand).
func TestProblemConstraint1FollowsTheta(t *testing.T) {
	d, err := NewDense([]float64{1, 2, 3}, 1, []int{0, 2, 3}, []float64{1, 0})
	require.NoError(t, err)
	p := &problem{x: newView(d), bagPtr: d.BagPtr(), nb: 2, nf: 1, xb: make([]float64, 3), xbTheta: make([]float64, 2)}
	dst := make([]float64, 5)
	p.Constraint1(dst, []float64{7, 8, 1, 0})
	assert.Equal(t, []float64{7, 8, -1, -2, -3}, dst)
	p.Constraint1(dst, []float64{7, 8, 2, 1})
	assert.Equal(t, []float64{7, 8, -3, -5, -7}, dst)
}

// TestTopFracValidateOne: Frac in (0, 1]: 1 (every instance, the mean) is
// valid, 0 and anything above 1 are not.
func TestTopFracValidateOne(t *testing.T) {
	require.NoError(t, TopFracPooling(1).Validate())
	for _, f := range []float64{0, math.Nextafter(1, 2)} {
		assert.ErrorIs(t, TopFracPooling(f).Validate(), ErrBadInput, "%v", f)
	}
}

// TestLogisticProxStaysInBracket: the root lies in the bracket (c', c' +
// w/rho) with c' = s*c, and the result is clamped into it where the last
// Newton step rounds an ulp past its upper end. These inputs (found by a
// random search) put the unclamped step just above c' + w/rho.
func TestLogisticProxStaysInBracket(t *testing.T) {
	for _, c := range []struct{ s, w, rho, c float64 }{
		{1, 0.16327438120049617, 0.0018259227428513286, -129.23137809904185},
		{-1, 1.48861368139033, 0.0034483997816015747, 573.3309025569522},
		{1, 12.549934073895875, 3.2142082415804842, -126.21217365964442},
		{1, 310.7985729573215, 2.3916035546984817, -178.92967188059907},
	} {
		q := logisticProx(c.s, c.w, c.rho, c.c, c.c)
		lo, hi := c.s*c.c, c.s*c.c+c.w/c.rho
		z := c.s * q
		assert.True(t, z >= lo && z <= hi, "%+v: s*q = %v outside [%v, %v]", c, z, lo, hi)
	}
}

// TestFitCopyPathBetaAuto: BetaAuto picks the Gram matrix when one
// product with it, (D+1)^2, costs less than a product pair with the data,
// 2(N D + N) for dense data whatever its zeros. A dense copy (a column
// whose mean is 10^9 standard deviations) of 15 instances and 20 features,
// 18 of them constant (zeros in the standardized copy), costs the same as
// the data it copies: 441 < 2(300 + 15), so Gram, as without the copy.
func TestFitCopyPathBetaAuto(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, nf = 15, 20
	for _, offset := range []float64{0, 1e9} {
		x := make([]float64, n*nf)
		for i := range n {
			row := x[i*nf : (i+1)*nf]
			row[0], row[1] = offset+rng.NormFloat64(), rng.NormFloat64()
			for j := 2; j < nf; j++ {
				row[j] = 7
			}
		}
		d, err := NewDense(x, nf, []int{0, 3, 6, 9, 12, 15}, []float64{1, 0, 1, 0, 1})
		require.NoError(t, err)
		opt := DefaultOptions()
		opt.MaxIter = 3
		m, err := Fit(context.Background(), d, opt)
		require.NoError(t, err)
		assert.Equal(t, BetaGram, m.Result().Beta, "offset %g", offset)
	}
}
