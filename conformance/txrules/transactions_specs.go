package txrules

import (
	"crypto/sha256"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/chaindata/harness/conformance/answerrules"
	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
)

// TransactionsPath is the transaction listing's path under the
// transactions URL.
const TransactionsPath = "/transactions"

// txCompare orders transactions newest first: block descending, then index
// in block descending.
func txCompare(a, b paging.RowKey) int {
	switch {
	case a.Num != b.Num:
		if a.Num > b.Num {
			return -1
		}
		return 1
	case a.Sub > b.Sub:
		return -1
	case a.Sub < b.Sub:
		return 1
	}
	return 0
}

// decodeTransactions reads a 200 answer of the transaction listing.
func decodeTransactions(ex *client.Exchange) (*paging.Page, error) {
	if ex.Err != nil {
		return nil, fmt.Errorf("no response: %w", ex.Err)
	}
	if ex.Status != 200 {
		return nil, fmt.Errorf("HTTP %d, want 200", ex.Status)
	}
	// The body is decoded once, whole (numbers as json.Number).
	top, err := client.DecodeObject(ex.Body)
	if err != nil {
		return nil, fmt.Errorf("body is not an object with a transactions array: %w", err)
	}
	txs, ok := top["transactions"].([]any)
	if !ok {
		return nil, fmt.Errorf("body has no transactions array")
	}
	p := &paging.Page{Ex: ex}
	for i, v := range txs {
		node, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("transactions[%d] is not an object", i)
		}
		p.Rows = append(p.Rows, txRow(node))
	}
	return p, nil
}

// txRow makes a row of a transaction. A row is known by its cursor and the
// spec's fields only: its sort key is its block (and its index in the
// block, a field the spec does not show, when it is there); it is named by
// its cursor, or without one by its block and a digest of its content.
func txRow(node map[string]any) paging.Row {
	r := paging.Row{Node: node}
	r.Cursor, _ = paging.StringField(node, "cursor")
	r.Key.Num, r.KeyErr = paging.UintField(node, "block")
	if idx, err := paging.UintField(node, "index"); err == nil {
		r.Key.Sub = idx
	}
	switch {
	case r.KeyErr != nil:
		r.Ident = fmt.Sprintf("a transaction whose block cannot be read (%v), cursor %q", r.KeyErr, r.Cursor)
	case r.Cursor != "":
		r.Ident = fmt.Sprintf("transaction %s (block %d)", r.Cursor, r.Key.Num)
	default:
		sum := sha256.Sum256([]byte(r.Compact()))
		r.Ident = fmt.Sprintf("transaction block=%d #%x", r.Key.Num, sum[:6])
	}
	return r
}

// txState is what the transaction rules share.
type txState struct {
	cfg  config.Config
	c    *client.Client
	size int
	// down walks from the newest transaction towards the oldest; up walks
	// back from down's oldest row towards the newest.
	down, up *paging.Walk
	// cut leaves out transactions that arrive during the run.
	cut paging.Cutoff

	mu sync.Mutex
	// seen holds every transaction any answer has shown, once each, for
	// rules that look for evidence beyond one walk.
	seen      []paging.Row
	seenIdent map[string]bool
}

func (ts *txState) setUp() {
	ts.cfg = rule.ActiveConfig()
	ts.c = client.NewClient(ts.cfg)
	ts.size = ts.cfg.PageSize
	ts.seenIdent = map[string]bool{}
	if p, _, err := ts.page(url.Values{"first": {strconv.Itoa(ts.size)}}); err == nil && len(p.Rows) < ts.size {
		ts.size = max(1, min(ts.cfg.PageSize, (len(p.Rows)+3)/4))
	}
	ts.down = ts.walkDown(nil)
	ts.cut = paging.NewCutoff(ts.down.Rows, txCompare)
	if ts.down.Err == nil && len(ts.down.Rows) > 0 {
		anchor := ts.down.Rows[len(ts.down.Rows)-1]
		ts.up = ts.walkUp(anchor)
		ts.catchUp(anchor)
	}
}

// catchUp asks the walk up again from where it took its last page when it
// lacks the walk down's newest rows: a replica a block behind may answer
// that page (paging.Cutoff.CatchUp). The page before the last one asked
// with its newest row's cursor, and the first with the anchor's.
func (ts *txState) catchUp(anchor paging.Row) {
	ts.cut.CatchUp(ts.down.Rows, ts.up, false, func(before *paging.Page) *paging.Walk {
		from := anchor
		if before != nil {
			from = before.Rows[0]
		}
		return ts.walkUp(from)
	})
}

