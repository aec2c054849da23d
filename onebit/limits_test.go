package onebit_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/onebit"
)

// The limits of the input: bad input gets a clear error (matched with
// errors.Is), never a crash or a hang; the extremes of the
// floating-point range (options, matrices and vectors that are valid but
// tiny or huge) give the same answers as moderate ones (or a clear
// ErrBadInput), never a NaN or a silently worse estimate.

// TestNilProblem: a nil or zero Problem (one not made by NewProblem) is
// an error wrapping ErrBadInput for every function that takes one, and
// its accessors return zero values; its metrics panic, naming the method
// (a programmer error, as an x of the wrong length).
func TestNilProblem(t *testing.T) {
	var s onebit.Solver
	ctx := context.Background()
	x := make([]float64, 3)
	for name, p := range map[string]*onebit.Problem{"nil": nil, "zero": {}} {
		_, err := s.Solve(ctx, p, x, onebit.DefaultOptions())
		assert.ErrorIs(t, err, onebit.ErrBadInput, name)
		_, err = s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
		assert.ErrorIs(t, err, onebit.ErrBadInput, name)
		_, err = onebit.BIHT(ctx, p, x, onebit.BIHTOptions{K: 1, MaxIter: 1})
		assert.ErrorIs(t, err, onebit.ErrBadInput, name)
		_, err = s.BIHT(ctx, p, x, onebit.BIHTOptions{K: 1, MaxIter: 1})
		assert.ErrorIs(t, err, onebit.ErrBadInput, name)
		assert.ErrorIs(t, onebit.Passive(p, x, 0), onebit.ErrBadInput, name)
		_, err = p.WithSigns([]float64{1})
		assert.ErrorIs(t, err, onebit.ErrBadInput, name)
		m, n := p.Dims()
		assert.Equal(t, [2]int{0, 0}, [2]int{m, n}, name)
		assert.Nil(t, p.Phi(), name)
		assert.Nil(t, p.Y(), name)
		assert.Zero(t, p.Norm2(), name)
		for method, f := range map[string]func(){
			"Objective":      func() { p.Objective(nil, 1) },
			"Hamming":        func() { p.Hamming(nil) },
			"BestCoordinate": func() { p.BestCoordinate(nil, 1) },
		} {
			assert.PanicsWithValue(t, "onebit.Problem."+method+": nil or zero Problem (make it with NewProblem)", f, name)
		}
	}
}

// TestZeroValues: the zero value of every other type either works as
// documented (a zero Solver is ready) or is an error wrapping
// ErrBadInput: a nil Solver, a zero or nil Instance, zero options.
func TestZeroValues(t *testing.T) {
	ctx := context.Background()
	p := mustProblem(t, mustGenerate(t, 30, 20, 2, 1))
	x := make([]float64, 20)
	var ns *onebit.Solver
	_, err := ns.Solve(ctx, p, x, onebit.DefaultOptions())
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = ns.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = ns.BIHT(ctx, p, x, onebit.BIHTOptions{K: 2, MaxIter: 10})
	assert.ErrorIs(t, err, onebit.ErrBadInput)

	var s onebit.Solver
	_, err = s.Solve(ctx, p, x, onebit.Options{})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = s.Recover(ctx, p, x, onebit.RecoverOptions{})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = s.BIHT(ctx, p, x, onebit.BIHTOptions{})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = onebit.BIHT(ctx, p, x, onebit.BIHTOptions{})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = onebit.Generate(onebit.GenOptions{})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = (&onebit.Instance{}).Problem()
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = (*onebit.Instance)(nil).Problem()
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	// The metrics of empty vectors: zero vectors, NaN as documented.
	assert.True(t, math.IsNaN(onebit.AngularError(nil, nil)))
	assert.True(t, math.IsNaN(onebit.SNR(nil, nil)))
	// A zero Solver is ready.
	_, err = s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
	assert.NoError(t, err)
}

