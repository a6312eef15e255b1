package journal

import (
	"fmt"
	"testing"
)

// TestJournalRing checks the ring drops a request answered after newer ones
// took its place, or after a clear, and lets the oldest pages' rows go
// beyond its bound of row runs.
func TestJournalRing(t *testing.T) {
	t.Parallel()
	page := func(runs int) Page {
		var n Page
		for i := range runs {
			n.Runs = append(n.Runs, RowRun{int32(2 * i), 1})
		}
		return n
	}
	j := New(2, nil)
	a, b, c, d := j.Reserve(), j.Reserve(), j.Reserve(), j.Reserve()
	j.Add(&Record{Request: Request{ID: d}})
	j.Add(&Record{Request: Request{ID: a}}) // its place went to c
	j.Add(&Record{Request: Request{ID: c}})
	if got := ids(j.records()); got != fmt.Sprint([]uint64{c, d}) {
		t.Errorf("records %s, want [%d %d]", got, c, d)
	}
	j.Clear()
	j.Add(&Record{Request: Request{ID: b}}) // arrived before the clear
	if got := j.records(); len(got) != 0 {
		t.Errorf("after a clear: %s", ids(got))
	}

	j = New(4, nil)
	j.maxRuns = 5
	for range 4 {
		j.Add(&Record{Request: Request{ID: j.Reserve()}, Page: page(2), HasPage: true})
	}
	recs := j.records()
	var dropped []bool
	for _, r := range recs {
		dropped = append(dropped, r.rowsDropped)
	}
	if fmt.Sprint(dropped) != "[true true false false]" || j.runs > j.maxRuns {
		t.Errorf("rows dropped %v, %d runs held (bound %d)", dropped, j.runs, j.maxRuns)
	}
}

func ids(recs []*Record) string {
	var out []uint64
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return fmt.Sprint(out)
}

// TestJournalRingGrows checks the ring's chunks are made as records first
// go to them, in any order of their answers; that a reader gets the
// records held, oldest first, while later requests are still being
// answered, and copies of them: changing what it got changes nothing kept;
// and that the ring holds no more than its size.
func TestJournalRingGrows(t *testing.T) {
	t.Parallel()
	const size = 1024 // four chunks whole
	j := New(size, nil)
	made := func() (n int) {
		for _, c := range j.chunks {
			if c != nil {
				n++
			}
		}
		return n
	}
	if len(j.chunks) != 4 || made() != 0 {
		t.Fatalf("a new journal of %d: %d chunks, %d made", size, len(j.chunks), made())
	}
	ids := make([]uint64, 600)
	for i := range ids {
		ids[i] = j.Reserve()
	}
	// Answered out of order: the 300th first, alone for a while.
	j.Add(&Record{Request: Request{ID: ids[299], Path: "/p299"}})
	if made() != 1 || j.chunks[1] == nil {
		t.Errorf("after ID %d: %d chunks made, want the second alone", ids[299], made())
	}
	if recs := j.records(); len(recs) != 1 || recs[0].ID != ids[299] {
		t.Errorf("the records held while 599 are being answered: %d of them, want [%d]", len(recs), ids[299])
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if i != 299 {
			j.Add(&Record{Request: Request{ID: ids[i], Path: fmt.Sprintf("/p%d", i)}})
		}
	}
	recs := j.records()
	if len(recs) != len(ids) || made() != 3 {
		t.Fatalf("%d records in %d chunks, want %d in 3", len(recs), made(), len(ids))
	}
	for i, r := range recs {
		if r.ID != ids[i] || r.Path != fmt.Sprintf("/p%d", i) {
			t.Fatalf("record %d: ID %d %s, want %d /p%d", i, r.ID, r.Path, ids[i], i)
		}
	}
	recs[0].Path = "/changed"
	if got := j.records()[0].Path; got != "/p0" {
		t.Errorf("a reader's change reached the journal: %s", got)
	}
	for range 2 * size {
		j.Add(&Record{Request: Request{ID: j.Reserve()}})
	}
	if made() != 4 || len(j.records()) != size {
		t.Errorf("after %d requests: %d chunks made holding %d, want 4 holding %d", 2*size+len(ids), made(), len(j.records()), size)
	}
	j.Clear()
	if len(j.records()) != 0 || j.runs != 0 {
		t.Errorf("after Clear: %d records, %d runs", len(j.records()), j.runs)
	}
}

// TestJournalCountsRuns checks the runs counted are those of the pages
// held, as records replace others in their places.
func TestJournalCountsRuns(t *testing.T) {
	t.Parallel()
	j := New(2, nil)
	runs := func(n int) Page { return Page{Runs: make([]RowRun, n)} }
	for i, n := range []int{3, 5, 7, 1, -1, 4, 2} {
		if n < 0 {
			j.Clear() // the places keep nothing of what they held
			continue
		}
		j.Add(&Record{Request: Request{ID: j.Reserve()}, Page: runs(n)})
		held := 0
		for _, r := range j.records() {
			held += len(r.Page.Runs)
		}
		if j.runs != held {
			t.Errorf("after %d steps: %d runs counted, %d held", i+1, j.runs, held)
		}
	}
}

// TestJournalBounds checks the edges of the journal's bounds: none kept at
// size 0 or less, the runs allowed by size, the first request after a
// clear kept, the rows of pages trimmed only above the bound and only of
// pages that have rows.
func TestJournalBounds(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, -1} {
		if id := New(size, nil).Reserve(); id != 0 {
			t.Errorf("New(%d) numbers a request %d, want 0: off", size, id)
		}
	}
	if got := New(2048, nil).maxRuns; got != 64*2048 {
		t.Errorf("a journal of 2048 keeps %d runs, want %d", got, 64*2048)
	}

	j := New(4, nil)
	j.Add(&Record{Request: Request{ID: j.Reserve()}})
	j.Clear()
	first := j.Reserve()
	j.Add(&Record{Request: Request{ID: first}})
	if recs := j.records(); len(recs) != 1 || recs[0].ID != first {
		t.Errorf("the first request after a clear: %s kept, want [%d]", ids(recs), first)
	}

	// At the bound exactly nothing is trimmed; a page without rows is
	// never marked as having let its rows go.
	j = New(4, nil)
	j.maxRuns = 3
	j.Add(&Record{Request: Request{ID: j.Reserve()}})
	j.Add(&Record{Request: Request{ID: j.Reserve()}, Page: Page{Runs: make([]RowRun, 3)}})
	for _, r := range j.records() {
		if r.rowsDropped {
			t.Errorf("record %d: rows let go at %d runs of %d", r.ID, j.runs, j.maxRuns)
		}
	}
	j.Add(&Record{Request: Request{ID: j.Reserve()}, Page: Page{Runs: make([]RowRun, 1)}})
	var dropped []bool
	for _, r := range j.records() {
		dropped = append(dropped, r.rowsDropped)
	}
	if fmt.Sprint(dropped) != "[false true false]" || j.runs != 1 {
		t.Errorf("above the bound: rows let go %v, %d runs held; want [false true false], 1", dropped, j.runs)
	}
}
