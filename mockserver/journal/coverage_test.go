package journal

import (
	"net/url"
	"slices"
	"testing"
)

// TestPageShapes checks the shapes of pages by their query, rows and what
// their answer said of the rows beyond them.
func TestPageShapes(t *testing.T) {
	t.Parallel()
	asked := func(_ string, q url.Values) int {
		if q.Get("pagination.first") != "" || q.Get("pagination.last") != "" {
			return 3
		}
		return 10
	}
	empty := &Record{Request: Request{Listing: "transactions", Cursor: "5.0"}, Whole: true, HasPage: true}
	tests := []struct {
		name    string
		listing string
		query   string
		page    Page
		next    *Record // the walk's next page
		want    []string
	}{
		{"empty", "snapshots", "pagination.first=3", Page{}, nil, []string{PageEmpty}},
		{"first of several", "snapshots", "pagination.first=3", Page{Rows: 3, HasNext: true}, nil, []string{PageFirst}},
		{"first and last, exact fit", "snapshots", "pagination.first=3", Page{Rows: 3}, nil, []string{PageFirst, PageLast, PageExactFit}},
		{"first and last, short", "snapshots", "pagination.first=3", Page{Rows: 2}, nil, []string{PageFirst, PageLast}},
		{"default size", "snapshots", "", Page{Rows: 10}, nil, []string{PageFirst, PageLast, PageExactFit}},
		{"middle", "snapshots", "pagination.first=3&pagination.after=x", Page{Rows: 3, HasNext: true, HasPrev: true}, nil, []string{PageMiddle}},
		{"last", "snapshots", "pagination.first=3&pagination.after=x", Page{Rows: 1, HasPrev: true}, nil, []string{PageLast}},
		{"backward first", "snapshots", "pagination.last=3", Page{Rows: 3, HasPrev: true, HasNext: true}, nil, []string{PageFirst, PageBackward}},
		{"backward last", "snapshots", "pagination.last=3&pagination.before=x", Page{Rows: 2, HasNext: true}, nil, []string{PageLast, PageBackward}},
		{"backward middle", "snapshots", "pagination.before=x", Page{Rows: 10, HasPrev: true}, nil, []string{PageMiddle, PageBackward}},
		{"transactions first", "transactions", "first=3", Page{Rows: 3, Asked: 3}, nil, []string{PageFirst}},
		{"transactions short", "transactions", "first=3", Page{Rows: 2, Asked: 3}, nil, []string{PageFirst, PageLast}},
		{"transactions exact fit", "transactions", "first=3", Page{Rows: 3, Asked: 3}, empty, []string{PageFirst, PageLast, PageExactFit}},
		{"transactions: a next page with rows", "transactions", "first=3", Page{Rows: 3, Asked: 3},
			&Record{Request: Request{Cursor: "5.0"}, Page: Page{Rows: 1, Runs: []RowRun{{1, 1}}}}, []string{PageFirst}},
		{"transactions: an empty page not after it", "transactions", "first=3", Page{Rows: 3, Asked: 3},
			&Record{Request: Request{Cursor: "6.0"}}, []string{PageFirst}},
		{"transactions: an empty next page without a cursor", "transactions", "first=3", Page{Rows: 3, Asked: 3},
			&Record{}, []string{PageFirst}},
		{"transactions middle", "transactions", "last=3&before=9.0", Page{Rows: 3, Asked: 3}, nil, []string{PageMiddle}},
		{"transactions backward", "transactions", "after=1.0", Page{Rows: 2, Asked: 50}, nil, []string{PageLast, PageBackward}},
		{"transactions from the oldest", "transactions", "last=3", Page{Rows: 3, Asked: 3}, nil, []string{PageFirst, PageBackward}},
		{"a window is no direction, nor exact", "transactions", "before=9.0&after=1.0", Page{Rows: 3, Asked: 3}, nil, []string{PageLast}},
		{"a window cut", "transactions", "before=9.0&after=1.0", Page{Rows: 3, Asked: 3, Cut: true}, nil, []string{PageMiddle}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &Record{Request: Request{Listing: tc.listing, Query: tc.query, EndCursor: "5.0", StartCursor: "7.0"}, Page: tc.page, HasPage: true, Whole: true}
			if got := pageShapes(rec, readInfo(rec), tc.next, asked); !slices.Equal(got, tc.want) {
				t.Errorf("%s?%s %+v: %v, want %v", tc.listing, tc.query, tc.page, got, tc.want)
			}
		})
	}
}

