package model

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// snapPage writes a snapshots answer whose records are the nodes given.
func snapPage(nodes ...string) []byte {
	var edges []string
	for i, n := range nodes {
		edges = append(edges, fmt.Sprintf(`{"cursor":"c%d","node":%s}`, i, n))
	}
	return []byte(`{"coreSnapshots":{"edges":[` + strings.Join(edges, ",") + `],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false}}}`)
}

func snapNode(h int, hash string) string {
	return fmt.Sprintf(`{"blockHeight":"%d","blockHash":%q,"coreVersion":"v1"}`, h, hash)
}

// at is a time n seconds after a fixed instant.
func at(n float64) time.Time {
	return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(n * float64(time.Second)))
}

// ans makes an answer of the listing to query q, asked at sent and back
// 10 ms later.
func ans(l Listing, q string, body []byte, sent float64) *Answer {
	v, err := url.ParseQuery(q)
	if err != nil {
		panic(err)
	}
	return &Answer{Listing: l, URL: "http://x" + l.Path() + "?" + q, Query: v, Status: 200, Header: http.Header{},
		Body: body, Sent: at(sent), Received: at(sent + 0.01)}
}

func TestObserverRemembersRows(t *testing.T) {
	o := NewObserver(ObserverOptions{})
	steps := []struct {
		q     string
		body  []byte
		found int // rewrites so far
	}{
		{"a=1", snapPage(snapNode(2, "aa"), snapNode(1, "bb")), 0},
		// The same records written otherwise: member order, spaces.
		{"a=2", snapPage(`{ "coreVersion":"v1", "blockHash":"aa","blockHeight":"2" }`), 0},
		// Row 1 rewritten.
		{"a=3", snapPage(snapNode(1, "cc")), 1},
		// Rewritten again: each row is reported once.
		{"a=4", snapPage(snapNode(1, "dd")), 1},
		// A new row, then a row kept.
		{"a=5", snapPage(snapNode(3, "ee"), snapNode(2, "aa")), 1},
	}
	for i, s := range steps {
		if _, err := o.Observe(ans(Snapshots, s.q, s.body, float64(i))); err != nil {
			t.Fatal(err)
		}
		if got, _ := o.Rewrites(Snapshots); len(got) != s.found {
			t.Fatalf("after %s: %d rewrites, want %d: %+v", s.q, len(got), s.found, got)
		}
	}
	got, more := o.Rewrites(Snapshots)
	want := Rewrite{Listing: Snapshots, Key: Key{Num: 1}, Reference: "http://x/api/v2/snapshots?a=1", Blamed: "http://x/api/v2/snapshots?a=3",
		Detail: `blockHash: "bb" before, "cc" now`}
	if got[0] != want || more != 0 {
		t.Errorf("rewrite %+v (%d more), want %+v", got[0], more, want)
	}
	if rows, answers := o.Compared(Snapshots); rows != 4 || answers != 5 {
		t.Errorf("compared %d rows in %d answers, want 4 in 5", rows, answers)
	}
	if got, _ := o.Rewrites(Games); len(got) != 0 {
		t.Errorf("another listing has rewrites: %v", got)
	}
}

