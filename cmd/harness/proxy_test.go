package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaindata/harness/deployment/proxy"
	"github.com/chaindata/harness/mockserver"
)

// TestProxyConformance runs the conformance suite through the proxy in
// front of the mock: the suite passes and the proxy finds no violation in
// any of the suite's requests, edge cases included. Mock and proxy are the
// built binary, as the suite is: checking a whole run's answers under the
// race detector took most of the package's time (the proxy's concurrency
// is deployment/proxy's tests' subject, under the detector).
func TestProxyConformance(t *testing.T) {
	t.Parallel()
	bin := mustHarnessBinary(t)
	mock, err := startProcess(bin, "serve", "--addr", "127.0.0.1:0", "--scale", "0.05", "--log-format", "none")
	if err != nil {
		t.Fatal(err)
	}
	defer mock.stop()
	base := mock.url
	proxied, err := startProcess(bin, "proxy", "--listen", "127.0.0.1:0", "--upstream", base, "--log-format", "none")
	if err != nil {
		t.Fatal(err)
	}
	px := proxied.url
	stop := func() (int, string) { return proxied.stop(), proxied.output() }
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()

	q := "/transactions?first=25"
	ws, want := fetchBody(t, base+q)
	gs, got := fetchBody(t, px+q)
	if gs != ws || !bytes.Equal(got, want) {
		t.Fatalf("proxied answer differs: %d %.100s, upstream %d %.100s", gs, got, ws, want)
	}

	buildHarness(t) // skipped with -short
	// The model rules on a small budget and the growth rules not waiting:
	// the test is that the proxy changes no verdict, not the suite's reach.
	code, report := runBinary(t, bin, 5*time.Minute, "conform", "--base-url", px, "--queries", "60", "--growth-wait", "100ms")
	if code != exitOK {
		t.Fatalf("conform through the proxy: exit %d\n%s", code, report)
	}
	_, body := fetchBody(t, px+proxy.MetricsPath)
	var m proxy.Metrics
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Violations != 0 || m.Checked < 100 {
		t.Errorf("checked %d responses, %d violations; want many and none: %s", m.Checked, m.Violations, body)
	}
	code, out := stop()
	stopped = true
	if code != exitOK || !strings.Contains(out, " 0 violations") {
		t.Errorf("proxy stopped with exit %d: %s", code, out)
	}
}

func TestProxyUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no upstream", []string{"proxy"}, "--upstream is required"},
		{"upstream without a scheme", []string{"proxy", "--upstream", "127.0.0.1:8080"}, "has no scheme; use http://127.0.0.1:8080"},
		{"upstream not http", []string{"proxy", "--upstream", "ftp://127.0.0.1:8080"}, "absolute http or https URL"},
		{"zero body cap", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--max-body-bytes", "0"}, "--max-body-bytes"},
		{"bad log format", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--log-format", "xml"}, "--log-format"},
		{"stray argument", []string{"proxy", "--upstream", "http://127.0.0.1:1", "extra"}, "unexpected argument"},
		{"bad header", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--header", "X-Api-Key=secret"}, "--header 1"},
		{"zero sample", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-sample", "0"}, "--check-sample must be above 0 and at most 1, got 0"},
		{"negative sample", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-sample", "-0.5"}, "--check-sample must be above 0 and at most 1, got -0.5"},
		{"sample above 1", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-sample", "1.01"}, "--check-sample must be above 0 and at most 1, got 1.01"},
		{"NaN sample", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-sample", "NaN"}, "--check-sample must be above 0 and at most 1, got NaN"},
		{"infinite sample", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-sample", "+Inf"}, "--check-sample must be above 0 and at most 1, got +Inf"},
		{"sample not a number", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-sample", "half"}, `--check-sample: "half" is not a number`},
		{"no checkers", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--checkers", "0"}, "--checkers must be at least 1, got 0"},
		{"negative checkers", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--checkers", "-2"}, "--checkers must be at least 1, got -2"},
		{"no queue", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-queue", "0"}, "--check-queue must be at least 1, got 0"},
		{"zero CPU share", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-cpu", "0"}, "--check-cpu must be above 0 and at most 1, got 0"},
		{"CPU share above 1", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-cpu", "2"}, "--check-cpu must be above 0 and at most 1, got 2"},
		{"NaN CPU share", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-cpu", "NaN"}, "--check-cpu must be above 0 and at most 1, got NaN"},
		{"no queue bytes", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--check-queue-bytes", "0"}, "--check-queue-bytes must be at least 1, got 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantUsageError(t, tc.args, tc.want)
		})
	}
}

func TestProxyCannotListen(t *testing.T) {
	code, _, errOut := runCmd(t, "proxy", "--upstream", "http://127.0.0.1:1", "--listen", "256.0.0.1:0")
	if code != exitFailure || !strings.Contains(errOut, "harness proxy:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestProxyHeaderPrecedence: --header replaces HARNESS_HEADERS.
func TestProxyHeaderPrecedence(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		header http.Header
	}{
		{"none", nil, nil, http.Header{}},
		{"environment", map[string]string{"HARNESS_HEADERS": "X-Api-Key: e\n\nX-Team: t\n"}, nil, http.Header{"X-Api-Key": {"e"}, "X-Team": {"t"}}},
		{"flags win", map[string]string{"HARNESS_HEADERS": "X-Api-Key: e"}, []string{"--header", "X-Api-Key: f", "--header", "X-Other: o"}, http.Header{"X-Api-Key": {"f"}, "X-Other": {"o"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut, getenv: func(k string) string { return tc.env[k] }}
			a, code := parseProxy(e, append([]string{"--upstream", "http://127.0.0.1:1", "--log-format", "none"}, tc.args...))
			if code != -1 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if !reflect.DeepEqual(a.cfg.Header, tc.header) {
				t.Errorf("header %v, want %v", a.cfg.Header, tc.header)
			}
		})
	}
	var errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut, getenv: func(k string) string { return map[string]string{"HARNESS_HEADERS": "X-Api-Key s3cr3t"}[k] }}
	if _, code := parseProxy(e, []string{"--upstream", "http://127.0.0.1:1"}); code != exitUsage || !strings.Contains(errOut.String(), "HARNESS_HEADERS line 1") || strings.Contains(errOut.String(), "s3cr3t") {
		t.Errorf("a bad HARNESS_HEADERS: exit %d, stderr %q", code, errOut.String())
	}
}

// TestProxySendsHeaders: the proxy adds --header to the upstream requests.
func TestProxySendsHeaders(t *testing.T) {
	var got atomic.Value
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("X-Api-Key"))
	}))
	defer up.Close()
	px, stop := startProxyCmd(t, "--upstream", up.URL, "--header", "X-Api-Key: proxy-key")
	defer stop()
	if status, _ := fetchBody(t, px+"/anything"); status != http.StatusOK || got.Load() != "proxy-key" {
		t.Errorf("status %d, the upstream got key %q, want proxy-key", status, got.Load())
	}
}

// TestProxyCheckFlags: the checking flags reach the proxy's config, with
// their defaults.
func TestProxyCheckFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want proxy.Config // only the checking fields
	}{
		{"defaults", nil, proxy.Config{Checkers: runtime.GOMAXPROCS(0), CheckQueue: proxy.DefaultCheckQueue, CheckQueueBytes: proxy.DefaultCheckQueueBytes, CheckSample: 1, CheckCPU: proxy.DefaultCheckCPU}},
		{"all set", []string{"--checkers", "3", "--check-queue", "7", "--check-queue-bytes", "1000", "--check-sample", "0.25", "--check-cpu", "0.5"},
			proxy.Config{Checkers: 3, CheckQueue: 7, CheckQueueBytes: 1000, CheckSample: 0.25, CheckCPU: 0.5}},
		{"tiny sample", []string{"--check-sample", "1e-6"}, proxy.Config{Checkers: runtime.GOMAXPROCS(0), CheckQueue: proxy.DefaultCheckQueue, CheckQueueBytes: proxy.DefaultCheckQueueBytes, CheckSample: 1e-6, CheckCPU: proxy.DefaultCheckCPU}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut, getenv: func(string) string { return "" }}
			a, code := parseProxy(e, append([]string{"--upstream", "http://127.0.0.1:1", "--log-format", "none"}, tc.args...))
			if code != -1 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			got := proxy.Config{Checkers: a.cfg.Checkers, CheckQueue: a.cfg.CheckQueue, CheckQueueBytes: a.cfg.CheckQueueBytes, CheckSample: a.cfg.CheckSample, CheckCPU: a.cfg.CheckCPU}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("config %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestProxySummary: the line printed at shutdown adds up the unchecked
// responses and names each reason.
func TestProxySummary(t *testing.T) {
	tests := []struct {
		name string
		m    proxy.Metrics
		want string
	}{
		{"nothing", proxy.Metrics{}, "stopped: 0 requests, 0 responses checked, 0 unchecked, 0 violations (0 breaking the spec), 0 upstream errors"},
		{"every reason", proxy.Metrics{Requests: 20, Checked: 5, UpstreamErrors: 1, Violations: 3, Profiles: map[string]int64{"spec": 2, "reference": 1},
			Unchecked: map[string]int64{proxy.UncheckedBusy: 7, proxy.UncheckedSampledOut: 4, proxy.UncheckedTooLarge: 2, proxy.UncheckedEncoding: 0}},
			"stopped: 20 requests, 5 responses checked, 13 unchecked (busy 7, sampled-out 4, too-large 2), 3 violations (2 breaking the spec), 1 upstream errors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := summary(tc.m); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestProxyStopsWithSampleCounts: harness proxy --check-sample counts the
// responses it leaves out, and says so when it stops.
func TestProxyStopsWithSampleCounts(t *testing.T) {
	base, stopServe := startServe(t, "--scale", "0.05")
	defer stopServe()
	px, stop := startProxyCmd(t, "--upstream", base, "--check-sample", "0.25")
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	for i := 0; i < 8; i++ {
		if status, _ := fetchBody(t, px+"/api/v2/snapshots?pagination.first=2"); status != http.StatusOK {
			t.Fatalf("status %d", status)
		}
	}
	_, body := fetchBody(t, px+proxy.MetricsPath)
	var m proxy.Metrics
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Checked != 2 || m.Unchecked[proxy.UncheckedSampledOut] != 6 || m.CheckPool.Sample != 0.25 {
		t.Errorf("checked %d, unchecked %v, sample %v; want 2, 6 sampled-out, 0.25", m.Checked, m.Unchecked, m.CheckPool.Sample)
	}
	code, out := stop()
	stopped = true
	if want := "8 requests, 2 responses checked, 6 unchecked (sampled-out 6), 0 violations"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("exit %d, output %q; want %q", code, out, want)
	}
}

// TestProxyHeaderLimit checks harness proxy answers a header block over the
// mock's limit with the API's error body, as the mock does.
func TestProxyHeaderLimit(t *testing.T) {
	base, stop := startServe(t, "--scale", "0.05")
	defer stop()
	url, stopProxy := startProxyCmd(t, "--upstream", base)
	defer stopProxy()
	req, _ := http.NewRequest(http.MethodGet, url+"/api/v2/snapshots", nil)
	req.Header.Set("X-Big", strings.Repeat("a", mockserver.DefaultMaxHeaderBytes+10))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge || !strings.Contains(string(body), `"code":3`) {
		t.Errorf("status %d, body %.200s; want 431 with the error body", res.StatusCode, body)
	}
}

// TestProxyForwardsWhatItCannotParse checks harness proxy hands the mock a
// query it cannot parse as sent, and the client the mock's 400, not a 200
// to the query stripped of its bad part.
func TestProxyForwardsWhatItCannotParse(t *testing.T) {
	base, stopServe := startServe(t, "--scale", "0.05")
	defer stopServe()
	px, stop := startProxyCmd(t, "--upstream", base)
	defer stop()
	for _, q := range []string{"/transactions?%zz", "/transactions?first=2&%zz", "/api/v2/snapshots?pagination.first=1;x", "/transactions?first=2"} {
		t.Run(q, func(t *testing.T) {
			ws, want := fetchBody(t, base+q)
			gs, got := fetchBody(t, px+q)
			if gs != ws || !bytes.Equal(got, want) {
				t.Errorf("through the proxy %d %.200s; the mock answers %d %.200s", gs, got, ws, want)
			}
			if strings.Contains(q, "%zz") && ws != http.StatusBadRequest {
				t.Errorf("the mock answers %d, want 400: the test tests less than it says", ws)
			}
		})
	}
}