func (ts *txState) page(q url.Values) (*paging.Page, *client.Exchange, error) {
	ex := ts.c.Get(ts.cfg.TransactionsURL, TransactionsPath, q)
	p, err := decodeTransactions(ex)
	if err == nil {
		ts.mu.Lock()
		for _, r := range p.Rows {
			if !ts.seenIdent[r.Ident] {
				ts.seenIdent[r.Ident] = true
				ts.seen = append(ts.seen, r)
			}
		}
		ts.mu.Unlock()
	}
	return p, ex, err
}

// seenRows returns every transaction seen so far.
func (ts *txState) seenRows() []paging.Row {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Clone(ts.seen)
}

func (ts *txState) mustPage(q url.Values) *paging.Page {
	GinkgoHelper()
	p, ex, err := ts.page(q)
	if err != nil {
		if ex.Refused {
			rule.SkipRefused(ex)
		}
		rule.FailRule(fmt.Sprintf("A transactions answer could not be read: %v%s\n%s", err, paging.WithHint(ex), ex.Describe()))
	}
	return p
}

// firstAloneAtItsMoment judges first=k alone on a chain that grew past
// the walk by k rows or more, against the listing as it stood when it
// answered: nothing is newer than the answer's newest row (first=1&after
// it, asked at once, comes back empty; asked again while a block lands in
// between), and the answer's other rows are the k-1 just older than its
// newest (last=k-1&before it).
func (ts *txState) firstAloneAtItsMoment(v *rule.Verdict, k int) {
	GinkgoHelper()
	for range 20 {
		a := ts.mustPage(url.Values{"first": {strconv.Itoa(k)}})
		if len(a.Rows) == 0 {
			v.Add(a.Ex, "0 rows, want %d", k)
			return
		}
		newer := ts.mustPage(url.Values{"first": {"1"}, "after": {a.Rows[0].Cursor}})
		if len(newer.Rows) > 0 {
			continue // a block landed in between: ask again
		}
		v.Judged(len(a.Rows))
		if len(a.Rows) != k {
			v.Add(a.Ex, "%d rows, want %d", len(a.Rows), k)
		}
		if k > 1 {
			older := ts.mustPage(url.Values{"last": {strconv.Itoa(k - 1)}, "before": {a.Rows[0].Cursor}})
			if d := paging.DiffPrefix("answer after its newest row", a.Rows[1:], true,
				fmt.Sprintf("rows just older than it (last=%d&before=%s)", k-1, a.Rows[0].Cursor), older.Rows, true); d != "" {
				v.Add(a.Ex, "%s", d)
			}
		}
		return
	}
}

// walkDown fetches first=size, then last=size&before=<oldest row> until a
// page is short or the page bound is reached.
func (ts *txState) walkDown(q url.Values) *paging.Walk {
	w := &paging.Walk{What: fmt.Sprintf("walk from the newest transaction to the oldest (first=%d, then last=%d&before=C%s)", ts.size, ts.size, paging.DescribeQuery(q))}
	pq := paging.With(q, "first", strconv.Itoa(ts.size))
	for i := 0; i < ts.cfg.MaxPages; i++ {
		p, ex, err := ts.page(pq)
		if err != nil {
			w.Err, w.ErrEx = fmt.Errorf("page %d: %w%s", i+1, err, paging.WithHint(ex)), ex
			return w
		}
		w.Pages = append(w.Pages, p)
		w.Rows = append(w.Rows, p.Rows...)
		if len(p.Rows) < ts.size {
			w.Complete = true
			return w
		}
		oldest := p.Rows[len(p.Rows)-1]
		if oldest.Cursor == "" {
			w.Err, w.ErrEx = fmt.Errorf("page %d: %s has no cursor to page on with", i+1, oldest.Ident), ex
			return w
		}
		pq = paging.With(q, "last", strconv.Itoa(ts.size), "before", oldest.Cursor)
	}
	return w
}

// walkUp fetches first=size&after=<newest row> from the anchor until a page
// is short or the page bound is reached. Its rows come out newest first.
func (ts *txState) walkUp(anchor paging.Row) *paging.Walk {
	w := &paging.Walk{What: fmt.Sprintf("walk from %s up to the newest (first=%d&after=C)", anchor.Ident, ts.size)}
	cursor := anchor.Cursor
	for i := 0; i < ts.cfg.MaxPages; i++ {
		p, ex, err := ts.page(url.Values{"first": {strconv.Itoa(ts.size)}, "after": {cursor}})
		if err != nil {
			w.Err, w.ErrEx = fmt.Errorf("page %d: %w%s", i+1, err, paging.WithHint(ex)), ex
			return w
		}
		w.Pages = append(w.Pages, p)
		w.Rows = append(append([]paging.Row(nil), p.Rows...), w.Rows...)
		if len(p.Rows) < ts.size {
			w.Complete = true
			return w
		}
		if p.Rows[0].Cursor == "" || p.Rows[0].Cursor == cursor {
			w.Err, w.ErrEx = fmt.Errorf("page %d: its newest row has cursor %q, which does not move the walk on", i+1, p.Rows[0].Cursor), ex
			return w
		}
		cursor = p.Rows[0].Cursor
	}
	return w
}

