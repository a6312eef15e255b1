package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/internal/quote"
)

// Rule states in a Summary.
const (
	StatePassed  = "passed"
	StateFailed  = "failed"
	StateSkipped = "skipped"
	StateWaived  = "waived"
	// StateNotRun is a rule the label filter left out.
	StateNotRun = "not run"
)

// Summary is the outcome of one run of the suite, from which the console
// summary, the JUnit, JSON and HTML reports are written.
type Summary struct {
	// BaseURL and TransactionsURL are the deployment checked.
	BaseURL, TransactionsURL string
	// LabelFilter is the filter the run was given ("" for every rule).
	LabelFilter string
	// Started is when the run began; Duration how long it took.
	Started  time.Time
	Duration time.Duration
	// Traffic counts the requests of the run, with retries and refusals.
	Traffic client.Traffic
	// Rules holds every rule of the suite, in catalogue order, with its
	// outcome (StateNotRun for rules the filter left out).
	Rules []RuleResult
	// FailOnSkip is set when skipped rules fail the run.
	FailOnSkip bool
	// ExpiredWaivers are waivers past their last day: not applied, and
	// they fail the run.
	ExpiredWaivers []rule.Waiver
	// UnmatchedWaivers are the waivers in force that excused nothing: the
	// rule they name passed, was skipped, or was not selected. They do
	// not fail the run; the reports list them, so that a waiver outliving
	// its fix is dropped, and one whose rule never ran is noticed.
	UnmatchedWaivers []UnmatchedWaiver
	// Seed and Queries are the model rules' seed and budget per listing:
	// the same seed asks the same queries again.
	Seed    int64
	Queries int
	// Model holds what the model rules did over each listing they ran on.
	Model []ModelReport
	// FailReasons are other reasons the run fails, one line each, as a
	// JSON report read back gives them (ReadJSONReport): a stop, an
	// expired waiver, --fail-on-skip.
	FailReasons []string
	// Stopped says, in one line, why the run stopped before judging every
	// selected rule: the preflight found no deployment to check at the
	// URLs, or the run deadline passed. The rules it left unjudged are
	// skipped with it as their message. A stopped run fails.
	Stopped string
}

// RuleResult is the outcome of one rule.
type RuleResult struct {
	rule.Rule
	// State is one of StatePassed, StateFailed, StateSkipped, StateWaived,
	// StateNotRun.
	State string
	// Cases is how many cases (pages, rows, requests) the rule judged.
	Cases int
	// Want says what the rule wants, in words ("" when it did not get that
	// far).
	Want string
	// Message is the failure report (with the requests, as curl lines, and
	// what came back) of a failed or waived rule, or the reason a rule was
	// skipped.
	Message string
	// Problems are the first problems of a failed or waived rule, each
	// with the request that showed it (for a model rule, the shrunk
	// query).
	Problems []rule.Problem
	// Waiver is the waiver applied to a waived rule.
	Waiver *rule.Waiver
	// Duration is the time the rule took.
	Duration time.Duration
}

// UnmatchedWaiver is a waiver that excused nothing, and why.
type UnmatchedWaiver struct {
	rule.Waiver
	// Why says what became of the rule: "the rule passed", ...
	Why string
}

// FindUnmatchedWaivers returns the waivers of ws in force at now that
// excused no failure among the rules' results, in the order of ws.
func FindUnmatchedWaivers(ws []rule.Waiver, rules []RuleResult, now time.Time) []UnmatchedWaiver {
	state := make(map[string]string, len(rules))
	for _, r := range rules {
		state[r.ID] = r.State
	}
	var out []UnmatchedWaiver
	for _, w := range ws {
		if w.Expired(now) {
			continue // listed as expired
		}
		why := ""
		switch state[w.Rule] {
		case StateWaived:
			continue
		case StatePassed:
			why = "the rule passed: drop the waiver"
		case StateSkipped:
			why = "the rule was skipped: nothing was judged"
		case StateFailed:
			why = "the rule failed without it"
		default:
			why = "the rule did not run: the label filter left it out"
		}
		out = append(out, UnmatchedWaiver{Waiver: w, Why: why})
	}
	return out
}

// Counts tallies rules by state.
type Counts struct {
	Passed, Failed, Skipped, Waived, NotRun int
}

// Add counts one state.
func (c *Counts) Add(state string) {
	switch state {
	case StatePassed:
		c.Passed++
	case StateFailed:
		c.Failed++
	case StateSkipped:
		c.Skipped++
	case StateWaived:
		c.Waived++
	default:
		c.NotRun++
	}
}

