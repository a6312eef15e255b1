package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httputil"
	"net/url"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaindata/harness/schemas"
)

// MetricsPath is the path the proxy answers itself, with its counters.
const MetricsPath = "/harness/metrics"

// DefaultMaxBodyBytes is the largest body the proxy buffers to validate
// when Config.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 16 << 20

// DefaultCheckQueue and DefaultCheckQueueBytes bound the responses waiting
// for a checker when Config.CheckQueue and CheckQueueBytes are 0: enough
// for a burst of large pages, or a long one of small pages, from clients
// that outrun the checkers for a while.
const (
	DefaultCheckQueue      = 1024
	DefaultCheckQueueBytes = 64 << 20
)

// Reasons a listing response is passed through unchecked.
const (
	UncheckedTooLarge   = "too-large"  // the body is above MaxBodyBytes
	UncheckedEncoding   = "encoding"   // a content encoding other than gzip
	UncheckedIncomplete = "incomplete" // the upstream failed while sending the body
	// UncheckedBusy: every checker was busy and the check queue full when
	// the client had the response, so it was not kept for checking.
	UncheckedBusy = "busy"
	// UncheckedSampledOut: Config.CheckSample left the response out.
	UncheckedSampledOut = "sampled-out"
)

// MaxViolationLines is how many violations of one answer are logged a
// line each; one more line counts the rest.
const MaxViolationLines = 10

// Config holds the proxy's settings. The zero value of each field but
// Upstream means its documented default.
type Config struct {
	// Upstream is the deployment every request is forwarded to; a path in
	// it prefixes the request's path. Required.
	Upstream *url.URL
	// Logger receives one line per violation (level WARN), at most
	// MaxViolationLines for one answer and then one line counting the
	// rest, and one line per request (level DEBUG); nil logs nothing.
	Logger *slog.Logger
	// MaxBodyBytes bounds the body kept for validation (default
	// DefaultMaxBodyBytes, 16 MiB); larger bodies stream through unchecked
	// and are counted.
	MaxBodyBytes int64
	// Transport makes the upstream requests; nil means a transport with
	// http.DefaultTransport's settings that keeps up to 256 idle
	// connections to the upstream (http.DefaultTransport keeps 2, so a
	// proxy with more clients at once would open a connection for most
	// requests).
	Transport http.RoundTripper
	// MetricsWait bounds how long a metrics request waits for the checks of
	// the responses already sent (default 2s).
	MetricsWait time.Duration
	// Header is set on every upstream request, replacing any header of the
	// same name the client sent: for a gateway that wants an API key, so
	// that clients of the proxy need none. A "Host" entry sets the
	// upstream request's host. Its values are never logged.
	Header http.Header
	// Checkers bounds the checks that run at once, after their responses
	// are sent (default GOMAXPROCS).
	Checkers int
	// CheckQueue bounds the responses that wait for a checker (default
	// DefaultCheckQueue), and CheckQueueBytes the bytes of their bodies
	// (default DefaultCheckQueueBytes, 64 MiB). When every checker is busy
	// and the queue is full, a response is not kept for checking: it is
	// counted as unchecked (UncheckedBusy) and the client never waits. So
	// the bodies held for checking are at most CheckQueueBytes plus one
	// body (at most MaxBodyBytes) per checker, beside the copy each
	// response being forwarded keeps as it streams.
	CheckQueue      int
	CheckQueueBytes int64
	// CheckSample is the fraction of listing responses checked, in (0, 1]
	// (default 1: all). The choice is a counter, not a random draw: of the
	// first N listing requests, in the order they arrive, exactly
	// ceil(N·CheckSample) are checked, the first among them, spread evenly
	// (0.25 checks the 1st, 5th, 9th, ...). The others are counted as
	// unchecked (UncheckedSampledOut), and their bodies are not copied.
	// It is rounded to a billionth.
	CheckSample float64
	// CheckCPU is the share of the CPUs (GOMAXPROCS) the checks may use
	// while requests are being forwarded and goroutines wait for a CPU, in
	// (0, 1] (default DefaultCheckCPU): after such a check a checker rests
	// in proportion to the time the check took. Without that contention
	// checks run flat out. A check starts only when no goroutine is
	// waiting for a CPU (or after a second of waiting for that).
	CheckCPU float64
}

