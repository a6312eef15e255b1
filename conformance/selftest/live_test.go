package selftest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// TestLiveMockPasses runs the suite against the default mock while its live
// chain adds a block every 100 ms at the newest end of every listing (the
// first of them starts a new epoch, with its games): no rule may mistake the
// growth for a defect, and the run sees blocks arrive.
func TestLiveMockPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	w, err := defaultWorld()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(w) // its own: the shared store must not grow
	if err != nil {
		t.Fatal(err)
	}
	chain, err := store.NewChain(st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mockserver.New(mockserver.Config{Chain: chain}, st))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- chain.Run(ctx, 100*time.Millisecond, time.Now()) }()
	defer func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("the chain stopped: %v", err)
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); chain.Added() == 0; { // the clock runs
		if time.Now().After(deadline) {
			t.Fatal("no block within 10 s of a 100 ms interval")
		}
		time.Sleep(10 * time.Millisecond)
	}

	r := conformBinary(t, srv.URL, "--growth-wait", "20s")
	added := chain.Added()
	t.Logf("the suite ran for %s while %d blocks arrived", r.elapsed.Round(time.Millisecond), added)
	if r.exitCode != 0 {
		t.Errorf("exit code %d, want 0", r.exitCode)
	}
	for _, s := range r.failed() {
		t.Errorf("rule failed against a mock whose chain grows: %s\n%s", fullText(s), s.Failure.Message)
	}
	if added < 10 {
		t.Errorf("only %d blocks arrived during the run: the test tests little", added)
	}
	// Every block adds transactions; snapshots, epochs and key rotations
	// come every few thousand blocks, so their growth rules may wait in
	// vain for 20 s, and say so.
	growth := 0
	for _, s := range r.specs() {
		if !slices.Contains(s.Labels(), "growth") {
			continue
		}
		growth++
		switch {
		case slices.Contains(s.Labels(), "TX-GRO-001") && s.State != types.SpecStatePassed:
			t.Errorf("TX-GRO-001: %s, want passed on a chain that adds transactions every block: %s", s.State, s.Failure.Message)
		case strings.HasSuffix(ruleIDOf(s), "-GRO-002") && s.State != types.SpecStatePassed:
			t.Errorf("%s: %s, want passed: every block moves X-Block-Height, so the oldest-first pages are asked while the chain grows: %s", ruleIDOf(s), s.State, s.Failure.Message)
		case s.State == types.SpecStateSkipped && !strings.Contains(s.Failure.Message, "no new row of the listing arrived"):
			t.Errorf("growth rule %s skipped for another reason than waiting in vain: %s", fullText(s), s.Failure.Message)
		}
	}
	if growth != 7 {
		t.Errorf("%d growth rules ran, want 7 (games, snapshots, key rotations, transactions; and the oldest-first flags of the first three)", growth)
	}
}

// liveServer starts the default mock with a live chain adding a block every
// interval (wrapped by wrap, when given), running until the test ends.
func liveServer(t *testing.T, interval time.Duration, wrap func(http.Handler) http.Handler) (*httptest.Server, *store.Chain) {
	t.Helper()
	w, err := defaultWorld()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := store.NewChain(st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = mockserver.New(mockserver.Config{Chain: chain}, st)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- chain.Run(ctx, interval, time.Now()) }()
	t.Cleanup(func() {
		srv.Close()
		cancel()
		<-done
	})
	return srv, chain
}

// TestGrowthRuleCatchesOffsetCursors runs the growth rule of snapshots
// against a live mock whose snapshot cursors are offsets from the newest
// row, as a server that pages with OFFSET does: when rows arrive between
// two pages, the second page repeats rows of the first. Only the growth
// rule can see it: without growth offsets and keys agree.
func TestGrowthRuleCatchesOffsetCursors(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	srv, chain := liveServer(t, 300*time.Millisecond, offsetCursors(snapshotsPath))
	// A snapshot comes every few thousand blocks: add them in bulk, a
	// snapshot's worth every 300 ms, while the rule waits.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
				if err := chain.Advance(3000); err != nil {
					return
				}
			}
		}
	}()
	r := conformBinary(t, srv.URL, "--label-filter", "snapshots && growth", "--growth-wait", "20s")
	var caught bool
	for _, s := range r.failed() {
		if slices.Contains(s.Labels(), "SNAP-GRO-001") {
			caught = true
			if !strings.Contains(s.Failure.Message, "repeats its rows") && !strings.Contains(s.Failure.Message, "loses the rows") {
				t.Errorf("SNAP-GRO-001 failed, but not on repeated or lost rows:\n%s", s.Failure.Message)
			}
		}
	}
	if !caught {
		t.Errorf("SNAP-GRO-001 did not fail against offset cursors\n%s", tail(r.output))
	}
}

// offsetCursors wraps a handler so that the cursors of a paged listing
// stand for the row's offset from the newest row when the cursor was first
// issued, as a server that pages with OFFSET does: after=C resumes after
// whatever row is at that offset now.
func offsetCursors(path string) func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		var mu sync.Mutex
		offsets := map[string]int{}
		// listing returns the listing's cursors now, newest first.
		listing := func(fetch func(url.Values) *answer) []string {
			var out []string
			if c := conn(fetch(url.Values{"pagination.first": {"5000"}})); c != nil {
				for _, e := range edges(c) {
					out = append(out, cursorOf(e))
				}
			}
			return out
		}
		var fetchNow func(url.Values) *answer
		wrap := rewrite(path, func(q url.Values, fetch func(url.Values) *answer) url.Values {
			mu.Lock()
			defer mu.Unlock()
			fetchNow = fetch
			c := q.Get("pagination.after")
			off, ok := offsets[c]
			if !ok {
				return q
			}
			if now := listing(fetch); off < len(now) {
				q.Set("pagination.after", now[off])
			}
			return q
		}, func(q url.Values, a *answer) {
			mu.Lock()
			defer mu.Unlock()
			c := conn(a)
			if c == nil || fetchNow == nil {
				return
			}
			var now []string
			for _, e := range edges(c) {
				cur := cursorOf(e)
				if _, ok := offsets[cur]; ok {
					continue
				}
				if now == nil {
					now = listing(fetchNow)
				}
				if i := slices.Index(now, cur); i >= 0 {
					offsets[cur] = i
				}
			}
		})
		return wrap(inner)
	}
}
