package model

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// snap makes snapshot rows of the block heights given, newest first.
func snaps(heights ...uint64) []Row {
	out := make([]Row, len(heights))
	for i, h := range heights {
		out[i] = Row{Key: Key{Num: h}, Cursor: fmt.Sprintf("c%d==", h)}
	}
	return out
}

// heights lists the rows' block heights (or epochs).
func heights(rows []Row) []uint64 {
	out := make([]uint64, len(rows))
	for i, r := range rows {
		out[i] = r.Key.Num
	}
	return out
}

func q(pairs ...string) url.Values {
	v := url.Values{}
	for i := 0; i < len(pairs); i += 2 {
		v.Add(pairs[i], pairs[i+1])
	}
	return v
}

func TestExpectPagedWhole(t *testing.T) {
	m := New(Snapshots, DefaultLimits, snaps(9, 8, 7, 6, 5, 4, 3, 2, 1), nil, true)
	for _, tc := range []struct {
		q          url.Values
		status     int
		rows       []uint64
		next, prev Tri
		level      Level
		volatile   bool
	}{
		{q(pFirst, "3"), 200, []uint64{9, 8, 7}, True, False, Must, true},
		{q(pFirst, "3", pAfter, "c7=="), 200, []uint64{6, 5, 4}, True, True, Must, false},
		{q(pFirst, "9"), 200, []uint64{9, 8, 7, 6, 5, 4, 3, 2, 1}, False, False, Must, true},
		{q(pFirst, "4", pAfter, "c4=="), 200, []uint64{3, 2, 1}, False, True, Must, false},
		{q(pFirst, "4", pAfter, "c1=="), 200, nil, False, True, Must, false},
		{q(pLast, "2"), 200, []uint64{2, 1}, False, True, Must, false},
		{q(pLast, "2", pBefore, "c5=="), 200, []uint64{7, 6}, True, True, Must, false},
		{q(pLast, "5", pBefore, "c7=="), 200, []uint64{9, 8}, True, False, Must, true},
		{q(pFirst, "2", pNewest, "false"), 200, []uint64{1, 2}, True, False, Must, false},
		{q(pFirst, "2", pNewest, "false", pAfter, "c7=="), 200, []uint64{8, 9}, False, True, Must, true},
		{q(pLast, "2", pNewest, "false"), 200, []uint64{8, 9}, False, True, Must, true},
		{q(pFirst, "2", pNewest, "0"), 200, []uint64{1, 2}, True, False, Should, false},
		{q(pFirst, "2", "pagination.newest_first", "false"), 200, []uint64{1, 2}, True, False, Should, false},
		{q(pFirst, "2", pFirst, "5"), 200, []uint64{9, 8}, True, False, Should, true},
		{q(), 200, []uint64{9, 8, 7, 6, 5, 4, 3, 2, 1}, False, False, Should, true},
		{q(pAfter, "c3=="), 200, []uint64{2, 1}, False, True, Should, false},
		{q(pBefore, "c3=="), 200, []uint64{9, 8, 7, 6, 5, 4}, True, False, Should, true},
		{q(pFirst, "2", pLast, "3"), 200, []uint64{9, 8}, True, False, Should, true},
		{q(pFirst, "2", pBefore, "c3=="), 200, []uint64{9, 8}, True, False, Should, true},
		{q(pLast, "2", pAfter, "c3=="), 200, []uint64{2, 1}, False, True, Should, false},
		{q(pFirst, "101"), 200, []uint64{9, 8, 7, 6, 5, 4, 3, 2, 1}, False, False, Should, true},
		{q(pFirst, "100"), 200, []uint64{9, 8, 7, 6, 5, 4, 3, 2, 1}, False, False, Must, true},
		{q(pFirst, "0"), 400, nil, Unknown, Unknown, Should, false},
		{q(pFirst, "-1"), 400, nil, Unknown, Unknown, Should, false},
		{q(pLast, "5001"), 400, nil, Unknown, Unknown, Should, false},
		{q(pFirst, "5000"), 200, []uint64{9, 8, 7, 6, 5, 4, 3, 2, 1}, False, False, Should, true},
		{q(pFirst, "x"), 400, nil, Unknown, Unknown, Should, false},
		{q(pFirst, "2147483648"), 400, nil, Unknown, Unknown, Should, false},
		{q(pFirst, "1", pNewest, "yes"), 400, nil, Unknown, Unknown, Should, false},
		{q(pFirst, "1", pAfter, "c3==", pBefore, "c5=="), 400, nil, Unknown, Unknown, Should, false},
		{q(pFirst, "1", pAfter, "not-a-cursor!"), 400, nil, Unknown, Unknown, Should, false},
		{q(pFirst, "1", pAfter, ""), 400, nil, Unknown, Unknown, Should, false},
		{q(pFirst, "1", "unknown", "x"), 200, []uint64{9}, True, False, Should, true},
	} {
		t.Run(Describe(tc.q), func(t *testing.T) {
			e := m.Expect(tc.q)
			if e.Status != tc.status || e.Level != tc.level {
				t.Fatalf("status %d level %s (%v), want %d %s", e.Status, e.Level, e.Why, tc.status, tc.level)
			}
			if tc.status != 200 {
				if !e.Known || e.Rows != nil || len(e.Why) == 0 {
					t.Errorf("a refusal: known %v rows %v why %v", e.Known, e.Rows, e.Why)
				}
				return
			}
			if !e.Known {
				t.Fatal("not known")
			}
			if got := heights(e.Rows); !slices.Equal(got, tc.rows) && !(len(got) == 0 && len(tc.rows) == 0) {
				t.Errorf("rows %v, want %v", got, tc.rows)
			}
			if e.HasNext != tc.next || e.HasPrev != tc.prev {
				t.Errorf("next %s prev %s, want %s %s", e.HasNext, e.HasPrev, tc.next, tc.prev)
			}
			if e.Volatile != tc.volatile {
				t.Errorf("volatile %v, want %v", e.Volatile, tc.volatile)
			}
		})
	}
}

