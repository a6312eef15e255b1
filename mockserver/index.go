package mockserver

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/chaindata/harness/generators"
)

// An index of a fixture directory is what a Store needs to serve the
// fixture files from disk: for every listing, each row's place in its file
// and its key, in the listing's order, and the lists of rows each filter
// value selects. IndexBuilder collects it from records (as harness generate
// writes them, or as a file is read again) and indexfile.go saves and loads
// it.

// IndexBuilder collects the rows of fixture files. It is not safe for
// concurrent use.
type IndexBuilder struct {
	games     []gameEntry
	snapshots []snapshotEntry
	rotations []rotationEntry
	params    []paramEntry
	txs       []txEntry
	seen      map[string]bool // listings given at least one row

	names    map[string]int32 // interned identifiers
	nameList []string
	refs     []int32 // the identifiers rows name, by span
}

type place struct {
	off int64
	n   uint32
}

// span is a run of IndexBuilder.refs.
type span struct{ lo, hi uint32 }

type gameEntry struct {
	place
	key     generators.GameKey
	teams   bool
	teamIDs span
	parties span
}

type snapshotEntry struct {
	place
	height uint64
}

type rotationEntry struct {
	place
	key generators.RotationKey
}

type paramEntry struct {
	place
	key string
}

// txEntry is flat, 40 bytes: an index of ten million transactions is
// built in memory while they are written.
type txEntry struct {
	off    int64
	block  uint64
	n      uint32
	index  uint32
	typ    int32  // an interned name
	lo, hi uint32 // the parties it names (refs): submitter, then receivers
}

func (t *txEntry) key() generators.TxKey { return generators.TxKey{Block: t.block, Index: t.index} }

// Reserve makes room for the rows to come of each listing (by name), so
// that the builder's tables are allocated once, at their size, rather than
// grown (and copied) as rows are added.
func (b *IndexBuilder) Reserve(counts map[string]int) {
	b.games = slices.Grow(b.games, counts[generators.ListingGames])
	b.snapshots = slices.Grow(b.snapshots, counts[generators.ListingSnapshots])
	b.rotations = slices.Grow(b.rotations, counts[generators.ListingKeyRotations])
	b.params = slices.Grow(b.params, counts[generators.ListingNetworkParameters])
	b.txs = slices.Grow(b.txs, counts[generators.ListingTransactions])
	// A transaction names its submitter (and rarely receivers), a game
	// about a dozen parties.
	b.refs = slices.Grow(b.refs, counts[generators.ListingTransactions]+16*counts[generators.ListingGames])
}

// NewIndexBuilder returns an empty builder.
func NewIndexBuilder() *IndexBuilder {
	return &IndexBuilder{names: map[string]int32{}, seen: map[string]bool{}}
}

func (b *IndexBuilder) name(s string) int32 {
	if n, ok := b.names[s]; ok {
		return n
	}
	n := int32(len(b.nameList))
	s = string([]byte(s)) // never keep a caller's larger buffer alive
	b.names[s] = n
	b.nameList = append(b.nameList, s)
	return n
}

func (b *IndexBuilder) spanOf(ids []string) span {
	lo := uint32(len(b.refs))
	for _, id := range ids {
		b.refs = append(b.refs, b.name(id))
	}
	return span{lo, uint32(len(b.refs))}
}

// Add records one row of a listing's file: its node is length bytes at
// offset, and rec is the record it holds (*generators.Game,
// *generators.CoreSnapshot, *generators.EthereumKeyRotation,
// *generators.NetworkParameter or *generators.Transaction).
func (b *IndexBuilder) Add(listing string, offset int64, length int, rec any) error {
	if offset < 0 || offset >= 1<<locShift || length <= 0 || int64(length) > 1<<32-1 {
		return fmt.Errorf("index: %s row at %d of %d bytes is out of range", listing, offset, length)
	}
	if l := listingOf(rec); l != listing {
		return fmt.Errorf("index: a %T is not a row of %s", rec, listing)
	}
	p := place{offset, uint32(length)}
	switch r := rec.(type) {
	case *generators.Game:
		b.games = append(b.games, gameEntry{place: p, key: generators.GameKey{Epoch: r.Epoch, ID: b.nameList[b.name(r.ID)]},
			teams: r.Team != nil, teamIDs: b.spanOf(r.TeamIDs()), parties: b.spanOf(r.PartyIDs())})
	case *generators.CoreSnapshot:
		b.snapshots = append(b.snapshots, snapshotEntry{p, r.BlockHeight})
	case *generators.EthereumKeyRotation:
		b.rotations = append(b.rotations, rotationEntry{p, generators.RotationKey{BlockHeight: r.BlockHeight, NodeID: b.nameList[b.name(r.NodeID)]}})
	case *generators.NetworkParameter:
		b.params = append(b.params, paramEntry{p, string([]byte(r.Key))})
	case *generators.Transaction:
		lo := uint32(len(b.refs))
		b.refs = append(b.refs, b.name(r.Submitter))
		for _, id := range r.Receivers {
			b.refs = append(b.refs, b.name(id))
		}
		b.txs = append(b.txs, txEntry{off: p.off, n: p.n, block: r.Block, index: r.Index, typ: b.name(r.Type), lo: lo, hi: uint32(len(b.refs))})
	}
	b.seen[listing] = true
	return nil
}

