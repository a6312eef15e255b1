package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/store"
)

// cacheQueries are queries of every listing: pages, filters, windows, a
// transactions window cut at the largest page (a late warning), a warning
// drawn before the page is made, and refusals.
var cacheQueries = []struct{ path, query string }{
	{"/api/v2/network/parameters", "pagination.first=100"},
	{"/api/v2/snapshots", ""},
	{"/api/v2/snapshots", "pagination.last=7&newestFirst=false"},
	{"/api/v2/core/keys/ethereum/rotations", "pagination.last=5"},
	{"/api/v2/games", "pagination.first=10"},
	{"/api/v2/games", "epochFrom=1&epochTo=3&pagination.first=4"},
	{"/transactions", "first=20"},
	{"/rest/transactions", "first=20"},
	{"/transactions", "first=20&cmdTypes=Batch+Proposal"},
	{"/transactions", "after=1.0&before=999999999.0"},
	{"/api/v2/snapshots", "pagination.first=3&unknownParam=1"},
	{"/api/v2/snapshots", "pagination.first=abc"},
	{"/transactions", "first=-1"},
	// A cursor carried, for the journal (auction.LongBlock's).
	{"/api/v2/network/parameters", "pagination.first=5&pagination.after=eyJrZXkiOiJhdWN0aW9uLkxvbmdCbG9jayJ9"},
}

// cachePair is a server with the page cache and one without, on one store
// and one chain, with the control API.
type cachePair struct {
	st             *store.Store
	chain          *store.Chain
	cached, direct *Server
	cachedURL      string
	directURL      string
}

func newCachePair(t *testing.T) *cachePair {
	t.Helper()
	w := genWorld(t)
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := store.NewChain(st, w, 100)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Control: true, Chain: chain, TxMaxPageSize: 10}
	p := &cachePair{st: st, chain: chain, cached: New(cfg, st)}
	cfg.PageCacheBytes = -1
	p.direct = New(cfg, st)
	for _, s := range []struct {
		h   http.Handler
		url *string
	}{{p.cached, &p.cachedURL}, {p.direct, &p.directURL}} {
		hs := httptest.NewServer(s.h)
		t.Cleanup(hs.Close)
		*s.url = hs.URL
	}
	return p
}

// answerOf is what a client reads of an answer: status, the headers the
// server writes (Date aside) and body.
func answerOf(t *testing.T, url string) string {
	t.Helper()
	return answerTo(t, http.MethodGet, url)
}

// answerTo is answerOf for a request of method.
func answerTo(t *testing.T, method, url string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	res.Header.Del("Date")
	var h strings.Builder
	res.Header.Write(&h)
	return fmt.Sprintf("%d\n%s\n%s", res.StatusCode, h.String(), b.String())
}

