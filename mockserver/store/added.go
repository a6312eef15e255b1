package store

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
)

// Rows added for a test: records a test gives a listing (POST /harness/rows
// in package mockserver), served in their place by the listing's order
// among the world's rows, filtered and paged like them, until Reset.
//
// The store as built (and as its chain grows it) is left as it is: the rows
// added are kept apart, and a view is made of both, a Store of its own
// whose rows are the two merged in order, whose bytes it borrows from the
// store (its chunks, read-only) but for the added rows', and whose indexes
// are the store's renumbered. Read hands readers the view while there is
// one, so that the listings read it as they read any store: reading costs
// the same either way, and nothing at all is spent while no row was added.
// Adding rows makes the view again (the cost of the store's row tables, not
// of its bytes); a block the chain appends is appended to the view too, at
// its newest end, or, when an added row is newer than the block, the view
// is made again.
//
// An added row whose key is a world row's hides that row (when asked to
// replace it, else it is refused); one newer than the chain's newest block
// hides a row the chain later makes with its key.

// ErrRowExists is returned by AddRows for a row whose key the listing
// already holds, when not asked to replace it.
var ErrRowExists = errors.New("the listing already has a row with this key")

// addedRows are the records added to each listing, each sorted by its key
// in base order, one per key.
type addedRows struct {
	games     []*records.Game
	snapshots []*records.CoreSnapshot
	rotations []*records.EthereumKeyRotation
	params    []*records.NetworkParameter
	txs       []*records.Transaction
}

// AddRows adds records of one listing (as records.ParseRecord makes them,
// their bytes served as they are) in their place by the listing's order.
// A record whose key the listing already holds, a world row or one added
// before, replaces that row when replace is set and is refused with
// ErrRowExists otherwise; two records with one key are refused. Rows are
// added whole or not at all. The store must not be closed.
func (s *Store) AddRows(listing string, recs []any, replace bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.version.Add(1)
	next := s.added.clone()
	if err := next.add(s, listing, recs, replace); err != nil {
		return err
	}
	view, err := s.makeView(next)
	if err != nil {
		return fmt.Errorf("add %s rows: %w", listing, err)
	}
	s.dropView()
	s.added, s.view = next, view
	return nil
}

// KeepAddedRows makes the rows added so far part of the store's start:
// Reset drops the blocks appended and the rows added since, and serves
// these again.
func (s *Store) KeepAddedRows() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.startAdded = s.added
}

// AddedCounts returns the number of rows added to each listing, by listing
// name.
func (s *Store) AddedCounts() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.added
	if a == nil {
		a = &addedRows{}
	}
	return map[string]int{
		records.ListingGames:             len(a.games),
		records.ListingSnapshots:         len(a.snapshots),
		records.ListingKeyRotations:      len(a.rotations),
		records.ListingNetworkParameters: len(a.params),
		records.ListingTransactions:      len(a.txs),
	}
}

// dropView gives back the memory the view took and forgets it; the rows
// added are kept.
func (s *Store) dropView() {
	if v := s.view; v != nil {
		for _, b := range []*blob{&v.games.blob, &v.snapshots.blob, &v.rotations.blob, &v.params.blob, &v.txs} {
			b.release() // borrowed chunks are read-only, never freed
		}
		s.view = nil
	}
}

// empty reports whether a adds no row (nil adds none).
func (a *addedRows) empty() bool {
	return a == nil || len(a.games) == 0 && len(a.snapshots) == 0 && len(a.rotations) == 0 && len(a.params) == 0 && len(a.txs) == 0
}

// clone returns a copy of a whose lists can be changed apart (nil: none).
func (a *addedRows) clone() *addedRows {
	if a == nil {
		return &addedRows{}
	}
	return &addedRows{
		games: slices.Clone(a.games), snapshots: slices.Clone(a.snapshots), rotations: slices.Clone(a.rotations),
		params: slices.Clone(a.params), txs: slices.Clone(a.txs),
	}
}

