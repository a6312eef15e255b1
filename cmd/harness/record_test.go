package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// buildHarness returns the binary built once for the package's tests, for
// tests that must run a subcommand in its own process (Ginkgo runs one
// suite per process). It skips under -short.
func buildHarness(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the conformance suite in a subprocess")
	}
	return mustHarnessBinary(t)
}

func fetchBody(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// TestRecordReplayConforms records the mock, serves the recording, checks
// the replay answers as the original does, and runs the conformance suite
// against the replay.
func TestRecordReplayConforms(t *testing.T) {
	base, stop := startServe(t, "--scale", "0.05")
	defer stop()
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "record", "--from", base, "--out", out, "--page-size", "150", "--log-format", "none")
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if stderr != "" {
		t.Errorf("warnings recording the mock: %s", stderr)
	}
	for _, l := range records.Listings {
		if !strings.Contains(stdout, l+".ndjson") {
			t.Errorf("the summary does not list %s:\n%s", l, stdout)
		}
	}
	st, info, err := store.OpenFixtures(out)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if info.Rebuilt != "" {
		t.Errorf("record did not leave an up-to-date index: serving rebuilt it (%s)", info.Rebuilt)
	}
	// The replay is served by the built binary, as the suite runs: a whole
	// run's answers under the race detector took most of the test's time.
	replay, err := startProcess(mustHarnessBinary(t), "serve", "--addr", "127.0.0.1:0", "--data", out, "--log-format", "none")
	if err != nil {
		t.Fatal(err)
	}
	defer replay.stop()
	replayURL := replay.url
	for _, q := range []string{
		"/api/v2/games?pagination.first=20",
		"/api/v2/games?epochFrom=2&epochTo=9&entityScope=ENTITY_SCOPE_TEAMS",
		"/api/v2/snapshots?pagination.last=7",
		"/api/v2/core/keys/ethereum/rotations",
		"/api/v2/network/parameters?pagination.first=50",
		"/transactions?first=100",
		"/transactions?last=30&cmdTypes=Submit+Order",
	} {
		ws, want := fetchBody(t, base+q)
		gs, got := fetchBody(t, replayURL+q)
		if gs != ws || !bytes.Equal(got, want) {
			t.Errorf("%s: replay %d %.120s, original %d %.120s", q, gs, got, ws, want)
		}
	}

	bin := buildHarness(t)
	// The replay does not grow: the growth rules wait --growth-wait, then
	// skip (by default they wait seconds for a sign of growth).
	code, report := runBinary(t, bin, 5*time.Minute, "conform", "--base-url", replayURL, "--growth-wait", "100ms")
	if code != exitOK {
		t.Fatalf("conform against the replay: exit %d\n%s", code, report)
	}
	if !strings.Contains(report, "\nVerdict: PASSED\n") {
		t.Errorf("conform output:\n%s", report)
	}
}

// TestRecordResumesAfterInterrupt interrupts a recording (as SIGINT would)
// and runs the same command again.
func TestRecordResumesAfterInterrupt(t *testing.T) {
	base, stop := startServe(t, "--scale", "0.05", "--latency", "20ms")
	defer stop()
	full := t.TempDir()
	if code, _, stderr := runCmd(t, "record", "--from", base, "--out", full, "--page-size", "40", "--log-format", "none"); code != exitOK {
		t.Fatalf("uninterrupted record: exit %d: %s", code, stderr)
	}

	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	var o, e bytes.Buffer
	code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &o, stderr: &e},
		[]string{"record", "--from", base, "--out", out, "--page-size", "40", "--log-format", "none"})
	cancel()
	if code != exitFailure || !strings.Contains(e.String(), "interrupted") {
		t.Fatalf("interrupted record: exit %d, stderr %q", code, e.String())
	}
	if _, err := os.Stat(filepath.Join(out, fixtures.ManifestFile)); err == nil {
		t.Fatal("an interrupted recording has a manifest")
	}
	if code, _, stderr := runCmd(t, "record", "--from", base, "--out", out, "--page-size", "40", "--log-format", "none"); code != exitOK {
		t.Fatalf("resumed record: exit %d: %s", code, stderr)
	}
	for _, name := range append([]string{fixtures.ManifestFile}, ndjsonNames()...) {
		a, errA := os.ReadFile(filepath.Join(full, name))
		b, errB := os.ReadFile(filepath.Join(out, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from the uninterrupted recording (%v, %v)", name, errA, errB)
		}
	}
}

func ndjsonNames() []string {
	var out []string
	for _, l := range records.Listings {
		out = append(out, l+".ndjson")
	}
	return out
}

// TestRecordStrict records a deployment that breaks a schema: a warning
// and exit 0, or exit 1 under --strict.
func TestRecordStrict(t *testing.T) {
	w, err := world.Generate(world.Options{Seed: 2, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	mock := mockserver.New(mockserver.Config{}, st)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		mock.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if r.URL.Path == "/api/v2/network/parameters" {
			// A key must start with a letter.
			body = bytes.Replace(body, []byte(`"key":"`), []byte(`"key":"9`), 1)
		}
		for k, v := range rec.Header() {
			rw.Header()[k] = v
		}
		rw.Header().Del("Content-Length")
		rw.WriteHeader(rec.Code)
		rw.Write(body)
	}))
	defer srv.Close()
	tests := []struct {
		name  string
		flags []string
		want  int
	}{
		{"warning only", nil, exitOK},
		{"strict", []string{"--strict"}, exitFailure},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"record", "--from", srv.URL, "--out", t.TempDir(), "--log-format", "none"}, tc.flags...)
			code, stdout, stderr := runCmd(t, args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.want, stdout, stderr)
			}
			if !strings.Contains(stdout, "violation: networkparameters: GET ") || !strings.Contains(stdout, "[pattern]") {
				t.Errorf("the violation is not printed:\n%s", stdout)
			}
			if !strings.Contains(stderr, "warning: 1 violations") {
				t.Errorf("stderr %q does not count the violation", stderr)
			}
		})
	}
}

func TestRecordUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no from", []string{"record", "--out", "x"}, "--from is required"},
		{"no out", []string{"record", "--from", "http://127.0.0.1:1"}, "--out is required"},
		{"from without a scheme", []string{"record", "--from", "127.0.0.1:1", "--out", "x"}, "has no scheme; use http://127.0.0.1:1"},
		{"from not http", []string{"record", "--from", "ftp://127.0.0.1:1", "--out", "x"}, "absolute http or https URL"},
		{"unknown listing", []string{"record", "--from", "http://127.0.0.1:1", "--out", "x", "--listings", "orders"}, "unknown listing"},
		{"negative max pages", []string{"record", "--from", "http://127.0.0.1:1", "--out", "x", "--max-pages", "-1"}, "--max-pages"},
		{"zero page size", []string{"record", "--from", "http://127.0.0.1:1", "--out", "x", "--page-size", "0"}, "--page-size"},
		{"bad log format", []string{"record", "--from", "http://127.0.0.1:1", "--out", "x", "--log-format", "xml"}, "--log-format"},
		{"stray argument", []string{"record", "--from", "http://127.0.0.1:1", "--out", "x", "extra"}, "unexpected argument"},
		{"bad header", []string{"record", "--from", "http://127.0.0.1:1", "--out", "x", "--header", "X-Api-Key secret"}, "--header 1"},
		{"negative rate", []string{"record", "--from", "http://127.0.0.1:1", "--out", "x", "--rate", "-1"}, "-rate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantUsageError(t, tc.args, tc.want)
		})
	}
}

func TestRecordUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	u := dead.URL
	dead.Close()
	out := t.TempDir()
	code, _, errOut := runCmd(t, "record", "--from", u, "--out", out, "--log-format", "none")
	if code != exitFailure || !strings.Contains(errOut, "run the same command again") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestRecordConfigPrecedence: --header and --rate win over HARNESS_HEADERS
// and HARNESS_RATE, which win over the defaults (no limit on this machine,
// 10/s elsewhere).
func TestRecordConfigPrecedence(t *testing.T) {
	const local, remote = "http://127.0.0.1:8080", "https://node.example"
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		rate   float64
		header http.Header
	}{
		{"defaults, loopback", nil, []string{"--from", local}, 0, http.Header{}},
		{"defaults, remote", nil, []string{"--from", remote}, 10, http.Header{}},
		{"remote explorer", nil, []string{"--from", local, "--transactions-url", remote}, 10, http.Header{}},
		{"environment", map[string]string{"HARNESS_RATE": "4", "HARNESS_HEADERS": "X-Api-Key: e\nX-Team: t"}, []string{"--from", remote}, 4,
			http.Header{"X-Api-Key": {"e"}, "X-Team": {"t"}}},
		{"flags win", map[string]string{"HARNESS_RATE": "4", "HARNESS_HEADERS": "X-Api-Key: e\nX-Team: t"},
			[]string{"--from", remote, "--rate", "0", "--header", "X-Api-Key: f"}, 0, http.Header{"X-Api-Key": {"f"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut, getenv: func(k string) string { return tc.env[k] }}
			a, code := parseRecord(e, append(tc.args, "--out", t.TempDir(), "--log-format", "none"))
			if code != -1 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if a.opts.Rate != tc.rate || !reflect.DeepEqual(a.opts.Header, tc.header) {
				t.Errorf("rate %v header %v, want %v %v", a.opts.Rate, a.opts.Header, tc.rate, tc.header)
			}
		})
	}
}

// TestRecordSendsHeaders records through a server that wants an API key.
func TestRecordSendsHeaders(t *testing.T) {
	const key = "record-cmd-key"
	base, stop := startServe(t, "--scale", "0.05")
	defer stop()
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	inner := httputil.NewSingleHostReverseProxy(target)
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != key {
			http.Error(w, `{"code":16,"message":"no key","details":[]}`, http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer gate.Close()
	var errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut,
		getenv: func(k string) string { return map[string]string{"HARNESS_HEADERS": "X-Api-Key: " + key}[k] }}
	code := run(t.Context(), e, []string{"record", "--from", gate.URL, "--out", t.TempDir(), "--listings", "snapshots", "--log-format", "none"})
	if code != exitOK {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
	// Without the key the gate refuses, so the run above proves the key
	// went with every request.
	if code, _, errText := runCmd(t, "record", "--from", gate.URL, "--out", t.TempDir(), "--listings", "snapshots", "--log-format", "none"); code != exitFailure || !strings.Contains(errText, "401") {
		t.Errorf("without the key: exit %d, stderr %q; want 1 and the 401", code, errText)
	}
}

// TestRecordHTTPSToPlainHTTP: an https:// URL a plain HTTP server answers
// gets a hint to use http://.
func TestRecordHTTPSToPlainHTTP(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	code, _, errOut := runCmd(t, "record", "--from", "https://"+strings.TrimPrefix(srv.URL, "http://"), "--out", t.TempDir(), "--log-format", "none")
	if code != exitFailure || !strings.Contains(errOut, "(the server speaks plain HTTP: use http:// in --from (or --transactions-url))") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
