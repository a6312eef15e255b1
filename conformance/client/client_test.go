package client

import (
	"fmt"
	"github.com/chaindata/harness/conformance/config"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The tests of this file configure the process-wide traffic state, so none
// of them runs in parallel.

const secret = "s3cr3t-api-key-value"

// useTraffic configures the run's traffic for cfg and returns a client.
func useTraffic(t *testing.T, cfg config.Config) *Client {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ConfigureTraffic(cfg)
	t.Cleanup(func() { ConfigureTraffic(config.Config{BaseURL: "http://127.0.0.1"}) })
	return NewClient(cfg)
}

func TestHeadersAreSentAndNeverShown(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("X-Api-Key") + "|" + r.Host)
		http.Error(w, `{"code":3,"message":"no"}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	c := useTraffic(t, config.Config{BaseURL: srv.URL, Headers: []string{"X-Api-Key: " + secret, "Host: api.example"}})
	ex := c.Get(srv.URL, "/api/v2/games", url.Values{"pagination.first": {"50"}})
	if got.Load() != secret+"|api.example" {
		t.Errorf("the server got X-Api-Key|Host %q, want the configured values", got.Load())
	}
	for _, text := range []string{ex.Curl(), ex.Describe(), CountHint(ex), ex.URL} {
		if strings.Contains(text, secret) {
			t.Errorf("the secret is printed: %s", text)
		}
	}
	if want := `-H 'X-Api-Key: <redacted>' -H 'Host: <redacted>' '` + srv.URL; !strings.Contains(ex.Curl(), want) {
		t.Errorf("curl() = %s, want it to hold %s", ex.Curl(), want)
	}
	if f := config.HeaderFlag(&[]string{"X-Api-Key: " + secret}); strings.Contains(f.String(), secret) {
		t.Errorf("the --header flag prints %q", f.String())
	}
	cfg := config.Config{BaseURL: srv.URL, Headers: []string{"X-Api-Key: " + secret}}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(format, cfg); strings.Contains(s, secret) || !strings.Contains(s, "X-Api-Key: <redacted>") {
			t.Errorf("fmt %s of a Config prints %s", format, s)
		}
	}
}

func TestHeadersDoNotFollowARedirectToAnotherHost(t *testing.T) {
	var got atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store("key=" + r.Header.Get("X-Api-Key"))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.RedirectHandler(other.URL+"/elsewhere", http.StatusFound))
	defer srv.Close()
	c := useTraffic(t, config.Config{BaseURL: srv.URL, Headers: []string{"X-Api-Key: " + secret}})
	ex := c.Get(srv.URL, "/api/v2/games", nil)
	if ex.Status != http.StatusOK || got.Load() != "key=" {
		t.Errorf("after a redirect to another host: status %d, the other host got %q; want 200 and no key", ex.Status, got.Load())
	}
}

// flaky answers status to the first n requests, then 200.
func flaky(n int, status int, retryAfter string) (http.Handler, *atomic.Int32) {
	var seen atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if int(seen.Add(1)) <= n {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			http.Error(w, "slow down", status)
			return
		}
		io.WriteString(w, `{}`)
	}), &seen
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name       string
		refusals   int
		status     int
		retryAfter string
		retries    int
		// want
		status2  int
		refused  bool
		requests int
		minWait  time.Duration
	}{
		{"429 then 200", 2, 429, "0", 0, 200, false, 3, 0},
		{"503 with Retry-After 1", 1, 503, "1", 0, 200, false, 2, time.Second},
		{"503 without Retry-After backs off", 2, 503, "", 0, 200, false, 3, 1500 * time.Millisecond},
		{"still 429 after the last retry", 10, 429, "0", 2, 429, true, 3, 0},
		{"retries off", 10, 429, "0", -1, 429, true, 1, 0},
		{"Retry-After beyond the cap", 10, 429, "3600", 0, 429, true, 1, 0},
		{"500 is not retried", 1, 500, "0", 0, 500, false, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, seen := flaky(tc.refusals, tc.status, tc.retryAfter)
			srv := httptest.NewServer(h)
			defer srv.Close()
			c := useTraffic(t, config.Config{BaseURL: srv.URL, Retries: tc.retries})
			start := time.Now()
			ex := c.Get(srv.URL, "/x", nil)
			took := time.Since(start)
			tr := CurrentTraffic()
			if ex.Status != tc.status2 || ex.Refused != tc.refused {
				t.Errorf("status %d refused %v, want %d %v", ex.Status, ex.Refused, tc.status2, tc.refused)
			}
			if int(seen.Load()) != tc.requests || tr.Requests != tc.requests || tr.Retries != tc.requests-1 || ex.retries != tc.requests-1 {
				t.Errorf("server saw %d requests, traffic %+v, exchange retries %d; want %d requests", seen.Load(), tr, ex.retries, tc.requests)
			}
			if tr.RetryWait < tc.minWait || took < tc.minWait {
				t.Errorf("waited %s (counted %s), want at least %s", took, tr.RetryWait, tc.minWait)
			}
			wantRefused := 0
			if tc.refused {
				wantRefused = 1
			}
			if tr.Refused != wantRefused || len(tr.RefusedURLs) != wantRefused || (tc.refused && tr.RefusedURLs[0] != srv.URL+"/x") {
				t.Errorf("traffic %+v, want %d refused", tr, wantRefused)
			}
			if tc.refused && !strings.Contains(ex.Describe(), "still refused") {
				t.Errorf("describe() does not say the exchange was refused:\n%s", ex.Describe())
			}
		})
	}
}

