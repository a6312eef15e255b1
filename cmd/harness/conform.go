package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/chaindata/harness/conformance"
	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	suitereport "github.com/chaindata/harness/conformance/report"
)

// conformArgs is what the command line and the environment ask of
// harness conform.
type conformArgs struct {
	cfg  config.Config
	opts conformance.RunOptions
	list bool
}

// parseConform reads harness conform's flags and environment variables (a
// flag wins over its variable). A code of -1 means go on; any other is the
// exit code.
func parseConform(e *env, args []string) (conformArgs, int) {
	fs := newFlagSet(e, "conform", "--base-url URL [--junit FILE] [--label-filter EXPR] [flags]")
	var a conformArgs
	config.RegisterFlags(fs, &a.cfg)
	fs.StringVar(&a.opts.JUnitFile, "junit", "", "write a JUnit XML report, one test case per rule, to `FILE`")
	fs.StringVar(&a.opts.JSONReportFile, "json-report", "", "write Ginkgo's JSON report to `FILE`")
	fs.StringVar(&a.opts.LabelFilter, "label-filter", "", "run only the rules whose labels match `EXPR`, e.g. 'games && pagination' or '!strict' (the spec alone; env "+config.EnvLabelFilter+")")
	fs.StringVar(&a.opts.HTMLReportFile, "html-report", "", "write a self-contained HTML report for people to `FILE`")
	waivers := fs.String("waivers", "", "excuse known failures listed in `FILE` (YAML or JSON: rule ID, reason, expires)")
	fs.BoolVar(&a.opts.FailOnSkip, "fail-on-skip", false, "fail the run when a rule is skipped (a skipped rule is never a pass)")
	fs.BoolVar(&a.opts.Verbose, "v", false, "report every rule as it runs, not only failures")
	fs.BoolVar(&a.list, "list", false, "print the rule catalogue (Markdown, as in docs/conformance-rules.md) and exit")
	// The environment first, so that the flags parsed next win.
	if err := checkSchemes(config.EnvBaseURL, e.lookupEnv(config.EnvBaseURL),
		config.EnvTransactionsURL, e.lookupEnv(config.EnvTransactionsURL)); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	if err := a.cfg.ApplyEnv(e.lookupEnv); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	if v := e.lookupEnv(config.EnvLabelFilter); v != "" {
		a.opts.LabelFilter = v
	}
	// NO_COLOR (no-color.org): set and not empty, no colour.
	a.opts.NoColor = e.lookupEnv("NO_COLOR") != ""
	if code := parseFlags(fs, args); code >= 0 {
		return a, code
	}
	if fs.NArg() > 0 {
		return a, usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	}
	if a.list {
		return a, -1
	}
	if err := checkSchemes("--base-url", a.cfg.BaseURL, "--transactions-url", a.cfg.TransactionsURL); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	if err := a.cfg.Validate(); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	if err := checkLabelFilter(a.opts.LabelFilter); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	if *waivers != "" {
		ws, err := conformance.LoadWaivers(*waivers)
		if err != nil {
			return a, usageError(e.stderr, fs, "%v", err)
		}
		a.opts.Waivers = ws
	}
	return a, -1
}

// checkLabelFilter refuses a label filter that does not parse, names a
// label no rule carries, or selects no rule.
func checkLabelFilter(filter string) error {
	if err := conformance.CheckLabelFilter(filter); err != nil || filter == "" {
		return err
	}
	rules, err := conformance.Rules()
	if err != nil {
		return err
	}
	return conformance.CheckLabelFilterSelects(filter, rules)
}

// runConform runs the conformance suite against a deployment: exit 0 when
// every selected rule passes, 1 when a rule fails, 2 on a usage error.
func runConform(_ context.Context, e *env, args []string) int {
	a, code := parseConform(e, args)
	if code >= 0 {
		return code
	}
	if a.list {
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
	a.opts.Output = e.stdout
	if e.setMemoryLimit != nil {
		// What the run holds is bounded (client.HeapGuard); the limit
		// keeps its garbage from doubling the process on top of it.
		defer e.setMemoryLimit(e.setMemoryLimit(client.MemoryLimit))
	}
	summary, err := conformance.Run(a.cfg, a.opts)
	if summary == nil {
		fmt.Fprintf(e.stderr, "harness conform: %v\n", err)
		return exitUsage
	}
	if preflight := (*conformance.PreflightError)(nil); errors.As(err, &preflight) {
		// One line, and no report on standard output: nothing was judged.
		fmt.Fprintf(e.stderr, "harness conform: %v\n", err)
		return exitFailure
	}
	fmt.Fprintln(e.stdout, trafficLine(client.CurrentTraffic(), a.cfg.EffectiveRate()))
	if err != nil {
		fmt.Fprintf(e.stderr, "harness conform: %v\n", err)
		return exitFailure
	}
	if !summary.Passed() {
		fmt.Fprintf(e.stderr, "harness conform: %s\n", failureReason(summary))
		return exitFailure
	}
	return exitOK
}

// failureReason says in one line why a run failed.
func failureReason(summary *suitereport.Summary) string {
	c := summary.Counts()
	why := fmt.Sprintf("%d rules failed", c.Failed)
	if summary.Stopped != "" {
		why = fmt.Sprintf("%s: %d rules skipped, %d failed", summary.Stopped, c.Skipped, c.Failed)
	}
	if n := len(summary.ExpiredWaivers); n > 0 {
		why += fmt.Sprintf(", %d waivers expired", n)
	}
	if summary.FailOnSkip && c.Skipped > 0 && summary.Stopped == "" {
		why += fmt.Sprintf(", %d rules skipped (--fail-on-skip)", c.Skipped)
	}
	return why
}

// trafficLine says in one line what the run asked of the deployment.
func trafficLine(t client.Traffic, rate float64) string {
	limit := "no rate limit"
	if !math.IsInf(rate, 1) && rate > 0 {
		limit = fmt.Sprintf("at most %g/s", rate)
	}
	line := fmt.Sprintf("traffic: %d requests (%s), %d retries after 429/503, %s waiting before retries, %d refused",
		t.Requests, limit, t.Retries, t.RetryWait.Round(time.Millisecond), t.Refused)
	if len(t.RefusedURLs) > 0 {
		line += " (first: " + strings.Join(t.RefusedURLs, " ") + ")"
	}
	return line
}
