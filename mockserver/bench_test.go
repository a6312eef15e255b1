package mockserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/store"
)

// benchStore is the store the benchmarks share: a world of scale 100 (a
// million transactions, about 100,000 each of games, snapshots and key
// rotations) with synthetic network parameters added up to 100,000.
var benchStore = sync.OnceValues(func() (*store.Store, error) {
	w, err := world.Generate(world.Options{Seed: 1, Scale: 100})
	if err != nil {
		return nil, err
	}
	for i := len(w.NetworkParameters); i < 100_000; i++ {
		w.NetworkParameters = append(w.NetworkParameters, records.NetworkParameter{
			Key: fmt.Sprintf("bench.synthetic.p%06d", i), Value: strconv.Itoa(i),
		})
	}
	return store.New(w)
})

func mustBenchStore(b *testing.B) *store.Store {
	b.Helper()
	st, err := benchStore()
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// discard is a ResponseWriter that keeps only the status and byte count, so
// that benchmarks measure the handler rather than a recorder.
type discard struct {
	h      http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(code int)        { d.status = code }
func (d *discard) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

// BenchmarkPageAtDepth serves a 100-row page at the start, the middle and
// the end of each listing: the cost must not grow with depth.
func BenchmarkPageAtDepth(b *testing.B) { pagesAtDepth(b, mustBenchStore(b)) }

// BenchmarkFixturePageAtDepth does the same from fixtures served from disk:
// the directory HARNESS_BENCH_DATA names (make bench-data writes ten
// million transactions), or else a world of scale 10 written as NDJSON. It
// reports the time to open the fixtures with their index (ready-s) and the
// process's anonymous memory after the pages (anon-MiB): the rows are in the
// page cache, not in it.
func BenchmarkFixturePageAtDepth(b *testing.B) {
	dir := os.Getenv("HARNESS_BENCH_DATA")
	if dir == "" {
		w, err := world.Generate(world.Options{Seed: 1, Scale: 10, Lazy: true})
		if err != nil {
			b.Fatal(err)
		}
		dir = b.TempDir()
		if _, err := fixtures.Write(context.Background(), dir, w, fixtures.WriteOptions{Format: fixtures.FormatNDJSON}); err != nil {
			b.Fatal(err)
		}
		if err := fixtures.BuildIndex(dir, nil); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	start := time.Now()
	st, info, err := store.OpenFixtures(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ready := time.Since(start)
	if info.Rebuilt != "" {
		b.Logf("the index of %s was rebuilt (%s): ready-s includes indexing", dir, info.Rebuilt)
	}
	b.Logf("%s: %v rows, open in %v", dir, st.Counts(), ready.Round(time.Millisecond))
	pagesAtDepth(b, st)
	b.ReportMetric(ready.Seconds(), "ready-s")
	if anon, ok := rssAnon(); ok {
		b.ReportMetric(float64(anon)/(1<<20), "anon-MiB")
	}
}

// rssAnon returns the process's resident anonymous memory (Linux).
func rssAnon() (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

func pagesAtDepth(b *testing.B, st *store.Store) {
	srv := New(Config{}, st)
	type benchCase struct {
		name, path string
	}
	var cases []benchCase
	st.Read(func(r store.Reader) {
		snaps, rots, params, txs := r.SnapshotKeys(), r.RotationKeys(), r.ParameterKeys(), r.TxKeys()
		firstEpoch, latestEpoch := r.Epochs()
		// cursor of the row at listing position p, newest first.
		snap := func(p int) string { return snaps[len(snaps)-1-p].Cursor() }
		rot := func(p int) string { return rots[len(rots)-1-p].Cursor() }
		param := func(p int) string { return records.ParameterKey{Key: params[p]}.Cursor() }
		tx := func(p int) string { k := txs[len(txs)-1-p]; return fmt.Sprintf("%d.%d", k.Block, k.Index) }
		midEpoch := (firstEpoch + latestEpoch) / 2
		cases = []benchCase{
			{"snapshots/start", "/api/v2/snapshots?pagination.first=100"},
			{"snapshots/middle", "/api/v2/snapshots?pagination.first=100&pagination.after=" + url.QueryEscape(snap(len(snaps)/2))},
			{"snapshots/end", "/api/v2/snapshots?pagination.first=100&pagination.after=" + url.QueryEscape(snap(len(snaps)-101))},
			{"keyrotations/start", "/api/v2/core/keys/ethereum/rotations?pagination.first=100"},
			{"keyrotations/middle", "/api/v2/core/keys/ethereum/rotations?pagination.first=100&pagination.after=" + url.QueryEscape(rot(len(rots)/2))},
			{"keyrotations/end", "/api/v2/core/keys/ethereum/rotations?pagination.first=100&pagination.after=" + url.QueryEscape(rot(len(rots)-101))},
			{"networkparameters/start", "/api/v2/network/parameters?pagination.first=100"},
			{"networkparameters/middle", "/api/v2/network/parameters?pagination.first=100&pagination.after=" + url.QueryEscape(param(len(params)/2))},
			{"networkparameters/end", "/api/v2/network/parameters?pagination.first=100&pagination.after=" + url.QueryEscape(param(len(params)-101))},
			{"games/start", "/api/v2/games?pagination.first=100"},
			{"games/middle", fmt.Sprintf("/api/v2/games?pagination.first=100&epochTo=%d", midEpoch)},
			{"games/end", fmt.Sprintf("/api/v2/games?pagination.first=100&epochTo=%d", firstEpoch+29)},
			{"transactions/start", "/transactions?first=100"},
			{"transactions/middle", "/transactions?first=100&after=" + tx(len(txs)/2)},
			{"transactions/end", "/transactions?last=100"},
			{"transactions-filtered/start", "/transactions?first=100&cmdTypes=Batch+Proposal&cmdTypes=Register+New+Node"},
			{"transactions-filtered/end", "/transactions?last=100&cmdTypes=Batch+Proposal&cmdTypes=Register+New+Node"},
			{"transactions-excluded/middle", "/transactions?first=100&excludeCmdTypes=Submit+Order&after=" + tx(len(txs)/2)},
		}
	})
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			w := &discard{h: http.Header{}}
			srv.ServeHTTP(w, req)
			if w.status != http.StatusOK {
				b.Fatalf("%s: status %d", tc.path, w.status)
			}
			b.SetBytes(int64(w.n))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.n = 0
				srv.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkParametersPageVsBareHandler serves a 100-row network parameters
// page over loopback HTTP, side by side with a bare net/http handler that
// writes a precomputed body of the same size, and reports the mock's rate as
// a fraction of the bare handler's (target: at least 0.75).
func BenchmarkParametersPageVsBareHandler(b *testing.B) {
	st := mustBenchStore(b)
	mock := httptest.NewServer(New(Config{}, st))
	defer mock.Close()
	var path string
	st.Read(func(r store.Reader) {
		params := r.ParameterKeys()
		path = "/api/v2/network/parameters?pagination.first=100&pagination.after=" + url.QueryEscape(records.ParameterKey{Key: params[len(params)/2]}.Cursor())
	})

	resp, err := http.Get(mock.URL + path)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer bare.Close()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	const clients, perRound = 4, 400
	run := func(url string) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < perRound/clients; i++ {
					r, err := client.Get(url)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, r.Body)
					r.Body.Close()
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	run(mock.URL + path) // warm connections
	run(bare.URL + "/")
	var tMock, tBare time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Alternate, so both see the same machine conditions.
		tMock += run(mock.URL + path)
		tBare += run(bare.URL + "/")
	}
	b.StopTimer()
	n := float64(b.N * perRound)
	b.ReportMetric(n/tMock.Seconds(), "mock-req/s")
	b.ReportMetric(n/tBare.Seconds(), "bare-req/s")
	b.ReportMetric(tBare.Seconds()/tMock.Seconds(), "mock/bare")
}

// BenchmarkPageWithRowsAdded serves BenchmarkPageAtDepth's pages from a
// store of scale 10 without rows added and with a row added to every
// listing: pages cost the same either way (the view is read as the store
// is).
func BenchmarkPageWithRowsAdded(b *testing.B) {
	w, err := world.Generate(world.Options{Seed: 1, Scale: 10})
	if err != nil {
		b.Fatal(err)
	}
	tr := newTestRows(b, w)
	for _, added := range []bool{false, true} {
		b.Run(fmt.Sprintf("added=%v", added), func(b *testing.B) {
			st, err := store.New(w)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			if added {
				srv := New(Config{}, st)
				for _, rows := range tr.byListing {
					if err := srv.AddRows(rows); err != nil {
						b.Fatal(err)
					}
				}
			}
			pagesAtDepth(b, st)
		})
	}
}
