package paging

import (
	"fmt"
	"github.com/chaindata/harness/conformance/client"
	"strings"
	"testing"
)

// rowsOf makes rows keyed by block height (snapshot-like) in the given order.
func rowsOf(heights ...uint64) []Row {
	out := make([]Row, len(heights))
	for i, h := range heights {
		out[i] = Row{Key: RowKey{Num: h}, Ident: fmt.Sprintf("h%d", h), Cursor: fmt.Sprintf("c%d", h)}
	}
	return out
}

func TestDiffPrefix(t *testing.T) {
	tests := []struct {
		name                      string
		got, want                 []Row
		gotComplete, wantComplete bool
		wantDiff                  string // "" for agreement, else a part of the message
	}{
		{"equal", rowsOf(3, 2, 1), rowsOf(3, 2, 1), true, true, ""},
		{"cut short by the bound", rowsOf(3, 2), rowsOf(3, 2, 1), false, true, ""},
		{"complete but shorter", rowsOf(3, 2), rowsOf(3, 2, 1), true, true, "ends after 2 rows"},
		{"extra row", rowsOf(3, 2, 1, 0), rowsOf(3, 2, 1), true, true, "first extra row is h0"},
		{"extra row past a cut-short want", rowsOf(3, 2, 1, 0), rowsOf(3, 2, 1), true, false, ""},
		{"different row", rowsOf(3, 1), rowsOf(3, 2), true, true, "row 1 differs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := DiffPrefix("got", tc.got, tc.gotComplete, "want", tc.want, tc.wantComplete)
			if tc.wantDiff == "" && d != "" {
				t.Errorf("want agreement, got %q", d)
			}
			if tc.wantDiff != "" && !strings.Contains(d, tc.wantDiff) {
				t.Errorf("want a difference saying %q, got %q", tc.wantDiff, d)
			}
		})
	}
}

// tied makes rows of the given primary key and identity, in order.
func tied(spec ...string) []Row {
	out := make([]Row, len(spec))
	for i, s := range spec {
		var h uint64
		var id string
		fmt.Sscanf(s, "%d%s", &h, &id)
		out[i] = Row{Key: RowKey{Num: h, Str: id}, Ident: s, Cursor: "c" + s}
	}
	return out
}

func TestDiffTiesOpen(t *testing.T) {
	tests := []struct {
		name                      string
		got, want                 []Row
		gotComplete, wantComplete bool
		wantDiff                  string
	}{
		{"equal", tied("3a", "2a", "2b", "1a"), tied("3a", "2a", "2b", "1a"), true, true, ""},
		{"ties in another order", tied("3a", "2b", "2a", "1a"), tied("3a", "2a", "2b", "1a"), true, true, ""},
		{"a tie lost", tied("3a", "2b", "1a"), tied("3a", "2a", "2b", "1a"), true, true, "row 1 differs"},
		{"a row of another key in a run", tied("3a", "2a", "1a", "2b"), tied("3a", "2a", "2b", "1a"), true, true, "row 2 differs"},
		{"keys out of order", tied("2a", "3a"), tied("3a", "2a"), true, true, "any order"},
		{"cut short inside a run", tied("3a", "2b"), tied("3a", "2a", "2b", "1a"), false, true, ""},
		{"cut short: the rows before the run still judged", tied("4a", "2b"), tied("3a", "2a", "2b", "1a"), false, true, "row 0 differs"},
		{"complete but shorter", tied("3a", "2b", "2a"), tied("3a", "2a", "2b", "1a"), true, true, "ends after 3 rows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := DiffTiesOpen("got", tc.got, tc.gotComplete, "want", tc.want, tc.wantComplete)
			if tc.wantDiff == "" && d != "" {
				t.Errorf("want agreement, got %q", d)
			}
			if tc.wantDiff != "" && !strings.Contains(d, tc.wantDiff) {
				t.Errorf("want a difference saying %q, got %q", tc.wantDiff, d)
			}
		})
	}
	// A row whose key cannot be read stays in its place.
	bad := tied("3a", "2a", "2b")
	bad[1].KeyErr = fmt.Errorf("no key")
	swapped := tied("3a", "2b", "2a")
	swapped[2].KeyErr = fmt.Errorf("no key")
	if d := DiffTiesOpen("got", bad, true, "want", swapped, true); d == "" {
		t.Error("a row whose key cannot be read was moved within a run")
	}
}

