package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nodeHint says what the TypeScript package's test needs.
const nodeHint = "node and npm are not on the PATH: install them (Debian: apt-get install -y nodejs npm) " +
	"to test the TypeScript package clients/typescript"

// TestTypeScriptClient tests the TypeScript package in clients/typescript
// against the harness binary: installs its pinned compiler (npm ci, when
// node_modules is missing or older than package-lock.json), compiles it
// into a temporary directory and runs its tests with Node's test runner,
// HARNESS_BIN naming the binary: the package's own, and the naive client's
// of edges.test.ts, which must fail against the edge world (and says so). Without node or npm it fails under
// CI=true and is skipped elsewhere, saying why.
func TestTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: installs and compiles the TypeScript package (make test runs it)")
	}
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(nodeHint)
		}
		t.Skip(nodeHint)
	}
	bin := mustHarnessBinary(t)
	dir, err := filepath.Abs(filepath.Join(moduleRoot, "clients", "typescript"))
	if err != nil {
		t.Fatal(err)
	}
	if stale(filepath.Join(dir, "node_modules", ".package-lock.json"), filepath.Join(dir, "package-lock.json")) {
		runIn(t, dir, nil, npm, "ci", "--no-audit", "--no-fund", "--prefer-offline")
	}
	out := t.TempDir()
	runIn(t, dir, nil, filepath.Join(dir, "node_modules", ".bin", "tsc"), "-p", dir, "--outDir", out)
	report := runIn(t, dir, []string{"HARNESS_BIN=" + bin}, node, "--test",
		filepath.Join(out, "test", "mock.test.js"), filepath.Join(out, "test", "edges.test.js"))
	pass := regexp.MustCompile(`(?m)^# pass (\d+)$`).FindStringSubmatch(report)
	if pass == nil || pass[1] == "0" || !strings.Contains(report, "\n# fail 0\n") {
		t.Fatalf("node --test ran no test or failed some:\n%s", report)
	}
	t.Logf("node --test: %s tests passed", pass[1])
}

// stale reports whether made is missing or older than from.
func stale(made, from string) bool {
	m, err := os.Stat(made)
	if err != nil {
		return true
	}
	f, err := os.Stat(from)
	return err != nil || m.ModTime().Before(f.ModTime())
}

// runIn runs a command in dir with env added, failing the test with its
// output when it fails, and returns its output.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}
