package conformance

import (
	"fmt"
	"net/url"
	"strconv"
	"sync"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
)

// pagedState is what the specs of one paged listing share: the client and
// the walks made once in BeforeAll.
type pagedState struct {
	l    *pagedListing
	cfg  config.Config
	c    *client.Client
	wk   walker
	size int
	// bsize is the backward walk's page size: small enough for at least
	// three backward pages.
	bsize int

	// fwd and bwd walk the whole listing (default order) forwards from the
	// start and backwards from the end; bwdAnchored walks backwards from
	// fwd's last row when fwd was cut short by the page bound; asc walks
	// forwards with newestFirst=false.
	fwd, bwd, bwdAnchored, asc *walk
	// cut leaves out rows that arrive during the run (newer than every row
	// of fwd).
	cut cutoff
}

// setUp makes the shared walks. It never fails the suite itself: a walk that
// breaks off keeps its error for the rules that need it.
func (st *pagedState) setUp() {
	st.cfg = activeConfig()
	st.c = client.NewClient(st.cfg)
	st.wk = walker{c: st.c, l: st.l, maxPages: st.cfg.MaxPages}
	st.size = st.pageSize(nil)
	st.fwd = st.wk.forward(nil, st.size, "")
	if st.l.ordered {
		st.cut = newCutoff(st.fwd.rows, st.l.compare)
	}
	st.bsize = st.size
	if n := len(st.fwd.rows); st.fwd.complete && n < 3*st.size {
		st.bsize = max(1, n/3)
	}
	// The other walks are independent: they go side by side, as many
	// requests in flight as --concurrency allows.
	var wg sync.WaitGroup
	wg.Go(func() { st.bwd = st.wk.backward(nil, st.bsize, "") })
	if st.fwd.err == nil && !st.fwd.complete && len(st.fwd.rows) > 0 {
		wg.Go(func() { st.bwdAnchored = st.wk.backward(nil, st.size, st.fwd.rows[len(st.fwd.rows)-1].cursor) })
	}
	wg.Go(func() { st.asc = st.wk.forward(url.Values{"pagination.newestFirst": {"false"}}, st.size, "") })
	wg.Wait()
}

// pageSize chooses the walks' page size: the configured size for a large
// listing, or about a quarter of a small one, so that a walk has first,
// middle and last pages. The count it sizes the listing with is the
// configured size too: no request asks for more.
func (st *pagedState) pageSize(q url.Values) int {
	probe := st.cfg.PageSize
	p, _, err := st.wk.page(with(q, "pagination.first", strconv.Itoa(probe)))
	if err != nil || p.info.hasNext || len(p.rows) >= probe {
		return st.cfg.PageSize
	}
	return max(1, min(st.cfg.PageSize, (len(p.rows)+3)/4))
}

// listingRef is what the forward walk says of where rows stand in the
// listing.
type listingRef struct {
	rows     []row
	complete bool
	index    map[string]int
}

// reference returns the forward walk as the reference of row positions.
func (st *pagedState) reference() listingRef {
	ref := listingRef{rows: st.fwd.rows, complete: st.fwd.complete, index: map[string]int{}}
	for i, r := range ref.rows {
		if _, dup := ref.index[r.ident]; !dup {
			ref.index[r.ident] = i
		}
	}
	return ref
}

// arrived reports whether rows newer than every row of the forward walk
// have arrived since it was made (on a live network), by asking for the
// listing's first row again.
func (st *pagedState) arrived() bool {
	GinkgoHelper()
	if !st.l.ordered {
		return false
	}
	p := st.mustPage(url.Values{"pagination.first": {"1"}})
	_, arrived := st.cut.settle(p.rows)
	return arrived
}

// newestBlock returns the block height of the listing's newest row, for
// the listings whose rows carry one.
func (st *pagedState) newestBlock() (uint64, *client.Exchange, bool) {
	if st.l.blockField == "" || st.fwd == nil || len(st.fwd.rows) == 0 {
		return 0, nil, false
	}
	r := st.fwd.rows[0]
	if r.keyErr != nil {
		return 0, nil, false
	}
	return r.key.num, st.fwd.pages[0].ex, true
}

