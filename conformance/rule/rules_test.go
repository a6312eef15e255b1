package rule

import "testing"

// TestParseRuleIDs checks the registry reader on good and bad lines.
func TestParseRuleIDs(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    int
		retired int
		wantErr bool
	}{
		{"comments and blank lines", "# c\n\nGAMES-PAG-001\tgames\tpagination\ta rule\n", 1, 0, false},
		{"retired", "GAMES-PAG-001\tretired\tgames\tpagination\ta rule\n", 1, 1, false},
		{"bad ID", "GAMES-PAG-1\tgames\tpagination\ta rule\n", 0, 0, true},
		{"missing field", "GAMES-PAG-001\tgames\ta rule\n", 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			es, err := parseRuleIDs(tc.data)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			retired := 0
			for _, e := range es {
				if e.Retired {
					retired++
				}
			}
			if len(es) != tc.want || retired != tc.retired {
				t.Errorf("%d entries (%d retired), want %d (%d)", len(es), retired, tc.want, tc.retired)
			}
		})
	}
}
