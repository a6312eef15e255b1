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

// reply is a fake server's answer to one query: the rows, flags and status
// a hook may change.
type reply struct {
	status     int
	rows       []Row
	next, prev bool
}

// faulty answers as the truth says, through hook, which may change any
// answer (a server with one defect). asked lists the queries.
func faulty(truth *Model, asked *[]string, hook func(q url.Values, r *reply)) Fetch {
	return func(_ context.Context, l Listing, q url.Values) (int, []byte, error) {
		*asked = append(*asked, Describe(q))
		e := truth.Expect(q)
		if !e.Known && e.Status == 200 {
			return 0, nil, fmt.Errorf("the truth cannot answer %s", Describe(q))
		}
		r := reply{status: e.Status, rows: slices.Clone(e.Rows), next: e.HasNext == True, prev: e.HasPrev == True}
		if hook != nil {
			hook(q, &r)
		}
		if r.status != 200 {
			return r.status, []byte(`{"code":3,"message":"no","details":[]}`), nil
		}
		return 200, encode(l, r.rows, r.next, r.prev), nil
	}
}

// answerOf is the truth's answer to a query through hook, read.
func answerOf(t *testing.T, truth *Model, l Listing, q url.Values, hook func(url.Values, *reply)) *Page {
	t.Helper()
	var asked []string
	status, body, err := faulty(truth, &asked, hook)(context.Background(), l, q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode(l, status, body)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// after reports whether q pages after cursor c (newest first unless asc).
func after(q url.Values, c string, asc bool) bool {
	return q.Get(pAfter) == c && (q.Get(pNewest) == "false") == asc
}

func TestBuildFindsProblemsInItsWalks(t *testing.T) {
	truth := New(Snapshots, DefaultLimits, snapRows(30), nil, true)
	for _, tc := range []struct {
		name string
		hook func(q url.Values, r *reply)
		// the problem wanted: its aspect and query, and words of its detail
		aspect Aspect
		query  string
		detail string
		// whether the model is still whole, with every row
		whole bool
	}{
		{"a page repeats a row", func(q url.Values, r *reply) {
			if after(q, "c21==", false) {
				r.rows = append(snaps(21), r.rows...)
			}
		}, AspectRows, "pagination.after=c21== pagination.first=5", "came before", true},
		{"rows out of order", func(q url.Values, r *reply) {
			if after(q, "c26==", false) {
				r.rows[0], r.rows[1] = r.rows[1], r.rows[0]
			}
		}, AspectRows, "pagination.after=c26== pagination.first=5", "out of order", true},
		{"hasNextPage false before the end", func(q url.Values, r *reply) {
			if after(q, "c21==", false) && q.Get(pFirst) == "5" {
				r.next = false
			}
		}, AspectNext, "pagination.after=c21== pagination.first=5", "ends the walk early", true},
		{"hasNextPage true on the last page", func(q url.Values, r *reply) {
			if after(q, "c6==", false) {
				r.next = true
			}
		}, AspectNext, "pagination.after=c6== pagination.first=5", "want hasNextPage false", true},
		{"hasPreviousPage false after a cursor", func(q url.Values, r *reply) {
			if after(q, "c26==", false) {
				r.prev = false
			}
		}, AspectPrev, "pagination.after=c26== pagination.first=5", "want hasPreviousPage true", true},
		{"hasPreviousPage true on the first page", func(q url.Values, r *reply) {
			if !q.Has(pAfter) && q.Get(pFirst) == "5" && !q.Has(pNewest) {
				r.prev = true
			}
		}, AspectPrev, "pagination.first=5", "want hasPreviousPage false", true},
		{"a page answers 500", func(q url.Values, r *reply) {
			if after(q, "c16==", false) {
				r.status = 500
			}
		}, AspectStatus, "pagination.after=c16== pagination.first=5", "got HTTP 500", true},
		{"oldest first only", func(q url.Values, r *reply) {
			if after(q, "c10==", true) {
				r.prev = false
			}
		}, AspectPrev, "pagination.after=c10== pagination.first=5 pagination.newestFirst=false", "want hasPreviousPage true", true},
		{"a row lost newest first", func(q url.Values, r *reply) {
			if after(q, "c21==", false) {
				r.rows = r.rows[1:] // 20 is lost
			}
		}, AspectRows, "pagination.after=c21== pagination.first=5", "20 is missing", true},
		{"the oldest row lost newest first", func(q url.Values, r *reply) {
			switch {
			case after(q, "c6==", false):
				r.rows = r.rows[:len(r.rows)-1] // 1 is lost
			case after(q, "c2==", false):
				r.rows = nil // and nothing follows 2
			}
		}, AspectRows, "pagination.after=c6== pagination.first=5", "1 is missing", true},
		{"a row lost oldest first", func(q url.Values, r *reply) {
			if after(q, "c10==", true) {
				r.rows = r.rows[1:] // 11 is lost
			}
		}, AspectRows, "pagination.after=c10== pagination.first=5 pagination.newestFirst=false", "11 is missing", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			var problems []Problem
			m, err := Build(context.Background(), faulty(truth, &asked, tc.hook), Snapshots, Options{PageSize: 5, Problem: func(p Problem) { problems = append(problems, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != 1 {
				t.Fatalf("%d problems, want 1: %+v\nasked %v", len(problems), problems, asked)
			}
			p := problems[0]
			if p.Difference.Aspect != tc.aspect || p.Difference.Level != Must || Describe(p.Query) != tc.query || !strings.Contains(p.Difference.Detail, tc.detail) {
				t.Errorf("problem %s %s at %q: %s; want %s at %q with %q", p.Difference.Aspect, p.Difference.Level, Describe(p.Query), p.Difference.Detail, tc.aspect, tc.query, tc.detail)
			}
			if m.Whole() != tc.whole || len(m.Rows()) != 30 {
				t.Errorf("whole %v with %d rows, want %v with 30", m.Whole(), len(m.Rows()), tc.whole)
			}
			// The problem's check finds it in the answer to its query, and
			// not in the truth's.
			if p.Check != nil {
				if _, differs := p.Check(p.Query, answerOf(t, truth, Snapshots, p.Query, tc.hook)); !differs {
					t.Errorf("the check does not find the problem in the answer to its query")
				}
				if d, differs := p.Check(p.Query, answerOf(t, truth, Snapshots, p.Query, nil)); differs {
					t.Errorf("the check finds %s in the truth's answer", d.Detail)
				}
			} else if tc.aspect != AspectStatus {
				t.Errorf("no check")
			}
			// A row missing from a page is not missing from a page that
			// ends before its place.
			if strings.Contains(tc.detail, "is missing") {
				short := clone(p.Query)
				short.Set(pFirst, "1")
				if d, differs := p.Check(short, answerOf(t, truth, Snapshots, short, tc.hook)); differs && len(answerOf(t, truth, Snapshots, short, tc.hook).Rows) > 0 {
					t.Errorf("the check finds %q in a page of one row", d.Detail)
				}
			}
			// Every answer the model can tell is the truth's.
			for _, qq := range Generate(m, 3, 200) {
				e := m.Expect(qq)
				w := truth.Expect(qq)
				if e.Known && (e.Status != w.Status || !slices.Equal(keys(e.Rows), keys(w.Rows))) {
					t.Errorf("%s: model %d %v, truth %d %v", Describe(qq), e.Status, heights(e.Rows), w.Status, heights(w.Rows))
				}
			}
		})
	}
}

// TestBuildKeepsWhatItCanTrust checks a walk that breaks on a listing too
// large for the walk oldest first to reach the break: the rows before the
// problem are held, the rest unknown, and the model judges no answer that
// depends on them.
func TestBuildKeepsWhatItCanTrust(t *testing.T) {
	truth := New(Snapshots, DefaultLimits, snapRows(60), nil, true)
	var asked []string
	var problems []Problem
	hook := func(q url.Values, r *reply) {
		if after(q, "c51==", false) {
			r.rows = append(snaps(52), r.rows...)
		}
	}
	m, err := Build(context.Background(), faulty(truth, &asked, hook), Snapshots, Options{PageSize: 5, MaxRows: 40, Problem: func(p Problem) { problems = append(problems, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || m.Whole() || !slices.Equal(heights(m.head), []uint64{60, 59, 58, 57, 56, 55, 54, 53, 52, 51}) || len(m.tail) != 20 || len(m.windows) != 0 {
		t.Fatalf("%d problems; head %v, %d tail rows, %d windows", len(problems), heights(m.head), len(m.tail), len(m.windows))
	}
	if e := m.Expect(q(pFirst, "5", pAfter, "c51==")); e.Known {
		t.Errorf("the page after the problem is judged: %v", heights(e.Rows))
	}
	if e := m.Expect(q(pFirst, "4", pAfter, "c55==")); !e.Known || !slices.Equal(heights(e.Rows), []uint64{54, 53, 52, 51}) {
		t.Errorf("a page before the problem: known %v %v", e.Known, heights(e.Rows))
	}
}

func TestBuildTransactionsFindsProblems(t *testing.T) {
	var rows []Row
	for b := 20; b > 0; b-- {
		rows = append(rows, txRows(fmt.Sprintf("%d.1 A p", b), fmt.Sprintf("%d.0 B p", b))...)
	}
	truth := New(Transactions, DefaultLimits, rows, nil, true)
	for _, tc := range []struct {
		name   string
		hook   func(q url.Values, r *reply)
		aspect Aspect
		query  string
		rows   int
		whole  bool
	}{
		{"a page repeats a row", func(q url.Values, r *reply) {
			if q.Get("before") == "16.0" {
				r.rows = append(txRows("16.0 B p"), r.rows...)
			}
		}, AspectRows, "before=16.0 last=5", 15, false},
		{"a page short of its count", func(q url.Values, r *reply) {
			if q.Get("before") == "16.0" && q.Get("last") == "5" {
				r.rows = r.rows[:2]
			}
		}, AspectSize, "before=16.0 last=5", 40, true},
		{"rows out of order", func(q url.Values, r *reply) {
			if q.Get("before") == "18.1" {
				slices.Reverse(r.rows)
			}
		}, AspectRows, "before=18.1 last=5", 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			var problems []Problem
			m, err := Build(context.Background(), faulty(truth, &asked, tc.hook), Transactions, Options{PageSize: 5, MaxRows: 200, Problem: func(p Problem) { problems = append(problems, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != 1 || problems[0].Difference.Aspect != tc.aspect || Describe(problems[0].Query) != tc.query {
				t.Fatalf("problems %+v, want one %s at %q\nasked %v", problems, tc.aspect, tc.query, asked)
			}
			if len(m.Rows()) != tc.rows || m.Whole() != tc.whole {
				t.Errorf("%d rows, whole %v; want %d, %v", len(m.Rows()), m.Whole(), tc.rows, tc.whole)
			}
		})
	}
}

// gameRows are two games an epoch, a and b, of epochs from to to, newest
// first.
func gameRows(from, to uint64) []Row {
	var rows []Row
	for e := to; ; e-- {
		rows = append(rows, game(e, "a", individual("pa")), game(e, "b", individual("pb")))
		if e == from {
			return rows
		}
	}
}

func TestBuildGamesBlamesTheWindows(t *testing.T) {
	truth := gamesModel([]Span{{0, 100}}, 100, gameRows(0, 100)...)
	for _, tc := range []struct {
		name     string
		hook     func(q url.Values, r *reply)
		problems []string // the queries of the problems
		spans    []Span
	}{
		{"a window drops a game the unfiltered walk holds", func(q url.Values, r *reply) {
			if q.Has("epochFrom") || q.Has("epochTo") {
				r.rows = slices.DeleteFunc(r.rows, func(r Row) bool { return r.Key == Key{Num: 73, Str: "b"} })
			}
		}, []string{"epochFrom=46 epochTo=75 pagination.first=10"}, []Span{{71, 100}}},
		{"a window drops a game deeper", func(q url.Values, r *reply) {
			if q.Has("epochFrom") || q.Has("epochTo") {
				r.rows = slices.DeleteFunc(r.rows, func(r Row) bool { return r.Key == Key{Num: 50, Str: "b"} })
			}
		}, nil, []Span{{0, 100}}},
		{"the default window spans 31 epochs", func(q url.Values, r *reply) {
			if !q.Has("epochFrom") && !q.Has("epochTo") && q.Get(pFirst) == "10" && q.Get(pAfter) == "g76b=" {
				r.rows = append(r.rows, game(70, "a", individual("pa")))
			}
		}, []string{"pagination.after=g76b= pagination.first=10"}, []Span{{0, 100}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			var problems []string
			m, err := Build(context.Background(), faulty(truth, &asked, tc.hook), Games, Options{PageSize: 10, Problem: func(p Problem) { problems = append(problems, Describe(p.Query)) }})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(problems, tc.problems) || !slices.Equal(m.Spans(), tc.spans) {
				t.Fatalf("problems %q, spans %v; want %q, %v", problems, m.Spans(), tc.problems, tc.spans)
			}
			// No unfiltered answer is blamed: the model agrees with the
			// truth on every query without an epoch.
			for _, qq := range Generate(m, 4, 300) {
				if qq.Has("epochFrom") || qq.Has("epochTo") || qq.Has("epoch_from") || qq.Has("epoch_to") {
					continue
				}
				w := truth.Expect(qq)
				e := m.Expect(qq).For(&Page{Status: w.Status, Rows: w.Rows})
				if e.LooseTies {
					e.Rows, w.Rows = sortRowTies(e.Rows), sortRowTies(w.Rows)
				}
				if e.Known && !slices.Equal(keys(e.Rows), keys(w.Rows)) {
					t.Errorf("%s: model %v, truth %v", Describe(qq), keys(e.Rows), keys(w.Rows))
				}
			}
		})
	}
}

func TestBuildGamesDerivesDeeperEpochs(t *testing.T) {
	truth := gamesModel([]Span{{0, 100}}, 100, gameRows(0, 100)...)
	var asked []string
	m, err := Build(context.Background(), faulty(truth, &asked, nil), Games, Options{PageSize: 10, MaxRows: 300})
	if err != nil {
		t.Fatal(err)
	}
	// The unfiltered 30 epochs, and windows of 30 epochs each 5 into the
	// epochs held: 25 more each until half the bound (150 games).
	if !slices.Equal(m.Spans(), []Span{{21, 100}}) || !slices.Equal(m.Derived(), []Span{{21, 70}}) {
		t.Errorf("spans %v derived %v", m.Spans(), m.Derived())
	}
	for _, want := range []string{"epochFrom=46 epochTo=75 pagination.first=10", "epochFrom=21 epochTo=50 pagination.first=10"} {
		if !slices.Contains(asked, want) {
			t.Errorf("did not ask %q: %v", want, asked)
		}
	}
	for _, a := range asked {
		if strings.Contains(a, "epochFrom=0 ") {
			t.Errorf("asked %s: the model no longer reads from epoch 0 up", a)
		}
	}
}

// TestBuildLearnsTheOrder builds models of listings whose ties (and network
// parameters) are in other orders than docs/behaviour.md's, newest first
// and oldest first: the model takes each from its walks, and tells pages
// that cut through ties as the deployment would.
func TestBuildLearnsTheOrder(t *testing.T) {
	// Rotations of each block with node IDs z, a, m newest first, and
	// oldest first m, z, a (not the reverse).
	var desc, ascRows []Row
	for b := uint64(8); b >= 1; b-- {
		for _, n := range []string{"z", "a", "m"} {
			desc = append(desc, Row{Key: Key{b, n, 0}, Cursor: fmt.Sprintf("r%d%s=", b, n)})
		}
	}
	for b := uint64(1); b <= 8; b++ {
		for _, n := range []string{"m", "z", "a"} {
			ascRows = append(ascRows, Row{Key: Key{b, n, 0}, Cursor: fmt.Sprintf("r%d%s=", b, n)})
		}
	}
	newest := New(Rotations, DefaultLimits, desc, nil, true)
	oldestRev := slices.Clone(ascRows)
	slices.Reverse(oldestRev)
	oldest := New(Rotations, DefaultLimits, oldestRev, nil, true)
	var asked []string
	fetch := faulty(newest, &asked, func(q url.Values, r *reply) {
		if q.Get(pNewest) == "false" {
			e := oldest.Expect(q)
			r.rows, r.next, r.prev = e.Rows, e.HasNext == True, e.HasPrev == True
		}
	})
	m, err := Build(context.Background(), fetch, Rotations, Options{PageSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q    url.Values
		want string
	}{
		{q(pFirst, "2"), "[8/z 8/a]"},
		{q(pFirst, "2", pAfter, "r8a="), "[8/m 7/z]"},
		{q(pFirst, "2", pNewest, "false"), "[1/m 1/z]"},
		{q(pFirst, "2", pNewest, "false", pAfter, "r1z="), "[1/a 2/m]"},
		{q(pLast, "1", pBefore, "r7z="), "[8/m]"},
	} {
		e := m.Expect(tc.q)
		if got := fmt.Sprint(keys(e.Rows)); !e.Known || got != tc.want || e.LooseTies {
			t.Errorf("%s: known %v %s (loose %v), want %s", Describe(tc.q), e.Known, got, e.LooseTies, tc.want)
		}
		// The deployment's own answer passes at MUST, and fails the
		// SHOULD order of ties.
		var a []string
		p := answerOf(t, newest, Rotations, tc.q, func(q url.Values, r *reply) {
			if q.Get(pNewest) == "false" {
				e := oldest.Expect(q)
				r.rows, r.next, r.prev = e.Rows, e.HasNext == True, e.HasPrev == True
			}
		})
		_ = a
		for _, d := range Compare(Rotations, e, p, nil, false).Differences {
			if d.Level == Must {
				t.Errorf("%s: %s %s", Describe(tc.q), d.Aspect, d.Detail)
			}
		}
	}
	// Network parameters in another order than by key, the same either way.
	params := []Row{{Key: Key{Str: "b"}, Cursor: "Yg=="}, {Key: Key{Str: "c"}, Cursor: "Yw=="}, {Key: Key{Str: "a"}, Cursor: "YQ=="}}
	ptruth := New(Parameters, DefaultLimits, params, nil, true)
	pm, err := Build(context.Background(), faulty(ptruth, &asked, nil), Parameters, Options{PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, qq := range []url.Values{q(pFirst, "2"), q(pFirst, "3", pNewest, "false"), q(pFirst, "2", pAfter, "Yg==")} {
		e := pm.Expect(qq)
		w := ptruth.Expect(qq)
		if !e.Known || !slices.Equal(keys(e.Rows), keys(w.Rows)) {
			t.Errorf("parameters %s: %v, want %v", Describe(qq), keys(e.Rows), keys(w.Rows))
		}
		sorted := slices.IsSortedFunc(w.Rows, func(a, b Row) int { return strings.Compare(a.Key.Str, b.Key.Str) })
		if d := tieOrder(Parameters, keys(w.Rows), e.Asc); (d == "") != sorted {
			t.Errorf("parameters %s: %v passes the SHOULD key order", Describe(qq), keys(w.Rows))
		}
	}
}

// TestBuildHoldsWindowsDeepInside builds a listing larger than the model
// holds: hops of the largest page reach deep inside it, and the model holds
// a window at each, judged like the rest.
func TestBuildHoldsWindowsDeepInside(t *testing.T) {
	truth := New(Snapshots, Limits{DefaultPage: 100, MaxPage: 300, TxDefault: 50}, snapRows(2000), nil, true)
	var asked []string
	m, err := Build(context.Background(), faulty(truth, &asked, nil), Snapshots, Options{PageSize: 10, MaxRows: 200, Limits: truth.Limits})
	if err != nil {
		t.Fatal(err)
	}
	var firsts []uint64
	for _, w := range m.Windows() {
		if len(w) != 20 {
			t.Errorf("a window of %d rows, want 20", len(w))
		}
		firsts = append(firsts, w[0].Key.Num)
	}
	// The head ends at 1901; each hop of 300 ends 300 deeper, and its last
	// 20 rows are held.
	if !slices.Equal(firsts, []uint64{1620, 1320, 1020}) {
		t.Errorf("windows start at %v", firsts)
	}
	if len(m.Ends()) != 8 {
		t.Errorf("%d rows beside the gaps, want 8", len(m.Ends()))
	}
	judged := 0
	for _, qq := range Generate(m, 1, 400) {
		e := m.Expect(qq)
		if !e.Known {
			continue
		}
		w := truth.Expect(qq)
		if e.Status != w.Status || !slices.Equal(keys(e.Rows), keys(w.Rows)) || e.HasNext != Unknown && e.HasNext != w.HasNext || e.HasPrev != Unknown && e.HasPrev != w.HasPrev {
			t.Errorf("%s: model %d %v %s %s, truth %d %v %s %s", Describe(qq), e.Status, heights(e.Rows), e.HasNext, e.HasPrev, w.Status, heights(w.Rows), w.HasNext, w.HasPrev)
		}
		for _, r := range e.Rows {
			if r.Key.Num > 1000 && r.Key.Num <= 1620 {
				judged++
				break
			}
		}
	}
	if e := m.Expect(q(pFirst, "5", pAfter, "c1610==")); !e.Known || !slices.Equal(heights(e.Rows), []uint64{1609, 1608, 1607, 1606, 1605}) {
		t.Errorf("a page inside a window: %v %v", e.Known, heights(e.Rows))
	}
	if e := m.Expect(q(pFirst, "5", pAfter, "c1603==")); e.Known {
		t.Errorf("a page that reaches past a window is judged: %v", heights(e.Rows))
	}
	t.Logf("%d generated answers judged deep inside", judged)
	// A deployment whose largest page is smaller: the hops halve the count
	// until it accepts one (150).
	small := faulty(truth, &asked, func(q url.Values, r *reply) {
		if q.Get(pFirst) == "300" {
			r.status = 400
		}
	})
	asked = nil
	m, err = Build(context.Background(), small, Snapshots, Options{PageSize: 10, MaxRows: 200, Limits: truth.Limits})
	if err != nil {
		t.Fatal(err)
	}
	if ws := m.Windows(); len(ws) != 3 || ws[0][0].Key.Num != 1770 || !slices.Contains(asked, "pagination.after=c1751== pagination.first=150") {
		t.Errorf("with pages of at most 299: %d windows, asked %v", len(ws), asked)
	}
	// One whose largest page is no larger than a window: no hop.
	tiny := faulty(truth, &asked, func(q url.Values, r *reply) {
		if n, _ := strconv.Atoi(q.Get(pFirst)); n > 20 {
			r.status = 400
		}
	})
	m, err = Build(context.Background(), tiny, Snapshots, Options{PageSize: 10, MaxRows: 200, Limits: truth.Limits})
	if err != nil || len(m.Windows()) != 0 {
		t.Errorf("with pages of at most 20: %d windows (%v)", len(m.Windows()), err)
	}
}

func TestBuildTransactionWindows(t *testing.T) {
	var rows []Row
	for b := 1000; b > 0; b-- {
		rows = append(rows, txRows(fmt.Sprintf("%d.1 A p", b), fmt.Sprintf("%d.0 B p", b))...)
	}
	truth := New(Transactions, DefaultLimits, rows, nil, true)
	var asked []string
	m, err := Build(context.Background(), faulty(truth, &asked, nil), Transactions, Options{PageSize: 10, MaxRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	var tops []string
	for _, w := range m.Windows() {
		tops = append(tops, w[0].Key.String())
	}
	// The head ends at block 976, the tail starts at 5: windows at blocks
	// 733, 490, 247, the 20 transactions just older than each.
	if fmt.Sprint(tops) != "[732.1 489.1 246.1]" {
		t.Errorf("windows start at %v", tops)
	}
	for _, qq := range Generate(m, 2, 300) {
		e := m.Expect(qq)
		if !e.Known {
			continue
		}
		if w := truth.Expect(qq); e.Status != w.Status || !slices.Equal(keys(e.Rows), keys(w.Rows)) {
			t.Errorf("%s: model %d %v, truth %d %v", Describe(qq), e.Status, keys(e.Rows), w.Status, keys(w.Rows))
		}
	}
	// Cursors of another form: no window.
	other := slices.Clone(rows)
	for i := range other {
		other[i].Cursor = "x" + other[i].Cursor
	}
	otherTruth := New(Transactions, DefaultLimits, other, nil, true)
	m, err = Build(context.Background(), faulty(otherTruth, &asked, nil), Transactions, Options{PageSize: 10, MaxRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Windows()) != 0 {
		t.Errorf("%d windows from cursors that are not <block>.<index>", len(m.Windows()))
	}
}

// tiesTurnAfterCursor answers a page asked after a cursor as if its ties
// were in the other order (the keyset query sorts them otherwise than the
// first page does): the rows after the cursor's in that order.
func tiesTurnAfterCursor(truth *Model) func(url.Values, *reply) {
	return func(q url.Values, r *reply) {
		c := q.Get(pAfter)
		n, err := strconv.Atoi(q.Get(pFirst))
		if c == "" || err != nil {
			return
		}
		all := clone(q)
		all.Del(pAfter)
		all.Set(pFirst, "5000")
		e := truth.Expect(all)
		rows := slices.Clone(e.Rows)
		asc := q.Get(pNewest) == "false"
		slices.SortStableFunc(rows, func(a, b Row) int {
			if a.Key.Num != b.Key.Num {
				return 0
			}
			return -newer(a.Key, b.Key) // ties the other way round
		})
		at := slices.IndexFunc(rows, func(x Row) bool { return x.Cursor == c })
		if at < 0 {
			return
		}
		k := rows[at].Key
		var out []Row
		for _, x := range rows {
			c := newer(x.Key, k) // newest first
			if asc {
				c = -c
			}
			if x.Key.Num == k.Num {
				c = -c // the other way round among the cursor's ties
			}
			if c > 0 {
				out = append(out, x)
			}
		}
		r.next = len(out) > n
		r.rows = out[:min(n, len(out))]
		r.prev = true
	}
}

// TestBuildTieOrderChangingBetweenPages builds games from a deployment whose
// pages after a cursor order ties otherwise than its first page: the walks
// break, the problem is blamed on pages asked after a cursor, and no answer
// without a cursor (which the defect does not change) is judged otherwise
// than it is.
func TestBuildTieOrderChangingBetweenPages(t *testing.T) {
	var rows []Row
	for e := uint64(100); e >= 71; e-- {
		for _, id := range []string{"a", "b", "c"}[:1+e%3] {
			rows = append(rows, game(e, id, individual("p"+id)))
		}
	}
	truth := gamesModel([]Span{{71, 100}}, 100, rows...)
	hook := tiesTurnAfterCursor(truth)
	var asked []string
	var problems []Problem
	m, err := Build(context.Background(), faulty(truth, &asked, hook), Games, Options{PageSize: 7, Problem: func(p Problem) { problems = append(problems, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) == 0 {
		t.Fatal("no problem found")
	}
	// The walk oldest first lost the games of epoch 74 it turned past.
	if !slices.ContainsFunc(problems, func(p Problem) bool {
		return p.Query.Get(pNewest) == "false" && strings.Contains(p.Difference.Detail, "74/a is missing")
	}) {
		t.Errorf("the games the walk oldest first lost are not blamed on it: %+v", problems)
	}
	for _, p := range problems {
		if !p.Query.Has(pAfter) {
			t.Errorf("a problem blamed on a page without a cursor: %s: %s", Describe(p.Query), p.Difference.Detail)
		}
		if p.Check != nil {
			if _, differs := p.Check(p.Query, answerOf(t, truth, Games, p.Query, hook)); !differs {
				t.Errorf("%s: the check does not find %s", Describe(p.Query), p.Difference.Detail)
			}
		}
	}
	judged := 0
	for _, qq := range Generate(m, 1, 400) {
		if qq.Has(pAfter) || qq.Has(pBefore) {
			continue
		}
		e := m.Expect(qq)
		if !e.Known {
			continue
		}
		judged++
		got := answerOf(t, truth, Games, qq, hook)
		for _, d := range Compare(Games, e, got, nil, false).Differences {
			if d.Level == Must {
				t.Errorf("%s: a page without a cursor is blamed: %s %s", Describe(qq), d.Aspect, d.Detail)
			}
		}
	}
	if judged < 50 {
		t.Errorf("only %d answers without a cursor judged", judged)
	}
}

func TestCandidates(t *testing.T) {
	for _, tc := range []struct {
		max, keep, accepted int
		want                string
	}{
		{5000, 100, 0, "[5000 2500 1250 625 312 156]"},
		{5000, 100, 625, "[625]"},
		{300, 20, 0, "[300 150 75 37]"},
		{40, 40, 0, "[]"},
		{81, 40, 0, "[81]"},
	} {
		if got := fmt.Sprint(candidates(tc.max, tc.keep, tc.accepted)); got != tc.want {
			t.Errorf("candidates(%d, %d, %d) = %s, want %s", tc.max, tc.keep, tc.accepted, got, tc.want)
		}
	}
}

// TestBuildWalkStopsWhereAnswersStop checks the walk's pages that bring no
// answer it can read: a page that is not JSON is a problem of its query; a
// page that brings no answer at all is no problem of the deployment's (the
// client reports it); either way the rows before it are kept.
func TestBuildWalkStopsWhereAnswersStop(t *testing.T) {
	truth := New(Snapshots, DefaultLimits, snapRows(30), nil, true)
	for _, tc := range []struct {
		name     string
		status   int
		body     []byte
		err      error
		problems int
	}{
		{"not JSON", 200, []byte("<html>"), nil, 1},
		{"no answer", 0, nil, fmt.Errorf("connection reset"), 0},
	} {
		var asked []string
		base := faulty(truth, &asked, nil)
		fetch := func(ctx context.Context, l Listing, q url.Values) (int, []byte, error) {
			if q.Get(pAfter) == "c21==" && !q.Has(pNewest) {
				return tc.status, tc.body, tc.err
			}
			return base(ctx, l, q)
		}
		var problems []Problem
		m, err := Build(context.Background(), fetch, Snapshots, Options{PageSize: 5, MaxRows: 40, Problem: func(p Problem) { problems = append(problems, p) }})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(problems) != tc.problems || !slices.Equal(heights(m.head), []uint64{30, 29, 28, 27, 26, 25, 24, 23, 22, 21}) {
			t.Errorf("%s: problems %+v, head %v", tc.name, problems, heights(m.head))
		}
		for _, p := range problems {
			if p.Difference.Aspect != AspectRows || !strings.Contains(p.Difference.Detail, "cannot be read") {
				t.Errorf("%s: %+v", tc.name, p)
			}
		}
	}
}

// TestBuildParametersWithAGap builds network parameters larger than the
// model holds: their oldest rows are walked backwards (newestFirst does not
// order them), and oldest first is left unknown.
func TestBuildParametersWithAGap(t *testing.T) {
	var rows []Row
	for i := range 40 {
		k := fmt.Sprintf("k%02d", i)
		rows = append(rows, Row{Key: Key{Str: k}, Cursor: k + "=="})
	}
	truth := New(Parameters, DefaultLimits, rows, nil, true)
	var asked []string
	m, err := Build(context.Background(), faulty(truth, &asked, nil), Parameters, Options{PageSize: 5, MaxRows: 20})
	if err != nil {
		t.Fatal(err)
	}
	if m.Whole() || len(m.head) != 10 || len(m.tail) != 10 || m.tail[0].Key.Str != "k30" {
		t.Fatalf("whole %v, head %d, tail %v", m.Whole(), len(m.head), keys(m.tail))
	}
	if e := m.Expect(q(pFirst, "2", pNewest, "false")); e.Known {
		t.Errorf("oldest first is judged: %v", keys(e.Rows))
	}
	if e := m.Expect(q(pLast, "2")); !e.Known || fmt.Sprint(keys(e.Rows)) != "[k38 k39]" {
		t.Errorf("the last 2: %v %v", e.Known, keys(e.Rows))
	}
	// A backward walk whose pages are out of order holds no tail.
	bad := faulty(truth, &asked, func(q url.Values, r *reply) {
		if q.Has(pLast) {
			slices.Reverse(r.rows)
		}
	})
	if m, err = Build(context.Background(), bad, Parameters, Options{PageSize: 5, MaxRows: 20}); err != nil || len(m.tail) != 0 {
		t.Errorf("an out-of-order tail is held: %v %v", keys(m.tail), err)
	}
}

// TestBuildHopsStopAtWhatTheyCannotHold checks hops that reach rows held
// already, or come back out of order: no window.
func TestBuildHopsStopAtWhatTheyCannotHold(t *testing.T) {
	truth := New(Snapshots, Limits{DefaultPage: 100, MaxPage: 300, TxDefault: 50}, snapRows(2000), nil, true)
	for name, hook := range map[string]func(url.Values, *reply){
		"out of order": func(q url.Values, r *reply) {
			if q.Get(pFirst) == "300" {
				slices.Reverse(r.rows)
			}
		},
		"rows held": func(q url.Values, r *reply) {
			if q.Get(pFirst) == "300" {
				r.rows = append(snaps(1901), r.rows...)
			}
		},
	} {
		var asked []string
		m, err := Build(context.Background(), faulty(truth, &asked, hook), Snapshots, Options{PageSize: 10, MaxRows: 200, Limits: truth.Limits})
		if err != nil || len(m.Windows()) != 0 {
			t.Errorf("%s: %d windows (%v)", name, len(m.Windows()), err)
		}
	}
}

// TestBuildGamesWhileAnEpochStarts builds games while a new epoch starts
// between the walks: the oldest epoch of the default window may have left
// it, so it is not held, and nothing is blamed.
func TestBuildGamesWhileAnEpochStarts(t *testing.T) {
	before := gamesModel([]Span{{0, 100}}, 100, gameRows(0, 100)...)
	after := gamesModel([]Span{{0, 101}}, 101, gameRows(0, 101)...)
	var asked []string
	calls := 0
	fetch := func(ctx context.Context, l Listing, q url.Values) (int, []byte, error) {
		calls++
		truth := before
		if calls > 15 { // after the walks of the default window, newest and oldest first
			truth = after
		}
		return faulty(truth, &asked, nil)(ctx, l, q)
	}
	var problems []Problem
	m, err := Build(context.Background(), fetch, Games, Options{PageSize: 10, MaxRows: 100, Problem: func(p Problem) { problems = append(problems, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 0 || m.Latest() != 100 || !slices.Equal(m.Spans(), []Span{{72, 100}}) {
		t.Errorf("problems %+v, latest %d, spans %v", problems, m.Latest(), m.Spans())
	}
}

// TestBuildGamesCoreBreaks builds games whose unfiltered walk breaks, and
// whose walk oldest first does too: the epochs above the break are held
// from the unfiltered walk, those below it derived from windows.
func TestBuildGamesCoreBreaks(t *testing.T) {
	truth := gamesModel([]Span{{0, 100}}, 100, gameRows(0, 100)...)
	var asked []string
	hook := func(q url.Values, r *reply) {
		if q.Get(pAfter) == "g91b=" && !q.Has("epochFrom") || q.Get(pAfter) == "g75a=" && q.Get(pNewest) == "false" {
			r.rows = append([]Row{game(99, "a", individual("pa"))}, r.rows...)
		}
	}
	var problems []Problem
	m, err := Build(context.Background(), faulty(truth, &asked, hook), Games, Options{PageSize: 10, MaxRows: 400, Problem: func(p Problem) { problems = append(problems, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Derived(); len(problems) != 2 || !slices.Equal(m.Spans(), []Span{{0, 100}}) || len(d) != 1 || d[0].To != 91 {
		t.Errorf("problems %d, spans %v, derived %v", len(problems), m.Spans(), d)
	}
}

// TestBuildGamesWindowOutOfBounds checks a window whose answer holds a game
// outside it: a problem of the window's query, and nothing deeper held.
func TestBuildGamesWindowOutOfBounds(t *testing.T) {
	truth := gamesModel([]Span{{0, 100}}, 100, gameRows(0, 100)...)
	var asked []string
	hook := func(q url.Values, r *reply) {
		if q.Get("epochFrom") == "46" && !q.Has(pAfter) {
			r.rows = append(r.rows, game(3, "a", individual("pa")))
		}
	}
	var problems []string
	m, err := Build(context.Background(), faulty(truth, &asked, hook), Games, Options{PageSize: 100, Problem: func(p Problem) { problems = append(problems, p.Difference.Detail) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "outside the window asked") || !slices.Equal(m.Spans(), []Span{{71, 100}}) {
		t.Errorf("problems %q, spans %v", problems, m.Spans())
	}
}

// TestCutPlacesKeysNotHeld checks where keys the model does not hold fall,
// each way: by key order among rows in it, nowhere in a gap or among ties
// whose order is not the keys'.
func TestCutPlacesKeysNotHeld(t *testing.T) {
	rows := []Row{{Key: Key{9, "a", 0}, Cursor: "1"}, {Key: Key{9, "c", 0}, Cursor: "2"}, {Key: Key{7, "b", 0}, Cursor: "3"}, {Key: Key{7, "a", 0}, Cursor: "4"}, {Key: Key{5, "a", 0}, Cursor: "5"}}
	m := New(Rotations, DefaultLimits, rows[:4], rows[4:], false)
	for _, tc := range []struct {
		k      Key
		asc    bool
		place  int
		ok     bool
		reason string
	}{
		{Key{10, "a", 0}, false, 0, true, "newer than all"},
		{Key{9, "b", 0}, false, 1, true, "among ties in key order"},
		{Key{8, "a", 0}, false, 2, true, "between two primary keys"},
		{Key{7, "c", 0}, false, 0, false, "among ties not in key order"},
		{Key{6, "a", 0}, false, 0, false, "in the gap"},
		{Key{4, "a", 0}, false, 6, true, "older than all"},
		{Key{9, "b", 0}, true, 5, true, "oldest first, among ties in key order"},
		{Key{10, "a", 0}, true, 6, true, "oldest first, newer than all"},
		{Key{4, "a", 0}, true, 0, true, "oldest first, older than all"},
		{Key{6, "a", 0}, true, 0, false, "oldest first, in the gap"},
	} {
		p, ok := m.cut(tc.k, tc.asc, false)
		if ok != tc.ok || ok && p != tc.place {
			t.Errorf("%s: cut(%s, asc %v) = %d %v, want %d %v", tc.reason, tc.k, tc.asc, p, ok, tc.place, tc.ok)
		}
	}
	if z, ok := m.zone(Key{Num: 5, Str: "a"}); !ok || z != 1 {
		t.Errorf("a key of the tail: zone %d %v", z, ok)
	}
	if z, ok := m.zone(Key{Num: 9, Str: "a"}); !ok || z != -1 {
		t.Errorf("a key of the head: zone %d %v", z, ok)
	}
	if _, ok := m.zone(Key{Num: 6}); ok {
		t.Errorf("a key in the gap has a zone")
	}
}

func TestUnite(t *testing.T) {
	walkOf := func(done bool, ks ...Key) *walk {
		var rows []Row
		for _, k := range ks {
			rows = append(rows, Row{Key: k})
		}
		return &walk{rows: rows, rank: ranksOf(rows), done: done}
	}
	k := func(n uint64, s string) Key { return Key{Num: n, Str: s} }
	all := func(Key) bool { return true }
	for _, tc := range []struct {
		name      string
		desc, asc *walk
		held      func(Key) bool
		want      string
	}{
		{"the same rows", walkOf(true, k(3, "a"), k(2, "a")), walkOf(true, k(2, "a"), k(3, "a")), all, "[3/a 2/a]"},
		{"a row lost among ties goes last of them", walkOf(true, k(3, "a"), k(2, "a"), k(2, "c"), k(1, "a")), walkOf(true, k(1, "a"), k(2, "b"), k(2, "c"), k(2, "a"), k(3, "a")), all, "[3/a 2/a 2/c 2/b 1/a]"},
		{"the oldest row lost", walkOf(true, k(3, "a"), k(2, "a")), walkOf(true, k(1, "a"), k(2, "a"), k(3, "a")), all, "[3/a 2/a 1/a]"},
		{"the newest row lost", walkOf(true, k(2, "a"), k(1, "a")), walkOf(true, k(1, "a"), k(2, "a"), k(3, "a")), all, "[3/a 2/a 1/a]"},
		{"not held", walkOf(true, k(2, "a")), walkOf(true, k(1, "a"), k(2, "a")), func(k Key) bool { return k.Num > 1 }, "[2/a]"},
		{"out of reach", walkOf(false, k(3, "a"), k(2, "a")), walkOf(true, k(1, "a"), k(2, "b"), k(3, "a")), all, "[3/a 2/a]"},
		{"a walk that read nothing", walkOf(false), walkOf(true, k(1, "a")), all, "[]"},
	} {
		if got := fmt.Sprint(keys(unite(tc.desc, tc.asc, tc.held))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestBuildFirstPageNotTrusted builds a listing whose very first page
// repeats a row: nothing is known, and nothing is judged.
func TestBuildFirstPageNotTrusted(t *testing.T) {
	truth := New(Snapshots, DefaultLimits, snapRows(30), nil, true)
	var asked []string
	var problems []Problem
	m, err := Build(context.Background(), faulty(truth, &asked, func(q url.Values, r *reply) {
		if !q.Has(pAfter) && !q.Has(pNewest) {
			r.rows = append(r.rows, r.rows[0])
		}
	}), Snapshots, Options{PageSize: 5, MaxRows: 20, Problem: func(p Problem) { problems = append(problems, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || m.Whole() || len(m.head) != 0 {
		t.Errorf("problems %d, whole %v, head %v", len(problems), m.Whole(), heights(m.head))
	}
	if e := m.Expect(q(pFirst, "1")); e.Known {
		t.Errorf("the first page is judged: %v", heights(e.Rows))
	}
}

// TestBuildStopsAtRowsThatArrived builds a listing that grows just as the
// walk oldest first reaches its newest end: the row after the walk's last,
// which arrived after the walk newest first began, ends the walk without a
// problem, and is not held.
func TestBuildStopsAtRowsThatArrived(t *testing.T) {
	before := New(Snapshots, DefaultLimits, snapRows(30), nil, true)
	after := New(Snapshots, DefaultLimits, snapRows(31), nil, true)
	var asked []string
	grown := false
	fetch := func(ctx context.Context, l Listing, q url.Values) (int, []byte, error) {
		if q.Get(pNewest) == "false" && q.Get(pAfter) == "c30==" {
			grown = true
		}
		truth := before
		if grown {
			truth = after
		}
		return faulty(truth, &asked, nil)(ctx, l, q)
	}
	var problems []Problem
	m, err := Build(context.Background(), fetch, Snapshots, Options{PageSize: 5, Problem: func(p Problem) { problems = append(problems, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 0 || !m.Whole() || len(m.Rows()) != 30 || !grown {
		t.Errorf("problems %+v, whole %v, %d rows, grew %v", problems, m.Whole(), len(m.Rows()), grown)
	}
}

// TestNextCheck judges hasNextPage of answers for a walk's problem: early
// (rows follow the walk's row at place at) or late (none does).
func TestNextCheck(t *testing.T) {
	rows := snaps(5, 4, 3, 2, 1)
	w := &walk{base: url.Values{}, rows: rows, rank: ranksOf(rows), done: true}
	page := func(next bool, hs ...uint64) *Page { return &Page{Status: 200, Rows: snaps(hs...), HasNext: next} }
	for _, tc := range []struct {
		name    string
		at      int
		late    bool
		q       url.Values
		p       *Page
		differs bool
	}{
		{"early, ends at the row", 2, false, q(pFirst, "3"), page(false, 5, 4, 3), true},
		{"early, ends at the row, right", 2, false, q(pFirst, "3"), page(true, 5, 4, 3), false},
		{"early, ends before the row", 2, false, q(pFirst, "2"), page(false, 5, 4), true},
		{"early, ends after the row", 2, false, q(pFirst, "4"), page(false, 5, 4, 3, 2), false},
		{"late, ends at the row", 4, true, q(pFirst, "2", pAfter, "c3=="), page(true, 2, 1), true},
		{"late, ends at the row, right", 4, true, q(pFirst, "2", pAfter, "c3=="), page(false, 2, 1), false},
		{"late, ends before the row", 4, true, q(pFirst, "1", pAfter, "c3=="), page(true, 2), false},
		{"another filter", 2, false, q(pFirst, "3", "nodeId", "x"), page(false, 5, 4, 3), false},
		{"backwards", 2, false, q(pLast, "3"), page(false, 5, 4, 3), false},
		{"empty", 2, false, q(pFirst, "3"), page(false), false},
		{"a row not walked", 2, false, q(pFirst, "3"), page(false, 9), false},
	} {
		if _, differs := w.nextCheck(tc.at, tc.late)(tc.q, tc.p); differs != tc.differs {
			t.Errorf("%s: differs %v, want %v", tc.name, differs, tc.differs)
		}
	}
}
