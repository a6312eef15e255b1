package proxy_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/deployment/proxy"
)

// prompt bounds how long a request through the proxy may take while its
// checkers are blocked. Forwarding that waited for a checker would never
// finish; an answer within the bound is prompt on any machine.
const prompt = 10 * time.Second

// blockedProxy starts a proxy in front of up whose checkers block until the
// test ends (or release is called): each reports on started as it takes a
// check, then waits. returned receives a value each time the proxy's
// ServeHTTP returns, so a test knows the request path is free.
type blockedProxy struct {
	p        *proxy.Proxy
	srv      *httptest.Server
	started  chan struct{}
	returned chan struct{}
	release  func()
}

func startBlockedProxy(t *testing.T, up string, cfg proxy.Config) *blockedProxy {
	t.Helper()
	u, err := url.Parse(up)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Upstream = u
	bp := &blockedProxy{started: make(chan struct{}, 1024), returned: make(chan struct{}, 1024)}
	gate := make(chan struct{})
	var once sync.Once
	bp.release = func() { once.Do(func() { close(gate) }) }
	bp.p = proxy.NewWithCheckHook(cfg, func() {
		bp.started <- struct{}{}
		<-gate
	})
	bp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bp.p.ServeHTTP(w, r)
		bp.returned <- struct{}{}
	}))
	// Released before the server closes: Close waits for the handlers.
	t.Cleanup(bp.srv.Close)
	t.Cleanup(bp.release)
	return bp
}

// await receives n values from ch, or fails the test after prompt.
func await(t *testing.T, ch <-chan struct{}, n int, what string) {
	t.Helper()
	timeout := time.After(prompt)
	for i := 0; i < n; i++ {
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("%d of %d %s within %v", i, n, what, prompt)
		}
	}
}

