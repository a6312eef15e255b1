package requestlog

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Entry is what the log says of one request.
type Entry struct {
	// Time is when the line is made: when the answer was done.
	Time     time.Time
	Method   string
	Path     string
	Query    string // the raw query, without "?"
	Status   int    // 0 when no answer was sent
	Bytes    int    // of the body written
	Duration time.Duration
	Remote   string
	// Warnings are the answer's findings (X-Harness-Warning), one
	// attribute "warning" each.
	Warnings []string
}

// Format is how a line is written.
type Format int

const (
	// Text is slog.TextHandler's format: key=value pairs.
	Text Format = iota
	// JSON is slog.JSONHandler's: one object a line.
	JSON
)

// Append appends e's line, its newline included, as slog's handler of the
// format (default options) writes
//
//	logger.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("method", e.Method),
//		slog.String("path", e.Path), slog.String("query", e.Query), slog.Int("status", e.Status),
//		slog.Int("bytes", e.Bytes), slog.Duration("duration", e.Duration),
//		slog.String("remote", e.Remote), slog.String("warning", w)...)
//
// made at e.Time: the same bytes, without an allocation when b has room.
func (f Format) Append(b []byte, e *Entry) []byte {
	if f == JSON {
		return appendJSON(b, e)
	}
	return appendText(b, e)
}

func appendText(b []byte, e *Entry) []byte {
	b = append(b, "time="...)
	b = appendTextTime(b, e.Time)
	b = append(b, " level=INFO msg=request method="...)
	b = appendTextString(b, e.Method)
	b = append(b, " path="...)
	b = appendTextString(b, e.Path)
	b = append(b, " query="...)
	b = appendTextString(b, e.Query)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, int64(e.Bytes), 10)
	b = append(b, " duration="...)
	b = appendDuration(b, e.Duration)
	b = append(b, " remote="...)
	b = appendTextString(b, e.Remote)
	for _, w := range e.Warnings {
		b = append(b, " warning="...)
		b = appendTextString(b, w)
	}
	return append(b, '\n')
}

func appendJSON(b []byte, e *Entry) []byte {
	b = append(b, `{"time":"`...)
	b = appendJSONTime(b, e.Time)
	b = append(b, `","level":"INFO","msg":"request","method":"`...)
	b = appendJSONString(b, e.Method)
	b = append(b, `","path":"`...)
	b = appendJSONString(b, e.Path)
	b = append(b, `","query":"`...)
	b = appendJSONString(b, e.Query)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(e.Bytes), 10)
	// A duration in nanoseconds, as encoding/json writes one.
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(e.Duration), 10)
	b = append(b, `,"remote":"`...)
	b = appendJSONString(b, e.Remote)
	b = append(b, '"')
	for _, w := range e.Warnings {
		b = append(b, `,"warning":"`...)
		b = appendJSONString(b, w)
		b = append(b, '"')
	}
	return append(b, "}\n"...)
}

// appendTextTime appends t as the text format does: RFC 3339 with the
// milliseconds, truncated. The date, the time to the second and the zone
// are those stampOf keeps for t's second.
func appendTextTime(b []byte, t time.Time) []byte {
	st := stampOf(t)
	b = append(b, st.seconds...)
	ms := t.Nanosecond() / 1e6
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, st.zone...)
}

// appendJSONTime appends t as the JSON format does: RFC 3339 with the
// nanoseconds, their trailing zeros dropped, and no fraction at all for a
// whole second (time.RFC3339Nano).
func appendJSONTime(b []byte, t time.Time) []byte {
	st := stampOf(t)
	b = append(b, st.seconds...)
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, st.zone...)
}

// stamp is the text of one second in one location, as AppendFormat's RFC
// 3339 writes it: the date and time to the second, and the zone.
type stamp struct {
	unix          int64
	loc           *time.Location
	seconds, zone string
}

// lastStamp is the stamp made last: the lines of one second, most of a
// busy log's, share it, and so format no date (AppendFormat's RFC 3339
// is a fifth of the cost of a line).
var lastStamp atomic.Pointer[stamp]

// stampOf returns the stamp of t's second in t's location, made when it is
// not the last one made (once a second; an allocation each time).
func stampOf(t time.Time) *stamp {
	unix, loc := t.Unix(), t.Location()
	if st := lastStamp.Load(); st != nil && st.unix == unix && st.loc == loc {
		return st
	}
	var tmp [48]byte
	whole := t.AppendFormat(tmp[:0], time.RFC3339) // 2006-01-02T15:04:05Z07:00
	// The zone starts nine bytes after the T, whatever the year's digits.
	end := bytes.IndexByte(whole, 'T') + len("T15:04:05")
	st := &stamp{unix: unix, loc: loc, seconds: string(whole[:end]), zone: string(whole[end:])}
	lastStamp.Store(st)
	return st
}

