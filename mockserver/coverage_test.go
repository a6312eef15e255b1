package mockserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/store"
)

// coverageRead sends GET /harness/coverage with query and decodes it,
// checking the answer is a 200 with nothing but coverage's fields.
func coverageRead(t *testing.T, s *testServer, query string) Coverage {
	t.Helper()
	r, err := s.fetch(http.MethodGet, "/harness/coverage", query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: status %d, Content-Type %q: %s", r, r.status, r.header.Get("Content-Type"), r.body)
	}
	var c Coverage
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.Missing == nil || c.Notes == nil {
		t.Fatalf("%s: %v: %s", r, err, r.body)
	}
	return c
}

// served returns the items a coverage says were served, with their counts.
func (c Coverage) served() map[string]int {
	out := map[string]int{}
	for _, k := range c.Kinds {
		for _, it := range k.Served {
			out[it.Item] = it.Count
		}
	}
	return out
}

// never returns the items a coverage says were never served.
func (c Coverage) never() []string {
	var out []string
	for _, k := range c.Kinds {
		out = append(out, k.Never...)
	}
	return out
}

// sendFollowing sends requests as sendAll does, with "{end}" in a query
// replaced by the cursor of the far end of the previous answer's page (a
// paged listing's endCursor, the last transaction's cursor), escaped.
func sendFollowing(t *testing.T, s *testServer, requests []string) {
	t.Helper()
	end := ""
	for _, rq := range requests {
		target, fault, _ := strings.Cut(strings.ReplaceAll(rq, "{end}", url.QueryEscape(end)), " ")
		path, query, _ := strings.Cut(target, "?")
		var hdr http.Header
		if fault != "" {
			hdr = http.Header{"X-Harness-Fault": {fault}}
		}
		r, err := s.fetch(http.MethodGet, path, query, hdr)
		switch {
		case err == nil:
			end = farCursor(r.body)
		case fault == "": // a fault may cut the answer
			t.Fatal(err)
		}
	}
}

// farCursor reads the cursor of the far end of a page ("" for none).
func farCursor(body []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return ""
	}
	if txs, ok := top["transactions"]; ok {
		var list []struct{ Cursor string }
		json.Unmarshal(txs, &list)
		if len(list) == 0 {
			return ""
		}
		return list[len(list)-1].Cursor
	}
	for _, v := range top {
		var p struct{ PageInfo struct{ EndCursor string } }
		if json.Unmarshal(v, &p) == nil && p.PageInfo.EndCursor != "" {
			return p.PageInfo.EndCursor
		}
	}
	return ""
}

