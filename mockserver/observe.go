package mockserver

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/store"
	"github.com/chaindata/harness/mockserver/warnings"
)

// The observing middleware sits in front of the fault injector: it works
// out a request's warnings (warnings.go) before the request is served,
// refuses it under Config.StrictParams, and once it is answered records it
// in the journal (package journal) with what the handler and the injector
// told its note.

// pageNote is what the serving of one request tells the journal: the rows
// its page holds, the cursors it issued, the fault injected, and findings
// known only once the page is made. It travels in the writer the handler
// is given (noteOf), rather than in the request's context, which would
// take a copy of the request; every method does nothing on a nil note, so
// a handler called without one pays nothing.
type pageNote struct {
	answered bool // a page was made
	// Page is what the walks need of it: its rows, pageInfo flags, count
	// asked for and epoch window.
	journal.Page
	start, end string      // cursors of its first and last row ("" when empty)
	fault      string      // the fault injected, as the header's grammar writes it
	faultKind  faults.Kind // its kind (None for a latency alone)
	refusal    string      // the kind of a 400 refusal (Refusal...)
	late       []string    // findings made with the page
	// query is the request's query, parsed once for the warnings and the
	// handler (nil: the handler parses it, and refuses it if malformed).
	query url.Values
}

// noteOf returns the note of the request answered through w: the
// observing middleware's writer, or one that unwraps to it (a fault that
// captures the answer to replay it); nil for none.
func noteOf(w http.ResponseWriter) *pageNote {
	if o := observerOf(w); o != nil {
		return &o.note
	}
	return nil
}

