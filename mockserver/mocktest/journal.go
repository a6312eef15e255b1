package mocktest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chaindata/harness/mockserver/journal"
)

// Requests returns the requests the server received, newest first, as GET
// /harness/requests answers them: method, path, query, status, rows, the
// fault injected, the warnings, and the walk each is part of.
func (s *Server) Requests() []journal.Request {
	return s.mock.Requests(journal.RequestFilter{})
}

// RequestsOf returns the requests of one listing ("games", "snapshots",
// "keyrotations", "networkparameters", "transactions"), newest first.
func (s *Server) RequestsOf(listing string) []journal.Request {
	return s.mock.Requests(journal.RequestFilter{Listing: listing})
}

// ClearRequests empties the request journal, so that what follows is
// verified alone (Reset empties it too).
func (s *Server) ClearRequests() { s.mock.ClearRequests() }

// Walks returns the client's walks through the listings, oldest first, as
// GET /harness/walks answers them (see journal.Walk).
func (s *Server) Walks() []journal.Walk { return s.mock.Walks("") }

// AssertNoWarnings fails the test for each warning the mock gave (an
// X-Harness-Warning: what it read differently from what the client likely
// meant), once per distinct warning, with how many requests drew it and
// which. It reports whether there was none.
func (s *Server) AssertNoWarnings(tb testing.TB) bool {
	tb.Helper()
	msgs := s.mock.Warnings("")
	for _, m := range msgs {
		tb.Errorf("mocktest: %s", m)
	}
	return len(msgs) == 0
}

// AssertWalkedAll fails the test unless the client walked every row of
// listing exactly once: the journal holds one walk of it, which followed
// only the cursors its pages issued, asked no page twice, reached the end,
// missed no row the listing held when it began and saw none twice, and
// waited out every Retry-After it was given. (A client that starts again
// after an error makes two walks; one that resumes, one.) It reports
// whether the walk passed.
func (s *Server) AssertWalkedAll(tb testing.TB, listing string) bool {
	tb.Helper()
	walks := s.mock.Walks(listing)
	switch len(walks) {
	case 0:
		tb.Errorf("mocktest: the client did not walk %s: no request of it is in the journal", listing)
		return false
	case 1:
	default:
		var begun []string
		for _, w := range walks {
			begun = append(begun, fmt.Sprintf("walk %d (%s)", w.ID, describe(w)))
		}
		tb.Errorf("mocktest: the client walked %s %d times, want once: %s", listing, len(walks), strings.Join(begun, "; "))
		return false
	}
	return s.assertWalk(tb, walks[0], true)
}

// AssertWalksClean fails the test for each walk, of any listing, that
// carried a cursor no earlier page of it issued, asked a page twice, missed
// or saw twice a row, or did not wait out a Retry-After. Unlike
// AssertWalkedAll it allows walks that stop before the end, and many. It
// reports whether every walk passed.
func (s *Server) AssertWalksClean(tb testing.TB) bool {
	tb.Helper()
	ok := true
	for _, w := range s.Walks() {
		if !s.assertWalk(tb, w, false) {
			ok = false
		}
	}
	return ok
}

// assertWalk fails the test for each problem of w (not reaching the end
// only when whole is set), with the walk's requests.
func (s *Server) assertWalk(tb testing.TB, w journal.Walk, whole bool) bool {
	tb.Helper()
	var problems []string
	for _, p := range w.Problems {
		if whole || !strings.HasPrefix(p, "did not reach the end") {
			problems = append(problems, p)
		}
	}
	if len(problems) == 0 {
		return true
	}
	tb.Errorf("mocktest: the walk of %s that began with request %d (%s):\n  %s\nits requests:\n%s",
		w.Listing, w.ID, describe(w), strings.Join(problems, "\n  "), s.walkRequests(w))
	return false
}

// walkRequests lists a walk's requests, one a line.
func (s *Server) walkRequests(w journal.Walk) string {
	byID := map[uint64]journal.Request{}
	for _, r := range s.mock.Requests(journal.RequestFilter{Listing: w.Listing, Since: w.ID - 1}) {
		byID[r.ID] = r
	}
	var b strings.Builder
	for _, id := range w.Requests {
		r := byID[id]
		fmt.Fprintf(&b, "  %d: %s %s -> %d, %d rows", r.ID, r.Method, target(r), r.Status, r.Rows)
		if r.Fault != "" {
			fmt.Fprintf(&b, ", fault %s", r.Fault)
		}
		if r.IssuedBy != 0 {
			fmt.Fprintf(&b, ", cursor of request %d", r.IssuedBy)
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// describe says how a walk went, in a few words.
func describe(w journal.Walk) string {
	return fmt.Sprintf("GET %s?%s, %d pages, %d rows", w.Path, w.Query, w.Pages, w.Rows)
}

// target is a request's path and query.
func target(r journal.Request) string {
	if r.Query == "" {
		return r.Path
	}
	return r.Path + "?" + r.Query
}
