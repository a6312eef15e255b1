package conformance

import (
	"github.com/chaindata/harness/conformance/answerrules"
	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/conformance/rule"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTimeoutsRunSideBySide: requests that time out wait side by side, up
// to --concurrency at once, in a batch of requests (getAll) and in a batch
// of error rules: eight requests with a 500 ms timeout at four at once
// take about 1 s, not the 4 s of one after another.
func TestTimeoutsRunSideBySide(t *testing.T) {
	const n, timeout = 8, 500 * time.Millisecond
	base := neverAnswers(t)
	tests := []struct {
		name string
		ask  func(c *client.Client) []*client.Exchange
	}{
		{"getAll", func(c *client.Client) []*client.Exchange {
			reqs := make([]client.Request, n)
			for i := range reqs {
				reqs[i] = client.Request{Base: base, Path: "/x"}
			}
			return c.GetAll(reqs)
		}},
		{"batch of error rules", func(c *client.Client) []*client.Exchange {
			var b rule.Batch
			var items []*rule.BatchItem
			for range n {
				items = append(items, b.Add("a rule", rule.Should, func() (client.Request, string) {
					return client.Request{Base: base, Path: "/x"}, ""
				}))
			}
			// Asked as the first rule would, with no label filter (go test
			// may have one for the suite).
			b.Asked = true
			b.Ask(c, "")
			out := make([]*client.Exchange, n)
			for i, it := range items {
				out[i], _ = b.Answer(c, it)
			}
			return out
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := useTraffic(t, config.Config{BaseURL: base, Timeout: timeout, Concurrency: 4})
			start := time.Now()
			out := tc.ask(c)
			elapsed := time.Since(start)
			for i, ex := range out {
				if ex == nil || ex.Err == nil || !isTimeout(ex.Err) {
					t.Fatalf("request %d: %+v, want a timeout", i, ex)
				}
			}
			// Far from the 1 s they take, for a loaded machine; short of the
			// 4 s of one after another.
			if most := n * timeout * 3 / 4; elapsed > most {
				t.Errorf("%d requests timing out after %s took %s at 4 at once, want at most %s", n, timeout, elapsed, most)
			}
		})
	}
}

// TestRunDeadlineEndsRequests: when the run deadline passes, the request
// in flight, the waits for the rate limit and for a retry, and every later
// request end at once, saying so.
func TestRunDeadlineEndsRequests(t *testing.T) {
	const deadline = 300 * time.Millisecond
	tests := []struct {
		name string
		cfg  config.Config
		base func(t *testing.T) string
	}{
		{"a request in flight", config.Config{Timeout: time.Minute}, neverAnswers},
		{"the wait for a retry", config.Config{Timeout: time.Minute}, func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{"/x": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "50")
				w.WriteHeader(http.StatusTooManyRequests)
			}})
		}},
		{"the wait for the rate limit", config.Config{Timeout: time.Minute, Rate: 0.5}, func(t *testing.T) string {
			return routes(t, map[string]http.HandlerFunc{"/x": answer(200, "application/json", "{}")})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.BaseURL, cfg.RunTimeout = tc.base(t), deadline
			c := useTraffic(t, cfg)
			start := time.Now()
			var ex *client.Exchange
			for range 2 { // with a rate of 0.5/s the second request waits
				ex = c.Get(cfg.BaseURL, "/x", nil)
			}
			if elapsed := time.Since(start); elapsed > deadline+2*time.Second {
				t.Errorf("the request ended after %s, want soon after the run deadline (%s)", elapsed, deadline)
			}
			want := "the run deadline passed (--run-timeout 300ms)"
			if ex.Err == nil || !strings.Contains(ex.Err.Error(), want) {
				t.Errorf("the request's error is %v, want one saying %q", ex.Err, want)
			}
			start = time.Now()
			if later := c.Get(cfg.BaseURL, "/x", nil); later.Err == nil || time.Since(start) > 100*time.Millisecond {
				t.Errorf("a request after the deadline took %s (error %v), want an error at once", time.Since(start), later.Err)
			}
			if !client.Current().Expired() {
				t.Error("the traffic does not say the deadline passed")
			}
		})
	}
}

