package faults

import (
	"errors"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		in   string
		want Fault
		text string // the canonical form
	}{
		{"none", Fault{}, "none"},
		{" NONE ", Fault{}, "none"},
		{"latency=300ms", Fault{Latency: Delay{Dist: Fixed, D: 300 * ms}}, "latency=300ms"},
		{"latency=0s", Fault{Latency: Delay{Dist: Fixed}}, "latency=0s"},
		{"latency=1h", Fault{Latency: Delay{Dist: Fixed, D: time.Hour}}, "latency=1h0m0s"},
		{"latency = uniform:50ms-200ms", Fault{Latency: Delay{Dist: Uniform, Lo: 50 * ms, Hi: 200 * ms}}, "latency=uniform:50ms-200ms"},
		{"latency=uniform:1s-1s", Fault{Latency: Delay{Dist: Uniform, Lo: time.Second, Hi: time.Second}}, "latency=uniform:1s-1s"},
		{"latency=lognormal:median=80ms,p99=900ms", Fault{Latency: Delay{Dist: LogNormal, Median: 80 * ms, P99: 900 * ms}}, "latency=lognormal:median=80ms,p99=900ms"},
		{"latency=lognormal:p99=2s, median=1s", Fault{Latency: Delay{Dist: LogNormal, Median: time.Second, P99: 2 * time.Second}}, "latency=lognormal:median=1s,p99=2s"},
		{"status=503; retry-after=2", Fault{Kind: Status, Status: 503, RetryAfter: 2, HasRetryAfter: true}, "status=503; retry-after=2"},
		{"retry-after=0;status=503", Fault{Kind: Status, Status: 503, HasRetryAfter: true}, "status=503; retry-after=0"},
		{"status=500", Fault{Kind: Status, Status: 500}, "status=500"},
		{"status=502", Fault{Kind: Status, Status: 502}, "status=502"},
		{"status=504", Fault{Kind: Status, Status: 504}, "status=504"},
		{"status=429", Fault{Kind: Status, Status: 429, RetryAfter: 1, HasRetryAfter: true}, "status=429; retry-after=1"},
		{"Status=429; Retry-After=30", Fault{Kind: Status, Status: 429, RetryAfter: 30, HasRetryAfter: true}, "status=429; retry-after=30"},
		{"status=503; retry-after=86400", Fault{Kind: Status, Status: 503, RetryAfter: 86400, HasRetryAfter: true}, "status=503; retry-after=86400"},
		{"reset", Fault{Kind: Reset}, "reset"},
		{"empty", Fault{Kind: Empty}, "empty"},
		{"garbage", Fault{Kind: Garbage}, "garbage"},
		{"truncate=0.5", Fault{Kind: Truncate, Fraction: 0.5}, "truncate=0.5"},
		{"truncate=0", Fault{Kind: Truncate}, "truncate=0"},
		{"truncate=0.999", Fault{Kind: Truncate, Fraction: 0.999}, "truncate=0.999"},
		{"slow-body=1", Fault{Kind: SlowBody, Rate: 1}, "slow-body=1"},
		{"slow-body=1073741824", Fault{Kind: SlowBody, Rate: 1 << 30}, "slow-body=1073741824"},
		{"latency=1s; slow-body=2048", Fault{Latency: Delay{Dist: Fixed, D: time.Second}, Kind: SlowBody, Rate: 2048}, "latency=1s; slow-body=2048"},
		{"reset; latency=10ms", Fault{Latency: Delay{Dist: Fixed, D: 10 * ms}, Kind: Reset}, "latency=10ms; reset"},
		{"status=500; latency=uniform:0s-5ms", Fault{Latency: Delay{Dist: Uniform, Hi: 5 * ms}, Kind: Status, Status: 500}, "latency=uniform:0s-5ms; status=500"},
		{"reset" + strings.Repeat(" ", 1024-len("reset")), Fault{Kind: Reset}, "reset"}, // the longest text read
	}
	for _, tc := range tests {
		t.Run(strings.TrimSpace(tc.in), func(t *testing.T) {
			got, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got != tc.want {
				t.Errorf("Parse = %+v, want %+v", got, tc.want)
			}
			if s := got.String(); s != tc.text {
				t.Errorf("String = %q, want %q", s, tc.text)
			}
			if again, err := Parse(got.String()); err != nil || again != got {
				t.Errorf("Parse(String()) = %+v, %v; want %+v", again, err, got)
			}
			if got.IsZero() != (tc.text == "none") {
				t.Errorf("IsZero = %v", got.IsZero())
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"statu=503", `"statu" is not a fault`},
		{"status=503;", "an empty item"},
		{";reset", "an empty item"},
		{"=5", "an empty item"},
		{"reset; reset", "reset given twice"},
		{"latency=1s; LATENCY=2s", "latency given twice"},
		{"status", "status needs a value"},
		{"latency", "latency needs a value"},
		{"truncate", "truncate needs a value"},
		{"slow-body", "slow-body needs a value"},
		{"retry-after", "retry-after needs a value"},
		{"reset=1", "reset takes no value"},
		{"empty=", "empty takes no value"},
		{"garbage=yes", "garbage takes no value"},
		{"none=1", "none takes no value"},
		{"status=404", "want one of 429, 500, 502, 503, 504"},
		{"status=200", "want one of 429"},
		{"status=5xx", "want a whole number"},
		{"status=1000", "want a whole number"},
		{"status=503; retry-after=-1", "retry-after"},
		{"status=503; retry-after=86401", "from 0 to 86400"},
		{"status=503; retry-after=1.5", "retry-after"},
		{"retry-after=2", "retry-after goes with status"},
		{"reset; retry-after=2", "retry-after goes with status"},
		{"status=503; reset", "at most one fault besides latency, got status and reset"},
		{"truncate=0.5; slow-body=10", "got truncate and slow-body"},
		{"empty; garbage", "got empty and garbage"},
		{"none; reset", "none stands alone"},
		{"reset; none", "none stands alone"},
		{"none; latency=1s", "none stands alone"},
		{"truncate=1", "up to (not including) 1"},
		{"truncate=-0.1", "truncate"},
		{"truncate=NaN", "truncate"},
		{"truncate=half", "truncate"},
		{"slow-body=0", "from 1 to"},
		{"slow-body=1073741825", "from 1 to"},
		{"slow-body=1kB", "want a whole number"},
		{"latency=soon", "want a duration"},
		{"latency=-5ms", "want a duration"},
		{"latency=1h1ns", "want a duration"},
		{"latency=uniform:50ms", "want uniform:MIN-MAX"},
		{"latency=uniform:200ms-50ms", "the minimum is above the maximum"},
		{"latency=uniform:-50ms-1s", "want a duration"},
		{"latency=uniform:50ms-x", "want a duration"},
		{"latency=lognormal:median=80ms", "want 0 < median < p99"},
		{"latency=lognormal:p99=80ms", "want 0 < median < p99"},
		{"latency=lognormal:median=80ms,p99=80ms", "want 0 < median < p99"},
		{"latency=lognormal:median=0s,p99=80ms", "want 0 < median < p99"},
		{"latency=lognormal:median=1s,p99=1h1s", "want a duration"},
		{"latency=lognormal:median=80ms,p99=900ms,sigma=1", "want lognormal:median=D,p99=D"},
		{"latency=lognormal:", "want lognormal:median=D,p99=D"},
		{"latency=lognormal:median=x,p99=1s", "want a duration"},
		{"latency=lognormal:median=1ms,median=2ms,p99=1s", "median given twice"},
		{strings.Repeat("reset", 300), "more than 1024"},
		{"reset" + strings.Repeat(" ", 1025-len("reset")), "1025 characters, more than 1024"},
	}
	for _, tc := range tests {
		t.Run(clipName(tc.in), func(t *testing.T) {
			f, err := Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse = %+v, want an error saying %q", f, tc.want)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("error %v does not wrap ErrSyntax", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if f != (Fault{}) {
				t.Errorf("Parse returned %+v with its error", f)
			}
		})
	}
}

