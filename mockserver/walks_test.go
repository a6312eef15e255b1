package mockserver

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/journal"
)

// pager is a client of one test server for the walk tests: it fetches a
// page and reads its cursors.
type pager struct {
	t   *testing.T
	s   *testServer
	srv *Server
}

// clientPage is what a client reads of an answer.
type clientPage struct {
	status     int
	cursors    []string // every row's, in order
	start, end string   // the page's ends: pageInfo, or the rows' first and last
	hasNext    bool     // a paged listing's hasNextPage
	retryAfter int
}

// get fetches path?query and reads its page.
func (p *pager) get(path, query string) clientPage {
	p.t.Helper()
	r, err := p.s.fetch(http.MethodGet, path, query, nil)
	if err != nil {
		p.t.Fatal(err)
	}
	pg := clientPage{status: r.status}
	pg.retryAfter, _ = strconv.Atoi(r.header.Get("Retry-After"))
	if r.status != http.StatusOK {
		return pg
	}
	if strings.HasSuffix(path, "/transactions") {
		var body struct{ Transactions []struct{ Cursor string } }
		if err := json.Unmarshal(r.body, &body); err != nil {
			p.t.Fatal(err)
		}
		for _, tx := range body.Transactions {
			pg.cursors = append(pg.cursors, tx.Cursor)
		}
		if n := len(pg.cursors); n > 0 {
			pg.start, pg.end = pg.cursors[0], pg.cursors[n-1]
		}
		return pg
	}
	var body map[string]struct {
		Edges    []struct{ Cursor string }
		PageInfo struct {
			StartCursor, EndCursor string
			HasNextPage            bool
		}
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		p.t.Fatal(err)
	}
	for _, v := range body {
		for _, e := range v.Edges {
			pg.cursors = append(pg.cursors, e.Cursor)
		}
		pg.start, pg.end, pg.hasNext = v.PageInfo.StartCursor, v.PageInfo.EndCursor, v.PageInfo.HasNextPage
	}
	return pg
}

// txWalk walks transactions newest to oldest, size rows a page, as a
// correct client does: first=N, then last=N&before=<the oldest row's
// cursor> until a page is short. between runs before each page but the
// first, with the page's number; next, when set, chooses each next cursor
// from the page. It returns the pages' cursors in order.
func (p *pager) txWalk(size int, between func(n int), next func(n int, pg clientPage) string) []string {
	p.t.Helper()
	n := strconv.Itoa(size)
	pg := p.get("/transactions", "first="+n)
	all := pg.cursors
	for i := 1; len(pg.cursors) == size; i++ {
		if between != nil {
			between(i)
		}
		c := pg.end
		if next != nil {
			c = next(i, pg)
		}
		pg = p.get("/transactions", "last="+n+"&before="+url.QueryEscape(c))
		for pg.status != http.StatusOK {
			time.Sleep(time.Duration(pg.retryAfter) * time.Second)
			pg = p.get("/transactions", "last="+n+"&before="+url.QueryEscape(c))
		}
		all = append(all, pg.cursors...)
	}
	return all
}

// wantWalk is what a walk must be.
type wantWalk struct {
	pages, rows                 int // 0: not checked
	reachedEnd                  bool
	notIssued, askedTwice       int
	missed, seenTwice           int
	retries, honoured, problems int
}

// checkWalk checks w is want.
func checkWalk(t *testing.T, w journal.Walk, want wantWalk) {
	t.Helper()
	honoured := 0
	for _, r := range w.RetryAfter {
		if r.Honoured {
			honoured++
		}
	}
	got := wantWalk{
		pages: w.Pages, rows: w.Rows, reachedEnd: w.ReachedEnd, notIssued: len(w.CursorsNotIssued), askedTwice: len(w.PagesAskedTwice),
		missed: w.RowsMissed, seenTwice: w.RowsSeenTwice, retries: len(w.RetryAfter), honoured: honoured, problems: len(w.Problems),
	}
	if want.pages == 0 {
		got.pages = 0
	}
	if want.rows == 0 {
		got.rows = 0
	}
	if got != want || !w.RowsChecked {
		t.Errorf("walk %d of %s: %+v, want %+v; rows checked %v\nproblems: %q", w.ID, w.Listing, got, want, w.RowsChecked, w.Problems)
	}
}

