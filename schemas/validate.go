package schemas

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/chaindata/harness/schemas/internal/fastpath"
)

// Validator checks JSON documents against one compiled definition in one
// profile. It is safe for concurrent use.
type Validator struct {
	name    string
	profile Profile
	schema  *gojsonschema.Schema

	// fast is the compiled fast path (internal/fastpath), nil when the schema
	// uses a keyword it does not support; fastErr then says which.
	fast    *fastpath.Node
	fastErr error

	pagesOnce sync.Once
	pages     []pageArray // arrays whose records are checked apart (parallel.go)
}

// Load returns the compiled validator of the named definition in the
// Reference profile. It is LoadProfile(name, Reference).
func Load(name string) (*Validator, error) { return LoadProfile(name, Reference) }

// LoadProfile returns the compiled validator of the named definition in
// profile p. Each is compiled on first request and cached; it is safe for
// concurrent use.
func LoadProfile(name string, p Profile) (*Validator, error) {
	if _, err := ParseProfile(string(p)); err != nil {
		return nil, fmt.Errorf("load schema %s: %w", name, err)
	}
	reg, err := theRegistry()
	if err != nil {
		return nil, err
	}
	n, ok := reg.defs[name]
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	key := validatorKey{name, p}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if v, ok := reg.validators[key]; ok {
		return v, nil
	}
	loader := reg.loaders[p]
	if loader == nil {
		if loader, err = reg.newLoader(p); err != nil {
			return nil, err
		}
		if reg.loaders == nil {
			reg.loaders = map[Profile]*gojsonschema.SchemaLoader{}
		}
		reg.loaders[p] = loader
	}
	compiled, err := loader.Compile(gojsonschema.NewReferenceLoader(BaseURL + n.File + "#" + n.Pointer))
	if err != nil {
		return nil, fmt.Errorf("compile schema %s (profile %s): %w", name, p, err)
	}
	v := &Validator{name: name, profile: p, schema: compiled}
	v.fast, v.fastErr = reg.compileFast(p, n)
	reg.validators[key] = v
	return v, nil
}

// Validate checks one JSON document against the named definition in
// profile p: LoadProfile, then Validator.Validate.
func Validate(name string, p Profile, doc []byte) error {
	v, err := LoadProfile(name, p)
	if err != nil {
		return err
	}
	return v.Validate(doc)
}

// MustLoad is Load for names fixed in code; it panics on an unknown
// name.
func MustLoad(name string) *Validator {
	v, err := Load(name)
	if err != nil {
		panic(err)
	}
	return v
}

// MustLoadProfile is LoadProfile for names and profiles fixed in code; it
// panics on an unknown name or profile.
func MustLoadProfile(name string, p Profile) *Validator {
	v, err := LoadProfile(name, p)
	if err != nil {
		panic(err)
	}
	return v
}

// Name returns the name of the definition the validator checks.
func (v *Validator) Name() string { return v.name }

// Profile returns the profile the validator checks by.
func (v *Validator) Profile() Profile { return v.profile }

// label names the validator in errors: the definition, and the profile
// when it is not the default.
func (v *Validator) label() string {
	if v.profile == Reference {
		return v.name
	}
	return fmt.Sprintf("%s (profile %s)", v.name, v.profile)
}

// Validate checks one JSON document. It returns nil when the document is
// valid, a *ValidationError listing every violation when it is not, and
// another error when the input is not JSON. A page of records is checked on
// every core (parallel.go), with the violations of the page checked in one
// piece.
//
// The compiled fast path (internal/fastpath) decides first, from the bytes; only
// a document it does not find valid is decoded and checked by gojsonschema,
// which builds the violations.
func (v *Validator) Validate(doc []byte) error {
	decided := false
	if v.fast != nil {
		var valid bool
		if valid, decided = fastpath.ValidBytes(v.fast, doc); valid && decided {
			return nil
		}
	}
	decoded, err := decodeDocument(doc)
	if err != nil {
		return fmt.Errorf("validate %s: %w", v.label(), err)
	}
	if decided {
		return v.validateGojsonschema(decoded) // the fast path said invalid
	}
	return v.validateDecoded(decoded)
}

