package schemas

import (
	"bytes"
	"fmt"
	"strings"
)

// BundleID is the $id of the document Bundle writes.
const BundleID = BaseURL + "bundle.json"

// draft07 is the $schema of every file and of the documents written here.
const draft07 = "http://json-schema.org/draft-07/schema#"

// Standalone returns the named definition as one self-contained draft-07
// schema, as indented JSON: the definition itself at the root, and every
// definition it refers to, directly or through another, under
// "definitions", with each $ref rewritten to "#/definitions/Name" (a
// reference to the definition itself becomes "#"). No $ref points into
// another file, so any draft-07 validator (Python's jsonschema, ajv) loads it
// alone. It is the Reference profile: the files as written, with their
// x-spec-* annotations kept (validators ignore unknown keywords; ajv's
// strict mode wants them declared).
func Standalone(name string) ([]byte, error) {
	reg, err := theRegistry()
	if err != nil {
		return nil, err
	}
	if _, ok := reg.defs[name]; !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	needed := reg.closure(name)
	root := newObj().set("$schema", draft07).set("title", name)
	def := reg.definitionTree(name)
	for _, k := range def.keys {
		root.set(k, bundleRefs(def.vals[k], name))
	}
	defs := newObj()
	for _, n := range reg.defNames {
		if n != name && needed[n] {
			defs.set(n, bundleRefs(reg.definitionTree(n), name))
		}
	}
	if len(defs.keys) > 0 {
		root.set("definitions", defs)
	}
	return marshalOrdered(root), nil
}

// Bundle returns one draft-07 document, as indented JSON, holding every
// definition of every file under "definitions", by name, with each $ref
// rewritten to "#/definitions/Name". Validate against one definition by
// referring to BundleID + "#/definitions/Name". Like Standalone, it is the
// Reference profile with the annotations kept.
func Bundle() ([]byte, error) {
	reg, err := theRegistry()
	if err != nil {
		return nil, err
	}
	defs := newObj()
	for _, n := range reg.defNames {
		defs.set(n, bundleRefs(reg.definitionTree(n), ""))
	}
	root := newObj().
		set("$schema", draft07).
		set("$id", BundleID).
		set("title", "Chain data query API: every definition").
		set("description", "Every definition of the harness's schema files in one document (harness schemas --bundle); "+
			"validate against one by referring to "+BundleID+"#/definitions/<Name>.").
		set("definitions", defs)
	return marshalOrdered(root), nil
}

// definitionTree returns the ordered tree of a definition as written.
func (reg *registry) definitionTree(name string) *orderedObject {
	n := reg.defs[name]
	defs := reg.trees[n.File].vals["definitions"].(*orderedObject)
	return defs.vals[name].(*orderedObject)
}

// closure returns the names of the definitions the named one refers to,
// directly or through another, itself included.
func (reg *registry) closure(name string) map[string]bool {
	seen := map[string]bool{name: true}
	queue := []string{name}
	var visit func(v any)
	visit = func(v any) {
		switch t := v.(type) {
		case *orderedObject:
			if ref, ok := t.vals["$ref"].(string); ok {
				_, pointer, _ := strings.Cut(ref, "#")
				first, _, _ := strings.Cut(strings.TrimPrefix(pointer, "/definitions/"), "/")
				if n := unescapePointer(first); !seen[n] {
					seen[n] = true
					queue = append(queue, n)
				}
			}
			for _, k := range t.keys {
				visit(t.vals[k])
			}
		case []any:
			for _, x := range t {
				visit(x)
			}
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		visit(reg.definitionTree(n))
	}
	return seen
}

func unescapePointer(s string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}

// bundleRefs copies an ordered tree with every "$ref" rewritten from
// "file.json#/definitions/Name..." (or "#/definitions/Name..." within a
// file) to "#/definitions/Name..."; a reference to the definition self is
// at the root, "#".
func bundleRefs(v any, self string) any {
	switch t := v.(type) {
	case *orderedObject:
		out := newObj()
		for _, k := range t.keys {
			val := t.vals[k]
			if s, ok := val.(string); ok && k == "$ref" {
				out.set(k, bundleRef(s, self))
				continue
			}
			out.set(k, bundleRefs(val, self))
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = bundleRefs(x, self)
		}
		return out
	}
	return v
}

func bundleRef(ref, self string) string {
	_, pointer, _ := strings.Cut(ref, "#")
	if self != "" && (pointer == "/definitions/"+escapePointer(self)) {
		return "#"
	}
	if rest, ok := strings.CutPrefix(pointer, "/definitions/"+escapePointer(self)+"/"); ok && self != "" {
		return "#/" + rest
	}
	return "#" + pointer
}

// marshalOrdered writes an ordered tree as indented JSON with a final
// newline.
func marshalOrdered(v any) []byte {
	var buf bytes.Buffer
	writeOrdered(&buf, v, "")
	buf.WriteByte('\n')
	return buf.Bytes()
}
