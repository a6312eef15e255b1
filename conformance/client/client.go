package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/internal/quote"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Exchange is one request the suite made and what came back.
type Exchange struct {
	// Method is the request's method (GET, or HEAD and the like for the
	// error rules).
	Method string
	// Path is the listing path asked for, without base URL and query.
	Path string
	// URL is the whole URL asked for, query included.
	URL string
	// Status, Header and Body are the answer's.
	Status int
	Header http.Header
	Body   []byte
	// Err is set when no complete response came back (connection refused,
	// timeout, body too large).
	Err error
	// elapsed is the time of the last attempt.
	elapsed time.Duration
	// Sent and Received are when the last attempt's request went and its
	// answer was read whole (zero when none was): an answer is later than
	// another only when it was asked after the other came back.
	Sent, Received time.Time
	// Decoded is what the run's observer (RunState.SetObserver) made of
	// the answer, for the rules that read it after: nil when none did.
	Decoded any
	// retries is how many times the request was asked again after a 429
	// or 503.
	retries int
	// Refused is set when the deployment still answered 429 or 503 after
	// the last retry (or asked for a wait longer than MaxRetryWait): the
	// answer says nothing about the rules. Status and Body are that
	// answer's.
	Refused bool
	// Headers are the names of the configured headers the request carried;
	// their values are never kept here, so nothing can print them.
	Headers []string
	// Unkept is set on the copy the client keeps for the schema rules of
	// an answer whose body was not kept, the run having kept MaxKeptBodies
	// bytes of bodies already. seq names the exchange it copies.
	Unkept bool
	seq    uint64
}

// Same reports whether two exchanges are the same request's, the one a
// copy the client kept of the other.
func (ex *Exchange) Same(other *Exchange) bool {
	return ex != nil && other != nil && ex.seq == other.seq
}

// Curl returns a command line that repeats the request. Configured headers
// are shown by name, their values redacted.
func (ex *Exchange) Curl() string {
	var b strings.Builder
	b.WriteString("curl -sS -i ")
	if ex.Method != http.MethodGet {
		b.WriteString("-X " + ex.Method + " ")
	}
	for _, name := range ex.Headers {
		b.WriteString("-H " + shellQuote(name+": <redacted>") + " ")
	}
	b.WriteString(shellQuote(ex.URL))
	return b.String()
}

// Describe says what was asked and what came back, for failure messages.
func (ex *Exchange) Describe() string {
	var b strings.Builder
	b.WriteString("  asked: " + ex.Curl() + "\n")
	if ex.Err != nil {
		fmt.Fprintf(&b, "  got:   no response: %v\n", ex.Err)
		return b.String()
	}
	fmt.Fprintf(&b, "  got:   HTTP %d, %s\n", ex.Status, TrimBody(ex.Body, 600))
	switch {
	case ex.Refused:
		fmt.Fprintf(&b, "  (still refused after %d retries: the deployment limits the request rate or is overloaded; lower --rate, or try later)\n", ex.retries)
	case ex.retries > 0:
		fmt.Fprintf(&b, "  (after %d retries)\n", ex.retries)
	}
	return b.String()
}

// ContentType returns the media type of the response, without parameters.
func (ex *Exchange) ContentType() string {
	mt, _, err := mime.ParseMediaType(ex.Header.Get("Content-Type"))
	if err != nil {
		return ex.Header.Get("Content-Type")
	}
	return mt
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TrimBody shortens a body for a message, keeping its start (cut at a
// character boundary), with bytes that are not UTF-8 escaped as \xNN.
func TrimBody(body []byte, n int) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "empty body"
	}
	if len(s) <= n {
		return "body: " + quote.Printable(s)
	}
	cut := n
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			cut = i
			break
		}
	}
	return fmt.Sprintf("body (%d bytes, first %d): %s…", len(s), cut, quote.Printable(s[:cut]))
}

