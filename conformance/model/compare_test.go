package model

import (
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// page makes an answer of rows with flags and the edges' own cursors.
func page(rows []Row, next, prev bool) *Page {
	p := &Page{Status: 200, Rows: rows, HasNext: next, HasPrev: prev}
	if len(rows) > 0 {
		p.StartCursor, p.EndCursor = rows[0].Cursor, rows[len(rows)-1].Cursor
	}
	return p
}

func aspects(j Judged) map[Aspect]Level {
	out := map[Aspect]Level{}
	for _, d := range j.Differences {
		out[d.Aspect] = d.Level
	}
	return out
}

func TestCompare(t *testing.T) {
	rows := snaps(9, 8, 7)
	want := &Expected{Status: 200, Level: Must, Known: true, Rows: rows[:2], HasNext: True, HasPrev: False}
	for _, tc := range []struct {
		name string
		got  *Page
		want map[Aspect]Level
	}{
		{"the same", page(rows[:2], true, false), map[Aspect]Level{}},
		{"a row short", page(rows[:1], true, false), map[Aspect]Level{AspectRows: Must, AspectSize: Must}},
		{"another row", page([]Row{rows[0], rows[2]}, true, false), map[Aspect]Level{AspectRows: Must}},
		{"out of order", page([]Row{rows[1], rows[0]}, true, false), map[Aspect]Level{AspectRows: Must}},
		{"hasNext", page(rows[:2], false, false), map[Aspect]Level{AspectNext: Must}},
		{"hasPrev", page(rows[:2], true, true), map[Aspect]Level{AspectPrev: Must}},
		{"status", &Page{Status: 500}, map[Aspect]Level{AspectStatus: Must}},
		{"cursors", func() *Page { p := page(rows[:2], true, false); p.EndCursor = "x"; return p }(), map[Aspect]Level{AspectCursors: Must}},
		{"start cursor", func() *Page { p := page(rows[:2], true, false); p.StartCursor = "x"; return p }(), map[Aspect]Level{AspectCursors: Must}},
		{"a row's own cursor", page([]Row{rows[0], {Key: rows[1].Key, Cursor: "other"}}, true, false), map[Aspect]Level{AspectCursors: Should}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := Compare(Snapshots, want, tc.got, nil, false)
			if got := aspects(j); !mapsEqual(got, tc.want) {
				t.Errorf("differences %v, want %v: %+v", got, tc.want, j.Differences)
			}
			for _, d := range j.Differences {
				if d.Detail == "" {
					t.Errorf("%s: no detail", d.Aspect)
				}
			}
		})
	}
}

func mapsEqual(a, b map[Aspect]Level) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestCompareJudgesAtTheirLevels(t *testing.T) {
	rows := snaps(9, 8)
	want := &Expected{Status: 200, Level: Must, Known: true, Rows: rows, HasNext: False, HasPrev: Unknown}
	j := Compare(Snapshots, want, page(rows, false, true), nil, false)
	got := map[Aspect][]Level{}
	for _, a := range j.Aspects {
		got[a.Aspect] = append(got[a.Aspect], a.Level)
	}
	wantJ := map[Aspect][]Level{AspectStatus: {Must}, AspectSize: {Must}, AspectRows: {Must}, AspectNext: {Must}, AspectCursors: {Must, Should}}
	for a, lv := range wantJ {
		if !slices.Equal(got[a], lv) {
			t.Errorf("%s judged at %v, want %v", a, got[a], lv)
		}
	}
	if _, ok := got[AspectPrev]; ok {
		t.Error("an unknown flag was judged")
	}
	// An empty page's flags are behaviour.md's.
	empty := &Expected{Status: 200, Level: Must, Known: true, HasNext: False, HasPrev: True}
	j = Compare(Snapshots, empty, page(nil, true, true), nil, false)
	if d := aspects(j); d[AspectNext] != Should || len(d) != 1 {
		t.Errorf("an empty page's wrong hasNextPage: %v", d)
	}
	// A SHOULD query makes every aspect SHOULD.
	soft := &Expected{Status: 200, Level: Should, Known: true, Rows: rows}
	if d := aspects(Compare(Snapshots, soft, page(rows[:1], false, false), nil, false)); d[AspectRows] != Should || d[AspectSize] != Should {
		t.Errorf("a SHOULD query's differences: %v", d)
	}
}