// TestWalks has clients walk the listings, correctly and not, while the
// chain grows and faults answer, and checks what the walks report.
func TestWalks(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	total := len(w.Transactions)
	tests := []struct {
		name string
		cfg  Config
		// walk is the client; it may call the server and its chain.
		walk func(p *pager)
		// want are the walks, oldest first.
		want []wantWalk
	}{
		{"a client that follows the cursors", Config{}, func(p *pager) {
			p.txWalk(100, nil, nil)
		}, []wantWalk{{pages: total/100 + 1, rows: total, reachedEnd: true}}},
		{"a client that follows the cursors while blocks arrive", Config{}, func(p *pager) {
			p.txWalk(100, func(int) { p.mustAdvance(7) }, nil)
		}, []wantWalk{{pages: total/100 + 1, rows: total, reachedEnd: true}}},
		{"a client that pages towards the newest while blocks arrive", Config{}, func(p *pager) {
			pg := p.get("/transactions", "last=100")
			for len(pg.cursors) == 100 {
				p.mustAdvance(3)
				pg = p.get("/transactions", "first=100&after="+pg.start)
			}
		}, []wantWalk{{reachedEnd: true}}},
		{"a client that pages a listing backwards", Config{}, func(p *pager) {
			pg := p.get("/api/v2/snapshots", "pagination.last=7")
			for pg.start != "" {
				pg = p.get("/api/v2/snapshots", "pagination.last=7&pagination.before="+url.QueryEscape(pg.start))
			}
		}, []wantWalk{{pages: 50/7 + 2, rows: 50, reachedEnd: true}}},
		{"a client that pages snapshots oldest first while blocks arrive", Config{}, func(p *pager) {
			q := "pagination.first=8&pagination.newestFirst=false"
			pg := p.get("/api/v2/snapshots", q)
			for pg.hasNext {
				p.mustAdvance(400) // a snapshot every so many blocks
				pg = p.get("/api/v2/snapshots", q+"&pagination.after="+url.QueryEscape(pg.end))
			}
		}, []wantWalk{{reachedEnd: true}}},
		{"a client that pages network parameters", Config{}, func(p *pager) {
			pg := p.get("/api/v2/network/parameters", "pagination.first=50&pagination.newestFirst=false")
			for pg.hasNext {
				pg = p.get("/api/v2/network/parameters", "pagination.first=50&pagination.newestFirst=false&pagination.after="+url.QueryEscape(pg.end))
			}
		}, []wantWalk{{pages: 5, rows: 209, reachedEnd: true}}},
		{"a client that resumes from an inner row's cursor", Config{}, func(p *pager) {
			p.txWalk(100, nil, func(_ int, pg clientPage) string { return pg.cursors[len(pg.cursors)-2] })
		}, []wantWalk{{reachedEnd: true, seenTwice: total / 100, problems: 1}}},
		{"a client that repeats a page", Config{}, func(p *pager) {
			var kept string
			p.txWalk(100, nil, func(n int, pg clientPage) string {
				if n == 1 {
					kept = pg.end
				}
				if n == 2 { // page 2 again, with the cursor it was asked with
					return kept
				}
				return pg.end
			})
		}, []wantWalk{{pages: total/100 + 2, rows: total + 100, reachedEnd: true, askedTwice: 1, seenTwice: 100, problems: 2}}},
		{"a client that invents a cursor", Config{}, func(p *pager) {
			p.txWalk(100, nil, func(n int, pg clientPage) string {
				if n == 2 { // five blocks on, by arithmetic
					block, _, _ := strings.Cut(pg.end, ".")
					b, _ := strconv.Atoi(block)
					return strconv.Itoa(b-5) + ".0"
				}
				return pg.end
			})
		}, []wantWalk{{reachedEnd: true, notIssued: 1, missed: -1, problems: 2}}},
		{"a client that skips a page with a cursor kept from before", Config{}, func(p *pager) {
			kept := p.txWalk(100, nil, nil)[199] // the end of page 2 of a first walk
			p.txWalk(100, nil, func(n int, pg clientPage) string {
				if n == 1 {
					return kept
				}
				return pg.end
			})
		}, []wantWalk{{pages: total/100 + 1, rows: total, reachedEnd: true}, {pages: total / 100, rows: total - 100, reachedEnd: true, notIssued: 1, missed: 100, problems: 2}}},
		{"a client that waits out Retry-After", Config{}, func(p *pager) {
			p.setFaults(faults.Rule{Listing: "transactions", Every: 2, Times: 1, Fault: "status=503; retry-after=1"})
			p.txWalk(100, nil, nil) // it sleeps as long as Retry-After says
		}, []wantWalk{{pages: total/100 + 1, rows: total, reachedEnd: true, retries: 1, honoured: 1}}},
		{"a client that ignores Retry-After", Config{}, func(p *pager) {
			p.setFaults(faults.Rule{Listing: "transactions", Every: 2, Times: 1, Fault: "status=503; retry-after=1"})
			pg := p.get("/transactions", "first=100")
			for len(pg.cursors) == 100 {
				q := "last=100&before=" + pg.end
				for pg = p.get("/transactions", q); pg.status != http.StatusOK; pg = p.get("/transactions", q) {
				}
			}
		}, []wantWalk{{pages: total/100 + 1, rows: total, reachedEnd: true, retries: 1, problems: 1}}},
		{"a client that retries at once", Config{}, func(p *pager) {
			p.setFaults(faults.Rule{Listing: "snapshots", Times: 1, Fault: "status=429; retry-after=1"})
			pg := p.get("/api/v2/snapshots", "pagination.first=30")
			for pg.status != http.StatusOK {
				pg = p.get("/api/v2/snapshots", "pagination.first=30")
			}
			for pg.hasNext {
				pg = p.get("/api/v2/snapshots", "pagination.first=30&pagination.after="+url.QueryEscape(pg.end))
			}
		}, []wantWalk{{pages: 2, rows: 50, reachedEnd: true, retries: 1, problems: 1}}},
		{"a client that starts again after an error", Config{}, func(p *pager) {
			p.setFaults(faults.Rule{Listing: "snapshots", Every: 3, Times: 1, Fault: "status=502"})
			walk := func() bool {
				pg := p.get("/api/v2/snapshots", "pagination.first=10")
				for pg.hasNext {
					p.mustAdvance(5)
					if pg = p.get("/api/v2/snapshots", "pagination.first=10&pagination.after="+url.QueryEscape(pg.end)); pg.status != http.StatusOK {
						return false
					}
				}
				return true
			}
			for !walk() {
			}
		}, []wantWalk{{pages: 2, rows: 20, problems: 1}, {reachedEnd: true}}},
		{"a client that walks games without epochTo while epochs begin", Config{EpochWindow: 4}, func(p *pager) {
			pg := p.get("/api/v2/games", "pagination.first=10")
			for pg.hasNext {
				p.mustAdvanceEpochs(1)
				pg = p.get("/api/v2/games", "pagination.first=10&pagination.after="+url.QueryEscape(pg.end))
			}
		}, []wantWalk{{reachedEnd: true, missed: -1, problems: 1}}},
		{"a client that walks games with epochTo while epochs begin", Config{EpochWindow: 4}, func(p *pager) {
			q := "pagination.first=10&epochTo=" + strconv.FormatUint(w.LatestEpoch, 10)
			pg := p.get("/api/v2/games", q)
			for pg.hasNext {
				p.mustAdvanceEpochs(1)
				pg = p.get("/api/v2/games", q+"&pagination.after="+url.QueryEscape(pg.end))
			}
		}, []wantWalk{{reachedEnd: true}}},
		{"a client that walks filtered transactions", Config{}, func(p *pager) {
			pg := p.get("/transactions", "first=20&cmdTypes=Submit+Order&cmdTypes=Cancel+Order")
			for len(pg.cursors) == 20 {
				p.mustAdvance(4)
				pg = p.get("/transactions", "last=20&cmdTypes=Submit+Order&cmdTypes=Cancel+Order&before="+pg.end)
			}
		}, []wantWalk{{reachedEnd: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, srv := journalServer(t, tc.cfg, w)
			tc.walk(&pager{t: t, s: s, srv: srv})
			walks := srv.Walks("")
			t.Cleanup(func() {
				if t.Failed() { // the journal, to see why
					for _, r := range srv.Requests(journal.RequestFilter{}) {
						t.Logf("request %d: %s?%s: %d, %d rows, walk %d, cursor of %d", r.ID, r.Path, r.Query, r.Status, r.Rows, r.Walk, r.IssuedBy)
					}
				}
			})
			if len(walks) != len(tc.want) {
				t.Fatalf("%d walks, want %d", len(walks), len(tc.want))
			}
			for i, want := range tc.want {
				if want.missed < 0 { // some: how many is the walk's business
					if walks[i].RowsMissed == 0 {
						t.Errorf("walk %d missed no row", walks[i].ID)
					}
					want.missed = walks[i].RowsMissed
				}
				checkWalk(t, walks[i], want)
			}
		})
	}
}

// mustAdvance adds n blocks.
func (p *pager) mustAdvance(n int) {
	p.t.Helper()
	if err := p.srv.Advance(n); err != nil {
		p.t.Fatal(err)
	}
}

// mustAdvanceEpochs adds the blocks that begin n epochs.
func (p *pager) mustAdvanceEpochs(n int) {
	p.t.Helper()
	if _, err := p.srv.AdvanceEpochs(n); err != nil {
		p.t.Fatal(err)
	}
}

// setFaults replaces the fault rules.
func (p *pager) setFaults(rules ...faults.Rule) {
	p.t.Helper()
	rs, err := faults.NewRuleSet(rules...)
	if err != nil {
		p.t.Fatal(err)
	}
	p.srv.SetFaults(rs)
}

// TestWalksLinkRequests checks the journal links each request that carries
// a cursor to the page that issued it, and the walks API answers.
func TestWalksLinkRequests(t *testing.T) {
	t.Parallel()
	s, srv := journalServer(t, Config{}, genWorld(t))
	p := &pager{t: t, s: s, srv: srv}
	p.txWalk(200, nil, nil)
	reqs := srv.Requests(journal.RequestFilter{})
	for i, r := range reqs {
		if i == len(reqs)-1 {
			if r.IssuedBy != 0 || r.Walk != r.ID {
				t.Errorf("the first page: %+v", r)
			}
			continue
		}
		if prev := reqs[i+1]; r.IssuedBy != prev.ID || r.Cursor != prev.EndCursor || r.Walk != reqs[len(reqs)-1].ID {
			t.Errorf("request %d: issued by %d, cursor %q, walk %d; want request %d's end cursor %q", r.ID, r.IssuedBy, r.Cursor, r.Walk, prev.ID, prev.EndCursor)
		}
	}
	r, err := s.fetch(http.MethodGet, "/harness/walks", "listing=transactions", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Walks []journal.Walk }
	if err := json.Unmarshal(r.body, &got); err != nil || r.status != 200 || len(got.Walks) != 1 || !got.Walks[0].OK() {
		t.Fatalf("%s: %d %v: %s", r, r.status, err, r.body)
	}
	if r, _ := s.fetch(http.MethodGet, "/harness/walks", "listing=games", nil); string(r.body) != "{\"walks\":[]}\n" {
		t.Errorf("walks of games: %s", r.body)
	}
}

// TestWalksOfTwoClientsAtOnce checks two clients walking the same listing
// with the same query, page by page in turn, make two clean walks.
func TestWalksOfTwoClientsAtOnce(t *testing.T) {
	t.Parallel()
	s, srv := journalServer(t, Config{}, genWorld(t))
	p := &pager{t: t, s: s, srv: srv}
	a, b := p.get("/api/v2/snapshots", "pagination.first=10"), p.get("/api/v2/snapshots", "pagination.first=10")
	for a.hasNext || b.hasNext {
		if a.hasNext {
			a = p.get("/api/v2/snapshots", "pagination.first=10&pagination.after="+url.QueryEscape(a.end))
		}
		if b.hasNext {
			b = p.get("/api/v2/snapshots", "pagination.first=10&pagination.after="+url.QueryEscape(b.end))
		}
	}
	walks := srv.Walks(records.ListingSnapshots)
	if len(walks) != 2 {
		t.Fatalf("%d walks, want 2", len(walks))
	}
	for _, w := range walks {
		checkWalk(t, w, wantWalk{pages: 5, rows: 50, reachedEnd: true})
	}
}

// TestWalksOfManyClientsInterleaved has eight clients walk the same listing
// with the same filters, page by page in a seeded random order, some pages
// failing and asked again, and checks each client's walk is its own and
// clean: by connection, by User-Agent, or by X-Harness-Client when they
// share both.
func TestWalksOfManyClientsInterleaved(t *testing.T) {
	t.Parallel()
	const clients = 8
	tests := []struct {
		name string
		// keepAlive gives each client its own connection; ua and header
		// name each client by User-Agent and X-Harness-Client.
		keepAlive, ua, header bool
	}{
		{"each on its own connection", true, false, false},
		{"a connection a request, told apart by User-Agent", false, true, false},
		{"a connection a request, told apart by X-Harness-Client", false, false, true},
	}
	for _, tc := range tests {
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(tc.name+"/seed "+strconv.FormatInt(seed, 10), func(t *testing.T) {
				t.Parallel()
				s, srv := journalServer(t, Config{}, genWorld(t))
				type client struct {
					http   *http.Client
					hdr    http.Header
					size   string
					end    string
					done   bool
					failed bool
				}
				rng := rand.New(rand.NewPCG(uint64(seed), 0))
				cs := make([]*client, clients)
				for i := range cs {
					tr := &http.Transport{DisableKeepAlives: !tc.keepAlive}
					t.Cleanup(tr.CloseIdleConnections)
					c := &client{http: &http.Client{Transport: tr, Timeout: 30 * time.Second}, hdr: http.Header{}}
					c.size = strconv.Itoa([]int{4, 7, 10}[i%3])
					if tc.ua {
						c.hdr.Set("User-Agent", "client-"+strconv.Itoa(i))
					}
					if tc.header {
						c.hdr.Set(journal.ClientHeader, "client-"+strconv.Itoa(i))
					}
					cs[i] = c
				}
				for step := 0; step < 10_000; step++ {
					var live []*client
					for _, c := range cs {
						if !c.done {
							live = append(live, c)
						}
					}
					if len(live) == 0 {
						break
					}
					c := live[rng.IntN(len(live))]
					q := "pagination.first=" + c.size
					if c.end != "" {
						q += "&pagination.after=" + url.QueryEscape(c.end)
					}
					req, _ := http.NewRequest(http.MethodGet, s.url+"/api/v2/snapshots?"+q, nil)
					for k, v := range c.hdr {
						req.Header[k] = v
					}
					// One page in five fails once (a 500, no Retry-After)
					// and is asked again.
					fail := !c.failed && rng.IntN(5) == 0
					if fail {
						req.Header.Set(faults.Header, "status=500")
					}
					c.failed = fail
					res, err := c.http.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					var body struct {
						CoreSnapshots struct {
							PageInfo struct {
								EndCursor   string
								HasNextPage bool
							}
						}
					}
					err = json.NewDecoder(res.Body).Decode(&body)
					res.Body.Close()
					if fail {
						continue
					}
					if err != nil || res.StatusCode != 200 {
						t.Fatalf("%s: %d %v", req.URL, res.StatusCode, err)
					}
					c.end, c.done = body.CoreSnapshots.PageInfo.EndCursor, !body.CoreSnapshots.PageInfo.HasNextPage
				}
				walks := srv.Walks(records.ListingSnapshots)
				if len(walks) != clients {
					t.Errorf("%d walks, want %d", len(walks), clients)
				}
				for _, w := range walks {
					if !w.OK() {
						t.Errorf("walk %d (%d pages): %q", w.ID, w.Pages, w.Problems)
					}
				}
			})
		}
	}
}

