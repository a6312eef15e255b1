package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"slices"
	"testing"
	"time"
)

// grown returns w with n blocks grown from it added, as one world, and the
// blocks.
func grown(t testing.TB, w *world.World, n int) (*world.World, []*world.Block) {
	t.Helper()
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	c := copyWorld(w)
	var blocks []*world.Block
	for range n {
		b, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
		c.Games = append(c.Games, b.Games...)
		if b.Snapshot != nil {
			c.Snapshots = append(c.Snapshots, *b.Snapshot)
		}
		c.KeyRotations = append(c.KeyRotations, b.KeyRotations...)
		c.Transactions = append(c.Transactions, b.Transactions...)
		c.LatestBlock, c.LatestBlockTime, c.LatestEpoch = b.Height, b.Time, b.Epoch
	}
	return c, blocks
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// hexID returns a stable 64-character lowercase hex ID named by label.
func hexID(label string) string {
	sum := sha256.Sum256([]byte(label))
	return hex.EncodeToString(sum[:])
}

func ethAddress(label string) string { return "0x" + hexID(label)[:40] }

// emptyWorld returns a world with no records at all.
func emptyWorld() *world.World {
	genesis := time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC)
	return &world.World{
		Seed: 1, Scale: 1, Genesis: genesis,
		LatestBlock: 5000, LatestBlockTime: genesis.Add(5000*time.Second + 123),
		FirstEpoch: 1, LatestEpoch: 1,
	}
}

func entry(party string, rank uint64) records.IndividualEntry {
	return records.IndividualEntry{
		Individual: party, Rank: rank,
		RewardEarned: "1000", RewardEarnedQuantum: "0.001", RewardMetric: "DISPATCH_METRIC_MAKER_FEES_PAID",
		TotalRewardsEarned: "5000", TotalRewardsEarnedQuantum: "0.005", Volume: "12.5",
	}
}

// individualGame is a game played by individuals.
func individualGame(epoch uint64, id string, parties ...string) records.Game {
	g := records.Game{
		Epoch: epoch, ID: id, Participants: uint64(len(parties)), RewardAssetID: hexID("asset"),
		Individual: &records.IndividualEntities{Individual: []records.IndividualEntry{}},
	}
	for i, p := range parties {
		g.Individual.Individual = append(g.Individual.Individual, entry(p, uint64(i+1)))
	}
	return g
}

func snapshot(height uint64) records.CoreSnapshot {
	return records.CoreSnapshot{
		BlockHash: hexID(fmt.Sprint("block", height)), BlockHeight: height, CoreVersion: "v0.77.4",
	}
}

func rotation(height uint64, node string) records.EthereumKeyRotation {
	return records.EthereumKeyRotation{
		BlockHeight: height, NodeID: node,
		OldAddress: ethAddress(fmt.Sprint("old", height, node)), NewAddress: ethAddress(fmt.Sprint("new", height, node)),
	}
}

