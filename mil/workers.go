package mil

import (
	"runtime"
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
func parallel(n, w int, task func(i int)) {
	if w <= 1 {
		for i := range n {
			task(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				task(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
