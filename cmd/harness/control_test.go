package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// curlCase is one curl command against harness serve and the status it must
// get. URL in an argument is the server's base URL.
type curlCase struct {
	name   string
	args   []string
	status string
	// text is what the answer's body says.
	text string
}

// TestServeControlRefusesOtherOrigins sends harness serve's control API,
// with curl, the cross-origin request and its kin (refused), and
// the calls of docs/serve.md (served), with and without --control-token.
func TestServeControlRefusesOtherOrigins(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on PATH")
	}
	dir := t.TempDir()
	yaml := filepath.Join(dir, "faults.yaml")
	if err := os.WriteFile(yaml, []byte("rules:\n  - listing: snapshots\n    fault: status=503\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open, stopOpen := startServe(t, "--scale", "0.05", "--clock", "manual")
	defer stopOpen()
	const token = "t0ken-for-the-test"
	guarded, stopGuarded := startServe(t, "--scale", "0.05", "--clock", "manual", "--control-token", token)
	defer stopGuarded()
	bearer := "Authorization: Bearer " + token
	allowed, stopAllowed := startServe(t, "--scale", "0.05", "--clock", "manual", "--allow-host", "mock.example", "--allow-host", "other.example")
	defer stopAllowed()

	tests := []struct {
		base string
		curlCase
	}{
		// The request, exactly.
		{open, curlCase{"reset, text/plain, from evil.example",
			[]string{"-X", "POST", "-H", "Content-Type: text/plain", "-H", "Origin: http://evil.example", "URL/harness/reset"}, "403", `"code":7`}},
		{open, curlCase{"advance from evil.example",
			[]string{"-X", "POST", "-H", "Origin: http://evil.example", "URL/harness/advance?blocks=1"}, "403", "is not this server's own"}},
		{open, curlCase{"faults as a form (curl --data-binary's default)",
			[]string{"-X", "POST", "--data-binary", "@" + yaml, "URL/harness/faults"}, "403", "application/x-www-form-urlencoded"}},
		{open, curlCase{"a preflight from evil.example",
			[]string{"-X", "OPTIONS", "-H", "Origin: http://evil.example", "-H", "Access-Control-Request-Method: POST", "URL/harness/reset"}, "403", "is not this server's own"}},
		{open, curlCase{"status", []string{"URL/harness/status"}, "200", `"clock":"manual"`}},
		{open, curlCase{"advance", []string{"-X", "POST", "URL/harness/advance?blocks=10"}, "200", `"blocksAdded":10`}},
		{open, curlCase{"faults as YAML",
			[]string{"-X", "POST", "-H", "Content-Type: application/yaml", "--data-binary", "@" + yaml, "URL/harness/faults"}, "200", `"fault":"status=503"`}},
		{open, curlCase{"faults as JSON",
			[]string{"-X", "POST", "-H", "Content-Type: application/json", "-d", `{"rules": []}`, "URL/harness/faults"}, "200", `"rules":[]`}},
		{open, curlCase{"faults as a form with the control header",
			[]string{"-X", "POST", "-H", "X-Harness-Control: 1", "-d", `{"rules": []}`, "URL/harness/faults"}, "200", `"rules":[]`}},
		{open, curlCase{"reset", []string{"-X", "POST", "URL/harness/reset"}, "200", `"blocksAdded":0`}},
		{guarded, curlCase{"status without the token", []string{"URL/harness/status"}, "401", `"code":16`}},
		{guarded, curlCase{"advance with a wrong token", []string{"-X", "POST", "-H", "Authorization: Bearer nope", "URL/harness/advance?blocks=1"}, "401", "--control-token"}},
		{guarded, curlCase{"reset from evil.example with the token",
			[]string{"-X", "POST", "-H", bearer, "-H", "Content-Type: text/plain", "-H", "Origin: http://evil.example", "URL/harness/reset"}, "403", `"code":7`}},
		{guarded, curlCase{"advance with the token", []string{"-X", "POST", "-H", bearer, "URL/harness/advance?blocks=2"}, "200", `"blocksAdded":2`}},
		{guarded, curlCase{"the API without the token", []string{"URL/api/v2/network/parameters?pagination.first=1"}, "200", `"networkParameters"`}},
		// DNS rebinding: a page's own name pointed at the mock.
		{open, curlCase{"status under a rebound name", []string{"-H", "Host: evil.example", "URL/harness/status"}, "403", "--allow-host evil.example"}},
		{open, curlCase{"reset under a rebound name, its own origin",
			[]string{"-X", "POST", "-H", "Host: evil.example:8080", "-H", "Origin: http://evil.example:8080", "URL/harness/reset"}, "403", `Host \"evil.example:8080\"`}},
		{open, curlCase{"the API under any name", []string{"-H", "Host: evil.example", "URL/api/v2/network/parameters?pagination.first=1"}, "200", `"networkParameters"`}},
		{allowed, curlCase{"status under an allowed name", []string{"-H", "Host: mock.example:8080", "URL/harness/status"}, "200", `"clock":"manual"`}},
		{allowed, curlCase{"status under another name", []string{"-H", "Host: evil.example", "URL/harness/status"}, "403", "--allow-host evil.example"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := runCurl(t, tc.base, tc.args)
			if status != tc.status || !strings.Contains(body, tc.text) {
				t.Errorf("curl %s: status %s, body %.400s; want %s and %q", strings.Join(tc.args, " "), status, body, tc.status, tc.text)
			}
			if tc.status != "200" && strings.Contains(body, token) {
				t.Errorf("the refusal shows the token: %s", body)
			}
		})
	}
}

// runCurl runs curl with args, URL in them standing for base, and returns
// the status and body of its answer.
func runCurl(t *testing.T, base string, args []string) (status, body string) {
	t.Helper()
	full := []string{"-s", "--max-time", "30", "-w", "\n%{http_code}"}
	for _, a := range args {
		full = append(full, strings.ReplaceAll(a, "URL", base))
	}
	out, err := exec.Command("curl", full...).Output()
	if err != nil {
		t.Fatalf("curl %v: %v", full, err)
	}
	i := strings.LastIndexByte(string(out), '\n')
	return string(out[i+1:]), string(out[:i])
}

// TestServeControlTokenFlags checks the refusals of --control-token and
// --allow-host.
func TestServeControlTokenFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a token without the control API", []string{"serve", "--no-control", "--control-token", "x"}, "--control-token guards the control API, which --no-control turns off"},
		{"a token with a space", []string{"serve", "--control-token", "two words"}, "--control-token must be printable ASCII without spaces"},
		{"a token with a control character", []string{"serve", "--control-token", "tab\there"}, "printable ASCII"},
		{"a token beyond ASCII", []string{"serve", "--control-token", "clé"}, "printable ASCII"},
		{"an allowed host without the control API", []string{"serve", "--no-control", "--allow-host", "mock.example"}, "--allow-host names the hosts the control API answers under, which --no-control turns off"},
		{"an allowed host with a port", []string{"serve", "--allow-host", "mock.example:8080"}, "without a port"},
		{"an empty allowed host", []string{"serve", "--allow-host", ""}, "an empty host name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantUsageError(t, tc.args, tc.want) })
	}
}

