package mockserver

import (
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/chaindata/harness/mockserver/journal"
)

// The page cache keeps the answers to the queries clients ask again (a
// dashboard polling the newest page, a load test), so that asking again
// costs the bytes' write and not the page's making. An answer is kept with
// the store's version it was made from (store.Store.Version) and served
// only while the store has that version: a block appended, a row added or
// a reset makes every answer kept a miss, so the cache never serves what
// the store would not. A query is kept the second time it is answered at
// one version, so that a client walking a listing, whose every query is
// new, pays no copy. Only 200 answers are kept: refusals are made again.
// Faults, warnings, the journal and the log see every request as before:
// the cache sits inside them, in the listings' handlers, and gives the
// journal the note of the answer it keeps.

// DefaultPageCacheBytes is the most bytes of answers the page cache keeps
// when Config.PageCacheBytes is 0.
const DefaultPageCacheBytes = 32 << 20

// pageCacheQueries bounds the queries the cache remembers as answered once
// (and the answers it keeps): past it, it starts again.
const pageCacheQueries = 4096

// maxCachedQuery is the longest raw query the cache remembers, in bytes
// (the journal keeps as much, maxKeptQuery): a client's are far shorter,
// and a hostile one's (up to the header limit, a megabyte) must not make
// the queries remembered take gigabytes.
const maxCachedQuery = maxKeptQuery

// pageKey is a query as asked: its path and raw query. Two spellings of
// one query are two keys: each is answered, and kept, on its own.
type pageKey struct{ path, query string }

// cachedPage is an answer kept: its body and headers, and what the
// journal's note said of it. It also keeps what observing its request
// found, which depends on the query and the store alone: the request's
// warnings and the cursor it carried, so that a request answered from the
// cache is not parsed at all (observe).
type cachedPage struct {
	version       uint64
	body          []byte
	length        []string // Content-Length
	height, stamp []string // X-Block-Height, X-Block-Timestamp (nil: none)
	answered      bool
	page          journal.Page
	start, end    string
	late          []string
	// warnings are the request's (shared by every request answered from
	// it: never appended to in place, its capacity its length); cursor is
	// the one it carried.
	warnings []string
	cursor   string
}

// pageCache is the cache of answers; its zero value keeps nothing.
type pageCache struct {
	limit int // bytes; 0: keep nothing

	mu    sync.RWMutex
	pages map[pageKey]*cachedPage
	seen  map[pageKey]uint64 // queries answered once: the version, plus one
	bytes int
	// hits counts the answers served from the cache.
	hits atomic.Uint64
}

func newPageCache(limit int) *pageCache {
	return &pageCache{limit: limit, pages: map[pageKey]*cachedPage{}, seen: map[pageKey]uint64{}}
}

// get returns the answer kept for the query of r at version, or nil.
func (c *pageCache) get(r *http.Request, version uint64) *cachedPage {
	if c.limit <= 0 {
		return nil
	}
	c.mu.RLock()
	p := c.pages[pageKey{r.URL.Path, r.URL.RawQuery}]
	c.mu.RUnlock()
	if p == nil || p.version != version {
		return nil
	}
	return p
}

// put keeps the answer to the query of r, made at version, when the query
// was answered once before at that version and the answer fits; it copies
// body, which the caller uses again. o is the request's observer (nil:
// not observed).
func (c *pageCache) put(r *http.Request, version uint64, body []byte, height, stamp []string, o *observedWriter) {
	if c.limit <= 0 || len(body) > c.limit/4 || len(r.URL.RawQuery) > maxCachedQuery {
		return
	}
	k := pageKey{r.URL.Path, r.URL.RawQuery}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[k] != version+1 {
		if len(c.seen) >= pageCacheQueries {
			clear(c.seen)
		}
		c.seen[k] = version + 1
		return
	}
	if old := c.pages[k]; old != nil {
		c.bytes -= len(old.body)
		delete(c.pages, k)
	}
	if c.bytes+len(body) > c.limit || len(c.pages) >= pageCacheQueries {
		clear(c.pages)
		c.bytes = 0
	}
	p := &cachedPage{
		version: version, body: append([]byte(nil), body...), length: []string{strconv.Itoa(len(body))},
		height: height, stamp: stamp,
	}
	if o != nil {
		n := &o.note
		p.answered, p.page, p.start, p.end, p.late = n.answered, n.Page, n.start, n.end, n.late
		p.warnings, p.cursor = slices.Clip(slices.Clone(o.warnings)), o.carried()
	}
	c.pages[k] = p
	c.bytes += len(p.body)
}

// cached serves a listing's queries from the page cache when it keeps
// their answer at the store's version, and from h otherwise.
func (s *Server) cached(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.serveCached(w, r) {
			h(w, r)
		}
	}
}

// serveCached answers r from the cache when it keeps the answer to its
// query at the store's version, and reports whether it did. The answer
// observe found for the request is served while the store keeps its
// version (a latency fault may have let a block in meanwhile).
func (s *Server) serveCached(w http.ResponseWriter, r *http.Request) bool {
	version := s.store.Version()
	o := observerOf(w)
	var p *cachedPage
	if o != nil && o.page != nil && o.page.version == version {
		p = o.page
	} else if p = s.pages.get(r, version); p == nil {
		return false
	}
	s.pages.hits.Add(1)
	if o != nil {
		n := &o.note
		n.answered, n.Page, n.start, n.end, n.late = p.answered, p.page, p.start, p.end, p.late
	}
	setBlockHeaders(w.Header(), p.height, p.stamp)
	writeOK(w, p.length, p.body)
	return true
}

// status reports what the cache keeps and has served.
func (c *pageCache) status() PageCacheStatus {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return PageCacheStatus{LimitBytes: max(c.limit, 0), Bytes: c.bytes, Answers: len(c.pages), Hits: c.hits.Load()}
}
