package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/chaindata/harness/internal/quote"
	"github.com/chaindata/harness/internal/suggest"
)

// A rule file's errors name the line of the mistake and what shape is
// wanted, in the words of the file (a list, a mapping, a whole number),
// never a Go type.

// ruleFields are the fields of a rule in a file, in the order File's
// documentation lists them.
var ruleFields = []string{"name", "listing", "path", "probability", "every", "times", "fault"}

// errNoRules is the error for a file without a rules list.
var errNoRules = errors.New(`fault rules: no "rules" list (it may be empty: rules: [])`)

// parseYAMLFile reads a YAML rule file's rules. It reads the file as YAML
// nodes and checks their shape itself, so that every error names its line.
func parseYAMLFile(data []byte) ([]fileRule, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("fault rules: empty; want an object with rules")
		}
		return nil, fmt.Errorf("fault rules (YAML): %w", yamlSyntaxError(data, err))
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		return nil, fmt.Errorf("fault rules (YAML): line %d: a second document; want one (no --- between rules)", more.Line)
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("fault rules (YAML): %w", yamlSyntaxError(data, err))
	}
	rules, err := yamlRules(resolve(doc.Content[0]))
	if err != nil {
		return nil, fmt.Errorf("fault rules (YAML): %w", err)
	}
	return rules, nil
}

// yamlRules reads the rules of a file's top node, which must be a mapping
// whose one key, rules, holds a list of rules.
func yamlRules(top *yaml.Node) ([]fileRule, error) {
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf(`line %d: the file is %s; want a mapping whose "rules" key holds the list ("rules:" on a line, each rule under it as "  - fault: ...")`,
			top.Line, describe(top))
	}
	var x expander
	pairs, err := x.pairs(top)
	if err != nil {
		return nil, err
	}
	var list *yaml.Node
	for _, p := range pairs {
		if p.key != "rules" {
			return nil, fmt.Errorf("line %d: %w", p.line, unknownField(p.key, []string{"rules"}, "the file has one key, rules"))
		}
		list = p.value
	}
	if list == nil || isNull(list) {
		return nil, errNoRules
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf(`line %d: rules holds %s; want a list of rules, each "- fault: ..." on its own line`, list.Line, describe(list))
	}
	rules := make([]fileRule, len(list.Content))
	for i, item := range list.Content {
		if rules[i], err = x.rule(resolve(item), i+1); err != nil {
			return nil, err
		}
	}
	return rules, nil
}

// rule reads the i-th rule (from 1), which must be a mapping of the
// fields ruleFields lists.
func (x *expander) rule(n *yaml.Node, i int) (fileRule, error) {
	var r fileRule
	if n.Kind != yaml.MappingNode {
		return r, fmt.Errorf("line %d: rule %d is %s; want a mapping of its fields, such as \"fault: status=503\"", n.Line, i, describe(n))
	}
	pairs, err := x.pairs(n)
	if err != nil {
		return r, err
	}
	for _, p := range pairs {
		if err := setField(&r, p.key, p.value); err != nil {
			return r, fmt.Errorf("line %d: rule %d: %w", p.value.Line, i, err)
		}
	}
	return r, nil
}

// setField sets a rule's field from its YAML value.
func setField(r *fileRule, key string, v *yaml.Node) error {
	var err error
	switch key {
	case "name":
		r.Name, err = stringValue(key, v)
	case "listing":
		r.Listing, err = stringValue(key, v)
	case "path":
		r.Path, err = stringValue(key, v)
	case "fault":
		r.Fault, err = stringValue(key, v)
	case "probability":
		r.Probability, err = numberValue[float64](key, v, "!!float", "a number")
	case "every":
		r.Every, err = numberValue[int](key, v, "!!int", "a whole number")
	case "times":
		r.Times, err = numberValue[int](key, v, "!!int", "a whole number")
	default:
		return unknownField(key, ruleFields, "a rule has "+strings.Join(ruleFields, ", "))
	}
	return err
}

