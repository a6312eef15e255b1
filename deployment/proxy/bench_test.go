package proxy_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaindata/harness/deployment/proxy"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// benchPages are the large pages the proxy benchmarks ask for: 1000 rows,
// about a megabyte each from the default world.
var benchPages = []struct{ name, path string }{
	{"transactions-1000", "/transactions?first=1000"},
	{"games-1000", "/api/v2/games?pagination.first=1000"},
}

// benchServers starts the mock of the default world (seed 1, scale 1, as
// harness serve with no flags) and the proxy in front of it.
func benchServers(b *testing.B) (mock *httptest.Server, px *httptest.Server, p *proxy.Proxy) {
	b.Helper()
	w, err := world.Generate(world.Options{Seed: 1, Scale: 1})
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.New(w)
	if err != nil {
		b.Fatal(err)
	}
	mock = httptest.NewServer(mockserver.New(mockserver.Config{}, st))
	b.Cleanup(mock.Close)
	u, err := url.Parse(mock.URL)
	if err != nil {
		b.Fatal(err)
	}
	p = proxy.New(proxy.Config{Upstream: u})
	px = httptest.NewServer(p)
	b.Cleanup(px.Close)
	return mock, px, p
}

// fetchTimed gets u, reads the whole body and returns how long it took and
// how many bytes came.
func fetchTimed(client *http.Client, u string) (time.Duration, int64, error) {
	start := time.Now()
	resp, err := client.Get(u)
	if err != nil {
		return 0, 0, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return 0, 0, fmt.Errorf("GET %s: read the body: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	return time.Since(start), n, nil
}

// median returns the median of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkProxyAddedLatency asks for each large page directly and through
// the proxy, one request at a time, and waits for the proxy's checks to end
// before the next pair, as a client that does not hammer the proxy sees it.
// It reports the median time of each and the median of what the proxy adds
// to a request.
func BenchmarkProxyAddedLatency(b *testing.B) {
	mock, px, p := benchServers(b)
	client := &http.Client{}
	for _, page := range benchPages {
		b.Run(page.name, func(b *testing.B) {
			// Warm the connections and the mock's caches.
			for _, u := range []string{mock.URL + page.path, px.URL + page.path} {
				if _, _, err := fetchTimed(client, u); err != nil {
					b.Fatal(err)
				}
			}
			p.Wait(time.Minute)
			var direct, proxied, added []time.Duration
			var size int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, n, err := fetchTimed(client, mock.URL+page.path)
				if err != nil {
					b.Fatal(err)
				}
				viaProxy, _, err := fetchTimed(client, px.URL+page.path)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				p.Wait(time.Minute)
				b.StartTimer()
				direct, proxied, added = append(direct, d), append(proxied, viaProxy), append(added, viaProxy-d)
				size = n
			}
			b.StopTimer()
			b.SetBytes(size)
			b.ReportMetric(ms(median(direct)), "direct-ms")
			b.ReportMetric(ms(median(proxied)), "proxied-ms")
			b.ReportMetric(ms(median(added)), "added-ms")
		})
	}
}

// BenchmarkProxyHammered has twice as many clients as CPUs ask for each
// large page through the proxy back to back, then waits for the checks the
// proxy queued. The clients are not held to the pace of the checks: a
// response that finds the checkers busy and the queue full passes
// unchecked. It reports the time per page (the queued checks' included),
// that time times the CPUs, and the fraction of the pages checked.
func BenchmarkProxyHammered(b *testing.B) {
	_, px, p := benchServers(b)
	cpus := runtime.GOMAXPROCS(0)
	clients := 2 * cpus
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	for _, page := range benchPages {
		b.Run(page.name, func(b *testing.B) {
			u := px.URL + page.path
			if _, _, err := fetchTimed(client, u); err != nil {
				b.Fatal(err)
			}
			p.Wait(time.Minute)
			checkedBefore := p.Metrics().Checked
			next := make(chan struct{})
			errs := make(chan error, clients)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for c := 0; c < clients; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					failed := false
					for range next { // drained to the end, so that the sender never blocks
						if failed {
							continue
						}
						if _, _, err := fetchTimed(client, u); err != nil {
							errs <- err
							failed = true
						}
					}
				}()
			}
			for i := 0; i < b.N; i++ {
				next <- struct{}{}
			}
			close(next)
			wg.Wait()
			p.Wait(time.Minute)
			elapsed := time.Since(start)
			b.StopTimer()
			select {
			case err := <-errs:
				b.Fatal(err)
			default:
			}
			perPage := elapsed / time.Duration(b.N)
			b.ReportMetric(ms(perPage), "ms/page")
			b.ReportMetric(ms(perPage)*float64(cpus), "cpu-ms/page")
			b.ReportMetric(float64(p.Metrics().Checked-checkedBefore)/float64(b.N), "checked-fraction")
		})
	}
}

