package store

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/fixtures/integrity"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
)

// sameAsBuilt checks that what got's readers read is what a store built
// from want (a world holding the rows added) reads: every listing's keys,
// rows (edges and cursors), per-row facts and filter indexes. That is, the
// rows added are in their place by each listing's order, and filtered as
// the world's are.
func sameAsBuilt(t *testing.T, got *Store, want *world.World) {
	t.Helper()
	ref, err := New(want)
	if err != nil {
		t.Fatalf("the store of the world with the rows: %v", err)
	}
	defer ref.Close()
	got.Read(func(g Reader) {
		ref.Read(func(r Reader) {
			gs, rs := g.s, r.s
			eq := func(what string, a, b any) {
				t.Helper()
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("%s:\n got %.300v\nwant %.300v", what, a, b)
				}
			}
			eq("game keys", g.GameKeys(), r.GameKeys())
			eq("games' teams", gs.gameTeams, rs.gameTeams)
			eq("games by ID", gs.gamesByID, rs.gamesByID)
			eq("games by team", gs.gamesByTeam, rs.gamesByTeam)
			eq("games by party", gs.gamesByParty, rs.gamesByParty)
			eq("snapshot keys", g.SnapshotKeys(), r.SnapshotKeys())
			eq("rotation keys", g.RotationKeys(), r.RotationKeys())
			eq("rotations by node", gs.rotByNode, rs.rotByNode)
			eq("parameter keys", g.ParameterKeys(), r.ParameterKeys())
			eq("transaction keys", g.TxKeys(), r.TxKeys())
			eq("transactions by party", gs.txByParty, rs.txByParty)
			byType := func(rd Reader) map[string][]int32 {
				m := map[string][]int32{}
				rd.EachTxType(func(name string, rows []int32) { m[name] = rows })
				return m
			}
			eq("transactions by type", byType(g), byType(r))
			for _, l := range []struct {
				name string
				g, r *Paged
			}{{"games", g.Games(), r.Games()}, {"snapshots", g.Snapshots(), r.Snapshots()},
				{"key rotations", g.Rotations(), r.Rotations()}, {"parameters", g.Parameters(), r.Parameters()}} {
				if l.g.Len() != l.r.Len() {
					t.Errorf("%s: %d rows, want %d", l.name, l.g.Len(), l.r.Len())
					continue
				}
				for i := range l.g.Len() {
					if a, b := l.g.AppendEdge(nil, i), l.r.AppendEdge(nil, i); !bytes.Equal(a, b) {
						t.Fatalf("%s row %d: edge\n%.300s\nwant\n%.300s", l.name, i, a, b)
					}
					if a, b := l.g.AppendCursor(nil, i), l.r.AppendCursor(nil, i); !bytes.Equal(a, b) {
						t.Fatalf("%s row %d: cursor %s, want %s", l.name, i, a, b)
					}
				}
			}
			for i := range len(r.TxKeys()) {
				if !bytes.Equal(g.Tx(i), r.Tx(i)) || g.TxType(i) != r.TxType(i) {
					t.Fatalf("transaction row %d: %.200s (%s), want %.200s (%s)", i, g.Tx(i), g.TxType(i), r.Tx(i), r.TxType(i))
				}
			}
		})
	})
}

// rowsToAdd are records of every listing, some among the world's rows, some
// before the first, some at its newest end, with filter values of their
// own and of the world's.
type rowsToAdd struct {
	games     []records.Game
	snapshots []records.CoreSnapshot
	rotations []records.EthereumKeyRotation
	params    []records.NetworkParameter
	txs       []records.Transaction
}

