package mockserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/internal/quote"
	"github.com/chaindata/harness/internal/suggest"
	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/store"
)

// Contract coverage: what the mock served the client since the journal was
// last emptied, item by item, and what it never served of what it could
// (GET /harness/coverage, Server.Coverage, mocktest's AssertCovered).
//
//	GET /harness/coverage                              JSON
//	GET /harness/coverage?format=text                  the same, for people
//	GET /harness/coverage?require=page:backward&require=fault:*
//	                                                   pass only when each was served
//
// It is worked out when asked, from the request journal (which keeps each
// request's status, fault, refusal and the rows of its page) and the store
// (which says what those rows hold): serving a request records nothing for
// it. So it covers the requests the journal holds (Config.JournalSize).
//
// An item is "kind:name". The kinds, in the order they are listed:
//
//	listing:games         a page of the listing, answered whole
//	variant:Submit Order  a transaction of that type (its command variant)
//	enum:Side=SIDE_BUY    an enumeration's value     } edge world only:
//	branch:Command=amendAmm  an exclusive group's member } the rows its
//	edge:above-2^53       a value of an edge class   } catalogue lists
//	page:first            a page shape (journal.PageShapes)
//	refusal:invalid-cursor  a 400 refusal of that kind (Refusals)
//	fault:reset           a fault of that kind or item (FaultItems)
//
// A requirement is an item, "kind:*" (every item of the kind), or several
// of either separated by commas.

// CoverageKinds lists the kinds of item, in the order coverage lists them.
var CoverageKinds = []string{"listing", "variant", "enum", "branch", "edge", "page", "refusal", "fault"}

// The kinds of 400 refusal of an API request, as the journal (Request.Refusal)
// and coverage (refusal:<kind>) name them.
const (
	// RefusalMalformedQuery is a query string that does not parse (a bad
	// %-escape, a semicolon).
	RefusalMalformedQuery = "malformed-query"
	// RefusalUnparsable is a parameter whose value does not parse: a
	// number, a boolean, an enum value.
	RefusalUnparsable = "unparsable-value"
	// RefusalLimit is a page count out of range: negative, or above the
	// maximum page size.
	RefusalLimit = "limit-out-of-range"
	// RefusalBothCursors is a paged listing asked with both
	// pagination.after and pagination.before.
	RefusalBothCursors = "both-cursors"
	// RefusalFirstAndLast is a request with both first and last.
	RefusalFirstAndLast = "first-and-last"
	// RefusalBeforeWithFirst is before with first, RefusalAfterWithLast
	// after with last.
	RefusalBeforeWithFirst = "before-with-first"
	RefusalAfterWithLast   = "after-with-last"
	// RefusalInvalidCursor is a cursor that does not parse.
	RefusalInvalidCursor = "invalid-cursor"
	// RefusalLimitInWindow is a transactions window (before and after)
	// asked with first or last.
	RefusalLimitInWindow = "limit-in-window"
	// RefusalInvalidWindow is a transactions window whose after is not
	// older than its before.
	RefusalInvalidWindow = "invalid-window"
	// RefusalEpochRange is a games request whose epochFrom is above its
	// epochTo, refused under Config.Strict.
	RefusalEpochRange = "epoch-range"
	// RefusalStrictParams is a request that drew a warning, refused under
	// Config.StrictParams.
	RefusalStrictParams = "strict-params"
	// RefusalRequestTarget is a request target that is not a path.
	RefusalRequestTarget = "request-target"
)

// Refusals lists the kinds of refusal.
var Refusals = []string{
	RefusalMalformedQuery, RefusalUnparsable, RefusalLimit, RefusalBothCursors, RefusalFirstAndLast,
	RefusalBeforeWithFirst, RefusalAfterWithLast, RefusalInvalidCursor, RefusalLimitInWindow,
	RefusalInvalidWindow, RefusalEpochRange, RefusalStrictParams, RefusalRequestTarget,
}

// FaultItems lists the items of the fault grammar (package faults) coverage
// counts: each kind, a latency, and a Retry-After.
var FaultItems = []string{"latency", "status", "retry-after", "reset", "empty", "truncate", "slow-body", "garbage"}

// Coverage is what the mock served the client: GET /harness/coverage's
// answer.
type Coverage struct {
	// Requests counts the API requests of the journal it covers.
	Requests int `json:"requests"`
	// Kinds are the items served and never served, kind by kind, in
	// CoverageKinds order.
	Kinds []CoverageKind `json:"kinds"`
	// Notes say what it could not cover: edges outside the edge world,
	// pages whose rows the journal let go.
	Notes []string `json:"notes"`
	// Pass says every requirement was served; Missing lists the items
	// required that were not.
	Pass    bool     `json:"pass"`
	Missing []string `json:"missing"`
}

