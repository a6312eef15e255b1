package model

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
)

// Fetch asks the deployment for a listing with a query and returns the
// answer's status and body. An error means no answer came.
type Fetch func(ctx context.Context, l Listing, q url.Values) (status int, body []byte, err error)

// FetchPage asks the deployment for a listing with a query and returns the
// answer read (Decode's reading, or its error), for a caller that reads
// each answer once elsewhere. An error means no answer came.
type FetchPage func(ctx context.Context, l Listing, q url.Values) (status int, p *Page, readErr, err error)

// Options bound what Build reads.
type Options struct {
	// MaxRows bounds the rows held of each listing (half from the newest,
	// half from the oldest when a listing is larger). Zero means 10,000.
	MaxRows int
	// PageSize is the count each page of Build's walks asks for, and the
	// largest count whose answer the model takes the spec to decide (see
	// WithMustCount). Zero means 100.
	PageSize int
	// Limits are the deployment's page sizes; zero means DefaultLimits.
	Limits Limits
	// Pages, when set, asks in place of Build's fetch and Decode.
	Pages FetchPage
	// Problem, when set, is told of each problem the walks find in the
	// answers they read, as they find it.
	Problem func(Problem)
}

func (o Options) withDefaults() Options {
	if o.MaxRows <= 0 {
		o.MaxRows = 10000
	}
	if o.PageSize <= 0 {
		o.PageSize = mustCount
	}
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits
	}
	return o
}

// Problem is something wrong in an answer Build read: an ordinary
// difference of the answer to a query, the same as the oracle's, which
// Build finds from the walk the answer belongs to (a row twice, rows out of
// order, a page flag that ends the walk early or late). The model keeps
// what it can trust of the walk (up to the problem) and leaves the rest
// unknown.
type Problem struct {
	// Query is the query whose answer shows the problem.
	Query url.Values
	// Difference is the problem: its aspect, at MUST, and what differs.
	Difference Difference
	// Check judges an answer to a query like Query (its filters; its
	// pagination may differ) for the same problem, so that the query can
	// be shrunk; nil when it cannot.
	Check func(q url.Values, p *Page) (Difference, bool)
}

// Build reads the model of a listing from the deployment's unfiltered walks
// (games: the unfiltered walk of the latest 30 epochs, and deeper epochs
// from epoch windows that agree with it where they meet). It fails only
// when the listing cannot be read at all (its first answer) or its records
// lack what the model needs.
func Build(ctx context.Context, fetch Fetch, l Listing, opt Options) (*Model, error) {
	opt = opt.withDefaults()
	b := builder{ctx: ctx, fetch: fetch, l: l, opt: opt}
	var m *Model
	var err error
	switch l {
	case Games:
		m, err = b.games()
	case Transactions:
		m, err = b.transactions()
	default:
		m, err = b.paged()
	}
	if err != nil {
		return nil, err
	}
	m.tiesPerQuery = true
	return m.WithMustCount(opt.PageSize), nil
}

type builder struct {
	ctx   context.Context
	fetch Fetch
	l     Listing
	opt   Options
}

// answer is what one request of a walk brought.
type answer struct {
	status int
	page   *Page
	err    error // no answer came, or it could not be read
}

// ask asks for one page and reads it.
func (b *builder) ask(q url.Values) answer {
	if b.opt.Pages != nil {
		status, p, readErr, err := b.opt.Pages(b.ctx, b.l, q)
		if err != nil {
			return answer{err: fmt.Errorf("%s %s: %w", b.l.Path(), Describe(q), err)}
		}
		if readErr != nil {
			return answer{status: status, err: fmt.Errorf("%s %s: %w", b.l.Path(), Describe(q), readErr)}
		}
		if p == nil {
			p = &Page{Status: status}
		}
		return answer{status: status, page: p}
	}
	status, body, err := b.fetch(b.ctx, b.l, q)
	if err != nil {
		return answer{err: fmt.Errorf("%s %s: %w", b.l.Path(), Describe(q), err)}
	}
	p, err := Decode(b.l, status, body)
	if err != nil {
		return answer{status: status, err: fmt.Errorf("%s %s: %w", b.l.Path(), Describe(q), err)}
	}
	return answer{status: status, page: p}
}

// get asks for one page and fails unless it is a 200 that reads: the
// first request of a listing, which decides whether it can be read at all.
func (b *builder) get(q url.Values) (*Page, error) {
	a := b.ask(q)
	switch {
	case a.err != nil:
		return nil, a.err
	case a.status != 200:
		return nil, fmt.Errorf("%s %s: HTTP %d, want 200", b.l.Path(), Describe(q), a.status)
	}
	return a.page, nil
}

// problem tells of a problem.
func (b *builder) problem(q url.Values, a Aspect, check func(url.Values, *Page) (Difference, bool), format string, args ...any) {
	if b.opt.Problem != nil {
		b.opt.Problem(Problem{Query: clone(q), Difference: Difference{Aspect: a, Level: Must, Detail: fmt.Sprintf(format, args...)}, Check: check})
	}
}

