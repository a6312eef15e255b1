package model

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Generate draws n queries of the model's listing, deterministic from
// seed: every parameter alone, then every pair of parameters, then random
// sets of one to four, each value drawn from what the model holds (values
// that exist, that do not, that lie beside existing ones, counts of one,
// exact fits, the maximum and one above, cursors from anywhere in the
// listing) and at times in a spelling docs/behaviour.md accepts.
func Generate(m *Model, seed int64, n int) []url.Values {
	g := &gen{m: m, rng: rand.New(rand.NewPCG(uint64(seed), uint64(m.Listing)+1)), seen: map[string]bool{}, rows: m.Rows()}
	g.both = bothRoles(g.rows)
	params := m.Listing.Params()
	for _, p := range params {
		g.add(n, p)
	}
	for i, a := range params {
		for _, b := range params[i+1:] {
			g.add(n, a, b)
		}
	}
	for tries := 0; len(g.out) < n && tries < 20*n; tries++ {
		k := 1 + g.rng.IntN(4)
		perm := g.rng.Perm(len(params))[:min(k, len(params))]
		set := make([]string, len(perm))
		for i, j := range perm {
			set[i] = params[j]
		}
		g.add(n, set...)
	}
	return g.out
}

type gen struct {
	m    *Model
	rng  *rand.Rand
	out  []url.Values
	seen map[string]bool
	// rows and both are the model's rows and its parties in two roles,
	// read once.
	rows []Row
	both []string
}

// add makes one query with the parameters given, unless n are made or an
// equal one was.
func (g *gen) add(n int, names ...string) {
	if len(g.out) >= n {
		return
	}
	q := url.Values{}
	for _, name := range names {
		q[name] = g.values(name)
	}
	g.respell(q)
	if g.rng.IntN(3) == 0 {
		g.fit(q)
	}
	key := Canonical(q)
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	g.out = append(g.out, q)
}

// respell spells a query in a way docs/behaviour.md accepts, now and then:
// a snake_case key, a boolean as 1 or 0, a single-valued parameter twice.
func (g *gen) respell(q url.Values) {
	if g.rng.IntN(12) != 0 {
		return
	}
	for k, v := range q {
		switch g.rng.IntN(3) {
		case 0:
			if s := SnakeCase(k); s != "" {
				delete(q, k)
				q[s] = v
				return
			}
		case 1:
			if k == pNewest {
				q[k] = []string{map[string]string{"true": "1", "false": "0"}[v[0]]}
				return
			}
		default:
			if !repeated[k] {
				q[k] = append(v, g.values(k)...)
				return
			}
		}
	}
}

// fit sets the query's count to the number of rows its other parameters
// select: a page that ends exactly at the listing's end.
func (g *gen) fit(q url.Values) {
	for _, c := range []string{pFirst, pLast, "first", "last"} {
		if !q.Has(c) {
			continue
		}
		probe := clone(q)
		probe.Set(c, strconv.Itoa(g.m.Limits.MaxPage))
		if e := g.m.Expect(probe); e.Known && e.Status == 200 && len(e.Rows) > 0 {
			q.Set(c, strconv.Itoa(len(e.Rows)))
		}
		return
	}
}

// pick returns one of the choices.
func pick[T any](rng *rand.Rand, choices ...T) T { return choices[rng.IntN(len(choices))] }

