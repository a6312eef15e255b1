package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Profile is a reading of the schemas. Both profiles are compiled from the
// same embedded files: Reference is the files as written, Spec is derived
// from them by the files' x-spec-fields, x-spec-oneof, x-spec-types and
// x-spec-pattern annotations.
type Profile string

const (
	// Reference is the strict shape the mock writes and today's network
	// sends: every object closed (additionalProperties false), every field
	// the real network writes required, every oneOf enforced. It is the
	// default.
	Reference Profile = "reference"
	// Spec states only what the spec states. An object requires only the
	// required fields the spec lists (x-spec-fields), accepts unknown
	// fields, and takes any value for a field the spec does not show; a
	// oneOf is enforced only where the spec says "exactly one"
	// (x-spec-oneof); a rule between fields that involves a field the spec
	// does not show is dropped. A field the spec types uint64 or int64 is
	// a digit string or a JSON integer in the type's range, and a field
	// whose reference schema says more than the spec's type of it is
	// checked for that type alone (x-spec-types); a pattern of which the
	// spec states part or nothing (letter case, hex, lengths) is that part
	// (x-spec-pattern). Enumerations, nullability and everything else of
	// the spec's fields are those of Reference.
	Spec Profile = "spec"
)

// Profiles returns every profile, the default first.
func Profiles() []Profile { return []Profile{Reference, Spec} }

// ParseProfile returns the profile named s ("reference" or "spec").
func ParseProfile(s string) (Profile, error) {
	switch p := Profile(s); p {
	case Reference, Spec:
		return p, nil
	}
	return "", fmt.Errorf("unknown profile %q (want %s or %s)", s, Reference, Spec)
}

// profileFiles returns the schema files as the profile reads them, by file
// name. The caller holds reg.mu.
func (reg *registry) profileFiles(p Profile) map[string][]byte {
	if p == Reference {
		return reg.raw
	}
	if reg.specRaw == nil {
		reg.specRaw = make(map[string][]byte, len(reg.fileNames))
		for _, name := range reg.fileNames {
			var buf bytes.Buffer
			writeOrdered(&buf, deriveSpec(reg.trees[name]), "")
			buf.WriteByte('\n')
			reg.specRaw[name] = buf.Bytes()
		}
	}
	return reg.specRaw
}

// deriveSpec returns a copy of the schema v with the Spec profile's rules
// applied; v itself is not changed. At an object schema annotated with
// x-spec-fields:
//
//   - required becomes required ∩ x-spec-fields;
//   - a property not in x-spec-fields becomes the empty schema {};
//   - an allOf entry, or the node's own if/then/else, that names a property
//     not in x-spec-fields (in required or properties, at this object's
//     level) is dropped, and one that stays reads the fields x-spec-types
//     types uint64 or int64 in both encodings (bothEncodings);
//   - a property named in x-spec-types becomes the schema of the spec's
//     type of it (specTypeSchema), whatever its schema was.
//
// Everywhere, additionalProperties false is dropped and so is a oneOf
// without x-spec-oneof true, and so is an exclusive group written keyed
// (Node.KeyedGroup: its dependencies and its not), which is a oneOf in
// another form and never has x-spec-oneof. A schema with x-spec-pattern has
// that pattern in place of its own, or none when it is "". Every other
// keyword is kept as it is.
func deriveSpec(v any) any {
	obj, ok := v.(*orderedObject)
	if !ok {
		return v // a boolean schema
	}
	fields, annotated := specFieldSet(obj)
	specTypes, _ := obj.vals["x-spec-types"].(*orderedObject)
	// An if/then/else group stands or falls together.
	keepCondition := true
	if annotated {
		group := newObj()
		for _, k := range []string{"if", "then", "else"} {
			if c, ok := obj.vals[k]; ok {
				group.set(k, c)
			}
		}
		keepCondition = onlySpecFields(group, fields)
	}
	out := newObj()
	for _, k := range obj.keys {
		val := obj.vals[k]
		switch k {
		case "definitions":
			defs, _ := val.(*orderedObject)
			derived := newObj()
			for _, name := range defs.keys {
				derived.set(name, deriveSpec(defs.vals[name]))
			}
			out.set(k, derived)
		case "additionalProperties":
			if open, _ := val.(bool); open {
				out.set(k, val)
			}
		case "required":
			if !annotated {
				out.set(k, val)
				continue
			}
			var kept []any
			for _, x := range val.([]any) {
				if s, _ := x.(string); fields[s] {
					kept = append(kept, x)
				}
			}
			if len(kept) > 0 {
				out.set(k, kept)
			}
		case "properties":
			props, _ := val.(*orderedObject)
			derived := newObj()
			for _, name := range props.keys {
				if annotated && !fields[name] {
					derived.set(name, newObj())
					continue
				}
				if t, ok := specTypes.get(name).(string); ok {
					derived.set(name, specTypeSchema(t))
					continue
				}
				derived.set(name, deriveSpec(props.vals[name]))
			}
			out.set(k, derived)
		case "dependencies":
			// A keyed exclusive group (the only use of dependencies).
			continue
		case "not":
			if _, keyed := obj.vals["dependencies"]; keyed && isPropertyNamesRule(val) {
				continue // the keyed group's "at least one"
			}
			out.set(k, deriveSpec(val))
		case "items":
			out.set(k, deriveSpec(val))
		case "if", "then", "else":
			if keepCondition {
				out.set(k, bothEncodings(deriveSpec(val), specTypes))
			}
		case "oneOf":
			if spec, _ := obj.vals["x-spec-oneof"].(bool); spec {
				out.set(k, deriveList(val.([]any), nil))
			}
		case "anyOf":
			out.set(k, deriveList(val.([]any), nil))
		case "allOf":
			var keep func(any) bool
			if annotated {
				keep = func(e any) bool { return onlySpecFields(e, fields) }
			}
			if kept := deriveList(val.([]any), keep); len(kept) > 0 {
				for i, rule := range kept {
					kept[i] = bothEncodings(rule, specTypes)
				}
				out.set(k, kept)
			}
		case "pattern":
			spec, ok := obj.vals["x-spec-pattern"].(string)
			switch {
			case !ok:
				out.set(k, val)
			case spec != "":
				out.set(k, spec)
			}
		default:
			// Values (enum, const, $ref...) are shared, never changed.
			out.set(k, val)
		}
	}
	return out
}

