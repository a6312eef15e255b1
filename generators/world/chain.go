package world

import (
	"sort"
	"strconv"
	"strings"

	"github.com/chaindata/harness/generators/internal/netparams"
	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/generators/records"
)

// makeSnapshots takes a core snapshot at evenly spaced heights. The chain
// upgrades its core version at two of them, which are marked as protocol
// upgrade blocks.
func (w *World) makeSnapshots(s Sizes) {
	g := w.stream("snapshots")
	interval := w.blocks() / uint64(s.Snapshots)
	upgrades := map[int]bool{}
	for k := 1; k < len(coreVersions); k++ {
		upgrades[s.Snapshots*k/len(coreVersions)] = true
	}
	version := 0
	for i := 1; i <= s.Snapshots; i++ {
		upgrade := upgrades[i]
		if upgrade {
			version++
		}
		w.Snapshots = append(w.Snapshots, records.CoreSnapshot{
			BlockHash:            g.Hex(64),
			BlockHeight:          w.GenesisHeight + interval*uint64(i),
			CoreVersion:          coreVersions[version],
			ProtocolUpgradeBlock: upgrade,
		})
	}
}

// makeKeyRotations spreads the rotations over the nodes at increasing heights.
// Each node's rotations chain: a rotation's old address is the node's
// previous new address, and the node ends on its last new address.
func (w *World) makeKeyRotations(s Sizes) {
	g := w.stream("key-rotations")
	type planned struct {
		height uint64
		node   int
	}
	used := map[planned]bool{}
	plan := make([]planned, 0, s.KeyRotations)
	for len(plan) < s.KeyRotations {
		p := planned{height: w.GenesisHeight + uint64(g.Between(1, int64(w.blocks()))), node: g.Intn(len(w.Nodes))}
		if used[p] {
			continue
		}
		used[p] = true
		plan = append(plan, p)
	}
	sort.Slice(plan, func(i, j int) bool {
		if plan[i].height != plan[j].height {
			return plan[i].height < plan[j].height
		}
		return w.Nodes[plan[i].node].ID < w.Nodes[plan[j].node].ID
	})
	for _, p := range plan {
		n := &w.Nodes[p.node]
		next := "0x" + g.Hex(40)
		w.KeyRotations = append(w.KeyRotations, records.EthereumKeyRotation{
			BlockHeight: p.height,
			NewAddress:  next,
			NodeID:      n.ID,
			OldAddress:  n.EthAddress,
		})
		n.EthAddress = next
	}
}

// makeNetworkParameters takes the real network's parameter keys with values
// around their defaults, in key order.
func (w *World) makeNetworkParameters() {
	g := w.stream("network-parameters")
	for _, row := range netparams.Table() {
		w.NetworkParameters = append(w.NetworkParameters, records.NetworkParameter{Key: row.Key, Value: parameterValue(g, row)})
	}
	sort.Slice(w.NetworkParameters, func(i, j int) bool {
		return w.NetworkParameters[i].Key < w.NetworkParameters[j].Key
	})
}

// parameterValue keeps a default most of the time and otherwise moves it
// the way a governance vote might: doubling or halving a number, filling in
// the placeholders of a JSON template.
func parameterValue(g *random.Stream, row netparams.Default) string {
	v := row.Value
	switch row.Kind {
	case "Decimal":
		if f, err := strconv.ParseFloat(v, 64); err == nil && g.Chance(0.3) {
			f *= random.Pick(g, []float64{0.5, 0.8, 1.25, 2})
			v = strconv.FormatFloat(f, 'f', -1, 64)
		}
	case "Uint", "Int":
		if n, err := strconv.ParseUint(v, 10, 64); err == nil && n >= 10 && g.Chance(0.3) {
			if g.Chance(0.5) {
				n *= 2
			} else {
				n /= 2
			}
			v = strconv.FormatUint(n, 10)
		}
	case "JSON":
		for strings.Contains(v, "0xXXX") {
			v = strings.Replace(v, "0xXXX", "0x"+g.Hex(40), 1)
		}
		v = strings.ReplaceAll(v, `"XXX"`, `"1"`)
	}
	return v
}