func TestExpectUnknownCursor(t *testing.T) {
	m := New(Snapshots, DefaultLimits, snaps(3, 2, 1), nil, true)
	e := m.Expect(q(pFirst, "1", pAfter, "QUJDRA=="))
	if e.Known || e.Status != 200 {
		t.Errorf("a well-formed cursor of no held row: known %v status %d, want unknown", e.Known, e.Status)
	}
}

func TestExpectWithGap(t *testing.T) {
	// Held: 20..16 (head) and 3..1 (tail); 15..4 unknown.
	m := New(Snapshots, DefaultLimits, snaps(20, 19, 18, 17, 16), snaps(3, 2, 1), false)
	for _, tc := range []struct {
		q          url.Values
		known      bool
		rows       []uint64
		next, prev Tri
	}{
		{q(pFirst, "5"), true, []uint64{20, 19, 18, 17, 16}, True, False},
		{q(pFirst, "6"), false, nil, Unknown, Unknown},
		{q(pFirst, "2", pAfter, "c18=="), true, []uint64{17, 16}, True, True},
		{q(pFirst, "2", pAfter, "c16=="), false, nil, Unknown, Unknown},
		{q(pLast, "3"), true, []uint64{3, 2, 1}, False, True},
		{q(pLast, "4"), false, nil, Unknown, Unknown},
		{q(pLast, "2", pBefore, "c2=="), false, nil, Unknown, Unknown},
		{q(pLast, "1", pBefore, "c2=="), true, []uint64{3}, True, True},
		{q(pFirst, "2", pAfter, "c3=="), true, []uint64{2, 1}, False, True},
		{q(pFirst, "2", pNewest, "false"), true, []uint64{1, 2}, True, False},
		{q(pFirst, "2", pNewest, "false", pAfter, "c2=="), false, nil, Unknown, Unknown},
		{q(pFirst, "1", pNewest, "false", pAfter, "c2=="), true, []uint64{3}, True, True},
		{q(pFirst, "2", pNewest, "false", pAfter, "c17=="), true, []uint64{18, 19}, True, True},
		{q(pLast, "2", pNewest, "false", pBefore, "c18=="), true, []uint64{16, 17}, True, True},
		{q(pLast, "1", pNewest, "false", pBefore, "c17=="), true, []uint64{16}, True, True},
		{q(pFirst, "1", pNewest, "false", pAfter, "c1=="), true, []uint64{2}, True, True},
		{q(pLast, "1", pNewest, "false", pBefore, "c3=="), true, []uint64{2}, True, True},
	} {
		t.Run(Describe(tc.q), func(t *testing.T) {
			e := m.Expect(tc.q)
			if e.Known != tc.known {
				t.Fatalf("known %v, want %v", e.Known, tc.known)
			}
			if !tc.known {
				return
			}
			if got := heights(e.Rows); !slices.Equal(got, tc.rows) {
				t.Errorf("rows %v, want %v", got, tc.rows)
			}
			if e.HasNext != tc.next || e.HasPrev != tc.prev {
				t.Errorf("next %s prev %s, want %s %s", e.HasNext, e.HasPrev, tc.next, tc.prev)
			}
		})
	}
	if m.Whole() {
		t.Error("a model with a gap says it is whole")
	}
	if k, ok := m.zone(Key{Num: 10}); ok {
		t.Errorf("a key in the gap has zone %d", k)
	}
}

