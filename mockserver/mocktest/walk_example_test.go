package mocktest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/mocktest"
)

// transaction is what the client under test keeps of a transaction.
type transaction struct {
	Cursor string `json:"cursor"`
	Type   string `json:"type"`
}

// fetchTransactions is the client under test: it reads every transaction,
// newest first, pageSize at a time (first=N, then last=N&before=<the oldest
// row's cursor>, until a page is short), asking again after a 429 or a 503
// once Retry-After has passed. afterPage runs after each page.
func fetchTransactions(base string, pageSize int, afterPage func()) ([]transaction, error) {
	n := strconv.Itoa(pageSize)
	var all []transaction
	query := "first=" + n
	for {
		page, err := getTransactions(base + "/transactions?" + query)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < pageSize {
			return all, nil
		}
		afterPage()
		query = "last=" + n + "&before=" + url.QueryEscape(page[len(page)-1].Cursor)
	}
}

// getTransactions gets one page, waiting out Retry-After as often as the
// server asks.
func getTransactions(u string) ([]transaction, error) {
	for {
		resp, err := http.Get(u)
		if err != nil {
			return nil, err
		}
		var body struct{ Transactions []transaction }
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
			wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			time.Sleep(time.Duration(wait) * time.Second)
		case resp.StatusCode != http.StatusOK:
			return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
		case err != nil:
			return nil, fmt.Errorf("GET %s: %w", u, err)
		default:
			return body.Transactions, nil
		}
	}
}

// A client's walk through the transactions, verified: it pages while
// blocks arrive and the third request is answered 503 once, and the mock
// reports that it followed the cursors it was given, reached the end, got
// every row the listing held when it began exactly once, and waited out the
// Retry-After. (Walking from the newest row to the oldest, it does not see
// the 15 blocks that arrived meanwhile, and need not.)
func Example_verifyAWalk() {
	srv, err := mocktest.Start(mocktest.Options{Seed: 7, Scale: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.SetFaults(faults.Rule{Listing: "transactions", Every: 3, Times: 1, Fault: "status=503; retry-after=1"})
	held := srv.Status().Counts["transactions"]

	txs, err := fetchTransactions(srv.URL, 300, func() { srv.Advance(5) }) // 5 blocks after each page
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d transactions read, %d held when the walk began\n", len(txs), held)
	for _, r := range srv.Requests() { // newest first
		from := ""
		if r.IssuedBy != 0 {
			from = fmt.Sprintf(", its cursor from request %d", r.IssuedBy)
		}
		fmt.Printf("request %d: %s?%s: %d, %d rows%s\n", r.ID, r.Path, r.Query, r.Status, r.Rows, from)
	}
	for _, w := range srv.Walks() {
		fmt.Printf("walk %d: %d pages, %d rows, reached the end %v, rows missed %d, seen twice %d, waited out Retry-After %v, problems %q\n",
			w.ID, w.Pages, w.Rows, w.ReachedEnd, w.RowsMissed, w.RowsSeenTwice, w.WaitedOutRetryAfter, w.Problems)
	}
	// Output:
	// 1000 transactions read, 1000 held when the walk began
	// request 5: /transactions?last=300&before=3002.1: 200, 100 rows, its cursor from request 4
	// request 4: /transactions?last=300&before=10512.2: 200, 300 rows, its cursor from request 2
	// request 3: /transactions?last=300&before=10512.2: 503, 0 rows, its cursor from request 2
	// request 2: /transactions?last=300&before=18458.4: 200, 300 rows, its cursor from request 1
	// request 1: /transactions?first=300: 200, 300 rows
	// walk 1: 4 pages, 1000 rows, reached the end true, rows missed 0, seen twice 0, waited out Retry-After true, problems []
}

// TestClientWalksEveryTransaction is the same check in a client's test: a
// line each.
func TestClientWalksEveryTransaction(t *testing.T) {
	t.Parallel()
	srv := mocktest.New(t, mocktest.Options{Seed: 7, Scale: 0.1})
	srv.SetFaults(faults.Rule{Listing: "transactions", Every: 3, Times: 1, Fault: "status=503; retry-after=1"})
	if _, err := fetchTransactions(srv.URL, 300, func() { srv.Advance(5) }); err != nil {
		t.Fatal(err)
	}
	srv.AssertWalkedAll(t, "transactions") // every row exactly once, the cursors followed, Retry-After waited out
	srv.AssertNoWarnings(t)                // no parameter the mock read otherwise than meant
}
