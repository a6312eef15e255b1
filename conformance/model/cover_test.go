package model

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hexID makes a 64-character hex ID, distinct for each tag and number.
func hexID(tag byte, n int) string {
	return strings.Repeat(string("0123456789abcdef"[int(tag)%16]), 56) + fmt.Sprintf("%08x", n*2654435761%(1<<32))
}

// richModels are models shaped like the default mock's data, small: games
// recurring every epoch, individual and team, with parties in both roles;
// snapshots, key rotations of a few nodes, network parameters; and
// transactions of many types and parties, held as a head and a tail.
func richModels() []*Model {
	var games []Row
	teams := []string{hexID('t', 1), hexID('t', 2), hexID('t', 3)}
	party := func(i int) string { return hexID('p', i%14) }
	for e := uint64(0); e < 60; e++ {
		for g := range 5 {
			r := Row{Key: Key{Num: e, Str: hexID('a', g)}}
			if g%2 == 0 {
				r.Individual, r.Players = true, []string{party(g + int(e)), party(g + int(e) + 3), party(g + 1)}
			} else {
				r.Team, r.Teams = true, []string{teams[(g+int(e))%3], teams[(g+int(e)+1)%3]}
				r.Members = []string{party(g + int(e) + 1), party(g + 5)}
			}
			games = append(games, r)
		}
	}
	slices.SortFunc(games, func(a, b Row) int { return newer(a.Key, b.Key) })
	for i := range games {
		games[i].Cursor = encodePagedCursor(Games, games[i].Key)
	}
	paged := func(l Listing, keys []Key) []Row {
		rows := make([]Row, len(keys))
		for i, k := range keys {
			rows[i] = Row{Key: k, Cursor: encodePagedCursor(l, k)}
		}
		slices.SortFunc(rows, func(a, b Row) int { return newer(a.Key, b.Key) })
		return rows
	}
	var snapKeys, rotKeys, paramKeys []Key
	for i := range 240 {
		snapKeys = append(snapKeys, Key{Num: uint64(1000 + 250*i)})
		rotKeys = append(rotKeys, Key{Num: uint64(500 + 37*(i/2)), Str: hexID('n', i%5)})
	}
	for i := range 60 {
		paramKeys = append(paramKeys, Key{Str: fmt.Sprintf("section%d.key%02d", i%4, i)})
	}
	types := classCommandTypes[:11]
	var txs []Row
	for b := uint64(2000); b > 100; b -= 5 {
		for i := range 3 {
			n := int(b) + i
			r := Row{Key: Key{Num: b, Sub: uint64(i)}, Cursor: fmt.Sprintf("%d.%d", b, i), Type: types[n%len(types)], Submitter: hexID('s', n%23)}
			if n%7 == 0 {
				r.Receivers = []string{hexID('s', (n+3)%23)}
			}
			txs = append(txs, r)
		}
	}
	return []*Model{
		NewGames(DefaultLimits, games, []Span{{0, 59}}, 59).WithMustCount(50),
		New(Snapshots, DefaultLimits, paged(Snapshots, snapKeys), nil, true).WithMustCount(50),
		New(Rotations, DefaultLimits, paged(Rotations, rotKeys), nil, true).WithMustCount(50),
		New(Parameters, DefaultLimits, paged(Parameters, paramKeys), nil, true).WithMustCount(50),
		New(Transactions, DefaultLimits, txs[:600], txs[len(txs)-60:], false).WithMustCount(50),
	}
}

// oracleAnswers are the answers a conforming deployment gives the queries:
// the oracle's, where it knows them.
func oracleAnswers(m *Model, qs []Query) []PlanAnswer {
	out := make([]PlanAnswer, len(qs))
	for i, q := range qs {
		out[i].Query = q.Values
		if e := m.Expect(q.Values); e.Known && e.Status == 200 {
			out[i].Page = &Page{Status: 200, Rows: e.Rows}
		}
	}
	return out
}

