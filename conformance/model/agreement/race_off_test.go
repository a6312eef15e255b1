//go:build !race

package agreement

// raceEnabled: under the race detector the mock and the oracle run several
// times slower, and the agreement test asks fewer queries.
const raceEnabled = false