func TestSubsetDiffLeavesTiesOpen(t *testing.T) {
	all := func(Row) bool { return true }
	unfiltered := &Walk{Rows: tied("5a", "4a", "4b", "4c", "3a", "2a", "2b"), Complete: false} // cut short inside the run of 2
	tests := []struct {
		name     string
		filtered *Walk
		wantDiff bool
	}{
		{"the same rows, ties reversed", &Walk{Rows: tied("5a", "4c", "4b", "4a", "3a", "2b", "2a", "1a"), Complete: true}, false},
		{"only part of the last run reached", &Walk{Rows: tied("5a", "4b", "4a", "4c", "3a", "2b"), Complete: false}, false},
		{"a tie lost", &Walk{Rows: tied("5a", "4c", "4a", "3a", "2a"), Complete: true}, true},
		{"a row out of its run", &Walk{Rows: tied("5a", "4a", "3a", "4b", "4c", "2a"), Complete: true}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := SubsetDiff(GamesListing.Compare, Cutoff{}, tc.filtered, unfiltered, all)
			if (d != "") != tc.wantDiff {
				t.Errorf("difference %q, want one: %v", d, tc.wantDiff)
			}
		})
	}
}

func TestSubsetDiffStaysWithinTheWalksReach(t *testing.T) {
	even := func(r Row) bool { return r.Key.Num%2 == 0 }
	unfiltered := &Walk{Rows: rowsOf(9, 8, 7, 6, 5, 4), Complete: false} // cut short at 4
	tests := []struct {
		name     string
		filtered *Walk
		wantDiff bool
	}{
		{"matching subset, beyond the unfiltered reach too", &Walk{Rows: rowsOf(8, 6, 4, 2, 0), Complete: true}, false},
		{"a matching row missing", &Walk{Rows: rowsOf(8, 4, 2), Complete: true}, true},
		{"a row that does not belong", &Walk{Rows: rowsOf(8, 7, 6, 4), Complete: true}, true},
		{"filtered walk cut short", &Walk{Rows: rowsOf(8, 6), Complete: false}, false},
		// The shorter reach bounds both: past 8 the filtered walk says
		// nothing of 6.
		{"filtered walk cut short sooner than the unfiltered", &Walk{Rows: rowsOf(8), Complete: false}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := SubsetDiff(SnapshotsListing.Compare, Cutoff{}, tc.filtered, unfiltered, even)
			if (d != "") != tc.wantDiff {
				t.Errorf("difference %q, want one: %v", d, tc.wantDiff)
			}
		})
	}
}

func TestPageFlagProblems(t *testing.T) {
	pageOf := func(hasPrev, hasNext bool, heights ...uint64) *Page {
		return &Page{Ex: &client.Exchange{URL: "u"}, Rows: rowsOf(heights...), Info: pageInfo{HasPrev: hasPrev, HasNext: hasNext}}
	}
	refOf := func(complete bool, heights ...uint64) listingRef {
		ref := listingRef{Rows: rowsOf(heights...), complete: complete, index: map[string]int{}}
		for i, r := range ref.Rows {
			ref.index[r.Ident] = i
		}
		return ref
	}
	full := refOf(true, 5, 4, 3, 2, 1)
	tests := []struct {
		name     string
		w        *Walk
		ref      listingRef
		backward bool
		pos      string
		want     string // positions with problems, comma-separated
		judged   int
	}{
		{"a correct walk", &Walk{What: "w", Pages: []*Page{pageOf(false, true, 5, 4), pageOf(true, true, 3, 2), pageOf(true, false, 1)}}, full, false, "", "", 3},
		{"wrong middle and last", &Walk{What: "w", Pages: []*Page{pageOf(false, true, 5, 4), pageOf(false, true, 3, 2), pageOf(true, true, 1), pageOf(true, false)}}, full, false, "", "middle,last", 3},
		{"only the position asked for", &Walk{What: "w", Pages: []*Page{pageOf(false, true, 5, 4), pageOf(false, true, 3, 2), pageOf(true, true, 1)}}, full, false, "middle", "middle", 1},
		{"a correct backward walk", &Walk{What: "w", Pages: []*Page{pageOf(true, false, 2, 1), pageOf(true, true, 4, 3), pageOf(false, true, 5)}}, full, true, "", "", 3},
		// hasPreviousPage false on a backward page ends the walk after one
		// page; the reference still knows rows precede it.
		{"a backward walk ended early by a wrong flag", &Walk{What: "w", Complete: true, Pages: []*Page{pageOf(false, false, 2, 1)}}, full, true, "", "last", 1},
		{"a walk cut short: rows may follow", &Walk{What: "w", Pages: []*Page{pageOf(false, true, 5, 4), pageOf(true, true, 3, 2)}}, refOf(false, 5, 4, 3, 2), false, "", "", 2},
		{"rows the reference lacks are not judged", &Walk{What: "w", Pages: []*Page{pageOf(false, true, 9, 8)}}, full, false, "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			n := PageFlagProblems(tc.w, tc.ref, tc.backward, tc.pos, func(pos string, _ *client.Exchange, msg string) {
				if len(got) == 0 || got[len(got)-1] != pos {
					got = append(got, pos)
				}
			})
			if strings.Join(got, ",") != tc.want {
				t.Errorf("problems at %v, want %q", got, tc.want)
			}
			if n != tc.judged {
				t.Errorf("judged %d pages, want %d", n, tc.judged)
			}
		})
	}
}

