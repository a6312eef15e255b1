package schemas_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// The hand-written examples live in testdata/examples, one file per object
// definition, named <Definition>.json, or <Definition>.<variant>.json when a
// definition has several. For a definition with a oneOf group, the variant
// of each file is the member of the group it sets (Command.amendAmm.json).
const examplesDir = "testdata/examples"

// example is one example document.
type example struct {
	file    string // file name, such as "Command.amendAmm.json"
	def     string // the definition it is an example of
	variant string // what follows the definition in the name, "" for none
	raw     []byte
	doc     any // decoded with json.Number for numbers
}

var loadExampleFiles = sync.OnceValues(func() ([]example, error) {
	entries, err := os.ReadDir(examplesDir)
	if err != nil {
		return nil, err
	}
	var out []example
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			return nil, fmt.Errorf("%s: only <Definition>[.<variant>].json files belong in %s", name, examplesDir)
		}
		raw, err := os.ReadFile(filepath.Join(examplesDir, name))
		if err != nil {
			return nil, err
		}
		doc, err := decodeJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		def, variant, _ := strings.Cut(strings.TrimSuffix(name, ".json"), ".")
		out = append(out, example{file: name, def: def, variant: variant, raw: raw, doc: doc})
	}
	return out, nil
})

// examples returns every example, in file name order.
func examples(t testing.TB) []example {
	t.Helper()
	exs, err := loadExampleFiles()
	if err != nil {
		t.Fatalf("load examples: %v", err)
	}
	if len(exs) == 0 {
		t.Fatalf("no examples in %s", examplesDir)
	}
	return exs
}

// exampleDoc returns a fresh copy of the decoded example in the named file,
// which the caller may change.
func exampleDoc(t testing.TB, file string) any {
	t.Helper()
	for _, ex := range examples(t) {
		if ex.file == file {
			return cloneJSON(ex.doc)
		}
	}
	t.Fatalf("no example file %s", file)
	return nil
}

// objectDefinitions returns the names of the definitions that describe
// objects the harness inspects: every definition whose type is object,
// except Opaque.
func objectDefinitions(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, name := range schemas.Names() {
		n := schemas.MustLookup(name).Resolve()
		if n.HasType("object") && !n.IsOpaque() {
			out = append(out, name)
		}
	}
	if len(out) < 50 {
		t.Fatalf("only %d object definitions found; the schema model is broken", len(out))
	}
	return out
}

func TestEveryObjectDefinitionHasAnExample(t *testing.T) {
	byDef := map[string][]example{}
	for _, ex := range examples(t) {
		byDef[ex.def] = append(byDef[ex.def], ex)
	}
	for _, name := range objectDefinitions(t) {
		t.Run(name, func(t *testing.T) {
			if len(byDef[name]) == 0 {
				t.Fatalf("no example: add %s/%s.json", examplesDir, name)
			}
		})
	}
}

func TestExamplesNameAnObjectDefinition(t *testing.T) {
	objects := map[string]bool{}
	for _, name := range objectDefinitions(t) {
		objects[name] = true
	}
	for _, ex := range examples(t) {
		t.Run(ex.file, func(t *testing.T) {
			if !objects[ex.def] {
				t.Fatalf("%q is not an object definition (see \"harness schemas\")", ex.def)
			}
			if _, ok := ex.doc.(map[string]any); !ok {
				t.Fatalf("the example is not a JSON object")
			}
		})
	}
}

func TestExamplesValidate(t *testing.T) {
	for _, ex := range examples(t) {
		t.Run(ex.file, func(t *testing.T) {
			v, err := schemas.Load(ex.def)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateDoc(t, v, ex.raw); err != nil {
				t.Fatalf("a valid example is rejected: %v", err)
			}
		})
	}
}

