//go:build !linux

package mil

import "errors"

// addressSpaceCap reports whether capAddressSpace works here.
const addressSpaceCap = false

func capAddressSpace(uint64) error { return errors.New("no address space cap on this system") }

func peakRSS() (uint64, bool) { return 0, false }
