package mil

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkers: the option when > 0, else GOMAXPROCS, never more than the
// tasks and at least 1.
func TestWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	assert.Equal(t, procs, workers(0, procs+5))
	assert.Equal(t, procs, workers(-1, procs+5))
	assert.Equal(t, 3, workers(3, 10))
	assert.Equal(t, 2, workers(3, 2))
	assert.Equal(t, 1, workers(3, 0))
	assert.Equal(t, 1, workers(0, 0))
}

// TestParallelPanicReachesCaller: a task's panic in a worker goroutine is
// raised again in the goroutine that called parallel, once the other
// tasks have returned, with the value (an error stays matchable) and the
// worker's stack; no task starts after it.
func TestParallelPanicReachesCaller(t *testing.T) {
	errBoom := errors.New("boom")
	var started atomic.Int32
	v := recoverFrom(func() {
		parallel(1000, 2, func(i int) {
			started.Add(1)
			if i == 3 {
				panic(errBoom)
			}
			time.Sleep(time.Millisecond)
		})
	})
	wp, ok := v.(*workerPanic)
	require.True(t, ok, "recovered %T %v", v, v)
	require.ErrorIs(t, wp, errBoom)
	assert.Contains(t, wp.Error(), "boom [recovered from a worker goroutine")
	assert.Contains(t, wp.Error(), "workers_test.go")
	assert.Less(t, started.Load(), int32(1000), "tasks kept starting after the panic")

	// With one worker the task panics in the caller's goroutine itself.
	assert.Equal(t, errBoom, recoverFrom(func() { parallel(3, 1, func(int) { panic(errBoom) }) }))
}

func recoverFrom(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestRunScoreFuncPanicReachesCaller: Protocol.Run with two workers and a
// ScoreFunc that panics: the caller recovers the panic in its own
// goroutine, where a goroutine's panic used to end the process (hence a
// child process).
func TestRunScoreFuncPanicReachesCaller(t *testing.T) {
	if !inChild(t, childBudget) {
		return
	}
	d := twoConceptData(t, 20, 1)
	p := KFold(2, 1, 1)
	p.Workers = 2
	v := recoverFrom(func() {
		_, _ = p.Run(context.Background(), d, func(context.Context, *Dataset, *Dataset) ([]float64, error) {
			panic("score function exploded")
		})
	})
	require.NotNil(t, v)
	assert.Contains(t, fmt.Sprint(v), "score function exploded [recovered from a worker goroutine")
}
