package mockserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
)

// handGames returns small games over epochs 1..epochs: five recurring game
// IDs, individual and team scope in every epoch, not every game in every
// epoch, so that ties of epoch are broken by game ID.
func handGames(epochs int) []records.Game {
	var out []records.Game
	for e := 1; e <= epochs; e++ {
		for k := range 5 {
			if (e+k)%4 == 0 {
				continue
			}
			id := hexID(fmt.Sprint("game", k))
			p := func(i int) string { return hexID(fmt.Sprint("party", (e+k+i)%9)) }
			if k%2 == 0 {
				out = append(out, individualGame(uint64(e), id, p(0), p(1)))
			} else {
				out = append(out, teamGame(uint64(e), id,
					teamPlay{hexID(fmt.Sprint("team", k)), []string{p(2)}},
					teamPlay{hexID(fmt.Sprint("team", k+1)), []string{p(3), p(4)}}))
			}
		}
	}
	return out
}

// pagingWorld is the generated world with small hand-made games (cheap to
// validate), key rotations that tie on height, and fewer transactions.
func pagingWorld(t testing.TB) *world.World {
	t.Helper()
	w := copyWorld(genWorld(t))
	w.Games = handGames(12)
	w.FirstEpoch, w.LatestEpoch = 1, 12
	mid := w.KeyRotations[len(w.KeyRotations)/2].BlockHeight
	for _, label := range []string{"tie-a", "tie-b", "tie-c"} {
		w.KeyRotations = append(w.KeyRotations, rotation(mid, hexID(label)))
	}
	w.Transactions = w.Transactions[:120]
	return w
}

// TestPagination checks every page request against the model, for each
// paged listing in both orders: first/after, last/before, cursors alone,
// first winning over last, cursors at and beyond the ends, cursors of keys
// that have no row, and the maximum page size.
func TestPagination(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	s := serve(t, Config{}, w)
	for _, l := range pagedListings {
		all := l.expected(w)
		for _, nf := range []*bool{nil, ptr(true), ptr(false)} {
			rows := l.inOrder(all, nf == nil || *nf)
			n := len(rows)
			at := func(i int) *rowKey { k := rows[i].key; return &k }
			tests := []pageCase{
				{"no parameters", pageReq{}},
				{"first 1", pageReq{first: 1}},
				{"first 5", pageReq{first: 5}},
				{"first all", pageReq{first: n}},
				{"first beyond the end", pageReq{first: n + 7}},
				{"first at the maximum page size", pageReq{first: 5000}},
				{"first 3 after the first row", pageReq{first: 3, after: at(0)}},
				{"first 4 after a middle row", pageReq{first: 4, after: at(n / 2)}},
				{"first 5 after the second to last row", pageReq{first: 5, after: at(n - 2)}},
				{"first 5 after the last row: empty page", pageReq{first: 5, after: at(n - 1)}},
				{"last 1", pageReq{last: 1}},
				{"last 5", pageReq{last: 5}},
				{"last beyond the start", pageReq{last: n + 7}},
				{"last at the maximum page size", pageReq{last: 5000}},
				{"last 3 before the last row", pageReq{last: 3, before: at(n - 1)}},
				{"last 4 before a middle row", pageReq{last: 4, before: at(n / 2)}},
				{"last 5 before the second row", pageReq{last: 5, before: at(1)}},
				{"last 5 before the first row: empty page", pageReq{last: 5, before: at(0)}},
				{"after alone pages forwards with the default size", pageReq{after: at(n / 3)}},
				{"before alone pages backwards with the default size", pageReq{before: at(2 * n / 3)}},
				{"first wins over last", pageReq{first: 3, last: 2}},
				{"first wins over last and before", pageReq{first: 3, last: 2, before: at(n - 1)}},
				{"first with after wins over last", pageReq{first: 2, last: 4, after: at(n / 2)}},
				{"first ignores before", pageReq{first: 3, before: at(n / 2)}},
				{"last ignores after", pageReq{last: 3, after: at(n / 2)}},
			}
			for i, k := range l.absent(all) {
				tests = append(tests,
					pageCase{fmt.Sprintf("first 3 after absent key %d", i), pageReq{first: 3, after: &k}},
					pageCase{fmt.Sprintf("last 3 before absent key %d", i), pageReq{last: 3, before: &k}},
				)
			}
			for _, tc := range tests {
				tc.p.newestFirst = nf
				name := fmt.Sprintf("%s/newestFirst=%v/%s", l.name, fmtBool(nf), tc.name)
				t.Run(name, func(t *testing.T) {
					start, end := modelPage(rows, l.cmpIn(tc.p.nf()), tc.p, 1000)
					r := s.get(t, l.path, tc.p.query(l).Encode())
					checkPage(t, r, l, rows, start, end)
				})
			}
		}
	}
}

