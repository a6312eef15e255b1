package conformance

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/conformance-rules.md from the suite")

// cataloguePath is the committed rule catalogue.
var cataloguePath = filepath.Join("..", "docs", "conformance-rules.md")

// TestRuleCatalogue checks that every rule is labelled with one listing and
// one area, that rule texts are unique, and that docs/conformance-rules.md
// is what the suite generates (-update rewrites it).
func TestRuleCatalogue(t *testing.T) {
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatal("the suite has no rules")
	}
	seen := map[string]bool{}
	for _, r := range rules {
		key := r.Listing + " " + r.Area + " " + r.Text
		if seen[key] {
			t.Errorf("two rules read %q", key)
		}
		seen[key] = true
		listings, areas := 0, 0
		for _, l := range r.Labels {
			if slices.Contains(Listings, l) {
				listings++
			}
			if slices.Contains(Areas, l) {
				areas++
			}
		}
		if listings != 1 || areas != 1 {
			t.Errorf("rule %q has %d listing and %d area labels, want one of each: %v", r.Text, listings, areas, r.Labels)
		}
	}
	var buf bytes.Buffer
	if err := WriteCatalogue(&buf, rules); err != nil {
		t.Fatal(err)
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
