package selftest

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// These tests run the suite against a mock that limits, refuses or slows
// its answers, as a real network's gateway does: the suite must stay a
// polite client and finish.

// trafficLine matches the line harness conform prints after a run.
var trafficLine = regexp.MustCompile(`traffic: (\d+) requests \([^)]*\), (\d+) retries after 429/503, (\S+) waiting before retries, (\d+) refused`)

// runTraffic is the traffic line of a run's output.
type runTraffic struct {
	requests, retries, refused int
	wait                       time.Duration
}

func parseTraffic(t *testing.T, output string) runTraffic {
	t.Helper()
	m := trafficLine.FindStringSubmatch(output)
	if m == nil {
		t.Fatalf("harness conform printed no traffic line:\n%s", tail(output))
	}
	var rt runTraffic
	rt.requests, _ = strconv.Atoi(m[1])
	rt.retries, _ = strconv.Atoi(m[2])
	rt.refused, _ = strconv.Atoi(m[4])
	var err error
	if rt.wait, err = time.ParseDuration(m[3]); err != nil {
		t.Fatalf("traffic line %q: %v", m[0], err)
	}
	return rt
}

// arrivals records when each request reached the server.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
}

func (a *arrivals) wrap(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.times = append(a.times, time.Now())
		a.mu.Unlock()
		inner.ServeHTTP(w, r)
	})
}

// busiestSecond is the most arrivals in any one-second window [t, t+1s).
func (a *arrivals) busiestSecond() (most, total int) {
	a.mu.Lock()
	ts := slices.Clone(a.times)
	a.mu.Unlock()
	slices.SortFunc(ts, func(x, y time.Time) int { return x.Compare(y) })
	j := 0
	for i := range ts {
		for ts[i].Sub(ts[j]) >= time.Second {
			j++
		}
		most = max(most, i-j+1)
	}
	return most, len(ts)
}

// TestRateLimitedMockPasses: a gateway that answers every 7th request with
// 429 and Retry-After: 1 is waited for, and the run passes.
func TestRateLimitedMockPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: paced by the clock (rate limits, slow answers)")
	}
	t.Parallel()
	var seen, limited atomic.Int64
	srv := server(t, defect{wrap: func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if seen.Add(1)%7 == 0 {
				limited.Add(1)
				w.Header().Set("Retry-After", "1")
				http.Error(w, "rate limited", http.StatusTooManyRequests)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}})
	r := conformBinary(t, srv.URL, "--label-filter", "!strict && network-parameters && !model")
	rt := parseTraffic(t, r.output)
	t.Logf("%d requests, %d answered 429, in %s: %+v", seen.Load(), limited.Load(), r.elapsed.Round(time.Millisecond), rt)
	if r.exitCode != 0 {
		t.Errorf("exit code %d, want 0 (every 429 retried)\n%s", r.exitCode, tail(r.output))
	}
	for _, s := range r.failed() {
		t.Errorf("rule failed behind the rate limiter: %s\n%s", fullText(s), s.Failure.Message)
	}
	if limited.Load() == 0 || int64(rt.retries) != limited.Load() || rt.refused != 0 {
		t.Errorf("the server answered %d requests with 429; the run reports %d retries and %d refused, want as many retries and none refused", limited.Load(), rt.retries, rt.refused)
	}
	if int64(rt.requests) != seen.Load() {
		t.Errorf("the run reports %d requests, the server saw %d", rt.requests, seen.Load())
	}
	if want := time.Duration(limited.Load()) * time.Second; rt.wait != want || r.elapsed < want {
		t.Errorf("waited %s before retries in a run of %s, want %s (Retry-After: 1 each)", rt.wait, r.elapsed, want)
	}
}