func TestParametersIgnoreNewestFirst(t *testing.T) {
	rows := []Row{{Key: Key{Str: "a"}, Cursor: "YQ=="}, {Key: Key{Str: "b"}, Cursor: "Yg=="}, {Key: Key{Str: "c"}, Cursor: "Yw=="}}
	m := New(Parameters, DefaultLimits, rows, nil, true)
	e := m.Expect(q(pFirst, "2", pNewest, "false"))
	if got := keys(e.Rows); !slices.Equal(got, []Key{{Str: "a"}, {Str: "b"}}) {
		t.Errorf("rows %v, want a, b: network parameters are in key order always", got)
	}
}

func TestRotationsNodeFilter(t *testing.T) {
	rows := []Row{{Key: Key{9, "n1", 0}, Cursor: "a1=="}, {Key: Key{9, "n2", 0}, Cursor: "a2=="}, {Key: Key{5, "n1", 0}, Cursor: "a3=="}}
	m := New(Rotations, DefaultLimits, rows, nil, true)
	e := m.Expect(q(pFirst, "5", "nodeId", "n1"))
	if got := keys(e.Rows); !slices.Equal(got, []Key{{9, "n1", 0}, {5, "n1", 0}}) {
		t.Errorf("rows %v", got)
	}
	e = m.Expect(q(pFirst, "5", "nodeId", "n1", pAfter, "a2=="))
	if got := keys(e.Rows); !slices.Equal(got, []Key{{5, "n1", 0}}) || e.HasPrev != True {
		t.Errorf("a cursor of another node positions by key: rows %v prev %s", got, e.HasPrev)
	}
	e = m.Expect(q(pFirst, "5", "node_id", "n2"))
	if got := keys(e.Rows); !slices.Equal(got, []Key{{9, "n2", 0}}) || e.Level != Should {
		t.Errorf("snake_case: rows %v level %s", got, e.Level)
	}
}

// games makes a games model: g(epoch, id, ...) rows.
func gamesModel(spans []Span, latest uint64, rows ...Row) *Model {
	slices.SortFunc(rows, func(a, b Row) int { return newer(a.Key, b.Key) })
	return NewGames(DefaultLimits, rows, spans, latest)
}

