package paging

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
)

// Row is one record of a listing with its cursor and sort key.
type Row struct {
	// Cursor is the row's cursor, Node the record decoded (numbers as
	// json.Number), Key its sort key or KeyErr why it could not be read.
	Cursor string
	Node   map[string]any
	Key    RowKey
	KeyErr error
	// Ident names the row in comparisons and messages: its key, or its
	// cursor when the key cannot be read.
	Ident string
}

// pageInfo is a page's pageInfo object.
type pageInfo struct {
	StartCursor, EndCursor string
	HasNext, HasPrev       bool
}

// Page is one decoded 200 answer of a paged listing.
type Page struct {
	// Ex is the answer; Rows and Info are its rows and pageInfo.
	Ex   *client.Exchange
	Rows []Row
	Info pageInfo
}

// decodePage reads a 200 answer of a paged listing. It fails only when the
// body cannot be used at all; a record whose key cannot be read is kept
// with keyErr set.
//
// The body is decoded once, whole (numbers as json.Number): the walks read
// thousands of pages, and decoding each part again on its own cost most of
// a run's time.
func decodePage(l *PagedListing, ex *client.Exchange) (*Page, error) {
	if ex.Err != nil {
		return nil, fmt.Errorf("no response: %w", ex.Err)
	}
	if ex.Status != 200 {
		return nil, fmt.Errorf("HTTP %d, want 200", ex.Status)
	}
	top, err := client.DecodeObject(ex.Body)
	if err != nil {
		return nil, fmt.Errorf("body is not a JSON object: %w", err)
	}
	v, ok := top[l.field]
	if !ok {
		return nil, fmt.Errorf("body has no %q field", l.field)
	}
	conn, ok := v.(map[string]any)
	if !ok && v != nil {
		return nil, fmt.Errorf("field %q is not a page of edges: it is %s", l.field, jsonKind(v))
	}
	edges, ok := conn["edges"].([]any)
	if !ok && conn["edges"] != nil {
		return nil, fmt.Errorf("field %q is not a page of edges: its edges are %s", l.field, jsonKind(conn["edges"]))
	}
	info, ok := conn["pageInfo"].(map[string]any)
	if !ok {
		if conn["pageInfo"] == nil {
			return nil, fmt.Errorf("%s.pageInfo is missing", l.field)
		}
		return nil, fmt.Errorf("field %q is not a page of edges: its pageInfo is %s", l.field, jsonKind(conn["pageInfo"]))
	}
	p := &Page{Ex: ex}
	if p.Info, err = decodePageInfo(info); err != nil {
		return nil, fmt.Errorf("%s.pageInfo: %w", l.field, err)
	}
	for i, e := range edges {
		edge, ok := e.(map[string]any)
		if !ok && e != nil {
			return nil, fmt.Errorf("field %q is not a page of edges: edge %d is %s", l.field, i, jsonKind(e))
		}
		r, err := decodeEdge(l, edge)
		if err != nil {
			return nil, fmt.Errorf("%s.edges[%d]: %w", l.field, i, err)
		}
		p.Rows = append(p.Rows, r)
	}
	return p, nil
}

// jsonKind names the kind of a decoded JSON value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// decodePageInfo reads pageInfo's four members; a null one reads as its
// zero value, as encoding/json reads null.
func decodePageInfo(m map[string]any) (pageInfo, error) {
	var pi pageInfo
	for _, f := range []struct {
		name string
		str  *string
		flag *bool
	}{
		{"startCursor", &pi.StartCursor, nil},
		{"endCursor", &pi.EndCursor, nil},
		{"hasNextPage", nil, &pi.HasNext},
		{"hasPreviousPage", nil, &pi.HasPrev},
	} {
		v, ok := m[f.name]
		switch {
		case !ok:
			return pi, fmt.Errorf("%s is missing", f.name)
		case v == nil:
		case f.str != nil:
			if *f.str, ok = v.(string); !ok {
				return pi, fmt.Errorf("%s is %s, not a string", f.name, jsonKind(v))
			}
		default:
			if *f.flag, ok = v.(bool); !ok {
				return pi, fmt.Errorf("%s is %s, not a boolean", f.name, jsonKind(v))
			}
		}
	}
	return pi, nil
}

