//go:build !race

// Package race says whether the binary was built with the race detector,
// for the tests that shrink their data under it (it makes data-heavy code
// five to ten times slower) while still running their concurrent code.
package race

// Enabled reports whether the binary was built with the race detector.
const Enabled = false
