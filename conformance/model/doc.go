// Package model judges a deployment of the chain data query API against a
// model of its own data.
//
// Build walks each listing once, unfiltered, in a window pinned by cursors
// (games: every epoch the window rules reach, up to a row bound; snapshots,
// key rotations and network parameters whole up to the bound, else their
// newest and oldest rows; transactions the newest rows between two cursors
// and the oldest rows). Expected, the oracle, says in plain Go what the spec
// (and docs/behaviour.md where the spec is silent) makes of any query over
// that model: the status, the rows in order and the page flags, or that the
// model cannot tell. Generate draws queries from the whole query space of a
// listing, seeded; Compare sets an answer beside the oracle, aspect by
// aspect; Shrink reduces a query that differs to the smallest that still
// does. Relations judges any row served against what the spec fixes
// between its fields, between the rows of its answer, between the row and
// its query, and in the units of its timestamps (RelationCatalogue).
//
// The package knows the API only through its documents: it imports neither
// the mock server nor the generators, so that the two readings of the spec
// (the mock's and the oracle's) check each other.
package model
