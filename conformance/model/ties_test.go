package model

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// tiedGames is a built model (ties fixed per query) of the games of epochs
// 3 to 1, three games an epoch (a, b, c), every epoch held.
func tiedGames() *Model {
	var rows []Row
	for e := uint64(3); e >= 1; e-- {
		for _, id := range []string{"a", "b", "c"} {
			rows = append(rows, game(e, id, individual("p")))
		}
	}
	m := gamesModel([]Span{{0, 3}}, 3, rows...)
	m.tiesPerQuery = true
	return m
}

func gamesPage(keys ...string) *Page {
	p := &Page{Status: 200}
	for _, k := range keys {
		p.Rows = append(p.Rows, game(uint64(k[0]-'0'), k[1:], nil))
	}
	return p
}

func rowNames(rows []Row) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Key.String())
	}
	return strings.Join(out, " ")
}

// TestTiesUnderAFilter: under a filter or an epoch window, the games of
// one epoch may come in the query's own order. A page of the unfiltered
// listing is judged in the order its walks showed; a filtered page's rows
// compare as a set, a page edge among them is not judged, and a cursor
// among them is placed where the answer shows the query placed it.
func TestTiesUnderAFilter(t *testing.T) {
	m := tiedGames()
	for _, tc := range []struct {
		name  string
		query url.Values
		got   *Page
		// differs are the aspects at MUST the answer differs in; "" none.
		differs string
	}{
		{"unfiltered, walked order", url.Values{"pagination.first": {"3"}}, gamesPage("3a", "3b", "3c"), ""},
		{"unfiltered, other order", url.Values{"pagination.first": {"3"}}, gamesPage("3c", "3b", "3a"), "rows"},
		{"window, other order", url.Values{"epochTo": {"3"}, "pagination.first": {"3"}}, gamesPage("3c", "3b", "3a"), ""},
		{"window, a wrong row", url.Values{"epochTo": {"3"}, "pagination.first": {"3"}}, gamesPage("3c", "3b", "2a"), "rows"},
		{"window, two of an epoch in its own order", url.Values{"epochTo": {"3"}, "pagination.first": {"2"}}, gamesPage("3c", "3b"), ""},
		// after 3b: the query may have placed a and c on either side.
		{"after, none beside", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"3"}}, gamesPage("2a", "2b", "2c"), ""},
		{"after, one beside", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"3"}}, gamesPage("3c", "2a", "2b"), ""},
		{"after, two beside", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"4"}}, gamesPage("3c", "3a", "2a", "2b"), ""},
		{"after, two beside, the next epoch in its own order", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"4"}}, gamesPage("3c", "3a", "2c", "2a"), ""},
		{"after, the cursor's own row again", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"3"}}, gamesPage("3b", "2a", "2b"), "rows"},
		{"after, a row of the epoch after the next", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"4"}}, gamesPage("3c", "2a", "2b", "1a"), "rows"},
		{"after, a row skipped", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"3"}}, gamesPage("3c", "2a", "1a"), "rows"},
		{"after, the next epoch in its own order", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"3"}}, gamesPage("3c", "2b", "2c"), ""},
		{"after, short", url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"3"}}, gamesPage("3c", "2a"), "page-size"},
		// before 2b, oldest end last: the rows beside it end the page.
		{"before, none beside", url.Values{"epochTo": {"3"}, "pagination.before": {"g2b="}, "pagination.last": {"3"}}, gamesPage("3a", "3b", "3c"), ""},
		{"before, one beside", url.Values{"epochTo": {"3"}, "pagination.before": {"g2b="}, "pagination.last": {"3"}}, gamesPage("3b", "3c", "2a"), ""},
		{"before, a row skipped", url.Values{"epochTo": {"3"}, "pagination.before": {"g2b="}, "pagination.last": {"3"}}, gamesPage("3a", "3b", "1a"), "rows"},
		{"before, both epochs in their own order", url.Values{"epochTo": {"3"}, "pagination.before": {"g2b="}, "pagination.last": {"3"}}, gamesPage("3a", "2a", "2c"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := m.Expect(tc.query)
			if !want.Known {
				t.Fatalf("%s: not known", Describe(tc.query))
			}
			var got []string
			for _, d := range Compare(Games, want, tc.got, nil, false).Differences {
				if d.Level == Must && (d.Aspect == AspectRows || d.Aspect == AspectSize) && !slices.Contains(got, string(d.Aspect)) {
					got = append(got, string(d.Aspect))
				}
			}
			if !slices.Contains(got, tc.differs) && (tc.differs != "" || len(got) > 0) {
				t.Errorf("%s answered %s: differs at MUST in %v, want %q (expected %s)", Describe(tc.query), rowNames(tc.got.Rows), got, tc.differs, rowNames(want.For(tc.got).Rows))
			}
		})
	}
}

