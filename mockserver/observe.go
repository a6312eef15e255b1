package mockserver

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/chaindata/harness/generators"
	"github.com/chaindata/harness/mockserver/faults"
)

// The observing middleware sits in front of the fault injector: it works
// out a request's warnings (warnings.go) before the request is served,
// refuses it under Config.StrictParams, and once it is answered records it
// in the journal (journal.go) with what the handler and the injector told
// its note.

// pageNote is what the serving of one request tells the journal: the rows
// its page holds, the cursors it issued, the fault injected, and findings
// known only once the page is made. It travels in the request's context
// (noteOf); every method does nothing on a nil note, so a handler called
// without one pays nothing.
type pageNote struct {
	answered   bool     // a page was made
	rows       int      // rows in it
	runs       []rowRun // which rows, as store indexes
	total      int      // the listing's rows when it was made
	start, end string   // cursors of its first and last row ("" when empty)
	// hasNext and hasPrev are a paged listing's pageInfo flags.
	hasNext, hasPrev bool
	// asked is the count a transactions page was asked for (its default,
	// or the maximum for a window); cut, that a window was cut at the
	// maximum.
	asked int
	cut   bool
	// window says the games page was of the epochs [epochFrom, epochTo].
	window             bool
	epochFrom, epochTo uint64
	fault              string      // the fault injected, as the header's grammar writes it
	faultKind          faults.Kind // its kind (None for a latency alone)
	late               []string    // findings made with the page
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

// rowRun is a run of consecutive store indexes, [first, first+n).
type rowRun struct{ first, n int32 }

// addRow adds store index i to runs, extending the last run when i is next
// to it on either side (a page is ascending or descending in the store).
func addRow(runs []rowRun, i int32) []rowRun {
	if k := len(runs) - 1; k >= 0 {
		r := &runs[k]
		switch {
		case i == r.first+r.n:
			r.n++
			return runs
		case i == r.first-1:
			r.first, r.n = i, r.n+1
			return runs
		}
	}
	return append(runs, rowRun{i, 1})
}

// contains reports whether store index i is in runs.
func containsRow(runs []rowRun, i int32) bool {
	for _, r := range runs {
		if i >= r.first && i < r.first+r.n {
			return true
		}
	}
	return false
}

// pagedPage notes the page of a paged listing: positions [start, end) of v,
// of a listing of total rows, and the cursors written for its ends.
func (n *pageNote) pagedPage(v view, start, end, total int, startCursor, endCursor []byte) {
	if n == nil {
		return
	}
	n.answered, n.rows, n.total = true, end-start, total
	n.runs = make([]rowRun, 0, 1)
	for p := start; p < end; p++ {
		n.runs = addRow(n.runs, int32(v.row(p)))
	}
	n.start, n.end = string(startCursor), string(endCursor)
	n.hasNext, n.hasPrev = end < v.len(), start > 0
}

// txPage notes a transactions page: picked are the rows, newest first,
// asked the count it was asked for.
func (n *pageNote) txPage(st *Store, picked []int, asked int) {
	if n == nil {
		return
	}
	n.answered, n.rows, n.total, n.asked = true, len(picked), len(st.txKeys), asked
	n.runs = make([]rowRun, 0, 1)
	for _, i := range picked {
		n.runs = addRow(n.runs, int32(i))
	}
	if len(picked) > 0 {
		n.start = txCursor(st.txKeys[picked[0]])
		n.end = txCursor(st.txKeys[picked[len(picked)-1]])
	}
}

// txCursor writes a transaction's cursor, "<block>.<index>".
func txCursor(k generators.TxKey) string {
	return strconv.FormatUint(k.Block, 10) + "." + strconv.FormatUint(uint64(k.Index), 10)
}

// windowCut notes a transactions window cut at the maximum page size.
func (n *pageNote) windowCut() {
	if n != nil {
		n.cut = true
	}
}

// epochWindow notes the epochs a games page was made of.
func (n *pageNote) epochWindow(from, to uint64) {
	if n != nil {
		n.window, n.epochFrom, n.epochTo = true, from, to
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
	if n == nil || !n.cut {
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

// observedWriter remembers an answer's status and Retry-After, adds the
// note's late findings to its headers, and records the request as its
// status is written: before the client can have read any of the answer, so
// that a test that reads the journal once its client is done finds every
// request in it.
type observedWriter struct {
	http.ResponseWriter
	note       *pageNote
	status     int
	retryAfter string
	recorder   func() // records the request; nil once done
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

// record records the request, once.
func (o *observedWriter) record() {
	if f := o.recorder; f != nil {
		o.recorder = nil
		f()
	}
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

// observe warns about each API request, refuses it under StrictParams when
// it draws a warning, and records it in the journal once answered.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := s.journal.reserve()
		listing, known := s.listingOf[r.URL.Path]
		q, warnings := s.warningsOf(r, listing, known)
		h := w.Header()
		for _, text := range warnings {
			h.Add(WarningHeader, text)
		}
		note := &pageNote{}
		ow := &observedWriter{ResponseWriter: w, note: note}
		if id != 0 {
			ow.recorder = func() { s.journal.add(s.newRecord(id, start, r, listing, q, warnings, ow)) }
			defer ow.record() // when no status was written: a reset, a client gone
		}
		if s.cfg.StrictParams && known && len(warnings) > 0 {
			writeError(ow, strictParamsError(warnings))
			return
		}
		next.ServeHTTP(ow, withNote(r, note))
	})
}

// newRecord makes the journal's record of an answered request.
func (s *Server) newRecord(id uint64, start time.Time, r *http.Request, listing string, q url.Values, warnings []string, ow *observedWriter) *record {
	n := ow.note
	rec := &record{
		Request: Request{
			ID: id, Time: start.UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			Listing: listing, Status: ow.status, Fault: n.fault, Warnings: append(warnings, n.late...),
			Cursor: carriedCursor(listing, q), Remote: r.RemoteAddr,
		},
		end: time.Now(),
	}
	rec.DurationMS = float64(rec.end.Sub(start).Microseconds()) / 1000
	if rec.Warnings == nil {
		rec.Warnings = []string{}
	}
	rec.RetryAfter, _ = strconv.Atoi(ow.retryAfter)
	if n.answered && ow.status == http.StatusOK {
		rec.page = n
		rec.Rows, rec.StartCursor, rec.EndCursor = n.rows, n.start, n.end
	}
	rec.whole = rec.page != nil && !brokenAnswer(n.faultKind)
	return rec
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
	if listing != generators.ListingTransactions {
		after, before = "pagination.after", "pagination.before"
	}
	if c := q.Get(after); c != "" {
		return c
	}
	return q.Get(before)
}
