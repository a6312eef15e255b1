package mockserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/store"
)

// The tests here hold the mock to its limits against slow and hostile
// clients: values echoed in errors are bounded, an oversized header block
// gets the error body, and a client that stops reading is dropped.

// serveLimited starts a server of w with cfg on an http.Server set up as
// Server.HTTPServer sets one up (its MaxHeaderBytes above the mock's limit).
func serveLimited(t testing.TB, cfg Config, w *world.World) (*testServer, *Server) {
	t.Helper()
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg, st)
	hs := httptest.NewUnstartedServer(s)
	hs.Config.MaxHeaderBytes = s.HTTPServer().MaxHeaderBytes
	hs.Start()
	t.Cleanup(hs.Close)
	return &testServer{url: hs.URL, client: &http.Client{Timeout: 30 * time.Second}, world: w}, s
}

// maxEchoedAnswer is the largest error body a bad value may cause.
const maxEchoedAnswer = 1024

// TestEchoedValuesAreBounded sends values of 64 KB and 1 MB (just under the
// 1 MiB header limit) wherever the mock quotes a value back in an error: the
// answer is the error body, under 1 KB, and says how long the value was.
func TestEchoedValuesAreBounded(t *testing.T) {
	t.Parallel()
	s, _ := serveLimited(t, Config{Control: true}, txWorld(t))
	tests := []struct {
		name, method, path string
		// query, with V where the long value goes.
		query string
		// header: an X-Harness-Fault header, with V where the value goes.
		header string
		// body: a control API body, with V where the value goes.
		body string
		// echo: the answer quotes the value and its length.
		echo bool
	}{
		{name: "transactions before", path: "/transactions", query: "before=V", echo: true},
		{name: "transactions after", path: "/transactions", query: "after=V", echo: true},
		{name: "transactions first, not a number", path: "/transactions", query: "first=V", echo: true},
		{name: "transactions first, out of range", path: "/transactions", query: "first=9V", echo: true},
		{name: "games after", path: "/api/v2/games", query: "pagination.after=V", echo: true},
		{name: "games first", path: "/api/v2/games", query: "pagination.first=V", echo: true},
		{name: "games entity scope", path: "/api/v2/games", query: "entityScope=V", echo: true},
		{name: "games epochFrom", path: "/api/v2/games", query: "epochFrom=V", echo: true},
		{name: "snapshots before", path: "/api/v2/snapshots", query: "pagination.before=V&pagination.last=2", echo: true},
		{name: "snapshots newest first", path: "/api/v2/snapshots", query: "pagination.newestFirst=V", echo: true},
		{name: "rotations after", path: "/api/v2/core/keys/ethereum/rotations", query: "pagination.after=V", echo: true},
		{name: "parameters after", path: "/api/v2/network/parameters", query: "pagination.after=V", echo: true},
		{name: "control status", path: "/harness/status", query: "V", echo: true},
		{name: "control reset", method: http.MethodPost, path: "/harness/reset", query: "V", echo: true},
		{name: "control advance, unknown parameter", method: http.MethodPost, path: "/harness/advance", query: "V=1", echo: true},
		{name: "control advance, bad count", method: http.MethodPost, path: "/harness/advance", query: "blocks=V", echo: true},
		{name: "control faults, a parameter", method: http.MethodPost, path: "/harness/faults", query: "V", echo: true},
		{name: "control faults, a bad listing", method: http.MethodPost, path: "/harness/faults", body: `{"rules":[{"listing":"V","fault":"reset"}]}`, echo: true},
		{name: "control faults, a bad path", method: http.MethodPost, path: "/harness/faults", body: `{"rules":[{"path":"V","fault":"reset"}]}`, echo: true},
		{name: "control faults, an unknown field", method: http.MethodPost, path: "/harness/faults", body: `{"rules":[{"V":1}]}`},
		// The fault header itself is at most 1024 characters: within that,
		// its errors quote a bounded part.
		{name: "fault header, an unknown fault", path: "/api/v2/snapshots", header: "status=503;V"},
		{name: "fault header, a bad latency", path: "/api/v2/snapshots", header: "latency=V"},
	}
	for _, size := range []int{64 << 10, 1_000_000} {
		long := strings.Repeat("A", size)
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s %d", tc.name, size), func(t *testing.T) {
				method := tc.method
				if method == "" {
					method = http.MethodGet
				}
				value := long
				hdr := http.Header{}
				if tc.body != "" {
					hdr.Set("Content-Type", "application/json")
				}
				if tc.header != "" {
					value = long[:900]
					hdr.Set(faults.Header, strings.ReplaceAll(tc.header, "V", value))
				}
				r := s.fetchBody(t, method, tc.path, strings.ReplaceAll(tc.query, "V", value), strings.ReplaceAll(tc.body, "V", value), hdr)
				if r.status != http.StatusBadRequest {
					t.Fatalf("%s: status %d, want 400: %.300s", r, r.status, r.body)
				}
				if err := validateCached("Error", r.body); err != nil {
					t.Fatalf("%s: %v: %.300s", r, err, r.body)
				}
				if len(r.body) >= maxEchoedAnswer {
					t.Errorf("%s: %d bytes of error body for a %d-byte value, want under %d:\n%.2000s", r, len(r.body), len(value), maxEchoedAnswer, r.body)
				}
				if tc.echo && !strings.Contains(string(r.body), " bytes)") {
					t.Errorf("%s: the answer does not say how long the value was: %s", r, r.body)
				}
			})
		}
	}
}

// fetchBody sends one request with a body and headers and reads the
// answer, checking nothing; the request shown is shortened.
func (s *testServer) fetchBody(t testing.TB, method, path, rawQuery, body string, hdr http.Header) *response {
	t.Helper()
	u := s.url + path
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	res, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s %.200s: %v", method, u, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &response{req: fmt.Sprintf("%s %.120s... (%d bytes of URL)", method, u, len(u)), status: res.StatusCode, header: res.Header, body: b}
}

// TestParseErrorWording checks the gateway's wording of a value that does not
// parse survives the bound: a short value reads as before, quoted whole.
func TestParseErrorWording(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, pagingWorld(t))
	tests := []struct {
		path, query, want string
	}{
		{"/api/v2/games", "pagination.first=abc", `parsing field "pagination.first": "abc": strconv.ParseInt: parsing "abc": invalid syntax`},
		{"/transactions", "first=99999999999999999999", `parsing field "first": "99999999999999999999": strconv.ParseInt: parsing "99999999999999999999": value out of range`},
		{"/api/v2/snapshots", "pagination.newestFirst=yes", `parsing field "pagination.newestFirst": "yes": want true, false, 1 or 0`},
		{"/api/v2/games", "entityScope=" + strings.Repeat("x", 300), `parsing field "entityScope": "` + strings.Repeat("x", 200) + `…" (300 bytes): unknown enum value`},
		{"/api/v2/games", "epochTo=" + strings.Repeat("7", 300), `parsing field "epochTo": "` + strings.Repeat("7", 200) + `…" (300 bytes): strconv.ParseUint: parsing "` + strings.Repeat("7", 200) + `…" (300 bytes): value out of range`},
	}
	for _, tc := range tests {
		t.Run(tc.query[:min(len(tc.query), 40)], func(t *testing.T) {
			r := s.get(t, tc.path, tc.query)
			if got := r.apiError(t).Message; got != tc.want {
				t.Errorf("%.200s: message\n %q\nwant\n %q", r, got, tc.want)
			}
		})
	}
}

// TestCursorErrorsQuoteTheCursor checks a bad cursor is quoted in the error
// by quote.Value: whole when short, cut with its length when long.
func TestCursorErrorsQuoteTheCursor(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, txWorld(t))
	long := strings.Repeat("B", 1000)
	tests := []struct {
		path, query, want string
	}{
		{"/transactions", "before=x.y", `invalid cursor string: "x.y"`},
		{"/transactions", "after=" + long, `invalid cursor string: "` + long[:200] + `…" (1000 bytes)`},
		{"/api/v2/snapshots", "pagination.after=%25", `invalid cursor "%": invalid cursor: not base64`},
		{"/api/v2/snapshots", "pagination.after=" + long, `invalid cursor "` + long[:200] + `…" (1000 bytes): invalid cursor: not a cursor of this listing`},
	}
	for _, tc := range tests {
		t.Run(tc.query[:min(len(tc.query), 40)], func(t *testing.T) {
			r := s.get(t, tc.path, tc.query)
			e := r.apiError(t)
			if len(e.Details) != 1 {
				t.Fatalf("%.200s: %s, want one detail", r, r.body)
			}
			if got := e.Details[0].Message + ": " + e.Details[0].Inner; !strings.Contains(got, tc.want) {
				t.Errorf("%.200s: detail %q, want it to hold %q", r, got, tc.want)
			}
		})
	}
}

// rawRequest sends req as written over a new connection to the server at
// base and returns the status line and the rest of the answer.
func rawRequest(t *testing.T, base, req string) (status int, header http.Header, body []byte) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	go io.WriteString(conn, req) // the server may answer before it reads all
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// requestOfSize is a GET of the network parameters with a padding header
// that makes its request line and header block exactly n bytes.
func requestOfSize(t *testing.T, n int) string {
	t.Helper()
	const head = "GET /api/v2/network/parameters?pagination.first=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "
	pad := n - len(head) - len("\r\n\r\n")
	if pad < 0 {
		t.Fatalf("a request of %d bytes cannot hold the padding header", n)
	}
	req := head + strings.Repeat("p", pad) + "\r\n\r\n"
	if len(req) != n {
		t.Fatalf("request of %d bytes, want %d", len(req), n)
	}
	return req
}

// TestHeaderLimit checks a request line and header block over
// Config.MaxHeaderBytes is answered 431 with the error body, one at the limit
// is served, and beyond the http.Server's MaxHeaderBytes net/http answers a
// plain 431 itself (docs/serve.md says so).
func TestHeaderLimit(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{4096, DefaultMaxHeaderBytes} {
		cfg := Config{}
		if limit != DefaultMaxHeaderBytes {
			cfg.MaxHeaderBytes = limit
		}
		s, srv := serveLimited(t, cfg, pagingWorld(t))
		if got := srv.Config().MaxHeaderBytes; got != limit {
			t.Fatalf("Config().MaxHeaderBytes = %d, want %d", got, limit)
		}
		hardCap := srv.HTTPServer().MaxHeaderBytes + 4096 // net/http reads 4096 bytes more
		tests := []struct {
			name   string
			size   int
			status int
			json   bool
		}{
			{"at the limit", limit, 200, true},
			{"one byte over", limit + 1, 431, true},
			{"well over", limit + HeaderSlack/2, 431, true},
			{"over net/http's own limit", hardCap + 1, 431, false},
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("limit %d, %s", limit, tc.name), func(t *testing.T) {
				status, h, body := rawRequest(t, s.url, requestOfSize(t, tc.size))
				if status != tc.status {
					t.Fatalf("%d bytes: status %d, want %d: %.300s", tc.size, status, tc.status, body)
				}
				if !tc.json {
					if ct := h.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
						t.Errorf("%d bytes: Content-Type %q: net/http's own answer changed; update docs/serve.md", tc.size, ct)
					}
					return
				}
				if ct := h.Get("Content-Type"); ct != "application/json" {
					t.Fatalf("%d bytes: Content-Type %q, want application/json", tc.size, ct)
				}
				if tc.status == 200 {
					return
				}
				if err := validateCached("Error", body); err != nil {
					t.Fatalf("%d bytes: %v: %s", tc.size, err, body)
				}
				var e apiErrorBody
				if err := json.Unmarshal(body, &e); err != nil {
					t.Fatal(err)
				}
				wantInner := "the request line and headers are " + strconv.Itoa(tc.size) + " bytes, more than the limit of " + strconv.Itoa(limit)
				if e.Code != codeInvalidArgument || len(e.Details) != 1 || e.Details[0].Inner != wantInner || e.Details[0].Message != "request header fields too large" {
					t.Errorf("%d bytes: %s, want code 3 and the detail %q", tc.size, body, wantInner)
				}
				if h.Get("Access-Control-Allow-Origin") != "*" {
					t.Errorf("%d bytes: no CORS header on the 431", tc.size)
				}
			})
		}
	}
}

// TestHeaderBytes checks the count of a request's line and header block.
func TestHeaderBytes(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/a?b=c", nil) // Host example.com
	r.RequestURI = "/a?b=c"
	r.Header = http.Header{"K": {"v", "ww"}}
	// "GET /a?b=c HTTP/1.1\r\n" 21, "Host: example.com\r\n" 19,
	// "K: v\r\n" 6, "K: ww\r\n" 7, "\r\n" 2.
	if got := headerBytes(r, 1<<20); got != 55 {
		t.Errorf("headerBytes = %d, want 55", got)
	}
	in := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/a", RawQuery: "b=c"}, Proto: "HTTP/1.1", Host: "example.com", Header: r.Header}
	if got := headerBytes(in, 1<<20); got != 55 {
		t.Errorf("headerBytes of an in-process request (no RequestURI) = %d, want 55", got)
	}
}

// bigTxWorld is a world with 5000 transactions: a full page is about 5.7 MB,
// more than the socket buffers of a connection hold.
var bigTxWorld = sync.OnceValues(func() (*world.World, error) {
	return world.Generate(world.Options{Seed: 3, Scale: 0.5})
})

// writeResult is how the server's writing of one answer ended.
type writeResult struct {
	err     error
	written int
	took    time.Duration
}

// serveWatched starts a server of w with cfg that reports, for each request,
// how its writes ended, and each connection it closes.
func serveWatched(t *testing.T, cfg Config, w *world.World) (string, <-chan writeResult, <-chan struct{}) {
	t.Helper()
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	mock := New(cfg, st)
	results := make(chan writeResult, 16)
	closed := make(chan struct{}, 16)
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ew := &errWriter{ResponseWriter: w}
		start := time.Now()
		mock.ServeHTTP(ew, r)
		results <- writeResult{ew.err, ew.written, time.Since(start)}
	}))
	hs.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- struct{}{}
		}
	}
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL, results, closed
}

// errWriter remembers the first error of a write and the bytes written.
type errWriter struct {
	http.ResponseWriter
	err     error
	written int
}

func (e *errWriter) Write(b []byte) (int, error) {
	n, err := e.ResponseWriter.Write(b)
	e.written += n
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

func (e *errWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// TestStalledReaderIsDropped asks for a 5000-transaction page and never
// reads: the server's write fails once the deadline (base plus the body at
// the floor rate) passes, the handler returns, and the connection is closed.
func TestStalledReaderIsDropped(t *testing.T) {
	t.Parallel()
	w, err := bigTxWorld()
	if err != nil {
		t.Fatal(err)
	}
	const base, rate = 300 * time.Millisecond, 8 << 20
	srvURL, results, closed := serveWatched(t, Config{WriteTimeout: base, MinWriteRate: rate}, w)
	u, _ := url.Parse(srvURL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4096) // a small window: the server's writes block soon
	start := time.Now()
	fmt.Fprintf(conn, "GET /transactions?first=5000 HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host)
	var res writeResult
	select {
	case res = <-results:
	case <-time.After(20 * time.Second):
		t.Fatal("the server still writes to a client that has not read for 20 s")
	}
	took := time.Since(start)
	if res.err == nil {
		t.Fatalf("the server wrote all %d bytes to a client that never read; the test needs a bigger page", res.written)
	}
	if !isTimeout(res.err) {
		t.Errorf("the write failed with %v, want a timeout", res.err)
	}
	allowance := writeAllowance(5_800_000, base, rate)
	if took < base || took > allowance+5*time.Second {
		t.Errorf("the stalled client was dropped after %v, want after %v and within %v", took, base, allowance)
	}
	// The server closed the connection. (The kernel may still hold what
	// the server wrote, and send it as the client reads: that is no
	// memory of the server's process.)
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Error("the server kept the connection of the dropped client open")
	}
}

// isTimeout reports whether err is a deadline passed.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestReadersGetWholeAnswers checks the deadline cuts off no client that
// reads: a big page read at once, a slow-body fault that takes five times
// the base to dribble (each piece has its own deadline), and an answer on a
// connection idle for longer than the base, with a 100 Continue (net/http
// clears a connection's write deadline after each answer today; this guards
// against a stale deadline if it ever stops).
func TestReadersGetWholeAnswers(t *testing.T) {
	t.Parallel()
	w, err := bigTxWorld()
	if err != nil {
		t.Fatal(err)
	}
	const base = 200 * time.Millisecond
	cfg := Config{WriteTimeout: base, MinWriteRate: 8 << 20, Control: true}
	srvURL, results, _ := serveWatched(t, cfg, w)
	client := &http.Client{Timeout: 30 * time.Second}

	t.Run("a big page", func(t *testing.T) {
		resp, err := client.Get(srvURL + "/transactions?first=5000")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || len(b) < 5_000_000 || int64(len(b)) != resp.ContentLength {
			t.Fatalf("read %d bytes of %d: %v", len(b), resp.ContentLength, err)
		}
		if res := <-results; res.err != nil {
			t.Errorf("the server's write failed: %v", res.err)
		}
	})

	t.Run("a slow body", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, srvURL+"/api/v2/network/parameters?pagination.first=10", nil)
		req.Header.Set(faults.Header, "slow-body=2000") // about 2 KB: 1 s, five times the base
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || int64(len(b)) != resp.ContentLength {
			t.Fatalf("read %d bytes of %d: %v", len(b), resp.ContentLength, err)
		}
		if took := time.Since(start); took < 4*base {
			t.Fatalf("the slow body took %v; the test needs one slower than the base %v", took, base)
		}
		if res := <-results; res.err != nil {
			t.Errorf("the server's write failed: %v", res.err)
		}
	})

	t.Run("after an idle connection", func(t *testing.T) {
		u, _ := url.Parse(srvURL)
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		r := bufio.NewReader(conn)
		read := func(what string) *http.Response {
			t.Helper()
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp
		}
		fmt.Fprintf(conn, "GET /harness/status HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host)
		read("the first answer")
		<-results
		time.Sleep(3 * base) // the first answer's deadline passes
		rules := `{"rules":[]}`
		fmt.Fprintf(conn, "POST /harness/faults HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", u.Host, len(rules))
		if resp := read("the 100 Continue"); resp.StatusCode != http.StatusContinue {
			t.Fatalf("status %d, want 100 Continue", resp.StatusCode)
		}
		io.WriteString(conn, rules)
		if resp := read("the answer"); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, want 200", resp.StatusCode)
		}
		if res := <-results; res.err != nil {
			t.Errorf("the server's write failed: %v", res.err)
		}
	})
}

// TestWriteAllowance checks the time a write may take: the base plus its
// bytes at the floor rate.
func TestWriteAllowance(t *testing.T) {
	tests := []struct {
		n    int
		base time.Duration
		rate int
		want time.Duration
	}{
		{0, 10 * time.Second, 256 << 10, 10 * time.Second},
		{256 << 10, 10 * time.Second, 256 << 10, 11 * time.Second},
		{5_767_168, 10 * time.Second, 256 << 10, 32 * time.Second}, // a 5.5 MiB page
		{1, 0, 2, 500 * time.Millisecond},
		{3 << 30, time.Second, 1, time.Second + 3<<30*time.Second}, // no overflow at gigabytes
	}
	for _, tc := range tests {
		if got := writeAllowance(tc.n, tc.base, tc.rate); got != tc.want {
			t.Errorf("writeAllowance(%d, %v, %d) = %v, want %v", tc.n, tc.base, tc.rate, got, tc.want)
		}
	}
}

// TestLimitDefaults checks the zero Config takes the documented limits, a
// negative WriteTimeout turns the deadline off, and HTTPServer reads
// HeaderSlack more than the mock's header limit.
func TestLimitDefaults(t *testing.T) {
	st, err := store.New(emptyWorld())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   Config
		want Config
	}{
		{"zero", Config{}, Config{WriteTimeout: 10 * time.Second, MinWriteRate: 256 << 10, MaxHeaderBytes: 1 << 20}},
		{"set", Config{WriteTimeout: time.Second, MinWriteRate: 10, MaxHeaderBytes: 99}, Config{WriteTimeout: time.Second, MinWriteRate: 10, MaxHeaderBytes: 99}},
		{"off", Config{WriteTimeout: -1, MinWriteRate: -5, MaxHeaderBytes: -1}, Config{WriteTimeout: -1, MinWriteRate: 256 << 10, MaxHeaderBytes: 1 << 20}},
	}
	for _, tc := range tests {
		s := New(tc.in, st)
		got := s.Config()
		if got.WriteTimeout != tc.want.WriteTimeout || got.MinWriteRate != tc.want.MinWriteRate || got.MaxHeaderBytes != tc.want.MaxHeaderBytes {
			t.Errorf("%s: WriteTimeout %v, MinWriteRate %d, MaxHeaderBytes %d; want %v, %d, %d", tc.name,
				got.WriteTimeout, got.MinWriteRate, got.MaxHeaderBytes, tc.want.WriteTimeout, tc.want.MinWriteRate, tc.want.MaxHeaderBytes)
		}
		hs := s.HTTPServer()
		if hs.Handler != s || hs.MaxHeaderBytes != tc.want.MaxHeaderBytes+HeaderSlack || hs.ReadHeaderTimeout != 10*time.Second || hs.ReadTimeout != time.Minute || hs.IdleTimeout != 2*time.Minute || hs.WriteTimeout != 0 {
			t.Errorf("%s: HTTPServer %+v", tc.name, hs)
		}
	}
}

// deadlineRecorder is a ResponseWriter that records the write deadlines set
// on it through http.ResponseController, and what happened when.
type deadlineRecorder struct {
	httptest.ResponseRecorder
	events []string
	now    func() time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.events = append(d.events, "deadline +"+t.Sub(d.now()).Round(time.Second).String())
	return nil
}

func (d *deadlineRecorder) WriteHeader(code int) {
	d.events = append(d.events, "header "+strconv.Itoa(code))
	d.ResponseRecorder.WriteHeader(code)
}

func (d *deadlineRecorder) Write(b []byte) (int, error) {
	d.events = append(d.events, "write "+strconv.Itoa(len(b)))
	return d.ResponseRecorder.Write(b)
}

func (d *deadlineRecorder) FlushError() error {
	d.events = append(d.events, "flush")
	return nil
}

// TestWriteDeadlinesSet checks the deadline set before the steps of an
// answer: base at the start, base plus the bytes at the rate before a
// write, each only when it moves the deadline by a tenth of base or more;
// and that a server sets them, unless its WriteTimeout is negative.
func TestWriteDeadlinesSet(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.Write(make([]byte, 3000))
		http.NewResponseController(w).Flush()
		w.Write(make([]byte, 1000))
	})
	rec := &deadlineRecorder{ResponseRecorder: *httptest.NewRecorder(), now: time.Now}
	writeDeadlines(handler, 10*time.Second, 1000, nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	// The header, the flush and the second write need no later deadline
	// than the one already set (less than a second, a tenth of the base,
	// would be gained).
	want := "deadline +10s, header 200, deadline +13s, write 3000, flush, write 1000"
	if got := strings.Join(rec.events, ", "); got != want {
		t.Errorf("events\n %s\nwant\n %s", got, want)
	}

	// A writer that takes no deadline (here a recorder) reaches the
	// handler as it is.
	plain := httptest.NewRecorder()
	writeDeadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if w != http.ResponseWriter(plain) {
			t.Errorf("a writer without deadlines reached the handler as %T", w)
		}
	}), 10*time.Second, 1000, nil).ServeHTTP(plain, httptest.NewRequest(http.MethodGet, "/", nil))

	// Time passing moves the deadline once it gains a tenth of the base.
	for _, tc := range []struct {
		pause time.Duration
		want  int
	}{{0, 1}, {50 * time.Millisecond, 2}} {
		rec := &deadlineRecorder{ResponseRecorder: *httptest.NewRecorder(), now: time.Now}
		writeDeadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(tc.pause)
			w.Write([]byte("x"))
		}), 100*time.Millisecond, 1<<20, nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if got := strings.Count(strings.Join(rec.events, ","), "deadline"); got != tc.want {
			t.Errorf("a write %v after the start: %d deadlines set, want %d (%v)", tc.pause, got, tc.want, rec.events)
		}
	}

	st, err := store.New(emptyWorld())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		timeout time.Duration
		want    bool
	}{{0, true}, {time.Second, true}, {-1, false}} {
		rec := &deadlineRecorder{ResponseRecorder: *httptest.NewRecorder(), now: time.Now}
		New(Config{WriteTimeout: tc.timeout}, st).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/nowhere", nil))
		if got := strings.Contains(strings.Join(rec.events, ", "), "deadline"); got != tc.want {
			t.Errorf("WriteTimeout %v: deadlines set %v, want %v (%v)", tc.timeout, got, tc.want, rec.events)
		}
	}
}

// TestWriteDeadlineKeptForTheConnection checks answers on one HTTP/1
// connection of HTTPServer's leave the deadline the last one set when it is
// within a tenth of base of their own, and set it when it is further,
// before (a connection left idle) or after (a long answer's, carried
// over); an answer of HTTP/2, or on a connection without one, sets its own.
func TestWriteDeadlineKeptForTheConnection(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.WriteHeader(200)
		w.Write(make([]byte, n))
	})
	h := writeDeadlines(handler, 10*time.Second, 1000, nil)
	ctx := emptyHTTPServer(t).ConnContext(context.Background(), nil)
	conn, ok := ctx.Value(connDeadlineKey{}).(*connDeadline)
	if !ok {
		t.Fatal("HTTPServer's connections carry no deadline")
	}
	answer := func(target string, proto int, ctx context.Context) string {
		rec := &deadlineRecorder{ResponseRecorder: *httptest.NewRecorder(), now: time.Now}
		req := httptest.NewRequest(http.MethodGet, target, nil).WithContext(ctx)
		req.ProtoMajor = proto
		h.ServeHTTP(rec, req)
		return strings.Join(rec.events, ", ")
	}
	steps := []struct {
		name, target string
		proto        int
		ctx          context.Context
		before       func() // what happened to the connection before the answer
		want         string
	}{
		{"the first answer", "/?n=10", 1, ctx, nil, "deadline +10s, header 200, write 10"},
		{"the next at once", "/?n=10", 1, ctx, nil, "header 200, write 10"},
		{"a longer one", "/?n=5000", 1, ctx, nil, "header 200, deadline +15s, write 5000"},
		{"one after the longer", "/?n=10", 1, ctx, nil, "deadline +10s, header 200, write 10"},
		{"after a pause", "/?n=10", 1, ctx, func() { conn.at = conn.at.Add(-2 * time.Second) }, "deadline +10s, header 200, write 10"},
		{"a pause within a tenth", "/?n=10", 1, ctx, func() { conn.at = conn.at.Add(-500 * time.Millisecond) }, "header 200, write 10"},
		{"HTTP/2", "/?n=10", 2, ctx, nil, "deadline +10s, header 200, write 10"},
		{"no connection's deadline", "/?n=10", 1, context.Background(), nil, "deadline +10s, header 200, write 10"},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		if got := answer(s.target, s.proto, s.ctx); got != s.want {
			t.Errorf("%s: %s, want %s", s.name, got, s.want)
		}
	}
}

// emptyHTTPServer returns the http.Server of a server of an empty world.
func emptyHTTPServer(t *testing.T) *http.Server {
	t.Helper()
	st, err := store.New(emptyWorld())
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{}, st).HTTPServer()
}

