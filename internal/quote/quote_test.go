package quote

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValue(t *testing.T) {
	a200 := strings.Repeat("a", MaxValue)
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "abc", `"abc"`},
		{"escapes as strconv.Quote", "a\"b\n\x00", strconv.Quote("a\"b\n\x00")},
		{"exactly the limit", a200, strconv.Quote(a200)},
		{"one byte over", a200 + "b", `"` + a200 + `…" (201 bytes)`},
		{"64 KB", strings.Repeat("x", 65536), `"` + strings.Repeat("x", MaxValue) + `…" (65536 bytes)`},
		// é is two bytes: the 200th byte would split one, so the cut is
		// one byte earlier.
		{"a character across the limit", strings.Repeat("a", MaxValue-1) + "éz", `"` + strings.Repeat("a", MaxValue-1) + `…" (202 bytes)`},
		{"a character ending at the limit", strings.Repeat("a", MaxValue-2) + "éz", `"` + strings.Repeat("a", MaxValue-2) + `é…" (201 bytes)`},
		// 𝄞 is four bytes, the limit falls on its last: the cut is
		// three bytes earlier, at its start.
		{"a four-byte character across the limit", strings.Repeat("a", MaxValue-3) + "𝄞z", `"` + strings.Repeat("a", MaxValue-3) + `…" (202 bytes)`},
		// Five bytes from a start byte to the limit are no character: the
		// cut looks back no further than a character can reach.
		{"a start byte too far back", strings.Repeat("a", MaxValue-4) + "\xf0\x80\x80\x80\x80z", strconv.Quote(strings.Repeat("a", MaxValue-4)+"\xf0\x80\x80\x80…") + " (202 bytes)"},
		{"invalid UTF-8 is cut at the limit", strings.Repeat("\x80", MaxValue+10), strconv.Quote(strings.Repeat("\x80", MaxValue)+"…") + " (210 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Value(tc.in); got != tc.want {
				t.Errorf("Value(%.40q...) = %.300q, want %.300q", tc.in, got, tc.want)
			}
		})
	}
}

// TestValueIsBounded holds Value to its purpose: whatever the input, the
// quoted text is small and valid UTF-8.
func TestValueIsBounded(t *testing.T) {
	for _, in := range []string{strings.Repeat("é", 1<<20), strings.Repeat("\xff", 1<<20), strings.Repeat("\"", 1<<20), strings.Repeat("界", 1000)} {
		got := Value(in)
		if len(got) > 4*MaxValue+40 || !utf8.ValidString(got) {
			t.Errorf("Value of %d bytes: %d bytes (valid UTF-8 %v)", len(in), len(got), utf8.ValidString(got))
		}
		if !strings.HasSuffix(got, " ("+strconv.Itoa(len(in))+" bytes)") {
			t.Errorf("Value of %d bytes = %.60q..., want it to end with the length", len(in), got)
		}
	}
}

func TestMessage(t *testing.T) {
	m400 := strings.Repeat("m", MaxMessage)
	tests := []struct {
		name, in, want string
	}{
		{"short", "json: unknown field \"x\"", "json: unknown field \"x\""},
		{"exactly the limit", m400, m400},
		{"over the limit", m400 + "tail", m400 + "… (404 bytes)"},
		{"a character across the limit", strings.Repeat("m", MaxMessage-1) + "é", strings.Repeat("m", MaxMessage-1) + "… (401 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Message(tc.in); got != tc.want {
				t.Errorf("Message = %.60q..., want %.60q...", got, tc.want)
			}
		})
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"ASCII", "plain text", "plain text"},
		{"valid UTF-8 kept", "é 𝄞 \u2028", "é 𝄞 \u2028"},
		{"one invalid byte", "a\xffb", `a\xffb`},
		{"every invalid byte, high and low nibbles", "\x80\xfe\x0f\xc3", `\x80\xfe` + "\x0f" + `\xc3`},
		{"a truncated sequence", "ab\xe2\x82", `ab\xe2\x82`},
		{"a surrogate encoded", "\xed\xa0\x80", `\xed\xa0\x80`},
		{"valid around invalid", "é\xffé", `é\xffé`},
		{"the replacement character itself is valid", "\uFFFD", "\uFFFD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Printable(tc.in)
			if got != tc.want {
				t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Printable(%q) = %q is not valid UTF-8", tc.in, got)
			}
		})
	}
}
