package mockserver

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chaindata/harness/generators"
)

// Store holds the records the server answers from, each listing sorted by
// its key, oldest first, with indexes for every filter. It is safe for
// concurrent use: readers hold the read lock while they work out and copy a
// page, and the only writes (Append and Reset, growth.go) take the write lock,
// so a reader sees every block whole or not at all.
type Store struct {
	mu sync.RWMutex

	games     []gameRow
	snapshots []row
	rotations []rotationRow
	params    []paramRow
	txs       []txRow

	snapshotKeys []generators.SnapshotKey

	gamesByID    map[string][]int32 // row indexes, ascending
	gamesByTeam  map[string][]int32
	gamesByParty map[string][]int32
	rotByNode    map[string][]int32
	txByType     map[string][]int32
	txByParty    map[string][]int32 // submitter or receiver

	firstEpoch, latestEpoch uint64
	latestBlock             uint64
	latestBlockTime         time.Time
	// The block headers of data-node answers, kept formatted.
	heightHeader, timeHeader []string

	seed  int64
	scale float64
	// base is the store as built, which Reset goes back to.
	base storeMark
}

// row is one record's precomputed edge, {"node":...,"cursor":"..."}, and
// its cursor.
type row struct {
	edge   []byte
	cursor string
}

type gameRow struct {
	row
	key     generators.GameKey
	teams   bool
	teamIDs []string
	parties []string
}

type rotationRow struct {
	row
	key generators.RotationKey
}

type paramRow struct {
	row
	key string
}

type txRow struct {
	json []byte
	key  generators.TxKey
	typ  string
}

// NewStore builds a store from a world (generated or read from fixtures).
// The store shares the world's transaction JSON; the world's record slices
// are not kept.
func NewStore(w *generators.World) (*Store, error) {
	s := &Store{
		gamesByID: map[string][]int32{}, gamesByTeam: map[string][]int32{}, gamesByParty: map[string][]int32{},
		rotByNode: map[string][]int32{}, txByType: map[string][]int32{}, txByParty: map[string][]int32{},
		firstEpoch: w.FirstEpoch, latestEpoch: w.LatestEpoch,
		latestBlock: w.LatestBlock, latestBlockTime: w.LatestBlockTime,
		seed: w.Seed, scale: w.Scale,
	}
	games := w.Games
	if games == nil && w.GameCount() > 0 {
		// A lazy world makes its games on demand; the store keeps them.
		games = make([]generators.Game, 0, w.GameCount())
		err := w.EachGame(context.Background(), func(g *generators.Game) error {
			games = append(games, *g)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("make games: %w", err)
		}
	}
	if err := s.addGames(games); err != nil {
		return nil, err
	}
	s.addSnapshots(w.Snapshots)
	s.addRotations(w.KeyRotations)
	s.addParams(w.NetworkParameters)
	if err := s.addTransactions(w); err != nil {
		return nil, err
	}
	s.setBlockHeaders()
	s.base = s.mark()
	return s, nil
}

// setBlockHeaders formats the newest block's height and time for the
// headers of data-node answers.
func (s *Store) setBlockHeaders() {
	s.heightHeader = []string{strconv.FormatUint(s.latestBlock, 10)}
	s.timeHeader = []string{strconv.FormatInt(s.latestBlockTime.UnixNano(), 10)}
}

func edge(node []byte, cursor string) row {
	b := make([]byte, 0, len(node)+len(cursor)+22)
	b = append(b, `{"node":`...)
	b = append(b, node...)
	b = append(b, `,"cursor":"`...)
	b = append(b, cursor...)
	b = append(b, `"}`...)
	return row{edge: b, cursor: cursor}
}

func (s *Store) addGames(games []generators.Game) error {
	idx := make([]int, len(games))
	for i := range idx {
		idx[i] = i
	}
	// Base order: epoch ascending, ID descending, so that the reverse (the
	// newest-first listing) is epoch descending, ID ascending.
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := &games[idx[a]], &games[idx[b]]
		return gameLess(generators.GameKey{Epoch: x.Epoch, ID: x.ID}, generators.GameKey{Epoch: y.Epoch, ID: y.ID})
	})
	s.games = make([]gameRow, 0, len(games))
	for _, i := range idx {
		g := &games[i]
		if n := len(s.games); n > 0 && s.games[n-1].key == (generators.GameKey{Epoch: g.Epoch, ID: g.ID}) {
			return fmt.Errorf("two games with epoch %d and ID %s", g.Epoch, g.ID)
		}
		s.appendGame(g)
	}
	// The latest epoch is the newest epoch in the data (DESIGN.md).
	if len(s.games) > 0 {
		s.firstEpoch, s.latestEpoch = s.games[0].key.Epoch, s.games[len(s.games)-1].key.Epoch
	}
	return nil
}

// gameLess is the base order of games: epoch ascending, ID descending, so
// that the newest-first listing is epoch descending, ID ascending.
func gameLess(a, b generators.GameKey) bool {
	if a.Epoch != b.Epoch {
		return a.Epoch < b.Epoch
	}
	return a.ID > b.ID
}

