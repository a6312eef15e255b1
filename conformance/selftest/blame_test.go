package selftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/report"
)

// blamed is one query a failure of a model rule reports.
type blamed struct {
	rule, listing, query string
}

// blamedQueries lists every query the failed model rules of a run report:
// each failure's first query and its shrunk one, as sent.
func blamedQueries(t *testing.T, r result) []blamed {
	t.Helper()
	var out []blamed
	for _, s := range r.failed() {
		if !slices.Contains(s.Labels(), "model") {
			continue
		}
		for _, e := range s.ReportEntries {
			if e.Name != "model" {
				continue
			}
			var mr report.ModelReport
			if err := json.Unmarshal([]byte(e.Value.AsJSON), &mr); err != nil {
				t.Fatalf("the model entry of %s is not a ModelReport: %v", fullText(s), err)
			}
			for _, f := range mr.Failures {
				out = append(out, blamed{rule: f.Rule, listing: mr.Listing, query: f.Encoded})
				if f.Shrunk != "" {
					out = append(out, blamed{rule: f.Rule, listing: mr.Listing, query: f.ShrunkEncoded})
				}
			}
		}
	}
	return out
}

// checkBlame asks the clean server and the defective one every query the
// failed model rules of run r report, and fails the test for each whose
// answers are the same: a failure must blame a query whose answer the
// defect changes. It returns how many queries it asked each.
func checkBlame(t *testing.T, clean, defective string, r result) int {
	t.Helper()
	qs := blamedQueries(t, r)
	for _, b := range qs {
		l, ok := model.ListingNamed(b.listing)
		if !ok {
			t.Errorf("%s: a failure of listing %q, which is none of the API's", b.rule, b.listing)
			continue
		}
		same, err := sameAnswer(clean+l.Path(), defective+l.Path(), b.query)
		switch {
		case err != nil:
			t.Errorf("%s: ask %s?%s: %v", b.rule, l.Path(), b.query, err)
		case same:
			t.Errorf("%s blames %s?%s, whose answer the defect does not change", b.rule, l.Path(), b.query)
		}
	}
	return len(qs)
}

// sameAnswer asks two servers the same query and reports whether they
// answer alike: the same status and the same JSON (key order and spacing
// aside).
func sameAnswer(a, b, query string) (bool, error) {
	var status [2]int
	var body [2]any
	for i, u := range []string{a, b} {
		if query != "" {
			u += "?" + query
		}
		client := http.Client{Timeout: time.Minute}
		resp, err := client.Get(u)
		if err != nil {
			return false, err
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return false, err
		}
		status[i] = resp.StatusCode
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&body[i]); err != nil {
			body[i] = string(raw)
		}
	}
	return status[0] == status[1] && reflect.DeepEqual(body[0], body[1]), nil
}

// selftestSeedsEnv, set to N, makes TestCoverDefectsEverySeed run each
// cover defect with the seeds 1 to N (make selftest-seeds: 10).
const selftestSeedsEnv = "HARNESS_SELFTEST_SEEDS"

// TestCoverDefectsEverySeed runs the suite against each cover defect with
// every seed from 1 to $HARNESS_SELFTEST_SEEDS: each is caught by its MUST
// rule with every seed, and every query its failures report is one whose
// answer the defect changes. It is not part of make test (a minute or two
// on two cores): make selftest-seeds runs it.
func TestCoverDefectsEverySeed(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(selftestSeedsEnv))
	if n <= 0 {
		t.Skipf("set %s=N to run each cover defect with the seeds 1 to N (make selftest-seeds)", selftestSeedsEnv)
	}
	t.Parallel()
	clean := server(t, defect{})
	ds := coverDefects()
	caught := make([][]string, len(ds))
	for i, d := range ds {
		caught[i] = make([]string, n)
		for seed := 1; seed <= n; seed++ {
			t.Run(fmt.Sprintf("%s/seed-%d", d.name, seed), func(t *testing.T) {
				t.Parallel()
				srv := server(t, d)
				r := conform(t, srv.URL, "--label-filter", d.scope(), "--seed", strconv.Itoa(seed))
				mark := "missed"
				for _, s := range r.failed() {
					if slices.Contains(s.Labels(), d.rule) && s.State.Is(types.SpecStateFailureStates) {
						mark = "caught"
					}
				}
				if mark != "caught" {
					t.Errorf("seed %d: %s (%s) did not fail\n%s", seed, d.rule, d.what, tail(r.output))
				}
				asked := checkBlame(t, clean.URL, srv.URL, r)
				caught[i][seed-1] = fmt.Sprintf("%s (%d queries blamed)", mark, asked)
			})
		}
	}
	t.Cleanup(func() {
		var b strings.Builder
		for i, d := range ds {
			fmt.Fprintf(&b, "%-32s %s\n", d.name, strings.Join(caught[i], ", "))
		}
		t.Logf("each cover defect by seed:\n%s", b.String())
	})
}

