package paging

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

// PagedState is what the specs of one paged listing share: the client and
// the walks made once in BeforeAll.
type PagedState struct {
	// Listing is the listing; Config the run's configuration; Client and
	// Walker ask the listing; Size is the forward walks' page size.
	Listing *PagedListing
	Config  config.Config
	Client  *client.Client
	Walker  Walker
	Size    int
	// BSize is the backward walk's page size: small enough for at least
	// three backward pages.
	BSize int

	// Fwd and bwd walk the whole listing (default order) forwards from the
	// start and backwards from the end; bwdAnchored walks backwards from
	// fwd's last row when fwd was cut short by the page bound; asc walks
	// forwards with newestFirst=false.
	Fwd, Bwd, BwdAnchored, Asc *Walk
	// Cut leaves out rows that arrive during the run (newer than every row
	// of fwd).
	Cut Cutoff
}

// SetUp makes the shared walks. It never fails the suite itself: a walk that
// breaks off keeps its error for the rules that need it.
func (st *PagedState) SetUp() {
	st.Config = rule.ActiveConfig()
	st.Client = client.NewClient(st.Config)
	st.Walker = Walker{Client: st.Client, Listing: st.Listing, maxPages: st.Config.MaxPages}
	st.Size = st.pageSize(nil)
	st.Fwd = st.Walker.Forward(nil, st.Size, "")
	if st.Listing.Ordered {
		st.Cut = NewCutoff(st.Fwd.Rows, st.Listing.Compare)
	}
	st.BSize = st.Size
	if n := len(st.Fwd.Rows); st.Fwd.Complete && n < 3*st.Size {
		st.BSize = max(1, n/3)
	}
	// The other walks are independent: they go side by side, as many
	// requests in flight as --concurrency allows.
	var wg sync.WaitGroup
	wg.Go(func() { st.Bwd = st.Walker.backward(nil, st.BSize, "") })
	if st.Fwd.Err == nil && !st.Fwd.Complete && len(st.Fwd.Rows) > 0 {
		wg.Go(func() { st.BwdAnchored = st.Walker.backward(nil, st.Size, st.Fwd.Rows[len(st.Fwd.Rows)-1].Cursor) })
	}
	wg.Go(func() { st.Asc = st.Walker.Forward(url.Values{"pagination.newestFirst": {"false"}}, st.Size, "") })
	wg.Wait()
	st.catchUp()
}

// catchUp asks again the end of each walk that reaches the listing's
// newest end late (the backward walks, the oldest-first walk) when it lacks
// the forward walk's newest rows (Cutoff.CatchUp): replicas that share a
// chain add a block a few milliseconds apart, so such a walk's last page
// may come from one a block behind, and no rule may read the lag as lost
// rows (the head rules judge lag).
func (st *PagedState) catchUp() {
	if !st.Listing.Ordered || st.Fwd.Err != nil || len(st.Fwd.Rows) == 0 {
		return
	}
	ref := st.Fwd.Rows
	// backward walks again with last=size from the cursor the walk's last
	// page was asked with: the start cursor of the page before it, or the
	// walk's own anchor ("": the end).
	backward := func(size int, anchor string) func(*Page) *Walk {
		return func(before *Page) *Walk {
			from := anchor
			if before != nil {
				from = before.Info.StartCursor
			}
			return st.Walker.backward(nil, size, from)
		}
	}
	st.Cut.CatchUp(ref, st.Bwd, false, backward(st.BSize, ""))
	if st.BwdAnchored != nil {
		st.Cut.CatchUp(ref, st.BwdAnchored, false, backward(st.Size, ref[len(ref)-1].Cursor))
	}
	st.Cut.CatchUp(ref, st.Asc, true, func(before *Page) *Walk {
		from := ""
		if before != nil {
			from = before.Info.EndCursor
		}
		return st.Walker.Forward(url.Values{"pagination.newestFirst": {"false"}}, st.Size, from)
	})
}

// CatchUp completes a walk w that reaches the listing's newest end last
// and lacks the newest rows of ref (a reference walk's rows, newest first)
// by their primary key. again asks w again from where w took its last
// page, given the page w asked before it (nil: w had one page); when that
// walk holds every row missing, they are added to w (at its end when
// newestLast, w's rows running oldest first; else at its start), and
// w.CaughtUp says how many. A deployment that leaves the rows out every
// time it is asked does not catch up, and w stays as it came.
func (c Cutoff) CatchUp(ref []Row, w *Walk, newestLast bool, again func(before *Page) *Walk) {
	if w == nil || !w.Complete {
		return
	}
	got := w.Rows
	if newestLast {
		got = Reversed(got)
	}
	n := c.NewestMissing(ref, got)
	if n == 0 {
		return
	}
	var before *Page
	if k := len(w.Pages); k > 1 {
		before = w.Pages[k-2]
	}
	rows := CaughtUp(again(before), ref[:n])
	if rows == nil {
		return
	}
	if newestLast {
		w.Rows = append(w.Rows, rows...)
	} else {
		w.Rows = append(rows, w.Rows...)
	}
	w.CaughtUp = len(rows)
}

// CaughtUp returns the rows of a walk asked again (again) that another
// walk of it was missing, in again's order, when again is complete and
// holds every one of them; else nil.
func CaughtUp(again *Walk, missing []Row) []Row {
	if again.Err != nil || !again.Complete {
		return nil
	}
	want := map[string]bool{}
	for _, r := range missing {
		want[r.Ident] = true
	}
	var rows []Row
	for _, r := range again.Rows {
		if want[r.Ident] {
			rows = append(rows, r)
			delete(want, r.Ident)
		}
	}
	if len(want) > 0 {
		return nil
	}
	return rows
}

