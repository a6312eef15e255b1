package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/store"
)

// edited returns raw with fields set (a value nil deletes the field), its
// numbers kept as written.
func edited(t testing.TB, raw []byte, fields map[string]any) json.RawMessage {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testRows are valid rows of every listing for w: among its rows, before
// them and at its newest end, with a party, a node and a command type's
// rows of their own.
type testRows struct {
	byListing []Rows
	party     string // a new party, of a game and a transaction
	node      string // a new node, of a key rotation
}

func newTestRows(t testing.TB, w *world.World) testRows {
	t.Helper()
	party := hexID("party of the rows added")
	node := hexID("node of the rows added")
	mid := w.Games[len(w.Games)/2]
	var games []json.RawMessage
	for _, g := range []records.Game{
		individualGame(mid.Epoch, hexID("among"), party, mid.PartyIDs()[0]),
		individualGame(w.FirstEpoch, hexID("oldest epoch"), party),
		individualGame(w.LatestEpoch, hexID("newest epoch"), hexID("another")),
	} {
		games = append(games, records.RecordJSON(&g))
	}
	free := w.LatestBlock // a height no snapshot has
	for slices.ContainsFunc(w.Snapshots, func(s records.CoreSnapshot) bool { return s.BlockHeight == free }) {
		free--
	}
	var snaps, rots []json.RawMessage
	for _, h := range []uint64{w.Snapshots[3].BlockHeight + 1, 0, free} {
		sn := snapshot(h)
		snaps = append(snaps, records.RecordJSON(&sn))
	}
	for _, r := range []records.EthereumKeyRotation{
		rotation(w.KeyRotations[5].BlockHeight, node), rotation(w.KeyRotations[7].BlockHeight+1, w.KeyRotations[0].NodeID),
	} {
		rots = append(rots, records.RecordJSON(&r))
	}
	params := []json.RawMessage{json.RawMessage(`{"key": "aaa.edge", "value": ""}`), json.RawMessage(`{"key":"zzz.edge","value":"🚀 \"quoted\" \u2028"}`)}
	some := w.Transactions[len(w.Transactions)/3]
	tx := func(block uint64, index uint32, submitter string) json.RawMessage {
		c := fmt.Sprintf("%d.%d", block, index)
		return edited(t, some.JSON, map[string]any{"block": strconv.FormatUint(block, 10), "index": index, "cursor": c, "submitter": submitter})
	}
	txs := []json.RawMessage{tx(some.Block, some.Index+1000, party), tx(1, 0, some.Submitter), tx(w.LatestBlock, 4000, party)}
	return testRows{party: party, node: node, byListing: []Rows{
		{Listing: records.ListingGames, Rows: games}, {Listing: records.ListingSnapshots, Rows: snaps},
		{Listing: records.ListingKeyRotations, Rows: rots}, {Listing: records.ListingNetworkParameters, Rows: params},
		{Listing: records.ListingTransactions, Rows: txs},
	}}
}

// into returns w with the rows among its records, as fixtures read them.
func (tr testRows) into(t testing.TB, w *world.World) *world.World {
	t.Helper()
	c := copyWorld(w)
	for _, rows := range tr.byListing {
		for _, raw := range rows.Rows {
			var buf bytes.Buffer
			if err := json.Compact(&buf, raw); err != nil {
				t.Fatal(err)
			}
			rec, err := records.ParseRecord(rows.Listing, buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			switch r := rec.(type) {
			case *records.Game:
				c.Games = append(c.Games, *r)
			case *records.CoreSnapshot:
				c.Snapshots = append(c.Snapshots, *r)
			case *records.EthereumKeyRotation:
				c.KeyRotations = append(c.KeyRotations, *r)
			case *records.NetworkParameter:
				c.NetworkParameters = append(c.NetworkParameters, *r)
			case *records.Transaction:
				c.Transactions = append(c.Transactions, *r)
			}
		}
	}
	slices.SortFunc(c.Transactions, func(a, b records.Transaction) int { return a.Key().Compare(b.Key()) })
	return c
}

// queriesOf returns w as fixtureQueries reads it, its first party, team and
// node those of the rows.
func (tr testRows) queriesOf(w *world.World) *world.World {
	c := *w
	c.Parties = append([]string{tr.party}, w.Parties...)
	c.Nodes = append([]world.Node{{ID: tr.node}}, w.Nodes...)
	return &c
}

// TestRowsAnswerLikeAWorldWithThem adds rows to every listing through
// Server.AddRows and compares every answer, byte for byte, following
// cursors both ways, with those of a store built from a world holding the
// rows: the rows are in their place, paged, filtered and carrying cursors
// like every other row. From memory and from fixtures on disk.
func TestRowsAnswerLikeAWorldWithThem(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	tr := newTestRows(t, w)
	want := memStore(t, tr.into(t, w))
	for _, from := range []string{"memory", "fixtures"} {
		t.Run(from, func(t *testing.T) {
			var st *store.Store
			if from == "memory" {
				st = memStore(t, w)
			} else {
				st, _ = openFixtures(t, writeFixtures(t, w, fixtures.FormatNDJSON))
			}
			srv := New(Config{}, st)
			for _, rows := range tr.byListing {
				if err := srv.AddRows(rows); err != nil {
					t.Fatal(err)
				}
			}
			compareAnswers(t, tr.queriesOf(w), st, "rows added", want, "a world with them")
		})
	}
}

// postRows sends body to POST /harness/rows as JSON.
func postRows(t testing.TB, s *testServer, body string) *response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+"/harness/rows", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	return &response{req: "POST /harness/rows " + quoteCut(body), status: res.StatusCode, header: res.Header, body: buf.Bytes()}
}

func quoteCut(s string) string {
	if len(s) > 200 {
		return strconv.Quote(s[:200]) + "…"
	}
	return strconv.Quote(s)
}

// rowsBody is the JSON of a POST /harness/rows.
func rowsBody(t testing.TB, r Rows) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPostRows adds rows over HTTP: the status counts them, the journal is
// emptied, a client's walk through them is clean and verified, and a reset
// removes them.
func TestPostRows(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	s, srv := journalServer(t, Config{}, w)
	before := control(t, s, http.MethodGet, "/harness/status", "", "")
	s.get(t, "/api/v2/snapshots", "")
	tr := newTestRows(t, w)
	for _, rows := range tr.byListing {
		if r := postRows(t, s, rowsBody(t, rows)); r.status != http.StatusOK {
			t.Fatalf("%s: status %d: %s", r, r.status, r.body)
		}
	}
	st := control(t, s, http.MethodGet, "/harness/status", "", "")
	for _, rows := range tr.byListing {
		if n := len(rows.Rows); st.AddedRows[rows.Listing] != n || st.Counts[rows.Listing] != before.Counts[rows.Listing]+n {
			t.Errorf("%s: %d rows, %d added; want %d and %d", rows.Listing, st.Counts[rows.Listing], st.AddedRows[rows.Listing], before.Counts[rows.Listing]+n, n)
		}
	}
	if n := len(srv.Requests(journal.RequestFilter{})); n != 0 {
		t.Errorf("the journal holds %d requests after rows were added, want none", n)
	}

	// A client walks the snapshots, 7 a page, oldest first: it meets the
	// three added, in their place, and its walk is clean.
	var heights []string
	q := "pagination.first=7&pagination.newestFirst=false"
	for range 100 {
		r := s.get(t, "/api/v2/snapshots", q)
		var page struct {
			CoreSnapshots struct {
				Edges []struct {
					Node struct{ BlockHeight string }
				}
				PageInfo struct {
					EndCursor   string
					HasNextPage bool
				}
			}
		}
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatal(err)
		}
		for _, e := range page.CoreSnapshots.Edges {
			heights = append(heights, e.Node.BlockHeight)
		}
		if !page.CoreSnapshots.PageInfo.HasNextPage {
			break
		}
		q = "pagination.first=7&pagination.newestFirst=false&pagination.after=" + page.CoreSnapshots.PageInfo.EndCursor
	}
	var want []uint64
	for _, sn := range w.Snapshots {
		want = append(want, sn.BlockHeight)
	}
	for _, raw := range tr.byListing[1].Rows {
		var sn records.CoreSnapshot
		json.Unmarshal(raw, &sn)
		want = append(want, sn.BlockHeight)
	}
	slices.Sort(want)
	if fmt.Sprint(heights) != fmt.Sprint(want) {
		t.Errorf("the walk saw heights\n%v\nwant\n%v", heights, want)
	}
	if v := srv.Verify(VerifyQuery{Listing: "snapshots"}); !v.Pass {
		t.Errorf("the walk: %v", v.Messages)
	}
	if r := s.get(t, "/transactions", "parties="+tr.party); !bytes.Contains(r.body, []byte(`"cursor":"1.0"`)) && !strings.Contains(string(r.body), tr.party) {
		t.Errorf("the transactions of the rows' party: %s", r.body)
	}

	st = control(t, s, http.MethodPost, "/harness/reset", "", "")
	for l, n := range st.AddedRows {
		if n != 0 || st.Counts[l] != before.Counts[l] {
			t.Errorf("after a reset, %s: %d rows, %d added; want %d and none", l, st.Counts[l], n, before.Counts[l])
		}
	}
	if r := s.get(t, "/transactions", "parties="+tr.party); !bytes.Equal(r.body, []byte("{\"transactions\":[]}\n")) {
		t.Errorf("after a reset, the rows' party has transactions: %.300s", r.body)
	}
}

