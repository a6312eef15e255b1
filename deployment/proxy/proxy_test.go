package proxy_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/deployment/proxy"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// testStore is a small world, generated once for every test.
var testStore = sync.OnceValues(func() (*store.Store, error) {
	w, err := world.Generate(world.Options{Seed: 11, Scale: 0.05})
	if err != nil {
		return nil, err
	}
	return store.New(w)
})

func upstream(t *testing.T, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	st, err := testStore()
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = mockserver.New(mockserver.Config{}, st)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startProxy(t *testing.T, up string, cfg proxy.Config) (*httptest.Server, *syncBuffer) {
	t.Helper()
	u, err := url.Parse(up)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	cfg.Upstream = u
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv := httptest.NewServer(proxy.New(cfg))
	t.Cleanup(srv.Close)
	return srv, logs
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, client *http.Client, method, u string, header http.Header) answer {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, body}
}

func get(t *testing.T, u string) answer { return do(t, http.DefaultClient, http.MethodGet, u, nil) }

func metrics(t *testing.T, proxyURL string) proxy.Metrics {
	t.Helper()
	a := get(t, proxyURL+proxy.MetricsPath)
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		t.Fatalf("metrics: %d %s", a.status, a.header.Get("Content-Type"))
	}
	var m proxy.Metrics
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("metrics: %v: %s", err, a.body)
	}
	return m
}

// sameAnswer checks that the proxy passed the upstream's answer on
// unchanged: status, the headers that matter and every body byte.
func sameAnswer(t *testing.T, got, want answer) {
	t.Helper()
	if got.status != want.status {
		t.Errorf("status %d, upstream %d", got.status, want.status)
	}
	for _, h := range []string{"Content-Type", "Content-Length", "Content-Encoding", "X-Block-Height", "X-Block-Timestamp", "Access-Control-Allow-Origin"} {
		if got.header.Get(h) != want.header.Get(h) {
			t.Errorf("%s %q, upstream %q", h, got.header.Get(h), want.header.Get(h))
		}
	}
	if !bytes.Equal(got.body, want.body) {
		t.Errorf("body differs from the upstream's:\nproxy    %.200s\nupstream %.200s", got.body, want.body)
	}
}

// mockQueries is a broad set of requests the mock answers correctly.
func mockQueries(t *testing.T, up string) []string {
	t.Helper()
	var page struct {
		Rot struct {
			Edges []struct {
				Node struct {
					NodeID string `json:"nodeId"`
				} `json:"node"`
				Cursor string `json:"cursor"`
			} `json:"edges"`
		} `json:"keyRotations"`
	}
	if err := json.Unmarshal(get(t, up+"/api/v2/core/keys/ethereum/rotations?pagination.first=5").body, &page); err != nil || len(page.Rot.Edges) < 5 {
		t.Fatalf("rotations: %v", err)
	}
	node, cursor := page.Rot.Edges[0].Node.NodeID, url.QueryEscape(page.Rot.Edges[2].Cursor)
	var txs struct {
		Transactions []struct {
			Cursor, Submitter, Type string
		} `json:"transactions"`
	}
	if err := json.Unmarshal(get(t, up+"/transactions?first=40").body, &txs); err != nil || len(txs.Transactions) < 40 {
		t.Fatalf("transactions: %v", err)
	}
	newer, older := txs.Transactions[5].Cursor, txs.Transactions[30].Cursor
	return []string{
		"/api/v2/games",
		"/api/v2/games?pagination.first=5",
		"/api/v2/games?pagination.last=5",
		"/api/v2/games?pagination.first=5&pagination.newestFirst=false",
		"/api/v2/games?epochFrom=3&epochTo=12&entityScope=ENTITY_SCOPE_TEAMS",
		"/api/v2/games?epochFrom=20",
		"/api/v2/games?epochFrom=30&epochTo=10",
		"/api/v2/games?epochTo=9&entityScope=ENTITY_SCOPE_INDIVIDUALS&pagination.first=3",
		"/api/v2/snapshots",
		"/api/v2/snapshots?pagination.first=7&pagination.newestFirst=false",
		"/api/v2/snapshots?pagination.first=3&pagination.last=9",
		"/api/v2/core/keys/ethereum/rotations?nodeId=" + node,
		"/api/v2/core/keys/ethereum/rotations?pagination.first=2&pagination.after=" + cursor,
		"/api/v2/core/keys/ethereum/rotations?pagination.last=2&pagination.before=" + cursor,
		"/api/v2/core/keys/ethereum/rotations?pagination.before=" + cursor,
		"/api/v2/network/parameters",
		"/api/v2/network/parameters?pagination.first=10&pagination.newestFirst=false",
		"/api/v2/network/parameters?pagination.last=10",
		"/transactions",
		"/transactions?first=20",
		"/transactions?last=20",
		"/transactions?first=3&after=" + older,
		"/transactions?last=3&before=" + newer,
		"/transactions?before=" + newer + "&after=" + older,
		"/transactions?cmdTypes=" + url.QueryEscape(txs.Transactions[0].Type) + "&first=10",
		"/transactions?excludeCmdTypes=Submit+Order&excludeCmdTypes=Cancel+Order",
		"/transactions?parties=" + txs.Transactions[0].Submitter,
		"/rest/transactions?first=2",
		// Errors: the error body is validated too.
		"/api/v2/games?pagination.first=0",
		"/api/v2/snapshots?pagination.after=bm90IGEgY3Vyc29y",
		"/transactions?first=1&last=1",
		"/transactions?first=abc",
		// Not a listing: forwarded, not checked.
		"/api/v2/unknown",
	}
}

