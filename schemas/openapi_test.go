package schemas_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
	"github.com/chaindata/harness/schemas"
)

// loadOpenAPI builds the document and loads it with kin-openapi, failing the
// test unless it loads and validates.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	data, err := schemas.OpenAPI()
	if err != nil {
		t.Fatalf("OpenAPI: %v", err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		t.Fatalf("load OpenAPI document: %v", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError()); err != nil {
		t.Fatalf("OpenAPI document does not validate: %v", err)
	}
	return doc
}

// loadOpenAPIRules loads the document with the rules the export keeps in
// extensions put back as the keywords kin-openapi enforces: x-one-of as
// oneOf, x-any-of as anyOf. (x-conditions, if/then/else, has no OpenAPI 3.0
// keyword.) It shows that the extensions still say what the draft-07
// schemas say.
func loadOpenAPIRules(t *testing.T) *openapi3.T {
	t.Helper()
	data, err := schemas.OpenAPI()
	if err != nil {
		t.Fatalf("OpenAPI: %v", err)
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	var restore func(v any)
	restore = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for ext, keyword := range map[string]string{"x-one-of": "oneOf", "x-any-of": "anyOf"} {
				if rule, ok := x[ext]; ok {
					x[keyword] = rule
					delete(x, ext)
				}
			}
			for _, sub := range x {
				restore(sub)
			}
		case []any:
			for _, sub := range x {
				restore(sub)
			}
		}
	}
	restore(tree)
	data, err = json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("load the document with its rules as keywords: %v", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError()); err != nil {
		t.Fatalf("the document with its rules as keywords does not validate: %v", err)
	}
	return doc
}

// unusedDefinitions are the palette's generic entries no listing uses, kept
// for validating a bare value, and the definitions only an x- extension
// refers to (Url and CountryCode, in the x-any-of of OptionalUrl and
// OptionalCountryCode), which the extension holds a copy of; an OpenAPI
// document lists only what its operations use.
var unusedDefinitions = map[string]bool{"Uint64": true, "Int64": true, "Decimal": true, "Url": true, "CountryCode": true}

func TestOpenAPIValidates(t *testing.T) {
	doc := loadOpenAPI(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.0.") {
		t.Errorf("openapi = %q, want 3.0.x", doc.OpenAPI)
	}
	// Every definition the listings use is a component, and every
	// component resolved.
	for _, name := range schemas.Names() {
		ref, ok := doc.Components.Schemas[name]
		if unusedDefinitions[name] {
			if ok {
				t.Errorf("component schema %s: no operation uses it", name)
			}
			continue
		}
		if !ok {
			t.Errorf("component schema %s missing", name)
			continue
		}
		if ref.Value == nil {
			t.Errorf("component schema %s did not resolve", name)
		}
	}
	if got, want := len(doc.Components.Schemas), len(schemas.Names())-len(unusedDefinitions); got != want {
		t.Errorf("%d component schemas, want %d", got, want)
	}
	if doc.Info.Contact == nil || doc.Info.Contact.URL == "" {
		t.Error("info has no contact")
	}
	// The output is stable: the same bytes every time.
	a, _ := schemas.OpenAPI()
	b, _ := schemas.OpenAPI()
	if string(a) != string(b) {
		t.Error("two calls gave different documents")
	}
	if !json.Valid(a) {
		t.Error("document is not valid JSON")
	}
}

// param describes what a query parameter must look like.
type param struct {
	name    string
	typ     string // schema type
	format  string // schema format, "" for any
	items   string // item type of an array
	enumOf  string // the definition whose enum the parameter takes
	explode bool   // repeated: style form, explode true
}

var pagParams = []param{
	{name: "pagination.first", typ: "integer", format: "int32"},
	{name: "pagination.after", typ: "string"},
	{name: "pagination.last", typ: "integer", format: "int32"},
	{name: "pagination.before", typ: "string"},
	{name: "pagination.newestFirst", typ: "boolean"},
}

