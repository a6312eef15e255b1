package schemas

import (
	"reflect"
	"strings"
	"testing"
)

// parseSchema parses one schema document as the registry parses a
// definition.
func parseSchema(t *testing.T, doc string) (*Node, error) {
	t.Helper()
	tree, err := decodeOrdered([]byte(doc))
	if err != nil {
		t.Fatalf("decode %s: %v", doc, err)
	}
	p := &parser{file: "test.json", nodes: map[string]*Node{}}
	return p.parse(tree, "/definitions/X")
}

func TestParseSpecKeywords(t *testing.T) {
	tests := []struct {
		name       string
		doc        string
		wantFields []string
		wantHas    bool
		wantOneOf  bool
		wantErr    string
	}{
		{"fields", `{"type": "object", "x-spec-fields": ["a"], "properties": {"a": {}, "b": {}}}`, []string{"a"}, true, false, ""},
		{"no fields", `{"type": "object", "x-spec-fields": [], "properties": {"a": {}}}`, []string{}, true, false, ""},
		{"absent", `{"type": "object", "properties": {"a": {}}}`, nil, false, false, ""},
		{"oneOf", `{"type": "object", "x-spec-fields": ["a", "b"], "properties": {"a": {}, "b": {}},
			"x-spec-oneof": true, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`, []string{"a", "b"}, true, true, ""},
		{"oneOf false", `{"x-spec-oneof": false, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`, nil, false, false, ""},
		{"fields not an array", `{"x-spec-fields": "a"}`, nil, false, false, "expected an array of strings"},
		{"field not a string", `{"x-spec-fields": ["a", 1]}`, nil, false, false, "expected an array of strings"},
		{"field twice", `{"x-spec-fields": ["a", "a"]}`, nil, false, false, `"a" is listed twice`},
		{"oneof not a boolean", `{"x-spec-oneof": "yes", "oneOf": [{}]}`, nil, false, false, "x-spec-oneof must be a boolean"},
		{"oneof without oneOf", `{"x-spec-oneof": true}`, nil, false, false, "x-spec-oneof without a oneOf"},
		{"misspelt keyword", `{"x-spec-field": ["a"]}`, nil, false, false, `unknown keyword "x-spec-field"`},
		{"types", `{"x-spec-fields": ["a"], "x-spec-types": {"a": "uint64"}, "properties": {"a": {}}}`, []string{"a"}, true, false, ""},
		{"types not an object", `{"x-spec-fields": ["a"], "x-spec-types": ["a"]}`, nil, false, false, "x-spec-types must be an object"},
		{"type unknown", `{"x-spec-fields": ["a"], "x-spec-types": {"a": "int16"}}`, nil, false, false, `"a" has type int16`},
		{"type not a string", `{"x-spec-fields": ["a"], "x-spec-types": {"a": 64}}`, nil, false, false, `"a" has type 64`},
		{"type of a field the spec does not show", `{"x-spec-fields": ["a"], "x-spec-types": {"b": "string"}}`, nil, false, false, `x-spec-types names "b"`},
		{"type without x-spec-fields", `{"x-spec-types": {"b": "string"}}`, nil, false, false, `x-spec-types names "b"`},
		{"pattern", `{"type": "string", "pattern": "^a$", "x-spec-pattern": ""}`, nil, false, false, ""},
		{"pattern not a string", `{"pattern": "^a$", "x-spec-pattern": false}`, nil, false, false, "x-spec-pattern must be a string"},
		{"pattern without a pattern", `{"type": "string", "x-spec-pattern": "^a$"}`, nil, false, false, "x-spec-pattern without a pattern"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := parseSchema(t, tc.doc)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(n.SpecFields, tc.wantFields) || n.HasSpecFields != tc.wantHas || n.SpecOneOf != tc.wantOneOf {
				t.Errorf("SpecFields %#v HasSpecFields %v SpecOneOf %v, want %#v %v %v",
					n.SpecFields, n.HasSpecFields, n.SpecOneOf, tc.wantFields, tc.wantHas, tc.wantOneOf)
			}
		})
	}
}

// TestEscapePointer: a JSON pointer token escapes "~" before "/" (RFC 6901),
// and a token with neither is itself.
func TestEscapePointer(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "marketId": "marketId", "a/b": "a~1b", "a~b": "a~0b", "~/": "~0~1", "/~1": "~1~01", "é/é": "é~1é",
	} {
		if got := escapePointer(in); got != want {
			t.Errorf("escapePointer(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseSpecTypesAndPattern: the parsed values of x-spec-types and
// x-spec-pattern.
func TestParseSpecTypesAndPattern(t *testing.T) {
	n, err := parseSchema(t, `{"type": "object", "x-spec-fields": ["a", "b"], "x-spec-types": {"a": "uint64", "b": "string"},
		"properties": {"a": {}, "b": {"type": "string", "pattern": "^x$", "x-spec-pattern": "^[xX]$"}, "c": {"pattern": "^y$", "x-spec-pattern": ""}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "uint64", "b": "string"}; !reflect.DeepEqual(n.SpecTypes, want) {
		t.Errorf("SpecTypes %v, want %v", n.SpecTypes, want)
	}
	if b := n.Property("b"); !b.HasSpecPattern || b.SpecPattern != "^[xX]$" {
		t.Errorf("b: HasSpecPattern %v SpecPattern %q", b.HasSpecPattern, b.SpecPattern)
	}
	if c := n.Property("c"); !c.HasSpecPattern || c.SpecPattern != "" {
		t.Errorf("c: HasSpecPattern %v SpecPattern %q", c.HasSpecPattern, c.SpecPattern)
	}
	if a := n.Property("a"); a.HasSpecPattern || a.SpecTypes != nil {
		t.Errorf("a: HasSpecPattern %v SpecTypes %v, want neither", a.HasSpecPattern, a.SpecTypes)
	}
}
