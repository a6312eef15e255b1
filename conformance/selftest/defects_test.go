package selftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/mockserver"
)

// defect is a server with one deliberate fault and the rule that must catch
// it.
type defect struct {
	// name is the defect's name in test output and the table of
	// docs/conformance-selftest.md.
	name string
	// what says what the server does wrong.
	what string
	// listing and area are the labels the failing rule must carry.
	listing, area string
	// rule is the ID of the rule that must fail.
	rule string
	// judgesTraffic says the rule judges the answers to the requests of
	// the listing's other rules (the error bodies they drew), so that the
	// run selects those rules too.
	judgesTraffic bool
	// judgesRun says the rule judges the answers the run drew of its
	// listing (the observer's rules): the run selects the listing's other
	// rules too, hand-written and model, whose answers it reads.
	judgesRun bool
	// config changes the mock's configuration (optional).
	config func(*mockserver.Config)
	// wrap wraps the mock (optional).
	wrap func(inner http.Handler) http.Handler
	// start, when set, starts the server in place of the mock (for
	// defects of a live chain or of several replicas); the run then goes
	// through harness conform in a subprocess, the clock pacing it.
	start func(t *testing.T) *httptest.Server
	// args are the run's extra flags.
	args []string
	// flaky says the defect answers a query otherwise when it is asked
	// again: the failures must say so.
	flaky bool
}

// scope is the label filter a run against the defect needs: the rule that
// must catch it, selected by its ID as a user selects one rule; for a rule
// that judges the traffic of its listing's other rules, those rules too;
// and for a defect of the deployment as a whole, one listing's rules
// besides (the rule judges the run's traffic).
//
// One rule is enough to show the suite catches the defect, and the
// selection shows each rule catches it on its own, with no other rule run
// before it; whole runs are the clean and variant mocks' tests, where
// every rule must pass.
func (d defect) scope() string {
	switch {
	case d.listing == "deployment":
		return "(deployment || network-parameters) && !model && !growth"
	case d.judgesTraffic:
		return d.rule + " || (" + d.listing + " && !model && !growth)"
	case d.judgesRun:
		return d.rule + " || (" + d.listing + " && !growth)"
	}
	return d.rule
}

// answer is a response of the wrapped server. Its body is decoded only
// when a hook asks for it (obj): the race detector makes JSON work in this
// process costly, and most hooks change few of the answers they see.
type answer struct {
	status int
	header http.Header
	raw    []byte
	// decoded says whether obj decoded raw into body.
	decoded bool
	body    map[string]any
}

// call runs the inner handler on the request with the query replaced.
func call(inner http.Handler, r *http.Request, q url.Values) *answer {
	rec := httptest.NewRecorder()
	inner.ServeHTTP(rec, withQuery(r, q))
	return &answer{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
}

// withQuery returns a copy of the request with its query replaced.
func withQuery(r *http.Request, q url.Values) *http.Request {
	r2 := r.Clone(r.Context())
	u := *r.URL
	u.RawQuery = q.Encode()
	r2.URL = &u
	r2.RequestURI = u.RequestURI()
	return r2
}

// obj returns the body decoded when it is a JSON object, else nil. Once
// it has been called, write sends the decoded body, with whatever the hook
// changed in it, encoded anew.
func (a *answer) obj() map[string]any {
	if !a.decoded {
		a.decoded = true
		dec := json.NewDecoder(bytes.NewReader(a.raw))
		dec.UseNumber()
		_ = dec.Decode(&a.body) // not JSON: body stays nil and raw is sent as is
	}
	return a.body
}

func (a *answer) write(w http.ResponseWriter) {
	body := a.raw
	if a.body != nil {
		body, _ = json.Marshal(a.body)
	}
	for k, vs := range a.header {
		if k == "Content-Length" {
			continue
		}
		w.Header()[k] = vs
	}
	w.WriteHeader(a.status)
	w.Write(body)
}

// rewrite wraps a handler: for requests to path ("" for every path), req may
// change the query (it can ask the inner handler first with fetch), and resp
// may change the answer. Without resp, the inner handler answers the
// changed request itself.
func rewrite(path string,
	req func(q url.Values, fetch func(url.Values) *answer) url.Values,
	resp func(q url.Values, a *answer),
) func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if path != "" && r.URL.Path != path {
				inner.ServeHTTP(w, r)
				return
			}
			q := r.URL.Query()
			if req != nil {
				q = req(q, func(fq url.Values) *answer { return call(inner, r, fq) })
			}
			if resp == nil {
				inner.ServeHTTP(w, withQuery(r, q))
				return
			}
			a := call(inner, r, q)
			resp(q, a)
			a.write(w)
		})
	}
}

