package world

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/generators/internal/walker"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/schemas"
)

// The worlds harness serve and harness generate make, by name.
const (
	// DefaultWorld is the world of Generate, from a seed and a scale.
	DefaultWorld = "default"
	// EdgeWorld is the world of GenerateEdges: every boundary the schemas
	// allow, in a small consistent world.
	EdgeWorld = "edges"
)

// WorldNames lists the worlds' names, the default first.
var WorldNames = []string{DefaultWorld, EdgeWorld}

// The edge world's chain: its blocks and its epochs each cross 2^53, so that
// a block height, a cursor and an epoch above 2^53 are served and a client
// that reads them as JavaScript numbers (exact only up to 2^53) is caught;
// 9007199254740993 (2^53 + 1) is a block with a transaction and an epoch
// with games.
const (
	edgeGenesisHeight = 1<<53 - 1000
	edgeFirstEpoch    = 1<<53 - 19
	// EdgeSeed is the seed of the edge world's random choices (identifiers,
	// typical values).
	EdgeSeed = 1
	// edgeMaxRecords bounds each listing's run of edge records; a run
	// ends when its steer wants no more edges, after some 80 records for
	// transactions.
	edgeMaxRecords = 1000
)

// edgeSizes are the edge world's typical part: a world like Generate's,
// small, which the edge records join.
var edgeSizes = Sizes{
	Blocks: 2000, Epochs: 40, Transactions: 100, Snapshots: 40, KeyRotations: 40,
	Parties: 120, Teams: 6, Nodes: 8, Assets: 10, Markets: 6, GameDefinitions: 10,
}

// GenerateEdges builds the edge world: a small consistent world (parties,
// teams, nodes, assets and markets; 2,000 blocks and 40 epochs around 2^53;
// typical games, snapshots, key rotations, network parameters and
// transactions, as Generate makes them) joined by records the schema walker
// makes to hold every edge the schemas allow (edges.Class): each integer
// field at 0, above 2^53 and at its type's bounds, each enum value, each
// branch, each optional field absent and present, null, empty arrays,
// empty, long and non-ASCII strings, decimals of many digits. Every record
// is valid against the schemas. The world's Edges catalogue says where each
// edge sits and which edges a consistent world cannot hold. The world is
// always the same, byte for byte, and grows as a generated world does
// (Growth), with typical records.
func GenerateEdges() (*World, error) {
	w, err := edgeBase()
	if err != nil {
		return nil, fmt.Errorf("edge world: %w", err)
	}
	m := newEdgeMaker(w)
	if err := m.scanTypical(); err != nil {
		return nil, fmt.Errorf("edge world: %w", err)
	}
	for _, step := range []func() error{m.transactions, m.games, m.snapshots, m.rotations, m.parameters} {
		if err := step(); err != nil {
			return nil, fmt.Errorf("edge world: %w", err)
		}
	}
	cat, err := m.catalogue()
	if err != nil {
		return nil, fmt.Errorf("edge world: %w", err)
	}
	w.Edges = cat
	return w, nil
}

// edgeBase returns the edge world's typical part: its entities, its chain
// across 2^53, and typical records of every listing.
func edgeBase() (*World, error) {
	w := &World{
		Name:          EdgeWorld,
		Seed:          EdgeSeed,
		Scale:         0.01,
		Genesis:       time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC),
		GenesisHeight: edgeGenesisHeight,
		LatestBlock:   edgeGenesisHeight + uint64(edgeSizes.Blocks),
		FirstEpoch:    edgeFirstEpoch,
		LatestEpoch:   edgeFirstEpoch + uint64(edgeSizes.Epochs) - 1,
	}
	w.LatestBlockTime = w.BlockTime(w.LatestBlock)
	if err := w.populate(edgeSizes, Options{Seed: EdgeSeed, Scale: w.Scale}); err != nil {
		return nil, err
	}
	return w, nil
}

// newEdgeMaker returns a maker of w's edge records whose steer has seen the
// exemptions (it makes no record for them) and nothing else.
func newEdgeMaker(w *World) *edgeMaker {
	m := &edgeMaker{w: w, steer: walker.NewEdgeSteer(), scanner: walker.NewEdgeScanner(), maxRecords: edgeMaxRecords}
	m.exemptions = edgeExemptions(m.steer)
	for _, e := range m.exemptions {
		m.steer.Saw(e.Key)
	}
	return m
}

