package schemas

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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
		{"x-spec-pattern takes the pattern's place",
			`{"type": "string", "pattern": "^[0-9a-f]{2}$", "x-spec-pattern": "^[0-9a-fA-F]*$", "format": "hex"}`,
			`{"type": "string", "pattern": "^[0-9a-fA-F]*$", "x-spec-pattern": "^[0-9a-fA-F]*$", "format": "hex"}`},
		{"an empty x-spec-pattern drops the pattern",
			`{"type": "string", "pattern": "^[0-9a-f]{64}$", "x-spec-pattern": "", "minLength": 1}`,
			`{"type": "string", "x-spec-pattern": "", "minLength": 1}`},
		{"x-spec-types replaces a field's schema by its spec type",
			`{"x-spec-fields": ["s", "i", "d", "k"], "x-spec-types": {"s": "string", "i": "int32", "d": "double"},
				"properties": {"s": {"$ref": "#/definitions/Hex"}, "i": {"type": "integer", "minimum": 1}, "d": {"type": "number", "minimum": 0}, "k": {"pattern": "^a$"}}}`,
			`{"x-spec-fields": ["s", "i", "d", "k"], "x-spec-types": {"s": "string", "i": "int32", "d": "double"},
				"properties": {"s": {"description": "A string (the spec's type).", "type": "string"},
				"i": {"description": "A JSON integer within int32 (the spec's type).", "type": "integer", "minimum": -2147483648, "maximum": 2147483647},
				"d": {"description": "A JSON number (the spec's double).", "type": "number"}, "k": {"pattern": "^a$"}}}`},
		{"a rule reads a field the spec types int64 in both encodings",
			`{"x-spec-fields": ["n", "m"], "x-spec-types": {"n": "int64"}, "properties": {"n": {}, "m": {}}, "allOf": [
				{"if": {"required": ["n"], "properties": {"n": {"not": {"const": "0"}}, "m": {"const": "7"}}}, "then": {"properties": {"n": {"enum": ["1", "x"]}}}}]}`,
			`{"x-spec-fields": ["n", "m"], "x-spec-types": {"n": "int64"}, "properties": {"n": NSCHEMA, "m": {}}, "allOf": [
				{"if": {"required": ["n"], "properties": {"n": {"not": {"enum": ["0", 0]}}, "m": {"const": "7"}}}, "then": {"properties": {"n": {"enum": ["1", 1, "x"]}}}}]}`},
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
			if want := canonical(t, strings.ReplaceAll(tc.want, "NSCHEMA", render(specTypeSchema("int64")))); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if render(in) != before {
				t.Error("the derivation changed its input")
			}
		})
	}
}

// TestSpecTypeSchemas: the schema of each spec type, with the digit
// patterns of the Uint64 and Int64 definitions.
func TestSpecTypeSchemas(t *testing.T) {
	reg := mustRegistry()
	for _, tc := range []struct{ typ, types, pattern, min, max string }{
		{"string", `"string"`, "", "", ""},
		{"double", `"number"`, "", "", ""},
		{"int32", `"integer"`, "", "-2147483648", "2147483647"},
		{"int64", `["string","integer"]`, reg.defs["Int64"].Pattern, "-9223372036854775808", "9223372036854775807"},
		{"uint64", `["string","integer"]`, reg.defs["Uint64"].Pattern, "0", "18446744073709551615"},
	} {
		s := specTypeSchema(tc.typ)
		if got := render(s.vals["type"]); got != tc.types {
			t.Errorf("%s: type %s, want %s", tc.typ, got, tc.types)
		}
		if got, _ := s.vals["pattern"].(string); got != tc.pattern {
			t.Errorf("%s: pattern %q, want %q", tc.typ, got, tc.pattern)
		}
		for k, want := range map[string]string{"minimum": tc.min, "maximum": tc.max} {
			if got := fmtNumber(s.vals[k]); got != want {
				t.Errorf("%s: %s %q, want %q", tc.typ, k, got, want)
			}
		}
		if d, _ := s.vals["description"].(string); !strings.Contains(d, tc.typ) && tc.typ != "string" {
			t.Errorf("%s: description %q does not name the type", tc.typ, d)
		}
	}
	if reg.defs["Uint64"].Pattern == "" || reg.defs["Int64"].Pattern == "" {
		t.Fatal("the digit patterns are empty")
	}
}

// fmtNumber writes a JSON number value, or "" for none.
func fmtNumber(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return ""
}

// TestDigitNumber: only strings of decimal digits, with a leading minus
// at most, stand for a number.
func TestDigitNumber(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
		ok   bool
	}{
		{"0", "0", true}, {"-7", "-7", true}, {"123", "123", true}, {"9", "9", true}, {"-90", "-90", true},
		{"", "", false}, {"-", "", false}, {"1.5", "", false}, {"1-", "", false}, {"x1", "", false}, {"1:", "", false}, {"/", "", false}, {7, "", false},
	} {
		got, ok := digitNumber(tc.in)
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("digitNumber(%#v) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
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
	objects, patterns, typed := 0, 0, 0
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
				if sp, ok := x.vals["x-spec-pattern"].(string); ok {
					patterns++
					if got, _ := x.vals["pattern"].(string); got != sp {
						t.Errorf("%s#%s: pattern %q, want the spec's %q", name, at, got, sp)
					}
				}
				if types, ok := x.vals["x-spec-types"].(*orderedObject); ok {
					props := x.vals["properties"].(*orderedObject)
					for _, field := range types.keys {
						typed++
						if got, want := render(props.vals[field]), render(specTypeSchema(types.vals[field].(string))); got != want {
							t.Errorf("%s#%s: property %s is %s, want %s", name, at, field, got, want)
						}
					}
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
	if objects < 100 || patterns < 30 || typed < 49 {
		t.Errorf("only %d annotated objects, %d spec patterns and %d spec types found in the derived files", objects, patterns, typed)
	}
	// The parsed definitions keep their reference meaning.
	if tx := reg.defs["Transaction"]; len(tx.Required) != 12 || tx.AdditionalProperties || len(tx.AllOf) != 12 {
		t.Errorf("Transaction node changed: required %v, additionalProperties %v, %d rules", tx.Required, tx.AdditionalProperties, len(tx.AllOf))
	}
	if got := reg.defs["Command"].SpecFields; !reflect.DeepEqual(got, []string{"amendAmm", "announceNode", "applyReferralCode", "batchMarketInstructions", "batchProposalSubmission"}) {
		t.Errorf("Command SpecFields %v", got)
	}
}