// TestAppendRefusesOlderRecords checks a block whose records do not all
// sort after the store's is refused whole.
func TestAppendRefusesOlderRecords(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	_, blocks := grown(t, w, 260) // the first block starts an epoch; a later one has a snapshot
	var withSnapshot, withGames *world.Block
	for _, b := range blocks {
		if b.Snapshot != nil && withSnapshot == nil {
			withSnapshot = b
		}
		if len(b.Games) > 1 && withGames == nil {
			withGames = b
		}
	}
	if withSnapshot == nil || withGames == nil {
		t.Fatal("no block with a snapshot or games; the test tests nothing")
	}
	oldTx := w.Transactions[len(w.Transactions)-1]
	oldRot := w.KeyRotations[len(w.KeyRotations)-1]
	tests := []struct {
		name  string
		block func() *world.Block
	}{
		{"height not above the latest", func() *world.Block { b := *blocks[0]; b.Height = w.LatestBlock; return &b }},
		{"a game of an old epoch", func() *world.Block {
			b := *withGames
			b.Games = append(slices.Clone(b.Games), w.Games[len(w.Games)-1])
			return &b
		}},
		{"the same game twice", func() *world.Block {
			b := *withGames
			b.Games = append(slices.Clone(b.Games), b.Games[0])
			return &b
		}},
		{"a snapshot below the newest", func() *world.Block {
			b := *withSnapshot
			s := w.Snapshots[len(w.Snapshots)-1]
			b.Snapshot = &s
			return &b
		}},
		{"an old key rotation", func() *world.Block {
			b := *blocks[0]
			b.KeyRotations = []records.EthereumKeyRotation{oldRot}
			return &b
		}},
		{"the same key rotation twice", func() *world.Block {
			b := *blocks[0]
			r := records.EthereumKeyRotation{BlockHeight: b.Height, NodeID: w.Nodes[0].ID, OldAddress: ethAddress("a"), NewAddress: ethAddress("b")}
			b.KeyRotations = []records.EthereumKeyRotation{r, r}
			return &b
		}},
		{"an old transaction", func() *world.Block {
			b := *blocks[0]
			b.Transactions = append([]records.Transaction{oldTx}, b.Transactions...)
			return &b
		}},
		{"transactions out of order", func() *world.Block {
			b := *blocks[0]
			txs := append(slices.Clone(b.Transactions), b.Transactions[0])
			b.Transactions = txs
			return &b
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := New(w)
			if err != nil {
				t.Fatal(err)
			}
			before := st.mark()
			err = st.Append(tc.block())
			if !errors.Is(err, ErrNotNewer) {
				t.Fatalf("Append: %v, want ErrNotNewer", err)
			}
			if st.mark() != before {
				t.Errorf("a refused block changed the store: %+v, was %+v", st.mark(), before)
			}
		})
	}
	t.Run("the good blocks", func(t *testing.T) {
		st, err := New(w)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if err := st.Append(b); err != nil {
				t.Fatal(err)
			}
		}
		if got := st.mark(); got.latestBlock != blocks[len(blocks)-1].Height {
			t.Errorf("latest block %d after the blocks, want %d", got.latestBlock, blocks[len(blocks)-1].Height)
		}
	})
}

// TestChainBounds checks the bound on the blocks added and the bad counts.
func TestChainBounds(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := NewChain(st, w, 10)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		blocks int
		err    error // nil: no error; errAny: some error
		added  int
	}{
		{blocks: 4, added: 4},
		{blocks: 7, err: ErrMaxBlocks, added: 4}, // all or nothing
		{blocks: 6, added: 10},
		{blocks: 1, err: ErrMaxBlocks, added: 10},
		{blocks: 0, err: errAny, added: 10},
		{blocks: -3, err: errAny, added: 10},
	}
	for _, st := range steps {
		err := chain.Advance(st.blocks)
		switch {
		case st.err == nil && err != nil, st.err == errAny && err == nil, st.err != nil && st.err != errAny && !errors.Is(err, st.err):
			t.Errorf("Advance(%d): %v, want %v", st.blocks, err, st.err)
		}
		if chain.Added() != st.added {
			t.Errorf("after Advance(%d): %d added, want %d", st.blocks, chain.Added(), st.added)
		}
	}
	if _, err := chain.AdvanceEpochs(1); !errors.Is(err, ErrMaxBlocks) {
		t.Errorf("AdvanceEpochs at the bound: %v, want ErrMaxBlocks", err)
	}
	if _, err := chain.AdvanceEpochs(0); err == nil {
		t.Error("AdvanceEpochs(0): no error")
	}
	chain.Reset()
	if blocks, err := chain.AdvanceEpochs(1); err != nil || chain.Added() != blocks || blocks < 1 || blocks > 10 {
		t.Errorf("AdvanceEpochs(1) after Reset: %d blocks, %v; %d added", blocks, err, chain.Added())
	}
	if _, err := chain.AdvanceEpochsAtMost(3, 2); err == nil || chain.Added() > 10 {
		t.Errorf("AdvanceEpochsAtMost beyond its limit: %v", err)
	}
	chain.Reset()
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	need, err := g.BlocksForEpochs(1)
	if err != nil {
		t.Fatal(err)
	}
	if blocks, err := chain.AdvanceEpochsAtMost(1, need); err != nil || blocks != need {
		t.Errorf("AdvanceEpochsAtMost(1, %d), its limit exactly: %d blocks, %v", need, blocks, err)
	}
}