// observerOf returns the observing middleware's writer of the request
// answered through w, as noteOf finds it; nil for none.
func observerOf(w http.ResponseWriter) *observedWriter {
	for {
		switch t := w.(type) {
		case *observedWriter:
			return t
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// pagedPage notes the page of a paged listing: positions [start, end) of v,
// of a listing of total rows, and the cursors written for its ends.
func (n *pageNote) pagedPage(v view, start, end, total int, startCursor, endCursor []byte) {
	if n == nil {
		return
	}
	n.answered, n.Rows, n.Total = true, end-start, total
	if v.list == nil && end > start {
		// A range of the store: its rows are one run, ascending or
		// descending, what AddRow makes of them row by row.
		first, last := v.row(start), v.row(end-1)
		n.Runs = []journal.RowRun{{First: int32(min(first, last)), N: int32(end - start)}}
	} else {
		n.Runs = rowRuns(end-start, func(i int) int { return v.row(start + i) })
	}
	n.start, n.end = cursorPair(startCursor, endCursor)
	n.HasNext, n.HasPrev = end < v.len(), start > 0
}

// txPage notes a transactions page: picked are the rows, newest first,
// asked the count it was asked for.
func (n *pageNote) txPage(st store.Reader, picked []int, asked int) {
	if n == nil {
		return
	}
	keys := st.TxKeys()
	n.answered, n.Rows, n.Total, n.Asked = true, len(picked), len(keys), asked
	n.Runs = rowRuns(len(picked), func(i int) int { return picked[i] })
	if len(picked) > 0 {
		var buf [64]byte
		first := appendTxCursor(buf[:0], keys[picked[0]])
		n.start, n.end = cursorPair(first, appendTxCursor(first[len(first):], keys[picked[len(picked)-1]]))
	}
}

// rowRuns returns the runs of the store indexes row(0) to row(n-1), as
// journal.AddRow makes them, in one allocation when they are 64 runs or
// fewer (a filtered page's rows are apart): they are gathered on the stack
// first.
func rowRuns(n int, row func(int) int) []journal.RowRun {
	var gather [64]journal.RowRun
	runs := gather[:0]
	for i := range n {
		runs = journal.AddRow(runs, int32(row(i)))
	}
	return slices.Clone(runs)
}

// cursorPair copies two cursors into strings, with one allocation (a
// conversion of each and their concatenation would take three when they
// are long, as a network parameter's are).
func cursorPair(start, end []byte) (string, string) {
	var both strings.Builder
	both.Grow(len(start) + len(end))
	both.Write(start)
	both.Write(end)
	s := both.String()
	return s[:len(start)], s[len(start):]
}

// appendTxCursor appends a transaction's cursor, "<block>.<index>".
func appendTxCursor(b []byte, k records.TxKey) []byte {
	b = strconv.AppendUint(b, k.Block, 10)
	b = append(b, '.')
	return strconv.AppendUint(b, uint64(k.Index), 10)
}

// windowCut notes a transactions window cut at the maximum page size.
func (n *pageNote) windowCut() {
	if n != nil {
		n.Cut = true
	}
}

// epochWindow notes the epochs a games page was made of.
func (n *pageNote) epochWindow(from, to uint64) {
	if n != nil {
		n.Window, n.EpochFrom, n.EpochTo = true, from, to
	}
}

// refused notes the kind of a 400 refusal.
func (n *pageNote) refused(kind string) {
	if n != nil {
		n.refusal = kind
	}
}

// headerValue is h.Get(key) for a key in canonical form: a map read, no
// allocation.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// noteFault is the fault injector's Observe: it notes the fault applied.
func noteFault(w http.ResponseWriter, f faults.Fault, source string) {
	n := noteOf(w)
	if n == nil {
		return
	}
	n.fault, n.faultKind = f.String(), f.Kind
	if source != "" {
		n.fault += " (" + source + ")"
	}
}

// txAsked is the count a transactions request asks for: its first or last,
// the default page size, or the maximum for a window.
func (s *Server) txAsked(req txRequest) int {
	switch {
	case req.before != nil && req.after != nil:
		return s.cfg.TxMaxPageSize
	case req.first > 0:
		return int(req.first)
	case req.last > 0:
		return int(req.last)
	}
	return s.cfg.TxDefaultPageSize
}

// windowCapped makes the finding of a transactions window cut at the
// maximum page size: a late warning, or under StrictParams the 400.
func (s *Server) windowCapped(n *pageNote) *apiError {
	if n == nil || !n.Cut {
		return nil
	}
	text := "the rows between after and before are more than the maximum page size " + strconv.Itoa(s.cfg.TxMaxPageSize) +
		" and the answer holds the newest of them; ask again with before=<the oldest cursor> and the same after"
	if s.cfg.StrictParams {
		return strictParamsError([]string{text})
	}
	n.late = append(n.late, text)
	return nil
}

// observedWriter is one request as the observing middleware follows it:
// it remembers the answer's status and Retry-After, adds the note's late
// findings to its headers, and records the request as its status is
// written: before the client can have read any of the answer, so that a
// test that reads the journal once its client is done finds every request
// in it. The note lives in it, so that following a request takes one
// allocation; the record copies what it keeps of them.
type observedWriter struct {
	http.ResponseWriter
	note       pageNote
	status     int
	retryAfter string

	s        *Server
	id       uint64 // 0: not to be recorded, or recorded already
	start    time.Time
	r        *http.Request
	listing  string
	warnings []string
	// page is the answer the page cache keeps for the request's query at
	// the store's version when it arrived: its warnings are the request's,
	// its query is not parsed, and the listing's handler serves it while
	// the version holds (serveCached).
	page *cachedPage
	// queries is where the request's query is parsed (note.query): kept
	// with the writer from request to request, so that parsing one
	// allocates nothing.
	queries warnings.QueryBuffer
}

func (o *observedWriter) WriteHeader(code int) {
	if o.status == 0 {
		o.status = code
		h := o.ResponseWriter.Header()
		for _, text := range o.note.late {
			h.Add(WarningHeader, text)
		}
		o.retryAfter = h.Get("Retry-After")
		o.record()
	}
	o.ResponseWriter.WriteHeader(code)
}

func (o *observedWriter) Write(b []byte) (int, error) {
	if o.status == 0 {
		o.WriteHeader(http.StatusOK)
	}
	return o.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath, for the
// faults that flush or take over the connection.
func (o *observedWriter) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// record adds the request to the journal, once.
func (o *observedWriter) record() {
	if o.id != 0 {
		var rec journal.Record // the journal keeps a copy: no allocation
		o.fill(&rec)
		o.s.journal.Add(&rec)
		o.id = 0
	}
}

// observe warns about each API request, refuses it under StrictParams when
// it draws a warning, and records it in the journal once answered. Its
// writers are used again from request to request (s.observers).
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := s.observers.Get().(*observedWriter)
		*o = observedWriter{ResponseWriter: w, s: s, start: startOf(w), r: r, queries: o.queries}
		defer s.release(o)
		o.id = s.journal.Reserve()
		listing, known := s.listingOf[r.URL.Path]
		o.listing = listing
		if known && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			o.page = s.pages.get(r, s.store.Version())
		}
		if o.page != nil {
			o.warnings = o.page.warnings
		} else {
			o.note.query, o.warnings = s.warn.OfInto(r, listing, known, &o.queries)
		}
		h := w.Header()
		for _, text := range o.warnings {
			h.Add(WarningHeader, text)
		}
		if s.cfg.StrictParams && known && len(o.warnings) > 0 {
			writeError(o, strictParamsError(o.warnings))
			return
		}
		next.ServeHTTP(o, r)
	})
}