// CoverageKind is one kind's items.
type CoverageKind struct {
	Kind string `json:"kind"`
	// Served are the items served, in the kind's order, with how many
	// requests' answers held each and the first of them.
	Served []CoveredItem `json:"served"`
	// Never are the items the mock could have served and did not.
	Never []string `json:"never"`
}

// CoveredItem is an item served: Count answers held it, the first being
// request First's.
type CoveredItem struct {
	Item  string `json:"item"`
	Count int    `json:"count"`
	First uint64 `json:"first"`
}

// CoverageError is a requirement that names no item the mock could serve.
type CoverageError struct{ Message string }

func (e *CoverageError) Error() string { return e.Message }

// Coverage returns what the journal's requests were served, judged by the
// requirements given (each an item, kind:*, or a comma-separated list of
// them). A requirement naming no item the mock could serve is a
// *CoverageError.
func (s *Server) Coverage(require ...string) (Coverage, error) {
	served := s.journal.Served(s.pageSizeAsked)
	var out Coverage
	var seen map[string]*counted
	var universe map[string][]string
	s.store.Read(func(st store.Reader) {
		universe = s.coverageUniverse(st)
		seen, out.Notes = s.servedItems(st, served)
	})
	for _, r := range served {
		if r.Listing != "" {
			out.Requests++
		}
	}
	for _, kind := range CoverageKinds {
		out.Kinds = append(out.Kinds, coverageKind(kind, universe[kind], seen))
	}
	missing, err := judgeCoverage(require, universe, seen)
	if err != nil {
		return Coverage{}, err
	}
	out.Pass, out.Missing = len(missing) == 0, missing
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return out, nil
}

// counted is an item's count and first request.
type counted struct {
	n     int
	first uint64
}

