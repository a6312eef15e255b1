package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Node is one parsed schema object. Keywords the harness uses are decoded into
// fields; a $ref is resolved into Ref. Nodes are shared and must not be
// modified.
type Node struct {
	// Name is the definition name when the node is a definition, else "".
	Name string
	// File is the schema file the node was read from, such as "orders.json".
	File string
	// Pointer is the node's JSON pointer within File.
	Pointer string

	// False is true for the schema false, which no value matches (the
	// schema true is a node with no keyword).
	False bool

	// Ref is the target of a $ref; when set, the other keywords are empty.
	Ref *Node
	// RefText is the $ref as written.
	RefText string

	Description string
	// Types lists the allowed JSON types ("string", "object", "null", ...).
	Types   []string
	Format  string
	Pattern string
	Enum    []any
	// Const holds the const value when HasConst is true.
	Const    any
	HasConst bool

	MinLength, MaxLength *int
	Minimum, Maximum     *float64

	Properties []Property
	Required   []string
	// AdditionalProperties is false when the object is closed.
	AdditionalProperties bool
	// Dependencies holds the schema dependencies, in file order: each
	// applies to the whole object when the named property is present.
	Dependencies []Property
	// PropertyNames is the schema every property name must match.
	PropertyNames *Node

	Items              *Node
	MinItems, MaxItems *int

	OneOf, AnyOf, AllOf []*Node
	Not                 *Node
	If, Then, Else      *Node

	// SpecFields holds the keyword x-spec-fields: the names of the
	// properties the spec shows for this object, in file order. Properties
	// not listed are the harness's own reading (where the spec says "not
	// shown", what the real network writes) and the spec profile treats
	// them as unknown. HasSpecFields
	// is true when the keyword is present, even as an empty list.
	SpecFields    []string
	HasSpecFields bool
	// SpecOneOf holds the keyword x-spec-oneof: the spec itself says that
	// exactly one member of the node's oneOf is set, so the spec profile
	// keeps the oneOf; every other oneOf is dropped there.
	SpecOneOf bool
	// SpecTypes holds the keyword x-spec-types: for a property the spec
	// shows whose schema here says more than the spec's type of it, that
	// type ("string", "int32", "int64", "uint64" or "double"), which is
	// all the spec profile checks of the property. Nil when absent.
	SpecTypes map[string]string
	// SpecPattern holds the keyword x-spec-pattern when HasSpecPattern is
	// true: the part of Pattern the spec itself states, which the spec
	// profile checks in its place ("" for none: the pattern is the
	// reference's alone).
	SpecPattern    string
	HasSpecPattern bool
}

// SpecTypeNames are the values of x-spec-types: the spec's types of a
// field whose reference schema says more.
var SpecTypeNames = []string{"string", "int32", "int64", "uint64", "double"}

// Property is a named property of an object schema, in file order.
type Property struct {
	Name   string
	Schema *Node
}

// Resolve follows references until it reaches a node that is not a $ref.
func (n *Node) Resolve() *Node {
	for n != nil && n.Ref != nil {
		n = n.Ref
	}
	return n
}