func decodeEdge(l *PagedListing, e map[string]any) (Row, error) {
	var r Row
	switch c := e["cursor"].(type) {
	case string:
		r.Cursor = c
	case nil:
		if _, ok := e["cursor"]; !ok {
			return r, fmt.Errorf("cursor is missing")
		}
	default:
		return r, fmt.Errorf("cursor is %s, not a string", jsonKind(c))
	}
	v, ok := e["node"]
	if !ok {
		return r, fmt.Errorf("node is missing")
	}
	node, ok := v.(map[string]any)
	if !ok {
		return r, fmt.Errorf("node is %s, not an object", jsonKind(v))
	}
	r.Node = node
	r.Key, r.KeyErr = l.keyOf(node)
	if r.KeyErr != nil {
		r.Ident = fmt.Sprintf("a %s row whose key cannot be read (%v), cursor %q", l.Label, r.KeyErr, r.Cursor)
	} else {
		r.Ident = l.describe(r.Key)
	}
	return r, nil
}

// Compact is the row's record as JSON with its object keys sorted and no
// space, for comparing whole records (numbers as sent).
func (r Row) Compact() string {
	b, err := json.Marshal(r.Node) // sorts object keys
	if err != nil {
		return fmt.Sprintf("%v", r.Node)
	}
	return string(b)
}

// Walk is a sequence of pages fetched by following cursors.
type Walk struct {
	// What says how the walk was made, for messages.
	What string
	// Pages are the walk's pages, as fetched.
	Pages []*Page
	// Rows are the walk's rows in listing order (a backward walk's pages
	// are put back in listing order).
	Rows []Row
	// Complete is true when the walk reached the end of the listing within
	// the page bound.
	Complete bool
	// Err is set when the walk broke off: a page was not a usable 200
	// answer, or a cursor did not move the walk on. ErrEx is the request.
	Err   error
	ErrEx *client.Exchange
	// CaughtUp counts the rows at the listing's newest end added to Rows
	// from the walk's end asked again, when its last page came from an
	// older head (PagedState's catchUp).
	CaughtUp int
}

// broken returns a failure message when the walk broke off, else "".
func (w *Walk) broken() string {
	if w.Err == nil {
		return ""
	}
	msg := fmt.Sprintf("The %s broke off: %v\n", w.What, w.Err)
	if w.ErrEx != nil {
		msg += w.ErrEx.Describe()
	}
	return msg
}

// CloneValues returns a copy of a query.
func CloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// With returns a copy of q with the pairs set (name, value, name, value...).
func With(q url.Values, pairs ...string) url.Values {
	out := CloneValues(q)
	for i := 0; i+1 < len(pairs); i += 2 {
		out.Set(pairs[i], pairs[i+1])
	}
	return out
}

// Walker fetches pages of one paged listing.
type Walker struct {
	// Client asks the pages of Listing.
	Client   *client.Client
	Listing  *PagedListing
	maxPages int
}

// Page fetches one page with the query.
func (wk Walker) Page(q url.Values) (*Page, *client.Exchange, error) {
	ex := wk.Client.Get(wk.Client.Config.BaseURL, wk.Listing.Path, q)
	p, err := decodePage(wk.Listing, ex)
	return p, ex, err
}

// Forward walks with first=size from after ("" for the start) until
// hasNextPage is false, a page is empty, or maxPages pages were fetched.
func (wk Walker) Forward(q url.Values, size int, after string) *Walk {
	w := &Walk{What: fmt.Sprintf("forward walk (pagination.first=%d%s)", size, DescribeQuery(q))}
	cursor := after
	for i := 0; i < wk.maxPages; i++ {
		pq := With(q, "pagination.first", strconv.Itoa(size))
		if cursor != "" {
			pq.Set("pagination.after", cursor)
		}
		p, ex, err := wk.Page(pq)
		if err != nil {
			w.Err, w.ErrEx = fmt.Errorf("page %d: %w%s", i+1, err, WithHint(ex)), ex
			return w
		}
		w.Pages = append(w.Pages, p)
		w.Rows = append(w.Rows, p.Rows...)
		if len(p.Rows) == 0 || !p.Info.HasNext {
			w.Complete = true
			return w
		}
		next := p.Info.EndCursor
		if next == "" || next == cursor {
			w.Err, w.ErrEx = fmt.Errorf("page %d says hasNextPage but its endCursor %q does not move the walk on", i+1, next), ex
			return w
		}
		cursor = next
	}
	return w
}

