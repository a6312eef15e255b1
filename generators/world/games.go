package world

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/generators/records"
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
	totals map[string]*amount
	// base, when set, holds the totals this game started from; totals
	// then holds only the parties whose totals moved since (copy on
	// write), so a live chain can grow from a world without changing it.
	base map[string]*amount
}

// dispatchMetrics are the DispatchMetric values, taken from the schema so
// every one is used by some game.
func dispatchMetrics() []string {
	return mustEnum("DispatchMetric")
}

// gamePlan is what a generated world knows of its games besides the
// records: whether they are made on demand, how many there are, and, for a
// lazy world, the definitions' totals after the latest epoch once a live
// chain has needed them. (The definitions themselves are drawn again from
// the seed by each run of the games: newGameRun.)
type gamePlan struct {
	// lazy is set when the world does not hold its games.
	lazy bool
	// count is the number of games the definitions make: one per epoch
	// each runs.
	count int
	// final holds the definitions with each player's totals after the
	// latest epoch, made once, when a live chain first asks for them.
	final     sync.Once
	finalDefs []*gameDefinition
}

// gameRun makes a world's games epoch by epoch, oldest first. Every game
// draws from one stream, in order, and carries its definition's running
// totals, so a run can only go forwards from the first epoch.
type gameRun struct {
	w     *World
	g     *random.Stream
	defs  []*gameDefinition // in ID order, totals so far
	epoch uint64            // the next epoch to make
}

// newGameRun draws the game definitions from the world's "games" stream and
// returns a run positioned at the first epoch, with empty totals.
func (w *World) newGameRun() *gameRun {
	g := w.stream("games")
	metrics := dispatchMetrics()
	epochs := w.LatestEpoch - w.FirstEpoch + 1
	n := max(SizesFor(w.Scale).GameDefinitions, len(metrics))
	defs := make([]*gameDefinition, 0, n)
	for i := 0; i < n; i++ {
		d := &gameDefinition{
			id:     g.Hex(64),
			teams:  i%2 == 1,
			metric: metrics[i%len(metrics)],
			asset:  w.Assets[g.Intn(len(w.Assets))],
			start:  w.FirstEpoch,
			end:    w.LatestEpoch,
			totals: map[string]*amount{},
		}
		switch {
		case i < 4:
			// Long-running games cover the whole chain, so every epoch
			// has games of both scopes.
		case i%3 == 0:
			length := max(3, epochs/5)
			d.start = w.FirstEpoch + uint64(g.Between(0, int64(epochs-length)))
			d.end = d.start + length - 1
		default:
			d.start = w.FirstEpoch + uint64(g.Between(0, int64(epochs/10)))
			d.end = w.LatestEpoch - uint64(g.Between(0, int64(epochs/10)))
		}
		defs = append(defs, d)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].id < defs[j].id })
	return &gameRun{w: w, g: g, defs: defs, epoch: w.FirstEpoch}
}

// done reports whether every epoch has been made.
func (r *gameRun) done() bool { return r.epoch > r.w.LatestEpoch }

// next appends the games of the next epoch to dst, in ID order, and moves on
// to the epoch after.
func (r *gameRun) next(dst []records.Game) []records.Game {
	e := r.epoch
	for _, d := range r.defs {
		if e < d.start || e > d.end {
			continue
		}
		if d.teams {
			dst = append(dst, r.w.teamGame(r.g, d, e))
		} else {
			dst = append(dst, r.w.individualGame(r.g, d, e))
		}
	}
	r.epoch++
	return dst
}

// count returns the number of games the run makes over all its epochs.
func (r *gameRun) count() int {
	n := 0
	for _, d := range r.defs {
		n += int(d.end - d.start + 1)
	}
	return n
}

// makeGames runs the game definitions over the epochs. Individual games draw
// their players from all parties; team games from the teams' members. A lazy
// world keeps only the count: EachGame makes the games again.
func (w *World) makeGames(lazy bool) {
	run := w.newGameRun()
	w.games = &gamePlan{lazy: lazy, count: run.count()}
	if lazy {
		return
	}
	w.Games = make([]records.Game, 0, w.games.count)
	for !run.done() {
		w.Games = run.next(w.Games)
	}
	w.gameDefs = run.defs
}

