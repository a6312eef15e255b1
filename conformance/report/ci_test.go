package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chaindata/harness/conformance/rule"
)

// ciSummary is a run with one rule in each state, a model failure, and
// text from the deployment holding markup and bytes that are not UTF-8.
func ciSummary() *Summary {
	must := rule.Citation{Section: "4 (PAG)", Quote: "pagination.first: number of records"}
	mk := func(id, listing, area, text, state string, cite rule.Citation) RuleResult {
		return RuleResult{Rule: rule.Rule{ID: id, Listing: listing, Area: area, Text: text, Cite: cite, Strict: cite.Section == ""}, State: state}
	}
	failed := mk("PARAM-PAG-006", "network-parameters", "pagination", "first=N returns N rows", StateFailed, must)
	failed.Message = "PARAM-PAG-006 (MUST, ...)\nRule broken. The rule wants: N rows\nFound 1 problem(s):\n1. pagination.first=2 gave 1 rows"
	failed.Problems = []rule.Problem{{Detail: "pagination.first=2 gave 1 rows <script>x</script>", Request: "GET /api/v2/network/parameters?pagination.first=2",
		Curl: "curl -sS -i 'http://127.0.0.1:1/api/v2/network/parameters?pagination.first=2'"}}
	model := mk("PARAM-MOD-003", "network-parameters", "model", "answers every query with the model's rows", StateFailed, must)
	model.Message = "PARAM-MOD-003 (MUST, ...)\nRule broken. The rule wants: rows\nFound 1 problem(s):\n1. query ..."
	noProblems := mk("PARAM-ERR-013", "network-parameters", "errors", "a wrong method gets 501", StateFailed, rule.Citation{})
	noProblems.Message = "PARAM-ERR-013 (SHOULD: our reading, docs/behaviour.md)\nRule broken. The rule wants: 501\nFound 1 problem(s):\n1. HTTP 200 \xff, want 501"
	waived := mk("GAMES-EPO-005", "games", "epochs", "a window of 30 epochs", StateWaived, must)
	waived.Waiver = &rule.Waiver{Rule: "GAMES-EPO-005", Reason: "31 epochs | known", Expires: "2099-12-31"}
	skipped := mk("GAMES-GRO-001", "games", "growth", "a walk paused until a new row arrives", StateSkipped, must)
	skipped.Message = "no new row within 10s\nmore"
	passed := mk("SNAP-PAG-001", "snapshots", "pagination", "a forward walk never repeats a row", StatePassed, must)
	notRun := mk("TX-PAG-001", "transactions", "pagination", "first=N", StateNotRun, must)
	return &Summary{
		BaseURL: "http://127.0.0.1:1", LabelFilter: "!strict && `x`", Seed: 7, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Rules: []RuleResult{failed, model, noProblems, waived, skipped, passed, notRun},
		Model: []ModelReport{{Listing: "network-parameters", Failures: []ModelFailure{
			{Rule: "PARAM-MOD-003", Query: "pagination.after=abc pagination.first=2", Shrunk: "pagination.first=2", Curl: "curl -sS -i 'http://x/?pagination.first=2'", Detail: "row 2: want k, got none"},
			{Rule: "PARAM-MOD-003", Query: "pagination.last=3", Curl: "curl -sS -i 'http://x/?pagination.last=3'", Detail: "want 3 rows"},
		}}},
		ExpiredWaivers:   []rule.Waiver{{Rule: "TX-PAG-001", Reason: "old", Expires: "2020-01-01"}},
		UnmatchedWaivers: []UnmatchedWaiver{{Waiver: rule.Waiver{Rule: "SNAP-PAG-001", Reason: "fixed \xfe", Expires: "2099-01-01"}, Why: "the rule passed: drop the waiver"}},
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, ciSummary()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## Conformance: FAILED\n",
		"**3 failed**, 1 passed, 1 skipped, 1 waived, 1 not selected; label filter `` !strict && `x` ``, seed 7 (`--seed 7` repeats the model rules' queries).",
		"\n> The run fails: 1 waiver expired\n",
		"### Failed rules (3)\n\nSections (§) are those of the spec, \"Chain Data Query API and Transaction Command Shapes\".",
		"#### PARAM-PAG-006 MUST: network-parameters pagination: first=N returns N rows\n\nClause: spec §4 (PAG): \"pagination.first: number of records\"",
		"- pagination.first=2 gave 1 rows &lt;script&gt;x&lt;/script&gt;\n",
		"  Query: `GET /api/v2/network/parameters?pagination.first=2`",
		"  ```sh\n  curl -sS -i 'http://127.0.0.1:1/api/v2/network/parameters?pagination.first=2'\n  ```",
		// A rule with no problems entry: its model failures, shrunk.
		"- query pagination.first=2: row 2: want k, got none\n",
		"- query pagination.last=3: want 3 rows\n",
		// A rule with neither: the message's first telling line.
		"#### PARAM-ERR-013 SHOULD: network-parameters errors: a wrong method gets 501\n\nClause: none in the spec",
		"- 1. HTTP 200 \\\\xff, want 501\n", // the escape's backslash escaped, so that it shows
		"### Waived (1)\n\n- **GAMES-EPO-005** a window of 30 epochs: waived until 2099-12-31: 31 epochs \\| known\n",
		"- **TX-PAG-001** expired 2020-01-01 (old): not applied",
		"- **SNAP-PAG-001** until 2099-01-01 (fixed \\\\xfe): the rule passed: drop the waiver",
		"<details><summary>Skipped (1): a skipped rule judged nothing</summary>\n\n- **GAMES-GRO-001** a walk paused until a new row arrives: no new row within 10s\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q\n%s", want, md)
		}
	}
	if !utf8.ValidString(md) {
		t.Error("the Markdown is not valid UTF-8")
	}
}

