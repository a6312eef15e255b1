package journal

import (
	"sync"
	"sync/atomic"
	"time"
)

// The request journal: the API requests the mock received (the control
// API's are not), newest first, bounded. A client's test reads it to verify
// what its client sent (GET /harness/requests, mockserver's Server.Requests,
// mocktest's srv.Requests) and the walks it made through the listings
// (walks.go).

// Request is one request the mock received, as the journal keeps it.
type Request struct {
	// ID numbers the requests in the order they arrived, from 1. Clearing
	// the journal does not number them again, so that ?since=ID selects
	// the requests after ID.
	ID uint64 `json:"id"`
	// Time is when the request arrived; DurationMS how long its answer
	// took, in milliseconds.
	Time       time.Time `json:"time"`
	DurationMS float64   `json:"durationMs"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Query      string    `json:"query"`
	// Listing names the listing of Path ("games", ..., "transactions");
	// "" for a path no listing serves.
	Listing string `json:"listing"`
	// Status is the answer's HTTP status; 0 when none was sent (a reset
	// fault, a client that gave up during a latency).
	Status int `json:"status"`
	// Rows is the number of rows of a 200 answer's page.
	Rows int `json:"rows"`
	// Fault is the fault injected, as the X-Harness-Fault grammar writes
	// it, with what asked for it: "status=503; retry-after=1 (rule 1)".
	Fault string `json:"fault,omitempty"`
	// RetryAfter is the answer's Retry-After, in seconds (0: none).
	RetryAfter int `json:"retryAfter,omitempty"`
	// Refusal names the kind of a 400 refusal ("limit-out-of-range", ...:
	// mockserver's Refusal constants); "" for any other answer.
	Refusal string `json:"refusal,omitempty"`
	// Warnings are the findings the answer carried (X-Harness-Warning).
	Warnings []string `json:"warnings"`
	// Cursor is the cursor the request carried: its after (pagination.after
	// on the /api/v2 listings), else its before.
	Cursor string `json:"cursor,omitempty"`
	// StartCursor and EndCursor are the cursors of the page's first and
	// last row: a paged listing's pageInfo, a transaction's cursor field.
	StartCursor string `json:"startCursor,omitempty"`
	EndCursor   string `json:"endCursor,omitempty"`
	// IssuedBy is the ID of the request whose page gave the cursor the
	// request carries (0: none did, or it carries none); Walk is the ID of
	// the walk it is part of (walks.go), 0 for a path no listing serves.
	IssuedBy uint64 `json:"issuedBy,omitempty"`
	Walk     uint64 `json:"walk,omitempty"`
	// Remote is the client's address; Client the request's
	// X-Harness-Client header, UserAgent its User-Agent: what tells
	// clients apart (walks.go).
	Remote    string `json:"remote"`
	Client    string `json:"client,omitempty"`
	UserAgent string `json:"userAgent,omitempty"`
}

// Record is a journaled request and what the walks need of its answer.
type Record struct {
	Request
	// End is when the answer's status was written (or the request ended
	// without one).
	End time.Time
	// Page is the page of a 200 answer, when HasPage; Whole, that the
	// client got all of it (no fault cut, garbled or dropped it).
	Page    Page
	HasPage bool
	Whole   bool
	// rowsDropped says the page's rows were let go to keep the journal
	// within its bound of row runs.
	rowsDropped bool
}

// Journal is a ring of the latest records. A request takes its ID when it
// arrives and is stored when answered, so that the order of IDs is the order
// of arrival and a page is always numbered before the requests that follow
// its cursors. The ring holds the records themselves, so that storing one
// allocates nothing: a reader gets copies.
type Journal struct {
	src  Source        // the listings, read by the walks
	next atomic.Uint64 // the next ID; 0 while off
	size uint64        // the records kept; 0: none

	mu sync.Mutex
	// chunks hold the ring: the record of ID id at place id%size, in the
	// chunk of that place over chunkLen, made when a record first goes
	// there, so that a journal little used takes little.
	chunks  []*[chunkLen]Record
	cleared uint64 // requests below this ID were cleared
	// runs counts the row runs of the stored pages; above maxRuns the
	// oldest pages let theirs go (rowsDropped).
	runs, maxRuns int
	dropFrom      uint64 // the oldest ID whose rows may still be held
}

// chunkLen is the records of a chunk of the ring: 96 KB.
const chunkLen = 256

// New returns a journal of size records, whose walks read the listings
// of src; a size of 0 or less keeps none.
func New(size int, src Source) *Journal {
	j := &Journal{src: src}
	if size > 0 {
		j.size = uint64(size)
		j.chunks = make([]*[chunkLen]Record, (size+chunkLen-1)/chunkLen)
		j.maxRuns = max(1<<16, 64*size)
		j.next.Store(1)
	}
	return j
}

// Reserve returns the ID of a request that just arrived; 0 when the journal
// is off.
func (j *Journal) Reserve() uint64 {
	if j.size == 0 {
		return 0
	}
	return j.next.Add(1) - 1
}

// Add stores a copy of an answered request, whose ID Reserve gave. One that
// arrived before the journal was cleared, or so long ago that its place
// went to a newer one, is dropped.
func (j *Journal) Add(rec *Record) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if rec.ID < j.cleared || rec.ID+j.size < j.next.Load() {
		return
	}
	place := j.place(rec.ID)
	j.runs += len(rec.Page.Runs) - len(place.Page.Runs) // an empty place has none
	*place = *rec
	j.trimRuns()
}

// place returns the place of ID id in the ring, making its chunk when none
// is. j.mu is held.
func (j *Journal) place(id uint64) *Record {
	i := id % j.size
	c := &j.chunks[i/chunkLen]
	if *c == nil {
		*c = new([chunkLen]Record)
	}
	return &(*c)[i%chunkLen]
}

// stored returns the record of ID id, or nil when the ring does not hold it.
// j.mu is held.
func (j *Journal) stored(id uint64) *Record {
	i := id % j.size
	c := j.chunks[i/chunkLen]
	if c == nil || c[i%chunkLen].ID != id {
		return nil
	}
	return &c[i%chunkLen]
}

// trimRuns lets the oldest pages' rows go until the runs held are within
// maxRuns. j.mu is held.
func (j *Journal) trimRuns() {
	j.dropFrom = max(j.dropFrom, j.cleared, j.next.Load()-min(j.next.Load(), j.size))
	for j.runs > j.maxRuns && j.dropFrom < j.next.Load() {
		if rec := j.stored(j.dropFrom); rec != nil && len(rec.Page.Runs) > 0 {
			j.runs -= len(rec.Page.Runs)
			rec.Page.Runs, rec.rowsDropped = nil, true
		}
		j.dropFrom++
	}
}

// records returns copies of the stored records, oldest first.
func (j *Journal) records() []*Record {
	if j.size == 0 {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	next := j.next.Load()
	var kept []Record
	for id := max(j.cleared, next-min(next, j.size), 1); id != next; id++ {
		if rec := j.stored(id); rec != nil {
			kept = append(kept, *rec)
		}
	}
	out := make([]*Record, len(kept))
	for i := range kept {
		out[i] = &kept[i]
	}
	return out
}

// Clear empties the journal; requests still being answered are dropped
// when they end.
func (j *Journal) Clear() {
	if j.size == 0 {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range j.chunks {
		if c != nil {
			clear(c[:])
		}
	}
	j.runs = 0
	j.cleared = j.next.Load()
	j.dropFrom = j.cleared
}

// RequestFilter selects requests of the journal; its zero value selects
// all.
type RequestFilter struct {
	// Listing keeps the requests to one listing ("games", ...,
	// "transactions").
	Listing string
	// Since keeps the requests after the one of that ID; SinceTime those
	// that arrived at or after that time.
	Since     uint64
	SinceTime time.Time
}

// Keeps reports whether f selects r.
func (f RequestFilter) Keeps(r *Request) bool {
	return (f.Listing == "" || r.Listing == f.Listing) && r.ID > f.Since &&
		(f.SinceTime.IsZero() || !r.Time.Before(f.SinceTime))
}

// Requests returns the journal's requests that f selects, newest first,
// each with the walk it is part of and the page that issued its cursor.
func (j *Journal) Requests(f RequestFilter) []Request {
	recs := j.records()
	wk := walkRecords(j.src, recs)
	out := []Request{}
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i].Request
		if !f.Keeps(&r) {
			continue
		}
		r.Walk, r.IssuedBy = wk.walkID(r.ID), wk.issuedBy[r.ID]
		out = append(out, r)
	}
	return out
}