func TestOpenAPIPaths(t *testing.T) {
	doc := loadOpenAPI(t)
	tests := []struct {
		path     string
		response string
		params   []param
	}{
		{"/api/v2/games", "ListGamesResponse", append([]param{
			{name: "gameId", typ: "string"},
			{name: "epochFrom", typ: "string", format: "uint64"},
			{name: "epochTo", typ: "string", format: "uint64"},
			{name: "entityScope", typ: "string", enumOf: "EntityScope"},
			{name: "teamId", typ: "string"},
			{name: "partyId", typ: "string"},
		}, pagParams...)},
		{"/api/v2/snapshots", "ListCoreSnapshotsResponse", pagParams},
		{"/api/v2/core/keys/ethereum/rotations", "ListEthereumKeyRotationsResponse", append([]param{{name: "nodeId", typ: "string"}}, pagParams...)},
		{"/api/v2/network/parameters", "ListNetworkParametersResponse", pagParams},
		{"/transactions", "ListTransactionsResponse", []param{
			{name: "first", typ: "integer", format: "int64"},
			{name: "last", typ: "integer", format: "int64"},
			{name: "before", typ: "string"},
			{name: "after", typ: "string"},
			{name: "cmdTypes", typ: "array", items: "string", explode: true},
			{name: "excludeCmdTypes", typ: "array", items: "string", explode: true},
			{name: "parties", typ: "array", items: "string", explode: true},
		}},
	}
	if got := doc.Paths.Len(); got != len(tests) {
		t.Errorf("%d paths, want %d: %v", got, len(tests), doc.Paths.InMatchingOrder())
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			item := doc.Paths.Value(tc.path)
			if item == nil || item.Get == nil {
				t.Fatalf("no GET %s", tc.path)
			}
			op := item.Get
			if len(item.Operations()) != 1 {
				t.Errorf("operations %v, want GET only", item.Operations())
			}
			if got := len(op.Parameters); got != len(tc.params) {
				t.Errorf("%d parameters, want %d", got, len(tc.params))
			}
			for _, want := range tc.params {
				p := op.Parameters.GetByInAndName("query", want.name)
				if p == nil {
					t.Errorf("no query parameter %s", want.name)
					continue
				}
				checkParam(t, p, want)
			}
			checkResponses(t, op, tc.response)
		})
	}
}

func checkParam(t *testing.T, p *openapi3.Parameter, want param) {
	t.Helper()
	if p.Required {
		t.Errorf("%s: required, want optional", want.name)
	}
	s := p.Schema.Value
	if !s.Type.Is(want.typ) {
		t.Errorf("%s: type %v, want %s", want.name, s.Type, want.typ)
	}
	if want.format != "" && s.Format != want.format {
		t.Errorf("%s: format %q, want %q", want.name, s.Format, want.format)
	}
	if want.items != "" && (s.Items == nil || !s.Items.Value.Type.Is(want.items)) {
		t.Errorf("%s: items %v, want %s", want.name, s.Items, want.items)
	}
	if want.explode && (p.Style != "form" || p.Explode == nil || !*p.Explode) {
		t.Errorf("%s: style %q explode %v, want form and true", want.name, p.Style, p.Explode)
	}
	if want.enumOf != "" {
		def := schemas.MustLookup(want.enumOf)
		if len(s.Enum) != len(def.Enum) {
			t.Fatalf("%s: enum %v, want %v", want.name, s.Enum, def.Enum)
		}
		for i := range def.Enum {
			if s.Enum[i] != def.Enum[i] {
				t.Errorf("%s: enum %v, want %v", want.name, s.Enum, def.Enum)
				break
			}
		}
	}
}

func checkResponses(t *testing.T, op *openapi3.Operation, response string) {
	t.Helper()
	for _, c := range []struct {
		status string
		schema string
	}{{"200", response}, {"400", "Error"}, {"500", "Error"}, {"default", "Error"}} {
		r := op.Responses.Value(c.status)
		if r == nil || r.Value == nil {
			t.Errorf("no %s response", c.status)
			continue
		}
		mt := r.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil {
			t.Errorf("%s response has no application/json schema", c.status)
			continue
		}
		if want := "#/components/schemas/" + c.schema; mt.Schema.Ref != want {
			t.Errorf("%s response schema %q, want %q", c.status, mt.Schema.Ref, want)
		}
		if mt.Schema.Value == nil {
			t.Errorf("%s response schema did not resolve", c.status)
		}
	}
}