// Run is the number of rules that ran.
func (c Counts) Run() int { return c.Passed + c.Failed + c.Skipped + c.Waived }

// Counts tallies the summary's rules by state.
func (s *Summary) Counts() Counts {
	var c Counts
	for _, r := range s.Rules {
		c.Add(r.State)
	}
	return c
}

// Passed reports whether the run passes: it was not stopped, no rule
// failed, and, with FailOnSkip, none was skipped. Waived failures do not
// fail the run.
func (s *Summary) Passed() bool {
	c := s.Counts()
	return s.Stopped == "" && c.Failed == 0 && !(s.FailOnSkip && c.Skipped > 0) && len(s.ExpiredWaivers) == 0 && len(s.FailReasons) == 0
}

// stoppedRules is how many rules were skipped because the run stopped.
func (s *Summary) stoppedRules() int {
	n := 0
	for _, r := range s.Rules {
		if s.stoppedRule(r) {
			n++
		}
	}
	return n
}

// stoppedRule reports whether a rule was skipped because the run stopped.
func (s *Summary) stoppedRule(r RuleResult) bool {
	return s.Stopped != "" && r.State == StateSkipped && FirstLine(r.Message) == s.Stopped
}

// cases is the number of cases every rule judged, together.
func (s *Summary) cases() int {
	n := 0
	for _, r := range s.Rules {
		n += r.Cases
	}
	return n
}

// WriteSummary writes the end of a run for a person: each rule that failed,
// was waived or skipped, one line each with its ID, level and the spec text
// it rests on, then the totals and the traffic.
func WriteSummary(w io.Writer, s *Summary) {
	var b strings.Builder
	b.WriteString("\nConformance summary\n")
	for _, state := range []string{StateFailed, StateWaived, StateSkipped} {
		for _, r := range s.Rules {
			if r.State != state || s.stoppedRule(r) {
				continue
			}
			fmt.Fprintf(&b, "  %-7s %s %s %s %s: %s", strings.ToUpper(state), r.ID, r.Level(), r.Listing, r.Area, r.Text)
			if r.Cite.Section != "" {
				fmt.Fprintf(&b, " [%s]", r.Cite)
			}
			switch state {
			case StateWaived:
				fmt.Fprintf(&b, " (waived until %s: %s)", r.Waiver.Expires, r.Waiver.Reason)
			case StateSkipped:
				fmt.Fprintf(&b, " (%s)", FirstLine(r.Message))
			}
			b.WriteString("\n")
		}
	}
	if n := s.stoppedRules(); n > 0 {
		fmt.Fprintf(&b, "  SKIPPED %d rules: %s\n", n, s.Stopped)
	}
	for _, wv := range s.ExpiredWaivers {
		fmt.Fprintf(&b, "  EXPIRED waiver of %s (expired %s: %s): renew it or fix the deployment; the run fails\n", wv.Rule, wv.Expires, wv.Reason)
	}
	for _, u := range s.UnmatchedWaivers {
		fmt.Fprintf(&b, "  UNUSED  waiver of %s (until %s: %s) excused nothing: %s\n", u.Rule, u.Expires, u.Reason, u.Why)
	}
	c := s.Counts()
	writeModelLines(&b, s)
	writeFindings(&b, s)
	fmt.Fprintf(&b, "Rules: %d passed, %d failed, %d skipped, %d waived, %d not selected; %d cases judged in %s\n", c.Passed, c.Failed, c.Skipped, c.Waived, c.NotRun, s.cases(), s.Duration.Round(time.Millisecond))
	verdict := "PASSED"
	switch {
	case s.Stopped != "":
		verdict = "FAILED (the run stopped: " + s.Stopped + ")"
	case !s.Passed():
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "Verdict: %s\n", verdict)
	io.WriteString(w, quote.Printable(b.String()))
}

