package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/onsi/ginkgo/v2/types"
)

// TestRunAgain: Run runs the suite as often as asked in one process, each
// run on its own configuration and output, and calls at once take turns;
// Rules lists the same rules before and after.
func TestRunAgain(t *testing.T) {
	before, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	// A listing of network parameters with no row: the selected rule runs
	// and finds nothing to judge.
	base := routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: answer(200, "application/json", paramsPage)})
	const filter = "PARAM-PAG-001"
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 3)
	summaries := make([]*report.Summary, len(outs))
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Run(config.Config{BaseURL: base}, RunOptions{LabelFilter: filter, Output: &outs[i]})
			summaries[i] = s
			if err != nil {
				t.Errorf("run %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	for i, s := range summaries {
		if s == nil {
			continue
		}
		if len(s.Rules) != len(before) {
			t.Errorf("run %d reports %d rules, want %d", i, len(s.Rules), len(before))
		}
		for _, r := range s.Rules {
			if selected := r.ID == filter; selected == (r.State == report.StateNotRun) {
				t.Errorf("run %d: rule %s is %s", i, r.ID, r.State)
			}
		}
		if out := outs[i].String(); strings.Count(out, "Conformance summary") != 1 || strings.Count(out, "Rules: ") != 1 {
			t.Errorf("run %d's output is not one run's report:\n%s", i, out)
		}
	}
	after, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("Rules lists %d rules after the runs, %d before", len(after), len(before))
	}
}

// TestRunConsole: the console carries no Ginkgo header or count (one seed,
// one count: the summary's), colour only on a terminal and without
// NoColor; Ginkgo's seed is the suite's, and the JSON report fails with
// the run, saying why (here --fail-on-skip).
func TestRunConsole(t *testing.T) {
	base := routes(t, map[string]http.HandlerFunc{paging.ParametersListing.Path: answer(200, "application/json", paramsPage)})
	defer func(prev func(io.Writer) bool) { terminal = prev }(terminal)
	tests := []struct {
		name      string
		terminal  bool
		noColor   bool
		wantColor bool
	}{
		{"a terminal", true, false, true},
		{"a terminal with NO_COLOR", true, true, false},
		{"not a terminal", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			terminal = func(io.Writer) bool { return tc.terminal }
			var out bytes.Buffer
			jsonFile := filepath.Join(t.TempDir(), "r.json")
			_, err := Run(config.Config{BaseURL: base, Seed: 7}, RunOptions{LabelFilter: "PARAM-PAG-001", Output: &out, NoColor: tc.noColor,
				FailOnSkip: true, JSONReportFile: jsonFile})
			if err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if got := strings.Contains(text, "\x1b["); got != tc.wantColor {
				t.Errorf("colour codes in the output: %v, want %v\n%q", got, tc.wantColor, text)
			}
			plain := ansiEscape.ReplaceAllString(text, "")
			for _, gone := range []string{"Running Suite", "Random Seed", "Will run", "Ran 0 of", "SUCCESS!", "FAIL!"} {
				if strings.Contains(plain, gone) {
					t.Errorf("the output still has Ginkgo's %q:\n%s", gone, plain)
				}
			}
			if strings.Count(plain, "Rules: ") != 1 {
				t.Errorf("the output has not one count of rules:\n%s", plain)
			}
			data, err := os.ReadFile(jsonFile)
			if err != nil {
				t.Fatal(err)
			}
			var reports []types.Report
			if err := json.Unmarshal(data, &reports); err != nil || len(reports) != 1 {
				t.Fatalf("JSON report: %v", err)
			}
			r := reports[0]
			if r.SuiteConfig.RandomSeed != 7 {
				t.Errorf("Ginkgo's seed %d, want the suite's 7", r.SuiteConfig.RandomSeed)
			}
			if r.SuiteSucceeded || !slices.Contains(r.SpecialSuiteFailureReasons, "1 rules skipped (--fail-on-skip)") {
				t.Errorf("the JSON report: succeeded %v, reasons %q; want a failure saying --fail-on-skip", r.SuiteSucceeded, r.SpecialSuiteFailureReasons)
			}
		})
	}
}

func TestSpecialReasons(t *testing.T) {
	s := &report.Summary{Stopped: "the run deadline passed", ExpiredWaivers: []rule.Waiver{{Rule: "A-A-001", Expires: "2020-01-01"}},
		FailOnSkip: true, Rules: []report.RuleResult{{State: report.StateSkipped}}}
	got := specialReasons(s, nil)
	want := []string{"the run deadline passed", "the waiver of A-A-001 expired 2020-01-01", "1 rules skipped (--fail-on-skip)"}
	if !slices.Equal(got, want) {
		t.Errorf("reasons %q, want %q", got, want)
	}
	if got := specialReasons(s, []string{"the run deadline passed"}); slices.Contains(got, "the run deadline passed") {
		t.Errorf("a reason already given is given again: %q", got)
	}
	if got := specialReasons(&report.Summary{}, nil); got != nil {
		t.Errorf("a passing run has reasons %q", got)
	}
}