// TestOpenAPIAcceptsMockBodies checks that the converted schemas still say
// what the draft-07 ones say: the mock's bodies pass, defective ones fail.
func TestOpenAPIAcceptsMockBodies(t *testing.T) {
	plain, doc := loadOpenAPI(t), loadOpenAPIRules(t)
	w, err := world.Generate(world.Options{Seed: 3, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mockserver.New(mockserver.Config{}, st))
	defer srv.Close()

	tests := []struct {
		name   string
		path   string
		query  string
		status int
		breakf func(map[string]any) // makes the body invalid; nil keeps it
	}{
		{"games", "/api/v2/games", "pagination.first=20", 200, nil},
		{"snapshots", "/api/v2/snapshots", "pagination.first=20", 200, nil},
		{"rotations", "/api/v2/core/keys/ethereum/rotations", "pagination.first=20", 200, nil},
		{"parameters", "/api/v2/network/parameters", "", 200, nil},
		{"transactions", "/transactions", "first=200", 200, nil},
		{"error body", "/api/v2/snapshots", "pagination.first=0", 400, nil},
		{"missing pageInfo", "/api/v2/snapshots", "pagination.first=5", 200, func(b map[string]any) {
			delete(b["coreSnapshots"].(map[string]any), "pageInfo")
		}},
		{"extra field in a node", "/api/v2/network/parameters", "pagination.first=5", 200, func(b map[string]any) {
			edges := b["networkParameters"].(map[string]any)["edges"].([]any)
			edges[0].(map[string]any)["node"].(map[string]any)["unexpected"] = "x"
		}},
		{"transaction with two commands", "/transactions", "first=1", 200, func(b map[string]any) {
			tx := b["transactions"].([]any)[0].(map[string]any)
			tx["command"].(map[string]any)["joinTeam"] = map[string]any{}
			tx["command"].(map[string]any)["nodeVote"] = map[string]any{}
		}},
		{"error without message", "/api/v2/snapshots", "pagination.first=0", 400, func(b map[string]any) {
			delete(b, "message")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + tc.path + "?" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, data)
			}
			var body map[string]any
			if err := json.Unmarshal(data, &body); err != nil {
				t.Fatal(err)
			}
			if tc.breakf != nil {
				tc.breakf(body)
			}
			op := doc.Paths.Value(tc.path).Get
			r := op.Responses.Status(tc.status)
			if r == nil {
				r = op.Responses.Default()
			}
			schema := r.Value.Content.Get("application/json").Schema.Value
			err = schema.VisitJSON(body, openapi3.MultiErrors())
			switch {
			case tc.breakf == nil && err != nil:
				t.Errorf("valid body rejected: %v", firstLine(err))
			case tc.breakf != nil && err == nil:
				t.Error("defective body accepted")
			}
			// The document as exported, rules in extensions, accepts
			// every valid body too.
			op = plain.Paths.Value(tc.path).Get
			if r = op.Responses.Status(tc.status); r == nil {
				r = op.Responses.Default()
			}
			if err := r.Value.Content.Get("application/json").Schema.Value.VisitJSON(body, openapi3.MultiErrors()); tc.breakf == nil && err != nil {
				t.Errorf("valid body rejected by the exported document: %v", firstLine(err))
			}
		})
	}
}

