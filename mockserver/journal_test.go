package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/store"

	"github.com/chaindata/harness/mockserver/warnings"
)

// journalServer starts a server of a new store of w, with the control API
// and a live chain, and returns its client, itself and its chain.
func journalServer(t testing.TB, cfg Config, w *world.World) (*testServer, *Server) {
	t.Helper()
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := store.NewChain(st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Chain, cfg.Control = chain, true
	srv := New(cfg, st)
	return serveHandler(t, srv, w), srv
}

// journalRead sends a read of the journal and decodes its requests.
func journalRead(t testing.TB, s *testServer, query string) []journal.Request {
	t.Helper()
	r, err := s.fetch(http.MethodGet, "/harness/requests", query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d: %s", r, r.status, r.body)
	}
	var got struct{ Requests []journal.Request }
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%s: %v: %s", r, err, r.body)
	}
	return got.Requests
}

// TestJournalRecordsRequests checks what the journal keeps of each kind of
// request, newest first, and that control API requests are not in it.
func TestJournalRecordsRequests(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{}, genWorld(t))
	start := time.Now().UTC()
	type sent struct {
		method, path, query string
		hdr                 http.Header
		want                journal.Request // the fields compared
		warning             string          // a finding it must carry
	}
	requests := []sent{
		{"GET", "/transactions", "first=3", nil, journal.Request{Listing: "transactions", Status: 200, Rows: 3}, ""},
		{"GET", "/api/v2/snapshots", "pagination.first=2&first=2", nil, journal.Request{Listing: "snapshots", Status: 200, Rows: 2}, `unknown parameter "first"`},
		{"GET", "/api/v2/network/parameters", "pagination.first=4", http.Header{"X-Harness-Fault": {"status=503; retry-after=2"}},
			journal.Request{Listing: "networkparameters", Status: 503, Fault: "status=503; retry-after=2 (X-Harness-Fault header)", RetryAfter: 2}, ""},
		{"GET", "/api/v2/games", "pagination.first=1", http.Header{"X-Harness-Fault": {"truncate=0.5"}},
			journal.Request{Listing: "games", Status: 200, Rows: 1, Fault: "truncate=0.5 (X-Harness-Fault header)"}, ""},
		{"GET", "/nowhere", "", nil, journal.Request{Status: 404}, `unknown path "/nowhere"`},
		{"POST", "/transactions", "", nil, journal.Request{Listing: "transactions", Status: 501}, ""},
		{"GET", "/api/v2/core/keys/ethereum/rotations", "pagination.first=6000", nil, journal.Request{Listing: "keyrotations", Status: 400}, "above the maximum page size"},
	}
	for _, rq := range requests {
		if _, err := s.fetch(rq.method, rq.path, rq.query, rq.hdr); err != nil && rq.want.Fault == "" {
			t.Fatal(err)
		}
		s.statusRaw(t) // control API requests are not journaled
	}
	got := journalRead(t, s, "")
	if len(got) != len(requests) {
		t.Fatalf("%d requests journaled, want %d: %+v", len(got), len(requests), got)
	}
	for i, r := range got {
		rq := requests[len(requests)-1-i]
		want := rq.want
		if r.Method != rq.method || r.Path != rq.path || r.Query != rq.query || r.Listing != want.Listing || r.Status != want.Status ||
			r.Rows != want.Rows || r.Fault != want.Fault || r.RetryAfter != want.RetryAfter {
			t.Errorf("request %d: %+v, want %s %s?%s and %+v", i, r, rq.method, rq.path, rq.query, want)
		}
		if (rq.warning == "") != (len(r.Warnings) == 0) || (rq.warning != "" && !strings.Contains(r.Warnings[0], rq.warning)) {
			t.Errorf("request %s?%s: warnings %q, want %q", r.Path, r.Query, r.Warnings, rq.warning)
		}
		if r.Time.Before(start.Add(-time.Second)) || r.DurationMS < 0 || !strings.HasPrefix(r.Remote, "127.0.0.1:") {
			t.Errorf("request %d: time %v, duration %v, remote %q", i, r.Time, r.DurationMS, r.Remote)
		}
		if i > 0 && r.ID >= got[i-1].ID {
			t.Errorf("IDs not newest first: %d after %d", r.ID, got[i-1].ID)
		}
	}
	if tx := got[len(got)-1]; tx.StartCursor == "" || tx.EndCursor == "" || tx.Walk != tx.ID {
		t.Errorf("the transactions page: %+v, want its cursors and its own walk", tx)
	}
}