// TestRateIsKept: with --rate 20 the server never sees more than 20
// requests in any one second.
func TestRateIsKept(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: paced by the clock (rate limits, slow answers)")
	}
	const rate = 20
	var a arrivals
	srv := server(t, defect{wrap: a.wrap})
	r := conformBinary(t, srv.URL, "--rate", strconv.Itoa(rate), "--label-filter", "key-rotations && filters")
	most, total := a.busiestSecond()
	t.Logf("%d requests in %s, at most %d in one second", total, r.elapsed.Round(time.Millisecond), most)
	if r.exitCode != 0 {
		t.Errorf("exit code %d, want 0\n%s", r.exitCode, tail(r.output))
	}
	if total < 2*rate {
		t.Fatalf("the run made %d requests, too few to measure a rate of %d/s", total, rate)
	}
	if most > rate {
		t.Errorf("%d requests arrived within one second, want at most %d", most, rate)
	}
	if min := time.Duration(total-1) * time.Second / rate; r.elapsed < min {
		t.Errorf("%d requests took %s, less than %s at %d/s", total, r.elapsed, min, rate)
	}
}

// TestAlwaysRefusedEnds: a deployment that answers every request with 429
// ends the run in bounded time with failures; the API key given by
// --header reaches the server but never the console, JUnit or JSON report.
func TestAlwaysRefusedEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: paced by the clock (rate limits, slow answers)")
	}
	t.Parallel()
	const secret = "polite-test-secret-7f3a9c"
	var seen, keyed atomic.Int64
	srv := server(t, defect{wrap: func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.Add(1)
			if r.Header.Get("X-Api-Key") == secret {
				keyed.Add(1)
			}
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"code":8,"message":"rate limited","details":[]}`, http.StatusTooManyRequests)
		})
	}})
	r := conformBinary(t, srv.URL, "--retries", "1", "--header", "X-Api-Key: "+secret)
	rt := parseTraffic(t, r.output)
	t.Logf("%d requests answered 429 in %s; %d rules failed: %+v", seen.Load(), r.elapsed.Round(time.Millisecond), len(r.failed()), rt)
	if r.exitCode != 1 {
		t.Errorf("exit code %d, want 1\n%s", r.exitCode, tail(r.output))
	}
	if r.elapsed > time.Minute {
		t.Errorf("the run took %s, want it to end within a minute", r.elapsed)
	}
	if rt.refused == 0 || rt.requests != 2*rt.refused || rt.retries != rt.refused {
		t.Errorf("traffic %+v: want every request tried twice (--retries 1) and refused", rt)
	}
	if keyed.Load() == 0 || keyed.Load() != seen.Load() {
		t.Errorf("%d of %d requests carried the X-Api-Key header, want all", keyed.Load(), seen.Load())
	}
	report, err := json.Marshal(r.report)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"console output": r.output, "JUnit report": string(r.junit), "JSON report": string(report)} {
		if strings.Contains(text, secret) {
			t.Errorf("the %s shows the header's value", name)
		}
	}
	if !strings.Contains(r.output, `-H 'X-Api-Key: <redacted>'`) {
		t.Errorf("the failures' curl lines do not name the header:\n%s", tail(r.output))
	}
}

// TestSlowMockPasses: answers that take 200 ms, within the timeout, pass.
func TestSlowMockPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: paced by the clock (rate limits, slow answers)")
	}
	t.Parallel()
	const latency = 200 * time.Millisecond
	var seen atomic.Int64
	srv := server(t, defect{wrap: func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.Add(1)
			time.Sleep(latency)
			inner.ServeHTTP(w, r)
		})
	}})
	r := conformBinary(t, srv.URL, "--timeout", "2s", "--label-filter", "!strict && network-parameters && !model")
	t.Logf("%d requests of %s each in %s", seen.Load(), latency, r.elapsed.Round(time.Millisecond))
	if r.exitCode != 0 {
		t.Errorf("exit code %d, want 0\n%s", r.exitCode, tail(r.output))
	}
	for _, s := range r.failed() {
		t.Errorf("rule failed against the slow mock: %s\n%s", fullText(s), s.Failure.Message)
	}
	if rt := parseTraffic(t, r.output); rt.retries != 0 || rt.refused != 0 || int64(rt.requests) != seen.Load() {
		t.Errorf("traffic %+v, server saw %d: want no retries or refusals", rt, seen.Load())
	}
}
