package fastpath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chaindata/harness/internal/race"
)

// BaseURL is the base the test files' $id names, as the schemas' own.
const BaseURL = "https://harness.chaindata.example/schemas/"

// TestFastPathUndecided: what gojsonschema cannot check (a number beyond
// float64 at an enum, where it fails), and values no JSON decoding makes,
// the fast path leaves to gojsonschema.
func TestFastPathUndecided(t *testing.T) {
	c, err := NewCompiler(BaseURL, map[string][]byte{"t.json": []byte(`{"$schema": "` + draft07 + `", "$id": "` + BaseURL + `t.json",
		"definitions": {"Zero": {"const": 0}, "Min": {"minimum": 1}, "Any": {}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	zero, err := c.Compile("t.json", "/definitions/Zero")
	if err != nil {
		t.Fatal(err)
	}
	minimum, err := c.Compile("t.json", "/definitions/Min")
	if err != nil {
		t.Fatal(err)
	}
	anything, err := c.Compile("t.json", "/definitions/Any")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n       *Node
		v       any
		valid   bool
		decided bool
	}{
		{zero, json.Number("0"), true, true},
		{zero, json.Number("1e400"), false, false},
		{zero, map[string]any{"a": json.Number("1e400")}, false, false},
		{minimum, json.Number("not a number"), false, false},
		{minimum, json.Number("1e400"), true, true},
		{minimum, json.Number("-1e400"), false, true},
		{minimum, json.Number("1"), true, true},
		{anything, 1.5, false, false},
		{anything, json.Number("1e400"), true, true},
	} {
		valid, decided := Valid(tc.n, tc.v)
		if valid != tc.valid || decided != tc.decided {
			t.Errorf("%#v: valid %v, decided %v; want %v, %v", tc.v, valid, decided, tc.valid, tc.decided)
		}
	}
	defer func() {
		if r := recover(); r == nil || r == errUndecided {
			t.Errorf("Valid recovered %v, want other panics passed on", r)
		}
	}()
	var broken *Node
	Valid(broken, nil)
}

// TestCanonicalTextIsGojsonschemas: the short cut for short integers gives
// what marshalWithoutNumber gives.
func TestCanonicalTextIsGojsonschemas(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "10", "123456789012345", "-123456789012345", "1234567890123456",
		"12345678901234567", "1.0", "1e2", "0.5", "-0.0", "100000000000000000000000"} {
		want, err := marshalWithoutNumber(json.Number(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := canonicalText(&jval{kind: jNumber, s: s}); got != want {
			t.Errorf("%s: %s, want %s", s, got, want)
		}
	}
	for _, s := range []string{"0", "-0", "7", "-7", "123456789012345", "-123456789012345"} {
		if !shortInteger(s) {
			t.Errorf("%s: not a short integer", s)
		}
	}
	for _, s := range []string{"", "-", "1234567890123456", "-1234567890123456", "01", "-01", "1.0", "1e2", "+1", "0x1"} {
		if shortInteger(s) {
			t.Errorf("%s: a short integer", s)
		}
	}
}

// parserCases are documents at the edges of JSON's grammar.
var parserCases = []string{
	``, ` `, `1`, `-`, `-0`, `01`, `-01`, `1.`, `.5`, `1e`, `1e+`, `1E5`, `1e-5`, `-1.5e-3`, `2.50`, `1.5E+10`,
	`tru`, `true`, `true `, ` true`, `truex`, `false`, `fals`, `null`, `nul`, `nulll`,
	`[1,]`, `[,1]`, `[]`, `[ ]`, `[1 2]`, `[1,2`, `[[[]]]`, `[{}]`,
	`{}`, `{ }`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1}x`, `{"a":1} `, `{"a":1`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1 "b":2}`,
	`"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\x"`, "\"a\x01\"", "\"\xff\"", `"é"`, `"\/"`, `"\\"`, `"\""`, `"a\"`, `"abc`, `"\`,
	`"\u12"`, `"\u00zz"`, "\"\t\"", "\"a\x7fb\"", `"<&>"`,
	`{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `1 2`, "\t\n\r 1 \n", "\v1", `{"a":[{"b":null}]}`, `[1,[2,[3]]]`,
	"\"\x1f\"", "\"\x00\"", "\" \"", "\"abcdefgh\x1fijklmnop\"", "\"abcdefghijklmnop\"", "\"abcdefgh\\u00e9ijklmnop\"",
	`[1x2]`, `[1:2]`, `[1;2]`, `{"a":1;"b":2}`, `{"a"=1}`, `[1,,2]`, `{"a":1,,"b":2}`, `{"a":1 ,"b" :2 }`, `[1 ,2 ]`,
	`{"a\u0000b": 1}`, `{"é": "é"}`, `{"\u00e9": 1}`, `123456789012345678901234567890`, `1e400`, `-`, `--1`, `+1`, `0x1`, `NaN`,
}

// TestParseJSONAgreesWithDecodeDocument: what the fast path's parser reads,
// Decode decodes to the same value; what it leaves, Decode
// refuses, or holds a key twice, or nests deeper than the parser follows.
func TestParseJSONAgreesWithDecodeDocument(t *testing.T) {
	docs := append([]string(nil), parserCases...)
	docs = append(docs, strings.Repeat("[", maxParseDepth)+strings.Repeat("]", maxParseDepth))
	docs = append(docs, strings.Repeat("[", maxParseDepth+1)+strings.Repeat("]", maxParseDepth+1))
	docs = append(docs, strings.Repeat(`{"a":`, maxParseDepth)+"1"+strings.Repeat("}", maxParseDepth))
	docs = append(docs, strings.Repeat(`{"a":`, maxParseDepth+1)+"1"+strings.Repeat("}", maxParseDepth+1))
	many := `{"a0":0`
	for i := 1; i < 40; i++ {
		many += fmt.Sprintf(`,"a%d":%d`, i, i)
	}
	docs = append(docs, many+"}", many+`,"a7":7}`, many+`,"a39":[1,{"x":"y"}]}`)
	parsed := 0
	for _, doc := range docs {
		if checkParse(t, []byte(doc)) {
			parsed++
		}
	}
	// What the parser must read, and must leave.
	for doc, want := range map[string]bool{
		`{"a":1,"a":2}`: false, many + `,"a7":7}`: false, many + "}": true, `"\ud83d"`: true, "\"\xff\"": true, `"\u00e9"`: true,
		strings.Repeat("[", maxParseDepth) + strings.Repeat("]", maxParseDepth):               true,
		strings.Repeat("[", maxParseDepth+1) + strings.Repeat("]", maxParseDepth+1):           false,
		strings.Repeat(`{"a":`, maxParseDepth+1) + "1" + strings.Repeat("}", maxParseDepth+1): false,
		strings.Repeat(`{"a":`, maxParseDepth) + "1" + strings.Repeat("}", maxParseDepth):     true,
		`1`: true, `-0`: true, `1E5`: true, `-1.5e-3`: true, "\t\n\r 1 \n": true, `[ ]`: true, `{ }`: true, `[{}]`: true,
	} {
		if _, ok := parseJSON([]byte(doc)); ok != want {
			t.Errorf("%.60s: parsed %v, want %v", doc, ok, want)
		}
	}
	if parsed < 40 {
		t.Errorf("%d documents parsed, want at least 40", parsed)
	}
}

// checkParse compares the parser with Decode on one document and
// reports whether the parser read it.
func checkParse(t *testing.T, doc []byte) bool {
	t.Helper()
	v, ok := parseJSON(doc)
	decoded, err := Decode(doc)
	if !ok {
		if err == nil && !hasDuplicateOrDeep(doc) {
			t.Errorf("%.80q: left to Decode, which decodes it", doc)
		}
		return false
	}
	if err != nil {
		t.Errorf("%.80q: parsed, but Decode says %v", doc, err)
		return true
	}
	if got := v.toAny(); !reflect.DeepEqual(got, decoded) {
		t.Errorf("%.80q: parsed %#v, Decode %#v", doc, got, decoded)
	}
	if back, ok := toJval(decoded); !ok || !reflect.DeepEqual(back.toAny(), decoded) {
		t.Errorf("%.80q: toJval does not give the value back", doc)
	}
	return true
}

// hasDuplicateOrDeep reports whether a document, which Decode
// decodes, holds a key twice or nests deeper than maxParseDepth: the
// documents the parser leaves to it. It reads the document's tokens.
func hasDuplicateOrDeep(doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool // nil for an array
		expect bool            // an object's next token is a key
	}
	var stack []*frame
	deepest := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest > maxParseDepth
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.keys != nil && top.expect {
			k := tok.(string)
			if top.keys[k] {
				return true
			}
			top.keys[k] = true
			top.expect = false
			continue
		}
		if top != nil && top.keys != nil {
			top.expect = true // a value read: a key comes next
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, expect: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		}
		deepest = max(deepest, len(stack))
	}
}

// FuzzParseJSON compares the parser with Decode on any input.
func FuzzParseJSON(f *testing.F) {
	for _, c := range parserCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { checkParse(t, doc) })
}

// schemaPatterns returns every pattern of the embedded files.
func schemaPatterns(t testing.TB) []string {
	t.Helper()
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if p, ok := x["pattern"].(string); ok {
				seen[p] = true
			}
			for _, k := range sortedKeys(x) {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	names, err := filepath.Glob(filepath.Join("..", "..", "*.json")) // the files package schemas embeds
	if err != nil || len(names) == 0 {
		t.Fatalf("the schema files: %v %v", names, err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		walk(doc)
	}
	return sortedKeys(seen)
}

// regexpCases are patterns that use every operator of regexp/syntax the
// DFA handles, and some it leaves to regexp.
var regexpCases = []struct {
	pattern string
	dfa     bool
}{
	{`a*`, true}, {`^a+$`, true}, {`^a?b$`, true}, {`^(ab){2}$`, true}, {`^(ab){2,}$`, true}, {`^(ab){1,3}$`, true},
	{`^a{0}$`, true}, {`(a|b)c`, true}, {`[^a]`, true}, {`^.$`, true}, {`(?s)^.$`, true}, {`^$`, true}, {`$`, true},
	{``, true}, {`a^`, true}, {`$a`, true}, {`\Aa\z`, true}, {`(?i)ab`, true}, {`^µs$`, true}, {`^x*?y`, true},
	{`[[:alpha:]]+`, true}, {`\d+$`, true}, {`^(a*)*$`, true}, {`^(a|ab)(c|bcd)(d*)$`, true}, {`(a+|b)*c`, true},
	{`^(?:)$`, true}, {`$^`, true}, {`^a*`, true}, {`^`, true}, {`(?:^|a)b`, true}, {`a|^$`, true}, {`b`, true}, {`^a|b$`, true}, {`[a-c]{2,3}d?`, true}, {`^\x00a`, true}, {`\n`, true},
	{`\bab`, false}, {`(?m)^a$`, false}, {`\Bb`, false}, {`(a|b)*a(a|b){12}`, false},
}

// TestFastRegexpAgreesWithRegexp compares the DFA with regexp on every
// pattern of the files and of regexpCases, for every string of up to five
// characters over an alphabet of the pattern's own characters and a few
// others, and on strings near those the files' patterns describe.
func TestFastRegexpAgreesWithRegexp(t *testing.T) {
	type pc struct {
		pattern string
		dfa     bool
	}
	var patterns []pc
	for _, p := range schemaPatterns(t) {
		patterns = append(patterns, pc{p, true})
	}
	for _, c := range regexpCases {
		patterns = append(patterns, pc{c.pattern, c.dfa})
	}
	if len(patterns) < len(regexpCases)+20 {
		t.Fatalf("%d patterns, want the files' too", len(patterns))
	}
	near := []string{"0", "1", "18446744073709551615", "18446744073709551616", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", strings.Repeat("a", 64), strings.Repeat("f", 63), strings.Repeat("A", 64), "0x" + strings.Repeat("a", 40),
		"1.5", "0.", ".5", "-0", "01", "1h30m0s", "1µs", "v1.2.3-rc.1", "2026-11-26T08:30:52Z", "AB", "ab", "a.b_c", strings.Repeat("ab", 100),
		strings.Repeat("0", 300), strings.Repeat("a", 43) + "=", "é", "aé", "a\nb", ""}
	// Every string of up to five letters of the pattern's alphabet; with
	// -short up to three. Under the race detector with -short (make test's
	// third pass) not at all: a compiled DFA is only read, there is nothing
	// concurrent to watch, and make test's second pass runs it in full.
	if testing.Short() && race.Enabled {
		t.Skip("-short under the race detector: nothing concurrent; make test runs it without the detector")
	}
	longest := 5
	if testing.Short() {
		longest = 3
	}
	for _, p := range patterns {
		f, err := compileFastRegexp(p.pattern)
		if err != nil {
			t.Fatalf("%s: %v", p.pattern, err)
		}
		if (f.next != nil) != p.dfa {
			t.Errorf("%s: DFA built %v, want %v", p.pattern, f.next != nil, p.dfa)
		}
		alphabet := []byte("0a\n-.")
		for _, r := range p.pattern {
			if r < 0x80 && !strings.ContainsRune(string(alphabet), r) && len(alphabet) < 9 {
				alphabet = append(alphabet, byte(r))
			}
		}
		check := func(s string) {
			if got, want := f.MatchString(s), f.re.MatchString(s); got != want {
				t.Errorf("%s: %q: DFA says %v, regexp %v", p.pattern, s, got, want)
			}
		}
		var gen func(prefix []byte)
		gen = func(prefix []byte) {
			check(string(prefix))
			if len(prefix) == longest {
				return
			}
			for _, c := range alphabet {
				gen(append(prefix, c))
			}
		}
		gen(nil)
		for _, s := range near {
			check(s)
			for i := 0; i < len(s); i++ {
				for _, c := range []byte("09af-.x") {
					check(s[:i] + string(c) + s[i+1:])
				}
				check(s[:i] + s[i+1:])
			}
		}
	}
}

// FuzzFastRegexp compares the DFA with regexp on any pattern and string.
func FuzzFastRegexp(f *testing.F) {
	for _, c := range regexpCases {
		f.Add(c.pattern, "ab")
	}
	f.Add(`^(0|[1-9][0-9]{0,18})$`, "123")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		fr, err := compileFastRegexp(pattern)
		if err != nil {
			return
		}
		if got, want := fr.MatchString(s), fr.re.MatchString(s); got != want {
			t.Fatalf("%q: %q: DFA says %v, regexp %v", pattern, s, got, want)
		}
	})
}

// compileOne compiles definition S of a file of its own.
func compileOne(schema string, extra string) (*Node, error) {
	file := `{"$schema": "` + draft07 + `", "$id": "` + BaseURL + `t.json", "definitions": {"S": ` + schema + extra + `}}`
	c, err := NewCompiler(BaseURL, map[string][]byte{"t.json": []byte(file)})
	if err != nil {
		return nil, err
	}
	return c.Compile("t.json", "/definitions/S")
}

// TestFastCompilerRefuses: every keyword value of a form the compiler does
// not support, and every reference it cannot follow, fails the
// compilation.
func TestFastCompilerRefuses(t *testing.T) {
	for _, schema := range []string{
		`1`, `"x"`, `null`, `[]`, `{"unknownKeyword": 1}`, `{"uniqueItems": false}`,
		`{"type": 1}`, `{"type": "float"}`, `{"type": ["string", "string"]}`, `{"type": []}`, `{"type": [1]}`,
		`{"minimum": "1"}`, `{"maximum": true}`, `{"minimum": 1, "maximum": "x"}`,
		`{"minLength": -1}`, `{"minLength": 1.5}`, `{"maxLength": "1"}`, `{"minItems": 99999999999}`, `{"maxItems": -1}`,
		`{"minLength": 3, "maxLength": 2}`, `{"minLength": 1, "maxLength": 0}`,
		`{"pattern": "("}`, `{"pattern": 1}`, `{"format": 1}`, `{"format": "email"}`, `{"format": "ipv6"}`,
		`{"enum": 1}`, `{"enum": ["a", "a"]}`, `{"enum": [1, 1.0]}`, `{"const": 1e400}`, `{"enum": [1e400]}`,
		`{"required": "a"}`, `{"required": [1]}`, `{"required": ["a", "a"]}`,
		`{"additionalProperties": {}}`, `{"additionalProperties": 0}`, `{"properties": []}`, `{"properties": {"a": 1}}`,
		`{"dependencies": {"a": ["b"]}}`, `{"dependencies": 1}`, `{"propertyNames": 1}`, `{"items": [{}]}`, `{"items": 1}`,
		`{"allOf": {}}`, `{"anyOf": [1]}`, `{"oneOf": 1}`, `{"not": 1}`, `{"if": 1}`, `{"then": 1}`, `{"else": 1}`,
		`{"properties": {"a": {"uniqueItems": true}}}`, `{"allOf": [{}, {"contains": {}}]}`,
		`{"$schema": "http://json-schema.org/draft-04/schema#"}`, `{"$id": "x.json"}`, `{"$id": "` + BaseURL + `t.json"}`,
		`{"$ref": 1}`, `{"$ref": "#/definitions/L", "type": "string"}`, `{"$ref": "%zz"}`, `{"$ref": "other.json#/definitions/S"}`,
		`{"$ref": "https://elsewhere.example/t.json#/definitions/S"}`, `{"$ref": "#/definitions/Nope"}`, `{"$ref": "#nope"}`,
		`{"$ref": "#/definitions/L/allOf/5"}`, `{"$ref": "#/definitions/L/allOf/x"}`, `{"$ref": "#/definitions/L/type/x"}`,
		`{"$ref": "#/definitions/Bad"}`,
	} {
		if _, err := compileOne(schema, `, "L": {"allOf": [{"type": "string"}]}, "Bad": {"maxItems": "x"}`); err == nil {
			t.Errorf("%s: compiled", schema)
		}
	}
	for _, schema := range []string{
		`{}`, `true`, `false`, `{"$schema": "` + draft07 + `"}`, `{"$ref": "#/definitions/L/allOf/0"}`, `{"$ref": "#/definitions/T~1x"}`,
		`{"$ref": "#"}`, `{"$ref": "` + BaseURL + `t.json#/definitions/L"}`, `{"format": "price"}`, `{"format": "uri"}`,
		`{"format": "date-time"}`, `{"minLength": 2, "maxLength": 2}`, `{"items": true}`, `{"const": {"a": [1]}}`,
		`{"$comment": "c", "title": "t", "description": "d", "definitions": {"X": 1}, "x-spec-fields": 1, "x-spec-oneof": 1}`,
	} {
		if _, err := compileOne(schema, `, "L": {"allOf": [{"type": "string"}]}, "T/x": {}`); err != nil {
			t.Errorf("%s: %v", schema, err)
		}
	}
	// A file that is not a harness schema file.
	for _, file := range []string{
		`[]`, `{"$id": "` + BaseURL + `t.json", "definitions": {"S": {}}}`,
		`{"$schema": "` + draft07 + `", "$id": "` + BaseURL + `u.json", "definitions": {"S": {}}}`,
	} {
		c, err := NewCompiler(BaseURL, map[string][]byte{"t.json": []byte(file)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("t.json", "/definitions/S"); err == nil {
			t.Errorf("%s: compiled", file)
		}
	}
	if _, err := NewCompiler(BaseURL, map[string][]byte{"t.json": []byte(`{`)}); err == nil {
		t.Error("a file that is not JSON: compiled")
	}
}

// TestFastCompilerSharesOnlyWhatCompiled: a root that fails leaves nothing
// behind, and one that succeeds is reused.
func TestFastCompilerSharesOnlyWhatCompiled(t *testing.T) {
	file := `{"$schema": "` + draft07 + `", "$id": "` + BaseURL + `t.json", "definitions": {
		"Good": {"properties": {"a": {"$ref": "#/definitions/Shared"}}}, "Shared": {"type": "string"},
		"Bad": {"properties": {"a": {"$ref": "#/definitions/Shared"}, "b": {"$ref": "#/definitions/Worse"}}},
		"Worse": {"uniqueItems": true}}}`
	c, err := NewCompiler(BaseURL, map[string][]byte{"t.json": []byte(file)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("t.json", "/definitions/Bad"); err == nil {
		t.Fatal("Bad compiled")
	}
	if len(c.done) != 0 {
		t.Errorf("a failed compilation left %d nodes", len(c.done))
	}
	good, err := c.Compile("t.json", "/definitions/Good")
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Compile("t.json", "/definitions/Good")
	if err != nil || again != good {
		t.Errorf("compiled again: %p, %v; want the same %p", again, err, good)
	}
	if c.done[BaseURL+"t.json#/definitions/Shared"] == nil {
		t.Error("Shared is not kept")
	}
	if _, err := c.Compile("t.json", "/definitions/Bad"); err == nil {
		t.Error("Bad compiled the second time")
	}
}

// TestStringEnumOnly: propertyNames of an enum of strings and nothing
// else is checked by the names; any other schema by the schema.
func TestStringEnumOnly(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"enum": ["a", "b"]}`: true, `{"enum": ["a", 1]}`: false, `{"enum": ["a"], "maxLength": 3}`: false,
		`{"enum": ["a"], "type": "string"}`: false, `{"type": "string"}`: false, `{"enum": ["a"], "description": "d"}`: true,
		`{"$ref": "#/definitions/E"}`: false,
	} {
		n, err := compileOne(schema, `, "E": {"enum": ["a"]}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := stringEnumOnly(n) != nil; got != want {
			t.Errorf("%s: by the names %v, want %v", schema, got, want)
		}
	}
}

// TestHasSpecialByte checks the eight-byte test against the byte-by-byte
// one, for every byte at every place among ordinary ones.
func TestHasSpecialByte(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	for _, fill := range []byte{'a', ' ', '!', '#', '[', ']', '~', 0x7f, '0'} {
		for pos := 0; pos < 8; pos++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat(string(fill), 8))
				b[pos] = byte(c)
				want := special(byte(c)) || special(fill)
				if got := hasSpecialByte(load64(string(b), 0)); got != want {
					t.Errorf("%q: special %v, want %v", b, got, want)
				}
			}
		}
	}
	// Two special bytes side by side, which borrow from each other.
	for c := 0; c < 256; c++ {
		for d := 0; d < 256; d++ {
			b := []byte("aaaaaaaa")
			b[3], b[4] = byte(c), byte(d)
			want := special(byte(c)) || special(byte(d))
			if got := hasSpecialByte(load64(string(b), 0)); got != want {
				t.Fatalf("%q: special %v, want %v", b, got, want)
			}
		}
	}
}

// TestCompileBound: a bound is compared as an int64 when it is an integer
// that fits, as a big.Rat always.
func TestCompileBound(t *testing.T) {
	for text, want := range map[string]struct {
		isInt bool
		i     int64
	}{
		"0": {true, 0}, "-2147483648": {true, -2147483648}, "1.0": {true, 1}, "1e2": {true, 100}, "0.5": {false, 0},
		"9223372036854775807": {true, 9223372036854775807}, "9223372036854775808": {false, 0}, "1e30": {false, 0},
	} {
		b, err := compileBound(json.Number(text))
		if err != nil {
			t.Fatal(err)
		}
		if b.isInt != want.isInt || b.isInt && b.i != want.i || b.rat.RatString() == "" {
			t.Errorf("%s: isInt %v, i %d; want %v, %d", text, b.isInt, b.i, want.isInt, want.i)
		}
		for _, x := range []string{"-1", "0", "1", "99", "100", "101", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "0.5", "1e30"} {
			r, _ := new(big.Rat).SetString(x)
			if got, want := compareNumber(x, b), r.Cmp(b.rat); got != want {
				t.Errorf("%s against %s: %d, want %d", x, text, got, want)
			}
		}
	}
}

// TestShortIntegersCostNothing: an integer of up to 15 digits at an enum or
// const is its own text, with no encoding round trip.
func TestShortIntegersCostNothing(t *testing.T) {
	v := &jval{kind: jNumber, s: "123456789012345"}
	if n := testing.AllocsPerRun(100, func() { canonicalText(v) }); n != 0 {
		t.Errorf("%v allocations, want none", n)
	}
}

// TestPointerGet follows JSON pointers into objects and arrays, the ends
// of an array included, and refuses what is not there.
func TestPointerGet(t *testing.T) {
	doc := map[string]any{"a": []any{"x", "y"}, "b/c": map[string]any{"~d": "z"}}
	for _, tc := range []struct {
		pointer string
		want    any // nil: refused
	}{
		{"/a/0", "x"}, {"/a/1", "y"}, {"/a/2", nil}, {"/a/-1", nil}, {"/a/x", nil},
		{"/b~1c/~0d", "z"}, {"/b", nil}, {"/a/0/0", nil}, {"a", nil},
	} {
		got, err := pointerGet(doc, tc.pointer)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: %v, want refused", tc.pointer, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.pointer, got, err, tc.want)
		}
	}
}

// TestCompileCount takes the counts of minLength and its kind, zero
// included, and refuses negative and fractional ones.
func TestCompileCount(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want int // -1: refused
	}{
		{json.Number("0"), 0}, {json.Number("7"), 7}, {json.Number("-1"), -1}, {json.Number("1.5"), -1}, {"3", -1},
	} {
		got, err := compileCount(tc.in)
		if (err != nil) != (tc.want < 0) || (err == nil && got != tc.want) {
			t.Errorf("%v: %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// TestParserOnEveryPrefix gives the parser every prefix of documents that
// reach each place it reads: a document cut anywhere is read as
// encoding/json reads it (refused, or a shorter value), never past its end.
func TestParserOnEveryPrefix(t *testing.T) {
	docs := append([]string{
		`{"abc": [1, -2.5e3, true, false, null, "x\u00e9\n", {"d": {}}, []], "e": "0123456789abcdefghij"}`,
		`[{"a":1},{"b":[{"c":"dddddddddddddddd"}]}]`,
	}, parserCases...)
	for _, doc := range docs {
		for i := range len(doc) {
			checkParse(t, []byte(doc[:i]))
		}
	}
}
