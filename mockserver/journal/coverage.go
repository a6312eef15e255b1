package journal

import (
	"net/url"

	"github.com/chaindata/harness/generators/records"
)

// Coverage's reading of the journal: each request with the shapes of the
// page it was answered with, worked out when asked from what the journal
// keeps anyway, so that recording a request costs nothing more.

// The shapes of a page, as coverage names them (page:first, ...). A page
// may have several.
const (
	// PageFirst is a page asked without a cursor that holds rows.
	PageFirst = "first"
	// PageMiddle is a page asked with a cursor that holds rows and has
	// rows beyond it in its direction.
	PageMiddle = "middle"
	// PageLast is a page that holds rows and has none beyond it.
	PageLast = "last"
	// PageEmpty is a page of no row.
	PageEmpty = "empty"
	// PageExactFit is a page that holds as many rows as it was asked
	// for, the last of them: a paged listing's full page whose pageInfo
	// says there is no more, a full transactions page whose next page of
	// the walk came back empty.
	PageExactFit = "exact-fit"
	// PageBackward is a page asked against its listing's order: a paged
	// listing's pagination.last or pagination.before, transactions' last
	// or after (without before).
	PageBackward = "backward"
)

// PageShapes lists the shapes, in the order coverage lists them.
var PageShapes = []string{PageFirst, PageMiddle, PageLast, PageEmpty, PageExactFit, PageBackward}

// Served is a request of the journal as coverage reads it.
type Served struct {
	*Record
	// Shapes are the shapes of its page, when it was answered with one
	// whole.
	Shapes []string
}

// RowsKnown reports whether the journal still holds which rows the
// record's page held (a bound on its memory may let them go).
func (r *Record) RowsKnown() bool { return r.HasPage && !r.rowsDropped }

// Served returns the journal's requests, oldest first, each with the
// shapes of its page. asked gives the count a page of a paged listing was
// asked for (its pagination.first or last, else the default page size).
func (j *Journal) Served(asked func(listing string, q url.Values) int) []Served {
	recs := j.records()
	wk := walkRecords(j.src, recs)
	shapes := map[uint64][]string{}
	for _, w := range wk.walks {
		for i, rec := range w.recs {
			if !rec.Whole {
				continue
			}
			var next *Record
			for _, r := range w.recs[i+1:] {
				if r.Whole {
					next = r
					break
				}
			}
			shapes[rec.ID] = pageShapes(rec, w.infos[i], next, asked)
		}
	}
	out := make([]Served, len(recs))
	for i, rec := range recs {
		out[i] = Served{Record: rec, Shapes: shapes[rec.ID]}
	}
	return out
}

// pageShapes returns the shapes of a page answered whole; next is the
// walk's next page answered whole (nil: none).
func pageShapes(rec *Record, in reqInfo, next *Record, asked func(string, url.Values) int) []string {
	p := &rec.Page
	var out []string
	if p.Rows == 0 {
		return append(out, PageEmpty)
	}
	tx := rec.Listing == records.ListingTransactions
	window := tx && in.q.Get("before") != "" && in.q.Get("after") != ""
	want := p.Asked
	if !tx {
		want = asked(rec.Listing, in.q)
	}
	atEnd := pageAtEnd(rec, in)
	full := p.Rows == want && !window
	if tx && full && next != nil && next.Page.Rows == 0 && len(next.Page.Runs) == 0 && followsOn(next, rec) {
		atEnd = true // a full page the empty one after it showed was the last
	}
	if len(in.cursors) == 0 {
		out = append(out, PageFirst)
	} else if !atEnd {
		out = append(out, PageMiddle)
	}
	if atEnd {
		out = append(out, PageLast)
		if full {
			out = append(out, PageExactFit)
		}
	}
	if backward(rec.Listing, in.q) {
		out = append(out, PageBackward)
	}
	return out
}

// followsOn reports whether next carried the cursor of page's far end: the
// page after it.
func followsOn(next, page *Record) bool {
	c := next.Cursor
	return c != "" && (c == page.EndCursor || c == page.StartCursor)
}

// backward reports whether a request pages against its listing's order (a
// transactions window, before and after, goes towards the older rows, as
// the listing does).
func backward(listing string, q url.Values) bool {
	if listing == records.ListingTransactions {
		return !towardLow(listing, q)
	}
	return !pagedForward(q)
}