func TestSameRows(t *testing.T) {
	tests := []struct {
		name                      string
		got, want                 []Row
		gotComplete, wantComplete bool
		wantDiff                  bool
	}{
		{"same order", rowsOf(1, 2, 3), rowsOf(1, 2, 3), true, true, false},
		{"ties in another order", rowsOf(1, 2, 2, 3), rowsOf(1, 2, 2, 3), true, true, false},
		{"a row lost", rowsOf(1, 2, 3), rowsOf(1, 2, 3, 4), true, true, true},
		{"a row added", rowsOf(1, 2, 3, 4), rowsOf(1, 2, 3), true, true, true},
		{"both cut short, a row differs", rowsOf(1, 5, 3), rowsOf(1, 2, 3), false, false, true},
		{"both cut short inside a tie group", rowsOf(1, 2, 3), rowsOf(1, 2, 4), false, false, false},
		{"both cut short, same rows", rowsOf(1, 2, 3), rowsOf(1, 2, 3, 4), false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := SameRows("got", tc.got, tc.gotComplete, "want", tc.want, tc.wantComplete)
			if (d != "") != tc.wantDiff {
				t.Errorf("difference %q, want one: %v", d, tc.wantDiff)
			}
		})
	}
	// Rows that share a key, listed in another order, are the same rows.
	a, b := rowsOf(1, 2, 3), rowsOf(1, 2, 3)
	a[1].Ident, a[2].Ident = "x", "y"
	b[1].Ident, b[2].Ident = "y", "x"
	b[1].Key, b[2].Key = a[2].Key, a[1].Key
	if d := SameRows("got", a, true, "want", b, true); d != "" {
		t.Errorf("the same rows in another order differ: %q", d)
	}
}

func TestRepeats(t *testing.T) {
	if msg, _ := Repeats(rowsOf(3, 2, 1)); msg != "" {
		t.Errorf("no repeats, got %q", msg)
	}
	msg, i := Repeats(rowsOf(3, 2, 2, 1))
	if i != 2 || !strings.Contains(msg, "h2 is row 1 and again row 2") {
		t.Errorf("got %q at %d", msg, i)
	}
}

func TestWithHint(t *testing.T) {
	tests := []struct {
		name   string
		ex     *client.Exchange
		wantIn string // "" for no hint
	}{
		{"a count refused", &client.Exchange{Status: 400, URL: "http://h/api/v2/games?pagination.first=50"}, "; the deployment refused pagination.first=50: if its largest page is smaller, lower --page-size"},
		{"a transactions count refused", &client.Exchange{Status: 400, URL: "http://h/transactions?last=20&before=1.2"}, "lower --page-size"},
		{"an answer", &client.Exchange{Status: 200, URL: "http://h/api/v2/games?pagination.first=50"}, ""},
		{"a server error", &client.Exchange{Status: 500, URL: "http://h/api/v2/games?pagination.first=50"}, ""},
		{"no count", &client.Exchange{Status: 400, URL: "http://h/api/v2/games?pagination.after=x"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := WithHint(tc.ex)
			if (tc.wantIn == "") != (got == "") || !strings.Contains(got, tc.wantIn) {
				t.Errorf("withHint = %q, want it to hold %q", got, tc.wantIn)
			}
		})
	}
}