// TestCoverage checks the items coverage says were served, by the requests
// that served them, and that the others are said never served.
func TestCoverage(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	params := strconv.Itoa(len(w.NetworkParameters))
	txs := strconv.Itoa(len(w.Transactions))
	nobody := "parties=" + hexID("nobody")
	tests := []struct {
		name     string
		requests []string
		served   []string // with a count: "page:first=2"
		never    []string
		count    int
	}{
		{"nothing", nil, nil, []string{"listing:games", "page:first", "refusal:invalid-cursor", "fault:reset"}, 0},
		{"a first page", []string{"/api/v2/network/parameters?pagination.first=2"},
			[]string{"listing:networkparameters=1", "page:first=1"}, []string{"page:last", "page:middle", "page:backward", "page:exact-fit"}, 1},
		{"first, middle and last pages", []string{
			"/api/v2/network/parameters?pagination.first=2",
			"/api/v2/network/parameters?pagination.first=2&pagination.after={end}",
			"/api/v2/network/parameters?pagination.first=5000&pagination.after={end}"},
			[]string{"page:first=1", "page:middle=1", "page:last=1", "listing:networkparameters=3"}, []string{"page:exact-fit", "page:empty"}, 3},
		{"a paged listing's exact fit", []string{"/api/v2/network/parameters?pagination.first=" + params},
			[]string{"page:first=1", "page:last=1", "page:exact-fit=1"}, []string{"page:middle"}, 1},
		{"one more than fits is no exact fit", []string{"/api/v2/network/parameters?pagination.last=" + strconv.Itoa(len(w.NetworkParameters)+1)},
			[]string{"page:first=1", "page:last=1", "page:backward=1"}, []string{"page:exact-fit"}, 1},
		{"a transactions exact fit, shown by the empty page after it", []string{
			"/transactions?first=" + txs, "/transactions?last=" + txs + "&before={end}"},
			[]string{"page:first=1", "page:last=1", "page:exact-fit=1", "page:empty=1"}, []string{"page:middle"}, 2},
		{"a full transactions page then more is a middle", []string{
			"/transactions?first=2", "/transactions?last=2&before={end}"},
			[]string{"page:first=1", "page:middle=1"}, []string{"page:exact-fit", "page:empty", "page:last"}, 2},
		{"an empty page", []string{"/transactions?" + nobody}, []string{"page:empty=1", "listing:transactions=1"}, []string{"page:first"}, 1},
		{"transactions backwards", []string{"/transactions?last=3", "/transactions?after={end}&first=2"},
			[]string{"page:backward=2"}, nil, 2},
		{"a window is no direction", []string{"/transactions?first=3", "/transactions?before=" + txs + "0.0&after=0.0"},
			nil, []string{"page:backward"}, 2},
		{"refusals", []string{
			"/transactions?first=1&last=1", "/api/v2/games?pagination.first=x", "/transactions?after=zzz",
			"/api/v2/snapshots?pagination.first=1&pagination.last=1", "/api/v2/snapshots?pagination.first=999999",
			"/api/v2/snapshots?pagination.after=a&pagination.before=b",
			"/transactions?first=1&before=1.0&after=0.0"},
			[]string{"refusal:first-and-last=1", "refusal:unparsable-value=1", "refusal:invalid-cursor=1", "refusal:limit-out-of-range=1",
				"refusal:limit-in-window=1", "refusal:both-cursors=1", "listing:snapshots=1"}, // first and last: refused under Strict only
			[]string{"refusal:after-with-last", "listing:transactions", "listing:games"}, 7},
		{"faults", []string{
			"/api/v2/snapshots status=503; retry-after=1", "/api/v2/snapshots empty", "/api/v2/snapshots latency=1ms",
			"/api/v2/snapshots truncate=0.5", "/api/v2/snapshots status=500"},
			[]string{"fault:status=2", "fault:retry-after=1", "fault:empty=1", "fault:latency=1", "fault:truncate=1", "listing:snapshots=1"},
			[]string{"fault:garbage", "fault:reset", "fault:slow-body"}, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := journalServer(t, Config{}, w)
			sendFollowing(t, s, tc.requests)
			c := coverageRead(t, s, "")
			got := c.served()
			for _, want := range tc.served {
				item, n, _ := strings.Cut(want, "=")
				if strings.Count(want, "=") > 1 || strings.HasPrefix(want, "variant") {
					item, n = want, ""
				}
				count, ok := got[item]
				if !ok || (n != "" && strconv.Itoa(count) != n) {
					t.Errorf("%s served %d times (%v), want %s; served %v", item, count, ok, n, got)
				}
			}
			for _, item := range tc.never {
				if _, ok := got[item]; ok || !slices.Contains(c.never(), item) {
					t.Errorf("%s served or not listed as never served: served %v, never %v", item, got, c.never())
				}
			}
			if c.Requests != tc.count || !c.Pass || len(c.Missing) != 0 {
				t.Errorf("requests %d, pass %v, missing %v; want %d, true, none", c.Requests, c.Pass, c.Missing, tc.count)
			}
		})
	}
}