func TestCompareTies(t *testing.T) {
	rows := []Row{{Key: Key{9, "a", 0}, Cursor: "1"}, {Key: Key{9, "b", 0}, Cursor: "2"}, {Key: Key{8, "a", 0}, Cursor: "3"}}
	swapped := []Row{rows[1], rows[0], rows[2]}
	tx := txRows("9.1 A p", "9.0 A p", "8.0 A p")
	params := []Row{{Key: Key{Str: "a"}, Cursor: "1"}, {Key: Key{Str: "b"}, Cursor: "2"}}
	for _, tc := range []struct {
		name  string
		l     Listing
		want  []Row
		loose bool
		asc   bool
		got   []Row
		diffs map[Aspect]Level
	}{
		{"games in the order learned", Games, rows, false, false, rows, map[Aspect]Level{}},
		{"games out of the order learned", Games, rows, false, false, swapped, map[Aspect]Level{AspectRows: Must}},
		{"games in another order learned", Games, swapped, false, false, swapped, map[Aspect]Level{AspectTies: Should}},
		{"games in an order not learned", Games, rows, true, false, swapped, map[Aspect]Level{AspectTies: Should}},
		{"games oldest first, reversed", Games, []Row{rows[2], rows[1], rows[0]}, false, true, []Row{rows[2], rows[1], rows[0]}, map[Aspect]Level{}},
		{"games oldest first, not reversed", Games, []Row{rows[2], rows[0], rows[1]}, false, true, []Row{rows[2], rows[0], rows[1]}, map[Aspect]Level{AspectTies: Should}},
		{"games loose, another row", Games, rows, true, false, []Row{rows[1], rows[1], rows[2]}, map[Aspect]Level{AspectRows: Must}},
		{"snapshots have no ties", Snapshots, rows, false, false, swapped, map[Aspect]Level{AspectRows: Must}},
		{"transactions in another order learned", Transactions, []Row{tx[1], tx[0], tx[2]}, false, false, []Row{tx[1], tx[0], tx[2]}, map[Aspect]Level{AspectTies: Should}},
		{"transactions out of order", Transactions, tx, false, false, []Row{tx[2], tx[0], tx[1]}, map[Aspect]Level{AspectRows: Must}},
		{"parameters in key order", Parameters, params, false, false, params, map[Aspect]Level{}},
		{"parameters in key order, oldest first", Parameters, params, false, true, params, map[Aspect]Level{}},
		{"parameters in another order learned", Parameters, []Row{params[1], params[0]}, false, true, []Row{params[1], params[0]}, map[Aspect]Level{AspectTies: Should}},
	} {
		want := &Expected{Status: 200, Level: Must, Known: true, Rows: tc.want, LooseTies: tc.loose, Asc: tc.asc}
		got := &Page{Status: 200, Rows: tc.got}
		if tc.l.paged() {
			got = page(tc.got, false, false)
		}
		j := Compare(tc.l, want, got, nil, false)
		if d := aspects(j); !mapsEqual(d, tc.diffs) {
			t.Errorf("%s: %v, want %v: %+v", tc.name, d, tc.diffs, j.Differences)
		}
		for _, d := range j.Differences {
			if d.Aspect == AspectTies && !strings.Contains(d.Detail, "docs/behaviour.md") {
				t.Errorf("%s: %s", tc.name, d.Detail)
			}
		}
	}
	j := Compare(Transactions, &Expected{Status: 200, Level: Must, Known: true, Rows: tx}, &Page{Status: 200, Rows: tx}, nil, false)
	for _, a := range j.Aspects {
		if a.Aspect == AspectNext || a.Aspect == AspectCursors {
			t.Errorf("transactions have no %s", a.Aspect)
		}
	}
}

