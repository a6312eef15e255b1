package schemas

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/xeipuuv/gojsonschema"

	"github.com/chaindata/harness/schemas/internal/fastpath"
)

// Validation on every core. A document is decoded once; a page (a
// response whose arrays hold records, such as ListTransactionsResponse) is
// checked as its skeleton (the page with those arrays empty) and each
// record apart, against the record's own definition, by a pool of workers;
// many documents (ValidateEach) are shared out the same way. The pool is
// the calling goroutine and helpers the whole package bounds to
// GOMAXPROCS-1, so nested or concurrent calls (the suite validating many
// pages, the proxy serving many clients) never run more than GOMAXPROCS
// workers beside their callers. Results land by index: the violations are
// those of the whole document checked in one piece, in the same order.

// helpers counts the pool's helper goroutines running, package-wide.
var helpers atomic.Int64

// forEach calls fn(i) once for every i in [0, n), on the calling goroutine
// and on as many helpers as the package's bound leaves free, and returns
// when every call has returned.
func forEach(n int, fn func(i int)) {
	if n <= 0 {
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			fn(i)
		}
	}
	var wg sync.WaitGroup
	limit := int64(runtime.GOMAXPROCS(0) - 1)
	for range min(n-1, int(limit)) {
		if !reserveHelper(limit) {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer helpers.Add(-1) // before Done: the bound is free once forEach returns
			work()
		}()
	}
	work()
	wg.Wait()
}

// reserveHelper takes one of the limit helper places, if one is free. It
// never lets the count pass limit, not even for a moment: an add-then-undo
// would let a concurrent reader see one helper too many.
func reserveHelper(limit int64) bool {
	for {
		h := helpers.Load()
		if h >= limit {
			return false
		}
		if helpers.CompareAndSwap(h, h+1) {
			return true
		}
	}
}

// ValidateEach checks many documents on every core and returns, for each
// document in input order, what Validate returns for it.
func (v *Validator) ValidateEach(docs [][]byte) []error {
	errs := make([]error, len(docs))
	forEach(len(docs), func(i int) { errs[i] = v.Validate(docs[i]) })
	return errs
}

// decodeDocument decodes one JSON document as gojsonschema does: the
// decoder the fast path's parser leaves what it does not read to.
var decodeDocument = fastpath.Decode

// decodedLoader hands gojsonschema a document decoded already.
type decodedLoader struct {
	gojsonschema.JSONLoader // for the methods Validate does not call
	doc                     any
}

func (l decodedLoader) LoadJSON() (any, error) { return l.doc, nil }

func newDecodedLoader(doc any) gojsonschema.JSONLoader {
	return decodedLoader{JSONLoader: gojsonschema.NewGoLoader(nil), doc: doc}
}

// pageArray is an array of a definition whose items are checked apart.
type pageArray struct {
	path  []string   // the property names from the root to the array
	items *Validator // the items' definition, in the same profile
}

