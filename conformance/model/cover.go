package model

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// A query shows a defect in a parameter only where the parameter is
// load-bearing: the oracle's answer changes when it is dropped, or when its
// value is changed for another of its kind. The generator's core holds, for
// each parameter and each pair of parameters, a query in which each of them
// is load-bearing, found by drawing candidates from the held rows and
// keeping one the oracle proves load-bearing (bounded in tries); what
// cannot be made load-bearing with the model's data is reported with the
// reason.

// Tries bound the candidates drawn for each parameter, pair and class.
const (
	singleTries = 24
	pairTries   = 40
	classTries  = 12
)

// Coverage is what a listing's generated queries covered: each parameter
// and pair of parameters load-bearing, each value class drawn, and what
// stayed uncovered with the reason.
type Coverage struct {
	Listing Listing
	// Queries is how many queries were asked; Sources how many came from
	// each source.
	Queries int
	Sources map[Source]int
	// Params counts the queries each parameter appeared in (the spec's
	// spelling).
	Params map[string]int
	// Covered are the parameters and pairs some query made load-bearing,
	// each with the level of that query's answer.
	Covered []Covered
	// Classes counts the queries that drew each value class of each
	// parameter.
	Classes map[string]map[Class]int
	// ParamCount, PairCount and ClassCount are what there is to cover:
	// the listing's parameters, their pairs, and the value classes that
	// apply to them.
	ParamCount, PairCount, ClassCount int
	// Uncovered are the parameters, pairs and classes no query covered,
	// each with the reason.
	Uncovered []Uncovered
}

// Covered is a parameter or a pair made load-bearing.
type Covered struct {
	Params []string
	// Level is the level of the query's answer: a pair load-bearing only
	// where docs/behaviour.md decides is judged at SHOULD only.
	Level Level
	Query string
}

// The kinds of an Uncovered.
const (
	UncoveredParam = "parameter"
	UncoveredPair  = "pair"
	UncoveredClass = "class"
)

// Uncovered is a parameter, pair or class no query covered.
type Uncovered struct {
	// Kind is UncoveredParam, UncoveredPair or UncoveredClass; What names
	// it ("gameId", "gameId&partyId", "gameId: prefix").
	Kind, What string
	Reason     string
}

// count tallies the covered entries of a kind (one or two parameters),
// and how many of them only at SHOULD.
func (c Coverage) count(params int) (n, should int) {
	for _, x := range c.Covered {
		if len(x.Params) == params {
			n++
			if x.Level == Should {
				should++
			}
		}
	}
	return n, should
}

// ParamsCovered is how many parameters a query made load-bearing.
func (c Coverage) ParamsCovered() int { n, _ := c.count(1); return n }

// PairsCovered is how many pairs a query made load-bearing, and how many
// of them only where docs/behaviour.md decides.
func (c Coverage) PairsCovered() (n, should int) { return c.count(2) }

// ClassesCovered is how many (parameter, class) pairs some query drew.
func (c Coverage) ClassesCovered() int {
	n := 0
	for _, cs := range c.Classes {
		n += len(cs)
	}
	return n
}

// differs reports whether two answers the model knows differ in what a
// query can change: the status, the rows by key, the page flags.
func differs(a, b *Expected) bool {
	if !a.Known || !b.Known {
		return false
	}
	if a.Status != b.Status || a.HasNext != b.HasNext || a.HasPrev != b.HasPrev || len(a.Rows) != len(b.Rows) {
		return true
	}
	for i := range a.Rows {
		if a.Rows[i].Key != b.Rows[i].Key {
			return true
		}
	}
	return false
}

// Load-bearing, as bearing measures it.
const (
	notBearing     = 0
	bearsByChange  = 1
	bearsByDroping = 2
)

// bearing says whether a parameter of q is load-bearing: dropping it
// changes the answer e, or else changing its value for another of its
// kind does.
func (g *gen) bearing(q url.Values, e *Expected, name string) int {
	if differs(e, g.m.Expect(without(q, name))) {
		return bearsByDroping
	}
	for _, alt := range g.alternates(name, q[name]) {
		if differs(e, g.m.Expect(with(q, name, alt...))) {
			return bearsByChange
		}
	}
	return notBearing
}

