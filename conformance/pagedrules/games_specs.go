package pagedrules

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
)

// epochSpan is the spec's cap: at most 30 epochs per request, both ends
// inclusive, so epochTo - epochFrom is at most 29.
const epochSpan = 29

// Game record readers. A filter selects whole records by these.
func isIndividualGame(n map[string]any) bool { return paging.Object(n, "individual") != nil }
func isTeamGame(n map[string]any) bool       { return paging.Object(n, "team") != nil }

func teamEntries(n map[string]any) []map[string]any {
	var out []map[string]any
	for _, e := range paging.Array(paging.Object(n, "team"), "team") {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func gameTeamIDs(n map[string]any) []string {
	var out []string
	for _, e := range teamEntries(n) {
		if id, err := paging.StringField(paging.Object(e, "team"), "teamId"); err == nil {
			out = append(out, id)
		}
	}
	return out
}

func gameIndividuals(n map[string]any) []string {
	var out []string
	for _, e := range paging.Array(paging.Object(n, "individual"), "individual") {
		if m, ok := e.(map[string]any); ok {
			if p, err := paging.StringField(m, "individual"); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

func gameMembers(n map[string]any) []string {
	var out []string
	for _, e := range teamEntries(n) {
		for _, m := range paging.Array(paging.Object(e, "team"), "membersParticipating") {
			if mm, ok := m.(map[string]any); ok {
				if p, err := paging.StringField(mm, "individual"); err == nil {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// firstValue returns the first value pick gives for a row, or "".
func firstValue(rows []paging.Row, pick func(map[string]any) []string) string {
	for _, r := range rows {
		if vs := pick(r.Node); len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

const (
	scopeIndividuals = "ENTITY_SCOPE_INDIVIDUALS"
	scopeTeams       = "ENTITY_SCOPE_TEAMS"
	scopeUnspecified = "ENTITY_SCOPE_UNSPECIFIED"
)

// gameFilters are the filters of list games (spec 4.1).
func gameFilters() []pagedFilter {
	scoped := func(scope string) func(n map[string]any) bool {
		switch scope {
		case scopeIndividuals:
			return isIndividualGame
		case scopeTeams:
			return isTeamGame
		}
		return func(map[string]any) bool { return true }
	}
	scopeFilter := func(scope string) pagedFilter {
		return pagedFilter{
			name: "entityScope=" + scope, lvl: citeScope,
			query: func([]paging.Row) (url.Values, string) {
				return url.Values{"entityScope": {scope}}, ""
			},
			match: func(n map[string]any, _ url.Values) bool { return scoped(scope)(n) },
		}
	}
	teamFilter := func(name, scope string, lvl rule.Level, match func(n map[string]any, team string) bool) pagedFilter {
		return pagedFilter{
			name: name, lvl: lvl,
			query: func(rows []paging.Row) (url.Values, string) {
				team := firstValue(rows, gameTeamIDs)
				if team == "" {
					return nil, "no team game in the walk to take a team ID from"
				}
				q := url.Values{"teamId": {team}}
				if scope != "" {
					q.Set("entityScope", scope)
				}
				return q, ""
			},
			match: func(n map[string]any, q url.Values) bool { return match(n, q.Get("teamId")) },
		}
	}
	partyFilter := func(name, scope string, lvl rule.Level, pick func(map[string]any) []string, match func(n map[string]any, party string) bool) pagedFilter {
		return pagedFilter{
			name: name, lvl: lvl,
			query: func(rows []paging.Row) (url.Values, string) {
				party := firstValue(rows, pick)
				if party == "" {
					return nil, "no game in the walk has a party of that kind"
				}
				q := url.Values{"partyId": {party}}
				if scope != "" {
					q.Set("entityScope", scope)
				}
				return q, ""
			},
			match: func(n map[string]any, q url.Values) bool { return match(n, q.Get("partyId")) },
		}
	}
	return []pagedFilter{
		{
			name: "gameId", lvl: rule.Must("4.1", "Query filters (no request body): ... game ID"),
			query: func(rows []paging.Row) (url.Values, string) {
				if len(rows) == 0 {
					return nil, "the listing has no rows to take a game ID from"
				}
				id, _ := paging.StringField(rows[len(rows)/2].Node, "id")
				return url.Values{"gameId": {id}}, ""
			},
			match: func(n map[string]any, q url.Values) bool {
				id, _ := paging.StringField(n, "id")
				return id == q.Get("gameId")
			},
		},
		scopeFilter(scopeIndividuals),
		scopeFilter(scopeTeams),
		{
			name: "entityScope=" + scopeUnspecified + " (the default)", lvl: citeScope,
			query: func([]paging.Row) (url.Values, string) { return url.Values{"entityScope": {scopeUnspecified}}, "" },
			match: func(map[string]any, url.Values) bool { return true },
		},
		teamFilter("teamId", "", citeTeam, func(n map[string]any, team string) bool {
			return slices.Contains(gameTeamIDs(n), team)
		}),
		teamFilter("teamId with entityScope="+scopeTeams, scopeTeams, citeTeam, func(n map[string]any, team string) bool {
			return isTeamGame(n) && slices.Contains(gameTeamIDs(n), team)
		}),
		teamFilter("teamId with entityScope="+scopeIndividuals+" (teamId is ignored)", scopeIndividuals, citeTeam, func(n map[string]any, _ string) bool {
			return isIndividualGame(n)
		}),
		partyFilter("partyId with entityScope="+scopeIndividuals, scopeIndividuals, citeParty, gameIndividuals, func(n map[string]any, p string) bool {
			return isIndividualGame(n) && slices.Contains(gameIndividuals(n), p)
		}),
		partyFilter("partyId of a team member with entityScope="+scopeTeams+" (matches team members)", scopeTeams, citeParty, gameMembers, func(n map[string]any, p string) bool {
			return isTeamGame(n) && slices.Contains(gameMembers(n), p)
		}),
		partyFilter("partyId of a team member without entityScope (matches individuals and team members)", "", rule.Should, gameMembers, func(n map[string]any, p string) bool {
			return slices.Contains(gameIndividuals(n), p) || slices.Contains(gameMembers(n), p)
		}),
	}
}

// gamesRules adds the games filters and epoch window rules.
func gamesRules(st *paging.PagedState) {
	rule.Area("filters", func() {
		filterRules(st, gameFilters(), url.Values{"gameId": {zeroID}})
	})
	rule.Area("epochs", func() {
		epochRules(st)
	})
}

// The spec text the games filters rest on.
var (
	citeScope = rule.Must("4.1", "entity scope (enum EntityScope, default ENTITY_SCOPE_UNSPECIFIED)")
	citeTeam  = rule.Must("4.1", "the team ID filter applies only if entity scope is unspecified or teams")
	citeParty = rule.Must("4.1", "The party ID filter applies for any scope and, when the scope is teams, matches team members")
)

// epochWindow is a window asked for and the walk of its answer.
type epochWindow struct {
	q url.Values
	w *paging.Walk
}

func epochRules(st *paging.PagedState) {
	// latest is the newest epoch in the data: the default listing is newest
	// first and, by rule 1, ends at the latest epoch; rule 1's own spec
	// checks that nothing is newer.
	latest := func() uint64 {
		GinkgoHelper()
		rows := st.Rows(1)
		if rows[0].KeyErr != nil {
			rule.FailRule(fmt.Sprintf("the first game's epoch cannot be read: %v\n%s", rows[0].KeyErr, st.Fwd.Pages[0].Ex.Describe()))
		}
		return rows[0].Key.Num
	}
	window := func(pairs ...string) epochWindow {
		GinkgoHelper()
		q := paging.With(nil, pairs...)
		w := st.Walker.Forward(q, st.Size, "")
		paging.FailWalk(w)
		return epochWindow{q: q, w: w}
	}
	explicit := func(from, to uint64) epochWindow {
		GinkgoHelper()
		return window("epochFrom", u(from), "epochTo", u(to))
	}
	// same compares the answers to two windows; they are answers to
	// different queries, so games that share an epoch may come in another
	// order in each (the spec orders games by age alone).
	same := func(v *rule.Verdict, got, want epochWindow) {
		gotRows, _ := st.Cut.Settle(got.w.Rows)
		wantRows, _ := st.Cut.Settle(want.w.Rows)
		v.Judged(max(len(gotRows), len(wantRows)))
		if d := paging.DiffTiesOpen("answer to "+got.q.Encode(), gotRows, got.w.Complete, "answer to "+want.q.Encode(), wantRows, want.w.Complete); d != "" {
			ex := got.w.Pages[0].Ex
			v.Add(ex, "%s\n  the first page of %s:", d, got.q.Encode())
		}
	}
	within := func(v *rule.Verdict, got epochWindow, from, to uint64) {
		for i, r := range got.w.Rows {
			if r.KeyErr == nil && (r.Key.Num < from || r.Key.Num > to) {
				v.Add(got.w.PageOf(i).Ex, "%s is outside %s", r.Ident, fmtEpochs(from, to))
				return
			}
		}
	}
	defaultWindow := func() epochWindow {
		GinkgoHelper()
		paging.FailWalk(st.Fwd)
		return epochWindow{q: url.Values{}, w: st.Fwd}
	}

	rule.Define("rule 1: without epochTo the window ends at the latest epoch", rule.Must("8", "When the most recent epoch is omitted it is the latest epoch."), func() {
		l := latest()
		v := rule.NewVerdict("epochTo to default to the latest epoch (%d, the newest in the default answer): no game is newer, and the default answer equals epochTo=%d", l, l)
		newer := window("epochFrom", u(l+1))
		if len(newer.w.Rows) > 0 {
			v.Add(newer.w.Pages[0].Ex, "%s exists, newer than the default window's newest epoch %d", newer.w.Rows[0].Ident, l)
		}
		same(v, defaultWindow(), window("epochTo", u(l)))
		v.Check()
	})

	rule.Define("rule 2: without epochFrom the window starts 29 epochs before epochTo (or at the first epoch)", rule.Must("8", "When the oldest epoch is omitted it is the most recent epoch minus 29, or the first available epoch if fewer have elapsed."), func() {
		l := latest()
		v := rule.NewVerdict("epochFrom to default to epochTo - 29, never below the first epoch")
		same(v, defaultWindow(), explicit(sub(l, epochSpan), l))
		if l >= 10 {
			to := l - 10
			got := window("epochTo", u(to))
			same(v, got, explicit(sub(to, epochSpan), to))
			within(v, got, sub(to, epochSpan), to)
		}
		v.Check()
	})

	rule.Define("rule 3: with only epochFrom the window ends 29 epochs after it", rule.Must("8", "When only the oldest epoch is given, the most recent epoch becomes oldest plus 29."), func() {
		l := latest()
		from := sub(l, 40)
		v := rule.NewVerdict("epochFrom=%d alone to give %s", from, fmtEpochs(from, from+epochSpan))
		want := explicit(from, from+epochSpan)
		if len(want.w.Rows) == 0 {
			rule.Skipf("no game in %s", fmtEpochs(from, from+epochSpan))
		}
		got := window("epochFrom", u(from))
		same(v, got, want)
		within(v, got, from, from+epochSpan)
		v.Check()
	})

	rule.Define("rule 4: a window over 30 epochs keeps the 30 newest (epochFrom becomes epochTo - 29)", rule.Must("8", "When the oldest epoch is out of range (most recent minus oldest is greater than 29), the oldest epoch is set to most recent minus 29."), func() {
		l := latest()
		if l < epochSpan+1 {
			rule.Skipf("the latest epoch is %d: no window over 30 epochs fits", l)
		}
		from := sub(l, 40)
		v := rule.NewVerdict("epochFrom=%d&epochTo=%d to give %s", from, l, fmtEpochs(l-epochSpan, l))
		got := explicit(from, l)
		same(v, got, explicit(l-epochSpan, l))
		within(v, got, l-epochSpan, l)
		v.Check()
	})

	rule.Define("no answer spans more than 30 epochs", rule.CiteEpochLimit, func() {
		l := latest()
		v := rule.NewVerdict("at most 30 epochs per answer, both ends inclusive")
		older := explicit(sub(l, 2*epochSpan+1), sub(l, epochSpan+1))
		if len(older.w.Rows) == 0 && l > epochSpan {
			rule.Skipf("no game older than %s: the cap cannot show", fmtEpochs(l-epochSpan, l))
		}
		answers := []epochWindow{defaultWindow(), explicit(0, l), window("epochFrom", "0")}
		if l >= 5 {
			answers = append(answers, window("epochTo", u(l-5)))
		}
		for _, a := range answers {
			v.Judged(len(a.w.Rows))
			lo, hi, ok := epochRange(a.w.Rows)
			if ok && hi-lo > epochSpan {
				v.Add(a.w.Pages[0].Ex, "the answer to %q holds epochs %d to %d: %d epochs", a.q.Encode(), lo, hi, hi-lo+1)
			}
		}
		v.Check()
	})

	rule.Define("both ends of the window are inclusive", rule.CiteEpochLimit, func() {
		rows := st.Rows(1)
		mid := rows[len(rows)/2]
		if mid.KeyErr != nil {
			rule.FailRule(mid.Ident)
		}
		e := mid.Key.Num
		v := rule.NewVerdict("epochFrom=%d&epochTo=%d to give exactly the games of epoch %d", e, e, e)
		got := explicit(e, e)
		v.Judged(len(got.w.Rows))
		if d := paging.SubsetDiff(st.Listing.Compare, st.Cut, got.w, st.Fwd, func(r paging.Row) bool { return r.KeyErr == nil && r.Key.Num == e }); d != "" {
			v.Add(got.w.Pages[0].Ex, "%s", d)
		}
		v.Check()
	})

	rule.Define("epochFrom after epochTo gives the 30 epochs ending at epochTo", rule.Should, func() {
		l := latest()
		if l < 5 {
			rule.Skipf("the latest epoch is %d", l)
		}
		to := l - 5
		v := rule.NewVerdict("epochFrom=%d&epochTo=%d to give %s", l, to, fmtEpochs(sub(to, epochSpan), to))
		same(v, explicit(l, to), explicit(sub(to, epochSpan), to))
		v.Check()
	})
}

func u(n uint64) string { return strconv.FormatUint(n, 10) }

// sub is a - b, stopping at 0.
func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// epochRange returns the lowest and highest epoch of the rows.
func epochRange(rows []paging.Row) (lo, hi uint64, ok bool) {
	for _, r := range rows {
		if r.KeyErr != nil {
			continue
		}
		if !ok || r.Key.Num < lo {
			lo = r.Key.Num
		}
		if !ok || r.Key.Num > hi {
			hi = r.Key.Num
		}
		ok = true
	}
	return lo, hi, ok
}
