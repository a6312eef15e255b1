package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/conformance"
	"github.com/chaindata/harness/conformance/client"
)

func TestConformUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no base URL", []string{"conform"}, "--base-url is required"},
		{"relative base URL", []string{"conform", "--base-url", "localhost:8080"}, "has no scheme; use http://localhost:8080"},
		{"bad label filter", []string{"conform", "--base-url", "http://127.0.0.1:1", "--label-filter", "((games"}, "label filter"},
		{"a label no rule carries", []string{"conform", "--base-url", "http://127.0.0.1:1", "--label-filter", "gmaes"},
			`harness conform: label filter "gmaes" names no label of the suite: "gmaes"; did you mean "games"? (harness conform --list shows every rule with its labels)` + "\nRun \"harness conform -h\" for usage.\n"},
		{"a filter selecting no rule", []string{"conform", "--base-url", "http://127.0.0.1:1", "--label-filter", "games && !games"},
			`label filter "games && !games" selects no rule`},
		{"unknown flag", []string{"conform", "--nope"}, "unknown flag --nope"},
		{"stray argument", []string{"conform", "--base-url", "http://127.0.0.1:1", "extra"}, "unexpected argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut := wantUsageError(t, tc.args, tc.want)
			if strings.Contains(errOut, "\x1b[") {
				t.Errorf("stderr has terminal colour codes: %q", errOut)
			}
		})
	}
}

func TestConformListPrintsTheCatalogue(t *testing.T) {
	code, out, errOut := runCmd(t, "conform", "--list")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rules, err := conformance.Rules()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out, "\n| "); got != len(rules)+1 { // header row + one row per rule
		t.Errorf("the catalogue has %d table rows, want %d", got, len(rules)+1)
	}
	committed, err := os.ReadFile(filepath.Join("..", "..", "docs", "conformance-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(committed) {
		t.Error("harness conform --list differs from docs/conformance-rules.md")
	}
}

// TestConformRunsTheSuite runs the suite in-process against harness serve,
// selected by labels to stay quick; the conformance package's self-tests
// run it against the mock and defective servers.
func TestConformRunsTheSuite(t *testing.T) {
	base, stop := startServe(t, "--scale", "0.05")
	defer stop()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := runCmd(t, "conform", "--base-url", base, "--junit", junit,
		"--label-filter", "(network-parameters && !model) || (snapshots && pagination)")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "•") || !strings.Contains(out, "\nVerdict: PASSED\n") || strings.Contains(out, "Random Seed") || strings.Contains(out, "Will run") {
		t.Errorf("the output is not Ginkgo's progress (without its header) and the summary:\n%s", out)
	}
	if !strings.Contains(out, "traffic: ") || strings.Contains(out, "traffic: 0 requests") {
		t.Errorf("the output does not end with the run's traffic:\n%s", out)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Tests int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal(data, &report); err != nil {
		t.Fatalf("the JUnit report is not XML: %v", err)
	}
	rules, err := conformance.Rules()
	if err != nil {
		t.Fatal(err)
	}
	if report.Tests != len(rules) {
		t.Errorf("the JUnit report has %d tests, want one per rule (%d)", report.Tests, len(rules))
	}
}

// TestConformConfigPrecedence: a flag wins over its environment variable,
// which wins over the default.
func TestConformConfigPrecedence(t *testing.T) {
	const remote, local = "https://node.example", "http://127.0.0.1:8080"
	tests := []struct {
		name string
		env  map[string]string
		args []string
		// want
		base, tx, filter string
		rate             float64 // effective
		headers          []string
	}{
		{"defaults, loopback", nil, []string{"--base-url", local}, local, "", "", math.Inf(1), nil},
		{"defaults, remote", nil, []string{"--base-url", remote}, remote, "", "", 10, nil},
		{"remote explorer", nil, []string{"--base-url", local, "--transactions-url", remote}, local, remote, "", 10, nil},
		{"environment only",
			map[string]string{"HARNESS_BASE_URL": remote, "HARNESS_TRANSACTIONS_URL": remote + "/rest", "HARNESS_HEADERS": "X-Api-Key: k1\nX-Team: t", "HARNESS_LABEL_FILTER": "games", "HARNESS_RATE": "3"},
			nil, remote, remote + "/rest", "games", 3, []string{"X-Api-Key: k1", "X-Team: t"}},
		{"flags win",
			map[string]string{"HARNESS_BASE_URL": remote, "HARNESS_TRANSACTIONS_URL": remote + "/rest", "HARNESS_HEADERS": "X-Api-Key: k1\nX-Team: t", "HARNESS_LABEL_FILTER": "games", "HARNESS_RATE": "3"},
			[]string{"--base-url", local, "--transactions-url", local, "--header", "X-Api-Key: k2", "--label-filter", "snapshots", "--rate", "7"},
			local, local, "snapshots", 7, []string{"X-Api-Key: k2"}},
		{"rate 0 from the environment is no limit", map[string]string{"HARNESS_RATE": "0"}, []string{"--base-url", remote}, remote, "", "", math.Inf(1), nil},
		{"--rate 0 beats the environment", map[string]string{"HARNESS_RATE": "4"}, []string{"--base-url", remote, "--rate", "0"}, remote, "", "", math.Inf(1), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut, getenv: func(k string) string { return tc.env[k] }}
			a, code := parseConform(e, tc.args)
			if code != -1 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			c := a.cfg
			if c.BaseURL != tc.base || c.TransactionsURL != tc.tx || a.opts.LabelFilter != tc.filter || c.EffectiveRate() != tc.rate || !slices.Equal(c.Headers, tc.headers) {
				t.Errorf("base %q tx %q filter %q rate %v headers %v; want %q %q %q %v %v",
					c.BaseURL, c.TransactionsURL, a.opts.LabelFilter, c.EffectiveRate(), c.Headers, tc.base, tc.tx, tc.filter, tc.rate, tc.headers)
			}
		})
	}
}

