package onebit_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/onebit"
)

// The rows of issue 14 that concern this package: each input gets a clear
// error (matched with errors.Is) or a prompt return, never a crash or a
// hang.

func TestGenerateCap(t *testing.T) {
	// 2^40 entries would be 8 TiB: refused before any allocation.
	t0 := time.Now()
	_, err := onebit.Generate(onebit.GenOptions{M: 1 << 20, N: 1 << 20, K: 10})
	require.ErrorIs(t, err, onebit.ErrBadInput)
	assert.Contains(t, err.Error(), "MaxEntries")
	assert.Less(t, time.Since(t0), time.Second)
	// Just above the default cap, and the cap raised by the caller.
	_, err = onebit.Generate(onebit.GenOptions{M: onebit.DefaultMaxEntries/4 + 1, N: 4, K: 1})
	require.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = onebit.Generate(onebit.GenOptions{M: 30, N: 10, K: 2, MaxEntries: 299})
	require.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = onebit.Generate(onebit.GenOptions{M: 30, N: 10, K: 2, MaxEntries: 300})
	require.NoError(t, err)
	_, err = onebit.Generate(onebit.GenOptions{M: 30, N: 10, K: 2, MaxEntries: -1})
	require.ErrorIs(t, err, onebit.ErrBadInput)
}

func TestNilProblem(t *testing.T) {
	var s onebit.Solver
	ctx := context.Background()
	x := make([]float64, 3)
	_, err := s.Solve(ctx, nil, x, onebit.DefaultOptions())
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = s.Recover(ctx, nil, x, onebit.DefaultRecoverOptions())
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = onebit.BIHT(ctx, nil, x, onebit.BIHTOptions{K: 1, MaxIter: 1})
	assert.ErrorIs(t, err, onebit.ErrBadInput)
	assert.ErrorIs(t, onebit.Passive(nil, x, 0), onebit.ErrBadInput)
}

// TestSolverGuard: a Solver entered from a second goroutine while a solve
// runs panics with a clear message instead of corrupting the first solve.
// The callback of the first solve makes the overlap certain.
func TestSolverGuard(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 60, 40, 3, 2))
	var s onebit.Solver
	x, x2 := make([]float64, 40), make([]float64, 40)
	var msg string
	o := onebit.DefaultOptions()
	o.MaxIter = 3
	calls := 0
	o.Callback = func(neadmm.Iteration) bool {
		calls++
		if calls > 1 {
			return false
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { msg, _ = recover().(string) }()
			s.Recover(context.Background(), p, x2, onebit.DefaultRecoverOptions())
		}()
		wg.Wait()
		return false
	}
	_, err := s.Solve(context.Background(), p, x, o)
	require.NoError(t, err)
	assert.True(t, strings.Contains(msg, "two goroutines"), "panic message %q", msg)
	// Afterwards the Solver is free again, and its result unaffected.
	want := make([]float64, 40)
	var ref onebit.Solver
	o.Callback = nil
	_, err = ref.Solve(context.Background(), p, want, o)
	require.NoError(t, err)
	_, err = s.Solve(context.Background(), p, x, o)
	require.NoError(t, err)
	assert.Equal(t, want, x)
}

// TestSolverGuardRace runs solves from several goroutines, each with its
// own Solver, on one shared Problem (the race detector checks that nothing
// is shared but the read-only Problem), and the same solve again and again
// on one Solver from two goroutines in turn, serialized by a mutex: the
// guard must not fire when the use is sequential.
func TestSolverGuardRace(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 80, 60, 4, 9))
	var shared onebit.Solver
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var own onebit.Solver
			x := make([]float64, 60)
			for range 3 {
				_, err := own.Solve(context.Background(), p, x, onebit.DefaultOptions())
				assert.NoError(t, err)
				mu.Lock()
				_, err = shared.Solve(context.Background(), p, x, onebit.PaperOptions())
				mu.Unlock()
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
}

// cancelLatency starts f, cancels its context after delay and returns the
// time from the cancellation to f's return, and f's error.
func cancelLatency(delay time.Duration, f func(ctx context.Context) error) (time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	time.Sleep(delay)
	t0 := time.Now()
	cancel()
	select {
	case err := <-done:
		return time.Since(t0), err
	case <-time.After(30 * time.Second):
		return time.Since(t0), context.DeadlineExceeded // hung
	}
}

// TestCancelLatency: Solve and Recover at N = M = 2000 return promptly
// after a cancellation (the context is checked at every FISTA step, every
// stationarity check, every power-iteration step and every refit step).
// The goal is 10 ms; on a loaded shared machine a test cannot
// assert that, so it asserts 250 ms and logs the latency (bench onebit
// measures it).
func TestCancelLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2000 x 2000 problem")
	}
	const n = 2000
	in := mustGenerate(t, n, n, 20, 3)
	for _, c := range []struct {
		name string
		run  func(ctx context.Context, p *onebit.Problem, x []float64) error
	}{
		{"Solve", func(ctx context.Context, p *onebit.Problem, x []float64) error {
			var s onebit.Solver
			_, err := s.Solve(ctx, p, x, onebit.DefaultOptions())
			return err
		}},
		{"Solve paper (full matrix, power iteration)", func(ctx context.Context, p *onebit.Problem, x []float64) error {
			var s onebit.Solver
			_, err := s.Solve(ctx, p, x, onebit.PaperOptions())
			return err
		}},
		{"Recover", func(ctx context.Context, p *onebit.Problem, x []float64) error {
			var s onebit.Solver
			_, err := s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
			return err
		}},
	} {
		for _, delay := range []time.Duration{2 * time.Millisecond, 20 * time.Millisecond, 60 * time.Millisecond, 150 * time.Millisecond} {
			p := mustProblem(t, in) // a fresh Problem: the power iteration is not cached yet
			x := make([]float64, n)
			lat, err := cancelLatency(delay, func(ctx context.Context) error { return c.run(ctx, p, x) })
			if err == nil {
				t.Logf("%s finished within %v, before the cancellation", c.name, delay)
				continue
			}
			assert.ErrorIs(t, err, context.Canceled, c.name)
			assert.Less(t, lat, 250*time.Millisecond, "%s: cancel-to-return", c.name)
			t.Logf("%s cancelled after %v: returned %v later", c.name, delay, lat)
		}
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
