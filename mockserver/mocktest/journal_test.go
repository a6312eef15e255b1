package mocktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/faults"
)

// errorsTB records a helper's errors instead of failing the test.
type errorsTB struct {
	testing.TB
	errs []string
}

func (e *errorsTB) Helper() {}

func (e *errorsTB) Errorf(format string, a ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, a...))
}

// txClient is a client under test: it walks transactions newest to oldest,
// size rows a page (first=N, then last=N&before=<the oldest row's cursor>).
type txClient struct {
	t    *testing.T
	base string
	size int
	// next chooses the cursor of page n+1 from page n's rows (nil: the
	// oldest row's, as it should).
	next func(n int, cursors []string) string
	// between runs before each page but the first.
	between func()
	// waits says whether it waits out Retry-After.
	waits bool
}

// page fetches one page, retrying after a 429 or 503, and returns its
// rows' cursors.
func (c *txClient) page(query string) []string {
	c.t.Helper()
	for {
		resp, err := http.Get(c.base + "/transactions?" + query)
		if err != nil {
			c.t.Fatal(err)
		}
		var body struct{ Transactions []struct{ Cursor string } }
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests {
			if c.waits {
				s, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
				time.Sleep(time.Duration(s) * time.Second)
			}
			continue
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			c.t.Fatalf("%s: status %d, %v", query, resp.StatusCode, err)
		}
		var out []string
		for _, tx := range body.Transactions {
			out = append(out, tx.Cursor)
		}
		return out
	}
}

// walk walks the listing and returns every row's cursor in order.
func (c *txClient) walk() []string {
	c.t.Helper()
	n := strconv.Itoa(c.size)
	rows := c.page("first=" + n)
	all := rows
	for i := 1; len(rows) == c.size; i++ {
		if c.between != nil {
			c.between()
		}
		next := rows[len(rows)-1]
		if c.next != nil {
			next = c.next(i, rows)
		}
		rows = c.page("last=" + n + "&before=" + next)
		all = append(all, rows...)
	}
	return all
}

// TestAssertWalkedAll has clients walk the transactions, one correctly and
// others not, and checks what AssertWalkedAll says of each.
func TestAssertWalkedAll(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		client func(t *testing.T, srv *Server)
		// want are texts the failures must hold; none: it passes.
		want []string
	}{
		{"a client that walks it all while blocks arrive and a 503 answers", func(t *testing.T, srv *Server) {
			srv.SetFaults(faults.Rule{Listing: "transactions", Every: 3, Times: 1, Fault: "status=503; retry-after=1"})
			(&txClient{t: t, base: srv.URL, size: 64, waits: true, between: func() { srv.Advance(4) }}).walk()
		}, nil},
		{"a client that skips a page", func(t *testing.T, srv *Server) {
			kept := (&txClient{t: t, base: srv.URL, size: 64}).walk()[127] // page 2's end, from an earlier run
			srv.ClearRequests()
			(&txClient{t: t, base: srv.URL, size: 64, next: func(n int, rows []string) string {
				if n == 1 {
					return kept
				}
				return rows[len(rows)-1]
			}}).walk()
		}, []string{"carried a cursor no earlier page of the walk issued (no page issued it)", "missed 64 rows"}},
		{"a client that repeats a page", func(t *testing.T, srv *Server) {
			var first string
			(&txClient{t: t, base: srv.URL, size: 64, next: func(n int, rows []string) string {
				if n == 1 {
					first = rows[len(rows)-1]
				}
				if n == 2 {
					return first
				}
				return rows[len(rows)-1]
			}}).walk()
		}, []string{"request 3 asked again for the page of request 2", "saw 64 rows twice"}},
		{"a client that invents a cursor", func(t *testing.T, srv *Server) {
			(&txClient{t: t, base: srv.URL, size: 64, next: func(n int, rows []string) string {
				block, _, _ := strings.Cut(rows[len(rows)-1], ".")
				b, _ := strconv.Atoi(block)
				return strconv.Itoa(b) + ".0" // the block's first row: the rest of the block is skipped
			}}).walk()
		}, []string{"no page issued it"}},
		{"a client that ignores Retry-After", func(t *testing.T, srv *Server) {
			srv.SetFaults(faults.Rule{Listing: "transactions", Every: 2, Times: 1, Fault: "status=503; retry-after=1"})
			(&txClient{t: t, base: srv.URL, size: 64}).walk()
		}, []string{"request 3 came 0.0", "after request 2's Retry-After of 1s"}},
		{"a client that starts again", func(t *testing.T, srv *Server) {
			c := &txClient{t: t, base: srv.URL, size: 64}
			c.page("first=64")
			c.walk()
		}, []string{"the client walked transactions 2 times, want once"}},
		{"a client that never asked", func(t *testing.T, srv *Server) {}, []string{"the client did not walk transactions"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := New(t, Options{Seed: 5, Scale: 0.05})
			tc.client(t, srv)
			fake := &errorsTB{TB: t}
			passed := srv.AssertWalkedAll(fake, "transactions")
			if passed != (len(tc.want) == 0) {
				t.Errorf("AssertWalkedAll = %v; errors: %q", passed, fake.errs)
			}
			all := strings.Join(fake.errs, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("the failure does not say %q:\n%s", w, all)
				}
			}
		})
	}
}

// TestAssertWalksCleanAndNoWarnings checks AssertWalksClean lets walks stop
// early but not repeat, and AssertNoWarnings reports each finding.
func TestAssertWalksCleanAndNoWarnings(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{Seed: 5, Scale: 0.05})
	c := &txClient{t: t, base: srv.URL, size: 64}
	c.page("first=64")
	c.page("first=5")
	if fake := (&errorsTB{TB: t}); !srv.AssertWalksClean(fake) || !srv.AssertNoWarnings(fake) {
		t.Errorf("two first pages: %q", fake.errs)
	}
	c.page("cmdTypes[]=Submit+Order&cmdTypes[]=Cancel+Order")
	fake := &errorsTB{TB: t}
	if srv.AssertNoWarnings(fake) || len(fake.errs) != 1 || !strings.Contains(fake.errs[0], "repeat the key: cmdTypes=A&cmdTypes=B") {
		t.Errorf("orval's query: %q", fake.errs)
	}
	for range 30 { // the same mistake again and again: still one message
		c.page("cmdTypes[]=Submit+Order&cmdTypes[]=Cancel+Order")
	}
	fake = &errorsTB{TB: t}
	if srv.AssertNoWarnings(fake) || len(fake.errs) != 1 || !strings.Contains(fake.errs[0], "31 requests drew the warning") {
		t.Errorf("one mistake 31 times: %q", fake.errs)
	}
	srv.ClearRequests()
	rows := c.page("first=10")
	c.page("last=10&before=" + rows[9])
	c.page("last=10&before=" + rows[9])
	fake = &errorsTB{TB: t}
	if srv.AssertWalksClean(fake) || len(fake.errs) != 1 || !strings.Contains(fake.errs[0], "asked again") {
		t.Errorf("a page asked twice: %q", fake.errs)
	}
	if got := srv.RequestsOf("transactions"); len(got) != 3 || got[0].IssuedBy != got[2].ID {
		t.Errorf("RequestsOf: %+v", got)
	}
	srv.Reset()
	if got := srv.Requests(); len(got) != 0 {
		t.Errorf("after Reset: %d requests", len(got))
	}
}
