package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// okBody is what the handler behind the injector answers: a JSON body of
// 12,000 bytes with its Content-Length.
var okBody = func() []byte {
	b := []byte(`{"rows":"` + strings.Repeat("x", 12000-12) + `"}` + "\n")
	return b
}()

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(okBody)))
	w.Header().Set("X-Listing", listingOf(r.URL.Path))
	w.Write(okBody)
})

// listingOf is the ListingOf of the tests: two listings, one at two paths.
func listingOf(path string) string {
	switch path {
	case "/api/v2/games":
		return "games"
	case "/transactions", "/rest/transactions":
		return "transactions"
	}
	return ""
}

func mustRules(t testing.TB, rules ...Rule) *RuleSet {
	t.Helper()
	rs, err := NewRuleSet(rules...)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// serveRecorded answers one request through inj with a recorder (for the
// faults that need no connection).
func serveRecorded(inj *Injector, path string, header string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if header != "" {
		req.Header.Set(Header, header)
	}
	rec := httptest.NewRecorder()
	inj.Wrap(okHandler).ServeHTTP(rec, req)
	return rec
}

// outcomes sends requests to the paths in turn and writes what each got: its
// status, or "ok".
func outcomes(inj *Injector, paths ...string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		rec := serveRecorded(inj, p, "")
		out[i] = strconv.Itoa(rec.Code)
		if rec.Code == 200 {
			out[i] = "ok"
		}
	}
	return out
}

func repeat(path string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = path
	}
	return out
}

