package modelrules

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/rule"
)

// growthRuleText is the growth rule of each listing that grows: a walk
// paused between two pages until a new row of the listing has arrived must
// neither repeat nor lose a row (cursors, not offsets).
const growthRuleText = "a walk paused until a new row arrives neither repeats nor loses a row"

// How the growth walks wait: they ask for the newest row every growthPoll,
// and give up early when the deployment shows no sign of growing (no block
// height that moves, no new row) for growthIdle. The waits are counted in
// polls, so that a run against a deployment that does not grow asks the
// same requests every time.
const (
	growthPoll = 250 * time.Millisecond
	growthIdle = 10 * time.Second
	growthPage = 5
)

// growthPolls is how many polls a growth walk makes at most, and after how
// many without a sign of growth it gives up.
func growthPolls(wait time.Duration) (most, idle int) {
	most = max(1, int(wait/growthPoll))
	return most, min(most, int(growthIdle/growthPoll))
}

// growthFlagsRuleText is the second growth rule of each paged listing that
// grows: pages asked oldest first while rows arrive carry the page flags the
// rows around them call for.
const growthFlagsRuleText = "oldest-first pages asked while rows arrive set hasPreviousPage and hasNextPage as the rows around them say"

// growthResult is what one listing's growth walk found.
type growthResult struct {
	done     chan struct{}
	skip     string
	problems []string
	ex       *client.Exchange
	cases    int
	// flags is what the oldest-first pages asked while the listing grew
	// found (paged listings).
	flags flagsResult
}

// flagsResult is what the oldest-first pages of a growth walk found: each
// problem with the exchange that showed it.
type flagsResult struct {
	cases    int
	problems []flagProblem
	// moved says that the deployment grew while the walk polled.
	moved bool
}

type flagProblem struct {
	detail string
	ex     *client.Exchange
}

// growth holds the run's growth walks: started once a run, side by side,
// when the first model container starts, so that the waits overlap.
// ResetGrowth forgets the walks of the run before.
var growth struct {
	mu      sync.Mutex
	started bool
	walks   map[model.Listing]*growthResult
}

// ResetGrowth forgets the growth walks of the run before, so that a run
// judges only the walks it started itself.
func ResetGrowth() {
	growth.mu.Lock()
	defer growth.mu.Unlock()
	growth.started, growth.walks = false, nil
}

// growthSelected reports whether the label filter selects a listing's
// growth rule.
func growthSelected(l model.Listing) bool {
	filter := GinkgoLabelFilter()
	if filter == "" {
		return true
	}
	match, err := types.ParseLabelFilter(filter)
	if err != nil {
		return true
	}
	for _, text := range []string{growthRuleText, growthFlagsRuleText} {
		id, ok := rule.Registry().ByKey[rule.Key(l.String(), "growth", text)]
		if ok && match([]string{l.String(), "growth", id}) {
			return true
		}
	}
	return false
}

// startGrowthWalks starts the growth walk of every listing whose rule is
// selected.
func startGrowthWalks() {
	growth.mu.Lock()
	defer growth.mu.Unlock()
	if growth.started {
		return
	}
	growth.started = true
	cfg := rule.ActiveConfig()
	growth.walks = map[model.Listing]*growthResult{}
	for _, l := range modelListings {
		if l == model.Parameters || !growthSelected(l) {
			continue
		}
		r := &growthResult{done: make(chan struct{})}
		growth.walks[l] = r
		go func() {
			defer close(r.done)
			growthWalk(cfg, l, r)
		}()
	}
}

// growthWalkOf returns the run's growth walk of a listing, nil when it was
// not started.
func growthWalkOf(l model.Listing) *growthResult {
	growth.mu.Lock()
	defer growth.mu.Unlock()
	return growth.walks[l]
}

// judgeGrowth reports a listing's growth rule.
func judgeGrowth(l model.Listing) {
	GinkgoHelper()
	startGrowthWalks()
	r := growthWalkOf(l)
	if r == nil {
		rule.Skipf("the growth walk of %s was not started", l)
	}
	<-r.done
	if r.ex != nil && r.ex.Refused {
		rule.SkipRefused(r.ex)
	}
	if r.skip != "" {
		rule.Skipf("%s", r.skip)
	}
	v := rule.NewVerdict("a walk that pauses between two pages while the listing grows gets, after the pause, exactly the rows that followed its first page")
	v.Judged(r.cases)
	for _, p := range r.problems {
		v.Add(r.ex, "%s", p)
	}
	v.Check()
}

