package model

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// goldenModels are small models of each listing, with every kind of value
// the generator draws from.
func goldenModels() []*Model {
	return []*Model{
		gamesModel([]Span{{0, 40}}, 40,
			game(40, "a", individual("p1", "p2")),
			game(40, "b", team([]string{"t1"}, "p1", "p3")),
			game(30, "c", individual("p3")),
			game(11, "d", team([]string{"t2"}, "p4")),
			game(0, "e", individual("p4"))),
		New(Snapshots, DefaultLimits, snaps(9, 8, 7, 6, 5), snaps(2, 1), false),
		New(Rotations, DefaultLimits, []Row{{Key: Key{9, "n1", 0}, Cursor: "YQ=="}, {Key: Key{9, "n2", 0}, Cursor: "Yg=="}, {Key: Key{5, "n1", 0}, Cursor: "Yw=="}}, nil, true),
		New(Parameters, DefaultLimits, []Row{{Key: Key{Str: "a"}, Cursor: "YQ=="}, {Key: Key{Str: "b"}, Cursor: "Yg=="}}, nil, true),
		New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p2 p1", "8.0 C p3", "7.0 A p2"), nil, true),
	}
}

// TestGenerateGolden pins what a seed asks: the same seed must ask the same
// queries, so that a run printed with its seed can be repeated exactly. A
// change to the generator that changes them changes these digests: update
// them on purpose, and say so in the change.
func TestGenerateGolden(t *testing.T) {
	want := map[Listing]string{
		Games:        "184028c37def435d",
		Snapshots:    "0c25da28da8bc638",
		Rotations:    "5a67d88e14157142",
		Parameters:   "a7eb60008c876f49",
		Transactions: "1b001d0c91d2b34e",
	}
	for _, m := range goldenModels() {
		var b strings.Builder
		for _, q := range Generate(m, 1, 400) {
			b.WriteString(Canonical(q) + "\n")
		}
		sum := sha256.Sum256([]byte(b.String()))
		if got := hex.EncodeToString(sum[:8]); got != want[m.Listing] {
			t.Errorf("%s: the queries of seed 1 have digest %s, want %s", m.Listing, got, want[m.Listing])
		}
	}
}

// TestPlanOrder checks the order the queries come in: the examples, each
// parameter alone (load-bearing), each pair the data can make
// load-bearing, the value classes, then (Then) the random tail.
func TestPlanOrder(t *testing.T) {
	for _, m := range goldenModels() {
		first := m.Listing.Params()[0]
		examples := []url.Values{{first: {"3"}}, {"unknown": {"x"}}, {first: {"3"}}}
		p := NewPlan(m, 5, 1000, examples)
		qs := append(p.First(), p.Then(nil)...)
		if len(qs) > 1000 || len(qs) < 100 {
			t.Errorf("%s: %d queries of a budget of 1000", m.Listing, len(qs))
		}
		if qs[0].Source != SourceExample || qs[1].Source != SourceExample || qs[2].Source == SourceExample {
			t.Errorf("%s: the examples (one given twice) come first, once each: %v, %v, %v", m.Listing, qs[0], qs[1], qs[2])
		}
		if Canonical(qs[0].Values) != Canonical(examples[0]) || qs[0].Provenance() != "example" {
			t.Errorf("%s: first query %v, want the first example", m.Listing, qs[0])
		}
		order := []Source{SourceExample, SourceCore, SourcePair, SourceClass, SourceTail}
		at := 0
		params := m.Listing.Params()
		core := 0
		for i, q := range qs {
			for core < len(params) && slices.ContainsFunc(p.Coverage().Uncovered, func(u Uncovered) bool { return u.What == params[core] }) {
				core++ // a parameter the data cannot make load-bearing
			}
			k := slices.Index(order, q.Source)
			if k < at {
				t.Errorf("%s: query %d (%s) comes after a %s query", m.Listing, i, q.Provenance(), order[at])
			}
			at = max(at, k)
			if q.Source == SourceCore {
				if q.Params[0] != params[core] || !q.Values.Has(q.Params[0]) {
					t.Errorf("%s: core query %d is %s (%s), want parameter %s", m.Listing, core, q.Provenance(), Canonical(q.Values), params[core])
				}
				core++
			}
			if (q.Source == SourcePair || q.Source == SourceClass && q.Class != ClassIssued && kindOf(q.Params[0]) != kindNames) && !hasAll(q.Values, q.Params) {
				t.Errorf("%s: %s lacks its parameters: %s", m.Listing, q.Provenance(), Canonical(q.Values))
			}
		}
		uncovered := 0
		for _, u := range p.Coverage().Uncovered {
			if u.Kind == UncoveredParam {
				uncovered++
			}
		}
		if core != len(params) || uncovered != len(params)-p.Coverage().ParamsCovered() {
			t.Errorf("%s: %d parameters seen, %d uncovered, %d covered; want every one (%d) covered or not", m.Listing, core, uncovered, p.Coverage().ParamsCovered(), len(params))
		}
	}
}

// TestPlanGolden pins the plans of the rich models (shaped like the mock's
// data: a games window, a transactions listing held as a head and a tail),
// with the cursors drawn from the oracle's answers: a change to the core,
// the classes or the follow-ups that changes what a seed asks changes these
// digests. Update them on purpose, and say so in the change.
func TestPlanGolden(t *testing.T) {
	want := map[Listing]string{
		Games:        "0fb36a9df85e5399",
		Snapshots:    "7507ed7c56121a04",
		Rotations:    "ded690b2b3e1ab49",
		Parameters:   "67fd37e4488960b3",
		Transactions: "d24d2537e7993d4d",
	}
	for _, m := range richModels() {
		p := NewPlan(m, 1, 300, nil)
		first := p.First()
		var b strings.Builder
		for _, q := range append(first, p.Then(oracleAnswers(m, first))...) {
			b.WriteString(q.Provenance() + " " + Canonical(q.Values) + "\n")
		}
		c := p.Coverage()
		for _, u := range c.Uncovered {
			b.WriteString(u.What + ": " + u.Reason + "\n")
		}
		sum := sha256.Sum256([]byte(b.String()))
		if got := hex.EncodeToString(sum[:8]); got != want[m.Listing] {
			t.Errorf("%s: the plan of seed 1 has digest %s, want %s", m.Listing, got, want[m.Listing])
		}
	}
}
