package mockserver

import (
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/internal/quote"
	"github.com/chaindata/harness/mockserver/store"
)

// pageRequest is the pagination of a request to a paged listing.
type pageRequest struct {
	first, last         int
	hasFirst, hasLast   bool
	after, before       string
	hasAfter, hasBefore bool
	newestFirst         bool
}

// parseQuery reads a request's query string, or takes it from the note n
// (nil: none), which holds it parsed for the warnings. A malformed one (a
// bad %-escape, a semicolon) is a 400, as on the gateway, rather than a
// pair silently dropped, which would turn a bad value into a default.
func parseQuery(r *http.Request, n *pageNote) (query, *apiError) {
	if n != nil && n.query != nil {
		return query{records.Query(n.query)}, nil // parsed once, for the warnings
	}
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return query{}, &apiError{status: http.StatusBadRequest, code: codeInvalidArgument, message: "parsing query: " + err.Error(), refusal: RefusalMalformedQuery}
	}
	return query{records.Query(v)}, nil
}

// query reads a request's parameters under any of their spellings, and
// the numbers and flags the listings take.
type query struct{ records.Query }

func (q query) int32(names ...string) (int, bool, *apiError) {
	s, ok := q.Get(names...)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false, parseError(names[0], s, err)
	}
	return int(n), true, nil
}

var errNotBool = errors.New("want true, false, 1 or 0")

// bool reads a boolean: true, false, 1 or 0 (docs/behaviour.md), not the
// wider set strconv.ParseBool accepts.
func (q query) bool(def bool, names ...string) (bool, *apiError) {
	s, ok := q.Get(names...)
	if !ok {
		return def, nil
	}
	switch s {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, parseError(names[0], s, errNotBool)
}

func (q query) uint64(names ...string) (uint64, bool, *apiError) {
	s, ok := q.Get(names...)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false, parseError(names[0], s, err)
	}
	return n, true, nil
}

// pagedQuery reads the query string and the pagination parameters of a
// request to one of the four paged listings (n: its note, or nil).
func (s *Server) pagedQuery(r *http.Request, n *pageNote) (query, pageRequest, *apiError) {
	q, err := parseQuery(r, n)
	if err != nil {
		return query{}, pageRequest{}, err
	}
	p, err := s.parsePagination(q)
	return q, p, err
}

// parsePagination reads and checks the pagination parameters.
func (s *Server) parsePagination(q query) (pageRequest, *apiError) {
	var p pageRequest
	var err *apiError
	if p.first, p.hasFirst, err = q.int32("pagination.first"); err != nil {
		return p, err
	}
	if p.last, p.hasLast, err = q.int32("pagination.last"); err != nil {
		return p, err
	}
	p.after, p.hasAfter = q.Get("pagination.after")
	p.before, p.hasBefore = q.Get("pagination.before")
	if p.newestFirst, err = q.bool(true, "pagination.newestFirst", "pagination.newest_first"); err != nil {
		return p, err
	}
	if p.hasAfter && p.hasBefore {
		return p, invalidPagination("cannot provide both after and before cursors").as(RefusalBothCursors)
	}
	for _, c := range []struct {
		name string
		n    int
		set  bool
	}{{"first", p.first, p.hasFirst}, {"last", p.last, p.hasLast}} {
		if c.set && (c.n <= 0 || c.n > s.cfg.MaxPageSize) {
			return p, invalidPagination("pagination limit must be in range 0-%d, got %s=%d", s.cfg.MaxPageSize, c.name, c.n).as(RefusalLimit)
		}
	}
	if s.cfg.Strict {
		switch {
		case p.hasFirst && p.hasLast:
			return p, invalidPagination("cannot provide both first and last").as(RefusalFirstAndLast)
		case p.hasFirst && p.hasBefore:
			return p, invalidPagination("cannot provide before with first: use after to page forwards").as(RefusalBeforeWithFirst)
		case p.hasLast && p.hasAfter:
			return p, invalidPagination("cannot provide after with last: use before to page backwards").as(RefusalAfterWithLast)
		}
	}
	return p, nil
}

// view is a listing's rows in listing order: either the range [lo, hi) of a
// sorted slice or an ascending list of its indexes, read in reverse when the
// listing is newest first.
type view struct {
	list   []int32
	lo, hi int
	desc   bool
}

func rangeView(n int, desc bool) view { return view{lo: 0, hi: n, desc: desc} }

