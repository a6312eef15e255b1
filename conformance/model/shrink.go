package model

import (
	"net/url"
	"slices"
	"strconv"
)

// maxShrinkSteps bounds the queries Shrink asks.
const maxShrinkSteps = 200

// Shrink reduces a query whose answer differs from the oracle in aspect a
// to the smallest query that still differs in it: fewer parameters, fewer
// values, smaller counts. differs asks the deployment and compares; it is
// called at most maxShrinkSteps times. Shrink returns the smallest query
// found and the difference it shows.
func Shrink(q url.Values, d Difference, differs func(url.Values) (Difference, bool)) (url.Values, Difference) {
	return ShrinkWith(q, d, differs, nil)
}

// Simplifier proposes values of a parameter simpler than the one given,
// the simplest first: a cursor nearer the listing's start, an epoch nearer
// the latest, an id that comes earlier in the listing.
type Simplifier func(param, value string) []string

// ShrinkWith is Shrink that also replaces values by simpler ones, as
// simpler proposes (nil: none), once no parameter can be dropped: so that
// a failure shows the simplest cursor position, count, epoch and id that
// still fail.
func ShrinkWith(q url.Values, d Difference, differs func(url.Values) (Difference, bool), simpler Simplifier) (url.Values, Difference) {
	best := clone(q)
	steps := 0
	try := func(c url.Values) bool {
		if steps >= maxShrinkSteps {
			return false
		}
		steps++
		got, ok := differs(c)
		if ok && got.Aspect == d.Aspect {
			best, d = c, got
			return true
		}
		return false
	}
	// set tries the query with one parameter's values replaced.
	set := func(k string, v ...string) bool {
		c := clone(best)
		c[k] = v
		return try(c)
	}
	for progress := true; progress && steps < maxShrinkSteps; {
		progress = false
		for _, k := range sortedKeys(best) {
			c := clone(best)
			delete(c, k)
			if progress = try(c); progress {
				break
			}
			if v := best[k]; len(v) > 1 {
				if progress = set(k, v[0]); progress {
					break
				}
			}
		}
		for _, k := range sortedKeys(best) {
			if progress {
				break
			}
			for _, v := range simplerValues(k, best[k], simpler) {
				if progress = set(k, v); progress {
					break
				}
			}
		}
	}
	return best, d
}

// simplerValues proposes simpler values of one parameter given once: for a
// count, 1, half and one less; else what simpler proposes.
func simplerValues(k string, vals []string, simpler Simplifier) []string {
	if len(vals) != 1 {
		return nil
	}
	if isCount(k) {
		n, err := strconv.Atoi(vals[0])
		if err != nil || n <= 1 {
			return nil
		}
		var out []string
		for _, s := range []int{1, n / 2, n - 1} {
			if s >= 1 && s < n && !slices.Contains(out, strconv.Itoa(s)) {
				out = append(out, strconv.Itoa(s))
			}
		}
		return out
	}
	if simpler == nil {
		return nil
	}
	var out []string
	for _, s := range simpler(k, vals[0]) {
		if s != vals[0] && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Simpler proposes simpler values of a parameter from what the model holds
// (a Simplifier): for a cursor, the cursors of the rows at the listing's
// start, half way to the cursor's row and just before it; for an epoch, the
// latest epoch, half way to it and one nearer it; for an id, a party, a
// team or a command type, the values of the listing's first rows in the
// same way.
func (m *Model) Simpler(param, value string) []string {
	if s, ok := snake[param]; ok {
		param = s
	}
	rows := m.Rows()
	switch param {
	case pAfter, pBefore, "after", "before":
		return towards(rows, value, func(r *Row) []string { return []string{r.Cursor} })
	case "epochFrom", "epochTo":
		e, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return nil
		}
		l := m.latest
		var out []string
		for _, c := range []uint64{l, e/2 + l/2, e + 1, e - 1} {
			if c != e && (c > e) == (l > e) && c <= max(e, l) && c >= min(e, l) {
				out = append(out, strconv.FormatUint(c, 10))
			}
		}
		return out
	case "gameId", "nodeId":
		return towards(rows, value, func(r *Row) []string { return []string{r.Key.Str} })
	case "teamId":
		return towards(rows, value, func(r *Row) []string { return r.Teams })
	case "partyId":
		return towards(rows, value, func(r *Row) []string { return append(slices.Clone(r.Players), r.Members...) })
	case "parties":
		return towards(rows, value, func(r *Row) []string { return append([]string{r.Submitter}, r.Receivers...) })
	case "cmdTypes", "excludeCmdTypes":
		return towards(rows, value, func(r *Row) []string { return []string{r.Type} })
	}
	return nil
}

// towards lists the distinct values rows name, in the listing's order, and
// proposes the first of them, the one half way to value and the one just
// before it; all of the first three when value is not among them.
func towards(rows []Row, value string, of func(*Row) []string) []string {
	var vals []string
	seen := map[string]bool{}
	for i := range rows {
		for _, v := range of(&rows[i]) {
			if v != "" && !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
	}
	i := slices.Index(vals, value)
	if i < 0 {
		return vals[:min(3, len(vals))]
	}
	if i == 0 {
		return nil
	}
	return []string{vals[0], vals[i/2], vals[i-1]}
}

func isCount(k string) bool {
	return k == pFirst || k == pLast || k == "first" || k == "last"
}

func sortedKeys(q url.Values) []string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