// TestObserverBlamesTheFilteredAnswer checks which of two answers a
// rewrite blames: the later one, unless the earlier was filtered and the
// later not; an unfiltered answer then becomes the row's reference.
func TestObserverBlamesTheFilteredAnswer(t *testing.T) {
	for _, tc := range []struct {
		name        string
		queries     []string // each answer's query; answers alternate contents a, b, a, ...
		blamed, ref string
		rewrites    int
	}{
		{"both unfiltered", []string{"pagination.first=1", "pagination.first=2"}, "pagination.first=2", "pagination.first=1", 1},
		{"both filtered", []string{"nodeId=x", "nodeId=y"}, "nodeId=y", "nodeId=x", 1},
		{"filtered first", []string{"nodeId=x", "pagination.last=3"}, "nodeId=x", "pagination.last=3", 1},
		{"unfiltered first", []string{"pagination.after=c", "nodeId=x"}, "nodeId=x", "pagination.after=c", 1},
		{"filtered first, then agreeing", []string{"nodeId=x", "nodeId=y", "pagination.newestFirst=false"}, "nodeId=y", "nodeId=x", 1},
	} {
		o := NewObserver(ObserverOptions{})
		for i, q := range tc.queries {
			hash := []string{"a", "b"}[i%2]
			o.Observe(ans(Rotations, q, []byte(`{"keyRotations":{"edges":[{"node":{"blockHeight":"1","nodeId":"n","hash":"`+hash+`"}}]}}`), float64(i)))
		}
		got, _ := o.Rewrites(Rotations)
		if len(got) != tc.rewrites || got[0].Blamed != "http://x"+Rotations.Path()+"?"+tc.blamed || got[0].Reference != "http://x"+Rotations.Path()+"?"+tc.ref {
			t.Errorf("%s: %+v, want %s blamed against %s", tc.name, got, tc.blamed, tc.ref)
		}
	}
	// A filtered answer's content then an unfiltered one's: the detail goes
	// from the unfiltered content to the filtered.
	o := NewObserver(ObserverOptions{})
	o.Observe(ans(Transactions, "parties=p", []byte(`{"transactions":[{"block":"1","index":0,"code":1}]}`), 0))
	o.Observe(ans(Transactions, "first=1", []byte(`{"transactions":[{"block":"1","index":0,"code":0}]}`), 1))
	o.Observe(ans(Transactions, "parties=q", []byte(`{"transactions":[{"block":"1","index":0,"code":0}]}`), 2))
	got, _ := o.Rewrites(Transactions)
	if len(got) != 1 || got[0].Detail != "code: 0 before, 1 now" || !strings.HasSuffix(got[0].Blamed, "parties=p") {
		t.Errorf("%+v, want the filtered answer blamed, code 0 before (the reference) and 1 now", got)
	}
}

func TestObserverMemoryIsBounded(t *testing.T) {
	first := snapNode(1, "aa")
	o := NewObserver(ObserverOptions{KeepBytes: len(first)}) // room for one record
	for i, body := range [][]byte{
		snapPage(first, snapNode(2, "bb")),
		snapPage(snapNode(1, "xx"), snapNode(2, "yy")),
	} {
		o.Observe(ans(Snapshots, fmt.Sprint("n=", i), body, float64(i)))
	}
	got, _ := o.Rewrites(Snapshots)
	if len(got) != 2 || got[0].Detail != `blockHash: "aa" before, "xx" now` || !strings.Contains(got[1].Detail, "not kept") {
		t.Errorf("rewrites %+v: want the first with its change, the second without (not kept)", got)
	}
	if o.kept != len(first) {
		t.Errorf("kept %d bytes, want %d", o.kept, len(first))
	}
	// Past maxFindings rows, they are counted.
	o = NewObserver(ObserverOptions{})
	var a, b []string
	for h := range maxFindings + 3 {
		a, b = append(a, snapNode(h+1, "a")), append(b, snapNode(h+1, "b"))
	}
	o.Observe(ans(Snapshots, "n=1", snapPage(a...), 0))
	o.Observe(ans(Snapshots, "n=2", snapPage(b...), 1))
	if got, more := o.Rewrites(Snapshots); len(got) != maxFindings || more != 3 {
		t.Errorf("%d rewrites kept, %d more; want %d and 3", len(got), more, maxFindings)
	}
}

func TestObserverReadsOnlyWholeAnswers(t *testing.T) {
	o := NewObserver(ObserverOptions{})
	a := ans(Snapshots, "", []byte(`{"code":3}`), 0)
	a.Status = 400
	if p, err := o.Observe(a); p != nil || err != nil {
		t.Errorf("a 400: %v %v", p, err)
	}
	a = ans(Snapshots, "", []byte(`{"coreSnapshots":`), 0)
	if p, err := o.Observe(a); p != nil || err == nil {
		t.Errorf("a cut 200: %v %v", p, err)
	}
	if _, n := o.Compared(Snapshots); n != 0 {
		t.Errorf("%d answers read, want none", n)
	}
}

