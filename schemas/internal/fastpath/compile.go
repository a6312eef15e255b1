package fastpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xeipuuv/gojsonschema"
)

// draft07 is the $schema every file declares.
const draft07 = "http://json-schema.org/draft-07/schema#"

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// errUndecided is what a check panics with when it cannot tell what
// gojsonschema would answer (a number out of float64's range at an enum,
// which gojsonschema cannot canonicalize); the fast path then gives the
// document to gojsonschema.
var errUndecided = errors.New("schemas: fast path undecided")

// annotationKeywords are the keywords that say nothing about validity,
// which the compiler accepts and ignores.
var annotationKeywords = map[string]bool{
	"title": true, "description": true, "$comment": true, "definitions": true,
	"x-spec-fields": true, "x-spec-oneof": true, "x-spec-types": true, "x-spec-pattern": true,
}

// JSON types as a bit set.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeInteger
	typeString
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "object": typeObject, "array": typeArray,
	"number": typeNumber, "integer": typeInteger, "string": typeString,
}

// Node is one compiled schema.
type Node struct {
	// always holds the verdict of a boolean schema (true or false); the
	// other fields are then unused.
	always *bool
	// ref is the target of a $ref, when the schema has one: the other
	// keywords beside it are ignored, as gojsonschema ignores them.
	ref *Node

	types uint8 // 0: untyped

	// Numbers.
	minimum, maximum *bound

	// Strings.
	minLength, maxLength int // -1: none
	pattern              *fastRegexp
	format               string // a format gojsonschema checks; "" when none

	// Any value.
	hasConst bool
	constant enumValue
	enum     []enumValue
	enumStr  map[string]bool // the enum's strings, for strings checked fast

	// Objects.
	properties    map[string]*Node
	propertyList  []namedNode // properties, sorted by name
	required      []string
	closed        bool // additionalProperties false
	propertyNames *Node
	namesEnum     map[string]bool // the names propertyNames allows, when it is an enum of strings and no more
	dependencies  map[string]*Node

	// Arrays.
	items              *Node
	minItems, maxItems int // -1: none

	// Combinators.
	allOf, anyOf, oneOf []*Node
	not                 *Node
	ifNode, thenNode    *Node
	elseNode            *Node
}

// namedNode is a property's schema with its name.
type namedNode struct {
	name string
	node *Node
}

// bound is a minimum or maximum: as gojsonschema holds it, and as an int64
// when it is an integer in range, for integers compared fast.
type bound struct {
	rat   *big.Rat
	i     int64
	isInt bool
}

// enumValue is a value of an enum or const as gojsonschema compares it:
// its JSON text, decoded without json.Number and encoded again.
type enumValue struct {
	text  string
	str   string // the string, when the value is one
	isStr bool
}

// Compiler compiles the schemas of one set of files. Compiled nodes are
// shared: a node, once its compilation has succeeded, never changes.
type Compiler struct {
	base     string         // the URL the files' names are relative to (their $id less the name)
	docs     map[string]any // file name -> document, decoded as gojsonschema decodes it
	done     map[string]*Node
	patterns map[string]*fastRegexp
}

// NewCompiler decodes the files as gojsonschema does (numbers as
// json.Number). Each file's $id must be base followed by its name.
func NewCompiler(base string, files map[string][]byte) (*Compiler, error) {
	c := &Compiler{base: base, docs: map[string]any{}, done: map[string]*Node{}, patterns: map[string]*fastRegexp{}}
	for name, data := range files {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.docs[name] = doc
	}
	return c, nil
}

// compileSession compiles one root. Its nodes join the compiler's shared
// ones only when the whole root compiles.
type compileSession struct {
	c     *Compiler
	nodes map[string]*Node
}

// Compile compiles the schema at pointer in file, with every schema it
// refers to. It fails for any keyword, or keyword value, the fast path
// does not support.
func (c *Compiler) Compile(file, pointer string) (*Node, error) {
	s := &compileSession{c: c, nodes: map[string]*Node{}}
	n, err := s.at(c.base + file + "#" + pointer)
	if err != nil {
		return nil, err
	}
	for k, x := range s.nodes {
		c.done[k] = x
	}
	return n, nil
}