// Client makes the suite's requests and remembers every response, so that
// the schema rules can check every body a container received. Every client
// of a run shares one rate limit, one bound on requests in flight and one
// set of counters (see ConfigureTraffic).
type Client struct {
	// Config is the run's configuration, with its defaults set.
	Config config.Config
	// State is the run's shared traffic state the client's requests go
	// through.
	State *RunState

	mu  sync.Mutex
	log []*Exchange
}

// NewClient returns a client for a run with cfg, going through the run's
// shared traffic state (Current).
func NewClient(cfg config.Config) *Client {
	return &Client{Config: cfg.WithDefaults(), State: Current()}
}

// Request is one request of a batch for GetAll; its method is GET when
// not set.
type Request struct {
	// Method, Base, Path and Query make the request: Base+Path?Query.
	Method     string
	Base, Path string
	Query      url.Values
}

// Get asks for base+path with the query and never fails: a transport error
// is kept in the exchange.
func (c *Client) Get(base, path string, q url.Values) *Exchange {
	return c.do(http.MethodGet, base, path, q)
}

// GetAll asks for every request of a batch of independent requests, up to
// Config.Concurrency at once, and returns the exchanges in the order of
// reqs. They are remembered in that order, too.
func (c *Client) GetAll(reqs []Request) []*Exchange {
	out := make([]*Exchange, len(reqs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(c.Config.Concurrency, len(reqs)) {
		wg.Go(func() {
			for i := range next {
				out[i] = c.Fetch(cmp.Or(reqs[i].Method, http.MethodGet), reqs[i].Base, reqs[i].Path, reqs[i].Query)
			}
		})
	}
	for i := range reqs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, ex := range out {
		c.Keep(ex)
	}
	return out
}

func (c *Client) do(method, base, path string, q url.Values) *Exchange {
	ex := c.Fetch(method, base, path, q)
	c.Keep(ex)
	return ex
}

// Keep remembers an exchange that brought a complete response. Past
// MaxKeptBodies bytes of bodies in the run, it remembers a copy without
// the body (unkept), so that what the run keeps stays bounded.
func (c *Client) Keep(ex *Exchange) {
	if ex.Err != nil {
		return
	}
	switch {
	case !c.State.keepBody(len(ex.Body)):
		cp := *ex
		cp.Body, cp.Unkept, cp.Decoded = nil, true, nil
		ex = &cp
	case ex.Decoded != nil:
		// The rules that read the kept answers decode them their own way:
		// the observer's reading is not kept with them.
		cp := *ex
		cp.Decoded = nil
		ex = &cp
	}
	c.mu.Lock()
	c.log = append(c.log, ex)
	c.mu.Unlock()
}

// Fetch makes the request, asking again after a 429 or 503 as the answer's
// Retry-After says (or with backoff) at most Config.Retries times. The
// run's observer (RunState.SetObserver) sees the exchange before it is
// returned when it brought a whole answer.
func (c *Client) Fetch(method, base, path string, q url.Values) *Exchange {
	u := base + path
	if enc := q.Encode(); enc != "" {
		u += "?" + enc
	}
	ex := &Exchange{Method: method, Path: path, URL: u, seq: exchangeSeq.Add(1)}
	for _, h := range c.State.headers {
		ex.Headers = append(ex.Headers, h.name)
	}
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		c.attempt(ex)
		if ex.Err != nil || (ex.Status != http.StatusTooManyRequests && ex.Status != http.StatusServiceUnavailable) {
			c.State.observe(ex)
			return ex
		}
		wait, ok := retryWait(ex.Header, attempt, time.Now())
		if !ok || attempt >= c.State.retries || waited+wait > MaxRetryBudget {
			ex.Refused = true
			c.State.refused(ex.URL)
			c.State.observe(ex)
			return ex
		}
		waited += wait
		ex.retries++
		c.State.retrying(wait)
	}
}

// exchangeSeq numbers the exchanges of the process.
var exchangeSeq atomic.Uint64

// attempt sends the exchange's request once, within the rate limit and the
// bound on requests in flight, and fills in the answer. The attempt ends
// at Config.Timeout or at the run deadline, whichever comes first.
func (c *Client) attempt(ex *Exchange) {
	ex.Status, ex.Header, ex.Body, ex.Err = 0, nil, nil, nil
	ex.Sent, ex.Received = time.Time{}, time.Time{}
	if err := c.State.acquire(); err != nil {
		ex.Err = err
		return
	}
	defer c.State.release()
	start := time.Now()
	ex.Sent = start
	defer func() { ex.elapsed = time.Since(start) }()
	ctx, cancel := context.WithTimeout(c.State.Ctx, c.Config.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, ex.Method, ex.URL, nil)
	if err != nil {
		ex.Err = fmt.Errorf("build request: %w", err)
		return
	}
	req.Header.Set("Accept", "application/json")
	c.State.apply(req)
	resp, err := c.State.http.Do(req)
	if err != nil {
		ex.Err = c.attemptError(err)
		return
	}
	defer resp.Body.Close()
	ex.Status = resp.StatusCode
	ex.Header = resp.Header
	ex.Body, err = c.State.bodies.read(ctx, resp.Body, MaxBody)
	if err != nil {
		ex.Err = c.attemptError(err)
		return
	}
	ex.Received = time.Now()
}

// attemptError says why an attempt ended without a whole answer: as err
// says, or, when the run deadline ended it, that the deadline passed.
func (c *Client) attemptError(err error) error {
	if c.State.Expired() {
		return fmt.Errorf("%s: %w", c.State.DeadlineMessage(), err)
	}
	return err
}

// retryWait is the wait before retry number attempt+1 of an answer with
// header h: its Retry-After (delta-seconds or an HTTP-date), or without
// one an exponential backoff. It reports false when the answer asks for
// more than MaxRetryWait.
func retryWait(h http.Header, attempt int, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		var d time.Duration
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
			if secs > int64(MaxRetryWait/time.Second) {
				return 0, false
			}
			d = time.Duration(max(secs, 0)) * time.Second
		} else if at, err := http.ParseTime(v); err == nil {
			d = max(at.Sub(now), 0)
		} else {
			d = backoff(attempt) // unreadable: as if absent
		}
		if d > MaxRetryWait {
			return 0, false
		}
		return d, true
	}
	return backoff(attempt), true
}

