package world_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/internal/race"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
	"github.com/chaindata/harness/schemas"
)

// The mock serving the edge world (harness serve --world edges): the queries
// docs/edge-world.md gives answer their rows, and the listings page, filter
// and grow on it as on the default world. These tests sit with the world,
// among the data-heavy packages make test runs without the race detector:
// the edge world has nothing concurrent of its own, and the mock's races
// are the mockserver packages' tests.

var sharedEdgeWorld = sync.OnceValues(world.GenerateEdges)

// newEdgeMock serves the edge world, growing, on 127.0.0.1.
func newEdgeMock(t *testing.T) (*world.World, *mockserver.Server, string) {
	t.Helper()
	if testing.Short() && race.Enabled {
		t.Skip("-race -short: the edge world has nothing concurrent of its own; make test runs this without the detector")
	}
	w, err := sharedEdgeWorld()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	chain, err := store.NewChain(st, w, 1000)
	if err != nil {
		t.Fatal(err)
	}
	srv := mockserver.New(mockserver.Config{Control: true, Chain: chain}, st)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return w, srv, ts.URL
}

// responses are each listing's response definition and the member holding
// its rows.
var responses = map[string]struct{ def, member string }{
	records.ListingGames:             {"ListGamesResponse", "games"},
	records.ListingSnapshots:         {"ListCoreSnapshotsResponse", "coreSnapshots"},
	records.ListingKeyRotations:      {"ListEthereumKeyRotationsResponse", "keyRotations"},
	records.ListingNetworkParameters: {"ListNetworkParametersResponse", "networkParameters"},
	records.ListingTransactions:      {"ListTransactionsResponse", "transactions"},
}

// servedRow is one row of an answer: its record's JSON as served, and its
// cursor.
type servedRow struct {
	node   json.RawMessage
	cursor string
}

// page is a listing's answer read back.
type page struct {
	rows                 []servedRow
	hasNext, hasPrevious bool
	endCursor            string
}