// TestProxyInFrontOfMock: zero violations, every body byte-identical.
func TestProxyInFrontOfMock(t *testing.T) {
	up := upstream(t, nil)
	// The client is not held to the pace of the checks, so when it is done
	// many may be queued; under the race detector on a loaded machine they
	// take longer than the default wait to drain.
	px, logs := startProxy(t, up.URL, proxy.Config{MetricsWait: time.Minute})
	queries := mockQueries(t, up.URL)
	listingGets := 0
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			sameAnswer(t, get(t, px.URL+q), get(t, up.URL+q))
		})
		if !strings.HasPrefix(q, "/api/v2/unknown") {
			listingGets++
		}
	}
	// Methods other than GET are forwarded as they are.
	sameAnswer(t, do(t, http.DefaultClient, http.MethodHead, px.URL+"/api/v2/snapshots", nil), do(t, http.DefaultClient, http.MethodHead, up.URL+"/api/v2/snapshots", nil))
	sameAnswer(t, do(t, http.DefaultClient, http.MethodPost, px.URL+"/api/v2/snapshots", nil), do(t, http.DefaultClient, http.MethodPost, up.URL+"/api/v2/snapshots", nil))

	m := metrics(t, px.URL)
	if m.Violations != 0 {
		t.Errorf("%d violations in front of the mock: %+v\nlogs:\n%s", m.Violations, m.Listings, logs)
	}
	if m.Checked != int64(listingGets) {
		t.Errorf("checked %d responses, want %d (unchecked %v, pool %+v)", m.Checked, listingGets, m.Unchecked, m.CheckPool)
	}
	if want := int64(len(queries) + 2); m.Requests != want {
		t.Errorf("requests %d, want %d", m.Requests, want)
	}
	if strings.Contains(logs.String(), `"violation"`) {
		t.Errorf("violations logged:\n%s", logs)
	}
}

// rewrite wraps a handler and edits the 200 JSON bodies of one path.
func rewrite(path string, edit func(body map[string]any)) func(http.Handler) http.Handler {
	return rewriteStatus(path, func(_ int, body map[string]any) { edit(body) }, http.StatusOK)
}

func rewriteStatus(path string, edit func(status int, body map[string]any), statuses ...int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			if r.URL.Path == path && contains(statuses, rec.Code) {
				var v map[string]any
				if err := json.Unmarshal(body, &v); err == nil {
					edit(rec.Code, v)
					body, _ = json.Marshal(v)
				}
			}
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
}

func contains(list []int, x int) bool {
	for _, y := range list {
		if x == y {
			return true
		}
	}
	return false
}

func page(body map[string]any, wrapper string) map[string]any {
	return body[wrapper].(map[string]any)
}

func edges(body map[string]any, wrapper string) []any {
	return page(body, wrapper)["edges"].([]any)
}

