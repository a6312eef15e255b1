package suggest

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"addr", "addr", 0},
		{"Transaction", "transaction", 0}, // case is ignored
		{"Transactions", "Transaction", 1},
		{"kitten", "sitting", 3},
		{"sreve", "serve", 1}, // two letters swapped
		{"ca", "abc", 3},      // no swap once a letter is between
		{"probabilty", "probability", 1},
		{"serv", "serve", 1},
		{"é", "e", 1}, // characters, not bytes
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	known := []string{"serve", "generate", "validate", "schemas", "conform", "record", "proxy"}
	tests := []struct {
		word string
		want []string
	}{
		{"serv", []string{"serve"}},
		{"server", []string{"serve"}},
		{"schema", []string{"schemas"}},
		{"gen", []string{"generate"}},         // a prefix
		{"conf", []string{"conform"}},         // a prefix
		{"frobnicate", nil},                   // nothing near
		{"x", nil},                            // too short to be a prefix
		{"Validate", []string{"validate"}},    // case
		{"recrod", []string{"record"}},        // two edits in six letters
		{"valid", []string{"validate"}},       // a prefix, though 3 edits away
		{"proxi", []string{"proxy"}},          // one edit
		{"sreve", []string{"serve"}},          // a swap is one edit
		{"prox", []string{"proxy"}},           // one edit
		{"re", []string{"record"}},            // a two-letter prefix
		{"qqqqqqqqqqqqqqqqqqqqqqqqqqq", nil},  // far from everything
		{strings.Repeat("serve", 1<<18), nil}, // too long to look at
	}
	for _, tc := range tests {
		if got := Nearest(tc.word, known, 3); !slices.Equal(got, tc.want) {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	// Nearest first, at most limit of them.
	names := []string{"Transaction", "Transactions2", "TransactionX", "Transfer"}
	if got := Nearest("Transactions", names, 2); !slices.Equal(got, []string{"Transaction", "Transactions2"}) {
		t.Errorf("Nearest(Transactions) = %q", got)
	}
	// None more than one edit further than the nearest.
	names = []string{"NetworkParameterKey", "NetworkParameter", "NetworkParameterEdge"}
	if got := Nearest("networkparameter", names, 3); !slices.Equal(got, []string{"NetworkParameter"}) {
		t.Errorf("Nearest(networkparameter) = %q", got)
	}
}

func TestPhrase(t *testing.T) {
	flag := func(s string) string { return "--" + s }
	tests := []struct {
		names []string
		quote func(string) string
		want  string
	}{
		{nil, flag, ""},
		{[]string{"addr"}, flag, "; did you mean --addr?"},
		{[]string{"a", "b"}, strconv.Quote, `; did you mean "a" or "b"?`},
		{[]string{"a", "b", "c"}, strconv.Quote, `; did you mean "a", "b" or "c"?`},
	}
	for _, tc := range tests {
		if got := Phrase(tc.names, tc.quote); got != tc.want {
			t.Errorf("Phrase(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}