// values draws a value (or, for repeated parameters, values) of a
// parameter.
func (g *gen) values(name string) []string {
	rows := g.rows
	row := func() *Row {
		if len(rows) == 0 {
			return &Row{}
		}
		// The ends of the listing, and of the head and tail, as often as
		// anywhere between.
		switch g.rng.IntN(4) {
		case 0:
			return &rows[0]
		case 1:
			return &rows[len(rows)-1]
		case 2:
			if len(g.m.head) > 0 && len(g.m.tail) > 0 {
				return pick(g.rng, &g.m.head[len(g.m.head)-1], &g.m.tail[0])
			}
		}
		return &rows[g.rng.IntN(len(rows))]
	}
	switch name {
	case pFirst, pLast, "first", "last":
		return []string{strconv.Itoa(g.count())}
	case pAfter, pBefore:
		if g.rng.IntN(25) == 0 {
			return []string{"not-a-cursor!"}
		}
		return []string{row().Cursor}
	case "after", "before":
		r := row()
		switch g.rng.IntN(20) {
		case 0:
			return []string{"not-a-cursor"}
		case 1, 2:
			// beside an existing row: an index no row has
			return []string{fmt.Sprintf("%d.%d", r.Key.Num, r.Key.Sub+1000)}
		}
		return []string{r.Cursor}
	case pNewest:
		return []string{pick(g.rng, "true", "false")}
	case "gameId":
		return []string{g.beside(row().Key.Str)}
	case "nodeId":
		return []string{g.beside(row().Key.Str)}
	case "epochFrom", "epochTo":
		return []string{strconv.FormatUint(g.epoch(row().Key.Num), 10)}
	case "entityScope":
		return []string{pick(g.rng, ScopeUnspecified, ScopeIndividuals, ScopeTeams)}
	case "teamId":
		return []string{g.beside(g.from(rows, func(r *Row) []string { return r.Teams }))}
	case "partyId":
		return []string{g.beside(g.party(rows))}
	case "cmdTypes", "excludeCmdTypes":
		out := []string{g.beside(row().Type)}
		if g.rng.IntN(3) == 0 {
			out = append(out, row().Type)
		}
		return out
	case "parties":
		out := []string{g.beside(g.party(rows))}
		if g.rng.IntN(4) == 0 {
			out = append(out, g.party(rows))
		}
		return out
	}
	return []string{"1"}
}

// count draws a page count: small ones most often, and the edges.
func (g *gen) count() int {
	switch g.rng.IntN(12) {
	case 0:
		return g.m.Limits.MaxPage
	case 1:
		return g.m.Limits.MaxPage + 1
	case 2:
		return 0
	case 3:
		return mustCount
	case 4, 5:
		return 1
	}
	return 2 + g.rng.IntN(40)
}

// epoch draws an epoch near one held: the one given, the latest and the
// epochs beside them, 0, the edges of the 30-epoch window, far beyond.
func (g *gen) epoch(near uint64) uint64 {
	l := g.m.latest
	return pick(g.rng, near, near, near+1, satSub(near, 1), l, l+1, satSub(l, 1),
		satSub(l, epochSpan-1), satSub(l, epochSpan), 0, 1, l+100, satAdd(near, epochSpan-1), satAdd(near, epochSpan))
}

// beside returns v most often, else a value that is not held: v with its
// last character changed (just beside it), or one unlike any.
func (g *gen) beside(v string) string {
	switch g.rng.IntN(6) {
	case 0:
		if v == "" {
			return "0"
		}
		last := v[len(v)-1]
		return v[:len(v)-1] + string(rune(last^1))
	case 1:
		return strings.Repeat("f", max(len(v), 8))
	}
	return v
}

// from draws one of the values rows name.
func (g *gen) from(rows []Row, f func(*Row) []string) string {
	var all []string
	for i := range rows {
		all = append(all, f(&rows[i])...)
	}
	if len(all) == 0 {
		return ""
	}
	return all[g.rng.IntN(len(all))]
}

// party draws a party the rows name, in any role, preferring one that
// appears in more than one role.
func (g *gen) party(rows []Row) string {
	if g.m.Listing == Transactions {
		if g.rng.IntN(2) == 0 {
			if r := g.from(rows, func(r *Row) []string { return r.Receivers }); r != "" {
				return r
			}
		}
		return g.from(rows, func(r *Row) []string { return []string{r.Submitter} })
	}
	if g.rng.IntN(2) == 0 {
		if len(g.both) > 0 {
			return g.both[g.rng.IntN(len(g.both))]
		}
	}
	return g.from(rows, func(r *Row) []string { return append(slices.Clone(r.Players), r.Members...) })
}

// bothRoles lists the parties that are individual players in one game and
// team members in another.
func bothRoles(rows []Row) []string {
	players, members := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		for _, p := range r.Players {
			players[p] = true
		}
		for _, p := range r.Members {
			members[p] = true
		}
	}
	var out []string
	for p := range players {
		if members[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