// pageCase is a named page request.
type pageCase struct {
	name string
	p    pageReq
}

// errCase is a named query and the error it must get.
type errCase struct {
	name  string
	query string
	want  wantErr
}

func fmtBool(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}

// TestOrder checks each listing's natural order directly on the records,
// without the model's sort: newest first by default, the exact reverse with
// newestFirst=false, network parameters always A to Z.
func TestOrder(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	s := serve(t, Config{}, w)
	type node struct {
		Epoch       string `json:"epoch"`
		ID          string `json:"id"`
		BlockHeight string `json:"blockHeight"`
		NodeID      string `json:"nodeId"`
		Key         string `json:"key"`
	}
	// before reports whether a comes strictly before b in newest-first order.
	before := map[string]func(a, b node) bool{
		"games": func(a, b node) bool {
			return num(a.Epoch) > num(b.Epoch) || a.Epoch == b.Epoch && a.ID < b.ID
		},
		"snapshots": func(a, b node) bool { return num(a.BlockHeight) > num(b.BlockHeight) },
		"key rotations": func(a, b node) bool {
			return num(a.BlockHeight) > num(b.BlockHeight) || a.BlockHeight == b.BlockHeight && a.NodeID < b.NodeID
		},
		"network parameters": func(a, b node) bool { return a.Key < b.Key },
	}
	for _, l := range pagedListings {
		for _, q := range []string{"", "pagination.newestFirst=true", "pagination.newestFirst=false"} {
			t.Run(l.name+"/"+q, func(t *testing.T) {
				r := s.get(t, l.path, q)
				p := r.page(t, l)
				if len(p.Edges) < 10 {
					t.Fatalf("%s: only %d rows", r, len(p.Edges))
				}
				reversed := q == "pagination.newestFirst=false" && !l.fixed
				for i := 1; i < len(p.Edges); i++ {
					var a, b node
					json.Unmarshal(p.Edges[i-1].Node, &a)
					json.Unmarshal(p.Edges[i].Node, &b)
					if reversed {
						a, b = b, a
					}
					if !before[l.name](a, b) {
						t.Fatalf("%s: rows %d and %d out of order: %s then %s", r, i-1, i, p.Edges[i-1].Node, p.Edges[i].Node)
					}
				}
			})
		}
	}
}

func num(s string) uint64 {
	var n uint64
	fmt.Sscan(s, &n)
	return n
}

