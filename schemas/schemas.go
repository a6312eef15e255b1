package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/chaindata/harness/schemas/internal/fastpath"
)

//go:embed *.json
var files embed.FS

// BaseURL is the base of every schema file's $id; a file named "games.json"
// has the $id BaseURL + "games.json".
const BaseURL = "https://harness.chaindata.example/schemas/"

// registry is everything parsed from the embedded files. It is built once, on
// first use, and never changed afterwards except for the validator cache.
type registry struct {
	fileNames []string
	raw       map[string][]byte
	trees     map[string]*orderedObject // parsed file documents
	defs      map[string]*Node          // definition name -> node
	defNames  []string

	mu         sync.Mutex // guards validators and specRaw
	validators map[validatorKey]*Validator
	specRaw    map[string][]byte // the files as the Spec profile reads them, built on first use
	fast       map[Profile]*fastpath.Compiler
	loaders    map[Profile]*gojsonschema.SchemaLoader // one per profile, its files parsed once
}

// validatorKey names one compiled validator.
type validatorKey struct {
	name    string
	profile Profile
}

var theRegistry = sync.OnceValues(buildRegistry)

func buildRegistry() (*registry, error) {
	reg := &registry{
		raw:        map[string][]byte{},
		trees:      map[string]*orderedObject{},
		defs:       map[string]*Node{},
		validators: map[validatorKey]*Validator{},
	}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, fmt.Errorf("list embedded schemas: %w", err)
	}
	nodes := map[string]*Node{}
	var pending []*Node
	for _, e := range entries {
		name := e.Name()
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read schema %s: %w", name, err)
		}
		tree, err := decodeOrdered(data)
		if err != nil {
			return nil, fmt.Errorf("parse schema %s: %w", name, err)
		}
		doc, ok := tree.(*orderedObject)
		if !ok {
			return nil, fmt.Errorf("schema %s: document is not an object", name)
		}
		if id, _ := doc.vals["$id"].(string); id != BaseURL+name {
			return nil, fmt.Errorf("schema %s: $id is %q, want %q", name, id, BaseURL+name)
		}
		reg.fileNames = append(reg.fileNames, name)
		reg.raw[name] = data
		reg.trees[name] = doc
		p := &parser{file: name, nodes: nodes}
		defs, _ := doc.vals["definitions"].(*orderedObject)
		if defs == nil {
			return nil, fmt.Errorf("schema %s: no definitions", name)
		}
		for _, k := range doc.keys {
			if k != "definitions" && !knownKeywords[k] {
				return nil, fmt.Errorf("schema %s: unknown keyword %q", name, k)
			}
		}
		for _, defName := range defs.keys {
			n, err := p.parse(defs.vals[defName], "/definitions/"+escapePointer(defName))
			if err != nil {
				return nil, err
			}
			if prev, dup := reg.defs[defName]; dup {
				return nil, fmt.Errorf("definition %s is in both %s and %s", defName, prev.File, name)
			}
			n.Name = defName
			reg.defs[defName] = n
			reg.defNames = append(reg.defNames, defName)
		}
		pending = append(pending, p.refs...)
	}
	for _, n := range pending {
		target, err := resolveRef(nodes, n.File, n.RefText)
		if err != nil {
			return nil, err
		}
		n.Ref = target
	}
	reg.defNames = sortedKeys(reg.defs)
	return reg, nil
}

// newLoader returns a gojsonschema loader holding every schema file as the
// profile reads it. LoadProfile keeps one per profile and compiles each
// definition from it by reference: a root given as a document would be
// pooled under an empty reference, which a loader takes once only. So the
// files are parsed once per profile, not once per definition (that was
// five sixths of loading a validator). The caller holds reg.mu.
func (reg *registry) newLoader(p Profile) (*gojsonschema.SchemaLoader, error) {
	docs := reg.profileFiles(p)
	l := gojsonschema.NewSchemaLoader()
	l.Draft = gojsonschema.Draft7
	for _, name := range reg.fileNames {
		if err := l.AddSchemas(gojsonschema.NewBytesLoader(docs[name])); err != nil {
			return nil, fmt.Errorf("load schema %s (profile %s): %w", name, p, err)
		}
	}
	return l, nil
}

// resolveRef finds the node a $ref written in file names.
func resolveRef(nodes map[string]*Node, file, ref string) (*Node, error) {
	target, pointer, ok := strings.Cut(ref, "#")
	if !ok {
		return nil, fmt.Errorf("%s: $ref %q has no fragment", file, ref)
	}
	if target == "" {
		target = file
	}
	n := nodes[target+"#"+pointer]
	if n == nil {
		return nil, fmt.Errorf("%s: unresolved $ref %q", file, ref)
	}
	return n, nil
}

func mustRegistry() *registry {
	reg, err := theRegistry()
	if err != nil {
		// The files are embedded and checked by the package's tests, so this
		// is a build defect, not a runtime condition.
		panic("schemas: embedded schema files are broken: " + err.Error())
	}
	return reg
}

// Check parses every embedded file, resolves every reference and compiles a
// validator for every definition in every profile. It reports the first
// problem found.
func Check() error {
	reg, err := theRegistry()
	if err != nil {
		return err
	}
	for _, p := range Profiles() {
		for _, name := range reg.defNames {
			if _, err := LoadProfile(name, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Names returns the names of all definitions, sorted.
func Names() []string {
	return append([]string(nil), mustRegistry().defNames...)
}

// Files returns the names of the schema files, sorted.
func Files() []string {
	return append([]string(nil), mustRegistry().fileNames...)
}

// File returns the content of one schema file, such as "games.json".
func File(name string) ([]byte, error) {
	data, ok := mustRegistry().raw[name]
	if !ok {
		return nil, fmt.Errorf("no schema file %q", name)
	}
	return data, nil
}

// FS returns the embedded schema files.
func FS() fs.FS { return files }

// Lookup returns the parsed definition with the given name.
func Lookup(name string) (*Node, error) {
	n, ok := mustRegistry().defs[name]
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	return n, nil
}

// MustLookup is Lookup for names fixed in code; it panics on an unknown name.
func MustLookup(name string) *Node {
	n, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return n
}

// Definition returns one definition as indented JSON, in file order, with its
// references as written (relative to its file).
func Definition(name string) ([]byte, error) {
	reg := mustRegistry()
	n, ok := reg.defs[name]
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	defs := reg.trees[n.File].vals["definitions"].(*orderedObject)
	var buf bytes.Buffer
	writeOrdered(&buf, defs.vals[name], "")
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// FileOf returns the schema file a definition is in.
func FileOf(name string) (string, error) {
	n, err := Lookup(name)
	if err != nil {
		return "", err
	}
	return n.File, nil
}

func writeOrdered(buf *bytes.Buffer, v any, indent string) {
	switch t := v.(type) {
	case *orderedObject:
		if len(t.keys) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteString("{\n")
		for i, k := range t.keys {
			kb, _ := json.Marshal(k)
			buf.WriteString(indent + "  ")
			buf.Write(kb)
			buf.WriteString(": ")
			writeOrdered(buf, t.vals[k], indent+"  ")
			if i < len(t.keys)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteString("[\n")
		for i, x := range t {
			buf.WriteString(indent + "  ")
			writeOrdered(buf, x, indent+"  ")
			if i < len(t)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "]")
	default:
		b, _ := json.Marshal(t)
		buf.Write(b)
	}
}
