package mockserver

import (
	"errors"
	"net/http"
	"slices"
	"sort"
	"strconv"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/internal/quote"
	"github.com/chaindata/harness/mockserver/store"
)

var errUnknownEnum = errors.New("unknown enum value")

// txRequest is a parsed transaction listing request.
type txRequest struct {
	first, last   int64
	before, after *records.TxKey
	cmdTypes      []string
	excludeTypes  []string
	parties       []string
}

// parseTxRequest reads the query and checks its rules in the order the real
// block explorer checks them, with its messages.
func (s *Server) parseTxRequest(q query) (txRequest, *apiError) {
	var req txRequest
	for _, c := range []struct {
		name string
		dst  *int64
	}{{"first", &req.first}, {"last", &req.last}} {
		v, ok := q.Get(c.name)
		if !ok || v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return req, parseError(c.name, v, err)
		}
		if n < 0 {
			return req, invalidArgument("invalid limit", c.name+" must not be negative").as(RefusalLimit)
		}
		*c.dst = n
	}
	before, hasBefore := q.Get("before")
	after, hasAfter := q.Get("after")
	hasBefore, hasAfter = hasBefore && before != "", hasAfter && after != ""
	if hasBefore && hasAfter && (req.first > 0 || req.last > 0) {
		return req, invalidArgument("cannot use neither limits `first`, nor `last` when both cursors `before` and `after` are set", "").as(RefusalLimitInWindow)
	}
	if req.first > 0 && req.last > 0 {
		return req, invalidArgument("cannot use both limits `first` and `last` within the same query", "").as(RefusalFirstAndLast)
	}
	for _, c := range []struct {
		text string
		set  bool
		dst  **records.TxKey
	}{{before, hasBefore, &req.before}, {after, hasAfter, &req.after}} {
		if !c.set {
			continue
		}
		k, err := records.ParseTxCursor(c.text)
		if err != nil {
			return req, invalidArgument("invalid cursor string: "+quote.Value(c.text), err.Error()).as(RefusalInvalidCursor)
		}
		*c.dst = &k
	}
	if req.before != nil && req.after != nil && !req.after.Less(*req.before) {
		return req, invalidArgument("cursors `before` and `after` do not create a valid window", "").as(RefusalInvalidWindow)
	}
	if req.first > 0 && req.before != nil {
		return req, invalidArgument("cannot use cursor `before` when using limit `first`", "").as(RefusalBeforeWithFirst)
	}
	if req.last > 0 && req.after != nil {
		return req, invalidArgument("cannot use cursor `after` when using limit `last`", "").as(RefusalAfterWithLast)
	}
	if n := max(req.first, req.last); n > int64(s.cfg.TxMaxPageSize) {
		return req, invalidArgument("invalid limit", "limit must be at most "+strconv.Itoa(s.cfg.TxMaxPageSize)+", got "+strconv.FormatInt(n, 10)).as(RefusalLimit)
	}
	req.cmdTypes = q.All("cmdTypes", "cmd_types")
	req.excludeTypes = q.All("excludeCmdTypes", "exclude_cmd_types")
	req.parties = q.All("parties")
	return req, nil
}

func (s *Server) listTransactions(w http.ResponseWriter, r *http.Request) {
	n := noteOf(w)
	q, err := parseQuery(r, n)
	if err != nil {
		writeError(w, err)
		return
	}
	req, err := s.parseTxRequest(q)
	if err != nil {
		writeError(w, err)
		return
	}
	s.answer(w, false, func(st store.Reader, b []byte) ([]byte, *apiError) {
		b = s.transactionsPage(st, req, b, n)
		return b, s.windowCapped(n)
	})
}