// Paths of the listings.
const (
	gamesPath       = "/api/v2/games"
	snapshotsPath   = "/api/v2/snapshots"
	rotationsPath   = "/api/v2/core/keys/ethereum/rotations"
	parametersPath  = "/api/v2/network/parameters"
	transactionPath = "/transactions"
)

// conn returns the page object of a paged answer, or nil.
func conn(a *answer) map[string]any {
	for _, v := range a.obj() {
		if m, ok := v.(map[string]any); ok {
			if _, ok := m["edges"]; ok {
				return m
			}
		}
	}
	return nil
}

func edges(c map[string]any) []any {
	e, _ := c["edges"].([]any)
	return e
}

func pageInfo(c map[string]any) map[string]any {
	m, _ := c["pageInfo"].(map[string]any)
	return m
}

func cursorOf(e any) string {
	m, _ := e.(map[string]any)
	s, _ := m["cursor"].(string)
	return s
}

func nodeOf(e any) map[string]any {
	m, _ := e.(map[string]any)
	n, _ := m["node"].(map[string]any)
	return n
}

// setEdges replaces a page's edges and keeps its cursors consistent with
// them, so that only the intended defect shows.
func setEdges(c map[string]any, es []any) {
	c["edges"] = es
	pi := pageInfo(c)
	if len(es) == 0 {
		pi["startCursor"], pi["endCursor"] = "", ""
		return
	}
	pi["startCursor"], pi["endCursor"] = cursorOf(es[0]), cursorOf(es[len(es)-1])
}

// eachNode calls f on every record of a paged answer.
func eachNode(a *answer, f func(n map[string]any)) {
	if c := conn(a); c != nil {
		for _, e := range edges(c) {
			if n := nodeOf(e); n != nil {
				f(n)
			}
		}
	}
}

// dropParam returns a request hook that removes parameters.
func dropParam(names ...string) func(url.Values, func(url.Values) *answer) url.Values {
	return func(q url.Values, _ func(url.Values) *answer) url.Values {
		for _, n := range names {
			q.Del(n)
		}
		return q
	}
}

// neighbour asks the inner handler for the cursor next to c in a direction.
func neighbour(fetch func(url.Values) *answer, q url.Values, countParam, cursorParam, c string) string {
	fq := url.Values{}
	for k, v := range q {
		if !strings.HasPrefix(k, "pagination.") {
			fq[k] = v
		}
	}
	fq.Set(countParam, "1")
	fq.Set(cursorParam, c)
	if cn := conn(fetch(fq)); cn != nil && len(edges(cn)) == 1 {
		return cursorOf(edges(cn)[0])
	}
	return ""
}

func txs(a *answer) []any {
	t, _ := a.obj()["transactions"].([]any)
	return t
}

// defects lists the defective servers, covering every listing and area.
func defects() []defect {
	return append(append(append(append(handDefects(), modelDefects()...), buildDefects()...), relationDefects()...), coverDefects()...)
}

