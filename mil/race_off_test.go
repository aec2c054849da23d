//go:build !race

package mil

// raceEnabled: see race_on_test.go.
const raceEnabled = false
