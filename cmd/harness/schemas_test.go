package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaindata/harness/schemas"
)

func TestSchemasListsEveryName(t *testing.T) {
	code, out, errOut := runHarness(t, "", "schemas")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := strings.Join(schemas.Names(), "\n") + "\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant one name a line:\n%s", out, want)
	}
	if !strings.Contains(out, "\nListTransactionsResponse\n") || !strings.Contains(out, "\nOrderSubmission\n") {
		t.Errorf("the list lacks well-known names:\n%s", out)
	}
}

func TestSchemasLongListing(t *testing.T) {
	code, out, errOut := runHarness(t, "", "schemas", "--long")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	names := schemas.Names()
	if len(lines) != len(names) {
		t.Fatalf("%d lines, want %d", len(lines), len(names))
	}
	for i, line := range lines {
		fields := strings.Fields(line)
		file, _ := schemas.FileOf(names[i])
		if len(fields) < 2 || fields[0] != names[i] || fields[1] != file {
			t.Errorf("line %q, want %s then %s", line, names[i], file)
		}
	}
}

func TestSchemasPrintsOne(t *testing.T) {
	tests := []struct {
		arg  string
		want func(t *testing.T, doc map[string]any)
	}{
		{"Transaction", func(t *testing.T, doc map[string]any) {
			if doc["type"] != "object" || doc["properties"] == nil || doc["additionalProperties"] != false {
				t.Errorf("not the Transaction definition: %v", doc)
			}
			defs, _ := doc["definitions"].(map[string]any)
			for _, name := range []string{"Command", "OrderSubmission", "PartyId", "Signature"} {
				if defs[name] == nil {
					t.Errorf("definitions lack %s, which Transaction uses", name)
				}
			}
			if defs["Game"] != nil {
				t.Error("definitions hold Game, which Transaction does not use")
			}
			checkStandalone(t, doc)
		}},
		{"TimeInForce", func(t *testing.T, doc map[string]any) {
			if enum, _ := doc["enum"].([]any); len(enum) != 7 {
				t.Errorf("enum %v, want the 7 TimeInForce values", doc["enum"])
			}
		}},
		{"Uint64", func(t *testing.T, doc map[string]any) {
			if doc["type"] != "string" || doc["pattern"] == nil {
				t.Errorf("not the Uint64 palette entry: %v", doc)
			}
			if _, ok := doc["definitions"]; ok {
				t.Error("a scalar that uses no other definition has definitions")
			}
			checkStandalone(t, doc)
		}},
		{"orders.json", func(t *testing.T, doc map[string]any) {
			if doc["$id"] != schemas.BaseURL+"orders.json" {
				t.Errorf("$id %v, want the file's", doc["$id"])
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			code, out, errOut := runHarness(t, "", "schemas", tc.arg)
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			tc.want(t, doc)
		})
	}
}

func TestSchemasRejectsUnknownNames(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"unknown definition", []string{"Transactions"}, exitUsage, `no schema named "Transactions"`},
		{"unknown file", []string{"trades.json"}, exitUsage, `no schema file "trades.json"`},
		{"--bundle with a name", []string{"--bundle", "Game"}, exitUsage, "--bundle takes no other flag or argument"},
		{"--bundle with --long", []string{"--bundle", "--long"}, exitUsage, "--bundle takes no other flag or argument"},
		{"--bundle with --openapi", []string{"--bundle", "--openapi"}, exitUsage, "give one"},
		{"two names", []string{"Transaction", "Command"}, exitUsage, "at most one schema name"},
		{"unknown flag", []string{"--all"}, exitUsage, "unknown flag --all"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runHarness(t, "", append([]string{"schemas"}, tc.args...)...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d", code, tc.wantCode)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q does not say %q", errOut, tc.want)
			}
		})
	}
}

// checkStandalone checks that a printed schema is draft-07 and needs no
// other document: every $ref points into it.
func checkStandalone(t *testing.T, doc map[string]any) {
	t.Helper()
	if doc["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Errorf("$schema %v, want draft-07", doc["$schema"])
	}
	defs, _ := doc["definitions"].(map[string]any)
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				name, isDef := strings.CutPrefix(ref, "#/definitions/")
				switch {
				case ref == "#":
				case !isDef:
					t.Errorf("$ref %q points outside the document", ref)
				case defs[name] == nil:
					t.Errorf("$ref %q: no such definition in the document", ref)
				}
			}
			for _, sub := range x {
				walk(sub)
			}
		case []any:
			for _, sub := range x {
				walk(sub)
			}
		}
	}
	walk(doc)
}

func TestSchemasBundle(t *testing.T) {
	code, out, errOut := runHarness(t, "", "schemas", "--bundle")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want, err := schemas.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Error("harness schemas --bundle differs from schemas.Bundle()")
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	defs, _ := doc["definitions"].(map[string]any)
	if len(defs) != len(schemas.Names()) {
		t.Errorf("%d definitions, want every one of the %d", len(defs), len(schemas.Names()))
	}
	if doc["$id"] != schemas.BundleID {
		t.Errorf("$id %v, want %s", doc["$id"], schemas.BundleID)
	}
	checkStandalone(t, doc)
}
