package conformance

import (
	"fmt"
	"net/url"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
)

// describePaged registers the rules every paged listing shares; extra adds
// the listing's own (filters, epochs) inside the same ordered container, so
// they share its walks. The schema rules run last, over every answer the
// container received.
func describePaged(l *pagedListing, extra func(st *pagedState)) bool {
	return Describe(l.label, Label(l.label), Ordered, ContinueOnFailure, func() {
		st := &pagedState{l: l}
		BeforeAll(st.setUp)

		Context("pagination", Label("pagination"), func() {
			pagingRules(st)
		})
		if extra != nil {
			extra(st)
		}
		Context("errors", Label("errors"), func() {
			pagedErrorRules(st)
		})
		Context("schema", Label("schema"), func() {
			schemaRules(st.l.schema, st.l.path, func() *client { return st.c }, true)
		})
	})
}

var (
	_ = describePaged(gamesListing, gamesRules)
	_ = describePaged(snapshotsListing, nil)
	_ = describePaged(rotationsListing, rotationsRules)
	_ = describePaged(parametersListing, nil)
)

func pagingRules(st *pagedState) {
	l := st.l

	It("a forward walk (first/after) never repeats a row", func() {
		rows := st.rows(1)
		if msg, i := repeats(rows); msg != "" {
			v := newVerdict("every row once in a walk over the listing")
			v.add(st.fwd.pageOf(i).ex, "the %s repeats rows:\n%s\n  the first repeat is on this page:", st.fwd.what, msg)
			v.check()
		}
	})

	It("forward (first/after) and backward (last/before) walks return the same rows in the same order", func() {
		rows := st.rows(1)
		v := newVerdict("paging backwards from the end gives the rows of the forward walk, none lost or repeated")
		if st.fwd.complete {
			failWalk(st.bwd)
			got, _ := st.cut.settle(st.bwd.rows)
			walkDiff(v, st.bwd, got, st.fwd, rows)
		} else {
			failWalk(st.bwdAnchored)
			walkDiff(v, st.bwdAnchored, st.bwdAnchored.rows, st.fwd, rows[:len(rows)-1])
		}
		v.check()
	})

	if l.ordered {
		It(fmt.Sprintf("rows are newest first: %s never increases from row to row", l.primary), func() {
			rows := st.rows(2)
			v := newVerdict("rows in newest-first order by %s (the default, newestFirst=true)", l.primary)
			orderProblems(v, st.fwd, func(a, b row) bool { return a.key.num >= b.key.num }, l.primary+" increases")
			v.check()
			_ = rows
		})

		if l.secondary != "" {
			It(fmt.Sprintf("rows with the same %s are ordered by %s ascending, and no two rows share a key", l.primary, l.secondary), Label("strict"), func() {
				st.rows(2)
				v := newVerdict("rows strictly in order: %s descending, then %s ascending", l.primary, l.secondary)
				orderProblems(v, st.fwd, func(a, b row) bool { return l.compare(a.key, b.key) < 0 }, "out of order")
				v.check()
			})
		}

		It("newestFirst=true is the default", func() {
			st.rows(1)
			v := newVerdict("pagination.newestFirst=true to give the same page as no newestFirst")
			p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(st.size)}, "pagination.newestFirst": {"true"}})
			want := st.fwd.pages[0]
			got, arrived := st.cut.settle(p.rows)
			if d := diffPrefix("newestFirst=true page", got, !arrived, "default page", want.rows, true); d != "" {
				v.add(p.ex, "%s", d)
			}
			v.check()
		})

		It("newestFirst=false returns the same rows in exactly the reverse order", func() {
			st.rows(1)
			failWalk(st.asc, st.bwd)
			v := newVerdict("the newestFirst=false listing to be the newestFirst=true listing reversed")
			want, _ := st.cut.settle(reversed(st.bwd.rows))
			got, _ := st.cut.settle(st.asc.rows)
			if d := diffPrefix(st.asc.what, got, st.asc.complete, "reversed "+st.bwd.what, want, st.bwd.complete); d != "" {
				v.add(st.asc.pages[0].ex, "%s\n  the walk's first page:", d)
			}
			v.check()
		})
	} else {
		It("rows are in key order A to Z", Label("strict"), func() {
			st.rows(2)
			v := newVerdict("network parameters in key order, A to Z")
			orderProblems(v, st.fwd, func(a, b row) bool { return a.key.str < b.key.str }, "out of key order")
			v.check()
		})

		It("newestFirst=false is ignored: rows stay in key order", Label("strict"), func() {
			rows := st.rows(1)
			failWalk(st.asc)
			v := newVerdict("the same rows whatever newestFirst says, as network parameters have no age")
			if d := diffPrefix(st.asc.what, st.asc.rows, st.asc.complete, st.fwd.what, rows, st.fwd.complete); d != "" {
				v.add(st.asc.pages[0].ex, "%s\n  the walk's first page:", d)
			}
			v.check()
		})
	}

	It("a request without pagination parameters starts with the listing's first rows", func() {
		rows := st.rows(1)
		v := newVerdict("the first rows of the listing in default order")
		p := st.mustPage(nil)
		got, arrived := st.cut.settle(p.rows)
		if len(p.rows) == 0 {
			v.add(p.ex, "the page is empty, but the listing has rows")
		} else if d := diffPrefix("page without parameters", got, !p.info.hasNext && !arrived, st.fwd.what, rows, st.fwd.complete); d != "" {
			v.add(p.ex, "%s", d)
		}
		v.check()
	})

	It("first=N returns N rows while enough rows remain", func() {
		rows := st.rows(1)
		v := newVerdict("pagination.first=N to give exactly N rows, or every remaining row when fewer remain")
		for i, p := range st.fwd.pages {
			final := i == len(st.fwd.pages)-1 && st.fwd.complete
			if len(p.rows) != st.size && !(final && len(p.rows) < st.size) {
				v.add(p.ex, "page %d of the %s has %d rows, want %d", i+1, st.fwd.what, len(p.rows), st.size)
			}
		}
		for _, n := range []int{1, 2, 3} {
			if n > len(rows) && st.fwd.complete {
				break
			}
			p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(n)}})
			if len(p.rows) != n {
				v.add(p.ex, "pagination.first=%d gave %d rows", n, len(p.rows))
			}
		}
		v.check()
	})

	It("last=N returns N rows while enough rows remain", func() {
		rows := st.rows(1)
		failWalk(st.bwd)
		v := newVerdict("pagination.last=N to give exactly N rows, or every remaining row when fewer remain")
		for i, p := range st.bwd.pages {
			final := i == len(st.bwd.pages)-1 && st.bwd.complete
			if len(p.rows) != st.size && !(final && len(p.rows) < st.size) {
				v.add(p.ex, "page %d of the %s has %d rows, want %d", i+1, st.bwd.what, len(p.rows), st.size)
			}
		}
		for _, n := range []int{1, 2, 3} {
			if n > len(rows) && st.fwd.complete {
				break
			}
			p := st.mustPage(url.Values{"pagination.last": {strconv.Itoa(n)}})
			if len(p.rows) != n {
				v.add(p.ex, "pagination.last=%d gave %d rows", n, len(p.rows))
			}
		}
		v.check()
	})

	It("startCursor and endCursor are the cursors of the page's first and last edges", func() {
		st.rows(1)
		v := newVerdict("pageInfo.startCursor = cursor of the first edge, pageInfo.endCursor = cursor of the last edge")
		for _, w := range []*walk{st.fwd, st.bwd, st.asc} {
			for i, p := range w.pages {
				if len(p.rows) == 0 {
					continue
				}
				first, last := p.rows[0].cursor, p.rows[len(p.rows)-1].cursor
				if p.info.startCursor != first || p.info.endCursor != last {
					v.add(p.ex, "page %d of the %s: startCursor %q and endCursor %q, but the edges' cursors run from %q to %q",
						i+1, w.what, p.info.startCursor, p.info.endCursor, first, last)
				}
			}
		}
		v.check()
	})

	flagRule := func(pos, text string) {
		It(text, func() {
			rows := st.rows(1)
			v := newVerdict("hasNextPage true exactly when rows follow the page, hasPreviousPage true exactly when rows precede it (%s page)", pos)
			found := false
			report := func(p string, ex *exchange, msg string) {
				if p == pos {
					v.add(ex, "%s", msg)
				}
			}
			for _, w := range []*walk{st.fwd, st.asc} {
				failWalk(w)
				pageFlagProblems(w, false, report)
				found = found || hasPosition(w, pos)
			}
			if pos == "last" && !st.fwd.complete {
				// The walk did not reach the end: fetch the last page
				// forwards from the row before it.
				found = true
				lastPageProblems(st, v)
			}
			if pos == "middle" && !found {
				skipf("the %s listing has %d rows: the walks have no middle page", l.label, len(rows))
			}
			v.check()
		})
	}
	flagRule("first", "the first page has hasPreviousPage false, and hasNextPage true exactly when more rows follow")
	flagRule("middle", "middle pages have hasPreviousPage and hasNextPage true")
	flagRule("last", "the last page has hasNextPage false, and hasPreviousPage true when rows precede it")

	It("pages fetched backwards (last/before) have hasPreviousPage and hasNextPage true exactly when rows precede and follow them", func() {
		st.rows(1)
		failWalk(st.bwd)
		v := newVerdict("the same meaning of hasNextPage and hasPreviousPage when paging backwards")
		pageFlagProblems(st.bwd, true, func(_ string, ex *exchange, msg string) { v.add(ex, "%s", msg) })
		v.check()
	})

	It("the empty pages beyond either end have no edges, hasNextPage false after the last row and hasPreviousPage false before the first", func() {
		rows := st.rows(1)
		v := newVerdict("an empty page with no further page in its direction")
		last := st.lastRow()
		p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(st.size)}, "pagination.after": {last.cursor}})
		if len(p.rows) != 0 {
			v.add(p.ex, "the page after the last row (%s) has %d rows, want none", last.ident, len(p.rows))
		}
		if p.info.hasNext {
			v.add(p.ex, "the page after the last row says hasNextPage true")
		}
		p = st.mustPage(url.Values{"pagination.last": {strconv.Itoa(st.size)}, "pagination.before": {rows[0].cursor}})
		// Rows that arrived since the walk began may now precede it.
		if older, arrived := st.cut.settle(p.rows); len(older) != 0 {
			v.add(p.ex, "the page before the first row (%s) has %d rows, want none", rows[0].ident, len(older))
		} else if p.info.hasPrev && !arrived {
			v.add(p.ex, "the page before the first row says hasPreviousPage true")
		}
		v.check()
	})

	It("an empty page has empty cursors and says rows exist on its anchor's side", Label("strict"), func() {
		rows := st.rows(1)
		v := newVerdict(`startCursor and endCursor "" on an empty page, and hasPreviousPage (after the last row) or hasNextPage (before the first row) true`)
		last := st.lastRow()
		p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(st.size)}, "pagination.after": {last.cursor}})
		if p.info.startCursor != "" || p.info.endCursor != "" || !p.info.hasPrev {
			v.add(p.ex, "the empty page after the last row has startCursor %q, endCursor %q, hasPreviousPage %v",
				p.info.startCursor, p.info.endCursor, p.info.hasPrev)
		}
		p = st.mustPage(url.Values{"pagination.last": {strconv.Itoa(st.size)}, "pagination.before": {rows[0].cursor}})
		if _, arrived := st.cut.settle(p.rows); !arrived && (p.info.startCursor != "" || p.info.endCursor != "" || !p.info.hasNext) {
			v.add(p.ex, "the empty page before the first row has startCursor %q, endCursor %q, hasNextPage %v",
				p.info.startCursor, p.info.endCursor, p.info.hasNext)
		}
		v.check()
	})

	It("after=C with first=N resumes with the N rows right after C", func() {
		rows := st.rows(2)
		v := newVerdict("pagination.after=C&pagination.first=N to give the N rows that follow C in the listing")
		k := min(3, st.size)
		for _, i := range resumeAnchors(len(rows)) {
			want := rows[i+1 : min(len(rows), i+1+k)]
			p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(k)}, "pagination.after": {rows[i].cursor}})
			complete := st.fwd.complete || i+1+k <= len(rows)
			if d := diffPrefix("page after "+rows[i].ident, p.rows, true, "forward walk", want, complete); d != "" {
				v.add(p.ex, "%s", d)
			}
		}
		v.check()
	})

	It("before=C with last=N resumes with the N rows right before C", func() {
		rows := st.rows(2)
		v := newVerdict("pagination.before=C&pagination.last=N to give the N rows that precede C in the listing")
		k := min(3, st.size)
		for _, i := range resumeAnchors(len(rows)) {
			i++ // anchors 1..n-1: a row with rows before it
			if i >= len(rows) {
				continue
			}
			want := rows[max(0, i-k):i]
			p := st.mustPage(url.Values{"pagination.last": {strconv.Itoa(k)}, "pagination.before": {rows[i].cursor}})
			got, _ := st.cut.settle(p.rows)
			if d := diffPrefix("page before "+rows[i].ident, got, true, "forward walk", want, true); d != "" {
				v.add(p.ex, "%s", d)
			}
		}
		v.check()
	})

	It("a cursor without a count pages in its direction with the default page size", Label("strict"), func() {
		rows := st.rows(3)
		v := newVerdict("pagination.after=C alone to give the rows after C, pagination.before=C alone the rows before C")
		i := len(rows) / 2
		p := st.mustPage(url.Values{"pagination.after": {rows[i].cursor}})
		after := rows[i+1:]
		if len(p.rows) == 0 && len(after) > 0 {
			v.add(p.ex, "pagination.after alone gave no rows, but %s follows the cursor", after[0].ident)
		} else if d := diffPrefix("page after "+rows[i].ident, p.rows, !p.info.hasNext, "forward walk", after, st.fwd.complete); d != "" {
			v.add(p.ex, "%s", d)
		}
		p = st.mustPage(url.Values{"pagination.before": {rows[i].cursor}})
		before := rows[:i]
		got, _ := st.cut.settle(p.rows)
		if len(got) == 0 {
			v.add(p.ex, "pagination.before alone gave no rows, but %s precedes the cursor", before[len(before)-1].ident)
		} else if len(got) > len(before) {
			v.add(p.ex, "pagination.before alone gave %d rows, but only %d precede the cursor", len(got), len(before))
		} else if d := diffPrefix("page before "+rows[i].ident, got, true, "forward walk", before[len(before)-len(got):], true); d != "" {
			v.add(p.ex, "%s", d)
		}
		v.check()
	})

	It("a row keeps its cursor whatever the page size and direction", Label("strict"), func() {
		st.rows(1)
		v := newVerdict("the same cursor for the same row in every answer")
		p := st.mustPage(url.Values{"pagination.first": {"3"}})
		cursors := map[string]string{}
		for _, r := range st.fwd.rows {
			cursors[r.ident] = r.cursor
		}
		check := func(what string, ex *exchange, rows []row) {
			for _, r := range rows {
				if c, ok := cursors[r.ident]; ok && c != r.cursor {
					v.add(ex, "%s has cursor %q in the %s but %q in the forward walk", r.ident, r.cursor, what, c)
					return
				}
			}
		}
		check("page of 3", p.ex, p.rows)
		for _, bp := range st.bwd.pages {
			check(st.bwd.what, bp.ex, bp.rows)
		}
		v.check()
	})
}