func TestDescribeChange(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{`{"a":"1","b":{"c":[1,2]}}`, `{"b":{"c":[1,3]},"a":"1"}`, `b.c[1]: 2 before, 3 now`},
		{`{"a":"1"}`, `{"a":"1","b":true}`, `b: absent before, true now`},
		{`{"a":[1,2]}`, `{"a":[1]}`, `a[1]: 2 before, absent now`},
		{`{"a":{"x":1}}`, `{"a":[1]}`, `a: {"x":1} before, [1] now`},
		{`{"a":"1"}`, `{"a":1}`, `a: "1" before, 1 now`},
		{`{"a":"` + strings.Repeat("x", 100) + `"}`, `{"a":"y"}`, `a: "` + strings.Repeat("x", 79) + `… before, "y" now`},
		{`{"a":"` + strings.Repeat("x", 78) + `"}`, `{"a":"y"}`, `a: "` + strings.Repeat("x", 78) + `" before, "y" now`},
		{`[1]`, `{"a":1}`, `the record: [1] before, {"a":1} now`},
		{`1`, `[1]`, `the record: 1 before, [1] now`},
		{`{"a":1}`, `{"a":1}`, `the record's content differs`},
		{`{"a":`, `{"a":1}`, `the record's content differs`},
	} {
		if got := describeChange([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("%s then %s: %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestObserverTracksHeads(t *testing.T) {
	tx := func(blocks ...int) []byte {
		var rows []Row
		for _, b := range blocks {
			rows = append(rows, Row{Key: Key{Num: uint64(b)}, Cursor: fmt.Sprintf("%d.0", b)})
		}
		return encode(Transactions, rows, false, false)
	}
	type step struct {
		l      Listing
		q      string
		body   []byte
		height string
		sent   float64
	}
	for _, tc := range []struct {
		name          string
		steps         []step
		older, height int // findings by newest row and by X-Block-Height
		checked       int // answers that must reach the head by newest row
	}{
		{"growing", []step{{Transactions, "first=2", tx(10, 9), "", 0}, {Transactions, "first=2", tx(12, 11), "", 2}}, 0, 0, 2},
		{"back after the grace", []step{{Transactions, "first=2", tx(10, 9), "", 0}, {Transactions, "first=2", tx(8, 7), "", 2}}, 1, 0, 2},
		{"back within the grace", []step{{Transactions, "first=2", tx(10, 9), "", 0}, {Transactions, "first=2", tx(8, 7), "", 0.4}}, 0, 0, 2},
		{"back just after the grace", []step{{Transactions, "first=2", tx(10, 9), "", 0}, {Transactions, "first=2", tx(8, 7), "", 0.52}}, 1, 0, 2},
		{"asked before the other came back", []step{{Transactions, "first=2", tx(10, 9), "", 5}, {Transactions, "first=2", tx(8, 7), "", 4.995}}, 0, 0, 2},
		{"a filtered answer raises the head", []step{{Transactions, "parties=a", tx(10), "", 0}, {Transactions, "", tx(8, 7), "", 2}}, 1, 0, 1},
		{"a filtered answer is not held to it", []step{{Transactions, "first=1", tx(10), "", 0}, {Transactions, "parties=a", tx(8), "", 2}}, 0, 0, 1},
		{"an oldest page is not held to it", []step{{Transactions, "first=1", tx(10), "", 0}, {Transactions, "last=1", tx(1), "", 2}}, 0, 0, 1},
		{"paged, newest first", []step{{Snapshots, "pagination.first=1", snapPage(snapNode(10, "a")), "", 0}, {Snapshots, "pagination.first=1&pagination.newestFirst=true", snapPage(snapNode(9, "b")), "", 2}}, 1, 0, 2},
		{"paged, oldest first", []step{{Snapshots, "pagination.first=1", snapPage(snapNode(10, "a")), "", 0}, {Snapshots, "pagination.first=1&pagination.newestFirst=false", snapPage(snapNode(1, "b")), "", 2}}, 0, 0, 1},
		{"paged, a cursor", []step{{Snapshots, "", snapPage(snapNode(10, "a")), "", 0}, {Snapshots, "pagination.after=x", snapPage(snapNode(9, "b")), "", 2}}, 0, 0, 1},
		{"paged, a count twice", []step{{Snapshots, "", snapPage(snapNode(10, "a")), "", 0}, {Snapshots, "pagination.first=1&pagination.first=2", snapPage(snapNode(9, "b")), "", 2}}, 0, 0, 1},
		{"paged, an empty page before a cursor seen", []step{{Snapshots, "pagination.first=2", snapPage(snapNode(12, "b"), snapNode(10, "a")), "", 0}, {Snapshots, "pagination.last=2&pagination.before=c1", snapPage(), "", 2}}, 1, 0, 2},
		{"an empty page", []step{{Snapshots, "", snapPage(snapNode(10, "a")), "", 0}, {Snapshots, "", snapPage(), "", 2}}, 0, 0, 1},
		{"heights", []step{{Parameters, "", []byte(`{"networkParameters":{"edges":[]}}`), "100", 0}, {Parameters, "", []byte(`{"networkParameters":{"edges":[]}}`), "99", 1.5}, {Parameters, "", []byte(`{"networkParameters":{"edges":[]}}`), "101", 3}}, 0, 1, 0},
		{"a height that does not parse", []step{{Snapshots, "x=1", snapPage(), "100", 0}, {Snapshots, "x=1", snapPage(), "ninety", 2}}, 0, 0, 0},
		{"the head stays", []step{{Snapshots, "x=1", snapPage(snapNode(10, "a")), "100", 0}, {Snapshots, "", snapPage(snapNode(10, "a")), "100", 2}}, 0, 0, 1},
	} {
		o := NewObserver(ObserverOptions{})
		for _, s := range tc.steps {
			a := ans(s.l, s.q, s.body, s.sent)
			if s.height != "" {
				a.Header.Set("X-Block-Height", s.height)
			}
			if _, err := o.Observe(a); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		l := tc.steps[0].l
		older, _, checked := o.OlderHeads(l, false)
		heights, _, _ := o.OlderHeads(l, true)
		if len(older) != tc.older || len(heights) != tc.height || checked != tc.checked {
			t.Errorf("%s: %d older by newest row (%d held), %d by height; want %d (%d), %d: %+v %+v", tc.name, len(older), checked, len(heights), tc.older, tc.checked, tc.height, older, heights)
		}
		for _, f := range append(older, heights...) {
			if !strings.HasPrefix(f.Earlier, "http://x/") || !strings.HasPrefix(f.Later, "http://x/") || f.Was == f.Now || f.Asked.Sub(f.Back) < HeadGrace {
				t.Errorf("%s: finding %+v does not name both answers and heads", tc.name, f)
			}
		}
	}
}

func TestTrackKeepsRecordsOnly(t *testing.T) {
	var tr track
	for _, p := range []struct {
		at  float64
		num uint64
	}{{1, 5}, {3, 7}, {2, 6}, {2.5, 9}, {4, 8}, {0.5, 1}} {
		tr.add(at(p.at), p.num, int(p.num))
	}
	var got []string
	for _, p := range tr.points {
		got = append(got, fmt.Sprint(p.num))
	}
	// 7 at 3 and 8 at 4 are no records once 9 came back at 2.5.
	if strings.Join(got, " ") != "1 5 6 9" {
		t.Errorf("points %v, want 1 5 6 9", got)
	}
	if p, ok := tr.before(at(2.7)); !ok || p.num != 9 {
		t.Errorf("before 2.7: %v %v", p, ok)
	}
	if _, ok := tr.before(at(0.1)); ok {
		t.Errorf("a head before any came back")
	}
	if _, older := tr.judge(time.Time{}, 0); older || tr.checked != 1 {
		t.Errorf("an answer never sent is found older, or not counted")
	}
}

// rowRecorder is an AnswerCheck that remembers the rows it was given.
type rowRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *rowRecorder) CheckObserved(a *Answer, p *Page) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, row := range p.Rows {
		r.seen = append(r.seen, fmt.Sprintf("%s %s %d %s", a.Query.Encode(), row.Key, i, p.Node(i)))
	}
}

func TestObserverHandsEveryRowToTheRelations(t *testing.T) {
	rec := &rowRecorder{}
	o := NewObserver(ObserverOptions{Relations: rec})
	o.Observe(ans(Snapshots, "a=1", snapPage(snapNode(2, "a"), snapNode(1, "b")), 0))
	o.Observe(ans(Snapshots, "a=2", snapPage(), 1))
	want := []string{
		`a=1 2 0 ` + snapNode(2, "a"),
		`a=1 1 1 ` + snapNode(1, "b"),
	}
	if strings.Join(rec.seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("the relations saw\n%s\nwant\n%s", strings.Join(rec.seen, "\n"), strings.Join(want, "\n"))
	}
}

func TestObserverIsSafeForConcurrentUse(t *testing.T) {
	o := NewObserver(ObserverOptions{Relations: &rowRecorder{}})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				a := ans(Snapshots, fmt.Sprintf("g=%d&i=%d", g, i), snapPage(snapNode(i+1, "a")), float64(i))
				a.Header.Set("X-Block-Height", fmt.Sprint(i))
				o.Observe(a)
			}
		})
	}
	wg.Wait()
	if rows, answers := o.Compared(Snapshots); answers != 200 || rows != 150 {
		t.Errorf("%d answers, %d rows compared; want 200 and 150", answers, rows)
	}
}

