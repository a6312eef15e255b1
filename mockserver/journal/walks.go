package journal

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/warnings"
)

// Walks: the journal read as clients' walks through the listings. Each
// request that carries a cursor is linked to the page that issued it, so
// that a walk is one chain of pages; the walk is then checked against the
// listing as it was when the walk began.
//
// A request joins a walk by these rules, in the order the requests arrived:
//
//   - A request without a cursor begins a walk, unless the request before
//     it with the same path and query was the last of its walk and was not
//     answered whole (an error, a fault): then it is that request's retry.
//   - A request whose cursor the newest page of a walk of the same listing
//     and filters issued (its startCursor or endCursor) continues that
//     walk: of several, the one whose page went to the same client address,
//     then the one that asked last. So does a request whose cursor names a
//     row inside such a page, when no page issued the cursor itself.
//   - Any other request with a cursor jumps: it joins the walk of the latest
//     request with the same listing and filters (or begins one), and unless
//     an earlier page of that walk issued the cursor (or holds its row), the
//     walk counts it as a cursor not issued by an earlier page.
//
// A page counts once answered whole: a 200 that no fault cut, garbled or
// dropped. Only such pages issue cursors.
//
// A games walk may go through the epochs window by window: its epochFrom
// and epochTo are not part of its filters, and a request without a cursor
// whose window is next to the latest window of a walk of the same filters
// and client (epochFrom just after its epochTo, or epochTo just before its
// epochFrom) goes on with that walk. Once a walk has gone through two
// windows so, a window further on in the same direction goes on with it
// too, and the epochs left out between are reported. A window left before
// its last page is reported when the next one begins.
//
// Clients are told apart so that several walking the same listing at once
// each get their own walk: a request that carries an X-Harness-Client
// header (ClientHeader) only joins walks of requests with the same value;
// without it, where the rules above leave a choice, a walk whose newest page
// went to the same connection (remote address) comes first, then one whose
// newest page went to the same User-Agent from the same host. A retry must
// come from the same client: the same X-Harness-Client, else the same
// User-Agent and host.

// ClientHeader is the request header a client may send to name itself
// ("orders-sync-1"), so that its walks are told apart from other clients'
// for sure: without it, clients are told apart by connection and
// User-Agent, which clients sharing both cannot be.
const ClientHeader = "X-Harness-Client"

// Walk is one client's walk through a listing, as GET /harness/walks
// answers it.
type Walk struct {
	// ID is the ID of its first request.
	ID      uint64 `json:"id"`
	Listing string `json:"listing"`
	Path    string `json:"path"`
	// Query is its first request's query.
	Query string `json:"query"`
	// Requests are the IDs of its requests, in order, retries and errors
	// included.
	Requests []uint64 `json:"requests"`
	// Pages counts the pages answered whole; Rows the rows in them.
	Pages int `json:"pages"`
	Rows  int `json:"rows"`
	// ReachedEnd says a page had no rows beyond it in the walk's
	// direction: a paged listing's hasNextPage false (hasPreviousPage
	// going backwards), transactions fewer rows than asked for.
	ReachedEnd bool `json:"reachedEnd"`
	// CursorsNotIssued are the cursors its requests carried that no
	// earlier page of the walk issued.
	CursorsNotIssued []CursorUse `json:"cursorsNotIssued"`
	// PagesAskedTwice are the pages it asked again after one was answered
	// whole: the same listing and query.
	PagesAskedTwice []PageRepeat `json:"pagesAskedTwice"`
	// RowsChecked says its rows were compared with the listing as it was
	// when the walk began: false when the journal let them go (a bound of
	// its memory) or the listing could not be read back.
	RowsChecked bool `json:"rowsChecked"`
	// RowsMissed counts rows the listing held when the walk began, that
	// match its filters and lie in the part of the listing the walk went
	// through (from its start to its end when it began without a cursor
	// and reached the end), which no page gave it. RowsSeenTwice counts
	// the rows its pages gave more than once.
	RowsMissed    int `json:"rowsMissed"`
	RowsSeenTwice int `json:"rowsSeenTwice"`
	// RetryAfter lists each answer with a Retry-After and how long the
	// client waited before its next request of the walk.
	RetryAfter []RetryWait `json:"retryAfter"`
	// WaitedOutRetryAfter says the client waited at least Retry-After
	// after each such answer it asked again after.
	WaitedOutRetryAfter bool `json:"waitedOutRetryAfter"`
	// Windows are the epoch windows a games walk went through, in order
	// (one for a walk of one window).
	Windows []EpochSpan `json:"windows,omitempty"`
	// EpochsSkipped are the epochs between two windows the walk did not
	// ask; WindowsLeft the windows it left before their last page.
	EpochsSkipped []EpochSpan `json:"epochsSkipped,omitempty"`
	WindowsLeft   []EpochSpan `json:"windowsLeft,omitempty"`
	// Problems says, in sentences, what a client that walks the listing
	// once, whole, should not have done: every finding above.
	Problems []string `json:"problems"`
}

