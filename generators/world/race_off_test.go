//go:build !race

package world

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
