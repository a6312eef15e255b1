package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/store"
	"github.com/chaindata/harness/schemas"
)

// receiverParty is named only as the receiver of a governance transfer in
// txWorld, never as a submitter.
var receiverParty = hexID("receiver")

// txWorld is the generated world cut to its 200 oldest transactions, one
// batch proposal among them rewritten to transfer to receiverParty's
// general account.
func txWorld(t testing.TB) *world.World {
	t.Helper()
	w := copyWorld(genWorld(t))
	w.Transactions = slices.Clone(w.Transactions[:200])
	for i := range w.Transactions {
		if w.Transactions[i].Type == "Batch Proposal" {
			w.Transactions[i] = withReceiver(t, w.Transactions[i], receiverParty)
			return w
		}
	}
	t.Fatal("no batch proposal among the 200 oldest transactions of the generated world")
	return nil
}

// withReceiver rewrites a batch proposal's changes to one governance
// transfer to party's general account, checks the result is still a valid
// transaction, and reads it back as the fixtures reader does.
func withReceiver(t testing.TB, tx records.Transaction, party string) records.Transaction {
	t.Helper()
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(tx.JSON))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	batch := doc["command"].(map[string]any)["batchProposalSubmission"].(map[string]any)
	batch["terms"].(map[string]any)["changes"] = []any{map[string]any{
		"enactmentTimestamp": "1704700000",
		"newTransfer": map[string]any{"changes": map[string]any{
			"sourceType": "ACCOUNT_TYPE_NETWORK_TREASURY", "source": "",
			"destinationType": "ACCOUNT_TYPE_GENERAL", "destination": party,
			"asset": hexID("asset"), "amount": "1000000",
			"transferType": "GOVERNANCE_TRANSFER_TYPE_ALL_OR_NOTHING",
			"oneOff":       map[string]any{"deliverOn": "1704700000000000000"},
		}},
	}}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.MustLoad("Transaction").Validate(raw); err != nil {
		t.Fatalf("rewritten transaction: %v\n%s", err, raw)
	}
	out, err := records.ParseTransaction(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTransactions checks the transaction listing against the model: every
// combination of counts and cursors, the filters alone, together and with
// paging, and the snake_case names.
func TestTransactions(t *testing.T) {
	t.Parallel()
	w := txWorld(t)
	all := txModels(t, w)
	n := len(all)
	c := func(i int) string { return all[i].cursor }
	s := serve(t, Config{}, w)

	// A busy submitter, and the type of one of its transactions.
	bySubmitter := map[string]int{}
	for _, tx := range all {
		bySubmitter[tx.submitter]++
	}
	var busy string
	for p, k := range bySubmitter {
		if k > bySubmitter[busy] || k == bySubmitter[busy] && p < busy {
			busy = p
		}
	}
	var busyType string
	for _, tx := range all {
		if tx.submitter == busy {
			busyType = tx.typ
		}
	}
	if bySubmitter[busy] < 2 || !slices.ContainsFunc(all, func(tx txModel) bool { return slices.Contains(tx.receivers, receiverParty) }) {
		t.Fatalf("txWorld lacks a busy submitter or the receiver")
	}
	mid := all[n/2]
	const order, amend, cancel = "Submit Order", "Amend Order", "Cancel Order"

	tests := []struct {
		name string
		q    txQuery
		raw  string // when set, the query sent, and q only the model's reading of it
		want int    // rows, as a check on the model; -1: not checked
	}{
		{name: "no parameters: the 50 newest", want: 50},
		{name: "first alone: the most recent", q: txQuery{first: 10}, want: 10},
		{name: "first and after: the rows just newer", q: txQuery{first: 10, after: c(100)}, want: 10},
		{name: "first and after near the newest", q: txQuery{first: 10, after: c(n - 5)}, want: 4},
		{name: "first and after the newest: empty", q: txQuery{first: 10, after: c(n - 1)}, want: 0},
		{name: "last alone: the oldest", q: txQuery{last: 10}, want: 10},
		{name: "last and before: the rows just older", q: txQuery{last: 10, before: c(100)}, want: 10},
		{name: "last and before near the oldest", q: txQuery{last: 10, before: c(3)}, want: 3},
		{name: "last and before the oldest: empty", q: txQuery{last: 10, before: c(0)}, want: 0},
		{name: "before and after bound a window", q: txQuery{before: c(150), after: c(140)}, want: 9},
		{name: "adjacent cursors: empty window", q: txQuery{before: c(141), after: c(140)}, want: 0},
		{name: "after alone: the 50 just newer", q: txQuery{after: c(10)}, want: 50},
		{name: "before alone: the 50 just older", q: txQuery{before: c(190)}, want: 50},
		{name: "before alone near the oldest", q: txQuery{before: c(20)}, want: 20},
		{name: "first 0 is no count", raw: "first=0", want: 50},
		{name: "first 0 and last", raw: "first=0&last=5", q: txQuery{last: 5}, want: 5},
		{name: "last 0 and before", raw: "last=0&before=" + c(100), q: txQuery{before: c(100)}, want: 50},
		{name: "empty values are not given", raw: "first=&last=&before=&after=", want: 50},
		{name: "first beyond the rows", q: txQuery{first: n + 50}, want: n},
		{name: "first at the maximum", q: txQuery{first: 5000}, want: n},
		{name: "last at the maximum", q: txQuery{last: 5000}, want: n},
		{name: "after a position with no row", q: txQuery{first: 3, after: fmt.Sprintf("%d.999", mid.block)}, want: 3},
		{name: "before a position with no row", q: txQuery{last: 3, before: fmt.Sprintf("%d.999", mid.block)}, want: 3},
		{name: "after position 0.0", q: txQuery{after: "0.0"}, want: 50},
		{name: "before the first position", q: txQuery{before: "0.0"}, want: 0},
		{name: "before the last position", q: txQuery{last: 7, before: "18446744073709551615.4294967295"}, want: 7},
		{name: "window over everything", q: txQuery{after: "0.0", before: "18446744073709551615.0"}, want: n},

		{name: "cmdTypes", q: txQuery{cmdTypes: []string{order}}, want: -1},
		{name: "cmdTypes, two", q: txQuery{cmdTypes: []string{order, amend}, first: 5000}, want: -1},
		{name: "cmdTypes unknown", q: txQuery{cmdTypes: []string{"Submit order"}}, want: 0},
		{name: "cmdTypes repeated value", q: txQuery{cmdTypes: []string{cancel, cancel}}, want: -1},
		{name: "excludeCmdTypes", q: txQuery{excludeCmdTypes: []string{order}}, want: 50},
		{name: "excludeCmdTypes, two, everything", q: txQuery{excludeCmdTypes: []string{order, "Batch Market Instructions"}, first: 5000}, want: -1},
		{name: "excludeCmdTypes unknown", q: txQuery{excludeCmdTypes: []string{"Nothing"}, last: 5000}, want: n},
		{name: "cmdTypes and the same excluded", q: txQuery{cmdTypes: []string{order}, excludeCmdTypes: []string{order}}, want: 0},
		{name: "cmdTypes less those excluded", q: txQuery{cmdTypes: []string{order, amend}, excludeCmdTypes: []string{amend}, first: 5000}, want: -1},
		{name: "parties: a submitter", q: txQuery{parties: []string{busy}}, want: bySubmitter[busy]},
		{name: "parties: a receiver", q: txQuery{parties: []string{receiverParty}}, want: 1},
		{name: "parties: a submitter or a receiver", q: txQuery{parties: []string{receiverParty, busy}}, want: bySubmitter[busy] + 1},
		{name: "parties: repeated", q: txQuery{parties: []string{busy, busy}}, want: bySubmitter[busy]},
		{name: "parties: unknown", q: txQuery{parties: []string{hexID("nobody")}}, want: 0},
		{name: "parties and cmdTypes", q: txQuery{parties: []string{busy}, cmdTypes: []string{busyType}}, want: -1},
		{name: "parties and excludeCmdTypes", q: txQuery{parties: []string{busy, receiverParty}, excludeCmdTypes: []string{busyType}}, want: -1},
		{name: "receiver and its type", q: txQuery{parties: []string{receiverParty}, cmdTypes: []string{"Batch Proposal"}}, want: 1},
		{name: "receiver and another type", q: txQuery{parties: []string{receiverParty}, cmdTypes: []string{order}}, want: 0},
		{name: "filter and first/after", q: txQuery{cmdTypes: []string{order}, first: 3, after: c(100)}, want: 3},
		{name: "filter and last/before", q: txQuery{cmdTypes: []string{order}, last: 3, before: c(100)}, want: 3},
		{name: "filter and a window", q: txQuery{excludeCmdTypes: []string{order}, after: c(20), before: c(80)}, want: -1},
		{name: "filter and last alone", q: txQuery{cmdTypes: []string{cancel}, last: 4}, want: 4},
		// A page of up to 64 rows, and the lists of up to 8 types or
		// parties, are gathered on the stack; more take memory of their own.
		{name: "first 64: the most rows gathered on the stack", q: txQuery{first: 64}, want: 64},
		{name: "first 65: one row more", q: txQuery{first: 65}, want: 65},
		{name: "last 65 after a filter", q: txQuery{excludeCmdTypes: []string{amend}, last: 65}, want: 65},
		{name: "cmdTypes, ten: more lists than the stack holds", q: txQuery{cmdTypes: []string{order, amend, cancel, "Batch Proposal",
			"Batch Market Instructions", "Type 6", "Type 7", "Type 8", "Type 9", "Type 10"}, first: 5000}, want: -1},
		{name: "cmdTypes, eight with a repeat", q: txQuery{cmdTypes: []string{order, "Type 2", "Type 3", "Type 4", "Type 5", "Type 6", "Type 7", order}, first: 5000}, want: -1},
		{name: "parties, nine", q: txQuery{parties: []string{busy, receiverParty, hexID("p3"), hexID("p4"), hexID("p5"), hexID("p6"),
			hexID("p7"), hexID("p8"), hexID("p9")}}, want: bySubmitter[busy] + 1},
		{name: "snake_case cmd_types", raw: "cmd_types=" + url.QueryEscape(order), q: txQuery{cmdTypes: []string{order}}, want: -1},
		{name: "snake_case exclude_cmd_types", raw: "exclude_cmd_types=" + url.QueryEscape(order), q: txQuery{excludeCmdTypes: []string{order}}, want: 50},
		{name: "both spellings add up", raw: "cmdTypes=" + url.QueryEscape(order) + "&cmd_types=" + url.QueryEscape(amend), q: txQuery{cmdTypes: []string{order, amend}}, want: -1},
		{name: "unknown parameters are ignored", raw: "cmdtypes=x&party=y&limit=3", want: 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := expectTxs(t, all, tc.q, 50, 5000)
			if tc.want >= 0 && len(want) != tc.want {
				t.Fatalf("model lists %d transactions, the case expects %d", len(want), tc.want)
			}
			if tc.want < 0 && len(want) == 0 {
				t.Fatal("the model lists nothing; the case tests nothing")
			}
			q := tc.q.values().Encode()
			if tc.raw != "" {
				q = tc.raw
			}
			checkTxs(t, s.get(t, "/transactions", q), want)
		})
	}
}