var errAny = errors.New("any error")

// TestNewChainRefuses checks a chain is only made for a generated world's
// store as built.
func TestNewChainRefuses(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	other, err := world.Generate(world.Options{Seed: 8, Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	storeOf := func(w *world.World) *Store {
		s, err := New(w)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	grownStore := storeOf(w)
	_, blocks := grown(t, w, 1)
	if err := grownStore.Append(blocks[0]); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		store     *Store
		world     *world.World
		maxBlocks int
	}{
		{"a world that cannot grow", storeOf(emptyWorld()), emptyWorld(), 0},
		{"the store of another world", storeOf(other), w, 0},
		{"a store already grown", grownStore, w, 0},
		{"a negative bound", storeOf(w), w, -1},
	}
	for _, tc := range tests {
		if _, err := NewChain(tc.store, tc.world, tc.maxBlocks); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestChainClock drives the wall clock's ticks with chosen times: the chain
// holds one block per whole interval since genesis, at most the bound, and
// Advance comes on top.
func TestChainClock(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := NewChain(st, w, 30)
	if err != nil {
		t.Fatal(err)
	}
	genesis := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	const d = time.Second
	chain.interval, chain.start = d, genesis
	steps := []struct {
		at        time.Duration // since genesis
		advance   int           // blocks added by hand first
		added     int
		nextAfter time.Duration // when the next block is due, since genesis
	}{
		{at: -5 * d, added: 0, nextAfter: d},
		{at: d / 2, added: 0, nextAfter: d},
		{at: d, added: 1, nextAfter: 2 * d},
		{at: 3*d + d/2, added: 3, nextAfter: 4 * d},
		{at: 3*d + 9*d/10, advance: 5, added: 8, nextAfter: 4 * d},
		{at: 10 * d, added: 15, nextAfter: 11 * d},
		{at: 100 * d, added: 30, nextAfter: 101 * d}, // the bound
		{at: 200 * d, added: 30, nextAfter: 201 * d},
	}
	for _, st := range steps {
		if st.advance > 0 {
			if err := chain.Advance(st.advance); err != nil {
				t.Fatal(err)
			}
		}
		next, err := chain.tick(genesis.Add(st.at))
		if err != nil {
			t.Fatal(err)
		}
		if chain.Added() != st.added || !next.Equal(genesis.Add(st.nextAfter)) {
			t.Errorf("at %v: %d added, next at %v; want %d, %v", st.at, chain.Added(), next.Sub(genesis), st.added, st.nextAfter)
		}
	}
}

// TestAppendToEmptyStore appends a block to a store with no rows at all: each
// listing's first row.
func TestAppendToEmptyStore(t *testing.T) {
	t.Parallel()
	w := emptyWorld()
	st, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := grown(t, genWorld(t), 1)
	tx := blocks[0].Transactions[0]
	tx.Block = w.LatestBlock + 1
	b := &world.Block{
		Height: w.LatestBlock + 1, Time: w.LatestBlockTime.Add(time.Second), Epoch: 2,
		Games:        []records.Game{individualGame(2, hexID("g"), hexID("p"))},
		Snapshot:     ptr(snapshot(w.LatestBlock + 1)),
		KeyRotations: []records.EthereumKeyRotation{rotation(w.LatestBlock+1, hexID("n"))},
		Transactions: []records.Transaction{tx},
	}
	if err := st.Append(b); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"games": 1, "snapshots": 1, "keyrotations": 1, "networkparameters": 0, "transactions": 1}
	if got := st.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if m := st.mark(); m.latestEpoch != 2 || m.firstEpoch != w.FirstEpoch || m.latestBlock != b.Height || !m.latestBlockTime.Equal(b.Time) {
		t.Errorf("after the block: %+v", m)
	}
}
