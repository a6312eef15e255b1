package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// ModelFinding is the model rules' failures of one root cause in a
// listing: the rules whose answers to one query (the shrunk one, when the
// failure shrank) differ from the model, each in its own aspect.
type ModelFinding struct {
	// Query is the query the finding is named by, as shown, and Curl asks
	// it.
	Query string `json:"query"`
	Curl  string `json:"curl"`
	// Rules are the failures of the query, one a rule, MUST first.
	Rules []ModelFailure `json:"rules"`
	// Found are the generated queries that showed it, as shown.
	Found []string `json:"found"`
}

// Level is the firmest level of the finding's rules.
func (f ModelFinding) Level() string { return f.Rules[0].Level }

// Clause is the clause of the finding's first rule that names one.
func (f ModelFinding) Clause() string {
	for _, r := range f.Rules {
		if r.Clause != "" {
			return r.Clause
		}
	}
	return ""
}

// SideBySide is the first side-by-side page of the finding's rules.
func (f ModelFinding) SideBySide() string {
	for _, r := range f.Rules {
		if r.SideBySide != "" {
			return r.SideBySide
		}
	}
	return ""
}

// ModelFindings groups a listing's model failures by the query they
// report (the shrunk one when there is one): the failures one query's
// answer shows are one finding. Findings come MUST first, then by their
// first rule's ID; the rules of a finding MUST first, then by ID.
func ModelFindings(failures []ModelFailure) []ModelFinding {
	var out []ModelFinding
	index := map[string]int{}
	for _, f := range failures {
		q := f.Query
		if f.Shrunk != "" {
			q = f.Shrunk
		}
		i, ok := index[q]
		if !ok {
			i = len(out)
			index[q] = i
			out = append(out, ModelFinding{Query: q, Curl: f.Curl})
		}
		fd := &out[i]
		if !slices.ContainsFunc(fd.Rules, func(r ModelFailure) bool { return r.Rule == f.Rule }) {
			fd.Rules = append(fd.Rules, f)
		}
		if !slices.Contains(fd.Found, f.Query) {
			fd.Found = append(fd.Found, f.Query)
		}
	}
	byRule := func(a, b ModelFailure) int {
		return cmp.Or(cmp.Compare(levelRank(a.Level), levelRank(b.Level)), cmp.Compare(a.Rule, b.Rule))
	}
	for i := range out {
		slices.SortFunc(out[i].Rules, byRule)
		out[i].Curl = out[i].Rules[0].Curl
	}
	slices.SortStableFunc(out, func(a, b ModelFinding) int { return byRule(a.Rules[0], b.Rules[0]) })
	return out
}

// levelRank orders MUST before SHOULD.
func levelRank(level string) int {
	if level == "MUST" {
		return 0
	}
	return 1
}

// maxFindingLines bounds the findings the console lists per listing.
const maxFindingLines = 10

// writeFindings writes each listing's model findings, one line each (at
// most maxFindingLines a listing): the query, the rules it breaks, the
// clause it breaks and how many generated queries showed it.
func writeFindings(b *strings.Builder, s *Summary) {
	for _, m := range s.Model {
		fs := ModelFindings(m.Failures)
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(b, "Findings in %s (%d: the rules one query's answer breaks are one finding):\n", m.Listing, len(fs))
		for i, f := range fs[:min(len(fs), maxFindingLines)] {
			ids := make([]string, len(f.Rules))
			for j, r := range f.Rules {
				ids[j] = r.Rule + " " + r.Aspect
			}
			fmt.Fprintf(b, "  %d. %s query %s: %s", i+1, f.Level(), f.Query, strings.Join(ids, ", "))
			if c := f.Clause(); c != "" {
				// The most specific clause; the reports give them all.
				c, _, _ = strings.Cut(c, `"; §`)
				if !strings.HasSuffix(c, `"`) {
					c += `"`
				}
				fmt.Fprintf(b, "; breaks %s", c)
			}
			if n := len(f.Found); n > 1 {
				fmt.Fprintf(b, " (shown by %d generated queries)", n)
			}
			b.WriteString("\n")
		}
		if n := len(fs) - maxFindingLines; n > 0 {
			fmt.Fprintf(b, "  and %d more findings (the JSON and HTML reports list them)\n", n)
		}
	}
}
