package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/store"
)

// writeFixtures writes w into a new directory in format.
func writeFixtures(t testing.TB, w *world.World, format string) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := fixtures.Write(context.Background(), dir, w, fixtures.WriteOptions{Format: format}); err != nil {
		t.Fatalf("write fixtures: %v", err)
	}
	return dir
}

// openFixtures opens dir from disk, closing the store when the test ends.
func openFixtures(t testing.TB, dir string) (*store.Store, fixtures.IndexInfo) {
	t.Helper()
	s, info, err := store.OpenFixtures(dir)
	if err != nil {
		t.Fatalf("OpenFixtures: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, info
}

// memStore builds a store of w in memory, closing it when the test ends.
func memStore(t testing.TB, w *world.World) *store.Store {
	t.Helper()
	s, err := store.New(w)
	if err != nil {
		t.Fatalf("store.New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// answer is one request's answer, as compared between two servers.
type answer struct {
	status int
	height string
	body   string
}

func ask(h http.Handler, target string) answer {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return answer{rec.Code, rec.Header().Get("X-Block-Height"), rec.Body.String()}
}

// fixtureQueries returns the requests both stores are asked: every listing
// with and without filters, both orders and both directions, pages after
// and before cursors the answers give, epoch windows and bad input.
func fixtureQueries(w *world.World) []string {
	party := w.Parties[0]
	team := w.Teams[0].ID
	node := w.Nodes[0].ID
	mid := (w.FirstEpoch + w.LatestEpoch) / 2
	paged := []string{
		"/api/v2/games", "/api/v2/games?pagination.newestFirst=false",
		fmt.Sprintf("/api/v2/games?epochFrom=%d&epochTo=%d", w.FirstEpoch, w.FirstEpoch+3),
		fmt.Sprintf("/api/v2/games?epochTo=%d&pagination.first=7", mid),
		"/api/v2/games?entityScope=ENTITY_SCOPE_TEAMS&pagination.first=5",
		"/api/v2/games?entityScope=ENTITY_SCOPE_INDIVIDUALS&pagination.last=5",
		"/api/v2/games?partyId=" + party, "/api/v2/games?teamId=" + team,
		fmt.Sprintf("/api/v2/games?epochTo=%d&partyId=%s", mid, party),
		"/api/v2/snapshots?pagination.first=9", "/api/v2/snapshots?pagination.last=9&pagination.newestFirst=false",
		"/api/v2/core/keys/ethereum/rotations?pagination.first=4",
		"/api/v2/core/keys/ethereum/rotations?nodeId=" + node,
		"/api/v2/network/parameters?pagination.first=11", "/api/v2/network/parameters?pagination.last=3",
	}
	var out []string
	for _, q := range paged {
		out = append(out, q)
	}
	out = append(out,
		"/transactions", "/transactions?first=13", "/transactions?last=13",
		"/transactions?cmdTypes=Submit+Order&first=20", "/transactions?excludeCmdTypes=Submit+Order&last=20",
		"/transactions?parties="+party, "/transactions?parties="+party+"&cmdTypes=Batch+Proposal",
		"/api/v2/games?pagination.after=bad", "/transactions?before=1.x",
		"/api/v2/games?gameId=nope", "/api/v2/core/keys/ethereum/rotations?nodeId=nope",
	)
	return out
}

// follow returns the requests for the pages next to a paged answer: after
// its end cursor and before its start cursor.
func follow(target string, body string) []string {
	var page map[string]struct {
		PageInfo struct{ StartCursor, EndCursor string }
	}
	if json.Unmarshal([]byte(body), &page) != nil {
		return nil
	}
	var out []string
	for _, p := range page {
		u, _ := url.Parse(target)
		for _, c := range []struct{ set, drop, cursor string }{
			{"pagination.after", "pagination.last", p.PageInfo.EndCursor},
			{"pagination.before", "pagination.first", p.PageInfo.StartCursor},
		} {
			if c.cursor == "" {
				continue
			}
			q := u.Query()
			q.Del("pagination.after")
			q.Del("pagination.before")
			q.Del(c.drop)
			q.Set(c.set, c.cursor)
			out = append(out, u.Path+"?"+q.Encode())
		}
	}
	return out
}

// txFollow returns the requests for the transactions around a page.
func txFollow(target, body string) []string {
	var page struct {
		Transactions []struct{ Cursor string } `json:"transactions"`
	}
	if json.Unmarshal([]byte(body), &page) != nil || len(page.Transactions) == 0 {
		return nil
	}
	first, last := page.Transactions[0].Cursor, page.Transactions[len(page.Transactions)-1].Cursor
	return []string{"/transactions?first=7&after=" + first, "/transactions?last=7&before=" + last,
		"/transactions?after=" + last + "&before=" + first}
}

// TestFixturesFromDiskAnswerLikeMemory serves the same fixtures from
// memory and from disk, in each file format, and compares every answer
// byte for byte, following cursors three pages each way.
func TestFixturesFromDiskAnswerLikeMemory(t *testing.T) {
	w := genWorld(t)
	for _, format := range []string{fixtures.FormatNDJSON, fixtures.FormatJSON} {
		t.Run(format, func(t *testing.T) {
			dir := writeFixtures(t, w, format)
			mem := memStore(t, w)
			disk, info := openFixtures(t, dir)
			if info.Rebuilt == "" || info.SaveErr != nil {
				t.Errorf("a new directory's index: rebuilt %q, save error %v; want rebuilt and saved", info.Rebuilt, info.SaveErr)
			}
			if got, want := disk.Counts(), mem.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("counts from disk %v, from memory %v", got, want)
			}
			compareAnswers(t, w, mem, "memory", disk, "disk")
		})
	}
}

// compareAnswers asks two stores (of w's records) the fixture queries and
// wants the same answers byte for byte, following cursors three pages each
// way.
func compareAnswers(t *testing.T, w *world.World, a *store.Store, aName string, b *store.Store, bName string) {
	t.Helper()
	cfg := Config{DefaultPageSize: 10, MaxPageSize: 50, TxDefaultPageSize: 5, TxMaxPageSize: 50}
	ha, hb := New(cfg, a), New(cfg, b)
	queue := fixtureQueries(w)
	compared := 0
	for depth := map[string]int{}; len(queue) > 0; {
		target := queue[0]
		queue = queue[1:]
		x, y := ask(ha, target), ask(hb, target)
		if x != y {
			t.Fatalf("GET %s\nfrom %s: %d %s\n%.400s\nfrom %s: %d %s\n%.400s", target, aName, x.status, x.height, x.body, bName, y.status, y.height, y.body)
		}
		compared++
		if x.status != http.StatusOK || depth[target] >= 3 {
			continue
		}
		next := follow(target, x.body)
		if strings.HasPrefix(target, "/transactions") {
			next = txFollow(target, x.body)
		}
		for _, n := range next {
			depth[n] = depth[target] + 1
		}
		queue = append(queue, next...)
	}
	if compared < 100 {
		t.Errorf("compared %d answers, want at least 100", compared)
	}
}

// TestLazyWorldStoreAnswersLikeEager builds a store from a lazy world (as
// harness serve does: games streamed epoch by epoch, transactions made as
// they are stored) and from the same world in memory, and compares their
// answers byte for byte.
func TestLazyWorldStoreAnswersLikeEager(t *testing.T) {
	eager := genWorld(t)
	lazy, err := world.Generate(world.Options{Seed: eager.Seed, Scale: eager.Scale, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if lazy.Games != nil || lazy.GameCount() != len(eager.Games) {
		t.Fatalf("the lazy world holds %d games and counts %d; want none held and %d counted", len(lazy.Games), lazy.GameCount(), len(eager.Games))
	}
	a, b := memStore(t, eager), memStore(t, lazy)
	if got, want := b.Counts(), a.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("counts from the lazy world %v, from memory %v", got, want)
	}
	compareAnswers(t, eager, a, "the world in memory", b, "the lazy world")
}

// TestStoreKeepsTheFirstOfDuplicates gives a world a second snapshot at a
// height, a second rotation of a node at a height and a second parameter of
// a key, each after the first: a store built in memory and one served from
// the world's fixtures both keep the first and answer as the world without
// them. Transactions out of order are put in order.
func TestStoreKeepsTheFirstOfDuplicates(t *testing.T) {
	w := genWorld(t)
	dup := copyWorld(w)
	// Seconds of the first, a middle and the last of each listing.
	for _, at := range []func(n int) int{func(int) int { return 0 }, func(n int) int { return n / 2 }, func(n int) int { return n - 1 }} {
		sn := dup.Snapshots[at(len(w.Snapshots))]
		sn.BlockHash, sn.Raw = hexID(fmt.Sprint("a second snapshot at ", sn.BlockHeight)), nil
		r := dup.KeyRotations[at(len(w.KeyRotations))]
		r.NewAddress, r.Raw = ethAddress(fmt.Sprint("a second rotation at ", r.BlockHeight)), nil
		p := dup.NetworkParameters[at(len(w.NetworkParameters))]
		p.Value, p.Raw = "a second value", nil
		dup.Snapshots = append(dup.Snapshots, sn)
		dup.KeyRotations = append(dup.KeyRotations, r)
		dup.NetworkParameters = append(dup.NetworkParameters, p)
	}
	slices.Reverse(dup.Transactions)

	want, mem := memStore(t, w), memStore(t, dup)
	compareAnswers(t, w, want, "the world", mem, "the world with duplicates, in memory")
	disk, _ := openFixtures(t, writeFixtures(t, dup, fixtures.FormatNDJSON))
	compareAnswers(t, w, want, "the world", disk, "the world with duplicates, from disk")
}

// TestFixtureStoreGrowsAndResets appends the same blocks to a store served
// from fixture files and to one built in memory, compares their answers,
// then resets both.
func TestFixtureStoreGrowsAndResets(t *testing.T) {
	w, err := world.Generate(world.Options{Seed: 3, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFixtures(t, w, fixtures.FormatNDJSON)
	disk, _ := openFixtures(t, dir)
	mem, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	n, err := g.BlocksForEpochs(2)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		blk, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := disk.Append(blk); err != nil {
			t.Fatal(err)
		}
		if err := mem.Append(blk); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(stage string) {
		t.Helper()
		cfg := Config{DefaultPageSize: 25, MaxPageSize: 100, TxDefaultPageSize: 25, TxMaxPageSize: 100}
		hm, hd := New(cfg, mem), New(cfg, disk)
		for _, q := range []string{
			"/api/v2/games", "/api/v2/games?pagination.last=3&pagination.newestFirst=false",
			"/api/v2/snapshots?pagination.first=5", "/api/v2/core/keys/ethereum/rotations?pagination.first=5",
			"/transactions?first=40", "/transactions?last=5",
		} {
			if a, b := ask(hm, q), ask(hd, q); a != b {
				t.Fatalf("%s: GET %s\nfrom memory: %d %s %.300s\nfrom disk:   %d %s %.300s", stage, q, a.status, a.height, a.body, b.status, b.height, b.body)
			}
		}
	}
	if disk.Counts()[records.ListingGames] == len(w.Games) {
		t.Fatal("two epochs of blocks added no game: the test proves nothing")
	}
	compare("grown")
	disk.Reset()
	mem.Reset()
	if got := disk.Counts()[records.ListingTransactions]; got != w.TransactionCount() {
		t.Errorf("reset: %d transactions, want %d", got, w.TransactionCount())
	}
	compare("reset")
}

// TestDamagedFixtureBlockIsAnErrorAnswer damages one byte of a fixture file
// served from disk, keeping its size and time (an edit in place, a bit
// gone bad): a page that would serve a row of the damaged block is a 500
// error body naming the file and the block, every time it is asked, with a
// log line naming them; pages elsewhere are served as before.
func TestDamagedFixtureBlockIsAnErrorAnswer(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, fixtures.FormatNDJSON)
	clean, _ := openFixtures(t, dir) // builds and saves the index
	for _, name := range []string{"games.ndjson", "transactions.ndjson"} {
		path := filepath.Join(dir, name)
		st, _ := os.Stat(path)
		data, _ := os.ReadFile(path)
		data[30] ^= 0x20 // in the first row: the newest
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, st.ModTime(), st.ModTime())
	}
	damaged, info := openFixtures(t, dir)
	if info.Rebuilt != "" {
		t.Fatalf("the index was rebuilt: %s", info.Rebuilt)
	}
	var logs bytes.Buffer
	h := New(Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, damaged)
	good := New(Config{}, clean)
	for _, tc := range []struct {
		target, file string // file: the damaged file the page reads, "" for none
	}{
		{"/api/v2/games?pagination.first=3", "games.ndjson"},
		{"/api/v2/games?pagination.first=3", "games.ndjson"}, // again: still refused
		{"/api/v2/games?pagination.first=3&pagination.newestFirst=false", ""},
		{"/transactions?first=2", "transactions.ndjson"},
		{"/transactions?last=2", ""},
		{"/api/v2/snapshots?pagination.first=3", ""},
	} {
		logs.Reset()
		got := ask(h, tc.target)
		if tc.file == "" {
			if want := ask(good, tc.target); got != want {
				t.Errorf("%s: %d %.200s, want the page served as before", tc.target, got.status, got.body)
			}
			continue
		}
		var body struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Details []struct {
				Message string `json:"message"`
				Inner   string `json:"inner"`
			} `json:"details"`
		}
		if got.status != http.StatusInternalServerError || json.Unmarshal([]byte(got.body), &body) != nil || body.Code != 13 || len(body.Details) != 1 {
			t.Errorf("%s: %d %.200s, want a 500 error body", tc.target, got.status, got.body)
			continue
		}
		if want := "fixture file " + tc.file + ": block 0 (bytes 0 to 16384) does not match its checksum"; body.Details[0].Message != "fixture file damaged" || body.Details[0].Inner != want {
			t.Errorf("%s: details %+v, want %q", tc.target, body.Details, want)
		}
		if line := logs.String(); !strings.Contains(line, "file="+filepath.Join(dir, tc.file)+" block=0 ") || !strings.Contains(line, "level=ERROR") {
			t.Errorf("%s: logged %q, want a line naming the file and the block", tc.target, line)
		}
	}
}
