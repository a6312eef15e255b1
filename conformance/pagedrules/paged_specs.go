package pagedrules

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/chaindata/harness/conformance/answerrules"
	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
)

// describePaged registers the rules every paged listing shares; extra adds
// the listing's own (filters, epochs) inside the same ordered container, so
// they share its walks. The schema rules run last, over every answer the
// container received.
func describePaged(l *paging.PagedListing, extra func(st *paging.PagedState)) bool {
	return rule.Scope(l.Label, Ordered, ContinueOnFailure, func() {
		st := &paging.PagedState{Listing: l}
		BeforeAll(st.SetUp)

		rule.Area("pagination", func() {
			pagingRules(st)
		})
		if extra != nil {
			extra(st)
		}
		rule.Area("errors", func() {
			answerrules.PagedErrorRules(st)
		})
		rule.Area("schema", func() {
			var newest func() (uint64, *client.Exchange, bool)
			if l.BlockField != "" {
				newest = st.NewestBlock
			}
			answerrules.SchemaRules(l.Schema, l.Path, l.Cite, func() *client.Client { return st.Client }, true, newest)
		})
	})
}

// DeclarePagedRules declares the rules of the four paged listings (see
// conformance's declareSuite).
func DeclarePagedRules() {
	describePaged(paging.GamesListing, gamesRules)
	describePaged(paging.SnapshotsListing, nil)
	describePaged(paging.RotationsListing, rotationsRules)
	describePaged(paging.ParametersListing, nil)
}

