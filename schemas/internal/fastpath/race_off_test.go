//go:build !race

package fastpath

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