// alternates are other values of a parameter's kind than vals: the next
// count, the neighbouring rows' cursors, the other boolean or scope, the
// epochs beside, other held values of a filter.
func (g *gen) alternates(name string, vals []string) [][]string {
	if len(vals) == 0 {
		return nil
	}
	v := vals[0]
	var out [][]string
	switch kindOf(name) {
	case kindCount:
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil
		}
		for _, c := range []int{n + 1, n - 1} {
			if c >= 1 && c <= g.m.mustCount {
				out = append(out, []string{strconv.Itoa(c)})
			}
		}
	case kindCursor:
		i, ok := g.byCursor[v]
		if !ok {
			return nil
		}
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(g.rows) {
				out = append(out, []string{g.rows[j].Cursor})
			}
		}
	case kindBool:
		out = append(out, []string{map[string]string{"true": "false", "false": "true"}[v]})
	case kindEnum:
		for _, s := range enumValues["entityScope"] {
			if s != v {
				out = append(out, []string{s})
			}
		}
	case kindEpoch:
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil
		}
		out = append(out, []string{strconv.FormatUint(n+1, 10)}, []string{strconv.FormatUint(satSub(n, 1), 10)})
	default:
		pool := g.pool(name)
		for range 2 {
			if len(pool) > 0 {
				if x := pool[g.rng.IntN(len(pool))]; x != v {
					out = append(out, append([]string{x}, vals[1:]...))
				}
			}
		}
	}
	return out
}

// candidate draws a query with the parameters named, each given a value a
// held row has (most of them from one row), and the context a query needs
// for its answer to be the spec's: a count, and now and then an epoch
// window or a cursor that keeps the answer within the held rows.
func (g *gen) candidate(names []string) url.Values {
	r := g.anchor()
	q := url.Values{}
	for _, name := range names {
		src := r
		if g.rng.IntN(3) == 0 {
			src = g.anchor()
		}
		if v := g.existing(name, src); len(v) > 0 {
			q[name] = v
		}
	}
	if q.Has("epochFrom") && q.Has("epochTo") && len(g.rows) > 0 {
		// A window narrow enough that the rows at both its ends show, around
		// a row anywhere (the listing's ends leave one end idle).
		e := g.rows[g.rng.IntN(len(g.rows))].Key.Num
		from := satSub(e, uint64(g.rng.IntN(4)))
		q.Set("epochFrom", strconv.FormatUint(from, 10))
		q.Set("epochTo", strconv.FormatUint(from+1+uint64(g.rng.IntN(5)), 10))
	}
	g.context(q, r)
	// Half the time a count the query is not about fits the rows the rest
	// selects, so that every row they select shows.
	first, _ := g.countNames()
	if q.Has(first) && !slices.Contains(names, first) && g.rng.IntN(2) == 0 {
		if fit := g.fitCount(q, first); fit > 0 {
			q.Set(first, strconv.Itoa(fit))
		}
	}
	return q
}

// existing draws a value a held row has for a parameter.
func (g *gen) existing(name string, r *Row) []string {
	switch kindOf(name) {
	case kindCount:
		return []string{strconv.Itoa(g.smallCount())}
	case kindCursor:
		return []string{r.Cursor}
	case kindBool:
		return []string{pick(g.rng, "false", "false", "true")}
	case kindEnum:
		return []string{pick(g.rng, enumValues["entityScope"]...)}
	case kindEpoch:
		// Within 14 epochs of the row's.
		e := r.Key.Num
		if name == "epochFrom" {
			return []string{strconv.FormatUint(satSub(e, uint64(g.rng.IntN(15))), 10)}
		}
		return []string{strconv.FormatUint(e+uint64(g.rng.IntN(15)), 10)}
	}
	v := g.rowValue(name, r)
	if v == "" {
		if pool := g.pool(name); len(pool) > 0 {
			v = pool[g.rng.IntN(len(pool))]
		}
	}
	if v == "" {
		return nil
	}
	out := []string{v}
	if kindOf(name) != kindID && g.rng.IntN(4) == 0 {
		if pool := g.pool(name); len(pool) > 1 {
			if x := pool[g.rng.IntN(len(pool))]; x != v {
				out = append(out, x)
			}
		}
	}
	return out
}

