package model

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Source says where a generated query comes from.
type Source string

// The sources, in the order their queries are asked: SourceExample,
// SourceCore, SourcePair, SourceClass, SourceTail.
const (
	// SourceExample is a failing query an earlier run saved (--examples).
	SourceExample Source = "example"
	// SourceCore is a query in which one parameter is load-bearing.
	SourceCore Source = "core"
	// SourcePair is a query in which each of two parameters is.
	SourcePair Source = "pair"
	// SourceClass is a query giving a parameter a value of a class.
	SourceClass Source = "class"
	// SourceTail is the seeded random tail.
	SourceTail Source = "tail"
)

// Query is a generated query and where it came from.
type Query struct {
	Values url.Values
	Source Source
	// Params are the parameters the query covers: the one or two it makes
	// load-bearing (core, pair), or those given a value of Class (class).
	Params []string
	Class  Class
	// Fixed says what else a pair's query is about: the value of an
	// enumerated parameter it fixes, or that its parameters are not
	// load-bearing (the oracle ignores one beside the other).
	Fixed string
}

// Provenance says where the query came from, for a report: "pair
// gameId&partyId", "class gameId: prefix", "tail".
func (q Query) Provenance() string {
	switch q.Source {
	case SourceCore, SourcePair:
		if q.Fixed != "" {
			return fmt.Sprintf("%s %s (%s)", q.Source, strings.Join(q.Params, "&"), q.Fixed)
		}
		return string(q.Source) + " " + strings.Join(q.Params, "&")
	case SourceClass:
		return fmt.Sprintf("class %s: %s", strings.Join(q.Params, "&"), q.Class)
	}
	return string(q.Source)
}

// PlanAnswer is a query asked and its answer, decoded (nil when it was not a
// 200 or could not be read).
type PlanAnswer struct {
	Query url.Values
	Page  *Page
}

// Plan is the queries of one listing, deterministic from the seed and, for
// the cursors taken from earlier answers, from those answers. First gives
// the earlier run's examples, then the core: every parameter and every
// pair of parameters in a query where each is load-bearing, and every
// value class of every parameter. Then, given the answers to those, gives
// queries with cursors the deployment issued in filtered answers, and the
// seeded random tail, n queries in all.
type Plan struct {
	g       *gen
	n       int
	first   []Query
	then    []Query
	reserve int
	covered []Covered
	// uncovered are the parameters, pairs and classes no query covers;
	// alias the core queries equal to one asked before them.
	uncovered []Uncovered
	alias     []Query
	thenDone  bool
}

// followUps bounds the queries with cursors from filtered answers.
const followUps = 12