// EpochSpan is the epochs From to To; Request the request of its first
// page (of a window) or that left it out (of epochs skipped).
type EpochSpan struct {
	From    uint64 `json:"from"`
	To      uint64 `json:"to"`
	Request uint64 `json:"request"`
}

// CursorUse is a cursor a walk carried that no earlier page of it issued.
type CursorUse struct {
	Request uint64 `json:"request"`
	Cursor  string `json:"cursor"`
	// IssuedBy is the request of another walk whose page issued it (0:
	// no page did).
	IssuedBy uint64 `json:"issuedBy,omitempty"`
}

// PageRepeat is a page asked again: request Request asked what request
// First had been answered whole.
type PageRepeat struct {
	Request uint64 `json:"request"`
	First   uint64 `json:"first"`
}

// RetryWait is an answer with a Retry-After and the wait that followed it.
type RetryWait struct {
	// Request is the answer's request, Next the walk's next request (0:
	// the walk asked nothing more).
	Request uint64 `json:"request"`
	Next    uint64 `json:"next,omitempty"`
	// AskedS is the Retry-After in seconds; WaitedMS the time from the
	// answer to the next request, in milliseconds.
	AskedS   int     `json:"askedS"`
	WaitedMS float64 `json:"waitedMs"`
	Honoured bool    `json:"honoured"`
}

// OK reports whether the walk has no problem.
func (w *Walk) OK() bool { return len(w.Problems) == 0 }

// Walks returns the walks of the journal's requests, oldest first; listing
// ("" for all) keeps one listing's.
func (j *Journal) Walks(listing string) []Walk {
	wk := walkRecords(j.src, j.records())
	out := []Walk{}
	for _, w := range wk.walks {
		if listing == "" || w.Listing == listing {
			out = append(out, wk.finishWalk(w))
		}
	}
	return out
}

// maxHeadScan bounds the walks whose newest page is searched for a row a
// cursor names, and maxPageScan the pages searched for the issuer of a
// jump's cursor: the journal is read on every report.
const (
	maxHeadScan = 64
	maxPageScan = 512
)

// walker groups records into walks.
type walker struct {
	src   Source
	walks []*walkState
	// byHead maps a listing and cursor to the walks whose newest page
	// issued it; issued, to the latest page that did.
	byHead map[string][]*walkState
	issued map[string]*Record
	// byFilters maps a listing and its filters to its walks, oldest first.
	byFilters map[string][]*walkState
	// lastExact maps a path and query, and a client, to the walk of the
	// latest request with them.
	lastExact map[string]*walkState
	pages     []*Record // every page answered whole, oldest first
	walkOf    map[uint64]*walkState
	issuedBy  map[uint64]uint64
}

// walkState is a walk being put together.
type walkState struct {
	Walk
	filters string
	recs    []*Record
	infos   []reqInfo
	head    *Record // its newest page answered whole
	// window is the epochs of a games walk's latest window (hasWindow),
	// windowEnd that a page of it had no rows beyond it.
	window               EpochSpan
	hasWindow, windowEnd bool
	first                *Record // its first such page
	firstAt              reqInfo
	asked                map[string]uint64 // pages asked, by listing and query, to the first request
}

// reqInfo is what the walks read in a request's query.
type reqInfo struct {
	q       url.Values
	cursors []string
	filters string // listing and filters: the walk's identity
	page    string // listing and whole query, in canonical order
	exact   string // path and raw query, and the client
}

// walkID returns the walk of a request (0: none).
func (wk *walker) walkID(id uint64) uint64 {
	if w := wk.walkOf[id]; w != nil {
		return w.ID
	}
	return 0
}

