package schemas_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"github.com/chaindata/harness/schemas"
)

// bundleCases returns, by definition, the documents the schema tests know
// the verdict of: every palette value and every example.
func bundleCases(t *testing.T) map[string][][]byte {
	t.Helper()
	out := map[string][][]byte{}
	for _, row := range palette {
		for _, v := range append(append([]string(nil), row.valid...), row.invalid...) {
			out[row.name] = append(out[row.name], []byte(v))
		}
	}
	for _, ex := range examples(t) {
		out[ex.def] = append(out[ex.def], ex.raw)
	}
	return out
}

// TestStandaloneSchemasNeedNoOtherFile compiles every definition's
// standalone schema alone, with no schema file loaded beside it, and
// checks that it gives the harness validator's verdict on every palette
// value and example.
func TestStandaloneSchemasNeedNoOtherFile(t *testing.T) {
	if testing.Short() {
		t.Skip("validates every case against every standalone schema; make test runs it without the race detector")
	}
	cases := bundleCases(t)
	checked := 0
	for _, name := range schemas.Names() {
		data, err := schemas.Standalone(name)
		if err != nil {
			t.Fatalf("Standalone(%s): %v", name, err)
		}
		again, _ := schemas.Standalone(name)
		if !bytes.Equal(data, again) {
			t.Errorf("%s: two calls gave different documents", name)
		}
		compiled, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(data))
		if err != nil {
			t.Errorf("%s: the standalone schema does not compile alone: %v", name, err)
			continue
		}
		for _, doc := range cases[name] {
			checked++
			sameVerdict(t, name, "standalone", compiled, doc)
		}
	}
	if checked < 500 {
		t.Errorf("only %d documents checked", checked)
	}
	if _, err := schemas.Standalone("Transactions"); err == nil {
		t.Error("Standalone of an unknown name: no error")
	}
}

// bundleSample are the definitions TestBundleHoldsEveryDefinition compiles
// from the bundle: the documents the API returns, and a few with oneOfs,
// rules between fields and formats. (Each compilation loads the whole
// bundle; the standalone schemas, made by the same rewriting, are checked
// for every definition above, and make check-export checks the bundle for
// every definition in ajv and Python's jsonschema.)
var bundleSample = append(append([]string(nil), rootDefinitions...),
	"Transaction", "Command", "OrderSubmission", "Game", "OptionalUrl", "Timestamp", "MarginModeUpdate")

// TestBundleHoldsEveryDefinition checks that the bundle holds every
// definition, compiles it alone, and checks a sample of definitions in it,
// by its $id and pointer, against the harness validator's verdicts.
func TestBundleHoldsEveryDefinition(t *testing.T) {
	data, err := schemas.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := schemas.Bundle(); !bytes.Equal(data, again) {
		t.Error("two calls gave different documents")
	}
	var doc struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range schemas.Names() {
		if doc.Definitions[name] == nil {
			t.Errorf("the bundle lacks %s", name)
		}
	}
	cases := bundleCases(t)
	checked := 0
	for _, name := range bundleSample {
		docs := cases[name]
		l := gojsonschema.NewSchemaLoader()
		l.Draft = gojsonschema.Draft7
		if err := l.AddSchemas(gojsonschema.NewBytesLoader(data)); err != nil {
			t.Fatalf("load the bundle: %v", err)
		}
		compiled, err := l.Compile(gojsonschema.NewStringLoader(`{"$ref": "` + schemas.BundleID + `#/definitions/` + name + `"}`))
		if err != nil {
			t.Errorf("%s: does not compile from the bundle: %v", name, err)
			continue
		}
		for _, doc := range docs {
			checked++
			sameVerdict(t, name, "bundle", compiled, doc)
		}
	}
	if checked < 50 {
		t.Errorf("only %d documents checked", checked)
	}
}

// sameVerdict fails the test when compiled and the harness validator
// disagree on doc.
func sameVerdict(t *testing.T, name, label string, compiled *gojsonschema.Schema, doc []byte) {
	t.Helper()
	res, err := compiled.Validate(gojsonschema.NewBytesLoader(doc))
	if err != nil {
		t.Errorf("%s (%s): %s: %v", name, label, doc, err)
		return
	}
	want := schemas.Validate(name, schemas.Reference, doc) == nil
	if res.Valid() != want {
		t.Errorf("%s (%s): %.100s: valid = %v, harness validator: %v", name, label, doc, res.Valid(), want)
	}
}
