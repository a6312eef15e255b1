package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/schemas"
)

// Defaults of the Options fields a zero value leaves unset.
const (
	DefaultPageSize     = 1000
	DefaultRetries      = 3
	DefaultMaxBodyBytes = 256 << 20
	DefaultTimeout      = time.Minute
	// MaxEmptyWindows is how many 30-epoch windows in a row may hold no
	// game before the games walk stops short of epoch 0.
	MaxEmptyWindows = 100
	// MaxReportedViolations bounds the violations a Report lists; all are
	// counted.
	MaxReportedViolations = 1000
)

// epochSpan is the width of a games window less one (spec section 8).
const epochSpan = 29

// Options say what to record and where.
type Options struct {
	// From is the base URL of the data-node listings (/api/v2/...), such as
	// "http://127.0.0.1:8080". Required.
	From string
	// TransactionsURL is the base URL "/transactions" is appended to, where
	// the block explorer lives apart from the data node. Empty means From.
	TransactionsURL string
	// Out is the fixture directory, created if missing. Required.
	Out string
	// MaxPages bounds the pages recorded per listing, over all runs of one
	// recording; 0 means no bound. A listing cut short is marked Truncated.
	MaxPages int
	// PageSize is the count asked per page (default 1000). When the
	// deployment refuses it with a 400 on a listing's first page, it is
	// halved until accepted.
	PageSize int
	// Listings selects listings by generators name (default: all five).
	Listings []string
	// Client makes the requests; nil means a client with DefaultTimeout.
	Client *http.Client
	// Logger receives progress lines (INFO), retries (WARN) and each
	// violation (DEBUG); nil logs nothing.
	Logger *slog.Logger
	// Retries is how many times a request that failed in transport or with
	// a 5xx or 429 status is tried again (0: DefaultRetries; negative:
	// never).
	Retries int
	// RetryDelay is the wait before the first retry, doubled each time
	// (0: 250ms).
	RetryDelay time.Duration
	// MaxBodyBytes bounds a response body (0: DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Header is sent with every request, for gateways that want an API
	// key; a "Host" entry sets the request's host. Its values are never
	// logged or reported.
	Header http.Header
	// Rate bounds the requests per second, retries included: requests are
	// spaced by at least 1/Rate (5 % more). 0 means no bound.
	Rate float64
}

// Report says what a run recorded and what it found wrong.
type Report struct {
	// Source and TransactionsURL are the URLs recorded from.
	Source, TransactionsURL string
	// Out is the fixture directory.
	Out string
	// Resumed is set when the run continued an interrupted recording.
	Resumed bool
	// Complete is set when every listing is done and the manifest written.
	Complete bool
	// Listings holds the progress of each listing recorded, over all runs.
	Listings map[string]ListingReport
	// Requests counts the HTTP requests of this run, retries included.
	Requests int
	// Violations lists the violations this run found, at most
	// MaxReportedViolations; ViolationCount counts them all, and
	// EarlierViolations those of the interrupted runs this one continued.
	Violations        []Violation
	ViolationCount    int
	EarlierViolations int
	// Manifest is the manifest written when Complete.
	Manifest *fixtures.Manifest
}

// ListingReport is the progress of one listing.
type ListingReport struct {
	File    string
	Rows    int
	Pages   int
	Skipped int
	// PageSize is the count asked per page, after any halving.
	PageSize int
	Done     bool
	// Truncated is set when MaxPages stopped the listing before its end.
	Truncated bool
}

// Violation is something the deployment served that breaks the schemas or
// the listing's rules.
type Violation struct {
	// Listing is the listing's name (records.ListingGames...).
	Listing string
	// Request is the URL asked.
	Request string
	// Status is the HTTP status of the response.
	Status int
	// Path is the JSON pointer of the offending value ("" for the body).
	Path string
	// Rule names the rule broken: a schema rule ("required", "pattern",
	// ...) or a recorder check ("order", "record", "pagination", "json").
	Rule string
	// Message says what is wrong.
	Message string
}

// String formats the violation as one line.
func (v Violation) String() string {
	p := v.Path
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s: GET %s (%d): %s: %s [%s]", v.Listing, v.Request, v.Status, p, v.Message, v.Rule)
}

// listingInfo is what the recorder knows of one listing.
type listingInfo struct {
	name     string
	path     string
	response string // schema of a 200 body
	wrapper  string // page field of a paged listing
	dataNode bool   // served by the data node (From), with block headers
}

