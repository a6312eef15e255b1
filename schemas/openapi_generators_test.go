package schemas_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chaindata/harness/schemas"
)

// What client generators need of the export, checked without running them
// (clients_test.go runs them).

// exportTree returns the exported document as plain JSON values.
func exportTree(t *testing.T) map[string]any {
	t.Helper()
	data, err := schemas.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	return tree
}

// visitSchemas calls visit for every object of the document outside x-
// extensions, with its path.
func visitSchemas(v any, path string, visit func(path string, obj map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		visit(path, x)
		for k, sub := range x {
			if !strings.HasPrefix(k, "x-") {
				visitSchemas(sub, path+"/"+k, visit)
			}
		}
	case []any:
		for i, sub := range x {
			visitSchemas(sub, path+"/"+strconv.Itoa(i), visit)
		}
	}
}

// TestOpenAPIHasNoKeywordGeneratorsRefuse checks the constructs that made
// generators fail: ogen implements neither oneOf nor anyOf over required
// properties or string alternatives, so neither keyword is left outside the
// extensions; and open objects say additionalProperties true, without
// which generated structs drop the members they do not name.
func TestOpenAPIHasNoKeywordGeneratorsRefuse(t *testing.T) {
	tree := exportTree(t)
	open := 0
	visitSchemas(tree, "", func(path string, obj map[string]any) {
		for _, k := range []string{"oneOf", "anyOf"} {
			if _, ok := obj[k]; ok {
				t.Errorf("%s: %s outside an extension", path, k)
			}
		}
		// The nullable wrapper {type, nullable, allOf: [$ref]} takes the
		// referenced schema's.
		if obj["type"] == "object" && obj["additionalProperties"] == nil && obj["allOf"] == nil {
			t.Errorf("%s: an object schema without additionalProperties", path)
		}
		if obj["additionalProperties"] == true {
			open++
		}
	})
	// Opaque, ErrorDetail.
	if open < 2 {
		t.Errorf("%d open objects say additionalProperties true, want Opaque and ErrorDetail", open)
	}
}

// TestOpenAPIExtensionsCarryTheRules checks that a rule the export moves
// into x-one-of or x-any-of still holds there (put back as a keyword), and
// that the harness validator, which reads the draft-07 files, enforces it.
func TestOpenAPIExtensionsCarryTheRules(t *testing.T) {
	doc := loadOpenAPIRules(t)
	plain := loadOpenAPI(t)
	tests := []struct {
		name   string
		schema string
		doc    string
		valid  bool
	}{
		{"a command of one kind", "Command", `{"nonce": "1", "blockHeight": "2", "joinTeam": {}}`, true},
		{"a command of two kinds", "Command", `{"nonce": "1", "blockHeight": "2", "joinTeam": {}, "nodeVote": {}}`, false},
		{"a command of no kind", "Command", `{"nonce": "1", "blockHeight": "2"}`, false},
		{"a signer with one key", "Signer", `{"pubKey": {"key": "` + hex64 + `"}}`, true},
		{"a signer with both keys", "Signer", `{"pubKey": {"key": "` + hex64 + `"}, "ethAddress": {"address": "0xdAC17F958D2ee523a2206206994597C13D831ec7"}}`, false},
		{"an empty country code", "OptionalCountryCode", `""`, true},
		{"a country code", "OptionalCountryCode", `"DE"`, true},
		{"a lowercase country code", "OptionalCountryCode", `"de"`, false},
		{"an empty URL", "OptionalUrl", `""`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.doc), &v); err != nil {
				t.Fatal(err)
			}
			err := doc.Components.Schemas[tc.schema].Value.VisitJSON(v, openapi3.MultiErrors())
			if (err == nil) != tc.valid {
				t.Errorf("with the extensions as keywords: valid = %v, want %v (%v)", err == nil, tc.valid, err)
			}
			if err := schemas.Validate(tc.schema, schemas.Reference, []byte(tc.doc)); (err == nil) != tc.valid {
				t.Errorf("harness validator: valid = %v, want %v (%v)", err == nil, tc.valid, err)
			}
			if !tc.valid {
				return
			}
			if err := plain.Components.Schemas[tc.schema].Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
				t.Errorf("the exported document rejects it: %v", err)
			}
		})
	}
	// Every exactly-one-of group of the draft-07 files is in an x-one-of.
	groups := 0
	for _, name := range schemas.Names() {
		n := schemas.MustLookup(name)
		if n.ExclusiveGroup() == nil {
			continue
		}
		groups++
		s, ok := plain.Components.Schemas[name]
		if !ok {
			t.Errorf("%s: not a component", name)
			continue
		}
		list, _ := s.Value.Extensions["x-one-of"].([]any)
		group := n.ExclusiveGroup()
		if len(list) != len(group) {
			t.Errorf("%s: x-one-of has %d branches, want the %d of its group", name, len(list), len(group))
			continue
		}
		// One {"required": [member]} per member, in order, whether the
		// group is written as a oneOf or keyed.
		for i, b := range list {
			req, _ := b.(map[string]any)["required"].([]any)
			if len(req) != 1 || req[0] != group[i] {
				t.Errorf("%s: x-one-of branch %d is %v, want required [%s]", name, i, b, group[i])
			}
		}
	}
	if groups < 15 {
		t.Errorf("only %d exactly-one-of groups found", groups)
	}
}

