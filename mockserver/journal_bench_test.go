package mockserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/store"
)

// journalBenchStore is a world of scale 1 (about 10,000 transactions): a
// page's cost does not depend on the size of the data (BenchmarkPageAtDepth).
var journalBenchStore = sync.OnceValues(func() (*store.Store, error) {
	w, err := world.Generate(world.Options{Seed: 1, Scale: 1})
	if err != nil {
		return nil, err
	}
	return store.New(w)
})

// BenchmarkJournalCost serves 100-row pages in process with the journal and
// the warnings and without them (the handler New builds, and the same
// without its observing middleware), in alternating rounds so that both see
// the same machine, and reports the rate with them as a fraction of the
// rate without (with/without; the target is at least 0.95). The journal
// wraps round many times over: its steady state is measured.
func BenchmarkJournalCost(b *testing.B) {
	st, err := journalBenchStore()
	if err != nil {
		b.Fatal(err)
	}
	with, without := New(Config{}, st), newServer(Config{}, st, false)
	var param, tx string
	st.Read(func(r store.Reader) {
		keys, txs := r.ParameterKeys(), r.TxKeys()
		param = records.ParameterKey{Key: keys[len(keys)/2]}.Cursor()
		tx = string(appendTxCursor(nil, txs[len(txs)/2]))
	})
	cases := []struct{ name, target string }{
		{"networkparameters", "/api/v2/network/parameters?pagination.first=100&pagination.after=" + url.QueryEscape(param)},
		{"snapshots", "/api/v2/snapshots?pagination.first=100"},
		{"transactions", "/transactions?last=100&before=" + tx},
		{"transactions-filtered", "/transactions?first=100&cmdTypes=Submit+Order&cmdTypes=Cancel+Order"},
		{"snapshots-with-a-warning", "/api/v2/snapshots?pagination.first=100&first=100"},
	}
	const perRound = 200
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, tc.target, nil)
			req.Header.Set("User-Agent", "bench-client/1.0") // kept by the journal, as a client's is
			w := &discard{h: http.Header{}}
			round := func(h http.Handler) time.Duration {
				start := time.Now()
				for range perRound {
					clear(w.h)
					h.ServeHTTP(w, req)
				}
				return time.Since(start)
			}
			round(with) // warm both
			round(without)
			if w.status != http.StatusOK {
				b.Fatalf("%s: status %d", tc.target, w.status)
			}
			var tWith, tWithout time.Duration
			b.ResetTimer()
			for range b.N {
				tWith += round(with)
				tWithout += round(without)
			}
			b.StopTimer()
			n := float64(b.N * perRound)
			b.ReportMetric(float64(tWith.Nanoseconds())/n, "ns/page-with")
			b.ReportMetric(float64(tWithout.Nanoseconds())/n, "ns/page-without")
			b.ReportMetric(tWithout.Seconds()/tWith.Seconds(), "with/without")
		})
	}
}

// BenchmarkJournalCostHTTP serves a 100-row page over loopback HTTP, four
// clients at once, from a server with the journal and the warnings and one
// without them, in alternating rounds, and reports the rate with them as a
// fraction of the rate without (with/without; the target is at least
// 0.95): what a client of harness serve sees.
func BenchmarkJournalCostHTTP(b *testing.B) {
	st, err := journalBenchStore()
	if err != nil {
		b.Fatal(err)
	}
	with, without := httptest.NewServer(New(Config{}, st)), httptest.NewServer(newServer(Config{}, st, false))
	defer with.Close()
	defer without.Close()
	var param, tx string
	st.Read(func(r store.Reader) {
		keys, txs := r.ParameterKeys(), r.TxKeys()
		param = records.ParameterKey{Key: keys[len(keys)/2]}.Cursor()
		tx = string(appendTxCursor(nil, txs[len(txs)/2]))
	})
	cases := []struct{ name, target string }{
		{"networkparameters", "/api/v2/network/parameters?pagination.first=100&pagination.after=" + url.QueryEscape(param)},
		{"transactions", "/transactions?last=100&before=" + tx},
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	const clients, perRound = 4, 200
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			round := func(base string) time.Duration {
				start := time.Now()
				var wg sync.WaitGroup
				for range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range perRound / clients {
							r, err := client.Get(base + tc.target)
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
			round(with.URL) // warm the connections
			round(without.URL)
			var tWith, tWithout time.Duration
			b.ResetTimer()
			for range b.N {
				tWith += round(with.URL)
				tWithout += round(without.URL)
			}
			b.StopTimer()
			n := float64(b.N * perRound)
			b.ReportMetric(n/tWith.Seconds(), "req/s-with")
			b.ReportMetric(n/tWithout.Seconds(), "req/s-without")
			b.ReportMetric(tWithout.Seconds()/tWith.Seconds(), "with/without")
		})
	}
}

// BenchmarkCoverage measures GET /harness/coverage's work on a full journal
// (DefaultJournalSize requests: pages of every listing, refusals, faults),
// which it does when asked rather than as requests are served.
func BenchmarkCoverage(b *testing.B) {
	st, err := journalBenchStore()
	if err != nil {
		b.Fatal(err)
	}
	s := New(Config{}, st)
	targets := []string{
		"/api/v2/network/parameters?pagination.first=100",
		"/api/v2/snapshots?pagination.last=100",
		"/transactions?first=100",
		"/transactions?first=100&cmdTypes=Submit+Order",
		"/transactions?first=1&last=1",
	}
	w := &discard{h: http.Header{}}
	for i := range DefaultJournalSize {
		req := httptest.NewRequest(http.MethodGet, targets[i%len(targets)], nil)
		if i%50 == 0 {
			req.Header.Set("X-Harness-Fault", "status=503")
		}
		clear(w.h)
		s.ServeHTTP(w, req)
	}
	b.ResetTimer()
	for range b.N {
		c, err := s.Coverage("page:*")
		if err != nil || c.Requests != DefaultJournalSize {
			b.Fatalf("%v: %d requests", err, c.Requests)
		}
	}
}