// DefaultCheckCPU is the share of the CPUs checks may use under a load
// that contends for them when Config.CheckCPU is 0.
const DefaultCheckCPU = 0.1

// Validate reports the first setting New cannot use: a nil Upstream, or a
// CheckSample or CheckCPU that is NaN, negative or above 1. The zero value
// of every other field, and of those two, means its default.
func (c Config) Validate() error {
	switch {
	case c.Upstream == nil:
		return errors.New("proxy config: Upstream is nil")
	case math.IsNaN(c.CheckSample) || c.CheckSample < 0 || c.CheckSample > 1:
		return fmt.Errorf("proxy config: CheckSample %v is not in (0, 1]", c.CheckSample)
	case math.IsNaN(c.CheckCPU) || c.CheckCPU < 0 || c.CheckCPU > 1:
		return fmt.Errorf("proxy config: CheckCPU %v is not in (0, 1]", c.CheckCPU)
	}
	return nil
}

// Proxy forwards every request to the upstream and validates the responses
// of the five listings: the body against its schema (error bodies against
// Error) and the pagination and filter rules one response shows. The client
// gets the upstream's status, headers and body unchanged, as they stream:
// the copy kept for validation is checked once the client has the whole
// response, beside the requests that follow, so validation adds no latency
// until every checker is busy. MetricsPath is answered locally. It is safe
// for concurrent use.
type Proxy struct {
	cfg     Config
	log     *slog.Logger
	rp      *httputil.ReverseProxy
	metrics *metrics
	pending *pending
	pool    *checkPool
	sample  *sampler
	// inFlight counts the requests being forwarded.
	inFlight atomic.Int64
}

// exchange is what the proxy remembers of a request while it is forwarded.
type exchange struct {
	listing listing
	checked bool // a listing GET: its response is inspected
	sampled bool // a listing GET CheckSample chose: its body is kept for checking
	path    string
	query   string
	// Set by inspect when the upstream answered.
	status   int
	encoding string
	body     *capture
}

type exchangeKey struct{}

// New returns a proxy configured by cfg. It panics when cfg fails
// Validate (a nil Upstream, a CheckSample out of range), a programming
// error: a command line checks its flags first.
func New(cfg Config) *Proxy {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MetricsWait <= 0 {
		cfg.MetricsWait = 2 * time.Second
	}
	if cfg.Checkers <= 0 {
		cfg.Checkers = runtime.GOMAXPROCS(0)
	}
	if cfg.CheckQueue <= 0 {
		cfg.CheckQueue = DefaultCheckQueue
	}
	if cfg.CheckQueueBytes <= 0 {
		cfg.CheckQueueBytes = DefaultCheckQueueBytes
	}
	if cfg.CheckSample == 0 {
		cfg.CheckSample = 1
	}
	if cfg.CheckCPU == 0 {
		cfg.CheckCPU = DefaultCheckCPU
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Proxy{cfg: cfg, log: log, metrics: newMetrics(), pending: newPending(), sample: newSampler(cfg.CheckSample)}
	// Each checker's duty: its part of the share of the CPUs.
	duty := min(1, cfg.CheckCPU*float64(runtime.GOMAXPROCS(0))/float64(cfg.Checkers))
	p.pool = newCheckPool(cfg.Checkers, cfg.CheckQueue, cfg.CheckQueueBytes, duty,
		func() bool { return p.inFlight.Load() > 0 }, p.check)
	upstream := cfg.Upstream
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// ReverseProxy has dropped what it could not parse of the
			// query (%zz, a semicolon) or re-encoded it (over 10,000
			// parameters): the upstream gets it as sent, and judges it.
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery
			pr.SetURL(upstream)
			pr.SetXForwarded()
			for name, values := range cfg.Header {
				if strings.EqualFold(name, "Host") && len(values) > 0 {
					pr.Out.Host = values[0]
					continue
				}
				pr.Out.Header[http.CanonicalHeaderKey(name)] = slices.Clone(values)
			}
		},
		Transport:      transport(cfg.Transport),
		BufferPool:     &copyBuffers{},
		ModifyResponse: p.inspect,
		ErrorHandler:   p.upstreamError,
	}
	return p
}

