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
	"testing"
	"time"

	"github.com/chaindata/harness/generators"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/proxy"
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
	w, err := generators.Generate(generators.Options{Seed: 1, Scale: 1})
	if err != nil {
		b.Fatal(err)
	}
	st, err := mockserver.NewStore(w)
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
// large page through the proxy back to back, so that every checker is
// always busy and the proxy holds its clients to the pace of the checks. It
// reports the time per page, and that time times the CPUs: what one check
// of such a page costs a CPU.
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
		})
	}
}