func TestOpenAPINullable(t *testing.T) {
	doc := loadOpenAPI(t)
	amm := doc.Components.Schemas["AmendAmm"].Value
	params := amm.Properties["concentratedLiquidityParameters"].Value
	if !params.Nullable {
		t.Fatal("an optional sub-object is not nullable")
	}
	base := map[string]any{"marketId": strings.Repeat("a", 64), "slippageTolerance": "0.1"}
	tests := []struct {
		name  string
		value any
		ok    bool
	}{
		{"absent", nil, true},
		{"null", "null", true},
		{"object", map[string]any{"base": "100"}, true},
		{"string", "x", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := map[string]any{}
			for k, x := range base {
				v[k] = x
			}
			switch tc.value {
			case nil:
			case "null":
				v["concentratedLiquidityParameters"] = nil
			default:
				v["concentratedLiquidityParameters"] = tc.value
			}
			err := amm.VisitJSON(v)
			if (err == nil) != tc.ok {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tc.ok, err)
			}
		})
	}
	// if/then/else survive as an extension.
	tx := doc.Components.Schemas["Transaction"].Value
	conds, ok := tx.Extensions["x-conditions"].([]any)
	if !ok || len(conds) == 0 {
		t.Errorf("Transaction x-conditions = %v, want the if/then rules", tx.Extensions["x-conditions"])
	}
	if _, ok := doc.Components.Schemas["ResultCode"].Value.Extensions["x-harness-format"]; !ok {
		t.Error("ResultCode lost its harness format")
	}
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// TestOpenAPISpecExtensions checks that the annotations of the spec
// profile reach the document as extensions.
func TestOpenAPISpecExtensions(t *testing.T) {
	doc := loadOpenAPI(t)
	tests := []struct {
		schema     string
		wantFields []any
		wantOneOf  bool
	}{
		{"Transaction", []any{"block", "code", "command"}, false},
		{"ProofOfWork", []any{}, false},
		{"InstrumentConfiguration", []any{"name", "code", "future", "perpetual"}, true},
		{"Game", []any{"epoch", "id", "participants", "rewardAssetId", "individual", "team"}, false},
	}
	// x-spec-types and x-spec-pattern too.
	if got := doc.Components.Schemas["Transaction"].Value.Extensions["x-spec-types"]; !reflect.DeepEqual(got, map[string]any{"block": "uint64", "code": "int64"}) {
		t.Errorf("Transaction x-spec-types = %#v", got)
	}
	for name, want := range map[string]string{"BlockHash": "", "HexBytes": "^([0-9a-fA-F]{2})*$"} {
		if got, ok := doc.Components.Schemas[name].Value.Extensions["x-spec-pattern"]; !ok || got != want {
			t.Errorf("%s x-spec-pattern = %#v (present %v), want %q", name, got, ok, want)
		}
	}
	if _, ok := doc.Components.Schemas["EthAddress"].Value.Extensions["x-spec-pattern"]; ok {
		t.Error("EthAddress has an x-spec-pattern: the spec states its pattern")
	}
	for _, tc := range tests {
		t.Run(tc.schema, func(t *testing.T) {
			s := doc.Components.Schemas[tc.schema].Value
			if got := s.Extensions["x-spec-fields"]; !reflect.DeepEqual(got, tc.wantFields) {
				t.Errorf("x-spec-fields = %#v, want %#v", got, tc.wantFields)
			}
			got, has := s.Extensions["x-spec-oneof"]
			if has != tc.wantOneOf || (has && got != true) {
				t.Errorf("x-spec-oneof = %v (present %v), want present %v", got, has, tc.wantOneOf)
			}
			if _, ok := s.Extensions["x-one-of"]; tc.wantOneOf && !ok {
				t.Error("x-spec-oneof without its x-one-of")
			}
		})
	}
}

// TestOpenAPIErrorResponses checks, on the document as exported, that every
// operation, whatever its path and method, declares 400, 500 and default
// with the error body of spec 2.1 (the Error schema, through a response
// component or inline), and none 404: the mock answers 404 only to a path
// that is no operation's.
func TestOpenAPIErrorResponses(t *testing.T) {
	tree := exportTree(t)
	components := tree["components"].(map[string]any)
	responses, _ := components["responses"].(map[string]any)
	paths := tree["paths"].(map[string]any)
	if len(paths) == 0 {
		t.Fatal("no paths")
	}
	ops := 0
	for path, item := range paths {
		for method, v := range item.(map[string]any) {
			op, ok := v.(map[string]any)
			if !ok || !isHTTPMethod(method) {
				continue
			}
			ops++
			declared, _ := op["responses"].(map[string]any)
			for _, status := range []string{"400", "500", "default"} {
				r, ok := declared[status].(map[string]any)
				if !ok {
					t.Errorf("%s %s: no %s response", method, path, status)
					continue
				}
				if ref, ok := r["$ref"].(string); ok {
					name, found := strings.CutPrefix(ref, "#/components/responses/")
					if r, ok = responses[name].(map[string]any); !found || !ok {
						t.Errorf("%s %s: %s response %q does not resolve", method, path, status, ref)
						continue
					}
				}
				if d, _ := r["description"].(string); d == "" {
					t.Errorf("%s %s: %s response has no description", method, path, status)
				}
				schema, _ := jsonPath(r, "content", "application/json", "schema").(map[string]any)
				if got := schema["$ref"]; got != "#/components/schemas/Error" {
					t.Errorf("%s %s: %s response schema %v, want the Error schema", method, path, status, got)
				}
			}
			if _, ok := declared["404"]; ok {
				t.Errorf("%s %s: declares 404, which the mock never answers on a listing's path", method, path)
			}
		}
	}
	if ops != len(paths) {
		t.Errorf("%d operations on %d paths, want one GET each", ops, len(paths))
	}
}