// context gives a query what its answer needs to be the spec's and the
// model's to tell: a count when it has none (backwards beside a backward
// cursor), for games now and then an epoch window around the row r, for
// transactions held only in part now and then a cursor that keeps the
// page within the held rows.
func (g *gen) context(q url.Values, r *Row) {
	first, last := g.countNames()
	after, before := g.cursorNames()
	both := q.Has(after) && q.Has(before)
	if !hasCount(q) && !(both && g.m.Listing == Transactions) {
		// (Transactions between two cursors are asked without a count: a
		// count with both is refused.)
		c := first
		if q.Has(before) && !q.Has(after) {
			c = last
		}
		q.Set(c, strconv.Itoa(g.smallCount()))
	}
	switch g.m.Listing {
	case Games:
		if !q.Has("epochFrom") && !q.Has("epochTo") && g.rng.IntN(2) == 0 {
			from := satSub(r.Key.Num, uint64(g.rng.IntN(epochSpan)))
			q.Set("epochFrom", strconv.FormatUint(from, 10))
			q.Set("epochTo", strconv.FormatUint(from+epochSpan-1, 10))
		}
	case Transactions:
		if g.m.whole || q.Has(after) || q.Has(before) || g.rng.IntN(2) == 0 {
			return
		}
		switch {
		case q.Has(first) && len(g.m.head) > 0:
			q.Set(after, g.m.head[g.rng.IntN(len(g.m.head))].Cursor)
		case q.Has(last) && len(g.rows) > 0:
			q.Set(before, g.rows[g.rng.IntN(len(g.rows))].Cursor)
		}
	}
}

// candidate is the best candidate a search kept.
type candidate struct {
	q     url.Values
	e     *Expected
	score int
}

// knownScore scores a candidate whose parameters are not load-bearing:
// its answer known, holding rows (so that a server that applies a
// parameter it should ignore shows), the spec's, not reaching the newest
// rows.
func knownScore(e *Expected) int {
	score := 0
	if len(e.Rows) > 0 {
		score += 4
	}
	if e.Level == Must {
		score += 2
	}
	if !e.Volatile {
		score++
	}
	return score
}

// searchStats are what a failed search saw, for its reason.
type searchStats struct {
	tries, unknown int
	// weak counts, for each parameter, the known candidates in which it
	// was not load-bearing; whys the oracle's reasons in those.
	weak map[string]int
	whys map[string]map[string]int
}

// cover searches for a query in which every parameter named is
// load-bearing: it keeps the best of up to tries candidates (each
// parameter load-bearing by being dropped rather than changed, the answer
// the spec's rather than behaviour.md's, not reaching the newest rows,
// each scores), and says why when none is; it then returns the best
// candidate whose answer is known (see knownScore), if any: where the
// oracle ignores a parameter beside another, a server that does not
// ignore it shows there.
func (g *gen) cover(names []string, tries int) (candidate, string) {
	best, known := candidate{score: -1}, candidate{score: -1}
	st := searchStats{weak: map[string]int{}, whys: map[string]map[string]int{}}
	maxScore := 4*len(names) + 3
	for st.tries < tries && best.score < maxScore {
		st.tries++
		q := g.candidate(names)
		if !hasAll(q, names) {
			continue
		}
		e := g.m.Expect(q)
		if !e.Known {
			// A page that reaches rows the model does not hold may not with
			// a count of one.
			if c := contextCount(q, names); c != "" {
				q.Set(c, "1")
				e = g.m.Expect(q)
			}
		}
		if !e.Known {
			st.unknown++
			continue
		}
		if ks := knownScore(e); ks > known.score {
			known = candidate{q: q, e: e, score: ks}
		}
		score, ok := 0, true
		for _, name := range names {
			b := g.bearing(q, e, name)
			if b == notBearing {
				ok = false
				st.weak[name]++
				if st.whys[name] == nil {
					st.whys[name] = map[string]int{}
				}
				for _, w := range e.Why {
					st.whys[name][w]++
				}
				break
			}
			score += 2 * b
		}
		if !ok {
			continue
		}
		if e.Level == Must {
			score += 2
		}
		if !e.Volatile {
			score++
		}
		if score > best.score {
			best = candidate{q: q, e: e, score: score}
		}
	}
	if best.q != nil {
		return best, ""
	}
	return known, g.whyNot(names, st)
}

