package conformance

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// SuiteDescription is the suite's name in reports.
const SuiteDescription = "Chain data query API conformance"

// Listings and Areas are the labels every rule carries one of each.
var (
	Listings = []string{"games", "snapshots", "key-rotations", "network-parameters", "transactions"}
	Areas    = []string{"schema", "pagination", "filters", "epochs", "errors"}
)

// StrictLabel marks the rules that only docs/behaviour.md decides (SHOULD);
// the others are the spec's (MUST).
const StrictLabel = "strict"

// active is the configuration the specs read. It is set once, before
// RunSpecs, by Run or by the go test entry point.
var (
	activeMu sync.Mutex
	active   Config
)

func setActiveConfig(cfg Config) {
	activeMu.Lock()
	defer activeMu.Unlock()
	active = cfg.withDefaults()
	configureTraffic(active)
}

func activeConfig() Config {
	activeMu.Lock()
	defer activeMu.Unlock()
	return active
}

// RunOptions says how Run reports.
type RunOptions struct {
	// JUnitFile, when set, receives a JUnit XML report with one test case
	// per rule.
	JUnitFile string
	// JSONReportFile, when set, receives Ginkgo's JSON report.
	JSONReportFile string
	// LabelFilter selects rules by label, in Ginkgo's syntax (for example
	// "games && pagination", "!strict").
	LabelFilter string
	// Verbose prints every rule as it runs, not only the failures.
	Verbose bool
	// Output receives Ginkgo's report; nil means standard output.
	Output io.Writer
}

// CheckLabelFilter reports whether a label filter parses.
func CheckLabelFilter(filter string) error {
	if filter == "" {
		return nil
	}
	if _, err := types.ParseLabelFilter(filter); err != nil {
		// Ginkgo colours its message for a terminal.
		msg := ansiEscape.ReplaceAllString(err.Error(), "")
		return fmt.Errorf("label filter %q: %s", filter, strings.Join(strings.Fields(msg), " "))
	}
	return nil
}

var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// ginkgoT is the GinkgoTestingT of a run outside go test.
type ginkgoT struct{ failed bool }

func (t *ginkgoT) Fail() { t.failed = true }

// Run runs the suite against the deployment cfg names and reports whether
// every selected rule passed. Ginkgo runs a suite once per process, so Run
// may be called once. An error means the suite could not run (bad
// configuration); failed rules are not errors.
func Run(cfg Config, opts RunOptions) (bool, error) {
	if err := cfg.Validate(); err != nil {
		return false, fmt.Errorf("conformance: %w", err)
	}
	if err := CheckLabelFilter(opts.LabelFilter); err != nil {
		return false, fmt.Errorf("conformance: %w", err)
	}
	setActiveConfig(cfg)
	out := opts.Output
	if out == nil {
		out = os.Stdout
	}
	// The default reporter writes to formatter.ColorableStdOut.
	prevOut := formatter.ColorableStdOut
	formatter.ColorableStdOut = out
	defer func() { formatter.ColorableStdOut = prevOut }()

	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.LabelFilter = opts.LabelFilter
	suiteConfig.Timeout = 2 * time.Hour
	suiteConfig.RandomizeAllSpecs = false
	reporterConfig.NoColor = !isTerminal(out)
	reporterConfig.Verbose = opts.Verbose
	reporterConfig.Succinct = false
	reporterConfig.JUnitReport, reporterConfig.JSONReport = "", ""

	if opts.JUnitFile != "" || opts.JSONReportFile != "" {
		ReportAfterSuite("conformance reports", func(r Report) {
			if err := writeReports(r, opts); err != nil {
				Fail(err.Error())
			}
		})
	}
	RegisterFailHandler(Fail)
	t := &ginkgoT{}
	passed := RunSpecs(t, SuiteDescription, suiteConfig, reporterConfig)
	return passed && !t.failed, nil
}