// TestJournalFilters checks ?listing= and ?since= (an ID and a time), and
// the refusal of anything else.
func TestJournalFilters(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{}, genWorld(t))
	for _, p := range []string{"/transactions", "/api/v2/games", "/transactions", "/api/v2/snapshots"} {
		s.get(t, p, "")
	}
	all := journalRead(t, s, "")
	mid := all[2] // the second request
	time.Sleep(5 * time.Millisecond)
	at := time.Now().UTC()
	s.get(t, "/transactions", "first=1")
	tests := []struct {
		query string
		want  int // requests selected
	}{
		{"", 5},
		{"listing=transactions", 3},
		{"listing=games", 1},
		{"listing=keyrotations", 0},
		{fmt.Sprintf("since=%d", mid.ID), 3},
		{fmt.Sprintf("since=%d&listing=transactions", mid.ID), 2},
		{"since=" + url.QueryEscape(at.Format(time.RFC3339Nano)), 1},
		{"since=0", 5},
	}
	for _, tc := range tests {
		got := journalRead(t, s, tc.query)
		if len(got) != tc.want {
			t.Errorf("?%s: %d requests, want %d", tc.query, len(got), tc.want)
		}
	}
	refused := []struct{ query, text string }{
		{"listing=transaction", `listing "transaction": want one of games, snapshots, keyrotations, networkparameters, transactions; did you mean "transactions"?`},
		{"since=yesterday", "want a request ID or an RFC 3339 time"},
		{"since=1&since=2", "since given 2 times"},
		{"limit=5", `unknown parameter "limit": give listing or since`},
	}
	for _, tc := range refused {
		checkError(t, controlRaw(t, s, http.MethodGet, "/harness/requests", tc.query, ""), errRule.with(tc.text))
	}
	checkError(t, controlRaw(t, s, http.MethodGet, "/harness/walks", "since=1", ""), errRule.with("give listing"))
}

// TestJournalClears checks DELETE /harness/requests and POST /harness/reset
// empty the journal, whose IDs go on from where they were, and that the
// guard of control writes holds for the DELETE.
func TestJournalClears(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{}, genWorld(t))
	s.get(t, "/transactions", "")
	last := journalRead(t, s, "")[0].ID
	evil := controlHeader(t, s, http.MethodDelete, "/harness/requests", "", "", http.Header{"Origin": {"http://evil.example"}})
	if evil.status != http.StatusForbidden || len(journalRead(t, s, "")) != 1 {
		t.Fatalf("%s from another origin: status %d, the journal emptied or not", evil, evil.status)
	}
	if r := controlRaw(t, s, http.MethodDelete, "/harness/requests", "", ""); r.status != http.StatusOK || string(r.body) != "{\"requests\":[]}\n" {
		t.Fatalf("%s: %d %s", r, r.status, r.body)
	}
	if got := journalRead(t, s, ""); len(got) != 0 {
		t.Fatalf("after DELETE: %d requests", len(got))
	}
	s.get(t, "/transactions", "")
	if got := journalRead(t, s, ""); len(got) != 1 || got[0].ID != last+1 {
		t.Fatalf("after DELETE and one request: %+v, want ID %d", got, last+1)
	}
	control(t, s, http.MethodPost, "/harness/reset", "", "")
	if got := journalRead(t, s, ""); len(got) != 0 {
		t.Fatalf("after reset: %d requests", len(got))
	}
	checkError(t, controlRaw(t, s, http.MethodDelete, "/harness/requests", "x=1", ""), errRule.with("takes no parameters"))
	checkError(t, controlRaw(t, s, http.MethodPut, "/harness/requests", "", ""), wantErr{status: 405, detail: 10000, text: "it takes GET, DELETE"})
}