// TestPaginationErrors checks the conflict and bad-value errors of every
// paged listing.
func TestPaginationErrors(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	s := serve(t, Config{}, w)
	// Cursors no listing (or not this listing) could have issued.
	foreign := map[string][]string{
		"games": {
			snapshotsListing.cursor(rowKey{n: 5}),
			rotationsListing.cursor(rowKey{5, hexID("n")}),
			b64(`{"epoch":5,"id":"` + hexID("g") + `"}`),
			b64(`{"epoch":"5","id":"xyz"}`),
			b64(`{"epoch":"-5","id":"` + hexID("g") + `"}`),
			b64(`{"epoch":"05","id":"` + hexID("g") + `"}`),
			b64(`{"epoch":"5","id":"` + hexID("g") + `","extra":"1"}`),
			b64(`{"epoch":"5"}`),
		},
		"snapshots": {
			gamesListing.cursor(rowKey{5, hexID("g")}),
			rotationsListing.cursor(rowKey{5, hexID("n")}),
			paramsListing.cursor(rowKey{s: "a.b"}),
			b64(`{"blockHeight":"abc"}`),
			b64(`{"blockHeight":"99999999999999999999999"}`),
			b64(`{"blockHeight":100}`),
		},
		"key rotations": {
			snapshotsListing.cursor(rowKey{n: 5}),
			gamesListing.cursor(rowKey{5, hexID("g")}),
			b64(`{"blockHeight":"5","nodeId":"ABC"}`),
			b64(`{"blockHeight":"5","nodeId":"` + strings.ToUpper(hexID("n")) + `"}`),
		},
		"network parameters": {
			snapshotsListing.cursor(rowKey{n: 5}),
			gamesListing.cursor(rowKey{5, hexID("g")}),
			b64(`{"key":""}`),
			b64(`{"key":5}`),
		},
	}
	malformed := []string{
		"!!!", "not a cursor", "e30", // e30 is "{}" without padding
		b64("{}"), b64("null"), b64("[]"), b64(`"x"`), b64("{"), b64(`{"a":"b"} {"c":"d"}`),
	}
	for _, l := range pagedListings {
		rows := l.expected(w)
		c0, c1 := rows[0].cursor, rows[1].cursor
		tests := []errCase{
			{"before with after", "pagination.after=" + url.QueryEscape(c0) + "&pagination.before=" + url.QueryEscape(c1), errPagination},
			{"before with after and first", "pagination.first=2&pagination.after=" + url.QueryEscape(c0) + "&pagination.before=" + url.QueryEscape(c1), errPagination},
			{"first 0", "pagination.first=0", errPagination.with("pagination limit must be in range 0-5000")},
			{"first -1", "pagination.first=-1", errPagination},
			{"first above the maximum", "pagination.first=5001", errPagination},
			{"last 0", "pagination.last=0", errPagination},
			{"last -3", "pagination.last=-3", errPagination},
			{"last above the maximum", "pagination.last=5001", errPagination},
			{"first not a number", "pagination.first=abc", errParse.with("first")},
			{"first a fraction", "pagination.first=1.5", errParse},
			{"first beyond int32", "pagination.first=2147483648", errParse},
			{"first empty", "pagination.first=", errParse},
			{"last not a number", "pagination.last=x", errParse.with("last")},
			{"newestFirst not a boolean", "pagination.newestFirst=yes", errParse.with("newestFirst")},
			{"newestFirst in capitals", "pagination.newestFirst=TRUE", errParse},
			{"newestFirst t", "pagination.newestFirst=t", errParse},
			{"newestFirst empty", "pagination.newestFirst=", errParse},
			{"newest_first not a boolean", "pagination.newest_first=2", errParse},
		}
		for i, c := range append(slices.Clone(malformed), foreign[l.name]...) {
			c := url.QueryEscape(c)
			tests = append(tests,
				errCase{fmt.Sprintf("bad after %d", i), "pagination.after=" + c, errPagination},
				errCase{fmt.Sprintf("bad before %d", i), "pagination.before=" + c, errPagination},
				errCase{fmt.Sprintf("first with bad after %d", i), "pagination.first=2&pagination.after=" + c, errPagination},
				errCase{fmt.Sprintf("first with bad before %d, which it ignores", i), "pagination.first=2&pagination.before=" + c, errPagination},
				errCase{fmt.Sprintf("last with bad after %d, which it ignores", i), "pagination.last=2&pagination.after=" + c, errPagination},
			)
		}
		// An unpadded or URL-safe cursor is not one the listing issued.
		raw, _ := base64.StdEncoding.DecodeString(c0)
		for name, c := range map[string]string{
			"unpadded": base64.RawStdEncoding.EncodeToString(raw),
			"url-safe": base64.URLEncoding.EncodeToString(append(raw, 0xfb, 0xff)),
		} {
			if c == c0 {
				continue // the encodings agree for this cursor
			}
			tests = append(tests, errCase{name + " cursor", "pagination.after=" + url.QueryEscape(c), errPagination})
		}
		for _, tc := range tests {
			t.Run(l.name+"/"+tc.name, func(t *testing.T) {
				checkError(t, s.get(t, l.path, tc.query), tc.want)
			})
		}
	}
}

