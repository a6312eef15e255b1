package store

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
)

// Store holds the records the server answers from, each listing sorted by
// its key, oldest first, with indexes for every filter. It is compact: the
// rows' bytes sit back to back in large chunks outside the Go heap (or in
// mapped fixture files, fixtures.go), and each row costs a few fixed-size
// words besides (its place, its key, what the filters need).
//
// A Store is safe for concurrent use: readers hold the read lock while they
// work out and copy a page, and the only writes (Append and Reset,
// growth.go) take the write lock, so a reader sees every block whole or not
// at all.
type Store struct {
	mu sync.RWMutex
	// version counts the store's changes: every write (Append, AddRows,
	// Reset, Close) adds one before it lets readers in again.
	version atomic.Uint64

	games        Paged
	gameKeys     []records.GameKey
	gameTeams    []bool // a team game
	snapshots    Paged
	snapshotKeys []records.SnapshotKey
	rotations    Paged
	rotKeys      []records.RotationKey
	params       Paged
	paramKeys    []string
	txs          blob // each transaction's JSON
	txKeys       []records.TxKey
	txTypes      []uint16 // into typeNames
	typeNames    []string
	typeNums     map[string]uint16

	gamesByID    map[string][]int32 // row indexes, ascending
	gamesByTeam  map[string][]int32
	gamesByParty map[string][]int32 // every party that took part, in a team or alone
	rotByNode    map[string][]int32
	txByType     map[string][]int32
	txByParty    map[string][]int32 // submitter or receiver
	ids          map[string]string  // interns identifiers
	idsMu        sync.Mutex

	firstEpoch, latestEpoch uint64
	latestBlock             uint64
	latestBlockTime         time.Time
	// The block headers of data-node answers, kept formatted.
	heightHeader, timeHeader []string

	seed  int64
	scale float64
	// base is the store as built, which Reset goes back to.
	base storeMark
	// fixtures are the fixture files the rows are mapped from, when the
	// store serves them from disk (fixtures.go).
	fixtures *fixtures.Mapped
	// added are the rows a test added (added.go; nil: none), and view the
	// store's rows and them merged, which readers are given instead of
	// the store while there is one. startAdded are the rows Reset adds
	// again (KeepAddedRows). The lists of an addedRows are never changed
	// once it is in use: AddRows changes a copy.
	added, startAdded *addedRows
	view              *Store
}

// Paged holds the rows of a paged listing, in base order: whole edges,
// {"node":…,"cursor":"…"}, or (mapped from fixtures) nodes alone, whose
// cursor is made from the row's key as the page is written.
type Paged struct {
	blob
	nodes bool
	// cursor appends row i's cursor, made from its key.
	cursor func(b []byte, i int) []byte
	// scratch is where addRecord writes a row before copying it in,
	// reused from row to row.
	scratch []byte
}

// Len returns the number of rows.
func (r *Paged) Len() int { return r.len() }

// AppendEdge appends row i's edge, {"node":…,"cursor":"…"}.
func (r *Paged) AppendEdge(b []byte, i int) []byte {
	if !r.nodes {
		return append(b, r.get(i)...)
	}
	b = append(b, `{"node":`...)
	b = append(b, r.get(i)...)
	b = append(b, `,"cursor":"`...)
	b = r.cursor(b, i)
	return append(b, `"}`...)
}

// AppendCursor appends row i's cursor.
func (r *Paged) AppendCursor(b []byte, i int) []byte {
	if r.nodes {
		return r.cursor(b, i)
	}
	e := r.get(i)
	// The edge ends with the cursor and `"}`, and a cursor (base64, as
	// addRecord's appendCursor writes it) holds no quote: the quote before
	// it ends the mark, found a byte at a time rather than the mark searched
	// for.
	body := e[:len(e)-2]
	return append(b, body[bytes.LastIndexByte(body, '"')+1:]...)
}

// addRecord adds a row for a record: its whole edge, with the cursor
// appendCursor appends, or its node alone when the rows are nodes.
func (r *Paged) addRecord(rec any, appendCursor func([]byte) []byte) error {
	b := r.scratch[:0]
	if r.nodes {
		b = records.AppendRecordJSON(b, rec)
	} else {
		b = append(b, `{"node":`...)
		b = records.AppendRecordJSON(b, rec)
		b = append(b, `,"cursor":"`...)
		b = appendCursor(b)
		b = append(b, `"}`...)
	}
	r.scratch = b
	return r.add(b)
}

