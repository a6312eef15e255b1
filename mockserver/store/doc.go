// Package store holds the records the mock serves: the five listings of a
// world.World, each sorted by its key (oldest first, records' base order)
// with the lists of rows each filter value selects, so that a page is found
// by binary search and its cost depends on the page size, not on its depth
// or the size of the data.
//
// A Store is compact: the rows' JSON sits back to back in large chunks
// outside the Go heap, encoded once, and each row costs a few fixed-size
// words besides. New builds one in memory from a world (a lazy world's
// records are made as they are stored); OpenFixtures serves fixture files
// from disk instead, mapped read-only, holding only their index.
//
// A Store grows as a live network does: Append adds a block at the newest
// end of every listing, and a Chain appends the blocks a generated world's
// Growth makes, on demand or on a wall clock; Reset goes back to the store
// as built. Readers (Read) see every block whole or not at all.
//
// The HTTP side, which turns requests into pages of a Store, is package
// mockserver.
package store
