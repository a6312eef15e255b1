package model

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Tri is a page flag the model may not know: it can lie in rows the model
// does not hold.
type Tri int

// The values of a Tri.
const (
	Unknown Tri = iota
	False
	True
)

func tri(b bool) Tri {
	if b {
		return True
	}
	return False
}

func (t Tri) String() string {
	switch t {
	case True:
		return "true"
	case False:
		return "false"
	}
	return "unknown"
}

// Expected is what the oracle makes of a query.
type Expected struct {
	// Status is 200, or 400 for a query the deployment should refuse.
	Status int
	// Level is Must when the spec decides every part of the answer, Should
	// when docs/behaviour.md decides some (Why says which).
	Level Level
	Why   []string
	// Known is set when the rows are known: the answer lies within what the
	// model holds.
	Known bool
	Rows  []Row
	// HasNext and HasPrev are the page flags (paged listings).
	HasNext, HasPrev Tri
	// Volatile is set when the answer reaches the newest rows: on a chain
	// that grew since the model was built it changes, rightly.
	Volatile bool
	// Asc is set when the rows are oldest first (newestFirst=false).
	Asc bool
	// LooseTies is set when the page holds rows that share their primary
	// key whose order the deployment's walks did not show: they are
	// compared as a set.
	LooseTies bool
	// resolve, when set, gives the expectation for the rows an answer
	// gave: where a filtered query placed its cursor among the rows that
	// share the cursor row's primary key is the query's own order, which
	// the answer shows (see expectPaged). The fields above are then the
	// expectation of an answer that places none of them beside it.
	resolve func(got []Row) *Expected
}

// For returns the expectation for an answer that gave got: e itself,
// unless which of the rows the answer holds depends on an order only the
// answer shows (resolve).
func (e *Expected) For(got *Page) *Expected {
	if e.resolve == nil || got == nil || got.Status != 200 {
		return e
	}
	return e.resolve(got.Rows)
}

func (e *Expected) should(why string) {
	e.Level = Should
	if !slices.Contains(e.Why, why) {
		e.Why = append(e.Why, why)
	}
}

func (e *Expected) refuse(why string, level Level) *Expected {
	e.Status, e.Known, e.Rows = 400, true, nil
	e.HasNext, e.HasPrev = Unknown, Unknown
	if level == Should {
		e.should(why)
	} else {
		e.Why = append(e.Why, why)
	}
	return e
}

// Expect is the oracle: what the spec (and docs/behaviour.md where the spec
// is silent) makes of query q over the model.
func (m *Model) Expect(q url.Values) *Expected {
	p := readParams(m.Listing, q)
	e := &Expected{Status: 200}
	for _, w := range p.should {
		e.should(w)
	}
	if m.Listing == Transactions {
		return m.expectTransactions(p, e)
	}
	return m.expectPaged(p, e)
}

// pagedReq is a paged listing's pagination, read.
type pagedReq struct {
	first, last         int
	hasFirst, hasLast   bool
	after, before       Key
	hasAfter, hasBefore bool
	asc                 bool
}

// mustCount is the largest count whose answer the spec decides unless
// WithMustCount says otherwise: the maximum page size is not shown, and a
// deployment may cap counts above it.
const mustCount = 100

func (m *Model) readPagination(p params, e *Expected) (pagedReq, bool) {
	var r pagedReq
	for _, c := range []struct {
		name string
		n    *int
		set  *bool
	}{{pFirst, &r.first, &r.hasFirst}, {pLast, &r.last, &r.hasLast}} {
		v, ok := p.get(c.name)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 32)
		switch {
		case err != nil:
			e.refuse(c.name+" that does not parse as int32", Should)
			return r, false
		case n <= 0 || int(n) > m.Limits.MaxPage:
			e.refuse(fmt.Sprintf("%s outside 1..%d", c.name, m.Limits.MaxPage), Should)
			return r, false
		case int(n) > m.mustCount:
			e.should(fmt.Sprintf("a count above %d (the maximum page size is not shown)", m.mustCount))
		}
		*c.n, *c.set = int(n), true
	}
	if v, ok := p.get(pNewest); ok {
		switch v {
		case "true", "false":
		case "1", "0":
			e.should("a boolean spelt " + v)
		default:
			e.refuse("a newestFirst that is not a boolean", Should)
			return r, false
		}
		r.asc = v == "false" || v == "0"
	}
	if p.has(pAfter) && p.has(pBefore) {
		e.refuse("after together with before", Should)
		return r, false
	}
	for _, c := range []struct {
		name string
		k    *Key
		set  *bool
	}{{pAfter, &r.after, &r.hasAfter}, {pBefore, &r.before, &r.hasBefore}} {
		v, ok := p.get(c.name)
		if !ok {
			continue
		}
		k, why, known := m.placeCursor(v)
		if !known {
			if _, issued := m.issued[v]; malformedCursor(v) && !issued {
				e.refuse(c.name+" that no listing could have issued", Should)
				return r, false
			}
			e.Known = false
			return r, false
		}
		if why != "" {
			e.should(why)
		}
		*c.k, *c.set = k, true
	}
	switch {
	case r.hasFirst && r.hasLast:
		e.should("first with last (first wins)")
	case r.hasFirst && r.hasBefore:
		e.should("first with before (before is ignored)")
	case r.hasLast && r.hasAfter:
		e.should("last with after (after is ignored)")
	case !r.hasFirst && !r.hasLast:
		e.should("no count (the default page size)")
	}
	return r, true
}

