//go:build race

package generators

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