func (ts *txState) rows(n int) []paging.Row {
	GinkgoHelper()
	paging.FailWalk(ts.down)
	if len(ts.down.Rows) < n {
		rule.Skipf("the transaction listing has %d rows; this rule needs at least %d", len(ts.down.Rows), n)
	}
	return ts.down.Rows
}

// TransactionsRules are the rules of the transactions listing (see
// conformance's declareSuite).
func TransactionsRules() {
	ts := &txState{}
	BeforeAll(ts.setUp)

	rule.Area("pagination", func() { txPagingRules(ts) })
	rule.Area("filters", func() { txFilterRules(ts) })
	rule.Area("errors", func() { txErrorRules(ts) })
	rule.Area("schema", func() {
		answerrules.SchemaRules("ListTransactionsResponse", TransactionsPath,
			rule.Must("2.6", "The transaction listing returns transactions (array). Each element has: ... block | uint64 ... code | int64 ... command | object (the network command, section 2.7)"),
			func() *client.Client { return ts.c }, false, nil)
	})
}

func txPagingRules(ts *txState) {
	rule.Define("rows are newest to oldest: block never increases from row to row", rule.CiteTxOrder, func() {
		ts.rows(2)
		v := rule.NewVerdict("transactions from newest to oldest")
		paging.OrderProblems(v, ts.down, func(a, b paging.Row) bool { return a.Key.Num >= b.Key.Num }, "block increases")
		v.Check()
	})

	rule.Define(`rows are strictly ordered by block then index, newest first, and each cursor is "<block>.<index>"`, rule.Should, func() {
		ts.rows(1)
		v := rule.NewVerdict(`(block, index) strictly descending, and cursor = "<block>.<index>"`)
		paging.OrderProblems(v, ts.down, func(a, b paging.Row) bool { return txCompare(a.Key, b.Key) < 0 }, "out of order")
		for i, r := range ts.down.Rows {
			if _, err := paging.UintField(r.Node, "index"); err != nil {
				v.Add(ts.down.PageOf(i).Ex, "%s has no index: %v", r.Ident, err)
				break
			}
			if r.KeyErr == nil && r.Cursor != fmt.Sprintf("%d.%d", r.Key.Num, r.Key.Sub) {
				v.Add(ts.down.PageOf(i).Ex, "%s has cursor %q", r.Ident, r.Cursor)
				break
			}
		}
		v.Check()
	})

	rule.Define("a walk towards the oldest (last/before) never repeats a row", rule.CiteTxLast, func() {
		rows := ts.rows(1)
		v := rule.NewVerdict("every transaction once in a walk")
		v.Judged(len(rows))
		if msg, i := paging.Repeats(rows); msg != "" {
			v.Add(ts.down.PageOf(i).Ex, "the %s repeats rows:\n%s\n  the first repeat is on this page:", ts.down.What, msg)
		}
		v.Check()
	})

	rule.Define("walking up (first/after) gives the same rows as walking down (last/before)", rule.CiteTxFirst, func() {
		rows := ts.rows(2)
		paging.FailWalk(ts.up)
		v := rule.NewVerdict("first=N&after=C pages from the oldest row reached back up to the newest, through the rows of the walk down")
		v.Judged(len(rows) - 1)
		got, _ := ts.cut.Settle(ts.up.Rows)
		paging.WalkDiff(v, ts.up, got, ts.down, rows[:len(rows)-1])
		v.Check()
	})

	rule.Define("first=N and last=N return N rows while enough rows remain", rule.CiteTxFirst, func() {
		rows := ts.rows(1)
		v := rule.NewVerdict("exactly N rows for first=N or last=N, fewer only at the end of the listing")
		v.Judged(len(ts.down.Pages))
		for i, p := range ts.down.Pages {
			final := i == len(ts.down.Pages)-1 && ts.down.Complete
			if len(p.Rows) != ts.size && !(final && len(p.Rows) < ts.size) {
				v.Add(p.Ex, "page %d of the %s has %d rows, want %d", i+1, ts.down.What, len(p.Rows), ts.size)
			}
		}
		for _, n := range []int{1, 3} {
			if n > len(rows) && ts.down.Complete || n > ts.cfg.PageSize {
				break
			}
			for _, name := range []string{"first", "last"} {
				p := ts.mustPage(url.Values{name: {strconv.Itoa(n)}})
				v.Judged(1)
				if len(p.Rows) != n {
					v.Add(p.Ex, "%s=%d gave %d rows", name, n, len(p.Rows))
				}
			}
		}
		v.Check()
	})

	rule.Define("first=N alone returns the N most recent transactions", rule.CiteTxFirst, func() {
		rows := ts.rows(1)
		k := min(3, len(rows))
		v := rule.NewVerdict("first=%d to give the %d newest transactions", k, k)
		p := ts.mustPage(url.Values{"first": {strconv.Itoa(k)}})
		// Transactions that arrived since the walk began push older ones out.
		got, arrived := ts.cut.Settle(p.Rows)
		v.Judged(len(got))
		if d := paging.DiffPrefix("answer", got, !arrived, ts.down.What, rows[:k], true); d != "" {
			v.Add(p.Ex, "%s", d)
		}
		if len(got) == 0 && len(p.Rows) > 0 {
			ts.firstAloneAtItsMoment(v, k)
		}
		v.Check()
	})

	rule.Define("last=N alone returns the N oldest transactions, newest to oldest", rule.CiteTxLast, func() {
		rows := ts.rows(1)
		k := min(3, len(rows))
		v := rule.NewVerdict("last=%d to give the %d oldest transactions, ordered newest to oldest", k, k)
		p := ts.mustPage(url.Values{"last": {strconv.Itoa(k)}})
		v.Judged(len(p.Rows))
		if ts.down.Complete {
			if d := paging.DiffPrefix("answer", p.Rows, true, "end of the "+ts.down.What, rows[len(rows)-k:], true); d != "" {
				v.Add(p.Ex, "%s", d)
			}
		} else if len(p.Rows) > 0 {
			oldest := p.Rows[len(p.Rows)-1]
			older := ts.mustPage(url.Values{"last": {"1"}, "before": {oldest.Cursor}})
			if len(older.Rows) > 0 {
				v.Add(p.Ex, "%s is older than the answer's oldest row %s", older.Rows[0].Ident, oldest.Ident)
			}
			// Newest to oldest by block: the order inside a block is
			// not the spec's (it does not show the index).
			for i := 1; i < len(p.Rows); i++ {
				if p.Rows[i-1].Key.Num < p.Rows[i].Key.Num {
					v.Add(p.Ex, "row %d (%s) is newer than row %d (%s)", i, p.Rows[i].Ident, i-1, p.Rows[i-1].Ident)
				}
			}
		}
		if len(p.Rows) != k {
			v.Add(p.Ex, "%d rows, want %d", len(p.Rows), k)
		}
		v.Check()
	})

	rule.Define("first=N with after=C returns the N transactions just newer than C", rule.CiteTxFirst, func() {
		rows := ts.rows(2)
		k := min(3, ts.size)
		v := rule.NewVerdict("first=%d&after=C to give the %d transactions closest to C that are newer than it, newest to oldest", k, k)
		for _, i := range paging.ResumeAnchors(len(rows)) {
			i++
			if i >= len(rows) {
				continue
			}
			want := rows[max(0, i-k):i]
			p := ts.mustPage(url.Values{"first": {strconv.Itoa(k)}, "after": {rows[i].Cursor}})
			v.Judged(1)
			got, _ := ts.cut.Settle(p.Rows)
			if d := paging.DiffPrefix("answer after "+rows[i].Ident, got, true, ts.down.What, want, true); d != "" {
				v.Add(p.Ex, "%s", d)
			}
		}
		v.Check()
	})

	rule.Define("last=N with before=C returns the N transactions just older than C", rule.CiteTxLast, func() {
		rows := ts.rows(2)
		k := min(3, ts.size)
		v := rule.NewVerdict("last=%d&before=C to give the %d transactions closest to C that are older than it, newest to oldest", k, k)
		for _, i := range paging.ResumeAnchors(len(rows)) {
			want := rows[i+1 : min(len(rows), i+1+k)]
			complete := ts.down.Complete || i+1+k <= len(rows)
			p := ts.mustPage(url.Values{"last": {strconv.Itoa(k)}, "before": {rows[i].Cursor}})
			v.Judged(1)
			if d := paging.DiffPrefix("answer before "+rows[i].Ident, p.Rows, true, ts.down.What, want, complete); d != "" {
				v.Add(p.Ex, "%s", d)
			}
		}
		v.Check()
	})

	rule.Define("before and after together return every transaction strictly between them", rule.CiteTxWindow, func() {
		rows := ts.rows(3)
		// The rows between must fit in the deployment's default page: no
		// more than --page-size.
		i := len(rows) / 4
		j := min(len(rows)-1, i+1+min(11, ts.cfg.PageSize))
		v := rule.NewVerdict("before=A&after=B to give the transactions older than A and newer than B")
		p := ts.mustPage(url.Values{"before": {rows[i].Cursor}, "after": {rows[j].Cursor}})
		v.Judged(j - i - 1)
		if d := paging.DiffPrefix("answer", p.Rows, true, ts.down.What, rows[i+1:j], true); d != "" {
			v.Add(p.Ex, "%s", d)
		}
		v.Check()
	})

	rule.Define("without a count or cursor the 50 newest transactions are returned", rule.Should, func() {
		rows := ts.rows(1)
		v := rule.NewVerdict("the 50 newest transactions when neither first, last, before nor after is given")
		p := ts.mustPage(nil)
		v.Judged(len(p.Rows))
		want := rows[:min(50, len(rows))]
		got, arrived := ts.cut.Settle(p.Rows)
		if d := paging.DiffPrefix("answer", got, !arrived, ts.down.What, want, ts.down.Complete || len(rows) >= 50); d != "" {
			v.Add(p.Ex, "%s", d)
		}
		v.Check()
	})

	rule.Define("a cursor alone returns the 50 transactions nearest it on its side", rule.Should, func() {
		rows := ts.rows(3)
		i := len(rows) / 2
		v := rule.NewVerdict("before=C alone to give the 50 transactions just older than C, after=C alone the 50 just newer")
		v.Judged(2)
		p := ts.mustPage(url.Values{"before": {rows[i].Cursor}})
		want := rows[i+1 : min(len(rows), i+51)]
		if d := paging.DiffPrefix("answer before "+rows[i].Ident, p.Rows, true, ts.down.What, want, ts.down.Complete || i+51 <= len(rows)); d != "" {
			v.Add(p.Ex, "%s", d)
		}
		p = ts.mustPage(url.Values{"after": {rows[i].Cursor}})
		got, _ := ts.cut.Settle(p.Rows)
		if d := paging.DiffPrefix("answer after "+rows[i].Ident, got, true, ts.down.What, rows[max(0, i-50):i], true); d != "" {
			v.Add(p.Ex, "%s", d)
		}
		v.Check()
	})
}