// TestPostRowsRefused sends bodies no row of which may be added: each is a
// 400 with the error body, a detail per problem naming its place, and
// changes nothing.
func TestPostRowsRefused(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	s, _ := journalServer(t, Config{}, w)
	sn := records.RecordJSON(&w.Snapshots[4])
	good := records.RecordJSON(ptr(snapshot(w.Snapshots[4].BlockHeight + 1)))
	tx := w.Transactions[3].JSON
	tests := []struct {
		name    string
		body    string
		message string
		inner   []string // a detail each, in order
	}{
		{"a height not a number", rowsBody(t, Rows{Listing: "snapshots", Rows: []json.RawMessage{edited(t, good, map[string]any{"blockHeight": "tall"})}}),
			"rows do not match the schema CoreSnapshot (profile reference)", []string{"/rows/0/blockHeight: "}},
		{"two bad rows and a good one", rowsBody(t, Rows{Listing: "snapshots", Rows: []json.RawMessage{
			good, edited(t, good, map[string]any{"blockHash": nil}), edited(t, good, map[string]any{"extra": 1})}}),
			"rows do not match the schema CoreSnapshot", []string{"/rows/1/blockHash: ", "/rows/2/extra: "}},
		{"a world's row", rowsBody(t, Rows{Listing: "snapshots", Rows: []json.RawMessage{sn}}), "rows refused",
			[]string{fmt.Sprintf("the snapshot at height %d is the world's (replace it, or give another key)", w.Snapshots[4].BlockHeight)}},
		{"one key twice", rowsBody(t, Rows{Listing: "snapshots", Rows: []json.RawMessage{good, good}}), "rows refused", []string{"give each key once"}},
		{"a transaction whose cursor is not its place", rowsBody(t, Rows{Listing: "transactions", Rows: []json.RawMessage{
			edited(t, tx, map[string]any{"block": "5", "index": 0, "cursor": "5.1"})}}), "rows do not match",
			[]string{`/rows/0/cursor: "5.1", but the transaction's block and index make "5.0": a client pages by it`}},
		{"a game as a snapshot", rowsBody(t, Rows{Listing: "snapshots", Rows: []json.RawMessage{records.RecordJSON(&w.Games[0])}}),
			"rows do not match the schema CoreSnapshot", []string{"/rows/0/blockHash: blockHash is required [required]", "/rows/0/blockHeight: ",
				"/rows/0/coreVersion: ", "/rows/0/epoch: Additional property epoch is not allowed [additional_property_not_allowed]",
				"/rows/0/id: ", "/rows/0/individual: ", "/rows/0/participants: ", "/rows/0/protocolUpgradeBlock: ", "/rows/0/rewardAssetId: "}},
		{"an unknown listing", `{"listing": "snapshot", "rows": [{}]}`, "unknown listing", []string{`listing "snapshot": want one of games, snapshots, keyrotations, networkparameters, transactions; did you mean "snapshots"?`}},
		{"no rows", `{"listing": "snapshots", "rows": []}`, "no rows", []string{`give the records to add in "rows"`}},
		{"no rows at all", `{"listing": "snapshots"}`, "no rows", []string{`"rows"`}},
		{"a row not an object", `{"listing": "snapshots", "rows": [7]}`, "rows do not match", []string{"/rows/0: Invalid type. Expected: object, given: integer"}},
		{"an unknown field", `{"listing": "snapshots", "rowz": []}`, "invalid rows", []string{`want {"listing": "...", "rows": [{...}], "replace": false}: json: unknown field "rowz"`}},
		{"not JSON", `listing=snapshots`, "invalid rows", []string{"invalid character"}},
		{"two JSON values", `{"listing": "snapshots", "rows": [` + string(good) + `]} {}`, "invalid rows", []string{"more than one JSON value"}},
		{"too large", `{"listing": "snapshots", "rows": [` + strings.Repeat(" ", MaxRowsBytes) + `]}`, "invalid rows", []string{"at most 8388608 bytes"}},
	}
	before := s.statusRaw(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := postRows(t, s, tc.body)
			if r.status != http.StatusBadRequest {
				t.Fatalf("%s: status %d, want 400: %.500s", r, r.status, r.body)
			}
			if err := validateCached("Error", r.body); err != nil {
				t.Fatalf("%s: not the error body: %v", r, err)
			}
			e := r.apiError(t)
			if len(e.Details) != len(tc.inner) {
				t.Fatalf("%s: %d details, want %d: %s", r, len(e.Details), len(tc.inner), r.body)
			}
			for i, d := range e.Details {
				if !strings.Contains(d.Message, tc.message) || !strings.Contains(d.Inner, tc.inner[i]) {
					t.Errorf("%s: detail %d %q: %q, want %q: %q", r, i, d.Message, d.Inner, tc.message, tc.inner[i])
				}
			}
			if after := s.statusRaw(t); after != before {
				t.Errorf("%s: a refusal changed the state:\n%s\nwas\n%s", r, after, before)
			}
		})
	}
	t.Run("parameters", func(t *testing.T) {
		r := controlRaw(t, s, http.MethodPost, "/harness/rows", "listing=snapshots", rowsBody(t, Rows{Listing: "snapshots", Rows: []json.RawMessage{good}}))
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "rows takes its records in the body") {
			t.Errorf("%s: status %d: %s", r, r.status, r.body)
		}
	})
	t.Run("a form", func(t *testing.T) {
		r := controlHeader(t, s, http.MethodPost, "/harness/rows", "", rowsBody(t, Rows{Listing: "snapshots", Rows: []json.RawMessage{good}}),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
		if r.status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403 (a body any page may send): %s", r, r.status, r.body)
		}
	})
}

