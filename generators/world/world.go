package world

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/generators/internal/walker"
	"github.com/chaindata/harness/generators/records"
)

// Options choose the world to generate.
type Options struct {
	// Seed chooses the world; the same seed and scale always give the same
	// world, byte for byte.
	Seed int64
	// Scale multiplies the size of the world. 1 (the default when 0) gives
	// about 10,000 transactions and 1,000 each of games, core snapshots and
	// key rotations; 100 gives a million transactions.
	Scale float64
	// Workers bounds the goroutines that generate transactions; 0 means
	// one per CPU. The output does not depend on it.
	Workers int
	// Progress, when set, is called as transactions are made, with the
	// number done and the total.
	Progress func(done, total int)
	// Lazy leaves the transactions and the games out of memory:
	// Transactions and Games stay nil, and EachTransaction and EachGame
	// make them again each time they are called. For worlds too large to
	// hold; the records are the same, byte for byte.
	Lazy bool
}

// MaxScale is the largest scale Generate accepts.
const MaxScale = 1000

// Sizes are the record counts a scale gives.
type Sizes struct {
	Blocks, Epochs, Transactions, Snapshots, KeyRotations   int
	Parties, Teams, Nodes, Assets, Markets, GameDefinitions int
}

// SizesFor returns the record counts of a world of the given scale.
func SizesFor(scale float64) Sizes {
	at := func(base float64, floor int) int {
		return max(floor, int(math.Round(base*scale)))
	}
	return Sizes{
		Blocks:          at(250_000, 10_000),
		Epochs:          at(125, 40),
		Transactions:    at(10_000, 200),
		Snapshots:       at(1_000, 40),
		KeyRotations:    at(1_000, 40),
		Parties:         min(at(300, 120)+200, 60_000),
		Teams:           min(at(12, 6)+6, 2_000),
		Nodes:           min(at(20, 10)+20, 1_000),
		Assets:          10,
		Markets:         min(at(8, 4)+8, 400),
		GameDefinitions: 10,
	}
}

// World is one consistent network: its entities and the records of the five
// listings, each listing in its natural order (games by epoch then ID,
// snapshots and rotations by block height, parameters by key, transactions
// by block and index), oldest first.
type World struct {
	// Name is the world's name: "" for a world of Generate, EdgeWorld
	// for the edge world.
	Name  string
	Seed  int64
	Scale float64

	Genesis time.Time
	// GenesisHeight is the height before the first block: the chain's
	// blocks are GenesisHeight+1 to LatestBlock, one a second from
	// Genesis. It is 0 in a world of Generate; the edge world's chain
	// starts just below 2^53 (GenerateEdges).
	GenesisHeight   uint64
	LatestBlock     uint64
	LatestBlockTime time.Time
	FirstEpoch      uint64
	LatestEpoch     uint64

	Parties []string
	Teams   []Team
	Nodes   []Node
	Assets  []Asset
	Markets []Market

	// Games holds the games, oldest epoch first and by ID within an
	// epoch; it is nil in a lazy world (read them with EachGame).
	Games             []records.Game
	Snapshots         []records.CoreSnapshot
	KeyRotations      []records.EthereumKeyRotation
	NetworkParameters []records.NetworkParameter
	// Transactions holds the transactions, oldest first; it is nil in a
	// lazy world (read them with EachTransaction).
	Transactions []records.Transaction

	// Edges, in the edge world, says where each edge of the schemas sits
	// (nil in other worlds).
	Edges *edges.Catalogue

	plan *txPlan // how to make the transactions again
	// gameDefs are the recurring games, with each player's totals after
	// the latest epoch; a live chain carries on the ones still running.
	// Nil in a lazy world until finalGameDefs makes them.
	gameDefs []*gameDefinition
	games    *gamePlan // how to make the games again; nil unless generated
}

// Team is a team of parties.
type Team struct {
	ID      string
	Members []string
}

// Node is a validator node.
type Node struct {
	ID         string
	CorePubKey string
	// EthAddress is the node's current Ethereum address (after its last
	// rotation).
	EthAddress string
}

// Asset is an asset of the network.
type Asset struct {
	ID       string
	Symbol   string
	Decimals int
}

// Market is a market of the network.
type Market struct {
	ID    string
	Code  string
	Asset string // settlement asset ID
}

// BlockTime returns the time of a block: one block a second from genesis.
func (w *World) BlockTime(height uint64) time.Time {
	return w.Genesis.Add(time.Duration(height-w.GenesisHeight) * time.Second)
}

// blocks returns the number of blocks of the world's chain.
func (w *World) blocks() uint64 { return w.LatestBlock - w.GenesisHeight }

// EpochOf returns the epoch a block belongs to.
func (w *World) EpochOf(height uint64) uint64 {
	span := w.blocks() / (w.LatestEpoch - w.FirstEpoch + 1)
	e := w.FirstEpoch + (height-w.GenesisHeight-1)/span
	return min(e, w.LatestEpoch)
}

