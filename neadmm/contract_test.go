package neadmm_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
)

// contract wraps a problem and checks, on every call, what the doc of
// neadmm.Problem promises: the order of the calls; that every call gets the
// caller's x1, x2 and y; that x1 changes only inside UpdateX1, x2 only
// inside UpdateX2 and y only in the dual update (between Constraint2 and
// the first Constraint1JacT); and that the hooks see the same iterate.
type contract struct {
	t     *testing.T
	inner interface {
		neadmm.Problem
		neadmm.Objectiver
	}
	x1, x2, y         []float64 // the caller's slices of the current solve
	x1Out, x2Out, yIs []float64 // what UpdateX1 and UpdateX2 left; y as it must be now
	calls             []string
	starts            int
}

func (c *contract) log(name string) { c.calls = append(c.calls, name) }

// same fails the test unless got is the caller's slice want and holds the
// values snap (bit for bit).
func (c *contract) same(call, name string, got, want, snap []float64) {
	c.t.Helper()
	if &got[0] != &want[0] || len(got) != len(want) {
		c.t.Fatalf("%s: %s is not the caller's slice", call, name)
	}
	if !slices.Equal(got, snap) {
		c.t.Fatalf("%s: %s = %v changed since the call that owns it left %v", call, name, got, snap)
	}
}

func (c *contract) iterate(call string, x1, x2, y []float64) {
	c.t.Helper()
	c.same(call, "x1", x1, c.x1, c.x1Out)
	c.same(call, "x2", x2, c.x2, c.x2Out)
	c.same(call, "y", y, c.y, c.yIs)
}

func (c *contract) Dims() (int, int, int) {
	if c.starts > 0 && len(c.calls) > 0 && c.calls[len(c.calls)-1] != "Dims" {
		c.t.Fatalf("Dims called after %v", c.calls)
	}
	c.log("Dims")
	return c.inner.Dims()
}

func (c *contract) Start(ctx context.Context, x1, x2, y []float64) error {
	c.log("Start")
	c.starts++
	if ctx == nil {
		c.t.Fatal("Start: nil ctx")
	}
	c.x1Out, c.x2Out, c.yIs = slices.Clone(x1), slices.Clone(x2), slices.Clone(y)
	c.iterate("Start", x1, x2, y)
	return nil
}

func (c *contract) UpdateX1(x1, x2, y []float64, rho float64) error {
	c.log("X1")
	c.iterate("UpdateX1", x1, x2, y)
	err := c.inner.UpdateX1(x1, x2, y, rho)
	c.x1Out = slices.Clone(x1)
	return err
}

func (c *contract) UpdateX2(x2, x1, y []float64, rho float64) error {
	c.log("X2")
	c.iterate("UpdateX2", x1, x2, y)
	err := c.inner.UpdateX2(x2, x1, y, rho)
	c.x2Out = slices.Clone(x2)
	return err
}

func (c *contract) Constraint1(dst, x1 []float64) {
	c.log("C1")
	c.iterate("Constraint1", x1, c.x2, c.y)
	c.inner.Constraint1(dst, x1)
}

func (c *contract) Constraint2(dst, x2 []float64) {
	c.log("C2")
	c.iterate("Constraint2", c.x1, x2, c.y)
	c.inner.Constraint2(dst, x2)
}

func (c *contract) Constraint1JacT(dst, x1, v []float64) {
	c.log("J")
	c.same("Constraint1JacT", "x1", x1, c.x1, c.x1Out)
	c.same("Constraint1JacT", "x2", c.x2, c.x2, c.x2Out)
	c.yIs = slices.Clone(c.y) // the dual update happened just before
	c.inner.Constraint1JacT(dst, x1, v)
}

func (c *contract) Objective(x1, x2 []float64) float64 {
	c.log("O")
	c.iterate("Objective", x1, x2, c.y)
	return c.inner.Objective(x1, x2)
}

// hooks returns a Callback and a StopTest that log themselves and check
// the iterate is the one the problem last saw.
func (c *contract) hooks(stopAt int) (cb, test func(neadmm.Iteration) bool) {
	cb = func(it neadmm.Iteration) bool {
		c.log("cb")
		c.iterate("Callback", c.x1, c.x2, c.y)
		return false
	}
	test = func(it neadmm.Iteration) bool {
		c.log("test")
		c.iterate("StopTest", c.x1, c.x2, c.y)
		return it.K == stopAt
	}
	return cb, test
}