// journalOf is the journal's view of a server's requests: every record
// (less its time, duration and client address), and the walks and the
// coverage worked out from them.
func journalOf(t *testing.T, s *Server, url string) string {
	t.Helper()
	var out strings.Builder
	for _, r := range s.Requests(journal.RequestFilter{}) {
		r.Time, r.DurationMS, r.Remote = time.Time{}, 0, ""
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	for _, path := range []string{"/harness/walks", "/harness/coverage"} {
		a := answerOf(t, url+path)
		out.WriteString(path + " " + a + "\n")
	}
	return out.String()
}

// TestPageCacheAnswersAsTheStore asks every query three times of a server
// with the page cache and of one without, on one store, while the chain
// grows, rows are added and the store is reset: the answers are the same
// byte for byte, headers included, and so are the journals, the walks and
// the coverage worked out from them; the cache served the repeated queries.
func TestPageCacheAnswersAsTheStore(t *testing.T) {
	p := newCachePair(t)
	steps := []struct {
		name   string
		change func() error
	}{
		{"at start", func() error { return nil }},
		{"after a block", func() error { return p.chain.Advance(1) }},
		{"after rows added", func() error {
			return p.st.AddRows(records.ListingSnapshots, []any{ptr(snapshot(999_999_999))}, false)
		}},
		{"after a reset", func() error { p.st.Reset(); return nil }},
	}
	for _, step := range steps {
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		hits := p.cached.pages.hits.Load()
		for _, q := range cacheQueries {
			u := q.path + "?" + q.query
			for ask := range 3 { // the same requests in both journals
				if got, want := answerOf(t, p.cachedURL+u), answerOf(t, p.directURL+u); got != want {
					t.Errorf("%s: %s asked the %d. time:\n%s\nwant (no cache):\n%s", step.name, u, ask+1, got, want)
				}
			}
			// Kept now: a HEAD is answered from it, a POST is not (and
			// draws no warning of the query's).
			for _, method := range []string{http.MethodHead, http.MethodPost} {
				if got, want := answerTo(t, method, p.cachedURL+u), answerTo(t, method, p.directURL+u); got != want {
					t.Errorf("%s: %s %s:\n%s\nwant (no cache):\n%s", step.name, method, u, got, want)
				}
			}
		}
		// Each 200 query is answered, seen once, then kept: the third
		// ask is served from the cache.
		oks := 0
		for _, q := range cacheQueries {
			if strings.HasPrefix(answerOf(t, p.directURL+q.path+"?"+q.query), "200") {
				oks++
			}
			answerOf(t, p.cachedURL+q.path+"?"+q.query)
		}
		if got := p.cached.pages.hits.Load() - hits; got < uint64(2*oks) {
			t.Errorf("%s: %d answers from the cache, want at least %d (%d queries answered 200)", step.name, got, 2*oks, oks)
		}
	}
	if a, b := journalOf(t, p.cached, p.cachedURL), journalOf(t, p.direct, p.directURL); a != b {
		al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Fatalf("the journals differ at line %d:\ncached: %s\ndirect: %s", i+1, al[i], bl[i])
			}
		}
		t.Fatalf("the journals differ in length: %d and %d lines", len(al), len(bl))
	}
	if p.direct.pages.hits.Load() != 0 || len(p.direct.pages.pages) != 0 {
		t.Errorf("PageCacheBytes -1: %d hits, %d pages kept, want none", p.direct.pages.hits.Load(), len(p.direct.pages.pages))
	}
}

