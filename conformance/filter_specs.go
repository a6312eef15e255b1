package conformance

import (
	"fmt"
	"net/url"
	"strings"

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
	query func(rows []row) (url.Values, string)
	// match says whether a record belongs in the filtered listing.
	match func(node map[string]any, q url.Values) bool
}

// filterState caches the filtered walks of one listing, shared by the
// filter rules of its ordered container.
type filterState struct {
	st    *pagedState
	walks map[string]*filteredWalk
}

type filteredWalk struct {
	q    url.Values
	w    *walk
	skip string
	// known is a row known to match the filter, wherever it was seen.
	known *row
}

// walkFor makes (once) the filtered walk of a filter.
func (fs *filterState) walkFor(f pagedFilter) *filteredWalk {
	if fw, ok := fs.walks[f.name]; ok {
		return fw
	}
	fw := &filteredWalk{}
	fs.walks[f.name] = fw
	if fs.st.fwd.err != nil {
		fw.skip = "the unfiltered walk broke off"
		return fw
	}
	fw.q, fw.skip = f.query(fs.st.fwd.rows)
	if fw.skip == "" {
		fw.w = fs.st.wk.forward(fw.q, fs.st.size, "")
	}
	return fw
}

// mustWalk returns the filtered walk, failing or skipping the spec when it
// cannot be made.
func (fs *filterState) mustWalk(f pagedFilter) *filteredWalk {
	GinkgoHelper()
	failWalk(fs.st.fwd)
	fw := fs.walkFor(f)
	if fw.skip != "" {
		rule.Skipf("%s", fw.skip)
	}
	failWalk(fw.w)
	return fw
}

// filterRules registers the rules of a listing's filters. noMatch is a
// query that matches no row (the rule is skipped if a row does match).
func filterRules(st *pagedState, filters []pagedFilter, noMatch url.Values) {
	fs := &filterState{st: st, walks: map[string]*filteredWalk{}}
	l := st.l
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
		v := rule.NewVerdict("every row of the %s listing filtered by %s to match it", l.label, fw.q.Encode())
		v.Judged(len(fw.w.rows))
		v.NoneBecause("the listing filtered by %s has no rows", fw.q.Encode())
		for i, r := range fw.w.rows {
			if !f.match(r.node, fw.q) {
				v.Add(fw.w.pageOf(i).ex, "row %d, %s, does not match %s", i, r.ident, fw.q.Encode())
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
		v := rule.NewVerdict("the %s listing filtered by %s to be the matching subset of the unfiltered listing (within the rows both walks reached)", l.label, fw.q.Encode())
		v.Judged(len(st.fwd.rows))
		if d := subsetDiff(l.compare, st.cut, fw.w, st.fwd, func(r row) bool { return f.match(r.node, fw.q) }); d != "" {
			v.Add(fw.w.pages[0].ex, "%s\n  the filtered walk's first page:", d)
		}
		v.Check()
	}, entries(exactlyMatching))

	rule.Define("a filter selects whole records, each with the cursor it has unfiltered", rule.Should, func() {
		st.rows(1)
		v := rule.NewVerdict("a filtered row to be the same record, with the same cursor, as in the unfiltered listing")
		byIdent := map[string]row{}
		for _, r := range st.fwd.rows {
			byIdent[r.ident] = r
		}
		checked := 0
		for _, f := range filters {
			fw := fs.walkFor(f)
			if fw.w == nil || fw.w.err != nil {
				continue
			}
			for i, r := range fw.w.rows {
				u, ok := byIdent[r.ident]
				if !ok {
					continue
				}
				checked++
				if ur, rr := compactJSON(u.raw), compactJSON(r.raw); ur != rr {
					v.Add(fw.w.pageOf(i).ex, "filtered by %s, %s differs from the unfiltered record:\n    filtered:   %s\n    unfiltered: %s",
						fw.q.Encode(), r.ident, clip(rr, 300), clip(ur, 300))
					break
				}
				if u.cursor != r.cursor {
					v.Add(fw.w.pageOf(i).ex, "filtered by %s, %s has cursor %q, unfiltered %q", fw.q.Encode(), r.ident, r.cursor, u.cursor)
					break
				}
			}
		}
		v.Judged(checked)
		v.NoneBecause("no filtered walk returned a row")
		v.Check()
	})

	rule.Define("a filter that matches nothing gives an empty page with hasNextPage and hasPreviousPage false", rule.CitePageInfo, func() {
		rows := st.rows(0)
		v := rule.NewVerdict("no edges and both flags false when no row matches %s", noMatch.Encode())
		p := st.mustPage(noMatch)
		v.Judged(1)
		for _, r := range rows {
			for _, pr := range p.rows {
				if pr.ident == r.ident {
					rule.Skipf("a row matches %s", noMatch.Encode())
				}
			}
		}
		if len(p.rows) != 0 {
			v.Add(p.ex, "%d rows, want none", len(p.rows))
		}
		if p.info.hasNext || p.info.hasPrev {
			v.Add(p.ex, "hasNextPage %v, hasPreviousPage %v", p.info.hasNext, p.info.hasPrev)
		}
		v.Check()
	})
}

// subsetDiff compares a filtered walk with the matching rows of the
// unfiltered walk, within the rows both reached (ordered by cmp), leaving
// out rows that arrived after the unfiltered walk began.
func subsetDiff(cmp func(a, b rowKey) int, cut cutoff, filtered, unfiltered *walk, match func(row) bool) string {
	var limit *rowKey
	for _, w := range []*walk{unfiltered, filtered} {
		if w.complete || len(w.rows) == 0 {
			continue
		}
		last := w.rows[len(w.rows)-1]
		if last.keyErr != nil {
			continue
		}
		if limit == nil || cmp(last.key, *limit) < 0 {
			k := last.key
			limit = &k
		}
	}
	within := func(r row) bool { return limit == nil || (r.keyErr == nil && cmp(r.key, *limit) <= 0) }
	var got, want []row
	settled, _ := cut.settle(filtered.rows)
	for _, r := range settled {
		if within(r) {
			got = append(got, r)
		}
	}
	for _, r := range unfiltered.rows {
		if within(r) && match(r) {
			want = append(want, r)
		}
	}
	return diffPrefix("filtered walk", got, true, "matching rows of the unfiltered walk", want, true)
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
func rotationsRules(st *pagedState) {
	rule.Area("filters", func() {
		filterRules(st, []pagedFilter{{
			name: "nodeId", lvl: rule.Must("4.3", "nodeId (string, optional; restricts to that node)"),
			query: func(rows []row) (url.Values, string) {
				if len(rows) == 0 {
					return nil, "the listing has no rows to take a node ID from"
				}
				id, _ := stringField(rows[len(rows)/2].node, "nodeId")
				return url.Values{"nodeId": {id}}, ""
			},
			match: func(n map[string]any, q url.Values) bool {
				id, _ := stringField(n, "nodeId")
				return id == q.Get("nodeId")
			},
		}}, url.Values{"nodeId": {zeroID}})
	})
}

// fmtEpochs writes an epoch window for messages.
func fmtEpochs(from, to uint64) string { return fmt.Sprintf("epochs %d..%d", from, to) }
