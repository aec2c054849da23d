package onebit

// Problem.WithSigns: a Problem with another sign vector on the same Phi,
// sharing what is derived from Phi alone, and the reusable Solver.BIHT.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

// signsOn returns sign(Phi x) (sign(0) = +1) for a k-sparse direction x
// drawn from seed, each sign flipped with probability flip.
func signsOn(phi []float64, m, n, k int, flip float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x7369676e73)) // "signs"
	x := make([]float64, n)
	for _, j := range r.Perm(n)[:k] {
		x[j] = r.NormFloat64()
	}
	y := make([]float64, m)
	vec.MulVec(y, phi, m, n, x)
	for i, v := range y {
		y[i] = sign(v)
		if r.Float64() < flip {
			y[i] = -y[i]
		}
	}
	return y
}

// scaledPhi returns a copy of phi times 2^e (exact while the entries stay
// normal).
func scaledPhi(phi []float64, e int) []float64 {
	c := make([]float64, len(phi))
	for i, v := range phi {
		c[i] = math.Ldexp(v, e)
	}
	return c
}

// decodeDigest runs every solver on p with s, in a fixed order, and
// returns their results (or errors, after "error:") and the bits of their
// estimates as one string: Solve with the default (working set) and the
// paper's (full matrix, which needs ||Phi||_2^2) options, Recover with the
// default options and on the full matrix, BIHT and Solver.BIHT told k.
func decodeDigest(s *Solver, p *Problem, k int) string {
	ctx := context.Background()
	_, n := p.Dims()
	x := make([]float64, n)
	var b strings.Builder
	bits := func(name string, res any, err error) {
		if err != nil {
			fmt.Fprintf(&b, "%s error: %v\n", name, err)
		}
		fmt.Fprintf(&b, "%s %+v", name, res)
		for _, v := range x {
			fmt.Fprintf(&b, " %x", math.Float64bits(v))
		}
		b.WriteString("\n")
	}
	res, err := s.Solve(ctx, p, x, DefaultOptions())
	bits("Solve", res, err)
	res, err = s.Solve(ctx, p, x, PaperOptions())
	bits("Solve paper", res, err)
	rec, err := s.Recover(ctx, p, x, DefaultRecoverOptions())
	bits("Recover", rec, err)
	ro := DefaultRecoverOptions()
	ro.WorkingSet = false
	rec, err = s.Recover(ctx, p, x, ro)
	bits("Recover full", rec, err)
	bo := BIHTOptions{K: k, MaxIter: DefaultBIHTMaxIter}
	br, err := BIHT(ctx, p, x, bo)
	bits("BIHT", br, err)
	br, err = s.BIHT(ctx, p, x, bo)
	bits("Solver.BIHT", br, err)
	return b.String()
}

// TestWithSignsIdentical runs every solver on WithSigns siblings of one
// Problem and on fresh NewProblems with the same signs, on both families
// (Gaussian and ±1/sqrt(M) Phi), with and without flipped signs, and on
// Phi scaled to the extreme scales where Recover runs on a copy: the
// results must agree bit for bit. One Solver per side runs the same
// sequence of calls, so the sibling's side reuses its copy of a scaled
// Phi and the norm estimate, which the fresh side makes anew each time.
func TestWithSignsIdentical(t *testing.T) {
	const m, n, k = 80, 120, 4
	for _, fam := range []string{"gauss", "rademacher"} {
		for _, flip := range []float64{0, 0.05} {
			for seed := uint64(1); seed <= 3; seed++ {
				var in *Instance
				if fam == "gauss" {
					in, _ = problemFor(t, GenOptions{M: m, N: n, K: k, Flip: flip, Seed: seed})
				} else {
					in, _ = rademacherFor(t, m, n, k, flip, seed)
				}
				scales := []int{0}
				if seed == 1 {
					scales = append(scales, -600, 400) // Recover's copy of Phi
				}
				for _, e := range scales {
					phi := scaledPhi(in.Phi, e)
					p, err := NewProblem(phi, m, n, in.Y)
					require.NoError(t, err)
					ys := [][]float64{in.Y, signsOn(in.Phi, m, n, k, flip, seed+100), signsOn(in.Phi, m, n, k, flip, seed+200)}
					var s1, s2 Solver
					for i, y := range ys {
						name := fmt.Sprintf("%s flip %g seed %d scale 2^%d signs %d", fam, flip, seed, e, i)
						sib, err := p.WithSigns(y)
						require.NoError(t, err, name)
						fresh, err := NewProblem(phi, m, n, y)
						require.NoError(t, err, name)
						want := decodeDigest(&s2, fresh, k)
						require.NotContains(t, want, "error:", name)
						require.Equal(t, want, decodeDigest(&s1, sib, k), name)
					}
				}
			}
		}
	}
}

