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

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/generators/fixtures/integrity"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/requestlog"
	"github.com/chaindata/harness/mockserver/store"
	"github.com/chaindata/harness/mockserver/warnings"
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
	// StrictParams answers a request that draws a warning (an unknown
	// parameter, a bracketed array key, an unknown command type...: see
	// warnings.go) with a 400 and the error body, its findings as details,
	// instead of serving it. Without it the answer carries the findings in
	// X-Harness-Warning headers.
	StrictParams bool
	// JournalSize is the most requests the request journal keeps, newest
	// first (default DefaultJournalSize; negative: none). See package
	// journal.
	JournalSize int
	// PageCacheBytes is the most bytes of answers kept for the queries
	// asked again (default DefaultPageCacheBytes; negative: none). An
	// answer is served from it only while the store is unchanged
	// (pagecache.go).
	PageCacheBytes int
	// TransactionsPrefix, when set, also serves the transaction listing at
	// TransactionsPrefix + "/transactions" (it is always at /transactions
	// and /rest/transactions).
	TransactionsPrefix string
	// Faults are the fault rules in force at start (nil: none); the control
	// API replaces them at run time. See package faults.
	Faults *faults.RuleSet
	// Latency is added to every request: a shorthand for the rule
	// {name: --latency, fault: latency=<Latency>}, tried after Faults.
	Latency time.Duration
	// FailRate is the fraction of requests answered with an injected 500:
	// a shorthand for the rule {name: --fail-rate, probability: <FailRate>,
	// fault: status=500}, tried after Faults and Latency.
	FailRate float64
	// FaultSeed seeds the choice of requests that fail and the latencies
	// drawn: the same seed, rules and order of requests fail the same
	// requests.
	FaultSeed int64
	// Chain, when set, makes the store grow as a live network does; the
	// control API advances and resets it. It must grow the store given to
	// New.
	Chain *store.Chain
	// Control serves the control API under /harness/ (control.go). A
	// TransactionsPrefix under /harness is then hidden behind it. Its
	// answers carry no CORS headers, and it refuses writes other web
	// origins may have sent (controlguard.go).
	Control bool
	// ControlToken, when set, is the bearer token every control API
	// request must carry (Authorization: Bearer <token>); a request without
	// it is a 401.
	ControlToken string
	// AllowHosts are the host names, besides loopback names and addresses
	// and the address a request arrived at, that a control API request's
	// Host may give (hostguard.go); "*" allows any. Other hosts are refused
	// with a 403, against DNS rebinding. The API itself takes any host.
	AllowHosts []string
	// Logger receives one line per request, unless RequestLog is set, and
	// the lines of a panic and of a damaged fixture file; nil logs nothing
	// (and costs nothing).
	Logger *slog.Logger
	// RequestLog, when set, receives the line of each request in place of
	// Logger: the same line as Logger's handler of that format would
	// write, made without an allocation, and through a requestlog.Writer
	// never waiting for the log's output (package requestlog). harness
	// serve sets both, to the same Writer.
	RequestLog *requestlog.Log

	// WriteTimeout is the base of every answer's write deadline (default
	// 10s; negative: no deadline). Before each write of an answer the
	// connection's write deadline is set to WriteTimeout plus the time the
	// bytes of that write take at MinWriteRate, so that a client that stops
	// reading is cut off and the memory of its answer freed, while a slow
	// but reading client gets a whole page: a 5000-transaction page
	// (about 5.8 MB) may take 10 s + 22 s at the defaults.
	WriteTimeout time.Duration
	// MinWriteRate is the slowest rate, in bytes a second, at which a
	// client must read an answer (default 256 KiB/s, DefaultMinWriteRate).
	MinWriteRate int
	// MaxHeaderBytes is the largest request line plus header block served
	// (default 1 MiB, DefaultMaxHeaderBytes); a larger one is answered 431
	// with the error body. The http.Server must read more than this for
	// the answer to be ours: HTTPServer sets its MaxHeaderBytes to
	// MaxHeaderBytes + HeaderSlack; beyond that net/http answers a plain
	// 431 itself, before any handler runs.
	MaxHeaderBytes int
	// Edges is the edge world's catalogue (world.World.Edges): with it,
	// coverage names the enum values, branches and edge classes of the
	// rows served (coverage.go). nil: coverage knows none.
	Edges *edges.Catalogue
}

// Defaults of the limits a Config leaves zero.
const (
	DefaultWriteTimeout   = 10 * time.Second
	DefaultMinWriteRate   = 256 << 10 // bytes a second
	DefaultMaxHeaderBytes = 1 << 20
	// HeaderSlack is how much more than Config.MaxHeaderBytes the
	// http.Server reads (HTTPServer), so that a header block somewhat
	// over the limit reaches the handler and gets the error body; net/http
	// itself allows 4096 bytes more than its MaxHeaderBytes.
	HeaderSlack = 1 << 20
)

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
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.MinWriteRate <= 0 {
		c.MinWriteRate = DefaultMinWriteRate
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if c.JournalSize == 0 {
		c.JournalSize = DefaultJournalSize
	}
	if c.PageCacheBytes == 0 {
		c.PageCacheBytes = DefaultPageCacheBytes
	}
	return c
}

