package model

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestDecodePagedCursor(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Listing
		c    string
		want Key
		ok   bool
	}{
		{"game", Games, b64(`{"epoch":"12","id":"ab"}`), Key{Num: 12, Str: "ab"}, true},
		{"snapshot", Snapshots, b64(`{"blockHeight":"120"}`), Key{Num: 120}, true},
		{"rotation", Rotations, b64(`{"blockHeight":"7","nodeId":"n1"}`), Key{Num: 7, Str: "n1"}, true},
		{"parameter", Parameters, b64(`{"key":"a.b"}`), Key{Str: "a.b"}, true},
		{"the largest uint64", Snapshots, b64(`{"blockHeight":"18446744073709551615"}`), Key{Num: 1<<64 - 1}, true},
		{"beyond uint64", Snapshots, b64(`{"blockHeight":"18446744073709551616"}`), Key{}, false},
		{"a number, not a string", Snapshots, b64(`{"blockHeight":120}`), Key{}, false},
		{"a sign", Snapshots, b64(`{"blockHeight":"+1"}`), Key{}, false},
		{"not digits", Snapshots, b64(`{"blockHeight":"1x"}`), Key{}, false},
		{"empty number", Snapshots, b64(`{"blockHeight":""}`), Key{}, false},
		{"empty ID", Games, b64(`{"epoch":"1","id":""}`), Key{}, false},
		{"members in another order", Games, b64(`{"id":"ab","epoch":"12"}`), Key{}, false},
		{"a member more", Snapshots, b64(`{"blockHeight":"1","x":"2"}`), Key{}, false},
		{"a member less", Rotations, b64(`{"blockHeight":"1"}`), Key{}, false},
		{"another listing's", Snapshots, b64(`{"key":"a.b"}`), Key{}, false},
		{"an array", Snapshots, b64(`["1"]`), Key{}, false},
		{"something after the object", Snapshots, b64(`{"blockHeight":"1"}{}`), Key{}, false},
		{"not JSON", Snapshots, b64(`blockHeight=1`), Key{}, false},
		{"not base64", Snapshots, "not-a-cursor!", Key{}, false},
		{"unpadded", Snapshots, strings.TrimRight(b64(`{"blockHeight":"12"}`), "="), Key{}, false},
		{"transactions have no such cursor", Transactions, b64(`{"blockHeight":"1"}`), Key{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, ok := decodePagedCursor(tc.l, tc.c)
			if ok != tc.ok || k != tc.want {
				t.Errorf("decodePagedCursor(%s, %q) = %v, %v; want %v, %v", tc.l, tc.c, k, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestEncodePagedCursor(t *testing.T) {
	for _, tc := range []struct {
		l    Listing
		k    Key
		want string
	}{
		{Games, Key{Num: 12, Str: "ab"}, `{"epoch":"12","id":"ab"}`},
		{Snapshots, Key{Num: 120}, `{"blockHeight":"120"}`},
		{Rotations, Key{Num: 7, Str: "n1"}, `{"blockHeight":"7","nodeId":"n1"}`},
		{Parameters, Key{Str: `a"b`}, `{"key":"a\"b"}`},
	} {
		c := encodePagedCursor(tc.l, tc.k)
		if c != b64(tc.want) {
			t.Errorf("%s %v: cursor %q, want base64 of %s", tc.l, tc.k, c, tc.want)
		}
		if k, ok := decodePagedCursor(tc.l, c); !ok || k != tc.k {
			t.Errorf("%s: %q decodes to %v, %v", tc.l, c, k, ok)
		}
	}
	if c := encodePagedCursor(Transactions, Key{Num: 1}); c != "" {
		t.Errorf("a transaction key encoded as %q", c)
	}
}

// TestPlaceCursor checks the three ways the oracle places a cursor, and
// the level of each: a held row's and one the deployment issued at MUST, a
// cursor that decodes in behaviour.md's form at SHOULD; other cursors not
// at all.
func TestPlaceCursor(t *testing.T) {
	rows := []Row{{Key: Key{Num: 9}, Cursor: "held9"}, {Key: Key{Num: 7}, Cursor: "held7"}, {Key: Key{Num: 5}, Cursor: "held5"}}
	m := New(Snapshots, DefaultLimits, rows, nil, true)
	m.Issue("own7", Key{Num: 7})
	m.Issue("own7", Key{Num: 7}) // again, the same row
	m.Issue("held9", Key{Num: 9})
	m.Issue("two", Key{Num: 9})
	m.Issue("two", Key{Num: 5})
	m.Issue("", Key{Num: 5})
	if n := m.IssuedCount(); n != 1 {
		t.Errorf("%d cursors issued that place a row, want 1 (own7)", n)
	}
	for _, tc := range []struct {
		c      string
		rows   []uint64
		level  Level
		known  bool
		status int
	}{
		{"held7", []uint64{5}, Must, true, 200},
		{"own7", []uint64{5}, Must, true, 200},
		{b64(`{"blockHeight":"7"}`), []uint64{5}, Should, true, 200},
		{b64(`{"blockHeight":"8"}`), []uint64{7, 5}, Should, true, 200},
		{b64(`{"blockHeight":"100"}`), []uint64{9, 7, 5}, Should, true, 200},
		{"two", nil, Must, false, 200},
		{"QUJDRA==", nil, Must, false, 200},
		{"not-a-cursor!", nil, Should, true, 400},
	} {
		e := m.Expect(q(pFirst, "5", pAfter, tc.c))
		if e.Known != tc.known || e.Level != tc.level || e.Status != tc.status {
			t.Errorf("after=%s: known %v level %s status %d (%v), want %v %s %d", tc.c, e.Known, e.Level, e.Status, e.Why, tc.known, tc.level, tc.status)
			continue
		}
		if tc.known && tc.status == 200 && !slices.Equal(heights(e.Rows), tc.rows) {
			t.Errorf("after=%s: rows %v, want %v", tc.c, heights(e.Rows), tc.rows)
		}
	}
}

// TestTransactionCursorsAndEmptyValues checks the transaction listing's
// cursors (the deployment's placed at the level of the query, others read
// as <block>.<index> at SHOULD) and its empty counts and cursors (not
// given).
func TestTransactionCursorsAndEmptyValues(t *testing.T) {
	m := New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p2", "8.0 C p3", "7.0 A p2"), nil, true)
	m.Issue("opaque-8", Key{Num: 8})
	m.Issue("bad", Key{Num: 8})
	m.Issue("bad", Key{Num: 9})
	for _, tc := range []struct {
		q      []string
		want   string
		level  Level
		status int
	}{
		{[]string{"first", "2", "after", "8.0"}, "9.1 9.0", Must, 200},
		{[]string{"first", "2", "after", "opaque-8"}, "9.1 9.0", Must, 200},
		{[]string{"last", "1", "before", "opaque-8"}, "7.0", Must, 200},
		{[]string{"first", "2", "after", "8.5"}, "9.1 9.0", Should, 200},
		{[]string{"first", "2", "after", "bad"}, "", Should, 400},
		{[]string{"first", "", "last", "1"}, "7.0", Should, 200},
		{[]string{"first", "1", "after", ""}, "9.1", Should, 200},
		{[]string{"before", "", "last", "2"}, "8.0 7.0", Should, 200},
		{[]string{"first", "2", "before", "opaque-8"}, "", Must, 400},
	} {
		e := m.Expect(q(tc.q...))
		if e.Status != tc.status || e.Level != tc.level || tc.status == 200 && cursors(e.Rows) != tc.want {
			t.Errorf("%v: status %d level %s rows %q (%v), want %d %s %q", tc.q, e.Status, e.Level, cursors(e.Rows), e.Why, tc.status, tc.level, tc.want)
		}
	}
}

// TestEmptyAndUnknownParameters checks how the oracle reads empty values
// and names no listing reads: at SHOULD, as docs/behaviour.md says.
func TestEmptyAndUnknownParameters(t *testing.T) {
	games := gamesModel([]Span{{0, 9}}, 9, game(9, "a", individual("p1")), game(9, "b", team([]string{"t1"}, "p2")))
	tx := New(Transactions, DefaultLimits, txRows("9.1 A p1", "9.0 B p2"), nil, true)
	rot := New(Rotations, DefaultLimits, []Row{{Key: Key{9, "n1", 0}, Cursor: "a=="}, {Key: Key{8, "n2", 0}, Cursor: "b=="}}, nil, true)
	for _, tc := range []struct {
		m    *Model
		q    []string
		keys int
		why  string
	}{
		{games, []string{pFirst, "5", "gameId", ""}, 2, "an empty gameId (read as not given)"},
		{games, []string{pFirst, "5", "teamId", ""}, 2, "an empty teamId (read as not given)"},
		{games, []string{pFirst, "5", "partyId", ""}, 2, "an empty partyId (read as not given)"},
		{rot, []string{pFirst, "5", "nodeId", ""}, 2, "an empty nodeId (read as not given)"},
		{tx, []string{"first", "5", "cmdTypes", ""}, 0, "an empty value of cmdTypes (matches nothing)"},
		{tx, []string{"first", "5", "parties", ""}, 0, "an empty value of parties (matches nothing)"},
		{tx, []string{"first", "5", "excludeCmdTypes", ""}, 2, "an empty value of excludeCmdTypes (excludes nothing)"},
		{tx, []string{"first", "5", "cmdTypes", "A", "cmdTypes", ""}, 1, "an empty value of cmdTypes (matches nothing)"},
		{games, []string{pFirst, "1", "epochfrom", "3"}, 1, "the unknown parameter epochfrom (ignored)"},
		{tx, []string{"first", "1", "cmdType", "Z"}, 1, "the unknown parameter cmdType (ignored)"},
	} {
		e := tc.m.Expect(q(tc.q...))
		if !e.Known || e.Level != Should || len(e.Rows) != tc.keys || !slices.Contains(e.Why, tc.why) {
			t.Errorf("%s %v: known %v level %s rows %d why %v; want %d rows, SHOULD because %q", tc.m.Listing, tc.q, e.Known, e.Level, len(e.Rows), e.Why, tc.keys, tc.why)
		}
	}
	if e := games.Expect(q(pFirst, "5", "gameId", "a")); e.Level != Must || len(e.Rows) != 1 {
		t.Errorf("a gameId given: level %s rows %d", e.Level, len(e.Rows))
	}
}

func TestCursorForm(t *testing.T) {
	form := New(Snapshots, DefaultLimits, []Row{{Key: Key{Num: 3}, Cursor: encodePagedCursor(Snapshots, Key{Num: 3})}}, nil, true)
	other := New(Snapshots, DefaultLimits, snaps(3, 2), nil, true)
	wrongKey := New(Snapshots, DefaultLimits, []Row{{Key: Key{Num: 3}, Cursor: encodePagedCursor(Snapshots, Key{Num: 4})}}, nil, true)
	tx := New(Transactions, DefaultLimits, txRows("9.1 A p1"), nil, true)
	txOther := New(Transactions, DefaultLimits, []Row{{Key: Key{Num: 9, Sub: 1}, Cursor: "opaque"}}, nil, true)
	txWrong := New(Transactions, DefaultLimits, []Row{{Key: Key{Num: 9, Sub: 1}, Cursor: "9.2"}}, nil, true)
	empty := New(Snapshots, DefaultLimits, nil, nil, true)
	for _, tc := range []struct {
		m    *Model
		want bool
	}{{form, true}, {other, false}, {wrongKey, false}, {tx, true}, {txOther, false}, {txWrong, false}, {empty, false}} {
		if got := tc.m.cursorForm(); got != tc.want {
			t.Errorf("%s %v: cursorForm %v, want %v", tc.m.Listing, tc.m.head, got, tc.want)
		}
	}
}