func node(body map[string]any, wrapper string, i int) map[string]any {
	return edges(body, wrapper)[i].(map[string]any)["node"].(map[string]any)
}

// TestProxyReportsDefects puts the proxy in front of defective mocks, one
// defect each: the defect is logged and counted, and the client still gets
// the defective body byte for byte.
func TestProxyReportsDefects(t *testing.T) {
	tests := []struct {
		name    string
		wrap    func(http.Handler) http.Handler
		query   string
		listing string
		rule    string
		at      string // JSON path of the logged violation, "" for any
		profile string // the profile a schema violation breaks, "" for the single-response rules
	}{
		{
			name: "required field dropped",
			wrap: rewrite("/api/v2/snapshots", func(b map[string]any) {
				delete(node(b, "coreSnapshots", 0), "blockHash")
			}),
			query: "/api/v2/snapshots?pagination.first=5", listing: "snapshots", rule: "required", at: "/coreSnapshots/edges/0/node/blockHash", profile: "spec",
		},
		{
			name: "field of the wrong type",
			wrap: rewrite("/api/v2/core/keys/ethereum/rotations", func(b map[string]any) {
				node(b, "keyRotations", 1)["blockHeight"] = true
			}),
			query: "/api/v2/core/keys/ethereum/rotations?pagination.first=3", listing: "keyrotations", rule: "invalid_type", at: "/keyRotations/edges/1/node/blockHeight", profile: "spec",
		},
		{
			name: "endCursor is not the last edge's",
			wrap: rewrite("/api/v2/network/parameters", func(b map[string]any) {
				pi := page(b, "networkParameters")["pageInfo"].(map[string]any)
				pi["endCursor"] = pi["startCursor"]
			}),
			query: "/api/v2/network/parameters?pagination.first=4", listing: "networkparameters", rule: proxy.RulePageCursors, at: "/networkParameters/pageInfo/endCursor",
		},
		{
			name: "edge without a cursor",
			wrap: rewrite("/api/v2/games", func(b map[string]any) {
				edges(b, "games")[1].(map[string]any)["cursor"] = ""
			}),
			query: "/api/v2/games?pagination.first=3", listing: "games", rule: proxy.RuleEdgeCursor, at: "/games/edges/1/cursor",
		},
		{
			name: "empty page with cursors",
			wrap: rewrite("/api/v2/games", func(b map[string]any) {
				p := page(b, "games")
				p["pageInfo"].(map[string]any)["startCursor"] = "eA=="
			}),
			query: "/api/v2/games?gameId=" + strings.Repeat("0", 64), listing: "games", rule: proxy.RulePageCursors, at: "/games/pageInfo",
		},
		{
			name: "more rows than asked",
			wrap: rewrite("/api/v2/snapshots", func(b map[string]any) {
				p := page(b, "coreSnapshots")
				e := p["edges"].([]any)
				p["edges"] = append(e, e[len(e)-1])
			}),
			query: "/api/v2/snapshots?pagination.first=5&pagination.newestFirst=false", listing: "snapshots", rule: proxy.RulePageSize, at: "/coreSnapshots/edges",
		},
		{
			name: "snapshots out of order",
			wrap: rewrite("/api/v2/snapshots", func(b map[string]any) {
				e := edges(b, "coreSnapshots")
				e[0], e[3] = e[3], e[0]
				pi := page(b, "coreSnapshots")["pageInfo"].(map[string]any)
				pi["startCursor"] = e[0].(map[string]any)["cursor"]
			}),
			query: "/api/v2/snapshots?pagination.first=6", listing: "snapshots", rule: proxy.RuleOrder,
		},
		{
			name: "first page says a page precedes it",
			wrap: rewrite("/api/v2/snapshots", func(b map[string]any) {
				page(b, "coreSnapshots")["pageInfo"].(map[string]any)["hasPreviousPage"] = true
			}),
			query: "/api/v2/snapshots?pagination.first=6", listing: "snapshots", rule: proxy.RulePageFlags, at: "/coreSnapshots/pageInfo/hasPreviousPage",
		},
		{
			name: "rotation of another node",
			wrap: rewrite("/api/v2/core/keys/ethereum/rotations", func(b map[string]any) {
				node(b, "keyRotations", 0)["nodeId"] = strings.Repeat("f", 64)
			}),
			query: "", listing: "keyrotations", rule: proxy.RuleFilter, at: "/keyRotations/edges/0/node/nodeId",
		},
		{
			name: "team game under individual scope",
			wrap: rewrite("/api/v2/games", func(b map[string]any) {
				n := node(b, "games", 0)
				n["team"] = map[string]any{"team": []any{}}
				delete(n, "individual")
			}),
			query: "/api/v2/games?entityScope=ENTITY_SCOPE_INDIVIDUALS&pagination.first=2", listing: "games", rule: proxy.RuleFilter, at: "/games/edges/0/node",
		},
		{
			name: "game outside the epoch window",
			wrap: rewrite("/api/v2/games", func(b map[string]any) {
				node(b, "games", 0)["epoch"] = "31"
			}),
			query: "/api/v2/games?epochFrom=1&epochTo=30&pagination.first=2", listing: "games", rule: proxy.RuleEpochWindow, at: "/games/edges/0/node/epoch",
		},
		{
			name: "transactions oldest first",
			wrap: rewrite("/transactions", func(b map[string]any) {
				txs := b["transactions"].([]any)
				for i, j := 0, len(txs)-1; i < j; i, j = i+1, j-1 {
					txs[i], txs[j] = txs[j], txs[i]
				}
			}),
			query: "/transactions?first=10", listing: "transactions", rule: proxy.RuleOrder, at: "/transactions/1",
		},
		{
			name: "transaction of an excluded type",
			wrap: rewrite("/transactions", func(b map[string]any) {
				b["transactions"].([]any)[0].(map[string]any)["type"] = "Submit Order"
			}),
			query: "/transactions?excludeCmdTypes=Submit+Order&first=5", listing: "transactions", rule: proxy.RuleFilter, at: "/transactions/0/type",
		},
		{
			name: "transaction cursor not block.index",
			wrap: rewrite("/transactions", func(b map[string]any) {
				b["transactions"].([]any)[2].(map[string]any)["cursor"] = "1.1"
			}),
			query: "/transactions?first=5", listing: "transactions", rule: proxy.RuleTxCursor, at: "/transactions/2/cursor",
		},
		{
			name: "transaction newer than before",
			wrap: rewrite("/transactions", func(b map[string]any) {
				txs := b["transactions"].([]any)
				txs[0].(map[string]any)["block"] = "999999999"
			}),
			query: "/transactions?last=5&before=100000.0", listing: "transactions", rule: proxy.RuleCursorBounds, at: "/transactions/0",
		},
		{
			name:  "error body without details",
			wrap:  rewriteStatus("/api/v2/games", func(_ int, b map[string]any) { delete(b, "details") }, http.StatusBadRequest),
			query: "/api/v2/games?pagination.first=0", listing: "games", rule: "required", at: "/details", profile: "spec",
		},
		{
			name: "body that is not JSON",
			wrap: func(http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(http.StatusInternalServerError)
					io.WriteString(w, "<html>upstream exploded</html>")
				})
			},
			query: "/api/v2/snapshots", listing: "snapshots", rule: proxy.RuleJSON, profile: "spec",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := upstream(t, tc.wrap)
			px, logs := startProxy(t, up.URL, proxy.Config{})
			q := tc.query
			if q == "" {
				q = "/api/v2/core/keys/ethereum/rotations?nodeId=" + firstNode(t, up.URL)
			}
			sameAnswer(t, get(t, px.URL+q), get(t, up.URL+q))
			m := metrics(t, px.URL)
			lm := m.Listings[tc.listing]
			if lm == nil || lm.Rules[tc.rule] == 0 {
				t.Fatalf("no %s violation counted on %s: %+v\nlogs:\n%s", tc.rule, tc.listing, lm, logs)
			}
			if lm.ResponsesWithViolations != 1 || m.Violations == 0 {
				t.Errorf("responses with violations %d, violations %d", lm.ResponsesWithViolations, m.Violations)
			}
			if !logged(t, logs.String(), q, tc.rule, tc.at, tc.profile) {
				t.Errorf("no log line with rule %s at %q and profile %q for %s:\n%s", tc.rule, tc.at, tc.profile, q, logs)
			}
			if tc.profile != "" && (lm.Profiles[tc.profile] == 0 || lm.ProfileRules[tc.profile][tc.rule] == 0 || m.Profiles[tc.profile] == 0) {
				t.Errorf("no %s violation of profile %s counted: %+v, %v", tc.rule, tc.profile, lm, m.Profiles)
			}
			if tc.profile == "" && lm.ProfileRules["spec"][tc.rule]+lm.ProfileRules["reference"][tc.rule] != 0 {
				t.Errorf("a %s violation is counted under a schema profile: %+v", tc.rule, lm.ProfileRules)
			}
		})
	}
}

