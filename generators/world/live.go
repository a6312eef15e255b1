package world

import (
	"errors"
	"fmt"
	"time"

	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/generators/records"
)

// A live chain: the world keeps growing at its newest end, one block at a
// time, as a real network does. Block k after the world's latest depends on
// the seed, the scale and k alone: its records are drawn from streams named
// by its height (or, for transactions, by their number in the chain), and the
// state carried from block to block (the nodes' Ethereum addresses, the
// games' reward totals, the count of transactions) is itself a function of
// the blocks before. So the world after K new blocks is the same however and
// whenever they were made.

// Block is what one new block adds to the listings. Every record sorts after
// every record of the world and of the blocks before it.
type Block struct {
	// Height is the block's height: one above the previous block's.
	Height uint64
	// Time is the block's time: one block a second from genesis.
	Time time.Time
	// Epoch is the epoch the block belongs to.
	Epoch uint64
	// Games are the games of the epoch this block starts (none on the
	// other blocks): every recurring game still running, under the ID it
	// has had in every epoch before, in ID order.
	Games []records.Game
	// Snapshot is the core snapshot taken at this block, every
	// snapshot-interval blocks; nil on the others.
	Snapshot *records.CoreSnapshot
	// KeyRotations are the validator key rotations made in this block
	// (now and then one).
	KeyRotations []records.EthereumKeyRotation
	// Transactions are the block's transactions, one to seven, in index
	// order, of the same mix as the world's.
	Transactions []records.Transaction
}

// ErrStatic is returned by World.Growth for a world read from fixtures: it
// has no generator state to grow from.
var ErrStatic = errors.New("the world cannot grow: it was not generated (fixtures hold no generator state)")

// Growth makes the new blocks of a generated world, one at a time. It does
// not change the world it grows from, so several Growths (and readers) can
// share one world. A Growth is not safe for concurrent use.
type Growth struct {
	w   *World // the entities and streams; no records
	ctx *txMaker

	startHeight, startEpoch uint64
	startTxs                int
	epochLength             uint64 // blocks per epoch
	snapshotInterval        uint64
	rotationChance          float64
	nodeIDs                 []string
	nodeAddresses           []string // each node's Ethereum address at the start
	running                 []*gameDefinition

	// State after the blocks made so far.
	height    uint64
	epoch     uint64
	txs       int      // transactions in the chain so far
	addresses []string // each node's Ethereum address now
}

// Growth returns a Growth that makes the blocks after the world's latest.
// A lazy world grows exactly as the same world in memory: its first Growth
// makes the world's games once, one epoch at a time, to reach each player's
// totals after the latest epoch, and keeps only those.
func (w *World) Growth() (*Growth, error) {
	defs := w.finalGameDefs()
	if w.plan == nil || defs == nil {
		return nil, ErrStatic
	}
	epochs := w.LatestEpoch - w.FirstEpoch + 1
	skeleton := &World{
		Seed: w.Seed, Scale: w.Scale, Genesis: w.Genesis, GenesisHeight: w.GenesisHeight,
		LatestBlock: w.LatestBlock, LatestBlockTime: w.LatestBlockTime,
		FirstEpoch: w.FirstEpoch, LatestEpoch: w.LatestEpoch,
		Parties: w.Parties, Teams: w.Teams, Assets: w.Assets, Markets: w.Markets,
		// Only what making one transaction needs: not the placement of
		// every transaction of the world.
		plan: &txPlan{u: w.plan.u, command: w.plan.command, workers: 1},
	}
	g := &Growth{
		w:                skeleton,
		ctx:              newTxMaker(w.plan.u),
		startHeight:      w.LatestBlock,
		startEpoch:       w.LatestEpoch,
		startTxs:         w.TransactionCount(),
		epochLength:      max(1, w.blocks()/epochs),
		snapshotInterval: max(1, w.blocks()/uint64(max(1, len(w.Snapshots)))),
		rotationChance:   float64(len(w.KeyRotations)) / float64(w.blocks()),
	}
	for _, n := range w.Nodes {
		g.nodeIDs = append(g.nodeIDs, n.ID)
		g.nodeAddresses = append(g.nodeAddresses, n.EthAddress)
	}
	for _, d := range defs {
		if d.end == w.LatestEpoch {
			c := *d
			c.base, c.totals = d.totals, nil
			g.running = append(g.running, &c)
		}
	}
	g.Reset()
	return g, nil
}

