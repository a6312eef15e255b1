package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/proxy"
)

// TestProxyConformance runs the conformance suite through the proxy in
// front of the mock: the suite passes and the proxy finds no violation in
// any of the suite's requests, edge cases included.
func TestProxyConformance(t *testing.T) {
	base, stopServe := startServe(t, "--scale", "0.05")
	defer stopServe()
	px, stop := startProxyCmd(t, "--upstream", base)
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

	bin := buildHarness(t)
	code, report := runBinary(t, bin, 5*time.Minute, "conform", "--base-url", px)
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
		{"relative upstream", []string{"proxy", "--upstream", "127.0.0.1:8080"}, "absolute http or https URL"},
		{"zero body cap", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--max-body-bytes", "0"}, "--max-body-bytes"},
		{"bad log format", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--log-format", "xml"}, "--log-format"},
		{"stray argument", []string{"proxy", "--upstream", "http://127.0.0.1:1", "extra"}, "unexpected argument"},
		{"bad header", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--header", "X-Api-Key=secret"}, "--header 1"},
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