// TestPostRowsManyViolations checks a refusal lists at most
// maxRowProblems violations, and says how many more.
func TestPostRowsManyViolations(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{}, genWorld(t))
	var rows []json.RawMessage
	for range maxRowProblems + 5 {
		rows = append(rows, json.RawMessage(`{"key": 1, "value": "x"}`))
	}
	r := postRows(t, s, rowsBody(t, Rows{Listing: "networkparameters", Rows: rows}))
	e := r.apiError(t)
	if r.status != http.StatusBadRequest || len(e.Details) != maxRowProblems+1 || e.Details[maxRowProblems].Inner != "and 5 more" ||
		!strings.HasPrefix(e.Details[maxRowProblems-1].Inner, fmt.Sprintf("/rows/%d/key", maxRowProblems-1)) {
		t.Errorf("%s: status %d, %d details, the last %+v", r, r.status, len(e.Details), e.Details[len(e.Details)-1])
	}
}

// TestPostRowsReplace replaces a world's snapshot and then the row added:
// the listing serves the last, and its count is the world's.
func TestPostRowsReplace(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	s, _ := journalServer(t, Config{}, w)
	h := w.Snapshots[len(w.Snapshots)-1].BlockHeight
	for _, version := range []string{"v1.0.0-edge", "v2.0.0-edge"} {
		row := edited(t, records.RecordJSON(ptr(snapshot(h))), map[string]any{"coreVersion": version})
		if r := postRows(t, s, rowsBody(t, Rows{Listing: "snapshots", Rows: []json.RawMessage{row}, Replace: true})); r.status != http.StatusOK {
			t.Fatalf("%s: status %d: %s", r, r.status, r.body)
		}
	}
	r := s.get(t, "/api/v2/snapshots", "pagination.first=1")
	if !strings.Contains(string(r.body), `"coreVersion":"v2.0.0-edge"`) {
		t.Errorf("the newest snapshot, replaced twice: %s", r.body)
	}
	st := control(t, s, http.MethodGet, "/harness/status", "", "")
	if st.Counts["snapshots"] != len(w.Snapshots) || st.AddedRows["snapshots"] != 1 {
		t.Errorf("counts %v, added %v: want the world's count and one row added", st.Counts, st.AddedRows)
	}
}