// backward walks with last=size from before ("" for the end) until
// hasPreviousPage is false, a page is empty, or maxPages pages were
// fetched. The rows come out in listing order.
func (wk Walker) backward(q url.Values, size int, before string) *Walk {
	anchor := ""
	if before != "" {
		anchor = ", from a cursor"
	}
	w := &Walk{What: fmt.Sprintf("backward walk (pagination.last=%d%s%s)", size, DescribeQuery(q), anchor)}
	cursor := before
	for i := 0; i < wk.maxPages; i++ {
		pq := With(q, "pagination.last", strconv.Itoa(size))
		if cursor != "" {
			pq.Set("pagination.before", cursor)
		}
		p, ex, err := wk.Page(pq)
		if err != nil {
			w.Err, w.ErrEx = fmt.Errorf("page %d: %w%s", i+1, err, WithHint(ex)), ex
			return w
		}
		w.Pages = append(w.Pages, p)
		w.Rows = append(append([]Row(nil), p.Rows...), w.Rows...)
		if len(p.Rows) == 0 || !p.Info.HasPrev {
			w.Complete = true
			return w
		}
		next := p.Info.StartCursor
		if next == "" || next == cursor {
			w.Err, w.ErrEx = fmt.Errorf("page %d says hasPreviousPage but its startCursor %q does not move the walk on", i+1, next), ex
			return w
		}
		cursor = next
	}
	return w
}

// DescribeQuery writes the non-pagination part of a walk's query.
func DescribeQuery(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return ", " + q.Encode()
}

// pageWith returns the page of w holding the row, for messages.
func (w *Walk) pageWith(ident string) *Page {
	for _, p := range w.Pages {
		for _, r := range p.Rows {
			if r.Ident == ident {
				return p
			}
		}
	}
	return nil
}

// Cutoff leaves out of comparisons the rows that arrived while the suite
// ran. On a live network new rows keep appearing at the newest end, so a
// walk made later sees rows an earlier walk could not. Rows newer than every
// row of the listing's first walk are such arrivals, by the primary key of
// the order (epoch, block height, block): a row with a newer one, or with
// the newest one but not among the first walk's rows that have it (the
// spec does not order rows that share a key, so which of them count as
// newest is not read from the tie order). In data that does not change,
// no row is an arrival.
type Cutoff struct {
	newest *RowKey
	// newestRows are the identities of the first walk's rows that have the
	// newest primary key.
	newestRows map[string]bool
	cmp        func(a, b RowKey) int
}

// NewCutoff takes the newest primary key of the rows of a listing's first
// walk, and the rows that have it.
func NewCutoff(rows []Row, cmp func(a, b RowKey) int) Cutoff {
	c := Cutoff{cmp: cmp}
	for _, r := range rows {
		if r.KeyErr != nil {
			continue
		}
		if c.newest == nil || c.primary(r.Key, *c.newest) < 0 {
			k := r.Key
			c.newest = &k
		}
	}
	if c.newest != nil {
		c.newestRows = map[string]bool{}
		for _, r := range rows {
			if r.KeyErr == nil && r.Key.Num == c.newest.Num {
				c.newestRows[r.Ident] = true
			}
		}
	}
	return c
}

// primary compares two keys by their primary part alone.
func (c Cutoff) primary(a, b RowKey) int { return c.cmp(RowKey{Num: a.Num}, RowKey{Num: b.Num}) }

// arrived reports whether a row arrived after the first walk.
func (c Cutoff) arrived(r Row) bool {
	if r.KeyErr != nil {
		return false
	}
	if p := c.primary(r.Key, *c.newest); p != 0 {
		return p < 0
	}
	return !c.newestRows[r.Ident]
}

// Settle returns the rows without the arrivals, and whether it left any
// out. A page limited by a count that held arrivals ends early by as many
// rows.
func (c Cutoff) Settle(rows []Row) ([]Row, bool) {
	if c.newest == nil {
		return rows, false
	}
	var kept []Row
	for _, r := range rows {
		if c.arrived(r) {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == len(rows) {
		return rows, false
	}
	return kept, true
}

// NewestMissing returns how many rows at the start of want, the newest end
// of the listing in default order, are newer by primary key than every row
// of got: the rows a walk that met an older head (a replica a block
// behind) lacks. It is 0 when got has no row whose key can be read, and
// for a listing without an age (network parameters).
func (c Cutoff) NewestMissing(want, got []Row) int {
	if c.cmp == nil {
		return 0
	}
	var newest *RowKey
	for _, r := range got {
		if r.KeyErr == nil && (newest == nil || c.primary(r.Key, *newest) < 0) {
			k := r.Key
			newest = &k
		}
	}
	if newest == nil {
		return 0
	}
	n := 0
	for n < len(want) && want[n].KeyErr == nil && c.primary(want[n].Key, *newest) < 0 {
		n++
	}
	return n
}

// PageOf returns the page of w holding row index i, for messages.
func (w *Walk) PageOf(i int) *Page {
	n := 0
	for _, p := range w.Pages {
		n += len(p.Rows)
		if i < n {
			return p
		}
	}
	return nil
}

// idents lists the rows' identities.
func idents(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Ident
	}
	return out
}

// Reversed returns the rows in reverse order.
func Reversed(rows []Row) []Row {
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = r
	}
	return out
}

