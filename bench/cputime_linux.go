package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time of the calling OS thread (lock the
// goroutine to its thread around a measurement), from
// CLOCK_THREAD_CPUTIME_ID: nanosecond resolution, unlike getrusage's
// ticks, and blind to the time the thread waits while other work runs on
// a shared machine.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