func newRows(w *world.World) rowsToAdd {
	var r rowsToAdd
	mid := w.Games[len(w.Games)/2]
	team := w.Games[slices.IndexFunc(w.Games, func(g records.Game) bool { return g.Team != nil })]
	teamGame := team
	teamGame.ID, teamGame.Raw = hexID("a team game"), nil
	r.games = []records.Game{
		individualGame(mid.Epoch, hexID("among"), hexID("new party"), mid.PartyIDs()[0]),
		individualGame(0, hexID("before all"), hexID("new party")),
		individualGame(w.LatestEpoch, hexID("newest epoch"), hexID("another party")),
		teamGame,
	}
	newest := w.LatestBlock // the newest height no snapshot has
	for slices.ContainsFunc(w.Snapshots, func(s records.CoreSnapshot) bool { return s.BlockHeight == newest }) {
		newest--
	}
	r.snapshots = []records.CoreSnapshot{snapshot(w.Snapshots[3].BlockHeight + 1), snapshot(0), snapshot(newest)}
	node := w.KeyRotations[0].NodeID
	r.rotations = []records.EthereumKeyRotation{rotation(w.KeyRotations[5].BlockHeight, hexID("new node")),
		rotation(w.KeyRotations[7].BlockHeight+1, node), rotation(w.LatestBlock, node)}
	r.params = []records.NetworkParameter{{Key: "aaa.first", Value: "1"}, {Key: "market.zzz", Value: ""}, {Key: "zzzz", Value: "🚀"}}
	tx := func(from records.Transaction, block uint64, index uint32, typ, submitter string, receivers ...string) records.Transaction {
		from.Block, from.Index, from.Type, from.Submitter, from.Receivers = block, index, typ, submitter, receivers
		from.JSON = []byte(fmt.Sprintf(`{"block":"%d","index":%d,"type":%q,"added":true}`, block, index, typ))
		return from
	}
	some := w.Transactions[len(w.Transactions)/3]
	r.txs = []records.Transaction{
		tx(some, some.Block, some.Index+1000, "Edge Type", hexID("new party")),
		tx(some, 1, 0, some.Type, some.Submitter, hexID("receiver")),
		tx(some, w.LatestBlock, 4000, "Edge Type", some.Submitter, some.Submitter),
	}
	return r
}

// add adds the rows to st, each listing in one call.
func (r rowsToAdd) add(t *testing.T, st *Store) {
	t.Helper()
	for listing, recs := range r.records() {
		if err := st.AddRows(listing, recs, false); err != nil {
			t.Fatalf("add %s: %v", listing, err)
		}
	}
}

// records returns the rows as AddRows takes them, by listing.
func (r rowsToAdd) records() map[string][]any {
	out := map[string][]any{}
	for i := range r.games {
		out[records.ListingGames] = append(out[records.ListingGames], &r.games[i])
	}
	for i := range r.snapshots {
		out[records.ListingSnapshots] = append(out[records.ListingSnapshots], &r.snapshots[i])
	}
	for i := range r.rotations {
		out[records.ListingKeyRotations] = append(out[records.ListingKeyRotations], &r.rotations[i])
	}
	for i := range r.params {
		out[records.ListingNetworkParameters] = append(out[records.ListingNetworkParameters], &r.params[i])
	}
	for i := range r.txs {
		out[records.ListingTransactions] = append(out[records.ListingTransactions], &r.txs[i])
	}
	return out
}

// into returns w with the rows among its records.
func (r rowsToAdd) into(w *world.World) *world.World {
	c := copyWorld(w)
	c.Games = append(c.Games, r.games...)
	c.Snapshots = append(c.Snapshots, r.snapshots...)
	c.KeyRotations = append(c.KeyRotations, r.rotations...)
	c.NetworkParameters = append(c.NetworkParameters, r.params...)
	c.Transactions = append(c.Transactions, r.txs...)
	slices.SortFunc(c.Transactions, func(a, b records.Transaction) int { return a.Key().Compare(b.Key()) })
	c.FirstEpoch = 0
	return c
}

// TestAddRowsInTheirPlace adds rows to every listing of a store and checks
// it reads as a store built with them: in their place, filtered by their
// values, their own bytes served; that the store's own rows are untouched;
// and that a reset drops them.
func TestAddRowsInTheirPlace(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	before := st.Counts()
	rows := newRows(w)
	rows.add(t, st)
	sameAsBuilt(t, st, rows.into(w))
	want := map[string]int{"games": 4, "snapshots": 3, "keyrotations": 3, "networkparameters": 3, "transactions": 3}
	if got := st.AddedCounts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("added counts %v, want %v", got, want)
	}
	for l, n := range st.Counts() {
		if n != before[l]+want[l] {
			t.Errorf("%s: %d rows, want %d and %d added", l, n, before[l], want[l])
		}
	}
	if state := st.State(); state.FirstEpoch != 0 || state.LatestEpoch != w.LatestEpoch || state.LatestBlock != w.LatestBlock {
		t.Errorf("state %+v: want the epochs from 0 (a game added) and the newest block unchanged", state)
	}
	if len(st.gameKeys) != before["games"] || len(st.txKeys) != before["transactions"] {
		t.Errorf("the store's own rows changed: %d games, %d transactions", len(st.gameKeys), len(st.txKeys))
	}
	st.Reset()
	if st.view != nil || st.added != nil {
		t.Fatal("a reset kept the rows added")
	}
	sameAsBuilt(t, st, w)
	if got := st.AddedCounts(); got["games"]+got["transactions"] != 0 {
		t.Errorf("added counts after a reset: %v", got)
	}
}

