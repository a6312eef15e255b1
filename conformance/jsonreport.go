package conformance

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/onsi/ginkgo/v2/types"
)

// entryModel is the report entry of a model rule (conformance/modelrules
// adds it): its listing's coverage and the rule's failures with their
// shrunk queries.
const entryModel = "model"

// ReadJSONReport reads the JSON report a run wrote (--json-report) back
// into the run's summary, for the reports made afterwards from it (a CI
// job's summary, its annotations): every rule of the suite with its
// outcome, cases, problems and waiver, the label filter, the seed, the
// model's coverage and failures, and the reasons the run failed beyond its
// rules. What the JSON report does not hold (the URLs, the traffic) is
// left zero. Rules are matched by ID against this binary's catalogue.
func ReadJSONReport(path string) (*report.Summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read JSON report: %w", err)
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("read JSON report %s: not a Ginkgo JSON report: %w", path, err)
	}
	var r *types.Report
	for i := range reports {
		if reports[i].SuiteDescription == rule.SuiteDescription {
			r = &reports[i]
			break
		}
	}
	if r == nil {
		return nil, fmt.Errorf("read JSON report %s: no report of the suite %q in it (is it harness conform's --json-report?)", path, rule.SuiteDescription)
	}
	rules, err := Rules()
	if err != nil {
		return nil, fmt.Errorf("read JSON report: %w", err)
	}
	s := &report.Summary{
		LabelFilter: r.SuiteConfig.LabelFilter,
		Started:     r.StartTime,
		Duration:    r.RunTime,
		Seed:        r.SuiteConfig.RandomSeed,
		Rules:       ruleResults(rules, *r),
		Model:       modelEntries(*r),
		FailReasons: r.SpecialSuiteFailureReasons,
	}
	if !r.SuiteSucceeded && s.Passed() {
		s.FailReasons = append(s.FailReasons, "the suite did not succeed (see the JSON report)")
	}
	return s, nil
}

// modelEntries gathers the model rules' entries into one report per
// listing: its coverage (the same in each of its rules' entries) and
// every rule's failures.
func modelEntries(r types.Report) []report.ModelReport {
	var out []report.ModelReport
	index := map[string]int{}
	for _, spec := range r.SpecReports {
		for _, e := range spec.ReportEntries {
			if e.Name != entryModel {
				continue
			}
			var m report.ModelReport
			if !entryValue(e, &m) {
				continue
			}
			i, ok := index[m.Listing]
			if !ok {
				index[m.Listing] = len(out)
				out = append(out, m)
				continue
			}
			out[i].Failures = append(out[i].Failures, m.Failures...)
			if out[i].Error == "" {
				out[i].Error = m.Error
			}
		}
	}
	return out
}