func TestCompareContent(t *testing.T) {
	rows := snaps(3, 2, 1)
	for i := range rows {
		rows[i].Digest = uint64(i + 1)
	}
	want := &Expected{Status: 200, Level: Must, Known: true, Rows: rows, HasNext: False, HasPrev: False}
	for _, tc := range []struct {
		name   string
		digest []uint64
		detail string
	}{
		{"the same", []uint64{1, 2, 3}, ""},
		{"unknown", []uint64{1, 0, 3}, ""},
		{"another", []uint64{1, 5, 3}, "row 2: 2: content differs"},
	} {
		got := slices.Clone(rows)
		for i := range got {
			got[i].Digest = tc.digest[i]
		}
		j := Compare(Snapshots, want, page(got, false, false), nil, false)
		switch {
		case tc.detail == "" && len(j.Differences) > 0:
			t.Errorf("%s: %+v", tc.name, j.Differences)
		case tc.detail != "" && (len(j.Differences) != 1 || j.Differences[0].Aspect != AspectRows || !strings.HasPrefix(j.Differences[0].Detail, tc.detail)):
			t.Errorf("%s: %+v, want rows: %s", tc.name, j.Differences, tc.detail)
		}
	}
	// A model without digests (0) judges no content.
	if j := Compare(Snapshots, &Expected{Status: 200, Known: true, Rows: snaps(3)}, page(rows[:1], false, false), nil, false); len(j.Differences) != 0 {
		t.Errorf("%+v", j.Differences)
	}
}

func TestCompareRefusalsAndGrowth(t *testing.T) {
	refuse := (&Expected{Status: 200}).refuse("first with before", Must)
	for status, differs := range map[int]bool{400: false, 404: false, 499: false, 200: true, 500: true, 399: true} {
		d := aspects(Compare(Transactions, refuse, &Page{Status: status}, nil, false))
		if (len(d) > 0) != differs {
			t.Errorf("want a refusal, got %d: differences %v", status, d)
		}
	}
	unknown := &Expected{Status: 200}
	if j := Compare(Snapshots, unknown, &Page{Status: 500}, nil, false); len(j.Aspects) != 0 {
		t.Errorf("an unknown answer was judged: %v", j.Aspects)
	}
	rows := snaps(9, 8)
	vol := &Expected{Status: 200, Known: true, Rows: rows, Volatile: true, HasNext: False, HasPrev: False}
	if j := Compare(Snapshots, vol, page(snaps(10, 9), true, false), nil, true); len(j.Aspects) != 0 {
		t.Errorf("a volatile answer judged after growth: %v", j.Aspects)
	}
	if j := Compare(Snapshots, vol, page(snaps(10, 9), true, false), nil, false); len(j.Differences) == 0 {
		t.Error("a volatile answer that differs, without growth, passed")
	}
	// Rows newer than the model's newest are left out.
	pinned := &Expected{Status: 200, Known: true, Rows: rows}
	newest := Key{Num: 9}
	if d := aspects(Compare(Transactions, pinned, &Page{Status: 200, Rows: snaps(11, 10, 9, 8)}, &newest, false)); len(d) != 0 {
		t.Errorf("new rows counted: %v", d)
	}
	if d := aspects(Compare(Transactions, pinned, &Page{Status: 200, Rows: snaps(11, 10, 9, 8)}, nil, false)); len(d) == 0 {
		t.Error("without a pin, extra rows passed")
	}
}

func TestFirstDifference(t *testing.T) {
	k := func(ns ...uint64) []Key {
		var out []Key
		for _, n := range ns {
			out = append(out, Key{Num: n})
		}
		return out
	}
	for _, tc := range []struct {
		w, g []Key
		want string
	}{
		{k(3, 2), k(3, 2), ""},
		{k(3, 2), k(3), "row 2: want 2, got no further row (1 rows in all, want 2)"},
		{k(3), k(3, 2), "row 2: want no further row, got 2 (2 rows in all, want 1)"},
		{k(3, 2), k(3, 1), "row 2: want 2, got 1"},
		{nil, nil, ""},
	} {
		if got := firstDifference(tc.w, tc.g); got != tc.want {
			t.Errorf("firstDifference(%v, %v) = %q, want %q", tc.w, tc.g, got, tc.want)
		}
	}
	var rows []Row
	for _, k := range []Key{{1, "b", 0}, {1, "a", 0}, {0, "c", 2}, {0, "c", 1}, {0, "a", 9}, {1, "a", 0}} {
		rows = append(rows, Row{Key: k})
	}
	rows[5].Digest = 7 // a second row of one key keeps its place after the first
	st := sortRowTies(rows)
	want := []Key{{1, "a", 0}, {1, "b", 0}, {0, "a", 9}, {0, "c", 1}, {0, "c", 2}, {1, "a", 0}}
	if !slices.Equal(keys(st), want) || st[5].Digest != 7 || rows[0].Key.Str != "b" {
		t.Errorf("sortRowTies = %v (the rows given must not change)", st)
	}
}

