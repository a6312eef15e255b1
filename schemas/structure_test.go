package schemas_test

import (
	"encoding/json"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// schemaFiles are the files schemas/README.md lists.
var schemaFiles = []string{
	"commands.json", "common.json", "datasources.json", "enums.json", "games.json", "governance.json",
	"keyrotations.json", "markets.json", "networkparameters.json", "orders.json", "snapshots.json",
	"transactions.json",
}

// rootDefinitions are the documents the API returns, and the generic palette entries
// kept for callers that validate a bare value: every definition must be
// reachable from one of them.
var rootDefinitions = []string{
	"ListGamesResponse", "ListCoreSnapshotsResponse", "ListEthereumKeyRotationsResponse",
	"ListNetworkParametersResponse", "ListTransactionsResponse", "Error",
	"Uint64", "Int64", "Decimal",
}

func TestAllSchemasCompile(t *testing.T) {
	if err := schemas.Check(); err != nil {
		t.Fatal(err)
	}
	for _, name := range schemas.Names() {
		if _, err := schemas.Load(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSchemaFiles(t *testing.T) {
	if got := schemas.Files(); !reflect.DeepEqual(got, schemaFiles) {
		t.Fatalf("files %v, want %v", got, schemaFiles)
	}
	embedded, err := fs.Glob(schemas.FS(), "*.json")
	if err != nil || !reflect.DeepEqual(embedded, schemaFiles) {
		t.Fatalf("embedded files %v (%v), want %v", embedded, err, schemaFiles)
	}
	for _, name := range schemaFiles {
		t.Run(name, func(t *testing.T) {
			data, err := schemas.File(name)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Schema      string                     `json:"$schema"`
				ID          string                     `json:"$id"`
				Title       string                     `json:"title"`
				Definitions map[string]json.RawMessage `json:"definitions"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.ID != schemas.BaseURL+name {
				t.Errorf("$id %q, want %q", doc.ID, schemas.BaseURL+name)
			}
			if doc.Schema != "http://json-schema.org/draft-07/schema#" {
				t.Errorf("$schema %q, want draft-07", doc.Schema)
			}
			if doc.Title == "" || len(doc.Definitions) == 0 {
				t.Errorf("a file needs a title and definitions")
			}
			for def := range doc.Definitions {
				if file, err := schemas.FileOf(def); err != nil || file != name {
					t.Errorf("definition %s: FileOf = %q, %v", def, file, err)
				}
			}
		})
	}
	if _, err := schemas.File("nope.json"); err == nil {
		t.Error("File(nope.json) succeeded")
	}
}

// allNodes returns every node under the definitions, each once, without
// following references.
func allNodes() []*schemas.Node { return nodesUnder(true) }

// shapeNodes is allNodes without the conditions of rules (if, then, else,
// not), which test values rather than describe them.
func shapeNodes() []*schemas.Node { return nodesUnder(false) }

func nodesUnder(conditions bool) []*schemas.Node {
	var out []*schemas.Node
	seen := map[*schemas.Node]bool{}
	var walk func(n *schemas.Node)
	walk = func(n *schemas.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, n)
		for _, p := range n.Properties {
			walk(p.Schema)
		}
		for _, list := range [][]*schemas.Node{n.OneOf, n.AnyOf, n.AllOf} {
			for _, c := range list {
				walk(c)
			}
		}
		walk(n.Items)
		if conditions {
			for _, c := range []*schemas.Node{n.Not, n.If, n.Then, n.Else} {
				walk(c)
			}
		}
	}
	for _, name := range schemas.Names() {
		walk(schemas.MustLookup(name))
	}
	return out
}

func TestEveryReferenceResolvesToADefinition(t *testing.T) {
	refs := 0
	for _, n := range allNodes() {
		if n.RefText == "" {
			continue
		}
		refs++
		switch {
		case n.Ref == nil:
			t.Errorf("%s#%s: $ref %q is unresolved", n.File, n.Pointer, n.RefText)
		case n.Ref.Name == "":
			t.Errorf("%s#%s: $ref %q points inside a definition, not at one", n.File, n.Pointer, n.RefText)
		case !strings.HasSuffix(n.RefText, "#/definitions/"+n.Ref.Name):
			t.Errorf("%s#%s: $ref %q resolved to %s", n.File, n.Pointer, n.RefText, n.Ref.Name)
		case strings.HasPrefix(n.RefText, n.File+"#"):
			t.Errorf("%s#%s: $ref %q names its own file; write #/definitions/...", n.File, n.Pointer, n.RefText)
		case strings.Contains(n.RefText, "://"):
			t.Errorf("%s#%s: $ref %q is absolute; references between files are relative", n.File, n.Pointer, n.RefText)
		}
		// A reference stands alone: its siblings would be ignored in draft-07.
		if len(n.Types) > 0 || len(n.Properties) > 0 || len(n.Enum) > 0 || n.Pattern != "" || len(n.AllOf) > 0 {
			t.Errorf("%s#%s: $ref with sibling keywords", n.File, n.Pointer)
		}
	}
	if refs < 300 {
		t.Errorf("only %d references found", refs)
	}
}

func TestEveryDefinitionIsReachable(t *testing.T) {
	reached := map[string]bool{}
	seen := map[*schemas.Node]bool{}
	var walk func(n *schemas.Node)
	walk = func(n *schemas.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Name != "" {
			reached[n.Name] = true
		}
		walk(n.Ref)
		for _, p := range n.Properties {
			walk(p.Schema)
		}
		for _, list := range [][]*schemas.Node{n.OneOf, n.AnyOf, n.AllOf} {
			for _, c := range list {
				walk(c)
			}
		}
		for _, c := range []*schemas.Node{n.Items, n.Not, n.If, n.Then, n.Else} {
			walk(c)
		}
	}
	for _, r := range rootDefinitions {
		walk(schemas.MustLookup(r))
	}
	for _, name := range schemas.Names() {
		if !reached[name] {
			t.Errorf("%s is not reachable from %v", name, rootDefinitions)
		}
	}
}

func TestObjectsAreClosed(t *testing.T) {
	// README: every object is closed except ErrorDetail (any field beside
	// @type), ethOracle args items (any JSON value, not an object schema) and
	// Opaque.
	objects := 0
	for _, n := range shapeNodes() {
		if !n.HasType("object") {
			continue
		}
		objects++
		open := n.Name == "ErrorDetail" || n.Name == "Opaque"
		if n.AdditionalProperties != open {
			t.Errorf("%s#%s: additionalProperties is %v, want %v", n.File, n.Pointer, n.AdditionalProperties, open)
		}
	}
	if objects < 100 {
		t.Errorf("only %d object schemas found", objects)
	}
}

// TestOptionalSubObjectsAreNullable checks the README's convention: a
// sub-object that may be absent and is not a oneOf member is written
// {"anyOf": [{"$ref": X}, {"type": "null"}]}, since a real gateway writes null
// for it; a oneOf member or a required sub-object is a plain reference.
func TestOptionalSubObjectsAreNullable(t *testing.T) {
	for _, name := range objectDefinitions(t) {
		n := schemas.MustLookup(name).Resolve()
		group := map[string]bool{}
		for _, m := range n.ExclusiveGroup() {
			group[m] = true
		}
		for _, p := range n.Properties {
			target := p.Schema.NullableTarget()
			inner := p.Schema
			if target != nil {
				inner = target
			}
			r := inner.Resolve()
			if !r.HasType("object") {
				if target != nil {
					t.Errorf("%s.%s: only sub-objects are nullable", name, p.Name)
				}
				continue
			}
			optional := !n.IsRequired(p.Name) && !group[p.Name]
			switch {
			case optional && target == nil:
				t.Errorf("%s.%s: an optional sub-object must also accept null", name, p.Name)
			case !optional && target != nil:
				t.Errorf("%s.%s: a required or oneOf sub-object must not accept null", name, p.Name)
			case target != nil && (inner.Ref == nil || len(p.Schema.AnyOf) != 2):
				t.Errorf("%s.%s: write {\"anyOf\": [{\"$ref\": X}, {\"type\": \"null\"}]}", name, p.Name)
			}
		}
	}
}

// TestRecordsUseStrictScalars checks the README's rule that records (games,
// snapshots, rotations, parameters, the transaction envelope) never take the
// Optional... palette entries, which accept "".
func TestRecordsUseStrictScalars(t *testing.T) {
	records := []string{
		"Game", "IndividualEntry", "TeamEntry", "TeamParticipation", "IndividualEntities", "TeamEntities",
		"GameEdge", "CoreSnapshot", "CoreSnapshotEdge", "EthereumKeyRotation", "EthereumKeyRotationEdge",
		"NetworkParameter", "NetworkParameterEdge", "Transaction", "ProofOfWork", "PageInfo", "Error",
	}
	for _, name := range records {
		for _, p := range schemas.MustLookup(name).Resolve().Properties {
			if r := p.Schema.Ref; r != nil && strings.HasPrefix(r.Name, "Optional") {
				t.Errorf("%s.%s uses %s", name, p.Name, r.Name)
			}
		}
	}
}

// TestCrossFieldRulesAreIfThen checks the shape the README gives rules
// between fields: allOf entries of if/then whose conditions only use
// required, properties, not, const, enum, minLength, minItems and type (and
// the transaction's error rule, which needs an else), or keyed by a group
// member, if/else (the transaction's type per command kind).
func TestCrossFieldRulesAreIfThen(t *testing.T) {
	rules := map[string]int{}
	for _, name := range objectDefinitions(t) {
		n := schemas.MustLookup(name).Resolve()
		for _, r := range n.AllOf {
			if _, _, _, keyed := r.KeyedRule(); keyed {
				rules[name]++ // if/else keyed by a group member
				continue
			}
			if r.If == nil || r.Then == nil {
				t.Errorf("%s: allOf entry without if/then", name)
				continue
			}
			rules[name]++
		}
		if n.If != nil {
			t.Errorf("%s: if/then outside allOf", name)
		}
	}
	want := map[string]int{
		"OrderSubmission": 4, "OrderAmendment": 1, "OrderCancellation": 1, "StopOrderCancellation": 1,
		"DispatchStrategy": 2, "Transaction": 12,
	}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("rules per definition %v, want %v: each rule needs a case in rules_test.go", rules, want)
	}
}
