package mil

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// workers returns how many goroutines to run n independent tasks on: the
// option w when it is > 0, else GOMAXPROCS, and never more than n.
func workers(w, n int) int {
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return max(1, min(w, n))
}

// parallel runs task(i) for i = 0..n-1 on w goroutines (w <= 1: in order
// on the calling goroutine). Tasks write only their own results, so the
// outcome does not depend on w or on scheduling.
//
// A task that panics (a caller's callback, such as a ScoreFunc, that
// panics) must not kill the process from a goroutine the caller cannot
// recover: the panic stops the hand-out of further tasks, the tasks
// already running finish, and parallel panics again in the calling
// goroutine with a *workerPanic holding the value and the stack of the
// first panic. With w <= 1 the task panics in the caller's goroutine
// directly.
func parallel(n, w int, task func(i int)) {
	if w <= 1 {
		for i := range n {
			task(i)
		}
		return
	}
	var wg sync.WaitGroup
	g := newPanicGuard()
	next := make(chan int)
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				g.run(func() { task(i) })
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-g.stop:
			break feed
		}
	}
	close(next)
	wg.Wait()
	g.repanic()
}

// panicGuard catches the panics of the tasks a group of goroutines runs
// and hands the first one to the goroutine that waits for them (see
// parallel).
type panicGuard struct {
	once  sync.Once
	first *workerPanic
	stop  chan struct{} // closed at the first panic
}

func newPanicGuard() *panicGuard { return &panicGuard{stop: make(chan struct{})} }

// run calls f, recovering a panic: the first is kept (with the stack at
// the panic) and closes g.stop. It reports whether f returned normally.
func (g *panicGuard) run(f func()) (ok bool) {
	defer func() {
		if ok {
			return
		}
		v := recover()
		if v == nil { // runtime.Goexit: the goroutine ends; the others must not wait for it
			v = "runtime.Goexit called by a task"
		}
		g.once.Do(func() {
			g.first = &workerPanic{value: v, stack: debug.Stack()}
			close(g.stop)
		})
	}()
	f()
	return true
}

// repanic panics with the first panic caught, if any; call it in the
// waiting goroutine once every goroutine running tasks has returned.
func (g *panicGuard) repanic() {
	if g.first != nil {
		panic(g.first)
	}
}

// workerPanic is the value parallel panics with in the calling goroutine
// when a task panicked in a worker: the task's panic value and the
// worker's stack at the panic. It is an error (matching the value with
// errors.Is and errors.As when the value is an error), so a caller that
// recovers it can report both.
type workerPanic struct {
	value any
	stack []byte
}

func (p *workerPanic) Error() string {
	return fmt.Sprintf("%v [recovered from a worker goroutine and re-panicked in the caller's]\n\nworker stack:\n%s", p.value, p.stack)
}

// Unwrap returns the panic value when it is an error, else nil.
func (p *workerPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}