// NewPlan draws the first queries of a listing: the examples (asked
// first, so that a failure once found is tried again), then the core.
// Everything is deterministic from seed.
func NewPlan(m *Model, seed int64, n int, examples []url.Values) *Plan {
	g := newGen(m, seed)
	p := &Plan{g: g, n: n}
	for _, q := range examples {
		if len(p.first) < n && g.mark(q) {
			p.first = append(p.first, Query{Values: clone(q), Source: SourceExample})
		}
	}
	if hasFilter(m.Listing) {
		p.reserve = min(followUps, max(0, n-len(p.first))/10)
	}
	room := max(0, n-len(p.first)-p.reserve)
	params := m.Listing.Params()
	// Each parameter alone, then each pair.
	var sets [][]string
	for _, a := range params {
		sets = append(sets, []string{a})
	}
	for i, a := range params {
		for _, b := range params[i+1:] {
			sets = append(sets, []string{a, b})
		}
	}
	for _, set := range sets {
		kind, src, tries := UncoveredParam, SourceCore, singleTries
		if len(set) == 2 {
			kind, src, tries = UncoveredPair, SourcePair, pairTries
		}
		what := strings.Join(set, "&")
		f, why := g.cover(set, tries)
		switch {
		case why != "":
			p.uncovered = append(p.uncovered, Uncovered{Kind: kind, What: what, Reason: why})
			if f.q != nil && len(set) == 2 {
				// Asked all the same: the parameter the oracle ignores
				// there must be ignored.
				p.take(Query{Values: f.q, Source: src, Params: set, Fixed: "not load-bearing"}, &room)
			}
		case !p.take(Query{Values: f.q, Source: src, Params: set}, &room):
			p.uncovered = append(p.uncovered, Uncovered{Kind: kind, What: what, Reason: p.beyond()})
		default:
			p.covered = append(p.covered, Covered{Params: set, Level: f.e.Level, Query: Canonical(f.q)})
		}
	}
	// Each value of an enumerated parameter beside each other parameter.
	for _, e := range []string{"entityScope", pNewest} {
		if !slices.Contains(params, e) {
			continue
		}
		for _, v := range enumValues[e] {
			for _, b := range params {
				if b == e {
					continue
				}
				if q := g.enumBeside(e, v, b); q != nil {
					p.take(Query{Values: q, Source: SourcePair, Params: []string{e, b}, Fixed: e + "=" + v}, &room)
				}
			}
		}
	}
	// Every value class of every parameter, and of the names.
	for _, name := range append(slices.Clone(params), NamesParam) {
		for _, c := range classesOf(m.Listing, name) {
			if c == ClassIssued || name == "epochFrom" && windowClass(c) {
				continue // drawn from the answers (Then); the windows under epochTo
			}
			what := name + ": " + string(c)
			covers := []string{name}
			if windowClass(c) {
				covers = []string{"epochFrom", "epochTo"}
			}
			q, why := g.drawClass(name, c)
			switch {
			case why != "":
				p.uncovered = append(p.uncovered, Uncovered{Kind: UncoveredClass, What: what, Reason: why})
			case !p.take(Query{Values: q, Source: SourceClass, Params: covers, Class: c}, &room):
				p.uncovered = append(p.uncovered, Uncovered{Kind: UncoveredClass, What: what, Reason: p.beyond()})
			}
		}
	}
	// Pages deep inside a listing larger than the model holds, with every
	// seed: in each window held there, one forwards and one backwards.
	for _, dq := range g.deepPages() {
		p.take(dq, &room)
	}
	return p
}

// deepPages are the queries of pages inside each window the model holds
// deep inside its listing: from the window's middle row, forwards and
// backwards, as many rows as stay inside the window (at most the largest
// count the spec decides), so that an answer there is judged whatever
// the seed.
func (g *gen) deepPages() []Query {
	first, after, last, before := pFirst, pAfter, pLast, pBefore
	if g.m.Listing == Transactions {
		first, after, last, before = "first", "after", "last", "before"
	}
	var out []Query
	for _, w := range g.m.windows {
		c := w[len(w)/2]
		if len(w) < 3 || c.Cursor == "" {
			continue
		}
		n := []string{strconv.Itoa(min(len(w)/2-1, g.m.mustCount))}
		for _, page := range []struct{ cursor, count string }{{after, first}, {before, last}} {
			q := url.Values{page.cursor: {c.Cursor}, page.count: n}
			if g.m.Expect(q).Known {
				out = append(out, Query{Values: q, Source: SourceCore, Params: []string{page.cursor}, Fixed: "a page deep inside the listing"})
			}
		}
	}
	return out
}

// windowClass reports whether a class is one of the epoch windows, drawn
// once for both ends.
func windowClass(c Class) bool { return c == ClassWindow29 || c == ClassWindow30 || c == ClassWindow31 }

// beyond is the reason of what the budget of queries left out.
func (p *Plan) beyond() string {
	return fmt.Sprintf("not asked: the core needs more than the %d queries of the budget (--queries)", p.n)
}

// take adds a core query when there is room. A query already asked is not
// asked again, and covers what it covers at no cost.
func (p *Plan) take(q Query, room *int) bool {
	if p.g.seen[Canonical(q.Values)] {
		p.alias = append(p.alias, q)
		return true
	}
	if *room <= 0 {
		return false
	}
	*room--
	p.g.mark(q.Values)
	p.first = append(p.first, q)
	return true
}

// First returns the examples and the core.
func (p *Plan) First() []Query { return slices.Clone(p.first) }

// Then takes the answers to First's queries and returns the rest of the
// plan: queries with cursors the deployment issued in filtered answers
// (each cursor recorded in the model, see Model.Issue, so that the oracle
// places it), then the seeded random tail, up to n queries in all.
// answers may be nil (no cursor is then taken from them).
func (p *Plan) Then(answers []PlanAnswer) []Query {
	if p.thenDone {
		return slices.Clone(p.then)
	}
	p.thenDone = true
	p.then = p.followUps(answers)
	p.then = append(p.then, p.g.tail(max(0, p.n-len(p.first)-len(p.then)))...)
	return slices.Clone(p.then)
}