// unreadable tells of a page of a walk that did not come back as a 200
// that reads: the walk stops there.
func (b *builder) unreadable(q url.Values, a answer) {
	switch {
	case a.err != nil && a.status == 0:
		// No answer: the client reports it (or the run's deadline).
	case a.err != nil:
		b.problem(q, AspectRows, nil, "a page of the listing's walk cannot be read: %v", a.err)
	default:
		b.problem(q, AspectStatus, func(_ url.Values, p *Page) (Difference, bool) {
			return Difference{Aspect: AspectStatus, Level: Must, Detail: fmt.Sprintf("want HTTP 200, got HTTP %d", p.Status)}, p.Status != 200
		}, "want HTTP 200 (a page of the listing's walk), got HTTP %d", a.status)
	}
}

// walk is one walk through a paged listing, page by page by cursor in one
// direction (first/after), each page checked against the pages before it.
type walk struct {
	b *builder
	// base is the walk's query without pagination (filters, newestFirst);
	// asc is set when it lists oldest first.
	base url.Values
	asc  bool
	// pin, on a walk towards the newest end, is the newest row held: rows
	// newer than it may have arrived since, and the walk ends there.
	pin *Key
	// rows are the rows read, in the walk's order; rank finds each; pages
	// are the pages they came in.
	rows  []Row
	rank  map[Key]int
	pages []walkPage
	// onPage is the page of each row, by place.
	onPage []int
	// done is set when the walk reached the listing's end, broken when it
	// stopped at a problem.
	done, broken bool
	// optional is set on a walk whose first page may fail without the
	// listing failing (it is then a problem, and the walk reads nothing).
	optional bool
}

// walkPage is one page of a walk: its query and the place of its rows.
type walkPage struct {
	q        url.Values
	from, to int
}

// sameFilters reports whether a query has the walk's filters, whatever its
// pagination.
func (w *walk) sameFilters(q url.Values) bool {
	strip := func(v url.Values) string {
		c := clone(v)
		for _, p := range []string{pFirst, pAfter, pLast, pBefore} {
			c.Del(p)
		}
		return c.Encode()
	}
	return strip(q) == strip(w.base)
}

// before reports whether key a comes before b in the walk's order, by
// primary key alone.
func (w *walk) beforeByNum(a, b Key) bool {
	if w.asc {
		return a.Num < b.Num
	}
	return a.Num > b.Num
}

// run pages from the walk's start until the listing ends, a problem stops
// it, or limit rows are read. A first page that cannot be read is the
// error (the listing cannot be read at all).
func (w *walk) run(limit int) error {
	b := w.b
	w.rank = map[Key]int{}
	q := clone(w.base)
	q.Set(pFirst, strconv.Itoa(b.opt.PageSize))
	var prevQ url.Values
	var prev *Page
	for len(w.rows) < limit {
		a := b.ask(q)
		if a.err != nil || a.status != 200 {
			if len(w.rows) == 0 && prev == nil && !w.optional {
				if a.err != nil {
					return a.err
				}
				return fmt.Errorf("%s %s: HTTP %d, want 200", b.l.Path(), Describe(q), a.status)
			}
			b.unreadable(q, a)
			w.broken = true
			return nil
		}
		p := a.page
		w.checkPrevious(q, p)
		if !w.take(q, p) {
			w.broken = true
			return nil
		}
		if len(p.Rows) == 0 {
			if prev != nil && prev.HasNext {
				w.lateEnd(prevQ)
			}
			w.done = true
			return nil
		}
		last := p.Rows[len(p.Rows)-1]
		if !p.HasNext {
			if !w.confirmEnd(q, last) {
				w.done = true
				return nil
			}
		}
		prevQ, prev = clone(q), p
		q.Set(pAfter, last.Cursor)
	}
	return nil
}

// take checks a page's rows against the walk and keeps them: false (and
// none kept) when a row came before or is out of order.
func (w *walk) take(q url.Values, p *Page) bool {
	b := w.b
	for i, r := range p.Rows {
		if _, ok := w.rank[r.Key]; ok || slices.ContainsFunc(p.Rows[:i], func(o Row) bool { return o.Key == r.Key }) {
			b.problem(q, AspectRows, w.repeatCheck(), "the row %s came before in the listing's walk (%s): a page repeats a row of the pages before it", r.Key, w.order())
			return false
		}
		var prev *Row
		if i > 0 {
			prev = &p.Rows[i-1]
		} else if n := len(w.rows); n > 0 {
			prev = &w.rows[n-1]
		}
		if prev != nil && w.beforeByNum(r.Key, prev.Key) {
			b.problem(q, AspectRows, w.orderCheck(), "rows out of order (%s): %s after %s", w.order(), r.Key, prev.Key)
			return false
		}
	}
	w.pages = append(w.pages, walkPage{q: clone(q), from: len(w.rows), to: len(w.rows) + len(p.Rows)})
	for _, r := range p.Rows {
		w.rank[r.Key] = len(w.rows)
		w.rows = append(w.rows, r)
		w.onPage = append(w.onPage, len(w.pages)-1)
	}
	return true
}