// TestJournalNeedsTheToken checks a control token guards the journal's
// reads too.
func TestJournalNeedsTheToken(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{ControlToken: "tok"}, genWorld(t))
	s.get(t, "/transactions", "")
	for _, p := range []string{"/harness/requests", "/harness/walks"} {
		if r := controlRaw(t, s, http.MethodGet, p, "", ""); r.status != http.StatusUnauthorized {
			t.Errorf("%s without the token: status %d", r, r.status)
		}
		if r := controlHeader(t, s, http.MethodGet, p, "", "", http.Header{"Authorization": {"Bearer tok"}}); r.status != http.StatusOK {
			t.Errorf("%s with the token: status %d", r, r.status)
		}
	}
}

// TestJournalOff checks a negative JournalSize keeps nothing, and the
// findings are still made.
func TestJournalOff(t *testing.T) {
	t.Parallel()
	s, srv := journalServer(t, Config{JournalSize: -1}, genWorld(t))
	if r := s.get(t, "/api/v2/games", "first=1"); len(r.header.Values(WarningHeader)) != 1 {
		t.Errorf("%s: findings %q", r, r.header.Values(WarningHeader))
	}
	if got := srv.Requests(journal.RequestFilter{}); len(got) != 0 {
		t.Errorf("a journal of size -1 holds %d requests", len(got))
	}
	srv.ClearRequests()
}

// TestJournalBoundUnderConcurrentClients has clients of every listing send
// requests at once while others read the journal with filters and its
// walks: every read holds at most the bound, newest first, and only what
// its filter selects; at the end the journal holds exactly the newest
// requests. Run it with -race.
func TestJournalBoundUnderConcurrentClients(t *testing.T) {
	t.Parallel()
	const size, clients, each = 64, 6, 40
	s, srv := journalServer(t, Config{JournalSize: size}, genWorld(t))
	paths := []string{"/transactions", "/api/v2/games", "/api/v2/snapshots", "/api/v2/core/keys/ethereum/rotations", "/api/v2/network/parameters"}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				p := paths[(c+i)%len(paths)]
				q := "first=2&cmdTypes[]=x"
				if p != "/transactions" {
					q = "pagination.first=2&first=3"
				}
				if _, err := s.fetch(http.MethodGet, p, q, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	var readers sync.WaitGroup
	for _, f := range []journal.RequestFilter{{}, {Listing: "transactions"}, {Since: clients * each / 2}, {Listing: "games", Since: 10}} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				checkJournalRead(t, srv.Requests(f), f, size)
				srv.Walks("")
			}
		}()
	}
	wg.Wait()
	close(done)
	readers.Wait()
	got := srv.Requests(journal.RequestFilter{})
	if len(got) != size || got[0].ID != clients*each || got[size-1].ID != clients*each-size+1 {
		t.Fatalf("after %d requests: %d journaled, IDs %d to %d; want the newest %d", clients*each, len(got), got[0].ID, got[len(got)-1].ID, size)
	}
	for _, r := range got {
		if len(r.Warnings) != 1 || r.Status != 200 {
			t.Errorf("request %d: status %d, warnings %q", r.ID, r.Status, r.Warnings)
		}
	}
	checkJournalRead(t, journalRead(t, s, "listing=games&since=100"), journal.RequestFilter{Listing: "games", Since: 100}, size)
}

// checkJournalRead checks one read of the journal.
func checkJournalRead(t *testing.T, got []journal.Request, f journal.RequestFilter, size int) {
	t.Helper()
	if len(got) > size {
		t.Errorf("%+v: %d requests, above the bound %d", f, len(got), size)
	}
	for i, r := range got {
		if !f.Keeps(&r) {
			t.Errorf("%+v: holds request %d of %s", f, r.ID, r.Listing)
		}
		if i > 0 && r.ID >= got[i-1].ID {
			t.Errorf("%+v: request %d after %d, not newest first", f, r.ID, got[i-1].ID)
		}
	}
}