// handDefects are the defects the hand-written rules catch.
func handDefects() []defect {
	return []defect{
		{
			name: "duplicated-row-at-page-boundary", listing: "snapshots", area: "pagination",
			what: "a page asked for with after=C starts with row C again",
			rule: "SNAP-PAG-001", // a forward walk (first/after) never repeats a row
			wrap: rewrite(snapshotsPath, func(q url.Values, fetch func(url.Values) *answer) url.Values {
				if c := q.Get("pagination.after"); c != "" {
					if prev := neighbour(fetch, q, "pagination.last", "pagination.before", c); prev != "" {
						q.Set("pagination.after", prev)
					} else {
						q.Del("pagination.after")
					}
				}
				return q
			}, nil),
		},
		{
			name: "dropped-row", listing: "games", area: "pagination",
			what: "a page asked for with after=C leaves out its first row",
			rule: "GAMES-PAG-002", // forward (first/after) and backward (last/before) walks return the same rows in the same order
			wrap: rewrite(gamesPath, nil, func(q url.Values, a *answer) {
				if q.Get("pagination.after") == "" {
					return // the answer stays as it is: no need to decode it
				}
				if c := conn(a); c != nil && len(edges(c)) > 0 {
					setEdges(c, edges(c)[1:])
				}
			}),
		},
		{
			name: "reversed-order", listing: "key-rotations", area: "pagination",
			what: "each page's rows come oldest first",
			rule: "ROT-PAG-003", // rows are newest first: blockHeight never increases from row to row
			wrap: rewrite(rotationsPath, nil, func(q url.Values, a *answer) {
				if c := conn(a); c != nil {
					es := slices.Clone(edges(c))
					slices.Reverse(es)
					setEdges(c, es)
				}
			}),
		},
		{
			name: "hasNextPage-true-on-last-page", listing: "network-parameters", area: "pagination",
			what: "hasNextPage is true on every page with rows, the last one included",
			rule: "PARAM-PAG-011", // the last page has hasNextPage false, and hasPreviousPage true when rows precede it
			wrap: rewrite(parametersPath, nil, func(q url.Values, a *answer) {
				if c := conn(a); c != nil && len(edges(c)) > 0 {
					pageInfo(c)["hasNextPage"] = true
				}
			}),
		},
		{
			name: "hasPreviousPage-always-false", listing: "snapshots", area: "pagination",
			what: "hasPreviousPage is false on every page",
			rule: "SNAP-PAG-012", // middle pages have hasPreviousPage and hasNextPage true
			wrap: rewrite(snapshotsPath, nil, func(q url.Values, a *answer) {
				if c := conn(a); c != nil {
					pageInfo(c)["hasPreviousPage"] = false
				}
			}),
		},
		{
			name: "before-cursor-one-row-off", listing: "snapshots", area: "pagination",
			what: "before=C resumes one row late: the page ends with C itself",
			rule: "SNAP-PAG-018", // before=C with last=N resumes with the N rows right before C
			wrap: rewrite(snapshotsPath, func(q url.Values, fetch func(url.Values) *answer) url.Values {
				if c := q.Get("pagination.before"); c != "" {
					if next := neighbour(fetch, q, "pagination.first", "pagination.after", c); next != "" {
						q.Set("pagination.before", next)
					} else {
						q.Del("pagination.before")
					}
				}
				return q
			}, nil),
		},
		{
			name: "endCursor-wrong", listing: "key-rotations", area: "pagination",
			what: "pageInfo.endCursor is the cursor of the page's first edge",
			rule: "ROT-PAG-011", // startCursor and endCursor are the cursors of the page's first and last edges
			wrap: rewrite(rotationsPath, nil, func(q url.Values, a *answer) {
				if c := conn(a); c != nil {
					pageInfo(c)["endCursor"] = pageInfo(c)["startCursor"]
				}
			}),
		},
		{
			name: "first-ignored", listing: "key-rotations", area: "pagination",
			what: "pagination.first is ignored: every page has the default size",
			rule: "ROT-PAG-009", // first=N returns N rows while enough rows remain
			wrap: rewrite(rotationsPath, dropParam("pagination.first"), nil),
		},
		{
			name: "last-one-row-short", listing: "games", area: "pagination",
			what: "pagination.last=N gives N-1 rows",
			rule: "GAMES-PAG-010", // last=N returns N rows while enough rows remain
			wrap: rewrite(gamesPath, nil, func(q url.Values, a *answer) {
				if q.Get("pagination.last") == "" {
					return // the answer stays as it is: no need to decode it
				}
				if c := conn(a); c != nil && len(edges(c)) > 1 {
					setEdges(c, edges(c)[1:])
				}
			}),
		},
		{
			name: "newestFirst-ignored", listing: "games", area: "pagination",
			what: "pagination.newestFirst=false is ignored",
			rule: "GAMES-PAG-006", // newestFirst=false returns the rows oldest first: epoch never decreases from row to row, and no row is lost or added
			wrap: rewrite(gamesPath, dropParam("pagination.newestFirst"), nil),
		},
		{
			name: "parameters-Z-to-A", listing: "network-parameters", area: "pagination",
			what: "network parameters are listed in reverse key order, Z to A, consistently: every page, cursor and flag of that order (the spec orders parameters by nothing: only the SHOULD rule may fail)",
			rule: "PARAM-PAG-003", // rows are in key order A to Z
			wrap: parametersZToA,
		},
		{
			name: "gameId-ignored", listing: "games", area: "filters",
			what: "the gameId filter is ignored",
			rule: "GAMES-FLT-001", // returns only rows that match the filter: gameId
			wrap: rewrite(gamesPath, dropParam("gameId"), nil),
		},
		{
			name: "teamId-applied-under-individual-scope", listing: "games", area: "filters",
			what: "teamId filters games even when entityScope is ENTITY_SCOPE_INDIVIDUALS (no game matches)",
			rule: "GAMES-FLT-017", // returns exactly the matching rows of the unfiltered listing, in order: teamId with entityScope=ENTITY_SCOPE_INDIVIDUALS (teamId is ignored)
			wrap: rewrite(gamesPath, nil, func(q url.Values, a *answer) {
				if q.Get("teamId") == "" || q.Get("entityScope") != "ENTITY_SCOPE_INDIVIDUALS" {
					return // the answer stays as it is: no need to decode it
				}
				if c := conn(a); c != nil {
					setEdges(c, []any{}) // individual games have no team entries
					pageInfo(c)["hasNextPage"], pageInfo(c)["hasPreviousPage"] = false, false
				}
			}),
		},
		{
			name: "partyId-ignores-team-members", listing: "games", area: "filters",
			what: "partyId under ENTITY_SCOPE_TEAMS matches no team member",
			rule: "GAMES-FLT-019", // returns exactly the matching rows of the unfiltered listing, in order: partyId of a team member with entityScope=ENTITY_SCOPE_TEAMS (matches team members)
			wrap: rewrite(gamesPath, nil, func(q url.Values, a *answer) {
				if q.Get("partyId") == "" || q.Get("entityScope") != "ENTITY_SCOPE_TEAMS" {
					return // the answer stays as it is: no need to decode it
				}
				if c := conn(a); c != nil {
					setEdges(c, []any{})
					pageInfo(c)["hasNextPage"], pageInfo(c)["hasPreviousPage"] = false, false
				}
			}),
		},
		{
			name: "nodeId-ignored", listing: "key-rotations", area: "filters",
			what: "the nodeId filter is ignored",
			rule: "ROT-FLT-001", // returns only rows that match the filter: nodeId
			wrap: rewrite(rotationsPath, dropParam("nodeId"), nil),
		},
		{
			name: "epoch-cap-31", listing: "games", area: "epochs",
			what:   "the epoch window spans 31 epochs (mock EpochWindow: 31)",
			rule:   "GAMES-EPO-005", // no answer spans more than 30 epochs
			config: func(c *mockserver.Config) { c.EpochWindow = 31 },
		},
		{
			name: "epochTo-defaults-below-latest", listing: "games", area: "epochs",
			what: "without epochTo the window ends one epoch before the latest",
			rule: "GAMES-EPO-001", // rule 1: without epochTo the window ends at the latest epoch
			wrap: rewrite(gamesPath, func(q url.Values, fetch func(url.Values) *answer) url.Values {
				if q.Get("epochTo") != "" || q.Get("epochFrom") != "" {
					return q
				}
				top := fetch(url.Values{"pagination.first": {"1"}})
				if c := conn(top); c != nil && len(edges(c)) == 1 {
					if e, err := strconv.ParseUint(nodeOf(edges(c)[0])["epoch"].(string), 10, 64); err == nil && e > 0 {
						q.Set("epochTo", strconv.FormatUint(e-1, 10))
					}
				}
				return q
			}, nil),
		},
		{
			name: "epochFrom-alone-ignored", listing: "games", area: "epochs",
			what: "epochFrom without epochTo is ignored (the default window is served)",
			rule: "GAMES-EPO-003", // rule 3: with only epochFrom the window ends 29 epochs after it
			wrap: rewrite(gamesPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if q.Get("epochTo") == "" {
					q.Del("epochFrom")
				}
				return q
			}, nil),
		},
		{
			name: "error-returned-as-200", listing: "transactions", area: "errors",
			what: "every 4xx answer, on every listing, is sent with status 200 (the body is still the error body)",
			rule: "TX-ERR-003", // refuses with a 4xx status and the error body: a count together with both cursors
			wrap: rewrite("", nil, func(q url.Values, a *answer) {
				if a.status >= 400 && a.status < 500 {
					a.status = http.StatusOK
				}
			}),
		},
		{
			name: "forged-cursor-accepted", listing: "network-parameters", area: "errors",
			what: "a cursor the server cannot read is dropped and the first page served",
			rule: "PARAM-ERR-010", // refuses with a 4xx status and the error body: a forged pagination.after cursor (base64 JSON the listing never issued)
			wrap: rewrite(parametersPath, func(q url.Values, fetch func(url.Values) *answer) url.Values {
				if q.Get("pagination.after") != "" && fetch(q).status == http.StatusBadRequest {
					q.Del("pagination.after")
				}
				return q
			}, nil),
		},
		{
			name: "error-body-without-details", listing: "key-rotations", area: "schema",
			what:          "error bodies lack the details array",
			rule:          "ROT-SCH-006", // every error body validates against the Error schema
			judgesTraffic: true,
			wrap: rewrite(rotationsPath, nil, func(q url.Values, a *answer) {
				if a.status != http.StatusOK && a.obj() != nil { // obj decodes error bodies only
					delete(a.obj(), "details")
				}
			}),
		},
		{
			name: "missing-field", listing: "snapshots", area: "schema",
			what: "snapshots lack coreVersion",
			rule: "SNAP-SCH-004", // every 200 body validates against the ListCoreSnapshotsResponse schema (spec profile: the spec's fields, types and enums)
			wrap: rewrite(snapshotsPath, nil, func(q url.Values, a *answer) {
				eachNode(a, func(n map[string]any) { delete(n, "coreVersion") })
			}),
		},
		{
			name: "unknown-enum-value", listing: "games", area: "schema",
			what: "rewardMetric of individual entries is DISPATCH_METRIC_POPULARITY, not a DispatchMetric",
			rule: "GAMES-SCH-003", // every 200 body validates against the ListGamesResponse schema (spec profile: the spec's fields, types and enums)
			wrap: rewrite(gamesPath, nil, func(q url.Values, a *answer) {
				eachNode(a, func(n map[string]any) {
					ind, _ := n["individual"].(map[string]any)
					entries, _ := ind["individual"].([]any)
					for _, e := range entries {
						if m, ok := e.(map[string]any); ok {
							m["rewardMetric"] = "DISPATCH_METRIC_POPULARITY"
						}
					}
				})
			}),
		},
		{
			name: "wrong-content-type", listing: "snapshots", area: "schema",
			what: "answers are labelled text/plain",
			rule: "SNAP-SCH-001", // answers with Content-Type application/json
			wrap: rewrite(snapshotsPath, nil, func(q url.Values, a *answer) {
				a.header.Set("Content-Type", "text/plain; charset=utf-8")
			}),
		},
		{
			name: "transactions-oldest-first", listing: "transactions", area: "pagination",
			what: "each answer lists transactions oldest first",
			rule: "TX-PAG-001", // rows are newest to oldest: block never increases from row to row
			wrap: rewrite(transactionPath, nil, func(q url.Values, a *answer) {
				if t := txs(a); t != nil {
					slices.Reverse(t)
				}
			}),
		},
		{
			name: "transactions-last-alone-gives-newest", listing: "transactions", area: "pagination",
			what: "last=N without a cursor gives the N newest transactions",
			rule: "TX-PAG-007", // last=N alone returns the N oldest transactions, newest to oldest
			wrap: rewrite(transactionPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if n := q.Get("last"); n != "" && q.Get("before") == "" {
					q.Del("last")
					q.Set("first", n)
				}
				return q
			}, nil),
		},
		{
			name: "transactions-window-ignores-after", listing: "transactions", area: "pagination",
			what: "before and after together: after is ignored",
			rule: "TX-PAG-010", // before and after together return every transaction strictly between them
			wrap: rewrite(transactionPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if q.Get("before") != "" && q.Get("after") != "" && q.Get("first") == "" && q.Get("last") == "" {
					q.Del("after")
				}
				return q
			}, nil),
		},
		{
			name: "excludeCmdTypes-ignored", listing: "transactions", area: "filters",
			what: "the excludeCmdTypes filter is ignored",
			rule: "TX-FLT-003", // returns only transactions that match the filter: excludeCmdTypes with one type
			wrap: rewrite(transactionPath, dropParam("excludeCmdTypes"), nil),
		},
		{
			name: "parties-ignored", listing: "transactions", area: "filters",
			what: "the parties filter is ignored",
			rule: "TX-FLT-005", // returns only transactions that match the filter: parties naming a submitter
			wrap: rewrite(transactionPath, dropParam("parties"), nil),
		},
		{
			name: "transactions-first-with-before-accepted", listing: "transactions", area: "errors",
			what: "first together with before is answered (before is dropped) instead of refused",
			rule: "TX-ERR-001", // refuses with a 4xx status and the error body: first together with before
			wrap: rewrite(transactionPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if q.Get("first") != "" && q.Get("before") != "" && q.Get("after") == "" {
					q.Del("before")
				}
				return q
			}, nil),
		},
		{
			name: "ties-reordered-under-newestFirst-false", listing: "key-rotations", area: "pagination",
			what: "under newestFirst=false, rotations that share a block height come in nodeId descending order (the spec leaves ties open: only the SHOULD rule may fail)",
			rule: "ROT-PAG-007", // newestFirst=false returns the same rows in exactly the reverse order, ties included
			wrap: rewrite(rotationsPath, nil, func(q url.Values, a *answer) {
				if q.Get("pagination.newestFirst") != "false" {
					return // the answer stays as it is: no need to decode it
				}
				if c := conn(a); c != nil {
					setEdges(c, reverseInnerTies(edges(c), "blockHeight"))
				}
			}),
		},
		{
			name: "hasPreviousPage-false-on-backward-pages", listing: "snapshots", area: "pagination",
			what: "every page asked for with pagination.last says hasPreviousPage false, which ends a backward walk after one page",
			rule: "SNAP-PAG-014", // pages fetched backwards (last/before) have hasPreviousPage and hasNextPage true exactly when rows precede and follow them
			wrap: rewrite(snapshotsPath, nil, func(q url.Values, a *answer) {
				if q.Get("pagination.last") == "" {
					return // the answer stays as it is: no need to decode it
				}
				if c := conn(a); c != nil {
					pageInfo(c)["hasPreviousPage"] = false
				}
			}),
		},
		{
			name: "hasNextPage-true-on-exact-fit-page", listing: "games", area: "pagination",
			what: "a page that holds exactly pagination.first rows says hasNextPage true, even when it is the last",
			rule: "GAMES-PAG-014", // the last page has hasNextPage false, and hasPreviousPage true when rows precede it
			wrap: rewrite(gamesPath, nil, func(q url.Values, a *answer) {
				if q.Get("pagination.first") == "" {
					return // the answer stays as it is: no need to decode it
				}
				if c := conn(a); c != nil && q.Get("pagination.first") == strconv.Itoa(len(edges(c))) {
					pageInfo(c)["hasNextPage"] = true
				}
			}),
		},
		{
			name: "parties-ignores-receivers", listing: "transactions", area: "filters",
			what: "the parties filter matches the submitter only, never a transfer's receiver",
			rule: "TX-FLT-014", // returns exactly the matching transactions of the unfiltered listing, in order: parties naming the receiver of a governance transfer
			wrap: rewrite(transactionPath, nil, func(q url.Values, a *answer) {
				if len(q["parties"]) == 0 || a.obj() == nil {
					return
				}
				var kept []any
				for _, t := range txs(a) {
					m, _ := t.(map[string]any)
					if s, _ := m["submitter"].(string); slices.Contains(q["parties"], s) {
						kept = append(kept, t)
					}
				}
				a.obj()["transactions"] = append([]any{}, kept...)
			}),
		},
		{
			name: "block-height-header-behind", listing: "snapshots", area: "schema",
			what: "X-Block-Height is 100 blocks behind the newest snapshot's block",
			rule: "SNAP-SCH-003", // X-Block-Height is never below the block of the newest row the listing has shown
			wrap: blockHeightBehind(snapshotsPath, 100),
		},
		{
			name: "rate-limit-never-lifts", listing: "deployment", area: "limits",
			what: "after its first 20 requests the deployment answers every request 429 (Retry-After: 0), however often it is asked again",
			rule: "DEPLOY-LIM-001", // the deployment answers within its rate limit: no request is still refused (429 or 503) after the retries
			wrap: func(inner http.Handler) http.Handler {
				var mu sync.Mutex
				n := 0
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					n++
					over := n > 20
					mu.Unlock()
					if over {
						w.Header().Set("Retry-After", "0")
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusTooManyRequests)
						w.Write([]byte(`{"code":8,"message":"rate limit exceeded","details":[]}`))
						return
					}
					inner.ServeHTTP(w, r)
				})
			},
		},
	}
}