func newStore(seed int64, scale float64) *Store {
	s := &Store{
		gamesByID: map[string][]int32{}, gamesByTeam: map[string][]int32{}, gamesByParty: map[string][]int32{},
		rotByNode: map[string][]int32{}, txByType: map[string][]int32{}, txByParty: map[string][]int32{},
		typeNums: map[string]uint16{}, ids: map[string]string{},
		seed: seed, scale: scale,
	}
	// The cursors of rows held as nodes alone, made from their keys.
	s.games.cursor = func(b []byte, i int) []byte { return s.gameKeys[i].AppendCursor(b) }
	s.snapshots.cursor = func(b []byte, i int) []byte { return s.snapshotKeys[i].AppendCursor(b) }
	s.rotations.cursor = func(b []byte, i int) []byte { return s.rotKeys[i].AppendCursor(b) }
	s.params.cursor = func(b []byte, i int) []byte { return records.ParameterKey{Key: s.paramKeys[i]}.AppendCursor(b) }
	return s
}

// New builds a store from a world (generated or read from fixtures). The
// store copies what it serves; it keeps nothing of the world. A lazy
// world's transactions are made once, as they are stored.
func New(w *world.World) (*Store, error) {
	s := newStore(w.Seed, w.Scale)
	s.firstEpoch, s.latestEpoch = w.FirstEpoch, w.LatestEpoch
	s.latestBlock, s.latestBlockTime = w.LatestBlock, w.LatestBlockTime
	// Games are made on one core, epoch after epoch, and then the small
	// listings are added; meanwhile transactions are made on every core
	// and added, the longest part, which so starts at once.
	othersDone := make(chan error, 1)
	go func() { othersDone <- s.addOthers(w) }()
	err := s.addTransactions(w)
	if oerr := <-othersDone; err == nil {
		err = oerr
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	s.setBlockHeaders()
	s.base = s.mark()
	return s, nil
}

// addOthers adds every listing but transactions.
func (s *Store) addOthers(w *world.World) error {
	if err := s.addGames(w); err != nil {
		return err
	}
	if err := s.addSnapshots(w.Snapshots); err != nil {
		return err
	}
	if err := s.addRotations(w.KeyRotations); err != nil {
		return err
	}
	return s.addParams(w.NetworkParameters)
}

// Close gives back the memory the store's rows take and unmaps its fixture
// files. The store must not be used after.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.version.Add(1)
	s.dropView()
	s.added, s.startAdded = nil, nil
	for _, r := range []*blob{&s.games.blob, &s.snapshots.blob, &s.rotations.blob, &s.params.blob, &s.txs} {
		r.release()
	}
	if s.fixtures == nil {
		return nil
	}
	err := s.fixtures.Close()
	s.fixtures = nil
	if err != nil {
		return fmt.Errorf("unmap fixtures: %w", err)
	}
	return nil
}

// setBlockHeaders formats the newest block's height and time for the
// headers of data-node answers.
func (s *Store) setBlockHeaders() {
	s.heightHeader = []string{strconv.FormatUint(s.latestBlock, 10)}
	s.timeHeader = []string{strconv.FormatInt(s.latestBlockTime.UnixNano(), 10)}
}

// intern returns a string equal to id that the store keeps once. It is
// safe for concurrent use (New adds games and transactions side by
// side).
func (s *Store) intern(id string) string {
	s.idsMu.Lock()
	defer s.idsMu.Unlock()
	if x, ok := s.ids[id]; ok {
		return x
	}
	s.ids[id] = id
	return id
}

func (s *Store) addGames(w *world.World) error {
	if w.Games == nil {
		return s.streamGames(w)
	}
	games := w.Games
	idx := make([]int, len(games))
	for i := range idx {
		idx[i] = i
	}
	// Base order: epoch ascending, ID descending, so that the reverse (the
	// newest-first listing) is epoch descending, ID ascending.
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := &games[idx[a]], &games[idx[b]]
		return gameLess(records.GameKey{Epoch: x.Epoch, ID: x.ID}, records.GameKey{Epoch: y.Epoch, ID: y.ID})
	})
	s.games.grow(len(games))
	for _, i := range idx {
		if err := s.addGame(&games[i]); err != nil {
			return err
		}
	}
	s.gameEpochs()
	return nil
}

