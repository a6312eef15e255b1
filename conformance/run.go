package conformance

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chaindata/harness/conformance/answerrules"
	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/modelrules"
	"github.com/chaindata/harness/conformance/pagedrules"
	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/conformance/txrules"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/extensions/globals"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// The suite's rules, declared with Ginkgo when the package is initialised.
var _ = declareSuite()

// declareSuite declares the suite's top-level nodes with Ginkgo, in the
// order of the files that define them.
func declareSuite() bool {
	rule.DeclareDeadline()
	rule.Scope(rule.DeploymentLabel, SpecPriority(-1), answerrules.DeploymentRules)
	modelrules.DeclareModelRules()
	pagedrules.DeclarePagedRules()
	rule.Scope("transactions", Ordered, ContinueOnFailure, txrules.TransactionsRules)
	modelrules.DeclareRelationRules()
	return true
}

// suiteMu serialises what uses Ginkgo's global suite: a Run, and the
// preview of Rules.
var suiteMu sync.Mutex

// resetSuite gives Ginkgo a suite of the rules alone, never run: RunSpecs
// runs a suite once, and a run leaves its report node in the suite.
func resetSuite() {
	globals.Reset()
	declareSuite()
}

// setActiveConfig sets the configuration the specs read, before RunSpecs,
// by Run or by the go test entry point, with the run's traffic, growth
// walks and observer afresh (the observer only when the label filter
// selects a rule that reads it).
func setActiveConfig(cfg config.Config, labelFilter string) {
	rule.SetActive(cfg)
	modelrules.ResetGrowth()
	modelrules.ResetRelations()
	modelrules.StartObserving(labelFilter, modelrules.CurrentRelations())
}

// RunOptions says how Run reports.
type RunOptions struct {
	// JUnitFile, when set, receives a JUnit XML report with one test case
	// per rule, named by its ID.
	JUnitFile string
	// JSONReportFile, when set, receives Ginkgo's JSON report (each rule's
	// ID is among its labels; its level, citation and cases judged are
	// report entries).
	JSONReportFile string
	// HTMLReportFile, when set, receives one self-contained HTML page.
	HTMLReportFile string
	// LabelFilter selects rules by label, in Ginkgo's syntax (for example
	// "games && pagination", "!strict", "GAMES-PAG-003").
	LabelFilter string
	// Waivers excuse known failures (see LoadWaivers). Expired waivers are
	// not applied and fail the run.
	Waivers []rule.Waiver
	// FailOnSkip makes a skipped rule fail the run.
	FailOnSkip bool
	// Verbose prints every rule as it runs, not only the failures.
	Verbose bool
	// NoColor writes the console report without colour; it has none
	// anyway when Output is not a terminal (the NO_COLOR convention:
	// harness conform sets it when NO_COLOR is set and not empty).
	NoColor bool
	// Output receives Ginkgo's report and the summary; nil means standard
	// output.
	Output io.Writer
}

var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// ginkgoT is the GinkgoTestingT of a run outside go test.
type ginkgoT struct{ failed bool }

func (t *ginkgoT) Fail() { t.failed = true }