// TestPageCacheBounds: the cache keeps an answer the second time its query
// is answered at one version, never one larger than a quarter of its
// bytes, and never more than its bytes or pageCacheQueries answers; past
// either it starts again.
func TestPageCacheBounds(t *testing.T) {
	req := func(q string) *http.Request { return httptest.NewRequest(http.MethodGet, "/x?"+q, nil) }
	body := func(n int) []byte { return bytes.Repeat([]byte{'x'}, n) }
	c := newPageCache(1000)

	c.put(req("a"), 1, body(100), nil, nil, nil)
	if c.get(req("a"), 1) != nil {
		t.Fatal("kept at the first answer")
	}
	c.put(req("a"), 2, body(100), nil, nil, nil) // a new version: seen once again
	if c.get(req("a"), 2) != nil {
		t.Fatal("kept at the first answer of a new version")
	}
	b := body(100)
	warned := append(make([]string, 0, 4), "a warning")
	c.put(req("a"), 2, b, []string{"7"}, []string{"8"}, &observedWriter{
		note:     pageNote{answered: true, start: "s", end: "e", late: []string{"w"}, query: url.Values{"pagination.after": {"cur"}}},
		listing:  records.ListingSnapshots,
		warnings: warned,
	})
	got := c.get(req("a"), 2)
	if got == nil || !bytes.Equal(got.body, b) || got.length[0] != "100" || got.height[0] != "7" || got.stamp[0] != "8" ||
		!got.answered || got.start != "s" || got.end != "e" || !slices.Equal(got.late, []string{"w"}) ||
		!slices.Equal(got.warnings, warned) || got.cursor != "cur" {
		t.Fatalf("kept %+v", got)
	}
	// The warnings kept are shared by the requests served from the page:
	// appending to them must not write into them.
	if cap(got.warnings) != len(got.warnings) {
		t.Errorf("the warnings kept have room to append in place: cap %d, len %d", cap(got.warnings), len(got.warnings))
	}
	warned[0] = "changed"
	if got.warnings[0] != "a warning" {
		t.Error("the warnings kept are the request's slice, not a copy")
	}
	b[0] = 'y'
	if got.body[0] != 'x' {
		t.Error("the kept body is the caller's buffer, not a copy")
	}
	if c.get(req("a"), 3) != nil || c.get(req("b"), 2) != nil {
		t.Error("served at another version, or for another query")
	}

	// Larger than a quarter of the bytes: never kept.
	for range 2 {
		c.put(req("big"), 2, body(251), nil, nil, nil)
	}
	if c.get(req("big"), 2) != nil {
		t.Error("kept an answer over a quarter of the cache")
	}
	for range 2 {
		c.put(req("quarter"), 2, body(250), nil, nil, nil)
	}
	if c.get(req("quarter"), 2) == nil || c.bytes != 350 {
		t.Errorf("a quarter of the cache not kept, or bytes %d, want 350", c.bytes)
	}
	// The same query kept again replaces its answer.
	c.put(req("quarter"), 2, body(200), nil, nil, nil)
	if c.bytes != 300 || len(c.get(req("quarter"), 2).body) != 200 {
		t.Errorf("kept again: bytes %d, want 300", c.bytes)
	}
	// Past the bytes: start again.
	for _, q := range []string{"c", "d", "e"} {
		for range 2 {
			c.put(req(q), 2, body(250), nil, nil, nil)
		}
	}
	if c.bytes > c.limit || c.get(req("a"), 2) != nil || c.get(req("e"), 2) == nil {
		t.Errorf("past the bytes: %d bytes kept, a kept %t, e kept %t", c.bytes, c.get(req("a"), 2) != nil, c.get(req("e"), 2) != nil)
	}

	// A query longer than maxCachedQuery: never remembered.
	long := req("q=" + strings.Repeat("x", maxCachedQuery-2))
	longer := req("q=" + strings.Repeat("x", maxCachedQuery-1))
	seen := len(c.seen)
	for range 2 {
		c.put(long, 2, body(1), nil, nil, nil)
		c.put(longer, 2, body(1), nil, nil, nil)
	}
	if c.get(long, 2) == nil || c.get(longer, 2) != nil || len(c.seen) != seen+1 {
		t.Errorf("queries of %d and %d bytes: kept %t and %t, %d queries seen more, want true, false and 1",
			maxCachedQuery, maxCachedQuery+1, c.get(long, 2) != nil, c.get(longer, 2) != nil, len(c.seen)-seen)
	}

	// Exactly the bytes: every answer kept.
	c = newPageCache(1000)
	for _, q := range []string{"w", "x", "y", "z"} {
		for range 2 {
			c.put(req(q), 0, body(250), nil, nil, nil)
		}
	}
	if c.bytes != 1000 || len(c.pages) != 4 {
		t.Errorf("answers of exactly the cache's bytes: %d bytes, %d answers kept, want 1000 and 4", c.bytes, len(c.pages))
	}

	// Past pageCacheQueries answers, or queries seen, start again.
	c = newPageCache(1 << 30)
	for i := range pageCacheQueries {
		q := req(fmt.Sprint(i))
		c.put(q, 0, body(1), nil, nil, nil)
		c.put(q, 0, body(1), nil, nil, nil)
	}
	if len(c.pages) != pageCacheQueries || len(c.seen) != pageCacheQueries {
		t.Fatalf("%d pages, %d seen, want %d", len(c.pages), len(c.seen), pageCacheQueries)
	}
	c.put(req("one-more"), 0, body(1), nil, nil, nil)
	if len(c.seen) != 1 {
		t.Errorf("%d queries seen after the bound, want 1", len(c.seen))
	}
	c.put(req("one-more"), 0, body(1), nil, nil, nil)
	if len(c.pages) != 1 || c.bytes != 1 || c.get(req("one-more"), 0) == nil {
		t.Errorf("%d pages, %d bytes after the bound, want 1 and 1", len(c.pages), c.bytes)
	}

	// A cache of no bytes keeps nothing.
	off := newPageCache(0)
	for range 3 {
		off.put(req("a"), 0, body(1), nil, nil, nil)
		off.put(req("empty"), 0, nil, nil, nil, nil)
	}
	if off.get(req("a"), 0) != nil || off.get(req("empty"), 0) != nil || len(off.seen) != 0 {
		t.Error("a cache of no bytes kept an answer")
	}
}

