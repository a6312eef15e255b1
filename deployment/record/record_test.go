package record_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaindata/harness/deployment/record"
	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// worlds caches the generated stores by scale; generating is the slow part.
type worlds struct {
	mu     sync.Mutex
	stores map[float64]*store.Store
}

func (w *worlds) store(t *testing.T, scale float64) *store.Store {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.stores[scale]; ok {
		return s
	}
	gw, err := world.Generate(world.Options{Seed: 7, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.New(gw)
	if err != nil {
		t.Fatal(err)
	}
	if w.stores == nil {
		w.stores = map[float64]*store.Store{}
	}
	w.stores[scale] = s
	return s
}

var testWorlds = &worlds{}

const testScale = 0.05

// mock starts the mock on a small world; wrap, when set, wraps its handler.
func mock(t *testing.T, cfg mockserver.Config, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	var h http.Handler = mockserver.New(cfg, testWorlds.store(t, testScale))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// replay serves a recorded directory.
func replay(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	rw, err := fixtures.Read(dir)
	if err != nil {
		t.Fatalf("read recording: %v", err)
	}
	st, err := store.New(rw)
	if err != nil {
		t.Fatalf("store of recording: %v", err)
	}
	srv := httptest.NewServer(mockserver.New(mockserver.Config{}, st))
	t.Cleanup(srv.Close)
	return srv
}

func mustRecord(t *testing.T, opts record.Options) record.Report {
	t.Helper()
	rep, err := record.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	if !rep.Complete {
		t.Fatalf("record: not complete: %+v", rep)
	}
	return rep
}

type answer struct {
	status  int
	body    []byte
	headers string
}

func fetch(t *testing.T, base, pathQuery string) answer {
	t.Helper()
	resp, err := http.Get(base + pathQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := resp.Header
	return answer{resp.StatusCode, body, strings.Join([]string{h.Get("Content-Type"), h.Get("X-Block-Height"), h.Get("X-Block-Timestamp")}, " ")}
}

// firstRow returns a field of the first row a query answers, for queries
// that need a real cursor or ID.
func firstRow(t *testing.T, base, pathQuery, field string) string {
	t.Helper()
	a := fetch(t, base, pathQuery)
	var v struct {
		Transactions []map[string]any `json:"transactions"`
		Rotations    struct {
			Edges []struct {
				Node   map[string]any `json:"node"`
				Cursor string         `json:"cursor"`
			} `json:"edges"`
		} `json:"keyRotations"`
		Games struct {
			Edges []struct {
				Node   map[string]any `json:"node"`
				Cursor string         `json:"cursor"`
			} `json:"edges"`
		} `json:"games"`
	}
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatal(err)
	}
	switch {
	case len(v.Transactions) > 0:
		return v.Transactions[0][field].(string)
	case len(v.Rotations.Edges) > 0 && field == "cursor":
		return v.Rotations.Edges[0].Cursor
	case len(v.Rotations.Edges) > 0:
		return v.Rotations.Edges[0].Node[field].(string)
	case len(v.Games.Edges) > 0 && field == "cursor":
		return v.Games.Edges[0].Cursor
	case len(v.Games.Edges) > 0:
		return v.Games.Edges[0].Node[field].(string)
	}
	t.Fatalf("%s: no row", pathQuery)
	return ""
}

// TestReplayMatchesOriginal records the mock and checks that the replay
// answers a table of queries byte for byte as the original does.
func TestReplayMatchesOriginal(t *testing.T) {
	orig := mock(t, mockserver.Config{}, nil)
	out := t.TempDir()
	rep := mustRecord(t, record.Options{From: orig.URL, Out: out, PageSize: 97})
	if rep.ViolationCount != 0 {
		t.Fatalf("the mock has %d violations: %v", rep.ViolationCount, rep.Violations)
	}
	if _, err := os.Stat(filepath.Join(out, record.StateFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file left behind: %v", err)
	}
	counts := testWorlds.store(t, testScale).Counts()
	for _, l := range records.Listings {
		if got := rep.Listings[l].Rows; got != counts[l] {
			t.Errorf("%s: recorded %d rows, the mock has %d", l, got, counts[l])
		}
		if rep.Manifest.Listings[l].Count != counts[l] {
			t.Errorf("%s: manifest count %d, want %d", l, rep.Manifest.Listings[l].Count, counts[l])
		}
	}
	rp := replay(t, out)

	rotNode := firstRow(t, orig.URL, "/api/v2/core/keys/ethereum/rotations?pagination.first=1", "nodeId")
	rotCursor := firstRow(t, orig.URL, "/api/v2/core/keys/ethereum/rotations?pagination.first=1&pagination.after="+url.QueryEscape(firstRow(t, orig.URL, "/api/v2/core/keys/ethereum/rotations?pagination.first=3", "cursor")), "cursor")
	gameID := firstRow(t, orig.URL, "/api/v2/games?epochFrom=3&epochTo=9", "id")
	gameCursor := firstRow(t, orig.URL, "/api/v2/games?pagination.first=1", "cursor")
	submitter := firstRow(t, orig.URL, "/transactions?first=1", "submitter")
	txCursor := firstRow(t, orig.URL, "/transactions?first=1&before=", "cursor")
	oldTx := firstRow(t, orig.URL, "/transactions?last=1", "cursor")

	queries := []string{
		"/api/v2/games",
		"/api/v2/games?pagination.first=7",
		"/api/v2/games?pagination.first=5&pagination.newestFirst=false",
		"/api/v2/games?pagination.last=4",
		"/api/v2/games?epochFrom=1&epochTo=10",
		"/api/v2/games?epochFrom=5",
		"/api/v2/games?epochTo=12&entityScope=ENTITY_SCOPE_TEAMS",
		"/api/v2/games?entityScope=ENTITY_SCOPE_INDIVIDUALS&pagination.first=3",
		"/api/v2/games?gameId=" + gameID + "&epochFrom=1&epochTo=30",
		"/api/v2/games?pagination.first=3&pagination.after=" + url.QueryEscape(gameCursor),
		"/api/v2/snapshots",
		"/api/v2/snapshots?pagination.first=10&pagination.newestFirst=false",
		"/api/v2/snapshots?pagination.last=4",
		"/api/v2/core/keys/ethereum/rotations",
		"/api/v2/core/keys/ethereum/rotations?nodeId=" + rotNode,
		"/api/v2/core/keys/ethereum/rotations?pagination.last=2&pagination.before=" + url.QueryEscape(rotCursor),
		"/api/v2/network/parameters",
		"/api/v2/network/parameters?pagination.first=3",
		"/transactions",
		"/transactions?first=10",
		"/transactions?last=10",
		"/transactions?first=5&after=" + oldTx,
		"/transactions?last=5&before=" + txCursor,
		"/transactions?cmdTypes=Submit+Order&first=20",
		"/transactions?excludeCmdTypes=Submit+Order&excludeCmdTypes=Cancel+Order",
		"/transactions?parties=" + submitter,
		"/rest/transactions?first=3",
		"/api/v2/snapshots?pagination.first=0",
		"/transactions?first=1&last=1",
		"/api/v2/nothing",
	}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			want, got := fetch(t, orig.URL, q), fetch(t, rp.URL, q)
			if got.status != want.status || got.headers != want.headers {
				t.Errorf("replay: %d %q, original: %d %q", got.status, got.headers, want.status, want.headers)
			}
			if !bytes.Equal(got.body, want.body) {
				t.Errorf("replay body differs from the original:\nreplay   %.300s\noriginal %.300s", got.body, want.body)
			}
		})
	}
}

// cancelAfter is a transport that lets n requests through, then cancels the
// run and fails every further request: an interrupted recording.
type cancelAfter struct {
	n      int32
	count  atomic.Int32
	cancel context.CancelFunc
}

func (c *cancelAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.count.Add(1) > c.n {
		c.cancel()
		return nil, context.Canceled
	}
	return http.DefaultTransport.RoundTrip(req)
}

// dirFiles returns every file of a directory and its content.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

func sameFiles(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		names := func(m map[string]string) []string {
			var out []string
			for k := range m {
				out = append(out, k)
			}
			return out
		}
		t.Errorf("files %v, want %v", names(got), names(want))
	}
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s missing", name)
		} else if g != w {
			t.Errorf("%s differs from the uninterrupted recording (%d bytes, want %d)", name, len(g), len(w))
		}
	}
}