// FuzzParse checks any text either fails to parse or parses to a fault that
// prints as text that parses back to it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"none", "latency=300ms", "status=503; retry-after=2", "reset", "truncate=0.5",
		"slow-body=10", "latency=uniform:50ms-200ms; empty", "latency=lognormal:median=80ms,p99=900ms; garbage", "status=429"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fault, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q): %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		text := fault.String()
		again, err := Parse(text)
		if err != nil || again != fault {
			t.Fatalf("Parse(%q) = %+v; its text %q parses to %+v, %v", s, fault, text, again, err)
		}
		if again.String() != text {
			t.Fatalf("the text of %q is not stable: %q then %q", s, text, again.String())
		}
	})
}

func TestKindNames(t *testing.T) {
	t.Parallel()
	var names []string
	for _, k := range append([]Kind{None}, Kinds...) {
		names = append(names, k.String())
	}
	if want := []string{"none", "status", "reset", "empty", "truncate", "slow-body", "garbage"}; !slices.Equal(names, want) {
		t.Errorf("kind names %v, want %v", names, want)
	}
	for _, k := range []Kind{-1, Kind(len(kindNames))} {
		if s := k.String(); !strings.HasPrefix(s, "Kind(") {
			t.Errorf("Kind(%d).String() = %q", int(k), s)
		}
	}
}

