package neadmm

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/vec"
)

// Cancel-to-return latencies on a 2000 x 2000 dense lasso, where one FISTA
// iteration (two matrix-vector products) takes about 1.5 ms on the
// development machine. The tests measure wall time from cancel() to the
// return of Solve and log it; the asserted bound is loose (a busy machine,
// qemu) but far below what a missing check costs (seconds). The granularity
// itself is tested by call counts in TestFISTACancel and
// TestSolveCancelInside.
const latencyN = 2000

// cancelLatency runs solve on another goroutine, cancels its context after
// 50 ms and returns the time from the cancellation to solve's return, and
// solve's error.
func cancelLatency(solve func(ctx context.Context) error) (time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- solve(ctx) }()
	time.Sleep(50 * time.Millisecond)
	at := time.Now()
	cancel()
	err := <-done
	return time.Since(at), err
}

func TestFISTACancelLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("large problem")
	}
	l := newLasso(rand.New(rand.NewPCG(33, 34)), latencyN, latencyN, 20, 0.01)
	var fs FISTA
	x := make([]float64, l.cols)
	var res FISTAResult
	latency, err := cancelLatency(func(ctx context.Context) (err error) {
		res, err = fs.Solve(ctx, l, x, FISTAOptions{L: l.frobenius2(), MaxIter: 1 << 30})
		return err
	})
	t.Logf("FISTA %d x %d: cancel-to-return %v after %d iterations", latencyN, latencyN, latency, res.Iterations)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, latency, time.Second)
}

// consensus is min lasso(x1) + 1/2 ||x2||^2 s.t. x1 - x2 = 0, an engine
// problem whose x1-update runs FISTA on the lasso (thousands of iterations
// per update: seconds) with the solve's context, handed over by Start.
type consensus struct {
	l     *lasso
	fs    FISTA
	ctx   context.Context
	c     []float64 // x2 - y/rho, the centre of the x1-update's coupling
	rho   float64
	inner int
}

func (p *consensus) Dims() (int, int, int) { return p.l.cols, p.l.cols, p.l.cols }

func (p *consensus) Start(ctx context.Context, x1, x2, y []float64) error {
	p.ctx = ctx
	return nil
}

func (p *consensus) UpdateX1(x1, x2, y []float64, rho float64) error {
	p.rho = rho
	vec.AddScaledTo(p.c, x2, -1/rho, y)
	_, err := p.fs.Solve(p.ctx, p, x1, FISTAOptions{L: p.l.frobenius2() + rho, MaxIter: p.inner})
	return err
}

// UpdateX2 minimizes 1/2 ||x2||^2 - y^T x2 + rho/2 ||x1 - x2||^2.
func (p *consensus) UpdateX2(x2, x1, y []float64, rho float64) error {
	for i := range x2 {
		x2[i] = (y[i] + rho*x1[i]) / (1 + rho)
	}
	return nil
}

func (p *consensus) Constraint1(dst, x1 []float64) { copy(dst, x1) }

func (p *consensus) Constraint2(dst, x2 []float64) {
	for i, v := range x2 {
		dst[i] = -v
	}
}

func (p *consensus) Constraint1JacT(dst, x1, v []float64) { copy(dst, v) }

// The FISTA problem of the x1-update: lasso + rho/2 ||x - c||^2.

func (p *consensus) Func(x []float64) float64 { return p.l.Func(x) + p.coupling(nil, x) }

func (p *consensus) FuncGrad(g, x []float64) float64 {
	return p.l.FuncGrad(g, x) + p.coupling(g, x)
}

func (p *consensus) coupling(g, x []float64) float64 {
	q := 0.0
	for i, xi := range x {
		d := xi - p.c[i]
		q += d * d
		if g != nil {
			g[i] += p.rho * d
		}
	}
	return p.rho / 2 * q
}

func (p *consensus) Prox(dst, x []float64, step float64) { p.l.Prox(dst, x, step) }

// TestSolveCancelLatency cancels the engine while the x1-update's FISTA
// runs: the context reaches FISTA through Starter, so the solve returns
// within one FISTA iteration instead of after the update (seconds).
func TestSolveCancelLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("large problem")
	}
	l := newLasso(rand.New(rand.NewPCG(37, 38)), latencyN, latencyN, 20, 0.01)
	p := &consensus{l: l, c: make([]float64, latencyN), inner: 5000}
	x1, x2, y := make([]float64, latencyN), make([]float64, latencyN), make([]float64, latencyN)
	var sv Solver
	var res Result
	latency, err := cancelLatency(func(ctx context.Context) (err error) {
		res, err = sv.Solve(ctx, p, x1, x2, y, Options{Rho: 1, MaxIter: 1000})
		return err
	})
	t.Logf("engine %d x %d (x1-update: FISTA): cancel-to-return %v", latencyN, latencyN, latency)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, StopCancelled, res.Reason)
	assert.Less(t, latency, time.Second)
}
