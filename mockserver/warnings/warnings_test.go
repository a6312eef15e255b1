package warnings

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/records"
)

// TestCursorListing checks whose cursor a cursor looks like.
func TestCursorListing(t *testing.T) {
	tests := []struct{ cursor, want string }{
		{records.GameKey{Epoch: 3, ID: "ab"}.Cursor(), records.ListingGames},
		{records.SnapshotKey{BlockHeight: 12}.Cursor(), records.ListingSnapshots},
		{records.RotationKey{BlockHeight: 12, NodeID: "n1"}.Cursor(), records.ListingKeyRotations},
		{records.ParameterKey{Key: "market.fee"}.Cursor(), records.ListingNetworkParameters},
		{"120.3", records.ListingTransactions},
		{"12.", ""},
		{".3", ""},
		{"12.x", ""},
		{"not base64!", ""},
		{"eyJ4IjoxfQ==", ""}, // {"x":1}
		{"", ""},
	}
	for _, tc := range tests {
		if got := CursorListing(tc.cursor); got != tc.want {
			t.Errorf("CursorListing(%q) = %q, want %q", tc.cursor, got, tc.want)
		}
	}
}

// TestQuote checks that a client's value is echoed in ASCII and cut at
// maxShown bytes on a character's start, with its length.
func TestQuote(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	tests := []struct{ in, want string }{
		{"abc", `"abc"`},
		{"a\nb", `"a\nb"`},
		{"é", `"\u00e9"`},
		{strings.Repeat("x", maxShown), `"` + strings.Repeat("x", maxShown) + `"`},
		{strings.Repeat("x", maxShown+1), `"` + strings.Repeat("x", maxShown) + `\u2026" (65 bytes)`},
		{long, `"` + strings.Repeat(`\u00e9`, 32) + `\u2026" (80 bytes)`},
		{"x" + long, `"x` + strings.Repeat(`\u00e9`, 31) + `\u2026" (81 bytes)`},
	}
	for _, tc := range tests {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestCheckerAlone checks the checker without a mock: its limits come from
// its fields, an unknown path draws one finding naming the nearest path, and
// command types the mock serves besides the generators' are known.
func TestCheckerAlone(t *testing.T) {
	c := &Checker{
		MaxPageSize: 100, TxMaxPageSize: 20, TxDefaultPageSize: 5, EpochWindow: 7,
		Paths:        []string{"/api/v2/games", "/transactions"},
		CommandTypes: func() []string { return []string{"Recorded Type"} },
	}
	get := func(target string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, target, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		target, listing string
		known           bool
		want            []string
	}{
		{"/api/v2/game", "", false, []string{`unknown path "/api/v2/game"; did you mean /api/v2/games?`}},
		{"/api/v2/games?pagination.first=101", records.ListingGames, true, []string{"pagination.first=101 is above the maximum page size 100"}},
		{"/api/v2/games?pagination.first=100", records.ListingGames, true, nil},
		{"/api/v2/games?epochFrom=1&epochTo=7", records.ListingGames, true, nil},
		{"/api/v2/games?epochFrom=1&epochTo=8", records.ListingGames, true, []string{"spans 8 epochs; only the last 7 are read (from 2)"}},
		{"/api/v2/games?epochFrom=2&epochTo=1", records.ListingGames, true, []string{"the window read is the 7 epochs up to 1"}},
		{"/transactions?first=21", records.ListingTransactions, true, []string{"first=21 is above the maximum page size 20"}},
		{"/transactions?first=0", records.ListingTransactions, true, []string{"the default 5 transactions"}},
		{"/transactions?cmdTypes=Recorded+Type", records.ListingTransactions, true, nil},
		{"/transactions?cmdTypes=Recorded+Typo", records.ListingTransactions, true, []string{`no such command type; did you mean "Recorded Type"?`}},
		// A type the generators make draws nothing, whichever spelling
		// carries it; one they do not make is looked at, in either.
		{"/transactions?cmdTypes=Submit+Order&cmd_types=Cancel+Order&excludeCmdTypes=Batch+Proposal", records.ListingTransactions, true, nil},
		{"/transactions?cmdTypes=Submit+Order&cmd_types=Recorded+Typo", records.ListingTransactions, true, []string{`cmdTypes="Recorded Typo" matches no transaction`}},
		{"/transactions?cmd_types=Submit+Order&cmdTypes=Recorded+Typo", records.ListingTransactions, true, []string{`cmdTypes="Recorded Typo" matches no transaction`}},
		{"/transactions?excludeCmdTypes=Submit+Order&exclude_cmd_types=Recorded+Typo", records.ListingTransactions, true, []string{`excludeCmdTypes="Recorded Typo" excludes nothing`}},
		{"/transactions?exclude_cmd_types=Recorded+Typo&excludeCmdTypes=Submit+Order", records.ListingTransactions, true, []string{`excludeCmdTypes="Recorded Typo" excludes nothing`}},
		{"/transactions?cmdTypes=Recorded+Type&cmdTypes=Recorded+Typo&cmdTypes=Recorded+Typo", records.ListingTransactions, true, []string{`no such command type`}},
		{"/transactions", records.ListingTransactions, true, nil},
	}
	for _, tc := range tests {
		_, got := c.Of(get(tc.target), tc.listing, tc.known)
		if len(got) != len(tc.want) {
			t.Errorf("%s: findings %q, want %d", tc.target, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: finding %q, want it to hold %q", tc.target, got[i], w)
			}
		}
	}
	strict := *c
	strict.Strict = true
	if _, got := strict.Of(get("/api/v2/games?epochFrom=2&epochTo=1"), records.ListingGames, true); len(got) != 0 {
		t.Errorf("under Strict a turned window draws %q", got)
	}
}
