package conformance

import (
	"fmt"
	"strings"

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
}

func newVerdict(want string, args ...any) *verdict {
	return &verdict{want: fmt.Sprintf(want, args...)}
}

// add records a problem found in an answer.
func (v *verdict) add(ex *exchange, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if ex != nil {
		msg += "\n" + ex.describe()
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

// check fails the running spec when the verdict holds problems.
func (v *verdict) check() {
	GinkgoHelper()
	Expect(v).To(holdTheRule())
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
		if msg := w.broken(); msg != "" {
			Fail(msg)
		}
	}
}

// skipf skips the running spec, saying why the data cannot show the rule.
func skipf(format string, args ...any) {
	GinkgoHelper()
	Skip(fmt.Sprintf(format, args...))
}