// TestRulesChooseRequests sends a fixed order of requests and checks which
// ones each rule set fails.
func TestRulesChooseRequests(t *testing.T) {
	t.Parallel()
	g, tx, rest, other := "/api/v2/games", "/transactions", "/rest/transactions", "/nowhere"
	tests := []struct {
		name  string
		rules []Rule
		paths []string
		want  []string
	}{
		{"no rules", nil, []string{g, tx, other}, []string{"ok", "ok", "ok"}},
		{"every request", []Rule{{Fault: "status=500"}}, []string{g, tx, other}, []string{"500", "500", "500"}},
		{"every third request", []Rule{{Every: 3, Fault: "status=503"}}, repeat(g, 7),
			[]string{"ok", "ok", "503", "ok", "ok", "503", "ok"}},
		{"every second request, twice", []Rule{{Every: 2, Times: 2, Fault: "status=502"}}, repeat(g, 8),
			[]string{"ok", "502", "ok", "502", "ok", "ok", "ok", "ok"}},
		{"the first request only", []Rule{{Times: 1, Fault: "status=503"}}, repeat(tx, 3), []string{"503", "ok", "ok"}},
		{"by listing, at each of its paths", []Rule{{Listing: "transactions", Fault: "status=504"}}, []string{g, tx, rest, other},
			[]string{"ok", "504", "504", "ok"}},
		{"by path", []Rule{{Path: rest, Fault: "status=504"}}, []string{g, tx, rest, other}, []string{"ok", "ok", "504", "ok"}},
		{"every n-th request of the listing, counting only its requests", []Rule{{Listing: "games", Every: 2, Fault: "status=500"}},
			[]string{g, tx, tx, g, g, tx, g}, []string{"ok", "ok", "ok", "500", "ok", "ok", "500"}},
		{"the first rule that fires gives the kind", []Rule{{Listing: "games", Fault: "status=502"}, {Fault: "status=503"}},
			[]string{g, tx}, []string{"502", "503"}},
		{"a rule that does not fire leaves the next", []Rule{{Every: 2, Fault: "status=502"}, {Fault: "status=503"}},
			[]string{g, g, g}, []string{"503", "502", "503"}},
		{"a latency rule does not hide a later kind", []Rule{{Fault: "latency=0s"}, {Every: 2, Fault: "status=429"}},
			[]string{g, g}, []string{"ok", "429"}},
		{"probability 1", []Rule{{Probability: 1, Fault: "status=500"}}, repeat(g, 3), []string{"500", "500", "500"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inj := New(Options{Rules: mustRules(t, tc.rules...), ListingOf: listingOf})
			if got := outcomes(inj, tc.paths...); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestProbabilityIsSeeded checks a probability rule fails about its share of
// requests, the same ones for the same seed, and others for another seed;
// SetRules and Reset start the stream again.
func TestProbabilityIsSeeded(t *testing.T) {
	t.Parallel()
	rs := mustRules(t, Rule{Probability: 0.3, Fault: "status=500"})
	paths := repeat("/api/v2/games", 200)
	run := func(seed int64) []string {
		return outcomes(New(Options{Rules: rs, Seed: seed}), paths...)
	}
	a, b, c := run(7), run(7), run(8)
	if !slices.Equal(a, b) {
		t.Error("seed 7 failed different requests in two runs")
	}
	if slices.Equal(a, c) {
		t.Error("seeds 7 and 8 failed the same requests")
	}
	if n := strings.Count(strings.Join(a, " "), "500"); n < 40 || n > 80 {
		t.Errorf("%d of 200 requests failed at probability 0.3", n)
	}
	inj := New(Options{Rules: rs, Seed: 7})
	first := outcomes(inj, paths...)
	inj.SetRules(rs)
	if again := outcomes(inj, paths...); !slices.Equal(first, again) {
		t.Error("SetRules did not start the stream again")
	}
	inj.Reset()
	if again := outcomes(inj, paths...); !slices.Equal(first, again) {
		t.Error("Reset did not start the stream again")
	}
}

// TestHeaderFaults checks the X-Harness-Fault header decides the request's
// fault, over any rule, and that a malformed one is a 400 saying why.
func TestHeaderFaults(t *testing.T) {
	t.Parallel()
	inj := New(Options{Rules: mustRules(t, Rule{Fault: "status=500"})})
	tests := []struct {
		header     string
		status     int
		retryAfter string
		code       int32
		message    string
		inner      string
	}{
		{"none", 200, "", 0, "", ""},
		{"latency=1ms", 200, "", 0, "", ""},
		{"status=429", 429, "1", 8, "ResourceExhausted error", "status=429; retry-after=1 (X-Harness-Fault header)"},
		{"status=429; retry-after=7", 429, "7", 8, "ResourceExhausted error", "status=429; retry-after=7"},
		{"status=500", 500, "", 13, "Internal error", "status=500 (X-Harness-Fault header)"},
		{"status=502", 502, "", 14, "Unavailable error", "status=502"},
		{"status=503; retry-after=2", 503, "2", 14, "Unavailable error", "status=503; retry-after=2"},
		{"status=503", 503, "", 14, "Unavailable error", "status=503"},
		{"status=504", 504, "", 4, "DeadlineExceeded error", "status=504"},
		{"latency=2ms; status=504", 504, "", 4, "DeadlineExceeded error", "latency=2ms; status=504"},
		{"statu=503", 400, "", 3, "InvalidArgument error", `"statu" is not a fault`},
		{"", 400, "", 3, "InvalidArgument error", "empty"},
		{"status=503; reset", 400, "", 3, "InvalidArgument error", "at most one fault besides latency"},
	}
	for _, tc := range tests {
		t.Run(tc.header, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/api/v2/games", nil)
			req.Header[Header] = []string{tc.header}
			rec := httptest.NewRecorder()
			inj.Wrap(okHandler).ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if got := rec.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			if tc.status == 200 {
				if rec.Body.String() != string(okBody) {
					t.Errorf("body %.100s, want the handler's", rec.Body)
				}
				return
			}
			checkErrorBody(t, rec, tc.code, tc.message, tc.inner)
			if tc.status == 400 && !strings.Contains(rec.Body.String(), `"message":"invalid X-Harness-Fault header"`) {
				t.Errorf("body %s does not name the header", rec.Body)
			}
		})
	}
	t.Run("given twice", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/api/v2/games", nil)
		req.Header[Header] = []string{"reset", "none"}
		rec := httptest.NewRecorder()
		inj.Wrap(okHandler).ServeHTTP(rec, req)
		if rec.Code != 400 {
			t.Fatalf("status %d, want 400", rec.Code)
		}
		checkErrorBody(t, rec, 3, "InvalidArgument error", "X-Harness-Fault given 2 times")
	})
}

// checkErrorBody checks a recorded answer is the spec's error body.
func checkErrorBody(t *testing.T, rec *httptest.ResponseRecorder, code int32, message, inner string) {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if cl := rec.Header().Get("Content-Length"); cl != strconv.Itoa(rec.Body.Len()) {
		t.Errorf("Content-Length %s, body %d bytes", cl, rec.Body.Len())
	}
	var e struct {
		Code    *int32 `json:"code"`
		Message string `json:"message"`
		Details []struct {
			Type    string `json:"@type"`
			Code    int32  `json:"code"`
			Message string `json:"message"`
			Inner   string `json:"inner"`
		} `json:"details"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("error body %s: %v", rec.Body, err)
	}
	if e.Code == nil || *e.Code != code || e.Message != message {
		t.Errorf("error body %s: want code %d, message %q", rec.Body, code, message)
	}
	if len(e.Details) != 1 || e.Details[0].Type != "type.googleapis.com/core.ErrorDetail" || e.Details[0].Code != 10000 ||
		!strings.Contains(e.Details[0].Inner, inner) {
		t.Errorf("error body %s: want one ErrorDetail (10000) whose inner says %q", rec.Body, inner)
	}
}

// TestCountsAndReset checks the faults applied are counted by kind, and
// Reset goes back to the start rules with the counts at zero.
func TestCountsAndReset(t *testing.T) {
	t.Parallel()
	start := mustRules(t, Rule{Every: 2, Fault: "latency=0s; status=503"})
	inj := New(Options{Rules: start})
	zero := map[string]int64{"latency": 0, "status": 0, "reset": 0, "empty": 0, "truncate": 0, "slow-body": 0, "garbage": 0}
	if got := inj.Counts(); !mapsEqual(got, zero) {
		t.Fatalf("counts at start %v", got)
	}
	outcomes(inj, repeat("/x", 5)...) // two fire
	serveRecorded(inj, "/x", "garbage")
	serveRecorded(inj, "/x", "latency=0s")
	serveRecorded(inj, "/x", "none")
	serveRecorded(inj, "/x", "bogus") // a 400 applies nothing
	want := map[string]int64{"latency": 3, "status": 2, "reset": 0, "empty": 0, "truncate": 0, "slow-body": 0, "garbage": 1}
	if got := inj.Counts(); !mapsEqual(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	inj.SetRules(mustRules(t, Rule{Fault: "status=500"}))
	if got := outcomes(inj, "/x"); got[0] != "500" || inj.Rules().Rules()[0].Fault != "status=500" {
		t.Errorf("after SetRules: %v, rules %+v", got, inj.Rules().Rules())
	}
	inj.SetRules(nil)
	if got := outcomes(inj, "/x"); got[0] != "ok" || inj.Rules() != nil {
		t.Errorf("after SetRules(nil): %v, rules %+v", got, inj.Rules())
	}
	inj.Reset()
	if got := inj.Counts(); !mapsEqual(got, zero) {
		t.Errorf("counts after Reset %v", got)
	}
	if inj.Rules() != start {
		t.Error("Reset did not bring back the start rules")
	}
	if got := outcomes(inj, "/x", "/x"); !slices.Equal(got, []string{"ok", "503"}) {
		t.Errorf("after Reset: %v", got)
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

// TestLatencyWaitsAndGivesUp checks a latency delays the answer, and that a
// client giving up ends the wait without an answer.
func TestLatencyWaitsAndGivesUp(t *testing.T) {
	t.Parallel()
	inj := New(Options{})
	start := time.Now()
	if rec := serveRecorded(inj, "/x", "latency=30ms"); rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("answered in %v, want at least 30ms", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodGet, "/x", nil).WithContext(ctx)
	req.Header.Set(Header, "latency=1h; status=500")
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		inj.Wrap(okHandler).ServeHTTP(rec, req)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled request still waits out its latency")
	}
	if rec.Body.Len() != 0 || rec.Code != 200 || inj.Counts()["status"] != 0 {
		t.Errorf("a cancelled request was answered: %d %s", rec.Code, rec.Body)
	}
}

// TestLatenciesAreSeeded checks the latencies a distribution adds come from
// the seeded streams: rules and header faults each draw the same values
// for the same seed.
func TestLatenciesAreSeeded(t *testing.T) {
	t.Parallel()
	draws := func(seed int64, viaHeader bool) []time.Duration {
		var rs *RuleSet
		if !viaHeader {
			rs = mustRules(t, Rule{Fault: "latency=uniform:0s-1h"})
		}
		inj := New(Options{Rules: rs, Seed: seed})
		var out []time.Duration
		for range 5 {
			if viaHeader {
				f, _ := Parse("latency=uniform:0s-1h")
				inj.headerMu.Lock()
				out = append(out, f.Latency.Sample(inj.headerRNG))
				inj.headerMu.Unlock()
				continue
			}
			d, _ := inj.rules.Load().decide("/x", "")
			out = append(out, d.latency)
		}
		return out
	}
	for _, viaHeader := range []bool{false, true} {
		name := fmt.Sprintf("header %v", viaHeader)
		a, b, c := draws(1, viaHeader), draws(1, viaHeader), draws(2, viaHeader)
		if !slices.Equal(a, b) || slices.Equal(a, c) {
			t.Errorf("%s: seed 1 drew %v and %v, seed 2 %v", name, a, b, c)
		}
	}
	if slices.Equal(draws(1, false), draws(1, true)) {
		t.Error("header faults draw from the rules' stream")
	}
}

// latencyCases are distributions with the median and 99th percentile they
// ask for.
var latencyCases = []struct {
	fault       string
	median, p99 time.Duration
}{
	{"latency=lognormal:median=80ms,p99=900ms", 80 * time.Millisecond, 900 * time.Millisecond},
	{"latency=uniform:50ms-200ms", 125 * time.Millisecond, 198500 * time.Microsecond},
}

// TestLatencyDraws draws 2,000 latencies of each distribution as requests
// do, through a rule and through the header, and checks their median and
// 99th percentile land within 15 % of the ones asked (the client's view, with
// the time the requests take, is BenchmarkLatencyDistribution).
func TestLatencyDraws(t *testing.T) {
	t.Parallel()
	for _, tc := range latencyCases {
		f, err := Parse(tc.fault)
		if err != nil {
			t.Fatal(err)
		}
		for _, viaHeader := range []bool{false, true} {
			inj := New(Options{Rules: mustRules(t, Rule{Fault: tc.fault}), Seed: 1})
			draws := make([]time.Duration, 2000)
			for i := range draws {
				if viaHeader {
					inj.headerMu.Lock()
					draws[i] = f.Latency.Sample(inj.headerRNG)
					inj.headerMu.Unlock()
					continue
				}
				d, _ := inj.rules.Load().decide("/x", "")
				draws[i] = d.latency
			}
			slices.Sort(draws)
			median, p99 := quantile(draws, 0.5), quantile(draws, 0.99)
			t.Logf("%s (header %v): median %v, p99 %v over %d draws", tc.fault, viaHeader, median, p99, len(draws))
			if math.Abs(float64(median-tc.median)) > 0.15*float64(tc.median) || math.Abs(float64(p99-tc.p99)) > 0.15*float64(tc.p99) {
				t.Errorf("%s (header %v): median %v and p99 %v, want %v and %v within 15 %%", tc.fault, viaHeader, median, p99, tc.median, tc.p99)
			}
		}
	}
}

// TestErrorBodiesNameTheRule checks an injected status says which rule
// asked for it: its name, or its place in the list.
func TestErrorBodiesNameTheRule(t *testing.T) {
	t.Parallel()
	inj := New(Options{ListingOf: listingOf, Rules: mustRules(t,
		Rule{Every: 2, Fault: "status=500"},
		Rule{Name: "mine", Listing: "games", Fault: "status=503"},
		Rule{Fault: "latency=0s; status=502"},
	)})
	for _, want := range []struct {
		path, inner string
	}{
		{"/x", "latency=0s; status=502 (rule 3)"},
		{"/api/v2/games", "latency=0s; status=500 (rule 1)"}, // rule 3 fires too, adding its latency
		{"/api/v2/games", "latency=0s; status=503 (mine)"},
	} {
		rec := serveRecorded(inj, want.path, "")
		var e struct {
			Details []struct {
				Inner string `json:"inner"`
			} `json:"details"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || len(e.Details) != 1 || e.Details[0].Inner != want.inner {
			t.Errorf("%s: %s, want inner %q", want.path, rec.Body, want.inner)
		}
	}
}

func TestDribbleChunk(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ rate, want int }{{1, 1}, {19, 1}, {20, 1}, {40, 2}, {20_000, 1000}, {1 << 30, 1 << 30 / 20}} {
		if got := dribbleChunk(tc.rate); got != tc.want {
			t.Errorf("dribbleChunk(%d) = %d, want %d (a piece every 50 ms)", tc.rate, got, tc.want)
		}
	}
}
