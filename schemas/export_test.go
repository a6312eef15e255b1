package schemas

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/chaindata/harness/schemas/internal/fastpath"
)

// unannotated holds the files without their annotations, made once.
var unannotated = sync.OnceValue(func() map[string][]byte {
	reg := mustRegistry()
	out := map[string][]byte{}
	for _, file := range reg.fileNames {
		var buf bytes.Buffer
		writeOrdered(&buf, withoutAnnotations(reg.trees[file]), "")
		out[file] = buf.Bytes()
	}
	return out
})

// LoadWithoutAnnotations compiles the named definition from the embedded
// files with the x-spec-* keywords taken out: the
// schemas as they were before the profiles. Its errors are labelled with the
// Reference profile, so that they compare with LoadProfile(name, Reference).
func LoadWithoutAnnotations(name string) (*Validator, error) {
	reg := mustRegistry()
	n, ok := reg.defs[name]
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	l := gojsonschema.NewSchemaLoader()
	l.Draft = gojsonschema.Draft7
	files := unannotated()
	for _, file := range reg.fileNames {
		if err := l.AddSchemas(gojsonschema.NewBytesLoader(files[file])); err != nil {
			return nil, fmt.Errorf("load schema %s: %w", file, err)
		}
	}
	compiled, err := l.Compile(gojsonschema.NewStringLoader(fmt.Sprintf(`{"$ref": %q}`, BaseURL+n.File+"#"+n.Pointer)))
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	v := &Validator{name: name, profile: Reference, schema: compiled}
	v.pagesOnce.Do(func() {}) // in one piece: its records are the files' too
	return v, nil
}

// withoutAnnotations copies an ordered tree without the x-spec-* keys.
func withoutAnnotations(v any) any {
	switch t := v.(type) {
	case *orderedObject:
		out := newObj()
		for _, k := range t.keys {
			if strings.HasPrefix(k, "x-spec-") {
				continue
			}
			out.set(k, withoutAnnotations(t.vals[k]))
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = withoutAnnotations(x)
		}
		return out
	}
	return v
}

// FilesValidator checks documents against every definition of a set of
// schema files other than the embedded ones, compiled once.
type FilesValidator struct {
	schema *gojsonschema.Schema
	names  map[string]bool
}

// LoadFiles compiles the given schema files, by file name, in profile p
// (the Spec profile derived from them as from the embedded files) into one
// validator of all their definitions: the root schema holds a property per
// definition, referring to it, so {NAME: doc} is valid exactly when doc is
// valid against NAME. The verdict test compiles the files as they were
// before a change with it.
func LoadFiles(files map[string][]byte, p Profile) (*FilesValidator, error) {
	if _, err := ParseProfile(string(p)); err != nil {
		return nil, err
	}
	l := gojsonschema.NewSchemaLoader()
	l.Draft = gojsonschema.Draft7
	root := newObj()
	props := newObj()
	fv := &FilesValidator{names: map[string]bool{}}
	for _, file := range sortedKeys(files) {
		data := files[file]
		tree, err := decodeOrdered(data)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", file, err)
		}
		doc, ok := tree.(*orderedObject)
		if !ok {
			return nil, fmt.Errorf("%s: not an object", file)
		}
		if defs, ok := doc.vals["definitions"].(*orderedObject); ok {
			for _, name := range defs.keys {
				props.set(name, newObj().set("$ref", BaseURL+file+"#/definitions/"+escapePointer(name)))
				fv.names[name] = true
			}
		}
		if p == Spec {
			var buf bytes.Buffer
			writeOrdered(&buf, deriveSpec(doc), "")
			data = buf.Bytes()
		}
		if err := l.AddSchemas(gojsonschema.NewBytesLoader(data)); err != nil {
			return nil, fmt.Errorf("load schema %s: %w", file, err)
		}
	}
	root.set("properties", props)
	var buf bytes.Buffer
	writeOrdered(&buf, root, "")
	compiled, err := l.Compile(gojsonschema.NewBytesLoader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	fv.schema = compiled
	return fv, nil
}

// Valid reports whether doc is valid against the named definition.
func (fv *FilesValidator) Valid(name string, doc []byte) (bool, error) {
	if !fv.names[name] {
		return false, fmt.Errorf("no schema named %q", name)
	}
	wrapped := append(append([]byte(`{"`+name+`": `), doc...), '}')
	res, err := fv.schema.Validate(gojsonschema.NewBytesLoader(wrapped))
	if err != nil {
		return false, err
	}
	return res.Valid(), nil
}

// FastVerdict asks the validator's compiled fast path alone whether doc is
// valid, as Validate asks it: from the bytes, or, when its parser leaves
// the document to decodeDocument, from the decoded document. compiled is
// false when the validator has no fast path (FastError says why); decided
// is false when the fast path leaves the document to gojsonschema; err is
// set for input that is not JSON.
func (v *Validator) FastVerdict(doc []byte) (valid, compiled, decided bool, err error) {
	if v.fast == nil {
		return false, false, false, nil
	}
	if valid, decided = fastpath.ValidBytes(v.fast, doc); decided {
		return valid, true, true, nil
	}
	decoded, err := decodeDocument(doc)
	if err != nil {
		return false, true, false, err
	}
	valid, decided = fastpath.Valid(v.fast, decoded)
	return valid, true, decided, nil
}

// FastError returns why the validator has no fast path, nil when it has one.
func (v *Validator) FastError() error { return v.fastErr }

// ValidateGojsonschema checks doc by gojsonschema alone, as Validate did
// before the fast path.
func (v *Validator) ValidateGojsonschema(doc []byte) error {
	decoded, err := decodeDocument(doc)
	if err != nil {
		return fmt.Errorf("validate %s: %w", v.label(), err)
	}
	return v.validateGojsonschema(decoded)
}

// DecodeDocument decodes doc as Validate does before gojsonschema reads
// it. The decoded document is only read: one may be given to several
// validators.
func DecodeDocument(doc []byte) (any, error) { return decodeDocument(doc) }

// ValidateGojsonschemaDecoded is ValidateGojsonschema of a document
// DecodeDocument decoded.
func (v *Validator) ValidateGojsonschemaDecoded(decoded any) error {
	return v.validateGojsonschema(decoded)
}

// LoadFromFiles compiles a validator of the schema at pointer in file, from
// the given files (by file name, each with $id BaseURL + name) as they are,
// in one piece: gojsonschema always, the fast path when it supports every
// keyword.
func LoadFromFiles(files map[string][]byte, file, pointer string) (*Validator, error) {
	l := gojsonschema.NewSchemaLoader()
	l.Draft = gojsonschema.Draft7
	for _, name := range sortedKeys(files) {
		if err := l.AddSchemas(gojsonschema.NewBytesLoader(files[name])); err != nil {
			return nil, fmt.Errorf("load schema %s: %w", name, err)
		}
	}
	compiled, err := l.Compile(gojsonschema.NewStringLoader(fmt.Sprintf(`{"$ref": %q}`, BaseURL+file+"#"+pointer)))
	if err != nil {
		return nil, err
	}
	v := &Validator{name: file + "#" + pointer, profile: Reference, schema: compiled}
	v.pagesOnce.Do(func() {})
	c, err := fastpath.NewCompiler(BaseURL, files)
	if err != nil {
		return nil, err
	}
	v.fast, v.fastErr = c.Compile(file, pointer)
	return v, nil
}
