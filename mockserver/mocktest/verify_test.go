package mocktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chaindata/harness/mockserver"
)

// fatalTB records a misuse's Fatalf and stops the helper as Fatalf does.
type fatalTB struct {
	testing.TB
	fatal string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, a ...any) {
	f.fatal = format
	panic(f)
}

// TestVerifyLikeTheEndpoint checks each option reaches the judgement as the
// endpoint's parameter does: the verdict of AssertVerified's options is
// the one GET /harness/verify answers with the same parameters.
func TestVerifyLikeTheEndpoint(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{})
	for _, q := range []string{"transactions?cmdTypes=Submit+Order", "transactions?cmdTypes=Submit+Order&first=3",
		"api/v2/games?pagination.first=1", "api/v2/network/parameters?first=1"} {
		resp, err := http.Get(srv.URL + "/" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	tests := []struct {
		query string
		opts  []VerifyOption
		pass  bool
	}{
		{"", nil, false},
		{"partial=true", []VerifyOption{Partial()}, false}, // the warning
		{"listing=games&partial=true", []VerifyOption{Listing("games"), Partial()}, true},
		{"listing=games", []VerifyOption{Listing("games")}, false},
		{"listing=transactions&match=cmdTypes=Submit+Order&count=2", []VerifyOption{Listing("transactions"), Match("cmdTypes", "Submit Order"), Count(2)}, true},
		{"match=cmdTypes=Submit+Order&match=first=3&count=1", []VerifyOption{Match("cmdTypes", "Submit Order"), Match("first", "3"), Count(1)}, true},
		{"match=first&count=2", []VerifyOption{Match("first"), Count(2)}, true},
		{"match=first&atMost=1", []VerifyOption{Match("first"), AtMost(1)}, false},
		{"status=200&atLeast=4", []VerifyOption{Status(200), AtLeast(4)}, true},
		{"atLeast=1&atMost=3", []VerifyOption{AtLeast(1), AtMost(3)}, false},
		{"atLeast=1&atMost=4", []VerifyOption{AtMost(4), AtLeast(1)}, true},
		{"atLeast=5", []VerifyOption{AtLeast(5)}, false},
		{"count=0&listing=snapshots", []VerifyOption{Count(0), Listing("snapshots")}, true},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			resp, err := http.Get(srv.URL + "/harness/verify?" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			var want mockserver.Verdict
			err = json.NewDecoder(resp.Body).Decode(&want)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /harness/verify?%s: status %d, %v", tc.query, resp.StatusCode, err)
			}
			got := srv.Verify(tc.opts...)
			if got.Pass != tc.pass || want.Pass != tc.pass || strings.Join(got.Messages, "\n") != strings.Join(want.Messages, "\n") {
				t.Fatalf("Verify: %+v\nthe endpoint: %+v\nwant pass %v", got, want, tc.pass)
			}
			rec := &errorsTB{TB: t}
			if srv.AssertVerified(rec, tc.opts...) != tc.pass || (len(rec.errs) == 0) != tc.pass {
				t.Fatalf("AssertVerified: errors %q, want pass %v", rec.errs, tc.pass)
			}
			if !tc.pass && !strings.Contains(rec.errs[0], "verify failed:\n  "+want.Messages[0]) {
				t.Errorf("AssertVerified said %q, not the verdict's messages %q", rec.errs[0], want.Messages)
			}
		})
	}
}

// TestVerifyMisuse checks options no journal can be judged by fail the
// test with the reason.
func TestVerifyMisuse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opts []VerifyOption
		says string
	}{
		{[]VerifyOption{Count(-1)}, "at least -1 requests"},
		{[]VerifyOption{Match("first")}, "give count, atLeast or atMost too"},
		{[]VerifyOption{Listing("game")}, `listing "game"`},
		{[]VerifyOption{AtLeast(3), AtMost(2)}, "no count is both"},
	} {
		srv := New(t, Options{})
		ft := &fatalTB{TB: t}
		srv.tb = ft
		func() {
			defer func() {
				if r := recover(); r != ft {
					panic(r)
				}
			}()
			srv.Verify(c.opts...)
		}()
		if !strings.Contains(ft.fatal, "verify: %v") {
			t.Errorf("Verify(%d options): Fatalf %q, want a misuse", len(c.opts), ft.fatal)
		}
		q := mockserver.VerifyQuery{}
		for _, o := range c.opts {
			o(&q)
		}
		if err := q.Check(); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("the options' query: %v, want %q", err, c.says)
		}
	}
}

// TestVerifyOutsideATest checks a server Start made verifies too.
func TestVerifyOutsideATest(t *testing.T) {
	t.Parallel()
	srv, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if v := srv.Verify(Count(0)); !v.Pass || v.Count == nil || *v.Count != 0 {
		t.Errorf("no request, Count(0): %+v", v)
	}
}

// TestMatchOptions checks what Match builds: values added, none for a
// parameter that only needs to be there.
func TestMatchOptions(t *testing.T) {
	t.Parallel()
	var q mockserver.VerifyQuery
	for _, o := range []VerifyOption{Match("a", "1"), Match("a", "2", "3"), Match("b")} {
		o(&q)
	}
	want := url.Values{"a": {"1", "2", "3"}, "b": {}}
	if q.Match.Encode() != want.Encode() || q.Match["b"] == nil {
		t.Errorf("Match built %#v, want %#v", q.Match, want)
	}
}

