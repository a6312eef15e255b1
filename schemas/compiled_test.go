package schemas_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/schemas"
)

// fastVerdicts compares, for one document against one definition in every
// profile, the compiled fast path's verdict with gojsonschema's, and
// reports a difference. It returns gojsonschema's verdict in the Reference
// profile. Every definition has a fast path, and it decides every
// document of the corpora (none has a number beyond float64).
func fastVerdicts(t testing.TB, schema, from string, doc []byte, compareErrors bool) bool {
	t.Helper()
	ref := false
	// Decoded once for gojsonschema in every profile (ValidateGojsonschema
	// decodes so, then validates).
	decoded, decodeErr := schemas.DecodeDocument(doc)
	for _, p := range schemas.Profiles() {
		v := schemas.MustLoadProfile(schema, p)
		fast, compiled, decided, err := v.FastVerdict(doc)
		if err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		if !compiled || !decided {
			t.Fatalf("%s: %s (%s): compiled %v, decided %v: %v", from, schema, p, compiled, decided, v.FastError())
		}
		var slowErr error
		if decodeErr != nil {
			slowErr = v.ValidateGojsonschema(doc) // its error
		} else {
			slowErr = v.ValidateGojsonschemaDecoded(decoded)
		}
		slow := slowErr == nil
		if fast != slow {
			t.Errorf("%s: %s (%s) %.400s: fast path says valid=%v, gojsonschema valid=%v (%v)", from, schema, p, doc, fast, slow, slowErr)
		}
		if p == schemas.Reference {
			ref = slow
		}
		if compareErrors {
			if got := v.Validate(doc); !reflect.DeepEqual(got, slowErr) {
				t.Errorf("%s: %s (%s): Validate returns %v, gojsonschema alone %v", from, schema, p, got, slowErr)
			}
		}
	}
	return ref
}

// TestFastPathCompilesEveryDefinition: no definition, in no profile, falls
// back to gojsonschema for lack of a keyword.
func TestFastPathCompilesEveryDefinition(t *testing.T) {
	for _, p := range schemas.Profiles() {
		for _, name := range schemas.Names() {
			if err := schemas.MustLoadProfile(name, p).FastError(); err != nil {
				t.Errorf("%s (%s): no fast path: %v", name, p, err)
			}
		}
	}
}

// TestFastVerdictsMatchGojsonschema gives the corpus of the verdict test
// (generated transactions, every example, and their mutations at every
// exclusive group and rule) and the fast path's own corpus (every example
// and a transaction of each type, broken at every value every way
// fastMutations knows) to the fast path and to gojsonschema, in every
// profile: the verdicts must be the same. On a sample, Validate's error
// must be gojsonschema's, violation for violation.
func TestFastVerdictsMatchGojsonschema(t *testing.T) {
	var c corpusBuilder
	verdictCorpus(t, &c)
	fastCorpus(t, &c)
	corpus, total := c.docs(corpusSample())
	corpus = withoutRepeatedMutants(corpus)
	counts := &tally{n: map[string]int{}}
	const shards = 4
	for shard := range shards {
		t.Run("shard", func(t *testing.T) {
			t.Parallel()
			for i := shard; i < len(corpus); i += shards {
				d := corpus[i]
				kind := docKind(d.from)
				valid := fastVerdicts(t, d.schema, d.from, d.doc, i%13 == 0)
				if !valid && strings.HasPrefix(d.from, "generated") {
					t.Errorf("%s: %s %.300s: invalid", d.from, d.schema, d.doc)
				}
				if valid {
					counts.add("valid", 1)
				} else {
					counts.add("invalid", 1)
				}
				counts.add(kind, 1)
				for _, k := range d.also {
					counts.add(k, 1)
				}
			}
		})
	}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		least := map[string]int{
			"valid": 1500, "invalid": 20000,
			"neighbour": 1000, "length": 200, "bound": 50,
			"other enum value": 500, "other kind": 100,
			"generated Game": 1, "generated CoreSnapshot": 1, "generated EthereumKeyRotation": 1, "generated NetworkParameter": 10,
		}
		if perKind := corpusSample(); perKind > 0 {
			least = sampleMinimums(total, perKind)
		}
		for name, least := range least {
			if got := counts.get(name); got < least {
				t.Errorf("%d documents %s, want at least %d", got, name, least)
			}
		}
		t.Logf("%d documents valid, %d invalid", counts.get("valid"), counts.get("invalid"))
		for _, k := range sortedTally(counts) {
			t.Logf("%6d %s", counts.get(k), k)
		}
	})
}

