package requestlog

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// slogLine is the line slog's handler of format f writes for e: what the
// mock's request log wrote before it had a format of its own.
func slogLine(t testing.TB, f Format, e *Entry) string {
	t.Helper()
	var buf bytes.Buffer
	var h slog.Handler = slog.NewTextHandler(&buf, nil)
	if f == JSON {
		h = slog.NewJSONHandler(&buf, nil)
	}
	r := slog.NewRecord(e.Time, slog.LevelInfo, "request", 0)
	r.AddAttrs(
		slog.String("method", e.Method), slog.String("path", e.Path), slog.String("query", e.Query),
		slog.Int("status", e.Status), slog.Int("bytes", e.Bytes), slog.Duration("duration", e.Duration),
		slog.String("remote", e.Remote),
	)
	for _, w := range e.Warnings {
		r.AddAttrs(slog.String("warning", w))
	}
	if err := h.Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// sameAsSlog fails t when Append writes e otherwise than slog, in either
// format.
func sameAsSlog(t *testing.T, e *Entry) {
	t.Helper()
	for _, f := range []Format{Text, JSON} {
		got := string(f.Append(nil, e))
		if want := slogLine(t, f, e); got != want {
			t.Errorf("format %d:\n got %q\nwant %q", f, got, want)
		}
	}
}

// TestAppendAsSlog checks each format writes an entry as slog's handler
// does: the same keys in the same order, the same quoting and escaping of
// every kind of string, the same times and durations.
func TestAppendAsSlog(t *testing.T) {
	at := time.Date(2026, 11, 28, 8, 9, 34, 123456789, time.UTC)
	east := time.FixedZone("east", 5*3600+30*60)
	base := Entry{Time: at, Method: "GET", Path: "/api/v2/games", Query: "pagination.first=100", Status: 200,
		Bytes: 18658, Duration: 1234567 * time.Nanosecond, Remote: "127.0.0.1:50123"}
	tests := []struct {
		name string
		edit func(e *Entry)
	}{
		{"a plain request", func(*Entry) {}},
		{"an empty query and no status", func(e *Entry) { e.Query, e.Status, e.Bytes = "", 0, 0 }},
		{"a query with spaces and quotes", func(e *Entry) { e.Query = `cmdTypes=Batch Proposal&x="y"` }},
		{"an equals sign alone", func(e *Entry) { e.Path = "/a=b" }},
		{"a backslash", func(e *Entry) { e.Path = `/a\b` }},
		{"a backslash and a space", func(e *Entry) { e.Path = `/a\b c` }},
		{"a quote alone", func(e *Entry) { e.Path = `/a"b` }},
		{"a delete alone and with a space", func(e *Entry) { e.Path, e.Query = "/a\x7f", "a\x7f b" }},
		{"a control character alone", func(e *Entry) { e.Path = "/a\x01" }},
		{"control characters", func(e *Entry) { e.Path = "/a\x00\x01\x1f\t\n\r\x7f" }},
		{"printable unicode", func(e *Entry) { e.Path = "/épée/日本" }},
		{"unicode spaces and unprintable runes", func(e *Entry) { e.Path = "/a\u00a0b\u2028c\u2029d\u200be" }},
		{"invalid UTF-8", func(e *Entry) { e.Path = "/a\xffb\xc3" }},
		{"a continuation byte alone", func(e *Entry) { e.Path, e.Query = "/a\x80", "é\x80" }},
		{"a backslash beside a rune", func(e *Entry) { e.Path = "/é\\x" }},
		{"a quote beside a rune", func(e *Entry) { e.Path = "/é\"x" }},
		{"HTML characters", func(e *Entry) { e.Query = "<a href='x'>&amp;</a>" }},
		{"one warning", func(e *Entry) { e.Warnings = []string{`unknown parameter "first" ignored: write pagination.first`} }},
		{"three warnings", func(e *Entry) { e.Warnings = []string{"a", "", "c=d"} }},
		{"a whole millisecond", func(e *Entry) { e.Time = time.Date(2026, 1, 2, 3, 4, 5, 7_000_000, time.UTC) }},
		{"a whole second", func(e *Entry) { e.Time = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }},
		{"another zone", func(e *Entry) { e.Time = at.In(east) }},
		{"the local zone and a monotonic reading", func(e *Entry) { e.Time = time.Now() }},
		{"nanoseconds", func(e *Entry) { e.Duration = 999 }},
		{"microseconds", func(e *Entry) { e.Duration = 1500 }},
		{"seconds", func(e *Entry) { e.Duration = 3*time.Second + 250*time.Millisecond }},
		{"hours", func(e *Entry) { e.Duration = 2*time.Hour + 5*time.Second }},
		{"a negative duration and counts", func(e *Entry) { e.Duration, e.Status, e.Bytes = -1500, -1, -7 }},
		{"the largest values", func(e *Entry) { e.Duration, e.Bytes = math.MaxInt64, math.MaxInt }},
		{"the least duration", func(e *Entry) { e.Duration = math.MinInt64 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			tc.edit(&e)
			sameAsSlog(t, &e)
		})
	}
}

// FuzzAppend checks any entry is written as slog writes it.
func FuzzAppend(f *testing.F) {
	f.Add("GET", "/api/v2/games", "pagination.first=1", 200, 100, int64(1234567), "127.0.0.1:1", "", int64(1764317374123456789))
	f.Add("HEAD", "/x y", "a=\"b\"&c=\\", 404, 0, int64(-5), "[::1]:80", "unknown\tparameter", int64(0))
	f.Add("G\xffT", "/\u2028", "\x00", 0, -1, int64(math.MinInt64), "", "é\u00a0", int64(-1))
	f.Fuzz(func(t *testing.T, method, path, query string, status, size int, dur int64, remote, warning string, unixNano int64) {
		e := Entry{Time: time.Unix(0, unixNano).UTC(), Method: method, Path: path, Query: query, Status: status,
			Bytes: size, Duration: time.Duration(dur), Remote: remote}
		if warning != "" {
			e.Warnings = []string{warning, warning}
		}
		if y := e.Time.Year(); y < 0 || y > 9999 {
			t.Skip("slog's JSON handler refuses years outside 0 to 9999; a request's are not")
		}
		sameAsSlog(t, &e)
	})
}

// TestAppendDuration checks durations are written as their String writes
// them, over a seeded spread of values of every size and sign.
func TestAppendDuration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []time.Duration{0, 1, 999, 1000, 1001, 1500, 999_999, 1_000_000, 1_000_001, time.Second - 1, time.Second,
		time.Minute, time.Minute + 500*time.Millisecond, time.Hour, time.Hour + time.Nanosecond, math.MaxInt64, math.MinInt64}
	for range 2000 {
		v := time.Duration(rng.Int64N(math.MaxInt64 >> rng.IntN(63)))
		values = append(values, v, -v)
	}
	for _, d := range values {
		if got, want := string(appendDuration([]byte("x"), d)), "x"+d.String(); got != want {
			t.Errorf("appendDuration(%d) = %q, want %q", int64(d), got, want)
		}
	}
}

