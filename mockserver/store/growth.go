package store

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
)

// The store's growth: a live chain appends whole blocks at the newest end of
// every listing, and Reset goes back to the store as built. These two are
// the only writes a Store ever takes; everything else reads.

// storeMark is how far each listing reached at one moment.
type storeMark struct {
	games, snapshots, rotations, txs     int
	firstEpoch, latestEpoch, latestBlock uint64
	latestBlockTime                      time.Time
}

func (s *Store) mark() storeMark {
	return storeMark{
		games: len(s.gameKeys), snapshots: len(s.snapshotKeys), rotations: len(s.rotKeys), txs: len(s.txKeys),
		firstEpoch: s.firstEpoch, latestEpoch: s.latestEpoch, latestBlock: s.latestBlock, latestBlockTime: s.latestBlockTime,
	}
}

// ErrNotNewer is returned by Append for a block whose records do not all
// sort after the store's: growth happens at the newest end only.
var ErrNotNewer = errors.New("not newer than the store's newest records")

// Append adds a block's records at the newest end of every listing. The
// block is checked first and appended whole under the write lock, so a
// reader sees all of it or none of it; a block that does not sort after the
// store's newest records is refused and changes nothing. Its cost is that of
// the block's rows, whatever the size of the store.
func (s *Store) Append(b *world.Block) error {
	games := slices.Clone(b.Games)
	sort.Slice(games, func(i, j int) bool {
		return gameLess(records.GameKey{Epoch: games[i].Epoch, ID: games[i].ID}, records.GameKey{Epoch: games[j].Epoch, ID: games[j].ID})
	})
	rots := slices.Clone(b.KeyRotations)
	sort.Slice(rots, func(i, j int) bool { return rotationLess(rotKey(&rots[i]), rotKey(&rots[j])) })

	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.version.Add(1)
	if err := s.checkNewer(b, games, rots); err != nil {
		return fmt.Errorf("append block %d: %w", b.Height, err)
	}
	before := s.mark()
	if err := s.appendBlock(b, games, rots); err != nil {
		s.cut(before) // whole or not at all
		return fmt.Errorf("append block %d: %w", b.Height, err)
	}
	s.latestEpoch = max(s.latestEpoch, b.Epoch)
	s.latestBlock, s.latestBlockTime = b.Height, b.Time
	s.setBlockHeaders()
	if err := s.growView(b, games, rots); err != nil {
		// The store took the block; the rows added cannot be shown
		// beside it (memory): they are dropped rather than served
		// without it.
		s.dropView()
		s.added = nil
		return fmt.Errorf("append block %d to the view of the rows added (dropped): %w", b.Height, err)
	}
	return nil
}

// appendBlock adds a checked block's records.
func (s *Store) appendBlock(b *world.Block, games []records.Game, rots []records.EthereumKeyRotation) error {
	for i := range games {
		if err := s.appendGame(&games[i]); err != nil {
			return err
		}
	}
	if b.Snapshot != nil {
		if err := s.appendSnapshot(b.Snapshot); err != nil {
			return err
		}
	}
	for i := range rots {
		if err := s.appendRotation(&rots[i]); err != nil {
			return err
		}
	}
	for i := range b.Transactions {
		if err := s.appendTransaction(&b.Transactions[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkNewer checks every record of a block sorts after the store's newest
// of its listing and after the one before it in the block.
func (s *Store) checkNewer(b *world.Block, games []records.Game, rots []records.EthereumKeyRotation) error {
	if b.Height <= s.latestBlock {
		return fmt.Errorf("%w: height %d, latest block %d", ErrNotNewer, b.Height, s.latestBlock)
	}
	for i := range games {
		k := records.GameKey{Epoch: games[i].Epoch, ID: games[i].ID}
		if n := len(s.gameKeys); (i == 0 && n > 0 && !gameLess(s.gameKeys[n-1], k)) ||
			(i > 0 && !gameLess(records.GameKey{Epoch: games[i-1].Epoch, ID: games[i-1].ID}, k)) {
			return fmt.Errorf("%w: game %s of epoch %d", ErrNotNewer, k.ID, k.Epoch)
		}
	}
	if sn := b.Snapshot; sn != nil {
		if n := len(s.snapshotKeys); n > 0 && sn.BlockHeight <= s.snapshotKeys[n-1].BlockHeight {
			return fmt.Errorf("%w: snapshot at height %d", ErrNotNewer, sn.BlockHeight)
		}
	}
	for i := range rots {
		k := rotKey(&rots[i])
		if n := len(s.rotKeys); (i == 0 && n > 0 && !rotationLess(s.rotKeys[n-1], k)) ||
			(i > 0 && !rotationLess(rotKey(&rots[i-1]), k)) {
			return fmt.Errorf("%w: key rotation of node %s at height %d", ErrNotNewer, k.NodeID, k.BlockHeight)
		}
	}
	for i := range b.Transactions {
		k := b.Transactions[i].Key()
		if n := len(s.txKeys); (i == 0 && n > 0 && !s.txKeys[n-1].Less(k)) ||
			(i > 0 && !b.Transactions[i-1].Key().Less(k)) {
			return fmt.Errorf("%w: transaction %s", ErrNotNewer, b.Transactions[i].Cursor())
		}
	}
	return nil
}

// Reset takes the store back to what it held when it was built: every row
// appended since, and every row added (AddRows) but those kept as its start
// (KeepAddedRows), is dropped (and its memory released).
func (s *Store) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.version.Add(1)
	s.dropView()
	s.cut(s.base)
	s.added = s.startAdded
	view, err := s.makeView(s.added)
	if err != nil {
		// Only memory can fail here: the rows were served before. The
		// store is served without them rather than not at all.
		s.added, s.startAdded = nil, nil
	}
	s.view = view
}

// cut drops every row added after a mark, with its index entries, and puts
// back the mark's newest block and epochs.
func (s *Store) cut(m storeMark) {
	s.games.truncate(m.games)
	s.gameKeys, s.gameTeams = s.gameKeys[:m.games], s.gameTeams[:m.games]
	s.snapshots.truncate(m.snapshots)
	s.snapshotKeys = s.snapshotKeys[:m.snapshots]
	s.rotations.truncate(m.rotations)
	s.rotKeys = s.rotKeys[:m.rotations]
	s.txs.truncate(m.txs)
	s.txKeys, s.txTypes = s.txKeys[:m.txs], s.txTypes[:m.txs]
	for idx, n := range map[*map[string][]int32]int{
		&s.gamesByID: m.games, &s.gamesByTeam: m.games, &s.gamesByParty: m.games,
		&s.rotByNode: m.rotations, &s.txByType: m.txs, &s.txByParty: m.txs,
	} {
		cutIndex(*idx, n)
	}
	s.firstEpoch, s.latestEpoch, s.latestBlock, s.latestBlockTime = m.firstEpoch, m.latestEpoch, m.latestBlock, m.latestBlockTime
	s.setBlockHeaders()
}

// cutIndex drops the rows from n on from every list of an index, and the
// keys left with no row.
func cutIndex(idx map[string][]int32, n int) {
	for k, list := range idx {
		c := sort.Search(len(list), func(i int) bool { return int(list[i]) >= n })
		if c == 0 {
			delete(idx, k)
			continue
		}
		idx[k] = list[:c]
	}
}
