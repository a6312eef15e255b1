package model

import (
	"net/url"
	"slices"
	"strings"
)

// Level is how firmly a query's answer is decided: by the spec (Must) or
// only by docs/behaviour.md (Should).
type Level int

// The levels.
const (
	Must Level = iota
	Should
)

func (l Level) String() string {
	if l == Should {
		return "SHOULD"
	}
	return "MUST"
}

// snake maps the snake_case spelling of a parameter, which
// docs/behaviour.md accepts beside the spec's, to the spec's.
var snake = map[string]string{
	"pagination.newest_first": pNewest, "epoch_from": "epochFrom", "epoch_to": "epochTo",
	"entity_scope": "entityScope", "team_id": "teamId", "party_id": "partyId", "game_id": "gameId",
	"node_id": "nodeId", "cmd_types": "cmdTypes", "exclude_cmd_types": "excludeCmdTypes",
}

// SnakeCase returns the snake_case spelling of a parameter, or "" when it
// has none.
func SnakeCase(param string) string {
	for s, p := range snake {
		if p == param {
			return s
		}
	}
	return ""
}

// repeated are the parameters that take several values (one key a value).
var repeated = map[string]bool{"cmdTypes": true, "excludeCmdTypes": true, "parties": true}

// Canonical writes a query with its keys sorted and each key's values in
// the order given: the form reports and the coverage use.
func Canonical(q url.Values) string { return q.Encode() }

// params reads a query as the oracle sees it: the spec's spelling of every
// key, single-valued parameters with their first value (repeated keys of
// those, and snake_case spellings, make the answer docs/behaviour.md's).
// Keys the listing does not know are dropped, as behaviour.md says the
// server does.
type params struct {
	v      map[string][]string
	should []string
}

func readParams(l Listing, q url.Values) params {
	p := params{v: map[string][]string{}}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		name := k
		if s, ok := snake[k]; ok {
			name = s
			p.should = append(p.should, "the snake_case spelling "+k)
		}
		if !slices.Contains(l.Params(), name) {
			// The spec names no other parameter, and says nothing of those
			// it does not name.
			p.should = append(p.should, "the unknown parameter "+k+" (ignored)")
			continue
		}
		vals := q[k]
		if !repeated[name] && len(vals) > 1 {
			p.should = append(p.should, name+" given twice (the first value counts)")
			vals = vals[:1]
		}
		if why := emptyValue(name, vals); why != "" {
			p.should = append(p.should, why)
			if !repeated[name] {
				continue // an empty ID reads as not given
			}
		}
		p.v[name] = append(p.v[name], vals...)
	}
	return p
}

// get returns a single-valued parameter.
func (p params) get(name string) (string, bool) {
	v, ok := p.v[name]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// has reports whether the parameter was given.
func (p params) has(name string) bool { _, ok := p.v[name]; return ok }

// Describe writes a query for people: its parameters, or "no parameters".
func Describe(q url.Values) string {
	if len(q) == 0 {
		return "no parameters"
	}
	s, _ := url.QueryUnescape(q.Encode())
	return strings.ReplaceAll(s, "&", " ")
}

// emptyIDs are the ID filters whose empty value reads as not given
// (docs/behaviour.md: the gateway reads an empty string as unset).
var emptyIDs = map[string]bool{"gameId": true, "teamId": true, "partyId": true, "nodeId": true}

// emptyValue says how docs/behaviour.md reads an empty value of a filter
// ("" when no value is empty, or the parameter's empty value is the
// spec's to read): an empty ID is not given, an empty value of a repeated
// filter matches (or excludes) nothing. The spec does not say how an empty
// value is written, so each is SHOULD.
func emptyValue(name string, vals []string) string {
	if !slices.Contains(vals, "") {
		return ""
	}
	switch {
	case emptyIDs[name]:
		return "an empty " + name + " (read as not given)"
	case name == "excludeCmdTypes":
		return "an empty value of excludeCmdTypes (excludes nothing)"
	case repeated[name]:
		return "an empty value of " + name + " (matches nothing)"
	}
	return ""
}
