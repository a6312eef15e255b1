// Package records is the vocabulary every part of the harness that reads or
// writes the API's data shares: the records of the five listings (games,
// core snapshots, Ethereum key rotations, network parameters and
// transactions), their JSON exactly as the API writes it, the listings'
// names, the cursors that page them, and the requests' parameters read
// under any of their spellings (Query).
//
// The mock serves these records, the fixture files hold them, the recorder
// copies them from a real deployment and the proxy checks them on their way
// to a client: each encodes and parses them here, and nowhere else.
//
// Cursors of the four paged listings are base64 of a small JSON object
// holding the row's sort key (GameKey, SnapshotKey, RotationKey,
// ParameterKey); a transaction's cursor is "<block>.<index>" (TxKey). A
// row's cursor never changes, so any server holding the same data answers
// any page. The Parse functions accept only the exact encoding Cursor
// writes.
package records
