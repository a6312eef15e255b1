package model

import (
	"slices"
)

// Limits are the deployment's page sizes, which the spec does not show
// (docs/behaviour.md gives the mock's defaults).
type Limits struct {
	// DefaultPage is the page size of a paged listing asked without a
	// count; MaxPage the largest count accepted.
	DefaultPage, MaxPage int
	// TxDefault is the number of transactions answered without a count.
	TxDefault int
}

// DefaultLimits are docs/behaviour.md's.
var DefaultLimits = Limits{DefaultPage: 1000, MaxPage: 5000, TxDefault: 50}

// Span is an inclusive range of epochs.
type Span struct{ From, To uint64 }

// Model is what the deployment holds of one listing, read from its own
// answers and pinned: rows newer than the newest row it holds are not
// part of it.
type Model struct {
	Listing Listing
	Limits  Limits
	// head holds the rows from the newest, in listing order (newest
	// first); windows runs of rows deep inside the listing, newest first;
	// tail the oldest rows. A gap of unknown rows lies between each two of
	// them, unless whole is set (head is then the whole listing).
	head, tail []Row
	windows    [][]Row
	whole      bool
	// Games: the latest epoch when the model was built, the epochs held
	// (every game of each), and those of them held from epoch windows
	// rather than the unfiltered listing (derived).
	latest  uint64
	spans   []Span
	derived []Span
	// cursors finds a held row by its cursor; issued, the rows of cursors
	// the deployment issued in other answers (see Issue).
	cursors map[string]Key
	issued  map[string]issuedCursor
	// mustCount is the largest count whose answer the spec decides (see
	// Options.PageSize).
	mustCount int
	// Transactions: whether the records carry the fields the filters
	// read, which the spec does not show (type, submitter).
	hasType, hasSubmitter bool
	// seqs are the held rows in each direction (newestFirst, oldestFirst),
	// with the gaps, in the order the deployment's own walks gave them;
	// places finds a held row's item in each by key.
	seqs   [2][]item
	places [2]map[Key]int
	// tiesPerQuery is set on a model built from a deployment's walks: the
	// order its unfiltered walks showed rows that share their primary key
	// in binds the unfiltered listing only, as the spec fixes that order
	// for no query (a filter or an epoch window may give ties in another).
	// A model made by New orders them as given in every query.
	tiesPerQuery bool
	// ascKnown is set when the order oldest first is known (seqs holds
	// it, empty for an empty listing).
	ascKnown bool
}

// The directions of a listing's order.
const (
	newestFirst = 0
	oldestFirst = 1
)

// item is one place of a listing's sequence in one direction: a row, or
// the gap of rows the model does not hold between two runs of rows.
type item struct {
	row *Row
	gap bool
	// place is the item's index in the direction's whole sequence; loose
	// is set on a row that shares its primary key with a neighbour and
	// whose order among those rows no walk in that direction showed.
	place int
	loose bool
}

// ranks are the orders the deployment's walks showed: each row's place in
// the walk that read it, by direction. A row without a rank in a
// direction is loose there.
type ranks [2]map[Key]int

// New makes a model of a listing from its rows in listing order (newest
// first): head from the newest, tail (nil when whole) the oldest. The
// order given is the listing's, and oldest first its exact reverse
// (network parameters: the same order, as docs/behaviour.md says). For
// games, spans are the epochs whose games are all in head and latest the
// latest epoch.
func New(l Listing, lim Limits, head, tail []Row, whole bool) *Model {
	m := &Model{Listing: l, Limits: lim, head: head, tail: tail, whole: whole, mustCount: mustCount}
	if whole {
		m.tail = nil
	}
	var r ranks
	all := m.Rows()
	r[newestFirst], r[oldestFirst] = map[Key]int{}, map[Key]int{}
	for i, row := range all {
		r[newestFirst][row.Key] = i
		r[oldestFirst][row.Key] = len(all) - i
		if l == Parameters {
			r[oldestFirst][row.Key] = i
		}
	}
	m.index(r)
	return m
}

// NewGames makes the model of the games listing: rows holds every game of
// the epochs in spans, newest first; latest is the latest epoch.
func NewGames(lim Limits, rows []Row, spans []Span, latest uint64) *Model {
	m := New(Games, lim, rows, nil, true)
	m.spans, m.latest = mergeSpans(spans), latest
	return m
}