// withoutRepeatedMutants leaves out of corpus each broken document (its
// from names a mutation: "kind: ...") that an earlier document already is,
// against the same definition: two mutations that make the same bytes (a
// value removed by both corpora, a string emptied that was one character
// long) ask the same question twice. Valid documents are all kept.
func withoutRepeatedMutants(corpus []verdictDoc) []verdictDoc {
	at := make(map[string]int, len(corpus))
	out := corpus[:0:0]
	for _, d := range corpus {
		key := d.schema + "\x00" + string(d.doc)
		if i, ok := at[key]; ok && strings.Contains(d.from, ":") {
			// Checked as out[i]: its kind is counted as checked there.
			kind, _, _ := strings.Cut(d.from, ":")
			out[i].also = append(out[i].also, kind)
			continue
		}
		at[key] = len(out)
		out = append(out, d)
	}
	return out
}

// fastCorpus returns the fast path's own corpus: every example and the
// first generated transaction of each type, valid, and broken at every
// value by every mutation of fastMutations, at every object by every
// property removed, an unknown one added and the object emptied, at every
// array emptied, shortened and lengthened; and each transaction with the
// command of every other kind.
func fastCorpus(t *testing.T, c *corpusBuilder) {
	t.Helper()
	type base struct {
		schema, from string
		doc          any
	}
	var bases []base
	for _, ex := range examples(t) {
		bases = append(bases, base{ex.def, ex.file, ex.doc})
	}
	w, err := world.Generate(world.Options{Seed: 11, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var txs []any
	for i := range w.Transactions {
		doc, err := decodeJSON(w.Transactions[i].JSON)
		if err != nil {
			t.Fatal(err)
		}
		typ, _ := doc.(map[string]any)["type"].(string)
		if !seen[typ] {
			seen[typ] = true
			txs = append(txs, doc)
			bases = append(bases, base{"Transaction", "transaction " + typ, doc})
		}
	}
	// The other records the world holds, valid as the mock writes them:
	// every one as it is, the first two of each kind broken.
	others := map[string][]any{}
	for _, g := range w.Games {
		others["Game"] = append(others["Game"], g)
	}
	for _, r := range w.Snapshots {
		others["CoreSnapshot"] = append(others["CoreSnapshot"], r)
	}
	for _, r := range w.KeyRotations {
		others["EthereumKeyRotation"] = append(others["EthereumKeyRotation"], r)
	}
	for _, r := range w.NetworkParameters {
		others["NetworkParameter"] = append(others["NetworkParameter"], r)
	}
	for _, name := range []string{"Game", "CoreSnapshot", "EthereumKeyRotation", "NetworkParameter"} {
		if len(others[name]) == 0 {
			t.Fatalf("the world holds no %s", name)
		}
		for i, r := range others[name] {
			c.add(name, "generated "+name, func() []byte { return encodeJSON(t, r) })
			if i < 2 {
				doc, err := decodeJSON(encodeJSON(t, r))
				if err != nil {
					t.Fatal(err)
				}
				bases = append(bases, base{name, fmt.Sprintf("generated %s %d", name, i), doc})
			}
		}
	}
	for _, b := range bases {
		add := func(kind, path string, doc func() any) {
			c.add(b.schema, kind+": "+b.from+" at "+path, func() []byte { return encodeJSON(t, doc()) })
		}
		schemaAt := map[string]*schemas.Node{}
		walkSites(schemas.MustLookup(b.schema), b.doc, "", false, "", func(s site) { schemaAt[s.path] = s.schema })
		eachValue(b.doc, "", everyElement, func(path string, v any) {
			for _, m := range fastMutations(v, schemaAt[path]) {
				add(m.kind, path, func() any { return setAt(t, b.doc, path, m.value) })
			}
			switch x := v.(type) {
			case map[string]any:
				for _, k := range sortedMapKeys(x) {
					add("removed", path+"/"+escapeToken(k), func() any { return deleteAt(t, b.doc, path+"/"+escapeToken(k)) })
				}
				add("unknown property", path, func() any {
					o := cloneJSON(x).(map[string]any)
					o["fastPathUnknown"] = json.Number("1")
					return setAt(t, b.doc, path, o)
				})
				add("emptied", path, func() any { return setAt(t, b.doc, path, map[string]any{}) })
			case []any:
				add("emptied", path, func() any { return setAt(t, b.doc, path, []any{}) })
				if len(x) > 0 {
					add("shortened", path, func() any { return setAt(t, b.doc, path, cloneJSON(x[1:])) })
					add("lengthened", path, func() any { return setAt(t, b.doc, path, append(cloneJSON(x).([]any), cloneJSON(x[0]))) })
					add("lengthened", path, func() any { return setAt(t, b.doc, path, append(cloneJSON(x).([]any), "x")) })
				}
			}
		})
	}
	// Command kinds swapped: every transaction with every other command.
	var commands []example
	for _, ex := range examples(t) {
		if ex.def == "Command" {
			commands = append(commands, ex)
		}
	}
	for i, tx := range txs {
		for _, cmd := range commands {
			c.add("Transaction", fmt.Sprintf("other kind: transaction %d with %s", i, cmd.file), func() []byte {
				return encodeJSON(t, setAt(t, tx, "/command", cloneJSON(cmd.doc)))
			})
		}
	}
}

// everyElementEnv set (make verdicts-full) has fastCorpus break the values
// of every element of every array of its bases, not only of the first two
// and the last (see eachValue).
const everyElementEnv = "HARNESS_SCHEMA_EVERY_ELEMENT"

var everyElement = os.Getenv(everyElementEnv) != ""

// eachValue calls visit for every value of doc, parents first, in a fixed
// order. Unless every is set, it goes into the first two elements of an
// array and its last, not those between: every array of the schemas has one
// schema for all its items (the fast path compiles no other form of items,
// TestFastPathCompilesEveryDefinition), so an element between is checked by
// the same schema, in the same loop, as those around it, and each of its
// mutations is one the elements visited already have, on a value of the
// same schema. Those between (above all the members of a generated game's
// teams, 8 KB a document: two fifths of the corpus's bytes) stay in every
// document, valid.
func eachValue(doc any, path string, every bool, visit func(path string, v any)) {
	visit(path, doc)
	switch x := doc.(type) {
	case map[string]any:
		for _, k := range sortedMapKeys(x) {
			eachValue(x[k], path+"/"+escapeToken(k), every, visit)
		}
	case []any:
		for i, e := range x {
			if !every && i >= 2 && i < len(x)-1 {
				continue
			}
			eachValue(e, path+"/"+strconv.Itoa(i), every, visit)
		}
	}
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fastMutation is one replacement of a value.
type fastMutation struct {
	kind  string
	value any
}

// fastMutations returns the values to put in place of v, whose schema is n
// (nil when no schema constrains it): every JSON type; for a string its
// neighbours (emptied, lengthened, shortened, other case, other digits,
// a multi-byte character), the strings of a length at and around its
// schema's bounds in runes and, for an enumeration, every other value; for
// a number its neighbours (plus and minus one, a half, as a decimal, in
// exponent form, negative zero) and the values at and around its schema's
// bounds.
func fastMutations(v any, n *schemas.Node) []fastMutation {
	var out []fastMutation
	add := func(kind string, x any) { out = append(out, fastMutation{kind, x}) }
	for _, x := range []any{nil, true, false, "", "x", json.Number("0"), json.Number("1"), json.Number("-1"), json.Number("0.5"), map[string]any{}, []any{}} {
		add("type", x)
	}
	switch x := v.(type) {
	case string:
		add("neighbour", x+"0")
		add("neighbour", x+"a")
		add("neighbour", "0"+x)
		add("neighbour", "-"+x)
		add("neighbour", x+" ")
		add("neighbour", x+"é")
		add("neighbour", x+".5")
		add("neighbour", strings.ToUpper(x))
		add("neighbour", strings.ToLower(x))
		add("neighbour", strings.Repeat("9", len(x)+1))
		add("neighbour", strings.Repeat("f", len(x)))
		if len(x) > 0 {
			add("neighbour", x[:len(x)-1])
			add("neighbour", x[1:])
			add("neighbour", strings.Repeat("0", len(x)))
		}
		add("neighbour", "1970-01-01T00:00:00Z")
		add("neighbour", "https://example.com/x")
		add("neighbour", "ftp:x")
		add("neighbour", "not a uri")
	case json.Number:
		s := string(x)
		add("neighbour", s)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			add("neighbour", json.Number(strconv.FormatInt(i+1, 10)))
			add("neighbour", json.Number(strconv.FormatInt(i-1, 10)))
			add("neighbour", json.Number(s+".0"))
			add("neighbour", json.Number(s+".5"))
			add("neighbour", json.Number(s+"e0"))
			add("neighbour", json.Number("-0"))
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			add("neighbour", json.Number(strconv.FormatFloat(f/2, 'g', -1, 64)))
			add("neighbour", json.Number(strconv.FormatFloat(f+0.25, 'g', -1, 64)))
		}
		add("neighbour", json.Number("1e2"))
		add("neighbour", json.Number("2147483648"))
		add("neighbour", json.Number("-2147483649"))
	case bool:
		add("neighbour", !x)
		add("neighbour", strconv.FormatBool(x))
	}
	if n == nil {
		return out
	}
	if n.MinLength != nil || n.MaxLength != nil {
		for _, l := range lengthsAround(n.MinLength, n.MaxLength) {
			add("length", strings.Repeat("é", l))
			add("length", strings.Repeat("a", l))
		}
	}
	for _, b := range []*float64{n.Minimum, n.Maximum} {
		if b == nil {
			continue
		}
		for _, d := range []float64{-1, -0.5, 0, 0.5, 1} {
			add("bound", json.Number(strconv.FormatFloat(*b+d, 'f', -1, 64)))
		}
		add("bound", json.Number(strconv.FormatFloat(*b, 'f', -1, 64)+".0"))
	}
	if e := enumDefinition(n); e != nil {
		for _, other := range e.Enum {
			if other != v {
				add("other enum value", other)
			}
		}
	}
	return out
}

// lengthsAround returns the lengths at and beside the bounds.
func lengthsAround(minLen, maxLen *int) []int {
	var out []int
	for _, b := range []*int{minLen, maxLen} {
		if b == nil {
			continue
		}
		for _, d := range []int{-1, 0, 1} {
			if *b+d >= 0 {
				out = append(out, *b+d)
			}
		}
	}
	return out
}

// TestFastPathHandcrafted checks each keyword of the fast path at its
// boundaries against gojsonschema, on schemas written for the purpose: a
// changed comparison or boundary in internal/fastpath fails here.
func TestFastPathHandcrafted(t *testing.T) {
	for _, tc := range handcraftedCases {
		t.Run(tc.name, func(t *testing.T) {
			v := loadHandcrafted(t, tc.schema)
			if err := v.FastError(); err != nil {
				t.Fatalf("no fast path: %v", err)
			}
			for _, c := range tc.docs {
				doc := []byte(c.doc)
				fast, _, decided, err := v.FastVerdict(doc)
				if err != nil {
					t.Fatalf("%s: %v", c.doc, err)
				}
				slow := v.ValidateGojsonschema(doc) == nil
				if !decided || fast != c.valid || slow != c.valid {
					t.Errorf("%s: fast path valid=%v (decided %v), gojsonschema valid=%v, want %v", c.doc, fast, decided, slow, c.valid)
				}
				if got := v.Validate(doc) == nil; got != c.valid {
					t.Errorf("%s: Validate says valid=%v, want %v", c.doc, got, c.valid)
				}
			}
		})
	}
}

// loadHandcrafted compiles a schema written as the definition "S" of a file
// of its own.
func loadHandcrafted(t testing.TB, schema string) *schemas.Validator {
	t.Helper()
	file := fmt.Sprintf(`{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "%st.json",
		"definitions": {"S": %s, "Other": {"type": "string", "maxLength": 2}}}`, schemas.BaseURL, schema)
	v, err := schemas.LoadFromFiles(map[string][]byte{"t.json": []byte(file)}, "t.json", "/definitions/S")
	if err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	return v
}

type verdictCase struct {
	doc   string
	valid bool
}

var handcraftedCases = []struct {
	name   string
	schema string
	docs   []verdictCase
}{
	{"type string", `{"type": "string"}`, []verdictCase{
		{`"a"`, true}, {`1`, false}, {`null`, false}, {`true`, false}, {`{}`, false}, {`[]`, false}}},
	{"type null", `{"type": "null"}`, []verdictCase{{`null`, true}, {`0`, false}, {`""`, false}}},
	{"type boolean", `{"type": "boolean"}`, []verdictCase{{`true`, true}, {`false`, true}, {`0`, false}, {`null`, false}}},
	{"type object", `{"type": "object"}`, []verdictCase{{`{}`, true}, {`[]`, false}, {`null`, false}}},
	{"type array", `{"type": "array"}`, []verdictCase{{`[]`, true}, {`{}`, false}, {`"[]"`, false}}},
	{"type integer", `{"type": "integer"}`, []verdictCase{
		{`1`, true}, {`-7`, true}, {`1.0`, true}, {`1e2`, true}, {`1.5e1`, true}, {`12345678901234567890123`, true},
		{`1.5`, false}, {`1e-1`, false}, {`"1"`, false}, {`null`, false}}},
	{"type number", `{"type": "number"}`, []verdictCase{{`1`, true}, {`1.5`, true}, {`-0`, true}, {`"1"`, false}, {`true`, false}}},
	{"type list", `{"type": ["integer", "null"]}`, []verdictCase{{`null`, true}, {`3`, true}, {`3.5`, false}, {`"3"`, false}}},
	{"type number and integer", `{"type": ["number", "integer"]}`, []verdictCase{{`3.5`, true}, {`3`, true}}},
	{"untyped", `{}`, []verdictCase{{`null`, true}, {`1`, true}, {`"x"`, true}, {`{}`, true}, {`[]`, true}, {`false`, true}}},
	{"true", `true`, []verdictCase{{`null`, true}, {`{"a": 1}`, true}}},
	{"false", `false`, []verdictCase{{`null`, false}, {`1`, false}}},
	{"minimum", `{"minimum": 0}`, []verdictCase{
		{`0`, true}, {`1`, true}, {`-1`, false}, {`-0.5`, false}, {`0.0`, true}, {`-0`, true}, {`-1e-9`, false},
		{`-12345678901234567890`, false}, {`12345678901234567890`, true}, {`"-1"`, true}, {`null`, true}}},
	{"maximum", `{"maximum": 2147483647}`, []verdictCase{
		{`2147483647`, true}, {`2147483648`, false}, {`2147483647.5`, false}, {`2147483646.5`, true}, {`-99999999999999999999`, true},
		{`99999999999999999999`, false}, {`2.147483647e9`, true}, {`2.147483648e9`, false}}},
	{"decimal bounds", `{"minimum": 0.5, "maximum": 1.25}`, []verdictCase{
		{`0.5`, true}, {`0.49`, false}, {`1`, true}, {`1.25`, true}, {`1.26`, false}, {`2`, false}, {`0`, false}}},
	{"negative minimum", `{"minimum": -2147483648}`, []verdictCase{{`-2147483648`, true}, {`-2147483649`, false}, {`0`, true}}},
	{"minLength", `{"minLength": 2}`, []verdictCase{
		{`"ab"`, true}, {`"a"`, false}, {`""`, false}, {`"éé"`, true}, {`"é"`, false}, {`"😀😀"`, true}, {`"😀"`, false}, {`1`, true}}},
	{"maxLength", `{"maxLength": 2}`, []verdictCase{
		{`"ab"`, true}, {`"abc"`, false}, {`"éé"`, true}, {`"ééé"`, false}, {`"😀😀"`, true}, {`"😀😀😀"`, false}, {`""`, true}, {`123`, true}}},
	{"zero maxLength", `{"maxLength": 0}`, []verdictCase{{`""`, true}, {`"a"`, false}}},
	{"pattern", `{"pattern": "^[0-9a-f]{4}$"}`, []verdictCase{
		{`"00af"`, true}, {`"00aF"`, false}, {`"00af0"`, false}, {`""`, false}, {`1234`, true}, {`null`, true}}},
	{"unanchored pattern", `{"pattern": "b"}`, []verdictCase{{`"abc"`, true}, {`"ac"`, false}}},
	{"date-time", `{"format": "date-time"}`, []verdictCase{
		{`"2026-11-26T08:30:52Z"`, true}, {`"2026-11-26T08:30:52.123+01:00"`, true}, {`"2026-11-26"`, true}, {`"08:30:52"`, true},
		{`"2026-13-26T08:30:52Z"`, false}, {`"yesterday"`, false}, {`""`, false}, {`17`, false}, {`null`, true}, {`true`, true}}},
	{"uri", `{"format": "uri"}`, []verdictCase{
		{`"https://example.com/a?b#c"`, true}, {`"urn:x"`, true}, {`"example.com"`, false}, {`"https://a\\b"`, false}, {`""`, false},
		{`"http://[::1"`, false}, {`1`, false}, {`{}`, true}}},
	{"unknown format", `{"format": "price"}`, []verdictCase{{`"1.5"`, true}, {`"anything"`, true}, {`1`, true}}},
	{"const string", `{"const": "a"}`, []verdictCase{{`"a"`, true}, {`"b"`, false}, {`"A"`, false}, {`null`, false}, {`["a"]`, false}}},
	{"const zero", `{"const": 0}`, []verdictCase{
		{`0`, true}, {`0.0`, true}, {`0e5`, true}, {`-0`, false}, {`1`, false}, {`"0"`, false}, {`false`, false}, {`null`, false}}},
	{"const true", `{"const": true}`, []verdictCase{{`true`, true}, {`false`, false}, {`1`, false}, {`"true"`, false}}},
	{"const null", `{"const": null}`, []verdictCase{{`null`, true}, {`0`, false}, {`""`, false}}},
	{"const false", `{"const": false}`, []verdictCase{{`false`, true}, {`true`, false}, {`null`, false}}},
	{"const object", `{"const": {"a": [1, "x"]}}`, []verdictCase{
		{`{"a": [1, "x"]}`, true}, {`{"a": [1.0, "x"]}`, true}, {`{"a": [1, "y"]}`, false}, {`{"a": [1, "x"], "b": 1}`, false}, {`"x"`, false}}},
	{"const big", `{"const": 123456789012345678}`, []verdictCase{
		{`123456789012345678`, true}, {`123456789012345680`, true}, {`123456789012345677`, true}, {`12345678901234567`, false}}},
	{"const escaped", `{"const": "a<b&\u2028"}`, []verdictCase{{`"a<b&\u2028"`, true}, {`"a\u003cb\u0026\u2028"`, true}, {`"a<b&"`, false}}},
	{"enum", `{"enum": ["a", "b", 1, null, true, {"x": 1}]}`, []verdictCase{
		{`"a"`, true}, {`"b"`, true}, {`"c"`, false}, {`1`, true}, {`1.0`, true}, {`2`, false}, {`null`, true}, {`true`, true},
		{`false`, false}, {`{"x": 1}`, true}, {`{"x": 2}`, false}, {`[]`, false}, {`"1"`, false}, {`"null"`, false}}},
	{"enum of strings", `{"enum": ["TYPE_LIMIT", "TYPE_MARKET"]}`, []verdictCase{
		{`"TYPE_LIMIT"`, true}, {`"TYPE_LIMIT_X"`, false}, {`"type_limit"`, false}, {`null`, false}, {`0`, false}}},
	{"enum and const", `{"enum": ["a", "b"], "const": "a"}`, []verdictCase{{`"a"`, true}, {`"b"`, false}, {`"c"`, false}}},
	{"enum of numbers", `{"enum": [0, 2.5]}`, []verdictCase{{`0`, true}, {`-0`, false}, {`2.5`, true}, {`2.50`, true}, {`25e-1`, true}, {`2`, false}}},
	{"required", `{"required": ["a", "b"]}`, []verdictCase{
		{`{"a": 1, "b": null}`, true}, {`{"a": 1}`, false}, {`{"b": 1}`, false}, {`{}`, false}, {`"a"`, true}, {`[]`, true}}},
	{"closed object", `{"properties": {"a": {"type": "string"}}, "additionalProperties": false}`, []verdictCase{
		{`{}`, true}, {`{"a": "x"}`, true}, {`{"a": 1}`, false}, {`{"b": 1}`, false}, {`{"a": "x", "b": 1}`, false}, {`[1]`, true}}},
	{"duplicate keys", `{"properties": {"a": {"type": "string"}}, "additionalProperties": false}`, []verdictCase{
		{`{"a": 1, "a": "x"}`, true}, {`{"a": "x", "a": 1}`, false}, {`{"a": "x", "b": 1, "a": "y"}`, false}}},
	{"deep", `{"items": {"$ref": "#/definitions/S"}, "maxItems": 1}`, []verdictCase{
		{strings.Repeat("[", 300) + strings.Repeat("]", 300), true}, {strings.Repeat("[", 300) + "[], []" + strings.Repeat("]", 300), false}}},
	{"open object", `{"properties": {"a": {"type": "string"}}, "additionalProperties": true}`, []verdictCase{
		{`{"b": 1}`, true}, {`{"a": 1}`, false}}},
	{"properties", `{"properties": {"a": {"type": "string"}, "b": {"minimum": 2}}}`, []verdictCase{
		{`{"a": "x", "b": 2}`, true}, {`{"a": "x", "b": 1}`, false}, {`{"a": null}`, false}, {`{"c": false}`, true}}},
	{"propertyNames", `{"propertyNames": {"enum": ["a", "b"]}}`, []verdictCase{
		{`{"a": 1}`, true}, {`{"a": 1, "b": 2}`, true}, {`{"c": 1}`, false}, {`{"a": 1, "c": 2}`, false}, {`{}`, true}, {`"c"`, true}}},
	{"propertyNames pattern", `{"propertyNames": {"maxLength": 1}}`, []verdictCase{{`{"a": 1}`, true}, {`{"ab": 1}`, false}}},
	{"dependencies", `{"dependencies": {"a": {"required": ["b"]}, "c": {"propertyNames": {"enum": ["c"]}}}}`, []verdictCase{
		{`{"a": 1, "b": 2}`, true}, {`{"a": 1}`, false}, {`{"b": 1}`, true}, {`{"c": 1}`, true}, {`{"c": 1, "b": 2}`, false}, {`{}`, true}, {`7`, true}}},
	{"items", `{"items": {"type": "string"}}`, []verdictCase{
		{`[]`, true}, {`["a", "b"]`, true}, {`["a", 1]`, false}, {`[1, "a"]`, false}, {`{"0": 1}`, true}}},
	{"boolean items", `{"items": false}`, []verdictCase{{`[]`, true}, {`[1]`, false}}},
	{"minItems", `{"minItems": 2}`, []verdictCase{{`[1, 2]`, true}, {`[1]`, false}, {`[]`, false}, {`[1, 2, 3]`, true}, {`"ab"`, true}}},
	{"maxItems", `{"maxItems": 2}`, []verdictCase{{`[1, 2]`, true}, {`[1, 2, 3]`, false}, {`[]`, true}}},
	{"allOf", `{"allOf": [{"type": "string"}, {"maxLength": 2}]}`, []verdictCase{{`"ab"`, true}, {`"abc"`, false}, {`1`, false}}},
	{"anyOf", `{"anyOf": [{"type": "string"}, {"type": "null"}]}`, []verdictCase{{`"a"`, true}, {`null`, true}, {`1`, false}}},
	{"anyOf both", `{"anyOf": [{"minimum": 0}, {"maximum": 10}]}`, []verdictCase{{`5`, true}, {`-5`, true}, {`50`, true}}},
	{"oneOf", `{"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`, []verdictCase{
		{`{"a": 1}`, true}, {`{"b": 1}`, true}, {`{"a": 1, "b": 1}`, false}, {`{}`, false}, {`1`, false}}},
	{"oneOf three", `{"oneOf": [{"minimum": 0}, {"maximum": 10}, {"const": 20}]}`, []verdictCase{
		{`5`, false}, {`-5`, true}, {`15`, true}, {`20`, false}}},
	{"not", `{"not": {"type": "string"}}`, []verdictCase{{`1`, true}, {`"a"`, false}}},
	{"not propertyNames", `{"not": {"propertyNames": {"enum": ["nonce"]}}}`, []verdictCase{
		{`{"nonce": 1, "x": 2}`, true}, {`{"nonce": 1}`, false}, {`{}`, false}}},
	{"if then", `{"if": {"properties": {"a": {"const": 0}}}, "then": {"required": ["b"]}}`, []verdictCase{
		{`{"a": 0, "b": 1}`, true}, {`{"a": 0}`, false}, {`{"a": 1}`, true}, {`{}`, false}, {`{"b": 1}`, true}}},
	{"if else", `{"if": {"required": ["a"]}, "else": {"required": ["b"]}}`, []verdictCase{
		{`{"a": 1}`, true}, {`{"b": 1}`, true}, {`{}`, false}, {`{"c": 1}`, false}}},
	{"if then else", `{"if": {"properties": {"code": {"const": 0}}}, "then": {"properties": {"error": {"maxLength": 0}}}, "else": {"properties": {"error": {"minLength": 1}}}}`, []verdictCase{
		{`{"code": 0, "error": ""}`, true}, {`{"code": 0, "error": "x"}`, false}, {`{"code": 1, "error": "x"}`, true}, {`{"code": 1, "error": ""}`, false}, {`{"code": 0.0, "error": ""}`, true}}},
	{"if alone", `{"if": {"required": ["a"]}}`, []verdictCase{{`{}`, true}, {`{"a": 1}`, true}}},
	{"then alone", `{"then": false}`, []verdictCase{{`{}`, true}}},
	{"ref", `{"$ref": "#/definitions/Other", "description": "beside"}`, []verdictCase{{`"ab"`, true}, {`"abc"`, false}, {`1`, false}}},
	{"ref absolute", `{"properties": {"o": {"$ref": "` + schemas.BaseURL + `t.json#/definitions/Other"}}}`, []verdictCase{
		{`{"o": "ab"}`, true}, {`{"o": "abc"}`, false}}},
	{"ref loop", `{"properties": {"next": {"$ref": "#/definitions/S"}, "v": {"type": "integer"}}}`, []verdictCase{
		{`{"next": {"next": {"v": 1}}}`, true}, {`{"next": {"next": {"v": "1"}}}`, false}}},
	{"annotations", `{"title": "t", "description": "d", "$comment": "c", "x-spec-fields": [], "x-spec-oneof": true, "definitions": {"X": {}}, "type": "string"}`, []verdictCase{
		{`"a"`, true}, {`1`, false}}},
}

// TestValidateRefusesWhatIsNotJSON: input that is not one JSON value is
// refused as before the fast path, whatever its parser makes of it.
func TestValidateRefusesWhatIsNotJSON(t *testing.T) {
	v := schemas.MustLoad("Transaction")
	for _, doc := range []string{``, `{`, `{"a":1}x`, `[1,]`, `01`, "\"a\x01\"", `{"a" 1}`, `tru`, `1 2`} {
		got, want := v.Validate([]byte(doc)), v.ValidateGojsonschema([]byte(doc))
		var verr *schemas.ValidationError
		if got == nil || errors.As(got, &verr) || want == nil || got.Error() != want.Error() {
			t.Errorf("%q: Validate says %v, gojsonschema alone %v", doc, got, want)
		}
	}
}

// TestFastPathRefusesWhatItDoesNotSupport: a schema using a keyword, or a
// form of a keyword, the compiler does not support has no fast path, and
// its validator answers by gojsonschema alone, which does check the
// keyword.
func TestFastPathRefusesWhatItDoesNotSupport(t *testing.T) {
	for _, tc := range []struct {
		schema        string
		valid, broken string
	}{
		{`{"uniqueItems": true}`, `[1, 2]`, `[1, 1]`},
		{`{"multipleOf": 2}`, `4`, `3`},
		{`{"exclusiveMinimum": 0}`, `1`, `0`},
		{`{"exclusiveMaximum": 0}`, `-1`, `0`},
		{`{"minProperties": 1}`, `{"a": 1}`, `{}`},
		{`{"maxProperties": 1}`, `{"a": 1}`, `{"a": 1, "b": 2}`},
		{`{"patternProperties": {"^x": {"type": "string"}}}`, `{"xa": "s"}`, `{"xa": 1}`},
		{`{"contains": {"const": 1}}`, `[1]`, `[2]`},
		{`{"items": [{"type": "string"}], "additionalItems": false}`, `["a"]`, `["a", "b"]`},
		{`{"items": [{"type": "string"}]}`, `["a"]`, `[1]`},
		{`{"additionalProperties": {"type": "string"}}`, `{"a": "s"}`, `{"a": 1}`},
		{`{"dependencies": {"a": ["b"]}}`, `{"a": 1, "b": 2}`, `{"a": 1}`},
		{`{"format": "email"}`, `"a@example.com"`, `"nobody"`},
		{`{"format": "ipv4"}`, `"127.0.0.1"`, `"1.2.3"`},
		{`{"$ref": "#/definitions/Other", "type": "integer"}`, `"ab"`, `"abc"`},
		{`{"properties": {"a": {"$id": "x.json", "type": "string"}}}`, `{"a": "s"}`, `{"a": 1}`},
		{`{"type": []}`, `1`, ``},
		{`{"minLength": 1.0}`, `"a"`, ``},
		{`{"x-unknown": 1, "type": "string"}`, `"a"`, `1`},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			file := fmt.Sprintf(`{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "%st.json",
				"definitions": {"S": %s, "Other": {"type": "string", "maxLength": 2}}}`, schemas.BaseURL, tc.schema)
			v, err := schemas.LoadFromFiles(map[string][]byte{"t.json": []byte(file)}, "t.json", "/definitions/S")
			if err != nil {
				// gojsonschema itself refuses it: no validator at all.
				return
			}
			if v.FastError() == nil {
				t.Fatal("compiled: want the fast path refused")
			}
			if _, compiled, _, _ := v.FastVerdict([]byte(tc.valid)); compiled {
				t.Error("FastVerdict says compiled")
			}
			if err := v.Validate([]byte(tc.valid)); err != nil {
				t.Errorf("%s: %v", tc.valid, err)
			}
			if tc.broken == "" {
				return
			}
			var verr *schemas.ValidationError
			if err := v.Validate([]byte(tc.broken)); !errors.As(err, &verr) {
				t.Errorf("%s: %v, want a violation", tc.broken, err)
			}
		})
	}
}

