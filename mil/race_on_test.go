//go:build race

package mil

// raceEnabled: the race detector's sync.Pool drops a random share of what
// is put back, so pooled scratch allocates now and then under it.
const raceEnabled = true