// TestAppendAllocates checks a line is made and logged without an
// allocation, in both formats.
func TestAppendAllocates(t *testing.T) {
	e := &Entry{Time: time.Now(), Method: "GET", Path: "/api/v2/network/parameters", Query: "pagination.first=100",
		Status: 200, Bytes: 18658, Duration: 81234 * time.Nanosecond, Remote: "127.0.0.1:41234",
		Warnings: []string{`unknown parameter "x y" ignored`}}
	for _, f := range []Format{Text, JSON} {
		buf := make([]byte, 0, 1024)
		if n := testing.AllocsPerRun(100, func() { buf = f.Append(buf[:0], e) }); n != 0 {
			t.Errorf("format %d: Append allocates %v times a line", f, n)
		}
		l := New(io.Discard, f)
		if n := testing.AllocsPerRun(100, func() { l.Add(e) }); n != 0 {
			t.Errorf("format %d: Add allocates %v times a line", f, n)
		}
	}
}

// TestLogAdd checks each Add writes one whole line to the output, in one
// Write, and a line too long to keep its buffer is written whole too.
func TestLogAdd(t *testing.T) {
	var out writes
	l := New(&out, Text)
	small := &Entry{Time: time.Unix(0, 0).UTC(), Method: "GET", Path: "/a"}
	big := &Entry{Time: time.Unix(0, 0).UTC(), Method: "GET", Path: "/" + string(bytes.Repeat([]byte("b"), 70<<10))}
	for _, e := range []*Entry{small, big, small} {
		l.Add(e)
	}
	want := []string{slogLine(t, Text, small), slogLine(t, Text, big), slogLine(t, Text, small)}
	if len(out.got) != len(want) {
		t.Fatalf("%d writes, want %d", len(out.got), len(want))
	}
	for i := range want {
		if out.got[i] != want[i] {
			t.Errorf("write %d: %.80q, want %.80q", i, out.got[i], want[i])
		}
	}
}