// mockDefaultPageSize is the mock's page size when a request gives no
// count (docs/behaviour.md).
const (
	mockDefaultPageSizeInt = 1000
	mockDefaultPageSize    = "1000"
)

// parametersZToA wraps the mock so that it lists network parameters Z to A,
// as a deployment that keeps them in another order may: the Z-to-A listing
// is the mock's A-to-Z listing read backwards, so a forward request (first,
// after) is asked backwards (last, before) and its answer reversed, and the
// other way round, with hasNextPage and hasPreviousPage swapped. A request
// with no count and no cursor asks for the mock's default page from the
// end; when both counts are given, first wins, as docs/behaviour.md says.
func parametersZToA(inner http.Handler) http.Handler {
	return rewrite(parametersPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
		if q.Has("pagination.first") {
			q.Del("pagination.last")
			q.Del("pagination.before")
		}
		out := url.Values{}
		for k, v := range q {
			switch k {
			case "pagination.first":
				k = "pagination.last"
			case "pagination.last":
				k = "pagination.first"
			case "pagination.after":
				k = "pagination.before"
			case "pagination.before":
				k = "pagination.after"
			}
			out[k] = v
		}
		if !q.Has("pagination.first") && !q.Has("pagination.last") && !q.Has("pagination.after") && !q.Has("pagination.before") {
			out.Set("pagination.last", mockDefaultPageSize)
		}
		return out
	}, func(_ url.Values, a *answer) {
		if a.status != http.StatusOK {
			return
		}
		c := conn(a)
		if c == nil {
			return
		}
		es := slices.Clone(edges(c))
		slices.Reverse(es)
		setEdges(c, es)
		pi := pageInfo(c)
		pi["hasNextPage"], pi["hasPreviousPage"] = pi["hasPreviousPage"], pi["hasNextPage"]
	})(inner)
}