// TestWriteMarkdownBounds: past MaxSummaryRules failed rules, each is named
// in one line; problems are cut at MaxDetail.
func TestWriteMarkdownBounds(t *testing.T) {
	s := &Summary{}
	for i := range MaxSummaryRules + 3 {
		r := RuleResult{Rule: rule.Rule{ID: fmt.Sprintf("TX-PAG-%03d", i+1), Text: "rule", Strict: true}, State: StateFailed}
		r.Problems = []rule.Problem{{Detail: strings.Repeat("é", MaxDetail)}}
		s.Rules = append(s.Rules, r)
	}
	var b bytes.Buffer
	WriteMarkdown(&b, s)
	md := b.String()
	if n := strings.Count(md, "\n#### "); n != MaxSummaryRules {
		t.Errorf("%d rules detailed, want %d", n, MaxSummaryRules)
	}
	last := fmt.Sprintf("TX-PAG-%03d", MaxSummaryRules+3)
	if !strings.Contains(md, "- **"+last+"** rule\n") {
		t.Errorf("the rules past the bound are not named one a line")
	}
	if strings.Contains(md, strings.Repeat("é", MaxDetail/2+1)) || !strings.Contains(md, "é…") || !utf8.ValidString(md) {
		t.Errorf("a long problem is not cut at a character boundary with an ellipsis")
	}
}

func TestWriteMarkdownPassed(t *testing.T) {
	s := &Summary{Rules: []RuleResult{{Rule: rule.Rule{ID: "A-B-001"}, State: StatePassed}}}
	var b bytes.Buffer
	WriteMarkdown(&b, s)
	if md := b.String(); !strings.HasPrefix(md, "## Conformance: PASSED\n\n**0 failed**, 1 passed") || strings.Contains(md, "###") || strings.Contains(md, "seed") {
		t.Errorf("a passed run without model rules:\n%s", md)
	}
}

