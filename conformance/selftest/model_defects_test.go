package selftest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// modelDefects are defects that break the spec the way a real
// implementation plausibly might, in requests the hand-written rules do not
// send or in ways that agree with themselves: each is caught by a model
// rule, which judges every answer against the deployment's own data.
func modelDefects() []defect {
	return []defect{
		{
			name: "filter-after-the-page-is-cut", listing: "games", area: "model",
			what: "partyId and teamId are applied after the page is cut, so a filtered page holds fewer rows than asked for",
			rule: "GAMES-MOD-005", // as many rows as the model selects (MUST)
			wrap: filterAfterPage(gamesPath, "partyId", "teamId"),
		},
		{
			name: "teams-scope-drops-party", listing: "games", area: "model",
			what: "with entityScope=ENTITY_SCOPE_TEAMS the partyId filter is dropped",
			rule: "GAMES-MOD-003", // the rows the model selects (MUST)
			wrap: dropWhen(gamesPath, func(q url.Values) bool { return q.Get("entityScope") == "ENTITY_SCOPE_TEAMS" }, "partyId"),
		},
		{
			name: "epoch-from-alone-spans-31", listing: "games", area: "model",
			what: "with only epochFrom given, epochTo becomes epochFrom+30 and the window shifts by one epoch",
			rule: "GAMES-MOD-003",
			wrap: rewrite(gamesPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if from, err := strconv.ParseUint(q.Get("epochFrom"), 10, 64); err == nil && !q.Has("epochTo") {
					q.Set("epochTo", strconv.FormatUint(from+30, 10))
				}
				return q
			}, nil),
		},
		{
			name: "epoch-clamp-keeps-the-oldest", listing: "games", area: "model",
			what: "a window wider than 30 epochs is cut at its newest end (epochTo becomes epochFrom+29), not at its oldest",
			rule: "GAMES-MOD-003",
			wrap: rewrite(gamesPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				from, err1 := strconv.ParseUint(q.Get("epochFrom"), 10, 64)
				to, err2 := strconv.ParseUint(q.Get("epochTo"), 10, 64)
				if err1 == nil && err2 == nil && to > from && to-from > 29 {
					q.Set("epochTo", strconv.FormatUint(from+29, 10))
				}
				return q
			}, nil),
		},
		{
			name: "team-filter-under-individuals", listing: "games", area: "model",
			what: "teamId is applied under entityScope=ENTITY_SCOPE_INDIVIDUALS, where it must be ignored, so nothing matches",
			rule: "GAMES-MOD-003",
			wrap: rewrite(gamesPath, nil, func(q url.Values, a *answer) {
				if q.Get("entityScope") == "ENTITY_SCOPE_INDIVIDUALS" && q.Has("teamId") {
					if c := conn(a); c != nil {
						setEdges(c, nil)
					}
				}
			}),
		},
		{
			name: "snake-case-ignored", listing: "games", area: "model",
			what: "the snake_case spellings docs/behaviour.md accepts (epoch_from, party_id, ...) are ignored",
			rule: "GAMES-MOD-004", // the rows behaviour.md selects (SHOULD)
			wrap: rewrite(gamesPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				for k := range q {
					if strings.Contains(k, "_") {
						q.Del(k)
					}
				}
				return q
			}, nil),
		},
		{
			name: "exact-fit-has-next", listing: "snapshots", area: "model",
			what: "a full page that ends at the listing's last row says hasNextPage true",
			rule: "SNAP-MOD-007", // hasNextPage as the model says (MUST)
			wrap: rewrite(snapshotsPath, nil, func(q url.Values, a *answer) {
				n, err := strconv.Atoi(q.Get("pagination.first"))
				if c := conn(a); err == nil && c != nil && len(edges(c)) == n && n > 0 {
					pageInfo(c)["hasNextPage"] = true
				}
			}),
		},
		{
			name: "last-alone-reads-from-the-newest", listing: "snapshots", area: "model",
			what: "pagination.last=N without a cursor returns the newest N rows, as first=N does",
			rule: "SNAP-MOD-003",
			wrap: rewrite(snapshotsPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if q.Has("pagination.last") && !q.Has("pagination.before") && !q.Has("pagination.first") {
					q.Set("pagination.first", q.Get("pagination.last"))
					q.Del("pagination.last")
				}
				return q
			}, nil),
		},
		{
			name: "oldest-first-no-previous", listing: "snapshots", area: "model",
			what: "with newestFirst=false, hasPreviousPage is always false",
			rule: "SNAP-MOD-009", // hasPreviousPage as the model says (MUST)
			wrap: rewrite(snapshotsPath, nil, func(q url.Values, a *answer) {
				if q.Get("pagination.newestFirst") == "false" {
					if c := conn(a); c != nil {
						pageInfo(c)["hasPreviousPage"] = false
					}
				}
			}),
		},
		{
			name: "cursor-of-another-node-ignored", listing: "key-rotations", area: "model",
			what: "under nodeId, a cursor of another node's row is ignored and the page starts at the beginning",
			rule: "ROT-MOD-003",
			wrap: rewrite(rotationsPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				node := q.Get("nodeId")
				for _, p := range []string{"pagination.after", "pagination.before"} {
					if c := q.Get(p); node != "" && c != "" && cursorField(c, "nodeId") != node {
						q.Del(p)
					}
				}
				return q
			}, nil),
		},
		{
			name: "filtered-previous-from-the-whole-listing", listing: "key-rotations", area: "model",
			what: "under nodeId, a page asked with a cursor says hasPreviousPage true, as the unfiltered listing would",
			rule: "ROT-MOD-010",
			wrap: rewrite(rotationsPath, nil, func(q url.Values, a *answer) {
				if q.Has("nodeId") && (q.Has("pagination.before") || q.Has("pagination.after")) {
					if c := conn(a); c != nil {
						pageInfo(c)["hasPreviousPage"] = true
					}
				}
			}),
		},
		{
			name: "first-one-gives-two", listing: "network-parameters", area: "model",
			what: "pagination.first=1 returns two rows",
			rule: "PARAM-MOD-005",
			wrap: rewrite(parametersPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if q.Get("pagination.first") == "1" {
					q.Set("pagination.first", "2")
				}
				return q
			}, nil),
		},
		{
			name: "before-includes-its-row", listing: "network-parameters", area: "model",
			what: "last=N&before=C ends with row C itself",
			rule: "PARAM-MOD-003",
			wrap: rewrite(parametersPath, func(q url.Values, fetch func(url.Values) *answer) url.Values {
				if c := q.Get("pagination.before"); c != "" && q.Has("pagination.last") {
					if next := neighbour(fetch, q, "pagination.first", "pagination.after", c); next != "" {
						q.Set("pagination.before", next)
					} else {
						q.Del("pagination.before")
					}
				}
				return q
			}, nil),
		},
		{
			name: "types-drop-parties", listing: "transactions", area: "model",
			what: "cmdTypes together with parties drops the parties filter",
			rule: "TX-MOD-003",
			wrap: dropWhen(transactionPath, func(q url.Values) bool { return q.Has("cmdTypes") }, "parties"),
		},
		{
			name: "first-after-takes-the-farthest", listing: "transactions", area: "model",
			what: "first=N&after=C returns the N newest transactions after C, not the N closest to it",
			rule: "TX-MOD-003",
			wrap: dropWhen(transactionPath, func(q url.Values) bool { return q.Has("after") && q.Has("first") && !q.Has("before") }, "after"),
		},
		{
			name: "last-before-from-the-oldest", listing: "transactions", area: "model",
			what: "last=N&before=C returns the N oldest transactions, whatever C",
			rule: "TX-MOD-003",
			wrap: dropWhen(transactionPath, func(q url.Values) bool { return q.Has("before") && q.Has("last") && !q.Has("after") }, "before"),
		},
		{
			name: "default-count-100", listing: "transactions", area: "model",
			what: "without a count or cursor the listing answers the 100 newest transactions, not docs/behaviour.md's 50",
			rule: "TX-MOD-006", // as many rows as behaviour.md selects (SHOULD)
			wrap: rewrite(transactionPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if !q.Has("first") && !q.Has("last") && !q.Has("before") && !q.Has("after") {
					q.Set("first", "100")
				}
				return q
			}, nil),
		},
	}
}

