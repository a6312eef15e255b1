package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
}

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

// ExclusiveGroup returns the property names of a oneOf whose branches each
// require exactly one property (a protobuf oneof): exactly one of them must be
// present. It returns nil when the node has no such oneOf.
func (n *Node) ExclusiveGroup() []string {
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
	"not": true, "if": true, "then": true, "else": true,
	// The harness's own annotations, which derive the spec profile from the
	// same files (see Profile).
	"x-spec-fields": true, "x-spec-oneof": true,
}

type parser struct {
	file  string
	nodes map[string]*Node // by file + "#" + pointer
	refs  []*Node          // nodes whose RefText awaits resolution
}

func (p *parser) parse(v any, pointer string) (*Node, error) {
	obj, ok := v.(*orderedObject)
	if !ok {
		if b, isBool := v.(bool); isBool && b {
			return &Node{File: p.file, Pointer: pointer}, nil
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

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
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
