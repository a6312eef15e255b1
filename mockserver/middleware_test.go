package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/store"
)

// TestCORS checks every answer allows any origin (the client checks that on
// each response of every test) and preflight requests are answered.
func TestCORS(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, pagingWorld(t))
	preflight := http.Header{"Origin": {"https://example.org"}, "Access-Control-Request-Method": {"GET"}}
	for _, p := range append(slices.Clone(listingPaths), "/nowhere") {
		t.Run("preflight "+p, func(t *testing.T) {
			r := s.do(t, http.MethodOptions, p, "", preflight)
			if r.status != http.StatusNoContent {
				t.Fatalf("%s: status %d, want 204", r, r.status)
			}
			if m := r.header.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "GET") {
				t.Errorf("%s: Access-Control-Allow-Methods %q does not allow GET", r, m)
			}
			if h := r.header.Get("Access-Control-Allow-Headers"); !strings.Contains(h, "X-Harness-Fault") {
				t.Errorf("%s: Access-Control-Allow-Headers %q does not allow X-Harness-Fault", r, h)
			}
		})
	}
	for _, tc := range []struct {
		path, query string
		status      int
	}{
		{"/api/v2/games", "", 200}, {"/api/v2/games", "pagination.first=0", 400},
		{"/transactions", "", 200}, {"/nowhere", "", 404},
	} {
		t.Run("expose "+tc.path+" "+tc.query, func(t *testing.T) {
			r := s.get(t, tc.path, tc.query)
			if r.status != tc.status {
				t.Fatalf("%s: status %d, want %d", r, r.status, tc.status)
			}
			expose := r.header.Get("Access-Control-Expose-Headers")
			if !strings.Contains(expose, "X-Block-Height") || !strings.Contains(expose, "X-Block-Timestamp") || !strings.Contains(expose, "Retry-After") {
				t.Errorf("%s: Access-Control-Expose-Headers %q, want the block headers and Retry-After exposed", r, expose)
			}
		})
	}
}

// TestBlockHeaders checks the data-node listings carry the newest block's
// height and time (Unix nanoseconds).
func TestBlockHeaders(t *testing.T) {
	t.Parallel()
	gen := genWorld(t)
	hand := emptyWorld()
	hand.LatestBlock = 987654321
	hand.LatestBlockTime = time.Date(2025, 3, 4, 5, 6, 7, 89, time.UTC)
	for _, w := range []*world.World{gen, hand} {
		s := serve(t, Config{}, w)
		for _, l := range pagedListings {
			for _, q := range []string{"", "pagination.first=1&pagination.newestFirst=false"} {
				t.Run(strconv.FormatUint(w.LatestBlock, 10)+" "+l.name+" "+q, func(t *testing.T) {
					r := s.get(t, l.path, q)
					if r.status != 200 {
						t.Fatalf("%s: status %d", r, r.status)
					}
					if h := r.header.Get("X-Block-Height"); h != strconv.FormatUint(w.LatestBlock, 10) {
						t.Errorf("%s: X-Block-Height %q, want %d", r, h, w.LatestBlock)
					}
					if ts := r.header.Get("X-Block-Timestamp"); ts != strconv.FormatInt(w.LatestBlockTime.UnixNano(), 10) {
						t.Errorf("%s: X-Block-Timestamp %q, want %d", r, ts, w.LatestBlockTime.UnixNano())
					}
				})
			}
		}
	}
}

// TestAliases checks each parameter's snake_case spelling means what its
// camelCase one means, and that each changes the answer.
func TestAliases(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	s := serve(t, Config{}, w)
	tw := serve(t, Config{}, txWorld(t))
	party, team, game := hexID("party3"), hexID("team1"), hexID("game2")
	node := w.KeyRotations[0].NodeID
	tests := []struct {
		s            *testServer
		path         string
		camel, snake string
	}{
		{s, "/api/v2/games", "pagination.newestFirst=false", "pagination.newest_first=false"},
		{s, "/api/v2/snapshots", "pagination.newestFirst=0", "pagination.newest_first=0"},
		{s, "/api/v2/core/keys/ethereum/rotations", "pagination.newestFirst=false", "pagination.newest_first=false"},
		{s, "/api/v2/games", "epochFrom=3&epochTo=5", "epoch_from=3&epoch_to=5"},
		{s, "/api/v2/games", "entityScope=ENTITY_SCOPE_TEAMS", "entity_scope=ENTITY_SCOPE_TEAMS"},
		{s, "/api/v2/games", "teamId=" + team, "team_id=" + team},
		{s, "/api/v2/games", "partyId=" + party, "party_id=" + party},
		{s, "/api/v2/games", "gameId=" + game, "game_id=" + game},
		{s, "/api/v2/core/keys/ethereum/rotations", "nodeId=" + node, "node_id=" + node},
		{tw, "/transactions", "cmdTypes=Cancel+Order", "cmd_types=Cancel+Order"},
		{tw, "/transactions", "excludeCmdTypes=Submit+Order", "exclude_cmd_types=Submit+Order"},
	}
	for _, tc := range tests {
		t.Run(tc.path+"?"+tc.snake, func(t *testing.T) {
			plain := tc.s.get(t, tc.path, "")
			camel := tc.s.get(t, tc.path, tc.camel)
			snake := tc.s.get(t, tc.path, tc.snake)
			if camel.status != 200 || !bytes.Equal(camel.body, snake.body) {
				t.Fatalf("%s and %s answer differently:\n%.300s\n%.300s", camel, snake, camel.body, snake.body)
			}
			if bytes.Equal(plain.body, camel.body) {
				t.Fatalf("%s answers as if it had no parameters; the case tests nothing", camel)
			}
		})
	}
}