// uncoveredPairs are the pairs no data makes load-bearing: the spec or
// docs/behaviour.md ignores one of them beside the other; and for network
// parameters, newestFirst, which their order ignores.
var uncoveredPairs = map[string]string{
	pFirst + "&" + pLast:   "first with last (first wins)",
	pFirst + "&" + pBefore: "first with before (before is ignored)",
	pAfter + "&" + pLast:   "last with after (after is ignored)",
}

// TestCoreCoversRichModels checks the covering core on models shaped like
// the mock's data: every parameter and every pair of parameters is
// load-bearing in some query (the pairs the spec or behaviour.md makes
// one ignore beside the other excepted, with that reason), and every value
// class of every parameter is drawn.
func TestCoreCoversRichModels(t *testing.T) {
	for _, m := range richModels() {
		t.Run(m.Listing.String(), func(t *testing.T) {
			p := NewPlan(m, 1, 300, nil)
			first := p.First()
			then := p.Then(oracleAnswers(m, first))
			c := p.Coverage()
			if c.Queries != len(first)+len(then) || c.Queries != 300 {
				t.Errorf("%d queries (%d first, %d then), want 300", c.Queries, len(first), len(then))
			}
			pairs, _ := c.PairsCovered()
			wantParams, wantPairs := c.ParamCount, c.PairCount
			if m.Listing.paged() {
				wantPairs -= len(uncoveredPairs)
			}
			if m.Listing == Parameters {
				wantParams, wantPairs = wantParams-1, wantPairs-4 // newestFirst, and its pairs with the counts and cursors
			}
			if c.ParamsCovered() != wantParams || pairs != wantPairs {
				t.Errorf("%d/%d parameters and %d/%d pairs load-bearing, want %d and %d; uncovered: %v", c.ParamsCovered(), c.ParamCount, pairs, c.PairCount, wantParams, wantPairs, c.Uncovered)
			}
			for _, u := range c.Uncovered {
				switch {
				case u.Kind == UncoveredPair && uncoveredPairs[u.What] != "":
					if !strings.HasSuffix(u.Reason, uncoveredPairs[u.What]) {
						t.Errorf("%s uncovered because %q, want the oracle's reason %q", u.What, u.Reason, uncoveredPairs[u.What])
					}
				case m.Listing == Parameters && strings.Contains(u.What, pNewest):
					if !strings.Contains(u.Reason, "key order whatever pagination.newestFirst says") {
						t.Errorf("%s uncovered because %q", u.What, u.Reason)
					}
				default:
					t.Errorf("uncovered %s %s: %s", u.Kind, u.What, u.Reason)
				}
			}
			if c.ClassesCovered() != c.ClassCount {
				t.Errorf("%d of %d value classes drawn", c.ClassesCovered(), c.ClassCount)
			}
			checkLoadBearing(t, m, p, first)
		})
	}
}

// checkLoadBearing checks, apart from the generator's own reckoning, that
// each core and pair query makes its parameters load-bearing: dropping the
// parameter, or giving it another value of its kind, changes the answer.
func checkLoadBearing(t *testing.T, m *Model, p *Plan, qs []Query) {
	t.Helper()
	g := newGen(m, 99)
	claimed := map[string]bool{}
	for _, c := range p.Coverage().Covered {
		claimed[c.Query] = true
	}
	checked := 0
	for _, q := range qs {
		if q.Source != SourceCore && q.Source != SourcePair || !claimed[Canonical(q.Values)] {
			continue
		}
		checked++
		e := m.Expect(q.Values)
		if !e.Known {
			t.Errorf("%s %s: the model does not know the answer", q.Provenance(), Canonical(q.Values))
			continue
		}
		for _, name := range q.Params {
			if differs(e, m.Expect(without(q.Values, name))) {
				continue
			}
			changed := false
			for _, v := range otherValues(g, name, q.Values[name]) {
				if differs(e, m.Expect(with(q.Values, name, v))) {
					changed = true
					break
				}
			}
			if !changed {
				t.Errorf("%s: %s is not load-bearing in %s", q.Provenance(), name, Canonical(q.Values))
			}
		}
	}
	if n := len(p.Coverage().Covered); checked < n-2 { // a covered query may be equal to one asked before it
		t.Errorf("%d queries checked of %d covered", checked, n)
	}
}

