package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"go.yaml.in/yaml/v3"
)

// Waiver excuses one rule's failure until a date: a known departure of a
// deployment from the spec, with the reason.
type Waiver struct {
	// Rule is the waived rule's ID.
	Rule string `json:"rule" yaml:"rule"`
	// Reason says why the departure is accepted.
	Reason string `json:"reason" yaml:"reason"`
	// Expires is the last day (YYYY-MM-DD, UTC) the waiver applies.
	Expires string `json:"expires" yaml:"expires"`
}

// expiry is the end of the waiver's last day.
func (w Waiver) expiry() (time.Time, error) {
	d, err := time.Parse(time.DateOnly, w.Expires)
	if err != nil {
		return time.Time{}, fmt.Errorf("waiver for %s: expires %q is not a date YYYY-MM-DD", w.Rule, w.Expires)
	}
	return d.Add(24 * time.Hour), nil
}

// Expired reports whether the waiver's last day is before now.
func (w Waiver) Expired(now time.Time) bool {
	end, err := w.expiry()
	return err == nil && !now.Before(end)
}

// waiverFile is the shape of a waiver file: a list under "waivers", or a
// bare list.
type waiverFile struct {
	Waivers []Waiver `json:"waivers" yaml:"waivers"`
}

// LoadWaivers reads a waiver file (YAML or JSON) and checks every waiver
// against the rule catalogue: each names a rule ID the suite has, gives a
// reason and an expiry date, and no rule is waived twice. An error means
// the file cannot be used (a wrong command line); expired waivers are not
// an error here (see ExpiredWaivers).
func LoadWaivers(path string) ([]Waiver, error) {
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

func parseWaivers(data []byte) ([]Waiver, error) {
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

func checkWaivers(ws []Waiver, rules []Rule) error {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	retired := map[string]bool{}
	for _, e := range retiredRules() {
		retired[e.id] = true
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
		if _, err := w.expiry(); err != nil {
			problems = append(problems, fmt.Sprintf("waiver %d: %v", i+1, err))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// ExpiredWaivers returns the waivers whose last day is before now.
func ExpiredWaivers(ws []Waiver, now time.Time) []Waiver {
	var out []Waiver
	for _, w := range ws {
		if w.Expired(now) {
			out = append(out, w)
		}
	}
	return out
}

// activeWaivers are the waivers in force for the run, by rule ID.
var (
	waiversMu     sync.Mutex
	activeWaivers map[string]Waiver
)

// setWaivers puts the waivers that have not expired in force.
func setWaivers(ws []Waiver, now time.Time) {
	waiversMu.Lock()
	defer waiversMu.Unlock()
	activeWaivers = map[string]Waiver{}
	for _, w := range ws {
		if !w.Expired(now) {
			activeWaivers[w.Rule] = w
		}
	}
}

func waiverFor(id string) (Waiver, bool) {
	waiversMu.Lock()
	defer waiversMu.Unlock()
	w, ok := activeWaivers[id]
	return w, ok
}

// ruleFail is the suite's fail handler: every failure of a rule goes
// through it. It heads the message with the rule's ID, level and the spec
// text it rests on, and turns the failure of a waived rule into a skip
// marked waived, so that it does not fail the run.
func ruleFail(message string, callerSkip ...int) {
	skip := 1
	if len(callerSkip) > 0 {
		skip += callerSkip[0]
	}
	id := ruleID(CurrentSpecReport().Labels())
	message = ruleHeader(id) + message
	deadlineSkip(message, skip)
	if w, ok := waiverFor(id); ok {
		AddReportEntry(entryWaived, w, ReportEntryVisibilityNever)
		Skip(fmt.Sprintf("WAIVED until %s: %s\n%s", w.Expires, w.Reason, message), skip)
	}
	Fail(message, skip)
}

// ruleHeader names a rule for its failure message.
func ruleHeader(id string) string {
	m, ok := metaOf(id)
	if !ok {
		return ""
	}
	if m.lvl.strict {
		return fmt.Sprintf("%s (SHOULD: our reading, docs/behaviour.md)\n", id)
	}
	return fmt.Sprintf("%s (MUST, %s)\n", id, m.lvl.cite)
}