// enumBeside searches for a query giving the enumerated parameter e the value
// v beside the parameter b: of up to classTries candidates, the best whose
// answer is known (see knownScore). Under some values b is ignored
// (teamId under ENTITY_SCOPE_INDIVIDUALS), and a server that applies it
// shows only in such a query.
func (g *gen) enumBeside(e, v, b string) url.Values {
	var best url.Values
	bestScore := -1
	for range classTries {
		q := g.candidate([]string{e, b})
		q.Set(e, v)
		if !q.Has(b) {
			continue
		}
		if ans := g.m.Expect(q); ans.Known && knownScore(ans) > bestScore {
			best, bestScore = q, knownScore(ans)
		}
	}
	return best
}

// contextCount is the count a query gives that is not among the
// parameters named, or "".
func contextCount(q url.Values, names []string) string {
	for _, c := range []string{pFirst, pLast, "first", "last"} {
		if q.Has(c) && !slices.Contains(names, c) {
			return c
		}
	}
	return ""
}

func hasAll(q url.Values, names []string) bool {
	for _, n := range names {
		if !q.Has(n) {
			return false
		}
	}
	return true
}

// whyNot says why no candidate made the parameters load-bearing.
func (g *gen) whyNot(names []string, st searchStats) string {
	if st.unknown == st.tries {
		return fmt.Sprintf("none of %d candidates drawn had an answer within the rows the model holds", st.tries)
	}
	gap := ""
	if st.unknown*2 > st.tries {
		gap = fmt.Sprintf(" (%d of them had answers beyond the rows the model holds)", st.unknown)
	}
	weak := names[0]
	for _, n := range names {
		if st.weak[n] > st.weak[weak] {
			weak = n
		}
	}
	beside := ""
	for _, n := range names {
		if n != weak {
			beside = " beside " + n
		}
	}
	short := strings.TrimPrefix(weak, "pagination.")
	// A reason of the oracle's that names the parameter and came in at
	// least half the candidates says it: the spec or behaviour.md ignores
	// it there.
	var why string
	top := 0
	for w, c := range st.whys[weak] {
		if strings.Contains(w, short) && (c > top || c == top && w < why) {
			why, top = w, c
		}
	}
	switch {
	case g.m.Listing == Parameters && weak == pNewest:
		return "network parameters are in key order whatever pagination.newestFirst says (docs/behaviour.md), so it cannot change the answer"
	case top*2 >= st.weak[weak] && why != "":
		return fmt.Sprintf("%s never changes the answer%s: %s", weak, beside, why)
	case slices.Contains(names, "gameId") && weak != "gameId" && g.uniqueGameIDs():
		return fmt.Sprintf("a gameId selects one game at most (every held game has an ID of its own), so %s cannot change the answer beside it", weak)
	}
	return fmt.Sprintf("in %d candidates drawn from the held rows%s, dropping or changing %s never changed the answer%s: the data held no such case", st.tries, gap, weak, beside)
}

// uniqueGameIDs reports whether every held game has an ID no other held
// game has.
func (g *gen) uniqueGameIDs() bool {
	return g.m.Listing == Games && len(g.pools.gameIDs) == len(g.rows)
}

// candidateClass draws a query giving parameter name a value of class c,
// and the query to contrast it with (the same with a held value, or
// without the parameter): the class shows in the answer when the two
// differ. why says why no such query could be drawn this time.
func (g *gen) candidateClass(name string, c Class) (q, contrast url.Values, why string) {
	r := g.anchor()
	q = url.Values{}
	switch kindOf(name) {
	case kindCount:
		return g.countClass(name, c, r)
	case kindCursor:
		return g.cursorClass(name, c, r)
	case kindBool:
		v := map[Class]string{ClassExisting: "false", ClassSpelling: "0", ClassCase: "FALSE", ClassEmpty: "", ClassNotName: "yes"}[c]
		q.Set(name, v)
		g.context(q, r)
		return q, without(q, name), ""
	case kindEnum:
		v := map[Class]string{ClassExisting: pick(g.rng, ScopeIndividuals, ScopeTeams, ScopeUnspecified),
			ClassCase: strings.ToLower(ScopeTeams), ClassNotName: "1", ClassEmpty: ""}[c]
		q.Set(name, v)
		g.context(q, r)
		return q, without(q, name), ""
	case kindEpoch:
		return g.epochClass(name, c, r)
	case kindNames:
		return g.nameClass(c, r)
	}
	return g.valueClass(name, c, r)
}