// walkRecords groups recs, oldest first, into walks.
func walkRecords(src Source, recs []*Record) *walker {
	wk := &walker{
		src: src, byHead: map[string][]*walkState{}, issued: map[string]*Record{},
		byFilters: map[string][]*walkState{}, lastExact: map[string]*walkState{},
		walkOf: map[uint64]*walkState{}, issuedBy: map[uint64]uint64{},
	}
	for _, rec := range recs {
		if rec.Listing != "" && rec.Method == http.MethodGet { // a HEAD gives no rows
			wk.add(rec)
		}
	}
	return wk
}

// info reads a request's query for the walks.
func readInfo(rec *Record) reqInfo {
	q, _ := url.ParseQuery(rec.Query)
	in := reqInfo{q: q, exact: rec.Path + "?" + rec.Query + "\x00" + clientOf(rec), page: rec.Listing + "?" + q.Encode()}
	filters := url.Values{}
	for k, v := range q {
		if !PagingParam(rec.Listing, k) && !epochParam(rec.Listing, k) {
			filters[k] = v
		}
	}
	in.filters = rec.Listing + "?" + filters.Encode()
	if rec.Client != "" {
		in.filters += "\x00" + rec.Client
	}
	after, before := "pagination.after", "pagination.before"
	if rec.Listing == records.ListingTransactions {
		after, before = "after", "before"
	}
	for _, k := range []string{after, before} {
		if c := q.Get(k); c != "" {
			in.cursors = append(in.cursors, c)
		}
	}
	return in
}

// epochParam reports whether a parameter sets a games request's epoch
// window, which a walk may move (not one of its filters).
func epochParam(listing, name string) bool {
	if listing != records.ListingGames {
		return false
	}
	switch name {
	case "epochFrom", "epoch_from", "epochTo", "epoch_to":
		return true
	}
	return false
}

// PagingParam reports whether a parameter pages a listing rather than
// filters it.
func PagingParam(listing, name string) bool {
	if listing == records.ListingTransactions {
		return name == "first" || name == "last" || name == "before" || name == "after"
	}
	return strings.HasPrefix(name, "pagination.")
}

// add puts a request in its walk.
func (wk *walker) add(rec *Record) {
	in := readInfo(rec)
	w, issuer := wk.place(rec, in)
	w.recs, w.infos = append(w.recs, rec), append(w.infos, in)
	w.Requests = append(w.Requests, rec.ID)
	wk.walkOf[rec.ID] = w
	if issuer != 0 {
		wk.issuedBy[rec.ID] = issuer
	}
	if n := len(w.recs); n >= 2 && w.recs[n-2].RetryAfter > 0 {
		w.retried(w.recs[n-2], rec)
	}
	if rec.Whole {
		wk.page(w, rec, in)
	}
	wk.lastExact[in.exact] = w
}

// place finds the walk a request joins (making one when it begins one) and
// the page that issued its cursor (0: none).
func (wk *walker) place(rec *Record, in reqInfo) (*walkState, uint64) {
	if len(in.cursors) == 0 {
		if w := wk.lastExact[in.exact]; w != nil {
			last := w.recs[len(w.recs)-1]
			if !last.Whole && w.infos[len(w.infos)-1].exact == in.exact {
				return w, 0 // a retry
			}
		}
		if w := wk.nextWindow(rec, in); w != nil {
			return w, 0
		}
		return wk.begin(rec, in), 0
	}
	if w := wk.headIssuer(rec, in); w != nil {
		return w, w.head.ID
	}
	issuer := wk.exactIssuer(rec.Listing, in.cursors)
	if issuer == nil {
		if w := wk.headHolding(rec, in); w != nil {
			return w, w.head.ID
		}
		issuer = wk.rowIssuer(rec.Listing, in.cursors)
	}
	walks := wk.byFilters[in.filters]
	var w *walkState
	if len(walks) > 0 {
		w = walks[len(walks)-1]
	} else {
		w = wk.begin(rec, in)
	}
	var id uint64
	if issuer != nil {
		id = issuer.ID
	}
	if issuer == nil || wk.walkOf[issuer.ID] != w {
		w.CursorsNotIssued = append(w.CursorsNotIssued, CursorUse{Request: rec.ID, Cursor: in.cursors[0], IssuedBy: id})
	}
	return w, id
}