// missing tells of each row the other walk (of the same rows, the other
// way) read and this one did not, of those the model may hold: the page of this walk where its primary
// key puts it lacks it.
//
// It returns the place in the walk from which its order is not trusted: the
// first page that lacks a row (len(rows) when none does).
func (w *walk) missing(other *walk, held func(Key) bool) int {
	from := len(w.rows)
	for _, x := range other.rows {
		if _, ok := w.rank[x.Key]; ok || !held(x.Key) || !w.reaches(x.Key) {
			continue
		}
		pg, cursor := w.pageOf(x.Key.Num)
		if pg == nil {
			continue
		}
		from = min(from, pg.from)
		w.b.problem(pg.q, AspectRows, w.missingCheck(x.Key),
			"the row %s is missing: the walk %s reads it, and by its %d it belongs in this page (%s) of the walk %s, after %s",
			x.Key, other.order(), x.Key.Num, Describe(pg.q), w.order(), cursor)
	}
	return from
}

// reaches reports whether the walk read as far as a key's primary key:
// all of them when it reached the listing's end, else those before the
// primary key of the last row it read.
func (w *walk) reaches(k Key) bool {
	if w.done {
		return true
	}
	if len(w.rows) == 0 {
		return false
	}
	return w.beforeByNum(k, w.rows[len(w.rows)-1].Key)
}

// crossCheck holds two walks of the same rows, newest first and oldest
// first, to each other: each must read every row the other read, as far as
// it reached. It returns the orders to trust: each walk's up to its first
// page that lacks a row.
func crossCheck(desc, asc *walk, held func(Key) bool) ranks {
	return ranks{desc.trusted(desc.missing(asc, held)), asc.trusted(asc.missing(desc, held))}
}

// trusted are the ranks of the walk's rows before place from: a walk that
// lost a row showed no order to trust from the page that lost it.
func (w *walk) trusted(from int) map[Key]int {
	return ranksOf(w.rows[:from])
}

// pageOfRow returns the query of the page of the walk that held a row.
func (w *walk) pageOfRow(k Key) url.Values {
	return w.pages[w.onPage[w.rank[k]]].q
}

// pageOf finds the page of the walk whose place takes rows of primary key
// num: the first asked after a row that does not come after num, whose
// first row does not come before it (or that is empty); and it names the
// cursor it was asked after.
func (w *walk) pageOf(num uint64) (*walkPage, string) {
	for i := range w.pages {
		pg := &w.pages[i]
		cursor := "the listing's start"
		if pg.from > 0 {
			c := w.rows[pg.from-1].Key
			if w.beforeByNum(Key{Num: num}, c) {
				continue
			}
			cursor = c.String()
		}
		if pg.from == pg.to || !w.beforeByNum(w.rows[pg.from].Key, Key{Num: num}) {
			return pg, cursor
		}
	}
	if n := len(w.pages); n > 0 {
		pg := &w.pages[n-1]
		return pg, w.rows[len(w.rows)-1].Key.String()
	}
	return nil, ""
}

// missingCheck judges an answer to a query like the walk's for a row it
// lacks: a page asked after a row that does not come after the row's
// primary key, whose rows reach past it or that is short of its count (it
// then holds every row after its cursor), must hold it.
func (w *walk) missingCheck(x Key) func(url.Values, *Page) (Difference, bool) {
	rank, rows := w.rank, w.rows
	return func(q url.Values, p *Page) (Difference, bool) {
		if !w.sameFilters(q) || q.Has(pLast) || q.Has(pBefore) {
			return Difference{}, false
		}
		if q.Has(pAfter) {
			c, ok := rank[w.cursorKey(q.Get(pAfter))]
			if !ok || w.beforeByNum(x, rows[c].Key) {
				return Difference{}, false
			}
		}
		n := len(p.Rows)
		count, err := strconv.Atoi(q.Get(pFirst))
		if n > 0 && !w.beforeByNum(x, p.Rows[n-1].Key) && (err != nil || n >= count) {
			return Difference{}, false // a full page may end before the row's place
		}
		if slices.ContainsFunc(p.Rows, func(r Row) bool { return r.Key == x }) {
			return Difference{}, false
		}
		return Difference{Aspect: AspectRows, Level: Must, Detail: fmt.Sprintf("the row %s is missing from the page, where its %d puts it", x, x.Num)}, true
	}
}

// unite joins two walks of the same rows (desc newest first, asc oldest
// first): desc's rows, and each row only asc read that desc should have
// (of those the model may hold) at the end of the rows of its primary key,
// newest first.
func unite(desc, asc *walk, held func(Key) bool) []Row {
	out := slices.Clone(desc.rows)
	for i := len(asc.rows) - 1; i >= 0; i-- {
		x := asc.rows[i]
		if _, ok := desc.rank[x.Key]; ok || !held(x.Key) || !desc.reaches(x.Key) {
			continue
		}
		at := len(out)
		for j, r := range out {
			if r.Key.Num < x.Key.Num {
				at = j
				break
			}
		}
		out = slices.Insert(out, at, x)
	}
	return out
}

// order names the walk's order for a message.
func (w *walk) order() string {
	if w.asc {
		return "oldest first"
	}
	return "newest first"
}