// listingOf names the listing a record belongs to.
func listingOf(rec any) string {
	switch rec.(type) {
	case *generators.Game:
		return generators.ListingGames
	case *generators.CoreSnapshot:
		return generators.ListingSnapshots
	case *generators.EthereumKeyRotation:
		return generators.ListingKeyRotations
	case *generators.NetworkParameter:
		return generators.ListingNetworkParameters
	case *generators.Transaction:
		return generators.ListingTransactions
	}
	return ""
}

// has reports whether the builder was given rows of a listing.
func (b *IndexBuilder) has(listing string) bool { return b.seen[listing] }

// sort puts every listing in its base order and drops the rows a Store
// drops: a second snapshot at one height, a second rotation of one node at
// one height, a second parameter of one key. Two games or transactions with
// one key are an error, as in NewStore.
func (b *IndexBuilder) sort() error {
	slices.SortStableFunc(b.games, func(x, y gameEntry) int { return cmpGame(x.key, y.key) })
	for i := 1; i < len(b.games); i++ {
		if b.games[i].key == b.games[i-1].key {
			return fmt.Errorf("two games with epoch %d and ID %s", b.games[i].key.Epoch, b.games[i].key.ID)
		}
	}
	slices.SortStableFunc(b.snapshots, func(x, y snapshotEntry) int { return cmp.Compare(x.height, y.height) })
	b.snapshots = slices.CompactFunc(b.snapshots, func(x, y snapshotEntry) bool { return x.height == y.height })
	slices.SortStableFunc(b.rotations, func(x, y rotationEntry) int { return cmpRotation(x.key, y.key) })
	b.rotations = slices.CompactFunc(b.rotations, func(x, y rotationEntry) bool { return x.key == y.key })
	slices.SortStableFunc(b.params, func(x, y paramEntry) int { return cmp.Compare(x.key, y.key) })
	b.params = slices.CompactFunc(b.params, func(x, y paramEntry) bool { return x.key == y.key })
	slices.SortStableFunc(b.txs, func(x, y txEntry) int { return cmpTx(x.key(), y.key()) })
	for i := 1; i < len(b.txs); i++ {
		if b.txs[i].key() == b.txs[i-1].key() {
			return fmt.Errorf("two transactions at %d.%d", b.txs[i].block, b.txs[i].index)
		}
	}
	return nil
}

// cmpGame compares games in base order: epoch ascending, ID descending.
func cmpGame(a, b generators.GameKey) int {
	if c := cmp.Compare(a.Epoch, b.Epoch); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

// cmpRotation compares rotations in base order: height ascending, node ID
// descending.
func cmpRotation(a, b generators.RotationKey) int {
	if c := cmp.Compare(a.BlockHeight, b.BlockHeight); c != 0 {
		return c
	}
	return cmp.Compare(b.NodeID, a.NodeID)
}

func cmpTx(a, b generators.TxKey) int {
	if c := cmp.Compare(a.Block, b.Block); c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}

// postings returns, for each identifier rows name, the rows naming it,
// ascending and once each; refs gives the span of row i.
func (b *IndexBuilder) postings(n int, refs func(i int) span) map[string][]int32 {
	out := map[string][]int32{}
	for i := 0; i < n; i++ {
		sp := refs(i)
		for _, r := range b.refs[sp.lo:sp.hi] {
			id := b.nameList[r]
			out[id] = appendOnce(out[id], int32(i))
		}
	}
	return out
}
