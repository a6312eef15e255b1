// Package random makes the seeded random streams the generators draw from.
// A stream is reseeded without allocating, so every record draws from a
// stream of its own, seeded by Seed from the world's seed, the record's kind
// and its number: record i of a kind is the same whatever order records are
// made in, and on however many goroutines.
package random