// TestTransactionsErrors checks the explorer's errors, in its order, and the
// bad values.
func TestTransactionsErrors(t *testing.T) {
	t.Parallel()
	w := txWorld(t)
	all := txModels(t, w)
	c := func(i int) string { return all[i].cursor }
	s := serve(t, Config{}, w)
	const (
		both      = "cannot use neither limits `first`, nor `last` when both cursors `before` and `after` are set"
		limits    = "cannot use both limits `first` and `last` within the same query"
		badCursor = "invalid cursor string: "
		window    = "cursors `before` and `after` do not create a valid window"
		firstBef  = "cannot use cursor `before` when using limit `first`"
		lastAfter = "cannot use cursor `after` when using limit `last`"
	)
	tests := []errCase{
		{"1: first with both cursors", "first=5&before=" + c(10) + "&after=" + c(5), errRule.with(both)},
		{"1: last with both cursors", "last=5&before=" + c(10) + "&after=" + c(5), errRule.with(both)},
		{"1 before 2", "first=5&last=5&before=" + c(10) + "&after=" + c(5), errRule.with(both)},
		{"1 before 3", "last=5&before=bad&after=worse", errRule.with(both)},
		{"1 before 4", "first=5&before=" + c(5) + "&after=" + c(10), errRule.with(both)},
		{"2: first with last", "first=5&last=5", errRule.with(limits)},
		{"2 before 3", "first=5&last=5&before=bad", errRule.with(limits)},
		{"2 before 5", "first=5&last=5&before=" + c(10), errRule.with(limits)},
		{"3: malformed before", "before=bad", errRule.with(badCursor)},
		{"3: malformed after", "after=1.2.3", errRule.with(badCursor)},
		{"3: leading zero", "after=01.2", errRule.with(badCursor)},
		{"3: negative block", "before=-1.0", errRule.with(badCursor)},
		{"3: no index", "before=12", errRule.with(badCursor)},
		{"3: block beyond uint64", "after=18446744073709551616.0", errRule.with(badCursor)},
		{"3: index beyond uint32", "before=5.4294967296", errRule.with(badCursor)},
		{"3: a paged listing's cursor", "after=" + url.QueryEscape(snapshotsListing.cursor(rowKey{n: 5})), errRule.with(badCursor)},
		{"3 before 4", "before=" + c(5) + "&after=x", errRule.with(badCursor)},
		{"3 before 5", "first=5&before=x.y", errRule.with(badCursor)},
		{"3 before 6", "last=5&after=x", errRule.with(badCursor)},
		{"4: after newer than before", "before=" + c(5) + "&after=" + c(10), errRule.with(window)},
		{"4: after equal to before", "before=" + c(5) + "&after=" + c(5), errRule.with(window)},
		{"5: first with before", "first=5&before=" + c(10), errRule.with(firstBef)},
		{"6: last with after", "last=5&after=" + c(10), errRule.with(lastAfter)},
		{"5: first 1 with before", "first=1&before=" + c(10), errRule.with(firstBef)},
		{"6: last 1 with after", "last=1&after=" + c(10), errRule.with(lastAfter)},
		{"1: first 1 with both cursors", "first=1&before=" + c(10) + "&after=" + c(5), errRule.with(both)},
		{"2: first 1 with last 1", "first=1&last=1", errRule.with(limits)},
		{"first above the maximum", "first=5001", errRule},
		{"last above the maximum", "last=5001", errRule},
		{"first negative", "first=-1", errRule},
		{"first not a number", "first=abc", errParse.with("first")},
		{"last a fraction", "last=1.5", errParse.with("last")},
		{"first beyond int64", "first=9223372036854775808", errParse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.get(t, "/transactions", tc.query)
			checkError(t, r, tc.want)
			if tc.want.detail != 0 && tc.want.text != "" {
				// The explorer's message is the detail's message itself.
				if d := r.apiError(t).Details[0]; !strings.HasPrefix(d.Message, tc.want.text) {
					t.Errorf("%s: detail message %q, want %q", r, d.Message, tc.want.text)
				}
			}
		})
	}
}