// add puts recs into the added rows of listing, checking each against the
// store's rows (s's own: the world and its chain) and the rows added.
func (a *addedRows) add(s *Store, listing string, recs []any, replace bool) error {
	switch listing {
	case records.ListingGames:
		return addSorted(&a.games, recs, replace, func(g *records.Game) records.GameKey { return records.GameKey{Epoch: g.Epoch, ID: g.ID} },
			records.GameKey.Compare, func(k records.GameKey) bool {
				_, ok := slices.BinarySearchFunc(s.gameKeys, k, records.GameKey.Compare)
				return ok
			},
			func(k records.GameKey) string { return fmt.Sprintf("game %s of epoch %d", k.ID, k.Epoch) })
	case records.ListingSnapshots:
		return addSorted(&a.snapshots, recs, replace, func(sn *records.CoreSnapshot) uint64 { return sn.BlockHeight },
			cmp.Compare[uint64], func(h uint64) bool {
				_, ok := slices.BinarySearchFunc(s.snapshotKeys, h, func(k records.SnapshotKey, h uint64) int { return cmp.Compare(k.BlockHeight, h) })
				return ok
			}, func(h uint64) string { return fmt.Sprintf("snapshot at height %d", h) })
	case records.ListingKeyRotations:
		return addSorted(&a.rotations, recs, replace, rotKey,
			records.RotationKey.Compare, func(k records.RotationKey) bool {
				_, ok := slices.BinarySearchFunc(s.rotKeys, k, records.RotationKey.Compare)
				return ok
			},
			func(k records.RotationKey) string {
				return fmt.Sprintf("key rotation of node %s at height %d", k.NodeID, k.BlockHeight)
			})
	case records.ListingNetworkParameters:
		return addSorted(&a.params, recs, replace, func(p *records.NetworkParameter) string { return p.Key },
			cmp.Compare[string], func(k string) bool { _, ok := slices.BinarySearch(s.paramKeys, k); return ok },
			func(k string) string { return fmt.Sprintf("network parameter %s", k) })
	case records.ListingTransactions:
		return addSorted(&a.txs, recs, replace, (*records.Transaction).Key,
			records.TxKey.Compare, func(k records.TxKey) bool {
				_, ok := slices.BinarySearchFunc(s.txKeys, k, records.TxKey.Compare)
				return ok
			},
			func(k records.TxKey) string { return fmt.Sprintf("transaction %d.%d", k.Block, k.Index) })
	}
	return fmt.Errorf("%w %q", records.ErrNoListing, listing)
}

// addSorted adds recs, records of type *R, to list, kept sorted by key
// with one record a key. inStore says whether the store holds a row of a
// key; name names a key in an error.
func addSorted[R any, K any](list *[]*R, recs []any, replace bool, key func(*R) K, compare func(K, K) int,
	inStore func(K) bool, name func(K) string) error {
	fresh := make([]*R, 0, len(recs))
	for i, rec := range recs {
		r, ok := rec.(*R)
		if !ok {
			return fmt.Errorf("row %d: a %T, not a %T", i, rec, r)
		}
		fresh = append(fresh, r)
	}
	slices.SortStableFunc(fresh, func(a, b *R) int { return compare(key(a), key(b)) })
	for i := 1; i < len(fresh); i++ {
		if compare(key(fresh[i-1]), key(fresh[i])) == 0 {
			return fmt.Errorf("two rows are the %s: give each key once", name(key(fresh[i])))
		}
	}
	for _, r := range fresh {
		k := key(r)
		at, found := slices.BinarySearchFunc(*list, k, func(x *R, k K) int { return compare(key(x), k) })
		switch {
		case found && !replace:
			return fmt.Errorf("%w: the %s was added before (replace it, or give another key)", ErrRowExists, name(k))
		case !found && !replace && inStore(k):
			return fmt.Errorf("%w: the %s is the world's (replace it, or give another key)", ErrRowExists, name(k))
		case found:
			(*list)[at] = r
		default:
			*list = slices.Insert(*list, at, r)
		}
	}
	return nil
}

// makeView returns the view of the store's rows and the rows a adds, or
// nil when a adds none.
func (s *Store) makeView(a *addedRows) (*Store, error) {
	if a.empty() {
		return nil, nil
	}
	v := newStore(s.seed, s.scale)
	v.firstEpoch, v.latestEpoch = s.firstEpoch, s.latestEpoch
	v.latestBlock, v.latestBlockTime = s.latestBlock, s.latestBlockTime
	v.heightHeader, v.timeHeader = s.heightHeader, s.timeHeader
	err := v.mergeGames(s, a.games)
	if err == nil {
		err = v.mergeSnapshots(s, a.snapshots)
	}
	if err == nil {
		err = v.mergeRotations(s, a.rotations)
	}
	if err == nil {
		err = v.mergeParams(s, a.params)
	}
	if err == nil {
		err = v.mergeTxs(s, a.txs)
	}
	if err != nil {
		for _, b := range []*blob{&v.games.blob, &v.snapshots.blob, &v.rotations.blob, &v.params.blob, &v.txs} {
			b.release()
		}
		return nil, err
	}
	if n := len(v.gameKeys); n > 0 {
		v.firstEpoch = min(v.firstEpoch, v.gameKeys[0].Epoch)
		v.latestEpoch = max(v.latestEpoch, v.gameKeys[n-1].Epoch)
	}
	return v, nil
}

