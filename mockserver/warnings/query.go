package warnings

import (
	"net/url"
	"os"
	"strings"
)

// QueryBuffer parses request queries as url.ParseQuery does, into a map and
// value slices it keeps from one query to the next: a server that hands
// each request the buffer of the last (in a pool) parses the common query
// without allocating, where url.ParseQuery makes a map and a slice for each
// key (about 400 bytes for a page's query, a sixth of what net/http and
// the mock allocate for a request). The zero value is ready; it is not safe
// for concurrent use, and what Parse returns is valid until the next Parse.
type QueryBuffer struct {
	values url.Values
	held   []string // the values' backing array
}

// maxReusedParams is the most parameters a query parsed into a
// QueryBuffer's own map may have: one of more, like one holding a
// semicolon, is parsed by url.ParseQuery into a map of its own, so that a
// hostile query's map is not kept, and so that url.ParseQuery's limit on
// parameters (10,000 unless GODEBUG urlmaxqueryparams says otherwise) and
// its errors are its own.
const maxReusedParams = 32

// maxReusedBytes is the longest query parsed into a QueryBuffer's own map:
// what the buffer keeps of the last query until the next (its strings) is
// thus at most this much, however long a hostile client's.
const maxReusedBytes = 4096

// reuseQueries is false when GODEBUG sets urlmaxqueryparams, which
// url.ParseQuery alone reads: every query is then parsed by it.
var reuseQueries = !strings.Contains(os.Getenv("GODEBUG"), "urlmaxqueryparams")

// Parse returns the parameters of raw, and the first error met, as
// url.ParseQuery(raw) does.
func (b *QueryBuffer) Parse(raw string) (url.Values, error) {
	if !reuseQueries || len(raw) > maxReusedBytes || strings.Count(raw, "&") >= maxReusedParams || strings.Contains(raw, ";") {
		return url.ParseQuery(raw)
	}
	if b.values == nil {
		b.values = make(url.Values, 8)
	}
	clear(b.values)
	clear(b.held) // the last query's strings are not kept alive
	b.held = b.held[:0]
	var err error
	// url.ParseQuery's loop, without its semicolon case (none here).
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		key, err1 := url.QueryUnescape(key)
		if err1 == nil {
			value, err1 = url.QueryUnescape(value)
		}
		if err1 != nil {
			if err == nil {
				err = err1
			}
			continue
		}
		if vs, ok := b.values[key]; ok {
			// A repeated key (rare): its slice, capped at its values,
			// grows into an array of its own.
			b.values[key] = append(vs, value)
			continue
		}
		b.held = append(b.held, value)
		n := len(b.held)
		b.values[key] = b.held[n-1 : n : n]
	}
	return b.values, err
}