// TestWithSignsShares checks what a sibling shares with its Problem and
// what it owns: Phi and the norm estimate (computed once for all), its
// own copy of the signs.
func TestWithSignsShares(t *testing.T) {
	in, p := problemFor(t, GenOptions{M: 40, N: 30, K: 3, Seed: 2})
	y := signsOn(in.Phi, 40, 30, 3, 0, 7)
	sib, err := p.WithSigns(y)
	require.NoError(t, err)
	assert.Same(t, p.phiData, sib.phiData)
	assert.Equal(t, y, sib.Y())
	y[0] = -y[0]
	assert.NotEqual(t, y[0], sib.Y()[0], "WithSigns copies y")
	assert.Equal(t, in.Y, p.Y(), "p keeps its signs")
	assert.False(t, p.norm.done.Load())
	v := sib.Norm2() // computed through the sibling ...
	assert.True(t, p.norm.done.Load())
	assert.Equal(t, v, p.Norm2()) // ... is p's
	// A sibling of a sibling shares the same.
	sib2, err := sib.WithSigns(in.Y)
	require.NoError(t, err)
	assert.Same(t, p.phiData, sib2.phiData)

	allocs := testing.AllocsPerRun(100, func() {
		if _, err := p.WithSigns(in.Y); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, allocs, 2.0, "WithSigns allocates the Problem and the copy of y")
}

// TestWithSignsBadInput: a wrong length or a value other than ±1 is an
// error wrapping ErrBadInput, and p is left as it was.
func TestWithSignsBadInput(t *testing.T) {
	in, p := problemFor(t, GenOptions{M: 30, N: 20, K: 2, Seed: 4})
	var s Solver
	x := make([]float64, 20)
	before, err := s.Recover(context.Background(), p, x, DefaultRecoverOptions())
	require.NoError(t, err)
	xBefore := slices.Clone(x)
	bad := func(i int, v float64) []float64 {
		y := slices.Clone(in.Y)
		y[i] = v
		return y
	}
	for name, y := range map[string][]float64{
		"nil":   nil,
		"short": in.Y[:29],
		"long":  append(slices.Clone(in.Y), 1),
		"zero":  bad(3, 0),
		"-0":    bad(0, math.Copysign(0, -1)),
		"two":   bad(29, 2),
		"half":  bad(5, -0.5),
		"NaN":   bad(7, math.NaN()),
		"+Inf":  bad(8, math.Inf(1)),
	} {
		q, err := p.WithSigns(y)
		assert.ErrorIs(t, err, ErrBadInput, name)
		assert.Nil(t, q, name)
	}
	for name, q := range map[string]*Problem{"nil": nil, "zero": {}} {
		_, err := q.WithSigns(in.Y)
		assert.ErrorIs(t, err, ErrBadInput, name)
		assert.ErrorContains(t, err, "NewProblem", name)
	}
	assert.Equal(t, in.Y, p.Y())
	after, err := s.Recover(context.Background(), p, x, DefaultRecoverOptions())
	require.NoError(t, err)
	assert.Equal(t, before, after)
	assert.Equal(t, xBefore, x)
}

// TestWithSignsConcurrent decodes siblings of one Problem from several
// goroutines at once, each with its own Solver, while another computes
// the shared norm estimate (Norm2) and feeds WithSigns bad input: every
// result must be the sequential one (run it with -race). The solves on
// the full matrix wait for the estimate (none is cached at the start).
func TestWithSignsConcurrent(t *testing.T) {
	const m, n, k = 60, 90, 3
	for _, e := range []int{0, -600} { // -600: each Solver's own scaled copy
		in, _ := problemFor(t, GenOptions{M: m, N: n, K: k, Flip: 0.02, Seed: 5})
		phi := scaledPhi(in.Phi, e)
		ys := make([][]float64, 6)
		want := make([]string, len(ys))
		for i := range ys {
			ys[i] = signsOn(in.Phi, m, n, k, 0.02, uint64(10+i))
			fresh, err := NewProblem(phi, m, n, ys[i])
			require.NoError(t, err)
			var s Solver
			want[i] = decodeDigest(&s, fresh, k)
			require.NotContains(t, want[i], "error:")
		}
		p, err := NewProblem(phi, m, n, in.Y)
		require.NoError(t, err)
		var wg sync.WaitGroup
		got := make([][]string, 3)
		for g := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[g] = make([]string, len(ys))
				for i := range ys {
					sib, err := p.WithSigns(ys[i])
					if err != nil {
						got[g][i] = err.Error()
						continue
					}
					var s Solver // a new one per sign vector, as want's
					got[g][i] = decodeDigest(&s, sib, k)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				_ = p.Norm2()
				if _, err := p.WithSigns(ys[0][:m-1]); !errors.Is(err, ErrBadInput) {
					panic("WithSigns accepted a short y")
				}
			}
		}()
		wg.Wait()
		for g := range got {
			for i := range ys {
				assert.Equal(t, want[i], got[g][i], "scale 2^%d, goroutine %d, signs %d", e, g, i)
			}
		}
		assert.Equal(t, in.Y, p.Y())
	}
}

