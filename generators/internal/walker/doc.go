// Package walker makes JSON values for any definition of the schemas: it
// walks the definition and produces a value that validates against it,
// deterministic from its random stream. Values are chosen by each scalar's
// format (party IDs, prices, fractions, Unix times, countries, URLs...)
// through a small registry, so a field added to a schema gets valid values
// without code changes; oneof groups get exactly one branch; cross-field
// rules (if/then) are repaired after the object is built, and a few fixups
// make objects consistent where a schema cannot say (bounds in order,
// destinations matching their account type).
//
// Identifier formats draw from a Universe, the entities of a world, so that
// a generated command names parties, markets and assets that exist. Cover
// steers a run of values to produce every enum value and oneof branch at
// least once.
//
// The walker is internal to the generators: the world makes its
// transactions with it, and the mock, which serves what the world made,
// never needs it.
package walker
