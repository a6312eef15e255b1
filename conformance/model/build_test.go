package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// encode writes rows as the listing's answer.
func encode(l Listing, rows []Row, next, prev bool) []byte {
	node := func(r Row) map[string]any {
		switch l {
		case Games:
			n := map[string]any{"epoch": fmt.Sprint(r.Key.Num), "id": r.Key.Str}
			if r.Individual {
				var es []any
				for _, p := range r.Players {
					es = append(es, map[string]any{"individual": p})
				}
				n["individual"] = map[string]any{"individual": es}
			}
			if r.Team {
				var ms []any
				for _, p := range r.Members {
					ms = append(ms, map[string]any{"individual": p})
				}
				var ts []any
				for i, id := range r.Teams {
					t := map[string]any{"teamId": id}
					if i == 0 {
						t["membersParticipating"] = ms
					}
					ts = append(ts, map[string]any{"team": t})
				}
				n["team"] = map[string]any{"team": ts}
			}
			return n
		case Snapshots:
			return map[string]any{"blockHeight": fmt.Sprint(r.Key.Num)}
		case Rotations:
			return map[string]any{"blockHeight": r.Key.Num, "nodeId": r.Key.Str}
		case Parameters:
			return map[string]any{"key": r.Key.Str}
		}
		cmd := map[string]any{}
		for _, d := range r.Receivers {
			cmd = map[string]any{"proposalSubmission": map[string]any{"terms": []any{map[string]any{"destination": d, "destinationType": "ACCOUNT_TYPE_GENERAL"}}}}
		}
		return map[string]any{"block": fmt.Sprint(r.Key.Num), "index": r.Key.Sub, "cursor": r.Cursor, "type": r.Type, "submitter": r.Submitter, "command": cmd}
	}
	var body map[string]any
	if l == Transactions {
		ts := []any{}
		for _, r := range rows {
			ts = append(ts, node(r))
		}
		body = map[string]any{"transactions": ts}
	} else {
		edges := []any{}
		for _, r := range rows {
			edges = append(edges, map[string]any{"cursor": r.Cursor, "node": node(r)})
		}
		pi := map[string]any{"hasNextPage": next, "hasPreviousPage": prev, "startCursor": "", "endCursor": ""}
		if len(rows) > 0 {
			pi["startCursor"], pi["endCursor"] = rows[0].Cursor, rows[len(rows)-1].Cursor
		}
		body = map[string]any{listingInfo[l].field: map[string]any{"edges": edges, "pageInfo": pi}}
	}
	b, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	return b
}

// oracleServer answers as the oracle says over a whole model: a server
// that conforms, by construction. asked counts the requests.
func oracleServer(truth *Model, asked *int) Fetch {
	return func(_ context.Context, l Listing, q url.Values) (int, []byte, error) {
		*asked++
		e := truth.Expect(q)
		if e.Status != 200 {
			return e.Status, []byte(`{"code":3,"message":"InvalidArgument error","details":[]}`), nil
		}
		if !e.Known {
			return 0, nil, fmt.Errorf("the truth cannot answer %s", Describe(q))
		}
		return 200, encode(l, e.Rows, e.HasNext == True, e.HasPrev == True), nil
	}
}

func snapRows(n int) []Row {
	var hs []uint64
	for h := n; h > 0; h-- {
		hs = append(hs, uint64(h))
	}
	return snaps(hs...)
}

