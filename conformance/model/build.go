package model

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
)

// Fetch asks the deployment for a listing with a query and returns the
// answer's status and body. An error means no answer came.
type Fetch func(ctx context.Context, l Listing, q url.Values) (status int, body []byte, err error)

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

// Build reads the model of a listing from the deployment.
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
	return m.WithMustCount(opt.PageSize), nil
}

type builder struct {
	ctx   context.Context
	fetch Fetch
	l     Listing
	opt   Options
}

// get asks for one page and decodes it; anything but a 200 is an error.
func (b *builder) get(q url.Values) (*Page, error) {
	status, body, err := b.fetch(b.ctx, b.l, q)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", b.l.Path(), Describe(q), err)
	}
	if status != 200 {
		return nil, fmt.Errorf("%s %s: HTTP %d, want 200", b.l.Path(), Describe(q), status)
	}
	p, err := Decode(b.l, status, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", b.l.Path(), Describe(q), err)
	}
	return p, nil
}

// walk pages through a paged listing from q: forwards (first/after) or
// backwards (last/before), until the listing ends or limit rows are read.
// It returns the rows in listing order and whether the end was reached.
func (b *builder) walk(q url.Values, forward bool, limit int) ([]Row, bool, error) {
	var rows []Row
	count, cursor := pFirst, pAfter
	if !forward {
		count, cursor = pLast, pBefore
	}
	q = clone(q)
	q.Set(count, strconv.Itoa(b.opt.PageSize))
	seen := map[Key]bool{}
	for len(rows) < limit {
		p, err := b.get(q)
		if err != nil {
			return rows, false, err
		}
		for _, r := range p.Rows {
			if seen[r.Key] {
				return rows, false, fmt.Errorf("%s %s: the row %s came twice in one walk", b.l.Path(), Describe(q), r.Key)
			}
			seen[r.Key] = true
		}
		more := p.HasNext
		next := p.EndCursor
		if forward {
			rows = append(rows, p.Rows...)
		} else {
			rows = append(slices.Clone(p.Rows), rows...)
			more, next = p.HasPrev, p.StartCursor
		}
		if !more || len(p.Rows) == 0 {
			return rows, true, nil
		}
		q.Set(cursor, next)
	}
	return rows, false, nil
}

// paged builds the model of snapshots, key rotations or network parameters.
func (b *builder) paged() (*Model, error) {
	half := max(1, b.opt.MaxRows/2)
	head, done, err := b.walk(nil, true, half)
	if err != nil {
		return nil, err
	}
	if done {
		return New(b.l, b.opt.Limits, head, nil, true), nil
	}
	tail, _, err := b.walk(nil, false, half)
	if err != nil {
		return nil, err
	}
	if merged, ok := join(head, tail); ok {
		return New(b.l, b.opt.Limits, merged, nil, true), nil
	}
	return New(b.l, b.opt.Limits, head, tail, false), nil
}

// join merges a head and a tail that overlap (or meet) into the whole
// listing.
func join(head, tail []Row) ([]Row, bool) {
	if len(head) == 0 || len(tail) == 0 {
		return nil, false
	}
	last := head[len(head)-1].Key
	for i, r := range tail {
		if newer(r.Key, last) > 0 {
			return append(slices.Clone(head), tail[i:]...), i > 0
		}
	}
	return slices.Clone(head), true
}

// maxWindows bounds the epoch windows the games model reads from each end,
// so that a chain of many epochs without games is not read whole.
const maxWindows = 100

// games builds the games model: every game of each 30-epoch window from
// the latest epoch down, and from epoch 0 up, until the rows reach the
// bound or the windows meet.
func (b *builder) games() (*Model, error) {
	p, err := b.get(url.Values{pFirst: {"1"}})
	if err != nil {
		return nil, err
	}
	if len(p.Rows) == 0 {
		return NewGames(b.opt.Limits, nil, []Span{{0, 0}}, 0), nil
	}
	latest := p.Rows[0].Key.Num
	half := max(1, b.opt.MaxRows/2)
	var rows []Row
	var spans []Span
	// window reads every game of epochs [from, to]; false when they are
	// more than the bound (the model then holds none of them).
	window := func(from, to uint64) (bool, error) {
		q := url.Values{"epochFrom": {strconv.FormatUint(from, 10)}, "epochTo": {strconv.FormatUint(to, 10)}}
		got, done, err := b.walk(q, true, b.opt.MaxRows)
		if err != nil || !done {
			return false, err
		}
		rows = append(rows, got...)
		spans = append(spans, Span{from, to})
		return true, nil
	}
	// From the latest epoch down.
	lowest := latest + 1
	for w := 0; lowest > 0 && len(rows) < half && w < maxWindows; w++ {
		to := lowest - 1
		from := satSub(to, epochSpan-1)
		ok, err := window(from, to)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		lowest = from
	}
	if lowest > latest {
		return nil, fmt.Errorf("%s: more than %d games in epochs %d to %d: raise the bound of rows", b.l.Path(), b.opt.MaxRows, satSub(latest, epochSpan-1), latest)
	}
	// From epoch 0 up, until the windows meet.
	var bottom []Row
	top := rows
	rows = nil
	for next, w := uint64(0), 0; next < lowest && len(rows) < half && w < maxWindows; w++ {
		to := min(next+epochSpan-1, lowest-1)
		ok, err := window(next, to)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		next = to + 1
	}
	bottom = rows
	all := append(top, bottom...)
	slices.SortStableFunc(all, func(a, c Row) int { return newer(a.Key, c.Key) })
	return NewGames(b.opt.Limits, all, spans, latest), nil
}

// transactions builds the transactions model: the newest rows, walked
// down from the newest by cursor (so the window cannot move), and the
// oldest.
func (b *builder) transactions() (*Model, error) {
	n := strconv.Itoa(b.opt.PageSize)
	half := max(1, b.opt.MaxRows/2)
	var head []Row
	q := url.Values{"first": {n}}
	done := false
	for len(head) < half {
		p, err := b.get(q)
		if err != nil {
			return nil, err
		}
		head = append(head, p.Rows...)
		if len(p.Rows) < b.opt.PageSize {
			done = true
			break
		}
		q = url.Values{"last": {n}, "before": {p.Rows[len(p.Rows)-1].Cursor}}
	}
	if err := checkOrder(head); err != nil {
		return nil, fmt.Errorf("%s: %w", b.l.Path(), err)
	}
	if done {
		return New(Transactions, b.opt.Limits, head, nil, true), nil
	}
	p, err := b.get(url.Values{"last": {n}})
	if err != nil {
		return nil, err
	}
	tail := p.Rows
	if err := checkOrder(tail); err != nil {
		return nil, fmt.Errorf("%s: %w", b.l.Path(), err)
	}
	if merged, ok := join(head, tail); ok {
		return New(Transactions, b.opt.Limits, merged, nil, true), nil
	}
	return New(Transactions, b.opt.Limits, head, tail, false), nil
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
	q := url.Values{pFirst: {"1"}}
	if m.Listing == Transactions {
		q = url.Values{"first": {"1"}}
	}
	b := builder{ctx: ctx, fetch: fetch, l: m.Listing}
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