// otherValues are other values of a parameter's kind the model holds:
// each count to the largest decided, the cursors of the rows near the
// cursor's and of every tenth row, each epoch, each held ID, the booleans
// and scopes.
func otherValues(g *gen, name string, vals []string) []string {
	var out []string
	switch kindOf(name) {
	case kindCount:
		for n := 1; n <= g.m.mustCount; n++ {
			out = append(out, strconv.Itoa(n))
		}
	case kindCursor:
		// The rows within five of the cursor's, and every tenth.
		at, ok := g.byCursor[vals[0]]
		for i, r := range g.rows {
			if i%10 == 0 || ok && i >= at-5 && i <= at+5 {
				out = append(out, r.Cursor)
			}
		}
	case kindBool:
		out = []string{"true", "false"}
	case kindEnum:
		out = slices.Clone(enumValues["entityScope"])
	case kindEpoch:
		for _, e := range g.pools.epochs {
			out = append(out, strconv.FormatUint(e, 10))
		}
	default:
		out = slices.Clone(g.pool(name))
	}
	return slices.DeleteFunc(out, func(v string) bool { return len(vals) == 1 && v == vals[0] })
}

// TestClassValues checks the values each class gives: the classes the
// self-tests' defects need are what they say.
func TestClassValues(t *testing.T) {
	models := richModels()
	games, tx := models[0], models[4]
	held := func(m *Model, name, v string) bool { return slices.Contains(newGen(m, 1).pool(name), v) }
	for _, tc := range []struct {
		m     *Model
		param string
		class Class
		ok    func(v []string) bool
	}{
		{games, "gameId", ClassExisting, func(v []string) bool { return held(games, "gameId", v[0]) }},
		{games, "gameId", ClassAbsent, func(v []string) bool { return len(v[0]) == 64 && !held(games, "gameId", v[0]) }},
		{games, "gameId", ClassPrefix, func(v []string) bool {
			return len(v[0]) == 32 && !held(games, "gameId", v[0]) && slices.ContainsFunc(newGen(games, 1).pool("gameId"), func(id string) bool { return strings.HasPrefix(id, v[0]) })
		}},
		{games, "gameId", ClassSuffix, func(v []string) bool {
			return len(v[0]) == 32 && slices.ContainsFunc(newGen(games, 1).pool("gameId"), func(id string) bool { return strings.HasSuffix(id, v[0]) })
		}},
		{games, "gameId", ClassCase, func(v []string) bool {
			return held(games, "gameId", strings.ToLower(v[0])) && v[0] != strings.ToLower(v[0])
		}},
		{games, "gameId", ClassBeside, func(v []string) bool {
			return !held(games, "gameId", v[0]) && held(games, "gameId", v[0][:63]+string("f0123456789abcde"[strings.IndexByte("0123456789abcdef", v[0][63])]))
		}},
		{games, "gameId", ClassEmpty, func(v []string) bool { return v[0] == "" }},
		{games, "epochFrom", ClassBeyond, func(v []string) bool { return v[0] == "60" }},
		{games, "epochTo", ClassLatest, func(v []string) bool { return v[0] == "59" }},
		{games, "epochTo", ClassOverU64, func(v []string) bool { return v[0] == "18446744073709551616" }},
		{games, "entityScope", ClassCase, func(v []string) bool { return v[0] == "entity_scope_teams" }},
		{games, pFirst, ClassDecided, func(v []string) bool { return v[0] == "50" }},
		{games, pFirst, ClassMaxPage, func(v []string) bool { return v[0] == "5000" }},
		{games, pLast, ClassAboveMax, func(v []string) bool { return v[0] == "5001" }},
		{games, pLast, ClassOver32, func(v []string) bool { return v[0] == "2147483648" }},
		{games, pNewest, ClassSpelling, func(v []string) bool { return v[0] == "0" }},
		{games, pAfter, ClassMalformed, func(v []string) bool { return v[0] == "not-a-cursor!" }},
		{games, pAfter, ClassAbsent, func(v []string) bool {
			k, ok := decodePagedCursor(Games, v[0])
			return ok && k.Num == 60 && !newGen(games, 1).held[k] // beyond the newest: the oldest is epoch 0
		}},
		{games, pBefore, ClassBeside, func(v []string) bool {
			k, ok := decodePagedCursor(Games, v[0])
			return ok && !newGen(games, 1).held[k]
		}},
		{tx, "first", ClassOver64, func(v []string) bool { return v[0] == "9223372036854775808" }},
		{tx, "last", ClassNegative, func(v []string) bool { return v[0] == "-1" }},
		{tx, "cmdTypes", ClassUncarried, func(v []string) bool { return len(v) == 1 && v[0] == "Withdraw" }},
		{tx, "cmdTypes", ClassTwo, func(v []string) bool { return len(v) == 2 && v[0] != v[1] }},
		{tx, "cmdTypes", ClassSeveral, func(v []string) bool { return len(v) == 3 && len(slices.Compact(slices.Sorted(slices.Values(v)))) == 3 }},
		{tx, "cmdTypes", ClassMost, func(v []string) bool { return len(v) == 11 }},
		{tx, "excludeCmdTypes", ClassCase, func(v []string) bool {
			return !held(tx, "cmdTypes", v[0]) && slices.ContainsFunc(newGen(tx, 1).pool("cmdTypes"), func(t string) bool { return strings.ToUpper(t) == v[0] })
		}},
		{tx, "parties", ClassMost, func(v []string) bool {
			return len(v) == maxMostValues && len(newGen(tx, 1).pool("parties")) > maxMostValues
		}},
		{tx, "after", ClassBeside, func(v []string) bool { k, err := txCursor(v[0]); return err == nil && !newGen(tx, 1).held[k] }},
		{tx, "before", ClassEmpty, func(v []string) bool { return v[0] == "" }},
	} {
		t.Run(tc.m.Listing.String()+"/"+tc.param+"/"+string(tc.class), func(t *testing.T) {
			for seed := int64(1); seed <= 5; seed++ {
				q, why := newGen(tc.m, seed).drawClass(tc.param, tc.class)
				if why != "" {
					t.Fatalf("seed %d: not drawn: %s", seed, why)
				}
				if !tc.ok(q[tc.param]) {
					t.Errorf("seed %d: %s=%q is not of the class (%s)", seed, tc.param, q[tc.param], Canonical(q))
				}
			}
		})
	}
}