// TestNilContext: every function that takes a context refuses a nil one
// with an error wrapping ErrBadInput, before any work (a nil context
// panicked in Recover and BIHT, and in Solve on the full matrix).
func TestNilContext(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 30, 20, 2, 1))
	x := make([]float64, 20)
	var s onebit.Solver
	var nilCtx context.Context
	for _, ws := range []bool{true, false} {
		o := onebit.DefaultOptions()
		o.WorkingSet = ws
		_, err := s.Solve(nilCtx, p, x, o)
		assert.ErrorIs(t, err, onebit.ErrBadInput, "Solve, WorkingSet %v", ws)
		assert.ErrorContains(t, err, "nil context")
		ro := onebit.DefaultRecoverOptions()
		ro.WorkingSet = ws
		_, err = s.Recover(nilCtx, p, x, ro)
		assert.ErrorIs(t, err, onebit.ErrBadInput, "Recover, WorkingSet %v", ws)
		assert.ErrorContains(t, err, "nil context")
	}
	_, err := onebit.BIHT(nilCtx, p, x, onebit.BIHTOptions{K: 2, MaxIter: 10})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	assert.ErrorContains(t, err, "nil context")
	_, err = s.BIHT(nilCtx, p, x, onebit.BIHTOptions{K: 2, MaxIter: 10})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	assert.ErrorContains(t, err, "nil context")
}