// TestExamplesCoverEveryProperty checks that, across the examples of a
// definition, every property it defines is set at least once. Command kinds
// and proposal change kinds accepted as Opaque are the exception: each of
// them is checked by TestOpaqueKindsAreAcceptedByName, and one example per
// definition is enough.
func TestExamplesCoverEveryProperty(t *testing.T) {
	byDef := map[string][]example{}
	for _, ex := range examples(t) {
		byDef[ex.def] = append(byDef[ex.def], ex)
	}
	for _, name := range objectDefinitions(t) {
		t.Run(name, func(t *testing.T) {
			set := map[string]bool{}
			for _, ex := range byDef[name] {
				obj, _ := ex.doc.(map[string]any)
				for k := range obj {
					set[k] = true
				}
			}
			n := schemas.MustLookup(name).Resolve()
			opaqueKinds, opaqueSet := 0, 0
			for _, p := range n.Properties {
				if p.Schema.IsOpaque() {
					opaqueKinds++
					if set[p.Name] {
						opaqueSet++
					}
					continue
				}
				if !set[p.Name] {
					t.Errorf("no example of %s sets %q", name, p.Name)
				}
			}
			if opaqueKinds > 0 && opaqueSet == 0 {
				t.Errorf("no example of %s sets any of its %d opaque kinds", name, opaqueKinds)
			}
		})
	}
}

// TestExamplesCoverEveryBranch checks that a definition with a oneOf group
// has one example per branch, named <Definition>.<branch>.json and setting
// exactly that branch.
func TestExamplesCoverEveryBranch(t *testing.T) {
	files := map[string]example{}
	for _, ex := range examples(t) {
		files[ex.file] = ex
	}
	groups := 0
	for _, name := range objectDefinitions(t) {
		n := schemas.MustLookup(name).Resolve()
		group := n.ExclusiveGroup()
		if group == nil {
			continue
		}
		groups++
		t.Run(name, func(t *testing.T) {
			for _, branch := range group {
				if p := n.Property(branch); p == nil || p.IsOpaque() {
					continue
				}
				file := name + "." + branch + ".json"
				ex, ok := files[file]
				if !ok {
					t.Errorf("branch %s has no example: add %s/%s", branch, examplesDir, file)
					continue
				}
				obj, _ := ex.doc.(map[string]any)
				for _, other := range group {
					if _, has := obj[other]; has != (other == branch) {
						t.Errorf("%s: sets %s = %v; it must set exactly the branch its name gives", file, other, has)
					}
				}
			}
		})
	}
	if groups < 15 {
		t.Fatalf("only %d definitions with a oneOf group found", groups)
	}
}

// TestExamplesUseEveryEnumeration checks that every enumeration appears in at
// least one example, so that the misspelling mutations reach it.
func TestExamplesUseEveryEnumeration(t *testing.T) {
	used := map[string]bool{}
	for _, ex := range examples(t) {
		walkDoc(schemas.MustLookup(ex.def), ex.doc, "", func(s site) {
			if e := enumDefinition(s.schema); e != nil {
				used[e.Name] = true
			}
		})
	}
	enums := 0
	for _, name := range schemas.Names() {
		if len(schemas.MustLookup(name).Resolve().Enum) == 0 {
			continue
		}
		enums++
		if !used[name] {
			t.Errorf("no example holds a %s value", name)
		}
	}
	if enums < 18 {
		t.Errorf("only %d enumerations found, want the spec's 17 and TxVersion", enums)
	}
}

// Mutations derived from the examples. Each example is walked together with
// its schema; every site (object, array or leaf) the schema constrains is
// broken one way at a time, and the validator must say where.

// unknownProperty is added to closed objects.
const unknownProperty = "unexpectedField"

// documentedOpen are the object definitions that accept properties they do
// not name (schemas/README.md). Every other object is closed: the mutations
// do not take closedness from the schema under test, so that an object
// opened by mistake fails them.
var documentedOpen = map[string]bool{"ErrorDetail": true, "Opaque": true}

// mutation is one way to break a site.
type mutation struct {
	name string
	// apply returns the broken value and true, or false when the mutation
	// does not apply to the site.
	apply func(s site) (any, bool)
	// check reports whether the violations say what the mutation broke.
	check func(s site, got []schemas.Violation) bool
	want  string // what check looks for, for failure messages
}

