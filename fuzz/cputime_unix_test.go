//go:build unix

package fuzz

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) this process has used,
// and true; the Fit targets tell a slow Fit from a descheduled one by it.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