func TestBuildPaged(t *testing.T) {
	truth := New(Snapshots, DefaultLimits, snapRows(50), nil, true)
	for _, tc := range []struct {
		maxRows   int
		whole     bool
		rows      int
		firstTail uint64
		asked     int
	}{
		{100, true, 50, 0, 12}, // newest first, the end confirmed; oldest first likewise
		{50, true, 50, 0, 6},   // the head (25 + 5 over) and tail (25 + 5) meet
		{20, false, 20, 10, 3}, // and a hop from the head reaches the tail: no window
		{2, false, 20, 10, 3},
	} {
		asked := 0
		m, err := Build(context.Background(), oracleServer(truth, &asked), Snapshots, Options{MaxRows: tc.maxRows, PageSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		if m.Whole() != tc.whole || len(m.Rows()) != tc.rows || asked != tc.asked {
			t.Errorf("max %d: whole %v, %d rows, %d requests; want %v, %d, %d", tc.maxRows, m.Whole(), len(m.Rows()), asked, tc.whole, tc.rows, tc.asked)
		}
		if !tc.whole && m.tail[0].Key.Num != tc.firstTail {
			t.Errorf("max %d: the tail starts at %d, want %d", tc.maxRows, m.tail[0].Key.Num, tc.firstTail)
		}
		if n, ok := m.Newest(); !ok || n.Num != 50 {
			t.Errorf("newest %v", n)
		}
		if !slices.IsSortedFunc(m.Rows(), func(a, b Row) int { return newer(a.Key, b.Key) }) {
			t.Errorf("max %d: rows out of order", tc.maxRows)
		}
		// The built model agrees with the truth wherever it can tell.
		for _, qq := range Generate(m, 3, 200) {
			w := truth.Expect(qq)
			e := m.Expect(qq).For(&Page{Status: w.Status, Rows: w.Rows})
			if !e.Known {
				continue
			}
			if e.LooseTies {
				e.Rows, w.Rows = sortRowTies(e.Rows), sortRowTies(w.Rows)
			}
			if e.Status != w.Status || !slices.Equal(keys(e.Rows), keys(w.Rows)) || (e.HasNext != Unknown && e.HasNext != w.HasNext) || (e.HasPrev != Unknown && e.HasPrev != w.HasPrev) {
				t.Errorf("max %d %s: model says %d %v %s %s, truth %d %v %s %s", tc.maxRows, Describe(qq), e.Status, heights(e.Rows), e.HasNext, e.HasPrev, w.Status, heights(w.Rows), w.HasNext, w.HasPrev)
			}
		}
	}
}

func TestBuildDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.MaxRows != 10000 || o.PageSize != mustCount || o.Limits != DefaultLimits {
		t.Errorf("defaults %+v", o)
	}
	o = Options{MaxRows: 7, PageSize: 3, Limits: Limits{1, 2, 3}}.withDefaults()
	if o.MaxRows != 7 || o.PageSize != 3 || o.Limits != (Limits{1, 2, 3}) {
		t.Errorf("set options changed: %+v", o)
	}
}

func TestBuildEmptyAndTiny(t *testing.T) {
	for _, l := range []Listing{Snapshots, Transactions, Games} {
		asked := 0
		truth := NewGames(DefaultLimits, nil, []Span{{0, 0}}, 0)
		truth.Listing = l
		m, err := Build(context.Background(), oracleServer(truth, &asked), l, Options{PageSize: 5})
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if len(m.Rows()) != 0 || !m.Whole() {
			t.Errorf("%s: an empty listing gives %d rows, whole %v", l, len(m.Rows()), m.Whole())
		}
		if _, ok := m.Newest(); ok {
			t.Errorf("%s: an empty model has a newest row", l)
		}
	}
}

func TestBuildTransactions(t *testing.T) {
	var rows []Row
	for b := 30; b > 0; b-- {
		rows = append(rows, txRows(fmt.Sprintf("%d.1 A p%d", b, b%3), fmt.Sprintf("%d.0 B p%d", b, b%2))...)
	}
	truth := New(Transactions, DefaultLimits, rows, nil, true)
	for _, tc := range []struct {
		maxRows, page int
		whole         bool
		rows          int
	}{
		{200, 10, true, 60},
		{60, 10, false, 40}, // 30 newest, 10 oldest
		{110, 10, true, 60}, // 60 newest and 10 oldest overlap
		{20, 10, false, 40}, // 10 newest, 10 oldest, a window of 20 at block 20
		{20, 7, false, 35},  // 14 newest, 7 oldest, a window of 14 at block 19
	} {
		asked := 0
		m, err := Build(context.Background(), oracleServer(truth, &asked), Transactions, Options{MaxRows: tc.maxRows, PageSize: tc.page})
		if err != nil {
			t.Fatal(err)
		}
		if m.Whole() != tc.whole || len(m.Rows()) != tc.rows {
			t.Errorf("max %d page %d: whole %v rows %d, want %v %d", tc.maxRows, tc.page, m.Whole(), len(m.Rows()), tc.whole, tc.rows)
		}
		for _, qq := range Generate(m, 5, 300) {
			w := truth.Expect(qq)
			e := m.Expect(qq).For(&Page{Status: w.Status, Rows: w.Rows})
			if !e.Known {
				continue
			}
			if e.LooseTies {
				e.Rows, w.Rows = sortRowTies(e.Rows), sortRowTies(w.Rows)
			}
			if e.Status != w.Status || cursors(e.Rows) != cursors(w.Rows) {
				t.Errorf("max %d %s: model %d %q, truth %d %q", tc.maxRows, Describe(qq), e.Status, cursors(e.Rows), w.Status, cursors(w.Rows))
			}
		}
	}
}

func TestBuildGames(t *testing.T) {
	var rows []Row
	for e := uint64(0); e <= 100; e++ {
		for _, id := range []string{"a", "b"} {
			rows = append(rows, game(e, id, individual("p"+id)))
		}
	}
	truth := gamesModel([]Span{{0, 100}}, 100, rows...)
	for _, tc := range []struct {
		maxRows int
		spans   []Span
		whole   bool
	}{
		{1000, []Span{{0, 100}}, true},
		{200, []Span{{46, 100}}, false}, // the unfiltered 30 epochs, and a window 25 deeper
		{100, []Span{{71, 100}}, false}, // the unfiltered 30 epochs are half the bound
		{150, []Span{{46, 100}}, false},
		{120, []Span{{71, 100}}, false},
		{60, []Span{{71, 100}}, false},
	} {
		asked := 0
		m, err := Build(context.Background(), oracleServer(truth, &asked), Games, Options{MaxRows: tc.maxRows, PageSize: 25})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m.Spans(), tc.spans) || m.Whole() != tc.whole || m.Latest() != 100 {
			t.Errorf("max %d: spans %v whole %v latest %d, want %v %v", tc.maxRows, m.Spans(), m.Whole(), m.Latest(), tc.spans, tc.whole)
		}
		for _, qq := range Generate(m, 9, 300) {
			w := truth.Expect(qq)
			e := m.Expect(qq).For(&Page{Status: w.Status, Rows: w.Rows})
			if !e.Known {
				continue
			}
			if e.LooseTies {
				e.Rows, w.Rows = sortRowTies(e.Rows), sortRowTies(w.Rows)
			}
			if e.Status != w.Status || !slices.Equal(keys(e.Rows), keys(w.Rows)) {
				t.Errorf("max %d %s: model %d %v, truth %d %v", tc.maxRows, Describe(qq), e.Status, keys(e.Rows), w.Status, keys(w.Rows))
			}
		}
	}
	// A window of 30 epochs above the bound: no model.
	asked := 0
	if _, err := Build(context.Background(), oracleServer(truth, &asked), Games, Options{MaxRows: 40, PageSize: 25}); err == nil || !strings.Contains(err.Error(), "more than 40 games") {
		t.Errorf("want an error naming the bound, got %v", err)
	}
}

