package rule

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
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
	return "spec " + c.Clause()
}

// Clause writes the section and the quote alone, as the rule catalogue and
// a failure's list of clauses do: §section: "quote".
func (c Citation) Clause() string { return fmt.Sprintf("§%s: %q", c.Section, c.Quote) }

// Level is how a rule is declared: a MUST rule with the spec text it rests
// on, or a SHOULD rule (label "strict") that only docs/behaviour.md decides.
type Level struct {
	// Cite is the spec text a MUST rule rests on; Strict marks a SHOULD
	// rule.
	Cite   Citation
	Strict bool
}

// Must declares a MUST rule resting on the spec's section and quote.
func Must(section, quote string) Level {
	return Level{Cite: Citation{Section: section, Quote: quote}}
}

// Should declares a SHOULD rule: our reading, where the spec says "not
// shown" or says less.
var Should = Level{Strict: true}

// The spec text the suite's MUST rules cite most.
var (
	CiteForward    = Must("4 (PAG)", "pagination.first: number of records sorting after the row identified by after")
	CiteBackward   = Must("4 (PAG)", "pagination.last: number of records sorting before the row identified by before")
	CiteNewest     = Must("4 (PAG)", "pagination.newestFirst: newest records first; default true")
	CitePageInfo   = Must("2.1", "hasNextPage: a further page exists after this one; hasPreviousPage: a page exists before this one")
	CiteCursors    = Must("2.1", "startCursor: cursor of the first row in the page; endCursor: cursor of the last row in the page")
	CiteErrorBody  = Must("7", "Both the 500 and the default responses carry the error body of 2.1: code (int32), message (string), details")
	CiteJSON       = Must("4", "All endpoints use GET and return application/json")
	CiteTxOrder    = Must("4.5", "GET /transactions (newest to oldest)")
	CiteTxFirst    = Must("4.5", "first: count; use with after to page toward the most recent; cannot be combined with before; alone returns the first most recent transactions")
	CiteTxLast     = Must("4.5", "last: count; use with before to page toward the least recent; cannot be combined with after; alone returns the last oldest transactions")
	CiteTxWindow   = Must("4.5", "before: cursor; may be combined with after")
	CiteEpochLimit = Must("8", "Epoch range | list games | at most 30 epochs per request, both ends inclusive")
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
		"headers": "HDR", "limits": "LIM", "model": "MOD", "growth": "GRO", "relations": "REL",
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

// IDEntry is one line of the registry: a rule's ID, its scope, area and
// text, and whether it is retired.
type IDEntry struct {
	ID, Scope, Area, Text string
	Retired               bool
}

// Key is the registry key of a rule: its scope, area and text.
func Key(scope, area, text string) string { return scope + "\x00" + area + "\x00" + text }

// parseRuleIDs reads the registry: one rule a line, tab-separated: ID,
// scope, area, text; a retired rule has "retired" before its scope.
func parseRuleIDs(data string) ([]IDEntry, error) {
	var out []IDEntry
	for n, line := range strings.Split(data, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		e := IDEntry{}
		if len(f) == 5 && f[1] == "retired" {
			e.Retired = true
			f = append(f[:1], f[2:]...)
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("rule-ids.txt line %d: want ID, [retired,] scope, area and text separated by tabs", n+1)
		}
		e.ID, e.Scope, e.Area, e.Text = f[0], f[1], f[2], f[3]
		if !idPattern.MatchString(e.ID) {
			return nil, fmt.Errorf("rule-ids.txt line %d: %q is not an ID like GAMES-PAG-001", n+1, e.ID)
		}
		out = append(out, e)
	}
	return out, nil
}

// IDRegistry is the parsed registry and what the suite's tree declared.
type IDRegistry struct {
	// Entries are the registry's lines, in order; ByKey gives the ID of
	// each rule not retired by its Key; Err is why the registry could not
	// be read.
	Entries []IDEntry
	ByKey   map[string]string
	Err     error

	mu sync.Mutex
	// meta holds the rules declared while Ginkgo built the tree, by ID.
	meta map[string]Meta
}

// Meta is what a rule declared: its scope, area, text and level.
type Meta struct {
	scope, area, text string
	// Level is the rule's level: MUST with its citation, or SHOULD.
	Level Level
}

// Registry returns the registry of rule IDs (rule-ids.txt), read once.
var Registry = sync.OnceValue(func() *IDRegistry {
	r := &IDRegistry{ByKey: map[string]string{}, meta: map[string]Meta{}}
	r.Entries, r.Err = parseRuleIDs(ruleIDsFile)
	for _, e := range r.Entries {
		if !e.Retired {
			r.ByKey[Key(e.Scope, e.Area, e.Text)] = e.ID
		}
	}
	return r
})

// Unassigned is the ID of a rule the registry does not list yet; the
// catalogue test fails until it is given one (-update).
const Unassigned = "UNASSIGNED"

// declaring is where Ginkgo is building the tree: the scope and area of the
// container being built. Tree construction runs on one goroutine.
var declaring struct{ scope, area string }

// Scope declares the container of one listing (or the deployment) with its
// label; the rules inside take their ID prefix from it.
func Scope(name string, args ...any) bool {
	body := args[len(args)-1].(func())
	args = append([]any{Label(name)}, args[:len(args)-1]...)
	return Describe(name, append(args, func() {
		prev := declaring.scope
		declaring.scope = name
		defer func() { declaring.scope = prev }()
		body()
	})...)
}

// Area declares the container of one area of rules, labelled with it.
func Area(name string, body func()) {
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
func declare(text string, lvl Level) []any {
	reg := Registry()
	id, ok := reg.ByKey[Key(declaring.scope, declaring.area, text)]
	if !ok {
		id = Unassigned
	}
	reg.mu.Lock()
	if id != Unassigned {
		reg.meta[id] = Meta{scope: declaring.scope, area: declaring.area, text: text, Level: lvl}
	}
	reg.mu.Unlock()
	labels := Label(id)
	if lvl.Strict {
		labels = append(labels, StrictLabel)
	}
	return []any{labels}
}

// Define declares one rule: an It labelled with the rule's ID (and "strict"
// for a SHOULD rule). The body judges the rule through a verdict.
func Define(text string, lvl Level, body func()) bool {
	args := declare(text, lvl)
	return It(text, append(args, body)...)
}

// DefineEntry declares one rule of a table: the table's text and the
// entry's description make the rule's text, as Ginkgo names the spec.
func DefineEntry(table, name string, lvl Level, params ...any) TableEntry {
	args := declare(table+" "+name, lvl)
	return Entry(name, append(args, params...)...)
}

// MetaOf returns what a rule declared, by ID.
func MetaOf(id string) (Meta, bool) {
	reg := Registry()
	reg.mu.Lock()
	defer reg.mu.Unlock()
	m, ok := reg.meta[id]
	return m, ok
}

// ID returns the ID among a spec's labels, or "".
func ID(labels []string) string {
	for _, l := range labels {
		if l == Unassigned || idPattern.MatchString(l) {
			return l
		}
	}
	return ""
}

// NextIDs assigns IDs to rules the registry does not list (setting them in
// rules), and marks retired the registry's rules the suite no longer has.
// It returns the new registry text. IDs already published never change.
func NextIDs(rules []Rule) (string, error) {
	reg := Registry()
	if reg.Err != nil {
		return "", reg.Err
	}
	entries := slices.Clone(reg.Entries)
	current := map[string]bool{}
	used := map[string]int{}
	for _, e := range entries {
		m := idPattern.FindStringSubmatch(e.ID)
		n, _ := strconv.Atoi(m[3])
		p := m[1] + "-" + m[2]
		used[p] = max(used[p], n)
	}
	for i, r := range rules {
		if r.ID != Unassigned {
			current[r.ID] = true
			continue
		}
		p := idScopes[r.Listing] + "-" + idAreas[r.Area]
		if idScopes[r.Listing] == "" || idAreas[r.Area] == "" {
			return "", fmt.Errorf("rule %q: no ID prefix for scope %q and area %q", r.Text, r.Listing, r.Area)
		}
		used[p]++
		id := fmt.Sprintf("%s-%03d", p, used[p])
		entries = append(entries, IDEntry{ID: id, Scope: r.Listing, Area: r.Area, Text: r.Text})
		current[id] = true
		rules[i].ID = id
	}
	var b strings.Builder
	b.WriteString("# Rule IDs of the conformance suite: ID, scope, area, rule text (tab-separated).\n")
	b.WriteString("# Published IDs never change and are never reused; a retired rule keeps its line, marked retired.\n")
	b.WriteString("# New rules get IDs from: go test ./conformance -run TestRuleCatalogue -update\n")
	for _, e := range entries {
		if !current[e.ID] {
			e.Retired = true
		}
		if e.Retired {
			fmt.Fprintf(&b, "%s\tretired\t%s\t%s\t%s\n", e.ID, e.Scope, e.Area, e.Text)
		} else {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", e.ID, e.Scope, e.Area, e.Text)
		}
	}
	return b.String(), nil
}

// RetiredRules lists the registry's retired rules.
func RetiredRules() []IDEntry {
	var out []IDEntry
	for _, e := range Registry().Entries {
		if e.Retired {
			out = append(out, e)
		}
	}
	return out
}

// SuiteDescription is the suite's name in reports.
const SuiteDescription = "Chain data query API conformance"

// Listings and Areas are the labels every rule carries one of each.
var (
	Listings = []string{"games", "snapshots", "key-rotations", "network-parameters", "transactions"}
	Areas    = []string{"schema", "pagination", "filters", "epochs", "errors", "limits", "model", "growth", "relations"}
)

// StrictLabel marks the rules that only docs/behaviour.md decides (SHOULD);
// the others are the spec's (MUST).
const StrictLabel = "strict"

// Rule is one rule of the suite, as the catalogue lists it.
type Rule struct {
	// ID is the rule's stable ID, such as "GAMES-PAG-003": published once,
	// never changed, never reused.
	ID string
	// Listing and Area are the rule's listing (or DeploymentLabel) and
	// area labels.
	Listing, Area string
	// Cite is the spec text a MUST rule rests on (zero for SHOULD rules).
	Cite Citation
	// Strict is true for rules only docs/behaviour.md decides (SHOULD).
	Strict bool
	// Text is the rule's full text: its containers and its own sentence.
	Text string
	// Labels are all the rule's labels.
	Labels []string
}

// Level is "MUST" for the spec's rules and "SHOULD" for strict ones.
func (r Rule) Level() string {
	if r.Strict {
		return "SHOULD"
	}
	return "MUST"
}

// Scopes are the rule scopes in catalogue order: the listings, then the
// deployment as a whole.
func Scopes() []string { return append(slices.Clone(Listings), DeploymentLabel) }

// Selected reports whether a label filter selects a rule with the
// labels; an empty or unreadable filter selects every rule.
func Selected(labels []string, filter string) bool {
	if filter == "" {
		return true
	}
	match, err := types.ParseLabelFilter(filter)
	return err != nil || match(labels)
}