// transport returns t, or when it is nil a clone of http.DefaultTransport
// that keeps an idle connection to the upstream for each client at once.
func transport(t http.RoundTripper) http.RoundTripper {
	if t != nil {
		return t
	}
	def, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport // replaced by the program; its choice
	}
	out := def.Clone()
	out.MaxIdleConns = max(out.MaxIdleConns, maxIdleUpstream)
	out.MaxIdleConnsPerHost = maxIdleUpstream
	return out
}

// copyBuffers reuses the buffers ReverseProxy copies bodies through, which
// it would otherwise allocate (and zero) for every request.
type copyBuffers struct{ pool sync.Pool }

// copyBufferSize is the size of each copy buffer: the most a read of the
// upstream's body takes at once.
const copyBufferSize = 64 << 10

// Get returns a buffer of copyBufferSize bytes.
func (b *copyBuffers) Get() []byte {
	if buf, ok := b.pool.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, copyBufferSize)
}

// Put keeps buf for another request.
func (b *copyBuffers) Put(buf []byte) { b.pool.Put(&buf) }

// maxIdleUpstream is how many idle connections to the upstream the default
// transport keeps.
const maxIdleUpstream = 256

// ServeHTTP forwards one request, or answers MetricsPath.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == MetricsPath {
		p.serveMetrics(w, r)
		return
	}
	start := time.Now()
	p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	l, isListing := listingFor(r.URL.Path)
	ex := &exchange{listing: l, checked: isListing && r.Method == http.MethodGet, path: r.URL.Path, query: r.URL.RawQuery}
	p.metrics.request(ex)
	var seq uint64
	if ex.checked {
		ex.sampled = p.sample.take()
		// Registered before the response goes out, so that a metrics
		// request made after the client has it waits for it to be
		// counted, checked or not.
		seq = p.pending.add()
	}
	handedOff := false
	defer func() {
		if ex.checked && !handedOff {
			p.pending.done(seq)
		}
		// ReverseProxy aborts the connection (panics with
		// http.ErrAbortHandler) when the upstream fails mid-body.
		if v := recover(); v != nil {
			if ex.body != nil {
				p.unchecked(r.Context(), ex, UncheckedIncomplete)
			}
			panic(v)
		}
	}()
	rec := &statusWriter{ResponseWriter: w}
	p.rp.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
	if ex.body != nil {
		// The client has the whole body; the check, if any, runs beside
		// the next requests and never holds this one back.
		handedOff = p.handOff(context.WithoutCancel(r.Context()), ex, seq)
	}
	p.log.LogAttrs(r.Context(), slog.LevelDebug, "request",
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("query", r.URL.RawQuery),
		slog.Int("status", rec.status), slog.Bool("checked", ex.checked), slog.Duration("duration", time.Since(start)))
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// capture is a response body that keeps a copy of the bytes read through
// it, up to a limit, and remembers whether it was read to its end.
type capture struct {
	body     io.ReadCloser
	limit    int64
	buf      []byte
	overflow bool  // more than limit bytes: buf was dropped
	eof      bool  // read to its end
	err      error // the upstream failed while sending
}

func (c *capture) Read(b []byte) (int, error) {
	n, err := c.body.Read(b)
	if n > 0 && !c.overflow {
		if int64(len(c.buf)+n) > c.limit {
			c.overflow, c.buf = true, nil
		} else {
			c.buf = append(c.buf, b[:n]...)
		}
	}
	switch {
	case err == io.EOF:
		c.eof = true
	case err != nil:
		c.err = err
	}
	return n, err
}

func (c *capture) Close() error { return c.body.Close() }