// TestAddRowsOneByOne adds the rows a call at a time, each row alone: the
// same store as adding them at once.
func TestAddRowsOneByOne(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows := newRows(w)
	for listing, recs := range rows.records() {
		for i := len(recs) - 1; i >= 0; i-- {
			if err := st.AddRows(listing, recs[i:i+1], false); err != nil {
				t.Fatal(err)
			}
		}
	}
	sameAsBuilt(t, st, rows.into(w))
}

// TestAddRowsRefuses checks the rows refused (a key the listing holds, a key
// twice, a record of another listing, an unknown listing) change nothing.
func TestAddRowsRefuses(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	added := snapshot(w.Snapshots[2].BlockHeight + 1)
	if err := st.AddRows(records.ListingSnapshots, []any{&added}, false); err != nil {
		t.Fatal(err)
	}
	worldGame := w.Games[10]
	worldTx := w.Transactions[10]
	tests := []struct {
		name    string
		listing string
		recs    []any
		is      error
		says    string
	}{
		{"a world's snapshot", records.ListingSnapshots, []any{ptr(snapshot(w.Snapshots[5].BlockHeight))}, ErrRowExists,
			fmt.Sprintf("the snapshot at height %d is the world's (replace it, or give another key)", w.Snapshots[5].BlockHeight)},
		{"a snapshot added before", records.ListingSnapshots, []any{ptr(snapshot(added.BlockHeight))}, ErrRowExists, "was added before"},
		{"a world's game", records.ListingGames, []any{&worldGame}, ErrRowExists, "the game " + worldGame.ID},
		{"a world's transaction", records.ListingTransactions, []any{&worldTx}, ErrRowExists, fmt.Sprintf("transaction %d.%d is the world's", worldTx.Block, worldTx.Index)},
		{"a world's rotation", records.ListingKeyRotations, []any{&w.KeyRotations[3]}, ErrRowExists, "key rotation of node"},
		{"a world's parameter", records.ListingNetworkParameters, []any{&w.NetworkParameters[3]}, ErrRowExists, "network parameter " + w.NetworkParameters[3].Key},
		{"one key twice", records.ListingSnapshots, []any{ptr(snapshot(7)), ptr(snapshot(8)), ptr(snapshot(7))}, nil, "two rows are the snapshot at height 7: give each key once"},
		{"a good row and a bad one", records.ListingSnapshots, []any{ptr(snapshot(9)), ptr(snapshot(w.Snapshots[0].BlockHeight))}, ErrRowExists, "is the world's"},
		{"a game as a snapshot", records.ListingSnapshots, []any{&worldGame}, nil, "row 0: a *records.Game, not a *records.CoreSnapshot"},
		{"an unknown listing", "snapshot", []any{ptr(snapshot(9))}, records.ErrNoListing, `"snapshot"`},
	}
	for _, tc := range tests {
		err := st.AddRows(tc.listing, tc.recs, false)
		if err == nil || !strings.Contains(err.Error(), tc.says) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.says)
		}
	}
	sameAsBuilt(t, st, rowsToAdd{snapshots: []records.CoreSnapshot{added}}.into(w))
}