// malformedCursor reports whether a cursor is not even the base64 a
// paged listing's cursors are (docs/behaviour.md).
func malformedCursor(c string) bool {
	if c == "" {
		return true
	}
	for _, r := range c {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=') {
			return true
		}
	}
	return len(c)%4 != 0
}

func (m *Model) expectPaged(p params, e *Expected) *Expected {
	r, ok := m.readPagination(p, e)
	if !ok {
		return e
	}
	keep, ok := m.filter(p, e)
	if !ok || !m.knows(r.asc) {
		return e
	}
	seq := m.sequence(keep, r.asc)
	if !m.tiesPerQuery || !m.narrowed(p) {
		return m.page(seq, r, e, -1)
	}
	return m.expectTies(seq, r, e)
}

// page fills e with the page of seq that r asks for. at, when not
// negative, is the place of seq where the query's cursor lies (the rows
// after it start there, the rows before it end there); otherwise the
// cursor is placed by the model's own sequence.
func (m *Model) page(seq []item, r pagedReq, e *Expected, at int) *Expected {
	e.Asc = r.asc
	// pos returns the first place of seq at or after k (strict: after k),
	// in the order the deployment's walks showed.
	pos := func(k Key, strict bool) (int, bool) {
		if at >= 0 {
			return at, true
		}
		cut, ok := m.cut(k, r.asc, strict)
		if !ok {
			return 0, false
		}
		i, _ := slices.BinarySearchFunc(seq, cut, func(it item, p int) int { return it.place - p })
		return i, true
	}
	var ok bool
	start, end := 0, len(seq)
	switch {
	case r.hasFirst || !r.hasLast && !r.hasBefore:
		if r.hasAfter {
			if start, ok = pos(r.after, true); !ok {
				return e
			}
		}
		n := m.Limits.DefaultPage
		if r.hasFirst {
			n = r.first
		}
		if end, ok = take(seq, start, n, 1); !ok {
			return e
		}
	default:
		if r.hasBefore {
			if end, ok = pos(r.before, false); !ok {
				return e
			}
		}
		n := m.Limits.DefaultPage
		if r.hasLast {
			n = r.last
		}
		if start, ok = take(seq, end, n, -1); !ok {
			return e
		}
		start, end = min(start, end), max(start, end)
	}
	if cutsLooseTies(seq, start) || cutsLooseTies(seq, end) {
		return e // which of the rows that share a key are on the page is not known
	}
	e.Known = true
	for _, it := range seq[start:end] {
		e.Rows = append(e.Rows, *it.row)
		e.LooseTies = e.LooseTies || it.loose
	}
	e.HasNext, e.HasPrev = flagAfter(seq[end:]), flagAfter(reverse(seq[:start]))
	// New rows arrive at the newest end (for games: in epochs from the
	// latest on, which the window decides).
	switch {
	case m.Listing == Games:
	case r.asc:
		e.Volatile = end == len(seq)
	default:
		e.Volatile = start == 0
	}
	return e
}

// cutsLooseTies reports whether a page edge at place i of seq falls among
// rows that share their primary key in an order not learned.
func cutsLooseTies(seq []item, i int) bool {
	if i <= 0 || i >= len(seq) {
		return false
	}
	a, b := seq[i-1], seq[i]
	return !a.gap && !b.gap && (a.loose || b.loose) && a.row.Key.Num == b.row.Key.Num
}

// take counts n rows from place i of seq, forwards (dir 1: the end place)
// or backwards (dir -1: the start place), and fails when the gap lies in
// the way.
func take(seq []item, i, n, dir int) (int, bool) {
	if dir > 0 {
		j := i
		for ; j < len(seq) && j-i < n; j++ {
			if seq[j].gap {
				return 0, false
			}
		}
		return j, true
	}
	j := i
	for ; j > 0 && i-j < n; j-- {
		if seq[j-1].gap {
			return 0, false
		}
	}
	return j, true
}