// Run runs the suite against the deployment cfg names and returns its
// summary; the run passes when Summary.Passed says so. Ginkgo holds one
// suite per process and runs it once, so each Run declares the rules
// afresh in Ginkgo's reset globals (any other top-level node is dropped):
// Run may be called again, one call at a time (a call waits for the one
// under way to return). An error means the suite could not run (bad
// configuration: no summary), the preflight found no deployment to check
// (a *PreflightError, with a summary whose rules are all skipped, and the
// reports written), or a report could not be written; failed rules are
// not errors.
//
// Before any rule, a preflight asks each URL for one row (see preflight),
// so that a closed port or a wrong address is said in one line within
// seconds. The whole run, preflight included, ends at Config.RunTimeout:
// the rules not yet judged then are skipped and the summary says it
// stopped.
func Run(cfg config.Config, opts RunOptions) (*report.Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	if err := CheckLabelFilter(opts.LabelFilter); err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	suiteMu.Lock()
	defer suiteMu.Unlock()
	// The examples of earlier runs (--examples) are asked first; the
	// failing queries of this one are saved with them at its end.
	if err := modelrules.LoadExamples(cfg.Examples); err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	resetSuite()
	rules, err := previewRules()
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	if err := CheckLabelFilterSelects(opts.LabelFilter, rules); err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	if err := checkWaivers(opts.Waivers, rules); err != nil {
		return nil, fmt.Errorf("conformance: waivers: %w", err)
	}
	started := time.Now()
	setActiveConfig(cfg, opts.LabelFilter)
	defer client.Current().Stop()
	rule.SetWaivers(opts.Waivers, started)
	out := opts.Output
	if out == nil {
		out = os.Stdout
	}
	// The default reporter writes to formatter.ColorableStdOut, here
	// without its header and final count (ginkgoConsole).
	console := &ginkgoConsole{out: out}
	prevOut := formatter.ColorableStdOut
	formatter.ColorableStdOut = console
	defer func() { formatter.ColorableStdOut = prevOut }()

	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.LabelFilter = opts.LabelFilter
	suiteConfig.FocusStrings, suiteConfig.SkipStrings = nil, nil
	// Ginkgo's own timeout is a backstop only: the run deadline ends the
	// run first, in the words of the summary.
	suiteConfig.Timeout = cfg.WithDefaults().RunTimeout + time.Minute
	suiteConfig.RandomizeAllSpecs = false
	// Ginkgo orders the top-level containers by its seed: the suite's
	// seed, so that a seed repeats the order as well as the queries, and
	// a run has one seed.
	suiteConfig.RandomSeed = cfg.WithDefaults().Seed
	reporterConfig.NoColor = opts.NoColor || !terminal(out)
	reporterConfig.Verbose = opts.Verbose
	reporterConfig.Succinct = false
	reporterConfig.JUnitReport, reporterConfig.JSONReport = "", ""

	summary := &report.Summary{
		BaseURL: cfg.BaseURL, TransactionsURL: cfg.WithDefaults().TransactionsURL,
		LabelFilter: opts.LabelFilter, Started: started, FailOnSkip: opts.FailOnSkip,
		ExpiredWaivers: ExpiredWaivers(opts.Waivers, started),
		Seed:           cfg.WithDefaults().Seed, Queries: cfg.WithDefaults().Queries,
	}
	if err := preflight(cfg, transactionsSelected(rules, opts.LabelFilter)); err != nil {
		return summary, stopBeforeRules(summary, rules, opts, err)
	}
	modelrules.ResetModelReports()
	var reportErr error
	ReportAfterSuite("conformance reports", func(r Report) {
		summary.Duration = time.Since(started)
		summary.Traffic = client.CurrentTraffic()
		summary.Rules = ruleResults(rules, r)
		summary.Model = modelrules.CurrentModelReports()
		summary.Stopped = deadlineStop(summary.Rules)
		summary.UnmatchedWaivers = report.FindUnmatchedWaivers(opts.Waivers, summary.Rules, started)
		reportErr = writeReports(r, summary, opts)
	})
	RegisterFailHandler(rule.FailRule)
	t := &ginkgoT{}
	RunSpecs(t, rule.SuiteDescription, suiteConfig, reporterConfig)
	console.Flush()
	reportErr = errors.Join(reportErr, modelrules.SaveExamples(cfg.Examples))
	report.WriteSummary(out, summary)
	if reportErr != nil {
		return summary, reportErr
	}
	return summary, nil
}

// stopBeforeRules ends a run whose preflight failed with err: every
// selected rule is skipped with err's message, the reports are written,
// and err is returned (with any error writing them).
func stopBeforeRules(s *report.Summary, rules []rule.Rule, opts RunOptions, err error) error {
	s.Stopped = err.Error()
	s.Duration = time.Since(s.Started)
	s.Traffic = client.CurrentTraffic()
	s.Rules = make([]report.RuleResult, len(rules))
	for i, r := range rules {
		s.Rules[i] = report.RuleResult{Rule: r, State: report.StateNotRun}
		if rule.Selected(r.Labels, opts.LabelFilter) {
			s.Rules[i].State, s.Rules[i].Message = report.StateSkipped, s.Stopped
		}
	}
	r := Report{
		SuiteDescription: rule.SuiteDescription, SuiteSucceeded: false,
		SpecialSuiteFailureReasons: []string{s.Stopped},
		StartTime:                  s.Started, EndTime: s.Started.Add(s.Duration), RunTime: s.Duration,
	}
	return errors.Join(err, writeReports(r, s, opts))
}

// deadlineStop returns the run deadline's message when the deadline
// skipped a rule, else "".
func deadlineStop(results []report.RuleResult) string {
	t := client.Current()
	if !t.Expired() {
		return ""
	}
	msg := t.DeadlineMessage()
	for _, r := range results {
		if r.State == report.StateSkipped && report.FirstLine(r.Message) == msg {
			return msg
		}
	}
	return ""
}

