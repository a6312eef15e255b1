package main

import (
	"context"
	"encoding/xml"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaindata/harness/conformance"
	"github.com/chaindata/harness/conformance/client"
)

// Pages that answer the preflight: one row of the parameters listing, no
// transaction.
const (
	preflightParams = `{"networkParameters":{"edges":[{"node":{"key":"a","value":"1"},"cursor":"YQ=="}],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"YQ==","endCursor":"YQ=="}}}`
	preflightTx     = `{"transactions":[]}`
)

// passPreflight answers the preflight's two requests as a deployment
// would, and hands every other request to next.
func passPreflight(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v2/network/parameters" && r.URL.RawQuery == "pagination.first=1":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, preflightParams)
		case r.URL.Path == "/transactions" && r.URL.RawQuery == "first=1":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, preflightTx)
		default:
			next(w, r)
		}
	}
}

// serveTest serves h on a free port of 127.0.0.1 for the test.
func serveTest(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// closedPortURL is a URL of 127.0.0.1 whose port nothing listens on.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

// silentURL is the URL of a server that accepts connections and never
// answers.
func silentURL(t *testing.T) string {
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

// TestConformFailsFast: against what is not a deployment, harness conform
// says in one line what is wrong and exits with 1, within seconds.
func TestConformFailsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: paced by the clock (deadlines, answers that never come)")
	}
	bin := mustHarnessBinary(t)
	tests := []struct {
		name string
		url  func(t *testing.T) string
		args []string
		want string
	}{
		{"closed port", closedPortURL, nil, "connection refused; is the deployment running, and on this port?"},
		{"never answers", silentURL, []string{"--timeout", "1s"}, "within 1s (--timeout)"},
		{"never answers, run deadline first", silentURL, []string{"--timeout", "1m", "--run-timeout", "2s"},
			"the run deadline passed (--run-timeout 2s) before --base-url"},
		{"404 path", func(t *testing.T) string { return serveTest(t, http.NotFoundHandler()) },
			nil, "answered HTTP 404: the path looks wrong; if the deployment serves the API under a path prefix, add it to --base-url"},
		{"not JSON", func(t *testing.T) string {
			return serveTest(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<!DOCTYPE html><html><body>It works!</body></html>")
			}))
		}, nil, "with a body that is not JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.url(t)
			start := time.Now()
			code, out := runBinary(t, bin, time.Minute, append([]string{"conform", "--base-url", base}, tc.args...)...)
			elapsed := time.Since(start)
			t.Logf("in %s: %s", elapsed.Round(time.Millisecond), out)
			if code != exitFailure {
				t.Errorf("exit %d, want %d", code, exitFailure)
			}
			if lines := strings.Count(out, "\n"); lines != 1 || !strings.HasPrefix(out, "harness conform: ") || !strings.Contains(out, tc.want) {
				t.Errorf("the output has %d lines, want one saying %q:\n%s", lines, tc.want, out)
			}
			if elapsed > 10*time.Second {
				t.Errorf("harness conform took %s to fail, want seconds", elapsed)
			}
		})
	}
}

// TestConformRunDeadline: against a deployment that answers the preflight
// and then never again, the run ends within seconds of --run-timeout, the
// rules not yet run skipped, exit 1; meanwhile the requests that time out
// wait side by side, up to --concurrency.
func TestConformRunDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: paced by the clock (deadlines, answers that never come)")
	}
	bin := mustHarnessBinary(t)
	// A request counts as in flight for 900 ms after it arrives: within
	// the client's 1 s timeout, however late the server sees it go.
	var inFlight, most atomic.Int64
	base := serveTest(t, passPreflight(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-time.After(900 * time.Millisecond):
		case <-r.Context().Done():
		}
		inFlight.Add(-1)
		<-r.Context().Done()
	}))
	const runTimeout = 4 * time.Second
	start := time.Now()
	code, out := runBinary(t, bin, time.Minute, "conform", "--base-url", base, "--timeout", "1s", "--run-timeout", runTimeout.String(), "--concurrency", "4")
	elapsed := time.Since(start)
	t.Logf("ended after %s with at most %d requests in flight; the output ends:\n%s", elapsed.Round(time.Millisecond), most.Load(), lastLines(out, 6))
	if code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	if elapsed > runTimeout+5*time.Second {
		t.Errorf("the run took %s, want it to end within seconds of --run-timeout %s", elapsed, runTimeout)
	}
	stopped := "the run deadline passed (--run-timeout 4s)"
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`\n  SKIPPED [0-9]+ rules: ` + regexp.QuoteMeta(stopped) + `\n`),
		regexp.MustCompile(`\nVerdict: FAILED \(the run stopped: ` + regexp.QuoteMeta(stopped) + `\)\n`),
		regexp.MustCompile(`\nharness conform: ` + regexp.QuoteMeta(stopped) + `: [0-9]+ rules skipped, [0-9]+ failed\n`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the output does not match %s", want)
		}
	}
	if m := most.Load(); m < 2 || m > 4 {
		t.Errorf("at most %d requests were in flight at once, want them side by side, up to --concurrency 4", m)
	}
}