func TestAspects(t *testing.T) {
	for l, want := range map[Listing]int{Games: 7, Snapshots: 6, Rotations: 7, Parameters: 7, Transactions: 4} {
		if got := len(l.Aspects()); got != want {
			t.Errorf("%s: %d aspects, want %d", l, got, want)
		}
	}
}

func TestShrink(t *testing.T) {
	// The deployment differs whenever pagination.first is 3 or more and
	// nodeId is given.
	differs := func(q url.Values) (Difference, bool) {
		n, _ := strconv.Atoi(q.Get(pFirst))
		if n >= 3 && q.Has("nodeId") {
			return Difference{Aspect: AspectRows, Detail: "rows " + q.Get(pFirst)}, true
		}
		if q.Has("other") {
			return Difference{Aspect: AspectSize}, true
		}
		return Difference{}, false
	}
	start := q(pFirst, "40", "nodeId", "n", pNewest, "false", "gameId", "g", "other", "x")
	got, d := Shrink(start, Difference{Aspect: AspectRows}, differs)
	if Canonical(got) != "nodeId=n&pagination.first=3" || d.Detail != "rows 3" {
		t.Errorf("shrunk to %s (%s)", Canonical(got), d.Detail)
	}
	// Repeated values are cut to one.
	many := func(q url.Values) (Difference, bool) {
		return Difference{Aspect: AspectRows}, len(q["cmdTypes"]) > 0 && q.Has("first")
	}
	got, _ = Shrink(q("cmdTypes", "A", "cmdTypes", "B", "first", "9"), Difference{Aspect: AspectRows}, many)
	if Canonical(got) != "cmdTypes=A&first=1" {
		t.Errorf("shrunk to %s", Canonical(got))
	}
	// Counts are halved, not only cut by one: a count far above where the
	// difference starts comes near it within the budget.
	from300 := func(q url.Values) (Difference, bool) {
		n, _ := strconv.Atoi(q.Get(pFirst))
		return Difference{Aspect: AspectRows}, n >= 300
	}
	got, _ = Shrink(q(pFirst, "100000"), Difference{Aspect: AspectRows}, from300)
	if n, _ := strconv.Atoi(got.Get(pFirst)); n < 300 || n > 600 {
		t.Errorf("a count of 100000 differing from 300 up shrunk to %s, want 300 to 600", Canonical(got))
	}
	// The steps are bounded.
	calls := 0
	always := func(q url.Values) (Difference, bool) { calls++; return Difference{Aspect: AspectStatus}, false }
	big := url.Values{}
	for i := range 500 {
		big.Set("p"+strconv.Itoa(i), "1")
	}
	Shrink(big, Difference{Aspect: AspectStatus}, always)
	if calls != maxShrinkSteps {
		t.Errorf("%d calls, want %d", calls, maxShrinkSteps)
	}
	// A query that does not shrink comes back as it was, not shared.
	orig := q("a", "1")
	got, _ = Shrink(orig, Difference{}, func(url.Values) (Difference, bool) { return Difference{}, false })
	got.Set("a", "2")
	if orig.Get("a") != "1" {
		t.Error("Shrink changed its argument")
	}
}

func TestIsCount(t *testing.T) {
	for k, want := range map[string]bool{pFirst: true, pLast: true, "first": true, "last": true, pAfter: false, "epochFrom": false} {
		if isCount(k) != want {
			t.Errorf("isCount(%s)", k)
		}
	}
}

