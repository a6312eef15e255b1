//go:build race

package walker

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