// generatedNames returns the names of the types client generators make for
// an operation with the given ID beside the component types: oapi-codegen's
// (ListXResponse was one) and ogen's.
func generatedNames(operationID string) []string {
	op := strings.ToUpper(operationID[:1]) + operationID[1:]
	return []string{
		// oapi-codegen: the parameters, the response wrapper, the request
		// builder.
		op + "Params", op + "Response", "New" + op + "Request", "Parse" + op + "Response",
		// ogen: the parameters, the answer interface and the types of its
		// status codes.
		op + "Res", op + "OK", op + "InternalServerError", op + "Default", op + "DefaultStatusCode",
	}
}

func TestOpenAPIGeneratedNamesDoNotCollide(t *testing.T) {
	doc := loadOpenAPI(t)
	taken := map[string]string{}
	for name := range doc.Components.Schemas {
		taken[name] = "component schema"
	}
	for name := range doc.Components.Parameters {
		taken[strings.ToUpper(name[:1])+name[1:]] = "component parameter"
	}
	for name := range doc.Components.Responses {
		taken[name] = "component response"
	}
	ops := 0
	for path, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ops++
			if op.OperationID == "" {
				t.Errorf("%s: no operationId", path)
				continue
			}
			for _, g := range generatedNames(op.OperationID) {
				if what, ok := taken[g]; ok {
					t.Errorf("%s (%s): generators make a type %s, which is also a %s", path, op.OperationID, g, what)
				}
			}
			// ogen wraps a body with response headers in <schema>Headers.
			ref := op.Responses.Status(200).Value.Content.Get("application/json").Schema.Ref
			name := ref[strings.LastIndex(ref, "/")+1:]
			if what, ok := taken[name+"Headers"]; ok {
				t.Errorf("%s: ogen makes a type %sHeaders, which is also a %s", path, name, what)
			}
		}
	}
	if ops != 5 {
		t.Errorf("%d operations, want 5", ops)
	}
}

func TestOpenAPIOperationsAreDescribed(t *testing.T) {
	doc := loadOpenAPI(t)
	want := map[string]string{
		"/api/v2/games":                        "getGames",
		"/api/v2/snapshots":                    "getCoreSnapshots",
		"/api/v2/core/keys/ethereum/rotations": "getEthereumKeyRotations",
		"/api/v2/network/parameters":           "getNetworkParameters",
		"/transactions":                        "getTransactions",
	}
	for path, id := range want {
		item := doc.Paths.Value(path)
		if item == nil || item.Get == nil {
			t.Errorf("no GET %s", path)
			continue
		}
		if item.Get.OperationID != id {
			t.Errorf("%s: operationId %q, want %q", path, item.Get.OperationID, id)
		}
		if len(item.Get.Description) < 40 || item.Get.Summary == "" {
			t.Errorf("%s: summary %q, description %q; want both", path, item.Get.Summary, item.Get.Description)
		}
	}
}

// TestOpenAPIFormats checks the string formats generators read: GoDuration
// is go-duration (duration is ISO 8601 to generators, and oapi-codegen's
// client failed to decode "5m0s"), and a format a generator decodes into a
// type that refuses some valid values moves to x-harness-format.
func TestOpenAPIFormats(t *testing.T) {
	doc := loadOpenAPI(t)
	tests := []struct {
		schema     string
		format     string // want in format
		harness    string // want in x-harness-format
		typeFormat bool   // the generated type is not a string
	}{
		{"GoDuration", "go-duration", "", false},
		{"OptionalDecimal", "", "decimal", false},          // ogen's decimal.Decimal refuses ""
		{"UnsignedUnixSeconds", "", "unix-seconds", false}, // ogen's time.Time holds int64 seconds
		{"UnixSeconds", "unix-seconds", "", true},          // int64 seconds fit
		{"Timestamp", "date-time", "", true},
		{"ResultCode", "int32", "result-code", true},
	}
	for _, tc := range tests {
		t.Run(tc.schema, func(t *testing.T) {
			s := doc.Components.Schemas[tc.schema].Value
			if s.Format != tc.format {
				t.Errorf("format %q, want %q", s.Format, tc.format)
			}
			if got, _ := s.Extensions["x-harness-format"].(string); got != tc.harness {
				t.Errorf("x-harness-format %q, want %q", got, tc.harness)
			}
			if tc.harness != "" && !tc.typeFormat {
				// The values the format's generator type refuses are valid.
				re := regexp.MustCompile(s.Pattern)
				if !re.MatchString("") && !re.MatchString("18446744073709551615") {
					t.Errorf("pattern %s accepts neither \"\" nor a uint64 beyond int64; the format need not move", s.Pattern)
				}
			}
		})
	}
	visitSchemas(exportTree(t), "", func(path string, obj map[string]any) {
		if obj["format"] == "duration" {
			t.Errorf("%s: format duration", path)
		}
	})
}