// appendGame adds a game after every game of the store, with its indexes.
func (s *Store) appendGame(g *generators.Game) {
	n := int32(len(s.games))
	s.games = append(s.games, gameRow{
		row:     edge(generators.RecordJSON(g), g.Cursor()),
		key:     generators.GameKey{Epoch: g.Epoch, ID: g.ID},
		teams:   g.Team != nil,
		teamIDs: g.TeamIDs(),
		parties: dedupe(g.PartyIDs()),
	})
	s.gamesByID[g.ID] = append(s.gamesByID[g.ID], n)
	for _, t := range s.games[n].teamIDs {
		s.gamesByTeam[t] = appendOnce(s.gamesByTeam[t], n)
	}
	for _, p := range s.games[n].parties {
		s.gamesByParty[p] = append(s.gamesByParty[p], n)
	}
}

func (s *Store) addSnapshots(snaps []generators.CoreSnapshot) {
	sorted := append([]generators.CoreSnapshot(nil), snaps...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].BlockHeight < sorted[j].BlockHeight })
	for i := range sorted {
		sn := &sorted[i]
		if i > 0 && sorted[i-1].BlockHeight == sn.BlockHeight {
			continue // one snapshot per height
		}
		s.appendSnapshot(sn)
	}
}

// appendSnapshot adds a snapshot after every snapshot of the store.
func (s *Store) appendSnapshot(sn *generators.CoreSnapshot) {
	s.snapshots = append(s.snapshots, edge(generators.RecordJSON(sn), sn.Cursor()))
	s.snapshotKeys = append(s.snapshotKeys, generators.SnapshotKey{BlockHeight: sn.BlockHeight})
}

func (s *Store) addRotations(rots []generators.EthereumKeyRotation) {
	sorted := append([]generators.EthereumKeyRotation(nil), rots...)
	sort.SliceStable(sorted, func(i, j int) bool { return rotationLess(rotKey(&sorted[i]), rotKey(&sorted[j])) })
	for i := range sorted {
		r := &sorted[i]
		if i > 0 && rotKey(&sorted[i-1]) == rotKey(r) {
			continue
		}
		s.appendRotation(r)
	}
}

// appendRotation adds a key rotation after every rotation of the store.
func (s *Store) appendRotation(r *generators.EthereumKeyRotation) {
	s.rotByNode[r.NodeID] = append(s.rotByNode[r.NodeID], int32(len(s.rotations)))
	s.rotations = append(s.rotations, rotationRow{row: edge(generators.RecordJSON(r), r.Cursor()), key: rotKey(r)})
}

func rotKey(r *generators.EthereumKeyRotation) generators.RotationKey {
	return generators.RotationKey{BlockHeight: r.BlockHeight, NodeID: r.NodeID}
}

// rotationLess is the base order of rotations: height ascending, node ID
// descending, so that the newest-first listing is height descending, node ID
// ascending.
func rotationLess(a, b generators.RotationKey) bool {
	if a.BlockHeight != b.BlockHeight {
		return a.BlockHeight < b.BlockHeight
	}
	return a.NodeID > b.NodeID
}

func (s *Store) addParams(params []generators.NetworkParameter) {
	sorted := append([]generators.NetworkParameter(nil), params...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Key < sorted[j].Key })
	for i := range sorted {
		p := &sorted[i]
		if i > 0 && sorted[i-1].Key == p.Key {
			continue
		}
		s.params = append(s.params, paramRow{row: edge(generators.RecordJSON(p), p.Cursor()), key: p.Key})
	}
}

func (s *Store) addTransactions(w *generators.World) error {
	if w.Transactions != nil && !sort.SliceIsSorted(w.Transactions, func(i, j int) bool {
		return w.Transactions[i].Key().Less(w.Transactions[j].Key())
	}) {
		sorted := append([]generators.Transaction(nil), w.Transactions...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Key().Less(sorted[j].Key()) })
		w = &generators.World{Transactions: sorted}
	}
	s.txs = make([]txRow, 0, w.TransactionCount())
	types := map[string]string{} // interns type names
	return w.EachTransaction(context.Background(), false, func(t *generators.Transaction) error {
		if i := len(s.txs); i > 0 && !s.txs[i-1].key.Less(t.Key()) {
			return fmt.Errorf("two transactions at %s", t.Cursor())
		}
		typ, ok := types[t.Type]
		if !ok {
			typ = strings.Clone(t.Type)
			types[typ] = typ
		}
		s.appendTransaction(t, typ)
		return nil
	})
}

// appendTransaction adds a transaction after every transaction of the
// store, with its indexes; typ is its type name (interned by the caller).
func (s *Store) appendTransaction(t *generators.Transaction, typ string) {
	i := int32(len(s.txs))
	s.txs = append(s.txs, txRow{json: t.JSON, key: t.Key(), typ: typ})
	s.txByType[typ] = append(s.txByType[typ], i)
	s.txByParty[t.Submitter] = append(s.txByParty[t.Submitter], i)
	for _, r := range t.Receivers {
		if r != t.Submitter {
			s.txByParty[r] = appendOnce(s.txByParty[r], i)
		}
	}
	if t.Block > s.latestBlock {
		s.latestBlock = t.Block
	}
}

func appendOnce(list []int32, i int32) []int32 {
	if n := len(list); n > 0 && list[n-1] == i {
		return list
	}
	return append(list, i)
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Counts returns the number of rows of each listing.
func (s *Store) Counts() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return map[string]int{
		generators.ListingGames:             len(s.games),
		generators.ListingSnapshots:         len(s.snapshots),
		generators.ListingKeyRotations:      len(s.rotations),
		generators.ListingNetworkParameters: len(s.params),
		generators.ListingTransactions:      len(s.txs),
	}
}
