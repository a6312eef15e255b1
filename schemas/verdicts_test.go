package schemas_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/schemas"
)

// beforeDir holds the schema files as they were before the command kind and
// the proposal change kind were written keyed (README, "Conventions"): the
// oneOf of one required property per kind that validators tried in turn.
// TestVerdictsBeforeAndAfter holds that every rule they enforced still
// holds, and no other.
const beforeDir = "testdata/verdicts/before"

// verdictDoc is one document of the verdict corpus.
type verdictDoc struct {
	schema string // the definition it is checked against
	from   string // how it was made, for failure messages and counts
	doc    []byte
	also   []string // the kinds of the same document made again, left out (withoutRepeatedMutants)
}

// TestVerdictsBeforeAndAfter gives every document of a corpus, valid and
// broken, to four validators, which must agree on every verdict:
//
//   - the harness validator (gojsonschema) over the embedded files;
//   - gojsonschema over the files as they were before (beforeDir);
//   - the same two in the Spec profile, derived from each set of files;
//   - github.com/santhosh-tekuri/jsonschema/v6, a second, independent
//     draft-07 implementation, over the embedded files;
//   - with HARNESS_SCHEMA_CORPUS (make check-export), ajv and Python's
//     jsonschema over the bundled files, later, from the corpus written.
//
// The corpus: the transactions of a generated world (valid), every example (valid), and, from
// the examples and a sample of the transactions, every site broken each
// way the example tests break it (an unknown property, a wrong type, a
// misspelt enumeration value), removed and set to null; and at every
// exclusive group (the command kind, the change kind, every oneOf) no
// member, a second member, every member, an unknown member and a null
// member; and transactions whose type names another kind.
func TestVerdictsBeforeAndAfter(t *testing.T) {
	var c corpusBuilder
	verdictCorpus(t, &c)
	corpus, total := c.docs(corpusSample())
	before := map[schemas.Profile]*schemas.FilesValidator{}
	for _, p := range schemas.Profiles() {
		fv, err := schemas.LoadFiles(beforeFiles(t), p)
		if err != nil {
			t.Fatalf("files before (profile %s): %v", p, err)
		}
		before[p] = fv
	}
	other := newSecondValidator(t)
	counts := &tally{n: map[string]int{}}
	const shards = 4
	for shard := range shards {
		t.Run("shard", func(t *testing.T) {
			t.Parallel()
			for i := shard; i < len(corpus); i += shards {
				d := corpus[i]
				verdicts := map[string]bool{}
				for _, p := range schemas.Profiles() {
					now := schemas.Validate(d.schema, p, d.doc) == nil
					was, err := before[p].Valid(d.schema, d.doc)
					if err != nil {
						t.Fatalf("%s: %v", d.from, err)
					}
					verdicts["now, "+string(p)] = now
					verdicts["before, "+string(p)] = was
				}
				verdicts["santhosh-tekuri, reference"] = other.valid(t, d.schema, d.doc)
				ref := verdicts["now, reference"]
				// make check-export gives the corpus to ajv and Python's
				// jsonschema too.
				recordCorpus(t, schemas.MustLoad(d.schema), d.doc, ref)
				if verdicts["before, reference"] != ref || verdicts["santhosh-tekuri, reference"] != ref ||
					verdicts["now, spec"] != verdicts["before, spec"] {
					t.Errorf("%s: %s %.300s: verdicts differ: %v", d.from, d.schema, d.doc, verdicts)
				}
				kind := docKind(d.from)
				if ref {
					counts.add("valid", 1)
					counts.add("valid "+kind, 1)
				} else {
					counts.add("invalid", 1)
					counts.add("invalid "+kind, 1)
				}
			}
		})
	}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		// The corpus must hold what the test says it holds.
		least := map[string]int{
			"valid": 1500, "invalid": 4000,
			"valid generated transaction": 1500, "valid example": 150,
			"invalid no member": 100, "invalid second member": 500, "invalid every member": 100,
			"invalid unknown member": 100, "invalid null member": 100, "invalid type of another kind": 100,
			"invalid command not an object": 10, "invalid removed": 300, "invalid wrongly typed value": 500,
			"invalid misspelt enum value": 50, "invalid unknown property in a closed object": 150, "invalid null": 300,
		}
		if perKind := corpusSample(); perKind > 0 {
			// Of each kind, valid or invalid as it comes.
			least = sampleMinimums(total, perKind)
			for kind, n := range least {
				if counts.get("valid "+kind)+counts.get("invalid "+kind) < n {
					t.Errorf("%d documents %s, want at least %d", counts.get("valid "+kind)+counts.get("invalid "+kind), kind, n)
				}
			}
			least = map[string]int{"valid": least["generated transaction"] + least["example"], "invalid": 100}
		}
		for name, least := range least {
			if got := counts.get(name); got < least {
				t.Errorf("%d documents %s, want at least %d", got, name, least)
			}
		}
		t.Logf("%d documents valid, %d invalid: one verdict from each validator", counts.get("valid"), counts.get("invalid"))
		for _, k := range sortedTally(counts) {
			t.Logf("%6d %s", counts.get(k), k)
		}
	})
}