// TestPageCacheWhileTheChainGrows asks the same queries from several
// clients while blocks arrive: no answer is older than the store was when
// it was asked (X-Block-Height), and each client sees the head only move
// on (the header, and the newest transaction's block).
func TestPageCacheWhileTheChainGrows(t *testing.T) {
	p := newCachePair(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 60 {
			if err := p.chain.Advance(1); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	type head struct{ height, newest uint64 }
	read := func(url string) (head, error) {
		res, err := http.Get(url)
		if err != nil {
			return head{}, err
		}
		defer res.Body.Close()
		var page struct {
			Transactions []struct {
				Block uint64 `json:"block,string"`
			} `json:"transactions"`
		}
		if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
			return head{}, err
		}
		var h head
		fmt.Sscan(res.Header.Get("X-Block-Height"), &h.height)
		if len(page.Transactions) > 0 {
			h.newest = page.Transactions[0].Block
		}
		return h, nil
	}
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			var last head
			for i := range 150 {
				before := p.cached.Status().LatestBlock
				h, err := read(p.cachedURL + "/api/v2/snapshots?pagination.first=1")
				if err != nil {
					t.Errorf("client %d: %v", c, err)
					return
				}
				tx, err := read(p.cachedURL + "/transactions?first=1")
				if err != nil {
					t.Errorf("client %d: %v", c, err)
					return
				}
				if h.height < before {
					t.Errorf("client %d, request %d: X-Block-Height %d, but block %d was in the store before the request was sent: a stale answer", c, i, h.height, before)
					return
				}
				if h.height < last.height || tx.newest < last.newest {
					t.Errorf("client %d, request %d: head went back: height %d after %d, newest transaction in block %d after %d",
						c, i, h.height, last.height, tx.newest, last.newest)
					return
				}
				last = head{h.height, tx.newest}
			}
		})
	}
	wg.Wait()
	<-done
	if p.cached.pages.hits.Load() == 0 {
		t.Error("no answer came from the cache")
	}
}

// TestServeCachedKeepsToTheVersion: the answer observe found for a request
// is served only while the store keeps the version it was made at; after a
// block it is the store's newest answer that is served (or made).
func TestServeCachedKeepsToTheVersion(t *testing.T) {
	p := newCachePair(t)
	const target = "/api/v2/network/parameters?pagination.first=2"
	kept := &cachedPage{body: []byte(`{"kept":true}`), length: []string{"13"}, warnings: []string{}}
	serve := func() (bool, string) {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		rec := httptest.NewRecorder()
		o := &observedWriter{ResponseWriter: rec, r: r, page: kept}
		return p.cached.serveCached(o, r), rec.Body.String()
	}
	kept.version = p.st.Version()
	if ok, body := serve(); !ok || body != string(kept.body) {
		t.Fatalf("at its version: served %v, %q; want the answer observe found", ok, body)
	}
	if err := p.chain.Advance(1); err != nil {
		t.Fatal(err)
	}
	if ok, body := serve(); ok || body != "" {
		t.Fatalf("a block later: served %v, %q; want it left to the handler", ok, body)
	}
}