// repeatCheck judges an answer to a query after a cursor of the walk: it
// must hold no row the walk met at or before the cursor.
func (w *walk) repeatCheck() func(url.Values, *Page) (Difference, bool) {
	rank := w.rank
	return func(q url.Values, p *Page) (Difference, bool) {
		c, ok := rank[w.cursorKey(q.Get(pAfter))]
		if !w.sameFilters(q) || !q.Has(pAfter) || !ok {
			return Difference{}, false
		}
		for _, r := range p.Rows {
			if at, ok := rank[r.Key]; ok && at <= c {
				return Difference{Aspect: AspectRows, Level: Must,
					Detail: fmt.Sprintf("the page after %s holds %s, which comes at or before it (%s)", w.rows[c].Key, r.Key, w.order())}, true
			}
		}
		return Difference{}, false
	}
}

// orderCheck judges an answer to a query like the walk's: its rows must
// follow one another, and its cursor, in the walk's order by primary key.
func (w *walk) orderCheck() func(url.Values, *Page) (Difference, bool) {
	rank := w.rank
	rows := w.rows
	return func(q url.Values, p *Page) (Difference, bool) {
		if !w.sameFilters(q) {
			return Difference{}, false
		}
		var prev *Key
		if c, ok := rank[w.cursorKey(q.Get(pAfter))]; ok && q.Has(pAfter) {
			prev = &rows[c].Key
		}
		for i := range p.Rows {
			k := p.Rows[i].Key
			if prev != nil && w.beforeByNum(k, *prev) {
				return Difference{Aspect: AspectRows, Level: Must, Detail: fmt.Sprintf("rows out of order (%s): %s after %s", w.order(), k, *prev)}, true
			}
			prev = &p.Rows[i].Key
		}
		return Difference{}, false
	}
}

// cursorKey finds the key of a row of the walk by its cursor.
func (w *walk) cursorKey(c string) Key {
	for _, r := range w.rows {
		if r.Cursor == c {
			return r.Key
		}
	}
	return Key{Str: "\x00no row"}
}

// checkPrevious judges a page's hasPreviousPage: a page after a cursor of
// the walk has a page before it, the walk's first page none.
func (w *walk) checkPrevious(q url.Values, p *Page) {
	want := q.Has(pAfter)
	if p.HasPrev == want {
		return
	}
	w.b.problem(q, AspectPrev, func(q url.Values, p *Page) (Difference, bool) {
		want := q.Has(pAfter)
		if !w.sameFilters(q) || p.HasPrev == want {
			return Difference{}, false
		}
		return Difference{Aspect: AspectPrev, Level: Must, Detail: previousDetail(want, p.HasPrev)}, true
	}, "%s", previousDetail(want, p.HasPrev))
}

func previousDetail(want, got bool) string {
	if want {
		return fmt.Sprintf("want hasPreviousPage true (the page follows a cursor: rows come before it), got %v", got)
	}
	return fmt.Sprintf("want hasPreviousPage false (the walk's first page), got %v", got)
}

// confirmEnd asks the row after a page that says no page follows it: when
// one comes that was there before (the walk towards the newest end may meet
// rows that arrived since), the page's hasNextPage ended the walk early;
// the walk goes on. It returns whether it goes on.
func (w *walk) confirmEnd(q url.Values, last Row) bool {
	b := w.b
	c := clone(w.base)
	c.Set(pFirst, "1")
	c.Set(pAfter, last.Cursor)
	a := b.ask(c)
	if a.err != nil || a.status != 200 || len(a.page.Rows) == 0 {
		return false
	}
	next := a.page.Rows[0]
	if w.pin != nil && newer(next.Key, *w.pin) < 0 {
		return false // a row that arrived after the walk began
	}
	endAt := len(w.rows) - 1
	b.problem(q, AspectNext, w.nextCheck(endAt, false),
		"want hasNextPage true (%s follows the page's last row %s), got false: the page ends the walk early", next.Key, last.Key)
	return true
}

// lateEnd tells of a page that said a page follows it, when the page after
// it is empty.
func (w *walk) lateEnd(q url.Values) {
	last := w.rows[len(w.rows)-1]
	w.b.problem(q, AspectNext, w.nextCheck(len(w.rows)-1, true),
		"want hasNextPage false (no row follows the page's last row %s: the page after it is empty), got true", last.Key)
}

// nextCheck judges the hasNextPage of an answer whose last row is the
// walk's row at place at: true when rows follow it in the walk (late:
// none does, the walk having ended there).
func (w *walk) nextCheck(at int, late bool) func(url.Values, *Page) (Difference, bool) {
	rank := w.rank
	key := w.rows[at].Key
	return func(q url.Values, p *Page) (Difference, bool) {
		if !w.sameFilters(q) || len(p.Rows) == 0 || q.Has(pLast) || q.Has(pBefore) {
			return Difference{}, false
		}
		lastKey := p.Rows[len(p.Rows)-1].Key
		if r, ok := rank[lastKey]; !ok || lastKey != key && !(r < at && !late) {
			return Difference{}, false
		}
		if late && p.HasNext {
			return Difference{Aspect: AspectNext, Level: Must, Detail: fmt.Sprintf("want hasNextPage false (no row follows %s), got true", lastKey)}, true
		}
		if !late && !p.HasNext {
			return Difference{Aspect: AspectNext, Level: Must, Detail: fmt.Sprintf("want hasNextPage true (rows follow %s), got false", lastKey)}, true
		}
		return Difference{}, false
	}
}