// TestPaginationStrict checks --strict turns first with last, first with
// before and last with after into 400s, and leaves the rest as it was.
func TestPaginationStrict(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	s := serve(t, Config{Strict: true}, w)
	for _, l := range pagedListings {
		rows := l.expected(w)
		n := len(rows)
		at := func(i int) *rowKey { k := rows[i].key; return &k }
		errors := []pageCase{
			{"first with last", pageReq{first: 2, last: 2}},
			{"first with before", pageReq{first: 2, before: at(n / 2)}},
			{"last with after", pageReq{last: 2, after: at(n / 2)}},
			{"first with last and after", pageReq{first: 2, last: 2, after: at(1)}},
		}
		for _, tc := range errors {
			t.Run(l.name+"/400 "+tc.name, func(t *testing.T) {
				checkError(t, s.get(t, l.path, tc.p.query(l).Encode()), errPagination)
			})
		}
		t.Run(l.name+"/400 before with after", func(t *testing.T) {
			checkError(t, s.get(t, l.path, pageReq{after: at(1), before: at(3)}.query(l).Encode()), errPagination)
		})
		ok := []pageCase{
			{"first with after", pageReq{first: 3, after: at(2)}},
			{"last with before", pageReq{last: 3, before: at(n - 2)}},
			{"after alone", pageReq{after: at(2)}},
			{"before alone", pageReq{before: at(n - 2)}},
			{"first alone, oldest first", pageReq{first: 4, newestFirst: ptr(false)}},
		}
		for _, tc := range ok {
			t.Run(l.name+"/200 "+tc.name, func(t *testing.T) {
				want := l.inOrder(rows, tc.p.nf())
				start, end := modelPage(want, l.cmpIn(tc.p.nf()), tc.p, 1000)
				checkPage(t, s.get(t, l.path, tc.p.query(l).Encode()), l, want, start, end)
			})
		}
	}
}

// TestPageSizes checks the default and maximum page sizes, built in and set
// by Config, against a listing longer than the default.
func TestPageSizes(t *testing.T) {
	t.Parallel()
	w := emptyWorld()
	for h := uint64(1); h <= 1200; h++ {
		w.Snapshots = append(w.Snapshots, snapshot(h*10))
	}
	rows := snapshotsListing.expected(w)
	mid := &rows[600].key
	tests := []struct {
		name  string
		cfg   Config
		p     pageReq
		start int
		end   int
		err   bool
	}{
		{name: "default page size is 1000", p: pageReq{}, start: 0, end: 1000},
		{name: "after alone takes the default size", p: pageReq{after: mid}, start: 601, end: 1200},
		{name: "before alone takes the default size", p: pageReq{before: mid}, start: 0, end: 600},
		{name: "first at the maximum 5000", p: pageReq{first: 5000}, start: 0, end: 1200},
		{name: "first above the maximum", p: pageReq{first: 5001}, err: true},
		{name: "last above the maximum", p: pageReq{last: 5001}, err: true},
		{name: "configured default", cfg: Config{DefaultPageSize: 7, MaxPageSize: 20}, p: pageReq{}, start: 0, end: 7},
		{name: "configured default, after alone", cfg: Config{DefaultPageSize: 7, MaxPageSize: 20}, p: pageReq{after: mid}, start: 601, end: 608},
		{name: "configured default, before alone", cfg: Config{DefaultPageSize: 7, MaxPageSize: 20}, p: pageReq{before: mid}, start: 593, end: 600},
		{name: "configured maximum", cfg: Config{DefaultPageSize: 7, MaxPageSize: 20}, p: pageReq{last: 20}, start: 1180, end: 1200},
		{name: "above the configured maximum, first", cfg: Config{DefaultPageSize: 7, MaxPageSize: 20}, p: pageReq{first: 21}, err: true},
		{name: "above the configured maximum, last", cfg: Config{DefaultPageSize: 7, MaxPageSize: 20}, p: pageReq{last: 21}, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, tc.cfg, w)
			r := s.get(t, snapshotsListing.path, tc.p.query(snapshotsListing).Encode())
			if tc.err {
				checkError(t, r, errPagination)
				return
			}
			checkPage(t, r, snapshotsListing, rows, tc.start, tc.end)
		})
	}
}

// TestEmptyListings checks pages of listings with no rows: empty edges,
// empty cursors, no next or previous page.
func TestEmptyListings(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, emptyWorld())
	for _, l := range pagedListings {
		k := rowKey{5, hexID("k")}
		if l == paramsListing {
			k = rowKey{s: "a.b"}
		}
		for _, p := range []pageReq{{}, {first: 5}, {last: 5}, {newestFirst: ptr(false)}, {first: 2, after: &k}, {last: 2, before: &k}, {after: &k}, {before: &k}} {
			t.Run(fmt.Sprintf("%s/%s", l.name, p.query(l).Encode()), func(t *testing.T) {
				r := s.get(t, l.path, p.query(l).Encode())
				checkPage(t, r, l, nil, 0, 0)
				if !strings.Contains(string(r.body), `"edges":[]`) {
					t.Errorf("%s: edges is not an empty array: %s", r, r.body)
				}
			})
		}
	}
	t.Run("transactions", func(t *testing.T) {
		for _, q := range []string{"", "first=3", "last=3", "before=5.0", "after=5.0", "after=1.0&before=9.0"} {
			r := s.get(t, "/transactions", q)
			if txs := r.txPage(t); len(txs) != 0 || !strings.Contains(string(r.body), `"transactions":[]`) {
				t.Errorf("%s: %s, want an empty array", r, r.body)
			}
		}
	})
}

