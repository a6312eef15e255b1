package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// maxBody bounds how much of one response the suite reads.
const maxBody = 64 << 20

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
	err     error
	elapsed time.Duration
	// refused is set when the deployment still answered 429 or 503 after
	// the last retry.
	refused bool
}

// curl returns a command line that repeats the request.
func (ex *exchange) curl() string {
	method := ""
	if ex.method != http.MethodGet {
		method = "-X " + ex.method + " "
	}
	return "curl -sS -i " + method + shellQuote(ex.url)
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
// the schema rules can check every body a container received.
type client struct {
	cfg  Config
	http *http.Client

	mu  sync.Mutex
	log []*exchange
}

func newClient(cfg Config) *client {
	return &client{cfg: cfg, http: &http.Client{Timeout: cfg.Timeout}}
}

// get asks for base+path with the query and never fails: a transport error
// is kept in the exchange.
func (c *client) get(base, path string, q url.Values) *exchange {
	return c.do(http.MethodGet, base, path, q)
}

func (c *client) do(method, base, path string, q url.Values) *exchange {
	u := base + path
	if enc := q.Encode(); enc != "" {
		u += "?" + enc
	}
	ex := &exchange{method: method, path: path, url: u}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		ex.err = fmt.Errorf("build request: %w", err)
		return ex
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		ex.err = err
		ex.elapsed = time.Since(start)
		return ex
	}
	defer resp.Body.Close()
	ex.status = resp.StatusCode
	ex.header = resp.Header
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	ex.elapsed = time.Since(start)
	switch {
	case err != nil:
		ex.err = fmt.Errorf("read body: %w", err)
	case len(body) > maxBody:
		ex.err = fmt.Errorf("body larger than %d bytes", maxBody)
	}
	ex.body = body
	if ex.err == nil {
		c.mu.Lock()
		c.log = append(c.log, ex)
		c.mu.Unlock()
	}
	return ex
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