// txFilter is a filter of the transaction listing.
type txFilter struct {
	name string
	lvl  rule.Level
	// needs names the fields (beyond the spec's) the filter is judged by;
	// a deployment whose transactions lack them cannot be judged.
	needs []string
	// query chooses the filter's parameters from the rows seen, or says why
	// they hold nothing to choose; known, when set, is a row the filtered
	// listing must hold.
	query func(rows []paging.Row) (q url.Values, known *paging.Row, why string)
	match func(node map[string]any, q url.Values) bool
	// more, when set, is a query whose walk adds rows to choose from when
	// the rows seen have none that fit.
	more url.Values
}

// typesByCount lists the command types of rows, most frequent first.
func typesByCount(rows []paging.Row) []string {
	counts := map[string]int{}
	for _, r := range rows {
		if t, err := paging.StringField(r.Node, "type"); err == nil {
			counts[t]++
		}
	}
	types := make([]string, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool {
		if counts[types[i]] != counts[types[j]] {
			return counts[types[i]] > counts[types[j]]
		}
		return types[i] < types[j]
	})
	return types
}

// destinations lists the receivers a command names: the destination of
// every transfer to a party's general account anywhere in it (a transfer's
// destination is a party only for that account type; for a market
// insurance pool it is a market ID; spec 2.10: "party public key for a
// party", of no shape the spec gives).
func destinations(v any) []string {
	var out []string
	var visit func(any)
	visit = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if s, ok := x.(string); ok && k == "destination" && s != "" && t["destinationType"] == "ACCOUNT_TYPE_GENERAL" {
					out = append(out, s)
				}
				visit(x)
			}
		case []any:
			for _, x := range t {
				visit(x)
			}
		}
	}
	visit(v)
	return out
}