// firstNode returns the node ID of the second newest key rotation.
func firstNode(t *testing.T, up string) string {
	t.Helper()
	// The defective mock rewrites the first row; the second is genuine.
	var raw struct {
		KeyRotations struct {
			Edges []struct {
				Node struct {
					NodeID string `json:"nodeId"`
				} `json:"node"`
			} `json:"edges"`
		} `json:"keyRotations"`
	}
	body := get(t, up+"/api/v2/core/keys/ethereum/rotations?pagination.first=2").body
	if err := json.Unmarshal(body, &raw); err != nil || len(raw.KeyRotations.Edges) < 2 {
		t.Fatalf("rotations: %v", err)
	}
	return raw.KeyRotations.Edges[1].Node.NodeID
}

// logged reports whether a violation line names the query, rule, path and
// profile ("" for a line without one).
func logged(t *testing.T, logs, pathQuery, rule, at, profile string) bool {
	t.Helper()
	u, err := url.Parse(pathQuery)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(logs, "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		if rec["msg"] == "violation" && rec["level"] == "WARN" && rec["path"] == u.Path && rec["query"] == u.RawQuery &&
			rec["rule"] == rule && (at == "" || rec["at"] == at) && rec["message"] != "" && profileOf(rec) == profile {
			return true
		}
	}
	return false
}