// streamGames adds a lazy world's games as it makes them, epoch by epoch
// (EachGame gives them epoch ascending), so that they are never all held
// as records.
func (s *Store) streamGames(w *world.World) error {
	s.games.grow(w.GameCount())
	var epoch []records.Game
	flush := func() error {
		sort.SliceStable(epoch, func(i, j int) bool {
			return gameLess(records.GameKey{Epoch: epoch[i].Epoch, ID: epoch[i].ID}, records.GameKey{Epoch: epoch[j].Epoch, ID: epoch[j].ID})
		})
		for i := range epoch {
			if err := s.addGame(&epoch[i]); err != nil {
				return err
			}
		}
		epoch = epoch[:0]
		return nil
	}
	err := w.EachGame(context.Background(), func(g *records.Game) error {
		if n := len(epoch); n > 0 && g.Epoch != epoch[n-1].Epoch {
			if err := flush(); err != nil {
				return err
			}
		}
		epoch = append(epoch, *g)
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return fmt.Errorf("games: %w", err)
	}
	s.gameEpochs()
	return nil
}

// addGame adds a game that sorts after every game of the store.
func (s *Store) addGame(g *records.Game) error {
	if n := len(s.gameKeys); n > 0 && !gameLess(s.gameKeys[n-1], records.GameKey{Epoch: g.Epoch, ID: g.ID}) {
		if s.gameKeys[n-1] == (records.GameKey{Epoch: g.Epoch, ID: g.ID}) {
			return fmt.Errorf("two games with epoch %d and ID %s", g.Epoch, g.ID)
		}
		return fmt.Errorf("game %s of epoch %d comes after epoch %d", g.ID, g.Epoch, s.gameKeys[n-1].Epoch)
	}
	return s.appendGame(g)
}

// gameEpochs sets the epochs from the games: the latest epoch is the
// newest epoch in the data (docs/behaviour.md, "Games": L of the epoch
// window).
func (s *Store) gameEpochs() {
	if n := len(s.gameKeys); n > 0 {
		s.firstEpoch, s.latestEpoch = s.gameKeys[0].Epoch, s.gameKeys[n-1].Epoch
	}
}

// gameLess is the base order of games: epoch ascending, ID descending, so
// that the newest-first listing is epoch descending, ID ascending.
func gameLess(a, b records.GameKey) bool { return a.Compare(b) < 0 }

// appendGame adds a game after every game of the store, with its indexes.
func (s *Store) appendGame(g *records.Game) error {
	k := records.GameKey{Epoch: g.Epoch, ID: g.ID}
	if err := s.games.addRecord(g, k.AppendCursor); err != nil {
		return err
	}
	k.ID = s.intern(k.ID)
	s.indexGame(k, g.Team != nil, g.TeamIDs(), g.PartyIDs())
	return nil
}

// indexGame records the key and the filters' entries of the game just
// added.
func (s *Store) indexGame(k records.GameKey, teams bool, teamIDs, parties []string) {
	n := int32(len(s.gameKeys))
	s.gameKeys = append(s.gameKeys, k)
	s.gameTeams = append(s.gameTeams, teams)
	s.gamesByID[k.ID] = append(s.gamesByID[k.ID], n)
	// A map keeps the key it was first given: the identifiers need no
	// interning here.
	for _, t := range teamIDs {
		s.gamesByTeam[t] = appendOnce(s.gamesByTeam[t], n)
	}
	for _, p := range parties {
		s.gamesByParty[p] = appendOnce(s.gamesByParty[p], n)
	}
}

func (s *Store) addSnapshots(snaps []records.CoreSnapshot) error {
	sorted := append([]records.CoreSnapshot(nil), snaps...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].BlockHeight < sorted[j].BlockHeight })
	s.snapshots.grow(len(sorted))
	for i := range sorted {
		sn := &sorted[i]
		if i > 0 && sorted[i-1].BlockHeight == sn.BlockHeight {
			continue // one snapshot per height
		}
		if err := s.appendSnapshot(sn); err != nil {
			return err
		}
	}
	return nil
}

// appendSnapshot adds a snapshot after every snapshot of the store.
func (s *Store) appendSnapshot(sn *records.CoreSnapshot) error {
	k := records.SnapshotKey{BlockHeight: sn.BlockHeight}
	if err := s.snapshots.addRecord(sn, k.AppendCursor); err != nil {
		return err
	}
	s.snapshotKeys = append(s.snapshotKeys, k)
	return nil
}

func (s *Store) addRotations(rots []records.EthereumKeyRotation) error {
	sorted := append([]records.EthereumKeyRotation(nil), rots...)
	sort.SliceStable(sorted, func(i, j int) bool { return rotationLess(rotKey(&sorted[i]), rotKey(&sorted[j])) })
	s.rotations.grow(len(sorted))
	for i := range sorted {
		r := &sorted[i]
		if i > 0 && rotKey(&sorted[i-1]) == rotKey(r) {
			continue
		}
		if err := s.appendRotation(r); err != nil {
			return err
		}
	}
	return nil
}

// appendRotation adds a key rotation after every rotation of the store.
func (s *Store) appendRotation(r *records.EthereumKeyRotation) error {
	k := rotKey(r)
	if err := s.rotations.addRecord(r, k.AppendCursor); err != nil {
		return err
	}
	s.indexRotation(k)
	return nil
}

