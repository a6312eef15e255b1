package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/internal/quote"
)

// junitSuites is the JUnit XML document: one suite, one test case per rule.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Failure    *junitMessage   `xml:"failure,omitempty"`
	Skipped    *junitMessage   `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the run as JUnit XML: one test case per rule, named
// "<ID> <listing> <area>: <rule>", with its level, spec citation and the
// cases it judged as properties. A waived failure is a skipped case whose
// message says so; a rule the label filter left out is a skipped case too.
func WriteJUnit(w io.Writer, s *Summary) error {
	suite := junitSuite{
		Name:      rule.SuiteDescription,
		Time:      seconds(s.Duration.Seconds()),
		Timestamp: s.Started.UTC().Format("2006-01-02T15:04:05"),
		Properties: []junitProperty{
			{"base-url", s.BaseURL},
			{"transactions-url", s.TransactionsURL},
			{"label-filter", s.LabelFilter},
			{"requests", strconv.Itoa(s.Traffic.Requests)},
			{"retries", strconv.Itoa(s.Traffic.Retries)},
			{"seed", strconv.FormatInt(s.Seed, 10)},
			{"queries", strconv.Itoa(s.Queries)},
		},
	}
	for _, w := range s.ExpiredWaivers {
		suite.Properties = append(suite.Properties, junitProperty{"expired-waiver", fmt.Sprintf("%s (expired %s: %s)", w.Rule, w.Expires, w.Reason)})
	}
	for _, u := range s.UnmatchedWaivers {
		suite.Properties = append(suite.Properties, junitProperty{"unused-waiver", fmt.Sprintf("%s (until %s: %s): %s", u.Rule, u.Expires, u.Reason, u.Why)})
	}
	if out := waiverLines(s); out != "" {
		suite.SystemOut = out
	}
	for _, r := range s.Rules {
		c := junitCase{
			Name:      fmt.Sprintf("%s %s %s: %s", r.ID, r.Listing, r.Area, r.Text),
			Classname: r.Listing,
			Time:      seconds(r.Duration.Seconds()),
			Properties: []junitProperty{
				{"id", r.ID},
				{"level", r.Level()},
				{"cases", strconv.Itoa(r.Cases)},
			},
		}
		if r.Cite.Section != "" {
			c.Properties = append(c.Properties, junitProperty{"spec", r.Cite.String()})
		}
		switch r.State {
		case StateFailed:
			c.Failure = &junitMessage{Message: "rule broken: " + r.Want, Type: "failed", Text: r.Message}
			suite.Failures++
		case StateWaived:
			c.Skipped = &junitMessage{Message: fmt.Sprintf("waived until %s: %s", r.Waiver.Expires, r.Waiver.Reason), Text: r.Message}
			suite.Skipped++
		case StateSkipped:
			c.Skipped = &junitMessage{Message: FirstLine(r.Message), Text: r.Message}
			suite.Skipped++
		case StateNotRun:
			c.Skipped = &junitMessage{Message: "not selected by the label filter"}
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Tests = len(suite.Cases)
	printable(&suite)
	doc := junitSuites{Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write JUnit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JUnit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// waiverLines says, a line each, which waivers expired or excused nothing,
// for the suite's system-out; "" when none did.
func waiverLines(s *Summary) string {
	var b strings.Builder
	for _, w := range s.ExpiredWaivers {
		fmt.Fprintf(&b, "EXPIRED waiver of %s (expired %s: %s): not applied; the run fails\n", w.Rule, w.Expires, w.Reason)
	}
	for _, u := range s.UnmatchedWaivers {
		fmt.Fprintf(&b, "UNUSED waiver of %s (until %s: %s) excused nothing: %s\n", u.Rule, u.Expires, u.Reason, u.Why)
	}
	return b.String()
}

// printable escapes the bytes that are not UTF-8 in every text of the
// suite: encoding/xml would write each as U+FFFD, losing which bytes the
// deployment sent.
func printable(suite *junitSuite) {
	props := func(ps []junitProperty) {
		for i := range ps {
			ps[i].Name, ps[i].Value = quote.Printable(ps[i].Name), quote.Printable(ps[i].Value)
		}
	}
	msg := func(m *junitMessage) {
		if m != nil {
			m.Message, m.Text = quote.Printable(m.Message), quote.Printable(m.Text)
		}
	}
	props(suite.Properties)
	suite.SystemOut = quote.Printable(suite.SystemOut)
	for i := range suite.Cases {
		c := &suite.Cases[i]
		c.Name, c.Classname = quote.Printable(c.Name), quote.Printable(c.Classname)
		props(c.Properties)
		msg(c.Failure)
		msg(c.Skipped)
	}
}

func seconds(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }
