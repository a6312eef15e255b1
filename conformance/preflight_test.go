package conformance

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/txrules"
)

// closedPort returns the URL of a port of 127.0.0.1 nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// neverAnswers returns the URL of a server that accepts connections and
// never answers a byte.
func neverAnswers(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// endless writes a JSON-looking body that never ends, until the client
// goes.
func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"x":"`)
	chunk := []byte(strings.Repeat("a", 64<<10))
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// routes answers each path (without query) with its handler, and any other
// with 404.
func routes(t *testing.T, m map[string]http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := m[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// answer is a handler giving a fixed answer.
func answer(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

const (
	paramsPage = `{"networkParameters":{"edges":[],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"","endCursor":""}}}`
	txPage     = `{"transactions":[]}`
)

func TestPreflight(t *testing.T) {
	ok := answer(200, "application/json", paramsPage)
	tests := []struct {
		name string
		// base returns the base URL; tx, when set, the transactions URL.
		base, tx func(t *testing.T) string
		// withTx says whether a transactions rule is selected.
		withTx bool
		cfg    config.Config
		// want is a part of the one-line problem; "" means none.
		want string
		// within bounds how long the preflight may take.
		within time.Duration
	}{
		{name: "closed port", base: closedPort, want: "cannot connect to 127.0.0.1:", within: 2 * time.Second},
		{name: "closed port of the transactions URL", withTx: true,
			base: func(t *testing.T) string {
				return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: ok})
			},
			tx: closedPort, want: "(--transactions-url http://127.0.0.1:", within: 2 * time.Second},
		{name: "never answers", base: neverAnswers, cfg: config.Config{Timeout: 300 * time.Millisecond},
			want: "within 300ms (--timeout)", within: 2 * time.Second},
		{name: "never answers, run deadline first", base: neverAnswers, cfg: config.Config{Timeout: 10 * time.Second, RunTimeout: 300 * time.Millisecond},
			want: "the run deadline passed (--run-timeout 300ms) before --base-url", within: 2 * time.Second},
		{name: "name does not resolve", base: func(*testing.T) string { return "http://no-such-host.invalid" }, want: "cannot resolve the host no-such-host.invalid"},
		{name: "404 at the root", base: func(t *testing.T) string { return routes(t, nil) },
			want: "answered HTTP 404: the path looks wrong; if the deployment serves the API under a path prefix, add it to --base-url"},
		{name: "404 under a prefix the API lacks",
			base: func(t *testing.T) string {
				return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: ok}) + "/gateway"
			},
			want: "the listing answers at http://127.0.0.1:"},
		{name: "404 under a prefix, and at the root",
			base: func(t *testing.T) string { return routes(t, nil) + "/gateway/" },
			want: "has the path prefix /gateway: check it"},
		{name: "not JSON", base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: answer(200, "text/html", "<!DOCTYPE html>\n<html>Welcome</html>")})
		}, want: `answered HTTP 200 with a body that is not JSON (Content-Type "text/html", body: <!DOCTYPE html> <html>Welcome</html>)`},
		{name: "an error page that is not JSON", base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: answer(502, "text/html", "<html>Bad Gateway</html>")})
		}, want: "answered HTTP 502 with a body that is not JSON"},
		{name: "endless body", base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: endless})
		}, want: fmt.Sprintf("with a body larger than %d MiB", client.MaxBody>>20)},
		{name: "https:// to a plain HTTP server", base: func(t *testing.T) string {
			plain := routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: ok})
			return "https://" + strings.TrimPrefix(plain, "http://")
		}, want: "over HTTPS (--base-url https://127.0.0.1:"},
		{name: "https:// to a plain HTTP server says what to use", base: func(t *testing.T) string {
			plain := routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: ok})
			return "https://" + strings.TrimPrefix(plain, "http://")
		}, want: "): the server speaks plain HTTP: use http://127.0.0.1:"},
		{name: "wants credentials", base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: answer(401, "application/json", `{"code":16,"message":"no key"}`)})
		}, want: "answered HTTP 401: the deployment wants credentials"},
		{name: "transactions elsewhere", withTx: true, base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: ok})
		}, want: "the transactions listing is not under --base-url; give the block explorer's address with --transactions-url"},
		{name: "transactions URL with a wrong path", withTx: true,
			base: func(t *testing.T) string {
				return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: ok})
			},
			tx:   func(t *testing.T) string { return routes(t, nil) + "/rest" },
			want: "--transactions-url http://127.0.0.1:"},
		{name: "transactions not selected", base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: ok})
		}},
		{name: "a deployment", withTx: true, base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: ok, txrules.TransactionsPath: answer(200, "application/json", txPage)})
		}},
		{name: "a JSON error passes: the rules judge it", withTx: true, base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{
				paging.ParametersListing.Path: answer(500, "application/json", `{"code":13,"message":"internal"}`),
				txrules.TransactionsPath:      answer(200, "application/json", txPage)})
		}},
		{name: "refused after the retries passes: the rate-limit rule judges it", cfg: config.Config{Retries: -1}, base: func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: answer(429, "text/plain", "slow down")})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.BaseURL = tc.base(t)
			if tc.tx != nil {
				cfg.TransactionsURL = tc.tx(t)
			}
			useTraffic(t, cfg)
			start := time.Now()
			err := preflight(cfg, tc.withTx)
			elapsed := time.Since(start)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("preflight: %v, want none", err)
				}
				return
			}
			t.Log(err)
			var pe *PreflightError
			if !errors.As(err, &pe) {
				t.Fatalf("preflight: %v, want a *PreflightError naming %q", err, tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("preflight says %q, want one line with %q", msg, tc.want)
			}
			if tc.within > 0 && elapsed > tc.within {
				t.Errorf("the preflight took %s, want at most %s", elapsed, tc.within)
			}
		})
	}
}

// TestPreflightAsksLittle: the preflight asks one request of each URL, and
// one more only after a 404 under a path.
func TestPreflightAsksLittle(t *testing.T) {
	tests := []struct {
		name, prefix string
		withTx       bool
		want         int
	}{
		{"base URL", "", false, 1},
		{"base and transactions URLs", "", true, 2},
		{"a 404 under a path", "/gw", false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, r.URL.String())
				mu.Unlock()
				if strings.HasPrefix(r.URL.Path, "/gw/") {
					http.NotFound(w, r)
					return
				}
				io.WriteString(w, paramsPage)
			}))
			defer srv.Close()
			cfg := config.Config{BaseURL: srv.URL + tc.prefix}
			useTraffic(t, cfg)
			preflight(cfg, tc.withTx)
			if len(seen) != tc.want {
				t.Errorf("the preflight asked %v, want %d requests", seen, tc.want)
			}
		})
	}
}
