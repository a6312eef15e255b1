package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/fixtures/integrity"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
)

// sharedWorld is a small generated world, made once, that tests only read.
var sharedWorld = sync.OnceValues(func() (*world.World, error) {
	return world.Generate(world.Options{Seed: 7, Scale: 0.05})
})

func genWorld(t testing.TB) *world.World {
	t.Helper()
	w, err := sharedWorld()
	if err != nil {
		t.Fatalf("generate world: %v", err)
	}
	return w
}

// copyWorld returns a world sharing w's records but with its own record
// slices, so a test can add or drop records.
func copyWorld(w *world.World) *world.World {
	c := *w
	c.Games = slices.Clone(w.Games)
	c.Snapshots = slices.Clone(w.Snapshots)
	c.KeyRotations = slices.Clone(w.KeyRotations)
	c.NetworkParameters = slices.Clone(w.NetworkParameters)
	c.Transactions = slices.Clone(w.Transactions)
	return &c
}

// writeFixtures writes w into a new directory in format.
func writeFixtures(t testing.TB, w *world.World, format string) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := fixtures.Write(context.Background(), dir, w, fixtures.WriteOptions{Format: format}); err != nil {
		t.Fatalf("write fixtures: %v", err)
	}
	return dir
}

// openFixtures opens dir from disk, closing the store when the test ends.
func openFixtures(t testing.TB, dir string) (*Store, fixtures.IndexInfo) {
	t.Helper()
	s, info, err := OpenFixtures(dir)
	if err != nil {
		t.Fatalf("OpenFixtures: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, info
}

// TestNewRefusesDuplicateGames checks a world with two games of the
// same epoch and ID is refused, whatever else it holds.
func TestNewRefusesDuplicateGames(t *testing.T) {
	w := copyWorld(genWorld(t))
	w.Games = append(w.Games, w.Games[len(w.Games)/2])
	s, err := New(w)
	if err == nil {
		s.Close()
		t.Fatal("New took two games with the same epoch and ID")
	}
	if g := w.Games[len(w.Games)-1]; !strings.Contains(err.Error(), fmt.Sprintf("two games with epoch %d and ID %s", g.Epoch, g.ID)) {
		t.Errorf("error %q, want it to name the game", err)
	}
}

// TestFixtureStoreFacts checks a store served from fixtures takes the
// chain's facts from the manifest (a recorded manifest has no seed), and
// that Close unmaps the files it mapped.
func TestFixtureStoreFacts(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, fixtures.FormatNDJSON)
	st, _ := openFixtures(t, dir)
	if st.seed != w.Seed || st.scale != w.Scale || st.latestBlock != w.LatestBlock || st.latestEpoch != w.LatestEpoch {
		t.Errorf("seed %d, scale %v, block %d, epoch %d; want the world's %d, %v, %d, %d",
			st.seed, st.scale, st.latestBlock, st.latestEpoch, w.Seed, w.Scale, w.LatestBlock, w.LatestEpoch)
	}

	// Without a seed.
	m, err := fixtures.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Seed = nil
	if err := fixtures.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if st, _ = openFixtures(t, dir); st.seed != 0 {
		t.Errorf("no seed in the manifest: seed %d, want 0", st.seed)
	}

	maps := func() int {
		b, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Skipf("no /proc/self/maps: %v", err)
		}
		return bytes.Count(b, []byte(dir+string(filepath.Separator)))
	}
	before := maps()
	s, _, err := OpenFixtures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := maps() - before; got != len(records.Listings) {
		t.Errorf("%d fixture files mapped while open, want %d", got, len(records.Listings))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := maps() - before; got != 0 {
		t.Errorf("%d fixture files still mapped after Close", got)
	}
}

// TestTypeNumbers checks the store numbers up to 65,536 transaction types,
// the most its numbers hold, and refuses one more.
func TestTypeNumbers(t *testing.T) {
	s := newStore(0, 0)
	for i := 0; i < 1<<16; i++ {
		n, err := s.typeNum(fmt.Sprintf("type%d", i))
		if err != nil || int(n) != i {
			t.Fatalf("type %d: number %d, error %v", i, n, err)
		}
	}
	if n, err := s.typeNum("type7"); err != nil || n != 7 {
		t.Errorf("a type seen before: number %d, error %v; want 7", n, err)
	}
	if _, err := s.typeNum("one too many"); err == nil || !strings.Contains(err.Error(), "more than 65536 transaction types") {
		t.Errorf("the 65,537th type: error %v", err)
	}
}

// TestDamagedRowIsNeverReturned damages the newest transaction's bytes in
// a fixture file: reading it panics with the CorruptError naming the file
// and the block (the server turns it into an error answer), the store's
// lock is released, and rows of other blocks are read as written.
func TestDamagedRowIsNeverReturned(t *testing.T) {
	dir := writeFixtures(t, genWorld(t), fixtures.FormatNDJSON)
	openFixtures(t, dir) // builds and saves the index
	path := filepath.Join(dir, "transactions.ndjson")
	data, _ := os.ReadFile(path)
	oldest := string(data[bytes.LastIndexByte(data[:len(data)-1], '\n')+1 : len(data)-1])
	data[5] ^= 1
	os.WriteFile(path, data, 0o644)
	s, info := openFixtures(t, dir)
	if info.Rebuilt != "" {
		t.Fatalf("rebuilt: %s", info.Rebuilt)
	}
	newest := s.Counts()[records.ListingTransactions] - 1
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		s.Read(func(r Reader) { r.Tx(newest) })
	}()
	ce, ok := recovered.(*integrity.CorruptError)
	if !ok || ce.Path != path || ce.Block != 0 {
		t.Fatalf("reading the damaged row: %v, want the CorruptError of block 0 of %s", recovered, path)
	}
	locked := make(chan struct{})
	go func() { s.mu.Lock(); s.mu.Unlock(); close(locked) }()
	select {
	case <-locked:
	case <-time.After(10 * time.Second):
		t.Fatal("the store's lock is still held after the panic")
	}
	s.Read(func(r Reader) {
		if got := string(r.Tx(0)); got != oldest {
			t.Errorf("the oldest transaction read as %.80q, want %.80q", got, oldest)
		}
	})
}
