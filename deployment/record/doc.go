// Package record walks a live deployment of the chain data query API and
// writes what it serves as fixtures, in the layout fixtures.Write
// writes, so that the mock (harness serve --data DIR) replays a real network
// offline.
//
// Run pages every listing to its end:
//
//   - games, core snapshots, key rotations and network parameters forwards
//     with pagination.first (the page size) and pagination.newestFirst=true,
//     following pageInfo.endCursor until hasNextPage is false;
//   - games window by window: the listing answers at most 30 epochs per
//     request (spec section 8), so the first request takes the server's
//     default window (the latest 30 epochs) and each following window is the
//     30 epochs just below the previous one (epochFrom/epochTo), down to
//     epoch 0, or until MaxEmptyWindows windows in a row held no game;
//   - transactions newest to oldest: first=N for the newest page, then
//     last=N&before=C with C the oldest row so far, until a page is empty.
//
// Every body is validated against its schema; violations are collected in
// the Report, never hidden. Rows that could not be served back (a record
// that does not parse, a row out of the listing's order or repeated) are
// left out and reported too.
//
// Rows are appended to one NDJSON file per listing as pages arrive. After
// each page the file is synced and a small state file (StateFile) records
// each listing's next cursor, row count and file size, replaced atomically.
// A run that finds the state file in its output directory continues from
// the saved cursors, first cutting each file back to the saved size, so an
// interrupted recording resumes without losing or repeating a row. When
// every listing is done the manifest is written, last, and the state file
// removed: a directory with a manifest holds a complete recording.
package record
