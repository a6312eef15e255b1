package conformance

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// rowsOf makes rows keyed by block height (snapshot-like) in the given order.
func rowsOf(heights ...uint64) []row {
	out := make([]row, len(heights))
	for i, h := range heights {
		out[i] = row{key: rowKey{num: h}, ident: fmt.Sprintf("h%d", h), cursor: fmt.Sprintf("c%d", h)}
	}
	return out
}

func TestDiffPrefix(t *testing.T) {
	tests := []struct {
		name                      string
		got, want                 []row
		gotComplete, wantComplete bool
		wantDiff                  string // "" for agreement, else a part of the message
	}{
		{"equal", rowsOf(3, 2, 1), rowsOf(3, 2, 1), true, true, ""},
		{"cut short by the bound", rowsOf(3, 2), rowsOf(3, 2, 1), false, true, ""},
		{"complete but shorter", rowsOf(3, 2), rowsOf(3, 2, 1), true, true, "ends after 2 rows"},
		{"extra row", rowsOf(3, 2, 1, 0), rowsOf(3, 2, 1), true, true, "first extra row is h0"},
		{"extra row past a cut-short want", rowsOf(3, 2, 1, 0), rowsOf(3, 2, 1), true, false, ""},
		{"different row", rowsOf(3, 1), rowsOf(3, 2), true, true, "row 1 differs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := diffPrefix("got", tc.got, tc.gotComplete, "want", tc.want, tc.wantComplete)
			if tc.wantDiff == "" && d != "" {
				t.Errorf("want agreement, got %q", d)
			}
			if tc.wantDiff != "" && !strings.Contains(d, tc.wantDiff) {
				t.Errorf("want a difference saying %q, got %q", tc.wantDiff, d)
			}
		})
	}
}

func TestSubsetDiffStaysWithinTheWalksReach(t *testing.T) {
	even := func(r row) bool { return r.key.num%2 == 0 }
	unfiltered := &walk{rows: rowsOf(9, 8, 7, 6, 5, 4), complete: false} // cut short at 4
	tests := []struct {
		name     string
		filtered *walk
		wantDiff bool
	}{
		{"matching subset, beyond the unfiltered reach too", &walk{rows: rowsOf(8, 6, 4, 2, 0), complete: true}, false},
		{"a matching row missing", &walk{rows: rowsOf(8, 4, 2), complete: true}, true},
		{"a row that does not belong", &walk{rows: rowsOf(8, 7, 6, 4), complete: true}, true},
		{"filtered walk cut short", &walk{rows: rowsOf(8, 6), complete: false}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := subsetDiff(snapshotsListing.compare, cutoff{}, tc.filtered, unfiltered, even)
			if (d != "") != tc.wantDiff {
				t.Errorf("difference %q, want one: %v", d, tc.wantDiff)
			}
		})
	}
}

func TestPageFlagProblems(t *testing.T) {
	pageOf := func(hasPrev, hasNext bool, heights ...uint64) *page {
		return &page{ex: &exchange{url: "u"}, rows: rowsOf(heights...), info: pageInfo{hasPrev: hasPrev, hasNext: hasNext}}
	}
	good := &walk{what: "w", complete: true, pages: []*page{pageOf(false, true, 5, 4), pageOf(true, true, 3, 2), pageOf(true, false, 1)}}
	var got []string
	pageFlagProblems(good, false, func(pos string, _ *exchange, msg string) { got = append(got, pos+": "+msg) })
	if len(got) != 0 {
		t.Errorf("a correct walk has problems: %v", got)
	}
	bad := &walk{what: "w", complete: true, pages: []*page{pageOf(false, true, 5, 4), pageOf(false, true, 3, 2), pageOf(true, true, 1), pageOf(true, false)}}
	got = nil
	pageFlagProblems(bad, false, func(pos string, _ *exchange, msg string) { got = append(got, pos) })
	if strings.Join(got, ",") != "middle,last" {
		t.Errorf("want problems on the middle and last pages, got %v", got)
	}
	// Paged backwards from the end, the first page fetched is the last page.
	back := &walk{what: "w", complete: true, pages: []*page{pageOf(true, false, 2, 1), pageOf(false, true, 4, 3)}}
	got = nil
	pageFlagProblems(back, true, func(pos string, _ *exchange, msg string) { got = append(got, msg) })
	if len(got) != 0 {
		t.Errorf("a correct backward walk has problems: %v", got)
	}
}

func TestRepeats(t *testing.T) {
	if msg, _ := repeats(rowsOf(3, 2, 1)); msg != "" {
		t.Errorf("no repeats, got %q", msg)
	}
	msg, i := repeats(rowsOf(3, 2, 2, 1))
	if i != 2 || !strings.Contains(msg, "h2 is row 1 and again row 2") {
		t.Errorf("got %q at %d", msg, i)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{BaseURL: "http://127.0.0.1:8080"}, ""},
		{Config{}, "--base-url is required"},
		{Config{BaseURL: "127.0.0.1:8080"}, "--base-url"},
		{Config{BaseURL: "localhost:8080"}, "absolute http or https URL"},
		{Config{BaseURL: "http://h", TransactionsURL: "ftp://h"}, "--transactions-url"},
		{Config{BaseURL: "http://h?x=1"}, "without query"},
		{Config{BaseURL: "http://h", MaxPages: -1}, "--max-pages"},
		{Config{BaseURL: "http://h", Timeout: -time.Second}, "--timeout"},
	}
	for _, tc := range tests {
		err := tc.cfg.Validate()
		if tc.want == "" && err != nil {
			t.Errorf("%+v: %v", tc.cfg, err)
		}
		if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want an error saying %q", tc.cfg, err, tc.want)
		}
	}
	d := Config{BaseURL: "http://h/"}.withDefaults()
	if d.BaseURL != "http://h" || d.TransactionsURL != "http://h" || d.MaxPages != DefaultMaxPages || d.PageSize != DefaultPageSize || d.Timeout != DefaultTimeout {
		t.Errorf("defaults: %+v", d)
	}
}
