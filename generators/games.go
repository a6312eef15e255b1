package generators

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
)

// gameDefinition is a recurring reward game: it runs every epoch from start
// to end, producing one Game record per epoch with the same ID.
type gameDefinition struct {
	id         string
	teams      bool
	metric     string
	asset      Asset
	start, end uint64
	// totals holds each participant's rewards so far in this game.
	totals map[string]*big.Int
}

// dispatchMetrics are the DispatchMetric values, taken from the schema so
// every one is used by some game.
func dispatchMetrics() []string {
	return mustEnum("DispatchMetric")
}

// makeGames runs the game definitions over the epochs. Individual games draw
// their players from all parties; team games from the teams' members.
func (w *World) makeGames(s Sizes) {
	g := w.stream("games")
	metrics := dispatchMetrics()
	epochs := w.LatestEpoch - w.FirstEpoch + 1
	defs := make([]*gameDefinition, 0, max(s.GameDefinitions, len(metrics)))
	for i := 0; i < cap(defs); i++ {
		d := &gameDefinition{
			id:     g.hex(64),
			teams:  i%2 == 1,
			metric: metrics[i%len(metrics)],
			asset:  w.Assets[g.intn(len(w.Assets))],
			start:  w.FirstEpoch,
			end:    w.LatestEpoch,
			totals: map[string]*big.Int{},
		}
		switch {
		case i < 4:
			// Long-running games cover the whole chain, so every epoch
			// has games of both scopes.
		case i%3 == 0:
			length := max(3, epochs/5)
			d.start = w.FirstEpoch + uint64(g.between(0, int64(epochs-length)))
			d.end = d.start + length - 1
		default:
			d.start = w.FirstEpoch + uint64(g.between(0, int64(epochs/10)))
			d.end = w.LatestEpoch - uint64(g.between(0, int64(epochs/10)))
		}
		defs = append(defs, d)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].id < defs[j].id })
	for e := w.FirstEpoch; e <= w.LatestEpoch; e++ {
		for _, d := range defs {
			if e < d.start || e > d.end {
				continue
			}
			if d.teams {
				w.Games = append(w.Games, w.teamGame(g, d, e))
			} else {
				w.Games = append(w.Games, w.individualGame(g, d, e))
			}
		}
	}
}

func (w *World) individualGame(g *rng, d *gameDefinition, epoch uint64) Game {
	n := int(g.between(3, 12))
	players := distinct(g, w.Parties, n)
	entries := make([]IndividualEntry, n)
	for i, p := range players {
		entries[i] = d.entry(g, p)
	}
	rankEntries(entries)
	return Game{
		Epoch: epoch, ID: d.id, Participants: uint64(n), RewardAssetID: d.asset.ID,
		Individual: &IndividualEntities{Individual: entries},
	}
}

func (w *World) teamGame(g *rng, d *gameDefinition, epoch uint64) Game {
	k := int(g.between(2, int64(min(6, len(w.Teams)))))
	teams := distinct(g, w.Teams, k)
	entries := make([]TeamEntry, k)
	participants := 0
	for i, t := range teams {
		members := distinct(g, t.Members, int(g.between(1, int64(len(t.Members)))))
		te := TeamEntry{RewardMetric: d.metric, Team: TeamParticipation{TeamID: t.ID}}
		reward, total, volume := new(big.Int), new(big.Int), new(big.Int)
		for _, m := range members {
			me := d.entry(g, m)
			te.Team.MembersParticipating = append(te.Team.MembersParticipating, me)
			addDecimal(reward, me.RewardEarned)
			addDecimal(total, me.TotalRewardsEarned)
			addDecimal(volume, strings.Split(me.Volume, ".")[0])
		}
		rankEntries(te.Team.MembersParticipating)
		participants += len(members)
		te.RewardEarned = reward.String()
		te.TotalRewardsEarned = total.String()
		te.RewardEarnedQuantum = quantum(reward, d.asset.Decimals)
		te.TotalRewardsEarnedQuantum = quantum(total, d.asset.Decimals)
		te.Volume = volume.String()
		entries[i] = te
	}
	sort.SliceStable(entries, func(i, j int) bool { return lessDecimal(entries[j].Volume, entries[i].Volume) })
	for i := range entries {
		entries[i].Rank = uint64(i + 1)
	}
	return Game{
		Epoch: epoch, ID: d.id, Participants: uint64(participants), RewardAssetID: d.asset.ID,
		Team: &TeamEntities{Team: entries},
	}
}

// entry is one party's result this epoch; its totals include this epoch.
func (d *gameDefinition) entry(g *rng, party string) IndividualEntry {
	reward := new(big.Int).SetInt64(g.between(0, 5_000_000))
	reward.Mul(reward, big.NewInt(g.between(1, 1_000_000_000_000)))
	total, ok := d.totals[party]
	if !ok {
		total = new(big.Int)
		d.totals[party] = total
	}
	total.Add(total, reward)
	return IndividualEntry{
		Individual:                party,
		RewardEarned:              reward.String(),
		RewardEarnedQuantum:       quantum(reward, d.asset.Decimals),
		RewardMetric:              d.metric,
		TotalRewardsEarned:        total.String(),
		TotalRewardsEarnedQuantum: quantum(total, d.asset.Decimals),
		Volume:                    fmt.Sprintf("%d.%02d", g.between(0, 2_000_000), g.between(0, 99)),
	}
}

// rankEntries orders entries by volume, largest first, and numbers them.
func rankEntries(entries []IndividualEntry) {
	sort.SliceStable(entries, func(i, j int) bool { return lessDecimal(entries[j].Volume, entries[i].Volume) })
	for i := range entries {
		entries[i].Rank = uint64(i + 1)
	}
}

// quantum expresses an amount in whole units of an asset with the given
// decimals, to six places.
func quantum(amount *big.Int, decimals int) string {
	r := new(big.Rat).SetFrac(amount, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
	s := strings.TrimRight(r.FloatString(6), "0")
	return strings.TrimSuffix(s, ".")
}

func addDecimal(sum *big.Int, digits string) {
	x, ok := new(big.Int).SetString(digits, 10)
	if ok {
		sum.Add(sum, x)
	}
}

// lessDecimal compares two non-negative decimal strings.
func lessDecimal(a, b string) bool {
	x, _ := new(big.Rat).SetString(a)
	y, _ := new(big.Rat).SetString(b)
	if x == nil || y == nil {
		return a < b
	}
	return x.Cmp(y) < 0
}

// distinct picks n different elements of list (all of them if n >= len).
func distinct[T any](g *rng, list []T, n int) []T {
	if n >= len(list) {
		return append([]T(nil), list...)
	}
	// Rejection sampling: n is small next to the list, so this is cheaper
	// than a permutation of the whole list.
	idx := make([]int, 0, n)
	for len(idx) < n {
		j := g.intn(len(list))
		dup := false
		for _, k := range idx {
			if k == j {
				dup = true
				break
			}
		}
		if !dup {
			idx = append(idx, j)
		}
	}
	sort.Ints(idx)
	out := make([]T, n)
	for i, j := range idx {
		out[i] = list[j]
	}
	return out
}
