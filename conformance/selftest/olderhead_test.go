package selftest

import (
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// newestBlockLeftOut rewrites the answers of the key rotations that end a
// walk at the listing's newest end to hold no row of its newest block, as a
// replica a block behind answers them: a backward walk's last page
// (pagination.last, hasPreviousPage false) or, with oldestFirst, an oldest
// first walk's (newestFirst=false, hasNextPage false). It rewrites the
// first such answer alone (once), or every one, and counts them.
func newestBlockLeftOut(oldestFirst, once bool, rewrote *atomic.Int32) defect {
	var fired atomic.Bool
	return defect{
		name: fmt.Sprintf("newest-block-left-out-oldest-first=%t-once=%t", oldestFirst, once), listing: "key-rotations", area: "pagination",
		wrap: rewrite(rotationsPath, nil, func(q url.Values, a *answer) {
			c := conn(a)
			if c == nil || len(edges(c)) == 0 {
				return
			}
			es := edges(c)
			height := func(i int) any { return es[i].(map[string]any)["node"].(map[string]any)["blockHeight"] }
			switch {
			case oldestFirst && q.Get("pagination.newestFirst") == "false" && pageInfo(c)["hasNextPage"] == false:
				if once && !fired.CompareAndSwap(false, true) {
					return
				}
				n := len(es)
				for n > 0 && height(n-1) == height(len(es)-1) {
					n--
				}
				setEdges(c, es[:n])
			case !oldestFirst && q.Get("pagination.last") != "" && pageInfo(c)["hasPreviousPage"] == false:
				if once && !fired.CompareAndSwap(false, true) {
					return
				}
				n := 0
				for n < len(es) && height(n) == height(0) {
					n++
				}
				setEdges(c, es[n:])
			default:
				return
			}
			rewrote.Add(1)
		}),
	}
}

// TestBackwardWalkFromAnOlderHead: a backward or oldest-first walk whose
// last page comes from a replica a block behind lacks the forward walk's
// newest rows. The walks are asked again from that page: when they catch
// up, the rows were not lost and the rules that compare the walks pass (the
// head rules judge the lag); when every answer leaves them out, they fail.
func TestBackwardWalkFromAnOlderHead(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	for _, tc := range []struct {
		oldestFirst, once bool
		rule              string
		want              types.SpecState
	}{
		{once: true, rule: "ROT-PAG-002", want: types.SpecStatePassed},
		{once: false, rule: "ROT-PAG-002", want: types.SpecStateFailed},
		{oldestFirst: true, once: true, rule: "ROT-PAG-006", want: types.SpecStatePassed},
		{oldestFirst: true, once: false, rule: "ROT-PAG-006", want: types.SpecStateFailed},
	} {
		t.Run(fmt.Sprintf("oldestFirst=%t/once=%t", tc.oldestFirst, tc.once), func(t *testing.T) {
			t.Parallel()
			var rewrote atomic.Int32
			srv := server(t, newestBlockLeftOut(tc.oldestFirst, tc.once, &rewrote))
			r := conform(t, srv.URL, "--label-filter", "key-rotations && pagination")
			if rewrote.Load() == 0 {
				t.Fatalf("no answer was rewritten: the backward walk never reached the newest end\n%s", tail(r.output))
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