// TestOpenAPIComponentsReachable walks the references of the document from
// its paths, through keywords only (the x- extensions are not read: tools
// ignore them), and checks that it reaches every component of every kind:
// a component only an extension names is one linters report as unused. And
// every reference, extensions included, resolves.
func TestOpenAPIComponentsReachable(t *testing.T) {
	tree := exportTree(t)
	components := tree["components"].(map[string]any)
	lookup := func(ref string) (any, bool) {
		rest, ok := strings.CutPrefix(ref, "#/components/")
		if !ok {
			return nil, false
		}
		kind, name, ok := strings.Cut(rest, "/")
		if !ok {
			return nil, false
		}
		section, _ := components[kind].(map[string]any)
		v, ok := section[name]
		return v, ok
	}
	reached := map[string]bool{}
	var walk func(v any, extensions bool)
	walk = func(v any, extensions bool) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				target, ok := lookup(ref)
				if !ok {
					t.Errorf("$ref %q does not resolve", ref)
				} else if !reached[ref] {
					reached[ref] = true
					walk(target, extensions)
				}
			}
			for k, sub := range x {
				if extensions || !strings.HasPrefix(k, "x-") {
					walk(sub, extensions)
				}
			}
		case []any:
			for _, sub := range x {
				walk(sub, extensions)
			}
		}
	}
	walk(tree["paths"], false)
	for kind, section := range components {
		for name := range section.(map[string]any) {
			if ref := "#/components/" + kind + "/" + name; !reached[ref] {
				t.Errorf("component %s is not reached from the paths through keywords", ref)
			}
		}
	}
	// Every reference resolves, inside the extensions too.
	walk(tree, true)
	// The extensions still say what the definitions they used to name say.
	for _, c := range []struct{ schema, format string }{{"OptionalUrl", "uri"}, {"OptionalCountryCode", "country"}} {
		branch, _ := jsonPath(components, "schemas", c.schema, "x-any-of", "0").(map[string]any)
		if branch["format"] != c.format {
			t.Errorf("%s x-any-of[0] = %v, want the inlined schema of format %s", c.schema, branch, c.format)
		}
	}
}

// TestOpenAPISecurity checks that the document declares the API public: an
// empty list of security requirements (OpenAPI's "no security", which
// Redocly's security-defined rule takes as declared) and no scheme.
func TestOpenAPISecurity(t *testing.T) {
	tree := exportTree(t)
	security, ok := tree["security"].([]any)
	if !ok || len(security) != 0 {
		t.Errorf("security = %#v, want []", tree["security"])
	}
	if s, ok := tree["components"].(map[string]any)["securitySchemes"]; ok {
		t.Errorf("securitySchemes = %v, want none", s)
	}
	doc := loadOpenAPI(t)
	if doc.Security == nil || len(doc.Security) != 0 {
		t.Errorf("kin-openapi reads security %#v, want an empty list", doc.Security)
	}
}

// isHTTPMethod reports whether a key of a path item is an operation.
func isHTTPMethod(key string) bool {
	switch key {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return true
	}
	return false
}

// jsonPath returns the value at keys (object members, or array indexes in
// decimal) below v, or nil.
func jsonPath(v any, keys ...string) any {
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
