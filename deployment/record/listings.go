package record

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/chaindata/harness/generators/records"
)

// recordListing walks one listing from its saved position to its end.
func (r *recorder) recordListing(ctx context.Context, info listingInfo, ls *listingState) error {
	for !ls.Done {
		if r.opts.MaxPages > 0 && ls.Pages >= r.opts.MaxPages {
			ls.Done, ls.Truncated = true, true
			r.log.Info("max pages reached", "listing", info.name, "pages", ls.Pages)
			return r.st.save(r.opts.Out)
		}
		var err error
		switch info.name {
		case records.ListingTransactions:
			err = r.transactionsPage(ctx, info, ls)
		case records.ListingGames:
			var windowDone bool
			windowDone, err = r.pagedPage(ctx, info, ls, gamesWindow(ls))
			if err == nil && windowDone {
				ls.Done = !ls.nextWindow()
			}
		default:
			var end bool
			end, err = r.pagedPage(ctx, info, ls, nil)
			ls.Done = end
		}
		if err != nil {
			return err
		}
		if err := r.st.save(r.opts.Out); err != nil {
			return err
		}
	}
	return nil
}

// gamesWindow returns the epoch parameters of the current window: none for
// window 0 (the server's default, the latest epochs), else
// [WindowTo-29, WindowTo].
func gamesWindow(ls *listingState) func(url.Values) {
	if ls.Window == 0 {
		return nil
	}
	to := ls.WindowTo
	from := to - min(to, epochSpan)
	return func(q url.Values) {
		q.Set("epochFrom", strconv.FormatUint(from, 10))
		q.Set("epochTo", strconv.FormatUint(to, 10))
	}
}

// nextWindow moves the games walk to the 30 epochs below the window just
// walked. It reports false when the walk is over: epoch 0 reached, no game
// in the latest window to start from, or MaxEmptyWindows empty windows in a
// row.
func (ls *listingState) nextWindow() bool {
	if ls.WindowRows == 0 {
		ls.EmptyWindows++
	} else {
		ls.EmptyWindows = 0
	}
	var next uint64
	if ls.Window == 0 {
		// The default window ends at the latest epoch L and covers
		// [L-29, L]; L is unknown, but every epoch of that window below
		// the oldest game seen held no game, so the next window may start
		// right below it without missing or repeating a row.
		if ls.Rows == 0 || ls.MinEpoch == 0 {
			return false
		}
		next = ls.MinEpoch - 1
	} else {
		from := ls.WindowTo - min(ls.WindowTo, epochSpan)
		if from == 0 {
			return false
		}
		next = from - 1
	}
	if ls.EmptyWindows >= MaxEmptyWindows {
		return false
	}
	ls.Window++
	ls.WindowTo = next
	ls.WindowRows = 0
	ls.Cursor = ""
	return true
}

// pageBody is the page object of a paged listing.
type pageBody struct {
	Edges []struct {
		Node   json.RawMessage `json:"node"`
		Cursor string          `json:"cursor"`
	} `json:"edges"`
	PageInfo struct {
		EndCursor   string `json:"endCursor"`
		HasNextPage bool   `json:"hasNextPage"`
	} `json:"pageInfo"`
}

// pagedPage records one page of a paged listing (within the current games
// window) and reports whether it was the last.
func (r *recorder) pagedPage(ctx context.Context, info listingInfo, ls *listingState, extra func(url.Values)) (last bool, err error) {
	resp, err := r.fetchPage(ctx, info, ls, func(size int) url.Values {
		q := url.Values{}
		q.Set("pagination.first", strconv.Itoa(size))
		q.Set("pagination.newestFirst", "true")
		if ls.Cursor != "" {
			q.Set("pagination.after", ls.Cursor)
		}
		if extra != nil {
			extra(q)
		}
		return q
	})
	if err != nil {
		return false, err
	}
	var wrapper map[string]json.RawMessage
	var page pageBody
	if err := json.Unmarshal(resp.body, &wrapper); err != nil {
		return false, fmt.Errorf("GET %s: decode body: %w", resp.url, err)
	}
	raw, ok := wrapper[info.wrapper]
	if !ok {
		return false, fmt.Errorf("GET %s: body has no %q page", resp.url, info.wrapper)
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return false, fmt.Errorf("GET %s: decode %s: %w", resp.url, info.wrapper, err)
	}
	rows := make([][]byte, 0, len(page.Edges))
	for i, e := range page.Edges {
		at := fmt.Sprintf("/%s/edges/%d/node", info.wrapper, i)
		if line := r.keep(info, ls, resp, at, e.Node); line != nil {
			rows = append(rows, line)
		}
	}
	if err := r.commit(info.name, ls, rows); err != nil {
		return false, err
	}
	ls.WindowRows += len(rows)
	if !page.PageInfo.HasNextPage {
		ls.Cursor = ""
		return true, nil
	}
	next := page.PageInfo.EndCursor
	if next == "" || next == ls.Cursor || len(page.Edges) == 0 {
		r.violation(Violation{Listing: info.name, Request: resp.url, Status: resp.status, Path: "/" + info.wrapper + "/pageInfo", Rule: "pagination",
			Message: fmt.Sprintf("hasNextPage is true but the page cannot be followed (endCursor %q, %d edges); the listing's walk stops here", next, len(page.Edges))})
		ls.Cursor = ""
		return true, nil
	}
	ls.Cursor = next
	return false, nil
}

// transactionsPage records one page of transactions, newest to oldest:
// first=N for the newest, then last=N&before=C, C the oldest row so far.
func (r *recorder) transactionsPage(ctx context.Context, info listingInfo, ls *listingState) error {
	resp, err := r.fetchPage(ctx, info, ls, func(size int) url.Values {
		q := url.Values{}
		if ls.Cursor == "" {
			q.Set("first", strconv.Itoa(size))
		} else {
			q.Set("last", strconv.Itoa(size))
			q.Set("before", ls.Cursor)
		}
		return q
	})
	if err != nil {
		return err
	}
	var body struct {
		Transactions []json.RawMessage `json:"transactions"`
	}
	if err := json.Unmarshal(resp.body, &body); err != nil {
		return fmt.Errorf("GET %s: decode body: %w", resp.url, err)
	}
	if len(body.Transactions) == 0 {
		ls.Done = true
		ls.Pages++
		return nil
	}
	rows := make([][]byte, 0, len(body.Transactions))
	for i, t := range body.Transactions {
		if line := r.keep(info, ls, resp, fmt.Sprintf("/transactions/%d", i), t); line != nil {
			rows = append(rows, line)
		}
	}
	if err := r.commit(info.name, ls, rows); err != nil {
		return err
	}
	next := ""
	if ls.Last != nil {
		next = strconv.FormatUint(ls.Last.Num, 10) + "." + strconv.FormatUint(ls.Last.Sub, 10)
	}
	if next == "" || next == ls.Cursor {
		r.violation(Violation{Listing: info.name, Request: resp.url, Status: resp.status, Path: "/transactions", Rule: "pagination",
			Message: "the page holds no row older than the cursor; the listing's walk stops here"})
		ls.Done = true
		return nil
	}
	ls.Cursor = next
	return nil
}

// commit appends a page's rows and counts the page.
func (r *recorder) commit(listing string, ls *listingState, rows [][]byte) error {
	ls.Pages++
	if len(rows) == 0 {
		return nil
	}
	size, err := r.appendRows(listing, rows)
	if err != nil {
		return err
	}
	ls.Rows += len(rows)
	ls.Size = size
	return nil
}