// TestFastPathRefusesFilesItCannotResolve: the compiler accepts the files of
// the harness only, as gojsonschema reads them.
func TestFastPathRefusesFilesItCannotResolve(t *testing.T) {
	good := `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "` + schemas.BaseURL + `t.json", "definitions": {"S": {"type": "string"}, "R": %s}}`
	for _, tc := range []struct{ name, file string }{
		{"draft 4", strings.Replace(good, "draft-07", "draft-04", 1)},
		{"$ref elsewhere", strings.Replace(good, "%s", `{"$ref": "https://elsewhere.example/x.json#/definitions/S"}`, 1)},
		{"$ref to no file", strings.Replace(good, "%s", `{"$ref": "missing.json#/definitions/S"}`, 1)},
		{"$ref to nothing", strings.Replace(good, "%s", `{"$ref": "#/definitions/Missing"}`, 1)},
		{"$ref not a pointer", strings.Replace(good, "%s", `{"$ref": "#S"}`, 1)},
		{"$ref not a string", strings.Replace(good, "%s", `{"$ref": 1}`, 1)},
		{"not a schema", strings.Replace(good, "%s", `1`, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := strings.Replace(tc.file, "%s", `{"$ref": "#/definitions/S"}`, 1)
			v, err := schemas.LoadFromFiles(map[string][]byte{"t.json": []byte(file)}, "t.json", "/definitions/R")
			if err != nil {
				return // gojsonschema refuses it too
			}
			if v.FastError() == nil {
				t.Error("compiled: want the fast path refused")
			}
		})
	}
}