func txType(n map[string]any) string {
	t, _ := paging.StringField(n, "type")
	return t
}

func txSubmitter(n map[string]any) string {
	s, _ := paging.StringField(n, "submitter")
	return s
}

func txMatchesParty(n map[string]any, parties []string) bool {
	if slices.Contains(parties, txSubmitter(n)) {
		return true
	}
	for _, d := range destinations(n["command"]) {
		if slices.Contains(parties, d) {
			return true
		}
	}
	return false
}

// missingField returns the first of the fields that no row carries, or "".
func missingField(rows []paging.Row, fields []string) string {
	for _, f := range fields {
		found := false
		for _, r := range rows {
			if _, err := paging.StringField(r.Node, f); err == nil {
				found = true
				break
			}
		}
		if !found {
			return f
		}
	}
	return ""
}

var (
	citeCmdTypes = rule.Must("4.5", "cmdTypes: only transactions with these command types")
	citeExclude  = rule.Must("4.5", "excludeCmdTypes: all transactions except these command types")
	citeParties  = rule.Must("4.5", "parties: party IDs, matching sender or receiver")
)

func txFilters() []txFilter {
	types := func(n int) func(rows []paging.Row) ([]string, string) {
		return func(rows []paging.Row) ([]string, string) {
			ts := typesByCount(rows)
			if len(ts) < n {
				return nil, fmt.Sprintf("the walk has %d command types, the filter needs %d", len(ts), n)
			}
			return ts, ""
		}
	}
	byType := func(param string, pick func(ts []string) []string, n int) func(rows []paging.Row) (url.Values, *paging.Row, string) {
		return func(rows []paging.Row) (url.Values, *paging.Row, string) {
			ts, why := types(n)(rows)
			if why != "" {
				return nil, nil, why
			}
			return url.Values{param: pick(ts)}, nil, ""
		}
	}
	inTypes := func(n map[string]any, q url.Values) bool { return slices.Contains(q["cmdTypes"], txType(n)) }
	notInTypes := func(n map[string]any, q url.Values) bool { return !slices.Contains(q["excludeCmdTypes"], txType(n)) }
	party := func(n map[string]any, q url.Values) bool { return txMatchesParty(n, q["parties"]) }
	return []txFilter{
		{name: "cmdTypes with one type", lvl: citeCmdTypes, needs: []string{"type"},
			query: byType("cmdTypes", func(ts []string) []string { return ts[1:2] }, 2), match: inTypes},
		{name: "cmdTypes with two types", lvl: citeCmdTypes, needs: []string{"type"},
			query: byType("cmdTypes", func(ts []string) []string { return ts[1:3] }, 3), match: inTypes},
		{name: "excludeCmdTypes with one type", lvl: citeExclude, needs: []string{"type"},
			query: byType("excludeCmdTypes", func(ts []string) []string { return ts[0:1] }, 2), match: notInTypes},
		{name: "excludeCmdTypes with two types", lvl: citeExclude, needs: []string{"type"},
			query: byType("excludeCmdTypes", func(ts []string) []string { return ts[0:2] }, 3), match: notInTypes},
		{name: "parties naming a submitter", lvl: citeParties, needs: []string{"submitter"},
			query: func(rows []paging.Row) (url.Values, *paging.Row, string) {
				if len(rows) == 0 {
					return nil, nil, "no transaction to take a submitter from"
				}
				return url.Values{"parties": {txSubmitter(rows[len(rows)/2].Node)}}, nil, ""
			}, match: party},
		{name: "parties naming two submitters", lvl: citeParties, needs: []string{"submitter"},
			query: func(rows []paging.Row) (url.Values, *paging.Row, string) {
				var ps []string
				for _, r := range rows {
					if s := txSubmitter(r.Node); s != "" && !slices.Contains(ps, s) {
						ps = append(ps, s)
					}
					if len(ps) == 2 {
						return url.Values{"parties": ps}, nil, ""
					}
				}
				return nil, nil, "the walk has fewer than two submitters"
			}, match: party},
		// A row that names the party as neither submitter nor receiver can
		// only be told from one that names it as submitter by the
		// submitter field.
		{name: "parties naming the receiver of a governance transfer", lvl: citeParties, needs: []string{"submitter"},
			query: func(rows []paging.Row) (url.Values, *paging.Row, string) {
				for i, r := range rows {
					for _, d := range destinations(r.Node["command"]) {
						if d != txSubmitter(r.Node) {
							return url.Values{"parties": {d}}, &rows[i], ""
						}
					}
				}
				return nil, nil, "no transaction the suite reached names a transfer to a party"
			}, match: party,
			// Transfers to a party are rare: look among batch proposals too.
			more: url.Values{"cmdTypes": {"Batch Proposal"}}},
	}
}

