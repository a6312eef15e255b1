package rule

import (
	"fmt"
	"sync"
	"time"

	"github.com/chaindata/harness/internal/quote"
	. "github.com/onsi/ginkgo/v2"
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

// Expiry is the end of the waiver's last day.
func (w Waiver) Expiry() (time.Time, error) {
	d, err := time.Parse(time.DateOnly, w.Expires)
	if err != nil {
		return time.Time{}, fmt.Errorf("waiver for %s: expires %q is not a date YYYY-MM-DD", w.Rule, w.Expires)
	}
	return d.Add(24 * time.Hour), nil
}

// Expired reports whether the waiver's last day is before now.
func (w Waiver) Expired(now time.Time) bool {
	end, err := w.Expiry()
	return err == nil && !now.Before(end)
}

// activeWaivers are the waivers in force for the run, by rule ID.
var (
	waiversMu     sync.Mutex
	activeWaivers map[string]Waiver
)

// SetWaivers puts the waivers that have not expired in force.
func SetWaivers(ws []Waiver, now time.Time) {
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

// FailRule is the suite's fail handler: every failure of a rule goes
// through it. It heads the message with the rule's ID, level and the spec
// text it rests on, and turns the failure of a waived rule into a skip
// marked waived, so that it does not fail the run.
func FailRule(message string, callerSkip ...int) {
	skip := 1
	if len(callerSkip) > 0 {
		skip += callerSkip[0]
	}
	id := ID(CurrentSpecReport().Labels())
	// The message quotes the deployment's answers, whose bytes may not be
	// UTF-8: every report (the console, JUnit, JSON, HTML) gets them
	// escaped.
	message = ruleHeader(id) + quote.Printable(message)
	deadlineSkip(message, skip)
	if w, ok := waiverFor(id); ok {
		AddReportEntry(EntryWaived, w, ReportEntryVisibilityNever)
		Skip(fmt.Sprintf("WAIVED until %s: %s\n%s", w.Expires, w.Reason, message), skip)
	}
	Fail(message, skip)
}

// ruleHeader names a rule for its failure message.
func ruleHeader(id string) string {
	m, ok := MetaOf(id)
	if !ok {
		return ""
	}
	if m.Level.Strict {
		return fmt.Sprintf("%s (SHOULD: our reading, docs/behaviour.md)\n", id)
	}
	return fmt.Sprintf("%s (MUST, %s)\n", id, m.Level.Cite)
}
