package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// verifyRead sends GET /harness/verify with query and decodes its verdict,
// checking the answer is a 200 with nothing but the verdict's fields.
func verifyRead(t *testing.T, s *testServer, query string) Verdict {
	t.Helper()
	r, err := s.fetch(http.MethodGet, "/harness/verify", query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: status %d, Content-Type %q: %s", r, r.status, r.header.Get("Content-Type"), r.body)
	}
	var v Verdict
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	counted := strings.Contains(query, "count=") || strings.Contains(query, "atLeast=") || strings.Contains(query, "atMost=")
	if err := dec.Decode(&v); err != nil || v.Messages == nil || (v.Count != nil) != counted {
		t.Fatalf("%s: %v: %s", r, err, r.body)
	}
	return v
}

// sendAll sends GETs of path?query, each a "path?query" string, with the
// fault header when one follows a space.
func sendAll(t *testing.T, s *testServer, requests []string) {
	t.Helper()
	for _, rq := range requests {
		target, fault, _ := strings.Cut(rq, " ")
		path, query, _ := strings.Cut(target, "?")
		var hdr http.Header
		if fault != "" {
			hdr = http.Header{"X-Harness-Fault": {fault}}
		}
		if _, err := s.fetch(http.MethodGet, path, query, hdr); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVerifyWalks checks the verdict of GET /harness/verify without a
// count: every walk complete and clean, no warning, with what failed said
// once per walk and once per distinct warning.
func TestVerifyWalks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		requests []string
		query    string
		pass     bool
		says     []string // in the messages, in order
		messages int
	}{
		{"an empty journal", nil, "", true, []string{"0 walks complete and clean, 0 requests without a warning"}, 1},
		{"a whole walk", []string{"/api/v2/network/parameters"}, "", true, []string{"1 walk complete and clean, 1 request without a warning"}, 1},
		{"a walk that stops early", []string{"/transactions?first=2"}, "", false,
			[]string{"walk 1 of transactions (GET /transactions?first=2: 1 page, 2 rows): did not reach the end"}, 1},
		{"a walk that stops early, partial", []string{"/transactions?first=2"}, "partial=true", true, []string{"1 walk clean, 1 request"}, 1},
		{"partial=1", []string{"/transactions?first=2"}, "partial=1", true, []string{"1 walk clean"}, 1},
		{"partial=false", []string{"/transactions?first=2"}, "partial=false", false, []string{"did not reach the end"}, 1},
		{"a cursor no page issued", []string{"/transactions?first=2&after=1.0"}, "partial=true", false,
			[]string{"walk 1 of transactions", "request 1 carried a cursor no earlier page of the walk issued"}, 1},
		{"a page asked twice, one message for the walk", []string{"/api/v2/snapshots?pagination.first=2", "/api/v2/snapshots?pagination.first=2"}, "partial=true", true,
			[]string{"2 walks clean"}, 1},
		{"one warning drawn three times, one message", []string{
			"/api/v2/network/parameters?first=2", "/api/v2/network/parameters?first=2", "/api/v2/network/parameters?first=2"}, "", false,
			[]string{`3 requests drew the warning "unknown parameter \"first\"`, "(the first: GET /api/v2/network/parameters?first=2): requests 1, 2 and 3"}, 1},
		{"two warnings, in the order they came", []string{"/transactions?cmdTypes[]=A", "/api/v2/games?first=1"}, "partial=true", false,
			[]string{`1 request drew the warning "\"cmdTypes[]\" is not read`, ": request 1", `1 request drew the warning "unknown parameter \"first\"`, ": request 2"}, 2},
		{"another listing's problems are not judged", []string{"/transactions?first=2&cmdTypes[]=A", "/api/v2/network/parameters"}, "listing=networkparameters", true,
			[]string{"1 walk complete and clean, 1 request without a warning"}, 1},
		{"the listing's warnings are", []string{"/transactions?first=2&cmdTypes[]=A", "/api/v2/network/parameters"}, "listing=transactions&partial=true", false,
			[]string{`drew the warning "\"cmdTypes[]\"`}, 1},
		{"a listing not walked", []string{"/api/v2/network/parameters"}, "listing=games", false,
			[]string{"the client did not walk games: no request of it is in the journal"}, 1},
		{"a retry too soon", []string{"/api/v2/network/parameters status=503; retry-after=5", "/api/v2/network/parameters"}, "", false,
			[]string{"walk 1 of networkparameters", "after request 1's Retry-After of 5s"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := journalServer(t, Config{}, genWorld(t))
			sendAll(t, s, tc.requests)
			v := verifyRead(t, s, tc.query)
			wantVerdict(t, v, tc.pass, tc.messages, tc.says)
		})
	}
}

