package main

import (
	"context"
	"fmt"

	"github.com/chaindata/harness/conformance"
)

// runConform runs the conformance suite against a deployment: exit 0 when
// every selected rule passes, 1 when a rule fails, 2 on a usage error.
func runConform(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "conform", "--base-url URL [--junit FILE] [--label-filter EXPR] [flags]")
	var cfg conformance.Config
	conformance.RegisterFlags(fs, &cfg)
	var opts conformance.RunOptions
	fs.StringVar(&opts.JUnitFile, "junit", "", "write a JUnit XML report, one test case per rule, to `FILE`")
	fs.StringVar(&opts.JSONReportFile, "json-report", "", "write Ginkgo's JSON report to `FILE`")
	fs.StringVar(&opts.HTMLReportFile, "html-report", "", "write a self-contained HTML report for people to `FILE`")
	waivers := fs.String("waivers", "", "excuse known failures listed in `FILE` (YAML or JSON: rule ID, reason, expires)")
	fs.BoolVar(&opts.FailOnSkip, "fail-on-skip", false, "fail the run when a rule is skipped (a skipped rule is never a pass)")
	fs.StringVar(&opts.LabelFilter, "label-filter", "", "run only the rules whose labels match `EXPR`, e.g. 'games && pagination' or '!strict' (the spec alone)")
	fs.BoolVar(&opts.Verbose, "v", false, "report every rule as it runs, not only failures")
	list := fs.Bool("list", false, "print the rule catalogue (Markdown, as in docs/conformance-rules.md) and exit")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	}
	if *list {
		rules, err := conformance.Rules()
		if err == nil {
			err = conformance.WriteCatalogue(e.stdout, rules)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "harness conform: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	if err := cfg.Validate(); err != nil {
		return usageError(e.stderr, fs, "%v", err)
	}
	if err := conformance.CheckLabelFilter(opts.LabelFilter); err != nil {
		return usageError(e.stderr, fs, "%v", err)
	}
	if *waivers != "" {
		ws, err := conformance.LoadWaivers(*waivers)
		if err != nil {
			return usageError(e.stderr, fs, "%v", err)
		}
		opts.Waivers = ws
	}
	opts.Output = e.stdout
	summary, err := conformance.Run(cfg, opts)
	if err != nil && summary == nil {
		fmt.Fprintf(e.stderr, "harness conform: %v\n", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "harness conform: %v\n", err)
		return exitFailure
	}
	if !summary.Passed() {
		c := summary.Counts()
		why := fmt.Sprintf("%d rules failed", c.Failed)
		if n := len(summary.ExpiredWaivers); n > 0 {
			why += fmt.Sprintf(", %d waivers expired", n)
		}
		if summary.FailOnSkip && c.Skipped > 0 {
			why += fmt.Sprintf(", %d rules skipped (--fail-on-skip)", c.Skipped)
		}
		fmt.Fprintf(e.stderr, "harness conform: %s\n", why)
		return exitFailure
	}
	return exitOK
}