// transactionsPage appends the transactions a request asks for, and tells
// note (nil: nobody) which they are, for the request journal.
func (s *Server) transactionsPage(st store.Reader, req txRequest, b []byte, note *pageNote) []byte {
	src := s.txSource(st, req)
	keys := st.TxKeys()
	pos := func(k records.TxKey, after bool) int {
		return sort.Search(len(keys), func(i int) bool {
			if after {
				return k.Less(keys[i])
			}
			return !keys[i].Less(k)
		})
	}
	var picked []int
	switch {
	case req.before != nil && req.after != nil:
		lo, hi := pos(*req.after, true), pos(*req.before, false)
		// One more than the page holds tells whether the window is cut.
		picked = src.descend(hi, s.cfg.TxMaxPageSize+1, lo)
		if len(picked) > s.cfg.TxMaxPageSize {
			picked = picked[:s.cfg.TxMaxPageSize]
			note.windowCut()
		}
	case req.last > 0 || (req.before != nil && req.first == 0):
		n := int(req.last)
		if n == 0 {
			n = s.cfg.TxDefaultPageSize
		}
		if req.before != nil {
			picked = src.descend(pos(*req.before, false), n, 0)
		} else {
			picked = reverse(src.ascend(0, n, len(keys)))
		}
	default:
		n := int(req.first)
		if n == 0 {
			n = s.cfg.TxDefaultPageSize
		}
		if req.after != nil {
			picked = reverse(src.ascend(pos(*req.after, true), n, len(keys)))
		} else {
			picked = src.descend(len(keys), n, 0)
		}
	}
	note.txPage(st, picked, s.txAsked(req))
	// The records are read first and the page sized to hold them, rather
	// than grown (and copied) as they are appended: pages of big commands
	// are most of the mock's work.
	txs := make([][]byte, len(picked))
	size := len(`{"transactions":[]}`) + len(picked) + 1
	for i, idx := range picked {
		txs[i] = st.Tx(idx)
		size += len(txs[i])
	}
	b = slices.Grow(b, size)
	b = append(b, `{"transactions":[`...)
	for i, tx := range txs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, tx...)
	}
	return append(b, "]}\n"...)
}

// txSource yields the rows a filtered request can return: the union of some
// index lists (or all rows), kept by a predicate.
type txSource struct {
	all   bool
	n     int
	lists [][]int32
	keep  func(i int) bool
}

// txSource picks the narrowest indexes for the request's filters.
func (s *Server) txSource(st store.Reader, req txRequest) txSource {
	excluded := map[string]bool{}
	for _, t := range req.excludeTypes {
		excluded[t] = true
	}
	included := map[string]bool{}
	for _, t := range req.cmdTypes {
		included[t] = true
	}
	typeOK := func(i int) bool {
		t := st.TxType(i)
		return !excluded[t] && (len(included) == 0 || included[t])
	}
	src := txSource{n: len(st.TxKeys())}
	switch {
	case len(req.parties) > 0:
		for _, p := range req.parties {
			src.lists = append(src.lists, st.TxsOfParty(p))
		}
		if len(included) > 0 || len(excluded) > 0 {
			src.keep = typeOK
		}
	case len(included) > 0:
		for t := range included {
			if !excluded[t] {
				src.lists = append(src.lists, st.TxsOfType(t))
			}
		}
	case len(excluded) > 0:
		st.EachTxType(func(t string, list []int32) {
			if !excluded[t] {
				src.lists = append(src.lists, list)
			}
		})
	default:
		src.all = true
	}
	return src
}

// ascend returns up to n matching rows with index in [from, limit),
// ascending.
func (src txSource) ascend(from, n, limit int) []int {
	out := make([]int, 0, min(n, 1024))
	if src.all {
		for i := from; i < limit && len(out) < n; i++ {
			out = append(out, i)
		}
		return out
	}
	heads := make([]int, len(src.lists))
	for k, l := range src.lists {
		heads[k] = sort.Search(len(l), func(i int) bool { return int(l[i]) >= from })
	}
	for len(out) < n {
		next := -1
		for k, l := range src.lists {
			if heads[k] < len(l) && (next < 0 || int(l[heads[k]]) < next) {
				next = int(l[heads[k]])
			}
		}
		if next < 0 || next >= limit {
			break
		}
		for k, l := range src.lists {
			if heads[k] < len(l) && int(l[heads[k]]) == next {
				heads[k]++
			}
		}
		if src.keep == nil || src.keep(next) {
			out = append(out, next)
		}
	}
	return out
}

// descend returns up to n matching rows with index in [floor, below),
// descending.
func (src txSource) descend(below, n, floor int) []int {
	out := make([]int, 0, min(n, 1024))
	if src.all {
		for i := below - 1; i >= floor && len(out) < n; i-- {
			out = append(out, i)
		}
		return out
	}
	heads := make([]int, len(src.lists)) // index of the next element to take, counting down
	for k, l := range src.lists {
		heads[k] = sort.Search(len(l), func(i int) bool { return int(l[i]) >= below }) - 1
	}
	for len(out) < n {
		next := -1
		for k, l := range src.lists {
			if heads[k] >= 0 && int(l[heads[k]]) > next {
				next = int(l[heads[k]])
			}
		}
		if next < floor {
			break
		}
		for k, l := range src.lists {
			if heads[k] >= 0 && int(l[heads[k]]) == next {
				heads[k]--
			}
		}
		if src.keep == nil || src.keep(next) {
			out = append(out, next)
		}
	}
	return out
}

func reverse(x []int) []int {
	for i, j := 0, len(x)-1; i < j; i, j = i+1, j-1 {
		x[i], x[j] = x[j], x[i]
	}
	return x
}
