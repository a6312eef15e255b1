package selftest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
)

// coverDefects are defects that show only in a query where a given
// parameter, or pair of parameters, is load-bearing, or only with a value
// of one class: a random draw finds them with some seeds only, the
// generator's covering core with every seed (TestCoverDefectsEverySeed).
func coverDefects() []defect {
	return []defect{
		{
			name: "party-dropped-beside-game", listing: "games", area: "model",
			what: "partyId is dropped when gameId is given",
			rule: "GAMES-MOD-003",
			wrap: dropWhen(gamesPath, func(q url.Values) bool { return q.Get("gameId") != "" }, "partyId"),
		},
		{
			name: "exclude-ignored-beside-parties", listing: "transactions", area: "model",
			what: "excludeCmdTypes is ignored when parties is given",
			rule: "TX-MOD-003",
			wrap: dropWhen(transactionPath, func(q url.Values) bool { return q.Has("parties") }, "excludeCmdTypes"),
		},
		{
			name: "game-id-prefix-match", listing: "games", area: "model",
			what: "gameId matches the games whose ID begins with it: a part of an ID selects the game",
			rule: "GAMES-MOD-003",
			wrap: rewrite(gamesPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if v := q.Get("gameId"); v != "" {
					if id := gameWithPrefix(v); id != "" {
						q.Set("gameId", id)
					}
				}
				return q
			}, nil),
		},
		{
			name: "node-id-any-case", listing: "key-rotations", area: "model",
			what: "nodeId is compared without regard to letter case",
			rule: "ROT-MOD-003",
			wrap: rewrite(rotationsPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if q.Has("nodeId") {
					q.Set("nodeId", strings.ToLower(q.Get("nodeId")))
				}
				return q
			}, nil),
		},
		{
			name: "uncarried-type-ignored", listing: "transactions", area: "model",
			what: "a valid command type no transaction carries is dropped from cmdTypes, so that cmdTypes=Withdraw lists every transaction",
			rule: "TX-MOD-003",
			wrap: rewrite(transactionPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if vs, ok := q["cmdTypes"]; ok {
					kept := slices.DeleteFunc(slices.Clone(vs), func(v string) bool { return validTypes[v] && !carriedType(v) })
					if len(kept) == 0 {
						q.Del("cmdTypes")
					} else {
						q["cmdTypes"] = kept
					}
				}
				return q
			}, nil),
		},
		{
			name: "types-keep-two", listing: "transactions", area: "model",
			what: "cmdTypes keeps only its first two values",
			rule: "TX-MOD-003",
			wrap: rewrite(transactionPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if vs := q["cmdTypes"]; len(vs) > 2 {
					q["cmdTypes"] = vs[:2]
				}
				return q
			}, nil),
		},
		{
			name: "filtered-cursor-offset", listing: "key-rotations", area: "model",
			what: "under nodeId, the cursors name the row's place in the filtered answer, and a cursor is read as that place in the listing it is used with",
			rule: "ROT-MOD-003",
			wrap: filteredOffsetCursors(rotationsPath, "nodeId"),
		},
	}
}

// validTypes are the command types a real network carries, as the
// generator names them.
var validTypes = map[string]bool{
	"Amend AMM": true, "Register New Node": true, "Apply Referral Code": true, "Batch Market Instructions": true,
	"Batch Proposal": true, "Submit Order": true, "Amend Order": true, "Cancel Order": true, "Stop Orders Submission": true,
	"Stop Orders Cancellation": true, "Update Margin Mode": true, "Withdraw": true,
}

// defaultIndex holds what the defects read of the default world: its game
// IDs, sorted, and the command types its transactions carry.
var defaultIndex = sync.OnceValue(func() struct {
	gameIDs []string
	types   map[string]bool
} {
	var idx struct {
		gameIDs []string
		types   map[string]bool
	}
	idx.types = map[string]bool{}
	w, err := defaultWorld()
	if err != nil {
		return idx
	}
	seen := map[string]bool{}
	for _, g := range w.Games {
		if !seen[g.ID] {
			seen[g.ID] = true
			idx.gameIDs = append(idx.gameIDs, g.ID)
		}
	}
	sort.Strings(idx.gameIDs)
	for _, t := range w.Transactions {
		idx.types[t.Type] = true
	}
	return idx
})

// gameWithPrefix is the first game ID (in order) that begins with p, or
// "" when none does.
func gameWithPrefix(p string) string {
	ids := defaultIndex().gameIDs
	i := sort.SearchStrings(ids, p)
	if i < len(ids) && strings.HasPrefix(ids[i], p) {
		return ids[i]
	}
	return ""
}

// carriedType reports whether a transaction of the default world has the
// type.
func carriedType(t string) bool { return defaultIndex().types[t] }

// filteredOffsetCursors wraps a handler so that the answers of requests filtered
// by filter carry cursors that name a place in the filtered listing (base64
// of {"filter": value, "offset": n}), and a request carrying such a cursor
// is read from that place in its own listing: right under the same filter,
// elsewhere under another or none.
func filteredOffsetCursors(path, filter string) func(http.Handler) http.Handler {
	type place struct {
		Filter string `json:"filter"`
		Offset int    `json:"offset"`
	}
	decode := func(c string) (place, bool) {
		raw, err := base64.StdEncoding.DecodeString(c)
		var p place
		if err != nil || json.Unmarshal(raw, &p) != nil || p.Filter == "" {
			return p, false
		}
		return p, true
	}
	// all is every cursor of the listing a query selects, in its order.
	all := func(fetch func(url.Values) *answer, q url.Values) []string {
		fq := url.Values{}
		for k, v := range q {
			if k == filter || k == "pagination.newestFirst" {
				fq[k] = v
			}
		}
		fq.Set("pagination.first", "5000")
		var out []string
		if c := conn(fetch(fq)); c != nil {
			for _, e := range edges(c) {
				out = append(out, cursorOf(e))
			}
		}
		return out
	}
	return func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path {
				inner.ServeHTTP(w, r)
				return
			}
			fetch := func(fq url.Values) *answer { return call(inner, r, fq) }
			q := r.URL.Query()
			for _, name := range []string{"pagination.after", "pagination.before"} {
				p, ok := decode(q.Get(name))
				if !ok {
					continue
				}
				if cursors := all(fetch, q); p.Offset >= 0 && p.Offset < len(cursors) {
					q.Set(name, cursors[p.Offset])
				} else {
					q.Del(name)
				}
			}
			a := call(inner, r, q)
			if v, c := q.Get(filter), conn(a); v != "" && c != nil && len(edges(c)) > 0 {
				at := map[string]int{}
				for i, cur := range all(fetch, q) {
					at[cur] = i
				}
				for _, e := range edges(c) {
					m, _ := e.(map[string]any)
					raw, _ := json.Marshal(place{Filter: v, Offset: at[cursorOf(e)]})
					m["cursor"] = base64.StdEncoding.EncodeToString(raw)
				}
				setEdges(c, edges(c))
			}
			a.write(w)
		})
	}
}