// Property returns the schema of the named property, or nil.
func (n *Node) Property(name string) *Node {
	for _, p := range n.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// IsSpecField reports whether the object schema's x-spec-fields lists the
// named property.
func (n *Node) IsSpecField(name string) bool {
	for _, f := range n.SpecFields {
		if f == name {
			return true
		}
	}
	return false
}

// IsRequired reports whether the object schema requires the named property.
func (n *Node) IsRequired(name string) bool {
	for _, r := range n.Required {
		if r == name {
			return true
		}
	}
	return false
}

// HasType reports whether t is one of the node's allowed types.
func (n *Node) HasType(t string) bool {
	for _, x := range n.Types {
		if x == t {
			return true
		}
	}
	return false
}

// IsOpaque reports whether the node resolves to the Opaque definition: an
// object accepted by name without inspection.
func (n *Node) IsOpaque() bool {
	r := n.Resolve()
	return r != nil && r.Name == "Opaque"
}

// NullableTarget returns the non-null branch when the node is the nullable
// form {"anyOf": [X, {"type": "null"}]}, and nil otherwise.
func (n *Node) NullableTarget() *Node {
	if len(n.AnyOf) != 2 {
		return nil
	}
	if len(n.AnyOf[1].Types) == 1 && n.AnyOf[1].Types[0] == "null" {
		return n.AnyOf[0]
	}
	return nil
}

// ExclusiveGroup returns the property names of a protobuf oneof: exactly one
// of them must be present. The schemas write it as a oneOf whose branches
// each require exactly one property, or keyed (see KeyedGroup). It returns
// nil when the node has neither.
func (n *Node) ExclusiveGroup() []string {
	if g := n.oneOfGroup(); g != nil {
		return g
	}
	return n.KeyedGroup()
}

// KeyedGroup returns the property names of an exclusive group written so
// that a validator reaches the member present by its key and tries no other
// (README, "Conventions"): on a closed object whose other properties are
// the base B,
//
//	"dependencies": {"m1": {"propertyNames": {"enum": [B..., "m1"]}}, ...},
//	"not": {"propertyNames": {"enum": [B...]}}
//
// With a member present the object holds nothing but B and that member (at
// most one member), and it holds something beside B (at least one): exactly
// one, as {"oneOf": [{"required": ["m1"]}, ...]} says. It returns nil when
// the node is not of that form.
func (n *Node) KeyedGroup() []string {
	if len(n.Dependencies) == 0 || n.AdditionalProperties || n.Not == nil {
		return nil
	}
	base, ok := propertyNameEnum(n.Not)
	if !ok {
		return nil
	}
	inBase := map[string]bool{}
	for _, b := range base {
		inBase[b] = true
	}
	names := make([]string, 0, len(n.Dependencies))
	for _, d := range n.Dependencies {
		allowed, ok := propertyNameEnum(d.Schema)
		if !ok || len(allowed) != len(base)+1 || allowed[len(base)] != d.Name || inBase[d.Name] {
			return nil
		}
		for i, b := range base {
			if allowed[i] != b {
				return nil
			}
		}
		names = append(names, d.Name)
	}
	// Every property is a base property or a member, and each is named
	// once: the closed object then holds only these.
	if len(n.Properties) != len(base)+len(names) {
		return nil
	}
	for _, p := range n.Properties {
		if !inBase[p.Name] && !slices.Contains(names, p.Name) {
			return nil
		}
	}
	return names
}

// KeyedRule recognizes a rule between fields keyed by a member of an
// exclusive group (README, "Conventions"), the allOf entry
//
//	{"if": {"properties": {P: {"properties": {M: false}}}}, "else": X}
//
// which says what {"if": {"properties": {P: {"required": [M]}}}, "then": X}
// says when P is an object: when P holds M, X. Its if holds, and is checked
// by the one key, whenever P has no M. (When P is absent or not an object,
// the if/then asks X of every such rule at once and this asks nothing; the
// one schema using it, Transaction, rejects such a P anyway.) It returns
// P, M and X.
func (n *Node) KeyedRule() (prop, member string, then *Node, ok bool) {
	if n.If == nil || n.Then != nil || n.Else == nil || !n.isOnly(func(m *Node) { m.If, m.Else = nil, nil }) {
		return "", "", nil, false
	}
	cond := n.If
	if len(cond.Properties) != 1 || !cond.isOnly(func(m *Node) { m.Properties = nil }) {
		return "", "", nil, false
	}
	inner := cond.Properties[0].Schema
	if len(inner.Properties) != 1 || !inner.isOnly(func(m *Node) { m.Properties = nil }) || !inner.Properties[0].Schema.False {
		return "", "", nil, false
	}
	return cond.Properties[0].Name, inner.Properties[0].Name, n.Else, true
}

// propertyNameEnum returns the list of {"propertyNames": {"enum": [...]}}
// when that is all the node says.
func propertyNameEnum(n *Node) ([]string, bool) {
	if n == nil || n.PropertyNames == nil || !n.isOnly(func(m *Node) { m.PropertyNames = nil }) {
		return nil, false
	}
	pn := n.PropertyNames
	if len(pn.Enum) == 0 || !pn.isOnly(func(m *Node) { m.Enum = nil }) {
		return nil, false
	}
	out := make([]string, len(pn.Enum))
	for i, e := range pn.Enum {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// isOnly reports whether the node says nothing once clear has removed the
// keywords it is expected to hold.
func (n *Node) isOnly(clear func(*Node)) bool {
	m := *n
	clear(&m)
	empty := Node{File: n.File, Pointer: n.Pointer, AdditionalProperties: true}
	return reflect.DeepEqual(m, empty)
}

// oneOfGroup returns the property names of a oneOf whose branches each
// require exactly one property, or nil.
func (n *Node) oneOfGroup() []string {
	if len(n.OneOf) == 0 {
		return nil
	}
	names := make([]string, 0, len(n.OneOf))
	for _, b := range n.OneOf {
		if len(b.Required) != 1 || len(b.Properties) != 0 || len(b.Types) != 0 {
			return nil
		}
		names = append(names, b.Required[0])
	}
	return names
}

// keyword decoding

// orderedObject is a JSON object that remembers its key order.
type orderedObject struct {
	keys []string
	vals map[string]any
}

// decodeOrdered decodes one JSON document, keeping object key order.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON document")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &orderedObject{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := obj.vals[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				obj.keys = append(obj.keys, k)
				obj.vals[k] = v
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			var arr []any
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	default:
		return t, nil
	}
}

// plain turns an ordered tree into plain Go values (maps, slices, scalars).
func plain(v any) any {
	switch t := v.(type) {
	case *orderedObject:
		m := make(map[string]any, len(t.keys))
		for _, k := range t.keys {
			m[k] = plain(t.vals[k])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = plain(x)
		}
		return out
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// knownKeywords are the keywords the parser understands; any other keyword in
// a schema file is an error, so that a typo cannot silently disable a rule.
var knownKeywords = map[string]bool{
	"$schema": true, "$id": true, "$ref": true, "title": true, "description": true,
	"definitions": true, "type": true, "format": true, "pattern": true, "enum": true,
	"const": true, "minLength": true, "maxLength": true, "minimum": true, "maximum": true,
	"properties": true, "required": true, "additionalProperties": true, "items": true,
	"minItems": true, "maxItems": true, "oneOf": true, "anyOf": true, "allOf": true,
	"not": true, "if": true, "then": true, "else": true, "$comment": true,
	"dependencies": true, "propertyNames": true,
	// The harness's own annotations, which derive the spec profile from the
	// same files (see Profile).
	"x-spec-fields": true, "x-spec-oneof": true, "x-spec-types": true, "x-spec-pattern": true,
}

type parser struct {
	file  string
	nodes map[string]*Node // by file + "#" + pointer
	refs  []*Node          // nodes whose RefText awaits resolution
}

func (p *parser) parse(v any, pointer string) (*Node, error) {
	obj, ok := v.(*orderedObject)
	if !ok {
		if b, isBool := v.(bool); isBool {
			return &Node{File: p.file, Pointer: pointer, False: !b}, nil
		}
		return nil, fmt.Errorf("%s#%s: schema must be an object", p.file, pointer)
	}
	n := &Node{File: p.file, Pointer: pointer, AdditionalProperties: true}
	p.nodes[p.file+"#"+pointer] = n
	for _, k := range obj.keys {
		val := obj.vals[k]
		at := pointer + "/" + k
		if !knownKeywords[k] {
			return nil, fmt.Errorf("%s#%s: unknown keyword %q", p.file, pointer, k)
		}
		var err error
		switch k {
		case "$ref":
			n.RefText, _ = val.(string)
			p.refs = append(p.refs, n)
		case "description":
			n.Description, _ = val.(string)
		case "type":
			switch t := val.(type) {
			case string:
				n.Types = []string{t}
			case []any:
				for _, x := range t {
					s, _ := x.(string)
					n.Types = append(n.Types, s)
				}
			}
		case "format":
			n.Format, _ = val.(string)
		case "pattern":
			n.Pattern, _ = val.(string)
		case "enum":
			arr, _ := val.([]any)
			for _, x := range arr {
				n.Enum = append(n.Enum, plain(x))
			}
		case "const":
			n.Const, n.HasConst = plain(val), true
		case "minLength":
			n.MinLength, err = intPtr(val)
		case "maxLength":
			n.MaxLength, err = intPtr(val)
		case "minItems":
			n.MinItems, err = intPtr(val)
		case "maxItems":
			n.MaxItems, err = intPtr(val)
		case "minimum":
			n.Minimum, err = floatPtr(val)
		case "maximum":
			n.Maximum, err = floatPtr(val)
		case "required":
			arr, _ := val.([]any)
			for _, x := range arr {
				s, _ := x.(string)
				n.Required = append(n.Required, s)
			}
		case "x-spec-fields":
			n.SpecFields, err = stringList(val)
			if err != nil {
				return nil, fmt.Errorf("%s#%s: %w", p.file, at, err)
			}
			n.HasSpecFields = true
		case "x-spec-oneof":
			b, isBool := val.(bool)
			if !isBool {
				return nil, fmt.Errorf("%s#%s: x-spec-oneof must be a boolean", p.file, at)
			}
			n.SpecOneOf = b
		case "x-spec-types":
			n.SpecTypes, err = specTypeMap(val)
			if err != nil {
				return nil, fmt.Errorf("%s#%s: %w", p.file, at, err)
			}
		case "x-spec-pattern":
			s, isStr := val.(string)
			if !isStr {
				return nil, fmt.Errorf("%s#%s: x-spec-pattern must be a string", p.file, at)
			}
			n.SpecPattern, n.HasSpecPattern = s, true
		case "additionalProperties":
			b, isBool := val.(bool)
			if !isBool {
				return nil, fmt.Errorf("%s#%s: additionalProperties must be a boolean", p.file, at)
			}
			n.AdditionalProperties = b
		case "properties":
			props, isObj := val.(*orderedObject)
			if !isObj {
				return nil, fmt.Errorf("%s#%s: properties must be an object", p.file, at)
			}
			for _, name := range props.keys {
				child, err := p.parse(props.vals[name], at+"/"+escapePointer(name))
				if err != nil {
					return nil, err
				}
				n.Properties = append(n.Properties, Property{Name: name, Schema: child})
			}
		case "items":
			n.Items, err = p.parse(val, at)
		case "propertyNames":
			n.PropertyNames, err = p.parse(val, at)
		case "dependencies":
			deps, isObj := val.(*orderedObject)
			if !isObj {
				return nil, fmt.Errorf("%s#%s: dependencies must be an object", p.file, at)
			}
			for _, name := range deps.keys {
				// Only schema dependencies: a list of names would say
				// something else and is not used.
				child, err := p.parse(deps.vals[name], at+"/"+escapePointer(name))
				if err != nil {
					return nil, err
				}
				n.Dependencies = append(n.Dependencies, Property{Name: name, Schema: child})
			}
		case "not":
			n.Not, err = p.parse(val, at)
		case "if":
			n.If, err = p.parse(val, at)
		case "then":
			n.Then, err = p.parse(val, at)
		case "else":
			n.Else, err = p.parse(val, at)
		case "oneOf", "anyOf", "allOf":
			arr, isArr := val.([]any)
			if !isArr {
				return nil, fmt.Errorf("%s#%s: %s must be an array", p.file, at, k)
			}
			list := make([]*Node, 0, len(arr))
			for i, x := range arr {
				child, err := p.parse(x, fmt.Sprintf("%s/%d", at, i))
				if err != nil {
					return nil, err
				}
				list = append(list, child)
			}
			switch k {
			case "oneOf":
				n.OneOf = list
			case "anyOf":
				n.AnyOf = list
			default:
				n.AllOf = list
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if n.SpecOneOf && len(n.OneOf) == 0 {
		return nil, fmt.Errorf("%s#%s: x-spec-oneof without a oneOf", p.file, pointer)
	}
	for _, name := range sortedKeys(n.SpecTypes) {
		if !n.IsSpecField(name) {
			// The spec profile accepts anything at a field it does not
			// show: a type for it would say nothing.
			return nil, fmt.Errorf("%s#%s: x-spec-types names %q, which x-spec-fields does not list", p.file, pointer, name)
		}
	}
	if n.HasSpecPattern && n.Pattern == "" {
		return nil, fmt.Errorf("%s#%s: x-spec-pattern without a pattern", p.file, pointer)
	}
	if len(n.Dependencies) > 0 && n.KeyedGroup() == nil {
		// The spec profile and the OpenAPI export read dependencies as
		// an exclusive group and nothing else.
		return nil, fmt.Errorf("%s#%s: dependencies that are not a keyed exclusive group (README)", p.file, pointer)
	}
	return n, nil
}

// stringList decodes an array of distinct strings.
func stringList(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("expected an array of strings, got %v", v)
	}
	out := make([]string, 0, len(arr))
	seen := map[string]bool{}
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("expected an array of strings, got %v", x)
		}
		if seen[s] {
			return nil, fmt.Errorf("%q is listed twice", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// specTypeMap decodes x-spec-types: an object of property names to spec
// types.
func specTypeMap(v any) (map[string]string, error) {
	obj, ok := v.(*orderedObject)
	if !ok {
		return nil, fmt.Errorf("x-spec-types must be an object, got %v", v)
	}
	out := make(map[string]string, len(obj.keys))
	for _, name := range obj.keys {
		t, _ := obj.vals[name].(string)
		if !slices.Contains(SpecTypeNames, t) {
			return nil, fmt.Errorf("x-spec-types: %q has type %v, want one of %v", name, obj.vals[name], SpecTypeNames)
		}
		out[name] = t
	}
	return out, nil
}

func intPtr(v any) (*int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("expected an integer, got %v", v)
	}
	i, err := num.Int64()
	if err != nil {
		return nil, err
	}
	x := int(i)
	return &x, nil
}

func floatPtr(v any) (*float64, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("expected a number, got %v", v)
	}
	f, err := num.Float64()
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// pointerEscaper escapes a JSON pointer token (RFC 6901); a Replacer is
// safe for concurrent use, and building one costs more than most of what
// it replaces.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// escapePointer escapes s as a token of a JSON pointer.
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return pointerEscaper.Replace(s)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