// backoff is the wait before retry number attempt+1 without Retry-After:
// 0.5 s, 1 s, 2 s, ... up to maxBackoff.
func backoff(attempt int) time.Duration {
	d := firstBackoff
	for range attempt {
		if d >= maxBackoff {
			break
		}
		d *= 2
	}
	return min(d, maxBackoff)
}

// CountHint says, for a request with one count above 1 that the deployment
// refused with a 4xx (other than 429), that the deployment's largest page
// may be smaller than the count asked; "" otherwise. Failure messages
// append it.
func CountHint(ex *Exchange) string {
	if ex == nil || ex.Err != nil || ex.Refused || ex.Status < 400 || ex.Status >= 500 || ex.Status == http.StatusTooManyRequests {
		return ""
	}
	u, err := url.Parse(ex.URL)
	if err != nil {
		return ""
	}
	q := u.Query()
	var name, value string
	for _, p := range []string{"pagination.first", "pagination.last", "first", "last"} {
		v := q.Get(p)
		if v == "" {
			continue
		}
		if name != "" {
			return "" // two counts: the refusal may be of the pair
		}
		name, value = p, v
	}
	if n, err := strconv.Atoi(value); name == "" || err != nil || n <= 1 {
		return ""
	}
	return fmt.Sprintf("the deployment refused %s=%s: if its largest page is smaller, lower --page-size", name, value)
}

// Exchanges returns every complete response received so far.
func (c *Client) Exchanges() []*Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Exchange(nil), c.log...)
}

// DecodeObject decodes a JSON object keeping numbers as json.Number.
func DecodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("body is not JSON: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("body is JSON but not an object")
	}
	return obj, nil
}