func txFilterRules(ts *txState) {
	filters := txFilters()
	walks := map[string]*paging.FilteredWalk{}
	walkFor := func(f txFilter) *paging.FilteredWalk {
		GinkgoHelper()
		ts.rows(1)
		fw, ok := walks[f.name]
		if !ok {
			fw = &paging.FilteredWalk{}
			walks[f.name] = fw
			// Evidence is looked for in every transaction any answer has
			// shown, not only in the unfiltered walk.
			if missing := missingField(ts.down.Rows, f.needs); missing != "" {
				fw.Skip = fmt.Sprintf("cannot be judged: the deployment's transactions carry no %q field, which the spec does not show and this filter is judged by (the reference-shape rule reports it)", missing)
			} else {
				fw.Query, fw.Known, fw.Skip = f.query(ts.seenRows())
				if fw.Skip != "" && f.more != nil {
					if extra := ts.walkDown(f.more); extra.Err == nil {
						fw.Query, fw.Known, fw.Skip = f.query(ts.seenRows())
					}
				}
			}
			if fw.Skip == "" {
				fw.Walk = ts.walkDown(fw.Query)
			}
		}
		if fw.Skip != "" {
			rule.Skipf("%s", fw.Skip)
		}
		paging.FailWalk(fw.Walk)
		return fw
	}
	entries := func(table string) []TableEntry {
		var out []TableEntry
		for _, f := range filters {
			out = append(out, rule.DefineEntry(table, f.name, f.lvl, f))
		}
		return out
	}

	const onlyMatching = "returns only transactions that match the filter:"
	DescribeTable(onlyMatching, func(f txFilter) {
		fw := walkFor(f)
		v := rule.NewVerdict("every transaction of the answer to %s to match it", fw.Query.Encode())
		v.Judged(len(fw.Walk.Rows))
		v.NoneBecause("the answer to %s holds no transaction", fw.Query.Encode())
		for i, r := range fw.Walk.Rows {
			if !f.match(r.Node, fw.Query) {
				v.Add(fw.Walk.PageOf(i).Ex, "%s (type %q, submitter %s) does not match %s", r.Ident, txType(r.Node), txSubmitter(r.Node), fw.Query.Encode())
				if len(v.Problems) >= rule.MaxProblems {
					break
				}
			}
		}
		v.Check()
	}, entries(onlyMatching))

	const exactlyMatching = "returns exactly the matching transactions of the unfiltered listing, in order:"
	DescribeTable(exactlyMatching, func(f txFilter) {
		fw := walkFor(f)
		v := rule.NewVerdict("the answer to %s to be the matching subset of the unfiltered listing (within the rows both walks reached), holding every matching transaction the suite has seen", fw.Query.Encode())
		v.Judged(len(ts.down.Rows))
		if d := paging.SubsetDiff(txCompare, ts.cut, fw.Walk, ts.down, func(r paging.Row) bool { return f.match(r.Node, fw.Query) }); d != "" {
			v.Add(fw.Walk.Pages[0].Ex, "%s\n  the filtered walk's first page:", d)
		}
		if fw.Known != nil {
			v.Judged(1)
			if problem := missingKnownRow(fw.Walk, *fw.Known); problem != "" {
				v.Add(fw.Walk.Pages[0].Ex, "%s\n  the filtered walk's first page:", problem)
			}
		}
		v.Check()
	}, entries(exactlyMatching))
}