func pagingRules(st *paging.PagedState) {
	l := st.Listing

	rule.Define("a forward walk (first/after) never repeats a row", rule.CiteForward, func() {
		rows := st.Rows(1)
		v := rule.NewVerdict("every row once in a walk over the listing")
		v.Judged(len(rows))
		if msg, i := paging.Repeats(rows); msg != "" {
			v.Add(st.Fwd.PageOf(i).Ex, "the %s repeats rows:\n%s\n  the first repeat is on this page:", st.Fwd.What, msg)
		}
		v.Check()
	})

	rule.Define("forward (first/after) and backward (last/before) walks return the same rows in the same order", rule.CiteBackward, func() {
		rows := st.Rows(1)
		v := rule.NewVerdict("paging backwards from the end gives the rows of the forward walk, none lost or repeated")
		v.Judged(len(rows))
		if st.Fwd.Complete {
			paging.FailWalk(st.Bwd)
			got, _ := st.Cut.Settle(st.Bwd.Rows)
			paging.WalkDiff(v, st.Bwd, got, st.Fwd, rows)
		} else {
			paging.FailWalk(st.BwdAnchored)
			got, _ := st.Cut.Settle(st.BwdAnchored.Rows)
			paging.WalkDiff(v, st.BwdAnchored, got, st.Fwd, rows[:len(rows)-1])
		}
		v.Check()
	})

	if l.Ordered {
		rule.Define(fmt.Sprintf("rows are newest first: %s never increases from row to row", l.Primary), rule.CiteNewest, func() {
			st.Rows(2)
			v := rule.NewVerdict("rows in newest-first order by %s (the default, newestFirst=true)", l.Primary)
			paging.OrderProblems(v, st.Fwd, func(a, b paging.Row) bool { return a.Key.Num >= b.Key.Num }, l.Primary+" increases")
			v.Check()
		})

		if l.Secondary != "" {
			rule.Define(fmt.Sprintf("rows with the same %s are ordered by %s ascending, and no two rows share a key", l.Primary, l.Secondary), rule.Should, func() {
				st.Rows(2)
				v := rule.NewVerdict("rows strictly in order: %s descending, then %s ascending", l.Primary, l.Secondary)
				paging.OrderProblems(v, st.Fwd, func(a, b paging.Row) bool { return l.Compare(a.Key, b.Key) < 0 }, "out of order")
				v.Check()
			})
		}

		rule.Define("newestFirst=true is the default", rule.CiteNewest, func() {
			st.Rows(1)
			v := rule.NewVerdict("pagination.newestFirst=true to give the same page as no newestFirst")
			p := st.MustPage(url.Values{"pagination.first": {strconv.Itoa(st.Size)}, "pagination.newestFirst": {"true"}})
			want := st.Fwd.Pages[0]
			got, arrived := st.Cut.Settle(p.Rows)
			v.Judged(len(got))
			if d := paging.DiffPrefix("newestFirst=true page", got, !arrived, "default page", want.Rows, true); d != "" {
				v.Add(p.Ex, "%s", d)
			}
			v.Check()
		})

		rule.Define(fmt.Sprintf("newestFirst=false returns the rows oldest first: %s never decreases from row to row, and no row is lost or added", l.Primary), rule.CiteNewest, func() {
			st.Rows(1)
			paging.FailWalk(st.Asc, st.Bwd)
			v := rule.NewVerdict("the newestFirst=false listing to hold the rows of the default listing, oldest first by %s", l.Primary)
			paging.OrderProblems(v, st.Asc, func(a, b paging.Row) bool { return a.Key.Num <= b.Key.Num }, l.Primary+" decreases")
			got, _ := st.Cut.Settle(st.Asc.Rows)
			want, _ := st.Cut.Settle(paging.Reversed(st.Bwd.Rows))
			v.Judged(len(got))
			if d := paging.SameRows(st.Asc.What, got, st.Asc.Complete, "reversed "+st.Bwd.What, want, st.Bwd.Complete); d != "" {
				v.Add(st.Asc.Pages[0].Ex, "%s\n  the walk's first page:", d)
			}
			v.Check()
		})

		rule.Define("newestFirst=false returns the same rows in exactly the reverse order, ties included", rule.Should, func() {
			st.Rows(1)
			paging.FailWalk(st.Asc, st.Bwd)
			v := rule.NewVerdict("the newestFirst=false listing to be the newestFirst=true listing reversed, rows that share a %s included", l.Primary)
			want, _ := st.Cut.Settle(paging.Reversed(st.Bwd.Rows))
			got, _ := st.Cut.Settle(st.Asc.Rows)
			v.Judged(len(got))
			if d := paging.DiffPrefix(st.Asc.What, got, st.Asc.Complete, "reversed "+st.Bwd.What, want, st.Bwd.Complete); d != "" {
				v.Add(st.Asc.Pages[0].Ex, "%s\n  the walk's first page:", d)
			}
			v.Check()
		})
	} else {
		rule.Define("rows are in key order A to Z", rule.Should, func() {
			st.Rows(2)
			v := rule.NewVerdict("network parameters in key order, A to Z")
			paging.OrderProblems(v, st.Fwd, func(a, b paging.Row) bool { return a.Key.Str < b.Key.Str }, "out of key order")
			v.Check()
		})

		rule.Define("newestFirst=false is ignored: rows stay in key order", rule.Should, func() {
			rows := st.Rows(1)
			paging.FailWalk(st.Asc)
			v := rule.NewVerdict("the same rows whatever newestFirst says, as network parameters have no age")
			v.Judged(len(st.Asc.Rows))
			if d := paging.DiffPrefix(st.Asc.What, st.Asc.Rows, st.Asc.Complete, st.Fwd.What, rows, st.Fwd.Complete); d != "" {
				v.Add(st.Asc.Pages[0].Ex, "%s\n  the walk's first page:", d)
			}
			v.Check()
		})
	}

	rule.Define("a request without pagination parameters starts with the listing's first rows", rule.CiteNewest, func() {
		rows := st.Rows(1)
		v := rule.NewVerdict("the first rows of the listing in default order")
		p := st.MustPage(nil)
		got, arrived := st.Cut.Settle(p.Rows)
		v.Judged(len(got))
		if len(p.Rows) == 0 {
			v.Add(p.Ex, "the page is empty, but the listing has rows")
		} else if d := paging.DiffPrefix("page without parameters", got, !p.Info.HasNext && !arrived, st.Fwd.What, rows, st.Fwd.Complete); d != "" {
			v.Add(p.Ex, "%s", d)
		}
		v.Check()
	})

	rule.Define("first=N returns N rows while enough rows remain", rule.CiteForward, func() {
		rows := st.Rows(1)
		v := rule.NewVerdict("pagination.first=N to give exactly N rows, or every remaining row when fewer remain")
		v.Judged(len(st.Fwd.Pages))
		for i, p := range st.Fwd.Pages {
			final := i == len(st.Fwd.Pages)-1 && st.Fwd.Complete
			if len(p.Rows) != st.Size && !(final && len(p.Rows) < st.Size) {
				v.Add(p.Ex, "page %d of the %s has %d rows, want %d", i+1, st.Fwd.What, len(p.Rows), st.Size)
			}
		}
		for _, n := range []int{1, 2, 3} {
			if n > len(rows) && st.Fwd.Complete || n > st.Config.PageSize {
				break
			}
			p := st.MustPage(url.Values{"pagination.first": {strconv.Itoa(n)}})
			v.Judged(1)
			if len(p.Rows) != n {
				v.Add(p.Ex, "pagination.first=%d gave %d rows", n, len(p.Rows))
			}
		}
		v.Check()
	})

	rule.Define("last=N returns N rows while enough rows remain", rule.CiteBackward, func() {
		rows := st.Rows(1)
		paging.FailWalk(st.Bwd)
		v := rule.NewVerdict("pagination.last=N to give exactly N rows, or every remaining row when fewer remain")
		v.Judged(len(st.Bwd.Pages))
		for i, p := range st.Bwd.Pages {
			final := i == len(st.Bwd.Pages)-1 && st.Bwd.Complete
			if len(p.Rows) != st.BSize && !(final && len(p.Rows) < st.BSize) {
				v.Add(p.Ex, "page %d of the %s has %d rows, want %d", i+1, st.Bwd.What, len(p.Rows), st.BSize)
			}
		}
		for _, n := range []int{1, 2, 3} {
			if n > len(rows) && st.Fwd.Complete || n > st.Config.PageSize {
				break
			}
			p := st.MustPage(url.Values{"pagination.last": {strconv.Itoa(n)}})
			v.Judged(1)
			if len(p.Rows) != n {
				v.Add(p.Ex, "pagination.last=%d gave %d rows", n, len(p.Rows))
			}
		}
		v.Check()
	})

	rule.Define("startCursor and endCursor are the cursors of the page's first and last edges", rule.CiteCursors, func() {
		st.Rows(1)
		v := rule.NewVerdict("pageInfo.startCursor = cursor of the first edge, pageInfo.endCursor = cursor of the last edge")
		for _, w := range []*paging.Walk{st.Fwd, st.Bwd, st.Asc} {
			for i, p := range w.Pages {
				if len(p.Rows) == 0 {
					continue
				}
				v.Judged(1)
				first, last := p.Rows[0].Cursor, p.Rows[len(p.Rows)-1].Cursor
				if p.Info.StartCursor != first || p.Info.EndCursor != last {
					v.Add(p.Ex, "page %d of the %s: startCursor %q and endCursor %q, but the edges' cursors run from %q to %q",
						i+1, w.What, p.Info.StartCursor, p.Info.EndCursor, first, last)
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
			rows := st.Rows(1)
			v := rule.NewVerdict("hasNextPage true exactly when rows follow the page, hasPreviousPage true exactly when rows precede it (%s page)", pos)
			ref := st.Reference()
			report := func(p string, ex *client.Exchange, msg string) {
				if p == pos {
					v.Add(ex, "%s", msg)
				}
			}
			for _, w := range []*paging.Walk{st.Fwd, st.Asc} {
				paging.FailWalk(w)
				if w == st.Asc && !ascInReferenceOrder(st) {
					continue
				}
				v.Judged(paging.PageFlagProblems(w, ref, false, pos, report))
			}
			switch pos {
			case "first":
				v.Judged(exactFitProblems(st, v, false))
			case "last":
				v.Judged(exactFitProblems(st, v, true))
			}
			if pos == "middle" {
				v.NoneBecause("the %s listing has %d rows: the walks have no middle page", l.Label, len(rows))
			}
			v.Check()
		})
	}
	flagRule("first", "the first page has hasPreviousPage false, and hasNextPage true exactly when more rows follow")
	flagRule("middle", "middle pages have hasPreviousPage and hasNextPage true")
	flagRule("last", "the last page has hasNextPage false, and hasPreviousPage true when rows precede it")

	rule.Define("pages fetched backwards (last/before) have hasPreviousPage and hasNextPage true exactly when rows precede and follow them", rule.CitePageInfo, func() {
		st.Rows(1)
		paging.FailWalk(st.Bwd)
		v := rule.NewVerdict("the same meaning of hasNextPage and hasPreviousPage when paging backwards, on at least three backward pages")
		ref := st.Reference()
		report := func(_ string, ex *client.Exchange, msg string) { v.Add(ex, "%s", msg) }
		v.Judged(paging.PageFlagProblems(st.Bwd, ref, true, "", report))
		// A listing larger than the walks reach: the backward walk from
		// the end never meets the forward walk from the start, so the
		// backward walk anchored at the forward walk's last row shows the
		// rule, at any size.
		if st.BwdAnchored != nil {
			paging.FailWalk(st.BwdAnchored)
			v.Judged(paging.PageFlagProblems(st.BwdAnchored, ref, true, "", report))
		}
		if len(st.Bwd.Pages) < 3 && len(ref.Rows) >= 3 && v.OK() {
			v.Add(st.Bwd.Pages[len(st.Bwd.Pages)-1].Ex, "the %s ended after %d page(s), but the listing holds %d rows: the last page's hasPreviousPage ended it early", st.Bwd.What, len(st.Bwd.Pages), len(ref.Rows))
		}
		v.Check()
	})

	rule.Define("the empty pages beyond either end have no edges, hasNextPage false after the last row and hasPreviousPage false before the first", rule.CitePageInfo, func() {
		rows := st.Rows(1)
		v := rule.NewVerdict("an empty page with no further page in its direction")
		v.Judged(2)
		last := st.LastRow()
		p := st.MustPage(url.Values{"pagination.first": {strconv.Itoa(st.Size)}, "pagination.after": {last.Cursor}})
		if len(p.Rows) != 0 {
			v.Add(p.Ex, "the page after the last row (%s) has %d rows, want none", last.Ident, len(p.Rows))
		}
		if p.Info.HasNext {
			v.Add(p.Ex, "the page after the last row says hasNextPage true")
		}
		p = st.MustPage(url.Values{"pagination.last": {strconv.Itoa(st.Size)}, "pagination.before": {rows[0].Cursor}})
		// Rows that arrived since the walk began may now precede it.
		if older, arrived := st.Cut.Settle(p.Rows); len(older) != 0 {
			v.Add(p.Ex, "the page before the first row (%s) has %d rows, want none", rows[0].Ident, len(older))
		} else if p.Info.HasPrev && !arrived {
			v.Add(p.Ex, "the page before the first row says hasPreviousPage true")
		}
		v.Check()
	})

	rule.Define("an empty page has empty cursors and says rows exist on its anchor's side", rule.Should, func() {
		rows := st.Rows(1)
		v := rule.NewVerdict(`startCursor and endCursor "" on an empty page, and hasPreviousPage (after the last row) or hasNextPage (before the first row) true`)
		v.Judged(2)
		last := st.LastRow()
		p := st.MustPage(url.Values{"pagination.first": {strconv.Itoa(st.Size)}, "pagination.after": {last.Cursor}})
		if p.Info.StartCursor != "" || p.Info.EndCursor != "" || !p.Info.HasPrev {
			v.Add(p.Ex, "the empty page after the last row has startCursor %q, endCursor %q, hasPreviousPage %v",
				p.Info.StartCursor, p.Info.EndCursor, p.Info.HasPrev)
		}
		p = st.MustPage(url.Values{"pagination.last": {strconv.Itoa(st.Size)}, "pagination.before": {rows[0].Cursor}})
		if _, arrived := st.Cut.Settle(p.Rows); !arrived && (p.Info.StartCursor != "" || p.Info.EndCursor != "" || !p.Info.HasNext) {
			v.Add(p.Ex, "the empty page before the first row has startCursor %q, endCursor %q, hasNextPage %v",
				p.Info.StartCursor, p.Info.EndCursor, p.Info.HasNext)
		}
		v.Check()
	})

	rule.Define("after=C with first=N resumes with the N rows right after C", rule.CiteForward, func() {
		rows := st.Rows(2)
		v := rule.NewVerdict("pagination.after=C&pagination.first=N to give the N rows that follow C in the listing")
		k := min(3, st.Size)
		for _, i := range paging.ResumeAnchors(len(rows)) {
			want := rows[i+1 : min(len(rows), i+1+k)]
			p := st.MustPage(url.Values{"pagination.first": {strconv.Itoa(k)}, "pagination.after": {rows[i].Cursor}})
			v.Judged(1)
			complete := st.Fwd.Complete || i+1+k <= len(rows)
			if d := paging.DiffPrefix("page after "+rows[i].Ident, p.Rows, true, "forward walk", want, complete); d != "" {
				v.Add(p.Ex, "%s", d)
			}
		}
		v.Check()
	})

	rule.Define("before=C with last=N resumes with the N rows right before C", rule.CiteBackward, func() {
		rows := st.Rows(2)
		v := rule.NewVerdict("pagination.before=C&pagination.last=N to give the N rows that precede C in the listing")
		k := min(3, st.Size)
		for _, i := range paging.ResumeAnchors(len(rows)) {
			i++ // anchors 1..n-1: a row with rows before it
			if i >= len(rows) {
				continue
			}
			want := rows[max(0, i-k):i]
			p := st.MustPage(url.Values{"pagination.last": {strconv.Itoa(k)}, "pagination.before": {rows[i].Cursor}})
			v.Judged(1)
			got, _ := st.Cut.Settle(p.Rows)
			if d := paging.DiffPrefix("page before "+rows[i].Ident, got, true, "forward walk", want, true); d != "" {
				v.Add(p.Ex, "%s", d)
			}
		}
		v.Check()
	})

	rule.Define("a cursor without a count pages in its direction with the default page size", rule.Should, func() {
		rows := st.Rows(3)
		v := rule.NewVerdict("pagination.after=C alone to give the rows after C, pagination.before=C alone the rows before C")
		v.Judged(2)
		i := len(rows) / 2
		p := st.MustPage(url.Values{"pagination.after": {rows[i].Cursor}})
		after := rows[i+1:]
		if len(p.Rows) == 0 && len(after) > 0 {
			v.Add(p.Ex, "pagination.after alone gave no rows, but %s follows the cursor", after[0].Ident)
		} else if d := paging.DiffPrefix("page after "+rows[i].Ident, p.Rows, !p.Info.HasNext, "forward walk", after, st.Fwd.Complete); d != "" {
			v.Add(p.Ex, "%s", d)
		}
		p = st.MustPage(url.Values{"pagination.before": {rows[i].Cursor}})
		before := rows[:i]
		got, _ := st.Cut.Settle(p.Rows)
		if len(got) == 0 {
			v.Add(p.Ex, "pagination.before alone gave no rows, but %s precedes the cursor", before[len(before)-1].Ident)
		} else if len(got) > len(before) {
			v.Add(p.Ex, "pagination.before alone gave %d rows, but only %d precede the cursor", len(got), len(before))
		} else if d := paging.DiffPrefix("page before "+rows[i].Ident, got, true, "forward walk", before[len(before)-len(got):], true); d != "" {
			v.Add(p.Ex, "%s", d)
		}
		v.Check()
	})

	rule.Define("a row keeps its cursor whatever the page size and direction", rule.Should, func() {
		st.Rows(1)
		v := rule.NewVerdict("the same cursor for the same row in every answer")
		p := st.MustPage(url.Values{"pagination.first": {strconv.Itoa(min(3, st.Size))}})
		cursors := map[string]string{}
		for _, r := range st.Fwd.Rows {
			cursors[r.Ident] = r.Cursor
		}
		check := func(what string, ex *client.Exchange, rows []paging.Row) {
			for _, r := range rows {
				if _, ok := cursors[r.Ident]; ok {
					v.Judged(1)
				}
				if c, ok := cursors[r.Ident]; ok && c != r.Cursor {
					v.Add(ex, "%s has cursor %q in the %s but %q in the forward walk", r.Ident, r.Cursor, what, c)
					return
				}
			}
		}
		check("page of 3", p.Ex, p.Rows)
		for _, bp := range st.Bwd.Pages {
			check(st.Bwd.What, bp.Ex, bp.Rows)
		}
		v.Check()
	})
}

// ascInReferenceOrder reports whether the newestFirst=false walk lists the
// rows in the forward walk's order, so that its pages' flags can be judged
// against it. It does not for an ordered listing (it is the reverse), nor
// for network parameters served in another order under newestFirst=false:
// they have no age, so the spec fixes no order for them either way
// (docs/behaviour.md's "newestFirst is ignored" is a SHOULD rule's).
func ascInReferenceOrder(st *paging.PagedState) bool {
	if st.Listing.Ordered {
		return false
	}
	return paging.DiffPrefix(st.Asc.What, st.Asc.Rows, st.Asc.Complete, st.Fwd.What, st.Fwd.Rows, st.Fwd.Complete) == ""
}

// exactFitProblems constructs the pages whose flags are easiest to get
// wrong and checks them: the listing's last page asked for with exactly as
// many rows as remain (last: hasNextPage must be false), or its first page
// asked for backwards with exactly as many rows as precede the anchor
// (first: hasPreviousPage must be false). It returns the pages judged.
func exactFitProblems(st *paging.PagedState, v *rule.Verdict, last bool) int {
	GinkgoHelper()
	rows := st.Fwd.Rows
	if last {
		// The row before the last k rows, and the k rows after it.
		tail := st.MustPage(url.Values{"pagination.last": {strconv.Itoa(st.Size)}})
		if len(tail.Rows) == 0 {
			v.Add(tail.Ex, "pagination.last=%d gave no rows, but the listing has %d", st.Size, len(rows))
			return 1
		}
		before := st.MustPage(url.Values{"pagination.last": {"1"}, "pagination.before": {tail.Rows[0].Cursor}})
		if len(before.Rows) == 0 {
			return 0 // the listing fits in one page: no row precedes its tail
		}
		k := len(tail.Rows)
		p := st.MustPage(url.Values{"pagination.first": {strconv.Itoa(k)}, "pagination.after": {before.Rows[0].Cursor}})
		if p.Info.HasNext {
			v.Add(p.Ex, "the listing's last %d rows, asked for with exactly pagination.first=%d after %s, say hasNextPage true", len(p.Rows), k, before.Rows[0].Ident)
		}
		if !p.Info.HasPrev {
			v.Add(p.Ex, "the listing's last page says hasPreviousPage false, but %s precedes it", before.Rows[0].Ident)
		}
		return 1
	}
	// The first k rows, asked for backwards from the row after them.
	k := min(st.Size, len(rows)-1)
	if k < 1 {
		return 0
	}
	p := st.MustPage(url.Values{"pagination.last": {strconv.Itoa(k)}, "pagination.before": {rows[k].Cursor}})
	got, arrived := st.Cut.Settle(p.Rows)
	if arrived {
		return 0 // rows that arrived since the walk now lead the listing
	}
	if p.Info.HasPrev && !st.Arrived() {
		v.Add(p.Ex, "the listing's first %d rows, asked for with exactly pagination.last=%d before %s, say hasPreviousPage true", len(got), k, rows[k].Ident)
	}
	if !p.Info.HasNext {
		v.Add(p.Ex, "the listing's first page, asked for backwards, says hasNextPage false, but %s follows it", rows[k].Ident)
	}
	return 1
}