// pageSize chooses the walks' page size: the configured size for a large
// listing, or about a quarter of a small one, so that a walk has first,
// middle and last pages. The count it sizes the listing with is the
// configured size too: no request asks for more.
func (st *PagedState) pageSize(q url.Values) int {
	probe := st.Config.PageSize
	p, _, err := st.Walker.Page(With(q, "pagination.first", strconv.Itoa(probe)))
	if err != nil || p.Info.HasNext || len(p.Rows) >= probe {
		return st.Config.PageSize
	}
	return max(1, min(st.Config.PageSize, (len(p.Rows)+3)/4))
}

// listingRef is what the forward walk says of where rows stand in the
// listing.
type listingRef struct {
	Rows     []Row
	complete bool
	index    map[string]int
}

// Reference returns the forward walk as the reference of row positions.
func (st *PagedState) Reference() listingRef {
	ref := listingRef{Rows: st.Fwd.Rows, complete: st.Fwd.Complete, index: map[string]int{}}
	for i, r := range ref.Rows {
		if _, dup := ref.index[r.Ident]; !dup {
			ref.index[r.Ident] = i
		}
	}
	return ref
}

// Arrived reports whether rows newer than every row of the forward walk
// have arrived since it was made (on a live network), by asking for the
// listing's first row again.
func (st *PagedState) Arrived() bool {
	GinkgoHelper()
	if !st.Listing.Ordered {
		return false
	}
	p := st.MustPage(url.Values{"pagination.first": {"1"}})
	_, arrived := st.Cut.Settle(p.Rows)
	return arrived
}

// NewestBlock returns the block height of the listing's newest row, for
// the listings whose rows carry one.
func (st *PagedState) NewestBlock() (uint64, *client.Exchange, bool) {
	if st.Listing.BlockField == "" || st.Fwd == nil || len(st.Fwd.Rows) == 0 {
		return 0, nil, false
	}
	r := st.Fwd.Rows[0]
	if r.KeyErr != nil {
		return 0, nil, false
	}
	return r.Key.Num, st.Fwd.Pages[0].Ex, true
}

// Rows returns the forward walk's rows, failing the spec when the walk broke
// off and skipping it when the listing has fewer than n rows.
func (st *PagedState) Rows(n int) []Row {
	GinkgoHelper()
	FailWalk(st.Fwd)
	if len(st.Fwd.Rows) < n {
		rule.Skipf("the %s listing has %d rows; this rule needs at least %d", st.Listing.Label, len(st.Fwd.Rows), n)
	}
	return st.Fwd.Rows
}

// MustPage fetches one page and fails the spec when it is not a usable 200
// answer.
func (st *PagedState) MustPage(q url.Values) *Page {
	GinkgoHelper()
	p, ex, err := st.Walker.Page(q)
	if err != nil {
		if ex.Refused {
			rule.SkipRefused(ex)
		}
		rule.FailRule(fmt.Sprintf("A %s page could not be read: %v%s\n%s", st.Listing.Label, err, WithHint(ex), ex.Describe()))
	}
	return p
}

// LastRow returns the listing's last row in default order: the forward
// walk's, or when the walk was cut short, the row last=1 gives.
func (st *PagedState) LastRow() Row {
	GinkgoHelper()
	rows := st.Rows(1)
	if st.Fwd.Complete {
		return rows[len(rows)-1]
	}
	p := st.MustPage(url.Values{"pagination.last": {"1"}})
	if len(p.Rows) != 1 {
		rule.FailRule(fmt.Sprintf("pagination.last=1 gave %d rows, want 1\n%s", len(p.Rows), p.Ex.Describe()))
	}
	return p.Rows[0]
}

// ResumeAnchors picks row indexes to resume from: the start, the middle and
// near the end.
func ResumeAnchors(n int) []int {
	var out []int
	for _, i := range []int{0, n / 2, n - 2} {
		if i >= 0 && i < n && (len(out) == 0 || out[len(out)-1] != i) {
			out = append(out, i)
		}
	}
	return out
}

// PageFlagProblems checks the flags of a walk's pages against where the
// reference (the forward walk) puts their rows, so that a wrong flag that
// ended the walk early is still seen. Only pages at the position pos
// (first, middle, last; "" for all) are judged; it returns how many were.
// Pages whose rows the reference does not hold (rows that arrived since,
// or beyond the reference's reach) are not judged.
func PageFlagProblems(w *Walk, ref listingRef, backward bool, pos string, report func(pos string, ex *client.Exchange, msg string)) int {
	judged := 0
	for i, p := range w.Pages {
		if len(p.Rows) == 0 {
			continue
		}
		first, okFirst := ref.index[p.Rows[0].Ident]
		last, okLast := ref.index[p.Rows[len(p.Rows)-1].Ident]
		if !okFirst || !okLast {
			continue
		}
		rowsBefore := first > 0
		rowsAfter := last < len(ref.Rows)-1 || !ref.complete
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
		if !rowsBefore && p.Info.HasPrev && w != nil && backward {
			rowsBefore = true
		}
		if p.Info.HasPrev != rowsBefore {
			report(at, p.Ex, fmt.Sprintf("page %d of the %s (%s to %s): hasPreviousPage is %v, but rows %s precede it", i+1, w.What, p.Rows[0].Ident, p.Rows[len(p.Rows)-1].Ident, p.Info.HasPrev, yesNo(rowsBefore)))
		}
		if p.Info.HasNext != rowsAfter {
			report(at, p.Ex, fmt.Sprintf("page %d of the %s (%s to %s): hasNextPage is %v, but rows %s follow it", i+1, w.What, p.Rows[0].Ident, p.Rows[len(p.Rows)-1].Ident, p.Info.HasNext, yesNo(rowsAfter)))
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