// writeModelLines writes what the model rules tried, one line a listing,
// and the seed that repeats them.
func writeModelLines(b *strings.Builder, s *Summary) {
	if len(s.Model) == 0 {
		return
	}
	var parts, uncovered []string
	for _, m := range s.Model {
		if m.Error != "" {
			parts = append(parts, m.Listing+" (no model: see its rules)")
			continue
		}
		examples := ""
		if n := m.Sources["example"]; n > 0 {
			examples = fmt.Sprintf("%d examples; ", n)
		}
		parts = append(parts, fmt.Sprintf("%s %d (%s%d/%d parameters, %d/%d pairs load-bearing; %d/%d value classes)",
			m.Listing, m.Queries, examples, m.ParamsCovered, m.ParamCount, m.PairsCovered, m.Pairs, m.ClassesCovered, m.ClassCount))
		if n := len(m.Uncovered); n > 0 {
			uncovered = append(uncovered, fmt.Sprintf("%s %d", m.Listing, n))
		}
	}
	fmt.Fprintf(b, "Model: queries per listing: %s\n", strings.Join(parts, ", "))
	if len(uncovered) > 0 {
		fmt.Fprintf(b, "Model: not covered (the JSON and HTML reports say why): %s\n", strings.Join(uncovered, ", "))
	}
	fmt.Fprintf(b, "Seed: %d (repeat this run's queries with --seed %d)\n", s.Seed, s.Seed)
}

// FirstLine is the first line of a message, without the space around it.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// ModelReport is what the model rules did over one listing: the coverage
// of the query space and each failure with its shrunk query.
type ModelReport struct {
	Listing string `json:"listing"`
	Seed    int64  `json:"seed"`
	// Queries is how many generated queries were asked; Rows how many rows
	// the model held, Whole whether that was the whole listing, Grew
	// whether the listing grew during the run (answers that reach its
	// newest rows were then not judged).
	Queries int  `json:"queries"`
	Rows    int  `json:"rows"`
	Whole   bool `json:"whole"`
	Grew    bool `json:"grew"`
	// Params counts the queries each parameter appeared in, and Sources the
	// queries by where they came from (example, core, pair, class, tail).
	Params  map[string]int `json:"params"`
	Sources map[string]int `json:"sources,omitempty"`
	// ParamsCovered of the ParamCount parameters, and PairsCovered of the
	// Pairs pairs of parameters, were load-bearing in some query (the
	// answer changes when they are dropped or changed); PairsShould of
	// those pairs only in answers docs/behaviour.md decides.
	ParamsCovered int `json:"paramsCovered"`
	ParamCount    int `json:"paramCount"`
	PairsCovered  int `json:"pairsCovered"`
	PairsShould   int `json:"pairsShould,omitempty"`
	Pairs         int `json:"pairs"`
	// Classes counts, for each parameter, the queries that gave it a value
	// of each class; ClassesCovered of the ClassCount classes that apply
	// were drawn.
	Classes        map[string]map[string]int `json:"classes,omitempty"`
	ClassesCovered int                       `json:"classesCovered"`
	ClassCount     int                       `json:"classCount"`
	// Uncovered are the parameters, pairs and classes no query covered,
	// each with the reason.
	Uncovered []Uncovered    `json:"uncovered,omitempty"`
	Failures  []ModelFailure `json:"failures,omitempty"`
	// Error says why no model could be built.
	Error string `json:"error,omitempty"`
}

// Uncovered is a parameter, pair of parameters or value class no generated
// query covered, and why.
type Uncovered struct {
	// Kind is "parameter", "pair" or "class"; What names it ("gameId",
	// "gameId&partyId", "gameId: prefix").
	Kind   string `json:"kind"`
	What   string `json:"what"`
	Reason string `json:"reason"`
}

// ModelFailure is one answer that differed from the model.
type ModelFailure struct {
	Rule   string `json:"rule"`
	Aspect string `json:"aspect"`
	Level  string `json:"level"`
	Query  string `json:"query"`
	// Shrunk is the smallest query found that still differs ("" when the
	// query could not be shrunk).
	Shrunk string `json:"shrunk,omitempty"`
	// Encoded and ShrunkEncoded are the same queries as sent (URL-encoded),
	// to be asked again exactly.
	Encoded       string `json:"encoded,omitempty"`
	ShrunkEncoded string `json:"shrunkEncoded,omitempty"`
	// Source says where the query came from: "example", "core gameId",
	// "pair gameId&partyId", "class gameId: prefix", "tail".
	Source string `json:"source,omitempty"`
	Curl   string `json:"curl"`
	Detail string `json:"detail"`
	// Repeated says how the query answered when asked again before it
	// was reported: "asked twice: the same answer" (deterministic) or
	// "asked twice: answered differently" (flaky); "" when it was not.
	Repeated string `json:"repeated,omitempty"`
	// Clause is the spec's text the difference breaks, most specific first
	// (a flag's, a filter's): §section: "quote"; SideBySide sets the rows
	// expected beside those the answer gave, when they differ.
	Clause     string `json:"clause,omitempty"`
	SideBySide string `json:"sideBySide,omitempty"`
}
