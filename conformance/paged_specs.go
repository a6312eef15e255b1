package conformance

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
)

// describePaged registers the rules every paged listing shares; extra adds
// the listing's own (filters, epochs) inside the same ordered container, so
// they share its walks. The schema rules run last, over every answer the
// container received.
func describePaged(l *pagedListing, extra func(st *pagedState)) bool {
	return rule.Scope(l.label, Ordered, ContinueOnFailure, func() {
		st := &pagedState{l: l}
		BeforeAll(st.setUp)

		rule.Area("pagination", func() {
			pagingRules(st)
		})
		if extra != nil {
			extra(st)
		}
		rule.Area("errors", func() {
			pagedErrorRules(st)
		})
		rule.Area("schema", func() {
			var newest func() (uint64, *client.Exchange, bool)
			if l.blockField != "" {
				newest = st.newestBlock
			}
			schemaRules(l.schema, l.path, l.cite, func() *client.Client { return st.c }, true, newest)
		})
	})
}

// declarePagedRules declares the rules of the four paged listings (see
// declareSuite).
func declarePagedRules() {
	describePaged(gamesListing, gamesRules)
	describePaged(snapshotsListing, nil)
	describePaged(rotationsListing, rotationsRules)
	describePaged(parametersListing, nil)
}

func pagingRules(st *pagedState) {
	l := st.l

	rule.Define("a forward walk (first/after) never repeats a row", rule.CiteForward, func() {
		rows := st.rows(1)
		v := rule.NewVerdict("every row once in a walk over the listing")
		v.Judged(len(rows))
		if msg, i := repeats(rows); msg != "" {
			v.Add(st.fwd.pageOf(i).ex, "the %s repeats rows:\n%s\n  the first repeat is on this page:", st.fwd.what, msg)
		}
		v.Check()
	})

	rule.Define("forward (first/after) and backward (last/before) walks return the same rows in the same order", rule.CiteBackward, func() {
		rows := st.rows(1)
		v := rule.NewVerdict("paging backwards from the end gives the rows of the forward walk, none lost or repeated")
		v.Judged(len(rows))
		if st.fwd.complete {
			failWalk(st.bwd)
			got, _ := st.cut.settle(st.bwd.rows)
			walkDiff(v, st.bwd, got, st.fwd, rows)
		} else {
			failWalk(st.bwdAnchored)
			walkDiff(v, st.bwdAnchored, st.bwdAnchored.rows, st.fwd, rows[:len(rows)-1])
		}
		v.Check()
	})

	if l.ordered {
		rule.Define(fmt.Sprintf("rows are newest first: %s never increases from row to row", l.primary), rule.CiteNewest, func() {
			st.rows(2)
			v := rule.NewVerdict("rows in newest-first order by %s (the default, newestFirst=true)", l.primary)
			orderProblems(v, st.fwd, func(a, b row) bool { return a.key.num >= b.key.num }, l.primary+" increases")
			v.Check()
		})

		if l.secondary != "" {
			rule.Define(fmt.Sprintf("rows with the same %s are ordered by %s ascending, and no two rows share a key", l.primary, l.secondary), rule.Should, func() {
				st.rows(2)
				v := rule.NewVerdict("rows strictly in order: %s descending, then %s ascending", l.primary, l.secondary)
				orderProblems(v, st.fwd, func(a, b row) bool { return l.compare(a.key, b.key) < 0 }, "out of order")
				v.Check()
			})
		}

		rule.Define("newestFirst=true is the default", rule.CiteNewest, func() {
			st.rows(1)
			v := rule.NewVerdict("pagination.newestFirst=true to give the same page as no newestFirst")
			p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(st.size)}, "pagination.newestFirst": {"true"}})
			want := st.fwd.pages[0]
			got, arrived := st.cut.settle(p.rows)
			v.Judged(len(got))
			if d := diffPrefix("newestFirst=true page", got, !arrived, "default page", want.rows, true); d != "" {
				v.Add(p.ex, "%s", d)
			}
			v.Check()
		})

		rule.Define(fmt.Sprintf("newestFirst=false returns the rows oldest first: %s never decreases from row to row, and no row is lost or added", l.primary), rule.CiteNewest, func() {
			st.rows(1)
			failWalk(st.asc, st.bwd)
			v := rule.NewVerdict("the newestFirst=false listing to hold the rows of the default listing, oldest first by %s", l.primary)
			orderProblems(v, st.asc, func(a, b row) bool { return a.key.num <= b.key.num }, l.primary+" decreases")
			got, _ := st.cut.settle(st.asc.rows)
			want, _ := st.cut.settle(reversed(st.bwd.rows))
			v.Judged(len(got))
			if d := sameRows(st.asc.what, got, st.asc.complete, "reversed "+st.bwd.what, want, st.bwd.complete); d != "" {
				v.Add(st.asc.pages[0].ex, "%s\n  the walk's first page:", d)
			}
			v.Check()
		})

		rule.Define("newestFirst=false returns the same rows in exactly the reverse order, ties included", rule.Should, func() {
			st.rows(1)
			failWalk(st.asc, st.bwd)
			v := rule.NewVerdict("the newestFirst=false listing to be the newestFirst=true listing reversed, rows that share a %s included", l.primary)
			want, _ := st.cut.settle(reversed(st.bwd.rows))
			got, _ := st.cut.settle(st.asc.rows)
			v.Judged(len(got))
			if d := diffPrefix(st.asc.what, got, st.asc.complete, "reversed "+st.bwd.what, want, st.bwd.complete); d != "" {
				v.Add(st.asc.pages[0].ex, "%s\n  the walk's first page:", d)
			}
			v.Check()
		})
	} else {
		rule.Define("rows are in key order A to Z", rule.Should, func() {
			st.rows(2)
			v := rule.NewVerdict("network parameters in key order, A to Z")
			orderProblems(v, st.fwd, func(a, b row) bool { return a.key.str < b.key.str }, "out of key order")
			v.Check()
		})

		rule.Define("newestFirst=false is ignored: rows stay in key order", rule.Should, func() {
			rows := st.rows(1)
			failWalk(st.asc)
			v := rule.NewVerdict("the same rows whatever newestFirst says, as network parameters have no age")
			v.Judged(len(st.asc.rows))
			if d := diffPrefix(st.asc.what, st.asc.rows, st.asc.complete, st.fwd.what, rows, st.fwd.complete); d != "" {
				v.Add(st.asc.pages[0].ex, "%s\n  the walk's first page:", d)
			}
			v.Check()
		})
	}

	rule.Define("a request without pagination parameters starts with the listing's first rows", rule.CiteNewest, func() {
		rows := st.rows(1)
		v := rule.NewVerdict("the first rows of the listing in default order")
		p := st.mustPage(nil)
		got, arrived := st.cut.settle(p.rows)
		v.Judged(len(got))
		if len(p.rows) == 0 {
			v.Add(p.ex, "the page is empty, but the listing has rows")
		} else if d := diffPrefix("page without parameters", got, !p.info.hasNext && !arrived, st.fwd.what, rows, st.fwd.complete); d != "" {
			v.Add(p.ex, "%s", d)
		}
		v.Check()
	})

	rule.Define("first=N returns N rows while enough rows remain", rule.CiteForward, func() {
		rows := st.rows(1)
		v := rule.NewVerdict("pagination.first=N to give exactly N rows, or every remaining row when fewer remain")
		v.Judged(len(st.fwd.pages))
		for i, p := range st.fwd.pages {
			final := i == len(st.fwd.pages)-1 && st.fwd.complete
			if len(p.rows) != st.size && !(final && len(p.rows) < st.size) {
				v.Add(p.ex, "page %d of the %s has %d rows, want %d", i+1, st.fwd.what, len(p.rows), st.size)
			}
		}
		for _, n := range []int{1, 2, 3} {
			if n > len(rows) && st.fwd.complete || n > st.cfg.PageSize {
				break
			}
			p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(n)}})
			v.Judged(1)
			if len(p.rows) != n {
				v.Add(p.ex, "pagination.first=%d gave %d rows", n, len(p.rows))
			}
		}
		v.Check()
	})

	rule.Define("last=N returns N rows while enough rows remain", rule.CiteBackward, func() {
		rows := st.rows(1)
		failWalk(st.bwd)
		v := rule.NewVerdict("pagination.last=N to give exactly N rows, or every remaining row when fewer remain")
		v.Judged(len(st.bwd.pages))
		for i, p := range st.bwd.pages {
			final := i == len(st.bwd.pages)-1 && st.bwd.complete
			if len(p.rows) != st.bsize && !(final && len(p.rows) < st.bsize) {
				v.Add(p.ex, "page %d of the %s has %d rows, want %d", i+1, st.bwd.what, len(p.rows), st.bsize)
			}
		}
		for _, n := range []int{1, 2, 3} {
			if n > len(rows) && st.fwd.complete || n > st.cfg.PageSize {
				break
			}
			p := st.mustPage(url.Values{"pagination.last": {strconv.Itoa(n)}})
			v.Judged(1)
			if len(p.rows) != n {
				v.Add(p.ex, "pagination.last=%d gave %d rows", n, len(p.rows))
			}
		}
		v.Check()
	})

	rule.Define("startCursor and endCursor are the cursors of the page's first and last edges", rule.CiteCursors, func() {
		st.rows(1)
		v := rule.NewVerdict("pageInfo.startCursor = cursor of the first edge, pageInfo.endCursor = cursor of the last edge")
		for _, w := range []*walk{st.fwd, st.bwd, st.asc} {
			for i, p := range w.pages {
				if len(p.rows) == 0 {
					continue
				}
				v.Judged(1)
				first, last := p.rows[0].cursor, p.rows[len(p.rows)-1].cursor
				if p.info.startCursor != first || p.info.endCursor != last {
					v.Add(p.ex, "page %d of the %s: startCursor %q and endCursor %q, but the edges' cursors run from %q to %q",
						i+1, w.what, p.info.startCursor, p.info.endCursor, first, last)
				}
			}
		}
		v.Check()
	})

	// The flags of a page are judged against the forward walk, which says
	// where the page's rows stand in the listing: a flag that ends a walk
	// too early cannot hide its own mistake.
	flagRule := func(pos, text string) {
		rule.Define(text, rule.CitePageInfo, func() {
			rows := st.rows(1)
			v := rule.NewVerdict("hasNextPage true exactly when rows follow the page, hasPreviousPage true exactly when rows precede it (%s page)", pos)
			ref := st.reference()
			report := func(p string, ex *client.Exchange, msg string) {
				if p == pos {
					v.Add(ex, "%s", msg)
				}
			}
			for _, w := range []*walk{st.fwd, st.asc} {
				failWalk(w)
				ordered := w
				if w == st.asc && st.l.ordered {
					ordered = nil // its order is the reverse of the reference's
				}
				if ordered != nil {
					v.Judged(pageFlagProblems(w, ref, false, pos, report))
				}
			}
			switch pos {
			case "first":
				v.Judged(exactFitProblems(st, v, false))
			case "last":
				v.Judged(exactFitProblems(st, v, true))
			}
			if pos == "middle" {
				v.NoneBecause("the %s listing has %d rows: the walks have no middle page", l.label, len(rows))
			}
			v.Check()
		})
	}
	flagRule("first", "the first page has hasPreviousPage false, and hasNextPage true exactly when more rows follow")
	flagRule("middle", "middle pages have hasPreviousPage and hasNextPage true")
	flagRule("last", "the last page has hasNextPage false, and hasPreviousPage true when rows precede it")

	rule.Define("pages fetched backwards (last/before) have hasPreviousPage and hasNextPage true exactly when rows precede and follow them", rule.CitePageInfo, func() {
		st.rows(1)
		failWalk(st.bwd)
		v := rule.NewVerdict("the same meaning of hasNextPage and hasPreviousPage when paging backwards, on at least three backward pages")
		ref := st.reference()
		report := func(_ string, ex *client.Exchange, msg string) { v.Add(ex, "%s", msg) }
		v.Judged(pageFlagProblems(st.bwd, ref, true, "", report))
		// A listing larger than the walks reach: the backward walk from
		// the end never meets the forward walk from the start, so the
		// backward walk anchored at the forward walk's last row shows the
		// rule, at any size.
		if st.bwdAnchored != nil {
			failWalk(st.bwdAnchored)
			v.Judged(pageFlagProblems(st.bwdAnchored, ref, true, "", report))
		}
		if len(st.bwd.pages) < 3 && len(ref.rows) >= 3 && v.OK() {
			v.Add(st.bwd.pages[len(st.bwd.pages)-1].ex, "the %s ended after %d page(s), but the listing holds %d rows: the last page's hasPreviousPage ended it early", st.bwd.what, len(st.bwd.pages), len(ref.rows))
		}
		v.Check()
	})

	rule.Define("the empty pages beyond either end have no edges, hasNextPage false after the last row and hasPreviousPage false before the first", rule.CitePageInfo, func() {
		rows := st.rows(1)
		v := rule.NewVerdict("an empty page with no further page in its direction")
		v.Judged(2)
		last := st.lastRow()
		p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(st.size)}, "pagination.after": {last.cursor}})
		if len(p.rows) != 0 {
			v.Add(p.ex, "the page after the last row (%s) has %d rows, want none", last.ident, len(p.rows))
		}
		if p.info.hasNext {
			v.Add(p.ex, "the page after the last row says hasNextPage true")
		}
		p = st.mustPage(url.Values{"pagination.last": {strconv.Itoa(st.size)}, "pagination.before": {rows[0].cursor}})
		// Rows that arrived since the walk began may now precede it.
		if older, arrived := st.cut.settle(p.rows); len(older) != 0 {
			v.Add(p.ex, "the page before the first row (%s) has %d rows, want none", rows[0].ident, len(older))
		} else if p.info.hasPrev && !arrived {
			v.Add(p.ex, "the page before the first row says hasPreviousPage true")
		}
		v.Check()
	})

	rule.Define("an empty page has empty cursors and says rows exist on its anchor's side", rule.Should, func() {
		rows := st.rows(1)
		v := rule.NewVerdict(`startCursor and endCursor "" on an empty page, and hasPreviousPage (after the last row) or hasNextPage (before the first row) true`)
		v.Judged(2)
		last := st.lastRow()
		p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(st.size)}, "pagination.after": {last.cursor}})
		if p.info.startCursor != "" || p.info.endCursor != "" || !p.info.hasPrev {
			v.Add(p.ex, "the empty page after the last row has startCursor %q, endCursor %q, hasPreviousPage %v",
				p.info.startCursor, p.info.endCursor, p.info.hasPrev)
		}
		p = st.mustPage(url.Values{"pagination.last": {strconv.Itoa(st.size)}, "pagination.before": {rows[0].cursor}})
		if _, arrived := st.cut.settle(p.rows); !arrived && (p.info.startCursor != "" || p.info.endCursor != "" || !p.info.hasNext) {
			v.Add(p.ex, "the empty page before the first row has startCursor %q, endCursor %q, hasNextPage %v",
				p.info.startCursor, p.info.endCursor, p.info.hasNext)
		}
		v.Check()
	})

	rule.Define("after=C with first=N resumes with the N rows right after C", rule.CiteForward, func() {
		rows := st.rows(2)
		v := rule.NewVerdict("pagination.after=C&pagination.first=N to give the N rows that follow C in the listing")
		k := min(3, st.size)
		for _, i := range resumeAnchors(len(rows)) {
			want := rows[i+1 : min(len(rows), i+1+k)]
			p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(k)}, "pagination.after": {rows[i].cursor}})
			v.Judged(1)
			complete := st.fwd.complete || i+1+k <= len(rows)
			if d := diffPrefix("page after "+rows[i].ident, p.rows, true, "forward walk", want, complete); d != "" {
				v.Add(p.ex, "%s", d)
			}
		}
		v.Check()
	})

	rule.Define("before=C with last=N resumes with the N rows right before C", rule.CiteBackward, func() {
		rows := st.rows(2)
		v := rule.NewVerdict("pagination.before=C&pagination.last=N to give the N rows that precede C in the listing")
		k := min(3, st.size)
		for _, i := range resumeAnchors(len(rows)) {
			i++ // anchors 1..n-1: a row with rows before it
			if i >= len(rows) {
				continue
			}
			want := rows[max(0, i-k):i]
			p := st.mustPage(url.Values{"pagination.last": {strconv.Itoa(k)}, "pagination.before": {rows[i].cursor}})
			v.Judged(1)
			got, _ := st.cut.settle(p.rows)
			if d := diffPrefix("page before "+rows[i].ident, got, true, "forward walk", want, true); d != "" {
				v.Add(p.ex, "%s", d)
			}
		}
		v.Check()
	})

	rule.Define("a cursor without a count pages in its direction with the default page size", rule.Should, func() {
		rows := st.rows(3)
		v := rule.NewVerdict("pagination.after=C alone to give the rows after C, pagination.before=C alone the rows before C")
		v.Judged(2)
		i := len(rows) / 2
		p := st.mustPage(url.Values{"pagination.after": {rows[i].cursor}})
		after := rows[i+1:]
		if len(p.rows) == 0 && len(after) > 0 {
			v.Add(p.ex, "pagination.after alone gave no rows, but %s follows the cursor", after[0].ident)
		} else if d := diffPrefix("page after "+rows[i].ident, p.rows, !p.info.hasNext, "forward walk", after, st.fwd.complete); d != "" {
			v.Add(p.ex, "%s", d)
		}
		p = st.mustPage(url.Values{"pagination.before": {rows[i].cursor}})
		before := rows[:i]
		got, _ := st.cut.settle(p.rows)
		if len(got) == 0 {
			v.Add(p.ex, "pagination.before alone gave no rows, but %s precedes the cursor", before[len(before)-1].ident)
		} else if len(got) > len(before) {
			v.Add(p.ex, "pagination.before alone gave %d rows, but only %d precede the cursor", len(got), len(before))
		} else if d := diffPrefix("page before "+rows[i].ident, got, true, "forward walk", before[len(before)-len(got):], true); d != "" {
			v.Add(p.ex, "%s", d)
		}
		v.Check()
	})

	rule.Define("a row keeps its cursor whatever the page size and direction", rule.Should, func() {
		st.rows(1)
		v := rule.NewVerdict("the same cursor for the same row in every answer")
		p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(min(3, st.size))}})
		cursors := map[string]string{}
		for _, r := range st.fwd.rows {
			cursors[r.ident] = r.cursor
		}
		check := func(what string, ex *client.Exchange, rows []row) {
			for _, r := range rows {
				if _, ok := cursors[r.ident]; ok {
					v.Judged(1)
				}
				if c, ok := cursors[r.ident]; ok && c != r.cursor {
					v.Add(ex, "%s has cursor %q in the %s but %q in the forward walk", r.ident, r.cursor, what, c)
					return
				}
			}
		}
		check("page of 3", p.ex, p.rows)
		for _, bp := range st.bwd.pages {
			check(st.bwd.what, bp.ex, bp.rows)
		}
		v.Check()
	})
}