// countClass draws a count of class c.
func (g *gen) countClass(name string, c Class, r *Row) (q, contrast url.Values, why string) {
	first, _ := g.countNames()
	after, before := g.cursorNames()
	q = url.Values{}
	cursor := after
	if name != first {
		cursor = before
	}
	if c == ClassBeside {
		// One beside an exact fit: a cursor that leaves between 1 and the
		// largest decided count of rows beyond it, near the end the count
		// walks to (paged forwards, transactions backwards: the oldest).
		if len(g.rows) == 0 {
			return nil, nil, "the model holds no row"
		}
		i := g.rng.IntN(min(len(g.rows), 2*g.m.mustCount+1))
		if (cursor == after) == g.m.Listing.paged() {
			i = len(g.rows) - 1 - i
		}
		r = &g.rows[i]
		q.Set(cursor, r.Cursor)
		g.context(q, r)
		q.Set(name, strconv.Itoa(g.m.Limits.MaxPage))
		e := g.m.Expect(q)
		if !e.Known || e.Status != 200 || len(e.Rows) == 0 {
			return nil, nil, "no cursor drawn left a row beyond it within the rows the model holds"
		}
		if len(e.Rows) > g.m.mustCount {
			k := 1 + g.rng.IntN(g.m.mustCount)
			// The rows beyond the cursor, in the order the count takes them
			// from it: the page ends at the far end (paged forwards,
			// transactions backwards) or starts at it.
			if (cursor == after) == g.m.Listing.paged() {
				q.Set(cursor, e.Rows[len(e.Rows)-k-1].Cursor)
			} else {
				q.Set(cursor, e.Rows[k].Cursor)
			}
		}
		fit := g.fitCount(q, name)
		if fit == 0 {
			return nil, nil, "no cursor drawn left between 1 and the largest decided count of rows beyond it"
		}
		alt := fit + 1
		if g.rng.IntN(2) == 0 && fit > 1 {
			alt = fit - 1
		}
		q.Set(name, strconv.Itoa(alt))
		return q, with(q, name, strconv.Itoa(fit)), ""
	}
	if g.rng.IntN(2) == 0 && r.Cursor != "" {
		q.Set(cursor, r.Cursor)
	}
	v := map[Class]string{
		ClassZero: "0", ClassOne: "1", ClassDecided: strconv.Itoa(g.m.mustCount),
		ClassMaxPage: strconv.Itoa(g.m.Limits.MaxPage), ClassAboveMax: strconv.Itoa(g.m.Limits.MaxPage + 1),
		ClassNegative: "-1", ClassOver32: beyondInt32, ClassOver64: beyondInt64, ClassOverU64: beyondUint64,
		ClassEmpty: "", ClassNotNumber: "ten",
	}[c]
	q.Set(name, v)
	g.context(q, r)
	alt := "1"
	if v == "1" {
		alt = "2"
	}
	return q, with(q, name, alt), ""
}

// fitCount is the number of rows the query's other parameters select
// when it is between 1 and the largest count the spec decides, else 0.
func (g *gen) fitCount(q url.Values, name string) int {
	e := g.m.Expect(with(q, name, strconv.Itoa(g.m.Limits.MaxPage)))
	if !e.Known || e.Status != 200 || len(e.Rows) == 0 || len(e.Rows) > g.m.mustCount {
		return 0
	}
	return len(e.Rows)
}

// cursorClass draws a cursor of class c.
func (g *gen) cursorClass(name string, c Class, r *Row) (q, contrast url.Values, why string) {
	first, last := g.countNames()
	after, _ := g.cursorNames()
	q = url.Values{}
	count := first
	if name != after {
		count = last
	}
	q.Set(count, strconv.Itoa(g.smallCount()))
	var v string
	switch c {
	case ClassExisting:
		v = r.Cursor
	case ClassBeside, ClassAbsent:
		if !g.m.cursorForm() {
			return nil, nil, "the deployment's cursors are not in docs/behaviour.md's form, so the model cannot write one of a row it does not hold"
		}
		var k Key
		var ok bool
		if c == ClassAbsent {
			k, ok = g.absentKey()
		} else {
			k, ok = g.besideKey(r.Key)
		}
		if !ok {
			return nil, nil, "every key tried beside a held row was held"
		}
		v = g.cursorOf(k)
	case ClassEmpty:
		v = ""
	case ClassMalformed:
		v = "not-a-cursor!"
	case ClassIssued:
		return nil, nil, "no earlier filtered answer gave a cursor whose row the model can place"
	}
	q.Set(name, v)
	g.context(q, r)
	if c == ClassExisting || c == ClassAbsent {
		return q, without(q, name), ""
	}
	return q, with(q, name, r.Cursor), ""
}

