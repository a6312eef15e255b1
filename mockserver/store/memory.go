package store

import (
	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/world"
)

// What a world costs in memory once its store is built, so that harness serve
// can refuse a world the machine cannot hold before it spends minutes
// building it. The store keeps each row's JSON once, outside the Go heap,
// and a few fixed-size words per row in it (keys, places, filter lists);
// fixtures are served from their files, so only the words count. The
// per-row figures are the JSON bytes of a row; retune them with the store
// (TestMemoryEstimateTracksMeasurements holds them to measurements).
const (
	gameBytes        = 5_150 // JSON of a game row, its edge and cursor
	transactionBytes = 1_150 // JSON of a transaction
	snapshotBytes    = 210   // JSON of a core snapshot row
	rotationBytes    = 300   // JSON of a key rotation row
	parameterBytes   = 300   // JSON of a network parameter row
	// rowIndexBytes is each row's keys, place and filter list entries.
	rowIndexBytes = 64
	// gamesPerEpoch is the games a world makes per epoch (1,093 over 125
	// epochs at scale 1: the game definitions that run each epoch).
	gamesPerEpoch = 9
	// parameterRows is the network parameters of every world.
	parameterRows = 209
	// heapHeadroom is the peak heap over the live heap: with GOGC=100 the
	// heap grows to twice what is live before a collection.
	heapHeadroom = 2
	// baseBytes is the process before any world (the runtime, the schemas,
	// the generators' tables) and what building a world takes besides its
	// rows.
	baseBytes = 48 << 20
)

// MemoryEstimate returns the peak memory, in bytes, that harness serve
// needs to build and serve the generated world of scale (without the blocks
// a live chain adds later).
func MemoryEstimate(scale float64) uint64 {
	s := world.SizesFor(scale)
	rows := uint64(s.Epochs*gamesPerEpoch + s.Transactions + s.Snapshots + s.KeyRotations + parameterRows)
	data := uint64(s.Epochs*gamesPerEpoch)*gameBytes + uint64(s.Transactions)*transactionBytes +
		uint64(s.Snapshots)*snapshotBytes + uint64(s.KeyRotations)*rotationBytes + parameterRows*parameterBytes
	return data + rows*rowIndexBytes*heapHeadroom + baseBytes
}

// FixturesMemoryEstimate returns the peak memory, in bytes, that serving the
// fixtures in dir needs: their files are mapped, not read into memory, so
// only their rows' index counts. It fails when the manifest cannot be read.
func FixturesMemoryEstimate(dir string) (uint64, error) {
	m, err := fixtures.ReadManifest(dir)
	if err != nil {
		return 0, err
	}
	var rows uint64
	for _, l := range m.Listings {
		rows += uint64(max(l.Count, 0))
	}
	return rows*rowIndexBytes*heapHeadroom + baseBytes, nil
}