// TestLatency checks Config.Latency delays every answer, and that a client
// giving up ends the wait.
func TestLatency(t *testing.T) {
	t.Parallel()
	const latency = 40 * time.Millisecond
	s := serve(t, Config{Latency: latency}, pagingWorld(t))
	for _, p := range []string{"/api/v2/snapshots", "/transactions", "/nowhere"} {
		t.Run(p, func(t *testing.T) {
			start := time.Now()
			s.get(t, p, "")
			if d := time.Since(start); d < latency {
				t.Errorf("answered in %v, want at least %v", d, latency)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		st, err := store.New(emptyWorld())
		if err != nil {
			t.Fatal(err)
		}
		h := New(Config{Latency: time.Hour}, st)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v2/games", nil).WithContext(ctx))
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("a cancelled request still waits out the latency")
		}
		if rec.Body.Len() != 0 {
			t.Errorf("a cancelled request was answered: %s", rec.Body)
		}
	})
}

// TestFailRate checks Config.FailRate answers that fraction of requests
// with a 500, chosen by a stream seeded by FaultSeed.
func TestFailRate(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	const requests = 120
	statuses := func(t *testing.T, cfg Config) []int {
		s := serve(t, cfg, w)
		out := make([]int, requests)
		for i := range out {
			p := listingPaths[i%len(listingPaths)]
			out[i] = s.get(t, p, "pagination.first=1&first=1").status
		}
		return out
	}
	count500 := func(st []int) int {
		n := 0
		for _, s := range st {
			if s == 500 {
				n++
			} else if s != 200 {
				t.Fatalf("status %d, want 200 or 500", s)
			}
		}
		return n
	}
	tests := []struct {
		name     string
		cfg      Config
		min, max int
	}{
		{"no faults", Config{}, 0, 0},
		{"rate 0", Config{FailRate: 0, FaultSeed: 3}, 0, 0},
		{"rate 1", Config{FailRate: 1}, requests, requests},
		{"rate 0.25", Config{FailRate: 0.25, FaultSeed: 5}, requests / 10, requests * 2 / 5},
		{"rate 0.5", Config{FailRate: 0.5, FaultSeed: 6}, requests / 4, requests * 3 / 4},
		{"rate 0.5 with latency", Config{FailRate: 0.5, FaultSeed: 6, Latency: time.Millisecond}, requests / 4, requests * 3 / 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if n := count500(statuses(t, tc.cfg)); n < tc.min || n > tc.max {
				t.Errorf("%d of %d requests failed, want %d to %d", n, requests, tc.min, tc.max)
			}
		})
	}
	t.Run("the same seed fails the same requests", func(t *testing.T) {
		a := statuses(t, Config{FailRate: 0.5, FaultSeed: 11})
		b := statuses(t, Config{FailRate: 0.5, FaultSeed: 11})
		c := statuses(t, Config{FailRate: 0.5, FaultSeed: 12})
		if !slices.Equal(a, b) {
			t.Errorf("two servers with FaultSeed 11 failed different requests:\n%v\n%v", a, b)
		}
		if slices.Equal(a, c) {
			t.Errorf("FaultSeed 11 and 12 failed the same requests")
		}
	})
}

// TestLogger checks a configured logger gets one structured line per
// request.
func TestLogger(t *testing.T) {
	t.Parallel()
	st, err := store.New(emptyWorld())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method, target string
		status         int
	}{
		{http.MethodGet, "/api/v2/games?pagination.first=1", 200},
		{http.MethodGet, "/api/v2/games?pagination.first=0", 400},
		{http.MethodPost, "/transactions", 501},
		{http.MethodGet, "/nowhere", 404},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			var buf bytes.Buffer
			h := New(Config{Logger: slog.New(slog.NewJSONHandler(&buf, nil))}, st)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.target, nil))
			path, _, _ := strings.Cut(tc.target, "?")
			checkResponse(t, tc.method, path, &response{req: tc.method + " " + tc.target, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()})
			var line struct {
				Method string `json:"method"`
				Path   string `json:"path"`
				Status int    `json:"status"`
			}
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
				t.Fatalf("log %q: %v", buf.String(), err)
			}
			if line.Method != tc.method || line.Path != path || line.Status != tc.status {
				t.Errorf("logged %+v, want %s %s %d", line, tc.method, path, tc.status)
			}
		})
	}
}
