package mockserver

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"testing"
)

// TestWalk walks every paged listing forwards (first/after) and backwards
// (last/before), in both orders, at several page sizes, and with cursors
// alone at the default size: every page must be the model's, with the right
// pageInfo, and the pages together must hold every row once, in order.
func TestWalk(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	const defaultSize = 6
	s := serve(t, Config{}, w)
	small := serve(t, Config{DefaultPageSize: defaultSize}, w)
	for _, l := range pagedListings {
		all := l.expected(w)
		for _, nf := range []bool{true, false} {
			rows := l.inOrder(all, nf)
			for _, size := range []int{1, 4, 25, 0} {
				srv, name := s, fmt.Sprintf("%s/newestFirst=%v/size %d", l.name, nf, size)
				if size == 0 {
					// No count: cursors alone, at the default page size.
					srv, size, name = small, defaultSize, fmt.Sprintf("%s/newestFirst=%v/cursors alone", l.name, nf)
				}
				alone := srv == small
				t.Run(name+"/forwards", func(t *testing.T) {
					walkPaged(t, srv, l, rows, nf, size, alone, true)
				})
				t.Run(name+"/backwards", func(t *testing.T) {
					walkPaged(t, srv, l, rows, nf, size, alone, false)
				})
			}
		}
	}
}

// walkPaged walks listing l, whose rows in the requested order are rows,
// one way, checking every page, and then the rows seen.
func walkPaged(t *testing.T, s *testServer, l *listing, rows []expRow, nf bool, size int, alone, forwards bool) {
	n := len(rows)
	q := url.Values{"pagination.newestFirst": {strconv.FormatBool(nf)}}
	switch {
	case !alone && forwards:
		q.Set("pagination.first", strconv.Itoa(size))
	case !alone && !forwards, alone && !forwards && n > 0:
		// A backward walk starts at the end: last, then before alone.
		q.Set("pagination.last", strconv.Itoa(size))
	}
	var seen []string
	pages, maxPages := 0, n/size+2
	for {
		pages++
		if pages > maxPages {
			t.Fatalf("more than %d pages of %d for %d rows", maxPages, size, n)
		}
		start, end := len(seen), min(n, len(seen)+size)
		if !forwards {
			start, end = max(0, n-len(seen)-size), n-len(seen)
		}
		p := checkPage(t, s.get(t, l.path, q.Encode()), l, rows, start, end)
		page := make([]string, len(p.Edges))
		for i, e := range p.Edges {
			page[i] = e.Cursor
		}
		if forwards {
			seen = append(seen, page...)
			if !p.PageInfo.HasNextPage {
				break
			}
			q.Del("pagination.last")
			q.Set("pagination.after", p.PageInfo.EndCursor)
		} else {
			seen = append(page, seen...)
			if !p.PageInfo.HasPreviousPage {
				break
			}
			if alone {
				q.Del("pagination.last")
			}
			q.Set("pagination.before", p.PageInfo.StartCursor)
		}
	}
	if want := cursorsOf(rows); !slices.Equal(seen, want) {
		t.Fatalf("the walk saw %d rows, want %d:\n got %s\nwant %s", len(seen), len(want), describeCursors(seen), describeCursors(want))
	}
	if wantPages := max(1, (n+size-1)/size); pages != wantPages {
		t.Errorf("the walk took %d pages of %d for %d rows, want %d", pages, size, n, wantPages)
	}
}

// TestWalkTransactions walks the transaction listing from the newest
// (first, then last/before) and from the oldest (last, then first/after),
// at several page sizes, with cursors alone, and filtered.
func TestWalkTransactions(t *testing.T) {
	t.Parallel()
	w := pagingWorld(t)
	all := txModels(t, w)
	const defaultSize = 8
	s := serve(t, Config{}, w)
	small := serve(t, Config{TxDefaultPageSize: defaultSize}, w)
	filters := []struct {
		name string
		f    txQuery
	}{
		{"all", txQuery{}},
		{"cmdTypes", txQuery{cmdTypes: []string{"Submit Order", "Cancel Order"}}},
		{"excludeCmdTypes", txQuery{excludeCmdTypes: []string{"Submit Order"}}},
		{"parties", txQuery{parties: []string{all[0].submitter, all[len(all)-1].submitter}}},
	}
	for _, f := range filters {
		want := expectTxs(t, all, txQuery{first: 5000, cmdTypes: f.f.cmdTypes, excludeCmdTypes: f.f.excludeCmdTypes, parties: f.f.parties}, 50, 5000)
		if len(want) < 2 {
			t.Fatalf("filter %s selects %d transactions", f.name, len(want))
		}
		for _, size := range []int{1, 7, 30, 0} {
			srv, name := s, fmt.Sprintf("%s/size %d", f.name, size)
			if size == 0 {
				srv, size, name = small, defaultSize, f.name+"/cursors alone"
			}
			if f.name != "all" && size == 1 {
				continue
			}
			for _, fromNewest := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/from newest %v", name, fromNewest), func(t *testing.T) {
					walkTxs(t, srv, all, f.f, want, size, srv == small, fromNewest)
				})
			}
		}
	}
}

// walkTxs walks the transactions f selects, want (newest first), one way.
func walkTxs(t *testing.T, s *testServer, all []txModel, f txQuery, want []txModel, size int, alone, fromNewest bool) {
	q := f
	if fromNewest {
		q.first = size
	} else {
		q.last = size
	}
	if alone {
		q.first, q.last = 0, 0
		if !fromNewest {
			q.last = size // the oldest page needs a count; then cursors alone
		}
	}
	var seen []string
	for pages := 1; ; pages++ {
		if pages > len(want)/size+2 {
			t.Fatalf("more than %d pages", pages-1)
		}
		def := 50
		if alone {
			def = size
		}
		page := expectTxs(t, all, q, def, 5000)
		r := s.get(t, "/transactions", q.values().Encode())
		checkTxs(t, r, page)
		if len(page) > size {
			t.Fatalf("%s: %d rows in a page of %d", r, len(page), size)
		}
		cursors := make([]string, len(page))
		for i, tx := range page {
			cursors[i] = tx.cursor
		}
		if fromNewest {
			seen = append(seen, cursors...)
		} else {
			seen = append(cursors, seen...)
		}
		if len(page) < size {
			break // a short page is the last; after a full one, an empty page shows the end
		}
		next := f
		if fromNewest {
			next.before = page[len(page)-1].cursor
			if !alone {
				next.last = size
			}
		} else {
			next.after = page[0].cursor
			if !alone {
				next.first = size
			}
		}
		q = next
	}
	wantCursors := make([]string, len(want))
	for i, tx := range want {
		wantCursors[i] = tx.cursor
	}
	if !slices.Equal(seen, wantCursors) {
		b, _ := json.Marshal(map[string]any{"got": abbreviate(seen), "want": abbreviate(wantCursors)})
		t.Fatalf("the walk saw %d transactions, want %d: %s", len(seen), len(want), b)
	}
}