func game(epoch uint64, id string, mod func(*Row)) Row {
	r := Row{Key: Key{Num: epoch, Str: id}, Cursor: fmt.Sprintf("g%d%s=", epoch, id)}
	if mod != nil {
		mod(&r)
	}
	return r
}

func individual(players ...string) func(*Row) {
	return func(r *Row) { r.Individual, r.Players = true, players }
}

func team(teams []string, members ...string) func(*Row) {
	return func(r *Row) { r.Team, r.Teams, r.Members = true, teams, members }
}

func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		from, to         uint64
		hasFrom, hasTo   bool
		latest           uint64
		wantFrom, wantTo uint64
	}{
		{0, 0, false, false, 100, 71, 100},
		{0, 0, false, false, 10, 0, 10},
		{0, 50, false, true, 100, 21, 50},
		{60, 0, true, false, 100, 60, 89},
		{10, 50, true, true, 100, 21, 50},
		{21, 50, true, true, 100, 21, 50},
		{20, 50, true, true, 100, 21, 50},
		{50, 40, true, true, 100, 11, 40},
		{^uint64(0) - 5, 0, true, false, 100, ^uint64(0) - 5, ^uint64(0)},
		{0, 29, true, true, 100, 0, 29},
		{0, 30, true, true, 100, 1, 30},
	} {
		f, to := window(tc.from, tc.to, tc.hasFrom, tc.hasTo, tc.latest)
		if f != tc.wantFrom || to != tc.wantTo {
			t.Errorf("window(%d, %d, %v, %v, latest %d) = [%d, %d], want [%d, %d]", tc.from, tc.to, tc.hasFrom, tc.hasTo, tc.latest, f, to, tc.wantFrom, tc.wantTo)
		}
	}
}

func TestExpectGames(t *testing.T) {
	m := gamesModel([]Span{{0, 40}}, 40,
		game(40, "a", individual("p1", "p2")),
		game(40, "b", team([]string{"t1"}, "p1", "p3")),
		game(30, "c", individual("p3")),
		game(11, "d", team([]string{"t2"}, "p4")),
		game(10, "e", individual("p4")),
		game(0, "f", team([]string{"t1"}, "p5")),
	)
	ids := func(rows []Row) string {
		var s []string
		for _, r := range rows {
			s = append(s, r.Key.Str)
		}
		return strings.Join(s, "")
	}
	for _, tc := range []struct {
		q      url.Values
		status int
		ids    string
		level  Level
	}{
		{q(pFirst, "10"), 200, "abcd", Must},
		{q(pFirst, "10", "epochFrom", "0"), 200, "def", Must},
		{q(pFirst, "10", "epochFrom", "0", "epochTo", "40"), 200, "abcd", Must},
		{q(pFirst, "10", "epochTo", "10"), 200, "ef", Must},
		{q(pFirst, "10", "epochFrom", "11", "epochTo", "10"), 200, "ef", Should},
		{q(pFirst, "10", "epochFrom", "10", "epochTo", "10"), 200, "e", Must},
		{q(pFirst, "10", "epochFrom", "41"), 200, "", Must},
		{q(pFirst, "10", "gameId", "c"), 200, "c", Must},
		{q(pFirst, "10", "gameId", "x"), 200, "", Must},
		{q(pFirst, "10", "entityScope", ScopeIndividuals), 200, "ac", Must},
		{q(pFirst, "10", "entityScope", ScopeTeams), 200, "bd", Must},
		{q(pFirst, "10", "entityScope", ScopeUnspecified), 200, "abcd", Must},
		{q(pFirst, "10", "teamId", "t1"), 200, "b", Must},
		{q(pFirst, "10", "teamId", "t1", "entityScope", ScopeIndividuals), 200, "ac", Must},
		{q(pFirst, "10", "teamId", "t2", "entityScope", ScopeTeams), 200, "d", Must},
		{q(pFirst, "10", "partyId", "p1"), 200, "ab", Must},
		{q(pFirst, "10", "partyId", "p3"), 200, "bc", Must},
		{q(pFirst, "10", "partyId", "p3", "entityScope", ScopeTeams), 200, "b", Must},
		{q(pFirst, "10", "partyId", "p3", "entityScope", ScopeIndividuals), 200, "c", Must},
		{q(pFirst, "10", "partyId", "p4", "epochFrom", "0"), 200, "de", Must},
		{q(pFirst, "10", "entityScope", "TEAMS"), 400, "", Should},
		{q(pFirst, "10", "epochFrom", "-1"), 400, "", Should},
		{q(pFirst, "10", "epochTo", "x"), 400, "", Should},
		{q(pFirst, "10", "epoch_from", "0"), 200, "def", Should},
		{q(pFirst, "1", "party_id", "p4", "epoch_from", "0"), 200, "d", Should},
	} {
		t.Run(Describe(tc.q), func(t *testing.T) {
			e := m.Expect(tc.q)
			if e.Status != tc.status || e.Level != tc.level {
				t.Fatalf("status %d level %s (%v), want %d %s", e.Status, e.Level, e.Why, tc.status, tc.level)
			}
			if got := ids(e.Rows); tc.status == 200 && (got != tc.ids || !e.Known) {
				t.Errorf("games %q (known %v), want %q", got, e.Known, tc.ids)
			}
		})
	}
}

