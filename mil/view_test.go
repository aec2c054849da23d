package mil

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// transformed returns the dense matrix of v's features computed plainly,
// (x - mu)/scale per value, with 0 for dropped columns: the reference the
// folded products are checked against.
func transformed(v *xview) []float64 {
	x := naiveMatrix(v.d)
	cols := v.d.NumFeatures()
	if v.scale == nil {
		return x
	}
	for i := range x {
		j := i % cols
		mu := 0.0
		if v.mu != nil {
			mu = v.mu[j]
		}
		x[i] = (x[i] - mu) / v.scale[j]
	}
	return x
}

// viewCases returns the views the products are checked on: dense and
// sparse data, a whole dataset and a subset (several runs), standardized
// with and without centering (the sparse centered view included, which a
// copy could not store), a constant column dropped, and a uniform scale.
func viewCases(t *testing.T) map[string]xview {
	rng := rand.New(rand.NewPCG(41, 42))
	d := randomDataset(t, rng, 40, 5, 9, 0.6)
	// A constant column (dropped by the standardized views).
	x := naiveMatrix(d)
	for i := range d.NumInstances() {
		x[i*9+4] = 7
	}
	d, err := NewDense(x, 9, d.BagPtr(), d.Labels())
	require.NoError(t, err)
	sub, err := d.Subset([]int{0, 2, 3, 7, 8, 9, 15, 30, 31, 39})
	require.NoError(t, err)
	out := map[string]xview{}
	for name, dd := range map[string]*Dataset{"dense": d, "dense subset": sub,
		"sparse": convert(t, d, Sparse), "sparse subset": convert(t, sub, Sparse)} {
		st, err := fitColumns(context.Background(), dd)
		require.NoError(t, err)
		require.True(t, st.constant[4])
		out[name+" centered"] = standardView(dd, st, true).clone()
		out[name+" scaled"] = standardView(dd, st, false).clone()
		big := scaled(t, dd, 700) // beyond uniformMaxExp: a uniform view
		amax, err := maxAbs(context.Background(), big)
		require.NoError(t, err)
		u := uniformView(big, amax).clone()
		require.True(t, u.uniform)
		out[name+" uniform"] = u
	}
	return out
}

// The folded products against the same products computed plainly on the
// transformed matrix, within the rounding both can make: Higham's bound
// on each side, over the terms each sums (the folded ones are the raw
// products, which is where folding loses accuracy to cancellation).
func TestViewProductsMatchTransformedMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for name, v := range viewCases(t) {
		ni, nf := v.d.NumInstances(), v.d.NumFeatures()
		xt := transformed(&v)
		raw := naiveMatrix(v.d)
		beta, beta0 := randVec(rng, nf), 0.7
		r := randVec(rng, ni)
		w := make([]float64, nf) // S^-1 beta, for the bound
		for j := range w {
			w[j] = beta[j]
			if v.scale != nil {
				w[j] /= v.scale[j]
			}
		}
		mu := func(j int) float64 {
			if v.mu == nil {
				return 0
			}
			return v.mu[j]
		}

		tv := make([]float64, ni)
		v.mulVec(tv, beta, beta0)
		for i := range ni {
			want, terms := beta0, math.Abs(beta0)
			for j := range nf {
				want += xt[i*nf+j] * beta[j]
				terms += (math.Abs(raw[i*nf+j]) + math.Abs(mu(j))) * math.Abs(w[j])
			}
			tol := 4 * gamma(nf+3) * terms
			require.True(t, near(tv[i], want, tol), "%s: mulVec[%d] = %v, want %v (tol %g)", name, i, tv[i], want, tol)
		}

		for _, withBias := range []bool{false, true} {
			g := make([]float64, nf)
			if withBias {
				g = make([]float64, nf+1)
			}
			v.mulTransVec(g, r)
			sum := 0.0
			for i := range ni {
				sum += r[i]
			}
			for j := range nf {
				want, terms := 0.0, 0.0
				for i := range ni {
					want += xt[i*nf+j] * r[i]
					terms += (math.Abs(raw[i*nf+j]) + math.Abs(mu(j))) * math.Abs(r[i])
				}
				s := 1.0
				if v.scale != nil {
					s = v.scale[j]
				}
				tol := 4 * gamma(ni+3) * terms / s
				require.True(t, near(g[j], want, tol), "%s: mulTransVec[%d] = %v, want %v (tol %g)", name, j, g[j], want, tol)
			}
			if withBias {
				assert.InDelta(t, sum, g[nf], 2*gamma(ni)*float64(ni)*3, "%s: sum(r)", name)
			}
		}

		// The Gram matrix: bit for bit the Gram of the transformed copy
		// where a copy exists (the rows are transformed with the same
		// arithmetic); the sparse centered one (rank-one corrected) within
		// the rounding of its raw terms.
		d1 := nf + 1
		g := make([]float64, d1*d1)
		require.NoError(t, v.gram(context.Background(), g))
		if !(v.d.IsSparse() && v.mu != nil) {
			cp, _, err := v.copyData(context.Background())
			require.NoError(t, err)
			want := make([]float64, d1*d1)
			cp.Gram(want)
			require.Equal(t, want, g, "%s: Gram", name)
			continue
		}
		for j := range d1 {
			for k := range d1 {
				want, terms := 0.0, 0.0
				for i := range ni {
					a, b, ta, tb := 1.0, 1.0, 1.0, 1.0
					if j < nf {
						a, ta = xt[i*nf+j], (math.Abs(raw[i*nf+j])+math.Abs(mu(j)))/v.scale[j]
					}
					if k < nf {
						b, tb = xt[i*nf+k], (math.Abs(raw[i*nf+k])+math.Abs(mu(k)))/v.scale[k]
					}
					want += a * b
					terms += ta * tb
				}
				tol := 8 * gamma(ni+4) * terms
				require.True(t, near(g[j*d1+k], want, tol), "%s: Gram[%d,%d] = %v, want %v (tol %g)", name, j, k, g[j*d1+k], want, tol)
			}
		}
	}
}

