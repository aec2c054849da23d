package onebit_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/onebit"
	"github.com/neadmm/neadmm/vec"
)

func mustProblem(t testing.TB, in *onebit.Instance) *onebit.Problem {
	t.Helper()
	p, err := in.Problem()
	require.NoError(t, err)
	return p
}

func mustGenerate(t testing.TB, m, n, k int, seed uint64) *onebit.Instance {
	t.Helper()
	in, err := onebit.Generate(onebit.GenOptions{M: m, N: n, K: k, Seed: seed})
	require.NoError(t, err)
	return in
}

func TestNewProblemErrors(t *testing.T) {
	phi := []float64{1, 2, 3, 4, 5, 6} // 2 x 3
	y := []float64{1, -1}
	if _, err := onebit.NewProblem(phi, 2, 3, y); err != nil {
		t.Fatalf("valid problem: %v", err)
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name string
		phi  []float64
		m, n int
		y    []float64
	}{
		{"m = 0", nil, 0, 3, nil},
		{"n = 0", nil, 2, 0, y},
		{"short phi", phi[:5], 2, 3, y},
		{"long y", phi, 2, 3, []float64{1, 1, 1}},
		{"y = 0", phi, 2, 3, []float64{1, 0}},
		{"y = 2", phi, 2, 3, []float64{2, 1}},
		{"y = NaN", phi, 2, 3, []float64{1, nan}},
		{"phi NaN", []float64{1, 2, 3, nan, 5, 6}, 2, 3, y},
		{"phi Inf", []float64{1, 2, 3, 4, -inf, 6}, 2, 3, y},
		{"overflow", []float64{1e300, 1e300, 1e300, 1, 1, 1}, 2, 3, y},
	} {
		if _, err := onebit.NewProblem(c.phi, c.m, c.n, c.y); !errors.Is(err, onebit.ErrBadInput) {
			t.Errorf("%s: error %v, want ErrBadInput", c.name, err)
		}
	}
}

func TestNorm2(t *testing.T) {
	// Known spectrum: rows 3e_1, 1e_2, 2e_3 and a zero row: ||Phi||^2 = 9.
	phi := []float64{3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0}
	p, err := onebit.NewProblem(phi, 4, 3, []float64{1, 1, -1, 1})
	require.NoError(t, err)
	// The estimate is the power method's value times 1.02; the power
	// method converges here to 9 within its 1e-6 relative tolerance.
	if got := p.Norm2(); math.Abs(got-9*1.02) > 1e-5*9 {
		t.Errorf("Norm2 = %g, want 9*1.02 = %g", got, 9*1.02)
	}
	zero, _ := onebit.NewProblem(make([]float64, 6), 2, 3, []float64{1, 1})
	if zero.Norm2() != 0 {
		t.Errorf("Norm2 of zero matrix = %g", zero.Norm2())
	}
	// Gaussian matrices: the estimate must bound ||Phi||^2 from above (a
	// safe Lipschitz constant) by at most the 2% margin. The reference is
	// a 1500-step power iteration, whose Rayleigh quotient is a lower
	// bound accurate far beyond 1e-4 for these sizes.
	for _, d := range [][2]int{{40, 100}, {100, 40}, {250, 512}} {
		in := mustGenerate(t, d[0], d[1], 3, 7)
		p := mustProblem(t, in)
		ref := longPower(in.Phi, d[0], d[1], 1500)
		if est := p.Norm2(); !(est >= ref && est <= 1.02*ref*(1+1e-4)) {
			t.Errorf("%v: Norm2 = %g, reference %g (ratio %g)", d, est, ref, est/ref)
		}
	}
}

func longPower(phi []float64, m, n, iters int) float64 {
	v, u := make([]float64, n), make([]float64, m)
	for i := range v {
		v[i] = 1 + float64(i%5)
	}
	q := 0.0
	for range iters {
		vec.Scal(1/vec.Nrm2(v), v)
		vec.MulVec(u, phi, m, n, v)
		q = vec.Dot(u, u)
		vec.MulTransVec(v, phi, m, n, u)
	}
	return q
}