// get asks for a page of a listing, checks the answer is 200 and valid
// against the listing's response definition under both profiles, and reads
// its rows.
func get(t *testing.T, base, listing, query string) page {
	t.Helper()
	resp, err := http.Get(base + query)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %v: %.300s", query, resp.StatusCode, err, body)
	}
	r := responses[listing]
	for _, p := range schemas.Profiles() {
		if err := schemas.MustLoadProfile(r.def, p).Validate(body); err != nil {
			t.Fatalf("%s: the answer is not a valid %s (%s): %v", query, r.def, p, err)
		}
	}
	var out page
	if listing == records.ListingTransactions {
		var a struct {
			Transactions []json.RawMessage `json:"transactions"`
		}
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		for _, tx := range a.Transactions {
			var c struct {
				Cursor string `json:"cursor"`
			}
			_ = json.Unmarshal(tx, &c)
			out.rows = append(out.rows, servedRow{tx, c.Cursor})
		}
		return out
	}
	var a map[string]struct {
		Edges []struct {
			Node   json.RawMessage `json:"node"`
			Cursor string          `json:"cursor"`
		} `json:"edges"`
		PageInfo struct {
			HasNextPage     bool   `json:"hasNextPage"`
			HasPreviousPage bool   `json:"hasPreviousPage"`
			EndCursor       string `json:"endCursor"`
		} `json:"pageInfo"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	conn := a[r.member]
	for _, e := range conn.Edges {
		out.rows = append(out.rows, servedRow{e.Node, e.Cursor})
	}
	out.hasNext, out.hasPrevious, out.endCursor = conn.PageInfo.HasNextPage, conn.PageInfo.HasPreviousPage, conn.PageInfo.EndCursor
	return out
}

// worldRecords returns the world's records of each listing by cursor.
func worldRecords(w *world.World) map[string]map[string][]byte {
	out := map[string]map[string][]byte{}
	add := func(listing, cursor string, rec any) {
		if out[listing] == nil {
			out[listing] = map[string][]byte{}
		}
		out[listing][cursor] = records.RecordJSON(rec)
	}
	for i := range w.Games {
		add(records.ListingGames, w.Games[i].Cursor(), &w.Games[i])
	}
	for i := range w.Snapshots {
		add(records.ListingSnapshots, w.Snapshots[i].Cursor(), &w.Snapshots[i])
	}
	for i := range w.KeyRotations {
		add(records.ListingKeyRotations, w.KeyRotations[i].Cursor(), &w.KeyRotations[i])
	}
	for i := range w.NetworkParameters {
		add(records.ListingNetworkParameters, w.NetworkParameters[i].Cursor(), &w.NetworkParameters[i])
	}
	for i := range w.Transactions {
		add(records.ListingTransactions, w.Transactions[i].Cursor(), &w.Transactions[i])
	}
	return out
}

// TestEdgeWorldQueriesAnswerTheirRows asks the mock each query of the edge
// catalogue (the queries docs/edge-world.md gives): each answer, valid under
// both profiles, holds its row and no other, byte for byte the record whose
// edges the catalogue lists.
func TestEdgeWorldQueriesAnswerTheirRows(t *testing.T) {
	w, _, base := newEdgeMock(t)
	want := worldRecords(w)
	rows := w.Edges.Rows
	if testing.Short() {
		// Every row that holds a key's first edge (the rows the doc
		// lists), and every tenth.
		first := map[int]bool{}
		for _, k := range w.Edges.Keys() {
			e, _ := w.Edges.First(k)
			first[e.Row] = true
		}
		rows = nil
		for i, r := range w.Edges.Rows {
			if first[i] || i%10 == 0 {
				rows = append(rows, r)
			}
		}
	}
	for _, r := range rows {
		p := get(t, base, r.Listing, r.Query)
		if len(p.rows) != 1 || p.rows[0].cursor != r.Cursor {
			t.Errorf("%s %s: %s answers %d rows, want that row alone", r.Listing, r.Label, r.Query, len(p.rows))
			continue
		}
		if !bytes.Equal(p.rows[0].node, want[r.Listing][r.Cursor]) {
			t.Errorf("%s %s: %s answers\n%.300s\nthe world's record is\n%.300s", r.Listing, r.Label, r.Query, p.rows[0].node, want[r.Listing][r.Cursor])
		}
	}
}

// TestEdgeWorldWalks walks every listing of the edge world page by page:
// every row comes once, and the journal finds each walk whole and clean.
func TestEdgeWorldWalks(t *testing.T) {
	w, srv, base := newEdgeMock(t)
	const size = 37
	paths := map[string]string{
		records.ListingSnapshots:         "/api/v2/snapshots",
		records.ListingKeyRotations:      "/api/v2/core/keys/ethereum/rotations",
		records.ListingNetworkParameters: "/api/v2/network/parameters",
	}
	// Games in two windows of 30 epochs and 10, the window the spec allows.
	windows := [][2]uint64{{w.FirstEpoch, w.FirstEpoch + 29}, {w.FirstEpoch + 30, w.LatestEpoch}}
	walk := func(listing, path, filters string) int {
		seen := 0
		after := ""
		for i := 0; i < 100; i++ {
			q := path + "?pagination.first=" + strconv.Itoa(size) + filters
			if after != "" {
				q += "&pagination.after=" + url.QueryEscape(after)
			}
			p := get(t, base, listing, q)
			seen += len(p.rows)
			if !p.hasNext {
				return seen
			}
			after = p.endCursor
		}
		t.Fatalf("%s: no end after 100 pages", listing)
		return 0
	}
	games := 0
	for _, win := range windows {
		games += walk(records.ListingGames, "/api/v2/games", fmt.Sprintf("&epochFrom=%d&epochTo=%d", win[0], win[1]))
	}
	counts := map[string]int{records.ListingGames: games}
	for listing, path := range paths {
		counts[listing] = walk(listing, path, "")
	}
	// Transactions newest first: first=N, then last=N before the oldest.
	txs, before := 0, ""
	for i := 0; i < 100; i++ {
		q := "/transactions?first=" + strconv.Itoa(size)
		if before != "" {
			q = "/transactions?last=" + strconv.Itoa(size) + "&before=" + before
		}
		p := get(t, base, records.ListingTransactions, q)
		txs += len(p.rows)
		if len(p.rows) < size {
			break
		}
		before = p.rows[len(p.rows)-1].cursor
	}
	counts[records.ListingTransactions] = txs
	want := map[string]int{
		records.ListingGames: len(w.Games), records.ListingSnapshots: len(w.Snapshots),
		records.ListingKeyRotations: len(w.KeyRotations), records.ListingNetworkParameters: len(w.NetworkParameters),
		records.ListingTransactions: len(w.Transactions),
	}
	for listing, n := range want {
		if counts[listing] != n {
			t.Errorf("%s: a walk read %d rows, the world holds %d", listing, counts[listing], n)
		}
	}
	for _, wk := range srv.Walks("") {
		if wk.RowsMissed != 0 || wk.RowsSeenTwice != 0 || len(wk.CursorsNotIssued) != 0 || !wk.ReachedEnd {
			t.Errorf("walk %d of %s %s: missed %d, twice %d, cursors not issued %d, reached the end %v", wk.ID, wk.Listing, wk.Query,
				wk.RowsMissed, wk.RowsSeenTwice, len(wk.CursorsNotIssued), wk.ReachedEnd)
		}
	}
}

// TestEdgeWorldFiltersFaultsAndGrowth: the filters select the edge world's
// rows (a command kind the spec gives no shape, a party, an epoch above
// 2^53), a fault header is obeyed, and the chain grows.
func TestEdgeWorldFiltersFaultsAndGrowth(t *testing.T) {
	w, _, base := newEdgeMock(t)
	count := func(keep func(records.Transaction) bool) int {
		n := 0
		for _, tx := range w.Transactions {
			if keep(tx) {
				n++
			}
		}
		return n
	}
	submitter := w.Transactions[len(w.Transactions)/2].Submitter
	tests := []struct {
		name, query string
		want        int
	}{
		{"a kind accepted by name", "/transactions?first=1000&cmdTypes=Withdraw+Submission",
			count(func(tx records.Transaction) bool { return tx.Type == "Withdraw Submission" })},
		{"excluding it", "/transactions?first=1000&excludeCmdTypes=Withdraw+Submission",
			count(func(tx records.Transaction) bool { return tx.Type != "Withdraw Submission" })},
		{"a party", "/transactions?first=1000&parties=" + submitter,
			count(func(tx records.Transaction) bool {
				return tx.Submitter == submitter || contains(tx.Receivers, submitter)
			})},
	}
	for _, tc := range tests {
		if got := len(get(t, base, records.ListingTransactions, tc.query).rows); got != tc.want || got == 0 {
			t.Errorf("%s: %s answers %d rows, want %d (not 0)", tc.name, tc.query, got, tc.want)
		}
	}
	const epoch = 1<<53 + 1
	games := 0
	for _, g := range w.Games {
		if g.Epoch == epoch {
			games++
		}
	}
	q := fmt.Sprintf("/api/v2/games?epochFrom=%d&epochTo=%d", uint64(epoch), uint64(epoch))
	if got := len(get(t, base, records.ListingGames, q).rows); got != games || games == 0 {
		t.Errorf("%s: %d games, the world holds %d in epoch 2^53+1", q, got, games)
	}

	req, _ := http.NewRequest(http.MethodGet, base+"/transactions?first=1", nil)
	req.Header.Set("X-Harness-Fault", "status=503")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a fault header asking 503 answered %d", resp.StatusCode)
	}

	req, _ = http.NewRequest(http.MethodPost, base+"/harness/advance?blocks=60", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("advance: %d", resp.StatusCode)
	}
	newest := get(t, base, records.ListingTransactions, "/transactions?first=1").rows
	var tx struct {
		Block string `json:"block"`
	}
	if len(newest) == 1 {
		_ = json.Unmarshal(newest[0].node, &tx)
	}
	if b, _ := strconv.ParseUint(tx.Block, 10, 64); b <= w.LatestBlock {
		t.Errorf("after 60 blocks the newest transaction is in block %s, not after %d", tx.Block, w.LatestBlock)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