// FuzzFastVerdict compares the fast path's verdict with gojsonschema's on
// any document, against a definition chosen by the fuzzer, in every
// profile. Seeds: every example.
func FuzzFastVerdict(f *testing.F) {
	names := schemas.Names()
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	for _, ex := range examples(f) {
		f.Add(uint16(index[ex.def]), ex.raw)
	}
	f.Add(uint16(index["Transaction"]), []byte(`{"code": 1e400}`))
	f.Add(uint16(index["Uint64"]), []byte(`"18446744073709551615"`))
	f.Fuzz(func(t *testing.T, which uint16, doc []byte) {
		name := names[int(which)%len(names)]
		for _, p := range schemas.Profiles() {
			v := schemas.MustLoadProfile(name, p)
			fast, _, decided, err := v.FastVerdict(doc)
			if err != nil || !decided {
				return
			}
			slow, panicked := gojsonschemaVerdict(v, doc)
			if panicked {
				return // gojsonschema fails on the document (see internal/fastpath)
			}
			if fast != slow {
				t.Fatalf("%s (%s) %s: fast path valid=%v, gojsonschema valid=%v", name, p, doc, fast, slow)
			}
		}
	})
}

// gojsonschemaVerdict returns gojsonschema's verdict, and whether it
// panicked instead.
func gojsonschemaVerdict(v *schemas.Validator, doc []byte) (valid, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return v.ValidateGojsonschema(doc) == nil, false
}