// TestTransactionsPageSizes checks the default and maximum counts set by
// Config.
func TestTransactionsPageSizes(t *testing.T) {
	t.Parallel()
	w := txWorld(t)
	all := txModels(t, w)
	s := serve(t, Config{TxDefaultPageSize: 4, TxMaxPageSize: 9}, w)
	tests := []struct {
		name  string
		q     txQuery
		err   bool
		count int
	}{
		{name: "default count", q: txQuery{}, count: 4},
		{name: "after alone", q: txQuery{after: all[50].cursor}, count: 4},
		{name: "before alone", q: txQuery{before: all[50].cursor}, count: 4},
		{name: "first at the maximum", q: txQuery{first: 9}, count: 9},
		{name: "last at the maximum", q: txQuery{last: 9}, count: 9},
		{name: "first above the maximum", q: txQuery{first: 10}, err: true},
		{name: "last above the maximum", q: txQuery{last: 10}, err: true},
		{name: "a window wider than the maximum holds the newest rows", q: txQuery{after: all[10].cursor, before: all[40].cursor}, count: 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.get(t, "/transactions", tc.q.values().Encode())
			if tc.err {
				checkError(t, r, errRule)
				return
			}
			want := expectTxs(t, all, tc.q, 4, 9)
			if len(want) != tc.count {
				t.Fatalf("model lists %d, want %d", len(want), tc.count)
			}
			checkTxs(t, r, want)
		})
	}
}