// ranksOf are the ranks of a walk's rows, newest first or oldest first.
func ranksOf(rows []Row) map[Key]int {
	out := make(map[Key]int, len(rows))
	for i, r := range rows {
		out[r.Key] = i
	}
	return out
}

// paged builds the model of snapshots, key rotations or network
// parameters: the walk from the newest, and the walk from the oldest
// (oldest first), each up to half the bound; when the first reaches the
// end, the second walks the whole listing too, for the order oldest first.
// A larger listing also gets windows deep inside it.
func (b *builder) paged() (*Model, error) {
	half := max(1, b.opt.MaxRows/2)
	head := &walk{b: b, base: url.Values{}}
	if err := head.run(half); err != nil {
		return nil, err
	}
	m := &Model{Listing: b.l, Limits: b.opt.Limits, mustCount: mustCount}
	if len(head.rows) == 0 {
		// An empty listing, or one whose first page is not to be trusted
		// (nothing is then known).
		m.whole = !head.broken
		m.index(ranks{})
		return m, nil
	}
	pin := &head.rows[0].Key
	var r ranks
	r[newestFirst] = ranksOf(head.rows)
	limit := half
	if head.done {
		limit = len(head.rows) + 1
	}
	var tail []Row
	asc := &walk{b: b, base: url.Values{pNewest: {"false"}}, asc: true, pin: pin, optional: true}
	if b.l.ordered() || head.done {
		if err := asc.run(limit); err != nil {
			return nil, err
		}
		r[oldestFirst] = ranksOf(asc.rows)
		if b.l.ordered() {
			tail = slices.Clone(asc.rows)
			slices.Reverse(tail)
			tail = slices.DeleteFunc(tail, func(r Row) bool { return newer(r.Key, *pin) < 0 })
		}
	} else {
		// Network parameters are in one order whatever newestFirst says:
		// the rows before the end, walked backwards, in that order.
		tail = b.backwards(half)
		for i, row := range tail {
			r[newestFirst][row.Key] = len(head.rows) + i
		}
	}
	held := func(k Key) bool { return newer(k, *pin) >= 0 }
	if b.l.ordered() {
		// The two walks must each read every row the other did, as far as
		// they reach; what either lost, the other gives.
		r = crossCheck(head, asc, held)
		head.rows = unite(head, asc, held)
	}
	if head.done {
		m.head, m.whole = head.rows, true
		m.index(r)
		return m, nil
	}
	if merged, ok := joinRuns(head.rows, tail); ok {
		m.head, m.whole = merged, true
		m.index(r)
		return m, nil
	}
	m.head, m.tail = head.rows, tail
	if !head.broken {
		m.windows = b.hops(head.rows, tail, r)
	}
	m.index(r)
	return m, nil
}

// backwards reads up to limit rows from the listing's end by last/before,
// in listing order; nil when a page cannot be read or is out of order.
func (b *builder) backwards(limit int) []Row {
	var rows []Row
	q := url.Values{pLast: {strconv.Itoa(b.opt.PageSize)}}
	for len(rows) < limit {
		a := b.ask(q)
		if a.err != nil || a.status != 200 {
			return nil
		}
		rows = append(slices.Clone(a.page.Rows), rows...)
		if !a.page.HasPrev || len(a.page.Rows) == 0 {
			break
		}
		q.Set(pBefore, a.page.Rows[0].Cursor)
	}
	if checkOrder(rows) != nil {
		return nil
	}
	return rows
}

// joinRuns merges a head and a tail (both newest first) that overlap into
// the whole listing: the head, then the tail's rows past the head's last
// (by primary key: rows that share it with the head's last are in the
// head or follow it).
func joinRuns(head, tail []Row) ([]Row, bool) {
	if len(head) == 0 || len(tail) == 0 {
		return nil, false
	}
	last := head[len(head)-1].Key
	held := map[Key]bool{}
	for _, r := range head {
		held[r.Key] = true
	}
	if !slices.ContainsFunc(tail, func(r Row) bool { return held[r.Key] }) {
		return nil, false
	}
	out := slices.Clone(head)
	for _, r := range tail {
		if r.Key.Num <= last.Num && !held[r.Key] {
			out = append(out, r)
		}
	}
	return out, true
}

// maxHops bounds the requests Build makes to reach deep inside a listing
// larger than it holds; each hop holds a window of rows there.
const maxHops = 3

// hops reads windows deep inside a paged listing, between head and tail:
// from the head's last row, a page of the largest count the deployment
// accepts, whose last rows are held as a window; then again from there.
// Each window's rows are ranked newest first in r.
func (b *builder) hops(head, tail []Row, r ranks) [][]Row {
	if len(head) == 0 || len(tail) == 0 {
		return nil
	}
	held := map[Key]bool{}
	for _, t := range append(slices.Clone(head), tail...) {
		held[t.Key] = true
	}
	keep := 2 * b.opt.PageSize
	cursor := head[len(head)-1].Cursor
	count := 0
	var out [][]Row
	for hop := 0; hop < maxHops; hop++ {
		var a answer
		a = answer{err: errNoHop}
		for _, n := range candidates(b.opt.Limits.MaxPage, keep, count) {
			a = b.ask(url.Values{pFirst: {strconv.Itoa(n)}, pAfter: {cursor}})
			if a.err == nil && a.status == 200 {
				count = n
				break
			}
		}
		if a.err != nil || a.status != 200 || len(a.page.Rows) <= keep {
			return out
		}
		rows := a.page.Rows
		if checkOrderByNum(rows) != nil || slices.ContainsFunc(rows, func(r Row) bool { return held[r.Key] }) {
			return out // out of order, or it reached rows held: no deeper window
		}
		window := slices.Clone(rows[len(rows)-keep:])
		for i, row := range window {
			r[newestFirst][row.Key] = len(r[newestFirst]) + i
		}
		out = append(out, window)
		if !a.page.HasNext {
			return out
		}
		cursor = rows[len(rows)-1].Cursor
	}
	return out
}