// Coverage is what the plan's queries cover (Then's too, once called).
func (p *Plan) Coverage() Coverage {
	l := p.g.m.Listing
	all := append(slices.Clone(p.first), p.then...)
	c := Coverage{
		Listing: l, Queries: len(all), Sources: map[Source]int{}, Params: map[string]int{},
		Classes: map[string]map[Class]int{}, Covered: slices.Clone(p.covered), Uncovered: slices.Clone(p.uncovered),
	}
	n := len(l.Params())
	c.ParamCount, c.PairCount = n, n*(n-1)/2
	for _, name := range append(slices.Clone(l.Params()), NamesParam) {
		c.ClassCount += len(classesOf(l, name))
	}
	for _, q := range append(all, p.alias...) {
		if q.Source == SourceClass {
			for _, name := range q.Params {
				if c.Classes[name] == nil {
					c.Classes[name] = map[Class]int{}
				}
				c.Classes[name][q.Class]++
			}
		}
	}
	for _, q := range all {
		c.Sources[q.Source]++
		for _, k := range paramNames(q.Values) {
			c.Params[k]++
		}
	}
	if !p.thenDone && hasFilter(l) {
		after, before := p.g.cursorNames()
		for _, name := range []string{after, before} {
			c.Uncovered = append(c.Uncovered, Uncovered{Kind: UncoveredClass, What: name + ": " + string(ClassIssued),
				Reason: "not drawn: the answers to the first queries were not given"})
		}
	}
	return c
}