// profileOf returns the profile attribute of a log record, "" without one.
func profileOf(rec map[string]any) string {
	p, _ := rec["profile"].(string)
	return p
}

// TestProxyLabelsViolationsByProfile puts the proxy in front of mocks whose
// bodies break the schemas two ways at once: a violation the spec profile
// also finds is labelled spec, one only the reference profile finds is
// labelled reference, in the log and in both forms of the metrics.
func TestProxyLabelsViolationsByProfile(t *testing.T) {
	type want struct{ rule, at, profile string }
	tests := []struct {
		name    string
		wrap    func(http.Handler) http.Handler
		query   string
		listing string
		want    []want
	}{
		{
			name: "snapshots: an unknown field and a missing blockHash",
			wrap: rewrite("/api/v2/snapshots", func(b map[string]any) {
				node(b, "coreSnapshots", 0)["someFutureField"] = "x"
				delete(node(b, "coreSnapshots", 1), "blockHash")
			}),
			query: "/api/v2/snapshots?pagination.first=3", listing: "snapshots",
			want: []want{
				{"additional_property_not_allowed", "/coreSnapshots/edges/0/node/someFutureField", "reference"},
				{"required", "/coreSnapshots/edges/1/node/blockHash", "spec"},
			},
		},
		{
			name: "transactions: an older explorer's, a block as a number and one as a boolean",
			wrap: rewrite("/transactions", func(b map[string]any) {
				txs := b["transactions"].([]any)
				delete(txs[0].(map[string]any), "createdAt")
				// uint64: the spec takes a JSON integer, the reference
				// only a digit string.
				txs[1].(map[string]any)["block"] = 45120415
				txs[2].(map[string]any)["block"] = true
			}),
			query: "/transactions?first=3", listing: "transactions",
			want: []want{
				{"required", "/transactions/0/createdAt", "reference"},
				{"invalid_type", "/transactions/1/block", "reference"},
				{"invalid_type", "/transactions/2/block", "spec"},
			},
		},
		{
			name: "games: both entity scopes and an unknown page field",
			wrap: rewrite("/api/v2/games", func(b map[string]any) {
				n := node(b, "games", 0)
				if n["individual"] == nil {
					n["individual"] = map[string]any{"individual": []any{}}
				} else {
					n["team"] = map[string]any{"team": []any{}}
				}
				page(b, "games")["someFutureField"] = true
			}),
			query: "/api/v2/games?pagination.first=2", listing: "games",
			want: []want{
				{"number_one_of", "/games/edges/0/node", "reference"},
				{"additional_property_not_allowed", "/games/someFutureField", "reference"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := upstream(t, tc.wrap)
			px, logs := startProxy(t, up.URL, proxy.Config{})
			sameAnswer(t, get(t, px.URL+tc.query), get(t, up.URL+tc.query))
			m := metrics(t, px.URL)
			lm := m.Listings[tc.listing]
			if lm == nil {
				t.Fatalf("nothing counted on %s", tc.listing)
			}
			wantProfiles := map[string]int64{}
			for _, w := range tc.want {
				wantProfiles[w.profile]++
				if !logged(t, logs.String(), tc.query, w.rule, w.at, w.profile) {
					t.Errorf("no log line with rule %s at %q and profile %s:\n%s", w.rule, w.at, w.profile, logs)
				}
				if lm.ProfileRules[w.profile][w.rule] == 0 {
					t.Errorf("profileRules %v: no %s under %s", lm.ProfileRules, w.rule, w.profile)
				}
			}
			if !reflect.DeepEqual(lm.Profiles, wantProfiles) || !reflect.DeepEqual(m.Profiles, wantProfiles) {
				t.Errorf("profiles: listing %v, total %v; want %v", lm.Profiles, m.Profiles, wantProfiles)
			}
			prom := string(do(t, http.DefaultClient, http.MethodGet, px.URL+proxy.MetricsPath+"?format=prometheus", nil).body)
			for _, w := range tc.want {
				line := fmt.Sprintf("harness_proxy_schema_violations_total{listing=%q,profile=%q,rule=%q} ", tc.listing, w.profile, w.rule)
				if !strings.Contains(prom, line) {
					t.Errorf("no %q in:\n%s", line, prom)
				}
			}
		})
	}
}

// TestProxyUnchecked covers the bodies the proxy does not validate and the
// encodings it does.
func TestProxyUnchecked(t *testing.T) {
	gz := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(rec.Body.Bytes())
			zw.Close()
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write(buf.Bytes())
		})
	}
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	gzipHeader := http.Header{"Accept-Encoding": {"gzip"}}
	tests := []struct {
		name      string
		wrap      func(http.Handler) http.Handler
		cfg       proxy.Config
		header    http.Header
		checked   int64
		unchecked string
	}{
		{name: "body above the cap", cfg: proxy.Config{MaxBodyBytes: 1024}, unchecked: proxy.UncheckedTooLarge},
		{name: "gzip body is checked", wrap: gz, header: gzipHeader, checked: 1},
		{name: "gzip body above the cap", wrap: gz, header: gzipHeader, cfg: proxy.Config{MaxBodyBytes: 2048}, unchecked: proxy.UncheckedTooLarge},
		{name: "unknown encoding", wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "br")
				next.ServeHTTP(w, r)
			})
		}, unchecked: proxy.UncheckedEncoding},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := upstream(t, tc.wrap)
			px, _ := startProxy(t, up.URL, tc.cfg)
			const q = "/transactions?first=30"
			got := do(t, raw, http.MethodGet, px.URL+q, tc.header)
			sameAnswer(t, got, do(t, raw, http.MethodGet, up.URL+q, tc.header))
			if tc.header != nil && got.header.Get("Content-Encoding") != "gzip" {
				t.Errorf("Content-Encoding %q, want gzip passed through", got.header.Get("Content-Encoding"))
			}
			m := metrics(t, px.URL)
			if m.Checked != tc.checked || m.Violations != 0 {
				t.Errorf("checked %d, violations %d; want %d and 0", m.Checked, m.Violations, tc.checked)
			}
			if tc.unchecked != "" && m.Unchecked[tc.unchecked] != 1 {
				t.Errorf("unchecked %v, want one %s", m.Unchecked, tc.unchecked)
			}
		})
	}
}