func TestRetryWait(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		retryAfter string
		attempt    int
		want       time.Duration
		ok         bool
	}{
		{"delta seconds", "3", 0, 3 * time.Second, true},
		{"zero", "0", 4, 0, true},
		{"negative", "-5", 0, 0, true},
		{"HTTP date", now.Add(7 * time.Second).Format(http.TimeFormat), 0, 7 * time.Second, true},
		{"HTTP date in the past", now.Add(-time.Hour).Format(http.TimeFormat), 0, 0, true},
		{"at the cap", "60", 0, MaxRetryWait, true},
		{"above the cap", "61", 0, 0, false},
		{"HTTP date above the cap", now.Add(time.Hour).Format(http.TimeFormat), 0, 0, false},
		{"absent: first backoff", "", 0, 500 * time.Millisecond, true},
		{"absent: third backoff", "", 2, 2 * time.Second, true},
		{"absent: capped backoff", "", 30, maxBackoff, true},
		{"unreadable: backoff", "soon", 1, time.Second, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.retryAfter != "" {
				h.Set("Retry-After", tc.retryAfter)
			}
			got, ok := retryWait(h, tc.attempt, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("retryWait(%q, %d) = %s, %v; want %s, %v", tc.retryAfter, tc.attempt, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestGetAllKeepsOrderAndBoundsConcurrency(t *testing.T) {
	var inFlight, most atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		io.WriteString(w, r.URL.Query().Get("i"))
	}))
	defer srv.Close()
	c := useTraffic(t, config.Config{BaseURL: srv.URL, Concurrency: 3})
	var reqs []Request
	for i := range 12 {
		reqs = append(reqs, Request{Base: srv.URL, Path: "/x", Query: url.Values{"i": {strconv.Itoa(i)}}})
	}
	// A second client at the same time: the bound is the run's, not the
	// client's.
	var wg sync.WaitGroup
	wg.Go(func() { NewClient(config.Config{BaseURL: srv.URL, Concurrency: 3}).GetAll(reqs) })
	out := c.GetAll(reqs)
	wg.Wait()
	for i, ex := range out {
		if string(ex.Body) != strconv.Itoa(i) {
			t.Errorf("result %d has body %q", i, ex.Body)
		}
	}
	if m := most.Load(); m != 3 {
		t.Errorf("at most %d requests were in flight, want 3 (the bound, reached)", m)
	}
	log := c.Exchanges()
	if len(log) != 12 || log[5] != out[5] {
		t.Errorf("the client remembers %d exchanges, want the 12 in request order", len(log))
	}
	if tr := CurrentTraffic(); tr.Requests != 24 {
		t.Errorf("traffic counts %d requests, want 24", tr.Requests)
	}
}

func TestRateLimitSpacesRequests(t *testing.T) {
	const rate = 40
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
	}))
	defer srv.Close()
	c := useTraffic(t, config.Config{BaseURL: srv.URL, Rate: rate, Concurrency: 4})
	reqs := make([]Request, 2*rate)
	for i := range reqs {
		reqs[i] = Request{Base: srv.URL, Path: "/x"}
	}
	start := time.Now()
	c.GetAll(reqs)
	took := time.Since(start)
	if worst := busiestSecond(arrivals); worst > rate {
		t.Errorf("%d requests arrived within one second, want at most %d", worst, rate)
	}
	// 80 requests spaced by 1/40 s take about 2 s.
	if took < 1900*time.Millisecond || took > 6*time.Second {
		t.Errorf("%d requests at %d/s took %s", len(reqs), rate, took)
	}
}

// busiestSecond is the most arrivals in any window [t, t+1s).
func busiestSecond(ts []time.Time) int {
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	most, j := 0, 0
	for i := range ts {
		for ts[i].Sub(ts[j]) >= time.Second {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

func TestCountHint(t *testing.T) {
	tests := []struct {
		name   string
		query  string
		status int
		want   string
	}{
		{"paged first refused", "pagination.first=50", 400, "the deployment refused pagination.first=50: if its largest page is smaller, lower --page-size"},
		{"paged last refused", "pagination.last=200&pagination.before=c", 422, "refused pagination.last=200"},
		{"transactions first", "first=1000", 400, "refused first=1000"},
		{"count 1", "pagination.first=1", 400, ""},
		{"accepted", "pagination.first=50", 200, ""},
		{"rate limited", "pagination.first=50", 429, ""},
		{"server error", "pagination.first=50", 500, ""},
		{"two counts", "first=5&last=5", 400, ""},
		{"no count", "gameId=x", 400, ""},
		{"not a number", "first=many", 400, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex := &Exchange{Method: http.MethodGet, URL: "http://h/api/v2/games?" + tc.query, Status: tc.status}
			got := CountHint(ex)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("countHint = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestObserverSeesEveryExchange checks SetObserver: the observer sees each
// exchange once, after its retries, whatever it brought; nil stops it.
func TestObserverSeesEveryExchange(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	c := useTraffic(t, config.Config{BaseURL: srv.URL, Retries: 2})
	var mu sync.Mutex
	var seen []string
	SetObserver(func(ex *Exchange) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%d %s", ex.Status, ex.Body))
	})
	t.Cleanup(func() { SetObserver(nil) })
	c.Get(srv.URL, "/a", nil)
	c.Fetch(http.MethodHead, srv.URL, "/b", nil)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	ex := c.Get(closed.URL, "/c", nil)
	SetObserver(nil)
	c.Get(srv.URL, "/d", nil)
	want := []string{`200 {"ok":true}`, "200 ", "0 "}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("the observer saw %q, want %q (the retried request once, after its retry; the HEAD; the failed request)", seen, want)
	}
	if ex.Err == nil {
		t.Errorf("a request to a closed server brought no error")
	}
}