// GameCount returns the number of games in the world. It is cheap: a lazy
// world counts them from its game definitions without making them.
func (w *World) GameCount() int {
	if w.lazyGames() {
		return w.games.count
	}
	return len(w.Games)
}

// EachGame calls fn with every game, epoch ascending and, within an epoch,
// game ID ascending: the order of World.Games. A lazy world makes them again
// from its seed, one epoch at a time, so its memory is bounded by the
// largest epoch whatever the world's size; the games are byte for byte those
// of the same world generated in memory. fn may keep the *Game it is given.
// EachGame stops at the first error fn returns, or when ctx is done, and
// returns that error.
func (w *World) EachGame(ctx context.Context, fn func(*records.Game) error) error {
	if !w.lazyGames() {
		for i := range w.Games {
			if i%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(&w.Games[i]); err != nil {
				return err
			}
		}
		return nil
	}
	run := w.newGameRun()
	for !run.done() {
		if err := ctx.Err(); err != nil {
			return err
		}
		// A new slice each epoch: fn may keep the games.
		epoch := run.next(make([]records.Game, 0, len(run.defs)))
		for i := range epoch {
			if err := fn(&epoch[i]); err != nil {
				return err
			}
		}
	}
	// The run reached the latest epoch: its totals are the ones a live
	// chain carries on from, which finalGameDefs need not make again.
	p := w.games
	p.final.Do(func() { p.finalDefs = run.defs })
	return nil
}

// Lazy reports whether the world makes its games and transactions on
// demand (Options.Lazy) rather than holding them: EachGame and
// EachTransaction then make them again on each call.
func (w *World) Lazy() bool { return w.lazyGames() }

// lazyGames reports whether the world makes its games on demand.
func (w *World) lazyGames() bool { return w.games != nil && w.games.lazy }

// finalGameDefs returns the game definitions with each player's totals
// after the latest epoch, which a live chain carries on from; nil for a
// world that was not generated. A lazy world makes all its games once, on
// the first call, to reach them.
func (w *World) finalGameDefs() []*gameDefinition {
	if !w.lazyGames() {
		return w.gameDefs
	}
	p := w.games
	p.final.Do(func() {
		run := w.newGameRun()
		var scratch []records.Game
		for !run.done() {
			scratch = run.next(scratch[:0])
		}
		p.finalDefs = run.defs
	})
	return p.finalDefs
}

func (w *World) individualGame(g *random.Stream, d *gameDefinition, epoch uint64) records.Game {
	n := int(g.Between(3, 12))
	players := distinct(g, w.Parties, n)
	entries := make([]records.IndividualEntry, n)
	vols := make([]int64, n)
	for i, p := range players {
		r := d.entry(g, p)
		entries[i], vols[i] = r.entry, r.volume
	}
	rankEntries(entries, vols)
	return records.Game{
		Epoch: epoch, ID: d.id, Participants: uint64(n), RewardAssetID: d.asset.ID,
		Individual: &records.IndividualEntities{Individual: entries},
	}
}

func (w *World) teamGame(g *random.Stream, d *gameDefinition, epoch uint64) records.Game {
	k := int(g.Between(2, int64(min(6, len(w.Teams)))))
	teams := distinct(g, w.Teams, k)
	entries := make([]records.TeamEntry, k)
	teamVols := make([]int64, k)
	participants := 0
	for i, t := range teams {
		members := distinct(g, t.Members, int(g.Between(1, int64(len(t.Members)))))
		te := records.TeamEntry{RewardMetric: d.metric, Team: records.TeamParticipation{TeamID: t.ID,
			MembersParticipating: make([]records.IndividualEntry, 0, len(members))}}
		var reward, total amount
		var volume int64 // hundredths
		vols := make([]int64, len(members))
		for k, m := range members {
			r := d.entry(g, m)
			te.Team.MembersParticipating = append(te.Team.MembersParticipating, r.entry)
			vols[k] = r.volume
			reward.add(r.reward)
			total.addAmount(r.total)
			volume += r.volume
		}
		rankEntries(te.Team.MembersParticipating, vols)
		participants += len(members)
		te.RewardEarned = reward.String()
		te.TotalRewardsEarned = total.String()
		te.RewardEarnedQuantum = quantum(te.RewardEarned, d.asset.Decimals)
		te.TotalRewardsEarnedQuantum = quantum(te.TotalRewardsEarned, d.asset.Decimals)
		te.Volume = hundredths(volume)
		entries[i] = te
		teamVols[i] = volume
	}
	byVolume(entries, teamVols)
	for i := range entries {
		entries[i].Rank = uint64(i + 1)
	}
	return records.Game{
		Epoch: epoch, ID: d.id, Participants: uint64(participants), RewardAssetID: d.asset.ID,
		Team: &records.TeamEntities{Team: entries},
	}
}