// pageArrays returns the arrays of definition n whose items can be checked
// apart from the page, in profile p, with no change to any verdict or
// violation: each is reached from the root through plain objects (no
// combinator, condition, dependency or propertyNames on the way, so no rule
// looks at the array from above), and is {"type": "array", "items": {"$ref":
// Definition}} and nothing more (no rule looks at the array as a whole, so
// it may be checked empty). A property the Spec profile reduces to {} is not
// followed there.
func pageArrays(n *Node, p Profile) ([]pageArray, error) {
	var out []pageArray
	var walk func(n *Node, path []string) error
	walk = func(n *Node, path []string) error {
		n = n.Resolve()
		if !n.HasType("object") || len(n.OneOf)+len(n.AnyOf)+len(n.AllOf) > 0 || n.Not != nil || n.If != nil ||
			n.Then != nil || n.Else != nil || len(n.Dependencies) > 0 || n.PropertyNames != nil || len(path) > 3 {
			return nil
		}
		for _, prop := range n.Properties {
			if p == Spec && n.HasSpecFields && !n.IsSpecField(prop.Name) {
				continue
			}
			at := append(append([]string(nil), path...), prop.Name)
			if def := recordArray(prop.Schema.Resolve()); def != "" {
				items, err := LoadProfile(def, p)
				if err != nil {
					return err
				}
				out = append(out, pageArray{path: at, items: items})
				continue
			}
			if err := walk(prop.Schema, at); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(n, nil)
}

// recordArray returns the definition of the items of an array schema that
// says nothing else, or "".
func recordArray(a *Node) string {
	if a.Items == nil || a.Items.Ref == nil || a.Items.Ref.Name == "" || len(a.Types) != 1 || a.Types[0] != "array" {
		return ""
	}
	plain := *a
	plain.Types, plain.Items, plain.Description = nil, nil, ""
	if !plain.isOnly(func(*Node) {}) {
		return ""
	}
	items := *a.Items
	items.Ref, items.RefText = nil, ""
	if !items.isOnly(func(*Node) {}) {
		return ""
	}
	return a.Items.Ref.Name
}

// part is one piece of a document checked on its own: the whole document,
// a page's skeleton or one record of it.
type part struct {
	doc    any
	schema *gojsonschema.Schema
	// pointer and field say where the piece is in the document, as a JSON
	// pointer and as gojsonschema's field ("transactions.3"); "" for the
	// root.
	pointer, field string
}

// parts splits a decoded document into the pieces to check.
func (v *Validator) parts(doc any) []part {
	whole := []part{{doc: doc, schema: v.schema}}
	arrays := v.pageArrays()
	if len(arrays) == 0 {
		return whole
	}
	skeleton := doc
	var records []part
	for _, pa := range arrays {
		arr, ok := valueAt(doc, pa.path).([]any)
		if !ok || len(arr) == 0 {
			continue
		}
		skeleton = withEmptyArray(skeleton, pa.path)
		pointer, field := "", ""
		for _, name := range pa.path {
			pointer += "/" + escapePointer(name)
			if field != "" {
				field += "."
			}
			field += name
		}
		for i, rec := range arr {
			idx := strconv.Itoa(i)
			records = append(records, part{doc: rec, schema: pa.items.schema, pointer: pointer + "/" + idx, field: field + "." + idx})
		}
	}
	if len(records) < 2 {
		return whole
	}
	return append([]part{{doc: skeleton, schema: v.schema}}, records...)
}

// pageArrays returns the validator's page arrays, found on first use.
func (v *Validator) pageArrays() []pageArray {
	v.pagesOnce.Do(func() {
		n, err := Lookup(v.name)
		if err == nil {
			v.pages, err = pageArrays(n, v.profile)
		}
		if err != nil {
			v.pages = nil // checked in one piece
		}
	})
	return v.pages
}

// valueAt returns the value at the end of a chain of object members, or nil.
func valueAt(doc any, path []string) any {
	for _, name := range path {
		obj, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		doc = obj[name]
	}
	return doc
}

// withEmptyArray returns doc with the array at path replaced by an empty
// one, copying the objects on the way and sharing everything else.
func withEmptyArray(doc any, path []string) any {
	obj := doc.(map[string]any)
	out := make(map[string]any, len(obj))
	for k, x := range obj {
		out[k] = x
	}
	if len(path) == 1 {
		out[path[0]] = []any{}
	} else {
		out[path[0]] = withEmptyArray(obj[path[0]], path[1:])
	}
	return out
}

// validateDecoded checks a decoded document: by the compiled fast path
// (internal/fastpath), and by gojsonschema when the fast path does not find it
// valid.
func (v *Validator) validateDecoded(doc any) error {
	if v.fast != nil {
		if valid, decided := fastpath.Valid(v.fast, doc); valid && decided {
			return nil
		}
	}
	return v.validateGojsonschema(doc)
}

// validateGojsonschema checks a decoded document with gojsonschema alone,
// piece by piece on every core, and builds the violations.
func (v *Validator) validateGojsonschema(doc any) error {
	ps := v.parts(doc)
	results := make([]*gojsonschema.Result, len(ps))
	var failed atomic.Bool
	forEach(len(ps), func(i int) {
		res, err := ps[i].schema.Validate(newDecodedLoader(ps[i].doc))
		if err != nil || !res.Valid() {
			failed.Store(true)
		}
		results[i] = res
	})
	if !failed.Load() {
		return nil
	}
	var errs []located
	for i, res := range results {
		if res == nil {
			continue
		}
		for _, re := range res.Errors() {
			errs = append(errs, located{err: re, pointer: ps[i].pointer, field: ps[i].field})
		}
	}
	return newValidationError(v.name, v.profile, errs)
}

// located is a gojsonschema error of a piece of a document, with where the
// piece is.
type located struct {
	err            gojsonschema.ResultError
	pointer, field string
}

// path returns the JSON pointer of the error in the whole document.
func (l located) path() string { return l.pointer + contextPointer(l.err.Context()) }

// description returns the error's description as gojsonschema words it for
// the whole document: a record's errors name their field from the record
// ("(root)", "command.nonce"), the whole document's from its root
// ("transactions.3", "transactions.3.command.nonce").
func (l located) description() string {
	if l.field == "" {
		return l.err.Description()
	}
	details := gojsonschema.ErrorDetails{}
	for k, x := range l.err.Details() {
		details[k] = x
	}
	if f := l.err.Field(); f == gojsonschema.STRING_ROOT_SCHEMA_PROPERTY {
		details["field"] = l.field
	} else {
		details["field"] = l.field + "." + f
	}
	if c, ok := details["context"].(string); ok {
		details["context"] = gojsonschema.STRING_ROOT_SCHEMA_PROPERTY + "." + l.field +
			strings.TrimPrefix(c, gojsonschema.STRING_ROOT_SCHEMA_PROPERTY)
	}
	return formatDescription(l.err.DescriptionFormat(), details)
}

// descriptionTemplates caches the parsed description formats.
var descriptionTemplates sync.Map // format -> *template.Template

// formatDescription formats a description as gojsonschema does.
func formatDescription(format string, details gojsonschema.ErrorDetails) string {
	var tpl *template.Template
	if t, ok := descriptionTemplates.Load(format); ok {
		tpl = t.(*template.Template)
	} else {
		tpl = template.New(format)
		if gojsonschema.ErrorTemplateFuncs != nil {
			tpl.Funcs(gojsonschema.ErrorTemplateFuncs)
		}
		var err error
		if tpl, err = tpl.Parse(format); err != nil {
			return err.Error()
		}
		descriptionTemplates.Store(format, tpl)
	}
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, details); err != nil {
		return err.Error()
	}
	return buf.String()
}