// TestReclaimer checks the memory of dropped answers is handed back once
// after a burst of drops, delay after the last; during a stream of drops
// at the latest about maxDelay after the first; and again after a later
// burst.
func TestReclaimer(t *testing.T) {
	t.Parallel()
	const delay, maxDelay = 100 * time.Millisecond, 400 * time.Millisecond
	frees := make(chan time.Time, 100)
	r := &reclaimer{delay: delay, maxDelay: maxDelay, free: func() { frees <- time.Now() }}
	wait := func(what string, within time.Duration) time.Time {
		t.Helper()
		select {
		case at := <-frees:
			return at
		case <-time.After(within):
			t.Fatalf("%s: no free within %v", what, within)
			return time.Time{}
		}
	}
	none := func(what string, d time.Duration) {
		t.Helper()
		select {
		case <-frees:
			t.Fatalf("%s: a free, want none", what)
		case <-time.After(d):
		}
	}

	// A burst: one free, delay after the drops.
	for range 5 {
		r.dropped()
	}
	last := time.Now()
	at := wait("a burst", 5*time.Second)
	if at.Sub(last) < delay*9/10 {
		t.Errorf("freed %v after a burst of drops, want after %v", at.Sub(last), delay)
	}
	none("after the burst", 3*delay)

	// A drop before the free puts it off: delay after the later drop.
	first := time.Now()
	r.dropped()
	time.Sleep(delay / 2)
	r.dropped()
	second := time.Now()
	at = wait("two drops", 5*time.Second)
	if second.Sub(first) < delay*8/10 { // else the machine was too slow to tell
		if at.Sub(second) < delay*9/10 {
			t.Errorf("freed %v after a second drop, want after %v: the second drop did not put the free off", at.Sub(second), delay)
		}
	}
	none("after the two drops", 3*delay)

	// A stream of drops closer than delay: freed by maxDelay (plus the
	// delay pending), not put off for ever.
	stop := time.After(4 * maxDelay)
	var got []time.Time
	var firstDrop, lastDrop time.Time
	var widestGap time.Duration // between two drops: the stream's premise is drops closer than delay
stream:
	for {
		select {
		case <-stop:
			break stream
		case at := <-frees:
			got = append(got, at)
		case <-time.After(delay / 4):
			now := time.Now()
			if firstDrop.IsZero() {
				firstDrop = now
			} else {
				widestGap = max(widestGap, now.Sub(lastDrop))
			}
			lastDrop = now
			r.dropped()
		}
	}
	if len(got) == 0 {
		t.Fatalf("a stream of drops for %v: no free, want one by maxDelay (%v): the stream put it off for ever", 4*maxDelay, maxDelay)
	}
	// How soon: within maxDelay of the first drop, with a delay's slack,
	// unless the machine was too slow to keep the drops closer than half
	// a delay (then the test cannot tell a late timer from a late drop).
	if bound := maxDelay + 2*delay; widestGap < delay/2 && got[0].Sub(firstDrop) > bound {
		t.Errorf("a stream of drops for %v: the first free %v after the first drop, want within %v (frees at %v)", 4*maxDelay, got[0].Sub(firstDrop), bound, got)
	}
	// The last drop is followed by a free: one still to come, or (on a
	// slow machine, where the stream's end and a free due to maxDelay can
	// meet) one the stream already received after it.
	if len(got) == 0 || got[len(got)-1].Before(lastDrop) {
		wait("the end of the stream", 5*time.Second)
	}
}

// failingWriter fails every write when fail is set. Like a connection's
// writer, it takes write deadlines.
type failingWriter struct {
	httptest.ResponseRecorder
	fail bool
}

func (f *failingWriter) SetWriteDeadline(time.Time) error { return nil }

func (f *failingWriter) Write(b []byte) (int, error) {
	if f.fail {
		return 0, errors.New("i/o timeout")
	}
	return len(b), nil
}

// TestFailedBigWritesAreReclaimed checks which writes count as a dropped
// answer whose memory is handed back: a failed one of at least
// reclaimMinBytes, and no other.
func TestFailedBigWritesAreReclaimed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		fail bool
		want bool
	}{
		{"a failed big write", reclaimMinBytes, true, true},
		{"a failed small write", reclaimMinBytes - 1, true, false},
		{"a big write", 4 * reclaimMinBytes, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			freed := make(chan struct{}, 1)
			rc := &reclaimer{delay: time.Millisecond, maxDelay: time.Millisecond, free: func() { freed <- struct{}{} }}
			h := writeDeadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write(make([]byte, tc.n))
			}), time.Second, 1<<20, rc)
			h.ServeHTTP(&failingWriter{ResponseRecorder: *httptest.NewRecorder(), fail: tc.fail}, httptest.NewRequest(http.MethodGet, "/", nil))
			select {
			case <-freed:
				if !tc.want {
					t.Error("memory handed back, want not")
				}
			case <-time.After(500 * time.Millisecond):
				if tc.want {
					t.Error("memory not handed back")
				}
			}
		})
	}
}

// TestExportedLimits checks LimitHeaders and WriteDeadlines wrap a handler
// as Server does.
func TestExportedLimits(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("X-Pad", strings.Repeat("p", 200))
	rec := httptest.NewRecorder()
	LimitHeaders(ok, 100).ServeHTTP(rec, r)
	if rec.Code != http.StatusRequestHeaderFieldsTooLarge || validateCached("Error", rec.Body.Bytes()) != nil {
		t.Errorf("LimitHeaders: status %d, body %s; want a 431 error body", rec.Code, rec.Body)
	}
	dr := &deadlineRecorder{ResponseRecorder: *httptest.NewRecorder(), now: time.Now}
	WriteDeadlines(ok, 5*time.Second, 1).ServeHTTP(dr, r)
	if got := strings.Join(dr.events, ", "); got != "deadline +5s, deadline +7s, write 2" { // 2 s more: moved
		t.Errorf("WriteDeadlines: events %s", got)
	}
}
