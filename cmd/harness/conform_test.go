package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance"
)

func TestConformUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no base URL", []string{"conform"}, "--base-url is required"},
		{"relative base URL", []string{"conform", "--base-url", "localhost:8080"}, "absolute http or https URL"},
		{"bad label filter", []string{"conform", "--base-url", "http://127.0.0.1:1", "--label-filter", "((games"}, "label filter"},
		{"unknown flag", []string{"conform", "--nope"}, "flag provided but not defined"},
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
// selected by labels to stay quick. Ginkgo runs a suite once per process,
// so this is the package's only test that runs it; the conformance
// package's self-tests run the binary against the mock and defective
// servers.
func TestConformRunsTheSuite(t *testing.T) {
	base, stop := startServe(t, "--scale", "0.05")
	defer stop()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := runCmd(t, "conform", "--base-url", base, "--junit", junit,
		"--label-filter", "network-parameters || (snapshots && pagination)")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "SUCCESS!") {
		t.Errorf("the output is not Ginkgo's report:\n%s", out)
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
