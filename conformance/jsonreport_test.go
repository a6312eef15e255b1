package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/onsi/ginkgo/v2/types"
)

// spec is a rule's report as Ginkgo writes it in its JSON report.
func jsonSpec(id string, state types.SpecState, msg string, entries map[string]any) types.SpecReport {
	s := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeLabels: []string{id}, State: state}
	s.Failure.Message = msg
	for _, name := range []string{rule.EntryOutcome, rule.EntryProblems, rule.EntryWaived, entryModel} {
		if v, ok := entries[name]; ok {
			s.ReportEntries = append(s.ReportEntries, types.ReportEntry{Name: name, Value: types.WrapEntryValue(v)})
		}
	}
	return s
}

func writeJSONReport(t *testing.T, reports []types.Report) string {
	t.Helper()
	data, err := json.Marshal(reports)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadJSONReport: a JSON report read back gives each rule its state,
// cases, problems and waiver, the model's failures by listing, the label
// filter, the seed and the reasons the run failed.
func TestReadJSONReport(t *testing.T) {
	problems := []rule.Problem{{Detail: "pagination.first=2 gave 1 rows", Request: "GET /x?pagination.first=2", Curl: "curl 'http://h/x?pagination.first=2'"}}
	coverage := report.ModelReport{Listing: "network-parameters", Queries: 300, Rows: 209, Whole: true, PairsCovered: 10, Pairs: 10}
	withFailure := coverage
	withFailure.Failures = []report.ModelFailure{{Rule: "PARAM-MOD-003", Query: "a=1 pagination.first=2", Shrunk: "pagination.first=2", Detail: "row 2"}}
	other := coverage
	other.Failures = []report.ModelFailure{{Rule: "PARAM-MOD-005", Query: "pagination.last=2", Detail: "want 2 rows"}}
	other.Error = "the builder's walk broke off"
	waiver := rule.Waiver{Rule: "GAMES-EPO-005", Reason: "31 epochs", Expires: "2099-12-31"}
	start := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	r := types.Report{
		SuiteDescription: rule.SuiteDescription, SuiteSucceeded: false,
		SuiteConfig: types.SuiteConfig{LabelFilter: "!strict", RandomSeed: 42},
		StartTime:   start, EndTime: start.Add(3 * time.Second), RunTime: 3 * time.Second,
		SpecialSuiteFailureReasons: []string{"the waiver of TX-PAG-001 expired 2020-01-01"},
		SpecReports: []types.SpecReport{
			jsonSpec("PARAM-PAG-006", types.SpecStateFailed, "PARAM-PAG-006 (MUST...)\nRule broken.", map[string]any{
				rule.EntryOutcome: rule.Outcome{Want: "N rows", Cases: 12}, rule.EntryProblems: problems}),
			jsonSpec("PARAM-MOD-003", types.SpecStateFailed, "m", map[string]any{entryModel: withFailure}),
			jsonSpec("PARAM-MOD-005", types.SpecStateFailed, "m", map[string]any{entryModel: other}),
			jsonSpec("GAMES-EPO-005", types.SpecStateSkipped, "WAIVED until 2099-12-31", map[string]any{rule.EntryWaived: waiver}),
			jsonSpec("SNAP-PAG-001", types.SpecStatePassed, "", map[string]any{rule.EntryOutcome: rule.Outcome{Cases: 5}}),
			jsonSpec("SNAP-PAG-002", types.SpecStateSkipped, "judged no case", nil),
		},
	}
	s, err := ReadJSONReport(writeJSONReport(t, []types.Report{{SuiteDescription: "another suite"}, r}))
	if err != nil {
		t.Fatal(err)
	}
	if s.LabelFilter != "!strict" || s.Seed != 42 || !s.Started.Equal(start) || s.Duration != 3*time.Second {
		t.Errorf("filter %q, seed %d, started %v, took %v", s.LabelFilter, s.Seed, s.Started, s.Duration)
	}
	if s.Passed() || len(s.FailReasons) != 1 || s.FailReasons[0] != "the waiver of TX-PAG-001 expired 2020-01-01" {
		t.Errorf("passed %v, reasons %q", s.Passed(), s.FailReasons)
	}
	byID := map[string]report.RuleResult{}
	for _, res := range s.Rules {
		byID[res.ID] = res
	}
	all, _ := Rules()
	if len(s.Rules) != len(all) {
		t.Errorf("%d rules, want the catalogue's %d", len(s.Rules), len(all))
	}
	want := map[string]string{"PARAM-PAG-006": report.StateFailed, "PARAM-MOD-003": report.StateFailed, "GAMES-EPO-005": report.StateWaived,
		"SNAP-PAG-001": report.StatePassed, "SNAP-PAG-002": report.StateSkipped, "TX-PAG-001": report.StateNotRun}
	for id, state := range want {
		if byID[id].State != state {
			t.Errorf("%s is %q, want %q", id, byID[id].State, state)
		}
	}
	if got := byID["PARAM-PAG-006"]; got.Cases != 12 || got.Want != "N rows" || len(got.Problems) != 1 || got.Problems[0] != problems[0] || got.Cite.Section == "" {
		t.Errorf("PARAM-PAG-006 read back as %+v", got)
	}
	if got := byID["GAMES-EPO-005"]; got.Waiver == nil || *got.Waiver != waiver {
		t.Errorf("the waiver read back as %+v", got.Waiver)
	}
	if len(s.Model) != 1 || s.Model[0].Listing != "network-parameters" || s.Model[0].Rows != 209 || len(s.Model[0].Failures) != 2 ||
		s.Model[0].Failures[0].Shrunk != "pagination.first=2" || s.Model[0].Failures[1].Rule != "PARAM-MOD-005" ||
		s.Model[0].Error != "the builder's walk broke off" {
		t.Errorf("the model read back as %+v", s.Model)
	}
}

// TestReadJSONReportSucceeded: a report of a suite that did not succeed
// fails when read back, though no rule failed.
func TestReadJSONReportSucceeded(t *testing.T) {
	for _, succeeded := range []bool{true, false} {
		r := types.Report{SuiteDescription: rule.SuiteDescription, SuiteSucceeded: succeeded,
			SpecReports: []types.SpecReport{jsonSpec("SNAP-PAG-001", types.SpecStatePassed, "", nil)}}
		s, err := ReadJSONReport(writeJSONReport(t, []types.Report{r}))
		if err != nil {
			t.Fatal(err)
		}
		if s.Passed() != succeeded {
			t.Errorf("a suite that succeeded=%v reads back passed=%v (%q)", succeeded, s.Passed(), s.FailReasons)
		}
	}
}

func TestReadJSONReportErrors(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "x.json")
	os.WriteFile(notJSON, []byte("<html>"), 0o644)
	tests := []struct{ path, want string }{
		{filepath.Join(dir, "missing.json"), "read JSON report: open"},
		{notJSON, "not a Ginkgo JSON report"},
		{writeJSONReport(t, []types.Report{{SuiteDescription: "other"}}), `no report of the suite "Chain data query API conformance" in it`},
	}
	for _, tc := range tests {
		if _, err := ReadJSONReport(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadJSONReport(%s): %v, want %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}
