package conformance

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"github.com/chaindata/harness/conformance/config"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// exchange is one request the suite made and what came back.
type exchange struct {
	method string
	// path is the listing path asked for, without base URL and query.
	path   string
	url    string
	status int
	header http.Header
	body   []byte
	// err is set when no complete response came back (connection refused,
	// timeout, body too large).
	err error
	// elapsed is the time of the last attempt.
	elapsed time.Duration
	// retries is how many times the request was asked again after a 429
	// or 503.
	retries int
	// refused is set when the deployment still answered 429 or 503 after
	// the last retry (or asked for a wait longer than MaxRetryWait): the
	// answer says nothing about the rules. status and body are that
	// answer's.
	refused bool
	// headers are the names of the configured headers the request carried;
	// their values are never kept here, so nothing can print them.
	headers []string
	// unkept is set on the copy the client keeps for the schema rules of
	// an answer whose body was not kept, the run having kept maxKeptBodies
	// bytes of bodies already. seq names the exchange it copies.
	unkept bool
	seq    uint64
}

// same reports whether two exchanges are the same request's, the one a
// copy the client kept of the other.
func (ex *exchange) same(other *exchange) bool {
	return ex != nil && other != nil && ex.seq == other.seq
}

// curl returns a command line that repeats the request. Configured headers
// are shown by name, their values redacted.
func (ex *exchange) curl() string {
	var b strings.Builder
	b.WriteString("curl -sS -i ")
	if ex.method != http.MethodGet {
		b.WriteString("-X " + ex.method + " ")
	}
	for _, name := range ex.headers {
		b.WriteString("-H " + shellQuote(name+": <redacted>") + " ")
	}
	b.WriteString(shellQuote(ex.url))
	return b.String()
}

// describe says what was asked and what came back, for failure messages.
func (ex *exchange) describe() string {
	var b strings.Builder
	b.WriteString("  asked: " + ex.curl() + "\n")
	if ex.err != nil {
		fmt.Fprintf(&b, "  got:   no response: %v\n", ex.err)
		return b.String()
	}
	fmt.Fprintf(&b, "  got:   HTTP %d, %s\n", ex.status, trimBody(ex.body, 600))
	switch {
	case ex.refused:
		fmt.Fprintf(&b, "  (still refused after %d retries: the deployment limits the request rate or is overloaded; lower --rate, or try later)\n", ex.retries)
	case ex.retries > 0:
		fmt.Fprintf(&b, "  (after %d retries)\n", ex.retries)
	}
	return b.String()
}

// contentType returns the media type of the response, without parameters.
func (ex *exchange) contentType() string {
	mt, _, err := mime.ParseMediaType(ex.header.Get("Content-Type"))
	if err != nil {
		return ex.header.Get("Content-Type")
	}
	return mt
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// trimBody shortens a body for a message, keeping its start.
func trimBody(body []byte, n int) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "empty body"
	}
	if len(s) <= n {
		return "body: " + s
	}
	return fmt.Sprintf("body (%d bytes, first %d): %s…", len(s), n, s[:n])
}

// client makes the suite's requests and remembers every response, so that
// the schema rules can check every body a container received. Every client
// of a run shares one rate limit, one bound on requests in flight and one
// set of counters (see configureTraffic).
type client struct {
	cfg config.Config
	t   *traffic

	mu  sync.Mutex
	log []*exchange
}

func newClient(cfg config.Config) *client {
	return &client{cfg: cfg.WithDefaults(), t: currentTraffic()}
}

// request is one request of a batch for getAll; its method is GET when
// not set.
type request struct {
	method     string
	base, path string
	q          url.Values
}

// get asks for base+path with the query and never fails: a transport error
// is kept in the exchange.
func (c *client) get(base, path string, q url.Values) *exchange {
	return c.do(http.MethodGet, base, path, q)
}