// release records a request that ended without a status (a reset, a
// client gone) and puts its writer back for the next.
func (s *Server) release(o *observedWriter) {
	o.record()
	*o = observedWriter{queries: o.queries}
	s.observers.Put(o)
}

// fill writes the journal's record of the request into rec.
func (o *observedWriter) fill(rec *journal.Record) {
	n, r := &o.note, o.r
	rec.Request = journal.Request{
		ID: o.id, Time: o.start.UTC(), Method: r.Method, Path: bounded(r.URL.Path, maxKeptPath),
		Query: bounded(r.URL.RawQuery, maxKeptQuery), Listing: o.listing, Status: o.status, Fault: n.fault,
		Warnings: append(o.warnings, n.late...), Cursor: bounded(o.carried(), maxKeptPath),
		Remote: r.RemoteAddr, Refusal: n.refusal,
		Client:    bounded(headerValue(r.Header, journal.ClientHeader), maxKeptHeader),
		UserAgent: bounded(headerValue(r.Header, "User-Agent"), maxKeptHeader),
	}
	rec.End = since(o.start)
	rec.DurationMS = float64(rec.End.Sub(o.start).Microseconds()) / 1000
	if rec.Warnings == nil {
		rec.Warnings = []string{}
	}
	if o.retryAfter != "" {
		rec.RetryAfter, _ = strconv.Atoi(o.retryAfter)
	}
	if n.answered && o.status == http.StatusOK {
		rec.Page, rec.HasPage = n.Page, true
		rec.Rows, rec.StartCursor, rec.EndCursor = n.Rows, n.start, n.end
	}
	rec.Whole = rec.HasPage && !brokenAnswer(n.faultKind)
}

// What the journal keeps of a request's path (and cursor) and query, in
// bytes: a client's requests are far shorter, and a hostile one's (up to the
// header limit, a megabyte) must not make ten thousand of them take
// gigabytes.
const (
	maxKeptPath  = 512
	maxKeptQuery = 2048
	// maxKeptHeader bounds the X-Harness-Client and User-Agent kept.
	maxKeptHeader = 256
)

// bounded returns s, or when it is longer than n bytes, its first n bytes
// and how long it was.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// brokenAnswer reports whether a fault of kind k keeps the client from
// reading the page: no answer, or a cut or garbled body.
func brokenAnswer(k faults.Kind) bool {
	return k == faults.Reset || k == faults.Empty || k == faults.Truncate || k == faults.Garbage
}

// carried returns the cursor the request carries (carriedCursor): as the
// page cache kept it when the request's query was not parsed.
func (o *observedWriter) carried() string {
	if o.page != nil {
		return o.page.cursor
	}
	return carriedCursor(o.listing, o.note.query)
}

// carriedCursor returns the cursor a request to listing carries: its after,
// else its before ("" when neither).
func carriedCursor(listing string, q url.Values) string {
	after, before := "after", "before"
	if listing != records.ListingTransactions {
		after, before = "pagination.after", "pagination.before"
	}
	if c := q.Get(after); c != "" {
		return c
	}
	return q.Get(before)
}