// exactFitProblems constructs the pages whose flags are easiest to get
// wrong and checks them: the listing's last page asked for with exactly as
// many rows as remain (last: hasNextPage must be false), or its first page
// asked for backwards with exactly as many rows as precede the anchor
// (first: hasPreviousPage must be false). It returns the pages judged.
func exactFitProblems(st *pagedState, v *rule.Verdict, last bool) int {
	GinkgoHelper()
	rows := st.fwd.rows
	if last {
		// The row before the last k rows, and the k rows after it.
		tail := st.mustPage(url.Values{"pagination.last": {strconv.Itoa(st.size)}})
		if len(tail.rows) == 0 {
			v.Add(tail.ex, "pagination.last=%d gave no rows, but the listing has %d", st.size, len(rows))
			return 1
		}
		before := st.mustPage(url.Values{"pagination.last": {"1"}, "pagination.before": {tail.rows[0].cursor}})
		if len(before.rows) == 0 {
			return 0 // the listing fits in one page: no row precedes its tail
		}
		k := len(tail.rows)
		p := st.mustPage(url.Values{"pagination.first": {strconv.Itoa(k)}, "pagination.after": {before.rows[0].cursor}})
		if p.info.hasNext {
			v.Add(p.ex, "the listing's last %d rows, asked for with exactly pagination.first=%d after %s, say hasNextPage true", len(p.rows), k, before.rows[0].ident)
		}
		if !p.info.hasPrev {
			v.Add(p.ex, "the listing's last page says hasPreviousPage false, but %s precedes it", before.rows[0].ident)
		}
		return 1
	}
	// The first k rows, asked for backwards from the row after them.
	k := min(st.size, len(rows)-1)
	if k < 1 {
		return 0
	}
	p := st.mustPage(url.Values{"pagination.last": {strconv.Itoa(k)}, "pagination.before": {rows[k].cursor}})
	got, arrived := st.cut.settle(p.rows)
	if arrived {
		return 0 // rows that arrived since the walk now lead the listing
	}
	if p.info.hasPrev && !st.arrived() {
		v.Add(p.ex, "the listing's first %d rows, asked for with exactly pagination.last=%d before %s, say hasPreviousPage true", len(got), k, rows[k].ident)
	}
	if !p.info.hasNext {
		v.Add(p.ex, "the listing's first page, asked for backwards, says hasNextPage false, but %s follows it", rows[k].ident)
	}
	return 1
}

// orderProblems checks that each row of a walk stands in the right relation
// to the next.
func orderProblems(v *rule.Verdict, w *walk, inOrder func(a, b row) bool, what string) {
	v.Judged(max(0, len(w.rows)-1))
	for i := 1; i < len(w.rows); i++ {
		a, b := w.rows[i-1], w.rows[i]
		if a.keyErr != nil || b.keyErr != nil {
			bad := a
			if b.keyErr != nil {
				bad = b
			}
			v.Add(w.pageOf(i).ex, "row %d: %s", i, bad.ident)
			return
		}
		if !inOrder(a, b) {
			v.Add(w.pageOf(i).ex, "%s: row %d is %s, row %d is %s", what, i-1, a.ident, i, b.ident)
			if len(v.Problems) >= rule.MaxProblems {
				return
			}
		}
	}
}