// unknownField says that key is no field, names the nearest of known and
// then, in brackets, what fields there are.
func unknownField(key string, known []string, fields string) error {
	near := suggest.Phrase(suggest.Nearest(key, known, 2), identity)
	return fmt.Errorf("unknown field %s%s (%s)", quote.Value(key), near, fields)
}

// stringValue reads a field that holds text: any single value (nothing is
// "").
func stringValue(key string, v *yaml.Node) (string, error) {
	switch {
	case isNull(v):
		return "", nil
	case v.Kind != yaml.ScalarNode:
		return "", fmt.Errorf("%s is %s; want a single value such as %s", key, describe(v), example(key))
	}
	return v.Value, nil
}

// numberValue reads a field that holds a number: a whole number (tag
// !!int), or any number when tag is !!float. Nothing is nil, as for a
// field left out.
func numberValue[T int | float64](key string, v *yaml.Node, tag, want string) (*T, error) {
	if isNull(v) {
		return nil, nil
	}
	var x T
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != tag) || v.Decode(&x) != nil {
		got := describe(v)
		if v.Kind == yaml.ScalarNode {
			got = quote.Value(v.Value)
		}
		return nil, fmt.Errorf("%s %s: want %s", key, got, want)
	}
	return &x, nil
}

// example is a value of a rule's text field, for messages.
func example(key string) string {
	switch key {
	case "listing":
		return "games"
	case "path":
		return "/api/v2/games"
	case "fault":
		return "status=503"
	}
	return "slow-games"
}

// pair is a key of a YAML mapping, its line and its value.
type pair struct {
	key   string
	line  int
	value *yaml.Node
}

// maxMerges bounds the merge keys (<<) a file expands in all, so that
// merges of merges of the same mapping cannot take exponential time, and
// a mapping that merges itself ends.
const maxMerges = 1000

// expander reads mappings, expanding their merge keys within maxMerges.
type expander struct {
	merges int // expanded so far
}

// pairs returns the keys and values of a mapping, aliases resolved and
// merge keys (<<: *base) expanded, the mapping's own keys winning. A key
// given twice, or one that is not a single value, is an error.
func (x *expander) pairs(n *yaml.Node) ([]pair, error) {
	var own, merged []pair
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			m, err := x.merge(k.Line, v)
			if err != nil {
				return nil, err
			}
			merged = append(merged, m...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a key is %s; want a name such as fault", k.Line, describe(k))
		}
		if first, ok := seen[k.Value]; ok {
			return nil, fmt.Errorf("line %d: %s is given twice (first on line %d)", k.Line, quote.Value(k.Value), first)
		}
		seen[k.Value] = k.Line
		own = append(own, pair{k.Value, k.Line, v})
	}
	for _, p := range merged {
		if _, ok := seen[p.key]; !ok {
			seen[p.key] = p.line
			own = append(own, p)
		}
	}
	return own, nil
}

// merge returns the pairs a merge key on line brings: of one mapping, or
// of a list of them (the first winning).
func (x *expander) merge(line int, v *yaml.Node) ([]pair, error) {
	maps := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		maps = v.Content
	}
	var out []pair
	for _, m := range maps {
		if x.merges++; x.merges > maxMerges {
			return nil, fmt.Errorf("line %d: more than %d merges (<<) in all, or a mapping that merges itself", line, maxMerges)
		}
		m = resolve(m)
		if m.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: << merges %s; want a mapping", m.Line, describe(m))
		}
		ps, err := x.pairs(m)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// resolve follows an alias (*name) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is nothing (a key with no value, null or ~).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe says what a node is, in the file's words: a list, a mapping, a
// whole number, ...
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!int":
			return "a whole number"
		case "!!float":
			return "a number"
		case "!!bool":
			return "true or false"
		case "!!null":
			return "nothing"
		}
		return "a string"
	}
	return "a value"
}