// candidates are the counts a hop tries, largest first: the one accepted
// before, else the largest page docs/behaviour.md gives, halved until the
// deployment accepts one (its largest page is not shown), while a hop
// still reaches past the window it holds.
func candidates(maxPage, keep, accepted int) []int {
	if accepted > 0 {
		return []int{accepted}
	}
	var out []int
	for n := maxPage; n > keep; n /= 2 {
		out = append(out, n)
	}
	return out
}

// errNoHop says that no count a hop may take was accepted.
var errNoHop = errors.New("no count accepted")

// checkOrderByNum fails when rows are not newest first by primary key.
func checkOrderByNum(rows []Row) error {
	for i := 1; i < len(rows); i++ {
		if rows[i-1].Key.Num < rows[i].Key.Num {
			return fmt.Errorf("rows out of order: %s before %s", rows[i-1].Key, rows[i].Key)
		}
	}
	return nil
}

// checkOrder fails when rows are not strictly newest first: the model
// cannot be built from a listing that is not in order.
func checkOrder(rows []Row) error {
	for i := 1; i < len(rows); i++ {
		if newer(rows[i-1].Key, rows[i].Key) >= 0 {
			return fmt.Errorf("rows out of order: %s before %s", rows[i-1].Key, rows[i].Key)
		}
	}
	return nil
}

// Grew reports whether rows newer than the model's newest have arrived.
func Grew(ctx context.Context, fetch Fetch, m *Model) (bool, error) {
	return GrewPage(ctx, func(ctx context.Context, l Listing, q url.Values) (int, *Page, error, error) {
		status, body, err := fetch(ctx, l, q)
		if err != nil {
			return 0, nil, nil, err
		}
		p, rerr := Decode(l, status, body)
		return status, p, rerr, nil
	}, m)
}

// GrewPage is Grew asking through a FetchPage.
func GrewPage(ctx context.Context, pages FetchPage, m *Model) (bool, error) {
	q := url.Values{pFirst: {"1"}}
	if m.Listing == Transactions {
		q = url.Values{"first": {"1"}}
	}
	b := builder{ctx: ctx, l: m.Listing, opt: Options{Pages: pages}}
	p, err := b.get(q)
	if err != nil {
		return false, err
	}
	newest, ok := m.Newest()
	if len(p.Rows) == 0 || !ok {
		return len(p.Rows) > 0, nil
	}
	return newer(p.Rows[0].Key, newest) < 0, nil
}