// TestWalksThroughEpochWindows checks a games walk that goes through the
// epochs window by window is one walk, checked against every window's
// games, and that epochs left out between windows and a window left before
// its last page are reported.
func TestWalksThroughEpochWindows(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	first, latest := w.FirstEpoch, w.LatestEpoch
	const window = 4
	type span struct{ from, to uint64 }
	up := func(from, to uint64) []span { // windows of 4 epochs, upwards
		var out []span
		for e := from; e <= to; e += window {
			out = append(out, span{e, min(e+window-1, to)})
		}
		return out
	}
	down := func(from, to uint64) []span {
		var out []span
		for e := to; e >= from && e <= to; e -= window {
			out = append(out, span{max(from, e-window+1), e})
			if e < window {
				break
			}
		}
		return out
	}
	all := up(first, latest)
	tests := []struct {
		name    string
		windows []span
		stopAt  int // the window whose walk stops after its first page (-1: none)
		walks   int
		// of the first walk:
		windowsWalked, skipped, left int
		ok                           bool
		says                         string // in its problems
	}{
		{"upwards through every window", all, -1, 1, len(all), 0, 0, true, ""},
		{"downwards through every window", down(first, latest), -1, 1, len(all), 0, 0, true, ""},
		{"a gap after two windows", append(slices.Clone(all[:2]), all[3:]...), -1, 1, len(all) - 1, 1, 0, false,
			fmt.Sprintf("left out the epochs %d to %d between its window and the one before; missed", all[2].from, all[2].to)},
		{"a gap going down", append(slices.Clone(down(first, latest)[:2]), down(first, latest)[3:]...), -1, 1, len(all) - 1, 1, 0, false,
			fmt.Sprintf("left out the epochs %d to %d between", down(first, latest)[2].from, down(first, latest)[2].to)},
		{"a window left before its last page", all[:3], 1, 1, 3, 0, 1, false,
			fmt.Sprintf("left the epochs %d to %d (request", all[1].from, all[1].to)},
		{"two windows apart are two walks", []span{all[0], all[2]}, -1, 2, 1, 0, 0, true, ""},
		{"a window asked again is another walk", []span{all[0], all[0]}, -1, 2, 1, 0, 0, true, ""},
		{"back down after going up is another walk", []span{all[0], all[1], all[0]}, -1, 2, 2, 0, 0, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, srv := journalServer(t, Config{EpochWindow: window}, w)
			p := &pager{t: t, s: s, srv: srv}
			for i, sp := range tc.windows {
				q := "pagination.first=3&epochFrom=" + strconv.FormatUint(sp.from, 10) + "&epochTo=" + strconv.FormatUint(sp.to, 10)
				pg := p.get("/api/v2/games", q)
				for pg.hasNext && i != tc.stopAt {
					pg = p.get("/api/v2/games", q+"&pagination.after="+url.QueryEscape(pg.end))
				}
			}
			walks := srv.Walks(records.ListingGames)
			if len(walks) != tc.walks {
				t.Fatalf("%d walks, want %d: %+v", len(walks), tc.walks, walks)
			}
			wk := walks[0]
			if len(wk.Windows) != tc.windowsWalked || len(wk.EpochsSkipped) != tc.skipped || len(wk.WindowsLeft) != tc.left || wk.OK() != tc.ok {
				t.Errorf("windows %v, skipped %v, left %v, ok %v; want %d, %d, %d, %v\nproblems %q",
					wk.Windows, wk.EpochsSkipped, wk.WindowsLeft, wk.OK(), tc.windowsWalked, tc.skipped, tc.left, tc.ok, wk.Problems)
			}
			if got := strings.Join(wk.Problems, "; "); !strings.Contains(got, tc.says) || (tc.ok && wk.Rows != len(w.Games) && tc.walks == 1) {
				t.Errorf("problems %q, %d rows; want them to say %q, and every game of %d", got, wk.Rows, tc.says, len(w.Games))
			}
			for _, w := range walks[1:] {
				if !w.OK() {
					t.Errorf("walk %d: %q", w.ID, w.Problems)
				}
			}
		})
	}
}
