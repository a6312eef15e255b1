package paging

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/mockserver/mocktest"
)

// mock serves the default world (scale 0.1) for the package's tests.
var mock = sync.OnceValues(func() (*mocktest.Server, error) {
	return mocktest.Start(mocktest.Options{Seed: 1})
})

// asked returns the ID of the newest request srv's journal holds: how many
// it has received.
func asked(srv *mocktest.Server) uint64 {
	if rs := srv.Requests(); len(rs) > 0 {
		return rs[0].ID
	}
	return 0
}

// walkedState walks the mock's key rotations as SetUp does, with pages of
// size rows (the backward walk's too), without catching up.
func walkedState(t *testing.T, size int) *PagedState {
	t.Helper()
	srv, err := mock()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{BaseURL: srv.URL}
	client.ConfigureTraffic(cfg) // a loopback deployment: no pacing
	c := client.NewClient(cfg)
	st := &PagedState{Listing: RotationsListing, Client: c, Size: size, BSize: size}
	st.Walker = Walker{Client: c, Listing: RotationsListing, maxPages: 1000}
	st.Fwd = st.Walker.Forward(nil, size, "")
	st.Cut = NewCutoff(st.Fwd.Rows, RotationsListing.Compare)
	st.Bwd = st.Walker.backward(nil, size, "")
	st.Asc = st.Walker.Forward(url.Values{"pagination.newestFirst": {"false"}}, size, "")
	st.BwdAnchored = st.Walker.backward(nil, size, st.Fwd.Rows[len(st.Fwd.Rows)-1].Cursor)
	if !st.Fwd.Complete || !st.Bwd.Complete || !st.Asc.Complete || !st.BwdAnchored.Complete || len(st.Fwd.Rows) < 3 {
		t.Fatalf("the walks did not complete: %d rows", len(st.Fwd.Rows))
	}
	return st
}

// newestBlock counts the rows of the newest block at the start of rows.
func newestBlock(rows []Row) int {
	n := 0
	for n < len(rows) && rows[n].Key.Num == rows[0].Key.Num {
		n++
	}
	return n
}

func joined(rows []Row) string { return strings.Join(idents(rows), " ") }

// TestCatchUp: a backward or oldest-first walk that lacks the forward
// walk's newest block is asked again from its last page and completed
// with the rows the deployment now serves; rows it never serves are not
// added, nor is anything to a walk that broke off or was cut short.
func TestCatchUp(t *testing.T) {
	for _, size := range []int{7, 1000} { // several pages, one page
		st := walkedState(t, size)
		fwd := joined(st.Fwd.Rows)
		k := newestBlock(st.Fwd.Rows)

		// The backward walk's and the oldest-first walk's last pages came
		// from a head a block older.
		st.Bwd.Rows = st.Bwd.Rows[k:]
		st.BwdAnchored.Rows = st.BwdAnchored.Rows[k:]
		st.Asc.Rows = st.Asc.Rows[:len(st.Asc.Rows)-k]
		st.catchUp()
		if anchored := joined(st.Fwd.Rows[:len(st.Fwd.Rows)-1]); st.BwdAnchored.CaughtUp != k || joined(st.BwdAnchored.Rows) != anchored {
			t.Errorf("size %d: backward walk from the last row caught up %d rows, want %d; rows equal to the forward walk's: %t", size, st.BwdAnchored.CaughtUp, k, joined(st.BwdAnchored.Rows) == anchored)
		}
		if st.Bwd.CaughtUp != k || joined(st.Bwd.Rows) != fwd {
			t.Errorf("size %d: backward walk caught up %d rows, want %d; rows equal to the forward walk's: %t", size, st.Bwd.CaughtUp, k, joined(st.Bwd.Rows) == fwd)
		}
		if st.Asc.CaughtUp != k || joined(Reversed(st.Asc.Rows)) != fwd {
			t.Errorf("size %d: oldest-first walk caught up %d rows, want %d; rows the forward walk's reversed: %t", size, st.Asc.CaughtUp, k, joined(Reversed(st.Asc.Rows)) == fwd)
		}

		// Walks that lack nothing are left as they are, and not asked
		// again.
		srv, _ := mock()
		before := asked(srv)
		st.catchUp()
		if st.Bwd.CaughtUp != k || st.Asc.CaughtUp != k || st.BwdAnchored.CaughtUp != k || joined(st.Bwd.Rows) != fwd {
			t.Errorf("size %d: walks that lack nothing changed", size)
		}
		if n := asked(srv) - before; n != 0 {
			t.Errorf("size %d: walks that lack nothing were asked again (%d requests)", size, n)
		}
	}

	newer := func(st *PagedState) {
		r := st.Fwd.Rows[0]
		r.Key.Num++
		r.Ident = "rotation never served"
		st.Fwd.Rows = append([]Row{r}, st.Fwd.Rows...)
		st.Cut = NewCutoff(st.Fwd.Rows, RotationsListing.Compare)
	}
	for _, tc := range []struct {
		name   string
		change func(st *PagedState)
	}{
		{"a row the deployment never serves", newer},
		{"the forward walk broke off", func(st *PagedState) {
			newer(st)
			st.Fwd.Err = errTest
		}},
		{"the walks were cut short", func(st *PagedState) {
			newer(st)
			st.Bwd.Complete, st.Asc.Complete, st.BwdAnchored.Complete = false, false, false
		}},
		{"no backward walk from the last row", func(st *PagedState) {
			st.BwdAnchored = nil
			newer(st)
		}},
		{"no forward rows", func(st *PagedState) {
			st.Fwd.Rows = nil
			st.Bwd.Rows = st.Bwd.Rows[1:]
		}},
		{"a listing without an age", func(st *PagedState) {
			l := *RotationsListing
			l.Ordered = false
			st.Listing = &l
			newer(st)
		}},
	} {
		st := walkedState(t, 7)
		tc.change(st)
		walks := []*Walk{st.Bwd, st.Asc, st.BwdAnchored}
		var before []string
		for _, w := range walks {
			if w != nil {
				before = append(before, joined(w.Rows))
			}
		}
		st.catchUp()
		var after []string
		for _, w := range walks {
			if w != nil {
				after = append(after, joined(w.Rows))
				if w.CaughtUp != 0 {
					t.Errorf("%s: %s caught up %d rows, want none", tc.name, w.What, w.CaughtUp)
				}
			}
		}
		if !slices.Equal(before, after) {
			t.Errorf("%s: the walks changed", tc.name)
		}
	}
}

var errTest = errString("test")

type errString string

func (e errString) Error() string { return string(e) }