// inspect hands a sampled listing response's body to the client through a
// capture, and counts one CheckSample left out, or one that finds the
// checkers busy and the queue full as its headers arrive.
func (p *Proxy) inspect(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil || !ex.checked {
		return nil
	}
	ex.status = resp.StatusCode
	if !ex.sampled {
		p.skipped(resp.Request.Context(), ex, UncheckedSampledOut)
		return nil
	}
	if p.pool.full(max(resp.ContentLength, 0)) {
		// No room for it now: under a load the checkers cannot follow,
		// the body is not even copied. (The queue could make room
		// while it streams; then it misses a check it could have had.)
		p.skipped(resp.Request.Context(), ex, UncheckedBusy)
		return nil
	}
	ex.encoding = resp.Header.Get("Content-Encoding")
	ex.body = &capture{body: resp.Body, limit: p.cfg.MaxBodyBytes}
	if n := resp.ContentLength; n > 0 && n <= p.cfg.MaxBodyBytes {
		// One allocation of the right size, and the queue counts what
		// the body holds.
		ex.body.buf = make([]byte, 0, n)
	}
	resp.Body = ex.body
	return nil
}

// handOff queues the check of a response the client has received, or
// counts why it is not checked. It reports whether the check was queued:
// the checker then marks it done in pending.
func (p *Proxy) handOff(ctx context.Context, ex *exchange, seq uint64) bool {
	c := ex.body
	switch {
	case c.overflow:
		p.unchecked(ctx, ex, UncheckedTooLarge)
		return false
	case !c.eof:
		// The upstream failed mid-body, or the client went away before
		// reading it all.
		p.unchecked(ctx, ex, UncheckedIncomplete)
		return false
	case !decodable(ex.encoding):
		p.unchecked(ctx, ex, UncheckedEncoding)
		return false
	}
	if !p.pool.submit(pendingCheck{ctx: ctx, ex: ex, seq: seq, size: int64(cap(c.buf))}) {
		ex.body = nil // the copy is dropped now, not when the handler ends
		p.skipped(ctx, ex, UncheckedBusy)
		return false
	}
	return true
}

// check checks a response the client has received, on a checker.
func (p *Proxy) check(c pendingCheck) {
	defer p.pending.done(c.seq)
	ctx, ex := c.ctx, c.ex
	body, reason := decode(ex.encoding, ex.body.buf, p.cfg.MaxBodyBytes)
	if reason != "" {
		p.unchecked(ctx, ex, reason)
		return
	}
	findings := validate(ex, ex.status, body)
	p.metrics.checked(ex, ex.status, findings)
	for i, f := range findings {
		if i == MaxViolationLines {
			// One bad page can break thousands of rows: the rest are
			// counted in one line (and in the metrics, every one).
			p.log.LogAttrs(ctx, slog.LevelWarn, "more violations",
				slog.String("listing", ex.listing.name), slog.String("path", ex.path), slog.String("query", ex.query),
				slog.Int("status", ex.status), slog.Int("omitted", len(findings)-MaxViolationLines), slog.Int("total", len(findings)))
			break
		}
		attrs := []slog.Attr{
			slog.String("listing", ex.listing.name), slog.String("path", ex.path), slog.String("query", ex.query),
			slog.Int("status", ex.status), slog.String("rule", f.Rule),
		}
		if f.Profile != "" {
			attrs = append(attrs, slog.String("profile", string(f.Profile)))
		}
		attrs = append(attrs, slog.String("at", f.Path), slog.String("message", f.Message))
		p.log.LogAttrs(ctx, slog.LevelWarn, "violation", attrs...)
	}
}

// decodable reports whether decode knows the content encoding.
func decodable(encoding string) bool {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity", "gzip":
		return true
	}
	return false
}

// decode undoes a gzip content encoding for validation; the client still
// gets the encoded bytes. It returns an unchecked reason when it cannot.
func decode(encoding string, body []byte, limit int64) ([]byte, string) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return body, ""
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, UncheckedEncoding
		}
		out, err := io.ReadAll(io.LimitReader(zr, limit+1))
		if err != nil {
			return nil, UncheckedEncoding
		}
		if int64(len(out)) > limit {
			return nil, UncheckedTooLarge
		}
		return out, ""
	}
	return nil, UncheckedEncoding
}