// TestAddRowsReplace checks a row replacing a world row or an added one
// takes its place, its filters its own, and a reset brings the world's
// back.
func TestAddRowsReplace(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old := w.Games[20]
	repl := individualGame(old.Epoch, old.ID, hexID("only party"))
	if err := st.AddRows(records.ListingGames, []any{&repl}, true); err != nil {
		t.Fatal(err)
	}
	added := snapshot(w.Snapshots[2].BlockHeight + 1)
	if err := st.AddRows(records.ListingSnapshots, []any{&added}, false); err != nil {
		t.Fatal(err)
	}
	again := added
	again.CoreVersion = "v9.9.9"
	if err := st.AddRows(records.ListingSnapshots, []any{&again}, true); err != nil {
		t.Fatal(err)
	}
	want := copyWorld(w)
	want.Games[20] = repl
	want.Snapshots = append(want.Snapshots, again)
	sameAsBuilt(t, st, want)
	if got := st.AddedCounts(); got["games"] != 1 || got["snapshots"] != 1 {
		t.Errorf("added counts %v: want a game and one snapshot (replaced)", got)
	}
	st.Reset()
	sameAsBuilt(t, st, w)
}

// TestAddedRowsKeptAsStart checks KeepAddedRows: a reset drops the rows
// added after, and keeps those before.
func TestAddedRowsKeptAsStart(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	kept := rowsToAdd{snapshots: []records.CoreSnapshot{snapshot(1)}}
	kept.add(t, st)
	st.KeepAddedRows()
	later := snapshot(2)
	if err := st.AddRows(records.ListingSnapshots, []any{&later}, false); err != nil {
		t.Fatal(err)
	}
	st.Reset()
	sameAsBuilt(t, st, kept.into(w))
	st.Reset()
	sameAsBuilt(t, st, kept.into(w))
}

