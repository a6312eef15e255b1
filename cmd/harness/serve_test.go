package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chaindata/harness/schemas"
)

func TestServeAnswersAndShutsDownGracefully(t *testing.T) {
	base, stop := startServe(t, "--scale", "0.05")
	resp, err := http.Get(base + "/api/v2/network/parameters?pagination.first=5")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if err := schemas.MustLoad("ListNetworkParametersResponse").Validate(body); err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("X-Block-Height") == "" {
		t.Error("no X-Block-Height header")
	}
	if code := stop(); code != exitOK {
		t.Fatalf("serve exited %d after shutdown, want 0", code)
	}
	if _, err := http.Get(base + "/api/v2/snapshots"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

func TestServeReplaysGeneratedFixtures(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCmd(t, "generate", "--seed", "4", "--scale", "0.05", "--out", dir); code != exitOK {
		t.Fatal(errOut)
	}
	fixtures, stopFixtures := startServe(t, "--data", dir)
	defer stopFixtures()
	generated, stopGenerated := startServe(t, "--seed", "4", "--scale", "0.05")
	defer stopGenerated()
	for _, path := range []string{
		"/api/v2/games?pagination.first=3",
		"/api/v2/snapshots?pagination.last=4&pagination.newestFirst=false",
		"/api/v2/core/keys/ethereum/rotations?pagination.first=7",
		"/api/v2/network/parameters",
		"/transactions?first=20",
	} {
		a, b := get(t, fixtures+path), get(t, generated+path)
		if a != b {
			t.Errorf("%s: the replay of the fixtures differs from the generated world", path)
		}
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestServeRefusesBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"data with seed", []string{"serve", "--data", "x", "--seed", "3"}, "cannot be combined"},
		{"scale out of range", []string{"serve", "--scale", "0.001"}, "--scale must be between"},
		{"fail rate above 1", []string{"serve", "--fail-rate", "1.5"}, "--fail-rate must be between"},
		{"negative latency", []string{"serve", "--latency", "-1s"}, "--latency must not be negative"},
		{"zero page size", []string{"serve", "--max-page-size", "0"}, "page sizes must be positive"},
		{"default above max", []string{"serve", "--default-page-size", "6000"}, "is above --max-page-size"},
		{"bad log format", []string{"serve", "--log-format", "xml"}, "--log-format must be"},
		{"latency not a duration", []string{"serve", "--latency", "soon"}, "invalid value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantUsageError(t, tc.args, tc.want)
		})
	}
}

func TestServeReportsMissingFixtures(t *testing.T) {
	code, _, errOut := runCmd(t, "serve", "--data", t.TempDir())
	if code != exitFailure || !strings.Contains(errOut, "manifest.json") {
		t.Fatalf("exit %d, stderr %q; want a failure naming the manifest", code, errOut)
	}
}

func TestUnknownCommand(t *testing.T) {
	code, _, errOut := runCmd(t, "frobnicate")
	if code != exitUsage || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	code, out, _ := runCmd(t, "help")
	if code != exitOK || !strings.Contains(out, "serve") {
		t.Fatalf("help: exit %d, %q", code, out)
	}
}