// Reset goes back to the world the Growth started from: the next block is
// again the first one after the world's latest.
func (g *Growth) Reset() {
	g.height, g.epoch, g.txs = g.startHeight, g.startEpoch, g.startTxs
	g.addresses = append(g.addresses[:0], g.nodeAddresses...)
	for _, d := range g.running {
		d.totals = map[string]*amount{}
	}
}

// Height returns the height of the latest block: the world's latest before
// any block is made.
func (g *Growth) Height() uint64 { return g.height }

// Epoch returns the epoch of the latest block.
func (g *Growth) Epoch() uint64 { return g.epoch }

// Added returns the number of blocks made since the start (or the last
// Reset).
func (g *Growth) Added() int { return int(g.height - g.startHeight) }

// epochOf returns the epoch of a block after the world's latest: epochs are
// epochLength blocks long from the first, and never go back below the
// world's latest epoch (whose last epoch may be a little longer).
func (g *Growth) epochOf(height uint64) uint64 {
	return max(g.startEpoch, g.w.FirstEpoch+(height-g.w.GenesisHeight-1)/g.epochLength)
}

// BlocksForEpochs returns how many blocks must be made for n more epochs to
// have started: the block that starts the n-th one is the last of them.
func (g *Growth) BlocksForEpochs(n int) (int, error) {
	if n < 1 {
		return 0, fmt.Errorf("epochs %d: want at least 1", n)
	}
	target := g.epoch + uint64(n)
	if target < g.epoch || (target-g.w.FirstEpoch) > (1<<62)/g.epochLength {
		return 0, fmt.Errorf("epochs %d: too many", n)
	}
	first := g.w.GenesisHeight + (target-g.w.FirstEpoch)*g.epochLength + 1 // the block that starts epoch target
	if first <= g.height {
		return 1, nil
	}
	return int(first - g.height), nil
}

// Next makes the next block.
func (g *Growth) Next() (*Block, error) {
	h := g.height + 1
	b := &Block{Height: h, Time: g.w.BlockTime(h), Epoch: g.epochOf(h)}
	for e := g.epoch + 1; e <= b.Epoch; e++ {
		b.Games = append(b.Games, g.games(e)...)
	}
	if h%g.snapshotInterval == 0 {
		b.Snapshot = g.snapshot(h)
	}
	if r := random.New(random.Seed(g.w.Seed, "live-key-rotations", h)); r.Chance(g.rotationChance) {
		node := r.Intn(len(g.addresses))
		next := "0x" + r.Hex(40)
		b.KeyRotations = append(b.KeyRotations, records.EthereumKeyRotation{
			BlockHeight: h, NewAddress: next, NodeID: g.nodeIDs[node], OldAddress: g.addresses[node],
		})
		g.addresses[node] = next
	}
	r := random.New(random.Seed(g.w.Seed, "live-block", h))
	n := int(r.Between(1, 7))
	b.Transactions = make([]records.Transaction, n)
	for i := range b.Transactions {
		if err := g.w.makeTransaction(g.ctx, g.w.plan.command, placement{block: h, index: uint32(i)}, g.txs+i, &b.Transactions[i]); err != nil {
			return nil, fmt.Errorf("block %d: %w", h, err)
		}
	}
	g.txs += n
	g.height, g.epoch = h, b.Epoch
	return b, nil
}

// games makes the games of a new epoch: one per running recurring game.
func (g *Growth) games(epoch uint64) []records.Game {
	r := random.New(random.Seed(g.w.Seed, "live-games", epoch))
	out := make([]records.Game, 0, len(g.running))
	for _, d := range g.running {
		if d.teams {
			out = append(out, g.w.teamGame(r, d, epoch))
		} else {
			out = append(out, g.w.individualGame(r, d, epoch))
		}
	}
	return out
}

// snapshot is the core snapshot taken at height h, on the newest core
// version.
func (g *Growth) snapshot(h uint64) *records.CoreSnapshot {
	r := random.New(random.Seed(g.w.Seed, "live-snapshots", h))
	return &records.CoreSnapshot{BlockHash: r.Hex(64), BlockHeight: h, CoreVersion: coreVersions[len(coreVersions)-1]}
}
