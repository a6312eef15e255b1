package rule

import (
	"testing"

	"github.com/chaindata/harness/conformance/client"
)

// TestVerdictListsProblems: each problem is listed for the reports with
// its first line, escaped, and the request that showed it: its method and
// target (path and query), and its curl line.
func TestVerdictListsProblems(t *testing.T) {
	v := NewVerdict("rows in order")
	ex := &client.Exchange{Method: "GET", URL: "http://h:1/api/v2/games?pagination.first=2&x=%20y"}
	v.Add(ex, "row %d is out of order\nmore said \xff", 2)
	v.Add(nil, "  the listing is empty\x80  ")
	v.Add(&client.Exchange{Method: "POST", URL: "http://h:1/transactions"}, "HTTP 200, want 501")
	want := []Problem{
		{Detail: "row 2 is out of order", Request: "GET /api/v2/games?pagination.first=2&x=%20y", Curl: "curl -sS -i 'http://h:1/api/v2/games?pagination.first=2&x=%20y'"},
		{Detail: `the listing is empty\x80`},
		{Detail: "HTTP 200, want 501", Request: "POST /transactions", Curl: "curl -sS -i -X POST 'http://h:1/transactions'"},
	}
	if len(v.listed) != len(want) || len(v.Problems) != len(want) {
		t.Fatalf("%d problems listed, %d kept; want %d", len(v.listed), len(v.Problems), len(want))
	}
	for i, p := range v.listed {
		if p != want[i] {
			t.Errorf("problem %d listed as %+v, want %+v", i+1, p, want[i])
		}
	}
}

func TestRequestTarget(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/a/b?c=d":    "/a/b?c=d",
		"http://h":            "/",
		"https://h:8/x%2Fy":   "/x%2Fy",
		"http://h/%zz":        "http://h/%zz", // does not parse: as it is
		"http://h/p?q=1#frag": "/p?q=1",
	} {
		if got := requestTarget(in); got != want {
			t.Errorf("requestTarget(%q) = %q, want %q", in, got, want)
		}
	}
}