// TestProxyForwardsWhileCheckersBlocked holds every checker in a check and
// sends requests through the proxy: each gets the upstream's whole body,
// byte for byte, and each handler returns, while the checkers are still
// held; the responses that find the queue full are counted as busy, the
// queue never holds more than its bounds, and once the checkers are
// released every queued response is checked.
func TestProxyForwardsWhileCheckersBlocked(t *testing.T) {
	const q = "/transactions?first=30"
	up := upstream(t, nil)
	want := get(t, up.URL+q)
	size := int64(len(want.body))
	tests := []struct {
		name       string
		cfg        proxy.Config
		requests   int
		concurrent bool
		wantQueued int // responses waiting when the requests are done
	}{
		{name: "sequential, one connection", cfg: proxy.Config{Checkers: 2, CheckQueue: 3}, requests: 9, wantQueued: 3},
		{name: "concurrent clients", cfg: proxy.Config{Checkers: 2, CheckQueue: 3}, requests: 24, concurrent: true, wantQueued: 3},
		{name: "queue bounded by bytes", cfg: proxy.Config{Checkers: 1, CheckQueue: 100, CheckQueueBytes: 2*size + size/2}, requests: 8, wantQueued: 2},
		{name: "room for all", cfg: proxy.Config{Checkers: 2, CheckQueue: 10}, requests: 6, wantQueued: 4},
		{name: "fewer than the checkers", cfg: proxy.Config{Checkers: 4, CheckQueue: 1}, requests: 3, wantQueued: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bp := startBlockedProxy(t, up.URL, tc.cfg)
			client := &http.Client{Timeout: prompt, Transport: &http.Transport{MaxIdleConnsPerHost: tc.requests}}
			t.Cleanup(client.CloseIdleConnections)
			fetch := func() error {
				resp, err := client.Get(bp.srv.URL + q)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					return fmt.Errorf("read the body: %w", err)
				}
				if resp.StatusCode != want.status || !bytes.Equal(body, want.body) {
					return fmt.Errorf("status %d and %d bytes, want the upstream's %d and %d bytes", resp.StatusCode, len(body), want.status, len(want.body))
				}
				return nil
			}
			errs := make(chan error, tc.requests)
			var wg sync.WaitGroup
			for i := 0; i < tc.requests; i++ {
				if !tc.concurrent {
					if err := fetch(); err != nil {
						t.Fatalf("request %d with the checkers blocked: %v", i+1, err)
					}
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- fetch()
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("a request with the checkers blocked: %v", err)
				}
			}
			await(t, bp.returned, tc.requests, "handlers returned while the checkers were blocked")
			running := min(tc.cfg.Checkers, tc.requests)
			await(t, bp.started, running, "checkers started")

			m := bp.p.Metrics()
			wantBusy := int64(tc.requests - running - tc.wantQueued)
			pool := m.CheckPool
			if got := m.Unchecked[proxy.UncheckedBusy]; got != wantBusy {
				t.Errorf("busy %d, want %d (unchecked %v)", got, wantBusy, m.Unchecked)
			}
			if got := m.Listings["transactions"].UncheckedReasons[proxy.UncheckedBusy]; got != wantBusy {
				t.Errorf("busy on the listing %d, want %d", got, wantBusy)
			}
			if pool.Running != running || pool.Queued != tc.wantQueued || pool.QueuedPeak != tc.wantQueued {
				t.Errorf("running %d, queued %d (peak %d); want %d, %d", pool.Running, pool.Queued, pool.QueuedPeak, running, tc.wantQueued)
			}
			if pool.Queued > pool.QueueSize || pool.QueuedBytesPeak > pool.QueueBytes || pool.QueuedBytes != int64(tc.wantQueued)*size {
				t.Errorf("queue %d of %d, %d bytes (peak %d) of %d; want %d bytes", pool.Queued, pool.QueueSize,
					pool.QueuedBytes, pool.QueuedBytesPeak, pool.QueueBytes, int64(tc.wantQueued)*size)
			}
			if m.Checked != 0 {
				t.Errorf("checked %d with the checkers blocked", m.Checked)
			}

			bp.release()
			if open := bp.p.Wait(prompt); open != 0 {
				t.Fatalf("%d checks still open after the release", open)
			}
			m = bp.p.Metrics()
			if wantChecked := int64(tc.requests) - wantBusy; m.Checked != wantChecked || m.Violations != 0 {
				t.Errorf("after the release: checked %d, violations %d; want %d and 0", m.Checked, m.Violations, wantChecked)
			}
			if m.CheckPool.Queued != 0 || m.CheckPool.QueuedBytes != 0 {
				t.Errorf("after the release the queue holds %d responses, %d bytes", m.CheckPool.Queued, m.CheckPool.QueuedBytes)
			}
			lm := m.Listings["transactions"]
			if lm.Requests != lm.Checked+lm.Unchecked {
				t.Errorf("requests %d, checked %d + unchecked %d", lm.Requests, lm.Checked, lm.Unchecked)
			}
		})
	}
}

// TestProxyCheckSample: of N listing requests, ceil(N·F) are checked and
// the rest counted as sampled-out, in the JSON and Prometheus metrics.
func TestProxyCheckSample(t *testing.T) {
	up := upstream(t, nil)
	const n = 12
	tests := []struct {
		sample      float64
		wantChecked int64
	}{
		{0, n}, // the default: all
		{1, n},
		{0.5, 6},
		{0.25, 3},
		{0.1, 2},
		{1.0 / 3, 4},
		{0.999, 12},
		{1e-9, 1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.sample), func(t *testing.T) {
			px, logs := startProxy(t, up.URL, proxy.Config{CheckSample: tc.sample})
			for i := 0; i < n; i++ {
				q := fmt.Sprintf("/api/v2/snapshots?pagination.first=%d", i+1)
				sameAnswer(t, get(t, px.URL+q), get(t, up.URL+q))
			}
			get(t, px.URL+"/api/v2/unknown") // not a listing: neither
			m := metrics(t, px.URL)
			wantOut := n - tc.wantChecked
			if m.Checked != tc.wantChecked || m.Unchecked[proxy.UncheckedSampledOut] != wantOut {
				t.Errorf("checked %d, unchecked %v; want %d checked, %d sampled-out", m.Checked, m.Unchecked, tc.wantChecked, wantOut)
			}
			if lm := m.Listings["snapshots"]; lm.Requests != n || lm.Unchecked != wantOut || lm.UncheckedReasons[proxy.UncheckedSampledOut] != wantOut || lm.Statuses[200] != n {
				t.Errorf("listing: %+v", lm)
			}
			wantSample := tc.sample
			if wantSample == 0 {
				wantSample = 1
			}
			if m.CheckPool.Sample != wantSample {
				t.Errorf("sample %v, want %v", m.CheckPool.Sample, wantSample)
			}
			if strings.Contains(logs.String(), "sampled-out") {
				t.Errorf("a sampled-out response logged at level INFO:\n%s", logs)
			}
			prom := string(get(t, px.URL+proxy.MetricsPath+"?format=prometheus").body)
			for _, line := range []string{
				fmt.Sprintf("harness_proxy_checked_total{listing=\"snapshots\"} %d\n", tc.wantChecked),
				fmt.Sprintf("harness_proxy_check_sample_ratio %v\n", wantSample),
			} {
				if !strings.Contains(prom, line) {
					t.Errorf("no %q in:\n%s", line, prom)
				}
			}
			if wantOut > 0 {
				for _, line := range []string{
					fmt.Sprintf("harness_proxy_unchecked_total{reason=\"sampled-out\"} %d\n", wantOut),
					fmt.Sprintf("harness_proxy_listing_unchecked_total{listing=\"snapshots\",reason=\"sampled-out\"} %d\n", wantOut),
				} {
					if !strings.Contains(prom, line) {
						t.Errorf("no %q in:\n%s", line, prom)
					}
				}
			}
		})
	}
}