// expected is the documented call sequence of a solve of k iterations
// with EpsRel > 0, both objectives and both hooks.
func expected(k int) string {
	var b strings.Builder
	b.WriteString("Dims Start C2")
	for range k {
		b.WriteString(" | X1 X2 C1 C2 J J O cb test")
	}
	b.WriteString(" O") // the final objective
	return b.String()
}

func (c *contract) sequence() string {
	return strings.ReplaceAll(strings.Join(c.calls, " "), " X1", " | X1")
}

// TestProblemContract runs the engine on a wrapped problem that checks
// every promise of the Problem doc on every call, over two solves with a
// change of the iterate by the caller in between.
func TestProblemContract(t *testing.T) {
	a := []float64{3, -1, 2}
	c := &contract{t: t, inner: newProjection(a)}
	x1, x2, y := make([]float64, 3), []float64{1, 0, 0}, make([]float64, 4)
	c.x1, c.x2, c.y = x1, x2, y
	cb, test := c.hooks(5)
	opt := neadmm.Options{Rho: 1, EpsAbs: 1e-300, EpsRel: 1e-300, MaxIter: 100,
		Callback: cb, StopTest: test, IterationObjective: true, FinalObjective: true}
	var sv neadmm.Solver
	res, err := sv.Solve(context.Background(), c, x1, x2, y, opt)
	require.NoError(t, err)
	require.Equal(t, neadmm.StopTest, res.Reason)
	assert.Equal(t, expected(5), c.sequence())

	// The caller changes the iterate (a warm start with a new x2): the
	// second solve begins with Start again, which sees the new values.
	c.calls = nil
	x2[0], x2[1] = 0, 1
	cb, test = c.hooks(3)
	opt.Callback, opt.StopTest = cb, test
	res, err = sv.Solve(context.Background(), c, x1, x2, y, opt)
	require.NoError(t, err)
	require.Equal(t, neadmm.StopTest, res.Reason)
	assert.Equal(t, expected(3), c.sequence())
	assert.Equal(t, 2, c.starts)
}

// cachedMax is maxProblem with max t cached the way the contract allows:
// computed by UpdateX2 from its own output, used by Constraint2 and the
// next UpdateX1 without any check, dropped by Start.
type cachedMax struct {
	maxProblem
	tmax      float64
	valid     bool
	noStart   bool // a broken variant that ignores Start
	recompute int  // max computations outside UpdateX2
}

func (p *cachedMax) Start(ctx context.Context, x1, x2, y []float64) error {
	if !p.noStart {
		p.valid = false
	}
	return nil
}

func (p *cachedMax) max(t []float64) float64 {
	if !p.valid {
		p.recompute++
		return slices.Max(t)
	}
	return p.tmax
}

func (p *cachedMax) UpdateX1(x1, t, y []float64, rho float64) error {
	x1[0] = (2*p.b - y[0] + rho*p.max(t)) / (2 + rho)
	for j := range t {
		x1[1+j] = (2*p.phi[j] + y[1+j] + rho*t[j]) / (2 + rho)
	}
	return nil
}

func (p *cachedMax) UpdateX2(t, x1, y []float64, rho float64) error {
	err := p.maxProblem.UpdateX2(t, x1, y, rho)
	p.tmax, p.valid = slices.Max(t), true
	return err
}

func (p *cachedMax) Constraint2(dst, t []float64) {
	dst[0] = -p.max(t)
	copy(dst[1:], t)
}

// TestProblemContractCache: a problem that caches under the contract gives
// the same iterates, bit for bit, as one that recomputes, over two solves
// with the caller resetting t in between; the cache is used everywhere
// but at the start of each solve. Ignoring Start (the cache of the first
// solve leaks into the second) changes the result: the test can fail.
func TestProblemContractCache(t *testing.T) {
	phi := []float64{0.5, 3, -1, 2}
	n := len(phi)
	run := func(p neadmm.Problem) []float64 {
		var sv neadmm.Solver
		x1, tt, y := make([]float64, n+1), make([]float64, n), make([]float64, n+1)
		var out []float64
		for range 2 {
			clear(tt) // the caller's new start: t = 0
			_, err := sv.Solve(context.Background(), p, x1, tt, y, neadmm.Options{Rho: 1, MaxIter: 20})
			require.NoError(t, err)
			out = append(out, x1...)
			out = append(out, tt...)
		}
		return out
	}
	plain := run(&maxProblem{phi: phi, b: 1, v: make([]float64, n)})
	c := &cachedMax{maxProblem: maxProblem{phi: phi, b: 1, v: make([]float64, n)}}
	cached := run(c)
	if !slices.Equal(plain, cached) {
		t.Errorf("cached iterates differ:\n%v\n%v", cached, plain)
	}
	// Per solve: the initial Constraint2 and the first UpdateX1 compute.
	assert.Equal(t, 4, c.recompute)

	broken := run(&cachedMax{maxProblem: maxProblem{phi: phi, b: 1, v: make([]float64, n)}, noStart: true})
	assert.NotEqual(t, fmt.Sprint(plain), fmt.Sprint(broken), "a stale cache went unnoticed")
}