// edgeExemptions are the edges a consistent world cannot hold, each with
// its reason: the keys of the listings are places in the chain, and the
// names of command kinds are what the cmdTypes filter matches. steer has
// seen no edge yet.
func edgeExemptions(steer *walker.EdgeSteer) []edges.Exemption {
	keyReason := func(what string) string {
		return what + " is a place in the chain, which runs from just below 2^53 to just above it (so that values above 2^53 are served): a chain at 0 could hold nothing before, one at the maximum could not grow"
	}
	candidates := []edges.Exemption{
		{Key: edges.Key{Class: edges.Zero, Field: "Transaction.block"}, Reason: keyReason("a transaction's block")},
		{Key: edges.Key{Class: edges.Uint64Max, Field: "Transaction.block"}, Reason: keyReason("a transaction's block")},
		{Key: edges.Key{Class: edges.Maximum, Field: "Transaction.index"}, Reason: "a transaction's index is its place in its block, from 0: a block of 2^31 transactions is out of reach"},
		{Key: edges.Key{Class: edges.ManyDigits, Field: "Transaction.cursor"}, Reason: "a transaction's cursor is its block and its index joined by a dot"},
		{Key: edges.Key{Class: edges.LongString, Field: "Transaction.type"}, Reason: "a transaction's type names its command kind, which cmdTypes and excludeCmdTypes match"},
		{Key: edges.Key{Class: edges.NonASCII, Field: "Transaction.type"}, Reason: "a transaction's type names its command kind, which cmdTypes and excludeCmdTypes match"},
		{Key: edges.Key{Class: edges.Escapes, Field: "Transaction.type"}, Reason: "a transaction's type names its command kind, which cmdTypes and excludeCmdTypes match"},
		{Key: edges.Key{Class: edges.Zero, Field: "Game.epoch"}, Reason: keyReason("a game's epoch")},
		{Key: edges.Key{Class: edges.Uint64Max, Field: "Game.epoch"}, Reason: keyReason("a game's epoch")},
		{Key: edges.Key{Class: edges.Zero, Field: "CoreSnapshot.blockHeight"}, Reason: keyReason("a snapshot's block height")},
		{Key: edges.Key{Class: edges.Uint64Max, Field: "CoreSnapshot.blockHeight"}, Reason: keyReason("a snapshot's block height")},
		{Key: edges.Key{Class: edges.Zero, Field: "EthereumKeyRotation.blockHeight"}, Reason: keyReason("a key rotation's block height")},
		{Key: edges.Key{Class: edges.Uint64Max, Field: "EthereumKeyRotation.blockHeight"}, Reason: keyReason("a key rotation's block height")},
	}
	// Only the edges the schemas allow: an exemption a schema change made
	// moot is dropped.
	allowed := map[edges.Key]bool{}
	for _, def := range edgeDefinitions {
		for _, k := range steer.Missing(schemas.MustLookup(def)) {
			allowed[k] = true
		}
	}
	var out []edges.Exemption
	for _, e := range candidates {
		if allowed[e.Key] {
			out = append(out, e)
		}
	}
	return out
}

// edgeDefinitions are the record definitions of the listings, in
// records.Listings order.
var edgeDefinitions = []string{"Game", "CoreSnapshot", "EthereumKeyRotation", "NetworkParameter", "Transaction"}

// listingPaths are the listings' paths, in records.Listings order.
var listingPaths = []string{
	"/api/v2/games", "/api/v2/snapshots", "/api/v2/core/keys/ethereum/rotations",
	"/api/v2/network/parameters", "/transactions",
}

// edgeMaker adds to a world the records that hold the edges its typical
// records do not.
type edgeMaker struct {
	w          *World
	steer      *walker.EdgeSteer
	scanner    *walker.EdgeScanner
	exemptions []edges.Exemption
	maxRecords int // bounds each run
}

// scanTypical records the edges the world's typical records hold.
func (m *edgeMaker) scanTypical() error {
	saw := func(k edges.Key, _ string) { m.steer.Saw(k) }
	for _, l := range m.listingRows() {
		n := schemas.MustLookup(l.def)
		for _, rec := range l.rows {
			if err := m.scanner.Scan(n, records.RecordJSON(rec), saw); err != nil {
				return err
			}
		}
	}
	return nil
}

