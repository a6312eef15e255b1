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
	// The edges of the counts: the maximum and one above, each way.
	first, last := pFirst, pLast
	if m.Listing == Transactions {
		first, last = "first", "last"
	}
	for _, c := range []string{first, last} {
		for _, v := range []int{m.Limits.MaxPage, m.Limits.MaxPage + 1} {
			g.addWith(n, url.Values{c: {strconv.Itoa(v)}})
		}
	}
	for _, p := range params {
		g.add(n, p)
	}
	// Every pair twice; a pair with an enumerated parameter once with each
	// of its values.
	for round := range 2 {
		g.forceCount = round == 0 // the second round sometimes without a count
		for i, a := range params {
			for _, b := range params[i+1:] {
				g.add(n, a, b)
			}
		}
	}
	g.forceCount = true
	for _, e := range []string{"entityScope", pNewest} {
		if !slices.Contains(params, e) {
			continue
		}
		for _, v := range enumValues[e] {
			for _, b := range params {
				if b != e {
					g.addWith(n, url.Values{e: {v}}, b)
				}
			}
		}
	}
	g.forceCount = false
	// Then random sets of one to four parameters, half of them grown from
	// one of the listing's themes.
	themes := listingThemes[m.Listing]
	for tries := 0; len(g.out) < n && tries < 20*n; tries++ {
		var set []string
		if len(themes) > 0 && g.rng.IntN(2) == 0 {
			set = slices.Clone(themes[g.rng.IntN(len(themes))])
		}
		k := len(set) + g.rng.IntN(3)
		if len(set) == 0 {
			k = 1 + g.rng.IntN(4)
		}
		for _, j := range g.rng.Perm(len(params)) {
			if len(set) >= k {
				break
			}
			if !slices.Contains(set, params[j]) {
				set = append(set, params[j])
			}
		}
		g.add(n, set...)
	}
	return g.out
}

// listingThemes are sets of parameters whose meaning depends on each other:
// the generator grows half its random queries from them.
var listingThemes = map[Listing][][]string{
	Games: {{"epochFrom", "epochTo"}, {"entityScope", "partyId"}, {"entityScope", "teamId"},
		{pFirst, pAfter}, {pLast, pBefore}, {pNewest, pLast, pBefore}, {"epochFrom", pNewest}},
	Snapshots:  {{pFirst, pAfter}, {pLast, pBefore}, {pNewest, pFirst, pAfter}, {pNewest, pLast, pBefore}},
	Rotations:  {{"nodeId", pAfter}, {"nodeId", pLast, pBefore}, {pNewest, pFirst, pAfter}, {pNewest, pLast, pBefore}},
	Parameters: {{pFirst, pAfter}, {pLast, pBefore}, {pNewest, pFirst}},
	Transactions: {{"cmdTypes", "parties"}, {"first", "after"}, {"last", "before"}, {"after", "before"},
		{"cmdTypes", "excludeCmdTypes"}, {"parties", "last", "before"}},
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
	// forceCount gives every query made a count (see counted).
	forceCount bool
}

// enumValues are the values of the enumerated parameters.
var enumValues = map[string][]string{
	"entityScope": {ScopeUnspecified, ScopeIndividuals, ScopeTeams},
	pNewest:       {"true", "false"},
}

// add makes one query with the parameters given, unless n are made or an
// equal one was.
func (g *gen) add(n int, names ...string) { g.addWith(n, nil, names...) }

// addWith is add with some parameters' values fixed.
func (g *gen) addWith(n int, fixed url.Values, names ...string) {
	if len(g.out) >= n {
		return
	}
	q := clone(fixed)
	for _, name := range names {
		if !q.Has(name) {
			q[name] = g.values(name)
		}
	}
	g.window(q)
	g.counted(q)
	g.respell(q)
	if g.rng.IntN(3) == 0 && !hasCount(fixed) {
		g.fit(q)
	}
	key := Canonical(q)
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	g.out = append(g.out, q)
}

// hasCount reports whether a query gives a count.
func hasCount(q url.Values) bool {
	for k := range q {
		if isCount(k) {
			return true
		}
	}
	return false
}