// quantile returns the q-quantile of sorted samples (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// TestDelaySample draws many latencies from each distribution, in process,
// and checks their shape closely: bounds, median and 99th percentile.
func TestDelaySample(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	const n = 200_000
	tests := []struct {
		name                  string
		d                     Delay
		min, max, median, p99 time.Duration
		tolerance             float64 // of median and p99
		wantMax               time.Duration
	}{
		{"none", Delay{}, 0, 0, 0, 0, 0, 0},
		{"fixed", Delay{Dist: Fixed, D: 300 * ms}, 300 * ms, 300 * ms, 300 * ms, 300 * ms, 0, 300 * ms},
		{"uniform", Delay{Dist: Uniform, Lo: 50 * ms, Hi: 200 * ms}, 50 * ms, 200 * ms, 125 * ms, 198500 * time.Microsecond, 0.01, 200 * ms},
		{"uniform of one value", Delay{Dist: Uniform, Lo: 7 * ms, Hi: 7 * ms}, 7 * ms, 7 * ms, 7 * ms, 7 * ms, 0, 7 * ms},
		{"lognormal", Delay{Dist: LogNormal, Median: 80 * ms, P99: 900 * ms}, 0, MaxLatency, 80 * ms, 900 * ms, 0.03, MaxLatency},
		{"lognormal, narrow", Delay{Dist: LogNormal, Median: time.Second, P99: 1100 * ms}, 0, MaxLatency, time.Second, 1100 * ms, 0.01, MaxLatency},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewSource(1))
			samples := make([]time.Duration, n)
			for i := range samples {
				samples[i] = tc.d.Sample(r)
				if samples[i] < tc.min || samples[i] > tc.max {
					t.Fatalf("sample %v outside [%v, %v]", samples[i], tc.min, tc.max)
				}
			}
			slices.Sort(samples)
			near := func(what string, got, want time.Duration) {
				if math.Abs(float64(got-want)) > tc.tolerance*float64(want) {
					t.Errorf("%s %v, want %v within %.0f %%", what, got, want, 100*tc.tolerance)
				}
			}
			near("median", quantile(samples, 0.5), tc.median)
			near("p99", quantile(samples, 0.99), tc.p99)
			if tc.d.Max() != tc.wantMax {
				t.Errorf("Max = %v, want %v", tc.d.Max(), tc.wantMax)
			}
		})
	}
	t.Run("a long tail stays within the maximum", func(t *testing.T) {
		d := Delay{Dist: LogNormal, Median: 50 * time.Minute, P99: 59 * time.Minute}
		r := rand.New(rand.NewSource(2))
		top := time.Duration(0)
		for range 10_000 {
			top = max(top, d.Sample(r))
		}
		if top != MaxLatency {
			t.Errorf("the longest of 10,000 draws around 50 minutes is %v, want capped at %v", top, MaxLatency)
		}
	})
}

func clipName(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