// TestClassesShowInTheAnswer checks that the classes a defect needs to
// show in are drawn in a query whose answer the class decides: the answer
// the model knows, the spec's to decide, and another than the one the
// held value (or no value) gives.
func TestClassesShowInTheAnswer(t *testing.T) {
	models := richModels()
	for _, tc := range []struct {
		m       *Model
		param   string
		class   Class
		against func(q url.Values) url.Values
	}{
		{models[0], "gameId", ClassPrefix, func(q url.Values) url.Values { return with(q, "gameId", fullOf(models[0], q.Get("gameId"))) }},
		{models[0], "gameId", ClassCase, func(q url.Values) url.Values { return with(q, "gameId", strings.ToLower(q.Get("gameId"))) }},
		{models[2], "nodeId", ClassCase, func(q url.Values) url.Values { return with(q, "nodeId", strings.ToLower(q.Get("nodeId"))) }},
		{models[2], "nodeId", ClassPrefix, func(q url.Values) url.Values { return with(q, "nodeId", fullOf(models[2], q.Get("nodeId"))) }},
		{models[4], "cmdTypes", ClassUncarried, func(q url.Values) url.Values { return without(q, "cmdTypes") }},
		{models[4], "cmdTypes", ClassSeveral, func(q url.Values) url.Values { return with(q, "cmdTypes", q["cmdTypes"][:2]...) }},
		{models[4], "cmdTypes", ClassMost, func(q url.Values) url.Values { return with(q, "cmdTypes", q["cmdTypes"][:2]...) }},
		{models[4], "parties", ClassSeveral, func(q url.Values) url.Values { return with(q, "parties", q["parties"][:2]...) }},
	} {
		t.Run(tc.m.Listing.String()+"/"+tc.param+"/"+string(tc.class), func(t *testing.T) {
			for seed := int64(1); seed <= 10; seed++ {
				q, why := newGen(tc.m, seed).drawClass(tc.param, tc.class)
				if why != "" {
					t.Fatalf("seed %d: not drawn: %s", seed, why)
				}
				e := tc.m.Expect(q)
				if !e.Known || e.Level != Must || !differs(e, tc.m.Expect(tc.against(q))) {
					t.Errorf("seed %d: %s: known %v level %s, the same answer as %s", seed, Canonical(q), e.Known, e.Level, Canonical(tc.against(q)))
				}
			}
		})
	}
}

