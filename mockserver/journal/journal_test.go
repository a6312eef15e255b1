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
