package selftest

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chaindata/harness/mockserver"
)

// variant is a server that follows the spec but not the mock's exact shape,
// as a real deployment of another release may: it must pass every MUST
// rule, and fail exactly the SHOULD rules that judge our reading.
type variant struct {
	name string
	what string
	wrap func(http.Handler) http.Handler
	// config changes the mock's configuration, and args are the run's
	// extra flags (optional).
	config func(*mockserver.Config)
	args   []string
	// filter limits both runs to the listings the variant touches ("":
	// every rule): the other listings' answers are the clean mock's, byte
	// for byte, which TestCleanMockPasses judges.
	filter string
	// strictFailures are the IDs of the SHOULD rules it must fail, and no
	// others.
	strictFailures []string
	// specAlone runs the spec's rules alone too ('!strict'), which must
	// exit 0. One variant is enough to show that selection and its exit
	// code: the full run of each variant shows that every rule it fails is
	// a SHOULD rule (labelled strict), and a rule's verdict does not
	// depend on the SHOULD rules run beside it.
	specAlone bool
}

// keepOnly drops every field of each transaction but the named ones.
func keepOnly(fields ...string) func(url.Values, *answer) {
	return func(_ url.Values, a *answer) {
		for _, t := range txs(a) {
			m, _ := t.(map[string]any)
			for k := range m {
				if !slices.Contains(fields, k) {
					delete(m, k)
				}
			}
		}
	}
}

// eachRecord calls f on every record of an answer: the nodes of a page, or
// the transactions.
func eachRecord(a *answer, f func(map[string]any)) {
	eachNode(a, f)
	for _, t := range txs(a) {
		if m, ok := t.(map[string]any); ok {
			f(m)
		}
	}
}

func variants() []variant {
	return []variant{
		{
			name:           "transactions-with-spec-fields-only",
			what:           "transactions carry only the spec's block, code and command, and a cursor",
			filter:         "transactions",
			wrap:           rewrite(transactionPath, nil, keepOnly("block", "code", "command", "cursor")),
			strictFailures: []string{"TX-PAG-002", "TX-SCH-003"},
		},
		{
			name:   "older-explorer",
			what:   "transactions lack createdAt, version and pow, as an older block explorer's do",
			filter: "transactions",
			wrap: rewrite(transactionPath, nil, func(_ url.Values, a *answer) {
				for _, t := range txs(a) {
					m, _ := t.(map[string]any)
					delete(m, "createdAt")
					delete(m, "version")
					delete(m, "pow")
				}
			}),
			strictFailures: []string{"TX-SCH-003"},
		},
		{
			name: "newer-release-adds-fields",
			what: "every record of every listing carries a field the spec does not show, and every command one more",
			wrap: rewrite("", nil, func(_ url.Values, a *answer) {
				eachRecord(a, func(n map[string]any) {
					n["addedInANewerRelease"] = "x"
					if c, ok := n["command"].(map[string]any); ok {
						c["alsoNew"] = map[string]any{"n": "1"}
					}
				})
			}),
			strictFailures: []string{"GAMES-SCH-004", "SNAP-SCH-005", "ROT-SCH-005", "PARAM-SCH-004", "TX-SCH-003"},
		},
		{
			name: "small-largest-page",
			what: "the largest page is 10 rows (and so is the default), and the suite is run with --page-size 10",
			config: func(c *mockserver.Config) {
				c.MaxPageSize, c.DefaultPageSize, c.TxMaxPageSize, c.TxDefaultPageSize = 10, 10, 10, 10
			},
			args: []string{"--page-size", "10"},
			// Its page sizes are not docs/behaviour.md's (default 1000 and
			// 50, maximum 5000): the model's SHOULD rules on the answers
			// that depend on them (no count, counts above 10, the maximum
			// and one above) fail, as they must; every MUST rule passes.
			strictFailures: []string{"TX-PAG-011", "TX-PAG-012",
				"GAMES-MOD-002", "GAMES-MOD-004", "GAMES-MOD-006", "GAMES-MOD-009", "GAMES-MOD-011",
				"SNAP-MOD-002", "SNAP-MOD-004", "SNAP-MOD-006", "SNAP-MOD-008", "SNAP-MOD-010",
				"ROT-MOD-002", "ROT-MOD-004", "ROT-MOD-006", "ROT-MOD-009", "ROT-MOD-011",
				"PARAM-MOD-002", "PARAM-MOD-004", "PARAM-MOD-006", "PARAM-MOD-008", "PARAM-MOD-010",
				"TX-MOD-002", "TX-MOD-004", "TX-MOD-006"},
		},
		{
			name:   "ties-in-another-order",
			what:   "under newestFirst=false, key rotations that share a block height come in another order",
			filter: "key-rotations",
			wrap:   defectNamed("ties-reordered-under-newestFirst-false").wrap,
			// The order it gives a tie depends on where the page ends (the
			// ties at a page's ends keep theirs, so that cursors stay as
			// they were): the model, which holds each direction to the
			// order its own walk showed, sees it in the answers of another
			// page size, here a SHOULD query's (no count: 1000 rows).
			strictFailures: []string{"ROT-MOD-004", "ROT-MOD-007", "ROT-PAG-007"},
			specAlone:      true,
		},
	}
}

func defectNamed(name string) defect {
	for _, d := range defects() {
		if d.name == name {
			return d
		}
	}
	panic("no defect " + name)
}

// TestSpecConformingVariantsPass runs the suite against each variant: the
// full run fails exactly the expected SHOULD rules, each labelled strict,
// and where the variant asks, the spec's rules alone ('!strict') pass.
func TestSpecConformingVariantsPass(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	alone := 0
	for _, vr := range variants() {
		if vr.specAlone {
			alone++
		}
		t.Run(vr.name, func(t *testing.T) {
			t.Parallel()
			srv := server(t, defect{wrap: vr.wrap, config: vr.config})
			// The mock does not grow: the growth rules wait --growth-wait,
			// then skip (by default they wait seconds for a sign of growth).
			args := append([]string{"--growth-wait", "100ms"}, vr.args...)
			only := "!strict"
			all := []string{}
			if vr.filter != "" {
				only = "!strict && " + vr.filter
				all = []string{"--label-filter", vr.filter}
			}
			if vr.specAlone {
				spec := conform(t, srv.URL, append([]string{"--label-filter", only}, args...)...)
				if spec.exitCode != 0 || len(spec.ran()) == 0 {
					var ids []string
					for _, s := range spec.failed() {
						ids = append(ids, ruleIDOf(s))
					}
					t.Errorf("%s: the spec's rules alone (%d ran) exit %d, want 0; failed: %v\n%s", vr.what, len(spec.ran()), spec.exitCode, ids, tail(spec.output))
				}
			}
			full := conform(t, srv.URL, append(all, args...)...)
			var got []string
			for _, s := range full.failed() {
				got = append(got, ruleIDOf(s))
				if !slices.Contains(s.Labels(), "strict") {
					t.Errorf("%s: MUST rule %s failed:\n%s", vr.what, fullText(s), clip(s.Failure.Message, 2000))
				}
			}
			sort.Strings(got)
			want := slices.Clone(vr.strictFailures)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: the full run fails %v, want exactly the SHOULD rules %v", vr.what, got, want)
			}
			if full.exitCode != 1 {
				t.Errorf("%s: the full run exits %d, want 1 (SHOULD rules failed)", vr.what, full.exitCode)
			}
		})
	}
	if alone != 1 {
		t.Errorf("%d variants run the spec's rules alone, want 1", alone)
	}
}