// TestNorm2WaitCancelled: a goroutine waiting for another's estimate of
// ||Phi||^2 gives up when its context is cancelled, and computes the
// estimate itself once the other gave up.
func TestNorm2WaitCancelled(t *testing.T) {
	_, p := problemFor(t, GenOptions{M: 30, N: 20, K: 2, Seed: 6})
	p.norm.lock <- struct{}{} // another goroutine is computing it
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.norm2Ctx(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, p.norm.done.Load())
	<-p.norm.lock // it gave up without an estimate
	v, err := p.norm2Ctx(context.Background())
	require.NoError(t, err)
	assert.Positive(t, v)
	assert.Equal(t, v, p.Norm2())
}

// TestSolverBIHTAllocs: Solver.BIHT allocates nothing on a repeat call,
// on a sibling, or on a smaller problem, and agrees with BIHT.
func TestSolverBIHTAllocs(t *testing.T) {
	in, p := problemFor(t, GenOptions{M: 200, N: 300, K: 5, Seed: 8})
	_, small := problemFor(t, GenOptions{M: 100, N: 150, K: 5, Seed: 9})
	sib, err := p.WithSigns(signsOn(in.Phi, 200, 300, 5, 0, 3))
	require.NoError(t, err)
	ctx := context.Background()
	var s Solver
	x, xs := make([]float64, 300), make([]float64, 150)
	o := BIHTOptions{K: 5, MaxIter: DefaultBIHTMaxIter}
	_, err = s.BIHT(ctx, p, x, o)
	require.NoError(t, err)
	for name, f := range map[string]func(){
		"repeat":  func() { _, _ = s.BIHT(ctx, p, x, o) },
		"sibling": func() { _, _ = s.BIHT(ctx, sib, x, o) },
		"smaller": func() { _, _ = s.BIHT(ctx, small, xs, o) },
	} {
		assert.Zero(t, testing.AllocsPerRun(5, f), name)
	}
	want := make([]float64, 300)
	wres, err := BIHT(ctx, sib, want, o)
	require.NoError(t, err)
	res, err := s.BIHT(ctx, sib, x, o)
	require.NoError(t, err)
	assert.Equal(t, wres, res)
	assert.Equal(t, want, x)
}