// Folding is invariant to scaling the data by a power of two within its
// band (the copy is invariant at any scale); outside the band, and for
// columns whose offset dwarfs their spread, Fit standardizes a copy.
func TestFoldable(t *testing.T) {
	st := &colStats{mean: []float64{0, 3, 0}, sd: []float64{1, 1, 0}, constant: []bool{false, false, true}, amax: []float64{2, 5, 1e300}}
	assert.True(t, foldable(st, true), "a constant column does not count")
	st.mean[1] = foldMaxOffset
	assert.True(t, foldable(st, true))
	st.mean[1] = 2 * foldMaxOffset
	assert.False(t, foldable(st, true), "offset beyond foldMaxOffset*sd")
	assert.True(t, foldable(st, false), "no centering, no cancellation")
	st.mean[1], st.amax[0] = 0, math.Ldexp(1, foldMaxExp+1)
	assert.False(t, foldable(st, true), "magnitude beyond the band")
	st.amax[0] = math.Ldexp(1, -foldMaxExp-2)
	assert.False(t, foldable(st, true), "magnitude below the band")
}

// The fits on the folded products against the same fits on a
// standardized copy (the path before folding; forceCopy). Where the
// iteration is smooth (mean pooling, and max pooling on continuous
// features whose maxima never tie) they agree to the rounding of the
// products: measured at most 5e-13 of the score magnitude after full fits
// on fox, musk1, mutagenesis and vaccine; 1e-9 leaves four orders of
// margin, while a wrong correction (the mean or the scale left out)
// moves scores by O(1). Max pooling on data with tied instance scores
// (vaccine's binary features, duplicated atoms) is not compared: the
// t-update's sort breaks the ties by the last bit, and the trajectories
// part within 10 iterations (objectives then agree to 1e-3).
func TestFitFoldedMatchesCopy(t *testing.T) {
	fox, err := LoadFile(datadir.File(t, "fox.csv"), nil)
	require.NoError(t, err)
	vaccine, err := LoadFile(datadir.File(t, "vaccine.svm"), nil)
	require.NoError(t, err)
	syn, _, err := Synthetic(SynthConfig{Bags: 80, MinInstances: 1, MaxInstances: 6, Features: 12, Seed: 5})
	require.NoError(t, err)
	foxSub, err := fox.Subset([]int{0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 150, 160, 170, 180, 190, 199})
	require.NoError(t, err)
	cases := []struct {
		name string
		d    *Dataset
		pool Pooling
	}{
		{"fox max", fox, MaxPooling()},
		{"fox mean", fox, MeanPooling()},
		{"fox subset max", foxSub, MaxPooling()},
		{"synthetic max", syn, MaxPooling()},
		{"synthetic sparse top2", convert(t, syn, Sparse), TopKPooling(2)},
		{"vaccine mean", vaccine, MeanPooling()},
	}
	defer func() { forceCopy = false }()
	for _, tc := range cases {
		opt := DefaultOptions()
		opt.Pooling = tc.pool
		// Sparse data is centered by folding only (a copy of it is
		// scaled, not centered): its reference is the standardized copy
		// of the same data stored dense.
		refData := tc.d
		if tc.d.IsSparse() {
			refData = convert(t, tc.d, Dense)
		}
		forceCopy = true
		ref, err := Fit(context.Background(), refData, opt)
		require.NoError(t, err, tc.name)
		forceCopy = false
		m, err := Fit(context.Background(), tc.d, opt)
		require.NoError(t, err, tc.name)
		if !tc.d.IsSparse() && len(tc.d.runs) > 1 {
			// A dense subset of several runs is copied into one block
			// either way (unscaled when folding).
			assert.Equal(t, ref.Result().Bytes, m.Result().Bytes, "%s: the block copy's bytes", tc.name)
		} else {
			assert.Greater(t, ref.Result().Bytes, m.Result().Bytes, "%s: the copy's bytes", tc.name)
		}
		want, err := ref.BagScores(tc.d)
		require.NoError(t, err)
		got, err := m.BagScores(tc.d)
		require.NoError(t, err)
		for k := range want {
			require.True(t, near(got[k], want[k], 1e-9*(1+math.Abs(want[k]))), "%s: bag %d: folded %v, copy %v", tc.name, k, got[k], want[k])
		}
		assert.Equal(t, ref.Result().Iterations, m.Result().Iterations, tc.name)
	}
}