// merged is the order of a listing's rows in a view: each a row of the
// store (from >= 0) or an added row (-1-j), and each store row's place in
// the view (-1: hidden by an added row of its key).
type merged struct {
	from  []int32
	place []int32
}

// mergeOrder merges n store rows with m added rows, storeCmp comparing
// store row i with added row j by key.
func mergeOrder(n, m int, storeCmp func(i, j int) int) merged {
	mg := merged{from: make([]int32, 0, n+m), place: make([]int32, n)}
	i, j := 0, 0
	for i < n || j < m {
		c := 1 // take the added row
		if i < n && j < m {
			c = storeCmp(i, j)
		} else if i < n {
			c = -1
		}
		switch {
		case c < 0:
			mg.place[i] = int32(len(mg.from))
			mg.from = append(mg.from, int32(i))
			i++
		case c == 0: // hidden by the added row
			mg.place[i] = -1
			i++
		default:
			mg.from = append(mg.from, int32(-1-j))
			j++
		}
	}
	return mg
}

// mergeBlob sets dst to the rows of src and of added in the order of mg:
// src's chunks borrowed read-only, added rows copied into chunks of dst's
// own. add appends added row j's bytes to a blob.
func mergeBlob(dst, src *blob, mg merged, m int, add func(b *blob, j int) error) error {
	var own blob
	for j := range m {
		if err := add(&own, j); err != nil {
			own.release()
			return err
		}
	}
	dst.chunks = make([]chunk, 0, len(src.chunks)+len(own.chunks))
	for _, c := range src.chunks {
		c.mapped = true // borrowed: never written to, never freed
		dst.chunks = append(dst.chunks, c)
	}
	dst.chunks = append(dst.chunks, own.chunks...)
	dst.check = src.check
	shift := uint64(len(src.chunks)) << locShift
	dst.loc = make([]uint64, len(mg.from))
	dst.n = make([]uint32, len(mg.from))
	for p, f := range mg.from {
		if f >= 0 {
			dst.loc[p], dst.n[p] = src.loc[f], src.n[f]
		} else {
			dst.loc[p], dst.n[p] = own.loc[-1-f]+shift, own.n[-1-f]
		}
	}
	return nil
}

// shareBlob sets dst to src's rows, borrowed: its chunks read-only, its
// row tables shared but clipped, so that an append to either copies them
// first. The store only ever appends to its tables, or cuts them back to
// a length the view had (Append's refusal) or drops the view first (Reset),
// so what the view shares is never written again.
func shareBlob(dst, src *blob) {
	dst.chunks = make([]chunk, len(src.chunks))
	for i, c := range src.chunks {
		c.mapped = true
		dst.chunks[i] = c
	}
	dst.loc, dst.n, dst.check = slices.Clip(src.loc), slices.Clip(src.n), src.check
}

// shareIndex returns a copy of idx whose lists are idx's, clipped (see
// shareBlob).
func shareIndex(idx map[string][]int32) map[string][]int32 {
	out := make(map[string][]int32, len(idx))
	for k, list := range idx {
		out[k] = slices.Clip(list)
	}
	return out
}

// remapIndex returns idx with every store row at its place in the view
// (hidden rows dropped), and each added row's entries (extra, by key, as
// view places) merged in.
func remapIndex(idx map[string][]int32, mg merged, extra map[string][]int32) map[string][]int32 {
	out := make(map[string][]int32, len(idx))
	for k, list := range idx {
		nl := make([]int32, 0, len(list)+len(extra[k]))
		for _, i := range list {
			if p := mg.place[i]; p >= 0 {
				nl = append(nl, p)
			}
		}
		out[k] = nl
	}
	for k, places := range extra {
		nl := append(out[k], places...)
		slices.Sort(nl)
		out[k] = slices.Compact(nl)
	}
	for k, nl := range out {
		if len(nl) == 0 {
			delete(out, k)
		}
	}
	return out
}

// addedPlaces returns the view place of every added row, in order.
func (mg merged) addedPlaces(m int) []int32 {
	out := make([]int32, m)
	for p, f := range mg.from {
		if f < 0 {
			out[-1-f] = int32(p)
		}
	}
	return out
}