// at compiles the schema an absolute reference names.
func (s *compileSession) at(ref string) (*Node, error) {
	if n, ok := s.c.done[ref]; ok {
		return n, nil
	}
	if n, ok := s.nodes[ref]; ok {
		return n, nil
	}
	u, err := url.Parse(ref)
	if err != nil {
		return nil, fmt.Errorf("$ref %q: %w", ref, err)
	}
	fragment := u.Fragment
	u.Fragment = ""
	file, ok := strings.CutPrefix(u.String(), s.c.base)
	if !ok {
		return nil, fmt.Errorf("$ref %q: not a schema file of the harness", ref)
	}
	doc, ok := s.c.docs[file]
	if !ok {
		return nil, fmt.Errorf("$ref %q: no file %s", ref, file)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not an object", file)
	}
	if schema, _ := root["$schema"].(string); schema != draft07 {
		return nil, fmt.Errorf("%s: $schema %q, want %q", file, root["$schema"], draft07)
	}
	if id, _ := root["$id"].(string); id != s.c.base+file {
		return nil, fmt.Errorf("%s: $id %q, want %q", file, root["$id"], s.c.base+file)
	}
	target, err := pointerGet(doc, fragment)
	if err != nil {
		return nil, fmt.Errorf("$ref %q: %w", ref, err)
	}
	n := &Node{}
	s.nodes[ref] = n // before the children: references may loop
	if err := s.fill(n, target, file, fragment == ""); err != nil {
		return nil, fmt.Errorf("%s#%s: %w", file, fragment, err)
	}
	return n, nil
}

// pointerGet follows a JSON pointer ("" or "/a/b") in a decoded document.
func pointerGet(doc any, pointer string) (any, error) {
	if pointer == "" {
		return doc, nil
	}
	if pointer[0] != '/' {
		return nil, fmt.Errorf("fragment %q is not a JSON pointer", pointer)
	}
	cur := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("no %q in %q", tok, pointer)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("no %q in %q", tok, pointer)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("no %q in %q", tok, pointer)
		}
	}
	return cur, nil
}

// sub compiles a schema nested in another (a property's, an item's, a
// branch's...), which is never a root.
func (s *compileSession) sub(v any, file string) (*Node, error) {
	n := &Node{}
	if err := s.fill(n, v, file, false); err != nil {
		return nil, err
	}
	return n, nil
}

