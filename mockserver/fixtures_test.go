package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators"
)

// writeFixtures writes w into a new directory in format.
func writeFixtures(t testing.TB, w *generators.World, format string) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := generators.WriteFixtures(context.Background(), dir, w, generators.WriteOptions{Format: format}); err != nil {
		t.Fatalf("write fixtures: %v", err)
	}
	return dir
}

// openFixtures opens dir from disk, closing the store when the test ends.
func openFixtures(t testing.TB, dir string) (*Store, FixtureInfo) {
	t.Helper()
	s, info, err := OpenFixtures(dir)
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
func memStore(t testing.TB, w *generators.World) *Store {
	t.Helper()
	s, err := NewStore(w)
	if err != nil {
		t.Fatalf("NewStore: %v", err)
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
func fixtureQueries(w *generators.World) []string {
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
	for _, format := range []string{generators.FormatNDJSON, generators.FormatJSON} {
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
func compareAnswers(t *testing.T, w *generators.World, a *Store, aName string, b *Store, bName string) {
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
	lazy, err := generators.Generate(generators.Options{Seed: eager.Seed, Scale: eager.Scale, Lazy: true})
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

// TestNewStoreRefusesDuplicateGames checks a world with two games of the
// same epoch and ID is refused, whatever else it holds.
func TestNewStoreRefusesDuplicateGames(t *testing.T) {
	w := copyWorld(genWorld(t))
	w.Games = append(w.Games, w.Games[len(w.Games)/2])
	s, err := NewStore(w)
	if err == nil {
		s.Close()
		t.Fatal("NewStore took two games with the same epoch and ID")
	}
	if g := w.Games[len(w.Games)-1]; !strings.Contains(err.Error(), fmt.Sprintf("two games with epoch %d and ID %s", g.Epoch, g.ID)) {
		t.Errorf("error %q, want it to name the game", err)
	}
}

// TestFixtureIndexIsSavedAndReused checks the index is saved beside the
// fixtures, loaded as saved the next time, and rebuilt when a fixture file
// changes, is cut, or the index is damaged.
func TestFixtureIndexIsSavedAndReused(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, generators.FormatNDJSON)
	_, info := openFixtures(t, dir)
	if info.Rebuilt != "missing" {
		t.Errorf("first open: rebuilt %q, want %q", info.Rebuilt, "missing")
	}
	index := filepath.Join(dir, IndexFile)
	saved, err := os.ReadFile(index)
	if err != nil {
		t.Fatalf("index not saved: %v", err)
	}
	if _, info = openFixtures(t, dir); info.Rebuilt != "" {
		t.Errorf("second open rebuilt the index: %s", info.Rebuilt)
	}

	cases := []struct {
		name   string
		damage func(t *testing.T)
		want   string
	}{
		{"index cut short", func(t *testing.T) { os.WriteFile(index, saved[:len(saved)/2], 0o644) }, "unreadable"},
		{"index not an index", func(t *testing.T) { os.WriteFile(index, []byte("hello"), 0o644) }, "unreadable"},
		{"index end mark gone", func(t *testing.T) { os.WriteFile(index, saved[:len(saved)-1], 0o644) }, "unreadable"},
		{"fixture file changed", func(t *testing.T) {
			p := filepath.Join(dir, "snapshots.ndjson")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, '\n'), 0o644)
		}, "stale: snapshots changed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.damage(t)
			st, info := openFixtures(t, dir)
			if !strings.HasPrefix(info.Rebuilt, tc.want) {
				t.Errorf("rebuilt %q, want it to begin %q", info.Rebuilt, tc.want)
			}
			if got := st.Counts()[generators.ListingTransactions]; got != w.TransactionCount() {
				t.Errorf("%d transactions, want %d", got, w.TransactionCount())
			}
			if _, info := openFixtures(t, dir); info.Rebuilt != "" {
				t.Errorf("the rebuilt index was not saved: the next open rebuilt it again (%s)", info.Rebuilt)
			}
			saved, _ = os.ReadFile(index)
		})
	}
}

// TestFixtureIndexSpotCheck checks an index that no longer matches its
// files' content (same sizes and times) is caught by the spot check, at
// either end of a listing.
func TestFixtureIndexSpotCheck(t *testing.T) {
	w := genWorld(t)
	for _, tc := range []struct {
		name  string
		swap  func(n int) int // the first of the two lines swapped
		found func(n int) int // the row the spot check names
	}{
		{"first two rows swapped", func(int) int { return 0 }, func(int) int { return 1 }},
		{"last two rows swapped", func(n int) int { return n - 2 }, func(n int) int { return n }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFixtures(t, w, generators.FormatNDJSON)
			openFixtures(t, dir)
			p := filepath.Join(dir, "networkparameters.ndjson")
			st, _ := os.Stat(p)
			data, _ := os.ReadFile(p)
			lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			i := tc.swap(len(lines))
			if len(lines[i]) == len(lines[i+1]) {
				t.Skip("the two parameters are the same length")
			}
			// Same size, same time, other keys.
			lines[i], lines[i+1] = lines[i+1], lines[i]
			if err := os.WriteFile(p, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(p, st.ModTime(), st.ModTime())
			_, info := openFixtures(t, dir)
			// The probe that finds it names the row, counted from 1: the
			// first, or the last.
			want := fmt.Sprintf("stale: %s row %d: ", generators.ListingNetworkParameters, tc.found(len(lines)))
			if !strings.HasPrefix(info.Rebuilt, want) {
				t.Errorf("rebuilt %q, want the spot check to find the index stale, beginning %q", info.Rebuilt, want)
			}
		})
	}
}

// TestFixturesWithEmptyListings serves fixtures whose listings are all
// empty, with the index built and then loaded (and spot checked).
func TestFixturesWithEmptyListings(t *testing.T) {
	dir := writeFixtures(t, emptyWorld(), generators.FormatNDJSON)
	for _, want := range []string{"missing", ""} {
		st, info := openFixtures(t, dir)
		if info.Rebuilt != want {
			t.Errorf("rebuilt %q, want %q", info.Rebuilt, want)
		}
		for l, n := range st.Counts() {
			if n != 0 {
				t.Errorf("%s: %d rows, want none", l, n)
			}
		}
	}
}

// TestFixtureStoreFacts checks a store served from fixtures takes the
// chain's facts from the manifest (a recorded manifest has no seed), and
// that Close unmaps the files it mapped.
func TestFixtureStoreFacts(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, generators.FormatNDJSON)
	st, _ := openFixtures(t, dir)
	if st.seed != w.Seed || st.scale != w.Scale || st.latestBlock != w.LatestBlock || st.latestEpoch != w.LatestEpoch {
		t.Errorf("seed %d, scale %v, block %d, epoch %d; want the world's %d, %v, %d, %d",
			st.seed, st.scale, st.latestBlock, st.latestEpoch, w.Seed, w.Scale, w.LatestBlock, w.LatestEpoch)
	}

	// Without a seed.
	m, err := generators.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Seed = nil
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, generators.ManifestFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ = openFixtures(t, dir); st.seed != 0 {
		t.Errorf("no seed in the manifest: seed %d, want 0", st.seed)
	}

	maps := func() int {
		b, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Skipf("no /proc/self/maps: %v", err)
		}
		return bytes.Count(b, []byte(dir+string(filepath.Separator)))
	}
	before := maps()
	s, _, err := OpenFixtures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := maps() - before; got != len(generators.Listings) {
		t.Errorf("%d fixture files mapped while open, want %d", got, len(generators.Listings))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := maps() - before; got != 0 {
		t.Errorf("%d fixture files still mapped after Close", got)
	}
}

// TestFixtureIndexFromRecordsEqualsFromFiles builds the index from the
// records as they are written (as harness generate does) and from the
// files, and wants the same bytes.
func TestFixtureIndexFromRecordsEqualsFromFiles(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, generators.FormatNDJSON)
	if err := BuildIndex(dir, nil); err != nil {
		t.Fatal(err)
	}
	fromFiles, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	// Read in batches of a few rows, the files give the same index.
	defer func(b int) { parseBatch = b }(parseBatch)
	parseBatch = 7
	if err := BuildIndex(dir, nil); err != nil {
		t.Fatal(err)
	}
	if batched, _ := os.ReadFile(filepath.Join(dir, IndexFile)); !bytes.Equal(batched, fromFiles) {
		t.Errorf("index read 7 rows at a time (%d bytes) differs from the index read at once (%d bytes)", len(batched), len(fromFiles))
	}

	b := NewIndexBuilder()
	for _, l := range generators.Listings {
		data, err := os.ReadFile(filepath.Join(dir, l+".ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		off := 0
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			node := bytes.TrimSuffix(line, []byte("\n"))
			if len(node) > 0 {
				rec, err := generators.ParseRecord(l, node)
				if err != nil {
					t.Fatal(err)
				}
				if err := b.Add(l, int64(off), len(node), rec); err != nil {
					t.Fatal(err)
				}
			}
			off += len(line)
		}
	}
	if err := BuildIndex(dir, b); err != nil {
		t.Fatal(err)
	}
	fromRecords, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	if !bytes.Equal(fromFiles, fromRecords) {
		t.Errorf("index from records (%d bytes) differs from index from files (%d bytes)", len(fromRecords), len(fromFiles))
	}
}

// TestSaveIndexCleansUp checks saving an index removes the temporary files
// an interrupted save left beside it and keeps no file open after.
func TestSaveIndexCleansUp(t *testing.T) {
	dir := writeFixtures(t, genWorld(t), generators.FormatNDJSON)
	stale := filepath.Join(dir, "."+IndexFile+".12345.tmp")
	if err := os.WriteFile(stale, []byte("half an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := BuildIndex(dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there (%v)", err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	for _, fd := range fds {
		if target, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); strings.HasPrefix(target, dir) {
			t.Errorf("file descriptor %s still open on %s", fd.Name(), target)
		}
	}
}

// TestFixturesIndexCannotBeSaved serves fixtures whose index cannot be
// saved beside them (here a directory stands in its place, which fails for
// root too): the index is built in a temporary file and the reason given.
func TestFixturesIndexCannotBeSaved(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, generators.FormatNDJSON)
	if err := os.MkdirAll(filepath.Join(dir, IndexFile, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, info := openFixtures(t, dir)
	if info.SaveErr == nil || info.Rebuilt == "" {
		t.Errorf("read-only directory: rebuilt %q, save error %v; want both", info.Rebuilt, info.SaveErr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "."+IndexFile+".*.tmp")); len(left) > 0 {
		t.Errorf("the failed save left %v", left)
	}
	if st.Counts()[generators.ListingGames] != len(w.Games) {
		t.Errorf("games %d, want %d", st.Counts()[generators.ListingGames], len(w.Games))
	}
}

// TestOpenFixturesErrors checks bad fixture directories are refused with
// the reason.
func TestOpenFixturesErrors(t *testing.T) {
	w := genWorld(t)
	cases := []struct {
		name      string
		setup     func(dir string)
		want      string
		serveOnly bool
	}{
		{"no manifest", func(dir string) { os.Remove(filepath.Join(dir, generators.ManifestFile)) }, "manifest.json", false},
		{"bad manifest", func(dir string) { os.WriteFile(filepath.Join(dir, generators.ManifestFile), []byte("{"), 0o644) }, "manifest", false},
		{"other version", func(dir string) {
			os.WriteFile(filepath.Join(dir, generators.ManifestFile), []byte(`{"formatVersion":2}`), 0o644)
		}, "formatVersion 2", false},
		{"file outside", func(dir string) {
			os.WriteFile(filepath.Join(dir, generators.ManifestFile), []byte(`{"formatVersion":1,"listings":{"games":{"file":"../x"}}}`), 0o644)
		}, "not a file name", false},
		{"file missing", func(dir string) { os.Remove(filepath.Join(dir, "games.ndjson")) }, "games.ndjson", false},
		{"bad row", func(dir string) {
			os.WriteFile(filepath.Join(dir, "snapshots.ndjson"), []byte("{\"blockHeight\":\"x\"}\n"), 0o644)
		}, "snapshots.ndjson: row 1", false},
		{"bad row further down", func(dir string) {
			p := filepath.Join(dir, "snapshots.ndjson")
			data, _ := os.ReadFile(p)
			lines := bytes.Split(data, []byte("\n"))
			lines[4] = []byte(`{"blockHeight":"x"}`)
			os.WriteFile(p, bytes.Join(lines, []byte("\n")), 0o644)
		}, "snapshots.ndjson: row 5 ", false},
		{"duplicate transaction", func(dir string) {
			p := filepath.Join(dir, "transactions.ndjson")
			data, _ := os.ReadFile(p)
			first := data[:bytes.IndexByte(data, '\n')+1]
			os.WriteFile(p, append(data, first...), 0o644)
		}, "two transactions", true},
		{"duplicate game", func(dir string) {
			p := filepath.Join(dir, "games.ndjson")
			data, _ := os.ReadFile(p)
			first := data[:bytes.IndexByte(data, '\n')+1]
			os.WriteFile(p, append(data, first...), 0o644)
		}, "two games with epoch", true},
		{"json without its array", func(dir string) {
			os.WriteFile(filepath.Join(dir, generators.ManifestFile), []byte(`{"formatVersion":1,"listings":{"games":{"file":"g.json"}}}`), 0o644)
			os.WriteFile(filepath.Join(dir, "g.json"), []byte(`{"games":{}}`), 0o644)
		}, `no field "edges"`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFixtures(t, w, generators.FormatNDJSON)
			tc.setup(dir)
			st, _, err := OpenFixtures(dir)
			if err == nil {
				st.Close()
				t.Fatalf("OpenFixtures succeeded; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			// BuildIndex (harness record) refuses the same directories,
			// except for what only serving checks: the rows' order.
			if err := BuildIndex(dir, nil); !tc.serveOnly && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("BuildIndex: error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestCursorAppendersMatchTheGenerators checks the cursors a page of nodes
// is given are the generators' own, for ordinary and extreme keys.
func TestCursorAppendersMatchTheGenerators(t *testing.T) {
	ids := []string{"", "a", strings.Repeat("f", 64), strings.Repeat("x", 200), `q"uote`, "ünï"}
	for _, n := range []uint64{0, 1, 99, 1 << 40, 1<<64 - 1} {
		for _, id := range ids {
			gk := generators.GameKey{Epoch: n, ID: id}
			if got := string(appendGameCursor([]byte("x"), gk)); got != "x"+gk.Cursor() {
				t.Errorf("game %v: %q, want %q", gk, got, "x"+gk.Cursor())
			}
			rk := generators.RotationKey{BlockHeight: n, NodeID: id}
			if got := string(appendRotationCursor(nil, rk)); got != rk.Cursor() {
				t.Errorf("rotation %v: %q, want %q", rk, got, rk.Cursor())
			}
		}
		sk := generators.SnapshotKey{BlockHeight: n}
		for _, key := range append(ids, "network.markPriceUpdateMaximumFrequency", "a<b>&c", "tab\tnew\nline", "back\\slash", "del\x7f", "\xff", "\u2028") {
			pk := generators.ParameterKey{Key: key}
			if got := string(appendParamCursor([]byte("x"), pk)); got != "x"+pk.Cursor() {
				t.Errorf("parameter %q: %q, want %q", key, got, "x"+pk.Cursor())
			}
		}
		if got := string(appendSnapshotCursor(nil, sk)); got != sk.Cursor() {
			t.Errorf("snapshot %v: %q, want %q", sk, got, sk.Cursor())
		}
	}
}

// TestScanNodes checks where the nodes of a fixture file are found: NDJSON
// lines, blank ones skipped and spaces around a node left out, the last
// with or without its newline; the nodes of a JSON response's edges, or its
// transactions; and what is wrong with a file, named by its row (from 1).
func TestScanNodes(t *testing.T) {
	const snaps = generators.ListingSnapshots
	tests := []struct {
		name    string
		listing string
		ndjson  bool
		data    string
		want    []string // the nodes found
		err     string
	}{
		{"ndjson", snaps, true, "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, ""},
		{"ndjson without its last newline", snaps, true, "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}, ""},
		{"ndjson with blank lines", snaps, true, "\n{\"a\":1}\n\n \r\n{\"b\":2}\n\n", []string{`{"a":1}`, `{"b":2}`}, ""},
		{"ndjson with spaces and CRLF", snaps, true, " \t{\"a\":1} \r\n{\"b\":2}\r\n", []string{`{"a":1}`, `{"b":2}`}, ""},
		{"empty ndjson", snaps, true, "", nil, ""},
		{"json edges", snaps, false, `{"coreSnapshots":{"edges":[{"cursor":"c1","node":{"a":1}},{"node":{"b":2}}]}}`,
			[]string{`{"a":1}`, `{"b":2}`}, ""},
		{"json transactions", generators.ListingTransactions, false, `{"transactions":[{"a":1}, {"b":2}]}`,
			[]string{`{"a":1}`, `{"b":2}`}, ""},
		{"json edge without its node", snaps, false, `{"coreSnapshots":{"edges":[{"node":{}},{"node":{}},{"cursor":"c"}]}}`,
			nil, "edge 3: no node"},
		{"json edge not an object", snaps, false, `{"coreSnapshots":{"edges":[{"node":{}},[]]}}`, nil, "edge 2: not an object"},
		{"json transaction cut", generators.ListingTransactions, false, `{"transactions":[{"a":1},{"b":`, nil, "row 2: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := scanNodes([]byte(tc.data), tc.listing, tc.ndjson, func(off, n int) {
				got = append(got, tc.data[off:off+n])
			})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("nodes %q, want %q", got, tc.want)
			}
		})
	}
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
	disk, _ := openFixtures(t, writeFixtures(t, dup, generators.FormatNDJSON))
	compareAnswers(t, w, want, "the world", disk, "the world with duplicates, from disk")
}

// TestTypeNumbers checks the store numbers up to 65,536 transaction types,
// the most its numbers hold, and refuses one more.
func TestTypeNumbers(t *testing.T) {
	s := newStore(0, 0)
	for i := 0; i < 1<<16; i++ {
		n, err := s.typeNum(fmt.Sprintf("type%d", i))
		if err != nil || int(n) != i {
			t.Fatalf("type %d: number %d, error %v", i, n, err)
		}
	}
	if n, err := s.typeNum("type7"); err != nil || n != 7 {
		t.Errorf("a type seen before: number %d, error %v; want 7", n, err)
	}
	if _, err := s.typeNum("one too many"); err == nil || !strings.Contains(err.Error(), "more than 65536 transaction types") {
		t.Errorf("the 65,537th type: error %v", err)
	}
}