// ErrBadOptions is returned for options Generate cannot honour.
var ErrBadOptions = errors.New("bad options")

// Generate builds the world that opts choose.
func Generate(opts Options) (*World, error) {
	if opts.Scale == 0 {
		opts.Scale = 1
	}
	if math.IsNaN(opts.Scale) || opts.Scale < 0.01 || opts.Scale > MaxScale {
		return nil, fmt.Errorf("%w: scale %v is outside [0.01, %d]", ErrBadOptions, opts.Scale, MaxScale)
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("%w: workers %d is negative", ErrBadOptions, opts.Workers)
	}
	sizes := SizesFor(opts.Scale)
	w := &World{
		Seed:        opts.Seed,
		Scale:       opts.Scale,
		Genesis:     time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC),
		LatestBlock: uint64(sizes.Blocks),
		FirstEpoch:  1,
		LatestEpoch: uint64(sizes.Epochs),
	}
	w.LatestBlockTime = w.BlockTime(w.LatestBlock)
	if err := w.populate(sizes, opts); err != nil {
		return nil, err
	}
	return w, nil
}

// populate makes the world's entities and the records of its listings, on
// the chain and epochs w already has.
func (w *World) populate(sizes Sizes, opts Options) error {
	w.makeEntities(sizes)
	// Snapshots and key rotations draw from streams of their own and fill
	// fields of their own (rotations move the nodes' addresses, which
	// snapshots do not read): they are made side by side.
	var snapshots sync.WaitGroup
	snapshots.Add(1)
	go func() {
		defer snapshots.Done()
		w.makeSnapshots(sizes)
	}()
	w.makeKeyRotations(sizes)
	snapshots.Wait()
	w.makeNetworkParameters()
	w.makeGames(opts.Lazy)
	return w.makeTransactions(sizes, opts)
}

// stream returns a random stream for one part of the world.
func (w *World) stream(name string) *random.Stream {
	return random.New(random.Seed(w.Seed, name, 0))
}

// universe returns the entities identifier formats draw from.
func (w *World) universe() *walker.Universe {
	u := &walker.Universe{
		Parties:    w.Parties,
		FirstEpoch: w.FirstEpoch, LastEpoch: w.LatestEpoch,
		FirstBlock: w.GenesisHeight + 1, LastBlock: w.LatestBlock,
		Now:      w.LatestBlockTime,
		Versions: coreVersions,
	}
	for _, m := range w.Markets {
		u.Markets = append(u.Markets, m.ID)
	}
	for _, a := range w.Assets {
		u.Assets = append(u.Assets, a.ID)
	}
	for _, n := range w.Nodes {
		u.Nodes = append(u.Nodes, n.ID)
		u.CorePubKeys = append(u.CorePubKeys, n.CorePubKey)
	}
	for _, t := range w.Teams {
		u.Teams = append(u.Teams, t.ID)
	}
	return u
}

// coreVersions are the core releases the chain ran, oldest first; the chain
// upgrades at evenly spaced heights.
var coreVersions = []string{"v0.76.8", "v0.77.4", "v0.78.2"}

func (w *World) makeEntities(s Sizes) {
	g := w.stream("entities")
	seen := map[string]bool{}
	id := func() string {
		for {
			x := g.Hex(64)
			if !seen[x] {
				seen[x] = true
				return x
			}
		}
	}
	for i := 0; i < s.Parties; i++ {
		w.Parties = append(w.Parties, id())
	}
	// Teams take disjoint groups of members from the front of the parties;
	// the rest play as individuals only.
	next := 0
	for i := 0; i < s.Teams; i++ {
		t := Team{ID: id()}
		size := int(g.Between(3, 12))
		for j := 0; j < size && next < len(w.Parties)/2; j++ {
			t.Members = append(t.Members, w.Parties[next])
			next++
		}
		w.Teams = append(w.Teams, t)
	}
	for i := 0; i < s.Nodes; i++ {
		w.Nodes = append(w.Nodes, Node{ID: id(), CorePubKey: id(), EthAddress: "0x" + g.Hex(40)})
	}
	symbols := []string{"USDT", "USDC", "ETH", "BTC", "SOL", "DAI", "EUR", "VEGA", "LINK", "ARB"}
	for i := 0; i < s.Assets; i++ {
		dec := 18
		if i < 2 {
			dec = 6
		}
		w.Assets = append(w.Assets, Asset{ID: id(), Symbol: symbols[i%len(symbols)], Decimals: dec})
	}
	for i := 0; i < s.Markets; i++ {
		base, quote := random.Pick(g, walker.BaseSymbols), w.Assets[i%2]
		code := base + quote.Symbol + random.Pick(g, []string{".PERP", ".FUT", ""})
		w.Markets = append(w.Markets, Market{ID: id(), Code: code, Asset: quote.ID})
	}
}