// fill compiles schema v into n.
func (s *compileSession) fill(n *Node, v any, file string, root bool) error {
	n.minLength, n.maxLength, n.minItems, n.maxItems = -1, -1, -1, -1
	if b, ok := v.(bool); ok {
		n.always = &b
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("a schema must be an object or a boolean, got %T", v)
	}
	if ref, ok := m["$ref"]; ok {
		text, isStr := ref.(string)
		if !isStr {
			return fmt.Errorf("$ref must be a string")
		}
		for k := range m {
			if k != "$ref" && !annotationKeywords[k] {
				return fmt.Errorf("keyword %q beside $ref", k)
			}
		}
		base, _ := url.Parse(s.c.base + file)
		rel, err := url.Parse(text)
		if err != nil {
			return fmt.Errorf("$ref %q: %w", text, err)
		}
		target, err := s.at(base.ResolveReference(rel).String())
		if err != nil {
			return err
		}
		n.ref = target
		return nil
	}
	for _, k := range sortedKeys(m) {
		val := m[k]
		var err error
		switch k {
		case "$schema":
			if val != draft07 {
				err = fmt.Errorf("$schema %v", val)
			}
		case "$id":
			if !root || val != s.c.base+file {
				err = fmt.Errorf("$id %v", val)
			}
		case "type":
			n.types, err = compileTypes(val)
		case "minimum":
			n.minimum, err = compileBound(val)
		case "maximum":
			n.maximum, err = compileBound(val)
		case "minLength":
			n.minLength, err = compileCount(val)
		case "maxLength":
			n.maxLength, err = compileCount(val)
		case "minItems":
			n.minItems, err = compileCount(val)
		case "maxItems":
			n.maxItems, err = compileCount(val)
		case "pattern":
			n.pattern, err = s.compilePattern(val)
		case "format":
			n.format, err = compileFormat(val)
		case "const":
			n.hasConst = true
			n.constant, err = canonicalOf(val)
		case "enum":
			err = n.compileEnum(val)
		case "required":
			n.required, err = compileRequired(val)
		case "additionalProperties":
			b, isBool := val.(bool)
			if !isBool {
				err = fmt.Errorf("additionalProperties must be a boolean")
			}
			n.closed = !b
		case "properties":
			n.properties, err = s.schemaMap(val, file)
			for _, name := range sortedKeys(n.properties) {
				n.propertyList = append(n.propertyList, namedNode{name, n.properties[name]})
			}
		case "dependencies":
			n.dependencies, err = s.schemaMap(val, file)
		case "propertyNames":
			if n.propertyNames, err = s.sub(val, file); err == nil {
				n.namesEnum = stringEnumOnly(n.propertyNames)
			}
		case "items":
			if _, isList := val.([]any); isList {
				err = fmt.Errorf("items as a list of schemas")
			} else {
				n.items, err = s.sub(val, file)
			}
		case "allOf":
			n.allOf, err = s.schemaList(val, file)
		case "anyOf":
			n.anyOf, err = s.schemaList(val, file)
		case "oneOf":
			n.oneOf, err = s.schemaList(val, file)
		case "not":
			n.not, err = s.sub(val, file)
		case "if":
			n.ifNode, err = s.sub(val, file)
		case "then":
			n.thenNode, err = s.sub(val, file)
		case "else":
			n.elseNode, err = s.sub(val, file)
		default:
			if !annotationKeywords[k] {
				err = fmt.Errorf("keyword %q is not supported by the fast path", k)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	if n.minLength > n.maxLength && n.maxLength >= 0 {
		return fmt.Errorf("minLength above maxLength")
	}
	return nil
}

// stringEnumOnly returns the strings of a schema that is an enum of strings
// and says nothing else, or nil.
func stringEnumOnly(n *Node) map[string]bool {
	if len(n.enum) == 0 || len(n.enumStr) != len(n.enum) {
		return nil
	}
	plain := Node{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, enum: n.enum, enumStr: n.enumStr}
	if !reflect.DeepEqual(*n, plain) {
		return nil
	}
	return n.enumStr
}

func compileTypes(v any) (uint8, error) {
	var list []any
	switch t := v.(type) {
	case string:
		list = []any{t}
	case []any:
		list = t
	default:
		return 0, fmt.Errorf("type must be a string or a list")
	}
	var set uint8
	for _, x := range list {
		name, _ := x.(string)
		bit, ok := typeBits[name]
		if !ok || set&bit != 0 {
			return 0, fmt.Errorf("type %v", x)
		}
		set |= bit
	}
	if set == 0 {
		return 0, fmt.Errorf("empty type list")
	}
	return set, nil
}

func compileBound(v any) (*bound, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("must be a number")
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return nil, fmt.Errorf("number %s", num)
	}
	b := &bound{rat: r}
	if r.IsInt() && r.Num().IsInt64() {
		b.i, b.isInt = r.Num().Int64(), true
	}
	return b, nil
}

// compileCount reads a non-negative integer, as gojsonschema's
// mustBeInteger does.
func compileCount(v any) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("must be an integer")
	}
	i, err := strconv.ParseInt(string(num), 10, 32)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%s is not a non-negative integer", num)
	}
	return int(i), nil
}

func (s *compileSession) compilePattern(v any) (*fastRegexp, error) {
	text, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("must be a string")
	}
	if re, ok := s.c.patterns[text]; ok {
		return re, nil
	}
	re, err := compileFastRegexp(text)
	if err != nil {
		return nil, err
	}
	s.c.patterns[text] = re
	return re, nil
}

// checkedFormats are the formats of gojsonschema's format checkers the fast
// path checks, by those very checkers. Another format gojsonschema checks
// fails the compilation; a format it does not know it accepts, and so does
// the fast path.
var checkedFormats = map[string]bool{"date-time": true, "uri": true}

func compileFormat(v any) (string, error) {
	name, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("must be a string")
	}
	if !gojsonschema.FormatCheckers.Has(name) {
		return "", nil
	}
	if !checkedFormats[name] {
		return "", fmt.Errorf("format %q is not supported by the fast path", name)
	}
	return name, nil
}

