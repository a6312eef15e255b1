package mockserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chaindata/harness/internal/race"
)

// TestObservedPageAllocations checks what a page served with the journal
// and the warnings on allocates once the pools are warm: the query parsed
// into the map its writer keeps, no finding made, the journal's record
// copied into its ring; what is left is the answer's Content-Length and
// what the journal keeps of the page (its row runs and cursors), and for a
// filtered transactions page its unescaped type and the lists of the
// types' rows.
func TestObservedPageAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector drops what a sync.Pool holds at random: the allocations are counted without it")
	}
	st, err := journalBenchStore()
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{}, st)
	tests := []struct {
		target string
		most   float64
	}{
		{"/api/v2/network/parameters?pagination.first=100", 4},
		{"/api/v2/snapshots?pagination.first=100", 4},
		{"/api/v2/games?pagination.first=100", 4},
		{"/transactions?first=50", 4},
		{"/transactions?first=50&cmdTypes=Batch+Proposal", 7},
	}
	for _, tc := range tests {
		req := httptest.NewRequest(http.MethodGet, tc.target, nil)
		w := &deadlineDiscard{discard{h: http.Header{}}}
		s.ServeHTTP(w, req) // the pools and buffers warm
		if w.status != http.StatusOK || len(w.h.Values(WarningHeader)) > 0 {
			t.Fatalf("%s: status %d, findings %q", tc.target, w.status, w.h.Values(WarningHeader))
		}
		allocs := testing.AllocsPerRun(50, func() {
			clear(w.h)
			s.ServeHTTP(w, req)
		})
		if allocs > tc.most {
			t.Errorf("%s: %v allocations, want at most %v", tc.target, allocs, tc.most)
		}
	}
}