func TestBuildGamesBoundsEmptyWindows(t *testing.T) {
	truth := gamesModel([]Span{{0, 100000}}, 100000, game(100000, "a", nil))
	asked := 0
	m, err := Build(context.Background(), oracleServer(truth, &asked), Games, Options{PageSize: 25})
	if err != nil {
		t.Fatal(err)
	}
	if asked > 2*maxWindows+1 || len(m.Rows()) != 1 {
		t.Errorf("%d requests for %d rows", asked, len(m.Rows()))
	}
}

func TestBuildErrors(t *testing.T) {
	boom := errors.New("connection refused")
	for name, f := range map[string]Fetch{
		"transport": func(context.Context, Listing, url.Values) (int, []byte, error) { return 0, nil, boom },
		"status":    func(context.Context, Listing, url.Values) (int, []byte, error) { return 500, []byte(`{}`), nil },
		"not json":  func(context.Context, Listing, url.Values) (int, []byte, error) { return 200, []byte(`<html>`), nil },
	} {
		for _, l := range Listings {
			if _, err := Build(context.Background(), f, l, Options{PageSize: 2}); err == nil || !strings.Contains(err.Error(), l.Path()) {
				t.Errorf("%s %s: want an error naming the path, got %v", name, l, err)
			}
		}
	}
}

