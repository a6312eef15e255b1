package model

import (
	"net/url"
	"strconv"
)

// Clause is a sentence of the API's spec ("Chain Data Query API and
// Transaction Command Shapes") that an answer can break: its section and a
// short quote.
type Clause struct {
	Section string
	Quote   string
}

// The clauses the model's aspects and parameters rest on, quoted from the
// spec.
var (
	clauseFirst    = Clause{"4 (PAG)", "pagination.first: number of records sorting after the row identified by after"}
	clauseAfter    = Clause{"4 (PAG)", "pagination.after: when paging forwards, the cursor of the last row of the previous page"}
	clauseLast     = Clause{"4 (PAG)", "pagination.last: number of records sorting before the row identified by before"}
	clauseBefore   = Clause{"4 (PAG)", "pagination.before: the cursor of the first row of the previous page"}
	clauseNewest   = Clause{"4 (PAG)", "pagination.newestFirst: newest records first; default true"}
	clauseNext     = Clause{"2.1", "hasNextPage: a further page exists after this one"}
	clausePrev     = Clause{"2.1", "hasPreviousPage: a page exists before this one"}
	clauseCursors  = Clause{"2.1", "startCursor: cursor of the first row in the page; endCursor: cursor of the last row in the page"}
	clauseGET      = Clause{"4", "All endpoints use GET and return application/json"}
	clauseGameID   = Clause{"4.1", "Query filters (no request body): entity scope (enum EntityScope, default ENTITY_SCOPE_UNSPECIFIED); game ID"}
	clauseScope    = Clause{"4.1", "Query filters (no request body): entity scope (enum EntityScope, default ENTITY_SCOPE_UNSPECIFIED)"}
	clauseTeam     = Clause{"4.1", "the team ID filter applies only if entity scope is unspecified or teams"}
	clauseParty    = Clause{"4.1", "The party ID filter applies for any scope and, when the scope is teams, matches team members"}
	clauseWindow   = Clause{"4.1", "oldest epoch (inclusive); most recent epoch (inclusive)"}
	clauseEpochs1  = Clause{"8", "When the most recent epoch is omitted it is the latest epoch"}
	clauseEpochs2  = Clause{"8", "When the oldest epoch is omitted it is the most recent epoch minus 29, or the first available epoch if fewer have elapsed"}
	clauseEpochs3  = Clause{"8", "When only the oldest epoch is given, the most recent epoch becomes oldest plus 29"}
	clauseEpochs4  = Clause{"8", "When the oldest epoch is out of range (most recent minus oldest is greater than 29), the oldest epoch is set to most recent minus 29"}
	clauseNodeID   = Clause{"4.3", "nodeId (string, optional; restricts to that node)"}
	clauseTxOrder  = Clause{"4.5", "GET /transactions (newest to oldest)"}
	clauseTxFirst  = Clause{"4.5", "first: count; use with after to page toward the most recent; cannot be combined with before; alone returns the first most recent transactions"}
	clauseTxLast   = Clause{"4.5", "last: count; use with before to page toward the least recent; cannot be combined with after; alone returns the last oldest transactions"}
	clauseTxWindow = Clause{"4.5", "before: cursor; may be combined with after"}
	clauseTypes    = Clause{"4.5", "cmdTypes: only transactions with these command types"}
	clauseExclude  = Clause{"4.5", "excludeCmdTypes: all transactions except these command types"}
	clauseParties  = Clause{"4.5", "parties: party IDs, matching sender or receiver"}
)

// Clauses names the clauses an answer to q breaks when it differs from the
// oracle in aspect a, the most specific first: a page flag's or a cursor's
// own clause; for the rows, the clause of each filter the query gives, then
// of its epoch window, its cursors, its order and its count, as far as the
// query gives them. A query is best shrunk first, so that only the
// parameters the difference needs are left to name a clause.
func Clauses(l Listing, a Aspect, q url.Values) []Clause {
	switch a {
	case AspectNext:
		return []Clause{clauseNext}
	case AspectPrev:
		return []Clause{clausePrev}
	case AspectCursors:
		return []Clause{clauseCursors}
	}
	p := readParams(l, q)
	if l == Transactions {
		return txClauses(a, p)
	}
	var out []Clause
	add := func(name string, c Clause) {
		if p.has(name) {
			out = append(out, c)
		}
	}
	switch l {
	case Games:
		add("partyId", clauseParty)
		add("teamId", clauseTeam)
		add("gameId", clauseGameID)
		add("entityScope", clauseScope)
		out = append(out, epochClauses(p)...)
	case Rotations:
		add("nodeId", clauseNodeID)
	}
	add(pAfter, clauseAfter)
	add(pBefore, clauseBefore)
	add(pNewest, clauseNewest)
	add(pFirst, clauseFirst)
	add(pLast, clauseLast)
	if len(out) == 0 {
		if a == AspectStatus {
			return []Clause{clauseGET}
		}
		// No parameter: the listing's default order and first page.
		return []Clause{clauseNewest}
	}
	return out
}

// epochClauses names the clauses of a games query's epoch window: the
// defaulting rule of spec section 8 the parameters given call on, or the
// inclusive window when both ends are given within 30 epochs.
func epochClauses(p params) []Clause {
	fromS, hasFrom := p.get("epochFrom")
	toS, hasTo := p.get("epochTo")
	switch {
	case hasFrom && hasTo:
		from, err1 := strconv.ParseUint(fromS, 10, 64)
		to, err2 := strconv.ParseUint(toS, 10, 64)
		if err1 == nil && err2 == nil && to >= from && to-from > epochSpan-1 {
			return []Clause{clauseEpochs4}
		}
		return []Clause{clauseWindow}
	case hasFrom:
		return []Clause{clauseEpochs3}
	case hasTo:
		return []Clause{clauseEpochs2}
	}
	return nil
}

// txClauses names the clauses of a transactions query.
func txClauses(a Aspect, p params) []Clause {
	first, last := p.has("first"), p.has("last")
	after, before := p.has("after"), p.has("before")
	if a == AspectStatus {
		switch {
		case first && before:
			return []Clause{clauseTxFirst}
		case last && after:
			return []Clause{clauseTxLast}
		}
	}
	var out []Clause
	for _, f := range []struct {
		name string
		c    Clause
	}{{"cmdTypes", clauseTypes}, {"excludeCmdTypes", clauseExclude}, {"parties", clauseParties}} {
		if p.has(f.name) {
			out = append(out, f.c)
		}
	}
	switch {
	case after && before:
		out = append(out, clauseTxWindow)
	case first || after:
		out = append(out, clauseTxFirst)
	case last || before:
		out = append(out, clauseTxLast)
	}
	if len(out) == 0 {
		return []Clause{clauseTxOrder}
	}
	return out
}