// nextWindow returns the walk whose next epoch window a games request
// without a cursor asks, having noted the epochs it leaves out; nil when
// it asks none's.
func (wk *walker) nextWindow(rec *Record, in reqInfo) *walkState {
	span, ok := requestWindow(rec, in)
	if !ok {
		return nil
	}
	walks := wk.byFilters[in.filters]
	var found *walkState
	var skipped *EpochSpan
	for i := len(walks) - 1; i >= 0 && i >= len(walks)-maxHeadScan; i-- {
		w := walks[i]
		if !w.hasWindow {
			continue
		}
		gap, ok := w.follows(span)
		if ok && (found == nil || sameClient(w.recs[len(w.recs)-1], rec) && !sameClient(found.recs[len(found.recs)-1], rec)) {
			found, skipped = w, gap
		}
	}
	if found == nil {
		return nil
	}
	if !found.windowEnd {
		found.WindowsLeft = append(found.WindowsLeft, found.window)
	}
	if skipped != nil {
		skipped.Request = rec.ID
		found.EpochsSkipped = append(found.EpochsSkipped, *skipped)
	}
	found.ReachedEnd, found.windowEnd, found.hasWindow = false, false, false // the new window's first page sets them
	return found
}

// follows reports whether span is a window the walk may go on to: next to
// its latest, or after two windows next to each other, further on in their
// direction (then with the epochs between).
func (w *walkState) follows(span EpochSpan) (*EpochSpan, bool) {
	last := w.window
	up := len(w.Windows) < 2 || w.Windows[len(w.Windows)-1].From > w.Windows[len(w.Windows)-2].From
	switch {
	case last.To < math.MaxUint64 && span.From == last.To+1 && up:
		return nil, true
	case last.From > 0 && span.To == last.From-1 && (!up || len(w.Windows) < 2):
		return nil, true
	case len(w.Windows) < 2:
		return nil, false
	case up && last.To < math.MaxUint64 && span.From > last.To+1:
		return &EpochSpan{From: last.To + 1, To: span.From - 1}, true
	case !up && last.From > 0 && span.To < last.From-1:
		return &EpochSpan{From: span.To + 1, To: last.From - 1}, true
	}
	return nil, false
}

// requestWindow returns the epoch window of a games request: its page's,
// or when it has none, the epochFrom and epochTo it gives.
func requestWindow(rec *Record, in reqInfo) (EpochSpan, bool) {
	if rec.Listing != records.ListingGames {
		return EpochSpan{}, false
	}
	if rec.HasPage && rec.Page.Window {
		return EpochSpan{From: rec.Page.EpochFrom, To: rec.Page.EpochTo, Request: rec.ID}, true
	}
	from, err1 := strconv.ParseUint(param(in.q, "epochFrom", "epoch_from"), 10, 64)
	to, err2 := strconv.ParseUint(param(in.q, "epochTo", "epoch_to"), 10, 64)
	if err1 != nil || err2 != nil || from > to {
		return EpochSpan{}, false
	}
	return EpochSpan{From: from, To: to, Request: rec.ID}, true
}

// begin makes a walk that begins with rec.
func (wk *walker) begin(rec *Record, in reqInfo) *walkState {
	w := &walkState{
		Walk:    Walk{ID: rec.ID, Listing: rec.Listing, Path: rec.Path, Query: rec.Query},
		filters: in.filters, asked: map[string]uint64{},
	}
	wk.walks = append(wk.walks, w)
	wk.byFilters[in.filters] = append(wk.byFilters[in.filters], w)
	return w
}

// headIssuer returns the walk of the same listing and filters whose newest
// page issued the request's cursor.
func (wk *walker) headIssuer(rec *Record, in reqInfo) *walkState {
	var found []*walkState
	for _, c := range in.cursors {
		for _, w := range wk.byHead[rec.Listing+"\x00"+c] {
			if w.filters == in.filters {
				found = append(found, w)
			}
		}
	}
	return latestActive(found, rec)
}