func listView(list []int32, desc bool) view { return view{list: list, desc: desc} }

func (v view) len() int {
	if v.list != nil {
		return len(v.list)
	}
	return v.hi - v.lo
}

// asc returns the row of the i-th position in ascending order.
func (v view) asc(i int) int {
	if v.list != nil {
		return int(v.list[i])
	}
	return v.lo + i
}

// row returns the row at listing position p.
func (v view) row(p int) int {
	if v.desc {
		return v.asc(v.len() - 1 - p)
	}
	return v.asc(p)
}

// cmpFunc compares a row's key with a cursor's key: negative when the row
// sorts before it in ascending order, 0 when equal, positive after.
type cmpFunc func(row int) int

// afterPos returns the first listing position whose row comes after the
// cursor key in listing order.
func (v view) afterPos(cmp cmpFunc) int {
	n := v.len()
	if v.desc {
		return n - sort.Search(n, func(i int) bool { return cmp(v.asc(i)) >= 0 })
	}
	return sort.Search(n, func(i int) bool { return cmp(v.asc(i)) > 0 })
}

// beforePos returns the first listing position whose row is at or after the
// cursor key in listing order; the rows before it come before the key.
func (v view) beforePos(cmp cmpFunc) int {
	n := v.len()
	if v.desc {
		return n - sort.Search(n, func(i int) bool { return cmp(v.asc(i)) > 0 })
	}
	return sort.Search(n, func(i int) bool { return cmp(v.asc(i)) >= 0 })
}

// page selects the listing positions [start, end) a request asks for.
// decode turns a cursor into a comparison with the rows.
func (s *Server) page(p pageRequest, v view, decode func(string) (cmpFunc, error)) (start, end int, e *apiError) {
	n := v.len()
	cursorCmp := func(c string) (cmpFunc, *apiError) {
		cmp, err := decode(c)
		if err != nil {
			return nil, invalidPagination("invalid cursor %s: %v", quote.Value(c), err).as(RefusalInvalidCursor)
		}
		return cmp, nil
	}
	forward := func(count int) (int, int, *apiError) {
		start := 0
		if p.hasAfter {
			cmp, err := cursorCmp(p.after)
			if err != nil {
				return 0, 0, err
			}
			start = v.afterPos(cmp)
		}
		return start, min(n, start+count), nil
	}
	backward := func(count int) (int, int, *apiError) {
		end := n
		if p.hasBefore {
			cmp, err := cursorCmp(p.before)
			if err != nil {
				return 0, 0, err
			}
			end = v.beforePos(cmp)
		}
		return max(0, end-count), end, nil
	}
	switch {
	case p.hasFirst:
		// first wins over last, as on the real node; before is ignored.
		if p.hasBefore {
			if _, err := cursorCmp(p.before); err != nil {
				return 0, 0, err
			}
		}
		return forward(p.first)
	case p.hasLast:
		if p.hasAfter {
			if _, err := cursorCmp(p.after); err != nil {
				return 0, 0, err
			}
		}
		return backward(p.last)
	case p.hasBefore:
		return backward(s.cfg.DefaultPageSize)
	default:
		return forward(s.cfg.DefaultPageSize)
	}
}

// writePage appends a paged listing's body for positions [start, end). It
// tells n (nil: nobody) what the page holds, for the request journal.
func writePage(b []byte, wrapper string, v view, rows *store.Paged, start, end int, n *pageNote) []byte {
	b = append(b, `{"`...)
	b = append(b, wrapper...)
	b = append(b, `":{"edges":[`...)
	for p := start; p < end; p++ {
		if p > start {
			b = append(b, ',')
		}
		b = rows.AppendEdge(b, v.row(p))
	}
	b = append(b, `],"pageInfo":{"startCursor":"`...)
	startAt := len(b)
	if end > start {
		b = rows.AppendCursor(b, v.row(start))
	}
	startCursor := b[startAt:]
	b = append(b, `","endCursor":"`...)
	endAt := len(b)
	if end > start {
		b = rows.AppendCursor(b, v.row(end-1))
	}
	n.pagedPage(v, start, end, rows.Len(), startCursor, b[endAt:])
	b = append(b, `","hasNextPage":`...)
	b = strconv.AppendBool(b, end < v.len())
	b = append(b, `,"hasPreviousPage":`...)
	b = strconv.AppendBool(b, start > 0)
	b = append(b, "}}}\n"...)
	return b
}