// TestExtremeOptions sets each option of Options, RecoverOptions and
// BIHTOptions to the extremes of its valid range (MaxFloat64, the
// smallest positive float, 0 where allowed, MaxInt for the caps): each
// either works (a finite unit-norm estimate) or is refused before any
// work with an error wrapping ErrBadInput that names the option. Lambda,
// EpsAbs and EpsRel at MaxFloat64 passed the checks and failed after
// work with neadmm's sentinels only ("residual or y" for a tolerance).
func TestExtremeOptions(t *testing.T) {
	in := mustGenerate(t, 60, 40, 3, 1)
	p := mustProblem(t, in)
	ctx := context.Background()
	const big, tiny = math.MaxFloat64, math.SmallestNonzeroFloat64
	check := func(name, want string, err error, x []float64) {
		t.Helper()
		if want == "" {
			require.NoError(t, err, name)
			assert.InDelta(t, 1, norm(x), 1e-14, name)
			return
		}
		require.ErrorIs(t, err, onebit.ErrBadInput, name)
		assert.NotErrorIs(t, err, neadmm.ErrNotFinite, "%s: refused before any work", name)
		assert.ErrorContains(t, err, want, name)
	}
	for _, c := range []struct {
		name, want string // want: "" for success, else a part of the error
		mod        func(*onebit.Options)
	}{
		{"Lambda max", "Lambda", func(o *onebit.Options) { o.Lambda = big }},
		{"Lambda 1e300", "", func(o *onebit.Options) { o.Lambda = 1e300 }}, // 2*Lambda*||Phi||_F^2 = 4.7e303
		{"Lambda 1e306", "Lambda", func(o *onebit.Options) { o.Lambda = 1e306 }},
		{"Lambda tiny", "", func(o *onebit.Options) { o.Lambda = tiny }},
		{"Rho max", "", func(o *onebit.Options) { o.Rho = big }},
		{"Rho max geometric", "", func(o *onebit.Options) { o.Rho, o.Policy = big, neadmm.RhoGeometric }},
		{"Rho max, Lambda 1e300", "Lambda", func(o *onebit.Options) { o.Rho, o.Lambda = big, 1e300 }}, // L = Inf
		{"RhoGrowth max", "", func(o *onebit.Options) { o.Policy, o.RhoGrowth = neadmm.RhoGeometric, big }},
		{"EpsAbs max", "EpsAbs", func(o *onebit.Options) { o.EpsAbs = big }},
		{"EpsAbs tiny", "", func(o *onebit.Options) { o.EpsAbs = tiny }},
		{"EpsRel max", "EpsRel", func(o *onebit.Options) { o.EpsRel = big }},
		{"EpsRel 2^960", "", func(o *onebit.Options) { o.EpsRel = 0x1p960 }},
		{"EpsAbs, EpsRel 0", "", func(o *onebit.Options) { o.EpsAbs, o.EpsRel = 0, 0 }},
		{"InnerTol max", "", func(o *onebit.Options) { o.InnerTol = big }},
		{"InnerTol 0", "", func(o *onebit.Options) { o.InnerTol = 0 }},
		{"InnerRel max", "", func(o *onebit.Options) { o.InnerRel = big }},
		{"MaxIter max", "", func(o *onebit.Options) { o.MaxIter = math.MaxInt }},
		{"InnerMaxIter max", "", func(o *onebit.Options) { o.InnerMaxIter = math.MaxInt }},
		{"Seed max", "", func(o *onebit.Options) { o.Start, o.Seed = onebit.StartRandom, math.MaxUint64 }},
	} {
		for _, ws := range []bool{true, false} {
			var s onebit.Solver
			x := make([]float64, in.N)
			o := onebit.DefaultOptions()
			o.WorkingSet = ws
			c.mod(&o)
			_, err := s.Solve(ctx, p, x, o)
			check(fmt.Sprintf("Solve %s, WorkingSet %v", c.name, ws), c.want, err, x)
		}
	}
	for _, c := range []struct {
		name, want string
		mod        func(*onebit.RecoverOptions)
	}{
		{"LambdaMax max", "Lambda", func(o *onebit.RecoverOptions) { o.LambdaMax = big }},
		{"LambdaStart tiny", "Lambda", func(o *onebit.RecoverOptions) { o.LambdaStart = tiny }},
		{"LambdaGrowth max", "", func(o *onebit.RecoverOptions) { o.LambdaGrowth = big }},
		{"RhoScale max", "Rho", func(o *onebit.RecoverOptions) { o.RhoScale = big }},
		{"RhoScale tiny", "Rho", func(o *onebit.RecoverOptions) { o.RhoScale = tiny }},
		{"RhoPower max", "Rho", func(o *onebit.RecoverOptions) { o.RhoPower = big }},
		{"RhoPower 0", "", func(o *onebit.RecoverOptions) { o.RhoPower = 0 }},
		{"EpsAbs max", "EpsAbs", func(o *onebit.RecoverOptions) { o.EpsAbs = big }},
		{"EpsRel max", "EpsRel", func(o *onebit.RecoverOptions) { o.EpsRel = big }},
		{"CleanEpsRel max", "CleanEpsRel", func(o *onebit.RecoverOptions) { o.CleanEpsRel = big }},
		{"InnerTol max", "", func(o *onebit.RecoverOptions) { o.InnerTol = big }},
		{"InnerRel max", "", func(o *onebit.RecoverOptions) { o.InnerRel = big }},
		{"CleanLambdaGrowth max", "", func(o *onebit.RecoverOptions) { o.CleanLambdaGrowth = big }},
		{"CleanReweightRel max", "", func(o *onebit.RecoverOptions) { o.CleanReweightRel = big }},
		{"CleanMaxOutliers 1", "", func(o *onebit.RecoverOptions) { o.CleanMaxOutliers = 1 }},
		{"Cap max", "", func(o *onebit.RecoverOptions) { o.Cap = big }},
		{"Cap tiny", "", func(o *onebit.RecoverOptions) { o.Cap = tiny }},
		{"ReweightEps max", "", func(o *onebit.RecoverOptions) { o.ReweightEps = big }},
		{"ReweightEps tiny", "", func(o *onebit.RecoverOptions) { o.ReweightEps = tiny }},
		{"SupportGrowth max", "", func(o *onebit.RecoverOptions) { o.SupportGrowth = big }},
		{"StageIter max", "", func(o *onebit.RecoverOptions) { o.StageIter = math.MaxInt }},
		{"InnerMaxIter max", "", func(o *onebit.RecoverOptions) { o.InnerMaxIter = math.MaxInt }},
		{"RefitMaxIter max", "", func(o *onebit.RecoverOptions) { o.RefitMaxIter = math.MaxInt }},
		{"Reweight 100", "", func(o *onebit.RecoverOptions) { o.Reweight = 100 }},
	} {
		for _, ws := range []bool{true, false} {
			var s onebit.Solver
			x := make([]float64, in.N)
			o := onebit.DefaultRecoverOptions()
			o.WorkingSet = ws
			c.mod(&o)
			_, err := s.Recover(ctx, p, x, o)
			check(fmt.Sprintf("Recover %s, WorkingSet %v", c.name, ws), c.want, err, x)
		}
	}
	var s onebit.Solver
	x := make([]float64, in.N)
	for _, c := range []struct {
		name, want string
		o          onebit.BIHTOptions
	}{
		{"K = N", "", onebit.BIHTOptions{K: in.N, MaxIter: 10}},
		{"MaxIter max", "", onebit.BIHTOptions{K: 3, MaxIter: math.MaxInt}},
		{"K max", "K", onebit.BIHTOptions{K: math.MaxInt, MaxIter: 10}},
	} {
		_, err := onebit.BIHT(ctx, p, x, c.o)
		check("BIHT "+c.name, c.want, err, x)
		_, err = s.BIHT(ctx, p, x, c.o)
		check("Solver.BIHT "+c.name, c.want, err, x)
	}
	for _, th := range []float64{0, tiny, big} {
		check(fmt.Sprintf("Passive %g", th), "", onebit.Passive(p, x, th), x)
	}
}

