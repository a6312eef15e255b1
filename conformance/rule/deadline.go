package rule

import (
	"github.com/chaindata/harness/conformance/client"
	. "github.com/onsi/ginkgo/v2"
)

// DeclareDeadline declares that once the run deadline has passed, every
// rule not yet run is skipped before it asks anything (and before its
// container's BeforeAll, which runs after this outer BeforeEach).
func DeclareDeadline() {
	BeforeEach(func() {
		if t := client.Current(); t.Expired() {
			Skip(t.DeadlineMessage())
		}
	})
}

// deadlineSkip skips the running rule when the run deadline has passed:
// its requests were abandoned, so what it found says nothing of the
// deployment. The rule's own message follows the deadline's.
func deadlineSkip(message string, callerSkip int) {
	if t := client.Current(); t.Expired() {
		Skip(t.DeadlineMessage()+"\n"+message, callerSkip+1)
	}
}