// index finds the held rows' cursors and the fields they carry, and lays
// out their sequence in each direction: newest first the runs of rows in
// order, gaps between; oldest first the reverse. Within the rows that
// share a primary key, each direction takes the order its walks showed
// (rank), and where a walk did not show it, the rows keep the order they
// are held in (reversed oldest first) and are loose.
func (m *Model) index(r ranks) {
	m.cursors = map[string]Key{}
	for _, row := range m.Rows() {
		if row.Cursor != "" {
			m.cursors[row.Cursor] = row.Key
		}
		m.hasType = m.hasType || row.Type != ""
		m.hasSubmitter = m.hasSubmitter || row.Submitter != ""
	}
	var runs [][]Row
	runs = append(runs, m.head)
	runs = append(runs, m.windows...)
	if !m.whole {
		runs = append(runs, m.tail)
	}
	for dir := range 2 {
		if dir == oldestFirst && !m.Listing.ordered() && !m.ascLearned(r) {
			// Network parameters have no primary order: oldest first is
			// known only as the walk oldest first showed it, whole.
			m.seqs[dir], m.places[dir], m.ascKnown = nil, nil, false
			continue
		}
		if dir == oldestFirst {
			m.ascKnown = true
		}
		var seq []item
		order := slices.Clone(runs)
		if dir == oldestFirst {
			slices.Reverse(order)
		}
		for i, run := range order {
			if i > 0 {
				seq = append(seq, item{gap: true})
			}
			rows := make([]*Row, len(run))
			for j := range run {
				rows[j] = &run[j]
			}
			if dir == oldestFirst {
				slices.Reverse(rows)
			}
			seq = append(seq, tiesInOrder(rows, r[dir])...)
		}
		m.places[dir] = map[Key]int{}
		for i := range seq {
			seq[i].place = i
			if !seq[i].gap {
				m.places[dir][seq[i].row.Key] = i
			}
		}
		m.seqs[dir] = seq
	}
}

// ascLearned reports whether the model is whole and a walk oldest first
// ranked every row.
func (m *Model) ascLearned(r ranks) bool {
	if !m.whole {
		return false
	}
	for _, row := range m.head {
		if _, ok := r[oldestFirst][row.Key]; !ok {
			return false
		}
	}
	return true
}

// tiesInOrder lays out a run of rows: each group of rows that share their
// primary key in the order of their ranks when every one has a rank, else
// as given, loose.
func tiesInOrder(rows []*Row, rank map[Key]int) []item {
	out := make([]item, 0, len(rows))
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].Key.Num == rows[i].Key.Num {
			j++
		}
		group := rows[i:j]
		ranked := true
		for _, g := range group {
			if _, ok := rank[g.Key]; !ok {
				ranked = false
			}
		}
		if ranked {
			group = slices.Clone(group)
			slices.SortStableFunc(group, func(a, b *Row) int { return rank[a.Key] - rank[b.Key] })
		}
		for _, g := range group {
			out = append(out, item{row: g, loose: !ranked && len(group) > 1})
		}
		i = j
	}
	return out
}

// mergeSpans sorts spans and joins those that touch or overlap.
func mergeSpans(spans []Span) []Span {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b Span) int {
		switch {
		case a.From < b.From:
			return -1
		case a.From > b.From:
			return 1
		}
		return 0
	})
	var out []Span
	for _, x := range s {
		if n := len(out); n > 0 && x.From <= out[n-1].To+1 {
			out[n-1].To = max(out[n-1].To, x.To)
			continue
		}
		out = append(out, x)
	}
	return out
}

// WithMustCount sets the largest count whose answer the spec decides: a
// deployment may cap its pages lower than docs/behaviour.md's maximum (the
// spec does not show the maximum), so counts above it are SHOULD.
func (m *Model) WithMustCount(n int) *Model {
	if n > 0 {
		m.mustCount = n
	}
	return m
}

// Rows returns every held row, newest first: the head, the windows deep
// inside the listing, then the tail.
func (m *Model) Rows() []Row {
	out := slices.Clone(m.head)
	for _, w := range m.windows {
		out = append(out, w...)
	}
	return append(out, m.tail...)
}

// Windows returns the runs of rows held deep inside the listing, between
// the head and the tail, newest first.
func (m *Model) Windows() [][]Row {
	out := make([][]Row, len(m.windows))
	for i, w := range m.windows {
		out[i] = slices.Clone(w)
	}
	return out
}

// Ends returns the held rows beside each gap: the last row before it and
// the first after it, newest first (none when the model is whole).
func (m *Model) Ends() []Row {
	var out []Row
	seq := m.seqs[newestFirst]
	for i, it := range seq {
		if !it.gap {
			continue
		}
		if i > 0 && !seq[i-1].gap {
			out = append(out, *seq[i-1].row)
		}
		if i+1 < len(seq) && !seq[i+1].gap {
			out = append(out, *seq[i+1].row)
		}
	}
	return out
}

