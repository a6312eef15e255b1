package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/chaindata/harness/conformance/rule"
	"go.yaml.in/yaml/v3"
)

// waiverFile is the shape of a waiver file: a list under "waivers", or a
// bare list.
type waiverFile struct {
	Waivers []rule.Waiver `json:"waivers" yaml:"waivers"`
}

// LoadWaivers reads a waiver file (YAML or JSON) and checks every waiver
// against the rule catalogue: each names a rule ID the suite has, gives a
// reason and an expiry date, and no rule is waived twice. An error means
// the file cannot be used (a wrong command line); expired waivers are not
// an error here (see ExpiredWaivers).
func LoadWaivers(path string) ([]rule.Waiver, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("waivers: %w", err)
	}
	ws, err := parseWaivers(data)
	if err != nil {
		return nil, fmt.Errorf("waivers %s: %w", path, err)
	}
	rules, err := Rules()
	if err != nil {
		return nil, err
	}
	if err := checkWaivers(ws, rules); err != nil {
		return nil, fmt.Errorf("waivers %s: %w", path, err)
	}
	return ws, nil
}

func parseWaivers(data []byte) ([]rule.Waiver, error) {
	trimmed := bytes.TrimSpace(data)
	var f waiverFile
	switch {
	case len(trimmed) == 0:
		return nil, nil
	case trimmed[0] == '[':
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f.Waivers); err != nil {
			return nil, fmt.Errorf("not a JSON list of waivers: %w", err)
		}
	case trimmed[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("not a JSON object with a waivers list: %w", err)
		}
	default:
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		var node yaml.Node
		if err := dec.Decode(&node); err != nil {
			return nil, fmt.Errorf("not YAML: %w", err)
		}
		doc := &node
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			doc = doc.Content[0]
		}
		var err error
		if doc.Kind == yaml.SequenceNode {
			err = decodeStrict(doc, &f.Waivers)
		} else {
			err = decodeStrict(doc, &f)
		}
		if err != nil {
			return nil, err
		}
	}
	return f.Waivers, nil
}

// decodeStrict decodes a YAML node, refusing unknown fields.
func decodeStrict(n *yaml.Node, dst any) error {
	data, err := yaml.Marshal(n)
	if err != nil {
		return fmt.Errorf("re-encode YAML: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("not a list of waivers (rule, reason, expires): %w", err)
	}
	return nil
}

func checkWaivers(ws []rule.Waiver, rules []rule.Rule) error {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	retired := map[string]bool{}
	for _, e := range rule.RetiredRules() {
		retired[e.ID] = true
	}
	seen := map[string]bool{}
	var problems []string
	for i, w := range ws {
		switch {
		case w.Rule == "":
			problems = append(problems, fmt.Sprintf("waiver %d names no rule", i+1))
		case retired[w.Rule]:
			problems = append(problems, fmt.Sprintf("waiver %d: rule %s is retired (see docs/conformance-rules.md)", i+1, w.Rule))
		case !known[w.Rule]:
			problems = append(problems, fmt.Sprintf("waiver %d: no rule has the ID %q (harness conform --list shows them)", i+1, w.Rule))
		case seen[w.Rule]:
			problems = append(problems, fmt.Sprintf("waiver %d: rule %s is waived twice", i+1, w.Rule))
		}
		seen[w.Rule] = true
		if strings.TrimSpace(w.Reason) == "" {
			problems = append(problems, fmt.Sprintf("waiver %d (%s) gives no reason", i+1, w.Rule))
		}
		if _, err := w.Expiry(); err != nil {
			problems = append(problems, fmt.Sprintf("waiver %d: %v", i+1, err))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// ExpiredWaivers returns the waivers whose last day is before now.
func ExpiredWaivers(ws []rule.Waiver, now time.Time) []rule.Waiver {
	var out []rule.Waiver
	for _, w := range ws {
		if w.Expired(now) {
			out = append(out, w)
		}
	}
	return out
}