// headHolding returns the walk of the same listing and filters whose newest
// page holds the row the request's cursor names: a client that goes on from
// a row inside the page rather than its end.
func (wk *walker) headHolding(rec *Record, in reqInfo) *walkState {
	var found []*walkState
	walks := wk.byFilters[in.filters]
	for i := len(walks) - 1; i >= 0 && i >= len(walks)-maxHeadScan; i-- {
		if w := walks[i]; w.head != nil && wk.holdsCursorRow(w.head, in.cursors) {
			found = append(found, w)
		}
	}
	return latestActive(found, rec)
}

// latestActive returns, of walks, the one whose newest page went to rec's
// connection, else to its User-Agent and host, else any, that asked
// something last: when walks of one query share a cursor, the one just
// answered is likely the one that goes on.
func latestActive(walks []*walkState, rec *Record) *walkState {
	better := func(w, than *walkState) bool {
		if mine, theirs := w.head.Remote == rec.Remote, than.head.Remote == rec.Remote; mine != theirs {
			return mine
		}
		if mine, theirs := sameClient(w.head, rec), sameClient(than.head, rec); mine != theirs {
			return mine
		}
		return w.lastID() > than.lastID()
	}
	var best *walkState
	for _, w := range walks {
		if best == nil || better(w, best) {
			best = w
		}
	}
	return best
}

// sameClient reports whether two requests came from the same client, as far
// as can be told: the same X-Harness-Client, or without one, the same
// User-Agent from the same host.
func sameClient(a, b *Record) bool { return clientOf(a) == clientOf(b) }

// clientOf names the client of a request, as far as can be told: its
// X-Harness-Client, or without one, its User-Agent and host.
func clientOf(r *Record) string {
	if r.Client != "" {
		return "client " + r.Client
	}
	return r.UserAgent + "\x00" + remoteHost(r.Remote)
}