// fullOf is the held ID a prefix begins.
func fullOf(m *Model, prefix string) string {
	g := newGen(m, 1)
	for _, name := range []string{"gameId", "nodeId"} {
		for _, v := range g.pool(name) {
			if strings.HasPrefix(v, prefix) {
				return v
			}
		}
	}
	return ""
}

// TestPlanIsDeterministic checks that a seed asks the same queries: twice
// the same, and another seed others.
func TestPlanIsDeterministic(t *testing.T) {
	rich := richModels()
	for _, m := range []*Model{rich[0], rich[2], rich[4]} {
		run := func(seed int64) string {
			mm := *m
			mm.issued = nil
			p := NewPlan(&mm, seed, 60, []url.Values{{"x": {"1"}}})
			first := p.First()
			var b strings.Builder
			for _, q := range append(first, p.Then(oracleAnswers(&mm, first))...) {
				fmt.Fprintf(&b, "%s %s\n", q.Provenance(), Canonical(q.Values))
			}
			c := p.Coverage()
			fmt.Fprintf(&b, "%v %v", c.Covered, c.Uncovered)
			return b.String()
		}
		a := run(3)
		if b := run(3); a != b {
			t.Errorf("%s: seed 3 asked two sets of queries", m.Listing)
		}
		if a == run(4) {
			t.Errorf("%s: seeds 3 and 4 asked the same queries", m.Listing)
		}
	}
}