// TestOptionsRows checks the rows of Options are served from the start and
// after a reset, and those of AddRows until a reset; rows the schemas
// refuse fail the start, saying where.
func TestOptionsRows(t *testing.T) {
	t.Parallel()
	snap := func(h int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"blockHash":"%064x","blockHeight":"%d","coreVersion":"v0.1.0","protocolUpgradeBlock":false}`, h, h))
	}
	srv := New(t, Options{Rows: []mockserver.Rows{{Listing: "snapshots", Rows: []json.RawMessage{snap(1)}}}})
	oldest := func() string {
		resp, err := http.Get(srv.URL + "/api/v2/snapshots?pagination.first=2&pagination.newestFirst=false")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var page struct {
			CoreSnapshots struct {
				Edges []struct{ Node struct{ BlockHeight string } }
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
			t.Fatal(err)
		}
		var hs []string
		for _, e := range page.CoreSnapshots.Edges {
			hs = append(hs, e.Node.BlockHeight)
		}
		return strings.Join(hs, " ")
	}
	if got := oldest(); !strings.HasPrefix(got, "1 ") {
		t.Errorf("the oldest snapshots: %s, want the row of the options first", got)
	}
	srv.AddRows(mockserver.Rows{Listing: "snapshots", Rows: []json.RawMessage{snap(2)}})
	if got := oldest(); got != "1 2" {
		t.Errorf("the oldest snapshots: %s, want 1 2", got)
	}
	if n := srv.Status().AddedRows["snapshots"]; n != 2 {
		t.Errorf("%d snapshots added, want 2", n)
	}
	srv.Reset()
	if got := oldest(); !strings.HasPrefix(got, "1 ") || strings.HasSuffix(got, " 2") {
		t.Errorf("after a reset, the oldest snapshots: %s, want the options' row and not the other", got)
	}

	_, err := Start(Options{Rows: []mockserver.Rows{{Listing: "snapshots", Rows: []json.RawMessage{snap(3), json.RawMessage(`{"blockHeight":"x"}`)}}}})
	if err == nil || !strings.Contains(err.Error(), "options: snapshots rows: rows do not match the schema CoreSnapshot") ||
		!strings.Contains(err.Error(), "/rows/1/blockHeight") {
		t.Errorf("Start with a bad row: %v", err)
	}
	ft := &fatalTB{TB: t}
	srv.tb = ft
	func() {
		defer func() {
			if r := recover(); r != ft {
				panic(r)
			}
		}()
		srv.AddRows(mockserver.Rows{Listing: "snapshot", Rows: []json.RawMessage{snap(3)}})
	}()
	if !strings.HasPrefix(ft.fatal, "mocktest: add %s rows") {
		t.Errorf("AddRows of an unknown listing: Fatalf %q", ft.fatal)
	}
}

// TestAssertCovered checks AssertCovered passes once each item required
// was served, fails naming those that were not, and fails on an item the
// mock cannot serve; and Coverage logs what was served.
func TestAssertCovered(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{Seed: 5, Scale: 0.05})
	get := func(target string, hdr ...string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+target, nil)
		if len(hdr) > 0 {
			req.Header.Set(FaultHeader, hdr[0])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	tests := []struct {
		name    string
		require []string
		pass    bool
		says    string
	}{
		{"nothing required", nil, true, ""},
		{"served", []string{"page:backward", "listing:snapshots,fault:status"}, true, ""},
		{"not served", []string{"page:backward", "page:empty,refusal:invalid-cursor"}, false, "required and never served: page:empty, refusal:invalid-cursor"},
		{"every page shape", []string{"page:*"}, false, "page:middle, page:last, page:empty, page:exact-fit"},
		{"an item the mock cannot serve", []string{"variant:Submit Ordr"}, false, `did you mean "variant:Submit Order"?`},
	}
	get("/api/v2/snapshots?pagination.last=3")
	get("/api/v2/snapshots", "status=503")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &errorsTB{TB: t}
			if got := srv.AssertCovered(fake, tc.require...); got != tc.pass || (len(fake.errs) == 0) != tc.pass {
				t.Fatalf("AssertCovered %v, errors %q; want %v", got, fake.errs, tc.pass)
			}
			if !tc.pass && !strings.Contains(fake.errs[0], tc.says) {
				t.Errorf("error %q, want it to say %q", fake.errs[0], tc.says)
			}
		})
	}
	logs := &logTB{TB: t}
	c := srv.Coverage(logs)
	if c.Requests != 2 || len(logs.logs) != 1 || !strings.Contains(logs.logs[0], "page: 2 of 6 served\n  served: first ×1, backward ×1\n") {
		t.Errorf("coverage of %d requests, logged %q", c.Requests, logs.logs)
	}
}

// logTB records what a test logs.
type logTB struct {
	testing.TB
	logs []string
}

func (l *logTB) Log(args ...any) { l.logs = append(l.logs, fmt.Sprint(args...)) }
