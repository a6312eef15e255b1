package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/store"
)

// liveServer starts a server of a new store of w with a live chain bounded
// by maxBlocks.
func liveServer(t testing.TB, cfg Config, w *world.World, maxBlocks int) (*testServer, *store.Chain) {
	t.Helper()
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := store.NewChain(st, w, maxBlocks)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Chain = chain
	return serveHandler(t, New(cfg, st), w), chain
}

// grown returns w with n blocks grown from it added, as one world, and the
// blocks.
func grown(t testing.TB, w *world.World, n int) (*world.World, []*world.Block) {
	t.Helper()
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	c := copyWorld(w)
	var blocks []*world.Block
	for range n {
		b, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
		c.Games = append(c.Games, b.Games...)
		if b.Snapshot != nil {
			c.Snapshots = append(c.Snapshots, *b.Snapshot)
		}
		c.KeyRotations = append(c.KeyRotations, b.KeyRotations...)
		c.Transactions = append(c.Transactions, b.Transactions...)
		c.LatestBlock, c.LatestBlockTime, c.LatestEpoch = b.Height, b.Time, b.Epoch
	}
	return c, blocks
}

// sameAnswers asks both servers each query and requires the same status,
// block headers and body, byte for byte.
func sameAnswers(t *testing.T, got, want *testServer, queries []string) {
	t.Helper()
	for _, pq := range queries {
		p, q, _ := cutQuery(pq)
		// Not checked against the schemas: the bodies are compared with
		// those of a store the other tests check.
		a, err := got.fetch(http.MethodGet, p, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := want.fetch(http.MethodGet, p, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.status != b.status || !bytes.Equal(a.body, b.body) {
			t.Errorf("%s: status %d, %d bytes; want status %d, %d bytes\n got %.300s\nwant %.300s", a, a.status, len(a.body), b.status, len(b.body), a.body, b.body)
			continue
		}
		for _, h := range []string{"X-Block-Height", "X-Block-Timestamp"} {
			if a.header.Get(h) != b.header.Get(h) {
				t.Errorf("%s: %s %q, want %q", a, h, a.header.Get(h), b.header.Get(h))
			}
		}
	}
}

func cutQuery(pq string) (path, query string, ok bool) {
	u, err := url.Parse(pq)
	if err != nil {
		return pq, "", false
	}
	return u.Path, u.RawQuery, true
}

// queriesAround returns queries over every listing that reach the rows of
// world w's newest blocks: default pages, cursors at the newest rows,
// filters that the new rows match.
func queriesAround(t *testing.T, w *world.World, blocks []*world.Block) []string {
	t.Helper()
	last := blocks[len(blocks)-1]
	var newGame *records.Game
	for _, b := range blocks {
		if len(b.Games) > 0 {
			newGame = &b.Games[len(b.Games)-1]
		}
	}
	if newGame == nil {
		t.Fatal("the blocks start no epoch; the test tests nothing")
	}
	tx := last.Transactions[0]
	mid := w.Transactions[len(w.Transactions)-3]
	qs := []string{
		"/api/v2/games", "/api/v2/games?pagination.newestFirst=false",
		fmt.Sprintf("/api/v2/games?epochFrom=%d&epochTo=%d", w.LatestEpoch-2, newGame.Epoch),
		"/api/v2/games?gameId=" + newGame.ID + "&pagination.first=3",
		"/api/v2/games?partyId=" + newGame.PartyIDs()[0],
		"/api/v2/games?pagination.last=5&pagination.before=" + url.QueryEscape(newGame.Cursor()),
		"/api/v2/snapshots?pagination.first=5", "/api/v2/snapshots?pagination.last=3&pagination.newestFirst=false",
		"/api/v2/core/keys/ethereum/rotations?pagination.first=5",
		"/api/v2/network/parameters?pagination.first=3",
		"/transactions", "/transactions?first=100", "/transactions?last=5",
		"/transactions?after=" + mid.Cursor(), "/transactions?first=20&after=" + mid.Cursor(),
		"/transactions?before=" + tx.Cursor() + "&after=" + mid.Cursor(),
		"/transactions?cmdTypes=" + url.QueryEscape(tx.Type), "/transactions?parties=" + tx.Submitter,
		"/transactions?excludeCmdTypes=Submit+Order&first=30",
	}
	for _, b := range blocks {
		if len(b.KeyRotations) > 0 {
			qs = append(qs, "/api/v2/core/keys/ethereum/rotations?nodeId="+b.KeyRotations[0].NodeID)
		}
	}
	return qs
}

// TestAppendedBlocksServeAsBuilt grows a store block by block and checks it
// answers every query exactly as a store built at once from the same rows
// does; and after Reset, exactly as the store of the world at start.
func TestAppendedBlocksServeAsBuilt(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	live, chain := liveServer(t, Config{}, w, 0)
	const n = 400 // two epochs started at this scale, and a snapshot
	after, blocks := grown(t, w, n)
	queries := queriesAround(t, after, blocks)
	start := serve(t, Config{}, w)
	sameAnswers(t, live, start, queries)

	if err := chain.Advance(n - 200); err != nil {
		t.Fatal(err)
	}
	if _, err := chain.AdvanceEpochs(1); err != nil { // part way, then to the next epoch
		t.Fatal(err)
	}
	if err := chain.Advance(n - chain.Added()); err != nil {
		t.Fatal(err)
	}
	whole := serve(t, Config{}, after)
	sameAnswers(t, live, whole, queries)

	chain.Reset()
	if chain.Added() != 0 {
		t.Errorf("after Reset, %d blocks added", chain.Added())
	}
	sameAnswers(t, live, start, queries)
	if err := chain.Advance(n); err != nil {
		t.Fatal(err)
	}
	sameAnswers(t, live, whole, queries)
}

// TestWalksWhileBlocksArrive walks listings page by page while blocks
// arrive between the pages: a walk away from the newest end sees exactly
// the rows that existed when it began; a walk towards it sees them all too,
// once each and in order, and then the new rows.
func TestWalksWhileBlocksArrive(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	tests := []struct {
		name      string
		path      string
		query     string // the walk's first request; rows at start are read with the same filters
		towards   bool   // the walk goes towards the newest end
		advance   int    // blocks added before each of the 10 pages after the first
		tx        bool
		wantFresh bool // new rows must show
	}{
		{name: "transactions newest to oldest", path: "/transactions", query: "first=20", advance: 5, tx: true},
		{name: "transactions oldest to newest", path: "/transactions", query: "last=20", towards: true, advance: 5, tx: true, wantFresh: true},
		{name: "filtered transactions oldest to newest", path: "/transactions", query: "last=7&cmdTypes=Submit+Order&cmdTypes=Cancel+Order", towards: true, advance: 5, tx: true, wantFresh: true},
		{name: "snapshots newest first", path: snapshotsListing.path, query: "pagination.first=7", advance: 60},
		{name: "snapshots oldest first", path: snapshotsListing.path, query: "pagination.first=7&pagination.newestFirst=false", towards: true, advance: 60, wantFresh: true},
		{name: "key rotations newest first", path: rotationsListing.path, query: "pagination.first=7", advance: 80},
		{name: "key rotations oldest first", path: rotationsListing.path, query: "pagination.first=7&pagination.newestFirst=false", towards: true, advance: 80, wantFresh: true},
		{name: "games of a window newest first", path: gamesListing.path,
			query: fmt.Sprintf("pagination.first=9&epochFrom=%d&epochTo=%d", w.LatestEpoch-5, w.LatestEpoch+3), advance: 80},
		{name: "games of a window oldest first", path: gamesListing.path,
			query:   fmt.Sprintf("pagination.first=9&pagination.newestFirst=false&epochFrom=%d&epochTo=%d", w.LatestEpoch-5, w.LatestEpoch+3),
			towards: true, advance: 80, wantFresh: true},
		{name: "games backwards from the oldest of a window", path: gamesListing.path,
			query: fmt.Sprintf("pagination.last=9&epochFrom=%d&epochTo=%d", w.LatestEpoch-5, w.LatestEpoch+3), towards: true, advance: 80, wantFresh: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, chain := liveServer(t, Config{}, w, 0)
			filters := withoutPaging(tc.query)
			before := rowsOf(t, s, tc.path, filters)
			var seen []string
			if tc.tx {
				seen = walkTxsLive(t, s, chain, tc.query, tc.towards, tc.advance)
			} else {
				seen = walkPagedLive(t, s, chain, tc.path, tc.query, tc.advance)
			}
			if dup := firstRepeat(seen); dup != "" {
				t.Fatalf("the walk saw %s twice", dup)
			}
			if chain.Added() == 0 {
				t.Fatal("no block arrived during the walk; the test tests nothing")
			}
			if !tc.towards {
				if !slices.Equal(seen, before) {
					t.Fatalf("the walk saw %d rows, %d existed when it began:\n got %s\nwant %s", len(seen), len(before), describeCursors(seen), describeCursors(before))
				}
				return
			}
			// Growth only appends, so the listing now holds every row
			// that existed at the start, and the new ones.
			now := rowsOf(t, s, tc.path, filters)
			if !slices.Equal(seen, now) {
				t.Errorf("the walk saw %d rows (%d existed when it began); the listing now holds %d:\n got %s\nwant %s", len(seen), len(before), len(now), describeCursors(seen), describeCursors(now))
			}
			if tc.wantFresh && len(seen) == len(before) {
				t.Error("no new row reached the walk; the test tests nothing")
			}
		})
	}
}

// withoutPaging drops the paging parameters from a query, keeping filters
// and the order.
func withoutPaging(raw string) string {
	q, _ := url.ParseQuery(raw)
	for _, k := range []string{"first", "last", "pagination.first", "pagination.last"} {
		q.Del(k)
	}
	return q.Encode()
}

// rowsOf returns the cursors of every row of a listing (with filters), in
// the order the walk of the test meets them: transactions oldest first when
// walking from the oldest, else as listed.
func rowsOf(t *testing.T, s *testServer, path, filters string) []string {
	t.Helper()
	fetch := func(q string) *response {
		r, err := s.fetch(http.MethodGet, path, q, nil) // the whole listing: too big to check against the schema each time
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if path == "/transactions" {
		r := fetch(filters + "&first=5000")
		var out []string
		for _, raw := range r.txPage(t) {
			out = append(out, cursorOf(t, raw))
		}
		return out
	}
	p := fetch(filters+"&pagination.first=5000").page(t, listingOfPath(path))
	var out []string
	for _, e := range p.Edges {
		out = append(out, e.Cursor)
	}
	return out
}

func cursorOf(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var tx struct {
		Cursor string `json:"cursor"`
	}
	if err := json.Unmarshal(raw, &tx); err != nil {
		t.Fatal(err)
	}
	return tx.Cursor
}

func firstRepeat(s []string) string {
	seen := map[string]bool{}
	for _, x := range s {
		if seen[x] {
			return x
		}
		seen[x] = true
	}
	return ""
}

// walkPagedLive walks a paged listing from the query's first page (forwards
// with first/after, or backwards with last/before), adding blocks before
// each of the ten pages after the first; it returns the cursors seen in
// listing order.
func walkPagedLive(t *testing.T, s *testServer, chain *store.Chain, path, raw string, advance int) []string {
	t.Helper()
	q, _ := url.ParseQuery(raw)
	backwards := q.Has("pagination.last")
	var seen []string
	for page := 0; ; page++ {
		if page > 500 {
			t.Fatal("more than 500 pages")
		}
		if page > 0 && page <= 10 {
			if err := chain.Advance(advance); err != nil {
				t.Fatal(err)
			}
		}
		p := s.get(t, path, q.Encode()).page(t, listingOfPath(path))
		var cursors []string
		for _, e := range p.Edges {
			cursors = append(cursors, e.Cursor)
		}
		if backwards {
			seen = append(cursors, seen...)
			if !p.PageInfo.HasPreviousPage {
				return seen
			}
			q.Set("pagination.before", p.PageInfo.StartCursor)
			continue
		}
		seen = append(seen, cursors...)
		if !p.PageInfo.HasNextPage {
			return seen
		}
		q.Set("pagination.after", p.PageInfo.EndCursor)
	}
}

// walkTxsLive walks the transaction listing from the newest (first, then
// last/before) or from the oldest (last, then first/after), adding blocks
// before each of the ten pages after the first; it returns the cursors seen
// newest first.
func walkTxsLive(t *testing.T, s *testServer, chain *store.Chain, raw string, fromOldest bool, advance int) []string {
	t.Helper()
	q, _ := url.ParseQuery(raw)
	size := q.Get("first") + q.Get("last")
	var seen []string
	for page := 0; ; page++ {
		if page > 500 {
			t.Fatal("more than 500 pages")
		}
		if page > 0 && page <= 10 {
			if err := chain.Advance(advance); err != nil {
				t.Fatal(err)
			}
		}
		txs := s.get(t, "/transactions", q.Encode()).txPage(t)
		var cursors []string
		for _, raw := range txs {
			cursors = append(cursors, cursorOf(t, raw))
		}
		if len(cursors) == 0 {
			return seen
		}
		if fromOldest {
			seen = append(cursors, seen...)
			q.Del("last")
			q.Set("first", size)
			q.Set("after", cursors[0])
			continue
		}
		seen = append(seen, cursors...)
		q.Del("first")
		q.Set("last", size)
		q.Set("before", cursors[len(cursors)-1])
	}
}

// TestReadersSeeWholeBlocks reads the newest rows of every listing while
// blocks arrive one by one, and checks every answer holds whole blocks: all
// the transactions of the newest block it shows, all the games of the
// newest epoch, and block headers that agree with the rows (run with
// -race).
func TestReadersSeeWholeBlocks(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	const n, wantReads = 1500, 30 // blocks at most; reads of each reader at least
	_, blocks := grown(t, w, n)
	txsIn := map[uint64]int{}      // block -> transactions
	gamesIn := map[uint64]int{}    // epoch -> games
	epochOf := map[uint64]uint64{} // block -> epoch
	for _, b := range blocks {
		txsIn[b.Height] = len(b.Transactions)
		gamesIn[b.Epoch] += len(b.Games)
		epochOf[b.Height] = b.Epoch
	}
	s, chain := liveServer(t, Config{}, w, 0)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var readsMu sync.Mutex
	var reads [3]int
	check := func(reader int) error {
		switch reader {
		case 0:
			r, err := s.fetch(http.MethodGet, "/transactions", "first=20", nil)
			if err != nil {
				return err
			}
			var txs []struct {
				Block string `json:"block"`
			}
			if err := json.Unmarshal(r.body[len(`{"transactions":`):len(r.body)-2], &txs); err != nil {
				return fmt.Errorf("%s: %v", r, err)
			}
			top, _ := strconv.ParseUint(txs[0].Block, 10, 64)
			count := 0
			for _, tx := range txs {
				if tx.Block == txs[0].Block {
					count++
				}
			}
			if want, grownBlock := txsIn[top]; grownBlock && count != want {
				return fmt.Errorf("%s: %d transactions of block %d, which has %d", r, count, top, want)
			}
		case 1:
			r, err := s.fetch(http.MethodGet, "/api/v2/games", "pagination.first=30", nil) // an epoch's games and more
			if err != nil {
				return err
			}
			height, _ := strconv.ParseUint(r.header.Get("X-Block-Height"), 10, 64)
			var body struct {
				Games struct {
					Edges []struct {
						Node struct {
							Epoch string `json:"epoch"`
						} `json:"node"`
					} `json:"edges"`
				} `json:"games"`
			}
			if err := json.Unmarshal(r.body, &body); err != nil {
				return fmt.Errorf("%s: %v", r, err)
			}
			top, _ := strconv.ParseUint(body.Games.Edges[0].Node.Epoch, 10, 64)
			count := 0
			for _, e := range body.Games.Edges {
				if e.Node.Epoch == body.Games.Edges[0].Node.Epoch {
					count++
				}
			}
			if want, grownEpoch := gamesIn[top]; grownEpoch && count != want {
				return fmt.Errorf("%s: %d games of epoch %d, which has %d", r, count, top, want)
			}
			if e, grownBlock := epochOf[height]; grownBlock && e != top {
				return fmt.Errorf("%s: X-Block-Height %d is in epoch %d, the newest games are of epoch %d", r, height, e, top)
			}
		case 2:
			r, err := s.fetch(http.MethodGet, "/api/v2/snapshots", "pagination.first=1", nil)
			if err != nil {
				return err
			}
			var body struct {
				CoreSnapshots struct {
					Edges []struct {
						Node struct {
							BlockHeight string `json:"blockHeight"`
						} `json:"node"`
					} `json:"edges"`
				} `json:"coreSnapshots"`
			}
			if err := json.Unmarshal(r.body, &body); err != nil {
				return fmt.Errorf("%s: %v", r, err)
			}
			snap, _ := strconv.ParseUint(body.CoreSnapshots.Edges[0].Node.BlockHeight, 10, 64)
			height, _ := strconv.ParseUint(r.header.Get("X-Block-Height"), 10, 64)
			if snap > height {
				return fmt.Errorf("%s: a snapshot at %d above X-Block-Height %d", r, snap, height)
			}
		}
		return nil
	}
	for reader := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := check(reader); err != nil {
					t.Error(err)
					cancel()
					return
				}
				readsMu.Lock()
				reads[reader]++
				readsMu.Unlock()
			}
		}()
	}
	enough := func() bool {
		readsMu.Lock()
		defer readsMu.Unlock()
		return min(reads[0], reads[1], reads[2]) >= wantReads
	}
	deadline := time.Now().Add(30 * time.Second)
	total := func() int {
		readsMu.Lock()
		defer readsMu.Unlock()
		return reads[0] + reads[1] + reads[2]
	}
	for i := 0; i < n && ctx.Err() == nil && !enough() && time.Now().Before(deadline); i++ {
		if err := chain.Advance(1); err != nil {
			t.Error(err)
			break
		}
		// A block costs tens of microseconds: let a read or so through
		// between blocks (up to a millisecond), or the writer, holding the
		// lock back to back, would starve the readers.
		before, wait := total(), time.Now().Add(time.Millisecond)
		for total() == before && time.Now().Before(wait) {
			runtime.Gosched()
		}
	}
	cancel()
	wg.Wait()
	t.Logf("%d blocks appended while reading: %v reads", chain.Added(), reads)
	if min(reads[0], reads[1], reads[2]) < wantReads/5 || chain.Added() < wantReads {
		t.Errorf("%d blocks, %v reads: too few to test anything", chain.Added(), reads)
	}
}