// validate checks a listing response: the body against its schema (Error
// for any status but 200), each schema violation labelled with its profile,
// and, for a 200, the single-response rules.
func validate(ex *exchange, status int, body []byte) []Finding {
	schema := ex.listing.response
	if status != http.StatusOK {
		schema = "Error"
	}
	out, ok := schemaFindings(schema, body)
	if !ok {
		return out
	}
	if status == http.StatusOK {
		q, _ := url.ParseQuery(ex.query)
		out = append(out, check(ex.listing, newQuery(q), body)...)
	}
	return out
}

// schemaFindings validates a body against its schema in the reference
// profile, as the mock writes it, and only when that fails in the spec
// profile too, to label each violation with the profile it breaks: Spec
// when the spec profile rejects the same thing (same path and rule),
// Reference otherwise. It returns false when the body is not JSON. A page's
// records are checked on every core (schemas.Validator.Validate).
func schemaFindings(schema string, body []byte) ([]Finding, bool) {
	err := schemas.MustLoad(schema).Validate(body)
	if err == nil {
		return nil, true
	}
	var ref *schemas.ValidationError
	if !errors.As(err, &ref) {
		return []Finding{{Rule: RuleJSON, Message: err.Error(), Profile: schemas.Spec}}, false
	}
	type key struct{ path, rule string }
	inSpec := map[key]bool{}
	var spec *schemas.ValidationError
	if errors.As(schemas.MustLoadProfile(schema, schemas.Spec).Validate(body), &spec) {
		for _, v := range spec.Violations {
			inSpec[key{v.Path, v.Rule}] = true
		}
	}
	out := make([]Finding, 0, len(ref.Violations))
	seen := map[key]bool{}
	for _, v := range ref.Violations {
		k := key{v.Path, v.Rule}
		seen[k] = true
		profile := schemas.Reference
		if inSpec[k] {
			profile = schemas.Spec
		}
		out = append(out, Finding{Path: v.Path, Rule: v.Rule, Message: v.Message, Profile: profile})
	}
	// The spec profile is the looser, so it should find nothing the
	// reference profile did not; should the two report a violation
	// differently, the spec's is kept rather than lost.
	if spec != nil {
		for _, v := range spec.Violations {
			if !seen[key{v.Path, v.Rule}] {
				out = append(out, Finding{Path: v.Path, Rule: v.Rule, Message: v.Message, Profile: schemas.Spec})
			}
		}
	}
	return out, true
}

// unchecked counts a response that could not be checked and logs it
// (level INFO).
func (p *Proxy) unchecked(ctx context.Context, ex *exchange, reason string) {
	p.countUnchecked(ctx, ex, reason, slog.LevelInfo)
}

// skipped counts a response left unchecked by design, busy checkers or
// CheckSample, and logs it at level DEBUG: under load these are most
// responses, and a line each would cost the request path and drown the
// violations.
func (p *Proxy) skipped(ctx context.Context, ex *exchange, reason string) {
	p.countUnchecked(ctx, ex, reason, slog.LevelDebug)
}

func (p *Proxy) countUnchecked(ctx context.Context, ex *exchange, reason string, level slog.Level) {
	p.metrics.unchecked(ex, ex.status, reason)
	p.log.LogAttrs(ctx, level, "unchecked response",
		slog.String("listing", ex.listing.name), slog.String("path", ex.path), slog.String("query", ex.query),
		slog.Int("status", ex.status), slog.String("reason", reason))
}

// upstreamError answers a request the upstream did not answer with a 502
// and the spec's error body (code 14, Unavailable).
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	p.metrics.upstreamError()
	p.log.LogAttrs(r.Context(), slog.LevelError, "upstream error",
		slog.String("path", r.URL.Path), slog.String("query", r.URL.RawQuery), slog.String("error", err.Error()))
	if r.Context().Err() != nil {
		return // the client went away; nobody reads an answer
	}
	body, _ := json.Marshal(map[string]any{"code": 14, "message": "upstream unavailable: " + err.Error(), "details": []any{}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadGateway)
	w.Write(append(body, '\n'))
}

// pending tracks the checks under way, so that a metrics request counts
// every response sent before it.
type pending struct {
	mu   sync.Mutex
	cond *sync.Cond
	next uint64
	open map[uint64]struct{}
}