// wantVerdict checks a verdict passes or fails as wanted, with that many
// messages saying each of says, in order.
func wantVerdict(t *testing.T, v Verdict, pass bool, messages int, says []string) {
	t.Helper()
	all := strings.Join(v.Messages, "\n")
	if v.Pass != pass || len(v.Messages) != messages {
		t.Fatalf("pass %v with %d messages, want %v with %d:\n%s", v.Pass, len(v.Messages), pass, messages, all)
	}
	at := 0
	for _, s := range says {
		i := strings.Index(all[at:], s)
		if i < 0 {
			t.Fatalf("the messages do not say %q (in this order):\n%s", s, all)
		}
		at += i + len(s)
	}
}

// TestVerifyCounts checks the counts of requests by listing, parameters
// and status: exact, at least, at most.
func TestVerifyCounts(t *testing.T) {
	t.Parallel()
	s, srv := journalServer(t, Config{}, genWorld(t))
	sendAll(t, s, []string{
		"/transactions?cmdTypes=Submit+Order",                       // 1
		"/transactions?cmdTypes=Submit%20Order&first=2",             // 2
		"/transactions?cmdTypes=Submit+Order&cmdTypes=Cancel+Order", // 3
		"/transactions?first=1",                                     // 4
		"/api/v2/games?pagination.first=1 status=429",               // 5
		"/api/v2/games?pagination.first=1",                          // 6
		"/transactions?cmd_types=Submit+Order",                      // 7: another spelling, another parameter
		"/transactions?cmdTypes=Submit+Order&first=x",               // 8: a 400
	})
	tests := []struct {
		query string
		pass  bool
		says  string
	}{
		{"listing=transactions&match=cmdTypes=Submit+Order&count=4", true,
			"4 requests of transactions with cmdTypes=Submit Order, want exactly 4: requests 1, 2, 3 and 8"},
		{"listing=transactions&match=cmdTypes=Submit+Order&count=2", false, "4 requests of transactions with cmdTypes=Submit Order, want exactly 2"},
		{"listing=transactions&match=cmdTypes=Submit+Order&status=200&count=3", true, "3 requests of transactions with cmdTypes=Submit Order, answered 200, want exactly 3"},
		{"listing=transactions&match=cmdTypes=Submit+Order&match=cmdTypes=Cancel+Order&count=1", true,
			"1 request of transactions with cmdTypes=Submit Order and cmdTypes=Cancel Order, want exactly 1: request 3"},
		{"match=cmd_types=Submit+Order&count=1", true, "1 request to the API with cmd_types=Submit Order, want exactly 1: request 7"},
		{"match=first&count=3", true, "3 requests to the API with first, want exactly 3: requests 2, 4 and 8"},
		{"match=first=2&match=first&count=1", true, "with first=2"},
		{"match=first=3&count=0", true, "0 requests to the API with first=3, want exactly 0"},
		{"match=nothing&atLeast=1", false, "0 requests to the API with nothing, want at least 1"},
		{"status=429&atLeast=1", true, "1 request to the API, answered 429, want at least 1: request 5"},
		{"listing=games&status=429&atMost=0", false, "1 request of games, answered 429, want exactly 0: request 5"},
		{"atLeast=2&atMost=3", false, "8 requests to the API, want from 2 to 3"},
		{"atLeast=8&atMost=8", true, "want exactly 8"},
		{"atLeast=7&atMost=9", true, "want from 7 to 9"},
		{"atLeast=0&atMost=9", true, "want at most 9"},
		{"atLeast=8", true, "8 requests to the API, want at least 8"},
		{"atLeast=9", false, "want at least 9"},
		{"atMost=8", true, "want at most 8"},
		{"atMost=7", false, "want at most 7"},
		{"listing=snapshots&count=0", true, "0 requests of snapshots, want exactly 0"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			v := verifyRead(t, s, tc.query)
			wantVerdict(t, v, tc.pass, 1, []string{tc.says})
			if n, err := strconv.Atoi(strings.Fields(v.Messages[0])[0]); err != nil || v.Count == nil || *v.Count != n {
				t.Errorf("count %v, want the %d requests of the message", v.Count, n)
			}
			q, err := parseVerifyQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.Verify(q); got.Pass != v.Pass || strings.Join(got.Messages, "\n") != strings.Join(v.Messages, "\n") {
				t.Errorf("Server.Verify: %+v, the endpoint %+v", got, v)
			}
		})
	}
}

