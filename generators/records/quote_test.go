package records

import (
	"encoding/json"
	"math/rand"
	"testing"
)

// TestAppendQuotedMatchesEncodingJSON checks that strings are escaped as
// json.Marshal escapes them, so generated records and fixtures read back and
// written again are the same bytes.
func TestAppendQuotedMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"plain", "0a1b2c DISPATCH_METRIC_MAKER_FEES_RECEIVED 12.5"},
		{"quote and backslash", `say "hi" \ bye`},
		{"html", "<a href='x'>&amp;</a>"},
		{"controls", "a\nb\rc\td\x00e\x1f\x7f"},
		{"line separators", "a\u2028b\u2029c"},
		{"multibyte", "Zürich 東京 🚀"},
		{"invalid UTF-8", "ok\xffbad\xc3"},
		{"escape first", "\"abc"},
		{"escape last", "abc\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, _ := json.Marshal(tc.in)
			if got := AppendQuoted([]byte("x"), tc.in); string(got) != "x"+string(want) {
				t.Errorf("AppendQuoted(%q) = %s, want %s", tc.in, got[1:], want)
			}
		})
	}
	// Random strings over an alphabet of the awkward cases.
	alphabet := []string{"a", "Z", "0", " ", `"`, `\`, "<", ">", "&", "\n", "\x01", "\x7f", "é", "\u2028", "\xff", "🚀"}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		s := ""
		for n := r.Intn(12); n > 0; n-- {
			s += alphabet[r.Intn(len(alphabet))]
		}
		want, _ := json.Marshal(s)
		if got := AppendQuoted(nil, s); string(got) != string(want) {
			t.Fatalf("AppendQuoted(%q) = %s, want %s", s, got, want)
		}
	}
}
