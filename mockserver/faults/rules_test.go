package faults

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestParseRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		want []Rule
	}{
		{"YAML", `
rules:
  - name: flaky transactions
    listing: transactions
    probability: 0.1
    fault: status=503; retry-after=2
  - path: /api/v2/games
    every: 5
    times: 2
    fault: latency=lognormal:median=80ms,p99=900ms
  - fault: latency=20ms   # every request
`, []Rule{
			{Name: "flaky transactions", Listing: "transactions", Probability: 0.1, Fault: "status=503; retry-after=2"},
			{Path: "/api/v2/games", Every: 5, Times: 2, Fault: "latency=lognormal:median=80ms,p99=900ms"},
			{Fault: "latency=20ms"},
		}},
		{"JSON", `{"rules": [{"listing": "snapshots", "every": 2, "fault": "reset"}, {"probability": 1, "fault": "garbage"}]}`,
			[]Rule{{Listing: "snapshots", Every: 2, Fault: "reset"}, {Probability: 1, Fault: "garbage"}}},
		{"counts of 1", "rules:\n  - every: 1\n    times: 1\n    fault: reset\n", []Rule{{Every: 1, Times: 1, Fault: "reset"}}},
		{"JSON with spaces around", "\n  {\"rules\": []}\n", []Rule{}},
		{"no rules in YAML", "rules: []", []Rule{}},
		{"a flow rule, a field left empty", "rules:\n  - {fault: reset, every: ~, name: }\n", []Rule{{Fault: "reset"}}},
		{"numbers in other notations", "rules:\n  - {fault: reset, every: 0x10, times: 1_000}\n  - {fault: reset, probability: 1}\n",
			[]Rule{{Every: 16, Times: 1000, Fault: "reset"}, {Probability: 1, Fault: "reset"}}},
		{"aliases and a merge key", `
rules:
  - &flaky {listing: games, probability: 0.5, fault: &boom status=503}
  - <<: *flaky
    listing: snapshots
  - listing: transactions
    fault: *boom
    every: 3
`, []Rule{
			{Listing: "games", Probability: 0.5, Fault: "status=503"},
			{Listing: "snapshots", Probability: 0.5, Fault: "status=503"},
			{Listing: "transactions", Every: 3, Fault: "status=503"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := ParseRules([]byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got := rs.Rules()
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rules %+v, want %+v", got, tc.want)
			}
			if rs.Len() != len(tc.want) {
				t.Errorf("Len %d, want %d", rs.Len(), len(tc.want))
			}
		})
	}
}

func TestParseRulesRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{
		{"empty", "", "empty"},
		{"only a comment", "# nothing\n", "empty"},
		{"no rules key", "seed: 3\n", `line 1: unknown field "seed" (the file has one key, rules)`},
		{"a misspelt rules key", "rule:\n  - fault: reset\n", `line 1: unknown field "rule"; did you mean rules? (the file has one key, rules)`},
		{"no rules list", "{}", `no "rules" list`},
		{"a null list", "rules:\n", `no "rules" list (it may be empty: rules: [])`},
		{"a bare list", "- fault: reset\n", `fault rules (YAML): line 1: the file is a list; want a mapping whose "rules" key holds the list`},
		{"a bare list (JSON)", `[{"fault": "reset"}]`, `line 1: the file is a list; want a mapping whose "rules" key holds the list`},
		{"a string", "reset\n", `line 1: the file is a string; want a mapping`},
		{"rules not a list", "rules: 3\n", "line 1: rules holds a whole number; want a list of rules"},
		{"rules not a list (JSON)", `{"rules": {}}`, "line 1: rules is an object; want a list of rules"},
		{"a rule not a mapping", "rules:\n  - fault: reset\n  - reset\n", "line 3: rule 2 is a string; want a mapping of its fields"},
		{"a rule not an object (JSON)", "{\"rules\": [\n  3\n]}", "line 2: rules is a number; want each rule an object"},
		{"a field not a single value", "rules:\n  - fault: [reset]\n", "line 2: rule 1: fault is a list; want a single value such as status=503"},
		{"every not a number", "rules:\n  - fault: reset\n    every: often\n", `line 3: rule 1: every "often": want a whole number`},
		{"every not whole", "rules:\n  - fault: reset\n    every: 1.5\n", `line 3: rule 1: every "1.5": want a whole number`},
		{"every not whole (JSON)", "{\"rules\": [\n{\"fault\": \"reset\",\n \"every\": 1.5}]}", "line 3: rules.every is a number 1.5; want a whole number"},
		{"probability not a number", "rules:\n  - fault: reset\n    probability: high\n", `line 3: rule 1: probability "high": want a number`},
		{"a field twice", "rules:\n  - fault: reset\n    fault: boom\n", `line 3: "fault" is given twice (first on line 2)`},
		{"rules twice", "rules: []\nrules: []\n", `line 2: "rules" is given twice (first on line 1)`},
		{"a mapping that merges itself", "rules:\n  - &r {fault: reset, <<: *r}\n", "line 2: more than 1000 merges (<<) in all, or a mapping that merges itself"},
		{"a merge of a string", "rules:\n  - {fault: reset, <<: plain}\n", "line 2: << merges a string; want a mapping"},
		{"two documents", "rules: []\n---\nrules: []\n", "line 2: a second document"},
		{"a bad indent on line 3", "rules:\n  - fault: reset\n   listing: games\n", "fault rules (YAML): line 3: did not find expected '-' indicator (is the line indented as the ones before it?"},
		{"a deeper indent on line 3", "rules:\n  - fault: reset\n      listing: games\n", "line 3: mapping values are not allowed in this context"},
		{"a field outdented on line 4", "rules:\n  - fault: reset\n    listing: games\n  every: 2\n", "line 4: did not find expected '-' indicator"},
		{"a tab on line 3", "rules:\n  - fault: reset\n\tlisting: games\n", "line 3: found a tab character that violates indentation (indent with spaces, not tabs)"},
		{"JSON cut short", "{\"rules\": [\n{\"fault\": \"reset\"}\n", "line 3: the file ends inside the object"},
		{"a JSON syntax error on line 2", "{\"rules\": [\n{\"fault\": \"reset\",}]}", "line 2: invalid character '}'"},
		{"an unknown field (YAML)", "rules:\n  - fault: reset\n    probabilty: 0.5\n", `line 3: rule 1: unknown field "probabilty"; did you mean probability? (a rule has name, listing, path, probability, every, times, fault)`},
		{"an unknown field of a merged rule", "rules:\n  - &base {fault: reset, evry: 2}\n  - <<: *base\n", `rule 1: unknown field "evry"; did you mean every?`},
		{"an unknown field (JSON)", `{"rules": [{"fault": "reset", "every": 2, "wait": 1}]}`, `unknown field "wait"`},
		{"JSON followed by more", `{"rules": []} {"rules": []}`, "more after the object"},
		{"JSON that does not parse", `{"rules": [`, "JSON"},
		{"YAML that does not parse", "rules: [\n", "YAML"},
		{"probability 0", "rules:\n  - probability: 0\n    fault: reset\n", "rule 1: probability 0: want more than 0"},
		{"probability above 1", "rules:\n  - probability: 1.5\n    fault: reset\n", "probability 1.5"},
		{"probability negative", `{"rules": [{"probability": -0.5, "fault": "reset"}]}`, "probability -0.5"},
		{"every 0", "rules:\n  - name: n\n    every: 0\n    fault: reset\n", "n: every 0: want at least 1"},
		{"times 0", "rules:\n  - times: 0\n    fault: reset\n", "fault rules: rule 1: times 0: want at least 1"},
		{"every and probability", "rules:\n  - every: 2\n    probability: 0.5\n    fault: reset\n", "a probability or every, not both"},
		{"listing and path", "rules:\n  - listing: games\n    path: /api/v2/games\n    fault: reset\n", "a listing or a path, not both"},
		{"an unknown listing", "rules:\n  - listing: blocks\n    fault: reset\n", `listing "blocks": want one of games, snapshots, keyrotations, networkparameters, transactions`},
		{"a relative path", "rules:\n  - path: api/v2/games\n    fault: reset\n", "want a clean absolute path"},
		{"a path not clean", "rules:\n  - path: /api/v2/games/\n    fault: reset\n", "want a clean absolute path"},
		{"the control API", "rules:\n  - path: /harness/status\n    fault: reset\n", "faults never hit the control API"},
		{"the control prefix", "rules:\n  - path: /harness\n    fault: reset\n", "faults never hit the control API"},
		{"no fault", "rules:\n  - listing: games\n", "no fault"},
		{"a fault that does nothing", "rules:\n  - fault: none\n", `fault "none" does nothing`},
		{"a fault that does not parse", "rules:\n  - fault: status=404\n", "want one of 429, 500, 502, 503, 504"},
		{"the second rule named", "rules:\n  - fault: reset\n  - fault: boom\n", "rule 2:"},
	}
	tests = append(tests, struct{ name, file, want string }{
		"merges of merges", mergeBomb(40), "more than 1000 merges (<<) in all"})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := ParseRules([]byte(tc.file))
			if err == nil {
				t.Fatalf("ParseRules = %+v, want an error saying %q", rs.Rules(), tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if goType.MatchString(err.Error()) {
				t.Errorf("error %q names a Go type or the decoder's words", err)
			}
		})
	}
}

// mergeBomb is a rule file of n rules, each merging the one before twice:
// expanded naively, the last holds 2^n merges.
func mergeBomb(n int) string {
	var b strings.Builder
	b.WriteString("rules:\n  - &r0 {fault: reset}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  - &r%d {<<: [*r%d, *r%d]}\n", i, i-1, i-1)
	}
	return b.String()
}

// goType matches what a decoder's error says in Go's words: a Go type, a
// YAML tag, "unmarshal".
var goType = regexp.MustCompile(`faults\.|fileRule|!!|unmarshal|struct \{|Go (struct|value)|of type|into \S|\[\]\w`)

func TestNewRuleSetRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule Rule
		want string
	}{
		{Rule{Every: -1, Fault: "reset"}, "every -1"},
		{Rule{Times: -2, Fault: "reset"}, "times -2"},
		{Rule{Probability: math.NaN(), Fault: "reset"}, "probability NaN"},
		{Rule{Probability: 2, Fault: "reset"}, "probability 2"},
		{Rule{Name: "mine", Fault: " "}, "mine: no fault"},
	}
	for _, tc := range tests {
		if _, err := NewRuleSet(tc.rule); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewRuleSet(%+v): %v, want an error saying %q", tc.rule, err, tc.want)
		}
	}
	var none *RuleSet
	if none.Len() != 0 || none.Rules() != nil {
		t.Error("a nil RuleSet is not empty")
	}
	rs, err := NewRuleSet(Rule{Fault: "reset"})
	if err != nil {
		t.Fatal(err)
	}
	rs.Rules()[0].Fault = "garbage"
	if rs.Rules()[0].Fault != "reset" {
		t.Error("Rules gives the set's own slice")
	}
}