// rows returns the forward walk's rows, failing the spec when the walk broke
// off and skipping it when the listing has fewer than n rows.
func (st *pagedState) rows(n int) []row {
	GinkgoHelper()
	failWalk(st.fwd)
	if len(st.fwd.rows) < n {
		rule.Skipf("the %s listing has %d rows; this rule needs at least %d", st.l.label, len(st.fwd.rows), n)
	}
	return st.fwd.rows
}

// mustPage fetches one page and fails the spec when it is not a usable 200
// answer.
func (st *pagedState) mustPage(q url.Values) *page {
	GinkgoHelper()
	p, ex, err := st.wk.page(q)
	if err != nil {
		if ex.Refused {
			rule.SkipRefused(ex)
		}
		rule.FailRule(fmt.Sprintf("A %s page could not be read: %v%s\n%s", st.l.label, err, withHint(ex), ex.Describe()))
	}
	return p
}

// lastRow returns the listing's last row in default order: the forward
// walk's, or when the walk was cut short, the row last=1 gives.
func (st *pagedState) lastRow() row {
	GinkgoHelper()
	rows := st.rows(1)
	if st.fwd.complete {
		return rows[len(rows)-1]
	}
	p := st.mustPage(url.Values{"pagination.last": {"1"}})
	if len(p.rows) != 1 {
		rule.FailRule(fmt.Sprintf("pagination.last=1 gave %d rows, want 1\n%s", len(p.rows), p.ex.Describe()))
	}
	return p.rows[0]
}

// resumeAnchors picks row indexes to resume from: the start, the middle and
// near the end.
func resumeAnchors(n int) []int {
	var out []int
	for _, i := range []int{0, n / 2, n - 2} {
		if i >= 0 && i < n && (len(out) == 0 || out[len(out)-1] != i) {
			out = append(out, i)
		}
	}
	return out
}

// pageFlagProblems checks the flags of a walk's pages against where the
// reference (the forward walk) puts their rows, so that a wrong flag that
// ended the walk early is still seen. Only pages at the position pos
// (first, middle, last; "" for all) are judged; it returns how many were.
// Pages whose rows the reference does not hold (rows that arrived since,
// or beyond the reference's reach) are not judged.
func pageFlagProblems(w *walk, ref listingRef, backward bool, pos string, report func(pos string, ex *client.Exchange, msg string)) int {
	judged := 0
	for i, p := range w.pages {
		if len(p.rows) == 0 {
			continue
		}
		first, okFirst := ref.index[p.rows[0].ident]
		last, okLast := ref.index[p.rows[len(p.rows)-1].ident]
		if !okFirst || !okLast {
			continue
		}
		rowsBefore := first > 0
		rowsAfter := last < len(ref.rows)-1 || !ref.complete
		at := "middle"
		switch {
		case !rowsBefore:
			at = "first"
		case !rowsAfter:
			at = "last"
		}
		if pos != "" && at != pos {
			continue
		}
		judged++
		// A page holding the newest row may now have newer rows before it
		// when rows arrived since the reference walk; only the reference
		// walk itself is sure of it.
		if !rowsBefore && p.info.hasPrev && w != nil && backward {
			rowsBefore = true
		}
		if p.info.hasPrev != rowsBefore {
			report(at, p.ex, fmt.Sprintf("page %d of the %s (%s to %s): hasPreviousPage is %v, but rows %s precede it", i+1, w.what, p.rows[0].ident, p.rows[len(p.rows)-1].ident, p.info.hasPrev, yesNo(rowsBefore)))
		}
		if p.info.hasNext != rowsAfter {
			report(at, p.ex, fmt.Sprintf("page %d of the %s (%s to %s): hasNextPage is %v, but rows %s follow it", i+1, w.what, p.rows[0].ident, p.rows[len(p.rows)-1].ident, p.info.hasNext, yesNo(rowsAfter)))
		}
	}
	return judged
}

func yesNo(b bool) string {
	if b {
		return "do"
	}
	return "do not"
}