// Whole reports whether the model holds the whole listing (for games: every
// epoch from 0 to the latest).
func (m *Model) Whole() bool {
	if m.Listing == Games {
		return len(m.spans) == 1 && m.spans[0].From == 0 && m.spans[0].To >= m.latest
	}
	return m.whole
}

// Latest is the latest epoch (games).
func (m *Model) Latest() uint64 { return m.latest }

// Spans are the epochs held (games).
func (m *Model) Spans() []Span { return slices.Clone(m.spans) }

// Derived are the epochs held from epoch windows rather than from the
// unfiltered listing (games): each after a window that reached into the
// unfiltered epochs agreed with them there.
func (m *Model) Derived() []Span { return slices.Clone(m.derived) }

// Newest is the key of the newest held row, and false when none is held.
func (m *Model) Newest() (Key, bool) {
	if len(m.head) == 0 {
		return Key{}, false
	}
	return m.head[0].Key, true
}

// holdsEpochs reports whether every epoch of [from, to] is held.
func (m *Model) holdsEpochs(from, to uint64) bool {
	for _, s := range m.spans {
		if s.From <= from && to <= s.To {
			return true
		}
	}
	return false
}

// sequence returns the held rows that keep, in listing order (newest
// first unless asc), with the gaps where they lie; each item keeps its
// place in the whole sequence.
func (m *Model) sequence(keep func(*Row) bool, asc bool) []item {
	dir := newestFirst
	if asc {
		dir = oldestFirst
	}
	var out []item
	for _, it := range m.seqs[dir] {
		if it.gap || keep(it.row) {
			out = append(out, it)
		}
	}
	return out
}

// knows reports whether the model knows the listing's order in a
// direction (asc: oldest first) at all.
func (m *Model) knows(asc bool) bool {
	return !asc || m.ascKnown
}

// cut returns the place in the whole sequence of a direction (asc: oldest
// first) of the first item after key k, or (not strict) at or after it,
// and false when it cannot be told: k lies in a gap, or among rows that
// share its primary key whose order the model did not learn (or, for a
// key it does not hold, that are not in the order of their keys).
func (m *Model) cut(k Key, asc, strict bool) (int, bool) {
	dir := newestFirst
	if asc {
		dir = oldestFirst
	}
	seq := m.seqs[dir]
	if seq == nil {
		return 0, false
	}
	if p, ok := m.places[dir][k]; ok {
		if seq[p].loose {
			return 0, false
		}
		if strict {
			p++
		}
		return p, true
	}
	// A key the model does not hold: by key order, which must agree with
	// the order of the rows that share its primary key.
	before := func(a Key) bool { // a comes before k in this direction
		c := newer(a, k)
		if asc {
			c = -c
		}
		return c < 0
	}
	for i, it := range seq {
		if it.gap {
			continue
		}
		if before(it.row.Key) {
			continue
		}
		// it is the first held row after k; k lies just before it, unless
		// a gap or a tie out of key order lies in the way.
		if i > 0 && seq[i-1].gap {
			return 0, false
		}
		if !tiesInKeyOrder(seq, i, k.Num, asc) {
			return 0, false
		}
		return i, true
	}
	if n := len(seq); n > 0 && seq[n-1].gap {
		return 0, false
	}
	if !tiesInKeyOrder(seq, len(seq), k.Num, asc) {
		return 0, false
	}
	return len(seq), true
}

// tiesInKeyOrder reports whether the held rows of primary key num around
// place i are in the order of their keys (and learned), so that a key not
// held can be placed among them.
func tiesInKeyOrder(seq []item, i int, num uint64, asc bool) bool {
	lo, hi := i, i
	for lo > 0 && !seq[lo-1].gap && seq[lo-1].row.Key.Num == num {
		lo--
	}
	for hi < len(seq) && !seq[hi].gap && seq[hi].row.Key.Num == num {
		hi++
	}
	for j := lo; j < hi; j++ {
		if seq[j].loose {
			return false
		}
		if j > lo {
			c := newer(seq[j-1].row.Key, seq[j].row.Key)
			if asc {
				c = -c
			}
			if c >= 0 {
				return false
			}
		}
	}
	return true
}

// zone places a key: -1 in the head (or a whole listing), 1 past it (a
// window or the tail); false when it lies in a gap.
func (m *Model) zone(k Key) (int, bool) {
	p, ok := m.cut(k, false, false)
	if !ok {
		return 0, false
	}
	for _, it := range m.seqs[newestFirst][:p] {
		if it.gap {
			return 1, true
		}
	}
	return -1, true
}