var mutations = []mutation{
	{
		name: "unknown property in a closed object",
		apply: func(s site) (any, bool) {
			obj, ok := s.value.(map[string]any)
			if !ok || documentedOpen[s.schema.Name] {
				return nil, false
			}
			out := cloneJSON(obj).(map[string]any)
			out[unknownProperty] = "x"
			return out, true
		},
		check: func(s site, got []schemas.Violation) bool {
			return hasViolation(got, s.path+"/"+unknownProperty, "additional_property_not_allowed")
		},
		want: "additional_property_not_allowed at the added property",
	},
	{
		name: "wrongly typed value",
		apply: func(s site) (any, bool) {
			return wrongType(s.value), true
		},
		check: func(s site, got []schemas.Violation) bool {
			for _, v := range got {
				if isPathPrefix(v.Path, s.path) {
					return true
				}
			}
			return false
		},
		want: "a violation at the path or above it",
	},
	{
		name: "misspelt enum value",
		apply: func(s site) (any, bool) {
			str, ok := s.value.(string)
			if !ok || enumDefinition(s.schema) == nil {
				return nil, false
			}
			return str + "_X", true
		},
		check: func(s site, got []schemas.Violation) bool {
			return hasViolation(got, s.path, "enum", "number_one_of", "number_any_of")
		},
		want: "enum at the path",
	},
}

// wrongType returns a value of another JSON type than v.
func wrongType(v any) any {
	switch v.(type) {
	case string:
		return json.Number("12345")
	case json.Number:
		return "12345"
	case bool:
		return "true"
	case map[string]any:
		return json.Number("12345")
	case []any:
		return map[string]any{}
	default: // null
		return json.Number("12345")
	}
}

func TestMutationsOfExamplesAreRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("mutation tests validate thousands of documents")
	}
	counts := &tally{n: map[string]int{}}
	t.Run("examples", func(t *testing.T) {
		for _, ex := range examples(t) {
			t.Run(ex.file, func(t *testing.T) {
				t.Parallel()
				v := schemas.MustLoad(ex.def)
				var sites []site
				walkDoc(schemas.MustLookup(ex.def), ex.doc, "", func(s site) { sites = append(sites, s) })
				for _, m := range mutations {
					for _, s := range sites {
						broken, ok := m.apply(s)
						if !ok {
							continue
						}
						counts.add(m.name, 1)
						doc := encodeJSON(t, setAt(t, ex.doc, s.path, broken))
						got := violationsOf(t, v, doc)
						if len(got) == 0 {
							t.Errorf("%s at %q: accepted, want %s", m.name, s.path, m.want)
							continue
						}
						if !m.check(s, got) {
							t.Errorf("%s at %q: want %s, got %v", m.name, s.path, m.want, got)
						}
					}
				}
			})
		}
	})
	// A walk that silently visits nothing would pass every check above.
	for _, m := range mutations {
		if n := counts.get(m.name); n < 100 {
			t.Errorf("%s: only %d mutations ran", m.name, n)
		}
	}
}

// tally counts mutations by kind across parallel subtests.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *tally) add(name string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[name] += n
}

func (c *tally) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

func TestMutationsReachEverySite(t *testing.T) {
	// The sites of one example, counted by hand: the walk must find every
	// object, array and leaf, and must not descend into open places.
	tests := []struct {
		file                         string
		sites, closed, enums, opaque int
	}{
		// root, signers[], 2 signers x (signer, ethAddress|pubKey, address|key),
		// filters[], 2 filters x (filter, key, name, type, [numberDecimalPlaces],
		// conditions[], condition, operator, value)
		{"OracleSpec.json", 26, 11, 4, 0},
		// root, nonce, blockHeight, withdrawSubmission (not inspected)
		{"Command.withdrawSubmission.json", 4, 1, 0, 1},
		// root, code, message, details[], detail, @type (extra fields are open)
		{"Error.json", 6, 1, 0, 0},
		// root, address, abi, method, args[] (items are open), trigger,
		// timeTrigger, every, initial, until, requiredConfirmations,
		// sourceChainId, normalisers[], normaliser, name, expression, filters[],
		// filter, key, name, type, numberDecimalPlaces, conditions[],
		// condition, operator, value
		{"EthCallSpec.json", 26, 7, 2, 0},
		// root, mode (an enum with a value excluded), marketId, marginFactor
		{"MarginModeUpdate.json", 4, 1, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			var ex example
			for _, e := range examples(t) {
				if e.file == tc.file {
					ex = e
				}
			}
			if ex.doc == nil {
				t.Fatalf("no example %s", tc.file)
			}
			var sites, closed, enums, opaque int
			walkDoc(schemas.MustLookup(ex.def), ex.doc, "", func(s site) {
				sites++
				if _, ok := s.value.(map[string]any); ok && !documentedOpen[s.schema.Name] {
					closed++
				}
				if enumDefinition(s.schema) != nil {
					enums++
				}
				if s.schema.IsOpaque() {
					opaque++
				}
			})
			if sites != tc.sites || closed != tc.closed || enums != tc.enums || opaque != tc.opaque {
				t.Errorf("sites/closed/enums/opaque = %d/%d/%d/%d, want %d/%d/%d/%d",
					sites, closed, enums, opaque, tc.sites, tc.closed, tc.enums, tc.opaque)
			}
		})
	}
}

