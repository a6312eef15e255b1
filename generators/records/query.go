package records

import "net/url"

// Query reads a listing request's parameters under any of their accepted
// spellings (camelCase and snake_case, or a name the real node also
// reads). A parameter given twice takes its first value. The mock, its
// warnings and the proxy read requests through it, so that they agree on
// which spelling wins.
type Query url.Values

// Get returns the first value of the first spelling given that has one.
func (q Query) Get(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := q[n]; ok && len(v) > 0 {
			return v[0], true
		}
	}
	return "", false
}

// All returns every value of a repeated parameter, under every spelling
// given, in the order of the spellings.
func (q Query) All(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, q[n]...)
	}
	return out
}