// paramNames are the parameters a query gives, in the spec's spelling,
// each once, sorted.
func paramNames(q url.Values) []string {
	var names []string
	for k := range q {
		if s, ok := snake[k]; ok {
			k = s
		}
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

// Generate draws n queries of the model's listing, deterministic from
// seed: a Plan's queries without answers (so without cursors from earlier
// answers).
func Generate(m *Model, seed int64, n int) []url.Values {
	p := NewPlan(m, seed, n, nil)
	var out []url.Values
	for _, q := range append(p.First(), p.Then(nil)...) {
		out = append(out, q.Values)
	}
	return out
}

// followUps draws queries with the cursors the deployment issued in
// filtered answers, after recording every cursor the answers issued: with
// the same filters, and without them each way. A cursor whose row the
// model cannot place is not used.
func (p *Plan) followUps(answers []PlanAnswer) []Query {
	g := p.g
	for _, a := range answers {
		if a.Page == nil || a.Page.Status != 200 {
			continue
		}
		for _, r := range a.Page.Rows {
			g.m.Issue(r.Cursor, r.Key)
		}
	}
	if !hasFilter(g.m.Listing) {
		return nil
	}
	after, before := g.cursorNames()
	first, last := g.countNames()
	type source struct {
		filters url.Values
		row     Row
	}
	var own, others []source
	for _, a := range answers {
		filters := filtersOf(g.m.Listing, a.Query)
		if a.Page == nil || a.Page.Status != 200 || len(filters) == 0 || g.m.Expect(a.Query).Level != Must {
			continue // only answers that filter as the spec says
		}
		for _, r := range a.Page.Rows {
			if ic, ok := g.m.issued[r.Cursor]; r.Cursor == "" || !g.held[r.Key] || ok && ic.ambiguous {
				continue
			}
			s := source{filters, r}
			// Cursors the deployment issued for a row in a filtered answer
			// that differ from the row's cursor in the unfiltered walk come
			// first: a cursor that encodes the filtered answer shows there.
			if g.cursorOfKey[r.Key] != r.Cursor {
				own = append(own, s)
			} else {
				others = append(others, s)
			}
		}
	}
	g.rng.Shuffle(len(own), func(i, j int) { own[i], own[j] = own[j], own[i] })
	g.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	srcs := append(own, others...)
	var out []Query
	for i := 0; len(out) < p.reserve && i < 3*len(srcs) && i < 6*p.reserve; i++ {
		s := srcs[i/3]
		k := strconv.Itoa(g.smallCount())
		var q url.Values
		name := after
		switch i % 3 {
		case 0: // the same filters, forwards from the cursor
			q = clone(s.filters)
			q.Set(first, k)
			q.Set(after, s.row.Cursor)
		case 1: // without the filters, forwards
			q = url.Values{first: {k}, after: {s.row.Cursor}}
		default: // without the filters, backwards
			q = url.Values{last: {k}, before: {s.row.Cursor}}
			name = before
		}
		if g.m.Listing == Games && i%3 > 0 {
			// Games without the filters still lie in an epoch window: the
			// one around the cursor's row, else the latest 30 epochs.
			from := satSub(s.row.Key.Num, uint64(g.rng.IntN(epochSpan)))
			q.Set("epochFrom", strconv.FormatUint(from, 10))
			q.Set("epochTo", strconv.FormatUint(from+epochSpan-1, 10))
		}
		if e := g.m.Expect(q); !e.Known || !g.mark(q) {
			continue
		}
		out = append(out, Query{Values: q, Source: SourceClass, Params: []string{name}, Class: ClassIssued})
	}
	covered := map[string]bool{}
	for _, q := range out {
		covered[q.Params[0]] = true
	}
	for _, name := range []string{after, before} {
		if !covered[name] {
			why := "no earlier filtered answer gave a cursor whose row the model holds"
			if p.reserve == 0 {
				why = p.beyond()
			} else if len(srcs) > 0 {
				why = "no query with a cursor from a filtered answer had an answer within the rows the model holds"
			}
			p.uncovered = append(p.uncovered, Uncovered{Kind: UncoveredClass, What: name + ": " + string(ClassIssued), Reason: why})
		}
	}
	return out
}

// filtersOf are the filters a query gives (those that select rows), in the
// spec's spelling.
func filtersOf(l Listing, q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		if s, ok := snake[k]; ok {
			k = s
		}
		if slices.Contains(filterParams(l), k) {
			out[k] = slices.Clone(v)
		}
	}
	return out
}

// tail draws n random queries: sets of one to four parameters, half of them
// grown from one of the listing's themes, each value drawn from what the
// model holds and at times in a spelling docs/behaviour.md accepts.
func (g *gen) tail(n int) []Query {
	var out []Query
	params := g.m.Listing.Params()
	themes := listingThemes[g.m.Listing]
	for tries := 0; len(out) < n && tries < 20*n; tries++ {
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
		if q, ok := g.make(nil, set...); ok {
			out = append(out, Query{Values: q, Source: SourceTail})
		}
	}
	return out
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
	seen map[string]bool
	// rows and both are the model's rows and its parties in two roles,
	// read once; pools the values of each filter; byCursor the place of
	// each held cursor in rows; held the held keys, and cursorOfKey each
	// one's cursor.
	rows        []Row
	both        []string
	pools       pools
	byCursor    map[string]int
	held        map[Key]bool
	cursorOfKey map[Key]string
	// forceCount gives every query made a count (see counted).
	forceCount bool
}

func newGen(m *Model, seed int64) *gen {
	g := &gen{m: m, rng: rand.New(rand.NewPCG(uint64(seed), uint64(m.Listing)+1)), seen: map[string]bool{}, rows: m.Rows(),
		byCursor: map[string]int{}, held: map[Key]bool{}, cursorOfKey: map[Key]string{}}
	g.both = bothRoles(g.rows)
	g.pools = newPools(g.rows)
	for i, r := range g.rows {
		g.byCursor[r.Cursor] = i
		g.held[r.Key] = true
		g.cursorOfKey[r.Key] = r.Cursor
	}
	return g
}

// enumValues are the values of the enumerated parameters.
var enumValues = map[string][]string{
	"entityScope": {ScopeUnspecified, ScopeIndividuals, ScopeTeams},
	pNewest:       {"true", "false"},
}

// mark records a query as asked; false when an equal one was.
func (g *gen) mark(q url.Values) bool {
	key := Canonical(q)
	if g.seen[key] {
		return false
	}
	g.seen[key] = true
	return true
}

// make makes one random query with the parameters given (some values
// fixed), unless an equal one was made.
func (g *gen) make(fixed url.Values, names ...string) (url.Values, bool) {
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
	return q, g.mark(q)
}

// anchor draws a held row: the ends of the listing, and of the head and
// tail around a gap, as often as anywhere between.
func (g *gen) anchor() *Row {
	rows := g.rows
	if len(rows) == 0 {
		return &Row{}
	}
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
	row := g.anchor
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