// TestResume interrupts recordings after some requests, reruns them, and
// checks that the result equals an uninterrupted recording.
func TestResume(t *testing.T) {
	srv := mock(t, mockserver.Config{}, nil)
	const pageSize = 25
	full := t.TempDir()
	rep := mustRecord(t, record.Options{From: srv.URL, Out: full, PageSize: pageSize})
	want := dirFiles(t, full)
	t.Logf("an uninterrupted recording takes %d requests", rep.Requests)

	total := int32(rep.Requests)
	tests := []struct {
		name string
		// stops lists the requests each interrupted run is allowed.
		stops []int32
		// garbage, when set, is appended to a listing's file after the
		// interruptions, as a crash between writing a page and saving the
		// state would leave it.
		garbage string
	}{
		{name: "before the first request", stops: []int32{0}},
		{name: "after the first page", stops: []int32{1}},
		{name: "inside the games windows", stops: []int32{3}},
		{name: "a third of the way", stops: []int32{total / 3}},
		{name: "half way", stops: []int32{total / 2}},
		{name: "in the last transactions", stops: []int32{total - 2}},
		{name: "three times", stops: []int32{2, total / 3, total / 3}},
		{name: "a page written but not saved", stops: []int32{total / 2}, garbage: records.ListingGames},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			for i, n := range tc.stops {
				ctx, cancel := context.WithCancel(context.Background())
				tr := &cancelAfter{n: n, cancel: cancel}
				rep, err := record.Run(ctx, record.Options{From: srv.URL, Out: out, PageSize: pageSize, Client: &http.Client{Transport: tr}, Retries: -1})
				cancel()
				if err == nil || rep.Complete {
					t.Fatalf("run %d: interrupted after %d requests, want an error and no manifest, got %v", i, n, err)
				}
				if rep.Resumed != (i > 0) {
					t.Errorf("run %d: resumed = %v", i, rep.Resumed)
				}
				if _, err := os.Stat(filepath.Join(out, fixtures.ManifestFile)); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("run %d: a manifest exists after an interruption", i)
				}
			}
			if tc.garbage != "" {
				f, err := os.OpenFile(filepath.Join(out, tc.garbage+".ndjson"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(`{"key":"half.written","value":"1"}` + "\n")
				f.Close()
			}
			rep, err := record.Run(context.Background(), record.Options{From: srv.URL, Out: out, PageSize: pageSize})
			if err != nil || !rep.Complete || !rep.Resumed {
				t.Fatalf("final run: complete %v, resumed %v, err %v", rep.Complete, rep.Resumed, err)
			}
			sameFiles(t, dirFiles(t, out), want)
		})
	}
}

