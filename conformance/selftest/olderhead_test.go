package selftest

import (
	"fmt"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// Which answers newestBlockLeftOut rewrites.
const (
	backwardEnd = "backward" // a backward walk's last page: pagination.last, hasPreviousPage false
	oldestEnd   = "oldest"   // an oldest-first walk's last page: newestFirst=false, hasNextPage false
	firstPage   = "first"    // the listing's first pages (pagination.first without after) until a backward walk starts
	upEnd       = "up"       // transactions: a walk up's last page (first and after, fewer rows than first)
)

// newestBlockLeftOut rewrites the key rotations answers of one kind (which)
// to hold no row of the listing's newest block: the first such answer alone
// (once), or every one. Rewriting a walk's last page is what a replica a
// block behind answers; rewriting the first pages until a backward walk
// starts is the newest block arriving in between. It counts the answers it
// rewrote.
func newestBlockLeftOut(which string, once bool, rewrote *atomic.Int32) defect {
	var fired, backwards atomic.Bool
	return defect{
		name: fmt.Sprintf("newest-block-left-out-%s-once=%t", which, once), listing: "key-rotations", area: "pagination",
		wrap: rewrite(rotationsPath, nil, func(q url.Values, a *answer) {
			if q.Get("pagination.last") != "" {
				backwards.Store(true)
			}
			c := conn(a)
			if c == nil || len(edges(c)) == 0 {
				return
			}
			es := edges(c)
			height := func(i int) any { return es[i].(map[string]any)["node"].(map[string]any)["blockHeight"] }
			fromEnd := false // the newest block's rows are at the page's end
			switch {
			case which == oldestEnd && q.Get("pagination.newestFirst") == "false" && pageInfo(c)["hasNextPage"] == false:
				fromEnd = true
			case which == backwardEnd && q.Get("pagination.last") != "" && pageInfo(c)["hasPreviousPage"] == false:
			case which == firstPage && !backwards.Load() && q.Get("pagination.first") != "" && q.Get("pagination.after") == "" && q.Get("pagination.newestFirst") == "":
			default:
				return
			}
			if once && !fired.CompareAndSwap(false, true) {
				return
			}
			if fromEnd {
				n := len(es)
				for n > 0 && height(n-1) == height(len(es)-1) {
					n--
				}
				setEdges(c, es[:n])
			} else {
				n := 0
				for n < len(es) && height(n) == height(0) {
					n++
				}
				setEdges(c, es[n:])
			}
			rewrote.Add(1)
		}),
	}
}

// newestTransactionsLeftOut rewrites the transactions answers that end a
// walk up to the newest (first and after, fewer rows than first) to hold
// no transaction of the newest block, as a replica a block behind answers
// them: the first such answer alone (once), or every one.
func newestTransactionsLeftOut(once bool, rewrote *atomic.Int32) defect {
	var fired atomic.Bool
	return defect{
		name: fmt.Sprintf("newest-transactions-left-out-once=%t", once), listing: "transactions", area: "pagination",
		wrap: rewrite(transactionPath, nil, func(q url.Values, a *answer) {
			first, err := strconv.Atoi(q.Get("first"))
			if err != nil || q.Get("after") == "" {
				return
			}
			txs, _ := a.obj()["transactions"].([]any)
			if len(txs) == 0 || len(txs) >= first {
				return
			}
			if once && !fired.CompareAndSwap(false, true) {
				return
			}
			block := func(i int) any { return txs[i].(map[string]any)["block"] }
			n := 0
			for n < len(txs) && block(n) == block(0) {
				n++
			}
			a.obj()["transactions"] = txs[n:]
			rewrote.Add(1)
		}),
	}
}

// TestWalksFromAnotherHead: a backward or oldest-first walk whose last page
// comes from a replica a block behind lacks the forward walk's newest rows.
// The walks are asked again from that page: when they catch up, the rows
// were not lost and the rules that compare the walks pass (the head rules
// judge the lag); when every answer leaves them out, they fail. And when
// the forward walk is cut short by the page bound, a block arriving after
// its first page is an arrival to the backward walk from its last row, not
// a row it added.
func TestWalksFromAnotherHead(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	for _, tc := range []struct {
		which string
		once  bool
		args  []string
		rule  string
		want  types.SpecState
	}{
		{which: backwardEnd, once: true, rule: "ROT-PAG-002", want: types.SpecStatePassed},
		{which: backwardEnd, once: false, rule: "ROT-PAG-002", want: types.SpecStateFailed},
		{which: oldestEnd, once: true, rule: "ROT-PAG-006", want: types.SpecStatePassed},
		{which: oldestEnd, once: false, rule: "ROT-PAG-006", want: types.SpecStateFailed},
		{which: firstPage, args: []string{"--max-pages", "3"}, rule: "ROT-PAG-002", want: types.SpecStatePassed},
		{which: upEnd, once: true, rule: "TX-PAG-004", want: types.SpecStatePassed},
		{which: upEnd, once: false, rule: "TX-PAG-004", want: types.SpecStateFailed},
	} {
		t.Run(fmt.Sprintf("%s/once=%t", tc.which, tc.once), func(t *testing.T) {
			t.Parallel()
			var rewrote atomic.Int32
			d, filter := newestBlockLeftOut(tc.which, tc.once, &rewrote), "key-rotations && pagination"
			if tc.which == upEnd {
				d, filter = newestTransactionsLeftOut(tc.once, &rewrote), "transactions && pagination"
			}
			srv := server(t, d)
			r := conform(t, srv.URL, append([]string{"--label-filter", filter}, tc.args...)...)
			if rewrote.Load() == 0 {
				t.Fatalf("no answer was rewritten\n%s", tail(r.output))
			}
			if tc.once && rewrote.Load() != 1 {
				t.Errorf("%d answers rewritten, want 1", rewrote.Load())
			}
			found := false
			for _, s := range r.specs() {
				if ruleIDOf(s) != tc.rule {
					continue
				}
				found = true
				if s.State != tc.want {
					t.Errorf("%s is %s, want %s: %s\n%s", tc.rule, s.State, tc.want, s.Failure.Message, tail(r.output))
				}
			}
			if !found {
				t.Fatalf("%s did not run\n%s", tc.rule, tail(r.output))
			}
		})
	}
}