func (v *Store) mergeGames(s *Store, games []*records.Game) error {
	v.games.nodes = s.games.nodes
	if len(games) == 0 {
		shareBlob(&v.games.blob, &s.games.blob)
		v.gameKeys, v.gameTeams = slices.Clip(s.gameKeys), slices.Clip(s.gameTeams)
		v.gamesByID, v.gamesByTeam, v.gamesByParty = shareIndex(s.gamesByID), shareIndex(s.gamesByTeam), shareIndex(s.gamesByParty)
		return nil
	}
	mg := mergeOrder(len(s.gameKeys), len(games), func(i, j int) int {
		return s.gameKeys[i].Compare(records.GameKey{Epoch: games[j].Epoch, ID: games[j].ID})
	})
	if err := mergeBlob(&v.games.blob, &s.games.blob, mg, len(games), func(b *blob, j int) error {
		g := games[j]
		return (&Paged{nodes: v.games.nodes}).addInto(b, g, records.GameKey{Epoch: g.Epoch, ID: g.ID}.AppendCursor)
	}); err != nil {
		return err
	}
	v.gameKeys = make([]records.GameKey, len(mg.from))
	v.gameTeams = make([]bool, len(mg.from))
	for p, f := range mg.from {
		if f >= 0 {
			v.gameKeys[p], v.gameTeams[p] = s.gameKeys[f], s.gameTeams[f]
		} else {
			g := games[-1-f]
			v.gameKeys[p], v.gameTeams[p] = records.GameKey{Epoch: g.Epoch, ID: g.ID}, g.Team != nil
		}
	}
	byID, byTeam, byParty := map[string][]int32{}, map[string][]int32{}, map[string][]int32{}
	for j, p := range mg.addedPlaces(len(games)) {
		g := games[j]
		byID[g.ID] = append(byID[g.ID], p)
		for _, t := range g.TeamIDs() {
			byTeam[t] = append(byTeam[t], p)
		}
		for _, id := range g.PartyIDs() {
			byParty[id] = append(byParty[id], p)
		}
	}
	v.gamesByID = remapIndex(s.gamesByID, mg, byID)
	v.gamesByTeam = remapIndex(s.gamesByTeam, mg, byTeam)
	v.gamesByParty = remapIndex(s.gamesByParty, mg, byParty)
	return nil
}

func (v *Store) mergeSnapshots(s *Store, snaps []*records.CoreSnapshot) error {
	v.snapshots.nodes = s.snapshots.nodes
	if len(snaps) == 0 {
		shareBlob(&v.snapshots.blob, &s.snapshots.blob)
		v.snapshotKeys = slices.Clip(s.snapshotKeys)
		return nil
	}
	mg := mergeOrder(len(s.snapshotKeys), len(snaps), func(i, j int) int {
		return cmp.Compare(s.snapshotKeys[i].BlockHeight, snaps[j].BlockHeight)
	})
	if err := mergeBlob(&v.snapshots.blob, &s.snapshots.blob, mg, len(snaps), func(b *blob, j int) error {
		return (&Paged{nodes: v.snapshots.nodes}).addInto(b, snaps[j], records.SnapshotKey{BlockHeight: snaps[j].BlockHeight}.AppendCursor)
	}); err != nil {
		return err
	}
	v.snapshotKeys = make([]records.SnapshotKey, len(mg.from))
	for p, f := range mg.from {
		if f >= 0 {
			v.snapshotKeys[p] = s.snapshotKeys[f]
		} else {
			v.snapshotKeys[p] = records.SnapshotKey{BlockHeight: snaps[-1-f].BlockHeight}
		}
	}
	return nil
}

func (v *Store) mergeRotations(s *Store, rots []*records.EthereumKeyRotation) error {
	v.rotations.nodes = s.rotations.nodes
	if len(rots) == 0 {
		shareBlob(&v.rotations.blob, &s.rotations.blob)
		v.rotKeys, v.rotByNode = slices.Clip(s.rotKeys), shareIndex(s.rotByNode)
		return nil
	}
	mg := mergeOrder(len(s.rotKeys), len(rots), func(i, j int) int { return s.rotKeys[i].Compare(rotKey(rots[j])) })
	if err := mergeBlob(&v.rotations.blob, &s.rotations.blob, mg, len(rots), func(b *blob, j int) error {
		return (&Paged{nodes: v.rotations.nodes}).addInto(b, rots[j], rotKey(rots[j]).AppendCursor)
	}); err != nil {
		return err
	}
	v.rotKeys = make([]records.RotationKey, len(mg.from))
	for p, f := range mg.from {
		if f >= 0 {
			v.rotKeys[p] = s.rotKeys[f]
		} else {
			v.rotKeys[p] = rotKey(rots[-1-f])
		}
	}
	byNode := map[string][]int32{}
	for j, p := range mg.addedPlaces(len(rots)) {
		byNode[rots[j].NodeID] = append(byNode[rots[j].NodeID], p)
	}
	v.rotByNode = remapIndex(s.rotByNode, mg, byNode)
	return nil
}

