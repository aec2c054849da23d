//go:build !linux

package main

import "time"

// threadCPU falls back to the wall clock where there is no thread CPU
// clock (the tables then show wall times).
func threadCPU() time.Duration { return time.Duration(time.Now().UnixNano()) }
