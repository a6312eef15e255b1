package conformance

import (
	"fmt"
	"net/url"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
)

// pagedState is what the specs of one paged listing share: the client and
// the walks made once in BeforeAll.
type pagedState struct {
	l    *pagedListing
	cfg  Config
	c    *client
	wk   walker
	size int

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
	st.c = newClient(st.cfg)
	st.wk = walker{c: st.c, l: st.l, maxPages: st.cfg.MaxPages}
	st.size = st.pageSize(nil)
	st.fwd = st.wk.forward(nil, st.size, "")
	if st.l.ordered {
		st.cut = newCutoff(st.fwd.rows, st.l.compare)
	}
	st.bwd = st.wk.backward(nil, st.size, "")
	if st.fwd.err == nil && !st.fwd.complete && len(st.fwd.rows) > 0 {
		st.bwdAnchored = st.wk.backward(nil, st.size, st.fwd.rows[len(st.fwd.rows)-1].cursor)
	}
	st.asc = st.wk.forward(url.Values{"pagination.newestFirst": {"false"}}, st.size, "")
}

// probeSize is the count of the request that sizes a listing.
const probeSize = 200

// pageSize chooses the walks' page size: the configured size for a large
// listing, or about a quarter of a small one, so that a walk has first,
// middle and last pages.
func (st *pagedState) pageSize(q url.Values) int {
	p, _, err := st.wk.page(with(q, "pagination.first", strconv.Itoa(probeSize)))
	if err != nil || p.info.hasNext || len(p.rows) >= probeSize {
		return st.cfg.PageSize
	}
	return max(1, min(st.cfg.PageSize, (len(p.rows)+3)/4))
}

// rows returns the forward walk's rows, failing the spec when the walk broke
// off and skipping it when the listing has fewer than n rows.
func (st *pagedState) rows(n int) []row {
	GinkgoHelper()
	failWalk(st.fwd)
	if len(st.fwd.rows) < n {
		skipf("the %s listing has %d rows; this rule needs at least %d", st.l.label, len(st.fwd.rows), n)
	}
	return st.fwd.rows
}

// mustPage fetches one page and fails the spec when it is not a usable 200
// answer.
func (st *pagedState) mustPage(q url.Values) *page {
	GinkgoHelper()
	p, ex, err := st.wk.page(q)
	if err != nil {
		Fail(fmt.Sprintf("A %s page could not be read: %v\n%s", st.l.label, err, ex.describe()))
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
		Fail(fmt.Sprintf("pagination.last=1 gave %d rows, want 1\n%s", len(p.rows), p.ex.describe()))
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

// pageFlagProblems checks the flags of the pages of a walk made from an end
// of the listing, given how many rows precede and follow each page. It
// calls report with the page's position (first, middle, last) and the
// problem.
func pageFlagProblems(w *walk, backward bool, report func(pos string, ex *exchange, msg string)) {
	total := 0
	for _, p := range w.pages {
		total += len(p.rows)
	}
	seen := 0
	for i, p := range w.pages {
		if len(p.rows) == 0 {
			continue
		}
		fetchedBefore := seen
		seen += len(p.rows)
		fetchedAfter := total - seen
		// Rows not fetched lie beyond the walk's far end when it was cut
		// short.
		beyond := !w.complete
		// Forward: rows before = fetched before; rows after = fetched after
		// or beyond. Backward (from the end): mirrored.
		rowsBefore, rowsAfter := fetchedBefore > 0, fetchedAfter > 0 || beyond
		if backward {
			rowsBefore, rowsAfter = fetchedAfter > 0 || beyond, fetchedBefore > 0
		}
		pos := "middle"
		lastWithRows := true
		for _, q := range w.pages[i+1:] {
			if len(q.rows) > 0 {
				lastWithRows = false
			}
		}
		switch {
		case i == 0:
			pos = "first"
		case lastWithRows && w.complete:
			pos = "last"
		}
		if backward {
			// A backward walk's first page is the listing's last page.
			switch pos {
			case "first":
				pos = "last"
			case "last":
				pos = "first"
			}
		}
		if p.info.hasPrev != rowsBefore {
			report(pos, p.ex, fmt.Sprintf("page %d of the %s: hasPreviousPage is %v, but rows %s precede it", i+1, w.what, p.info.hasPrev, yesNo(rowsBefore)))
		}
		if p.info.hasNext != rowsAfter {
			report(pos, p.ex, fmt.Sprintf("page %d of the %s: hasNextPage is %v, but rows %s follow it", i+1, w.what, p.info.hasNext, yesNo(rowsAfter)))
		}
	}
}

func yesNo(b bool) string {
	if b {
		return "do"
	}
	return "do not"
}