// TestNullableSubObjectsAcceptNull replaces every optional sub-object of every
// example with null, as a real gateway writes an unset one: null must count
// exactly as the member left out, and every such document but the few where
// a rule needs the sub-object must stay valid.
func TestNullableSubObjectsAcceptNull(t *testing.T) {
	total, valid := 0, 0
	for _, ex := range examples(t) {
		v := schemas.MustLoad(ex.def)
		var paths []string
		walkDoc(schemas.MustLookup(ex.def), ex.doc, "", func(s site) {
			if _, ok := s.value.(map[string]any); ok && s.nullable {
				paths = append(paths, s.path)
			}
		})
		for _, p := range paths {
			total++
			withNull := validateDoc(t, v, encodeJSON(t, setAt(t, ex.doc, p, nil)))
			without := validateDoc(t, v, encodeJSON(t, deleteAt(t, ex.doc, p)))
			if (withNull == nil) != (without == nil) {
				t.Errorf("%s: %s set to null gives %v; left out gives %v", ex.file, p, withNull, without)
			}
			if withNull == nil {
				valid++
			}
		}
	}
	if total < 50 || valid < total-5 {
		t.Errorf("%d nullable sub-objects found in the examples, %d valid as null; want at least 50, nearly all valid", total, valid)
	}
}

// site is one value of an example document and the schema that applies to it.
type site struct {
	path  string // JSON pointer in the document
	value any
	// schema is the schema of the value with references followed and the
	// nullable wrapper opened (when the value is not null).
	schema *schemas.Node
	// nullable is true when the schema also accepts null.
	nullable bool
	// spec is true when the spec shows the value: every property on the way
	// from the root is in its object's x-spec-fields.
	spec bool
	// specType is the spec's type of the value when its object's
	// x-spec-types names it ("uint64", "int64", ...), else "".
	specType string
}

// walkDoc visits every value of doc that schema n constrains, parents before
// children. It does not descend into Opaque objects, nor visit values nothing
// constrains: ethOracle args items and the extra fields of an ErrorDetail.
func walkDoc(n *schemas.Node, v any, path string, visit func(site)) {
	walkSites(n, v, path, true, "", visit)
}

func walkSites(n *schemas.Node, v any, path string, spec bool, specType string, visit func(site)) {
	n, nullable := effectiveSchema(n, v)
	if unconstrained(n) {
		return
	}
	visit(site{path: path, value: v, schema: n, nullable: nullable, spec: spec, specType: specType})
	if n.IsOpaque() {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p := n.Property(k); p != nil {
				walkSites(p, x[k], path+"/"+escapeToken(k), spec && n.IsSpecField(k), n.SpecTypes[k], visit)
			}
		}
	case []any:
		if n.Items == nil {
			return
		}
		for i, e := range x {
			walkSites(n.Items, e, path+"/"+strconv.Itoa(i), spec, "", visit)
		}
	}
}

// effectiveSchema follows references and opens the nullable wrapper
// {"anyOf": [X, {"type": "null"}]} for a value that is not null.
func effectiveSchema(n *schemas.Node, v any) (*schemas.Node, bool) {
	n = n.Resolve()
	if t := n.NullableTarget(); t != nil {
		if v == nil {
			return n, true
		}
		inner, _ := effectiveSchema(t, v)
		return inner, true
	}
	return n, false
}

