package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/rule"
	"github.com/onsi/ginkgo/v2/types"
)

// writeRunReport writes a JSON report of a run in which PARAM-PAG-006
// failed and SNAP-PAG-001 passed.
func writeRunReport(t *testing.T, dir string) string {
	t.Helper()
	failed := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeLabels: []string{"PARAM-PAG-006"}, State: types.SpecStateFailed,
		ReportEntries: []types.ReportEntry{{Name: rule.EntryProblems, Value: types.WrapEntryValue([]rule.Problem{
			{Detail: "pagination.first=2 gave 1 rows", Request: "GET /api/v2/network/parameters?pagination.first=2", Curl: "curl -sS -i 'http://h/api/v2/network/parameters?pagination.first=2'"}})}}}
	failed.Failure.Message = "PARAM-PAG-006 (MUST, ...)\nRule broken."
	passed := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeLabels: []string{"SNAP-PAG-001"}, State: types.SpecStatePassed}
	data, err := json.Marshal([]types.Report{{SuiteDescription: rule.SuiteDescription, SpecReports: types.SpecReports{failed, passed}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReportCommand: harness report writes the Markdown summary (to
// standard output by default, else appended to a file), the annotations
// and the outputs of a JSON report, and refuses a wrong command line.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	report := writeRunReport(t, dir)
	code, out, errOut := runCmd(t, "report", report)
	if code != exitOK || errOut != "" || !strings.HasPrefix(out, "## Conformance: FAILED\n") || !strings.Contains(out, "#### PARAM-PAG-006 MUST: ") {
		t.Errorf("harness report FILE: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	summary, outputs := filepath.Join(dir, "summary.md"), filepath.Join(dir, "outputs")
	os.WriteFile(summary, []byte("# earlier step\n"), 0o644)
	code, out, errOut = runCmd(t, "report", "--markdown", summary, "--github-output", outputs, "--github-annotations", report)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.HasPrefix(out, "::error title=PARAM-PAG-006 MUST failed::") || strings.Contains(out, "## Conformance") {
		t.Errorf("annotations on standard output, and only those: %q", out)
	}
	md, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(md), "# earlier step\n## Conformance: FAILED") {
		t.Errorf("the summary was not appended to: %q", md)
	}
	if o, _ := os.ReadFile(outputs); !strings.HasPrefix(string(o), "verdict=failed\nfailed=1\npassed=1\n") {
		t.Errorf("outputs %q", o)
	}
	waivers := filepath.Join(dir, "w.yaml")
	os.WriteFile(waivers, []byte("- rule: SNAP-PAG-001\n  reason: r\n  expires: 2099-01-01\n"), 0o644)
	if code, out, _ := runCmd(t, "report", "--waivers", waivers, report); code != exitOK || !strings.Contains(out, "- **SNAP-PAG-001** until 2099-01-01 (r): the rule passed: drop the waiver") {
		t.Errorf("with --waivers: exit %d, the unused waiver not listed:\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, exitUsage, "no report: give the JSON report harness conform --json-report wrote"},
		{[]string{"report", report, report}, exitUsage, "unexpected argument"},
		{[]string{"report", "--waivers", filepath.Join(dir, "none.yaml"), report}, exitUsage, "waivers"},
		{[]string{"report", filepath.Join(dir, "none.json")}, exitFailure, "harness report: read JSON report: open "},
		{[]string{"report", "--markdown", filepath.Join(dir, "no", "such", "dir.md"), report}, exitFailure, "harness report: append: open "},
	} {
		code, _, errOut := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d saying %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