// ruleResults reads each rule's outcome from Ginkgo's report.
func ruleResults(rules []rule.Rule, r Report) []report.RuleResult {
	byID := map[string]types.SpecReport{}
	for _, s := range r.SpecReports {
		if s.LeafNodeType == types.NodeTypeIt {
			byID[rule.ID(s.Labels())] = s
		}
	}
	out := make([]report.RuleResult, len(rules))
	for i, rl := range rules {
		res := report.RuleResult{Rule: rl, State: report.StateNotRun}
		s, ok := byID[rl.ID]
		if ok {
			res.Duration = s.RunTime
			for _, e := range s.ReportEntries {
				switch e.Name {
				case rule.EntryOutcome:
					var o rule.Outcome
					if entryValue(e, &o) {
						res.Want, res.Cases = o.Want, o.Cases
					}
				case rule.EntryWaived:
					var w rule.Waiver
					if entryValue(e, &w) {
						res.Waiver = &w
					}
				case rule.EntryProblems:
					var ps []rule.Problem
					if entryValue(e, &ps) {
						res.Problems = ps
					}
				}
			}
			res.Message = s.Failure.Message
			switch {
			case s.State.Is(types.SpecStateFailureStates):
				res.State = report.StateFailed
			case s.State == types.SpecStatePassed:
				res.State = report.StatePassed
			case s.State == types.SpecStateSkipped && res.Waiver != nil:
				res.State = report.StateWaived
			case s.State == types.SpecStateSkipped && s.Failure.Message != "":
				res.State = report.StateSkipped
			}
		}
		out[i] = res
	}
	return out
}

// entryValue reads a report entry's value into dst: the value itself in
// the process that added it, else its JSON.
func entryValue[T any](e types.ReportEntry, dst *T) bool {
	if v, ok := e.GetRawValue().(T); ok {
		*dst = v
		return true
	}
	return json.Unmarshal([]byte(e.Value.AsJSON), dst) == nil && e.Value.AsJSON != ""
}

// writeReports writes the reports opts asks for. The JSON report is
// Ginkgo's, with the suite's verdict: it fails with the run, and says why
// beyond failed rules (the run stopped, a waiver expired, --fail-on-skip).
func writeReports(r Report, s *report.Summary, opts RunOptions) error {
	var errs []error
	r.SuiteSucceeded = r.SuiteSucceeded && s.Passed()
	r.SpecialSuiteFailureReasons = append(slices.Clone(r.SpecialSuiteFailureReasons), specialReasons(s, r.SpecialSuiteFailureReasons)...)
	if opts.JSONReportFile != "" {
		// Ginkgo's JSON report, written as reporters.GenerateJSONReport
		// writes it, through writeFile: a failed write leaves the
		// previous report intact.
		if err := writeFile(opts.JSONReportFile, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode([]types.Report{r})
		}); err != nil {
			errs = append(errs, fmt.Errorf("write JSON report: %w", err))
		}
	}
	if opts.JUnitFile != "" {
		if err := writeFile(opts.JUnitFile, func(w io.Writer) error { return report.WriteJUnit(w, s) }); err != nil {
			errs = append(errs, fmt.Errorf("write JUnit report: %w", err))
		}
	}
	if opts.HTMLReportFile != "" {
		if err := writeFile(opts.HTMLReportFile, func(w io.Writer) error { return report.WriteHTMLReport(w, s) }); err != nil {
			errs = append(errs, fmt.Errorf("write HTML report: %w", err))
		}
	}
	return errors.Join(errs...)
}

// specialReasons says why the run fails beyond its failed rules, one
// reason a line, for the JSON report: those not among the given ones.
func specialReasons(s *report.Summary, given []string) []string {
	var out []string
	if s.Stopped != "" && !slices.Contains(given, s.Stopped) {
		out = append(out, s.Stopped)
	}
	for _, w := range s.ExpiredWaivers {
		out = append(out, fmt.Sprintf("the waiver of %s expired %s", w.Rule, w.Expires))
	}
	if c := s.Counts(); s.FailOnSkip && c.Skipped > 0 {
		out = append(out, fmt.Sprintf("%d rules skipped (--fail-on-skip)", c.Skipped))
	}
	return out
}

