package mockserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/store"
)

// BenchmarkWriteDeadlineCost compares a 100-row network parameters page over
// loopback with and without the per-answer write deadline (a negative
// Config.WriteTimeout turns it off), two clients per CPU: what the
// deadline's SetWriteDeadline calls (three per answer) cost.
func BenchmarkWriteDeadlineCost(b *testing.B) {
	st, err := store.New(genWorld(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{{"off", -1}, {"on", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := httptest.NewServer(New(Config{WriteTimeout: tc.timeout}, st))
			defer srv.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
			u := srv.URL + "/api/v2/network/parameters?pagination.first=100"
			b.SetParallelism(2) // 2 x GOMAXPROCS clients
			b.ResetTimer()
			var once sync.Once
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r, err := client.Get(u)
					if err != nil {
						once.Do(func() { b.Error(err) })
						return
					}
					io.Copy(io.Discard, r.Body)
					r.Body.Close()
				}
			})
		})
	}
}
