package conformance

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/config"
)

func TestFilterAtoms(t *testing.T) {
	tests := []struct {
		filter string
		want   []string
	}{
		{"games", []string{"games"}},
		{" games && !strict ", []string{"games", "strict"}},
		{"(games || snapshots), GAMES-PAG-003", []string{"games", "snapshots", "GAMES-PAG-003"}},
		{"games && !games", []string{"games"}},
		{"/pag/ && games", []string{"/pag/", "games"}},
		{"games&&/a|b/", []string{"games", "/a|b/"}},
		{"/unclosed", []string{"/unclosed"}},
		{"a && //x", []string{"a", "//", "x"}},
		{"Feature: consistsOf {a, b}", nil},
	}
	for _, tc := range tests {
		if got := filterAtoms(tc.filter); !slices.Equal(got, tc.want) {
			t.Errorf("filterAtoms(%q) = %q, want %q", tc.filter, got, tc.want)
		}
	}
}

// TestCheckLabelFilterSelects: a filter naming a label no rule carries, or
// selecting no rule, is refused in one line with what was likely meant.
func TestCheckLabelFilterSelects(t *testing.T) {
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		filter string
		// want is in the error; "" for none.
		want []string
	}{
		{filter: ""},
		{filter: "games"},
		{filter: "GAMES-PAG-003"},
		{filter: "games-pag-003"}, // Ginkgo matches labels in any case
		{filter: "!strict"},
		{filter: "games && (pagination || epochs) && !strict"},
		{filter: "/PAG-00[1-3]/"},
		{filter: "gmaes", want: []string{`label filter "gmaes" names no label of the suite: "gmaes"; did you mean "games"?`, "harness conform --list"}},
		{filter: "games && pagnation", want: []string{`names no label of the suite: "pagnation"; did you mean "pagination"?`}},
		{filter: "gmaes || snapshotz", want: []string{`"gmaes", "snapshotz"; did you mean "games" or "snapshots"?`}},
		{filter: "GAMES-PAG-999", want: []string{`"GAMES-PAG-999"; did you mean "GAMES-PAG-009"`}},
		{filter: "qqqqqqqq", want: []string{`names no label of the suite: "qqqqqqqq" (harness`}},
		{filter: "/zzz/", want: []string{`names no label of the suite: "/zzz/" (`}},
		{filter: "games && !games", want: []string{`label filter "games && !games" selects no rule (`}},
		{filter: "games && snapshots", want: []string{"selects no rule"}},
		{filter: "games &&", want: []string{`label filter "games &&"`}},
	}
	for _, tc := range tests {
		t.Run(tc.filter, func(t *testing.T) {
			err := CheckLabelFilterSelects(tc.filter, rules)
			if len(tc.want) == 0 {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			var lfe *LabelFilterError
			if !errors.As(err, &lfe) {
				t.Fatalf("error %v, want a *LabelFilterError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "\x1b") {
				t.Errorf("error %q is not one plain line", err)
			}
		})
	}
}

// TestRunRefusesAFilterSelectingNothing: Run refuses before it asks the
// deployment anything, with no summary.
func TestRunRefusesAFilterSelectingNothing(t *testing.T) {
	for _, filter := range []string{"gmaes", "games && !games"} {
		s, err := Run(config.Config{BaseURL: "http://127.0.0.1:1"}, RunOptions{LabelFilter: filter, Output: &strings.Builder{}})
		var lfe *LabelFilterError
		if s != nil || !errors.As(err, &lfe) {
			t.Errorf("Run with %q: summary %v, error %v; want no summary and a *LabelFilterError", filter, s, err)
		}
	}
}
