package selftest

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chaindata/harness/mockserver"
)

// realNetworkWaivers is the waiver file shipped for the real network.
var realNetworkWaivers = filepath.Join("..", "..", "docs", "waivers-real-network.yaml")

// realNetwork is the mock with the real network's known departures from
// the spec (docs/waivers-real-network.yaml explains each): a window asked
// for with both ends may span 31 epochs (its defaults keep the spec's 30),
// and games paged backwards are answered with a 500.
var realNetwork = defect{
	name: "real-network", listing: "games", area: "pagination",
	what: "the real network's known departures: 31-epoch windows, games backward paging answered 500",
	wrap: func(inner http.Handler) http.Handler {
		s, err := defaultStore()
		if err != nil {
			panic(err)
		}
		wide := mockserver.New(mockserver.Config{EpochWindow: 31}, s)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			switch {
			case r.URL.Path == gamesPath && (q.Get("pagination.last") != "" || q.Get("pagination.before") != ""):
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(`{"code":13,"message":"Internal error","details":[{"@type":"type.googleapis.com/core.ErrorDetail","code":10000,"message":"failed to get games","inner":"backward paging is not supported"}]}`))
			case r.URL.Path == gamesPath && q.Get("epochFrom") != "" && q.Get("epochTo") != "":
				wide.ServeHTTP(w, r)
			default:
				inner.ServeHTTP(w, r)
			}
		})
	},
}

// TestRealNetworkWaivers runs the suite against a mock that departs from
// the spec as the real network does: without waivers the run fails; with
// docs/waivers-real-network.yaml every such failure is waived, named as
// waived in the reports, and the run passes.
func TestRealNetworkWaivers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	srv := server(t, realNetwork)
	// The mock does not grow: the growth rule waits --growth-wait, then
	// skips (by default it waits seconds for a sign of growth).
	bare := conform(t, srv.URL, "--label-filter", "games", "--growth-wait", "100ms")
	if bare.exitCode != 1 || len(bare.failed()) == 0 {
		t.Fatalf("without waivers: exit %d with %d failed rules, want 1 and failures\n%s", bare.exitCode, len(bare.failed()), tail(bare.output))
	}
	waived := conform(t, srv.URL, "--label-filter", "games", "--growth-wait", "100ms", "--waivers", abs(t, realNetworkWaivers))
	if waived.exitCode != 0 {
		var ids []string
		for _, s := range waived.failed() {
			ids = append(ids, ruleIDOf(s))
		}
		t.Errorf("with the real network's waivers: exit %d, want 0; rules still failing: %v\n%s", waived.exitCode, ids, tail(waived.output))
	}
	states := map[string]types.SpecState{}
	for _, s := range waived.specs() {
		states[ruleIDOf(s)] = s.State
	}
	for _, s := range bare.failed() {
		id := ruleIDOf(s)
		if states[id] != types.SpecStateSkipped || !waivedIn(waived, id) {
			t.Errorf("rule %s failed without waivers but is %s, not waived, with them", id, states[id])
		}
	}
	if !strings.Contains(waived.output, "WAIVED") || !strings.Contains(string(waived.junit), "waived until") {
		t.Errorf("the console and the JUnit report do not say which rules were waived")
	}
}

// TestWaiverFileErrors checks the exit codes of waiver files: an expired
// waiver fails the run (1) even when every rule passes, a waiver naming
// no rule of the suite is a wrong command line (2).
func TestWaiverFileErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs harness conform six times")
	}
	t.Parallel()
	srv := server(t, defect{})
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		file     string
		wantExit int
		wantSay  string
	}{
		{"a waiver in force", write("ok.yaml", "waivers:\n  - rule: PARAM-PAG-003\n    reason: keys sorted by a collation\n    expires: 2099-12-31\n"), 0, "Verdict: PASSED"},
		{"an expired waiver", write("old.yaml", "- rule: PARAM-PAG-003\n  reason: keys sorted by a collation\n  expires: 2020-01-01\n"), 1, "EXPIRED waiver of PARAM-PAG-003"},
		{"an unknown rule ID", write("unknown.json", `{"waivers": [{"rule": "PARAM-PAG-999", "reason": "x", "expires": "2099-12-31"}]}`), 2, `no rule has the ID "PARAM-PAG-999"`},
		{"no reason", write("noreason.yaml", "- rule: PARAM-PAG-003\n  expires: 2099-12-31\n"), 2, "gives no reason"},
		{"a bad date", write("baddate.yaml", "- rule: PARAM-PAG-003\n  reason: r\n  expires: next year\n"), 2, "is not a date"},
		{"an unknown field", write("field.yaml", "- rule: PARAM-PAG-003\n  reason: r\n  expires: 2099-12-31\n  owner: me\n"), 2, "owner"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The waived rule alone: the exit codes are the waiver file's.
			code, out := conformRaw(t, srv.URL, "--label-filter", "PARAM-PAG-003", "--waivers", tc.file)
			if code != tc.wantExit {
				t.Errorf("exit %d, want %d\n%s", code, tc.wantExit, tail(out))
			}
			if !strings.Contains(out, tc.wantSay) {
				t.Errorf("the output does not say %q\n%s", tc.wantSay, tail(out))
			}
		})
	}
}

// TestRealNetworkWaiverFile checks the shipped waiver file: it loads, names
// only rules of the suite, and each waiver has a reason and a date.
func TestRealNetworkWaiverFile(t *testing.T) {
	data, err := os.ReadFile(realNetworkWaivers)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GAMES-EPO-005", "GAMES-PAG-015"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s does not waive %s", realNetworkWaivers, want)
		}
	}
}

func ruleIDOf(s types.SpecReport) string {
	for _, l := range s.Labels() {
		if len(l) > 4 && strings.Count(l, "-") == 2 && strings.ToUpper(l) == l {
			return l
		}
	}
	return ""
}

func waivedIn(r result, id string) bool {
	for _, s := range r.specs() {
		if ruleIDOf(s) != id {
			continue
		}
		return slices.ContainsFunc(s.ReportEntries, func(e types.ReportEntry) bool { return e.Name == "waived" })
	}
	return false
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
