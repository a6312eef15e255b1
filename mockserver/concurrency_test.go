package mockserver

import (
	"bytes"
	"net/http"
	"net/url"
	"sync"
	"testing"
)

// TestConcurrentClients sends a mix of requests from many clients at once
// and checks every answer is byte for byte the one the same request got
// alone: shared buffers, indexes and the fault stream are safe to use
// concurrently (run with -race).
func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	s := serve(t, Config{DefaultPageSize: 20}, w)
	games, snaps := gamesListing.expected(w), snapshotsListing.expected(w)
	type request struct{ method, path, query string }
	reqs := []request{
		{"GET", "/api/v2/games", ""},
		{"GET", "/api/v2/games", "pagination.first=3&pagination.after=" + url.QueryEscape(games[4].cursor)},
		{"GET", "/api/v2/games", "pagination.last=2&pagination.newestFirst=false&partyId=" + hexID("party3")},
		{"GET", "/api/v2/games", "entityScope=ENTITY_SCOPE_TEAMS&epochFrom=3&epochTo=6"},
		{"GET", "/api/v2/games", "epochFrom=20&epochTo=10"},
		{"GET", "/api/v2/snapshots", ""},
		{"GET", "/api/v2/snapshots", "pagination.before=" + url.QueryEscape(snaps[30].cursor)},
		{"GET", "/api/v2/snapshots", "pagination.first=5000"},
		{"GET", "/api/v2/core/keys/ethereum/rotations", "pagination.last=7"},
		{"GET", "/api/v2/core/keys/ethereum/rotations", "nodeId=" + w.KeyRotations[3].NodeID},
		{"GET", "/api/v2/network/parameters", "pagination.first=100"},
		{"GET", "/api/v2/network/parameters", "pagination.newestFirst=false"},
		{"GET", "/transactions", ""},
		{"GET", "/rest/transactions", "first=9&cmdTypes=Submit+Order"},
		{"GET", "/transactions", "last=5&before=" + w.Transactions[60].Cursor()},
		{"GET", "/transactions", "after=" + w.Transactions[10].Cursor() + "&before=" + w.Transactions[50].Cursor()},
		{"GET", "/api/v2/games", "pagination.first=0"},
		{"GET", "/api/v2/snapshots", "pagination.after=bad"},
		{"GET", "/transactions", "first=2&last=2"},
		{"GET", "/nowhere", ""},
		{"POST", "/api/v2/games", ""},
		{"HEAD", "/api/v2/network/parameters", ""},
	}
	want := make([]*response, len(reqs))
	for i, rq := range reqs {
		want[i] = s.do(t, rq.method, rq.path, rq.query, nil)
	}
	const clients, rounds = 8, 3
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range rounds * len(reqs) {
				i := (k*(c+1) + c) % len(reqs) // each client its own order
				rq := reqs[i]
				got, err := s.fetch(rq.method, rq.path, rq.query, nil)
				if err != nil {
					t.Errorf("client %d: %v", c, err)
					return
				}
				if got.status != want[i].status || !bytes.Equal(got.body, want[i].body) {
					t.Errorf("client %d: %s: status %d, %d bytes; alone it was status %d, %d bytes",
						c, got, got.status, len(got.body), want[i].status, len(want[i].body))
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestConcurrentFaults checks the injected faults under concurrent clients:
// every answer is a valid listing or the 500 error body, and as each
// request draws once from the seeded stream, the number of faults over a
// given number of requests does not depend on how clients interleave.
func TestConcurrentFaults(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	cfg := Config{FailRate: 0.4, FaultSeed: 21}
	const clients, each = 6, 20
	count := func(t *testing.T, concurrent bool) int {
		s := serve(t, cfg, w)
		var (
			mu     sync.Mutex
			faults int
			wg     sync.WaitGroup
		)
		run := func(c int) {
			defer wg.Done()
			for k := range each {
				p := listingPaths[(c+k)%len(listingPaths)]
				r, err := s.fetch(http.MethodGet, p, "pagination.first=2&first=2", nil)
				if err != nil {
					t.Errorf("%v", err)
					return
				}
				switch {
				case r.status == 500 && bytes.Contains(r.body, []byte(`"code":13`)):
					mu.Lock()
					faults++
					mu.Unlock()
				case r.status == 200:
					if err := validateCached(schemaOfPath(p), r.body); err != nil {
						t.Errorf("%s: %v", r, err)
					}
				default:
					t.Errorf("%s: status %d: %s", r, r.status, r.body)
				}
			}
		}
		for c := range clients {
			wg.Add(1)
			if concurrent {
				go run(c)
			} else {
				run(c)
			}
		}
		wg.Wait()
		return faults
	}
	alone, together := count(t, false), count(t, true)
	if alone != together {
		t.Errorf("%d faults one request at a time, %d with %d concurrent clients", alone, together, clients)
	}
	if total := clients * each; alone < total/5 || alone > total*3/5 {
		t.Errorf("%d faults in %d requests at rate %v", alone, total, cfg.FailRate)
	}
}
