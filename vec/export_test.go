package vec

// SweepPaths are the modes of SetSweepPath (see setSweepPath).
var SweepPaths = sweepPaths[:]

// SetSweepPath is setSweepPath for this package's external tests; it
// panics on an unknown mode.
func SetSweepPath(mode string) (restore func()) {
	restore, ok := setSweepPath(mode)
	if !ok {
		panic("vec.SetSweepPath: unknown mode " + mode)
	}
	return restore
}