// besideKey is a key one step from k that no held row has: a block or
// epoch ±1, an ID or key with one character changed, the next index in a
// block.
func (g *gen) besideKey(k Key) (Key, bool) {
	var b Key
	switch {
	case g.m.Listing == Transactions:
		b = Key{Num: k.Num, Sub: k.Sub + 1 + uint64(g.rng.IntN(2))*1000}
	case k.Str != "" && (k.Num == 0 || g.rng.IntN(2) == 0):
		b = Key{Num: k.Num, Str: oneChanged(k.Str)}
	case g.rng.IntN(2) == 0:
		b = Key{Num: k.Num + 1, Str: k.Str}
	default:
		b = Key{Num: satSub(k.Num, 1), Str: k.Str}
	}
	return b, !g.held[b]
}

// absentKey is a key beyond one end of the held rows.
func (g *gen) absentKey() (Key, bool) {
	if len(g.rows) == 0 {
		return Key{}, false
	}
	newest, oldest := g.rows[0].Key, g.rows[len(g.rows)-1].Key
	var k Key
	switch {
	case g.m.Listing == Parameters:
		k = Key{Str: oldest.Str + "~"} // after the last key in key order
	case g.rng.IntN(2) == 0 || oldest.Num == 0:
		k = Key{Num: newest.Num + 1, Str: newest.Str}
	default:
		k = Key{Num: oldest.Num - 1, Str: oldest.Str}
	}
	return k, !g.held[k]
}

// cursorOf writes a key as a cursor in docs/behaviour.md's form.
func (g *gen) cursorOf(k Key) string {
	if g.m.Listing == Transactions {
		return fmt.Sprintf("%d.%d", k.Num, k.Sub)
	}
	return encodePagedCursor(g.m.Listing, k)
}

// epochClass draws an epoch of class c.
func (g *gen) epochClass(name string, c Class, r *Row) (q, contrast url.Values, why string) {
	q = url.Values{}
	e := r.Key.Num
	ep := func(n uint64) string { return strconv.FormatUint(n, 10) }
	if d, ok := map[Class]uint64{ClassWindow29: 29, ClassWindow30: 30, ClassWindow31: 31}[c]; ok {
		from := satSub(e, uint64(g.rng.IntN(int(d))))
		q.Set("epochFrom", ep(from))
		q.Set("epochTo", ep(from+d))
		g.context(q, r)
		return q, with(q, "epochTo", ep(from+d-1)), ""
	}
	v := map[Class]string{
		ClassExisting: ep(e), ClassBeside: ep(pick(g.rng, e+1, satSub(e, 1))), ClassZero: "0", ClassOne: "1",
		ClassLatest: ep(g.m.latest), ClassBeyond: ep(g.m.latest + 1), ClassNegative: "-1", ClassOverU64: beyondUint64,
		ClassEmpty: "", ClassNotNumber: "ten",
	}[c]
	q.Set(name, v)
	g.context(q, r)
	if c == ClassBeside {
		return q, with(q, name, ep(e)), ""
	}
	return q, without(q, name), ""
}

// nameClass draws a parameter name of class c: a name no listing reads,
// one misspelt, one in another case, each given a value that would
// change the answer if it were read as the name meant.
func (g *gen) nameClass(c Class, r *Row) (q, contrast url.Values, why string) {
	i := map[Class]int{ClassUnknownName: 0, ClassMisspelt: 1, ClassNameCase: 2}[c]
	bad, meant := misspelt[g.m.Listing][i][0], misspelt[g.m.Listing][i][1]
	var v []string
	switch kindOf(meant) {
	case kindCount:
		v = []string{strconv.Itoa(g.smallCount())}
	case kindBool:
		v = []string{"false"}
	default:
		v = g.existing(meant, r)
	}
	if len(v) == 0 {
		return nil, nil, "the held rows give no value for " + meant
	}
	q = url.Values{bad: v}
	if kindOf(meant) != kindCount {
		g.context(q, r)
	}
	contrast = without(q, bad)
	contrast[meant] = v
	return q, contrast, ""
}