func writeReports(r Report, opts RunOptions) error {
	if opts.JSONReportFile != "" {
		if err := reporters.GenerateJSONReport(r, opts.JSONReportFile); err != nil {
			return fmt.Errorf("write JSON report %s: %w", opts.JSONReportFile, err)
		}
	}
	if opts.JUnitFile != "" {
		err := reporters.GenerateJUnitReportWithConfig(r, opts.JUnitFile, reporters.JunitReportConfig{
			OmitSuiteSetupNodes: true,
			OmitLeafNodeType:    true,
		})
		if err != nil {
			return fmt.Errorf("write JUnit report %s: %w", opts.JUnitFile, err)
		}
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Rule is one rule of the suite, as the catalogue lists it.
type Rule struct {
	// ID is the rule's stable ID, such as "GAMES-PAG-003": published once,
	// never changed, never reused.
	ID string
	// Listing and Area are the rule's listing (or DeploymentLabel) and
	// area labels.
	Listing, Area string
	// Cite is the spec text a MUST rule rests on (zero for SHOULD rules).
	Cite Citation
	// Strict is true for rules only docs/behaviour.md decides (SHOULD).
	Strict bool
	// Text is the rule's full text: its containers and its own sentence.
	Text string
	// Labels are all the rule's labels.
	Labels []string
}

// Level is "MUST" for the spec's rules and "SHOULD" for strict ones.
func (r Rule) Level() string {
	if r.Strict {
		return "SHOULD"
	}
	return "MUST"
}

// Rules lists the suite's rules without running them: by listing (in the
// order of Listings), each listing's rules in the order they are defined.
func Rules() ([]Rule, error) {
	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.LabelFilter = ""
	suiteConfig.FocusStrings, suiteConfig.SkipStrings = nil, nil
	suiteConfig.FocusFiles, suiteConfig.SkipFiles = nil, nil
	report := PreviewSpecs(SuiteDescription, suiteConfig, reporterConfig)
	var rules []Rule
	var problems []string
	for _, s := range report.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		r := Rule{Text: ruleText(s), Labels: s.Labels()}
		for _, l := range r.Labels {
			switch {
			case slices.Contains(Listings, l):
				r.Listing = l
			case slices.Contains(Areas, l):
				r.Area = l
			case l == StrictLabel:
				r.Strict = true
			}
		}
		if r.Listing == "" || r.Area == "" {
			problems = append(problems, fmt.Sprintf("rule %q lacks a listing or area label (labels %v)", r.Text, r.Labels))
		}
		rules = append(rules, r)
	}
	// Ginkgo shuffles top-level containers; the catalogue lists the
	// listings in a fixed order, each listing's rules as they are defined.
	slices.SortStableFunc(rules, func(a, b Rule) int {
		return slices.Index(Listings, a.Listing) - slices.Index(Listings, b.Listing)
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
		if slices.Contains(Listings, p) || slices.Contains(Areas, p) {
			continue
		}
		kept = append(kept, p)
	}
	return strings.Join(kept, " ")
}

// WriteCatalogue writes the rule catalogue (docs/conformance-rules.md) as
// Markdown.
func WriteCatalogue(w io.Writer, rules []Rule) error {
	var b strings.Builder
	must := 0
	for _, r := range rules {
		if !r.Strict {
			must++
		}
	}
	b.WriteString("# Conformance rules\n\n")
	b.WriteString("Generated from the suite by `harness conform --list` (or `go test ./conformance -run TestRuleCatalogue -update`); do not edit.\n\n")
	fmt.Fprintf(&b, "%d rules: %d MUST (the spec states them), %d SHOULD (only docs/behaviour.md decides them; label `strict`, skipped by `--label-filter '!strict'`).\n", len(rules), must, len(rules)-must)
	b.WriteString("Each rule is one Ginkgo spec labelled with its listing and area; select with `--label-filter`, e.g. `'games && epochs'`.\n\n")
	b.WriteString("| # | Listing | Area | Level | Rule |\n|---|---|---|---|---|\n")
	for i, r := range rules {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", i+1, r.Listing, r.Area, r.Level(), strings.ReplaceAll(r.Text, "|", `\|`))
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write catalogue: %w", err)
	}
	return nil
}