// Server serves the five listings of a store.Store.
type Server struct {
	cfg     Config
	store   *store.Store
	chain   *store.Chain
	faults  *faults.Injector
	handler http.Handler
	bufs    sync.Pool
	// observers and recorders are the writers that follow a request for
	// the journal and the log, used again from request to request.
	observers, recorders sync.Pool
	// journal keeps the requests received (package journal); listingOf names
	// the listing of each path served, paths lists them; warn finds what
	// a request reads differently from what its client likely meant.
	journal   *journal.Journal
	listingOf map[string]string
	paths     []string
	warn      *warnings.Checker
	// pages keeps the answers to queries asked again (pagecache.go).
	pages *pageCache
}

// New returns a server of store configured by cfg. It panics when cfg.Chain
// grows another store.
func New(cfg Config, st *store.Store) *Server { return newServer(cfg, st, true) }

// newServer is New; without observed, requests are neither journaled nor
// warned about (a benchmark's baseline).
func newServer(cfg Config, st *store.Store, observed bool) *Server {
	if cfg.Chain != nil && cfg.Chain.Store() != st {
		panic("mockserver.New: the chain grows another store")
	}
	s := &Server{cfg: cfg.withDefaults(), store: st, chain: cfg.Chain}
	s.journal = journal.New(s.cfg.JournalSize, rowSource{s})
	s.pages = newPageCache(s.cfg.PageCacheBytes)
	s.bufs.New = func() any { b := make([]byte, 0, 64<<10); return &b }
	s.observers.New = func() any { return new(observedWriter) }
	s.recorders.New = func() any { return new(statusRecorder) }
	mux := http.NewServeMux()
	type listing struct {
		path    string
		handler http.HandlerFunc
		listing string
	}
	listings := []listing{
		{"/api/v2/games", s.cached(s.listGames), records.ListingGames},
		{"/api/v2/snapshots", s.cached(s.listSnapshots), records.ListingSnapshots},
		{"/api/v2/core/keys/ethereum/rotations", s.cached(s.listKeyRotations), records.ListingKeyRotations},
		{"/api/v2/network/parameters", s.cached(s.listNetworkParameters), records.ListingNetworkParameters},
		{"/transactions", s.cached(s.listTransactions), records.ListingTransactions},
		{"/rest/transactions", s.cached(s.listTransactions), records.ListingTransactions},
	}
	if p := transactionsPrefix(s.cfg.TransactionsPrefix); p != "" {
		listings = append(listings, listing{p + "/transactions", s.cached(s.listTransactions), records.ListingTransactions})
	}
	listingOf := map[string]string{}
	direct := map[string]http.Handler{}
	for _, l := range listings {
		direct[l.path] = l.handler
		pattern := literalPattern(l.path)
		mux.Handle("GET "+pattern, l.handler)
		mux.HandleFunc(pattern, func(w http.ResponseWriter, _ *http.Request) { writeError(w, errMethodNotAllowed) })
		listingOf[l.path] = l.listing
		s.paths = append(s.paths, l.path)
	}
	s.listingOf = listingOf
	s.warn = &warnings.Checker{
		MaxPageSize: s.cfg.MaxPageSize, TxMaxPageSize: s.cfg.TxMaxPageSize, TxDefaultPageSize: s.cfg.TxDefaultPageSize,
		EpochWindow: s.cfg.EpochWindow, Strict: s.cfg.Strict, Paths: s.paths, CommandTypes: s.servedTypes,
	}
	mux.HandleFunc("/", s.unknownPath)

	s.faults = faults.New(faults.Options{
		Rules: s.startRules(), Seed: s.cfg.FaultSeed,
		ListingOf: func(p string) string { return listingOf[p] },
		Observe:   noteFault,
	})
	var h http.Handler = s.faults.Wrap(exactPaths(mux, direct, s.unknownPath))
	if observed {
		h = s.observe(h)
	}
	if s.cfg.Control {
		h = s.withControl(h)
	}
	h = limitHeaders(h, s.cfg.MaxHeaderBytes)
	h = cors(h, s.cfg.Control)
	if s.cfg.Logger != nil || s.cfg.RequestLog != nil {
		h = s.logRequests(h)
	}
	h = recoverPanics(h, s.cfg.Logger)
	if s.cfg.WriteTimeout > 0 {
		h = writeDeadlines(h, s.cfg.WriteTimeout, s.cfg.MinWriteRate, newReclaimer())
	}
	s.handler = h
	return s
}

