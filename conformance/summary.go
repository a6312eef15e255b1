package conformance

import (
	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/rule"
	"time"
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
	// Seed and Queries are the model rules' seed and budget per listing:
	// the same seed asks the same queries again.
	Seed    int64
	Queries int
	// Model holds what the model rules did over each listing they ran on.
	Model []ModelReport
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
	// Waiver is the waiver applied to a waived rule.
	Waiver *rule.Waiver
	// Duration is the time the rule took.
	Duration time.Duration
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
	return s.Stopped == "" && c.Failed == 0 && !(s.FailOnSkip && c.Skipped > 0) && len(s.ExpiredWaivers) == 0
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
	return s.Stopped != "" && r.State == StateSkipped && firstLine(r.Message) == s.Stopped
}

// cases is the number of cases every rule judged, together.
func (s *Summary) cases() int {
	n := 0
	for _, r := range s.Rules {
		n += r.Cases
	}
	return n
}
