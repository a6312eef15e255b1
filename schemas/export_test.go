package schemas

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/xeipuuv/gojsonschema"
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
// files with the x-spec-fields and x-spec-oneof keywords taken out: the
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
	return &Validator{name: name, profile: Reference, schema: compiled}, nil
}

// withoutAnnotations copies an ordered tree without the x-spec-* keys.
func withoutAnnotations(v any) any {
	switch t := v.(type) {
	case *orderedObject:
		out := newObj()
		for _, k := range t.keys {
			if k == "x-spec-fields" || k == "x-spec-oneof" {
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