// TestAddedRowsGrowWithTheChain appends blocks to a store with rows added
// among its own (each block goes on the view's newest end) and with rows
// newer than the chain's newest block (the view is made again, the chain's
// rows before them, a chain row of the same key hidden by the added one).
func TestAddedRowsGrowWithTheChain(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	const n = 300 // a snapshot comes every 250 blocks
	grownWorld, blocks := grown(t, w, n)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows := newRows(w)
	rows.add(t, st)
	view := st.view
	for _, b := range blocks[:n/2] {
		if err := st.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	if st.view != view {
		t.Error("a block newer than every row added made the view again: it goes on its newest end")
	}
	half, _ := grown(t, w, n/2)
	sameAsBuilt(t, st, rows.into(half))

	// Newer than the newest block: a snapshot at the height of one the
	// chain makes later (the chain's is hidden), a transaction at the
	// top of uint64.
	var chainSnap records.CoreSnapshot
	for _, b := range blocks[n/2:] {
		if b.Snapshot != nil {
			chainSnap = *b.Snapshot
		}
	}
	if chainSnap.BlockHeight == 0 {
		t.Fatalf("no snapshot in blocks %d to %d", n/2, n)
	}
	ahead := snapshot(chainSnap.BlockHeight)
	far := rows.txs[0]
	far.Block, far.Index = math.MaxUint64, 0
	if err := st.AddRows(records.ListingSnapshots, []any{&ahead}, false); err != nil {
		t.Fatal(err)
	}
	if err := st.AddRows(records.ListingTransactions, []any{&far}, false); err != nil {
		t.Fatal(err)
	}
	view = st.view
	for _, b := range blocks[n/2:] {
		if err := st.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	if st.view == view {
		t.Error("blocks older than a row added left the view as it was: it must be made again")
	}
	want := rows.into(grownWorld)
	i := slices.IndexFunc(want.Snapshots, func(s records.CoreSnapshot) bool { return s.BlockHeight == chainSnap.BlockHeight })
	want.Snapshots[i] = ahead
	want.Transactions = append(want.Transactions, far)
	sameAsBuilt(t, st, want)
	if got := st.State().LatestBlock; got != grownWorld.LatestBlock {
		t.Errorf("latest block %d, want the chain's %d: rows added do not move it", got, grownWorld.LatestBlock)
	}
	st.Reset()
	sameAsBuilt(t, st, w)
}

// TestAddRowsToFixtures adds rows to a store serving fixture files from
// disk: they are served from memory beside the mapped files' rows, whose
// blocks are still checked as they are read.
func TestAddRowsToFixtures(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	dir := writeFixtures(t, w, fixtures.FormatNDJSON)
	st, _ := openFixtures(t, dir)
	rows := newRows(w)
	rows.add(t, st)
	ref, err := fixtures.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameAsBuilt(t, st, rows.into(ref))

	// A byte changed in the file: its rows are refused, the added rows
	// still served.
	path := filepath.Join(dir, "snapshots.ndjson")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-10] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	damaged, _ := openFixtures(t, dir)
	rows.add(t, damaged)
	damaged.Read(func(r Reader) {
		keys := r.SnapshotKeys()
		var recovered any
		for i := range keys {
			func() {
				defer func() {
					if v := recover(); v != nil {
						recovered = v
					}
				}()
				edge := r.Snapshots().AppendEdge(nil, i)
				if keys[i].BlockHeight == 0 && !bytes.Contains(edge, []byte(`"blockHeight":"0"`)) {
					t.Errorf("the snapshot added at height 0: %s", edge)
				}
			}()
		}
		if _, ok := recovered.(*integrity.CorruptError); !ok {
			t.Errorf("reading every snapshot of a damaged file: %v, want a CorruptError", recovered)
		}
	})
}

// TestAddRowsWhileRead adds rows, appends blocks and resets while readers
// read every listing: each read sees a whole store (keys in order, every
// row readable), with or without the rows (run with -race).
func TestAddRowsWhileRead(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	chain, err := NewChain(st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows := newRows(w)
	done := make(chan struct{})
	errs := make(chan string, 3) // each reader's first problem, or ""
	for range 3 {
		go func() {
			problem := ""
			defer func() { errs <- problem }()
			for problem == "" {
				select {
				case <-done:
					return
				default:
				}
				st.Read(func(r Reader) {
					keys := r.SnapshotKeys()
					for i := 1; i < len(keys) && problem == ""; i++ {
						if keys[i-1].BlockHeight >= keys[i].BlockHeight {
							problem = fmt.Sprintf("snapshot keys out of order at %d", i)
						}
					}
					for i := range r.TxKeys() {
						if len(r.Tx(i)) == 0 || r.TxType(i) == "" {
							problem = fmt.Sprintf("transaction row %d unreadable", i)
							break
						}
					}
					for i := range r.Games().Len() {
						r.Games().AppendEdge(nil, i)
					}
				})
			}
		}()
	}
	for i := range 30 {
		if i%10 == 9 {
			chain.Reset()
			continue
		}
		if err := chain.Advance(3); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			rows.add(t, st)
		}
	}
	close(done)
	for range 3 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestAddRowsToAnEmptyStore adds rows to a store with no row at all, and
// to two listings only: each listing reads as built with them.
func TestAddRowsToAnEmptyStore(t *testing.T) {
	t.Parallel()
	w := emptyWorld()
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	game := individualGame(3, hexID("g"), hexID("p"))
	rows := rowsToAdd{
		games:     []records.Game{game},
		snapshots: []records.CoreSnapshot{snapshot(10), snapshot(20)},
		rotations: []records.EthereumKeyRotation{rotation(10, hexID("n"))},
		params:    []records.NetworkParameter{{Key: "a", Value: "1"}},
		txs:       []records.Transaction{{Block: 7, Index: 1, Type: "T", Submitter: hexID("p"), Receivers: []string{hexID("r")}, JSON: []byte(`{}`)}},
	}
	rows.add(t, st)
	want := rows.into(w)
	want.FirstEpoch = w.FirstEpoch
	sameAsBuilt(t, st, want)
	if state := st.State(); state.FirstEpoch != 1 || state.LatestEpoch != 3 {
		t.Errorf("epochs %d to %d, want the world's first (1) to the game's (3)", state.FirstEpoch, state.LatestEpoch)
	}

	if err := st.AddRows(records.ListingSnapshots, nil, false); err != nil {
		t.Fatal(err)
	}
	sameAsBuilt(t, st, want)
	none, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	if err := none.AddRows(records.ListingGames, []any{}, false); err != nil || none.view != nil {
		t.Errorf("no row added: %v, a view %v; want none (it would cost every read nothing, but its making)", err, none.view != nil)
	}

	two, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	pair := rowsToAdd{snapshots: []records.CoreSnapshot{snapshot(5)}, rotations: []records.EthereumKeyRotation{rotation(5, hexID("n"))}}
	pair.add(t, two)
	sameAsBuilt(t, two, pair.into(w))
}
