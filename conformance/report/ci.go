package report

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/internal/quote"
)

// Bounds of what the CI reports write: a job summary is read on a page
// (GitHub keeps at most 1 MiB of it a step), annotations are few (GitHub
// shows ten errors a step).
const (
	// MaxSummaryRules is how many failed rules the Markdown summary
	// details; the rest are named in one line each.
	MaxSummaryRules = 40
	// MaxDetail bounds one problem's line in the summary and annotations.
	MaxDetail = 300
	// MaxAnnotations is how many failed rules get an error annotation;
	// a notice counts the rest.
	MaxAnnotations = 10
)

// SpecName names the document the rules' section numbers (§4.5) refer to.
const SpecName = `"Chain Data Query API and Transaction Command Shapes"`

// WriteMarkdown writes s as a Markdown summary for a CI job (GitHub's job
// summary, a GitLab job's artifact): the verdict and totals, then each
// failed rule with its ID, level, the spec clause it rests on, and each
// problem with its request (for a model rule, the shrunk query) and the
// curl line that repeats it; then the waived and skipped rules and the
// waivers that expired or excused nothing. The deployment's text is
// escaped: it cannot add markup, links or HTML to the page.
func WriteMarkdown(w io.Writer, s *Summary) error {
	var b strings.Builder
	c := s.Counts()
	verdict := "PASSED"
	if !s.Passed() {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "## Conformance: %s\n\n", verdict)
	fmt.Fprintf(&b, "**%d failed**, %d passed, %d skipped, %d waived, %d not selected", c.Failed, c.Passed, c.Skipped, c.Waived, c.NotRun)
	var run []string
	if s.LabelFilter != "" {
		run = append(run, "label filter "+codeSpan(s.LabelFilter))
	}
	if len(s.Model) > 0 {
		run = append(run, fmt.Sprintf("seed %d (%s repeats the model rules' queries)", s.Seed, codeSpan(fmt.Sprintf("--seed %d", s.Seed))))
	}
	if len(run) > 0 {
		b.WriteString("; " + strings.Join(run, ", "))
	}
	b.WriteString(".\n")
	for _, why := range s.failLines() {
		fmt.Fprintf(&b, "\n> The run fails: %s\n", mdText(why))
	}
	var failed, waived, skipped []RuleResult
	for _, r := range s.Rules {
		switch r.State {
		case StateFailed:
			failed = append(failed, r)
		case StateWaived:
			waived = append(waived, r)
		case StateSkipped:
			if !s.stoppedRule(r) {
				skipped = append(skipped, r)
			}
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\n### Failed rules (%d)\n\nSections (§) are those of the spec, %s.\n", len(failed), SpecName)
		for i, r := range failed {
			if i == MaxSummaryRules {
				b.WriteString("\nAnd, with their problems in the HTML and JUnit reports:\n\n")
			}
			if i >= MaxSummaryRules {
				fmt.Fprintf(&b, "- **%s** %s\n", r.ID, mdText(r.Text))
				continue
			}
			writeMarkdownRule(&b, s, r)
		}
	}
	if len(waived) > 0 {
		fmt.Fprintf(&b, "\n### Waived (%d)\n\n", len(waived))
		for _, r := range waived {
			fmt.Fprintf(&b, "- **%s** %s: waived until %s: %s\n", r.ID, mdText(r.Text), mdText(r.Waiver.Expires), mdText(r.Waiver.Reason))
		}
	}
	if len(s.ExpiredWaivers)+len(s.UnmatchedWaivers) > 0 {
		b.WriteString("\n### Waivers that excused nothing\n\n")
		for _, w := range s.ExpiredWaivers {
			fmt.Fprintf(&b, "- **%s** expired %s (%s): not applied, and the run fails; renew it or fix the deployment\n", w.Rule, mdText(w.Expires), mdText(w.Reason))
		}
		for _, u := range s.UnmatchedWaivers {
			fmt.Fprintf(&b, "- **%s** until %s (%s): %s\n", u.Rule, mdText(u.Expires), mdText(u.Reason), mdText(u.Why))
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>Skipped (%d): a skipped rule judged nothing</summary>\n\n", len(skipped))
		for _, r := range skipped {
			fmt.Fprintf(&b, "- **%s** %s: %s\n", r.ID, mdText(r.Text), mdText(clip(FirstLine(r.Message), MaxDetail)))
		}
		b.WriteString("\n</details>\n")
	}
	if _, err := io.WriteString(w, quote.Printable(b.String())); err != nil {
		return fmt.Errorf("write Markdown summary: %w", err)
	}
	return nil
}

// failLines says why the run fails beyond its failed rules, a line each:
// it stopped, a waiver expired, --fail-on-skip; a summary read back from a
// JSON report gives its reasons (FailReasons) instead of the last two.
func (s *Summary) failLines() []string {
	var out []string
	if s.Stopped != "" {
		out = append(out, fmt.Sprintf("the run stopped (%d rules skipped): %s", s.stoppedRules(), s.Stopped))
	}
	if len(s.FailReasons) > 0 {
		return append(out, s.FailReasons...)
	}
	if n := len(s.ExpiredWaivers); n > 0 {
		out = append(out, plural(n, "waiver")+" expired")
	}
	if c := s.Counts(); s.FailOnSkip && c.Skipped > 0 {
		out = append(out, plural(c.Skipped, "rule")+" skipped (--fail-on-skip)")
	}
	return out
}

// writeMarkdownRule writes one failed rule and its problems.
func writeMarkdownRule(b *strings.Builder, s *Summary, r RuleResult) {
	fmt.Fprintf(b, "\n#### %s %s: %s\n\n", r.ID, r.Level(), mdText(r.Listing+" "+r.Area+": "+r.Text))
	if r.Cite.Section != "" {
		fmt.Fprintf(b, "Clause: spec §%s: %s\n\n", mdText(r.Cite.Section), mdText(strconv.Quote(r.Cite.Quote)))
	} else {
		b.WriteString("Clause: none in the spec; our reading of what it leaves open (docs/behaviour.md), a SHOULD\n\n")
	}
	problems := ruleProblems(s, r)
	if len(problems) == 0 {
		fmt.Fprintf(b, "- %s\n", mdText(clip(messageLine(r.Message), MaxDetail)))
		return
	}
	for _, p := range problems {
		fmt.Fprintf(b, "- %s\n", mdText(clip(p.Detail, MaxDetail)))
		if p.Request != "" {
			fmt.Fprintf(b, "\n  Query: %s\n", codeSpan(p.Request))
		}
		if p.Curl != "" {
			fence := strings.Repeat("`", max(3, longestRun(p.Curl, '`')+1))
			fmt.Fprintf(b, "\n  %ssh\n  %s\n  %s\n", fence, p.Curl, fence)
		}
	}
}

// ruleProblems returns a failed rule's problems: those its verdict listed,
// else its model failures (with their shrunk queries).
func ruleProblems(s *Summary, r RuleResult) []rule.Problem {
	if len(r.Problems) > 0 {
		return r.Problems
	}
	var out []rule.Problem
	for _, m := range s.Model {
		for _, f := range m.Failures {
			if f.Rule != r.ID || len(out) == rule.MaxProblems {
				continue
			}
			q := f.Query
			if f.Shrunk != "" {
				q = f.Shrunk
			}
			out = append(out, rule.Problem{Detail: "query " + q + ": " + f.Detail, Curl: f.Curl})
		}
	}
	return out
}

// messageLine is the first line of a failure message that says what went
// wrong: past the header naming the rule and "Rule broken.".
func messageLine(msg string) string {
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || ruleHeaderLine.MatchString(line) || strings.HasPrefix(line, "Rule broken.") || strings.HasPrefix(line, "Found ") {
			continue
		}
		return line
	}
	return FirstLine(msg)
}

// ruleHeaderLine is the first line of a rule's failure message: its ID and
// level.
var ruleHeaderLine = regexp.MustCompile(`^[A-Z]+-[A-Z]+-[0-9]{3} \((MUST|SHOULD)`)

// WriteAnnotations writes s as GitHub Actions workflow commands: an error
// for each failed rule (its ID and level as the title; its text, clause,
// first problem and request as the message), at most MaxAnnotations, then
// a notice counting the rest; a warning for each waiver that expired or
// excused nothing; and a notice with the verdict.
func WriteAnnotations(w io.Writer, s *Summary) error {
	var b strings.Builder
	failed := 0
	for _, r := range s.Rules {
		if r.State != StateFailed {
			continue
		}
		failed++
		if failed > MaxAnnotations {
			continue
		}
		msg := r.Listing + " " + r.Area + ": " + r.Text
		if r.Cite.Section != "" {
			msg += "\n" + r.Cite.String()
		}
		if ps := ruleProblems(s, r); len(ps) > 0 {
			msg += "\n" + clip(ps[0].Detail, MaxDetail)
			if ps[0].Curl != "" {
				msg += "\n" + ps[0].Curl
			}
			if len(ps) > 1 {
				msg += fmt.Sprintf("\n(%d problems: see the job summary)", len(ps))
			}
		} else {
			msg += "\n" + clip(messageLine(r.Message), MaxDetail)
		}
		fmt.Fprintf(&b, "::error title=%s::%s\n", commandProperty(r.ID+" "+r.Level()+" failed"), commandData(msg))
	}
	if failed > MaxAnnotations {
		fmt.Fprintf(&b, "::notice title=%s::%s\n", commandProperty("conformance"), commandData(fmt.Sprintf("%d more rules failed: see the job summary", failed-MaxAnnotations)))
	}
	for _, wv := range s.ExpiredWaivers {
		fmt.Fprintf(&b, "::warning title=%s::%s\n", commandProperty("waiver of "+wv.Rule+" expired"), commandData(fmt.Sprintf("expired %s (%s): not applied, and the run fails", wv.Expires, wv.Reason)))
	}
	for _, u := range s.UnmatchedWaivers {
		fmt.Fprintf(&b, "::warning title=%s::%s\n", commandProperty("waiver of "+u.Rule+" excused nothing"), commandData(fmt.Sprintf("until %s (%s): %s", u.Expires, u.Reason, u.Why)))
	}
	c := s.Counts()
	verdict := "PASSED"
	if !s.Passed() {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "::notice title=%s::%s\n", commandProperty("conformance "+verdict), commandData(fmt.Sprintf("%d failed, %d passed, %d skipped, %d waived, %d not selected", c.Failed, c.Passed, c.Skipped, c.Waived, c.NotRun)))
	if _, err := io.WriteString(w, quote.Printable(b.String())); err != nil {
		return fmt.Errorf("write annotations: %w", err)
	}
	return nil
}

// WriteOutputs writes the run's verdict and counts as key=value lines, as
// a GitHub Actions step's outputs ($GITHUB_OUTPUT) or a dotenv report.
func WriteOutputs(w io.Writer, s *Summary) error {
	c := s.Counts()
	verdict := "passed"
	if !s.Passed() {
		verdict = "failed"
	}
	_, err := fmt.Fprintf(w, "verdict=%s\nfailed=%d\npassed=%d\nskipped=%d\nwaived=%d\n", verdict, c.Failed, c.Passed, c.Skipped, c.Waived)
	if err != nil {
		return fmt.Errorf("write outputs: %w", err)
	}
	return nil
}

// commandData escapes a workflow command's message.
func commandData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// commandProperty escapes a workflow command's property value.
func commandProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// mdText escapes text for Markdown prose: no character of it makes markup,
// a link or HTML. Brackets are escaped, so parentheses cannot make a link
// and stay as they are.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range quote.Printable(s) {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\n', '\r':
			b.WriteByte(' ')
		case '\\', '`', '*', '_', '[', ']', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codeSpan writes s as a Markdown code span, its fence longer than any run
// of backticks in it.
func codeSpan(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ").Replace(quote.Printable(s))
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// clip cuts s to n bytes at a character boundary, with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