// hasPosition reports whether a walk has a page at the position.
func hasPosition(w *walk, pos string) bool {
	n := 0
	for _, p := range w.pages {
		if len(p.rows) > 0 {
			n++
		}
	}
	switch pos {
	case "middle":
		return n >= 3
	case "last":
		return w.complete && n >= 1
	}
	return n >= 1
}

// lastPageProblems fetches the listing's last page forwards when the walk did
// not reach it: last=size+1 finds the row before the last page.
func lastPageProblems(st *pagedState, v *verdict) {
	GinkgoHelper()
	tail := st.mustPage(url.Values{"pagination.last": {strconv.Itoa(st.size + 1)}})
	if len(tail.rows) < 2 {
		v.add(tail.ex, "pagination.last=%d gave %d rows, but the listing has more than %d", st.size+1, len(tail.rows), len(st.fwd.rows))
		return
	}
	p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(st.size)}, "pagination.after": {tail.rows[0].cursor}})
	if p.info.hasNext {
		v.add(p.ex, "the last page (the %d rows after %s) says hasNextPage true", len(p.rows), tail.rows[0].ident)
	}
	if !p.info.hasPrev {
		v.add(p.ex, "the last page says hasPreviousPage false, but %s precedes it", tail.rows[0].ident)
	}
}

// orderProblems checks that each row of a walk stands in the right relation
// to the next.
func orderProblems(v *verdict, w *walk, inOrder func(a, b row) bool, what string) {
	for i := 1; i < len(w.rows); i++ {
		a, b := w.rows[i-1], w.rows[i]
		if a.keyErr != nil || b.keyErr != nil {
			bad := a
			if b.keyErr != nil {
				bad = b
			}
			v.add(w.pageOf(i).ex, "row %d: %s", i, bad.ident)
			return
		}
		if !inOrder(a, b) {
			v.add(w.pageOf(i).ex, "%s: row %d is %s, row %d is %s", what, i-1, a.ident, i, b.ident)
			if len(v.problems) >= maxProblems {
				return
			}
		}
	}
}
