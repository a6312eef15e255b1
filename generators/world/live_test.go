package world

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"testing"

	"github.com/chaindata/harness/generators/records"
)

// grow makes n blocks of a new Growth of w.
func grow(t testing.TB, w *World, n int) (*Growth, []*Block) {
	t.Helper()
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	return g, nextBlocks(t, g, n)
}

func nextBlocks(t testing.TB, g *Growth, n int) []*Block {
	t.Helper()
	out := make([]*Block, n)
	for i := range out {
		b, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// blocksDigest hashes every record of the blocks, in order.
func blocksDigest(blocks []*Block) string {
	h := sha256.New()
	for _, b := range blocks {
		fmt.Fprintf(h, "block %d %d %s\n", b.Height, b.Epoch, b.Time)
		for i := range b.Games {
			h.Write(records.RecordJSON(&b.Games[i]))
		}
		if b.Snapshot != nil {
			h.Write(records.RecordJSON(b.Snapshot))
		}
		for i := range b.KeyRotations {
			h.Write(records.RecordJSON(&b.KeyRotations[i]))
		}
		for _, tx := range b.Transactions {
			h.Write(tx.JSON)
			fmt.Fprintf(h, "%s %s %v\n", tx.Type, tx.Submitter, tx.Receivers)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// grownWorld is w with the blocks' records added at the newest end, as one
// world, so the checks of a generated world apply to it.
func grownWorld(t *testing.T, w *World, g *Growth, blocks []*Block) *World {
	t.Helper()
	c := *w
	c.Games = slices.Clone(w.Games)
	c.Snapshots = slices.Clone(w.Snapshots)
	c.KeyRotations = slices.Clone(w.KeyRotations)
	c.Nodes = slices.Clone(w.Nodes)
	var txs []records.Transaction
	if err := w.EachTransaction(t.Context(), false, func(tx *records.Transaction) error {
		txs = append(txs, *tx)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		c.Games = append(c.Games, b.Games...)
		if b.Snapshot != nil {
			c.Snapshots = append(c.Snapshots, *b.Snapshot)
		}
		c.KeyRotations = append(c.KeyRotations, b.KeyRotations...)
		txs = append(txs, b.Transactions...)
		c.LatestBlock, c.LatestBlockTime, c.LatestEpoch = b.Height, b.Time, b.Epoch
	}
	c.Transactions, c.plan = txs, nil
	for i := range c.Nodes {
		c.Nodes[i].EthAddress = g.addresses[i]
	}
	return &c
}

// TestGrowthIsDeterministic checks the blocks after a world's latest depend
// on the seed and scale alone: the same from two Growths, after a Reset, from
// a lazy world and from a world generated with other workers; and another
// seed gives other blocks.
func TestGrowthIsDeterministic(t *testing.T) {
	t.Parallel()
	const n = 300
	gen := func(opts Options) *World {
		w, err := Generate(opts)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := gen(Options{Seed: 3, Scale: 0.02})
	g, blocks := grow(t, w, n)
	want := blocksDigest(blocks)
	g.Reset()
	if g.Height() != w.LatestBlock || g.Added() != 0 {
		t.Fatalf("after Reset: height %d, %d added; want %d, 0", g.Height(), g.Added(), w.LatestBlock)
	}
	tests := []struct {
		name   string
		blocks []*Block
	}{
		{"a second Growth of the same world", func() []*Block { _, b := grow(t, w, n); return b }()},
		{"the same Growth after Reset", nextBlocks(t, g, n)},
		{"a lazy world of the same seed", func() []*Block { _, b := grow(t, gen(Options{Seed: 3, Scale: 0.02, Lazy: true}), n); return b }()},
		{"a world made by 3 workers", func() []*Block { _, b := grow(t, gen(Options{Seed: 3, Scale: 0.02, Workers: 3}), n); return b }()},
	}
	for _, tc := range tests {
		if got := blocksDigest(tc.blocks); got != want {
			t.Errorf("%s: blocks differ (%s, want %s)", tc.name, got, want)
		}
	}
	if _, other := grow(t, gen(Options{Seed: 4, Scale: 0.02}), n); blocksDigest(other) == want {
		t.Error("seeds 3 and 4 grow the same blocks")
	}
}

// TestGrowthLeavesTheWorldAlone checks growing does not change the world it
// grows from (the games' totals and the nodes' addresses especially), so
// servers can share one world.
func TestGrowthLeavesTheWorldAlone(t *testing.T) {
	t.Parallel()
	w, err := Generate(Options{Seed: 5, Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	before := worldDigest(t, w)
	nodes := slices.Clone(w.Nodes)
	totals := fmt.Sprint(w.gameDefs[0].totals)
	g, _ := grow(t, w, 600)
	if g.Epoch() <= w.LatestEpoch {
		t.Fatalf("600 blocks started no epoch (epoch %d); the test tests nothing", g.Epoch())
	}
	if after := worldDigest(t, w); after != before {
		t.Error("growing changed the world's records")
	}
	if !slices.Equal(nodes, w.Nodes) {
		t.Error("growing changed the world's nodes")
	}
	if fmt.Sprint(w.gameDefs[0].totals) != totals {
		t.Error("growing changed the world's game totals")
	}
}

// TestGrownWorldIsConsistent grows worlds by a few epochs and checks the
// world with its new blocks as any generated world is checked: every record
// valid, keys unique and in order, rotations chained, reward totals
// running on; and the growth rules: heights one by one, a new epoch's games
// on the block that starts it under the running games' IDs, a snapshot
// every interval, one to seven transactions a block.
func TestGrownWorldIsConsistent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		seed  int64
		scale float64
	}{
		{6, 0.02}, // epochs of exactly 250 blocks
		{7, 0.05}, // 312.5 blocks an epoch: the world's last epoch is longer
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("seed %d scale %v", tc.seed, tc.scale), func(t *testing.T) {
			t.Parallel()
			w, err := Generate(Options{Seed: tc.seed, Scale: tc.scale})
			if err != nil {
				t.Fatal(err)
			}
			g, err := w.Growth()
			if err != nil {
				t.Fatal(err)
			}
			n, err := g.BlocksForEpochs(3)
			if err != nil {
				t.Fatal(err)
			}
			blocks := nextBlocks(t, g, n)
			if g.Epoch() != w.LatestEpoch+3 {
				t.Fatalf("after BlocksForEpochs(3) = %d blocks, epoch %d, want %d", n, g.Epoch(), w.LatestEpoch+3)
			}
			if len(blocks[len(blocks)-1].Games) == 0 {
				t.Error("the last of the BlocksForEpochs blocks does not start an epoch")
			}
			checkBlocks(t, w, g, blocks)
			grown := grownWorld(t, w, g, blocks)
			validateWorld(t, grown)
			checkKeysAndOrder(t, grown)
			checkRotationChains(t, grown)
			checkRewardTotals(t, grown)
		})
	}
}

// checkBlocks checks the growth rules of blocks made from w.
func checkBlocks(t *testing.T, w *World, g *Growth, blocks []*Block) {
	t.Helper()
	running := map[string]bool{} // game IDs of the world's latest epoch
	for _, gm := range w.Games {
		if gm.Epoch == w.LatestEpoch {
			running[gm.ID] = true
		}
	}
	epochs, rotations, snapshots := 0, 0, 0
	prevEpoch := w.LatestEpoch
	for i, b := range blocks {
		if want := w.LatestBlock + uint64(i) + 1; b.Height != want || !b.Time.Equal(w.BlockTime(want)) {
			t.Fatalf("block %d: height %d at %s, want %d at %s", i, b.Height, b.Time, want, w.BlockTime(want))
		}
		if b.Epoch != g.epochOf(b.Height) || b.Epoch < prevEpoch || b.Epoch > prevEpoch+1 {
			t.Errorf("block %d: epoch %d after %d", b.Height, b.Epoch, prevEpoch)
		}
		if started := b.Epoch > prevEpoch; started != (len(b.Games) > 0) {
			t.Errorf("block %d: starts an epoch: %v, games: %d", b.Height, started, len(b.Games))
		} else if started {
			epochs++
			ids := map[string]bool{}
			for _, gm := range b.Games {
				ids[gm.ID] = true
				if gm.Epoch != b.Epoch {
					t.Errorf("block %d: a game of epoch %d", b.Height, gm.Epoch)
				}
			}
			if len(ids) != len(running) || len(b.Games) != len(ids) {
				t.Errorf("block %d: %d games (%d IDs), want one per running game (%d)", b.Height, len(b.Games), len(ids), len(running))
			}
			for id := range ids {
				if !running[id] {
					t.Errorf("block %d: game %s was not running in the latest epoch", b.Height, id)
				}
			}
		}
		prevEpoch = b.Epoch
		if (b.Height%g.snapshotInterval == 0) != (b.Snapshot != nil) {
			t.Errorf("block %d: snapshot %v, interval %d", b.Height, b.Snapshot != nil, g.snapshotInterval)
		}
		if b.Snapshot != nil {
			snapshots++
			if b.Snapshot.BlockHeight != b.Height {
				t.Errorf("block %d: snapshot at height %d", b.Height, b.Snapshot.BlockHeight)
			}
		}
		for _, r := range b.KeyRotations {
			rotations++
			if r.BlockHeight != b.Height {
				t.Errorf("block %d: rotation at height %d", b.Height, r.BlockHeight)
			}
		}
		if n := len(b.Transactions); n < 1 || n > 7 {
			t.Errorf("block %d: %d transactions, want 1 to 7", b.Height, n)
		}
		for k, tx := range b.Transactions {
			if tx.Block != b.Height || tx.Index != uint32(k) {
				t.Errorf("block %d: transaction %d is %s", b.Height, k, tx.Cursor())
			}
		}
	}
	if epochs == 0 || snapshots == 0 || rotations == 0 {
		t.Errorf("%d blocks: %d epochs started, %d snapshots, %d rotations; want some of each", len(blocks), epochs, snapshots, rotations)
	}
}

// TestBlocksForEpochs checks the count of blocks that starts n epochs: one
// block fewer starts only n-1.
func TestBlocksForEpochs(t *testing.T) {
	t.Parallel()
	w, err := Generate(Options{Seed: 8, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			g, err := w.Growth()
			if err != nil {
				t.Fatal(err)
			}
			nextBlocks(t, g, 7) // not on an epoch boundary
			start := g.Epoch()
			blocks, err := g.BlocksForEpochs(n)
			if err != nil {
				t.Fatal(err)
			}
			nextBlocks(t, g, blocks-1)
			if g.Epoch() != start+uint64(n)-1 {
				t.Errorf("%d blocks: epoch %d, want %d", blocks-1, g.Epoch(), start+uint64(n)-1)
			}
			nextBlocks(t, g, 1)
			if g.Epoch() != start+uint64(n) {
				t.Errorf("%d blocks: epoch %d, want %d", blocks, g.Epoch(), start+uint64(n))
			}
		})
	}
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, -1, 1 << 62} {
		if _, err := g.BlocksForEpochs(n); err == nil {
			t.Errorf("BlocksForEpochs(%d): no error", n)
		}
	}
}
