package mockserver

import (
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config holds the server's settings. The zero value of each field means its
// documented default.
type Config struct {
	// DefaultPageSize is the page size of a paged listing when the request
	// gives no count (default 1000).
	DefaultPageSize int
	// MaxPageSize is the largest count a paged listing accepts (default 5000).
	MaxPageSize int
	// TxDefaultPageSize is the number of transactions listed when the
	// request gives no count (default 50).
	TxDefaultPageSize int
	// TxMaxPageSize is the largest count the transaction listing accepts
	// (default 5000).
	TxMaxPageSize int
	// EpochWindow is the largest number of epochs one games request spans
	// (default 30, as the spec says).
	EpochWindow int
	// Strict turns requests the real node tolerates into 400s: first with
	// last, first with before, last with after, epochFrom above epochTo.
	Strict bool
	// TransactionsPrefix, when set, also serves the transaction listing at
	// TransactionsPrefix + "/transactions" (it is always at /transactions
	// and /rest/transactions).
	TransactionsPrefix string
	// Latency is added to every request.
	Latency time.Duration
	// FailRate is the fraction of requests answered with an injected 500.
	FailRate float64
	// FaultSeed seeds the choice of requests that fail.
	FaultSeed int64
	// Logger receives one line per request; nil logs nothing (and costs
	// nothing).
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.DefaultPageSize == 0 {
		c.DefaultPageSize = 1000
	}
	if c.MaxPageSize == 0 {
		c.MaxPageSize = 5000
	}
	if c.TxDefaultPageSize == 0 {
		c.TxDefaultPageSize = 50
	}
	if c.TxMaxPageSize == 0 {
		c.TxMaxPageSize = 5000
	}
	if c.EpochWindow == 0 {
		c.EpochWindow = 30
	}
	return c
}

// Server serves the five listings of a Store.
type Server struct {
	cfg     Config
	store   *Store
	handler http.Handler
	bufs    sync.Pool
}

// New returns a server of store configured by cfg.
func New(cfg Config, store *Store) *Server {
	s := &Server{cfg: cfg.withDefaults(), store: store}
	s.bufs.New = func() any { b := make([]byte, 0, 64<<10); return &b }
	mux := http.NewServeMux()
	listings := []struct {
		path    string
		handler http.HandlerFunc
		node    bool // a data-node listing, with block headers
	}{
		{"/api/v2/games", s.listGames, true},
		{"/api/v2/snapshots", s.listSnapshots, true},
		{"/api/v2/core/keys/ethereum/rotations", s.listKeyRotations, true},
		{"/api/v2/network/parameters", s.listNetworkParameters, true},
		{"/transactions", s.listTransactions, false},
		{"/rest/transactions", s.listTransactions, false},
	}
	if p := transactionsPrefix(s.cfg.TransactionsPrefix); p != "" {
		listings = append(listings, struct {
			path    string
			handler http.HandlerFunc
			node    bool
		}{p + "/transactions", s.listTransactions, false})
	}
	for _, l := range listings {
		h := l.handler
		if l.node {
			h = s.withBlockHeaders(h)
		}
		pattern := literalPattern(l.path)
		mux.Handle("GET "+pattern, h)
		mux.HandleFunc(pattern, func(w http.ResponseWriter, _ *http.Request) { writeError(w, errMethodNotAllowed) })
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { writeError(w, errNotFound) })

	var h http.Handler = exactPaths(mux)
	h = s.faults(h)
	h = cors(h)
	if s.cfg.Logger != nil {
		h = s.logRequests(h)
	}
	h = recoverPanics(h, s.cfg.Logger)
	s.handler = h
	return s
}

// transactionsPrefix returns the configured prefix as a clean absolute path
// ("explorer/" and "//explorer" are "/explorer"), or "" when it adds no path.
func transactionsPrefix(prefix string) string {
	if prefix == "" {
		return ""
	}
	p := path.Clean("/" + prefix)
	if p == "/" || p == "/rest" {
		return ""
	}
	return p
}

// literalPattern escapes each segment of a path so that http.ServeMux reads
// it literally: a configured prefix holding "{" or a space must neither
// panic nor become a wildcard.
func literalPattern(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// exactPaths answers a path that is not in canonical form ("//x", "/a/./b",
// "/a/../b") with 404: every listing lives at one exact path, and
// http.ServeMux would instead redirect with an HTML body.
func exactPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path.Clean(r.URL.Path) {
			writeError(w, errNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Config returns the configuration in effect, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// withBlockHeaders adds the newest block's height and time, as the real data
// node does.
func (s *Server) withBlockHeaders(h http.HandlerFunc) http.HandlerFunc {
	height := []string{strconv.FormatUint(s.store.latestBlock, 10)}
	ts := []string{strconv.FormatInt(s.store.latestBlockTime.UnixNano(), 10)}
	return func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr["X-Block-Height"] = height // keys already canonical
		hdr["X-Block-Timestamp"] = ts
		h(w, r)
	}
}

var contentTypeJSON = []string{"application/json"}

// writeJSON writes a 200 body built by build into a pooled buffer.
func (s *Server) writeJSON(w http.ResponseWriter, build func([]byte) []byte) {
	bp := s.bufs.Get().(*[]byte)
	b := build((*bp)[:0])
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	if cap(b) <= 4<<20 {
		*bp = b
		s.bufs.Put(bp)
	}
}