func (n *Node) compileEnum(v any) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("must be a list")
	}
	seen := map[string]bool{}
	for _, x := range list {
		c, err := canonicalOf(x)
		if err != nil {
			return err
		}
		if seen[c.text] {
			return fmt.Errorf("%s listed twice", c.text)
		}
		seen[c.text] = true
		n.enum = append(n.enum, c)
		if c.isStr {
			if n.enumStr == nil {
				n.enumStr = map[string]bool{}
			}
			n.enumStr[c.str] = true
		}
	}
	return nil
}

func compileRequired(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list")
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		name, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a string", x)
		}
		for _, prev := range out {
			if prev == name {
				return nil, fmt.Errorf("%q listed twice", name)
			}
		}
		out = append(out, name)
	}
	return out, nil
}

func (s *compileSession) schemaMap(v any, file string) (map[string]*Node, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be an object")
	}
	out := make(map[string]*Node, len(m))
	for _, name := range sortedKeys(m) {
		child, err := s.sub(m[name], file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = child
	}
	return out, nil
}

func (s *compileSession) schemaList(v any, file string) ([]*Node, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list")
	}
	out := make([]*Node, 0, len(list))
	for i, x := range list {
		child, err := s.sub(x, file)
		if err != nil {
			return nil, fmt.Errorf("%d: %w", i, err)
		}
		out = append(out, child)
	}
	return out, nil
}

// canonicalOf returns a value's text as gojsonschema compares enum and
// const values (marshalWithoutNumber): encoded, decoded without
// json.Number, encoded again.
func canonicalOf(v any) (enumValue, error) {
	text, err := marshalWithoutNumber(v)
	if err != nil {
		return enumValue{}, err
	}
	c := enumValue{text: text}
	c.str, c.isStr = v.(string)
	return c, nil
}

func marshalWithoutNumber(v any) (string, error) {
	first, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var plain any
	if err := json.Unmarshal(first, &plain); err != nil {
		return "", err
	}
	second, err := json.Marshal(plain)
	if err != nil {
		return "", err
	}
	return string(second), nil
}

// Valid reports whether the compiled schema accepts doc, a document
// decoded as decodeDocument decodes it; decided is false when the fast path
// cannot tell, and the caller must ask gojsonschema.
func Valid(n *Node, doc any) (valid, decided bool) {
	v, ok := toJval(doc)
	if !ok {
		return false, false
	}
	return validTree(n, &v)
}

// ValidBytes is Valid for a document not decoded yet; decided is
// also false when the parser leaves the document to decodeDocument.
func ValidBytes(n *Node, doc []byte) (valid, decided bool) {
	buf := jbufferPool.Get().(*jbuffers)
	defer buf.release()
	v, ok := parseJSONInto(doc, buf)
	if !ok {
		return false, false
	}
	return validTree(n, &v)
}

func validTree(n *Node, v *jval) (valid, decided bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != errUndecided {
				panic(r)
			}
			valid, decided = false, false
		}
	}()
	return n.valid(v), true
}

// valid reports whether v is valid against the schema, checking the
// keywords as gojsonschema's validateRecursive does.
func (n *Node) valid(v *jval) bool {
	for n.ref != nil {
		n = n.ref
	}
	if n.always != nil {
		return *n.always
	}
	switch v.kind {
	case jNull:
		if n.types != 0 && n.types&typeNull == 0 {
			return false
		}
		return n.validCombinators(v) && n.validCommon(v)
	case jNumber:
		if n.types != 0 && n.types&typeNumber == 0 && (n.types&typeInteger == 0 || !numberIsInt(v.s)) {
			return false
		}
		return n.validCombinators(v) && n.validNumber(v.s) && n.validCommon(v)
	case jArray:
		if n.types != 0 && n.types&typeArray == 0 {
			return false
		}
		return n.validCombinators(v) && n.validArray(v.kids) && n.validCommon(v)
	case jObject:
		if n.types != 0 && n.types&typeObject == 0 {
			return false
		}
		return n.validCombinators(v) && n.validObject(v) && n.validCommon(v)
	case jBool:
		if n.types != 0 && n.types&typeBoolean == 0 {
			return false
		}
		return n.validCombinators(v) && n.validCommon(v)
	}
	if n.types != 0 && n.types&typeString == 0 {
		return false
	}
	return n.validCombinators(v) && n.validCommon(v) && n.validString(v.s)
}