// flagAfter says whether a row lies in rest: true when one does, false
// when rest is empty, unknown when only the gap (which may hold none) does.
func flagAfter(rest []item) Tri {
	for _, it := range rest {
		if !it.gap {
			return True
		}
	}
	if len(rest) > 0 {
		return Unknown
	}
	return False
}

func reverse(s []item) []item {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// The entity scopes of the games listing.
const (
	ScopeUnspecified = "ENTITY_SCOPE_UNSPECIFIED"
	ScopeIndividuals = "ENTITY_SCOPE_INDIVIDUALS"
	ScopeTeams       = "ENTITY_SCOPE_TEAMS"
)

// epochSpan is the number of epochs a games window spans at most.
const epochSpan = 30

// filter reads a paged listing's filters into a predicate over rows.
func (m *Model) filter(p params, e *Expected) (func(*Row) bool, bool) {
	switch m.Listing {
	case Rotations:
		node, ok := p.get("nodeId")
		return func(r *Row) bool { return !ok || r.Key.Str == node }, true
	case Games:
		return m.gamesFilter(p, e)
	}
	return func(*Row) bool { return true }, true
}

func (m *Model) gamesFilter(p params, e *Expected) (func(*Row) bool, bool) {
	var epochs [2]uint64
	var given [2]bool
	for i, name := range []string{"epochFrom", "epochTo"} {
		v, ok := p.get(name)
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			e.refuse(name+" that is not a uint64", Should)
			return nil, false
		}
		epochs[i], given[i] = n, true
	}
	from, to := window(epochs[0], epochs[1], given[0], given[1], m.latest)
	if given[0] && given[1] && epochs[0] > epochs[1] {
		e.should("epochFrom above epochTo")
	}
	if !given[1] || to >= m.latest {
		e.Volatile = true
	}
	scope := ScopeUnspecified
	if v, ok := p.get("entityScope"); ok {
		if v != ScopeUnspecified && v != ScopeIndividuals && v != ScopeTeams {
			e.refuse("an entityScope that is not an EntityScope name", Should)
			return nil, false
		}
		scope = v
	}
	if from <= m.latest && !m.holdsEpochs(from, min(to, m.latest)) {
		return nil, false
	}
	gameID, hasGame := p.get("gameId")
	teamID, hasTeam := p.get("teamId")
	partyID, hasParty := p.get("partyId")
	return func(r *Row) bool {
		switch {
		case r.Key.Num < from || r.Key.Num > to:
			return false
		case hasGame && r.Key.Str != gameID:
			return false
		case scope == ScopeIndividuals && !r.Individual, scope == ScopeTeams && !r.Team:
			return false
		case hasTeam && scope != ScopeIndividuals && !slices.Contains(r.Teams, teamID):
			return false
		case hasParty && !slices.Contains(r.Players, partyID) && !(r.Team && slices.Contains(r.Members, partyID)):
			return false
		}
		return true
	}, true
}