// ctxProblem is sqrtProblem with a Starter that keeps the context, as a
// problem with an inner iterative solver would, and optional faults.
type ctxProblem struct {
	sqrtProblem
	ctx       context.Context
	cancel    context.CancelFunc
	cancelAt  int   // UpdateX1 call that cancels (and, with passOn, returns ctx.Err())
	passOn    bool  // UpdateX1 returns ctx.Err() once it is done
	startErr  error // returned by Start
	x1s, x2s  int   // calls
	startedAt int
}

func (p *ctxProblem) Start(ctx context.Context, x1, x2, y []float64) error {
	p.ctx = ctx
	p.startedAt = p.x1s
	return p.startErr
}

func (p *ctxProblem) UpdateX1(x1, x2, y []float64, rho float64) error {
	p.x1s++
	if p.x1s == p.cancelAt {
		p.cancel()
	}
	if p.passOn {
		if err := p.ctx.Err(); err != nil {
			return fmt.Errorf("inner solver: %w", err)
		}
	}
	return p.sqrtProblem.UpdateX1(x1, x2, y, rho)
}

func (p *ctxProblem) UpdateX2(x2, x1, y []float64, rho float64) error {
	p.x2s++
	return p.sqrtProblem.UpdateX2(x2, x1, y, rho)
}

// TestSolveCancelInside checks the cancellation paths inside an
// iteration: the check between the updates, a subproblem that passes the
// context's error on, and Start.
func TestSolveCancelInside(t *testing.T) {
	opt := neadmm.Options{Rho: 1, EpsAbs: 1e-300, MaxIter: 100, FinalObjective: true}
	var sv neadmm.Solver
	solve := func(p *ctxProblem, ctx context.Context) (neadmm.Result, error) {
		return sv.Solve(ctx, p, []float64{1}, []float64{1}, []float64{-2}, opt)
	}

	// Cancelled during UpdateX1 of iteration 3: UpdateX2 is not called.
	ctx, cancel := context.WithCancel(context.Background())
	p := &ctxProblem{cancel: cancel, cancelAt: 3}
	res, err := solve(p, ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "iteration 3: cancelled after the x1-update")
	assert.Equal(t, neadmm.StopCancelled, res.Reason)
	assert.Equal(t, 2, res.Iterations)
	assert.Equal(t, 3, p.x1s)
	assert.Equal(t, 2, p.x2s)
	assert.True(t, p.ctx == ctx, "Start received Solve's context")

	// The subproblem returns the context's error: a cancellation, not a
	// failure.
	ctx, cancel = context.WithCancel(context.Background())
	p = &ctxProblem{cancel: cancel, cancelAt: 4, passOn: true}
	res, err = solve(p, ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "iteration 4: x1-update: inner solver")
	assert.Equal(t, neadmm.StopCancelled, res.Reason)
	assert.Equal(t, 3, res.Iterations)
	assert.Equal(t, 3, p.x2s)

	// An error from Start ends the solve before any update.
	sentinel := errors.New("no setup")
	p = &ctxProblem{startErr: sentinel}
	res, err = solve(p, context.Background())
	require.ErrorIs(t, err, sentinel)
	assert.Equal(t, neadmm.StopError, res.Reason)
	assert.Zero(t, p.x1s)
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	p = &ctxProblem{startErr: ctx.Err()}
	res, err = solve(p, ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, neadmm.StopCancelled, res.Reason)

	// A subproblem error that merely mentions a context error while ctx
	// is live is a failure.
	p = &ctxProblem{}
	fail := &failing{Problem: p, at: 2, err: fmt.Errorf("inner: %w", context.Canceled)}
	res, err = sv.Solve(context.Background(), fail, []float64{1}, []float64{1}, []float64{-2}, neadmm.Options{Rho: 1, MaxIter: 10})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, neadmm.StopError, res.Reason)
}