// TestExamplesAreAskedFirst runs the suite against two defects with an
// examples file each: a run saves its shrunk failing queries there, and
// the next asks them first. Against the clean mock, the examples of the
// defect whose cursors name a place in a filtered answer no longer place a
// row, are not judged, and the run passes; against the defect whose IDs
// match in any case, with another seed, the examples fail again.
func TestExamplesAreAskedFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: four runs of the suite")
	}
	t.Parallel()
	byName := map[string]defect{}
	for _, d := range coverDefects() {
		byName[d.name] = d
	}
	// saved runs the suite against d with an examples file and returns the
	// file and the examples it holds.
	saved := func(d defect, srv string) (string, []model.Example) {
		path := filepath.Join(t.TempDir(), "examples.json")
		r := conform(t, srv, "--label-filter", d.rule, "--examples", path)
		exs, err := model.LoadExamples(path)
		if err != nil || len(exs) == 0 || r.exitCode != 1 {
			t.Fatalf("%s: the run (exit %d) saved %d examples (%v)", d.name, r.exitCode, len(exs), err)
		}
		for _, e := range exs {
			if e.Rule != d.rule || e.Listing != d.listing || e.Seed != 1 || e.Time.IsZero() {
				t.Errorf("example %+v, want the rule %s of %s, seed 1, and a time", e, d.rule, d.listing)
			}
		}
		return path, exs
	}
	// report reads the model report of d's listing from a run.
	modelReport := func(r result, listing string) report.ModelReport {
		var mr report.ModelReport
		for _, s := range r.specs() {
			for _, e := range s.ReportEntries {
				if e.Name == "model" && json.Unmarshal([]byte(e.Value.AsJSON), &mr) == nil && mr.Listing == listing {
					return mr
				}
			}
		}
		return mr
	}

	cursors := byName["filtered-cursor-offset"]
	path, exs := saved(cursors, server(t, cursors).URL)
	clean := conform(t, server(t, defect{}).URL, "--label-filter", cursors.rule, "--examples", path)
	if got := modelReport(clean, cursors.listing).Sources["example"]; clean.exitCode != 0 || got != len(exs) {
		t.Errorf("the clean mock with the examples: exit %d, %d examples asked; want a pass having asked the %d", clean.exitCode, got, len(exs))
	}

	anyCase := byName["node-id-any-case"]
	srv := server(t, anyCase)
	path, exs = saved(anyCase, srv.URL)
	again := conform(t, srv.URL, "--label-filter", anyCase.rule, "--examples", path, "--seed", "7")
	mr := modelReport(again, anyCase.listing)
	fromExample := false
	for _, s := range again.failed() {
		for _, e := range s.ReportEntries {
			var mr report.ModelReport
			if e.Name == "model" && json.Unmarshal([]byte(e.Value.AsJSON), &mr) == nil {
				for _, f := range mr.Failures {
					fromExample = fromExample || f.Source == "example"
				}
			}
		}
	}
	if again.exitCode != 1 || mr.Sources["example"] != len(exs) || !fromExample {
		t.Errorf("the defect again with seed 7: exit %d, %d examples asked of %d, a failure from an example: %v", again.exitCode, mr.Sources["example"], len(exs), fromExample)
	}
}