func clone(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

// maxWindows bounds the epoch windows the games model reads below the
// unfiltered walk, so that a chain of many epochs without games is not
// read whole.
const maxWindows = 100

// overlapEpochs is how many epochs a window below the held ones shares
// with them: its rows there must agree with the held rows before its
// deeper epochs are held.
const overlapEpochs = 5

// games builds the games model. The unfiltered walk (the default window:
// the latest 30 epochs, spec section 8) is the model's core, newest first
// and oldest first. Below it, each window of 30 epochs that reaches
// overlapEpochs into the epochs held must agree with them there (the same
// games in the same order, with the same content) before its deeper epochs
// are held, as derived; the windows go down until the rows reach half the
// bound. The windows are judged by the model, never trusted over it.
func (b *builder) games() (*Model, error) {
	p, err := b.get(url.Values{pFirst: {"1"}})
	if err != nil {
		return nil, err
	}
	if len(p.Rows) == 0 {
		return NewGames(b.opt.Limits, nil, []Span{{0, 0}}, 0), nil
	}
	latest := p.Rows[0].Key.Num
	low := satSub(latest, epochSpan-1)
	core := &walk{b: b, base: url.Values{}}
	if err := core.run(b.opt.MaxRows); err != nil {
		return nil, err
	}
	if !core.done && !core.broken {
		return nil, fmt.Errorf("%s: more than %d games in epochs %d to %d: raise the bound of rows", b.l.Path(), b.opt.MaxRows, low, latest)
	}
	pin := core.rows[0].Key
	asc := &walk{b: b, base: url.Values{pNewest: {"false"}}, asc: true, pin: &pin, optional: true}
	if err := asc.run(b.opt.MaxRows); err != nil {
		return nil, err
	}
	// The epochs the core holds whole: the window's (from both walks when
	// both read it whole: each must read every game the other does),
	// unless the walk newest first broke (then those above the last epoch
	// it read whole, or the walk oldest first's), or the window moved
	// while they walked it (a new epoch: the oldest left it).
	moved := false
	if now, err := b.get(url.Values{pFirst: {"1"}}); err == nil && len(now.Rows) > 0 && now.Rows[0].Key.Num > latest {
		moved = true
		low = max(low, satSub(now.Rows[0].Key.Num, epochSpan-1))
	}
	heldLow, coreRows := low, core.rows
	inside := func(k Key) bool { return k.Num >= low && k.Num <= latest && newer(k, pin) >= 0 }
	r := ranks{ranksOf(core.rows), ranksOf(asc.rows)}
	if !moved {
		r = crossCheck(core, asc, inside)
		coreRows = unite(core, asc, inside)
	}
	switch {
	case core.broken && asc.done && !moved:
		// The walk oldest first read what the walk newest first did not.
		coreRows = unite(&walk{rows: coreRows, rank: ranksOf(coreRows), done: true}, asc, inside)
	case core.broken:
		heldLow = latest + 1
		if n := len(core.rows); n > 0 {
			heldLow = max(low, core.rows[n-1].Key.Num+1)
		}
	}
	descRanks, ascRanks := r[newestFirst], r[oldestFirst]
	var rows []Row
	for _, r := range coreRows {
		switch {
		case r.Key.Num < low && !moved:
			b.problem(core.pageOfRow(r.Key), AspectRows, nil,
				"the game %s of epoch %d is outside the default window, epochs %d to %d (spec section 8: without epochTo the window ends at the latest epoch, and spans 30 epochs)", r.Key, r.Key.Num, low, latest)
		case r.Key.Num >= heldLow && r.Key.Num <= latest:
			rows = append(rows, r)
		}
	}
	var spans, derived []Span
	if heldLow <= latest {
		spans = append(spans, Span{heldLow, latest})
	}
	half := max(1, b.opt.MaxRows/2)
	next := heldLow
	for w := 0; next > 0 && next <= latest && len(rows) < half && w < maxWindows; w++ {
		to := min(next+overlapEpochs-1, latest)
		from := satSub(to, epochSpan-1)
		got, ok := b.window(from, to, next, rows)
		if !ok {
			break
		}
		rows = append(rows, got...)
		spans = append(spans, Span{from, next - 1})
		derived = append(derived, Span{from, next - 1})
		next = from
	}
	m := &Model{Listing: Games, Limits: b.opt.Limits, head: rows, whole: true, mustCount: mustCount,
		latest: latest, spans: mergeSpans(spans), derived: mergeSpans(derived)}
	// The order newest first: the core walk's where it is trusted, each
	// window's for its deeper epochs.
	for i, r := range rows {
		if r.Key.Num < heldLow {
			descRanks[r.Key] = len(core.rows) + i // derived, in its window's order
		}
	}
	m.index(ranks{descRanks, ascRanks})
	return m, nil
}

// window walks the games of epochs [from, to] and returns those below
// next, when its games of the epochs from next up (held already) are the
// held ones, in the same order with the same content; otherwise it tells
// of the problem and returns false.
func (b *builder) window(from, to, next uint64, held []Row) ([]Row, bool) {
	base := url.Values{"epochFrom": {strconv.FormatUint(from, 10)}, "epochTo": {strconv.FormatUint(to, 10)}}
	w := &walk{b: b, base: base, optional: true}
	if err := w.run(b.opt.MaxRows); err != nil || w.broken || !w.done {
		return nil, false
	}
	q := clone(base)
	q.Set(pFirst, strconv.Itoa(b.opt.PageSize))
	var want, got, deeper []Row
	for _, r := range held {
		if r.Key.Num >= next && r.Key.Num <= to {
			want = append(want, r)
		}
	}
	for _, r := range w.rows {
		switch {
		case r.Key.Num < from || r.Key.Num > to:
			b.problem(q, AspectRows, nil, "the game %s of epoch %d is outside the window asked, epochs %d to %d", r.Key, r.Key.Num, from, to)
			return nil, false
		case r.Key.Num >= next:
			got = append(got, r)
		default:
			deeper = append(deeper, r)
		}
	}
	// A window is another query than the unfiltered listing: its games of
	// one epoch may come in another order (the spec fixes none).
	want, got = sortRowTies(want), sortRowTies(got)
	d := firstDifference(keys(want), keys(got))
	if d == "" {
		d = contentDiffers(want, got)
	}
	if d != "" {
		b.problem(q, AspectRows, nil, "the window of epochs %d to %d differs from the unfiltered listing in epochs %d to %d: %s", from, to, next, to, d)
		return nil, false
	}
	return deeper, true
}

// transactions builds the transactions model: the newest rows, walked
// down from the newest by cursor (so that the walk cannot move while the
// chain grows), the oldest page, and, when the listing is larger than the
// model holds and its cursors are "<block>.<index>", windows deep inside
// it at blocks between the two.
func (b *builder) transactions() (*Model, error) {
	n := b.opt.PageSize
	half := max(1, b.opt.MaxRows/2)
	var head []Row
	rank := map[Key]int{}
	q := url.Values{"first": {strconv.Itoa(n)}}
	done, broken := false, false
	for len(head) < half {
		a := b.ask(q)
		if a.err != nil || a.status != 200 {
			if len(head) == 0 {
				if a.err != nil {
					return nil, a.err
				}
				return nil, fmt.Errorf("%s %s: HTTP %d, want 200", b.l.Path(), Describe(q), a.status)
			}
			b.unreadable(q, a)
			broken = true
			break
		}
		p := a.page
		if d := txWalkProblem(head, rank, p.Rows); d != "" {
			b.problem(q, AspectRows, nil, "%s", d)
			broken = true
			break
		}
		for _, r := range p.Rows {
			rank[r.Key] = len(head)
			head = append(head, r)
		}
		if len(p.Rows) == 0 {
			done = true
			break
		}
		last := p.Rows[len(p.Rows)-1]
		if len(p.Rows) < n {
			more := b.ask(url.Values{"last": {"1"}, "before": {last.Cursor}})
			if more.err != nil || more.status != 200 || len(more.page.Rows) == 0 {
				done = true
				break
			}
			b.problem(q, AspectSize, nil, "want %d rows, got %d: %s is older than the page's last row %s", n, len(p.Rows), more.page.Rows[0].Key, last.Key)
		}
		q = url.Values{"last": {strconv.Itoa(n)}, "before": {last.Cursor}}
	}
	if done {
		m := &Model{Listing: Transactions, Limits: b.opt.Limits, head: head, whole: true, mustCount: mustCount}
		m.index(ranks{rank, nil})
		return m, nil
	}
	var tail []Row
	tq := url.Values{"last": {strconv.Itoa(n)}}
	if a := b.ask(tq); a.err == nil && a.status == 200 {
		if d := txWalkProblem(nil, map[Key]int{}, a.page.Rows); d != "" {
			b.problem(tq, AspectRows, nil, "%s", d)
		} else {
			tail = a.page.Rows
		}
	} else {
		b.unreadable(tq, a)
	}
	for _, r := range tail {
		if _, ok := rank[r.Key]; !ok {
			rank[r.Key] = len(rank)
		}
	}
	m := &Model{Listing: Transactions, Limits: b.opt.Limits, mustCount: mustCount}
	if merged, ok := joinRuns(head, tail); ok {
		m.head, m.whole = merged, true
	} else {
		m.head, m.tail = head, tail
		if !broken {
			m.windows = b.txWindows(head, tail, rank)
		}
		if len(tail) == 0 {
			m.tail = nil
		}
	}
	m.index(ranks{rank, nil})
	return m, nil
}

// txWalkProblem says what is wrong with a page of the walk from the
// newest transactions, after the rows read before it: a row twice, or
// rows not newest first by block.
func txWalkProblem(before []Row, rank map[Key]int, rows []Row) string {
	for i, r := range rows {
		if _, ok := rank[r.Key]; ok || slices.ContainsFunc(rows[:i], func(o Row) bool { return o.Key == r.Key }) {
			return fmt.Sprintf("the transaction %s came before in the walk from the newest: a page repeats a row", r.Key)
		}
		var prev *Row
		if i > 0 {
			prev = &rows[i-1]
		} else if len(before) > 0 {
			prev = &before[len(before)-1]
		}
		if prev != nil && r.Key.Num > prev.Key.Num {
			return fmt.Sprintf("rows out of order (newest to oldest): %s after %s", r.Key, prev.Key)
		}
	}
	return ""
}

// txWindows reads windows deep inside the transactions listing, between
// head and tail, when its cursors are "<block>.<index>": at blocks spread
// between the two, the rows just older than "<block>.0". A window whose
// answer is not what that cursor asks is left out (the deployment may not
// take a cursor of a row it does not have).
func (b *builder) txWindows(head, tail []Row, rank map[Key]int) [][]Row {
	if len(head) == 0 || len(tail) == 0 {
		return nil
	}
	for _, r := range append(slices.Clone(head), tail...) {
		if r.Cursor != fmt.Sprintf("%d.%d", r.Key.Num, r.Key.Sub) {
			return nil
		}
	}
	keep := 2 * b.opt.PageSize
	hi, lo := head[len(head)-1].Key.Num, tail[0].Key.Num
	if hi <= lo || hi-lo < uint64(4*maxHops) {
		return nil
	}
	var out [][]Row
	for k := maxHops; k >= 1; k-- {
		block := lo + (hi-lo)*uint64(k)/uint64(maxHops+1)
		q := url.Values{"last": {strconv.Itoa(keep)}, "before": {fmt.Sprintf("%d.0", block)}}
		a := b.ask(q)
		if a.err != nil || a.status != 200 || len(a.page.Rows) == 0 {
			continue
		}
		rows := a.page.Rows
		ok := txWalkProblem(nil, map[Key]int{}, rows) == ""
		for _, r := range rows {
			if _, held := rank[r.Key]; held || r.Key.Num >= block || r.Key.Num <= lo {
				ok = false
			}
		}
		if n := len(out); n > 0 && ok && rows[0].Key.Num >= out[n-1][len(out[n-1])-1].Key.Num {
			ok = false // it reaches the window above
		}
		if !ok {
			continue
		}
		for _, r := range rows {
			rank[r.Key] = len(rank)
		}
		out = append(out, slices.Clone(rows))
	}
	return out
}