// TestTransactionsPaths checks the listing at /transactions, at
// /rest/transactions, and under Config.TransactionsPrefix.
func TestTransactionsPaths(t *testing.T) {
	t.Parallel()
	w := txWorld(t)
	want := expectTxs(t, txModels(t, w), txQuery{first: 3}, 50, 5000)
	tests := []struct {
		name   string
		prefix string
		served []string // paths serving the listing
		absent []string // paths that are 404
	}{
		{"no prefix", "", []string{"/transactions", "/rest/transactions"}, []string{"/explorer/transactions", "/api/v2/transactions", "/transactions/", "/rest/transactions/"}},
		{"a prefix", "/explorer", []string{"/transactions", "/rest/transactions", "/explorer/transactions"}, []string{"/explorer", "/explorer/transactions/", "/explorer/rest/transactions"}},
		{"a prefix with a trailing slash", "/explorer/", []string{"/explorer/transactions"}, []string{"/explorer//transactions"}},
		{"a prefix without a leading slash", "explorer", []string{"/explorer/transactions"}, []string{"/explorertransactions"}},
		{"a deep prefix", "/a/b/c", []string{"/a/b/c/transactions", "/transactions"}, []string{"/a/b/transactions"}},
		{"the /rest prefix", "/rest", []string{"/rest/transactions", "/transactions"}, []string{"/rest/rest/transactions"}},
		{"the root prefix", "/", []string{"/transactions", "/rest/transactions"}, []string{"//transactions"}},
		{"a prefix that is a listing path", "/api/v2", []string{"/api/v2/transactions", "/api/v2/games"}, nil},
		{"a prefix that is not clean", "/a/../b/./c", []string{"/b/c/transactions"}, []string{"/a/../b/./c/transactions"}},
		{"a prefix with pattern syntax", "/{x}", []string{"/{x}/transactions"}, []string{"/y/transactions"}},
		{"a prefix with a space", "/my explorer", []string{"/my%20explorer/transactions"}, []string{"/my/transactions"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, Config{TransactionsPrefix: tc.prefix}, w)
			for _, p := range tc.served {
				if p == "/api/v2/games" {
					s.get(t, p, "") // still served, and valid
					continue
				}
				checkTxs(t, s.get(t, p, "first=3"), want)
				checkError(t, s.do(t, http.MethodPost, p, "", nil), wantErr{status: 501, text: "Method Not Allowed"})
			}
			for _, p := range tc.absent {
				checkError(t, s.get(t, p, "first=3"), wantErr{status: 404, detail: detailNotMapped, text: "/rest/transactions"})
			}
		})
	}
}