func TestWriteAnnotations(t *testing.T) {
	var b bytes.Buffer
	if err := WriteAnnotations(&b, ciSummary()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"::error title=PARAM-PAG-006 MUST failed::network-parameters pagination: first=N returns N rows%0Aspec §4 (PAG): \"pagination.first: number of records\"%0Apagination.first=2 gave 1 rows <script>x</script>%0Acurl -sS -i 'http://127.0.0.1:1/api/v2/network/parameters?pagination.first=2'",
		"::error title=PARAM-MOD-003 MUST failed::network-parameters model: answers every query with the model's rows%0Aspec §4 (PAG): \"pagination.first: number of records\"%0Aquery pagination.first=2: row 2: want k, got none%0Acurl -sS -i 'http://x/?pagination.first=2'%0A(2 problems: see the job summary)",
		"::error title=PARAM-ERR-013 SHOULD failed::network-parameters errors: a wrong method gets 501%0A1. HTTP 200 \\xff, want 501",
		"::warning title=waiver of TX-PAG-001 expired::expired 2020-01-01 (old): not applied, and the run fails",
		"::warning title=waiver of SNAP-PAG-001 excused nothing::until 2099-01-01 (fixed \\xfe): the rule passed: drop the waiver",
		"::notice title=conformance FAILED::3 failed, 1 passed, 1 skipped, 1 waived, 1 not selected",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestWriteAnnotationsBounded: at most MaxAnnotations errors, then a
// notice counting the rest.
func TestWriteAnnotationsBounded(t *testing.T) {
	s := &Summary{}
	for i := range MaxAnnotations + 4 {
		s.Rules = append(s.Rules, RuleResult{Rule: rule.Rule{ID: fmt.Sprintf("TX-PAG-%03d", i+1), Strict: true}, State: StateFailed, Message: "x"})
	}
	var b bytes.Buffer
	WriteAnnotations(&b, s)
	out := b.String()
	if n := strings.Count(out, "::error "); n != MaxAnnotations {
		t.Errorf("%d errors, want %d", n, MaxAnnotations)
	}
	if !strings.Contains(out, "::notice title=conformance::4 more rules failed: see the job summary\n") {
		t.Errorf("no notice counts the rest:\n%s", out)
	}
}

func TestWriteOutputs(t *testing.T) {
	for _, tc := range []struct {
		s    *Summary
		want string
	}{
		{ciSummary(), "verdict=failed\nfailed=3\npassed=1\nskipped=1\nwaived=1\n"},
		{&Summary{Rules: []RuleResult{{State: StatePassed}, {State: StateNotRun}}}, "verdict=passed\nfailed=0\npassed=1\nskipped=0\nwaived=0\n"},
	} {
		var b bytes.Buffer
		if err := WriteOutputs(&b, tc.s); err != nil || b.String() != tc.want {
			t.Errorf("outputs %q (%v), want %q", b.String(), err, tc.want)
		}
	}
}

func TestMarkdownEscapes(t *testing.T) {
	tests := []struct{ in, text, code string }{
		{"plain", "plain", "`plain`"},
		{"<b>&</b>", "&lt;b&gt;&amp;&lt;/b&gt;", "`<b>&</b>`"},
		{"*a* _b_ [c](d) `e` | ~f~ \\", `\*a\* \_b\_ \[c\](d) \` + "`e\\`" + ` \| \~f\~ \\`, "``*a* _b_ [c](d) `e` | ~f~ \\``"},
		{"two\nlines", "two lines", "`two lines`"},
		{"`edge`", "\\`edge\\`", "`` `edge` ``"},
		{"a ``` run", "a \\`\\`\\` run", "````a ``` run````"},
		{"bad \xff byte", `bad \\xff byte`, "`bad \\xff byte`"},
	}
	for _, tc := range tests {
		if got := mdText(tc.in); got != tc.text {
			t.Errorf("mdText(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := codeSpan(tc.in); got != tc.code {
			t.Errorf("codeSpan(%q) = %q, want %q", tc.in, got, tc.code)
		}
	}
}

func TestCommandEscapes(t *testing.T) {
	if got := commandData("50% done\r\nnext: a, b"); got != "50%25 done%0D%0Anext: a, b" {
		t.Errorf("commandData = %q", got)
	}
	if got := commandProperty("50% done\r\nnext: a, b"); got != "50%25 done%0D%0Anext%3A a%2C b" {
		t.Errorf("commandProperty = %q", got)
	}
}

func TestMessageLine(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"GAMES-PAG-001 (MUST, spec §4: \"x\")\nRule broken. The rule wants: y\nFound 2 problem(s):\n1. first problem\n2. second", "1. first problem"},
		{"TX-ERR-001 (SHOULD: our reading)\n\nsomething else", "something else"},
		{"just one line", "just one line"},
		{"GAMES-PAG-001 (MUST, x)\nRule broken. The rule wants: y", "GAMES-PAG-001 (MUST, x)"},
	}
	for _, tc := range tests {
		if got := messageLine(tc.msg); got != tc.want {
			t.Errorf("messageLine(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

func TestFindUnmatchedWaivers(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	rules := []RuleResult{
		{Rule: rule.Rule{ID: "A-A-001"}, State: StateWaived},
		{Rule: rule.Rule{ID: "A-A-002"}, State: StatePassed},
		{Rule: rule.Rule{ID: "A-A-003"}, State: StateSkipped},
		{Rule: rule.Rule{ID: "A-A-004"}, State: StateNotRun},
		{Rule: rule.Rule{ID: "A-A-005"}, State: StateFailed},
	}
	w := func(id, expires string) rule.Waiver { return rule.Waiver{Rule: id, Reason: "r", Expires: expires} }
	ws := []rule.Waiver{w("A-A-001", "2099-01-01"), w("A-A-002", "2099-01-01"), w("A-A-003", "2099-01-01"),
		w("A-A-004", "2099-01-01"), w("A-A-005", "2099-01-01"), w("A-A-002", "2020-01-01"), w("Z-Z-999", "2099-01-01")}
	got := FindUnmatchedWaivers(ws, rules, now)
	want := []struct{ id, why string }{
		{"A-A-002", "the rule passed: drop the waiver"},
		{"A-A-003", "the rule was skipped: nothing was judged"},
		{"A-A-004", "the rule did not run: the label filter left it out"},
		{"A-A-005", "the rule failed without it"},
		{"Z-Z-999", "the rule did not run: the label filter left it out"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d unmatched waivers, want %d: %v", len(got), len(want), got)
	}
	for i, g := range got {
		if g.Rule != want[i].id || g.Why != want[i].why {
			t.Errorf("unmatched %d = %s %q, want %s %q", i, g.Rule, g.Why, want[i].id, want[i].why)
		}
	}
}

// TestReportsListWaiversAndEscape: the console summary, the JUnit and the
// HTML report list the waivers that excused nothing, and escape the bytes
// that are not UTF-8.
func TestReportsListWaiversAndEscape(t *testing.T) {
	s := ciSummary()
	var console, junit, page bytes.Buffer
	WriteSummary(&console, s)
	if err := WriteJUnit(&junit, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLReport(&page, s); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"console": console.String(), "JUnit": junit.String(), "HTML": page.String()} {
		if !utf8.ValidString(text) || !strings.Contains(text, `fixed \xfe`) {
			t.Errorf("the %s report is not valid UTF-8 with the bad byte escaped", name)
		}
		if !strings.Contains(text, "SNAP-PAG-001") || !strings.Contains(text, "the rule passed: drop the waiver") {
			t.Errorf("the %s report does not list the unused waiver", name)
		}
	}
	if !strings.Contains(console.String(), "  UNUSED  waiver of SNAP-PAG-001 (until 2099-01-01: fixed \\xfe) excused nothing: the rule passed: drop the waiver\n") {
		t.Errorf("console:\n%s", console.String())
	}
	var doc struct {
		Suites []struct {
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			SystemOut string `xml:"system-out"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil || len(doc.Suites) != 1 {
		t.Fatalf("the JUnit report does not parse: %v", err)
	}
	props := map[string]string{}
	for _, p := range doc.Suites[0].Properties {
		props[p.Name] = p.Value
	}
	if props["unused-waiver"] != `SNAP-PAG-001 (until 2099-01-01: fixed \xfe): the rule passed: drop the waiver` ||
		props["expired-waiver"] != "TX-PAG-001 (expired 2020-01-01: old)" {
		t.Errorf("JUnit properties %v", props)
	}
	if !strings.Contains(doc.Suites[0].SystemOut, "UNUSED waiver of SNAP-PAG-001") || !strings.Contains(doc.Suites[0].SystemOut, "EXPIRED waiver of TX-PAG-001") {
		t.Errorf("JUnit system-out %q", doc.Suites[0].SystemOut)
	}
	if !strings.Contains(page.String(), "Waivers that excused nothing (1 expired, 1 unused)") {
		t.Error("the HTML report has no waiver section")
	}
	// A JUnit case's failure text keeps the deployment's bytes escaped.
	s.Rules[0].Message = "body: \xff\xfe"
	junit.Reset()
	WriteJUnit(&junit, s)
	if !strings.Contains(junit.String(), `body: \xff\xfe`) {
		t.Error("a failure message's bad bytes are not escaped in JUnit")
	}
}

// TestMarkdownFailLines: why a run fails beyond its failed rules.
func TestMarkdownFailLines(t *testing.T) {
	skipped := RuleResult{Rule: rule.Rule{ID: "A-A-001"}, State: StateSkipped, Message: "the run deadline passed (--run-timeout 1s)"}
	other := RuleResult{Rule: rule.Rule{ID: "A-A-002"}, State: StateSkipped, Message: "judged no case"}
	tests := []struct {
		name string
		s    *Summary
		want []string
	}{
		{"stopped", &Summary{Stopped: "the run deadline passed (--run-timeout 1s)", Rules: []RuleResult{skipped, other}},
			[]string{"the run stopped (1 rules skipped): the run deadline passed (--run-timeout 1s)"}},
		{"fail on skip", &Summary{FailOnSkip: true, Rules: []RuleResult{other}}, []string{"1 rule skipped (--fail-on-skip)"}},
		{"expired waivers", &Summary{ExpiredWaivers: make([]rule.Waiver, 2)}, []string{"2 waivers expired"}},
		{"a JSON report's reasons instead", &Summary{FailOnSkip: true, Rules: []RuleResult{other}, ExpiredWaivers: make([]rule.Waiver, 1), FailReasons: []string{"x", "y"}},
			[]string{"x", "y"}},
		{"none", &Summary{Rules: []RuleResult{other}}, nil},
		{"fail on skip, none skipped", &Summary{FailOnSkip: true, Rules: []RuleResult{{State: StatePassed}}}, nil},
	}
	for _, tc := range tests {
		if got := tc.s.failLines(); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"},              // the cut would split é
		{"\x80\x80\x80\x80", 2, "…"}, // no character starts before the cut
		{"", 0, ""},
	}
	for _, tc := range tests {
		if got := clip(tc.s, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestMarkdownEdges: the exact totals line of a run with neither filter
// nor model, no skipped section when nothing was skipped, a fence longer
// than a curl line's backticks, one "And" line past the bound, and no
// notice at exactly MaxAnnotations failures.
func TestMarkdownEdges(t *testing.T) {
	s := &Summary{Rules: []RuleResult{{Rule: rule.Rule{ID: "A-A-001", Strict: true}, State: StateFailed,
		Problems: []rule.Problem{{Detail: "d", Curl: "curl 'http://h/?q=```x'"}}}}}
	var b bytes.Buffer
	WriteMarkdown(&b, s)
	md := b.String()
	if !strings.Contains(md, "\n\n**1 failed**, 0 passed, 0 skipped, 0 waived, 0 not selected.\n") {
		t.Errorf("the totals line:\n%s", md)
	}
	if strings.Contains(md, "<details>") {
		t.Error("a skipped section with nothing skipped")
	}
	if !strings.Contains(md, "\n  ````sh\n  curl 'http://h/?q=```x'\n  ````\n") {
		t.Errorf("the curl line's fence is not longer than its backticks:\n%s", md)
	}
	many := &Summary{}
	for i := range MaxSummaryRules + 2 {
		many.Rules = append(many.Rules, RuleResult{Rule: rule.Rule{ID: fmt.Sprintf("A-A-%03d", i+1)}, State: StateFailed, Message: "m"})
	}
	b.Reset()
	WriteMarkdown(&b, many)
	if n := strings.Count(b.String(), "And, with their problems"); n != 1 {
		t.Errorf("the line past the bound comes %d times, want once", n)
	}
	exact := &Summary{}
	for i := range MaxAnnotations {
		exact.Rules = append(exact.Rules, RuleResult{Rule: rule.Rule{ID: fmt.Sprintf("A-A-%03d", i+1)}, State: StateFailed, Message: "m"})
	}
	b.Reset()
	WriteAnnotations(&b, exact)
	if strings.Contains(b.String(), "more rules failed") || strings.Count(b.String(), "::error ") != MaxAnnotations {
		t.Errorf("at exactly %d failures:\n%s", MaxAnnotations, b.String())
	}
}

// TestSummaryStoppedAndCounts: a stopped run's console summary counts the
// rules the stop skipped in one line and names the others; the JUnit
// report counts failures and skipped cases and gives a MUST rule's spec.
func TestSummaryStoppedAndCounts(t *testing.T) {
	const stop = "the run deadline passed (--run-timeout 1s)"
	cite := rule.Citation{Section: "4.5", Quote: "q"}
	s := &Summary{Stopped: stop, FailOnSkip: true, Rules: []RuleResult{
		{Rule: rule.Rule{ID: "A-A-001", Text: "t1"}, State: StateSkipped, Message: stop + "\nmore"},
		{Rule: rule.Rule{ID: "A-A-002", Text: "t2"}, State: StateSkipped, Message: "judged no case"},
		{Rule: rule.Rule{ID: "A-A-003", Text: "t3", Cite: cite}, State: StateFailed},
		{Rule: rule.Rule{ID: "A-A-004", Text: "t4", Strict: true}, State: StatePassed},
	}}
	var b bytes.Buffer
	WriteSummary(&b, s)
	out := b.String()
	for _, want := range []string{
		"  SKIPPED 1 rules: " + stop + "\n",
		"  SKIPPED A-A-002 MUST  : t2 (judged no case)\n",
		`  FAILED  A-A-003 MUST  : t3 [spec §4.5: "q"]` + "\n",
		"Verdict: FAILED (the run stopped: " + stop + ")\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "A-A-001") {
		t.Error("a rule the stop skipped has a line of its own")
	}
	if (&Summary{FailOnSkip: true, Rules: []RuleResult{{State: StatePassed}}}).Passed() != true {
		t.Error("--fail-on-skip fails a run with nothing skipped")
	}
	var junit bytes.Buffer
	WriteJUnit(&junit, s)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Props []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Skipped != 2 {
		t.Errorf("JUnit counts %d tests, %d failures, %d skipped; want 4, 1, 2", doc.Tests, doc.Failures, doc.Skipped)
	}
	specs := 0
	for _, c := range doc.Suites[0].Cases {
		for _, p := range c.Props {
			if p.Name == "spec" {
				specs++
				if p.Value != `spec §4.5: "q"` {
					t.Errorf("spec property %q", p.Value)
				}
			}
		}
	}
	if specs != 1 {
		t.Errorf("%d cases give the spec, want the one MUST rule that cites it", specs)
	}
}
