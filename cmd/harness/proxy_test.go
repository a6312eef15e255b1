package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/proxy"
)

// startProxyCmd runs harness proxy in-process on a free port and returns
// its base URL and a function that stops it and returns its exit code and
// output.
func startProxyCmd(t *testing.T, args ...string) (string, func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, &env{stdin: strings.NewReader(""), stdout: pw, stderr: io.Discard},
			append([]string{"proxy", "--listen", "127.0.0.1:0", "--log-format", "none"}, args...))
		pw.Close()
		done <- code
	}()
	r := bufio.NewReader(pr)
	line, err := r.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("proxy printed no address: %v (exit %d)", err, <-done)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		rest <- string(b)
	}()
	i := strings.Index(line, "http://")
	if i < 0 {
		cancel()
		t.Fatalf("proxy printed %q, want its address", line)
	}
	addr := strings.Fields(line[i:])[0]
	return addr, func() (int, string) {
		cancel()
		select {
		case code := <-done:
			return code, <-rest
		case <-time.After(15 * time.Second):
			t.Fatal("proxy did not stop within 15 s of its context ending")
			return -1, ""
		}
	}
}

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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCmd(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q does not say %q", errOut, tc.want)
			}
		})
	}
}

func TestProxyCannotListen(t *testing.T) {
	code, _, errOut := runCmd(t, "proxy", "--upstream", "http://127.0.0.1:1", "--listen", "256.0.0.1:0")
	if code != exitFailure || !strings.Contains(errOut, "harness proxy:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
