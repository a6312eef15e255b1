package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/deployment/record"
	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
)

// recordArgs is what the command line and the environment ask of
// harness record.
type recordArgs struct {
	opts   record.Options
	strict bool
	// fs reports the usage errors found after parsing.
	fs *flag.FlagSet
}

// parseRecord reads harness record's flags and environment variables
// (HARNESS_HEADERS, HARNESS_RATE; a flag wins over its variable). A code of
// -1 means go on; any other is the exit code.
func parseRecord(e *env, args []string) (recordArgs, int) {
	fs := newFlagSet(e, "record", "--from URL [--transactions-url URL] --out DIR [--max-pages N] [flags]")
	a := recordArgs{fs: fs}
	opts := &a.opts
	fs.StringVar(&opts.From, "from", "", "base URL of the deployment's data-node listings, e.g. http://127.0.0.1:8080 (required)")
	fs.StringVar(&opts.TransactionsURL, "transactions-url", "", "base URL that /transactions is appended to (default: --from)")
	fs.StringVar(&opts.Out, "out", "", "fixture directory to write (created if missing); an unfinished recording there is continued")
	fs.IntVar(&opts.MaxPages, "max-pages", 0, "most pages recorded per listing (0: every page)")
	fs.IntVar(&opts.PageSize, "page-size", record.DefaultPageSize, "rows asked per page; halved while the deployment refuses it")
	listings := fs.String("listings", strings.Join(records.Listings, ","), "comma-separated listings to record")
	timeout := fs.Duration("timeout", record.DefaultTimeout, "time limit of every request")
	fs.BoolVar(&a.strict, "strict", false, "exit 1 when the deployment served anything that breaks the schemas or the listing rules")
	logFormat := fs.String("log-format", "text", "progress log on standard error: text, json or none")
	var rate float64
	fs.Var(config.RateFlag(&rate), "rate", fmt.Sprintf("at most `N` requests per second, retries included; 0: no limit (default: no limit when every URL is loopback, else %d; env %s)", config.DefaultRate, config.EnvRate))
	var headers []string
	fs.Var(config.HeaderFlag(&headers), "header", "`Name: value` header sent with every request, e.g. an API key; repeatable; values are never printed (env "+config.EnvHeaders+", one a line; any --header replaces them)")
	if v := e.lookupEnv(config.EnvHeaders); v != "" {
		var err error
		if headers, err = config.HeadersFromEnv(v); err != nil {
			return a, usageError(e.stderr, fs, "%v", err)
		}
	}
	if v := e.lookupEnv(config.EnvRate); v != "" {
		if err := config.RateFlag(&rate).Set(v); err != nil {
			return a, usageError(e.stderr, fs, "%s: %v", config.EnvRate, err)
		}
	}
	if code := parseFlags(fs, args); code >= 0 {
		return a, code
	}
	switch {
	case fs.NArg() > 0:
		return a, usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	case opts.From == "":
		return a, usageError(e.stderr, fs, "--from is required")
	case opts.Out == "":
		return a, usageError(e.stderr, fs, "--out is required")
	case opts.MaxPages < 0:
		return a, usageError(e.stderr, fs, "--max-pages must not be negative")
	case opts.PageSize <= 0:
		return a, usageError(e.stderr, fs, "--page-size must be positive")
	case *timeout <= 0:
		return a, usageError(e.stderr, fs, "--timeout must be positive")
	}
	if err := checkSchemes("--from", opts.From, "--transactions-url", opts.TransactionsURL); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	for _, l := range strings.Split(*listings, ",") {
		if l = strings.TrimSpace(l); l != "" {
			opts.Listings = append(opts.Listings, l)
		}
	}
	var err error
	if opts.Logger, err = newLogger(e, *logFormat); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	if opts.Header, err = config.ParseHeaders(headers); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	// The suite's rule: no limit on this machine, DefaultRate elsewhere.
	opts.Rate = config.Config{BaseURL: opts.From, TransactionsURL: opts.TransactionsURL, Rate: rate}.EffectiveRate()
	if math.IsInf(opts.Rate, 1) {
		opts.Rate = 0
	}
	opts.Client = &http.Client{Timeout: *timeout}
	return a, -1
}

// runRecord records a live deployment's listings as fixtures: exit 0 when
// the recording is complete (violations are printed and counted, and fail
// the run only under --strict), 1 when it could not finish (rerun the same
// command to continue) or --strict found violations, 2 on a usage error.
func runRecord(ctx context.Context, e *env, args []string) int {
	a, code := parseRecord(e, args)
	if code >= 0 {
		return code
	}
	start := time.Now()
	rep, err := record.Run(ctx, a.opts)
	if errors.Is(err, record.ErrOptions) {
		return usageError(e.stderr, a.fs, "%v", err)
	}
	printRecordReport(e, rep)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(e.stderr, "harness record: interrupted; run the same command again to continue from the last page recorded\n")
		} else {
			hint := "run the same command again to continue from the last page recorded"
			if errors.Is(err, http.ErrSchemeMismatch) {
				hint = "the server speaks plain HTTP: use http:// in --from (or --transactions-url)"
			}
			fmt.Fprintf(e.stderr, "harness record: %v\n(%s)\n", err, hint)
		}
		return exitFailure
	}
	// The index harness serve --data reads the files by; serve builds it
	// again if it is missing, so failing to write it is only a warning.
	if err := fixtures.BuildIndex(rep.Out, nil); err != nil {
		fmt.Fprintf(e.stderr, "harness record: warning: the fixtures are complete but not indexed (harness serve --data will index them): %v\n", err)
	}
	total := rep.ViolationCount + rep.EarlierViolations
	fmt.Fprintf(e.stdout, "recorded %s into %s in %v (%d requests)\n", rep.Source, rep.Out, time.Since(start).Round(time.Millisecond), rep.Requests)
	if total > 0 {
		fmt.Fprintf(e.stderr, "harness record: warning: %d violations (listed above); the fixtures hold what the deployment served\n", total)
		if a.strict {
			return exitFailure
		}
	}
	return exitOK
}

// newLogger returns the progress logger for a --log-format value.
func newLogger(e *env, format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(e.stderr, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(e.stderr, nil)), nil
	case "none":
		return nil, nil
	}
	return nil, fmt.Errorf("--log-format must be text, json or none, got %q", format)
}

func printRecordReport(e *env, rep record.Report) {
	for _, v := range rep.Violations {
		fmt.Fprintf(e.stdout, "violation: %s\n", v)
	}
	if n := rep.ViolationCount - len(rep.Violations); n > 0 {
		fmt.Fprintf(e.stdout, "violation: ... and %d more\n", n)
	}
	if rep.EarlierViolations > 0 {
		fmt.Fprintf(e.stdout, "(%d violations were listed by the interrupted runs this one continued)\n", rep.EarlierViolations)
	}
	for _, l := range records.Listings {
		lr, ok := rep.Listings[l]
		if !ok {
			continue
		}
		state := "done"
		switch {
		case lr.Truncated:
			state = "stopped at --max-pages"
		case !lr.Done:
			state = "unfinished"
		}
		skipped := ""
		if lr.Skipped > 0 {
			skipped = fmt.Sprintf(", %d rows left out", lr.Skipped)
		}
		fmt.Fprintf(e.stdout, "  %-24s %9d rows %6d pages  %s%s\n", lr.File, lr.Rows, lr.Pages, state, skipped)
	}
}
