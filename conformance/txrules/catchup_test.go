package txrules

import (
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/mockserver/mocktest"
)

// walkedTransactions walks the transactions of the default world at
// scale 0.05 down and back up as setUp does, with pages of size rows,
// without catching up; asked returns the requests the mock has received.
func walkedTransactions(t *testing.T, size int) (ts *txState, anchor paging.Row, asked func() uint64) {
	t.Helper()
	srv := mocktest.New(t, mocktest.Options{Seed: 1, Scale: 0.05})
	asked = func() uint64 {
		if rs := srv.Requests(); len(rs) > 0 {
			return rs[0].ID
		}
		return 0
	}
	cfg := config.Config{BaseURL: srv.URL, TransactionsURL: srv.URL, MaxPages: 1000}
	client.ConfigureTraffic(cfg) // a loopback deployment: no pacing
	ts = &txState{cfg: cfg, c: client.NewClient(cfg), size: size, seenIdent: map[string]bool{}}
	ts.down = ts.walkDown(nil)
	ts.cut = paging.NewCutoff(ts.down.Rows, txCompare)
	anchor = ts.down.Rows[len(ts.down.Rows)-1]
	ts.up = ts.walkUp(anchor)
	if !ts.down.Complete || !ts.up.Complete || len(ts.down.Rows) < 3 {
		t.Fatalf("the walks did not complete: %d rows", len(ts.down.Rows))
	}
	return ts, anchor, asked
}

func idents(rows []paging.Row) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.Ident + " ")
	}
	return b.String()
}

// TestCatchUp: a walk up whose last page lacks the newest block is asked
// again from that page and completed; one that lacks nothing is not asked
// again; rows the deployment never serves are not added, nor is anything
// to a walk cut short.
func TestCatchUp(t *testing.T) {
	for _, size := range []int{40, 5000} { // several pages, one page
		ts, anchor, asked := walkedTransactions(t, size)
		want := idents(ts.down.Rows[:len(ts.down.Rows)-1])
		k := 0
		for k < len(ts.up.Rows) && ts.up.Rows[k].Key.Num == ts.up.Rows[0].Key.Num {
			k++
		}
		ts.up.Rows = ts.up.Rows[k:]
		ts.catchUp(anchor)
		if ts.up.CaughtUp != k || idents(ts.up.Rows) != want {
			t.Errorf("size %d: caught up %d rows, want %d; rows those of the walk down: %t", size, ts.up.CaughtUp, k, idents(ts.up.Rows) == want)
		}
		before := asked()
		ts.catchUp(anchor)
		if n := asked() - before; n != 0 || ts.up.CaughtUp != k {
			t.Errorf("size %d: a walk that lacks nothing was asked again (%d requests) or changed", size, n)
		}
	}

	for _, tc := range []struct {
		name   string
		change func(ts *txState)
	}{
		{"a row the deployment never serves", func(ts *txState) {}},
		{"the walk up was cut short", func(ts *txState) { ts.up.Complete = false }},
	} {
		ts, anchor, _ := walkedTransactions(t, 40)
		r := ts.down.Rows[0]
		r.Key.Num++
		r.Ident = "transaction never served"
		ts.down.Rows = append([]paging.Row{r}, ts.down.Rows...)
		ts.cut = paging.NewCutoff(ts.down.Rows, txCompare)
		tc.change(ts)
		up := idents(ts.up.Rows)
		ts.catchUp(anchor)
		if ts.up.CaughtUp != 0 || idents(ts.up.Rows) != up {
			t.Errorf("%s: caught up %d rows, want the walk as it was", tc.name, ts.up.CaughtUp)
		}
	}
}