// TestServeBanner checks what serve says adds blocks and about the control
// API: never that blocks come from POST /harness/advance when --no-control
// turned it off, and never the control token.
func TestServeBanner(t *testing.T) {
	chain := &store.Chain{}
	genesis := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name     string
		cfg      mockserver.Config
		interval time.Duration
		want     []string
	}{
		{"a chain, the control API", mockserver.Config{Chain: chain, Control: true}, 0, []string{
			"live chain: blocks come from POST /harness/advance (at most 100 blocks)",
			"control API: http://127.0.0.1:1/harness/status",
		}},
		{"a chain, no control API", mockserver.Config{Chain: chain}, 0, []string{
			"the world does not grow: no --block-interval, and --no-control leaves nothing to add blocks",
			"control API: off (--no-control): the fault rules stay those given at start, and nothing resets the mock",
		}},
		{"a clock, no control API", mockserver.Config{Chain: chain}, time.Second, []string{
			"live chain: a block every 1s from 2026-01-02T03:04:05Z (at most 100 blocks)",
			"control API: off (--no-control): the fault rules stay those given at start, and nothing resets the mock",
		}},
		{"a clock, the control API with a token", mockserver.Config{Chain: chain, Control: true, ControlToken: "hush"}, time.Second, []string{
			"live chain: a block every 1s from 2026-01-02T03:04:05Z (at most 100 blocks)",
			"control API: http://127.0.0.1:1/harness/status (every request needs Authorization: Bearer and the --control-token)",
		}},
		{"fixtures, the control API", mockserver.Config{Control: true}, 0, []string{
			"control API: http://127.0.0.1:1/harness/status",
		}},
		{"fixtures, no control API", mockserver.Config{}, 0, []string{
			"control API: off (--no-control): the fault rules stay those given at start, and nothing resets the mock",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := banner("127.0.0.1:1", tc.cfg, tc.interval, genesis, 100)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("banner:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