// judgeGrowthFlags reports a listing's rule on the flags of oldest-first
// pages asked while it grew.
func judgeGrowthFlags(l model.Listing) {
	GinkgoHelper()
	startGrowthWalks()
	r := growthWalkOf(l)
	if r == nil {
		rule.Skipf("the growth walk of %s was not started", l)
	}
	<-r.done
	if r.ex != nil && r.ex.Refused {
		rule.SkipRefused(r.ex)
	}
	if r.flags.cases == 0 {
		why := r.skip
		if why == "" || r.flags.moved {
			why = "no oldest-first page could be judged while the listing grew"
		}
		rule.Skipf("%s", why)
	}
	v := rule.NewVerdict("each page asked oldest first while the listing grows says hasPreviousPage exactly when rows come before it, and hasNextPage when a row newer than its last was seen before it was asked")
	v.Judged(r.flags.cases)
	for _, p := range r.flags.problems {
		v.Add(p.ex, "%s", p.detail)
	}
	v.Check()
}

// ascStep is one oldest-first page a growth walk asks while the listing
// grows: the oldest page, the one after it, and one from near the newest
// end, in turn.
type ascStep struct {
	q    url.Values
	name string
	// cursor is set on a page asked after a row: rows come before it.
	cursor bool
}

// ascFlags judges an oldest-first page's flags: hasPreviousPage exactly
// when it was asked after a row (rows only join at the newest end, so the
// oldest rows do not change); hasNextPage true when a row newer than the
// page's last, by primary key, came back before the page was asked
// (known). It returns the cases judged and the problems.
func ascFlags(step ascStep, p *model.Page, known *model.Key) (int, []string) {
	cases := 1
	var out []string
	if p.HasPrev != step.cursor {
		out = append(out, fmt.Sprintf("oldest first, while the listing grew: %s says hasPreviousPage %v, want %v (%s)", step.name, p.HasPrev, step.cursor,
			map[bool]string{true: "the rows at and before its cursor come before it", false: "no row comes before the oldest"}[step.cursor]))
	}
	if n := len(p.Rows); n > 0 && known != nil && known.Num > p.Rows[n-1].Key.Num {
		cases++
		if !p.HasNext {
			out = append(out, fmt.Sprintf("oldest first, while the listing grew: %s ends at %s and says hasNextPage false, but %s, newer, had come back before it was asked", step.name, p.Rows[n-1].Key, *known))
		}
	}
	return cases, out
}