// writeFile writes a report to a temporary file beside path and renames it
// into place, so that a failed write leaves the previous report intact;
// the directory is made when missing.
func writeFile(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// A report may go into a directory of its own (reports/junit.xml).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil { // CreateTemp makes 0600; a report is for others to read
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// terminal reports whether a writer is a terminal (isTerminal); tests
// replace it.
var terminal = isTerminal

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Rules lists the suite's rules without running them: by listing (in the
// order of Listings, then the deployment's), each listing's rules in the
// order they are defined. It leaves Ginkgo's configuration as it found it,
// and waits for a Run under way to end.
func Rules() ([]rule.Rule, error) {
	suiteMu.Lock()
	defer suiteMu.Unlock()
	return previewRules()
}

// previewRules is Rules, called with suiteMu held.
func previewRules() ([]rule.Rule, error) {
	saved, savedReporter := GinkgoConfiguration()
	suiteConfig, reporterConfig := saved, savedReporter
	suiteConfig.LabelFilter = ""
	suiteConfig.FocusStrings, suiteConfig.SkipStrings = nil, nil
	suiteConfig.FocusFiles, suiteConfig.SkipFiles = nil, nil
	report := PreviewSpecs(rule.SuiteDescription, suiteConfig, reporterConfig)
	// PreviewSpecs keeps the configuration it is given; give back the one
	// the caller (go test's flags, or Run) set.
	defer PreviewSpecs(rule.SuiteDescription, saved, savedReporter)
	var rules []rule.Rule
	var problems []string
	for _, s := range report.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		r := rule.Rule{Text: ruleText(s), Labels: s.Labels(), ID: rule.ID(s.Labels())}
		for _, l := range r.Labels {
			switch {
			case slices.Contains(rule.Scopes(), l):
				r.Listing = l
			case slices.Contains(rule.Areas, l):
				r.Area = l
			case l == rule.StrictLabel:
				r.Strict = true
			}
		}
		if m, ok := rule.MetaOf(r.ID); ok {
			r.Cite = m.Level.Cite
			if m.Level.Strict != r.Strict {
				problems = append(problems, fmt.Sprintf("rule %s: its strict label disagrees with its level", r.ID))
			}
		}
		if r.Listing == "" || r.Area == "" {
			problems = append(problems, fmt.Sprintf("rule %q lacks a listing or area label (labels %v)", r.Text, r.Labels))
		}
		rules = append(rules, r)
	}
	// Ginkgo shuffles top-level containers; the catalogue lists the
	// listings in a fixed order, each listing's rules as they are defined.
	order := rule.Scopes()
	// A listing's model, growth and relation rules live in containers of
	// their own, which may come before or after its other container: they
	// are listed last, in that order.
	late := func(r rule.Rule) int {
		switch r.Area {
		case "model":
			return 1
		case "growth":
			return 2
		case "relations":
			return 3
		}
		return 0
	}
	slices.SortStableFunc(rules, func(a, b rule.Rule) int {
		if d := slices.Index(order, a.Listing) - slices.Index(order, b.Listing); d != 0 {
			return d
		}
		return late(a) - late(b)
	})
	if len(problems) > 0 {
		return rules, errors.New(strings.Join(problems, "; "))
	}
	return rules, nil
}

// ruleText is a spec's text without the listing and area containers, which
// the catalogue shows in their own columns.
func ruleText(s types.SpecReport) string {
	parts := append(slices.Clone(s.ContainerHierarchyTexts), s.LeafNodeText)
	var kept []string
	for _, p := range parts {
		if slices.Contains(rule.Scopes(), p) || slices.Contains(rule.Areas, p) {
			continue
		}
		kept = append(kept, p)
	}
	return strings.Join(kept, " ")
}

// WriteCatalogue writes the rule catalogue (docs/conformance-rules.md) as
// Markdown.
func WriteCatalogue(w io.Writer, rules []rule.Rule) error {
	var b strings.Builder
	must := 0
	for _, r := range rules {
		if !r.Strict {
			must++
		}
	}
	md := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("# Conformance rules\n\n")
	b.WriteString("Generated from the suite by `harness conform --list` (or `go test ./conformance -run TestRuleCatalogue -update`); do not edit.\n\n")
	fmt.Fprintf(&b, "%d rules: %d MUST (the spec states them; each cites the spec text it rests on), %d SHOULD (only docs/behaviour.md decides them; label `strict`, skipped by `--label-filter '!strict'`).\n", len(rules), must, len(rules)-must)
	fmt.Fprintf(&b, "The spec is the API's specification, the document titled %s, which is not part of this repository: a section number (§4.5) is one of its sections, and each MUST rule quotes the clause it rests on (the Spec column), so that it can be followed without the spec at hand.\n", report.SpecName)
	b.WriteString("Each rule is one Ginkgo spec labelled with its ID, listing and area; select with `--label-filter`, e.g. `'games && epochs'` or `'GAMES-EPO-001'`.\n")
	b.WriteString("An ID never changes once published and is never reused: waivers and CI history can rely on it.\n\n")
	b.WriteString("| ID | Listing | Area | Level | Rule | Spec |\n|---|---|---|---|---|---|\n")
	for _, r := range rules {
		cite := ""
		if r.Cite.Section != "" {
			cite = r.Cite.Clause()
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.ID, r.Listing, r.Area, r.Level(), md(r.Text), md(cite))
	}
	if retired := rule.RetiredRules(); len(retired) > 0 {
		b.WriteString("\n## Retired rules\n\nTheir IDs stay reserved and are never given to another rule.\n\n| ID | Listing | Area | Rule |\n|---|---|---|---|\n")
		for _, e := range retired {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", e.ID, e.Scope, e.Area, md(e.Text))
		}
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write catalogue: %w", err)
	}
	return nil
}
