package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/journal"
)

// orvalQuery is the query orval's axios client sends for two command types.
const orvalQuery = "/transactions?cmdTypes[]=Submit+Order&cmdTypes[]=Cancel+Order"

// fetch returns an answer's status, warning headers and body.
func fetch(t *testing.T, url string) (int, []string, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Values(mockserver.WarningHeader), b
}

// TestServeWarnsAndStrictParamsRefuses checks serve answers orval's
// bracketed keys with a warning, and with --strict-params a 400 whose
// detail is the finding.
func TestServeWarnsAndStrictParamsRefuses(t *testing.T) {
	t.Parallel()
	base, stop := startServe(t, "--scale", "0.05")
	defer stop()
	status, warnings, _ := fetch(t, base+orvalQuery)
	if status != http.StatusOK || len(warnings) != 1 || !strings.Contains(warnings[0], "repeat the key: cmdTypes=A&cmdTypes=B") {
		t.Errorf("without --strict-params: status %d, warnings %q", status, warnings)
	}

	strict, stopStrict := startServe(t, "--scale", "0.05", "--strict-params")
	defer stopStrict()
	status, _, body := fetch(t, strict+orvalQuery)
	var e struct {
		Code    int32
		Details []struct{ Message, Inner string }
	}
	if err := json.Unmarshal(body, &e); err != nil || status != http.StatusBadRequest || e.Code != 3 || len(e.Details) != 1 ||
		!strings.Contains(e.Details[0].Inner, `"cmdTypes[]" is not read`) {
		t.Errorf("with --strict-params: status %d, %v: %s", status, err, body)
	}
	if status, _, _ := fetch(t, strict+"/transactions?cmdTypes=Submit+Order&cmdTypes=Cancel+Order"); status != http.StatusOK {
		t.Errorf("with --strict-params, the repeated key: status %d", status)
	}
}

// TestServeJournalSize checks --journal-size bounds the journal, and 0
// keeps none.
func TestServeJournalSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		size string
		want []string
	}{
		{"3", []string{"pagination.first=5", "pagination.first=4", "pagination.first=3"}},
		{"0", nil},
	} {
		base, stop := startServe(t, "--scale", "0.05", "--journal-size", tc.size)
		for _, q := range []string{"1", "2", "3", "4", "5"} {
			fetch(t, base+"/api/v2/snapshots?pagination.first="+q)
		}
		_, _, body := fetch(t, base+"/harness/requests")
		stop()
		var got struct{ Requests []journal.Request }
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("--journal-size %s: %v: %s", tc.size, err, body)
		}
		var queries []string
		for _, r := range got.Requests {
			queries = append(queries, r.Query)
		}
		if strings.Join(queries, " ") != strings.Join(tc.want, " ") {
			t.Errorf("--journal-size %s: the journal holds %q, want %q", tc.size, queries, tc.want)
		}
	}
}

// TestServePageCache checks the page cache serves a query asked again by
// default (GET /harness/status counts its hits), and --page-cache 0 keeps
// no answer.
func TestServePageCache(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags []string
		limit int
		hits  bool
	}{
		{nil, mockserver.DefaultPageCacheBytes, true},
		{[]string{"--page-cache", "0"}, 0, false},
	} {
		base, stop := startServe(t, append([]string{"--scale", "0.05"}, tc.flags...)...)
		var bodies []string
		for range 3 {
			_, _, body := fetch(t, base+"/api/v2/snapshots?pagination.first=5")
			bodies = append(bodies, string(body))
		}
		_, _, body := fetch(t, base+"/harness/status")
		stop()
		var st mockserver.Status
		if err := json.Unmarshal(body, &st); err != nil {
			t.Fatalf("%v: %v: %s", tc.flags, err, body)
		}
		if bodies[0] != bodies[1] || bodies[1] != bodies[2] {
			t.Errorf("%v: the same query answered differently", tc.flags)
		}
		c := st.PageCache
		if c.LimitBytes != tc.limit || (c.Hits > 0) != tc.hits || (c.Answers > 0) != tc.hits || (c.Bytes > 0) != tc.hits {
			t.Errorf("%v: page cache %+v, want a limit of %d and hits %t", tc.flags, c, tc.limit, tc.hits)
		}
	}
}