// TestServedShapes checks Served gives each request of a walk its shapes,
// the next page of the walk telling a transactions page's exact fit, and
// none to a request not answered whole.
func TestServedShapes(t *testing.T) {
	t.Parallel()
	j := New(16, nil)
	add := func(rec Record) {
		rec.ID = j.Reserve()
		rec.Method, rec.Listing, rec.Path = "GET", "transactions", "/transactions"
		j.Add(&rec)
	}
	add(Record{Request: Request{Query: "first=2", Status: 200, StartCursor: "9.0", EndCursor: "8.0"}, Page: Page{Rows: 2, Asked: 2}, HasPage: true, Whole: true})
	add(Record{Request: Request{Query: "last=2&before=8.0", Cursor: "8.0", Status: 503}})
	add(Record{Request: Request{Query: "last=2&before=8.0", Cursor: "8.0", Status: 200}, Page: Page{Asked: 2}, HasPage: true, Whole: true})
	got := j.Served(func(string, url.Values) int { return 0 })
	want := [][]string{{PageFirst, PageLast, PageExactFit}, nil, {PageEmpty}}
	if len(got) != len(want) {
		t.Fatalf("%d served, want %d", len(got), len(want))
	}
	for i, s := range got {
		if s.ID != uint64(i+1) || !slices.Equal(s.Shapes, want[i]) {
			t.Errorf("request %d: shapes %v, want %v", s.ID, s.Shapes, want[i])
		}
	}
	if !got[0].RowsKnown() || got[1].RowsKnown() {
		t.Errorf("rows known: %v, %v; want true, false", got[0].RowsKnown(), got[1].RowsKnown())
	}
}

// TestClientOf checks what tells clients apart: the header, else the
// User-Agent and host (not the port).
func TestClientOf(t *testing.T) {
	t.Parallel()
	rec := func(client, ua, remote string) *Record {
		return &Record{Request: Request{Client: client, UserAgent: ua, Remote: remote}}
	}
	tests := []struct {
		a, b *Record
		same bool
	}{
		{rec("", "go", "127.0.0.1:1"), rec("", "go", "127.0.0.1:2"), true},
		{rec("", "go", "127.0.0.1:1"), rec("", "node", "127.0.0.1:1"), false},
		{rec("", "go", "127.0.0.1:1"), rec("", "go", "127.0.0.2:1"), false},
		{rec("a", "go", "127.0.0.1:1"), rec("a", "node", "127.0.0.2:1"), true},
		{rec("a", "go", "127.0.0.1:1"), rec("b", "go", "127.0.0.1:1"), false},
		{rec("a", "go", "127.0.0.1:1"), rec("", "go", "127.0.0.1:1"), false},
		{rec("", "go", "pipe"), rec("", "go", "pipe"), true},
		{rec("", "go", "pipe"), rec("", "go", "sock"), false},
	}
	for _, tc := range tests {
		if got := sameClient(tc.a, tc.b); got != tc.same {
			t.Errorf("%+v and %+v: same %v, want %v", tc.a.Request, tc.b.Request, got, tc.same)
		}
	}
}

