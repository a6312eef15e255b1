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
	// The limits by name, not through pointers into req, which would move
	// req to the heap.
	for i, name := range [2]string{"first", "last"} {
		v, ok := q.Get(name)
		if !ok || v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return req, parseError(name, v, err)
		}
		if n < 0 {
			return req, invalidArgument("invalid limit", name+" must not be negative").as(RefusalLimit)
		}
		if i == 0 {
			req.first = n
		} else {
			req.last = n
		}
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
	for i, c := range [2]struct {
		text string
		set  bool
	}{{before, hasBefore}, {after, hasAfter}} {
		if !c.set {
			continue
		}
		k, err := records.ParseTxCursor(c.text)
		if err != nil {
			return req, invalidArgument("invalid cursor string: "+quote.Value(c.text), err.Error()).as(RefusalInvalidCursor)
		}
		if i == 0 {
			req.before = &k
		} else {
			req.after = &k
		}
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
	s.answer(w, r, false, func(st store.Reader, b []byte) ([]byte, *apiError) {
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
	// A page of up to smallPage rows is picked and gathered on the stack.
	var pickedOn [smallPage]int
	var picked []int
	switch {
	case req.before != nil && req.after != nil:
		lo, hi := pos(*req.after, true), pos(*req.before, false)
		// One more than the page holds tells whether the window is cut.
		picked = src.descend(pickedOn[:0], hi, s.cfg.TxMaxPageSize+1, lo)
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
			picked = src.descend(pickedOn[:0], pos(*req.before, false), n, 0)
		} else {
			picked = reverse(src.ascend(pickedOn[:0], 0, n, len(keys)))
		}
	default:
		n := int(req.first)
		if n == 0 {
			n = s.cfg.TxDefaultPageSize
		}
		if req.after != nil {
			picked = reverse(src.ascend(pickedOn[:0], pos(*req.after, true), n, len(keys)))
		} else {
			picked = src.descend(pickedOn[:0], len(keys), n, 0)
		}
	}
	note.txPage(st, picked, s.txAsked(req))
	// The records are read first and the page sized to hold them, rather
	// than grown (and copied) as they are appended: pages of big commands
	// are most of the mock's work.
	var txsOn [smallPage][]byte
	txs := txsOn[:0]
	if len(picked) > smallPage {
		txs = make([][]byte, 0, len(picked))
	}
	size := len(`{"transactions":[]}`) + len(picked) + 1
	for _, idx := range picked {
		txs = append(txs, st.Tx(idx))
		size += len(txs[len(txs)-1])
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
	src := txSource{n: len(st.TxKeys())}
	switch {
	case len(req.parties) > 0:
		src.lists = make([][]int32, 0, len(req.parties))
		for _, p := range req.parties {
			src.lists = append(src.lists, st.TxsOfParty(p))
		}
		if len(req.cmdTypes) > 0 || len(req.excludeTypes) > 0 {
			src.keep = typeFilter(st, req.cmdTypes, req.excludeTypes)
		}
	case len(req.cmdTypes) > 0:
		// The sets are the request's own (a few types: on the stack); a
		// type given twice is listed once.
		excluded, included := typeSet(req.excludeTypes), map[string]bool{}
		src.lists = make([][]int32, 0, len(req.cmdTypes))
		for _, t := range req.cmdTypes {
			if !excluded[t] && !included[t] {
				included[t] = true
				src.lists = append(src.lists, st.TxsOfType(t))
			}
		}
	case len(req.excludeTypes) > 0:
		excluded := typeSet(req.excludeTypes)
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

// typeSet returns the set of types.
func typeSet(types []string) map[string]bool {
	set := make(map[string]bool, len(types))
	for _, t := range types {
		set[t] = true
	}
	return set
}

// typeFilter returns whether row i's type is one of included (any, when
// none is) and none of excluded.
func typeFilter(st store.Reader, included, excluded []string) func(i int) bool {
	in, out := typeSet(included), typeSet(excluded)
	return func(i int) bool {
		t := st.TxType(i)
		return !out[t] && (len(in) == 0 || in[t])
	}
}

// smallPage is the most rows of a transactions page picked and gathered in
// arrays on the stack: the default page (50) and most asked for.
const smallPage = 64

// ascend appends to out[:0] up to n matching rows with index in [from,
// limit), ascending: in out's array when they fit.
func (src txSource) ascend(out []int, from, n, limit int) []int {
	out = roomFor(out, n)
	if src.all {
		for i := from; i < limit && len(out) < n; i++ {
			out = append(out, i)
		}
		return out
	}
	var headsOn [8]int
	heads := headsOf(headsOn[:], len(src.lists))
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

// descend appends to out[:0] up to n matching rows with index in [floor,
// below), descending: in out's array when they fit.
func (src txSource) descend(out []int, below, n, floor int) []int {
	out = roomFor(out, n)
	if src.all {
		for i := below - 1; i >= floor && len(out) < n; i-- {
			out = append(out, i)
		}
		return out
	}
	var headsOn [8]int
	heads := headsOf(headsOn[:], len(src.lists)) // index of the next element to take, counting down
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

// roomFor returns out emptied, with room for min(n, 1024) rows (a bigger
// page grows as it fills).
func roomFor(out []int, n int) []int {
	if want := min(n, 1024); cap(out) < want {
		return make([]int, 0, want)
	}
	return out[:0]
}

// headsOf returns the first n of on, or n ints of their own when on is
// shorter.
func headsOf(on []int, n int) []int {
	if n > len(on) {
		return make([]int, n)
	}
	return on[:n]
}

func reverse(x []int) []int {
	for i, j := 0, len(x)-1; i < j; i, j = i+1, j-1 {
		x[i], x[j] = x[j], x[i]
	}
	return x
}