// TestCoverageVariants checks the variants served are the types of the
// transactions answered, and the others of the world are never served.
func TestCoverageVariants(t *testing.T) {
	t.Parallel()
	s, srv := journalServer(t, Config{}, genWorld(t))
	r := s.get(t, "/transactions", "first=7")
	var page struct{ Transactions []struct{ Type string } }
	if err := json.Unmarshal(r.body, &page); err != nil || len(page.Transactions) != 7 {
		t.Fatalf("%s: %v: %s", r, err, r.body)
	}
	want := map[string]int{}
	for _, tx := range page.Transactions {
		want["variant:"+tx.Type] = 1 // one request held each
	}
	c := coverageRead(t, s, "")
	var kind CoverageKind
	for _, k := range c.Kinds {
		if k.Kind == "variant" {
			kind = k
		}
	}
	got := map[string]int{}
	for _, it := range kind.Served {
		got[it.Item] = it.Count
		if it.First != 1 {
			t.Errorf("%s first served by request %d, want 1", it.Item, it.First)
		}
	}
	if len(got) != len(want) {
		t.Errorf("variants served %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("variants served %v, want %v", got, want)
		}
	}
	if len(kind.Served)+len(kind.Never) != len(srv.servedTypes()) {
		t.Errorf("%d served and %d never, want the world's %d types", len(kind.Served), len(kind.Never), len(srv.servedTypes()))
	}
	for _, n := range kind.Never {
		if _, ok := want[n]; ok {
			t.Errorf("%s served and said never served", n)
		}
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "edge world only") {
		t.Errorf("notes %q, want the one of edges outside the edge world", c.Notes)
	}
}

// TestCoverageRequire checks requirements: items, kind:*, lists, and the
// 400 of one that names nothing the mock serves.
func TestCoverageRequire(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{}, genWorld(t))
	sendFollowing(t, s, []string{"/api/v2/network/parameters?pagination.last=2", "/api/v2/snapshots reset"})
	tests := []struct {
		query   string
		status  int
		missing []string
		says    string // in the error's inner
	}{
		{"require=page:first", 200, nil, ""},
		{"require=page:first,page:backward&require=fault:reset", 200, nil, ""},
		{"require=page:first&require=page:last", 200, []string{"page:last"}, ""},
		{"require=page:*", 200, []string{"page:middle", "page:last", "page:empty", "page:exact-fit"}, ""},
		{"require=fault:reset,+fault:empty", 200, []string{"fault:empty"}, ""},
		{"require=listing:*", 200, []string{"listing:games", "listing:snapshots", "listing:keyrotations", "listing:transactions"}, ""},
		{"require=paeg:first", 400, nil, `want kind:item or kind:*, of the kinds listing, variant, enum, branch, edge, page, refusal, fault; did you mean "page"?`},
		{"require=page", 400, nil, `requirement "page": want kind:item`},
		{"require=page:", 400, nil, `requirement "page:": want kind:item`},
		{"require=page:frist", 400, nil, `the mock serves no such page item; it serves first, middle, last, empty, exact-fit, backward; did you mean "page:first"?`},
		{"require=variant:Submit+Ordr", 400, nil, `did you mean "variant:Submit Order"?`},
		{"require=edge:null", 400, nil, "this mock serves no edge item (enum, branch and edge items need the edge world"},
		{"format=text&format=json", 400, nil, "format given 2 times"},
		{"format=xml", 400, nil, "format \"xml\": want json or text"},
		{"requires=page:first", 400, nil, `unknown parameter "requires": give format or require; did you mean "require"?`},
		{"require=%zz", 400, nil, "parsing query"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			if tc.status != 200 {
				r := controlHeader(t, s, http.MethodGet, "/harness/coverage", tc.query, "", nil)
				if r.status != http.StatusBadRequest {
					t.Fatalf("%s: status %d, want 400: %s", r, r.status, r.body)
				}
				e := r.apiError(t)
				if len(e.Details) != 1 || e.Details[0].Message != "invalid coverage request" || !strings.Contains(e.Details[0].Inner, tc.says) {
					t.Errorf("%s: %s, want it to say %q", r, r.body, tc.says)
				}
				return
			}
			c := coverageRead(t, s, tc.query)
			if c.Pass != (len(tc.missing) == 0) || !slices.Equal(c.Missing, append([]string{}, tc.missing...)) {
				t.Errorf("pass %v, missing %q; want missing %q", c.Pass, c.Missing, tc.missing)
			}
		})
	}
}

