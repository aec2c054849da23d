package mil

import "sync"

// cvGroup is the work of one shared setup of FitCV: the lambda paths of
// the live pairs (scaling, pooling) of one fold whose poolings share a
// kind of setup (see prepKind).
type cvGroup struct {
	fold, scaling, kind int
	pairs               []int
	// pr is the setup: set once prepared, dropped (nil) once every path
	// is done, so the memory it holds can be reclaimed.
	pr *prepared
	// errs[0] is the setup's error, errs[1+i] that of pairs[i]'s path.
	errs []error
	left int // paths not yet finished
}

// setupQueue runs the groups' setups and paths on a fixed number of
// goroutines with at most limit setups alive (being prepared, or prepared
// with paths left) at any time: FitCV's peak memory is then limit setups,
// whatever the number of folds, repeats or settings. A goroutine runs a
// path when one is ready (which frees setups sooner), else prepares the
// next group while fewer than limit setups are alive, else waits. Every
// group runs its setup before its paths, and each path writes only its
// own results, so the outcome does not depend on the order.
type setupQueue struct {
	mu     sync.Mutex
	cond   sync.Cond
	groups []*cvGroup
	next   int // the next group to prepare
	live   int // setups alive
	limit  int
	// preparing counts the setups being built: the paths they will add
	// keep the other goroutines waiting.
	preparing int
	ready     []pathTask
	aborted   bool // a task panicked: nothing more starts
	maxLive   int  // the largest live seen (for tests)
}

// pathTask is the path of g.pairs[i].
type pathTask struct {
	g *cvGroup
	i int
}

func newSetupQueue(groups []*cvGroup, limit int) *setupQueue {
	q := &setupQueue{groups: groups, limit: max(limit, 1)}
	q.cond.L = &q.mu
	return q
}

// run runs every group on w goroutines (w <= 1: on the calling one):
// prep(g) builds g.pr, fit(g, i) runs the path of g.pairs[i]; their errors
// go to g.errs. A panic in either stops the queue and, once the running
// tasks have returned, is raised again in the calling goroutine (see
// panicGuard).
func (q *setupQueue) run(w int, prep func(g *cvGroup) error, fit func(g *cvGroup, i int) error) {
	guard := newPanicGuard()
	if w <= 1 {
		q.work(guard, prep, fit)
	} else {
		var wg sync.WaitGroup
		for range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q.work(guard, prep, fit)
			}()
		}
		wg.Wait()
	}
	guard.repanic()
}

// work is one goroutine's loop of run.
func (q *setupQueue) work(guard *panicGuard, prep func(g *cvGroup) error, fit func(g *cvGroup, i int) error) {
	q.mu.Lock()
	for {
		switch {
		case q.aborted:
			q.mu.Unlock()
			return
		case len(q.ready) > 0:
			t := q.ready[0]
			q.ready = q.ready[1:]
			q.mu.Unlock()
			var err error
			ok := guard.run(func() { err = fit(t.g, t.i) })
			q.mu.Lock()
			t.g.errs[1+t.i] = err
			if t.g.left--; t.g.left == 0 {
				t.g.pr = nil
				q.live--
			}
			q.aborted = q.aborted || !ok
			q.cond.Broadcast()
		case q.next < len(q.groups) && q.live < q.limit:
			g := q.groups[q.next]
			q.next++
			q.live++
			q.preparing++
			q.maxLive = max(q.maxLive, q.live)
			q.mu.Unlock()
			var err error
			ok := guard.run(func() { err = prep(g) })
			q.mu.Lock()
			q.preparing--
			g.errs[0] = err
			if err != nil || !ok {
				g.pr = nil
				q.live--
			} else {
				g.left = len(g.pairs)
				for i := range g.pairs {
					q.ready = append(q.ready, pathTask{g, i})
				}
			}
			q.aborted = q.aborted || !ok
			q.cond.Broadcast()
		case q.next == len(q.groups) && q.preparing == 0:
			q.mu.Unlock()
			return // no path is ready and none will be
		default:
			q.cond.Wait()
		}
	}
}