// missingKnownRow says when a filtered walk lacks a row known to match it,
// though the walk reached past where the row stands.
func missingKnownRow(w *paging.Walk, known paging.Row) string {
	for _, r := range w.Rows {
		if r.Ident == known.Ident {
			return ""
		}
	}
	reached := w.Complete
	if !reached && len(w.Rows) > 0 && known.KeyErr == nil {
		// Past the row's block: inside it, the order is not the spec's.
		last := w.Rows[len(w.Rows)-1]
		reached = last.KeyErr == nil && last.Key.Num < known.Key.Num
	}
	if !reached {
		return ""
	}
	return fmt.Sprintf("%s matches the filter (seen elsewhere in the listing), but the filtered answer does not hold it (%d rows, %s)", known.Ident, len(w.Rows), map[bool]string{true: "to the end of the listing", false: "past where it stands"}[w.Complete])
}

func txErrorRules(ts *txState) {
	cursors := func(ts *txState) (newer, older string, why string) {
		if ts.down.Err != nil || len(ts.down.Rows) < 3 {
			return "", "", "the transaction walk has fewer than 3 rows"
		}
		r := ts.down.Rows
		return r[0].Cursor, r[2].Cursor, ""
	}
	withCursors := func(build func(newer, older string) url.Values) func(*txState) (url.Values, string) {
		return func(ts *txState) (url.Values, string) {
			newer, older, why := cursors(ts)
			if why != "" {
				return nil, why
			}
			return build(newer, older), ""
		}
	}
	fixed := func(pairs ...string) func(*txState) (url.Values, string) {
		return func(*txState) (url.Values, string) { return paging.With(nil, pairs...), "" }
	}
	type txBad struct {
		answerrules.BadRequest[*txState]
		lvl rule.Level
	}
	reqs := []txBad{
		{answerrules.BadRequest[*txState]{Name: "first together with before", Query: withCursors(func(newer, _ string) url.Values {
			return url.Values{"first": {"5"}, "before": {newer}}
		})}, rule.CiteTxFirst},
		{answerrules.BadRequest[*txState]{Name: "last together with after", Query: withCursors(func(_, older string) url.Values {
			return url.Values{"last": {"5"}, "after": {older}}
		})}, rule.CiteTxLast},
		{answerrules.BadRequest[*txState]{Name: "a count together with both cursors", Query: withCursors(func(newer, older string) url.Values {
			return url.Values{"first": {"5"}, "before": {newer}, "after": {older}}
		})}, rule.CiteTxFirst},
		{answerrules.BadRequest[*txState]{Name: "first together with last", Query: fixed("first", "5", "last", "5")}, rule.Should},
		{answerrules.BadRequest[*txState]{Name: "a malformed cursor", Query: fixed("before", "not-a-cursor")}, rule.Should},
		{answerrules.BadRequest[*txState]{Name: "a cursor from a paged listing", Query: func(ts *txState) (url.Values, string) {
			p, _, err := paging.Walker{Client: ts.c, Listing: paging.SnapshotsListing}.Page(url.Values{"pagination.first": {"1"}})
			if err != nil || len(p.Rows) == 0 {
				return nil, "the snapshots listing gave no cursor to borrow"
			}
			return url.Values{"before": {p.Rows[0].Cursor}}, ""
		}}, rule.Should},
		{answerrules.BadRequest[*txState]{Name: "before and after that do not form a window (after newer than before)", Query: withCursors(func(newer, older string) url.Values {
			return url.Values{"before": {older}, "after": {newer}}
		})}, rule.Should},
		{answerrules.BadRequest[*txState]{Name: "a count above the maximum page size (1000000)", Query: fixed("first", "1000000")}, rule.Should},
		{answerrules.BadRequest[*txState]{Name: "a count that is not a number (first=abc)", Query: fixed("first", "abc")}, rule.Should},
	}
	// The rules' requests are one batch, asked side by side when the first
	// of them runs.
	const refuses = "refuses with a 4xx status and the error body:"
	var batched rule.Batch
	type entry struct {
		name string
		it   *rule.BatchItem
	}
	get := func(q url.Values) client.Request {
		return client.Request{Base: ts.cfg.TransactionsURL, Path: TransactionsPath, Query: q}
	}
	var entries []TableEntry
	for _, r := range reqs {
		it := batched.Add(refuses+" "+r.Name, r.lvl, func() (client.Request, string) {
			q, why := r.Query(ts)
			return get(q), why
		})
		entries = append(entries, rule.DefineEntry(refuses, r.Name, r.lvl, entry{r.Name, it}))
	}
	DescribeTable(refuses, func(e entry) {
		ex, why := batched.Answer(ts.c, e.it)
		if why != "" {
			rule.Skipf("%s", why)
		}
		v := rule.NewVerdict("a 4xx status and the error body for %s", e.name)
		answerrules.Refusal(v, ex)
		v.Check()
	}, entries)

	const codesRule = "a refused request gets HTTP 400, code 3 (InvalidArgument) and an ErrorDetail with code 10000"
	codes := batched.Add(codesRule, rule.Should, func() (client.Request, string) {
		newer, _, why := cursors(ts)
		return get(url.Values{"first": {"5"}, "before": {newer}}), why
	})
	rule.Define(codesRule, rule.Should, func() {
		ex, why := batched.Answer(ts.c, codes)
		if why != "" {
			rule.Skipf("%s", why)
		}
		v := rule.NewVerdict(`HTTP 400 with {"code": 3, "details": [{"@type": "type.googleapis.com/core.ErrorDetail", "code": 10000, ...}]}`)
		answerrules.ErrorCodes(v, ex, 10000)
		v.Check()
	})
}