func TestReachesNewest(t *testing.T) {
	rows := func(nums ...int) *Page {
		p := &Page{Status: 200}
		for _, n := range nums {
			p.Rows = append(p.Rows, Row{Key: Key{Num: uint64(n)}})
		}
		return p
	}
	cursors := map[string]uint64{"c7": 7}
	for _, tc := range []struct {
		l     Listing
		q     string
		p     *Page
		shown uint64
		ok    bool
	}{
		{Snapshots, "", rows(9, 8), 9, true},
		{Snapshots, "pagination.first=2", rows(9, 8), 9, true},
		{Snapshots, "pagination.first=2&pagination.newestFirst=true", rows(9, 8), 9, true},
		{Snapshots, "pagination.first=x", rows(9, 8), 0, false},
		{Snapshots, "pagination.first=2&pagination.first=3", rows(9, 8), 0, false},
		{Snapshots, "pagination.first=2&pagination.newestFirst=yes", rows(9, 8), 0, false},
		{Snapshots, "pagination.first=2", rows(), 0, false},
		{Snapshots, "pagination.first=2&pagination.after=c7", rows(6, 5), 0, false},
		{Snapshots, "pagination.last=3&pagination.before=c7", rows(9, 8), 9, true},
		{Snapshots, "pagination.last=2&pagination.before=c7", rows(9, 8), 0, false},
		{Snapshots, "pagination.last=2&pagination.before=c7", rows(), 7, true},
		{Snapshots, "pagination.last=2&pagination.before=c9", rows(), 0, false},
		{Snapshots, "pagination.last=2", rows(2, 1), 0, false},
		{Snapshots, "pagination.first=3&pagination.newestFirst=false", rows(1, 2), 2, true},
		{Snapshots, "pagination.first=2&pagination.newestFirst=false", rows(1, 2), 0, false},
		{Snapshots, "pagination.first=3&pagination.newestFirst=false&pagination.after=c7", rows(8, 9), 9, true},
		{Snapshots, "pagination.first=3&pagination.newestFirst=false&pagination.after=c7", rows(), 7, true},
		{Snapshots, "pagination.first=2&pagination.newestFirst=false&pagination.after=c7", rows(8, 9), 0, false},
		{Snapshots, "pagination.first=3&nodeId=x", rows(9), 0, false},
		{Transactions, "", rows(9, 8), 9, true},
		{Transactions, "first=2", rows(9, 8), 9, true},
		{Transactions, "first=3&after=7.1", rows(9, 8), 9, true},
		{Transactions, "first=3&after=7.1", rows(), 7, true},
		{Transactions, "first=3&after=bad", rows(), 0, false},
		{Transactions, "first=2&after=7.1", rows(9, 8), 0, false},
		{Transactions, "last=2", rows(2, 1), 0, false},
		{Transactions, "first=2&parties=p", rows(9), 0, false},
	} {
		v, _ := url.ParseQuery(tc.q)
		shown, ok := reachesNewest(&Answer{Listing: tc.l, Query: v}, tc.p, cursors)
		if ok != tc.ok || ok && shown != tc.shown {
			t.Errorf("%s %s %v: %d %v, want %d %v", tc.l, tc.q, heights(tc.p.Rows), shown, ok, tc.shown, tc.ok)
		}
	}
}