// TestConformEndlessBodyMemory: against a deployment whose every answer
// after the preflight is an endless body, the run's memory stays under
// 300 MB (it peaked at 1.87 GB when every body was read whole up to its 64
// MiB cap, each request on its own). It measures the peak resident set
// with /usr/bin/time.
func TestConformEndlessBodyMemory(t *testing.T) {
	const limitKB = 300 << 10
	timeBin := "/usr/bin/time"
	if _, err := os.Stat(timeBin); err != nil {
		t.Skipf("no %s to measure the peak memory with", timeBin)
	}
	if testing.Short() {
		t.Skip("moves gigabytes through the loopback interface; not in -short")
	}
	bin := mustHarnessBinary(t)
	chunk := []byte(strings.Repeat("a", 64<<10))
	var bodies atomic.Int64
	base := serveTest(t, passPreflight(func(w http.ResponseWriter, r *http.Request) {
		bodies.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"networkParameters":"`)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, timeBin, "-f", "peak-rss-kb %M", bin,
		"conform", "--base-url", base, "--concurrency", "8", "--run-timeout", "3m")
	out, _ := cmd.CombinedOutput()
	elapsed := time.Since(start)
	m := regexp.MustCompile(`peak-rss-kb ([0-9]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no peak memory in the output:\n%s", lastLines(string(out), 10))
	}
	peak, _ := strconv.Atoi(string(m[1]))
	t.Logf("%d endless bodies in %s; peak resident memory %d MB; the output ends:\n%s", bodies.Load(), elapsed.Round(time.Millisecond), peak>>10, lastLines(string(out), 5))
	if code := cmd.ProcessState.ExitCode(); code != exitFailure {
		t.Errorf("exit %d, want %d (rules failed)", code, exitFailure)
	}
	if peak >= limitKB {
		t.Errorf("peak resident memory %d MB, want under %d MB", peak>>10, limitKB>>10)
	}
	if !strings.Contains(string(out), client.ErrBodyTooLarge.Error()) {
		t.Errorf("no failure says a body was larger than the cap:\n%s", lastLines(string(out), 10))
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestConformPreflightWritesReports: when the preflight stops the run, the
// reports asked for are still written, every rule skipped with the
// preflight's line, so that no report of an earlier run is taken for this
// one's.
func TestConformPreflightWritesReports(t *testing.T) {
	bin := mustHarnessBinary(t)
	dir := t.TempDir()
	junit, html, jsonReport := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.html"), filepath.Join(dir, "report.json")
	base := closedPortURL(t)
	code, out := runBinary(t, bin, time.Minute, "conform", "--base-url", base,
		"--junit", junit, "--html-report", html, "--json-report", jsonReport)
	if code != exitFailure || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d, want %d with one line:\n%s", code, exitFailure, out)
	}
	rules, err := conformance.Rules()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Tests   int `xml:"tests,attr"`
		Skipped int `xml:"skipped,attr"`
	}
	if err := xml.Unmarshal(data, &report); err != nil {
		t.Fatalf("the JUnit report is not XML: %v", err)
	}
	if report.Tests != len(rules) || report.Skipped != len(rules) || !strings.Contains(string(data), "connection refused") {
		t.Errorf("the JUnit report has %d tests, %d skipped, want every one of the %d rules skipped, saying why", report.Tests, report.Skipped, len(rules))
	}
	for _, path := range []string{html, jsonReport} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "connection refused") {
			t.Errorf("%s does not say why the run stopped", filepath.Base(path))
		}
	}
}