func (v *Store) mergeParams(s *Store, params []*records.NetworkParameter) error {
	v.params.nodes = s.params.nodes
	if len(params) == 0 {
		shareBlob(&v.params.blob, &s.params.blob)
		v.paramKeys = slices.Clip(s.paramKeys)
		return nil
	}
	mg := mergeOrder(len(s.paramKeys), len(params), func(i, j int) int { return cmp.Compare(s.paramKeys[i], params[j].Key) })
	if err := mergeBlob(&v.params.blob, &s.params.blob, mg, len(params), func(b *blob, j int) error {
		return (&Paged{nodes: v.params.nodes}).addInto(b, params[j], records.ParameterKey{Key: params[j].Key}.AppendCursor)
	}); err != nil {
		return err
	}
	v.paramKeys = make([]string, len(mg.from))
	for p, f := range mg.from {
		if f >= 0 {
			v.paramKeys[p] = s.paramKeys[f]
		} else {
			v.paramKeys[p] = params[-1-f].Key
		}
	}
	return nil
}

func (v *Store) mergeTxs(s *Store, txs []*records.Transaction) error {
	v.typeNames = slices.Clone(s.typeNames)
	for name, n := range s.typeNums {
		v.typeNums[name] = n
	}
	if len(txs) == 0 {
		shareBlob(&v.txs, &s.txs)
		v.txKeys, v.txTypes = slices.Clip(s.txKeys), slices.Clip(s.txTypes)
		v.txByType, v.txByParty = shareIndex(s.txByType), shareIndex(s.txByParty)
		return nil
	}
	mg := mergeOrder(len(s.txKeys), len(txs), func(i, j int) int { return s.txKeys[i].Compare(txs[j].Key()) })
	if err := mergeBlob(&v.txs, &s.txs, mg, len(txs), func(b *blob, j int) error { return b.add(txs[j].JSON) }); err != nil {
		return err
	}
	v.txKeys = make([]records.TxKey, len(mg.from))
	v.txTypes = make([]uint16, len(mg.from))
	for p, f := range mg.from {
		if f >= 0 {
			v.txKeys[p], v.txTypes[p] = s.txKeys[f], s.txTypes[f]
			continue
		}
		t := txs[-1-f]
		typ, err := v.typeNum(t.Type)
		if err != nil {
			return err
		}
		v.txKeys[p], v.txTypes[p] = t.Key(), typ
	}
	byType, byParty := map[string][]int32{}, map[string][]int32{}
	for j, p := range mg.addedPlaces(len(txs)) {
		t := txs[j]
		byType[t.Type] = append(byType[t.Type], p)
		byParty[t.Submitter] = append(byParty[t.Submitter], p)
		for _, r := range t.Receivers {
			byParty[r] = append(byParty[r], p)
		}
	}
	v.txByType = remapIndex(s.txByType, mg, byType)
	v.txByParty = remapIndex(s.txByParty, mg, byParty)
	return nil
}

// addInto appends a record's row to b as r's rows are kept: its node, or
// its whole edge with the cursor appendCursor makes.
func (r *Paged) addInto(b *blob, rec any, appendCursor func([]byte) []byte) error {
	p := Paged{blob: *b, nodes: r.nodes}
	err := p.addRecord(rec, appendCursor)
	*b = p.blob
	return err
}

// growView appends a block the store just took to the view, at its newest
// end, or makes the view again when an added row is newer than the block
// (or the block cannot be appended for another reason).
func (s *Store) growView(b *world.Block, games []records.Game, rots []records.EthereumKeyRotation) error {
	v := s.view
	if v == nil {
		return nil
	}
	if v.checkNewer(b, games, rots) == nil {
		before := v.mark()
		if err := v.appendBlock(b, games, rots); err == nil {
			v.latestEpoch = max(v.latestEpoch, s.latestEpoch)
			v.latestBlock, v.latestBlockTime = s.latestBlock, s.latestBlockTime
			v.heightHeader, v.timeHeader = s.heightHeader, s.timeHeader
			return nil
		}
		v.cut(before)
	}
	view, err := s.makeView(s.added)
	if err != nil {
		return err
	}
	s.dropView()
	s.view = view
	return nil
}
