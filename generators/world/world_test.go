package world

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/generators/internal/netparams"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/schemas"
)

// defaultWorld is generated once for the tests that only read it.
var defaultWorld = sync.OnceValues(func() (*World, error) { return Generate(Options{Seed: 1}) })

func mustDefaultWorld(t testing.TB) *World {
	t.Helper()
	w, err := defaultWorld()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// validateWorld checks every record of every kind against its schema.
func validateWorld(t *testing.T, w *World) {
	t.Helper()
	check := func(schema string, docs func(yield func(string, []byte))) {
		v := schemas.MustLoad(schema)
		bad := 0
		docs(func(where string, doc []byte) {
			if err := v.Validate(doc); err != nil {
				bad++
				if bad <= 5 {
					t.Errorf("%s %s: %v\n%s", schema, where, err, doc)
				}
			}
		})
		if bad > 5 {
			t.Errorf("%s: %d invalid records in all", schema, bad)
		}
	}
	check("Game", func(yield func(string, []byte)) {
		for i := range w.Games {
			yield(fmt.Sprint(i), records.RecordJSON(&w.Games[i]))
		}
	})
	check("CoreSnapshot", func(yield func(string, []byte)) {
		for i := range w.Snapshots {
			yield(fmt.Sprint(i), records.RecordJSON(&w.Snapshots[i]))
		}
	})
	check("EthereumKeyRotation", func(yield func(string, []byte)) {
		for i := range w.KeyRotations {
			yield(fmt.Sprint(i), records.RecordJSON(&w.KeyRotations[i]))
		}
	})
	check("NetworkParameter", func(yield func(string, []byte)) {
		for i := range w.NetworkParameters {
			yield(fmt.Sprint(i), records.RecordJSON(&w.NetworkParameters[i]))
		}
	})
	check("Transaction", func(yield func(string, []byte)) {
		for i := range w.Transactions {
			yield(w.Transactions[i].Cursor(), w.Transactions[i].JSON)
		}
	})
}

func TestEveryRecordValidatesForManySeeds(t *testing.T) {
	t.Run("default world", func(t *testing.T) {
		if raceShort() {
			t.Skip("-race -short: validating is not the generator's concurrent code; make test validates the default world without the detector")
		}
		validateWorld(t, mustDefaultWorld(t))
	})
	last := int64(13)
	if testing.Short() {
		last = 3 // make test runs every seed without the race detector
	}
	for seed := int64(2); seed <= last; seed++ {
		t.Run(fmt.Sprintf("seed %d scale 0.02", seed), func(t *testing.T) {
			w, err := Generate(Options{Seed: seed, Scale: 0.02})
			if err != nil {
				t.Fatal(err)
			}
			validateWorld(t, w)
		})
	}
}

// worldDigest hashes every record of every listing, in order.
func worldDigest(t *testing.T, w *World) string {
	t.Helper()
	h := sha256.New()
	for _, listing := range records.Listings[:4] {
		for _, r := range pagedRows(t, w, listing) {
			h.Write(r)
			h.Write([]byte{'\n'})
		}
	}
	err := w.EachTransaction(context.Background(), true, func(tx *records.Transaction) error {
		h.Write(tx.JSON)
		h.Write([]byte{'\n'})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// pagedRows returns the rows of a paged listing in the world's order, each
// its record's JSON and its cursor.
func pagedRows(t *testing.T, w *World, listing string) [][]byte {
	t.Helper()
	var out [][]byte
	add := func(rec any, cursor string) {
		out = append(out, append(append(records.RecordJSON(rec), ' '), cursor...))
	}
	switch listing {
	case records.ListingGames:
		err := w.EachGame(context.Background(), func(g *records.Game) error { add(g, g.Cursor()); return nil })
		if err != nil {
			t.Fatal(err)
		}
	case records.ListingSnapshots:
		for i := range w.Snapshots {
			add(&w.Snapshots[i], w.Snapshots[i].Cursor())
		}
	case records.ListingKeyRotations:
		for i := range w.KeyRotations {
			add(&w.KeyRotations[i], w.KeyRotations[i].Cursor())
		}
	case records.ListingNetworkParameters:
		for i := range w.NetworkParameters {
			add(&w.NetworkParameters[i], w.NetworkParameters[i].Cursor())
		}
	}
	return out
}

func TestSameSeedSameWorldDifferentSeedDifferentWorld(t *testing.T) {
	// The default world (scale 1); under -race -short 2,000 transactions:
	// two batches of seven workers, four of two, under the detector.
	var scale float64
	a := (*World)(nil)
	if raceShort() {
		scale = 0.2
		var err error
		if a, err = Generate(Options{Seed: 1, Scale: scale}); err != nil {
			t.Fatal(err)
		}
	} else {
		a = mustDefaultWorld(t)
	}
	b, err := Generate(Options{Seed: 1, Scale: scale, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Generate(Options{Seed: 1, Scale: scale, Workers: 7})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Generate(Options{Seed: 2, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	da, db, dc, dd := worldDigest(t, a), worldDigest(t, b), worldDigest(t, c), worldDigest(t, d)
	if da != db || da != dc {
		t.Errorf("seed 1 gave different worlds: %s (default workers), %s (1 worker), %s (7 workers)", da, db, dc)
	}
	if da == dd {
		t.Errorf("seeds 1 and 2 gave the same world %s", da)
	}
	firstRow := func(w *World, listing string) []byte {
		if rows := pagedRows(t, w, listing); len(rows) > 0 {
			return rows[0]
		}
		return nil
	}
	for _, listing := range []string{records.ListingGames, records.ListingSnapshots, records.ListingKeyRotations} {
		if bytes.Equal(firstRow(a, listing), firstRow(d, listing)) {
			t.Errorf("%s: seeds 1 and 2 have the same first record", listing)
		}
	}
}

func TestKeyRotationsChainPerNode(t *testing.T) { checkRotationChains(t, mustDefaultWorld(t)) }

// checkRotationChains checks each node's rotations chain: a rotation's old
// address is the previous one's new address, and the node ends on its last.
func checkRotationChains(t *testing.T, w *World) {
	t.Helper()
	last := map[string]records.EthereumKeyRotation{}
	for i, r := range w.KeyRotations {
		if r.OldAddress == r.NewAddress {
			t.Errorf("rotation %d of node %s keeps address %s", i, r.NodeID, r.NewAddress)
		}
		if prev, ok := last[r.NodeID]; ok {
			if r.OldAddress != prev.NewAddress {
				t.Errorf("rotation %d of node %s: oldAddress %s, want previous newAddress %s", i, r.NodeID, r.OldAddress, prev.NewAddress)
			}
			if r.BlockHeight <= prev.BlockHeight {
				t.Errorf("rotation %d of node %s at height %d, not after previous %d", i, r.NodeID, r.BlockHeight, prev.BlockHeight)
			}
		}
		last[r.NodeID] = r
	}
	nodes := map[string]Node{}
	for _, n := range w.Nodes {
		nodes[n.ID] = n
	}
	for id, r := range last {
		n, ok := nodes[id]
		if !ok {
			t.Errorf("rotation for unknown node %s", id)
			continue
		}
		if n.EthAddress != r.NewAddress {
			t.Errorf("node %s ends on %s, its last rotation set %s", id, n.EthAddress, r.NewAddress)
		}
	}
	if len(last) < 2 {
		t.Errorf("rotations touch %d nodes, want several", len(last))
	}
}

func TestGamesUseTheWorldsTeamsAndParties(t *testing.T) {
	w := mustDefaultWorld(t)
	parties := map[string]bool{}
	for _, p := range w.Parties {
		parties[p] = true
	}
	members := map[string]map[string]bool{}
	for _, tm := range w.Teams {
		members[tm.ID] = map[string]bool{}
		for _, m := range tm.Members {
			members[tm.ID][m] = true
		}
	}
	assets := map[string]bool{}
	for _, a := range w.Assets {
		assets[a.ID] = true
	}
	scopes := map[string]int{}
	for _, g := range w.Games {
		scopes[g.Scope()]++
		if (g.Individual == nil) == (g.Team == nil) {
			t.Fatalf("game %s epoch %d: want exactly one of individual and team", g.ID, g.Epoch)
		}
		if !assets[g.RewardAssetID] {
			t.Errorf("game %s: reward asset %s is not a world asset", g.ID, g.RewardAssetID)
		}
		if g.Epoch < w.FirstEpoch || g.Epoch > w.LatestEpoch {
			t.Errorf("game %s: epoch %d outside [%d, %d]", g.ID, g.Epoch, w.FirstEpoch, w.LatestEpoch)
		}
		var count uint64
		if g.Individual != nil {
			for _, e := range g.Individual.Individual {
				if !parties[e.Individual] {
					t.Errorf("game %s: individual %s is not a world party", g.ID, e.Individual)
				}
				count++
			}
		} else {
			for _, te := range g.Team.Team {
				team, ok := members[te.Team.TeamID]
				if !ok {
					t.Errorf("game %s: team %s is not a world team", g.ID, te.Team.TeamID)
					continue
				}
				for _, m := range te.Team.MembersParticipating {
					if !team[m.Individual] {
						t.Errorf("game %s: %s plays for team %s but is not a member", g.ID, m.Individual, te.Team.TeamID)
					}
					count++
				}
			}
		}
		if g.Participants != count {
			t.Errorf("game %s epoch %d: participants %d, but %d took part", g.ID, g.Epoch, g.Participants, count)
		}
	}
	if scopes["ENTITY_SCOPE_INDIVIDUALS"] == 0 || scopes["ENTITY_SCOPE_TEAMS"] == 0 {
		t.Errorf("games by scope %v: want both scopes", scopes)
	}
}

func TestGameRanksAndRewardTotalsAreConsistent(t *testing.T) {
	checkRewardTotals(t, mustDefaultWorld(t))
}

// checkRewardTotals checks ranks and that each party's running total in a
// game is its previous total plus this epoch's reward.
func checkRewardTotals(t *testing.T, w *World) {
	t.Helper()
	total := map[string]*big.Int{} // game ID + party -> total so far
	atoi := func(s string) *big.Int {
		x, ok := new(big.Int).SetString(s, 10)
		if !ok {
			t.Fatalf("amount %q is not an integer", s)
		}
		return x
	}
	checkEntry := func(g *records.Game, e records.IndividualEntry) {
		key := g.ID + e.Individual
		prev, ok := total[key]
		if !ok {
			prev = new(big.Int)
		}
		want := new(big.Int).Add(prev, atoi(e.RewardEarned))
		if atoi(e.TotalRewardsEarned).Cmp(want) != 0 {
			t.Errorf("game %s epoch %d party %s: total %s, want previous total + reward = %s", g.ID, g.Epoch, e.Individual, e.TotalRewardsEarned, want)
		}
		total[key] = want
	}
	for i := range w.Games {
		g := &w.Games[i]
		var entries []records.IndividualEntry
		if g.Individual != nil {
			entries = g.Individual.Individual
		} else {
			for r, te := range g.Team.Team {
				if te.Rank != uint64(r+1) {
					t.Errorf("game %s: team rank %d at position %d", g.ID, te.Rank, r)
				}
				sum := new(big.Int)
				for _, m := range te.Team.MembersParticipating {
					sum.Add(sum, atoi(m.RewardEarned))
				}
				if atoi(te.RewardEarned).Cmp(sum) != 0 {
					t.Errorf("game %s team %s: reward %s, members earned %s", g.ID, te.Team.TeamID, te.RewardEarned, sum)
				}
				entries = append(entries, te.Team.MembersParticipating...)
			}
		}
		for _, e := range entries {
			checkEntry(g, e)
		}
		if g.Individual != nil {
			for r, e := range g.Individual.Individual {
				if e.Rank != uint64(r+1) {
					t.Errorf("game %s: rank %d at position %d", g.ID, e.Rank, r)
				}
			}
		}
	}
}

func TestKeysAreUniqueAndListingsOrdered(t *testing.T) { checkKeysAndOrder(t, mustDefaultWorld(t)) }

// checkKeysAndOrder checks every listing's keys are unique and in order, and
// transactions are numbered from 0 in each block up to the latest block.
func checkKeysAndOrder(t *testing.T, w *World) {
	t.Helper()
	seen := map[string]bool{}
	unique := func(kind, key string) {
		if seen[kind+key] {
			t.Errorf("%s key %s appears twice", kind, key)
		}
		seen[kind+key] = true
	}
	for i, g := range w.Games {
		unique("game", g.Cursor())
		if i > 0 && gameBefore(records.GameKey{Epoch: g.Epoch, ID: g.ID}, records.GameKey{Epoch: w.Games[i-1].Epoch, ID: w.Games[i-1].ID}) {
			t.Errorf("games out of order at %d", i)
		}
	}
	for i, s := range w.Snapshots {
		unique("snapshot", s.Cursor())
		if i > 0 && s.BlockHeight <= w.Snapshots[i-1].BlockHeight {
			t.Errorf("snapshot %d at height %d, not above %d", i, s.BlockHeight, w.Snapshots[i-1].BlockHeight)
		}
	}
	for _, r := range w.KeyRotations {
		unique("rotation", r.Cursor())
	}
	for i, p := range w.NetworkParameters {
		unique("parameter", p.Key)
		if i > 0 && p.Key <= w.NetworkParameters[i-1].Key {
			t.Errorf("parameters out of order at %q", p.Key)
		}
	}
	if len(w.NetworkParameters) != len(netparams.Table()) {
		t.Errorf("%d parameters, want the %d real keys", len(w.NetworkParameters), len(netparams.Table()))
	}
	for i, tx := range w.Transactions {
		unique("tx", tx.Cursor())
		if i > 0 {
			prev := w.Transactions[i-1]
			switch {
			case !prev.Key().Less(tx.Key()):
				t.Fatalf("transactions out of order: %s then %s", prev.Cursor(), tx.Cursor())
			case prev.Block == tx.Block && tx.Index != prev.Index+1:
				t.Errorf("block %d: index %d follows %d", tx.Block, tx.Index, prev.Index)
			case prev.Block != tx.Block && tx.Index != 0:
				t.Errorf("block %d starts at index %d", tx.Block, tx.Index)
			}
		}
		if tx.Block > w.LatestBlock {
			t.Errorf("transaction %s beyond the latest block %d", tx.Cursor(), w.LatestBlock)
		}
	}
}

// gameBefore orders games as a world holds them: epoch, then ID, ascending.
func gameBefore(k, o records.GameKey) bool {
	if k.Epoch != o.Epoch {
		return k.Epoch < o.Epoch
	}
	return k.ID < o.ID
}

func TestSnapshotsMarkProtocolUpgrades(t *testing.T) {
	w := mustDefaultWorld(t)
	upgrades := 0
	for i, s := range w.Snapshots {
		if i == 0 {
			continue
		}
		changed := s.CoreVersion != w.Snapshots[i-1].CoreVersion
		if changed != s.ProtocolUpgradeBlock {
			t.Errorf("snapshot at %d: version %s after %s, protocolUpgradeBlock %v", s.BlockHeight, s.CoreVersion, w.Snapshots[i-1].CoreVersion, s.ProtocolUpgradeBlock)
		}
		if s.ProtocolUpgradeBlock {
			upgrades++
		}
	}
	if upgrades == 0 {
		t.Error("no snapshot is a protocol upgrade block")
	}
}

func TestTransactionsAreConsistent(t *testing.T) {
	w := mustDefaultWorld(t)
	parties := map[string]bool{}
	for _, p := range w.Parties {
		parties[p] = true
	}
	nodeKeys := map[string]bool{}
	for _, n := range w.Nodes {
		nodeKeys[n.CorePubKey] = true
	}
	types := map[string]string{}
	for k, v := range CommandTypes {
		types[v] = k
	}
	perBlock := map[uint64]int{}
	failed, withReceivers := 0, 0
	for _, tx := range w.Transactions {
		var rec struct {
			Block     string                     `json:"block"`
			Index     uint32                     `json:"index"`
			Type      string                     `json:"type"`
			Submitter string                     `json:"submitter"`
			Code      int32                      `json:"code"`
			Cursor    string                     `json:"cursor"`
			CreatedAt string                     `json:"createdAt"`
			Command   map[string]json.RawMessage `json:"command"`
		}
		if err := json.Unmarshal(tx.JSON, &rec); err != nil {
			t.Fatal(err)
		}
		where := tx.Cursor()
		if rec.Cursor != where || rec.Block != fmt.Sprint(tx.Block) || rec.Index != tx.Index {
			t.Errorf("%s: record says block %s index %d cursor %s", where, rec.Block, rec.Index, rec.Cursor)
		}
		kinds := 0
		for k := range rec.Command {
			if k == "nonce" || k == "blockHeight" {
				continue
			}
			kinds++
			if types[rec.Type] != k {
				t.Errorf("%s: type %q but command kind %s", where, rec.Type, k)
			}
		}
		if kinds != 1 {
			t.Errorf("%s: command has %d kinds", where, kinds)
		}
		if rec.CreatedAt != w.BlockTime(tx.Block).Format("2006-01-02T15:04:05Z") {
			t.Errorf("%s: createdAt %s, block time %s", where, rec.CreatedAt, w.BlockTime(tx.Block))
		}
		if rec.Type == "Register New Node" {
			if !nodeKeys[rec.Submitter] {
				t.Errorf("%s: node announced by %s, not a node key", where, rec.Submitter)
			}
		} else if !parties[rec.Submitter] {
			t.Errorf("%s: submitter %s is not a world party", where, rec.Submitter)
		}
		for _, r := range tx.Receivers {
			if !parties[r] {
				t.Errorf("%s: receiver %s is not a world party", where, r)
			}
		}
		if len(tx.Receivers) > 0 {
			withReceivers++
		}
		if rec.Code != 0 {
			failed++
		}
		perBlock[tx.Block]++
	}
	if failed == 0 || failed > len(w.Transactions)/10 {
		t.Errorf("%d of %d transactions failed, want a few", failed, len(w.Transactions))
	}
	if withReceivers == 0 {
		t.Error("no transaction names a receiver")
	}
	multi := 0
	for _, n := range perBlock {
		if n > 1 {
			multi++
		}
	}
	if multi < len(perBlock)/2 {
		t.Errorf("only %d of %d blocks hold several transactions", multi, len(perBlock))
	}
}

// coverageOf walks decoded JSON with its schema and records every enum value
// and oneof branch present. It is independent of the generator's own
// coverage tracking, so it checks it.
func coverageOf(n *schemas.Node, v any, seen map[string]bool) {
	n = n.Resolve()
	switch {
	case v == nil:
	case n.NullableTarget() != nil:
		coverageOf(n.NullableTarget(), v, seen)
	case len(n.AllOf) > 0 && len(n.Types) == 0:
		coverageOf(n.AllOf[0], v, seen)
	case len(n.Enum) > 0:
		seen[n.Name+":"+fmt.Sprint(v)] = true
	default:
		switch x := v.(type) {
		case map[string]any:
			for _, b := range n.ExclusiveGroup() {
				if _, ok := x[b]; ok {
					seen[n.Name+"."+b] = true
				}
			}
			for k, child := range x {
				if ps := n.Property(k); ps != nil {
					coverageOf(ps, child, seen)
				}
			}
		case []any:
			for _, child := range x {
				coverageOf(n.Items, child, seen)
			}
		}
	}
}

func TestDefaultWorldUsesEveryEnumValueAndVariant(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every record of the default world; make test runs it without the race detector")
	}
	w := mustDefaultWorld(t)
	seen := map[string]bool{}
	txNode := schemas.MustLookup("Transaction")
	for _, tx := range w.Transactions {
		var v any
		if err := json.Unmarshal(tx.JSON, &v); err != nil {
			t.Fatal(err)
		}
		coverageOf(txNode, v, seen)
	}
	gameNode := schemas.MustLookup("Game")
	for i := range w.Games {
		var v any
		json.Unmarshal(records.RecordJSON(&w.Games[i]), &v)
		coverageOf(gameNode, v, seen)
	}
	var missing []string
	for _, name := range schemas.Names() {
		n := schemas.MustLookup(name)
		if len(n.Enum) > 0 && name != "TxVersion" {
			for _, e := range n.Enum {
				// MarginMode's zero value is "never valid", and the schema
				// forbids it where MarginMode is used.
				if name == "MarginMode" && e == "MODE_UNSPECIFIED" {
					continue
				}
				if !seen[name+":"+fmt.Sprint(e)] {
					missing = append(missing, name+":"+fmt.Sprint(e))
				}
			}
		}
	}
	for _, group := range []string{"Command", "ProposalChange", "InstrumentConfiguration", "SpotInstrumentConfiguration",
		"UpdateInstrumentConfiguration", "DataSourceDefinition", "ExternalDataSource", "InternalDataSource", "Signer",
		"AssetDetails", "NewTransferConfiguration", "StopOrderSetup", "NewMarketConfiguration", "Game"} {
		n := schemas.MustLookup(group)
		for _, b := range n.ExclusiveGroup() {
			if n.Property(b).IsOpaque() {
				continue
			}
			if !seen[group+"."+b] {
				missing = append(missing, group+"."+b)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the default world never uses: %s", strings.Join(missing, ", "))
	}
}

func TestGenerateRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"negative scale", Options{Scale: -1}},
		{"tiny scale", Options{Scale: 0.001}},
		{"huge scale", Options{Scale: MaxScale + 1}},
		{"negative workers", Options{Workers: -2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Generate(tc.opts); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