// get returns the value of a key, or nil; a nil object has none.
func (o *orderedObject) get(key string) any {
	if o == nil {
		return nil
	}
	return o.vals[key]
}

// Bounds of the integer types the spec names, as JSON numbers.
var specTypeBounds = map[string][2]json.Number{
	"int32":  {"-2147483648", "2147483647"},
	"int64":  {"-9223372036854775808", "9223372036854775807"},
	"uint64": {"0", "18446744073709551615"},
}

// specTypeSchema returns the spec profile's schema of a field the spec
// types t (a value of x-spec-types): a string; a JSON integer within
// int32; a JSON number; or, for uint64 and int64, which section 1 of the
// spec lets a deployment write either way ("uint64 and int64 typed fields
// are noted per field"), a string of the type's digits (the pattern of
// the Uint64 or Int64 definition, which applies to strings only) or a JSON
// integer within the type's bounds (which apply to numbers only).
func specTypeSchema(t string) *orderedObject {
	out := newObj()
	switch t {
	case "string":
		return out.set("description", "A string (the spec's type).").set("type", "string")
	case "double":
		return out.set("description", "A JSON number (the spec's double).").set("type", "number")
	case "int32":
		out.set("description", "A JSON integer within int32 (the spec's type).").set("type", "integer")
	default:
		digits := "Uint64"
		if t == "int64" {
			digits = "Int64"
		}
		out.set("description", fmt.Sprintf("The spec's %s: a string of its decimal digits or a JSON integer, within the type's range.", t)).
			set("type", []any{"string", "integer"}).
			set("pattern", mustRegistry().defs[digits].Pattern)
	}
	b := specTypeBounds[t]
	return out.set("minimum", b[0]).set("maximum", b[1])
}