// TestVerifyListsManyRequestsShort checks a count of many requests names
// the first twenty and how many more.
func TestVerifyListsManyRequestsShort(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{}, genWorld(t))
	var many []string
	for range 23 {
		many = append(many, "/api/v2/network/parameters?pagination.first=1")
	}
	sendAll(t, s, many)
	v := verifyRead(t, s, "count=1")
	wantVerdict(t, v, false, 1, []string{"23 requests to the API, want exactly 1: requests 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 3 more"})
	v = verifyRead(t, s, "count=23")
	wantVerdict(t, v, true, 1, []string{"and 3 more"})
	many = nil
	for range 20 {
		many = append(many, "/api/v2/snapshots?first=1")
	}
	sendAll(t, s, many)
	v = verifyRead(t, s, "listing=snapshots&partial=true")
	wantVerdict(t, v, false, 1, []string{`20 requests drew the warning "unknown parameter \"first\"`, "requests 24, 25", "42 and 43"})
	if strings.Contains(v.Messages[0], "more") {
		t.Errorf("twenty requests listed with more: %s", v.Messages[0])
	}
}

// TestVerifyRefusesBadParameters checks each bad query is a 400 with the
// error body saying what is wrong.
func TestVerifyRefusesBadParameters(t *testing.T) {
	t.Parallel()
	s, _ := journalServer(t, Config{}, genWorld(t))
	tests := []struct{ query, says string }{
		{"lisitng=games", `unknown parameter "lisitng": give listing, match, status, count, atLeast, atMost, partial; did you mean "listing"?`},
		{"listing=game", `listing "game": want one of games, snapshots, keyrotations, networkparameters, transactions; did you mean "games"?`},
		{"listing=", "an empty listing"},
		{"listing=games&listing=snapshots", "listing given 2 times: give it once"},
		{"count=1&count=2", "count given 2 times"},
		{"count=-1", `count "-1": want a whole number from 0`},
		{"count=x", `count "x": want a whole number from 0`},
		{"atLeast=1.5", `atLeast "1.5"`},
		{"atMost=-2", `atMost "-2"`},
		{"count=1&atLeast=1", "count is an exact number of requests: give it alone, or atLeast and atMost"},
		{"count=1&atMost=1", "count is an exact number of requests"},
		{"atLeast=3&atMost=2", "at least 3 and at most 2 requests: no count is both"},
		{"match=cmdTypes=A", "match and status select requests to count: give count, atLeast or atMost too"},
		{"status=429", "match and status select requests to count"},
		{"status=abc&count=1", `status "abc": want an HTTP status`},
		{"status=99&count=1", "status 99: want an HTTP status, 100 to 599"},
		{"status=600&count=1", "status 600"},
		{"match==x&count=1", "match of an empty parameter name"},
		{"partial=yes", `partial "yes": want true or false`},
		{"partial=true&count=1", "partial accepts walks that stop early, and a count judges no walk"},
		{"count=1;x", "parsing query"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := controlHeader(t, s, http.MethodGet, "/harness/verify", tc.query, "", nil)
			if r.status != http.StatusBadRequest {
				t.Fatalf("%s: status %d, want 400: %s", r, r.status, r.body)
			}
			e := r.apiError(t)
			if len(e.Details) != 1 || e.Details[0].Message != "invalid verify request" || !strings.Contains(e.Details[0].Inner, tc.says) {
				t.Errorf("%s: %s, want it to say %q", r, r.body, tc.says)
			}
		})
	}
	if r := controlHeader(t, s, http.MethodPost, "/harness/verify", "", "", nil); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET" {
		t.Errorf("%s: status %d, Allow %q, want 405 allowing GET", r, r.status, r.header.Get("Allow"))
	}
}

// TestVerifyQueryCheck checks the Go API refuses what the endpoint does.
func TestVerifyQueryCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q    VerifyQuery
		says string
	}{
		{VerifyQuery{}, ""},
		{VerifyQuery{Listing: "games", Partial: true}, ""},
		{VerifyQuery{Requests: &CountRange{Min: 0, Max: -1}}, ""},
		{VerifyQuery{Requests: &CountRange{Min: 2, Max: 2}, Status: 100}, ""},
		{VerifyQuery{Requests: &CountRange{Min: 2, Max: 2}, Status: 599}, ""},
		{VerifyQuery{Requests: &CountRange{Min: -1, Max: -1}}, "at least -1 requests"},
		{VerifyQuery{Requests: &CountRange{Min: 2, Max: 1}}, "no count is both"},
		{VerifyQuery{Listing: "nope"}, `listing "nope"`},
		{VerifyQuery{Match: map[string][]string{"a": nil}}, "give count, atLeast or atMost too"},
		{VerifyQuery{Requests: &CountRange{Min: 1, Max: 1}, Match: map[string][]string{"": {"x"}}}, "empty parameter name"},
	}
	for _, tc := range tests {
		err := tc.q.Check()
		if (err == nil) != (tc.says == "") || (err != nil && !strings.Contains(err.Error(), tc.says)) {
			t.Errorf("%+v: Check() = %v, want %q", tc.q, err, tc.says)
		}
	}
}