func TestGenerateCoversTheQuerySpace(t *testing.T) {
	games := gamesModel([]Span{{0, 40}}, 40,
		game(40, "a", individual("p1", "p2")),
		game(39, "b", team([]string{"t1"}, "p1", "p3")),
		game(2, "c", individual("p3")),
	)
	rot := New(Rotations, DefaultLimits, []Row{{Key: Key{9, "n1", 0}, Cursor: "YQ=="}, {Key: Key{5, "n2", 0}, Cursor: "Yg=="}}, nil, true)
	tx := New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p2 p1", "8.0 C p3"), nil, true)
	for _, m := range []*Model{games, rot, tx, New(Snapshots, DefaultLimits, snaps(5, 4, 3, 2, 1), snaps(1), false)} {
		qs := Generate(m, 7, 600)
		if len(qs) != 600 {
			t.Errorf("%s: %d queries, want 600", m.Listing, len(qs))
		}
		asked := map[string]bool{}
		for _, qq := range qs {
			for _, k := range paramNames(qq) {
				asked[k] = true
			}
		}
		for _, p := range m.Listing.Params() {
			if !asked[p] {
				t.Errorf("%s: never asked %s", m.Listing, p)
			}
		}
		seen := map[string]bool{}
		var counts, snake, twice, should int
		for _, qq := range qs {
			if seen[Canonical(qq)] {
				t.Errorf("%s: %s asked twice", m.Listing, Canonical(qq))
			}
			seen[Canonical(qq)] = true
			for k, v := range qq {
				if strings.Contains(k, "_") {
					snake++
				}
				if len(v) > 1 && !repeated[k] {
					twice++
				}
				if isCount(k) && (v[0] == "1" || v[0] == "5001" || v[0] == "5000") {
					counts++
				}
			}
			if m.Expect(qq).Level == Should {
				should++
			}
		}
		if counts == 0 || should == 0 || should == len(qs) || twice == 0 {
			t.Errorf("%s: counts at the edges %d, SHOULD queries %d, repeated %d", m.Listing, counts, should, twice)
		}
		if m.Listing != Snapshots && snake == 0 {
			t.Errorf("%s: no snake_case spelling", m.Listing)
		}
	}
	if got := Generate(New(Snapshots, DefaultLimits, nil, nil, true), 1, 50); len(got) == 0 {
		t.Error("no queries of an empty listing")
	}
	if got := Generate(tx, 1, 3); len(got) != 3 {
		t.Errorf("a budget of 3 gave %d queries", len(got))
	}
}

