package mockserver

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators"
)

// The fuzz targets send any query string to one listing, on a lenient and a
// --strict server with small page sizes, and require a 200 that validates
// against the listing's schema and keeps the listing's invariants, or a 400
// with the spec's error body: never a panic (which the server would turn
// into a 500), never a hang. Their seed corpora are in
// testdata/fuzz/<FuzzName>; the targets add seeds holding real cursors.

const (
	fuzzPageSize = 5
	fuzzMaxSize  = 8
)

type fuzzServers struct {
	world    *generators.World
	handlers []http.Handler
}

var fuzzSetup = sync.OnceValues(func() (*fuzzServers, error) {
	w, err := sharedWorld()
	if err != nil {
		return nil, err
	}
	store, err := NewStore(w)
	if err != nil {
		return nil, err
	}
	cfg := Config{DefaultPageSize: fuzzPageSize, MaxPageSize: fuzzMaxSize, TxDefaultPageSize: fuzzPageSize, TxMaxPageSize: fuzzMaxSize}
	strict := cfg
	strict.Strict = true
	return &fuzzServers{world: w, handlers: []http.Handler{New(cfg, store), New(strict, store)}}, nil
})

func FuzzGames(f *testing.F) {
	fuzzListing(f, gamesListing.path, func(w *generators.World) []string {
		g := &w.Games[len(w.Games)/2]
		c := url.QueryEscape(g.Cursor())
		return []string{
			"pagination.first=2&pagination.after=" + c,
			"pagination.last=3&pagination.before=" + c + "&pagination.newestFirst=false",
			"gameId=" + g.ID + "&epochFrom=" + strconv.FormatUint(g.Epoch, 10),
			"partyId=" + g.PartyIDs()[0] + "&entityScope=" + g.Scope(),
		}
	})
}

func FuzzSnapshots(f *testing.F) {
	fuzzListing(f, snapshotsListing.path, func(w *generators.World) []string {
		c := url.QueryEscape(w.Snapshots[len(w.Snapshots)/2].Cursor())
		return []string{"pagination.first=2&pagination.after=" + c, "pagination.before=" + c + "&pagination.newestFirst=false"}
	})
}

func FuzzKeyRotations(f *testing.F) {
	fuzzListing(f, rotationsListing.path, func(w *generators.World) []string {
		r := &w.KeyRotations[len(w.KeyRotations)/2]
		c := url.QueryEscape(r.Cursor())
		return []string{"pagination.first=2&pagination.after=" + c, "nodeId=" + r.NodeID + "&pagination.before=" + c}
	})
}

func FuzzNetworkParameters(f *testing.F) {
	fuzzListing(f, paramsListing.path, func(w *generators.World) []string {
		c := url.QueryEscape(w.NetworkParameters[len(w.NetworkParameters)/2].Cursor())
		return []string{"pagination.first=2&pagination.after=" + c, "pagination.last=1&pagination.before=" + c}
	})
}

func FuzzTransactions(f *testing.F) {
	fuzzListing(f, "/transactions", func(w *generators.World) []string {
		a, b := &w.Transactions[len(w.Transactions)/3], &w.Transactions[len(w.Transactions)/2]
		return []string{
			"first=2&after=" + a.Cursor(),
			"last=2&before=" + b.Cursor() + "&cmdTypes=" + url.QueryEscape(b.Type),
			"after=" + a.Cursor() + "&before=" + b.Cursor() + "&parties=" + a.Submitter,
		}
	})
}

// fuzzListing runs the fuzz target of the listing at path; seeds adds seed
// queries built from the world's records.
func fuzzListing(f *testing.F, path string, seeds func(*generators.World) []string) {
	fs, err := fuzzSetup()
	if err != nil {
		f.Fatal(err)
	}
	for _, q := range seeds(fs.world) {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, rawQuery string) {
		for i, h := range fs.handlers {
			r := serveOnce(t, h, path, rawQuery)
			checkResponse(t, http.MethodGet, path, r)
			switch r.status {
			case http.StatusOK:
				if path == "/transactions" {
					checkTxInvariants(t, r)
				} else {
					checkPageInvariants(t, r, listingOfPath(path))
				}
			case http.StatusBadRequest:
			default:
				t.Fatalf("server %d: %s: status %d, want 200 or 400: %s", i, r, r.status, r.body)
			}
		}
	})
}