// bothEncodings returns a rule between the fields of an object (an allOf
// entry, an if, then or else), as derived, with the values it names of a
// field the spec types uint64 or int64 written both ways: a const of a digit
// string becomes an enum of the string and the number, and an enum gains
// the numbers of its digit strings, so that the rule reads a JSON integer
// as the digit string it stands for ({"not": {"const": "0"}} holds of 0 as
// of "0"). It looks into the rule's properties, not, allOf, anyOf, oneOf,
// if, then and else, at the object's own level; rule itself is not
// changed.
func bothEncodings(rule any, types *orderedObject) any {
	obj, ok := rule.(*orderedObject)
	if !ok || types == nil {
		return rule
	}
	out := newObj()
	for _, k := range obj.keys {
		val := obj.vals[k]
		switch k {
		case "properties":
			props := val.(*orderedObject)
			widened := newObj()
			for _, name := range props.keys {
				p := props.vals[name]
				if t, _ := types.get(name).(string); t == "uint64" || t == "int64" {
					p = valuesBothWays(p)
				}
				widened.set(name, p)
			}
			val = widened
		case "not", "if", "then", "else":
			val = bothEncodings(val, types)
		case "allOf", "anyOf", "oneOf":
			list := val.([]any)
			widened := make([]any, len(list))
			for i, x := range list {
				widened[i] = bothEncodings(x, types)
			}
			val = widened
		}
		out.set(k, val)
	}
	return out
}

// valuesBothWays returns a property's schema in a rule with each const and
// enum value that is a digit string written as the number too, looking
// into not, allOf, anyOf and oneOf.
func valuesBothWays(v any) any {
	obj, ok := v.(*orderedObject)
	if !ok {
		return v
	}
	out := newObj()
	for _, k := range obj.keys {
		val := obj.vals[k]
		switch k {
		case "const":
			if n, ok := digitNumber(val); ok {
				out.set("enum", []any{val, n})
				continue
			}
		case "enum":
			var list []any
			for _, x := range val.([]any) {
				list = append(list, x)
				if n, ok := digitNumber(x); ok {
					list = append(list, n)
				}
			}
			val = list
		case "not":
			val = valuesBothWays(val)
		case "allOf", "anyOf", "oneOf":
			list := val.([]any)
			widened := make([]any, len(list))
			for i, x := range list {
				widened[i] = valuesBothWays(x)
			}
			val = widened
		}
		out.set(k, val)
	}
	return out
}

// digitNumber returns the JSON number a string of decimal digits (with an
// optional minus sign) stands for.
func digitNumber(v any) (json.Number, bool) {
	s, ok := v.(string)
	if !ok || s == "" || s == "-" {
		return "", false
	}
	for i, r := range s {
		if (r < '0' || r > '9') && !(i == 0 && r == '-') {
			return "", false
		}
	}
	return json.Number(s), true
}

// isPropertyNamesRule reports whether v is a schema that says only
// propertyNames.
func isPropertyNamesRule(v any) bool {
	obj, ok := v.(*orderedObject)
	return ok && len(obj.keys) == 1 && obj.keys[0] == "propertyNames"
}

// deriveList derives the schemas of a list, leaving out those keep refuses.
func deriveList(list []any, keep func(any) bool) []any {
	out := make([]any, 0, len(list))
	for _, x := range list {
		if keep != nil && !keep(x) {
			continue
		}
		out = append(out, deriveSpec(x))
	}
	return out
}

// specFieldSet returns the names an object schema's x-spec-fields lists,
// and whether it has the keyword.
func specFieldSet(obj *orderedObject) (map[string]bool, bool) {
	list, ok := obj.vals["x-spec-fields"].([]any)
	if !ok {
		return nil, false
	}
	set := make(map[string]bool, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			set[s] = true
		}
	}
	return set, true
}

// onlySpecFields reports whether every property a rule names at its
// object's level is a spec field.
func onlySpecFields(rule any, fields map[string]bool) bool {
	named := map[string]bool{}
	namedProperties(rule, named)
	for name := range named {
		if !fields[name] {
			return false
		}
	}
	return true
}

// namedProperties adds to into the properties a schema names at its own
// object's level: in required and as keys of properties, also inside its
// if/then/else, not, allOf, anyOf and oneOf, but not inside the schemas of
// those properties or of items, which are other objects.
func namedProperties(v any, into map[string]bool) {
	obj, ok := v.(*orderedObject)
	if !ok {
		return
	}
	if req, ok := obj.vals["required"].([]any); ok {
		for _, x := range req {
			if s, ok := x.(string); ok {
				into[s] = true
			}
		}
	}
	if props, ok := obj.vals["properties"].(*orderedObject); ok {
		for _, name := range props.keys {
			into[name] = true
		}
	}
	for _, k := range []string{"if", "then", "else", "not"} {
		namedProperties(obj.vals[k], into)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := obj.vals[k].([]any)
		for _, x := range list {
			namedProperties(x, into)
		}
	}
}
