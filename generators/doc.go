// Package generators makes realistic fake data for the chain data query API,
// driven by the schemas package and deterministic from a seed.
//
// Two layers:
//
//   - Instance walks any schema definition and produces a JSON value that
//     validates against it. Values are chosen by each scalar's format (party
//     IDs, prices, fractions, Unix times, countries, URLs...) through a small
//     registry, so a field added to a schema gets valid values without code
//     changes. Oneof groups get exactly one branch; cross-field rules
//     (if/then) are repaired after the object is built.
//   - Generate builds one consistent World from a seed and a scale: epochs,
//     blocks, parties, teams, validator nodes, assets and markets, and from
//     them the five listings (games, core snapshots, Ethereum key rotations,
//     network parameters and transactions). Every record of every kind
//     validates against its schema, and the same seed and scale always give
//     byte-identical output.
//
// A lazy World (Options.Lazy) keeps neither its transactions nor its games:
// EachTransaction and EachGame make them again from the seed, and
// WriteFixtures streams them to disk, so a world larger than memory is
// written in bounded memory, byte for byte as if it were held.
//
// WriteFixtures writes a World as fixture files; ReadFixtures reads them back.
package generators