// TestOverflowNamesOptions: a value that leaves the floating-point range
// during a solve, which options at the edge of their checks can still
// cause (here EpsRel = 2^960 times multipliers of a huge rho), is an
// error wrapping ErrBadInput as well as neadmm.ErrNotFinite, naming the
// options.
func TestOverflowNamesOptions(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 60, 40, 3, 2))
	o := onebit.DefaultOptions()
	o.Rho, o.EpsRel = 1e200, 0x1p960
	var s onebit.Solver
	_, err := s.Solve(context.Background(), p, make([]float64, 40), o)
	require.ErrorIs(t, err, onebit.ErrBadInput)
	assert.ErrorIs(t, err, neadmm.ErrNotFinite)
	assert.ErrorContains(t, err, "EpsRel = 9.7453140114e+288")
}

// TestIterationCapsAllocateNothing: no option sizes an allocation. The
// iteration caps at MaxInt (they bound work, which the context bounds
// too) allocate nothing on a Solver that ran the defaults.
func TestIterationCapsAllocateNothing(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 60, 40, 3, 1))
	ctx := context.Background()
	var s onebit.Solver
	x := make([]float64, 40)
	o := onebit.DefaultOptions()
	ro := onebit.DefaultRecoverOptions()
	bo := onebit.BIHTOptions{K: 3, MaxIter: onebit.DefaultBIHTMaxIter}
	_, err := s.Solve(ctx, p, x, o)
	require.NoError(t, err)
	_, err = s.Recover(ctx, p, x, ro)
	require.NoError(t, err)
	_, err = s.BIHT(ctx, p, x, bo)
	require.NoError(t, err)
	o.MaxIter, o.InnerMaxIter = math.MaxInt, math.MaxInt
	ro.StageIter, ro.InnerMaxIter, ro.RefitMaxIter = math.MaxInt, math.MaxInt, math.MaxInt
	bo.MaxIter = math.MaxInt
	assert.Zero(t, testing.AllocsPerRun(3, func() { _, _ = s.Solve(ctx, p, x, o) }), "Solve")
	assert.Zero(t, testing.AllocsPerRun(3, func() { _, _ = s.Recover(ctx, p, x, ro) }), "Recover")
	assert.Zero(t, testing.AllocsPerRun(3, func() { _, _ = s.BIHT(ctx, p, x, bo) }), "Solver.BIHT")
}

