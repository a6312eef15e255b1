package selftest

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/chaindata/harness/generators/records"
)

// tieKey is a row's sort key: primary (epoch, block height) and the
// secondary key that breaks ties (game ID, node ID).
type tieKey struct {
	num uint64
	str string
}

// tieKeyOf reads the key of a paged listing's cursor.
type tieKeyOf func(cursor string) (tieKey, error)

func gameTieKey(c string) (tieKey, error) {
	k, err := records.ParseGameCursor(c)
	return tieKey{k.Epoch, k.ID}, err
}

func rotationTieKey(c string) (tieKey, error) {
	k, err := records.ParseRotationCursor(c)
	return tieKey{k.BlockHeight, k.NodeID}, err
}

// tiesReversed wraps the mock so that the rows of a paged listing that
// share their primary key come in the reverse of the mock's order of ties
// (games by ID descending, key rotations by nodeId descending), in every
// answer and consistently, as a deployment with another tie order may serve
// them: every page, cursor and flag is that of the listing ordered newest
// first by the primary key, then by the secondary key descending, and the
// reverse under newestFirst=false. The spec orders rows by age alone, so
// only the rules that judge docs/behaviour.md's tie order may fail.
//
// With unfilteredOnly, only the answers to queries without a filter or an
// epoch window are so ordered; under any filter the mock's order stays, as
// a deployment that sorts each query's rows its own way may answer: each
// query's pages are consistent, but answers to different queries order ties
// differently, which the spec allows too.
//
// The mock answers every request first, and its refusals are sent as they
// are. An answer is then made from the rows the mock selects for the same
// query without its pagination (its filters and epoch window), read whole
// once per query, by the mock's rules of paging (docs/behaviour.md): first
// wins over last, a cursor alone pages in its direction with the default
// size, and a cursor is placed by its key, held or not.
func tiesReversed(path string, keyOf tieKeyOf, unfilteredOnly bool) func(http.Handler) http.Handler {
	type row struct {
		key  tieKey
		edge any
	}
	// precedes reports whether a comes before b, newest first.
	precedes := func(a, b tieKey) bool {
		if a.num != b.num {
			return a.num > b.num
		}
		return a.str > b.str
	}
	return func(inner http.Handler) http.Handler {
		var mu sync.Mutex
		selected := map[string][]row{} // by the query without pagination
		rowsOf := func(r *http.Request, base url.Values) []row {
			id := base.Encode()
			mu.Lock()
			defer mu.Unlock()
			if rows, ok := selected[id]; ok {
				return rows
			}
			var rows []row
			after := ""
			for range 1000 { // pages of 5000 rows: far more than the world holds
				q := url.Values{}
				for k, v := range base {
					q[k] = v
				}
				q.Set("pagination.first", "5000")
				if after != "" {
					q.Set("pagination.after", after)
				}
				c := conn(call(inner, r, q))
				if c == nil {
					break
				}
				for _, e := range edges(c) {
					if k, err := keyOf(cursorOf(e)); err == nil {
						rows = append(rows, row{k, e})
					}
				}
				if more, _ := pageInfo(c)["hasNextPage"].(bool); !more {
					break
				}
				after, _ = pageInfo(c)["endCursor"].(string)
			}
			sort.SliceStable(rows, func(i, j int) bool { return precedes(rows[i].key, rows[j].key) })
			selected[id] = rows
			return rows
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path {
				inner.ServeHTTP(w, r)
				return
			}
			q := r.URL.Query()
			base := url.Values{}
			for k, v := range q {
				if !strings.HasPrefix(k, "pagination.") {
					base[k] = v
				}
			}
			if unfilteredOnly && len(base) > 0 {
				inner.ServeHTTP(w, r)
				return
			}
			a := call(inner, r, q)
			if a.status != http.StatusOK {
				a.write(w)
				return
			}
			c := conn(a)
			if c == nil {
				a.write(w)
				return
			}
			// The mock took the query: every value below reads.
			list := slices.Clone(rowsOf(r, base))
			lt := precedes
			if v := firstOf(q, "pagination.newestFirst", "pagination.newest_first"); v != "" {
				if newest, _ := strconv.ParseBool(v); !newest {
					slices.Reverse(list)
					lt = func(a, b tieKey) bool { return precedes(b, a) }
				}
			}
			n := len(list)
			place := func(name string, pos func(k tieKey) int, whole int) int {
				if k, err := keyOf(firstOf(q, name)); err == nil && q.Has(name) {
					return pos(k)
				}
				return whole
			}
			forward := func(size int) (int, int) {
				start := place("pagination.after", func(k tieKey) int {
					return sort.Search(n, func(i int) bool { return lt(k, list[i].key) })
				}, 0)
				return start, min(n, start+size)
			}
			backward := func(size int) (int, int) {
				end := place("pagination.before", func(k tieKey) int {
					return sort.Search(n, func(i int) bool { return !lt(list[i].key, k) })
				}, n)
				return max(0, end-size), end
			}
			var start, end int
			if size, err := strconv.Atoi(firstOf(q, "pagination.first")); err == nil {
				start, end = forward(size)
			} else if size, err := strconv.Atoi(firstOf(q, "pagination.last")); err == nil {
				start, end = backward(size)
			} else if q.Has("pagination.before") {
				start, end = backward(mockDefaultPageSizeInt)
			} else {
				start, end = forward(mockDefaultPageSizeInt)
			}
			es := make([]any, 0, end-start)
			for _, rw := range list[start:end] {
				es = append(es, rw.edge)
			}
			setEdges(c, es)
			pi := pageInfo(c)
			pi["hasNextPage"], pi["hasPreviousPage"] = end < n, start > 0
			a.write(w)
		})
	}
}

// firstOf returns the first value of the first of the names the query
// has, or "".
func firstOf(q url.Values, names ...string) string {
	for _, n := range names {
		if v, ok := q[n]; ok && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}