func TestExpectGamesOutsideTheHeldEpochs(t *testing.T) {
	m := gamesModel([]Span{{0, 9}, {71, 100}}, 100, game(100, "a", nil), game(5, "b", nil))
	for _, tc := range []struct {
		q        url.Values
		known    bool
		volatile bool
	}{
		{q(pFirst, "5"), true, true},
		{q(pFirst, "5", "epochTo", "9"), true, false},
		{q(pFirst, "5", "epochFrom", "0", "epochTo", "9"), true, false},
		{q(pFirst, "5", "epochFrom", "0"), false, false},
		{q(pFirst, "5", "epochTo", "50"), false, false},
		{q(pFirst, "5", "epochFrom", "200"), true, true},
		{q(pFirst, "5", "epochFrom", "80", "epochTo", "99"), true, false},
		{q(pFirst, "5", "epochFrom", "80", "epochTo", "100"), true, true},
	} {
		e := m.Expect(tc.q)
		if e.Known != tc.known || (tc.known && e.Volatile != tc.volatile) {
			t.Errorf("%s: known %v volatile %v, want %v %v", Describe(tc.q), e.Known, e.Volatile, tc.known, tc.volatile)
		}
	}
	if m.Whole() || m.Latest() != 100 || len(m.Spans()) != 2 {
		t.Errorf("whole %v latest %d spans %v", m.Whole(), m.Latest(), m.Spans())
	}
	whole := gamesModel([]Span{{0, 50}, {51, 100}}, 100)
	if !whole.Whole() {
		t.Errorf("spans that meet from 0 to the latest are the whole listing: %v", whole.Spans())
	}
}

func TestMergeSpans(t *testing.T) {
	got := mergeSpans([]Span{{50, 60}, {0, 9}, {10, 19}, {30, 40}, {35, 45}, {61, 61}})
	want := []Span{{0, 19}, {30, 45}, {50, 61}}
	if !slices.Equal(got, want) {
		t.Errorf("mergeSpans = %v, want %v", got, want)
	}
}

// txs makes transactions: each "b.i" with its type and submitter.
func txRows(specs ...string) []Row {
	var out []Row
	for _, s := range specs {
		f := strings.Split(s, " ")
		k, err := txCursor(f[0])
		if err != nil {
			panic(err)
		}
		r := Row{Key: k, Cursor: f[0], Type: f[1], Submitter: f[2]}
		if len(f) > 3 {
			r.Receivers = f[3:]
		}
		out = append(out, r)
	}
	return out
}

