package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/internal/quote"
	"github.com/chaindata/harness/internal/suggest"
	"github.com/chaindata/harness/mockserver/journal"
)

// The request journal (package journal) as the server offers it: to Go, and
// to HTTP clients through the control API.

// DefaultJournalSize is the most requests the journal keeps when
// Config.JournalSize is 0.
const DefaultJournalSize = 10_000

// Requests returns the journal's requests that f selects, newest first,
// each with the walk it is part of and the page that issued its cursor.
func (s *Server) Requests(f journal.RequestFilter) []journal.Request { return s.journal.Requests(f) }

// Walks returns the walks of the journal's requests, oldest first; listing
// ("" for all) keeps one listing's.
func (s *Server) Walks(listing string) []journal.Walk { return s.journal.Walks(listing) }

// ClearRequests empties the request journal.
func (s *Server) ClearRequests() { s.journal.Clear() }

// The control API's reads of the journal (control.go routes them):
//
//	GET    /harness/requests?listing=L&since=S  {"requests": [...]}, newest first
//	DELETE /harness/requests                    empties the journal
//	GET    /harness/walks?listing=L             {"walks": [...]}, oldest first
//
// since is a request ID (the requests after it) or an RFC 3339 time (those
// that arrived at or after it).

// listings are the listings' names, as ?listing= takes them.
var listings = []string{
	records.ListingGames, records.ListingSnapshots, records.ListingKeyRotations,
	records.ListingNetworkParameters, records.ListingTransactions,
}

func (s *Server) handleRequests(w http.ResponseWriter, r *http.Request) {
	f, err := requestFilter(r.URL.RawQuery, "listing", "since")
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, struct {
		Requests []journal.Request `json:"requests"`
	}{s.Requests(f)})
}

func (s *Server) handleClearRequests(w http.ResponseWriter, r *http.Request) {
	if r.URL.RawQuery != "" {
		writeError(w, invalidArgument("invalid journal request", "clearing the journal takes no parameters, got "+quote.Value(r.URL.RawQuery)))
		return
	}
	s.ClearRequests()
	writeJSON(w, struct {
		Requests []journal.Request `json:"requests"`
	}{[]journal.Request{}})
}

func (s *Server) handleWalks(w http.ResponseWriter, r *http.Request) {
	f, err := requestFilter(r.URL.RawQuery, "listing")
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, struct {
		Walks []journal.Walk `json:"walks"`
	}{s.Walks(f.Listing)})
}

// requestFilter reads the query of a journal read, which may give the
// parameters allowed, each once.
func requestFilter(raw string, allowed ...string) (journal.RequestFilter, *apiError) {
	var f journal.RequestFilter
	bad := func(format string, a ...any) (journal.RequestFilter, *apiError) {
		return f, invalidArgument("invalid journal request", fmt.Sprintf(format, a...))
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return bad("parsing query: %v", err)
	}
	for k, v := range q {
		if !slices.Contains(allowed, k) {
			return bad("unknown parameter %s: give %s", quote.Value(k), strings.Join(allowed, " or "))
		}
		if len(v) != 1 {
			return bad("%s given %d times: give it once", k, len(v))
		}
	}
	if l, ok := q["listing"]; ok {
		if !slices.Contains(listings, l[0]) {
			return bad("listing %s: want one of %s%s", quote.Value(l[0]), strings.Join(listings, ", "), suggest.Phrase(suggest.Nearest(l[0], listings, 1), strconv.Quote))
		}
		f.Listing = l[0]
	}
	if since, ok := q["since"]; ok {
		if id, err := strconv.ParseUint(since[0], 10, 64); err == nil {
			f.Since = id
		} else if t, err := time.Parse(time.RFC3339Nano, since[0]); err == nil {
			f.SinceTime = t
		} else {
			return bad("since %s: want a request ID or an RFC 3339 time", quote.Value(since[0]))
		}
	}
	return f, nil
}

// writeJSON answers 200 with v as JSON, queries as they came (& not
// escaped for HTML: the answer is no page).
func writeJSON(w http.ResponseWriter, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeError(w, internalError("encoding the answer: "+err.Error()))
		return
	}
	body := buf.Bytes()
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