func TestProxyUpstreamFailsMidBody(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "5000")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"coreSnapshots":{"edges":[`)
	}))
	defer up.Close()
	px, _ := startProxy(t, up.URL, proxy.Config{})
	resp, err := http.Get(px.URL + "/api/v2/snapshots")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Error("the client got a whole body from an upstream that failed mid-body")
	}
	m := metrics(t, px.URL)
	if m.Unchecked[proxy.UncheckedIncomplete] != 1 || m.Checked != 0 {
		t.Errorf("unchecked %v, checked %d; want one incomplete", m.Unchecked, m.Checked)
	}
}

func TestProxyUpstreamDown(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	px, logs := startProxy(t, deadURL, proxy.Config{})
	a := get(t, px.URL+"/api/v2/snapshots")
	if a.status != http.StatusBadGateway {
		t.Errorf("status %d, want 502", a.status)
	}
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(a.body, &e); err != nil || e.Code != 14 || e.Message == "" {
		t.Errorf("body %s: %v", a.body, err)
	}
	if m := metrics(t, px.URL); m.UpstreamErrors != 1 {
		t.Errorf("upstream errors %d, want 1", m.UpstreamErrors)
	}
	if !strings.Contains(logs.String(), "upstream error") {
		t.Errorf("upstream error not logged:\n%s", logs)
	}
}

func TestProxyPrometheus(t *testing.T) {
	up := upstream(t, rewrite("/api/v2/snapshots", func(b map[string]any) {
		delete(node(b, "coreSnapshots", 0), "coreVersion")
	}))
	px, _ := startProxy(t, up.URL, proxy.Config{})
	get(t, px.URL+"/api/v2/snapshots?pagination.first=2")
	get(t, px.URL+"/api/v2/network/parameters?pagination.first=2")
	tests := []struct {
		name   string
		query  string
		header http.Header
	}{
		{"format parameter", "?format=prometheus", nil},
		{"scraper accept header", "", http.Header{"Accept": {"application/openmetrics-text;version=1.0.0;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := do(t, http.DefaultClient, http.MethodGet, px.URL+proxy.MetricsPath+tc.query, tc.header)
			if !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
				t.Errorf("content type %q", a.header.Get("Content-Type"))
			}
			for _, want := range []string{
				"harness_proxy_requests_total 2\n",
				`harness_proxy_checked_total{listing="snapshots"} 1` + "\n",
				`harness_proxy_checked_total{listing="networkparameters"} 1` + "\n",
				`harness_proxy_violations_total{listing="snapshots",rule="required"} 1` + "\n",
				"# TYPE harness_proxy_violations_total counter\n",
				`harness_proxy_schema_violations_total{listing="snapshots",profile="spec",rule="required"} 1` + "\n",
				"# TYPE harness_proxy_schema_violations_total counter\n",
			} {
				if !strings.Contains(string(a.body), want) {
					t.Errorf("no %q in:\n%s", want, a.body)
				}
			}
		})
	}
}

// TestProxyHeaders: the configured headers go with every upstream request,
// replacing a client's header of the same name, and are never logged.
func TestProxyHeaders(t *testing.T) {
	const key = "proxy-test-key"
	var mu sync.Mutex
	var got []string
	up := upstream(t, func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, r.Header.Get("X-Api-Key")+"|"+r.Header.Get("X-Other")+"|"+r.Host)
			mu.Unlock()
			inner.ServeHTTP(w, r)
		})
	})
	px, logs := startProxy(t, up.URL, proxy.Config{Header: http.Header{"X-Api-Key": {key}, "Host": {"api.example"}}})
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"client sends none", nil, key + "||api.example"},
		{"client sends its own key", http.Header{"X-Api-Key": {"client-key"}, "X-Other": {"o"}}, key + "|o|api.example"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, px.URL+"/api/v2/snapshots?pagination.first=2", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header = tc.header.Clone()
			if req.Header == nil {
				req.Header = http.Header{}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			if resp.StatusCode != http.StatusOK || len(got) != i+1 || got[i] != tc.want {
				t.Errorf("status %d, upstream got %q, want %q", resp.StatusCode, got, tc.want)
			}
		})
	}
	metrics(t, px.URL)
	if strings.Contains(logs.String(), key) {
		t.Errorf("the log shows the header value:\n%s", logs)
	}
}

// TestProxyForwardsUnparsableQueries sends queries that do not parse, or
// that net/http/httputil would re-encode, through the proxy: the upstream
// gets each exactly as sent, and the client the upstream's answer (a 400
// from a fake upstream that refuses what it cannot parse, and from the
// mock), not a 200 to a query stripped of its bad part.
func TestProxyForwardsUnparsableQueries(t *testing.T) {
	t.Parallel()
	const refusal = `{"code":3,"message":"invalid query","details":[]}` + "\n"
	var mu sync.Mutex
	var got []string
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, refusal)
			return
		}
		io.WriteString(w, `{"transactions":[]}`+"\n")
	}))
	t.Cleanup(fake.Close)
	viaFake, _ := startProxy(t, fake.URL, proxy.Config{})
	mock := upstream(t, nil)
	viaMock, _ := startProxy(t, mock.URL, proxy.Config{})

	many := "b=2&" + strings.Repeat("a=1&", 10_001) + "c=3" // re-encoded, sorted, by ReverseProxy
	tests := []struct {
		name, path, query string
		status            int
	}{
		{"a bad escape alone", "/transactions", "%zz", 400},
		{"a bad escape after a good parameter", "/transactions", "first=5&%zz", 400},
		{"a bad escape in a value", "/transactions", "first=%zz", 400},
		{"a cut escape", "/transactions", "first=5%", 400},
		{"a semicolon", "/transactions", "first=5;last=2", 400},
		{"a bad escape, not a listing", "/other", "%zz", 400},
		{"a bad escape by POST", "/transactions", "%zz", 400},
		{"more parameters than net/url parses", "/transactions", many, 400},
		{"a good query", "/transactions", "first=5&cmdTypes=Submit+Order", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			method := http.MethodGet
			if strings.Contains(tc.name, "POST") {
				method = http.MethodPost
			}
			a := do(t, http.DefaultClient, method, viaFake.URL+tc.path+"?"+tc.query, nil)
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 1 || got[0] != tc.query {
				t.Errorf("the upstream got the queries %.200q, want %.200q", got, tc.query)
			}
			want := refusal
			if tc.status == 200 {
				want = `{"transactions":[]}` + "\n"
			}
			if a.status != tc.status || string(a.body) != want {
				t.Errorf("status %d, body %.200s; want the upstream's %d, %s", a.status, a.body, tc.status, want)
			}
		})
	}

	// The case: the mock refuses %zz, and so does the proxy.
	for _, q := range []string{"%zz", "first=5&%zz", "pagination.first=%zz"} {
		for _, p := range []string{"/transactions", "/api/v2/games"} {
			direct := get(t, mock.URL+p+"?"+q)
			proxied := get(t, viaMock.URL+p+"?"+q)
			if direct.status != http.StatusBadRequest || proxied.status != direct.status || string(proxied.body) != string(direct.body) {
				t.Errorf("%s?%s: the mock answers %d %s, the proxy %d %s; want the mock's 400 through the proxy",
					p, q, direct.status, direct.body, proxied.status, proxied.body)
			}
		}
	}
}

// TestProxyBoundsViolationLines: one answer breaking a rule in every row
// is logged in at most MaxViolationLines lines and one line counting the
// rest; the metrics count every violation.
func TestProxyBoundsViolationLines(t *testing.T) {
	const rows = 40
	up := upstream(t, rewrite("/api/v2/network/parameters", func(b map[string]any) {
		for i := range rows {
			node(b, "networkParameters", i)["someFutureField"] = i
		}
	}))
	px, logs := startProxy(t, up.URL, proxy.Config{})
	get(t, px.URL+fmt.Sprintf("/api/v2/network/parameters?pagination.first=%d", rows))
	m := metrics(t, px.URL)
	if m.Violations != rows {
		t.Fatalf("%d violations counted, want %d", m.Violations, rows)
	}
	var lines, more int
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec struct {
			Msg            string `json:"msg"`
			Omitted, Total int
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		switch rec.Msg {
		case "violation":
			lines++
		case "more violations":
			more++
			if rec.Omitted != rows-proxy.MaxViolationLines || rec.Total != rows {
				t.Errorf("the summary line %s, want %d omitted of %d", line, rows-proxy.MaxViolationLines, rows)
			}
		}
	}
	if lines != proxy.MaxViolationLines || more != 1 {
		t.Errorf("%d violation lines and %d summary lines, want %d and 1:\n%s", lines, more, proxy.MaxViolationLines, logs)
	}
}