// TestTiesFixedByNew: a model made by New orders ties as given in every
// query, filtered or not.
func TestTiesFixedByNew(t *testing.T) {
	m := tiedGames()
	m.tiesPerQuery = false
	want := m.Expect(url.Values{"epochTo": {"3"}, "pagination.first": {"3"}})
	if d := Compare(Games, want, gamesPage("3c", "3b", "3a"), nil, false).Differences; len(d) == 0 {
		t.Error("another order of ties passed a model whose order is fixed")
	}
	if e := m.Expect(url.Values{"epochTo": {"3"}, "pagination.after": {"g3b="}, "pagination.first": {"2"}}); e.resolve != nil || rowNames(e.Rows) != "3/c 2/a" {
		t.Errorf("a cursor among fixed ties: %s (resolve %v)", rowNames(e.Rows), e.resolve != nil)
	}
}

// TestArrangeTiesRefusesASplitKey: a gap among the rows of the cursor's
// key leaves the page unknown.
func TestArrangeTiesRefusesASplitKey(t *testing.T) {
	r := func(id string) *Row { x := game(3, id, nil); return &x }
	seq := []item{{row: r("a")}, {gap: true}, {row: r("b")}}
	if _, _, ok := arrangeByAnswer(seq, nil, true, &Key{Num: 3, Str: "a"}, false); ok {
		t.Error("a gap inside the cursor's key was arranged")
	}
	// A gap at either end splits nothing.
	for _, seq := range [][]item{{{gap: true}, {row: r("a")}}, {{row: r("a")}, {gap: true}}} {
		if out, _, ok := arrangeByAnswer(seq, nil, true, &Key{Num: 3, Str: "a"}, false); !ok || len(out) != 2 {
			t.Errorf("a gap at an end: arranged %v, %d items", ok, len(out))
		}
	}
}

// TestTiesFlagsAroundACursor: the rows of the cursor's key an answer does
// not hold lie behind the cursor, or beyond a page that is full before its
// key ends: a flag that depends on which is not judged, and one that does
// not is.
func TestTiesFlagsAroundACursor(t *testing.T) {
	m := tiedGames()
	for _, tc := range []struct {
		name             string
		query            url.Values
		got              *Page
		hasNext, hasPrev Tri
	}{
		// Before 3b, one row: 3a or 3c; the other may be before it or
		// after 3b.
		{"full inside the newest key", url.Values{"epochTo": {"3"}, "pagination.before": {"g3b="}, "pagination.last": {"1"}}, gamesPage("3a"), True, Unknown},
		// Before 3b, three rows: only 3a and 3c can be; the page is not
		// full, so both lie before 3b and nothing precedes them.
		{"short page", url.Values{"epochTo": {"3"}, "pagination.before": {"g3b="}, "pagination.last": {"3"}}, gamesPage("3c", "3a"), True, False},
		// After 1b, one row: 1a or 1c; the other may be after it or
		// before 1b, and 1b itself precedes the page.
		{"full inside the oldest key", url.Values{"epochTo": {"3"}, "pagination.after": {"g1b="}, "pagination.first": {"1"}}, gamesPage("1c"), Unknown, True},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := m.Expect(tc.query).For(tc.got)
			if !e.Known || e.HasNext != tc.hasNext || e.HasPrev != tc.hasPrev {
				t.Errorf("%s answered %s: known %v, hasNextPage %s, hasPreviousPage %s; want %s, %s", Describe(tc.query), rowNames(tc.got.Rows), e.Known, e.HasNext, e.HasPrev, tc.hasNext, tc.hasPrev)
			}
		})
	}
}