// TestCursors checks the cursor rules: each edge's cursor is base64
// (standard, padded) of a JSON object holding exactly its row's key, and the
// same row has the same cursor whatever the order, page size, filters or
// server.
func TestCursors(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	a, b := serve(t, Config{}, w), serve(t, Config{DefaultPageSize: 3}, w)
	fields := map[string][]string{
		"games": {"epoch", "id"}, "snapshots": {"blockHeight"},
		"key rotations": {"blockHeight", "nodeId"}, "network parameters": {"key"},
	}
	for _, l := range pagedListings {
		t.Run(l.name+"/format", func(t *testing.T) {
			r := a.get(t, l.path, "pagination.first=5000")
			for _, e := range r.page(t, l).Edges {
				raw, err := base64.StdEncoding.Strict().DecodeString(e.Cursor)
				if err != nil {
					t.Fatalf("%s: cursor %q is not padded standard base64: %v", r, e.Cursor, err)
				}
				var key, node map[string]any
				if err := json.Unmarshal(raw, &key); err != nil {
					t.Fatalf("%s: cursor %q holds %q, not a JSON object", r, e.Cursor, raw)
				}
				json.Unmarshal(e.Node, &node)
				if len(key) != len(fields[l.name]) {
					t.Fatalf("%s: cursor holds %s, want exactly the fields %v", r, raw, fields[l.name])
				}
				for _, f := range fields[l.name] {
					if v, ok := key[f].(string); !ok || v != node[f] {
						t.Fatalf("%s: cursor holds %s, node %s: field %s differs", r, raw, e.Node, f)
					}
				}
			}
		})
		t.Run(l.name+"/stable", func(t *testing.T) {
			want := map[string]string{} // cursor -> node
			for _, e := range a.get(t, l.path, "pagination.first=5000").page(t, l).Edges {
				want[e.Cursor] = compactJSON(e.Node)
			}
			seen := 0
			for _, q := range []string{"pagination.newestFirst=false&pagination.first=5000", "pagination.last=4", ""} {
				r := b.get(t, l.path, q)
				for _, e := range r.page(t, l).Edges {
					seen++
					if node, ok := want[e.Cursor]; !ok || node != compactJSON(e.Node) {
						t.Fatalf("%s: cursor %q names %s, but on another server and request %s", r, e.Cursor, e.Node, node)
					}
				}
			}
			if seen < len(want) {
				t.Fatalf("saw %d rows, want at least %d", seen, len(want))
			}
		})
	}
	t.Run("filters do not change cursors", func(t *testing.T) {
		all := map[string]string{}
		for _, e := range a.get(t, gamesListing.path, "pagination.first=5000").page(t, gamesListing).Edges {
			all[e.Cursor] = compactJSON(e.Node)
		}
		rot := map[string]string{}
		for _, e := range a.get(t, rotationsListing.path, "pagination.first=5000").page(t, rotationsListing).Edges {
			rot[e.Cursor] = compactJSON(e.Node)
		}
		checks := []struct {
			l     *listing
			query string
			all   map[string]string
		}{
			{gamesListing, "entityScope=ENTITY_SCOPE_TEAMS", all},
			{gamesListing, "partyId=" + hexID("party3"), all},
			{gamesListing, "gameId=" + hexID("game2") + "&pagination.first=2", all},
			{rotationsListing, "nodeId=" + hexID("tie-b"), rot},
			{rotationsListing, "nodeId=" + w.KeyRotations[0].NodeID, rot},
		}
		for _, c := range checks {
			r := a.get(t, c.l.path, c.query)
			p := r.page(t, c.l)
			if len(p.Edges) == 0 {
				t.Fatalf("%s: no rows", r)
			}
			for _, e := range p.Edges {
				if node, ok := c.all[e.Cursor]; !ok || node != compactJSON(e.Node) {
					t.Fatalf("%s: cursor %q names %s, unfiltered it names %s", r, e.Cursor, e.Node, node)
				}
			}
		}
	})
}
