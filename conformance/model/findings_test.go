package model

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestClauses(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Listing
		a    Aspect
		q    url.Values
		want []Clause
	}{
		{"a flag cites the flag", Games, AspectNext, q("partyId", "p"), []Clause{clauseNext}},
		{"the other flag", Snapshots, AspectPrev, q(pLast, "2"), []Clause{clausePrev}},
		{"cursors cite the page info", Rotations, AspectCursors, q(pFirst, "2"), []Clause{clauseCursors}},
		{"a filter before the count", Games, AspectRows, q("partyId", "p", pFirst, "3"), []Clause{clauseParty, clauseFirst}},
		{"every filter given, most specific first", Games, AspectSize, q("gameId", "g", "teamId", "t", "entityScope", ScopeTeams), []Clause{clauseTeam, clauseGameID, clauseScope}},
		{"snake_case is read as the spec's name", Games, AspectRows, q("party_id", "p"), []Clause{clauseParty}},
		{"epochFrom alone: rule 3", Games, AspectRows, q("epochFrom", "5"), []Clause{clauseEpochs3}},
		{"epochTo alone: rule 2", Games, AspectRows, q("epochTo", "5"), []Clause{clauseEpochs2}},
		{"a window of 31 epochs: rule 4", Games, AspectRows, q("epochFrom", "5", "epochTo", "35"), []Clause{clauseEpochs4}},
		{"a window of 30 epochs: inclusive", Games, AspectRows, q("epochFrom", "5", "epochTo", "34"), []Clause{clauseWindow}},
		{"a reversed window: inclusive ends", Games, AspectRows, q("epochFrom", "9", "epochTo", "5"), []Clause{clauseWindow}},
		{"an epoch that does not parse", Games, AspectRows, q("epochFrom", "x", "epochTo", "99"), []Clause{clauseWindow}},
		{"cursors and order", Snapshots, AspectRows, q(pAfter, "c", pNewest, "false", pFirst, "2"), []Clause{clauseAfter, clauseNewest, clauseFirst}},
		{"backwards", Snapshots, AspectRows, q(pBefore, "c", pLast, "2"), []Clause{clauseBefore, clauseLast}},
		{"no parameter: the default order", Parameters, AspectRows, nil, []Clause{clauseNewest}},
		{"no parameter, status", Parameters, AspectStatus, nil, []Clause{clauseGET}},
		{"unknown parameters are not named", Parameters, AspectRows, q("pagination.frist", "2"), []Clause{clauseNewest}},
		{"nodeId", Rotations, AspectRows, q("nodeId", "n", pFirst, "1"), []Clause{clauseNodeID, clauseFirst}},
		{"transactions: filters then the count", Transactions, AspectRows, q("parties", "p", "cmdTypes", "A", "excludeCmdTypes", "B", "first", "2"), []Clause{clauseTypes, clauseExclude, clauseParties, clauseTxFirst}},
		{"transactions: a window", Transactions, AspectRows, q("after", "1.0", "before", "9.0"), []Clause{clauseTxWindow}},
		{"transactions: after alone pages forwards", Transactions, AspectSize, q("after", "1.0"), []Clause{clauseTxFirst}},
		{"transactions: last", Transactions, AspectRows, q("last", "3"), []Clause{clauseTxLast}},
		{"transactions: before alone pages backwards", Transactions, AspectRows, q("before", "3.1"), []Clause{clauseTxLast}},
		{"transactions: nothing", Transactions, AspectRows, nil, []Clause{clauseTxOrder}},
		{"transactions: first with before refused", Transactions, AspectStatus, q("first", "1", "before", "2.0"), []Clause{clauseTxFirst}},
		{"transactions: last with after refused", Transactions, AspectStatus, q("last", "1", "after", "2.0"), []Clause{clauseTxLast}},
		{"transactions: a status of a plain query", Transactions, AspectStatus, q("first", "1"), []Clause{clauseTxFirst}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clauses(tc.l, tc.a, tc.q); !slices.Equal(got, tc.want) {
				t.Errorf("Clauses = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestClausesQuoteTheSpec checks every clause against the spec's own words,
// where the spec lies beside the checkout (see conformance's
// TestCitationsQuoteTheSpec).
func TestClausesQuoteTheSpec(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "spec", "chain-data-query-api.md"))
	if err != nil {
		t.Skipf("the spec is not beside the checkout (%v): clauses not compared", err)
	}
	flat := regexp.MustCompile(`\s*\|\s*`).ReplaceAllString(string(data), " | ")
	flat = strings.Join(strings.Fields(flat), " ")
	field := regexp.MustCompile(`^[A-Za-z.]+: `)
	for _, c := range []Clause{clauseFirst, clauseAfter, clauseLast, clauseBefore, clauseNewest, clauseNext, clausePrev,
		clauseCursors, clauseGET, clauseGameID, clauseScope, clauseTeam, clauseParty, clauseWindow, clauseEpochs1,
		clauseEpochs2, clauseEpochs3, clauseEpochs4, clauseNodeID, clauseTxOrder, clauseTxFirst, clauseTxLast,
		clauseTxWindow, clauseTypes, clauseExclude, clauseParties} {
		sec := strings.SplitN(c.Section, " ", 2)[0]
		if !strings.Contains(flat, "## "+sec+". ") && !strings.Contains(flat, "### "+sec+" ") {
			t.Errorf("section %q is not the spec's", c.Section)
		}
		for _, part := range strings.Split(c.Quote, "; ") {
			part = field.ReplaceAllString(part, "")
			if !strings.Contains(flat, part) {
				t.Errorf("%q (section %s) is not in the spec", part, c.Section)
			}
		}
	}
}

func TestSideBySide(t *testing.T) {
	rows := snaps(9, 8, 7, 6, 5, 4, 3)
	for _, tc := range []struct {
		name      string
		want, got []Row
		lines     int
		has       []string
		hasNot    []string
	}{
		{"the same", rows, rows, 5, nil, nil},
		{"one row missing", rows[:4], append(slices.Clone(rows[:2]), rows[3]), 10,
			[]string{"expected   got", "     1  9          9", ">    3  7          6", ">    4  6          (none)"}, nil},
		{"context from two before the first difference", rows, append(slices.Clone(rows[:5]), snaps(1, 0)...), 3,
			[]string{"     4  6", "     5  5", ">    6  4          1", "... 1 more places (expected 7 rows, got 7)"}, []string{"  3  7", ">    7"}},
		{"the answer a row short", rows[:3], rows[:2], 5, []string{">    3  7          (none)"}, nil},
		{"the width of the places shown", []Row{{Key: Key{Num: 1, Str: "a"}}, {Key: Key{Num: 1, Str: "a-long-identifier"}}}, []Row{{Key: Key{Num: 1, Str: "b"}}}, 1,
			[]string{"       expected   got\n>    1  1/a        1/b\n"}, nil},
		{"a long key widens its column", []Row{{Key: Key{Num: 1, Str: "a-long-identifier"}}, {Key: Key{Num: 1, Str: "b"}}}, []Row{{Key: Key{Num: 1, Str: "x"}}, {Key: Key{Num: 1, Str: "b"}}}, 2,
			[]string{">    1  1/a-long-identifier   1/x\n     2  1/b                   1/b\n"}, nil},
		{"an extra row", rows[:1], rows[:2], 4, []string{">    2  (none)     8"}, nil},
		{"at least one line", rows[:1], snaps(3), 0, []string{">    1  9"}, []string{"more places"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SideBySide(tc.want, tc.got, tc.lines)
			if len(tc.has) == 0 && got != "" {
				t.Fatalf("want nothing, got\n%s", got)
			}
			for _, s := range tc.has {
				if !strings.Contains(got, s) {
					t.Errorf("missing %q in\n%s", s, got)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(got, s) {
					t.Errorf("unwanted %q in\n%s", s, got)
				}
			}
		})
	}
}

func TestShrinkValues(t *testing.T) {
	m := New(Snapshots, DefaultLimits, snaps(9, 8, 7, 6, 5, 4, 3, 2, 1), nil, true)
	cursor := func(h uint64) string { return "c" + strconv.FormatUint(h, 10) + "==" }
	// The deployment differs for any cursor at or below height 6.
	differs := func(q url.Values) (Difference, bool) {
		c := q.Get(pAfter)
		if c == "" {
			return Difference{}, false
		}
		h, _ := strconv.ParseUint(strings.Trim(c, "c="), 10, 64)
		return Difference{Aspect: AspectRows, Detail: c}, h <= 6
	}
	got, d := ShrinkWith(q(pAfter, cursor(2), pFirst, "5"), Difference{Aspect: AspectRows}, differs, m.Simpler)
	if got.Get(pAfter) != "c6==" || len(got) != 1 || d.Detail != "c6==" {
		t.Errorf("shrunk to %s (%s), want the cursor nearest the start that still differs", Canonical(got), d.Detail)
	}
	// Without a simplifier, values stay.
	got, _ = Shrink(q(pAfter, cursor(2)), Difference{Aspect: AspectRows}, differs)
	if got.Get(pAfter) != "c2==" {
		t.Errorf("shrunk to %s without a simplifier", Canonical(got))
	}
	// An aspect other than the one shrunk is not taken.
	other := func(q url.Values) (Difference, bool) { return Difference{Aspect: AspectSize}, true }
	got, _ = ShrinkWith(q(pAfter, cursor(2)), Difference{Aspect: AspectRows}, other, m.Simpler)
	if got.Get(pAfter) != "c2==" {
		t.Errorf("shrunk to %s on another aspect", Canonical(got))
	}
}

func TestSimpler(t *testing.T) {
	games := gamesModel([]Span{{0, 40}}, 40,
		game(40, "a", individual("p1", "p2")),
		game(40, "b", team([]string{"t1"}, "p1", "p3")),
		game(30, "c", team([]string{"t2", "t3"}, "p4")),
		game(11, "d", individual("p5")),
		game(0, "e", individual("p6")))
	tx := New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p2 p1", "8.0 C p3", "7.0 A p2", "6.0 D p4"), nil, true)
	for _, tc := range []struct {
		name         string
		m            *Model
		param, value string
		want         []string
	}{
		{"a game id: first, half way, just before", games, "gameId", "e", []string{"a", "c", "d"}},
		{"the first game id is simplest", games, "gameId", "a", nil},
		{"an id not held: the first ones", games, "gameId", "zz", []string{"a", "b", "c"}},
		{"a team", games, "teamId", "t3", []string{"t1", "t2", "t2"}},
		{"a party", games, "party_id", "p5", []string{"p1", "p3", "p4"}},
		{"an epoch towards the latest", games, "epochFrom", "10", []string{"40", "25", "11"}},
		{"an epoch above the latest", games, "epochTo", "50", []string{"40", "45", "49"}},
		{"the latest epoch", games, "epochTo", "40", nil},
		{"an epoch that does not parse", games, "epochTo", "x", nil},
		{"a cursor", games, pBefore, "g0e=", []string{"g40a=", "g30c=", "g11d="}},
		{"a transaction cursor", tx, "after", "6.0", []string{"9.1", "8.0", "7.0"}},
		{"parties", tx, "parties", "p4", []string{"p1", "p2", "p3"}},
		{"a command type", tx, "cmdTypes", "D", []string{"A", "B", "C"}},
		{"a parameter without simpler values", tx, "first", "3", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.Simpler(tc.param, tc.value); !slices.Equal(got, tc.want) {
				t.Errorf("Simpler(%s, %s) = %v, want %v", tc.param, tc.value, got, tc.want)
			}
		})
	}
}

func TestSimplerValues(t *testing.T) {
	for _, tc := range []struct {
		k    string
		vals []string
		want []string
	}{
		{pFirst, []string{"40"}, []string{"1", "20", "39"}},
		{"last", []string{"2"}, []string{"1"}},
		{pFirst, []string{"1"}, nil},
		{pFirst, []string{"x"}, nil},
		{pFirst, []string{"4", "5"}, nil},
		{"gameId", []string{"g"}, nil},
	} {
		if got := simplerValues(tc.k, tc.vals, nil); !slices.Equal(got, tc.want) {
			t.Errorf("simplerValues(%s, %v) = %v, want %v", tc.k, tc.vals, got, tc.want)
		}
	}
	dup := func(string, string) []string { return []string{"v", "a", "a", "b"} }
	if got := simplerValues("gameId", []string{"v"}, dup); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("simplerValues kept %v, want the value itself and repeats left out", got)
	}
}

func TestFailurePrimary(t *testing.T) {
	f := Failure{Differences: []Difference{
		{Aspect: AspectTies, Level: Should}, {Aspect: AspectNext, Level: Must}, {Aspect: AspectRows, Level: Should}, {Aspect: AspectSize, Level: Must},
	}}
	if p := f.Primary(); p.Aspect != AspectSize || p.Level != Must {
		t.Errorf("primary %v, want the firmest level, then the first aspect read", p)
	}
	if AspectRank("unknown") != 7 || AspectRank(AspectStatus) != 0 {
		t.Error("AspectRank")
	}
}

// TestFailurePrimaryKeepsTheFirstOfEquals: of two differences equally
// firm and of one aspect, or of one level and a later aspect, the first
// stays the primary.
func TestFailurePrimaryKeepsTheFirstOfEquals(t *testing.T) {
	f := Failure{Differences: []Difference{
		{Aspect: AspectRows, Level: Must, Detail: "first"},
		{Aspect: AspectRows, Level: Must, Detail: "second"},
		{Aspect: AspectNext, Level: Must, Detail: "a later aspect"},
	}}
	if got := f.Primary().Detail; got != "first" {
		t.Errorf("primary %q, want the first of the equals", got)
	}
}