// identity quotes a suggestion as it is.
func identity(s string) string { return s }

// yamlLineRE matches the line yaml v3 puts at the start of its messages.
var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// yamlSyntaxError rewrites a syntax error of yaml v3, which names the line
// where the enclosing block began (for a bad indent on line 3 of a rule
// that begins on line 2, "line 1"), to name the line of the mistake: the
// first line by which the file fails with the same problem, found by
// parsing its beginnings (a binary search: a few parses of a file that is
// at most 1 MiB). It adds a hint to the problems of indentation.
func yamlSyntaxError(data []byte, err error) error {
	problem := yamlLineRE.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), "")
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(n int) bool {
		var doc yaml.Node
		dec := yaml.NewDecoder(bytes.NewReader(bytes.Join(lines[:n], nil)))
		for {
			err := dec.Decode(&doc)
			if err == nil {
				continue
			}
			return !errors.Is(err, io.EOF) &&
				yamlLineRE.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), "") == problem
		}
	}
	if !fails(len(lines)) {
		return errors.New(problem + hint(problem))
	}
	lo, hi := 0, len(lines) // fails(hi), and no file of no lines fails
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return fmt.Errorf("line %d: %s%s", hi, problem, hint(problem))
}

// hint explains the YAML problems that come of indentation.
func hint(problem string) string {
	switch {
	case strings.Contains(problem, "tab character"):
		return " (indent with spaces, not tabs)"
	case strings.Contains(problem, "expected '-' indicator"),
		strings.Contains(problem, "did not find expected key"),
		strings.Contains(problem, "mapping values are not allowed"):
		return " (is the line indented as the ones before it? a rule's fields line up under its first, after \"- \")"
	}
	return ""
}

// parseJSONFile reads a JSON rule file's rules.
func parseJSONFile(data []byte) ([]fileRule, error) {
	var file struct {
		Rules *[]fileRule `json:"rules"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("fault rules (JSON): %w", jsonError(data, dec, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("fault rules (JSON): line %d: more after the object", lineAt(data, dec.InputOffset()))
	}
	if file.Rules == nil {
		return nil, errNoRules
	}
	return *file.Rules, nil
}

// jsonUnknownFieldRE matches encoding/json's error for a field not in the
// struct.
var jsonUnknownFieldRE = regexp.MustCompile(`^json: unknown field "(.*)"$`)

// jsonError rewrites an error of encoding/json to name the line and what
// the file should hold, not a Go type.
func jsonError(data []byte, dec *json.Decoder, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("line %d: %s", lineAt(data, syntax.Offset), strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the file"
		}
		return fmt.Errorf("line %d: %s is %s; want %s", lineAt(data, typ.Offset), field, article(typ.Value), jsonWant(typ.Type, typ.Field == ""))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("line %d: the file ends inside the object", lineAt(data, int64(len(data))))
	}
	if m := jsonUnknownFieldRE.FindStringSubmatch(err.Error()); m != nil {
		known := append([]string{"rules"}, ruleFields...)
		fields := `the file has "rules", a rule has ` + strings.Join(ruleFields, ", ")
		return fmt.Errorf("line %d: %w", lineAt(data, dec.InputOffset()), unknownField(m[1], known, fields))
	}
	return err
}

// jsonWant says what a JSON value of Go type t is: the file itself when
// top, else a value in it.
func jsonWant(t reflect.Type, top bool) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return `a list of rules, [{"fault": "status=503"}, ...]`
	case reflect.Struct:
		if top {
			return `an object, {"rules": [...]}`
		}
		return `each rule an object, {"fault": "status=503", ...}`
	}
	return "another kind of value"
}

// article puts "a" or "an" before the name of a JSON value's kind.
func article(kind string) string {
	if kind == "array" {
		return "an array"
	}
	if kind == "object" {
		return "an object"
	}
	return "a " + kind
}

// lineAt returns the line (from 1) of a byte offset of data.
func lineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}