// ratePages are the pages BenchmarkProxyVsDirect drives: the 100-row
// network parameters page (the proxy must keep at least half the direct
// rate on it) and a 1000-transaction page (reported, no target), each with
// the number of requests in one timed round.
var ratePages = []struct {
	name, path string
	perRound   int
}{
	{"parameters-100", "/api/v2/network/parameters?pagination.first=100", 4000},
	{"transactions-1000", "/transactions?first=1000", 300},
}

// rateClients is how many clients drive a round at once, as wrk's
// connections.
const rateClients = 8

// roundLimit bounds one timed round: a round that has not sent its requests
// by then stops, and its rate counts what it did send.
const roundLimit = 20 * time.Second

// round has rateClients clients get u back to back until perRound requests
// are sent or roundLimit passes, each reading the whole body. It returns
// how many requests completed and how long they took.
func round(client *http.Client, u string, perRound int) (int, time.Duration, error) {
	var sent, done atomic.Int64
	deadline := time.Now().Add(roundLimit)
	errs := make(chan error, rateClients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < rateClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sent.Add(1) <= int64(perRound) && time.Now().Before(deadline) {
				if _, _, err := fetchTimed(client, u); err != nil {
					errs <- err
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	select {
	case err := <-errs:
		return 0, 0, err
	default:
	}
	return int(done.Load()), elapsed, nil
}

// BenchmarkProxyVsDirect drives each page with rateClients clients at once,
// directly against the mock, through the proxy (default settings: every
// response sampled, GOMAXPROCS checkers), and through a proxy that checks
// almost nothing (CheckSample 1e-9: the cost of forwarding alone), in
// alternating rounds of a fixed number of requests, one set of rounds per
// b.N, so that all see the same machine. After the proxied round its
// queued checks are let finish (untimed), so that they do not slow the
// next round. It reports the rates, the ratios proxied/direct (the target
// is at least 0.5 for the parameters page) and forward-only/direct, and the
// fraction of the proxied responses checked while the clients were sending
// (checked-in-round) and in all, once the queue drained (checked-after);
// the rest passed unchecked as busy. Run it with -benchtime Nx.
func BenchmarkProxyVsDirect(b *testing.B) {
	mock, px, p := benchServers(b)
	u, err := url.Parse(mock.URL)
	if err != nil {
		b.Fatal(err)
	}
	fwd := httptest.NewServer(proxy.New(proxy.Config{Upstream: u, CheckSample: 1e-9}))
	b.Cleanup(fwd.Close)
	newClient := func() *http.Client {
		return &http.Client{Timeout: roundLimit, Transport: &http.Transport{MaxIdleConnsPerHost: rateClients}}
	}
	directClient, proxyClient, fwdClient := newClient(), newClient(), newClient()
	for _, page := range ratePages {
		b.Run(page.name, func(b *testing.B) {
			direct, proxied, forwarded := mock.URL+page.path, px.URL+page.path, fwd.URL+page.path
			// Warm the connections and the mock's caches.
			for _, w := range []struct {
				c *http.Client
				u string
			}{{directClient, direct}, {proxyClient, proxied}, {fwdClient, forwarded}} {
				if _, _, err := round(w.c, w.u, rateClients); err != nil {
					b.Fatal(err)
				}
			}
			p.Wait(time.Minute)
			before := p.Metrics()
			var nDirect, nProxied, nForwarded int
			var tForwarded time.Duration
			var checkedInRounds int64 // checked while the clients were sending
			var tDirect, tProxied time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				n, d, err := round(directClient, direct, page.perRound)
				if err != nil {
					b.Fatal(err)
				}
				nDirect, tDirect = nDirect+n, tDirect+d
				if n, d, err = round(proxyClient, proxied, page.perRound); err != nil {
					b.Fatal(err)
				}
				nProxied, tProxied = nProxied+n, tProxied+d
				b.StopTimer()
				checkedInRounds += p.Metrics().Checked
				p.Wait(time.Minute) // before the next round, not during it
				checkedInRounds -= p.Metrics().Checked
				b.StartTimer()
				if n, d, err = round(fwdClient, forwarded, page.perRound); err != nil {
					b.Fatal(err)
				}
				nForwarded, tForwarded = nForwarded+n, tForwarded+d
			}
			b.StopTimer()
			after := p.Metrics()
			directRate, proxiedRate := float64(nDirect)/tDirect.Seconds(), float64(nProxied)/tProxied.Seconds()
			b.ReportMetric(directRate, "direct-req/s")
			b.ReportMetric(proxiedRate, "proxied-req/s")
			b.ReportMetric(proxiedRate/directRate, "proxied/direct")
			b.ReportMetric(float64(nForwarded)/tForwarded.Seconds()/directRate, "forward-only/direct")
			checked := after.Checked - before.Checked
			b.ReportMetric(float64(checked+checkedInRounds)/float64(nProxied), "checked-in-round")
			b.ReportMetric(float64(checked)/float64(nProxied), "checked-after")
		})
	}
}