// serveOnce answers one request with h, failing if it takes too long.
func serveOnce(t *testing.T, h http.Handler, path, rawQuery string) *response {
	t.Helper()
	req := &http.Request{
		Method: http.MethodGet, URL: &url.URL{Path: path, RawQuery: rawQuery},
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Host: "127.0.0.1", RequestURI: path + "?" + rawQuery, RemoteAddr: "127.0.0.1:1",
	}
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(rec, req.WithContext(context.Background()))
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("GET %s?%q: no answer in 20 s", path, rawQuery)
	}
	return &response{req: "GET " + path + "?" + strconv.Quote(rawQuery), status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func listingOfPath(path string) *listing {
	for _, l := range pagedListings {
		if l.path == path {
			return l
		}
	}
	panic("no listing at " + path)
}

// keyOfNode reads a row's key from its node.
func keyOfNode(t *testing.T, l *listing, node json.RawMessage) rowKey {
	t.Helper()
	var n struct {
		Epoch       string `json:"epoch"`
		ID          string `json:"id"`
		BlockHeight string `json:"blockHeight"`
		NodeID      string `json:"nodeId"`
		Key         string `json:"key"`
	}
	if err := json.Unmarshal(node, &n); err != nil {
		t.Fatal(err)
	}
	u := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("node %s: %v", node, err)
		}
		return v
	}
	switch l {
	case gamesListing:
		return rowKey{u(n.Epoch), n.ID}
	case snapshotsListing:
		return rowKey{n: u(n.BlockHeight)}
	case rotationsListing:
		return rowKey{u(n.BlockHeight), n.NodeID}
	}
	return rowKey{s: n.Key}
}

// checkPageInvariants checks what any page must satisfy: no more rows than
// the maximum, each edge's cursor its row's, rows strictly in the listing's
// order (either way, except network parameters), pageInfo's cursors those
// of the first and last edge, and a games page within one 30-epoch window.
func checkPageInvariants(t *testing.T, r *response, l *listing) {
	t.Helper()
	p := r.page(t, l)
	if len(p.Edges) > fuzzMaxSize {
		t.Fatalf("%s: %d rows, more than the maximum %d", r, len(p.Edges), fuzzMaxSize)
	}
	keys := make([]rowKey, len(p.Edges))
	for i, e := range p.Edges {
		keys[i] = keyOfNode(t, l, e.Node)
		if want := l.cursor(keys[i]); e.Cursor != want {
			t.Fatalf("%s: edge %d cursor %q, want %q for node %s", r, i, e.Cursor, want, e.Node)
		}
	}
	dir := 0
	for i := 1; i < len(keys); i++ {
		c := l.order(keys[i-1], keys[i])
		if c == 0 || (dir != 0 && c != dir) || (l.fixed && c > 0) {
			t.Fatalf("%s: rows %d and %d out of order", r, i-1, i)
		}
		dir = c
	}
	start, end := "", ""
	if len(p.Edges) > 0 {
		start, end = p.Edges[0].Cursor, p.Edges[len(p.Edges)-1].Cursor
	}
	if p.PageInfo.StartCursor != start || p.PageInfo.EndCursor != end {
		t.Fatalf("%s: pageInfo cursors %q..%q, edges %q..%q", r, p.PageInfo.StartCursor, p.PageInfo.EndCursor, start, end)
	}
	if l == gamesListing && len(keys) > 1 {
		lo, hi := min(keys[0].n, keys[len(keys)-1].n), max(keys[0].n, keys[len(keys)-1].n)
		if hi-lo > 29 {
			t.Fatalf("%s: games of epochs %d to %d, more than 30 epochs", r, lo, hi)
		}
	}
}

// checkTxInvariants checks what any transaction page must satisfy: no more
// rows than the maximum, newest to oldest, each cursor "<block>.<index>".
func checkTxInvariants(t *testing.T, r *response) {
	t.Helper()
	txs := r.txPage(t)
	if len(txs) > fuzzMaxSize {
		t.Fatalf("%s: %d transactions, more than the maximum %d", r, len(txs), fuzzMaxSize)
	}
	var prev *txModel
	for i, raw := range txs {
		var tx struct {
			Block  string `json:"block"`
			Index  uint32 `json:"index"`
			Cursor string `json:"cursor"`
		}
		if err := json.Unmarshal(raw, &tx); err != nil {
			t.Fatal(err)
		}
		if want := tx.Block + "." + strconv.FormatUint(uint64(tx.Index), 10); tx.Cursor != want {
			t.Fatalf("%s: transaction %d cursor %q, want %q", r, i, tx.Cursor, want)
		}
		block, _ := strconv.ParseUint(tx.Block, 10, 64)
		cur := &txModel{block: block, index: tx.Index}
		if prev != nil && cmp.Or(cmp.Compare(cur.block, prev.block), cmp.Compare(cur.index, prev.index)) >= 0 {
			t.Fatalf("%s: transaction %d is not older than the one before", r, i)
		}
		prev = cur
	}
}