// TestJournalBoundsWhatItKeeps checks a hostile request's path and query
// are kept cut, its findings bounded and found in little time, and that a
// HEAD is journaled but is no page of a walk.
func TestJournalBoundsWhatItKeeps(t *testing.T) {
	t.Parallel()
	s, srv := journalServer(t, Config{}, genWorld(t))
	long := "/" + strings.Repeat("p", 100_000)
	s.get(t, long, "")
	var many []string
	for i := range 4_000 { // net/url parses at most 10,000 parameters
		many = append(many, fmt.Sprintf("cmdTypes=t%d", i), "parties=a,b")
	}
	start := time.Now()
	r := s.get(t, "/transactions", strings.Join(many, "&")+"&x="+strings.Repeat(",", 200_000))
	if d := time.Since(start); r.status != 200 || d > 10*time.Second || len(r.header.Values(WarningHeader)) != warnings.MaxFindings+1 {
		t.Errorf("status %d, %d findings in %v", r.status, len(r.header.Values(WarningHeader)), d)
	}
	for _, got := range srv.Requests(journal.RequestFilter{}) {
		if len(got.Path) > maxKeptPath+32 || len(got.Query) > maxKeptQuery+32 {
			t.Errorf("request %d kept a path of %d bytes and a query of %d", got.ID, len(got.Path), len(got.Query))
		}
	}
	if got := srv.Requests(journal.RequestFilter{})[0].Query; !strings.HasSuffix(got, fmt.Sprintf("…(%d bytes)", len(strings.Join(many, "&"))+len("&x=")+200_000)) {
		t.Errorf("the query kept ends %q", got[len(got)-40:])
	}
	s.do(t, http.MethodHead, "/api/v2/snapshots", "", nil)
	if walks := srv.Walks(records.ListingSnapshots); len(walks) != 0 {
		t.Errorf("a HEAD made %d walks", len(walks))
	}
}

// TestPagedPageRuns checks a page's rows are noted as journal.AddRow makes
// them, one row at a time: a range of the store ascending or descending
// (one run, made at once), rows of a filtered listing apart, and none.
func TestPagedPageRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		v          view
		start, end int
	}{
		{"a range, ascending", rangeView(50, false), 10, 20},
		{"a range, descending", rangeView(50, true), 10, 20},
		{"a range, its last row", rangeView(50, true), 49, 50},
		{"a range, empty", rangeView(50, true), 20, 20},
		{"no rows at all", rangeView(0, true), 0, 0},
		{"a list, apart", listView([]int32{1, 2, 3, 7, 8, 20, 40, 41}, false), 1, 7},
		{"a list, descending", listView([]int32{1, 2, 3, 7, 8, 20, 40, 41}, true), 0, 8},
		{"a list, one row", listView([]int32{5}, true), 0, 1},
	}
	for _, tc := range tests {
		var want []journal.RowRun
		for p := tc.start; p < tc.end; p++ {
			want = journal.AddRow(want, int32(tc.v.row(p)))
		}
		var n pageNote
		n.pagedPage(tc.v, tc.start, tc.end, 99, []byte("a"), []byte("b"))
		if fmt.Sprint(n.Runs) != fmt.Sprint(want) || len(n.Runs) != len(want) || n.Rows != tc.end-tc.start || n.Total != 99 {
			t.Errorf("%s: runs %v, rows %d, total %d; want %v, %d, 99", tc.name, n.Runs, n.Rows, n.Total, want, tc.end-tc.start)
		}
		if n.HasNext != (tc.end < tc.v.len()) || n.HasPrev != (tc.start > 0) || n.start != "a" || n.end != "b" {
			t.Errorf("%s: next %v, previous %v, cursors %q %q", tc.name, n.HasNext, n.HasPrev, n.start, n.end)
		}
	}
}