// indexRotation records the key of the rotation just added.
func (s *Store) indexRotation(k records.RotationKey) {
	k.NodeID = s.intern(k.NodeID)
	s.rotByNode[k.NodeID] = append(s.rotByNode[k.NodeID], int32(len(s.rotKeys)))
	s.rotKeys = append(s.rotKeys, k)
}

func rotKey(r *records.EthereumKeyRotation) records.RotationKey {
	return records.RotationKey{BlockHeight: r.BlockHeight, NodeID: r.NodeID}
}

// rotationLess is the base order of rotations: height ascending, node ID
// descending, so that the newest-first listing is height descending, node ID
// ascending.
func rotationLess(a, b records.RotationKey) bool { return a.Compare(b) < 0 }

func (s *Store) addParams(params []records.NetworkParameter) error {
	sorted := append([]records.NetworkParameter(nil), params...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Key < sorted[j].Key })
	for i := range sorted {
		p := &sorted[i]
		if i > 0 && sorted[i-1].Key == p.Key {
			continue
		}
		k := records.ParameterKey{Key: p.Key}
		if err := s.params.addRecord(p, k.AppendCursor); err != nil {
			return err
		}
		s.paramKeys = append(s.paramKeys, p.Key)
	}
	return nil
}

func (s *Store) addTransactions(w *world.World) error {
	if w.Transactions != nil && !sort.SliceIsSorted(w.Transactions, func(i, j int) bool {
		return w.Transactions[i].Key().Less(w.Transactions[j].Key())
	}) {
		sorted := append([]records.Transaction(nil), w.Transactions...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Key().Less(sorted[j].Key()) })
		w = &world.World{Transactions: sorted}
	}
	n := w.TransactionCount()
	s.txs.grow(n)
	s.txKeys = make([]records.TxKey, 0, n)
	s.txTypes = make([]uint16, 0, n)
	return w.EachTransaction(context.Background(), false, func(t *records.Transaction) error {
		if i := len(s.txKeys); i > 0 && !s.txKeys[i-1].Less(t.Key()) {
			return fmt.Errorf("two transactions at %s", t.Cursor())
		}
		return s.appendTransaction(t)
	})
}

// appendTransaction adds a transaction after every transaction of the
// store, with its indexes.
func (s *Store) appendTransaction(t *records.Transaction) error {
	if err := s.txs.add(t.JSON); err != nil {
		return err
	}
	typ, err := s.typeNum(t.Type)
	if err != nil {
		s.txs.truncate(len(s.txKeys))
		return err
	}
	s.indexTransaction(t.Key(), typ, t.Submitter, t.Receivers)
	return nil
}

// typeNum returns the number of a transaction type, numbering a new one.
func (s *Store) typeNum(name string) (uint16, error) {
	if n, ok := s.typeNums[name]; ok {
		return n, nil
	}
	if len(s.typeNames) > 1<<16-1 {
		return 0, fmt.Errorf("more than %d transaction types", 1<<16)
	}
	name = s.intern(name)
	n := uint16(len(s.typeNames))
	s.typeNames = append(s.typeNames, name)
	s.typeNums[name] = n
	return n, nil
}

// indexTransaction records the key and the filters' entries of the
// transaction just added.
func (s *Store) indexTransaction(k records.TxKey, typ uint16, submitter string, receivers []string) {
	i := int32(len(s.txKeys))
	s.txKeys = append(s.txKeys, k)
	s.txTypes = append(s.txTypes, typ)
	name := s.typeNames[typ]
	s.txByType[name] = append(s.txByType[name], i)
	s.txByParty[submitter] = append(s.txByParty[submitter], i)
	for _, r := range receivers {
		if r != submitter {
			s.txByParty[r] = appendOnce(s.txByParty[r], i)
		}
	}
	if k.Block > s.latestBlock {
		s.latestBlock = k.Block
	}
}

func appendOnce(list []int32, i int32) []int32 {
	if n := len(list); n > 0 && list[n-1] == i {
		return list
	}
	return append(list, i)
}

// Counts returns the number of rows of each listing.
func (s *Store) Counts() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.current().counts()
}

// Version returns the number of changes made to the store so far. Read
// during a Read, it names the rows the reader sees: an answer made from
// them is the answer again for as long as Version returns the same number.
func (s *Store) Version() uint64 { return s.version.Load() }

// current is what readers read: the view of the rows added, or the store
// itself.
func (s *Store) current() *Store {
	if s.view != nil {
		return s.view
	}
	return s
}

func (s *Store) counts() map[string]int {
	return map[string]int{
		records.ListingGames:             s.games.len(),
		records.ListingSnapshots:         s.snapshots.len(),
		records.ListingKeyRotations:      s.rotations.len(),
		records.ListingNetworkParameters: s.params.len(),
		records.ListingTransactions:      s.txs.len(),
	}
}
