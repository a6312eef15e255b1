package proxy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/schemas"
)

// Rules of the single-response checks, beside the schema rules the
// validator names ("required", "pattern", ...).
const (
	// RuleEdgeCursor: every edge has a non-empty cursor.
	RuleEdgeCursor = "edge-cursor"
	// RulePageCursors: pageInfo.startCursor and endCursor are the cursors
	// of the first and last edge, and empty on an empty page.
	RulePageCursors = "page-cursors"
	// RulePageSize: a page holds at most the count asked.
	RulePageSize = "page-size"
	// RuleOrder: rows are in the listing's order (transactions newest to
	// oldest by block and index).
	RuleOrder = "order"
	// RuleFilter: every row matches the filters of the query.
	RuleFilter = "filter"
	// RuleEpochWindow: games rows lie in the requested epochs and span at
	// most 30 epochs.
	RuleEpochWindow = "epoch-window"
	// RulePageFlags: hasPreviousPage is false on a page anchored at the
	// start, hasNextPage false on a forward page shorter than asked or a
	// backward page anchored at the end.
	RulePageFlags = "page-flags"
	// RuleTxCursor: a transaction's cursor is "<block>.<index>".
	RuleTxCursor = "tx-cursor"
	// RuleCursorBounds: transactions lie strictly between the before and
	// after cursors asked.
	RuleCursorBounds = "cursor-bounds"
	// RuleJSON: the body is not JSON.
	RuleJSON = "json"
)

// Finding is one broken rule found in a response.
type Finding struct {
	// Path is the JSON pointer of the offending value ("" for the body).
	Path string
	// Rule names the rule broken.
	Rule string
	// Message says what is wrong.
	Message string
	// Profile says which schema profile a schema violation breaks:
	// schemas.Spec when the spec profile rejects it too (the body breaks
	// the spec, a MUST), schemas.Reference when only the reference profile
	// does (our stricter reading: a field the spec does not show, an
	// unknown field, ...). A body that is not JSON breaks both, so Spec. It
	// is empty for the single-response rules (RuleEdgeCursor ...), which
	// are not schema checks.
	Profile schemas.Profile
}

// listing is what the proxy knows of one listing path.
type listing struct {
	name     string
	response string // schema of a 200 body
	wrapper  string // page field of a paged listing; "" for transactions
}

// listingFor returns the listing a request path serves, or false.
func listingFor(path string) (listing, bool) {
	switch path {
	case "/api/v2/games":
		return listing{records.ListingGames, "ListGamesResponse", "games"}, true
	case "/api/v2/snapshots":
		return listing{records.ListingSnapshots, "ListCoreSnapshotsResponse", "coreSnapshots"}, true
	case "/api/v2/core/keys/ethereum/rotations":
		return listing{records.ListingKeyRotations, "ListEthereumKeyRotationsResponse", "keyRotations"}, true
	case "/api/v2/network/parameters":
		return listing{records.ListingNetworkParameters, "ListNetworkParametersResponse", "networkParameters"}, true
	case "/transactions", "/rest/transactions":
		return listing{records.ListingTransactions, "ListTransactionsResponse", ""}, true
	}
	return listing{}, false
}

// query reads a request's parameters under any of their spellings, and
// the counts and order the checks need.
type query struct{ records.Query }

func newQuery(v url.Values) query { return query{records.Query(v)} }

