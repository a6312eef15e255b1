package rule

import "testing"

// TestCitation: a citation as reports write it, and its clause alone; a
// SHOULD rule's empty citation writes nothing.
func TestCitation(t *testing.T) {
	for _, tc := range []struct {
		c           Citation
		str, clause string
	}{
		{Citation{"4", `first: "count"`}, `spec §4: "first: \"count\""`, `§4: "first: \"count\""`},
		{Citation{"2.1", "x"}, `spec §2.1: "x"`, `§2.1: "x"`},
		{Citation{}, "", `§: ""`},
	} {
		if got := tc.c.String(); got != tc.str {
			t.Errorf("%+v.String() = %s, want %s", tc.c, got, tc.str)
		}
		if got := tc.c.Clause(); got != tc.clause {
			t.Errorf("%+v.Clause() = %s, want %s", tc.c, got, tc.clause)
		}
	}
}