// unconstrained reports whether a schema accepts any JSON value.
func unconstrained(n *schemas.Node) bool {
	return len(n.Types) == 0 && n.Ref == nil && len(n.Enum) == 0 && !n.HasConst &&
		len(n.AnyOf) == 0 && len(n.OneOf) == 0 && len(n.AllOf) == 0 && n.Not == nil
}

// enumDefinition returns the enumeration definition a schema takes its
// values from, looking into allOf (an enum with values excluded), or nil.
func enumDefinition(n *schemas.Node) *schemas.Node {
	n = n.Resolve()
	if len(n.Enum) > 0 {
		return n
	}
	for _, s := range n.AllOf {
		if e := enumDefinition(s); e != nil {
			return e
		}
	}
	return nil
}

// JSON helpers.

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON document")
	}
	return v, nil
}

func mustDecode(t testing.TB, data string) any {
	t.Helper()
	v, err := decodeJSON([]byte(data))
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

func encodeJSON(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return data
}

func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneJSON(e)
		}
		return out
	}
	return v
}

func escapeToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func pointerTokens(path string) []string {
	if path == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, tok := range toks {
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
	}
	return toks
}

// setAt returns a copy of doc with the value at path replaced by v.
func setAt(t testing.TB, doc any, path string, v any) any {
	t.Helper()
	return editAt(t, doc, path, func(any, bool) (any, bool) { return v, true })
}

// deleteAt returns a copy of doc without the object member at path.
func deleteAt(t testing.TB, doc any, path string) any {
	t.Helper()
	return editAt(t, doc, path, func(any, bool) (any, bool) { return nil, false })
}

// editAt returns a copy of doc where the value at path is replaced by what
// edit returns, or removed when edit returns false.
func editAt(t testing.TB, doc any, path string, edit func(old any, exists bool) (any, bool)) any {
	t.Helper()
	toks := pointerTokens(path)
	if len(toks) == 0 {
		v, _ := edit(doc, true)
		return v
	}
	root := cloneJSON(doc)
	cur := root
	for i, tok := range toks {
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				old, exists := c[tok]
				if v, keep := edit(old, exists); keep {
					c[tok] = v
				} else {
					delete(c, tok)
				}
				return root
			}
			next, ok := c[tok]
			if !ok {
				t.Fatalf("path %s: no member %q", path, tok)
			}
			cur = next
		case []any:
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 || idx >= len(c) {
				t.Fatalf("path %s: no element %q", path, tok)
			}
			if last {
				v, keep := edit(c[idx], true)
				if !keep {
					t.Fatalf("path %s: cannot delete an array element", path)
				}
				c[idx] = v
				return root
			}
			cur = c[idx]
		default:
			t.Fatalf("path %s: %q is inside a scalar", path, tok)
		}
	}
	return root
}

// isPathPrefix reports whether JSON pointer p is path or one of its parents.
func isPathPrefix(p, path string) bool {
	return p == path || strings.HasPrefix(path, p+"/")
}

// violationsOf validates doc and returns its violations, nil when it is
// valid. Any error other than a *schemas.ValidationError fails the test.
func violationsOf(t testing.TB, v *schemas.Validator, doc []byte) []schemas.Violation {
	t.Helper()
	err := validateDoc(t, v, doc)
	if err == nil {
		return nil
	}
	var verr *schemas.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("validate: %v, want a *schemas.ValidationError", err)
	}
	if len(verr.Violations) == 0 {
		t.Fatalf("validation error without violations: %v", err)
	}
	return verr.Violations
}

// hasViolation reports whether one of vs is at path and breaks one of rules
// (any rule when none is given).
func hasViolation(vs []schemas.Violation, path string, rules ...string) bool {
	for _, v := range vs {
		if v.Path != path {
			continue
		}
		if len(rules) == 0 {
			return true
		}
		for _, r := range rules {
			if v.Rule == r {
				return true
			}
		}
	}
	return false
}
