package pagedrules

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
)

// pagedFilter is one filter of a paged listing, checked against the
// unfiltered walk.
type pagedFilter struct {
	name string
	// lvl is the filter's level: the spec text it rests on, or should.
	lvl rule.Level
	// query chooses the filter's parameters from the unfiltered rows, or
	// says why the data has nothing to choose.
	query func(rows []paging.Row) (url.Values, string)
	// match says whether a record belongs in the filtered listing.
	match func(node map[string]any, q url.Values) bool
}

// filterState caches the filtered walks of one listing, shared by the
// filter rules of its ordered container.
type filterState struct {
	st    *paging.PagedState
	walks map[string]*paging.FilteredWalk
}

// walkFor makes (once) the filtered walk of a filter.
func (fs *filterState) walkFor(f pagedFilter) *paging.FilteredWalk {
	if fw, ok := fs.walks[f.name]; ok {
		return fw
	}
	fw := &paging.FilteredWalk{}
	fs.walks[f.name] = fw
	if fs.st.Fwd.Err != nil {
		fw.Skip = "the unfiltered walk broke off"
		return fw
	}
	fw.Query, fw.Skip = f.query(fs.st.Fwd.Rows)
	if fw.Skip == "" {
		fw.Walk = fs.st.Walker.Forward(fw.Query, fs.st.Size, "")
	}
	return fw
}

// mustWalk returns the filtered walk, failing or skipping the spec when it
// cannot be made.
func (fs *filterState) mustWalk(f pagedFilter) *paging.FilteredWalk {
	GinkgoHelper()
	paging.FailWalk(fs.st.Fwd)
	fw := fs.walkFor(f)
	if fw.Skip != "" {
		rule.Skipf("%s", fw.Skip)
	}
	paging.FailWalk(fw.Walk)
	return fw
}

// filterRules registers the rules of a listing's filters. noMatch is a
// query that matches no row (the rule is skipped if a row does match).
func filterRules(st *paging.PagedState, filters []pagedFilter, noMatch url.Values) {
	fs := &filterState{st: st, walks: map[string]*paging.FilteredWalk{}}
	l := st.Listing
	entries := func(table string) []TableEntry {
		var out []TableEntry
		for _, f := range filters {
			out = append(out, rule.DefineEntry(table, f.name, f.lvl, f))
		}
		return out
	}

	const onlyMatching = "returns only rows that match the filter:"
	DescribeTable(onlyMatching, func(f pagedFilter) {
		fw := fs.mustWalk(f)
		v := rule.NewVerdict("every row of the %s listing filtered by %s to match it", l.Label, fw.Query.Encode())
		v.Judged(len(fw.Walk.Rows))
		v.NoneBecause("the listing filtered by %s has no rows", fw.Query.Encode())
		for i, r := range fw.Walk.Rows {
			if !f.match(r.Node, fw.Query) {
				v.Add(fw.Walk.PageOf(i).Ex, "row %d, %s, does not match %s", i, r.Ident, fw.Query.Encode())
				if len(v.Problems) >= rule.MaxProblems {
					break
				}
			}
		}
		v.Check()
	}, entries(onlyMatching))

	const exactlyMatching = "returns exactly the matching rows of the unfiltered listing, in order:"
	DescribeTable(exactlyMatching, func(f pagedFilter) {
		fw := fs.mustWalk(f)
		v := rule.NewVerdict("the %s listing filtered by %s to be the matching subset of the unfiltered listing, in its order by %s (within the rows both walks reached; rows that share it in any order)", l.Label, fw.Query.Encode(), orderKey(l))
		v.Judged(len(st.Fwd.Rows))
		if d := paging.SubsetDiff(l.Compare, st.Cut, fw.Walk, st.Fwd, func(r paging.Row) bool { return f.match(r.Node, fw.Query) }); d != "" {
			v.Add(fw.Walk.Pages[0].Ex, "%s\n  the filtered walk's first page:", d)
		}
		v.Check()
	}, entries(exactlyMatching))

	rule.Define("a filter selects whole records, each with the cursor it has unfiltered", rule.Should, func() {
		st.Rows(1)
		v := rule.NewVerdict("a filtered row to be the same record, with the same cursor, as in the unfiltered listing")
		byIdent := map[string]paging.Row{}
		for _, r := range st.Fwd.Rows {
			byIdent[r.Ident] = r
		}
		checked := 0
		for _, f := range filters {
			fw := fs.walkFor(f)
			if fw.Walk == nil || fw.Walk.Err != nil {
				continue
			}
			for i, r := range fw.Walk.Rows {
				u, ok := byIdent[r.Ident]
				if !ok {
					continue
				}
				checked++
				if ur, rr := u.Compact(), r.Compact(); ur != rr {
					v.Add(fw.Walk.PageOf(i).Ex, "filtered by %s, %s differs from the unfiltered record:\n    filtered:   %s\n    unfiltered: %s",
						fw.Query.Encode(), r.Ident, clip(rr, 300), clip(ur, 300))
					break
				}
				if u.Cursor != r.Cursor {
					v.Add(fw.Walk.PageOf(i).Ex, "filtered by %s, %s has cursor %q, unfiltered %q", fw.Query.Encode(), r.Ident, r.Cursor, u.Cursor)
					break
				}
			}
		}
		v.Judged(checked)
		v.NoneBecause("no filtered walk returned a row")
		v.Check()
	})

	rule.Define("a filter that matches nothing gives an empty page with hasNextPage and hasPreviousPage false", rule.CitePageInfo, func() {
		rows := st.Rows(0)
		v := rule.NewVerdict("no edges and both flags false when no row matches %s", noMatch.Encode())
		p := st.MustPage(noMatch)
		v.Judged(1)
		for _, r := range rows {
			for _, pr := range p.Rows {
				if pr.Ident == r.Ident {
					rule.Skipf("a row matches %s", noMatch.Encode())
				}
			}
		}
		if len(p.Rows) != 0 {
			v.Add(p.Ex, "%d rows, want none", len(p.Rows))
		}
		if p.Info.HasNext || p.Info.HasPrev {
			v.Add(p.Ex, "hasNextPage %v, hasPreviousPage %v", p.Info.HasNext, p.Info.HasPrev)
		}
		v.Check()
	})
}

// orderKey names the key a listing's order is judged by at MUST.
func orderKey(l *paging.PagedListing) string {
	if l.Primary == "" {
		return l.Secondary
	}
	return l.Primary
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// zeroID is a 64-hex ID no real record has.
var zeroID = strings.Repeat("0", 64)

// rotationsRules adds the key rotations' nodeId filter.
func rotationsRules(st *paging.PagedState) {
	rule.Area("filters", func() {
		filterRules(st, []pagedFilter{{
			name: "nodeId", lvl: rule.Must("4.3", "nodeId (string, optional; restricts to that node)"),
			query: func(rows []paging.Row) (url.Values, string) {
				if len(rows) == 0 {
					return nil, "the listing has no rows to take a node ID from"
				}
				id, _ := paging.StringField(rows[len(rows)/2].Node, "nodeId")
				return url.Values{"nodeId": {id}}, ""
			},
			match: func(n map[string]any, q url.Values) bool {
				id, _ := paging.StringField(n, "nodeId")
				return id == q.Get("nodeId")
			},
		}}, url.Values{"nodeId": {zeroID}})
	})
}

// fmtEpochs writes an epoch window for messages.
func fmtEpochs(from, to uint64) string { return fmt.Sprintf("epochs %d..%d", from, to) }
