package paging

import (
	"net/url"

	"github.com/chaindata/harness/conformance/rule"
)

// FilteredWalk is a walk over a listing with a filter: its Query, the
// Walk, or why it was not made (Skip).
type FilteredWalk struct {
	Query url.Values
	Walk  *Walk
	Skip  string
	// Known is a row known to match the filter, wherever it was seen.
	Known *Row
}

// OrderProblems checks that each row of a walk stands in the right relation
// to the next.
func OrderProblems(v *rule.Verdict, w *Walk, inOrder func(a, b Row) bool, what string) {
	v.Judged(max(0, len(w.Rows)-1))
	for i := 1; i < len(w.Rows); i++ {
		a, b := w.Rows[i-1], w.Rows[i]
		if a.KeyErr != nil || b.KeyErr != nil {
			bad := a
			if b.KeyErr != nil {
				bad = b
			}
			v.Add(w.PageOf(i).Ex, "row %d: %s", i, bad.Ident)
			return
		}
		if !inOrder(a, b) {
			v.Add(w.PageOf(i).Ex, "%s: row %d is %s, row %d is %s", what, i-1, a.Ident, i, b.Ident)
			if len(v.Problems) >= rule.MaxProblems {
				return
			}
		}
	}
}
