package selftest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/schemas"
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
	// rewrote, when set, checks after the run that the variant's wrapper
	// changed what it is meant to change.
	rewrote func(t *testing.T)
}

// tally counts what a variant's wrapper rewrote, by field, across the
// concurrent requests of a run.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *tally) add(field string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[field]++
}

// expect fails the test unless every field was rewritten at least once.
func (c *tally) expect(t *testing.T, fields ...string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range fields {
		if c.n[f] == 0 {
			t.Errorf("the variant's wrapper never rewrote %s (rewrote %v)", f, c.n)
		}
	}
}

// specIntegersAsNumbers rewrites the 200 answers of a listing: every field
// the spec types uint64 or int64 (x-spec-types) that the mock writes as a
// string of digits becomes the JSON integer of the same value, as a
// deployment may write it (spec section 1). It walks the body with the
// response schema and counts what it rewrote by field name.
func specIntegersAsNumbers(path, schema string, seen *tally) func(http.Handler) http.Handler {
	root := schemas.MustLookup(schema)
	return rewrite(path, nil, func(_ url.Values, a *answer) {
		if a.status == http.StatusOK && a.obj() != nil {
			integersAsNumbers(root, a.obj(), seen)
		}
	})
}

func integersAsNumbers(n *schemas.Node, v any, seen *tally) {
	n = n.Resolve()
	if t := n.NullableTarget(); t != nil {
		integersAsNumbers(t, v, seen)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			p := n.Property(k)
			if p == nil {
				continue
			}
			if t := n.SpecTypes[k]; t == "uint64" || t == "int64" {
				if s, ok := val.(string); ok {
					x[k] = json.Number(s)
					seen.add(k)
				}
				continue
			}
			integersAsNumbers(p, val, seen)
		}
	case []any:
		if n.Items != nil {
			for _, e := range x {
				integersAsNumbers(n.Items, e, seen)
			}
		}
	}
}

// chain wraps a handler in each wrapper in turn, the first innermost.
func chain(wraps ...func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		for _, w := range wraps {
			h = w(h)
		}
		return h
	}
}