// beforeFiles reads the schema files of beforeDir, by file name.
func beforeFiles(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(beforeDir, "*.json"))
	if err != nil || len(paths) != len(schemas.Files()) {
		t.Fatalf("%s: %d files (%v), want %d", beforeDir, len(paths), err, len(schemas.Files()))
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = data
	}
	return out
}

// secondValidator is santhosh-tekuri/jsonschema over the embedded files.
type secondValidator struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

func newSecondValidator(t testing.TB) *secondValidator {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	for _, name := range schemas.Files() {
		data, err := schemas.File(name)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.AddResource(schemas.BaseURL+name, doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return &secondValidator{compiler: c, compiled: map[string]*jsonschema.Schema{}}
}

func (s *secondValidator) valid(t testing.TB, name string, doc []byte) bool {
	t.Helper()
	s.mu.Lock()
	sch, ok := s.compiled[name]
	if !ok {
		file, err := schemas.FileOf(name)
		if err != nil {
			s.mu.Unlock()
			t.Fatal(err)
		}
		sch, err = s.compiler.Compile(schemas.BaseURL + file + "#/definitions/" + name)
		if err != nil {
			s.mu.Unlock()
			t.Fatalf("santhosh-tekuri/jsonschema: compile %s: %v", name, err)
		}
		s.compiled[name] = sch
	}
	s.mu.Unlock()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return sch.Validate(v) == nil
}

// verdictCorpus builds the corpus TestVerdictsBeforeAndAfter checks.
func verdictCorpus(t *testing.T, c *corpusBuilder) {
	t.Helper()
	add := func(schema, from string, doc []byte) {
		c.add(schema, from, func() []byte { return doc })
	}
	// Valid: what the generators make.
	w, err := world.Generate(world.Options{Seed: 5, Scale: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	var txs []any
	sampled := map[string]int{}
	for i := range w.Transactions {
		raw := w.Transactions[i].JSON
		add("Transaction", "generated transaction", raw)
		doc, err := decodeJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		// A sample to break: the first transactions of each type.
		typ, _ := doc.(map[string]any)["type"].(string)
		if sampled[typ] < 1 {
			sampled[typ]++
			txs = append(txs, doc)
		}
	}
	// Valid: the examples; and the documents to break.
	type base struct {
		schema, from string
		doc          any
	}
	var bases []base
	for _, ex := range examples(t) {
		add(ex.def, "example", ex.raw)
		bases = append(bases, base{ex.def, ex.file, ex.doc})
	}
	// The definitions whose rules were rewritten, and those holding them:
	// their sites are broken every way; elsewhere only the exclusive
	// groups are (the example tests break every site of every example).
	everyWay := map[string]bool{"Transaction": true, "Command": true, "ProposalChange": true, "BatchProposalTerms": true}
	for i, tx := range txs {
		bases = append(bases, base{"Transaction", "transaction " + string(rune('A'+i%26)), tx})
	}
	memberValues := exampleMemberValues(t)
	types := txTypesByKind()
	for _, b := range bases {
		var sites []site
		walkDoc(schemas.MustLookup(b.schema), b.doc, "", func(s site) { sites = append(sites, s) })
		broken := func(kind, path string, doc func() any) {
			c.add(b.schema, kind+": "+b.from+" at "+path, func() []byte { return encodeJSON(t, doc()) })
		}
		for _, s := range sites {
			if everyWay[b.schema] {
				for _, m := range mutations {
					if v, ok := m.apply(s); ok {
						broken(m.name, s.path, func() any { return setAt(t, b.doc, s.path, v) })
					}
				}
				if s.path != "" {
					broken("null", s.path, func() any { return setAt(t, b.doc, s.path, nil) })
					if parent := s.path[:strings.LastIndex(s.path, "/")]; isObjectAt(b.doc, parent) {
						broken("removed", s.path, func() any { return deleteAt(t, b.doc, s.path) })
					}
				}
			}
			obj, ok := s.value.(map[string]any)
			group := s.schema.ExclusiveGroup()
			if !ok || group == nil {
				continue
			}
			present := ""
			for _, m := range group {
				if _, ok := obj[m]; ok {
					present = m
				}
			}
			edit := func(kind string, f func(o map[string]any)) {
				broken(kind, s.path, func() any {
					o := cloneJSON(obj).(map[string]any)
					f(o)
					return setAt(t, b.doc, s.path, o)
				})
			}
			valueOf := func(m string) any {
				if v, ok := memberValues[s.schema.Name+"."+m]; ok {
					return cloneJSON(v)
				}
				return map[string]any{}
			}
			if present != "" {
				edit("no member", func(o map[string]any) { delete(o, present) })
				edit("unknown member", func(o map[string]any) { o["unknownKind"] = o[present]; delete(o, present) })
				edit("null member", func(o map[string]any) { o[present] = nil })
			}
			for i, m := range group {
				if m == present {
					continue
				}
				// Each other member beside the one present (or alone,
				// when none is).
				edit("second member", func(o map[string]any) { o[m] = valueOf(m) })
				if present == "" && i > 0 {
					edit("second member", func(o map[string]any) { o[m] = valueOf(m); o[group[0]] = valueOf(group[0]) })
				}
			}
			edit("every member", func(o map[string]any) {
				for _, m := range group {
					o[m] = valueOf(m)
				}
			})
		}
		if b.schema == "Transaction" {
			tx := b.doc.(map[string]any)
			for _, typ := range types {
				if typ != tx["type"] {
					broken("type of another kind", "/type", func() any { return setAt(t, b.doc, "/type", typ) })
				}
			}
			broken("command not an object", "/command", func() any { return setAt(t, b.doc, "/command", "orderSubmission") })
		}
	}
}

// corpusBuilder gathers the documents of a corpus as they are named, and
// makes each (a copy of its base changed and encoded, the most of a
// corpus's making) only when it is taken.
type corpusBuilder struct {
	named []namedDoc
}

// namedDoc is a document of a corpus, not yet made.
type namedDoc struct {
	schema, from string
	make         func() []byte
}

func (c *corpusBuilder) add(schema, from string, make func() []byte) {
	c.named = append(c.named, namedDoc{schema, from, make})
}

// docKind returns the kind of a document of a corpus: the mutation that
// broke it ("type", "removed", ...), or how a valid one was made
// ("generated transaction", "example").
func docKind(from string) string {
	kind, _, _ := strings.Cut(from, ":")
	return kind
}

// raceSamplePerKind is how many documents of each kind the verdict tests
// check with -short: under the race detector (make test's third pass),
// which makes gojsonschema ten times slower, they are there for the
// validators' concurrent use (four shards at once, each page checked on
// every core), and without it (make quick) for a quick look; make test's
// second pass checks every document, without the detector.
const raceSamplePerKind = 20

// corpusSample returns how many documents of each kind the verdict tests
// check: 0 for every one, raceSamplePerKind with -short.
func corpusSample() int {
	if testing.Short() {
		return raceSamplePerKind
	}
	return 0
}

// sampleMinimums returns, for a sample of perKind documents of each kind
// (corpusBuilder.docs), the least number of each kind it must check.
func sampleMinimums(total map[string]int, perKind int) map[string]int {
	least := map[string]int{}
	for kind, n := range total {
		least[kind] = min(n, perKind/2)
	}
	return least
}

// docs makes the documents of the corpus, in order: every one when perKind
// is 0; else, of each kind, at least min(its count, perKind/2) and at most
// perKind of them, spread evenly over those of the kind. total is the count
// of each kind in the whole corpus.
func (c *corpusBuilder) docs(perKind int) (out []verdictDoc, total map[string]int) {
	total = map[string]int{}
	for _, d := range c.named {
		total[docKind(d.from)]++
	}
	seen := map[string]int{}
	for _, d := range c.named {
		kind := docKind(d.from)
		i := seen[kind]
		seen[kind]++
		if perKind > 0 && i%((total[kind]+perKind-1)/perKind) != 0 {
			continue
		}
		out = append(out, verdictDoc{schema: d.schema, from: d.from, doc: d.make()})
	}
	return out, total
}

// isObjectAt reports whether the value at path in doc is an object.
func isObjectAt(doc any, path string) bool {
	cur := doc
	for _, tok := range pointerTokens(path) {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			return false // not needed deeper than the examples go
		default:
			return false
		}
	}
	_, ok := cur.(map[string]any)
	return ok
}

// exampleMemberValues returns, by "Definition.member", the value the
// example of that member of an exclusive group gives it.
func exampleMemberValues(t *testing.T) map[string]any {
	out := map[string]any{}
	for _, ex := range examples(t) {
		if obj, ok := ex.doc.(map[string]any); ok && ex.variant != "" {
			if v, ok := obj[ex.variant]; ok {
				out[ex.def+"."+ex.variant] = v
			}
		}
	}
	return out
}

// txTypesByKind returns the transaction types the schemas tie to a command
// kind, sorted.
func txTypesByKind() []string {
	var out []string
	for _, k := range detailedCommandKinds {
		out = append(out, k.txType)
	}
	sort.Strings(out)
	return out
}

func sortedTally(c *tally) []string {
	var out []string
	for k := range c.n {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