// entryResult is one party's result in one epoch of a game, with the
// numbers a team's result is summed from.
type entryResult struct {
	entry  records.IndividualEntry
	volume int64  // hundredths, for ranking
	reward uint64 // this epoch's reward
	total  amount // the party's total in this game, this epoch included
}

// entry is one party's result this epoch; its totals include this epoch.
func (d *gameDefinition) entry(g *random.Stream, party string) entryResult {
	reward := uint64(g.Between(0, 5_000_000)) * uint64(g.Between(1, 1_000_000_000_000))
	total, ok := d.totals[party]
	if !ok {
		total = new(amount)
		if b, ok := d.base[party]; ok {
			*total = *b
		}
		d.totals[party] = total
	}
	total.add(reward)
	rewardText, totalText := strconv.FormatUint(reward, 10), total.String()
	volume := g.Between(0, 200_000_000)
	return entryResult{
		entry: records.IndividualEntry{
			Individual:                party,
			RewardEarned:              rewardText,
			RewardEarnedQuantum:       quantum(rewardText, d.asset.Decimals),
			RewardMetric:              d.metric,
			TotalRewardsEarned:        totalText,
			TotalRewardsEarnedQuantum: quantum(totalText, d.asset.Decimals),
			Volume:                    hundredths(volume),
		},
		volume: volume, reward: reward, total: *total,
	}
}

// rankEntries orders entries by volume, largest first, and numbers them.
func rankEntries(entries []records.IndividualEntry, vols []int64) {
	byVolume(entries, vols)
	for i := range entries {
		entries[i].Rank = uint64(i + 1)
	}
}

// byVolume sorts entries by their volumes, largest first, keeping the order
// of equal volumes (a stable sort: the order sort.SliceStable gives). An
// insertion sort, in place: a game has a dozen entries at most.
func byVolume[E any](entries []E, vols []int64) {
	for i := 1; i < len(entries); i++ {
		for j := i; j > 0 && vols[j] > vols[j-1]; j-- {
			entries[j], entries[j-1] = entries[j-1], entries[j]
			vols[j], vols[j-1] = vols[j-1], vols[j]
		}
	}
}

// hundredths formats a count of hundredths as a decimal, "1234.05".
func hundredths(v int64) string {
	var buf [24]byte
	b := strconv.AppendInt(buf[:0], v/100, 10)
	b = append(b, '.', byte('0'+v%100/10), byte('0'+v%10))
	return string(b)
}

// quantum expresses an amount (a digit string) in whole units of an asset
// with the given decimals, to at most six places, without trailing zeros.
func quantum(amount string, decimals int) string {
	// The fraction is the amount's last decimals digits, zero-padded on
	// the left when the amount is shorter; the whole part is the rest, or
	// 0.
	whole, pad, digits := "0", decimals-len(amount), amount
	if len(amount) > decimals {
		whole, pad, digits = amount[:len(amount)-decimals], 0, amount[len(amount)-decimals:]
	}
	var frac [6]byte
	n := 0
	for ; n < pad && n < len(frac); n++ {
		frac[n] = '0'
	}
	for i := 0; i < len(digits) && n < len(frac); i++ {
		frac[n] = digits[i]
		n++
	}
	for n > 0 && frac[n-1] == '0' {
		n--
	}
	if n == 0 {
		return whole
	}
	return whole + "." + string(frac[:n])
}

// distinct picks n different elements of list (all of them if n >= len).
func distinct[T any](g *random.Stream, list []T, n int) []T {
	if n >= len(list) {
		return append([]T(nil), list...)
	}
	// Rejection sampling: n is small next to the list, so this is cheaper
	// than a permutation of the whole list.
	idx := make([]int, 0, n)
	for len(idx) < n {
		j := g.Intn(len(list))
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
