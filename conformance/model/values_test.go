package model

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestOneChanged(t *testing.T) {
	for in, want := range map[string]string{
		"": "0", "a0": "a1", "ba": "bb", "a8": "a9", "a9": "aa", "ae": "af", "af": "a0", "aE": "aF", "aA": "aB",
		"ag": "ah", "ay": "az", "az": "aa", "aG": "aH", "aZ": "aA", "a.": "a0", "Submit Order": "Submit Ordes",
	} {
		if got := oneChanged(in); got != want {
			t.Errorf("oneChanged(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOtherCase(t *testing.T) {
	for in, want := range map[string]string{"ab1": "AB1", "AB1": "ab1", "Submit Order": "SUBMIT ORDER", "123": "", "": ""} {
		if got := otherCase(in); got != want {
			t.Errorf("otherCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAbsentLike(t *testing.T) {
	for _, tc := range []struct {
		s    string
		pool []string
		want string
	}{
		{"ab12", nil, "0000"},
		{"AB12", []string{"0000"}, "1111"},
		{"ab12", []string{"0000", "1111", "2222"}, "3333"},
		{"name", nil, "absent x"},
		{"name", []string{"absent x"}, "absent xx"},
		{"", nil, "absent x"},
		{"a", strings.Split("0 1 2 3 4 5 6 7 8 9 a b c d e f", " "), "absent value"},
	} {
		if got := absentLike(tc.s, tc.pool); got != tc.want {
			t.Errorf("absentLike(%q, %v) = %q, want %q", tc.s, tc.pool, got, tc.want)
		}
	}
}

func TestKindsAndClasses(t *testing.T) {
	for name, want := range map[string]paramKind{
		pFirst: kindCount, "last": kindCount, pAfter: kindCursor, "before": kindCursor, pNewest: kindBool,
		"epochFrom": kindEpoch, "epochTo": kindEpoch, "entityScope": kindEnum, "cmdTypes": kindType,
		"excludeCmdTypes": kindType, "parties": kindParties, NamesParam: kindNames, "gameId": kindID, "nodeId": kindID,
	} {
		if got := kindOf(name); got != want {
			t.Errorf("kindOf(%s) = %d, want %d", name, got, want)
		}
	}
	for _, tc := range []struct {
		l         Listing
		name      string
		has, lack []Class
	}{
		{Snapshots, pFirst, []Class{ClassZero, ClassOver32, ClassOverU64, ClassBeside}, []Class{ClassExisting}},
		{Transactions, "first", []Class{ClassOver64, ClassEmpty}, []Class{ClassOver32}},
		{Games, pAfter, []Class{ClassIssued, ClassMalformed, ClassAbsent}, nil},
		{Snapshots, pAfter, []Class{ClassBeside}, []Class{ClassIssued}},
		{Parameters, pBefore, nil, []Class{ClassIssued}},
		{Rotations, pBefore, []Class{ClassIssued}, nil},
		{Transactions, "after", []Class{ClassIssued}, nil},
		{Games, "epochTo", []Class{ClassWindow30, ClassLatest, ClassBeyond}, []Class{ClassPrefix}},
		{Transactions, "cmdTypes", []Class{ClassUncarried, ClassMost}, nil},
		{Transactions, "parties", []Class{ClassMost, ClassCase}, []Class{ClassUncarried}},
		{Games, "gameId", []Class{ClassPrefix, ClassSuffix, ClassCase}, []Class{ClassTwo}},
		{Games, NamesParam, []Class{ClassUnknownName, ClassMisspelt, ClassNameCase}, nil},
		{Games, "entityScope", []Class{ClassNotName}, []Class{ClassPrefix}},
		{Games, pNewest, []Class{ClassSpelling}, nil},
	} {
		got := classesOf(tc.l, tc.name)
		for _, c := range tc.has {
			if !slices.Contains(got, c) {
				t.Errorf("%s %s: classes %v lack %s", tc.l, tc.name, got, c)
			}
		}
		for _, c := range tc.lack {
			if slices.Contains(got, c) {
				t.Errorf("%s %s: classes %v hold %s", tc.l, tc.name, got, c)
			}
		}
	}
	for l, want := range map[Listing]bool{Games: true, Rotations: true, Transactions: true, Snapshots: false, Parameters: false} {
		if hasFilter(l) != want {
			t.Errorf("hasFilter(%s) = %v", l, !want)
		}
	}
}

func TestPools(t *testing.T) {
	games := newPools([]Row{
		{Key: Key{Num: 9, Str: "g1"}, Individual: true, Players: []string{"p1", "p2"}},
		{Key: Key{Num: 9, Str: "g2"}, Team: true, Teams: []string{"t1", "t2"}, Members: []string{"p2", "p3"}},
		{Key: Key{Num: 8, Str: "g1"}, Individual: true, Players: []string{"p1"}},
	})
	if !slices.Equal(games.gameIDs, []string{"g1", "g2"}) || !slices.Equal(games.teams, []string{"t1", "t2"}) ||
		!slices.Equal(games.parties, []string{"p1", "p2", "p3"}) || !slices.Equal(games.epochs, []uint64{9, 8}) || len(games.keys) != 0 {
		t.Errorf("games pools %+v", games)
	}
	tx := newPools(txRows("9.1 A p1 p4", "9.0 B p2", "8.0 A p1"))
	if !slices.Equal(tx.types, []string{"A", "B"}) || !slices.Equal(tx.parties, []string{"p1", "p4", "p2"}) || !tx.carried["A"] || tx.carried["C"] {
		t.Errorf("transactions pools %+v", tx)
	}
	rot := newPools([]Row{{Key: Key{9, "n1", 0}}, {Key: Key{9, "n2", 0}}, {Key: Key{5, "n1", 0}}})
	if !slices.Equal(rot.keys, []string{"n1", "n2"}) || !slices.Equal(rot.epochs, []uint64{9, 5}) {
		t.Errorf("rotations pools %+v", rot)
	}
	g := newGen(New(Rotations, DefaultLimits, []Row{{Key: Key{9, "n1", 0}, Cursor: "a"}}, nil, true), 1)
	if !slices.Equal(g.pool("nodeId"), []string{"n1"}) || g.pool(pFirst) != nil {
		t.Errorf("rotations' pool of nodeId %v", g.pool("nodeId"))
	}
}

func TestRowValue(t *testing.T) {
	g := newGen(New(Snapshots, DefaultLimits, nil, nil, true), 1)
	gameRow := Row{Key: Key{Num: 9, Str: "g1"}, Team: true, Teams: []string{"t1"}, Members: []string{"m1"}}
	txRow := Row{Key: Key{Num: 9}, Type: "A", Submitter: "s1", Receivers: []string{"r1"}}
	for _, tc := range []struct {
		name string
		r    Row
		want []string
	}{
		{"gameId", gameRow, []string{"g1"}},
		{"nodeId", Row{Key: Key{Str: "n1"}}, []string{"n1"}},
		{"teamId", gameRow, []string{"t1"}},
		{"teamId", Row{Individual: true}, []string{""}},
		{"partyId", gameRow, []string{"m1"}},
		{"partyId", Row{}, []string{""}},
		{"parties", txRow, []string{"s1", "r1"}},
		{"cmdTypes", txRow, []string{"A"}},
		{"excludeCmdTypes", txRow, []string{"A"}},
		{pFirst, txRow, []string{""}},
	} {
		for range 8 {
			if got := g.rowValue(tc.name, &tc.r); !slices.Contains(tc.want, got) {
				t.Errorf("rowValue(%s) = %q, want one of %q", tc.name, got, tc.want)
			}
		}
	}
}

func TestAlternates(t *testing.T) {
	m := New(Snapshots, DefaultLimits, snaps(9, 8, 7), nil, true).WithMustCount(5)
	g := newGen(m, 1)
	games := newGen(gamesModel([]Span{{0, 9}}, 9, game(9, "a", individual("p1")), game(8, "b", team([]string{"t1"}, "p2"))), 1)
	for _, tc := range []struct {
		g    *gen
		name string
		vals []string
		want [][]string
	}{
		{g, pFirst, []string{"3"}, [][]string{{"4"}, {"2"}}},
		{g, pFirst, []string{"1"}, [][]string{{"2"}}},
		{g, pFirst, []string{"2"}, [][]string{{"3"}, {"1"}}},
		{g, pFirst, []string{"4"}, [][]string{{"5"}, {"3"}}},
		{g, pLast, []string{"5"}, [][]string{{"4"}}},
		{g, pFirst, []string{"x"}, nil},
		{g, pFirst, nil, nil},
		{g, pAfter, []string{"c9=="}, [][]string{{"c8=="}}},
		{g, pAfter, []string{"c8=="}, [][]string{{"c9=="}, {"c7=="}}},
		{g, pBefore, []string{"c7=="}, [][]string{{"c8=="}}},
		{g, pAfter, []string{"unheld"}, nil},
		{g, pNewest, []string{"true"}, [][]string{{"false"}}},
		{g, pNewest, []string{"false"}, [][]string{{"true"}}},
		{games, "entityScope", []string{ScopeTeams}, [][]string{{ScopeUnspecified}, {ScopeIndividuals}}},
		{games, "epochFrom", []string{"7"}, [][]string{{"8"}, {"6"}}},
		{games, "epochTo", []string{"0"}, [][]string{{"1"}, {"0"}}},
		{games, "epochTo", []string{"-1"}, nil},
	} {
		if got := tc.g.alternates(tc.name, tc.vals); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("alternates(%s, %v) = %v, want %v", tc.name, tc.vals, got, tc.want)
		}
	}
	// Another held value, the rest of the values kept.
	tx := newGen(New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p2"), nil, true), 1)
	for range 10 {
		for _, alt := range tx.alternates("cmdTypes", []string{"A", "Z"}) {
			if !slices.Equal(alt, []string{"B", "Z"}) {
				t.Errorf("alternates of cmdTypes A Z: %v", alt)
			}
		}
	}
	if got := newGen(New(Transactions, DefaultLimits, nil, nil, true), 1).alternates("parties", []string{"p"}); got != nil {
		t.Errorf("alternates with no pool: %v", got)
	}
}

func TestDiffers(t *testing.T) {
	base := Expected{Status: 200, Known: true, Rows: []Row{{Key: Key{Num: 1}}}, HasNext: True, HasPrev: False}
	for _, tc := range []struct {
		name string
		b    func(e *Expected)
		want bool
	}{
		{"the same", func(*Expected) {}, false},
		{"unknown", func(e *Expected) { e.Known = false }, false},
		{"status", func(e *Expected) { e.Status = 400 }, true},
		{"next", func(e *Expected) { e.HasNext = False }, true},
		{"previous", func(e *Expected) { e.HasPrev = True }, true},
		{"a row more", func(e *Expected) { e.Rows = append(e.Rows, Row{Key: Key{Num: 2}}) }, true},
		{"another row", func(e *Expected) { e.Rows = []Row{{Key: Key{Num: 2}}} }, true},
		{"another cursor only", func(e *Expected) { e.Rows = []Row{{Key: Key{Num: 1}, Cursor: "x"}} }, false},
		{"the level only", func(e *Expected) { e.Level = Should }, false},
	} {
		a, b := base, base
		b.Rows = slices.Clone(base.Rows)
		tc.b(&b)
		if differs(&a, &b) != tc.want || differs(&b, &a) != tc.want {
			t.Errorf("%s: differs %v, want %v", tc.name, !tc.want, tc.want)
		}
	}
}

func TestCoverageCounts(t *testing.T) {
	c := Coverage{
		Covered: []Covered{{Params: []string{"a"}, Level: Must}, {Params: []string{"a", "b"}, Level: Should},
			{Params: []string{"a", "c"}, Level: Must}, {Params: []string{"b", "c"}, Level: Must}, {Params: []string{"b"}, Level: Should}},
		Classes: map[string]map[Class]int{"a": {ClassZero: 2, ClassOne: 1}, "b": {ClassEmpty: 1}},
	}
	n, should := c.PairsCovered()
	if c.ParamsCovered() != 2 || n != 3 || should != 1 || c.ClassesCovered() != 3 {
		t.Errorf("params %d, pairs %d (%d SHOULD), classes %d; want 2, 3 (1), 3", c.ParamsCovered(), n, should, c.ClassesCovered())
	}
}

func TestKnownScore(t *testing.T) {
	rows := []Row{{Key: Key{Num: 1}}}
	for _, tc := range []struct {
		e    Expected
		want int
	}{
		{Expected{Level: Should, Volatile: true}, 0},
		{Expected{Level: Should}, 1},
		{Expected{Level: Must, Volatile: true}, 2},
		{Expected{Level: Should, Volatile: true, Rows: rows}, 4},
		{Expected{Level: Must, Rows: rows}, 7},
	} {
		if got := knownScore(&tc.e); got != tc.want {
			t.Errorf("knownScore(%+v) = %d, want %d", tc.e, got, tc.want)
		}
	}
}

func TestBearing(t *testing.T) {
	m := New(Snapshots, DefaultLimits, snaps(9, 8, 7, 6), nil, true)
	g := newGen(m, 1)
	for _, tc := range []struct {
		q    url.Values
		name string
		want int
	}{
		{q(pFirst, "2"), pFirst, bearsByDroping},
		{q(pFirst, "2", pNewest, "true"), pNewest, bearsByChange},
		{q(pFirst, "2", pLast, "1"), pLast, notBearing},
		{q(pFirst, "9"), pFirst, notBearing}, // the page holds every row, with one count more or less too
	} {
		if got := g.bearing(tc.q, m.Expect(tc.q), tc.name); got != tc.want {
			t.Errorf("bearing(%s, %s) = %d, want %d", Canonical(tc.q), tc.name, got, tc.want)
		}
	}
}

func TestSmallHelpers(t *testing.T) {
	if !windowClass(ClassWindow29) || !windowClass(ClassWindow31) || windowClass(ClassZero) {
		t.Error("windowClass")
	}
	if !hasAll(q("a", "1", "b", "2"), []string{"a", "b"}) || hasAll(q("a", "1"), []string{"a", "b"}) {
		t.Error("hasAll")
	}
	if c := contextCount(q(pFirst, "1", "nodeId", "n"), []string{"nodeId"}); c != pFirst {
		t.Errorf("contextCount = %q", c)
	}
	if c := contextCount(q(pFirst, "1"), []string{pFirst}); c != "" {
		t.Errorf("contextCount of a count named = %q", c)
	}
	if c := contextCount(q("last", "1", "parties", "p"), []string{"parties"}); c != "last" {
		t.Errorf("contextCount = %q", c)
	}
	if got := paramNames(q("epoch_from", "1", "epochFrom", "2", pFirst, "3")); !slices.Equal(got, []string{"epochFrom", pFirst}) {
		t.Errorf("paramNames = %v", got)
	}
	f := filtersOf(Games, q("epoch_from", "1", "gameId", "g", pFirst, "3", "bogus", "x"))
	if len(f) != 2 || f.Get("epochFrom") != "1" || f.Get("gameId") != "g" {
		t.Errorf("filtersOf = %v", f)
	}
	if len(filtersOf(Snapshots, q(pFirst, "1"))) != 0 {
		t.Error("filters of snapshots")
	}
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{Query{Source: SourceCore, Params: []string{"gameId"}}, "core gameId"},
		{Query{Source: SourcePair, Params: []string{"a", "b"}}, "pair a&b"},
		{Query{Source: SourcePair, Params: []string{"a", "b"}, Fixed: "a=x"}, "pair a&b (a=x)"},
		{Query{Source: SourceClass, Params: []string{"gameId"}, Class: ClassPrefix}, "class gameId: prefix"},
		{Query{Source: SourceTail}, "tail"},
		{Query{Source: SourceExample}, "example"},
	} {
		if got := tc.q.Provenance(); got != tc.want {
			t.Errorf("Provenance = %q, want %q", got, tc.want)
		}
	}
	w, v := without(q("a", "1", "b", "2"), "a"), with(q("a", "1"), "a", "2", "3")
	if w.Has("a") || w.Get("b") != "2" || !slices.Equal(v["a"], []string{"2", "3"}) {
		t.Errorf("without %v, with %v", w, v)
	}
}

// TestEmptyModels plans over listings that hold no row: nothing panics,
// what cannot be drawn says so, and the pairs of which the oracle ignores
// one are still asked.
func TestEmptyModels(t *testing.T) {
	for _, m := range []*Model{
		NewGames(DefaultLimits, nil, []Span{{0, 0}}, 0),
		New(Snapshots, DefaultLimits, nil, nil, true),
		New(Rotations, DefaultLimits, nil, nil, true),
		New(Parameters, DefaultLimits, nil, nil, true),
		New(Transactions, DefaultLimits, nil, nil, true),
	} {
		p := NewPlan(m, 1, 300, nil)
		qs := append(p.First(), p.Then(nil)...)
		if len(qs) == 0 {
			t.Errorf("%s: no queries", m.Listing)
		}
		c := p.Coverage()
		if len(c.Uncovered) == 0 {
			t.Errorf("%s: everything covered with no row", m.Listing)
		}
		if m.Listing.paged() && !slices.ContainsFunc(qs, func(q Query) bool {
			return q.Fixed == "not load-bearing" && slices.Equal(q.Params, []string{pFirst, pLast})
		}) {
			t.Errorf("%s: the pair first&last is not asked", m.Listing)
		}
	}
}

// TestContext checks what a candidate is given besides its parameters.
func TestContext(t *testing.T) {
	rich := richModels()
	games, tx := rich[0], rich[4]
	whole := New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p2"), nil, true)
	var windows, cursors, lasts, wholeCursors, bothCounts int
	for seed := int64(1); seed <= 40; seed++ {
		g := newGen(games, seed)
		qg := url.Values{"gameId": {"g"}}
		g.context(qg, &g.rows[0])
		if !qg.Has(pFirst) {
			t.Errorf("no count given: %s", Canonical(qg))
		}
		if qg.Has("epochFrom") {
			windows++
			if qg.Get("epochTo") == "" {
				t.Errorf("a window given at one end: %s", Canonical(qg))
			}
		}
		gt := newGen(tx, seed)
		qt := url.Values{"parties": {"p"}}
		gt.context(qt, &gt.rows[0])
		if qt.Has("after") {
			cursors++
		}
		ql := url.Values{"before": {"9.0"}}
		gt.context(ql, &gt.rows[0])
		if ql.Has("last") && !ql.Has("first") {
			lasts++
		}
		qb := url.Values{"before": {"9.0"}, "after": {"8.0"}}
		gt.context(qb, &gt.rows[0])
		if hasCount(qb) {
			bothCounts++
		}
		qlast := url.Values{"last": {"2"}}
		gt.context(qlast, &gt.rows[0])
		if qlast.Has("before") {
			cursors++
		}
		gw := newGen(whole, seed)
		qw := url.Values{"parties": {"p"}}
		gw.context(qw, &gw.rows[0])
		if qw.Has("after") {
			wholeCursors++
		}
	}
	if windows < 5 || windows > 35 || cursors < 5 || lasts != 40 || wholeCursors != 0 || bothCounts != 0 {
		t.Errorf("of 40: %d games windows, %d transaction cursors (gap), %d backward counts, %d cursors (whole), %d counts beside both cursors",
			windows, cursors, lasts, wholeCursors, bothCounts)
	}
}

// TestExistingValues checks the held values a candidate gets.
func TestExistingValues(t *testing.T) {
	rich := richModels()
	g := newGen(rich[4], 1)
	r := &g.rows[0]
	twice := 0
	for range 40 {
		v := g.existing("parties", r)
		if len(v) == 0 || len(v) > 2 {
			t.Fatalf("parties %v", v)
		}
		if len(v) == 2 {
			twice++
			if v[0] == v[1] {
				t.Errorf("the same party twice: %v", v)
			}
		}
		if id := g.existing("gameId", &Row{}); len(id) != 0 {
			t.Errorf("a game ID from transactions: %v", id)
		}
	}
	noTeams := newGen(gamesModel([]Span{{0, 9}}, 9, game(9, "a", individual("p1")), game(8, "b", individual("p2"))), 1)
	for range 10 {
		if q := noTeams.candidate([]string{"teamId"}); q.Has("teamId") {
			t.Errorf("a teamId drawn where no game has a team: %s", Canonical(q))
		}
	}
	if twice == 0 || twice == 40 {
		t.Errorf("%d of 40 draws of parties give two values", twice)
	}
	gg := newGen(rich[0], 1)
	for range 20 {
		from, _ := strconv.Atoi(gg.existing("epochFrom", &gg.rows[0])[0])
		to, _ := strconv.Atoi(gg.existing("epochTo", &gg.rows[0])[0])
		if from < 45 || from > 59 || to < 59 || to > 73 {
			t.Errorf("epochs from %d to %d, want within 14 of 59", from, to)
		}
	}
}

// TestWhyNot checks the reason a search gives when no candidate made its
// parameters load-bearing.
func TestWhyNot(t *testing.T) {
	snap := newGen(New(Snapshots, DefaultLimits, snaps(3, 2, 1), nil, true), 1)
	params := newGen(New(Parameters, DefaultLimits, nil, nil, true), 1)
	games := newGen(gamesModel([]Span{{0, 9}}, 9, game(9, "a", individual("p1")), game(8, "b", individual("p2"))), 1)
	twice := newGen(gamesModel([]Span{{0, 9}}, 9, game(9, "a", individual("p1")), game(8, "a", individual("p2"))), 1)
	whys := func(n int, w ...string) map[string]int {
		out := map[string]int{}
		for _, x := range w {
			out[x] = n
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		g     *gen
		names []string
		st    searchStats
		want  string
	}{
		{"every answer unknown", snap, []string{pFirst}, searchStats{tries: 5, unknown: 5},
			"none of 5 candidates drawn had an answer within the rows the model holds"},
		{"the oracle's reason", snap, []string{pFirst, pLast}, searchStats{tries: 4, weak: map[string]int{pLast: 4},
			whys: map[string]map[string]int{pLast: whys(4, "first with last (first wins)", "no count")}},
			"pagination.last never changes the answer beside pagination.first: first with last (first wins)"},
		{"the first of two reasons as frequent", snap, []string{pFirst, pLast}, searchStats{tries: 4, weak: map[string]int{pLast: 4},
			whys: map[string]map[string]int{pLast: whys(3, "z last", "a last")}},
			"pagination.last never changes the answer beside pagination.first: a last"},
		{"the more frequent reason", snap, []string{pFirst, pLast}, searchStats{tries: 4, weak: map[string]int{pLast: 4},
			whys: map[string]map[string]int{pLast: {"a last": 2, "z last": 3}}},
			"pagination.last never changes the answer beside pagination.first: z last"},
		{"a reason in under half the candidates", snap, []string{pFirst, pLast}, searchStats{tries: 10, weak: map[string]int{pLast: 10},
			whys: map[string]map[string]int{pLast: whys(4, "first with last (first wins)")}},
			"in 10 candidates drawn from the held rows, dropping or changing pagination.last never changed the answer beside pagination.first: the data held no such case"},
		{"a reason in exactly half the candidates", snap, []string{pFirst, pLast}, searchStats{tries: 8, weak: map[string]int{pLast: 8},
			whys: map[string]map[string]int{pLast: whys(4, "first with last (first wins)")}},
			"pagination.last never changes the answer beside pagination.first: first with last (first wins)"},
		{"a reason in one of three candidates", snap, []string{pFirst, pLast}, searchStats{tries: 3, weak: map[string]int{pLast: 3},
			whys: map[string]map[string]int{pLast: whys(1, "first with last (first wins)")}},
			"in 3 candidates drawn from the held rows, dropping or changing pagination.last never changed the answer beside pagination.first: the data held no such case"},
		{"a reason that names another", snap, []string{pFirst, pLast}, searchStats{tries: 4, weak: map[string]int{pLast: 4},
			whys: map[string]map[string]int{pLast: whys(4, "no count")}},
			"in 4 candidates drawn from the held rows, dropping or changing pagination.last never changed the answer beside pagination.first: the data held no such case"},
		{"the weaker of two", snap, []string{pFirst, pNewest}, searchStats{tries: 6, weak: map[string]int{pFirst: 1, pNewest: 5}},
			"in 6 candidates drawn from the held rows, dropping or changing pagination.newestFirst never changed the answer beside pagination.first"},
		{"a tie: the first named", snap, []string{pFirst, pNewest}, searchStats{tries: 6, weak: map[string]int{pFirst: 3, pNewest: 3}},
			"in 6 candidates drawn from the held rows, dropping or changing pagination.first never changed the answer beside pagination.newestFirst"},
		{"half the answers unknown", snap, []string{pFirst}, searchStats{tries: 6, unknown: 3, weak: map[string]int{pFirst: 3}},
			"in 6 candidates drawn from the held rows, dropping or changing pagination.first never changed the answer: the data held no such case"},
		{"most answers unknown", snap, []string{pFirst}, searchStats{tries: 6, unknown: 4, weak: map[string]int{pFirst: 2}},
			"in 6 candidates drawn from the held rows (4 of them had answers beyond the rows the model holds), dropping"},
		{"newestFirst of parameters", params, []string{pFirst, pNewest}, searchStats{tries: 4, weak: map[string]int{pNewest: 4}},
			"network parameters are in key order whatever pagination.newestFirst says"},
		{"a gameId selects one game", games, []string{pFirst, "gameId"}, searchStats{tries: 4, weak: map[string]int{pFirst: 4}},
			"a gameId selects one game at most (every held game has an ID of its own), so pagination.first cannot change the answer beside it"},
		{"a gameId held twice", twice, []string{pFirst, "gameId"}, searchStats{tries: 4, weak: map[string]int{pFirst: 4}},
			"in 4 candidates drawn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.g.whyNot(tc.names, tc.st); !strings.HasPrefix(got, tc.want) {
				t.Errorf("whyNot = %q, want it to begin %q", got, tc.want)
			}
		})
	}
}

// TestEnumBeside checks the queries of an enumerated value beside another
// parameter: the value fixed, the other given, the best known answer
// kept, even when no answer holds a row.
func TestEnumBeside(t *testing.T) {
	empty := newGen(New(Snapshots, DefaultLimits, nil, nil, true), 1)
	q := empty.enumBeside(pNewest, "false", pFirst)
	if q == nil || q.Get(pNewest) != "false" || !q.Has(pFirst) {
		t.Errorf("over an empty listing: %v", q)
	}
	g := newGen(richModels()[0], 1)
	for range 5 {
		q := g.enumBeside("entityScope", ScopeIndividuals, "teamId")
		e := g.m.Expect(q)
		if q.Get("entityScope") != ScopeIndividuals || !q.Has("teamId") || !e.Known || len(e.Rows) == 0 {
			t.Errorf("%s: known %v rows %d, want a known answer holding rows", Canonical(q), e.Known, len(e.Rows))
		}
	}
}

// TestRepeatedClassesOfFewValues checks the repeated values a small pool
// gives: two of two, and a reason when there are fewer than asked.
func TestRepeatedClassesOfFewValues(t *testing.T) {
	two := newGen(New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p1", "8.0 A p1"), nil, true), 1)
	q, why := two.drawClass("cmdTypes", ClassTwo)
	if why != "" || len(q["cmdTypes"]) != 2 {
		t.Errorf("two types of two: %v (%s)", q, why)
	}
	if q, why := two.drawClass("cmdTypes", ClassMost); why != "" || len(q["cmdTypes"]) != 2 {
		t.Errorf("the most types of two: %v (%s)", q, why)
	}
	if _, why := two.drawClass("cmdTypes", ClassSeveral); !strings.Contains(why, "the held rows give 2 values of cmdTypes") {
		t.Errorf("three types of two: %q", why)
	}
	one := newGen(New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 A p1"), nil, true), 1)
	if _, why := one.drawClass("parties", ClassTwo); !strings.Contains(why, "the held rows give 1 values of parties") {
		t.Errorf("two parties of one: %q", why)
	}
}