// valueClass draws a value of class c for an ID, a command type or a
// party list.
func (g *gen) valueClass(name string, c Class, r *Row) (q, contrast url.Values, why string) {
	q = url.Values{}
	src := g.rowValue(name, r)
	for i := 0; src == "" && i < 16 && len(g.rows) > 0; i++ {
		// Not every row gives every filter a value (a game without teams).
		r = &g.rows[g.rng.IntN(len(g.rows))]
		src = g.rowValue(name, r)
	}
	if src == "" {
		return nil, nil, "no row drawn gives a value of " + name
	}
	pool := g.pool(name)
	var v []string
	switch c {
	case ClassExisting:
		v = []string{src}
	case ClassAbsent:
		if kindOf(name) == kindType {
			v = []string{"No Such Type"}
		} else {
			v = []string{absentLike(src, pool)}
		}
	case ClassUncarried:
		for _, t := range classCommandTypes {
			if !g.pools.carried[t] {
				v = []string{t}
				break
			}
		}
		if v == nil {
			return nil, nil, "every valid command type the model can name is carried by a held row"
		}
	case ClassBeside:
		v = []string{oneChanged(src)}
	case ClassPrefix, ClassSuffix:
		if len(src) < 2 {
			return nil, nil, "a value of one character has no proper prefix or suffix"
		}
		v = []string{src[:len(src)/2]}
		if c == ClassSuffix {
			v = []string{src[len(src)/2:]}
		}
	case ClassCase:
		o := otherCase(src)
		if o == "" {
			return nil, nil, "the value drawn has no letter"
		}
		v = []string{o}
	case ClassEmpty:
		v = []string{""}
	case ClassTwo, ClassSeveral, ClassMost:
		n := map[Class]int{ClassTwo: 2, ClassSeveral: 3, ClassMost: maxMostValues}[c]
		if c == ClassMost && kindOf(name) == kindType {
			n = len(pool)
		}
		if len(pool) < min(n, 3) || len(pool) < 2 {
			return nil, nil, fmt.Sprintf("the held rows give %d values of %s", len(pool), name)
		}
		v = g.distinct(pool, src, n)
	}
	if slices.Contains(pool, v[0]) && c != ClassExisting && c != ClassTwo && c != ClassSeveral && c != ClassMost {
		return nil, nil, "the value made is held"
	}
	q[name] = v
	g.context(q, r)
	switch c {
	case ClassExisting, ClassUncarried:
		return q, without(q, name), ""
	case ClassTwo, ClassSeveral, ClassMost:
		return q, with(q, name, v[:len(v)-1]...), ""
	}
	return q, with(q, name, src), ""
}

// distinct draws n values of pool (all when it has fewer), src last: the
// value a row drawn has, so that dropping the last value changes the
// answer most often.
func (g *gen) distinct(pool []string, src string, n int) []string {
	var out []string
	for _, i := range g.rng.Perm(len(pool)) {
		if len(out) >= n-1 {
			break
		}
		if pool[i] != src {
			out = append(out, pool[i])
		}
	}
	return append(out, src)
}

// drawClass searches for a query of class c for parameter name: of up to
// classTries candidates it keeps the one whose answer the model knows,
// differs from the contrast's, is the spec's to decide and does not reach
// the newest rows, in that order of weight. It returns false with the
// reason when no candidate could be drawn.
func (g *gen) drawClass(name string, c Class) (url.Values, string) {
	var best url.Values
	bestScore, why := -1, ""
	for range classTries {
		q, contrast, w := g.candidateClass(name, c)
		if q == nil {
			why = w
			continue
		}
		e := g.m.Expect(q)
		score := 0
		if e.Known {
			score += 8
			if differs(e, g.m.Expect(contrast)) {
				score += 4
			}
			if e.Level == Must {
				score += 2
			}
			if !e.Volatile {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = q, score
		}
		if score == 15 {
			break
		}
	}
	if best == nil {
		if why == "" {
			why = "no candidate could be drawn from the held rows"
		}
		return nil, why
	}
	return best, ""
}
