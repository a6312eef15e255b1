package faults

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/internal/quote"
)

// Rule chooses requests to fail and how. A request matches when it is for
// the rule's listing or path (any API request when neither is given); of the
// matching requests the rule fires on a fraction (Probability), on every
// n-th (Every), or on all (neither), at most Times times in all when Times
// is given.
type Rule struct {
	// Name labels the rule in error bodies and logs; "rule N" when empty.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Listing is a listing's name: games, snapshots, keyrotations,
	// networkparameters or transactions (at every path it is served).
	Listing string `json:"listing,omitempty" yaml:"listing,omitempty"`
	// Path is an exact request path, such as /api/v2/games.
	Path string `json:"path,omitempty" yaml:"path,omitempty"`
	// Probability, in (0, 1], is the chance that a matching request fails;
	// 0 means not given.
	Probability float64 `json:"probability,omitempty" yaml:"probability,omitempty"`
	// Every fails the n-th, 2n-th, ... matching request; 0 means not given.
	Every int `json:"every,omitempty" yaml:"every,omitempty"`
	// Times, when above 0, is the most requests the rule fails.
	Times int `json:"times,omitempty" yaml:"times,omitempty"`
	// Fault is what happens, in the grammar of Parse.
	Fault string `json:"fault" yaml:"fault"`
}

// label names the i-th rule (from 1) in messages.
func (r *Rule) label(i int) string {
	if r.Name != "" {
		return r.Name
	}
	return fmt.Sprintf("rule %d", i)
}

// RuleSet is a checked list of rules, in the order they are tried. It is
// immutable and safe to share.
type RuleSet struct {
	rules  []Rule
	faults []Fault
}

// NewRuleSet checks the rules and returns them as a set.
func NewRuleSet(rules ...Rule) (*RuleSet, error) {
	rs := &RuleSet{rules: slices.Clone(rules), faults: make([]Fault, len(rules))}
	for i := range rs.rules {
		f, err := rs.rules[i].check()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rs.rules[i].label(i+1), err)
		}
		rs.faults[i] = f
	}
	return rs, nil
}

// check checks a rule and returns its fault.
func (r *Rule) check() (Fault, error) {
	if r.Listing != "" && r.Path != "" {
		return Fault{}, errors.New("give a listing or a path, not both")
	}
	if r.Listing != "" && !slices.Contains(records.Listings, r.Listing) {
		return Fault{}, fmt.Errorf("listing %s: want one of %s", quote.Value(r.Listing), strings.Join(records.Listings, ", "))
	}
	if r.Path != "" && (!strings.HasPrefix(r.Path, "/") || path.Clean(r.Path) != r.Path) {
		return Fault{}, fmt.Errorf("path %s: want a clean absolute path such as /api/v2/games", quote.Value(r.Path))
	}
	if r.Path == "/harness" || strings.HasPrefix(r.Path, "/harness/") {
		return Fault{}, fmt.Errorf("path %s: faults never hit the control API", quote.Value(r.Path))
	}
	if r.Probability != 0 && r.Every != 0 {
		return Fault{}, errors.New("give a probability or every, not both")
	}
	if math.IsNaN(r.Probability) || r.Probability < 0 || r.Probability > 1 {
		return Fault{}, fmt.Errorf("probability %v: want more than 0, at most 1", r.Probability)
	}
	if r.Every < 0 {
		return Fault{}, fmt.Errorf("every %d: want at least 1", r.Every)
	}
	if r.Times < 0 {
		return Fault{}, fmt.Errorf("times %d: want at least 1", r.Times)
	}
	if strings.TrimSpace(r.Fault) == "" {
		return Fault{}, errors.New("no fault: give fault, such as status=503")
	}
	f, err := Parse(r.Fault)
	if err != nil {
		return Fault{}, err
	}
	if f.IsZero() {
		return Fault{}, fmt.Errorf("fault %s does nothing", quote.Value(r.Fault))
	}
	return f, nil
}

// Rules returns the rules as given.
func (rs *RuleSet) Rules() []Rule {
	if rs == nil {
		return nil
	}
	return slices.Clone(rs.rules)
}

// Len returns the number of rules.
func (rs *RuleSet) Len() int {
	if rs == nil {
		return 0
	}
	return len(rs.rules)
}

// File is the format of a rule file (harness serve --faults) and of the body
// of POST /harness/faults, in YAML or JSON:
//
//	rules:
//	  - listing: transactions
//	    probability: 0.1
//	    fault: status=503; retry-after=2
//	  - path: /api/v2/games
//	    every: 5
//	    fault: latency=lognormal:median=80ms,p99=900ms
type File struct {
	Rules []Rule `json:"rules" yaml:"rules"`
}

// fileRule is a rule as read from a file, with pointers to tell a value
// given as 0 (an error) from one left out.
type fileRule struct {
	Name        string   `json:"name" yaml:"name"`
	Listing     string   `json:"listing" yaml:"listing"`
	Path        string   `json:"path" yaml:"path"`
	Probability *float64 `json:"probability" yaml:"probability"`
	Every       *int     `json:"every" yaml:"every"`
	Times       *int     `json:"times" yaml:"times"`
	Fault       string   `json:"fault" yaml:"fault"`
}

// ParseRules reads a rule file: JSON when it starts with "{", else YAML.
// Unknown fields are errors, as is a count or probability given as 0. An
// error names the line of the mistake and what shape is wanted.
func ParseRules(data []byte) (*RuleSet, error) {
	var file []fileRule
	var err error
	if trimmed := bytes.TrimSpace(data); bytes.HasPrefix(trimmed, []byte("{")) {
		file, err = parseJSONFile(data)
	} else {
		file, err = parseYAMLFile(data)
	}
	if err != nil {
		return nil, err
	}
	rules := make([]Rule, len(file))
	for i, fr := range file {
		r := Rule{Name: fr.Name, Listing: fr.Listing, Path: fr.Path, Fault: fr.Fault}
		for _, c := range []struct {
			name string
			p    *int
			dst  *int
		}{{"every", fr.Every, &r.Every}, {"times", fr.Times, &r.Times}} {
			if c.p != nil && *c.p < 1 {
				return nil, fmt.Errorf("fault rules: %s: %s %d: want at least 1", r.label(i+1), c.name, *c.p)
			}
			if c.p != nil {
				*c.dst = *c.p
			}
		}
		if fr.Probability != nil {
			if !(*fr.Probability > 0 && *fr.Probability <= 1) {
				return nil, fmt.Errorf("fault rules: %s: probability %v: want more than 0, at most 1", r.label(i+1), *fr.Probability)
			}
			r.Probability = *fr.Probability
		}
		rules[i] = r
	}
	rs, err := NewRuleSet(rules...)
	if err != nil {
		return nil, fmt.Errorf("fault rules: %w", err)
	}
	return rs, nil
}
