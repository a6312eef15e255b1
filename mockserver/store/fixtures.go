package store

import (
	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
)

// OpenFixtures serves the fixtures in dir (written by harness generate or
// harness record, JSON or NDJSON) from disk: their files are mapped, not
// read into memory, and only their index is held (fixtures.Open, which
// checks them against their manifest and loads the index or builds it
// again; info says which). Each block of a file is verified against its
// checksum before a row of it is first served: a row of a damaged block is
// never returned (blob.get). The store must be closed.
func OpenFixtures(dir string) (*Store, fixtures.IndexInfo, error) {
	m, info, err := fixtures.Open(dir)
	if err != nil {
		return nil, info, err
	}
	return fromIndex(m), info, nil
}

// fromIndex returns a store serving the rows of mapped fixtures, as their
// index places them; the store owns m from then on and closes it.
func fromIndex(m *fixtures.Mapped) *Store {
	man, idx := m.Manifest, m.Index
	s := newStore(0, man.Scale)
	if man.Seed != nil {
		s.seed = *man.Seed
	}
	s.firstEpoch, s.latestEpoch = man.FirstEpoch, man.LatestEpoch
	s.latestBlock, s.latestBlockTime = man.LatestBlock, man.LatestBlockTime
	s.fixtures = m

	s.games.blob = mappedBlob(m, records.ListingGames, idx.Games.Places)
	s.games.nodes = true
	s.gameKeys, s.gameTeams = idx.Games.Keys, idx.Games.Teams
	for i, k := range s.gameKeys {
		s.gamesByID[k.ID] = append(s.gamesByID[k.ID], int32(i))
	}
	s.gamesByTeam, s.gamesByParty = idx.Games.ByTeam, idx.Games.ByParty

	s.snapshots.blob = mappedBlob(m, records.ListingSnapshots, idx.Snapshots.Places)
	s.snapshots.nodes = true
	s.snapshotKeys = idx.Snapshots.Keys

	s.rotations.blob = mappedBlob(m, records.ListingKeyRotations, idx.Rotations.Places)
	s.rotations.nodes = true
	s.rotKeys = idx.Rotations.Keys
	for i, k := range s.rotKeys {
		s.rotByNode[k.NodeID] = append(s.rotByNode[k.NodeID], int32(i))
	}

	s.params.blob = mappedBlob(m, records.ListingNetworkParameters, idx.Params.Places)
	s.params.nodes = true
	s.paramKeys = idx.Params.Keys

	s.txs = mappedBlob(m, records.ListingTransactions, idx.Txs.Places)
	s.txKeys, s.txTypes, s.typeNames = idx.Txs.Keys, idx.Txs.Types, idx.Txs.TypeNames
	for n, name := range s.typeNames {
		s.typeNums[name] = uint16(n)
	}
	for i, typ := range s.txTypes {
		name := s.typeNames[typ]
		s.txByType[name] = append(s.txByType[name], int32(i))
	}
	s.txByParty = idx.Txs.ByParty
	if n := len(s.txKeys); n > 0 {
		s.latestBlock = max(s.latestBlock, s.txKeys[n-1].Block)
	}

	s.gameEpochs()
	s.setBlockHeaders()
	s.base = s.mark()
	return s
}

// mappedBlob returns a blob of the rows at places in a listing's mapped
// file: one chunk, the file, which is never written to, whose blocks are
// checked as rows are read.
func mappedBlob(m *fixtures.Mapped, listing string, places fixtures.Places) blob {
	file := m.File(listing)
	// In the one chunk, number 0, a row's location is its offset.
	return blob{chunks: []chunk{{data: file, used: len(file), mapped: true}}, loc: places.Off, n: places.Len, check: m.Blocks(listing)}
}