// growthWalk asks a first page, waits until a new row of the listing has
// arrived, asks the next page by the first page's cursor, and compares it
// with the rows that followed the first page before the listing grew.
func growthWalk(cfg config.Config, l model.Listing, r *growthResult) {
	c := client.NewClient(cfg)
	base := cfg.BaseURL
	count, after := "pagination.first", "pagination.after"
	if l == model.Transactions {
		base, count = cfg.TransactionsURL, "first"
	}
	get := func(q url.Values) (*model.Page, *client.Exchange) {
		ex := c.Fetch(http.MethodGet, base, l.Path(), q)
		if ex.Err != nil || ex.Refused || ex.Status != 200 {
			r.ex = ex
			return nil, ex
		}
		p, err := pageOf(l, ex)
		if err != nil {
			r.ex = ex
			return nil, ex
		}
		return p, ex
	}
	fail := func(ex *client.Exchange) {
		r.skip = "the growth walk could not read the listing: see the rules of its pagination and schema"
		if ex != nil && ex.Err != nil {
			r.skip += fmt.Sprintf(" (%v)", ex.Err)
		}
	}
	q0 := url.Values{}
	if l == model.Games {
		// A window that reaches past the latest epoch, so that the next
		// epoch's games arrive inside it.
		p, ex := get(url.Values{count: {"1"}})
		if p == nil {
			fail(ex)
			return
		}
		if len(p.Rows) == 0 {
			r.skip = "the listing holds no game"
			return
		}
		q0.Set("epochFrom", strconv.FormatUint(max(p.Rows[0].Key.Num, 28)-28, 10))
	}
	with := func(pairs ...string) url.Values {
		q := paging.CloneValues(q0)
		for i := 0; i < len(pairs); i += 2 {
			q.Set(pairs[i], pairs[i+1])
		}
		return q
	}
	// The first page and the rows after it, asked back to back until both
	// agree (the listing may grow between the two).
	var first, snap *model.Page
	for try := 0; ; try++ {
		var ex *client.Exchange
		if snap, ex = get(with(count, strconv.Itoa(2*growthPage))); snap == nil {
			fail(ex)
			return
		}
		if first, ex = get(with(count, strconv.Itoa(growthPage))); first == nil {
			fail(ex)
			return
		}
		if len(snap.Rows) >= growthPage && slices.Equal(keysOf(first.Rows), keysOf(snap.Rows[:growthPage])) {
			break
		}
		if len(snap.Rows) <= growthPage {
			r.skip = fmt.Sprintf("the listing holds %d rows: the rule needs more than %d", len(snap.Rows), growthPage)
			return
		}
		if try == 3 {
			r.skip = "the listing changed between every two requests: no first page could be pinned"
			return
		}
	}
	newest := first.Rows[0].Key
	// The oldest-first pages asked while the listing grows: one a poll
	// that saw it grow, and those left once a new row came.
	var steps []ascStep
	if l != model.Transactions {
		oldest := with(count, strconv.Itoa(growthPage), "pagination.newestFirst", "false")
		near := with(count, strconv.Itoa(cfg.WithDefaults().PageSize), after, snap.Rows[len(snap.Rows)-1].Cursor, "pagination.newestFirst", "false")
		steps = []ascStep{{q: oldest, name: "the oldest page"}, {name: "the page after the oldest", cursor: true}, {q: near, name: fmt.Sprintf("the page after %s, near the newest end", snap.Rows[len(snap.Rows)-1].Key), cursor: true}}
	}
	var known *model.Key
	ask := func() bool {
		st := &steps[0]
		if st.q == nil {
			return true // the page after the oldest, whose cursor never came
		}
		p, ex := get(st.q)
		if p == nil {
			fail(ex)
			return false
		}
		n, problems := ascFlags(*st, p, known)
		r.flags.cases += n
		for _, d := range problems {
			r.flags.problems = append(r.flags.problems, flagProblem{d, ex})
		}
		if st.name == "the oldest page" && len(p.Rows) > 0 && len(steps) > 1 {
			steps[1].q = with(count, strconv.Itoa(growthPage), after, p.Rows[len(p.Rows)-1].Cursor, "pagination.newestFirst", "false")
		}
		steps = steps[1:]
		return true
	}
	// Wait for a new row.
	most, idle := growthPolls(cfg.GrowthWait)
	height, moved := "", false
	for poll := 1; ; poll++ {
		if t := client.Current(); !client.Sleep(t.Ctx, growthPoll) {
			r.skip = t.Ended().Error()
			return
		}
		p, ex := get(with(count, "1"))
		if p == nil {
			fail(ex)
			return
		}
		grew := false
		if h := ex.Header.Get("X-Block-Height"); h != "" {
			grew = height != "" && h != height
			moved = moved || grew
			height = h
		}
		if len(p.Rows) > 0 {
			k := p.Rows[0].Key
			grew = grew || k != newest
			known = &k
		}
		if grew && len(steps) > 0 {
			r.flags.moved = true
			if !ask() {
				return
			}
		}
		if len(p.Rows) > 0 && p.Rows[0].Key != newest {
			for len(steps) > 0 {
				if !ask() {
					return
				}
			}
			break
		}
		if poll >= most {
			r.skip = fmt.Sprintf("no new row of the listing arrived within --growth-wait %s", cfg.GrowthWait)
			return
		}
		if !moved && poll >= idle {
			r.skip = fmt.Sprintf("the deployment did not grow: no new row and no new block height (X-Block-Height) in %s", time.Duration(idle)*growthPoll)
			return
		}
	}
	// The next page, by the first page's cursor.
	var next url.Values
	if l == model.Transactions {
		next = with("last", strconv.Itoa(growthPage), "before", first.Rows[len(first.Rows)-1].Cursor)
	} else {
		next = with(count, strconv.Itoa(growthPage), after, first.EndCursor)
	}
	second, ex := get(next)
	if second == nil {
		fail(ex)
		return
	}
	r.ex = ex
	r.cases = len(second.Rows) + 1
	want, got := keysOf(snap.Rows[growthPage:]), keysOf(second.Rows)
	seen := keysOf(first.Rows)
	var repeated, lost []string
	for _, k := range got {
		if slices.Contains(seen, k) {
			repeated = append(repeated, k.String())
		}
	}
	for _, k := range want {
		if !slices.Contains(got, k) {
			lost = append(lost, k.String())
		}
	}
	if len(repeated) > 0 {
		r.problems = append(r.problems, fmt.Sprintf("after new rows arrived, the page after the first repeats its rows %s", strings.Join(repeated, ", ")))
	}
	if len(lost) > 0 {
		r.problems = append(r.problems, fmt.Sprintf("after new rows arrived, the page after the first loses the rows %s, which followed the first page before", strings.Join(lost, ", ")))
	}
	if len(r.problems) == 0 && !slices.Equal(want, got) {
		r.problems = append(r.problems, fmt.Sprintf("after new rows arrived, the page after the first holds %v, want %v", got, want))
	}
}

func keysOf(rows []model.Row) []model.Key {
	out := make([]model.Key, len(rows))
	for i, r := range rows {
		out[i] = r.Key
	}
	return out
}
