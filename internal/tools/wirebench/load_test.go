package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// wrkReport is what wrk 4.1 prints for a run with --latency.
const wrkReport = `Running 5s test @ http://127.0.0.1:41234/api/v2/snapshots?pagination.first=100
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   705.24us    1.02ms  25.13ms   91.28%
    Req/Sec    24.08k     3.04k   34.15k    67.50%
  Latency Distribution
     50%  412.00us
     75%  701.00us
     90%    1.20ms
     99%    5.31ms
  120123 requests in 5.00s, 2.13GB read
Requests/sec:  23955.99
Transfer/sec:    426.12MB
`

// TestWrkParse checks a wrk report is read: the count, the rate, the
// median and the 99th percentile, the answers that were not 2xx or 3xx and
// the socket errors; a report without them is an error.
func TestWrkParse(t *testing.T) {
	withErrors := strings.Replace(wrkReport, "Requests/sec:", "  Socket errors: connect 1, read 2, write 3, timeout 4\n  Non-2xx or 3xx responses: 17\nRequests/sec:", 1)
	tests := []struct {
		name    string
		out     string
		want    result
		wantErr string
	}{
		{"a clean run", wrkReport, result{requests: 120123, rate: 23955.99, p50: 412 * time.Microsecond, p99: 5310 * time.Microsecond}, ""},
		{"errors and refusals", withErrors, result{requests: 120123, rate: 23955.99, p50: 412 * time.Microsecond, p99: 5310 * time.Microsecond, failed: 27}, ""},
		{"no rate", strings.Replace(wrkReport, "Requests/sec:  23955.99\n", "", 1), result{}, "lacks"},
		{"no count", strings.Replace(wrkReport, "  120123 requests in 5.00s, 2.13GB read\n", "", 1), result{}, "lacks"},
		{"no median", strings.Replace(wrkReport, "     50%  412.00us\n", "", 1), result{}, "lacks"},
		{"no 99th percentile", strings.Replace(wrkReport, "     99%    5.31ms\n", "", 1), result{}, "lacks"},
		{"a bad rate", strings.Replace(wrkReport, "23955.99", "fast", 1), result{}, "rate"},
		{"a bad count", strings.Replace(wrkReport, "120123 requests", "many requests", 1), result{}, "count"},
		{"a bad latency", strings.Replace(wrkReport, "412.00us", "412.00", 1), result{}, "latency"},
		{"a bad refusal count", strings.Replace(withErrors, "responses: 17", "responses: x", 1), result{}, "non-2xx"},
		{"a bad socket error count", strings.Replace(withErrors, "read 2,", "read two,", 1), result{}, "socket"},
		{"socket errors without counts", strings.Replace(wrkReport, "Requests/sec:", "  Socket errors: connect\nRequests/sec:", 1),
			result{requests: 120123, rate: 23955.99, p50: 412 * time.Microsecond, p99: 5310 * time.Microsecond}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := wrk{}.parse([]byte(tc.out))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one about %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestWrkDuration checks wrk's latencies in each of its units.
func TestWrkDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"705.24us", 705240 * time.Nanosecond, true},
		{"0.00us", 0, true},
		{"1.20ms", 1200 * time.Microsecond, true},
		{"2.00s", 2 * time.Second, true},
		{"1.50m", 90 * time.Second, true},
		{"1.00h", time.Hour, true},
		{"12", 0, false},
		{"x.yms", 0, false},
		{"-1.00ms", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		got, err := wrkDuration(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got.Round(time.Nanosecond) != tc.want) {
			t.Errorf("wrkDuration(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestLoadToolArgs checks the command lines of both tools: wrk with one
// thread, the connections, whole seconds and the latency distribution;
// vegeta as fast as it can with a worker a connection.
func TestLoadToolArgs(t *testing.T) {
	if got, want := (wrk{"/usr/bin/wrk"}).args("http://h/p?q=1", 16, 5*time.Second),
		[]string{"/usr/bin/wrk", "-t1", "-c16", "-d5s", "--latency", "http://h/p?q=1"}; !slices.Equal(got, want) {
		t.Errorf("wrk args %q, want %q", got, want)
	}
	for d, want := range map[time.Duration]string{time.Second: "1s", 1400 * time.Millisecond: "1s", 1600 * time.Millisecond: "2s", 100 * time.Millisecond: "1s", time.Minute: "60s"} {
		if got := wholeSeconds(d); got != want {
			t.Errorf("wholeSeconds(%v) = %q, want %q", d, got, want)
		}
	}
	v := vegeta{[]string{"go", "run", "vegeta@v1"}}
	if got, want := v.args(4, 3*time.Second), []string{"go", "run", "vegeta@v1", "attack", "-rate=0", "-workers=4", "-max-workers=4", "-duration=3s"}; !slices.Equal(got, want) {
		t.Errorf("vegeta args %q, want %q", got, want)
	}
	if v.args(1, time.Second)[2] != "vegeta@v1" || len(v.command) != 3 {
		t.Errorf("args changed the command: %q", v.command)
	}
	if (wrk{}).name() != "wrk" || v.name() != "vegeta" {
		t.Error("the tools' names")
	}
}

// TestVegetaParse checks vegeta report -type=json is read, answers other
// than 2xx and 3xx (and those without any, code 0) counted as failed.
func TestVegetaParse(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    result
		wantErr bool
	}{
		{"a clean run", `{"latencies":{"50th":412000,"99th":5310000},"requests":1000,"throughput":199.5,"status_codes":{"200":1000}}`,
			result{requests: 1000, rate: 199.5, p50: 412 * time.Microsecond, p99: 5310 * time.Microsecond}, false},
		{"failures", `{"latencies":{"50th":1,"99th":2},"requests":10,"throughput":5,"status_codes":{"200":4,"304":1,"500":2,"0":3}}`,
			result{requests: 10, rate: 5, p50: 1, p99: 2, failed: 5}, false},
		{"no count", `{"throughput":5}`, result{}, true},
		{"not JSON", `Requests [total] 10`, result{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := vegeta{}.parse([]byte(tc.out))
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("got %+v, %v; want %+v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