// TestUncoveredReasons checks what a plan says of what it cannot cover.
func TestUncoveredReasons(t *testing.T) {
	allTypes := txRows("9.3 A p1", "9.2 B p2", "9.1 C p3", "9.0 D p1")
	for i, typ := range classCommandTypes {
		allTypes[i%4].Type = typ // every valid type carried (only four rows: the rest below)
	}
	var carried []Row
	for i, typ := range classCommandTypes {
		carried = append(carried, Row{Key: Key{Num: uint64(100 - i)}, Cursor: fmt.Sprintf("%d.0", 100-i), Type: typ, Submitter: "p" + strconv.Itoa(i%3)})
	}
	digits := []Row{{Key: Key{9, "123", 0}, Cursor: "YQ=="}, {Key: Key{8, "456", 0}, Cursor: "Yg=="}}
	for _, tc := range []struct {
		name   string
		m      *Model
		n      int
		what   string
		reason string
	}{
		{"a pair the oracle ignores", New(Snapshots, DefaultLimits, snaps(5, 4, 3, 2, 1), nil, true), 300, pFirst + "&" + pLast, "first with last (first wins)"},
		{"newestFirst of parameters", richModels()[3], 300, pNewest, "network parameters are in key order whatever pagination.newestFirst says"},
		{"a game ID selects one game", gamesModel([]Span{{0, 9}}, 9, game(9, "a", individual("p1")), game(8, "b", individual("p1")), game(7, "c", team([]string{"t"}, "p1"))), 300,
			pFirst + "&gameId", "a gameId selects one game at most"},
		{"every type carried", New(Transactions, DefaultLimits, carried, nil, true), 300, "cmdTypes: " + string(ClassUncarried), "every valid command type the model can name is carried"},
		{"no letter to change the case of", New(Rotations, DefaultLimits, digits, nil, true), 300, "nodeId: " + string(ClassCase), "no letter"},
		{"cursors not in behaviour.md's form", New(Snapshots, DefaultLimits, snaps(5, 4, 3), nil, true), 300, pAfter + ": " + string(ClassBeside), "not in docs/behaviour.md's form"},
		{"beyond the budget", richModels()[0], 20, "gameId&partyId", "not asked: the core needs more than the 20 queries"},
		{"no filtered answer", New(Rotations, DefaultLimits, digits, nil, true), 300, pAfter + ": " + string(ClassIssued), "no earlier filtered answer gave a cursor"},
		{"the answers not given", richModels()[2], 300, pBefore + ": " + string(ClassIssued), "not drawn: the answers to the first queries were not given"},
		{"a gap", New(Transactions, DefaultLimits, txRows("9.1 A p1"), txRows("1.0 B p2"), false), 300, "last&cmdTypes", "had answers beyond the rows the model holds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPlan(tc.m, 1, tc.n, nil)
			if tc.name != "the answers not given" {
				p.Then(nil)
			}
			var got []string
			for _, u := range p.Coverage().Uncovered {
				if u.What == tc.what {
					if !strings.Contains(u.Reason, tc.reason) {
						t.Errorf("%s: %q, want it to say %q", u.What, u.Reason, tc.reason)
					}
					return
				}
				got = append(got, u.What)
			}
			t.Errorf("%s is not uncovered; uncovered: %v", tc.what, got)
		})
	}
}

// TestFollowUpsUseFilteredCursors checks the cursors taken from filtered
// answers: those the deployment issued for a row that differ from the
// row's cursor in the unfiltered walk come first; the oracle places them
// by their row, at the level of the rest of the query (MUST).
func TestFollowUpsUseFilteredCursors(t *testing.T) {
	m := richModels()[2] // key rotations
	p := NewPlan(m, 1, 300, nil)
	first := p.First()
	answers := oracleAnswers(m, first)
	issued := map[string]Key{}
	for i := range answers {
		if answers[i].Page == nil || !answers[i].Query.Has("nodeId") || len(issued) > 0 {
			continue
		}
		// The deployment issues its own cursors in this filtered answer.
		rows := slices.Clone(answers[i].Page.Rows)
		for j := range rows {
			rows[j].Cursor = fmt.Sprintf("own%d==", j)
			issued[rows[j].Cursor] = rows[j].Key
		}
		answers[i].Page = &Page{Status: 200, Rows: rows}
	}
	if len(issued) == 0 {
		t.Fatal("no filtered answer with rows among the first queries")
	}
	then := p.Then(answers)
	var follow []Query
	for _, q := range then {
		if q.Class == ClassIssued {
			follow = append(follow, q)
		}
	}
	if len(follow) == 0 || len(follow) > followUps {
		t.Fatalf("%d queries with cursors from filtered answers, want 1 to %d", len(follow), followUps)
	}
	own := 0
	for _, q := range follow {
		c := q.Values.Get(q.Params[0])
		if _, ok := issued[c]; ok {
			own++
		}
		e := m.Expect(q.Values)
		if !e.Known || e.Level != Must {
			t.Errorf("%s: known %v level %s (%v), want known at MUST", Canonical(q.Values), e.Known, e.Level, e.Why)
		}
	}
	if own < min(3, len(follow)) {
		t.Errorf("%d of %d follow-ups use the deployment's own cursors, want those first", own, len(follow))
	}
	if m.IssuedCount() != len(issued) {
		t.Errorf("%d cursors issued recorded, want %d", m.IssuedCount(), len(issued))
	}
}

