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
	"net/http"
	"net/http/httputil"
	"net/url"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chaindata/harness/schemas"
)

// MetricsPath is the path the proxy answers itself, with its counters.
const MetricsPath = "/harness/metrics"

// DefaultMaxBodyBytes is the largest body the proxy buffers to validate
// when Config.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 16 << 20

// Reasons a listing response is passed through unchecked.
const (
	UncheckedTooLarge   = "too-large"  // the body is above MaxBodyBytes
	UncheckedEncoding   = "encoding"   // a content encoding other than gzip
	UncheckedIncomplete = "incomplete" // the upstream failed while sending the body
)

// Config holds the proxy's settings. The zero value of each field but
// Upstream means its documented default.
type Config struct {
	// Upstream is the deployment every request is forwarded to; a path in
	// it prefixes the request's path. Required.
	Upstream *url.URL
	// Logger receives one line per violation (level WARN) and per request
	// (level DEBUG); nil logs nothing.
	Logger *slog.Logger
	// MaxBodyBytes bounds the body kept for validation (default
	// DefaultMaxBodyBytes, 16 MiB); larger bodies stream through unchecked
	// and are counted.
	MaxBodyBytes int64
	// Transport makes the upstream requests; nil means
	// http.DefaultTransport.
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
	// are sent (default GOMAXPROCS). When all are busy a handler waits for
	// one before it returns, which bounds the memory held by bodies
	// awaiting their check.
	Checkers int
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
	slots   chan struct{} // one per check running
}

// exchange is what the proxy remembers of a request while it is forwarded.
type exchange struct {
	listing listing
	checked bool // a listing GET: its response is inspected
	path    string
	query   string
	// Set by inspect when the upstream answered.
	status   int
	encoding string
	body     *capture
}

type exchangeKey struct{}

// New returns a proxy configured by cfg. It panics when cfg.Upstream is
// nil, a programming error.
func New(cfg Config) *Proxy {
	if cfg.Upstream == nil {
		panic("proxy: Config.Upstream is nil")
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
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Proxy{cfg: cfg, log: log, metrics: newMetrics(), pending: newPending(), slots: make(chan struct{}, cfg.Checkers)}
	upstream := cfg.Upstream
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
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
		Transport:      cfg.Transport,
		ModifyResponse: p.inspect,
		ErrorHandler:   p.upstreamError,
	}
	return p
}

// ServeHTTP forwards one request, or answers MetricsPath.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == MetricsPath {
		p.serveMetrics(w, r)
		return
	}
	start := time.Now()
	l, isListing := listingFor(r.URL.Path)
	ex := &exchange{listing: l, checked: isListing && r.Method == http.MethodGet, path: r.URL.Path, query: r.URL.RawQuery}
	p.metrics.request(ex)
	var seq uint64
	if ex.checked {
		// Registered before the response goes out, so that a metrics
		// request made after the client has it waits for its check.
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
		// The client gets the end of the body now, and the check runs
		// beside the next requests: it adds no latency until every
		// checker is busy.
		http.NewResponseController(w).Flush()
		p.slots <- struct{}{}
		handedOff = true
		ctx := context.WithoutCancel(r.Context())
		go func() {
			defer func() { <-p.slots }()
			defer p.pending.done(seq)
			p.finish(ctx, ex)
		}()
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

// inspect hands a listing response's body to the client through a capture.
func (p *Proxy) inspect(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil || !ex.checked {
		return nil
	}
	ex.status = resp.StatusCode
	ex.encoding = resp.Header.Get("Content-Encoding")
	ex.body = &capture{body: resp.Body, limit: p.cfg.MaxBodyBytes}
	resp.Body = ex.body
	return nil
}

// finish checks a response the client has received.
func (p *Proxy) finish(ctx context.Context, ex *exchange) {
	c := ex.body
	switch {
	case c.overflow:
		p.unchecked(ctx, ex, UncheckedTooLarge)
		return
	case !c.eof:
		// The upstream failed mid-body, or the client went away before
		// reading it all.
		p.unchecked(ctx, ex, UncheckedIncomplete)
		return
	}
	body, reason := decode(ex.encoding, c.buf, p.cfg.MaxBodyBytes)
	if reason != "" {
		p.unchecked(ctx, ex, reason)
		return
	}
	findings := validate(ex, ex.status, body)
	p.metrics.checked(ex, ex.status, findings)
	for _, f := range findings {
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
		out = append(out, check(ex.listing, query(q), body)...)
	}
	return out
}

// schemaFindings validates a body against its schema in the reference
// profile, as the mock writes it, and only when that fails in the spec
// profile too, to label each violation with the profile it breaks: Spec
// when the spec profile rejects the same thing (same path and rule),
// Reference otherwise. It returns false when the body is not JSON.
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

func (p *Proxy) unchecked(ctx context.Context, ex *exchange, reason string) {
	p.metrics.unchecked(ex, ex.status, reason)
	p.log.LogAttrs(ctx, slog.LevelInfo, "unchecked response",
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
// after timeout.
func (p *pending) wait(timeout time.Duration) {
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
	for time.Now().Before(deadline) && p.anyUpTo(upTo) {
		p.cond.Wait()
	}
}

func (p *pending) anyUpTo(seq uint64) bool {
	for s := range p.open {
		if s <= seq {
			return true
		}
	}
	return false
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
}

// ListingMetrics are the counters of one listing.
type ListingMetrics struct {
	Requests   int64 `json:"requests"`
	Checked    int64 `json:"checked"`
	Unchecked  int64 `json:"unchecked"`
	Violations int64 `json:"violations"`
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
		lm = &ListingMetrics{Statuses: map[int]int64{}, Rules: map[string]int64{}, Profiles: map[string]int64{},
			ProfileRules: map[string]map[string]int64{}}
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
	lm.Statuses[status]++
}

func (m *metrics) upstreamError() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m.UpstreamErrors++
}

// Wait returns once the checks of every response already sent are done, or
// after timeout; a server shutting down calls it before reading Metrics.
func (p *Proxy) Wait(timeout time.Duration) { p.pending.wait(timeout) }

// Metrics returns a copy of the counters.
func (p *Proxy) Metrics() Metrics {
	m := p.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.m
	out.Unchecked = copyMap(m.m.Unchecked)
	out.Profiles = copyMap(m.m.Profiles)
	out.Listings = make(map[string]*ListingMetrics, len(m.m.Listings))
	for k, lm := range m.m.Listings {
		c := *lm
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
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