func TestConformEnvironmentErrors(t *testing.T) {
	const secret = "s3cr3t"
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"bad rate", map[string]string{"HARNESS_RATE": "fast"}, nil, "HARNESS_RATE"},
		{"bad base URL", map[string]string{"HARNESS_BASE_URL": "node.example"}, nil, "HARNESS_BASE_URL"},
		{"bad transactions URL", map[string]string{"HARNESS_TRANSACTIONS_URL": "ftp://x"}, nil, "HARNESS_TRANSACTIONS_URL"},
		{"bad headers", map[string]string{"HARNESS_HEADERS": "X-Api-Key " + secret}, nil, "HARNESS_HEADERS line 1"},
		{"bad label filter", map[string]string{"HARNESS_BASE_URL": "http://127.0.0.1:1", "HARNESS_LABEL_FILTER": "((games"}, nil, "label filter"},
		{"a label filter selecting no rule", map[string]string{"HARNESS_BASE_URL": "http://127.0.0.1:1", "HARNESS_LABEL_FILTER": "snapshots && epochs"}, nil, "selects no rule"},
		{"bad --header", nil, []string{"--base-url", "http://127.0.0.1:1", "--header", "X-Api-Key=" + secret}, "--header 1"},
		{"negative --rate", nil, []string{"--base-url", "http://127.0.0.1:1", "--rate", "-2"}, "-rate"},
		{"negative --concurrency", nil, []string{"--base-url", "http://127.0.0.1:1", "--concurrency", "-2"}, "--concurrency"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut, getenv: func(k string) string { return tc.env[k] }}
			code := run(t.Context(), e, append([]string{"conform"}, tc.args...))
			if code != exitUsage || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d naming %s", code, errOut.String(), exitUsage, tc.want)
			}
			if strings.Contains(errOut.String(), secret) {
				t.Errorf("stderr shows the header value: %q", errOut.String())
			}
		})
	}
}

func TestTrafficLine(t *testing.T) {
	got := trafficLine(client.Traffic{Requests: 412, Retries: 3, RetryWait: 2500 * time.Millisecond, Refused: 1, RefusedURLs: []string{"https://n/x"}}, 10)
	want := "traffic: 412 requests (at most 10/s), 3 retries after 429/503, 2.5s waiting before retries, 1 refused (first: https://n/x)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestConformReportsAreReadable: the reports harness conform writes are
// mode 0644, for CI to publish and others to read, not the 0600 of the
// temporary file the HTML and JUnit reports are written through. It runs
// the binary (Ginkgo runs one suite per process) under umask 022.
func TestConformReportsAreReadable(t *testing.T) {
	bin := mustHarnessBinary(t)
	mock := mustSharedMock(t)
	dir := t.TempDir()
	reports := map[string]string{
		"--junit":       filepath.Join(dir, "junit.xml"),
		"--html-report": filepath.Join(dir, "report.html"),
		"--json-report": filepath.Join(dir, "report.json"),
	}
	args := []string{"conform", "--base-url", mock, "--label-filter", "PARAM-PAG-003"}
	for flag, path := range reports {
		args = append(args, flag, path)
	}
	script := `umask 022 && exec "$0" "$@"`
	out, err := exec.Command("sh", append([]string{"-c", script, bin}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("harness %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for flag, path := range reports {
		st, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s: %v", flag, err)
			continue
		}
		if mode := st.Mode().Perm(); mode != 0o644 {
			t.Errorf("%s %s: mode %04o, want 0644", flag, filepath.Base(path), mode)
		}
	}
}

// TestConformNoColor: NO_COLOR set and not empty turns the console's colour
// off (a console that is not a terminal has none anyway).
func TestConformNoColor(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{{"", false}, {"1", true}, {"0", true}} {
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string {
			if k == "NO_COLOR" {
				return tc.value
			}
			return ""
		}}
		a, code := parseConform(e, []string{"--base-url", "http://127.0.0.1:1"})
		if code != -1 || a.opts.NoColor != tc.want {
			t.Errorf("NO_COLOR=%q: code %d, NoColor %v; want %v", tc.value, code, a.opts.NoColor, tc.want)
		}
	}
}

// TestConformSetsTheMemoryLimit: harness conform sets the process's soft
// memory limit for its run and gives the previous one back after.
func TestConformSetsTheMemoryLimit(t *testing.T) {
	var set []int64
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		setMemoryLimit: func(n int64) int64 { set = append(set, n); return 12345 }}
	if code := run(t.Context(), e, []string{"conform", "--base-url", closedPortURL(t)}); code != exitFailure {
		t.Errorf("exit %d against a closed port, want %d", code, exitFailure)
	}
	if !slices.Equal(set, []int64{client.MemoryLimit, 12345}) {
		t.Errorf("limits set %v, want %d for the run and the previous one after", set, client.MemoryLimit)
	}
}
