package conformance

import (
	"fmt"
	"strings"

	"github.com/chaindata/harness/conformance/client"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// maxProblems is how many problems one failure message lists.
const maxProblems = 6

// verdict collects what one rule found wrong, so that a failure lists every
// problem with the request that showed it, not only the first.
type verdict struct {
	// want says what the rule wants, in words.
	want     string
	problems []string
	// cases counts what the rule judged (pages, rows, requests); a rule
	// that judged nothing is skipped, never passed.
	cases int
	// none says why nothing could be judged, for the skip.
	none string
	// refused is a request the deployment refused after every retry (429
	// or 503): the rule could not be judged.
	refused *client.Exchange
}

func newVerdict(want string, args ...any) *verdict {
	return &verdict{want: fmt.Sprintf(want, args...)}
}

// judged counts n cases the rule judged.
func (v *verdict) judged(n int) { v.cases += n }

// noneBecause says why the rule may judge nothing, for its skip.
func (v *verdict) noneBecause(format string, args ...any) {
	v.none = fmt.Sprintf(format, args...)
}

// add records a problem found in an answer.
func (v *verdict) add(ex *client.Exchange, format string, args ...any) {
	if ex != nil && ex.Refused && v.refused == nil {
		v.refused = ex
	}
	msg := fmt.Sprintf(format, args...)
	if ex != nil {
		msg += "\n" + ex.Describe()
	}
	v.problems = append(v.problems, strings.TrimRight(msg, "\n"))
}

// ok reports whether nothing was found wrong.
func (v *verdict) ok() bool { return len(v.problems) == 0 }

// message formats the verdict for a failure.
func (v *verdict) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Rule broken. The rule wants: %s\n", v.want)
	fmt.Fprintf(&b, "Found %d problem(s):\n", len(v.problems))
	for i, p := range v.problems {
		if i == maxProblems {
			fmt.Fprintf(&b, "... and %d more\n", len(v.problems)-maxProblems)
			break
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, indent(p))
	}
	return b.String()
}

func indent(s string) string {
	return strings.ReplaceAll(s, "\n", "\n   ")
}

// check ends the rule: it records what was judged, fails the running spec
// when the verdict holds problems, and skips it when nothing was judged
// (a rule never passes with nothing to check) or when the deployment
// refused a request the verdict needed.
func (v *verdict) check() {
	GinkgoHelper()
	AddReportEntry(entryOutcome, outcome{Want: v.want, Cases: v.cases}, ReportEntryVisibilityNever)
	if v.refused != nil && !v.ok() {
		skipRefused(v.refused)
	}
	Expect(v).To(holdTheRule())
	if v.cases == 0 {
		why := v.none
		if why == "" {
			why = "the deployment's data held nothing this rule could judge"
		}
		skipf("judged no case: %s", why)
	}
}

// outcome is what a rule reports of its run (report entry "outcome").
type outcome struct {
	Want  string `json:"want"`
	Cases int    `json:"cases"`
}

// Names of the report entries a rule adds.
const (
	entryRule    = "rule"
	entryOutcome = "outcome"
	entryWaived  = "waived"
)

// skipRefused skips the running spec because the deployment refused a
// request it needed after every retry; the rate-limit rule reports it.
func skipRefused(ex *client.Exchange) {
	GinkgoHelper()
	skipf("could not be judged: the deployment refused a request after every retry (HTTP %d; see the rule %q)\n%s",
		ex.Status, rateLimitRuleText, ex.Describe())
}

// holdTheRule is a Gomega matcher for a *verdict whose failure message is the
// verdict's own report.
func holdTheRule() types.GomegaMatcher { return ruleMatcher{} }

type ruleMatcher struct{}

func (ruleMatcher) Match(actual any) (bool, error) {
	v, ok := actual.(*verdict)
	if !ok {
		return false, fmt.Errorf("holdTheRule wants a *verdict, got %T", actual)
	}
	return v.ok(), nil
}

func (ruleMatcher) FailureMessage(actual any) string {
	return actual.(*verdict).message()
}

func (ruleMatcher) NegatedFailureMessage(any) string {
	return "the rule was expected to be broken, but it holds"
}

// failWalk fails the running spec when a walk it needs broke off.
func failWalk(ws ...*walk) {
	GinkgoHelper()
	for _, w := range ws {
		if w == nil {
			continue
		}
		if w.errEx != nil && w.errEx.Refused {
			skipRefused(w.errEx)
		}
		if msg := w.broken(); msg != "" {
			ruleFail(msg)
		}
	}
}

// skipf skips the running spec, saying why the data cannot show the rule.
func skipf(format string, args ...any) {
	GinkgoHelper()
	msg := fmt.Sprintf(format, args...)
	deadlineSkip(msg, 0)
	Skip(msg)
}