// TestFollows checks which epoch window a games walk may go on to, and the
// epochs it leaves out.
func TestFollows(t *testing.T) {
	t.Parallel()
	const max = ^uint64(0)
	walk := func(spans ...EpochSpan) *walkState {
		w := &walkState{}
		w.Windows = spans
		w.window = spans[len(spans)-1]
		return w
	}
	tests := []struct {
		name string
		w    *walkState
		next EpochSpan
		ok   bool
		gap  *EpochSpan
	}{
		{"up, next", walk(EpochSpan{From: 1, To: 4}), EpochSpan{From: 5, To: 8}, true, nil},
		{"down, next", walk(EpochSpan{From: 5, To: 8}), EpochSpan{From: 1, To: 4}, true, nil},
		{"the same", walk(EpochSpan{From: 5, To: 8}), EpochSpan{From: 5, To: 8}, false, nil},
		{"apart after one", walk(EpochSpan{From: 1, To: 4}), EpochSpan{From: 9, To: 12}, false, nil},
		{"overlapping", walk(EpochSpan{From: 1, To: 4}), EpochSpan{From: 4, To: 7}, false, nil},
		{"up, a gap", walk(EpochSpan{From: 1, To: 4}, EpochSpan{From: 5, To: 8}), EpochSpan{From: 13, To: 16}, true, &EpochSpan{From: 9, To: 12}},
		{"up, one epoch left out", walk(EpochSpan{From: 1, To: 4}, EpochSpan{From: 5, To: 8}), EpochSpan{From: 10, To: 13}, true, &EpochSpan{From: 9, To: 9}},
		{"up, then back down", walk(EpochSpan{From: 1, To: 4}, EpochSpan{From: 5, To: 8}), EpochSpan{From: 1, To: 4}, false, nil},
		{"up, then next", walk(EpochSpan{From: 1, To: 4}, EpochSpan{From: 5, To: 8}), EpochSpan{From: 9, To: 12}, true, nil},
		{"down, a gap", walk(EpochSpan{From: 13, To: 16}, EpochSpan{From: 9, To: 12}), EpochSpan{From: 1, To: 4}, true, &EpochSpan{From: 5, To: 8}},
		{"down, one epoch left out", walk(EpochSpan{From: 13, To: 16}, EpochSpan{From: 9, To: 12}), EpochSpan{From: 4, To: 7}, true, &EpochSpan{From: 8, To: 8}},
		{"down, then next", walk(EpochSpan{From: 13, To: 16}, EpochSpan{From: 9, To: 12}), EpochSpan{From: 5, To: 8}, true, nil},
		{"down, then up", walk(EpochSpan{From: 13, To: 16}, EpochSpan{From: 9, To: 12}), EpochSpan{From: 17, To: 20}, false, nil},
		{"down to 0, nothing below", walk(EpochSpan{From: 4, To: 7}, EpochSpan{From: 0, To: 3}), EpochSpan{From: 0, To: 0}, false, nil},
		{"up at the top", walk(EpochSpan{From: max - 7, To: max - 4}, EpochSpan{From: max - 3, To: max}), EpochSpan{From: 0, To: 3}, false, nil},
		{"one at the top", walk(EpochSpan{From: max - 3, To: max}), EpochSpan{From: 0, To: 3}, false, nil},
		{"one at 0", walk(EpochSpan{From: 0, To: 3}), EpochSpan{From: max - 3, To: max}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gap, ok := tc.w.follows(tc.next)
			if ok != tc.ok || (gap == nil) != (tc.gap == nil) || (gap != nil && *gap != *tc.gap) {
				t.Errorf("%v after %v: %v, %v; want %v, %v", tc.next, tc.w.Windows, gap, ok, tc.gap, tc.ok)
			}
		})
	}
}

// TestRequestWindow checks the epoch window of a games request: its
// page's, else its query's when it gives both ends in order.
func TestRequestWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		listing, query string
		page           *Page
		want           EpochSpan
		ok             bool
	}{
		{"games", "epochFrom=3&epochTo=9", &Page{Window: true, EpochFrom: 5, EpochTo: 6}, EpochSpan{From: 5, To: 6, Request: 7}, true},
		{"games", "epochFrom=3&epochTo=9", &Page{}, EpochSpan{From: 3, To: 9, Request: 7}, true},
		{"games", "epoch_from=3&epoch_to=3", nil, EpochSpan{From: 3, To: 3, Request: 7}, true},
		{"games", "epochFrom=9&epochTo=3", nil, EpochSpan{}, false},
		{"games", "epochFrom=3", nil, EpochSpan{}, false},
		{"games", "epochTo=3", nil, EpochSpan{}, false},
		{"snapshots", "epochFrom=3&epochTo=9", nil, EpochSpan{}, false},
	}
	for _, tc := range tests {
		rec := &Record{Request: Request{ID: 7, Listing: tc.listing, Query: tc.query}}
		if tc.page != nil {
			rec.Page, rec.HasPage = *tc.page, true
		}
		if got, ok := requestWindow(rec, readInfo(rec)); got != tc.want || ok != tc.ok {
			t.Errorf("%s?%s %+v: %+v %v, want %+v %v", tc.listing, tc.query, tc.page, got, ok, tc.want, tc.ok)
		}
	}
	for _, name := range []string{"epochFrom", "epoch_from", "epochTo", "epoch_to"} {
		if !epochParam("games", name) || epochParam("transactions", name) {
			t.Errorf("%s: an epoch parameter of games only", name)
		}
	}
	if epochParam("games", "partyId") {
		t.Error("partyId: an epoch parameter")
	}
}