// TestCutoff: a row is an arrival when its primary key is newer than every
// row of the first walk, or it has the newest one but the first walk did not
// hold it, whatever the order of the rows that share that key.
func TestCutoff(t *testing.T) {
	first := tied("5b", "5a", "4a", "3a") // ties of 5 in descending order
	c := NewCutoff(first, GamesListing.Compare)
	later := tied("6a", "5c", "5b", "5a", "4a", "3a")
	got, arrived := c.Settle(later)
	if !arrived || len(got) != 4 || got[0].Ident != "5b" || got[1].Ident != "5a" {
		t.Errorf("Settle = %v, %v; want 5b 5a 4a 3a, arrivals left out", idents(got), arrived)
	}
	if got, arrived := c.Settle(first); arrived || len(got) != len(first) {
		t.Errorf("the first walk itself: %v, %v; want every row, no arrival", idents(got), arrived)
	}
	bad := tied("7a")
	bad[0].KeyErr = fmt.Errorf("no key")
	if got, arrived := c.Settle(bad); arrived || len(got) != 1 {
		t.Errorf("a row whose key cannot be read is kept: %v, %v", idents(got), arrived)
	}
	if got, arrived := NewCutoff(nil, GamesListing.Compare).Settle(later); arrived || len(got) != len(later) {
		t.Errorf("no first walk: %v, %v; want every row", idents(got), arrived)
	}
	// Transactions: the block is the primary key, the index a tie the spec
	// does not order.
	txCmp := func(a, b RowKey) int { return -cmpUint(a.Num, b.Num)*2 - cmpUint(a.Sub, b.Sub) }
	tx := func(block, index uint64) Row {
		return Row{Key: RowKey{Num: block, Sub: index}, Ident: fmt.Sprintf("%d.%d", block, index)}
	}
	tc := NewCutoff([]Row{tx(9, 0), tx(9, 3), tx(8, 1)}, txCmp) // index ascending in the block
	if got, arrived := tc.Settle([]Row{tx(10, 0), tx(9, 0), tx(9, 3), tx(8, 1)}); !arrived || len(got) != 3 || got[0].Ident != "9.0" {
		t.Errorf("transactions: %v, %v; want 9.0 9.3 8.1", idents(got), arrived)
	}
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestNewestMissing counts the rows at the newest end of a walk that are
// newer by primary key than every row of another: what a walk that met an
// older head lacks.
func TestNewestMissing(t *testing.T) {
	c := NewCutoff(tied("9a", "8a"), GamesListing.Compare)
	unreadable := tied("9z")
	unreadable[0].KeyErr = fmt.Errorf("no key")
	tests := []struct {
		name      string
		want, got []Row
		n         int
	}{
		{"same rows", tied("9a", "8a", "7a"), tied("9a", "8a", "7a"), 0},
		{"one block behind", tied("9a", "8a", "7a"), tied("8a", "7a"), 1},
		{"a block of ties behind", tied("9a", "9b", "8a", "7a"), tied("8a", "7a"), 2},
		{"two blocks behind", tied("9a", "8a", "7a"), tied("7a"), 2},
		{"every row newer", tied("9a", "9b"), tied("8a"), 2},
		{"a tie of the newest block lost is not a head", tied("9a", "9b", "8a"), tied("9b", "8a"), 0},
		{"got newer than want", tied("8a", "7a"), tied("9a", "8a", "7a"), 0},
		{"got empty", tied("9a"), nil, 0},
		{"got unreadable", tied("9a"), unreadable, 0},
		{"want's unreadable row stops the count", append(unreadable, tied("8a")...), tied("7a"), 0},
		{"newest of got read past an unreadable row", tied("9a", "8a"), append(unreadable, tied("8a")...), 1},
	}
	for _, tc := range tests {
		if n := c.NewestMissing(tc.want, tc.got); n != tc.n {
			t.Errorf("%s: NewestMissing = %d, want %d", tc.name, n, tc.n)
		}
	}
	if n := (Cutoff{}).NewestMissing(tied("9a"), tied("8a")); n != 0 {
		t.Errorf("a listing without an age (no cutoff): %d, want 0", n)
	}
}

// TestCaughtUp: the rows a walk asked again holds of those missing, in its
// own order, only when it is complete and holds every one.
func TestCaughtUp(t *testing.T) {
	missing := tied("9a", "9b")
	tests := []struct {
		name  string
		again *Walk
		want  []string
	}{
		{"holds them, its order kept", &Walk{Rows: tied("9b", "9a", "8a"), Complete: true}, []string{"9b", "9a"}},
		{"holds one", &Walk{Rows: tied("9a", "8a"), Complete: true}, nil},
		{"holds none", &Walk{Rows: tied("8a"), Complete: true}, nil},
		{"holds one twice", &Walk{Rows: tied("9a", "9a", "8a"), Complete: true}, nil},
		{"not complete", &Walk{Rows: tied("9a", "9b"), Complete: false}, nil},
		{"broke off", &Walk{Rows: tied("9a", "9b"), Complete: true, Err: fmt.Errorf("page 2: HTTP 500")}, nil},
	}
	for _, tc := range tests {
		got := CaughtUp(tc.again, missing)
		if (got == nil) != (tc.want == nil) || strings.Join(idents(got), " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: CaughtUp = %v, want %v", tc.name, idents(got), tc.want)
		}
	}
}
