// Package world builds one consistent network from a seed and a scale:
// epochs, blocks, parties, teams, validator nodes, assets and markets, and
// from them the records of the five listings (games, core snapshots,
// Ethereum key rotations, network parameters and transactions). Every record
// validates against its schema, and the same seed and scale always give
// byte-identical records, however many goroutines make them.
//
// A lazy World (Options.Lazy) keeps neither its transactions nor its games:
// EachTransaction and EachGame make them again from the seed, so a world
// larger than memory is served or written in bounded memory, byte for byte
// as if it were held.
//
// A World grows as a live network does: Growth makes the blocks after its
// latest, one at a time, each a function of the seed, the scale and its
// height alone.
//
// Transactions' commands are made by the schema walker
// (generators/internal/walker); the records are those of package records,
// and package fixtures writes a World to files and reads it back.
package world