// count reads a positive count; false when absent, not a number or not
// positive (the server answers those with an error or ignores them).
func (q query) count(names ...string) (int64, bool) {
	s, ok := q.Get(names...)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

func (q query) uint(names ...string) (uint64, bool) {
	s, ok := q.Get(names...)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// newestFirst reads pagination.newestFirst (default true).
func (q query) newestFirst() bool {
	s, _ := q.Get("pagination.newestFirst", "pagination.newest_first")
	return s != "false" && s != "0"
}

// check runs the single-response rules on a 200 body of a listing.
func check(l listing, q query, body []byte) []Finding {
	if l.wrapper == "" {
		return checkTransactions(q, body)
	}
	return checkPage(l, q, body)
}

type page struct {
	Edges []struct {
		Node   json.RawMessage `json:"node"`
		Cursor string          `json:"cursor"`
	} `json:"edges"`
	PageInfo struct {
		StartCursor     string `json:"startCursor"`
		EndCursor       string `json:"endCursor"`
		HasNextPage     bool   `json:"hasNextPage"`
		HasPreviousPage bool   `json:"hasPreviousPage"`
	} `json:"pageInfo"`
}

// pageKey orders rows of a paged listing: Num descending, then Str
// ascending, in newest-first order.
type pageKey struct {
	Num uint64
	Str string
}

func checkPage(l listing, q query, body []byte) []Finding {
	var wrapper map[string]json.RawMessage
	var p page
	if json.Unmarshal(body, &wrapper) != nil || json.Unmarshal(wrapper[l.wrapper], &p) != nil {
		return nil // the schema violations say what is wrong
	}
	var out []Finding
	add := func(path, rule, format string, a ...any) {
		out = append(out, Finding{Path: "/" + l.wrapper + path, Rule: rule, Message: fmt.Sprintf(format, a...)})
	}
	n := len(p.Edges)
	for i, e := range p.Edges {
		if e.Cursor == "" {
			add(fmt.Sprintf("/edges/%d/cursor", i), RuleEdgeCursor, "edge has an empty cursor")
		}
	}
	pi := p.PageInfo
	switch {
	case n == 0 && (pi.StartCursor != "" || pi.EndCursor != ""):
		add("/pageInfo", RulePageCursors, "empty page has startCursor %q and endCursor %q, want empty strings", pi.StartCursor, pi.EndCursor)
	case n > 0 && pi.StartCursor != p.Edges[0].Cursor:
		add("/pageInfo/startCursor", RulePageCursors, "startCursor %q is not the first edge's cursor %q", pi.StartCursor, p.Edges[0].Cursor)
	}
	if n > 0 && pi.EndCursor != p.Edges[n-1].Cursor {
		add("/pageInfo/endCursor", RulePageCursors, "endCursor %q is not the last edge's cursor %q", pi.EndCursor, p.Edges[n-1].Cursor)
	}

	first, hasFirst := q.count("pagination.first")
	last, hasLast := q.count("pagination.last")
	_, hasAfter := q.Get("pagination.after")
	_, hasBefore := q.Get("pagination.before")
	// first wins over last, as on the real node.
	switch {
	case hasFirst && int64(n) > first:
		add("/edges", RulePageSize, "%d edges, more than pagination.first=%d", n, first)
	case !hasFirst && hasLast && int64(n) > last:
		add("/edges", RulePageSize, "%d edges, more than pagination.last=%d", n, last)
	}
	forward := hasFirst || (!hasLast && !hasBefore)
	switch {
	case forward && !hasAfter && pi.HasPreviousPage:
		add("/pageInfo/hasPreviousPage", RulePageFlags, "a forward page from the start of the listing has hasPreviousPage true")
	case !forward && !hasBefore && pi.HasNextPage:
		add("/pageInfo/hasNextPage", RulePageFlags, "a backward page from the end of the listing has hasNextPage true")
	}
	if hasFirst && int64(n) < first && pi.HasNextPage {
		add("/pageInfo/hasNextPage", RulePageFlags, "%d edges, fewer than pagination.first=%d, yet hasNextPage is true", n, first)
	}

	desc := q.newestFirst()
	if l.name == records.ListingNetworkParameters {
		desc = true // always key order A to Z: Str ascending
	}
	var prev *pageKey
	for i, e := range p.Edges {
		at := fmt.Sprintf("/edges/%d/node", i)
		key, fs, err := nodeChecks(l.name, q, e.Node)
		if err != nil {
			continue // the schema violations say what is wrong
		}
		for _, f := range fs {
			add(at+f.Path, f.Rule, "%s", f.Message)
		}
		if prev != nil && !inOrder(*prev, key, desc) {
			add(at, RuleOrder, "row is not after the previous row in listing order (newestFirst=%v)", q.newestFirst())
		}
		prev = &key
	}
	if l.name == records.ListingGames {
		out = append(out, epochSpan(l, p)...)
	}
	return out
}

// inOrder reports whether b strictly follows a: newest first is Num
// descending then Str ascending; oldest first the exact reverse.
func inOrder(a, b pageKey, desc bool) bool {
	if !desc {
		a, b = b, a
	}
	if a.Num != b.Num {
		return b.Num < a.Num
	}
	return b.Str > a.Str
}

// nodeChecks decodes one node, returns its order key and checks it against
// the query's filters.
func nodeChecks(name string, q query, node json.RawMessage) (pageKey, []Finding, error) {
	switch name {
	case records.ListingGames:
		var g records.Game
		if err := json.Unmarshal(node, &g); err != nil {
			return pageKey{}, nil, err
		}
		return pageKey{g.Epoch, g.ID}, gameFilters(q, &g), nil
	case records.ListingSnapshots:
		var s records.CoreSnapshot
		if err := json.Unmarshal(node, &s); err != nil {
			return pageKey{}, nil, err
		}
		return pageKey{Num: s.BlockHeight}, nil, nil
	case records.ListingKeyRotations:
		var k records.EthereumKeyRotation
		if err := json.Unmarshal(node, &k); err != nil {
			return pageKey{}, nil, err
		}
		var fs []Finding
		if id, ok := q.Get("nodeId", "node_id"); ok && id != "" && k.NodeID != id {
			fs = append(fs, Finding{Path: "/nodeId", Rule: RuleFilter, Message: fmt.Sprintf("nodeId %q, the query asks for %q", k.NodeID, id)})
		}
		return pageKey{k.BlockHeight, k.NodeID}, fs, nil
	default:
		var p records.NetworkParameter
		if err := json.Unmarshal(node, &p); err != nil {
			return pageKey{}, nil, err
		}
		return pageKey{Str: p.Key}, nil, nil
	}
}

func gameFilters(q query, g *records.Game) []Finding {
	var fs []Finding
	add := func(path, format string, a ...any) {
		fs = append(fs, Finding{Path: path, Rule: RuleFilter, Message: fmt.Sprintf(format, a...)})
	}
	if id, ok := q.Get("gameId", "game_id"); ok && id != "" && g.ID != id {
		add("/id", "game %q, the query asks for gameId %q", g.ID, id)
	}
	scope, _ := q.Get("entityScope", "entity_scope")
	switch {
	case scope == "ENTITY_SCOPE_INDIVIDUALS" && (g.Individual == nil || g.Team != nil):
		add("", "not an individual game, the query asks for %s", scope)
	case scope == "ENTITY_SCOPE_TEAMS" && (g.Team == nil || g.Individual != nil):
		add("", "not a team game, the query asks for %s", scope)
	}
	if team, ok := q.Get("teamId", "team_id"); ok && team != "" && scope != "ENTITY_SCOPE_INDIVIDUALS" && !contains(g.TeamIDs(), team) {
		add("", "no team entry has teamId %s, which the query asks for", team)
	}
	if party, ok := q.Get("partyId", "party_id"); ok && party != "" && !contains(g.PartyIDs(), party) {
		add("", "party %s, which the query asks for, is neither an individual entry nor a participating team member", party)
	}
	from, hasFrom := q.uint("epochFrom", "epoch_from")
	to, hasTo := q.uint("epochTo", "epoch_to")
	switch {
	case hasTo && g.Epoch > to:
		fs = append(fs, Finding{Path: "/epoch", Rule: RuleEpochWindow, Message: fmt.Sprintf("epoch %d is above epochTo %d", g.Epoch, to)})
	case hasFrom && (!hasTo || from <= to) && g.Epoch < from:
		fs = append(fs, Finding{Path: "/epoch", Rule: RuleEpochWindow, Message: fmt.Sprintf("epoch %d is below epochFrom %d", g.Epoch, from)})
	case hasFrom && !hasTo && g.Epoch-from > 29:
		fs = append(fs, Finding{Path: "/epoch", Rule: RuleEpochWindow, Message: fmt.Sprintf("epoch %d is above epochFrom %d + 29, the window's end when only epochFrom is given", g.Epoch, from)})
	}
	return fs
}

// epochSpan checks that a games page spans at most 30 epochs (spec section
// 8).
func epochSpan(l listing, p page) []Finding {
	var lo, hi uint64
	seen := false
	for _, e := range p.Edges {
		var g struct {
			Epoch uint64 `json:"epoch,string"`
		}
		if json.Unmarshal(e.Node, &g) != nil {
			continue
		}
		if !seen || g.Epoch < lo {
			lo = g.Epoch
		}
		if !seen || g.Epoch > hi {
			hi = g.Epoch
		}
		seen = true
	}
	if seen && hi-lo > 29 {
		return []Finding{{Path: "/" + l.wrapper + "/edges", Rule: RuleEpochWindow, Message: fmt.Sprintf("rows span epochs %d to %d, more than 30", lo, hi)}}
	}
	return nil
}

func checkTransactions(q query, body []byte) []Finding {
	var b struct {
		Transactions []json.RawMessage `json:"transactions"`
	}
	if json.Unmarshal(body, &b) != nil {
		return nil
	}
	var out []Finding
	add := func(path, rule, format string, a ...any) {
		out = append(out, Finding{Path: path, Rule: rule, Message: fmt.Sprintf(format, a...)})
	}
	n := int64(len(b.Transactions))
	first, hasFirst := q.count("first")
	last, hasLast := q.count("last")
	switch {
	case hasFirst && n > first:
		add("/transactions", RulePageSize, "%d transactions, more than first=%d", n, first)
	case hasLast && n > last:
		add("/transactions", RulePageSize, "%d transactions, more than last=%d", n, last)
	}
	before, hasBefore := txCursor(q, "before")
	after, hasAfter := txCursor(q, "after")
	include := set(q.All("cmdTypes", "cmd_types"))
	exclude := set(q.All("excludeCmdTypes", "exclude_cmd_types"))
	var prev *records.TxKey
	for i, raw := range b.Transactions {
		at := fmt.Sprintf("/transactions/%d", i)
		t, err := records.ParseTransaction(raw)
		if err != nil {
			continue
		}
		k := t.Key()
		if prev != nil && !k.Less(*prev) {
			add(at, RuleOrder, "transaction %s is not older than the one before it (%d.%d): the listing is newest to oldest", t.Cursor(), prev.Block, prev.Index)
		}
		prev = &k
		var c struct {
			Cursor *string `json:"cursor"`
		}
		if json.Unmarshal(raw, &c) == nil && c.Cursor != nil && *c.Cursor != t.Cursor() {
			add(at+"/cursor", RuleTxCursor, "cursor %q, want %q (<block>.<index>)", *c.Cursor, t.Cursor())
		}
		if hasBefore && !k.Less(before) {
			add(at, RuleCursorBounds, "transaction %s is not older than before=%d.%d", t.Cursor(), before.Block, before.Index)
		}
		if hasAfter && !after.Less(k) {
			add(at, RuleCursorBounds, "transaction %s is not newer than after=%d.%d", t.Cursor(), after.Block, after.Index)
		}
		if len(include) > 0 && !include[t.Type] {
			add(at+"/type", RuleFilter, "type %q is not among cmdTypes %s", t.Type, strings.Join(q.All("cmdTypes", "cmd_types"), ", "))
		}
		if exclude[t.Type] {
			add(at+"/type", RuleFilter, "type %q is among excludeCmdTypes", t.Type)
		}
	}
	return out
}

func txCursor(q query, name string) (records.TxKey, bool) {
	s, ok := q.Get(name)
	if !ok || s == "" {
		return records.TxKey{}, false
	}
	k, err := records.ParseTxCursor(s)
	return k, err == nil
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