// TestChainRun runs the wall clock for real, briefly: blocks arrive, the
// status says so, and the chain stops growing when its context ends.
func TestChainRun(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	s, chain := liveServer(t, Config{Control: true}, w, 0)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- chain.Run(ctx, 5*time.Millisecond, time.Now()) }()
	deadline := time.Now().Add(20 * time.Second)
	for chain.Added() < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	st := statusOf(t, s)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	if st.Chain == nil || st.Chain.Clock != "wall" || st.Chain.BlockInterval != "5ms" || st.Chain.BlocksAdded < 3 {
		t.Errorf("status while running: %+v", st.Chain)
	}
	if st.LatestBlock < w.LatestBlock+3 {
		t.Errorf("status: latest block %d, want at least %d", st.LatestBlock, w.LatestBlock+3)
	}
	stopped := chain.Added()
	time.Sleep(30 * time.Millisecond)
	if chain.Added() != stopped || chain.Interval() != 0 {
		t.Errorf("after Run ended: %d blocks (was %d), interval %v", chain.Added(), stopped, chain.Interval())
	}
	for _, d := range []time.Duration{0, -time.Second} {
		if err := chain.Run(context.Background(), d, time.Now()); err == nil {
			t.Errorf("Run with interval %v: no error", d)
		}
	}
}

// TestNewRefusesTheChainOfAnotherStore checks New panics when the chain of
// its Config grows another store.
func TestNewRefusesTheChainOfAnotherStore(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	storeOf := func(w *world.World) *store.Store {
		s, err := store.New(w)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	chain, err := store.NewChain(storeOf(w), w, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	New(Config{Chain: chain}, storeOf(w))
}

// statusOf reads GET /harness/status.
func statusOf(t testing.TB, s *testServer) Status {
	t.Helper()
	r, err := s.fetch(http.MethodGet, "/harness/status", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d: %s", r, r.status, r.body)
	}
	var st Status
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	return st
}