// TestKeptBodiesAreBounded: past the bytes a run keeps, the client keeps
// answers without their bodies, and the schema rules do not judge them.
func TestKeptBodiesAreBounded(t *testing.T) {
	body := `{"` + strings.Repeat("a", 1000) + `":1}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	c := useTraffic(t, config.Config{BaseURL: srv.URL})
	c.State.KeptLimit = 3 * len(body)
	for i := range 5 {
		if ex := c.Get(srv.URL, "/x", nil); string(ex.Body) != body {
			t.Fatalf("answer %d has a body of %d bytes, want %d: the caller gets every body whole", i, len(ex.Body), len(body))
		}
	}
	log := c.Exchanges()
	var kept, unkept []string
	for i, ex := range log {
		switch {
		case ex.Unkept && ex.Body == nil && ex.Status == 200:
			unkept = append(unkept, strconv.Itoa(i))
		case !ex.Unkept && string(ex.Body) == body:
			kept = append(kept, strconv.Itoa(i))
		}
	}
	if len(kept) != 3 || len(unkept) != 2 {
		t.Errorf("the log keeps the bodies of answers %v and not of %v, want 3 and 2", kept, unkept)
	}
	v := rule.NewVerdict("test")
	answerrules.ValidateAll(v, nil, log[3:], func(*client.Exchange) bool { return true })
	if v.Cases != 0 || !strings.Contains(v.None, "kept no body of the 2 answers") {
		t.Errorf("validating answers without bodies judged %d cases (none: %q), want none, and saying why", v.Cases, v.None)
	}
}

// TestStoppedRunSummary: a stopped run fails, and the console summary
// gives the rules it left unjudged one line, not one each.
func TestStoppedRunSummary(t *testing.T) {
	const stopped = "the run deadline passed (--run-timeout 2s)"
	rules := []report.RuleResult{
		{Rule: rule.Rule{ID: "GAMES-PAG-001", Listing: "games", Area: "pagination", Text: "a"}, State: report.StatePassed},
		{Rule: rule.Rule{ID: "GAMES-PAG-002", Listing: "games", Area: "pagination", Text: "b"}, State: report.StateSkipped, Message: "the listing has 1 row"},
		{Rule: rule.Rule{ID: "GAMES-PAG-003", Listing: "games", Area: "pagination", Text: "c"}, State: report.StateSkipped, Message: stopped},
		{Rule: rule.Rule{ID: "GAMES-PAG-004", Listing: "games", Area: "pagination", Text: "d"}, State: report.StateSkipped, Message: stopped + "\nA games page could not be read"},
	}
	tests := []struct {
		name       string
		stopped    string
		passed     bool
		want, lose []string
	}{
		{"not stopped", "", true, []string{"SKIPPED GAMES-PAG-003", "Verdict: PASSED"}, []string{"SKIPPED 2 rules"}},
		{"stopped", stopped, false,
			[]string{"SKIPPED GAMES-PAG-002", "SKIPPED 2 rules: " + stopped, "Verdict: FAILED (the run stopped: " + stopped + ")"},
			[]string{"GAMES-PAG-003", "GAMES-PAG-004"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &report.Summary{Rules: rules, Stopped: tc.stopped}
			if s.Passed() != tc.passed {
				t.Errorf("Passed() = %v, want %v", s.Passed(), tc.passed)
			}
			var b strings.Builder
			report.WriteSummary(&b, s)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("the summary lacks %q:\n%s", w, b.String())
				}
			}
			for _, l := range tc.lose {
				if strings.Contains(b.String(), l) {
					t.Errorf("the summary has %q:\n%s", l, b.String())
				}
			}
		})
	}
}