// numberIsInt reports whether a JSON number is an integer as gojsonschema
// decides it (big.Rat.IsInt: 1.0 and 1e2 are integers).
func numberIsInt(s string) bool {
	if plainInteger(s) {
		return true
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt()
}

// plainInteger reports whether s is an optional minus sign and digits only.
func plainInteger(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validCombinators checks anyOf, oneOf, allOf, not, dependencies and
// if/then/else (gojsonschema's validateSchema).
func (n *Node) validCombinators(v *jval) bool {
	if len(n.anyOf) > 0 {
		ok := false
		for _, b := range n.anyOf {
			if b.valid(v) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(n.oneOf) > 0 {
		count := 0
		for _, b := range n.oneOf {
			if b.valid(v) {
				count++
			}
		}
		if count != 1 {
			return false
		}
	}
	for _, b := range n.allOf {
		if !b.valid(v) {
			return false
		}
	}
	if n.not != nil && n.not.valid(v) {
		return false
	}
	if len(n.dependencies) > 0 && v.kind == jObject {
		for i := range v.kids {
			if dep, ok := n.dependencies[v.kids[i].key]; ok && !dep.valid(v) {
				return false
			}
		}
	}
	if n.ifNode != nil {
		if n.ifNode.valid(v) {
			if n.thenNode != nil && !n.thenNode.valid(v) {
				return false
			}
		} else if n.elseNode != nil && !n.elseNode.valid(v) {
			return false
		}
	}
	return true
}

// validCommon checks const and enum.
func (n *Node) validCommon(v *jval) bool {
	if !n.hasConst && len(n.enum) == 0 {
		return true
	}
	if v.kind == jString && utf8.ValidString(v.s) {
		// A valid UTF-8 string's JSON text is its own and no other
		// value's: compared as it is.
		if n.hasConst && (!n.constant.isStr || n.constant.str != v.s) {
			return false
		}
		return len(n.enum) == 0 || n.enumStr[v.s]
	}
	text := canonicalText(v)
	if n.hasConst && n.constant.text != text {
		return false
	}
	if len(n.enum) > 0 {
		for _, e := range n.enum {
			if e.text == text {
				return true
			}
		}
		return false
	}
	return true
}

// canonicalText returns v's text as gojsonschema compares it, or panics
// with errUndecided when gojsonschema cannot make it (it would fail).
func canonicalText(v *jval) string {
	switch v.kind {
	case jNull:
		return "null"
	case jBool:
		if v.b {
			return "true"
		}
		return "false"
	case jNumber:
		if shortInteger(v.s) {
			return v.s
		}
	}
	text, err := marshalWithoutNumber(v.toAny())
	if err != nil {
		panic(errUndecided)
	}
	return text
}

// shortInteger reports whether s is an integer of at most 15 digits
// written as JSON writes it (no leading zero), which float64 holds exactly
// and encoding/json prints as it is ("-0" included).
func shortInteger(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	return plainInteger(s) && len(digits) <= 15 && (digits == "0" || digits[0] != '0')
}

// validNumber checks minimum, maximum and format (gojsonschema's
// validateNumber).
func (n *Node) validNumber(s string) bool {
	if n.minimum != nil && compareNumber(s, n.minimum) < 0 {
		return false
	}
	if n.maximum != nil && compareNumber(s, n.maximum) > 0 {
		return false
	}
	// gojsonschema hands a number's format checker a *big.Rat, which
	// every checker it has refuses.
	return n.format == ""
}

// compareNumber compares a JSON number with a bound, as big.Rat.Cmp does.
func compareNumber(s string, b *bound) int {
	if b.isInt && plainInteger(s) {
		i, err := strconv.ParseInt(s, 10, 64) // fails beyond int64
		if err == nil {
			switch {
			case i < b.i:
				return -1
			case i > b.i:
				return 1
			}
			return 0
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(errUndecided)
	}
	return r.Cmp(b.rat)
}

// validString checks minLength, maxLength, pattern and format (gojsonschema's
// validateString).
func (n *Node) validString(s string) bool {
	if n.minLength >= 0 || n.maxLength >= 0 {
		count := utf8.RuneCountInString(s)
		if n.minLength >= 0 && count < n.minLength {
			return false
		}
		if n.maxLength >= 0 && count > n.maxLength {
			return false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return false
	}
	switch n.format {
	case "":
		return true
	case "date-time":
		// gojsonschema's checker accepts what any of its layouts parses,
		// RFC 3339 among them: tried first, it spares the others' errors.
		if _, err := time.Parse(time.RFC3339, s); err == nil {
			return true
		}
	}
	return gojsonschema.FormatCheckers.IsFormat(n.format, s)
}

// validArray checks items, minItems and maxItems.
func (n *Node) validArray(a []jmember) bool {
	if n.items != nil {
		for i := range a {
			if !n.items.valid(&a[i].val) {
				return false
			}
		}
	}
	if n.minItems >= 0 && len(a) < n.minItems {
		return false
	}
	return n.maxItems < 0 || len(a) <= n.maxItems
}

// validObject checks required, additionalProperties, propertyNames and
// properties.
func (n *Node) validObject(obj *jval) bool {
	for _, name := range n.required {
		if _, ok := obj.get(name); !ok {
			return false
		}
	}
	if !n.closed && n.propertyNames == nil && len(n.propertyList) < len(obj.kids) {
		// Fewer properties than members, and nothing to say of the
		// others: each property looked up in the object.
		for _, p := range n.propertyList {
			if x, ok := obj.get(p.name); ok && !p.node.valid(x) {
				return false
			}
		}
		return true
	}
	for i := range obj.kids {
		m := &obj.kids[i]
		prop, known := n.properties[m.key]
		if !known {
			if n.closed {
				return false
			}
		} else if !prop.valid(&m.val) {
			return false
		}
		if n.propertyNames == nil {
			continue
		}
		if n.namesEnum != nil {
			if !n.namesEnum[m.key] {
				return false
			}
		} else if !n.propertyNames.valid(&jval{kind: jString, s: m.key}) {
			return false
		}
	}
	return true
}

// Summary describes a compiled schema for tests: the keywords of every
// node reachable from it, counted.
func Summary(root *Node) map[string]int {
	out := map[string]int{}
	seen := map[*Node]bool{}
	var walk func(n *Node)
	walk = func(n *Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		count := func(k string, on bool) {
			if on {
				out[k]++
			}
		}
		count("$ref", n.ref != nil)
		count("boolean", n.always != nil)
		count("type", n.types != 0)
		count("minimum", n.minimum != nil)
		count("maximum", n.maximum != nil)
		count("minLength", n.minLength >= 0)
		count("maxLength", n.maxLength >= 0)
		count("pattern", n.pattern != nil)
		count("format", n.format != "")
		count("const", n.hasConst)
		count("enum", len(n.enum) > 0)
		count("properties", n.properties != nil)
		count("required", n.required != nil)
		count("additionalProperties", n.closed)
		count("propertyNames", n.propertyNames != nil)
		count("dependencies", n.dependencies != nil)
		count("items", n.items != nil)
		count("minItems", n.minItems >= 0)
		count("maxItems", n.maxItems >= 0)
		count("allOf", n.allOf != nil)
		count("anyOf", n.anyOf != nil)
		count("oneOf", n.oneOf != nil)
		count("not", n.not != nil)
		count("if", n.ifNode != nil)
		count("then", n.thenNode != nil)
		count("else", n.elseNode != nil)
		walk(n.ref)
		walk(n.propertyNames)
		walk(n.items)
		walk(n.not)
		walk(n.ifNode)
		walk(n.thenNode)
		walk(n.elseNode)
		for _, list := range [][]*Node{n.allOf, n.anyOf, n.oneOf} {
			for _, c := range list {
				walk(c)
			}
		}
		for _, m := range []map[string]*Node{n.properties, n.dependencies} {
			for _, k := range sortedKeys(m) {
				walk(m[k])
			}
		}
	}
	walk(root)
	return out
}
