package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeTool answers each run from tables by server (the URL's host) and
// connections, and records the runs.
type fakeTool struct {
	rates map[string]float64 // by host: the rate at many connections
	lat   map[string]result  // by host: the run at one connection
	fail  map[string]int64   // by host: failed answers of each run
	err   error
	runs  []string
}

func (f *fakeTool) name() string { return "fake" }

func (f *fakeTool) measure(_ context.Context, url string, conns int, d time.Duration) (result, error) {
	host := strings.Split(strings.TrimPrefix(url, "http://"), "/")[0]
	f.runs = append(f.runs, fmt.Sprintf("%s %d %v", url, conns, d))
	if f.err != nil {
		return result{}, f.err
	}
	if conns == 1 {
		r := f.lat[host]
		r.failed = f.fail[host]
		return r, nil
	}
	rate := f.rates[host]
	return result{requests: int64(rate * d.Seconds()), rate: rate, failed: f.fail[host]}, nil
}

// cpuClock returns a CPU clock that moves on by step each reading.
func cpuClock(step time.Duration) func() (time.Duration, bool) {
	var now time.Duration
	return func() (time.Duration, bool) {
		now += step
		return now, true
	}
}

// TestBenchMeasure checks a case's runs, in order (warm-up, rounds of the
// mock then the bare handler, then each at one connection), what is
// printed of them, and the case's figures.
func TestBenchMeasure(t *testing.T) {
	tool := &fakeTool{
		rates: map[string]float64{"mock": 900, "bare": 1000},
		lat: map[string]result{"mock": {requests: 100, rate: 100, p50: 80 * time.Microsecond, p99: 2 * time.Millisecond},
			"bare": {requests: 120, rate: 120, p50: 60 * time.Microsecond, p99: 1500 * time.Microsecond}},
	}
	var out strings.Builder
	b := &bench{tool: tool, rounds: 2, duration: 2 * time.Second, latencyDuration: time.Second, warmDuration: 3 * time.Second,
		conns: 8, out: &out, machine: func() string { return "machine: test" },
		mockCPU: cpuClock(time.Second), bareCPU: func() (time.Duration, bool) { return 0, false }}
	c := benchCase{name: "params", target: "/p?first=1", want: 0.9}
	res, err := b.measure(context.Background(), c, 12345, "http://mock", "http://bare")
	if err != nil {
		t.Fatal(err)
	}
	wantRuns := []string{
		"http://mock/p?first=1 8 3s", "http://bare/p?first=1 8 3s",
		"http://mock/p?first=1 8 2s", "http://bare/p?first=1 8 2s",
		"http://mock/p?first=1 8 2s", "http://bare/p?first=1 8 2s",
		"http://mock/p?first=1 1 1s", "http://bare/p?first=1 1 1s",
	}
	if fmt.Sprint(tool.runs) != fmt.Sprint(wantRuns) {
		t.Errorf("runs\n%q\nwant\n%q", tool.runs, wantRuns)
	}
	if res.ratio != 0.9 || res.least != 0.9 || res.top != 0.9 || len(res.mock) != 2 || len(res.bare) != 2 || res.size != 12345 {
		t.Errorf("result %+v", res)
	}
	if res.mockLat.p50 != 80*time.Microsecond || res.bareLat.p99 != 1500*time.Microsecond {
		t.Errorf("latencies %+v %+v", res.mockLat, res.bareLat)
	}
	// The mock's CPU clock moves a second a reading, over 1,800 answers.
	if res.mock[0].cpu != time.Second/1800 || res.bare[0].cpu != 0 {
		t.Errorf("CPU per answer %v and %v, want %v and unknown", res.mock[0].cpu, res.bare[0].cpu, time.Second/1800)
	}
	if b.counted != 2700+2*1800+100 || b.runs != 4 {
		t.Errorf("counted %d answers of the mock in %d runs, want %d in 4", b.counted, b.runs, 2700+2*1800+100)
	}
	for _, want := range []string{
		"params: GET /p?first=1 (12,345 bytes)",
		"  round 1: mock 900 req/s, bare 1,000 req/s: 0.900 (machine: test)",
		"  round 2: mock 900 req/s, bare 1,000 req/s: 0.900 (machine: test)",
		"  mock/bare 0.90 (rounds 0.900 to 0.900; target 0.90: met)",
		"  one connection: mock p50 80µs p99 2ms, bare p50 60µs p99 1.5ms",
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// With both CPU clocks known, each round says what each spent.
	out.Reset()
	b.bareCPU = cpuClock(time.Second)
	if _, err := b.measure(context.Background(), c, 1, "http://mock", "http://bare"); err != nil {
		t.Fatal(err)
	}
	if want := "0.900; CPU per answer mock 556µs, bare 500µs (machine: test)"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// TestBenchMeasureFails checks a run of the tool that fails, or in which
// either server failed answers, fails the case and says which.
func TestBenchMeasureFails(t *testing.T) {
	tests := []struct {
		name string
		tool *fakeTool
		want string
	}{
		{"the tool fails", &fakeTool{err: errors.New("wrk: not found")}, "wrk: not found"},
		{"the mock fails answers", &fakeTool{rates: map[string]float64{"mock": 1, "bare": 1}, fail: map[string]int64{"mock": 3}}, "the mock answered 3 requests"},
		{"the bare handler fails answers", &fakeTool{rates: map[string]float64{"mock": 1, "bare": 1}, fail: map[string]int64{"bare": 2}}, "the bare handler answered 2 requests"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &bench{tool: tc.tool, rounds: 1, duration: time.Second, latencyDuration: time.Second, warmDuration: time.Second,
				conns: 2, out: &strings.Builder{}, machine: func() string { return "" },
				mockCPU: cpuClock(0), bareCPU: cpuClock(0)}
			_, err := b.measure(context.Background(), benchCase{name: "c", target: "/t"}, 1, "http://mock", "http://bare")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestBenchMeasureFailsAtOneConnection checks failed answers at one
// connection fail the case too, of either server.
func TestBenchMeasureFailsAtOneConnection(t *testing.T) {
	for _, server := range []string{"mock", "bare"} {
		tool := &fakeTool{rates: map[string]float64{"mock": 1, "bare": 1}}
		b := &bench{tool: failingAtOne{tool, server}, rounds: 1, duration: time.Second, latencyDuration: time.Second,
			warmDuration: time.Second, conns: 2, out: &strings.Builder{}, machine: func() string { return "" },
			mockCPU: cpuClock(0), bareCPU: cpuClock(0)}
		_, err := b.measure(context.Background(), benchCase{name: "c", target: "/t"}, 1, "http://mock", "http://bare")
		if err == nil || !strings.Contains(err.Error(), "answered 1 requests") {
			t.Errorf("%s failing at one connection: %v", server, err)
		}
	}
}

// failingAtOne is a tool whose runs at one connection against server
// fail an answer.
type failingAtOne struct {
	*fakeTool
	server string
}

func (f failingAtOne) measure(ctx context.Context, url string, conns int, d time.Duration) (result, error) {
	r, err := f.fakeTool.measure(ctx, url, conns, d)
	if conns == 1 && strings.Contains(url, "//"+f.server+"/") {
		r.failed = 1
	}
	return r, err
}

// TestRatios checks the ratio over all rounds is of the summed rates, and
// the least and highest are of one round each.
func TestRatios(t *testing.T) {
	tests := []struct {
		mock, bare       []float64
		all, least, most float64
	}{
		{[]float64{90, 80}, []float64{100, 100}, 0.85, 0.8, 0.9},
		{[]float64{50, 100}, []float64{100, 100}, 0.75, 0.5, 1},
		{[]float64{100}, []float64{50}, 2, 2, 2},
		{[]float64{10}, []float64{0}, 0, 0, 0},
	}
	for _, tc := range tests {
		var m, b []result
		for i := range tc.mock {
			m = append(m, result{rate: tc.mock[i]})
			b = append(b, result{rate: tc.bare[i]})
		}
		all, least, most := ratios(m, b)
		if all != tc.all || least != tc.least || most != tc.most {
			t.Errorf("ratios(%v, %v) = %v %v %v, want %v %v %v", tc.mock, tc.bare, all, least, most, tc.all, tc.least, tc.most)
		}
	}
	if verdict(0.9, 0.9) != "met" || verdict(0.8999, 0.9) != "NOT met" {
		t.Error("verdict")
	}
}

// TestCheckLog checks the request log must hold every answer counted, and
// no more than those in flight when the runs ended.
func TestCheckLog(t *testing.T) {
	tests := []struct {
		lines, counted int64
		runs, conns    int
		want           string // the error's, "" for none
	}{
		{100, 100, 3, 16, ""},
		{148, 100, 3, 16, ""},
		{149, 100, 3, 16, "the request log holds 149 lines for 100 answers counted: 49 more than the 48 requests that can have been in flight"},
		{99, 100, 3, 16, "the request log holds 99 lines for 100 answers counted: 1 lost"},
	}
	for _, tc := range tests {
		err := checkLog(tc.lines, tc.counted, tc.runs, tc.conns)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("checkLog(%d, %d, %d, %d) = %v, want %q", tc.lines, tc.counted, tc.runs, tc.conns, err, tc.want)
		}
	}
}

// TestCountLogLines checks the request lines of either format are counted
// and nothing else.
func TestCountLogLines(t *testing.T) {
	log := "harness serve: building the generated world\n" +
		"time=2026-11-28T08:09:34.123Z level=INFO msg=request method=GET path=/a query=\"\" status=200\n" +
		`{"time":"2026-11-28T08:09:34.123Z","level":"INFO","msg":"request","method":"GET"}` + "\n" +
		"time=2026-11-28T08:09:34.123Z level=ERROR msg=\"panic serving request\" path=/a\n" +
		"time=2026-11-28T08:09:34.123Z level=INFO msg=request method=GET path=/b query=\"\" status=404"
	if got := countLogLines([]byte(log)); got != 3 {
		t.Errorf("countLogLines = %d, want 3", got)
	}
}

// TestSummary checks the summary's row of a case.
func TestSummary(t *testing.T) {
	var out strings.Builder
	summary(&out, []caseResult{{
		c: benchCase{name: "games", want: 0.85}, ratio: 0.875,
		mock:    []result{{rate: 1000, cpu: 40 * time.Microsecond}, {rate: 2000, cpu: 60 * time.Microsecond}},
		bare:    []result{{rate: 3000}, {rate: 1000}},
		mockLat: result{p50: 100 * time.Microsecond, p99: time.Millisecond}, bareLat: result{p50: 90 * time.Microsecond, p99: 2 * time.Millisecond},
	}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "case ") {
		t.Fatalf("summary:\n%s", out.String())
	}
	want := regexp.MustCompile(`^games +0\.88 +0\.85 +1,500 +2,000 +50µs / \? +100µs / 90µs +1ms / 2ms$`)
	if !want.MatchString(lines[1]) {
		t.Errorf("summary row %q, want it to match %s", lines[1], want)
	}
	if meanCPU(nil) != 0 || meanRate(nil) != 0 {
		t.Error("the means of no rounds")
	}
}

// TestFormats checks numbers with thousands' commas and latencies to about
// three digits.
func TestFormats(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999.4: "999", 1000: "1,000", 49_901.6: "49,902", 1_234_567: "1,234,567", -1234: "-1,234"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		1234 * time.Nanosecond: "1µs", 1_234_567: "1.23ms", 12_345_678: "12.3ms", 1_234_567_890: "1.235s", 999_999: "1ms",
	} {
		if got := short(d); got != want {
			t.Errorf("short(%v) = %q, want %q", d, got, want)
		}
	}
	if !regexp.MustCompile(`^machine: \d+ cores, load \S+ \S+ \S+, go\S+, \d{4}-\d\d-\d\dT\d\d:\d\dZ$`).MatchString(machine()) {
		t.Errorf("machine() = %q", machine())
	}
	at := time.Date(2026, 11, 28, 8, 9, 34, 0, time.FixedZone("x", 3600))
	for loadavg, want := range map[string]string{
		"0.71 0.44 0.18 1/92 5544\n": "machine: 2 cores, load 0.71 0.44 0.18, go1.26.8, 2026-11-28T07:09Z",
		"0.71 0.44 0.18":             "machine: 2 cores, load 0.71 0.44 0.18, go1.26.8, 2026-11-28T07:09Z",
		"0.71 0.44":                  "machine: 2 cores, load unknown, go1.26.8, 2026-11-28T07:09Z",
		"":                           "machine: 2 cores, load unknown, go1.26.8, 2026-11-28T07:09Z",
	} {
		if got := machineLine(2, loadavg, "go1.26.8", at); got != want {
			t.Errorf("machineLine(%q) = %q, want %q", loadavg, got, want)
		}
	}
}