func TestObjectiveHammingBestCoordinate(t *testing.T) {
	// Phi = [1 2; -1 1; 0 -3], y = (1, 1, -1).
	phi := []float64{1, 2, -1, 1, 0, -3}
	p, err := onebit.NewProblem(phi, 3, 2, []float64{1, 1, -1})
	require.NoError(t, err)
	// x = (1, 0): Phi x = (1, -1, 0); y*Phi x = (1, -1, 0): loss 1/2,
	// signs (+, -, +) vs y: rows 2 and 3 disagree (sign(0) = +1).
	x := []float64{1, 0}
	if got := p.Objective(x, 0.5); got != 1+0.5*0.5 {
		t.Errorf("Objective = %g, want 1.25", got)
	}
	if got := p.Hamming(x); got != 2.0/3 {
		t.Errorf("Hamming = %g, want 2/3", got)
	}
	// x = (0, -1): Phi x = (-2, -1, 3), y*Phi x = (-2, -1, -3): loss 7.
	if got := p.Objective([]float64{0, -1}, 2); got != 1+2*7 {
		t.Errorf("Objective = %g, want 15", got)
	}
	if got := p.Objective([]float64{math.NaN(), 0}, 1); !math.IsNaN(got) {
		t.Errorf("Objective with NaN = %g", got)
	}
	// y_i*Phi_ij is (1, -1, 0) for j = 1 and (2, 1, 3) for j = 2: +e2
	// satisfies every measurement (objective 1); -e2 violates all three.
	b := make([]float64, 2)
	if got := p.BestCoordinate(b, 2); got != 1 || b[0] != 0 || b[1] != 1 {
		t.Errorf("BestCoordinate = %g at %v, want 1 at (0, 1)", got, b)
	}
	// Without column 2 the best is +e1 (loss 1/2) over -e1 (loss 1/2 from
	// row 1; row 3's 0 violates neither): the tie goes to +.
	p1, _ := onebit.NewProblem([]float64{1, -1, 0}, 3, 1, []float64{1, 1, -1})
	b1 := make([]float64, 1)
	if got := p1.BestCoordinate(b1, 2); got != 1+2*0.5 || b1[0] != 1 {
		t.Errorf("BestCoordinate = %g at %v, want 2 at (1)", got, b1)
	}
	if got, want := p.BestCoordinate(b, 2), p.Objective(b, 2); got != want {
		t.Errorf("BestCoordinate %g disagrees with Objective %g", got, want)
	}
}

func TestProblemPanics(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 5, 4, 2, 1))
	for name, f := range map[string]func(){
		"Objective":      func() { p.Objective(make([]float64, 3), 1) },
		"Hamming":        func() { p.Hamming(make([]float64, 5)) },
		"BestCoordinate": func() { p.BestCoordinate(nil, 1) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s with a wrong length did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestNewProblemCheap: NewProblem does not run the power iteration (it
// waits for a full-matrix solve), and that iteration is cancellable.
func TestNewProblemCheap(t *testing.T) {
	in := mustGenerate(t, 300, 200, 5, 4)
	p := mustProblem(t, in)
	var s onebit.Solver
	x := make([]float64, 200)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := onebit.PaperOptions()
	res, err := s.Solve(ctx, p, x, o)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, res.Iterations)
	// The default solve never needs ||Phi||^2 of the whole matrix.
	res, err = s.Solve(context.Background(), p, x, onebit.DefaultOptions())
	require.NoError(t, err)
	assert.Positive(t, res.WorkingSet)
	assert.Less(t, res.Work, 50.0)
}

// TestBestCoordinateTies pins BestCoordinate's tie rule ("lowest j and
// then +e_j on ties"): Phi all ones (2 x 3) with y = (1, -1) gives every
// signed coordinate vector the loss 1/2 (one violated row of magnitude
// 1), so the answer is +e_1, with objective 1 + lambda/2.
func TestBestCoordinateTies(t *testing.T) {
	p, err := onebit.NewProblem([]float64{1, 1, 1, 1, 1, 1}, 2, 3, []float64{1, -1})
	require.NoError(t, err)
	x := make([]float64, 3)
	require.Equal(t, 1.5, p.BestCoordinate(x, 1))
	require.Equal(t, []float64{1, 0, 0}, x)
}
