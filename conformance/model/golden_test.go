package model

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"
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
		Games:        "fd8cabb0a6e17b97",
		Snapshots:    "d40d4d922906e1b2",
		Rotations:    "3870f52fc8d9a4e5",
		Parameters:   "f2e2952049d674a8",
		Transactions: "d8873adce6625b19",
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

// TestGenerateOrder checks the order the queries come in: the edges of the
// counts, each parameter alone, then the pairs with a count.
func TestGenerateOrder(t *testing.T) {
	for _, m := range goldenModels() {
		qs := Generate(m, 5, 1000)
		first, last := pFirst, pLast
		if m.Listing == Transactions {
			first, last = "first", "last"
		}
		edges := []url.Values{
			{first: {strconv.Itoa(m.Limits.MaxPage)}}, {first: {strconv.Itoa(m.Limits.MaxPage + 1)}},
			{last: {strconv.Itoa(m.Limits.MaxPage)}}, {last: {strconv.Itoa(m.Limits.MaxPage + 1)}},
		}
		for i, e := range edges {
			for k, v := range e {
				if qs[i].Get(k) != v[0] {
					t.Errorf("%s: query %d is %s, want %s first", m.Listing, i, Canonical(qs[i]), Canonical(e))
				}
			}
		}
		params := m.Listing.Params()
		has := func(q url.Values, p string) bool { return q.Has(p) || (SnakeCase(p) != "" && q.Has(SnakeCase(p))) }
		for i, p := range params {
			if q := qs[len(edges)+i]; !has(q, p) {
				t.Errorf("%s: query %d (%s) lacks %s, the %dth parameter alone", m.Listing, len(edges)+i, Canonical(q), p, i+1)
			}
		}
		at := len(edges) + len(params)
		for i, a := range params {
			for _, b := range params[i+1:] {
				q := qs[at]
				at++
				if !has(q, a) || !has(q, b) {
					t.Errorf("%s: query %d (%s) lacks the pair %s, %s", m.Listing, at-1, Canonical(q), a, b)
				}
				if !hasCount(q) && !(m.Listing == Transactions && has(q, "before")) {
					t.Errorf("%s: the first round's pair %s has no count", m.Listing, Canonical(q))
				}
			}
		}
	}
}