// pageSizeAsked is the count a paged listing's request asks for.
func (s *Server) pageSizeAsked(_ string, q url.Values) int {
	for _, k := range []string{"pagination.first", "pagination.last"} {
		if v := q.Get(k); v != "" {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return s.cfg.DefaultPageSize
}

// coverageUniverse lists, by kind, every item the mock could serve.
func (s *Server) coverageUniverse(st store.Reader) map[string][]string {
	u := map[string][]string{
		"listing": slices.Clone(listings),
		"page":    slices.Clone(journal.PageShapes),
		"refusal": slices.Clone(Refusals),
		"fault":   slices.Clone(FaultItems),
	}
	st.EachTxType(func(name string, _ []int32) { u["variant"] = append(u["variant"], name) })
	slices.Sort(u["variant"])
	if s.cfg.Edges != nil {
		classes := map[string]bool{}
		for _, k := range s.cfg.Edges.Keys() { // sorted
			item, kind := edgeItem(k)
			if kind != "edge" {
				u[kind] = append(u[kind], item)
			} else if !classes[item] {
				classes[item] = true
				u["edge"] = append(u["edge"], item)
			}
		}
	}
	return u
}

// edgeItem names an edge key as a coverage item (without its kind) and
// returns its kind: enum and branch by value, the others by class.
func edgeItem(k edges.Key) (item, kind string) {
	switch k.Class {
	case edges.Enum:
		return k.Field + "=" + k.Value, "enum"
	case edges.Branch:
		return k.Field + "=" + k.Value, "branch"
	}
	return string(k.Class), "edge"
}

// servedItems counts the items each request's answer held, by "kind:item".
func (s *Server) servedItems(st store.Reader, served []journal.Served) (map[string]*counted, []string) {
	seen := map[string]*counted{}
	var held []string
	mark := func(id uint64, items []string) {
		for _, it := range items {
			c := seen[it]
			if c == nil {
				c = &counted{first: id}
				seen[it] = c
			}
			c.n++
		}
	}
	rows := s.rowItems(st)
	dropped := 0
	for _, r := range served {
		held = held[:0]
		if r.Refusal != "" {
			held = append(held, "refusal:"+r.Refusal)
		}
		for _, f := range faultNames(r.Fault) {
			held = append(held, "fault:"+f)
		}
		if r.Whole {
			held = append(held, "listing:"+r.Listing)
			for _, sh := range r.Shapes {
				held = append(held, "page:"+sh)
			}
			if r.RowsKnown() {
				held = rows.of(r.Listing, r.Page.Runs, held)
			} else if r.Rows > 0 {
				dropped++
			}
		}
		mark(r.ID, held)
	}
	var notes []string
	if s.cfg.Edges == nil {
		notes = append(notes, "enum, branch and edge items are known in the edge world only (harness serve --world edges)")
	}
	if dropped > 0 {
		notes = append(notes, plural(dropped, "page")+"' rows were let go by the journal (its bound of memory): their variants and edges are not counted")
	}
	return seen, notes
}

// faultNames returns the items of a fault as the journal writes it
// ("latency=10ms; status=503; retry-after=1 (rule 1)"): latency, status,
// retry-after...
func faultNames(f string) []string {
	if f == "" {
		return nil
	}
	f, _, _ = strings.Cut(f, " (") // what asked for it
	var out []string
	for _, item := range strings.Split(f, "; ") {
		name, _, _ := strings.Cut(item, "=")
		out = append(out, name)
	}
	return out
}

// rowItems finds the items store rows hold, once per row.
type rowItems struct {
	s    *Server
	st   store.Reader
	memo map[rowRef][]string
	buf  []byte
}

type rowRef struct {
	listing string
	row     int32
}

func (s *Server) rowItems(st store.Reader) *rowItems {
	return &rowItems{s: s, st: st, memo: map[rowRef][]string{}}
}

// of appends to held the items the rows of runs of listing hold, each
// once.
func (ri *rowItems) of(listing string, runs []journal.RowRun, held []string) []string {
	start := len(held)
	for _, run := range runs {
		for i := run.First; i < run.First+run.N; i++ {
			for _, it := range ri.row(listing, i) {
				if !slices.Contains(held[start:], it) {
					held = append(held, it)
				}
			}
		}
	}
	return held
}

// row returns the items of one row: its variant, and its edges when the
// catalogue lists it.
func (ri *rowItems) row(listing string, i int32) []string {
	ref := rowRef{listing, i}
	if items, ok := ri.memo[ref]; ok {
		return items
	}
	var items []string
	st := ri.st
	var cursor []byte
	switch listing {
	case records.ListingTransactions:
		if int(i) < len(st.TxKeys()) {
			items = append(items, "variant:"+st.TxType(int(i)))
			cursor = appendTxCursor(ri.buf[:0], st.TxKeys()[i])
		}
	default:
		if p := pagedOf(st, listing); p != nil && int(i) < p.Len() {
			cursor = p.AppendCursor(ri.buf[:0], int(i))
		}
	}
	ri.buf = cursor
	if cat := ri.s.cfg.Edges; cat != nil && cursor != nil {
		for _, e := range cat.Row(listing, string(cursor)) {
			item, kind := edgeItem(e.Key)
			items = append(items, kind+":"+item)
		}
	}
	ri.memo[ref] = items
	return items
}

// pagedOf returns a paged listing's rows (nil for transactions).
func pagedOf(st store.Reader, listing string) *store.Paged {
	switch listing {
	case records.ListingGames:
		return st.Games()
	case records.ListingSnapshots:
		return st.Snapshots()
	case records.ListingKeyRotations:
		return st.Rotations()
	case records.ListingNetworkParameters:
		return st.Parameters()
	}
	return nil
}

// coverageKind lists one kind's items served and never served: the
// universe's in its order, then any served beyond it.
func coverageKind(kind string, universe []string, seen map[string]*counted) CoverageKind {
	out := CoverageKind{Kind: kind, Served: []CoveredItem{}, Never: []string{}}
	prefix := kind + ":"
	for _, name := range universe {
		if c := seen[prefix+name]; c != nil {
			out.Served = append(out.Served, CoveredItem{Item: prefix + name, Count: c.n, First: c.first})
		} else {
			out.Never = append(out.Never, prefix+name)
		}
	}
	var extra []string
	for it := range seen {
		if strings.HasPrefix(it, prefix) && !slices.Contains(universe, it[len(prefix):]) {
			extra = append(extra, it)
		}
	}
	sort.Strings(extra)
	for _, it := range extra {
		c := seen[it]
		out.Served = append(out.Served, CoveredItem{Item: it, Count: c.n, First: c.first})
	}
	return out
}

// judgeCoverage returns the items required and not served.
func judgeCoverage(require []string, universe map[string][]string, seen map[string]*counted) ([]string, error) {
	missing := []string{}
	for _, req := range require {
		for _, item := range strings.Split(req, ",") {
			item = strings.TrimSpace(item)
			items, err := requiredItems(item, universe, seen)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				if seen[it] == nil && !slices.Contains(missing, it) {
					missing = append(missing, it)
				}
			}
		}
	}
	return missing, nil
}

// requiredItems returns the items a requirement names: one, or a kind's
// every item for kind:*.
func requiredItems(item string, universe map[string][]string, seen map[string]*counted) ([]string, error) {
	kind, name, ok := strings.Cut(item, ":")
	if !ok || name == "" || !slices.Contains(CoverageKinds, kind) {
		return nil, &CoverageError{Message: fmt.Sprintf("requirement %s: want kind:item or kind:*, of the kinds %s%s",
			quote.Value(item), strings.Join(CoverageKinds, ", "), suggest.Phrase(suggest.Nearest(kind, CoverageKinds, 1), strconv.Quote))}
	}
	if name == "*" {
		out := make([]string, len(universe[kind]))
		for i, n := range universe[kind] {
			out[i] = kind + ":" + n
		}
		return out, nil
	}
	if slices.Contains(universe[kind], name) || seen[item] != nil {
		return []string{item}, nil
	}
	if len(universe[kind]) == 0 {
		return nil, &CoverageError{Message: fmt.Sprintf("requirement %s: this mock serves no %s item (enum, branch and edge items need the edge world: harness serve --world edges)", quote.Value(item), kind)}
	}
	return nil, &CoverageError{Message: fmt.Sprintf("requirement %s: the mock serves no such %s item; it serves %s%s", quote.Value(item), kind,
		listSome(universe[kind]), suggest.Phrase(prefixed(kind, suggest.Nearest(name, universe[kind], 1)), strconv.Quote))}
}

// listSome names the first few of a list, and how many more.
func listSome(names []string) string {
	const some = 12
	if len(names) <= some {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:some], ", ") + fmt.Sprintf(" and %d more", len(names)-some)
}