// dropWhen wraps a handler so that requests to path that match when lose
// the parameters named before the mock reads them.
func dropWhen(path string, when func(url.Values) bool, names ...string) func(http.Handler) http.Handler {
	return rewrite(path, func(q url.Values, _ func(url.Values) *answer) url.Values {
		if when(q) {
			for _, n := range names {
				q.Del(n)
			}
		}
		return q
	}, nil)
}

// filterAfterPage wraps a handler so that the filters named are applied
// after the page is cut: the inner handler answers the query without them,
// and the page keeps only the rows that name the filter's value.
func filterAfterPage(path string, filters ...string) func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			var values []string
			for _, f := range filters {
				if v := q.Get(f); v != "" {
					values = append(values, v)
					q.Del(f)
				}
			}
			if r.URL.Path != path || len(values) == 0 {
				inner.ServeHTTP(w, r)
				return
			}
			a := call(inner, r, q)
			if c := conn(a); c != nil {
				kept := slices.DeleteFunc(slices.Clone(edges(c)), func(e any) bool {
					raw, _ := json.Marshal(nodeOf(e))
					for _, v := range values {
						if !strings.Contains(string(raw), `"`+v+`"`) {
							return true
						}
					}
					return false
				})
				setEdges(c, kept)
			}
			a.write(w)
		})
	}
}

// cursorField reads a field of a paged listing's cursor (base64 of a JSON
// object, as the mock writes them), or "".
func cursorField(c, field string) string {
	raw, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	s, _ := m[field].(string)
	return s
}
