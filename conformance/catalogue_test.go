package conformance

import (
	"bytes"
	"flag"
	"fmt"

	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/conformance/rule"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "give new rules IDs in rule-ids.txt and rewrite docs/conformance-rules.md from the suite")

// Paths of the committed catalogue and ID registry.
var (
	cataloguePath = filepath.Join("..", "docs", "conformance-rules.md")
	ruleIDsPath   = filepath.Join("rule", "rule-ids.txt")
)

// TestRuleCatalogue checks that every rule is labelled with one scope and
// one area, has a stable ID the registry gives it, that every MUST rule
// cites the spec text it rests on, and that docs/conformance-rules.md is
// what the suite generates (-update rewrites both files).
func TestRuleCatalogue(t *testing.T) {
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatal("the suite has no rules")
	}
	if *update {
		ids, err := rule.NextIDs(rules)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ruleIDsPath, []byte(ids), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	ids := map[string]string{}
	for _, r := range rules {
		key := r.Listing + " " + r.Area + " " + r.Text
		if seen[key] {
			t.Errorf("two rules read %q", key)
		}
		seen[key] = true
		scopesN, areas := 0, 0
		for _, l := range r.Labels {
			if slices.Contains(rule.Scopes(), l) {
				scopesN++
			}
			if slices.Contains(rule.Areas, l) {
				areas++
			}
		}
		if scopesN != 1 || areas != 1 {
			t.Errorf("rule %q has %d listing and %d area labels, want one of each: %v", r.Text, scopesN, areas, r.Labels)
		}
		switch {
		case r.ID == rule.Unassigned:
			t.Errorf("rule %q (%s, %s) has no ID: run go test ./conformance -run TestRuleCatalogue -update", r.Text, r.Listing, r.Area)
		case ids[r.ID] != "":
			t.Errorf("rules %q and %q share the ID %s", ids[r.ID], r.Text, r.ID)
		}
		ids[r.ID] = r.Text
		if !r.Strict && (r.Cite.Section == "" || r.Cite.Quote == "") {
			t.Errorf("MUST rule %s %q cites no spec text: give it must(section, quote), or make it should", r.ID, r.Text)
		}
		if r.Strict && r.Cite.Section != "" {
			t.Errorf("SHOULD rule %s %q cites the spec: a rule the spec states is a MUST", r.ID, r.Text)
		}
	}
	var buf bytes.Buffer
	if err := WriteCatalogue(&buf, rules); err != nil {
		t.Fatal(err)
	}
	// A reader of the repository alone can follow every citation: the
	// catalogue names the spec and quotes each MUST rule's clause.
	if !strings.Contains(buf.String(), "the document titled "+report.SpecName) {
		t.Error("the catalogue does not name the spec its section numbers refer to")
	}
	for _, r := range rules {
		quoted := strings.ReplaceAll(fmt.Sprintf("§%s: %q", r.Cite.Section, r.Cite.Quote), "|", `\|`) // a table cell
		if !r.Strict && !strings.Contains(buf.String(), quoted) {
			t.Errorf("the catalogue does not quote %s's clause", r.ID)
		}
	}
	if *update {
		if err := os.WriteFile(cataloguePath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(cataloguePath)
	if err != nil {
		t.Fatalf("%v (run go test ./conformance -run TestRuleCatalogue -update)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s is stale: run go test ./conformance -run TestRuleCatalogue -update (or harness conform --list > %s)", cataloguePath, cataloguePath)
	}
}

// TestRuleIDsAreStable checks the registry of rule IDs against the suite:
// a published ID still names the rule it was given to (same scope, area
// and text), is never given to a second rule, and a rule the suite no
// longer has is marked retired, never dropped or reused.
func TestRuleIDsAreStable(t *testing.T) {
	reg := rule.Registry()
	if reg.Err != nil {
		t.Fatal(reg.Err)
	}
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]rule.Rule{}
	for _, r := range rules {
		byID[r.ID] = r
	}
	published := map[string]bool{}
	texts := map[string]string{}
	for _, e := range reg.Entries {
		if published[e.ID] {
			t.Errorf("rule-ids.txt lists %s twice: an ID is never reused", e.ID)
		}
		published[e.ID] = true
		key := e.Scope + " " + e.Area + " " + e.Text
		if prev, dup := texts[key]; dup && !e.Retired {
			t.Errorf("rule-ids.txt gives %q both %s and %s", key, prev, e.ID)
		}
		texts[key] = e.ID
		r, current := byID[e.ID]
		switch {
		case e.Retired && current:
			t.Errorf("%s is retired but a rule uses it again (%q): a retired ID is never reused", e.ID, r.Text)
		case !e.Retired && !current:
			t.Errorf("%s (%q) is no longer a rule of the suite: mark it retired (-update), never drop or reuse it", e.ID, e.Text)
		case current && (r.Listing != e.Scope || r.Area != e.Area || r.Text != e.Text):
			t.Errorf("%s names %q (%s, %s) in rule-ids.txt but the suite gives it to %q (%s, %s): an ID never changes its rule", e.ID, e.Text, e.Scope, e.Area, r.Text, r.Listing, r.Area)
		}
	}
	if !published[byIDOrEmpty(rules)] && len(rules) > 0 {
		t.Errorf("the suite's rules are not in rule-ids.txt")
	}
}

func byIDOrEmpty(rules []rule.Rule) string { return rules[0].ID }

// specPath is the spec, where the project's checkout has shared/ beside it
// (as on the developers' machines and in CI).
var specPath = filepath.Join("..", "..", "shared", "spec", "chain-data-query-api.md")

// TestCitationsQuoteTheSpec checks that every MUST rule's quote is the
// spec's own words: each part of it (parts are separated by "; " or
// " ... ", a part may start with the name of the field it quotes) stands in
// the spec, with its tables read as "cell | cell" and white space folded.
func TestCitationsQuoteTheSpec(t *testing.T) {
	data, err := os.ReadFile(specPath)
	if err != nil {
		t.Skipf("the spec is not beside the checkout (%v): citations not compared", err)
	}
	flat := regexp.MustCompile(`\s*\|\s*`).ReplaceAllString(string(data), " | ")
	flat = strings.Join(strings.Fields(flat), " ")
	fieldName := regexp.MustCompile(`^[A-Za-z.@]+: `)
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Strict {
			continue
		}
		if !strings.Contains(flat, "## "+strings.SplitN(r.Cite.Section, " ", 2)[0]) && !strings.Contains(flat, "### "+strings.SplitN(r.Cite.Section, " ", 2)[0]) {
			t.Errorf("%s cites section %q, which the spec does not have", r.ID, r.Cite.Section)
		}
		for _, part := range regexp.MustCompile(`; | \.\.\. `).Split(r.Cite.Quote, -1) {
			part = strings.TrimSuffix(fieldName.ReplaceAllString(part, ""), ".")
			if !strings.Contains(flat, part) {
				t.Errorf("%s quotes %q, which is not in the spec", r.ID, part)
			}
		}
	}
}