// TestAlsoIDs checks how the other requests of a finding are named.
func TestAlsoIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want string
	}{
		{1, ""},
		{2, "; so did request 2"},
		{3, "; so did requests 2 and 3"},
		{4, "; so did requests 2, 3 and 4"},
		{11, "; so did requests 2, 3, 4, 5, 6, 7, 8, 9, 10 and 11"},
		{12, "; so did requests 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 1 more"},
		{30, "; so did requests 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 19 more"},
	}
	for _, tc := range tests {
		if got := alsoIDs(tc.n, func(i int) uint64 { return uint64(i + 1) }); got != tc.want {
			t.Errorf("%d: %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestWalkProblemsOfMany checks a finding of many requests is one sentence.
func TestWalkProblemsOfMany(t *testing.T) {
	t.Parallel()
	w := &Walk{Pages: 3, ReachedEnd: true, RowsChecked: true,
		CursorsNotIssued: []CursorUse{{Request: 2, Cursor: "a", IssuedBy: 1}, {Request: 3, Cursor: "b"}},
		PagesAskedTwice:  []PageRepeat{{Request: 4, First: 1}, {Request: 5, First: 1}, {Request: 6, First: 2}},
		RetryAfter:       []RetryWait{{Request: 1, Next: 2, AskedS: 1, WaitedMS: 250}, {Request: 2, Next: 3, AskedS: 1, Honoured: true}, {Request: 3, Next: 4, AskedS: 2}},
		WindowsLeft:      []EpochSpan{{From: 1, To: 4, Request: 1}},
		EpochsSkipped:    []EpochSpan{{From: 9, To: 12, Request: 7}},
	}
	want := []string{
		`request 2 carried a cursor no earlier page of the walk issued (request 1 of another walk issued it): "a"; so did request 3`,
		"request 4 asked again for the page of request 1; so did requests 5 and 6",
		"left the epochs 1 to 4 (request 1) before their last page",
		"request 7 left out the epochs 9 to 12 between its window and the one before",
		"request 2 came 0.250s after request 1's Retry-After of 1s; so did request 4",
	}
	if got := walkProblems(w); !slices.Equal(got, want) {
		t.Errorf("problems:\n%q\nwant\n%q", got, want)
	}
	clean := &Walk{Pages: 1, ReachedEnd: true, RowsChecked: true, RetryAfter: []RetryWait{{Request: 1, Next: 2, AskedS: 1, Honoured: true}}}
	if got := walkProblems(clean); len(got) != 0 {
		t.Errorf("a clean walk's problems: %q", got)
	}
}

// TestWalksOfNamedClients checks a request carrying X-Harness-Client only
// joins walks of the same client: another client's cursor is a jump, and
// the same query again from another client is no retry.
func TestWalksOfNamedClients(t *testing.T) {
	t.Parallel()
	recs := []*Record{
		{Request: Request{ID: 1, Query: "first=2", Client: "a", Status: 200, StartCursor: "9.0", EndCursor: "8.0"}, Page: Page{Rows: 2, Asked: 2}, HasPage: true, Whole: true},
		{Request: Request{ID: 2, Query: "last=2&before=8.0", Client: "b", Status: 200}, Page: Page{Asked: 2}, HasPage: true, Whole: true},
		{Request: Request{ID: 3, Query: "first=2", Client: "a", Status: 503}},
		{Request: Request{ID: 4, Query: "first=2", Client: "b", Status: 200}},
		{Request: Request{ID: 5, Query: "last=2&before=8.0", Client: "a", Status: 200}},
	}
	for _, r := range recs {
		r.Method, r.Listing, r.Path = "GET", "transactions", "/transactions"
	}
	wk := walkRecords(noRows{}, recs)
	want := []uint64{1, 2, 3, 4, 1}
	for i, r := range recs {
		if got := wk.walkID(r.ID); got != want[i] {
			t.Errorf("request %d (client %s): walk %d, want %d", r.ID, r.Client, got, want[i])
		}
	}
	if w := wk.walkOf[2]; len(w.CursorsNotIssued) != 1 || w.CursorsNotIssued[0].IssuedBy != 1 {
		t.Errorf("client b's jump: %+v", w.CursorsNotIssued)
	}
}

// noRows is a Source that knows no row.
type noRows struct{}

func (noRows) CursorRow(string, string) (int, bool) { return 0, false }
func (noRows) ExpectedRows(string, url.Values, *Page) ([]int32, error) {
	return nil, nil
}
