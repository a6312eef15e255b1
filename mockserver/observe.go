package mockserver

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/store"
)

// The observing middleware sits in front of the fault injector: it works
// out a request's warnings (warnings.go) before the request is served,
// refuses it under Config.StrictParams, and once it is answered records it
// in the journal (package journal) with what the handler and the injector
// told its note.

// pageNote is what the serving of one request tells the journal: the rows
// its page holds, the cursors it issued, the fault injected, and findings
// known only once the page is made. It travels in the request's context
// (noteOf); every method does nothing on a nil note, so a handler called
// without one pays nothing.
type pageNote struct {
	answered bool // a page was made
	// Page is what the walks need of it: its rows, pageInfo flags, count
	// asked for and epoch window.
	journal.Page
	start, end string      // cursors of its first and last row ("" when empty)
	fault      string      // the fault injected, as the header's grammar writes it
	faultKind  faults.Kind // its kind (None for a latency alone)
	late       []string    // findings made with the page
	// query is the request's query, parsed once for the warnings and the
	// handler (nil: the handler parses it, and refuses it if malformed).
	query url.Values
}

type noteKey struct{}

// noteOf returns the note of a request, or nil.
func noteOf(r *http.Request) *pageNote {
	n, _ := r.Context().Value(noteKey{}).(*pageNote)
	return n
}

// withNote returns r carrying n.
func withNote(r *http.Request, n *pageNote) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), noteKey{}, n))
}

// pagedPage notes the page of a paged listing: positions [start, end) of v,
// of a listing of total rows, and the cursors written for its ends.
func (n *pageNote) pagedPage(v view, start, end, total int, startCursor, endCursor []byte) {
	if n == nil {
		return
	}
	n.answered, n.Rows, n.Total = true, end-start, total
	n.Runs = make([]journal.RowRun, 0, 1)
	for p := start; p < end; p++ {
		n.Runs = journal.AddRow(n.Runs, int32(v.row(p)))
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
	n.Runs = make([]journal.RowRun, 0, 1)
	for _, i := range picked {
		n.Runs = journal.AddRow(n.Runs, int32(i))
	}
	if len(picked) > 0 {
		var buf [64]byte
		first := appendTxCursor(buf[:0], keys[picked[0]])
		n.start, n.end = cursorPair(first, appendTxCursor(first[len(first):], keys[picked[len(picked)-1]]))
	}
}

// cursorPair copies two cursors into strings, with one allocation.
func cursorPair(start, end []byte) (string, string) {
	both := string(start) + string(end)
	return both[:len(start)], both[len(start):]
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

// noteFault is the fault injector's Observe: it notes the fault applied.
func noteFault(r *http.Request, f faults.Fault, source string) {
	n := noteOf(r)
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
		o.s.journal.Add(o.newRecord())
		o.id = 0
	}
}

// observe warns about each API request, refuses it under StrictParams when
// it draws a warning, and records it in the journal once answered.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := &observedWriter{ResponseWriter: w, s: s, start: time.Now(), r: r}
		o.id = s.journal.Reserve()
		listing, known := s.listingOf[r.URL.Path]
		o.listing = listing
		o.note.query, o.warnings = s.warn.Of(r, listing, known)
		h := w.Header()
		for _, text := range o.warnings {
			h.Add(WarningHeader, text)
		}
		defer o.record() // when no status was written: a reset, a client gone
		if s.cfg.StrictParams && known && len(o.warnings) > 0 {
			writeError(o, strictParamsError(o.warnings))
			return
		}
		next.ServeHTTP(o, withNote(r, &o.note))
	})
}

// newRecord makes the journal's record of the request.
func (o *observedWriter) newRecord() *journal.Record {
	n, r := &o.note, o.r
	rec := &journal.Record{
		Request: journal.Request{
			ID: o.id, Time: o.start.UTC(), Method: r.Method, Path: bounded(r.URL.Path, maxKeptPath),
			Query: bounded(r.URL.RawQuery, maxKeptQuery), Listing: o.listing, Status: o.status, Fault: n.fault,
			Warnings: append(o.warnings, n.late...), Cursor: bounded(carriedCursor(o.listing, n.query), maxKeptPath),
			Remote: r.RemoteAddr,
		},
		End: time.Now(),
	}
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
	return rec
}

// What the journal keeps of a request's path (and cursor) and query, in
// bytes: a client's requests are far shorter, and a hostile one's (up to the
// header limit, a megabyte) must not make ten thousand of them take
// gigabytes.
const (
	maxKeptPath  = 512
	maxKeptQuery = 2048
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