// Repeats describes the first rows that occur twice in rows, or "".
func Repeats(rows []Row) (string, int) {
	seen := map[string]int{}
	var lines []string
	first := -1
	for i, r := range rows {
		if j, ok := seen[r.Ident]; ok {
			if first < 0 {
				first = i
			}
			if len(lines) < 5 {
				lines = append(lines, fmt.Sprintf("    %s is row %d and again row %d", r.Ident, j, i))
			}
			continue
		}
		seen[r.Ident] = i
	}
	return strings.Join(lines, "\n"), first
}

// DiffPrefix compares two sequences that should be equal. A sequence that
// is not complete was cut short by the page bound, so only the rows both
// reached are compared, and a complete sequence must not end before an
// incomplete one. It returns "" when they agree.
func DiffPrefix(gotName string, got []Row, gotComplete bool, wantName string, want []Row, wantComplete bool) string {
	msg, _ := diffPrefixAt(gotName, got, gotComplete, wantName, want, wantComplete)
	return msg
}

// diffPrefixAt is diffPrefix that also returns the index of the first
// difference (-1 when they agree).
func diffPrefixAt(gotName string, got []Row, gotComplete bool, wantName string, want []Row, wantComplete bool) (string, int) {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if got[i].Ident != want[i].Ident {
			return fmt.Sprintf("row %d differs: the %s has %s, the %s has %s%s",
				i, gotName, got[i].Ident, wantName, want[i].Ident, around(got, want, i)), i
		}
	}
	switch {
	case len(got) < len(want) && gotComplete:
		return fmt.Sprintf("the %s ends after %d rows, but the %s goes on with %s (row %d)",
			gotName, len(got), wantName, want[len(got)].Ident, len(got)), len(got)
	case len(want) < len(got) && wantComplete:
		return fmt.Sprintf("the %s has %d rows, the %s only %d; its first extra row is %s (row %d)",
			gotName, len(got), wantName, len(want), got[len(want)].Ident, len(want)), len(want)
	}
	return "", -1
}

// SameRows compares two sequences as sets of rows (each row as often in
// one as in the other), within what both reached when either is not
// complete: for orders the spec leaves open among rows that share a key.
// It returns "" when they agree.
func SameRows(gotName string, got []Row, gotComplete bool, wantName string, want []Row, wantComplete bool) string {
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
		count[r.Ident]++
	}
	for _, r := range got {
		count[r.Ident]--
	}
	var missing, extra []string
	for _, r := range want {
		if count[r.Ident] > 0 {
			missing = append(missing, r.Ident)
			count[r.Ident] = 0
		}
	}
	for _, r := range got {
		if count[r.Ident] < 0 {
			extra = append(extra, r.Ident)
			count[r.Ident] = 0
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf("the %s and the %s hold different rows: %d of the %s missing (first: %s), %d not in it (first: %s)",
		gotName, wantName, len(missing), wantName, firstOr(missing), len(extra), firstOr(extra))
}

// DiffTiesOpen is DiffPrefix for the answers to two different queries
// (a filter and no filter, two epoch windows), whose common order the spec
// fixes by the primary key alone (epoch, block height, block): rows that
// share one may come in another order in each answer, so each run of them
// is compared as a set. A sequence that is not complete ends inside a run
// the other may end elsewhere in, so its last run is left out. It returns
// "" when they agree.
func DiffTiesOpen(gotName string, got []Row, gotComplete bool, wantName string, want []Row, wantComplete bool) string {
	g, w := tiesSorted(got, gotComplete), tiesSorted(want, wantComplete)
	msg := DiffPrefix(gotName, g, gotComplete, wantName, w, wantComplete)
	if msg == "" {
		return ""
	}
	return msg + "\n    (rows that share their key are compared in any order: the spec does not order them)"
}

// tiesSorted returns the rows with each run that shares a primary key
// sorted by identity, less the last run when the rows are not complete.
// Rows whose key cannot be read stay where they are, each a run of its own.
func tiesSorted(rows []Row, complete bool) []Row {
	if !complete {
		rows = trimTies(rows)
	}
	out := slices.Clone(rows)
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[i].KeyErr == nil && out[j].KeyErr == nil && out[j].Key.Num == out[i].Key.Num {
			j++
		}
		slices.SortStableFunc(out[i:j], func(a, b Row) int { return strings.Compare(a.Ident, b.Ident) })
		i = j
	}
	return out
}

