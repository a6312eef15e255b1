package schemas

import (
	"bytes"
	"fmt"
)

// Profile is a reading of the schemas. Both profiles are compiled from the
// same embedded files: Reference is the files as written, Spec is derived
// from them by the files' x-spec-fields and x-spec-oneof annotations.
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
	// does not show is dropped. Types, formats, patterns, enumerations and
	// nullability of the spec's fields are those of Reference.
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
//     level) is dropped.
//
// Everywhere, additionalProperties false is dropped and so is a oneOf
// without x-spec-oneof true, and so is an exclusive group written keyed
// (Node.KeyedGroup: its dependencies and its not), which is a oneOf in
// another form and never has x-spec-oneof. Every other keyword is kept as
// it is.
func deriveSpec(v any) any {
	obj, ok := v.(*orderedObject)
	if !ok {
		return v // a boolean schema
	}
	fields, annotated := specFieldSet(obj)
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
				out.set(k, deriveSpec(val))
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
				out.set(k, kept)
			}
		default:
			// Values (enum, const, pattern, $ref...) are shared, never
			// changed.
			out.set(k, val)
		}
	}
	return out
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