// getAll asks for every request of a batch of independent requests, up to
// Config.Concurrency at once, and returns the exchanges in the order of
// reqs. They are remembered in that order, too.
func (c *client) getAll(reqs []request) []*exchange {
	out := make([]*exchange, len(reqs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(c.cfg.Concurrency, len(reqs)) {
		wg.Go(func() {
			for i := range next {
				out[i] = c.fetch(cmp.Or(reqs[i].method, http.MethodGet), reqs[i].base, reqs[i].path, reqs[i].q)
			}
		})
	}
	for i := range reqs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, ex := range out {
		c.keep(ex)
	}
	return out
}

func (c *client) do(method, base, path string, q url.Values) *exchange {
	ex := c.fetch(method, base, path, q)
	c.keep(ex)
	return ex
}

// keep remembers an exchange that brought a complete response. Past
// maxKeptBodies bytes of bodies in the run, it remembers a copy without
// the body (unkept), so that what the run keeps stays bounded.
func (c *client) keep(ex *exchange) {
	if ex.err != nil {
		return
	}
	if !c.t.keepBody(len(ex.body)) {
		cp := *ex
		cp.body, cp.unkept = nil, true
		ex = &cp
	}
	c.mu.Lock()
	c.log = append(c.log, ex)
	c.mu.Unlock()
}

// fetch makes the request, asking again after a 429 or 503 as the answer's
// Retry-After says (or with backoff) at most Config.Retries times.
func (c *client) fetch(method, base, path string, q url.Values) *exchange {
	u := base + path
	if enc := q.Encode(); enc != "" {
		u += "?" + enc
	}
	ex := &exchange{method: method, path: path, url: u, seq: exchangeSeq.Add(1)}
	for _, h := range c.t.headers {
		ex.headers = append(ex.headers, h.name)
	}
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		c.attempt(ex)
		if ex.err != nil || (ex.status != http.StatusTooManyRequests && ex.status != http.StatusServiceUnavailable) {
			return ex
		}
		wait, ok := retryWait(ex.header, attempt, time.Now())
		if !ok || attempt >= c.t.retries || waited+wait > MaxRetryBudget {
			ex.refused = true
			c.t.refused(ex.url)
			return ex
		}
		waited += wait
		ex.retries++
		c.t.retrying(wait)
	}
}

// exchangeSeq numbers the exchanges of the process.
var exchangeSeq atomic.Uint64

// attempt sends the exchange's request once, within the rate limit and the
// bound on requests in flight, and fills in the answer. The attempt ends
// at Config.Timeout or at the run deadline, whichever comes first.
func (c *client) attempt(ex *exchange) {
	ex.status, ex.header, ex.body, ex.err = 0, nil, nil, nil
	if err := c.t.acquire(); err != nil {
		ex.err = err
		return
	}
	defer c.t.release()
	start := time.Now()
	defer func() { ex.elapsed = time.Since(start) }()
	ctx, cancel := context.WithTimeout(c.t.ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, ex.method, ex.url, nil)
	if err != nil {
		ex.err = fmt.Errorf("build request: %w", err)
		return
	}
	req.Header.Set("Accept", "application/json")
	c.t.apply(req)
	resp, err := c.t.http.Do(req)
	if err != nil {
		ex.err = c.attemptError(err)
		return
	}
	defer resp.Body.Close()
	ex.status = resp.StatusCode
	ex.header = resp.Header
	ex.body, err = c.t.bodies.read(ctx, resp.Body, maxBody)
	if err != nil {
		ex.err = c.attemptError(err)
	}
}

// attemptError says why an attempt ended without a whole answer: as err
// says, or, when the run deadline ended it, that the deadline passed.
func (c *client) attemptError(err error) error {
	if c.t.expired() {
		return fmt.Errorf("%s: %w", c.t.deadlineMessage(), err)
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

// countHint says, for a request with one count above 1 that the deployment
// refused with a 4xx (other than 429), that the deployment's largest page
// may be smaller than the count asked; "" otherwise. Failure messages
// append it.
func countHint(ex *exchange) string {
	if ex == nil || ex.err != nil || ex.refused || ex.status < 400 || ex.status >= 500 || ex.status == http.StatusTooManyRequests {
		return ""
	}
	u, err := url.Parse(ex.url)
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

// exchanges returns every complete response received so far.
func (c *client) exchanges() []*exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*exchange(nil), c.log...)
}

// decodeObject decodes a JSON object keeping numbers as json.Number.
func decodeObject(data []byte) (map[string]any, error) {
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