// ValidateValue checks a Go value as if it were marshalled to JSON.
func (v *Validator) ValidateValue(x any) error {
	data, err := json.Marshal(x)
	if err != nil {
		return fmt.Errorf("validate %s: marshal: %w", v.label(), err)
	}
	return v.Validate(data)
}

// Violation is one way a document breaks its schema.
type Violation struct {
	// Path is the JSON pointer of the offending value in the document, such
	// as "/transactions/3/command/amendAmm/marketId"; "" is the root. For a
	// missing or unexpected property it points at that property.
	Path string
	// Rule names the schema rule broken: "required", "pattern", "enum",
	// "invalid_type", "additional_property_not_allowed", "number_one_of", ...
	Rule string
	// Message says what is wrong in words.
	Message string
	// Value is the offending value, when there is one.
	Value any
}

// String formats the violation as one line: path, message and rule.
func (v Violation) String() string {
	p := v.Path
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s: %s [%s]", p, v.Message, v.Rule)
}

// ValidationError is returned when a document does not match its schema.
type ValidationError struct {
	// Schema is the name of the definition checked against.
	Schema string
	// Profile is the profile checked by.
	Profile Profile
	// Violations lists every violation, ordered by path.
	Violations []Violation
}

// Error names the schema and the profile and lists the violations on one
// line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		lines[i] = v.String()
	}
	return fmt.Sprintf("does not match schema %s (profile %s): %s", e.Schema, e.Profile, strings.Join(lines, "; "))
}

func newValidationError(schema string, profile Profile, errs []located) *ValidationError {
	out := &ValidationError{Schema: schema, Profile: profile}
	seen := map[string]bool{}
	// A property name that breaks propertyNames (a keyed exclusive group's
	// member beside another) is reported twice: as invalid_property_name,
	// which names the property, and as the name's own violation (enum) at
	// the object, which reads as if the object were that name. Only the
	// first is kept.
	badNames := map[string]bool{}
	for _, l := range errs {
		if prop, ok := l.err.Details()["property"].(string); ok && l.err.Type() == "invalid_property_name" {
			badNames[l.path()+"\x00"+prop] = true
		}
	}
	for _, l := range errs {
		re := l.err
		path := l.path()
		if name, ok := re.Value().(string); ok && re.Type() != "invalid_property_name" && badNames[path+"\x00"+name] {
			continue
		}
		rule := re.Type()
		msg := l.description()
		var value any = re.Value()
		switch rule {
		case "required", "additional_property_not_allowed", "invalid_property_name":
			if prop, ok := re.Details()["property"].(string); ok {
				path += "/" + escapePointer(prop)
				value = nil
			}
		}
		if s := shortValue(value); s != "" && rule != "required" {
			msg += ", got " + s
		}
		viol := Violation{Path: path, Rule: rule, Message: msg, Value: value}
		key := viol.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		out.Violations = append(out.Violations, viol)
	}
	sort.SliceStable(out.Violations, func(i, j int) bool {
		a, b := out.Violations[i], out.Violations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		// gojsonschema reports some rules (dependencies) in the
		// document's map order: the message decides.
		return a.Message < b.Message
	})
	return out
}

// contextPointer turns gojsonschema's "(root).a.0.b" context into a JSON
// pointer. A separator that cannot occur in keys keeps dotted keys intact.
func contextPointer(c *gojsonschema.JsonContext) string {
	const sep = "\x1f"
	parts := strings.Split(c.String(sep), sep)
	var b strings.Builder
	for _, p := range parts {
		if p == gojsonschema.STRING_CONTEXT_ROOT {
			continue
		}
		b.WriteByte('/')
		b.WriteString(escapePointer(p))
	}
	return b.String()
}

func shortValue(v any) string {
	switch v.(type) {
	case nil, map[string]any, []any:
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// compileFast compiles the fast path of definition n in profile p, from
// the files gojsonschema compiles it from. The caller holds reg.mu.
func (reg *registry) compileFast(p Profile, n *Node) (*fastpath.Node, error) {
	c, ok := reg.fast[p]
	if !ok {
		var err error
		if c, err = fastpath.NewCompiler(BaseURL, reg.profileFiles(p)); err != nil {
			return nil, err
		}
		if reg.fast == nil {
			reg.fast = map[Profile]*fastpath.Compiler{}
		}
		reg.fast[p] = c
	}
	return c.Compile(n.File, n.Pointer)
}