func newPending() *pending {
	p := &pending{open: map[uint64]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pending) add() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	p.open[p.next] = struct{}{}
	return p.next
}

func (p *pending) done(seq uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.open, seq)
	p.cond.Broadcast()
}

// wait returns once every check registered before the call is done, or
// after timeout, with the number of those still open.
func (p *pending) wait(timeout time.Duration) int {
	timer := time.AfterFunc(timeout, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.cond.Broadcast()
	})
	defer timer.Stop()
	deadline := time.Now().Add(timeout)
	p.mu.Lock()
	defer p.mu.Unlock()
	upTo := p.next
	for time.Now().Before(deadline) && p.openUpTo(upTo) > 0 {
		p.cond.Wait()
	}
	return p.openUpTo(upTo)
}

// openUpTo counts the open checks registered up to seq.
func (p *pending) openUpTo(seq uint64) int {
	n := 0
	for s := range p.open {
		if s <= seq {
			n++
		}
	}
	return n
}

// Metrics is a snapshot of the proxy's counters.
type Metrics struct {
	// Requests counts every request forwarded.
	Requests int64 `json:"requests"`
	// UpstreamErrors counts requests the upstream did not answer.
	UpstreamErrors int64 `json:"upstreamErrors"`
	// Checked counts listing responses validated.
	Checked int64 `json:"checked"`
	// Unchecked counts listing responses passed through unchecked, by
	// reason (UncheckedTooLarge, ...).
	Unchecked map[string]int64 `json:"unchecked"`
	// Violations counts every violation found.
	Violations int64 `json:"violations"`
	// Profiles counts the schema violations by the profile they break
	// (Finding.Profile): "spec" or "reference".
	Profiles map[string]int64 `json:"profiles"`
	// Listings holds the counters of each listing, by generators name.
	Listings map[string]*ListingMetrics `json:"listings"`
	// CheckPool shows the checkers and their queue when the snapshot was
	// taken.
	CheckPool PoolMetrics `json:"checkPool"`
}

// PoolMetrics are the gauges of the checkers: their settings, the checks
// running and the responses waiting for one.
type PoolMetrics struct {
	// Checkers, QueueSize, QueueBytes, Sample and CPU are
	// Config.Checkers, CheckQueue, CheckQueueBytes, CheckSample and
	// CheckCPU, defaults applied.
	Checkers   int     `json:"checkers"`
	QueueSize  int     `json:"queueSize"`
	QueueBytes int64   `json:"queueBytes"`
	Sample     float64 `json:"sample"`
	CPU        float64 `json:"cpu"`
	// Running counts the checks under way, at most Checkers.
	Running int `json:"running"`
	// Queued counts the responses waiting for a checker, at most
	// QueueSize, and QueuedBytes the bytes their bodies hold, at most
	// QueueBytes; the peaks are the most there have been at once.
	Queued          int   `json:"queued"`
	QueuedPeak      int   `json:"queuedPeak"`
	QueuedBytes     int64 `json:"queuedBytes"`
	QueuedBytesPeak int64 `json:"queuedBytesPeak"`
}

// ListingMetrics are the counters of one listing.
type ListingMetrics struct {
	Requests  int64 `json:"requests"`
	Checked   int64 `json:"checked"`
	Unchecked int64 `json:"unchecked"`
	// UncheckedReasons counts the unchecked responses by reason; they add
	// up to Unchecked.
	UncheckedReasons map[string]int64 `json:"uncheckedReasons"`
	Violations       int64            `json:"violations"`
	// ResponsesWithViolations counts the responses with any violation.
	ResponsesWithViolations int64 `json:"responsesWithViolations"`
	// Statuses counts responses by HTTP status.
	Statuses map[int]int64 `json:"statuses"`
	// Rules counts violations by rule.
	Rules map[string]int64 `json:"rules"`
	// Profiles counts schema violations by the profile they break:
	// "spec" (the spec profile rejects them too) or "reference" (only the
	// reference profile does).
	Profiles map[string]int64 `json:"profiles"`
	// ProfileRules counts schema violations by profile, then rule.
	ProfileRules map[string]map[string]int64 `json:"profileRules"`
}