func listingInfos() []listingInfo {
	return []listingInfo{
		{records.ListingGames, "/api/v2/games", "ListGamesResponse", "games", true},
		{records.ListingSnapshots, "/api/v2/snapshots", "ListCoreSnapshotsResponse", "coreSnapshots", true},
		{records.ListingKeyRotations, "/api/v2/core/keys/ethereum/rotations", "ListEthereumKeyRotationsResponse", "keyRotations", true},
		{records.ListingNetworkParameters, "/api/v2/network/parameters", "ListNetworkParametersResponse", "networkParameters", true},
		{records.ListingTransactions, "/transactions", "ListTransactionsResponse", "", false},
	}
}

// ErrOptions is returned for options Run cannot honour.
var ErrOptions = errors.New("bad options")

// MaxRetryAfter is the longest Retry-After the recorder waits for; a
// deployment that asks for longer ends the run (run it again later to
// continue).
const MaxRetryAfter = time.Minute

// recorder is one run.
type recorder struct {
	opts   Options
	from   string
	txURL  string
	client *http.Client
	log    *slog.Logger
	st     *state
	report *Report
	// interval spaces the requests (0: not at all); next is the earliest
	// time the next one may go.
	interval time.Duration
	next     time.Time
}

// Run records the deployment at opts.From into opts.Out, or continues the
// recording an earlier run left there. It returns the report with an error
// when the recording could not finish: the state file then lets a later
// run continue. Violations are not errors; they are in the report.
func Run(ctx context.Context, opts Options) (Report, error) {
	r, err := newRecorder(opts)
	if err != nil {
		return Report{}, err
	}
	err = r.run(ctx)
	r.fillReport()
	return *r.report, err
}

