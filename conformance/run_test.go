package conformance

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/report"
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
		if out := outs[i].String(); strings.Count(out, "Will run 1 of ") != 1 || strings.Count(out, "Conformance summary") != 1 {
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