// remoteHost is the host of a remote address, without its port.
func remoteHost(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// lastID is the ID of the walk's latest request.
func (w *walkState) lastID() uint64 { return w.recs[len(w.recs)-1].ID }

// holdsCursorRow reports whether page holds the row one of cursors names.
func (wk *walker) holdsCursorRow(page *Record, cursors []string) bool {
	if !page.HasPage {
		return false
	}
	for _, c := range cursors {
		if i, ok := wk.src.CursorRow(page.Listing, c); ok && containsRow(page.Page.Runs, int32(i)) {
			return true
		}
	}
	return false
}

// exactIssuer returns the latest page of listing whose start or end cursor
// is one of cursors (nil: none).
func (wk *walker) exactIssuer(listing string, cursors []string) *Record {
	for _, c := range cursors {
		if p := wk.issued[listing+"\x00"+c]; p != nil {
			return p
		}
	}
	return nil
}

// rowIssuer returns the latest page of listing, of the last maxPageScan,
// that holds the row one of cursors names (nil: none).
func (wk *walker) rowIssuer(listing string, cursors []string) *Record {
	for i, n := len(wk.pages)-1, 0; i >= 0 && n < maxPageScan; i-- {
		if p := wk.pages[i]; p.Listing == listing {
			n++
			if wk.holdsCursorRow(p, cursors) {
				return p
			}
		}
	}
	return nil
}

// page counts a page answered whole and makes it the walk's newest.
func (wk *walker) page(w *walkState, rec *Record, in reqInfo) {
	w.Pages++
	w.Rows += rec.Rows
	if first, ok := w.asked[in.page]; ok {
		w.PagesAskedTwice = append(w.PagesAskedTwice, PageRepeat{Request: rec.ID, First: first})
	} else {
		w.asked[in.page] = rec.ID
	}
	if w.first == nil {
		w.first, w.firstAt = rec, in
	}
	if pageAtEnd(rec, in) {
		w.ReachedEnd, w.windowEnd = true, true
	}
	if span, ok := requestWindow(rec, in); ok && !w.hasWindow {
		w.window, w.hasWindow = span, true
		w.Windows = append(w.Windows, span)
	}
	if w.head != nil {
		for _, c := range []string{w.head.StartCursor, w.head.EndCursor} {
			key := w.Listing + "\x00" + c
			wk.byHead[key] = slices.DeleteFunc(wk.byHead[key], func(x *walkState) bool { return x == w })
		}
	}
	w.head = rec
	for _, c := range []string{rec.StartCursor, rec.EndCursor} {
		if c != "" {
			key := w.Listing + "\x00" + c
			if !slices.Contains(wk.byHead[key], w) {
				wk.byHead[key] = append(wk.byHead[key], w)
			}
			wk.issued[key] = rec
		}
	}
	wk.pages = append(wk.pages, rec)
}

// retried notes the wait between an answer with a Retry-After and the
// walk's next request.
func (w *walkState) retried(prev, next *Record) {
	waited := next.Time.Sub(prev.End)
	w.RetryAfter = append(w.RetryAfter, RetryWait{
		Request: prev.ID, Next: next.ID, AskedS: prev.RetryAfter,
		WaitedMS: float64(waited.Microseconds()) / 1000,
		Honoured: waited >= time.Duration(prev.RetryAfter)*time.Second,
	})
}

// pageAtEnd reports whether a page has no rows beyond it in its direction.
func pageAtEnd(rec *Record, in reqInfo) bool {
	p := &rec.Page
	if rec.Listing == records.ListingTransactions {
		if in.q.Get("before") != "" && in.q.Get("after") != "" {
			return !p.Cut
		}
		return p.Rows < p.Asked
	}
	if pagedForward(in.q) {
		return !p.HasNext
	}
	return !p.HasPrev
}

// pagedForward reports whether a paged listing's request pages forwards
// (first, or after alone, or nothing), as page does.
func pagedForward(q url.Values) bool {
	_, first := q["pagination.first"]
	_, last := q["pagination.last"]
	_, before := q["pagination.before"]
	return first || (!last && !before)
}

// towardLow reports whether a walk that begins with a request so made goes
// towards the older rows (lower store indexes), page after page.
func towardLow(listing string, q url.Values) bool {
	if listing == records.ListingTransactions {
		has := func(k string) bool { return q.Get(k) != "" && q.Get(k) != "0" }
		switch {
		case q.Get("after") != "" && q.Get("before") == "":
			return false // towards the newest
		case has("last") && q.Get("before") == "":
			return false // from the oldest
		}
		return true
	}
	desc := listing != records.ListingNetworkParameters
	if v := param(q, "pagination.newestFirst", "pagination.newest_first"); v == "false" || v == "0" {
		desc = false
	}
	return pagedForward(q) == desc
}

// param returns the first value of the first of names q gives ("" for
// none).
func param(q url.Values, names ...string) string {
	for _, n := range names {
		if v, ok := q[n]; ok && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// finishWalk checks a walk's rows and Retry-After waits, and says its
// problems.
func (wk *walker) finishWalk(w *walkState) Walk {
	out := w.Walk
	if last := w.recs[len(w.recs)-1]; last.RetryAfter > 0 {
		out.RetryAfter = append(out.RetryAfter, RetryWait{Request: last.ID, AskedS: last.RetryAfter})
	}
	out.WaitedOutRetryAfter = true
	for _, r := range out.RetryAfter {
		if r.Next != 0 && !r.Honoured {
			out.WaitedOutRetryAfter = false
		}
	}
	out.RowsChecked = true
	if w.first != nil {
		out.RowsChecked = wk.checkRows(w, &out)
	}
	// Empty lists, not null, in JSON; and the walk's own copies.
	out.CursorsNotIssued = append([]CursorUse{}, out.CursorsNotIssued...)
	out.PagesAskedTwice = append([]PageRepeat{}, out.PagesAskedTwice...)
	out.RetryAfter = append([]RetryWait{}, out.RetryAfter...)
	out.Requests = slices.Clone(out.Requests)
	out.Windows = slices.Clone(out.Windows)
	out.EpochsSkipped = slices.Clone(out.EpochsSkipped)
	out.WindowsLeft = slices.Clone(out.WindowsLeft)
	out.Problems = walkProblems(&out)
	return out
}

// checkRows counts the rows the walk missed and saw twice; false when its
// rows cannot be known.
func (wk *walker) checkRows(w *walkState, out *Walk) bool {
	var seen []int32
	for _, rec := range w.recs {
		if !rec.Whole {
			continue
		}
		if rec.rowsDropped {
			return false
		}
		for _, r := range rec.Page.Runs {
			for i := r.First; i < r.First+r.N; i++ {
				seen = append(seen, i)
			}
		}
	}
	slices.Sort(seen)
	distinct := slices.Compact(slices.Clone(seen))
	out.RowsSeenTwice = len(seen) - len(distinct)
	first := w.first.Page
	for _, s := range w.Windows { // a walk of several windows: all of them, and any between
		first.EpochFrom, first.EpochTo = min(first.EpochFrom, s.From), max(first.EpochTo, s.To)
	}
	want, err := wk.src.ExpectedRows(w.Listing, w.firstAt.q, &first)
	if err != nil {
		return false
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	if len(distinct) > 0 {
		lo, hi = int64(distinct[0]), int64(distinct[len(distinct)-1])
	}
	low := towardLow(w.Listing, w.firstAt.q)
	if len(w.infos[0].cursors) == 0 { // began at the listing's start
		if low {
			hi = math.MaxInt64
		} else {
			lo = math.MinInt64
		}
	}
	if out.ReachedEnd {
		if low {
			lo = math.MinInt64
		} else {
			hi = math.MaxInt64
		}
	}
	for _, i := range want {
		if _, found := slices.BinarySearch(distinct, i); !found && int64(i) >= lo && int64(i) <= hi {
			out.RowsMissed++
		}
	}
	return true
}

// walkProblems says what a walk did that a client walking the listing once,
// whole, should not.
func walkProblems(w *Walk) []string {
	p := []string{}
	if w.Pages == 0 {
		p = append(p, "no page was answered whole")
	} else if !w.ReachedEnd {
		p = append(p, "did not reach the end: its last page had rows beyond it")
	}
	// A finding made of many requests is one sentence: the first in
	// full, the others by ID.
	if c := w.CursorsNotIssued; len(c) > 0 {
		from := "no page issued it"
		if c[0].IssuedBy != 0 {
			from = fmt.Sprintf("request %d of another walk issued it", c[0].IssuedBy)
		}
		p = append(p, fmt.Sprintf("request %d carried a cursor no earlier page of the walk issued (%s): %s%s",
			c[0].Request, from, warnings.Quote(c[0].Cursor), alsoIDs(len(c), func(i int) uint64 { return c[i].Request })))
	}
	if r := w.PagesAskedTwice; len(r) > 0 {
		p = append(p, fmt.Sprintf("request %d asked again for the page of request %d%s",
			r[0].Request, r[0].First, alsoIDs(len(r), func(i int) uint64 { return r[i].Request })))
	}
	for _, s := range w.WindowsLeft {
		p = append(p, fmt.Sprintf("left the epochs %d to %d (request %d) before their last page", s.From, s.To, s.Request))
	}
	for _, s := range w.EpochsSkipped {
		p = append(p, fmt.Sprintf("request %d left out the epochs %d to %d between its window and the one before", s.Request, s.From, s.To))
	}
	if !w.RowsChecked {
		p = append(p, "its rows could not be checked: the journal let them go (raise the journal size)")
	}
	if w.RowsMissed > 0 {
		p = append(p, fmt.Sprintf("missed %d rows the listing held when the walk began", w.RowsMissed))
	}
	if w.RowsSeenTwice > 0 {
		p = append(p, fmt.Sprintf("saw %d rows twice", w.RowsSeenTwice))
	}
	var early []RetryWait
	for _, r := range w.RetryAfter {
		if r.Next != 0 && !r.Honoured {
			early = append(early, r)
		}
	}
	if len(early) > 0 {
		r := early[0]
		p = append(p, fmt.Sprintf("request %d came %.3fs after request %d's Retry-After of %ds%s",
			r.Next, r.WaitedMS/1000, r.Request, r.AskedS, alsoIDs(len(early), func(i int) uint64 { return early[i].Next })))
	}
	return p
}

// maxAlso bounds the request IDs alsoIDs names.
const maxAlso = 10

// alsoIDs says which other requests did the same as the first of n, whose
// IDs id gives: "; so did requests 7, 9 and 12", the first maxAlso of
// them and how many more; "" when n is 1.
func alsoIDs(n int, id func(int) uint64) string {
	if n < 2 {
		return ""
	}
	var words []string
	for i := 1; i < n && len(words) < maxAlso; i++ {
		words = append(words, strconv.FormatUint(id(i), 10))
	}
	s := "; so did request "
	if n > 2 {
		s = "; so did requests "
	}
	if more := n - 1 - len(words); more > 0 {
		return s + strings.Join(words, ", ") + fmt.Sprintf(" and %d more", more)
	}
	if len(words) == 1 {
		return s + words[0]
	}
	return s + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