func newRecorder(opts Options) (*recorder, error) {
	if opts.Out == "" {
		return nil, fmt.Errorf("%w: no output directory", ErrOptions)
	}
	from, err := baseURL("from", opts.From)
	if err != nil {
		return nil, err
	}
	txURL := from
	if opts.TransactionsURL != "" {
		if txURL, err = baseURL("transactions URL", opts.TransactionsURL); err != nil {
			return nil, err
		}
	}
	if opts.MaxPages < 0 || opts.PageSize < 0 || opts.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("%w: negative max pages, page size or body size", ErrOptions)
	}
	if math.IsNaN(opts.Rate) || opts.Rate < 0 {
		return nil, fmt.Errorf("%w: negative rate", ErrOptions)
	}
	if opts.PageSize == 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Retries == 0 {
		opts.Retries = DefaultRetries
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = 250 * time.Millisecond
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	known := map[string]bool{}
	for _, l := range records.Listings {
		known[l] = true
	}
	var chosen []string
	for _, l := range opts.Listings {
		if !known[l] {
			return nil, fmt.Errorf("%w: unknown listing %q (want one of %s)", ErrOptions, l, strings.Join(records.Listings, ", "))
		}
		if !slices.Contains(chosen, l) {
			chosen = append(chosen, l)
		}
	}
	opts.Listings = chosen
	if len(opts.Listings) == 0 {
		opts.Listings = records.Listings
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	if len(opts.Header) > 0 {
		client = keepHeaderHome(client, opts.Header)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &recorder{
		opts: opts, from: from, txURL: txURL, client: client, log: log,
		report: &Report{Source: from, TransactionsURL: txURL, Out: opts.Out},
	}
	if opts.Rate > 0 && !math.IsInf(opts.Rate, 1) {
		// 5 % more than 1/Rate, as the conformance suite spaces its
		// requests: the deployment sees them with jitter and must still
		// count no more than Rate in any one second.
		r.interval = time.Duration(float64(time.Second) / opts.Rate * 1.05)
	}
	return r, nil
}

// keepHeaderHome returns a copy of client that drops the headers from a
// redirect to another host: they may hold an API key, and Go drops only
// Authorization and Cookie itself.
func keepHeaderHome(client *http.Client, h http.Header) *http.Client {
	c := *client
	check := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
			for name := range h {
				req.Header.Del(name)
			}
		}
		if check != nil {
			return check(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// baseURL checks an absolute http(s) URL and drops its trailing slashes.
func baseURL(what, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%w: %s: want an absolute http or https URL without query, got %q", ErrOptions, what, raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

func (r *recorder) run(ctx context.Context) error {
	if err := os.MkdirAll(r.opts.Out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	// What a killed run left half-written through WriteFileAtomic.
	if err := fixtures.RemoveStaleTemps(r.opts.Out, fixtures.ManifestFile, StateFile); err != nil {
		return err
	}
	if err := r.start(); err != nil {
		return err
	}
	for _, info := range listingInfos() {
		ls, ok := r.st.Listings[info.name]
		if !ok || ls.Done {
			continue
		}
		if err := r.recordListing(ctx, info, ls); err != nil {
			return fmt.Errorf("record %s: %w", info.name, err)
		}
		r.log.Info("listing recorded", "listing", info.name, "rows", ls.Rows, "pages", ls.Pages, "truncated", ls.Truncated)
	}
	return r.finish()
}

// start loads the state of an unfinished recording, or begins a new one.
func (r *recorder) start() error {
	st, err := loadState(r.opts.Out)
	if err != nil {
		return err
	}
	if st != nil {
		return r.resume(st)
	}
	// A new recording: the manifest of an earlier one goes first, so that
	// the directory never looks complete while it is being rewritten.
	if err := os.Remove(filepath.Join(r.opts.Out, fixtures.ManifestFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove old manifest: %w", err)
	}
	r.st = &state{Version: stateVersion, Source: r.from, TransactionsURL: r.txURL, Listings: map[string]*listingState{}}
	for _, l := range r.opts.Listings {
		r.st.Listings[l] = &listingState{PageSize: r.opts.PageSize}
		if err := os.Truncate(r.file(l), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("empty %s: %w", r.file(l), err)
		}
	}
	return r.st.save(r.opts.Out)
}

func (r *recorder) resume(st *state) error {
	if st.Source != r.from || st.TransactionsURL != r.txURL {
		return fmt.Errorf("%w: %s holds an unfinished recording of %s (transactions %s); continue it with the same URLs, or remove %s to start over",
			ErrOptions, r.opts.Out, st.Source, st.TransactionsURL, StateFile)
	}
	if len(r.opts.Listings) != len(st.Listings) {
		return fmt.Errorf("%w: %s holds an unfinished recording of other listings", ErrOptions, r.opts.Out)
	}
	for _, l := range r.opts.Listings {
		if st.Listings[l] == nil {
			return fmt.Errorf("%w: %s holds an unfinished recording without %s", ErrOptions, r.opts.Out, l)
		}
	}
	// Rows written after the last saved page are cut off: that page is
	// fetched again.
	for l, ls := range st.Listings {
		if err := cutTo(r.file(l), ls.Size); err != nil {
			return err
		}
	}
	r.st = st
	r.report.Resumed = true
	r.report.EarlierViolations = st.Violations
	r.log.Info("resuming recording", "out", r.opts.Out, "source", st.Source)
	return nil
}

// cutTo cuts a listing file to size, creating it when size is 0.
func cutTo(path string, size int64) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && size == 0:
		return nil
	case err != nil:
		return fmt.Errorf("resume: %w", err)
	case fi.Size() < size:
		return fmt.Errorf("resume: %s holds %d bytes, the state says %d: the file was changed; remove %s to start over", path, fi.Size(), size, StateFile)
	case fi.Size() > size:
		if err := os.Truncate(path, size); err != nil {
			return fmt.Errorf("resume: %w", err)
		}
	}
	return nil
}

func (r *recorder) file(listing string) string {
	return filepath.Join(r.opts.Out, listing+"."+fixtures.FormatNDJSON)
}

// finish writes the manifest, last, and removes the state file.
func (r *recorder) finish() error {
	m := &fixtures.Manifest{
		Source:          r.from,
		LatestBlock:     r.st.LatestBlock,
		LatestBlockTime: r.st.LatestBlockTime,
		Listings:        map[string]fixtures.ManifestListing{},
	}
	if g := r.st.Listings[records.ListingGames]; g != nil && g.Rows > 0 {
		m.FirstEpoch, m.LatestEpoch = g.MinEpoch, g.MaxEpoch
	}
	for l, ls := range r.st.Listings {
		m.Listings[l] = fixtures.ManifestListing{File: filepath.Base(r.file(l)), Count: ls.Rows}
		// A response-shaped file of an earlier generate is stale now.
		if err := os.Remove(filepath.Join(r.opts.Out, l+"."+fixtures.FormatJSON)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove stale %s.json: %w", l, err)
		}
	}
	// The manifest records each file's size and SHA-256, read back from
	// the files as they stand, and is sealed with its checksum.
	if err := fixtures.WriteManifest(r.opts.Out, m); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(r.opts.Out, StateFile)); err != nil {
		return fmt.Errorf("remove state: %w", err)
	}
	r.report.Manifest = m
	r.report.Complete = true
	return nil
}

func (r *recorder) fillReport() {
	if r.st == nil {
		return
	}
	r.report.Listings = map[string]ListingReport{}
	for l, ls := range r.st.Listings {
		r.report.Listings[l] = ListingReport{
			File: filepath.Base(r.file(l)), Rows: ls.Rows, Pages: ls.Pages, Skipped: ls.Skipped,
			PageSize: ls.PageSize, Done: ls.Done, Truncated: ls.Truncated,
		}
	}
}

// violation records one violation in the report and the state's count.
func (r *recorder) violation(v Violation) {
	r.report.ViolationCount++
	r.st.Violations++
	if len(r.report.Violations) < MaxReportedViolations {
		r.report.Violations = append(r.report.Violations, v)
	}
	// The report lists it; the log line is for following a long run.
	r.log.Debug("violation", "listing", v.Listing, "request", v.Request, "status", v.Status, "path", v.Path, "rule", v.Rule, "message", v.Message)
}

// response is one fetched response.
type response struct {
	url    string
	status int
	header http.Header
	body   []byte
}

// get fetches one URL, retrying transport errors, 5xx and 429.
func (r *recorder) get(ctx context.Context, u string) (*response, error) {
	delay := r.opts.RetryDelay
	for attempt := 0; ; attempt++ {
		resp, err := r.getOnce(ctx, u)
		retry := err != nil || resp.status >= 500 || resp.status == http.StatusTooManyRequests
		if !retry || attempt >= r.opts.Retries || ctx.Err() != nil {
			return resp, err
		}
		var why string
		if err != nil {
			why = err.Error()
		} else {
			why = "status " + strconv.Itoa(resp.status)
		}
		wait := delay
		if resp != nil {
			after, ok := retryAfter(resp.header, time.Now())
			if !ok {
				r.log.Warn("not retrying: the deployment asks for a longer wait than "+MaxRetryAfter.String(), "request", u, "status", resp.status, "retryAfter", resp.header.Get("Retry-After"))
				return resp, nil
			}
			wait = max(wait, after)
		}
		r.log.Warn("retrying", "request", u, "attempt", attempt+1, "reason", why, "delay", wait)
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
		delay *= 2
	}
}

// retryAfter reads an answer's Retry-After (delta-seconds or an
// HTTP-date): 0 when absent or unreadable, and false when it asks for more
// than MaxRetryAfter.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs > int64(MaxRetryAfter/time.Second) {
			return 0, false
		}
		d = time.Duration(max(secs, 0)) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = max(at.Sub(now), 0)
	}
	return d, d <= MaxRetryAfter
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// pace waits until the next request may go under Options.Rate.
func (r *recorder) pace(ctx context.Context) error {
	if err := sleep(ctx, time.Until(r.next)); err != nil {
		return err
	}
	r.next = time.Now().Add(r.interval)
	return nil
}

func (r *recorder) getOnce(ctx context.Context, u string) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	for name, values := range r.opts.Header {
		if strings.EqualFold(name, "Host") && len(values) > 0 {
			req.Host = values[0]
			continue
		}
		req.Header[name] = values
	}
	if err := r.pace(ctx); err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	r.report.Requests++
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, r.opts.MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: read body: %w", u, err)
	}
	if int64(len(body)) > r.opts.MaxBodyBytes {
		return nil, fmt.Errorf("GET %s: body above %d bytes; lower the page size", u, r.opts.MaxBodyBytes)
	}
	return &response{url: u, status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// validate checks a body against a schema and records the violations. A
// page's records are checked on every core (schemas.Validator.Validate).
func (r *recorder) validate(listing, schema string, resp *response) {
	err := schemas.MustLoad(schema).Validate(resp.body)
	if err == nil {
		return
	}
	var verr *schemas.ValidationError
	if !errors.As(err, &verr) {
		r.violation(Violation{Listing: listing, Request: resp.url, Status: resp.status, Rule: "json", Message: err.Error()})
		return
	}
	for _, v := range verr.Violations {
		r.violation(Violation{Listing: listing, Request: resp.url, Status: resp.status, Path: v.Path, Rule: v.Rule, Message: v.Message})
	}
}

// noteBlock keeps the newest block of the data-node headers.
func (r *recorder) noteBlock(h http.Header) {
	height, err := strconv.ParseUint(h.Get("X-Block-Height"), 10, 64)
	if err != nil || height < r.st.LatestBlock {
		return
	}
	r.st.LatestBlock = height
	if ns, err := strconv.ParseInt(h.Get("X-Block-Timestamp"), 10, 64); err == nil {
		r.st.LatestBlockTime = time.Unix(0, ns).UTC()
	}
}

// fetchPage gets one page of a listing, halving the page size while the
// deployment refuses the first page with a 400. Any other status but 200 is
// an error (after validating the error body).
func (r *recorder) fetchPage(ctx context.Context, info listingInfo, ls *listingState, query func(size int) url.Values) (*response, error) {
	base := r.from
	if !info.dataNode {
		base = r.txURL
	}
	for {
		u := base + info.path + "?" + query(ls.PageSize).Encode()
		resp, err := r.get(ctx, u)
		if err != nil {
			return nil, err
		}
		if resp.status == http.StatusOK {
			r.validate(info.name, info.response, resp)
			if info.dataNode {
				r.noteBlock(resp.header)
			}
			return resp, nil
		}
		r.validate(info.name, "Error", resp)
		if resp.status == http.StatusBadRequest && ls.Pages == 0 && ls.PageSize > 1 {
			ls.PageSize /= 2
			r.log.Warn("page size refused; halving", "listing", info.name, "pageSize", ls.PageSize, "body", snippet(resp.body))
			continue
		}
		return nil, fmt.Errorf("GET %s: status %d: %s", u, resp.status, snippet(resp.body))
	}
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// appendRows appends NDJSON lines to a listing's file, syncs it, and
// returns its new size.
func (r *recorder) appendRows(listing string, rows [][]byte) (size int64, err error) {
	f, err := os.OpenFile(r.file(listing), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", r.file(listing), err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", r.file(listing), cerr)
		}
	}()
	n := 0
	for _, row := range rows {
		n += len(row) + 1
	}
	buf := make([]byte, 0, n)
	for _, row := range rows {
		buf = append(buf, row...)
		buf = append(buf, '\n')
	}
	if _, err := f.Write(buf); err != nil {
		return 0, fmt.Errorf("append to %s: %w", r.file(listing), err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("sync %s: %w", r.file(listing), err)
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", r.file(listing), err)
	}
	return fi.Size(), nil
}

// keep checks one row and returns its NDJSON line, or nil when the row is
// left out (and reported).
func (r *recorder) keep(info listingInfo, ls *listingState, resp *response, at string, node json.RawMessage) []byte {
	bad := func(rule, msg string) []byte {
		ls.Skipped++
		r.violation(Violation{Listing: info.name, Request: resp.url, Status: resp.status, Path: at, Rule: rule, Message: msg + "; row not recorded"})
		return nil
	}
	key, epoch, err := parseKey(info.name, node)
	if err != nil {
		return bad("record", err.Error())
	}
	if ls.Last != nil && !key.follows(*ls.Last) {
		return bad("order", "row is not after the previous row in listing order (repeated or out of order)")
	}
	if info.name == records.ListingGames {
		if ls.Last == nil || epoch < ls.MinEpoch {
			ls.MinEpoch = epoch
		}
		if ls.Last == nil || epoch > ls.MaxEpoch {
			ls.MaxEpoch = epoch
		}
	}
	ls.Last = &key
	line := []byte(node)
	if slices.Contains(line, '\n') || slices.Contains(line, '\r') {
		// Whitespace only (JSON strings cannot hold raw newlines), but
		// NDJSON needs the record on one line.
		var buf bytes.Buffer
		if err := json.Compact(&buf, line); err != nil {
			return bad("json", err.Error())
		}
		line = buf.Bytes()
	}
	return line
}

// parseKey reads a row's position, and a game's epoch, the way the fixture
// reader will, so that a row that would not load is caught here.
func parseKey(listing string, node json.RawMessage) (rowKey, uint64, error) {
	switch listing {
	case records.ListingGames:
		var g records.Game
		if err := json.Unmarshal(node, &g); err != nil {
			return rowKey{}, 0, fmt.Errorf("game: %w", err)
		}
		return rowKey{Num: g.Epoch, Str: g.ID}, g.Epoch, nil
	case records.ListingSnapshots:
		var s records.CoreSnapshot
		if err := json.Unmarshal(node, &s); err != nil {
			return rowKey{}, 0, fmt.Errorf("core snapshot: %w", err)
		}
		return rowKey{Num: s.BlockHeight}, 0, nil
	case records.ListingKeyRotations:
		var k records.EthereumKeyRotation
		if err := json.Unmarshal(node, &k); err != nil {
			return rowKey{}, 0, fmt.Errorf("key rotation: %w", err)
		}
		return rowKey{Num: k.BlockHeight, Str: k.NodeID}, 0, nil
	case records.ListingNetworkParameters:
		var p records.NetworkParameter
		if err := json.Unmarshal(node, &p); err != nil {
			return rowKey{}, 0, fmt.Errorf("network parameter: %w", err)
		}
		return rowKey{Str: p.Key}, 0, nil
	default:
		t, err := records.ParseTransaction(node)
		if err != nil {
			return rowKey{}, 0, err
		}
		return rowKey{Num: t.Block, Sub: uint64(t.Index)}, 0, nil
	}
}