func TestGrew(t *testing.T) {
	truth := New(Snapshots, DefaultLimits, snapRows(5), nil, true)
	asked := 0
	m, err := Build(context.Background(), oracleServer(truth, &asked), Snapshots, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g, err := Grew(context.Background(), oracleServer(truth, &asked), m); g || err != nil {
		t.Errorf("grew %v %v on the same data", g, err)
	}
	bigger := New(Snapshots, DefaultLimits, snapRows(6), nil, true)
	if g, err := Grew(context.Background(), oracleServer(bigger, &asked), m); !g || err != nil {
		t.Errorf("grew %v %v after a row arrived", g, err)
	}
	smaller := New(Snapshots, DefaultLimits, snapRows(4), nil, true)
	if g, _ := Grew(context.Background(), oracleServer(smaller, &asked), m); g {
		t.Error("a listing that lost its newest row did not grow")
	}
	empty := New(Snapshots, DefaultLimits, nil, nil, true)
	if g, _ := Grew(context.Background(), oracleServer(truth, &asked), empty); !g {
		t.Error("rows where there were none: grew")
	}
	if g, _ := Grew(context.Background(), oracleServer(empty, &asked), empty); g {
		t.Error("none where there were none: did not grow")
	}
	txs := New(Transactions, DefaultLimits, txRows("2.0 A p"), nil, true)
	if g, _ := Grew(context.Background(), oracleServer(New(Transactions, DefaultLimits, txRows("2.1 A p", "2.0 A p"), nil, true), &asked), txs); !g {
		t.Error("a transaction arrived: grew")
	}
	if _, err := Grew(context.Background(), func(context.Context, Listing, url.Values) (int, []byte, error) { return 503, nil, nil }, m); err == nil {
		t.Error("no error from a refused request")
	}
}

func TestJoinRuns(t *testing.T) {
	for _, tc := range []struct {
		head, tail []uint64
		want       []uint64
		ok         bool
	}{
		{[]uint64{9, 8}, []uint64{2, 1}, nil, false},
		{[]uint64{9, 8}, []uint64{8, 7}, []uint64{9, 8, 7}, true},
		{[]uint64{9, 8}, []uint64{9, 8}, []uint64{9, 8}, true},
		{[]uint64{9, 8, 7}, []uint64{8}, []uint64{9, 8, 7}, true},
		{nil, []uint64{1}, nil, false},
		{[]uint64{1}, nil, nil, false},
	} {
		got, ok := joinRuns(snaps(tc.head...), snaps(tc.tail...))
		if ok != tc.ok || (ok && !slices.Equal(heights(got), tc.want)) {
			t.Errorf("joinRuns(%v, %v) = %v %v, want %v %v", tc.head, tc.tail, heights(got), ok, tc.want, tc.ok)
		}
	}
	// Rows of the tail that share the head's last primary key and are not
	// in the head follow it.
	head := []Row{{Key: Key{9, "a", 0}}, {Key: Key{8, "b", 0}}}
	tail := []Row{{Key: Key{8, "c", 0}}, {Key: Key{8, "b", 0}}, {Key: Key{7, "a", 0}}}
	got, ok := joinRuns(head, tail)
	if !ok || fmt.Sprint(keys(got)) != "[9/a 8/b 8/c 7/a]" {
		t.Errorf("joinRuns with ties: %v %v", keys(got), ok)
	}
}

func TestDecode(t *testing.T) {
	g := game(4, "x", team([]string{"t1", "t2"}, "m1"))
	g.Individual, g.Players = true, []string{"p1"}
	p, err := Decode(Games, 200, encode(Games, []Row{g}, true, false))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Rows[0]
	if r.Key != g.Key || r.Cursor != g.Cursor || !r.Team || !r.Individual || !slices.Equal(r.Teams, g.Teams) || !slices.Equal(r.Members, g.Members) || !slices.Equal(r.Players, g.Players) || !p.HasNext || p.HasPrev || p.StartCursor != g.Cursor || p.EndCursor != g.Cursor {
		t.Errorf("decoded %+v from %+v", p, g)
	}
	tx := txRows("7.2 Amend p9 r1")[0]
	p, err = Decode(Transactions, 200, encode(Transactions, []Row{tx}, false, false))
	if err != nil || !slices.Equal(p.Rows[0].Receivers, []string{"r1"}) || p.Rows[0].Key != tx.Key || p.Rows[0].Submitter != "p9" || p.Rows[0].Type != "Amend" || p.Rows[0].Cursor != "7.2" {
		t.Errorf("decoded %+v, %v", p, err)
	}
	rot, err := Decode(Rotations, 200, encode(Rotations, []Row{{Key: Key{Num: 3, Str: "n"}, Cursor: "c"}}, false, false))
	if err != nil || rot.Rows[0].Key != (Key{Num: 3, Str: "n"}) {
		t.Errorf("rotation %+v %v", rot, err)
	}
	par, err := Decode(Parameters, 200, encode(Parameters, []Row{{Key: Key{Str: "a.b"}}}, false, false))
	if err != nil || par.Rows[0].Key != (Key{Str: "a.b"}) {
		t.Errorf("parameter %+v %v", par, err)
	}
	if p, err := Decode(Games, 404, []byte("nope")); err != nil || p.Status != 404 || p.Rows != nil {
		t.Errorf("a 404: %+v %v", p, err)
	}
	for name, tc := range map[string]struct {
		l    Listing
		body string
	}{
		"not json":         {Games, `{`},
		"not an object":    {Games, `[]`},
		"trailing data":    {Games, `{"games":{"edges":[]}} x`},
		"two values":       {Games, `{"games":{"edges":[]}} {}`},
		"bad member":       {Games, `{"other":[,],"games":{"edges":[]}}`},
		"null node":        {Games, `{"games":{"edges":[{"cursor":"c","node":null}]}}`},
		"null transaction": {Transactions, `{"transactions":[null]}`},
		"no wrapper":       {Games, `{"other":{}}`},
		"not a page":       {Games, `{"games":[]}`},
		"no epoch":         {Games, `{"games":{"edges":[{"node":{"id":"x"}}]}}`},
		"no id":            {Games, `{"games":{"edges":[{"node":{"epoch":"1"}}]}}`},
		"bad epoch":        {Games, `{"games":{"edges":[{"node":{"epoch":"-1","id":"x"}}]}}`},
		"node not object":  {Snapshots, `{"coreSnapshots":{"edges":[{"node":3}]}}`},
		"no height":        {Snapshots, `{"coreSnapshots":{"edges":[{"node":{}}]}}`},
		"no node id":       {Rotations, `{"keyRotations":{"edges":[{"node":{"blockHeight":"1"}}]}}`},
		"no key":           {Parameters, `{"networkParameters":{"edges":[{"node":{"value":"1"}}]}}`},
		"tx not array":     {Transactions, `{"transactions":{}}`},
		"tx no block":      {Transactions, `{"transactions":[{"index":1}]}`},
		"tx no index":      {Transactions, `{"transactions":[{"block":"1"}]}`},
		"tx number string": {Transactions, `{"transactions":[{"block":"1x","index":1}]}`},
	} {
		if _, err := Decode(tc.l, 200, []byte(tc.body)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if p, err := Decode(Snapshots, 200, []byte(`{"coreSnapshots":{"edges":[{"node":{"blockHeight":null}}]}}`)); err == nil {
		t.Errorf("a null height: %+v", p)
	}
	if p, err := Decode(Snapshots, 200, []byte(`{"coreSnapshots":{"edges":[{"node":{"blockHeight":12}}]}}`)); err != nil || p.Rows[0].Key.Num != 12 {
		t.Errorf("a numeric height: %+v %v", p, err)
	}
	// Other members are skipped.
	other := `{"a":{"b":[1,{"c":null}]},"coreSnapshots":{"edges":[{"cursor":"c3","node":{"blockHeight":3}}],"pageInfo":{"hasNextPage":true,"endCursor":"c3"}},"z":1}`
	if p, err := Decode(Snapshots, 200, []byte(other)); err != nil || len(p.Rows) != 1 || p.Rows[0].Key.Num != 3 || p.Rows[0].Cursor != "c3" || !p.HasNext || p.EndCursor != "c3" || p.HasPrev {
		t.Errorf("other members: %+v %v", p, err)
	}
	// The field's spelling is the schema rules' to judge: the model reads
	// it as encoding/json matches names.
	if p, err := Decode(Games, 200, []byte(`{"Games":{"edges":[{"node":{"epoch":"2","id":"g"}}]}}`)); err != nil || len(p.Rows) != 1 {
		t.Errorf("the field in another case: %+v %v", p, err)
	}
	for body, want := range map[string]string{
		`[]`:                     "body is not a JSON object",
		`{"games":[]}`:           `field "games" is not a page`,
		`{"games":{"edges":{}}}`: `field "games" is not a page`,
		`{"games":{"edges":[{"node":{"epoch":{}}}]}}`: `field "games" is not a page`,
		`{"games":{}} x`:       "body is not JSON",
		`{"games":{"edges":[]`: "body is not JSON",
	} {
		if _, err := Decode(Games, 200, []byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", body, err, want)
		}
	}
	if _, err := Decode(Transactions, 200, []byte(`{"transactions":[{"block":[]}]}`)); err == nil || !strings.Contains(err.Error(), `field "transactions" is not an array`) {
		t.Errorf("a transaction's block an array: %v", err)
	}
	if p, err := Decode(Snapshots, 200, []byte(" \n{ } ")); err == nil || !strings.Contains(err.Error(), `no "coreSnapshots" field`) {
		t.Errorf("an empty object: %+v %v", p, err)
	}
}

func TestReceivers(t *testing.T) {
	var cmd any
	json.Unmarshal([]byte(`{"a":[{"destination":"p1","destinationType":"ACCOUNT_TYPE_GENERAL"},{"destination":"m1","destinationType":"ACCOUNT_TYPE_INSURANCE"}],"b":{"c":{"destination":"p2","destinationType":"ACCOUNT_TYPE_GENERAL"}}}`), &cmd)
	got := receivers(cmd)
	slices.Sort(got)
	if !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("receivers = %v", got)
	}
}

func TestDecodeTransactionWithoutIndex(t *testing.T) {
	p, err := Decode(Transactions, 200, []byte(`{"transactions":[{"block":"7","cursor":"7.3","code":0,"command":{}}]}`))
	if err != nil || p.Rows[0].Key != (Key{Num: 7, Sub: 3}) {
		t.Errorf("the index from the cursor: %+v %v", p, err)
	}
	for _, body := range []string{
		`{"transactions":[{"block":"7","cursor":"abc","code":0}]}`,
		`{"transactions":[{"block":"7","cursor":"8.3","code":0}]}`,
		`{"transactions":[{"block":"7","code":0}]}`,
	} {
		if _, err := Decode(Transactions, 200, []byte(body)); !errors.Is(err, ErrNotShown) {
			t.Errorf("%s: %v, want ErrNotShown", body, err)
		}
	}
}

func TestFiltersOnFieldsNotShown(t *testing.T) {
	rows := txRows("9.1 A p1", "9.0 B p2")
	for i := range rows {
		rows[i].Type, rows[i].Submitter = "", ""
	}
	m := New(Transactions, DefaultLimits, rows, nil, true)
	for _, qq := range []url.Values{q("first", "2", "cmdTypes", "A"), q("first", "2", "excludeCmdTypes", "A"), q("first", "2", "parties", "p1")} {
		if e := m.Expect(qq); e.Known {
			t.Errorf("%s judged over records without the field it reads", Describe(qq))
		}
	}
	if e := m.Expect(q("first", "2")); !e.Known || len(e.Rows) != 2 {
		t.Error("an unfiltered query over records without type")
	}
	full := New(Transactions, DefaultLimits, txRows("9.1 A p1"), nil, true)
	if e := full.Expect(q("first", "2", "cmdTypes", "A", "parties", "p1")); !e.Known {
		t.Error("filters over records with the fields")
	}
}

func TestMustCount(t *testing.T) {
	m := New(Snapshots, DefaultLimits, snaps(3, 2, 1), nil, true).WithMustCount(10)
	if e := m.Expect(q(pFirst, "10")); e.Level != Must {
		t.Errorf("count 10 under a bound of 10: %s", e.Level)
	}
	if e := m.Expect(q(pFirst, "11")); e.Level != Should {
		t.Errorf("count 11 under a bound of 10: %s", e.Level)
	}
	if m.WithMustCount(0).mustCount != 10 {
		t.Error("WithMustCount(0) changed the bound")
	}
	tx := New(Transactions, DefaultLimits, txRows("9.1 A p1"), nil, true).WithMustCount(5)
	if e := tx.Expect(q("first", "6")); e.Level != Should {
		t.Errorf("tx count 6 under a bound of 5: %s", e.Level)
	}
	if e := tx.Expect(q("first", "5")); e.Level != Must {
		t.Errorf("tx count 5 under a bound of 5: %s", e.Level)
	}
}

func TestBuildSmallEdges(t *testing.T) {
	// A chain whose only epoch is 0.
	truth := gamesModel([]Span{{0, 0}}, 0, game(0, "a", nil))
	asked := 0
	m, err := Build(context.Background(), oracleServer(truth, &asked), Games, Options{PageSize: 5})
	if err != nil || len(m.Rows()) != 1 || !m.Whole() {
		t.Fatalf("games of epoch 0 alone: %v, %d rows", err, len(m.Rows()))
	}
	// The bound's error names the window it could not hold.
	var rows []Row
	for e := uint64(71); e <= 100; e++ {
		rows = append(rows, game(e, "a", nil), game(e, "b", nil))
	}
	big := gamesModel([]Span{{0, 100}}, 100, rows...)
	if _, err := Build(context.Background(), oracleServer(big, &asked), Games, Options{MaxRows: 10, PageSize: 5}); err == nil || !strings.Contains(err.Error(), "epochs 71 to 100") {
		t.Errorf("want the epochs named, got %v", err)
	}
}

func TestCheckOrder(t *testing.T) {
	if err := checkOrder(txRows("2.0 A p", "1.0 A p")); err != nil {
		t.Error(err)
	}
	if err := checkOrder(txRows("2.0 A p", "2.0 A p")); err == nil {
		t.Error("a row twice is not strictly in order")
	}
	if err := checkOrder(txRows("1.0 A p", "2.0 A p")); err == nil || !strings.Contains(err.Error(), "1 before 2") {
		t.Errorf("want the rows named, got %v", err)
	}
}

func TestGrewAsksTheListingsCount(t *testing.T) {
	for l, want := range map[Listing]string{Transactions: "first=1", Snapshots: "pagination.first=1"} {
		var got string
		fetch := func(_ context.Context, l Listing, q url.Values) (int, []byte, error) {
			got = q.Encode()
			return 200, encode(l, nil, false, false), nil
		}
		if _, err := Grew(context.Background(), fetch, New(l, DefaultLimits, nil, nil, true)); err != nil || got != want {
			t.Errorf("%s: asked %q (%v), want %q", l, got, err, want)
		}
	}
}
