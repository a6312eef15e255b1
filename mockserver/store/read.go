package store

import (
	"time"

	"github.com/chaindata/harness/generators/records"
)

// Reading a store: a handler works out a page under the store's read lock
// (Read), so that it sees every block whole or not at all, from the rows in
// base order (oldest first) and the filters' lists of rows (row numbers,
// ascending). Reader hands them over without copying: a caller must not
// change them, nor keep them after its Read returns.

// Read calls fn with a reader of the store, holding the store's read lock
// until fn returns. fn must not call the store's other methods, nor keep
// the reader.
func (s *Store) Read(fn func(Reader)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	fn(Reader{s.current()})
}

// Reader reads a store during a Read.
type Reader struct{ s *Store }

// Epochs returns the first and the latest epoch.
func (r Reader) Epochs() (first, latest uint64) { return r.s.firstEpoch, r.s.latestEpoch }

// BlockHeaders returns the newest block's height and time (Unix
// nanoseconds), formatted for the X-Block-Height and X-Block-Timestamp
// headers of data-node answers.
func (r Reader) BlockHeaders() (height, time []string) { return r.s.heightHeader, r.s.timeHeader }

// Games returns the games' rows.
func (r Reader) Games() *Paged { return &r.s.games }

// GameKeys returns the games' keys, row by row.
func (r Reader) GameKeys() []records.GameKey { return r.s.gameKeys }

// GameIsTeam reports whether game row i is a team game.
func (r Reader) GameIsTeam(i int) bool { return r.s.gameTeams[i] }

// GamesWithID returns the rows of the games with an ID.
func (r Reader) GamesWithID(id string) []int32 { return r.s.gamesByID[id] }

// GamesOfTeam returns the rows of the games a team took part in.
func (r Reader) GamesOfTeam(id string) []int32 { return r.s.gamesByTeam[id] }

// GamesOfParty returns the rows of the games a party took part in, in a
// team or alone.
func (r Reader) GamesOfParty(id string) []int32 { return r.s.gamesByParty[id] }

// Snapshots returns the core snapshots' rows.
func (r Reader) Snapshots() *Paged { return &r.s.snapshots }

// SnapshotKeys returns the core snapshots' keys, row by row.
func (r Reader) SnapshotKeys() []records.SnapshotKey { return r.s.snapshotKeys }

// Rotations returns the key rotations' rows.
func (r Reader) Rotations() *Paged { return &r.s.rotations }

// RotationKeys returns the key rotations' keys, row by row.
func (r Reader) RotationKeys() []records.RotationKey { return r.s.rotKeys }

// RotationsOfNode returns the rows of a node's key rotations.
func (r Reader) RotationsOfNode(id string) []int32 { return r.s.rotByNode[id] }

// Parameters returns the network parameters' rows.
func (r Reader) Parameters() *Paged { return &r.s.params }

// ParameterKeys returns the network parameters' keys, row by row.
func (r Reader) ParameterKeys() []string { return r.s.paramKeys }

// TxKeys returns the transactions' keys, row by row.
func (r Reader) TxKeys() []records.TxKey { return r.s.txKeys }

// Tx returns transaction row i's JSON.
func (r Reader) Tx(i int) []byte { return r.s.txs.get(i) }

// TxType returns transaction row i's type.
func (r Reader) TxType(i int) string { return r.s.typeNames[r.s.txTypes[i]] }

// TxsOfParty returns the rows of the transactions naming a party, as
// submitter or receiver.
func (r Reader) TxsOfParty(id string) []int32 { return r.s.txByParty[id] }

// TxsOfType returns the rows of the transactions of a type.
func (r Reader) TxsOfType(name string) []int32 { return r.s.txByType[name] }

// EachTxType calls fn with every transaction type the store holds and its
// rows, in no particular order.
func (r Reader) EachTxType(fn func(name string, rows []int32)) {
	for name, rows := range r.s.txByType {
		fn(name, rows)
	}
}

// State is what a store holds at one moment.
type State struct {
	// Seed and Scale are the generated world's (0 for fixtures that do not
	// say).
	Seed  int64
	Scale float64
	// Counts is the number of rows of each listing, by listing name.
	Counts                  map[string]int
	LatestBlock             uint64
	LatestBlockTime         time.Time
	FirstEpoch, LatestEpoch uint64
}

// State returns what the store holds now.
func (s *Store) State() State {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := s.current()
	return State{
		Seed: s.seed, Scale: s.scale, Counts: c.counts(),
		LatestBlock: c.latestBlock, LatestBlockTime: c.latestBlockTime,
		FirstEpoch: c.firstEpoch, LatestEpoch: c.latestEpoch,
	}
}