// TestResumeRefusesOtherSource keeps an unfinished recording from being
// continued from another deployment.
func TestResumeRefusesOtherSource(t *testing.T) {
	a := mock(t, mockserver.Config{}, nil)
	b := mock(t, mockserver.Config{}, nil)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := record.Run(ctx, record.Options{From: a.URL, Out: out, Client: &http.Client{Transport: &cancelAfter{n: 2, cancel: cancel}}, Retries: -1})
	if err == nil {
		t.Fatal("interrupted run: no error")
	}
	_, err = record.Run(context.Background(), record.Options{From: b.URL, Out: out})
	if !errors.Is(err, record.ErrOptions) {
		t.Fatalf("resume from another source: err %v, want ErrOptions", err)
	}
}

// corrupt wraps the mock's handler and rewrites the bodies of one path.
func corrupt(path string, edit func(body map[string]any)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			if rec.Code == http.StatusOK {
				var v map[string]any
				if err := json.Unmarshal(body, &v); err == nil {
					edit(v)
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

func edges(body map[string]any, wrapper string) []any {
	return body[wrapper].(map[string]any)["edges"].([]any)
}

// TestViolationsReported records defective servers: every defect is in the
// report, and the recording still loads.
func TestViolationsReported(t *testing.T) {
	tests := []struct {
		name     string
		wrap     func(http.Handler) http.Handler
		listing  string
		rule     string
		path     string
		skipped  bool // the row is left out
		lessRows int  // rows fewer than the mock has
	}{
		{
			name: "required field dropped",
			wrap: corrupt("/api/v2/snapshots", func(b map[string]any) {
				if e := edges(b, "coreSnapshots"); len(e) > 0 {
					delete(e[0].(map[string]any)["node"].(map[string]any), "blockHash")
				}
			}),
			listing: records.ListingSnapshots, rule: "required", path: "/coreSnapshots/edges/0/node/blockHash",
		},
		{
			name: "bad pattern",
			wrap: corrupt("/api/v2/network/parameters", func(b map[string]any) {
				if e := edges(b, "networkParameters"); len(e) > 0 {
					e[0].(map[string]any)["node"].(map[string]any)["key"] = "9 not a key"
				}
			}),
			listing: records.ListingNetworkParameters, rule: "pattern", path: "/networkParameters/edges/0/node/key",
		},
		{
			name: "repeated transaction",
			wrap: corrupt("/transactions", func(b map[string]any) {
				txs := b["transactions"].([]any)
				if len(txs) > 1 {
					txs[1] = txs[0]
				}
			}),
			listing: records.ListingTransactions, rule: "order", skipped: true,
		},
		{
			name: "rows out of order",
			wrap: corrupt("/api/v2/core/keys/ethereum/rotations", func(b map[string]any) {
				e := edges(b, "keyRotations")
				if len(e) > 2 {
					e[0], e[2] = e[2], e[0]
				}
			}),
			listing: records.ListingKeyRotations, rule: "order", skipped: true,
		},
		{
			name: "unparseable record",
			wrap: corrupt("/api/v2/games", func(b map[string]any) {
				if e := edges(b, "games"); len(e) > 0 {
					e[0].(map[string]any)["node"].(map[string]any)["epoch"] = "not a number"
				}
			}),
			listing: records.ListingGames, rule: "record", skipped: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := mock(t, mockserver.Config{}, tc.wrap)
			out := t.TempDir()
			rep := mustRecord(t, record.Options{From: srv.URL, Out: out, PageSize: 300})
			found := false
			for _, v := range rep.Violations {
				if v.Listing == tc.listing && v.Rule == tc.rule && (tc.path == "" || v.Path == tc.path) {
					found = true
				}
				if v.String() == "" {
					t.Error("empty violation line")
				}
			}
			if !found {
				t.Errorf("no %s violation on %s %s; report: %v", tc.rule, tc.listing, tc.path, rep.Violations)
			}
			if got := rep.Listings[tc.listing].Skipped > 0; got != tc.skipped {
				t.Errorf("skipped %d rows, want skipping %v", rep.Listings[tc.listing].Skipped, tc.skipped)
			}
			// The recording loads and serves, defects and all.
			replay(t, out)
		})
	}
}

// TestOptions covers page size adaptation, max pages and listing choice.
func TestOptions(t *testing.T) {
	counts := testWorlds.store(t, testScale).Counts()
	tests := []struct {
		name string
		opts record.Options
		cfg  mockserver.Config
		want func(t *testing.T, rep record.Report)
	}{
		{
			name: "page size above the deployment's maximum is halved",
			opts: record.Options{PageSize: 4000},
			cfg:  mockserver.Config{MaxPageSize: 300, TxMaxPageSize: 700},
			want: func(t *testing.T, rep record.Report) {
				for _, l := range records.Listings {
					if rep.Listings[l].Rows != counts[l] {
						t.Errorf("%s: %d rows, want %d", l, rep.Listings[l].Rows, counts[l])
					}
				}
				if ps := rep.Listings[records.ListingSnapshots].PageSize; ps != 250 {
					t.Errorf("snapshots page size %d, want 250", ps)
				}
				if ps := rep.Listings[records.ListingTransactions].PageSize; ps != 500 {
					t.Errorf("transactions page size %d, want 500", ps)
				}
			},
		},
		{
			name: "max pages truncates each listing",
			opts: record.Options{PageSize: 10, MaxPages: 2},
			want: func(t *testing.T, rep record.Report) {
				for _, l := range records.Listings {
					lr := rep.Listings[l]
					if lr.Pages != 2 || lr.Rows != 20 || !lr.Truncated {
						t.Errorf("%s: %+v, want 2 pages, 20 rows, truncated", l, lr)
					}
				}
			},
		},
		{
			name: "chosen listings only",
			opts: record.Options{Listings: []string{records.ListingNetworkParameters}},
			want: func(t *testing.T, rep record.Report) {
				if len(rep.Manifest.Listings) != 1 || rep.Listings[records.ListingNetworkParameters].Rows != counts[records.ListingNetworkParameters] {
					t.Errorf("manifest %+v", rep.Manifest.Listings)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := mock(t, tc.cfg, nil)
			opts := tc.opts
			opts.From, opts.Out = srv.URL, t.TempDir()
			rep := mustRecord(t, opts)
			if rep.ViolationCount != 0 {
				t.Errorf("violations: %v", rep.Violations)
			}
			tc.want(t, rep)
			replay(t, opts.Out)
		})
	}
}

func TestBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts record.Options
	}{
		{"no from", record.Options{Out: "x"}},
		{"relative from", record.Options{From: "localhost:8080", Out: "x"}},
		{"no out", record.Options{From: "http://127.0.0.1:1"}},
		{"unknown listing", record.Options{From: "http://127.0.0.1:1", Out: "x", Listings: []string{"orders"}}},
		{"negative pages", record.Options{From: "http://127.0.0.1:1", Out: "x", MaxPages: -1}},
		{"negative rate", record.Options{From: "http://127.0.0.1:1", Out: "x", Rate: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := record.Run(context.Background(), tc.opts); !errors.Is(err, record.ErrOptions) {
				t.Errorf("err %v, want ErrOptions", err)
			}
		})
	}
}

// TestPoliteness: the headers go with every request (and not to another
// host after a redirect), requests are spaced by the rate, and a 429 is
// retried after its Retry-After.
func TestPoliteness(t *testing.T) {
	const key = "record-test-key"
	var mu sync.Mutex
	var arrivals []time.Time
	var keyed, limited atomic.Int32
	var other atomic.Value
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Store("key=" + r.Header.Get("X-Api-Key"))
		http.Error(w, "gone", http.StatusNotFound)
	}))
	defer elsewhere.Close()
	var seen atomic.Int32
	srv := mock(t, mockserver.Config{}, func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			arrivals = append(arrivals, time.Now())
			mu.Unlock()
			if r.Header.Get("X-Api-Key") == key {
				keyed.Add(1)
			}
			if seen.Add(1) == 3 {
				limited.Add(1)
				w.Header().Set("Retry-After", "1")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			inner.ServeHTTP(w, r)
		})
	})
	const rate = 20
	start := time.Now()
	rep := mustRecord(t, record.Options{
		From: srv.URL, Out: t.TempDir(), PageSize: 10, MaxPages: 4,
		Listings: []string{records.ListingSnapshots, records.ListingKeyRotations},
		Header:   http.Header{"X-Api-Key": {key}}, Rate: rate, RetryDelay: time.Millisecond,
	})
	took := time.Since(start)
	n := int(seen.Load())
	if rep.Requests != n || int(keyed.Load()) != n {
		t.Errorf("report counts %d requests, the server saw %d, %d with the key; want all equal", rep.Requests, n, keyed.Load())
	}
	// The client spaces the starts of its requests; the server sees them
	// arrive with the scheduler's jitter, so two may arrive closer than
	// 1/rate apart. What must hold is the rate: no second holds more than
	// rate arrivals, and the whole run is as long as its requests spaced.
	for i := range arrivals {
		for j := i + rate + 1; j < len(arrivals); j++ {
			if arrivals[j].Sub(arrivals[i]) < time.Second-10*time.Millisecond {
				t.Errorf("requests %d to %d (%d) arrived within %s, want at most %d a second", i, j, j-i+1, arrivals[j].Sub(arrivals[i]), rate)
			}
			break
		}
	}
	if n := len(arrivals); n > 1 {
		if span, want := arrivals[n-1].Sub(arrivals[0]), time.Duration(n-1)*time.Second/rate-50*time.Millisecond; span < want {
			t.Errorf("%d requests arrived over %s, want at least %s at %d/s", n, span, want, rate)
		}
	}
	if limited.Load() != 1 || took < time.Second {
		t.Errorf("%d answers were 429 and the recording took %s; want one, waited for its Retry-After: 1", limited.Load(), took)
	}

	// A redirect to another host does not carry the key there.
	redirect := httptest.NewServer(http.RedirectHandler(elsewhere.URL+"/x", http.StatusFound))
	defer redirect.Close()
	_, err := record.Run(context.Background(), record.Options{
		From: redirect.URL, Out: t.TempDir(), Retries: -1,
		Listings: []string{records.ListingSnapshots}, Header: http.Header{"X-Api-Key": {key}},
	})
	if err == nil || other.Load() != "key=" {
		t.Errorf("after a redirect to another host: err %v, the other host got %q; want an error and no key", err, other.Load())
	}
}

func TestRetryAfterBeyondTheCapEndsTheRun(t *testing.T) {
	var seen atomic.Int32
	srv := mock(t, mockserver.Config{}, func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.Add(1)
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "come back in an hour", http.StatusServiceUnavailable)
		})
	})
	start := time.Now()
	_, err := record.Run(context.Background(), record.Options{From: srv.URL, Out: t.TempDir(), Listings: []string{records.ListingSnapshots}})
	if err == nil || !strings.Contains(err.Error(), "503") || seen.Load() != 1 || time.Since(start) > 5*time.Second {
		t.Errorf("err %v after %d requests in %s; want a 503 error after one request, at once", err, seen.Load(), time.Since(start))
	}
}