type metrics struct {
	mu sync.Mutex
	m  Metrics
}

func newMetrics() *metrics {
	return &metrics{m: Metrics{Unchecked: map[string]int64{}, Profiles: map[string]int64{}, Listings: map[string]*ListingMetrics{}}}
}

func (m *metrics) listing(name string) *ListingMetrics {
	lm := m.m.Listings[name]
	if lm == nil {
		lm = &ListingMetrics{UncheckedReasons: map[string]int64{}, Statuses: map[int]int64{}, Rules: map[string]int64{},
			Profiles: map[string]int64{}, ProfileRules: map[string]map[string]int64{}}
		m.m.Listings[name] = lm
	}
	return lm
}

func (m *metrics) request(ex *exchange) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m.Requests++
	if ex.checked {
		m.listing(ex.listing.name).Requests++
	}
}

func (m *metrics) checked(ex *exchange, status int, findings []Finding) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lm := m.listing(ex.listing.name)
	m.m.Checked++
	lm.Checked++
	lm.Statuses[status]++
	if len(findings) > 0 {
		lm.ResponsesWithViolations++
	}
	for _, f := range findings {
		m.m.Violations++
		lm.Violations++
		lm.Rules[f.Rule]++
		if f.Profile == "" {
			continue
		}
		profile := string(f.Profile)
		m.m.Profiles[profile]++
		lm.Profiles[profile]++
		if lm.ProfileRules[profile] == nil {
			lm.ProfileRules[profile] = map[string]int64{}
		}
		lm.ProfileRules[profile][f.Rule]++
	}
}

func (m *metrics) unchecked(ex *exchange, status int, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lm := m.listing(ex.listing.name)
	m.m.Unchecked[reason]++
	lm.Unchecked++
	lm.UncheckedReasons[reason]++
	lm.Statuses[status]++
}

func (m *metrics) upstreamError() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m.UpstreamErrors++
}

// Wait returns once the checks of every response already sent are done, or
// after timeout; a server shutting down calls it before reading Metrics. It
// returns how many of those responses are not counted yet (their checks
// still running or queued): 0 once all are.
func (p *Proxy) Wait(timeout time.Duration) int { return p.pending.wait(timeout) }

// Metrics returns a copy of the counters.
func (p *Proxy) Metrics() Metrics {
	m := p.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.m
	out.CheckPool = p.pool.stats()
	out.CheckPool.Sample = p.cfg.CheckSample
	out.CheckPool.CPU = p.cfg.CheckCPU
	out.Unchecked = copyMap(m.m.Unchecked)
	out.Profiles = copyMap(m.m.Profiles)
	out.Listings = make(map[string]*ListingMetrics, len(m.m.Listings))
	for k, lm := range m.m.Listings {
		c := *lm
		c.UncheckedReasons = copyMap(lm.UncheckedReasons)
		c.Statuses = copyMap(lm.Statuses)
		c.Rules = copyMap(lm.Rules)
		c.Profiles = copyMap(lm.Profiles)
		c.ProfileRules = make(map[string]map[string]int64, len(lm.ProfileRules))
		for p, rules := range lm.ProfileRules {
			c.ProfileRules[p] = copyMap(rules)
		}
		out.Listings[k] = &c
	}
	return out
}

func copyMap[K comparable](m map[K]int64) map[K]int64 {
	out := make(map[K]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// serveMetrics answers MetricsPath: JSON, or the Prometheus text format
// when asked for with ?format=prometheus or an Accept of text/plain (as a
// Prometheus scraper sends). It first waits, up to MetricsWait, for the
// checks of the responses already sent, so a client that reads its
// response and then the metrics sees that response counted.
func (p *Proxy) serveMetrics(w http.ResponseWriter, r *http.Request) {
	p.pending.wait(p.cfg.MetricsWait)
	m := p.Metrics()
	format := r.URL.Query().Get("format")
	if format == "prometheus" || (format == "" && strings.Contains(r.Header.Get("Accept"), "text/plain")) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		writePrometheus(w, m)
		return
	}
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(body, '\n'))
}