// TestPlanBudget checks how a plan spends its budget: the examples first
// (at most n of them), a tenth of the rest (at most 12) kept for the
// cursors of filtered answers, the core in what is left, the tail after.
func TestPlanBudget(t *testing.T) {
	m := richModels()[2] // key rotations: a filter, so cursors from filtered answers
	var examples []url.Values
	for i := range 10 {
		examples = append(examples, url.Values{pFirst: {strconv.Itoa(i + 1)}, "x": {"1"}})
	}
	for _, tc := range []struct {
		n, examples, first, followUps int
	}{
		{40, 10, 37, 3},
		{300, 10, 0, 12},
		{8, 10, 8, 0},
		{12, 10, 12, 0},
	} {
		mm := *m
		mm.issued = nil
		p := NewPlan(&mm, 1, tc.n, examples[:tc.examples])
		first := p.First()
		then := p.Then(oracleAnswers(&mm, first))
		follow := 0
		for _, q := range then {
			if q.Class == ClassIssued {
				follow++
			}
		}
		if tc.first > 0 && len(first) != tc.first || follow != tc.followUps || len(first)+len(then) > tc.n {
			t.Errorf("n %d with %d examples: %d first, %d from filtered answers, %d in all; want %d, %d, at most %d",
				tc.n, tc.examples, len(first), follow, len(first)+len(then), tc.first, tc.followUps, tc.n)
		}
		for i, q := range first[:min(len(first), tc.examples)] {
			if q.Source != SourceExample || Canonical(q.Values) != Canonical(examples[i]) {
				t.Errorf("n %d: query %d is %s, want example %d", tc.n, i, q.Provenance(), i)
			}
		}
	}
}

// TestDeepPagesWithEverySeed: over a listing larger than the model holds,
// every seed's plan asks a page forwards and one backwards inside each
// window held deep inside it, from the window's middle row, each answer
// known.
func TestDeepPagesWithEverySeed(t *testing.T) {
	truth := New(Snapshots, Limits{DefaultPage: 100, MaxPage: 300, TxDefault: 50}, snapRows(2000), nil, true)
	m, err := Build(context.Background(), oracleServer(truth, new(int)), Snapshots, Options{PageSize: 10, MaxRows: 200, Limits: truth.Limits})
	if err != nil {
		t.Fatal(err)
	}
	windows := m.Windows()
	if len(windows) == 0 {
		t.Fatal("the model holds no window deep inside the listing")
	}
	for _, seed := range []int64{1, 8} {
		var deep []string
		for _, q := range NewPlan(m, seed, 300, nil).First() {
			if q.Fixed == "a page deep inside the listing" {
				if e := m.Expect(q.Values); !e.Known || len(e.Rows) == 0 {
					t.Errorf("seed %d: %s is not known", seed, Describe(q.Values))
				}
				deep = append(deep, Canonical(q.Values))
			}
		}
		var want []string
		for _, w := range windows {
			c, n := w[len(w)/2].Cursor, strconv.Itoa(min(len(w)/2-1, m.mustCount))
			want = append(want, Canonical(url.Values{pAfter: {c}, pFirst: {n}}), Canonical(url.Values{pBefore: {c}, pLast: {n}}))
		}
		if strings.Join(deep, "\n") != strings.Join(want, "\n") {
			t.Errorf("seed %d: the deep pages are\n%s\nwant\n%s", seed, strings.Join(deep, "\n"), strings.Join(want, "\n"))
		}
	}
}