// shapesOnlyTheReferenceGives rewrites snapshots and transactions with
// values of shapes the spec does not state (docs/schemas.md, "What the spec
// states"): snapshots' block hashes in upper-case hex and core versions
// without their "v"; announceNode's chainPubKey in no base64, and its
// signatures' hex in upper case.
func shapesOnlyTheReferenceGives(seen *tally) func(http.Handler) http.Handler {
	snapshots := rewrite(snapshotsPath, nil, func(_ url.Values, a *answer) {
		if a.status != http.StatusOK {
			return
		}
		eachNode(a, func(n map[string]any) {
			if h, ok := n["blockHash"].(string); ok {
				n["blockHash"] = strings.ToUpper(h)
				seen.add("blockHash")
			}
			if v, ok := n["coreVersion"].(string); ok {
				n["coreVersion"] = strings.TrimPrefix(v, "v")
				seen.add("coreVersion")
			}
		})
	})
	transactions := rewrite(transactionPath, nil, func(_ url.Values, a *answer) {
		if a.status != http.StatusOK {
			return
		}
		for _, t := range txs(a) {
			cmd, _ := t.(map[string]any)["command"].(map[string]any)
			node, _ := cmd["announceNode"].(map[string]any)
			if node == nil {
				continue
			}
			if k, ok := node["chainPubKey"].(string); ok {
				node["chainPubKey"] = "ed25519:" + strings.TrimRight(k, "=")
				seen.add("chainPubKey")
			}
			for _, sig := range []string{"ethereumSignature", "coreSignature"} {
				if m, ok := node[sig].(map[string]any); ok {
					if v, ok := m["value"].(string); ok {
						m["value"] = strings.ToUpper(v)
						seen.add("signature value")
					}
				}
			}
		}
	})
	return chain(snapshots, transactions)
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
	var rotationHeights, integers, shapes tally
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
				"ROT-MOD-002", "ROT-MOD-004", "ROT-MOD-006", "ROT-MOD-009",
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
		{
			name:   "rotation-ties-in-another-order-everywhere",
			what:   "key rotations that share a block height come in nodeId descending order in every answer, consistently (pages, cursors, the nodeId filter, newestFirst=false)",
			filter: "key-rotations",
			wrap:   tiesReversed(rotationsPath, rotationTieKey, false),
			// docs/behaviour.md's tie order. The model's rule of ties
			// (ROT-MOD-007) passes: it judges the answers against the
			// order of the deployment's own unfiltered walks, which this
			// one keeps everywhere.
			// ROT-MOD-004: a cursor of a row not held, placed among the
			// rows of its height by docs/behaviour.md's order alone.
			strictFailures: []string{"ROT-PAG-004", "ROT-MOD-004", "ROT-MOD-007"},
		},
		{
			name:   "game-ties-in-another-order-unfiltered",
			what:   "games that share an epoch come in game ID descending order in the answers to queries without a filter or an epoch window (every page, cursor and flag of that order), and in the mock's order under any filter or window: ties ordered differently by different queries",
			filter: "games",
			wrap:   tiesReversed(gamesPath, gameTieKey, true),
			// docs/behaviour.md's tie order, judged by the hand-written
			// rule and the model's SHOULD rules.
			// GAMES-MOD-004: a query with a parameter docs/behaviour.md
			// ignores (an unknown name) is the unfiltered one there, and
			// this variant orders it as a filtered one.
			strictFailures: []string{"GAMES-PAG-004", "GAMES-MOD-004", "GAMES-MOD-007"},
		},
		{
			name:           "number-where-a-string-belongs",
			what:           "key rotations' blockHeight (uint64) is a JSON integer, not a digit string: the spec lets a deployment write either",
			filter:         "key-rotations",
			wrap:           specIntegersAsNumbers(rotationsPath, "ListEthereumKeyRotationsResponse", &rotationHeights),
			strictFailures: []string{"ROT-SCH-005"},
			rewrote:        func(t *testing.T) { rotationHeights.expect(t, "blockHeight") },
		},
		{
			name: "both-integer-encodings",
			what: "every field the spec types uint64 or int64 is a JSON integer, in every listing that has one (the key rotations' blockHeight; the transactions' block and their commands' sizes, times, epochs...); the rest stays as the mock writes it, the five fields already numbers among them",
			// Only these listings' records have such fields.
			filter: "key-rotations || transactions",
			wrap: chain(specIntegersAsNumbers(rotationsPath, "ListEthereumKeyRotationsResponse", &integers),
				specIntegersAsNumbers(transactionPath, "ListTransactionsResponse", &integers)),
			strictFailures: []string{"ROT-SCH-005", "TX-SCH-003"},
			rewrote: func(t *testing.T) {
				integers.expect(t, "blockHeight", "block", "size", "expiresAt", "fromEpoch", "enactmentTimestamp")
			},
		},
		{
			name:           "shapes-only-the-reference-gives",
			what:           "snapshots' blockHash in upper-case hex and coreVersion without its v; announceNode's chainPubKey not base64, its signatures in upper-case hex",
			filter:         "snapshots || transactions",
			wrap:           shapesOnlyTheReferenceGives(&shapes),
			strictFailures: []string{"SNAP-SCH-005", "TX-SCH-003"},
			rewrote:        func(t *testing.T) { shapes.expect(t, "blockHash", "coreVersion", "chainPubKey", "signature value") },
		},
		{
			name:   "parameters-in-another-order",
			what:   "network parameters are listed Z to A, consistently (defect parameters-Z-to-A): the spec gives them no order",
			filter: "network-parameters",
			wrap:   defectNamed("parameters-Z-to-A").wrap,
			// The model's SHOULD rules judge docs/behaviour.md's A to Z:
			// the key order's own (PARAM-MOD-015), and the queries only
			// docs/behaviour.md decides.
			strictFailures: []string{"PARAM-PAG-003", "PARAM-MOD-002", "PARAM-MOD-015"},
		},
		{
			name:   "parameters-reversed-by-newestFirst-false",
			what:   "network parameters are listed A to Z, and Z to A under newestFirst=false, consistently: the spec gives them no age, so newestFirst may order them either way",
			filter: "network-parameters",
			wrap: func(inner http.Handler) http.Handler {
				reversed := parametersZToA(inner)
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					q := r.URL.Query()
					if q.Get("pagination.newestFirst") == "false" || q.Get("pagination.newest_first") == "false" {
						reversed.ServeHTTP(w, r)
						return
					}
					inner.ServeHTTP(w, r)
				})
			},
			strictFailures: []string{"PARAM-PAG-004", "PARAM-MOD-002", "PARAM-MOD-004", "PARAM-MOD-015"},
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
				id := ruleIDOf(s)
				got = append(got, id)
				if !slices.Contains(s.Labels(), "strict") {
					t.Errorf("%s: MUST rule %s failed:\n%s", vr.what, fullText(s), clip(s.Failure.Message, 2000))
				}
			}
			if vr.rewrote != nil {
				vr.rewrote(t)
			}
			sort.Strings(got)
			want := slices.Clone(vr.strictFailures)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: the full run fails %v, want exactly the SHOULD rules %v", vr.what, got, want)
				for _, s := range full.failed() {
					if id := ruleIDOf(s); !slices.Contains(want, id) {
						t.Logf("%s failed:\n%s", fullText(s), clip(s.Failure.Message, 3000))
					}
				}
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