// run makes records of the definition def with the steer until it wants no
// more edges of it. fix sets the record's identities (its key, the world's
// entities it names) and keeps it, returning its JSON; what that JSON holds
// is what the steer records.
func (m *edgeMaker) run(def, stream string, fix func(i int, v *walker.Value) ([]byte, error)) error {
	n := schemas.MustLookup(def)
	c := walker.New(random.New(0), m.w.plan.u)
	c.SteerEdges(m.steer)
	saw := func(k edges.Key, _ string) { m.steer.Saw(k) }
	for i := 0; len(m.steer.Wanted(n)) > 0; i++ {
		if i == m.maxRecords {
			return fmt.Errorf("%s: %d records hold not every edge; still wanted: %v", def, i, m.steer.Wanted(n))
		}
		c.Start(random.Seed(m.w.Seed, stream, uint64(i)), m.w.LatestBlockTime)
		v, err := c.Object(n, "")
		if err != nil {
			return fmt.Errorf("%s record %d: %w", def, i, err)
		}
		// The record is read back into a value of its own: the walker's
		// memory is reused by the next record.
		own, err := walker.ParseValue(v.AppendJSON(nil))
		if err != nil {
			return err
		}
		doc, err := fix(i, &own)
		if err != nil {
			return fmt.Errorf("%s record %d: %w", def, i, err)
		}
		if err := m.scanner.Scan(n, doc, saw); err != nil {
			return err
		}
		m.steer.Finish()
	}
	return nil
}

// transactions adds the edge transactions: each in a block no typical
// transaction uses, at index 0; the first in block 2^53+1 when that block
// is free.
func (m *edgeMaker) transactions() error {
	w := m.w
	used := map[uint64]bool{}
	for _, t := range w.Transactions {
		used[t.Block] = true
	}
	// Block 2^53+1 first, then the free blocks spread over the chain: a
	// stride coprime to their count visits each once.
	var first, rest []uint64
	const target = 1<<53 + 1
	if !used[target] {
		first = append(first, target)
	}
	for h := w.GenesisHeight + 1; h <= w.LatestBlock; h++ {
		if !used[h] && h != target {
			rest = append(rest, h)
		}
	}
	stride := coprimeStride(len(rest))
	var added []records.Transaction
	err := m.run("Transaction", "edge-tx", func(i int, v *walker.Value) ([]byte, error) {
		var block uint64
		switch {
		case i < len(first):
			block = first[i]
		case i < len(first)+len(rest):
			block = rest[((i-len(first))*stride)%len(rest)]
		default:
			return nil, fmt.Errorf("no free block left for edge transaction %d", i)
		}
		kind := commandKindOf(v)
		cmd, _ := v.Get("command")
		v.Set("block", walker.Uint64Text(block))
		v.Set("index", walker.Number(0))
		v.Set("cursor", walker.Text(strconv.FormatUint(block, 10)+".0"))
		v.Set("createdAt", walker.Text(w.BlockTime(block).Format(time.RFC3339)))
		v.Set("type", walker.Text(commandTypeName(kind)))
		if kind == "announceNode" {
			body, _ := cmd.Get("announceNode")
			if pk, ok := body.Get("corePubKey"); ok {
				v.Set("submitter", walker.Text(pk.Text()))
			}
		}
		doc := v.AppendJSON(nil)
		t, err := records.ParseTransaction(doc)
		if err != nil {
			return nil, err
		}
		added = append(added, t)
		return doc, nil
	})
	if err != nil {
		return err
	}
	w.Transactions = append(w.Transactions, added...)
	sort.Slice(w.Transactions, func(i, j int) bool { return w.Transactions[i].Key().Less(w.Transactions[j].Key()) })
	return nil
}

// coprimeStride returns a stride that visits each of n places once
// (i*stride mod n): a prime that does not divide n, about a fifth of the
// edge world's chain, so that successive records land far apart; 1 when
// each of those primes divides n.
func coprimeStride(n int) int {
	for _, p := range []int{373, 379, 383, 389} {
		if n%p != 0 {
			return p
		}
	}
	return 1
}

// commandKindOf returns the kind a transaction's command holds: its one
// property beside nonce and blockHeight.
func commandKindOf(tx *walker.Value) string {
	cmd, ok := tx.Get("command")
	if !ok {
		return ""
	}
	for i := range cmd.Len() {
		if name, _ := cmd.Field(i); name != "nonce" && name != "blockHeight" {
			return name
		}
	}
	return ""
}