// TestRecoverScaleInvariant guards the documented independence of
// Recover's lambda units from the scale of Phi. ||Phi||_F^2 was a plain
// sum of squares: at Phi*2^-600 it underflowed to 0, and Recover fell back
// to the scale of a zero Phi (angular error 0.22 instead of 0.0027); at
// Phi*1e-155 the raw lambda overflowed (ErrBadInput for data NewProblem
// accepted). Scaling by a power of two is exact, and so is Recover's
// arithmetic under it (or, beyond 2^±64, Recover runs on a copy scaled
// back), so the estimates must agree bit for bit.
func TestRecoverScaleInvariant(t *testing.T) {
	in := mustGenerate(t, 200, 100, 4, 3)
	ctx := context.Background()
	scaled := func(c float64) *onebit.Problem {
		phi := make([]float64, len(in.Phi))
		for i, v := range in.Phi {
			phi[i] = v * c
		}
		p, err := onebit.NewProblem(phi, in.M, in.N, in.Y)
		require.NoError(t, err, "scale %g", c)
		return p
	}
	for _, ws := range []bool{true, false} {
		ro := onebit.DefaultRecoverOptions()
		ro.WorkingSet = ws // false: the stages need ||Phi||_2^2 (power iteration) too
		var ref []float64
		var refRes onebit.RecoverResult
		for _, k := range []int{0, -600, -500, 500, -70, 70} {
			var s onebit.Solver
			x := make([]float64, in.N)
			res, err := s.Recover(ctx, scaled(math.Ldexp(1, k)), x, ro)
			require.NoError(t, err, "WorkingSet %v, 2^%d", ws, k)
			if k == 0 {
				ref, refRes = x, res
				require.Less(t, onebit.AngularError(in.X, x), 0.01)
				continue
			}
			for j := range x {
				if x[j] != ref[j] {
					t.Fatalf("WorkingSet %v, Phi*2^%d: x[%d] = %v, want %v (Phi unscaled)", ws, k, j, x[j], ref[j])
				}
			}
			assert.Equal(t, refRes.Products, res.Products, "WorkingSet %v, 2^%d", ws, k)
			assert.Equal(t, refRes.Support, res.Support, "WorkingSet %v, 2^%d", ws, k)
			// A second call on the same Problem reuses the Solver's copy.
			res2, err := s.Recover(ctx, scaled(math.Ldexp(1, k)), x, ro)
			require.NoError(t, err)
			assert.Equal(t, res.Products, res2.Products)
		}
	}
	// Scales that are not powers of two round every entry of Phi (by at
	// most half an ulp): the estimate moves by rounding-level amounts on
	// this instance, far within 1e-9 of the unscaled angular error (the
	// failures were an error, and 0.22 against 0.0027).
	var s onebit.Solver
	x := make([]float64, in.N)
	_, err := s.Recover(ctx, scaled(1), x, onebit.DefaultRecoverOptions())
	require.NoError(t, err)
	want := onebit.AngularError(in.X, x)
	for _, c := range []float64{1e-155, 1e-200, 1e150} {
		_, err := s.Recover(ctx, scaled(c), x, onebit.DefaultRecoverOptions())
		require.NoError(t, err, "scale %g", c)
		assert.InDelta(t, want, onebit.AngularError(in.X, x), 1e-9, "scale %g", c)
	}
}

// TestRecoverZeroRowsReused guards the margin computation on a support
// whose rows are all zero (here Phi = 0) with a Solver that ran Recover on
// a larger problem before: Wolfe's algorithm kept the earlier corral, and
// the bound's pool read its measurement indices past this problem's M (an
// index-out-of-range panic). Phi = 0 keeps Recover's unit-scale fallback
// and gives a unit estimate.
func TestRecoverZeroRowsReused(t *testing.T) {
	ctx := context.Background()
	var s onebit.Solver
	x := make([]float64, 100)
	_, err := s.Recover(ctx, mustProblem(t, mustGenerate(t, 200, 100, 4, 3)), x, onebit.DefaultRecoverOptions())
	require.NoError(t, err)
	p, err := onebit.NewProblem(make([]float64, 6), 2, 3, []float64{1, -1})
	require.NoError(t, err)
	x = x[:3]
	_, err = s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
	require.NoError(t, err)
	assert.InDelta(t, 1, norm(x), 1e-15)
}

func norm(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}
