package mockserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/store"
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
	world    *world.World
	handlers []http.Handler
}

var fuzzSetup = sync.OnceValues(func() (*fuzzServers, error) {
	w, err := sharedWorld()
	if err != nil {
		return nil, err
	}
	st, err := store.New(w)
	if err != nil {
		return nil, err
	}
	cfg := Config{DefaultPageSize: fuzzPageSize, MaxPageSize: fuzzMaxSize, TxDefaultPageSize: fuzzPageSize, TxMaxPageSize: fuzzMaxSize}
	strict := cfg
	strict.Strict = true
	return &fuzzServers{world: w, handlers: []http.Handler{New(cfg, st), New(strict, st)}}, nil
})

func FuzzGames(f *testing.F) {
	fuzzListing(f, gamesListing.path, func(w *world.World) []string {
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
	fuzzListing(f, snapshotsListing.path, func(w *world.World) []string {
		c := url.QueryEscape(w.Snapshots[len(w.Snapshots)/2].Cursor())
		return []string{"pagination.first=2&pagination.after=" + c, "pagination.before=" + c + "&pagination.newestFirst=false"}
	})
}

func FuzzKeyRotations(f *testing.F) {
	fuzzListing(f, rotationsListing.path, func(w *world.World) []string {
		r := &w.KeyRotations[len(w.KeyRotations)/2]
		c := url.QueryEscape(r.Cursor())
		return []string{"pagination.first=2&pagination.after=" + c, "nodeId=" + r.NodeID + "&pagination.before=" + c}
	})
}

func FuzzNetworkParameters(f *testing.F) {
	fuzzListing(f, paramsListing.path, func(w *world.World) []string {
		c := url.QueryEscape(w.NetworkParameters[len(w.NetworkParameters)/2].Cursor())
		return []string{"pagination.first=2&pagination.after=" + c, "pagination.last=1&pagination.before=" + c}
	})
}

func FuzzTransactions(f *testing.F) {
	fuzzListing(f, "/transactions", func(w *world.World) []string {
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
func fuzzListing(f *testing.F, path string, seeds func(*world.World) []string) {
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

// FuzzFaultHeader sends any X-Harness-Fault header to the mock over a real
// connection: a header that does not parse is a 400 with the error body
// naming the header; one that parses does what its fault says, as a client
// sees it (a fault slower than 50 ms is only parsed, to keep the target
// fast). Either way nothing panics and the next request is served.
func FuzzFaultHeader(f *testing.F) {
	for _, s := range []string{
		"none", "reset", "empty", "garbage", "truncate=0.5", "truncate=0", "status=503; retry-after=2", "status=429",
		"status=500", "status=502", "status=504", "latency=1ms", "latency=uniform:0s-2ms; status=503", "slow-body=1000000",
		"statu=503", "reset; reset", "status=503; reset", "latency=lognormal:median=1ms,p99=2ms", "", " ; ",
	} {
		f.Add(s)
	}
	fs, err := fuzzSetup()
	if err != nil {
		f.Fatal(err)
	}
	srv := httptest.NewServer(fs.handlers[0])
	f.Cleanup(srv.Close)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	const path = "/api/v2/network/parameters"
	f.Fuzz(func(t *testing.T, header string) {
		if !httpguts.ValidHeaderFieldValue(header) {
			return // no client can send it
		}
		fault, perr := faults.Parse(header)
		if perr == nil && (fault.Latency.Max() > 50*time.Millisecond || (fault.Kind == faults.SlowBody && fault.Rate < 100_000)) {
			return
		}
		req, err := http.NewRequest(http.MethodGet, srv.URL+path+"?pagination.first=2", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(faults.Header, header)
		res, err := client.Do(req)
		if fault.Kind == faults.Reset && perr == nil {
			if err == nil {
				res.Body.Close()
				t.Fatalf("%q: status %d, want the connection reset", header, res.StatusCode)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", header, err)
		}
		body, readErr := io.ReadAll(res.Body)
		res.Body.Close()
		r := &response{req: fmt.Sprintf("curl -H '%s: %s' '%s'", faults.Header, header, req.URL), status: res.StatusCode, header: res.Header, body: body}
		switch {
		case perr != nil:
			if r.status != http.StatusBadRequest || !bytes.Contains(body, []byte(`"invalid X-Harness-Fault header"`)) {
				t.Fatalf("%s: status %d, want a 400 naming the header (%v): %s", r, r.status, perr, body)
			}
		case fault.Kind == faults.Empty || fault.Kind == faults.Truncate:
			if readErr == nil {
				t.Fatalf("%s: read the whole body (%d bytes), want it cut short", r, len(body))
			}
		case fault.Kind == faults.Garbage:
			if r.status != 200 || string(body) != faults.GarbageBody {
				t.Fatalf("%s: status %d, body %q; want the garbage", r, r.status, body)
			}
		case fault.Kind == faults.Status:
			if r.status != fault.Status || validateCached("Error", body) != nil || (res.Header.Get("Retry-After") != "") != fault.HasRetryAfter {
				t.Fatalf("%s: status %d, Retry-After %q; want %s", r, r.status, res.Header.Get("Retry-After"), fault)
			}
		default:
			if readErr != nil || r.status != 200 {
				t.Fatalf("%s: status %d, %v", r, r.status, readErr)
			}
			checkResponse(t, http.MethodGet, path, r)
		}
		if next := serveOnce(t, fs.handlers[0], path, "pagination.first=1"); next.status != 200 {
			t.Fatalf("after %q, the next request answered %d", header, next.status)
		}
	})
}