// TestCoverageText checks the text form: a line per kind with its counts,
// what was served and never, the notes and the requirements missed.
func TestCoverageText(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{}, genWorld(t))
	sendAll(t, s, []string{"/api/v2/network/parameters?pagination.last=2", "/api/v2/network/parameters?pagination.last=2", "/transactions?first=1&last=1"})
	r, err := s.fetch(http.MethodGet, "/harness/coverage", "format=text&require=page:empty", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.status != 200 || r.header.Get("Content-Type") != "text/plain; charset=utf-8" || r.header.Get("Content-Length") != strconv.Itoa(len(r.body)) {
		t.Fatalf("%s: %d %v", r, r.status, r.header)
	}
	text := string(r.body)
	if r, _ := s.fetch(http.MethodGet, "/harness/coverage", "format=text", nil); strings.Contains(string(r.body), "FAIL") {
		t.Errorf("nothing required, yet:\n%s", r.body)
	}
	for _, want := range []string{
		"coverage of 3 API requests since the journal was last emptied\n",
		"listing: 1 of 5 served\n  served: networkparameters ×2\n  never:  games, snapshots, keyrotations, transactions\n",
		"page: 2 of 6 served\n  served: first ×2, backward ×2\n  never:  middle, last, empty, exact-fit\n",
		"refusal: 1 of 13 served\n  served: first-and-last ×1\n",
		"fault: 0 of 8 served\n  never:  latency, status, retry-after, reset, empty, truncate, slow-body, garbage\n",
		"enum: 0 of 0 served\nbranch: 0 of 0 served\nedge: 0 of 0 served\n",
		"note: enum, branch and edge items are known in the edge world only",
		"FAIL: required and never served: page:empty\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text does not hold %q:\n%s", want, text)
		}
	}
}

// TestCoverageEdgeWorld checks that in the edge world the rows served name
// their edges, enum values and branches, as the catalogue lists them.
func TestCoverageEdgeWorld(t *testing.T) {
	t.Parallel()
	w, err := world.GenerateEdges()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Control: true, Edges: w.Edges}, st)
	s := serveHandler(t, srv, w)
	// The row of the first edge above 2^53, by the query the catalogue
	// gives for it.
	var row int = -1
	for _, e := range w.Edges.Edges {
		if e.Class == "above-2^53" {
			row = e.Row
			break
		}
	}
	if row < 0 {
		t.Fatal("the edge world holds no edge above 2^53")
	}
	q := w.Edges.Rows[row]
	path, query, _ := strings.Cut(q.Query, "?")
	s.get(t, path, query)
	c := coverageRead(t, s, "require=edge:above-2%5E53")
	if !c.Pass || len(c.Notes) != 0 {
		t.Fatalf("pass %v, missing %v, notes %v after %s", c.Pass, c.Missing, c.Notes, q.Query)
	}
	got := c.served()
	want := map[string]bool{}
	for _, e := range w.Edges.Row(q.Listing, q.Cursor) {
		item, kind := edgeItem(e.Key)
		want[kind+":"+item] = true
		if got[kind+":"+item] != 1 {
			t.Errorf("%s:%s of row %s not served once: %v", kind, item, q.Label, got)
		}
	}
	for item := range got { // the page held that row alone: nothing else is served
		kind, _, _ := strings.Cut(item, ":")
		if (kind == "enum" || kind == "branch" || kind == "edge") && !want[item] {
			t.Errorf("%s served, which row %s does not hold", item, q.Label)
		}
	}
	c = coverageRead(t, s, "require=edge:*")
	if c.Pass || len(c.Missing) == 0 || slices.Contains(c.Missing, "edge:above-2^53") {
		t.Errorf("edge:* pass %v, missing %v: want others missing, not above-2^53", c.Pass, c.Missing)
	}
	for _, k := range c.Kinds {
		if (k.Kind == "enum" || k.Kind == "branch" || k.Kind == "edge") && len(k.Never) == 0 {
			t.Errorf("%s: nothing never served, after one row", k.Kind)
		}
	}
}

// TestListSome checks a list of names is given whole up to twelve, and
// past that its first twelve and how many more.
func TestListSome(t *testing.T) {
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strconv.Itoa(i)
		}
		return out
	}
	tests := []struct {
		n    int
		want string
	}{
		{1, "0"},
		{12, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11"},
		{13, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 1 more"},
		{20, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 8 more"},
	}
	for _, tc := range tests {
		if got := listSome(names(tc.n)); got != tc.want {
			t.Errorf("%d names: %q, want %q", tc.n, got, tc.want)
		}
	}
}