// commandTypeName returns the type a transaction of a command kind has:
// the block explorer's name for the kinds the generators make
// (CommandTypes); for the kinds whose shape the spec does not give, the
// field's name in words ("withdrawSubmission": "Withdraw Submission").
func commandTypeName(kind string) string {
	if t := CommandTypes[kind]; t != "" {
		return t
	}
	var b strings.Builder
	for i, r := range kind {
		switch {
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		case unicode.IsUpper(r):
			b.WriteByte(' ')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// games adds the edge games, one-off games each in its own epoch, spread
// over the chain, each played by the world's parties or its teams and
// their members.
func (m *edgeMaker) games() error {
	w := m.w
	g := w.stream("edge-games")
	var added []records.Game
	err := m.run("Game", "edge-game", func(i int, v *walker.Value) ([]byte, error) {
		var game records.Game
		if err := json.Unmarshal(v.AppendJSON(nil), &game); err != nil {
			return nil, err
		}
		game.Epoch = w.edgeGameEpoch(i)
		game.ID = g.Hex(64)
		game.RewardAssetID = w.Assets[g.Intn(len(w.Assets))].ID
		if game.Individual != nil {
			entries := game.Individual.Individual
			for k, p := range distinct(g, w.Parties, len(entries)) {
				entries[k].Individual = p
			}
		}
		if game.Team != nil {
			teams := distinct(g, w.Teams, len(game.Team.Team))
			game.Team.Team = game.Team.Team[:len(teams)]
			for k, t := range teams {
				entry := &game.Team.Team[k]
				entry.Team.TeamID = t.ID
				members := distinct(g, t.Members, len(entry.Team.MembersParticipating))
				entry.Team.MembersParticipating = entry.Team.MembersParticipating[:len(members)]
				for j, p := range members {
					entry.Team.MembersParticipating[j].Individual = p
				}
			}
		}
		added = append(added, game)
		return records.RecordJSON(&game), nil
	})
	if err != nil {
		return err
	}
	w.Games = append(w.Games, added...)
	sort.SliceStable(w.Games, func(i, j int) bool {
		a, b := w.Games[i], w.Games[j]
		if a.Epoch != b.Epoch {
			return a.Epoch < b.Epoch
		}
		return a.ID < b.ID
	})
	return nil
}

// edgeGameEpoch returns the epoch of the i-th edge game: seven epochs
// after the one before, round the world's epochs.
func (w *World) edgeGameEpoch(i int) uint64 {
	epochs := w.LatestEpoch - w.FirstEpoch + 1
	return w.FirstEpoch + (3+7*uint64(i))%epochs
}

// snapshots adds the snapshots the typical ones leave wanted (none, while
// the snapshot's only edges are its booleans), each halfway between two
// typical ones.
func (m *edgeMaker) snapshots() error {
	w := m.w
	interval := w.blocks() / uint64(len(w.Snapshots))
	var added []records.CoreSnapshot
	err := m.run("CoreSnapshot", "edge-snapshot", func(i int, v *walker.Value) ([]byte, error) {
		var s records.CoreSnapshot
		if err := json.Unmarshal(v.AppendJSON(nil), &s); err != nil {
			return nil, err
		}
		s.BlockHeight = w.GenesisHeight + interval*uint64(i%len(w.Snapshots)) + interval/2
		added = append(added, s)
		return records.RecordJSON(&s), nil
	})
	if err != nil {
		return err
	}
	w.Snapshots = append(w.Snapshots, added...)
	sort.Slice(w.Snapshots, func(i, j int) bool { return w.Snapshots[i].BlockHeight < w.Snapshots[j].BlockHeight })
	return nil
}

// rotations adds the key rotations the typical ones leave wanted (none,
// while a rotation has no edge of its own), each in a block after every
// typical rotation, chained to its node's address.
func (m *edgeMaker) rotations() error {
	w := m.w
	next := w.GenesisHeight + 1
	if n := len(w.KeyRotations); n > 0 {
		next = w.KeyRotations[n-1].BlockHeight + 1
	}
	return m.run("EthereumKeyRotation", "edge-rotation", func(i int, v *walker.Value) ([]byte, error) {
		var r records.EthereumKeyRotation
		if err := json.Unmarshal(v.AppendJSON(nil), &r); err != nil {
			return nil, err
		}
		if next > w.LatestBlock {
			return nil, fmt.Errorf("no block left for edge key rotation %d", i)
		}
		node := &w.Nodes[i%len(w.Nodes)]
		r.BlockHeight, r.NodeID, r.OldAddress = next, node.ID, node.EthAddress
		node.EthAddress = r.NewAddress
		next++
		w.KeyRotations = append(w.KeyRotations, r)
		return records.RecordJSON(&r), nil
	})
}

// parameters gives the edge values the typical parameters leave wanted to
// the first keys, in key order: the world keeps the network's keys.
func (m *edgeMaker) parameters() error {
	w := m.w
	return m.run("NetworkParameter", "edge-parameter", func(i int, v *walker.Value) ([]byte, error) {
		if i >= len(w.NetworkParameters) {
			return nil, fmt.Errorf("no parameter left for edge value %d", i)
		}
		value, ok := v.Get("value")
		if !ok {
			return nil, fmt.Errorf("edge parameter %d has no value", i)
		}
		p := &w.NetworkParameters[i]
		p.Value = value.Text()
		return records.RecordJSON(p), nil
	})
}

// listingRows are a listing's records, in the world's order (oldest
// first), with the definition they are records of.
type listingRows struct {
	listing, def, path string
	rows               []any
}

func (m *edgeMaker) listingRows() []listingRows {
	w := m.w
	out := make([]listingRows, len(records.Listings))
	for i, l := range records.Listings {
		out[i] = listingRows{listing: l, def: edgeDefinitions[i], path: listingPaths[i]}
	}
	for i := range w.Games {
		out[0].rows = append(out[0].rows, &w.Games[i])
	}
	for i := range w.Snapshots {
		out[1].rows = append(out[1].rows, &w.Snapshots[i])
	}
	for i := range w.KeyRotations {
		out[2].rows = append(out[2].rows, &w.KeyRotations[i])
	}
	for i := range w.NetworkParameters {
		out[3].rows = append(out[3].rows, &w.NetworkParameters[i])
	}
	for i := range w.Transactions {
		out[4].rows = append(out[4].rows, &w.Transactions[i])
	}
	return out
}

// labelPrefixes name a listing's rows in tables.
var labelPrefixes = map[string]string{
	records.ListingGames: "g", records.ListingSnapshots: "s", records.ListingKeyRotations: "r",
	records.ListingNetworkParameters: "p", records.ListingTransactions: "tx",
}

// catalogue scans every record of the world for the edges it holds.
func (m *edgeMaker) catalogue() (*edges.Catalogue, error) {
	var rows []edges.Row
	var list []edges.Edge
	for _, l := range m.listingRows() {
		n := schemas.MustLookup(l.def)
		for i, rec := range l.rows {
			cursor, query := rowQuery(l.path, l.rows, i)
			rows = append(rows, edges.Row{Listing: l.listing, Cursor: cursor,
				Label: labelPrefixes[l.listing] + "-" + strconv.Itoa(i+1), Query: query})
			row := len(rows) - 1
			err := m.scanner.Scan(n, records.RecordJSON(rec), func(k edges.Key, path string) {
				list = append(list, edges.Edge{Key: k, Row: row, Path: path})
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return edges.NewCatalogue(rows, list, m.exemptions)
}

// rowQuery returns the cursor of row i of a listing and the path and query
// of a request whose answer holds that row and no other.
func rowQuery(path string, rows []any, i int) (cursor, query string) {
	esc := url.QueryEscape
	switch r := rows[i].(type) {
	case *records.Game:
		e := strconv.FormatUint(r.Epoch, 10)
		return r.Cursor(), path + "?gameId=" + r.ID + "&epochFrom=" + e + "&epochTo=" + e
	case *records.CoreSnapshot:
		// Newest first: the first row after the key just above.
		after := records.SnapshotKey{BlockHeight: r.BlockHeight + 1}.Cursor()
		return r.Cursor(), path + "?pagination.first=1&pagination.after=" + esc(after)
	case *records.EthereumKeyRotation:
		after := records.RotationKey{BlockHeight: r.BlockHeight + 1, NodeID: r.NodeID}.Cursor()
		return r.Cursor(), path + "?nodeId=" + r.NodeID + "&pagination.first=1&pagination.after=" + esc(after)
	case *records.NetworkParameter:
		// Key order: the first row after the key before.
		if i == 0 {
			return r.Cursor(), path + "?pagination.first=1"
		}
		prev := rows[i-1].(*records.NetworkParameter)
		return r.Cursor(), path + "?pagination.first=1&pagination.after=" + esc(prev.Cursor())
	case *records.Transaction:
		// Newest first: the last row before the place just after it.
		before := strconv.FormatUint(r.Block, 10) + "." + strconv.FormatUint(uint64(r.Index)+1, 10)
		return r.Cursor(), path + "?last=1&before=" + before
	}
	return "", ""
}
