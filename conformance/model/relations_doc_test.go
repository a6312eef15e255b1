package model

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateRelationsDoc = flag.Bool("update", false, "rewrite the table of docs/conformance-relations.md from RelationCatalogue")

// Paths of the relations page and of the rule IDs the table names.
var (
	relationsDoc = filepath.Join("..", "..", "docs", "conformance-relations.md")
	ruleIDsFile  = filepath.Join("..", "rule", "rule-ids.txt")
)

// The marks around the generated table.
const (
	tableStart = "<!-- relations table: generated from conformance/model RelationCatalogue (go test ./conformance/model -run TestRelationsDoc -update) -->\n"
	tableEnd   = "<!-- end of relations table -->\n"
)

// relationsTable writes the catalogue as the docs' table: each relation
// with its rule ID, level, where it lies, the clause it rests on (or why it
// is a SHOULD) and how it is read.
func relationsTable(ids map[string]string) string {
	var b strings.Builder
	b.WriteString("| Rule | Scope | Level | Relation | Kind | Rests on | Read as |\n|---|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, r := range RelationCatalogue {
		rests := "docs/behaviour.md, or the spec's meanings: see the last column"
		if r.Level == Must {
			rests = fmt.Sprintf("§%s: %q", r.Section, r.Quote)
		}
		read := r.Why
		if r.Accepted {
			read = strings.TrimSpace(read + "; " + acceptedWhy)
			read = strings.TrimPrefix(read, "; ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n",
			ids[r.Scope+"\x00"+r.Text], r.Scope, r.Level, cell(r.Text), r.Kind, cell(rests), cell(read))
	}
	return b.String()
}

// ruleIDs reads the IDs of the relation rules from the registry, by scope
// and text.
func ruleIDs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(ruleIDsFile)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) == 4 && f[2] == "relations" {
			ids[f[1]+"\x00"+f[3]] = f[0]
		}
	}
	return ids
}

// TestRelationsDoc checks that docs/conformance-relations.md holds the
// table of the catalogue as it is, every relation with its rule's ID
// (-update rewrites the table).
func TestRelationsDoc(t *testing.T) {
	ids := ruleIDs(t)
	for _, r := range RelationCatalogue {
		if ids[r.Scope+"\x00"+r.Text] == "" {
			t.Errorf("relation %s has no rule ID in %s: run go test ./conformance -run TestRuleCatalogue -update", r.Name, ruleIDsFile)
		}
	}
	data, err := os.ReadFile(relationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(data, []byte(tableStart))
	end := bytes.Index(data, []byte(tableEnd))
	if start < 0 || end < start {
		t.Fatalf("%s lacks the marks around the relations table (%q ... %q)", relationsDoc, tableStart, tableEnd)
	}
	want := relationsTable(ids)
	got := string(data[start+len(tableStart) : end])
	if got == want {
		return
	}
	if !*updateRelationsDoc {
		t.Fatalf("the table of %s is stale: run go test ./conformance/model -run TestRelationsDoc -update", relationsDoc)
	}
	out := append(append(append([]byte{}, data[:start+len(tableStart)]...), want...), data[end:]...)
	if err := os.WriteFile(relationsDoc, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