// reverseInnerTies reverses the order of each run of edges whose nodes
// share the field's value, leaving the runs at the page's ends alone so
// that the page's cursors, and so the walks, stay as they were.
func reverseInnerTies(es []any, field string) []any {
	out := slices.Clone(es)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && nodeOf(out[j])[field] == nodeOf(out[i])[field] {
			j++
		}
		if i > 0 && j < len(out) && j-i > 1 {
			slices.Reverse(out[i:j])
		}
		i = j
	}
	return out
}

// blockHeightBehind wraps a handler so that answers of the path carry an
// X-Block-Height that many blocks behind the listing's newest row.
func blockHeightBehind(path string, behind uint64) func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		var once sync.Once
		var newest uint64
		return rewrite(path, func(q url.Values, fetch func(url.Values) *answer) url.Values {
			once.Do(func() {
				if c := conn(fetch(url.Values{"pagination.first": {"1"}})); c != nil && len(edges(c)) == 1 {
					newest, _ = strconv.ParseUint(fmt.Sprint(nodeOf(edges(c)[0])["blockHeight"]), 10, 64)
				}
			})
			return q
		}, func(q url.Values, a *answer) {
			if newest > behind {
				a.header.Set("X-Block-Height", strconv.FormatUint(newest-behind, 10))
			}
		})(inner)
	}
}
