package conformance

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
)

// Citation is the spec text a MUST rule rests on: a section of the API's
// spec and a short quote from it.
type Citation struct {
	Section string
	Quote   string
}

// String writes the citation as it appears in reports.
func (c Citation) String() string {
	if c.Section == "" {
		return ""
	}
	return fmt.Sprintf("spec §%s: %q", c.Section, c.Quote)
}

// level is how a rule is declared: a MUST rule with the spec text it rests
// on, or a SHOULD rule (label "strict") that only docs/behaviour.md decides.
type level struct {
	cite   Citation
	strict bool
}

// must declares a MUST rule resting on the spec's section and quote.
func must(section, quote string) level {
	return level{cite: Citation{Section: section, Quote: quote}}
}

// should declares a SHOULD rule: our reading, where the spec says "not
// shown" or says less.
var should = level{strict: true}

// The spec text the suite's MUST rules cite most.
var (
	citeForward    = must("4 (PAG)", "pagination.first: number of records sorting after the row identified by after")
	citeBackward   = must("4 (PAG)", "pagination.last: number of records sorting before the row identified by before")
	citeNewest     = must("4 (PAG)", "pagination.newestFirst: newest records first; default true")
	citePageInfo   = must("2.1", "hasNextPage: a further page exists after this one; hasPreviousPage: a page exists before this one")
	citeCursors    = must("2.1", "startCursor: cursor of the first row in the page; endCursor: cursor of the last row in the page")
	citeErrorBody  = must("7", "Both the 500 and the default responses carry the error body of 2.1: code (int32), message (string), details")
	citeJSON       = must("4", "All endpoints use GET and return application/json")
	citeTxOrder    = must("4.5", "GET /transactions (newest to oldest)")
	citeTxFirst    = must("4.5", "first: count; use with after to page toward the most recent; cannot be combined with before; alone returns the first most recent transactions")
	citeTxLast     = must("4.5", "last: count; use with before to page toward the least recent; cannot be combined with after; alone returns the last oldest transactions")
	citeTxWindow   = must("4.5", "before: cursor; may be combined with after")
	citeEpochLimit = must("8", "Epoch range | list games | at most 30 epochs per request, both ends inclusive")
)

// Prefixes of rule IDs: one per scope (listing, or the deployment as a
// whole) and one per area.
var (
	idScopes = map[string]string{
		"games": "GAMES", "snapshots": "SNAP", "key-rotations": "ROT",
		"network-parameters": "PARAM", "transactions": "TX", DeploymentLabel: "DEPLOY",
	}
	idAreas = map[string]string{
		"pagination": "PAG", "filters": "FLT", "epochs": "EPO", "errors": "ERR", "schema": "SCH",
		"headers": "HDR", "limits": "LIM", "model": "MOD", "growth": "GRO",
	}
	idPattern = regexp.MustCompile(`^([A-Z]+)-([A-Z]+)-([0-9]{3})$`)
)

// DeploymentLabel is the scope of rules about the deployment as a whole
// rather than one listing.
const DeploymentLabel = "deployment"

// ruleIDsFile is the registry of rule IDs: every ID ever published, with
// the rule it names. An ID never changes and is never reused; a rule that
// is retired keeps its line, marked retired.
//
//go:embed rule-ids.txt
var ruleIDsFile string

// idEntry is one line of the registry.
type idEntry struct {
	id, scope, area, text string
	retired               bool
}

// registry key of a rule.
func idKey(scope, area, text string) string { return scope + "\x00" + area + "\x00" + text }

// parseRuleIDs reads the registry: one rule a line, tab-separated: ID,
// scope, area, text; a retired rule has "retired" before its scope.
func parseRuleIDs(data string) ([]idEntry, error) {
	var out []idEntry
	for n, line := range strings.Split(data, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		e := idEntry{}
		if len(f) == 5 && f[1] == "retired" {
			e.retired = true
			f = append(f[:1], f[2:]...)
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("rule-ids.txt line %d: want ID, [retired,] scope, area and text separated by tabs", n+1)
		}
		e.id, e.scope, e.area, e.text = f[0], f[1], f[2], f[3]
		if !idPattern.MatchString(e.id) {
			return nil, fmt.Errorf("rule-ids.txt line %d: %q is not an ID like GAMES-PAG-001", n+1, e.id)
		}
		out = append(out, e)
	}
	return out, nil
}

// registry is the parsed registry and what the suite's tree declared.
type registry struct {
	entries []idEntry
	byKey   map[string]string
	err     error

	mu sync.Mutex
	// meta holds the rules declared while Ginkgo built the tree, by ID.
	meta map[string]ruleMeta
}

type ruleMeta struct {
	scope, area, text string
	lvl               level
}

var ruleRegistry = sync.OnceValue(func() *registry {
	r := &registry{byKey: map[string]string{}, meta: map[string]ruleMeta{}}
	r.entries, r.err = parseRuleIDs(ruleIDsFile)
	for _, e := range r.entries {
		if !e.retired {
			r.byKey[idKey(e.scope, e.area, e.text)] = e.id
		}
	}
	return r
})