// TestProxySampleSequence: the sampler is a counter, so which requests are
// checked is the same in every run: the first, then spread evenly, and
// ceil(N·F) of the first N for every N.
func TestProxySampleSequence(t *testing.T) {
	tests := []struct {
		sample float64
		want   string // x: checked, .: sampled out
	}{
		{1, "xxxxxxxxxx"},
		{0.5, "x.x.x.x.x."},
		{0.25, "x...x...x."},
		{0.6, "xx.x.xx.x."},
		{0.1, "x.........x"},
		{1e-12, "x........."}, // rounded up to a billionth: never none
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.sample), func(t *testing.T) {
			var got strings.Builder
			for _, checked := range proxy.Sampled(tc.sample, len(tc.want)) {
				got.WriteByte(map[bool]byte{true: 'x', false: '.'}[checked])
			}
			if got.String() != tc.want {
				t.Errorf("got %s, want %s", got.String(), tc.want)
			}
		})
	}
	for _, f := range []float64{0.001, 0.07, 0.3, 0.5, 0.123456789, 0.999999999} {
		seq := proxy.Sampled(f, 5000)
		checked := 0
		for i, c := range seq {
			if c {
				checked++
			}
			// F is a whole number of billionths here, so the count is exact.
			rate := int64(math.Round(f * 1e9))
			if want := (int64(i+1)*rate + 1e9 - 1) / 1e9; int64(checked) != want {
				t.Fatalf("F=%v: %d of the first %d checked, want %d", f, checked, i+1, want)
			}
		}
		if !reflect.DeepEqual(seq, proxy.Sampled(f, 5000)) {
			t.Errorf("F=%v: two samplers chose differently", f)
		}
	}
}

func TestProxyConfigValidate(t *testing.T) {
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:1"}
	tests := []struct {
		name string
		cfg  proxy.Config
		want string // "" for valid
	}{
		{"defaults", proxy.Config{Upstream: u}, ""},
		{"whole sample", proxy.Config{Upstream: u, CheckSample: 1}, ""},
		{"small sample", proxy.Config{Upstream: u, CheckSample: 1e-6}, ""},
		{"no upstream", proxy.Config{}, "Upstream is nil"},
		{"negative sample", proxy.Config{Upstream: u, CheckSample: -0.5}, "CheckSample -0.5"},
		{"sample above 1", proxy.Config{Upstream: u, CheckSample: 1.5}, "CheckSample 1.5"},
		{"NaN sample", proxy.Config{Upstream: u, CheckSample: math.NaN()}, "CheckSample NaN"},
		{"CPU share", proxy.Config{Upstream: u, CheckCPU: 0.5}, ""},
		{"negative CPU share", proxy.Config{Upstream: u, CheckCPU: -1}, "CheckCPU -1"},
		{"CPU share above 1", proxy.Config{Upstream: u, CheckCPU: 1.1}, "CheckCPU 1.1"},
		{"NaN CPU share", proxy.Config{Upstream: u, CheckCPU: math.NaN()}, "CheckCPU NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}
