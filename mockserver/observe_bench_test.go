package mockserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/requestlog"
	"github.com/chaindata/harness/mockserver/store"
)

// deadlineDiscard is a discard writer that takes a write deadline, as a
// connection's does, so that the handler writes through its deadline
// writer as it does on the wire.
type deadlineDiscard struct{ discard }

func (*deadlineDiscard) SetWriteDeadline(time.Time) error { return nil }

// BenchmarkObservationCost measures what observing a request costs harness
// serve with its default flags: the request log (through a
// requestlog.Writer), the journal and the warnings. It serves the pages make
// bench-wire measures, in process, through four handlers in alternating
// rounds, so that all see the same machine: without any of the three
// (ns/req-bare), with the log alone, with the journal and the warnings
// alone, and with all three (ns/req-all); and reports what each adds to a
// request (log-ns, journal-ns, added-ns) and the allocations all three add
// (allocs-added). Every handler has the page cache, as harness serve does,
// so that after the first requests each page is served from it and the
// handlers differ by the observing alone. The times are the CPU time of the benchmark's thread
// (Linux; elsewhere the wall clock's), so that a loaded machine's waits for
// a core do not count; the garbage collector's work on other threads does
// not either, hence the allocations. Rounds of a thousand requests, each
// iteration's starting with another handler, so that the collector's work
// and its sweeping fall on each alike (rounds of a hundred, in one order,
// charged the log with 2 µs more at GOMAXPROCS 2 than at 1). Their budget is a share of the CPU time a bare handler
// spends on an answer on the wire (make bench-wire prints it): the log 3 %,
// the journal and the warnings 5 % (docs/benchmarks.md). What a request
// observes is added in observe.go and logRequests; this benchmark shows
// whether it stays within that budget.
func BenchmarkObservationCost(b *testing.B) {
	st, log := observedBenchSetUp(b)
	handlers := []http.Handler{
		newServer(Config{}, st, false),
		newServer(Config{RequestLog: log}, st, false),
		New(Config{}, st),
		New(Config{RequestLog: log}, st),
	}
	const bare, logOnly, journalOnly, all = 0, 1, 2, 3
	cases := append(wirePages[:len(wirePages):len(wirePages)], benchPage{"snapshots-with-a-warning", "/api/v2/snapshots?pagination.first=100&first=100"})
	const perRound = 1000
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, tc.target, nil)
			w := &deadlineDiscard{discard{h: http.Header{}}}
			serve := func(h http.Handler) {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
			var allocs [4]float64
			for i, h := range handlers {
				serve(h) // warm: pools, buffers
				if w.status != http.StatusOK {
					b.Fatalf("%s: status %d", tc.target, w.status)
				}
				allocs[i] = testing.AllocsPerRun(perRound, func() { serve(h) })
			}
			ns := alternatingRounds(b, handlers, perRound, serve)
			per := func(i int) float64 { return ns[i] }
			b.ReportMetric(per(bare), "ns/req-bare")
			b.ReportMetric(per(all), "ns/req-all")
			b.ReportMetric(per(logOnly)-per(bare), "log-ns")
			b.ReportMetric(per(journalOnly)-per(bare), "journal-ns")
			b.ReportMetric(per(all)-per(bare), "added-ns")
			b.ReportMetric(allocs[all]-allocs[bare], "allocs-added")
		})
	}
}

// BenchmarkPageCacheSaves measures what the page cache saves a query asked
// again, with harness serve's default observation (the request log, the
// journal, the warnings): the pages of BenchmarkObservationCost, served in
// alternating rounds by a server without the cache (ns/req-uncached) and
// one with it (ns/req-cached), in the CPU time of the benchmark's thread.
func BenchmarkPageCacheSaves(b *testing.B) {
	st, log := observedBenchSetUp(b)
	handlers := []http.Handler{
		New(Config{RequestLog: log, PageCacheBytes: -1}, st),
		New(Config{RequestLog: log}, st),
	}
	const perRound = 1000
	for _, page := range wirePages {
		target := page.target
		b.Run(page.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			w := &deadlineDiscard{discard{h: http.Header{}}}
			serve := func(h http.Handler) {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
			for _, h := range handlers {
				for range 3 { // warm, and keep the page
					serve(h)
				}
				if w.status != http.StatusOK {
					b.Fatalf("%s: status %d", target, w.status)
				}
			}
			ns := alternatingRounds(b, handlers, perRound, serve)
			per := func(i int) float64 { return ns[i] }
			b.ReportMetric(per(0), "ns/req-uncached")
			b.ReportMetric(per(1), "ns/req-cached")
			b.ReportMetric(per(0)-per(1), "saved-ns")
		})
	}
}

// alternatingRounds serves perRound requests through each handler in turn,
// b.N times, and returns each handler's CPU time of the benchmark's thread
// per request, in nanoseconds (Linux; elsewhere the wall clock's). Each
// round starts with another handler, so that none always follows the same
// one (whose garbage it would collect).
func alternatingRounds(b *testing.B, handlers []http.Handler, perRound int, serve func(http.Handler)) []float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	clock := func() time.Duration {
		if cpu, ok := threadCPU(); ok {
			return cpu
		}
		return time.Duration(time.Now().UnixNano())
	}
	spent := make([]time.Duration, len(handlers))
	b.ResetTimer()
	for n := range b.N {
		for k := range handlers {
			i := (n + k) % len(handlers)
			start := clock()
			for range perRound {
				serve(handlers[i])
			}
			spent[i] += clock() - start
		}
	}
	b.StopTimer()
	ns := make([]float64, len(handlers))
	for i, d := range spent {
		ns[i] = float64(d.Nanoseconds()) / float64(b.N*perRound)
	}
	return ns
}

// benchPage is a page the benchmarks serve: a sub-benchmark's name and the
// request's target.
type benchPage struct{ name, target string }

// wirePages are the pages make bench-wire measures.
var wirePages = []benchPage{
	{"networkparameters", "/api/v2/network/parameters?pagination.first=100"},
	{"snapshots", "/api/v2/snapshots?pagination.first=100"},
	{"transactions", "/transactions?first=50"},
	{"transactions-cmdtypes", "/transactions?first=50&cmdTypes=Batch+Proposal"},
	{"games", "/api/v2/games?pagination.first=100"},
}

// observedBenchSetUp returns the journal benchmarks' store and a text
// request log writing to nowhere, closed when b ends.
func observedBenchSetUp(b *testing.B) (*store.Store, *requestlog.Log) {
	st, err := journalBenchStore()
	if err != nil {
		b.Fatal(err)
	}
	logw := requestlog.NewWriter(io.Discard, 0)
	b.Cleanup(func() { logw.Close() })
	return st, requestlog.New(logw, requestlog.Text)
}