// writes records each Write.
type writes struct{ got []string }

func (w *writes) Write(p []byte) (int, error) {
	w.got = append(w.got, string(p))
	return len(p), nil
}

// TestTextTimeOfOtherYears checks a year of other than four digits, which
// slog's text handler garbles, is written whole, to the millisecond.
func TestTextTimeOfOtherYears(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(10000, 1, 2, 3, 4, 5, 678_900_000, time.UTC),
		time.Date(-1, 1, 2, 3, 4, 5, 678_900_000, time.FixedZone("x", 3600)),
		time.Date(999, 1, 2, 3, 4, 5, 0, time.UTC),
	} {
		want := at.Format("2006-01-02T15:04:05.000Z07:00")
		if got := string(appendTextTime(nil, at)); got != want {
			t.Errorf("appendTextTime(%v) = %q, want %q", at, got, want)
		}
	}
}

// TestTimesAsAppendFormat checks both formats' times against AppendFormat's,
// for times one after another that share the last one's second or not, its
// location or not (another zone, the same instant elsewhere, the local
// zone), with fractions of every length; then from goroutines at once,
// each its own times, so that one's stamp cannot show in another's line.
func TestTimesAsAppendFormat(t *testing.T) {
	east, west := time.FixedZone("east", 5*3600+30*60), time.FixedZone("west", -8*3600)
	base := time.Date(2026, 11, 28, 8, 9, 34, 0, time.UTC)
	var times []time.Time
	for _, ns := range []int{0, 1, 7_000_000, 123_456_789, 100_000_000, 999_999_999, 120_000} {
		at := base.Add(time.Duration(ns))
		times = append(times, at, at, at.In(east), at.In(west), at.Add(time.Second), at.Add(-time.Second).In(east), at.Local())
	}
	times = append(times, time.Now(), time.Date(10000, 1, 2, 3, 4, 5, 678_900_000, time.UTC), time.Date(-1, 1, 2, 3, 4, 5, 1, west))
	check := func(at time.Time) string {
		if got, want := string(appendTextTime(nil, at)), at.Format("2006-01-02T15:04:05.000Z07:00"); got != want {
			return fmt.Sprintf("appendTextTime(%v) = %q, want %q", at, got, want)
		}
		if got, want := string(appendJSONTime(nil, at)), at.Format(time.RFC3339Nano); got != want {
			return fmt.Sprintf("appendJSONTime(%v) = %q, want %q", at, got, want)
		}
		return ""
	}
	for _, at := range times {
		if msg := check(at); msg != "" {
			t.Error(msg)
		}
	}
	errs := make(chan string, 4*len(times))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range times {
				if msg := check(times[(i+g*3)%len(times)].Add(time.Duration(g) * time.Hour)); msg != "" {
					errs <- msg
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}
