package conformance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/internal/suggest"
	"github.com/onsi/ginkgo/v2/types"
)

// LabelFilterError is a label filter that cannot select what its writer
// meant: it does not parse, names a label no rule carries, or selects no
// rule. Its message is one line, with the labels a misspelt one most
// likely meant. A CI job given such a filter would otherwise pass with
// nothing checked.
type LabelFilterError struct {
	Problem string
}

func (e *LabelFilterError) Error() string { return e.Problem }

// CheckLabelFilter reports whether a label filter parses.
func CheckLabelFilter(filter string) error {
	if filter == "" {
		return nil
	}
	if _, err := types.ParseLabelFilter(filter); err != nil {
		// Ginkgo colours its message for a terminal.
		msg := ansiEscape.ReplaceAllString(err.Error(), "")
		return &LabelFilterError{fmt.Sprintf("label filter %q: %s", filter, strings.Join(strings.Fields(msg), " "))}
	}
	return nil
}

// CheckLabelFilterSelects reports whether a label filter parses, names
// only labels some rule carries (each label, or /regexp/, on its own
// selects a rule), and selects at least one rule. The error is a
// *LabelFilterError. An empty filter selects every rule.
func CheckLabelFilterSelects(filter string, rules []rule.Rule) error {
	if err := CheckLabelFilter(filter); err != nil || filter == "" {
		return err
	}
	var unknown []string
	var near []string
	for _, atom := range filterAtoms(filter) {
		if selectsAny(atom, rules) {
			continue
		}
		unknown = append(unknown, strconv.Quote(atom))
		if !strings.HasPrefix(atom, "/") {
			for _, n := range suggest.Nearest(atom, suiteLabels(rules), 3) {
				if !slices.Contains(near, n) {
					near = append(near, n)
				}
			}
		}
	}
	if len(unknown) > 0 {
		what := "names no label of the suite"
		if len(unknown) == 1 {
			what += ": " + unknown[0]
		} else {
			what += ": " + strings.Join(unknown, ", ")
		}
		return &LabelFilterError{fmt.Sprintf("label filter %q %s%s (harness conform --list shows every rule with its labels)",
			filter, what, suggest.Phrase(near, strconv.Quote))}
	}
	for _, r := range rules {
		if rule.Selected(r.Labels, filter) {
			return nil
		}
	}
	return &LabelFilterError{fmt.Sprintf("label filter %q selects no rule (harness conform --list shows every rule with its labels)", filter)}
}

// selectsAny reports whether a filter of one label or /regexp/ selects a
// rule.
func selectsAny(atom string, rules []rule.Rule) bool {
	match, err := types.ParseLabelFilter(atom)
	if err != nil {
		return true // not a label on its own: the whole filter judges it
	}
	for _, r := range rules {
		if match(r.Labels) {
			return true
		}
	}
	return false
}

// filterAtoms returns the labels and /regexps/ a label filter names, in
// its order, each once. A filter with a set operation ("key: op ...")
// names labels by key and value, which are not checked here: it returns
// none of them.
func filterAtoms(filter string) []string {
	if strings.Contains(filter, ":") {
		return nil
	}
	var atoms []string
	add := func(a string) {
		if a = strings.TrimSpace(a); a != "" && !slices.Contains(atoms, a) {
			atoms = append(atoms, a)
		}
	}
	var word strings.Builder
	for i := 0; i < len(filter); i++ {
		c := filter[i]
		switch {
		case c == '/':
			add(word.String())
			word.Reset()
			end := strings.IndexByte(filter[i+1:], '/')
			if end < 0 { // Ginkgo reads an unclosed regexp to the end
				add(filter[i:])
				return atoms
			}
			add(filter[i : i+end+2])
			i += end + 1
		case strings.IndexByte("&|!,()", c) >= 0:
			add(word.String())
			word.Reset()
		default:
			word.WriteByte(c)
		}
	}
	add(word.String())
	return atoms
}

// suiteLabels returns every label the rules carry, each once, in the
// order first seen.
func suiteLabels(rules []rule.Rule) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rules {
		for _, l := range r.Labels {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}