func prefixed(kind string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = kind + ":" + n
	}
	return out
}

// WriteText writes the coverage for people: a line per kind with what
// was served of it, then its items served, with their counts, and those
// never served.
func (c Coverage) WriteText(b *strings.Builder) {
	fmt.Fprintf(b, "coverage of %s since the journal was last emptied\n", plural(c.Requests, "API request"))
	for _, k := range c.Kinds {
		total := len(k.Served) + len(k.Never)
		fmt.Fprintf(b, "%s: %d of %d served\n", k.Kind, len(k.Served), total)
		if len(k.Served) > 0 {
			parts := make([]string, len(k.Served))
			for i, it := range k.Served {
				parts[i] = fmt.Sprintf("%s ×%d", strings.TrimPrefix(it.Item, k.Kind+":"), it.Count)
			}
			b.WriteString("  served: " + strings.Join(parts, ", ") + "\n")
		}
		if len(k.Never) > 0 {
			parts := make([]string, len(k.Never))
			for i, it := range k.Never {
				parts[i] = strings.TrimPrefix(it, k.Kind+":")
			}
			b.WriteString("  never:  " + strings.Join(parts, ", ") + "\n")
		}
	}
	for _, n := range c.Notes {
		b.WriteString("note: " + n + "\n")
	}
	if len(c.Missing) > 0 {
		b.WriteString("FAIL: required and never served: " + strings.Join(c.Missing, ", ") + "\n")
	}
}

// coverageParams are the parameters GET /harness/coverage takes.
var coverageParams = []string{"format", "require"}

func (s *Server) handleCoverage(w http.ResponseWriter, r *http.Request) {
	bad := func(format string, a ...any) {
		writeError(w, invalidArgument("invalid coverage request", fmt.Sprintf(format, a...)))
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		bad("parsing query: %v", err)
		return
	}
	for k, v := range q {
		if !slices.Contains(coverageParams, k) {
			bad("unknown parameter %s: give %s%s", quote.Value(k), strings.Join(coverageParams, " or "),
				suggest.Phrase(suggest.Nearest(k, coverageParams, 1), strconv.Quote))
			return
		}
		if k == "format" && len(v) != 1 {
			bad("format given %d times: give it once", len(v))
			return
		}
	}
	text := false
	if f, ok := q["format"]; ok {
		switch f[0] {
		case "json":
		case "text":
			text = true
		default:
			bad("format %s: want json or text", quote.Value(f[0]))
			return
		}
	}
	c, cerr := s.Coverage(q["require"]...)
	if cerr != nil {
		bad("%s", cerr.Error())
		return
	}
	if !text {
		writeJSON(w, c)
		return
	}
	var b strings.Builder
	c.WriteText(&b)
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(b.String()))
}