// window makes most games windows given at both ends lie at the edges of
// the 30-epoch span: 29 or 30 epochs apart, one more, or reversed.
func (g *gen) window(q url.Values) {
	from, err1 := strconv.ParseUint(q.Get("epochFrom"), 10, 64)
	_, err2 := strconv.ParseUint(q.Get("epochTo"), 10, 64)
	if err1 != nil || err2 != nil || g.rng.IntN(4) == 0 {
		return
	}
	d := pick(g.rng, 0, 1, 28, 29, 30, 31, 45, 100)
	to := satAdd(from, uint64(d))
	if g.rng.IntN(6) == 0 {
		to = satSub(from, uint64(1+g.rng.IntN(5)))
	}
	q.Set("epochTo", strconv.FormatUint(to, 10))
}

// counted gives most queries without a count one (forwards), so that
// their answers are the spec's to decide: without a count the page size is
// docs/behaviour.md's.
func (g *gen) counted(q url.Values) {
	first, last := pFirst, pLast
	if g.m.Listing == Transactions {
		first, last = "first", "last"
	}
	if q.Has(first) || q.Has(last) || !g.forceCount && g.rng.IntN(4) == 0 {
		return
	}
	if g.m.Listing == Transactions && q.Has("before") {
		return // first cannot be combined with before: the pair is judged as given
	}
	q.Set(first, strconv.Itoa(1+g.rng.IntN(min(40, g.m.mustCount))))
}

// respell spells a query in a way docs/behaviour.md accepts, now and then:
// a snake_case key, a boolean as 1 or 0, a single-valued parameter twice.
func (g *gen) respell(q url.Values) {
	if g.rng.IntN(6) != 0 {
		return
	}
	keys := sortedKeys(q)
	g.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, k := range keys {
		v := q[k]
		switch {
		case SnakeCase(k) != "" && g.rng.IntN(3) > 0:
			delete(q, k)
			q[SnakeCase(k)] = v
			return
		case k == pNewest && g.rng.IntN(2) == 0:
			q[k] = []string{map[string]string{"true": "1", "false": "0"}[v[0]]}
			return
		case !repeated[k] && g.rng.IntN(3) == 0:
			q[k] = append(v, g.values(k)...)
			return
		}
	}
}

// fit sets the query's count to the number of rows its other parameters
// select: a page that ends exactly at the listing's end. When they select
// more than the spec's counts reach, a cursor is set so that a page of at
// most that many rows ends exactly there (forwards) or starts exactly at
// the listing's start (backwards).
func (g *gen) fit(q url.Values) {
	for _, c := range []string{pFirst, pLast, "first", "last"} {
		if !q.Has(c) {
			continue
		}
		probe := clone(q)
		probe.Set(c, strconv.Itoa(g.m.Limits.MaxPage))
		e := g.m.Expect(probe)
		rows := e.Rows
		if !e.Known || e.Status != 200 || len(rows) == 0 {
			return
		}
		if len(rows) <= g.m.mustCount || !g.m.Listing.paged() || q.Has(pAfter) || q.Has(pBefore) {
			q.Set(c, strconv.Itoa(len(rows)))
			return
		}
		// More rows than mustCount (at least 1): k leaves one or more before.
		k := 1 + g.rng.IntN(g.m.mustCount)
		if c == pFirst {
			q.Set(pAfter, rows[len(rows)-k-1].Cursor)
		} else {
			q.Set(pBefore, rows[k].Cursor)
		}
		q.Set(c, strconv.Itoa(k))
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
//
// The maximum page size comes once in a while only: its answers are the
// largest to send and read, and the edges queries ask it anyway.
func (g *gen) count() int {
	switch g.rng.IntN(48) {
	case 0:
		return g.m.Limits.MaxPage
	case 1, 2, 3:
		return g.m.Limits.MaxPage + 1
	case 4, 5, 6:
		return 0
	case 7, 8, 9, 10:
		return g.m.mustCount
	case 11, 12, 13, 14, 15, 16, 17, 18:
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