// unassigned is the ID of a rule the registry does not list yet; the
// catalogue test fails until it is given one (-update).
const unassigned = "UNASSIGNED"

// declaring is where Ginkgo is building the tree: the scope and area of the
// container being built. Tree construction runs on one goroutine.
var declaring struct{ scope, area string }

// scope declares the container of one listing (or the deployment) with its
// label; the rules inside take their ID prefix from it.
func scope(name string, args ...any) bool {
	body := args[len(args)-1].(func())
	args = append([]any{Label(name)}, args[:len(args)-1]...)
	return Describe(name, append(args, func() {
		prev := declaring.scope
		declaring.scope = name
		defer func() { declaring.scope = prev }()
		body()
	})...)
}

// area declares the container of one area of rules, labelled with it.
func area(name string, body func()) {
	Context(name, Label(name), func() {
		prev := declaring.area
		declaring.area = name
		defer func() { declaring.area = prev }()
		body()
	})
}

// declare records a rule of the current scope and area and returns the
// Ginkgo decorators it carries: its ID as a label, and "strict" for a
// SHOULD rule.
func declare(text string, lvl level) []any {
	reg := ruleRegistry()
	id, ok := reg.byKey[idKey(declaring.scope, declaring.area, text)]
	if !ok {
		id = unassigned
	}
	reg.mu.Lock()
	if id != unassigned {
		reg.meta[id] = ruleMeta{scope: declaring.scope, area: declaring.area, text: text, lvl: lvl}
	}
	reg.mu.Unlock()
	labels := Label(id)
	if lvl.strict {
		labels = append(labels, StrictLabel)
	}
	return []any{labels}
}

// rule declares one rule: an It labelled with the rule's ID (and "strict"
// for a SHOULD rule). The body judges the rule through a verdict.
func rule(text string, lvl level, body func()) bool {
	args := declare(text, lvl)
	return It(text, append(args, body)...)
}

// ruleEntry declares one rule of a table: the table's text and the
// entry's description make the rule's text, as Ginkgo names the spec.
func ruleEntry(table, name string, lvl level, params ...any) TableEntry {
	args := declare(table+" "+name, lvl)
	return Entry(name, append(args, params...)...)
}

// metaOf returns what a rule declared, by ID.
func metaOf(id string) (ruleMeta, bool) {
	reg := ruleRegistry()
	reg.mu.Lock()
	defer reg.mu.Unlock()
	m, ok := reg.meta[id]
	return m, ok
}

// ruleID returns the ID among a spec's labels, or "".
func ruleID(labels []string) string {
	for _, l := range labels {
		if l == unassigned || idPattern.MatchString(l) {
			return l
		}
	}
	return ""
}

// nextIDs assigns IDs to rules the registry does not list (setting them in
// rules), and marks retired the registry's rules the suite no longer has.
// It returns the new registry text. IDs already published never change.
func nextIDs(rules []Rule) (string, error) {
	reg := ruleRegistry()
	if reg.err != nil {
		return "", reg.err
	}
	entries := slices.Clone(reg.entries)
	current := map[string]bool{}
	used := map[string]int{}
	for _, e := range entries {
		m := idPattern.FindStringSubmatch(e.id)
		n, _ := strconv.Atoi(m[3])
		p := m[1] + "-" + m[2]
		used[p] = max(used[p], n)
	}
	for i, r := range rules {
		if r.ID != unassigned {
			current[r.ID] = true
			continue
		}
		p := idScopes[r.Listing] + "-" + idAreas[r.Area]
		if idScopes[r.Listing] == "" || idAreas[r.Area] == "" {
			return "", fmt.Errorf("rule %q: no ID prefix for scope %q and area %q", r.Text, r.Listing, r.Area)
		}
		used[p]++
		id := fmt.Sprintf("%s-%03d", p, used[p])
		entries = append(entries, idEntry{id: id, scope: r.Listing, area: r.Area, text: r.Text})
		current[id] = true
		rules[i].ID = id
	}
	var b strings.Builder
	b.WriteString("# Rule IDs of the conformance suite: ID, scope, area, rule text (tab-separated).\n")
	b.WriteString("# Published IDs never change and are never reused; a retired rule keeps its line, marked retired.\n")
	b.WriteString("# New rules get IDs from: go test ./conformance -run TestRuleCatalogue -update\n")
	for _, e := range entries {
		if !current[e.id] {
			e.retired = true
		}
		if e.retired {
			fmt.Fprintf(&b, "%s\tretired\t%s\t%s\t%s\n", e.id, e.scope, e.area, e.text)
		} else {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", e.id, e.scope, e.area, e.text)
		}
	}
	return b.String(), nil
}

// retiredRules lists the registry's retired rules.
func retiredRules() []idEntry {
	var out []idEntry
	for _, e := range ruleRegistry().entries {
		if e.retired {
			out = append(out, e)
		}
	}
	return out
}