func cursors(rows []Row) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.Cursor)
	}
	return strings.Join(s, " ")
}

func TestExpectTransactions(t *testing.T) {
	rows := txRows("9.1 A p1", "9.0 B p2", "8.0 A p3 p1", "7.2 C p1", "7.1 B p2", "7.0 A p2", "5.0 C p3")
	m := New(Transactions, Limits{DefaultPage: 1000, MaxPage: 5000, TxDefault: 3}, rows, nil, true)
	for _, tc := range []struct {
		q        url.Values
		status   int
		want     string
		level    Level
		volatile bool
	}{
		{q("first", "2"), 200, "9.1 9.0", Must, true},
		{q("first", "2", "after", "7.1"), 200, "8.0 7.2", Must, false},
		{q("first", "9", "after", "7.1"), 200, "9.1 9.0 8.0 7.2", Must, true},
		{q("last", "2"), 200, "7.0 5.0", Must, false},
		{q("last", "2", "before", "8.0"), 200, "7.2 7.1", Must, false},
		{q("last", "9", "before", "7.1"), 200, "7.0 5.0", Must, false},
		{q("before", "9.0", "after", "7.1"), 200, "8.0 7.2", Should, false},
		{q(), 200, "9.1 9.0 8.0", Should, true},
		{q("after", "7.0"), 200, "8.0 7.2 7.1", Should, false},
		{q("before", "9.1"), 200, "9.0 8.0 7.2", Should, false},
		{q("first", "0"), 200, "9.1 9.0 8.0", Should, true},
		{q("first", "2", "cmdTypes", "A"), 200, "9.1 8.0", Must, true},
		{q("first", "9", "cmdTypes", "A", "cmdTypes", "C"), 200, "9.1 8.0 7.2 7.0 5.0", Must, true},
		{q("first", "9", "excludeCmdTypes", "A"), 200, "9.0 7.2 7.1 5.0", Must, true},
		{q("first", "9", "cmdTypes", "A", "excludeCmdTypes", "A"), 200, "", Must, true},
		{q("first", "9", "parties", "p1"), 200, "9.1 8.0 7.2", Must, true},
		{q("first", "9", "parties", "p3", "cmdTypes", "C"), 200, "5.0", Must, true},
		{q("first", "9", "cmd_types", "B"), 200, "9.0 7.1", Should, true},
		{q("first", "9", "cmdTypes", "Z"), 200, "", Must, true},
		{q("first", "2", "last", "2", "before", "9.0", "after", "7.1"), 400, "", Should, false},
		{q("first", "2", "last", "2"), 400, "", Should, false},
		{q("first", "2", "after", "x"), 400, "", Should, false},
		{q("first", "2", "after", "7.x"), 400, "", Should, false},
		{q("first", "2", "after", "x.1"), 400, "", Should, false},
		{q("before", "x"), 400, "", Should, false},
		{q("after", "9.0", "before", "7.0"), 400, "", Should, false},
		{q("after", "7.0", "before", "7.0"), 400, "", Should, false},
		{q("first", "2", "before", "7.0"), 400, "", Must, false},
		{q("last", "2", "after", "7.0"), 400, "", Must, false},
		{q("first", "5001"), 400, "", Should, false},
		{q("last", "-1"), 400, "", Should, false},
		{q("first", "y"), 400, "", Should, false},
		{q("first", "101"), 200, "9.1 9.0 8.0 7.2 7.1 7.0 5.0", Should, true},
		{q("last", "2", "before", "7.5"), 200, "7.2 7.1", Should, false},
		{q("last", "2", "before", "8.0"), 200, "7.2 7.1", Must, false},
	} {
		t.Run(Describe(tc.q), func(t *testing.T) {
			e := m.Expect(tc.q)
			if e.Status != tc.status || e.Level != tc.level {
				t.Fatalf("status %d level %s (%v), want %d %s", e.Status, e.Level, e.Why, tc.status, tc.level)
			}
			if tc.status != 200 {
				return
			}
			if got := cursors(e.Rows); got != tc.want || !e.Known {
				t.Errorf("rows %q (known %v), want %q", got, e.Known, tc.want)
			}
			if e.Volatile != tc.volatile {
				t.Errorf("volatile %v, want %v", e.Volatile, tc.volatile)
			}
		})
	}
}