func writePrometheus(w io.Writer, m Metrics) {
	metric := func(name, help string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
	}
	gauge := func(name, help string, v any) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %v\n", name, help, name, name, v)
	}
	metric("harness_proxy_requests_total", "Requests forwarded to the upstream.")
	fmt.Fprintf(w, "harness_proxy_requests_total %d\n", m.Requests)
	metric("harness_proxy_upstream_errors_total", "Requests the upstream did not answer.")
	fmt.Fprintf(w, "harness_proxy_upstream_errors_total %d\n", m.UpstreamErrors)
	names := sortedKeys(m.Listings)
	metric("harness_proxy_listing_requests_total", "Listing requests, by listing.")
	for _, l := range names {
		fmt.Fprintf(w, "harness_proxy_listing_requests_total{listing=%q} %d\n", l, m.Listings[l].Requests)
	}
	metric("harness_proxy_checked_total", "Listing responses validated, by listing.")
	for _, l := range names {
		fmt.Fprintf(w, "harness_proxy_checked_total{listing=%q} %d\n", l, m.Listings[l].Checked)
	}
	metric("harness_proxy_unchecked_total", "Listing responses passed through unchecked, by reason.")
	for _, reason := range sortedKeys(m.Unchecked) {
		fmt.Fprintf(w, "harness_proxy_unchecked_total{reason=%q} %d\n", reason, m.Unchecked[reason])
	}
	metric("harness_proxy_listing_unchecked_total", "Listing responses passed through unchecked, by listing and reason.")
	for _, l := range names {
		for _, reason := range sortedKeys(m.Listings[l].UncheckedReasons) {
			fmt.Fprintf(w, "harness_proxy_listing_unchecked_total{listing=%q,reason=%q} %d\n", l, reason, m.Listings[l].UncheckedReasons[reason])
		}
	}
	metric("harness_proxy_violations_total", "Violations found, by listing and rule.")
	for _, l := range names {
		for _, rule := range sortedKeys(m.Listings[l].Rules) {
			fmt.Fprintf(w, "harness_proxy_violations_total{listing=%q,rule=%q} %d\n", l, rule, m.Listings[l].Rules[rule])
		}
	}
	metric("harness_proxy_schema_violations_total",
		"Schema violations, by listing, profile (spec: the spec profile rejects them too; reference: only the reference profile does) and rule.")
	for _, l := range names {
		byProfile := m.Listings[l].ProfileRules
		for _, profile := range sortedKeys(byProfile) {
			for _, rule := range sortedKeys(byProfile[profile]) {
				fmt.Fprintf(w, "harness_proxy_schema_violations_total{listing=%q,profile=%q,rule=%q} %d\n", l, profile, rule, byProfile[profile][rule])
			}
		}
	}
	pool := m.CheckPool
	gauge("harness_proxy_checkers", "Checks that may run at once (--checkers).", pool.Checkers)
	gauge("harness_proxy_checks_running", "Checks under way.", pool.Running)
	gauge("harness_proxy_check_queue_capacity", "Responses that may wait for a checker (--check-queue); beyond, one passes unchecked (busy).", pool.QueueSize)
	gauge("harness_proxy_check_queue_length", "Responses waiting for a checker.", pool.Queued)
	gauge("harness_proxy_check_queue_peak", "The most responses that have waited for a checker at once.", pool.QueuedPeak)
	gauge("harness_proxy_check_queue_bytes_capacity", "Bytes of bodies that may wait for a checker (--check-queue-bytes).", pool.QueueBytes)
	gauge("harness_proxy_check_queue_bytes", "Bytes of the bodies waiting for a checker.", pool.QueuedBytes)
	gauge("harness_proxy_check_queue_bytes_peak", "The most bytes of bodies that have waited for a checker at once.", pool.QueuedBytesPeak)
	gauge("harness_proxy_check_sample_ratio", "Fraction of listing responses chosen for checking (--check-sample).", pool.Sample)
	gauge("harness_proxy_check_cpu_ratio", "Share of the CPUs checks may use while requests are being forwarded (--check-cpu).", pool.CPU)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