// TestTransactionsPageAllocations checks what a transactions page
// allocates beside its body: nothing for a page of up to 64 rows, whose
// rows are picked and gathered on the stack; for a filter of up to eight
// types or of parties, only the list of their indexes; and more for a page
// of 65 rows or a filter of more types. The journal's own copy of the rows
// is the note's, not counted here (no note).
func TestTransactionsPageAllocations(t *testing.T) {
	st, err := store.New(txWorld(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := New(Config{}, st)
	many := []string{"A", "B", "C", "D", "E", "F", "G", "H", "I"}
	tests := []struct {
		name     string
		req      txRequest
		least    float64 // allocations at least
		most     float64 // and at most
		wantRows int     // -1: not checked
	}{
		{"64 rows", txRequest{first: 64}, 0, 0, 64},
		{"65 rows", txRequest{first: 65}, 2, 2, 65},
		{"64 rows, oldest first", txRequest{last: 64}, 0, 0, 64},
		{"two types", txRequest{first: 50, cmdTypes: []string{"Submit Order", "Amend Order"}}, 1, 1, -1},
		{"eight types", txRequest{first: 50, cmdTypes: many[:8]}, 1, 1, 0},
		{"nine types", txRequest{first: 50, cmdTypes: many}, 2, 8, 0},
		{"eight types, oldest first", txRequest{last: 50, cmdTypes: many[:8]}, 1, 1, 0},
		{"nine types, oldest first", txRequest{last: 50, cmdTypes: many}, 2, 8, 0},
		{"three parties", txRequest{first: 50, parties: many[:3]}, 1, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			buf := make([]byte, 0, 1<<20)
			var body []byte
			allocs := testing.AllocsPerRun(20, func() {
				st.Read(func(r store.Reader) { body = s.transactionsPage(r, tc.req, buf[:0], nil) })
			})
			if allocs < tc.least || allocs > tc.most {
				t.Errorf("%v allocations, want %v to %v", allocs, tc.least, tc.most)
			}
			var page struct{ Transactions []json.RawMessage }
			if err := json.Unmarshal(body, &page); err != nil {
				t.Fatalf("the page does not parse: %v", err)
			}
			if tc.wantRows >= 0 && len(page.Transactions) != tc.wantRows {
				t.Errorf("%d rows, want %d", len(page.Transactions), tc.wantRows)
			}
		})
	}
}
