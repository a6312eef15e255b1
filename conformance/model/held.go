package model

import "slices"

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
	// first); tail the oldest rows, when the listing was too large to hold
	// whole (a gap of unknown rows lies between the two). Whole is set
	// when head is the whole listing.
	head, tail []Row
	whole      bool
	// Games: the latest epoch when the model was built, and the epochs
	// held (every game of each).
	latest uint64
	spans  []Span
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
}

// New makes a model of a listing from its rows in listing order (newest
// first): head from the newest, tail (nil when whole) the oldest. For
// games, spans are the epochs whose games are all in head and latest the
// latest epoch.
func New(l Listing, lim Limits, head, tail []Row, whole bool) *Model {
	m := &Model{Listing: l, Limits: lim, head: head, tail: tail, whole: whole, cursors: map[string]Key{}, mustCount: mustCount}
	if whole {
		m.tail = nil
	}
	for _, r := range m.Rows() {
		if r.Cursor != "" {
			m.cursors[r.Cursor] = r.Key
		}
		m.hasType = m.hasType || r.Type != ""
		m.hasSubmitter = m.hasSubmitter || r.Submitter != ""
	}
	return m
}

// NewGames makes the model of the games listing: rows holds every game of
// the epochs in spans, newest first; latest is the latest epoch.
func NewGames(lim Limits, rows []Row, spans []Span, latest uint64) *Model {
	m := New(Games, lim, rows, nil, true)
	m.spans, m.latest = mergeSpans(spans), latest
	return m
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

// Rows returns every held row, newest first (the head, then the tail).
func (m *Model) Rows() []Row { return append(slices.Clone(m.head), m.tail...) }

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

// item is one place of a listing's sequence: a row, or the gap of rows the
// model does not hold.
type item struct {
	row *Row
	gap bool
}

// sequence returns the held rows that keep, in listing order (newest first
// unless asc), with the gap where it lies.
func (m *Model) sequence(keep func(*Row) bool, asc bool) []item {
	var out []item
	add := func(rows []Row) {
		for i := range rows {
			if keep(&rows[i]) {
				out = append(out, item{row: &rows[i]})
			}
		}
	}
	add(m.head)
	if !m.whole {
		out = append(out, item{gap: true})
		add(m.tail)
	}
	if asc {
		slices.Reverse(out)
	}
	return out
}

// inHead reports whether a held key lies in the head (at or before the
// gap, newest first).
func (m *Model) inHead(k Key) bool {
	if m.whole || len(m.head) == 0 {
		return true
	}
	return newer(k, m.head[len(m.head)-1].Key) <= 0
}
