package schemas

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestDeriveSpecRules applies the derivation to small schemas, one rule
// each.
func TestDeriveSpecRules(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"required keeps only spec fields",
			`{"type": "object", "required": ["a", "b"], "x-spec-fields": ["a"], "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}`,
			`{"type": "object", "required": ["a"], "x-spec-fields": ["a"], "properties": {"a": {"type": "string"}, "b": {}}}`},
		{"no spec field required: required goes",
			`{"type": "object", "required": ["b"], "x-spec-fields": [], "properties": {"b": {"$ref": "#/definitions/B"}}}`,
			`{"type": "object", "x-spec-fields": [], "properties": {"b": {}}}`},
		{"closed objects open",
			`{"type": "object", "additionalProperties": false, "x-spec-fields": ["a"], "properties": {"a": {"type": "object", "additionalProperties": false}}}`,
			`{"type": "object", "x-spec-fields": ["a"], "properties": {"a": {"type": "object"}}}`},
		{"open objects stay open",
			`{"type": "object", "additionalProperties": true}`,
			`{"type": "object", "additionalProperties": true}`},
		{"our oneOf goes",
			`{"x-spec-fields": ["a", "b"], "properties": {"a": {}, "b": {}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`,
			`{"x-spec-fields": ["a", "b"], "properties": {"a": {}, "b": {}}}`},
		{"the spec's oneOf stays",
			`{"x-spec-fields": ["a", "b"], "properties": {"a": {}, "b": {}}, "x-spec-oneof": true, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`,
			`{"x-spec-fields": ["a", "b"], "properties": {"a": {}, "b": {}}, "x-spec-oneof": true, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`},
		{"a rule on a field the spec does not show goes",
			`{"x-spec-fields": ["code"], "properties": {"code": {}, "error": {}}, "allOf": [
				{"if": {"properties": {"code": {"const": 0}}}, "then": {"properties": {"error": {"maxLength": 0}}}},
				{"if": {"required": ["code"]}, "then": {"properties": {"code": {"minimum": 0}}}}]}`,
			`{"x-spec-fields": ["code"], "properties": {"code": {}, "error": {}}, "allOf": [
				{"if": {"required": ["code"]}, "then": {"properties": {"code": {"minimum": 0}}}}]}`},
		{"a rule that names a field inside a spec field stays",
			`{"x-spec-fields": ["command"], "properties": {"command": {}}, "allOf": [
				{"if": {"properties": {"command": {"required": ["amendAmm"]}}}, "then": {"required": ["command"]}}]}`,
			`{"x-spec-fields": ["command"], "properties": {"command": {}}, "allOf": [
				{"if": {"properties": {"command": {"required": ["amendAmm"]}}}, "then": {"required": ["command"]}}]}`},
		{"every rule gone: allOf goes",
			`{"x-spec-fields": [], "properties": {"t": {}}, "allOf": [{"if": {"required": ["t"]}, "then": {"not": {"required": ["t"]}}}]}`,
			`{"x-spec-fields": [], "properties": {"t": {}}}`},
		{"a rule hidden in not is seen",
			`{"x-spec-fields": ["a"], "properties": {"a": {}, "b": {}}, "allOf": [{"if": {"required": ["a"]}, "then": {"not": {"required": ["b"]}}}]}`,
			`{"x-spec-fields": ["a"], "properties": {"a": {}, "b": {}}}`},
		{"the node's own if/then/else go together",
			`{"x-spec-fields": ["a"], "properties": {"a": {}, "b": {}}, "if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {}}`,
			`{"x-spec-fields": ["a"], "properties": {"a": {}, "b": {}}}`},
		{"an allOf of a value is kept",
			`{"allOf": [{"$ref": "#/definitions/E"}, {"not": {"const": "X"}}]}`,
			`{"allOf": [{"$ref": "#/definitions/E"}, {"not": {"const": "X"}}]}`},
		{"nested objects and items are derived",
			`{"x-spec-fields": ["list"], "properties": {"list": {"type": "array", "items": {"type": "object", "additionalProperties": false,
				"required": ["x", "y"], "x-spec-fields": ["x"], "properties": {"x": {"pattern": "^a$"}, "y": {}}}}}}`,
			`{"x-spec-fields": ["list"], "properties": {"list": {"type": "array", "items": {"type": "object",
				"required": ["x"], "x-spec-fields": ["x"], "properties": {"x": {"pattern": "^a$"}, "y": {}}}}}}`},
		{"types, formats, patterns, enums and nullability are kept",
			`{"x-spec-fields": ["a", "b"], "properties": {"a": {"type": "string", "format": "uri", "pattern": "^h", "minLength": 1},
				"b": {"anyOf": [{"$ref": "#/definitions/B"}, {"type": "null"}]}, "c": {"enum": ["X"]}}}`,
			`{"x-spec-fields": ["a", "b"], "properties": {"a": {"type": "string", "format": "uri", "pattern": "^h", "minLength": 1},
				"b": {"anyOf": [{"$ref": "#/definitions/B"}, {"type": "null"}]}, "c": {}}}`},
		{"a schema without x-spec-fields keeps its required and properties",
			`{"required": ["a"], "properties": {"a": {"const": 1}}}`,
			`{"required": ["a"], "properties": {"a": {"const": 1}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := decodeOrdered([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			before := render(in)
			got := render(deriveSpec(in))
			if want := canonical(t, tc.want); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if render(in) != before {
				t.Error("the derivation changed its input")
			}
		})
	}
}

// render writes an ordered tree as compact JSON, keeping key order.
func render(v any) string {
	var buf bytes.Buffer
	writeOrdered(&buf, v, "")
	var out bytes.Buffer
	json.Compact(&out, buf.Bytes())
	return out.String()
}

func canonical(t *testing.T, s string) string {
	t.Helper()
	v, err := decodeOrdered([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return render(v)
}

// TestDerivedSpecFiles checks the rules on the derived files themselves:
// nothing closed, only the spec's oneOfs, required and rules only on spec
// fields, and the originals untouched.
func TestDerivedSpecFiles(t *testing.T) {
	reg := mustRegistry()
	objects := 0
	for _, name := range reg.fileNames {
		before := render(reg.trees[name])
		derived := deriveSpec(reg.trees[name])
		if render(reg.trees[name]) != before {
			t.Errorf("%s: the derivation changed the parsed file", name)
		}
		var walk func(v any, at string)
		walk = func(v any, at string) {
			switch x := v.(type) {
			case *orderedObject:
				if ap, ok := x.vals["additionalProperties"]; ok && ap == false {
					t.Errorf("%s#%s: additionalProperties false", name, at)
				}
				if _, ok := x.vals["oneOf"]; ok && x.vals["x-spec-oneof"] != true {
					t.Errorf("%s#%s: a oneOf the spec does not state", name, at)
				}
				if fields, ok := specFieldSet(x); ok {
					objects++
					req, _ := x.vals["required"].([]any)
					for _, r := range req {
						if !fields[r.(string)] {
							t.Errorf("%s#%s: requires %v, which the spec does not show", name, at, r)
						}
					}
					if props, ok := x.vals["properties"].(*orderedObject); ok {
						for _, p := range props.keys {
							if !fields[p] && render(props.vals[p]) != "{}" {
								t.Errorf("%s#%s: property %s is not the empty schema", name, at, p)
							}
						}
					}
					rules, _ := x.vals["allOf"].([]any)
					for _, r := range rules {
						if !onlySpecFields(r, fields) {
							t.Errorf("%s#%s: a rule names a field the spec does not show", name, at)
						}
					}
				}
				for _, k := range x.keys {
					walk(x.vals[k], at+"/"+escapePointer(k))
				}
			case []any:
				for _, e := range x {
					walk(e, at+"/*")
				}
			}
		}
		walk(derived, "")
		if id := derived.(*orderedObject).vals["$id"]; id != BaseURL+name {
			t.Errorf("%s: $id %v, want the file's own", name, id)
		}
	}
	if objects < 100 {
		t.Errorf("only %d annotated objects found in the derived files", objects)
	}
	// The parsed definitions keep their reference meaning.
	if tx := reg.defs["Transaction"]; len(tx.Required) != 12 || tx.AdditionalProperties || len(tx.AllOf) != 12 {
		t.Errorf("Transaction node changed: required %v, additionalProperties %v, %d rules", tx.Required, tx.AdditionalProperties, len(tx.AllOf))
	}
	if got := reg.defs["Command"].SpecFields; !reflect.DeepEqual(got, []string{"amendAmm", "announceNode", "applyReferralCode", "batchMarketInstructions", "batchProposalSubmission"}) {
		t.Errorf("Command SpecFields %v", got)
	}
}
