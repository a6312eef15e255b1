package selftest

import (
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// TestFirstAloneJudgedWhileTheChainGrows runs TX-PAG-006 (first=N alone
// returns the N most recent transactions) against a live mock adding a
// block every 10 ms, faster than the rule's walk: the rule cannot compare
// with its walk, and judges the answer against the listing at the moment
// it answered. The clean mock passes it, judged rather than skipped; a mock
// that answers first=N alone with every other transaction fails it.
func TestFirstAloneJudgedWhileTheChainGrows(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	everyOther := rewrite(transactionPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
		if n, err := strconv.Atoi(q.Get("first")); err == nil && q.Get("after") == "" && q.Get("before") == "" {
			q.Set("first", strconv.Itoa(2*n))
		}
		return q
	}, func(q url.Values, a *answer) {
		if q.Get("after") != "" || q.Get("before") != "" {
			return
		}
		if t := txs(a); len(t) > 1 {
			var kept []any
			for i := 0; i < len(t); i += 2 {
				kept = append(kept, t[i])
			}
			a.obj()["transactions"] = kept
		}
	})
	for _, tc := range []struct {
		name   string
		defect bool
	}{{"clean", false}, {"every other transaction", true}} {
		t.Run(tc.name, func(t *testing.T) {
			wrap := everyOther
			if !tc.defect {
				wrap = nil
			}
			srv, _ := liveServer(t, 10*time.Millisecond, wrap)
			r := conform(t, srv.URL, "--label-filter", "TX-PAG-006")
			var state types.SpecState
			var message string
			for _, s := range r.specs() {
				if slices.Contains(s.Labels(), "TX-PAG-006") {
					state, message = s.State, s.Failure.Message
				}
			}
			want := types.SpecStatePassed
			if tc.defect {
				want = types.SpecStateFailed
			}
			if state != want {
				t.Errorf("TX-PAG-006 %s, want %s: %s\n%s", state, want, message, tail(r.output))
			}
		})
	}
}
