package mil

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// addressSpaceCap reports whether capAddressSpace works here.
const addressSpaceCap = true

// capAddressSpace sets RLIMIT_AS to the current address space (VmSize:
// the runtime reserves far more than it uses) plus budget bytes.
func capAddressSpace(budget uint64) error {
	size, ok := statusBytes("VmSize:")
	if !ok {
		return fmt.Errorf("no VmSize in /proc/self/status")
	}
	lim := size + budget
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}

// peakRSS returns the peak resident memory of the process (VmHWM).
func peakRSS() (uint64, bool) { return statusBytes("VmHWM:") }

// statusBytes returns the value of a "key: N kB" line of
// /proc/self/status in bytes.
func statusBytes(key string) (uint64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) >= 2 && string(f[0]) == key {
			kb, err := strconv.ParseUint(string(f[1]), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
