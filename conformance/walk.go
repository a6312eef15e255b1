package conformance

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
)

// row is one record of a listing with its cursor and sort key.
type row struct {
	cursor string
	node   map[string]any
	// raw is the record as sent, for comparing whole records.
	raw    json.RawMessage
	key    rowKey
	keyErr error
	// ident names the row in comparisons and messages: its key, or its
	// cursor when the key cannot be read.
	ident string
}

// pageInfo is a page's pageInfo object.
type pageInfo struct {
	startCursor, endCursor string
	hasNext, hasPrev       bool
}

// page is one decoded 200 answer of a paged listing.
type page struct {
	ex   *client.Exchange
	rows []row
	info pageInfo
}

// decodePage reads a 200 answer of a paged listing. It fails only when the
// body cannot be used at all; a record whose key cannot be read is kept
// with keyErr set.
func decodePage(l *pagedListing, ex *client.Exchange) (*page, error) {
	if ex.Err != nil {
		return nil, fmt.Errorf("no response: %w", ex.Err)
	}
	if ex.Status != 200 {
		return nil, fmt.Errorf("HTTP %d, want 200", ex.Status)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(ex.Body, &top); err != nil {
		return nil, fmt.Errorf("body is not a JSON object: %w", err)
	}
	var conn struct {
		Edges    []map[string]json.RawMessage `json:"edges"`
		PageInfo map[string]json.RawMessage   `json:"pageInfo"`
	}
	raw, ok := top[l.field]
	if !ok {
		return nil, fmt.Errorf("body has no %q field", l.field)
	}
	if err := json.Unmarshal(raw, &conn); err != nil {
		return nil, fmt.Errorf("field %q is not a page of edges: %w", l.field, err)
	}
	if conn.PageInfo == nil {
		return nil, fmt.Errorf("%s.pageInfo is missing", l.field)
	}
	p := &page{ex: ex}
	var err error
	if p.info, err = decodePageInfo(conn.PageInfo); err != nil {
		return nil, fmt.Errorf("%s.pageInfo: %w", l.field, err)
	}
	for i, e := range conn.Edges {
		r, err := decodeEdge(l, e)
		if err != nil {
			return nil, fmt.Errorf("%s.edges[%d]: %w", l.field, i, err)
		}
		p.rows = append(p.rows, r)
	}
	return p, nil
}

func decodePageInfo(m map[string]json.RawMessage) (pageInfo, error) {
	var pi pageInfo
	for _, f := range []struct {
		name string
		dst  any
	}{
		{"startCursor", &pi.startCursor},
		{"endCursor", &pi.endCursor},
		{"hasNextPage", &pi.hasNext},
		{"hasPreviousPage", &pi.hasPrev},
	} {
		raw, ok := m[f.name]
		if !ok {
			return pi, fmt.Errorf("%s is missing", f.name)
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return pi, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return pi, nil
}

func decodeEdge(l *pagedListing, e map[string]json.RawMessage) (row, error) {
	var r row
	if err := json.Unmarshal(e["cursor"], &r.cursor); err != nil {
		return r, fmt.Errorf("cursor is not a string: %w", err)
	}
	nodeRaw, ok := e["node"]
	if !ok {
		return r, fmt.Errorf("node is missing")
	}
	node, err := client.DecodeObject(nodeRaw)
	if err != nil {
		return r, fmt.Errorf("node: %w", err)
	}
	r.node = node
	r.raw = nodeRaw
	r.key, r.keyErr = l.keyOf(node)
	if r.keyErr != nil {
		r.ident = fmt.Sprintf("a %s row whose key cannot be read (%v), cursor %q", l.label, r.keyErr, r.cursor)
	} else {
		r.ident = l.describe(r.key)
	}
	return r, nil
}

func compactJSON(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, err := json.Marshal(v) // sorts object keys
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// walk is a sequence of pages fetched by following cursors.
type walk struct {
	// what says how the walk was made, for messages.
	what  string
	pages []*page
	// rows are the walk's rows in listing order (a backward walk's pages
	// are put back in listing order).
	rows []row
	// complete is true when the walk reached the end of the listing within
	// the page bound.
	complete bool
	// err is set when the walk broke off: a page was not a usable 200
	// answer, or a cursor did not move the walk on. errEx is the request.
	err   error
	errEx *client.Exchange
}

// broken returns a failure message when the walk broke off, else "".
func (w *walk) broken() string {
	if w.err == nil {
		return ""
	}
	msg := fmt.Sprintf("The %s broke off: %v\n", w.what, w.err)
	if w.errEx != nil {
		msg += w.errEx.Describe()
	}
	return msg
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// with returns a copy of q with the pairs set (name, value, name, value...).
func with(q url.Values, pairs ...string) url.Values {
	out := cloneValues(q)
	for i := 0; i+1 < len(pairs); i += 2 {
		out.Set(pairs[i], pairs[i+1])
	}
	return out
}

// walker fetches pages of one paged listing.
type walker struct {
	c        *client.Client
	l        *pagedListing
	maxPages int
}

// page fetches one page with the query.
func (wk walker) page(q url.Values) (*page, *client.Exchange, error) {
	ex := wk.c.Get(wk.c.Config.BaseURL, wk.l.path, q)
	p, err := decodePage(wk.l, ex)
	return p, ex, err
}

// forward walks with first=size from after ("" for the start) until
// hasNextPage is false, a page is empty, or maxPages pages were fetched.
func (wk walker) forward(q url.Values, size int, after string) *walk {
	w := &walk{what: fmt.Sprintf("forward walk (pagination.first=%d%s)", size, describeQuery(q))}
	cursor := after
	for i := 0; i < wk.maxPages; i++ {
		pq := with(q, "pagination.first", strconv.Itoa(size))
		if cursor != "" {
			pq.Set("pagination.after", cursor)
		}
		p, ex, err := wk.page(pq)
		if err != nil {
			w.err, w.errEx = fmt.Errorf("page %d: %w%s", i+1, err, withHint(ex)), ex
			return w
		}
		w.pages = append(w.pages, p)
		w.rows = append(w.rows, p.rows...)
		if len(p.rows) == 0 || !p.info.hasNext {
			w.complete = true
			return w
		}
		next := p.info.endCursor
		if next == "" || next == cursor {
			w.err, w.errEx = fmt.Errorf("page %d says hasNextPage but its endCursor %q does not move the walk on", i+1, next), ex
			return w
		}
		cursor = next
	}
	return w
}

// backward walks with last=size from before ("" for the end) until
// hasPreviousPage is false, a page is empty, or maxPages pages were
// fetched. The rows come out in listing order.
func (wk walker) backward(q url.Values, size int, before string) *walk {
	anchor := ""
	if before != "" {
		anchor = ", from a cursor"
	}
	w := &walk{what: fmt.Sprintf("backward walk (pagination.last=%d%s%s)", size, describeQuery(q), anchor)}
	cursor := before
	for i := 0; i < wk.maxPages; i++ {
		pq := with(q, "pagination.last", strconv.Itoa(size))
		if cursor != "" {
			pq.Set("pagination.before", cursor)
		}
		p, ex, err := wk.page(pq)
		if err != nil {
			w.err, w.errEx = fmt.Errorf("page %d: %w%s", i+1, err, withHint(ex)), ex
			return w
		}
		w.pages = append(w.pages, p)
		w.rows = append(append([]row(nil), p.rows...), w.rows...)
		if len(p.rows) == 0 || !p.info.hasPrev {
			w.complete = true
			return w
		}
		next := p.info.startCursor
		if next == "" || next == cursor {
			w.err, w.errEx = fmt.Errorf("page %d says hasPreviousPage but its startCursor %q does not move the walk on", i+1, next), ex
			return w
		}
		cursor = next
	}
	return w
}

// describeQuery writes the non-pagination part of a walk's query.
func describeQuery(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return ", " + q.Encode()
}

// pageWith returns the page of w holding the row, for messages.
func (w *walk) pageWith(ident string) *page {
	for _, p := range w.pages {
		for _, r := range p.rows {
			if r.ident == ident {
				return p
			}
		}
	}
	return nil
}

// cutoff leaves out of comparisons the rows that arrived while the suite
// ran. On a live network new rows keep appearing at the newest end, so a
// walk made later sees rows an earlier walk could not. Rows newer than every
// row of the listing's first walk are such arrivals; in data that does not
// change, no row is.
type cutoff struct {
	newest *rowKey
	cmp    func(a, b rowKey) int
}

// newCutoff takes the newest of the rows of a listing's first walk.
func newCutoff(rows []row, cmp func(a, b rowKey) int) cutoff {
	c := cutoff{cmp: cmp}
	for _, r := range rows {
		if r.keyErr != nil {
			continue
		}
		if c.newest == nil || cmp(r.key, *c.newest) < 0 {
			k := r.key
			c.newest = &k
		}
	}
	return c
}

// settle returns the rows without the arrivals, and whether it left any
// out. A page limited by a count that held arrivals ends early by as many
// rows.
func (c cutoff) settle(rows []row) ([]row, bool) {
	if c.newest == nil {
		return rows, false
	}
	var kept []row
	for _, r := range rows {
		if r.keyErr == nil && c.cmp(r.key, *c.newest) < 0 {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == len(rows) {
		return rows, false
	}
	return kept, true
}

// pageOf returns the page of w holding row index i, for messages.
func (w *walk) pageOf(i int) *page {
	n := 0
	for _, p := range w.pages {
		n += len(p.rows)
		if i < n {
			return p
		}
	}
	return nil
}

// idents lists the rows' identities.
func idents(rows []row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ident
	}
	return out
}

func reversed(rows []row) []row {
	out := make([]row, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = r
	}
	return out
}

// repeats describes the first rows that occur twice in rows, or "".
func repeats(rows []row) (string, int) {
	seen := map[string]int{}
	var lines []string
	first := -1
	for i, r := range rows {
		if j, ok := seen[r.ident]; ok {
			if first < 0 {
				first = i
			}
			if len(lines) < 5 {
				lines = append(lines, fmt.Sprintf("    %s is row %d and again row %d", r.ident, j, i))
			}
			continue
		}
		seen[r.ident] = i
	}
	return strings.Join(lines, "\n"), first
}

// diffPrefix compares two sequences that should be equal. A sequence that
// is not complete was cut short by the page bound, so only the rows both
// reached are compared, and a complete sequence must not end before an
// incomplete one. It returns "" when they agree.
func diffPrefix(gotName string, got []row, gotComplete bool, wantName string, want []row, wantComplete bool) string {
	msg, _ := diffPrefixAt(gotName, got, gotComplete, wantName, want, wantComplete)
	return msg
}

// diffPrefixAt is diffPrefix that also returns the index of the first
// difference (-1 when they agree).
func diffPrefixAt(gotName string, got []row, gotComplete bool, wantName string, want []row, wantComplete bool) (string, int) {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if got[i].ident != want[i].ident {
			return fmt.Sprintf("row %d differs: the %s has %s, the %s has %s%s",
				i, gotName, got[i].ident, wantName, want[i].ident, around(got, want, i)), i
		}
	}
	switch {
	case len(got) < len(want) && gotComplete:
		return fmt.Sprintf("the %s ends after %d rows, but the %s goes on with %s (row %d)",
			gotName, len(got), wantName, want[len(got)].ident, len(got)), len(got)
	case len(want) < len(got) && wantComplete:
		return fmt.Sprintf("the %s has %d rows, the %s only %d; its first extra row is %s (row %d)",
			gotName, len(got), wantName, len(want), got[len(want)].ident, len(want)), len(want)
	}
	return "", -1
}

// sameRows compares two sequences as sets of rows (each row as often in
// one as in the other), within what both reached when either is not
// complete: for orders the spec leaves open among rows that share a key.
// It returns "" when they agree.
func sameRows(gotName string, got []row, gotComplete bool, wantName string, want []row, wantComplete bool) string {
	shorterComplete := gotComplete && len(got) < len(want) || wantComplete && len(want) < len(got)
	if !(gotComplete && wantComplete) && !shorterComplete {
		// Both reach as far as the shorter: compare that prefix, less the
		// rows that share the key of its last row (their order is open, so
		// the prefixes may end inside that group differently).
		n := min(len(got), len(want))
		got, want = trimTies(got[:n]), trimTies(want[:n])
	}
	count := map[string]int{}
	for _, r := range want {
		count[r.ident]++
	}
	for _, r := range got {
		count[r.ident]--
	}
	var missing, extra []string
	for _, r := range want {
		if count[r.ident] > 0 {
			missing = append(missing, r.ident)
			count[r.ident] = 0
		}
	}
	for _, r := range got {
		if count[r.ident] < 0 {
			extra = append(extra, r.ident)
			count[r.ident] = 0
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf("the %s and the %s hold different rows: %d of the %s missing (first: %s), %d not in it (first: %s)",
		gotName, wantName, len(missing), wantName, firstOr(missing), len(extra), firstOr(extra))
}

// trimTies drops the rows at the end of rows that share the primary key of
// its last row.
func trimTies(rows []row) []row {
	n := len(rows)
	for n > 0 && rows[n-1].keyErr == nil && rows[len(rows)-1].keyErr == nil && rows[n-1].key.num == rows[len(rows)-1].key.num {
		n--
	}
	return rows[:n]
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return s[0]
}

// walkDiff compares the rows of a walk (gotRows: got's rows, settled)
// with the rows of another that it should repeat, and records the
// difference with the requests that fetched the differing rows. The walk
// got runs backwards from the end of want; when it is complete it must
// equal want.
func walkDiff(v *rule.Verdict, got *walk, gotRows []row, wantWalk *walk, want []row) {
	offset := 0
	var msg string
	var i int
	switch {
	case got.complete:
		msg, i = diffPrefixAt(got.what, gotRows, true, wantWalk.what, want, true)
	case len(gotRows) > len(want):
		msg, i = fmt.Sprintf("the %s has %d rows, more than the %d of the %s", got.what, len(gotRows), len(want), wantWalk.what), len(want)
	default:
		offset = len(want) - len(gotRows)
		msg, i = diffPrefixAt(got.what, gotRows, false, wantWalk.what, want[offset:], false)
	}
	if msg == "" {
		return
	}
	if p := wantWalk.pageOf(offset + i); p != nil {
		v.Add(p.ex, "%s\n  the page of the %s around that row:", msg, wantWalk.what)
	} else {
		v.Add(nil, "%s", msg)
	}
	if i < len(gotRows) {
		if p := got.pageWith(gotRows[i].ident); p != nil {
			v.Add(p.ex, "the page of the %s around that row:", got.what)
		}
	}
}

// around shows the rows around a difference.
func around(got, want []row, i int) string {
	var b strings.Builder
	b.WriteString("\n    around it:")
	for j := max(0, i-2); j < i+3; j++ {
		g, w := "-", "-"
		if j < len(got) {
			g = got[j].ident
		}
		if j < len(want) {
			w = want[j].ident
		}
		fmt.Fprintf(&b, "\n      row %d: got %s | want %s", j, g, w)
	}
	return b.String()
}

// withHint is countHint as the end of a message: "; " and the hint, or "".
func withHint(ex *client.Exchange) string {
	if h := client.CountHint(ex); h != "" {
		return "; " + h
	}
	return ""
}

// failWalk fails the running spec when a walk it needs broke off.
func failWalk(ws ...*walk) {
	GinkgoHelper()
	for _, w := range ws {
		if w == nil {
			continue
		}
		if w.errEx != nil && w.errEx.Refused {
			rule.SkipRefused(w.errEx)
		}
		if msg := w.broken(); msg != "" {
			rule.FailRule(msg)
		}
	}
}