// window is the epoch window of a games query (spec §8): from and to as
// given (set when given) and the latest epoch.
func window(from, to uint64, hasFrom, hasTo bool, latest uint64) (uint64, uint64) {
	const span = epochSpan - 1
	if !hasTo {
		to = latest // rule 1
		if hasFrom {
			to = satAdd(from, span) // rule 3
		}
	}
	if !hasFrom || from > to || to-from > span {
		from = satSub(to, span) // rules 2 and 4, and from > to (behaviour.md)
	}
	return from, to
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func satSub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// expectTransactions is the oracle of the transaction listing.
func (m *Model) expectTransactions(p params, e *Expected) *Expected {
	var counts [2]int64
	var hasCount [2]bool
	for i, name := range []string{"first", "last"} {
		v, ok := p.get(name)
		if !ok {
			continue
		}
		if v == "" {
			e.should("an empty " + name + " (read as 0: not given)")
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			return e.refuse(name+" that does not parse as int64", Should)
		case n < 0:
			return e.refuse("a negative "+name, Should)
		case n > int64(m.Limits.MaxPage):
			return e.refuse(fmt.Sprintf("%s above %d", name, m.Limits.MaxPage), Should)
		case n == 0:
			e.should(name + "=0 (read as not given)")
			continue
		case n > int64(m.mustCount):
			e.should(fmt.Sprintf("a count above %d (the maximum page size is not shown)", m.mustCount))
		}
		counts[i], hasCount[i] = n, true
	}
	first, last := hasCount[0], hasCount[1]
	afterRaw, hasAfter := m.txCursorParam(p, "after", e)
	beforeRaw, hasBefore := m.txCursorParam(p, "before", e)
	switch {
	case (first || last) && hasAfter && hasBefore:
		return e.refuse("a count with both cursors", Should)
	case first && last:
		return e.refuse("first with last", Should)
	}
	var after, before Key
	var err error
	if hasAfter {
		if after, err = m.placeTx(afterRaw, e); err != nil {
			return e.refuse("a malformed cursor", Should)
		}
	}
	if hasBefore {
		if before, err = m.placeTx(beforeRaw, e); err != nil {
			return e.refuse("a malformed cursor", Should)
		}
	}
	switch {
	case hasAfter && hasBefore && newer(after, before) <= 0:
		return e.refuse("after not older than before", Should)
	case first && hasBefore:
		return e.refuse("first with before (the spec: cannot be combined)", Must)
	case last && hasAfter:
		return e.refuse("last with after (the spec: cannot be combined)", Must)
	}
	if (p.has("cmdTypes") || p.has("excludeCmdTypes")) && !m.hasType || p.has("parties") && !m.hasSubmitter {
		// The records do not carry what the filter reads: the spec does
		// not show it, and the model cannot tell which match.
		return e
	}
	keep := txFilter(p)
	seq := m.sequence(keep, false)
	lo, hi := 0, len(seq)
	ok := true
	// pos is the place of seq of the first transaction older than k (or,
	// not strict, k itself).
	pos := func(k Key, strict bool) (int, bool) {
		cut, ok := m.cut(k, false, strict)
		if !ok {
			return 0, false
		}
		i, _ := slices.BinarySearchFunc(seq, cut, func(it item, p int) int { return it.place - p })
		return i, true
	}
	if hasAfter {
		if hi, ok = pos(after, false); !ok {
			return e
		}
	}
	if hasBefore {
		if lo, ok = pos(before, true); !ok {
			return e
		}
	}
	if lo > hi {
		// Cursors of rows not held that the model places at one gap's
		// edge: where each lies in it is not known.
		return e
	}
	var start, end int
	switch {
	case first && hasAfter:
		end = hi
		start, ok = take(seq, hi, int(counts[0]), -1)
	case first:
		end, ok = take(seq, 0, int(counts[0]), 1)
	case last && hasBefore:
		start = lo
		end, ok = take(seq, lo, int(counts[1]), 1)
	case last:
		end = len(seq)
		start, ok = take(seq, end, int(counts[1]), -1)
	case hasAfter && hasBefore:
		e.should("both cursors without a count (every row between them)")
		start, end = lo, hi
		if hi-lo > m.Limits.MaxPage {
			return e
		}
		_, ok = take(seq, lo, hi-lo, 1)
	case hasAfter:
		e.should("a cursor without a count (the default page size)")
		end = hi
		start, ok = take(seq, hi, m.Limits.TxDefault, -1)
	case hasBefore:
		e.should("a cursor without a count (the default page size)")
		start = lo
		end, ok = take(seq, lo, m.Limits.TxDefault, 1)
	default:
		e.should("no count (the default page size)")
		end, ok = take(seq, 0, m.Limits.TxDefault, 1)
	}
	if !ok || cutsLooseTies(seq, start) || cutsLooseTies(seq, end) {
		return e
	}
	e.Known = true
	for _, it := range seq[start:end] {
		e.Rows = append(e.Rows, *it.row)
		e.LooseTies = e.LooseTies || it.loose
	}
	e.Volatile = start == 0
	return e
}

// txCursor reads a transaction cursor, "<block>.<index>".
func txCursor(c string) (Key, error) {
	b, i, ok := strings.Cut(c, ".")
	if !ok {
		return Key{}, fmt.Errorf("cursor %q is not <block>.<index>", c)
	}
	block, err := strconv.ParseUint(b, 10, 64)
	if err != nil {
		return Key{}, fmt.Errorf("cursor %q: block: %w", c, err)
	}
	index, err := strconv.ParseUint(i, 10, 64)
	if err != nil {
		return Key{}, fmt.Errorf("cursor %q: index: %w", c, err)
	}
	return Key{Num: block, Sub: index}, nil
}

// txFilter reads the transaction filters into a predicate.
func txFilter(p params) func(*Row) bool {
	types, hasTypes := p.v["cmdTypes"]
	excluded := p.v["excludeCmdTypes"]
	parties, hasParties := p.v["parties"]
	return func(r *Row) bool {
		if hasTypes && !slices.Contains(types, r.Type) || slices.Contains(excluded, r.Type) {
			return false
		}
		if hasParties && !slices.Contains(parties, r.Submitter) && !slices.ContainsFunc(r.Receivers, func(x string) bool { return slices.Contains(parties, x) }) {
			return false
		}
		return true
	}
}