// TestFitScaleNoneExtremeMagnitudes: with ScaleNone, features near 1e300
// (whose Gram matrix overflows) still fit, with a finite step constant,
// rather than failing in FISTA on a NaN step (neadmm.ErrBadInput, not
// mil.ErrBadInput): ScaleNone solves on the features divided by a power
// of two when they are far from 1 in magnitude (the penalty scaled to
// match). With lambda = 0 the problem does not depend on that power, so
// the fits of the data scaled by 2^±900 are the same, bit for bit.
func TestFitScaleNoneExtremeMagnitudes(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 40, MinInstances: 1, MaxInstances: 4, Features: 6, Seed: 9})
	require.NoError(t, err)
	opt := DefaultOptions()
	opt.Scaling, opt.Lambda, opt.MaxIter = ScaleNone, 0, 60
	var first []float64
	for _, k := range []int{900, -900, 1000} {
		for _, sparse := range []bool{false, true} {
			dk := scaled(t, d, k)
			if sparse {
				dk = convert(t, dk, Sparse)
			}
			m, err := Fit(context.Background(), dk, opt)
			require.NoError(t, err, "2^%d", k)
			l := m.Result().Lipschitz
			require.True(t, l > 0 && !math.IsInf(l, 0), "2^%d: Lipschitz %v", k, l)
			sc, err := m.BagScores(dk)
			require.NoError(t, err, "2^%d", k)
			if first == nil {
				first = sc
				continue
			}
			if !sparse {
				assert.Equal(t, first, sc, "2^%d", k)
			}
		}
	}
	// Features near 1e300 (2^997) with the default options but
	// ScaleNone: a fit with a finite step constant, not FISTA's
	// neadmm.ErrBadInput.
	opt = DefaultOptions()
	opt.Scaling = ScaleNone
	for _, dk := range []*Dataset{scaled(t, d, 997), convert(t, scaled(t, d, 997), Sparse)} {
		m, err := Fit(context.Background(), dk, opt)
		require.NoError(t, err)
		l := m.Result().Lipschitz
		assert.True(t, l > 0 && !math.IsInf(l, 0), "Lipschitz %v", l)
	}
	// With the default lambda the fit is the same problem as before on
	// data within the band: nothing is rescaled there.
	amax, err := maxAbs(context.Background(), d)
	require.NoError(t, err)
	v := uniformView(d, amax)
	assert.False(t, v.folded())
}

// A column constant on the training bags cannot be told apart from the
// bias: ScaleAuto drops it from the solver (coefficient 0) instead of
// solving with it raw, which at 1e300 made the step constant overflow.
func TestFitDropsConstantColumns(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 50, MinInstances: 1, MaxInstances: 4, Features: 5, Seed: 4})
	require.NoError(t, err)
	for _, c := range []float64{5, 1e300} {
		x := naiveMatrix(d)
		for i := range d.NumInstances() {
			x[i*5+2] = c
		}
		dc, err := NewDense(x, 5, d.BagPtr(), d.Labels())
		require.NoError(t, err)
		for _, dd := range []*Dataset{dc, convert(t, dc, Sparse)} {
			m, err := Fit(context.Background(), dd, DefaultOptions())
			require.NoError(t, err, "constant %g", c)
			beta, _ := m.Coefficients()
			assert.Equal(t, 0.0, beta[2], "constant %g", c)
			assert.NotZero(t, m.Result().NonZero)
		}
	}
}