// plainASCII reports whether an ASCII byte goes into a JSON string as it
// is: all but the control characters, the double quote and the backslash.
// The text format quotes a value holding any other byte, or a space or an
// equals sign (a backslash alone it leaves).
func plainASCII(c byte) bool { return c >= ' ' && c != '"' && c != '\\' }

// appendTextString appends s as the text format writes a string value:
// as it is, or quoted (strconv.Quote) when it is empty or holds a space,
// an equals sign, a double quote, a control character, or a rune that is
// invalid, a space or not printable. An ASCII string is looked at once:
// most need no quotes, or only the two around them.
func appendTextString(b []byte, s string) []byte {
	quote := s == ""
	plain := true // quoted, s is written as it is between the quotes
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			if textNeedsQuotes(s) {
				return strconv.AppendQuote(b, s)
			}
			return append(b, s...)
		case c == ' ' || c == '=':
			quote = true
		case c < ' ' || c == '"':
			quote, plain = true, false
		case c == '\\' || c == 0x7f: // quoted, they are escaped
			plain = false
		}
	}
	switch {
	case !quote:
		return append(b, s...)
	case plain:
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return strconv.AppendQuote(b, s)
}

// textNeedsQuotes reports whether a string holding a rune beyond ASCII
// needs quotes in the text format: it holds a space, an equals sign, a
// double quote or a control character, or a rune that is invalid, a space
// or not printable.
func textNeedsQuotes(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '=' || (c != '\\' && !plainASCII(c)) {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += n
	}
	return false
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s escaped for a JSON string, without its
// quotes, as the JSON format escapes it: \" \\ \n \r \t, other control
// characters as \u00XX, each byte of invalid UTF-8 as \ufffd, and U+2028
// and U+2029 as \u2028 and \u2029; nothing else (no HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	from := 0 // s[from:i] is still to be copied
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainASCII(c) {
				i++
				continue
			}
			b = append(b, s[from:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			from = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[from:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[from:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += n
			continue
		}
		i += n
		from = i
	}
	return append(b, s[from:]...)
}

// appendDuration appends d as time.Duration's String writes it ("0s",
// "812ns", "1.5µs", "20.25ms", "3.9s", "1h2m0.5s"), without allocating.
func appendDuration(b []byte, d time.Duration) []byte {
	u := uint64(d)
	if d < 0 {
		b = append(b, '-')
		u = -u // the magnitude, math.MinInt64's too
	}
	switch {
	case u == 0:
		return append(b, '0', 's')
	case u < uint64(time.Microsecond):
		b = strconv.AppendUint(b, u, 10)
		return append(b, 'n', 's')
	case u < uint64(time.Millisecond):
		b = appendUnits(b, u, uint64(time.Microsecond), 3)
		return append(b, "µs"...)
	case u < uint64(time.Second):
		b = appendUnits(b, u, uint64(time.Millisecond), 6)
		return append(b, 'm', 's')
	}
	secs := u / uint64(time.Second)
	if h := secs / 3600; h > 0 {
		b = strconv.AppendUint(b, h, 10)
		b = append(b, 'h')
	}
	if secs >= 60 {
		b = strconv.AppendUint(b, secs/60%60, 10)
		b = append(b, 'm')
	}
	b = appendUnits(b, u%uint64(time.Minute), uint64(time.Second), 9)
	return append(b, 's')
}

// appendUnits appends v/unit with its fraction of unit, which has digits
// decimal digits, trailing zeros (and a point left alone) dropped.
func appendUnits(b []byte, v, unit uint64, digits int) []byte {
	b = strconv.AppendUint(b, v/unit, 10)
	frac := v % unit
	if frac == 0 {
		return b
	}
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	b = append(b, '.')
	start := len(b)
	for range digits {
		b = append(b, '0')
	}
	for i := len(b) - 1; i >= start; i-- {
		b[i] = byte('0' + frac%10)
		frac /= 10
	}
	return b
}

// Log writes entries in a format to an output (a Writer), one Write a
// line, without an allocation once its buffers have grown.
type Log struct {
	out    io.Writer
	format Format
	bufs   sync.Pool
}

// New returns a Log writing lines of format f to out.
func New(out io.Writer, f Format) *Log {
	l := &Log{out: out, format: f}
	l.bufs.New = func() any { b := make([]byte, 0, 512); return &b }
	return l
}

// Add writes e's line. Its buffer is kept for the next, however long the
// line: a request's line is bounded by the request's header limit.
func (l *Log) Add(e *Entry) {
	bp := l.bufs.Get().(*[]byte)
	*bp = l.format.Append((*bp)[:0], e)
	l.out.Write(*bp)
	l.bufs.Put(bp)
}
