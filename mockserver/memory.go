package mockserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chaindata/harness/generators"
)

// What a world costs in memory once its store is built, so that harness serve
// can refuse a world the machine cannot hold before it spends minutes
// building it. The per-row figures are the JSON bytes of a row; retune them
// with the store. Calibrated on 2026-11-23 against the peak RSS of harness
// serve --scale 1, 10 and 30 (77 MB, 479 MB and 1,307 MB: about 41 MB a unit
// of scale above 64 MB).
const (
	gameBytes        = 5_100 // JSON of a game row
	transactionBytes = 1_150 // JSON of a transaction
	snapshotBytes    = 160   // JSON of a core snapshot
	rotationBytes    = 220   // JSON of a key rotation
	parameterBytes   = 300   // JSON of a network parameter
	// rowIndexBytes is each row's keys, cursor, slice entries and filter
	// index entries beside its JSON.
	rowIndexBytes = 256
	// gamesPerEpoch is the games a world makes per epoch (1,093 over 125
	// epochs at scale 1: the game definitions that run each epoch).
	gamesPerEpoch = 9
	// parameterRows is the network parameters of every world.
	parameterRows = 209
	// heapHeadroom is the peak heap over the live heap while the world and
	// the store are built: with GOGC=100 the heap grows to twice what is
	// live before a collection.
	heapHeadroom = 2
	// baseBytes is the process before any world: the runtime, the schemas,
	// the generators' tables.
	baseBytes = 64 << 20
)

// MemoryEstimate returns the peak memory, in bytes, that harness serve
// needs to build and serve the generated world of scale (without the blocks
// a live chain adds later).
func MemoryEstimate(scale float64) uint64 {
	s := generators.SizesFor(scale)
	rows := uint64(s.Epochs*gamesPerEpoch + s.Transactions + s.Snapshots + s.KeyRotations + parameterRows)
	data := uint64(s.Epochs*gamesPerEpoch)*gameBytes + uint64(s.Transactions)*transactionBytes +
		uint64(s.Snapshots)*snapshotBytes + uint64(s.KeyRotations)*rotationBytes + parameterRows*parameterBytes
	return (data+rows*rowIndexBytes)*heapHeadroom + baseBytes
}

// FixturesMemoryEstimate returns the peak memory, in bytes, that serving the
// fixtures in dir needs: every listing's file is read into memory, so its
// size stands for its rows' JSON. It fails when the manifest or a listing's
// file cannot be read.
func FixturesMemoryEstimate(dir string) (uint64, error) {
	raw, err := os.ReadFile(filepath.Join(dir, generators.ManifestFile))
	if err != nil {
		return 0, err
	}
	var m generators.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return 0, fmt.Errorf("%s: %w", generators.ManifestFile, err)
	}
	var data uint64
	for _, l := range m.Listings {
		st, err := os.Stat(filepath.Join(dir, l.File))
		if err != nil {
			return 0, err
		}
		data += uint64(st.Size()) + uint64(max(l.Count, 0))*rowIndexBytes
	}
	return data*heapHeadroom + baseBytes, nil
}