// HTTPServer returns an http.Server for s with the limits a server facing
// slow and hostile clients needs: 10 s to send the request line and headers
// and a minute for the whole request (a control API body included), idle
// connections closed after 2 minutes, and MaxHeaderBytes above
// Config.MaxHeaderBytes by HeaderSlack (see Config.MaxHeaderBytes). Its
// Handler is s. It has no server-wide WriteTimeout: s sets each answer's
// write deadline by the answer's size (Config.WriteTimeout), and keeps the
// one each connection has (ConnContext), so as to set it again only when it
// moves. Served on a Listener, it sends each page in one write.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes + HeaderSlack,
		ConnContext:       withConnDeadline,
	}
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
// "/a/../b") with notFound's 404: every listing lives at one exact path, and
// http.ServeMux would instead redirect with an HTML body. A request target
// that is no path at all ("GET *", "CONNECT host:443") is a 400 with the
// error body, where http.ServeMux would answer an empty 400. A GET or HEAD
// of a listing's path goes straight to its handler (direct), as next would
// route it, without next's search of its patterns.
func exactPaths(next http.Handler, direct map[string]http.Handler, notFound http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := direct[r.URL.Path]; h != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			h.ServeHTTP(w, r) // what next routes there, without its search
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/") {
			writeError(w, badRequestTarget(r.RequestURI))
			return
		}
		if r.URL.Path != path.Clean(r.URL.Path) {
			notFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Config returns the configuration in effect, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// startRules are the fault rules at start: cfg.Faults, then the shorthand
// rules of Latency and FailRate.
func (s *Server) startRules() *faults.RuleSet {
	rules := s.cfg.Faults.Rules()
	if s.cfg.Latency > 0 {
		rules = append(rules, faults.Rule{Name: "--latency", Fault: "latency=" + min(s.cfg.Latency, faults.MaxLatency).String()})
	}
	if s.cfg.FailRate > 0 {
		r := faults.Rule{Name: "--fail-rate", Fault: "status=500"}
		if s.cfg.FailRate < 1 {
			r.Probability = s.cfg.FailRate
		}
		rules = append(rules, r)
	}
	rs, err := faults.NewRuleSet(rules...)
	if err != nil {
		// cfg.Faults was checked when it was made, and the shorthands
		// are made valid above.
		panic("mockserver.New: fault rules: " + err.Error())
	}
	return rs
}

var contentTypeJSON = []string{"application/json"}

// recoverCorrupt turns a row of a damaged fixture file, found as the page
// was worked out (a panic with the *integrity.CorruptError, see the store's
// blob.get), into a 500 error answer in *err and a log line naming the
// file and the block. Any other panic goes on.
func (s *Server) recoverCorrupt(err **apiError) {
	v := recover()
	if v == nil {
		return
	}
	ce, ok := v.(*integrity.CorruptError)
	if !ok {
		panic(v)
	}
	if s.cfg.Logger != nil {
		s.cfg.Logger.Error("fixture file damaged: a block does not match its checksum; its rows are not served",
			"file", ce.Path, "block", ce.Block, "start", ce.Start, "end", ce.End)
	}
	*err = corruptFixture(ce.Brief())
}

// answer serves one listing request. fn works out the answer under the
// store's read lock, so that it sees every block whole or not at all, and
// appends the 200 body to b or returns an error; the body is written after
// the lock is released, so that a slow client never holds up the chain.
// Data-node listings (blockHeaders) carry the newest block's height and
// time, as the real data node's answers do.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, blockHeaders bool, fn func(st store.Reader, b []byte) ([]byte, *apiError)) {
	bp := s.bufs.Get().(*[]byte)
	var b []byte
	var err *apiError
	var height, ts []string
	var version uint64
	s.store.Read(func(st store.Reader) {
		defer s.recoverCorrupt(&err)
		version = s.store.Version()
		b, err = fn(st, (*bp)[:0])
		height, ts = st.BlockHeaders()
	})
	if !blockHeaders {
		height, ts = nil, nil
	}
	setBlockHeaders(w.Header(), height, ts)
	if err != nil {
		writeError(w, err)
	} else {
		writeOK(w, []string{strconv.Itoa(len(b))}, b)
		s.pages.put(r, version, b, height, ts, observerOf(w))
	}
	if cap(b) <= 4<<20 {
		*bp = b
		s.bufs.Put(bp)
	}
}

// setBlockHeaders sets a data-node answer's X-Block-Height and
// X-Block-Timestamp (nil: the answer carries none).
func setBlockHeaders(h http.Header, height, stamp []string) {
	if height != nil {
		h["X-Block-Height"] = height // keys already canonical
		h["X-Block-Timestamp"] = stamp
	}
}

// writeOK writes a 200 answer of body, its Content-Length given. Written
// whole, it goes out in one write on a connection of Listener's.
func writeOK(w http.ResponseWriter, length []string, body []byte) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = length
	if o, ok := w.(*observedWriter); ok {
		o.announceWhole(len(body))
	}
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
