//go:build !unix

package fuzz

import "time"

// processCPU reports no CPU clock: the Fit targets then judge by the wall
// clock alone.
func processCPU() (time.Duration, bool) { return 0, false }