// trimTies drops the rows at the end of rows that share the primary key of
// its last row.
func trimTies(rows []Row) []Row {
	n := len(rows)
	for n > 0 && rows[n-1].KeyErr == nil && rows[len(rows)-1].KeyErr == nil && rows[n-1].Key.Num == rows[len(rows)-1].Key.Num {
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

// WalkDiff compares the rows of a walk (gotRows: got's rows, settled)
// with the rows of another that it should repeat, and records the
// difference with the requests that fetched the differing rows. The walk
// got runs backwards from the end of want; when it is complete it must
// equal want.
func WalkDiff(v *rule.Verdict, got *Walk, gotRows []Row, wantWalk *Walk, want []Row) {
	offset := 0
	var msg string
	var i int
	switch {
	case got.Complete:
		msg, i = diffPrefixAt(got.What, gotRows, true, wantWalk.What, want, true)
	case len(gotRows) > len(want):
		msg, i = fmt.Sprintf("the %s has %d rows, more than the %d of the %s", got.What, len(gotRows), len(want), wantWalk.What), len(want)
	default:
		offset = len(want) - len(gotRows)
		msg, i = diffPrefixAt(got.What, gotRows, false, wantWalk.What, want[offset:], false)
	}
	if msg == "" {
		return
	}
	if p := wantWalk.PageOf(offset + i); p != nil {
		v.Add(p.Ex, "%s\n  the page of the %s around that row:", msg, wantWalk.What)
	} else {
		v.Add(nil, "%s", msg)
	}
	if i < len(gotRows) {
		if p := got.pageWith(gotRows[i].Ident); p != nil {
			v.Add(p.Ex, "the page of the %s around that row:", got.What)
		}
	}
}

// around shows the rows around a difference.
func around(got, want []Row, i int) string {
	var b strings.Builder
	b.WriteString("\n    around it:")
	for j := max(0, i-2); j < i+3; j++ {
		g, w := "-", "-"
		if j < len(got) {
			g = got[j].Ident
		}
		if j < len(want) {
			w = want[j].Ident
		}
		fmt.Fprintf(&b, "\n      row %d: got %s | want %s", j, g, w)
	}
	return b.String()
}

// WithHint is client.CountHint as the end of a message: "; " and the hint, or "".
func WithHint(ex *client.Exchange) string {
	if h := client.CountHint(ex); h != "" {
		return "; " + h
	}
	return ""
}

// FailWalk fails the running spec when a walk it needs broke off.
func FailWalk(ws ...*Walk) {
	GinkgoHelper()
	for _, w := range ws {
		if w == nil {
			continue
		}
		if w.ErrEx != nil && w.ErrEx.Refused {
			rule.SkipRefused(w.ErrEx)
		}
		if msg := w.broken(); msg != "" {
			rule.FailRule(msg)
		}
	}
}

// SubsetDiff compares a filtered walk with the matching rows of the
// unfiltered walk, within the rows both reached, leaving out rows that
// arrived after the unfiltered walk began. The two are answers to different
// queries, so only the order of the primary key (by cmp) is judged: rows
// that share it are compared in any order (DiffTiesOpen), and where a walk
// was cut short the run of rows sharing its last row's key is left out of
// both, as the other may hold more of that run.
func SubsetDiff(cmp func(a, b RowKey) int, cut Cutoff, filtered, unfiltered *Walk, match func(Row) bool) string {
	primary := func(a, b RowKey) int { return cmp(RowKey{Num: a.Num}, RowKey{Num: b.Num}) }
	var limit *RowKey
	for _, w := range []*Walk{unfiltered, filtered} {
		if w.Complete || len(w.Rows) == 0 {
			continue
		}
		last := w.Rows[len(w.Rows)-1]
		if last.KeyErr != nil {
			continue
		}
		if limit == nil || primary(last.Key, *limit) < 0 {
			k := last.Key
			limit = &k
		}
	}
	within := func(r Row) bool { return limit == nil || (r.KeyErr == nil && primary(r.Key, *limit) < 0) }
	var got, want []Row
	settled, _ := cut.Settle(filtered.Rows)
	for _, r := range settled {
		if within(r) {
			got = append(got, r)
		}
	}
	for _, r := range unfiltered.Rows {
		if within(r) && match(r) {
			want = append(want, r)
		}
	}
	return DiffTiesOpen("filtered walk", got, true, "matching rows of the unfiltered walk", want, true)
}