func TestExpectTransactionsWithGap(t *testing.T) {
	m := New(Transactions, DefaultLimits, txRows("9.1 A p", "9.0 A p"), txRows("2.0 A p", "1.0 A p"), false)
	for _, tc := range []struct {
		q     url.Values
		known bool
		want  string
	}{
		{q("first", "2"), true, "9.1 9.0"},
		{q("first", "3"), false, ""},
		{q("last", "2"), true, "2.0 1.0"},
		{q("last", "3"), false, ""},
		{q("last", "1", "before", "9.0"), false, ""},
		{q("last", "1", "before", "2.0"), true, "1.0"},
		{q("first", "1", "after", "2.0"), false, ""},
		{q("first", "1", "after", "9.0"), true, "9.1"},
		{q("first", "1", "after", "5.0"), false, ""},
		{q("before", "9.1", "after", "2.0"), false, ""},
		{q("before", "9.1", "after", "9.0"), true, ""},
	} {
		e := m.Expect(tc.q)
		if e.Known != tc.known || (tc.known && cursors(e.Rows) != tc.want) {
			t.Errorf("%s: known %v rows %q, want %v %q", Describe(tc.q), e.Known, cursors(e.Rows), tc.known, tc.want)
		}
	}
}

func TestBothCursorsAboveTheMaximum(t *testing.T) {
	var rows []Row
	for i := 10; i > 0; i-- {
		rows = append(rows, txRows(fmt.Sprintf("%d.0 A p", i))...)
	}
	m := New(Transactions, Limits{DefaultPage: 3, MaxPage: 3, TxDefault: 2}, rows, nil, true)
	if e := m.Expect(q("before", "10.0", "after", "1.0")); e.Known {
		t.Errorf("8 rows between the cursors, above a maximum of 3: known %v rows %q", e.Known, cursors(e.Rows))
	}
	if e := m.Expect(q("before", "10.0", "after", "6.0")); !e.Known || cursors(e.Rows) != "9.0 8.0 7.0" {
		t.Errorf("3 rows between the cursors: known %v rows %q", e.Known, cursors(e.Rows))
	}
}

func TestTxCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Key
		ok   bool
	}{
		{"12.3", Key{Num: 12, Sub: 3}, true},
		{"0.0", Key{}, true},
		{"12", Key{}, false},
		{"a.1", Key{}, false},
		{"1.b", Key{}, false},
		{"-1.1", Key{}, false},
	} {
		got, err := txCursor(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("txCursor(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestMalformedCursor(t *testing.T) {
	for c, want := range map[string]bool{"": true, "abc": true, "abcd": false, "ab+/": false, "ab==": false, "a-b_": true, "ab!d": true, "AZaz09+/": false} {
		if got := malformedCursor(c); got != want {
			t.Errorf("malformedCursor(%q) = %v, want %v", c, got, want)
		}
	}
}

func TestNewerAndKeyString(t *testing.T) {
	for _, tc := range []struct {
		a, b Key
		want int
	}{
		{Key{Num: 2}, Key{Num: 1}, -1},
		{Key{Num: 1}, Key{Num: 2}, 1},
		{Key{Num: 1, Str: "a"}, Key{Num: 1, Str: "b"}, -1},
		{Key{Num: 1, Str: "b"}, Key{Num: 1, Str: "a"}, 1},
		{Key{Num: 1, Sub: 2}, Key{Num: 1, Sub: 1}, -1},
		{Key{Num: 1, Sub: 1}, Key{Num: 1, Sub: 2}, 1},
		{Key{Num: 1, Sub: 1}, Key{Num: 1, Sub: 1}, 0},
	} {
		if got := newer(tc.a, tc.b); got != tc.want {
			t.Errorf("newer(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	for k, want := range map[Key]string{{Num: 5}: "5", {Str: "a.b"}: "a.b", {Num: 3, Str: "x"}: "3/x", {Num: 3, Sub: 2}: "3.2"} {
		if got := k.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", k, got, want)
		}
	}
}

func TestTriAndLevelStrings(t *testing.T) {
	if True.String() != "true" || False.String() != "false" || Unknown.String() != "unknown" || tri(true) != True || tri(false) != False {
		t.Error("Tri")
	}
	if Must.String() != "MUST" || Should.String() != "SHOULD" {
		t.Error("Level")
	}
}

func TestReadParams(t *testing.T) {
	p := readParams(Games, q("epoch_from", "3", pFirst, "1", pFirst, "2", "bogus", "x", "gameId", "g"))
	if v, _ := p.get("epochFrom"); v != "3" {
		t.Errorf("epoch_from read as %q", v)
	}
	if v, _ := p.get(pFirst); v != "1" {
		t.Errorf("a repeated count reads its first value, got %q", v)
	}
	if p.has("bogus") || !p.has("gameId") || len(p.should) != 3 || !slices.Contains(p.should, "the unknown parameter bogus (ignored)") {
		t.Errorf("params %v should %v", p.v, p.should)
	}
	tx := readParams(Transactions, q("cmdTypes", "A", "cmdTypes", "B", "cmd_types", "C"))
	if got := tx.v["cmdTypes"]; !slices.Equal(got, []string{"A", "B", "C"}) {
		t.Errorf("repeated cmdTypes: %v", got)
	}
	if SnakeCase("epochFrom") != "epoch_from" || SnakeCase(pFirst) != "" {
		t.Error("SnakeCase")
	}
	if Describe(nil) != "no parameters" || Describe(q("a", "1", "b", "x y")) != "a=1 b=x y" {
		t.Errorf("Describe: %q", Describe(q("a", "1", "b", "x y")))
	}
}

func TestListingInfo(t *testing.T) {
	for _, tc := range []struct {
		l              Listing
		label, path    string
		paged, ordered bool
		params         int
	}{
		{Games, "games", "/api/v2/games", true, true, 11},
		{Snapshots, "snapshots", "/api/v2/snapshots", true, true, 5},
		{Rotations, "key-rotations", "/api/v2/core/keys/ethereum/rotations", true, true, 6},
		{Parameters, "network-parameters", "/api/v2/network/parameters", true, false, 5},
		{Transactions, "transactions", "/transactions", false, true, 7},
	} {
		if tc.l.String() != tc.label || tc.l.Path() != tc.path || tc.l.paged() != tc.paged || tc.l.ordered() != tc.ordered || len(tc.l.Params()) != tc.params {
			t.Errorf("%v: %s %s paged %v ordered %v params %d", tc.label, tc.l, tc.l.Path(), tc.l.paged(), tc.l.ordered(), len(tc.l.Params()))
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	m := New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p2 r1", "8.0 A p3 p1"), nil, true)
	a, b := Generate(m, 42, 300), Generate(m, 42, 300)
	if len(a) != len(b) {
		t.Fatalf("%d and %d queries from one seed", len(a), len(b))
	}
	for i := range a {
		if Canonical(a[i]) != Canonical(b[i]) {
			t.Fatalf("query %d: %s, then %s, from one seed", i, Canonical(a[i]), Canonical(b[i]))
		}
	}
	c := Generate(m, 43, 300)
	same := 0
	for i := range min(len(a), len(c)) {
		if Canonical(a[i]) == Canonical(c[i]) {
			same++
		}
	}
	if same == len(a) {
		t.Error("two seeds gave the same queries")
	}
}