// The copy path: a column whose mean dwarfs its spread (here 1e9 +- 1e-3)
// would lose too much to cancellation in the folded products, so Fit
// standardizes a copy, and counts it against Options.MaxBytes.
func TestFitCopyPathAndItsBytes(t *testing.T) {
	d, _, err := Synthetic(SynthConfig{Bags: 60, MinInstances: 1, MaxInstances: 4, Features: 4, Seed: 8})
	require.NoError(t, err)
	x := naiveMatrix(d)
	for i := range d.NumInstances() {
		x[i*4] = 1e9 + 1e-3*x[i*4]
	}
	off, err := NewDense(x, 4, d.BagPtr(), d.Labels())
	require.NoError(t, err)
	opt := DefaultOptions()
	withDef := opt.withDefaults()
	folded := fitBytes(off, &withDef)
	opt.MaxBytes = int64(folded + copyBytes(off)/2)
	_, err = Fit(context.Background(), off, opt)
	requireBadInput(t, err, true, "a copy of the features")
	opt.MaxBytes = 0
	m, err := Fit(context.Background(), off, opt)
	require.NoError(t, err)
	assert.Equal(t, int64(folded+copyBytes(off)), m.Result().Bytes)
	// The model sees the offset column as the standardized copy does: it
	// ranks the bags as the fit on the column shifted to 0 does.
	x = naiveMatrix(off)
	for i := range off.NumInstances() {
		x[i*4] = (x[i*4] - 1e9) * 1e3
	}
	shifted, err := NewDense(x, 4, d.BagPtr(), d.Labels())
	require.NoError(t, err)
	ms, err := Fit(context.Background(), shifted, DefaultOptions())
	require.NoError(t, err)
	a, err := m.BagScores(off)
	require.NoError(t, err)
	b, err := ms.BagScores(shifted)
	require.NoError(t, err)
	for k := range a {
		// The offset column's standardized values carry the rounding of
		// 1e9 + 1e-3 x (about 1e-7/1e-3 = 1e-4 relative).
		assert.InDelta(t, b[k], a[k], 1e-2*(1+math.Abs(b[k])), "bag %d", k)
	}
}

// TestFitSparseCentered: ScaleAuto centers sparse data by folding (the
// bias is not penalized, so centering is a reparametrization that only
// conditions the beta-update), so fox stored sparse fits as fox stored
// dense, also with a column shifted by up to 1e6 of its standard
// deviations. Measured: bag scores within 2e-9 up to 1e3 and the
// objective to 6 digits at 1e6; without centering the sparse fits
// differed by 1.3 in score at no shift and fell to the zero model's
// objective (0.69 against 0.53) at 1e3.
func TestFitSparseCentered(t *testing.T) {
	ctx := context.Background()
	fox, err := LoadFile(datadir.File(t, "fox.csv"), nil)
	require.NoError(t, err)
	sc, err := FitScaler(ctx, fox)
	require.NoError(t, err)
	n, f := fox.NumInstances(), fox.NumFeatures()
	for _, shift := range []float64{0, 1e3, 1e6} {
		x := make([]float64, n*f)
		for i := range n {
			require.NoError(t, fox.Row(x[i*f:(i+1)*f], i))
			x[i*f] += shift * sc.Scale[0]
		}
		dense, err := NewDense(x, f, fox.BagPtr(), fox.Labels())
		require.NoError(t, err)
		sparse := convert(t, dense, Sparse)
		for _, pool := range []Pooling{MeanPooling(), MaxPooling()} {
			opt := DefaultOptions()
			opt.Pooling = pool
			md, err := Fit(ctx, dense, opt)
			require.NoError(t, err)
			ms, err := Fit(ctx, sparse, opt)
			require.NoError(t, err)
			name := fmt.Sprintf("shift %g sd, %v", shift, pool)
			assert.InDelta(t, md.Result().Objective, ms.Result().Objective, 1e-4, name)
			if shift > 1e3 {
				continue // the folded centering's cancellation: about 20 bits
			}
			want, err := md.BagScores(dense)
			require.NoError(t, err)
			got, err := ms.BagScores(sparse)
			require.NoError(t, err)
			for k := range want {
				require.InDelta(t, want[k], got[k], 1e-7*(1+math.Abs(want[k])), "%s: bag %d", name, k)
			}
		}
	}
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
