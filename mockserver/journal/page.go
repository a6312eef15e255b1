package journal

import "net/url"

// Page is what the walks need of the page a request was answered with:
// which rows it held and what its answer said of the rows beyond it. The
// mock's handlers fill it in as they make the page.
type Page struct {
	Rows  int      // rows in it
	Runs  []RowRun // which rows, as store indexes
	Total int      // the listing's rows when it was made
	// HasNext and HasPrev are a paged listing's pageInfo flags.
	HasNext, HasPrev bool
	// Asked is the count a transactions page was asked for (its default,
	// or the maximum for a window); Cut, that a window was cut at the
	// maximum.
	Asked int
	Cut   bool
	// Window says the games page was of the epochs [EpochFrom, EpochTo].
	Window             bool
	EpochFrom, EpochTo uint64
}

// RowRun is a run of consecutive store indexes, [First, First+N).
type RowRun struct{ First, N int32 }

// AddRow adds store index i to runs, extending the last run when i is next
// to it on either side (a page is ascending or descending in the store).
func AddRow(runs []RowRun, i int32) []RowRun {
	if k := len(runs) - 1; k >= 0 {
		r := &runs[k]
		switch {
		case i == r.First+r.N:
			r.N++
			return runs
		case i == r.First-1:
			r.First, r.N = i, r.N+1
			return runs
		}
	}
	return append(runs, RowRun{i, 1})
}

// containsRow reports whether store index i is in runs.
func containsRow(runs []RowRun, i int32) bool {
	for _, r := range runs {
		if i >= r.First && i < r.First+r.N {
			return true
		}
	}
	return false
}

// Source is what the walks read of the listings the mock serves: the
// rows of the store as it is now, and as it was when a walk began.
type Source interface {
	// CursorRow returns the store index of the row a cursor of listing
	// names, when a row has that key.
	CursorRow(listing, cursor string) (row int, found bool)
	// ExpectedRows returns the store indexes of the rows of listing that
	// match the filters of q and that the listing held when first, a
	// walk's first page, was made, ascending.
	ExpectedRows(listing string, q url.Values, first *Page) ([]int32, error)
}