func TestObserverBoundsItsFindings(t *testing.T) {
	o := NewObserver(ObserverOptions{})
	tx := func(b int) []byte {
		return encode(Transactions, []Row{{Key: Key{Num: uint64(b)}, Cursor: fmt.Sprintf("%d.0", b)}}, false, false)
	}
	o.Observe(ans(Transactions, "first=1", tx(100), 0))
	for i := range maxFindings + 3 {
		o.Observe(ans(Transactions, fmt.Sprintf("first=%d", i+2), tx(50), float64(i+1)))
	}
	found, more, checked := o.OlderHeads(Transactions, false)
	if len(found) != maxFindings || more != 3 || checked != maxFindings+4 {
		t.Errorf("%d older heads kept, %d more, %d judged; want %d, 3, %d", len(found), more, checked, maxFindings, maxFindings+4)
	}
	// Each finding names its own answer.
	if found[0].Later == found[1].Later || o.urls[0] != "http://x/transactions?first=1" || len(o.urls) != maxFindings+4 {
		t.Errorf("findings %q and %q; %d answers named", found[0].Later, found[1].Later, len(o.urls))
	}
}

// TestTrackKeepsTheFirstOfEqualHeads: a head equal to the record before it
// is no record, and an equal head come back earlier replaces the later
// one: the track names the first answer that showed each head.
func TestTrackKeepsTheFirstOfEqualHeads(t *testing.T) {
	var tr track
	tr.add(at(2), 5, 2)
	tr.add(at(3), 5, 3) // equal, later: no record
	if len(tr.points) != 1 || tr.points[0].url != 2 {
		t.Errorf("points %+v, want the answer of head 5 at 2 alone", tr.points)
	}
	tr.add(at(1), 5, 1) // equal, earlier: the record now
	if len(tr.points) != 1 || tr.points[0].url != 1 || !tr.points[0].at.Equal(at(1)) {
		t.Errorf("points %+v, want the one answer of head 5 that came back first", tr.points)
	}
}

// TestObserverIgnoresWhatIsNoListing checks that an answer of no listing
// the observer knows (a listing number past the last) is not read.
func TestObserverIgnoresWhatIsNoListing(t *testing.T) {
	o := NewObserver(ObserverOptions{})
	for _, l := range []Listing{Listing(len(Listings)), Listing(len(Listings) + 1)} {
		a := ans(Snapshots, "", snapPage(snapNode(10, "a")), 0)
		a.Listing = l
		if p, err := o.Observe(a); p != nil || err != nil {
			t.Errorf("listing %d: page %v, error %v; want neither", l, p, err)
		}
	}
}
