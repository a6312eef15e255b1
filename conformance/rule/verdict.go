package rule

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/internal/quote"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// MaxProblems is how many problems one failure message lists.
const MaxProblems = 6

// Verdict collects what one rule found wrong, so that a failure lists every
// problem with the request that showed it, not only the first.
type Verdict struct {
	// want says what the rule wants, in words.
	want string
	// Problems are what the rule found wrong, each with the request that
	// showed it.
	Problems []string
	// Cases counts what the rule judged (pages, rows, requests); a rule
	// that judged nothing is skipped, never passed.
	Cases int
	// None says why nothing could be judged, for the skip.
	None string
	// refused is a request the deployment refused after every retry (429
	// or 503): the rule could not be judged.
	refused *client.Exchange
	// listed are the problems as the reports list them, in the order of
	// Problems.
	listed []Problem
}

// NewVerdict returns the verdict of a rule that wants what the format
// says.
func NewVerdict(want string, args ...any) *Verdict {
	return &Verdict{want: fmt.Sprintf(want, args...)}
}

// Judged counts n cases the rule judged.
func (v *Verdict) Judged(n int) { v.Cases += n }

// NoneBecause says why the rule may judge nothing, for its skip.
func (v *Verdict) NoneBecause(format string, args ...any) {
	v.None = fmt.Sprintf(format, args...)
}

// Add records a problem found in an answer.
func (v *Verdict) Add(ex *client.Exchange, format string, args ...any) {
	if ex != nil && ex.Refused && v.refused == nil {
		v.refused = ex
	}
	msg := fmt.Sprintf(format, args...)
	p := Problem{Detail: quote.Printable(strings.TrimSpace(firstLine(msg)))}
	if ex != nil {
		msg += "\n" + ex.Describe()
		p.Request, p.Curl = ex.Method+" "+requestTarget(ex.URL), ex.Curl()
	}
	v.Problems = append(v.Problems, strings.TrimRight(msg, "\n"))
	v.listed = append(v.listed, p)
}

// Problem is one problem of a broken rule as the reports list it (the
// report entry "problems"): what was wrong, in one line, and the request
// that showed it.
type Problem struct {
	// Detail is the problem's first line.
	Detail string `json:"detail"`
	// Request is the method and the request target (path and query) that
	// showed it: for a model rule, the shrunk query. Curl repeats it.
	// Both are empty for a problem no single request showed.
	Request string `json:"request,omitempty"`
	Curl    string `json:"curl,omitempty"`
}

// requestTarget is the path and query of a URL, or the URL itself when it
// does not parse.
func requestTarget(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.RequestURI()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// OK reports whether nothing was found wrong.
func (v *Verdict) OK() bool { return len(v.Problems) == 0 }

// message formats the verdict for a failure.
func (v *Verdict) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Rule broken. The rule wants: %s\n", v.want)
	fmt.Fprintf(&b, "Found %d problem(s):\n", len(v.Problems))
	for i, p := range v.Problems {
		if i == MaxProblems {
			fmt.Fprintf(&b, "... and %d more\n", len(v.Problems)-MaxProblems)
			break
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, indent(p))
	}
	return b.String()
}

func indent(s string) string {
	return strings.ReplaceAll(s, "\n", "\n   ")
}

// Check ends the rule: it records what was judged, fails the running spec
// when the verdict holds problems, and skips it when nothing was judged
// (a rule never passes with nothing to check) or when the deployment
// refused a request the verdict needed.
func (v *Verdict) Check() {
	GinkgoHelper()
	AddReportEntry(EntryOutcome, Outcome{Want: v.want, Cases: v.Cases}, ReportEntryVisibilityNever)
	if !v.OK() {
		AddReportEntry(EntryProblems, v.listed[:min(len(v.listed), MaxProblems)], ReportEntryVisibilityNever)
	}
	if v.refused != nil && !v.OK() {
		SkipRefused(v.refused)
	}
	Expect(v).To(holdTheRule())
	if v.Cases == 0 {
		why := v.None
		if why == "" {
			why = "the deployment's data held nothing this rule could judge"
		}
		Skipf("judged no case: %s", why)
	}
}

// Outcome is what a rule reports of its run (report entry "outcome").
type Outcome struct {
	Want  string `json:"want"`
	Cases int    `json:"cases"`
}

// Names of the report entries a rule adds.
const (
	EntryOutcome = "outcome"
	EntryWaived  = "waived"
	// EntryProblems lists a broken rule's first MaxProblems problems
	// ([]Problem), for the reports that name each failing request.
	EntryProblems = "problems"
)

// SkipRefused skips the running spec because the deployment refused a
// request it needed after every retry; the rate-limit rule reports it.
func SkipRefused(ex *client.Exchange) {
	GinkgoHelper()
	Skipf("could not be judged: the deployment refused a request after every retry (HTTP %d; see the rule %q)\n%s",
		ex.Status, RateLimitRuleText, ex.Describe())
}

// holdTheRule is a Gomega matcher for a *verdict whose failure message is the
// verdict's own report.
func holdTheRule() types.GomegaMatcher { return ruleMatcher{} }

type ruleMatcher struct{}

func (ruleMatcher) Match(actual any) (bool, error) {
	v, ok := actual.(*Verdict)
	if !ok {
		return false, fmt.Errorf("holdTheRule wants a *verdict, got %T", actual)
	}
	return v.OK(), nil
}

func (ruleMatcher) FailureMessage(actual any) string {
	return actual.(*Verdict).message()
}

func (ruleMatcher) NegatedFailureMessage(any) string {
	return "the rule was expected to be broken, but it holds"
}

// Skipf skips the running spec, saying why the data cannot show the rule.
func Skipf(format string, args ...any) {
	GinkgoHelper()
	msg := quote.Printable(fmt.Sprintf(format, args...))
	deadlineSkip(msg, 0)
	Skip(msg)
}

// RateLimitRuleText is the text of the rule that reports requests the
// deployment kept refusing; rules that needed them are skipped, not failed.
const RateLimitRuleText = "the deployment answers within its rate limit: no request is still refused (429 or 503) after the retries"
