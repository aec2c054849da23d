package main

import (
	"context"
	"math"
	"time"
)

// calibrate returns how many calls of the measured operation take about
// target. fn(n) must run the operation n times. Like testing.B it grows n
// from 1, predicting from the last run, until a run takes at least half the
// target; unlike testing.B it leaves the repetitions to the caller so two
// implementations can be measured interleaved. It returns early, with the
// best estimate so far, when ctx is done.
func calibrate(ctx context.Context, fn func(n int), target time.Duration) int {
	n := 1
	for {
		d := timeIt(fn, n)
		if d >= target/2 || n >= math.MaxInt32 || ctx.Err() != nil {
			return max(1, int(float64(n)*float64(target)/float64(max(d, 1))))
		}
		next := 100 * n
		if d > 0 {
			next = int(1.2 * float64(n) * float64(target) / float64(d))
		}
		n = min(max(next, 2*n), 100*n)
	}
}

// timeIt returns the wall time of fn(n).
func timeIt(fn func(n int), n int) time.Duration {
	t0 := time.Now()
	fn(n)
	return time.Since(t0)
}