// TestFit checks the exact fits the generator makes: a count equal to the
// rows the other parameters select when the spec decides so many, else a
// cursor that leaves a page of at most the MUST count ending at the
// listing's end (forwards) or starting at its start (backwards).
func TestFit(t *testing.T) {
	rows := snaps(50, 40, 30, 20, 10)
	for _, tc := range []struct {
		name      string
		mustCount int
		q         url.Values
		want      string // the query after fit; "" when a cursor is drawn
		cursor    string // the cursor parameter drawn, for want ""
	}{
		{"all rows within the MUST count", 10, q(pFirst, "1"), Canonical(q(pFirst, "5")), ""},
		{"as many rows as the MUST count", 5, q(pLast, "2"), Canonical(q(pLast, "5")), ""},
		{"an after given", 2, q(pFirst, "1", pAfter, "c40=="), Canonical(q(pFirst, "3", pAfter, "c40==")), ""},
		{"a before given", 2, q(pLast, "1", pBefore, "c20=="), Canonical(q(pLast, "3", pBefore, "c20==")), ""},
		{"first beyond the MUST count", 2, q(pFirst, "1"), "", pAfter},
		{"last beyond the MUST count", 3, q(pLast, "1"), "", pBefore},
		{"oldest first", 1, q(pFirst, "9", pNewest, "false"), "", pAfter},
		{"no count", 1, q(pNewest, "false"), Canonical(q(pNewest, "false")), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Snapshots, DefaultLimits, rows, nil, true).WithMustCount(tc.mustCount)
			for seed := range uint64(20) {
				g := &gen{m: m, rng: rand.New(rand.NewPCG(seed, 1)), seen: map[string]bool{}, rows: m.Rows()}
				got := clone(tc.q)
				g.fit(got)
				if tc.want != "" {
					if Canonical(got) != tc.want {
						t.Fatalf("fit(%s) = %s, want %s", Describe(tc.q), Describe(got), tc.want)
					}
					continue
				}
				if !got.Has(tc.cursor) {
					t.Fatalf("fit(%s) = %s: no %s", Describe(tc.q), Describe(got), tc.cursor)
				}
				e := m.Expect(got)
				n, _ := strconv.Atoi(got.Get(map[string]string{pAfter: pFirst, pBefore: pLast}[tc.cursor]))
				if n < 1 || n > tc.mustCount || len(e.Rows) != n {
					t.Fatalf("fit(%s) = %s: count %d, %d rows, want 1 to %d and as many rows", Describe(tc.q), Describe(got), n, len(e.Rows), tc.mustCount)
				}
				// The page reaches the end the count runs toward.
				if tc.cursor == pAfter && e.HasNext != False || tc.cursor == pBefore && e.HasPrev != False {
					t.Fatalf("fit(%s) = %s: next %s previous %s, want the page at the listing's end", Describe(tc.q), Describe(got), e.HasNext, e.HasPrev)
				}
			}
		})
	}
	// Two rows beyond a MUST count of one: a cursor, a page of one.
	two := New(Snapshots, DefaultLimits, snaps(20, 10), nil, true).WithMustCount(1)
	g2 := &gen{m: two, rng: rand.New(rand.NewPCG(3, 1)), seen: map[string]bool{}, rows: two.Rows()}
	q2 := q(pFirst, "2")
	g2.fit(q2)
	if Canonical(q2) != Canonical(q(pFirst, "1", pAfter, "c20==")) {
		t.Errorf("fit of two rows: %s, want first=1 after the newest", Describe(q2))
	}
	// The transaction listing has no cursors to fit with: the count alone.
	txs := txRows("30.1 A p1", "20.1 A p1", "10.1 A p2")
	m := New(Transactions, DefaultLimits, txs, nil, true).WithMustCount(1)
	g := &gen{m: m, rng: rand.New(rand.NewPCG(1, 1)), seen: map[string]bool{}, rows: m.Rows()}
	got := url.Values{"first": {"1"}}
	g.fit(got)
	if got.Get("first") != "3" || got.Has("after") || got.Has("before") {
		t.Errorf("fit of transactions: %s, want first=3 alone", Describe(got))
	}
}

func TestSameAnswer(t *testing.T) {
	base := func() *Page {
		return &Page{Status: 200, Rows: []Row{{Key: Key{Num: 2}, Cursor: "a", Digest: 1}, {Key: Key{Num: 1}, Cursor: "b", Digest: 2}},
			HasNext: true, StartCursor: "a", EndCursor: "b"}
	}
	for _, tc := range []struct {
		name   string
		change func(*Page)
		same   bool
	}{
		{"the same", func(*Page) {}, true},
		{"status", func(p *Page) { p.Status = 500 }, false},
		{"a row less", func(p *Page) { p.Rows = p.Rows[:1] }, false},
		{"a key", func(p *Page) { p.Rows[1].Key.Num = 0 }, false},
		{"a cursor", func(p *Page) { p.Rows[0].Cursor = "x" }, false},
		{"a content", func(p *Page) { p.Rows[1].Digest = 3 }, false},
		{"hasNextPage", func(p *Page) { p.HasNext = false }, false},
		{"hasPreviousPage", func(p *Page) { p.HasPrev = true }, false},
		{"startCursor", func(p *Page) { p.StartCursor = "" }, false},
		{"endCursor", func(p *Page) { p.EndCursor = "" }, false},
	} {
		a, b := base(), base()
		tc.change(b)
		if got := SameAnswer(a, b); got != tc.same {
			t.Errorf("%s: SameAnswer %v, want %v", tc.name, got, tc.same)
		}
	}
}