// TestRowsAtStartComeBackAfterReset checks AddRowsAtStart: a reset serves
// them again, and drops the rows added after; a fixture server (no chain)
// resets its rows too.
func TestRowsAtStartComeBackAfterReset(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	st, _ := openFixtures(t, writeFixtures(t, w, fixtures.FormatNDJSON))
	srv := New(Config{Control: true}, st)
	s := serveHandler(t, srv, w)
	start := Rows{Listing: "snapshots", Rows: []json.RawMessage{records.RecordJSON(ptr(snapshot(1)))}}
	if err := srv.AddRowsAtStart(start); err != nil {
		t.Fatal(err)
	}
	later := Rows{Listing: "snapshots", Rows: []json.RawMessage{records.RecordJSON(ptr(snapshot(2)))}}
	if r := postRows(t, s, rowsBody(t, later)); r.status != http.StatusOK {
		t.Fatalf("%s: %d %s", r, r.status, r.body)
	}
	if got := control(t, s, http.MethodGet, "/harness/status", "", "").AddedRows["snapshots"]; got != 2 {
		t.Errorf("%d snapshots added, want 2", got)
	}
	if got := control(t, s, http.MethodPost, "/harness/reset", "", "").AddedRows["snapshots"]; got != 1 {
		t.Errorf("after a reset, %d snapshots added, want the one of the start", got)
	}
	r := s.get(t, "/api/v2/snapshots", "pagination.last=2&pagination.newestFirst=true")
	if !strings.Contains(string(r.body), `"blockHeight":"1"`) || strings.Contains(string(r.body), `"blockHeight":"2"`) {
		t.Errorf("the oldest snapshots after a reset: %s", r.body)
	}
	err := srv.AddRowsAtStart(Rows{Listing: "snapshots", Rows: []json.RawMessage{json.RawMessage(`{}`)}})
	if err == nil || !strings.HasPrefix(err.Error(), "snapshots rows: rows do not match the schema CoreSnapshot") {
		t.Errorf("rows refused at start: %v", err)
	}
}

// TestRowsErrorSaysItAll checks a RowsError's text, with problems and
// without, and that exactly maxRowProblems violations are listed whole.
func TestRowsErrorSaysItAll(t *testing.T) {
	t.Parallel()
	if got := (&RowsError{Message: "no rows"}).Error(); got != "no rows" {
		t.Errorf("without problems: %q", got)
	}
	if got := (&RowsError{Message: "refused", Problems: []string{"a", "b"}}).Error(); got != "refused: a; b" {
		t.Errorf("with problems: %q", got)
	}
	var rows []json.RawMessage
	for range maxRowProblems {
		rows = append(rows, json.RawMessage(`{"key": 1, "value": "x"}`))
	}
	_, err := parseRows(Rows{Listing: "networkparameters", Rows: rows})
	re, ok := err.(*RowsError)
	if !ok || len(re.Problems) != maxRowProblems || strings.Contains(re.Problems[maxRowProblems-1], "more") {
		t.Errorf("%d violations: %v", maxRowProblems, err)
	}
}
